/* OpenCL kernels of the catena solver: thin wrappers that give every work-item one index and call the
 * per-item functions of ctn_solver.h, which the CPU backend runs as loops. No math lives here, only
 * indexing, so the two backends cannot drift.
 *
 * Rules every kernel follows: one work-item writes only the records it owns (its joint slot, or its
 * body), no atomics, no assumption that a work-group runs in lock-step (reductions synchronise with
 * barrier() only and read only what the barrier published), and sums are taken in a fixed order, so
 * results do not depend on how many threads the device uses.
 *
 * The host embeds this file with its #include lines resolved (cmake/embed_kernels.cmake). */

/* Contraction into fma would round differently from the host build (-ffp-contract=off). */
#pragma OPENCL FP_CONTRACT OFF

#include "ctn_solver.h"
#include "ctn_cg.h"

/* ---- per-substep phases ---------------------------------------------------------------------------- */

/* Step 2: rows of every joint slot. */
__kernel void ctn_k_prepare(int m, __global const ctn_joint_def *defs, __global const ctn_pose *pose,
                            __global const ctn_vel *vel, __global const ctn_inertia *inertia, __global const float *split,
                            ctn_step_params prm, __global ctn_block *blocks) {
    int s = (int)get_global_id(0);
    if (s >= m) return;
    ctn_prepare_slot(s, defs, pose, vel, inertia, split, prm, blocks);
}

/* Before step 2: world inverse inertia with the geometric-stiffness term of the last substep's impulses. */
__kernel void ctn_k_geometric_inertia(int n, __global const ctn_pose *pose, __global const ctn_props *props,
                                      __global const int *adj_offsets, __global const int *adj,
                                      __global const ctn_joint_def *defs, __global const float *lambda, float gs_h,
                                      __global ctn_inertia *inertia) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    ctn_geometric_inertia_body(i, pose, props, adj_offsets, adj, defs, lambda, gs_h, inertia);
}

/* Step 1: v* = v + h M^-1 f. Springs read vel_in (a copy of the velocities when springs exist), so no
 * work-item reads a velocity another one is writing. */
__kernel void ctn_k_forces(int n, __global const ctn_props *props, __global const ctn_inertia *inertia,
                           __global const int *sadj_offsets, __global const int *sadj, __global const ctn_joint_def *springs,
                           __global const ctn_pose *pose, __global ctn_vel *vel_in, __global ctn_vel *vel_out,
                           ctn_step_params prm) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    ctn_forces_body(i, props, inertia, sadj_offsets, sadj, springs, pose, vel_in, vel_out, prm);
}

/* v_i += scale M^-1 sum J^T l over body i's joints: warm start and Jacobi update (per-body gather, Nelson 1998). */
__kernel void ctn_k_gather(int n, __global const int *adj_offsets, __global const int *adj, __global const ctn_block *blocks,
                           __global const float *l, float scale, __global ctn_vel *vel, __global const ctn_inertia *inertia) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    ctn_apply_gather(i, adj_offsets, adj, blocks, l, scale, vel, inertia);
}

/* Coloured Gauss-Seidel: the `count` slots of one colour starting at `offset`; no two share a dynamic
 * body, so each work-item writes its two bodies' velocities directly. r2: squared residual per slot. */
__kernel void ctn_k_gs_colour(int offset, int count, __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                              __global float *lambda, __global ctn_vel *vel, __global const ctn_inertia *inertia,
                              __global float *r2) {
    int g = (int)get_global_id(0);
    if (g >= count) return;
    int s = offset + g;
    r2[s] = ctn_gs_slot(s, defs, blocks, lambda, vel, inertia);
}

/* The overflow group (joints beyond the colour budget): one work-item, slots in order, exactly as the
 * CPU loop, so the result is deterministic whatever bodies the joints share. */
__kernel void ctn_k_gs_serial(int begin, int end, __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                              __global float *lambda, __global ctn_vel *vel, __global const ctn_inertia *inertia,
                              __global float *r2) {
    if (get_global_id(0) != 0) return;
    for (int s = begin; s < end; ++s) r2[s] = ctn_gs_slot(s, defs, blocks, lambda, vel, inertia);
}

/* Jacobi row step: every slot from the same velocities; increments into dlambda for the gather. */
__kernel void ctn_k_jacobi(int m, __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                           __global float *lambda, __global const ctn_vel *vel, __global float *dlambda, __global float *r2) {
    int s = (int)get_global_id(0);
    if (s >= m) return;
    r2[s] = ctn_jacobi_slot(s, defs, blocks, lambda, vel, dlambda);
}

/* Step 4: positions, orientations (exp map) and world inverse inertia. */
__kernel void ctn_k_integrate(int n, __global ctn_pose *pose, __global const ctn_vel *vel, __global const ctn_props *props,
                              __global ctn_inertia *inertia, float h) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    ctn_integrate_body(i, pose, vel, props, inertia, h);
}

/* ---- post-stabilisation of the exact solver (ctn_project_*, host/solve/pipeline.c project_newton) ------- */

__kernel void ctn_k_project_begin(int n, __global const ctn_vel *vel, __global ctn_vel *out) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    ctn_project_begin_body(i, vel, out);
}

__kernel void ctn_k_project_slot(int m, __global const ctn_joint_def *defs, __global ctn_block *blocks, float h, __global float *err) {
    int s = (int)get_global_id(0);
    if (s >= m) return;
    ctn_project_slot(s, defs, blocks, h, err);
}

__kernel void ctn_k_inertia(int n, __global const ctn_pose *pose, __global const ctn_props *props, __global ctn_inertia *inertia) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    ctn_inertia_body(i, pose, props, inertia);
}

/* ---- conjugate gradient (Hestenes and Stiefel 1952): kernels/ctn_cg.h ------------------------------------------------ */

/* Index 5 of the CG scalar buffer: 1 while the iteration is running, 0 once it stopped (rz <= 0 or
 * p^T A p <= 0), as the CPU loop's `break`. */
#define CTN_CG_RZ 0
#define CTN_CG_PAP 1
#define CTN_CG_RZNEW 2
#define CTN_CG_ALPHA 3
#define CTN_CG_BETA 4
#define CTN_CG_ACTIVE 5
#define CTN_CG_RZ_STOP 6 /* 1e-12 rz0: stop once the preconditioned residual fell by 1e-6 (as the CPU loop) */

/* The per-slot and per-body steps are kernels/ctn_cg.h, shared with the CPU's solve_cg; the scalars alpha
 * and beta stay on the device in sc[] (formed by one-work-item kernels from clBLAST's dot products), and
 * the kernels after a stop do nothing. */

/* r = target - J v - S lambda, z = K^-1 r (block preconditioner), p = z. */
__kernel void ctn_k_cg_init(int m, __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                            __global const ctn_vel *vel, __global const float *lambda, __global float *r, __global float *z,
                            __global float *p) {
    int s = (int)get_global_id(0);
    if (s >= m) return;
    ctn_cg_init_slot(s, defs, blocks, vel, lambda, r, z, p);
}

/* active = rz > 0 after the initial dot product; the stop threshold is relative to it. */
__kernel void ctn_k_cg_start(__global float *sc) {
    if (get_global_id(0) != 0) return;
    sc[CTN_CG_RZ_STOP] = 1e-12f * sc[CTN_CG_RZ];
    sc[CTN_CG_ACTIVE] = sc[CTN_CG_RZ] > 0.0f ? 1.0f : 0.0f;
}

