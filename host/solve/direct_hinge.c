/* The chain path's assembly and node steps for hinge positions (host/solve/direct_chain.c), CPU only.
 *
 * A hinge's block has three linear rows along the world axes e_k (ctn_rows_point) and two angular rows t_1, t_2
 * (ctn_rows_parallel; a third, the hinge axis, with a limit or a motor). On a body of side sg (+1 a, -1 b),
 * lever arm r, inverse mass im and world inverse inertia I its rows are (ctn_dd_jrow)
 *     J_k = sg [e_k, r x e_k]  (k < 3),   J_k = sg [0, t_k]  (k >= 3),
 * so r x e_0 = (0, r_z, -r_y), r x e_1 = (-r_z, 0, r_x), r x e_2 = (r_y, -r_x, 0): of the 6 entries of a linear row
 * two are exact zeros of the position part and one of the angular part, and an angular row has three zeros.
 * The generic assembly (ctn_dd_chain_assemble_ax) forms the dense 6-wide rows, M^-1 J^T row by row
 * (ctn_dd_minv_rows) and every entry of J M^-1 J^T as a 6-term dot product (ctn_dd_add_row_products): about
 * 450 multiplications for an interior hinge, most of them by those zeros. Here
 *     K_rc = sum_b [r = c < 3] im_b + a_r . m_c,   a_r = angular part of J_r,  m_c = I a_c,
 *     C_rc = [r = c < 3] sg_p sg_q im + a'_r . m_c           (a' of the predecessor's block, the shared body),
 * each sum over the entries of a_r that are not structurally zero, in the generic order (ascending index,
 * the linear term first), and m_c = I a_c likewise: about 220 multiplications.
 *
 * The same bits: a product with an exact zero is a zero, and adding a zero to a sum leaves a nonzero sum
 * unchanged (IEEE 754 round to nearest), so skipping those terms changes at most the sign of a zero sum;
 * every such sum is added to an accumulator that starts at +0.0 (K and C are cleared, then summed into), and
 * +0 + (+-0) = +0, so the stored entries are the generic ones bit for bit, for finite inputs (an infinite or
 * NaN lever arm or inertia would make 0 * inf = NaN terms that are skipped here: the solve is then NaN in
 * either case, but not bit for bit). sg factors are exact (multiplication by +-1; rounding is symmetric).
 * tests/test_direct_chain.c compares both assemblies and walks byte for byte on random hinge and mixed chains. */
#include "solve/direct_hinge.h"

#include <math.h>
#include <string.h>

/* Loops of a few rows unrolled (the sizes are compile-time constants in the instances below). */
#if defined(__clang__)
/* clang unrolls the constant-size instances by itself; its pragma would fail (an error under -Werror) on the
 * instance whose size is a run-time value */
#define HINGE_UNROLL
#elif defined(__GNUC__)
#define HINGE_UNROLL _Pragma("GCC unroll 8")
#else
#define HINGE_UNROLL
#endif
#if defined(__GNUC__)
#define HINGE_INLINE static inline __attribute__((always_inline))
#else
#define HINGE_INLINE static inline
#endif

/* One body's view of a block's rows: the angular parts a[k] of J_k (k < 3: the entries that are not zero, at
 * index hinge_nz[k][0..1]) and m[k] = I a[k] (ctn_dd_minv_rows's operations without the zero products). */
typedef struct hinge_side {
    double a[6][3], m[6][3];
} hinge_side;

static const int hinge_nz[3][2] = {{1, 2}, {0, 2}, {0, 1}};

/* a[k] of ctn_dd_jrow: sg ((r_y d_z - r_z d_y), (r_z d_x - r_x d_z), (r_x d_y - r_y d_x)) with d = e_k is sg r_z, etc.:
 * r_z * 1 - r_x * 0 is r_z (or a zero), the zero entries left out. */
HINGE_INLINE void hinge_arms(const ctn_block *b, int n, int side, hinge_side *h) {
    double sg = side ? -1.0 : 1.0;
    ctn_v3 r = side ? b->rb : b->ra;
    double rx = r.x, ry = r.y, rz = r.z;
    h->a[0][1] = sg * rz, h->a[0][2] = sg * -ry;
    h->a[1][0] = sg * -rz, h->a[1][2] = sg * rx;
    h->a[2][0] = sg * ry, h->a[2][1] = sg * -rx;
    HINGE_UNROLL
    for (int k = 3; k < n; ++k) h->a[k][0] = sg * b->dir[k].x, h->a[k][1] = sg * b->dir[k].y, h->a[k][2] = sg * b->dir[k].z;
}

