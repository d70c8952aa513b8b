/* The body -> joint adjacency is built on first need (ctn__topology_adjacency, host/core/topology.c):
 *  - a chain of ball joints under the exact solver (1x1, velocity step) on the CPU never builds it, and steps
 *    bit for bit as a twin whose adjacency is built before every step (the geometric-stiffness inertia then
 *    walks it instead of summing by joint), on one and two threads;
 *  - Gauss-Seidel builds it, as does the exact solver's forest (a tree), and it lists each dynamic body's
 *    joints as (slot << 1 | side) in increasing slot order;
 *  - a rebuild of the layout (a joint added) leaves it to be built again, for the new layout. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "check.h"
#include "fixtures.h"
#include "adjacency_check.h"
#include "core/world.h"

#include <stdlib.h>
#include <string.h>

enum { LINKS = 40, STEPS = 6 };

static ctn_world *exact_chain(int threads, ctn_body_id *first) {
    ctn_world_desc d = fixture_cpu_desc(threads);
    d.solver = CTN_SOLVER_DIRECT, d.iterations = 1, d.substeps = 1, d.integrator = CTN_INTEGRATOR_VELOCITY;
    return fixture_chain_from(&d, LINKS, first);
}

static void test_exact_chain(int threads) {
    ctn_body_id fa, fb;
    ctn_world *a = exact_chain(threads, &fa), *b = exact_chain(threads, &fb);
    if (!a || !b) return;
    for (int k = 0; k < STEPS; ++k) {
        CHECK(ctn_world_step(a) == CTN_OK, "step: %s", ctn_world_last_error(a));
        /* the twin: its layout built by hand (as the step would) and the adjacency with it */
        if (b->topology_dirty) CHECK(ctn__topology_build(b) == CTN_OK, "build: %s", ctn_world_last_error(b));
        CHECK(ctn__topology_adjacency(b) == CTN_OK, "adjacency: %s", ctn_world_last_error(b));
        CHECK(ctn_world_step(b) == CTN_OK, "step: %s", ctn_world_last_error(b));
        CHECK(!a->topo.adj_ready, "%d threads, step %d: the exact solver's chain built no adjacency", threads, k);
    }
    CHECK(fixture_same_links(a, fa, b, fb, LINKS), "%d threads: the chain steps alike with and without the adjacency", threads);
    adjacency_check(b, "the twin");
    ctn_world_destroy(a);
    ctn_world_destroy(b);
}

static void test_gs_and_rebuild(void) {
    ctn_world_desc d = fixture_cpu_desc(1);
    d.solver = CTN_SOLVER_GS;
    ctn_body_id first;
    ctn_world *w = fixture_chain_from(&d, LINKS, &first);
    if (!w) return;
    fixture_steps(w, 2);
    adjacency_check(w, "Gauss-Seidel");
    /* a joint more: the layout is rebuilt, the adjacency with it on the next step's need */
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_BALL);
    jd.body_a = first;
    jd.body_b = ctn_body_id_from_int(w, ctn_body_id_to_int(first) + 2);
    CHECK(ctn_joint_add(w, &jd, NULL) == CTN_OK, "add: %s", ctn_world_last_error(w));
    CHECK(ctn__topology_build(w) == CTN_OK, "build: %s", ctn_world_last_error(w));
    CHECK(!w->topo.adj_ready, "a rebuilt layout has no adjacency until one is needed");
    fixture_steps(w, 1);
    adjacency_check(w, "Gauss-Seidel after a joint added");
    ctn_world_destroy(w);
}

static void test_forest(void) {
    ctn_world_desc d = fixture_cpu_desc(1);
    d.solver = CTN_SOLVER_DIRECT, d.iterations = 1, d.substeps = 1, d.integrator = CTN_INTEGRATOR_VELOCITY;
    ctn_world *w = fixture_world_from(&d);
    if (!w) return;
    CHECK(ctn_scene_from_spec(w, "tree:4") == CTN_OK, "tree: %s", ctn_world_last_error(w));
    fixture_steps(w, 2);
    adjacency_check(w, "the exact solver's forest");
    ctn_world_destroy(w);
}

int main(void) {
    test_exact_chain(1);
    test_exact_chain(2);
    test_gs_and_rebuild();
    test_forest();
    return check_report("lazy_adjacency");
}
