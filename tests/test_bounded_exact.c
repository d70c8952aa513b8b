/* Bounded rows (limits, motors) in the exact solve by an active set (kernels/ctn_direct_active.h): a hinge
 * chain folding onto its limits holds them with one-sided impulses, a two-link arm tracks its motors'
 * speeds exactly, and a motor at its torque bound lifts (or fails to lift) its load with the torque bound
 * exactly; compared with the projected Gauss-Seidel sweep the direct solver ran before, on the same worlds. */
#include "catena/catena.h"
#include "solve/direct_internal.h"
#include "core/world.h"
#include "ids.h"
#include "check.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINK_HALF 0.1
#define LINK_MASS 1.0

/* 0: the worlds of make_world run the active set without its descent safeguard (the rule before it) */
static int g_descent = 1;

static ctn_world *make_world(ctn_solver solver, ctn_bounded_rows bounded) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.solver = solver;
    d.bounded_rows = bounded;
    d.geometric_stiffness = 0.0; /* the analytic checks below: no added inertia */
    d.threads = 1;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    if (w) ctn__direct_set_descent(w, g_descent);
    return w;
}

/* n boxes of length 2 LINK_HALF along +x, hinged about z at their ends, the first to the world at the
 * origin; joints[i] joins link i (body a) to link i - 1 (or the world). */
static void hinge_chain(ctn_world *w, int n, ctn_body_id *links, ctn_joint_id *joints) {
    for (int i = 0; i < n; ++i) {
        ctn_body_desc bd = ctn_body_desc_default();
        bd.mass = LINK_MASS;
        double he[3] = {LINK_HALF, 0.02, 0.02};
        ctn_inertia_box(bd.mass, he, bd.inertia);
        bd.position[0] = (2 * i + 1) * LINK_HALF;
        CHECK(ctn_body_add(w, &bd, &links[i]) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_HINGE);
        jd.body_a = links[i];
        if (i > 0) jd.body_b = links[i - 1];
        const double pivot[3] = {2 * i * LINK_HALF, 0, 0}, z[3] = {0, 0, 1};
        ctn_joint_desc_set_pivot(w, &jd, pivot, z);
        CHECK(ctn_joint_add(w, &jd, &joints[i]) == CTN_OK, "%s", ctn_world_last_error(w));
    }
}

typedef struct {
    double overshoot;  /* largest angle beyond a limit (rad) over the run */
    double rest;       /* largest angle beyond a limit over the last 30 steps */
    double gap;        /* largest joint gap (m) */
    int negative;      /* limit impulses below zero */
    long fallbacks, substeps, solves;
} limit_run;

/* A 10-link chain released horizontally, each hinge limited to [-0.3, 0.3] rad: it folds down onto its
 * limits within a few tenths of a second and hangs on them. */
static limit_run chain_on_limits(ctn_solver solver, ctn_bounded_rows bounded, double motor_torque) {
    enum { N = 10 };
    const double lo = -0.3, hi = 0.3;
    ctn_world *w = make_world(solver, bounded);
    ctn_body_id links[N];
    ctn_joint_id joints[N];
    hinge_chain(w, N, links, joints);
    for (int i = 0; i < N; ++i) CHECK(ctn_joint_set_limits(w, joints[i], 1, lo, hi) == CTN_OK, "%s", ctn_world_last_error(w));
    if (motor_torque > 0.0) /* holding motors too weak to hold (the URDF importer's: speed 0, at most the effort) */
        for (int i = 0; i < N; ++i) CHECK(ctn_joint_set_motor(w, joints[i], 1, 0.0, motor_torque) == CTN_OK, "%s", ctn_world_last_error(w));
    limit_run r = {0};
    int on_limit = 0;
    for (int step = 0; step < 120; ++step) {
        CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_step_stats st;
        ctn_world_get_stats(w, &st);
        if (st.max_gap > r.gap) r.gap = st.max_gap;
        on_limit = 0;
        for (int i = 0; i < N; ++i) {
            double a = 0.0, imp[6];
            int32_t rows = 0;
            ctn_joint_get_angle(w, joints[i], &a);
            double over = a < lo ? lo - a : (a > hi ? a - hi : 0.0);
            if (over > r.overshoot) r.overshoot = over;
            if (step >= 90 && over > r.rest) r.rest = over;
            on_limit += fabs(a - lo) < 0.02 || fabs(a - hi) < 0.02;
            ctn_joint_get_impulse(w, joints[i], imp, &rows);
            /* the limit row only pushes away from the limit (with a motor on the row: at least -F h) */
            r.negative += rows == 6 && imp[5] < -motor_torque / 240.0 * (1.0 + 1e-6) && fabs(a - lo) < 0.02;
        }
    }
    CHECK(on_limit >= 3, "%d of %d hinges at a limit after 2 s: the chain did not fold onto its limits", on_limit, N);
    ctn__direct_active_counts(w, &r.substeps, &r.solves, &r.fallbacks);
    ctn_world_destroy(w);
    return r;
}

