/* OpenCL backend against the CPU backend: for every scene generator and every solver, the
 * OpenCL run (PoCL here) and the CPU run agree after STEPS steps, and two OpenCL runs are bitwise equal.
 *
 * Tolerance. Both backends run the same source (kernels/ctn_*.h) in float32 with fma contraction off, so
 * GS and Jacobi differ only where the libraries round differently (sin/cos in the exp map, the order of
 * the residual sum) and CG also in its dot products (float on the device through clBLAST, double on the
 * host), which perturbs alpha and beta at the 1e-7 relative level. Over 100 steps of 4 substeps these
 * perturbations are propagated by the dynamics; on the chaotic scenes (double pendulum, cradle) they grow.
 * Measured on PoCL 3.1 (2-core VM, 2026-11-23): GS agrees bitwise on every scene, Jacobi bitwise except
 * chain:40 (5.2e-7 m, impulses 3.6e-7 N s): round-off. The tolerances are 10x those figures: POS_TOL
 * 5e-6 m and IMP_ABS 4e-6 N s. A sign error, a missing row or a wrong colour order moves bodies by
 * centimetres within a few steps, far above these bounds.
 *
 * CG is different: with 4 iterations it is far from converged, and its output is a strongly nonlinear
 * function of alpha and beta. Measured on chain:40, the float-vs-double dot rounding gives 1e-10 m after
 * one step and grows about tenfold per step (1e-6 m after 5, 0.1 m after 100), in the CPU solver as much
 * as on the device. So CG states are compared after CG_STEPS steps (measured: 1.5e-7 m, impulses 5.8e-6
 * N s, both on grid:8x8 / bridge:12; tolerances CG_POS_TOL 1.5e-6 m, CG_IMP_ABS 6e-5 N s), and after STEPS
 * steps both runs must be finite and hold their joints equally well: max gaps within CG_GAP_TOL of each
 * other (measured: 4.9e-4 m on bridge:12, gaps of 1e-4 to 8e-3 m; tolerance 5e-3 m).
 *
 * Direct on chains (the joint-space chain path, host/solve/direct_chain.c and host/opencl/opencl_direct.c).
 * Both backends run the same node steps of kernels/ctn_direct.h in double; what can differ is the split of
 * the positions into segments, which sets the order of the elimination. A CPU device takes the CPU's split
 * (one segment, two from 1024 positions), so there the two agree bit for bit: positions and impulses of
 * chain:20000 (DIRECT_LONG_STEPS steps), chain:2000, rope:2000, bridge:300 and heavy_chain:200
 * (DIRECT_STEPS). A GPU splits into segments of 128 positions (spikes to the separators: another
 * elimination order, which rounds differently, and the motion carries that on): chain:2000 is also run at
 * that split (desc.debug.chain_segment = 128) and held to SPLIT_POS_TOL / SPLIT_IMP_TOL, 10x the differences
 * measured on PoCL 3.1 (after 60 steps 2.9e-7 m and 4.3e-5 N s, exactly what the CPU at 16 segments
 * differs from the CPU at 2). Ropes and bridges are not held to it: a 2000-particle rope whipping from
 * horizontal amplifies the 1e-12 m of the two splits to 0.035 m between steps 40 and 60 (on the CPU alone
 * too), and a bridge anchored at both ends has redundant rows whose impulses the split moves by 0.016 N s
 * while the positions stay within 2e-9 m (docs/design.md, "CPU and OpenCL agreement"). From 5f5e052 until
 * CPU devices took the CPU's split, PoCL split like a GPU and chain:20000 drifted 2.2e-6 m from the CPU
 * in 200 steps.
 *
 * Usage: test_opencl_equivalence            the equivalence and determinism checks
 *        test_opencl_equivalence --hash     prints one FNV-1a hash of the OpenCL state of every scene and
 *                                           solver (used by test_opencl_threads). */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "ids.h"
#include "check.h"
#include "opencl_lsan.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEPS 100
#define POS_TOL 5e-6    /* m; measured 5.2e-7 (chain:40, Jacobi) */
#define IMP_ABS 4e-6    /* N s; measured 3.6e-7 (chain:40, Jacobi) */
#define CG_STEPS 3
#define CG_POS_TOL 1.5e-6 /* m; measured 1.5e-7 (grid:8x8) */
#define CG_IMP_ABS 6e-5   /* N s; measured 5.8e-6 (bridge:12) */
#define CG_GAP_TOL 5e-3   /* m; measured 4.9e-4 (bridge:12, after STEPS steps) */

