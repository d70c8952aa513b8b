/* The CPU backend: the stages of the step pipeline (host/solve/pipeline.h) as loops over the per-item
 * functions of kernels/ctn_solver.h, the ones the OpenCL kernels wrap. A colour's joints are independent, so
 * its loop runs on OpenMP threads when the colour is large; neither the state nor the residual depends on
 * the thread count (sums are taken per fixed block of items, then over the blocks in order). */
#include "solve/pipeline.h"
#include "core/lane_copy.h"
#include "ctn_assemble.h"
#include "ctn_cg.h"
#include "ctn_rattle.h"
#include "ctn_solver.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Below this many items a parallel loop costs more than it saves. */
#define CPU_PARALLEL_MIN 4096
/* Items per partial sum of a reduction: fixed, so the rounding of a sum does not depend on the threads. */
#define CPU_SUM_BLOCK 1024
/* Assembly's per-item work (a block inverse, an exponential map) is heavier than a solver row's. */
#define CPU_ASSEMBLE_PARALLEL_MIN 256

typedef struct cpu_solver {
    int slots;              /* capacity of the per-joint arrays */
    int bodies;             /* capacity of the per-body arrays */
    size_t slot_floats;     /* floats of dlambda and cg_r: slots times the row stride (or 2) */
    size_t cg_floats;       /* floats of cg_z and cg_ap, which only CG uses: allocated by its first step */
    int block_slots;        /* capacity of blocks, allocated by the first step (or assembly) that uses them */
    int point_slots;        /* capacity of points, allocated by the first compact step */
    ctn_block *blocks;
    /* compact: this step keeps every joint's rows in points (ctn_point_block, 64 bytes) instead of blocks (288):
     * a Gauss-Seidel world whose joints are all ball joints (ctn__rows_compact). Its only readers of the rows are the
     * row build, the warm start's gather and the sweeps. */
    int compact;
    ctn_point_block *points;
    ctn_compact_cache compact_cache;
    /* ball_rows: this step keeps every joint's rows in balls (ctn_ball_row, 40 bytes) instead of blocks (288): the
     * exact solver takes every joint on its chain path and every joint is a rigid ball joint (ctn__direct_ball_rows).
     * Its readers of the rows are the row build, the warm start's gather, the chord rows and the chain's walks
     * (host/solve/direct_chain.c); RATTLE switches the step back to the blocks (cpu_rows_general). */
    int ball_rows;
    int ball_slots;         /* capacity of balls */
    ctn_ball_row *balls;
    float *dlambda;         /* Jacobi increments / CG direction p / the projection's impulses (none at rest) */
    float *cg_r;            /* CG residual / the projection's and assembly's per-slot errors */
    float *cg_z, *cg_ap;
    ctn_vel *vel_copy;      /* velocities before forces (spring gather) / CG u = M^-1 J^T p / projection (none at rest) */
    /* poses before a projection step (CTN_STAGE_POSES_KEEP) where the divergence guard's pose spare holds the
     * step's start (a step that forked its poses, RATTLE's projection), and RATTLE's x_n: reserved only for such
     * steps (cpu_begin; cpu_integrate where in_place_test finds a pose outside its bounds; RATTLE_ENTER).
     * POSES_UNDO swaps it with the world's array, so it holds pose_copy_cap >= w->body_capacity poses. A step
     * that integrated in place keeps its projection's copy in the spare instead (keep_array), which holds nothing
     * of the step's start then. */
    ctn_pose *pose_copy;
    int pose_copy_cap;
    /* The projection after an integration in place (CTN_SNAP_POSE_IN_PLACE): kept_now, the copy holds the poses
     * as they are (POSES_KEEP, or move_prepare for the last step, which no decision checks); keep_table, this
     * step's table kept them; unchecked, the last step moved them with no decision after it (project_unchecked);
     * frozen, the step diverged before its integration (in_place_test), whose poses no stage may move then (the
     * restore leaves them as they are): the projection's stages do nothing and report no error. */
    int kept_now, keep_table, unchecked, frozen;
    ctn_compact_cache projected_balls; /* every joint a rigid bilateral ball joint (in_place_joints), per topology */
    double *partial;        /* [slots / CPU_SUM_BLOCK + 1] partial sums of a reduction */
    int cg_warned;          /* The CG -> GS fallback for bounded rows was reported */
    int cg_as_gs;           /* this step's CG is solved by GS (ctn__cg_runs_gs) */
    double r2;              /* sum of squared residuals of the last solver sweep of the step */
    int r2_impulses;        /* r2 read every impulse (ctn__direct_residual_impulses): finite, they are */
    int r2_velocities;      /* r2 read every velocity (ctn__direct_residual_velocities): finite, they are */
    /* the position projection swaps scratch arrays in (CTN_STAGE_PROJECT_ENTER .. LEAVE) */
    int projecting;
    int factor_kept;        /* the exact solver's factor of the rows in blocks is in place (the last solve's) */
    float project_worst;    /* the projection's largest error at the last row build */
    /* the joint errors (stage_measure's gap and angle) of the poses of the last CHORD_ROWS, which covers
     * CTN_STAGE_JOINT_ERRORS: a MEASURE entry that does not cover it reports these (the driver plans it so only
     * when the projection stopped on those rows, CTN_TABLE_MEASURE with sub = 1) */
    double measured_gap, measured_angle;
    ctn_compact_cache chord_ball; /* whether every joint is a ball joint (ctn__chord_all_ball: the chord rows' lean loop) */
    ctn_vel *real_vel;
    float *real_lambda;
    /* at_rest: this projection runs without its scratch arrays (project_at_rest): w->vel and topo.lambda stay the
     * real ones, neither read (but for the inverse masses) nor written; the scratch state it stands for is at rest
     * throughout, and its Newton steps move the poses in the solve (moved: the INTEGRATE that follows is done) */
    int at_rest, moved;
    ctn_compact_cache rest_joints; /* whether every joint is a rigid bilateral row (project_at_rest), per topology */
    int rest_mode;                 /* tests (ctn__cpu_project_rest_mode): 0 the rule, 1 never at rest, 2 the joint check skipped */
    int rest_counts[3];            /* projections entered at rest, Newton steps solved at rest, arrays taken back */
    int unchecked_fault;           /* tests (ctn__cpu_project_unchecked_fault): project_unchecked finds body 0 non-finite */
    int unchecked_counts[2];       /* last steps project_unchecked checked, and undid */
    /* RATTLE (host/solve/pipeline.c run_rattle): blocks and the exact solver's factor are those of the current
     * poses, built by the last velocity stage for substeps of length rattle_h on topology rattle_version */
    int rattle_valid;
    unsigned rattle_version;
    ctn_vel *rattle_vel;    /* v_n of the substep (CTN_STAGE_RATTLE_UNDO) */
    /* stage timer: what the running interval counts toward, and when it started */
    ctn_stage_timer timer;
    double timer_t0;
    /* Whether every world inverse inertia is ctn_body_inverse_inertia of its pose (the divergence snapshot then
     * keeps no copy, host/core/divergence.c): inertia_now after the stages run so far (stage_inertia),
     * inertia_clean after the last step that held. With no host edit since (w->bodies_dirty), the next
     * snapshot takes it without testing every body. */
    int inertia_now, inertia_clean;
    /* This step's only writer of the poses is its final integration, which then tests for divergence first
     * and writes them in place (cpu_integrate; no pose spare, host/core/divergence.c); lean_joints: whether
     * every joint is a ball joint within the anchor bound of that test (per topology). */
    int poses_in_place;
    ctn_compact_cache lean_joints;
    /* The integration in place ran MEASURE's divergence scan before it (in_place_test): none diverged, the
     * largest speed scanned_top. The velocities and impulses do not change between them, and the poses after it
     * are finite by its bounds, so MEASURE takes that answer instead of scanning again (and clears it). */
    int scanned;
    double scanned_top;
} cpu_solver;

#define TRY_CPU_RESERVE(expr)              \
    do {                                   \
        ctn_status r_ = (expr);            \
        if (r_ != CTN_OK) return r_;       \
    } while (0)

/* Grows the general blocks to the joint count (a step that is not compact, or assembly). */
static ctn_status cpu_reserve_blocks(ctn_world *w, cpu_solver *c) {
    int m = w->topo.joint_count;
    if (m <= c->block_slots) return CTN_OK;
    size_t cap = (size_t)m + (size_t)m / 2 + 16;
    ctn_block *b = ctn__realloc(c->blocks, cap * sizeof *b);
    if (!b) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for the CPU solver's rows (%d joints)", m);
    c->blocks = b, c->block_slots = (int)cap;
    return CTN_OK;
}

/* The step's rows after the exact solver's layout is prepared (ctn__direct_prepare): the ball records where
 * ctn__direct_ball_rows holds, else the general blocks (unless compact), the solver told which it reads. */
static ctn_status cpu_reserve_rows(ctn_world *w, cpu_solver *c) {
    int m = w->topo.joint_count;
    c->ball_rows = w->solver == CTN_SOLVER_DIRECT && ctn__direct_ball_rows(w);
    if (c->ball_rows && m > c->ball_slots) {
        size_t cap = (size_t)m + (size_t)m / 2 + 16;
        ctn_ball_row *b = ctn__realloc(c->balls, cap * sizeof *b);
        if (!b) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for the CPU solver's rows (%d joints)", m);
        c->balls = b, c->ball_slots = (int)cap;
    }
    if (!c->compact && !c->ball_rows) TRY_CPU_RESERVE(cpu_reserve_blocks(w, c));
    if (w->solver == CTN_SOLVER_DIRECT) ctn__direct_set_balls(w, c->ball_rows ? c->balls : NULL);
    return CTN_OK;
}

/* RATTLE's stages read and write the general blocks (their targets, ctn_rattle_slot, the kept factor's rows):
 * a step of ball records turns to them at RATTLE_ENTER, the step's first stage, before any row is built. */
