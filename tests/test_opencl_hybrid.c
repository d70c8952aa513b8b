/* The hybrid of the exact solver on the OpenCL backend (host/opencl/opencl_direct.c): the chain or forest
 * solved exactly, loop closers, contacts and joints with bounded rows (limits) by the outer coloured
 * Gauss-Seidel, against the CPU's direct solver (host/solve/solver_direct.c), which sweeps the same rows in
 * the same (slot = colour) order.
 *
 * Scenes:
 *   bridge_limits:12   12 hinged planks, every hinge limited to +-0.15 rad, 3 heavy balls dropped on it
 *                      (every limit row outside the exact solve, the hinges' other rows inside it);
 *   bridge120/40       bridge:120 with limits on every 40th hinge (4 limit rows cut each substep: the
 *                      chain path with cut rows);
 *   chain_floor        a 40-link chain pinned 3.6 m up, released at an angle, swinging onto a floor
 *                      (sphere shapes: contacts with the floor, so the forest path with contacts);
 *   ragdoll            examples/ragdoll_cone.json (cone-twist and limited hinges, a floor), explicit direct;
 *   grid:6x6           loop closers only (25 of 66 joints).
 * Checks:
 *   (a) CPU direct and OpenCL direct agree (positions; tolerances below, 10x the measured differences);
 *   (b) the joints inside the exact solve hold at its level (bridge120/40, chain_floor and the grid: max
 *       gap of the joints without limits; contacts are not in the joint list), limits hold (hinge angles within the limits + LIMIT_TOL), and the
 *       floor is penetrated no deeper than under Gauss-Seidel (chain_floor, spheres of radius R_LINK);
 *   (c) `auto` picks direct on OpenCL for bridge120/40 and chain_floor (as on the CPU);
 *   (d) exactly one blocking read per step under the hybrid, and the launches per step are reported;
 *   (e) the chain path's separators under the hybrid (its re-solves run through the substep's factor):
 *       bridge120/40 in segments of 16 positions on OpenCL and the CPU's chain split the same way.
 * Skips without an OpenCL device or without cl_khr_fp64. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "ids.h"
#include "check.h"
#include "opencl_lsan.h"
#include "solve/direct_internal.h" /* ctn__direct_set_chain_segments */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEPS 60
#define R_LINK 0.04 /* m, sphere shapes of the chain on the floor */

/* Tolerances, about 10x the values measured on PoCL 3.1 (2-core AMD EPYC VM, 2026-11-25), printed by the
 * test. CPU vs OpenCL direct, max |dx| after STEPS steps: the chain on the floor and the grid agree bit for
 * bit (measured 0: the same eliminations and the same sweep order), and so do the two bridges with limits
 * since only the limit rows leave the exact solve (measured 0; before, when the whole limited joint left it,
 * 4.6e-3 m and 1.9e-7 m); where a limit row is active its angle comes from atan2, the host's libm against
 * the device's, so the tolerances allow for that. The ragdoll differs as the backends' Gauss-Seidel
 * solvers do on its contacts (measured 1.4e-6 m; gs 2.9e-5 m, printed for reference). */
#define TOL_BITWISE 1e-12  /* m, measured 0 */
#define TOL_BALLS 5e-3     /* m, bridge_limits:12, measured 0 (4.6e-3 before the row split) */
#define TOL_RAGDOLL 1e-5   /* m, measured 1.4e-6 (2.9e-5 before the row split) */
#define TOL_LIMITS 2e-6    /* m, bridge with four limits, measured 0 (1.9e-7 before the row split) */
#define FOREST_GAP 1e-6    /* m, joints inside the exact solve; measured 8.5e-8 (chain on the floor) */
#define LIMIT_TOL 0.05     /* rad beyond a hinge limit; measured 0.027 (the ragdoll, both backends) */
#define PEN_FACTOR 1.5     /* direct's floor penetration at most this times GS's plus PEN_ABS; measured */
#define PEN_ABS 1e-4       /* m           4.5e-4 m against 6.7e-4 m */