/* u_i = M^-1 J^T p over body i's joints (zero for bodies without joints). */
__kernel void ctn_k_cg_gather(int n, __global const int *adj_offsets, __global const int *adj, __global const ctn_block *blocks,
                              __global const float *p, __global const ctn_vel *vel, __global const ctn_inertia *inertia,
                              __global ctn_vel *u) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    ctn_cg_gather_body(i, adj_offsets, adj, blocks, p, vel, inertia, u);
}

/* (A p)_s = J_s u + S_s p_s: the matrix-free operator J M^-1 J^T + S. */
__kernel void ctn_k_cg_apply(int m, __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                             __global const ctn_vel *u, __global const float *p, __global float *ap) {
    int s = (int)get_global_id(0);
    if (s >= m) return;
    ctn_cg_apply_slot(s, defs, blocks, u, p, ap);
}

/* alpha = rz / p^T A p, or stop (alpha = 0) when the iteration stopped or p^T A p <= 0. */
__kernel void ctn_k_cg_alpha(__global float *sc) {
    if (get_global_id(0) != 0) return;
    if (sc[CTN_CG_ACTIVE] != 0.0f && sc[CTN_CG_PAP] > 0.0f) {
        sc[CTN_CG_ALPHA] = sc[CTN_CG_RZ] / sc[CTN_CG_PAP];
    } else {
        sc[CTN_CG_ALPHA] = 0.0f;
        sc[CTN_CG_ACTIVE] = 0.0f;
    }
}

/* lambda += alpha p, r -= alpha A p, z = K^-1 r (fused: alpha stays on the device). */
__kernel void ctn_k_cg_update(int m, __global const ctn_block *blocks, __global const float *sc, __global float *lambda,
                              __global float *r, __global const float *p, __global const float *ap, __global float *z) {
    int s = (int)get_global_id(0);
    if (s >= m || sc[CTN_CG_ACTIVE] == 0.0f) return;
    ctn_cg_update_slot(s, blocks, sc[CTN_CG_ALPHA], lambda, r, p, ap, z);
}

/* v_i += alpha u_i: velocities follow lambda. */
__kernel void ctn_k_cg_velocity(int n, __global const int *adj_offsets, __global const float *sc, __global const ctn_vel *u,
                                __global ctn_vel *vel) {
    int i = (int)get_global_id(0);
    if (i >= n || sc[CTN_CG_ACTIVE] == 0.0f) return;
    ctn_cg_velocity_body(i, adj_offsets, sc[CTN_CG_ALPHA], u, vel);
}

/* beta = rz_new / rz, rz = rz_new; the iteration goes on while rz > 0 and above the stop threshold. */
__kernel void ctn_k_cg_beta(__global float *sc) {
    if (get_global_id(0) != 0) return;
    if (sc[CTN_CG_ACTIVE] == 0.0f) {
        sc[CTN_CG_BETA] = 0.0f;
        return;
    }
    sc[CTN_CG_BETA] = sc[CTN_CG_RZNEW] / sc[CTN_CG_RZ];
    sc[CTN_CG_RZ] = sc[CTN_CG_RZNEW];
    if (!(sc[CTN_CG_RZ] > 0.0f) || !(sc[CTN_CG_RZ] > sc[CTN_CG_RZ_STOP])) sc[CTN_CG_ACTIVE] = 0.0f;
}

/* p = z + beta p. */
__kernel void ctn_k_cg_direction(int len, __global const float *sc, __global const float *z, __global float *p) {
    int k = (int)get_global_id(0);
    if (k >= len || sc[CTN_CG_ACTIVE] == 0.0f) return;
    ctn_cg_direction(k, sc[CTN_CG_BETA], z, p);
}

/* ---- measurements and deterministic reductions ---------------------------------------------------- */

/* Joint error of every slot at the current poses (ctn_joint_error, as ctn__measure_host). */
__kernel void ctn_k_joint_error(int m, __global const ctn_joint_def *defs, __global const ctn_pose *pose, __global float *gap,
                                __global float *angle) {
    int s = (int)get_global_id(0);
    if (s >= m) return;
    ctn_joint_def j = defs[s];
    float g, a;
    ctn_joint_error(j, ctn_load_pose(pose, j.a), ctn_load_pose(pose, j.b), &g, &a);
    gap[s] = g;
    angle[s] = a;
}

/* Folds a work-group's scratch in fixed pairwise order: scratch[0] = sum of scratch[0..L), scratch[L] and
 * scratch[2L] = max of the next two L-blocks. Every work-item of the group must call it. */
