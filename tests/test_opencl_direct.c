/* The exact solver for chains on the OpenCL backend (host/opencl/opencl_direct.c: the joint-space
 * segments of kernels/ctn_direct.h in double precision) against the CPU direct solver
 * (host/solve/solver_direct.c, host/solve/direct_chain.c).
 *
 * (a) Hanging chain:200, rope:500 (particles, distance joints) and heavy_chain:300 (1000:1 end) after
 *     STEPS steps at the default settings: positions agree within POS_TOL and impulses within
 *     IMP_ABS + IMP_REL |lambda|. Both solve the same linear system exactly in double and differ only in
 *     round-off (elimination order, float rounding of dl and of the velocities); a hanging chain is not
 *     chaotic, so these stay at the float level of the coordinates (measured: see the printed values).
 * (b) A 1000-link hanging chain with a 1000:1 end at 60 Hz, 1 substep, 1 iteration holds its joints to
 *     a max gap below 8e-7 of the link length on OpenCL (the position projection's round-off level).
 * (a') The same for a bridge (hinges, grounded at both ends), a horizontal chain released to swing, the
 *     double pendulum and three chains in one world.
 * (c) A grid (not a set of chains; 25 of its joints close loops) runs under direct, its loop closers in the
 *     hybrid's outer Gauss-Seidel (tests/test_opencl_hybrid.c checks it against the CPU).
 * All of it twice: chains by the chain path (desc.debug.direct_forest = 0, the default) and by the forest
 * path of host/opencl/opencl_forest.c (direct_forest = 1).
 * (d) The chain path and the CPU's chain path with the same segment count run the same operations in the
 *     same order: positions, velocities and impulses agree bit for bit, for one segment, the default
 *     segments and many short ones (desc.debug.chain_segment).
 * (e) Step statistics: exactly one blocking read per step (the statistics; the projection decides its
 *     Newton steps on the device) for direct and for GS, at most LAUNCHES_PER_SUBSTEP launches per
 *     substep of the chain path, and fewer launches once the projection knows how many steps it needs.
 * Skips without an OpenCL device, or when the device has no cl_khr_fp64. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "ids.h"
#include "check.h"
#include "opencl_lsan.h"
#include "solve/direct_internal.h" /* ctn__direct_set_chain_segments */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEPS 30
/* Tolerances: about 10x the largest difference measured on PoCL 3.1 (2-core VM, 2026-11-25), where the
 * chain path and the CPU differ only by their segment counts (round-off): positions 2.3e-13 m
 * (rope:500), impulses 0.1 of IMP_ABS + IMP_REL |lambda| (heavy_chain:300: 5.4e-7, one float ulp of
 * lambda = 5.3), the OpenCL gaps equal to the CPU's (a') and at most 7.5e-9 m (rope:500); the forest
 * path agrees bitwise with the CPU. */
#define POS_TOL 3e-12 /* m, chains 20-50 m long */
#define IMP_ABS 1e-7
#define IMP_REL 1e-6
#define GAP_TOL 8e-8       /* m: (a) hanging chains, OpenCL max gap; measured 7.5e-9 (rope:500) */
#define GAP_DIFF_TOL 1e-12 /* m: (a') |OpenCL gap - CPU gap|; measured 0 */
#define BRIDGE_POS_TOL 1e-12 /* m, see (a'); measured 0 by the chain path (the CPU's elimination) */
#define BRIDGE_FOREST_TOL 1.2e-3 /* m, the forest path against the CPU's chain path; measured 1.2e-4 */
/* (e): the chain path's substep is 11 launches (geometric inertia, rows, forces, warm start, six of the
 * solve, integration) whatever the length */
#define LAUNCHES_PER_SUBSTEP 11

static int route_forest; /* desc.debug.direct_forest of the OpenCL worlds */

static int have_opencl(void) {
    int count = 0;
    char err[256];
    ctn_device_info dev[4];
    return ctn_list_devices(dev, 4, &count, err, sizeof err) == CTN_OK && count > 0;
}

