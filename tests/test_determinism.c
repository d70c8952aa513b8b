/* Determinism: the same scene stepped twice in fresh worlds gives bitwise identical body states, for
 * every solver, and the CPU solver's OpenMP threads (used for colours and loops of >= 4096 items) do not
 * change a bit: threads = 1 and threads = 2 agree exactly (GS, Jacobi, CG; the direct solver has its own
 * tests in test_direct*.c). The scene is a 100 x 100 grid (10 000
 * bodies, 19 900 ball joints, colours of ~5 000 joints) so the parallel paths are really taken. */
#include "catena/catena.h"
#include "ids.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

#define STEPS 5

/* Runs the scene and returns all body states (caller frees). */
static ctn_body_state *run(ctn_solver solver, int threads, int *count) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.solver = solver;
    d.threads = threads;
    d.substeps = 2;
    d.iterations = 4;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    CHECK(ctn_scene_from_spec(w, "grid:100x100") == CTN_OK, "%s", ctn_world_last_error(w));
    /* break the symmetry: a sideways push on one corner and a spring force on another body */
    ctn_body_state s;
    ctn_body_get_state(w, HBODY(w, 9999), &s);
    s.velocity[2] = 3.0;
    ctn_body_set_state(w, HBODY(w, 9999), &s);
    double f[3] = {1.0, 0.0, 2.0};
    ctn_body_set_force(w, HBODY(w, 5050), f, NULL);
    for (int i = 0; i < STEPS; ++i)
        CHECK(ctn_world_step(w) == CTN_OK, "solver %d, %d threads, step %d: %s", (int)solver, threads, i, ctn_world_last_error(w));
    ctn_step_stats st;
    ctn_world_get_stats(w, &st);
    CHECK(st.largest_colour >= 4096, "largest colour %d: too small for the parallel path", st.largest_colour);
    int n = ctn_world_body_count(w);
    ctn_body_state *out = calloc((size_t)n, sizeof *out);
    for (int i = 0; i < n; ++i) CHECK(ctn_body_get_state(w, HBODY(w, i), &out[i]) == CTN_OK, "%s", ctn_world_last_error(w));
    *count = n;
    ctn_world_destroy(w);
    return out;
}

int main(void) {
    static const char *const names[] = {"GS", "Jacobi", "CG"};
    for (int solver = CTN_SOLVER_GS; solver <= CTN_SOLVER_CG; ++solver) {
        int n1, n2, n3;
        ctn_body_state *a = run((ctn_solver)solver, 1, &n1);
        ctn_body_state *b = run((ctn_solver)solver, 1, &n2);
        ctn_body_state *c = run((ctn_solver)solver, 2, &n3);
        CHECK(n1 == 10000 && n2 == n1 && n3 == n1, "body counts %d %d %d", n1, n2, n3);
        CHECK(memcmp(a, b, (size_t)n1 * sizeof *a) == 0, "%s: two runs with 1 thread differ", names[solver]);
        CHECK(memcmp(a, c, (size_t)n1 * sizeof *a) == 0, "%s: 1 thread and 2 threads differ", names[solver]);
        int finite = 1, moved = 0;
        for (int i = 0; i < n1; ++i) {
            for (int k = 0; k < 3; ++k) finite &= isfinite(a[i].position[k]) && isfinite(a[i].velocity[k]);
            if (a[i].velocity[2] != 0.0) moved++;
        }
        CHECK(finite, "%s: non-finite state", names[solver]);
        CHECK(moved > 10, "%s: the push should spread (%d bodies moved sideways)", names[solver], moved);
        free(a);
        free(b);
        free(c);
    }
    return check_report("determinism");
}
