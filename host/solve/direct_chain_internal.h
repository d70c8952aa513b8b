/* The chain path's state and what its two files share: host/solve/direct_chain.c (the layout, the generic walks
 * with any row count, the separators, the phases and the ctn__chain_* entry points of direct_internal.h) and
 * host/solve/direct_ball.c (the lean walks of ball-jointed chains, which hand a segment to the generic walk where
 * a position is not a ball joint, and at its last position). See the header comment of direct_chain.c. Internal to
 * host/solve. */
#ifndef CTN_DIRECT_CHAIN_INTERNAL_H
#define CTN_DIRECT_CHAIN_INTERNAL_H

#include "core/world.h"
#include "ctn_solver.h"
#include "solve/direct_internal.h"

#include "ctn_direct.h"

/* flatten: every call inside the function inlined (the *_3 steps with the literal row count 3, the ball walks'
 * instances; see "per substep" in direct_chain.c). */
#if defined(__GNUC__)
#define CHAIN_FLATTEN __attribute__((flatten))
#else
#define CHAIN_FLATTEN
#endif

/* Per position: which bodies of the joint are dynamic (side a, side b) and which of those rotate. */
enum { DYN_A = 1, DYN_B = 2, ROT_A = 4, ROT_B = 8 };

typedef struct chain_segment {
    double d_top[36], d_bot[36]; /* pivot updates of the separators above and below (accumulated -=) */
    double g[36];                /* A_{c,a} of a middle segment: n_bot x n_top */
    double y_top[6], y_bot[6];   /* right-hand-side updates of the separators (accumulated -=) */
    int ball;                    /* the last factor walked every position as a ball joint (ctn__chain_factor_ball) */
} chain_segment;

struct direct_chain {
    int m, segments;
    int forwarded;         /* the factor walks did the next solve's forward substitution */
    int *slot;             /* [p] joint slot */
    unsigned char *off;    /* [slot] 1: a joint between two non-dynamic bodies, not on the chain (NULL: every joint is on it) */
    int *shared;           /* [p] dynamic body shared with p + 1, -1 at the end of a path */
    unsigned char *n;      /* [p] rows, where they differ between positions (NULL: every position has `uniform`; CH_N) */
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
    /* P^-1 in single precision (ctn__chain_pivots; NULL: K in double, else K is NULL): only the later solves with
     * the factor read it (a chord step's forward substitution u_p = P^-1 y_p), never the velocity solve that
     * forms it (the factor walk substitutes forward with P^-1 in double, the back-substitution reads C and y).
     * The separator's K (P <= 2: sep[1]) stays in double (k_sep), which that solve reads; a pivot waits for
     * its factor step in double (factor_walk) */
    float *Kf;
    double k_sep[6];
    const ctn_vel *vref;   /* a re-solve: the velocities and impulses the last solve left (not owned) */
    const float *lref;
    int ls;                /* the row stride of the impulses (topo.stride, CTN_LAM) */
    /* where the next solve keeps what it overwrites (ctn__chain_set_save; not owned; NULL: nothing): each
     * position's impulses (ls floats) as add_impulse is about to add to them, each dynamic body's velocity as
     * body_finish is about to replace it */
    float *save_l;
    ctn_vel *save_v;
    int rest;              /* a solve from rest (ctn__chain_solve_rest): v = 0, lambda = 0 and not accumulated */
    /* a projection step at rest without scratch arrays (ctn__chain_project_step): the velocities and impulses are
     * read as zero (w->vel's v and w, topo.lambda are the real ones, not read), the impulses are not accumulated
     * and the velocity changes move the poses (move_h) */
    int zero;
    float move_h;          /* > 0: a chord step (ctn__chain_chord_step): each body's pose moves by move_h v instead of v += dv */
    int ball;              /* the factor's rows: three world axes at every position, none cut, at most two segments (ctn__chain_backward_ball) */
    int covers;            /* every dynamic or kinematic body is a dynamic body of some position (ctn__chain_chord_step) */
    int ends_all;          /* every body of the topology is a body (a or b) of some position (ctn__chain_residual_velocities) */
    int anchored;          /* every path has at most one joint to a body that is not dynamic (ctn__chain_anchored) */
    int generic;           /* ctn__chain_factor_ball off (ctn__chain_set_generic) */
    const ctn_ball_row *balls; /* [slot] the rows as ball records in place of the blocks (ctn__chain_set_balls; not owned; NULL: blocks) */
    chain_segment *seg;
};

