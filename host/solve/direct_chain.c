/* The chain path of the exact solver: joint layouts that are sets of simple paths (every dynamic body in
 * at most two joints, no loops), solved in joint space.
 *
 * The system is (1) of host/solve/solver_direct.c, (J M^-1 J^T + S) dl = r with the same regularisation
 * of every row (CTN_DD_FLOOR times its J M^-1 J^T diagonal). Along a path it is block tridiagonal with the
 * joints' own blocks (kernels/ctn_direct.h, "joint-space chains"), so a ball-jointed chain factors 3x3
 * blocks and never forms the 6x6 body pivots of the forest path: about 10x fewer operations per link.
 *
 * Layout (rebuilt when the topology changes). The paths are concatenated into one sequence of positions
 * p = 0..m-1 (joint slot perm[p]); C_p couples p to p + 1 through the body they share, and is zero
 * between paths. The sequence is cut into segments by separator positions sep[1..P-1]:
 *   - segment 0 is eliminated downwards onto sep[1], the last segment upwards onto sep[P-1]: neither has
 *     a separator behind it, so they cost no more than one serial pass;
 *   - a middle segment is eliminated downwards with a spike to the separator above it (about 1.8x the
 *     operations of a serial pass for ball joints).
 * The segments are independent: one thread each. The separators then form a small block tridiagonal
 * system (pivots: K minus the segments' updates; couplings G), solved serially by the same node steps,
 * and the segments substitute back in parallel. Two segments (a chain long enough to be worth it) halve
 * the elimination on two threads at no extra cost; the segment count depends on the length only, never
 * on the thread count, so every thread count gives the same bits.
 *
 * Rows with finite bounds this substep (limits, motors, swing cones, ropes) are cut out of their position:
 * identity pivot row and column, zero couplings and right-hand side (ctn_dd_chain_cut), so their dl is 0
 * and the joint's other rows stay in the exact solve; projected Gauss-Seidel in the outer loop of
 * host/solve/solver_direct.c treats the cut rows.
 *
 * This file holds the layout, the generic walks (any row count, either storage of the rows), the separators,
 * the phases and the entry points; the lean walks of ball-jointed chains are in host/solve/direct_ball.c, the
 * lean steps of hinge positions in host/solve/direct_hinge.c, and the state this file and direct_ball.c share
 * in host/solve/direct_chain_internal.h. */
#include "solve/direct_chain_internal.h"
#include "solve/direct_hinge.h"
#include "solve/lanes.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* An OpenMP directive, or nothing in a build without OpenMP (where -Wunknown-pragmas would stop -Werror). */
#ifdef _OPENMP
#define CHAIN_OMP(directive) _Pragma(#directive)
#else
#define CHAIN_OMP(directive)
#endif

/* Sequences shorter than this many positions per segment are eliminated in one segment (the fork costs
 * more than it saves). */
#define CHAIN_MIN_SEGMENT 512
/* Segments the CPU splits a long sequence into: the two spike-free end segments. */
#define CHAIN_CPU_SEGMENTS 2

static int is_dynamic(const ctn_world *w, int body) {
    return body >= 0 && body < w->topo.body_count && (w->props[body].flags & CTN_BODY_FLAG_DYNAMIC) != 0;
}

void ctn__chain_free(direct_chain *c) {
    if (!c) return;
    void *p[] = {c->slot, c->off, c->shared, c->n, c->side, c->dyn, c->axes, c->koff, c->coff, c->voff,
                 c->sep, c->cut, c->K, c->Kf, c->C, c->F, c->y, c->seg};
    for (size_t k = 0; k < sizeof p / sizeof p[0]; ++k) ctn__free(p[k]);
    ctn__free(c);
}

/* The other joint of body b than slot (-1 if b is not dynamic or has one joint). */
static int next_joint(const int *deg, const int *jt, int b, int slot) {
    if (b < 0 || deg[b] != 2) return -1;
    return jt[2 * b] == slot ? jt[2 * b + 1] : jt[2 * b];
}

/* Orders the joints into paths: perm and shared. seen[slot]: 0 a joint with a dynamic body not yet placed (1 once
 * placed), 2 a joint between two non-dynamic bodies. Returns 0 when the layout is not a set of paths. */
static int order_paths(const ctn_world *w, direct_chain *c, const int *deg, const int *jt, unsigned char *seen) {
    const ctn_topology *t = &w->topo;
    int m = 0;
    for (int s0 = 0; s0 < t->joint_count; ++s0) {
        if (seen[s0]) continue;
        const ctn_joint_core *d = &t->defs[s0];
        int na = next_joint(deg, jt, is_dynamic(w, d->a) ? d->a : -1, s0);
        int nb = next_joint(deg, jt, is_dynamic(w, d->b) ? d->b : -1, s0);
        if (na >= 0 && nb >= 0) continue; /* not an end of its path */
        int slot = s0, through = na >= 0 ? d->a : (nb >= 0 ? d->b : -1);
        for (;;) {
            seen[slot] = 1;
            c->slot[m] = slot;
            c->shared[m] = -1;
            int nx = next_joint(deg, jt, through, slot);
            if (nx < 0 || seen[nx]) {
                m++;
                break;
            }
            const ctn_joint_core *e = &t->defs[nx];
            c->shared[m] = through;
            c->side[m] = (unsigned char)((t->defs[slot].a == through ? 0 : 1) | (e->a == through ? 0 : 2));
            m++;
            int other = e->a == through ? e->b : e->a;
            through = is_dynamic(w, other) ? other : -1;
            slot = nx;
        }
    }
    for (int s = 0; s < t->joint_count; ++s)
        if (!seen[s]) return 0; /* on a loop */
    c->m = m;
    c->ls = t->stride;
    return 1;
}

int ctn__chain_anchored(const direct_chain *c) { return c->anchored; }

/* Separators: P - 1 positions splitting the sequence into P segments of at least one node each. */
static void place_separators(direct_chain *c, int want) {
    int m = c->m, P = want > 0 ? want : (m >= 2 * CHAIN_MIN_SEGMENT ? CHAIN_CPU_SEGMENTS : 1);
    if (P > (m + 1) / 2) P = (m + 1) / 2;
    if (P < 1) P = 1;
    c->segments = P;
    int interior = m - (P - 1);
    c->sep[0] = -1;
    for (int k = 1; k <= P; ++k) c->sep[k] = c->sep[k - 1] + interior / P + (k - 1 < interior % P) + 1;
}

