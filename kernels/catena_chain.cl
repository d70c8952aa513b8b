/* The exact solver for chains (host/opencl/opencl_direct.c), in double precision (inside the
 * cl_khr_fp64 block of catena.cl). Part of the program kernels/catena.cl (included there, in order). */

/* ---- Exact solver for chains of joints (host/opencl/opencl_direct.c) --------------------------------
 * The joint-space system of host/solve/direct_chain.c (block tridiagonal along each path, positions in
 * the CPU's order, CTN_CH_* records), eliminated by the same node steps of ctn_direct.h: the sequence is
 * cut into segments by separator positions sep[1..P-1]; per segment one work-item eliminates its nodes
 * towards one end with a spike to the separator behind it (Polizzi and Sameh 2006), the separators'
 * small block-tridiagonal system is solved by one work-item, and the segments substitute back in
 * parallel. Launches per solve: assemble (per position), factor + forward (per segment), separators
 * (one item), backward + impulses (per segment), velocities (per body; the last solve of a substep or of a
 * Newton step runs them with the integration, ctn_k_chain_velocity_integrate, _project). The segment
 * walk is the CPU's (segment_walk, factor_segment, forward_segment, backward_segment, factor_separators,
 * solve_separators of host/solve/direct_chain.c), so for the same segment count both backends round
 * alike. The rows of a joint with finite bounds this substep (ctn_dd_cut_mask) are cut as on the CPU:
 * identity pivot row and column, no couplings, r = 0, no impulse (ctn_dd_chain_cut); the joint's other rows
 * stay, and the hybrid's outer Gauss-Seidel (ctn_k_hybrid_gs, below) solves the cut rows. Every kernel
 * returns at once when *active is 0 (a finished projection's Newton step). Included by
 * catena.cl inside its cl_khr_fp64 block. */
#include "ctn_direct.h"

/* Mass of body `body` as seen by the solver: zero for the world and for non-dynamic bodies. */
CTN_FN void ctn_d_mass(int body, __global const ctn_inertia *inertia, double *im, ctn_sym3 *I) {
    *im = 0.0;
    *I = ctn_sym3_zero();
    if (body < 0) return;
    float m = inertia[body].inv_mass;
    if (!(m > 0.0f)) return;
    *im = (double)m;
    *I = inertia[body].inv_inertia;
}

#define CTN_CH(pos, p, f) ((pos)[CTN_CH_INTS * (p) + (f)])

/* K_p, C_{p-1} through the body p shares with its predecessor (ctn_dd_chain_assemble, as assemble_position),
 * and r_p (rhs_position), from position p's block blk and, when p > 0 shares a body with p - 1 and is not
 * cut out whole, the predecessor's block bq (else bq is not read). A packed position's K_p (CTN_CH_PACKED)
 * is left to the factor walk, which forms it where it factors it (ctn_ch_pivot). */