static ctn_status cpu_rows_general(ctn_world *w, cpu_solver *c) {
    TRY_CPU_RESERVE(cpu_reserve_blocks(w, c));
    c->ball_rows = 0;
    ctn__direct_set_balls(w, NULL);
    return CTN_OK;
}

/* pose_copy at the world's body capacity (POSES_UNDO swaps it in). */
static ctn_status pose_copy_reserve(ctn_world *w, cpu_solver *c) {
    if (w->body_capacity <= c->pose_copy_cap) return CTN_OK;
    int cap = w->body_capacity;
    ctn_pose *p = ctn__mul_overflows((size_t)cap, sizeof *p) ? NULL : ctn__realloc(c->pose_copy, (size_t)cap * sizeof *p);
    if (!p) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for CPU solver arrays (%d bodies)", w->body_count);
    c->pose_copy = p, c->pose_copy_cap = cap;
    return CTN_OK;
}

static ctn_status cpu_reserve(ctn_world *w, cpu_solver *c) {
    int m = w->topo.joint_count, n = w->body_count;
    c->compact = ctn__rows_compact(w, &c->compact_cache);
    if (c->compact && m > c->point_slots) {
        size_t cap = (size_t)m + (size_t)m / 2 + 16;
        ctn_point_block *p = ctn__realloc(c->points, cap * sizeof *p);
        if (!p) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for the CPU solver's rows (%d joints)", m);
        c->points = p, c->point_slots = (int)cap;
    }
    /* dlambda and cg_r at the layout's row stride (the assembly's gaps and angles take 2 floats a slot of cg_r) */
    int ls = w->topo.stride, per = ls > 2 ? ls : 2;
    if (m > c->slots || (size_t)per * (size_t)m > c->slot_floats) {
        size_t cap = (size_t)m + (size_t)m / 2 + 16;
        float *f[2] = {c->dlambda, c->cg_r};
        int ok = 1;
        for (int k = 0; k < 2 && ok; ++k) {
            float *p = ctn__realloc(f[k], per * cap * sizeof *p);
            if (!p) ok = 0;
            else f[k] = p;
        }
        c->dlambda = f[0], c->cg_r = f[1];
        double *part = ok ? ctn__realloc(c->partial, (cap / CPU_SUM_BLOCK + 1) * sizeof *part) : NULL;
        if (part) c->partial = part;
        else ok = 0;
        if (!ok) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for CPU solver arrays (%d joints)", m);
        c->slots = (int)cap;
        c->slot_floats = per * cap;
    }
    if (n > c->bodies) {
        size_t cap = (size_t)n + (size_t)n / 2 + 16;
        ctn_vel *v = ctn__realloc(c->vel_copy, cap * sizeof *v);
        if (v) c->vel_copy = v;
        ctn_vel *rv = v ? ctn__realloc(c->rattle_vel, cap * sizeof *rv) : NULL;
        if (rv) c->rattle_vel = rv;
        if (!v || !rv) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for CPU solver arrays (%d bodies)", n);
        c->bodies = (int)cap;
    }
    /* CG's two other per-row arrays (48 bytes a joint) only for CG: the other solvers never touch them.
     * Grown here, before the step changes anything, so that running out of memory leaves the world as it was. */
    if (w->solver == CTN_SOLVER_CG && (size_t)ls * (size_t)m > c->cg_floats) {
        size_t cap = c->slot_floats; /* >= ls m, set above */
        float *z = ctn__realloc(c->cg_z, cap * sizeof *z);
        if (z) c->cg_z = z;
        float *ap = z ? ctn__realloc(c->cg_ap, cap * sizeof *ap) : NULL;
        if (ap) c->cg_ap = ap;
        if (!ap) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for the CG solver's arrays (%d joints)", m);
        c->cg_floats = cap;
    }
    return CTN_OK;
}

#define TRY_CPU(expr)                      \
    do {                                   \
        ctn_status s_ = (expr);            \
        if (s_ != CTN_OK) return s_;       \
    } while (0)

/* The world's thread count: the OpenMP loops' team and the lean loops' (host/solve/body_passes.c) */
static int cpu_team(const ctn_world *w) { return ctn__threads(w); }
#ifdef _OPENMP
/* A loop over independent items (bodies or joints, each written by its own iteration only) on the
 * world's threads when there are at least CPU_PARALLEL_MIN of them: the same bits on any thread count. */
#define CPU_PRAGMA(...) _Pragma(#__VA_ARGS__)
#define CPU_FOR(count) CPU_PRAGMA(omp parallel for schedule(static) if ((count) >= CPU_PARALLEL_MIN) num_threads(cpu_team(w)))
/* The same with reduction clauses: only max and min, which do not depend on the order, so the result
 * does not depend on the thread count either. */
#define CPU_FOR_REDUCE(count, ...) \
    CPU_PRAGMA(omp parallel for schedule(static) if ((count) >= CPU_PARALLEL_MIN) num_threads(cpu_team(w)) __VA_ARGS__)
#else
#define CPU_FOR(count)
#define CPU_FOR_REDUCE(count, ...)
#endif

/* The bounds under which a step writes the poses in place (in_place_test): h max_speed and a ball joint's anchor
 * components (m). Far above any scene's (a world outside them keeps the pose spare), far below float overflow. */
#define CTN_IN_PLACE_REACH 1099511627776.0 /* 2^40 */
#define CTN_IN_PLACE_ANCHOR 1073741824.0f  /* 2^30 */

/* ---- the phases of one substep ------------------------------------------------------------------- */

/* The exact solver runs for every solver but the three iterative ones (stage_solve). */
static int solver_is_direct(const ctn_world *w) {
    return w->solver != CTN_SOLVER_GS && w->solver != CTN_SOLVER_JACOBI && w->solver != CTN_SOLVER_CG;
}

/* The rows of every joint. The exact solver factors J M^-1 J^T + S itself, so for it the blocks skip
 * kinv (the float block inverse of Gauss-Seidel: a third of the row build), which it builds for the few
 * joints it hands to Gauss-Seidel (CTN_DIRECT_FILL_KINV). While projecting, each block is also given its
 * projection bounds and error (ctn_project_slot, the CTN_STAGE_PROJECT_ROWS that follows) while it is in
 * cache: a pass over every block less per Newton step (28.8 MB at 1e5 links). */
static void phase_prepare(ctn_world *w, cpu_solver *c, ctn_step_params prm) {
    const ctn_topology *t = &w->topo;
    int m = t->joint_count, rows_only = solver_is_direct(w), project = c->projecting;
    /* Gauss-Seidel's sweeps are the only readers of the blocks that ctn_prepare_slot_ball builds with bias and
     * kinv equal to the general build's in value only (the warm start's gather reads neither) */
    int ball = (w->solver == CTN_SOLVER_GS || (w->solver == CTN_SOLVER_CG && c->cg_as_gs)) && !prm.mass_split;
    float worst = 0.0f; /* largest |C| of a projected row (per slot in cg_r, free outside CG) */
    const float *split = prm.mass_split ? ctn__topology_split(&w->topo) : NULL; /* read by mass splitting alone */
    /* the limit rows join the projection as inequalities where the exact solve's active set takes bounded rows
     * (ctn_project_block); the projected sweep solves them worse than it leaves them out. Without a joint that
     * may have a bounded row every block has infinite bounds here, where ctn_project_block's rule with limits
     * is the rule without them, bit for bit, and the check below has nothing to undo: both are skipped. */
    int limits = rows_only && w->desc.bounded_rows != CTN_BOUNDED_SWEEP && project && ctn__direct_may_bound(w);
    if (c->ball_rows) { /* the exact solver, rigid ball joints on its chain (ctn__direct_ball_rows); projecting,
                          * ctn_project_slot's rigid rule: the rows stay, the error is max |bias| h (none is bounded) */
        c->project_worst = ctn__ball_rows(ctn__topo_joints(t), m, w->pose, w->vel, prm, c->balls, project, m >= CPU_PARALLEL_MIN ? ctn__threads(w) : 1);
        return;
    }
    if (c->compact) { /* Gauss-Seidel, ball joints only (ctn__rows_compact) */
        ctn_point_block *pts = c->points;
        CPU_FOR(m)
        for (int s = 0; s < m; ++s) ctn_prepare_slot_point(s, ctn__topo_joints(t), w->pose, w->vel, w->inertia, prm, pts);
        c->project_worst = 0.0f;
        return;
    }
    if (rows_only) { /* the exact solver's rows (host/solve/hinge_rows.c: plain hinges by a lean build, the same bits) */
        worst = ctn__exact_rows(ctn__topo_joints(t), m, w->pose, w->vel, prm, c->blocks, project, limits, c->cg_r, m >= CPU_PARALLEL_MIN ? cpu_team(w) : 1);
    } else {
        CPU_FOR_REDUCE(m, reduction(max : worst))
        for (int s = 0; s < m; ++s) {
            if (ball && t->defs[s].type == CTN_JT_BALL) ctn_prepare_slot_ball(s, ctn__topo_joints(t), w->pose, w->vel, w->inertia, prm, c->blocks);
            else ctn_prepare_slot(s, ctn__topo_joints(t), w->pose, w->vel, w->inertia, split, prm, c->blocks);
            if (!project) continue;
            /* ctn_project_slot on the host; the error per slot is kept (cg_r) only for the limits' pass below */
            float err = ctn_project_block(t->defs[s].compliance, &c->blocks[s], prm.h, limits);
            if (limits) c->cg_r[s] = err;
            worst = err > worst ? err : worst; /* never NaN: ctn_project_block's CTN_FMAX drops them */
        }
    }
    if (project && limits && !ctn__direct_active_applies(w, c->blocks)) {
        /* the sweep would take the kept limit rows (a rope or contact in the forest, a bounded loop closer): the
         * rule without limits instead, bit for bit. Kept rows are bilateral only there, so a block with any
         * other row (a limit's one-sided bound, a motor's [0, 0]) belongs to a joint that rule leaves out */
        worst = 0.0f;
        for (int s = 0; s < m; ++s) {
            ctn_block *b = &c->blocks[s];
            int rows = ctn_block_rows(b), out = 0;
            for (int k = 0; k < rows; ++k) out |= !(b->lo[k] <= -0.5f * CTN_INF && b->hi[k] >= 0.5f * CTN_INF);
            if (out) {
                for (int k = 0; k < rows; ++k) b->lo[k] = b->hi[k] = 0.0f;
                c->cg_r[s] = 0.0f;
            }
            worst = c->cg_r[s] > worst ? c->cg_r[s] : worst;
        }
    }
    c->project_worst = worst;
}

