/* The one CG -> Gauss-Seidel rule of both backends (host/solve/solver_rules.c): CG solves equality rows
 * only, so a step whose joints can have bounded rows (here a hinge with limits it never reaches) is solved
 * by Gauss-Seidel on both backends alike, decided from the joint definitions once per step. The CG world
 * must then end bit-identical to the GS world; without a limit it runs CG and differs.
 * The decision is also said once per world through the log (CTN_LOG_INFO, the same words on both backends):
 * the OpenCL half runs the CPU world too and checks that both said the same, naming the same joint.
 *   test_cg_rule          CPU backend
 *   test_cg_rule opencl   OpenCL backend, and the same decision as the CPU's (exits 77 without a device) */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "fixtures.h"

#include <string.h>

/* The world's INFO messages about CG, joined by newlines. */
static void capture(ctn_log_level level, const char *message, void *user) {
    char *said = user;
    size_t len = strlen(said);
    if (level == CTN_LOG_INFO && strstr(message, "CG") && len + strlen(message) + 2 < 1024) snprintf(said + len, 1024 - len, "%s\n", message);
}

/* A pendulum of 4 rigid bodies hanging from hinges about z, swinging: final state of body 3 after 30 steps;
 * said (1024 bytes, may be NULL) gets the world's INFO messages. */
static int run_said(ctn_backend backend, ctn_solver solver, int limited, ctn_body_state *out, char *said) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = backend;
    d.solver = solver;
    if (said) said[0] = '\0', d.log = capture, d.log_user = said;
    ctn_world *w = NULL;
    char err[256];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) return 0;
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

static int run(ctn_backend backend, ctn_solver solver, int limited, ctn_body_state *out) { return run_said(backend, solver, limited, out, NULL); }

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
    if (backend == CTN_BACKEND_OPENCL) { /* the same decision, said alike, as the CPU's for the same world */
        static char said_cpu[1024], said_ocl[1024];
        ctn_body_state s;
        CHECK(run_said(CTN_BACKEND_CPU, CTN_SOLVER_CG, 1, &s, said_cpu) && run_said(backend, CTN_SOLVER_CG, 1, &s, said_ocl), "worlds created");
        printf("cpu said: %sopencl said: %s", said_cpu, said_ocl);
        CHECK(strstr(said_cpu, "solved by Gauss-Seidel") && !strcmp(said_cpu, said_ocl), "limited hinges: the CPU said '%s', OpenCL '%s'",
              said_cpu, said_ocl);
        CHECK(run_said(CTN_BACKEND_CPU, CTN_SOLVER_CG, 0, &s, said_cpu) && run_said(backend, CTN_SOLVER_CG, 0, &s, said_ocl), "worlds created");
        CHECK(!strstr(said_cpu, "Gauss-Seidel") && !strstr(said_ocl, "Gauss-Seidel"), "free hinges: the CPU said '%s', OpenCL '%s'", said_cpu,
              said_ocl);
    }
    return check_report("cg_rule");
}
