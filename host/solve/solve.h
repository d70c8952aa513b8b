/* What the layers above host/solve call: the CPU backend, the `auto` solver choice and the exact solver's
 * entry points. The step pipeline itself is pipeline.h. */
#ifndef CTN_HOST_SOLVE_H
#define CTN_HOST_SOLVE_H

#include "core/world.h"

/* The CPU backend (host/solve/solver_cpu.c): the stage table's loops over kernels/ctn_solver.h. */
extern const ctn_backend_ops ctn__cpu_backend;
ctn_status ctn__cpu_backend_init(ctn_world *w);
/* Tests (tests/test_project_rest.c): how the CPU's projection decides to run without its scratch arrays
 * (solver_cpu.c, project_at_rest): mode 0 by its rule, 1 never (the scratch arrays always), 2 wherever the chain
 * path moves the poses, the joint check skipped (so that its ways back to the arrays run). counts: projections
 * entered at rest, Newton steps solved at rest, projections that took the arrays back, since the world's start. */
void ctn__cpu_project_rest_mode(ctn_world *w, int mode);
void ctn__cpu_project_rest_counts(const ctn_world *w, int counts[3]);
/* Tests (tests/test_divergence.c): the poses the CPU backend's pose_copy holds (0: never reserved), which a step of
 * the exact solver that integrates in place does without (its projection copies into the pose spare). */
int ctn__cpu_pose_copy_capacity(const ctn_world *w);
/* Tests (tests/test_divergence.c): a fault in the exact solver's projection after an integration in place. While
 * `on`, the last step, which no decision checks (solver_cpu.c project_unchecked), leaves body 0's position x NaN
 * before its check, as a step that overflowed would, so that the undo of that step runs. counts: such last steps
 * checked, and undone, since the world's start. */
void ctn__cpu_project_unchecked_fault(ctn_world *w, int on);
void ctn__cpu_project_unchecked_counts(const ctn_world *w, int counts[2]);

/* Exact solver for the joint forest (host/solve/solver_direct.c): given the blocks of this substep and the
 * velocities after the warm start, solves (J M^-1 J^T + S) dlambda = target - J v - S lambda for the tree
 * joints exactly, then sweeps the remaining rows with Gauss-Seidel; updates topo.lambda and w->vel.
 * Returns the sum of squared residuals. */
double ctn__solve_direct(ctn_world *w, const ctn_block *blocks);
/* Options of ctn__solve_direct_ex. */
enum {
    CTN_DIRECT_RESIDUAL = 1, /* return the sum of squared residuals (else 0: nobody reads it) */
    CTN_DIRECT_FILL_KINV = 2, /* the blocks hold rows only (ctn_prepare_slot_rows): the solver builds kinv
                                 for the joints it hands to Gauss-Seidel (bounded rows, loop closers) */
    CTN_DIRECT_PROJECTION = 4 /* a solve of the position projection: left out of the active set's counts
                                 (ctn__direct_active_counts counts the velocity substeps) */
};
/* Whether the exact solve would take the bounded rows of blocks by its active set (the state of the last
 * solve; 0 before any): the position projection keeps limit rows only then (ctn_project_block). */
int ctn__direct_active_applies(const ctn_world *w, const ctn_block *blocks);
/* Whether some joint of the topology may have rows with finite bounds (ctn__joint_may_be_bounded), as the
 * exact solver's layout of the current topology records it; 1 (may) when it has none of this topology yet. */
int ctn__direct_may_bound(const ctn_world *w);
/* The same with CTN_DIRECT_* options; ctn__solve_direct is CTN_DIRECT_RESIDUAL. blocks is written only
 * with CTN_DIRECT_FILL_KINV. */
double ctn__solve_direct_ex(ctn_world *w, ctn_block *blocks, int options);
/* The substep length the next solves' blocks were built for (the active set's motor-and-limit rows,
 * kernels/ctn_direct_active.h, need the limit's gap per substep) and the warm start's factor (0: none; the
 * active set starts rows at warm times a bound clamped); the CPU solver sets them before each solve. */
void ctn__direct_set_substep(ctn_world *w, float h, float warm);
/* The RATTLE integrator's chord solves (host/solve/pipeline.c): ctn__direct_exact says whether the prepared
 * layout solves every joint in the exact forest or chain (no loop closers, no joints left to Gauss-Seidel),
 * and ctn__direct_resolve solves the current right-hand side with the factor the last ctn__solve_direct_ex
 * left (same blocks, same inertias; no factorisation), applying the impulses and velocity changes. */