static void phase_forces(ctn_world *w, cpu_solver *c, ctn_step_params prm) {
    const ctn_topology *t = &w->topo;
    ctn_vel *in = ctn__snapshot_fork(w, CTN_SNAP_VEL); /* the step's first write: from the velocities it started from */
    if (!in && t->spring_count > 0) {
        memcpy(c->vel_copy, w->vel, (size_t)w->body_count * sizeof *c->vel_copy);
        in = c->vel_copy;
    } else if (!in) {
        in = w->vel;
    }
    int n = w->body_count; /* the lean loop (host/solve/body_passes.c) where no spring adds a force */
    ctn__forces(n, w->props, w->body_force, w->inertia, t->spring_count ? t->spring_adj_offsets : NULL, t->spring_adj, t->springs, w->pose, in, w->vel,
                prm, t->spring_count == 0,
                n >= CPU_PARALLEL_MIN ? cpu_team(w) : 1);
}

static void phase_gather(ctn_world *w, cpu_solver *c, const float *l, float scale) {
    const ctn_topology *t = &w->topo;
    const int n = w->body_count, ls = t->stride;
#ifdef _OPENMP
    int nt = cpu_team(w);
#endif
    if (c->ball_rows) {
        const ctn_ball_row *rows = c->balls;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (n >= CPU_PARALLEL_MIN) num_threads(nt)
#endif
        for (int i = 0; i < n; ++i) ctn_apply_gather_ball_row(i, t->adj_offsets, t->adj, rows, l, ls, scale, w->vel, w->inertia);
        return;
    }
    if (c->compact) {
        const ctn_point_block *pts = c->points;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (n >= CPU_PARALLEL_MIN) num_threads(nt)
#endif
        for (int i = 0; i < n; ++i) ctn_apply_gather_point(i, t->adj_offsets, t->adj, pts, l, ls, scale, w->vel, w->inertia);
        return;
    }
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (n >= CPU_PARALLEL_MIN) num_threads(nt)
#endif
    for (int i = 0; i < n; ++i) ctn_apply_gather(i, t->adj_offsets, t->adj, c->blocks, l, ls, scale, w->vel, w->inertia);
}

/* The per-slot update of a solver sweep; returns the slot's squared residual. SLOT_GS_QUIET: a Gauss-Seidel
 * sweep whose residual nobody reads (all but a solve's last), which point blocks skip forming. */
typedef enum slot_update { SLOT_GS, SLOT_GS_QUIET, SLOT_JACOBI } slot_update;

/* The sum of the squared residuals of slots [first, last), updated in order. The arrays are read into locals
 * once: through w and c the compiler reloads them for every slot (the velocity stores might alias them as far
 * as it can tell), some ten instructions per block update of a few hundred. */
static double update_range(ctn_world *w, cpu_solver *c, slot_update kind, int first, int last) {
    ctn_joints defs = ctn__topo_joints(&w->topo);
    const ctn_block *blocks = c->blocks;
    float *lambda = w->topo.lambda, *dlambda = c->dlambda;
    const int ls = w->topo.stride;
    ctn_vel *vel = w->vel;
    const ctn_inertia *inertia = w->inertia;
    double sum = 0.0;
    if (c->compact) { /* Gauss-Seidel on compact point blocks */
        const ctn_point_block *pts = c->points;
        if (kind == SLOT_GS)
            for (int s = first; s < last; ++s) sum += ctn_gs_slot_compact(s, defs, pts, lambda, ls, vel, inertia, 1);
        else
            for (int s = first; s < last; ++s) (void)ctn_gs_slot_compact(s, defs, pts, lambda, ls, vel, inertia, 0);
        return sum;
    }
    if (kind == SLOT_GS)
        for (int s = first; s < last; ++s) sum += ctn_gs_slot(s, defs, blocks, lambda, ls, vel, inertia);
    else if (kind == SLOT_GS_QUIET)
        for (int s = first; s < last; ++s) (void)ctn_gs_slot_ex(s, defs, blocks, lambda, ls, vel, inertia, 0);
    else
        for (int s = first; s < last; ++s) sum += ctn_jacobi_slot(s, defs, blocks, lambda, ls, vel, dlambda);
    return sum;
}

/* Updates slots [begin, end) and returns the sum of their squared residuals: parallel over fixed blocks of
 * CPU_SUM_BLOCK slots when `parallel`, each block summed in order, then the blocks in order, so the sum
 * rounds the same for any thread count. */
static double update_slots(ctn_world *w, cpu_solver *c, slot_update kind, int begin, int end, int parallel) {
    int blocks = (end - begin + CPU_SUM_BLOCK - 1) / CPU_SUM_BLOCK;
    (void)parallel;
#ifdef _OPENMP
    int nt = cpu_team(w);
#pragma omp parallel for schedule(static) if (parallel) num_threads(nt)
#endif
    for (int b = 0; b < blocks; ++b) {
        int first = begin + b * CPU_SUM_BLOCK, last = end - first > CPU_SUM_BLOCK ? first + CPU_SUM_BLOCK : end;
        c->partial[b] = update_range(w, c, kind, first, last);
    }
    double r2 = 0.0;
    for (int b = 0; b < blocks; ++b) r2 += c->partial[b];
    return r2;
}

/* Coloured block Gauss-Seidel: colours in order, joints of a colour in parallel, then the overflow
 * group serially. Returns the sum of squared residuals of the last sweep (the sweeps before it form none). */
static double solve_gs(ctn_world *w, cpu_solver *c) {
    const ctn_topology *t = &w->topo;
    double r2 = 0.0;
    for (int it = 0; it < w->desc.iterations; ++it) {
        slot_update kind = it == w->desc.iterations - 1 ? SLOT_GS : SLOT_GS_QUIET;
        r2 = 0.0;
        for (int col = 0; col <= t->colour_count; ++col) {
            int begin = t->colour_offsets[col], end = t->colour_offsets[col + 1];
            int parallel = col < t->colour_count && end - begin >= CPU_PARALLEL_MIN;
            r2 += update_slots(w, c, kind, begin, end, parallel);
        }
    }
    return r2;
}

/* Jacobi with mass splitting: every row from the same velocities, then every body gathers its rows'
 * M^-1 J^T dlambda (Nelson 1998; Tonge et al. 2012). */
static double solve_jacobi(ctn_world *w, cpu_solver *c) {
    const ctn_topology *t = &w->topo;
    int m = t->joint_count;
    double r2 = 0.0;
    for (int it = 0; it < w->desc.iterations; ++it) {
        r2 = update_slots(w, c, SLOT_JACOBI, 0, m, m >= CPU_PARALLEL_MIN);
        phase_gather(w, c, c->dlambda, 1.0f);
    }
    return r2;
}

/* Sum over k of x[k] y[k] for k in [0, len), in order (the fixed-order reduction of the CPU's CG). */
static double dot_in_order(const float *x, const float *y, int len) {
    double sum = 0.0;
    for (int k = 0; k < len; ++k) sum += (double)x[k] * y[k];
    return sum;
}

/* Block-Jacobi-preconditioned conjugate gradient (Hestenes and Stiefel 1952): the per-slot and per-body
 * steps of kernels/ctn_cg.h, shared with the OpenCL kernels, as loops; the dot products and alpha, beta
 * here. Velocities follow lambda, so on exit v = v* + M^-1 J^T lambda as for the other solvers. Bilateral
 * rows only. Returns |r|^2 of the last iteration. */
static double solve_cg(ctn_world *w, cpu_solver *c) {
    const ctn_topology *t = &w->topo;
    const int m = t->joint_count, n = w->body_count, ls = t->stride, len = ls * m;
    float *r = c->cg_r, *z = c->cg_z, *p = c->dlambda, *ap = c->cg_ap;
    ctn_vel *u = c->vel_copy;
    for (int s = 0; s < m; ++s) ctn_cg_init_slot(s, ctn__topo_joints(t), c->blocks, w->vel, t->lambda, ls, r, z, p);
    double rz = dot_in_order(r, z, len), rr = dot_in_order(r, r, len);
    /* Stop once the preconditioned residual fell by 1e-6 in norm: float32 CG carried further loses
     * conjugacy and drifts away from a solution it already reached. */
    const double rz_stop = 1e-12 * rz;
    for (int it = 0; it < w->desc.iterations && rz > rz_stop && rz > 0.0; ++it) {
        for (int i = 0; i < n; ++i) ctn_cg_gather_body(i, t->adj_offsets, t->adj, c->blocks, p, ls, w->inertia, u);
        for (int s = 0; s < m; ++s) ctn_cg_apply_slot(s, ctn__topo_joints(t), c->blocks, u, p, ls, ap);
        double pap = dot_in_order(p, ap, len);
        if (!(pap > 0.0)) break;
        float alpha = (float)(rz / pap);
        for (int s = 0; s < m; ++s) ctn_cg_update_slot(s, c->blocks, alpha, t->lambda, ls, r, p, ap, z);
        for (int i = 0; i < n; ++i) ctn_cg_velocity_body(i, t->adj_offsets, alpha, u, w->vel);
        double rz_new = dot_in_order(r, z, len);
        rr = dot_in_order(r, r, len);
        float beta = (float)(rz_new / rz);
        rz = rz_new;
        for (int k = 0; k < len; ++k) ctn_cg_direction(k, beta, z, p);
    }
    return rr;
}