static const char *const scenes[] = {"chain:40", "rope:40", "grid:8x8", "bridge:12", "cradle:5", "double_pendulum"};
static const ctn_solver solvers[] = {CTN_SOLVER_GS, CTN_SOLVER_JACOBI, CTN_SOLVER_CG};
static const char *const solver_names[] = {"gs", "jacobi", "cg", "direct"};
_Static_assert(CTN_SOLVER_DIRECT == 3, "solver_names is indexed by the solver");

#define DIRECT_STEPS 60
#define DIRECT_LONG_STEPS 20
#define SPLIT_POS_TOL 3e-6 /* m; measured 2.9e-7 (chain:2000, segments of 128) */
#define SPLIT_IMP_TOL 5e-4 /* N s; measured 4.3e-5 (chain:2000, segments of 128) */
static const char *const chain_scenes[] = {"chain:2000", "rope:2000", "bridge:300", "heavy_chain:200"};

typedef struct state {
    int bodies, joints;
    double *pos;  /* 3 per body id */
    double *imp;  /* 6 per joint id */
    double max_gap;
} state;

static void state_free(state *s) {
    free(s->pos);
    free(s->imp);
    memset(s, 0, sizeof *s);
}

/* Runs `scene` for STEPS steps and copies positions and joint impulses out. Returns 0 on failure. */
static int segment = -1; /* desc.debug.chain_segment of the runs (-1: the default) */

static int run(const char *scene, ctn_solver solver, ctn_backend backend, int steps, state *out) {
    ctn_world_desc d = ctn_world_desc_default();
    d.integrator = CTN_INTEGRATOR_VELOCITY; /* compared with OpenCL on the velocity step (RATTLE agrees to rounding only: test_rattle_opencl) */
    d.debug.project_chord = 0;               /* nor the projection's chord steps (CPU only) */
    d.backend = backend;
    d.solver = solver;
    d.debug.chain_segment = segment;
    ctn_world *w = NULL;
    char err[2048];
    memset(out, 0, sizeof *out);
    ctn_status st = ctn_world_create(&d, &w, err, sizeof err);
    CHECK(st == CTN_OK, "%s %s: create: %s", scene, solver_names[solver], err);
    if (st != CTN_OK) return 0;
    CHECK(strcmp(ctn_world_backend_name(w), backend == CTN_BACKEND_CPU ? "cpu" : "opencl") == 0, "backend %s", ctn_world_backend_name(w));
    st = ctn_scene_from_spec(w, scene);
    CHECK(st == CTN_OK, "%s: %s", scene, ctn_world_last_error(w));
    for (int i = 0; i < steps && st == CTN_OK; ++i) {
        st = ctn_world_step(w);
        CHECK(st == CTN_OK, "%s %s step %d: %s", scene, solver_names[solver], i, ctn_world_last_error(w));
    }
    if (st == CTN_OK) {
        /* bodies and joints are created with consecutive ids by the generators */
        out->bodies = ctn_world_body_count(w);
        out->joints = ctn_world_joint_count(w);
        out->pos = calloc(3 * (size_t)out->bodies + 1, sizeof *out->pos);
        out->imp = calloc(6 * (size_t)out->joints + 1, sizeof *out->imp);
        ctn_step_stats stats;
        ctn_world_get_stats(w, &stats);
        out->max_gap = stats.max_gap;
        int written = 0;
        st = ctn_world_get_positions(w, out->pos, out->bodies, &written);
        CHECK(st == CTN_OK && written == out->bodies, "positions: %s", ctn_world_last_error(w));
        for (int j = 0; j < out->joints && st == CTN_OK; ++j) {
            int rows = 0;
            st = ctn_joint_get_impulse(w, HJOINT(w, j), &out->imp[6 * j], &rows);
            CHECK(st == CTN_OK, "impulse %d: %s", j, ctn_world_last_error(w));
        }
    }
    ctn_world_destroy(w);
    return st == CTN_OK;
}

