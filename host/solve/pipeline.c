/* The step pipeline (host/solve/pipeline.h): the order of the stages of a step, written once for both
 * backends. */
#include "solve/pipeline.h"
#include "core/attach.h"
#include "ctn_solver.h" /* CTN_PROJECT_*, ctn_project_decide */
#include "solve/solve.h"

#include <math.h>
#include <stdio.h>

/* One substep: x, v -> x + h v+, v+ with the joints' impulses (Lacoursière 2007; Tonge et al. 2012 for the
 * gather). Warm start and solve read the rows PREPARE built from the poses at the start of the substep. A
 * backend may fuse stages of this order into one entry (its plan), never reorder them. */
int ctn__substep_geometric(const ctn_world *w, const ctn_step_params *prm) {
    return prm->geometric_stiffness > 0.0f && w->topo.joint_count > 0;
}

uint64_t ctn__stage_whole(ctn_stage stage) {
    uint64_t part = stage == CTN_STAGE_SOLVE ? CTN_STAGE_BIT(CTN_STAGE_VELOCITIES) | CTN_STAGE_BIT(CTN_STAGE_RESIDUAL)
                    : stage == CTN_STAGE_PROJECT_REST                     ? CTN_STAGE_BIT(CTN_STAGE_REST_VELOCITIES)
                    : stage == CTN_STAGE_MEASURE || stage == CTN_STAGE_CHORD_ROWS ? CTN_STAGE_BIT(CTN_STAGE_JOINT_ERRORS)
                                                                          : 0;
    return CTN_STAGE_BIT(stage) | part;
}

int ctn__substep_projects(const ctn_world *w, int sub, int n) {
    return sub + 1 >= n && w->solver == CTN_SOLVER_DIRECT && w->topo.joint_count > 0 && w->body_count > 0;
}

#define ONE(stage, timer) ((ctn_stage_entry){(stage), (timer), ctn__stage_whole(stage), CTN_PRM_STEP})
#define WITH(stage, timer, prm) ((ctn_stage_entry){(stage), (timer), ctn__stage_whole(stage), (prm)})

/* RATTLE's tables (run_rattle): the stages in the order of kernels/ctn_rattle.h, each with its parameter set. */
static int rattle_plan(const ctn_step_params *prm, ctn_stage_table table, int sub, ctn_stage_entry *e) {
    int k = 0;
    switch (table) {
    case CTN_TABLE_RATTLE_ENTER: e[k++] = ONE(CTN_STAGE_RATTLE_ENTER, CTN_TIMER_NONE); break;
    case CTN_TABLE_RATTLE_FIRST: /* the same bits as a velocity stage would have left */
        e[k++] = ONE(CTN_STAGE_INERTIA, CTN_TIMER_PREPARE);
        e[k++] = WITH(CTN_STAGE_PREPARE, CTN_TIMER_PREPARE, CTN_PRM_VEL);
        e[k++] = WITH(CTN_STAGE_RATTLE_FACTOR, CTN_TIMER_SOLVE, CTN_PRM_VEL);
        e[k++] = ONE(CTN_STAGE_RATTLE_LEAVE, CTN_TIMER_SOLVE);
        break;
    case CTN_TABLE_RATTLE_START:
        e[k++] = ONE(CTN_STAGE_RATTLE_START, CTN_TIMER_INTEGRATE);
        e[k++] = WITH(CTN_STAGE_FORCES, CTN_TIMER_INTEGRATE, CTN_PRM_HALF); /* v + h/2 M^-1 f(x_n) */
        e[k++] = ONE(CTN_STAGE_RATTLE_RESOLVE, CTN_TIMER_SOLVE); /* START set the kept rows' targets to 0: J_n v' = 0 */
        e[k++] = ONE(CTN_STAGE_RATTLE_DRIFT, CTN_TIMER_SOLVE);
        break;
    case CTN_TABLE_RATTLE_CHORD: /* lambda += -A_n^-1 C(x^k) / h (RESOLVE keeps v for RATTLE_BACK) */
    case CTN_TABLE_RATTLE_NEWTON:
        e[k++] = ONE(CTN_STAGE_RATTLE_ROWS, CTN_TIMER_SOLVE);
        e[k++] = ONE(CTN_STAGE_RATTLE_DECIDE, CTN_TIMER_SOLVE);
        if (table == CTN_TABLE_RATTLE_NEWTON) e[k++] = WITH(CTN_STAGE_RATTLE_NEWTON, CTN_TIMER_PREPARE, CTN_PRM_ROWS);
        e[k++] = ONE(CTN_STAGE_RATTLE_RESOLVE, CTN_TIMER_SOLVE);
        e[k++] = ONE(CTN_STAGE_RATTLE_DRIFT, CTN_TIMER_SOLVE);
        break;
    case CTN_TABLE_RATTLE_BACK:
        e[k++] = ONE(CTN_STAGE_RATTLE_BACK, CTN_TIMER_SOLVE);
        e[k++] = ONE(CTN_STAGE_RATTLE_DRIFT, CTN_TIMER_SOLVE);
        break;
    case CTN_TABLE_RATTLE_UNDO: /* x_n, v_n back; after Newton the factor of x_n again, the velocity stage's bits */
        e[k++] = ONE(CTN_STAGE_RATTLE_UNDO, CTN_TIMER_SOLVE);
        if (sub) {
            e[k++] = WITH(CTN_STAGE_PREPARE, CTN_TIMER_SOLVE, CTN_PRM_VEL);
            e[k++] = WITH(CTN_STAGE_RATTLE_FACTOR, CTN_TIMER_SOLVE, CTN_PRM_VEL);
        }
        break;
    case CTN_TABLE_RATTLE_MOMENTUM:
        e[k++] = ONE(CTN_STAGE_RATTLE_MOMENTUM, CTN_TIMER_SOLVE);
        if (sub) { /* the projection's metric first (rattle_substep), then its scratch arrays */
            if (prm->geometric_stiffness > 0.0f) e[k++] = ONE(CTN_STAGE_GEOMETRIC_INERTIA, CTN_TIMER_SOLVE);
            e[k++] = ONE(CTN_STAGE_PROJECT_ENTER, CTN_TIMER_SOLVE);
        }
        break;
    case CTN_TABLE_RATTLE_END: /* v_{n+1} = v' + h/2 M^-1 f(x_{n+1}) + M^-1 J_{n+1}^T mu, J_{n+1} v_{n+1} = 0 */
        e[k++] = WITH(CTN_STAGE_FORCES, CTN_TIMER_INTEGRATE, CTN_PRM_HALF);
        e[k++] = WITH(CTN_STAGE_PREPARE, CTN_TIMER_PREPARE, CTN_PRM_VEL);
        e[k++] = WITH(CTN_STAGE_SOLVE, CTN_TIMER_SOLVE, CTN_PRM_VEL);
        e[k++] = ONE(CTN_STAGE_RATTLE_LEAVE, CTN_TIMER_SOLVE); /* its rows and factor kept for the next substep */
        break;
    default: break;
    }
    return k;
}