int ctn__chain_build(ctn_world *w, direct_chain **out, int segments) {
    const ctn_topology *t = &w->topo;
    int m = t->joint_count, nb = t->body_count, ok = 0;
    *out = NULL;
    direct_chain *c = ctn__calloc(1, sizeof *c);
    int *deg = ctn__calloc((size_t)nb + 1, sizeof *deg), *jt = ctn__malloc((2 * (size_t)nb + 1) * sizeof *jt);
    unsigned char *seen = ctn__calloc((size_t)m + 1, 1);
    if (!c || !deg || !jt || !seen) goto fail;
    size_t m1 = (size_t)m + 1;
    c->slot = ctn__malloc(m1 * sizeof *c->slot);
    c->shared = ctn__malloc(m1 * sizeof *c->shared);
    c->side = ctn__calloc(m1, 1);
    c->dyn = ctn__calloc(m1, 1);
    c->axes = ctn__malloc(m1); /* written by each factor on blocks before it is read, never on ball records (AXES_AT) */
    c->cut = ctn__calloc(m1, 1);
    if (!c->slot || !c->shared || !c->side || !c->dyn || !c->axes || !c->cut) goto fail;
    for (int s = 0; s < m; ++s) {
        const ctn_joint_core *d = &t->defs[s];
        int da = is_dynamic(w, d->a), db = is_dynamic(w, d->b);
        if (!da && !db) { /* off the chain: no rows in the exact solve (ctn__chain_has) */
            if (!c->off && !(c->off = ctn__calloc(m1, 1))) goto fail;
            c->off[s] = 1, seen[s] = 2;
            continue;
        }
        if (ctn__direct_rows_at(t, s) == 0 || (da && db && d->a == d->b)) goto not_chain;
        int ends[2] = {da ? d->a : -1, db ? d->b : -1};
        for (int e = 0; e < 2; ++e) {
            int b = ends[e];
            if (b < 0) continue;
            if (deg[b] == 2 || ctn__direct_body_dof(w, b) == 0) goto not_chain;
            jt[2 * b + deg[b]++] = s;
        }
    }
    if (!order_paths(w, c, deg, jt, seen) || c->m == 0) goto not_chain;
    m = c->m;
    c->covers = 1;
    for (int b = 0; b < nb; ++b)
        if ((w->props[b].flags & (CTN_BODY_FLAG_DYNAMIC | CTN_BODY_FLAG_KINEMATIC)) && (!is_dynamic(w, b) || deg[b] == 0)) c->covers = 0;
    size_t n1 = (size_t)m + 1;
    c->sep = ctn__malloc(((size_t)m / 2 + 3) * sizeof *c->sep);
    if (!c->sep) goto fail;
    size_t co = 0, vo = 0;
    c->uniform = ctn__direct_rows_at(t, c->slot[0]);
    for (int p = 1; p < m && c->uniform; ++p)
        if (ctn__direct_rows_at(t, c->slot[p]) != c->uniform) c->uniform = 0;
    if (!c->uniform && !(c->n = ctn__malloc(n1))) goto fail; /* rows per position: implicit (uniform) where all match */
    c->anchored = 1;
    for (int p = 0, anchors = 0; p < m; ++p) {
        const ctn_joint_core *d = &t->defs[c->slot[p]];
        int n = ctn__direct_rows_at(t, c->slot[p]);
        if (c->n) c->n[p] = (unsigned char)n;
        if (is_dynamic(w, d->a)) c->dyn[p] |= DYN_A | (ctn__direct_body_dof(w, d->a) == 6 ? ROT_A : 0);
        if (is_dynamic(w, d->b)) c->dyn[p] |= DYN_B | (ctn__direct_body_dof(w, d->b) == 6 ? ROT_B : 0);
        /* a path holds every joint of its dynamic bodies: its joints with one end not dynamic are the joints
         * from that set of bodies to the rest (p is the last of its path where it shares no body with p + 1) */
        anchors += !(c->dyn[p] & DYN_A) != !(c->dyn[p] & DYN_B);
        if (anchors > 1) c->anchored = 0;
        if (c->shared[p] < 0) anchors = 0;
        vo += (size_t)n;
        if (p + 1 < m) co += (size_t)n * ctn__direct_rows_at(t, c->slot[p + 1]);
    }
    if (6 * vo > INT_MAX) goto not_chain; /* int offsets (the forest path's are size_t) */
    /* every body an end of some position (deg, read above for the last time, marks them): the residual then reads
     * every body's velocity (ctn__chain_residual_velocities) */
    for (int b = 0; b < nb; ++b) deg[b] = 0;
    for (int p = 0; p < m; ++p) {
        const ctn_joint_core *d = &t->defs[c->slot[p]];
        if (d->a >= 0) deg[d->a] = 1;
        if (d->b >= 0) deg[d->b] = 1;
    }
    c->ends_all = 1;
    for (int b = 0; b < nb && c->ends_all; ++b) c->ends_all = deg[b] != 0;
    if (!c->uniform) { /* explicit offsets: one int per position and array */
        c->koff = ctn__malloc(n1 * sizeof *c->koff);
        c->coff = ctn__malloc(n1 * sizeof *c->coff);
        c->voff = ctn__malloc(n1 * sizeof *c->voff);
        if (!c->koff || !c->coff || !c->voff) goto fail;
        int k = 0, cc = 0, v = 0;
        for (int p = 0; p < m; ++p) {
            c->koff[p] = k, c->coff[p] = cc, c->voff[p] = v;
            k += CH_N(c, p) * CH_N(c, p);
            v += CH_N(c, p);
            if (p + 1 < m) cc += CH_N(c, p) * CH_N(c, p + 1);
        }
        c->koff[m] = k, c->coff[m] = cc, c->voff[m] = v;
    }
    place_separators(c, segments);
    c->C = ctn__malloc((co + 1) * sizeof *c->C);
    c->F = c->segments > 2 ? ctn__malloc((6 * vo + 1) * sizeof *c->F) : NULL;
    c->y = ctn__malloc((vo + 1) * sizeof *c->y);
    c->seg = ctn__malloc((size_t)c->segments * sizeof *c->seg);
    if (!c->C || (c->segments > 2 && !c->F) || !c->y || !c->seg) goto fail;
    *out = c;
    c = NULL;
    ok = 1;
not_chain: /* ok = 0: a valid answer, the forest path takes the layout */
    ctn__chain_free(c);
    ctn__free(deg), ctn__free(jt), ctn__free(seen);
    return ok;
fail:
    ctn__chain_free(c);
    ctn__free(deg), ctn__free(jt), ctn__free(seen);
    return -1;
}

/* ---- per substep ----------------------------------------------------------------------------------
 * Every loop body below takes the row count as `nfix` (0: read it per position); the *_3 entry points
 * pass the literal 3 of a ball-jointed chain through always-inlined code, so the compiler unrolls the
 * small dense products (measured: about 2x fewer cycles than the run-time sizes). */
#define ROWS(c, p, nfix) ((nfix) ? (nfix) : CH_N(c, p))
/* c->axes[p] as the walks read it. On ball records (c->balls: every position a rigid ball joint, so uniform 3 and
 * the walks with the literal 3) every position's is 1, the world axes, which the lean walks on records do not
 * write (ball_assemble): the walks with nfix 3 take it so there without reading, and the array stays untouched
 * (not resident) in a chain on records; the others read it always. A factor on blocks writes every position's
 * before reading it (assemble_position, ball_assemble), and the separators' are written on records too. */
#define AXES_AT(c, p, nfix) ((nfix) == 3 && (c)->balls ? 1 : (c)->axes[p])
/* Offsets of K_p (n_p^2 doubles), C_p (n_p n_{p+1}), y_p (n_p) and the spike F_p (6 n_p, at 6 times y_p's):
 * implicit in a uniform sequence (nfix, the literal row count of the flattened steps, or c->uniform), else
 * from the position's int offsets. */
#define CH_SQ(c, p, nfix, arr) \
    ((nfix) ? (size_t)(p) * (size_t)((nfix) * (nfix)) : (c)->uniform ? (size_t)(p) * (size_t)((c)->uniform * (c)->uniform) : (size_t)(c)->arr[p])
#define CH_K(c, p, nfix) (K_PACKED(c, nfix) ? (size_t)(p) * 6 : CH_SQ(c, p, nfix, koff))
#define CH_C(c, p, nfix) CH_SQ(c, p, nfix, coff)
#define CH_V(c, p, nfix) ((nfix) ? (size_t)(p) * (size_t)(nfix) : (c)->uniform ? (size_t)(p) * (size_t)(c)->uniform : (size_t)(c)->voff[p])
#define CH_F(c, p, nfix) (6 * CH_V(c, p, nfix))

/* The rows (ch_rows, BR_*), the segment walks (segment_walk) and the state at rest (chain_rest_vel) are in
 * direct_chain_internal.h: the lean ball walks of direct_ball.c read them too. */

/* The block ctn_prepare_slot_rows builds for a ball joint (ctn_rows_ball_fields, kinv zeroed), from its record. */
static void ball_row_block(const ctn_ball_row *r, ctn_block *b) {
    b->ra = r->ra, b->n_lin = 3, b->rb = r->rb, b->n_ang = 0;
    b->dir[0] = ctn_v3_make(1.0f, 0.0f, 0.0f);
    b->dir[1] = ctn_v3_make(0.0f, 1.0f, 0.0f);
    b->dir[2] = ctn_v3_make(0.0f, 0.0f, 1.0f);
    for (int k = 3; k < CTN_MAX_ROWS; ++k) b->dir[k] = ctn_v3_zero(); /* not read (3 rows) */
    for (int k = 0; k < CTN_KINV_SIZE; ++k) b->kinv[k] = 0.0f;
    for (int k = 0; k < CTN_MAX_ROWS; ++k) {
        b->bias[k] = k < 3 ? r->bias[k] : 0.0f;
        b->soft[k] = k < 3 ? r->soft : 0.0f;
        b->lo[k] = -CTN_INF, b->hi[k] = CTN_INF;
    }
    b->pad[0] = CTN_BLOCK_POINT;
}

/* The block of slot as the generic steps read it: in place, or formed from the ball record into *tmp. */
static inline const ctn_block *row_block(ch_rows R, int slot, ctn_block *tmp) {
    if (!R.ball) return &R.blk[slot];
    ball_row_block(&R.ball[slot], tmp);
    return tmp;
}