/* m[k] = I a[k] of ctn_dd_minv_rows, o_i = (I_i0 j_3 + I_i1 j_4) + I_i2 j_5, the zero entry's product left out. */
HINGE_INLINE void hinge_inertia(ctn_sym3 I, int n, hinge_side *h) {
    double xx = I.xx, yy = I.yy, zz = I.zz, xy = I.xy, xz = I.xz, yz = I.yz;
    const double *a = h->a[0];
    h->m[0][0] = xy * a[1] + xz * a[2], h->m[0][1] = yy * a[1] + yz * a[2], h->m[0][2] = yz * a[1] + zz * a[2];
    a = h->a[1];
    h->m[1][0] = xx * a[0] + xz * a[2], h->m[1][1] = xy * a[0] + yz * a[2], h->m[1][2] = xz * a[0] + zz * a[2];
    a = h->a[2];
    h->m[2][0] = xx * a[0] + xy * a[1], h->m[2][1] = xy * a[0] + yy * a[1], h->m[2][2] = xz * a[0] + yz * a[1];
    HINGE_UNROLL
    for (int k = 3; k < n; ++k) {
        a = h->a[k];
        h->m[k][0] = (xx * a[0] + xy * a[1]) + xz * a[2];
        h->m[k][1] = (xy * a[0] + yy * a[1]) + yz * a[2];
        h->m[k][2] = (xz * a[0] + yz * a[1]) + zz * a[2];
    }
}

/* a_r . m_c over the entries of a_r that are not zero, from the linear term lin (diag: r = c < 3) on. */
HINGE_INLINE double hinge_dot(const hinge_side *p, int r, const hinge_side *q, int c, int diag, double lin) {
    const double *a = p->a[r], *m = q->m[c];
    if (r < 3) {
        int i = hinge_nz[r][0], j = hinge_nz[r][1];
        return diag ? (lin + a[i] * m[i]) + a[j] * m[j] : a[i] * m[i] + a[j] * m[j];
    }
    return (a[0] * m[0] + a[1] * m[1]) + a[2] * m[2];
}

/* ctn__hinge_assemble with n (and np, the predecessor's rows) as constants in its instances. */
HINGE_INLINE void hinge_assemble(const ctn_block *blk, int n, int dyn, double ima, const ctn_sym3 *Ia, double imb, const ctn_sym3 *Ib,
                                 const ctn_block *bp, int np, int sp, int ps, double *K, double *C) {
    hinge_side hs[2];
    int rot[2] = {dyn & CTN_CH_ROT_A, dyn & CTN_CH_ROT_B}, dy[2] = {dyn & CTN_CH_DYN_A, dyn & CTN_CH_DYN_B};
    double im[2] = {ima, imb}, k[6 * 6];
    HINGE_UNROLL
    for (int r = 0; r < n; ++r)
        HINGE_UNROLL
        for (int c = 0; c <= r; ++c) k[r * 6 + c] = 0.0; /* K = 0, then += J_r M^-1 J_c^T of side a, of side b */
    HINGE_UNROLL
    for (int s = 0; s < 2; ++s) {
        if (!dy[s]) continue;
        if (rot[s]) {
            hinge_arms(blk, n, s, &hs[s]);
            hinge_inertia(*(s ? Ib : Ia), n, &hs[s]);
        }
        if (blk->n_ang == 0) continue;
        if (rot[s]) {
            HINGE_UNROLL
            for (int r = 0; r < n; ++r)
                HINGE_UNROLL
                for (int c = 0; c <= r; ++c) k[r * 6 + c] += hinge_dot(&hs[s], r, &hs[s], c, r == c && r < 3, im[s]);
        } else { /* m = 0: the linear term sg (im sg) = im alone (the other sums are zeros) */
            HINGE_UNROLL
            for (int r = 0; r < 3; ++r) k[r * 6 + r] += im[s];
        }
    }
    if (blk->n_ang == 0) { /* a ball joint after a hinge: its pivot from the lever arms (ctn_dd_chain_assemble_ax's first branch) */
        ctn_dd_chain_assemble_ax(blk, 1, n, dyn, ima, *Ia, imb, *Ib, NULL, 0, 0, 0, 0, K, C);
    } else {
        HINGE_UNROLL
        for (int r = 0; r < n; ++r) k[r * 6 + r] += (double)blk->soft[r] + CTN_DD_FLOOR * k[r * 6 + r];
        HINGE_UNROLL
        for (int r = 0; r < n; ++r)
            HINGE_UNROLL
            for (int c = 0; c <= r; ++c) K[r * n + c] = K[c * n + r] = k[r * 6 + c]; /* the upper triangle is never read */
    }
    if (!bp) return;
    /* C = 0, += J'_r M^-1 J_c^T on the shared body (side sp of bp, ps of blk): its m of blk's rows as above */
    hinge_side hp;
    int rs = rot[ps];
    double lin = (sp ? -1.0 : 1.0) * (im[ps] * (ps ? -1.0 : 1.0)); /* j'_r[r] o_c[r] = sg_p (im sg_q) */
    if (rs) hinge_arms(bp, np, sp, &hp);
    HINGE_UNROLL
    for (int r = 0; r < np; ++r)
        HINGE_UNROLL
        for (int c = 0; c < n; ++c) {
            int diag = r == c && r < 3;
            double v = 0.0;
            if (rs) v += hinge_dot(&hp, r, &hs[ps], c, diag, lin);
            else if (diag) v += lin;
            C[r * n + c] = v;
        }
}