int ctn__substep_plan(const ctn_world *w, const ctn_step_params *prm, ctn_stage_table table, int sub, int n, ctn_stage_entry *e) {
    int k = 0;
    if (table >= CTN_TABLE_RATTLE_ENTER) return rattle_plan(prm, table, sub, e);
    if (table == CTN_TABLE_PROJECT_LEAVE) {
        e[k++] = ONE(CTN_STAGE_PROJECT_LEAVE, CTN_TIMER_SOLVE);
        return k;
    }
    if (table == CTN_TABLE_MEASURE) { /* sub = 1: the joint errors are the last CHORD_ROWS' */
        e[k++] = ONE(CTN_STAGE_PROJECT_LEAVE, CTN_TIMER_SOLVE);
        e[k] = ONE(CTN_STAGE_MEASURE, CTN_TIMER_NONE);
        if (sub == 1) e[k].covers &= ~CTN_STAGE_BIT(CTN_STAGE_JOINT_ERRORS);
        return ++k;
    }
    if (table != CTN_TABLE_SUBSTEP) { /* the projection, decided on the host (project_steps); its timer is SOLVE's */
        int gi = prm->geometric_stiffness > 0.0f, chords = table == CTN_TABLE_PROJECT_CHORD || table == CTN_TABLE_PROJECT_CHORD_NEXT;
        e[k++] = ONE(CTN_STAGE_PROJECT_REST, CTN_TIMER_SOLVE);
        if (chords) {
            e[k++] = ONE(CTN_STAGE_CHORD_ROWS, CTN_TIMER_SOLVE);
        } else {
            e[k++] = ONE(CTN_STAGE_PREPARE, CTN_TIMER_SOLVE);
            e[k++] = ONE(CTN_STAGE_PROJECT_ROWS, CTN_TIMER_SOLVE);
        }
        e[k++] = (ctn_stage_entry){CTN_STAGE_PROJECT_DECIDE, CTN_TIMER_SOLVE,
                                   CTN_STAGE_BIT(CTN_STAGE_PROJECT_DECIDE) | CTN_STAGE_BIT(CTN_STAGE_POSES_UNDO), CTN_PRM_STEP};
        if (table == CTN_TABLE_PROJECT_CHECK) return k;
        int chord = chords && sub + 1 < n; /* the last step is not checked: Newton's */
        if (table == CTN_TABLE_PROJECT_STEP && gi) e[k++] = ONE(CTN_STAGE_GEOMETRIC_INERTIA, CTN_TIMER_SOLVE);
        /* the copy an undo restores, read only by the next step's decision: none after the last step of
         * CTN_PROJECT_MAX, whose result project_steps keeps unchecked (a device's deferred steps end with a check
         * below CTN_PROJECT_MAX, and none at it) */
        if (sub + 1 < CTN_PROJECT_MAX) e[k++] = ONE(CTN_STAGE_POSES_KEEP, CTN_TIMER_SOLVE);
        if (chords && !chord) {
            e[k++] = ONE(CTN_STAGE_PREPARE, CTN_TIMER_SOLVE);
            if (gi) e[k++] = ONE(CTN_STAGE_GEOMETRIC_INERTIA, CTN_TIMER_SOLVE);
        }
        e[k++] = chord ? ONE(CTN_STAGE_CHORD_SOLVE, CTN_TIMER_SOLVE) /* a projection's solve: not the step's residual */
                       : (ctn_stage_entry){CTN_STAGE_SOLVE, CTN_TIMER_SOLVE, ctn__stage_whole(CTN_STAGE_SOLVE) & ~CTN_STAGE_BIT(CTN_STAGE_RESIDUAL), CTN_PRM_STEP};
        e[k++] = ONE(CTN_STAGE_INTEGRATE, CTN_TIMER_SOLVE);
        return k;
    }
    if (ctn__substep_geometric(w, prm)) e[k++] = (ctn_stage_entry){CTN_STAGE_GEOMETRIC_INERTIA, CTN_TIMER_PREPARE, CTN_STAGE_BIT(CTN_STAGE_GEOMETRIC_INERTIA), CTN_PRM_STEP};
    e[k++] = (ctn_stage_entry){CTN_STAGE_PREPARE, CTN_TIMER_PREPARE, CTN_STAGE_BIT(CTN_STAGE_PREPARE), CTN_PRM_STEP};
    e[k++] = (ctn_stage_entry){CTN_STAGE_FORCES, CTN_TIMER_INTEGRATE, CTN_STAGE_BIT(CTN_STAGE_FORCES), CTN_PRM_STEP};
    e[k++] = (ctn_stage_entry){CTN_STAGE_WARM_START, CTN_TIMER_SOLVE, CTN_STAGE_BIT(CTN_STAGE_WARM_START), CTN_PRM_STEP};
    e[k++] = ONE(CTN_STAGE_SOLVE, CTN_TIMER_SOLVE);
    e[k++] = (ctn_stage_entry){CTN_STAGE_INTEGRATE, CTN_TIMER_INTEGRATE, CTN_STAGE_BIT(CTN_STAGE_INTEGRATE), CTN_PRM_STEP};
    if (ctn__substep_projects(w, sub, n)) e[k++] = ONE(CTN_STAGE_PROJECT_ENTER, CTN_TIMER_SOLVE); /* the projection follows */
    return k;
}

int ctn__stage_plan(const ctn_world *w, const ctn_stage_ops *ops, const ctn_step_params *prm, ctn_stage_table table, int sub, int n,
                    ctn_stage_entry *e) {
    return ops->plan ? ops->plan(w, prm, table, sub, n, e) : ctn__substep_plan(w, prm, table, sub, n, e);
}

const char *ctn__table_name(ctn_stage_table table) {
#define NAME(t) [CTN_TABLE_##t] = #t
    static const char *const names[CTN_TABLE_COUNT] = {
        NAME(SUBSTEP),       NAME(PROJECT_STEP),  NAME(PROJECT_CHECK),  NAME(PROJECT_CHORD),   NAME(PROJECT_CHORD_NEXT),
        NAME(MEASURE),       NAME(PROJECT_LEAVE), NAME(RATTLE_ENTER),   NAME(RATTLE_FIRST),    NAME(RATTLE_START),
        NAME(RATTLE_CHORD),  NAME(RATTLE_NEWTON), NAME(RATTLE_BACK),    NAME(RATTLE_UNDO),     NAME(RATTLE_MOMENTUM),
        NAME(RATTLE_END),
    };
#undef NAME
    return (int)table >= 0 && (int)table < CTN_TABLE_COUNT && names[table] ? names[table] : "?";
}

const char *ctn__stage_name(ctn_stage stage) {
#define NAME(s) [CTN_STAGE_##s] = #s
    static const char *const names[CTN_STAGE_COUNT] = {
        NAME(GEOMETRIC_INERTIA), NAME(PREPARE), NAME(FORCES), NAME(WARM_START), NAME(SOLVE), NAME(VELOCITIES), NAME(RESIDUAL),
        NAME(INTEGRATE),
        NAME(PROJECT_ENTER), NAME(PROJECT_REST), NAME(REST_VELOCITIES), NAME(PROJECT_ROWS), NAME(PROJECT_DECIDE), NAME(POSES_KEEP), NAME(POSES_UNDO),
        NAME(PROJECT_LEAVE), NAME(CHORD_ROWS), NAME(CHORD_SOLVE), NAME(RATTLE_ENTER), NAME(RATTLE_START),
        NAME(RATTLE_UNDO), NAME(RATTLE_FACTOR), NAME(RATTLE_RESOLVE), NAME(RATTLE_BACK), NAME(RATTLE_DRIFT),
        NAME(RATTLE_ROWS), NAME(RATTLE_DECIDE), NAME(RATTLE_MOMENTUM), NAME(RATTLE_LEAVE), NAME(RATTLE_NEWTON), NAME(INERTIA),
        NAME(JOINT_ERRORS), NAME(MEASURE), NAME(ASSEMBLE_ROWS), NAME(ASSEMBLE_GATHER),
    };
#undef NAME
    return (int)stage >= 0 && (int)stage < CTN_STAGE_COUNT && names[stage] ? names[stage] : "?";
}

ctn_status ctn__stage_run(ctn_world *w, const ctn_stage_ops *ops, ctn_stage stage, const ctn_step_params *prm, ctn_stage_out *out) {
    ctn_stage_entry e = {stage, CTN_TIMER_NONE, ctn__stage_whole(stage), CTN_PRM_STEP};
    return ops->run(w, &e, prm, out);
}

#define TRY_STAGE(expr)                    \
    do {                                   \
        ctn_status s_ = (expr);            \
        if (s_ != CTN_OK) return s_;       \
    } while (0)

static const char *joint_not_rigid(const ctn_joint_def *d);
static const char *joint_not_rigid_at(const ctn_topology *t, int s) {
    ctn_joint_def d = ctn_joint_at(ctn__topo_joints(t), s);
    return joint_not_rigid(&d);
}

