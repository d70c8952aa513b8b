/* Double-precision dense math of the exact solver, shared by the host and the OpenCL forest
 * kernels (kernels/catena.cl, ctn_k_forest_*; host/opencl/opencl_forest.c). Valid C11 and OpenCL C; in OpenCL it
 * must be included after `#pragma OPENCL EXTENSION cl_khr_fp64 : enable`. Pointers are private (OpenCL
 * 1.2 has no generic address space) except in the in-place dense inverses *_g, which take CTN_GLOBAL
 * matrices: the kernels keep only O(N) vectors private, and the host solver calls the same functions.
 *
 * The algorithms are those of host/solve/solver_direct.c (its header comment gives the system): Jacobian rows
 * with the lever-arm cross product taken in double, the Cholesky inverse that drops pivots below
 * CTN_DD_PIVOT_TOL of the largest diagonal (exactly redundant rows: dl = 0), and the inverse of a node
 * pivot D = [A, B^T; B, C] through its Schur complement. */
#ifndef CTN_DIRECT_H
#define CTN_DIRECT_H

#include "ctn_types.h"

#define CTN_DD_MAX_ATTACHED 12                    /* joint rows merged into one body node (supernode) */
#define CTN_DD_MAX_NODE (6 + CTN_DD_MAX_ATTACHED) /* rows of the largest node pivot */
#define CTN_DD_PIVOT_TOL 1e-13                    /* relative pivot below which a row is redundant */
#define CTN_DD_FLOOR 1e-10                        /* relative regularisation of every row (DIRECT_FLOOR) */
#ifndef CTN_DD_MAX_DENSE
#define CTN_DD_MAX_DENSE CTN_DD_MAX_NODE /* largest matrix ctn_dd_spd_inverse_g takes (host/solve/solver_direct.c: 48) */
#endif

/* Node record of the elimination tree (host/opencl/opencl_forest.c uploads one per node, CTN_TN_INTS ints). */
#define CTN_TN_KIND 0   /* 0: body node, 1: joint node */
#define CTN_TN_DOF 1    /* body: 3 or 6; joint: 0 */
#define CTN_TN_SIZE 2   /* N: dof + attached rows (body) or rows (joint) */
#define CTN_TN_SIDE 3   /* body: its side in pslot; joint: side of its parent body */
#define CTN_TN_ID 4     /* body id or joint slot */
#define CTN_TN_PARENT 5 /* parent node, -1 for a root */
#define CTN_TN_PSLOT 6  /* slot of the joint coupling the node to its parent (-1: none) */
#define CTN_TN_PROW 7   /* body child of a body: first row of pslot inside the parent */
#define CTN_TN_MAT 8    /* offset of the N x N pivot inverse in the matrix buffer */
#define CTN_TN_VEC 9    /* offset of the N-vectors (u, x) */
#define CTN_TN_CHILD 10 /* first child in the child CSR */
#define CTN_TN_NCHILD 11
#define CTN_TN_ATT 12   /* first attached slot in the attached CSR */
#define CTN_TN_NATT 13
#define CTN_TN_INTS 14
/* Slot record (CTN_TS_INTS ints per joint slot). */
#define CTN_TS_ROW 0  /* attached joint: first row inside its body node */
#define CTN_TS_SIDE 1 /* attached joint: side of the body holding its rows */
#define CTN_TS_ROWS 2 /* rows of the joint */
#define CTN_TS_INTS 3
/* Position record of the joint-space chain path on the device (host/opencl/opencl_direct.c uploads one per
 * position p of host/solve/direct_chain.c's path order, CTN_CH_INTS ints). */
#define CTN_CH_SLOT 0   /* joint slot */
#define CTN_CH_N 1      /* rows */
#define CTN_CH_SHARED 2 /* dynamic body shared with position p + 1, -1 at the end of a path */
#define CTN_CH_SIDE 3   /* side of that body in joint p (bit 0) and in joint p + 1 (bit 1) */
#define CTN_CH_DYN 4    /* CTN_CH_DYN_* bits of the joint's two bodies */
#define CTN_CH_K 5      /* offset of the n x n pivot (K) */
#define CTN_CH_C 6      /* offset of the coupling C_p to p + 1 (n x n_{p+1}) */
#define CTN_CH_V 7      /* offset of the n-vector (y); the spike F_p starts at 6 times it */
#define CTN_CH_INTS 8
#define CTN_CH_DYN_A 1 /* body a is dynamic */
#define CTN_CH_DYN_B 2
#define CTN_CH_ROT_A 4 /* body a rotates (6 DOF) */
#define CTN_CH_ROT_B 8
#define CTN_CH_PACKED 16 /* K_p is kept as its lower triangle by rows (ctn_dd_k3_pack_g: 6 doubles, n = 3, not a separator) */
/* Segment record of the chain path: the separators' pivot and right-hand-side updates and the coupling G
 * of a middle segment (doubles at these offsets, CTN_CS_DOUBLES per segment), and the segment walk's
 * scratch for packed pivots (CTN_CH_PACKED). */
#define CTN_CS_D_TOP 0
#define CTN_CS_D_BOT 36
#define CTN_CS_G 72
#define CTN_CS_Y_TOP 108
#define CTN_CS_Y_BOT 114
#define CTN_CS_K_CUR 120 /* the segment walk's full 3x3 forms of a packed K_p (node p) and of K_q (the next node) */
#define CTN_CS_K_NEXT 129
#define CTN_CS_DOUBLES 138

/* Row k of block b on side 0 (body a) or 1 (body b): linear rows [d, r x d], angular rows [0, t],
 * negated for side b (docs/design.md section 2, step 1), the cross product in double. */
CTN_FN void ctn_dd_jrow(const ctn_block *b, int k, int side, double *out) {
    double sg = side ? -1.0 : 1.0;
    ctn_v3 d = b->dir[k];
    if (k < b->n_lin) {
        ctn_v3 r = side ? b->rb : b->ra;
        out[0] = sg * d.x, out[1] = sg * d.y, out[2] = sg * d.z;
        out[3] = sg * ((double)r.y * d.z - (double)r.z * d.y);
        out[4] = sg * ((double)r.z * d.x - (double)r.x * d.z);
        out[5] = sg * ((double)r.x * d.y - (double)r.y * d.x);
    } else {
        out[0] = out[1] = out[2] = 0.0;
        out[3] = sg * d.x, out[4] = sg * d.y, out[5] = sg * d.z;
    }
}

