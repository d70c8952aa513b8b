/* Curve constraints on the OpenCL backend agree with the CPU backend: one world with a bead on a vertical
 * circle (SPOOK), one on a circle with the acceleration-level rows, one on a helix, one on a closed
 * polyline (its window re-centred every step) and one on a circle fixed to a spinning body, stepped 2 s on
 * both backends with Gauss-Seidel, Jacobi, solver=auto (GS for these short layouts) and direct (whose
 * outer Gauss-Seidel takes the curve rows on both backends); the bodies must end within 1e-4 m of each other
 * (both run the same float32 math of kernels/ctn_rows.h; measured: equal to ~1e-7 m). Exits 77 (skipped)
 * without an OpenCL device. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "check.h"
#include "fixtures.h"
#include "opencl_lsan.h" /* PoCL/LLVM allocations kept until exit (when this test compiles the kernels) */

#include <math.h>
#include <stdio.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

static ctn_world *build(ctn_backend backend, ctn_solver solver, char *err, size_t err_size) {
    ctn_world *w = fixture_world(backend, solver, err, err_size);
    if (!w) return NULL;
    ctn_curve_desc cd = ctn_curve_desc_default(CTN_CURVE_CIRCLE);
    cd.body = fixture_particle(w, 0.5 * sin(0.3), 0.5 - 0.5 * cos(0.3), 0.0, 0.0);
    cd.origin[1] = 0.5;
    cd.radius = 0.5;
    fixture_curve(w, &cd);
    cd.body = fixture_particle(w, 2.0 + 0.5 * sin(0.3), 0.5 - 0.5 * cos(0.3), 0.0, 0.0);
    cd.origin[0] = 2.0;
    cd.stabilization = CTN_CURVE_STAB_ACCELERATION;
    fixture_curve(w, &cd);
    cd = ctn_curve_desc_default(CTN_CURVE_HELIX);
    cd.body = fixture_particle(w, 4.3, 0.0, 0.0, 0.0);
    cd.origin[0] = 4.0;
    cd.axis[1] = 1.0, cd.axis[2] = 0.0;
    cd.reference[0] = 1.0;
    cd.radius = 0.3;
    cd.pitch = 0.2;
    fixture_curve(w, &cd);
    enum { N = 32 };
    double pts[N][3];
    for (int i = 0; i < N; ++i) pts[i][0] = 6.0 + 0.5 * cos(2 * PI * i / N), pts[i][1] = 0.5 * sin(2 * PI * i / N), pts[i][2] = 0.0;
    cd = ctn_curve_desc_default(CTN_CURVE_POLYLINE);
    cd.body = fixture_particle(w, 6.0, -0.49, 0.0, 1.5);
    cd.points = &pts[0][0];
    cd.count = N;
    cd.closed = 1;
    fixture_curve(w, &cd);
    ctn_body_desc wd = ctn_body_desc_default();
    wd.type = CTN_BODY_KINEMATIC;
    wd.position[0] = 8.0;
    wd.angular_velocity[2] = 2.0;
    ctn_body_id wheel = CTN_NULL_BODY;
    CHECK(ctn_body_add(w, &wd, &wheel) == CTN_OK, "%s", ctn_world_last_error(w));
    cd = ctn_curve_desc_default(CTN_CURVE_CIRCLE);
    cd.body = fixture_particle(w, 8.4, 0.0, 0.0, 0.0);
    cd.frame = wheel;
    cd.radius = 0.4;
    fixture_curve(w, &cd);
    return w;
}

/* Steps both for 2 s; returns the largest distance between the backends' bodies. */
static double compare(ctn_solver solver) {
    char err[256];
    ctn_world *cpu = build(CTN_BACKEND_CPU, solver, err, sizeof err);
    ctn_world *ocl = build(CTN_BACKEND_OPENCL, solver, err, sizeof err);
    CHECK(cpu && ocl, "worlds: %s", err);
    double worst = 0.0, gap = 0.0;
    for (int i = 0; i < 120 && cpu && ocl; ++i) {
        CHECK(ctn_world_step(cpu) == CTN_OK, "cpu: %s", ctn_world_last_error(cpu));
        CHECK(ctn_world_step(ocl) == CTN_OK, "opencl: %s", ctn_world_last_error(ocl));
    }
    if (cpu && ocl) {
        enum { B = 6 }; /* 5 beads and the wheel */
        double a[3 * B], b[3 * B];
        int na = 0, nb = 0;
        ctn_world_get_positions(cpu, a, B, &na);
        ctn_world_get_positions(ocl, b, B, &nb);
        CHECK(na == B && nb == B, "%d / %d positions", na, nb);
        for (int k = 0; k < 3 * B; ++k) worst = fmax(worst, fabs(a[k] - b[k]));
        ctn_step_stats st;
        ctn_world_get_stats(ocl, &st);
        gap = st.max_gap;
        printf("%s: largest CPU-OpenCL difference %.3g m after 2 s; OpenCL ran %s, max gap %.3g m\n", ctn_solver_name(solver), worst,
               ctn_solver_name(st.solver), gap);
    }
    CHECK(worst < 1e-4, "%s: backends differ by %g m", ctn_solver_name(solver), worst);
    CHECK(gap < 1e-3, "%s: OpenCL gap %g m", ctn_solver_name(solver), gap);
    ctn_world_destroy(cpu);
    ctn_world_destroy(ocl);
    return worst;
}

int main(void) {
    char err[256];
    if (!fixture_have_opencl(err, sizeof err)) return check_skip("test_curve_opencl", err);
    compare(CTN_SOLVER_GS);
    compare(CTN_SOLVER_AUTO);
    compare(CTN_SOLVER_JACOBI);
    /* the exact solver on both backends leaves the curve rows to its outer Gauss-Seidel (the hybrid); a
     * device without cl_khr_fp64 refuses direct, saying so */
    ctn_world *probe = fixture_world(CTN_BACKEND_OPENCL, CTN_SOLVER_DIRECT, err, sizeof err);
    if (probe) {
        ctn_body_desc bd = ctn_body_desc_default();
        ctn_body_id b = CTN_NULL_BODY;
        ctn_curve_desc cd = ctn_curve_desc_default(CTN_CURVE_LINE);
        cd.body = ctn_body_add(probe, &bd, &b) == CTN_OK ? b : CTN_NULL_BODY;
        fixture_curve(probe, &cd);
        ctn_status st = ctn_world_step(probe);
        int no_fp64 = st == CTN_ERR_UNSUPPORTED && strstr(ctn_world_last_error(probe), "fp64");
        ctn_world_destroy(probe);
        if (no_fp64) printf("direct: the device has no fp64; not compared\n");
        else compare(CTN_SOLVER_DIRECT);
    }
    return check_report("test_curve_opencl");
}
