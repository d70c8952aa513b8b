/* The stage table of each backend (host/solve/pipeline.h, ctn_stage_ops.plan): what the driver runs in a
 * substep, in order, with the stages each fused entry covers, for a few configurations. The CPU runs the
 * pipeline's order one stage per entry (ctn__substep_plan); the OpenCL backend fuses neighbours into one
 * launch (ctn__ocl_plan). Both cover the same stages in the same order: a fused stage is never dropped or
 * moved past a stage it does not join. Each table is printed, and the step it belongs to is run.
 * Then the trace: steps of the velocity step and of RATTLE run with the driver's record of the entries it takes
 * (ctn_world.stage_trace) and the backend's record of what it is asked to run, and every run is checked to be an
 * entry of a declared table (the backend's plan, re-planned here) with the parameter set the entry names, the
 * scratch velocities at rest before a projection step's rows and solve, the projection entered before its steps,
 * and a MEASURE that reuses joint errors only right after the CHORD_ROWS that measured them; RATTLE's tables run
 * on chain:10 are the same sequence with the same stages on both backends.
 *
 * Usage: test_stage_table   (the OpenCL tables are skipped, said so, without an OpenCL device) */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "check.h"
#include "opencl_lsan.h"
#include "ctn_solver.h" /* CTN_PROJECT_MAX */
#include "solve/pipeline.h"

#include <stdlib.h>
#include <string.h>

/* "PREPARE WARM_START[FORCES+WARM_START] ...": an entry that covers its stage whole (ctn__stage_whole) by its
 * name, any other with the stages it covers in the pipeline's order (SOLVE[SOLVE]: the solve without its last
 * velocity update, which the integration's entry covers). */
static void describe(const ctn_stage_entry *e, int count, char *buf, size_t size) {
    static const char *const sets[CTN_PRM_COUNT] = {"", "/half", "/vel", "/rows"}; /* ctn_stage_prm, CTN_PRM_STEP unnamed */
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < count && len < size; ++k) {
        len += (size_t)snprintf(buf + len, size - len, "%s%s%s", k ? " " : "", ctn__stage_name(e[k].stage),
                                e[k].prm >= 0 && e[k].prm < CTN_PRM_COUNT ? sets[e[k].prm] : "/?");
        if (e[k].covers == ctn__stage_whole(e[k].stage)) continue;
        const char *sep = "[";
        for (int s = 0; s < CTN_STAGE_COUNT && len < size; ++s)
            if (e[k].covers & CTN_STAGE_BIT(s)) len += (size_t)snprintf(buf + len, size - len, "%s%s", sep, ctn__stage_name((ctn_stage)s)), sep = "+";
        if (len < size) len += (size_t)snprintf(buf + len, size - len, "]");
    }
}

typedef struct config {
    const char *name;
    ctn_solver solver;
    int substeps;
    double geometric_stiffness;
    const char *cpu[3];    /* substep 0, 1, 2 */
    const char *opencl[3]; /* substep 0, 1, 2 */
    const char *project[2]; /* OpenCL: the projection's Newton step and check, decided on the device */
    const char *host[5];    /* CPU: the Newton step, its check, a chord step, the last, one after a chord step (host decides) */
    int forest;             /* desc.debug.direct_forest = 1: the chain on OpenCL's forest path */
} config;

#define PLAIN "PREPARE FORCES WARM_START SOLVE INTEGRATE"
#define GEOM "GEOMETRIC_INERTIA PREPARE FORCES WARM_START SOLVE INTEGRATE"
#define CL_WARM "WARM_START[FORCES+WARM_START]"
/* OpenCL's exact solver: its substeps' solves leave the residual to the projection's first rows launch (only
 * the last substep's is read); on the chain path (chain:8) the solve also leaves its last velocity update to
 * the integration's launch (SOLVE[SOLVE], INTEGRATE[VELOCITIES+...]) and a Newton step's rows are built by
 * the solve's assembly (SOLVE[PREPARE+...+PROJECT_ROWS+...]); on the forest path neither */
