/* The step pipeline: one ordered table of stages that both backends execute.
 *
 * After Box2D v3's solver stages (Catto, b2SolverStage in src/solver.c: prepare joints, warm start,
 * solve, integrate, relax, restitution, store impulses, each a parallel loop over blocks), a substep here is
 * the backend's stage table (ctn_stage_ops.plan: the pipeline's order, with the stages a backend runs in one
 * pass fused into one entry), and the driver in host/solve/pipeline.c runs exactly its entries `substeps` times, then
 * the position projection of the exact solver, then the measurement and the divergence check. The driver
 * is the only place that knows the order; a backend only knows how to run one stage over its arrays:
 *   - the CPU backend (host/solve/solver_cpu.c) as a (parallel) loop over the per-item functions of
 *     kernels/ctn_solver.h,
 *   - the OpenCL backend (host/opencl/opencl_stages.c) as launches of the kernels of kernels/catena.cl,
 *     which wrap the same functions.
 * Reductions (residual, largest error, largest speed) stay per backend: a fixed-order host loop, a
 * fixed-shape device tree reduction. */
#ifndef CTN_HOST_PIPELINE_H
#define CTN_HOST_PIPELINE_H

#include "core/world.h"
#include "solve/solve.h"

#include <stdint.h>

typedef enum ctn_stage {
    /* the stages of one substep (Lacoursière 2007 SPOOK velocity step, with geometric stiffness) */
    CTN_STAGE_GEOMETRIC_INERTIA, /* per body: inverse inertia + stiffness of the last substep's impulses */
    CTN_STAGE_PREPARE,           /* per joint slot: Jacobian rows, effective mass, bias (ctn_prepare_slot) */
    CTN_STAGE_FORCES,            /* per body: v* = v + h M^-1 (f_ext + springs) (ctn_forces_body) */
    CTN_STAGE_WARM_START,        /* lambda *= warm_start, then per body v += M^-1 J^T lambda (ctn_apply_gather) */
    CTN_STAGE_SOLVE,             /* the step's solver: coloured GS, Jacobi, CG or the exact forest solver */
    CTN_STAGE_VELOCITIES,        /* per body: the exact solve's last velocity update v += M^-1 J^T dl, a part of SOLVE
                                  * (ctn__stage_whole) unless a table moves it to the entry after (OpenCL's chain path:
                                  * the integration's launch) */
    CTN_STAGE_RESIDUAL,          /* per slot: the squared residual of that solve, which MEASURE reports for the last
                                  * substep; a part of SOLVE unless a table moves it (OpenCL's exact solver: the
                                  * projection's first rows launch takes the last substep's) */
    CTN_STAGE_INTEGRATE,         /* per body: x += h v, exp-map rotation, inverse inertia (ctn_integrate_body) */
    /* the position projection of the exact solver (ctn__pipeline_step, Cline and Pai 2003) */
    CTN_STAGE_PROJECT_ENTER,     /* scratch velocities and impulses in; the real impulses stay the metric's */
    CTN_STAGE_PROJECT_REST,      /* scratch velocities and impulses to zero (ctn_project_begin_body) */
    CTN_STAGE_REST_VELOCITIES,   /* per body: the scratch velocities to zero, a part of PROJECT_REST (ctn__stage_whole) unless a
                                  * table moves it to the entry before (OpenCL: the last substep's integration or RATTLE's
                                  * momentum before the first step, a Newton step's integration before the next) */
    CTN_STAGE_PROJECT_ROWS,      /* per slot: rigid bilateral rows kept (ctn_project_slot); largest error */
    CTN_STAGE_PROJECT_DECIDE,    /* the Newton decision on that error (ctn_project_decide): go on, stop, or undo the last
                                  * step and stop; an entry of its own is taken by the driver on the host (with its undo,
                                  * POSES_UNDO), one a device launch covers is taken there */
    CTN_STAGE_POSES_KEEP,        /* copy of the poses before a Newton step */
    CTN_STAGE_POSES_UNDO,        /* the copy put back */
    CTN_STAGE_PROJECT_LEAVE,     /* real velocities and impulses back; inverse inertia of the final poses */
    CTN_STAGE_CHORD_ROWS,        /* per slot: C(x) into the rows of the kept factor, target -C/h (ctn_chord_slot); out.worst */
    CTN_STAGE_CHORD_SOLVE,       /* the exact solve with the kept factor, no factorisation (ctn__direct_resolve) */
    /* the RATTLE integrator of the exact solver (ctn__pipeline_step, run_rattle; kernels/ctn_rattle.h) */
    CTN_STAGE_RATTLE_ENTER,      /* out.deferred = 1: the rows and factor of the current poses are kept (last velocity stage) */
    CTN_STAGE_RATTLE_START,      /* start of a substep: x_n and v_n kept, impulses and the kept rows' targets to zero */
    CTN_STAGE_RATTLE_UNDO,       /* x_n and v_n back (a stalled position stage) */
    CTN_STAGE_RATTLE_FACTOR,     /* the exact solver's factor of the rows PREPARE built, no solve (ctn__direct_factor) */
    CTN_STAGE_RATTLE_RESOLVE,    /* the exact solve with the kept factor, no factorisation (ctn__direct_resolve) */
    CTN_STAGE_RATTLE_BACK,       /* the velocities before the last RESOLVE back (a chord iteration that made it worse) */
    CTN_STAGE_RATTLE_DRIFT,      /* per body: x = x_n (+) h v, inertia kept (ctn_rattle_drift_body) */
    CTN_STAGE_RATTLE_ROWS,       /* per slot: C(x) into the kept rows' targets (ctn_rattle_slot); out.worst */
    CTN_STAGE_RATTLE_DECIDE,     /* the chord or Newton iteration's test of that error (rattle_decide in host/solve/pipeline.c):
                                  * stop converged, stop stalled (after CTN_TABLE_RATTLE_BACK when the last iteration made it
                                  * worse), or go on; an entry the driver takes on the host, no backend runs it */
    CTN_STAGE_RATTLE_MOMENTUM,   /* per body: w for the new orientation, inverse inertia (ctn_rattle_momentum_body) */
    CTN_STAGE_RATTLE_LEAVE,      /* the rows and factor just built are those of the poses: kept for the next step */
    CTN_STAGE_RATTLE_NEWTON,     /* rows and factor of the drifted poses, C(x) into their targets (a Newton step's system) */
    CTN_STAGE_INERTIA,           /* per body: world inverse inertia of the pose (ctn_inertia_body) */
    /* after the last substep */
    CTN_STAGE_JOINT_ERRORS,      /* per joint: the largest gap and angle of the poses (ctn_joint_error), a part of MEASURE
                                  * (ctn__stage_whole) and of CHORD_ROWS on the CPU; a MEASURE entry that does not cover it
                                  * reports the last CHORD_ROWS' (CTN_TABLE_MEASURE with sub = 1) */
    CTN_STAGE_MEASURE,           /* residual, joint errors, largest speed, first non-finite or too fast body */
    /* assembly, phase 1 (host/solve/assemble.c; Nelson 1998 Jacobian-transpose gather, kernels/ctn_assemble.h) */
    CTN_STAGE_ASSEMBLE_ROWS,     /* per slot: rows, correction impulse mu = -K^-1 g; out max_gap / max_angle */
    CTN_STAGE_ASSEMBLE_GATHER,   /* per body: x += M^-1 sum J^T mu over its own joints */
    CTN_STAGE_COUNT
} ctn_stage;