/* Whether every joint is a rigid bilateral row (joint_not_rigid). Asked twice a step (run_substeps,
 * chords_allowed); the answer is a property of the solver copies of the definitions (topo.defs), which only a
 * topology build refreshes (every setter of a field read here marks the topology dirty), so it is kept per
 * topology version: a pass over every joint per step saved (about 30 instructions per joint and step). */
static int joints_rigid(ctn_world *w) {
    if (!w->topology_dirty && w->rigid_version == w->topology_version + 1u) return w->rigid_all;
    int all = 1;
    for (int s = 0; s < w->topo.joint_count && all; ++s)
        if (joint_not_rigid_at(&w->topo, s)) all = 0;
    if (!w->topology_dirty) w->rigid_version = w->topology_version + 1u, w->rigid_all = all;
    return all;
}

/* Whether every set of dynamic bodies joined by joints has at most one joint to a body that is not dynamic
 * (the world, a static or a kinematic body), cached per topology version (a body's kind is topology). With no
 * loops among the dynamic bodies (the exact solver's layouts: chains and forests without closers) and
 * independent rows within each joint, J then has full row rank; a set held at two ends (a bridge) can have
 * redundant rows. */
static int set_root(int *root, int x) {
    while (root[x] != x) x = root[x] = root[root[x]];
    return x;
}

static int anchored_once(ctn_world *w) {
    if (w->warm_version == w->topology_version + 1u) return w->warm_anchored;
    int n = w->topo.body_count, m = w->topo.joint_count, ok = ctn__direct_anchored(w);
    if (ok >= 0) { /* a chain layout's paths are those sets, found by its build: no scratch (8 bytes a body) here */
        w->warm_version = w->topology_version + 1u, w->warm_anchored = ok;
        return ok;
    }
    ok = 1;
    int *root = n > 0 ? ctn__malloc((size_t)n * 2 * sizeof *root) : NULL;
    if (!root) return 0; /* not known: the warm start runs */
    int *held = root + n;
    for (int i = 0; i < n; ++i) root[i] = i, held[i] = 0;
#define DYN(b) ((b) >= 0 && (b) < n && (w->props[(b)].flags & CTN_BODY_FLAG_DYNAMIC))
    for (int s = 0; s < m && ok; ++s) {
        int a = w->topo.defs[s].a, b = w->topo.defs[s].b, da = DYN(a), db = DYN(b);
        if (da && db) {
            int ra = set_root(root, a), rb = set_root(root, b);
            if (ra == rb) ok = 0; /* a loop */
            else if ((held[rb] += held[ra]) > 1) ok = 0;
            root[ra] = rb;
        } else if (da || db) {
            int r = set_root(root, da ? a : b);
            if (++held[r] > 1) ok = 0;
        }
    }
#undef DYN
    ctn__free(root);
    w->warm_version = w->topology_version + 1u, w->warm_anchored = ok;
    return ok;
}

/* The warm start of an exact solve does nothing the solve needs: with every joint a rigid bilateral row of the
 * exact solve (no row cut to the outer Gauss-Seidel loop, no loop closer left to it) and J of full row rank
 * (anchored_once), the solve returns the dl of (J M^-1 J^T + S) dl = b - J v - S l for whatever impulses l it
 * starts from, and l + dl and v + M^-1 J^T dl are the unique solution of (J M^-1 J^T + S) l = b - J v_0 and
 * its velocity whatever l was (up to the relative regularisation CTN_DD_FLOOR, 1e-10, which pulls towards l).
 * So the warm start's gather v += M^-1 J^T (w l_prev) is skipped (w->warm_idle): the impulses are scaled by 0
 * (the warm-start factor 0, as the backends scale them) and the solve starts from v_0: one pass over the
 * bodies and one rounding of the velocities fewer. With redundant rows (a bridge held at both ends) the
 * warm start sets the impulses' part in the null space of J^T, which the next substep's geometric-stiffness
 * inertia reads, so it stays. */
static int warm_start_idle(ctn_world *w, const ctn_stage_ops *ops, int rigid) {
    return rigid && w->solver == CTN_SOLVER_DIRECT && (ops->all_exact ? ops->all_exact(w) : ctn__direct_exact(w)) && anchored_once(w);
}

/* The exact solver with joints, every one a rigid bilateral row: warm_start_idle's `rigid`. */
static int exact_rigid(ctn_world *w) { return w->solver == CTN_SOLVER_DIRECT && w->topo.joint_count > 0 && joints_rigid(w); }

int ctn__warm_start_idle(ctn_world *w, const ctn_stage_ops *ops) { return warm_start_idle(w, ops, exact_rigid(w)); }

/* Entry k of table (sub, n) about to be taken (w->stage_trace: a test's record of what runs). */
static void trace(ctn_world *w, ctn_stage_table table, int sub, int n, int k, const ctn_stage_entry *e) {
    if (w->stage_trace) w->stage_trace(w->stage_trace_user, (int)table, sub, n, k, e);
}

/* The driver's parameter sets, indexed by ctn_stage_prm. */
typedef struct stage_params {
    const ctn_step_params *p[CTN_PRM_COUNT];
} stage_params;

static stage_params one_set(const ctn_step_params *prm) { return (stage_params){{prm, prm, prm, prm}}; }

/* Runs the entries *k.. of e (table `table` for sub of n), each with its timer and parameter set, up to the first
 * one the driver takes on the host (PROJECT_DECIDE, RATTLE_DECIDE; traced, not run): *k is left at it, or at
 * count when every entry ran. */
static ctn_status run_entries(ctn_world *w, const ctn_stage_ops *ops, ctn_stage_table table, int sub, int n, const ctn_stage_entry *e,
                              int count, int *k, const stage_params *set, ctn_stage_out *out, ctn_step_stats *st) {
    for (; *k < count; ++*k) {
        trace(w, table, sub, n, *k, &e[*k]);
        if (e[*k].stage == CTN_STAGE_PROJECT_DECIDE || e[*k].stage == CTN_STAGE_RATTLE_DECIDE) return CTN_OK;
        ops->timer(w, e[*k].timer, st);
        TRY_STAGE(ops->run(w, &e[*k], set->p[e[*k].prm], out));
    }
    return CTN_OK;
}

/* A table without host entries, planned and run whole. */
static ctn_status run_table(ctn_world *w, const ctn_stage_ops *ops, ctn_stage_table table, int sub, int n, const stage_params *set,
                            ctn_stage_out *out, ctn_step_stats *st) {
    ctn_stage_entry e[CTN_SUBSTEP_ENTRIES_MAX];
    int count = ctn__stage_plan(w, ops, set->p[CTN_PRM_STEP], table, sub, n, e), k = 0;
    return run_entries(w, ops, table, sub, n, e, count, &k, set, out, st);
}

/* The substeps of the velocity step; *enter: the out of the last table (its PROJECT_ENTER when it projects). */
static ctn_status run_substeps(ctn_world *w, const ctn_stage_ops *ops, const ctn_step_params *prm, ctn_stage_out *enter,
                               ctn_step_stats *st) {
    stage_params set = one_set(prm);
    int rigid = exact_rigid(w);
    for (int sub = 0, n = ctn__substeps(w); sub < n; ++sub) {
        *enter = (ctn_stage_out){0};
        w->warm_idle = warm_start_idle(w, ops, rigid); /* the layout may be built by the first substep's SOLVE */
        ctn_status s = run_table(w, ops, CTN_TABLE_SUBSTEP, sub, n, &set, enter, st);
        if (s != CTN_OK) {
            w->warm_idle = 0;
            return s;
        }
    }
    w->warm_idle = 0;
    return CTN_OK;
}

