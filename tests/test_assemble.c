/* Assembly and inverse kinematics (ctn_world_assemble): a four-bar linkage placed 10 cm off closes (particles
 * with distance joints to 1e-9 m; rigid links with hinges to the float32 orientation floor), a 1000-link
 * chain's end reaches a target within reach and gets as close as the chain allows to one out of reach, one
 * and two CPU threads give the same state, the CPU and OpenCL backends agree, and a rod pinned at both ends
 * to world points further apart than its length is refused by name with the world unchanged.
 * `test_assemble opencl` runs the OpenCL comparison only (exit 77 without a device). */
#include "catena/catena.h"
#include "ids.h"
#include "check.h"
#include "opencl_lsan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ctn_world *make_world(ctn_backend backend, int threads) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = backend;
    d.solver = CTN_SOLVER_DIRECT;
    d.threads = threads;
    ctn_world *w = NULL;
    char err[256];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) return NULL;
    return w;
}

static ctn_body_id add_body(ctn_world *w, int particle, const double p[3], double angle_z, double mass) {
    ctn_body_desc bd = ctn_body_desc_default();
    bd.particle = particle;
    bd.mass = mass;
    for (int k = 0; k < 3; ++k) bd.position[k] = p[k];
    bd.orientation[0] = cos(angle_z / 2), bd.orientation[3] = sin(angle_z / 2);
    for (int k = 0; k < 3; ++k) bd.inertia[k] = mass * 0.1;
    ctn_body_id id = CTN_NULL_BODY;
    CHECK(ctn_body_add(w, &bd, &id) == CTN_OK, "body: %s", ctn_world_last_error(w));
    return id;
}

static ctn_joint_id add_joint(ctn_world *w, ctn_joint_type type, ctn_body_id a, const double pa[3], ctn_body_id b, const double pb[3],
                              double rest) {
    ctn_joint_desc j = ctn_joint_desc_default(type);
    j.body_a = a, j.body_b = b, j.rest_length = rest;
    for (int k = 0; k < 3; ++k) j.anchor_a[k] = pa[k], j.anchor_b[k] = pb[k];
    ctn_joint_id id = CTN_NULL_JOINT;
    CHECK(ctn_joint_add(w, &j, &id) == CTN_OK, "joint: %s", ctn_world_last_error(w));
    return id;
}

/* Four-bar: ground pivots O1 = 0 and O2 = (2, 0, 0), crank 1 m, coupler 2 m, rocker 1.5 m. */
static void fourbar_points(double A[3], double B[3]) {
    A[0] = cos(1.0), A[1] = sin(1.0), A[2] = 0.0;
    /* B on the circle of radius 1.5 about O2 at distance 2 from A (the upper intersection) */
    double dx = 2.0 - A[0], dy = -A[1], d = sqrt(dx * dx + dy * dy);
    double a = (4.0 - 2.25 + d * d) / (2 * d), h = sqrt(4.0 - a * a);
    double mx = A[0] + a * dx / d, my = A[1] + a * dy / d;
    B[0] = mx - h * dy / d, B[1] = my + h * dx / d, B[2] = 0.0;
}

