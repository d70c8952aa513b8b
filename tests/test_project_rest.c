/* The CPU projection at rest (host/solve/solver_cpu.c, project_at_rest): on the exact solver's chain path of rigid
 * ball joints the position projection runs without its scratch velocities and impulses, reading the state at rest
 * they would hold as constants and moving the poses in its solves. Each world here steps beside a twin that always
 * takes the scratch arrays (ctn__cpu_project_rest_mode 1), and after every step both hold the same poses, velocities,
 * inertias and impulses to the bit:
 *   1. ball chains of one and of two segments (the lean walks), 1 and 2 threads, the Newton steps at rest counted;
 *      at 3 substeps, and with RATTLE (which projects only when its own iteration does not converge);
 *      then other rigid joints on the chain path (hinged planks, a double pendulum, a rope of particles and
 *      distance joints, pendulums on distance joints): the generic walks at rest;
 *   2. a world that switches between steps from the chain at rest to worlds that need the arrays (geometric
 *      stiffness off; a compliant joint added, then removed) and back: the arrays are first touched, and zeroed,
 *      mid-run;
 *   3. a diverged step undone (the divergence guard) inside runs at rest, then stepping on;
 *   4. the ways back to the arrays (mode 2: the joint check skipped): a chain with a compliant joint, whose Newton
 *      solve cuts the joint's rows (their Gauss-Seidel reads the impulses), gives the arrays back at rest and
 *      matches the twin.
 * Usage: test_project_rest */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "check.h"
#include "fixtures.h"
#include "ids.h"
#include "core/world.h"
#include "solve/solve.h"

#include <stdio.h>
#include <string.h>

static ctn_world *make_with(int links, int threads, ctn_integrator integrator, int substeps) {
    ctn_world_desc d = fixture_cpu_desc(threads);
    d.solver = CTN_SOLVER_DIRECT;
    d.integrator = integrator;
    d.substeps = substeps;
    d.iterations = 1;
    return fixture_chain_from(&d, links, NULL);
}

static ctn_world *make(int links, int threads) { return make_with(links, threads, CTN_INTEGRATOR_VELOCITY, 1); }

/* Whether the two worlds' solver state is the same to the bit. */
static int same_state(const ctn_world *a, const ctn_world *b) {
    int n = a->body_count, m = a->topo.joint_count;
    if (n != b->body_count || m != b->topo.joint_count) return 0;
    return a->topo.stride == b->topo.stride && memcmp(a->pose, b->pose, (size_t)n * sizeof *a->pose) == 0 &&
           memcmp(a->vel, b->vel, (size_t)n * sizeof *a->vel) == 0 &&
           memcmp(a->inertia, b->inertia, (size_t)n * sizeof *a->inertia) == 0 &&
           memcmp(a->topo.lambda, b->topo.lambda, (size_t)a->topo.stride * (size_t)m * sizeof *a->topo.lambda) == 0;
}

/* Steps both worlds `steps` times, checking the same status and state after each. */
static void step_both(ctn_world *a, ctn_world *b, int steps, const char *what) {
    for (int k = 0; k < steps; ++k) {
        ctn_status sa = ctn_world_step(a), sb = ctn_world_step(b);
        CHECK(sa == CTN_OK && sb == CTN_OK, "%s, step %d: %s / %s", what, k, ctn_world_last_error(a), ctn_world_last_error(b));
        CHECK(same_state(a, b), "%s, step %d: the state at rest differs from the scratch arrays'", what, k);
        if (!same_state(a, b)) return; /* the first step that differs */
    }
}

static void counts(const ctn_world *w, int c[3]) { ctn__cpu_project_rest_counts(w, c); }