static uint64_t hash_state(uint64_t h, const state *s) {
    /* hash the float32 values the device produced (the doubles are exact copies of them) */
    for (int i = 0; i < 3 * s->bodies; ++i) {
        float f = (float)s->pos[i];
        const unsigned char *p = (const unsigned char *)&f;
        for (size_t k = 0; k < sizeof f; ++k) h = (h ^ p[k]) * 1099511628211ULL;
    }
    for (int i = 0; i < 6 * s->joints; ++i) {
        float f = (float)s->imp[i];
        const unsigned char *p = (const unsigned char *)&f;
        for (size_t k = 0; k < sizeof f; ++k) h = (h ^ p[k]) * 1099511628211ULL;
    }
    return h;
}

static int have_opencl(void) {
    int count = 0;
    char err[256];
    ctn_device_info dev[4];
    return ctn_list_devices(dev, 4, &count, err, sizeof err) == CTN_OK && count > 0;
}

/* Largest position and impulse differences between two runs (infinite when their sizes differ). */
static void differences(const state *a, const state *b, double *dpos, double *dimp) {
    *dpos = *dimp = a->bodies == b->bodies && a->joints == b->joints ? 0.0 : INFINITY;
    if (isinf(*dpos)) return;
    for (int i = 0; i < 3 * a->bodies; ++i) *dpos = fmax(*dpos, fabs(a->pos[i] - b->pos[i]));
    for (int i = 0; i < 6 * a->joints; ++i) *dimp = fmax(*dimp, fabs(a->imp[i] - b->imp[i]));
}

/* Direct on chains: bit for bit at the default split on a CPU device (within the GPU split's bounds on a GPU),
 * within SPLIT_POS_TOL / SPLIT_IMP_TOL at the GPU's split of 128 positions. */
static void direct_chains(void) {
    int count = 0, gpu = 0;
    char err[256];
    ctn_device_info dev[8];
    if (ctn_list_devices(dev, 8, &count, err, sizeof err) == CTN_OK)
        for (int i = 0; i < count && i < 8; ++i) gpu = gpu || dev[i].is_gpu;
    for (int c = -1; c < (int)(sizeof chain_scenes / sizeof chain_scenes[0]); ++c) {
        const char *scene = c < 0 ? "chain:20000" : chain_scenes[c];
        int steps = c < 0 ? DIRECT_LONG_STEPS : DIRECT_STEPS;
        for (int split = 0; split < (c == 0 ? 2 : 1); ++split) { /* the GPU's split on chain:2000 (see the header) */
            state cpu, ocl;
            segment = -1;
            int ok = run(scene, CTN_SOLVER_DIRECT, CTN_BACKEND_CPU, steps, &cpu);
            segment = split ? 128 : -1;
            ok = run(scene, CTN_SOLVER_DIRECT, CTN_BACKEND_OPENCL, steps, &ocl) && ok;
            segment = -1;
            if (ok) {
                double dpos, dimp;
                differences(&cpu, &ocl, &dpos, &dimp);
                int bitwise = !split && !gpu;
                printf("%-16s direct %3d steps  %s split: max |dx| %.3g m   max |dlambda| %.3g N s\n", scene, steps,
                       split ? "the GPU's" : "the default", dpos, dimp);
                if (bitwise) {
                    CHECK(dpos == 0.0 && dimp == 0.0, "%s direct: the CPU and a CPU device differ (%.3g m, %.3g N s); they split alike and "
                          "should agree bit for bit", scene, dpos, dimp);
                } else {
                    CHECK(dpos <= SPLIT_POS_TOL, "%s direct, %s split: positions differ by %.3g m", scene, split ? "GPU" : "default", dpos);
                    CHECK(dimp <= SPLIT_IMP_TOL, "%s direct, %s split: impulses differ by %.3g N s", scene, split ? "GPU" : "default", dimp);
                }
            }
            state_free(&cpu);
            state_free(&ocl);
        }
    }
}