/* What the stage timers add to: ctn_step_stats ms_prepare, ms_solve, ms_integrate. */
typedef enum ctn_stage_timer { CTN_TIMER_NONE = -1, CTN_TIMER_PREPARE, CTN_TIMER_SOLVE, CTN_TIMER_INTEGRATE } ctn_stage_timer;

/* Which of the driver's parameter sets an entry runs with. A table of the velocity step or the projection runs
 * all its entries with one set (CTN_PRM_STEP: the table's); RATTLE's substep uses four (run_rattle in
 * host/solve/pipeline.c), and its tables name the one of each entry. */
typedef enum ctn_stage_prm {
    CTN_PRM_STEP, /* the table's parameters: the step's, a RATTLE (sub)substep's length h, the projection's */
    CTN_PRM_HALF, /* those with h / 2: RATTLE's half kicks (FORCES) */
    CTN_PRM_VEL,  /* RATTLE's velocity stage: Baumgarte with beta 0 (target J v = 0), no warm start, no geometric stiffness */
    CTN_PRM_ROWS, /* CTN_PRM_VEL with the substep's h: the rows of a RATTLE Newton step */
    CTN_PRM_COUNT
} ctn_stage_prm;

/* One entry of a stage table: what the driver asks the backend to run, in order. A fused entry runs several
 * stages in one pass (one launch on OpenCL): it is named by the stage the backend dispatches on and
 * `covers` names every stage it runs, that one included; a stage it covers is not listed again. */
