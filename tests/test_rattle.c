/* The RATTLE integrator of the exact solver (host/solve/pipeline.c run_rattle, kernels/ctn_rattle.h):
 *
 * - the 10-link chain (0.1 m, 0.1 kg rods, ball joints, pinned, released horizontally) at 60 Hz with default
 *   settings (auto picks direct, which runs RATTLE): over 10 s its energy stays within 2% of m g L n^2 / 2
 *   and every joint within 1e-6 m; the velocity step of earlier versions (desc.integrator = velocity) loses
 *   more than half of it on the same scene;
 * - the order: a rigid 1 m rod pendulum released horizontally at 1/120, 1/240 and 1/480 s (one substep): the
 *   largest energy error over 4 s falls by more than 3 per halving of the step (second order: 4);
 * - the order on the 10-link chain: its first 0.25 s at a fixed substep h = 1/60/N, N = 4, 8, 16 (none added):
 *   the largest energy error falls by more than 3 per halving of h;
 * - pendulum periods of a rigid rod pinned at one end against 4 sqrt(I / (m g d)) K(sin(theta0/2)) (the
 *   elliptic integral by the arithmetic-geometric mean) at 0.1 rad and at 90 degrees, within 0.1%;
 * - the double pendulum (two hinged rods released horizontally, a chaotic motion): energy within 1% of its
 *   potential drop over 10 s;
 * - the trajectory: the tip of the 10-link chain after 0.5 s against a converged reference (the same scene at
 *   64 substeps): RATTLE at default settings closer than the velocity step;
 * - a long chain (1000 links) released horizontally: RATTLE with Newton steps on its stalled position stages
 *   holds the joints and keeps the energy better than the velocity step;
 * - desc.rattle_max_joints: validated; RATTLE runs up to it (default 1000) and the velocity step above it;
 * - the fallbacks: a hinge limit and the velocity setting run the velocity step, and the stats say why; the
 *   OpenCL backend runs RATTLE too. */
#include "catena/catena.h"
#include "check.h"
#include "ellipk.h"
#include "rattle_scenes.h"

#include <stdio.h>
#include <string.h>

static const double PI = 3.14159265358979323846;


/* Runs `steps` steps; returns the largest |E - E0| and the largest joint gap (max_gap of the stats). */
static void run_energy(ctn_world *w, ctn_body_id first, int links, int steps, double *de, double *gap, ctn_step_stats *last) {
    double e0 = rattle_energy(w, first, links, 9.81);
    *de = 0.0, *gap = 0.0;
    for (int i = 0; i < steps; ++i) {
        ctn_status s = ctn_world_step(w);
        CHECK(s == CTN_OK, "step %d: %s", i, ctn_world_last_error(w));
        if (s != CTN_OK) return;
        ctn_world_get_stats(w, last);
        *gap = fmax(*gap, last->max_gap);
        *de = fmax(*de, fabs(rattle_energy(w, first, links, 9.81) - e0));
    }
}