static void check_limits(double motor_torque) {
    limit_run ex = chain_on_limits(CTN_SOLVER_DIRECT, CTN_BOUNDED_AUTO, motor_torque),
              sw = chain_on_limits(CTN_SOLVER_DIRECT, CTN_BOUNDED_SWEEP, motor_torque),
              gs = chain_on_limits(CTN_SOLVER_GS, CTN_BOUNDED_AUTO, motor_torque);
    const char *what = motor_torque > 0.0 ? "chain on limits and weak motors" : "chain on limits";
    printf("%s, direct (active set): overshoot %.3g rad (%.3g at rest), gap %.3g m, %ld substeps, %ld solves, %ld fallbacks\n", what,
           ex.overshoot, ex.rest, ex.gap, ex.substeps, ex.solves, ex.fallbacks);
    printf("%s, direct (sweep): overshoot %.3g rad (%.3g at rest), gap %.3g m, %ld active substeps\n", what, sw.overshoot, sw.rest, sw.gap,
           sw.substeps);
    printf("%s, gs: overshoot %.3g rad (%.3g at rest), gap %.3g m\n", what, gs.overshoot, gs.rest, gs.gap);
    /* the descent safeguard of the active set (host/solve/solver_direct.c) against the rule before it: never
     * more fallbacks, and solves within 1% (measured: on limits 583 against 581 solves, 0 fallbacks either
     * way, a halved step costing 2 solves in 480 substeps; with the weak motors 1,061 solves and 0 fallbacks
     * against 1,112 and 1) */
    g_descent = 0;
    limit_run cold = chain_on_limits(CTN_SOLVER_DIRECT, CTN_BOUNDED_AUTO, motor_torque);
    g_descent = 1;
    printf("%s, direct (active set without the descent safeguard): overshoot %.3g rad, gap %.3g m, %ld solves, %ld fallbacks\n", what,
           cold.overshoot, cold.gap, cold.solves, cold.fallbacks);
    CHECK(ex.solves <= cold.solves + cold.solves / 100 && ex.fallbacks <= cold.fallbacks, "%ld solves, %ld fallbacks with the descent safeguard, %ld, %ld without",
          ex.solves, ex.fallbacks, cold.solves, cold.fallbacks);
    CHECK(ex.substeps == 480, "the active set ran in %ld of 480 substeps", ex.substeps);
    CHECK(ex.fallbacks <= 5, "%ld substeps fell back to the sweep", ex.fallbacks);
    CHECK(ex.negative == 0, "limit impulse negative %d times", ex.negative);
    /* the projection keeps the limited hinges' rows, the limits as inequalities (ctn_project_block): measured
     * 7.6e-8 m, 4.1e-5 m with the motors (2.1e-3 m when it left the hinges out) */
    CHECK(ex.gap < 1e-3, "joint gap %g m with the active set", ex.gap);
    CHECK(sw.substeps == 0, "CTN_BOUNDED_SWEEP ran the active set in %ld substeps", sw.substeps);
    /* the projection pushes a hinge that the velocity step carried past its limit back (measured 1.0e-7 rad
     * with and without motors, 7e-8 rad in the last half second; the sweep, whose projection leaves the
     * hinges out, 0.31 rad and 1.8e-2 rad) */
    CHECK(ex.overshoot < 0.1 * sw.overshoot, "overshoot %g rad, not a tenth of the sweep's %g", ex.overshoot, sw.overshoot);
    CHECK(ex.rest < 1e-3 && ex.rest < 0.05 * sw.rest, "in the last half second a hinge is %g rad beyond a limit (the sweep %g)", ex.rest, sw.rest);
    CHECK(ex.rest < sw.rest && ex.overshoot < gs.overshoot, "direct overshoot %g (%g at rest) not below the sweep's %g / Gauss-Seidel's %g",
          ex.overshoot, ex.rest, sw.rest, gs.overshoot);
}