/* j^T M^-1 j of one body (inverse mass im, world inverse inertia I). */
CTN_FN double ctn_dd_row_mass(double im, ctn_sym3 I, const double *j) {
    double iw0 = I.xx * j[3] + I.xy * j[4] + I.xz * j[5];
    double iw1 = I.xy * j[3] + I.yy * j[4] + I.yz * j[5];
    double iw2 = I.xz * j[3] + I.yz * j[4] + I.zz * j[5];
    return im * (j[0] * j[0] + j[1] * j[1] + j[2] * j[2]) + j[3] * iw0 + j[4] * iw1 + j[5] * iw2;
}

/* Rows of block b that leave the exact solve this substep, bit k for row k: those with finite impulse
 * bounds (a hinge or slider limit, a motor, a swing cone or twist limit, a rope, a contact). Only these rows
 * go to the hybrid's outer projected Gauss-Seidel; the joint's other rows stay in the elimination, where a
 * cut row has an identity (chain) or -1 (forest) pivot, zero couplings and a zero right-hand side, so its
 * dl is 0 (the system of the remaining rows, solved exactly). */
CTN_FN int ctn_dd_cut_mask(const ctn_block *b) {
    int n = b->n_lin + b->n_ang, m = 0;
    for (int k = 0; k < n; ++k)
        if (b->lo[k] > -0.5f * CTN_INF || b->hi[k] < 0.5f * CTN_INF) m |= 1 << k;
    return m;
}

/* Some row of block b is cut this substep (the joint takes part in the outer Gauss-Seidel). */
CTN_FN int ctn_dd_block_bounded(const ctn_block *b) { return ctn_dd_cut_mask(b) != 0; }

/* Every row of an n-row joint is cut (mask from ctn_dd_cut_mask; contacts, ropes, a cone-twist whose rows
 * are all limits): the whole joint leaves, and the elimination skips its couplings altogether. */
CTN_FN int ctn_dd_cut_full(int mask, int n) { return n > 0 && mask == (1 << n) - 1; }
CTN_FN int ctn_dd_cut_all(const ctn_block *b) { return ctn_dd_cut_full(ctn_dd_cut_mask(b), b->n_lin + b->n_ang); }

/* The rows argument of ctn_gs_slot_rows for the hybrid's outer Gauss-Seidel: 0 (the whole block) for a joint
 * outside the exact solve for good (outside = 1: a loop closer, a contact) or with every row cut, else its
 * cut rows. */
CTN_FN int ctn_dd_gs_rows(const ctn_block *b, int outside) {
    int m = ctn_dd_cut_mask(b);
    return outside || ctn_dd_cut_full(m, b->n_lin + b->n_ang) ? 0 : m;
}

/* Row k of the elimination's Jacobian: ctn_dd_jrow, zero for a cut row (bit k of mask), which then couples
 * to nothing. */
CTN_FN void ctn_dd_jrow_cut(const ctn_block *b, int k, int side, int mask, double *out) {
    if (mask >> k & 1) {
        for (int c = 0; c < 6; ++c) out[c] = 0.0;
        return;
    }
    ctn_dd_jrow(b, k, side, out);
}

/* Zero right-hand side of the cut rows (bit k of mask) of an n-row joint. */
CTN_FN void ctn_dd_zero_cut(int mask, int n, CTN_GLOBAL double *r) {
    for (int k = 0; k < n; ++k)
        if (mask >> k & 1) r[k] = 0.0;
}

/* Inverse of a symmetric 3x3 (world inverse inertia -> world inertia). Returns 0 if singular. */
CTN_FN int ctn_dd_sym3_inverse(ctn_sym3 s, double *out) {
    double a = s.xx, b = s.xy, c = s.xz, d = s.yy, e = s.yz, f = s.zz;
    double A = d * f - e * e, B = c * e - b * f, C = b * e - c * d;
    double det = a * A + b * B + c * C;
    double scale = fabs(a) + fabs(d) + fabs(f);
    if (!(fabs(det) > 1e-18 * scale * scale * scale) || !isfinite(det)) return 0;
    double id = 1.0 / det;
    out[0] = A * id, out[1] = B * id, out[2] = C * id;
    out[3] = B * id, out[4] = (a * f - c * c) * id, out[5] = (b * c - a * e) * id;
    out[6] = C * id, out[7] = (b * c - a * e) * id, out[8] = (a * d - b * b) * id;
    return 1;
}

/* Dense inverses, in place on a CTN_GLOBAL matrix (__global in OpenCL, a plain pointer on the host), so
 * that no work-item of the forest kernels keeps an N x N matrix in private memory (private memory is
 * reserved per resident thread of a GPU: dense private copies ran an H100 out of it). The host solver
 * (host/solve/solver_direct.c) calls the same functions, so both sides run the same operations in the same order.
 *
 * ctn_dd_spd_inverse_g: the n x n symmetric positive semi-definite matrix at a (row stride lda,
 * n <= CTN_DD_MAX_DENSE, only its lower triangle is read) is replaced by its inverse, by Cholesky; a pivot
 * below CTN_DD_PIVOT_TOL times the largest diagonal drops its row and column. Cholesky factor L in the
 * lower triangle, then L^-1 over it column by column (column c of L is last read by column c of L^-1), then
 * L^-T L^-1 row by row, its diagonal entry last (the row's other entries read it); the upper triangle is
 * free scratch. */
