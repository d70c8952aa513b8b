/* The numeric half of the exact forest solver (host/solve/solver_direct.c, whose header comment gives the
 * system (2), the node pivots and the elimination): per substep, the node pivots of the ordering that
 * host/solve/direct_build.c made, their block LDL^T elimination children first, and forward and backward
 * substitution for a right-hand side. The dense per-node math is kernels/ctn_direct.h's, the same functions
 * the OpenCL forest kernels run, or their operations with less work where the structure allows it and the
 * bits stay the same: ball couplings over J's nonzero entries (below), the common node inverses unrolled, and
 * with SSE2 two of their entries at a time in the lanes of one register (lane by lane the scalar operations
 * in their order; the build never contracts to fused multiply-adds). */
#include "core/world.h"
#include "ctn_solver.h"
#include "solve/direct_internal.h"

#include <string.h>

#include "ctn_direct.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Loops of a constant count up to 6 unrolled whole (GCC; the operations and their order do not change). */
#if defined(__GNUC__) && !defined(__clang__)
#define FOREST_UNROLL _Pragma("GCC unroll 6")
#else
#define FOREST_UNROLL
#endif

#if defined(__GNUC__)
#define FOREST_INLINE static inline __attribute__((always_inline))
#else
#define FOREST_INLINE static inline
#endif

/* All rows of one side of a joint: J[k][0..5] (ctn_dd_jrow), zero for the rows cut this substep (s->cut:
 * a bit mask of the rows with finite bounds), which then couple to nothing. */
static void jacobian_side(const direct_state *s, const ctn_block *b, int slot, int side, double J[CTN_MAX_ROWS][6]) {
    int n = ctn_block_rows(b);
    for (int k = 0; k < n; ++k) ctn_dd_jrow_cut(b, k, side, s->cut[slot], J[k]);
}

/* ---- ball couplings ---------------------------------------------------------------------------------
 * A joint whose rows are the three world axes (a ball joint, ctn_dd_rows_axes) and none of them cut has the
 * rows J_side = sg [I3, -[r]x] on each body (sg = -1 on side b, r the lever arm):
 *     J = sg [1 0 0  0  rz -ry;  0 1 0  -rz 0 rx;  0 0 1  ry -rx 0],
 * the values ctn_dd_jrow forms (its cross products with the unit axes are exact). Each row has three
 * nonzero entries of six (BALL_NZ, ascending), each of the angular columns two (BALL_NZ_COL). The products of
 * the elimination and the substitutions below run over these entries only, in the order of the dense loops
 * (ascending index): the terms they leave out are products with an exact zero, which add nothing, so the
 * results are the dense loops' bits (ctn_dd_* of kernels/ctn_direct.h, which the OpenCL forest runs), in a
 * third of the multiplications. */
static const int BALL_NZ[3][3] = {{0, 4, 5}, {1, 3, 5}, {2, 3, 4}};
static const int BALL_NZ_COL[6][2] = {{0, -1}, {1, -1}, {2, -1}, {1, 2}, {0, 2}, {0, 1}};

/* ctn_dd_rows_axes by one comparison of the rows' bytes (a block with a -0.0f entry fails it and takes the
 * dense loops, which give the same bits). */
static int ball_rows(const ctn_block *b) {
    static const float axes[9] = {1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f};
    _Static_assert(sizeof b->dir[0] == 3 * sizeof(float), "ctn_v3 is three packed floats");
    return b->n_lin == 3 && b->n_ang == 0 && memcmp(b->dir, axes, sizeof axes) == 0;
}

/* The joint in slot couples through a ball's rows this substep: J of ball_jacobian. */
static int ball_coupling(const direct_state *s, const ctn_block *b, int slot) { return !s->cut[slot] && ball_rows(b); }

/* J of a ball coupling on side (ctn_dd_jrow's values; the zeros are never read). */
static void ball_jacobian(const ctn_block *b, int side, double J[3][6]) {
    double sg = side ? -1.0 : 1.0;
    ctn_v3 r = side ? b->rb : b->ra;
    double p = sg * (double)r.x, q = sg * (double)r.y, t = sg * (double)r.z;
    J[0][0] = sg, J[0][4] = t, J[0][5] = -q;
    J[1][1] = sg, J[1][3] = -t, J[1][5] = p;
    J[2][2] = sg, J[2][3] = q, J[2][4] = -p;
}

/* Every row of the joint in slot is cut this substep (a contact, a rope): it leaves the forest whole. */
static int cut_whole(const ctn_world *w, const direct_state *s, int slot) {
    return s->cut[slot] && ctn_dd_cut_full(s->cut[slot], ctn__direct_rows_at(&w->topo, slot));
}

/* Coupling of node i to its parent: the joint slot, the side of the Jacobian to use, the first row in
 * the parent (body child) or the parent's DOF count (joint child). Returns 0 when there is none. */
static int node_coupling(const ctn_world *w, const direct_state *s, int i, int *slot) {
    if (s->parent[i] < 0) return 0;
    *slot = s->pslot[i];
    return !cut_whole(w, s, *slot);
}

/* Diagonal of J M^-1 J^T of row k of a joint from its own two bodies (the scale of the row). */
static double row_local_mass(const ctn_world *w, const ctn_block *b, const ctn_joint_core *d, int k) {
    double acc = 0.0;
    for (int side = 0; side < 2; ++side) {
        int body = side ? d->b : d->a;
        if (body < 0 || !(w->props[body].flags & CTN_BODY_FLAG_DYNAMIC)) continue;
        double j[6];
        ctn_dd_jrow(b, k, side, j);
        ctn_sym3 I = w->inertia[body].inv_inertia;
        double im = w->inertia[body].inv_mass;
        double Iw[3] = {I.xx * j[3] + I.xy * j[4] + I.xz * j[5], I.xy * j[3] + I.yy * j[4] + I.yz * j[5],
                        I.xz * j[3] + I.yz * j[4] + I.zz * j[5]};
        acc += im * (j[0] * j[0] + j[1] * j[1] + j[2] * j[2]) + j[3] * Iw[0] + j[4] * Iw[1] + j[5] * Iw[2];
    }
    return acc;
}

/* row_local_mass of the three rows of a ball (ctn_dd_rows_axes) into m[0..2]: row k's linear part sums to
 * sg^2 = 1 exactly, and its angular part has two nonzero entries (BALL_NZ), so the terms left out are
 * products with an exact zero: the same bits. */
