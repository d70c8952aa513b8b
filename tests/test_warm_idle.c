/* The exact solver's idle warm start (host/solve/pipeline.c, warm_start_idle): with every joint a rigid
 * bilateral row of the exact solve and J of full row rank, the solve's result does not depend on where the
 * impulses start, so WARM_START only clears them and desc.warm_start changes nothing: a chain pinned at one
 * end and a tree end bit for bit the same at warm-start factors 0, 0.5 and 1. Where the warm start matters
 * it still runs: a bridge held at both ends (redundant rows: the warm start sets the impulses' null-space
 * part, which the geometric-stiffness inertia reads), a chain with a limited hinge (rows cut to the outer
 * Gauss-Seidel loop) and Gauss-Seidel itself end in states that differ between factors 0 and 1.
 * `test_warm_idle opencl` runs the same on the OpenCL backend (exit 77 without a device). */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "check.h"
#include "fixtures.h"
#include "opencl_lsan.h"

#include <stdio.h>
#include <string.h>

#define STEPS 30
#define MAX_BODIES 128

typedef struct final_state {
    int bodies;
    ctn_body_state b[MAX_BODIES];
} final_state;

/* scene NULL: fixture_limited_chain. Returns 0 when the world could not be made or a step failed (reported). */
static int run(ctn_backend backend, ctn_solver solver, const char *scene, double warm, final_state *out) {
    memset(out, 0, sizeof *out);
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = backend;
    d.solver = solver;
    d.integrator = CTN_INTEGRATOR_VELOCITY; /* the substeps' WARM_START (RATTLE has its own stages) */
    d.threads = 1;
    d.warm_start = warm;
    d.debug.project_chord = 0; /* the same projection on both backends */
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    if (!w) return 0;
    if (scene) CHECK(ctn_scene_from_spec(w, scene) == CTN_OK, "%s: %s", scene, ctn_world_last_error(w));
    else fixture_limited_chain(w, NULL);
    int ok = 1;
    for (int s = 0; s < STEPS && ok; ++s)
        if (ctn_world_step(w) != CTN_OK) {
            CHECK(0, "%s step %d: %s", scene ? scene : "limited chain", s, ctn_world_last_error(w));
            ok = 0;
        }
    for (int i = 0; i < ctn_world_body_count(w) && i < MAX_BODIES && ok; ++i) {
        ctn_body_id id;
        if (ctn_world_body_at(w, i, &id) != CTN_OK || ctn_body_get_state(w, id, &out->b[i]) != CTN_OK) break;
        out->bodies = i + 1;
    }
    ctn_world_destroy(w);
    return ok && out->bodies > 0;
}

/* idle: the states at factors 0, 0.5 and 1 are identical; else those at 0 and 1 differ. */
static void check_scene(ctn_backend backend, ctn_solver solver, const char *scene, int idle) {
    static final_state s[3];
    const double warm[3] = {0.0, 0.5, 1.0};
    int ok = 1;
    for (int k = 0; k < 3; ++k) ok = run(backend, solver, scene, warm[k], &s[k]) && ok;
    if (!ok) return;
    const char *name = scene ? scene : "limited chain";
    int same01 = !memcmp(s[0].b, s[1].b, sizeof s[0].b), same02 = !memcmp(s[0].b, s[2].b, sizeof s[0].b);
    printf("%-14s %-6s %-7s warm start 0 / 0.5 / 1: %s\n", name, solver == CTN_SOLVER_DIRECT ? "direct" : "gs",
           backend == CTN_BACKEND_CPU ? "cpu" : "opencl", same01 && same02 ? "the same bits" : "different states");
    if (idle)
        CHECK(same01 && same02, "%s: desc.warm_start changed the exact solve's result (0 vs 0.5: %s, 0 vs 1: %s)", name,
              same01 ? "same" : "differ", same02 ? "same" : "differ");
    else
        CHECK(!same02, "%s: warm-start factors 0 and 1 end in the same state (the warm start did not run)", name);
}

static void check_backend(ctn_backend backend) {
    check_scene(backend, CTN_SOLVER_DIRECT, "chain:60", 1);
    check_scene(backend, CTN_SOLVER_DIRECT, "tree:63", 1);
    check_scene(backend, CTN_SOLVER_DIRECT, "bridge:12", 0);
    check_scene(backend, CTN_SOLVER_DIRECT, NULL, 0);
    check_scene(backend, CTN_SOLVER_GS, "chain:60", 0);
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "opencl")) {
        char why[256];
        if (!fixture_have_opencl(why, sizeof why)) return check_skip("test_warm_idle opencl", why);
        check_backend(CTN_BACKEND_OPENCL);
        return check_report("warm_idle opencl");
    }
    check_backend(CTN_BACKEND_CPU);
    return check_report("warm_idle");
}
