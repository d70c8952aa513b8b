/* The exact solver for forests (host/opencl/opencl_tree.c) and its block cyclic reduction of long
 * paths, in double precision (inside the cl_khr_fp64 block of catena.cl). Part of the program kernels/catena.cl (included there, in order). */

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