static void check_fourbar_particles(void) {
    ctn_world *w = make_world(CTN_BACKEND_CPU, 1);
    double A[3], B[3], z[3] = {0, 0, 0}, O2[3] = {2, 0, 0};
    fourbar_points(A, B);
    double Aoff[3] = {A[0] + 0.06, A[1] - 0.05, A[2] + 0.06}, Boff[3] = {B[0] - 0.07, B[1] + 0.05, B[2] - 0.05}; /* ~10 cm off */
    ctn_body_id a = add_body(w, 1, Aoff, 0, 1.0), b = add_body(w, 1, Boff, 0, 1.0);
    add_joint(w, CTN_JOINT_DISTANCE, a, z, CTN_WORLD, z, 1.0);
    add_joint(w, CTN_JOINT_DISTANCE, a, z, b, z, 2.0);
    add_joint(w, CTN_JOINT_DISTANCE, b, z, CTN_WORLD, O2, 1.5);
    ctn_assemble_desc d = ctn_assemble_desc_default();
    d.tolerance = 1e-9;
    ctn_assemble_report r;
    ctn_status s = ctn_world_assemble(w, &d, &r);
    CHECK(s == CTN_OK, "particle four-bar: %s", ctn_world_last_error(w));
    printf("particle four-bar: %.3g m -> %.3g m after %d gather + %d Newton iterations (moved %.3g m)\n", r.initial_gap, r.max_gap,
           r.gather_iterations, r.newton_iterations, r.max_move);
    CHECK(r.initial_gap > 0.05, "the four-bar started open (%g m)", r.initial_gap);
    CHECK(r.max_gap <= 1e-9, "particle four-bar closed to %g m", r.max_gap);
    CHECK(r.max_gap <= 2e-15, "particle four-bar closed to %g m (measured 2.2e-16 m)", r.max_gap);
    CHECK(r.gather_iterations > 0 && r.newton_iterations > 0, "both phases ran (%d, %d)", r.gather_iterations, r.newton_iterations);
    CHECK(r.max_move < 0.2, "moved %g m for a 10 cm error", r.max_move);
    double gap, angle;
    CHECK(ctn_world_measure(w, &gap, &angle) == CTN_OK && gap < 1e-6, "float32 measure %g m", gap);
    ctn_world_destroy(w);
}

/* Rigid links on hinges about z: each link a body with its pivots at +-L/2 along its x axis. */
static void check_fourbar_rigid(void) {
    ctn_world *w = make_world(CTN_BACKEND_CPU, 1);
    double A[3], B[3], O1[3] = {0, 0, 0}, O2[3] = {2, 0, 0};
    fourbar_points(A, B);
    const double *ends[3][2] = {{O1, A}, {A, B}, {B, O2}};
    ctn_body_id link[3];
    double len[3];
    for (int k = 0; k < 3; ++k) {
        const double *p = ends[k][0], *q = ends[k][1];
        double c[3] = {0.5 * (p[0] + q[0]) + 0.05 * (k - 1), 0.5 * (p[1] + q[1]) + 0.08 - 0.05 * k, 0.03 * k};
        len[k] = hypot(q[0] - p[0], q[1] - p[1]);
        link[k] = add_body(w, 0, c, atan2(q[1] - p[1], q[0] - p[0]) + 0.1 * (k - 1), 1.0 + k);
    }
    for (int k = 0; k <= 3; ++k) {
        ctn_joint_desc j = ctn_joint_desc_default(CTN_JOINT_HINGE);
        j.axis[2] = 1.0;
        j.body_a = k < 3 ? link[k] : link[2];
        j.body_b = k == 0 ? CTN_WORLD : k < 3 ? link[k - 1] : CTN_WORLD;
        double la = k < 3 ? -0.5 * len[k] : 0.5 * len[2];
        j.anchor_a[0] = la, j.anchor_a[1] = j.anchor_a[2] = 0.0;
        if (k == 0) memset(j.anchor_b, 0, sizeof j.anchor_b);
        else if (k < 3) j.anchor_b[0] = 0.5 * len[k - 1], j.anchor_b[1] = j.anchor_b[2] = 0.0;
        else memcpy(j.anchor_b, O2, sizeof O2);
        CHECK(ctn_joint_add(w, &j, NULL) == CTN_OK, "hinge %d: %s", k, ctn_world_last_error(w));
    }
    ctn_assemble_report r;
    ctn_status s = ctn_world_assemble(w, NULL, &r);
    CHECK(s == CTN_OK, "rigid four-bar: %s", ctn_world_last_error(w));
    printf("rigid four-bar: %.3g m, %.3g rad -> %.3g m, %.3g rad after %d gather + %d Newton iterations\n", r.initial_gap, r.initial_angle,
           r.max_gap, r.max_angle, r.gather_iterations, r.newton_iterations);
    /* measured 6.0e-8 m, 1.4e-14 rad: the float32 quaternions' rounding times the 1-2 m lever arms */
    CHECK(r.max_gap <= 5e-7 && r.max_angle <= 1e-12, "rigid four-bar closed to %g m, %g rad", r.max_gap, r.max_angle);
    ctn_world_destroy(w);
}