int ctn__direct_exact(const ctn_world *w);
/* ctn__direct_exact on the forest path (a tree's layout, not a chain's): where the projection keeps a chord step
 * that halved the error and makes its last step a chord step below Newton's tolerance (host/solve/pipeline.c). */
int ctn__direct_forest_exact(const ctn_world *w);
/* Whether every set of dynamic bodies joined by joints has at most one joint to a body that is not dynamic, where
 * the prepared layout is an exact chain layout of the current topology (1 or 0; -1: not known from the layout). */
int ctn__direct_anchored(const ctn_world *w);
/* Whether the residual the last ctn__solve_direct_ex returned read every impulse of the world, each as S lambda_k
 * of a float row residual r_k = (b_k - J_k v) - S lambda_k whose square it summed in double: then an impulse that is
 * not finite made that sum not finite (S inf is inf or NaN (S = 0), S NaN is NaN, a square of either is not finite,
 * and neither is a sum of squares with one), so a finite residual says every impulse is finite. */
int ctn__direct_residual_impulses(const ctn_world *w);
/* Whether that residual also read every body's velocity, lane by lane and through the lever arms, such that a finite
 * residual says every velocity is finite (ctn__chain_residual_velocities: ball records whose joints' ends are all the
 * bodies of the world). */
int ctn__direct_residual_velocities(const ctn_world *w);
void ctn__direct_factor(ctn_world *w, const ctn_block *blocks); /* the factor alone, for later ctn__direct_resolve */
void ctn__direct_resolve(ctn_world *w, const ctn_block *blocks);
/* ctn__direct_resolve from rest (the projection's chord steps): velocities and impulses zero, the right-hand
 * side the blocks' targets alone, the impulses not accumulated (the chain path; the forest's as resolve). */
void ctn__direct_resolve_rest(ctn_world *w, const ctn_block *blocks);
/* ctn__direct_resolve_rest and the integration x += h v of every body in one walk, the velocities left at rest
 * (the chain path, when its positions move every body the integration would): 1 when done, 0 when the caller
 * must run ctn__direct_resolve_rest and the integration itself (the same bits either way). */
int ctn__direct_chord_step(ctn_world *w, const ctn_block *blocks, float h);
/* Whether ctn__direct_chord_step does its step at h (1) for the current layout: the CPU's chord table says
 * so (its CHORD_SOLVE covers INTEGRATE and the next step's PROJECT_REST). */
int ctn__direct_chord_moves(const ctn_world *w, float h);
/* A Newton step of the projection (the rows of blocks factored and solved, the poses moved by h v) on the chain
 * path without the projection's scratch velocities and impulses, which it reads as at rest (+0) and never writes
 * (ctn__chain_project_step): 1 when done; 0, nothing moved, where the layout or its rows need them. */
int ctn__direct_project_step(ctn_world *w, const ctn_block *blocks, float h);
/* Whether the exact solver, with the layout prepared for the current topology (ctn__direct_prepare), takes
 * every joint on its chain path and every joint is a rigid ball joint (type ball, compliance <= 0, no assembly
 * target), so that its rows may be kept as 40-byte ctn_ball_rows in place of 288-byte ctn_blocks: its only
 * readers of the rows are then the chain's walks, which take either (host/solve/direct_chain.c). */
int ctn__direct_ball_rows(const ctn_world *w);
/* balls: the rows the next solves read in place of their blocks argument (which may then be NULL), as
 * ctn_ball_rows indexed by joint slot; NULL: the blocks. Only where ctn__direct_ball_rows holds. Not owned. */
void ctn__direct_set_balls(ctn_world *w, const ctn_ball_row *balls);
/* The exact solver's storage for the current topology (its ordering and factor, the re-solve references),
 * made before a step changes anything: CTN_ERR_OUT_OF_MEMORY, with the message on the world, when it cannot
 * be allocated (the step then fails and the world is as it was; catena.h, "Memory"). */
ctn_status ctn__direct_prepare(ctn_world *w);
/* CTN_SOLVER_AUTO's choice for the current topology (host/solve/solver_auto.c) into *out: CTN_SOLVER_DIRECT
 * or _GS; CTN_ERR_OUT_OF_MEMORY (*out unchanged) when its scratch cannot grow. */
ctn_status ctn__auto_solver(ctn_world *w, ctn_solver *out);