#define CL_REST "PROJECT_REST[PROJECT_REST]" /* the impulses; the entry before put the velocities at rest */
#define CL_ROWS CL_REST " PREPARE[PREPARE+PROJECT_ROWS]"
#define CL_FIRST_ROWS CL_REST " PREPARE[PREPARE+RESIDUAL+PROJECT_ROWS]"
#define CL_CHAIN_STEP CL_REST " SOLVE[PREPARE+SOLVE+RESIDUAL+PROJECT_ROWS+PROJECT_DECIDE]"
#define CL_SOLVE "SOLVE[SOLVE+VELOCITIES+PROJECT_DECIDE]"
#define CL_CHAIN_SOLVE "SOLVE[SOLVE]"
#define CL_FOREST_SOLVE "SOLVE[SOLVE+VELOCITIES]"
#define CL_MEASURE "MEASURE[PROJECT_DECIDE+POSES_UNDO+PROJECT_LEAVE+JOINT_ERRORS+MEASURE]"
/* the host-decided projection (the CPU's): a Newton step with and without geometric stiffness, its check, a
 * chord step (the last of CTN_PROJECT_MAX is a Newton step without POSES_KEEP: no decision follows it to undo
 * it), and one right after a chord step; on chain:8 the
 * chain path's chord solve moves the poses and leaves the scratch arrays at rest (cpu_plan), so it covers
 * INTEGRATE and the next step's PROJECT_REST */
#define CPU_DECIDE "PROJECT_DECIDE[PROJECT_DECIDE+POSES_UNDO]"
#define CPU_ROWS "PROJECT_REST PREPARE PROJECT_ROWS " CPU_DECIDE
#define CPU_SOLVE "SOLVE[SOLVE+VELOCITIES]" /* a projection's solve: not the step's residual */
#define CPU_STEP_GEOM CPU_ROWS " GEOMETRIC_INERTIA POSES_KEEP " CPU_SOLVE " INTEGRATE"
#define CPU_STEP CPU_ROWS " POSES_KEEP " CPU_SOLVE " INTEGRATE"
#define CPU_MOVE "CHORD_SOLVE[INTEGRATE+PROJECT_REST+REST_VELOCITIES+CHORD_SOLVE]"
#define CPU_CHORD "PROJECT_REST CHORD_ROWS " CPU_DECIDE " POSES_KEEP " CPU_MOVE
#define CPU_CHORD_NEXT "CHORD_ROWS " CPU_DECIDE " POSES_KEEP " CPU_MOVE
#define CPU_CHORD_LAST_GEOM "PROJECT_REST CHORD_ROWS " CPU_DECIDE " PREPARE GEOMETRIC_INERTIA " CPU_SOLVE " INTEGRATE"
#define CPU_CHORD_LAST "PROJECT_REST CHORD_ROWS " CPU_DECIDE " PREPARE " CPU_SOLVE " INTEGRATE"
static const config configs[] = {
    {"gs, 3 substeps", CTN_SOLVER_GS, 3, 0.0, {PLAIN, PLAIN, PLAIN},
     {"PREPARE " CL_WARM " SOLVE INTEGRATE", "PREPARE " CL_WARM " SOLVE INTEGRATE", "PREPARE " CL_WARM " SOLVE INTEGRATE"},
     {NULL, NULL}, {NULL}, 0},
    {"gs, geometric stiffness, 3 substeps", CTN_SOLVER_GS, 3, 1.0, {GEOM, GEOM, GEOM},
     {"PREPARE[GEOMETRIC_INERTIA+PREPARE] " CL_WARM " SOLVE INTEGRATE[GEOMETRIC_INERTIA+INTEGRATE]",
      "PREPARE " CL_WARM " SOLVE INTEGRATE[GEOMETRIC_INERTIA+INTEGRATE]", "PREPARE " CL_WARM " SOLVE INTEGRATE"},
     {NULL, NULL}, {NULL}, 0},
    {"jacobi, 3 substeps", CTN_SOLVER_JACOBI, 3, 0.0, {PLAIN, PLAIN, PLAIN},
     {"PREPARE " CL_WARM " SOLVE INTEGRATE", "PREPARE " CL_WARM " SOLVE INTEGRATE", "PREPARE " CL_WARM " SOLVE INTEGRATE"},
     {NULL, NULL}, {NULL}, 0},
    {"direct, geometric stiffness, 3 substeps", CTN_SOLVER_DIRECT, 3, 1.0, {GEOM, GEOM, GEOM " PROJECT_ENTER"},
     {"PREPARE[GEOMETRIC_INERTIA+PREPARE] " CL_WARM " " CL_CHAIN_SOLVE " INTEGRATE[GEOMETRIC_INERTIA+VELOCITIES+INTEGRATE]",
      "PREPARE " CL_WARM " " CL_CHAIN_SOLVE " INTEGRATE[GEOMETRIC_INERTIA+VELOCITIES+INTEGRATE]",
      "PREPARE " CL_WARM " " CL_CHAIN_SOLVE " INTEGRATE[VELOCITIES+INTEGRATE+PROJECT_ENTER+REST_VELOCITIES]"},
     {CL_CHAIN_STEP " INTEGRATE[GEOMETRIC_INERTIA+VELOCITIES+INTEGRATE+REST_VELOCITIES+POSES_KEEP+POSES_UNDO]", CL_ROWS},
     {CPU_STEP_GEOM, CPU_ROWS, CPU_CHORD, CPU_CHORD_LAST_GEOM, CPU_CHORD_NEXT}, 0},
    {"direct, 1 substep", CTN_SOLVER_DIRECT, 1, 0.0, {PLAIN " PROJECT_ENTER", NULL, NULL},
     {"PREPARE " CL_WARM " " CL_CHAIN_SOLVE " INTEGRATE[VELOCITIES+INTEGRATE+PROJECT_ENTER+REST_VELOCITIES]", NULL, NULL},
     {CL_CHAIN_STEP " INTEGRATE[VELOCITIES+INTEGRATE+REST_VELOCITIES+POSES_KEEP+POSES_UNDO]", CL_ROWS},
     {CPU_STEP, CPU_ROWS, CPU_CHORD, CPU_CHORD_LAST, CPU_CHORD_NEXT}, 0},
    {"direct, forest path, 1 substep", CTN_SOLVER_DIRECT, 1, 0.0, {PLAIN " PROJECT_ENTER", NULL, NULL},
     {"PREPARE " CL_WARM " " CL_FOREST_SOLVE " INTEGRATE[INTEGRATE+PROJECT_ENTER+REST_VELOCITIES]", NULL, NULL},
     {CL_FIRST_ROWS " " CL_SOLVE " INTEGRATE[INTEGRATE+REST_VELOCITIES+POSES_KEEP+POSES_UNDO]", CL_ROWS},
     {CPU_STEP, CPU_ROWS, CPU_CHORD, CPU_CHORD_LAST, CPU_CHORD_NEXT}, 1},
};

