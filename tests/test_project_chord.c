/* The exact solver's position projection with chord steps (host/solve/pipeline.c, project_steps;
 * ctn_chord_slot in kernels/ctn_solver.h): on the CPU backend, chains (the chain path) and trees (the forest
 * path) released horizontally take chord steps with the step's last factor instead of factoring, end with
 * joints at least as closed as the Newton steps leave them, and a world whose joints are not all rigid
 * bilateral rows never takes one; desc.debug.project_chord out of range is refused, naming the field.
 * `test_project_chord opencl` (exit 77 without a device): the OpenCL backend has no chord stages, so its
 * projection takes Newton steps where the CPU's default takes chord steps; both hold the joints, and their
 * states differ by what the projection's tolerance grows to over the run (the bit-for-bit CPU/OpenCL tests
 * run the CPU with desc.debug.project_chord = 0). */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "check.h"
#include "fixtures.h"
#include "opencl_lsan.h"

#include <stdio.h>
#include <string.h>

typedef struct run_result {
    int factors, chords, steps;
    double worst_gap;
    double pos[3 * 400]; /* the first 400 bodies' positions after the run */
    int bodies;
} run_result;

static run_result run_on(ctn_backend backend, const char *scene, int chord, int steps) {
    run_result r;
    memset(&r, 0, sizeof r);
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = backend;
    d.solver = CTN_SOLVER_DIRECT;
    d.iterations = 1;
    d.substeps = 1;
    d.integrator = CTN_INTEGRATOR_VELOCITY; /* the velocity step and its projection at any size */
    d.threads = 1;
    d.debug.project_chord = chord;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    if (!w) return r;
    CHECK(ctn_scene_from_spec(w, scene) == CTN_OK, "%s: %s", scene, ctn_world_last_error(w));
    for (int i = 0; i < steps; ++i) {
        if (ctn_world_step(w) != CTN_OK) {
            CHECK(0, "%s step %d: %s", scene, i, ctn_world_last_error(w));
            break;
        }
        ctn_step_stats st;
        ctn_world_get_stats(w, &st);
        r.factors += st.projection_factors, r.chords += st.projection_chords, r.steps++;
        r.worst_gap = st.max_gap > r.worst_gap ? st.max_gap : r.worst_gap;
    }
    for (int i = 0; i < ctn_world_body_count(w) && i < 400; ++i) {
        ctn_body_state b;
        ctn_body_id id;
        if (ctn_world_body_at(w, i, &id) != CTN_OK || ctn_body_get_state(w, id, &b) != CTN_OK) break;
        for (int k = 0; k < 3; ++k) r.pos[3 * i + k] = b.position[k];
        r.bodies = i + 1;
    }
    ctn_world_destroy(w);
    return r;
}

static run_result run(const char *scene, int chord, int steps) { return run_on(CTN_BACKEND_CPU, scene, chord, steps); }

/* The same scene with Newton steps only and with chord steps. Measured (40 steps): chain:300 80 factors
 * 2.9e-8 m / 2 factors 119 chords 1.1e-8 m; tree:300 87 factors 6.2e-8 m / 26 factors 232 chords 3.7e-8 m. */
static void compare(const char *scene, int steps) {
    run_result newton = run(scene, 0, steps), chord = run(scene, 1, steps);
    printf("%-10s Newton: %3d factors, worst gap %.3g m; chords: %3d factors %3d chord steps, worst gap %.3g m\n", scene, newton.factors,
           newton.worst_gap, chord.factors, chord.chords, chord.worst_gap);
    CHECK(newton.steps == steps && chord.steps == steps, "%s: %d and %d steps run", scene, newton.steps, chord.steps);
    CHECK(newton.chords == 0, "%s: %d chord steps with desc.debug.project_chord = 0", scene, newton.chords);
    CHECK(newton.factors >= steps, "%s: %d Newton factors in %d steps (the projection did not run?)", scene, newton.factors, steps);
    CHECK(chord.chords >= steps, "%s: %d chord steps in %d steps", scene, chord.chords, steps);
    CHECK(2 * chord.factors < newton.factors, "%s: %d factors with chord steps, %d without", scene, chord.factors, newton.factors);
    /* the projection's tolerance is 1e-7 m per row; the links are 0.1 m: 1e-6 link lengths */
    CHECK(chord.worst_gap <= 1e-7, "%s: worst gap %.3g m with chord steps", scene, chord.worst_gap);
    CHECK(chord.worst_gap <= newton.worst_gap, "%s: worst gap %.3g m with chord steps, %.3g m with Newton's", scene, chord.worst_gap,
          newton.worst_gap);
}

