/* The exact solver for trees (forests) of joints on the OpenCL backend (host/opencl/opencl_forest.c,
 * level-scheduled block elimination in double) against the CPU direct solver (host/solve/solver_direct.c).
 *
 * Both eliminate the same KKT system over the same elimination tree in double precision and sum in the
 * same order, so they differ by round-off only. Each scene runs STEPS steps on both backends; positions
 * must agree within POS_TOL and the OpenCL worst joint gap must match the CPU's (and be small):
 *   (a) tree:63, a binary tree of rigid links pinned at the root (the CLI generator);
 *   (b) a star: 6 chains of 15 links hanging from one pinned hub body;
 *   (c) 20 seeded random trees of 2..30 rigid bodies with random masses (0.05..5 kg) and mixed joints
 *       (ball, hinge, fixed, distance) plus an axial spring (a force, no rows), root pinned;
 *   (d) a 200-link chain with a 1000:1 heavy end and a 30-link side branch from link 100 (8 substeps);
 *   (e) tree:31 pinned at two leaves as well (grounded subtrees: rows merged into supernodes);
 *   (f) a forest: two trees and a chain in one world;
 *   (g) a 10000-link chain with a 50-link side branch at link 5000 (two paths of 5000 joints: 10000
 *       levels with one launch per level, 2 serial bands by default on PoCL);
 *   (h) a topology change between steps (a chain hung from a tree after 10 steps).
 * Control, so the tolerance means something: CPU Gauss-Seidel (4 iterations) on (a) differs from CPU
 * direct by more than POS_TOL. A loop of joints (a ring) and hinge limits run under direct too, the loop
 * closer and the limited joints in the hybrid's outer Gauss-Seidel (tests/test_opencl_hybrid.c compares
 * such layouts with the CPU). Skips without an OpenCL device or without fp64. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "ids.h"
#include "check.h"
#include "opencl_lsan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEPS 30
#define POS_TOL 1e-6 /* m; trees of 0.1 m links, 1-3 m across; measured 9.7e-8 (PoCL 3.1, tree:63, 2026-11-25) */

static int have_opencl(void) {
    int count = 0;
    char err[256];
    ctn_device_info dev[4];
    return ctn_list_devices(dev, 4, &count, err, sizeof err) == CTN_OK && count > 0;
}

typedef void (*builder)(ctn_world *w, int seed);

static ctn_body_id add_link(ctn_world *w, const double start[3], const double u[3], double L, double mass, ctn_body_id parent,
                            ctn_joint_type type, double tip[3]) {
    ctn_body_desc bd = ctn_body_desc_default();
    for (int k = 0; k < 3; ++k) {
        bd.position[k] = start[k] + 0.5 * L * u[k];
        if (tip) tip[k] = start[k] + L * u[k];
    }
    bd.mass = mass;
    double he[3] = {0.5 * L, 0.08 * L, 0.06 * L};
    ctn_inertia_box(mass, he, bd.inertia);
    ctn_body_id id = CTN_NULL_BODY;
    CHECK(ctn_body_add(w, &bd, &id) == CTN_OK, "body: %s", ctn_world_last_error(w));
    ctn_joint_desc jd = ctn_joint_desc_default(type);
    jd.body_a = id;
    jd.body_b = parent;
    double axis[3] = {0.0, 0.0, 1.0};
    if (type == CTN_JOINT_DISTANCE) { /* a rigid rod from the parent's anchor to this body's centre */
        ctn_joint_desc_set_pivot(w, &jd, start, NULL);
        memset(jd.anchor_a, 0, sizeof jd.anchor_a);
        jd.rest_length = -1.0;
    } else {
        CHECK(ctn_joint_desc_set_pivot(w, &jd, start, axis) == CTN_OK, "pivot: %s", ctn_world_last_error(w));
    }
    CHECK(ctn_joint_add(w, &jd, NULL) == CTN_OK, "joint: %s", ctn_world_last_error(w));
    return id;
}

