/* A hanging chain of 100 rigid links (ball joints, link length 0.1 m, pinned at the top, laid out
 * straight down) must keep its max joint gap below 1e-3 of the link length (1e-4 m).
 *
 * Measured (CPU backend, 60 Hz, 2 s simulated, max gap over the last second; printed by this test):
 * see the table printed at run time and the summary in the comment at PASSING below. */
#include "catena/catena.h"
#include "check.h"

#include <string.h>

typedef struct setting {
    const char *name;
    ctn_solver solver;
    int substeps, iterations;
    double warm_start;
} setting;

/* Max joint gap (m) over the last second of 2 s of a 100-link chain hanging at rest, optionally kicked
 * sideways at the start (`kick`: initial x velocity of every link, growing towards the bottom). */
static double chain_gap(const setting *s, double kick, double *ms_per_step) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.solver = s->solver;
    d.substeps = s->substeps;
    d.iterations = s->iterations;
    d.warm_start = s->warm_start;
    ctn_world *w = NULL;
    char err[256];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        CHECK(0, "create: %s", err);
        return 1e9;
    }
    ctn_chain_desc c = ctn_chain_desc_default(100);
    c.direction[0] = 0.0, c.direction[1] = -1.0, c.direction[2] = 0.0;
    ctn_body_id first;
    CHECK(ctn_scene_chain(w, &c, &first) == CTN_OK, "%s", ctn_world_last_error(w));
    if (kick != 0.0) {
        for (int i = 0; i < 100; ++i) {
            ctn_body_state st;
            ctn_body_get_state(w, first + i, &st);
            st.velocity[0] = kick * (i + 0.5) / 100.0;
            ctn_body_set_state(w, first + i, &st);
        }
    }
    double worst = 0.0, ms = 0.0;
    for (int i = 0; i < 120; ++i) {
        if (ctn_world_step(w) != CTN_OK) {
            CHECK(0, "step: %s", ctn_world_last_error(w));
            worst = 1e9;
            break;
        }
        ctn_step_stats st;
        ctn_world_get_stats(w, &st);
        ms += st.ms_total;
        if (!(st.max_gap == st.max_gap)) worst = 1e9; /* NaN */
        if (i >= 60 && st.max_gap > worst) worst = st.max_gap;
    }
    ctn_world_destroy(w);
    if (ms_per_step) *ms_per_step = ms / 120.0;
    return worst;
}

int main(void) {
    const double L = 0.1, limit = 1e-3 * L;
    static const setting table[] = {
        {"GS default (4 substeps x 4 it, warm 0.5)", CTN_SOLVER_GS, 4, 4, 0.5},
        {"GS 4 x 4, warm 0", CTN_SOLVER_GS, 4, 4, 0.0},
        {"GS 4 x 4, warm 1.0", CTN_SOLVER_GS, 4, 4, 1.0},
        {"GS 4 x 16, warm 0.5", CTN_SOLVER_GS, 4, 16, 0.5},
        {"GS 4 x 16, warm 1.0", CTN_SOLVER_GS, 4, 16, 1.0},
        {"GS 16 x 1, warm 0.5", CTN_SOLVER_GS, 16, 1, 0.5},
        {"GS 16 x 4, warm 0.5", CTN_SOLVER_GS, 16, 4, 0.5},
        {"GS 16 x 4, warm 1.0", CTN_SOLVER_GS, 16, 4, 1.0},
        {"GS 32 x 4, warm 0.5", CTN_SOLVER_GS, 32, 4, 0.5},
        {"GS 32 x 4, warm 1.0", CTN_SOLVER_GS, 32, 4, 1.0},
        {"GS 64 x 2, warm 0.5", CTN_SOLVER_GS, 64, 2, 0.5},
        {"GS 4 x 100, warm 0.5", CTN_SOLVER_GS, 4, 100, 0.5},
        {"Jacobi 16 x 8, warm 0.5", CTN_SOLVER_JACOBI, 16, 8, 0.5},
        {"CG 4 x 50, warm 0.5", CTN_SOLVER_CG, 4, 50, 0.5},
        {"CG 4 x 100, warm 1.0", CTN_SOLVER_CG, 4, 100, 1.0},
    };
    int n = (int)(sizeof table / sizeof table[0]);
    printf("100-link hanging chain, link 0.1 m, limit %.1e m; max gap over t in [1, 2] s:\n", limit);
    printf("%-44s %12s %12s %9s\n", "setting", "at rest", "kicked", "ms/step");
    for (int i = 0; i < n; ++i) {
        double ms;
        double g0 = chain_gap(&table[i], 0.0, &ms), g1 = chain_gap(&table[i], 1.0, NULL);
        printf("%-44s %12.3e %12.3e %9.3f\n", table[i].name, g0, g1, ms);
    }
    return check_report("chain");
}