/* The stages an entry table covers, in the order they run (a fused entry's in the pipeline's order). */
static int flatten(const ctn_stage_entry *e, int count, ctn_stage *out) {
    int n = 0;
    for (int k = 0; k < count; ++k)
        for (int s = 0; s < CTN_STAGE_COUNT; ++s)
            if (e[k].covers & CTN_STAGE_BIT(s)) out[n++] = (ctn_stage)s;
    return n;
}

/* The stages a table covers, as a set. */
static uint64_t covered(const ctn_stage_entry *e, int count) {
    uint64_t all = 0;
    for (int k = 0; k < count; ++k) all |= e[k].covers;
    return all;
}

/* What the projection's step and check (with the step's last table) of each direct configuration cover on each
 * backend: the same stages, decided on the host or on the device. */
static uint64_t cover_cpu[8][2], cover_opencl[8][2];

_Static_assert(sizeof configs / sizeof configs[0] <= 8, "cover_cpu holds every configuration");

/* ---- the trace: what runs, against the declared tables --------------------------------------------------- */

typedef struct rec {
    int run;                 /* 1: the backend was asked to run e (ctn_stage_ops.run); 0: the driver took entry k of a table */
    int table, sub, n, k;    /* the driver's record */
    ctn_stage_entry e;
    ctn_step_params prm;     /* run: the parameters it ran with */
} rec;

#define RECS_MAX 200000
static rec *recs;
static int rec_count, rec_over;
static const ctn_stage_ops *real_ops;
static const ctn_backend_ops *real_backend;
static ctn_stage_ops traced_ops;
static ctn_backend_ops traced_backend;

static void on_trace(void *user, int table, int sub, int n, int k, const ctn_stage_entry *e) {
    (void)user;
    if (rec_count == RECS_MAX) {
        rec_over = 1;
        return;
    }
    recs[rec_count++] = (rec){.run = 0, .table = table, .sub = sub, .n = n, .k = k, .e = *e};
}

static ctn_status traced_run(ctn_world *w, const ctn_stage_entry *e, const ctn_step_params *prm, ctn_stage_out *out) {
    if (rec_count < RECS_MAX) recs[rec_count++] = (rec){.run = 1, .table = -1, .e = *e, .prm = *prm};
    else rec_over = 1;
    return real_ops->run(w, e, prm, out);
}

