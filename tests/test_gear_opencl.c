/* Gears and rack-and-pinions on the OpenCL backend agree with the CPU backend: the driven rig of
 * tests/gear_rig.h (its hinge motor turns wheel A at 2 rad/s) stepped 300 steps on both backends with
 * Gauss-Seidel, Jacobi, solver=auto and direct; the bodies' states must agree and the gear relations hold on the
 * device (both run the rows of kernels/ctn_joint_rows.h; the re-centring of the angle references is the
 * host's). The exact solver's motor row runs as the sweep on both backends (bounded_rows sweep: the active set
 * of the default is the CPU's alone, so the backends would run different algorithms). Exits 77 (skipped)
 * without an OpenCL device. */
#define _POSIX_C_SOURCE 200809L
#include "gear_rig.h"
#include "ids.h"
#include "opencl_lsan.h" /* PoCL/LLVM allocations kept until exit (when this test compiles the kernels) */

#include <stdio.h>

static void compare(ctn_solver solver) {
    gear_rig c, o;
    char err[256];
    int ok = rig_build_bounded(&c, CTN_BACKEND_CPU, solver, CTN_BOUNDED_SWEEP, 2.0, err, sizeof err);
    ok = rig_build_bounded(&o, CTN_BACKEND_OPENCL, solver, CTN_BOUNDED_SWEEP, 2.0, err, sizeof err) && ok;
    CHECK(ok, "worlds: %s", err);
    double worst_err = 0.0, diff = 0.0;
    for (int i = 0; i < 300 && ok; ++i) {
        CHECK(ctn_world_step(c.w) == CTN_OK, "cpu: %s", ctn_world_last_error(c.w));
        CHECK(ctn_world_step(o.w) == CTN_OK, "opencl: %s", ctn_world_last_error(o.w));
        rig_track(&o);
        worst_err = fmax(worst_err, rig_error(&o));
    }
    for (int i = 0; i < 4 && ok; ++i) {
        ctn_body_id b = i < 3 ? c.wheel[i] : c.rack;
        ctn_body_state a, d;
        ctn_body_get_state(c.w, b, &a);
        ctn_body_get_state(o.w, ID_IN(o.w, b), &d);
        for (int k = 0; k < 3; ++k) diff = fmax(diff, fmax(fabs(a.position[k] - d.position[k]), fabs(a.angular_velocity[k] - d.angular_velocity[k])));
        for (int k = 0; k < 4; ++k) diff = fmax(diff, fabs(a.orientation[k] - d.orientation[k]));
    }
    ctn_step_stats st;
    memset(&st, 0, sizeof st);
    if (ok) ctn_world_get_stats(o.w, &st);
    printf("%s (OpenCL ran %s): largest CPU-OpenCL difference %.3g after 5 s, OpenCL gear error %.3g\n", ctn_solver_name(solver),
           ctn_solver_name(st.solver), diff, worst_err);
    /* measured (PoCL on the 2-core dev VM): GS 2.1e-5, Jacobi 1.5e-5, auto 1.9e-5, direct 1.0e-5
     * (m, rad/s and quaternion components); gear errors as on the CPU (tests/test_gear.c) */
    CHECK(diff < 1e-4, "%s: backends differ by %g", ctn_solver_name(solver), diff);
    CHECK(worst_err < (solver == CTN_SOLVER_JACOBI ? 5e-2 : 8e-3), "%s: OpenCL gear relation off by %g", ctn_solver_name(solver), worst_err);
    ctn_world_destroy(c.w);
    ctn_world_destroy(o.w);
}

int main(void) {
    char why[256];
    if (!fixture_have_opencl(why, sizeof why)) return check_skip("test_gear_opencl", why);
    compare(CTN_SOLVER_GS);
    compare(CTN_SOLVER_JACOBI);
    compare(CTN_SOLVER_AUTO);
    compare(CTN_SOLVER_DIRECT); /* the hybrid: the gears close loops through the world, solved by its outer GS */
    return check_report("test_gear_opencl");
}
