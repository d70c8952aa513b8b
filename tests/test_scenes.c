/* Scene generators: each builds through the public API with the expected body and joint counts, and
 * steps for 1 s without non-finite state and with bounded joint errors. */
#include "catena/catena.h"
#include "ids.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

static void run(const char *spec, int bodies, int joints, double gap_limit) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    CHECK(ctn_scene_from_spec(w, spec) == CTN_OK, "%s: %s", spec, ctn_world_last_error(w));
    CHECK(ctn_world_body_count(w) == bodies, "%s: %d bodies, expected %d", spec, ctn_world_body_count(w), bodies);
    CHECK(ctn_world_joint_count(w) == joints, "%s: %d joints, expected %d", spec, ctn_world_joint_count(w), joints);
    double gap0, angle0;
    ctn_world_measure(w, &gap0, &angle0);
    CHECK(gap0 < 1e-5 && angle0 < 1e-5, "%s: joints violated at creation (gap %.3g, angle %.3g)", spec, gap0, angle0);
    ctn_step_stats st;
    memset(&st, 0, sizeof st);
    for (int i = 0; i < 60; ++i) {
        ctn_status s = ctn_world_step(w);
        CHECK(s == CTN_OK, "%s step %d: %s", spec, i, ctn_world_last_error(w));
        if (s != CTN_OK) break;
    }
    ctn_world_get_stats(w, &st);
    double *xyz = malloc(3 * (size_t)bodies * sizeof *xyz);
    int written = 0;
    CHECK(ctn_world_get_positions(w, xyz, bodies, &written) == CTN_OK && written == bodies, "%s: positions", spec);
    int finite = 1;
    for (int i = 0; i < 3 * written; ++i) finite &= isfinite(xyz[i]);
    free(xyz);
    CHECK(finite, "%s: non-finite positions", spec);
    static const char *const solver_names[] = {"gs", "jacobi", "cg", "direct", "auto"}; /* ctn_solver order */
    printf("%-18s %6d bodies %6d joints  solver %-6s colours %2d  rows %6d  gap %.3g m  angle %.3g rad\n", spec, bodies, joints,
           (unsigned)st.solver < 5 ? solver_names[st.solver] : "?", st.colours, st.rows, st.max_gap, st.max_angle);
    CHECK(st.max_gap < gap_limit, "%s: gap %.3g m after 1 s", spec, st.max_gap);
    ctn_world_destroy(w);
}

int main(void) {
    /* default settings (solver auto: the exact solver with its position projection on chains and ropes,
     * round-off gaps; GS on the loops of the grid and the bridge). Each limit is 10x the gap after 1 s
     * measured on the 2-core VM (2026-11-23), given in the comment. */
    run("chain:100", 100, 100, 1.2e-7);                  /* 1.16e-8 m */
    run("heavy_chain:50", 50, 50, 5.2e-7);               /* 5.16e-8 m */
    run("rope:200", 200, 200, 7.5e-7);                   /* 7.45e-8 m */
    run("grid:16x8", 128, 16 + 15 * 8 + 16 * 7, 5.4e-3); /* 5.38e-4 m */
    run("bridge:20", 20, 21, 9.3e-3);                    /* 9.23e-4 m */
    run("cradle:5", 5, 5, 2.4e-5);                       /* 2.38e-6 m */
    run("double_pendulum", 2, 2, 1.5e-3);                /* 1.45e-4 m */
    /* the C generators directly */
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    ctn_chain_desc c = ctn_chain_desc_default(10);
    ctn_body_id first = CTN_NULL_BODY;
    CHECK(ctn_scene_chain(w, &c, &first) == CTN_OK && ID_INT(first) == 0, "chain first id %lld", ID_INT(first));
    CHECK(ctn_scene_grid(w, 3, 2, 0.2) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_scene_bridge(w, 4) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_scene_cradle(w, 3) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_scene_double_pendulum(w) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_world_body_count(w) == 10 + 6 + 4 + 3 + 2, "combined bodies %d", ctn_world_body_count(w));
    CHECK(ctn_world_joint_count(w) == 10 + (3 + 3 + 4) + 5 + 3 + 2, "combined joints %d", ctn_world_joint_count(w));
    for (int i = 0; i < 30; ++i) CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_world_destroy(w);
    return check_report("scenes");
}
