/* Divergence guard: a step that makes a body too fast or non-finite returns CTN_ERR_DIVERGED, names the
 * body, and leaves the world bitwise as it was before the step; stepping can continue afterwards. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "core/world.h" /* w->inertia, w->snapshot_inertia_kept */
#include "solve/solve.h" /* ctn__cpu_pose_copy_capacity, ctn__cpu_project_unchecked_* */
#include "ids.h"
#include "check.h"
#include "fixtures.h"
#include "files.h"
#include "gear_rig.h"
#include "opencl_lsan.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* All body states of the world, concatenated. */
static double *snapshot(ctn_world *w, int n) {
    double *s = malloc(sizeof(double) * 13 * (size_t)n);
    for (int i = 0; i < n; ++i) {
        ctn_body_state b;
        ctn_body_get_state(w, HBODY(w, i), &b);
        memcpy(&s[13 * i], b.position, sizeof b.position);
        memcpy(&s[13 * i + 3], b.orientation, sizeof b.orientation);
        memcpy(&s[13 * i + 7], b.velocity, sizeof b.velocity);
        memcpy(&s[13 * i + 10], b.angular_velocity, sizeof b.angular_velocity);
    }
    return s;
}

static ctn_world *make(double max_speed) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.max_speed = max_speed;
    ctn_world *w = NULL;
    char err[256];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) return NULL;
    ctn_chain_desc c = ctn_chain_desc_default(20);
    ctn_scene_chain(w, &c, NULL);
    return w;
}

/* Sets w's speed limit to max_speed (CHECKed) and returns the description it had, for the caller to put back. */
static ctn_world_desc set_speed_limit(ctn_world *w, double max_speed, const char *what) {
    ctn_world_desc d, limited;
    ctn_world_get_desc(w, &d);
    limited = d;
    limited.max_speed = max_speed;
    CHECK(ctn_world_set_desc(w, &limited) == CTN_OK, "%s: %s", what, ctn_world_last_error(w));
    return d;
}

/* Forces a divergence (max_speed far below the speeds) and checks that the
 * checkpoint, which holds every body's world inverse inertia as well as its state, is byte for byte the one
 * before the undone step. The restore recomputes the inertias from the poses when every one of them was that
 * function of its pose (the test of host/core/divergence.c), and copies them back otherwise. */
static void undo_keeps_checkpoint(ctn_world *w, const char *what) {
    char a[64], b[64];
    snprintf(a, sizeof a, "divergence-%ld-a.ckpt", (long)getpid());
    snprintf(b, sizeof b, "divergence-%ld-b.ckpt", (long)getpid());
    CHECK(ctn_world_save(w, a, 5, "undo") == CTN_OK, "%s save: %s", what, ctn_world_last_error(w));
    ctn_world_desc d = set_speed_limit(w, 1e-9, what);
    ctn_status st = ctn_world_step(w);
    CHECK(st == CTN_ERR_DIVERGED, "%s: forced divergence gives %s", what, ctn_status_name(st));
    CHECK(ctn_world_set_desc(w, &d) == CTN_OK, "%s: %s", what, ctn_world_last_error(w));
    CHECK(ctn_world_save(w, b, 5, "undo") == CTN_OK, "%s save: %s", what, ctn_world_last_error(w));
    CHECK(test_same_files(a, b), "%s: the checkpoint after the undone step differs", what);
    remove(a);
    remove(b);
    CHECK(ctn_world_step(w) == CTN_OK, "%s: step after the undo: %s", what, ctn_world_last_error(w));
}

/* Whether worlds a and b save byte-identical checkpoints. */
static int same_checkpoint(ctn_world *wa, ctn_world *wb) {
    char a[64], b[64];
    snprintf(a, sizeof a, "divergence-%ld-ta.ckpt", (long)getpid());
    snprintf(b, sizeof b, "divergence-%ld-tb.ckpt", (long)getpid());
    int ok = ctn_world_save(wa, a, 5, "twin") == CTN_OK && ctn_world_save(wb, b, 5, "twin") == CTN_OK && test_same_files(a, b);
    remove(a);
    remove(b);
    return ok;
}

/* The worlds of case 5: a chain:8 (kind 0), the same with a particle attached to its last link (1), a box
 * resting on a plane (2), the gear train of tests/gear_rig.h driven by its motor (3), kind 1 with the master's
 * state set by the caller before the step (4: the composite is built again from it, as on a first step). */
static const char *const FIRST_KIND[5] = {"chain:8", "chain:8 + attached particle", "box on a plane", "gear train",
                                          "chain:8 + attached particle, master set"};
static ctn_world *first_world(int kind, ctn_backend backend, ctn_solver solver) {
    char err[256];
    ctn_world *w = NULL;
    if (kind == 3) {
        gear_rig r;
        if (!rig_build(&r, backend, solver, 2.0, err, sizeof err)) return NULL;
        return r.w;
    }
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = backend;
    d.solver = solver;
    d.max_speed = 1e4;
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) return NULL;
    if (kind == 2) {
        const double he[3] = {0.5, 0.25, 0.4}, at[3] = {0.0, 0.25, 0.0};
        fixture_floor(w, 0.6);
        fixture_box(w, CTN_BODY_DYNAMIC, 2.0, he, at, NULL, ctn_shape_desc_default(CTN_SHAPE_BOX).friction);
        return w;
    }
    ctn_chain_desc c = ctn_chain_desc_default(8);
    CHECK(ctn_scene_chain(w, &c, NULL) == CTN_OK, "chain: %s", ctn_world_last_error(w));
    if (kind == 1 || kind == 4) {
        ctn_body_desc bd = ctn_body_desc_default();
        bd.particle = 1;
        bd.mass = 0.5;
        ctn_body_id p = CTN_NULL_BODY;
        CHECK(ctn_body_add(w, &bd, &p) == CTN_OK, "particle: %s", ctn_world_last_error(w));
        const double at[3] = {0.0, 0.0, 0.0};
        CHECK(ctn_attach_point(w, p, HBODY(w, 7), at) == CTN_OK, "attach: %s", ctn_world_last_error(w));
    }
    return w;
}