void ctn__hinge_assemble(const ctn_block *blk, int n, int dyn, double ima, const ctn_sym3 *Ia, double imb, const ctn_sym3 *Ib, const ctn_block *bp,
                         int np, int sp, int ps, double *K, double *C) {
    if (n == 5 && (!bp || np == 5)) hinge_assemble(blk, 5, dyn, ima, Ia, imb, Ib, bp, 5, sp, ps, K, C); /* hinges */
    else if (n == 6 && (!bp || np == 6)) hinge_assemble(blk, 6, dyn, ima, Ia, imb, Ib, bp, 6, sp, ps, K, C); /* limited, fixed */
    else hinge_assemble(blk, n, dyn, ima, Ia, imb, Ib, bp, np, sp, ps, K, C);
}

/* The node steps with n = ldc = nq = N (5: a hinge coupled to a hinge; 6: limited or motorised hinges, fixed
 * joints) and no spike: ctn_dd_spd_inverse_g,
 * ctn_dd_chain_factor_node_t and ctn_dd_chain_forward_node_t copied with the size a constant, on local copies
 * of the pivot and the coupling (no aliasing between the arrays, so the compiler keeps them in registers) and
 * every loop unrolled: the same operations in the same order, so the same bits (tests/test_direct_chain.c
 * compares them with the shared steps). */

/* ctn_dd_spd_inverse_g's first two stages on the N x N lower triangle of a local matrix a of row stride ld: the
 * Cholesky factor L (a pivot d <= CTN_DD_PIVOT_TOL times the largest diagonal entry, or not positive, is
 * dropped: live[j] = 0 and its column zeroed), then L^-1 over it (a dropped pivot's row zeroed). Shared by the
 * scalar step (spd_inverse_n) and the two-lane one (node_factor_v). */
HINGE_INLINE void chol_inverse_lower(double *a, int N, int ld, unsigned char *live) {
    double dmax = 0.0;
    HINGE_UNROLL
    for (int i = 0; i < N; ++i)
        if (a[i * ld + i] > dmax) dmax = a[i * ld + i];
    double tol = CTN_DD_PIVOT_TOL * dmax;
    HINGE_UNROLL
    for (int j = 0; j < N; ++j) {
        double d = a[j * ld + j];
        HINGE_UNROLL
        for (int c = 0; c < j; ++c) d -= a[j * ld + c] * a[j * ld + c];
        live[j] = d > tol && d > 0.0;
        if (!live[j]) {
            HINGE_UNROLL
            for (int i = j; i < N; ++i) a[i * ld + j] = 0.0;
            continue;
        }
        d = sqrt(d);
        a[j * ld + j] = d;
        double id = 1.0 / d;
        HINGE_UNROLL
        for (int i = j + 1; i < N; ++i) {
            double s = a[i * ld + j];
            HINGE_UNROLL
            for (int c = 0; c < j; ++c) s -= a[i * ld + c] * a[j * ld + c];
            a[i * ld + j] = s * id;
        }
    }
    HINGE_UNROLL
    for (int c = 0; c < N; ++c) {
        HINGE_UNROLL
        for (int i = c; i < N; ++i) {
            if (!live[i]) {
                a[i * ld + c] = 0.0;
                continue;
            }
            double s = i == c ? 1.0 : 0.0;
            HINGE_UNROLL
            for (int k = c; k < i; ++k) s -= a[i * ld + k] * a[k * ld + c];
            a[i * ld + c] = s / a[i * ld + i];
        }
    }
}