/* 1. Ball chains: one segment (300 links) and two (1500 links, CHAIN_MIN_SEGMENT 512), 1 and 2 threads. */
static void chains(void) {
    const int links[] = {300, 1500};
    for (int i = 0; i < 2; ++i)
        for (int threads = 1; threads <= 2; ++threads) {
            char what[64];
            snprintf(what, sizeof what, "chain:%d, %d thread(s)", links[i], threads);
            ctn_world *a = make(links[i], threads), *b = make(links[i], threads);
            if (!a || !b) return;
            ctn__cpu_project_rest_mode(b, 1);
            step_both(a, b, 25, what);
            int ca[3], cb[3];
            counts(a, ca), counts(b, cb);
            CHECK(ca[0] == 25 && ca[1] > 0 && ca[2] == 0, "%s: %d projections at rest, %d Newton steps, %d back (want 25, > 0, 0)", what, ca[0],
                  ca[1], ca[2]);
            CHECK(cb[0] == 0 && cb[1] == 0 && cb[2] == 0, "%s: the twin projected at rest (%d)", what, cb[0]);
            ctn_world_destroy(a);
            ctn_world_destroy(b);
        }
    /* the velocity step at 3 substeps, and RATTLE (its projection follows its momentum stage) */
    for (int r = 0; r < 2; ++r) {
        const char *what = r ? "chain:120, RATTLE, 2 substeps" : "chain:400, 3 substeps";
        ctn_integrator in = r ? CTN_INTEGRATOR_RATTLE : CTN_INTEGRATOR_VELOCITY;
        ctn_world *a = make_with(r ? 120 : 400, 1, in, r ? 2 : 3), *b = make_with(r ? 120 : 400, 1, in, r ? 2 : 3);
        if (!a || !b) return;
        ctn__cpu_project_rest_mode(b, 1);
        step_both(a, b, 15, what);
        int ca[3];
        counts(a, ca);
        printf("%s: %d projections at rest, %d Newton steps at rest, %d back\n", what, ca[0], ca[1], ca[2]);
        /* RATTLE projects only when its own position iteration does not converge (host/solve/pipeline.c
         * rattle_substep), which this chain does not need: the same bits, whatever it takes */
        if (!r) CHECK(ca[0] == 15 && ca[2] == 0, "%s: %d of 15 projections at rest, %d back", what, ca[0], ca[2]);
        ctn_world_destroy(a);
        ctn_world_destroy(b);
    }
}

/* 1b. Other rigid joints: each scene beside its twin; the hinged bridge must have projected at rest. */
static void other_joints(void) {
    const char *specs[] = {"bridge:40", "double_pendulum", "cradle:5", "rope"};
    for (int i = 0; i < 4; ++i) {
        ctn_world *ab[2] = {NULL, NULL};
        for (int k = 0; k < 2; ++k) {
            ctn_world_desc d = ctn_world_desc_default();
            d.backend = CTN_BACKEND_CPU, d.solver = CTN_SOLVER_DIRECT, d.integrator = CTN_INTEGRATOR_VELOCITY;
            d.substeps = 1, d.iterations = 1;
            char err[1024];
            CHECK(ctn_world_create(&d, &ab[k], err, sizeof err) == CTN_OK, "create: %s", err);
            if (!ab[k]) return;
            if (i == 3) { /* a rope of 150 particles on distance joints */
                ctn_chain_desc c = ctn_chain_desc_default(150);
                c.particles = 1;
                CHECK(ctn_scene_chain(ab[k], &c, NULL) == CTN_OK, "rope: %s", ctn_world_last_error(ab[k]));
            } else {
                CHECK(ctn_scene_from_spec(ab[k], specs[i]) == CTN_OK, "%s: %s", specs[i], ctn_world_last_error(ab[k]));
            }
        }
        ctn__cpu_project_rest_mode(ab[1], 1);
        step_both(ab[0], ab[1], 40, specs[i]);
        int ca[3];
        counts(ab[0], ca);
        printf("%s: %d of 40 projections at rest, %d Newton steps at rest, %d back\n", specs[i], ca[0], ca[1], ca[2]);
        if (i == 0) CHECK(ca[0] == 40 && ca[2] == 0, "%s: %d of 40 projections at rest, %d back", specs[i], ca[0], ca[2]);
        ctn_world_destroy(ab[0]);
        ctn_world_destroy(ab[1]);
    }
}

/* A compliant ball joint from the centre of body `end` to where that centre is now (no jump), into both worlds. */
static ctn_joint_id add_soft(ctn_world *w, ctn_body_id end) {
    ctn_body_state st;
    CHECK(ctn_body_get_state(w, end, &st) == CTN_OK, "state: %s", ctn_world_last_error(w));
    ctn_joint_desc j = ctn_joint_desc_default(CTN_JOINT_BALL);
    j.body_a = end, j.body_b = CTN_WORLD;
    for (int k = 0; k < 3; ++k) j.anchor_a[k] = 0.0, j.anchor_b[k] = st.position[k];
    j.compliance = 1e-4;
    ctn_joint_id id = {0};
    CHECK(ctn_joint_add(w, &j, &id) == CTN_OK, "soft joint: %s", ctn_world_last_error(w));
    return id;
}