CTN_FN void ctn_ch_assemble_position(int p, __global const int *pos, __global const ctn_joint_def *defs, const ctn_block *blk,
                                     const ctn_block *bq, __global const ctn_vel *vel, __global const ctn_inertia *inertia,
                                     __global const float *lambda, int ls, __global double *K, __global double *C, __global double *y) {
    int slot = CTN_CH(pos, p, CTN_CH_SLOT), n = CTN_CH(pos, p, CTN_CH_N), dyn = CTN_CH(pos, p, CTN_CH_DYN);
    int packed = dyn & CTN_CH_PACKED;
    ctn_joint_def d = defs[slot];
    __global double *yp = y + CTN_CH(pos, p, CTN_CH_V);
    int cut = ctn_dd_cut_mask(blk), cut_prev = 0, full = ctn_dd_cut_full(cut, n);
    __global double *Kp = K + CTN_CH(pos, p, CTN_CH_K);
    __global double *Cp = p > 0 ? C + CTN_CH(pos, p - 1, CTN_CH_C) : 0;
    int prev = !full && p > 0 && CTN_CH(pos, p - 1, CTN_CH_SHARED) >= 0 ? p - 1 : -1;
    if (prev >= 0) { /* a predecessor cut whole couples to nothing */
        cut_prev = ctn_dd_cut_mask(bq);
        if (ctn_dd_cut_full(cut_prev, CTN_CH(pos, prev, CTN_CH_N))) prev = -1;
    }
    if (p > 0 && prev < 0) /* no coupling (else ctn_dd_chain_coupling_ax writes it) */
        for (int e = CTN_CH(pos, p - 1, CTN_CH_C); e < CTN_CH(pos, p, CTN_CH_C); ++e) C[e] = 0.0;
    if (full) { /* cut out whole for this substep: identity pivot, no coupling, r = 0 */
        for (int e = 0; e < n * n && !packed; ++e) Kp[e] = 0.0;
        for (int r = 0; r < n; ++r) yp[r] = 0.0;
        for (int r = 0; r < n && !packed; ++r) Kp[r * n + r] = 1.0;
        return;
    }
    double ima = 0.0, imb = 0.0;
    ctn_sym3 Ia = ctn_sym3_zero(), Ib = ctn_sym3_zero();
    if (dyn & CTN_CH_DYN_A) ima = inertia[d.a].inv_mass, Ia = inertia[d.a].inv_inertia;
    if (dyn & CTN_CH_DYN_B) imb = inertia[d.b].inv_mass, Ib = inertia[d.b].inv_inertia;
    int axes = ctn_dd_rows_axes(blk);
    double J[36], MJ[36], Jp[36];
    if (!packed) ctn_dd_chain_pivot_ax(blk, axes, n, dyn, ima, Ia, imb, Ib, J, MJ, Kp);
    if (prev >= 0) {
        int sides = CTN_CH(pos, prev, CTN_CH_SIDE);
        ctn_dd_chain_coupling_ax(blk, axes, n, dyn, ima, Ia, imb, Ib, bq, ctn_dd_rows_axes(bq), CTN_CH(pos, prev, CTN_CH_N), sides & 1,
                                 (sides >> 1) & 1, J, MJ, Jp, Cp);
    }
    if (cut | cut_prev) { /* the bounded rows out of the position (assemble_position) */
        if (!packed) ctn_dd_chain_cut_pivot(Kp, n, cut);
        ctn_dd_chain_cut_coupling(n, cut, Cp, p > 0 ? CTN_CH(pos, p - 1, CTN_CH_N) : 0, cut_prev);
    }
    ctn_dd_chain_rhs(blk, ctn_load_vel(vel, d.a), ctn_load_vel(vel, d.b), lambda + ls * slot, yp);
    ctn_dd_zero_cut(cut, n, yp);
}

/* Whether position p reads its predecessor's block: it shares a body with it and is not cut out whole. */
CTN_FN int ctn_ch_reads_prev(__global const int *pos, int p, const ctn_block *blk) {
    return p > 0 && CTN_CH(pos, p - 1, CTN_CH_SHARED) >= 0 && !ctn_dd_cut_full(ctn_dd_cut_mask(blk), CTN_CH(pos, p, CTN_CH_N));
}

/* Position p of the system from the rows in blocks; with rhs_only r_p alone (a re-solve of the hybrid with
 * this substep's factor), for the change since vel_ref and lambda_ref, what the last solve left ((R) of
 * kernels/ctn_direct_rhs.h), or with CTN_DD_RESOLVE_FULL r_p itself (RATTLE's chord iterations). */