CTN_FN void ctn_dd_spd_inverse_g(CTN_GLOBAL double *a, int n, int lda) {
    unsigned char live[CTN_DD_MAX_DENSE];
    double dmax = 0.0;
    int i, j, c, k;
    for (i = 0; i < n; ++i)
        if (a[i * lda + i] > dmax) dmax = a[i * lda + i];
    double tol = CTN_DD_PIVOT_TOL * dmax;
    for (j = 0; j < n; ++j) {
        double d = a[j * lda + j];
        for (c = 0; c < j; ++c) d -= a[j * lda + c] * a[j * lda + c];
        live[j] = d > tol && d > 0.0;
        if (!live[j]) {
            for (i = j; i < n; ++i) a[i * lda + j] = 0.0;
            continue;
        }
        d = sqrt(d);
        a[j * lda + j] = d;
        double id = 1.0 / d;
        for (i = j + 1; i < n; ++i) {
            double s = a[i * lda + j];
            for (c = 0; c < j; ++c) s -= a[i * lda + c] * a[j * lda + c];
            a[i * lda + j] = s * id;
        }
    }
    for (c = 0; c < n; ++c)
        for (i = c; i < n; ++i) {
            if (!live[i]) {
                a[i * lda + c] = 0.0;
                continue;
            }
            double s = i == c ? 1.0 : 0.0;
            for (k = c; k < i; ++k) s -= a[i * lda + k] * a[k * lda + c];
            a[i * lda + c] = s / a[i * lda + i];
        }
    for (i = 0; i < n; ++i)
        for (j = 0; j <= i; ++j) {
            double s = 0.0;
            for (k = i; k < n; ++k) s += a[k * lda + i] * a[k * lda + j];
            a[i * lda + j] = s;
            a[j * lda + i] = s;
        }
}

/* In-place inverse of a node pivot D (N x N, row stride N) = [A, B^T; B, C], A (d x d) positive definite
 * and C - B A^-1 B^T negative semi-definite (d = 0: joint node, D = C):
 *     D^-1 = [A^-1 - Y Q^-1 Y^T, Y Q^-1; Q^-1 Y^T, -Q^-1],  Y = A^-1 B^T,  Q = B Y - C.
 * A^-1 goes in the A block, Y = A^-1 B^T in the
 * upper-right block (B is read from the lower-left one), Q and then Q^-1 in the C block, Y Q^-1 in the
 * lower-left block (its final place), the A block, then Y Q^-1 over Y and -Q^-1 over Q^-1. */
CTN_FN void ctn_dd_node_inverse_g(CTN_GLOBAL double *D, int N, int d) {
    int m = N - d, i, j, r, c, k;
    if (d > 0) ctn_dd_spd_inverse_g(D, d, N);
    if (m == 0) return;
    for (i = 0; i < d; ++i)
        for (r = 0; r < m; ++r) {
            double s = 0.0;
            for (k = 0; k < d; ++k) s += D[i * N + k] * D[(d + r) * N + k];
            D[i * N + d + r] = s;
        }
    for (r = 0; r < m; ++r)
        for (c = 0; c <= r; ++c) {
            double s = -D[(d + r) * N + d + c];
            for (k = 0; k < d; ++k) s += D[(d + r) * N + k] * D[k * N + d + c];
            D[(d + r) * N + d + c] = s;
            D[(d + c) * N + d + r] = s;
        }
    ctn_dd_spd_inverse_g(D + d * N + d, m, N);
    for (i = 0; i < d; ++i)
        for (c = 0; c < m; ++c) {
            double s = 0.0;
            for (k = 0; k < m; ++k) s += D[i * N + d + k] * D[(d + k) * N + d + c];
            D[(d + c) * N + i] = s;
        }
    for (i = 0; i < d; ++i)
        for (j = 0; j <= i; ++j) {
            double s = D[i * N + j];
            for (k = 0; k < m; ++k) s -= D[(d + k) * N + i] * D[j * N + d + k];
            D[i * N + j] = s;
            D[j * N + i] = s;
        }
    for (i = 0; i < d; ++i)
        for (c = 0; c < m; ++c) D[i * N + d + c] = D[(d + c) * N + i];
    for (r = 0; r < m; ++r)
        for (c = 0; c < m; ++c) D[(d + r) * N + d + c] = -D[(d + r) * N + d + c];
}

/* ---- joint-space chains --------------------------------------------------------------------------
 * Along a path of joints in which consecutive joints share one dynamic body, the joint-space matrix
 *     A = J M^-1 J^T + S + CTN_DD_FLOOR diag(J M^-1 J^T)
 * is block tridiagonal: the diagonal block of joint p sums J_{p,b} M_b^-1 J_{p,b}^T over its dynamic
 * bodies b, and the coupling of p with its successor q is C_p = J_{p,b} M_b^-1 J_{q,b}^T through the body
 * b they share (Baraff 1996 eliminates the same system through body nodes; here the joints' own n x n
 * blocks, n <= 6, are the whole factor). A is symmetric positive definite, so block elimination needs no
 * pivoting. A segment of the path is eliminated node by node towards one of its ends; a separator joint
 * `a` behind the segment's first node picks up a dense coupling F_p = A_{p,a} to every node p (the
 * "spike", Polizzi and Sameh 2006), and after the segment only the separators a and c at its two ends
 * remain, coupled by G = A_{c,a}. Couplings are read through CTN_DD_E: C_p is stored with the rows of the
 * upper node (p) and ld = n_{p+1}; a node eliminated upwards reads it transposed (tr = 1, ld = its n). */
#define CTN_DD_E(C, ld, tr, r, c) ((tr) ? (C)[(c) * (ld) + (r)] : (C)[(r) * (ld) + (c)])

/* The cut rows taken out of an assembled position of a chain (its pivot K, n x n, and the coupling C,
 * nq x n, from its predecessor's nq rows to it; C NULL: none): a cut row of the position (bit k of mask)
 * gets an identity row and column in K and a zero column in C, a cut row of the predecessor (mask_q) a
 * zero row in C. With a zero right-hand side (ctn_dd_zero_cut) its dl is then 0, and the other rows are
 * the exact solve of the system without it. The pivot's part and the coupling's apart (they touch different
 * arrays: the same values in either order), for the OpenCL factor walk, which forms a packed pivot itself. */