static void ball_local_mass(const ctn_world *w, const ctn_block *b, const ctn_joint_core *d, double m[3]) {
    m[0] = m[1] = m[2] = 0.0;
    FOREST_UNROLL for (int side = 0; side < 2; ++side) {
        int body = side ? d->b : d->a;
        if (body < 0 || !(w->props[body].flags & CTN_BODY_FLAG_DYNAMIC)) continue;
        double J[3][6];
        ball_jacobian(b, side, J);
        ctn_sym3 I = w->inertia[body].inv_inertia;
        double Im[3][3] = {{I.xx, I.xy, I.xz}, {I.xy, I.yy, I.yz}, {I.xz, I.yz, I.zz}};
        double im = w->inertia[body].inv_mass;
        FOREST_UNROLL for (int k = 0; k < 3; ++k) {
            int a = BALL_NZ[k][1], c = BALL_NZ[k][2]; /* the angular entries, a < c */
            double Iwa = Im[a - 3][a - 3] * J[k][a] + Im[a - 3][c - 3] * J[k][c];
            double Iwc = Im[c - 3][a - 3] * J[k][a] + Im[c - 3][c - 3] * J[k][c];
            m[k] += im * 1.0 + J[k][a] * Iwa + J[k][c] * Iwc;
        }
    }
}

/* Row diagonal of (2): -(S + floor * local effective mass). */
static double row_pivot(const ctn_world *w, const ctn_block *b, const ctn_joint_core *d, int k) {
    return -((double)b->soft[k] + DIRECT_FLOOR * row_local_mass(w, b, d, k));
}

/* The row diagonals of the joint in slot into D (stride N, from row 0): row_pivot, -1 on its cut rows. */
static void joint_pivots(const ctn_world *w, const direct_state *s, const ctn_block *b, int slot, int n, double *D, int N) {
    const ctn_joint_core *d = &w->topo.defs[slot];
    if (n == 3 && ball_rows(b)) {
        double m[3];
        ball_local_mass(w, b, d, m);
        for (int r = 0; r < 3; ++r) D[r * N + r] = (s->cut[slot] >> r & 1) ? -1.0 : -((double)b->soft[r] + DIRECT_FLOOR * m[r]);
        return;
    }
    for (int r = 0; r < n; ++r) D[r * N + r] = (s->cut[slot] >> r & 1) ? -1.0 : row_pivot(w, b, d, r);
}

/* Node pivots H_ii: [M_b, J_a^T; J_a, -S_a] of a body node, -S_s of a joint node (cut rows: -1 with zero
 * couplings). */
static void assemble_pivots(const ctn_world *w, direct_state *s, const ctn_block *blocks) {
    const ctn_topology *t = &w->topo;
    for (int i = 0; i < s->node_count; ++i) {
        int N = s->size[i], d = s->dof[i];
        double *D = s->mat + s->mat_off[i];
        if (N == 6) /* a rigid body without attached rows, a ball joint: stores, not a call */
            FOREST_UNROLL for (int e = 0; e < 36; ++e) D[e] = 0.0;
        else if (N == 3)
            FOREST_UNROLL for (int e = 0; e < 9; ++e) D[e] = 0.0;
        else
            memset(D, 0, (size_t)N * N * sizeof *D);
        if (s->kind[i] == NODE_JOINT) {
            joint_pivots(w, s, &blocks[s->id[i]], s->id[i], N, D, N);
            continue;
        }
        int body = s->id[i];
        double mass = w->inertia[body].inv_mass > 0.0f ? 1.0 / (double)w->inertia[body].inv_mass : 1e30;
        for (int r = 0; r < 3; ++r) D[r * N + r] = mass;
        if (d == 6) {
            double I[9];
            if (!ctn_dd_sym3_inverse(w->inertia[body].inv_inertia, I))
                for (int r = 0; r < 9; ++r) I[r] = (r % 4 == 0) ? 1e30 : 0.0; /* degenerate: rotation locked */
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c) D[(3 + r) * N + 3 + c] = I[r * 3 + c];
        }
        for (int e = s->att_off[i]; e < s->att_off[i + 1]; ++e) {
            int slot = s->att[e], row0 = s->slot_row[slot], n = ctn__direct_rows_at(t, slot);
            const ctn_block *blk = &blocks[slot];
            if (cut_whole(w, s, slot)) {
                for (int r = 0; r < n; ++r) D[(row0 + r) * N + row0 + r] = -1.0;
                continue;
            }
            double J[CTN_MAX_ROWS][6];
            jacobian_side(s, blk, slot, s->slot_side[slot], J);
            for (int r = 0; r < n; ++r) {
                for (int c = 0; c < d; ++c) {
                    D[(row0 + r) * N + c] = J[r][c];
                    D[c * N + row0 + r] = J[r][c];
                }
                D[(row0 + r) * N + row0 + r] = (s->cut[slot] >> r & 1) ? -1.0 : row_pivot(w, blk, &t->defs[slot], r);
            }
        }
    }
}

/* ctn_dd_spd_inverse_g (kernels/ctn_direct.h) for a constant n with row stride n: the same operations in the
 * same order (the rule for dropped pivots included), its loops unrolled whole once inlined with n = 6 (a
 * rigid body's pivot) or 3 (a ball joint's), L^-1 and L^-T L^-1 in SSE2 lanes. The shared function keeps its loops for the OpenCL kernels and
 * the other sizes; tests/test_direct.c compares the two bit for bit. */