/* A chain of n rigid links of length L along +x, its first link pinned (ball) to the world origin. */
static ctn_world *chain(ctn_backend backend, int threads, int n, double L, ctn_body_id *last) {
    ctn_world *w = make_world(backend, threads);
    if (!w) return NULL;
    ctn_body_id prev = CTN_WORLD;
    double half[3] = {0.5 * L, 0, 0}, mhalf[3] = {-0.5 * L, 0, 0}, z[3] = {0, 0, 0};
    for (int i = 0; i < n; ++i) {
        double c[3] = {(i + 0.5) * L, 0, 0};
        ctn_body_desc bd = ctn_body_desc_default();
        bd.mass = 0.1;
        ctn_inertia_capsule(0.1, 0.1 * L, 0.4 * L, 0, bd.inertia);
        memcpy(bd.position, c, sizeof c);
        ctn_body_id id;
        CHECK(ctn_body_add(w, &bd, &id) == CTN_OK, "link: %s", ctn_world_last_error(w));
        add_joint(w, CTN_JOINT_BALL, id, mhalf, prev, ctn_body_is_world(prev) ? z : half, -1);
        prev = id;
    }
    *last = prev;
    return w;
}

static double end_distance(ctn_world *w, ctn_body_id last, double L, const double t[3], double end[3]) {
    ctn_body_state s;
    ctn_body_get_state(w, last, &s);
    /* the end point (L/2, 0, 0) of the last link: R(q) e_x L/2 */
    double qw = s.orientation[0], qx = s.orientation[1], qy = s.orientation[2], qz = s.orientation[3];
    double ex[3] = {1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy + qw * qz), 2 * (qx * qz - qw * qy)};
    for (int k = 0; k < 3; ++k) end[k] = s.position[k] + 0.5 * L * ex[k];
    return sqrt(pow(end[0] - t[0], 2) + pow(end[1] - t[1], 2) + pow(end[2] - t[2], 2));
}

/* The chain's end pulled to t; returns the report and writes the end point. */
static ctn_status reach(ctn_world *w, ctn_body_id last, double L, const double t[3], double tol, ctn_assemble_report *r) {
    ctn_assemble_target tg;
    memset(&tg, 0, sizeof tg);
    tg.body = last, tg.point[0] = 0.5 * L, tg.weight = 1.0;
    memcpy(tg.target, t, sizeof tg.target);
    ctn_assemble_desc d = ctn_assemble_desc_default();
    d.tolerance = tol;
    d.targets = &tg, d.target_count = 1;
    return ctn_world_assemble(w, &d, r);
}

static void check_chain_targets(void) {
    const int n = 1000;
    const double L = 0.01, tol = 1e-6; /* 10 m of chain */
    ctn_body_id last;
    ctn_world *w = chain(CTN_BACKEND_CPU, 1, n, L, &last);
    double in[3] = {6.0, 5.0, 1.0}, end[3];
    ctn_assemble_report r;
    ctn_status s = reach(w, last, L, in, tol, &r);
    double dist = end_distance(w, last, L, in, end);
    printf("chain:%d within reach: end %.3g m from the target, joints %.3g m / %.3g rad, %d Newton steps\n", n, dist, r.max_gap,
           r.max_angle, r.newton_iterations);
    CHECK(s == CTN_OK, "within reach: %s", ctn_world_last_error(w));
    /* measured: 2.0e-8 m from the target, joints 2.1e-10 m */
    CHECK(dist <= 2e-7 && r.target_distance <= 2e-7, "within reach: end %g m from the target (report %g)", dist, r.target_distance);
    CHECK(r.max_gap <= 2e-9 && r.max_angle <= tol, "within reach: joints %g m, %g rad", r.max_gap, r.max_angle);
    ctn_world_destroy(w);

    w = chain(CTN_BACKEND_CPU, 1, n, L, &last);
    double out[3] = {8.0, 8.0, 1.0};
    s = reach(w, last, L, out, tol, &r);
    dist = end_distance(w, last, L, out, end);
    double want = sqrt(64.0 + 64.0 + 1.0) - n * L;
    printf("chain:%d out of reach: end %.9g m from the target (|t| - length = %.9g), joints %.3g m / %.3g rad, %d Newton steps\n", n,
           dist, want, r.max_gap, r.max_angle, r.newton_iterations);
    CHECK(s == CTN_OK, "out of reach: %s", ctn_world_last_error(w));
    /* measured: 2.2e-7 m short of the best, joints 1.6e-14 m */
    CHECK(fabs(dist - want) <= tol, "out of reach: end %.9g m from the target, best %.9g m", dist, want);
    CHECK(r.max_gap <= 1e-13 && r.max_angle <= tol, "out of reach: joints %g m, %g rad", r.max_gap, r.max_angle);
    ctn_world_destroy(w);
}