/* K_p of a sequence of 3-row positions (uniform 3; nfix 3 is only given for one) is symmetric at every stage: the
 * assembled pivot (its node step reads only the lower triangle), P^-1 (both inverses write each off-diagonal
 * entry twice from one value) and the updates K_q -= E^T T_E (formed on the lower triangle and mirrored). It is
 * stored as its lower triangle by rows, (0,0) (1,0) (1,1) (2,0) (2,1) (2,2): 6 doubles a position instead of 9
 * (24 bytes a link). The node steps of kernels/ctn_direct.h take the full 3x3 form: k_full writes it to tmp and
 * returns it (else the stored one in place), k_store keeps the lower triangle of what they wrote. The same values
 * in the same operations, so the same bits. */
#define K_PACKED(c, nfix) ((nfix) == 3 || (c)->uniform == 3)
/* K_p as the node steps take it, from its lower triangle k (ctn_dd_k3_unpack_g: the OpenCL chain's layout too). */
static inline double *k_unpack(const double *k, double *tmp) {
    ctn_dd_k3_unpack_g(k, tmp);
    return tmp;
}
/* The upper triangle of a full K from its lower one: K as k_store and k_full leave it. */
static inline void k_mirror(double *K) { K[1] = K[3], K[2] = K[6], K[5] = K[7]; }
/* Where P^-1 is kept in float (c->Kf, ctn__chain_pivots), K_p of every position but the separator (P <= 2:
 * sep[1], whose pivot and P^-1 the velocity solve reads: k_sep, in double) is read widened and stored rounded;
 * a pivot that is not factored yet never passes through it (factor_walk keeps it in double). */
static inline int k_float(const direct_chain *c, int p) { return c->Kf && !(c->segments == 2 && p == c->sep[1]); }
static inline double *k_full(const direct_chain *c, int p, int nfix, double *tmp) {
    if (!K_PACKED(c, nfix)) return c->K + CH_K(c, p, nfix);
    if (k_float(c, p)) {
        const float *f = c->Kf + 6 * (size_t)p;
        double k[6] = {f[0], f[1], f[2], f[3], f[4], f[5]};
        return k_unpack(k, tmp);
    }
    return k_unpack(c->Kf ? c->k_sep : c->K + CH_K(c, p, nfix), tmp);
}
static inline void k_store(direct_chain *c, int p, int nfix, const double *full) {
    if (!K_PACKED(c, nfix)) return; /* written in place */
    if (k_float(c, p)) {
        float *k = c->Kf + 6 * (size_t)p;
        k[0] = (float)full[0], k[1] = (float)full[3], k[2] = (float)full[4], k[3] = (float)full[6], k[4] = (float)full[7], k[5] = (float)full[8];
        return;
    }
    ctn_dd_k3_pack_g(full, c->Kf ? c->k_sep : c->K + CH_K(c, p, nfix));
}

/* K_p, and C_{p-1} through the body p shares with its predecessor (ctn_dd_chain_assemble). Marks the
 * rows of p with finite bounds this substep as cut (the predecessor's mark may not be written yet: its
 * block is asked instead); a joint cut whole couples to nothing. */
static inline int cut_of(const direct_chain *c, ch_rows blocks, int slot) {
    if (blocks.ball) return 0; /* a ball record's rows are unbounded */
    return ctn_dd_cut_mask(&blocks.blk[slot]) & ~(c->keep ? c->keep[slot] : 0);
}

/* The lean hinge assembly (host/solve/direct_hinge.c) takes position p (rows of blk) and its coupling to the
 * predecessor (bp, np rows; NULL: none): both have three world-axis linear rows first and one has angular rows
 * (two ball joints take ctn_dd_chain_assemble_ax's lever-arm branch). Off with ctn__chain_set_generic. */
static inline int hinge_pair(int hinge, const ctn_block *blk, const ctn_block *bp, int np, int prev_axes) {
    if (!hinge) return 0; /* blk: ctn__hinge_rows, lean steps on */
    if (!bp) return blk->n_ang > 0;
    /* prev_axes: c->axes of the predecessor when it is marked (walking down; -1: not known), 2 its rows are
     * ctn__hinge_rows; 1 the world axes of a ball joint (as ctn__hinge_rows, or with -0.0f in place of +0.0f
     * zeros, which are zeros of the same products) */
    int hr = prev_axes >= 0 ? prev_axes != 0 : ctn__hinge_rows(bp, np);
    return hr && (blk->n_ang > 0 || bp->n_ang > 0);
}

/* kout (9 doubles; packed K only, else NULL): K_p is left there in full and not stored (factor_walk factors it from there). */
static inline void assemble_position(const ctn_world *w, direct_chain *c, ch_rows blocks, int p, int nfix, int prev_known, double *kout) {
    int slot = c->slot[p], n = ROWS(c, p, nfix), dyn = c->dyn[p];
    ctn_block tb, tp; /* row_block's, for ball records */
    const ctn_block *blk = row_block(blocks, slot, &tb);
    int cut = cut_of(c, blocks, slot), cut_prev = 0, full = ctn_dd_cut_full(cut, n);
    c->cut[slot] = (unsigned char)cut;
    double Kt[9];
    double *K = K_PACKED(c, nfix) ? (kout ? kout : Kt) : c->K + CH_K(c, p, nfix); /* packed: formed in Kt, stored by k_store */
    double *C = p > 0 ? c->C + CH_C(c, p - 1, nfix) : NULL;
    const ctn_block *bp = NULL;
    if (!full && p > 0 && c->shared[p - 1] >= 0) {
        cut_prev = prev_known ? c->cut[c->slot[p - 1]] : cut_of(c, blocks, c->slot[p - 1]);
        if (!ctn_dd_cut_full(cut_prev, ROWS(c, p - 1, nfix))) bp = row_block(blocks, c->slot[p - 1], &tp);
    }
    if (p > 0 && !bp) /* no coupling (else ctn_dd_chain_assemble writes it) */
        for (size_t e = CH_C(c, p - 1, nfix); e < CH_C(c, p, nfix); ++e) c->C[e] = 0.0;
    int axes = !full && ctn_dd_rows_axes(blk), hinge = !full && !c->generic && ctn__hinge_rows(blk, n);
    c->axes[p] = (unsigned char)(axes ? 1 : hinge ? 2 : 0);
    if (full) {
        for (int e = 0; e < n * n; ++e) K[e] = 0.0;
        for (int r = 0; r < n; ++r) K[r * n + r] = 1.0;
        if (!kout) k_store(c, p, nfix, K);
        return;
    }
    const ctn_joint_core *d = &w->topo.defs[slot];
    int np = bp ? ROWS(c, p - 1, nfix) : 0, sp = bp ? c->side[p - 1] & 1 : 0, ps = bp ? (c->side[p - 1] >> 1) & 1 : 0;
    if (hinge_pair(hinge, blk, bp, np, bp && prev_known ? AXES_AT(c, p - 1, nfix) : -1)) { /* the bodies' masses read in place */
        static const ctn_sym3 none = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
        ctn__hinge_assemble(blk, n, dyn, (dyn & DYN_A) ? w->inertia[d->a].inv_mass : 0.0, (dyn & DYN_A) ? &w->inertia[d->a].inv_inertia : &none,
                            (dyn & DYN_B) ? w->inertia[d->b].inv_mass : 0.0, (dyn & DYN_B) ? &w->inertia[d->b].inv_inertia : &none, bp, np, sp, ps, K, C);
        if (cut | cut_prev) ctn_dd_chain_cut(K, n, cut, C, p > 0 ? ROWS(c, p - 1, nfix) : 0, cut_prev);
        return;
    }
    double ima = 0.0, imb = 0.0;
    ctn_sym3 Ia = {0}, Ib = {0};
    if (dyn & DYN_A) ima = w->inertia[d->a].inv_mass, Ia = w->inertia[d->a].inv_inertia;
    if (dyn & DYN_B) imb = w->inertia[d->b].inv_mass, Ib = w->inertia[d->b].inv_inertia;
    int axes_prev = bp && axes && (prev_known ? AXES_AT(c, p - 1, nfix) == 1 : ctn_dd_rows_axes(bp)); /* walking down, p - 1 is marked */
    ctn_dd_chain_assemble_ax(blk, axes, n, dyn, ima, Ia, imb, Ib, bp, axes_prev, np, sp, ps, K, C);
    if (cut | cut_prev) ctn_dd_chain_cut(K, n, cut, C, p > 0 ? ROWS(c, p - 1, nfix) : 0, cut_prev);
    if (!kout) k_store(c, p, nfix, K);
}


/* Right-hand side r_p (zero on cut rows); resolve (a constant at every call): the walk of a re-solve, which
 * takes the change since c->vref, c->lref when they are set. */
