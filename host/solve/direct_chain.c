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
 * host/solve/solver_direct.c treats the cut rows. */
#include "core/world.h"
#include "ctn_solver.h"
#include "solve/direct_internal.h"
#include "solve/direct_hinge.h"
#include "solve/lanes.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "ctn_direct.h"

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

/* Per position: which bodies of the joint are dynamic (side a, side b) and which of those rotate. */
enum { DYN_A = 1, DYN_B = 2, ROT_A = 4, ROT_B = 8 };

typedef struct chain_segment {
    double d_top[36], d_bot[36]; /* pivot updates of the separators above and below (accumulated -=) */
    double g[36];                /* A_{c,a} of a middle segment: n_bot x n_top */
    double y_top[6], y_bot[6];   /* right-hand-side updates of the separators (accumulated -=) */
    int ball;                    /* the last factor walked every position as a ball joint (factor_ball) */
} chain_segment;

struct direct_chain {
    int m, segments;
    int forwarded;         /* the factor walks did the next solve's forward substitution */
    int *slot;             /* [p] joint slot */
    int *pos;              /* [slot] position, -1 for joints between two non-dynamic bodies */
    int *shared;           /* [p] dynamic body shared with p + 1, -1 at the end of a path */
    unsigned char *n;      /* [p] rows */
    unsigned char *side;   /* [p] side of shared[p] in joint p (bit 0) and in joint p + 1 (bit 1) */
    unsigned char *dyn;    /* [p] DYN_* bits of the joint's two bodies */
    unsigned char *axes;   /* [p] set by its assembly: 1 the rows of the position's block are the world axes (ctn_dd_rows_axes);
                            * 2 three world-axis linear rows then angular rows (ctn__hinge_rows, a hinge's: the lean steps) */
    int uniform;           /* rows of every position when they all match, else 0 */
    /* Offsets of K_p, C_p and y_p (F_p at 6 times y_p's) when the rows differ between positions; NULL for a
     * uniform sequence, whose offsets are implicit (CH_K, CH_C, CH_V): 6p, 9p and 3p for ball joints, whose K_p
     * is kept as its lower triangle (k_full, k_store). */
    int *koff, *coff, *voff;
    int *sep;              /* [0..P] separators, sep[0] = -1, sep[P] = m */
    unsigned char *cut;    /* [slot] rows left out of the exact solve this substep (bit mask, ctn_dd_cut_mask) */
    const unsigned char *keep; /* [slot] bounded rows the active set keeps in the exact solve (not owned; NULL: none) */
    double *K, *C, *F, *y; /* pivots (then their inverses), couplings, spikes, right-hand side -> solution */
    const ctn_vel *vref;   /* a re-solve: the velocities and impulses the last solve left (not owned) */
    const float *lref;
    int rest;              /* a solve from rest (ctn__chain_solve_rest): v = 0, lambda = 0 and not accumulated */
    /* a projection step at rest without scratch arrays (ctn__chain_project_step): the velocities and impulses are
     * read as zero (w->vel's v and w, topo.lambda are the real ones, not read), the impulses are not accumulated
     * and the velocity changes move the poses (move_h) */
    int zero;
    float move_h;          /* > 0: a chord step (ctn__chain_chord_step): each body's pose moves by move_h v instead of v += dv */
    int ball;              /* the factor's rows: three world axes at every position, none cut, at most two segments (backward_ball) */
    int covers;            /* every dynamic or kinematic body is a dynamic body of some position (ctn__chain_chord_step) */
    int generic;           /* factor_ball off (ctn__chain_set_generic) */
    const ctn_ball_row *balls; /* [slot] the rows as ball records in place of the blocks (ctn__chain_set_balls; not owned; NULL: blocks) */
    chain_segment *seg;
};

static int is_dynamic(const ctn_world *w, int body) {
    return body >= 0 && body < w->topo.body_count && (w->props[body].flags & CTN_BODY_FLAG_DYNAMIC) != 0;
}

void ctn__chain_free(direct_chain *c) {
    if (!c) return;
    void *p[] = {c->slot, c->pos, c->shared, c->n, c->side, c->dyn, c->axes, c->koff, c->coff, c->voff,
                 c->sep, c->cut, c->K, c->C, c->F, c->y, c->seg};
    for (size_t k = 0; k < sizeof p / sizeof p[0]; ++k) ctn__free(p[k]);
    ctn__free(c);
}

/* The other joint of body b than slot (-1 if b is not dynamic or has one joint). */
static int next_joint(const int *deg, const int *jt, int b, int slot) {
    if (b < 0 || deg[b] != 2) return -1;
    return jt[2 * b] == slot ? jt[2 * b + 1] : jt[2 * b];
}