/* A hanging chain of `links` links from `parent` (or the world) at `start`, tilted by u. */
static ctn_body_id add_chain(ctn_world *w, const double start[3], const double u[3], int links, double mass, double end_ratio,
                             ctn_body_id parent) {
    double at[3] = {start[0], start[1], start[2]}, tip[3];
    ctn_body_id id = parent;
    for (int i = 0; i < links; ++i) {
        id = add_link(w, at, u, 0.1, mass * (i == links - 1 ? end_ratio : 1.0), id, CTN_JOINT_BALL, tip);
        memcpy(at, tip, sizeof at);
    }
    return id;
}

static void scene_binary(ctn_world *w, int seed) {
    (void)seed;
    CHECK(ctn_scene_from_spec(w, "tree:63") == CTN_OK, "tree:63: %s", ctn_world_last_error(w));
}

static void scene_star(ctn_world *w, int seed) {
    (void)seed;
    double o[3] = {0, 0, 0}, down[3] = {0, -1, 0}, tip[3];
    ctn_body_id hub = add_link(w, o, down, 0.2, 2.0, CTN_WORLD, CTN_JOINT_BALL, tip);
    for (int c = 0; c < 6; ++c) {
        double a = c * 1.0471975511965976, u[3] = {0.5 * cos(a), -0.8660254, 0.5 * sin(a)};
        add_chain(w, tip, u, 15, 0.1, 1.0, hub);
    }
}

static double rnd(unsigned *s) {
    *s = *s * 1664525u + 1013904223u;
    return (double)(*s >> 8) / 16777216.0;
}

static void scene_random(ctn_world *w, int seed) {
    unsigned s = 12345u + 7919u * (unsigned)seed;
    int n = 2 + (int)(rnd(&s) * 29);
    double tips[30][3], o[3] = {0, 0, 0};
    ctn_body_id ids[30];
    static const ctn_joint_type types[4] = {CTN_JOINT_BALL, CTN_JOINT_HINGE, CTN_JOINT_FIXED, CTN_JOINT_DISTANCE};
    for (int i = 0; i < n; ++i) {
        int p = i ? (int)(rnd(&s) * i) : -1;
        double u[3] = {rnd(&s) - 0.5, -1.0, rnd(&s) - 0.5}, len = sqrt(u[0] * u[0] + 1.0 + u[2] * u[2]);
        for (int k = 0; k < 3; ++k) u[k] /= len;
        double mass = 0.05 * pow(100.0, rnd(&s)); /* 0.05 .. 5 kg */
        ctn_joint_type t = i ? types[(int)(rnd(&s) * 4)] : CTN_JOINT_BALL;
        ids[i] = add_link(w, p >= 0 ? tips[p] : o, u, 0.1 + 0.1 * rnd(&s), mass, p >= 0 ? ids[p] : CTN_WORLD, t, tips[i]);
    }
    if (n > 2) { /* an axial spring between the last body and the root: a force element, no rows */
        ctn_joint_desc sp = ctn_joint_desc_default(CTN_JOINT_SPRING);
        sp.body_a = ids[n - 1];
        sp.body_b = ids[0];
        sp.rest_length = -1.0;
        sp.stiffness = 20.0;
        sp.damping = 0.1;
        CHECK(ctn_joint_add(w, &sp, NULL) == CTN_OK, "spring: %s", ctn_world_last_error(w));
    }
}

static void scene_heavy_branch(ctn_world *w, int seed) {
    (void)seed;
    double o[3] = {0, 0, 0}, down[3] = {0, -1, 0}, side[3] = {0.6, -0.8, 0};
    add_chain(w, o, down, 200, 0.1, 1000.0, CTN_WORLD); /* bodies 0..199, joints 0..199 */
    ctn_body_state st;
    CHECK(ctn_body_get_state(w, HBODY(w, 100), &st) == CTN_OK, "state: %s", ctn_world_last_error(w));
    double at[3] = {st.position[0], st.position[1] - 0.05, st.position[2]};
    add_chain(w, at, side, 30, 0.1, 1.0, HBODY(w, 100));
}