static inline void rhs_position(const ctn_world *w, direct_chain *c, ch_rows blocks, int p, int nfix, int resolve) {
    const ctn_topology *t = &w->topo;
    int slot = c->slot[p], n = ROWS(c, p, nfix);
    double *y = c->y + CH_V(c, p, nfix);
    const ctn_joint_core *d = &t->defs[slot];
    if (ctn_dd_cut_full(c->cut[slot], n)) {
        for (int r = 0; r < n; ++r) y[r] = 0.0;
        return;
    }
    ctn_block tb;
    const ctn_block *blk = row_block(blocks, slot, &tb);
    if (resolve && c->rest) { /* v = 0, lambda = 0: ctn_dd_chain_rhs's r = target - J v - S lambda is the target */
        for (int r = 0; r < n; ++r) y[r] = (double)blk->bias[r];
    } else if (resolve && c->vref) /* the change since the last solve, (R) of kernels/ctn_direct_rhs.h */
        ctn_dd_chain_change(blk, ctn_load_vel(w->vel, d->a), ctn_load_vel(w->vel, d->b), ctn_load_vel(c->vref, d->a),
                            ctn_load_vel(c->vref, d->b), &t->lambda[c->ls * slot], &c->lref[c->ls * slot], y);
    else if (c->zero) /* the projection's scratch state at rest: v = +0, lambda = +0, read as the arrays would hold them */
        ctn_dd_chain_rhs(blk, chain_rest_vel(), chain_rest_vel(), chain_rest_lambda, y);
    else
        ctn_dd_chain_rhs(blk, ctn_load_vel(w->vel, d->a), ctn_load_vel(w->vel, d->b), &t->lambda[c->ls * slot], y);
    ctn_dd_zero_cut(c->cut[slot], n, y);
}

static inline void body_finish(ctn_world *w, const direct_chain *c, int b, const double *dv, int hit);

/* v_b += M^-1 J^T dl over the solved joints of body b, side s0 of position p0. Its joints are p0 and, where it
 * shares b with a neighbour, p0 - 1 or p0 + 1 (a chain body has at most two joints, consecutive positions; shared[p]
 * >= 0 only where p + 1 continues the path): they are summed in increasing slot order, as the body's adjacency
 * (topo.adj) lists them, so the same bits as a sum over the adjacency. */
static inline void apply_body(ctn_world *w, const direct_chain *c, ch_rows blocks, int b, int p0, int s0, int nfix) {
    double dv[6] = {0, 0, 0, 0, 0, 0};
    int hit = 0, q = -1, sq = 0;
    if (p0 > 0 && c->shared[p0 - 1] == b) q = p0 - 1, sq = c->side[q] & 1; /* b's side in joint p0 - 1 */
    else if (c->shared[p0] == b) q = p0 + 1, sq = (c->side[p0] >> 1) & 1;  /* in joint p0 + 1 */
    int p = p0, side = s0; /* the joint of the lower slot first, then the other (q < 0: none) */
    if (q >= 0 && c->slot[q] < c->slot[p0]) p = q, side = sq, q = p0, sq = s0;
    for (;;) {
        int slot = c->slot[p];
        if (!ctn_dd_cut_full(c->cut[slot], ROWS(c, p, nfix)) && (c->dyn[p] & (side ? DYN_B : DYN_A))) {
            const double *x = c->y + CH_V(c, p, nfix);
            ctn_block tb;
            const ctn_block *blk = row_block(blocks, slot, &tb);
            if (AXES_AT(c, p, nfix) == 1) /* a ball joint's rows: D = I3 */
                ctn_dd_block_impulse_axes(blk, side, x, w->inertia[b].inv_mass, w->inertia[b].inv_inertia, c->dyn[p] & (side ? ROT_B : ROT_A), dv);
            else if (AXES_AT(c, p, nfix) == 2) /* a hinge's: D = I3 on the linear rows (host/solve/direct_hinge.h) */
                ctn__hinge_impulse(blk, side, x, w->inertia[b].inv_mass, w->inertia[b].inv_inertia, c->dyn[p] & (side ? ROT_B : ROT_A), dv);
            else
                ctn_dd_block_impulse(blk, side, x, w->inertia[b].inv_mass, w->inertia[b].inv_inertia, c->dyn[p] & (side ? ROT_B : ROT_A), dv);
            hit = 1;
        }
        if (q < 0) break;
        p = q, side = sq, q = -1;
    }
    body_finish(w, c, b, dv, hit);
}

/* v_b += dv (hit: a solved joint of b, else nothing changes), or for a chord step x_b += h (v_b + dv). */
static inline void body_finish(ctn_world *w, const direct_chain *c, int b, const double *dv, int hit) {
    if (c->move_h > 0.0f) { /* a chord step: x_b += h v_b at once, v_b = 0 + dv (the velocities stay at rest, +0) */
        chain_move_body(w, b, ctn_dd_vel_add(chain_rest_vel(), dv), c->move_h);
        return;
    }
    if (c->save_v) c->save_v[b] = w->vel[b]; /* every dynamic body of a position passes here once a solve */
    if (!hit) return;
    w->vel[b] = ctn_dd_vel_add(w->vel[b], dv);
}

/* The coupling A_{p,p+dir} (T_E = P_p^-1 A_{p,p+dir} once p is factored): pointer, ld and transpose flag
 * for CTN_DD_E. */
static inline double *coupling(const direct_chain *c, int p, int dir, int *ld, int *tr, int nfix) {
    if (dir > 0) {
        *ld = ROWS(c, p + 1, nfix), *tr = 0;
        return c->C + CH_C(c, p, nfix);
    }
    *ld = ROWS(c, p, nfix), *tr = 1;
    return c->C + CH_C(c, p - 1, nfix);
}

/* Node steps of 5 rows coupled to 5 rows, or 6 to 6, without a spike (hinges, limited hinges, fixed joints)
 * through ctn__node_* (direct_hinge.c): the shared steps with constant sizes, the same operations; off with
 * ctn__chain_set_generic. */
#define NODE56(c, n, nq, na) (((n) == 5 || (n) == 6) && (nq) == (n) && (na) == 0 && !(c)->generic)

/* The segment's walk assembles each position just before it is needed (one ahead of the elimination:
 * K_q before the step of p subtracts from it, C between p and q with it), while its blocks are in cache;
 * the separators were assembled before the walks (assemble_separators). The first solve's forward
 * substitution rides along (forward_segment's steps, r_q formed with K_q): one pass over the blocks and
 * the factor fewer; the hybrid's re-solves with this factor run forward_segment. */
static inline void factor_walk(const ctn_world *w, direct_chain *c, ch_rows blocks, const seg_walk *sw, chain_segment *g, int from,
                               int nfix, double *k_from) {
    seg_walk s = *sw;
    int na = s.a >= 0 ? CH_N(c, s.a) : 0, packed = K_PACKED(c, nfix);
    /* Packed, a pivot waits for its factor step in full in kb, never in K (where P^-1 may be kept in float): K_q,
     * assembled and updated by the step of p, is the next step's K_p; k_mirror leaves it as k_store and k_full
     * would (the upper triangle from the lower), so the same values as through K in double. k_from: K_from so. */
    double kb[2][9], *Pp = k_from ? k_from : k_full(c, from, nfix, kb[0]);
    for (int p = from;; p += s.dir) {
        int q = p + s.dir, inside = p != s.last, ld = 0, tr = 0, n = ROWS(c, p, nfix);
        int nq = inside ? ROWS(c, q, nfix) : (q == s.end ? CH_N(c, q) : 0);
        double *E = nq ? coupling(c, p, s.dir, &ld, &tr, nfix) : NULL;
        double *Fq = inside ? (na ? c->F + CH_F(c, q, nfix) : NULL) : g->g;
        double *Fp = na ? c->F + CH_F(c, p, nfix) : NULL, *y = c->y + CH_V(c, p, nfix);
        double *Qt = Pp == kb[0] ? kb[1] : kb[0];
        if (inside) {
            assemble_position(w, c, blocks, q, nfix, s.dir > 0, packed ? Qt : NULL); /* walking down, p = q - 1 is marked */
            if (packed) k_mirror(Qt);
            rhs_position(w, c, blocks, q, nfix, 0);
        }
        double *Pq = inside ? (packed ? Qt : k_full(c, q, nfix, Qt)) : s.d_end;
        if (NODE56(c, n, nq, na)) { /* a hinge coupled to a hinge: the sizes as constants */
            ctn__node_factor(n, Pp, E, tr, Pq, y, inside ? c->y + CH_V(c, q, nfix) : s.y_end);
        } else {
            ctn_dd_chain_factor_node(Pp, n, E, ld, tr, nq, Pq, Fp, na, Fq, s.d_a);
            ctn_dd_chain_forward_node(Pp, n, y, y, E, ld, tr, nq, inside ? c->y + CH_V(c, q, nfix) : s.y_end, Fp, na, s.y_a);
        }
        k_store(c, p, nfix, Pp);
        if (!inside) break;
        if (packed) k_mirror(Pq);
        Pp = Pq; /* not packed: K_q in place */
    }
}