__kernel void ctn_k_chain_assemble(int m, __global const int *pos, __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                                   __global const ctn_vel *vel, __global const ctn_inertia *inertia, __global const float *lambda,
                                   __global double *K, __global double *C, __global double *y, __global const int *active, int rhs_only,
                                   __global const ctn_vel *vel_ref, __global const float *lambda_ref, int ls) {
    int p = (int)get_global_id(0);
    if (p >= m || !active[0]) return;
    int slot = CTN_CH(pos, p, CTN_CH_SLOT), n = CTN_CH(pos, p, CTN_CH_N);
    ctn_block blk = blocks[slot], bq;
    if (rhs_only) {
        __global double *yp = y + CTN_CH(pos, p, CTN_CH_V);
        int cut = ctn_dd_cut_mask(&blk);
        if (ctn_dd_cut_full(cut, n)) {
            for (int r = 0; r < n; ++r) yp[r] = 0.0;
        } else if (rhs_only == CTN_DD_RESOLVE_FULL) {
            ctn_joint_def d = defs[slot];
            ctn_dd_chain_rhs(&blk, ctn_load_vel(vel, d.a), ctn_load_vel(vel, d.b), lambda + ls * slot, yp);
            ctn_dd_zero_cut(cut, n, yp);
        } else {
            ctn_joint_def d = defs[slot];
            double r[CTN_MAX_ROWS];
            ctn_dd_chain_change(&blk, ctn_load_vel(vel, d.a), ctn_load_vel(vel, d.b), ctn_load_vel(vel_ref, d.a), ctn_load_vel(vel_ref, d.b),
                                lambda + ls * slot, lambda_ref + ls * slot, r);
            for (int k = 0; k < n; ++k) yp[k] = r[k];
            ctn_dd_zero_cut(cut, n, yp);
        }
        return;
    }
    if (ctn_ch_reads_prev(pos, p, &blk)) bq = blocks[CTN_CH(pos, p - 1, CTN_CH_SLOT)];
    ctn_ch_assemble_position(p, pos, defs, &blk, &bq, vel, inertia, lambda, ls, K, C, y);
}

/* A Newton step of the projection on a chain whose every joint slot is a position: the rows of position p
 * (ctn_prepare_block, ctn_project_block: ctn_k_project_prepare's) into blocks and err, its predecessor's
 * built again in private (the same functions on the same data: the same bits) instead of read, then the
 * system's position p; the work-group's largest error joined into state[CTN_PS_WORST] (as
 * ctn_k_project_prepare). The decision waits for ctn_k_chain_factor; this runs while the record before it
 * is active (the assembly of a step the decision stops is never read). residual: first the last substep's
 * residual of the slot (ctn_k_project_prepare's). Local size a power of two; every work-item reaches the fold. */
__kernel void ctn_k_chain_project_assemble(int m, __global const int *pos, __global const ctn_joint_def *defs, __global ctn_block *blocks,
                                           __global const ctn_vel *vel, __global const ctn_inertia *inertia, __global const float *lambda,
                                           __global double *K, __global double *C, __global double *y, __global int *state,
                                           __global const ctn_pose *pose, __global const float *split, ctn_step_params prm,
                                           __global float *err, __local float *scratch, int residual, __global const ctn_vel *real_vel,
                                           __global const float *real_lambda, __global float *r2, int ls) {
    int p = (int)get_global_id(0), l = (int)get_local_id(0);
    float e = 0.0f;
    if (p < m && (state[CTN_PS_ACTIVE] || residual)) {
        int slot = CTN_CH(pos, p, CTN_CH_SLOT);
        if (residual) r2[slot] = ctn_direct_residual_slot(slot, defs, blocks, real_vel, real_lambda, ls);
        ctn_block blk, bq;
        ctn_prepare_block(slot, defs, pose, vel, inertia, split, prm, &blk);
        e = ctn_project_block(defs[slot].compliance, &blk, prm.h, 0);
        blocks[slot] = blk;
        err[slot] = e;
        if (ctn_ch_reads_prev(pos, p, &blk)) {
            int q = CTN_CH(pos, p - 1, CTN_CH_SLOT);
            ctn_prepare_block(q, defs, pose, vel, inertia, split, prm, &bq);
            ctn_project_block(defs[q].compliance, &bq, prm.h, 0);
        }
        ctn_ch_assemble_position(p, pos, defs, &blk, &bq, vel, inertia, lambda, ls, K, C, y);
    }
    scratch[l] = e;
    ctn_group_fold_fmax(scratch);
    if (l == 0 && scratch[0] > 0.0f) atomic_max(state + CTN_PS_WORST, as_int(scratch[0]));
}

/* Nodes first..last of segment k in steps of dir, the spike separator a behind first and the separator
 * `end` after last (-1: none), and where the separators' accumulators sit in the segment record. */
typedef struct ctn_ch_walk {
    int first, last, dir, a, end, d_end, y_end;
} ctn_ch_walk;

