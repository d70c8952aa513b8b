/* The one CG -> Gauss-Seidel rule of both backends (host/solve/solver_rules.c): CG solves equality rows
 * only, so a step whose joints can have bounded rows (here a hinge with limits it never reaches) is solved
 * by Gauss-Seidel on both backends alike, decided from the joint definitions once per step. The CG world
 * must then end bit-identical to the GS world; without a limit it runs CG and differs.
 *   test_cg_rule          CPU backend
 *   test_cg_rule opencl   OpenCL backend (exits 77 without a device) */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "fixtures.h"

#include <string.h>

/* A pendulum of 4 rigid bodies hanging from hinges about z, swinging: final state of body 3 after 30 steps. */
static int run(ctn_backend backend, ctn_solver solver, int limited, ctn_body_state *out) {
    ctn_world *w = fixture_world(backend, solver, NULL, 0);
    if (!w) return 0;
    ctn_body_id prev = CTN_NULL_BODY, b = CTN_NULL_BODY;
    const double axis[3] = {0, 0, 1};
    for (int i = 0; i < 4; ++i) {
        ctn_body_desc bd = ctn_body_desc_default();
        bd.position[0] = 0.5 * (i + 1);
        CHECK(ctn_body_add(w, &bd, &b) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_HINGE);
        jd.body_a = b;
        if (i > 0) jd.body_b = prev;
        const double pivot[3] = {0.5 * i, 0.0, 0.0};
        CHECK(ctn_joint_desc_set_pivot(w, &jd, pivot, axis) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_joint_id j = CTN_NULL_JOINT;
        CHECK(ctn_joint_add(w, &jd, &j) == CTN_OK, "%s", ctn_world_last_error(w));
        if (limited) CHECK(ctn_joint_set_limits(w, j, 1, -3.1, 3.1) == CTN_OK, "%s", ctn_world_last_error(w));
        prev = b;
    }
    for (int s = 0; s < 30; ++s) CHECK(ctn_world_step(w) == CTN_OK, "step %d: %s", s, ctn_world_last_error(w));
    CHECK(ctn_body_get_state(w, b, out) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_world_destroy(w);
    return 1;
}

int main(int argc, char **argv) {
    ctn_backend backend = argc > 1 && strcmp(argv[1], "opencl") == 0 ? CTN_BACKEND_OPENCL : CTN_BACKEND_CPU;
    char why[256];
    if (backend == CTN_BACKEND_OPENCL && !fixture_have_opencl(why, sizeof why)) {
        printf("test_cg_rule opencl: %s, skipped\n", why);
        return CHECK_SKIPPED;
    }
    ctn_body_state cg, gs, cg_free, gs_free;
    memset(&cg, 0, sizeof cg), memset(&gs, 0, sizeof gs), memset(&cg_free, 0, sizeof cg_free), memset(&gs_free, 0, sizeof gs_free);
    CHECK(run(backend, CTN_SOLVER_CG, 1, &cg) && run(backend, CTN_SOLVER_GS, 1, &gs), "worlds created");
    CHECK(memcmp(&cg, &gs, sizeof cg) == 0, "limited hinges: CG runs Gauss-Seidel (y %.9g vs %.9g)", cg.position[1], gs.position[1]);
    CHECK(cg.position[1] < -0.1, "the pendulum fell (y %.9g)", cg.position[1]);
    CHECK(run(backend, CTN_SOLVER_CG, 0, &cg_free) && run(backend, CTN_SOLVER_GS, 0, &gs_free), "worlds created");
    CHECK(memcmp(&cg_free, &gs_free, sizeof cg_free) != 0, "free hinges: CG runs CG, not Gauss-Seidel");
    return check_report("cg_rule");
}