/* Post-stabilisation of the exact solver (Cline and Pai 2003, "Post-stabilization for rigid body simulation
 * with contact and constraints"): after the last substep, Newton steps of the mass-weighted projection of
 * the positions onto the manifold of the rigid bilateral joints,
 *     dx = M^-1 J^T mu,   (J M^-1 J^T) mu = -C(x),
 * each solved by the forest solver as a velocity problem on scratch arrays: zero velocities and impulses,
 * Baumgarte rows with beta = 1 and no regularisation (target -C/h), then x += h v (the substep's PREPARE,
 * SOLVE and INTEGRATE stages). Velocities and impulses are left as they are.
 * A velocity-level step leaves a drift of about L (omega h)^2 / 2 per substep on a link turning at omega
 * (a whipping chain's tip); Newton removes it quadratically: it stops once the largest error of a projected
 * row is below CTN_PROJECT_TOL or after CTN_PROJECT_MAX steps, and a step that does not shrink the largest
 * error is undone (far from the manifold, at steps too large for the motion, Newton can overshoot): the
 * decision of ctn_project_decide (kernels/ctn_solver.h). A backend that decides on the device (OpenCL: no
 * read of the error to the host inside a step) says so at PROJECT_ENTER (out.deferred = the number of full
 * steps to enqueue, chosen from the Newton steps of its previous step: CTN_PROJECT_DEVICE_MARGIN); it keeps
 * and undoes the poses itself, turns the steps after the decision to stop into no-ops, and ends with one
 * check (rows and decision, no solve) unless it enqueued CTN_PROJECT_MAX steps (the host's last step is
 * not checked either). Both run the same loop, project_steps, over the backend's tables.
 * The metric is the implicit step's, M plus the geometric-stiffness inertia of the last substep's impulses
 * (ctn_geometric_inertia_body), not M alone: along nearly straight runs of slender links the M-metric
 * correction turns links by angles far larger than the error (measured on chain:10000: 0.014 rad to fix
 * 2e-6 m), its second-order error exceeds the first and the step is undone; with the stiffness term links
 * under tension move along the chain instead (7e-4 rad) and one step takes 1.5e-6 m to 1.5e-8 m.
 * Compliant joints and joints with bounded rows (contacts, limits, motors, ropes) are not projected: their
 * rows get the bounds [0, 0]. */
/* Chord steps (ctn_chord_slot, kernels/ctn_solver.h): a Newton step's factorisation is the projection's
 * largest cost, so a step first reuses the last factor the step made (the velocity solve's, then the
 * projection's own): a row evaluation and two substitutions. The simplified Newton method converges linearly
 * where Newton converges quadratically (Deuflhard 2004, section 2.1.4), so a chord step that does not divide
 * the largest error by 1 / CTN_CHORD_RATE is undone and a Newton step (with its own factor, which the next
 * steps reuse) runs from where it started. A projection that may take chord steps stops at CTN_CHORD_TOL, a
 * quarter of Newton's CTN_PROJECT_TOL: Newton's last step usually overshoots the tolerance by its quadratic
 * convergence where a chord step lands just below it, and one more chord step (cheap) keeps the joints at
 * least as closed as Newton's (measured with 40 steps at 60 Hz, released horizontally, largest joint gap:
 * chain:300 2.9e-8 m with Newton, 9.8e-8 chords to CTN_PROJECT_TOL, 1.1e-8 to CTN_CHORD_TOL; tree:300 6.2e-8,
 * 1.2e-7, 3.7e-8; chain:10000 2.9e-8, 6.9e-8, 2.4e-8). The rate test stops at CTN_PROJECT_TOL, not at
 * CTN_CHORD_TOL: on trees the chord steps below 1e-7 m reach the float rounding floor of the joint errors
 * (2.7e-8 to 4e-8 m on tree:1023) where the rate rises to 0.8; undoing such a step for a Newton step cost a
 * second factorisation in most steps (tree:1023, direct 1x1, 20 steps at 60 Hz: 1.80 factorisations and 4.6
 * chord steps per step before, 1.15 and 5.8 after, largest joint gap 4.6e-8 m before, 4.2e-8 after; tree:8191
 * 1.95 and 4.25 before, 1.65 and 5.25 after, 5.05e-8 and 4.96e-8 m; chain:1000 and chain:10000 unchanged; over
 * 120 steps tree:1023 1.26 -> 0.49 factorisations per step, tree:8191 1.87 -> 0.84, the mean, median and 95th
 * percentile of the per-step gap lower, the single largest one higher, 4.72e-8 -> 4.83e-8 and 5.27e-8 ->
 * 5.65e-8 m: the scatter of the floor, which the extra Newton steps did not lower either). */
/* Skipped chords: a Newton step that shrank the largest error by less than 1 / CTN_CHORD_RATE marks poses where the
 * model of the last factor is poor (a slow Newton step is linear convergence, e.g. at a singular root: bridge:N,
 * stretched straight between its anchors, bench/results/2026-11-29-vm-hinge-projection.md), and the chord step
 * after it, with that step's factor, was undone by the rate test in every case measured while the error was above
 * CTN_PROJECT_TOL / CTN_CHORD_RATE (below it a slow chord may still land under CTN_PROJECT_TOL and be kept: once on
 * bridge:1000). There the chord is not tried: the Newton step runs at once from the same poses, as it ran after the
 * chord's undo, and the chord's test counts as the step it took, so the steps, poses and statistics are the same
 * (bridge:1000 and bridge:10000 over 30 steps: 35 and 11 chords skipped, every one of which had been undone;
 * chain:1000, chain:10000, tree:1023, double_pendulum none; rope:1000 43, all undone before). bridge:10000 direct
 * 1x1: 26,809 -> 24,281 instructions per link and step (bench/results/2026-11-30-vm-hinge-chord.md). */
#define CTN_CHORD_RATE 0.25f
/* A chord step that failed CTN_CHORD_RATE but divided the largest error by at least 2 is kept, and the Newton
 * step runs from its poses (project_decide). Measured on trees, direct 1x1, velocity step (temporary prints,
 * bench/results/2026-11-30-vm-tree-chord.md): tree:8191, steps 1..11, the velocity factor's first chord step
 * fails at rates 0.3 to 0.97 from step 3 on, the chord after the Newton step at 0.3 to 0.67; undone, each
 * paid a Newton step from the error it had started at. Together with the last step's chord below Newton's
 * tolerance: 24 Newton factorisations in 11 steps -> 16; 60 steps tree:1023 0.90 -> 0.32 per step, mean joint
 * gap 3.10e-8 -> 3.04e-8 m. Keeping every chord step that lowered the error (rates up to 0.97) took tree:1023
 * to 0.18 factorisations per step but moved its positions at 1 s 1 mm further from a 64-substep reference
 * (0.0710 -> 0.0720 m RMS; 0.0709 with this rate). The forest path only (project_host.forest): on ball
 * chains the chord steps converge at 0.05 to 0.3 and the two rules moved only chain:100's joint gaps at the
 * rounding floor (60 steps: no factorisation fewer, mean gap 1.283e-8 -> 1.312e-8 m); hinge chains keep theirs. */
#define CTN_CHORD_KEEP_RATE 0.5f
#define CTN_CHORD_TOL (0.25f * CTN_PROJECT_TOL)
#define CTN_PROJECT_CHORD_AUTO 1 /* desc.debug.project_chord = -1 */

/* The host's half of a PROJECT_DECIDE entry, after the rows of the step: the chord test (a chord step that
 * did not divide the error by 1 / CTN_CHORD_RATE is undone and the step runs again as a Newton step), then
 * ctn_project_decide and its undo. */
typedef struct project_host {
    int st[CTN_PS_INTS];     /* ctn_project_decide's state */
    int before[CTN_PS_INTS]; /* ... before its last decision (a chord step undone) */
    int chorded;             /* the last step was a chord step */
    float scale;             /* the decision's errors, in units of its tolerance */
    int forest;              /* the exact solve is the forest path's (CTN_CHORD_KEEP_RATE, the last step's chord) */
} project_host;