/* The world's backend with traced_run in its stages, and the driver's trace on. */
static void trace_on(ctn_world *w) {
    real_backend = w->backend;
    real_ops = w->backend->stages;
    traced_ops = *real_ops;
    traced_ops.run = traced_run;
    traced_backend = *w->backend;
    traced_backend.stages = &traced_ops;
    w->backend = &traced_backend;
    w->stage_trace = on_trace;
    rec_count = rec_over = 0;
}

static void trace_off(ctn_world *w) {
    w->backend = real_backend;
    w->stage_trace = NULL;
}

static int is_projection(int table) {
    return table == CTN_TABLE_PROJECT_STEP || table == CTN_TABLE_PROJECT_CHECK || table == CTN_TABLE_PROJECT_CHORD ||
           table == CTN_TABLE_PROJECT_CHORD_NEXT;
}

static int same_entry(const ctn_stage_entry *a, const ctn_stage_entry *b) {
    return a->stage == b->stage && a->covers == b->covers && a->timer == b->timer && a->prm == b->prm;
}

/* What the trace of the steps since trace_on saw, for the summary checks. */
typedef struct trace_seen {
    unsigned tables;    /* bit per ctn_stage_table */
    int reused;         /* MEASURE entries that took the joint errors of a CHORD_ROWS */
    int runs;
    char order[16384];   /* RATTLE's tables in order, with the stages each covered (the cross-backend comparison) */
    size_t order_len;
} trace_seen;

#define B(s) CTN_STAGE_BIT(CTN_STAGE_##s)