/* ---- the stages (host/solve/pipeline.h) ---------------------------------------------------------- */

/* Whether the step's integration may write the poses in place: the velocity step with one substep and a speed
 * limit, under which cpu_integrate tests for divergence before it integrates (in_place_test). Its only other
 * writer is the exact solver's position projection, which then keeps its copies in the pose spare and leaves
 * finite joint errors (in_place_joints, project_unchecked); RATTLE and assembly's gather copy the poses by
 * ctn__snapshot_keep first, which takes the spare back. */
static int poses_in_place(const ctn_world *w) {
    double limit = w->desc.max_speed;
    return ctn__substeps(w) == 1 && limit > 0.0 && limit * w->desc.time_step <= CTN_IN_PLACE_REACH;
}

static int in_place_joints(const ctn_world *w, cpu_solver *c);

/* Whether a step reads the body -> joint adjacency (built on first need, ctn__topology_adjacency): the iterative
 * solvers gather over it (the warm start, Jacobi, CG), the exact solver's warm start where it is not idle
 * (ctn__warm_start_idle, with the layout prepared), and the geometric-stiffness inertia where it does not sum by
 * joint. The exact solver's forest build (ctn__direct_build) and the assembly's first stage build it themselves. */
static int step_reads_adjacency(ctn_world *w) {
    return !solver_is_direct(w) || !CTN_GEOMETRIC_INERTIA_BY_JOINT || !ctn__warm_start_idle(w, w->backend->stages);
}

static ctn_status cpu_begin(ctn_world *w) {
    cpu_solver *c = w->backend_data;
    TRY_CPU(cpu_reserve(w, c));
    if (w->solver == CTN_SOLVER_DIRECT && w->topo.joint_count > 0) TRY_CPU(ctn__direct_prepare(w)); /* its storage: nothing changed yet */
    TRY_CPU(cpu_reserve_rows(w, c)); /* ball records or blocks, by the layout just prepared */
    if (step_reads_adjacency(w)) TRY_CPU(ctn__topology_adjacency(w)); /* before the step changes anything */
    if (w->bodies_dirty || c->rattle_version != w->topology_version || w->solver != CTN_SOLVER_DIRECT) c->rattle_valid = 0; /* edited state */
    int derived = c->inertia_clean && !w->bodies_dirty; /* the last step left them so and the host changed no body */
    if (!derived) ctn__inertia_fresh(w); /* the snapshot tests them */
    c->inertia_clean = 0;                               /* until this step holds (cpu_end) */
    c->poses_in_place = poses_in_place(w);
    c->scanned = 0;
    c->frozen = 0;
    /* the exact solver's projection copies the poses: into the pose spare after an integration in place (then
     * free of the step's start), else into pose_copy, reserved here for such a step (and by cpu_integrate for one
     * outside in_place_test's bounds). A velocity step that integrates in place holds that spare alone, the step
     * spare, which keeps the start velocities and impulses until in_place_test (divergence.c); a RATTLE step that
     * may run copies every array first (its stages write them in place), so it keeps their spares instead. */
    int direct = solver_is_direct(w), in_place = c->poses_in_place && in_place_joints(w, c);
    if (direct && !in_place) TRY_CPU(pose_copy_reserve(w, c));
    int spares = direct && in_place && !ctn__rattle_may_run(w) ? CTN_SNAP_TAKE_SHARED
                 : !c->poses_in_place || direct                ? CTN_SNAP_TAKE_FORK
                                                               : CTN_SNAP_TAKE_NO_POSE;
    TRY_CPU(ctn__snapshot_take(w, derived, spares)); /* the state the step starts from: a diverged step is undone to it */
    c->inertia_now = !w->snapshot_inertia_kept;
    c->r2 = 0.0, c->r2_impulses = c->r2_velocities = 0;
    c->factor_kept = 0;
    c->at_rest = c->moved = 0; /* a step that failed inside the projection left them */
    c->cg_as_gs = ctn__cg_runs_gs(w, &c->cg_warned); /* CG solves equalities only: one rule on both backends */
    w->bodies_dirty = 0;
    return CTN_OK;
}

static void stage_solve(ctn_world *w, cpu_solver *c) {
    double r2;
    int impulses = 0, velocities = 0;
    if (w->solver == CTN_SOLVER_GS) r2 = solve_gs(w, c);
    else if (w->solver == CTN_SOLVER_JACOBI) r2 = solve_jacobi(w, c);
    else if (w->solver == CTN_SOLVER_CG && c->cg_as_gs) r2 = solve_gs(w, c);
    else if (w->solver == CTN_SOLVER_CG) r2 = solve_cg(w, c);
    else {
        r2 = ctn__solve_direct_ex(w, c->ball_rows ? NULL : c->blocks, CTN_DIRECT_FILL_KINV | (c->projecting ? CTN_DIRECT_PROJECTION : CTN_DIRECT_RESIDUAL));
        impulses = ctn__direct_residual_impulses(w);
        velocities = ctn__direct_residual_velocities(w);
    }
    c->factor_kept = solver_is_direct(w) && ctn__direct_exact(w);
    if (!c->projecting) /* the projection's solves are not the step's residual */
        c->r2 = r2, c->r2_impulses = impulses, c->r2_velocities = velocities;
}

/* The first slot with a non-finite impulse, INT_MAX when none: the impulses by groups of 8 slots, their exponent
 * fields first (ctn__impulses_bad: a few instructions a slot where ctn_impulse_bad's six tests took about thirty). */
static int impulses_bad_slot(ctn_world *w) {
    const ctn_topology *t = &w->topo;
    int m = t->joint_count, bad_slot = INT_MAX, groups = (m + 7) / 8;
    CPU_FOR_REDUCE(groups, reduction(min : bad_slot))
    for (int g = 0; g < groups; ++g) {
        int s = ctn__impulses_bad(t->lambda, t->stride, 8 * g, 8 * g + 8 < m ? 8 * g + 8 : m);
        bad_slot = s < bad_slot ? s : bad_slot;
    }
    return bad_slot;
}

/* Residual, joint errors and the divergence scan: the first body that is non-finite or faster than
 * desc.max_speed, then the first joint with a non-finite impulse (ctn_impulse_bad, as the device). The errors are measured over the solver's copies of
 * the joints (topo.defs, as the OpenCL measure kernel), where attached bodies' rows act on the composite
 * bodies (host/core/attach.c). On the world's threads: serial, these scans held the other threads idle. */
static void stage_measure(ctn_world *w, cpu_solver *c, int joint_errors, ctn_stage_out *out) {
    const ctn_topology *t = &w->topo;
    int m = t->joint_count, n = w->body_count, bad_body = INT_MAX, bad_slot = INT_MAX;
    double gap = 0.0, angle = 0.0, top = 0.0;
    ctn_pose world = ctn__world_pose();
    /* joints to evaluate: none when the entry does not cover JOINT_ERRORS (CTN_TABLE_MEASURE with sub = 1: the
     * projection stopped on a chord step's rows, whose CHORD_ROWS measured these poses) */
    int measure = joint_errors ? m : 0;
    if (!measure) gap = c->measured_gap, angle = c->measured_angle;
    CPU_FOR_REDUCE(measure, reduction(max : gap, angle))
    for (int s = 0; s < measure; ++s) {
        ctn_joints J = ctn__topo_joints(t);
        const ctn_joint_core *d = &t->defs[s];
        float g, a;
        if (ctn__chord_hinge_plain_at(J, s)) { /* the chord rows' lean measure, same bits */
            ctn__hinge_error(J, s, w->pose, &g, &a);
        } else if (d->type == CTN_JT_BALL) {
            ctn_joint_error_at(J, s, w->pose[d->a], d->b >= 0 ? w->pose[d->b] : world, &g, &a);
        } else {
            ctn__joint_error_at(J, s, w->pose[d->a], d->b >= 0 ? w->pose[d->b] : world, &g, &a);
        }
        gap = g > gap ? g : gap;
        angle = a > angle ? a : angle;
    }
    if (c->scanned) { /* in_place_test's scan, before an integration in place */
        top = c->scanned_top;
        c->scanned = 0;
    } else {
        ctn__body_scan(w, n, w->pose, w->vel, 1, n >= CPU_PARALLEL_MIN ? cpu_team(w) : 1, &top, &bad_body); /* host/solve/body_passes.c */
        bad_slot = impulses_bad_slot(w);
    }
    out->r2 = c->r2;
    out->max_gap = gap, out->max_angle = angle, out->max_speed = top;
    out->bad_body = bad_body < n ? bad_body : -1;
    out->bad_joint = bad_slot < m ? t->order[bad_slot] : -1;
}

/* Whether an integration may leave the world inverse inertia as it is: under the exact solver with
 * geometric stiffness, every inertia an integration would form is overwritten unread (the next substep and
 * every projection step that solves begin with CTN_STAGE_GEOMETRIC_INERTIA, the exact solver's row build
 * reads none, and the projection leaves with the plain inertia of the final poses), and forming it was a
 * third of the integration. */
static int integrate_keeps_inertia(const ctn_world *w, const ctn_step_params *prm) {
    return w->solver == CTN_SOLVER_DIRECT && prm->geometric_stiffness > 0.0f && w->topo.joint_count > 0;
}

/* Whether every joint is a ball joint (no implicit spring) whose anchors lie within CTN_IN_PLACE_ANCHOR of its
 * bodies (cached per topology): the joints whose errors in_place_test bounds. */