CTN_FN ctn_ch_walk ctn_ch_segment(int k, int P, __global const int *sep) {
    ctn_ch_walk s;
    int lo = sep[k] + 1, hi = sep[k + 1] - 1;
    s.dir = k == P - 1 && P > 1 ? -1 : 1;
    s.first = s.dir > 0 ? lo : hi, s.last = s.dir > 0 ? hi : lo;
    s.a = s.dir > 0 && k > 0 ? sep[k] : -1;
    s.end = s.dir > 0 ? (k < P - 1 ? sep[k + 1] : -1) : sep[k];
    s.d_end = s.dir > 0 ? CTN_CS_D_BOT : CTN_CS_D_TOP, s.y_end = s.dir > 0 ? CTN_CS_Y_BOT : CTN_CS_Y_TOP;
    return s;
}

/* Rows of the node after p in the walk (0: none). */
CTN_FN int ctn_ch_next_rows(__global const int *pos, ctn_ch_walk s, int p) {
    int q = p + s.dir;
    return p != s.last || q == s.end ? CTN_CH(pos, q, CTN_CH_N) : 0;
}

/* The coupling A_{p,p+dir} for CTN_DD_E: pointer, ld and transpose flag (coupling()). */
CTN_FN __global double *ctn_ch_coupling(__global const int *pos, __global double *C, int p, int dir, int *ld, int *tr) {
    if (dir > 0) {
        *ld = CTN_CH(pos, p + 1, CTN_CH_N), *tr = 0;
        return C + CTN_CH(pos, p, CTN_CH_C);
    }
    *ld = CTN_CH(pos, p, CTN_CH_N), *tr = 1;
    return C + CTN_CH(pos, p - 1, CTN_CH_C);
}

/* K_p as the node steps take it (full n x n): in place, or for a packed position (CTN_CH_PACKED) formed here
 * into the segment's scratch `full`, with the operations of ctn_ch_assemble_position on the same block and
 * bodies (the assembly launch stores no pivot for it), so the same bits. */
CTN_FN __global double *ctn_ch_pivot(__global const int *pos, int p, __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                                     __global const ctn_inertia *inertia, __global double *K, __global double *full) {
    int dyn = CTN_CH(pos, p, CTN_CH_DYN);
    if (!(dyn & CTN_CH_PACKED)) return K + CTN_CH(pos, p, CTN_CH_K);
    int slot = CTN_CH(pos, p, CTN_CH_SLOT);
    ctn_block blk = blocks[slot];
    int cut = ctn_dd_cut_mask(&blk);
    if (ctn_dd_cut_full(cut, 3)) { /* cut out whole: identity */
        for (int e = 0; e < 9; ++e) full[e] = e % 4 == 0 ? 1.0 : 0.0;
        return full;
    }
    ctn_joint_def d = defs[slot];
    double ima = 0.0, imb = 0.0;
    ctn_sym3 Ia = ctn_sym3_zero(), Ib = ctn_sym3_zero();
    if (dyn & CTN_CH_DYN_A) ima = inertia[d.a].inv_mass, Ia = inertia[d.a].inv_inertia;
    if (dyn & CTN_CH_DYN_B) imb = inertia[d.b].inv_mass, Ib = inertia[d.b].inv_inertia;
    double J[36], MJ[36];
    ctn_dd_chain_pivot_ax(&blk, ctn_dd_rows_axes(&blk), 3, dyn, ima, Ia, imb, Ib, J, MJ, full);
    if (cut) ctn_dd_chain_cut_pivot(full, 3, cut);
    return full;
}

/* P^-1 of node p as the forward step takes it: in place, or a packed one unpacked into `full`. */
CTN_FN __global double *ctn_ch_inverse(__global const int *pos, int p, __global double *K, __global double *full) {
    __global double *Kp = K + CTN_CH(pos, p, CTN_CH_K);
    if (!(CTN_CH(pos, p, CTN_CH_DYN) & CTN_CH_PACKED)) return Kp;
    ctn_dd_k3_unpack_g(Kp, full);
    return full;
}

/* factor_segment, then forward_segment, of segment k (record g); with rhs_only the forward substitution
 * alone, through the factor and spikes this substep's first solve left (record g keeps its pivot updates).
 * The forward loop reads each P^-1 back from K after the whole segment's factor loop: K stays double for
 * every layout (a float P^-1 would change the velocity solve's bits, where the CPU's fused walk does not read it).
 * A packed pivot (CTN_CH_PACKED) is formed in the record's scratch just before the node step that updates it
 * (node p's in one, the next node's in the other: they swap as the walk moves on), and its inverse is stored
 * packed after p's own step; the steps read and write the same values as on a full K. */