static inline void spd_inverse_tol(double *a, const int n, const int lda, double tol) {
    unsigned char live[6];
    FOREST_UNROLL for (int j = 0; j < n; ++j) {
        double d = a[j * lda + j];
        FOREST_UNROLL for (int c = 0; c < j; ++c) d -= a[j * lda + c] * a[j * lda + c];
        live[j] = d > tol && d > 0.0;
        if (!live[j]) {
            FOREST_UNROLL for (int i = j; i < n; ++i) a[i * lda + j] = 0.0;
            continue;
        }
        d = sqrt(d);
        a[j * lda + j] = d;
        double id = 1.0 / d;
        FOREST_UNROLL for (int i = j + 1; i < n; ++i) {
            double s = a[i * lda + j];
            FOREST_UNROLL for (int c = 0; c < j; ++c) s -= a[i * lda + c] * a[j * lda + c];
            a[i * lda + j] = s * id;
        }
    }
#if defined(__SSE2__)
    /* L^-1 in place, columns c and c + 1 in SSE2 lanes: row i's entries (i, c) and (i, c + 1) are
     * (delta - sum_k a[i][k] a[k][c]) / a[i][i] over k = c..i-1 and k = c + 1..i-1; column c's first term
     * (k = c) goes alone, the terms k > c together (row k holds a[k][c], a[k][c + 1] side by side), then one
     * division of the pair by a[i][i]. Lane by lane the scalar loop's operations in its order; each value read
     * is the one the scalar loop reads: rows k < i of the two columns already inverted, row i's entries
     * k >= c and the divisor a[i][i] still L's (the pair is stored after its row is read). */
    FOREST_UNROLL for (int c = 0; c < n; c += 2) {
        a[c * lda + c] = live[c] ? 1.0 / a[c * lda + c] : 0.0; /* row c: column c only */
        if (c + 1 == n) break;
        FOREST_UNROLL for (int i = c + 1; i < n; ++i) {
            if (!live[i]) {
                a[i * lda + c] = 0.0;
                a[i * lda + c + 1] = 0.0;
                continue;
            }
            __m128d s = _mm_set_pd(i == c + 1 ? 1.0 : 0.0, 0.0 - a[i * lda + c] * a[c * lda + c]);
            FOREST_UNROLL for (int k = c + 1; k < i; ++k)
                s = _mm_sub_pd(s, _mm_mul_pd(_mm_set1_pd(a[i * lda + k]), _mm_loadu_pd(a + k * lda + c)));
            _mm_storeu_pd(a + i * lda + c, _mm_div_pd(s, _mm_set1_pd(a[i * lda + i])));
        }
    }
#else
    FOREST_UNROLL for (int c = 0; c < n; ++c)
        FOREST_UNROLL for (int i = c; i < n; ++i) {
            if (!live[i]) {
                a[i * lda + c] = 0.0;
                continue;
            }
            double s = i == c ? 1.0 : 0.0;
            FOREST_UNROLL for (int k = c; k < i; ++k) s -= a[i * lda + k] * a[k * lda + c];
            a[i * lda + c] = s / a[i * lda + i];
        }
#endif
#if defined(__SSE2__)
    /* A^-1 = L^-T L^-1 over the lower triangle, entries (i, j) and (i, j + 1) in SSE2 lanes (row k holds
     * a[k][j], a[k][j + 1] side by side): lane by lane the scalar loop's 0.0 + a[k][i] a[k][j] for k = i..n-1
     * (no fused multiply-adds), and each lane's sum stored to both triangles. The lanes read only rows k >= i of
     * columns j, j + 1 and i, which the pair's stores do not touch before they are read. */
    FOREST_UNROLL for (int i = 0; i < n; ++i) {
        FOREST_UNROLL for (int j = 0; j + 1 <= i; j += 2) {
            __m128d s = _mm_setzero_pd();
            FOREST_UNROLL for (int k = i; k < n; ++k)
                s = _mm_add_pd(s, _mm_mul_pd(_mm_set1_pd(a[k * lda + i]), _mm_loadu_pd(a + k * lda + j)));
            _mm_storeu_pd(a + i * lda + j, s);
            a[j * lda + i] = _mm_cvtsd_f64(s);
            if (j + 1 != i) a[(j + 1) * lda + i] = _mm_cvtsd_f64(_mm_unpackhi_pd(s, s));
        }
        if (!(i & 1)) { /* j = i, the diagonal */
            double s = 0.0;
            FOREST_UNROLL for (int k = i; k < n; ++k) s += a[k * lda + i] * a[k * lda + i];
            a[i * lda + i] = s;
        }
    }
#else
    FOREST_UNROLL for (int i = 0; i < n; ++i)
        FOREST_UNROLL for (int j = 0; j <= i; ++j) {
            double s = 0.0;
            FOREST_UNROLL for (int k = i; k < n; ++k) s += a[k * lda + i] * a[k * lda + j];
            a[i * lda + j] = s;
            a[j * lda + i] = s;
        }
#endif
}

static double pivot_tol(const double *a, const int n) {
    double dmax = 0.0;
    FOREST_UNROLL for (int i = 0; i < n; ++i)
        if (a[i * n + i] > dmax) dmax = a[i * n + i];
    return CTN_DD_PIVOT_TOL * dmax;
}
static inline void spd_inverse_n(double *a, const int n) { spd_inverse_tol(a, n, n, pivot_tol(a, n)); }

/* spd_inverse_n of a 6x6 pivot whose off-diagonal 3x3 blocks are zero (a body without child joints:
 * blockdiag(m I3, I_world)): the Cholesky factor and its inverse keep those blocks zero, and every term
 * through them is a product with an exact zero, so the two diagonal blocks inverted apart (with the whole
 * block's pivot tolerance) give the same bits at a third of the work. */
static int spd_inverse6(double *a) {
    int split = 1;
    for (int r = 3; r < 6; ++r)
        for (int c = 0; c < 3; ++c) split &= a[r * 6 + c] == 0.0;
    if (!split) {
        spd_inverse_n(a, 6);
        return 0;
    }
    double tol = pivot_tol(a, 6);
    spd_inverse_tol(a, 3, 6, tol);
    spd_inverse_tol(a + 21, 3, 6, tol);
    for (int r = 3; r < 6; ++r)
        for (int c = 0; c < 3; ++c) a[r * 6 + c] = a[c * 6 + r] = 0.0;
    return 1;
}

/* ctn_dd_node_inverse_g of a node without attached rows through spd_inverse_n, in its operations: a rigid
 * body (N = d = 6) is ctn_dd_spd_inverse_g of the whole block; a ball joint (N = 3, d = 0) is -(-D)^-1, the
 * negation written into both triangles first and over the whole block last. */
static int node_inverse(double *D, int N, int d) {
    if (N == 6 && d == 6) return spd_inverse6(D);
    if (N == 3 && d == 0) {
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c <= r; ++c) D[r * 3 + c] = D[c * 3 + r] = -D[r * 3 + c];
        spd_inverse_n(D, 3);
        for (int e = 0; e < 9; ++e) D[e] = -D[e];
        return 0;
    }
    ctn_dd_node_inverse_g(D, N, d);
    return 0;
}

void ctn__forest_node_inverse(double *D, int N, int d) { (void)node_inverse(D, N, d); }