/* A slider finger resting on its lower limit (0) under gravity, its motor driving it away at 0.02 m/s with
 * at most 20 N (against 9.81 N): the builder's row is the limit's (reached), and the active set switches it
 * to the motor's; the finger travels at 0.02 m/s to its upper limit (0.04 m) and stays there. */
static void check_finger(void) {
    for (int mode = 0; mode < 2; ++mode) {
        ctn_world *w = make_world(CTN_SOLVER_DIRECT, mode ? CTN_BOUNDED_SWEEP : CTN_BOUNDED_AUTO);
        ctn_body_desc bd = ctn_body_desc_default();
        ctn_body_id finger;
        CHECK(ctn_body_add(w, &bd, &finger) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_PRISMATIC);
        jd.body_a = finger;
        const double pivot[3] = {0, 0, 0}, up[3] = {0, 1, 0};
        ctn_joint_desc_set_pivot(w, &jd, pivot, up);
        ctn_joint_id j;
        CHECK(ctn_joint_add(w, &jd, &j) == CTN_OK, "%s", ctn_world_last_error(w));
        CHECK(ctn_joint_set_limits(w, j, 1, 0.0, 0.04) == CTN_OK, "%s", ctn_world_last_error(w));
        CHECK(ctn_joint_set_motor(w, j, 1, 0.02, 20.0) == CTN_OK, "%s", ctn_world_last_error(w));
        double x1 = 0.0, x3 = 0.0, worst = 0.0;
        for (int step = 0; step < 180; ++step) {
            CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
            double x;
            ctn_joint_get_translation(w, j, &x);
            if (step == 59) x1 = x;
            if (step < 90) worst = fmax(worst, fabs(x - 0.02 * (step + 1) / 60.0));
            x3 = x;
        }
        printf("finger %s: %.5f m after 1 s (motor 0.02 m/s), %.5f m after 3 s (limit 0.04), worst lag %.3g m\n", mode ? "sweep" : "active set",
               x1, x3, worst);
        if (!mode) {
            CHECK(fabs(x1 - 0.02) < 1e-4, "the finger travelled %g m in 1 s at 0.02 m/s", x1);
            CHECK(fabs(x3 - 0.04) < 1e-4, "the finger ended at %g m, its upper limit 0.04", x3);
        }
        ctn_world_destroy(w);
    }
}

/* Two links of 2 LINK_HALF along +x: a shoulder to the world and an elbow, both motorised about z. */
static ctn_world *arm(ctn_solver solver, ctn_bounded_rows bounded, double shoulder_speed, double shoulder_torque, ctn_body_id *links,
                      ctn_joint_id *joints) {
    ctn_world *w = make_world(solver, bounded);
    hinge_chain(w, 2, links, joints);
    CHECK(ctn_joint_set_motor(w, joints[0], 1, shoulder_speed, shoulder_torque) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_joint_set_motor(w, joints[1], 1, 0.0, 1000.0) == CTN_OK, "%s", ctn_world_last_error(w));
    return w;
}