CTN_FN void ctn_dd_chain_cut_pivot(CTN_GLOBAL double *K, int n, int mask) {
    for (int k = 0; k < n; ++k) {
        if (!(mask >> k & 1)) continue;
        for (int c = 0; c < n; ++c) K[k * n + c] = K[c * n + k] = 0.0;
        K[k * n + k] = 1.0;
    }
}
CTN_FN void ctn_dd_chain_cut_coupling(int n, int mask, CTN_GLOBAL double *C, int nq, int mask_q) {
    for (int k = 0; k < n; ++k)
        if (mask >> k & 1)
            for (int r = 0; r < nq && C; ++r) C[r * n + k] = 0.0;
    for (int r = 0; r < nq && C; ++r)
        if (mask_q >> r & 1)
            for (int c = 0; c < n; ++c) C[r * n + c] = 0.0;
}
CTN_FN void ctn_dd_chain_cut(CTN_GLOBAL double *K, int n, int mask, CTN_GLOBAL double *C, int nq, int mask_q) {
    ctn_dd_chain_cut_pivot(K, n, mask);
    ctn_dd_chain_cut_coupling(n, mask, C, nq, mask_q);
}

/* M^-1 J^T of the n rows J (6 doubles each) on one body: [im j_lin, I j_ang]; angular = 0 (particles and
 * rotation-locked bodies) keeps the rotation out, as the body nodes of the forest do. */
CTN_FN void ctn_dd_minv_rows(const double *J, int n, double im, ctn_sym3 I, int angular, double *MJ) {
    for (int k = 0; k < n; ++k) {
        const double *j = J + 6 * k;
        double *o = MJ + 6 * k;
        o[0] = im * j[0], o[1] = im * j[1], o[2] = im * j[2];
        if (angular) {
            o[3] = I.xx * j[3] + I.xy * j[4] + I.xz * j[5];
            o[4] = I.xy * j[3] + I.yy * j[4] + I.yz * j[5];
            o[5] = I.xz * j[3] + I.yz * j[4] + I.zz * j[5];
        } else {
            o[3] = o[4] = o[5] = 0.0;
        }
    }
}

/* out[0..5] += (im f, I (tq + r x f)): the velocity change of a body from a force f at lever arm r and a torque
 * tq (angular = 0: the angular part unchanged). The one place the block impulses below apply their sums. */
CTN_FN void ctn_dd_force_add(const double *f, double *tq, ctn_v3 r, double im, ctn_sym3 I, int angular, double *out) {
    out[0] += im * f[0], out[1] += im * f[1], out[2] += im * f[2];
    if (!angular) return;
    tq[0] += (double)r.y * f[2] - (double)r.z * f[1];
    tq[1] += (double)r.z * f[0] - (double)r.x * f[2];
    tq[2] += (double)r.x * f[1] - (double)r.y * f[0];
    out[3] += I.xx * tq[0] + I.xy * tq[1] + I.xz * tq[2];
    out[4] += I.xy * tq[0] + I.yy * tq[1] + I.yz * tq[2];
    out[5] += I.xz * tq[0] + I.yz * tq[1] + I.zz * tq[2];
}

/* v + dv: a velocity changed by a double-precision velocity change (dv, dw), each component rounded once. */
CTN_FN ctn_vel ctn_dd_vel_add(ctn_vel v, const double *dv) {
    v.v.x = (float)((double)v.v.x + dv[0]);
    v.v.y = (float)((double)v.v.y + dv[1]);
    v.v.z = (float)((double)v.v.z + dv[2]);
    v.w.x = (float)((double)v.w.x + dv[3]);
    v.w.y = (float)((double)v.w.y + dv[4]);
    v.w.z = (float)((double)v.w.z + dv[5]);
    return v;
}

/* out[0..5] += M^-1 J^T x: the velocity change (dv, dw) of the body on `side` of block b from impulses
 * x[0..n) on its n rows, without forming J. With the rows of ctn_dd_jrow (sign sg = -1 on side b),
 *     J^T x = sg [f; r x f + sum_ang t_k x_k],   f = sum_lin d_k x_k,
 * so dv = im J^T x|lin and dw = I J^T x|ang (angular = 0: particles and rotation-locked bodies, dw = 0).
 * About 40 flops for a ball joint against 180 for M^-1 J^T row by row. x is a private copy. */
CTN_FN void ctn_dd_block_impulse(const ctn_block *b, int side, const double *x, double im, ctn_sym3 I, int angular, double *out) {
    double sg = side ? -1.0 : 1.0, f[3] = {0.0, 0.0, 0.0}, tq[3] = {0.0, 0.0, 0.0};
    int n = b->n_lin + b->n_ang, k;
    for (k = 0; k < b->n_lin; ++k) {
        double xk = sg * x[k];
        f[0] += xk * b->dir[k].x, f[1] += xk * b->dir[k].y, f[2] += xk * b->dir[k].z;
    }
    for (; k < n; ++k) {
        double xk = sg * x[k];
        tq[0] += xk * b->dir[k].x, tq[1] += xk * b->dir[k].y, tq[2] += xk * b->dir[k].z;
    }
    ctn_dd_force_add(f, tq, side ? b->rb : b->ra, im, I, angular, out);
}

/* ctn_dd_block_impulse of a block whose rows are the three world axes (ctn_dd_rows_axes, a ball joint's):
 * the force is sg x itself. The same bits: the generic sums add x_k times 1 and the other rows times 0, exact
 * zeros (the sign of a zero sum is lost again when it is added to out), for finite x. */
CTN_FN void ctn_dd_block_impulse_axes(const ctn_block *b, int side, const double *x, double im, ctn_sym3 I, int angular, double *out) {
    double sg = side ? -1.0 : 1.0, f[3] = {sg * x[0], sg * x[1], sg * x[2]}, tq[3] = {0.0, 0.0, 0.0};
    ctn_dd_force_add(f, tq, side ? b->rb : b->ra, im, I, angular, out);
}