/* D_p -= J_sc [D_c^-1]_bb J_sc^T for a rigid body child c (Di: its inverse, stride N) of a ball coupling J
 * whose rows sit at Dr (stride Np): the dense loops of eliminate_nodes over J's nonzero entries. */
static void ball_update_rows(const double J[3][6], const double *Di, int N, double *Dr, int Np) {
    double T[3][6];
#if defined(__SSE2__)
    /* T = J_sc [D_c^-1]_bb, two columns in SSE2 lanes (columns c, c + 1 of a row of Di lie side by side): lane by
     * lane 0.0 + the three products in BALL_NZ's order, as the scalar loop below (no fused multiply-adds) */
    FOREST_UNROLL for (int r = 0; r < 3; ++r) {
        const double *d0 = Di + BALL_NZ[r][0] * N, *d1 = Di + BALL_NZ[r][1] * N, *d2 = Di + BALL_NZ[r][2] * N;
        __m128d j0 = _mm_set1_pd(J[r][BALL_NZ[r][0]]), j1 = _mm_set1_pd(J[r][BALL_NZ[r][1]]), j2 = _mm_set1_pd(J[r][BALL_NZ[r][2]]);
        FOREST_UNROLL for (int c = 0; c < 6; c += 2) {
            __m128d acc = _mm_add_pd(_mm_setzero_pd(), _mm_mul_pd(j0, _mm_loadu_pd(d0 + c)));
            acc = _mm_add_pd(acc, _mm_mul_pd(j1, _mm_loadu_pd(d1 + c)));
            _mm_storeu_pd(&T[r][c], _mm_add_pd(acc, _mm_mul_pd(j2, _mm_loadu_pd(d2 + c))));
        }
    }
#else
    FOREST_UNROLL for (int r = 0; r < 3; ++r)
        FOREST_UNROLL for (int c = 0; c < 6; ++c) {
            double acc = 0.0;
            FOREST_UNROLL for (int e = 0; e < 3; ++e) acc += J[r][BALL_NZ[r][e]] * Di[BALL_NZ[r][e] * N + c];
            T[r][c] = acc;
        }
#endif
    FOREST_UNROLL for (int r = 0; r < 3; ++r)
        FOREST_UNROLL for (int c = 0; c <= r; ++c) {
            double acc = 0.0;
            FOREST_UNROLL for (int e = 0; e < 3; ++e) acc += T[r][BALL_NZ[c][e]] * J[c][BALL_NZ[c][e]];
            Dr[r * Np + c] -= acc;
            if (c != r) Dr[c * Np + r] -= acc;
        }
}

/* D_p -= J_sp^T D_s^-1 J_sp for a ball joint node s (Di: its 3x3 inverse) below a rigid body p (Dp, stride
 * Np): the dense loops of eliminate_nodes over J's nonzero entries. */
static void ball_update_body(const double J[3][6], const double *Di, double *Dp, int Np) {
    double T[3][6];
#if defined(__SSE2__)
    /* The same sums in SSE2 lanes (no fused multiply-adds; lane by lane the scalar loops' operations and order).
     * T = D_s^-1 J_sp: rows 0 and 1 together, Di[r][k] read as Di[k][r] (node_inverse's 3x3 is symmetric to the
     * bit), row 2 scalar. */
    FOREST_UNROLL for (int c = 0; c < 6; ++c) {
        const int k0 = BALL_NZ_COL[c][0], k1 = BALL_NZ_COL[c][1];
        __m128d acc = _mm_add_pd(_mm_setzero_pd(), _mm_mul_pd(_mm_loadu_pd(Di + k0 * 3), _mm_set1_pd(J[k0][c])));
        double acc2 = 0.0 + Di[6 + k0] * J[k0][c];
        if (k1 >= 0) {
            acc = _mm_add_pd(acc, _mm_mul_pd(_mm_loadu_pd(Di + k1 * 3), _mm_set1_pd(J[k1][c])));
            acc2 += Di[6 + k1] * J[k1][c];
        }
        _mm_storel_pd(&T[0][c], acc);
        _mm_storeh_pd(&T[1][c], acc);
        T[2][c] = acc2;
    }
    /* D_p -= J_sp^T T over the lower triangle, columns c and c + 1 of row a together (T's row k holds them side
     * by side); the upper entries take each lane's sum apart, and the diagonal once */
    FOREST_UNROLL for (int a = 0; a < 6; ++a) {
        const int k0 = BALL_NZ_COL[a][0], k1 = BALL_NZ_COL[a][1];
        FOREST_UNROLL for (int c = 0; c + 1 <= a; c += 2) {
            __m128d acc = _mm_add_pd(_mm_setzero_pd(), _mm_mul_pd(_mm_set1_pd(J[k0][a]), _mm_loadu_pd(&T[k0][c])));
            if (k1 >= 0) acc = _mm_add_pd(acc, _mm_mul_pd(_mm_set1_pd(J[k1][a]), _mm_loadu_pd(&T[k1][c])));
            _mm_storeu_pd(Dp + a * Np + c, _mm_sub_pd(_mm_loadu_pd(Dp + a * Np + c), acc));
            Dp[c * Np + a] -= _mm_cvtsd_f64(acc);
            if (c + 1 != a) Dp[(c + 1) * Np + a] -= _mm_cvtsd_f64(_mm_unpackhi_pd(acc, acc));
        }
        if (!(a & 1)) { /* c = a, the diagonal */
            double acc = 0.0 + J[k0][a] * T[k0][a];
            if (k1 >= 0) acc += J[k1][a] * T[k1][a];
            Dp[a * Np + a] -= acc;
        }
    }
#else
    FOREST_UNROLL for (int r = 0; r < 3; ++r)
        FOREST_UNROLL for (int c = 0; c < 6; ++c) {
            double acc = 0.0;
            FOREST_UNROLL for (int e = 0; e < 2; ++e) {
                int k = BALL_NZ_COL[c][e];
                if (k >= 0) acc += Di[r * 3 + k] * J[k][c];
            }
            T[r][c] = acc;
        }
    FOREST_UNROLL for (int a = 0; a < 6; ++a)
        FOREST_UNROLL for (int c = 0; c <= a; ++c) {
            double acc = 0.0;
            FOREST_UNROLL for (int e = 0; e < 2; ++e) {
                int k = BALL_NZ_COL[a][e];
                if (k >= 0) acc += J[k][a] * T[k][c];
            }
            Dp[a * Np + c] -= acc;
            if (c != a) Dp[c * Np + a] -= acc;
        }
#endif
}

