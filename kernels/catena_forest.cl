/* The exact solver for forests (host/opencl/opencl_forest.c), level by level in double precision (inside the cl_khr_fp64 block of catena.cl). Part of the program kernels/catena.cl (included there, in order). */

/* ---- Exact solver for forests of joints (host/opencl/opencl_forest.c) -----------------------------------
 * The KKT system [M J^T; J -S] eliminated over the elimination tree of host/solve/solver_direct.c (body nodes,
 * joint nodes, supernodes for rows attached to grounded bodies; node records CTN_TN_* of ctn_direct.h),
 * one launch per level of the tree, children before parents (factor + forward substitution), then one
 * launch per level from the roots (back substitution + update). A launch covers the nodes
 * lv_nodes[begin..end); with `serial` one work-item runs them in order (a band of narrow levels, so a
 * long path is one launch, not one per node). Every node reads only its children's (or parent's)
 * finished results and writes only its own: no atomics. Sums run in the CPU's order (children by node
 * index), so the two solvers round alike. The rows of a joint with finite bounds this substep (a limit,
 * motor, rope or swing row: ctn_dd_cut_mask) are cut as on the CPU (host/solve/direct_forest.c): pivot -1,
 * r = 0, zero Jacobian rows in every coupling (ctn_dd_jrow_cut), no impulse; the joint's other rows stay
 * in the elimination. A joint whose rows are all cut couples to nothing (the node below it is a root for
 * the substep). The outer Gauss-Seidel of the hybrid (ctn_k_hybrid_gs) solves the cut rows. A substitution
 * with rhs_only = 2 and no update (apply = 0) gives a column of the loop closers' Schur complement
 * (kernels/catena_schur.cl): right-hand side J_k^T on the body nodes of loop-closing row k, zero elsewhere. */
#include "ctn_direct_schur.h"

/* Row pivot of (2): -(S + floor (J M^-1 J^T)_kk of the row's own bodies). */
CTN_FN double ctn_forest_row_pivot(const ctn_block *b, int k, ctn_joint_def d, __global const ctn_inertia *inertia) {
    double acc = 0.0, j[6], im;
    ctn_sym3 I;
    for (int side = 0; side < 2; ++side) {
        ctn_d_mass(side ? d.b : d.a, inertia, &im, &I);
        if (!(im > 0.0)) continue;
        ctn_dd_jrow(b, k, side, j);
        acc += ctn_dd_row_mass(im, I, j);
    }
    return -((double)b->soft[k] + CTN_DD_FLOOR * acc);
}

/* r = target - J v - S lambda of the rows of one joint (double). */
CTN_FN void ctn_forest_residual(const ctn_block *b, int slot, ctn_joint_def d, __global const ctn_vel *vel,
                              __global const float *lambda, int ls, double *r) {
    ctn_vel va = ctn_load_vel(vel, d.a), vb = ctn_load_vel(vel, d.b);
    double Va[6] = {va.v.x, va.v.y, va.v.z, va.w.x, va.w.y, va.w.z};
    double Vb[6] = {vb.v.x, vb.v.y, vb.v.z, vb.w.x, vb.w.y, vb.w.z};
    int n = ctn_block_rows(b);
    for (int k = 0; k < n; ++k) {
        double ja[6], jb[6], jv = 0.0;
        ctn_dd_jrow(b, k, 0, ja);
        ctn_dd_jrow(b, k, 1, jb);
        for (int c = 0; c < 6; ++c) jv += ja[c] * Va[c] + jb[c] * Vb[c];
        r[k] = (double)b->bias[k] - jv - (double)b->soft[k] * lambda[ls * slot + k];
    }
}

/* The right-hand side of one joint's rows: r itself (ctn_forest_residual) in the substep's first solve, its
 * change since vel_ref and lambda_ref (what the last solve left; (R) of kernels/ctn_direct_rhs.h) in a re-solve. */