static int lean_joints_bounded(const ctn_world *w, ctn_compact_cache *k) {
    const ctn_topology *t = &w->topo;
    if (k->valid && k->version == w->topology_version) return k->holds;
    const ctn_joints J = ctn__topo_joints(t);
    int all = 1;
    for (int s = 0; s < t->joint_count && all; ++s) {
        const ctn_jcore *d = &CTN_JC(J, s);
        all = d->type == CTN_JT_BALL && !(ctn_joint_flags(J, s) & CTN_JF_IMPLICIT_SPRING) &&
              fabsf(d->anchor_a.x) < CTN_IN_PLACE_ANCHOR && fabsf(d->anchor_a.y) < CTN_IN_PLACE_ANCHOR && fabsf(d->anchor_a.z) < CTN_IN_PLACE_ANCHOR &&
              fabsf(d->anchor_b.x) < CTN_IN_PLACE_ANCHOR && fabsf(d->anchor_b.y) < CTN_IN_PLACE_ANCHOR && fabsf(d->anchor_b.z) < CTN_IN_PLACE_ANCHOR;
    }
    k->holds = all, k->valid = 1, k->version = w->topology_version;
    return all;
}

/* The joints under which a step integrates in place (in_place_test): lean_joints_bounded's, and for the exact
 * solver every joint a rigid bilateral ball joint (no compliance, limit, motor, rope, swing cone or assembly
 * target), which its position projection after the integration projects, all of them (pipeline.c
 * joint_not_rigid): a projection step is kept only where it lowered the largest joint error (ctn_project_decide,
 * the chord test) below the one the projection started from, which in_place_test's bounds keep finite, and the
 * last step, which no decision checks, is checked for a finite result (project_unchecked). So the poses and joint
 * errors MEASURE reads after the projection are finite, as after the integration alone. Cached per topology. */
static int in_place_joints(const ctn_world *w, cpu_solver *c) {
    if (!lean_joints_bounded(w, &c->lean_joints)) return 0;
    if (!solver_is_direct(w)) return 1;
    ctn_compact_cache *k = &c->projected_balls;
    if (!k->valid || k->version != w->topology_version) {
        const ctn_joints J = ctn__topo_joints(&w->topo);
        int all = 1;
        for (int s = 0; s < w->topo.joint_count && all; ++s)
            all = !(CTN_JC(J, s).compliance > 0.0f) &&
                  !(ctn_joint_flags(J, s) & (CTN_JF_LIMIT | CTN_JF_MOTOR | CTN_JF_ROPE | CTN_JF_SWING | CTN_JF_ASSEMBLE_TARGET));
        k->holds = all, k->valid = 1, k->version = w->topology_version;
    }
    return k->holds;
}

/* The divergence test of a step whose poses the integration writes in place (cpu_solver.poses_in_place), before
 * it: 0 when the step diverged (a body non-finite or faster than desc.max_speed, an impulse or the residual
 * not finite: MEASURE, which the integration then leaves to the poses the step started from, finds the same
 * body, slot or residual, and the restore swaps back the velocities and impulses alone), 1 when the integration
 * may write in place, -1 when a pose or joint lies outside the bounds below (the step reserves the pose spare and forks).
 * Nothing else can fail after an integration that passed: with |v|, |w| <= max_speed, h max_speed <= 2^40
 * (poses_in_place), positions below 2^40 and orientation components below 2 before it, the new position is
 * below 2^42 (the two-float sum, ctn_v3_add2), the turn e of ctn_quat_turn is a unit quaternion (|sin(a)/|w|| |w|
 * <= 1) so |e q| < 4.1 and the Newton scaling |1.5 - 0.5 |e q|^2| < 6.9: orientation components below 2^5; a ball
 * joint's anchor below 2^30 rotates to below 2^44 (ctn_quat_rotate: |r'| <= (1 + 4 |q|^2) |r|, |q|^2 < 2^10), so
 * the separation of ctn_point_sep is below 2^46 a component and ctn_joint_error's sum of squares below 2^94: every
 * pose and joint error after the integration is finite, so the first body MEASURE's scan would find after it is
 * the first this test finds before it (none when it passed: MEASURE then takes its answer, cpu_solver.scanned).
 * The velocities and impulses do not change in the integration; the residual is the solve's. A step outside the
 * bounds takes the fork whatever else it holds (MEASURE then does its own scan). */
static int in_place_test(ctn_world *w, cpu_solver *c, int n, int threads) {
    if (!in_place_joints(w, c)) return -1;
    double top = 0.0;
    int rows = w->topo.row_count;
    /* a finite residual that read every velocity (c->r2_velocities) says they are all finite: the scan leaves out
     * their finite test, whose answer it knows (the same answers) */
    int vel_finite = c->r2_velocities && rows && isfinite(sqrt(c->r2 / rows));
    /* one pass over the bodies: the bounds and the divergence scan together (host/solve/body_passes.c) */
    if (!ctn__body_scan_bounded(w, n, w->pose, w->vel, vel_finite, threads, &top)) return ctn__poses_bounded(w->pose, n, threads) ? 0 : -1;
    /* the impulses' scan, unless the residual read them all (a finite one: all finite; c->r2_impulses) */
    if ((rows && !isfinite(sqrt(c->r2 / rows))) || (!(c->r2_impulses && rows) && impulses_bad_slot(w) != INT_MAX)) return 0;
    c->scanned = 1, c->scanned_top = top; /* MEASURE's scan of the bodies and impulses, done: they do not change */
    return 1;
}

/* The array of the projection's copy of the poses (POSES_KEEP, POSES_UNDO): after an integration in place the
 * divergence guard's pose spare, which holds nothing of the step's start then, else pose_copy. */
static ctn_pose **keep_array(ctn_world *w, cpu_solver *c) {
    return (w->snapshot_forked & CTN_SNAP_POSE_IN_PLACE) ? &w->snapshot_pose : &c->pose_copy;
}

/* The poses into the copy, by 128-byte blocks of 16-byte lanes (core/lane_copy.h: 0.15 instructions a byte, the
 * loop's own instructions once every 3.2 poses). */
static void keep_poses(ctn_world *w, cpu_solver *c) {
    int n = w->body_count;
    ctn_pose *to = *keep_array(w, c);
    const ctn_pose *from = w->pose;
    size_t bytes = (size_t)n * sizeof *from;
    long blocks = (long)(bytes / CTN_LANE_BLOCK);
    CPU_FOR(n) /* the same thread rule as a loop over the bodies */
    for (long i = 0; i < blocks; ++i) lane_copy_block(to, from, (size_t)i);
    lane_copy_tail(to, from, bytes);
    c->kept_now = 1;
}

/* Before a projection step may move the poses, after an integration in place: the last step, which no decision
 * checks and whose table keeps no copy (pipeline.c), takes one here, for project_unchecked. */
static void move_prepare(ctn_world *w, cpu_solver *c) {
    if (!c->projecting || !(w->snapshot_forked & CTN_SNAP_POSE_IN_PLACE)) return;
    if (!c->keep_table && !c->kept_now) keep_poses(w, c);
    c->unchecked = !c->keep_table;
}

/* After the projection's last step (PROJECT_LEAVE) that moved the poses in place unchecked: its poses and joint
 * errors must be finite for MEASURE to find what in_place_test found (in_place_joints); where they are not, the
 * step is undone (the copy move_prepare took). Every step before it was checked by a decision. */
static void project_unchecked(ctn_world *w, cpu_solver *c) {
    const ctn_topology *t = &w->topo;
    const ctn_joints J = ctn__topo_joints(t);
    int n = w->body_count, ok = 1;
    c->unchecked_counts[0]++;
    if (c->unchecked_fault && n > 0) w->pose[0].p.x = NAN; /* the test's fault: as if the step had left it so */
    for (int i = 0; i < n && ok; ++i) ok = !ctn__lanes_any(ctn__pose_nonfinite(&w->pose[i]));
    ctn_pose world = ctn__world_pose();
    for (int s = 0; s < t->joint_count && ok; ++s) { /* stage_measure's errors, out of line (rare: no inlined copy) */
        const ctn_joint_core *d = &t->defs[s];
        float g, a;
        ctn__joint_error_at(J, s, w->pose[d->a], d->b >= 0 ? w->pose[d->b] : world, &g, &a);
        ok = isfinite(g) && isfinite(a);
    }
    if (!ok) {
        ctn_pose **copy = keep_array(w, c), *p = w->pose;
        w->pose = *copy, *copy = p;
        c->unchecked_counts[1]++;
    }
}

/* x += h v per body (CTN_STAGE_INTEGRATE), by the lean loops of host/solve/body_passes.c. */
static ctn_status cpu_integrate(ctn_world *w, cpu_solver *c, const ctn_step_params *prm) {
    int n = w->body_count, threads = n >= CPU_PARALLEL_MIN ? cpu_team(w) : 1;
    const ctn_pose *from = w->pose;
    if (c->poses_in_place && !(w->snapshot_forked & (CTN_SNAP_POSE | CTN_SNAP_POSE_IN_PLACE))) {
        int t = in_place_test(w, c, n, threads);
        if (t == 0) { /* diverged: the poses stay as the step found them, and the projection does not move them */
            c->frozen = 1;
            w->snapshot_forked |= CTN_SNAP_POSE_IN_PLACE; /* nothing to undo on them: no stage copies them either */
            return CTN_OK;
        }
        if (t > 0) { /* the step holds from here: a step spare goes to the projection's copy of the poses */
            w->snapshot_forked |= CTN_SNAP_POSE_IN_PLACE;
            ctn__snapshot_release(w);
        } else { /* outside the bounds: the spare after all (a step spare's velocities and impulses moved out of it
                  * first), forked below, and the projection's copy apart from it */
            TRY_CPU(ctn__snapshot_pose_spare(w));
            if (solver_is_direct(w)) TRY_CPU(pose_copy_reserve(w, c));
        }
    }
    move_prepare(w, c);
    if (c->projecting) c->kept_now = 0; /* the poses move */
    /* the step's first write: from the poses it started from */
    const ctn_pose *start = ctn__snapshot_fork(w, CTN_SNAP_POSE);
    if (start) from = start;
    if (integrate_keeps_inertia(w, prm)) ctn__integrate_poses(n, from, w->pose, w->vel, w->props, prm->h, 1, threads);
    else ctn__integrate_bodies(n, from, w->pose, w->vel, w->props, w->inertia, prm->h, 1, threads);
    return CTN_OK;
}