static void chain_energy(void) {
    const int n = 10;
    const double scale = 0.1 * 9.81 * 0.1 * n * n / 2.0; /* m g L n^2 / 2: the potential the chain can release */
    ctn_body_id first;
    ctn_step_stats st;
    double de, gap;
    /* default settings: solver auto, 4 substeps, integrator rattle */
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    ctn_chain_desc c = ctn_chain_desc_default(n);
    CHECK(ctn_scene_chain(w, &c, &first) == CTN_OK, "%s", ctn_world_last_error(w));
    run_energy(w, first, n, 600, &de, &gap, &st);
    printf("chain:10, 60 Hz, defaults (%s, %s): largest |E - E0| %.4g of m g L n^2/2, largest gap %.3g m, %d substeps\n",
           ctn_solver_name(st.solver), ctn_integrator_name(st.integrator), de / scale, gap, st.rattle_substeps);
    CHECK(st.solver == CTN_SOLVER_DIRECT, "auto picked %s: %s", ctn_solver_name(st.solver), st.solver_reason);
    CHECK(st.integrator == CTN_INTEGRATOR_RATTLE, "integrator: %s", st.integrator_reason);
    CHECK(de <= 0.02 * scale, "energy error %g of %g J", de, scale);
    /* the position stage stops on the joint gap the step reports (below 1e-7 m: 1e-6 of the 0.1 m links);
     * its old largest-row test let a gap of 1.33e-7 m through here */
    CHECK(gap <= 1e-7, "gap %g m", gap);
    ctn_world_destroy(w);
    /* the velocity step on the same scene */
    w = rattle_chain(n, CTN_SOLVER_DIRECT, CTN_INTEGRATOR_VELOCITY, 1.0 / 60.0, 4, CTN_BACKEND_CPU, &first);
    CHECK(w != NULL, "world");
    if (!w) return;
    run_energy(w, first, n, 600, &de, &gap, &st);
    printf("chain:10, 60 Hz, direct, velocity step: largest |E - E0| %.4g of m g L n^2/2 (%s)\n", de / scale, st.integrator_reason);
    CHECK(st.integrator == CTN_INTEGRATOR_VELOCITY && strstr(st.integrator_reason, "desc.integrator"), "%s", st.integrator_reason);
    CHECK(de > 0.5 * scale, "the velocity step kept the energy (%g): the comparison lost its point", de / scale);
    ctn_world_destroy(w);
}

/* A rigid rod of length L (the chain generator's link, scaled) pinned at one end, laid out at angle theta0
 * from the downward vertical. */
static ctn_world *rod_pendulum(double length, double theta0, double dt, int substeps, ctn_body_id *rod) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU, d.solver = CTN_SOLVER_DIRECT, d.time_step = dt, d.substeps = substeps, d.iterations = 1;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    if (!w) return NULL;
    ctn_chain_desc c = ctn_chain_desc_default(1);
    c.link_length = length, c.link_mass = 1.0;
    c.direction[0] = sin(theta0), c.direction[1] = -cos(theta0), c.direction[2] = 0.0;
    CHECK(ctn_scene_chain(w, &c, rod) == CTN_OK, "%s", ctn_world_last_error(w));
    return w;
}

static void order(void) {
    double err[3];
    for (int k = 0; k < 3; ++k) {
        double dt = (1.0 / 120.0) / (1 << k), gap;
        ctn_body_id rod;
        ctn_step_stats st;
        ctn_world *w = rod_pendulum(1.0, 0.5 * PI, dt, 1, &rod);
        if (!w) return;
        run_energy(w, rod, 1, (int)(4.0 / dt + 0.5), &err[k], &gap, &st);
        printf("rod pendulum 1 m from horizontal, dt 1/%.0f s, 1 substep (ran %d): largest |E - E0| %.4g J, gap %.3g m\n", 1.0 / dt,
               st.rattle_substeps, err[k], gap);
        CHECK(st.integrator == CTN_INTEGRATOR_RATTLE && st.rattle_substeps == 1, "%s, %d substeps", st.integrator_reason, st.rattle_substeps);
        ctn_world_destroy(w);
    }
    printf("energy error ratio per halving of the step: %.3g, %.3g (order %.2f, %.2f)\n", err[0] / err[1], err[1] / err[2],
           log2(err[0] / err[1]), log2(err[1] / err[2]));
    CHECK(err[0] / err[1] > 3.0 && err[1] / err[2] > 3.0, "not second order: %g %g %g", err[0], err[1], err[2]);
}

/* The order on the 10-link chain itself: released horizontally at 60 Hz with a fixed number of substeps N
 * (enough that RATTLE adds none over the run, checked: every step ran exactly N), the first 0.25 s (before
 * the whip turns its end fast enough that RATTLE adds substeps); the largest energy error falls by more
 * than 3 per doubling of N (second order: 4). Measured (2-core dev VM): 3.31e-5, 7.33e-6, 1.17e-6 of
 * m g L n^2/2 at N = 4, 8, 16 (ratios 4.5, 6.3). Below h = 1/1920 s the error stops falling (4.2e-6 at
 * N = 32): the position stage stops at 1e-7 m, a velocity error of up to 1e-7 m / h that grows as h
 * shrinks (bench/results/2026-11-29-vm-rattle-10000.md). */
