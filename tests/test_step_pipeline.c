/* The step pipeline (host/solve/pipeline.c): the order of the stages, the projection's undo, one meaning of
 * desc.max_speed <= 0 on both backends, and residuals that do not depend on the thread count or on which
 * solver stood in for CG.
 *
 * Usage: test_step_pipeline cpu | opencl   (opencl: exit 77 without an OpenCL device) */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "ids.h"
#include "check.h"
#include "opencl_lsan.h"
#include "ctn_solver.h" /* CTN_PROJECT_MAX */
#include "solve/pipeline.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/* ---- a recording backend: the driver's calls, with scripted projection errors ---------------------- */

static ctn_stage calls[256];
static int call_count, restored;
static const float *scripted_worst; /* the errors PROJECT_ROWS reports, in turn */
static const float *scripted_chord; /* the errors CHORD_ROWS reports, in turn */
static int mock_kept;               /* PROJECT_ENTER says a factor is kept */

static ctn_status mock_begin(ctn_world *w) {
    (void)w;
    return CTN_OK;
}
static ctn_status mock_run(ctn_world *w, const ctn_stage_entry *e, const ctn_step_params *prm, ctn_stage_out *out) {
    (void)w, (void)prm;
    ctn_stage stage = e->stage;
    if (call_count < 256) calls[call_count++] = stage;
    if (stage == CTN_STAGE_PROJECT_ROWS) out->worst = *scripted_worst++;
    if (stage == CTN_STAGE_CHORD_ROWS) out->worst = *scripted_chord++;
    if (stage == CTN_STAGE_PROJECT_ENTER) out->kept = mock_kept;
    return CTN_OK;
}
static void mock_timer(ctn_world *w, ctn_stage_timer timer, ctn_step_stats *st) { (void)w, (void)timer, (void)st; }
static ctn_status mock_read_body(ctn_world *w, int i, ctn_pose *p, ctn_vel *v) {
    (void)w, (void)i, (void)p, (void)v;
    return CTN_OK;
}
static ctn_status mock_restore(ctn_world *w) {
    (void)w;
    restored = 1;
    return CTN_OK;
}
static ctn_status mock_end(ctn_world *w, ctn_status s, ctn_step_stats *st) {
    (void)w, (void)st;
    return s;
}
static const ctn_stage_ops mock_stages = {mock_begin, mock_run, mock_timer, mock_read_body, mock_restore, mock_end, 0, 0, NULL, NULL};
static const ctn_backend_ops mock_backend = {"mock", &mock_stages, NULL, NULL, NULL};
/* the same with the chord stages (the CPU backend's flags) */
static const ctn_stage_ops mock_chord_stages = {mock_begin, mock_run, mock_timer, mock_read_body, mock_restore, mock_end, 0, 1, NULL, NULL};
static const ctn_backend_ops mock_chord_backend = {"mock", &mock_chord_stages, NULL, NULL, NULL};
static ctn_step_stats recorded; /* the statistics of the recorded step */

/* Runs the driver once on a 5-link chain (exact solver, 2 substeps, the velocity step) through the recording
 * backend; chord >= 0: the backend with the chord stages, a factor kept, desc.debug.project_chord = chord. */
static void record_step_chord(const float *worst, const float *chord_worst, int chord) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.solver = CTN_SOLVER_DIRECT;
    d.integrator = CTN_INTEGRATOR_VELOCITY;
    d.debug.project_chord = chord < 0 ? -1 : chord;
    d.substeps = 2;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    if (!w) return;
    CHECK(ctn_scene_from_spec(w, "chain:5") == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w)); /* topology and solver choice */
    const ctn_backend_ops *real = w->backend;
    w->backend = chord >= 0 ? &mock_chord_backend : &mock_backend;
    call_count = restored = 0;
    scripted_worst = worst;
    scripted_chord = chord_worst;
    mock_kept = chord >= 0;
    memset(&recorded, 0, sizeof recorded);
    CHECK(ctn__pipeline_step(w, &recorded) == CTN_OK, "%s", ctn_world_last_error(w));
    w->backend = real;
    ctn_world_destroy(w);
}

static void record_step(const float *worst) { record_step_chord(worst, NULL, -1); }

static int count_calls(ctn_stage stage) {
    int n = 0;
    for (int i = 0; i < call_count; ++i) n += calls[i] == stage;
    return n;
}