/* One and two threads: the gather's loops are per item, so the states are bitwise equal. */
static void check_threads(void) {
    const int n = 1000;
    const double L = 0.01;
    double poses[2][3];
    for (int k = 0; k < 2; ++k) {
        ctn_body_id last;
        ctn_world *w = chain(CTN_BACKEND_CPU, k + 1, n, L, &last);
        /* bend the chain open: every joint 2 mm off, so phase 1 has work */
        for (int i = 0; i < n; ++i) {
            ctn_body_id id;
            ctn_world_body_at(w, i, &id);
            ctn_body_state st;
            ctn_body_get_state(w, id, &st);
            st.position[1] += 0.002 * (i % 2);
            ctn_body_set_state(w, id, &st);
        }
        double t[3] = {3.0, 4.0, 0.0};
        ctn_assemble_report r;
        CHECK(reach(w, last, L, t, 1e-6, &r) == CTN_OK, "threads %d: %s", k + 1, ctn_world_last_error(w));
        CHECK(r.gather_iterations > 0, "threads %d: the gather ran (%d)", k + 1, r.gather_iterations);
        ctn_body_state st;
        ctn_body_get_state(w, last, &st);
        memcpy(poses[k], st.position, sizeof poses[k]);
        ctn_world_destroy(w);
    }
    CHECK(memcmp(poses[0], poses[1], sizeof poses[0]) == 0, "1 vs 2 threads: (%.17g %.17g) vs (%.17g %.17g)", poses[0][0], poses[0][1],
          poses[1][0], poses[1][1]);
}

/* A 1 m rod pinned at both ends to world points 1.2 m apart: refused, both pins named, world unchanged. */
static void check_impossible(void) {
    ctn_world *w = make_world(CTN_BACKEND_CPU, 1);
    double c[3] = {0.6, 0.1, 0}, left[3] = {-0.5, 0, 0}, right[3] = {0.5, 0, 0}, P0[3] = {0, 0, 0}, P1[3] = {1.2, 0, 0};
    ctn_body_id rod = add_body(w, 0, c, 0.0, 1.0);
    ctn_joint_id j0 = add_joint(w, CTN_JOINT_BALL, rod, left, CTN_WORLD, P0, -1);
    ctn_joint_id j1 = add_joint(w, CTN_JOINT_BALL, rod, right, CTN_WORLD, P1, -1);
    ctn_body_state before, after;
    ctn_body_get_state(w, rod, &before);
    ctn_assemble_report r;
    ctn_status s = ctn_world_assemble(w, NULL, &r);
    const char *msg = ctn_world_last_error(w);
    printf("impossible rod: %s (%s)\n", ctn_status_name(s), msg);
    CHECK(s == CTN_ERR_INVALID_ARGUMENT, "refused with %s", ctn_status_name(s));
    char h0[32], h1[32];
    snprintf(h0, sizeof h0, "joint %lld ", ID_INT(j0));
    snprintf(h1, sizeof h1, "joint %lld ", ID_INT(j1));
    CHECK(strstr(msg, h0) && strstr(msg, h1), "the message names both pins: %s", msg);
    CHECK(r.open_joints == 2 && fabs(r.max_gap - 0.1) < 1e-3, "report: %d open, %g m (the least-squares split 0.1 m each)", r.open_joints,
          r.max_gap);
    ctn_body_get_state(w, rod, &after);
    CHECK(memcmp(&before, &after, sizeof before) == 0, "the world is unchanged");
    int bodies, joints;
    ctn_world_id_counts(w, &bodies, &joints);
    CHECK(joints == 2, "joint slots unchanged (%d)", joints);
    ctn_world_destroy(w);
}