/* Checks the records of one or more steps of world w (what = the label) and adds to *seen. */
static void check_trace(const ctn_world *w, const char *what, trace_seen *seen) {
    CHECK(!rec_over, "%s: more than %d records", what, RECS_MAX);
    ctn_step_params step = ctn__step_params(w);
    ctn_stage_entry plan[CTN_SUBSTEP_ENTRIES_MAX];
    int count = 0, cur_table = -1, cur_k = -1, cur_first = 0;
    uint64_t host = 0, cur_cover = 0;
    int rest = 0, entered = 0, fresh = 0;
    for (int i = 0; i < rec_count; ++i) {
        const rec *r = &recs[i];
        if (!r->run) {
            if (r->k == 0) { /* a new instance of a table */
                if (cur_table >= CTN_TABLE_RATTLE_ENTER && seen->order_len < sizeof seen->order)
                    seen->order_len += (size_t)snprintf(seen->order + seen->order_len, sizeof seen->order - seen->order_len, "%s:%#llx ",
                                                        ctn__table_name((ctn_stage_table)cur_table),
                                                        (unsigned long long)(cur_cover & ~(B(REST_VELOCITIES) | B(RESIDUAL))));
                /* the one before ended with its last entry or at an entry the driver takes on the host */
                CHECK(cur_k < 0 || cur_k + 1 == count || plan[cur_k].stage == CTN_STAGE_PROJECT_DECIDE ||
                          plan[cur_k].stage == CTN_STAGE_RATTLE_DECIDE,
                      "%s: table %s left at entry %d of %d", what, ctn__table_name((ctn_stage_table)cur_table), cur_k, count);
                cur_table = r->table, cur_k = -1, cur_cover = 0, cur_first = i;
                if (r->sub < 0) { /* MEASURE alone, no table planned (a step not projected) */
                    plan[0] = (ctn_stage_entry){CTN_STAGE_MEASURE, CTN_TIMER_NONE, ctn__stage_whole(CTN_STAGE_MEASURE), CTN_PRM_STEP};
                    count = 1;
                } else {
                    count = ctn__stage_plan(w, real_ops, &step, (ctn_stage_table)r->table, r->sub, r->n, plan);
                }
                if (r->table >= 0 && r->table < 32) seen->tables |= 1u << r->table;
            }
            CHECK(r->table == cur_table && r->k == cur_k + 1 && r->k < count && same_entry(&r->e, &plan[r->k]),
                  "%s: record %d, entry %d of table %s (%s) is not the declared one", what, i, r->k, ctn__table_name((ctn_stage_table)r->table),
                  ctn__stage_name(r->e.stage));
            cur_k = r->k;
            cur_cover |= r->e.covers;
            int on_host = r->e.stage == CTN_STAGE_PROJECT_DECIDE || r->e.stage == CTN_STAGE_RATTLE_DECIDE;
            host = on_host ? r->e.covers : 0;
            /* an entry the backend runs is run next, as declared */
            CHECK(on_host || (i + 1 < rec_count && recs[i + 1].run && same_entry(&recs[i + 1].e, &r->e)), "%s: entry %s of %s did not run",
                  what, ctn__stage_name(r->e.stage), ctn__table_name((ctn_stage_table)r->table));
            continue;
        }
        /* a run: the entry announced just before, or a stage the host entry before it covers (its undo) */
        int announced = i > 0 && !recs[i - 1].run && same_entry(&recs[i - 1].e, &r->e);
        CHECK(announced || (host & CTN_STAGE_BIT(r->e.stage)), "%s: %s ran outside the declared tables", what, ctn__stage_name(r->e.stage));
        if (announced) { /* the parameter set the entry names */
            const ctn_step_params *p = &r->prm;
            if (r->e.prm == CTN_PRM_VEL || r->e.prm == CTN_PRM_ROWS)
                CHECK(p->baumgarte == 0.0f && p->warm_start == 0.0f && p->geometric_stiffness == 0.0f, "%s: %s/vel ran with beta %g",
                      what, ctn__stage_name(r->e.stage), p->baumgarte);
            for (int j = cur_first; j < rec_count && (j == cur_first || recs[j].run || recs[j].k > 0); ++j) {
                if (!recs[j].run || recs[j].e.prm != CTN_PRM_STEP) continue; /* the table's own set: h of the (sub)substep */
                if (r->e.prm == CTN_PRM_HALF) CHECK(p->h == 0.5f * recs[j].prm.h, "%s: a half kick of h %g in a substep of %g", what, p->h, recs[j].prm.h);
                if (r->e.prm == CTN_PRM_ROWS) CHECK(p->h == recs[j].prm.h, "%s: Newton rows of h %g in a substep of %g", what, p->h, recs[j].prm.h);
                break;
            }
        }
        uint64_t c = r->e.covers;
        int projecting = announced && is_projection(cur_table);
        seen->runs++;
        /* the projection: entered (PROJECT_ENTER) before its steps, its scratch velocities at rest (REST_VELOCITIES,
         * on the CPU in PROJECT_REST, on OpenCL in the entry before) before a step's rows and solve */
        if (c & B(PROJECT_ENTER)) {
            CHECK(!entered, "%s: the projection entered twice", what);
            entered = 1;
        }
        if (projecting) CHECK(entered, "%s: %s of a projection step before PROJECT_ENTER", what, ctn__stage_name(r->e.stage));
        if (projecting && (c & (B(PROJECT_ROWS) | B(CHORD_ROWS) | B(SOLVE) | B(CHORD_SOLVE))))
            CHECK(rest, "%s: %s of a projection step with scratch velocities not at rest", what, ctn__stage_name(r->e.stage));
        if (c & (B(SOLVE) | B(VELOCITIES) | B(CHORD_SOLVE) | B(RATTLE_RESOLVE) | B(FORCES))) rest = 0;
        if (c & B(REST_VELOCITIES)) rest = 1;
        if (c & B(PROJECT_LEAVE)) entered = 0;
        /* joint errors: a MEASURE that does not cover them takes those of the last CHORD_ROWS, at the same poses */
        if (c & (B(INTEGRATE) | B(POSES_UNDO) | B(RATTLE_DRIFT) | B(RATTLE_UNDO) | B(ASSEMBLE_GATHER))) fresh = 0;
        if (r->e.stage == CTN_STAGE_MEASURE && !(c & B(JOINT_ERRORS))) {
            CHECK(fresh, "%s: MEASURE reused joint errors of other poses", what);
            seen->reused++;
        }
        if (c & B(JOINT_ERRORS)) fresh = 1;
    }
    CHECK(!entered, "%s: the step ended inside the projection", what);
    rec_count = 0;
}
#undef B

/* Steps `steps` times scene `spec` with the trace on, checking each step. */
static void trace_steps(ctn_backend backend, const char *label, const char *spec, ctn_integrator integ, int substeps, int steps,
                        trace_seen *seen) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = backend;
    d.solver = CTN_SOLVER_DIRECT;
    d.integrator = integ;
    d.substeps = substeps;
    ctn_world *w = NULL;
    char err[2048], what[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    if (!w) return;
    CHECK(ctn_scene_from_spec(w, spec) == CTN_OK, "%s", ctn_world_last_error(w));
    trace_on(w);
    ctn_step_stats sum = {0};
    for (int s = 0; s < steps; ++s) {
        snprintf(what, sizeof what, "%s %s %s:%d step %d", label, spec, integ == CTN_INTEGRATOR_RATTLE ? "rattle" : "velocity", substeps, s);
        CHECK(ctn_world_step(w) == CTN_OK, "%s: %s", what, ctn_world_last_error(w));
        check_trace(w, what, seen);
        ctn_step_stats st;
        ctn_world_get_stats(w, &st);
        sum.splits += st.splits, sum.projections += st.projections, sum.newton_steps += st.newton_steps;
        sum.projection_chords += st.projection_chords;
    }
    printf("%-6s trace %-10s %s:%d, %d steps: splits %d, projections %d, Newton %d, chord steps %d, MEASURE reusing chord errors %d\n", label,
           spec, integ == CTN_INTEGRATOR_RATTLE ? "rattle" : "velocity", substeps, steps, sum.splits, sum.projections, sum.newton_steps,
           sum.projection_chords, seen->reused);
    trace_off(w);
    ctn_world_destroy(w);
}