#define CTN_STAGE_BIT(s) ((uint64_t)1 << (s))
typedef struct ctn_stage_entry {
    ctn_stage stage;       /* what the backend's run dispatches on */
    ctn_stage_timer timer; /* the timer the entry counts toward */
    uint64_t covers;       /* CTN_STAGE_BIT of each stage it runs */
    ctn_stage_prm prm;     /* the parameter set it runs with (0: the table's) */
} ctn_stage_entry;
#define CTN_SUBSTEP_ENTRIES_MAX 8

/* The tables a backend declares: a substep, the kinds of step of the position projection (project_steps in
 * host/solve/pipeline.c), the step's last table, and RATTLE's (run_rattle). */
typedef enum ctn_stage_table {
    CTN_TABLE_SUBSTEP,       /* the last of a velocity step's n substeps that the exact solver projects ends with
                              * PROJECT_ENTER (its out: kept, deferred) */
    CTN_TABLE_PROJECT_STEP,  /* a Newton step: rows, decision, solve, move (sub: the step, n: the steps enqueued, or
                              * CTN_PROJECT_MAX when the host decides) */
    CTN_TABLE_PROJECT_CHECK, /* the rows and decision that end the steps a device enqueued (out.deferred) */
    CTN_TABLE_PROJECT_CHORD, /* a chord step: the rows into the kept factor, decision, a solve with that factor, move
                              * (only a backend with `chord`; the last of n, which is not checked, is a Newton step) */
    CTN_TABLE_PROJECT_CHORD_NEXT, /* the same right after a chord step (whose CHORD_SOLVE may have covered this
                                   * step's PROJECT_REST) */
    CTN_TABLE_MEASURE,       /* the step's last table after the velocity step's projection: PROJECT_LEAVE, MEASURE (sub = 1:
                              * the projection stopped on the rows of a chord step, whose CHORD_ROWS measured the joint
                              * errors of these poses: MEASURE does not cover JOINT_ERRORS) */
    CTN_TABLE_PROJECT_LEAVE, /* PROJECT_LEAVE alone: a projection that failed, or RATTLE's (the real arrays back) */
    /* RATTLE (run_rattle): a step, its substeps, and in them the position stage's iterations */
    CTN_TABLE_RATTLE_ENTER,    /* RATTLE_ENTER: whether the rows and factor of the poses are kept; the largest turn rate */
    CTN_TABLE_RATTLE_FIRST,    /* when they are not: INERTIA, PREPARE (vel), RATTLE_FACTOR (vel), RATTLE_LEAVE */
    CTN_TABLE_RATTLE_START,    /* a substep's start and linearised stage: RATTLE_START, FORCES (half), RATTLE_RESOLVE,
                                * RATTLE_DRIFT */
    CTN_TABLE_RATTLE_CHORD,    /* a chord iteration (sub: its number): RATTLE_ROWS, RATTLE_DECIDE, RATTLE_RESOLVE, RATTLE_DRIFT */
    CTN_TABLE_RATTLE_NEWTON,   /* a Newton iteration (sub: its number): RATTLE_ROWS, RATTLE_DECIDE, RATTLE_NEWTON (rows),
                                * RATTLE_RESOLVE, RATTLE_DRIFT */
    CTN_TABLE_RATTLE_BACK,     /* an iteration that made it worse taken back: RATTLE_BACK, RATTLE_DRIFT */
    CTN_TABLE_RATTLE_UNDO,     /* a stalled substep undone before its split: RATTLE_UNDO, and (sub = 1: after Newton
                                * iterations, which left their own factor) PREPARE (vel), RATTLE_FACTOR (vel) */
    CTN_TABLE_RATTLE_MOMENTUM, /* RATTLE_MOMENTUM, and (sub = 1: the position stage did not converge and the projection
                                * finishes it) GEOMETRIC_INERTIA (with geometric stiffness), PROJECT_ENTER */
    CTN_TABLE_RATTLE_END       /* the velocity stage: FORCES (half), PREPARE (vel), SOLVE (vel), RATTLE_LEAVE */
} ctn_stage_table;
#define CTN_TABLE_COUNT (CTN_TABLE_RATTLE_END + 1)