CTN_FN void ctn_forest_rhs(const ctn_block *b, int slot, ctn_joint_def d, __global const ctn_vel *vel, __global const float *lambda, int ls,
                         __global const ctn_vel *vel_ref, __global const float *lambda_ref, int rhs_only, double *r) {
    if (!rhs_only || rhs_only == CTN_DD_RESOLVE_FULL) { /* RATTLE's chord iterations: r itself */
        ctn_forest_residual(b, slot, d, vel, lambda, ls, r);
        return;
    }
    ctn_dd_row_change(b, ctn_load_vel(vel, d.a), ctn_load_vel(vel, d.b), ctn_load_vel(vel_ref, d.a), ctn_load_vel(vel_ref, d.b),
                      lambda + ls * slot, lambda_ref + ls * slot, r);
}

/* Factor and forward substitution of node i:
 *     D_i = H_ii - sum_c H_ic D_c^-1 H_ci,   u_i = D_i^-1 (b_i - sum_c H_ic u_c)
 * over its children c (already done), stored as D_i^-1 in mat and u_i in u. With rhs_only the forward
 * substitution alone, through the D_i^-1 of this substep's first solve (the hybrid's re-solves: the pivots
 * depend on the rows and masses only, so they are the same bits). rhs_only = 2: the forward substitution of
 * the right-hand side (J_k^T; 0) of the Schur row record srow (ctn_dd_schur_unit), for a column of W. */
