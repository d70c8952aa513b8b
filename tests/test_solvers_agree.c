/* Gauss-Seidel, Jacobi and conjugate gradient converge to the same impulses on a small system.
 *
 * A 5-link rigid chain (ball joints) hanging from the world, given a sideways velocity so that all three
 * rows of every joint carry impulse; one step of one substep, warm start 0, many iterations. The
 * system (J M^-1 J^T + S) lambda = rhs is then the same for all solvers (the blocks are built from the
 * same state), so the converged lambda must agree. Jacobi builds its blocks with split masses, which
 * changes its iteration but not the fixed point. Tolerance: 1e-4 of the largest impulse (float32
 * solvers on a system with cond ~1e3: ~1e-7 x 1e3 = 1e-4 relative at worst).
 * Also checks the static answer: at rest the top joint carries the weight of the chain, m g h per link. */
#include "catena/catena.h"
#include "ids.h"
#include "check.h"

#include <string.h>

#define LINKS 5

static void solve(ctn_solver solver, int iterations, double kick, double lam[LINKS][6]) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.solver = solver;
    d.substeps = 1;
    d.iterations = iterations;
    d.warm_start = 0.0;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    ctn_chain_desc c = ctn_chain_desc_default(LINKS);
    c.direction[0] = 0.3, c.direction[1] = -1.0, c.direction[2] = 0.2;
    ctn_body_id first;
    CHECK(ctn_scene_chain(w, &c, &first) == CTN_OK, "%s", ctn_world_last_error(w));
    for (int i = 0; i < LINKS; ++i) {
        ctn_body_state s;
        ctn_body_get_state(w, ctn_body_id_offset(first, i), &s);
        s.velocity[0] = kick * (i + 1), s.velocity[2] = -0.5 * kick * i;
        s.angular_velocity[1] = kick;
        ctn_body_set_state(w, ctn_body_id_offset(first, i), &s);
    }
    CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    for (int j = 0; j < LINKS; ++j) {
        int rows = 0;
        CHECK(ctn_joint_get_impulse(w, HJOINT(w, j), lam[j], &rows) == CTN_OK, "%s", ctn_world_last_error(w));
        CHECK(rows == 3, "ball joint rows %d", rows);
    }
    ctn_world_destroy(w);
}

static double compare(const char *what, double a[LINKS][6], double b[LINKS][6]) {
    double scale = 0.0, err = 0.0;
    for (int j = 0; j < LINKS; ++j)
        for (int k = 0; k < 3; ++k) {
            if (fabs(a[j][k]) > scale) scale = fabs(a[j][k]);
            if (fabs(a[j][k] - b[j][k]) > err) err = fabs(a[j][k] - b[j][k]);
        }
    printf("%-16s max |dlambda| = %.3g (max |lambda| %.3g, rel %.2g)\n", what, err, scale, err / scale);
    CHECK(err <= 1e-4 * scale, "%s: impulses differ by %.3g (scale %.3g)", what, err, scale);
    return err;
}

int main(void) {
    double gs[LINKS][6], jac[LINKS][6], cg[LINKS][6], gs_more[LINKS][6];
    /* moving chain */
    solve(CTN_SOLVER_GS, 500, 1.0, gs);
    solve(CTN_SOLVER_GS, 2000, 1.0, gs_more);
    solve(CTN_SOLVER_JACOBI, 5000, 1.0, jac);
    solve(CTN_SOLVER_CG, 60, 1.0, cg);
    compare("GS 500 vs 2000", gs, gs_more);
    compare("GS vs Jacobi", gs, jac);
    compare("GS vs CG", gs, cg);
    compare("Jacobi vs CG", jac, cg);
    double nz = 0.0;
    for (int j = 0; j < LINKS; ++j) nz += fabs(gs[j][0]) + fabs(gs[j][2]);
    CHECK(nz > 1e-3, "the kick should load the x and z rows too (%.3g)", nz);

    /* at rest: one step from rest along the hanging direction; the joint above link k carries the
     * weight of links k..n-1 (straight down, so the impulse is vertical): lambda_y = (n - k) m g h */
    ctn_world_desc d = ctn_world_desc_default();
    double h = d.time_step;
    for (int s = 0; s < 3; ++s) {
        ctn_solver solver = s == 0 ? CTN_SOLVER_GS : s == 1 ? CTN_SOLVER_JACOBI : CTN_SOLVER_CG;
        int its = s == 0 ? 500 : s == 1 ? 5000 : 60;
        ctn_world *w = NULL;
        char err[256];
        d.backend = CTN_BACKEND_CPU;
        d.solver = solver;
        d.substeps = 1;
        d.iterations = its;
        d.warm_start = 0.0;
        CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
        ctn_chain_desc c = ctn_chain_desc_default(LINKS);
        c.direction[0] = 0.0, c.direction[1] = -1.0;
        CHECK(ctn_scene_chain(w, &c, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
        CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        for (int j = 0; j < LINKS; ++j) {
            double lam[6];
            ctn_joint_get_impulse(w, HJOINT(w, j), lam, NULL);
            /* joint j: body_a = link j, body_b = link j-1 (or the world); the impulse on a is +lambda */
            double expect = (LINKS - j) * c.link_mass * 9.81 * h;
            CHECK_NEAR(lam[1], expect, 1e-4 * expect + 1e-7, "static tension impulse");
            CHECK(fabs(lam[0]) < 1e-6 && fabs(lam[2]) < 1e-6, "sideways impulse %.3g %.3g", lam[0], lam[2]);
        }
        ctn_world_destroy(w);
    }
    return check_report("solvers_agree");
}