/* Results of the stages that reduce (PROJECT_ROWS, MEASURE). */
typedef struct ctn_stage_out {
    float worst;        /* PROJECT_ROWS: largest |C| of a projected row */
    int kept;           /* PROJECT_ENTER: the exact solver's factor of the rows in the blocks is kept (the step's
                         * last solve), so CHORD_ROWS and CHORD_SOLVE can run */
    int deferred;       /* PROJECT_ENTER: the backend decides on the device (worst never read; see project_steps) and
                         * enqueues this many full Newton steps (then one check unless CTN_PROJECT_MAX); 0: the host decides */
    double r2;          /* MEASURE: sum of squared residuals of the last solver sweep */
    double max_gap, max_angle, max_speed; /* MEASURE; ASSEMBLE_ROWS: largest joint errors (targets excluded) */
    int bad_body;       /* MEASURE: first body that is non-finite or faster than desc.max_speed, -1 if none */
    int bad_joint;      /* MEASURE: a joint (slot) with a non-finite impulse, -1 if none */
} ctn_stage_out;

/* The backend half of the pipeline. */
typedef struct ctn_stage_ops {
    /* Before the first stage: sizes the arrays, uploads what the host changed, takes the snapshot of the
     * state the step starts from. */
    ctn_status (*begin)(ctn_world *w);
    /* Runs one entry (one stage, or the stages a fused entry covers) over all its items. */
    ctn_status (*run)(ctn_world *w, const ctn_stage_entry *e, const ctn_step_params *prm, ctn_stage_out *out);
    /* The stages that follow count toward `timer` (CTN_TIMER_NONE: not timed); adds finished times to st. */
    void (*timer)(ctn_world *w, ctn_stage_timer timer, ctn_step_stats *st);
    /* Pose and velocity of body i after the step (for the divergence message). */
    ctn_status (*read_body)(ctn_world *w, int i, ctn_pose *p, ctn_vel *v);
    /* Puts the snapshot taken by begin back (a diverged step is undone). */
    ctn_status (*restore)(ctn_world *w);
    /* After the last stage or the first failure (status s): the backend's clean-up; returns the status
     * of the step. */
    ctn_status (*end)(ctn_world *w, ctn_status s, ctn_step_stats *st);
    /* 1: the backend runs the CTN_STAGE_RATTLE_* stages (CPU, OpenCL); 0: its exact solver steps velocities only and
     * ctn_step_stats.integrator_reason says so */
    int rattle;
    /* 1: the backend runs CTN_STAGE_CHORD_ROWS and CTN_STAGE_CHORD_SOLVE (the projection's chord steps) */
    int chord;
    /* The stage table `table` (for CTN_TABLE_SUBSTEP: of substep `sub` of `n`) with parameters prm: fills e
     * (at most CTN_SUBSTEP_ENTRIES_MAX) and returns the count; the driver runs exactly these entries. NULL:
     * ctn__substep_plan (one entry per stage, no fusion). */
    int (*plan)(const ctn_world *w, const ctn_step_params *prm, ctn_stage_table table, int sub, int n, ctn_stage_entry *e);
    /* Whether every joint is in the exact solve (RATTLE's condition; NULL: the CPU's ctn__direct_exact). */
    int (*all_exact)(const ctn_world *w);
} ctn_stage_ops;