static void scene_long_branch(ctn_world *w, int seed) { /* (g): paths of thousands of joints */
    (void)seed;
    double o[3] = {0, 0, 0}, down[3] = {0, -1, 0}, side[3] = {0.6, -0.8, 0};
    add_chain(w, o, down, 10000, 0.1, 1.0, CTN_WORLD);
    ctn_body_state st;
    CHECK(ctn_body_get_state(w, HBODY(w, 5000), &st) == CTN_OK, "state: %s", ctn_world_last_error(w));
    double at[3] = {st.position[0], st.position[1] - 0.05, st.position[2]};
    add_chain(w, at, side, 50, 0.1, 1.0, HBODY(w, 5000));
}

static void scene_two_pins(ctn_world *w, int seed) {
    (void)seed;
    CHECK(ctn_scene_from_spec(w, "tree:31") == CTN_OK, "tree:31: %s", ctn_world_last_error(w));
    static const int leaves[2] = {15, 30};
    for (int k = 0; k < 2; ++k) {
        ctn_body_state st;
        CHECK(ctn_body_get_state(w, HBODY(w, leaves[k]), &st) == CTN_OK, "state: %s", ctn_world_last_error(w));
        ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_BALL);
        jd.body_a = HBODY(w, leaves[k]);
        jd.body_b = CTN_WORLD;
        CHECK(ctn_joint_desc_set_pivot(w, &jd, st.position, NULL) == CTN_OK, "pin: %s", ctn_world_last_error(w));
        CHECK(ctn_joint_add(w, &jd, NULL) == CTN_OK, "pin: %s", ctn_world_last_error(w));
    }
}

static void scene_forest(ctn_world *w, int seed) {
    (void)seed;
    CHECK(ctn_scene_from_spec(w, "tree:15") == CTN_OK, "tree:15: %s", ctn_world_last_error(w));
    double o[3] = {3, 0, 0}, down[3] = {0, -1, 0}, u[3] = {0.5, -0.8660254, 0}, tip[3];
    ctn_body_id root = add_link(w, o, down, 0.1, 0.3, CTN_WORLD, CTN_JOINT_HINGE, tip);
    add_chain(w, tip, u, 10, 0.1, 1.0, root);
    double v[3] = {-0.5, -0.8660254, 0};
    add_chain(w, tip, v, 10, 0.1, 1.0, root);
    double o2[3] = {-3, 0, 0};
    add_chain(w, o2, u, 40, 0.1, 1.0, CTN_WORLD);
}

typedef struct result {
    int ok, bodies;
    double *pos, max_gap;
} result;

/* desc.debug.forest_band of the worlds run() creates (-1: the device's default schedule). */
static int forest_band = -1;