/* Speeds of the shoulder and the elbow (rad/s about z, body a relative to body b). */
static void arm_rates(ctn_world *w, const ctn_body_id *links, double *shoulder, double *elbow) {
    ctn_body_state s0, s1;
    ctn_body_get_state(w, links[0], &s0);
    ctn_body_get_state(w, links[1], &s1);
    *shoulder = s0.angular_velocity[2];
    *elbow = s1.angular_velocity[2] - s0.angular_velocity[2];
}

static void check_motors(void) {
    /* strong enough: both joints at their speeds from the first step on, to round-off */
    double worst[3] = {0.0, 0.0, 0.0};
    for (int solver = 0; solver < 3; ++solver) {
        ctn_body_id links[2];
        ctn_joint_id joints[2];
        ctn_world *w = arm(solver == 2 ? CTN_SOLVER_GS : CTN_SOLVER_DIRECT, solver == 1 ? CTN_BOUNDED_SWEEP : CTN_BOUNDED_AUTO, 0.5, 50.0, links, joints);
        for (int step = 0; step < 120; ++step) {
            CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
            double sh, el;
            arm_rates(w, links, &sh, &el);
            double e = fmax(fabs(sh - 0.5), fabs(el));
            if (e > worst[solver]) worst[solver] = e;
        }
        ctn_world_destroy(w);
    }
    printf("arm lifting at 0.5 rad/s: worst speed error direct %.3g rad/s, direct (sweep) %.3g rad/s, gs %.3g rad/s\n", worst[0], worst[1], worst[2]);
    CHECK(worst[0] < 1e-4, "the direct solver's motors miss their speeds by %g rad/s", worst[0]);
    CHECK(worst[0] < worst[1], "direct speed error %g not below Gauss-Seidel's %g", worst[0], worst[1]);

    /* at its torque bound: the shoulder (0.5 N m against a gravity torque of 2 x 9.81 x 0.2 = 3.92 N m) gives
     * way, the elbow holds; the arm turns as one rigid body, I alpha = T - tau_g cos(theta) */
    ctn_body_id links[2];
    ctn_joint_id joints[2];
    const double T = 0.5, h = 1.0 / 240.0;
    ctn_world *w = arm(CTN_SOLVER_DIRECT, CTN_BOUNDED_AUTO, 0.5, T, links, joints);
    double he[3] = {LINK_HALF, 0.02, 0.02}, Ib[3];
    ctn_inertia_box(LINK_MASS, he, Ib);
    /* about the shoulder: centres at LINK_HALF and 3 LINK_HALF */
    const double I = 2 * Ib[2] + LINK_MASS * (LINK_HALF * LINK_HALF + 9 * LINK_HALF * LINK_HALF);
    const double mgr = LINK_MASS * 9.81 * (LINK_HALF + 3 * LINK_HALF);
    double worst_alpha = 0.0, worst_bound = 0.0, worst_elbow = 0.0, prev = 0.0, theta_prev = 0.0;
    for (int step = 0; step < 10; ++step) {
        CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        double sh, el, theta, imp[6];
        int32_t rows;
        arm_rates(w, links, &sh, &el);
        ctn_joint_get_angle(w, joints[0], &theta);
        double alpha = (sh - prev) * 60.0, want = (T - mgr * cos(0.5 * (theta + theta_prev))) / I; /* the step's mean */
        prev = sh, theta_prev = theta;
        if (fabs(alpha - want) > worst_alpha) worst_alpha = fabs(alpha - want);
        ctn_joint_get_impulse(w, joints[0], imp, &rows);
        if (fabs(fabs(imp[5]) - T * h) > worst_bound) worst_bound = fabs(fabs(imp[5]) - T * h);
        if (fabs(el) > worst_elbow) worst_elbow = fabs(el);
    }
    long substeps, solves, fallbacks;
    ctn__direct_active_counts(w, &substeps, &solves, &fallbacks);
    printf("arm at its torque bound: |alpha - (T - tau_g cos)/I| <= %.3g rad/s^2 (tau_g/I = %.3g), |impulse| - T h <= %.3g, elbow "
           "%.3g rad/s, %ld solves in %ld substeps, %ld fallbacks\n",
           worst_alpha, mgr / I, worst_bound, worst_elbow, solves, substeps, fallbacks);
    CHECK(worst_bound <= 1e-6 * T * h, "the shoulder's impulse is %g off its bound T h", worst_bound);
    CHECK(worst_alpha < 0.005 * mgr / I, "the arm's acceleration is %g off (T - tau_g cos(theta)) / I", worst_alpha);
    CHECK(worst_elbow < 1e-4, "the elbow gave way at %g rad/s", worst_elbow);
    CHECK(fallbacks == 0, "%ld substeps fell back to the sweep", fallbacks);
    ctn_world_destroy(w);
}

