/* Golden final states: a refactor of the step pipeline must not change a single bit of what a step computes.
 *
 * Each case runs a scene generator for a fixed number of steps on one backend and solver and hashes (FNV-1a,
 * 64 bit) the bytes of every body's state (position, orientation, velocity, angular velocity as returned by
 * ctn_body_get_state) and every joint's accumulated impulse. The expected hashes were recorded at commit 8eb37b8
 * (before the step schedule was shared between the backends) on the development VM (x86-64, GCC 12, PoCL); a change of any hash means the arithmetic or its
 * order changed. If a change is intended (a new solver, a physics fix), rerun with --print and replace the
 * table, saying in the commit why the numbers moved.
 *
 * Usage: test_golden cpu | opencl      compare the table for one backend (opencl: exit 77 unless the device
 *                                      is PoCL, the one the OpenCL column was recorded on)
 *        test_golden --print           print the table for both backends */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "ids.h"
#include "check.h"
#include "opencl_lsan.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct golden_case {
    const char *scene;
    ctn_solver solver;
    int steps;
    uint64_t cpu, opencl; /* expected hashes */
} golden_case;

static const golden_case cases[] = {
    {"chain:100", CTN_SOLVER_GS, 60, 0x168e6cab4d2d00bbULL, 0x168e6cab4d2d00bbULL},
    /* direct on the CPU: the projection's chord steps (desc.debug.project_chord, on by default on the CPU backend
     * only) moved these from c7dd9e2fe51fa837 and 4e59950cab087cf5 (the OpenCL column is its Newton steps').
     * Both direct cases then moved (CPU ae5f2003231154bd, 3ea10edf620c9059; OpenCL c7dd9e2fe51fa837,
     * 47d1895df6eb3a35) when the exact solve stopped gathering the warm start it does not need (host/solve/
     * pipeline.c, warm_start_idle): the same solution, rounded once fewer (60 steps, worst joint gap on the CPU
     * chain:100 2.38e-8 -> 2.46e-8 m, tree:63 3.51e-8 -> 3.24e-8 m, both under the projection's 2.5e-8 m
     * tolerance plus rounding). tree:63 on the CPU then moved from 9821ee3fbbd09927 when a slow chord step below
     * Newton's tolerance stopped being replaced by a Newton step (host/solve/pipeline.c project_decide: the rate
     * there is the rounding floor; 60 steps: factorisations per step 0.133 -> 0, worst gap 3.239e-8 ->
     * 3.236e-8 m); chain:100 and the OpenCL column (Newton steps only) are unchanged. chain:100 on the CPU then
     * moved from 3b64deaeedb4e601 when a layout of rigid ball joints stepped by the velocity step began to keep
     * P^-1 in float (host/solve/direct_chain.c ctn__chain_pivots), which only the chord steps read: their fixed
     * point is the same, their rate is not (60 steps: chord steps 133 -> 132, no factorisation either way, worst
     * joint gap 2.463e-8 -> 2.558e-8 m, last 8.2e-9 -> 6.8e-9 m); tree:63 (the forest path) and bridge:20 (hinges)
     * keep P^-1 in double and did not move */
    {"chain:100", CTN_SOLVER_DIRECT, 60, 0xf6b74b8bdccac99cULL, 0x07943354351eb395ULL},
    {"chain:40", CTN_SOLVER_JACOBI, 30, 0x8b63ca89fd0e222fULL, 0x8b63ca89fd0e222fULL},
    /* OpenCL CG: 0 = not compared bit for bit. Its dot products are clBLAST reductions whose work-group split
     * comes from clBLAST's tuning table, keyed by the device name, and PoCL names its device after the host CPU
     * model: the sums are ordered differently on another CPU (seen: 44f58586fd19b87b on the VM where the
     * table was recorded, 2b56c804adb6b2cc on an AMD EPYC VM). CG's agreement with the CPU is tested by
     * test_opencl_equivalence at a tolerance. */
    {"chain:40", CTN_SOLVER_CG, 30, 0xf8c206f98842d99dULL, 0},
    {"tree:63", CTN_SOLVER_DIRECT, 60, 0xd537c5bda4dc5cd7ULL, 0xc1bfe54ad86e5af0ULL},
    {"pile:200", CTN_SOLVER_GS, 60, 0x4a04bbf61d803858ULL, 0x6120637cd7d94a3cULL},
    {"bridge_limits:10", CTN_SOLVER_GS, 60, 0xee3edb975ef9eb3cULL, 0x0f75c915386526d1ULL},
    /* the exact solver on a hinge chain (recorded at 136e351): the hinge rows, the lean hinge walk and the
     * generic chain walk's velocity changes (host/solve/direct_chain.c apply_body), which the ball chains
     * above do not reach (a 1e-7 relative change of apply_body's dv moves this hash and no other). The order
     * of a body's two joints there is not pinned by any hash: each adds its joint's total once to a sum that
     * starts at zero, and a + b == b + a */
    {"bridge:20", CTN_SOLVER_DIRECT, 60, 0x18290783cfe83710ULL, 0xbb9d8fa18b9b8a81ULL},
};
static const char *const solver_names[] = {"gs", "jacobi", "cg", "direct", "auto"};

static uint64_t fnv(uint64_t h, const void *data, size_t size) {
    const unsigned char *p = data;
    for (size_t k = 0; k < size; ++k) h = (h ^ p[k]) * 1099511628211ULL;
    return h;
}