/* Runs a scene; ok = 1 on success, 0 on failure, -1 when the OpenCL device has no fp64 (skip). */
static result run(ctn_backend backend, ctn_solver solver, builder b, int seed, int substeps, int steps) {
    result r = {0, 0, NULL, 0.0};
    ctn_world_desc d = ctn_world_desc_default();
    d.integrator = CTN_INTEGRATOR_VELOCITY; /* compared with OpenCL on the velocity step (RATTLE agrees to rounding only: test_rattle_opencl) */
    d.debug.project_chord = 0;               /* nor the projection's chord steps (CPU only) */
    d.debug.forest_band = forest_band;
    d.backend = backend;
    d.solver = solver;
    if (substeps > 0) d.substeps = substeps;
    ctn_world *w = NULL;
    char err[2048];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        CHECK(0, "create: %s", err);
        return r;
    }
    b(w, seed);
    ctn_status st = CTN_OK;
    for (int i = 0; i < steps && st == CTN_OK; ++i) {
        st = ctn_world_step(w);
        if (st == CTN_ERR_UNSUPPORTED && i == 0 && strstr(ctn_world_last_error(w), "fp64")) {
            printf("test_opencl_forest: %s; skipped\n", ctn_world_last_error(w));
            ctn_world_destroy(w);
            r.ok = -1;
            return r;
        }
        CHECK(st == CTN_OK, "step %d: %s", i, ctn_world_last_error(w));
        ctn_step_stats s;
        ctn_world_get_stats(w, &s);
        if (s.max_gap > r.max_gap) r.max_gap = s.max_gap;
    }
    if (st == CTN_OK) {
        r.bodies = ctn_world_body_count(w);
        r.pos = calloc(3 * (size_t)r.bodies + 1, sizeof *r.pos);
        int written = 0;
        st = ctn_world_get_positions(w, r.pos, r.bodies, &written);
        CHECK(st == CTN_OK && written == r.bodies, "positions: %s", ctn_world_last_error(w));
        r.ok = st == CTN_OK;
    }
    ctn_world_destroy(w);
    return r;
}

static double max_diff(const result *a, const result *b) {
    double dp = 0.0;
    for (int i = 0; i < 3 * a->bodies && i < 3 * b->bodies; ++i) dp = fmax(dp, fabs(a->pos[i] - b->pos[i]));
    return dp;
}

/* CPU direct vs OpenCL direct on one scene, the OpenCL run twice: with this device's default schedule
 * and with one launch per level (desc.debug.forest_band = 1, the GPU schedule; on a CPU device the default
 * is serial bands). Returns -1 to skip (no fp64), else 0. */
static int compare(const char *name, builder b, int seed, int substeps, double gap_tol) {
    result cpu = run(CTN_BACKEND_CPU, CTN_SOLVER_DIRECT, b, seed, substeps, STEPS);
    result ocl[2];
    int modes = b == scene_long_branch ? 1 : 2; /* (g): 20000 launches per solve with one per level */
    for (int mode = 0; mode < 2; ++mode) {
        if (mode >= modes) {
            ocl[mode] = (result){0, 0, NULL, 0.0};
            continue;
        }
        forest_band = mode ? 1 : -1;
        ocl[mode] = run(CTN_BACKEND_OPENCL, CTN_SOLVER_DIRECT, b, seed, substeps, STEPS);
    }
    forest_band = -1;
    if (ocl[0].ok < 0) {
        free(cpu.pos), free(ocl[1].pos);
        return -1;
    }
    for (int mode = 0; mode < 2 && cpu.ok > 0; ++mode) {
        if (ocl[mode].ok <= 0) continue;
        const char *how = mode ? "one launch per level" : "default schedule";
        double dp = max_diff(&cpu, &ocl[mode]);
        printf("%s, %s: %d bodies, %d steps: max |dx| %.3g m, max gap cpu %.3g opencl %.3g m\n", name, how, cpu.bodies, STEPS, dp,
               cpu.max_gap, ocl[mode].max_gap);
        CHECK(dp <= POS_TOL, "%s, %s: positions differ by %.3g m (tol %.3g)", name, how, dp, POS_TOL);
        /* measured: at most 4e-10 m apart (tree:63; PoCL 3.1, 2026-11-25) */
        CHECK(fabs(ocl[mode].max_gap - cpu.max_gap) <= 4e-9, "%s, %s: OpenCL gap %.3g m vs CPU %.3g m", name, how,
              ocl[mode].max_gap, cpu.max_gap);
        CHECK(ocl[mode].max_gap <= gap_tol, "%s, %s: OpenCL max gap %.3g m (tol %.3g)", name, how, ocl[mode].max_gap, gap_tol);
    }
    if (ocl[0].ok > 0 && ocl[1].ok > 0) printf("   default vs one launch per level on OpenCL: max |dx| %.3g m\n", max_diff(&ocl[0], &ocl[1]));
    free(cpu.pos), free(ocl[0].pos), free(ocl[1].pos);
    return 0;
}