/* The first position of the walk (and a middle segment's spike F_first = A_{first,a} = C_a^T), then the walk. */
static inline void factor_segment(const ctn_world *w, direct_chain *c, ch_rows blocks, int k, int nfix) {
    seg_walk s = segment_walk(c, k);
    chain_segment *g = &c->seg[k];
    memset(g, 0, sizeof *g);
    double k0[9]; /* packed: K_first for the walk (factor_walk) */
    int packed = K_PACKED(c, nfix);
    assemble_position(w, c, blocks, s.first, nfix, 0, packed ? k0 : NULL);
    if (packed) k_mirror(k0);
    rhs_position(w, c, blocks, s.first, nfix, 0);
    int na = s.a >= 0 ? CH_N(c, s.a) : 0;
    if (na) {
        int n = CH_N(c, s.first);
        const double *Ca = c->C + CH_C(c, s.a, nfix);
        double *F = c->F + CH_F(c, s.first, nfix);
        for (int r = 0; r < n; ++r)
            for (int col = 0; col < na; ++col) F[r * na + col] = Ca[col * n + r];
    }
    factor_walk(w, c, blocks, &s, g, s.first, nfix, packed ? k0 : NULL);
}

/* The steps with the literal 3 that the lean ball walks (host/solve/direct_ball.c) hand over to: a position's
 * assembly and right-hand side where the first position of a segment is not a ball joint, the generic walk from
 * there, from a position that is not a ball joint, or at a segment's last position. Once per segment. */
CHAIN_FLATTEN void ctn__chain_assemble_3(const ctn_world *w, direct_chain *c, ch_rows blocks, int p, double *kout) {
    assemble_position(w, c, blocks, p, 3, 0, kout);
    if (kout) k_mirror(kout);
}
CHAIN_FLATTEN void ctn__chain_rhs_3(const ctn_world *w, direct_chain *c, ch_rows blocks, int p) {
    rhs_position(w, c, blocks, p, 3, 0);
}
CHAIN_FLATTEN void ctn__chain_factor_walk_3(const ctn_world *w, direct_chain *c, ch_rows blocks, const seg_walk *s, chain_segment *g, int from,
                                            double *k_from) {
    factor_walk(w, c, blocks, s, g, from, 3, k_from);
}

/* The right-hand side of each position is formed one ahead of the walk too (r_q before p's step
 * subtracts from it); the separators' before the walks (solve_phases). */
static inline void forward_segment(const ctn_world *w, direct_chain *c, ch_rows blocks, int k, int nfix) {
    seg_walk s = segment_walk(c, k);
    int na = s.a >= 0 ? CH_N(c, s.a) : 0;
    memset(s.y_a, 0, 6 * sizeof *s.y_a);
    memset(s.y_end, 0, 6 * sizeof *s.y_end);
    rhs_position(w, c, blocks, s.first, nfix, 1);
    for (int p = s.first;; p += s.dir) {
        int q = p + s.dir, inside = p != s.last, ld = 0, tr = 0;
        int nq = inside ? ROWS(c, q, nfix) : (q == s.end ? CH_N(c, q) : 0);
        const double *E = nq ? coupling(c, p, s.dir, &ld, &tr, nfix) : NULL;
        double *y = c->y + CH_V(c, p, nfix);
        if (inside) rhs_position(w, c, blocks, q, nfix, 1);
        double Pt[9];
        if (NODE56(c, ROWS(c, p, nfix), nq, na))
            ctn__node_forward(nq, c->K + CH_K(c, p, nfix), y, E, tr, inside ? c->y + CH_V(c, q, nfix) : s.y_end);
        else
            ctn_dd_chain_forward_node(k_full(c, p, nfix, Pt), ROWS(c, p, nfix), y, y, E, ld, tr, nq, inside ? c->y + CH_V(c, q, nfix) : s.y_end,
                                      na ? c->F + CH_F(c, p, nfix) : NULL, na, s.y_a);
        if (!inside) break;
    }
}

/* lambda += dl of position p (dl = x: the solution of (1) itself, the joint-space unknown). */
static inline void add_impulse(const direct_chain *c, int p, float *lambda, int nfix) {
    if (c->rest || c->zero) return; /* the impulses of a solve from rest are not kept */
    int slot = c->slot[p], n = ROWS(c, p, nfix), cut = c->cut[slot];
    const double *x = c->y + CH_V(c, p, nfix);
    float *l = lambda + c->ls * slot;
    if (c->save_l) { /* the two common strides by a copy of constant size (a few moves, no loop) */
        float *sv = c->save_l + c->ls * slot;
        if (c->ls == CTN_MAX_ROWS) memcpy(sv, l, CTN_MAX_ROWS * sizeof *l);
        else if (c->ls == 3) memcpy(sv, l, 3 * sizeof *l);
        else memcpy(sv, l, (size_t)c->ls * sizeof *l);
    }
    if (!cut) {
        for (int r = 0; r < n; ++r) l[r] = (float)((double)l[r] + x[r]);
        return;
    }
    for (int r = 0; r < n; ++r) /* cut rows (dl = 0): the outer Gauss-Seidel's */
        if (!(cut >> r & 1)) l[r] = (float)((double)l[r] + x[r]);
}

/* The dynamic bodies of joint p other than `skip` (-1: none): v += M^-1 J^T dl over their solved joints. */
static inline void apply_joint_bodies(ctn_world *w, const direct_chain *c, ch_rows blocks, int p, int skip, int nfix) {
    const ctn_joint_core *d = &w->topo.defs[c->slot[p]];
    if ((c->dyn[p] & DYN_A) && d->a != skip) apply_body(w, c, blocks, d->a, p, 0, nfix);
    if ((c->dyn[p] & DYN_B) && d->b != skip) apply_body(w, c, blocks, d->b, p, 1, nfix);
}

/* Back-substitution of a segment, last to first, with lambda += dl and the velocity changes of the
 * bodies whose joints are all solved: a body joins at most two consecutive positions, so once x_p is known
 * every body of p is complete except the one it shares with the next position of the walk (p - dir),
 * which that position applies (the separators were solved before the walks). */
static inline void backward_segment(ctn_world *w, direct_chain *c, ch_rows blocks, int k, float *lambda, int nfix) {
    seg_walk s = segment_walk(c, k);
    int na = s.a >= 0 ? CH_N(c, s.a) : 0;
    for (int p = s.last;; p -= s.dir) {
        int q = p + s.dir, ld = 0, tr = 0;
        int nq = p != s.last ? ROWS(c, q, nfix) : (q == s.end ? CH_N(c, q) : 0);
        const double *E = nq ? coupling(c, p, s.dir, &ld, &tr, nfix) : NULL;
        if (NODE56(c, ROWS(c, p, nfix), nq, na))
            ctn__node_backward(nq, c->y + CH_V(c, p, nfix), E, tr, c->y + CH_V(c, q, nfix));
        else
            ctn_dd_chain_backward_node(ROWS(c, p, nfix), c->y + CH_V(c, p, nfix), E, ld, tr, nq, nq ? c->y + CH_V(c, q, nfix) : NULL,
                                       na ? c->F + CH_F(c, p, nfix) : NULL, na, na ? c->y + CH_V(c, s.a, nfix) : NULL);
        add_impulse(c, p, lambda, nfix);
        int behind = s.dir > 0 ? p - 1 : p; /* the position before p in the walk shares shared[behind] with p */
        int skip = p != s.first && behind >= 0 ? c->shared[behind] : -1;
        apply_joint_bodies(w, c, blocks, p, skip, nfix);
        if (p == s.first) break;
    }
}


/* The separators' system, block tridiagonal in j = 1..P-1 with couplings A_{j+1,j} = g of segment j. */
static void factor_separators(direct_chain *c) {
    int P = c->segments;
    double St[9], Qt[9]; /* k_full's */
    for (int j = 1; j < P; ++j) {
        int p = c->sep[j], n = CH_N(c, p);
        double *S = k_full(c, p, 0, St);
        for (int e = 0; e < n * n; ++e) S[e] += c->seg[j - 1].d_bot[e] + c->seg[j].d_top[e];
        k_store(c, p, 0, S);
    }
    for (int j = 1; j < P; ++j) {
        int p = c->sep[j], n = CH_N(c, p), nq = j + 1 < P ? CH_N(c, c->sep[j + 1]) : 0;
        double *S = k_full(c, p, 0, St), *Sq = nq ? k_full(c, c->sep[j + 1], 0, Qt) : NULL;
        ctn_dd_chain_factor_node(S, n, c->seg[j].g, n, 1, nq, Sq, NULL, 0, NULL, NULL);
        k_store(c, p, 0, S);
        if (nq) k_store(c, c->sep[j + 1], 0, Sq);
    }
}

