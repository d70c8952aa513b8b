/* The prismatic (slider) joint: a block on a frictionless slider inclined at 30 degrees slides down as
 * x = g sin(a) t^2 / 2 along the axis and not at all across it or in rotation, with Gauss-Seidel and the
 * exact solver on the CPU and on OpenCL; a saved scene reloads and steps the same. The OpenCL half exits
 * 77 (skipped) when this build or machine has no OpenCL device. (Jacobians: tests/test_jacobians.c.) */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "ids.h"
#include "check.h"
#include "fixtures.h"
#include "opencl_lsan.h" /* PoCL/LLVM allocations kept until exit (when this test compiles the kernels) */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const double ANGLE = 3.14159265358979323846 / 6.0, G = 9.81;

/* A 2 kg box turned 0.4 rad about z (so body and world axes differ) on a slider to the world. */
static ctn_world *incline(ctn_backend backend, ctn_solver solver, ctn_body_id *box) {
    ctn_world *w = fixture_world(backend, solver, NULL, 0);
    if (!w) return NULL;
    ctn_body_desc bd = ctn_body_desc_default();
    bd.mass = 2.0;
    bd.inertia[0] = 0.1, bd.inertia[1] = 0.2, bd.inertia[2] = 0.3;
    bd.position[0] = 1.0, bd.position[1] = 2.0;
    bd.orientation[0] = cos(0.2), bd.orientation[3] = sin(0.2); /* (w, x, y, z) */
    CHECK(ctn_body_add(w, &bd, box) == CTN_OK, "%s", ctn_world_last_error(w));
    const double pivot[3] = {1.0, 2.0, 0.0}, axis[3] = {cos(ANGLE), -sin(ANGLE), 0.0};
    fixture_world_joint(w, CTN_JOINT_PRISMATIC, *box, pivot, axis, NULL);
    return w;
}

/* Slides for 1 s; returns the distance along the axis. */
static double check_slide(ctn_backend backend, ctn_solver solver, const char *name) {
    ctn_body_id box;
    ctn_world *w = incline(backend, solver, &box);
    CHECK(w != NULL, "%s: world", name);
    if (!w) return 0.0;
    for (int i = 0; i < 60; ++i) CHECK(ctn_world_step(w) == CTN_OK, "%s: %s", name, ctn_world_last_error(w));
    ctn_body_state s;
    ctn_body_get_state(w, box, &s);
    double dx = s.position[0] - 1.0, dy = s.position[1] - 2.0, dz = s.position[2];
    double along = dx * cos(ANGLE) - dy * sin(ANGLE), across = sqrt(pow(dx * sin(ANGLE) + dy * cos(ANGLE), 2) + dz * dz);
    double want = 0.5 * G * sin(ANGLE) * 1.0; /* t = 1 s */
    double turn = sqrt(pow(s.angular_velocity[0], 2) + pow(s.angular_velocity[1], 2) + pow(s.angular_velocity[2], 2));
    /* semi-implicit Euler over n = 240 substeps slides g sin(a) h^2 n (n + 1) / 2: 0.42 % more */
    CHECK(fabs(along - want) < 0.01 * want, "%s: slid %g m in 1 s, g sin(a) t^2 / 2 = %g m", name, along, want);
    CHECK(across < 1e-4, "%s: moved %g m across the slider", name, across);
    CHECK(turn < 1e-3 && fabs(s.orientation[0] - cos(0.2)) < 1e-4, "%s: turned (w = %g rad/s, q.w %g)", name, turn, s.orientation[0]);
    printf("%s: slid %.5f m in 1 s (g sin(a) t^2 / 2 = %.5f m, %+.2f %%), %.2g m across\n", name, along, want,
           100.0 * (along - want) / want, across);
    ctn_world_destroy(w);
    return along;
}

/* A saved slider reloads into a world that steps the same. */
static void check_scene_round_trip(void) {
    ctn_body_id box;
    ctn_world *w = incline(CTN_BACKEND_CPU, CTN_SOLVER_GS, &box);
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.solver = CTN_SOLVER_GS;
    ctn_world *back = fixture_scene_reload(w, &d);
    ctn_joint_desc jd;
    CHECK(ctn_joint_get_desc(back, HJOINT(back, 0), &jd) == CTN_OK && jd.type == CTN_JOINT_PRISMATIC, "reloaded joint type %d", (int)jd.type);
    fixture_step_both(w, back, 30);
    ctn_body_state a, b;
    ctn_body_get_state(w, box, &a);
    ctn_body_get_state(back, ID_IN(back, box), &b);
    CHECK(a.position[0] == b.position[0] && a.position[1] == b.position[1], "reloaded slider at (%.9g, %.9g), saved one at (%.9g, %.9g)",
          b.position[0], b.position[1], a.position[0], a.position[1]);
    ctn_world_destroy(w);
    ctn_world_destroy(back);
}

int main(void) {
    double cpu = check_slide(CTN_BACKEND_CPU, CTN_SOLVER_GS, "cpu gs");
    check_slide(CTN_BACKEND_CPU, CTN_SOLVER_DIRECT, "cpu direct");
    check_scene_round_trip();
    char err[256];
    if (!fixture_have_opencl(err, sizeof err)) {
        printf("prismatic: OpenCL half skipped (%s)\n", err);
        return check_failures ? 1 : CHECK_SKIPPED;
    }
    double ocl = check_slide(CTN_BACKEND_OPENCL, CTN_SOLVER_GS, "opencl gs");
    check_slide(CTN_BACKEND_OPENCL, CTN_SOLVER_DIRECT, "opencl direct");
    CHECK(fabs(ocl - cpu) < 1e-4, "OpenCL slid %.9g m, CPU %.9g m", ocl, cpu);
    return check_report("prismatic");
}