CTN_FN void ctn_ch_factor_forward(int k, int P, __global const int *pos, __global const int *sep, __global const ctn_joint_def *defs,
                                  __global const ctn_block *blocks, __global const ctn_inertia *inertia, __global double *K,
                                  __global double *C, __global double *F, __global double *y, __global double *g, int rhs_only) {
    ctn_ch_walk s = ctn_ch_segment(k, P, sep);
    for (int e = rhs_only ? CTN_CS_Y_TOP : 0; e < CTN_CS_DOUBLES; ++e) g[e] = 0.0;
    int na = s.a >= 0 ? CTN_CH(pos, s.a, CTN_CH_N) : 0, ld = 0, tr = 0;
    __global double *k_cur = g + CTN_CS_K_CUR, *k_next = g + CTN_CS_K_NEXT;
    if (na && !rhs_only) { /* F_first = A_{first,a} = C_a^T */
        int n = CTN_CH(pos, s.first, CTN_CH_N);
        __global const double *Ca = C + CTN_CH(pos, s.a, CTN_CH_C);
        __global double *Ff = F + 6 * CTN_CH(pos, s.first, CTN_CH_V);
        for (int r = 0; r < n; ++r)
            for (int col = 0; col < na; ++col) Ff[r * na + col] = Ca[col * n + r];
    }
    __global double *Pp = rhs_only ? 0 : ctn_ch_pivot(pos, s.first, defs, blocks, inertia, K, k_cur);
    for (int p = s.first; !rhs_only; p += s.dir) {
        int q = p + s.dir, inside = p != s.last, nq = ctn_ch_next_rows(pos, s, p);
        __global double *E = nq ? ctn_ch_coupling(pos, C, p, s.dir, &ld, &tr) : 0;
        __global double *Pq = inside ? ctn_ch_pivot(pos, q, defs, blocks, inertia, K, k_next) : g + s.d_end;
        __global double *Fq = inside ? (na ? F + 6 * CTN_CH(pos, q, CTN_CH_V) : 0) : g + CTN_CS_G;
        ctn_dd_chain_factor_node(Pp, CTN_CH(pos, p, CTN_CH_N), E, ld, tr, nq, Pq, na ? F + 6 * CTN_CH(pos, p, CTN_CH_V) : 0, na, Fq,
                                 g + CTN_CS_D_TOP);
        if (Pp == k_cur) ctn_dd_k3_pack_g(k_cur, K + CTN_CH(pos, p, CTN_CH_K));
        if (!inside) break;
        if (Pq == k_next) k_next = k_cur, k_cur = Pq;
        Pp = Pq;
    }
    for (int p = s.first;; p += s.dir) {
        int q = p + s.dir, inside = p != s.last, nq = ctn_ch_next_rows(pos, s, p);
        __global const double *E = nq ? ctn_ch_coupling(pos, C, p, s.dir, &ld, &tr) : 0;
        __global double *yp = y + CTN_CH(pos, p, CTN_CH_V);
        ctn_dd_chain_forward_node(ctn_ch_inverse(pos, p, K, k_cur), CTN_CH(pos, p, CTN_CH_N), yp, yp, E, ld, tr, nq,
                                  inside ? y + CTN_CH(pos, q, CTN_CH_V) : g + s.y_end, na ? F + 6 * CTN_CH(pos, p, CTN_CH_V) : 0, na,
                                  g + CTN_CS_Y_TOP);
        if (!inside) break;
    }
}

/* decide: the projection's Newton record `active` awaits its decision (its rows were just built): each
 * work-item takes it, item 0 writes it into `decided`, which the later kernels read. */