/* Case 5, kind 4: the caller sets the master's (the last link's) velocity. */
static void set_master(ctn_world *w) {
    ctn_body_state b;
    CHECK(ctn_body_get_state(w, HBODY(w, 7), &b) == CTN_OK, "%s", ctn_world_last_error(w));
    b.velocity[2] += 0.25;
    b.angular_velocity[0] += 0.5;
    CHECK(ctn_body_set_state(w, HBODY(w, 7), &b) == CTN_OK, "%s", ctn_world_last_error(w));
}

/* 5. The first step, which builds what later steps reuse (the solver layout, an attachment's composite body
 * and its cache), undone exactly too, and the same worlds after 5 steps; the step after the undo is the one a
 * twin that never diverged takes. */
static void first_step_undo(ctn_backend backend) {
    for (int kind = 0; kind < 5; ++kind)
        for (int s = 0; s < 3; ++s)
            for (int steps = 0; steps <= 5; steps += 5) {
                static const ctn_solver solvers[3] = {CTN_SOLVER_DIRECT, CTN_SOLVER_GS, CTN_SOLVER_AUTO};
                ctn_solver solver = solvers[s];
                ctn_world *w = first_world(kind, backend, solver);
                CHECK(w != NULL, "%s: world", FIRST_KIND[kind]);
                if (!w) continue;
                for (int k = 0; k < steps; ++k) CHECK(ctn_world_step(w) == CTN_OK, "%s step %d: %s", FIRST_KIND[kind], k, ctn_world_last_error(w));
                if (kind == 4) set_master(w);
                char what[128];
                snprintf(what, sizeof what, "%s, %s, %s, after %d steps", FIRST_KIND[kind], backend == CTN_BACKEND_CPU ? "cpu" : "opencl", ctn_solver_name(solver), steps);
                undo_keeps_checkpoint(w, what); /* and one step after the undo */
                /* the step after the undo is the one a twin that never diverged takes */
                ctn_world *twin = first_world(kind, backend, solver);
                for (int k = 0; twin && k <= steps; ++k) {
                    if (kind == 4 && k == steps) set_master(twin);
                    CHECK(ctn_world_step(twin) == CTN_OK, "%s twin step %d", what, k);
                }
                CHECK(twin && same_checkpoint(w, twin), "%s: the step after the undo differs from the twin's", what);
                ctn_world_destroy(twin);
                ctn_world_destroy(w);
            }
}

/* Whether every body's world inverse inertia is ctn_body_inverse_inertia of its pose, bit for bit (those the last
 * step left stale formed first, as any reader outside a step does). */
static int inertias_derived(ctn_world *w) {
    ctn__inertia_fresh(w);
    for (int i = 0; i < w->body_count; ++i) {
        ctn_sym3 in = ctn_body_inverse_inertia(w->pose[i], w->props[i]);
        if (memcmp(&in, &w->inertia[i].inv_inertia, sizeof in) != 0) return 0;
    }
    return 1;
}

/* 6. The CPU backend skips the snapshot's test of the inertias when the last step's stages formed them from the
 * poses and the host changed no body since: the snapshot of every step then keeps a copy exactly when some
 * inertia is not that function of its pose (the inertias as each step begins). Worlds without attachments, whose
 * step changes no body before the backend's first stage: chain:8 under the exact solver (RATTLE, the velocity step
 * at 1 and 3 substeps), under Gauss-Seidel; the box on a plane and the gear train under AUTO; one inertia edited
 * between steps through the host arrays (with the bodies marked changed, as the API's edits do). */
static void inertia_hint(void) {
    for (int kind = 0; kind < 7; ++kind) {
        ctn_world *w = NULL;
        char err[256];
        if (kind >= 5) {
            w = first_world(kind == 5 ? 2 : 3, CTN_BACKEND_CPU, CTN_SOLVER_AUTO);
        } else {
            ctn_world_desc d = ctn_world_desc_default();
            d.backend = CTN_BACKEND_CPU;
            d.solver = kind == 4 ? CTN_SOLVER_GS : CTN_SOLVER_DIRECT;
            d.integrator = kind == 0 ? CTN_INTEGRATOR_RATTLE : CTN_INTEGRATOR_VELOCITY;
            d.substeps = kind == 2 ? 3 : 1;
            d.max_speed = 1e4;
            if (ctn_world_create(&d, &w, err, sizeof err) == CTN_OK) {
                ctn_chain_desc c = ctn_chain_desc_default(8);
                CHECK(ctn_scene_chain(w, &c, NULL) == CTN_OK, "chain: %s", ctn_world_last_error(w));
            }
        }
        CHECK(w != NULL, "inertia hint world %d", kind);
        if (!w) continue;
        int kept = 0, recomputed = 0;
        for (int k = 0; k < 12; ++k) {
            if (k == 6 && w->body_count > 0) { /* a host edit */
                int b = w->body_count > 3 ? 3 : 0;
                ctn__inertia_fresh(w);
                w->inertia[b].inv_inertia.yy = nextafterf(w->inertia[b].inv_inertia.yy, INFINITY);
                w->bodies_dirty = 1;
            }
            int derived = inertias_derived(w);
            CHECK(ctn_world_step(w) == CTN_OK, "inertia hint world %d step %d: %s", kind, k, ctn_world_last_error(w));
            CHECK(w->snapshot_inertia_kept == !derived, "inertia hint world %d step %d: derived %d, copy kept %d", kind, k, derived,
                  w->snapshot_inertia_kept);
            kept += w->snapshot_inertia_kept, recomputed += !w->snapshot_inertia_kept;
        }
        CHECK(kept >= 1 && recomputed >= 1, "inertia hint world %d: both ways taken (kept %d, recomputed %d)", kind, kept, recomputed);
        ctn_world_destroy(w);
    }
}

/* A chain of `links` ball joints on the CPU's exact solver with the velocity integrator, `substeps` substeps,
 * `iterations` iterations (0: the default) and the speed limit max_speed; NULL (a failed check) when it cannot
 * be made. */