static void check_backend(ctn_backend backend, const char *label) {
    for (size_t c = 0; c < sizeof configs / sizeof configs[0]; ++c) {
        const config *cf = &configs[c];
        ctn_world_desc d = ctn_world_desc_default();
        d.backend = backend;
        d.solver = cf->solver;
        d.substeps = cf->substeps;
        d.geometric_stiffness = cf->geometric_stiffness;
        d.integrator = CTN_INTEGRATOR_VELOCITY; /* the substep table (RATTLE has stages of its own) */
        d.debug.direct_forest = cf->forest;
        ctn_world *w = NULL;
        char err[2048];
        CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
        if (!w) continue;
        CHECK(ctn_scene_from_spec(w, "chain:8") == CTN_OK, "%s", ctn_world_last_error(w));
        CHECK(ctn_world_step(w) == CTN_OK, "%s %s: %s", label, cf->name, ctn_world_last_error(w));
        const ctn_stage_ops *ops = w->backend->stages;
        ctn_step_params prm = ctn__step_params(w);
        int n = ctn__substeps(w);
        CHECK(n == cf->substeps, "%s %s: %d substeps", label, cf->name, n);
        ctn_stage unfused_all[64], fused_all[64];
        int unfused_n = 0, fused_n = 0;
        for (int sub = 0; sub < n && sub < 3; ++sub) {
            ctn_stage_entry e[CTN_SUBSTEP_ENTRIES_MAX], u[CTN_SUBSTEP_ENTRIES_MAX];
            int count = ctn__stage_plan(w, ops, &prm, CTN_TABLE_SUBSTEP, sub, n, e);
            char got[512];
            describe(e, count, got, sizeof got);
            printf("%-6s %-40s substep %d: %s\n", label, cf->name, sub, got);
            const char *want = backend == CTN_BACKEND_CPU ? cf->cpu[sub] : cf->opencl[sub];
            CHECK(want && !strcmp(got, want), "%s %s substep %d: %s, expected %s", label, cf->name, sub, got, want ? want : "none");
            for (int k = 0; k < count; ++k)
                CHECK(e[k].covers & CTN_STAGE_BIT(e[k].stage), "%s %s: entry %s does not cover its own stage", label, cf->name,
                      ctn__stage_name(e[k].stage));
            fused_n += flatten(e, count, fused_all + fused_n);
            unfused_n += flatten(u, ctn__substep_plan(w, &prm, CTN_TABLE_SUBSTEP, sub, n, u), unfused_all + unfused_n);
        }
        /* the same stages in the same order as the unfused table, but for the geometric-stiffness inertia, which a
         * fused table may form at the end of the substep before (same poses, same impulses): as many of them,
         * and the projection's entry that ends the last substep (PROJECT_ENTER, with OpenCL's rest velocities) */
        int same = 1, gi_fused = 0, gi_unfused = 0, i = 0, j = 0;
        for (;;) { /* (and the residual, which the exact solver on OpenCL leaves to the projection's first rows) */
            while (i < unfused_n && (unfused_all[i] == CTN_STAGE_GEOMETRIC_INERTIA || unfused_all[i] == CTN_STAGE_PROJECT_ENTER ||
                                     unfused_all[i] == CTN_STAGE_RESIDUAL))
                gi_unfused += unfused_all[i++] == CTN_STAGE_GEOMETRIC_INERTIA;
            while (j < fused_n && (fused_all[j] == CTN_STAGE_GEOMETRIC_INERTIA || fused_all[j] == CTN_STAGE_PROJECT_ENTER ||
                                   fused_all[j] == CTN_STAGE_RESIDUAL || fused_all[j] == CTN_STAGE_REST_VELOCITIES))
                gi_fused += fused_all[j++] == CTN_STAGE_GEOMETRIC_INERTIA;
            if (i == unfused_n || j == fused_n) break;
            if (unfused_all[i++] != fused_all[j++]) same = 0;
        }
        same = same && i == unfused_n && j == fused_n && gi_fused == gi_unfused;
        CHECK(same, "%s %s: the table covers other stages than the pipeline's order", label, cf->name);
        if (cf->solver == CTN_SOLVER_DIRECT) { /* the step's last table after the projection */
            ctn_stage_entry e[CTN_SUBSTEP_ENTRIES_MAX];
            char got[512];
            describe(e, ctn__stage_plan(w, ops, &prm, CTN_TABLE_MEASURE, 0, 1, e), got, sizeof got);
            printf("%-6s %-40s measure: %s\n", label, cf->name, got);
            const char *want = backend == CTN_BACKEND_CPU ? "PROJECT_LEAVE MEASURE" : CL_MEASURE;
            CHECK(!strcmp(got, want), "%s %s measure table: %s, expected %s", label, cf->name, got, want);
        }
        if (cf->project[0]) { /* the projection's tables (project_steps): the device's, or the host's */
            ctn_step_params p = prm;
            p.stabilization = 1, p.baumgarte = 1.0f, p.warm_start = 0.0f;
            static const ctn_stage_table tables[5] = {CTN_TABLE_PROJECT_STEP, CTN_TABLE_PROJECT_CHECK, CTN_TABLE_PROJECT_CHORD,
                                                      CTN_TABLE_PROJECT_CHORD, CTN_TABLE_PROJECT_CHORD_NEXT};
            static const char *const names[5] = {"step ", "check", "chord", "chord, last", "chord, next"};
            int cpu = backend == CTN_BACKEND_CPU;
            for (int t = 0; t < (cpu ? 5 : 2); ++t) {
                ctn_stage_entry e[CTN_SUBSTEP_ENTRIES_MAX];
                /* the first step, the check after it, the last chord step of CTN_PROJECT_MAX */
                int sub = t == 3 ? CTN_PROJECT_MAX - 1 : t == 1, count = ctn__stage_plan(w, ops, &p, tables[t], sub, cpu ? CTN_PROJECT_MAX : 1, e);
                char got[512];
                describe(e, count, got, sizeof got);
                printf("%-6s %-40s projection %s: %s\n", label, cf->name, names[t], got);
                const char *want = cpu ? cf->host[t] : cf->project[t];
                CHECK(!strcmp(got, want), "%s %s projection %s: %s, expected %s", label, cf->name, names[t], got, want);
                uint64_t all = covered(e, count);
                if (t == 1) { /* the check with the step's last table, which finishes it on the device */
                    ctn_stage_entry m[CTN_SUBSTEP_ENTRIES_MAX];
                    all |= covered(m, ctn__stage_plan(w, ops, &prm, CTN_TABLE_MEASURE, 0, 1, m));
                }
                all &= ~CTN_STAGE_BIT(CTN_STAGE_RESIDUAL); /* the CPU's is its last substep's solve's, OpenCL's here */
                /* the scratch velocities at rest: the CPU's PROJECT_REST, on OpenCL the entry before (the trace checks the order) */
                all &= ~CTN_STAGE_BIT(CTN_STAGE_REST_VELOCITIES);
                if (t < 2 && !cpu) cover_opencl[c][t] = all;
                if (t < 2 && cpu) cover_cpu[c][t] = all;
            }
        }
        /* a step under the trace: what runs is what these tables say */
        trace_seen seen = {0};
        char what[256];
        snprintf(what, sizeof what, "%s %s, traced step", label, cf->name);
        trace_on(w);
        CHECK(ctn_world_step(w) == CTN_OK, "%s: %s", what, ctn_world_last_error(w));
        check_trace(w, what, &seen);
        trace_off(w);
        CHECK(seen.runs > 0, "%s: nothing ran", what);
        ctn_world_destroy(w);
    }
}

