/* Settings changed between two steps (ctn_world_set_desc) of a world whose layout the exact solver left in the
 * state its own step needs alone, against a twin resumed from a checkpoint of the world at the change with the
 * new settings (a fresh layout: host/io/checkpoint.c resumes bitwise), compared bit for bit after a few steps:
 *  - the solver from the exact one (a ball chain on the CPU, whose adjacency is never built,
 *    ctn__topology_adjacency) to Gauss-Seidel, Jacobi and conjugate gradients, which gather over the adjacency;
 *  - joints removed under Gauss-Seidel (the rebuild puts the colour masks in the adjacency's array), stepped by
 *    the exact solver, then Gauss-Seidel again: the adjacency rebuilt for the layout with fewer joints;
 *  - the integrator from the velocity step (P^-1 of the chain in float, ctn__chain_pivots) to RATTLE (in double,
 *    which its stages re-solve with) and back;
 *  - desc.max_speed from a limit (the step spare, host/core/divergence.c) to none (the double buffer, whose
 *    velocity and impulse spares the step spare had freed) and back. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "check.h"
#include "fixtures.h"
#include "adjacency_check.h"
#include "core/world.h"
#include "solve/direct_internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { LINKS = 30, STEPS = 4 };

static ctn_world_desc exact_desc(void) {
    ctn_world_desc d = fixture_cpu_desc(1);
    d.solver = CTN_SOLVER_DIRECT, d.iterations = 1, d.substeps = 1, d.integrator = CTN_INTEGRATOR_VELOCITY;
    d.max_speed = 1e4;
    return d;
}

/* Whether every body of a and b has the same state, bit for bit. */
static int same_bodies(ctn_world *a, ctn_world *b) {
    int n = ctn_world_body_count(a), same = n == ctn_world_body_count(b);
    for (int i = 0; i < n && same; ++i) {
        ctn_body_state sa, sb;
        memset(&sa, 0, sizeof sa), memset(&sb, 0, sizeof sb);
        CHECK(ctn_body_get_state(a, HBODY(a, i), &sa) == CTN_OK && ctn_body_get_state(b, HBODY(b, i), &sb) == CTN_OK, "state of body %d", i);
        same = memcmp(&sa, &sb, sizeof sa) == 0;
    }
    return same;
}

/* Sets d on w, resumes a twin from a checkpoint of w taken just before with d, steps both STEPS times and compares
 * them bit for bit; returns the twin (the caller destroys it), NULL when it could not be made. */
static ctn_world *switch_and_compare(ctn_world *w, const ctn_world_desc *d, const char *what) {
    char path[] = "/tmp/catena_switch_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0) return NULL;
    close(fd);
    ctn_world *twin = NULL;
    char err[256];
    CHECK(ctn_world_save(w, path, 0, NULL) == CTN_OK, "%s: save: %s", what, ctn_world_last_error(w));
    CHECK(ctn_world_load(path, d, &twin, NULL, err, sizeof err) == CTN_OK, "%s: load: %s", what, err);
    unlink(path);
    CHECK(ctn_world_set_desc(w, d) == CTN_OK, "%s: %s", what, ctn_world_last_error(w));
    if (!twin) return NULL;
    for (int k = 0; k < STEPS; ++k) {
        CHECK(ctn_world_step(w) == CTN_OK, "%s: step %d: %s", what, k, ctn_world_last_error(w));
        CHECK(ctn_world_step(twin) == CTN_OK, "%s: twin step %d: %s", what, k, ctn_world_last_error(twin));
    }
    CHECK(same_bodies(w, twin), "%s: the world and its resumed twin differ", what);
    return twin;
}

static void solver_switch(ctn_solver solver, const char *name) {
    ctn_world_desc d = exact_desc();
    ctn_world *w = fixture_chain_from(&d, LINKS, NULL);
    if (!w) return;
    fixture_steps(w, STEPS);
    CHECK(!w->topo.adj_ready, "%s: the exact solver's chain built no adjacency", name);
    d.solver = solver;
    ctn_world *twin = switch_and_compare(w, &d, name);
    adjacency_check(w, name);
    ctn_world_destroy(twin);
    ctn_world_destroy(w);
}

