/* The RATTLE integrator on the OpenCL backend (host/opencl/opencl_rattle.c), against the CPU's
 * (tests/test_rattle.c has the method's own checks):
 *
 * - the 10-link chain (0.1 m, 0.1 kg rods, ball joints, pinned, released horizontally) at 60 Hz with default
 *   settings on OpenCL: the stats say RATTLE ran, its energy stays within 2% of m g L n^2 / 2 over 10 s and
 *   every joint within 1e-6 m, as on the CPU;
 * - the same scene on both backends, step by step for 1 s: every body's position agrees within
 *   TRAJ_TOL (the OpenCL rows, drift and chord errors are the shared kernels' single-precision functions
 *   compiled by the device's compiler, the exact solves double on both: the two runs differ by rounding);
 * - the same agreement with the chain on the exact solver's forest path (desc.debug.direct_forest = 1), whose
 *   chord iterations solve through the forest's kept factor;
 * - chain:10000 (rattle_max_joints 10000) on both backends for 62 steps, past its first Newton projection of
 *   a stalled position stage: OpenCL's joints within 1e-7 m and no more projections than the CPU's plus one
 *   (its projection's first Newton step once ran with the mass metric alone, not the CPU's geometric-stiffness
 *   metric: 13 projections against 1 and gaps of 4.3e-7 m over 60 steps);
 * - a hinge limit sends OpenCL to the velocity step, and the stats say why.
 * Exits 77 without an OpenCL device with double precision. */
#include "catena/catena.h"
#include "check.h"
#include "opencl_lsan.h"
#include "rattle_scenes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Measured on PoCL (CPU device): the largest position difference over 1 s of the 10-link chain, 60 steps. */
#define TRAJ_TOL 5e-6

static int forest_path; /* desc.debug.direct_forest = 1: the chain on the exact solver's forest path */

static ctn_world *chain(ctn_backend backend, int links, ctn_body_id *first) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = backend;
    d.debug.direct_forest = forest_path;
    ctn_world *w = NULL;
    char err[256];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) return NULL;
    ctn_chain_desc c = ctn_chain_desc_default(links);
    if (ctn_scene_chain(w, &c, first) != CTN_OK) {
        ctn_world_destroy(w);
        return NULL;
    }
    return w;
}

static void energy(void) {
    const int n = 10;
    const double scale = 0.1 * 9.81 * 0.1 * n * n / 2.0; /* m g L n^2 / 2 */
    ctn_body_id first;
    ctn_world *w = chain(CTN_BACKEND_OPENCL, n, &first);
    CHECK(w != NULL, "world");
    if (!w) return;
    double e0 = rattle_energy(w, first, n, 9.81), de = 0.0, gap = 0.0;
    ctn_step_stats st;
    memset(&st, 0, sizeof st);
    for (int i = 0; i < 600; ++i) {
        ctn_status s = ctn_world_step(w);
        CHECK(s == CTN_OK, "step %d: %s", i, ctn_world_last_error(w));
        if (s != CTN_OK) break;
        ctn_world_get_stats(w, &st);
        gap = fmax(gap, st.max_gap);
        de = fmax(de, fabs(rattle_energy(w, first, n, 9.81) - e0));
        if (st.integrator != CTN_INTEGRATOR_RATTLE) break;
    }
    printf("OpenCL chain:10, 60 Hz, defaults (%s, %s): largest |E - E0| %.4g of m g L n^2/2, largest gap %.3g m, %d substeps, "
           "residual %.3g\n", ctn_solver_name(st.solver), ctn_integrator_name(st.integrator), de / scale, gap, st.rattle_substeps,
           st.residual);
    CHECK(st.solver == CTN_SOLVER_DIRECT, "auto picked %s: %s", ctn_solver_name(st.solver), st.solver_reason);
    CHECK(st.integrator == CTN_INTEGRATOR_RATTLE, "integrator: %s", st.integrator_reason);
    CHECK(de <= 0.02 * scale, "energy error %g of %g J", de, scale);
    CHECK(gap <= 1e-6, "gap %g m", gap);
    ctn_world_destroy(w);
}

static void agreement(void) {
    const int n = 10;
    ctn_body_id fc, fo;
    ctn_world *c = chain(CTN_BACKEND_CPU, n, &fc), *o = chain(CTN_BACKEND_OPENCL, n, &fo);
    CHECK(c && o, "worlds");
    double worst = 0.0, at1s = 0.0;
    for (int i = 0; c && o && i < 60; ++i) {
        CHECK(ctn_world_step(c) == CTN_OK, "%s", ctn_world_last_error(c));
        CHECK(ctn_world_step(o) == CTN_OK, "%s", ctn_world_last_error(o));
        double step = 0.0;
        for (int b = 0; b < n; ++b) {
            ctn_body_state a, z;
            ctn_body_get_state(c, ctn_body_id_offset(fc, b), &a);
            ctn_body_get_state(o, ctn_body_id_offset(fo, b), &z);
            for (int k = 0; k < 3; ++k) step = fmax(step, fabs(a.position[k] - z.position[k]));
        }
        worst = fmax(worst, step);
        at1s = step;
    }
    printf("CPU vs OpenCL (%s path), chain:10 at 60 Hz over 1 s: largest position difference %.3g m (%.3g m after 1 s)\n", forest_path ? "forest" : "chain", worst, at1s);
    CHECK(worst <= TRAJ_TOL, "CPU and OpenCL differ by %g m", worst);
    ctn_world_destroy(c);
    ctn_world_destroy(o);
}