static ctn_world *make_world(ctn_backend backend, int substeps, int iterations) {
    ctn_world_desc d = ctn_world_desc_default();
    d.integrator = CTN_INTEGRATOR_VELOCITY; /* compared with OpenCL on the velocity step (RATTLE agrees to rounding only: test_rattle_opencl) */
    d.debug.project_chord = 0;               /* nor the projection's chord steps (CPU only) */
    d.backend = backend;
    d.solver = CTN_SOLVER_DIRECT;
    if (substeps > 0) d.substeps = substeps;
    if (iterations > 0) d.iterations = iterations;
    d.time_step = 1.0 / 60.0;
    d.debug.direct_forest = route_forest;
    ctn_world *w = NULL;
    char err[2048];
    ctn_status st = ctn_world_create(&d, &w, err, sizeof err);
    CHECK(st == CTN_OK, "create: %s", err);
    return st == CTN_OK ? w : NULL;
}

static void hanging(ctn_world *w, int links, int particles, double end_ratio, int index) {
    ctn_chain_desc cd = ctn_chain_desc_default(links);
    cd.direction[0] = 0.0, cd.direction[1] = -1.0, cd.direction[2] = 0.0;
    cd.particles = particles;
    cd.end_mass_ratio = end_ratio;
    cd.origin[1] = 0.5 * links * cd.link_length;
    cd.origin[0] = index * 1.0;
    CHECK(ctn_scene_chain(w, &cd, NULL) == CTN_OK, "chain: %s", ctn_world_last_error(w));
}

typedef struct state {
    int bodies, joints;
    double *pos, *imp, max_gap;
} state;

/* Runs a hanging chain for `steps` steps. Returns 1 on success, 0 on failure, -1 when the OpenCL device
 * cannot run the direct solver (no fp64): the caller skips. */