/* The rows of position p. */
#define CH_N(c, p) ((c)->uniform ? (c)->uniform : (c)->n[p])

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

/* The world axes, the rows of a ball joint (ball_ok of direct_ball.c; the residual of a ball record in
 * direct_chain.c where SSE2 is not there). */
static const ctn_v3 ball_axes[3] = {{1.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, {0.0f, 0.0f, 1.0f}};

/* The projection's scratch velocity of a body at rest (ctn_project_begin_body: v = w = +0) and its scratch
 * impulses (+0), for a solve that reads them without the scratch arrays (c->zero). */
static const float chain_rest_lambda[6] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
static inline ctn_vel chain_rest_vel(void) {
    ctn_vel v;
    v.v = ctn_v3_zero();
    v.w = ctn_v3_zero();
    return v;
}

/* A chord step's move of world body b by velocity v over h: ctn_body_integrate's operations (kernels/ctn_body.h)
 * on the pose in place, with no copy of the pose and the properties in and out. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void chain_move_body(ctn_world *w, int b, ctn_vel v, float h) {
    int flags = w->props[b].flags;
    if ((flags & (CTN_BODY_FLAG_DYNAMIC | CTN_BODY_FLAG_KINEMATIC)) == 0) return;
    ctn_pose *x = &w->pose[b];
    ctn_v3_add2(&x->p, &x->p_lo, ctn_scale(v.v, h));
    if ((flags & CTN_BODY_FLAG_PARTICLE) == 0) x->q = ctn_quat_integrate(x->q, v.w, h);
}

/* The walk of segment k (direct_chain.c's layout comment): its positions in order, the separators at its ends and
 * their accumulators. */
typedef struct seg_walk {
    int first, last, dir; /* nodes first..last in steps of dir */
    int a, end;           /* spike separator behind first, separator after last (-1: none) */
    double *d_a, *d_end, *y_a, *y_end; /* the separators' accumulators in the segment record */
} seg_walk;

static inline seg_walk segment_walk(direct_chain *c, int k) {
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

/* The generic steps with the literal row count 3 (direct_chain.c: assemble_position, rhs_position of a factor,
 * factor_walk), which the lean ball walks hand a position or the rest of a segment to. */
/* kout (9 doubles, or NULL: stored in K): the assembled pivot in full, for ctn__chain_factor_walk_3's k_from. */
void ctn__chain_assemble_3(const ctn_world *w, direct_chain *c, ch_rows blocks, int p, double *kout);
void ctn__chain_rhs_3(const ctn_world *w, direct_chain *c, ch_rows blocks, int p);
/* k_from: the pivot of `from` in full (9 doubles, factored in place; NULL: read from K) */
void ctn__chain_factor_walk_3(const ctn_world *w, direct_chain *c, ch_rows blocks, const seg_walk *s, chain_segment *g, int from,
                              double *k_from);

/* The lean walks of a ball-jointed chain (host/solve/direct_ball.c), segment k of at most two: the factor with the
 * forward substitution (ctn__chain_factor_ball_rest: for the state at rest, c->zero), the back-substitution with
 * the impulses and velocity changes or pose moves (c->ball), a solve from rest's forward substitution. */
void ctn__chain_factor_ball(const ctn_world *w, direct_chain *c, ch_rows blocks, int k);
void ctn__chain_factor_ball_rest(const ctn_world *w, direct_chain *c, ch_rows blocks, int k);
void ctn__chain_backward_ball(ctn_world *w, direct_chain *c, ch_rows blocks, int k, float *lambda);
void ctn__chain_forward_ball_rest(direct_chain *c, ch_rows blocks, int k);

#endif /* CTN_DIRECT_CHAIN_INTERNAL_H */