static void chain_order(void) {
    const int subs[3] = {4, 8, 16}, links = 10, steps = 15;
    const double scale = 0.1 * 9.81 * 0.1 * links * links / 2.0;
    double err[3];
    for (int k = 0; k < 3; ++k) {
        ctn_body_id first;
        ctn_world *w = rattle_chain(links, CTN_SOLVER_DIRECT, CTN_INTEGRATOR_RATTLE, 1.0 / 60.0, subs[k], CTN_BACKEND_CPU, &first);
        CHECK(w != NULL, "world");
        if (!w) return;
        double e0 = rattle_energy(w, first, links, 9.81), gap = 0.0;
        int most = 0, least = 1 << 30;
        ctn_step_stats st;
        err[k] = 0.0;
        for (int i = 0; i < steps; ++i) {
            ctn_status s = ctn_world_step(w);
            CHECK(s == CTN_OK, "step %d: %s", i, ctn_world_last_error(w));
            if (s != CTN_OK) break;
            ctn_world_get_stats(w, &st);
            most = st.rattle_substeps > most ? st.rattle_substeps : most;
            least = st.rattle_substeps < least ? st.rattle_substeps : least;
            gap = fmax(gap, st.max_gap);
            err[k] = fmax(err[k], fabs(rattle_energy(w, first, links, 9.81) - e0));
        }
        printf("chain:10 from horizontal, 60 Hz x %d (h = 1/%d s, ran %d..%d), 0.25 s: largest |E - E0| %.4g of m g L n^2/2, gap %.3g m\n",
               subs[k], 60 * subs[k], least, most, err[k] / scale, gap);
        CHECK(most == subs[k] && least == subs[k], "RATTLE ran %d..%d substeps, not %d: h is not fixed", least, most, subs[k]);
        ctn_world_destroy(w);
    }
    printf("chain:10 energy error ratio per halving of h: %.3g, %.3g (order %.2f, %.2f)\n", err[0] / err[1], err[1] / err[2],
           log2(err[0] / err[1]), log2(err[1] / err[2]));
    for (int k = 0; k < 2; ++k) CHECK(err[k] / err[k + 1] > 3.0, "not second order at N = %d: %g %g", subs[k], err[k], err[k + 1]);
}

/* Period from the upward crossings of the rod's centre through x = 0 (linearly interpolated). */
static void period(double theta0, double tol) {
    const double dt = 1.0 / 60.0, L = 1.0;
    ctn_body_id rod;
    ctn_world *w = rod_pendulum(L, theta0, dt, 4, &rod);
    if (!w) return;
    ctn_body_desc bd;
    CHECK(ctn_body_get_desc(w, rod, &bd) == CTN_OK, "desc");
    /* the rod lies along body x (the chain's links), swings about z: I about the pin = I_zz + m (L/2)^2 */
    double d = 0.5 * L, ip = bd.inertia[2] + bd.mass * d * d;
    double exact = 4.0 * sqrt(ip / (bd.mass * 9.81 * d)) * ellipk(sin(0.5 * theta0));
    ctn_body_state s;
    ctn_body_get_state(w, rod, &s);
    double prev = s.position[0], t_first = -1.0, t_last = -1.0;
    int crossings = 0;
    for (int i = 1; i <= 1200; ++i) {
        CHECK(ctn_world_step(w) == CTN_OK, "step: %s", ctn_world_last_error(w));
        ctn_body_get_state(w, rod, &s);
        double x = s.position[0];
        if (prev > 0.0 && x <= 0.0) {
            double tc = (i - 1 + prev / (prev - x)) * dt;
            if (t_first < 0.0) t_first = tc;
            t_last = tc, crossings++;
        }
        prev = x;
    }
    double measured = crossings > 1 ? (t_last - t_first) / (crossings - 1) : 0.0;
    printf("rod pendulum, amplitude %.4g rad, 60 Hz x 4: period %.6f s, analytic %.6f s, error %+.4f%%\n", theta0, measured, exact,
           100.0 * (measured / exact - 1.0));
    CHECK(fabs(measured / exact - 1.0) <= tol, "period %g vs %g", measured, exact);
    ctn_world_destroy(w);
}