/* Out-of-range settings are refused naming the field; CTN_BOUNDED_EXACT on OpenCL is refused with the
 * reason (no device loop), the world unchanged, where an OpenCL device is present. */
static void check_setting(void) {
    ctn_world_desc d = ctn_world_desc_default();
    CHECK(d.bounded_rows == CTN_BOUNDED_AUTO, "default bounded_rows %d", (int)d.bounded_rows);
    d.backend = CTN_BACKEND_CPU;
    d.bounded_rows = (ctn_bounded_rows)7;
    ctn_world *w = NULL;
    char err[512];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_ERR_INVALID_ARGUMENT && !w && strstr(err, "desc.bounded_rows") && strstr(err, "7"),
          "bounded_rows 7: %s", err);
    d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_OPENCL;
    d.solver = CTN_SOLVER_DIRECT;
    d.bounded_rows = CTN_BOUNDED_EXACT;
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        printf("no OpenCL device (%s): the refusal on OpenCL is not checked here\n", err);
        return;
    }
    ctn_body_id links[2];
    ctn_joint_id joints[2];
    hinge_chain(w, 2, links, joints);
    ctn_status st = ctn_world_step(w);
    CHECK(st == CTN_ERR_UNSUPPORTED && strstr(ctn_world_last_error(w), "desc.bounded_rows") && strstr(ctn_world_last_error(w), "CPU backend only"),
          "OpenCL with bounded_rows exact: %d, %s", (int)st, ctn_world_last_error(w));
    printf("OpenCL, bounded_rows exact: %s\n", ctn_world_last_error(w));
    ctn_body_state s0;
    ctn_body_get_state(w, links[0], &s0);
    CHECK(s0.velocity[0] == 0.0 && s0.velocity[1] == 0.0, "the refused step moved the world");
    ctn_world_destroy(w);
}

/* The exact solver skips its active-set passes in a world where no joint may have a bounded row (a fact of
 * the topology): a hinge chain without limits runs none, and once limits are set on its hinges (the topology
 * rebuilt) every substep after runs the active set. */
static void check_limits_added(void) {
    enum { N = 10 };
    ctn_world *w = make_world(CTN_SOLVER_DIRECT, CTN_BOUNDED_AUTO);
    ctn_body_id links[N];
    ctn_joint_id joints[N];
    hinge_chain(w, N, links, joints);
    long substeps = 0, solves = 0, fallbacks = 0;
    for (int step = 0; step < 10; ++step) CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn__direct_active_counts(w, &substeps, &solves, &fallbacks);
    CHECK(substeps == 0, "the active set ran in %ld substeps of a chain without bounded rows", substeps);
    for (int i = 0; i < N; ++i) CHECK(ctn_joint_set_limits(w, joints[i], 1, -0.3, 0.3) == CTN_OK, "%s", ctn_world_last_error(w));
    for (int step = 0; step < 10; ++step) CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn__direct_active_counts(w, &substeps, &solves, &fallbacks);
    ctn_world_desc d = ctn_world_desc_default();
    CHECK(substeps == 10L * d.substeps, "the active set ran in %ld of %ld substeps after the limits were set", substeps, 10L * d.substeps);
    ctn_world_destroy(w);
}

/* The snake of bench/results/2026-11-29-vm-active-set.md as the URDF it measured (the links and joints of
 * examples/snake_50.urdf repeated: 0.1 m, 0.1 kg capsule links hanging from the world at 1 m, laid out
 * along +x, revolute joints with axes alternating z and y, limits +-0.5 rad, a 0.5 N m motor holding each
 * still), n links, written to path. Returns 0 when the file could not be written. */
