/* Implicit springs: a spring-damper written as a compliant distance row, SPOOK compliance 1/k and damping
 * time c/k (Lacoursiere 2007). Checks, on the CPU and on OpenCL:
 *   - a moderate spring (k = 100 N/m, m = 1 kg, 240 Hz) oscillates with the period 2 pi sqrt(m/k), and
 *     with a damper c its amplitude decays like exp(-c t / 2m);
 *   - a 1e9 N/m spring holding a 1 kg mass stays at rest at 60 Hz with one substep, where the explicit
 *     force blows up (it is stable only for h < 2 sqrt(m/k) = 6.3e-5 s);
 *   - the joint reads back as an implicit spring (description, scene file) and its stretch is no joint
 *     error; bad input is refused.
 * The OpenCL half exits 77 (skipped) when this build or machine has no OpenCL device. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "ids.h"
#include "check.h"
#include "opencl_lsan.h" /* PoCL/LLVM allocations kept until exit (when this test compiles the kernels) */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const double PI = 3.14159265358979323846;

static ctn_world *make_with(ctn_backend backend, ctn_solver solver, double time_step, int substeps, double gravity_y) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = backend;
    d.solver = solver;
    d.time_step = time_step;
    d.substeps = substeps;
    d.gravity[1] = gravity_y;
    ctn_world *w = NULL;
    char err[256];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) return NULL;
    return w;
}

static ctn_world *make(ctn_backend backend, double time_step, int substeps, double gravity_y) {
    return make_with(backend, CTN_SOLVER_AUTO, time_step, substeps, gravity_y);
}

/* A 1 kg particle at (0, -y0, 0) on a spring of rest length 1 m to the world origin. */
static ctn_joint_id add_mass_on_spring(ctn_world *w, double y0, double k, double c, int implicit, ctn_body_id *body) {
    ctn_body_desc bd = ctn_body_desc_default();
    bd.particle = 1;
    bd.mass = 1.0;
    bd.position[1] = -y0;
    CHECK(ctn_body_add(w, &bd, body) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_SPRING);
    jd.body_a = *body;
    jd.rest_length = 1.0;
    jd.stiffness = k;
    jd.damping = c;
    jd.implicit = implicit;
    ctn_joint_id j = CTN_NULL_JOINT;
    CHECK(ctn_joint_add(w, &jd, &j) == CTN_OK, "%s", ctn_world_last_error(w));
    return j;
}

static double height(ctn_world *w, ctn_body_id b) {
    ctn_body_state s;
    ctn_body_get_state(w, b, &s);
    return s.position[1];
}

/* Undamped k = 100 N/m, m = 1 kg released 0.1 m stretched at 240 Hz, one substep: the mean period between
 * downward crossings of the rest position over 3 s against 2 pi sqrt(m/k). Returns the final height. */
static double check_period(ctn_backend backend, const char *name) {
    ctn_world *w = make(backend, 1.0 / 240.0, 1, 0.0);
    CHECK(w != NULL, "%s: world", name);
    if (!w) return 0.0;
    ctn_body_id b;
    add_mass_on_spring(w, 1.1, 100.0, 0.0, 1, &b);
    double prev = height(w, b) + 1.0, first = -1.0, last = -1.0, peak = 0.0;
    int crossings = 0;
    const double h = 1.0 / 240.0;
    for (int i = 1; i <= 720; ++i) {
        CHECK(ctn_world_step(w) == CTN_OK, "%s: %s", name, ctn_world_last_error(w));
        double x = height(w, b) + 1.0; /* displacement from rest, > 0: compressed */
        if (i > 480) peak = fmax(peak, fabs(x));
        if (prev < 0.0 && x >= 0.0) { /* upward crossing, time interpolated linearly within the step */
            double t = h * (i - 1 + prev / (prev - x));
            if (first < 0.0) first = t;
            last = t;
            ++crossings;
        }
        prev = x;
    }
    double period = crossings > 1 ? (last - first) / (crossings - 1) : 0.0, want = 2.0 * PI * sqrt(1.0 / 100.0);
    CHECK(crossings >= 4 && fabs(period - want) < 0.03 * want, "%s: period %g s, expected %g s (%d crossings)", name, period, want,
          crossings);
    /* SPOOK's implicit step damps a little even with c = 0; the amplitude must stay of order 0.1 m */
    CHECK(peak > 0.05 && peak < 0.1001, "%s: amplitude after 2 s %g m (started at 0.1)", name, peak);
    printf("%s: period %.5f s (2 pi sqrt(m/k) = %.5f, %+.2f %%), amplitude 0.1 -> %.4f m in 3 s\n", name, period, want,
           100.0 * (period - want) / want, peak);
    double y = height(w, b);
    ctn_world_destroy(w);
    return y;
}

/* The damper: k = 100 N/m, c = 2 N s/m, m = 1 kg (damping ratio 0.1) released 0.1 m stretched at 240 Hz
 * decays like exp(-c t / 2m): the largest |x| over [2, 2 + T] s against 0.1 exp(-(c/2m) t) at the time of
 * that peak, which checks that tau = c/k gives the damper c. */