enum { DECIDE_GO, DECIDE_STOP, DECIDE_NEWTON, DECIDE_SKIP, DECIDE_CHORD };

static int project_decide(ctn_world *w, const ctn_stage_ops *ops, const ctn_step_params *prm, project_host *h, ctn_stage_table table,
                          int may_skip, int last_step, float worst, ctn_step_stats *stats, ctn_status *s) {
    union {
        int i;
        float f;
    } last;
    float x = worst * h->scale;
    *s = CTN_OK;
    if (table == CTN_TABLE_PROJECT_CHORD_NEXT) { /* the rows after a chord step */
        last.i = h->st[CTN_PS_LAST];
        if (worst > CTN_PROJECT_TOL && !(x <= CTN_CHORD_RATE * last.f)) {
            /* the chord's model is too far from these poses: undone, and a Newton step from where it started.
             * Not once the chord has reached Newton's own tolerance (worst <= CTN_PROJECT_TOL): there a slow rate
             * is the float rounding floor of the joint errors, which a Newton step does not lower either (see
             * the measurements above the rate); the chord step is kept and ctn_project_decide goes on while the
             * error shrinks and undoes the step when it does not.
             * A chord step that at least halved the error (CTN_CHORD_KEEP_RATE) is kept and the Newton step
             * runs from its poses: closer to the manifold, where Newton's quadratic step lands lower (a
             * constant of about 70 /m on trees: from 2.6e-4 m to 2.2e-6 m where the undone chord's start,
             * 8.4e-4 m, gave 2.2e-5 m), so the chord steps after it take the rest on its factor instead of
             * failing the rate test again and paying a second factorisation. A slower chord is undone: its
             * rows turned too far for its direction to be trusted. Its rows are built again for the Newton
             * step (PREPARE, PROJECT_ROWS) and the decision there takes its error against the one before. */
            h->chorded = 0;
            if (h->forest && x < CTN_CHORD_KEEP_RATE * last.f) {
                stats->projection_chords++;
                return DECIDE_NEWTON;
            }
            *s = ctn__stage_run(w, ops, CTN_STAGE_POSES_UNDO, prm, NULL);
            for (int k = 0; k < CTN_PS_INTS; ++k) h->st[k] = h->before[k];
            return DECIDE_NEWTON;
        }
        stats->projection_chords++;
    } else if (table == CTN_TABLE_PROJECT_CHORD && may_skip) { /* the rows after a Newton step (or the velocity solve) */
        last.i = h->st[CTN_PS_LAST];
        if (CTN_CHORD_RATE * worst > CTN_PROJECT_TOL && x < last.f && !(x <= CTN_CHORD_RATE * last.f)) {
            /* A Newton step that shrank the error but did not divide it by 1 / CTN_CHORD_RATE (last is +inf after
             * the velocity solve: never here): the chord from these poses, with the factor of the poses that step
             * started from, is not tried (see CTN_CHORD_RATE's comment, "Skipped chords"). No state changes:
             * the Newton step runs from these poses as it would after the chord's undo. */
            return DECIDE_SKIP;
        }
    }
    for (int k = 0; k < CTN_PS_INTS; ++k) h->before[k] = h->st[k];
    ctn_project_decide(h->st, x);
    if (h->st[CTN_PS_UNDO]) *s = ctn__stage_run(w, ops, CTN_STAGE_POSES_UNDO, prm, NULL);
    if (!h->st[CTN_PS_ACTIVE]) return DECIDE_STOP;
    /* the last of CTN_PROJECT_MAX steps is not checked; below Newton's tolerance it is a chord step, not a
     * factorisation: the error left is the rounding floor or a chord's one rate above it, where an
     * unchecked Newton step lands on the floor too (see CTN_CHORD_KEEP_RATE's measurements) */
    return h->forest && last_step && worst <= CTN_PROJECT_TOL ? DECIDE_CHORD : DECIDE_GO;
}

/* The projection's steps, one loop for both ways of deciding, each step a table of the backend (its plan):
 * deferred > 0 (the backend decides on the device, out.deferred of PROJECT_ENTER): `deferred` full Newton
 * steps (CTN_TABLE_PROJECT_STEP) enqueued whatever the error, then (below CTN_PROJECT_MAX) one check
 * (CTN_TABLE_PROJECT_CHECK) whose decision can only stop or undo (the backend applies an undo when it
 * leaves); steps the CPU would not take are no-ops on the device, and a projection that wanted more than
 * `deferred` ends above the tolerance and the backend enqueues more in the next step. Else the host decides:
 * up to CTN_PROJECT_MAX steps, chord steps (CTN_TABLE_PROJECT_CHORD, or _CHORD_NEXT right after a chord
 * step) where `chords` allows them, Newton steps otherwise, and a PROJECT_DECIDE entry of the table is taken
 * here (project_decide): it may stop the projection, or turn a chord step that did not converge into a
 * Newton step from where it started. */
static ctn_status project_steps(ctn_world *w, const ctn_stage_ops *ops, ctn_step_params prm, int deferred, int chords, int *measured,
                                ctn_step_stats *stats) {
    union {
        int i;
        float f;
    } inf = {.f = INFINITY};
    project_host h = {{1, 0, 0, inf.i, 0}, {0}, 0, chords ? CTN_PROJECT_TOL / CTN_CHORD_TOL : 1.0f, chords && ctn__direct_forest_exact(w)};
    int n = deferred > 0 ? deferred : CTN_PROJECT_MAX;
    for (int steps = 0; steps < CTN_PROJECT_MAX && (deferred <= 0 || steps <= deferred); ++steps) {
        ctn_stage_table table = deferred > 0 ? (steps == deferred ? CTN_TABLE_PROJECT_CHECK : CTN_TABLE_PROJECT_STEP)
                                             : !chords ? CTN_TABLE_PROJECT_STEP
                                             : h.chorded ? CTN_TABLE_PROJECT_CHORD_NEXT : CTN_TABLE_PROJECT_CHORD;
        ctn_stage_entry e[CTN_SUBSTEP_ENTRIES_MAX];
        ctn_stage_out out = {0};
        int count = ctn__stage_plan(w, ops, &prm, table, steps, n, e), chorded = 0;
        for (int k = 0; k < count; ++k) {
            trace(w, table, steps, n, k, &e[k]);
            if (e[k].stage == CTN_STAGE_PROJECT_DECIDE) { /* on the host */
                ctn_status s = CTN_OK;
                int d = project_decide(w, ops, &prm, &h, table, steps + 1 < n, chords && steps + 1 == n, out.worst, stats, &s);
                TRY_STAGE(s);
                if (d == DECIDE_STOP) { /* a chord step's rows measured the joint errors of the poses it keeps */
                    *measured = (table == CTN_TABLE_PROJECT_CHORD || table == CTN_TABLE_PROJECT_CHORD_NEXT) && !h.st[CTN_PS_UNDO];
                    return CTN_OK;
                }
                if (d == DECIDE_CHORD) { /* the last step as a chord step: the plan of a chord step that is not
                                          * the last (n + 1), whose entries up to this decision are the same */
                    count = ctn__stage_plan(w, ops, &prm, table, steps, n + 1, e);
                    continue;
                }
                if (d == DECIDE_SKIP) ++steps; /* the chord's test would have taken the next step: the same steps */
                if (d == DECIDE_NEWTON || d == DECIDE_SKIP) { /* this step again, as a Newton step */
                    table = CTN_TABLE_PROJECT_STEP;
                    count = ctn__stage_plan(w, ops, &prm, table, steps, n, e);
                    k = -1;
                }
                continue;
            }
            TRY_STAGE(ops->run(w, &e[k], &prm, &out));
            if (e[k].stage == CTN_STAGE_CHORD_SOLVE) chorded = 1;
            if (e[k].stage == CTN_STAGE_SOLVE && deferred <= 0) stats->projection_factors++;
        }
        h.chorded = chorded;
    }
    return CTN_OK;
}