/* Runs one case; returns 0 when the world cannot be created or a step fails (reported). */
static int run_case(const golden_case *c, ctn_backend backend, uint64_t *hash) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = backend;
    d.solver = c->solver;
    d.integrator = CTN_INTEGRATOR_VELOCITY; /* the hashes pin the velocity step (RATTLE: tests/test_rattle.c) */
    ctn_world *w = NULL;
    char err[2048];
    ctn_status st = ctn_world_create(&d, &w, err, sizeof err);
    CHECK(st == CTN_OK, "%s: create: %s", c->scene, err);
    if (st != CTN_OK) return 0;
    st = ctn_scene_from_spec(w, c->scene);
    CHECK(st == CTN_OK, "%s: %s", c->scene, ctn_world_last_error(w));
    for (int i = 0; i < c->steps && st == CTN_OK; ++i) {
        st = ctn_world_step(w);
        CHECK(st == CTN_OK, "%s %s step %d: %s", c->scene, solver_names[c->solver], i, ctn_world_last_error(w));
    }
    uint64_t h = 14695981039346656037ULL;
    /* the generators create bodies and joints in consecutive slots; contacts take further joint slots (hashed
     * by slot index) */
    int bodies = ctn_world_body_count(w), joints = ctn_world_joint_count(w);
    for (int i = 0; i < bodies && st == CTN_OK; ++i) {
        ctn_body_state s;
        st = ctn_body_get_state(w, HBODY(w, i), &s);
        CHECK(st == CTN_OK, "body %d: %s", i, ctn_world_last_error(w));
        h = fnv(h, &s, sizeof s);
    }
    for (int j = 0, found = 0; found < joints && j < 4 * joints + 1024 && st == CTN_OK; ++j) {
        double imp[6] = {0};
        int rows = 0;
        ctn_joint_id id;
        if (ctn_world_joint_at(w, j, &id) != CTN_OK || ctn_joint_get_impulse(w, id, imp, &rows) != CTN_OK) continue;
        ++found;
        h = fnv(h, &j, sizeof j);
        h = fnv(h, imp, sizeof imp);
    }
    ctn_world_destroy(w);
    *hash = h;
    return st == CTN_OK;
}

/* 1 when the device the OpenCL backend picks is PoCL (the device the OpenCL hashes were recorded on: another
 * device's math library rounds sin, cos and sqrt differently), 0 for another device, -1 for none. */
static int opencl_is_pocl(void) {
    int count = 0;
    char err[256];
    ctn_device_info dev[8];
    if (ctn_list_devices(dev, 8, &count, err, sizeof err) != CTN_OK || count == 0) return -1;
    for (int i = 0; i < count && i < 8; ++i)
        if (dev[i].is_gpu) return 0; /* the backend would pick the GPU */
    return strstr(dev[0].platform_name, "Portable Computing Language") != NULL;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "cpu";
    size_t n = sizeof cases / sizeof cases[0];
    if (!strcmp(mode, "--print")) {
        int ocl = opencl_is_pocl() >= 0;
        for (size_t i = 0; i < n; ++i) {
            uint64_t hc = 0, ho = 0;
            run_case(&cases[i], CTN_BACKEND_CPU, &hc);
            if (ocl) run_case(&cases[i], CTN_BACKEND_OPENCL, &ho);
            printf("    {\"%s\", CTN_SOLVER_%s, %d, 0x%016llxULL, 0x%016llxULL},\n", cases[i].scene,
                   cases[i].solver == CTN_SOLVER_GS       ? "GS"
                   : cases[i].solver == CTN_SOLVER_JACOBI ? "JACOBI"
                   : cases[i].solver == CTN_SOLVER_CG     ? "CG"
                                                          : "DIRECT",
                   cases[i].steps, (unsigned long long)hc, (unsigned long long)ho);
        }
        return check_failures ? 1 : 0;
    }
    int opencl = !strcmp(mode, "opencl");
    if (!opencl && strcmp(mode, "cpu")) {
        fprintf(stderr, "usage: test_golden cpu | opencl | --print\n");
        return 2;
    }
    if (opencl && opencl_is_pocl() < 1) {
        printf("test_golden opencl: %s, skipped\n", opencl_is_pocl() < 0 ? "no OpenCL platform or device" : "the device is not PoCL");
        return 77;
    }
    for (size_t i = 0; i < n; ++i) {
        uint64_t h = 0, want = opencl ? cases[i].opencl : cases[i].cpu;
        if (!run_case(&cases[i], opencl ? CTN_BACKEND_OPENCL : CTN_BACKEND_CPU, &h)) continue;
        if (want == 0) {
            printf("%-18s %-6s %3d steps  %016llx (device-dependent, not compared)\n", cases[i].scene, solver_names[cases[i].solver],
                   cases[i].steps, (unsigned long long)h);
            continue;
        }
        printf("%-18s %-6s %3d steps  %016llx\n", cases[i].scene, solver_names[cases[i].solver], cases[i].steps, (unsigned long long)h);
        CHECK(h == want, "%s %s on %s: final state hash %016llx, golden %016llx", cases[i].scene, solver_names[cases[i].solver], mode,
              (unsigned long long)h, (unsigned long long)want);
    }
    return check_report(opencl ? "golden opencl" : "golden cpu");
}