static void check_invalid(void) {
    ctn_world *w = make_world(CTN_BACKEND_CPU, 1);
    ctn_assemble_desc d = ctn_assemble_desc_default();
    d.tolerance = 0.0;
    CHECK(ctn_world_assemble(w, &d, NULL) == CTN_ERR_INVALID_ARGUMENT && strstr(ctn_world_last_error(w), "tolerance"), "%s",
          ctn_world_last_error(w));
    ctn_assemble_target t;
    memset(&t, 0, sizeof t);
    t.body = HBODY(w, 42), t.weight = 1.0;
    d = ctn_assemble_desc_default();
    d.targets = &t, d.target_count = 1;
    CHECK(ctn_world_assemble(w, &d, NULL) == CTN_ERR_NOT_FOUND && strstr(ctn_world_last_error(w), "targets[0].body"), "%s",
          ctn_world_last_error(w));
    CHECK(ctn_world_assemble(w, NULL, NULL) == CTN_OK, "an empty world assembles: %s", ctn_world_last_error(w));
    ctn_world_destroy(w);
}

/* The same sloppy chain on both backends: the same closed state within float32 rounding. */
static int check_opencl(void) {
    ctn_world *w[2];
    ctn_body_id last[2];
    const double L = 0.05;
    for (int k = 0; k < 2; ++k) {
        w[k] = chain(k ? CTN_BACKEND_OPENCL : CTN_BACKEND_CPU, 1, 200, L, &last[k]);
        if (!w[k]) {
            if (k) ctn_world_destroy(w[0]);
            return check_skip("test_assemble opencl", "no OpenCL device");
        }
        for (int i = 0; i < 200; ++i) {
            ctn_body_id id;
            ctn_world_body_at(w[k], i, &id);
            ctn_body_state st;
            ctn_body_get_state(w[k], id, &st);
            st.position[1] += 0.01 * sin(i);
            ctn_body_set_state(w[k], id, &st);
        }
    }
    ctn_assemble_report r[2];
    for (int k = 0; k < 2; ++k) {
        CHECK(ctn_world_assemble(w[k], NULL, &r[k]) == CTN_OK, "%s: %s", k ? "opencl" : "cpu", ctn_world_last_error(w[k]));
        printf("%s: %d gather + %d Newton iterations, %.3g m\n", k ? "opencl" : "cpu", r[k].gather_iterations, r[k].newton_iterations,
               r[k].max_gap);
    }
    ctn_body_state a, b;
    ctn_body_get_state(w[0], last[0], &a);
    ctn_body_get_state(w[1], last[1], &b);
    double d = sqrt(pow(a.position[0] - b.position[0], 2) + pow(a.position[1] - b.position[1], 2) + pow(a.position[2] - b.position[2], 2));
    printf("cpu vs opencl: end link %.3g m apart\n", d);
    CHECK(d < 1e-3, "cpu vs opencl: end link %g m apart", d);
    CHECK(r[1].gather_iterations > 0, "the gather ran on OpenCL (%d)", r[1].gather_iterations);
    ctn_world_destroy(w[0]);
    ctn_world_destroy(w[1]);
    return check_report("test_assemble opencl");
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "opencl") == 0) return check_opencl();
    check_invalid();
    check_fourbar_particles();
    check_fourbar_rigid();
    check_impossible();
    check_chain_targets();
    check_threads();
    return check_report("test_assemble");
}