static ctn_world *direct_chain(int links, int substeps, int iterations, double max_speed) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.solver = CTN_SOLVER_DIRECT;
    d.integrator = CTN_INTEGRATOR_VELOCITY;
    d.substeps = substeps;
    if (iterations > 0) d.iterations = iterations;
    d.max_speed = max_speed;
    return fixture_chain_from(&d, links, NULL);
}

/* Whether the last step held the step spare alone (host/core/divergence.c, CTN_SNAP_SHARED): the pose spare, and
 * neither the velocity spare nor the impulses' (topo.lambda_prev). */
static int step_spare_alone(const ctn_world *w) {
    return w->snapshot_pose != NULL && w->snapshot_vel == NULL && w->topo.lambda_prev == NULL;
}

/* 7. A world with a spring (an explicit force element, whose gather reads other bodies' velocities): the forces
 * are the step's first write of the velocities, from the spare of the double buffer; a forced divergence after
 * steps at 1 and 2 substeps leaves the checkpoint as it was, and the step after it is a twin's. */
static void spring_undo(void) {
    for (int sub = 1; sub <= 2; ++sub) {
        ctn_world *ws[2] = {NULL, NULL};
        for (int t = 0; t < 2; ++t) {
            ws[t] = direct_chain(8, sub, 0, 1e4);
            if (!ws[t]) continue;
            ctn_joint_desc j = ctn_joint_desc_default(CTN_JOINT_SPRING);
            j.body_a = HBODY(ws[t], 2);
            j.body_b = HBODY(ws[t], 6);
            j.rest_length = 0.1;
            j.stiffness = 50.0;
            j.damping = 0.5;
            CHECK(ctn_joint_add(ws[t], &j, NULL) == CTN_OK, "spring: %s", ctn_world_last_error(ws[t]));
            for (int k = 0; k < 4; ++k) CHECK(ctn_world_step(ws[t]) == CTN_OK, "spring step %d: %s", k, ctn_world_last_error(ws[t]));
        }
        if (ws[0] && ws[1]) {
            undo_keeps_checkpoint(ws[0], sub == 1 ? "chain:8 with a spring" : "chain:8 with a spring, 2 substeps");
            CHECK(ctn_world_step(ws[1]) == CTN_OK, "spring twin: %s", ctn_world_last_error(ws[1]));
            CHECK(same_checkpoint(ws[0], ws[1]), "spring, %d substeps: the step after the undo differs from the twin's", sub);
        }
        ctn_world_destroy(ws[0]);
        ctn_world_destroy(ws[1]);
    }
}

/* ctn__body_diverged tests the 16 floats of a body's position, orientation and velocities by their exponent
 * fields: against the sum of x - x over them (NaN exactly when one is NaN or infinite), for NaN, +inf and -inf
 * in each of the 16 floats of a pose and a velocity (records without pads: every float is tested). */
static void body_lanes(void) {
    ctn_world *w = make(0.0);
    CHECK(w != NULL, "world");
    int wrong = 0, tested = 0;
    const float bad[3] = {NAN, INFINITY, -INFINITY};
    for (int b = 0; b < 3; ++b)
        for (int k = 0; k < 16; ++k) {
            ctn_pose p = {{1e30f, -2.0f, 1e-45f}, {-0.0f, 1e-8f, 3.4e38f}, {0.5f, 0.5f, -0.5f, 0.5f}};
            ctn_vel v = {{-3.0f, 0.0f, 1e19f}, {1e-40f, -1e19f, 7.0f}};
            float *f = k < 10 ? (float *)(void *)&p + k : (float *)(void *)&v + (k - 10); /* ctn_pose: 10 floats */
            *f = bad[b];
            float z = (p.p.x - p.p.x) + (p.p.y - p.p.y) + (p.p.z - p.p.z) + (p.p_lo.x - p.p_lo.x) + (p.p_lo.y - p.p_lo.y) +
                      (p.p_lo.z - p.p_lo.z) + (p.q.w - p.q.w) + (p.q.x - p.q.x) + (p.q.y - p.q.y) + (p.q.z - p.q.z) +
                      (v.v.x - v.v.x) + (v.v.y - v.v.y) + (v.v.z - v.v.z) + (v.w.x - v.w.x) + (v.w.y - v.w.y) + (v.w.z - v.w.z);
            double speed = 0.0;
            wrong += ctn__body_diverged(w, &p, &v, &speed) != (z != z) || !(z != z);
            tested++;
        }
    CHECK(wrong == 0 && tested == 3 * 16, "%d of 48 planted values judged unlike the x - x sum (%d tested lanes)", wrong, tested);
    ctn_pose p = {{1e30f, -2.0f, 1e-45f}, {-0.0f, 1e-8f, 3.4e38f}, {0.5f, 0.5f, -0.5f, 0.5f}};
    ctn_vel v = {{-3.0f, 0.0f, 1e19f}, {1e-40f, -1e19f, 7.0f}};
    double speed = 0.0;
    float a = ctn_dot(v.v, v.v), b = ctn_dot(v.w, v.w);
    CHECK(!ctn__body_diverged(w, &p, &v, &speed) && speed == (double)sqrtf(a > b ? a : b), "finite body: diverged, speed %g", speed);
    ctn_world_destroy(w);
}

/* 8. The velocity step with one substep (Gauss-Seidel here), whose only writer of the poses is its final
 * integration: the divergence test runs before it and it writes the poses in place, so no pose spare is held
 * (host/core/divergence.c). A diverged step leaves poses, velocities, impulses and the checkpoint bit for bit
 * as before, without touching the poses (the same array); the spare comes back for a configuration that forks
 * the poses (the exact solver's projection, two substeps, a pose beyond the bounds of the test) and goes again. */
static ctn_world *gs_chain(int substeps, ctn_solver solver) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.solver = solver;
    d.substeps = substeps;
    d.iterations = 10;
    d.max_speed = 1e4;
    ctn_world *w = NULL;
    char err[256];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) return NULL;
    ctn_chain_desc c = ctn_chain_desc_default(20);
    CHECK(ctn_scene_chain(w, &c, NULL) == CTN_OK, "chain: %s", ctn_world_last_error(w));
    return w;
}