/* out (na x nb, row stride ld) += Ja MJb^T: the J M^-1 J^T block of two row sets on one body. */
CTN_FN void ctn_dd_add_row_products(const double *Ja, int na, const double *MJb, int nb, CTN_GLOBAL double *out, int ld) {
    for (int r = 0; r < na; ++r)
        for (int c = 0; c < nb; ++c) {
            const double *x = Ja + 6 * r, *y = MJb + 6 * c;
            out[r * ld + c] += x[0] * y[0] + x[1] * y[1] + x[2] * y[2] + x[3] * y[3] + x[4] * y[4] + x[5] * y[5];
        }
}

/* ---- chain assembly from lever arms ---------------------------------------------------------------
 * A joint whose rows are all linear (n_ang = 0: ball, point-to-point, distance) has the rows
 * J_side = sg [D, D [r]x^T] on each body (sg = -1 on side b, D the rows' directions, r the lever arm), so
 *     J_p M^-1 J_q^T = sg_p sg_q D_p (im I3 - [r_p]x I [r_q]x) D_q^T
 * on a body they share ((r x d)^T I (r' x d') = -d^T [r]x I [r']x d'). The 3x3 middle factor W costs about
 * 30 multiplications per body, against about 180 for the 6-wide rows, M^-1 J^T and their products. */

/* B = I [rq]x, the lever arm rq's half of the middle factor below (ctn_dd_lever_add); a body's B serves both
 * the pivot of the joint whose arm rq is and its coupling to the body's other joint (the chain path's factor
 * walk, host/solve/direct_chain.c, forms it once for the two). */
CTN_FN void ctn_dd_lever_b(ctn_sym3 I, ctn_v3 rq, double *B) {
    double qx = rq.x, qy = rq.y, qz = rq.z, xx = I.xx, yy = I.yy, zz = I.zz, xy = I.xy, xz = I.xz, yz = I.yz;
    B[0] = xy * qz - xz * qy, B[1] = xz * qx - xx * qz, B[2] = xx * qy - xy * qx; /* row i of I times [rq]x */
    B[3] = yy * qz - yz * qy, B[4] = yz * qx - xy * qz, B[5] = xy * qy - yy * qx;
    B[6] = yz * qz - zz * qy, B[7] = zz * qx - xz * qz, B[8] = xz * qy - yz * qx;
}

/* W -= [rp]x B (sym: the lower triangle only). */
CTN_FN void ctn_dd_lever_sub(ctn_v3 rp, const double *B, int sym, double *W) {
    double px = rp.x, py = rp.y, pz = rp.z;
    W[0] -= py * B[6] - pz * B[3], W[3] -= pz * B[0] - px * B[6], W[6] -= px * B[3] - py * B[0];
    W[4] -= pz * B[1] - px * B[7], W[7] -= px * B[4] - py * B[1];
    W[8] -= px * B[5] - py * B[2];
    if (sym) return;
    W[1] -= py * B[7] - pz * B[4], W[2] -= py * B[8] - pz * B[5], W[5] -= pz * B[2] - px * B[8];
}

/* W += im I3 - [rp]x I [rq]x (angular = 0: W += im I3); sym (rp = rq, W symmetric): lower triangle only. */
CTN_FN void ctn_dd_lever_add(double im, ctn_sym3 I, int angular, ctn_v3 rp, ctn_v3 rq, int sym, double *W) {
    W[0] += im, W[4] += im, W[8] += im;
    if (!angular) return;
    double B[9];
    ctn_dd_lever_b(I, rq, B);
    ctn_dd_lever_sub(rp, B, sym, W);
}

/* Whether the rows of b are the three world axes in order (a ball joint's: D = I3). */
CTN_FN int ctn_dd_rows_axes(const ctn_block *b) {
    return b->n_lin == 3 && b->n_ang == 0 && b->dir[0].x == 1.0f && b->dir[0].y == 0.0f && b->dir[0].z == 0.0f &&
           b->dir[1].x == 0.0f && b->dir[1].y == 1.0f && b->dir[1].z == 0.0f && b->dir[2].x == 0.0f && b->dir[2].y == 0.0f &&
           b->dir[2].z == 1.0f;
}

/* out (nl x nr, row stride ld) = s D_l W D_r^T for the linear rows of bl and br (s = +-1); sym (bl = br,
 * W symmetric with its lower triangle set): the lower triangle, mirrored. axes: both are
 * ctn_dd_rows_axes (D = I3). */
CTN_FN void ctn_dd_lever_rows(const ctn_block *bl, int nl, const double *W, const ctn_block *br, int nr, double s, int sym,
                              int axes, CTN_GLOBAL double *out, int ld) {
    if (axes) {
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) out[r * ld + c] = sym ? (c <= r ? W[3 * r + c] : W[3 * c + r]) : s * W[3 * r + c];
        return;
    }
    for (int r = 0; r < nl; ++r) {
        double d[3] = {bl->dir[r].x, bl->dir[r].y, bl->dir[r].z}, dw[3]; /* dw = d^T W */
        for (int j = 0; j < 3; ++j) {
            double s0 = 0.0;
            for (int i = 0; i < 3; ++i) s0 += d[i] * (sym && j > i ? W[3 * j + i] : W[3 * i + j]);
            dw[j] = s0;
        }
        for (int c = 0; c < (sym ? r + 1 : nr); ++c) {
            double v = s * (dw[0] * br->dir[c].x + dw[1] * br->dir[c].y + dw[2] * br->dir[c].z);
            out[r * ld + c] = v;
            if (sym) out[c * ld + r] = v;
        }
    }
}