static int write_snake_urdf(const char *path, int n) {
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    fprintf(f, "<?xml version=\"1.0\"?>\n<robot name=\"snake_%d\">\n  <link name=\"world\"/>\n", n);
    for (int i = 0; i < n; ++i) {
        char parent[32];
        if (i) snprintf(parent, sizeof parent, "link_%04d", i - 1);
        else snprintf(parent, sizeof parent, "world");
        fprintf(f,
                "  <joint name=\"joint_%04d\" type=\"revolute\">\n    <parent link=\"%s\"/>\n    <child link=\"link_%04d\"/>\n"
                "    <origin xyz=\"%s\" rpy=\"0 0 0\"/>\n    <axis xyz=\"%s\"/>\n"
                "    <limit lower=\"-0.5\" upper=\"0.5\" effort=\"0.5\" velocity=\"5\"/>\n  </joint>\n",
                i, parent, i, i ? "0.1 0 0" : "0 1 0", i % 2 ? "0 1 0" : "0 0 1");
        fprintf(f,
                "  <link name=\"link_%04d\">\n    <inertial>\n      <origin xyz=\"0.05 0 0\" rpy=\"0 0 0\"/>\n"
                "      <mass value=\"0.1\"/>\n"
                "      <inertia ixx=\"2e-05\" ixy=\"0\" ixz=\"0\" iyy=\"9.33333333e-05\" iyz=\"0\" izz=\"9.33333333e-05\"/>\n"
                "    </inertial>\n    <collision>\n      <origin xyz=\"0.05 0 0\" rpy=\"0 1.5707963267948966 0\"/>\n"
                "      <geometry><cylinder radius=\"0.02\" length=\"0.1\"/></geometry>\n    </collision>\n  </link>\n",
                i);
    }
    fprintf(f, "</robot>\n");
    return fclose(f) == 0;
}

/* An empty world for the snakes below: direct 1x1 with the velocity step on one CPU thread (as the results
 * file ran them), the descent safeguard on or off. NULL (a failed check) when it cannot be made. */
static ctn_world *snake_world(int descent) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.solver = CTN_SOLVER_DIRECT;
    d.integrator = CTN_INTEGRATOR_VELOCITY;
    d.substeps = 1;
    d.iterations = 1;
    d.threads = 1;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    if (w) ctn__direct_set_descent(w, descent);
    return w;
}

typedef struct {
    long counts[3];   /* the active set's substeps, exact solves, fallbacks */
    double gap;       /* largest joint gap (m) over the run */
    double *angles;   /* [joints] the joint angles at the end (NULL: not wanted) */
    uint64_t state;   /* FNV-1a of the bytes of the poses, velocities and impulses at the end */
} snake_result;

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* The URDF snake at path under direct 1x1 with the velocity step (as the results file ran it), steps steps,
 * with the descent safeguard on or off (2: on, l0 and v0 copied before every solve; ctn__direct_set_descent).
 * Returns 0 when this build cannot load URDF (no urdfdom). */