static void double_pendulum(void) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU, d.solver = CTN_SOLVER_DIRECT;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    if (!w) return;
    /* ctn_scene_double_pendulum's rig: two 1 m rods (boxes, 1 kg) hinged about z, laid out along +x */
    const double z_axis[3] = {0.0, 0.0, 1.0};
    ctn_body_desc bd = ctn_body_desc_default();
    double he[3] = {0.5, 0.02, 0.02};
    ctn_inertia_box(bd.mass, he, bd.inertia);
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_HINGE);
    ctn_body_id b[2], prev = CTN_WORLD;
    for (int i = 0; i < 2; ++i) {
        bd.position[0] = i + 0.5;
        CHECK(ctn_body_add(w, &bd, &b[i]) == CTN_OK, "%s", ctn_world_last_error(w));
        double pivot[3] = {i, 0.0, 0.0};
        jd.body_a = b[i], jd.body_b = prev;
        CHECK(ctn_joint_desc_set_pivot(w, &jd, pivot, z_axis) == CTN_OK && ctn_joint_add(w, &jd, NULL) == CTN_OK, "%s",
              ctn_world_last_error(w));
        prev = b[i];
    }
    double drop = 2.0 * bd.mass * 9.81; /* m g (0.5 + 1.5): the potential released from horizontal to hanging */
    double de, gap;
    ctn_step_stats st;
    run_energy(w, b[0], 2, 600, &de, &gap, &st);
    printf("double pendulum, 60 Hz, direct (%s): largest |E - E0| %.4g J of %.4g J released, gap %.3g m, %d substeps\n",
           ctn_integrator_name(st.integrator), de, drop, gap, st.rattle_substeps);
    CHECK(st.integrator == CTN_INTEGRATOR_RATTLE, "%s", st.integrator_reason);
    CHECK(de <= 0.01 * drop, "energy error %g J", de);
    CHECK(gap <= 1e-6, "gap %g", gap);
    ctn_world_destroy(w);
}

/* The tip (last link's centre) after `steps` steps. */
static void tip_after(ctn_integrator integ, int substeps, int steps, double out[3]) {
    ctn_body_id first;
    ctn_world *w = rattle_chain(10, CTN_SOLVER_DIRECT, integ, 1.0 / 60.0, substeps, CTN_BACKEND_CPU, &first);
    CHECK(w != NULL, "world");
    if (!w) return;
    for (int i = 0; i < steps; ++i) CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_body_state s;
    ctn_body_get_state(w, ctn_body_id_offset(first, 9), &s);
    memcpy(out, s.position, sizeof s.position);
    ctn_world_destroy(w);
}

static void trajectory(void) {
    double ref[3], r[3], v[3];
    tip_after(CTN_INTEGRATOR_RATTLE, 64, 30, ref);
    tip_after(CTN_INTEGRATOR_RATTLE, 4, 30, r);
    tip_after(CTN_INTEGRATOR_VELOCITY, 4, 30, v);
    double er = sqrt(pow(r[0] - ref[0], 2) + pow(r[1] - ref[1], 2) + pow(r[2] - ref[2], 2));
    double ev = sqrt(pow(v[0] - ref[0], 2) + pow(v[1] - ref[1], 2) + pow(v[2] - ref[2], 2));
    printf("chain:10 tip after 0.5 s against 64 substeps: rattle (4) %.3g m, velocity step (4) %.3g m\n", er, ev);
    CHECK(er < ev, "rattle %g m, velocity %g m", er, ev);
    CHECK(er < 0.01, "rattle %g m", er);
}