/* How node i couples to its parent (s->pass, written by the factor and read by every solve with it):
 * PASS_NONE (a root, or a joint cut whole), PASS_BALL (a ball coupling of a rigid body: the child a rigid body
 * node, or a ball joint node below one), else PASS_DENSE; and PASS_OWN_BALL for a joint node whose own rows
 * are a ball's, none cut (row_residual's ball case). What decides them holds from one factor to the next:
 * s->cut is written only before a factor (ctn__solve_direct_ex, bounded_exact, ctn__direct_factor), and an
 * uncut joint of three linear rows and no angular ones has the world axes for rows by construction (the
 * point rows of a ball, ctn_rows_ball_fields), whatever its bodies' poses when its rows are formed again for a
 * chord step. So the solves ask neither the cut masks nor the rows' bytes again, and their bits are the same. */
enum { PASS_NONE = 0, PASS_DENSE = 1, PASS_BALL = 2, PASS_KIND = 3, PASS_OWN_BALL = 4 };

/* Elimination of every node into its parent, children first: D_i^-1 in place, then
 * D_p -= H_pi D_i^-1 H_ip through the coupling joint's Jacobian. */
static void eliminate_nodes(const ctn_world *w, direct_state *s, const ctn_block *blocks) {
    for (int i = 0; i < s->node_count; ++i) {
        int N = s->size[i], d = s->dof[i], slot;
        double *Di = s->mat + s->mat_off[i];
        s->split[i] = (unsigned char)node_inverse(Di, N, d);
        if (!node_coupling(w, s, i, &slot)) { /* a joint node always has a parent: cut whole, so not a ball */
            s->pass[i] = PASS_NONE;
            continue;
        }
        int p = s->parent[i], Np = s->size[p];
        double *Dp = s->mat + s->mat_off[p];
        const ctn_block *blk = &blocks[slot];
        double J[CTN_MAX_ROWS][6], T[CTN_MAX_ROWS][6];
        int ball = ball_coupling(s, blk, slot), own = ball && s->kind[i] == NODE_JOINT ? PASS_OWN_BALL : 0; /* a joint node's slot is its own */
        s->pass[i] = (unsigned char)(own | PASS_BALL);
        if (ball) {
            if (s->kind[i] == NODE_BODY && d == 6) {
                double B[3][6];
                ball_jacobian(blk, s->side[i], B);
                ball_update_rows(B, Di, N, Dp + (size_t)s->prow[i] * Np + s->prow[i], Np);
                continue;
            }
            if (s->kind[i] == NODE_JOINT && s->dof[p] == 6) {
                double B[3][6];
                ball_jacobian(blk, s->side[i], B);
                ball_update_body(B, Di, Dp, Np);
                continue;
            }
        }
        s->pass[i] = (unsigned char)(own | PASS_DENSE);
        jacobian_side(s, blk, slot, s->side[i], J);
        int n = ctn__direct_rows_at(&w->topo, slot);
        if (s->kind[i] == NODE_BODY) {
            /* rows of slot in p (at prow): D -= J_sc [D_c^-1]_bb J_sc^T */
            double *Dr = Dp + (size_t)s->prow[i] * Np + s->prow[i];
            for (int r = 0; r < n; ++r)
                for (int c = 0; c < d; ++c) {
                    double acc = 0.0;
                    for (int k = 0; k < d; ++k) acc += J[r][k] * Di[k * N + c];
                    T[r][c] = acc;
                }
            for (int r = 0; r < n; ++r)
                for (int c = 0; c <= r; ++c) {
                    double acc = 0.0;
                    for (int k = 0; k < d; ++k) acc += T[r][k] * J[c][k];
                    Dr[r * Np + c] -= acc;
                    if (c != r) Dr[c * Np + r] -= acc;
                }
        } else {
            /* DOF block of the parent body: D -= J_sp^T D_s^-1 J_sp */
            int dp = s->dof[p];
            for (int r = 0; r < N; ++r)
                for (int c = 0; c < dp; ++c) {
                    double acc = 0.0;
                    for (int k = 0; k < N; ++k) acc += Di[r * N + k] * J[k][c];
                    T[r][c] = acc;
                }
            for (int a = 0; a < dp; ++a)
                for (int c = 0; c <= a; ++c) {
                    double acc = 0.0;
                    for (int k = 0; k < N; ++k) acc += J[k][a] * T[k][c];
                    Dp[a * Np + c] -= acc;
                    if (c != a) Dp[c * Np + a] -= acc;
                }
        }
    }
}

void ctn__forest_factor(ctn_world *w, direct_state *s, const ctn_block *blocks) {
    assemble_pivots(w, s, blocks);
    eliminate_nodes(w, s, blocks);
}

/* J_k (V_a, V_b) of row k of a ball (Ja, Jb: ball_jacobian of its two sides): ctn_dd_row_jv's sum over its
 * nonzero columns (BALL_NZ; both sides share them), in its order: the same bits. */
static double ball_row_jv(const double Ja[3][6], const double Jb[3][6], int k, const double *Va, const double *Vb) {
    double jv = 0.0;
    FOREST_UNROLL for (int e = 0; e < 3; ++e) {
        int c = BALL_NZ[k][e];
        jv += Ja[k][c] * Va[c] + Jb[k][c] * Vb[c];
    }
    return jv;
}

/* row_residual of a ball without cut rows (below): ball_row_jv for ctn_dd_row_jv. Inlined into the
 * right-hand side's walk, where the factor's s->pass says which joint nodes are such balls. */
FOREST_INLINE void ball_residual(const ctn_world *w, const direct_state *s, const ctn_block *blk, int slot, double *r) {
    const ctn_joint_core *d = &w->topo.defs[slot];
    double Ja[3][6], Jb[3][6], Va[6], Vb[6];
    const float *lam = &w->topo.lambda[w->topo.stride * slot];
    ball_jacobian(blk, 0, Ja);
    ball_jacobian(blk, 1, Jb);
    if (s->resolve) {
        const float *lam0 = &s->lref[w->topo.stride * slot];
        ctn_dd_vel_change(ctn_load_vel(w->vel, d->a), ctn_load_vel(s->vref, d->a), Va);
        ctn_dd_vel_change(ctn_load_vel(w->vel, d->b), ctn_load_vel(s->vref, d->b), Vb);
        for (int k = 0; k < 3; ++k) r[k] = -ball_row_jv(Ja, Jb, k, Va, Vb) - (double)blk->soft[k] * ((double)lam[k] - lam0[k]);
    } else {
        ctn_dd_vel(ctn_load_vel(w->vel, d->a), Va);
        ctn_dd_vel(ctn_load_vel(w->vel, d->b), Vb);
        for (int k = 0; k < 3; ++k) r[k] = (double)blk->bias[k] - ball_row_jv(Ja, Jb, k, Va, Vb) - (double)blk->soft[k] * lam[k];
    }
}

