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

/* v_i += scale M^-1 sum J^T l over body i's joints: warm start and Jacobi update (seed 003 gather). */
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

/* ---- conjugate gradient pieces (seed 004; host/solver_cpu.c solve_cg is the reference) -------------- */

/* Index 5 of the CG scalar buffer: 1 while the iteration is running, 0 once it stopped (rz <= 0 or
 * p^T A p <= 0), as the CPU loop's `break`. */
#define CTN_CG_RZ 0
#define CTN_CG_PAP 1
#define CTN_CG_RZNEW 2
#define CTN_CG_ALPHA 3
#define CTN_CG_BETA 4
#define CTN_CG_ACTIVE 5
#define CTN_CG_RZ_STOP 6 /* 1e-12 rz0: stop once the preconditioned residual fell by 1e-6 (as the CPU loop) */

/* r = target - J v - S lambda, z = K^-1 r (block preconditioner), p = z; zero beyond the block's rows. */
__kernel void ctn_k_cg_init(int m, __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                            __global const ctn_vel *vel, __global const float *lambda, __global float *r, __global float *z,
                            __global float *p) {
    int s = (int)get_global_id(0);
    if (s >= m) return;
    ctn_block b = blocks[s];
    float lam[CTN_MAX_ROWS], rs[CTN_MAX_ROWS], zs[CTN_MAX_ROWS];
    int k, n = ctn_block_rows(&b);
    for (k = 0; k < CTN_MAX_ROWS; ++k) lam[k] = lambda[6 * s + k];
    ctn_block_residual(&b, ctn_load_vel(vel, defs[s].a), ctn_load_vel(vel, defs[s].b), lam, rs);
    ctn_kinv_mul(b.kinv, n, rs, zs);
    for (k = 0; k < CTN_MAX_ROWS; ++k) {
        float zk = k < n ? zs[k] : 0.0f;
        r[6 * s + k] = rs[k];
        z[6 * s + k] = zk;
        p[6 * s + k] = zk;
    }
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
    ctn_vel ui;
    ui.v = ctn_v3_zero();
    ui.w = ctn_v3_zero();
    ui.inv_mass = 0.0f;
    ui.pad = 0.0f;
    if (adj_offsets[i] != adj_offsets[i + 1])
        ctn_gather_body(i, adj_offsets, adj, blocks, p, vel[i].inv_mass, inertia[i].inv_inertia, &ui.v, &ui.w);
    u[i] = ui;
}

/* (A p)_s = J_s u + S_s p_s: the matrix-free operator J M^-1 J^T + S. */
__kernel void ctn_k_cg_apply(int m, __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                             __global const ctn_vel *u, __global const float *p, __global float *ap) {
    int s = (int)get_global_id(0);
    if (s >= m) return;
    ctn_block b = blocks[s];
    float jv[CTN_MAX_ROWS];
    int k, n = ctn_block_rows(&b);
    ctn_block_velocity(&b, ctn_load_vel(u, defs[s].a), ctn_load_vel(u, defs[s].b), jv);
    for (k = 0; k < CTN_MAX_ROWS; ++k) ap[6 * s + k] = k < n ? jv[k] + b.soft[k] * p[6 * s + k] : 0.0f;
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
    float alpha = sc[CTN_CG_ALPHA];
    float rs[CTN_MAX_ROWS], zs[CTN_MAX_ROWS];
    int k, n = blocks[s].n_lin + blocks[s].n_ang;
    for (k = 0; k < CTN_MAX_ROWS; ++k) {
        lambda[6 * s + k] += alpha * p[6 * s + k];
        rs[k] = r[6 * s + k] - alpha * ap[6 * s + k];
        r[6 * s + k] = rs[k];
    }
    float kinv[CTN_KINV_SIZE];
    for (k = 0; k < CTN_KINV_SIZE; ++k) kinv[k] = blocks[s].kinv[k];
    ctn_kinv_mul(kinv, n, rs, zs);
    for (k = 0; k < CTN_MAX_ROWS; ++k) z[6 * s + k] = k < n ? zs[k] : 0.0f;
}

/* v_i += alpha u_i: velocities follow lambda. */
__kernel void ctn_k_cg_velocity(int n, __global const int *adj_offsets, __global const float *sc, __global const ctn_vel *u,
                                __global ctn_vel *vel) {
    int i = (int)get_global_id(0);
    if (i >= n || sc[CTN_CG_ACTIVE] == 0.0f || adj_offsets[i] == adj_offsets[i + 1]) return;
    float alpha = sc[CTN_CG_ALPHA];
    ctn_vel v = vel[i], ui = u[i];
    v.v = ctn_madd(v.v, ui.v, alpha);
    v.w = ctn_madd(v.w, ui.w, alpha);
    vel[i] = v;
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
    p[k] = z[k] + sc[CTN_CG_BETA] * p[k];
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
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = L / 2; h > 0; h >>= 1) {
        if (l < h) {
            scratch[l] += scratch[l + h];
            scratch[L + l] = fmax(scratch[L + l], scratch[L + l + h]);
            scratch[2 * L + l] = fmax(scratch[2 * L + l], scratch[2 * L + l + h]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
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
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = L / 2; h > 0; h >>= 1) {
        if (l < h) {
            scratch[l] += scratch[l + h];
            scratch[L + l] = fmax(scratch[L + l], scratch[L + l + h]);
            scratch[2 * L + l] = fmax(scratch[2 * L + l], scratch[2 * L + l + h]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) {
        out[0] = scratch[0];
        out[1] = scratch[L];
        out[2] = scratch[2 * L];
    }
}

/* ---- divergence check (issue 7) -------------------------------------------------------------------- */

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
        int finite = isfinite(p.p.x) && isfinite(p.p.y) && isfinite(p.p.z) && isfinite(p.q.w) && isfinite(p.q.x) && isfinite(p.q.y) &&
                     isfinite(p.q.z) && isfinite(v.v.x) && isfinite(v.v.y) && isfinite(v.v.z) && isfinite(v.w.x) && isfinite(v.w.y) &&
                     isfinite(v.w.z);
        float s = fmax(ctn_length(v.v), ctn_length(v.w));
        if (!finite || !(s <= limit)) bad = min(bad, i);
        if (finite && isfinite(s)) top = fmax(top, s);
    }
    scratch[l] = as_int(top);
    scratch[L + l] = bad;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = L / 2; h > 0; h >>= 1) {
        if (l < h) {
            scratch[l] = max(scratch[l], scratch[l + h]); /* non-negative floats order like their int bits */
            scratch[L + l] = min(scratch[L + l], scratch[L + l + h]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
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
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = L / 2; h > 0; h >>= 1) {
        if (l < h) {
            scratch[l] = max(scratch[l], scratch[l + h]);
            scratch[L + l] = min(scratch[L + l], scratch[L + l + h]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) {
        out[at] = scratch[0];
        out[at + 1] = scratch[L];
    }
}