/* A chain longer than the chord iteration's reach (1000 links, above the 100 joints where a stalled chord
 * iteration goes on with Newton steps, host/solve/pipeline.c rattle_newton) released horizontally at 60 Hz
 * with default substeps: RATTLE runs, takes Newton steps, holds the joints to 1e-6 m and keeps the energy
 * better than the velocity step of the same settings over the first 0.5 s. */
static void long_chain(void) {
    const int n = 1000, steps = 30;
    const double scale = 0.1 * 9.81 * 0.1 * (double)n * n / 2.0;
    ctn_body_id first;
    ctn_step_stats st;
    double de[2], gap[2];
    long newton = 0;
    for (int k = 0; k < 2; ++k) {
        ctn_world *w = rattle_chain(n, CTN_SOLVER_DIRECT, k ? CTN_INTEGRATOR_VELOCITY : CTN_INTEGRATOR_RATTLE, 1.0 / 60.0, 4, CTN_BACKEND_CPU,
                                    &first);
        CHECK(w != NULL, "world");
        if (!w) return;
        double e0 = rattle_energy(w, first, n, 9.81);
        de[k] = 0.0, gap[k] = 0.0;
        for (int i = 0; i < steps; ++i) {
            ctn_status s = ctn_world_step(w);
            CHECK(s == CTN_OK, "step %d: %s", i, ctn_world_last_error(w));
            if (s != CTN_OK) break;
            ctn_world_get_stats(w, &st);
            if (!k) newton += st.newton_steps;
            gap[k] = fmax(gap[k], st.max_gap);
            de[k] = fmax(de[k], fabs(rattle_energy(w, first, n, 9.81) - e0));
        }
        printf("chain:%d, 60 Hz x 4, %d steps, %s: largest |E - E0| %.3g of m g L n^2/2, gap %.3g m, Newton steps %ld (%s)\n", n, steps,
               ctn_integrator_name(st.integrator), de[k] / scale, gap[k], k ? 0L : newton, st.integrator_reason);
        CHECK(st.integrator == (k ? CTN_INTEGRATOR_VELOCITY : CTN_INTEGRATOR_RATTLE), "%s", st.integrator_reason);
        ctn_world_destroy(w);
    }
    CHECK(newton > 0, "no Newton step on chain:%d: the chord iteration never stalled, the case lost its point", n);
    CHECK(gap[0] <= 1e-7, "gap %g m", gap[0]); /* 1e-6 link lengths, Newton steps included */
    CHECK(de[0] < 0.5 * de[1], "RATTLE %g, velocity step %g of m g L n^2/2", de[0] / scale, de[1] / scale);
}

/* desc.rattle_max_joints: out of range is refused naming the field and value (the world unchanged); below a
 * world's joint count the velocity step runs and says so; the default (0) is CTN_RATTLE_MAX_JOINTS, and a
 * larger value lets RATTLE run above it. */