/* Why joint slot d cannot be a rigid bilateral row of the exact solve (NULL: it is one): a bounded row (a
 * contact, limit, motor or rope) changes its set within a step; a compliant row is a force of the velocity. */
static const char *joint_not_rigid(const ctn_joint_def *d) {
    if (d->type == CTN_JT_CONTACT) return "is a contact";
    if (d->type == CTN_JT_CURVE) return "is a curve constraint";
    if (d->flags & (CTN_JF_LIMIT | CTN_JF_MOTOR | CTN_JF_ROPE | CTN_JF_SWING)) return "has a limit, motor or rope (bounded rows)";
    if (d->compliance > 0.0f || (d->flags & CTN_JF_IMPLICIT_SPRING)) return "is compliant";
    return NULL;
}

/* Whether the projection may take chord steps (project_steps): asked for (desc.debug.project_chord, -1:
 * CTN_PROJECT_CHORD_AUTO), a backend with the chord stages, and a factor the chord can use: every joint a
 * rigid bilateral row in the exact solve, so the step's last solve factored exactly the rows projected. */
static int chords_allowed(ctn_world *w, const ctn_stage_ops *ops) {
    int want = w->desc.debug.project_chord < 0 ? CTN_PROJECT_CHORD_AUTO : w->desc.debug.project_chord;
    return want && ops->chord && ctn__direct_exact(w) && joints_rigid(w);
}

/* After the table whose PROJECT_ENTER left `enter` (the last substep's, RATTLE_MOMENTUM's). leave 0: PROJECT_LEAVE is
 * left to the step's last table (CTN_TABLE_MEASURE; *measured: whether its MEASURE may take the joint errors of
 * the projection's last CHORD_ROWS) unless the projection failed. */
static ctn_status project_positions(ctn_world *w, const ctn_stage_ops *ops, const ctn_step_params *prm, const ctn_stage_out *enter, int leave,
                                    int *measured, ctn_step_stats *st) {
    ctn_step_params p = *prm;
    p.stabilization = 1, p.baumgarte = 1.0f, p.warm_start = 0.0f;
    *measured = 0;
    ctn_status s = project_steps(w, ops, p, enter->deferred, enter->deferred <= 0 && enter->kept && chords_allowed(w, ops), measured, st);
    if (!leave && s == CTN_OK) return CTN_OK;
    stage_params set = one_set(&p);
    ctn_status s2 = run_table(w, ops, CTN_TABLE_PROJECT_LEAVE, 0, 1, &set, NULL, st); /* the real arrays come back */
    return s != CTN_OK ? s : s2;
}

/* The divergence check: a body that is non-finite or faster than desc.max_speed (<= 0: no speed limit,
 * finiteness only), a non-finite impulse, joint error or residual undoes the step and names the cause. */
static ctn_status check_divergence(ctn_world *w, const ctn_stage_ops *ops, const ctn_stage_out *m, ctn_step_stats *st) {
    char msg[sizeof w->error];
    if (m->bad_body >= 0 && m->bad_body < w->body_count) {
        ctn_pose p;
        ctn_vel v;
        TRY_STAGE(ops->read_body(w, m->bad_body, &p, &v));
        double speed = 0.0;
        if (ctn__divergence_body(w, m->bad_body, &p, &v, &speed) == CTN_OK) /* rounding between device and host */
            ctn__fail(w, CTN_ERR_DIVERGED, "step diverged: body %lld reached %g (desc.max_speed %g); the step was undone",
                      (long long)ctn_body_id_to_int(ctn__body_handle(w, m->bad_body)), speed, w->desc.max_speed);
        snprintf(msg, sizeof msg, "%s", w->error);
    } else if (m->bad_joint >= 0) {
        snprintf(msg, sizeof msg, "step diverged: joint %lld has a non-finite impulse; the step was undone",
                 (long long)ctn_joint_id_to_int(ctn__joint_handle(w, m->bad_joint)));
    } else if (!isfinite(st->max_gap) || !isfinite(st->residual)) {
        snprintf(msg, sizeof msg, "step diverged on the %s backend: joint error %g, residual %g; the step was undone", w->backend->name,
                 st->max_gap, st->residual);
    } else {
        return CTN_OK;
    }
    TRY_STAGE(ops->restore(w));
    return ctn__fail(w, CTN_ERR_DIVERGED, "%s", msg);
}

/* RATTLE (Andersen 1983; kernels/ctn_rattle.h has the equations; docs/design.md, "RATTLE"). The chord
 * iteration of a position stage stops once the largest joint error is at most CTN_RATTLE_TOL; the error of a
 * joint is the one the step reports (ctn_joint_error: the norm of its linear rows' C, the anchor separation,
 * and of its angular rows'), not the largest row, whose test left a ball joint's separation up to sqrt(3)
 * times the tolerance (measured: 1.25e-7 m on chain:1000, 0.1 m links, released horizontally, 120 steps at
 * 60 Hz). The tolerance is 0.8 of the projection's CTN_PROJECT_TOL, so a reported gap stays below 1e-7 m with
 * a margin for rounding (the same chain, 300 steps: worst gap 7.97e-8 m; Newton steps 4995 against 4708 with
 * the row test at 1e-7 m, 4626 with the norm test at 1e-7 m). It converges
 * at a rate of about the angle the links turn over the substep (the kept factor's rows J(x_n) model those of
 * x_{n+1}), so one that does not shrink the error at least by CTN_RATTLE_RATE per iteration, or runs
 * CTN_RATTLE_MAX iterations, is undone and its substep split (rattle_substep).
 * The substeps of a step are at least desc.substeps and at least enough that the fastest turning body (or
 * distance row) turns by at most CTN_RATTLE_TURN rad in one, from the velocities at the start of the step, at
 * most CTN_RATTLE_SUBSTEPS: a function of the state alone, so a resumed checkpoint steps on alike. RATTLE
 * keeps a modified energy close to the true one, and that modified energy depends on the step, so every
 * change of the step moves the energy by about the size of its error: the limit is tight enough that those
 * moves stay small (measured on a 10-link chain released horizontally at 60 Hz, 10 s: largest energy error
 * 1.8% of m g L n^2 / 2 at 0.05 rad; 8% at 0.1 rad; a count that never falls again stayed within 0.34% at
 * 0.1 rad but is state a checkpoint does not keep). */
#define CTN_RATTLE_TOL (0.8f * CTN_PROJECT_TOL)
#define CTN_RATTLE_MAX 12
#define CTN_RATTLE_RATE 0.5f
#define CTN_RATTLE_TURN 0.05f
#define CTN_RATTLE_SUBSTEPS 64
#define CTN_RATTLE_SPLITS 4
/* Above this many joints the velocity step runs: the chord iteration stalls on long chains (A_n^-1 amplifies
 * the turn of the rows along the chain's soft modes), so RATTLE splits and projects its substeps; measured on
 * chain:10000 released horizontally, 6 steps: 36 splits at 1 substep, 57 splits and 39 projections at 4, and
 * 116,107 / 112,012 instructions per link per step against the velocity step's 16,127 / 25,955 at 1 / 4
 * substeps; chain:1000 at 4 substeps: no split, about one chord iteration per substep
 * (bench/results/2026-11-28-vm-rattle.md). With Newton steps (rattle_newton) chain:10000 at 4 substeps takes
 * 41,006 instructions per link per step in its first steps against the velocity step's 17,098, but once it
 * swings 18 Newton steps and 5 splits per step, about 5 times the velocity step's time, for an energy error of
 * 5.7e-7 against 8.0e-5 of m g L N^2/2 over 2 s (bench/results/2026-11-28-vm-rattle-long.md): the default limit
 * (CTN_RATTLE_MAX_JOINTS, include/catena/core.h) stays, and desc.rattle_max_joints raises or lowers it. */