static int run_scene(ctn_backend backend, const char *spec, int links, int particles, double end_ratio, int chains, int substeps,
                     int iterations, int steps, state *out) {
    memset(out, 0, sizeof *out);
    ctn_world *w = make_world(backend, substeps, iterations);
    if (!w) return 0;
    if (spec) CHECK(ctn_scene_from_spec(w, spec) == CTN_OK, "%s: %s", spec, ctn_world_last_error(w));
    for (int c = 0; !spec && c < chains; ++c) hanging(w, links, particles, end_ratio, c);
    ctn_status st = CTN_OK;
    ctn_step_stats s;
    memset(&s, 0, sizeof s);
    for (int i = 0; i < steps && st == CTN_OK; ++i) {
        st = ctn_world_step(w);
        if (st == CTN_ERR_UNSUPPORTED && i == 0 && strstr(ctn_world_last_error(w), "fp64")) {
            printf("test_opencl_direct: %s; skipped\n", ctn_world_last_error(w));
            ctn_world_destroy(w);
            return -1;
        }
        CHECK(st == CTN_OK, "step %d: %s", i, ctn_world_last_error(w));
        ctn_world_get_stats(w, &s);
        if (s.max_gap > out->max_gap) out->max_gap = s.max_gap;
    }
    if (st == CTN_OK && backend == CTN_BACKEND_CPU) /* the step statistics count device work */
        CHECK(s.launches == 0 && s.blocking_reads == 0, "cpu: %d launches, %d blocking reads", s.launches, s.blocking_reads);
    else if (st == CTN_OK) /* at least the one read of the step's statistics */
        CHECK(s.launches > 0 && s.blocking_reads >= 1, "opencl: %d launches, %d blocking reads", s.launches, s.blocking_reads);
    if (st == CTN_OK) {
        out->bodies = ctn_world_body_count(w);
        out->joints = ctn_world_joint_count(w);
        out->pos = calloc(3 * (size_t)out->bodies + 1, sizeof *out->pos);
        out->imp = calloc(6 * (size_t)out->joints + 1, sizeof *out->imp);
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

static int run(ctn_backend backend, int links, int particles, double end_ratio, int substeps, int iterations, int steps, state *out) {
    return run_scene(backend, NULL, links, particles, end_ratio, 1, substeps, iterations, steps, out);
}

static void state_free(state *s) {
    free(s->pos);
    free(s->imp);
    memset(s, 0, sizeof *s);
}

/* All checks on one route of chains: cyclic reduction or the forest path. Returns -1 to skip (no fp64). */
static int suite(void) {
    /* (a) CPU direct vs OpenCL direct */
    static const struct {
        const char *name;
        int links, particles;
        double ratio;
    } cases[] = {{"chain:200", 200, 0, 1.0}, {"rope:500", 500, 1, 1.0}, {"heavy_chain:300", 300, 0, 1000.0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        state cpu, ocl;
        int ok = run(CTN_BACKEND_CPU, cases[c].links, cases[c].particles, cases[c].ratio, 0, 0, STEPS, &cpu);
        int r = run(CTN_BACKEND_OPENCL, cases[c].links, cases[c].particles, cases[c].ratio, 0, 0, STEPS, &ocl);
        if (r < 0) {
            state_free(&cpu);
            return -1;
        }
        if (ok && r > 0) {
            double dp = 0.0, di = 0.0, imax = 0.0;
            for (int i = 0; i < 3 * cpu.bodies; ++i) dp = fmax(dp, fabs(cpu.pos[i] - ocl.pos[i]));
            for (int i = 0; i < 6 * cpu.joints; ++i) {
                double tol = IMP_ABS + IMP_REL * fabs(cpu.imp[i]);
                di = fmax(di, fabs(cpu.imp[i] - ocl.imp[i]) / tol);
                imax = fmax(imax, fabs(cpu.imp[i]));
            }
            printf("%s hanging, %d steps: max |dx| %.3g m, impulse difference %.3g of tolerance (max |lambda| %.3g), max gap cpu %.3g "
                   "opencl %.3g m\n",
                   cases[c].name, STEPS, dp, di, imax, cpu.max_gap, ocl.max_gap);
            CHECK(dp <= POS_TOL, "%s: positions differ by %.3g m (tol %.3g)", cases[c].name, dp, POS_TOL);
            CHECK(di <= 1.0, "%s: impulses differ by %.3g of the tolerance", cases[c].name, di);
            CHECK(ocl.max_gap <= GAP_TOL, "%s: OpenCL max gap %.3g m", cases[c].name, ocl.max_gap);
        }
        state_free(&cpu);
        state_free(&ocl);
    }

    /* (a') other path layouts, same tolerances: chains grounded at both ends (bridge, hinges), a chain
     * released horizontally (whipping, 10 steps), two rigid joints (double pendulum), three separate
     * hanging chains in one world (paths concatenated with zero couplings). */
    static const char *const specs[] = {"bridge:12", "chain:100", "double_pendulum", NULL};
    for (size_t c = 0; c < sizeof specs / sizeof specs[0]; ++c) {
        state cpu, ocl;
        int steps = specs[c] && !strcmp(specs[c], "chain:100") ? 10 : STEPS;
        int ok = run_scene(CTN_BACKEND_CPU, specs[c], 50, 0, 10.0, 3, 0, 0, steps, &cpu);
        ok = run_scene(CTN_BACKEND_OPENCL, specs[c], 50, 0, 10.0, 3, 0, 0, steps, &ocl) > 0 && ok;
        if (ok) {
            double dp = 0.0;
            for (int i = 0; i < 3 * cpu.bodies; ++i) dp = fmax(dp, fabs(cpu.pos[i] - ocl.pos[i]));
            printf("%s, %d steps: max |dx| %.3g m, max gap cpu %.3g opencl %.3g m\n", specs[c] ? specs[c] : "3 hanging chains:50", steps, dp,
                   cpu.max_gap, ocl.max_gap);
            /* The bridge is a loop through the world: with its hinge axes parallel, the out-of-plane rows
             * are redundant, so the system is singular up to the 1e-10 floor and its velocity solution
             * depends on round-off and on where a pivot is dropped (measured after one step: 3e-3 m/s
             * between the CPU and OpenCL direct solvers, and as much between either and CG with 300
             * iterations). It is held to the gap and to BRIDGE_POS_TOL (BRIDGE_FOREST_TOL on the forest
             * path, a different elimination order). */
            double tol = specs[c] && !strcmp(specs[c], "bridge:12") ? (route_forest ? BRIDGE_FOREST_TOL : BRIDGE_POS_TOL) : POS_TOL;
            CHECK(dp <= tol, "%s: positions differ by %.3g m (tol %.3g)", specs[c] ? specs[c] : "3 chains", dp, tol);
            CHECK(fabs(ocl.max_gap - cpu.max_gap) <= GAP_DIFF_TOL, "%s: OpenCL gap %.3g m vs CPU %.3g m", specs[c] ? specs[c] : "3 chains",
                  ocl.max_gap, cpu.max_gap);
        }
        state_free(&cpu);
        state_free(&ocl);
    }

    /* (b) 1000 links, 1000:1 end, 60 Hz, 1 substep, 1 iteration, 60 steps */
    state h;
    if (run(CTN_BACKEND_OPENCL, 1000, 0, 1000.0, 1, 1, 60, &h) > 0) {
        printf("1000-link chain, 1000:1 end, 1 substep, 1 iteration, 60 steps on OpenCL: max gap %.3g link lengths\n", h.max_gap / 0.1);
        /* measured 7.6e-8 link lengths (the projection's tolerance is 1e-7 m = 1e-6 link lengths) */
        CHECK(h.max_gap < 8e-7 * 0.1, "1000-link heavy chain on OpenCL: max gap %.3g link lengths", h.max_gap / 0.1);
    }
    state_free(&h);

    /* (c) not a chain, with loops: the forest path and the outer Gauss-Seidel */
    ctn_world *w = make_world(CTN_BACKEND_OPENCL, 0, 0);
    if (w) {
        CHECK(ctn_scene_from_spec(w, "grid:6x6") == CTN_OK, "grid: %s", ctn_world_last_error(w));
        ctn_status st = ctn_world_step(w);
        ctn_step_stats s;
        ctn_world_get_stats(w, &s);
        printf("grid:6x6 with direct on OpenCL: %s, solver %d, max gap %.3g m\n", ctn_status_name(st), (int)s.solver, s.max_gap);
        CHECK(st == CTN_OK && s.solver == CTN_SOLVER_DIRECT, "grid: status %d (%s), solver %d", (int)st, ctn_world_last_error(w), (int)s.solver);
        ctn_world_destroy(w);
    }
    return 0;
}

/* (d) OpenCL chain path vs the CPU's chain path with its segment count forced to the device's. */
static void bitwise(const char *spec, int segment, int steps) {
    ctn_world *w[2] = {make_world(CTN_BACKEND_CPU, 0, 0), make_world(CTN_BACKEND_OPENCL, 0, 0)};
    if (!w[0] || !w[1]) goto done;
    for (int b = 0; b < 2; ++b) CHECK(ctn_scene_from_spec(w[b], spec) == CTN_OK, "%s: %s", spec, ctn_world_last_error(w[b]));
    int m = ctn_world_joint_count(w[0]), P = segment > 0 ? (m + segment - 1) / segment : 1;
    if (P > (m + 1) / 2) P = (m + 1) / 2;
    ctn_world_desc d;
    ctn_world_get_desc(w[1], &d);
    d.debug.chain_segment = segment;
    CHECK(ctn_world_set_desc(w[1], &d) == CTN_OK, "set_desc: %s", ctn_world_last_error(w[1]));
    ctn__direct_set_chain_segments(w[0], P);
    for (int i = 0; i < steps; ++i)
        for (int b = 0; b < 2; ++b) CHECK(ctn_world_step(w[b]) == CTN_OK, "%s step %d: %s", spec, i, ctn_world_last_error(w[b]));
    int n = ctn_world_body_count(w[0]), mj = ctn_world_joint_count(w[0]), diff = 0, written = 0;
    double *x[2], *v[2];
    for (int b = 0; b < 2; ++b) {
        x[b] = calloc(3 * (size_t)n + 1, sizeof(double)), v[b] = calloc(3 * (size_t)n + 1, sizeof(double));
        CHECK(ctn_world_get_positions(w[b], x[b], n, &written) == CTN_OK && written == n, "positions");
        CHECK(ctn_world_get_body_field(w[b], CTN_BODY_ANGULAR_VELOCITY, v[b], n, &written) == CTN_OK && written == n, "velocities");
    }
    for (int i = 0; i < 3 * n; ++i) diff += x[0][i] != x[1][i] || v[0][i] != v[1][i];
    for (int j = 0; j < mj; ++j) {
        double l[2][6] = {{0}};
        int rows = 0;
        for (int b = 0; b < 2; ++b) CHECK(ctn_joint_get_impulse(w[b], HJOINT(w[b], j), l[b], &rows) == CTN_OK, "impulse %d", j);
        for (int r = 0; r < 6; ++r) diff += l[0][r] != l[1][r];
    }
    printf("%s, %d segments (chain_segment %d), %d steps: %d values differ between the CPU and OpenCL chain paths\n", spec, P, segment,
           steps, diff);
    CHECK(diff == 0, "%s, %d segments: %d values differ (the two chain paths should agree bit for bit)", spec, P, diff);
    for (int b = 0; b < 2; ++b) free(x[b]), free(v[b]);
done:
    for (int b = 0; b < 2; ++b) ctn_world_destroy(w[b]);
}

/* (e) launches and blocking reads of a step: *first of the first step (the projection enqueues its
 * CTN_PROJECT_MAX Newton steps: nothing is known yet), *last of the STAT_STEPS-th (sized by the Newton steps
 * the steps before needed, host/opencl/opencl_stages.c project_plan). Every step: one blocking read. */
#define STAT_STEPS 8
static void step_counts(ctn_solver solver, const char *spec, int substeps, int *first, int *last) {
    ctn_world *w = make_world(CTN_BACKEND_OPENCL, substeps, 4);
    *first = *last = -1;
    if (!w) return;
    ctn_world_desc d;
    ctn_world_get_desc(w, &d);
    d.solver = solver;
    CHECK(ctn_world_set_desc(w, &d) == CTN_OK, "set_desc: %s", ctn_world_last_error(w));
    CHECK(ctn_scene_from_spec(w, spec) == CTN_OK, "%s: %s", spec, ctn_world_last_error(w));
    ctn_step_stats s;
    for (int i = 0; i < STAT_STEPS; ++i) {
        CHECK(ctn_world_step(w) == CTN_OK, "%s step %d: %s", spec, i, ctn_world_last_error(w));
        ctn_world_get_stats(w, &s);
        CHECK(s.blocking_reads == 1, "%s, %d substeps, step %d: %d blocking reads, expected 1", spec, substeps, i, s.blocking_reads);
        if (i == 0) *first = s.launches;
        *last = s.launches;
    }
    ctn_world_destroy(w);
}

static void statistics(void) {
    int f1, l1, f2, l2, fg, lg;
    step_counts(CTN_SOLVER_DIRECT, "chain:3000", 1, &f1, &l1);
    step_counts(CTN_SOLVER_DIRECT, "chain:3000", 2, &f2, &l2);
    step_counts(CTN_SOLVER_GS, "chain:3000", 2, &fg, &lg);
    printf("chain:3000 direct: %d launches per step at 1 substep (first step %d), %d at 2 (first step %d; %d per substep); gs 4x2: %d; "
           "1 blocking read per step\n",
           l1, f1, l2, f2, f2 - f1, lg);
    /* the first steps enqueue the same projection: their difference is one substep */
    CHECK(f2 - f1 > 0 && f2 - f1 <= LAUNCHES_PER_SUBSTEP, "chain direct: %d launches per substep (at most %d)", f2 - f1, LAUNCHES_PER_SUBSTEP);
    /* measured 79: the substep's 11, the statistics' 2, the projection's begin, 8 Newton steps of 8 (rows,
     * decision, the chain solve's 5, integration) and its leave */
    CHECK(f1 <= LAUNCHES_PER_SUBSTEP + 2 + 2 + 8 * 8, "chain direct: %d launches in the first step", f1);
    /* measured 57 and 50: the hanging chain needs 4 Newton steps at 1 substep, 2 at 2 (plus one in reserve) */
    CHECK(l1 < f1 && l2 < f2, "chain direct: the projection did not adapt (%d after %d, %d after %d launches)", l1, f1, l2, f2);
    CHECK(fg == lg, "gs: %d then %d launches per step", fg, lg);
}

int main(void) {
    if (!have_opencl()) {
        return check_skip("test_opencl_direct", "no OpenCL platform or device");
    }
    /* chains by the chain path (the default), then by the forest path */
    for (route_forest = 0; route_forest < 2; ++route_forest) {
        printf("-- chains by %s\n", route_forest ? "the forest path (host/opencl/opencl_forest.c)" : "the chain path (host/opencl/opencl_direct.c)");
        if (suite() < 0)
            return check_failures ? check_report("test_opencl_direct") : check_skip("test_opencl_direct", "the OpenCL device has no fp64");
    }
    route_forest = 0;
    bitwise("chain:300", 0, 20);
    bitwise("chain:300", 128, 20);
    bitwise("rope:400", 7, 20);
    bitwise("bridge:40", 5, 20);
    bitwise("heavy_chain:200", 16, 20);
    statistics();
    return check_report("test_opencl_direct");
}