static void max_joints_setting(void) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU, d.solver = CTN_SOLVER_DIRECT;
    ctn_world *w = NULL;
    char err[512];
    d.rattle_max_joints = -1;
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_ERR_INVALID_ARGUMENT && !w && strstr(err, "desc.rattle_max_joints") && strstr(err, "-1"),
          "rattle_max_joints -1: %s", err);
    d.rattle_max_joints = CTN_MAX_JOINTS + 1;
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_ERR_INVALID_ARGUMENT && !w && strstr(err, "desc.rattle_max_joints"),
          "rattle_max_joints above CTN_MAX_JOINTS: %s", err);
    d.rattle_max_joints = 5;
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    if (!w) return;
    ctn_body_id first;
    ctn_chain_desc c = ctn_chain_desc_default(10);
    CHECK(ctn_scene_chain(w, &c, &first) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_step_stats st;
    CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_world_get_stats(w, &st);
    printf("chain:10 with rattle_max_joints 5: %s\n", st.integrator_reason);
    CHECK(st.integrator == CTN_INTEGRATOR_VELOCITY && strstr(st.integrator_reason, "rattle_max_joints") && strstr(st.integrator_reason, " 5 "),
          "%s", st.integrator_reason);
    ctn_world_desc bad = d, now;
    bad.rattle_max_joints = -7;
    CHECK(ctn_world_set_desc(w, &bad) == CTN_ERR_INVALID_ARGUMENT && strstr(ctn_world_last_error(w), "desc.rattle_max_joints"), "%s",
          ctn_world_last_error(w));
    ctn_world_get_desc(w, &now);
    CHECK(now.rattle_max_joints == 5, "a refused set_desc changed the world: rattle_max_joints %d", now.rattle_max_joints);
    ctn_world_destroy(w);
    /* chain:1001: one joint above the default limit; the velocity step at 0, RATTLE at 1001 */
    for (int k = 0; k < 2; ++k) {
        d.rattle_max_joints = k ? CTN_RATTLE_MAX_JOINTS + 1 : 0;
        CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
        if (!w) return;
        c = ctn_chain_desc_default(CTN_RATTLE_MAX_JOINTS + 1);
        CHECK(ctn_scene_chain(w, &c, &first) == CTN_OK, "%s", ctn_world_last_error(w));
        CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_world_get_stats(w, &st);
        printf("chain:%d with rattle_max_joints %d: %s\n", CTN_RATTLE_MAX_JOINTS + 1, d.rattle_max_joints, st.integrator_reason);
        CHECK(st.integrator == (k ? CTN_INTEGRATOR_RATTLE : CTN_INTEGRATOR_VELOCITY), "%s", st.integrator_reason);
        CHECK(k || strstr(st.integrator_reason, "1000"), "%s", st.integrator_reason);
        ctn_world_destroy(w);
    }
}

static void fallbacks(void) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU, d.solver = CTN_SOLVER_DIRECT;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    if (!w) return;
    ctn_body_id first;
    ctn_chain_desc c = ctn_chain_desc_default(3);
    CHECK(ctn_scene_chain(w, &c, &first) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_step_stats st;
    CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_world_get_stats(w, &st);
    CHECK(st.integrator == CTN_INTEGRATOR_RATTLE, "%s", st.integrator_reason);
    /* a limited hinge: bounded rows, the velocity step */
    ctn_joint_desc j = ctn_joint_desc_default(CTN_JOINT_HINGE);
    j.body_a = ctn_body_id_offset(first, 2), j.body_b = CTN_WORLD, j.anchor_a[0] = 0.05, j.anchor_b[0] = 0.3, j.axis[2] = 1.0;
    ctn_joint_id h;
    CHECK(ctn_joint_add(w, &j, &h) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_joint_set_limits(w, h, 1, -0.5, 0.5) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_world_get_stats(w, &st);
    printf("with a hinge limit: %s\n", st.integrator_reason);
    CHECK(st.integrator == CTN_INTEGRATOR_VELOCITY && strstr(st.integrator_reason, "limit"), "%s", st.integrator_reason);
    ctn_world_destroy(w);
    /* the OpenCL backend runs RATTLE too (tests/test_rattle_opencl.c compares the two) */
    d.backend = CTN_BACKEND_OPENCL;
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        printf("no OpenCL device: %s\n", err);
        return;
    }
    CHECK(ctn_scene_chain(w, &c, &first) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_world_get_stats(w, &st);
    printf("OpenCL: %s\n", st.integrator_reason);
    CHECK(st.integrator == CTN_INTEGRATOR_RATTLE || st.solver != CTN_SOLVER_DIRECT, "%s", st.integrator_reason);
    ctn_world_destroy(w);
}

int main(void) {
    chain_energy();
    order();
    chain_order();
    period(0.1, 1e-3);
    period(0.5 * PI, 1e-3);
    double_pendulum();
    trajectory();
    long_chain();
    max_joints_setting();
    fallbacks();
    return check_report("test_rattle");
}