/* Above this many joints a stalled chord iteration goes on with Newton steps (rattle_newton) before it splits.
 * Measured on chain:1000 released horizontally, 2 s at 60 Hz (bench/results/2026-11-28-vm-rattle-long.md):
 * largest energy error 1.3e-4 / 1.2e-4 of m g L N^2/2 at 1 / 4 substeps with Newton steps, 1.7e-5 / 1.9e-5 with
 * splits alone, 3.4e-3 / 7.4e-4 for the velocity step; Newton cut the splits from 1181 / 920 to 323 / 86. Up to
 * 100 joints (test_direct's 100-link whip, the small mechanisms) splits alone keep RATTLE exact. */
#define CTN_RATTLE_CHORD_JOINTS 100

int ctn__rattle_max_joints(const ctn_world *w) {
    return w->desc.rattle_max_joints > 0 ? w->desc.rattle_max_joints : CTN_RATTLE_MAX_JOINTS;
}

/* Why RATTLE does not apply to this step (NULL: it does). RATTLE needs the exact solver's factor of every
 * joint's rows, rows that are rigid equalities (a bounded row, a contact, limit, motor or rope, changes its set
 * within a step; a compliant row is a force of the velocity), and a backend that runs its stages. */
static const char *rattle_refusal(const ctn_world *w, const ctn_stage_ops *ops, char *buf, size_t size) {
    const ctn_topology *t = &w->topo;
    if (w->desc.integrator == CTN_INTEGRATOR_VELOCITY) return "velocity: set by desc.integrator";
    if (w->solver != CTN_SOLVER_DIRECT) {
        snprintf(buf, size, "velocity: the %s solver steps velocities (RATTLE runs with the direct solver)", ctn_solver_name(w->solver));
        return buf;
    }
    if (t->joint_count == 0) return "velocity: no joints";
    int most = ctn__rattle_max_joints(w);
    if (t->joint_count > most) {
        snprintf(buf, size, "velocity: %d joints, more than RATTLE's %d (desc.rattle_max_joints; its chord iteration stalls on long chains)",
                 t->joint_count, most);
        return buf;
    }
    if (!ops->rattle) {
        snprintf(buf, size, "velocity: the %s backend has no RATTLE stages yet", w->backend->name);
        return buf;
    }
    for (int s = 0; s < t->joint_count; ++s) {
        const char *why = joint_not_rigid_at(t, s);
        if (why) {
            snprintf(buf, size, "velocity: joint %lld %s", (long long)ctn_joint_id_to_int(ctn__joint_handle(w, t->order[s])), why);
            return buf;
        }
    }
    if (!(ops->all_exact ? ops->all_exact(w) : ctn__direct_exact(w))) return "velocity: loop-closing joints or joints outside the exact solve";
    return NULL;
}

int ctn__rattle_may_run(const ctn_world *w) {
    return w->desc.integrator != CTN_INTEGRATOR_VELOCITY && w->solver == CTN_SOLVER_DIRECT && w->topo.joint_count > 0 &&
           w->topo.joint_count <= ctn__rattle_max_joints(w);
}

/* Newton steps for a position stage whose chord iteration stalled: at the drifted poses x^k = x_n (+) h v,
 *     v += -M^-1 J_k^T (J_k M^-1 J_k^T)^-1 C(x^k) / h,   J_k = J(x^k),
 * the minimum-norm (mass metric M of x_n) Newton step of C(x_n (+) h v) = 0 in v, whose derivative is h J_k
 * (to first order in the rotation of the drift); one row build and factorisation each (CTN_STAGE_RATTLE_NEWTON),
 * converging quadratically where the chord's kept factor A_n^-1 amplifies the turn of the rows along a long
 * chain's soft modes (its rate is about the turn times the condition of A_n, which grows as the square of the
 * chain's length). The velocity stays a sum of v_n, the half kick and constraint impulses, now along the rows
 * of x_n and of the iterates (RATTLE proper keeps them along J_n^T: this departs from it by about the turn
 * times the correction, which the measured energy errors bound, docs/design.md section 11), and the poses
 * are still exactly the drift of the stored velocity. Stops at CTN_RATTLE_TOL, or when a step does not
 * halve the error (then the last step is taken back if it made it worse); *done says whether it converged. */
#define CTN_RATTLE_NEWTON_MAX 8
#define CTN_RATTLE_NEWTON_RATE 0.9f
/* The host's half of a RATTLE_DECIDE entry after the rows of iteration k (chord or Newton): converged at
 * CTN_RATTLE_TOL, or stalled when the error did not shrink by `rate` (a Newton iteration also after
 * CTN_RATTLE_NEWTON_MAX); a stalled iteration that made it worse is taken back (CTN_TABLE_RATTLE_BACK). */
enum { RATTLE_GO, RATTLE_DONE, RATTLE_STALLED };
static int rattle_decide(float worst, int k, int newton, float *last, int *back) {
    *back = 0;
    if (worst <= CTN_RATTLE_TOL) return RATTLE_DONE;
    if ((newton && k == CTN_RATTLE_NEWTON_MAX) || !(worst < (newton ? CTN_RATTLE_NEWTON_RATE : CTN_RATTLE_RATE) * *last)) {
        *back = k > 0 && !(worst < *last); /* the last iteration made it worse: back to the one before */
        return RATTLE_STALLED;
    }
    *last = worst;
    return RATTLE_GO;
}

/* The position stage's iterations: tables CTN_TABLE_RATTLE_CHORD (up to CTN_RATTLE_MAX, the last not checked) or
 * CTN_TABLE_RATTLE_NEWTON (up to CTN_RATTLE_NEWTON_MAX + 1 checks), each decided on the host at its
 * RATTLE_DECIDE entry; *done: converged; *iterations: the tables run to their end. */
static ctn_status rattle_iterate(ctn_world *w, const ctn_stage_ops *ops, ctn_stage_table table, const stage_params *set, int *done,
                                 int *iterations, ctn_step_stats *st) {
    int newton = table == CTN_TABLE_RATTLE_NEWTON, most = newton ? CTN_RATTLE_NEWTON_MAX + 1 : CTN_RATTLE_MAX;
    float last = INFINITY;
    *done = *iterations = 0;
    for (int it = 0; it < most; ++it) {
        ctn_stage_entry e[CTN_SUBSTEP_ENTRIES_MAX];
        ctn_stage_out out = {0};
        int count = ctn__stage_plan(w, ops, set->p[CTN_PRM_STEP], table, it, most, e), k = 0;
        TRY_STAGE(run_entries(w, ops, table, it, most, e, count, &k, set, &out, st));
        if (k < count) { /* RATTLE_DECIDE */
            int back = 0, verdict = rattle_decide(out.worst, it, newton, &last, &back);
            if (back) TRY_STAGE(run_table(w, ops, CTN_TABLE_RATTLE_BACK, 0, 1, set, NULL, st));
            if (verdict != RATTLE_GO) {
                *done = verdict == RATTLE_DONE;
                return CTN_OK;
            }
            ++k;
            TRY_STAGE(run_entries(w, ops, table, it, most, e, count, &k, set, &out, st));
        }
        ++*iterations;
    }
    return CTN_OK;
}

/* One RATTLE substep of length prm->h from x_n, v_n with the kept rows and factor of x_n (kernels/ctn_rattle.h),
 * as the backend's tables CTN_TABLE_RATTLE_*; vel: the velocity stage's parameters (Baumgarte with beta 0:
 * target J v = 0). A position stage whose chord iteration stalls (the links turn too far over the substep for
 * the rows of x_n to model those of x_{n+1}) goes on with Newton iterations on a long chain, and is otherwise
 * undone and the substep runs as two of half the length, down to CTN_RATTLE_SPLITS halvings: the factor of x_n
 * does not depend on the length, so the first half starts at once (each half has its own velocity stage).
 * Below that the Newton projection finishes the position stage (ctn_step_stats.projections). */
