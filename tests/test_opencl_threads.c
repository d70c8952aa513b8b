/* Race detector (docs/design.md section 5): the OpenCL state after N steps of every solver (the exact
 * solver's chain and forest kernels included) on scenes
 * large enough to span many work-groups is bitwise equal between PoCL with one worker thread and with
 * four. A kernel that raced (two work-items writing one body, a work-group assumed to run in lock-step, a
 * reduction whose order depends on scheduling) would change the hash with the thread count. The child
 * runs print the device's compute-unit count, which proves the thread setting took effect. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "ids.h"
#include "check.h"
#include "opencl_lsan.h"
#include "opencl_child.h"

#include <stdint.h>

#define STEPS 15

/* every solver on each scene; direct (chain path: 24 and 16 segments at the default 128 positions per
 * segment; forest path: tree:1023) where the layout has no loops; then direct alone on the hybrid's
 * layouts (host/opencl/opencl_direct.c): limited hinges and contacts (bridge_limits: chain path with cuts,
 * forest path once the balls land), a chain coiling on a floor (forest path, contacts between links and
 * with the floor) and a grid's loop closers, all in the coloured outer Gauss-Seidel */
static const char *const scenes[] = {"chain:3000", "grid:40x40", "rope:2000", "tree:1023"};
static const char *const hybrid_scenes[] = {"bridge_limits:40", "capsule_chain:300", "grid:12x12"};

static uint64_t fnv(uint64_t h, const void *data, size_t size) {
    const unsigned char *p = data;
    for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

static int child(void) {
    int count = 0;
    char err[256];
    ctn_device_info dev[8];
    ctn_list_devices(dev, 8, &count, err, sizeof err);
    printf("units %d\n", count > 0 ? dev[0].compute_units : 0);
    uint64_t h = 14695981039346656037ULL;
    size_t plain = sizeof scenes / sizeof scenes[0], all = plain + sizeof hybrid_scenes / sizeof hybrid_scenes[0];
    for (size_t sc = 0; sc < all; ++sc) {
        const char *spec = sc < plain ? scenes[sc] : hybrid_scenes[sc - plain];
        for (int so = CTN_SOLVER_GS; so <= CTN_SOLVER_DIRECT; ++so) {
            int loops = !strncmp(spec, "grid", 4), tree = !strncmp(spec, "tree", 4);
            if (sc < plain && ((so == CTN_SOLVER_DIRECT && loops) || (so != CTN_SOLVER_DIRECT && tree))) continue;
            if (sc >= plain && so != CTN_SOLVER_DIRECT) continue;
            ctn_world_desc d = ctn_world_desc_default();
            d.integrator = CTN_INTEGRATOR_VELOCITY; /* compared with OpenCL on the velocity step (RATTLE agrees to rounding only: test_rattle_opencl) */
            d.debug.project_chord = 0;               /* nor the projection's chord steps (CPU only) */
            d.backend = CTN_BACKEND_OPENCL;
            d.device = "0:0";
            d.solver = (ctn_solver)so;
            ctn_world *w = NULL;
            ctn_status st = ctn_world_create(&d, &w, err, sizeof err);
            if (st != CTN_OK) {
                printf("error %s\n", err);
                return 1;
            }
            st = ctn_scene_from_spec(w, spec);
            for (int i = 0; i < STEPS && st == CTN_OK; ++i) st = ctn_world_step(w);
            int n = ctn_world_body_count(w), m = ctn_world_joint_count(w);
            double *x = malloc(3 * sizeof(double) * (size_t)n);
            if (st == CTN_OK && x) st = ctn_world_get_positions(w, x, n, NULL);
            if (x) h = fnv(h, x, 3 * sizeof(double) * (size_t)n);
            free(x);
            for (int j = 0; j < m && st == CTN_OK; ++j) {
                double imp[6];
                st = ctn_joint_get_impulse(w, HJOINT(w, j), imp, NULL);
                h = fnv(h, imp, sizeof imp);
            }
            ctn_step_stats s;
            ctn_world_get_stats(w, &s);
            h = fnv(h, &s.residual, sizeof s.residual);
            h = fnv(h, &s.max_gap, sizeof s.max_gap);
            if (st != CTN_OK) {
                printf("error %s\n", ctn_world_last_error(w));
                ctn_world_destroy(w);
                return 1;
            }
            ctn_world_destroy(w);
        }
    }
    printf("hash %016llx\n", (unsigned long long)h);
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--child")) return child();
    int count = 0;
    char err[256];
    ctn_device_info dev[8];
    if (ctn_list_devices(dev, 8, &count, err, sizeof err) != CTN_OK || count == 0) {
        return check_skip("test_opencl_threads", "no OpenCL platform or device");
    }
    if (!strstr(dev[0].platform_name, "Portable Computing Language")) {
        printf("test_opencl_threads: device 0:0 is %s\n", dev[0].platform_name);
        return check_skip("test_opencl_threads", "device 0:0 is not PoCL; the thread-count comparison needs PoCL");
    }
    char out1[4096], out4[4096], e1[4096], e4[4096];
    int rc1 = run_child("POCL_MAX_PTHREAD_COUNT=1 POCL_CPU_MAX_CU_COUNT=1", "--child", out1, sizeof out1, e1, sizeof e1);
    int rc4 = run_child("POCL_MAX_PTHREAD_COUNT=4 POCL_CPU_MAX_CU_COUNT=4", "--child", out4, sizeof out4, e4, sizeof e4);
    printf("1 thread:  %s4 threads: %s", out1, out4);
    CHECK(rc1 == 0 && rc4 == 0, "children failed: %d '%s' '%s' / %d '%s' '%s'", rc1, out1, e1, rc4, out4, e4);
    CHECK(strstr(out1, "units 1\n") != NULL, "one-thread run reports '%s'", out1);
    CHECK(strstr(out4, "units 4\n") != NULL, "four-thread run reports '%s'", out4);
    const char *h1 = strstr(out1, "hash "), *h4 = strstr(out4, "hash ");
    CHECK(h1 && h4 && strncmp(h1, h4, 21) == 0, "state hash differs between 1 and 4 PoCL threads");
    return check_report("opencl_threads");
}