/* A layout outside the forest (loop closers, bounded rows) runs under direct on OpenCL: the hybrid. */
static void hybrid(const char *name, builder b) {
    ctn_world_desc d = ctn_world_desc_default();
    d.integrator = CTN_INTEGRATOR_VELOCITY; /* compared with OpenCL on the velocity step (RATTLE agrees to rounding only: test_rattle_opencl) */
    d.debug.project_chord = 0;               /* nor the projection's chord steps (CPU only) */
    d.backend = CTN_BACKEND_OPENCL;
    d.solver = CTN_SOLVER_DIRECT;
    d.debug.direct_forest = 1; /* the forest path also for a bridge (a chain) */
    ctn_world *w = NULL;
    char err[2048];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        CHECK(0, "create: %s", err);
        return;
    }
    b(w, 0);
    ctn_status st = CTN_OK;
    for (int i = 0; i < 10 && st == CTN_OK; ++i) st = ctn_world_step(w);
    ctn_step_stats s;
    ctn_world_get_stats(w, &s);
    printf("%s with direct on OpenCL: %s, solver %d, max gap %.3g m\n", name, ctn_status_name(st), (int)s.solver, s.max_gap);
    CHECK(st == CTN_OK && s.solver == CTN_SOLVER_DIRECT, "%s: status %d (%s), solver %d", name, (int)st, ctn_world_last_error(w), (int)s.solver);
    ctn_world_destroy(w);
}

/* (h) a topology change between steps: tree:31 for 10 steps, then a 5-link chain hung from body 20 and 10
 * more steps; the forest schedule is rebuilt for the new topology_version. Positions into pos. */
static int run_grow(ctn_backend backend, double *pos, int cap, int *bodies) {
    ctn_world_desc d = ctn_world_desc_default();
    d.integrator = CTN_INTEGRATOR_VELOCITY; /* compared with OpenCL on the velocity step (RATTLE agrees to rounding only: test_rattle_opencl) */
    d.debug.project_chord = 0;               /* nor the projection's chord steps (CPU only) */
    d.backend = backend;
    d.solver = CTN_SOLVER_DIRECT;
    ctn_world *w = NULL;
    char err[2048];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        CHECK(0, "create: %s", err);
        return 0;
    }
    CHECK(ctn_scene_from_spec(w, "tree:31") == CTN_OK, "tree:31: %s", ctn_world_last_error(w));
    ctn_status st = CTN_OK;
    for (int i = 0; i < 20 && st == CTN_OK; ++i) {
        if (i == 10) {
            ctn_body_state bs;
            CHECK(ctn_body_get_state(w, HBODY(w, 20), &bs) == CTN_OK, "state: %s", ctn_world_last_error(w));
            double down[3] = {0, -1, 0};
            add_chain(w, bs.position, down, 5, 0.1, 1.0, HBODY(w, 20));
        }
        st = ctn_world_step(w);
        CHECK(st == CTN_OK, "grow step %d: %s", i, ctn_world_last_error(w));
    }
    int written = 0;
    *bodies = ctn_world_body_count(w);
    if (st == CTN_OK) CHECK(ctn_world_get_positions(w, pos, cap, &written) == CTN_OK, "positions: %s", ctn_world_last_error(w));
    ctn_world_destroy(w);
    return st == CTN_OK && written == *bodies;
}