/* Joints that are not all rigid bilateral rows (here a hinge with a limit): the step's factor is not the
 * projection's system, so Newton steps only, the same bits as with chord steps off. */
static void test_not_rigid(void) {
    ctn_body_state state[2][8];
    for (int chord = 0; chord < 2; ++chord) {
        ctn_world_desc d = ctn_world_desc_default();
        d.backend = CTN_BACKEND_CPU;
        d.solver = CTN_SOLVER_DIRECT;
        d.integrator = CTN_INTEGRATOR_VELOCITY;
        d.threads = 1;
        d.debug.project_chord = chord;
        ctn_world *w = NULL;
        char err[256];
        CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
        if (!w) return;
        ctn_body_id ids[8];
        int chords = 0, factors = 0;
        fixture_limited_chain(w, ids);
        for (int s = 0; s < 30; ++s) {
            CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
            ctn_step_stats st;
            ctn_world_get_stats(w, &st);
            chords += st.projection_chords, factors += st.projection_factors;
        }
        CHECK(chords == 0 && factors > 0, "a limited hinge: %d chord steps, %d factors (project_chord %d)", chords, factors, chord);
        for (int i = 0; i < 8; ++i) CHECK(ctn_body_get_state(w, ids[i], &state[chord][i]) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_world_destroy(w);
    }
    CHECK(!memcmp(state[0], state[1], sizeof state[0]), "a limited hinge: chord steps on and off end in different states");
}

static void test_bad_option(void) {
    ctn_world_desc d = ctn_world_desc_default();
    CHECK(d.debug.project_chord == -1, "default desc.debug.project_chord %d", d.debug.project_chord);
    d.debug.project_chord = 2;
    ctn_world *w = NULL;
    char err[256] = "";
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_ERR_INVALID_ARGUMENT && !w && strstr(err, "desc.debug.project_chord: 2"),
          "project_chord = 2: %s", err);
    if (w) ctn_world_destroy(w);
}

/* The CPU's default (chord steps) against OpenCL (Newton steps): chain:100 released horizontally, one substep,
 * STEPS_CL steps. The two projections land on different points of the manifold, each within the tolerance,
 * and the velocities are not projected, so the states drift apart about linearly (measured on PoCL: 1.7e-3,
 * 3.5e-3 and 6.1e-3 m after 20, 40 and 60 steps, on a 10 m chain whose tip moves metres; worst gaps 2.3e-8 m
 * on the CPU, 1.2e-8 m on OpenCL). */
#define STEPS_CL 20
static int test_opencl(void) {
    char why[256];
    if (!fixture_have_opencl(why, sizeof why)) return check_skip("test_project_chord opencl", why);
    static run_result cpu, ocl;
    cpu = run_on(CTN_BACKEND_CPU, "chain:100", -1, STEPS_CL);
    ocl = run_on(CTN_BACKEND_OPENCL, "chain:100", -1, STEPS_CL);
    double dp = 0.0;
    for (int k = 0; k < 3 * cpu.bodies && cpu.bodies == ocl.bodies; ++k) dp = fmax(dp, fabs(cpu.pos[k] - ocl.pos[k]));
    printf("chain:100, %d steps: CPU %d chord steps, worst gap %.3g m; OpenCL %d chord steps, worst gap %.3g m; positions apart %.3g m\n", STEPS_CL,
           cpu.chords, cpu.worst_gap, ocl.chords, ocl.worst_gap, dp);
    CHECK(cpu.steps == STEPS_CL && ocl.steps == STEPS_CL && cpu.bodies == 100 && ocl.bodies == 100, "%d / %d steps, %d / %d bodies", cpu.steps, ocl.steps,
          cpu.bodies, ocl.bodies);
    CHECK(cpu.chords > 0 && ocl.chords == 0, "chord steps: CPU %d, OpenCL %d", cpu.chords, ocl.chords);
    CHECK(cpu.worst_gap <= 1e-7 && ocl.worst_gap <= 1e-7, "worst gaps %.3g m (CPU), %.3g m (OpenCL)", cpu.worst_gap, ocl.worst_gap);
    CHECK(dp <= 5e-3, "positions apart by %.3g m (5e-3 m allowed)", dp);
    return check_report("project_chord opencl");
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "opencl")) return test_opencl();
    test_bad_option();
    compare("chain:300", 40);
    compare("tree:300", 40);
    test_not_rigid();
    return check_report("project_chord");
}