static void joints_removed(void) {
    ctn_world_desc d = exact_desc();
    d.solver = CTN_SOLVER_GS;
    ctn_world *w = fixture_chain_from(&d, LINKS, NULL);
    if (!w) return;
    fixture_steps(w, STEPS);
    adjacency_check(w, "Gauss-Seidel");
    for (int j = LINKS / 3; j < LINKS; j += LINKS / 3)
        CHECK(ctn_joint_remove(w, HJOINT(w, j)) == CTN_OK, "remove joint %d: %s", j, ctn_world_last_error(w));
    d.solver = CTN_SOLVER_DIRECT;
    ctn_world *twin = switch_and_compare(w, &d, "joints removed, the exact solver");
    ctn_world_destroy(twin);
    d.solver = CTN_SOLVER_GS;
    twin = switch_and_compare(w, &d, "joints removed, Gauss-Seidel again");
    adjacency_check(w, "Gauss-Seidel after joints removed");
    ctn_world_destroy(twin);
    ctn_world_destroy(w);
}

/* Whether the exact solver's chain keeps P^-1 in double (K allocated; else in float). */
static int pivots_double(const ctn_world *w) {
    const direct_state *ds = w->direct_data;
    if (!ds || !ds->chain) return -1;
    const double *K, *C, *y;
    size_t nk, nc, ny;
    ctn__chain_arrays(ds->chain, &K, &nk, &C, &nc, &y, &ny);
    return K != NULL;
}

static void integrator_switch(void) {
    ctn_world_desc d = exact_desc();
    ctn_world *w = fixture_chain_from(&d, LINKS, NULL);
    if (!w) return;
    fixture_steps(w, STEPS);
    CHECK(pivots_double(w) == 0, "the velocity step: P^-1 in float");
    d.integrator = CTN_INTEGRATOR_RATTLE;
    ctn_world *twin = switch_and_compare(w, &d, "velocity step to RATTLE");
    ctn_step_stats st;
    ctn_world_get_stats(w, &st);
    CHECK(st.integrator == CTN_INTEGRATOR_RATTLE, "RATTLE runs: %s", st.integrator_reason);
    CHECK(pivots_double(w) == 1, "RATTLE: P^-1 in double");
    ctn_world_destroy(twin);
    d.integrator = CTN_INTEGRATOR_VELOCITY;
    twin = switch_and_compare(w, &d, "RATTLE to the velocity step");
    CHECK(pivots_double(w) == 0, "the velocity step again: P^-1 in float");
    ctn_world_destroy(twin);
    ctn_world_destroy(w);
}

static void speed_limit_switch(void) {
    ctn_world_desc d = exact_desc();
    ctn_world *w = fixture_chain_from(&d, LINKS, NULL);
    if (!w) return;
    fixture_steps(w, STEPS);
    CHECK(w->snapshot_forked & CTN_SNAP_SHARED, "a speed limit: the step spare (bits %#x)", w->snapshot_forked);
    d.max_speed = 0.0;
    ctn_world *twin = switch_and_compare(w, &d, "no speed limit");
    CHECK(w->snapshot_vel && w->topo.lambda_prev && !(w->snapshot_forked & CTN_SNAP_SHARED), "no speed limit: the double buffer (bits %#x)",
          w->snapshot_forked);
    ctn_world_destroy(twin);
    d.max_speed = 1e4;
    twin = switch_and_compare(w, &d, "a speed limit again");
    CHECK(!w->snapshot_vel && !w->topo.lambda_prev && (w->snapshot_forked & CTN_SNAP_SHARED), "a speed limit again: the step spare (bits %#x)",
          w->snapshot_forked);
    ctn_world_destroy(twin);
    ctn_world_destroy(w);
}

int main(void) {
    solver_switch(CTN_SOLVER_GS, "the exact solver to Gauss-Seidel");
    solver_switch(CTN_SOLVER_JACOBI, "the exact solver to Jacobi");
    solver_switch(CTN_SOLVER_CG, "the exact solver to conjugate gradients");
    joints_removed();
    integrator_switch();
    speed_limit_switch();
    return check_report("settings_between_steps");
}