/* CTN_SUBSTEPS_AUTO's choice for `solver` on the current topology (host/solve/solver_auto.c) into *out: 1 or
 * 4; CTN_ERR_OUT_OF_MEMORY (*out unchanged) when its scratch cannot be allocated. */
ctn_status ctn__auto_substeps(ctn_world *w, ctn_solver solver, int *out);

/* Whether joint d can have finite impulse bounds (contacts, limits, motors, ropes, swing cones;
 * host/solve/solver_rules.c). */
int ctn__joint_may_be_bounded(const ctn_joint_def *d);
static inline int ctn__joint_may_be_bounded_at(const ctn_topology *t, int s) {
    ctn_joint_def d = ctn_joint_at(ctn__topo_joints(t), s);
    return ctn__joint_may_be_bounded(&d);
}
/* The one CG -> Gauss-Seidel rule of both backends (host/solve/solver_rules.c): 1 when desc.solver is CG and
 * some joint can have bounded rows, so the whole step is solved by Gauss-Seidel; the first such step is
 * reported through the log (once per *warned). */
int ctn__cg_runs_gs(ctn_world *w, int *warned);
/* A yes/no about every joint of the layout (all ball joints, all rigid bilateral rows, ...), kept until the
 * topology changes: `holds` is the answer of the scan at topology_version `version`, valid once scanned. */
typedef struct ctn_compact_cache {
    int valid, holds;
    unsigned version; /* topology_version scanned */
} ctn_compact_cache;
/* Whether a step keeps every joint's rows as compact point blocks (ctn_point_block) instead of ctn_blocks:
 * Gauss-Seidel on joints that are all ball joints. The joint types are scanned once per layout (cache). */
int ctn__rows_compact(const ctn_world *w, ctn_compact_cache *cache);
/* The chord rows of the projection on the CPU (host/solve/chord_rows.c): ctn_chord_slot_measure of every joint
 * slot, its targets -C/h into blocks; worst: the largest |C| of a row (infinite if one is NaN), gap and angle:
 * the largest joint gap and angle (ctn_joint_error's). all_ball: every joint is a ball joint
 * (ctn__chord_all_ball, scanned once per layout in cache), the lean loop with the same bits. threads > 1: an
 * OpenMP team of that many (the result does not depend on it). */
typedef struct ctn_chord_rows_result {
    float worst;
    double gap, angle;
} ctn_chord_rows_result;
int ctn__chord_all_ball(const ctn_world *w, ctn_compact_cache *cache);
void ctn__chord_rows(ctn_joints defs, int m, const ctn_pose *pose, float h, ctn_block *blocks, int all_ball, int threads,
                     ctn_chord_rows_result *r);
/* ctn_joint_error of a hinge without a limit, a motor or an implicit spring (ctn__chord_hinge_plain), from the chord
 * rows' lean measure (host/solve/chord_rows.c), the same bits. */
static inline int ctn__chord_hinge_plain(const ctn_joint_def *d) {
    return d->type == CTN_JT_HINGE && (d->flags & (CTN_JF_LIMIT | CTN_JF_MOTOR | CTN_JF_IMPLICIT_SPRING)) == 0;
}
static inline int ctn__chord_hinge_plain_at(ctn_joints defs, int s) {
    return CTN_JC(defs, s).type == CTN_JT_HINGE && (ctn_joint_flags(defs, s) & (CTN_JF_LIMIT | CTN_JF_MOTOR | CTN_JF_IMPLICIT_SPRING)) == 0;
}
void ctn__hinge_error(ctn_joints defs, int s, const ctn_pose *pose, float *gap, float *angle);
/* The exact solver's ball records of every joint (host/solve/ball_rows.c; ctn_prepare_slot_ball_row's bits);
 * project: also the projection's largest error (ctn_project_ball_row), returned (else 0). threads > 1: an OpenMP
 * team of that many (the result does not depend on it). */
float ctn__ball_rows(ctn_joints defs, int m, const ctn_pose *pose, const ctn_vel *vel, ctn_step_params prm, ctn_ball_row *rows,
                     int project, int threads);
/* The exact solver's rows of every joint into its 288-byte block (host/solve/hinge_rows.c): a hinge without a limit
 * or a motor (ctn__hinge_lean) by a lean build, every other joint by ctn_prepare_slot_rows, the same bits.
 * project: also ctn_project_block's bounds and largest error of every block, returned (else 0), each joint's
 * into err[s] where limits is set (the rule with limits: ctn_project_block). threads > 1: an OpenMP team of that
 * many (the result does not depend on it). */