/* The projection's scratch velocities and impulses to zero (CTN_STAGE_PROJECT_REST). */
static void project_rest(ctn_world *w, cpu_solver *c) {
    ctn_topology *t = &w->topo;
    int n = w->body_count, m = t->joint_count;
    if (c->at_rest) return; /* no scratch arrays: the state they stand for is at rest */
    CPU_FOR(n)
    for (int i = 0; i < n; ++i) ctn_project_begin_body(i, w->vel);
    int len = t->stride * m;
    CPU_FOR(len)
    for (int k = 0; k < len; ++k) t->lambda[k] = 0.0f;
}

/* Whether the projection can run without its scratch velocities and impulses (cpu_solver.at_rest): on the exact
 * solver's chain path, where its row builds do not read the velocities (every joint a rigid bilateral row, as
 * pipeline.c's joint_not_rigid has it, and no assembly target: the projection's targets are -C/h alone,
 * kernels/ctn_rows.h with stabilization on; no contact, curve, limit, motor, rope, swing cone or spring), its
 * chord steps and Newton steps
 * move every body the integration would (ctn__direct_chord_moves), the integration keeps the inertias
 * (integrate_keeps_inertia: a move in the solve forms none either), and no row is bounded (the active set and the
 * Gauss-Seidel of cut rows read the impulses). Then each projection step starts from v = 0, lambda = 0, solves with
 * those zeros read as constants and moves the poses, so the scratch arrays are never written or read: 60 bytes a
 * link (the velocities 32, impulses 24, per-slot errors 4) that stay untouched. A stage outside that (a solve the
 * chain path cannot do without them) takes the arrays back first, at rest (at_rest_leave). */
static int project_at_rest(ctn_world *w, cpu_solver *c, const ctn_step_params *prm) {
    const ctn_topology *t = &w->topo;
    if (c->rest_mode == 1 || !solver_is_direct(w) || c->compact || !integrate_keeps_inertia(w, prm) || !ctn__direct_chord_moves(w, prm->h))
        return 0;
    if (c->rest_mode == 2) return 1;
    ctn_compact_cache *k = &c->rest_joints;
    if (!k->valid || k->version != w->topology_version) {
        const ctn_joints J = ctn__topo_joints(t);
        int all = t->joint_count > 0;
        for (int s = 0; s < t->joint_count && all; ++s) {
            const ctn_jcore *d = &CTN_JC(J, s);
            all = d->type != CTN_JT_CONTACT && d->type != CTN_JT_CURVE && !(d->compliance > 0.0f) &&
                  !(ctn_joint_flags(J, s) & (CTN_JF_IMPLICIT_SPRING | CTN_JF_LIMIT | CTN_JF_MOTOR | CTN_JF_ROPE | CTN_JF_SWING | CTN_JF_ASSEMBLE_TARGET));
        }
        k->holds = all, k->valid = 1, k->version = w->topology_version;
    }
    return k->holds;
}

/* The projection's scratch arrays back in, at rest (PROJECT_REST's state, which is the state at_rest stood for):
 * before a stage that at_rest does not cover. */
static void at_rest_leave(ctn_world *w, cpu_solver *c) {
    c->at_rest = 0;
    c->rest_counts[2]++;
    w->vel = c->vel_copy, w->topo.lambda = c->dlambda;
    project_rest(w, c);
}

/* The stages a projection at rest runs as they are (cpu_run_entry): row builds and pose copies, which read no
 * velocity or impulse of the projection, and the solves that take the at-rest path (stage_project, SOLVE). */
static int at_rest_stage(ctn_stage stage) {
    switch (stage) {
    case CTN_STAGE_PROJECT_REST: case CTN_STAGE_PREPARE: case CTN_STAGE_PROJECT_ROWS: case CTN_STAGE_CHORD_ROWS:
    case CTN_STAGE_GEOMETRIC_INERTIA: case CTN_STAGE_POSES_KEEP: case CTN_STAGE_POSES_UNDO: case CTN_STAGE_SOLVE:
    case CTN_STAGE_INTEGRATE: case CTN_STAGE_CHORD_SOLVE: case CTN_STAGE_PROJECT_LEAVE: return 1;
    default: return 0;
    }
}

static void stage_project(ctn_world *w, cpu_solver *c, const ctn_stage_entry *e, const ctn_step_params *prm, ctn_stage_out *out) {
    ctn_stage stage = e->stage;
    ctn_topology *t = &w->topo;
    int m = t->joint_count;
    switch (stage) {
    case CTN_STAGE_PROJECT_ENTER:
        out->kept = c->factor_kept;
        c->real_vel = w->vel, c->real_lambda = t->lambda;
        c->at_rest = project_at_rest(w, c, prm), c->moved = 0;
        c->kept_now = c->keep_table = c->unchecked = 0;
        c->rest_counts[0] += c->at_rest;
        if (!c->at_rest) w->vel = c->vel_copy, t->lambda = c->dlambda;
        c->projecting = 1;
        break;
    case CTN_STAGE_PROJECT_REST: project_rest(w, c); break;
    case CTN_STAGE_PROJECT_ROWS: /* projected by phase_prepare; a new step's table */
        out->worst = c->project_worst;
        c->keep_table = 0;
        break;
    case CTN_STAGE_CHORD_ROWS: { /* the kept rows' targets; the scratch velocities are zero (PROJECT_REST) */
        ctn_chord_rows_result r; /* and the joint errors of stage_measure's loop, while the poses are at hand */
        int threads = m >= CPU_PARALLEL_MIN ? ctn__threads(w) : 1;
        if (c->ball_rows) ctn__chord_rows_balls(ctn__topo_joints(t), m, w->pose, prm->h, c->balls, threads, &r);
        else ctn__chord_rows(ctn__topo_joints(t), m, w->pose, prm->h, c->blocks, ctn__chord_all_ball(w, &c->chord_ball), threads, &r);
        out->worst = r.worst;
        c->measured_gap = r.gap, c->measured_angle = r.angle; /* JOINT_ERRORS (ctn__stage_whole(CTN_STAGE_CHORD_ROWS)) */
        c->keep_table = 0; /* a new step's table */
        break;
    }
    case CTN_STAGE_CHORD_SOLVE: { /* PROJECT_REST zeroed v and lambda */
        const ctn_block *rows = c->ball_rows ? NULL : c->blocks; /* NULL: the ball records (ctn__direct_set_balls) */
        if (!(e->covers & CTN_STAGE_BIT(CTN_STAGE_INTEGRATE))) {
            if (c->at_rest) at_rest_leave(w, c);
            ctn__direct_resolve_rest(w, rows);
        } else {
            move_prepare(w, c);
            if (!ctn__direct_chord_step(w, rows, prm->h)) { /* not reached: cpu_plan asked ctn__direct_chord_moves */
                if (c->at_rest) at_rest_leave(w, c);
                ctn__direct_resolve_rest(w, rows);
                (void)cpu_integrate(w, c, prm); /* a projection's: never tested, nothing to reserve */
                project_rest(w, c);
            }
            c->kept_now = 0; /* the poses moved */
        }
        break;
    }
    case CTN_STAGE_POSES_KEEP:
        keep_poses(w, c);
        c->keep_table = 1;
        break;
    case CTN_STAGE_POSES_UNDO: { /* the copy becomes the world's array (both hold w->body_capacity poses) */
        ctn_pose **copy = keep_array(w, c), *p = w->pose;
        w->pose = *copy, *copy = p;
        c->kept_now = 0;
        break;
    }
    case CTN_STAGE_PROJECT_LEAVE: /* the inertias of the final poses: formed by their next reader (ctn__inertia_fresh) */
        if (c->unchecked) project_unchecked(w, c);
        c->kept_now = c->keep_table = c->unchecked = 0;
        w->inertia_stale = 1;
        w->vel = c->real_vel, t->lambda = c->real_lambda;
        c->projecting = c->at_rest = c->moved = 0;
        break;
    default: break;
    }
}

/* Assembly phase 1 (kernels/ctn_assemble.h): every slot, then every body, each on its own; the largest
 * error is a max, which does not depend on the order, so any thread count gives the same state. */
static void stage_assemble(ctn_world *w, cpu_solver *c, ctn_stage stage, ctn_stage_out *out) {
    const ctn_topology *t = &w->topo;
    int m = t->joint_count, n = w->body_count;
#ifdef _OPENMP
    int nt = cpu_team(w);
#endif
    if (stage == CTN_STAGE_ASSEMBLE_ROWS) {
        float *gaps = c->cg_r, *angles = c->cg_r + c->slots; /* cg_r (2 slots floats or more) is free outside CG */
        const float *split = ctn__topology_split(&w->topo);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (m >= CPU_ASSEMBLE_PARALLEL_MIN) num_threads(nt)
#endif
        for (int s = 0; s < m; ++s) ctn_assemble_slot(s, ctn__topo_joints(t), w->pose, w->inertia, w->props, split, c->blocks, c->dlambda, t->stride, gaps, angles);
        double gap = 0.0, angle = 0.0;
        for (int s = 0; s < m; ++s) gap = fmax(gap, gaps[s]), angle = fmax(angle, angles[s]);
        out->max_gap = gap, out->max_angle = angle;
        return;
    }
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (n >= CPU_ASSEMBLE_PARALLEL_MIN) num_threads(nt)
#endif
    for (int i = 0; i < n; ++i) ctn_assemble_body(i, t->adj_offsets, t->adj, c->blocks, c->dlambda, t->stride, w->pose, w->props, w->inertia);
}