/* Orders the joints into paths: perm and shared. Returns 0 when the layout is not a set of paths. */
static int order_paths(const ctn_world *w, direct_chain *c, const int *deg, const int *jt, unsigned char *seen) {
    const ctn_topology *t = &w->topo;
    int m = 0;
    for (int s0 = 0; s0 < t->joint_count; ++s0) {
        if (c->pos[s0] != -2 || seen[s0]) continue; /* -2: active, not yet placed */
        const ctn_joint_def *d = &t->defs[s0];
        int na = next_joint(deg, jt, is_dynamic(w, d->a) ? d->a : -1, s0);
        int nb = next_joint(deg, jt, is_dynamic(w, d->b) ? d->b : -1, s0);
        if (na >= 0 && nb >= 0) continue; /* not an end of its path */
        int slot = s0, through = na >= 0 ? d->a : (nb >= 0 ? d->b : -1);
        for (;;) {
            seen[slot] = 1;
            c->slot[m] = slot;
            c->pos[slot] = m;
            c->shared[m] = -1;
            int nx = next_joint(deg, jt, through, slot);
            if (nx < 0 || seen[nx]) {
                m++;
                break;
            }
            const ctn_joint_def *e = &t->defs[nx];
            c->shared[m] = through;
            c->side[m] = (unsigned char)((t->defs[slot].a == through ? 0 : 1) | (e->a == through ? 0 : 2));
            m++;
            int other = e->a == through ? e->b : e->a;
            through = is_dynamic(w, other) ? other : -1;
            slot = nx;
        }
    }
    for (int s = 0; s < t->joint_count; ++s)
        if (c->pos[s] == -2) return 0; /* on a loop */
    c->m = m;
    return 1;
}

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
    c->pos = ctn__malloc(m1 * sizeof *c->pos);
    c->shared = ctn__malloc(m1 * sizeof *c->shared);
    c->n = ctn__malloc(m1);
    c->side = ctn__calloc(m1, 1);
    c->dyn = ctn__calloc(m1, 1);
    c->axes = ctn__calloc(m1, 1);
    c->cut = ctn__calloc(m1, 1);
    if (!c->slot || !c->pos || !c->shared || !c->n || !c->side || !c->dyn || !c->axes || !c->cut) goto fail;
    for (int s = 0; s < m; ++s) {
        const ctn_joint_def *d = &t->defs[s];
        int da = is_dynamic(w, d->a), db = is_dynamic(w, d->b);
        c->pos[s] = da || db ? -2 : -1;
        if (!da && !db) continue;
        if (ctn__direct_rows(d) == 0 || (da && db && d->a == d->b)) goto not_chain;
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
    size_t ko = 0, co = 0, vo = 0;
    c->uniform = ctn__direct_rows(&t->defs[c->slot[0]]);
    for (int p = 0; p < m; ++p) {
        const ctn_joint_def *d = &t->defs[c->slot[p]];
        int n = ctn__direct_rows(d);
        c->n[p] = (unsigned char)n;
        if (n != c->uniform) c->uniform = 0;
        if (is_dynamic(w, d->a)) c->dyn[p] |= DYN_A | (ctn__direct_body_dof(w, d->a) == 6 ? ROT_A : 0);
        if (is_dynamic(w, d->b)) c->dyn[p] |= DYN_B | (ctn__direct_body_dof(w, d->b) == 6 ? ROT_B : 0);
        ko += (size_t)n * n;
        vo += (size_t)n;
        if (p + 1 < m) co += (size_t)n * ctn__direct_rows(&t->defs[c->slot[p + 1]]);
    }
    if (6 * vo > INT_MAX) goto not_chain; /* int offsets (the forest path's are size_t) */
    if (!c->uniform) { /* explicit offsets: one int per position and array */
        c->koff = ctn__malloc(n1 * sizeof *c->koff);
        c->coff = ctn__malloc(n1 * sizeof *c->coff);
        c->voff = ctn__malloc(n1 * sizeof *c->voff);
        if (!c->koff || !c->coff || !c->voff) goto fail;
        int k = 0, cc = 0, v = 0;
        for (int p = 0; p < m; ++p) {
            c->koff[p] = k, c->coff[p] = cc, c->voff[p] = v;
            k += c->n[p] * c->n[p];
            v += c->n[p];
            if (p + 1 < m) cc += c->n[p] * c->n[p + 1];
        }
        c->koff[m] = k, c->coff[m] = cc, c->voff[m] = v;
    }
    place_separators(c, segments);
    if (c->uniform == 3) ko = 6 * (size_t)m; /* K_p symmetric: its lower triangle (k_store) */
    c->K = ctn__malloc((ko + 1) * sizeof *c->K);
    c->C = ctn__malloc((co + 1) * sizeof *c->C);
    c->F = c->segments > 2 ? ctn__malloc((6 * vo + 1) * sizeof *c->F) : NULL;
    c->y = ctn__malloc((vo + 1) * sizeof *c->y);
    c->seg = ctn__malloc((size_t)c->segments * sizeof *c->seg);
    if (!c->K || !c->C || (c->segments > 2 && !c->F) || !c->y || !c->seg) goto fail;
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
#if defined(__GNUC__)
#define CHAIN_FLATTEN __attribute__((flatten))
#else
#define CHAIN_FLATTEN
#endif
#define ROWS(c, p, nfix) ((nfix) ? (nfix) : (c)->n[p])
/* Offsets of K_p (n_p^2 doubles), C_p (n_p n_{p+1}), y_p (n_p) and the spike F_p (6 n_p, at 6 times y_p's):
 * implicit in a uniform sequence (nfix, the literal row count of the flattened steps, or c->uniform), else
 * from the position's int offsets. */
#define CH_SQ(c, p, nfix, arr) \
    ((nfix) ? (size_t)(p) * (size_t)((nfix) * (nfix)) : (c)->uniform ? (size_t)(p) * (size_t)((c)->uniform * (c)->uniform) : (size_t)(c)->arr[p])
#define CH_K(c, p, nfix) (K_PACKED(c, nfix) ? (size_t)(p) * 6 : CH_SQ(c, p, nfix, koff))
#define CH_C(c, p, nfix) CH_SQ(c, p, nfix, coff)
#define CH_V(c, p, nfix) ((nfix) ? (size_t)(p) * (size_t)(nfix) : (c)->uniform ? (size_t)(p) * (size_t)(c)->uniform : (size_t)(c)->voff[p])
#define CH_F(c, p, nfix) (6 * CH_V(c, p, nfix))

/* The rows the walks read (c->balls): every joint's ctn_block (blk), or where every joint of the world is a rigid
 * ball joint, its 40-byte ctn_ball_row (ball; blk is then NULL): the lever arms, the three targets and one
 * softness, the rows being the world axes, unbounded. The ball walks below read the fields through BR_* with
 * `rec` (1: records) a constant of each instance, so each reads its array with no test; the generic steps, which
 * a ball-jointed chain reaches at the separator and a segment's last position only, take a block formed from
 * the record (row_block) with the values the row build would have stored in the block, so the same bits. */
typedef struct ch_rows {
    const ctn_block *blk;
    const ctn_ball_row *ball;
} ch_rows;
#define BR_RA(R, rec, s) ((rec) ? (R).ball[s].ra : (R).blk[s].ra)
#define BR_RB(R, rec, s) ((rec) ? (R).ball[s].rb : (R).blk[s].rb)
#define BR_ARMP(R, rec, s, side) ((rec) ? ((side) ? &(R).ball[s].rb : &(R).ball[s].ra) : ((side) ? &(R).blk[s].rb : &(R).blk[s].ra))
#define BR_BIAS(R, rec, s) ((rec) ? (R).ball[s].bias : (R).blk[s].bias)
#define BR_SOFT(R, rec, s, k) ((rec) ? (R).ball[s].soft : (R).blk[s].soft[k])

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
static inline double *k_full(const direct_chain *c, int p, int nfix, double *tmp) {
    double *k = c->K + CH_K(c, p, nfix);
    if (!K_PACKED(c, nfix)) return k;
    tmp[0] = k[0], tmp[1] = k[1], tmp[2] = k[3];
    tmp[3] = k[1], tmp[4] = k[2], tmp[5] = k[4];
    tmp[6] = k[3], tmp[7] = k[4], tmp[8] = k[5];
    return tmp;
}
static inline void k_store(direct_chain *c, int p, int nfix, const double *full) {
    if (!K_PACKED(c, nfix)) return; /* written in place */
    double *k = c->K + CH_K(c, p, nfix);
    k[0] = full[0], k[1] = full[3], k[2] = full[4], k[3] = full[6], k[4] = full[7], k[5] = full[8];
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

static inline void assemble_position(const ctn_world *w, direct_chain *c, ch_rows blocks, int p, int nfix, int prev_known) {
    int slot = c->slot[p], n = ROWS(c, p, nfix), dyn = c->dyn[p];
    ctn_block tb, tp; /* row_block's, for ball records */
    const ctn_block *blk = row_block(blocks, slot, &tb);
    int cut = cut_of(c, blocks, slot), cut_prev = 0, full = ctn_dd_cut_full(cut, n);
    c->cut[slot] = (unsigned char)cut;
    double Kt[9];
    double *K = K_PACKED(c, nfix) ? Kt : c->K + CH_K(c, p, nfix); /* packed: formed in Kt, stored by k_store */
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
        k_store(c, p, nfix, K);
        return;
    }
    const ctn_joint_def *d = &w->topo.defs[slot];
    int np = bp ? ROWS(c, p - 1, nfix) : 0, sp = bp ? c->side[p - 1] & 1 : 0, ps = bp ? (c->side[p - 1] >> 1) & 1 : 0;
    if (hinge_pair(hinge, blk, bp, np, bp && prev_known ? c->axes[p - 1] : -1)) { /* the bodies' masses read in place */
        static const ctn_sym3 none = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
        ctn__hinge_assemble(blk, n, dyn, (dyn & DYN_A) ? w->vel[d->a].inv_mass : 0.0, (dyn & DYN_A) ? &w->inertia[d->a].inv_inertia : &none,
                            (dyn & DYN_B) ? w->vel[d->b].inv_mass : 0.0, (dyn & DYN_B) ? &w->inertia[d->b].inv_inertia : &none, bp, np, sp, ps, K, C);
        if (cut | cut_prev) ctn_dd_chain_cut(K, n, cut, C, p > 0 ? ROWS(c, p - 1, nfix) : 0, cut_prev);
        return;
    }
    double ima = 0.0, imb = 0.0;
    ctn_sym3 Ia = {0}, Ib = {0};
    if (dyn & DYN_A) ima = w->vel[d->a].inv_mass, Ia = w->inertia[d->a].inv_inertia;
    if (dyn & DYN_B) imb = w->vel[d->b].inv_mass, Ib = w->inertia[d->b].inv_inertia;
    int axes_prev = bp && axes && (prev_known ? c->axes[p - 1] == 1 : ctn_dd_rows_axes(bp)); /* walking down, p - 1 is marked */
    ctn_dd_chain_assemble_ax(blk, axes, n, dyn, ima, Ia, imb, Ib, bp, axes_prev, np, sp, ps, K, C);
    if (cut | cut_prev) ctn_dd_chain_cut(K, n, cut, C, p > 0 ? ROWS(c, p - 1, nfix) : 0, cut_prev);
    k_store(c, p, nfix, K);
}

/* The projection's scratch velocity of body b at rest (ctn_project_begin_body of w->vel: v = w = +0, the inverse
 * mass kept) and its scratch impulses (+0), for a solve that reads them without the scratch arrays (c->zero). */
static const float chain_rest_lambda[6] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
static inline ctn_vel chain_rest_vel(const ctn_world *w, int b) {
    ctn_vel v = ctn_load_vel(w->vel, b);
    v.v = ctn_v3_zero();
    v.w = ctn_v3_zero();
    return v;
}

/* Right-hand side r_p (zero on cut rows); resolve (a constant at every call): the walk of a re-solve, which
 * takes the change since c->vref, c->lref when they are set. */
static inline void rhs_position(const ctn_world *w, direct_chain *c, ch_rows blocks, int p, int nfix, int resolve) {
    const ctn_topology *t = &w->topo;
    int slot = c->slot[p], n = ROWS(c, p, nfix);
    double *y = c->y + CH_V(c, p, nfix);
    const ctn_joint_def *d = &t->defs[slot];
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
                            ctn_load_vel(c->vref, d->b), &t->lambda[6 * slot], &c->lref[6 * slot], y);
    else if (c->zero) /* the projection's scratch state at rest: v = +0, lambda = +0, read as the arrays would hold them */
        ctn_dd_chain_rhs(blk, chain_rest_vel(w, d->a), chain_rest_vel(w, d->b), chain_rest_lambda, y);
    else
        ctn_dd_chain_rhs(blk, ctn_load_vel(w->vel, d->a), ctn_load_vel(w->vel, d->b), &t->lambda[6 * slot], y);
    ctn_dd_zero_cut(c->cut[slot], n, y);
}