/* ctn_dd_spd_inverse_g(a, N, N) on a local matrix (lower triangle read, the whole inverse written): L^-1, then
 * P^-1 = L^-T L^-1 in place. */
HINGE_INLINE void spd_inverse_n(double *a, int N5) {
    unsigned char live[6];
    chol_inverse_lower(a, N5, N5, live);
    HINGE_UNROLL
    for (int i = 0; i < N5; ++i) {
        HINGE_UNROLL
        for (int j = 0; j <= i; ++j) {
            double s = 0.0;
            HINGE_UNROLL
            for (int k = i; k < N5; ++k) s += a[k * N5 + i] * a[k * N5 + j];
            a[i * N5 + j] = s;
            a[j * N5 + i] = s;
        }
    }
}

/* E(k, c) of CTN_DD_E */
#define HINGE_E(C, ld, tr, r, c) ((tr) ? (C)[(c) * (ld) + (r)] : (C)[(r) * (ld) + (c)])

/* The scalar step, kept on purpose beside its two-lane twin node_factor_v: a compiler without the GCC/clang
 * vector extensions (hinge_v2) takes it (below, NODE_FACTOR), and it is the plain reading of the shared steps
 * the lane version must match. Compiled everywhere so that it stays correct (its inverse is the lane version's
 * chol_inverse_lower), hence marked unused for the compilers that take the lane version. */
#if defined(__GNUC__)
__attribute__((unused))
#endif
HINGE_INLINE void node_factor(double *P, double *C, int tr, double *Pq, double *y, double *yq, int N5) {
    double a[36], e[36], te[36];
    HINGE_UNROLL
    for (int r = 0; r < N5; ++r) {
        HINGE_UNROLL
        for (int c = 0; c <= r; ++c) a[r * N5 + c] = P[r * N5 + c];
    }
    HINGE_UNROLL
    for (int k = 0; k < N5; ++k) {
        HINGE_UNROLL
        for (int c = 0; c < N5; ++c) e[k * N5 + c] = HINGE_E(C, N5, tr, k, c);
    }
    spd_inverse_n(a, N5);
    HINGE_UNROLL
    for (int r = 0; r < N5; ++r) { /* T_E = P^-1 E */
        HINGE_UNROLL
        for (int c = 0; c < N5; ++c) {
            double s = 0.0;
            HINGE_UNROLL
            for (int k = 0; k < N5; ++k) s += a[r * N5 + k] * e[k * N5 + c];
            te[r * N5 + c] = s;
        }
    }
    HINGE_UNROLL
    for (int r = 0; r < N5; ++r) { /* Pq -= E^T T_E, lower triangle, mirrored */
        HINGE_UNROLL
        for (int c = 0; c <= r; ++c) {
            double s = 0.0;
            HINGE_UNROLL
            for (int k = 0; k < N5; ++k) s += e[k * N5 + r] * te[k * N5 + c];
            Pq[r * N5 + c] -= s;
            Pq[c * N5 + r] = Pq[r * N5 + c];
        }
    }
    HINGE_UNROLL
    for (int i = 0; i < N5 * N5; ++i) P[i] = a[i];
    HINGE_UNROLL
    for (int r = 0; r < N5; ++r) {
        HINGE_UNROLL
        for (int c = 0; c < N5; ++c) C[tr ? c * N5 + r : r * N5 + c] = te[r * N5 + c];
    }
    if (!y) return;
    /* ctn_dd_chain_forward_node_t: u = P^-1 y (in place), yq -= T_E^T y */
    double v[6], t[6];
    HINGE_UNROLL
    for (int r = 0; r < N5; ++r) v[r] = y[r];
    HINGE_UNROLL
    for (int r = 0; r < N5; ++r) {
        double s = 0.0;
        HINGE_UNROLL
        for (int k = 0; k < N5; ++k) s += a[r * N5 + k] * v[k];
        t[r] = s;
    }
    HINGE_UNROLL
    for (int r = 0; r < N5; ++r) y[r] = t[r];
    HINGE_UNROLL
    for (int c = 0; c < N5; ++c) {
        double s = 0.0;
        HINGE_UNROLL
        for (int k = 0; k < N5; ++k) s += te[k * N5 + c] * v[k];
        yq[c] -= s;
    }
}