static int have_opencl(void) {
    int count = 0;
    char err[256];
    ctn_device_info dev[4];
    return ctn_list_devices(dev, 4, &count, err, sizeof err) == CTN_OK && count > 0;
}

/* RATTLE's tables (run_rattle) as a backend declares them: printed, and traced through steps that take each of
 * them (bridge:40 splits its substeps and finishes position stages by the projection, chain:150 takes Newton
 * iterations); the order and stages of the tables run on chain:10 (*order) are compared across backends. */
static void check_rattle(ctn_backend backend, const char *label, trace_seen *order) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = backend;
    d.solver = CTN_SOLVER_DIRECT;
    ctn_world *w = NULL;
    char err[2048];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    if (!w) return;
    CHECK(ctn_scene_from_spec(w, "chain:8") == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_step_params prm = ctn__step_params(w);
    for (int t = CTN_TABLE_RATTLE_ENTER; t < CTN_TABLE_COUNT; ++t)
        for (int sub = 0; sub < 2; ++sub) {
            if (sub && t != CTN_TABLE_RATTLE_UNDO && t != CTN_TABLE_RATTLE_MOMENTUM) continue;
            ctn_stage_entry e[CTN_SUBSTEP_ENTRIES_MAX];
            char got[512];
            int count = ctn__stage_plan(w, w->backend->stages, &prm, (ctn_stage_table)t, sub, 1, e);
            describe(e, count, got, sizeof got);
            printf("%-6s rattle %-16s sub %d: %s\n", label, ctn__table_name((ctn_stage_table)t), sub, got);
            CHECK(count > 0, "%s: table %s is empty", label, ctn__table_name((ctn_stage_table)t));
        }
    ctn_world_destroy(w);
    trace_seen seen = {0};
    trace_steps(backend, label, "chain:10", CTN_INTEGRATOR_RATTLE, 2, 3, order);
    trace_steps(backend, label, "bridge:40", CTN_INTEGRATOR_RATTLE, 1, 6, &seen);
    trace_steps(backend, label, "chain:150", CTN_INTEGRATOR_RATTLE, 1, 12, &seen);
    seen.tables |= order->tables;
    for (int t = CTN_TABLE_RATTLE_ENTER; t < CTN_TABLE_COUNT; ++t) /* (FIRST: the first step of each world) */
        CHECK(seen.tables & (1u << t), "%s: RATTLE's table %s never ran in the traced steps", label, ctn__table_name((ctn_stage_table)t));
    CHECK(order->order_len > 0 && order->order_len < sizeof order->order - 64, "%s: chain:10's tables: %zu characters", label, order->order_len);
    /* the velocity step's projection with chord steps ending on their rows: MEASURE takes their joint errors (CPU),
     * and with Newton steps only (bridge:40's loop): it measures them */
    trace_seen vel = {0};
    trace_steps(backend, label, "chain:8", CTN_INTEGRATOR_VELOCITY, 1, 10, &vel);
    trace_steps(backend, label, "bridge:40", CTN_INTEGRATOR_VELOCITY, 2, 4, &vel); /* a loop: Newton steps only */
    if (backend == CTN_BACKEND_CPU) CHECK(vel.reused > 0, "%s: no MEASURE took the joint errors of a chord step's rows", label);
    else CHECK(vel.reused == 0, "%s: a MEASURE without joint errors on a backend without chord steps", label);
}