static void scene_ring(ctn_world *w, int seed) { /* tree:7 with a joint closing a loop between two leaves */
    (void)seed;
    CHECK(ctn_scene_from_spec(w, "tree:7") == CTN_OK, "tree:7: %s", ctn_world_last_error(w));
    ctn_body_state a, b;
    ctn_body_get_state(w, HBODY(w, 3), &a);
    ctn_body_get_state(w, HBODY(w, 4), &b);
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_DISTANCE);
    jd.body_a = HBODY(w, 3);
    jd.body_b = HBODY(w, 4);
    jd.rest_length = -1.0;
    CHECK(ctn_joint_add(w, &jd, NULL) == CTN_OK, "loop joint: %s", ctn_world_last_error(w));
    (void)a, (void)b;
}

static void scene_limit(ctn_world *w, int seed) { /* bridge_limits: hinges with angle limits (bounded rows) */
    (void)seed;
    CHECK(ctn_scene_from_spec(w, "bridge_limits:6") == CTN_OK, "bridge_limits: %s", ctn_world_last_error(w));
}

int main(void) {
    if (!have_opencl()) {
        return check_skip("test_opencl_forest", "no OpenCL platform or device");
    }
    /* gap tolerances: 10x the largest OpenCL max gap measured on PoCL 3.1 (2-core VM, 2026-11-23) */
    if (compare("(a) tree:63 pinned at the root", scene_binary, 0, 0, 4e-7) < 0) /* measured 3.8e-8 m */
        return check_failures ? check_report("test_opencl_forest") : check_skip("test_opencl_forest", "the OpenCL device has no fp64");
    compare("(b) star: 6 chains of 15 from one hub", scene_star, 0, 0, 8e-7); /* 8.1e-8 m */
    for (int seed = 0; seed < 20; ++seed) {
        char name[64];
        snprintf(name, sizeof name, "(c) random tree, seed %d", seed);
        compare(name, scene_random, seed, 0, 2e-6); /* 1.9e-7 m (seed 19 and others) */
    }
    compare("(d) 200-link chain, 1000:1 end, side branch of 30", scene_heavy_branch, 0, 8, 1.1e-7); /* 1.1e-8 m */
    compare("(e) tree:31 pinned at the root and two leaves", scene_two_pins, 0, 0, 6e-7); /* 6.4e-8 m */
    compare("(f) forest: tree:15, a hinged tree, a chain", scene_forest, 0, 0, 1e-6); /* 1.0e-7 m */
    compare("(g) 10000-link chain with a 50-link side branch", scene_long_branch, 0, 0, 1.2e-7); /* 1.2e-8 m */

    {
        double pc[3 * 64], po[3 * 64];
        int nc = 0, no = 0;
        if (run_grow(CTN_BACKEND_CPU, pc, 64, &nc) && run_grow(CTN_BACKEND_OPENCL, po, 64, &no) && nc == no) {
            double dp = 0.0;
            for (int i = 0; i < 3 * nc; ++i) dp = fmax(dp, fabs(pc[i] - po[i]));
            printf("(h) tree:31, a 5-link chain added after 10 steps, 20 steps: max |dx| %.3g m\n", dp);
            CHECK(dp <= POS_TOL, "(h) after a topology change: positions differ by %.3g m (tol %.3g)", dp, POS_TOL);
        }
    }

    /* control: an inexact solver misses the tolerance, so the comparisons above can fail */
    result gs = run(CTN_BACKEND_CPU, CTN_SOLVER_GS, scene_binary, 0, 0, STEPS);
    result dir = run(CTN_BACKEND_CPU, CTN_SOLVER_DIRECT, scene_binary, 0, 0, STEPS);
    if (gs.ok > 0 && dir.ok > 0) {
        double dp = max_diff(&gs, &dir);
        printf("control: CPU gs vs CPU direct on tree:63: max |dx| %.3g m\n", dp);
        CHECK(dp > 10.0 * POS_TOL, "control: gs and direct agree to %.3g m, the position tolerance cannot tell solvers apart", dp);
    }
    free(gs.pos);
    free(dir.pos);

    hybrid("tree:7 with a loop-closing joint", scene_ring);
    hybrid("bridge_limits:6", scene_limit);
    return check_report("test_opencl_forest");
}
