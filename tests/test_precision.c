/* Two-float positions (ctn_pose.p + p_lo, kernels/ctn_math.h): float32 alone spaces 1e4 m by 9.8e-4 m, so
 * far from the origin a moving body drifts by ~1e-3 m and a joint gap cannot be measured below ~5e-4 m.
 *   (1) a free body moving at constant velocity from x = 1e4 m lands within 1e-6 m of x0 + v t (a float32
 *       position accumulates ~1e-3 m of error: checked here on the same increments, so the test has teeth);
 *   (2) a 50-link chain pinned at (1e4, 0, 0) swings with the direct solver as well as the same chain at the
 *       origin: its worst joint gap stays within 2x of the near chain's (7e-5 m; float32 positions: ~1e-3 m);
 *   (3) body positions round-trip through the double API (set, get, bulk get, checkpoint) to ~2^-48.
 * (1) and (2) also run on the OpenCL backend (`test_precision opencl`; skipped without a device). */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "ids.h"
#include "check.h"
#include "opencl_lsan.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static ctn_world *make_world(ctn_backend backend, double dt, int substeps, int zero_gravity) {
    ctn_world_desc d = ctn_world_desc_default();
    d.integrator = CTN_INTEGRATOR_VELOCITY; /* compared with OpenCL on the velocity step (RATTLE agrees to rounding only: test_rattle_opencl) */
    d.debug.project_chord = 0;               /* nor the projection's chord steps (CPU only) */
    d.backend = backend;
    d.solver = CTN_SOLVER_DIRECT;
    d.time_step = dt;
    d.substeps = substeps;
    if (zero_gravity) d.gravity[0] = d.gravity[1] = d.gravity[2] = 0.0;
    ctn_world *w = NULL;
    char err[2048];
    ctn_status st = ctn_world_create(&d, &w, err, sizeof err);
    CHECK(st == CTN_OK, "create: %s", err);
    if (st != CTN_OK) return NULL;
    const char *want = backend == CTN_BACKEND_OPENCL ? "opencl" : "cpu";
    CHECK(strcmp(ctn_world_backend_name(w), want) == 0, "backend %s, wanted %s", ctn_world_backend_name(w), want);
    return w;
}

/* ---- (1) free flight far from the origin ------------------------------------------------------------- */

/* Body at x0 with velocity v, `steps` steps of dt (4 substeps), no gravity: largest error against x0 + v t. */
static double free_flight_error(ctn_backend backend, const double x0[3], const double v[3], double dt, int steps) {
    ctn_world *w = make_world(backend, dt, 4, 1);
    if (!w) return INFINITY;
    ctn_body_desc b = ctn_body_desc_default();
    memcpy(b.position, x0, sizeof b.position);
    memcpy(b.velocity, v, sizeof b.velocity);
    ctn_body_id id;
    CHECK(ctn_body_add(w, &b, &id) == CTN_OK, "add: %s", ctn_world_last_error(w));
    for (int i = 0; i < steps; ++i) CHECK(ctn_world_step(w) == CTN_OK, "step %d: %s", i, ctn_world_last_error(w));
    ctn_body_state s;
    CHECK(ctn_body_get_state(w, id, &s) == CTN_OK, "get: %s", ctn_world_last_error(w));
    double err = 0.0, t = steps * dt;
    for (int k = 0; k < 3; ++k) err = fmax(err, fabs(s.position[k] - (x0[k] + v[k] * t)));
    ctn_world_destroy(w);
    return err;
}