/* 2. At rest, then worlds that need the scratch arrays, then at rest again, in one run. */
static void switches(void) {
    const int links = 200;
    ctn_world *a = make(links, 1), *b = make(links, 1);
    if (!a || !b) return;
    ctn__cpu_project_rest_mode(b, 1);
    int c0[3], c1[3], c2[3], c3[3], c4[3];
    step_both(a, b, 6, "all-ball chain");
    counts(a, c0);
    CHECK(c0[0] == 6, "all-ball chain: %d of 6 projections at rest", c0[0]);
    /* geometric stiffness off: the integration forms the inertias, which a move in the solve would not */
    ctn_world_desc d;
    ctn_world_get_desc(a, &d);
    double gs = d.geometric_stiffness;
    d.geometric_stiffness = 0.0;
    CHECK(ctn_world_set_desc(a, &d) == CTN_OK && ctn_world_set_desc(b, &d) == CTN_OK, "desc: %s", ctn_world_last_error(a));
    step_both(a, b, 6, "geometric stiffness off");
    counts(a, c1);
    CHECK(c1[0] == c0[0], "geometric stiffness off: %d projections at rest", c1[0] - c0[0]);
    d.geometric_stiffness = gs;
    CHECK(ctn_world_set_desc(a, &d) == CTN_OK && ctn_world_set_desc(b, &d) == CTN_OK, "desc: %s", ctn_world_last_error(a));
    step_both(a, b, 4, "geometric stiffness back");
    counts(a, c2);
    CHECK(c2[0] == c1[0] + 4, "geometric stiffness back: %d of 4 projections at rest", c2[0] - c1[0]);
    /* a compliant joint at the free end: the projection cuts its rows, which Gauss-Seidel solves with the impulses */
    ctn_joint_id ja = add_soft(a, HBODY(a, links - 1)), jb = add_soft(b, HBODY(b, links - 1)); /* the chain's links are bodies 0.. */
    step_both(a, b, 6, "compliant joint");
    counts(a, c3);
    CHECK(c3[0] == c2[0], "compliant joint: %d projections at rest", c3[0] - c2[0]);
    CHECK(ctn_joint_remove(a, ja) == CTN_OK && ctn_joint_remove(b, jb) == CTN_OK, "remove: %s", ctn_world_last_error(a));
    step_both(a, b, 6, "compliant joint removed");
    counts(a, c4);
    CHECK(c4[0] == c3[0] + 6 && c4[2] == 0, "compliant joint removed: %d of 6 projections at rest, %d back", c4[0] - c3[0], c4[2]);
    ctn_world_destroy(a);
    ctn_world_destroy(b);
}

/* 3. A step undone by the divergence guard in the middle of runs at rest. */
static void diverged(void) {
    ctn_world *a = make(120, 1), *b = make(120, 1);
    if (!a || !b) return;
    ctn__cpu_project_rest_mode(b, 1);
    step_both(a, b, 3, "before the divergence");
    ctn_world_desc d, fast;
    ctn_world_get_desc(a, &d);
    fast = d;
    fast.max_speed = 1e-9;
    CHECK(ctn_world_set_desc(a, &fast) == CTN_OK && ctn_world_set_desc(b, &fast) == CTN_OK, "desc: %s", ctn_world_last_error(a));
    ctn_status sa = ctn_world_step(a), sb = ctn_world_step(b);
    CHECK(sa == CTN_ERR_DIVERGED && sb == CTN_ERR_DIVERGED, "forced divergence: %s / %s", ctn_status_name(sa), ctn_status_name(sb));
    CHECK(same_state(a, b), "the undone step: the states differ");
    CHECK(ctn_world_set_desc(a, &d) == CTN_OK && ctn_world_set_desc(b, &d) == CTN_OK, "desc: %s", ctn_world_last_error(a));
    step_both(a, b, 8, "after the divergence");
    int ca[3];
    counts(a, ca);
    CHECK(ca[0] == 12, "%d of 12 projections at rest", ca[0]);
    ctn_world_destroy(a);
    ctn_world_destroy(b);
}

/* 4. The at-rest projection forced onto a chain it does not apply to: its Newton solve gives the arrays back. */
static void ways_back(void) {
    ctn_world *a = make(80, 1), *b = make(80, 1);
    if (!a || !b) return;
    ctn__cpu_project_rest_mode(a, 2);
    ctn__cpu_project_rest_mode(b, 1);
    add_soft(a, HBODY(a, 79));
    add_soft(b, HBODY(b, 79));
    step_both(a, b, 10, "forced at rest, compliant joint");
    int ca[3];
    counts(a, ca);
    CHECK(ca[0] == 10 && ca[1] == 0 && ca[2] == 10, "forced at rest: %d projections, %d Newton steps at rest, %d back (want 10, 0, 10)", ca[0],
          ca[1], ca[2]);
    ctn_world_destroy(a);
    ctn_world_destroy(b);
}

int main(void) {
    chains();
    other_joints();
    switches();
    diverged();
    ways_back();
    return check_report("test_project_rest");
}