static void solve_separators(direct_chain *c, float *lambda) {
    int P = c->segments;
    for (int j = 1; j < P; ++j) {
        double *y = c->y + CH_V(c, c->sep[j], 0);
        for (int r = 0; r < CH_N(c, c->sep[j]); ++r) y[r] += c->seg[j - 1].y_bot[r] + c->seg[j].y_top[r];
    }
    for (int j = 1; j < P; ++j) {
        int p = c->sep[j], n = CH_N(c, p), nq = j + 1 < P ? CH_N(c, c->sep[j + 1]) : 0;
        double *y = c->y + CH_V(c, p, 0), St[9];
        ctn_dd_chain_forward_node(k_full(c, p, 0, St), n, y, y, c->seg[j].g, n, 1, nq, nq ? c->y + CH_V(c, c->sep[j + 1], 0) : NULL,
                                  NULL, 0, NULL);
    }
    for (int j = P - 1; j >= 1; --j) {
        int p = c->sep[j], n = CH_N(c, p), nq = j + 1 < P ? CH_N(c, c->sep[j + 1]) : 0;
        ctn_dd_chain_backward_node(n, c->y + CH_V(c, p, 0), c->seg[j].g, n, 1, nq,
                                   nq ? c->y + CH_V(c, c->sep[j + 1], 0) : NULL, NULL, 0, NULL);
        add_impulse(c, p, lambda, 0);
    }
}

static int threads_of(const ctn_world *w) {
#ifdef _OPENMP
    return ctn__threads(w);
#else
    (void)w;
    return 1;
#endif
}

/* Each step once with a run-time row count and once flattened with 3 (see "per substep" above); the
 * choice is made per item, inside the OpenMP loops, whose bodies the compiler outlines. */
#define CHAIN_STEP(name, args, call3, call0)                                                                            \
    CHAIN_FLATTEN static void name##_3 args { call3; }                                                                  \
    static void name##_any args { call0; }
CHAIN_STEP(assemble, (const ctn_world *w, direct_chain *c, ch_rows b, int p), assemble_position(w, c, b, p, 3, 0, NULL),
           assemble_position(w, c, b, p, 0, 0, NULL))
CHAIN_STEP(rhs, (const ctn_world *w, direct_chain *c, ch_rows b, int p, int re), rhs_position(w, c, b, p, 3, re),
           rhs_position(w, c, b, p, 0, re))
CHAIN_STEP(apply, (ctn_world *w, const direct_chain *c, ch_rows b, int body, int p, int side), apply_body(w, c, b, body, p, side, 3),
           apply_body(w, c, b, body, p, side, 0))
CHAIN_STEP(factor, (const ctn_world *w, direct_chain *c, ch_rows b, int k), factor_segment(w, c, b, k, 3),
           factor_segment(w, c, b, k, 0))
CHAIN_STEP(forward, (const ctn_world *w, direct_chain *c, ch_rows b, int k), forward_segment(w, c, b, k, 3),
           forward_segment(w, c, b, k, 0))
CHAIN_STEP(backward, (ctn_world *w, direct_chain *c, ch_rows b, int k, float *l), backward_segment(w, c, b, k, l, 3),
           backward_segment(w, c, b, k, l, 0))

/* Every position of 5 rows (c->uniform == 5: plain hinges, the bridge's and most robot arms' joints) or of 6
 * (limited or motorised hinges, fixed joints): the walks with the literal count, whose offsets and row counts
 * (ROWS, CH_V, CH_SQ) are the run-time ones of a uniform sequence as constants (K_PACKED and AXES_AT read the
 * same as with nfix 0 there), so the same operations and bits with the per-position loads, multiplications
 * and tests folded away. */
#define CHAIN_WALKS_N(N)                                                                                               \
    CHAIN_FLATTEN static void factor_##N(const ctn_world *w, direct_chain *c, ch_rows b, int k) { factor_segment(w, c, b, k, N); } \
    CHAIN_FLATTEN static void forward_##N(const ctn_world *w, direct_chain *c, ch_rows b, int k) { forward_segment(w, c, b, k, N); } \
    CHAIN_FLATTEN static void backward_##N(ctn_world *w, direct_chain *c, ch_rows b, int k, float *l) { backward_segment(w, c, b, k, l, N); }
CHAIN_WALKS_N(5)
CHAIN_WALKS_N(6)

/* Whether P^-1 is kept as the lean ball walks (host/solve/direct_ball.c) keep it for these rows: ball records in
 * float (Kf), blocks in double (K); the generic walks take the other pairs. */
static int pivots_as_lean(const direct_chain *c, ch_rows blocks) { return (blocks.ball != NULL) == (c->Kf != NULL); }

/* Whether the factor takes the lean ball walks: a sequence of 3-row positions in at most two segments, not set
 * generic, P^-1 kept as they keep it. */
static int lean_walks(const direct_chain *c, ch_rows blocks) {
    return c->uniform == 3 && c->segments <= 2 && !c->generic && pivots_as_lean(c, blocks);
}

static void factor_phases(const ctn_world *w, direct_chain *c, ch_rows blocks, int lean) {
    int P = c->segments, nt = threads_of(w), three = c->uniform == 3;
    (void)nt;
    for (int j = 1; j < P; ++j) { /* before the walks */
        three ? assemble_3(w, c, blocks, c->sep[j]) : assemble_any(w, c, blocks, c->sep[j]);
        three ? rhs_3(w, c, blocks, c->sep[j], 0) : rhs_any(w, c, blocks, c->sep[j], 0);
    }
    CHAIN_OMP(omp parallel for schedule(static, 1) num_threads(nt) if (P > 1))
    for (int k = 0; k < P; ++k)
        lean    ? (c->zero ? ctn__chain_factor_ball_rest(w, c, blocks, k) : ctn__chain_factor_ball(w, c, blocks, k))
        : three          ? factor_3(w, c, blocks, k)
        : c->uniform == 5 ? factor_5(w, c, blocks, k)
        : c->uniform == 6 ? factor_6(w, c, blocks, k)
                          : factor_any(w, c, blocks, k);
    factor_separators(c);
}

/* The separators' own bodies that no segment position shares (a separator at the end of a path): their
 * velocity changes, once the separators are solved. */
static void apply_separator_bodies(ctn_world *w, const direct_chain *c, ch_rows blocks) {
    for (int j = 1; j < c->segments; ++j) {
        int p = c->sep[j];
        const ctn_joint_core *d = &w->topo.defs[c->slot[p]];
        int bodies[2] = {(c->dyn[p] & DYN_A) ? d->a : -1, (c->dyn[p] & DYN_B) ? d->b : -1};
        for (int e = 0; e < 2; ++e)
            if (bodies[e] >= 0 && bodies[e] != c->shared[p] && (p == 0 || bodies[e] != c->shared[p - 1]))
                c->uniform == 3 ? apply_3(w, c, blocks, bodies[e], p, e) : apply_any(w, c, blocks, bodies[e], p, e);
    }
}

/* forwarded: the factor walks did the forward substitution (the first solve after ctn__chain_factor). */
static void solve_phases(ctn_world *w, direct_chain *c, ch_rows blocks, int forwarded) {
    ctn_topology *t = &w->topo;
    int P = c->segments, nt = threads_of(w), three = c->uniform == 3;
    (void)nt;
    for (int j = 1; j < P && !forwarded; ++j) three ? rhs_3(w, c, blocks, c->sep[j], 1) : rhs_any(w, c, blocks, c->sep[j], 1); /* before the walks */
    CHAIN_OMP(omp parallel num_threads(nt) if (P > 1))
    {
        CHAIN_OMP(omp for schedule(static, 1))
        for (int k = 0; k < P; ++k) {
            if (forwarded) continue;
            if (c->ball && c->rest && pivots_as_lean(c, blocks)) ctn__chain_forward_ball_rest(c, blocks, k);
            else three ? forward_3(w, c, blocks, k) : c->uniform == 5 ? forward_5(w, c, blocks, k)
                      : c->uniform == 6 ? forward_6(w, c, blocks, k) : forward_any(w, c, blocks, k);
        }
        CHAIN_OMP(omp single)
        {
            solve_separators(c, t->lambda);
            apply_separator_bodies(w, c, blocks);
        }
        CHAIN_OMP(omp for schedule(static, 1))
        for (int k = 0; k < P; ++k) {
            if (c->ball) ctn__chain_backward_ball(w, c, blocks, k, t->lambda);
            else three ? backward_3(w, c, blocks, k, t->lambda) : c->uniform == 5 ? backward_5(w, c, blocks, k, t->lambda)
                      : c->uniform == 6 ? backward_6(w, c, blocks, k, t->lambda) : backward_any(w, c, blocks, k, t->lambda);
        }
    }
}