int main(int argc, char **argv) {
    int hash_mode = argc > 1 && !strcmp(argv[1], "--hash");
    if (!have_opencl()) {
        if (hash_mode) printf("hash none\n");
        return check_skip("test_opencl_equivalence", "no OpenCL platform or device");
    }
    if (hash_mode) {
        uint64_t h = 14695981039346656037ULL;
        for (size_t sc = 0; sc < sizeof scenes / sizeof scenes[0]; ++sc)
            for (int so = 0; so < 3; ++so) {
                state s;
                if (run(scenes[sc], solvers[so], CTN_BACKEND_OPENCL, STEPS, &s)) h = hash_state(h, &s);
                state_free(&s);
            }
        printf("hash %016llx\n", (unsigned long long)h);
        return check_failures ? 1 : 0;
    }
    for (size_t sc = 0; sc < sizeof scenes / sizeof scenes[0]; ++sc) {
        for (int so = 0; so < 3; ++so) {
            state cpu, ocl, ocl2;
            int cg = solvers[so] == CTN_SOLVER_CG;
            int steps = cg ? CG_STEPS : STEPS;
            double pos_tol = cg ? CG_POS_TOL : POS_TOL, imp_tol = cg ? CG_IMP_ABS : IMP_ABS;
            int ok = run(scenes[sc], solvers[so], CTN_BACKEND_CPU, steps, &cpu);
            ok = run(scenes[sc], solvers[so], CTN_BACKEND_OPENCL, steps, &ocl) && ok;
            ok = run(scenes[sc], solvers[so], CTN_BACKEND_OPENCL, steps, &ocl2) && ok;
            if (ok) {
                double dpos = 0.0, dimp = 0.0, imax = 0.0;
                int bad_imp = 0;
                for (int i = 0; i < 3 * cpu.bodies; ++i) {
                    double d = fabs(cpu.pos[i] - ocl.pos[i]);
                    if (!(d <= dpos)) dpos = d;
                }
                for (int i = 0; i < 6 * cpu.joints; ++i) {
                    double d = fabs(cpu.imp[i] - ocl.imp[i]);
                    if (!(d <= dimp)) dimp = d;
                    if (fabs(cpu.imp[i]) > imax) imax = fabs(cpu.imp[i]);
                    if (!(d <= imp_tol)) bad_imp++;
                }
                printf("%-16s %-6s %3d steps  max |dx| %.3g m   max |dlambda| %.3g N s (max |lambda| %.3g)\n", scenes[sc], solver_names[so],
                       steps, dpos, dimp, imax);
                CHECK(cpu.bodies == ocl.bodies && cpu.joints == ocl.joints, "%s: sizes differ", scenes[sc]);
                CHECK(dpos <= pos_tol, "%s %s: positions differ by %g m", scenes[sc], solver_names[so], dpos);
                CHECK(bad_imp == 0, "%s %s: %d impulses differ by more than %g N s (max diff %g)", scenes[sc], solver_names[so], bad_imp,
                      imp_tol, dimp);
                CHECK(hash_state(1, &ocl) == hash_state(1, &ocl2) && memcmp(ocl.pos, ocl2.pos, 3 * sizeof(double) * ocl.bodies) == 0,
                      "%s %s: two OpenCL runs differ", scenes[sc], solver_names[so]);
            }
            if (cg) { /* the long run: same quality of solution */
                state_free(&cpu);
                state_free(&ocl);
                ok = run(scenes[sc], solvers[so], CTN_BACKEND_CPU, STEPS, &cpu);
                ok = run(scenes[sc], solvers[so], CTN_BACKEND_OPENCL, STEPS, &ocl) && ok;
                if (ok) {
                    int finite = 1;
                    for (int i = 0; i < 3 * ocl.bodies; ++i) finite = finite && isfinite(ocl.pos[i]);
                    printf("%-16s %-6s %3d steps  max gap cpu %.4g m, opencl %.4g m\n", scenes[sc], solver_names[so], STEPS, cpu.max_gap,
                           ocl.max_gap);
                    CHECK(finite, "%s cg: non-finite OpenCL positions", scenes[sc]);
                    CHECK(fabs(cpu.max_gap - ocl.max_gap) <= CG_GAP_TOL, "%s cg: max gap %g (cpu) vs %g (opencl)", scenes[sc], cpu.max_gap,
                          ocl.max_gap);
                }
            }
            state_free(&cpu);
            state_free(&ocl);
            state_free(&ocl2);
        }
    }
    direct_chains();
    return check_report("opencl_equivalence");
}