__kernel void ctn_k_chain_factor(int P, __global const int *pos, __global const int *sep, __global const ctn_joint_def *defs,
                                 __global const ctn_block *blocks, __global const ctn_inertia *inertia, __global double *K, __global double *C,
                                 __global double *F, __global double *y, __global double *seg, __global const int *active, int rhs_only,
                                 int decide, __global int *decided) {
    int k = (int)get_global_id(0);
    if (decide) {
        int st[CTN_PS_INTS];
        ctn_project_decided(active, st);
        if (k == 0) ctn_project_store(st, decided);
        if (!st[CTN_PS_ACTIVE]) return;
    } else if (!active[0]) {
        return;
    }
    if (k >= P) return;
    ctn_ch_factor_forward(k, P, pos, sep, defs, blocks, inertia, K, C, F, y, seg + CTN_CS_DOUBLES * k, rhs_only);
}

/* The separators' block-tridiagonal system (couplings A_{j+1,j} = G of segment j), factored and solved
 * by one work-item (factor_separators, solve_separators); with rhs_only solved through the factor of this
 * substep's first solve. */
__kernel void ctn_k_chain_separators(int P, __global const int *pos, __global const int *sep, __global double *K, __global double *y,
                                     __global double *seg, __global const int *active, int rhs_only) {
    if (get_global_id(0) != 0 || !active[0]) return;
    for (int j = 1; j < P; ++j) {
        int p = sep[j], n = CTN_CH(pos, p, CTN_CH_N);
        __global double *S = K + CTN_CH(pos, p, CTN_CH_K);
        __global const double *lo = seg + CTN_CS_DOUBLES * (j - 1), *hi = seg + CTN_CS_DOUBLES * j;
        for (int e = 0; e < n * n && !rhs_only; ++e) S[e] += lo[CTN_CS_D_BOT + e] + hi[CTN_CS_D_TOP + e];
        for (int r = 0; r < n; ++r) y[CTN_CH(pos, p, CTN_CH_V) + r] += lo[CTN_CS_Y_BOT + r] + hi[CTN_CS_Y_TOP + r];
    }
    for (int j = 1; j < P && !rhs_only; ++j) {
        int p = sep[j], n = CTN_CH(pos, p, CTN_CH_N), nq = j + 1 < P ? CTN_CH(pos, sep[j + 1], CTN_CH_N) : 0;
        ctn_dd_chain_factor_node(K + CTN_CH(pos, p, CTN_CH_K), n, seg + CTN_CS_DOUBLES * j + CTN_CS_G, n, 1, nq,
                                 nq ? K + CTN_CH(pos, sep[j + 1], CTN_CH_K) : 0, 0, 0, 0, 0);
    }
    for (int j = 1; j < P; ++j) {
        int p = sep[j], n = CTN_CH(pos, p, CTN_CH_N), nq = j + 1 < P ? CTN_CH(pos, sep[j + 1], CTN_CH_N) : 0;
        __global double *yp = y + CTN_CH(pos, p, CTN_CH_V);
        ctn_dd_chain_forward_node(K + CTN_CH(pos, p, CTN_CH_K), n, yp, yp, seg + CTN_CS_DOUBLES * j + CTN_CS_G, n, 1, nq,
                                  nq ? y + CTN_CH(pos, sep[j + 1], CTN_CH_V) : 0, 0, 0, 0);
    }
    for (int j = P - 1; j >= 1; --j) {
        int p = sep[j], n = CTN_CH(pos, p, CTN_CH_N), nq = j + 1 < P ? CTN_CH(pos, sep[j + 1], CTN_CH_N) : 0;
        ctn_dd_chain_backward_node(n, y + CTN_CH(pos, p, CTN_CH_V), seg + CTN_CS_DOUBLES * j + CTN_CS_G, n, 1,
                                   nq, nq ? y + CTN_CH(pos, sep[j + 1], CTN_CH_V) : 0, 0, 0, 0);
    }
}

/* backward_segment of segment k, then lambda += dl over the positions it assembled (its nodes and the
 * separator after it). K is not read (the substitution goes through T_E in C and T_F in F). */