#if defined(__GNUC__)
/* node_factor in two lanes of GCC/clang vector extensions (SSE2 on x86-64, NEON on AArch64): the sums over k of
 * two neighbouring columns (or rows) at once, each lane with the scalar loop's operations in its order
 * (s = 0; s += x_k y_k), so the same bits. Local matrices with row stride 6 (for N = 5 the sixth column is +0
 * padding, its lane computed and dropped). Where a sum runs down a column of the inverse it reads the row: the
 * inverse writes both triangles from one value, so they are equal bit for bit. */
typedef double hinge_v2 __attribute__((vector_size(16)));
#define L6 6
HINGE_INLINE hinge_v2 v2_load(const double *p) {
    hinge_v2 v;
    memcpy(&v, p, sizeof v);
    return v;
}

HINGE_INLINE void node_factor_v(double *P, double *C, int tr, double *Pq, double *y, double *yq, int N) {
    double a[L6 * L6], b[L6 * L6], e[L6 * L6], te[L6 * L6];
    const hinge_v2 Z = {0.0, 0.0};
    HINGE_UNROLL
    for (int r = 0; r < N; ++r) {
        HINGE_UNROLL
        for (int c = 0; c <= r; ++c) a[r * L6 + c] = P[r * N + c];
    }
    HINGE_UNROLL
    for (int k = 0; k < N; ++k) {
        HINGE_UNROLL
        for (int c = 0; c < N; ++c) e[k * L6 + c] = HINGE_E(C, N, tr, k, c);
        if (N == 5) e[k * L6 + 5] = 0.0; /* the padding lane */
    }
    /* ctn_dd_spd_inverse_g: the Cholesky factor and L^-1 over it, then L^-T L^-1 into b */
    unsigned char live[6];
    chol_inverse_lower(a, N, L6, live);
    /* (L^-T L^-1)_ij = sum_{k >= i} L^-1_ki L^-1_kj for j <= i, two j at a time; the in-place original writes no
     * entry a later sum reads (those are in rows k >= i, columns <= i), so the separate b holds the same values */
    HINGE_UNROLL
    for (int i = 0; i < N; ++i) {
        HINGE_UNROLL
        for (int j = 0; j <= i; j += 2) {
            if (j + 1 <= i) {
                hinge_v2 S = Z;
                HINGE_UNROLL
                for (int k = i; k < N; ++k) S += (hinge_v2){a[k * L6 + i], a[k * L6 + i]} * v2_load(&a[k * L6 + j]);
                b[i * L6 + j] = b[j * L6 + i] = S[0];
                b[i * L6 + j + 1] = b[(j + 1) * L6 + i] = S[1];
            } else {
                double s = 0.0;
                HINGE_UNROLL
                for (int k = i; k < N; ++k) s += a[k * L6 + i] * a[k * L6 + j];
                b[i * L6 + j] = s;
            }
        }
    }
    if (N == 5) /* the padding lane, read by the forward step's pairs */
        for (int r = 0; r < 5; ++r) b[r * L6 + 5] = 0.0;
    HINGE_UNROLL
    for (int r = 0; r < N; ++r) { /* T_E = P^-1 E, two columns at a time */
        HINGE_UNROLL
        for (int c = 0; c < N; c += 2) {
            hinge_v2 S = Z;
            HINGE_UNROLL
            for (int k = 0; k < N; ++k) S += (hinge_v2){b[r * L6 + k], b[r * L6 + k]} * v2_load(&e[k * L6 + c]);
            memcpy(&te[r * L6 + c], &S, sizeof S);
        }
    }
    HINGE_UNROLL
    for (int r = 0; r < N; ++r) { /* Pq -= E^T T_E, the lower triangle two columns at a time, mirrored */
        HINGE_UNROLL
        for (int c = 0; c <= r; c += 2) {
            hinge_v2 S = Z;
            HINGE_UNROLL
            for (int k = 0; k < N; ++k) S += (hinge_v2){e[k * L6 + r], e[k * L6 + r]} * v2_load(&te[k * L6 + c]);
            Pq[r * N + c] -= S[0];
            Pq[c * N + r] = Pq[r * N + c];
            if (c + 1 <= r) {
                Pq[r * N + c + 1] -= S[1];
                Pq[(c + 1) * N + r] = Pq[r * N + c + 1];
            }
        }
    }
    HINGE_UNROLL
    for (int r = 0; r < N; ++r) {
        HINGE_UNROLL
        for (int c = 0; c < N; ++c) P[r * N + c] = b[r * L6 + c];
    }
    HINGE_UNROLL
    for (int r = 0; r < N; ++r) {
        HINGE_UNROLL
        for (int c = 0; c < N; ++c) C[tr ? c * N + r : r * N + c] = te[r * L6 + c];
    }
    if (!y) return;
    /* ctn_dd_chain_forward_node_t: u = P^-1 y (two rows at a time, read down the symmetric inverse's columns),
     * yq -= T_E^T y (two columns at a time) */
    double v[6];
    HINGE_UNROLL
    for (int r = 0; r < N; ++r) v[r] = y[r];
    HINGE_UNROLL
    for (int r = 0; r < N; r += 2) {
        hinge_v2 S = Z;
        HINGE_UNROLL
        for (int k = 0; k < N; ++k) S += v2_load(&b[k * L6 + r]) * (hinge_v2){v[k], v[k]};
        y[r] = S[0];
        if (r + 1 < N) y[r + 1] = S[1];
    }
    HINGE_UNROLL
    for (int c = 0; c < N; c += 2) {
        hinge_v2 S = Z;
        HINGE_UNROLL
        for (int k = 0; k < N; ++k) S += v2_load(&te[k * L6 + c]) * (hinge_v2){v[k], v[k]};
        yq[c] -= S[0];
        if (c + 1 < N) yq[c + 1] -= S[1];
    }
}
#define NODE_FACTOR node_factor_v
#else
#define NODE_FACTOR node_factor
#endif