/* The RATTLE stages (host/solve/pipeline.c run_rattle, kernels/ctn_rattle.h); pose_copy holds x_n. */
static void stage_rattle(ctn_world *w, cpu_solver *c, ctn_stage stage, const ctn_step_params *prm, ctn_stage_out *out) {
    ctn_topology *t = &w->topo;
    int n = w->body_count, m = t->joint_count;
    switch (stage) {
    case CTN_STAGE_RATTLE_ENTER: { /* A_n has no h in it: valid for any substep length */
        float top = 0.0f;
        CPU_FOR_REDUCE(n, reduction(max : top))
        for (int i = 0; i < n; ++i) {
            float s = ctn_length(w->vel[i].w);
            top = s > top ? s : top;
        }
        /* a distance row turns with its bodies' relative velocity across it: |v_a - v_b| / length */
        CPU_FOR_REDUCE(m, reduction(max : top))
        for (int s = 0; s < m; ++s) {
            const ctn_joint_core *d = &t->defs[s];
            if (d->type != CTN_JT_DISTANCE || !(d->rest_length > 0.0f)) continue;
            float r = ctn_length(ctn_sub(ctn_load_vel(w->vel, d->a).v, ctn_load_vel(w->vel, d->b).v)) / d->rest_length;
            top = r > top ? r : top;
        }
        out->deferred = c->rattle_valid;
        out->max_speed = top;
        break;
    }
    case CTN_STAGE_RATTLE_START:
        CPU_FOR(n)
        for (int i = 0; i < n; ++i) c->pose_copy[i] = w->pose[i], c->rattle_vel[i] = w->vel[i];
        CPU_FOR(m)
        for (int s = 0; s < m; ++s) {
            for (int k = 0; k < t->stride; ++k) t->lambda[t->stride * s + k] = 0.0f;
            for (int k = 0; k < CTN_MAX_ROWS; ++k) c->blocks[s].bias[k] = 0.0f; /* the linearised stage: J_n v' = 0 */
        }
        break;
    case CTN_STAGE_RATTLE_UNDO:
        CPU_FOR(n)
        for (int i = 0; i < n; ++i) w->pose[i] = c->pose_copy[i], w->vel[i] = c->rattle_vel[i];
        break;
    case CTN_STAGE_RATTLE_RESOLVE:
        memcpy(c->vel_copy, w->vel, (size_t)n * sizeof *w->vel); /* for RATTLE_BACK (free: no spring gather here) */
        ctn__direct_resolve(w, c->blocks);
        break;
    case CTN_STAGE_RATTLE_FACTOR: ctn__direct_factor(w, c->blocks); break;
    case CTN_STAGE_RATTLE_BACK: memcpy(w->vel, c->vel_copy, (size_t)n * sizeof *w->vel); break;
    case CTN_STAGE_RATTLE_DRIFT:
        CPU_FOR(n)
        for (int i = 0; i < n; ++i) ctn_rattle_drift_body(i, c->pose_copy, w->pose, w->vel, w->props, prm->h);
        break;
    case CTN_STAGE_RATTLE_ROWS: {
        float worst = 0.0f;
        CPU_FOR_REDUCE(m, reduction(max : worst))
        for (int s = 0; s < m; ++s) {
            float e = ctn_rattle_slot(s, ctn__topo_joints(t), w->pose, w->vel, prm->h, c->blocks);
            worst = e > worst ? e : worst;
            if (e != e) worst = INFINITY; /* a non-finite error stops the iteration */
        }
        out->worst = worst;
        break;
    }
    case CTN_STAGE_RATTLE_MOMENTUM:
        CPU_FOR(n)
        for (int i = 0; i < n; ++i) ctn_rattle_momentum_body(i, c->pose_copy, w->pose, w->vel, w->props, w->inertia);
        break;
    case CTN_STAGE_RATTLE_LEAVE:
        c->rattle_valid = 1, c->rattle_version = w->topology_version;
        break;
    case CTN_STAGE_RATTLE_NEWTON: /* the rows J_k of the drifted poses x^k, the factor of J_k M_n^-1 J_k^T, C(x^k) */
        phase_prepare(w, c, *prm);
        ctn__direct_factor(w, c->blocks);
        CPU_FOR(m)
        for (int s = 0; s < m; ++s) (void)ctn_rattle_slot(s, ctn__topo_joints(t), w->pose, w->vel, prm->h, c->blocks);
        break;
    case CTN_STAGE_INERTIA:
        CPU_FOR(n)
        for (int i = 0; i < n; ++i) ctn_inertia_body(i, w->pose, w->props, w->inertia);
        break;
    default: break;
    }
}

/* The CPU's stage tables (ctn_stage_ops.plan): ctn__substep_plan's, one stage per entry, but for the
 * projection's chord steps on the chain path when every body the integration would move is one of its
 * dynamic bodies (ctn__direct_chord_moves): then one walk solves, moves the poses and leaves the scratch
 * velocities and impulses at rest (ctn__direct_chord_step, the same bits as the separate stages), so
 * CHORD_SOLVE covers INTEGRATE and the next step's PROJECT_REST, which a chord step right after it
 * (CTN_TABLE_PROJECT_CHORD_NEXT) does not list. */
static int cpu_plan(const ctn_world *w, const ctn_step_params *prm, ctn_stage_table table, int sub, int n, ctn_stage_entry *e) {
    int count = ctn__substep_plan(w, prm, table, sub, n, e);
    if ((table != CTN_TABLE_PROJECT_CHORD && table != CTN_TABLE_PROJECT_CHORD_NEXT) || !ctn__direct_chord_moves(w, prm->h)) return count;
    int k = 0;
    for (int i = 0; i < count; ++i) {
        if (e[i].stage == CTN_STAGE_INTEGRATE && i > 0 && e[i - 1].stage == CTN_STAGE_CHORD_SOLVE) continue;
        if (e[i].stage == CTN_STAGE_PROJECT_REST && i == 0 && table == CTN_TABLE_PROJECT_CHORD_NEXT) continue;
        e[k] = e[i];
        if (e[k].stage == CTN_STAGE_CHORD_SOLVE)
            e[k].covers |= CTN_STAGE_BIT(CTN_STAGE_INTEGRATE) | ctn__stage_whole(CTN_STAGE_PROJECT_REST); /* the next step's rest */
        ++k;
    }
    return k;
}

/* The arrays of the state a step starts from (CTN_SNAP_*) that a stage may write in place, which the divergence
 * guard's double buffer copies first unless an earlier stage forked them (host/core/divergence.c). The step's
 * first writers fork by writing the other array instead: FORCES (velocities), WARM_START (impulses) and
 * INTEGRATE (poses), the first three writers of the velocity step; RATTLE and assembly copy, as the snapshot
 * did before every step. While projecting, the world's velocities and impulses are the scratch arrays (the real
 * ones were forked by PROJECT_ENTER). */
static unsigned stage_writes(ctn_stage stage, int projecting) {
    const unsigned all = CTN_SNAP_POSE | CTN_SNAP_VEL | CTN_SNAP_LAMBDA;
    unsigned wr;
    switch (stage) {
    case CTN_STAGE_GEOMETRIC_INERTIA: case CTN_STAGE_PREPARE: case CTN_STAGE_FORCES: case CTN_STAGE_INTEGRATE:
    case CTN_STAGE_MEASURE: case CTN_STAGE_PROJECT_REST: case CTN_STAGE_PROJECT_ROWS: case CTN_STAGE_CHORD_ROWS:
    case CTN_STAGE_POSES_KEEP: case CTN_STAGE_PROJECT_LEAVE: case CTN_STAGE_RATTLE_ENTER: case CTN_STAGE_RATTLE_FACTOR:
    case CTN_STAGE_RATTLE_ROWS: case CTN_STAGE_RATTLE_LEAVE: case CTN_STAGE_RATTLE_NEWTON: case CTN_STAGE_INERTIA: wr = 0; break;
    case CTN_STAGE_WARM_START: wr = CTN_SNAP_VEL; break; /* the gather; the impulses fork there */
    case CTN_STAGE_SOLVE: wr = CTN_SNAP_VEL | CTN_SNAP_LAMBDA; break; /* every solver; only a chord step moves poses */
    case CTN_STAGE_CHORD_SOLVE: case CTN_STAGE_POSES_UNDO: case CTN_STAGE_RATTLE_DRIFT: wr = CTN_SNAP_POSE; break;
    default: wr = all; break; /* PROJECT_ENTER, the other RATTLE stages, assembly */
    }
    return projecting ? wr & CTN_SNAP_POSE : wr;
}

/* Whether every world inverse inertia is the function of its pose after `stage` (cpu_solver.inertia_now, `now`
 * before it): formed so by the projection's refresh, the INERTIA stage, an integration that forms them and
 * RATTLE's momentum (every body's, ctn_rattle_momentum_body); unchanged by the stages that write neither poses
 * nor inertias; any other stage (the geometric-stiffness inertia, an integration that keeps the inertias, a pose
 * undone or moved by the chord step, RATTLE's drift and undo, assembly) may leave them otherwise. */
static int stage_inertia(ctn_stage stage, int now, int integrate_forms) {
    switch (stage) {
    case CTN_STAGE_PROJECT_LEAVE: case CTN_STAGE_INERTIA: case CTN_STAGE_RATTLE_MOMENTUM: return 1;
    case CTN_STAGE_INTEGRATE: return integrate_forms;
    case CTN_STAGE_PREPARE: case CTN_STAGE_FORCES: case CTN_STAGE_WARM_START: case CTN_STAGE_SOLVE: case CTN_STAGE_MEASURE:
    case CTN_STAGE_PROJECT_ENTER: case CTN_STAGE_PROJECT_REST: case CTN_STAGE_PROJECT_ROWS: case CTN_STAGE_CHORD_ROWS:
    case CTN_STAGE_POSES_KEEP: case CTN_STAGE_RATTLE_ENTER: case CTN_STAGE_RATTLE_START: case CTN_STAGE_RATTLE_FACTOR:
    case CTN_STAGE_RATTLE_RESOLVE: case CTN_STAGE_RATTLE_BACK: case CTN_STAGE_RATTLE_ROWS: case CTN_STAGE_RATTLE_LEAVE:
    case CTN_STAGE_RATTLE_NEWTON: return now;
    default: return 0;
    }
}