/* The unfused tables (the CPU backend's), one stage per entry; returns the count. A substep: GEOMETRIC_INERTIA
 * (with geometric stiffness and joints), PREPARE, FORCES, WARM_START, SOLVE, INTEGRATE. A projection step,
 * decided on the host: PROJECT_REST, PREPARE, PROJECT_ROWS, PROJECT_DECIDE, GEOMETRIC_INERTIA (with geometric
 * stiffness: the metric only for a step that runs, since the exact solver's row build reads no inertia),
 * POSES_KEEP, SOLVE, INTEGRATE; a check: the first four. A chord step: PROJECT_REST, CHORD_ROWS,
 * PROJECT_DECIDE, POSES_KEEP, CHORD_SOLVE, INTEGRATE (the last of n: PREPARE, GEOMETRIC_INERTIA, SOLVE in
 * place of CHORD_SOLVE). The step at sub = CTN_PROJECT_MAX - 1 has no POSES_KEEP: no decision follows it, so
 * no undo reads the copy. The last table of a projected velocity step: PROJECT_LEAVE, MEASURE. */
int ctn__substep_plan(const ctn_world *w, const ctn_step_params *prm, ctn_stage_table table, int sub, int n, ctn_stage_entry *e);
/* Whether the substeps run the geometric-stiffness inertia: desc.geometric_stiffness > 0 and joints
 * (without any, alpha = 0 and the inertia is integrate's). */
int ctn__substep_geometric(const ctn_world *w, const ctn_step_params *prm);
/* Whether the velocity step's warm start is idle (w->warm_idle: the exact solver's rigid, anchored layout, whose
 * solve needs no gather), asked with the layout prepared (the backend's begin): the same answer as each substep's. */
int ctn__warm_start_idle(ctn_world *w, const ctn_stage_ops *ops);
/* Whether substep `sub` of n is followed by the projection (the exact solver with joints, the last): its table ends
 * with PROJECT_ENTER. */
int ctn__substep_projects(const ctn_world *w, int sub, int n);
/* Whether RATTLE may run this step: rattle_refusal's tests that need no pass over the joints hold (the integrator,
 * the solver, the joint count); 0: the velocity step runs. */
int ctn__rattle_may_run(const ctn_world *w);
/* The table's name without the CTN_TABLE_ prefix ("RATTLE_START"), "?" out of range. */
const char *ctn__table_name(ctn_stage_table table);
/* The stage table a backend runs: its plan, or ctn__substep_plan. */
int ctn__stage_plan(const ctn_world *w, const ctn_stage_ops *ops, const ctn_step_params *prm, ctn_stage_table table, int sub, int n,
                    ctn_stage_entry *e);
/* What a stage run whole covers: itself, and for SOLVE its velocity update and residual (CTN_STAGE_VELOCITIES,
 * CTN_STAGE_RESIDUAL), for PROJECT_REST its velocities (CTN_STAGE_REST_VELOCITIES), for MEASURE and CHORD_ROWS the
 * joint errors (CTN_STAGE_JOINT_ERRORS). */
uint64_t ctn__stage_whole(ctn_stage stage);
/* Runs one stage alone and whole: an entry that covers ctn__stage_whole(stage). */
ctn_status ctn__stage_run(ctn_world *w, const ctn_stage_ops *ops, ctn_stage stage, const ctn_step_params *prm, ctn_stage_out *out);
/* The stage's name without the CTN_STAGE_ prefix ("PREPARE"), "?" out of range. */
const char *ctn__stage_name(ctn_stage stage);

/* One step (all substeps, the projection, the measurement, the divergence check) through the world's
 * backend. On CTN_ERR_DIVERGED the backend's state is the one before the step. */
ctn_status ctn__pipeline_step(ctn_world *w, ctn_step_stats *st);

#endif /* CTN_HOST_PIPELINE_H */