void ctn__node_factor(int n, double *P, double *C, int tr, double *Pq, double *y, double *yq) {
    if (n == 5) tr ? NODE_FACTOR(P, C, 1, Pq, y, yq, 5) : NODE_FACTOR(P, C, 0, Pq, y, yq, 5);
    else tr ? NODE_FACTOR(P, C, 1, Pq, y, yq, 6) : NODE_FACTOR(P, C, 0, Pq, y, yq, 6);
}

#if defined(__GNUC__)
#define HINGE_FLATTEN __attribute__((flatten))
#else
#define HINGE_FLATTEN
#endif
HINGE_FLATTEN void ctn__node_forward(int n, const double *Pinv, double *y, const double *T, int tr, double *yq) {
    if (n == 5) {
        if (tr) ctn_dd_chain_forward_node_t(Pinv, 5, y, y, T, 5, 1, 5, yq, NULL, 0, NULL);
        else ctn_dd_chain_forward_node_t(Pinv, 5, y, y, T, 5, 0, 5, yq, NULL, 0, NULL);
    } else {
        if (tr) ctn_dd_chain_forward_node_t(Pinv, 6, y, y, T, 6, 1, 6, yq, NULL, 0, NULL);
        else ctn_dd_chain_forward_node_t(Pinv, 6, y, y, T, 6, 0, 6, yq, NULL, 0, NULL);
    }
}

HINGE_FLATTEN void ctn__node_backward(int n, double *x, const double *T, int tr, const double *xq) {
    if (n == 5) {
        if (tr) ctn_dd_chain_backward_node_t(5, x, T, 5, 1, 5, xq, NULL, 0, NULL);
        else ctn_dd_chain_backward_node_t(5, x, T, 5, 0, 5, xq, NULL, 0, NULL);
    } else {
        if (tr) ctn_dd_chain_backward_node_t(6, x, T, 6, 1, 6, xq, NULL, 0, NULL);
        else ctn_dd_chain_backward_node_t(6, x, T, 6, 0, 6, xq, NULL, 0, NULL);
    }
}
