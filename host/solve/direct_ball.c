/* The lean walks of the chain path (host/solve/direct_chain.c) for ball-jointed chains, CPU only: the factor walk
 * (ctn__chain_factor_ball) that forms each position in registers and factors and substitutes forward at once,
 * the back-substitution with the impulses and the velocity changes or a chord step's pose moves
 * (ctn__chain_backward_ball), and a solve from rest's forward substitution (ctn__chain_forward_ball_rest). Each
 * is compiled for the two storages of the rows (ch_rows of direct_chain_internal.h): the 288-byte ctn_block and
 * the 40-byte ctn_ball_row record. The same operations in the same order as the generic walks of
 * direct_chain.c (assemble_position, rhs_position, apply_body and the node steps of kernels/ctn_direct.h, which
 * the OpenCL backend runs), so the same bits; tests/test_direct_chain.c (ball_walk_bitwise) compares them byte
 * for byte. Where a position is not a ball joint, and at a segment's last position, the factor walk hands the
 * rest of the segment to the generic walk (ctn__chain_factor_walk_3). */
#include "solve/direct_chain_internal.h"
#include "solve/quat_turn.h"

#include <stddef.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- the factor walk of a ball-jointed chain -------------------------------------------------------
 * The common case (every position three world-axis rows, none cut, at most two segments: no spike) takes
 * a walk of its own that forms each position's pivot, coupling and right-hand side in registers, factors
 * and substitutes forward at once, and stores only what the later walks read: P^-1 in K (the ball records' in
 * float, Kf: only the later solves read it, direct_chain_internal.h), T_E = P^-1 E in C, u = P^-1 y in y. Per
 * position (a body shared by two joints, both rotating):
 *     K_q = sum_b (im_b I3 - [r_b]x I_b [r_b]x) + S + floor,  E = s (im I3 - [r_p]x I [r_q]x)   (lever arms),
 *     T_E = P^-1 E,   K_q -= E^T T_E,   u_p = P^-1 y_p,   y_q -= T_E^T y_p,
 * the same operations in the same order as assemble_position, rhs_position, ctn_dd_chain_factor_node and
 * ctn_dd_chain_forward_node, so the same bits; B = I [r]x of the body a position shares with the one
 * before it is formed once for its pivot and the coupling (ctn_dd_lever_b). A position that is not a ball
 * joint hands the rest of the segment to the generic walk (factor_walk) with the state it would have left. */
typedef struct ball_node {
    double K[6]; /* pivot, lower triangle by rows: (0,0) (1,0) (1,1) (2,0) (2,1) (2,2) */
    double y[3]; /* right-hand side */
} ball_node;

/* The body a position shares with the one before it in sequence order, as the coupling between the two
 * needs it: B = ctn_dd_lever_b of its arm in the later position (if rot), inverse mass. Formed by that
 * position's assembly, read by the coupling's: walking down right after, walking up one step later (before
 * the next assembly overwrites it). */
typedef struct ball_shared {
    double B[9], im;
    int rot;
} ball_shared;

/* Position p takes the lean walk: its rows are the world axes to the bit (so ctn_dd_rows_axes; and the
 * products of the right-hand side with the directions' entries are those of the constants 1.0 and +0.0) and
 * none is cut (cut_of). */
static inline int ball_ok(const direct_chain *c, ch_rows blocks, int rec, int p) {
    if (rec) return 1; /* a ball record: the world axes, unbounded */
    int slot = c->slot[p];
    const ctn_block *b = &blocks.blk[slot];
    if (b->n_lin != 3 || b->n_ang != 0 || memcmp(b->dir, ball_axes, sizeof ball_axes) != 0) return 0;
    int cut = 0;
#if defined(__GNUC__)
    typedef float cf_v4f __attribute__((vector_size(16)));
    typedef int cf_v4i __attribute__((vector_size(16)));
    cf_v4f lo, hi; /* rows 0..3 of the bounds (CTN_MAX_ROWS >= 4), the four compares at once */
    memcpy(&lo, b->lo, sizeof lo), memcpy(&hi, b->hi, sizeof hi);
    cf_v4i m = (lo > -0.5f * CTN_INF) | (hi < 0.5f * CTN_INF);
    cut = (m[0] & 1) | (m[1] & 2) | (m[2] & 4);
#else
    for (int k = 0; k < 3; ++k) cut |= ((b->lo[k] > -0.5f * CTN_INF) | (b->hi[k] < 0.5f * CTN_INF)) << k;
#endif
    return (cut & ~(c->keep ? c->keep[slot] : 0)) == 0;
}

/* s = 0; s += a0 b0; s += a1 b1; s += a2 b2: the dot product of the node steps' loops, term by term. */
#define BALL_DOT(a0, b0, a1, b1, a2, b2) (((0.0 + (a0) * (b0)) + (a1) * (b1)) + (a2) * (b2))

/* W += im I3 - [r]x I [r]x of body b (lower triangle); save: b is shared with the position before, keep B. */
static inline void ball_lever(const ctn_world *w, int b, int rot, ctn_v3 r, int save, ball_shared *sh, double *W) {
    double im = w->inertia[b].inv_mass, B[9];
    W[0] += im, W[4] += im, W[8] += im;
    if (save) sh->im = im, sh->rot = rot;
    if (!rot) return;
    ctn_dd_lever_b(w->inertia[b].inv_inertia, r, B);
    ctn_dd_lever_sub(r, B, 1, W);
    if (save) memcpy(sh->B, B, sizeof B);
}

#if defined(__GNUC__)
/* ball_lever of a joint's two bodies a and b, both rotating, in two lanes of GCC/clang vector extensions
 * (SSE2 on x86-64, NEON on AArch64): lane 0 body a, lane 1 body b, B = I [r]x and the terms of W -= [r]x B
 * each with ctn_dd_lever_b's and ctn_dd_lever_sub's operations in its lane; W is then summed as the scalar
 * calls sum it, body a first: W_d = (((0 + im_a) - t_a) + im_b) - t_b on the diagonal, (0 - t_a) - t_b off
 * it. Per lane IEEE operations are the scalar ones: the same bits. */
typedef double cf_v2d __attribute__((vector_size(16)));
static inline void ball_lever2(const ctn_world *w, int a, int b, ctn_v3 ra, ctn_v3 rb, int sh, ball_shared *shd, double *W) {
    double ima = w->inertia[a].inv_mass, imb = w->inertia[b].inv_mass;
    const ctn_sym3 *Ia = &w->inertia[a].inv_inertia, *Ib = &w->inertia[b].inv_inertia;
    cf_v2d XX = {Ia->xx, Ib->xx}, YY = {Ia->yy, Ib->yy}, ZZ = {Ia->zz, Ib->zz}, XY = {Ia->xy, Ib->xy}, XZ = {Ia->xz, Ib->xz},
           YZ = {Ia->yz, Ib->yz};
    cf_v2d QX = {ra.x, rb.x}, QY = {ra.y, rb.y}, QZ = {ra.z, rb.z};
    cf_v2d B0 = XY * QZ - XZ * QY, B1 = XZ * QX - XX * QZ, B2 = XX * QY - XY * QX; /* ctn_dd_lever_b */
    cf_v2d B3 = YY * QZ - YZ * QY, B4 = YZ * QX - XY * QZ, B5 = XY * QY - YY * QX;
    cf_v2d B6 = YZ * QZ - ZZ * QY, B7 = ZZ * QX - XZ * QZ;
    cf_v2d T0 = QY * B6 - QZ * B3, T3 = QZ * B0 - QX * B6, T6 = QX * B3 - QY * B0; /* ctn_dd_lever_sub, sym */
    cf_v2d T4 = QZ * B1 - QX * B7, T7 = QX * B4 - QY * B1, T8 = QX * B5 - QY * B2;
    W[0] = (((0.0 + ima) - T0[0]) + imb) - T0[1];
    W[4] = (((0.0 + ima) - T4[0]) + imb) - T4[1];
    W[8] = (((0.0 + ima) - T8[0]) + imb) - T8[1];
    W[3] = (0.0 - T3[0]) - T3[1];
    W[6] = (0.0 - T6[0]) - T6[1];
    W[7] = (0.0 - T7[0]) - T7[1];
    if (sh < 0) return;
    cf_v2d B8 = XZ * QY - YZ * QX;
    double *o = shd->B;
    shd->im = sh ? imb : ima, shd->rot = 1;
    o[0] = B0[sh], o[1] = B1[sh], o[2] = B2[sh], o[3] = B3[sh], o[4] = B4[sh], o[5] = B5[sh], o[6] = B6[sh], o[7] = B7[sh], o[8] = B8[sh];
}
#endif