static void test_free_flight(ctn_backend backend, const char *name) {
    /* dt = 1/64 s, 4 substeps: h = 2^-8 s and v h = k 2^-15 exact in float (v = k / 128), so only the position
     * sums can round; v h is no multiple of the float spacing at 1e4 m (2^-10), so float32 sums do round */
    const double x0[3] = {1.0e4, -3.0e3, 7.5e3}, v[3] = {161.0 / 128.0, -65.0 / 128.0, 97.0 / 128.0};
    double e = free_flight_error(backend, x0, v, 1.0 / 64.0, 1000);
    CHECK(e < 1e-6, "%s: free flight from 1e4 m, exact increments: error %.3g m after 1000 steps (want < 1e-6)", name, e);
    /* float32 positions with the same increments lose up to half a float spacing (4.9e-4 m at 1e4 m) per
     * substep: the scenario is sensitive */
    float xf = (float)x0[0], hf = (float)(1.0 / 256.0), vf = (float)v[0];
    for (int i = 0; i < 4000; ++i) xf += vf * hf;
    double ef = fabs((double)xf - (x0[0] + v[0] * 1000.0 / 64.0));
    CHECK(ef > 1e-4, "float32 accumulation error %.3g m: the scenario would not catch float32 positions", ef);
    /* generic dt and velocity: the float32 rounding of v h (relative 2^-24) over 2.5 m stays < 1e-6 m */
    const double x1[3] = {1.0e4 + 1.0 / 3.0, 2.0e4 / 3.0, -1.0e4}, v1[3] = {0.3, -0.5, 0.1};
    e = free_flight_error(backend, x1, v1, 1.0 / 60.0, 300);
    CHECK(e < 1e-6, "%s: free flight from 1e4 m, dt 1/60: error %.3g m after 300 steps (want < 1e-6)", name, e);
    printf("%s: free flight error %.3g m (float32 positions: %.3g m)\n", name, e, ef);
}

/* ---- (2) a chain far from the origin ----------------------------------------------------------------- */

/* Worst max-joint-gap over `steps` steps of a 50-link chain pinned at (ox, 0, 0), released 11 degrees from the
 * vertical. (Released horizontally, the chain whips and its gap reaches 3e-2 m from the velocity-level
 * integration alone, which would hide the float32 effect.) */
static double chain_worst_gap(ctn_backend backend, double ox, int steps) {
    ctn_world *w = make_world(backend, 1.0 / 60.0, 4, 0);
    if (!w) return INFINITY;
    ctn_chain_desc c = ctn_chain_desc_default(50);
    c.origin[0] = ox;
    c.direction[0] = 0.2;
    c.direction[1] = -1.0;
    CHECK(ctn_scene_chain(w, &c, NULL) == CTN_OK, "chain: %s", ctn_world_last_error(w));
    double worst = 0.0;
    for (int i = 0; i < steps; ++i) {
        ctn_status st = ctn_world_step(w);
        CHECK(st == CTN_OK, "step %d: %s", i, ctn_world_last_error(w));
        if (st != CTN_OK) break;
        ctn_step_stats s;
        ctn_world_get_stats(w, &s);
        if (s.max_gap > worst) worst = s.max_gap;
    }
    ctn_world_destroy(w);
    return worst;
}

static void test_far_chain(ctn_backend backend, const char *name) {
    double near = chain_worst_gap(backend, 0.0, 300);
    double far = chain_worst_gap(backend, 1.0e4, 300);
    printf("%s: 50-link chain, worst joint gap %.3g m at the origin, %.3g m at 1e4 m\n", name, near, far);
    CHECK(near < 2e-4, "%s: near chain worst gap %.3g m (measured 6.9e-5 m on the cpu)", name, near);
    CHECK(far <= 2.0 * near + 1e-7, "%s: chain at 1e4 m: worst gap %.3g m vs %.3g m at the origin (want within 2x)", name, far, near);
}

/* ---- (3) the double API round trip ------------------------------------------------------------------- */