static void check_damper(ctn_backend backend, const char *name) {
    ctn_world *w = make(backend, 1.0 / 240.0, 1, 0.0);
    CHECK(w != NULL, "%s: world", name);
    if (!w) return;
    ctn_body_id b;
    add_mass_on_spring(w, 1.1, 100.0, 2.0, 1, &b);
    double peak = 0.0, t_peak = 0.0;
    for (int i = 1; i <= 630; ++i) {
        CHECK(ctn_world_step(w) == CTN_OK, "%s: %s", name, ctn_world_last_error(w));
        double x = fabs(height(w, b) + 1.0), t = i / 240.0;
        if (t >= 2.0 && x > peak) peak = x, t_peak = t;
    }
    /* x(t) = A e^{-zeta w t} (cos w_d t + ...): at a peak |x| ~ A e^{-zeta w t} / sqrt(1 - zeta^2) */
    double want = 0.1 * exp(-1.0 * t_peak) / sqrt(1.0 - 0.01);
    CHECK(fabs(peak - want) < 0.03 * want, "%s: damped amplitude %g m at t = %g s, expected %g m", name, peak, t_peak, want);
    printf("%s: damped spring (c = 2 N s/m) amplitude %.5f m at t = %.3f s, exp(-c t / 2m) predicts %.5f m\n", name, peak,
           t_peak, want);
    ctn_world_destroy(w);
}

/* k = 1e9 N/m holding 1 kg under gravity at 60 Hz, one substep: at rest within a micrometre after 10 s. */
static void check_stiff(ctn_backend backend, const char *name) {
    ctn_world *w = make(backend, 1.0 / 60.0, 1, -9.81);
    CHECK(w != NULL, "%s: world", name);
    if (!w) return;
    ctn_body_id b;
    add_mass_on_spring(w, 1.0, 1e9, 0.0, 1, &b);
    double worst = 0.0;
    for (int i = 0; i < 600; ++i) {
        CHECK(ctn_world_step(w) == CTN_OK, "%s: %s", name, ctn_world_last_error(w));
        worst = fmax(worst, fabs(height(w, b) + 1.0));
    }
    ctn_body_state s;
    ctn_body_get_state(w, b, &s);
    CHECK(worst < 1e-6 && fabs(s.velocity[1]) < 1e-4, "%s: 1e9 N/m spring moved %g m, speed %g m/s", name, worst, s.velocity[1]);
    printf("%s: 1e9 N/m spring at 60 Hz, 1 substep: largest displacement %.3g m in 10 s (m g / k = %.3g m)\n", name, worst, 9.81e-9);
    ctn_world_destroy(w);
}

/* The same spring as an explicit force fails: the step errors out or the mass flies off. */
static void check_explicit_unstable(void) {
    ctn_world *w = make(CTN_BACKEND_CPU, 1.0 / 60.0, 1, -9.81);
    ctn_body_id b;
    add_mass_on_spring(w, 1.01, 1e9, 0.0, 0, &b);
    int failed = 0;
    for (int i = 0; i < 10 && !failed; ++i) failed = ctn_world_step(w) != CTN_OK;
    double y = height(w, b);
    CHECK(failed || !isfinite(y) || fabs(y + 1.0) > 1.0, "explicit 1e9 N/m spring stayed at %g", y);
    printf("explicit 1e9 N/m spring at 60 Hz: %s\n", failed ? "the step fails (divergence detected)" : "the mass flies off");
    ctn_world_destroy(w);
}

/* A hanging chain of 10 particles (0.1 kg, 0.1 m apart) on damped implicit springs (k = 1e4 N/m,
 * c = 20 N s/m) settles with spring i stretched by the weight below it, (10 - i) m g / k: the bottom ends
 * sum_i (10 - i) m g / k = 5.40 mm below the unstretched 1 m. The tolerance is each solver's convergence at
 * the default iteration count, not the spring's: direct is exact, CG and Gauss-Seidel come close, Jacobi
 * with mass splitting converges slowly along a chain (measured: 5.3955, 5.4124, 5.5841, 7.9560 mm). */