/* ctn_dd_vel of ctn_load_vel(w->vel, b), read in place (zero for the world). */
static inline void ball_vel(const ctn_world *w, int b, double *V) {
    if (b < 0) {
        V[0] = V[1] = V[2] = V[3] = V[4] = V[5] = 0.0;
        return;
    }
    const ctn_vel *v = &w->vel[b];
    V[0] = v->v.x, V[1] = v->v.y, V[2] = v->v.z, V[3] = v->w.x, V[4] = v->w.y, V[5] = v->w.z;
}

/* K_x and r_x of ball position x (assemble_position's lever-arm pivot; rhs_position: ctn_dd_chain_rhs), marked
 * uncut, and with the world axes on blocks (on records, rec, the walks take those without reading: AXES_AT of
 * direct_chain.c). zero (a constant of each instance): the state at rest of c->zero, whose velocities and impulses are read
 * as the zeros they are (ball_vel of the world: +0). */
static inline void ball_assemble(const ctn_world *w, direct_chain *c, ch_rows blocks, int rec, int x, ball_node *nd, ball_shared *shd,
                                 int zero) {
    int slot = c->slot[x], dyn = c->dyn[x], sh = x > 0 && c->shared[x - 1] >= 0 ? (c->side[x - 1] >> 1) & 1 : -1;
    ctn_v3 ra = BR_RA(blocks, rec, slot), rb = BR_RB(blocks, rec, slot);
    const float *bias = BR_BIAS(blocks, rec, slot);
    double s0 = (double)BR_SOFT(blocks, rec, slot, 0), s1 = (double)BR_SOFT(blocks, rec, slot, 1), s2 = (double)BR_SOFT(blocks, rec, slot, 2);
    const ctn_joint_core *d = &w->topo.defs[slot];
    double W[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    c->cut[slot] = 0;
    if (!rec) c->axes[x] = 1; /* on records every position's (AXES_AT): not written. The cut mark stays: without
                               * its store GCC keeps more of the walk's values live and spills, about 4.5
                               * instructions a position more (bench/results/2026-11-30-vm-lazy-adj.md) */
#if defined(__GNUC__)
    if ((dyn & (DYN_A | DYN_B | ROT_A | ROT_B)) == (DYN_A | DYN_B | ROT_A | ROT_B)) ball_lever2(w, d->a, d->b, ra, rb, sh, shd, W);
    else
#endif
    {
        if (dyn & DYN_A) ball_lever(w, d->a, dyn & ROT_A, ra, sh == 0, shd, W);
        if (dyn & DYN_B) ball_lever(w, d->b, dyn & ROT_B, rb, sh == 1, shd, W);
    }
    nd->K[0] = W[0] + (s0 + CTN_DD_FLOOR * W[0]);
    nd->K[1] = W[3];
    nd->K[2] = W[4] + (s1 + CTN_DD_FLOOR * W[4]);
    nd->K[3] = W[6];
    nd->K[4] = W[7];
    nd->K[5] = W[8] + (s2 + CTN_DD_FLOOR * W[8]);
    double Va[6], Vb[6], u[3], dw[3];
    const float *lam = zero ? chain_rest_lambda : &w->topo.lambda[w->topo.stride * slot];
    ball_vel(w, zero ? -1 : d->a, Va);
    ball_vel(w, zero ? -1 : d->b, Vb);
    ctn_dd_anchor_rel_arms(ra, rb, Va, Vb, u, dw);
    /* d_k . u with d_k the k-th axis (ball_ok): 1.0 * u_k is u_k, the products with +0.0 stay (signed zeros, NaN) */
    nd->y[0] = (double)bias[0] - ((u[0] + 0.0 * u[1]) + 0.0 * u[2]) - s0 * lam[0];
    nd->y[1] = (double)bias[1] - ((0.0 * u[0] + u[1]) + 0.0 * u[2]) - s1 * lam[1];
    nd->y[2] = (double)bias[2] - ((0.0 * u[0] + 0.0 * u[1]) + u[2]) - s2 * lam[2];
}

/* E = A_{p,q} (E[3 k + j]: row k of p, column j of q) through the body p and q share: C_lo (rows of lo, columns
 * of lo + 1; lo = p walking down, q walking up) of assemble_position; hi: the shared body as lo + 1 formed it. */
static inline void ball_coupling(const direct_chain *c, ch_rows blocks, int rec, int lo, const ball_shared *hi, int dir, double *E) {
    double W[9] = {0.0 + hi->im, 0, 0, 0, 0.0 + hi->im, 0, 0, 0, 0.0 + hi->im}, sg = 0.0;
    if (c->shared[lo] < 0) {
        for (int e = 0; e < 9; ++e) W[e] = 0.0;
    } else {
        int sp = c->side[lo] & 1, ps = (c->side[lo] >> 1) & 1;
        int sl = c->slot[lo];
        sg = (sp ? -1.0 : 1.0) * (ps ? -1.0 : 1.0);
        if (hi->rot) ctn_dd_lever_sub(sp ? BR_RB(blocks, rec, sl) : BR_RA(blocks, rec, sl), hi->B, 0, W);
    }
    if (c->shared[lo] < 0) {
        E[0] = E[1] = E[2] = E[3] = E[4] = E[5] = E[6] = E[7] = E[8] = 0.0;
    } else if (dir > 0) {
        E[0] = sg * W[0], E[1] = sg * W[1], E[2] = sg * W[2], E[3] = sg * W[3], E[4] = sg * W[4];
        E[5] = sg * W[5], E[6] = sg * W[6], E[7] = sg * W[7], E[8] = sg * W[8];
    } else {
        E[0] = sg * W[0], E[1] = sg * W[3], E[2] = sg * W[6], E[3] = sg * W[1], E[4] = sg * W[4];
        E[5] = sg * W[7], E[6] = sg * W[2], E[7] = sg * W[5], E[8] = sg * W[8];
    }
}

/* Factor and forward step of interior node p (next nx; E = A_{p,q}; lo = min(p, q)): P^-1 into K_p, T_E into
 * C_lo where the coupling was (transposed walking up), u_p into y_p; K_q -= E^T T_E (lower), y_q -= T_E^T y_p.
 * P^-1 is symmetric (both inverses write each off-diagonal entry twice from one value): its six entries. */
static inline void ball_step(direct_chain *c, int rec, int p, int lo, int dir, const ball_node *cur, const double *E, ball_node *nx) {
    const double *k = cur->K;
    double o[6];
    if (!ctn_dd_inverse3_closed(k[0], k[1], k[3], k[2], k[4], k[5], o)) {
        double P[9] = {k[0], k[1], k[3], k[1], k[2], k[4], k[3], k[4], k[5]};
        ctn_dd_spd_inverse_g(P, 3, 3);
        o[0] = P[0], o[1] = P[3], o[2] = P[4], o[3] = P[6], o[4] = P[7], o[5] = P[8];
    }
    double p00 = o[0], p10 = o[1], p11 = o[2], p20 = o[3], p21 = o[4], p22 = o[5];
    double e0 = E[0], e1 = E[1], e2 = E[2], e3 = E[3], e4 = E[4], e5 = E[5], e6 = E[6], e7 = E[7], e8 = E[8];
    double *Cm = c->C + 9 * (size_t)lo, *y = c->y + 3 * (size_t)p;
    if (rec) { /* ball records: P^-1 in float (c->Kf), which only later solves read; this one substitutes with it in double */
        float *Kp = c->Kf + 6 * (size_t)p;
        Kp[0] = (float)p00, Kp[1] = (float)p10, Kp[2] = (float)p11, Kp[3] = (float)p20, Kp[4] = (float)p21, Kp[5] = (float)p22;
    } else {
        double *Kp = c->K + 6 * (size_t)p;
        Kp[0] = p00, Kp[1] = p10, Kp[2] = p11, Kp[3] = p20, Kp[4] = p21, Kp[5] = p22; /* the lower triangle (k_store) */
    }
    double v0 = cur->y[0], v1 = cur->y[1], v2 = cur->y[2];
#if defined(__GNUC__)
    /* Columns 0 and 1 of T_E (rows 0 and 1 of u_p, y_q, K_q's rows 1 and 2) in two lanes, each lane the
     * scalar dot product's operations: the same bits. */
    const cf_v2d Z = {0.0, 0.0}, E01 = {e0, e1}, E34 = {e3, e4}, E67 = {e6, e7};
#define CF_S(x) ((cf_v2d){(x), (x)})
    cf_v2d T01 = ((Z + CF_S(p00) * E01) + CF_S(p10) * E34) + CF_S(p20) * E67;
    cf_v2d T34 = ((Z + CF_S(p10) * E01) + CF_S(p11) * E34) + CF_S(p21) * E67;
    cf_v2d T67 = ((Z + CF_S(p20) * E01) + CF_S(p21) * E34) + CF_S(p22) * E67;
    double t0 = T01[0], t1 = T01[1], t3 = T34[0], t4 = T34[1], t6 = T67[0], t7 = T67[1];
    double t2 = BALL_DOT(p00, e2, p10, e5, p20, e8), t5 = BALL_DOT(p10, e2, p11, e5, p21, e8), t8 = BALL_DOT(p20, e2, p21, e5, p22, e8);
    cf_v2d S12 = ((Z + CF_S(e1) * T01) + CF_S(e4) * T34) + CF_S(e7) * T67; /* K_q (1,0) (1,1) */
    cf_v2d S34 = ((Z + CF_S(e2) * T01) + CF_S(e5) * T34) + CF_S(e8) * T67; /* K_q (2,0) (2,1) */
    nx->K[0] -= BALL_DOT(e0, t0, e3, t3, e6, t6);
    nx->K[1] -= S12[0], nx->K[2] -= S12[1];
    nx->K[3] -= S34[0], nx->K[4] -= S34[1];
    nx->K[5] -= BALL_DOT(e2, t2, e5, t5, e8, t8);
    if (dir > 0) {
        memcpy(Cm, &T01, sizeof T01), Cm[2] = t2;
        memcpy(Cm + 3, &T34, sizeof T34), Cm[5] = t5;
        memcpy(Cm + 6, &T67, sizeof T67), Cm[8] = t8;
    } else {
        Cm[0] = t0, Cm[1] = t3, Cm[2] = t6, Cm[3] = t1, Cm[4] = t4, Cm[5] = t7, Cm[6] = t2, Cm[7] = t5, Cm[8] = t8;
    }
    cf_v2d U01 = ((Z + (cf_v2d){p00, p10} * CF_S(v0)) + (cf_v2d){p10, p11} * CF_S(v1)) + (cf_v2d){p20, p21} * CF_S(v2); /* u_p = P^-1 y_p */
    memcpy(y, &U01, sizeof U01);
    y[2] = BALL_DOT(p20, v0, p21, v1, p22, v2);
    cf_v2d Q01 = ((Z + T01 * CF_S(v0)) + T34 * CF_S(v1)) + T67 * CF_S(v2); /* y_q -= T_E^T y_p */
    nx->y[0] -= Q01[0], nx->y[1] -= Q01[1];
    nx->y[2] -= BALL_DOT(t2, v0, t5, v1, t8, v2);
#undef CF_S
#else
    double t0 = BALL_DOT(p00, e0, p10, e3, p20, e6), t1 = BALL_DOT(p00, e1, p10, e4, p20, e7), t2 = BALL_DOT(p00, e2, p10, e5, p20, e8);
    double t3 = BALL_DOT(p10, e0, p11, e3, p21, e6), t4 = BALL_DOT(p10, e1, p11, e4, p21, e7), t5 = BALL_DOT(p10, e2, p11, e5, p21, e8);
    double t6 = BALL_DOT(p20, e0, p21, e3, p22, e6), t7 = BALL_DOT(p20, e1, p21, e4, p22, e7), t8 = BALL_DOT(p20, e2, p21, e5, p22, e8);
    nx->K[0] -= BALL_DOT(e0, t0, e3, t3, e6, t6); /* K_q -= E^T T_E, lower triangle by rows */
    nx->K[1] -= BALL_DOT(e1, t0, e4, t3, e7, t6);
    nx->K[2] -= BALL_DOT(e1, t1, e4, t4, e7, t7);
    nx->K[3] -= BALL_DOT(e2, t0, e5, t3, e8, t6);
    nx->K[4] -= BALL_DOT(e2, t1, e5, t4, e8, t7);
    nx->K[5] -= BALL_DOT(e2, t2, e5, t5, e8, t8);
    if (dir > 0) Cm[0] = t0, Cm[1] = t1, Cm[2] = t2, Cm[3] = t3, Cm[4] = t4, Cm[5] = t5, Cm[6] = t6, Cm[7] = t7, Cm[8] = t8;
    else Cm[0] = t0, Cm[1] = t3, Cm[2] = t6, Cm[3] = t1, Cm[4] = t4, Cm[5] = t7, Cm[6] = t2, Cm[7] = t5, Cm[8] = t8;
    y[0] = BALL_DOT(p00, v0, p10, v1, p20, v2); /* u_p = P^-1 y_p */
    y[1] = BALL_DOT(p10, v0, p11, v1, p21, v2);
    y[2] = BALL_DOT(p20, v0, p21, v1, p22, v2);
    nx->y[0] -= BALL_DOT(t0, v0, t3, v1, t6, v2); /* y_q -= T_E^T y_p */
    nx->y[1] -= BALL_DOT(t1, v0, t4, v1, t7, v2);
    nx->y[2] -= BALL_DOT(t2, v0, t5, v1, t8, v2);
#endif
}
#undef BALL_DOT

/* The generic walk from p on, which takes K_p in full (never stored before its factor step: K may be float),
 * expects y_p stored and, walking up with a next position, the coupling C_{p-1} (which assemble_position of p
 * forms, ctn__chain_assemble_3; the pivot it forms again is not read). Not
 * inlined: the lean walk's way out (the last node, or a position that is not a ball joint). Cold: it runs once a
 * segment, so the compiler lays out the walk's loop and gives it the registers first (without it, the walk cost
 * about 5 instructions a link and step more once the generic walk had moved to direct_chain.c; measured). */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
CHAIN_FLATTEN static void ball_leave(const ctn_world *w, direct_chain *c, ch_rows blocks, seg_walk s, chain_segment *g, int p,
                                     ball_node cur) {
    double A[9]; /* the pivot assemble_position forms again: not read (the updated one is cur's) */
    if (s.dir < 0 && (p != s.last || p + s.dir == s.end)) ctn__chain_assemble_3(w, c, blocks, p, A);
    const double *k = cur.K;
    double P[9] = {k[0], k[1], k[3], k[1], k[2], k[4], k[3], k[4], k[5]}; /* K_p in full, as k_full forms it */
    double *y = c->y + 3 * (size_t)p;
    y[0] = cur.y[0], y[1] = cur.y[1], y[2] = cur.y[2];
    ctn__chain_factor_walk_3(w, c, blocks, &s, g, p, P);
}

/* factor_segment of segment k (no spike) as the lean walk above; dir (the segment's) and zero (c->zero): constants per copy. */
static inline void factor_ball_dir(const ctn_world *w, direct_chain *c, ch_rows blocks, int rec, int k, int dir, int zero) {
    seg_walk s = segment_walk(c, k);
    chain_segment *g = &c->seg[k];
    memset(g, 0, sizeof *g);
    if (!ball_ok(c, blocks, rec, s.first)) {
        double P[9];
        ctn__chain_assemble_3(w, c, blocks, s.first, P);
        ctn__chain_rhs_3(w, c, blocks, s.first);
        ctn__chain_factor_walk_3(w, c, blocks, &s, g, s.first, P);
        return;
    }
    ball_node cur, nx;
    ball_shared sh;
    memset(&sh, 0, sizeof sh);
    double E[9];
    ball_assemble(w, c, blocks, rec, s.first, &cur, &sh, zero);
    for (int p = s.first; p != s.last; p += dir) {
        int q = p + dir;
        if (!ball_ok(c, blocks, rec, q)) {
            ball_leave(w, c, blocks, s, g, p, cur);
            return;
        }
        if (dir > 0) {
            ball_assemble(w, c, blocks, rec, q, &nx, &sh, zero);
            ball_coupling(c, blocks, rec, p, &sh, 1, E);
        } else {
            ball_coupling(c, blocks, rec, q, &sh, -1, E);
            ball_assemble(w, c, blocks, rec, q, &nx, &sh, zero);
        }
        ball_step(c, rec, p, dir > 0 ? p : q, dir, &cur, E, &nx);
        cur = nx;
    }
    ball_leave(w, c, blocks, s, g, s.last, cur); /* the last node: to the separator's accumulators, or none */
    g->ball = 1;
}

CHAIN_FLATTEN void ctn__chain_factor_ball(const ctn_world *w, direct_chain *c, ch_rows blocks, int k) {
    int up = k == c->segments - 1 && c->segments > 1;
    if (blocks.ball) up ? factor_ball_dir(w, c, blocks, 1, k, -1, 0) : factor_ball_dir(w, c, blocks, 1, k, 1, 0);
    else up ? factor_ball_dir(w, c, blocks, 0, k, -1, 0) : factor_ball_dir(w, c, blocks, 0, k, 1, 0);
}

/* ctn__chain_factor_ball for the state at rest (c->zero): instances of their own, so that the common ones above compile as
 * they did. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
CHAIN_FLATTEN void ctn__chain_factor_ball_rest(const ctn_world *w, direct_chain *c, ch_rows blocks, int k) {
    int up = k == c->segments - 1 && c->segments > 1;
    if (blocks.ball) up ? factor_ball_dir(w, c, blocks, 1, k, -1, 1) : factor_ball_dir(w, c, blocks, 1, k, 1, 1);
    else up ? factor_ball_dir(w, c, blocks, 0, k, -1, 1) : factor_ball_dir(w, c, blocks, 0, k, 1, 1);
}

/* ---- the walks of a ball-jointed chain (c->ball) -------------------------------------------------------
 * Every position has three rows, the world axes (D = I3), none cut, and the layout has at most two segments,
 * so no spike: per position the math is the node steps and the impulses of two bodies, and these walks do
 * that and nothing else. Offsets are implicit (K_p at 9p, y_p at 3p, C between p and p + 1 at 9p), the walk
 * direction and what the solve writes (lambda, velocities or poses) are compile-time constants of each
 * instance (ball_walk's dir and mode), so the coupling is read in place (C_p transposed walking up) without
 * a run-time transpose flag, and the solution of the previous position stays in registers.
 *
 * Impulses (back-substitution): a body of joint p joins p and at most one neighbour, the position it is
 * shared with. Walking from last to first, the body p shares with the position solved before it (q, or the
 * separator behind the segment's last position) is complete once x_p is known: its velocity change is
 * formed there from x_p and x_q (both in registers) as apply_body forms it, dv = (0 + d_p) + d_q; the body p
 * shares with the position solved after it waits for that position. Each term is formed with the
 * operations of ctn_dd_block_impulse_axes (f = sg x, out += im f, tq = 0 + r x f, out += I tq). */
enum { BW_LAMBDA = 1, BW_MOVE = 2 }; /* lambda += dl (not a solve from rest); a chord step: poses move */

#if defined(__GNUC__)
#define CHAIN_INLINE static inline __attribute__((always_inline))
#else
#define CHAIN_INLINE static inline
#endif

/* out += M^-1 J^T x of one ball joint (rows the world axes) on a body of inverse mass im and world inverse
 * inertia I at lever arm r, side sg (+1 a, -1 b), rot: the body rotates. ctn_dd_block_impulse_axes and
 * ctn_dd_force_add's operations in their order. */
CHAIN_INLINE void ball_impulse(double im, const ctn_sym3 *I, int rot, ctn_v3 r, double sg, double x0, double x1, double x2, double *out) {
    double f0 = sg * x0, f1 = sg * x1, f2 = sg * x2;
    out[0] += im * f0, out[1] += im * f1, out[2] += im * f2;
    if (!rot) return;
    double rx = r.x, ry = r.y, rz = r.z;
    double t0 = 0.0 + (ry * f2 - rz * f1), t1 = 0.0 + (rz * f0 - rx * f2), t2 = 0.0 + (rx * f1 - ry * f0);
    out[3] += I->xx * t0 + I->xy * t1 + I->xz * t2;
    out[4] += I->xy * t0 + I->yy * t1 + I->yz * t2;
    out[5] += I->xz * t0 + I->yz * t1 + I->zz * t2;
}

/* body_finish of a body whose joints are solved: v_b += dv, or for a chord step x_b += h (v_b + dv) with
 * ctn_body_integrate's operations on the pose in place. */
CHAIN_INLINE void ball_finish(ctn_world *w, int b, const double *dv, int mode, float h) {
    ctn_vel v = ctn_dd_vel_add((mode & BW_MOVE) ? chain_rest_vel() : w->vel[b], dv); /* moving: v at rest, +0 */
    if (!(mode & BW_MOVE)) {
        w->vel[b].v = v.v, w->vel[b].w = v.w;
        return;
    }
    chain_move_body(w, b, v, h);
}

/* The sign of side s (0: a, 1: b) in J. */
#define BALL_SG(s) ((s) ? -1.0 : 1.0)

/* The velocity change of body b from joint p alone (x; arm_q NULL) or from p and q (xq), finished; arm_p, arm_q:
 * b's lever arms in the two joints (BR_ARMP), sp, sq: b's sides in them. */
CHAIN_INLINE void ball_apply(ctn_world *w, int b, int rot, const ctn_v3 *arm_p, int sp, double x0, double x1, double x2,
                             const ctn_v3 *arm_q, int sq, double q0, double q1, double q2, int mode, float h) {
    double im = w->inertia[b].inv_mass, dv[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    ctn_sym3 I = w->inertia[b].inv_inertia;
    ball_impulse(im, &I, rot, *arm_p, BALL_SG(sp), x0, x1, x2, dv);
    if (arm_q) ball_impulse(im, &I, rot, *arm_q, BALL_SG(sq), q0, q1, q2, dv);
    ball_finish(w, b, dv, mode, h);
}

#if defined(__GNUC__)
/* The same with GCC/clang vector extensions (two doubles, four floats: SSE2 on x86-64, NEON on AArch64),
 * for a body of two joints, the common case. Lane 0 is joint p's term, lane 1 joint q's, each formed with
 * ball_impulse's operations in its lane; the sum across the lanes is dv = (0 + d_p) + (0 + d_q), equal to
 * (0 + d_p) + d_q (0 + d_p is never -0, so 0 + d_q in place of d_q changes nothing, signed zeros included).
 * The chord step's position update ctn_v3_add2 (Dekker's two-float sum) runs on the three components at
 * once, lane 3 (the next field of the pose) stored nowhere. Per lane IEEE operations are the scalar ones: the same bits. */
typedef double ch_v2d __attribute__((vector_size(16)));
typedef float ch_v4f __attribute__((vector_size(16)));
static const double ball_sg[2] = {1.0, -1.0}; /* BALL_SG as a table: no branch */
#if defined(__SSE2__)
/* lane k of four floats as a pair of doubles (pshufd broadcasts it, cvtps2pd widens the low two: each the exact
 * float-to-double conversion) */
#define BALL_PAIR(v, k) ((ch_v2d)_mm_cvtps_pd(_mm_castsi128_ps(_mm_shuffle_epi32(_mm_castps_si128(v), (k) * 0x55))))
#endif

/* The world's body arrays, read once by the walk (its stores through float and double pointers leave them in
 * registers or on the stack, not reloaded from the world at every position). */
typedef struct ball_bodies {
    ctn_vel *vel;
    ctn_pose *pose;
    const ctn_inertia *inertia;
    float still; /* a chord step: the largest |w|^2 that does not turn a body (ball_still_below) */
    ch_v4f h4;   /* a chord step: the step h in four lanes, broadcast once per walk (a memory operand of the walk's mulps) */
} ball_bodies;

/* ctn_quat_integrate's test, whether a body turns, as a bound on |w|^2: the body turns unless
 * half_angle = (0.5 h) sqrt(|w|^2) is below 1e-20 (|half_angle| is half_angle: h > 0 in a chord step). A
 * correctly rounded square root and a product by the constant 0.5 h > 0 are both non-decreasing, so the
 * half angle is a non-decreasing function of |w|^2 over the finite values, and the |w|^2 that do not turn
 * are exactly those at most the largest such float, found once per walk by bisection over the bit patterns of
 * the non-negative floats (which are ordered as the values). A NaN or infinite |w|^2 is not at most it and
 * turns, as ctn_quat_integrate turns it (a NaN or infinite half angle, or 0 inf = NaN). The same decision
 * for every |w|^2, so the same bits, without the square root and the product on every body's path. */
static int ball_turns_not(float half_h, float w2) { return CTN_FABS(half_h * CTN_SQRT(w2)) < 1e-20f; }
static float ball_still_below(float h) {
    union { float f; unsigned u; } lo = {0.0f}, hi = {0.0f}, mid;
    float half_h = 0.5f * h;
    hi.u = 0x7f7fffffu; /* FLT_MAX */
    if (ball_turns_not(half_h, hi.f)) return hi.f;
    while (hi.u - lo.u > 1u) { /* ball_turns_not(lo) holds, ball_turns_not(hi) does not */
        mid.u = lo.u + (hi.u - lo.u) / 2u;
        if (ball_turns_not(half_h, mid.f)) lo = mid;
        else hi = mid;
    }
    return lo.f;
}

/* ctn_quat_turn out of line for a body that turns (|w|^2 = w2 above ball_still_below): the rare case of a chord
 * step (a chain at rest or hanging), and inlined its registers spill on every position's path. wn and the
 * half angle are ctn_quat_integrate's. */
__attribute__((noinline)) static ctn_quat ball_turn(ctn_quat q, ctn_v3 w, float w2, float h) {
#if defined(__SSE2__)
    /* ctn_length's sqrtf as the instruction alone: (x^2 + y^2) + z^2 is never negative, so sqrtf's errno test
     * (a compare and a branch) never fires */
    float wn = _mm_cvtss_f32(_mm_sqrt_ss(_mm_set1_ps(w2))); /* set1: no zeroing of lanes 1..3, which sqrt_ss leaves */
    ctn_quat r; /* ctn_quat_turn in lanes (host/solve/quat_turn.h), as the body passes take it */
    _mm_storeu_ps(&r.w, quat_turn4(_mm_loadu_ps(&q.w), w, wn, 0.5f * h * wn));
    return r;
#else
    float wn = CTN_SQRT(w2);
    return ctn_quat_turn(q, w, wn, 0.5f * h * wn);
#endif
}

CHAIN_INLINE void ball_apply2(const ball_bodies *w, int b, int rot, const ctn_v3 *arm_p, int sp, double x0, double x1, double x2,
                              const ctn_v3 *arm_q, int sq, double q0, double q1, double q2, int mode, float h) {
    ctn_vel *vb = &w->vel[b];
#if defined(__SSE2__)
    /* The body's record widened from two 16-byte loads, each float broadcast to a pair of doubles (pshufd,
     * cvtps2pd: per lane the scalar conversion), in place of a scalar conversion and an unpack per value:
     * i0 = (xx, yy, zz, xy) from xx, i1 = (xy, xz, yz, inv_mass) from xy, both inside the 28-byte record. */
    const ctn_inertia *rec_b = &w->inertia[b];
    const __m128 i1 = _mm_loadu_ps(&rec_b->inv_inertia.xy);
    const ch_v2d Z = {0.0, 0.0}, IM = BALL_PAIR(i1, 3), SG = {ball_sg[sp], ball_sg[sq]};
#else
    double im = w->inertia[b].inv_mass;
    const ch_v2d Z = {0.0, 0.0}, IM = {im, im}, SG = {ball_sg[sp], ball_sg[sq]};
#endif
    ch_v2d F0 = SG * (ch_v2d){x0, q0}, F1 = SG * (ch_v2d){x1, q1}, F2 = SG * (ch_v2d){x2, q2};
    ch_v2d L0 = Z + IM * F0, L1 = Z + IM * F1, L2 = Z + IM * F2;
    ch_v2d A3 = Z, A4 = Z, A5 = Z;
    if (rot) {
#if defined(__SSE2__)
        /* the two arms from 16-byte loads (an arm's fourth float is the field after it in its record or block):
         * (rp.x, rq.x, rp.y, rq.y) and (rp.z, rq.z, ..) by unpacks, widened a pair at a time */
        const __m128 ap = _mm_loadu_ps(&arm_p->x), aq = _mm_loadu_ps(&arm_q->x), axy = _mm_unpacklo_ps(ap, aq);
        const ch_v2d RX = (ch_v2d)_mm_cvtps_pd(axy), RY = (ch_v2d)_mm_cvtps_pd(_mm_movehl_ps(axy, axy)),
                     RZ = (ch_v2d)_mm_cvtps_pd(_mm_unpackhi_ps(ap, aq));
#else
        ctn_v3 rp = *arm_p, rq = *arm_q;
        ch_v2d RX = {rp.x, rq.x}, RY = {rp.y, rq.y}, RZ = {rp.z, rq.z};
#endif
        ch_v2d T0 = Z + (RY * F2 - RZ * F1), T1 = Z + (RZ * F0 - RX * F2), T2 = Z + (RX * F1 - RY * F0);
#if defined(__SSE2__)
        const __m128 i0 = _mm_loadu_ps(&rec_b->inv_inertia.xx);
        const ch_v2d XX = BALL_PAIR(i0, 0), YY = BALL_PAIR(i0, 1), ZZ = BALL_PAIR(i0, 2), XY = BALL_PAIR(i1, 0), XZ = BALL_PAIR(i1, 1),
                     YZ = BALL_PAIR(i1, 2);
#else
        ctn_sym3 I = w->inertia[b].inv_inertia;
        const ch_v2d XX = {I.xx, I.xx}, XY = {I.xy, I.xy}, XZ = {I.xz, I.xz}, YY = {I.yy, I.yy}, YZ = {I.yz, I.yz}, ZZ = {I.zz, I.zz};
#endif
        A3 = Z + (XX * T0 + XY * T1 + XZ * T2);
        A4 = Z + (XY * T0 + YY * T1 + YZ * T2);
        A5 = Z + (XZ * T0 + YZ * T1 + ZZ * T2);
    }
    /* v + dv of ctn_dd_vel_add, dv = lane 0 + lane 1, two components at a time */
    ch_v2d D01 = (ch_v2d){L0[0], L1[0]} + (ch_v2d){L0[1], L1[1]};
    ch_v2d D25 = (ch_v2d){L2[0], A5[0]} + (ch_v2d){L2[1], A5[1]};
    ch_v2d D34 = (ch_v2d){A3[0], A4[0]} + (ch_v2d){A3[1], A4[1]};
    if (!(mode & BW_MOVE)) {
        ch_v2d V01 = (ch_v2d){vb->v.x, vb->v.y} + D01, W34 = (ch_v2d){vb->w.x, vb->w.y} + D34;
        ch_v2d VW = (ch_v2d){vb->v.z, vb->w.z} + D25;
        vb->v.x = (float)V01[0], vb->v.y = (float)V01[1], vb->v.z = (float)VW[0];
        vb->w.x = (float)W34[0], vb->w.y = (float)W34[1], vb->w.z = (float)VW[1];
        return;
    }
    /* A chord step: v is the scratch velocity, +0 (PROJECT_REST, which the right-hand side from the targets
     * alone assumes too), and +0 + dv = dv since dv is never -0 (a sum from +0 across the lanes); the body is
     * dynamic (every body of the layout is), so ctn_body_integrate moves it, and turns it unless it is a
     * particle: a body that does not rotate here (rot = 0: a particle, or a rigid body without rotational
     * freedom) has w = +0, which ctn_quat_integrate returns q for, so rot decides alone. */
#if defined(__SSE2__)
    /* v = dv rounded to float two lanes at a time (cvtpd2ps: per lane the scalar conversion): (vx, vy), (vz, wz),
     * (wx, wy); d = h v in lanes 0..2 (lane 3, h wz, is stored nowhere) */
    ch_v4f v01 = (ch_v4f)_mm_cvtpd_ps((__m128d)D01), v2w2 = (ch_v4f)_mm_cvtpd_ps((__m128d)D25), w01 = (ch_v4f)_mm_cvtpd_ps((__m128d)D34);
    ch_v4f d = (ch_v4f)_mm_movelh_ps((__m128)v01, (__m128)v2w2) * w->h4; /* ctn_scale(v.v, h) */
    float wx = w01[0], wy = w01[1], wz = v2w2[1];
#else
    float vx = (float)D01[0], vy = (float)D01[1], vz = (float)D25[0], wx = (float)D34[0], wy = (float)D34[1], wz = (float)D25[1];
    ch_v4f d = {vx * h, vy * h, vz * h, 0.0f}; /* ctn_scale(v.v, h) */
#endif
    ctn_pose *x = &w->pose[b];
    ch_v4f hi, lo;
    memcpy(&hi, &x->p, sizeof hi); /* p and p_lo.x after it; lo: p_lo and q.w (inside the 40-byte pose) */
    memcpy(&lo, &x->p_lo, sizeof lo);
    ch_v4f s = hi + d, bb = s - hi, e = ((hi - (s - bb)) + (d - bb)) + lo, t = s + e, bt = t - s; /* ctn_f2_add */
    lo = (s - (t - bt)) + (e - bt);
#if defined(__SSE2__)
    /* t whole (its lane 3 lands on p_lo.x for the moment), then lo's lanes 0, 1 and 2 over p_lo: three stores in
     * place of the lanes gathered for a 16- and an 8-byte store */
    _mm_storeu_ps(&x->p.x, (__m128)t);
    _mm_storel_pi((__m64 *)(void *)&x->p_lo.x, (__m128)lo);
    _mm_store_ss(&x->p_lo.z, _mm_movehl_ps((__m128)lo, (__m128)lo));
#else
    x->p.x = t[0], x->p.y = t[1], x->p.z = t[2]; /* float stores (a memcpy's may alias the world's pointers) */
    x->p_lo.x = lo[0], x->p_lo.y = lo[1], x->p_lo.z = lo[2];
#endif
    if (rot) { /* ctn_quat_integrate, q read and written only when the body turns */
        float w2 = ctn_dot(ctn_v3_make(wx, wy, wz), ctn_v3_make(wx, wy, wz)); /* ctn_length's (x^2 + y^2) + z^2 */
        if (!(w2 <= w->still)) x->q = ball_turn(x->q, ctn_v3_make(wx, wy, wz), w2, h);
    }
}
#define BALL_APPLY2(w, bb, ...) ball_apply2(bb, __VA_ARGS__)
#else
#define BALL_APPLY2(w, bb, ...) ball_apply(w, __VA_ARGS__)
#endif

/* o = M v for a 3x3 block M (tr 1: M stored transposed, M(r, c) at 3c + r; 2: M symmetric, its lower triangle by
 * rows as k_store keeps it) as the node steps of
 * kernels/ctn_direct.h sum it, o_r = 0 + M(r,0) v0 + M(r,1) v1 + M(r,2) v2 from the left; rows 0 and 1 in two
 * lanes where the vector extensions are there (the same operations per lane, so the same bits). */
CHAIN_INLINE void ball_mul3(const double *M, int tr, double v0, double v1, double v2, double *o0, double *o1, double *o2) {
#define BALL_SYM(r, c) ((r) >= (c) ? (r) * ((r) + 1) / 2 + (c) : (c) * ((c) + 1) / 2 + (r)) /* tr 2: lower triangle by rows */
#define BALL_M(r, c) (tr == 2 ? M[BALL_SYM(r, c)] : tr ? M[3 * (c) + (r)] : M[3 * (r) + (c)])
#if defined(__GNUC__)
    const ch_v2d Z = {0.0, 0.0}, V0 = {v0, v0}, V1 = {v1, v1}, V2 = {v2, v2};
    const ch_v2d M0 = {BALL_M(0, 0), BALL_M(1, 0)}, M1 = {BALL_M(0, 1), BALL_M(1, 1)}, M2 = {BALL_M(0, 2), BALL_M(1, 2)};
    ch_v2d S = ((Z + M0 * V0) + M1 * V1) + M2 * V2;
    *o0 = S[0], *o1 = S[1];
#else
    double s0 = 0.0, s1 = 0.0;
    s0 += BALL_M(0, 0) * v0, s0 += BALL_M(0, 1) * v1, s0 += BALL_M(0, 2) * v2;
    s1 += BALL_M(1, 0) * v0, s1 += BALL_M(1, 1) * v1, s1 += BALL_M(1, 2) * v2;
    *o0 = s0, *o1 = s1;
#endif
    double s2 = 0.0;
    s2 += BALL_M(2, 0) * v0, s2 += BALL_M(2, 1) * v1, s2 += BALL_M(2, 2) * v2;
    *o2 = s2;
#undef BALL_M
#undef BALL_SYM
}

_Static_assert(offsetof(ctn_ball_row, rb) - offsetof(ctn_ball_row, ra) == 16 && offsetof(ctn_block, rb) - offsetof(ctn_block, ra) == 16,
               "ball_position finds side 1's arm 16 bytes after side 0's");
_Static_assert(ROT_B == ROT_A << 1, "ball_position's rotation flag of side s is ROT_A << s");

/* What one position of the back-substitution hands to the next (the pair (p, q) with q solved before p): x_q, the
 * body shared with q (bq, slot slq of q) and the side byte sb of the pair, read once for bq's side in joint p (bit 0
 * walking down, 1 up) and in joint q (the other bit). */
typedef struct ball_walk_state {
    double q0, q1, q2;
    int bq, sb, slq;
} ball_walk_state;

/* The chain's arrays and the step, read from the layout once per walk (the walk's stores of poses through
 * vector pointers may alias anything, so the positions would read them again from the layout). */
typedef struct ball_walk_arrays {
    const int *slot, *shared;
    const unsigned char *side, *dyn;
    const double *C;
    double *Y;
    float h;
    int ls;
} ball_walk_arrays;

/* Position p of ball_walk; has_q: x_q is known (a constant but at the segment's last position, where a separator
 * may follow it or not), last: p is the segment's first position (0, 1, or 2: found here), so that the walk's
 * loop, peeled at both ends, tests neither. */
CHAIN_INLINE void ball_position(ctn_world *w, const ball_walk_arrays *c, ch_rows blocks, int rec, float *lambda, int dir, int mode,
                                const ball_bodies *bb, const seg_walk *s, int p, int has_q, int last, ball_walk_state *st) {
    const int *shared = c->shared;
    const unsigned char *side = c->side, *dyn = c->dyn;
    float h = c->h;
    const int ls = c->ls;
    double q0 = st->q0, q1 = st->q1, q2 = st->q2;
    int bq = st->bq, sb = st->sb, slq = st->slq;
    int sl = c->slot[p];
    double *y = c->Y + 3 * (size_t)p;
    double x0 = y[0], x1 = y[1], x2 = y[2];
    (void)bb, (void)ls;
    if (has_q) { /* ctn_dd_chain_backward_node: x = u - E x_q, E = T row major walking down, T^T up */
        double s0, s1, s2;
        ball_mul3(c->C + 9 * (size_t)(dir > 0 ? p : p - 1), dir < 0, q0, q1, q2, &s0, &s1, &s2);
        x0 -= s0, x1 -= s1, x2 -= s2;
    }
    if (!(mode & BW_MOVE)) y[0] = x0, y[1] = x1, y[2] = x2; /* a chord step's x is read by no one after it */
    if (mode & BW_LAMBDA) { /* add_impulse (no cut rows) */
        float *l = lambda + ls * sl;
        l[0] = (float)((double)l[0] + x0), l[1] = (float)((double)l[1] + x1), l[2] = (float)((double)l[2] + x2);
    }
    if (last == 2) last = p == s->first;
    int dy = dyn[p], en = dir > 0 ? p - 1 : p; /* the pair (p, p - dir) */
    /* the body shared with the position solved next (p != s.first: en = p - 1 > s.first - 1 >= 0 walking down) */
    int bn = !last ? shared[en] : -1;
    if (bq >= 0) { /* complete: x_q and x_p known */
        int sp = (dir > 0 ? sb : sb >> 1) & 1, sq = (dir > 0 ? sb >> 1 : sb) & 1; /* bq's side in joints p and q */
        /* side s's arm 16 s bytes after ra, its rotation flag ROT_A << s: addresses and masks without a branch */
        const ctn_v3 *arm_p = (const ctn_v3 *)(const void *)((const char *)BR_ARMP(blocks, rec, sl, 0) + 16 * (size_t)sp);
        const ctn_v3 *arm_q = (const ctn_v3 *)(const void *)((const char *)BR_ARMP(blocks, rec, slq, 0) + 16 * (size_t)sq);
        BALL_APPLY2(w, bb, bq, dy & (ROT_A << sp), arm_p, sp, x0, x1, x2, arm_q, sq, q0, q1, q2, mode, h);
    }
    if ((bq < 0 || bn < 0) && ((dy & DYN_A) != 0) + ((dy & DYN_B) != 0) > (bq >= 0) + (bn >= 0)) { /* a body of p alone (a path's end) */
        const ctn_joint_core *d = &w->topo.defs[sl];
        if ((dy & DYN_A) && d->a != bq && d->a != bn)
            ball_apply(w, d->a, dy & ROT_A, BR_ARMP(blocks, rec, sl, 0), 0, x0, x1, x2, NULL, 0, 0, 0, 0, mode, h);
        if ((dy & DYN_B) && d->b != bq && d->b != bn)
            ball_apply(w, d->b, dy & ROT_B, BR_ARMP(blocks, rec, sl, 1), 1, x0, x1, x2, NULL, 0, 0, 0, 0, mode, h);
    }
    if (last) return;
    st->bq = bn, st->sb = side[en], st->slq = sl; /* the pair (p, p - dir) */
    st->q0 = x0, st->q1 = x1, st->q2 = x2;
}

/* Back-substitution of segment k walking in direction dir (the segment's, segment_walk), with lambda += dl
 * (mode BW_LAMBDA) and the velocity changes, or for a chord step (BW_MOVE) the pose updates, of the bodies:
 *     x_p = u_p - T_E x_q,   T_E = P_p^-1 A_{p,q} (ctn_dd_chain_factor_node; walking down (dir > 0) C_p, row
 * major; walking up C_{p-1} transposed), q = p + dir the position solved before p. The pair (p, p + 1) has
 * its shared body in shared[p] and that body's sides in side[p] (bit 0 in joint p, bit 1 in joint p + 1). The
 * segment's last position, where x_q may be missing, and its first, which has no next, are taken apart from the
 * loop (ball_position). */
CHAIN_INLINE void ball_walk(ctn_world *w, direct_chain *c, ch_rows blocks, int rec, int k, float *lambda, int dir, int mode) {
    seg_walk s = segment_walk(c, k);
    float h = c->move_h;
    const ball_walk_arrays a = {c->slot, c->shared, c->side, c->dyn, c->C, c->y, h, c->ls};
    ball_bodies bb = {w->vel, w->pose, w->inertia, (mode & BW_MOVE) ? ball_still_below(h) : 0.0f, {h, h, h, h}};
    ball_walk_state st = {0.0, 0.0, 0.0, -1, 0, -1}; /* x_q = 0 and no shared body where no separator follows */
    int p = s.last;
    if (s.end >= 0) { /* the separator after the segment's last position, solved by solve_separators */
        int q = s.end, e = dir > 0 ? s.last : q; /* the pair (s.last, q) */
        const double *xs = c->y + 3 * (size_t)q;
        st.q0 = xs[0], st.q1 = xs[1], st.q2 = xs[2];
        st.bq = c->shared[e], st.sb = c->side[e], st.slq = c->slot[q];
    } else {
        ball_position(w, &a, blocks, rec, lambda, dir, mode, &bb, &s, p, 0, 2, &st);
        if (p == s.first) return;
        p -= dir;
    }
    for (; p != s.first; p -= dir) ball_position(w, &a, blocks, rec, lambda, dir, mode, &bb, &s, p, 1, 0, &st);
    ball_position(w, &a, blocks, rec, lambda, dir, mode, &bb, &s, p, 1, 1, &st);
}

/* forward_segment of a chord step's solve from rest (c->rest): the right-hand side is the blocks' targets
 * (rhs_position's rest case, no cut rows), so per position ctn_dd_chain_forward_node's operations alone:
 *     u_p = P_p^-1 y_p,   y_q = r_q - T_E^T y_p   (y_q into the separator's accumulator after the last),
 * with y_p carried in registers from the previous position. */
CHAIN_INLINE void ball_forward_rest(direct_chain *c, ch_rows blocks, int rec, int k, int dir) {
    seg_walk s = segment_walk(c, k);
    memset(s.y_a, 0, 6 * sizeof *s.y_a);
    memset(s.y_end, 0, 6 * sizeof *s.y_end);
    const int *slot = c->slot;
    const double *C = c->C;
    double *Y = c->y;
    const float *b0 = BR_BIAS(blocks, rec, slot[s.first]);
    double v0 = (double)b0[0], v1 = (double)b0[1], v2 = (double)b0[2]; /* y_p */
    for (int p = s.first;; p += dir) {
        /* the lower triangle (k_store): in float (c->Kf) with ball records, widened; the lean walks take records only
         * where the chain keeps Kf (direct_chain.c pivots_as_lean), blocks only where it keeps K */
        double P[6];
        if (rec) {
            const float *f = c->Kf + 6 * (size_t)p;
            P[0] = f[0], P[1] = f[1], P[2] = f[2], P[3] = f[3], P[4] = f[4], P[5] = f[5];
        } else {
            memcpy(P, c->K + 6 * (size_t)p, sizeof P);
        }
        double *y = Y + 3 * (size_t)p;
        double t0, t1, t2, s0, s1, s2;
        ball_mul3(P, 2, v0, v1, v2, &t0, &t1, &t2); /* u = P^-1 y (P^-1 symmetric, its lower triangle) */
        y[0] = t0, y[1] = t1, y[2] = t2;
        int inside = p != s.last;
        if (!inside && s.end < 0) break;
        /* E^T y with E(k, c) = T[3k + c] walking down (so E^T is T stored transposed), T[3c + k] walking up */
        ball_mul3(C + 9 * (size_t)(dir > 0 ? p : p - 1), dir > 0, v0, v1, v2, &s0, &s1, &s2);
        if (!inside) {
            s.y_end[0] -= s0, s.y_end[1] -= s1, s.y_end[2] -= s2;
            break;
        }
        const float *bq = BR_BIAS(blocks, rec, slot[p + dir]);
#if defined(__SSE2__) && defined(__GNUC__)
        /* targets 0 and 1 widened and less s0, s1 in two lanes (movq, cvtps2pd, subpd): per lane the scalar operations */
        ch_v2d V01 = (ch_v2d)_mm_cvtps_pd(_mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)(const void *)bq)) - (ch_v2d){s0, s1};
        v0 = V01[0], v1 = V01[1], v2 = (double)bq[2] - s2;
#else
        v0 = (double)bq[0] - s0, v1 = (double)bq[1] - s1, v2 = (double)bq[2] - s2;
#endif
    }
}