static int snake_urdf_run(const char *path, int steps, int descent, snake_result *r) {
    ctn_world *w = snake_world(descent);
    if (!w) return 1;
    ctn_status st = ctn_scene_load_urdf(w, path, NULL, 0);
    if (st == CTN_ERR_UNSUPPORTED) {
        ctn_world_destroy(w);
        return 0;
    }
    CHECK(st == CTN_OK, "%s", ctn_world_last_error(w));
    r->gap = 0.0;
    for (int step = 0; step < steps && st == CTN_OK; ++step) {
        CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_step_stats ws;
        if (ctn_world_get_stats(w, &ws) == CTN_OK) r->gap = fmax(r->gap, ws.max_joint_gap);
    }
    ctn__direct_active_counts(w, &r->counts[0], &r->counts[1], &r->counts[2]);
    r->state = fnv(14695981039346656037ull, w->pose, (size_t)w->topo.body_count * sizeof *w->pose);
    r->state = fnv(r->state, w->vel, (size_t)w->topo.body_count * sizeof *w->vel);
    r->state = fnv(r->state, w->topo.lambda, (size_t)w->topo.stride * (size_t)w->topo.joint_count * sizeof *w->topo.lambda);
    if (r->angles) {
        int n = ctn_world_joint_count(w);
        for (int i = 0; i < n; ++i) {
            ctn_joint_id j;
            char name[32];
            snprintf(name, sizeof name, "joint_%04d", i);
            r->angles[i] = 0.0;
            CHECK(ctn_joint_find(w, name, &j) == CTN_OK && ctn_joint_get_angle(w, j, &r->angles[i]) == CTN_OK, "joint %s", name);
        }
    }
    ctn_world_destroy(w);
    return 1;
}

/* A snake built in code (the URDF's links as boxes, 0.1 m and 0.1 kg along +x from the origin, the same
 * axes, limits and motors): n links, steps steps, descent on or off; the active set's counts and the joint
 * angles at the end in angles[] (n). */
static void snake_code_run(int n, int steps, int descent, long counts[3], double *angles) {
    ctn_world *w = snake_world(descent);
    if (!w) return;
    ctn_body_id prev = CTN_WORLD;
    ctn_joint_id *joints = calloc((size_t)n, sizeof *joints);
    CHECK(joints != NULL, "out of memory");
    for (int i = 0; i < n && joints; ++i) {
        ctn_body_desc bd = ctn_body_desc_default();
        bd.mass = 0.1;
        double he[3] = {0.05, 0.02, 0.02};
        ctn_inertia_box(bd.mass, he, bd.inertia);
        bd.position[0] = 0.1 * i + 0.05;
        ctn_body_id link;
        CHECK(ctn_body_add(w, &bd, &link) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_HINGE);
        jd.body_a = link;
        if (i > 0) jd.body_b = prev;
        const double pivot[3] = {0.1 * i, 0, 0}, z[3] = {0, 0, 1}, y[3] = {0, 1, 0};
        ctn_joint_desc_set_pivot(w, &jd, pivot, i % 2 ? y : z);
        CHECK(ctn_joint_add(w, &jd, &joints[i]) == CTN_OK, "%s", ctn_world_last_error(w));
        CHECK(ctn_joint_set_limits(w, joints[i], 1, -0.5, 0.5) == CTN_OK, "%s", ctn_world_last_error(w));
        CHECK(ctn_joint_set_motor(w, joints[i], 1, 0.0, 0.5) == CTN_OK, "%s", ctn_world_last_error(w));
        prev = link;
    }
    for (int step = 0; step < steps; ++step) CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn__direct_active_counts(w, &counts[0], &counts[1], &counts[2]);
    for (int i = 0; i < n && joints; ++i) ctn_joint_get_angle(w, joints[i], &angles[i]);
    free(joints);
    ctn_world_destroy(w);
}

/* The descent safeguard of the active set (host/solve/solver_direct.c). The simulation is deterministic, so
 * the counts are too. On the 2,000-link URDF snake the rule without it cycles to its cap and falls back to the
 * sweep in nearly every substep (118 of 120 in the results file: the fallback's inexact impulses make the next
 * substep as hard); with it the snake leaves that state within a few steps and its substeps converge, each
 * ending on the exact solution of its complementarity problem, in about a quarter of the solves. Where both
 * rules converge (a 50-link snake) they give the same motion. */
