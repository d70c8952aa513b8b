/* The stage table of each backend (host/solve/pipeline.h, ctn_stage_ops.plan): what the driver runs in a
 * substep, in order, with the stages each fused entry covers, for a few configurations. The CPU runs the
 * pipeline's order one stage per entry (ctn__substep_plan); the OpenCL backend fuses neighbours into one
 * launch (ctn__ocl_plan). Both cover the same stages in the same order: a fused stage is never dropped or
 * moved past a stage it does not join. Each table is printed, and the step it belongs to is run.
 *
 * Usage: test_stage_table   (the OpenCL tables are skipped, said so, without an OpenCL device) */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "check.h"
#include "opencl_lsan.h"
#include "ctn_solver.h" /* CTN_PROJECT_MAX */
#include "solve/pipeline.h"

#include <string.h>

/* "PREPARE WARM_START[FORCES+WARM_START] ...": an entry that covers its stage whole (ctn__stage_whole) by its
 * name, any other with the stages it covers in the pipeline's order (SOLVE[SOLVE]: the solve without its last
 * velocity update, which the integration's entry covers). */
static void describe(const ctn_stage_entry *e, int count, char *buf, size_t size) {
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < count && len < size; ++k) {
        len += (size_t)snprintf(buf + len, size - len, "%s%s", k ? " " : "", ctn__stage_name(e[k].stage));
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
#define CL_ROWS "PROJECT_REST PREPARE[PREPARE+PROJECT_ROWS]"
#define CL_FIRST_ROWS "PROJECT_REST PREPARE[PREPARE+RESIDUAL+PROJECT_ROWS]"
#define CL_CHAIN_STEP "PROJECT_REST SOLVE[PREPARE+SOLVE+RESIDUAL+PROJECT_ROWS+PROJECT_DECIDE]"
#define CL_SOLVE "SOLVE[SOLVE+VELOCITIES+PROJECT_DECIDE]"
#define CL_CHAIN_SOLVE "SOLVE[SOLVE]"
#define CL_FOREST_SOLVE "SOLVE[SOLVE+VELOCITIES]"
#define CL_MEASURE "MEASURE[PROJECT_DECIDE+POSES_UNDO+PROJECT_LEAVE+MEASURE]"
/* the host-decided projection (the CPU's): a Newton step with and without geometric stiffness, its check, a
 * chord step (the last of CTN_PROJECT_MAX is a Newton step), and one right after a chord step; on chain:8 the
 * chain path's chord solve moves the poses and leaves the scratch arrays at rest (cpu_plan), so it covers
 * INTEGRATE and the next step's PROJECT_REST */
#define CPU_DECIDE "PROJECT_DECIDE[PROJECT_DECIDE+POSES_UNDO]"
#define CPU_ROWS "PROJECT_REST PREPARE PROJECT_ROWS " CPU_DECIDE
#define CPU_SOLVE "SOLVE[SOLVE+VELOCITIES]" /* a projection's solve: not the step's residual */
#define CPU_STEP_GEOM CPU_ROWS " GEOMETRIC_INERTIA POSES_KEEP " CPU_SOLVE " INTEGRATE"
#define CPU_STEP CPU_ROWS " POSES_KEEP " CPU_SOLVE " INTEGRATE"
#define CPU_MOVE "CHORD_SOLVE[INTEGRATE+PROJECT_REST+CHORD_SOLVE]"
#define CPU_CHORD "PROJECT_REST CHORD_ROWS " CPU_DECIDE " POSES_KEEP " CPU_MOVE
#define CPU_CHORD_NEXT "CHORD_ROWS " CPU_DECIDE " POSES_KEEP " CPU_MOVE
#define CPU_CHORD_LAST_GEOM "PROJECT_REST CHORD_ROWS " CPU_DECIDE " POSES_KEEP PREPARE GEOMETRIC_INERTIA " CPU_SOLVE " INTEGRATE"
#define CPU_CHORD_LAST "PROJECT_REST CHORD_ROWS " CPU_DECIDE " POSES_KEEP PREPARE " CPU_SOLVE " INTEGRATE"
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
    {"direct, geometric stiffness, 3 substeps", CTN_SOLVER_DIRECT, 3, 1.0, {GEOM, GEOM, GEOM},
     {"PREPARE[GEOMETRIC_INERTIA+PREPARE] " CL_WARM " " CL_CHAIN_SOLVE " INTEGRATE[GEOMETRIC_INERTIA+VELOCITIES+INTEGRATE]",
      "PREPARE " CL_WARM " " CL_CHAIN_SOLVE " INTEGRATE[GEOMETRIC_INERTIA+VELOCITIES+INTEGRATE]",
      "PREPARE " CL_WARM " " CL_CHAIN_SOLVE " INTEGRATE[VELOCITIES+INTEGRATE+PROJECT_ENTER]"},
     {CL_CHAIN_STEP " INTEGRATE[GEOMETRIC_INERTIA+VELOCITIES+INTEGRATE+POSES_KEEP+POSES_UNDO]", CL_ROWS},
     {CPU_STEP_GEOM, CPU_ROWS, CPU_CHORD, CPU_CHORD_LAST_GEOM, CPU_CHORD_NEXT}, 0},
    {"direct, 1 substep", CTN_SOLVER_DIRECT, 1, 0.0, {PLAIN, NULL, NULL},
     {"PREPARE " CL_WARM " " CL_CHAIN_SOLVE " INTEGRATE[VELOCITIES+INTEGRATE+PROJECT_ENTER]", NULL, NULL},
     {CL_CHAIN_STEP " INTEGRATE[VELOCITIES+INTEGRATE+POSES_KEEP+POSES_UNDO]", CL_ROWS},
     {CPU_STEP, CPU_ROWS, CPU_CHORD, CPU_CHORD_LAST, CPU_CHORD_NEXT}, 0},
    {"direct, forest path, 1 substep", CTN_SOLVER_DIRECT, 1, 0.0, {PLAIN, NULL, NULL},
     {"PREPARE " CL_WARM " " CL_FOREST_SOLVE " INTEGRATE[INTEGRATE+PROJECT_ENTER]", NULL, NULL},
     {CL_FIRST_ROWS " " CL_SOLVE " INTEGRATE[INTEGRATE+POSES_KEEP+POSES_UNDO]", CL_ROWS},
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
         * and the projection's entry the last substep's integration may take on */
        int same = 1, gi_fused = 0, gi_unfused = 0, i = 0, j = 0;
        for (;;) { /* (and the residual, which the exact solver on OpenCL leaves to the projection's first rows) */
            while (i < unfused_n && (unfused_all[i] == CTN_STAGE_GEOMETRIC_INERTIA || unfused_all[i] == CTN_STAGE_RESIDUAL))
                gi_unfused += unfused_all[i++] == CTN_STAGE_GEOMETRIC_INERTIA;
            while (j < fused_n && (fused_all[j] == CTN_STAGE_GEOMETRIC_INERTIA || fused_all[j] == CTN_STAGE_PROJECT_ENTER ||
                                   fused_all[j] == CTN_STAGE_RESIDUAL))
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
                if (t < 2 && !cpu) cover_opencl[c][t] = all;
                if (t < 2 && cpu) cover_cpu[c][t] = all;
            }
        }
        ctn_world_destroy(w);
    }
}

static int have_opencl(void) {
    int count = 0;
    char err[256];
    ctn_device_info dev[4];
    return ctn_list_devices(dev, 4, &count, err, sizeof err) == CTN_OK && count > 0;
}

int main(void) {
    check_backend(CTN_BACKEND_CPU, "cpu");
    if (have_opencl()) {
        check_backend(CTN_BACKEND_OPENCL, "opencl");
        for (size_t c = 0; c < sizeof configs / sizeof configs[0]; ++c) /* one algorithm: the same stages on both */
            for (int t = 0; t < 2 && configs[c].project[0]; ++t)
                CHECK(cover_cpu[c][t] && cover_cpu[c][t] == cover_opencl[c][t], "%s, projection %s: the CPU covers %#llx, OpenCL %#llx",
                      configs[c].name, t ? "check" : "step", (unsigned long long)cover_cpu[c][t], (unsigned long long)cover_opencl[c][t]);
    } else {
        printf("test_stage_table: no OpenCL platform or device, the OpenCL tables skipped\n");
    }
    return check_report("stage_table");
}