/* One entry of cpu_plan's tables (cpu_run). */
static ctn_status cpu_run_entry(ctn_world *w, cpu_solver *c, const ctn_stage_entry *e, const ctn_step_params *prm, ctn_stage_out *out) {
    ctn_stage stage = e->stage;
    ctn_topology *t = &w->topo;
    int n = w->body_count;
    if (c->frozen && c->projecting && stage != CTN_STAGE_PROJECT_LEAVE) { /* in_place_test found the divergence */
        if (out) out->worst = 0.0f; /* the decision stops at once */
        c->measured_gap = c->measured_angle = 0.0;
        return CTN_OK;
    }
    if (stage == CTN_STAGE_RATTLE_ENTER) TRY_CPU(pose_copy_reserve(w, c)); /* x_n and the projection's copy; nothing changed yet */
    TRY_CPU(ctn__snapshot_keep(w, stage_writes(stage, c->projecting))); /* before its first write in place */
    /* the inertias the last step left stale: every stage but those that overwrite them all or read none forms them */
    int overwrites = stage == CTN_STAGE_GEOMETRIC_INERTIA || stage == CTN_STAGE_INERTIA || stage == CTN_STAGE_RATTLE_MOMENTUM;
    if (w->inertia_stale && !overwrites && stage != CTN_STAGE_MEASURE) ctn__inertia_fresh(w);
    if (overwrites) w->inertia_stale = 0;
    if (stage >= CTN_STAGE_RATTLE_ENTER && stage <= CTN_STAGE_INERTIA) {
        if (stage == CTN_STAGE_RATTLE_ENTER && c->ball_rows) TRY_CPU(cpu_rows_general(w, c));
        c->factor_kept = 0; /* RATTLE keeps its own (rattle_valid) */
        stage_rattle(w, c, stage, prm, out);
        return CTN_OK;
    }
    if (stage == CTN_STAGE_PREPARE || stage == CTN_STAGE_ASSEMBLE_ROWS) c->rattle_valid = c->factor_kept = 0; /* the blocks change */
    if (c->at_rest && !at_rest_stage(stage)) at_rest_leave(w, c);
    switch (stage) {
    case CTN_STAGE_GEOMETRIC_INERTIA: {
        const float *lambda = c->projecting ? c->real_lambda : t->lambda; /* the impulses of the last substep */
        /* the adjacency where built (step_reads_adjacency), else none: the sums by joint */
        const int *off = t->adj_ready ? t->adj_offsets : NULL, *adj = t->adj_ready ? t->adj : NULL;
        ctn__geometric_inertia(n, t->joint_count, w->pose, w->props, off, adj, ctn__topo_joints(t), lambda, t->stride,
                               prm->geometric_stiffness * prm->h, w->inertia, 1,
                               n >= CPU_PARALLEL_MIN ? cpu_team(w) : 1);
        break;
    }
    case CTN_STAGE_PREPARE: phase_prepare(w, c, *prm); break;
    case CTN_STAGE_FORCES: phase_forces(w, c, *prm); break;
    case CTN_STAGE_WARM_START: { /* v += M^-1 J^T (w lambda_prev); an idle one (host/solve/pipeline.c) lambda *= 0 */
        int rows = t->stride * t->joint_count;
        float warm = w->warm_idle ? 0.0f : prm->warm_start;
        if (!w->warm_idle) TRY_CPU(ctn__topology_adjacency(w)); /* built by cpu_begin (step_reads_adjacency): no work */
        const float *from = ctn__snapshot_fork(w, CTN_SNAP_LAMBDA); /* the step's first write: from the impulses it started from */
        if (!from) from = t->lambda;
        float *lambda = t->lambda;
        CPU_FOR(rows)
        for (int k = 0; k < rows; ++k) lambda[k] = from[k] * warm;
        if (!w->warm_idle) phase_gather(w, c, t->lambda, 1.0f);
        break;
    }
    case CTN_STAGE_SOLVE:
        /* the active set's motor-and-limit rows and its clamped start (kernels/ctn_direct_active.h) */
        ctn__direct_set_substep(w, prm->h, w->warm_idle ? 0.0f : prm->warm_start);
        if (c->at_rest) move_prepare(w, c);
        if (c->at_rest && ctn__direct_project_step(w, c->ball_rows ? NULL : c->blocks, prm->h)) { /* a Newton step: solved, poses moved */
            c->factor_kept = 1, c->moved = 1;
            c->kept_now = 0;
            c->rest_counts[1]++;
            break;
        }
        if (c->at_rest) at_rest_leave(w, c);
        stage_solve(w, c);
        break;
    case CTN_STAGE_INTEGRATE: /* after an at-rest Newton step, done by its solve */
        if (c->moved) c->moved = 0;
        else TRY_CPU(cpu_integrate(w, c, prm));
        break;
    case CTN_STAGE_MEASURE: stage_measure(w, c, (e->covers & CTN_STAGE_BIT(CTN_STAGE_JOINT_ERRORS)) != 0, out); break;
    case CTN_STAGE_ASSEMBLE_ROWS:
    case CTN_STAGE_ASSEMBLE_GATHER:
        /* assembly writes its rows into the general blocks, which a compact world has not allocated: at the first
         * ASSEMBLE_ROWS, before anything moved, so that running out of memory leaves the world as it was */
        if (stage == CTN_STAGE_ASSEMBLE_ROWS) TRY_CPU(cpu_reserve_blocks(w, c));
        TRY_CPU(ctn__topology_adjacency(w)); /* the gather's (at ASSEMBLE_ROWS, the first: nothing moved yet) */
        stage_assemble(w, c, stage, out);
        break;
    default: stage_project(w, c, e, prm, out); break;
    }
    return CTN_OK;
}

/* Runs one entry of cpu_plan's tables. */
static ctn_status cpu_run(ctn_world *w, const ctn_stage_entry *e, const ctn_step_params *prm, ctn_stage_out *out) {
    cpu_solver *c = w->backend_data;
    ctn_status s = cpu_run_entry(w, c, e, prm, out);
    c->inertia_now = stage_inertia(e->stage, c->inertia_now, !integrate_keeps_inertia(w, prm));
    return s;
}

static void cpu_timer(ctn_world *w, ctn_stage_timer timer, ctn_step_stats *st) {
    cpu_solver *c = w->backend_data;
    double now = ctn__now_ms();
    double *ms[] = {&st->ms_prepare, &st->ms_solve, &st->ms_integrate};
    if (c->timer != CTN_TIMER_NONE) *ms[c->timer] += now - c->timer_t0;
    c->timer = timer;
    c->timer_t0 = now;
}

static ctn_status cpu_read_body(ctn_world *w, int i, ctn_pose *p, ctn_vel *v) {
    *p = w->pose[i];
    *v = w->vel[i];
    return CTN_OK;
}

static ctn_status cpu_restore(ctn_world *w) {
    ((cpu_solver *)w->backend_data)->rattle_valid = 0;
    ctn__snapshot_restore(w);
    return CTN_OK;
}

static ctn_status cpu_end(ctn_world *w, ctn_status s, ctn_step_stats *st) {
    cpu_solver *c = w->backend_data;
    (void)st;
    c->inertia_clean = s == CTN_OK && c->inertia_now;
    return s;
}

static ctn_status cpu_sync(ctn_world *w) {
    (void)w;
    return CTN_OK;
}

static void cpu_destroy(ctn_world *w) {
    cpu_solver *c = w->backend_data;
    if (!c) return;
    if (w->solver == CTN_SOLVER_DIRECT) ctn__direct_set_balls(w, NULL); /* not the chain's to read any more */
    ctn__free(c->blocks);
    ctn__free(c->points);
    ctn__free(c->balls);
    ctn__free(c->dlambda);
    ctn__free(c->cg_r);
    ctn__free(c->cg_z);
    ctn__free(c->cg_ap);
    ctn__free(c->vel_copy);
    ctn__free(c->pose_copy);
    ctn__free(c->rattle_vel);
    ctn__free(c->partial);
    ctn__free(c);
    w->backend_data = NULL;
}

void ctn__cpu_project_rest_mode(ctn_world *w, int mode) {
    if (w->backend == &ctn__cpu_backend) ((cpu_solver *)w->backend_data)->rest_mode = mode;
}

int ctn__cpu_pose_copy_capacity(const ctn_world *w) {
    return w->backend == &ctn__cpu_backend ? ((const cpu_solver *)w->backend_data)->pose_copy_cap : 0;
}

void ctn__cpu_project_unchecked_fault(ctn_world *w, int on) {
    if (w->backend == &ctn__cpu_backend) ((cpu_solver *)w->backend_data)->unchecked_fault = on;
}

void ctn__cpu_project_unchecked_counts(const ctn_world *w, int counts[2]) {
    for (int k = 0; k < 2; ++k) counts[k] = w->backend == &ctn__cpu_backend ? ((const cpu_solver *)w->backend_data)->unchecked_counts[k] : 0;
}

void ctn__cpu_project_rest_counts(const ctn_world *w, int counts[3]) {
    for (int k = 0; k < 3; ++k) counts[k] = w->backend == &ctn__cpu_backend ? ((const cpu_solver *)w->backend_data)->rest_counts[k] : 0;
}

static const ctn_stage_ops cpu_stages = {cpu_begin, cpu_run, cpu_timer, cpu_read_body, cpu_restore, cpu_end, 1, 1, cpu_plan, NULL};
const ctn_backend_ops ctn__cpu_backend = {"cpu", &cpu_stages, cpu_sync, NULL, cpu_destroy};

ctn_status ctn__cpu_backend_init(ctn_world *w) {
    cpu_solver *c = ctn__calloc(1, sizeof *c);
    if (!c) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory creating the CPU solver");
    c->timer = CTN_TIMER_NONE;
    w->backend = &ctn__cpu_backend;
    w->backend_data = c;
    snprintf(w->device_name, sizeof w->device_name, "host CPU");
    return CTN_OK;
}