static void check_chain_solvers(void) {
    const ctn_solver solvers[] = {CTN_SOLVER_GS, CTN_SOLVER_JACOBI, CTN_SOLVER_CG, CTN_SOLVER_DIRECT};
    const char *names[] = {"gs", "jacobi", "cg", "direct"};
    const double tolerance[] = {0.05, 0.6, 0.01, 1e-3};
    const double k = 1e4, c = 20.0, m = 0.1, g = 9.81, want = 55.0 * m * g / k;
    for (int s = 0; s < 4; ++s) {
        ctn_world *w = make_with(CTN_BACKEND_CPU, solvers[s], 1.0 / 60.0, 4, -g);
        ctn_body_id prev = CTN_WORLD, b = CTN_NULL_BODY;
        for (int i = 1; i <= 10; ++i) {
            ctn_body_desc bd = ctn_body_desc_default();
            bd.particle = 1;
            bd.mass = m;
            bd.position[1] = -0.1 * i;
            CHECK(ctn_body_add(w, &bd, &b) == CTN_OK, "%s", ctn_world_last_error(w));
            ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_SPRING);
            jd.body_a = b;
            jd.body_b = prev;
            jd.stiffness = k;
            jd.damping = c;
            jd.implicit = 1;
            CHECK(ctn_joint_add(w, &jd, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
            prev = b;
        }
        for (int i = 0; i < 300; ++i) CHECK(ctn_world_step(w) == CTN_OK, "%s: %s", names[s], ctn_world_last_error(w));
        double stretch = -1.0 - height(w, b);
        CHECK(fabs(stretch - want) < tolerance[s] * want, "%s: chain stretched %g m, expected %g m", names[s], stretch, want);
        printf("chain of 10 implicit springs, %s: stretch %.4f mm (expected %.4f mm)\n", names[s], 1e3 * stretch, 1e3 * want);
        ctn_world_destroy(w);
    }
}

/* Description, joint errors, scene file round trip and bad input. */
static void check_api(void) {
    ctn_world *w = make(CTN_BACKEND_CPU, 1.0 / 60.0, 4, -9.81);
    ctn_body_id b;
    ctn_joint_id j = add_mass_on_spring(w, 1.2, 50.0, 2.0, 1, &b);
    ctn_joint_desc out;
    CHECK(ctn_joint_get_desc(w, j, &out) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(out.type == CTN_JOINT_SPRING && out.implicit == 1 && out.stiffness == 50.0 && out.damping == 2.0, "desc: type %d implicit %d k %g c %g",
          (int)out.type, out.implicit, out.stiffness, out.damping);
    CHECK(fabs(out.compliance - 1.0 / 50.0) < 1e-9 && fabs(out.damping_time - 2.0 / 50.0) < 1e-9, "SPOOK eps %g tau %g", out.compliance,
          out.damping_time);
    double gap = -1.0;
    ctn_world_get_joint_errors(w, &gap, NULL, 1, NULL);
    CHECK(gap == 0.0, "a stretched spring reads as joint error %g", gap);
    CHECK(ctn_joint_set_rope(w, j, 1) == CTN_ERR_INVALID_ARGUMENT, "rope accepted on a spring");

    char path[] = "/tmp/catena_spring_implicit_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd >= 0) close(fd);
    CHECK(ctn_scene_save_json(w, path) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_world *back = make(CTN_BACKEND_CPU, 1.0 / 60.0, 4, -9.81);
    char err[256];
    CHECK(ctn_scene_load_json(back, path, err, sizeof err) == CTN_OK, "%s", err);
    unlink(path);
    int nj = ctn_world_joint_count(back);
    CHECK(nj == 1, "%d joints after reload", nj);
    for (int i = 0; i < 30; ++i) ctn_world_step(w), ctn_world_step(back);
    CHECK(height(w, b) == height(back, ID_IN(back, b)), "reloaded world steps differently: %.9g vs %.9g", height(w, b), height(back, ID_IN(back, b)));

    ctn_joint_desc bad = ctn_joint_desc_default(CTN_JOINT_SPRING);
    bad.body_a = b;
    bad.rest_length = 1.0;
    bad.implicit = 1;
    CHECK(ctn_joint_add(w, &bad, NULL) == CTN_ERR_INVALID_ARGUMENT, "implicit spring with k = 0 accepted");
    bad.stiffness = 10.0;
    bad.rest_length = 0.0;
    CHECK(ctn_joint_add(w, &bad, NULL) == CTN_ERR_INVALID_ARGUMENT, "zero-length implicit spring accepted");
    printf("zero-length implicit spring refused: %s\n", ctn_world_last_error(w));
    bad.type = CTN_JOINT_DISTANCE;
    bad.rest_length = 1.0;
    CHECK(ctn_joint_add(w, &bad, NULL) == CTN_ERR_INVALID_ARGUMENT, "implicit distance joint accepted");
    CHECK(ctn_world_joint_count(w) == 1, "a refused joint was added");
    ctn_world_destroy(w);
    ctn_world_destroy(back);
}

int main(void) {
    double y_cpu = check_period(CTN_BACKEND_CPU, "cpu");
    check_stiff(CTN_BACKEND_CPU, "cpu");
    check_damper(CTN_BACKEND_CPU, "cpu");
    check_explicit_unstable();
    check_api();
    check_chain_solvers();
    ctn_world *probe = make(CTN_BACKEND_OPENCL, 1.0 / 60.0, 1, 0.0);
    if (!probe) {
        printf("spring_implicit: OpenCL half skipped (no OpenCL backend)\n");
        return check_failures ? 1 : 77;
    }
    ctn_world_destroy(probe);
    double y_ocl = check_period(CTN_BACKEND_OPENCL, "opencl");
    CHECK(fabs(y_ocl - y_cpu) < 1e-4, "OpenCL ends at %.9g, CPU at %.9g", y_ocl, y_cpu);
    check_stiff(CTN_BACKEND_OPENCL, "opencl");
    check_damper(CTN_BACKEND_OPENCL, "opencl");
    return check_report("spring_implicit");
}