CTN_FN void ctn_forest_factor_node(int i, __global const int *node, __global const int *child, __global const int *att,
                                 __global const int *slot_info, __global const ctn_joint_def *defs,
                                 __global const ctn_block *blocks, __global const ctn_vel *vel,
                                 __global const ctn_inertia *inertia, __global const float *lambda, int ls, __global double *mat,
                                 __global double *u, int rhs_only, __global const ctn_vel *vel_ref, __global const float *lambda_ref,
                                 __global const int *srow) {
    __global const int *nd = node + CTN_TN_INTS * i;
    int N = nd[CTN_TN_SIZE], d = nd[CTN_TN_DOF], r, c, k, e;
    /* D_i is assembled, factored and inverted in place in its own block of mat (private memory: O(N)) */
    __global double *D = mat + nd[CTN_TN_MAT];
    double b[CTN_DD_MAX_NODE], J[CTN_MAX_ROWS][6], T[CTN_MAX_ROWS][6];
    ctn_block blk;
    for (r = 0; r < N * N && !rhs_only; ++r) D[r] = 0.0;
    for (r = 0; r < N; ++r) b[r] = 0.0;
    if (rhs_only == 2) { /* a Schur column: J_k^T on the body nodes of row k's joint */
        if (nd[CTN_TN_KIND] == 0) {
            blk = blocks[srow[CTN_SR_SLOT]];
            ctn_dd_schur_unit(&blk, srow, nd[CTN_TN_VEC], b);
        }
    } else if (nd[CTN_TN_KIND] == 1) {
        int slot = nd[CTN_TN_ID];
        blk = blocks[slot];
        int cut = ctn_dd_cut_mask(&blk); /* cut rows (the outer Gauss-Seidel's): -1 pivot, r = 0 */
        for (r = 0; r < N && !rhs_only; ++r) D[r * N + r] = (cut >> r & 1) ? -1.0 : ctn_forest_row_pivot(&blk, r, defs[slot], inertia);
        if (!ctn_dd_cut_full(cut, N)) {
            ctn_forest_rhs(&blk, slot, defs[slot], vel, lambda, ls, vel_ref, lambda_ref, rhs_only, b);
            for (r = 0; r < N; ++r)
                if (cut >> r & 1) b[r] = 0.0;
        }
    } else if (rhs_only) { /* the attached rows' residuals */
        for (e = nd[CTN_TN_ATT]; e < nd[CTN_TN_ATT] + nd[CTN_TN_NATT]; ++e) {
            int slot = att[e];
            int row0 = slot_info[CTN_TS_INTS * slot + CTN_TS_ROW], cut;
            blk = blocks[slot];
            cut = ctn_dd_cut_mask(&blk);
            if (ctn_dd_cut_full(cut, slot_info[CTN_TS_INTS * slot + CTN_TS_ROWS])) continue;
            ctn_forest_rhs(&blk, slot, defs[slot], vel, lambda, ls, vel_ref, lambda_ref, rhs_only, b + row0);
            for (r = 0; r < slot_info[CTN_TS_INTS * slot + CTN_TS_ROWS]; ++r)
                if (cut >> r & 1) b[row0 + r] = 0.0;
        }
    } else {
        int body = nd[CTN_TN_ID];
        float im = inertia[body].inv_mass;
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
            int cut = ctn_dd_cut_mask(&blk);
            if (ctn_dd_cut_full(cut, n)) { /* cut whole: uncoupled rows with pivot -1 and r = 0 */
                for (r = 0; r < n; ++r) D[(row0 + r) * N + row0 + r] = -1.0;
                continue;
            }
            for (r = 0; r < n; ++r) ctn_dd_jrow_cut(&blk, r, slot_info[CTN_TS_INTS * slot + CTN_TS_SIDE], cut, J[r]);
            for (r = 0; r < n; ++r) {
                for (c = 0; c < d; ++c) {
                    D[(row0 + r) * N + c] = J[r][c];
                    D[c * N + row0 + r] = J[r][c];
                }
                D[(row0 + r) * N + row0 + r] = (cut >> r & 1) ? -1.0 : ctn_forest_row_pivot(&blk, r, defs[slot], inertia);
            }
            ctn_forest_residual(&blk, slot, defs[slot], vel, lambda, ls, b + row0);
            for (r = 0; r < n; ++r) /* cut rows: r = 0 */
                if (cut >> r & 1) b[row0 + r] = 0.0;
        }
    }
    for (e = nd[CTN_TN_CHILD]; e < nd[CTN_TN_CHILD] + nd[CTN_TN_NCHILD]; ++e) {
        __global const int *cd = node + CTN_TN_INTS * child[e];
        int slot = cd[CTN_TN_PSLOT], n = slot_info[CTN_TS_INTS * slot + CTN_TS_ROWS];
        int Nc = cd[CTN_TN_SIZE], dc = cd[CTN_TN_DOF];
        __global const double *Dc = mat + cd[CTN_TN_MAT];
        __global const double *uc = u + cd[CTN_TN_VEC];
        blk = blocks[slot];
        int cut = ctn_dd_cut_mask(&blk);
        if (ctn_dd_cut_full(cut, n)) continue; /* coupled through a joint cut whole: a root this substep */
        for (r = 0; r < n; ++r) ctn_dd_jrow_cut(&blk, r, cd[CTN_TN_SIDE], cut, J[r]);
        if (cd[CTN_TN_KIND] == 0) {
            /* body child: rows of pslot in i (at prow) get -J_sc [D_c^-1]_bb J_sc^T and -J_sc u_c */
            int p0 = cd[CTN_TN_PROW];
            for (r = 0; r < n && !rhs_only; ++r)
                for (c = 0; c < dc; ++c) {
                    double acc = 0.0;
                    for (k = 0; k < dc; ++k) acc += J[r][k] * Dc[k * Nc + c];
                    T[r][c] = acc;
                }
            for (r = 0; r < n && !rhs_only; ++r)
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
            for (r = 0; r < Nc && !rhs_only; ++r)
                for (c = 0; c < d; ++c) {
                    double acc = 0.0;
                    for (k = 0; k < Nc; ++k) acc += Dc[r * Nc + k] * J[k][c];
                    T[r][c] = acc;
                }
            for (r = 0; r < d && !rhs_only; ++r)
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
    if (!rhs_only) ctn_dd_node_inverse_g(D, N, d);
    __global double *uo = u + nd[CTN_TN_VEC];
    for (r = 0; r < N; ++r) {
        double acc = 0.0;
        for (c = 0; c < N; ++c) acc += D[r * N + c] * b[c];
        uo[r] = acc;
    }
}

/* Back substitution of node i, x_i = u_i - D_i^-1 H_ip x_p (x_i = u_i at a root), then with apply the update:
 * v += dv on a body node, lambda += dl = -y on joint rows (the node owns its body and rows). */
CTN_FN void ctn_forest_back_node(int i, __global const int *node, __global const int *att, __global const int *slot_info,
                               __global const ctn_block *blocks, __global const double *mat, __global const double *u,
                               __global double *xv, __global ctn_vel *vel, __global float *lambda, int ls, int apply) {
    __global const int *nd = node + CTN_TN_INTS * i;
    int N = nd[CTN_TN_SIZE], p = nd[CTN_TN_PARENT], r, k, e;
    double x[CTN_DD_MAX_NODE], g[CTN_DD_MAX_NODE], J[CTN_MAX_ROWS][6];
    __global const double *ui = u + nd[CTN_TN_VEC];
    ctn_block blk;
    for (r = 0; r < N; ++r) x[r] = ui[r];
    int pcut = 0;
    if (p >= 0) {
        blk = blocks[nd[CTN_TN_PSLOT]];
        pcut = ctn_dd_cut_mask(&blk);
        if (ctn_dd_cut_full(pcut, slot_info[CTN_TS_INTS * nd[CTN_TN_PSLOT] + CTN_TS_ROWS])) p = -1; /* a root this substep */
    }
    if (p >= 0) {
        __global const int *pd = node + CTN_TN_INTS * p;
        __global const double *xp = xv + pd[CTN_TN_VEC];
        __global const double *Di = mat + nd[CTN_TN_MAT];
        int slot = nd[CTN_TN_PSLOT], n = slot_info[CTN_TS_INTS * slot + CTN_TS_ROWS], gn;
        for (r = 0; r < n; ++r) ctn_dd_jrow_cut(&blk, r, nd[CTN_TN_SIDE], pcut, J[r]);
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
    if (!apply) return; /* a Schur column reads x only */
    if (nd[CTN_TN_KIND] == 1) {
        int slot = nd[CTN_TN_ID];
        blk = blocks[slot];
        int cut = ctn_dd_cut_mask(&blk); /* cut rows: their impulses are the outer Gauss-Seidel's */
        for (r = 0; r < N; ++r)
            if (!(cut >> r & 1)) lambda[ls * slot + r] = (float)((double)lambda[ls * slot + r] - x[r]);
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
        blk = blocks[slot];
        int cut = ctn_dd_cut_mask(&blk);
        for (r = 0; r < n; ++r)
            if (!(cut >> r & 1)) lambda[ls * slot + r] = (float)((double)lambda[ls * slot + r] - x[row0 + r]);
    }
}

/* One level (or, with serial, a band of narrow levels in order) of the factor. */
__kernel void ctn_k_forest_factor(int begin, int end, int serial, __global const int *lv_nodes, __global const int *node,
                                __global const int *child, __global const int *att, __global const int *slot_info,
                                __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                                __global const ctn_vel *vel, __global const ctn_inertia *inertia, __global const float *lambda,
                                __global double *mat, __global double *u, __global const int *active, int rhs_only,
                                __global const ctn_vel *vel_ref, __global const float *lambda_ref, __global const int *schur_rows,
                                int schur_k, int ls) {
    int g = (int)get_global_id(0);
    __global const int *srow = schur_rows + CTN_SR_INTS * schur_k; /* read with rhs_only = 2 only */
    if (!active[0]) return;
    if (serial) {
        if (g == 0)
            for (int k = begin; k < end; ++k)
                ctn_forest_factor_node(lv_nodes[k], node, child, att, slot_info, defs, blocks, vel, inertia, lambda, ls, mat, u, rhs_only,
                                     vel_ref, lambda_ref, srow);
    } else if (begin + g < end) {
        ctn_forest_factor_node(lv_nodes[begin + g], node, child, att, slot_info, defs, blocks, vel, inertia, lambda, ls, mat, u, rhs_only,
                             vel_ref, lambda_ref, srow);
    }
}

/* One level (or a band, walked backwards: parents first) of the back substitution and update. */
__kernel void ctn_k_forest_back(int begin, int end, int serial, __global const int *lv_nodes, __global const int *node,
                              __global const int *att, __global const int *slot_info, __global const ctn_block *blocks,
                              __global const double *mat, __global const double *u, __global double *xv,
                              __global ctn_vel *vel, __global float *lambda, __global const int *active, int apply, int ls) {
    int g = (int)get_global_id(0);
    if (!active[0]) return;
    if (serial) {
        if (g == 0)
            for (int k = end - 1; k >= begin; --k)
                ctn_forest_back_node(lv_nodes[k], node, att, slot_info, blocks, mat, u, xv, vel, lambda, ls, apply);
    } else if (begin + g < end) {
        ctn_forest_back_node(lv_nodes[begin + g], node, att, slot_info, blocks, mat, u, xv, vel, lambda, ls, apply);
    }
}