/* A long chain whose RATTLE position stages stall into Newton projections (host/solve/pipeline.c
 * rattle_substep): the projection's metric is M plus the geometric-stiffness inertia of the stage's impulses
 * on both backends, so OpenCL projects as often as the CPU and leaves the joints as closed. */
static void projection(void) {
    const int n = 10000, steps = 62; /* the first projection comes in step 60 */
    ctn_world *w[2] = {NULL, NULL};
    int proj[2] = {0, 0};
    double gap[2] = {0.0, 0.0};
    for (int k = 0; k < 2; ++k) {
        ctn_world_desc d = ctn_world_desc_default();
        d.backend = k ? CTN_BACKEND_OPENCL : CTN_BACKEND_CPU;
        d.rattle_max_joints = n;
        d.substeps = 1;
        char err[256];
        CHECK(ctn_world_create(&d, &w[k], err, sizeof err) == CTN_OK, "%s", err);
        if (!w[k]) break;
        ctn_chain_desc c = ctn_chain_desc_default(n);
        CHECK(ctn_scene_chain(w[k], &c, NULL) == CTN_OK, "%s", ctn_world_last_error(w[k]));
    }
    for (int i = 0; w[0] && w[1] && i < steps; ++i) {
        for (int k = 0; k < 2; ++k) {
            ctn_status s = ctn_world_step(w[k]);
            CHECK(s == CTN_OK, "step %d: %s", i, ctn_world_last_error(w[k]));
            ctn_step_stats st;
            ctn_world_get_stats(w[k], &st);
            CHECK(st.integrator == CTN_INTEGRATOR_RATTLE, "%s", st.integrator_reason);
            proj[k] += st.projections;
            gap[k] = fmax(gap[k], st.max_gap);
        }
    }
    printf("chain:%d, %d steps at 60 Hz, 1 substep, rattle: projections CPU %d, OpenCL %d; largest gap CPU %.3g m, OpenCL %.3g m\n", n, steps,
           proj[0], proj[1], gap[0], gap[1]);
    CHECK(proj[0] >= 1, "no projection on the CPU: the case lost its point");
    CHECK(proj[1] <= proj[0] + 1, "OpenCL projected %d times, the CPU %d", proj[1], proj[0]);
    CHECK(gap[0] <= 1e-7 && gap[1] <= 1e-7, "gaps %g (CPU), %g m (OpenCL)", gap[0], gap[1]);
    for (int k = 0; k < 2; ++k) ctn_world_destroy(w[k]);
}

/* A hinge limit: bounded rows, the velocity step on OpenCL as on the CPU, and the stats say why. */
static void fallback(void) {
    ctn_body_id first;
    ctn_world *w = chain(CTN_BACKEND_OPENCL, 3, &first);
    CHECK(w != NULL, "world");
    if (!w) return;
    ctn_joint_desc j = ctn_joint_desc_default(CTN_JOINT_HINGE);
    j.body_a = ctn_body_id_offset(first, 2), j.body_b = CTN_WORLD, j.anchor_a[0] = 0.05, j.anchor_b[0] = 0.3, j.axis[2] = 1.0;
    ctn_joint_id h;
    CHECK(ctn_joint_add(w, &j, &h) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_joint_set_limits(w, h, 1, -0.5, 0.5) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_step_stats st;
    ctn_world_get_stats(w, &st);
    printf("OpenCL with a hinge limit: %s\n", st.integrator_reason);
    CHECK(st.integrator == CTN_INTEGRATOR_VELOCITY && strstr(st.integrator_reason, "limit"), "%s", st.integrator_reason);
    ctn_world_destroy(w);
}

int main(void) {
    ctn_body_id first;
    ctn_world *w = chain(CTN_BACKEND_OPENCL, 3, &first);
    if (!w) {
        printf("no OpenCL device: skipped\n");
        return 77;
    }
    ctn_step_stats st;
    ctn_status s = ctn_world_step(w);
    ctn_world_get_stats(w, &st);
    ctn_world_destroy(w);
    if (s != CTN_OK || st.solver != CTN_SOLVER_DIRECT) {
        printf("the OpenCL device runs no exact solver (%s): skipped\n", st.solver_reason);
        return 77;
    }
    energy();
    agreement();
    forest_path = 1; /* the forest path's exact solves through the kept factor */
    agreement();
    forest_path = 0;
    projection();
    fallback();
    return check_report("test_rattle_opencl");
}