void ctn__chain_set_keep(direct_chain *c, const unsigned char *keep) { c->keep = keep; }

void ctn__chain_set_generic(direct_chain *c, int generic) { c->generic = generic; }

/* Doubles of K (k_store's lower triangle where every position has 3 rows). */
static size_t k_doubles(const direct_chain *c) {
    int m = c->m;
    return c->uniform == 3 ? (size_t)m * 6 : c->uniform ? (size_t)m * c->uniform * c->uniform : (size_t)c->koff[m];
}

int ctn__chain_pivots(direct_chain *c, int single) {
    single = single && c->uniform == 3 && c->segments <= 2; /* k_float: one separator at most */
    size_t nk = k_doubles(c);
    if (single) {
        if (!c->Kf && !(c->Kf = ctn__malloc((nk + 1) * sizeof *c->Kf))) return 0;
        ctn__free(c->K), c->K = NULL;
    } else {
        if (!c->K && !(c->K = ctn__malloc((nk + 1) * sizeof *c->K))) return 0;
        ctn__free(c->Kf), c->Kf = NULL;
    }
    return 1;
}

void ctn__chain_set_balls(direct_chain *c, const ctn_ball_row *balls) { c->balls = balls; }

/* The rows of a public entry: the ball records when set (the blocks are then not read), else the blocks. */
static ch_rows rows_of(const direct_chain *c, const ctn_block *blocks) {
    ch_rows r = {c->balls ? NULL : blocks, c->balls};
    return r;
}

void ctn__chain_arrays(const direct_chain *c, const double **K, size_t *nk, const double **C, size_t *nc, const double **y, size_t *ny) {
    int m = c->m;
    *K = c->K, *C = c->C, *y = c->y;
    *nk = k_doubles(c);
    *nc = c->uniform ? (size_t)(m - 1) * c->uniform * c->uniform : (size_t)c->coff[m];
    *ny = c->uniform ? (size_t)m * c->uniform : (size_t)c->voff[m];
}

int ctn__chain_has(const direct_chain *c, int slot) { return !c->off || !c->off[slot]; }

/* Marks the joints with finite bounds this substep, assembles and factors. Fills cut_list with the cut
 * slots in slot order (the order of the outer Gauss-Seidel sweep, host/solve/solver_direct.c) and returns
 * their count. */
int ctn__chain_factor(ctn_world *w, direct_chain *c, const ctn_block *blocks, int *cut_list) {
    int ncut = 0, lean = lean_walks(c, rows_of(c, blocks));
    factor_phases(w, c, rows_of(c, blocks), lean);
    c->forwarded = 1;
    /* No spikes and every position a ball joint (ctn__chain_factor_ball's walks and the separator): ctn__chain_backward_ball, and no cut rows. */
    c->ball = c->uniform == 3 && c->segments <= 2;
    for (int k = 0; k < c->segments && c->ball && lean; ++k) {
        int sp = c->sep[k + 1];
        if (!c->seg[k].ball || (sp < c->m && (!c->axes[sp] || c->cut[c->slot[sp]]))) c->ball = 0;
    }
    for (int p = 0; p < c->m && c->ball && !lean; ++p)
        if (!c->axes[p] || c->cut[c->slot[p]]) c->ball = 0;
    if (c->ball) return 0;
    for (int slot = 0; slot < w->topo.joint_count; ++slot) /* marked by the assembly (a position's slot only) */
        if (c->cut[slot]) cut_list[ncut++] = slot;
    return ncut;
}

/* |r|^2 of three linear rows along dir[0..2]: ctn_block_residual's operations for n = 3, unrolled. */
static inline double ball_residual(const ctn_world *w, const ctn_joint_core *d, ctn_v3 ra, ctn_v3 rb, const ctn_v3 *dir, const float *bias,
                                   float s0, float s1, float s2, const float *lam) {
    ctn_vel va = ctn_load_vel(w->vel, d->a), vb = ctn_load_vel(w->vel, d->b);
    ctn_v3 dv = ctn_sub(ctn_add(va.v, ctn_cross(va.w, ra)), ctn_add(vb.v, ctn_cross(vb.w, rb))); /* ctn_block_velocity */
    float r0 = bias[0] - ctn_dot(dir[0], dv) - s0 * lam[0];
    float r1 = bias[1] - ctn_dot(dir[1], dv) - s1 * lam[1];
    float r2 = bias[2] - ctn_dot(dir[2], dv) - s2 * lam[2];
    return ((0.0 + (double)r0 * r0) + (double)r1 * r1) + (double)r2 * r2;
}

#if defined(__SSE2__)
/* ball_residual of a ball record in SSE lanes (host/solve/lanes.h): dv = (v_a + w_a x r_a) - (v_b + w_b x r_b)
 * (anchor_dv4), J v of row k as the dot product with the k-th axis (axes_jv4), r = (bias - J v) - S lambda, then ((0 + r_0^2) + r_1^2) + r_2^2 in double: per lane the scalar
 * operations in their order (a float's square is exact in double), so the same bits. Reads only the record's 40
 * bytes (the targets through the 16 bytes from rb.z on) and lambda[0..3] of the joint's (lambda[3]: the next joint's
 * or past the last at a row stride of 3, in the unused lane 3). */
static inline double ball_residual_lanes(const ctn_world *w, const ctn_joint_core *d, const ctn_ball_row *r, const float *lam) {
    const ctn_vel *va = body_vel(w->vel, d->a), *vb = body_vel(w->vel, d->b);
    const float *o = (const float *)(const void *)r;
    __m128 ra = _mm_loadu_ps(o), rb = _mm_loadu_ps(o + 4), tail = _mm_loadu_ps(o + 6); /* (ra, S), (rb, b0), (rb.z, b0, b1, b2) */
    __m128 bias = _mm_shuffle_ps(tail, tail, _MM_SHUFFLE(0, 3, 2, 1));
    __m128 jv = axes_jv4(anchor_dv4(va, vb, ra, rb));
    __m128 res = _mm_sub_ps(_mm_sub_ps(bias, jv), _mm_mul_ps(_mm_shuffle_ps(ra, ra, 0xff), _mm_loadu_ps(lam)));
    __m128d r01 = _mm_cvtps_pd(res), r2 = _mm_cvtps_pd(_mm_movehl_ps(res, res));
    __m128d q01 = _mm_mul_pd(r01, r01), q2 = _mm_mul_pd(r2, r2);
    /* 0 + r_0^2 is r_0^2 bit for bit: a square is never -0, and a NaN stays the NaN it is */
    return (_mm_cvtsd_f64(q01) + _mm_cvtsd_f64(_mm_unpackhi_pd(q01, q01))) + _mm_cvtsd_f64(q2);
}
#else
static inline double ball_residual_lanes(const ctn_world *w, const ctn_joint_core *d, const ctn_ball_row *r, const float *lam) {
    return ball_residual(w, d, r->ra, r->rb, ball_axes, r->bias, r->soft, r->soft, r->soft, lam);
}
#endif

/* Sum of the squared float residuals of the chain's joints (the solver's reported residual), per position
 * in parallel into y (free after the solve), then summed in position order: the same bits on any number
 * of threads (ball records on one thread: summed in that order as they are formed, without y). */