static inline void body_finish(ctn_world *w, const direct_chain *c, int b, const double *dv, int hit);

/* v_b += M^-1 J^T dl over the solved joints of body b. */
static inline void apply_body(ctn_world *w, const direct_chain *c, ch_rows blocks, int b, int nfix) {
    const ctn_topology *t = &w->topo;
    double dv[6] = {0, 0, 0, 0, 0, 0};
    int hit = 0;
    for (int e = t->adj_offsets[b]; e < t->adj_offsets[b + 1]; ++e) {
        int slot = t->adj[e] >> 1, side = t->adj[e] & 1, p = c->pos[slot];
        if (p < 0 || ctn_dd_cut_full(c->cut[slot], ROWS(c, p, nfix)) || !(c->dyn[p] & (side ? DYN_B : DYN_A))) continue;
        const double *x = c->y + CH_V(c, p, nfix);
        ctn_block tb;
        const ctn_block *blk = row_block(blocks, slot, &tb);
        if (c->axes[p] == 1) /* a ball joint's rows: D = I3 */
            ctn_dd_block_impulse_axes(blk, side, x, w->vel[b].inv_mass, w->inertia[b].inv_inertia, c->dyn[p] & (side ? ROT_B : ROT_A), dv);
        else if (c->axes[p] == 2) /* a hinge's: D = I3 on the linear rows (host/solve/direct_hinge.h) */
            ctn__hinge_impulse(blk, side, x, w->vel[b].inv_mass, w->inertia[b].inv_inertia, c->dyn[p] & (side ? ROT_B : ROT_A), dv);
        else
            ctn_dd_block_impulse(blk, side, x, w->vel[b].inv_mass, w->inertia[b].inv_inertia, c->dyn[p] & (side ? ROT_B : ROT_A), dv);
        hit = 1;
    }
    body_finish(w, c, b, dv, hit);
}