static void test_stage_order(void) {
    static const float worst[] = {1e-3f, 1e-9f}; /* one Newton step, then converged */
    record_step(worst);
    static const ctn_stage substep[] = {CTN_STAGE_GEOMETRIC_INERTIA, CTN_STAGE_PREPARE, CTN_STAGE_FORCES,
                                        CTN_STAGE_WARM_START,        CTN_STAGE_SOLVE,   CTN_STAGE_INTEGRATE};
    /* the host's tables (ctn__substep_plan): the metric (GEOMETRIC_INERTIA) only for a step that runs, after its
     * decision (PROJECT_DECIDE, taken by the driver: no call); the last rows stop it */
    static const ctn_stage projection[] = {CTN_STAGE_PROJECT_ENTER, CTN_STAGE_PROJECT_REST,  CTN_STAGE_PREPARE,
                                           CTN_STAGE_PROJECT_ROWS,  CTN_STAGE_GEOMETRIC_INERTIA, CTN_STAGE_POSES_KEEP,
                                           CTN_STAGE_SOLVE,         CTN_STAGE_INTEGRATE,     CTN_STAGE_PROJECT_REST,
                                           CTN_STAGE_PREPARE,       CTN_STAGE_PROJECT_ROWS,  CTN_STAGE_PROJECT_LEAVE,
                                           CTN_STAGE_MEASURE};
    ctn_stage want[64];
    int n = 0;
    for (int sub = 0; sub < 2; ++sub)
        for (size_t k = 0; k < sizeof substep / sizeof substep[0]; ++k) want[n++] = substep[k];
    for (size_t k = 0; k < sizeof projection / sizeof projection[0]; ++k) want[n++] = projection[k];
    CHECK(call_count == n, "%d stage calls, expected %d", call_count, n);
    for (int i = 0; i < n && i < call_count; ++i) CHECK(calls[i] == want[i], "call %d: stage %d, expected %d", i, (int)calls[i], (int)want[i]);
    CHECK(!restored, "a good step was undone");
}

/* Undo only what this step kept: with a first error that is not finite there is no earlier pose copy of
 * this step, and copying the buffer back would put stale poses (another step's, or never written) in. */
static void test_projection_undo(void) {
    static const float infinite_first[] = {INFINITY};
    record_step(infinite_first);
    CHECK(count_calls(CTN_STAGE_POSES_UNDO) == 0, "undo of a pose copy never taken this step");
    CHECK(count_calls(CTN_STAGE_PROJECT_LEAVE) == 1, "projection left once");
    static const float nan_first[] = {NAN};
    record_step(nan_first);
    CHECK(count_calls(CTN_STAGE_POSES_UNDO) == 0, "undo after a NaN first error");
    static const float worse[] = {1e-3f, 2e-3f}; /* the Newton step made it worse: undone */
    record_step(worse);
    CHECK(count_calls(CTN_STAGE_POSES_KEEP) == 1 && count_calls(CTN_STAGE_POSES_UNDO) == 1, "keep %d, undo %d",
          count_calls(CTN_STAGE_POSES_KEEP), count_calls(CTN_STAGE_POSES_UNDO));
    /* every error shrinking but above the tolerance: CTN_PROJECT_MAX steps, the last one unchecked, so no pose
     * copy before it (nothing could undo it) */
    float slow[CTN_PROJECT_MAX];
    for (int k = 0; k < CTN_PROJECT_MAX; ++k) slow[k] = 1e-3f / (float)(k + 1);
    record_step(slow);
    CHECK(count_calls(CTN_STAGE_SOLVE) == 2 + CTN_PROJECT_MAX && count_calls(CTN_STAGE_POSES_KEEP) == CTN_PROJECT_MAX - 1 &&
              count_calls(CTN_STAGE_POSES_UNDO) == 0,
          "solves %d, keep %d, undo %d with %d steps", count_calls(CTN_STAGE_SOLVE), count_calls(CTN_STAGE_POSES_KEEP),
          count_calls(CTN_STAGE_POSES_UNDO), CTN_PROJECT_MAX);
}

/* The projection's chord steps: the stages in order when a chord step divides the error by 4 or more, the undo
 * and Newton step (with its own factor, which the next step reuses) when it does not, and Newton steps only
 * when desc.debug.project_chord is 0. */
static void expect_projection(const ctn_stage *want, int n, const char *what) {
    int first = 0; /* the projection's calls: from PROJECT_ENTER */
    while (first < call_count && calls[first] != CTN_STAGE_PROJECT_ENTER) ++first;
    CHECK(call_count - first == n, "%s: %d projection calls, expected %d", what, call_count - first, n);
    for (int i = 0; i < n && first + i < call_count; ++i)
        CHECK(calls[first + i] == want[i], "%s: projection call %d: stage %d, expected %d", what, i, (int)calls[first + i], (int)want[i]);
}