double ctn__chain_residual(ctn_world *w, direct_chain *c, const ctn_block *blocks) {
    const ctn_topology *t = &w->topo;
    int m = c->m, nt = threads_of(w);
    (void)nt;
    if (c->balls && (nt <= 1 || c->segments <= 1)) { /* one thread: summed as they are formed, in position order (the same sum) */
        double r2 = 0.0;
        for (int p = 0; p < m; ++p) {
            int slot = c->slot[p];
            r2 += ball_residual_lanes(w, &t->defs[slot], &c->balls[slot], &t->lambda[c->ls * slot]);
        }
        return r2;
    }
    if (c->balls) { /* ball records: the rows of the blocks they stand for, the world axes */
        CHAIN_OMP(omp parallel for schedule(static) num_threads(nt) if (c->segments > 1))
        for (int p = 0; p < m; ++p) {
            int slot = c->slot[p];
            c->y[CH_V(c, p, 0)] = ball_residual_lanes(w, &t->defs[slot], &c->balls[slot], &t->lambda[c->ls * slot]);
        }
    } else {
        CHAIN_OMP(omp parallel for schedule(static) num_threads(nt) if (c->segments > 1))
        for (int p = 0; p < m; ++p) {
            int slot = c->slot[p];
            const ctn_joint_core *d = &t->defs[slot];
            const float *lam = &t->lambda[c->ls * slot];
            const ctn_block *b = &blocks[slot];
            double s = 0.0;
            if (b->n_lin == 3 && b->n_ang == 0) { /* a ball joint's rows */
                s = ball_residual(w, d, b->ra, b->rb, b->dir, b->bias, b->soft[0], b->soft[1], b->soft[2], lam);
            } else {
                float r[CTN_MAX_ROWS];
                ctn_block_residual(b, ctn_load_vel(w->vel, d->a), ctn_load_vel(w->vel, d->b), lam, r);
                for (int k = 0; k < ctn_block_rows(b); ++k) s += (double)r[k] * r[k]; /* limit and motor rows too */
            }
            c->y[CH_V(c, p, 0)] = s;
        }
    }
    double r2 = 0.0;
    for (int p = 0; p < m; ++p) r2 += c->y[CH_V(c, p, 0)];
    return r2;
}

int ctn__chain_residual_impulses(const ctn_world *w, const direct_chain *c) {
    return c->balls && c->ls == 3 && c->m == w->topo.joint_count; /* a layout's positions are distinct joints */
}

/* A ball record's residual turns any non-finite component of either body's velocity into a non-finite sum: v_a, v_b
 * enter dv lane by lane and w_a, w_b through products with the lever arms (anchor_dv4: inf * 0 is a NaN, inf * x an
 * inf), axes_jv4 spreads every lane of dv into all three rows (its products by the structural zeros), and the rows'
 * squares in double are non-negative, so no later sum cancels an inf. So a finite residual of ball records over
 * positions whose ends are all the world's bodies says every velocity is finite. */
int ctn__chain_residual_velocities(const ctn_world *w, const direct_chain *c) {
    return c->balls && c->ends_all && w->body_count == w->topo.body_count;
}

void ctn__chain_set_reference(direct_chain *c, const ctn_vel *vref, const float *lref) { c->vref = vref, c->lref = lref; }

int ctn__chain_can_save(const ctn_world *w, const direct_chain *c) {
    if (!c->covers) return 0;
    int dynamic = 0, seen = 0;
    for (int b = 0; b < w->topo.body_count; ++b) {
        if (is_dynamic(w, b)) ++dynamic;
        else if (w->inertia[b].inv_mass > 0.0f) return 0; /* a body the checks would move but the walks do not */
    }
    for (int p = 0; p < c->m; ++p) { /* the layout's flags are the bodies' now */
        const ctn_joint_core *d = &w->topo.defs[c->slot[p]];
        if (is_dynamic(w, d->a) != ((c->dyn[p] & DYN_A) != 0) || is_dynamic(w, d->b) != ((c->dyn[p] & DYN_B) != 0)) return 0;
        seen += ((c->dyn[p] & DYN_A) != 0) + ((c->dyn[p] & DYN_B) != 0) - (c->shared[p] >= 0); /* a shared body once */
    }
    return seen == dynamic;
}

int ctn__chain_set_save(direct_chain *c, float *lsave, ctn_vel *vsave) {
    c->save_l = NULL, c->save_v = NULL;
    if (lsave && (c->ball || c->rest || c->zero || c->move_h > 0.0f)) return 0; /* the ball walk does not save */
    c->save_l = lsave, c->save_v = vsave;
    return lsave != NULL;
}

/* After a factor whose forward substitution is not wanted (a factor kept for later solves): the next
 * ctn__chain_solve does its own. */
void ctn__chain_unforward(direct_chain *c) { c->forwarded = 0; }

/* x = A^-1 r for the current velocities and impulses, then lambda += dl, v += M^-1 J^T dl. */
void ctn__chain_solve(ctn_world *w, direct_chain *c, const ctn_block *blocks) {
    solve_phases(w, c, rows_of(c, blocks), c->forwarded);
    c->forwarded = 0;
}

/* The solve with the factor in place from rest: the velocities and impulses are zero (the projection's
 * scratch arrays after PROJECT_REST), so the right-hand side is the blocks' targets alone (no J v, S lambda
 * to form) and the impulses are not accumulated; the velocity changes are applied as by ctn__chain_solve. */
void ctn__chain_solve_rest(ctn_world *w, direct_chain *c, const ctn_block *blocks) {
    c->rest = 1;
    solve_phases(w, c, rows_of(c, blocks), 0);
    c->rest = 0;
    c->forwarded = 0;
}

int ctn__chain_moves(const ctn_world *w, const direct_chain *c, float h) {
    return c->covers && w->body_count == w->topo.body_count && h > 0.0f;
}

/* A Newton step of the projection on the chain path without its scratch arrays: the factor of the projected rows
 * in blocks and its solve, the state read at rest (the velocities and impulses +0, as PROJECT_REST leaves the
 * scratch arrays: c->zero), the impulses not kept and each body's pose moved by h v as soon as its velocity change
 * is complete (the chord step's walk): ctn__chain_factor, ctn__chain_solve and the integration x += h v with the
 * same operations, so the same bits, and neither w->vel nor topo.lambda (the real arrays) read or written but for
 * the inverse masses. Returns 0 with nothing moved where that does not apply: a body outside the layout
 * (ctn__chain_moves) or rows cut from the exact solve (their Gauss-Seidel reads the impulses); the factor is then
 * left without its forward substitution. */
int ctn__chain_project_step(ctn_world *w, direct_chain *c, const ctn_block *blocks, int *cut_list, float h) {
    if (!ctn__chain_moves(w, c, h)) return 0;
    c->zero = 1;
    int ncut = ctn__chain_factor(w, c, blocks, cut_list);
    if (ncut > 0) {
        c->zero = 0, c->forwarded = 0;
        return 0;
    }
    c->move_h = h;
    solve_phases(w, c, rows_of(c, blocks), c->forwarded);
    c->zero = 0, c->move_h = 0.0f;
    c->forwarded = 0;
    return 1;
}

/* A chord step of the projection (host/solve/pipeline.c project_steps) from rest, as ctn__chain_solve_rest
 * followed by the integration x += h v of every body, in one walk: each body's pose moves as soon as its
 * velocity change is complete in the back-substitution, and the scratch velocities are never written (they
 * stay zero for the next chord step: no reset pass, no velocity pass, no integration pass). The same float
 * operations as the separate stages (v = 0 + dv rounded to float, then ctn_body_integrate), so the same bits.
 * Only when every body the integration would move is a dynamic body of the layout (a body outside it would be
 * integrated at zero velocity, which renormalises its orientation); returns 0 (nothing done) otherwise. */
int ctn__chain_chord_step(ctn_world *w, direct_chain *c, const ctn_block *blocks, float h) {
    if (!ctn__chain_moves(w, c, h)) return 0;
    c->rest = 1, c->move_h = h;
    solve_phases(w, c, rows_of(c, blocks), 0);
    c->rest = 0, c->move_h = 0.0f;
    c->forwarded = 0;
    return 1;
}

/* The path order of the layout, for the OpenCL backend's chain kernels (host/opencl/opencl_direct.c), so
 * both backends eliminate the same positions in the same order: per position p < m its joint slot, rows,
 * dynamic body shared with p + 1 (-1: none), that body's sides (bit 0 in joint p, bit 1 in joint p + 1)
 * and the DYN_* bits (CTN_CH_DYN_* of kernels/ctn_direct.h). Returns m. */
int ctn__chain_positions(const direct_chain *c, const int **slot, const int **shared, const unsigned char **n, const unsigned char **side,
                         const unsigned char **dyn) {
    _Static_assert(DYN_A == CTN_CH_DYN_A && DYN_B == CTN_CH_DYN_B && ROT_A == CTN_CH_ROT_A && ROT_B == CTN_CH_ROT_B,
                   "the device chain kernels read the same bits");
    *slot = c->slot, *shared = c->shared, *n = c->n, *side = c->side, *dyn = c->dyn;
    return c->m;
}

int ctn__chain_separators(const direct_chain *c, const int **sep) {
    *sep = c->sep;
    return c->segments;
}