/* r = target - J v - S lambda of one joint, in double (a re-solve: its change since the last solve, (R) of
 * kernels/ctn_direct_rhs.h); 0 on its cut rows (all of them for a whole cut). A ball without cut rows takes
 * ball_residual. */
static void row_residual(const ctn_world *w, const direct_state *s, const ctn_block *blk, int slot, double *r) {
    const ctn_joint_core *d = &w->topo.defs[slot];
    if (cut_whole(w, s, slot)) return; /* r stays 0 */
    if (ball_coupling(s, blk, slot)) {
        ball_residual(w, s, blk, slot, r);
        return;
    }
    if (s->resolve)
        ctn_dd_row_change(blk, ctn_load_vel(w->vel, d->a), ctn_load_vel(w->vel, d->b), ctn_load_vel(s->vref, d->a),
                          ctn_load_vel(s->vref, d->b), &w->topo.lambda[w->topo.stride * slot], &s->lref[w->topo.stride * slot], r);
    else
        ctn_dd_row_residual(blk, ctn_load_vel(w->vel, d->a), ctn_load_vel(w->vel, d->b), &w->topo.lambda[w->topo.stride * slot], r);
    ctn_dd_zero_cut(s->cut[slot], ctn_block_rows(blk), r);
}

/* Right-hand side of (2) from the current velocities and impulses: 0 on body DOFs, r on joint rows. */
static void direct_rhs(const ctn_world *w, direct_state *s, const ctn_block *blocks) {
    for (int i = 0; i < s->node_count; ++i) {
        double *b = s->b + s->vec_off[i];
        int N = s->size[i];
        if (N == 6) /* a rigid body without attached rows: six stores, not a call */
            b[0] = b[1] = b[2] = b[3] = b[4] = b[5] = 0.0;
        else if (N == 3)
            b[0] = b[1] = b[2] = 0.0;
        else
            memset(b, 0, (size_t)N * sizeof *b);
        if (s->kind[i] == NODE_JOINT) { /* a ball's rows, none cut, as the factor found them (s->pass) */
            int slot = s->id[i];
            if (s->pass[i] & PASS_OWN_BALL) ball_residual(w, s, &blocks[slot], slot, b);
            else row_residual(w, s, &blocks[slot], slot, b);
            continue;
        }
        for (int e = s->att_off[i]; e < s->att_off[i + 1]; ++e) {
            int slot = s->att[e];
            row_residual(w, s, &blocks[slot], slot, b + s->slot_row[slot]);
        }
    }
}

/* u = D b of an N x N block (the dense loop, its size a constant in the common cases so that it unrolls). */
static inline void dense_mv(const double *D, int N, const double *b, double *u) {
    for (int r = 0; r < N; ++r) {
        double acc = 0.0;
        for (int c = 0; c < N; ++c) acc += D[r * N + c] * b[c];
        u[r] = acc;
    }
}
/* dense_mv of a block-diagonal 6x6 inverse (spd_inverse6 split it): the off-diagonal blocks are +0, so the
 * terms through them add nothing and the diagonal blocks' terms keep their order. */
static inline void split_mv(const double *D, const double *b, double *u) {
    FOREST_UNROLL for (int r = 0; r < 6; ++r) {
        int c0 = r < 3 ? 0 : 3;
        double acc = 0.0;
        FOREST_UNROLL for (int c = c0; c < c0 + 3; ++c) acc += D[r * 6 + c] * b[c];
        u[r] = acc;
    }
}
static inline void split_mv_sub(const double *D, const double *g, double *x) {
    FOREST_UNROLL for (int r = 0; r < 6; ++r) {
        int c0 = r < 3 ? 0 : 3;
        double acc = 0.0;
        FOREST_UNROLL for (int k = c0; k < c0 + 3; ++k) acc += D[r * 6 + k] * g[k];
        x[r] -= acc;
    }
}

static void node_mv(const double *D, int N, const double *b, double *u) {
    if (N == 6) dense_mv(D, 6, b, u);
    else if (N == 3) dense_mv(D, 3, b, u);
    else dense_mv(D, N, b, u);
}

/* x -= D g of the first gn columns of an N x N block (stride N). */
static inline void dense_mv_sub(const double *D, int N, int gn, const double *g, double *x) {
    for (int r = 0; r < N; ++r) {
        double acc = 0.0;
        for (int k = 0; k < gn; ++k) acc += D[r * N + k] * g[k];
        x[r] -= acc;
    }
}
static void node_mv_sub(const double *D, int N, int gn, const double *g, double *x) {
    if (N == 6 && gn == 6) dense_mv_sub(D, 6, 6, g, x);
    else if (N == 3 && gn == 3) dense_mv_sub(D, 3, 3, g, x);
    else dense_mv_sub(D, N, gn, g, x);
}

#if defined(__SSE2__)
/* The node inverses that node_inverse forms itself (a rigid body's 6x6 through spd_inverse6, split or not; a
 * ball joint's 3x3) are symmetric to the bit: spd_inverse_tol's last loop stores each s at a[i][j] and a[j][i],
 * and the joint's negation runs over the whole block. So row r's entries D[r][c] are read as D[c][r], where two
 * rows' entries of column c lie side by side, and two rows of D b go through SSE2 lanes at once: lane by lane
 * the dense loop's 0.0 + D[r][0] b[0] + ... + D[r][n-1] b[n-1] in ascending c (-ffp-contract=off: no fused
 * multiply-adds), so the same bits; a row left over (n = 3) takes the scalar loop. sym_pairs: the pairs of rows
 * (r0, r0 + 1), ... of an n x n diagonal block at D with row stride lda (its entry (r, c) at D[r * lda + c]). */