/* v_b += dv (hit: a solved joint of b, else nothing changes), or for a chord step x_b += h (v_b + dv). */
static inline void body_finish(ctn_world *w, const direct_chain *c, int b, const double *dv, int hit) {
    if (c->move_h > 0.0f) { /* a chord step: x_b += h v_b at once, v_b = 0 + dv (the velocities stay at rest, +0) */
        w->pose[b] = ctn_body_integrate(w->pose[b], ctn_dd_vel_add(chain_rest_vel(w, b), dv), w->props[b], c->move_h);
        return;
    }
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

typedef struct seg_walk {
    int first, last, dir; /* nodes first..last in steps of dir */
    int a, end;           /* spike separator behind first, separator after last (-1: none) */
    double *d_a, *d_end, *y_a, *y_end; /* the separators' accumulators in the segment record */
} seg_walk;

static seg_walk segment_walk(direct_chain *c, int k) {
    seg_walk s;
    chain_segment *g = &c->seg[k];
    int P = c->segments, lo = c->sep[k] + 1, hi = c->sep[k + 1] - 1;
    s.dir = k == P - 1 && P > 1 ? -1 : 1;
    s.first = s.dir > 0 ? lo : hi, s.last = s.dir > 0 ? hi : lo;
    s.a = s.dir > 0 && k > 0 ? c->sep[k] : -1;
    s.end = s.dir > 0 ? (k < P - 1 ? c->sep[k + 1] : -1) : c->sep[k];
    s.d_a = g->d_top, s.y_a = g->y_top;
    s.d_end = s.dir > 0 ? g->d_bot : g->d_top, s.y_end = s.dir > 0 ? g->y_bot : g->y_top;
    return s;
}

/* The segment's walk assembles each position just before it is needed (one ahead of the elimination:
 * K_q before the step of p subtracts from it, C between p and q with it), while its blocks are in cache;
 * the separators were assembled before the walks (assemble_separators). The first solve's forward
 * substitution rides along (forward_segment's steps, r_q formed with K_q): one pass over the blocks and
 * the factor fewer; the hybrid's re-solves with this factor run forward_segment. */
static inline void factor_walk(const ctn_world *w, direct_chain *c, ch_rows blocks, const seg_walk *sw, chain_segment *g, int from,
                               int nfix) {
    seg_walk s = *sw;
    int na = s.a >= 0 ? c->n[s.a] : 0;
    for (int p = from;; p += s.dir) {
        int q = p + s.dir, inside = p != s.last, ld = 0, tr = 0, n = ROWS(c, p, nfix);
        int nq = inside ? ROWS(c, q, nfix) : (q == s.end ? c->n[q] : 0);
        double *E = nq ? coupling(c, p, s.dir, &ld, &tr, nfix) : NULL;
        double *Fq = inside ? (na ? c->F + CH_F(c, q, nfix) : NULL) : g->g;
        double *Fp = na ? c->F + CH_F(c, p, nfix) : NULL, *y = c->y + CH_V(c, p, nfix);
        if (inside) {
            assemble_position(w, c, blocks, q, nfix, s.dir > 0); /* walking down, p = q - 1 is marked */
            rhs_position(w, c, blocks, q, nfix, 0);
        }
        double Pt[9], Qt[9]; /* K_p, K_q in full (k_full) */
        double *Pp = k_full(c, p, nfix, Pt), *Pq = inside ? k_full(c, q, nfix, Qt) : s.d_end;
        if (NODE56(c, n, nq, na)) { /* a hinge coupled to a hinge: the sizes as constants */
            ctn__node_factor(n, Pp, E, tr, Pq, y, inside ? c->y + CH_V(c, q, nfix) : s.y_end);
        } else {
            ctn_dd_chain_factor_node(Pp, n, E, ld, tr, nq, Pq, Fp, na, Fq, s.d_a);
            ctn_dd_chain_forward_node(Pp, n, y, y, E, ld, tr, nq, inside ? c->y + CH_V(c, q, nfix) : s.y_end, Fp, na, s.y_a);
        }
        k_store(c, p, nfix, Pp);
        if (inside) k_store(c, q, nfix, Pq);
        if (!inside) break;
    }
}

/* The first position of the walk (and a middle segment's spike F_first = A_{first,a} = C_a^T), then the walk. */
static inline void factor_segment(const ctn_world *w, direct_chain *c, ch_rows blocks, int k, int nfix) {
    seg_walk s = segment_walk(c, k);
    chain_segment *g = &c->seg[k];
    memset(g, 0, sizeof *g);
    assemble_position(w, c, blocks, s.first, nfix, 0);
    rhs_position(w, c, blocks, s.first, nfix, 0);
    int na = s.a >= 0 ? c->n[s.a] : 0;
    if (na) {
        int n = c->n[s.first];
        const double *Ca = c->C + CH_C(c, s.a, nfix);
        double *F = c->F + CH_F(c, s.first, nfix);
        for (int r = 0; r < n; ++r)
            for (int col = 0; col < na; ++col) F[r * na + col] = Ca[col * n + r];
    }
    factor_walk(w, c, blocks, &s, g, s.first, nfix);
}

/* ---- the factor walk of a ball-jointed chain -------------------------------------------------------
 * The common case (every position three world-axis rows, none cut, at most two segments: no spike) takes
 * a walk of its own that forms each position's pivot, coupling and right-hand side in registers, factors
 * and substitutes forward at once, and stores only what the later walks read: P^-1 in K, T_E = P^-1 E in C,
 * u = P^-1 y in y. Per position (a body shared by two joints, both rotating):
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
static const ctn_v3 ball_axes[3] = {{1.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, {0.0f, 0.0f, 1.0f}};
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
    double im = w->vel[b].inv_mass, B[9];
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
    double ima = w->vel[a].inv_mass, imb = w->vel[b].inv_mass;
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
 * uncut. zero (a constant of each instance): the state at rest of c->zero, whose velocities and impulses are read
 * as the zeros they are (ball_vel of the world: +0). */
static inline void ball_assemble(const ctn_world *w, direct_chain *c, ch_rows blocks, int rec, int x, ball_node *nd, ball_shared *shd,
                                 int zero) {
    int slot = c->slot[x], dyn = c->dyn[x], sh = x > 0 && c->shared[x - 1] >= 0 ? (c->side[x - 1] >> 1) & 1 : -1;
    ctn_v3 ra = BR_RA(blocks, rec, slot), rb = BR_RB(blocks, rec, slot);
    const float *bias = BR_BIAS(blocks, rec, slot);
    double s0 = (double)BR_SOFT(blocks, rec, slot, 0), s1 = (double)BR_SOFT(blocks, rec, slot, 1), s2 = (double)BR_SOFT(blocks, rec, slot, 2);
    const ctn_joint_def *d = &w->topo.defs[slot];
    double W[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    c->cut[slot] = 0, c->axes[x] = 1;
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
    const float *lam = zero ? chain_rest_lambda : &w->topo.lambda[6 * slot];
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
static inline void ball_step(direct_chain *c, int p, int lo, int dir, const ball_node *cur, const double *E, ball_node *nx) {
    const double *k = cur->K;
    double o[6];
    if (!ctn_dd_inverse3_closed(k[0], k[1], k[3], k[2], k[4], k[5], o)) {
        double P[9] = {k[0], k[1], k[3], k[1], k[2], k[4], k[3], k[4], k[5]};
        ctn_dd_spd_inverse_g(P, 3, 3);
        o[0] = P[0], o[1] = P[3], o[2] = P[4], o[3] = P[6], o[4] = P[7], o[5] = P[8];
    }
    double p00 = o[0], p10 = o[1], p11 = o[2], p20 = o[3], p21 = o[4], p22 = o[5];
    double e0 = E[0], e1 = E[1], e2 = E[2], e3 = E[3], e4 = E[4], e5 = E[5], e6 = E[6], e7 = E[7], e8 = E[8];
    double *Kp = c->K + 6 * (size_t)p, *Cm = c->C + 9 * (size_t)lo, *y = c->y + 3 * (size_t)p;
    Kp[0] = p00, Kp[1] = p10, Kp[2] = p11, Kp[3] = p20, Kp[4] = p21, Kp[5] = p22; /* the lower triangle (k_store) */
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

/* The generic walk from p on, which expects K_p and y_p stored and, walking up with a next position, the
 * coupling C_{p-1} (which assemble_position of p forms; its pivot is then put back). Not inlined: the
 * lean walk's way out (the last node, or a position that is not a ball joint). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
CHAIN_FLATTEN static void ball_leave(const ctn_world *w, direct_chain *c, ch_rows blocks, seg_walk s, chain_segment *g, int p,
                                     ball_node cur) {
    if (s.dir < 0 && (p != s.last || p + s.dir == s.end)) assemble_position(w, c, blocks, p, 3, 0);
    const double *k = cur.K;
    double *K = c->K + 6 * (size_t)p, *y = c->y + 3 * (size_t)p; /* the lower triangle, as ball_node's (k_store) */
    K[0] = k[0], K[1] = k[1], K[2] = k[2], K[3] = k[3], K[4] = k[4], K[5] = k[5];
    y[0] = cur.y[0], y[1] = cur.y[1], y[2] = cur.y[2];
    factor_walk(w, c, blocks, &s, g, p, 3);
}

/* factor_segment of segment k (no spike) as the lean walk above; dir (the segment's) and zero (c->zero): constants per copy. */
static inline void factor_ball_dir(const ctn_world *w, direct_chain *c, ch_rows blocks, int rec, int k, int dir, int zero) {
    seg_walk s = segment_walk(c, k);
    chain_segment *g = &c->seg[k];
    memset(g, 0, sizeof *g);
    if (!ball_ok(c, blocks, rec, s.first)) {
        assemble_position(w, c, blocks, s.first, 3, 0);
        rhs_position(w, c, blocks, s.first, 3, 0);
        factor_walk(w, c, blocks, &s, g, s.first, 3);
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
        ball_step(c, p, dir > 0 ? p : q, dir, &cur, E, &nx);
        cur = nx;
    }
    ball_leave(w, c, blocks, s, g, s.last, cur); /* the last node: to the separator's accumulators, or none */
    g->ball = 1;
}

CHAIN_FLATTEN static void factor_ball(const ctn_world *w, direct_chain *c, ch_rows blocks, int k) {
    int up = k == c->segments - 1 && c->segments > 1;
    if (blocks.ball) up ? factor_ball_dir(w, c, blocks, 1, k, -1, 0) : factor_ball_dir(w, c, blocks, 1, k, 1, 0);
    else up ? factor_ball_dir(w, c, blocks, 0, k, -1, 0) : factor_ball_dir(w, c, blocks, 0, k, 1, 0);
}

/* factor_ball for the state at rest (c->zero): instances of their own, so that the common ones above compile as
 * they did. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
CHAIN_FLATTEN static void factor_ball_rest(const ctn_world *w, direct_chain *c, ch_rows blocks, int k) {
    int up = k == c->segments - 1 && c->segments > 1;
    if (blocks.ball) up ? factor_ball_dir(w, c, blocks, 1, k, -1, 1) : factor_ball_dir(w, c, blocks, 1, k, 1, 1);
    else up ? factor_ball_dir(w, c, blocks, 0, k, -1, 1) : factor_ball_dir(w, c, blocks, 0, k, 1, 1);
}

/* The right-hand side of each position is formed one ahead of the walk too (r_q before p's step
 * subtracts from it); the separators' before the walks (solve_phases). */
static inline void forward_segment(const ctn_world *w, direct_chain *c, ch_rows blocks, int k, int nfix) {
    seg_walk s = segment_walk(c, k);
    int na = s.a >= 0 ? c->n[s.a] : 0;
    memset(s.y_a, 0, 6 * sizeof *s.y_a);
    memset(s.y_end, 0, 6 * sizeof *s.y_end);
    rhs_position(w, c, blocks, s.first, nfix, 1);
    for (int p = s.first;; p += s.dir) {
        int q = p + s.dir, inside = p != s.last, ld = 0, tr = 0;
        int nq = inside ? ROWS(c, q, nfix) : (q == s.end ? c->n[q] : 0);
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
    float *l = lambda + 6 * slot;
    if (!cut) {
        for (int r = 0; r < n; ++r) l[r] = (float)((double)l[r] + x[r]);
        return;
    }
    for (int r = 0; r < n; ++r) /* cut rows (dl = 0): the outer Gauss-Seidel's */
        if (!(cut >> r & 1)) l[r] = (float)((double)l[r] + x[r]);
}

/* The dynamic bodies of joint p other than `skip` (-1: none): v += M^-1 J^T dl over their solved joints. */
static inline void apply_joint_bodies(ctn_world *w, const direct_chain *c, ch_rows blocks, int p, int skip, int nfix) {
    const ctn_joint_def *d = &w->topo.defs[c->slot[p]];
    if ((c->dyn[p] & DYN_A) && d->a != skip) apply_body(w, c, blocks, d->a, nfix);
    if ((c->dyn[p] & DYN_B) && d->b != skip) apply_body(w, c, blocks, d->b, nfix);
}

/* Back-substitution of a segment, last to first, with lambda += dl and the velocity changes of the
 * bodies whose joints are all solved: a body joins at most two consecutive positions, so once x_p is known
 * every body of p is complete except the one it shares with the next position of the walk (p - dir),
 * which that position applies (the separators were solved before the walks). */
static inline void backward_segment(ctn_world *w, direct_chain *c, ch_rows blocks, int k, float *lambda, int nfix) {
    seg_walk s = segment_walk(c, k);
    int na = s.a >= 0 ? c->n[s.a] : 0;
    for (int p = s.last;; p -= s.dir) {
        int q = p + s.dir, ld = 0, tr = 0;
        int nq = p != s.last ? ROWS(c, q, nfix) : (q == s.end ? c->n[q] : 0);
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
    ctn_vel v = ctn_dd_vel_add((mode & BW_MOVE) ? chain_rest_vel(w, b) : w->vel[b], dv); /* moving: v at rest, +0 */
    if (!(mode & BW_MOVE)) {
        w->vel[b].v = v.v, w->vel[b].w = v.w;
        return;
    }
    int flags = w->props[b].flags;
    if ((flags & (CTN_BODY_FLAG_DYNAMIC | CTN_BODY_FLAG_KINEMATIC)) == 0) return;
    ctn_pose *x = &w->pose[b];
    ctn_v3_add2(&x->p, &x->p_lo, ctn_scale(v.v, h));
    if ((flags & CTN_BODY_FLAG_PARTICLE) == 0) x->q = ctn_quat_integrate(x->q, v.w, h);
}

/* The sign of side s (0: a, 1: b) in J. */
#define BALL_SG(s) ((s) ? -1.0 : 1.0)

/* The velocity change of body b from joint p alone (x; arm_q NULL) or from p and q (xq), finished; arm_p, arm_q:
 * b's lever arms in the two joints (BR_ARMP), sp, sq: b's sides in them. */
CHAIN_INLINE void ball_apply(ctn_world *w, int b, int rot, const ctn_v3 *arm_p, int sp, double x0, double x1, double x2,
                             const ctn_v3 *arm_q, int sq, double q0, double q1, double q2, int mode, float h) {
    double im = w->vel[b].inv_mass, dv[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
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
 * once, the pose's padding float kept. Per lane IEEE operations are the scalar ones: the same bits. */
typedef double ch_v2d __attribute__((vector_size(16)));
typedef float ch_v4f __attribute__((vector_size(16)));
static const double ball_sg[2] = {1.0, -1.0}; /* BALL_SG as a table: no branch */

CHAIN_INLINE void ball_apply2(ctn_world *w, int b, int rot, const ctn_v3 *arm_p, int sp, double x0, double x1, double x2,
                              const ctn_v3 *arm_q, int sq, double q0, double q1, double q2, int mode, float h) {
    ctn_vel *vb = &w->vel[b];
    double im = vb->inv_mass;
    const ch_v2d Z = {0.0, 0.0}, IM = {im, im}, SG = {ball_sg[sp], ball_sg[sq]};
    ch_v2d F0 = SG * (ch_v2d){x0, q0}, F1 = SG * (ch_v2d){x1, q1}, F2 = SG * (ch_v2d){x2, q2};
    ch_v2d L0 = Z + IM * F0, L1 = Z + IM * F1, L2 = Z + IM * F2;
    ch_v2d A3 = Z, A4 = Z, A5 = Z;
    if (rot) {
        ctn_v3 rp = *arm_p, rq = *arm_q;
        ch_v2d RX = {rp.x, rq.x}, RY = {rp.y, rq.y}, RZ = {rp.z, rq.z};
        ch_v2d T0 = Z + (RY * F2 - RZ * F1), T1 = Z + (RZ * F0 - RX * F2), T2 = Z + (RX * F1 - RY * F0);
        ctn_sym3 I = w->inertia[b].inv_inertia;
        const ch_v2d XX = {I.xx, I.xx}, XY = {I.xy, I.xy}, XZ = {I.xz, I.xz}, YY = {I.yy, I.yy}, YZ = {I.yz, I.yz}, ZZ = {I.zz, I.zz};
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
    float vx = (float)D01[0], vy = (float)D01[1], vz = (float)D25[0], wx = (float)D34[0], wy = (float)D34[1], wz = (float)D25[1];
    ctn_pose *x = &w->pose[b];
    ch_v4f hi, lo, d = {vx * h, vy * h, vz * h, 0.0f}; /* ctn_scale(v.v, h) */
    memcpy(&hi, &x->p, sizeof hi); /* p and the padding float after it */
    memcpy(&lo, &x->p_lo, sizeof lo);
    ch_v4f s = hi + d, bb = s - hi, e = ((hi - (s - bb)) + (d - bb)) + lo, t = s + e, bt = t - s; /* ctn_f2_add */
    lo = (s - (t - bt)) + (e - bt);
    memcpy(&x->p, &t, sizeof x->p);
    memcpy(&x->p_lo, &lo, sizeof x->p_lo);
    if (rot) x->q = ctn_quat_integrate(x->q, ctn_v3_make(wx, wy, wz), h);
}
#define BALL_APPLY2 ball_apply2
#else
#define BALL_APPLY2 ball_apply
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

/* Back-substitution of segment k walking in direction dir (the segment's, segment_walk), with lambda += dl
 * (mode BW_LAMBDA) and the velocity changes, or for a chord step (BW_MOVE) the pose updates, of the bodies:
 *     x_p = u_p - T_E x_q,   T_E = P_p^-1 A_{p,q} (ctn_dd_chain_factor_node; walking down (dir > 0) C_p, row
 * major; walking up C_{p-1} transposed), q = p + dir the position solved before p. The pair (p, p + 1) has
 * its shared body in shared[p] and that body's sides in side[p] (bit 0 in joint p, bit 1 in joint p + 1). */
CHAIN_INLINE void ball_walk(ctn_world *w, direct_chain *c, ch_rows blocks, int rec, int k, float *lambda, int dir, int mode) {
    seg_walk s = segment_walk(c, k);
    const int *slot = c->slot, *shared = c->shared;
    const unsigned char *side = c->side, *dyn = c->dyn;
    const double *C = c->C;
    double *Y = c->y;
    float h = c->move_h;
    double q0 = 0.0, q1 = 0.0, q2 = 0.0; /* x_q */
    int has_q = s.end >= 0, bq = -1, sq = 0, slq = -1; /* bq: the body shared with q, sq its side in joint q (slot slq) */
    if (has_q) { /* the separator after the segment's last position, solved by solve_separators */
        int q = s.end, e = dir > 0 ? s.last : q; /* the pair (s.last, q) */
        const double *xs = Y + 3 * (size_t)q;
        q0 = xs[0], q1 = xs[1], q2 = xs[2];
        bq = shared[e], sq = (q == e ? side[e] : side[e] >> 1) & 1, slq = slot[q];
    }
    for (int p = s.last;; p -= dir) {
        int sl = slot[p];
        double *y = Y + 3 * (size_t)p;
        double x0 = y[0], x1 = y[1], x2 = y[2];
        if (has_q) { /* ctn_dd_chain_backward_node: x = u - E x_q, E = T row major walking down, T^T up */
            double s0, s1, s2;
            ball_mul3(C + 9 * (size_t)(dir > 0 ? p : p - 1), dir < 0, q0, q1, q2, &s0, &s1, &s2);
            x0 -= s0, x1 -= s1, x2 -= s2;
        }
        if (!(mode & BW_MOVE)) y[0] = x0, y[1] = x1, y[2] = x2; /* a chord step's x is read by no one after it */
        if (mode & BW_LAMBDA) { /* add_impulse (no cut rows) */
            float *l = lambda + 6 * sl;
            l[0] = (float)((double)l[0] + x0), l[1] = (float)((double)l[1] + x1), l[2] = (float)((double)l[2] + x2);
        }
        int dy = dyn[p], en = dir > 0 ? p - 1 : p; /* the pair (p, p - dir) */
        int bn = p != s.first && en >= 0 ? shared[en] : -1; /* the body shared with the position solved next */
        if (bq >= 0) { /* complete: x_q and x_p known */
            int sp = (dir > 0 ? side[p] : side[p - 1] >> 1) & 1; /* bq's side in joint p */
            BALL_APPLY2(w, bq, dy & (sp ? ROT_B : ROT_A), BR_ARMP(blocks, rec, sl, sp), sp, x0, x1, x2, BR_ARMP(blocks, rec, slq, sq), sq, q0, q1, q2,
                        mode, h);
        }
        if ((bq < 0 || bn < 0) && ((dy & DYN_A) != 0) + ((dy & DYN_B) != 0) > (bq >= 0) + (bn >= 0)) { /* a body of p alone (a path's end) */
            const ctn_joint_def *d = &w->topo.defs[sl];
            if ((dy & DYN_A) && d->a != bq && d->a != bn)
                ball_apply(w, d->a, dy & ROT_A, BR_ARMP(blocks, rec, sl, 0), 0, x0, x1, x2, NULL, 0, 0, 0, 0, mode, h);
            if ((dy & DYN_B) && d->b != bq && d->b != bn)
                ball_apply(w, d->b, dy & ROT_B, BR_ARMP(blocks, rec, sl, 1), 1, x0, x1, x2, NULL, 0, 0, 0, 0, mode, h);
        }
        if (p == s.first) break;
        bq = bn, sq = (dir > 0 ? side[en] >> 1 : side[en]) & 1, slq = sl; /* bn's side in joint p */
        has_q = 1, q0 = x0, q1 = x1, q2 = x2;
    }
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
    const double *K = c->K, *C = c->C;
    double *Y = c->y;
    const float *b0 = BR_BIAS(blocks, rec, slot[s.first]);
    double v0 = (double)b0[0], v1 = (double)b0[1], v2 = (double)b0[2]; /* y_p */
    for (int p = s.first;; p += dir) {
        const double *P = K + 6 * (size_t)p; /* the lower triangle (k_store) */
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
        v0 = (double)bq[0] - s0, v1 = (double)bq[1] - s1, v2 = (double)bq[2] - s2;
    }
}

/* The instances, one per direction (down: segment 0; up: the last of two segments) and mode, inlined into
 * these two functions (so that a profile names the walks as before). */
#if defined(__GNUC__)
#define CHAIN_NOINLINE __attribute__((noinline))
#else
#define CHAIN_NOINLINE
#endif
CHAIN_FLATTEN CHAIN_NOINLINE static void backward_ball(ctn_world *w, direct_chain *c, ch_rows blocks, int k, float *lambda) {
    int up = k == c->segments - 1 && c->segments > 1; /* segment_walk's direction */
#define BALL_WALKS(rec)                                                                                                           \
    if (!c->rest && !c->zero) up ? ball_walk(w, c, blocks, rec, k, lambda, -1, BW_LAMBDA) : ball_walk(w, c, blocks, rec, k, lambda, 1, BW_LAMBDA); \
    else if (c->move_h > 0.0f) up ? ball_walk(w, c, blocks, rec, k, lambda, -1, BW_MOVE) : ball_walk(w, c, blocks, rec, k, lambda, 1, BW_MOVE); \
    else up ? ball_walk(w, c, blocks, rec, k, lambda, -1, 0) : ball_walk(w, c, blocks, rec, k, lambda, 1, 0);
    if (blocks.ball) {
        BALL_WALKS(1)
    } else {
        BALL_WALKS(0)
    }
#undef BALL_WALKS
}

CHAIN_FLATTEN CHAIN_NOINLINE static void forward_ball_rest(direct_chain *c, ch_rows blocks, int k) {
    int up = k == c->segments - 1 && c->segments > 1;
    if (blocks.ball) up ? ball_forward_rest(c, blocks, 1, k, -1) : ball_forward_rest(c, blocks, 1, k, 1);
    else up ? ball_forward_rest(c, blocks, 0, k, -1) : ball_forward_rest(c, blocks, 0, k, 1);
}

/* The separators' system, block tridiagonal in j = 1..P-1 with couplings A_{j+1,j} = g of segment j. */
static void factor_separators(direct_chain *c) {
    int P = c->segments;
    double St[9], Qt[9]; /* k_full's */
    for (int j = 1; j < P; ++j) {
        int p = c->sep[j], n = c->n[p];
        double *S = k_full(c, p, 0, St);
        for (int e = 0; e < n * n; ++e) S[e] += c->seg[j - 1].d_bot[e] + c->seg[j].d_top[e];
        k_store(c, p, 0, S);
    }
    for (int j = 1; j < P; ++j) {
        int p = c->sep[j], n = c->n[p], nq = j + 1 < P ? c->n[c->sep[j + 1]] : 0;
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
        for (int r = 0; r < c->n[c->sep[j]]; ++r) y[r] += c->seg[j - 1].y_bot[r] + c->seg[j].y_top[r];
    }
    for (int j = 1; j < P; ++j) {
        int p = c->sep[j], n = c->n[p], nq = j + 1 < P ? c->n[c->sep[j + 1]] : 0;
        double *y = c->y + CH_V(c, p, 0), St[9];
        ctn_dd_chain_forward_node(k_full(c, p, 0, St), n, y, y, c->seg[j].g, n, 1, nq, nq ? c->y + CH_V(c, c->sep[j + 1], 0) : NULL,
                                  NULL, 0, NULL);
    }
    for (int j = P - 1; j >= 1; --j) {
        int p = c->sep[j], n = c->n[p], nq = j + 1 < P ? c->n[c->sep[j + 1]] : 0;
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
CHAIN_STEP(assemble, (const ctn_world *w, direct_chain *c, ch_rows b, int p), assemble_position(w, c, b, p, 3, 0),
           assemble_position(w, c, b, p, 0, 0))
CHAIN_STEP(rhs, (const ctn_world *w, direct_chain *c, ch_rows b, int p, int re), rhs_position(w, c, b, p, 3, re),
           rhs_position(w, c, b, p, 0, re))
CHAIN_STEP(apply, (ctn_world *w, const direct_chain *c, ch_rows b, int body), apply_body(w, c, b, body, 3),
           apply_body(w, c, b, body, 0))
CHAIN_STEP(factor, (const ctn_world *w, direct_chain *c, ch_rows b, int k), factor_segment(w, c, b, k, 3),
           factor_segment(w, c, b, k, 0))
CHAIN_STEP(forward, (const ctn_world *w, direct_chain *c, ch_rows b, int k), forward_segment(w, c, b, k, 3),
           forward_segment(w, c, b, k, 0))
CHAIN_STEP(backward, (ctn_world *w, direct_chain *c, ch_rows b, int k, float *l), backward_segment(w, c, b, k, l, 3),
           backward_segment(w, c, b, k, l, 0))

static void factor_phases(const ctn_world *w, direct_chain *c, ch_rows blocks) {
    int P = c->segments, nt = threads_of(w), three = c->uniform == 3;
    (void)nt;
    for (int j = 1; j < P; ++j) { /* before the walks */
        three ? assemble_3(w, c, blocks, c->sep[j]) : assemble_any(w, c, blocks, c->sep[j]);
        three ? rhs_3(w, c, blocks, c->sep[j], 0) : rhs_any(w, c, blocks, c->sep[j], 0);
    }
    CHAIN_OMP(omp parallel for schedule(static, 1) num_threads(nt) if (P > 1))
    for (int k = 0; k < P; ++k)
        three && P <= 2 && !c->generic ? (c->zero ? factor_ball_rest(w, c, blocks, k) : factor_ball(w, c, blocks, k))
        : three                        ? factor_3(w, c, blocks, k)
                                       : factor_any(w, c, blocks, k);
    factor_separators(c);
}

/* The separators' own bodies that no segment position shares (a separator at the end of a path): their
 * velocity changes, once the separators are solved. */
static void apply_separator_bodies(ctn_world *w, const direct_chain *c, ch_rows blocks) {
    for (int j = 1; j < c->segments; ++j) {
        int p = c->sep[j];
        const ctn_joint_def *d = &w->topo.defs[c->slot[p]];
        int bodies[2] = {(c->dyn[p] & DYN_A) ? d->a : -1, (c->dyn[p] & DYN_B) ? d->b : -1};
        for (int e = 0; e < 2; ++e)
            if (bodies[e] >= 0 && bodies[e] != c->shared[p] && (p == 0 || bodies[e] != c->shared[p - 1]))
                c->uniform == 3 ? apply_3(w, c, blocks, bodies[e]) : apply_any(w, c, blocks, bodies[e]);
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
            if (c->ball && c->rest) forward_ball_rest(c, blocks, k);
            else three ? forward_3(w, c, blocks, k) : forward_any(w, c, blocks, k);
        }
        CHAIN_OMP(omp single)
        {
            solve_separators(c, t->lambda);
            apply_separator_bodies(w, c, blocks);
        }
        CHAIN_OMP(omp for schedule(static, 1))
        for (int k = 0; k < P; ++k) {
            if (c->ball) backward_ball(w, c, blocks, k, t->lambda);
            else three ? backward_3(w, c, blocks, k, t->lambda) : backward_any(w, c, blocks, k, t->lambda);
        }
    }
}

void ctn__chain_set_keep(direct_chain *c, const unsigned char *keep) { c->keep = keep; }

void ctn__chain_set_generic(direct_chain *c, int generic) { c->generic = generic; }

void ctn__chain_set_balls(direct_chain *c, const ctn_ball_row *balls) { c->balls = balls; }

/* The rows of a public entry: the ball records when set (the blocks are then not read), else the blocks. */
static ch_rows rows_of(const direct_chain *c, const ctn_block *blocks) {
    ch_rows r = {c->balls ? NULL : blocks, c->balls};
    return r;
}

void ctn__chain_arrays(const direct_chain *c, const double **K, size_t *nk, const double **C, size_t *nc, const double **y, size_t *ny) {
    int m = c->m;
    *K = c->K, *C = c->C, *y = c->y;
    *nk = c->uniform == 3 ? (size_t)m * 6 : c->uniform ? (size_t)m * c->uniform * c->uniform : (size_t)c->koff[m]; /* 3: k_store's */
    *nc = c->uniform ? (size_t)(m - 1) * c->uniform * c->uniform : (size_t)c->coff[m];
    *ny = c->uniform ? (size_t)m * c->uniform : (size_t)c->voff[m];
}

int ctn__chain_has(const direct_chain *c, int slot) { return c->pos[slot] >= 0; }

/* Marks the joints with finite bounds this substep, assembles and factors. Fills cut_list with the cut
 * slots in slot order (the order of the outer Gauss-Seidel sweep, host/solve/solver_direct.c) and returns
 * their count. */
int ctn__chain_factor(ctn_world *w, direct_chain *c, const ctn_block *blocks, int *cut_list) {
    int ncut = 0;
    factor_phases(w, c, rows_of(c, blocks));
    c->forwarded = 1;
    /* No spikes and every position a ball joint (factor_ball's walks and the separator): backward_ball, and no cut rows. */
    c->ball = c->uniform == 3 && c->segments <= 2;
    for (int k = 0; k < c->segments && c->ball && !c->generic; ++k) {
        int sp = c->sep[k + 1];
        if (!c->seg[k].ball || (sp < c->m && (!c->axes[sp] || c->cut[c->slot[sp]]))) c->ball = 0;
    }
    for (int p = 0; p < c->m && c->ball && c->generic; ++p)
        if (!c->axes[p] || c->cut[c->slot[p]]) c->ball = 0;
    if (c->ball) return 0;
    for (int slot = 0; slot < w->topo.joint_count; ++slot) /* marked by the assembly */
        if (c->pos[slot] >= 0 && c->cut[slot]) cut_list[ncut++] = slot;
    return ncut;
}

/* |r|^2 of three linear rows along dir[0..2]: ctn_block_residual's operations for n = 3, unrolled. */
static inline double ball_residual(const ctn_world *w, const ctn_joint_def *d, ctn_v3 ra, ctn_v3 rb, const ctn_v3 *dir, const float *bias,
                                   float s0, float s1, float s2, const float *lam) {
    ctn_vel va = ctn_load_vel(w->vel, d->a), vb = ctn_load_vel(w->vel, d->b);
    ctn_v3 dv = ctn_sub(ctn_add(va.v, ctn_cross(va.w, ra)), ctn_add(vb.v, ctn_cross(vb.w, rb))); /* ctn_block_velocity */
    float r0 = bias[0] - ctn_dot(dir[0], dv) - s0 * lam[0];
    float r1 = bias[1] - ctn_dot(dir[1], dv) - s1 * lam[1];
    float r2 = bias[2] - ctn_dot(dir[2], dv) - s2 * lam[2];
    return ((0.0 + (double)r0 * r0) + (double)r1 * r1) + (double)r2 * r2;
}

#if defined(__SSE2__)
/* ball_residual of a ball record in SSE lanes (host/solve/lanes.h): dv = (v_a + w_a x r_a) - (v_b + w_b x r_b),
 * J v of row k as the dot product with the k-th axis ((e.x dv.x + e.y dv.y) + e.z dv.z, the axes' 1s and 0s lane
 * by lane), r = (bias - J v) - S lambda, then ((0 + r_0^2) + r_1^2) + r_2^2 in double: per lane the scalar
 * operations in their order (a float's square is exact in double), so the same bits. Reads only the record's 40
 * bytes (the targets through the 16 bytes from rb.z on) and lambda[0..3] of the joint's six. */
static inline double ball_residual_lanes(const ctn_world *w, const ctn_joint_def *d, const ctn_ball_row *r, const float *lam) {
    static const ctn_vel world_vel = {{0.0f, 0.0f, 0.0f}, 0.0f, {0.0f, 0.0f, 0.0f}, 0.0f}; /* ctn_load_vel(-1) */
    const ctn_vel *va = d->a >= 0 ? &w->vel[d->a] : &world_vel, *vb = d->b >= 0 ? &w->vel[d->b] : &world_vel;
    const float *o = (const float *)(const void *)r;
    __m128 ra = _mm_loadu_ps(o), rb = _mm_loadu_ps(o + 4), tail = _mm_loadu_ps(o + 6); /* (ra, S), (rb, b0), (rb.z, b0, b1, b2) */
    __m128 bias = _mm_shuffle_ps(tail, tail, _MM_SHUFFLE(0, 3, 2, 1));
    __m128 wa = _mm_loadu_ps(&va->w.x), wb = _mm_loadu_ps(&vb->w.x);
    __m128 ua = _mm_add_ps(_mm_loadu_ps(&va->v.x),
                           cross4(_mm_shuffle_ps(wa, wa, _MM_SHUFFLE(3, 0, 2, 1)), _mm_shuffle_ps(wa, wa, _MM_SHUFFLE(3, 1, 0, 2)), ra));
    __m128 ub = _mm_add_ps(_mm_loadu_ps(&vb->v.x),
                           cross4(_mm_shuffle_ps(wb, wb, _MM_SHUFFLE(3, 0, 2, 1)), _mm_shuffle_ps(wb, wb, _MM_SHUFFLE(3, 1, 0, 2)), rb));
    __m128 dv = _mm_sub_ps(ua, ub);
    const __m128 ex = _mm_setr_ps(1.0f, 0.0f, 0.0f, 0.0f), ey = _mm_setr_ps(0.0f, 1.0f, 0.0f, 0.0f), ez = _mm_setr_ps(0.0f, 0.0f, 1.0f, 0.0f);
    __m128 jv = _mm_add_ps(_mm_add_ps(_mm_mul_ps(ex, _mm_shuffle_ps(dv, dv, 0x00)), _mm_mul_ps(ey, _mm_shuffle_ps(dv, dv, 0x55))),
                           _mm_mul_ps(ez, _mm_shuffle_ps(dv, dv, 0xaa)));
    __m128 res = _mm_sub_ps(_mm_sub_ps(bias, jv), _mm_mul_ps(_mm_shuffle_ps(ra, ra, 0xff), _mm_loadu_ps(lam)));
    __m128d r01 = _mm_cvtps_pd(res), r2 = _mm_cvtps_pd(_mm_movehl_ps(res, res));
    __m128d q01 = _mm_mul_pd(r01, r01), q2 = _mm_mul_pd(r2, r2);
    return ((0.0 + _mm_cvtsd_f64(q01)) + _mm_cvtsd_f64(_mm_unpackhi_pd(q01, q01))) + _mm_cvtsd_f64(q2);
}
#else
static inline double ball_residual_lanes(const ctn_world *w, const ctn_joint_def *d, const ctn_ball_row *r, const float *lam) {
    return ball_residual(w, d, r->ra, r->rb, ball_axes, r->bias, r->soft, r->soft, r->soft, lam);
}
#endif

/* Sum of the squared float residuals of the chain's joints (the solver's reported residual), per position
 * in parallel into y (free after the solve), then summed in position order: the same bits on any number
 * of threads. */
double ctn__chain_residual(ctn_world *w, direct_chain *c, const ctn_block *blocks) {
    const ctn_topology *t = &w->topo;
    int m = c->m, nt = threads_of(w);
    (void)nt;
    CHAIN_OMP(omp parallel for schedule(static) num_threads(nt) if (c->segments > 1))
    for (int p = 0; p < m; ++p) {
        int slot = c->slot[p];
        const ctn_joint_def *d = &t->defs[slot];
        const float *lam = &t->lambda[6 * slot];
        double s = 0.0;
        if (c->balls) { /* a ball record: the rows of the block it stands for, the world axes */
            c->y[CH_V(c, p, 0)] = ball_residual_lanes(w, d, &c->balls[slot], lam);
            continue;
        }
        const ctn_block *b = &blocks[slot];
        if (b->n_lin == 3 && b->n_ang == 0) { /* a ball joint's rows */
            s = ball_residual(w, d, b->ra, b->rb, b->dir, b->bias, b->soft[0], b->soft[1], b->soft[2], lam);
        } else {
            float r[CTN_MAX_ROWS];
            ctn_block_residual(b, ctn_load_vel(w->vel, d->a), ctn_load_vel(w->vel, d->b), lam, r);
            for (int k = 0; k < ctn_block_rows(b); ++k) s += (double)r[k] * r[k]; /* limit and motor rows too */
        }
        c->y[CH_V(c, p, 0)] = s;
    }
    double r2 = 0.0;
    for (int p = 0; p < m; ++p) r2 += c->y[CH_V(c, p, 0)];
    return r2;
}

void ctn__chain_set_reference(direct_chain *c, const ctn_vel *vref, const float *lref) { c->vref = vref, c->lref = lref; }

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