__kernel void ctn_k_chain_back(int P, int m, __global const int *pos, __global const int *sep, __global const double *K,
                               __global double *C, __global const double *F, __global double *y, __global float *lambda,
                               __global const ctn_block *blocks, __global const int *active, int ls) {
    int k = (int)get_global_id(0);
    if (k >= P || !active[0]) return;
    ctn_ch_walk s = ctn_ch_segment(k, P, sep);
    int na = s.a >= 0 ? CTN_CH(pos, s.a, CTN_CH_N) : 0, ld = 0, tr = 0;
    (void)K;
    for (int p = s.last;; p -= s.dir) {
        int q = p + s.dir, nq = ctn_ch_next_rows(pos, s, p);
        __global const double *E = nq ? ctn_ch_coupling(pos, C, p, s.dir, &ld, &tr) : 0;
        ctn_dd_chain_backward_node(CTN_CH(pos, p, CTN_CH_N), y + CTN_CH(pos, p, CTN_CH_V), E, ld, tr, nq,
                                   nq ? y + CTN_CH(pos, q, CTN_CH_V) : 0, na ? F + 6 * CTN_CH(pos, p, CTN_CH_V) : 0, na,
                                   na ? y + CTN_CH(pos, s.a, CTN_CH_V) : 0);
        if (p == s.first) break;
    }
    int end = sep[k + 1] < m ? sep[k + 1] : m - 1;
    for (int p = sep[k] + 1; p <= end; ++p) {
        int slot = CTN_CH(pos, p, CTN_CH_SLOT);
        ctn_block blk = blocks[slot];
        int cut = ctn_dd_cut_mask(&blk); /* cut rows: the outer Gauss-Seidel's */
        __global const double *x = y + CTN_CH(pos, p, CTN_CH_V);
        for (int r = 0; r < CTN_CH(pos, p, CTN_CH_N); ++r)
            if (!(cut >> r & 1)) lambda[ls * slot + r] = (float)((double)lambda[ls * slot + r] + x[r]);
    }
}

/* v_b += M^-1 J^T dl over the chain joints of body b (apply_body: ctn_dd_block_impulse). */
CTN_FN void ctn_ch_velocity_body(int b, __global const int *adj_offsets, __global const int *adj, __global const int *slot_pos,
                                 __global const int *pos, __global const ctn_block *blocks, __global const double *y,
                                 __global ctn_vel *vel, __global const ctn_inertia *inertia) {
    double dv[6] = {0, 0, 0, 0, 0, 0}, x[6];
    int hit = 0;
    for (int e = adj_offsets[b]; e < adj_offsets[b + 1]; ++e) {
        int slot = adj[e] >> 1, side = adj[e] & 1, p = slot_pos[slot];
        if (p < 0) continue;
        int dyn = CTN_CH(pos, p, CTN_CH_DYN), n = CTN_CH(pos, p, CTN_CH_N);
        if (!(dyn & (side ? CTN_CH_DYN_B : CTN_CH_DYN_A))) continue;
        ctn_block blk = blocks[slot];
        if (ctn_dd_cut_all(&blk)) continue; /* cut whole this substep */
        for (int k = 0; k < n; ++k) x[k] = y[CTN_CH(pos, p, CTN_CH_V) + k];
        ctn_dd_block_impulse(&blk, side, x, inertia[b].inv_mass, inertia[b].inv_inertia, dyn & (side ? CTN_CH_ROT_B : CTN_CH_ROT_A), dv);
        hit = 1;
    }
    if (!hit) return;
    vel[b] = ctn_dd_vel_add(vel[b], dv);
}

__kernel void ctn_k_chain_velocity(int nb, __global const int *adj_offsets, __global const int *adj, __global const int *slot_pos,
                                   __global const int *pos, __global const ctn_block *blocks, __global const double *y,
                                   __global ctn_vel *vel, __global const ctn_inertia *inertia, __global const int *active) {
    int b = (int)get_global_id(0);
    if (b >= nb || !active[0]) return;
    ctn_ch_velocity_body(b, adj_offsets, adj, slot_pos, pos, blocks, y, vel, inertia);
}

/* A substep on a chain: body b's velocity from the solve, then its integration (ctn_k_integrate's, which
 * reads body b's own velocity only): ctn_k_chain_velocity and ctn_k_integrate in one launch. */