FOREST_INLINE void sym_pairs(const double *D, const int lda, const int n, const int pairs, const double *b, __m128d acc[3]) {
    FOREST_UNROLL for (int k = 0; k < pairs; ++k) acc[k] = _mm_setzero_pd();
    FOREST_UNROLL for (int c = 0; c < n; ++c) {
        __m128d bc = _mm_set1_pd(b[c]);
        FOREST_UNROLL for (int k = 0; k < pairs; ++k) acc[k] = _mm_add_pd(acc[k], _mm_mul_pd(_mm_loadu_pd(D + c * lda + 2 * k), bc));
    }
}
/* the scalar row r of an n x n block at D (stride lda): the dense loop's sum */
FOREST_INLINE double sym_row(const double *D, const int lda, const int n, const int r, const double *b) {
    double acc = 0.0;
    FOREST_UNROLL for (int c = 0; c < n; ++c) acc += D[r * lda + c] * b[c];
    return acc;
}
/* u = D b (sub = 0) or x -= D b (sub = 1) of a symmetric 6x6 node inverse */
FOREST_INLINE void sym6_mv(const double *D, const double *b, double *u, const int sub) {
    __m128d acc[3];
    sym_pairs(D, 6, 6, 3, b, acc);
    FOREST_UNROLL for (int k = 0; k < 3; ++k)
        _mm_storeu_pd(u + 2 * k, sub ? _mm_sub_pd(_mm_loadu_pd(u + 2 * k), acc[k]) : acc[k]);
}
/* the same for a symmetric 3x3 block at D, stride lda (a ball joint's inverse; a split body's diagonal blocks) */
FOREST_INLINE void sym3_mv(const double *D, const int lda, const double *b, double *u, const int sub) {
    __m128d acc[3];
    sym_pairs(D, lda, 3, 1, b, acc);
    double u2 = sym_row(D, lda, 3, 2, b);
    _mm_storeu_pd(u, sub ? _mm_sub_pd(_mm_loadu_pd(u), acc[0]) : acc[0]);
    u[2] = sub ? u[2] - u2 : u2;
}
#endif

/* D b (sub = 0: u = D b; sub = 1: u -= D b, b's first gn entries) of node i's inverse: the symmetric ones that node_inverse forms in
 * lanes (split: spd_inverse6's two diagonal blocks, whose off-diagonal blocks are +0 and add nothing), else the
 * dense loops. */
FOREST_INLINE void node_inverse_mv(const double *D, int N, int d, int gn, int split, const double *b, double *u, const int sub) {
#if defined(__SSE2__)
    if (split) {
        sym3_mv(D, 6, b, u, sub);
        sym3_mv(D + 21, 6, b + 3, u + 3, sub);
        return;
    }
    if (N == 6 && d == 6) {
        sym6_mv(D, b, u, sub);
        return;
    }
    if (N == 3 && d == 0) {
        sym3_mv(D, 3, b, u, sub);
        return;
    }
#endif
    if (sub) {
        if (split && gn == 6) split_mv_sub(D, b, u);
        else node_mv_sub(D, N, gn, b, u);
    } else {
        if (split) split_mv(D, b, u);
        else node_mv(D, N, b, u);
    }
}

/* The four products of a ball coupling in the substitution, for a side known at compile time (the callers
 * branch on it): ball_jacobian's sg = +-1 then folds into the products (sg x and -(q) u are exact negations,
 * and a - (-b) is a + b), so J is three conversions of the lever arm, not its products with sg. */
/* forward, body child: b_rows -= J_sc u_c */
FOREST_INLINE void ball_fwd_body(const ctn_block *blk, const int side, const double *u, double *bp) {
    double B[3][6];
    ball_jacobian(blk, side, B);
    /* u and bp read into locals and bp stored once: through the pointers (which could alias, for all the compiler
     * knows) every subtraction was stored and u read again; the operations are the same */
    double uc[6], y[3];
    FOREST_UNROLL for (int k = 0; k < 6; ++k) uc[k] = u[k];
    FOREST_UNROLL for (int r = 0; r < 3; ++r) y[r] = bp[r];
    FOREST_UNROLL for (int r = 0; r < 3; ++r)
        FOREST_UNROLL for (int e = 0; e < 3; ++e) y[r] -= B[r][BALL_NZ[r][e]] * uc[BALL_NZ[r][e]];
    FOREST_UNROLL for (int r = 0; r < 3; ++r) bp[r] = y[r];
}
/* forward, joint node below a rigid body: b_p -= J_sp^T u_s */
FOREST_INLINE void ball_fwd_joint(const ctn_block *blk, const int side, const double *u, double *bp) {
    double B[3][6];
    ball_jacobian(blk, side, B);
    double uc[3], y[6]; /* as ball_fwd_body: locals, bp stored once */
    FOREST_UNROLL for (int r = 0; r < 3; ++r) uc[r] = u[r];
    FOREST_UNROLL for (int k = 0; k < 6; ++k) y[k] = bp[k];
    FOREST_UNROLL for (int r = 0; r < 3; ++r)
        FOREST_UNROLL for (int e = 0; e < 3; ++e) y[BALL_NZ[r][e]] -= B[r][BALL_NZ[r][e]] * uc[r];
    FOREST_UNROLL for (int k = 0; k < 6; ++k) bp[k] = y[k];
}
/* backward, body child: g = J_sc^T y_s */
FOREST_INLINE void ball_bwd_body(const ctn_block *blk, const int side, const double *xp, double *g) {
    double B[3][6];
    ball_jacobian(blk, side, B);
    FOREST_UNROLL for (int k = 0; k < 6; ++k) {
        double acc = 0.0;
        FOREST_UNROLL for (int e = 0; e < 2; ++e) {
            int r = BALL_NZ_COL[k][e];
            if (r >= 0) acc += B[r][k] * xp[r];
        }
        g[k] = acc;
    }
}
/* backward, joint node: g = J_sp dv_p */
FOREST_INLINE void ball_bwd_joint(const ctn_block *blk, const int side, const double *xp, double *g) {
    double B[3][6];
    ball_jacobian(blk, side, B);
    FOREST_UNROLL for (int r = 0; r < 3; ++r) {
        double acc = 0.0;
        FOREST_UNROLL for (int e = 0; e < 3; ++e) acc += B[r][BALL_NZ[r][e]] * xp[BALL_NZ[r][e]];
        g[r] = acc;
    }
}