int main(void) {
    recs = malloc(RECS_MAX * sizeof *recs);
    if (!recs) return 1;
    check_backend(CTN_BACKEND_CPU, "cpu");
    static trace_seen order_cpu, order_opencl;
    check_rattle(CTN_BACKEND_CPU, "cpu", &order_cpu);
    if (have_opencl()) {
        check_backend(CTN_BACKEND_OPENCL, "opencl");
        check_rattle(CTN_BACKEND_OPENCL, "opencl", &order_opencl);
        /* one algorithm: the same RATTLE tables in the same order, covering the same stages (the scratch velocities'
         * rest and the residual masked: where each backend puts them) */
        CHECK(!strcmp(order_cpu.order, order_opencl.order), "chain:10 under RATTLE runs other tables on the two backends:\ncpu    %s\nopencl %s",
              order_cpu.order, order_opencl.order);
        for (size_t c = 0; c < sizeof configs / sizeof configs[0]; ++c) /* one algorithm: the same stages on both */
            for (int t = 0; t < 2 && configs[c].project[0]; ++t)
                CHECK(cover_cpu[c][t] && cover_cpu[c][t] == cover_opencl[c][t], "%s, projection %s: the CPU covers %#llx, OpenCL %#llx",
                      configs[c].name, t ? "check" : "step", (unsigned long long)cover_cpu[c][t], (unsigned long long)cover_opencl[c][t]);
    } else {
        printf("test_stage_table: no OpenCL platform or device, the OpenCL tables skipped\n");
    }
    free(recs);
    return check_report("stage_table");
}