__kernel void ctn_k_chain_velocity_integrate(int nb, __global const int *adj_offsets, __global const int *adj,
                                             __global const int *slot_pos, __global const int *pos, __global const ctn_block *blocks,
                                             __global const double *y, __global ctn_vel *vel, __global ctn_inertia *inertia,
                                             __global ctn_pose *pose, __global const ctn_props *props, float h,
                                             __global const ctn_joint_def *defs, __global const float *lambda, float gs_h, int begin,
                                             __global ctn_vel *rest, int ls) {
    int b = (int)get_global_id(0);
    if (b >= nb) return;
    ctn_ch_velocity_body(b, adj_offsets, adj, slot_pos, pos, blocks, y, vel, inertia);
    ctn_integrate_stage_body(b, pose, vel, props, inertia, h, adj_offsets, adj, defs, lambda, ls, gs_h, begin, rest);
}

/* A Newton step of the projection on a chain: body b's velocity from the solve, then its integration
 * (ctn_project_integrate_body), which reads body b's own velocity, pose and inertia only (ctn_k_chain_velocity
 * and ctn_k_project_integrate in one launch); the kept pose back when the record says undo. */
__kernel void ctn_k_chain_velocity_project(int nb, __global const int *adj_offsets, __global const int *adj,
                                           __global const int *slot_pos, __global const int *pos, __global const ctn_block *blocks,
                                           __global const double *y, __global ctn_vel *vel, __global ctn_inertia *inertia,
                                           __global const int *state, __global ctn_pose *pose, __global const ctn_props *props, float h,
                                           __global ctn_pose *kept, __global const ctn_joint_def *defs,
                                           __global const float *lambda, float gs_h, int ls) {
    int b = (int)get_global_id(0);
    if (b >= nb) return;
    if (state[CTN_PS_UNDO]) {
        pose[b] = kept[b];
        return;
    }
    if (!state[CTN_PS_ACTIVE]) return;
    ctn_ch_velocity_body(b, adj_offsets, adj, slot_pos, pos, blocks, y, vel, inertia);
    ctn_project_integrate_body(b, pose, vel, props, inertia, h, kept, adj_offsets, adj, defs, lambda, ls, gs_h);
}

/* The outer Gauss-Seidel of the hybrid (host/opencl/opencl_direct.c; host/solve/solver_direct.c on the CPU):
 * slots [begin, end) of one colour, one work-item each, or with `serial` the overflow group on one work-item
 * in slot order. A slot is swept when some of its rows are outside the exact solve this substep: hyb 1 (a
 * loop closer, contact or joint the elimination does not take: the whole block, ctn_gs_slot, the
 * Gauss-Seidel solver's own block step) or hyb 2 (a joint of the exact solve) whose block has rows with
 * finite bounds (limits, motors, ropes, swing cones: those rows alone, ctn_gs_slot_rows, unless every row
 * is bounded). */
CTN_FN int ctn_hybrid_outside(__global const int *hyb, __global const ctn_block *blocks, int s) {
    if (hyb[s] == 1) return 1;
    if (hyb[s] != 2) return 0;
    ctn_block b = blocks[s];
    return ctn_dd_block_bounded(&b);
}

CTN_FN void ctn_hybrid_gs_slot(__global const int *hyb, __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                               __global float *lambda, int ls, __global ctn_vel *vel, __global const ctn_inertia *inertia, int s) {
    ctn_block b = blocks[s];
    ctn_gs_slot_rows(s, ctn_dd_gs_rows(&b, hyb[s] == 1), defs, blocks, lambda, ls, vel, inertia);
}

__kernel void ctn_k_hybrid_gs(int begin, int end, int serial, __global const int *hyb, __global const ctn_joint_def *defs,
                              __global const ctn_block *blocks, __global float *lambda, __global ctn_vel *vel,
                              __global const ctn_inertia *inertia, __global const int *active, int ls) {
    int g = (int)get_global_id(0);
    if (!active[0]) return;
    if (serial) {
        if (g == 0)
            for (int s = begin; s < end; ++s)
                if (ctn_hybrid_outside(hyb, blocks, s)) ctn_hybrid_gs_slot(hyb, defs, blocks, lambda, ls, vel, inertia, s);
    } else if (begin + g < end && ctn_hybrid_outside(hyb, blocks, begin + g)) {
        ctn_hybrid_gs_slot(hyb, defs, blocks, lambda, ls, vel, inertia, begin + g);
    }
}