static int have_opencl(void) {
    int count = 0;
    char err[256];
    ctn_device_info dev[4];
    return ctn_list_devices(dev, 4, &count, err, sizeof err) == CTN_OK && count > 0;
}

typedef void (*builder)(ctn_world *w);

static int segment; /* (e): positions per segment of the chain path on both backends (0: their defaults) */

static void bridge_limits(ctn_world *w) { CHECK(ctn_scene_from_spec(w, "bridge_limits:12") == CTN_OK, "%s", ctn_world_last_error(w)); }

static void bridge_some_limits(ctn_world *w) {
    CHECK(ctn_scene_from_spec(w, "bridge:120") == CTN_OK, "%s", ctn_world_last_error(w));
    for (int j = 0; j < ctn_world_joint_count(w); j += 40)
        CHECK(ctn_joint_set_limits(w, HJOINT(w, j), 1, -0.05, 0.05) == CTN_OK, "limit %d: %s", j, ctn_world_last_error(w));
}

static void chain_floor(ctn_world *w) {
    ctn_chain_desc c = ctn_chain_desc_default(40);
    c.origin[1] = 3.6;
    c.direction[0] = 0.6, c.direction[1] = -0.8, c.direction[2] = 0.0;
    ctn_body_id first = CTN_NULL_BODY;
    CHECK(ctn_scene_chain(w, &c, &first) == CTN_OK, "%s", ctn_world_last_error(w));
    const double up[3] = {0.0, 1.0, 0.0};
    CHECK(ctn_world_add_plane(w, up, 0.0, 0.5, 0.0, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_shape_desc sh = ctn_shape_desc_default(CTN_SHAPE_SPHERE);
    sh.radius = R_LINK;
    for (int i = 0; i < c.links; ++i) CHECK(ctn_body_set_shape(w, ctn_body_id_offset(first, i), &sh) == CTN_OK, "%s", ctn_world_last_error(w));
}

static void ragdoll(ctn_world *w) {
    char err[512];
    CHECK(ctn_scene_load_json(w, CATENA_SOURCE_DIR "/examples/ragdoll_cone.json", err, sizeof err) == CTN_OK, "ragdoll: %s", err);
}

static void grid(ctn_world *w) { CHECK(ctn_scene_from_spec(w, "grid:6x6") == CTN_OK, "%s", ctn_world_last_error(w)); }

typedef struct result {
    int ok; /* 1 ran, 0 failed, -1 no fp64 */
    int bodies, joints, solver, launches, reads;
    double *pos;
    double forest_gap;  /* worst gap of joints without limits (contacts excluded: they are not in the joint list) */
    double limit_excess;/* worst hinge angle beyond its limits */
    double penetration; /* worst floor penetration of the chain's spheres */
    double max_gap;     /* worst step max_gap (limits, contacts and joints) */
} result;

static result run(ctn_backend backend, ctn_solver solver, builder b, int steps) {
    result r;
    memset(&r, 0, sizeof r);
    ctn_world_desc d = ctn_world_desc_default();
    d.integrator = CTN_INTEGRATOR_VELOCITY; /* compared with OpenCL on the velocity step (RATTLE agrees to rounding only: test_rattle_opencl) */
    d.debug.project_chord = 0;               /* nor the projection's chord steps (CPU only) */
    d.backend = backend;
    if (segment > 0) d.debug.chain_segment = segment;
    ctn_world *w = NULL;
    char err[2048];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        CHECK(0, "create: %s", err);
        return r;
    }
    b(w);
    if (segment > 0 && backend == CTN_BACKEND_CPU) { /* the device's segment count (opencl_direct.c place_separators) */
        int m = ctn_world_joint_count(w), P = (m + segment - 1) / segment;
        ctn__direct_set_chain_segments(w, P > (m + 1) / 2 ? (m + 1) / 2 : P);
    }
    ctn_world_get_desc(w, &d); /* a scene file may set its own solver settings: the solver is the test's */
    d.solver = solver;
    d.bounded_rows = CTN_BOUNDED_SWEEP; /* OpenCL's auto: the CPU's active set also keeps limits in the projection */
    CHECK(ctn_world_set_desc(w, &d) == CTN_OK, "set_desc: %s", ctn_world_last_error(w));
    int n = ctn_world_body_count(w), m = ctn_world_joint_count(w);
    double *gap = calloc((size_t)m + 1, sizeof *gap), *y = calloc(3 * (size_t)n + 3, sizeof *y);
    ctn_status st = CTN_OK;
    r.launches = -1;
    for (int i = 0; i < steps && st == CTN_OK; ++i) {
        st = ctn_world_step(w);
        if (st == CTN_ERR_UNSUPPORTED && strstr(ctn_world_last_error(w), "fp64")) {
            r.ok = -1;
            break;
        }
        CHECK(st == CTN_OK, "step %d: %s", i, ctn_world_last_error(w));
        if (st != CTN_OK) break;
        ctn_step_stats s;
        ctn_world_get_stats(w, &s);
        r.solver = (int)s.solver;
        if (s.blocking_reads > r.reads) r.reads = s.blocking_reads;
        r.launches = s.launches;
        if (s.max_gap > r.max_gap) r.max_gap = s.max_gap;
        int written = 0;
        CHECK(ctn_world_get_joint_errors(w, gap, NULL, m, &written) == CTN_OK && written == m, "joint errors: %s", ctn_world_last_error(w));
        for (int j = 0; j < m; ++j) {
            int on = 0;
            double lo = 0.0, hi = 0.0, a = 0.0;
            if (ctn_joint_get_limits(w, HJOINT(w, j), &on, &lo, &hi) == CTN_OK && on) {
                if (ctn_joint_get_angle(w, HJOINT(w, j), &a) == CTN_OK) r.limit_excess = fmax(r.limit_excess, fmax(lo - a, a - hi));
            } else {
                r.forest_gap = fmax(r.forest_gap, gap[j]);
            }
        }
        if (b == chain_floor) {
            CHECK(ctn_world_get_positions(w, y, n, NULL) == CTN_OK, "positions: %s", ctn_world_last_error(w));
            for (int k = 0; k < n; ++k) r.penetration = fmax(r.penetration, R_LINK - y[3 * k + 1]);
        }
    }
    if (st == CTN_OK) {
        r.bodies = n, r.joints = m;
        r.pos = calloc(3 * (size_t)n + 1, sizeof *r.pos);
        CHECK(ctn_world_get_positions(w, r.pos, n, NULL) == CTN_OK, "positions: %s", ctn_world_last_error(w));
        r.ok = 1;
    }
    free(gap), free(y);
    ctn_world_destroy(w);
    return r;
}

static double max_diff(const result *a, const result *b) {
    double dp = 0.0;
    if (a->bodies != b->bodies) return INFINITY;
    for (int i = 0; i < 3 * a->bodies; ++i) dp = fmax(dp, fabs(a->pos[i] - b->pos[i]));
    return dp;
}

/* (a), (b), (d) on one scene; (c) when want_auto. Returns -1 when the device has no fp64. */
static int scene(const char *name, builder b, double pos_tol, int forest, int want_auto) {
    result cpu = run(CTN_BACKEND_CPU, CTN_SOLVER_DIRECT, b, STEPS);
    result ocl = run(CTN_BACKEND_OPENCL, CTN_SOLVER_DIRECT, b, STEPS);
    if (ocl.ok < 0) {
        free(cpu.pos);
        return -1;
    }
    if (cpu.ok > 0 && ocl.ok > 0) {
        double dp = max_diff(&cpu, &ocl);
        result gc = run(CTN_BACKEND_CPU, CTN_SOLVER_GS, b, STEPS), go = run(CTN_BACKEND_OPENCL, CTN_SOLVER_GS, b, STEPS);
        if (gc.ok > 0 && go.ok > 0) printf("%s, %d steps, gs for reference: max |dx| cpu-opencl %.3g m\n", name, STEPS, max_diff(&gc, &go));
        free(gc.pos), free(go.pos);
        printf("%s, %d steps, direct: max |dx| cpu-opencl %.3g m; opencl: %d launches and %d blocking read(s) per step, gap of the "
               "exact joints %.3g m (cpu %.3g), limit excess %.3g rad (cpu %.3g), worst max_gap %.3g m (cpu %.3g)\n",
               name, STEPS, dp, ocl.launches, ocl.reads, ocl.forest_gap, cpu.forest_gap, ocl.limit_excess, cpu.limit_excess, ocl.max_gap,
               cpu.max_gap);
        CHECK(ocl.solver == CTN_SOLVER_DIRECT, "%s: OpenCL ran solver %d", name, ocl.solver);
        CHECK(dp <= pos_tol, "%s: CPU and OpenCL direct differ by %.3g m (tol %.3g)", name, dp, pos_tol);
        CHECK(ocl.reads == 1, "%s: %d blocking reads per step under the hybrid, expected 1", name, ocl.reads);
        CHECK(ocl.limit_excess <= LIMIT_TOL, "%s: a hinge is %.3g rad beyond its limit", name, ocl.limit_excess);
        if (forest) CHECK(ocl.forest_gap <= FOREST_GAP, "%s: the exact joints open by %.3g m", name, ocl.forest_gap);
    }
    if (want_auto) {
        result a = run(CTN_BACKEND_OPENCL, CTN_SOLVER_AUTO, b, 2), c = run(CTN_BACKEND_CPU, CTN_SOLVER_AUTO, b, 2);
        printf("%s: auto ran solver %d on OpenCL, %d on the CPU\n", name, a.solver, c.solver);
        CHECK(a.ok > 0 && a.solver == CTN_SOLVER_DIRECT, "%s: auto on OpenCL ran solver %d, expected direct", name, a.solver);
        CHECK(c.ok > 0 && c.solver == CTN_SOLVER_DIRECT, "%s: auto on the CPU ran solver %d, expected direct", name, c.solver);
        free(a.pos), free(c.pos);
    }
    if (b == chain_floor && ocl.ok > 0) {
        result g = run(CTN_BACKEND_OPENCL, CTN_SOLVER_GS, b, STEPS);
        printf("%s: floor penetration direct %.3g m, gs %.3g m; exact joints' gap gs %.3g m\n", name, ocl.penetration, g.penetration,
               g.forest_gap);
        CHECK(g.ok > 0 && ocl.penetration <= PEN_FACTOR * g.penetration + PEN_ABS, "%s: direct penetrates %.3g m, gs %.3g m", name,
              ocl.penetration, g.penetration);
        free(g.pos);
    }
    free(cpu.pos), free(ocl.pos);
    return 0;
}

int main(void) {
    if (!have_opencl()) return check_skip("test_opencl_hybrid", "no OpenCL platform or device");
    if (scene("bridge_limits:12", bridge_limits, TOL_BALLS, 0, 0) < 0)
        return check_failures ? check_report("test_opencl_hybrid") : check_skip("test_opencl_hybrid", "the OpenCL device has no fp64");
    scene("bridge:120, limits on every 40th hinge", bridge_some_limits, TOL_LIMITS, 1, 1);
    scene("chain:40 swinging onto a floor", chain_floor, TOL_BITWISE, 1, 1);
    scene("ragdoll_cone.json", ragdoll, TOL_RAGDOLL, 0, 0);
    scene("grid:6x6", grid, TOL_BITWISE, 1, 0);
    segment = 16;
    scene("(e) bridge:120, limits on every 40th hinge, segments of 16", bridge_some_limits, TOL_LIMITS, 1, 0);
    segment = 0;
    return check_report("test_opencl_hybrid");
}