static void in_place_undo(void) {
    for (int how = 0; how < 3; ++how) { /* speed limit, non-finite force, non-finite velocity */
        ctn_world *w = gs_chain(1, how == 2 ? CTN_SOLVER_JACOBI : CTN_SOLVER_GS);
        CHECK(w != NULL, "gs chain");
        if (!w) return;
        int n = ctn_world_body_count(w);
        for (int k = 0; k < 5; ++k) CHECK(ctn_world_step(w) == CTN_OK, "step %d: %s", k, ctn_world_last_error(w));
        CHECK(w->snapshot_pose == NULL, "no pose spare after a step in place");
        if (how == 0) undo_keeps_checkpoint(w, "chain:20, gs 10x1, in place");
        CHECK(w->snapshot_pose == NULL, "no pose spare after an undone step in place");
        ctn_world_desc d, slow;
        ctn_world_get_desc(w, &d);
        slow = d;
        if (how == 0) slow.max_speed = 1e-9;
        CHECK(ctn_world_set_desc(w, &slow) == CTN_OK, "%s", ctn_world_last_error(w));
        if (how == 1) {
            double f[3] = {FLT_MAX, 0.0, 0.0};
            CHECK(ctn_body_set_force(w, HBODY(w, 7), f, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
        }
        if (how == 2) {
            ctn_body_state b;
            CHECK(ctn_body_get_state(w, HBODY(w, 11), &b) == CTN_OK, "%s", ctn_world_last_error(w));
            b.angular_velocity[1] = 1e38; /* finite, but its square is not: the speed test's non-finite */
            CHECK(ctn_body_set_state(w, HBODY(w, 11), &b) == CTN_OK, "%s", ctn_world_last_error(w));
        }
        double *before = snapshot(w, n);
        const ctn_pose *poses = w->pose;
        ctn_pose *copy = malloc(sizeof *copy * (size_t)n);
        memcpy(copy, w->pose, sizeof *copy * (size_t)n);
        int m = ctn_world_joint_count(w);
        double *imp = malloc(sizeof(double) * 6 * (size_t)m), *imp2 = malloc(sizeof(double) * 6 * (size_t)m);
        for (int j = 0; j < m; ++j) ctn_joint_get_impulse(w, HJOINT(w, j), imp + 6 * j, NULL);
        ctn_status st = ctn_world_step(w);
        CHECK(st == CTN_ERR_DIVERGED, "in place (%d): %s", how, ctn_status_name(st));
        CHECK(strstr(ctn_world_last_error(w), "body") != NULL, "in place (%d): message %s", how, ctn_world_last_error(w));
        CHECK(w->pose == poses && memcmp(copy, w->pose, sizeof *copy * (size_t)n) == 0, "in place (%d): the poses never moved", how);
        CHECK(w->snapshot_pose == NULL, "in place (%d): no pose spare", how);
        double *after = snapshot(w, n);
        CHECK(memcmp(before, after, sizeof(double) * 13 * (size_t)n) == 0, "in place (%d): state restored bitwise", how);
        for (int j = 0; j < m; ++j) ctn_joint_get_impulse(w, HJOINT(w, j), imp2 + 6 * j, NULL);
        CHECK(memcmp(imp, imp2, sizeof(double) * 6 * (size_t)m) == 0, "in place (%d): impulses restored bitwise", how);
        free(before), free(after), free(copy), free(imp), free(imp2);
        ctn_world_destroy(w);
    }
    /* the spare where a configuration forks the poses, freed where it no longer does; the steps are the twin's */
    ctn_world *w = gs_chain(1, CTN_SOLVER_GS), *twin = gs_chain(1, CTN_SOLVER_GS);
    CHECK(w && twin, "gs chains");
    if (!w || !twin) return;
    ctn_world_desc d;
    ctn_world_get_desc(w, &d);
    static const int subs[4] = {1, 2, 1, 1};
    static const ctn_solver sol[4] = {CTN_SOLVER_GS, CTN_SOLVER_GS, CTN_SOLVER_DIRECT, CTN_SOLVER_GS};
    for (int k = 0; k < 4; ++k) {
        d.substeps = subs[k], d.solver = sol[k];
        CHECK(ctn_world_set_desc(w, &d) == CTN_OK && ctn_world_set_desc(twin, &d) == CTN_OK, "%s", ctn_world_last_error(w));
        CHECK(ctn_world_step(w) == CTN_OK && ctn_world_step(twin) == CTN_OK, "step %d: %s", k, ctn_world_last_error(w));
        int spare = subs[k] > 1 || sol[k] == CTN_SOLVER_DIRECT;
        CHECK((w->snapshot_pose != NULL) == spare, "configuration %d: pose spare %s", k, spare ? "held" : "freed");
        char what[64];
        snprintf(what, sizeof what, "configuration %d", k);
        undo_keeps_checkpoint(w, what);
        CHECK(ctn_world_step(twin) == CTN_OK, "twin: %s", ctn_world_last_error(twin));
        CHECK(same_checkpoint(w, twin), "configuration %d: the step after the undo differs from the twin's", k);
    }
    /* a body beyond the position bound of the test (2^40 m): the spare after all, and the undo exact */
    ctn_body_desc bd = ctn_body_desc_default();
    bd.position[0] = 3e12;
    ctn_body_id far = CTN_NULL_BODY;
    CHECK(ctn_body_add(w, &bd, &far) == CTN_OK, "far body: %s", ctn_world_last_error(w));
    CHECK(ctn_world_step(w) == CTN_OK, "far step: %s", ctn_world_last_error(w));
    CHECK(w->snapshot_pose != NULL, "a pose beyond the bound: the spare is held");
    undo_keeps_checkpoint(w, "a pose beyond the bound");
    ctn_world_destroy(w);
    ctn_world_destroy(twin);
}

/* 9. The exact solver's velocity step with one substep and its position projection (host/solve/solver_cpu.c):
 * the divergence test runs before the integration, which writes the poses in place, and the projection keeps
 * its copies (POSES_KEEP, POSES_UNDO) in the pose spare, which holds nothing of the step's start then: no
 * pose_copy is reserved. Every step equals the one of a twin without a speed limit, which forks its poses (the
 * spare holds the start, the projection copies into pose_copy), bit for bit, those whose projection undid a
 * step (POSES_UNDO: the spare becomes the world's poses) among them; a step that diverges is undone
 * with its poses never moved (the projection after the test does nothing) and the state bit for bit as before. */
static void direct_in_place(void) {
    /* ball joints released horizontally (the projection works); the twin without a speed limit, so without the
     * test before the integration */
    ctn_world *w[2] = {direct_chain(200, 1, 1, 1e4), direct_chain(200, 1, 1, 0.0)};
    if (!w[0] || !w[1]) {
        ctn_world_destroy(w[0]);
        ctn_world_destroy(w[1]);
        return;
    }
    int n = ctn_world_body_count(w[0]), newton = 0, swapped = 0;
    for (int s = 0; s < 40; ++s) {
        const ctn_pose *held = w[0]->pose;
        CHECK(ctn_world_step(w[0]) == CTN_OK && ctn_world_step(w[1]) == CTN_OK, "step %d: %s %s", s, ctn_world_last_error(w[0]),
              ctn_world_last_error(w[1]));
        swapped += w[0]->pose != held; /* an odd number of POSES_UNDO: the spare became the world's poses */
        double *a = snapshot(w[0], n), *b = snapshot(w[1], n);
        CHECK(memcmp(a, b, sizeof(double) * 13 * (size_t)n) == 0, "step %d: in place and forked differ", s);
        free(a), free(b);
        ctn_step_stats st;
        ctn_world_get_stats(w[0], &st);
        newton += st.projection_factors > 0; /* a Newton step: a chord step was undone or the projection factored */
    }
    CHECK(ctn__cpu_pose_copy_capacity(w[0]) == 0, "in place: no pose_copy (%d poses)", ctn__cpu_pose_copy_capacity(w[0]));
    CHECK(ctn__cpu_pose_copy_capacity(w[1]) >= n, "forked: pose_copy held (%d poses)", ctn__cpu_pose_copy_capacity(w[1]));
    CHECK(w[0]->snapshot_pose != NULL, "in place: the pose spare is the projection's copy");
    CHECK(newton > 0, "the projection took a Newton step in 40 steps (%d)", newton);
    CHECK(swapped > 0, "a projection step undone into the pose spare, compared with the twin's (%d steps)", swapped);
    undo_keeps_checkpoint(w[0], "chain:200, direct 1x1 velocity, in place"); /* and one step after it */
    CHECK(ctn_world_step(w[1]) == CTN_OK, "twin: %s", ctn_world_last_error(w[1]));
    /* a step that diverges: undone, the poses never moved */
    ctn_world_desc d = set_speed_limit(w[0], 1e-9, "direct in place");
    double *before = snapshot(w[0], n);
    const ctn_pose *poses = w[0]->pose;
    ctn_pose *copy = malloc(sizeof *copy * (size_t)n);
    memcpy(copy, w[0]->pose, sizeof *copy * (size_t)n);
    ctn_status st = ctn_world_step(w[0]);
    CHECK(st == CTN_ERR_DIVERGED, "direct in place: %s", ctn_status_name(st));
    CHECK(w[0]->pose == poses && memcmp(copy, w[0]->pose, sizeof *copy * (size_t)n) == 0, "direct in place: the poses never moved");
    double *after = snapshot(w[0], n);
    CHECK(memcmp(before, after, sizeof(double) * 13 * (size_t)n) == 0, "direct in place: state restored bitwise");
    CHECK(ctn_world_set_desc(w[0], &d) == CTN_OK, "%s", ctn_world_last_error(w[0]));
    for (int s = 0; s < 3; ++s) CHECK(ctn_world_step(w[0]) == CTN_OK && ctn_world_step(w[1]) == CTN_OK, "after the undo: step %d", s);
    double *a = snapshot(w[0], n), *b = snapshot(w[1], n);
    CHECK(memcmp(a, b, sizeof(double) * 13 * (size_t)n) == 0, "after the undo: in place and forked differ");
    free(a), free(b), free(before), free(after), free(copy);
    ctn_world_destroy(w[0]);
    ctn_world_destroy(w[1]);
}

/* 9. The exact solver's projection after an integration in place, whose last step no decision checks
 * (host/solve/solver_cpu.c project_unchecked): a fault (ctn__cpu_project_unchecked_fault) makes that step leave
 * body 0's position NaN. The design undoes the step: the poses become the copy taken before it, which the
 * step's twin without the fault keeps in its pose spare (keep_array); the step holds (CTN_OK, the poses and the
 * joint errors finite), its velocities and impulses are the twin's bit for bit (the projection moves the poses
 * alone), the moved poses went to the spare, and stepping goes on. chain:8 at 10 Hz: the projection runs all
 * CTN_PROJECT_MAX steps in its first step. */
static void unchecked_undo(void) {
    ctn_world *w[2] = {NULL, NULL};
    for (int t = 0; t < 2; ++t) {
        w[t] = direct_chain(8, 1, 1, 1e4);
        if (!w[t]) break;
        ctn_world_desc d;
        ctn_world_get_desc(w[t], &d);
        d.time_step = 0.1;
        CHECK(ctn_world_set_desc(w[t], &d) == CTN_OK, "%s", ctn_world_last_error(w[t]));
    }
    if (!w[0] || !w[1]) {
        ctn_world_destroy(w[0]);
        ctn_world_destroy(w[1]);
        return;
    }
    int n = ctn_world_body_count(w[0]), m = ctn_world_joint_count(w[0]);
    ctn__cpu_project_unchecked_fault(w[0], 1);
    ctn_status st[2] = {ctn_world_step(w[0]), ctn_world_step(w[1])};
    ctn__cpu_project_unchecked_fault(w[0], 0);
    int counts[2][2];
    for (int t = 0; t < 2; ++t) ctn__cpu_project_unchecked_counts(w[t], counts[t]);
    CHECK(counts[0][0] == 1 && counts[0][1] == 1, "the unchecked last step ran and was undone (%d checked, %d undone)", counts[0][0], counts[0][1]);
    CHECK(counts[1][0] == 1 && counts[1][1] == 0, "the twin's unchecked last step held (%d checked, %d undone)", counts[1][0], counts[1][1]);
    CHECK(st[0] == CTN_OK && st[1] == CTN_OK, "the step holds: %s (%s), twin %s", ctn_status_name(st[0]), ctn_world_last_error(w[0]),
          ctn_status_name(st[1]));
    CHECK(w[0]->snapshot_forked & CTN_SNAP_POSE_IN_PLACE, "the step integrated in place");
    CHECK(step_spare_alone(w[1]) && (w[1]->snapshot_forked & CTN_SNAP_RELEASED), "the copy was the step spare (bits %#x)", w[1]->snapshot_forked);
    int finite = 1;
    for (int i = 0; i < n; ++i) {
        const ctn_pose x = w[0]->pose[i];
        finite &= isfinite(x.p.x) && isfinite(x.p.y) && isfinite(x.p.z) && isfinite(x.p_lo.x) && isfinite(x.p_lo.y) && isfinite(x.p_lo.z) &&
                  isfinite(x.q.x) && isfinite(x.q.y) && isfinite(x.q.z) && isfinite(x.q.w);
    }
    CHECK(finite, "the poses after the undo are finite");
    /* the poses before the last step: the copy the twin took (its spare); the moved ones: the twin's poses */
    CHECK(memcmp(w[0]->pose, w[1]->snapshot_pose, sizeof(ctn_pose) * (size_t)n) == 0, "the poses are those before the last step, bitwise");
    CHECK(isnan(w[0]->snapshot_pose[0].p.x), "the faulty poses went to the spare");
    CHECK(memcmp(w[0]->snapshot_pose + 1, w[1]->pose + 1, sizeof(ctn_pose) * (size_t)(n - 1)) == 0, "the moved poses are the twin's");
    CHECK(memcmp(w[0]->pose, w[1]->pose, sizeof(ctn_pose) * (size_t)n) != 0, "the last step moved the twin's poses");
    double *a = snapshot(w[0], n), *b = snapshot(w[1], n);
    int vel = 1;
    for (int i = 0; i < n; ++i) vel &= memcmp(&a[13 * i + 7], &b[13 * i + 7], 6 * sizeof(double)) == 0;
    CHECK(vel, "the velocities are the twin's, bitwise");
    free(a), free(b);
    int impulses = 1;
    for (int j = 0; j < m; ++j) {
        double ia[6], ib[6];
        ctn_joint_get_impulse(w[0], HJOINT(w[0], j), ia, NULL);
        ctn_joint_get_impulse(w[1], HJOINT(w[1], j), ib, NULL);
        impulses &= memcmp(ia, ib, sizeof ia) == 0;
    }
    CHECK(impulses, "the impulses are the twin's, bitwise");
    ctn_step_stats s[2];
    for (int t = 0; t < 2; ++t) ctn_world_get_stats(w[t], &s[t]);
    CHECK(isfinite(s[0].max_gap) && isfinite(s[0].max_angle), "the joint errors are finite (%g m, %g rad)", s[0].max_gap, s[0].max_angle);
    CHECK(s[0].max_gap < 0.01, "the joints stay closed within 1 cm before the last step (%g m; twin %g m)", s[0].max_gap, s[1].max_gap);
    for (int k = 0; k < 5; ++k) CHECK(ctn_world_step(w[0]) == CTN_OK, "after the undo: step %d: %s", k, ctn_world_last_error(w[0]));
    ctn_world_destroy(w[0]);
    ctn_world_destroy(w[1]);
}

/* Forces a divergence (desc.max_speed 1e-9) and checks that the step is undone with the world's own arrays bit for
 * bit as before: the poses (the same array where `same_poses`), the velocities and the impulses, read raw. */
static void undo_raw(ctn_world *w, const char *what, int same_poses) {
    int n = w->body_count;
    size_t lambdas = (size_t)w->topo.stride * (size_t)w->topo.joint_count;
    ctn_pose *pose = malloc(sizeof *pose * (size_t)n);
    ctn_vel *vel = malloc(sizeof *vel * (size_t)n);
    float *lambda = malloc(sizeof *lambda * (lambdas ? lambdas : 1));
    memcpy(pose, w->pose, sizeof *pose * (size_t)n);
    memcpy(vel, w->vel, sizeof *vel * (size_t)n);
    memcpy(lambda, w->topo.lambda, sizeof *lambda * lambdas);
    const ctn_pose *held = w->pose;
    ctn_world_desc d = set_speed_limit(w, 1e-9, what);
    ctn_status st = ctn_world_step(w);
    CHECK(st == CTN_ERR_DIVERGED, "%s: %s", what, ctn_status_name(st));
    CHECK(!same_poses || w->pose == held, "%s: the poses never left their array", what);
    CHECK(memcmp(pose, w->pose, sizeof *pose * (size_t)n) == 0, "%s: poses restored bitwise", what);
    CHECK(memcmp(vel, w->vel, sizeof *vel * (size_t)n) == 0, "%s: velocities restored bitwise", what);
    CHECK(memcmp(lambda, w->topo.lambda, sizeof *lambda * lambdas) == 0, "%s: impulses restored bitwise", what);
    CHECK(ctn_world_set_desc(w, &d) == CTN_OK, "%s: %s", what, ctn_world_last_error(w));
    free(pose), free(vel), free(lambda);
}

/* 10. The step spare (host/core/divergence.c): the exact solver's velocity step with one substep that integrates in
 * place on rigid ball joints holds the pose spare alone, which keeps the start velocities and impulses by a copy
 * until the in-place test and is the projection's copy of the poses after it (released). Every step equals a
 * twin's without a speed limit, which forks every array (the double buffer), bit for bit; a step that diverges at
 * the test is undone with the velocities and impulses bit for bit from the copy (the world's arrays read raw, and
 * the checkpoint) and the poses never moved; a pose beyond the test's bounds moves the kept velocities and
 * impulses to spares of their own before the pose spare takes the start poses, and that step too is undone
 * exactly; a step RATTLE may run, or whose start velocities and impulses do not fit in the pose spare, keeps the
 * double buffer. */
static void step_spare(void) {
    ctn_world *w = direct_chain(50, 1, 1, 1e4), *twin = direct_chain(50, 1, 1, 0.0);
    CHECK(w && twin, "chains");
    if (!w || !twin) {
        ctn_world_destroy(w);
        ctn_world_destroy(twin);
        return;
    }
    int n = ctn_world_body_count(w);
    for (int s = 0; s < 8; ++s) {
        CHECK(ctn_world_step(w) == CTN_OK && ctn_world_step(twin) == CTN_OK, "step %d: %s %s", s, ctn_world_last_error(w),
              ctn_world_last_error(twin));
        double *a = snapshot(w, n), *b = snapshot(twin, n);
        CHECK(memcmp(a, b, sizeof(double) * 13 * (size_t)n) == 0, "step %d: step spare and double buffer differ", s);
        free(a), free(b);
    }
    CHECK(step_spare_alone(w) && (w->snapshot_forked & CTN_SNAP_SHARED) && (w->snapshot_forked & CTN_SNAP_RELEASED),
          "a step that held: the step spare alone, released to the projection (bits %#x)", w->snapshot_forked);
    CHECK(ctn__cpu_pose_copy_capacity(w) == 0, "the step spare: no pose_copy (%d poses)", ctn__cpu_pose_copy_capacity(w));
    CHECK(twin->snapshot_vel != NULL && twin->topo.lambda_prev != NULL && !(twin->snapshot_forked & CTN_SNAP_SHARED), "the twin forks");
    /* diverged at the in-place test: the copy goes back */
    undo_raw(w, "step spare, diverged at the test", 1);
    CHECK(step_spare_alone(w), "the undone step held the step spare alone");
    undo_keeps_checkpoint(w, "chain:50, direct 1x1 velocity, step spare"); /* and one step after it */
    CHECK(ctn_world_step(twin) == CTN_OK, "twin: %s", ctn_world_last_error(twin));
    for (int s = 0; s < 3; ++s) CHECK(ctn_world_step(w) == CTN_OK && ctn_world_step(twin) == CTN_OK, "after the undo: step %d", s);
    double *a = snapshot(w, n), *b = snapshot(twin, n);
    CHECK(memcmp(a, b, sizeof(double) * 13 * (size_t)n) == 0, "after the undo: step spare and double buffer differ");
    free(a), free(b);
    /* a pose beyond the bound of the test (2^40 m): the double buffer after all, the step the twin's, the undo exact */
    ctn_body_desc bd = ctn_body_desc_default();
    bd.position[0] = 3e12;
    CHECK(ctn_body_add(w, &bd, NULL) == CTN_OK && ctn_body_add(twin, &bd, NULL) == CTN_OK, "far body: %s", ctn_world_last_error(w));
    n = ctn_world_body_count(w);
    CHECK(ctn_world_step(w) == CTN_OK && ctn_world_step(twin) == CTN_OK, "far step: %s", ctn_world_last_error(w));
    a = snapshot(w, n), b = snapshot(twin, n);
    CHECK(memcmp(a, b, sizeof(double) * 13 * (size_t)n) == 0, "a pose beyond the bound: step spare and double buffer differ");
    free(a), free(b);
    CHECK(w->snapshot_vel != NULL && w->topo.lambda_prev != NULL && !(w->snapshot_forked & CTN_SNAP_SHARED),
          "a pose beyond the bound: the kept velocities and impulses moved to spares of their own (bits %#x)", w->snapshot_forked);
    undo_raw(w, "step spare, a pose beyond the bound", 0);
    undo_keeps_checkpoint(w, "step spare, a pose beyond the bound");
    /* RATTLE may run (50 joints): every array has its spare */
    ctn_world_desc d;
    ctn_world_get_desc(w, &d);
    d.integrator = CTN_INTEGRATOR_RATTLE;
    CHECK(ctn_world_set_desc(w, &d) == CTN_OK && ctn_world_step(w) == CTN_OK, "rattle: %s", ctn_world_last_error(w));
    CHECK(w->snapshot_vel != NULL && w->topo.lambda_prev != NULL && !(w->snapshot_forked & CTN_SNAP_SHARED), "RATTLE: the double buffer");
    undo_raw(w, "RATTLE after the step spare", 0);
    ctn_world_destroy(w);
    ctn_world_destroy(twin);
    /* start velocities and impulses that do not fit in the pose spare (24 n + 4 stride m above 40 bytes a body of
     * capacity): the chain's ball joints again, each as often as it takes (redundant rows, one solution); every
     * array has its spare, and the undo is exact */
    w = direct_chain(8, 1, 1, 1e4);
    CHECK(w != NULL, "chain:8");
    if (!w) return;
    CHECK(ctn_world_step(w) == CTN_OK, "chain:8: %s", ctn_world_last_error(w));
    CHECK(step_spare_alone(w), "chain:8: the step spare");
    int links = ctn_world_joint_count(w), added = 0;
    for (int k = 0; added < 1000; ++k) {
        size_t need = 24 * (size_t)w->body_count + 4 * (size_t)w->topo.stride * (size_t)w->topo.joint_count;
        if (need > 40 * (size_t)w->body_capacity) break;
        ctn_joint_desc j;
        CHECK(ctn_joint_get_desc(w, HJOINT(w, k % links), &j) == CTN_OK, "joint %d: %s", k % links, ctn_world_last_error(w));
        CHECK(ctn_joint_add(w, &j, NULL) == CTN_OK, "joint again: %s", ctn_world_last_error(w));
        added++;
        CHECK(ctn_world_step(w) == CTN_OK, "%d joints again: %s", added, ctn_world_last_error(w));
    }
    CHECK(added < 1000 && w->snapshot_vel != NULL && w->topo.lambda_prev != NULL && !(w->snapshot_forked & CTN_SNAP_SHARED),
          "%d joints again, %d bodies of capacity: the double buffer (bits %#x)", added, w->body_capacity, w->snapshot_forked);
    undo_raw(w, "start state beyond the pose spare", 0);
    ctn_world_destroy(w);
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "opencl")) {
        /* case 5 on the OpenCL backend (CTest test_divergence_opencl; skipped without a device) */
        ctn_world_desc d = ctn_world_desc_default();
        d.backend = CTN_BACKEND_OPENCL;
        ctn_world *probe = NULL;
        char err[256];
        if (ctn_world_create(&d, &probe, err, sizeof err) != CTN_OK) return check_skip("divergence opencl", err);
        ctn_world_destroy(probe);
        first_step_undo(CTN_BACKEND_OPENCL);
        return check_report("divergence opencl");
    }
    body_lanes();
    /* 1. speed limit: a chain released horizontally passes 3 m/s within a second */
    ctn_world *w = make(3.0);
    CHECK(w != NULL, "world");
    int n = ctn_world_body_count(w), diverged_at = -1;
    for (int k = 0; k < 120 && diverged_at < 0; ++k) {
        double *before = snapshot(w, n);
        double impulse_before[6], impulse_after[6];
        ctn_joint_get_impulse(w, HJOINT(w, 5), impulse_before, NULL);
        ctn_status st = ctn_world_step(w);
        if (st != CTN_OK) {
            diverged_at = k;
            CHECK(st == CTN_ERR_DIVERGED, "status %s", ctn_status_name(st));
            CHECK(strstr(ctn_world_last_error(w), "body") && strstr(ctn_world_last_error(w), "max_speed"), "message: %s",
                  ctn_world_last_error(w));
            double *after = snapshot(w, n);
            CHECK(memcmp(before, after, sizeof(double) * 13 * (size_t)n) == 0, "state restored bitwise after divergence");
            ctn_joint_get_impulse(w, HJOINT(w, 5), impulse_after, NULL);
            CHECK(memcmp(impulse_before, impulse_after, sizeof impulse_after) == 0, "warm-start impulses restored");
            free(after);
        }
        free(before);
    }
    CHECK(diverged_at > 0, "the speed guard fired (step %d)", diverged_at);
    /* the caller can relax the guard and go on from the restored state */
    ctn_world_desc d;
    ctn_world_get_desc(w, &d);
    d.max_speed = 1e4;
    CHECK(ctn_world_set_desc(w, &d) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_world_step(w) == CTN_OK, "step after relaxing the guard: %s", ctn_world_last_error(w));
    ctn_world_destroy(w);

    /* 2. non-finite: a force of FLT_MAX overflows the velocity */
    w = make(1e4);
    n = ctn_world_body_count(w);
    double f[3] = {FLT_MAX, 0.0, 0.0};
    CHECK(ctn_body_set_force(w, HBODY(w, 7), f, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    double *before = snapshot(w, n);
    ctn_status st = ctn_world_step(w);
    CHECK(st == CTN_ERR_DIVERGED, "non-finite step gives %s", ctn_status_name(st));
    CHECK(strstr(ctn_world_last_error(w), "body") != NULL, "message names the body: %s", ctn_world_last_error(w));
    double *after = snapshot(w, n);
    CHECK(memcmp(before, after, sizeof(double) * 13 * (size_t)n) == 0, "state restored bitwise after a non-finite step");
    free(before);
    free(after);
    CHECK(ctn_body_set_force(w, HBODY(w, 7), NULL, NULL) == CTN_OK, "clear force");
    CHECK(ctn_world_step(w) == CTN_OK, "step after removing the force: %s", ctn_world_last_error(w));
    ctn_world_destroy(w);

    /* 3. the guard can be disabled */
    w = make(0.0);
    for (int k = 0; k < 60; ++k) CHECK(ctn_world_step(w) == CTN_OK, "unguarded step %d", k);
    ctn_world_destroy(w);
    /* 4. the inertias: a chain under the exact solver, whose every inertia is the function of its pose the
     * restore recomputes (no copy taken); the same world with one inertia off by one unit in the last place,
     * which the snapshot must copy and put back (a host edit, which marks the bodies changed as the API's do:
     * the backend then tests every body instead of trusting the last step's writers); with RATTLE and with the
     * velocity step */
    for (int odd = 0; odd < 4; ++odd) {
        ctn_world_desc d = ctn_world_desc_default();
        d.backend = CTN_BACKEND_CPU;
        d.solver = CTN_SOLVER_DIRECT;
        d.integrator = odd >= 2 ? CTN_INTEGRATOR_VELOCITY : CTN_INTEGRATOR_RATTLE;
        d.max_speed = 1e4;
        w = NULL;
        char err[256];
        CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "world: %s", err);
        if (!w) continue;
        ctn_chain_desc c = ctn_chain_desc_default(8);
        CHECK(ctn_scene_chain(w, &c, NULL) == CTN_OK, "chain: %s", ctn_world_last_error(w));
        for (int k = 0; k < 5; ++k) CHECK(ctn_world_step(w) == CTN_OK, "step %d: %s", k, ctn_world_last_error(w));
        if (odd & 1) {
            ctn__inertia_fresh(w); /* the inertias the last step left stale, formed as a reader outside a step would */
            w->inertia[3].inv_inertia.xx = nextafterf(w->inertia[3].inv_inertia.xx, INFINITY);
            w->bodies_dirty = 1;
        }
        undo_keeps_checkpoint(w, odd & 1 ? "chain:8, one inertia off" : "chain:8, direct");
        CHECK(w->snapshot_inertia_kept == (odd & 1), "the inertias were %s (kept %d)", odd & 1 ? "copied" : "recomputed", w->snapshot_inertia_kept);
        ctn_world_destroy(w);
    }
    first_step_undo(CTN_BACKEND_CPU);
    inertia_hint();
    spring_undo();
    in_place_undo();
    direct_in_place();
    unchecked_undo();
    step_spare();
    return check_report("divergence");
}