/* Position p of the joint-space chain (host/solve/direct_chain.c assemble_position, kernels/catena_chain.cl
 * ctn_k_chain_assemble: both backends run this): its pivot K (n x n) = J M^-1 J^T + S + CTN_DD_FLOOR
 * diag(J M^-1 J^T) over its dynamic bodies, and with bp (the predecessor's block, not cut whole; NULL: no
 * coupling; the caller zeroes C) the coupling C (np x n, ld n) = J_prev M^-1 J_p^T through the body the
 * two share, on side sp of bp and side ps of blk. dyn: CTN_CH_DYN_* / CTN_CH_ROT_* bits of blk's bodies;
 * ima, Ia, imb, Ib: their inverse masses and world inverse inertias (read only where dynamic). Whether the
 * rows are the world axes is asked of the blocks, not of the joint types: the assembly's target joints are
 * ball joints whose rows it zeroes (host/solve/assemble.c). The pivot (ctn_dd_chain_pivot_ax) and the
 * coupling (ctn_dd_chain_coupling_ax) are formed apart: the OpenCL factor walk forms a packed position's
 * pivot itself (CTN_CH_PACKED), the assembly launch its coupling. J, MJ, Jp: scratch for the rows of a
 * joint with angular rows (36 doubles each), passed in so that a caller forming both keeps one set (private
 * memory per work-item: PoCL keeps it for a whole work-group, and a second set overflowed its thread stacks at
 * 12,000 positions). */
/* ctn_dd_chain_assemble with ctn_dd_rows_axes of blk and of bp given (axes_p, axes_q: a caller that keeps
 * them per position tests each block once instead of once per assembly it takes part in). */