static void ctn_group_fold3(__local float *scratch) {
    int l = (int)get_local_id(0), L = (int)get_local_size(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = L / 2; h > 0; h >>= 1) {
        if (l < h) {
            scratch[l] += scratch[l + h];
            scratch[L + l] = fmax(scratch[L + l], scratch[L + l + h]);
            scratch[2 * L + l] = fmax(scratch[2 * L + l], scratch[2 * L + l + h]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* The same for ints: scratch[0] = max of scratch[0..L) (non-negative floats order like their int bits),
 * scratch[L] = min of scratch[L..2L). */
static void ctn_group_fold_max_min(__local int *scratch) {
    int l = (int)get_local_id(0), L = (int)get_local_size(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = L / 2; h > 0; h >>= 1) {
        if (l < h) {
            scratch[l] = max(scratch[l], scratch[l + h]);
            scratch[L + l] = min(scratch[L + l], scratch[L + l + h]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* Tree reduction of three arrays in one pass: sum of x0, max of x1 and x2 (residual^2, gap, angle).
 * Work-item l of group g first folds elements g*L + l, g*L + l + G*L, ... (G groups of L items, both
 * fixed for a given n and device), then the group folds its L values pairwise with barriers between
 * levels. The order of every addition is fixed, so the result is bitwise reproducible; no atomics.
 * Writes out[3 g + k]. L must be a power of two; scratch holds 3 L floats. */
__kernel void ctn_k_reduce3(int n, __global const float *x0, __global const float *x1, __global const float *x2,
                            __global float *out, __local float *scratch) {
    int l = (int)get_local_id(0), L = (int)get_local_size(0);
    int g = (int)get_group_id(0), G = (int)get_num_groups(0);
    float s = 0.0f, m1 = 0.0f, m2 = 0.0f;
    for (int i = g * L + l; i < n; i += G * L) {
        s += x0[i];
        m1 = fmax(m1, x1[i]);
        m2 = fmax(m2, x2[i]);
    }
    scratch[l] = s;
    scratch[L + l] = m1;
    scratch[2 * L + l] = m2;
    ctn_group_fold3(scratch);
    if (l == 0) {
        out[3 * g + 0] = scratch[0];
        out[3 * g + 1] = scratch[L];
        out[3 * g + 2] = scratch[2 * L];
    }
}

/* Final pass over the `groups` partial triples of ctn_k_reduce3 by one work-group: out[0..2]. */
__kernel void ctn_k_reduce3_final(int groups, __global const float *partial, __global float *out, __local float *scratch) {
    int l = (int)get_local_id(0), L = (int)get_local_size(0);
    float s = 0.0f, m1 = 0.0f, m2 = 0.0f;
    for (int i = l; i < groups; i += L) {
        s += partial[3 * i];
        m1 = fmax(m1, partial[3 * i + 1]);
        m2 = fmax(m2, partial[3 * i + 2]);
    }
    scratch[l] = s;
    scratch[L + l] = m1;
    scratch[2 * L + l] = m2;
    ctn_group_fold3(scratch);
    if (l == 0) {
        out[0] = scratch[0];
        out[1] = scratch[L];
        out[2] = scratch[2 * L];
    }
}

/* ---- divergence check -------------------------------------------------------------------- */

/* The device half of host/divergence.c, two passes like ctn_k_reduce3 (fixed order, no atomics): the
 * largest linear or angular speed of a body, and the lowest id of a body that is non-finite or faster
 * than `limit` (n when none). First pass: out[2 g], out[2 g + 1] per group (speeds as float bits, ids as
 * int bits of one int buffer); scratch holds 2 L ints; L a power of two. */
__kernel void ctn_k_body_check(int n, __global const ctn_pose *pose, __global const ctn_vel *vel, float limit, __global int *out,
                               __local int *scratch) {
    int l = (int)get_local_id(0), L = (int)get_local_size(0);
    int g = (int)get_group_id(0), G = (int)get_num_groups(0);
    float top = 0.0f;
    int bad = n;
    for (int i = g * L + l; i < n; i += G * L) {
        ctn_pose p = pose[i];
        ctn_vel v = vel[i];
        int finite = isfinite(p.p.x) && isfinite(p.p.y) && isfinite(p.p.z) && isfinite(p.p_lo.x) && isfinite(p.p_lo.y) &&
                     isfinite(p.p_lo.z) && isfinite(p.q.w) && isfinite(p.q.x) && isfinite(p.q.y) &&
                     isfinite(p.q.z) && isfinite(v.v.x) && isfinite(v.v.y) && isfinite(v.v.z) && isfinite(v.w.x) && isfinite(v.w.y) &&
                     isfinite(v.w.z);
        float s = fmax(ctn_length(v.v), ctn_length(v.w));
        if (!finite || !(s <= limit)) bad = min(bad, i);
        if (finite && isfinite(s)) top = fmax(top, s);
    }
    scratch[l] = as_int(top);
    scratch[L + l] = bad;
    ctn_group_fold_max_min(scratch);
    if (l == 0) {
        out[2 * g] = scratch[0];
        out[2 * g + 1] = scratch[L];
    }
}

/* Final pass over the `groups` pairs by one work-group: out[at] (speed bits), out[at + 1] (first bad id). */
__kernel void ctn_k_body_check_final(int groups, int n, __global const int *partial, __global int *out, int at, __local int *scratch) {
    int l = (int)get_local_id(0), L = (int)get_local_size(0);
    int top = 0, bad = n;
    for (int i = l; i < groups; i += L) {
        top = max(top, partial[2 * i]);
        bad = min(bad, partial[2 * i + 1]);
    }
    scratch[l] = top;
    scratch[L + l] = bad;
    ctn_group_fold_max_min(scratch);
    if (l == 0) {
        out[at] = scratch[0];
        out[at + 1] = scratch[L];
    }
}

/* ---- Exact solver for chains of joints (host/opencl_direct.c) ---------------------------------
 * Block-tridiagonal system A dl = r over the joints of simple paths, ordered along each path (position i,
 * slot perm[i]); paths are concatenated with zero couplings. Block cyclic reduction in double precision:
 * per position a dense 6x6 pivot D, couplings L (to the previous active position) and U (to the next one)
 * and the right-hand side b, all padded to `nb` rows (padding rows: identity pivot, zero couplings).
 * Only built when the device has cl_khr_fp64; the host checks the extension and creates these kernels
 * lazily, so devices without it still build the program. */
#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define CTN_DFLOOR 1e-10 /* relative regularisation of every row, as DIRECT_FLOOR in host/solver_direct.c */

/* Row k of a block's Jacobian on one side (0: body a, 1: body b) as 6 doubles (linear, angular). */
CTN_FN void ctn_d_jrow(const ctn_block *b, int k, int side, double *j) {
    ctn_v3 lin = ctn_v3_zero(), ang;
    if (k < b->n_lin) {
        lin = b->dir[k];
        ang = ctn_cross(side ? b->rb : b->ra, b->dir[k]);
    } else {
        ang = b->dir[k];
    }
    double sg = side ? -1.0 : 1.0;
    j[0] = sg * lin.x, j[1] = sg * lin.y, j[2] = sg * lin.z;
    j[3] = sg * ang.x, j[4] = sg * ang.y, j[5] = sg * ang.z;
}

/* x^T M^-1 y for one body with inverse mass im and world inverse inertia I. */
CTN_FN double ctn_d_mform(double im, ctn_sym3 I, const double *x, const double *y) {
    double lin = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
    double ix = (double)I.xx * y[3] + (double)I.xy * y[4] + (double)I.xz * y[5];
    double iy = (double)I.xy * y[3] + (double)I.yy * y[4] + (double)I.yz * y[5];
    double iz = (double)I.xz * y[3] + (double)I.yz * y[4] + (double)I.zz * y[5];
    return im * lin + x[3] * ix + x[4] * iy + x[5] * iz;
}

/* Mass of body `body` as seen by the solver: zero for the world and for non-dynamic bodies. */
CTN_FN void ctn_d_mass(int body, __global const ctn_vel *vel, __global const ctn_inertia *inertia, double *im, ctn_sym3 *I) {
    *im = 0.0;
    *I = ctn_sym3_zero();
    if (body < 0) return;
    float m = vel[body].inv_mass;
    if (!(m > 0.0f)) return;
    *im = (double)m;
    *I = inertia[body].inv_inertia;
}

/* out (6x6, row-major, padded with zeros) = J_{p,side_p} M^-1 J_{q,side_q}^T. */
CTN_FN void ctn_d_coupling(const ctn_block *p, int side_p, const ctn_block *q, int side_q, double im, ctn_sym3 I, double *out) {
    int np = ctn_block_rows(p), nq = ctn_block_rows(q), r, c;
    double jp[6], jq[6];
    for (r = 0; r < 36; ++r) out[r] = 0.0;
    for (r = 0; r < np; ++r) {
        ctn_d_jrow(p, r, side_p, jp);
        for (c = 0; c < nq; ++c) {
            ctn_d_jrow(q, c, side_q, jq);
            out[r * 6 + c] = ctn_d_mform(im, I, jp, jq);
        }
    }
}

/* Position i: pivot, couplings and right-hand side r = target - J v - S lambda (double).
 * link[3 i .. 3 i + 2] = (body shared with position i + 1 or -1, its side in joint i, its side in joint i + 1). */
__kernel void ctn_k_direct_build(int n, __global const int *perm, __global const int *link, __global const ctn_joint_def *defs,
                                 __global const ctn_block *blocks, __global const ctn_vel *vel, __global const ctn_inertia *inertia,
                                 __global const float *lambda, __global double *D, __global double *L, __global double *U,
                                 __global double *bv) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    int s = perm[i], r, c;
    ctn_block blk = blocks[s], nb_blk;
    ctn_joint_def d = defs[s];
    int rows = ctn_block_rows(&blk);
    double ima, imb, m[36], t[36];
    ctn_sym3 Ia, Ib;
    ctn_d_mass(d.a, vel, inertia, &ima, &Ia);
    ctn_d_mass(d.b, vel, inertia, &imb, &Ib);
    ctn_d_coupling(&blk, 0, &blk, 0, ima, Ia, m);
    ctn_d_coupling(&blk, 1, &blk, 1, imb, Ib, t);
    for (r = 0; r < 36; ++r) m[r] += t[r];
    for (r = 0; r < 6; ++r) {
        if (r < rows) m[r * 7] += (double)blk.soft[r] + CTN_DFLOOR * m[r * 7];
        else m[r * 7] = 1.0;
    }
    for (r = 0; r < 36; ++r) D[36 * i + r] = m[r];
    /* r = target - J v - S lambda */
    ctn_vel va = ctn_load_vel(vel, d.a), vb = ctn_load_vel(vel, d.b);
    double x[6], y[6], ja[6], jb[6];
    x[0] = va.v.x, x[1] = va.v.y, x[2] = va.v.z, x[3] = va.w.x, x[4] = va.w.y, x[5] = va.w.z;
    y[0] = vb.v.x, y[1] = vb.v.y, y[2] = vb.v.z, y[3] = vb.w.x, y[4] = vb.w.y, y[5] = vb.w.z;
    for (r = 0; r < 6; ++r) {
        double rhs = 0.0;
        if (r < rows) {
            ctn_d_jrow(&blk, r, 0, ja);
            ctn_d_jrow(&blk, r, 1, jb);
            double jv = 0.0;
            for (c = 0; c < 6; ++c) jv += ja[c] * x[c] + jb[c] * y[c];
            rhs = (double)blk.bias[r] - jv - (double)blk.soft[r] * (double)lambda[6 * s + r];
        }
        bv[6 * i + r] = rhs;
    }
    /* U: coupling to position i + 1 through the shared body */
    int body = link[3 * i];
    if (body >= 0 && i + 1 < n) {
        double im;
        ctn_sym3 I;
        ctn_d_mass(body, vel, inertia, &im, &I);
        nb_blk = blocks[perm[i + 1]];
        ctn_d_coupling(&blk, link[3 * i + 1], &nb_blk, link[3 * i + 2], im, I, t);
    } else {
        for (r = 0; r < 36; ++r) t[r] = 0.0;
    }
    for (r = 0; r < 36; ++r) U[36 * i + r] = t[r];
    /* L: coupling to position i - 1 */
    body = i > 0 ? link[3 * (i - 1)] : -1;
    if (body >= 0) {
        double im;
        ctn_sym3 I;
        ctn_d_mass(body, vel, inertia, &im, &I);
        nb_blk = blocks[perm[i - 1]];
        ctn_d_coupling(&blk, link[3 * (i - 1) + 2], &nb_blk, link[3 * (i - 1) + 1], im, I, t);
    } else {
        for (r = 0; r < 36; ++r) t[r] = 0.0;
    }
    for (r = 0; r < 36; ++r) L[36 * i + r] = t[r];
}

/* In-place Cholesky of the SPD nb x nb block a (lower triangle). A pivot below 1e-13 of the row's
 * diagonal (a redundant row) becomes 0: that row's solution is 0 (the CPU direct solver drops it too). */
CTN_FN void ctn_d_chol(double *a, int nb) {
    int i, j, k;
    for (j = 0; j < nb; ++j) {
        double dj = a[j * 6 + j], d = dj;
        for (k = 0; k < j; ++k) d -= a[j * 6 + k] * a[j * 6 + k];
        d = d > 1e-13 * fabs(dj) && d > 0.0 ? sqrt(d) : 0.0;
        a[j * 6 + j] = d;
        for (i = j + 1; i < nb; ++i) {
            double s = a[i * 6 + j];
            for (k = 0; k < j; ++k) s -= a[i * 6 + k] * a[j * 6 + k];
            a[i * 6 + j] = d > 0.0 ? s / d : 0.0;
        }
    }
}

/* Solves (L L^T) x = b in place for cols columns of b (6 x 6 row-major, column stride 1). */
CTN_FN void ctn_d_chol_solve(const double *a, int nb, double *b, int cols) {
    int i, k, c;
    for (c = 0; c < cols; ++c) {
        for (i = 0; i < nb; ++i) {
            double s = b[i * 6 + c];
            for (k = 0; k < i; ++k) s -= a[i * 6 + k] * b[k * 6 + c];
            b[i * 6 + c] = a[i * 6 + i] > 0.0 ? s / a[i * 6 + i] : 0.0;
        }
        for (i = nb - 1; i >= 0; --i) {
            double s = b[i * 6 + c];
            for (k = i + 1; k < nb; ++k) s -= a[k * 6 + i] * b[k * 6 + c];
            b[i * 6 + c] = a[i * 6 + i] > 0.0 ? s / a[i * 6 + i] : 0.0;
        }
    }
}

CTN_FN void ctn_d_load(__global const double *src, int at, double *dst, int len) {
    int k;
    for (k = 0; k < len; ++k) dst[k] = src[at * len + k];
}

/* acc -= a b (nb x nb blocks), or acc = -a b when assign. */
CTN_FN void ctn_d_mul_sub(double *acc, const double *a, const double *b, int nb, int assign) {
    int i, j, k;
    for (i = 0; i < nb; ++i)
        for (j = 0; j < nb; ++j) {
            double s = 0.0;
            for (k = 0; k < nb; ++k) s += a[i * 6 + k] * b[k * 6 + j];
            acc[i * 6 + j] = assign ? -s : acc[i * 6 + j] - s;
        }
}

/* One reduction level with stride st: position j = 2 st t eliminates its odd neighbours j - st and
 * j + st (which keep their own blocks for the back-substitution). */
CTN_FN void ctn_d_reduce_at(int j, int n, int st, int nb, __global double *D, __global double *L, __global double *U,
                            __global double *bv) {
    double dj[36], lj[36], uj[36], bj[6], nl[36], nu[36], po[36], x[36], y[36];
    int r, c;
    ctn_d_load(D, j, dj, 36);
    ctn_d_load(L, j, lj, 36);
    ctn_d_load(U, j, uj, 36);
    ctn_d_load(bv, j, bj, 6);
    for (r = 0; r < 36; ++r) nl[r] = nu[r] = 0.0;
    for (int side = 0; side < 2; ++side) {
        int o = side == 0 ? j - st : j + st;
        if (o < 0 || o >= n) continue;
        const double *cj = side == 0 ? lj : uj; /* coupling of j to o */
        ctn_d_load(D, o, po, 36);
        ctn_d_chol(po, nb);
        /* x = D_o^-1 (coupling of o back to j), y = D_o^-1 (coupling of o onward), plus D_o^-1 b_o in y's column 5.. */
        for (r = 0; r < 36; ++r) {
            x[r] = side == 0 ? U[36 * o + r] : L[36 * o + r];
            y[r] = side == 0 ? L[36 * o + r] : U[36 * o + r];
        }
        ctn_d_chol_solve(po, nb, x, nb);
        ctn_d_chol_solve(po, nb, y, nb);
        double z[36];
        for (r = 0; r < 36; ++r) z[r] = 0.0;
        for (r = 0; r < 6; ++r) z[r * 6] = bv[6 * o + r];
        ctn_d_chol_solve(po, nb, z, 1);
        ctn_d_mul_sub(dj, cj, x, nb, 0);
        ctn_d_mul_sub(side == 0 ? nl : nu, cj, y, nb, 1);
        for (r = 0; r < nb; ++r) {
            double s = 0.0;
            for (c = 0; c < nb; ++c) s += cj[r * 6 + c] * z[c * 6];
            bj[r] -= s;
        }
    }
    for (r = 0; r < 36; ++r) {
        D[36 * j + r] = dj[r];
        L[36 * j + r] = nl[r];
        U[36 * j + r] = nu[r];
    }
    for (r = 0; r < 6; ++r) bv[6 * j + r] = bj[r];
}

__kernel void ctn_k_direct_reduce(int n, int st, int nb, __global double *D, __global double *L, __global double *U,
                                  __global double *bv) {
    int j = 2 * st * (int)get_global_id(0);
    if (j < n) ctn_d_reduce_at(j, n, st, nb, D, L, U, bv);
}

/* Back-substitution of one level: x_i = D_i^-1 (b_i - L_i x_{i-st} - U_i x_{i+st}) for the odd positions
 * i = st (2 t + 1); root != 0: position 0 alone, x_0 = D_0^-1 b_0. */
CTN_FN void ctn_d_back_at(int i, int n, int st, int nb, int root, __global const double *D, __global const double *L,
                          __global const double *U, __global const double *bv, __global double *xv) {
    double p[36], z[36];
    int r, c;
    ctn_d_load(D, i, p, 36);
    ctn_d_chol(p, nb);
    for (r = 0; r < 36; ++r) z[r] = 0.0;
    for (r = 0; r < nb; ++r) {
        double s = bv[6 * i + r];
        if (!root) {
            for (c = 0; c < nb; ++c) s -= L[36 * i + r * 6 + c] * xv[6 * (i - st) + c];
            if (i + st < n)
                for (c = 0; c < nb; ++c) s -= U[36 * i + r * 6 + c] * xv[6 * (i + st) + c];
        }
        z[r * 6] = s;
    }
    ctn_d_chol_solve(p, nb, z, 1);
    for (r = 0; r < 6; ++r) xv[6 * i + r] = r < nb ? z[r * 6] : 0.0;
}

__kernel void ctn_k_direct_back(int n, int st, int nb, int root, __global const double *D, __global const double *L,
                                __global const double *U, __global const double *bv, __global double *xv) {
    int i = root ? 0 : st * (2 * (int)get_global_id(0) + 1);
    if (i >= n || (root && get_global_id(0) > 0)) return;
    ctn_d_back_at(i, n, st, nb, root, D, L, U, bv, xv);
}

/* lambda += dl, dlambda = dl for the gather (slot order). */
__kernel void ctn_k_direct_apply(int n, __global const int *perm, __global const ctn_block *blocks, __global const double *xv,
                                 __global float *lambda, __global float *dlambda) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    int s = perm[i], k, rows = blocks[s].n_lin + blocks[s].n_ang;
    for (k = 0; k < CTN_MAX_ROWS; ++k) {
        float dl = k < rows ? (float)xv[6 * i + k] : 0.0f;
        dlambda[6 * s + k] = dl;
        lambda[6 * s + k] += dl;
    }
}

/* |r|^2 of slot s after the solve (as host/solver_direct.c reports it). */
__kernel void ctn_k_direct_residual(int m, __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                                    __global const ctn_vel *vel, __global const float *lambda, __global float *r2) {
    int s = (int)get_global_id(0);
    if (s >= m) return;
    ctn_block b = blocks[s];
    float lam[CTN_MAX_ROWS], r[CTN_MAX_ROWS], acc = 0.0f;
    int k;
    for (k = 0; k < CTN_MAX_ROWS; ++k) lam[k] = lambda[6 * s + k];
    ctn_block_residual(&b, ctn_load_vel(vel, defs[s].a), ctn_load_vel(vel, defs[s].b), lam, r);
    for (k = 0; k < ctn_block_rows(&b); ++k) acc += r[k] * r[k];
    r2[s] = acc;
}

/* ---- Exact solver for forests of joints (host/opencl_tree.c) -----------------------------------
 * The KKT system [M J^T; J -S] eliminated over the elimination tree of host/solver_direct.c (body nodes,
 * joint nodes, supernodes for rows attached to grounded bodies; node records CTN_TN_* of ctn_direct.h),
 * one launch per level of the tree, children before parents (factor + forward substitution), then one
 * launch per level from the roots (back substitution + update). A launch covers the nodes
 * lv_nodes[begin..end); with `serial` one work-item runs them in order (a band of narrow levels, so a
 * long path is one launch, not one per node). Every node reads only its children's (or parent's)
 * finished results and writes only its own: no atomics. Sums run in the CPU's order (children by node
 * index), so the two solvers round alike. */
#include "ctn_direct.h"

/* Row pivot of (2): -(S + floor (J M^-1 J^T)_kk of the row's own bodies). */
CTN_FN double ctn_tree_row_pivot(const ctn_block *b, int k, ctn_joint_def d, __global const ctn_vel *vel,
                                 __global const ctn_inertia *inertia) {
    double acc = 0.0, j[6], im;
    ctn_sym3 I;
    for (int side = 0; side < 2; ++side) {
        ctn_d_mass(side ? d.b : d.a, vel, inertia, &im, &I);
        if (!(im > 0.0)) continue;
        ctn_dd_jrow(b, k, side, j);
        acc += ctn_dd_row_mass(im, I, j);
    }
    return -((double)b->soft[k] + CTN_DD_FLOOR * acc);
}

/* r = target - J v - S lambda of the rows of one joint (double). */
CTN_FN void ctn_tree_residual(const ctn_block *b, int slot, ctn_joint_def d, __global const ctn_vel *vel,
                              __global const float *lambda, double *r) {
    ctn_vel va = ctn_load_vel(vel, d.a), vb = ctn_load_vel(vel, d.b);
    double Va[6] = {va.v.x, va.v.y, va.v.z, va.w.x, va.w.y, va.w.z};
    double Vb[6] = {vb.v.x, vb.v.y, vb.v.z, vb.w.x, vb.w.y, vb.w.z};
    int n = ctn_block_rows(b);
    for (int k = 0; k < n; ++k) {
        double ja[6], jb[6], jv = 0.0;
        ctn_dd_jrow(b, k, 0, ja);
        ctn_dd_jrow(b, k, 1, jb);
        for (int c = 0; c < 6; ++c) jv += ja[c] * Va[c] + jb[c] * Vb[c];
        r[k] = (double)b->bias[k] - jv - (double)b->soft[k] * lambda[6 * slot + k];
    }
}

/* Factor and forward substitution of node i:
 *     D_i = H_ii - sum_c H_ic D_c^-1 H_ci,   u_i = D_i^-1 (b_i - sum_c H_ic u_c)
 * over its children c (already done), stored as D_i^-1 in mat and u_i in u. */
CTN_FN void ctn_tree_factor_node(int i, __global const int *node, __global const int *child, __global const int *att,
                                 __global const int *slot_info, __global const ctn_joint_def *defs,
                                 __global const ctn_block *blocks, __global const ctn_vel *vel,
                                 __global const ctn_inertia *inertia, __global const float *lambda, __global double *mat,
                                 __global double *u) {
    __global const int *nd = node + CTN_TN_INTS * i;
    int N = nd[CTN_TN_SIZE], d = nd[CTN_TN_DOF], r, c, k, e;
    /* D_i is assembled, factored and inverted in place in its own block of mat (private memory: O(N)) */
    __global double *D = mat + nd[CTN_TN_MAT];
    double b[CTN_DD_MAX_NODE], J[CTN_MAX_ROWS][6], T[CTN_MAX_ROWS][6];
    ctn_block blk;
    for (r = 0; r < N * N; ++r) D[r] = 0.0;
    for (r = 0; r < N; ++r) b[r] = 0.0;
    if (nd[CTN_TN_KIND] == 1) {
        int slot = nd[CTN_TN_ID];
        blk = blocks[slot];
        for (r = 0; r < N; ++r) D[r * N + r] = ctn_tree_row_pivot(&blk, r, defs[slot], vel, inertia);
        ctn_tree_residual(&blk, slot, defs[slot], vel, lambda, b);
    } else {
        int body = nd[CTN_TN_ID];
        float im = vel[body].inv_mass;
        double mass = im > 0.0f ? 1.0 / (double)im : 1e30;
        for (r = 0; r < 3; ++r) D[r * N + r] = mass;
        if (d == 6) {
            double I[9];
            if (!ctn_dd_sym3_inverse(inertia[body].inv_inertia, I))
                for (r = 0; r < 9; ++r) I[r] = (r % 4 == 0) ? 1e30 : 0.0; /* degenerate: rotation locked */
            for (r = 0; r < 3; ++r)
                for (c = 0; c < 3; ++c) D[(3 + r) * N + 3 + c] = I[r * 3 + c];
        }
        for (e = nd[CTN_TN_ATT]; e < nd[CTN_TN_ATT] + nd[CTN_TN_NATT]; ++e) {
            int slot = att[e], row0 = slot_info[CTN_TS_INTS * slot + CTN_TS_ROW], n = slot_info[CTN_TS_INTS * slot + CTN_TS_ROWS];
            blk = blocks[slot];
            for (r = 0; r < n; ++r) ctn_dd_jrow(&blk, r, slot_info[CTN_TS_INTS * slot + CTN_TS_SIDE], J[r]);
            for (r = 0; r < n; ++r) {
                for (c = 0; c < d; ++c) {
                    D[(row0 + r) * N + c] = J[r][c];
                    D[c * N + row0 + r] = J[r][c];
                }
                D[(row0 + r) * N + row0 + r] = ctn_tree_row_pivot(&blk, r, defs[slot], vel, inertia);
            }
            ctn_tree_residual(&blk, slot, defs[slot], vel, lambda, b + row0);
        }
    }
    for (e = nd[CTN_TN_CHILD]; e < nd[CTN_TN_CHILD] + nd[CTN_TN_NCHILD]; ++e) {
        __global const int *cd = node + CTN_TN_INTS * child[e];
        int slot = cd[CTN_TN_PSLOT], n = slot_info[CTN_TS_INTS * slot + CTN_TS_ROWS];
        int Nc = cd[CTN_TN_SIZE], dc = cd[CTN_TN_DOF];
        __global const double *Dc = mat + cd[CTN_TN_MAT];
        __global const double *uc = u + cd[CTN_TN_VEC];
        blk = blocks[slot];
        for (r = 0; r < n; ++r) ctn_dd_jrow(&blk, r, cd[CTN_TN_SIDE], J[r]);
        if (cd[CTN_TN_KIND] == 0) {
            /* body child: rows of pslot in i (at prow) get -J_sc [D_c^-1]_bb J_sc^T and -J_sc u_c */
            int p0 = cd[CTN_TN_PROW];
            for (r = 0; r < n; ++r)
                for (c = 0; c < dc; ++c) {
                    double acc = 0.0;
                    for (k = 0; k < dc; ++k) acc += J[r][k] * Dc[k * Nc + c];
                    T[r][c] = acc;
                }
            for (r = 0; r < n; ++r)
                for (c = 0; c <= r; ++c) {
                    double acc = 0.0;
                    for (k = 0; k < dc; ++k) acc += T[r][k] * J[c][k];
                    D[(p0 + r) * N + p0 + c] -= acc;
                    if (c != r) D[(p0 + c) * N + p0 + r] -= acc;
                }
            for (r = 0; r < n; ++r)
                for (k = 0; k < dc; ++k) b[p0 + r] -= J[r][k] * uc[k];
        } else {
            /* joint child: the DOF block of body i gets -J_si^T D_s^-1 J_si and -J_si^T u_s */
            for (r = 0; r < Nc; ++r)
                for (c = 0; c < d; ++c) {
                    double acc = 0.0;
                    for (k = 0; k < Nc; ++k) acc += Dc[r * Nc + k] * J[k][c];
                    T[r][c] = acc;
                }
            for (r = 0; r < d; ++r)
                for (c = 0; c <= r; ++c) {
                    double acc = 0.0;
                    for (k = 0; k < Nc; ++k) acc += J[k][r] * T[k][c];
                    D[r * N + c] -= acc;
                    if (c != r) D[c * N + r] -= acc;
                }
            for (r = 0; r < Nc; ++r)
                for (k = 0; k < d; ++k) b[k] -= J[r][k] * uc[r];
        }
    }
    ctn_dd_node_inverse_g(D, N, d);
    __global double *uo = u + nd[CTN_TN_VEC];
    for (r = 0; r < N; ++r) {
        double acc = 0.0;
        for (c = 0; c < N; ++c) acc += D[r * N + c] * b[c];
        uo[r] = acc;
    }
}

/* Back substitution of node i, x_i = u_i - D_i^-1 H_ip x_p (x_i = u_i at a root), then the update:
 * v += dv on a body node, lambda += dl = -y on joint rows (the node owns its body and rows). */
CTN_FN void ctn_tree_back_node(int i, __global const int *node, __global const int *att, __global const int *slot_info,
                               __global const ctn_block *blocks, __global const double *mat, __global const double *u,
                               __global double *xv, __global ctn_vel *vel, __global float *lambda) {
    __global const int *nd = node + CTN_TN_INTS * i;
    int N = nd[CTN_TN_SIZE], p = nd[CTN_TN_PARENT], r, k, e;
    double x[CTN_DD_MAX_NODE], g[CTN_DD_MAX_NODE], J[CTN_MAX_ROWS][6];
    __global const double *ui = u + nd[CTN_TN_VEC];
    for (r = 0; r < N; ++r) x[r] = ui[r];
    if (p >= 0) {
        __global const int *pd = node + CTN_TN_INTS * p;
        __global const double *xp = xv + pd[CTN_TN_VEC];
        __global const double *Di = mat + nd[CTN_TN_MAT];
        int slot = nd[CTN_TN_PSLOT], n = slot_info[CTN_TS_INTS * slot + CTN_TS_ROWS], gn;
        ctn_block blk = blocks[slot];
        for (r = 0; r < n; ++r) ctn_dd_jrow(&blk, r, nd[CTN_TN_SIDE], J[r]);
        if (nd[CTN_TN_KIND] == 0) {
            /* x_c -= D_c^-1 [J_sc^T y_s; 0] */
            gn = nd[CTN_TN_DOF];
            xp += nd[CTN_TN_PROW];
            for (k = 0; k < gn; ++k) {
                double acc = 0.0;
                for (r = 0; r < n; ++r) acc += J[r][k] * xp[r];
                g[k] = acc;
            }
        } else {
            /* x_s -= D_s^-1 J_sp dv_p */
            int dp = pd[CTN_TN_DOF];
            gn = N;
            for (r = 0; r < N; ++r) {
                double acc = 0.0;
                for (k = 0; k < dp; ++k) acc += J[r][k] * xp[k];
                g[r] = acc;
            }
        }
        for (r = 0; r < N; ++r) {
            double acc = 0.0;
            for (k = 0; k < gn; ++k) acc += Di[r * N + k] * g[k];
            x[r] -= acc;
        }
    }
    __global double *xo = xv + nd[CTN_TN_VEC];
    for (r = 0; r < N; ++r) xo[r] = x[r];
    if (nd[CTN_TN_KIND] == 1) {
        int slot = nd[CTN_TN_ID];
        for (r = 0; r < N; ++r) lambda[6 * slot + r] = (float)((double)lambda[6 * slot + r] - x[r]);
        return;
    }
    int body = nd[CTN_TN_ID];
    ctn_vel v = vel[body];
    v.v.x = (float)((double)v.v.x + x[0]);
    v.v.y = (float)((double)v.v.y + x[1]);
    v.v.z = (float)((double)v.v.z + x[2]);
    if (nd[CTN_TN_DOF] == 6) {
        v.w.x = (float)((double)v.w.x + x[3]);
        v.w.y = (float)((double)v.w.y + x[4]);
        v.w.z = (float)((double)v.w.z + x[5]);
    }
    vel[body] = v;
    for (e = nd[CTN_TN_ATT]; e < nd[CTN_TN_ATT] + nd[CTN_TN_NATT]; ++e) {
        int slot = att[e], row0 = slot_info[CTN_TS_INTS * slot + CTN_TS_ROW], n = slot_info[CTN_TS_INTS * slot + CTN_TS_ROWS];
        for (r = 0; r < n; ++r) lambda[6 * slot + r] = (float)((double)lambda[6 * slot + r] - x[row0 + r]);
    }
}

/* One level (or, with serial, a band of narrow levels in order) of the factor. */
__kernel void ctn_k_tree_factor(int begin, int end, int serial, __global const int *lv_nodes, __global const int *node,
                                __global const int *child, __global const int *att, __global const int *slot_info,
                                __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                                __global const ctn_vel *vel, __global const ctn_inertia *inertia, __global const float *lambda,
                                __global double *mat, __global double *u) {
    int g = (int)get_global_id(0);
    if (serial) {
        if (g == 0)
            for (int k = begin; k < end; ++k)
                ctn_tree_factor_node(lv_nodes[k], node, child, att, slot_info, defs, blocks, vel, inertia, lambda, mat, u);
    } else if (begin + g < end) {
        ctn_tree_factor_node(lv_nodes[begin + g], node, child, att, slot_info, defs, blocks, vel, inertia, lambda, mat, u);
    }
}

/* One level (or a band, walked backwards: parents first) of the back substitution and update. */
__kernel void ctn_k_tree_back(int begin, int end, int serial, __global const int *lv_nodes, __global const int *node,
                              __global const int *att, __global const int *slot_info, __global const ctn_block *blocks,
                              __global const double *mat, __global const double *u, __global double *xv,
                              __global ctn_vel *vel, __global float *lambda) {
    int g = (int)get_global_id(0);
    if (serial) {
        if (g == 0)
            for (int k = end - 1; k >= begin; --k) ctn_tree_back_node(lv_nodes[k], node, att, slot_info, blocks, mat, u, xv, vel, lambda);
    } else if (begin + g < end) {
        ctn_tree_back_node(lv_nodes[begin + g], node, att, slot_info, blocks, mat, u, xv, vel, lambda);
    }
}

/* ---- Long paths of a forest contracted by block cyclic reduction (host/opencl_tree.c) ----------
 * A segment is a maximal path j1, b2, j2, ..., bk, jk of the elimination tree whose nodes each have one
 * child: joint nodes and body nodes without attached rows (ungrounded). Below j1 hangs the regular node
 * b1 (already eliminated), above jk the body P. Eliminating the segment bodies (pivot M, rhs 0) leaves
 * the joints in a block-tridiagonal system, the chain system of ctn_k_direct_* (A dl = r'):
 *     K_p = S_p + floor + J_{p,down} W J_{p,down}^T + [p not top] J_{p,up} M_up^-1 J_{p,up}^T,
 *     C_{p,p+1} = J_{p,b} M_b^-1 J_{p+1,b}^T (b the body between them),  r'_p = r_p - [bottom] J_{p,b1} u_b1
 * with W = M^-1 of the body below, or [D_b1^-1]_bb at the bottom. Positions run from the top joint jk
 * (0) down to j1; the segments of one level of the contracted tree are concatenated, each aligned to its
 * own power-of-two length, so cyclic reduction over strides below that length reduces every segment to
 * its top: D(top) = K_root, the Schur complement of the segment. Then jk is an ordinary joint node:
 *     D_jk^-1 = -K_root^-1,  u_jk = -K_root^-1 b(top).
 * Back: the tree's back pass gives x_jk = y = -dl at the top; the other positions follow by the chain
 * back-substitution, then lambda += dl, v_b += M_b^-1 (J_{p,b}^T dl_p + J_{p+1,b}^T dl_{p+1}), and the
 * joint's y goes to the tree's x (j1's is read by b1). Position records: CTN_SP_* ints each. */
#define CTN_SP_SLOT 0  /* joint slot, -1 for padding */
#define CTN_SP_NODE 1  /* its joint node */
#define CTN_SP_DOWN 2  /* body below (shared with the next position; b1's body at the bottom) */
#define CTN_SP_B1 3    /* bottom: node b1, else -1 */
#define CTN_SP_TOP 4   /* 1 at the top joint jk */
#define CTN_SP_INTS 5

/* out (6x6) += J_{p,sp} W J_{q,sq}^T for a body with inverse mass im and world inverse inertia I. */
CTN_FN void ctn_seg_coupling(const ctn_block *p, int sp, const ctn_block *q, int sq, double im, ctn_sym3 I, double *out) {
    int np = ctn_block_rows(p), nq = ctn_block_rows(q), r, c;
    double jp[6], jq[6];
    for (r = 0; r < np; ++r) {
        ctn_dd_jrow(p, r, sp, jp);
        for (c = 0; c < nq; ++c) {
            ctn_dd_jrow(q, c, sq, jq);
            out[r * 6 + c] += ctn_d_mform(im, I, jp, jq);
        }
    }
}

/* Position i of a segment level: pivot K, couplings L (to i - 1) and U (to i + 1), rhs r'. */
__kernel void ctn_k_seg_build(int base, int n, int nb, __global const int *pos, __global const int *node,
                              __global const ctn_joint_def *defs, __global const ctn_block *blocks, __global const ctn_vel *vel,
                              __global const ctn_inertia *inertia, __global const float *lambda, __global const double *mat,
                              __global const double *u, __global double *D, __global double *L, __global double *U,
                              __global double *bv) {
    int g = (int)get_global_id(0);
    if (g >= n) return;
    int i = base + g, r, c, k;
    __global const int *pr = pos + CTN_SP_INTS * i;
    double K[36], Lc[36], Uc[36], b[6];
    for (r = 0; r < 36; ++r) K[r] = Lc[r] = Uc[r] = 0.0;
    for (r = 0; r < 6; ++r) b[r] = 0.0;
    int slot = pr[CTN_SP_SLOT];
    if (slot < 0) {
        for (r = 0; r < 6; ++r) K[r * 7] = 1.0;
    } else {
        ctn_block blk = blocks[slot];
        ctn_joint_def d = defs[slot];
        int rows = ctn_block_rows(&blk), down = pr[CTN_SP_DOWN], b1 = pr[CTN_SP_B1], top = pr[CTN_SP_TOP];
        int sd = d.a == down ? 0 : 1, up = sd ? d.a : d.b;
        double im, Jd[CTN_MAX_ROWS][6];
        ctn_sym3 I;
        for (r = 0; r < rows; ++r) ctn_dd_jrow(&blk, r, sd, Jd[r]);
        if (b1 >= 0) {
            /* the regular node below: its DOF block of D_b1^-1 and its u */
            __global const int *bd = node + CTN_TN_INTS * b1;
            int Nb = bd[CTN_TN_SIZE], db = bd[CTN_TN_DOF];
            __global const double *Dinv = mat + bd[CTN_TN_MAT];
            __global const double *ub = u + bd[CTN_TN_VEC];
            for (r = 0; r < rows; ++r) {
                double t[6];
                for (c = 0; c < db; ++c) {
                    double acc = 0.0;
                    for (k = 0; k < db; ++k) acc += Jd[r][k] * Dinv[k * Nb + c];
                    t[c] = acc;
                }
                for (c = 0; c < rows; ++c) {
                    double acc = 0.0;
                    for (k = 0; k < db; ++k) acc += t[k] * Jd[c][k];
                    K[r * 6 + c] += acc;
                }
                double acc = 0.0;
                for (k = 0; k < db; ++k) acc += Jd[r][k] * ub[k];
                b[r] -= acc;
            }
        } else {
            ctn_d_mass(down, vel, inertia, &im, &I);
            ctn_seg_coupling(&blk, sd, &blk, sd, im, I, K);
            /* U: to position i + 1 through the body below */
            ctn_block nxt = blocks[pos[CTN_SP_INTS * (i + 1) + CTN_SP_SLOT]];
            int sn = defs[pos[CTN_SP_INTS * (i + 1) + CTN_SP_SLOT]].a == down ? 0 : 1;
            ctn_seg_coupling(&blk, sd, &nxt, sn, im, I, Uc);
        }
        if (!top) {
            ctn_d_mass(up, vel, inertia, &im, &I);
            ctn_seg_coupling(&blk, 1 - sd, &blk, 1 - sd, im, I, K);
            /* L: to position i - 1 through the body above (its body below) */
            ctn_block prv = blocks[pos[CTN_SP_INTS * (i - 1) + CTN_SP_SLOT]];
            int sp = defs[pos[CTN_SP_INTS * (i - 1) + CTN_SP_SLOT]].a == up ? 0 : 1;
            ctn_seg_coupling(&blk, 1 - sd, &prv, sp, im, I, Lc);
        }
        double res[CTN_MAX_ROWS];
        ctn_tree_residual(&blk, slot, d, vel, lambda, res);
        for (r = 0; r < rows; ++r) {
            K[r * 7] -= ctn_tree_row_pivot(&blk, r, d, vel, inertia); /* + S + floor (local mass) */
            b[r] += res[r];
        }
        for (r = rows; r < 6; ++r) K[r * 7] = 1.0;
    }
    for (r = 0; r < 36; ++r) {
        D[36 * i + r] = K[r];
        L[36 * i + r] = Lc[r];
        U[36 * i + r] = Uc[r];
    }
    for (r = 0; r < 6; ++r) bv[6 * i + r] = b[r];
}

__kernel void ctn_k_seg_reduce(int base, int n, int st, int nb, __global double *D, __global double *L, __global double *U,
                               __global double *bv) {
    int j = 2 * st * (int)get_global_id(0);
    if (j < n) ctn_d_reduce_at(j, n, st, nb, D + 36 * base, L + 36 * base, U + 36 * base, bv + 6 * base);
}

/* Segment tops (top position, jk node pairs): D_jk^-1 = -K_root^-1, u_jk = D_jk^-1 b(top). */
__kernel void ctn_k_seg_finish(int nseg, int first, __global const int *segs, __global const int *node, __global const double *D,
                               __global const double *bv, __global double *mat, __global double *u) {
    int g = (int)get_global_id(0);
    if (g >= nseg) return;
    int tp = segs[2 * (first + g)], jk = segs[2 * (first + g) + 1], r, c;
    __global const int *nd = node + CTN_TN_INTS * jk;
    int N = nd[CTN_TN_SIZE];
    /* K_root^-1 in place in the node's block of mat, then u, then the sign */
    __global double *Ki = mat + nd[CTN_TN_MAT];
    __global double *uo = u + nd[CTN_TN_VEC];
    for (r = 0; r < N; ++r)
        for (c = 0; c < N; ++c) Ki[r * N + c] = D[36 * tp + r * 6 + c];
    ctn_dd_spd_inverse_g(Ki, N, N);
    for (r = 0; r < N; ++r) {
        double acc = 0.0;
        for (c = 0; c < N; ++c) acc -= Ki[r * N + c] * bv[6 * tp + c];
        uo[r] = acc;
    }
    for (r = 0; r < N * N; ++r) Ki[r] = -Ki[r];
}

/* Segment tops: the chain solution there is dl = -y of the tree's back pass. */
__kernel void ctn_k_seg_root(int nseg, int first, __global const int *segs, __global const int *node, __global const double *xt,
                             __global double *xs) {
    int g = (int)get_global_id(0);
    if (g >= nseg) return;
    int tp = segs[2 * (first + g)], jk = segs[2 * (first + g) + 1], r;
    __global const int *nd = node + CTN_TN_INTS * jk;
    for (r = 0; r < 6; ++r) xs[6 * tp + r] = r < nd[CTN_TN_SIZE] ? -xt[nd[CTN_TN_VEC] + r] : 0.0;
}

__kernel void ctn_k_seg_back(int base, int n, int st, int nb, __global const int *pos, __global const double *D,
                             __global const double *L, __global const double *U, __global const double *bv, __global double *xs) {
    int i = st * (2 * (int)get_global_id(0) + 1);
    if (i >= n || pos[CTN_SP_INTS * (base + i) + CTN_SP_TOP]) return;
    ctn_d_back_at(i, n, st, nb, 0, D + 36 * base, L + 36 * base, U + 36 * base, bv + 6 * base, xs + 6 * base);
}

/* lambda += dl (not at the top: the tree's back pass did it), y = -dl into the tree's x, and the body
 * below: v += M^-1 (J_{i,b}^T dl_i + J_{i+1,b}^T dl_{i+1}). */
__kernel void ctn_k_seg_apply(int base, int n, __global const int *pos, __global const int *node,
                              __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                              __global const ctn_inertia *inertia, __global const double *xs, __global double *xt,
                              __global ctn_vel *vel, __global float *lambda) {
    int g = (int)get_global_id(0);
    if (g >= n) return;
    int i = base + g, r, c;
    __global const int *pr = pos + CTN_SP_INTS * i;
    int slot = pr[CTN_SP_SLOT];
    if (slot < 0) return;
    ctn_block blk = blocks[slot];
    int rows = ctn_block_rows(&blk), down = pr[CTN_SP_DOWN];
    __global double *x = xt + node[CTN_TN_INTS * pr[CTN_SP_NODE] + CTN_TN_VEC];
    for (r = 0; r < rows; ++r) {
        double y = -xs[6 * i + r];
        x[r] = y;
        if (!pr[CTN_SP_TOP]) lambda[6 * slot + r] = (float)((double)lambda[6 * slot + r] - y);
    }
    if (pr[CTN_SP_B1] >= 0) return;
    int ns = pos[CTN_SP_INTS * (i + 1) + CTN_SP_SLOT];
    ctn_block nxt = blocks[ns];
    int sides[2] = {defs[slot].a == down ? 0 : 1, defs[ns].a == down ? 0 : 1};
    double f[6] = {0, 0, 0, 0, 0, 0}, j[6];
    for (int e = 0; e < 2; ++e) {
        const ctn_block *bk = e ? &nxt : &blk;
        int at = e ? i + 1 : i;
        for (r = 0; r < ctn_block_rows(bk); ++r) {
            ctn_dd_jrow(bk, r, sides[e], j);
            for (c = 0; c < 6; ++c) f[c] += j[c] * xs[6 * at + r];
        }
    }
    double im;
    ctn_sym3 I;
    ctn_d_mass(down, vel, inertia, &im, &I);
    ctn_vel v = vel[down];
    v.v.x = (float)((double)v.v.x + im * f[0]);
    v.v.y = (float)((double)v.v.y + im * f[1]);
    v.v.z = (float)((double)v.v.z + im * f[2]);
    v.w.x = (float)((double)v.w.x + (double)I.xx * f[3] + (double)I.xy * f[4] + (double)I.xz * f[5]);
    v.w.y = (float)((double)v.w.y + (double)I.xy * f[3] + (double)I.yy * f[4] + (double)I.yz * f[5]);
    v.w.z = (float)((double)v.w.z + (double)I.xz * f[3] + (double)I.yz * f[4] + (double)I.zz * f[5]);
    vel[down] = v;
}
#endif /* cl_khr_fp64 */