/* Forward and backward substitution through the factor: x = H^-1 b (b is consumed). Ball couplings of rigid
 * bodies take their J's nonzero entries only (ball_jacobian: the same bits). Both passes read how each node
 * couples to its parent from the factor (s->pass) instead of asking the cut masks and the rows again. */
void ctn__forest_substitute(const ctn_world *w, direct_state *s, const ctn_block *blocks) {
    const ctn_topology *t = &w->topo;
    /* the node arrays, read into locals once: the stores through double pointers below would otherwise have
     * them loaded from s again at every node */
    const unsigned char *const kind = s->kind, *const size = s->size, *const dof = s->dof, *const side = s->side;
    const unsigned char *const prow = s->prow, *const split = s->split, *const passes = s->pass;
    const int *const parent = s->parent, *const pslot = s->pslot;
    const size_t *const mat_off = s->mat_off, *const vec_off = s->vec_off;
    const double *const mat = s->mat;
    double *const sb = s->b, *const sx = s->x;
    const int nodes = s->node_count;
    double J[CTN_MAX_ROWS][6];
    for (int i = 0; i < nodes; ++i) {
        int N = size[i], pass = passes[i] & PASS_KIND;
        const double *Di = mat + mat_off[i];
        double *b = sb + vec_off[i], *u = sx + vec_off[i];
        node_inverse_mv(Di, N, dof[i], N, split[i], b, u, 0);
        if (pass == PASS_NONE) continue;
        int p = parent[i], slot = pslot[i];
        double *bp = sb + vec_off[p];
        const ctn_block *blk = &blocks[slot];
        if (kind[i] == NODE_BODY) {
            int d = dof[i];
            bp += prow[i];
            if (pass == PASS_BALL) {
                if (side[i]) ball_fwd_body(blk, 1, u, bp);
                else ball_fwd_body(blk, 0, u, bp);
                continue;
            }
            int n = ctn__direct_rows_at(t, slot);
            jacobian_side(s, blk, slot, side[i], J);
            for (int r = 0; r < n; ++r)
                for (int k = 0; k < d; ++k) bp[r] -= J[r][k] * u[k];
        } else {
            int dp = dof[p];
            if (pass == PASS_BALL) {
                if (side[i]) ball_fwd_joint(blk, 1, u, bp);
                else ball_fwd_joint(blk, 0, u, bp);
                continue;
            }
            jacobian_side(s, blk, slot, side[i], J);
            for (int r = 0; r < N; ++r)
                for (int k = 0; k < dp; ++k) bp[k] -= J[r][k] * u[r];
        }
    }
    for (int i = nodes - 1; i >= 0; --i) { /* parents before children */
        int N = size[i], slot = pslot[i], pass = passes[i] & PASS_KIND;
        if (pass == PASS_NONE) continue;
        int p = parent[i];
        const double *Di = mat + mat_off[i];
        double *x = sx + vec_off[i];
        const double *xp = sx + vec_off[p];
        const ctn_block *blk = &blocks[slot];
        double g[CTN_DD_MAX_NODE];
        int gn;
        if (kind[i] == NODE_BODY) {
            /* x_c -= D_c^-1 [J_sc^T y_s; 0] */
            gn = dof[i];
            xp += prow[i];
            if (pass == PASS_BALL) {
                if (side[i]) ball_bwd_body(blk, 1, xp, g);
                else ball_bwd_body(blk, 0, xp, g);
            } else {
                int n = ctn__direct_rows_at(t, slot);
                jacobian_side(s, blk, slot, side[i], J);
                for (int k = 0; k < gn; ++k) {
                    double acc = 0.0;
                    for (int r = 0; r < n; ++r) acc += J[r][k] * xp[r];
                    g[k] = acc;
                }
            }
        } else {
            /* x_s -= D_s^-1 J_sp dv_p */
            int dp = dof[p];
            gn = N;
            if (pass == PASS_BALL) {
                if (side[i]) ball_bwd_joint(blk, 1, xp, g);
                else ball_bwd_joint(blk, 0, xp, g);
            } else {
                jacobian_side(s, blk, slot, side[i], J);
                for (int r = 0; r < N; ++r) {
                    double acc = 0.0;
                    for (int k = 0; k < dp; ++k) acc += J[r][k] * xp[k];
                    g[r] = acc;
                }
            }
        }
        node_inverse_mv(Di, N, dof[i], gn, split[i], g, x, 1);
    }
}

/* v += dv of the body nodes, lambda += dl = -y of the joint rows. */
static void direct_apply(ctn_world *w, direct_state *s) {
    ctn_topology *t = &w->topo;
    for (int i = 0; i < s->node_count; ++i) {
        const double *x = s->x + s->vec_off[i];
        if (s->kind[i] == NODE_JOINT) {
            int slot = s->id[i], cut = s->cut[slot];
            float *lam = &t->lambda[t->stride * slot];
            if (s->size[i] == 3 && !cut) { /* a ball's rows, none cut */
                FOREST_UNROLL for (int r = 0; r < 3; ++r) lam[r] = (float)((double)lam[r] - x[r]);
                continue;
            }
            for (int r = 0; r < s->size[i]; ++r) /* cut rows: the outer Gauss-Seidel's */
                if (!(cut >> r & 1)) lam[r] = (float)((double)lam[r] - x[r]);
            continue;
        }
        ctn_vel *v = &w->vel[s->id[i]];
        v->v.x = (float)((double)v->v.x + x[0]);
        v->v.y = (float)((double)v->v.y + x[1]);
        v->v.z = (float)((double)v->v.z + x[2]);
        if (s->dof[i] == 6) {
            v->w.x = (float)((double)v->w.x + x[3]);
            v->w.y = (float)((double)v->w.y + x[4]);
            v->w.z = (float)((double)v->w.z + x[5]);
        }
        for (int e = s->att_off[i]; e < s->att_off[i + 1]; ++e) {
            int slot = s->att[e], row0 = s->slot_row[slot];
            for (int r = 0; r < ctn__direct_rows_at(t, slot); ++r)
                if (!(s->cut[slot] >> r & 1)) t->lambda[t->stride * slot + r] = (float)((double)t->lambda[t->stride * slot + r] - x[row0 + r]);
        }
    }
}

void ctn__forest_solve(ctn_world *w, direct_state *s, const ctn_block *blocks) {
    direct_rhs(w, s, blocks);
    ctn__forest_substitute(w, s, blocks);
    direct_apply(w, s);
}