/* The instances, one per direction (down: segment 0; up: the last of two segments), storage and mode,
 * inlined into a function per mode of the back-substitution (lambda += dl with v += dv; a chord step's pose
 * moves; v += dv alone for a solve from rest or a projection step) and into the forward substitution from
 * rest, so that a profile names each walk; the mode is chosen once per segment. */
#if defined(__GNUC__)
#define CHAIN_NOINLINE __attribute__((noinline))
#else
#define CHAIN_NOINLINE
#endif
#define BALL_WALKS(mode)                                                                                                          \
    if (blocks.ball) up ? ball_walk(w, c, blocks, 1, k, lambda, -1, mode) : ball_walk(w, c, blocks, 1, k, lambda, 1, mode);          \
    else up ? ball_walk(w, c, blocks, 0, k, lambda, -1, mode) : ball_walk(w, c, blocks, 0, k, lambda, 1, mode);
CHAIN_FLATTEN CHAIN_NOINLINE static void backward_ball_lambda(ctn_world *w, direct_chain *c, ch_rows blocks, int k, float *lambda, int up) {
    BALL_WALKS(BW_LAMBDA)
}
CHAIN_FLATTEN CHAIN_NOINLINE static void backward_ball_move(ctn_world *w, direct_chain *c, ch_rows blocks, int k, float *lambda, int up) {
    BALL_WALKS(BW_MOVE)
}
CHAIN_FLATTEN CHAIN_NOINLINE static void backward_ball_rest(ctn_world *w, direct_chain *c, ch_rows blocks, int k, float *lambda, int up) {
    BALL_WALKS(0)
}
#undef BALL_WALKS
CHAIN_NOINLINE void ctn__chain_backward_ball(ctn_world *w, direct_chain *c, ch_rows blocks, int k, float *lambda) {
    int up = k == c->segments - 1 && c->segments > 1; /* segment_walk's direction */
    if (!c->rest && !c->zero) backward_ball_lambda(w, c, blocks, k, lambda, up);
    else if (c->move_h > 0.0f) backward_ball_move(w, c, blocks, k, lambda, up);
    else backward_ball_rest(w, c, blocks, k, lambda, up);
}

CHAIN_FLATTEN CHAIN_NOINLINE void ctn__chain_forward_ball_rest(direct_chain *c, ch_rows blocks, int k) {
    int up = k == c->segments - 1 && c->segments > 1;
    if (blocks.ball) up ? ball_forward_rest(c, blocks, 1, k, -1) : ball_forward_rest(c, blocks, 1, k, 1);
    else up ? ball_forward_rest(c, blocks, 0, k, -1) : ball_forward_rest(c, blocks, 0, k, 1);
}