static void test_projection_chord(void) {
    static const float good[] = {1e-3f, 2e-4f, 1e-9f}; /* two chord steps, each dividing the error by 5 or more */
    record_step_chord(NULL, good, 1);
    static const ctn_stage chords[] = {CTN_STAGE_PROJECT_ENTER, CTN_STAGE_PROJECT_REST, CTN_STAGE_CHORD_ROWS,  CTN_STAGE_POSES_KEEP,
                                       CTN_STAGE_CHORD_SOLVE,   CTN_STAGE_INTEGRATE,    CTN_STAGE_PROJECT_REST, CTN_STAGE_CHORD_ROWS,
                                       CTN_STAGE_POSES_KEEP,    CTN_STAGE_CHORD_SOLVE,  CTN_STAGE_INTEGRATE,    CTN_STAGE_PROJECT_REST,
                                       CTN_STAGE_CHORD_ROWS,    CTN_STAGE_PROJECT_LEAVE, CTN_STAGE_MEASURE};
    expect_projection(chords, (int)(sizeof chords / sizeof chords[0]), "two chord steps");
    CHECK(recorded.projection_chords == 2 && recorded.projection_factors == 0, "chords %d, factors %d", recorded.projection_chords,
          recorded.projection_factors);

    static const float slow[] = {1e-3f, 3e-4f, 1e-9f}; /* the chord step divides by 3.3 only: undone */
    static const float newton[] = {1e-3f};                /* the rows of the poses it started from, for the Newton step */
    record_step_chord(newton, slow, 1);
    static const ctn_stage undone[] = {CTN_STAGE_PROJECT_ENTER, CTN_STAGE_PROJECT_REST,  CTN_STAGE_CHORD_ROWS, CTN_STAGE_POSES_KEEP,
                                       CTN_STAGE_CHORD_SOLVE,   CTN_STAGE_INTEGRATE,     CTN_STAGE_PROJECT_REST, CTN_STAGE_CHORD_ROWS,
                                       CTN_STAGE_POSES_UNDO,    CTN_STAGE_PROJECT_REST,  CTN_STAGE_PREPARE,    CTN_STAGE_PROJECT_ROWS,
                                       CTN_STAGE_GEOMETRIC_INERTIA, CTN_STAGE_POSES_KEEP, CTN_STAGE_SOLVE,     CTN_STAGE_INTEGRATE,
                                       CTN_STAGE_PROJECT_REST,  CTN_STAGE_CHORD_ROWS,    CTN_STAGE_PROJECT_LEAVE, CTN_STAGE_MEASURE};
    expect_projection(undone, (int)(sizeof undone / sizeof undone[0]), "a chord step undone");
    CHECK(recorded.projection_chords == 0 && recorded.projection_factors == 1, "chords %d, factors %d", recorded.projection_chords,
          recorded.projection_factors);

    static const float off[] = {1e-3f, 1e-9f};
    record_step_chord(off, NULL, 0); /* asked off: Newton steps although the backend could */
    CHECK(count_calls(CTN_STAGE_CHORD_ROWS) == 0 && count_calls(CTN_STAGE_CHORD_SOLVE) == 0 && recorded.projection_factors == 1,
          "chord stages %d + %d with desc.debug.project_chord = 0", count_calls(CTN_STAGE_CHORD_ROWS), count_calls(CTN_STAGE_CHORD_SOLVE));

    /* a chord step is never the last of CTN_PROJECT_MAX (that one is not checked): a Newton step with its rows */
    static const float creep[] = {1e-1f, 2e-2f, 4e-3f, 8e-4f, 1.6e-4f, 3.2e-5f, 6.4e-6f, 1.28e-6f};
    record_step_chord(NULL, creep, 1);
    CHECK(count_calls(CTN_STAGE_CHORD_SOLVE) == CTN_PROJECT_MAX - 1 && count_calls(CTN_STAGE_SOLVE) == 2 + 1 &&
              count_calls(CTN_STAGE_PREPARE) == 2 + 1,
          "%d chord solves, %d solves, %d row builds", count_calls(CTN_STAGE_CHORD_SOLVE), count_calls(CTN_STAGE_SOLVE),
          count_calls(CTN_STAGE_PREPARE));
}