static ctn_status rattle_substep(ctn_world *w, const ctn_stage_ops *ops, const ctn_step_params *prm, const ctn_step_params *vel,
                                 int depth, ctn_step_stats *st) {
    ctn_step_params half = *prm, rows = *vel;
    half.h = 0.5f * prm->h;
    rows.h = prm->h;
    stage_params set = {{prm, &half, vel, &rows}};
    _Static_assert(CTN_PRM_STEP == 0 && CTN_PRM_HALF == 1 && CTN_PRM_VEL == 2 && CTN_PRM_ROWS == 3, "the sets in ctn_stage_prm's order");
    TRY_STAGE(run_table(w, ops, CTN_TABLE_RATTLE_START, 0, 1, &set, NULL, st));
    int done = 0, iterations = 0, refactored = 0;
    TRY_STAGE(rattle_iterate(w, ops, CTN_TABLE_RATTLE_CHORD, &set, &done, &iterations, st));
    st->position_iterations += iterations;
    if (!done && w->topo.joint_count > CTN_RATTLE_CHORD_JOINTS) {
        TRY_STAGE(rattle_iterate(w, ops, CTN_TABLE_RATTLE_NEWTON, &set, &done, &iterations, st));
        st->newton_steps += iterations;
        refactored = 1;
    }
    if (!done && depth < CTN_RATTLE_SPLITS) {
        /* Newton left the factor of its iterate: that of x_n again, the same bits as the velocity stage's */
        TRY_STAGE(run_table(w, ops, CTN_TABLE_RATTLE_UNDO, refactored, 1, &set, NULL, st));
        st->splits++;
        TRY_STAGE(rattle_substep(w, ops, &half, vel, depth + 1, st));
        return rattle_substep(w, ops, &half, vel, depth + 1, st);
    }
    /* not converged: the projection finishes the position stage; its metric is the implicit step's
     * (project_positions): M plus the geometric-stiffness inertia of this stage's impulses, formed in the
     * momentum table for its first Newton step, which would otherwise take the plain inertia RATTLE_MOMENTUM left
     * on a backend whose first step reads the metric as it finds it (OpenCL; on chain:10000 that step ended above
     * the tolerance and the substeps after it stalled) */
    ctn_stage_out enter = {0};
    TRY_STAGE(run_table(w, ops, CTN_TABLE_RATTLE_MOMENTUM, !done, 1, &set, &enter, st));
    if (!done) {
        int measured = 0;
        TRY_STAGE(project_positions(w, ops, prm, &enter, 1, &measured, st));
        st->projections++;
    }
    return run_table(w, ops, CTN_TABLE_RATTLE_END, 0, 1, &set, NULL, st);
}

static ctn_status run_rattle(ctn_world *w, const ctn_stage_ops *ops, const ctn_step_params *prm, ctn_step_stats *st) {
    ctn_step_params vel = *prm;
    vel.stabilization = 1, vel.baumgarte = 0.0f, vel.warm_start = 0.0f, vel.geometric_stiffness = 0.0f;
    stage_params set = {{prm, prm, &vel, &vel}};
    ctn_stage_out enter = {0};
    TRY_STAGE(run_table(w, ops, CTN_TABLE_RATTLE_ENTER, 0, 1, &set, &enter, st));
    if (!enter.deferred) { /* no rows and factor of these poses yet (first step, edited state): made here, the
                            * same bits as a velocity stage would have left, so a reloaded checkpoint steps on alike */
        TRY_STAGE(run_table(w, ops, CTN_TABLE_RATTLE_FIRST, 0, 1, &set, NULL, st));
    }
    /* substeps short enough that no body turns by more than CTN_RATTLE_TURN in one (the chord's model) */
    int n = ctn__substeps(w);
    double turn = w->desc.time_step / n * enter.max_speed;
    double want = ceil(n * turn / CTN_RATTLE_TURN); /* compared before the conversion: an infinite speed is capped */
    int more = turn > CTN_RATTLE_TURN ? (want < CTN_RATTLE_SUBSTEPS ? (int)want : CTN_RATTLE_SUBSTEPS) : n;
    if (more > n) {
        ctn_step_params p = *prm;
        p.h = (float)(w->desc.time_step / more);
        n = more;
        for (int sub = 0; sub < n; ++sub) TRY_STAGE(rattle_substep(w, ops, &p, &vel, 0, st));
    } else {
        for (int sub = 0; sub < n; ++sub) TRY_STAGE(rattle_substep(w, ops, prm, &vel, 0, st));
    }
    st->rattle_substeps = n;
    return CTN_OK;
}

static ctn_status run_step(ctn_world *w, const ctn_stage_ops *ops, ctn_step_stats *st) {
    TRY_STAGE(ops->begin(w)); /* may turn an auto DIRECT down to GS: the parameters follow */
    ctn_step_params prm = ctn__step_params(w);
    char why[sizeof st->integrator_reason];
    const char *refusal = rattle_refusal(w, ops, why, sizeof why);
    st->integrator = refusal ? CTN_INTEGRATOR_VELOCITY : CTN_INTEGRATOR_RATTLE;
    snprintf(st->integrator_reason, sizeof st->integrator_reason, "%s",
             refusal ? refusal : "rattle: rigid bilateral joints, all in the exact solve");
    if (!refusal) {
        TRY_STAGE(run_rattle(w, ops, &prm, st));
    }
    int projected = refusal && ctn__substep_projects(w, 0, 1), measured = 0;
    if (refusal) {
        ctn_stage_out enter = {0};
        TRY_STAGE(run_substeps(w, ops, &prm, &enter, st)); /* the last one's table ends with PROJECT_ENTER */
        if (projected) {
            ops->timer(w, CTN_TIMER_SOLVE, st);
            TRY_STAGE(project_positions(w, ops, &prm, &enter, 0, &measured, st));
        }
    }
    /* the step's last table: MEASURE, after the velocity step's projection PROJECT_LEAVE first (or fused) */
    ctn_stage_entry e[CTN_SUBSTEP_ENTRIES_MAX] = {{CTN_STAGE_MEASURE, CTN_TIMER_NONE, ctn__stage_whole(CTN_STAGE_MEASURE), CTN_PRM_STEP}};
    int count = projected ? ctn__stage_plan(w, ops, &prm, CTN_TABLE_MEASURE, measured, 1, e) : 1;
    ctn_stage_out m = {0};
    m.bad_body = m.bad_joint = -1;
    for (int k = 0; k < count; ++k) {
        trace(w, CTN_TABLE_MEASURE, projected ? measured : -1, 1, k, &e[k]); /* sub -1: MEASURE alone, no table planned */
        ops->timer(w, e[k].timer, st);
        TRY_STAGE(ops->run(w, &e[k], &prm, &m));
    }
    ops->timer(w, CTN_TIMER_NONE, st);
    st->residual = w->topo.row_count ? sqrt(m.r2 / w->topo.row_count) : 0.0;
    st->max_gap = m.max_gap;
    st->max_angle = m.max_angle;
    st->max_speed = m.max_speed;
    return check_divergence(w, ops, &m, st);
}

/* With attachments (host/core/attach.c) the step runs on the composite bodies: the masters are turned into
 * them and the attached bodies set aside on the host before the backend's first stage, and the user state
 * is derived back after its last; after a step that failed, the masters, the attached bodies and the cache
 * go back as they were before the conversion (an undone step leaves the state it started from bit for bit). On
 * the OpenCL backend this costs one download and one upload of the bodies per step. */
ctn_status ctn__pipeline_step(ctn_world *w, ctn_step_stats *st) {
    const ctn_stage_ops *ops = w->backend->stages;
    int attached = w->attach && w->attach->link_count > 0;
    if (attached) {
        ctn_status s0 = ctn__sync(w);
        if (s0 != CTN_OK) return s0;
        ctn__attach_enter(w);
    }
    ctn_status s = run_step(w, ops, st);
    ops->timer(w, CTN_TIMER_NONE, st);
    s = ops->end(w, s, st);
    if (attached) {
        ctn_status s2 = ctn__sync(w);
        ctn__attach_leave(w, s != CTN_OK || s2 != CTN_OK);
        if (s == CTN_OK) s = s2;
    }
    return s;
}