static void check_descent(void) {
    enum { LONG = 2000, SHORT = 50, STEPS = 120 };
    const char *path = "test_bounded_exact_snake.urdf";
    static double a_on[SHORT], a_off[SHORT];
    snake_result on = {{0}, 0, NULL, 0}, off = {{0}, 0, NULL, 0};
    CHECK(write_snake_urdf(path, LONG), "cannot write %s", path);
    if (!snake_urdf_run(path, STEPS, 1, &on)) {
        printf("SKIP (descent, snake URDF): this build has no URDF import\n");
        remove(path);
        return;
    }
    snake_urdf_run(path, STEPS, 0, &off);
    printf("snake %d, %d steps: with the descent safeguard %ld solves, %ld fallbacks in %ld substeps, gap %.3g m; without %ld solves, %ld fallbacks, gap %.3g m\n",
           LONG, STEPS, on.counts[1], on.counts[2], on.counts[0], on.gap, off.counts[1], off.counts[2], off.gap);
    CHECK(on.counts[0] == STEPS && off.counts[0] == STEPS, "the active set ran in %ld and %ld of %d substeps", on.counts[0], off.counts[0], STEPS);
    CHECK(off.counts[2] >= 100, "without the safeguard %ld of %d substeps fell back (the trap this test is about: nearly all)", off.counts[2], STEPS);
    CHECK(on.counts[2] <= 20, "with the safeguard %ld substeps fell back, without %ld", on.counts[2], off.counts[2]);
    CHECK(on.counts[1] * 2 <= off.counts[1], "with the safeguard %ld solves, without %ld", on.counts[1], off.counts[1]);
    CHECK(on.gap <= off.gap * 1.5 + 1e-9, "worst joint gap %g m with the safeguard, %g without", on.gap, off.gap);
    /* the solve keeps l0 and v0 as it overwrites them, completed only for a tested step (solver_direct.c
     * bounded_exact): the same bits as copying them whole before every solve, through the first steps, where
     * most steps are tested and many halved */
    snake_result kept = {{0}, 0, NULL, 0}, copied = {{0}, 0, NULL, 0};
    snake_urdf_run(path, 12, 1, &kept);
    snake_urdf_run(path, 12, 2, &copied);
    printf("snake %d, 12 steps: state %016llx with l0, v0 kept by the solve, %016llx copied; %ld and %ld solves\n", LONG,
           (unsigned long long)kept.state, (unsigned long long)copied.state, kept.counts[1], copied.counts[1]);
    CHECK(kept.state == copied.state && kept.counts[1] == copied.counts[1] && kept.counts[2] == copied.counts[2],
          "l0, v0 kept by the solve: state %016llx, %ld solves, %ld fallbacks; copied: %016llx, %ld, %ld",
          (unsigned long long)kept.state, kept.counts[1], kept.counts[2], (unsigned long long)copied.state, copied.counts[1],
          copied.counts[2]);
    remove(path);
    /* where both rules converge in every substep (the snake built in code, 50 links, 20 steps; the URDF's
     * 50-link snake falls back twice in its first steps without the safeguard) both end on the exact
     * solutions of the same problems: the same motion to round-off (measured 1.19e-7 rad) */
    long c_on[3], c_off[3];
    snake_code_run(SHORT, 20, 1, c_on, a_on);
    snake_code_run(SHORT, 20, 0, c_off, a_off);
    on.counts[1] = c_on[1], on.counts[2] = c_on[2], off.counts[1] = c_off[1], off.counts[2] = c_off[2];
    double worst = 0.0;
    for (int i = 0; i < SHORT; ++i) worst = fmax(worst, fabs(a_on[i] - a_off[i]));
    printf("snake %d, 20 steps: %ld / %ld fallbacks, %ld / %ld solves, joint angles apart by %.3g rad at most\n", SHORT,
           on.counts[2], off.counts[2], on.counts[1], off.counts[1], worst);
    CHECK(on.counts[2] == 0 && off.counts[2] == 0, "fallbacks %ld and %ld on the short snake", on.counts[2], off.counts[2]);
    CHECK(on.counts[1] <= off.counts[1], "solves %ld with the safeguard, %ld without", on.counts[1], off.counts[1]);
    CHECK(worst < 1e-5, "joint angles %g rad apart with and without the safeguard", worst);
}

int main(void) {
    check_setting();
    check_limits_added();
    check_limits(0.0);
    check_limits(0.05);
    check_finger();
    check_motors();
    check_descent();
    return check_report("bounded_exact");
}