int ctn__hinge_lean(const ctn_joint_def *d);
float ctn__exact_rows(ctn_joints defs, int m, const ctn_pose *pose, const ctn_vel *vel, ctn_step_params prm, ctn_block *blocks,
                      int project, int limits, float *err, int threads);
/* The same for a world of ball joints alone whose rows are the exact solver's ball records (the lean loop). */
void ctn__chord_rows_balls(ctn_joints defs, int m, const ctn_pose *pose, float h, ctn_ball_row *rows, int threads,
                           ctn_chord_rows_result *r);

/* The per-body passes around the solve on the CPU (host/solve/body_passes.c), n bodies: lean != 0 runs the lean
 * loops with the same bits as the shared functions (lean = 0: those functions as the OpenCL backend runs them);
 * threads > 1: an OpenMP team of that many (the results do not depend on it).
 * ctn__geometric_inertia: ctn_geometric_inertia_body of every body (m: the joints in defs and lambda, ls floats a joint in
 * lambda); adj_offsets and adj may be NULL (the adjacency not built) where CTN_GEOMETRIC_INERTIA_BY_JOINT and lean,
 * provided every body of a joint that is dynamic now was dynamic when the layout was built. ctn__forces: ctn_forces_body of every body
 * from in to out (lean only where the world has no springs, whose sadj_offsets may then be NULL: the topology writes
 * them only for springs; forces: the user forces, NULL where the world has none). ctn__integrate_poses: ctn_integrate_pose_from
 * from `from` into `pose` (ctn_integrate_pose where they are the same array); ctn__integrate_bodies: the same
 * and the world inverse inertia of the new poses (ctn_integrate_body_from, ctn_integrate_body). */
#if defined(__SSE2__)
#define CTN_GEOMETRIC_INERTIA_BY_JOINT 1 /* the lean pass sums alpha by joint (body_passes.c) */
#else
#define CTN_GEOMETRIC_INERTIA_BY_JOINT 0
#endif
void ctn__geometric_inertia(int n, int m, const ctn_pose *pose, const ctn_props *props, const int *adj_offsets, const int *adj,
                            ctn_joints defs, const float *lambda, int ls, float gs_h, ctn_inertia *inertia, int lean, int threads);
void ctn__forces(int n, const ctn_props *props, const ctn_body_force *forces, const ctn_inertia *inertia, const int *sadj_offsets,
                 const int *sadj, const ctn_joint_def *springs, const ctn_pose *pose, ctn_vel *in, ctn_vel *out, ctn_step_params prm,
                 int lean, int threads);
void ctn__integrate_poses(int n, const ctn_pose *from, ctn_pose *pose, const ctn_vel *vel, const ctn_props *props, float h, int lean,
                          int threads);
/* The divergence scan of the step's measurement over n bodies: *bad_body the first body that
 * ctn__body_diverged (host/core/world.h) finds diverged, INT_MAX when none, *top the largest speed of the
 * others (0 when none); lean as above (the same answers). */
void ctn__body_scan(const ctn_world *w, int n, const ctn_pose *pose, const ctn_vel *vel, int lean, int threads, double *top, int *bad_body);
/* The same scan with the pose bounds of a step that integrates in place (host/solve/solver_cpu.c
 * in_place_test): 1 when no body diverged and every position and p_lo component is below 2^40 and every
 * orientation component below 2 (*top then ctn__body_scan's), 0 otherwise (which of the two: ask them apart).
 * vel_finite: every velocity is known to be finite (a finite residual that read them all,
 * ctn__direct_residual_velocities), and their finite test is left out: the same answers. */
int ctn__body_scan_bounded(const ctn_world *w, int n, const ctn_pose *pose, const ctn_vel *vel, int vel_finite, int threads, double *top);
/* Whether every pose is within those bounds. */
int ctn__poses_bounded(const ctn_pose *pose, int n, int threads);
void ctn__integrate_bodies(int n, const ctn_pose *from, ctn_pose *pose, const ctn_vel *vel, const ctn_props *props, ctn_inertia *inertia,
                           float h, int lean, int threads);

/* Frees w->direct_data (called by ctn_world_destroy). */
void ctn__direct_free(ctn_world *w);

#endif /* CTN_HOST_SOLVE_H */