/* ---- the real backends -------------------------------------------------------------------------------- */

static ctn_world *make(ctn_backend backend, ctn_solver solver, const char *scene, double max_speed, int threads) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = backend;
    d.solver = solver;
    d.max_speed = max_speed;
    d.threads = threads;
    ctn_world *w = NULL;
    char err[2048];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    if (w) CHECK(ctn_scene_from_spec(w, scene) == CTN_OK, "%s: %s", scene, ctn_world_last_error(w));
    return w;
}

static ctn_body_state *states(ctn_world *w, int n) {
    ctn_body_state *s = calloc((size_t)n, sizeof *s);
    for (int i = 0; i < n; ++i) ctn_body_get_state(w, HBODY(w, i), &s[i]);
    return s;
}

/* max_speed <= 0 means no speed limit; a non-finite state is still a divergence, undone on both backends. */
static void test_no_speed_limit(ctn_backend backend) {
    ctn_world *w = make(backend, CTN_SOLVER_GS, "chain:20", 0.0, 0);
    if (!w) return;
    for (int k = 0; k < 5; ++k) CHECK(ctn_world_step(w) == CTN_OK, "step %d: %s", k, ctn_world_last_error(w));
    int n = ctn_world_body_count(w);
    double f[3] = {FLT_MAX, 0.0, 0.0};
    CHECK(ctn_body_set_force(w, HBODY(w, 7), f, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_body_state *before = states(w, n);
    ctn_status st = ctn_world_step(w);
    CHECK(st == CTN_ERR_DIVERGED, "max_speed 0, non-finite step: %s (%s)", ctn_status_name(st), ctn_world_last_error(w));
    ctn_body_state *after = states(w, n);
    CHECK(memcmp(before, after, (size_t)n * sizeof(ctn_body_state)) == 0, "the non-finite step was undone");
    free(before);
    free(after);
    ctn_world_destroy(w);
}

/* The residual of a step with colours large enough for threads: the same bits for 1 and 2 threads. */
static void test_residual_threads(void) {
    double r[2];
    for (int k = 0; k < 2; ++k) {
        ctn_world *w = make(CTN_BACKEND_CPU, CTN_SOLVER_GS, "chain:20000", 1e4, k + 1); /* colours of 10000 joints */
        if (!w) return;
        CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_step_stats st;
        ctn_world_get_stats(w, &st);
        r[k] = st.residual;
        CHECK(st.largest_colour >= 8192, "largest colour %d: too small for the parallel loop", st.largest_colour);
        ctn_world_destroy(w);
    }
    CHECK(memcmp(&r[0], &r[1], sizeof r[0]) == 0, "residual %.17g with 1 thread, %.17g with 2", r[0], r[1]);
}

/* CG with bounded rows is solved by GS: its residual is GS's, not a value CG never wrote. */
static void test_cg_bounded_residual(ctn_backend backend) {
    double r[2];
    ctn_solver solvers[2] = {CTN_SOLVER_CG, CTN_SOLVER_GS};
    for (int k = 0; k < 2; ++k) {
        ctn_world *w = make(backend, solvers[k], "bridge_limits:10", 1e4, 0);
        if (!w) return;
        for (int s = 0; s < 3; ++s) CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_step_stats st;
        ctn_world_get_stats(w, &st);
        r[k] = st.residual;
        ctn_world_destroy(w);
    }
    CHECK(r[1] > 0.0 && memcmp(&r[0], &r[1], sizeof r[0]) == 0, "CG-as-GS residual %.9g, GS residual %.9g", r[0], r[1]);
}

static int have_opencl(void) {
    int count = 0;
    char err[256];
    ctn_device_info dev[4];
    return ctn_list_devices(dev, 4, &count, err, sizeof err) == CTN_OK && count > 0;
}

int main(int argc, char **argv) {
    int opencl = argc > 1 && !strcmp(argv[1], "opencl");
    if (opencl) {
        if (!have_opencl()) {
            printf("test_step_pipeline opencl: no OpenCL platform or device, skipped\n");
            return 77;
        }
        test_no_speed_limit(CTN_BACKEND_OPENCL);
        test_cg_bounded_residual(CTN_BACKEND_OPENCL);
        return check_report("step_pipeline opencl");
    }
    test_stage_order();
    test_projection_undo();
    test_projection_chord();
    test_no_speed_limit(CTN_BACKEND_CPU);
    test_residual_threads();
    test_cg_bounded_residual(CTN_BACKEND_CPU);
    return check_report("step_pipeline cpu");
}