CTN_FN void ctn_dd_chain_pivot_ax(const ctn_block *blk, int axes, int n, int dyn, double ima, ctn_sym3 Ia, double imb, ctn_sym3 Ib,
                                  double *J, double *MJ, CTN_GLOBAL double *K) {
    if (blk->n_ang == 0) {
        double W[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
        if (dyn & CTN_CH_DYN_A) ctn_dd_lever_add(ima, Ia, dyn & CTN_CH_ROT_A, blk->ra, blk->ra, 1, W);
        if (dyn & CTN_CH_DYN_B) ctn_dd_lever_add(imb, Ib, dyn & CTN_CH_ROT_B, blk->rb, blk->rb, 1, W);
        ctn_dd_lever_rows(blk, n, W, blk, n, 1.0, 1, axes, K, n);
    } else {
        for (int e = 0; e < n * n; ++e) K[e] = 0.0;
        for (int side = 0; side < 2; ++side) {
            if (!(dyn & (side ? CTN_CH_DYN_B : CTN_CH_DYN_A))) continue;
            for (int k = 0; k < n; ++k) ctn_dd_jrow(blk, k, side, J + 6 * k);
            ctn_dd_minv_rows(J, n, side ? imb : ima, side ? Ib : Ia, dyn & (side ? CTN_CH_ROT_B : CTN_CH_ROT_A), MJ);
            ctn_dd_add_row_products(J, n, MJ, n, K, n);
        }
    }
    for (int r = 0; r < n; ++r) K[r * n + r] += (double)blk->soft[r] + CTN_DD_FLOOR * K[r * n + r];
}

CTN_FN void ctn_dd_chain_coupling_ax(const ctn_block *blk, int axes_p, int n, int dyn, double ima, ctn_sym3 Ia, double imb, ctn_sym3 Ib,
                                     const ctn_block *bp, int axes_q, int np, int sp, int ps, double *J, double *MJ, double *Jp,
                                     CTN_GLOBAL double *C) {
    double im = ps ? imb : ima;
    ctn_sym3 I = ps ? Ib : Ia;
    int rot = dyn & (ps ? CTN_CH_ROT_B : CTN_CH_ROT_A);
    if (blk->n_ang == 0 && bp->n_ang == 0) {
        double W[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
        ctn_dd_lever_add(im, I, rot, sp ? bp->rb : bp->ra, ps ? blk->rb : blk->ra, 0, W);
        ctn_dd_lever_rows(bp, np, W, blk, n, (sp ? -1.0 : 1.0) * (ps ? -1.0 : 1.0), 0, axes_p && axes_q, C, n);
        return;
    }
    for (int e = 0; e < np * n; ++e) C[e] = 0.0;
    for (int k = 0; k < n; ++k) ctn_dd_jrow(blk, k, ps, J + 6 * k);
    ctn_dd_minv_rows(J, n, im, I, rot, MJ);
    for (int k = 0; k < np; ++k) ctn_dd_jrow(bp, k, sp, Jp + 6 * k);
    ctn_dd_add_row_products(Jp, np, MJ, n, C, n);
}

CTN_FN void ctn_dd_chain_assemble_ax(const ctn_block *blk, int axes_p, int n, int dyn, double ima, ctn_sym3 Ia, double imb, ctn_sym3 Ib,
                                     const ctn_block *bp, int axes_q, int np, int sp, int ps, CTN_GLOBAL double *K, CTN_GLOBAL double *C) {
    double J[36], MJ[36], Jp[36];
    ctn_dd_chain_pivot_ax(blk, axes_p, n, dyn, ima, Ia, imb, Ib, J, MJ, K);
    if (bp) ctn_dd_chain_coupling_ax(blk, axes_p, n, dyn, ima, Ia, imb, Ib, bp, axes_q, np, sp, ps, J, MJ, Jp, C);
}

CTN_FN void ctn_dd_chain_assemble(const ctn_block *blk, int n, int dyn, double ima, ctn_sym3 Ia, double imb, ctn_sym3 Ib,
                                  const ctn_block *bp, int np, int sp, int ps, CTN_GLOBAL double *K, CTN_GLOBAL double *C) {
    ctn_dd_chain_assemble_ax(blk, ctn_dd_rows_axes(blk), n, dyn, ima, Ia, imb, Ib, bp, bp && ctn_dd_rows_axes(bp), np, sp, ps, K, C);
}

/* In-place inverse of a 3x3 node pivot (row stride 3, lower triangle read) in closed form, adj(P) / det(P),
 * when its Cholesky pivots P00, m / P00 and det / m (m = P00 P11 - P10^2) all pass the rule of
 * ctn_dd_spd_inverse_g (above CTN_DD_PIVOT_TOL times the largest diagonal); otherwise by
 * ctn_dd_spd_inverse_g, which drops the redundant rows. About 40 flops and one division against about
 * 60 flops, 3 square roots and 9 divisions for the Cholesky inverse. ctn_dd_inverse3_closed: the closed form
 * on the lower triangle (a; b d; c e f), the inverse's lower triangle by rows into o[0..5] (it is symmetric), or 0
 * when a pivot fails the rule. */
CTN_FN int ctn_dd_inverse3_closed(double a, double b, double c, double d, double e, double f, double *o) {
    double dmax = a > d ? a : d;
    dmax = dmax > f ? dmax : f;
    double tol = CTN_DD_PIVOT_TOL * dmax;
    double m = a * d - b * b, A = d * f - e * e, B = c * e - b * f, C = b * e - c * d;
    double det = a * A + b * B + c * C;
    if (!(a > tol && m > tol * a && det > tol * m)) return 0; /* also NaN */
    double id = 1.0 / det;
    o[0] = A * id, o[1] = B * id, o[2] = (a * f - c * c) * id, o[3] = C * id, o[4] = (b * c - a * e) * id, o[5] = m * id;
    return 1;
}

CTN_FN void ctn_dd_spd_inverse3_g(CTN_GLOBAL double *P) {
    double o[6];
    if (!ctn_dd_inverse3_closed(P[0], P[3], P[6], P[4], P[7], P[8], o)) {
        ctn_dd_spd_inverse_g(P, 3, 3);
        return;
    }
    P[0] = o[0], P[1] = o[1], P[2] = o[3];
    P[3] = o[1], P[4] = o[2], P[5] = o[4];
    P[6] = o[3], P[7] = o[4], P[8] = o[5];
}

/* A symmetric 3x3 pivot (or its inverse) kept as its lower triangle by rows, k = (K00, K10, K11, K20, K21, K22):
 * 48 bytes instead of 72. Exact both ways for what the node steps read: the inverses read only the lower
 * triangle of a pivot, and the inverses they write are symmetric entry for entry (ctn_dd_spd_inverse_g and
 * ctn_dd_spd_inverse3_g store each entry and its mirror from one value), so unpacking gives the same full
 * matrix bit for bit. The CPU's chain keeps the same layout (host/solve/direct_chain.c, k_store). */
CTN_FN void ctn_dd_k3_unpack_g(CTN_GLOBAL const double *k, CTN_GLOBAL double *K) {
    K[0] = k[0], K[1] = k[1], K[2] = k[3];
    K[3] = k[1], K[4] = k[2], K[5] = k[4];
    K[6] = k[3], K[7] = k[4], K[8] = k[5];
}
CTN_FN void ctn_dd_k3_pack_g(CTN_GLOBAL const double *K, CTN_GLOBAL double *k) {
    k[0] = K[0], k[1] = K[3], k[2] = K[4], k[3] = K[6], k[4] = K[7], k[5] = K[8];
}

/* Factor step of node p (n rows) of a segment. P: its pivot (n x n, lower triangle read), replaced by P^-1.
 * E = A_{p,q}, the coupling to the next node q (nq columns; nq = 0: none); F = A_{p,a}, the spike to the
 * separator a (na columns, ld na; na = 0: none). Then
 *     Pq -= E^T P^-1 E   (ld nq),   Fq = -E^T P^-1 F   (nq x na),   Pa -= F^T P^-1 F   (ld na),
 * where Pq is q's pivot, or the segment's accumulator when q is the separator that ends it, and Fq is q's
 * spike, or the separator coupling G = A_{c,a} when q = c. The symmetric updates are formed on the lower
 * triangle and mirrored. E and F are then replaced by T_E = P^-1 E and T_F = P^-1 F (same layout): the
 * substitutions need nothing else of them,
 *     forward  u = P^-1 y,  yq -= T_E^T y,  ya -= T_F^T y;     backward  x = u - T_E xq - T_F xa,
 * so the back-substitution reads neither P^-1 nor E (9 multiplications a ball joint instead of 18). */
CTN_FN void ctn_dd_chain_factor_node_t(CTN_GLOBAL double *P, int n, CTN_GLOBAL double *C, int ldc, int tr, int nq,
                                     CTN_GLOBAL double *Pq, CTN_GLOBAL double *F, int na, CTN_GLOBAL double *Fq,
                                     CTN_GLOBAL double *Pa) {
    double TE[6 * 6], TF[6 * 6];
    int r, c, k;
    if (n == 3) ctn_dd_spd_inverse3_g(P);
    else ctn_dd_spd_inverse_g(P, n, n);
    for (r = 0; r < n; ++r) /* T_E = P^-1 E */
        for (c = 0; c < nq; ++c) {
            double s = 0.0;
            for (k = 0; k < n; ++k) s += P[r * n + k] * CTN_DD_E(C, ldc, tr, k, c);
            TE[r * 6 + c] = s;
        }
    for (r = 0; r < nq; ++r)
        for (c = 0; c <= r; ++c) {
            double s = 0.0;
            for (k = 0; k < n; ++k) s += CTN_DD_E(C, ldc, tr, k, r) * TE[k * 6 + c];
            Pq[r * nq + c] -= s;
            Pq[c * nq + r] = Pq[r * nq + c];
        }
    if (na > 0) {
        for (r = 0; r < n; ++r) /* T_F = P^-1 F */
            for (c = 0; c < na; ++c) {
                double s = 0.0;
                for (k = 0; k < n; ++k) s += P[r * n + k] * F[k * na + c];
                TF[r * 6 + c] = s;
            }
        for (r = 0; r < na; ++r)
            for (c = 0; c <= r; ++c) {
                double s = 0.0;
                for (k = 0; k < n; ++k) s += F[k * na + r] * TF[k * 6 + c];
                Pa[r * na + c] -= s;
                Pa[c * na + r] = Pa[r * na + c];
            }
        for (r = 0; r < nq; ++r)
            for (c = 0; c < na; ++c) {
                double s = 0.0;
                for (k = 0; k < n; ++k) s += CTN_DD_E(C, ldc, tr, k, r) * TF[k * 6 + c];
                Fq[r * na + c] = -s;
            }
        for (r = 0; r < n; ++r)
            for (c = 0; c < na; ++c) F[r * na + c] = TF[r * 6 + c];
    }
    for (r = 0; r < n; ++r)
        for (c = 0; c < nq; ++c) C[tr ? c * ldc + r : r * ldc + c] = TE[r * 6 + c]; /* CTN_DD_E's place */
}

/* The node steps with the transpose flag a constant in each branch, and a branch for the interior node of
 * a ball-jointed run (3 rows coupled to 3 rows, no spike): once inlined, the indices of CTN_DD_E and the
 * loop bounds are compile-time constants and the small products unroll (callgrind, bench_chain on 2000
 * links released horizontally, 20 steps, 1 thread: 585 M -> 523 M instructions). Every branch does the
 * same operations in the same order, so the bits are the same. */
#define CTN_DD_NODE3(n, ldc, nq, na) ((n) == 3 && (ldc) == 3 && (nq) == 3 && (na) == 0)
CTN_FN void ctn_dd_chain_factor_node(CTN_GLOBAL double *P, int n, CTN_GLOBAL double *C, int ldc, int tr, int nq,
                                     CTN_GLOBAL double *Pq, CTN_GLOBAL double *F, int na, CTN_GLOBAL double *Fq,
                                     CTN_GLOBAL double *Pa) {
    if (CTN_DD_NODE3(n, ldc, nq, na)) {
        if (tr) ctn_dd_chain_factor_node_t(P, 3, C, 3, 1, 3, Pq, F, 0, Fq, Pa);
        else ctn_dd_chain_factor_node_t(P, 3, C, 3, 0, 3, Pq, F, 0, Fq, Pa);
    } else if (tr) {
        ctn_dd_chain_factor_node_t(P, n, C, ldc, 1, nq, Pq, F, na, Fq, Pa);
    } else {
        ctn_dd_chain_factor_node_t(P, n, C, ldc, 0, nq, Pq, F, na, Fq, Pa);
    }
}

/* Forward step of node p: u = P^-1 y; yq -= T_E^T y (the next node's right-hand side, or the end
 * separator's accumulator), ya -= T_F^T y (T: ctn_dd_chain_factor_node). u may alias y. */
CTN_FN void ctn_dd_chain_forward_node_t(CTN_GLOBAL const double *Pinv, int n, CTN_GLOBAL double *y, CTN_GLOBAL double *u,
                                      CTN_GLOBAL const double *T, int ldc, int tr, int nq, CTN_GLOBAL double *yq,
                                      CTN_GLOBAL const double *TF, int na, CTN_GLOBAL double *ya) {
    double t[6], v[6];
    int r, k, c;
    for (r = 0; r < n; ++r) v[r] = y[r];
    for (r = 0; r < n; ++r) {
        double s = 0.0;
        for (k = 0; k < n; ++k) s += Pinv[r * n + k] * v[k];
        t[r] = s;
    }
    for (r = 0; r < n; ++r) u[r] = t[r];
    for (c = 0; c < nq; ++c) {
        double s = 0.0;
        for (k = 0; k < n; ++k) s += CTN_DD_E(T, ldc, tr, k, c) * v[k];
        yq[c] -= s;
    }
    for (c = 0; c < na; ++c) {
        double s = 0.0;
        for (k = 0; k < n; ++k) s += TF[k * na + c] * v[k];
        ya[c] -= s;
    }
}

CTN_FN void ctn_dd_chain_forward_node(CTN_GLOBAL const double *Pinv, int n, CTN_GLOBAL double *y, CTN_GLOBAL double *u,
                                      CTN_GLOBAL const double *T, int ldc, int tr, int nq, CTN_GLOBAL double *yq,
                                      CTN_GLOBAL const double *TF, int na, CTN_GLOBAL double *ya) {
    if (CTN_DD_NODE3(n, ldc, nq, na)) {
        if (tr) ctn_dd_chain_forward_node_t(Pinv, 3, y, u, T, 3, 1, 3, yq, TF, 0, ya);
        else ctn_dd_chain_forward_node_t(Pinv, 3, y, u, T, 3, 0, 3, yq, TF, 0, ya);
    } else if (tr) {
        ctn_dd_chain_forward_node_t(Pinv, n, y, u, T, ldc, 1, nq, yq, TF, na, ya);
    } else {
        ctn_dd_chain_forward_node_t(Pinv, n, y, u, T, ldc, 0, nq, yq, TF, na, ya);
    }
}

/* Backward step of node p: x = u - T_E xq - T_F xa, x holding u on entry. */
CTN_FN void ctn_dd_chain_backward_node_t(int n, CTN_GLOBAL double *x, CTN_GLOBAL const double *T, int ldc, int tr, int nq,
                                       CTN_GLOBAL const double *xq, CTN_GLOBAL const double *TF, int na, CTN_GLOBAL const double *xa) {
    for (int r = 0; r < n; ++r) {
        double s = 0.0;
        for (int c = 0; c < nq; ++c) s += CTN_DD_E(T, ldc, tr, r, c) * xq[c];
        for (int c = 0; c < na; ++c) s += TF[r * na + c] * xa[c];
        x[r] -= s;
    }
}

CTN_FN void ctn_dd_chain_backward_node(int n, CTN_GLOBAL double *x, CTN_GLOBAL const double *T, int ldc, int tr, int nq,
                                       CTN_GLOBAL const double *xq, CTN_GLOBAL const double *TF, int na, CTN_GLOBAL const double *xa) {
    if (CTN_DD_NODE3(n, ldc, nq, na)) {
        if (tr) ctn_dd_chain_backward_node_t(3, x, T, 3, 1, 3, xq, TF, 0, xa);
        else ctn_dd_chain_backward_node_t(3, x, T, 3, 0, 3, xq, TF, 0, xa);
    } else if (tr) {
        ctn_dd_chain_backward_node_t(n, x, T, ldc, 1, nq, xq, TF, na, xa);
    } else {
        ctn_dd_chain_backward_node_t(n, x, T, ldc, 0, nq, xq, TF, na, xa);
    }
}

/* The right-hand sides of the exact solves (r and, for the hybrid's re-solves, its change). */
#include "ctn_direct_rhs.h"

#endif /* CTN_DIRECT_H */