static void test_round_trip(void) {
    ctn_world *w = make_world(CTN_BACKEND_CPU, 1.0 / 60.0, 4, 1);
    if (!w) return;
    const double x[3] = {12345.678901, -98765.4321012345, 0.1};
    ctn_body_desc b = ctn_body_desc_default();
    memcpy(b.position, x, sizeof b.position);
    ctn_body_id id;
    CHECK(ctn_body_add(w, &b, &id) == CTN_OK, "add: %s", ctn_world_last_error(w));
    ctn_body_state s;
    CHECK(ctn_body_get_state(w, id, &s) == CTN_OK, "get: %s", ctn_world_last_error(w));
    for (int k = 0; k < 3; ++k)
        CHECK(fabs(s.position[k] - x[k]) <= 1e-14 * fabs(x[k]), "add/get position[%d]: %.17g vs %.17g", k, s.position[k], x[k]);
    /* float32 would keep 12345.678901 only to 4.9e-4 m */
    CHECK(fabs((double)(float)x[0] - x[0]) > 1e-5, "float32 rounding of %.17g", x[0]);
    const double y[3] = {-54321.123456789, 31415.9265358979, 27182.8182845905};
    memcpy(s.position, y, sizeof s.position);
    CHECK(ctn_body_set_state(w, id, &s) == CTN_OK, "set: %s", ctn_world_last_error(w));
    ctn_body_state t;
    CHECK(ctn_body_get_state(w, id, &t) == CTN_OK, "get: %s", ctn_world_last_error(w));
    for (int k = 0; k < 3; ++k)
        CHECK(fabs(t.position[k] - y[k]) <= 1e-14 * fabs(y[k]), "set/get position[%d]: %.17g vs %.17g", k, t.position[k], y[k]);
    double xyz[3];
    int written = 0;
    CHECK(ctn_world_get_positions(w, xyz, 1, &written) == CTN_OK && written == 1, "bulk: %s", ctn_world_last_error(w));
    for (int k = 0; k < 3; ++k) CHECK(xyz[k] == t.position[k], "bulk position[%d]: %.17g vs %.17g", k, xyz[k], t.position[k]);
    /* a step and a checkpoint keep the trailing part */
    CHECK(ctn_world_step(w) == CTN_OK, "step: %s", ctn_world_last_error(w));
    CHECK(ctn_body_get_state(w, id, &t) == CTN_OK, "get: %s", ctn_world_last_error(w));
    char path[64];
    snprintf(path, sizeof path, "/tmp/catena-precision-%ld.ck", (long)getpid());
    CHECK(ctn_world_save(w, path, 1, NULL) == CTN_OK, "save: %s", ctn_world_last_error(w));
    ctn_world *l = NULL;
    char err[512];
    CHECK(ctn_world_load(path, NULL, &l, NULL, err, sizeof err) == CTN_OK, "load: %s", err);
    /* the same file marked as format version 1 (float32 positions) is refused by name */
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL, "reopen %s", path);
    if (f) {
        uint32_t one = 1; /* u32 version after the 8-byte magic, native byte order */
        fseek(f, 8, SEEK_SET);
        fwrite(&one, sizeof one, 1, f);
        fclose(f);
        ctn_world *old = NULL;
        ctn_status st = ctn_world_load(path, NULL, &old, NULL, err, sizeof err);
        CHECK(st == CTN_ERR_UNSUPPORTED && old == NULL && strstr(err, "version 1"), "version-1 checkpoint: status %d: %s", (int)st, err);
        ctn_world_destroy(old);
    }
    remove(path);
    if (l) {
        ctn_body_state u;
        CHECK(ctn_body_get_state(l, ID_IN(l, id), &u) == CTN_OK, "get after load: %s", ctn_world_last_error(l));
        for (int k = 0; k < 3; ++k)
            CHECK(u.position[k] == t.position[k], "checkpoint position[%d]: %.17g vs %.17g", k, u.position[k], t.position[k]);
        ctn_world_destroy(l);
    }
    ctn_world_destroy(w);
}

static int have_opencl(void) {
    int count = 0;
    char err[256];
    ctn_device_info dev[4];
    return ctn_list_devices(dev, 4, &count, err, sizeof err) == CTN_OK && count > 0;
}

/* `test_precision` runs the CPU checks; `test_precision opencl` (CTest: test_precision_opencl) the OpenCL
 * ones, skipped (exit 77) without a device. */
int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "opencl")) {
        if (!have_opencl()) return check_skip("test_precision_opencl", "no OpenCL platform or device");
        test_free_flight(CTN_BACKEND_OPENCL, "opencl");
        test_far_chain(CTN_BACKEND_OPENCL, "opencl");
        return check_report("test_precision_opencl");
    }
    test_round_trip();
    test_free_flight(CTN_BACKEND_CPU, "cpu");
    test_far_chain(CTN_BACKEND_CPU, "cpu");
    return check_report("test_precision");
}
