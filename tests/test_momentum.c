/* Momentum of a free system with internal joints (gravity 0, nothing pinned to the world).
 *
 * A chain of 20 rigid spheres (isotropic inertia, so the gyroscopic term the integrator leaves out is
 * zero and I w is conserved body by body) joined by ball joints, plus a hinge and a fixed joint, with
 * random linear and angular velocities, stepped for 2 s with each solver:
 *
 * - Linear momentum P = sum m v: every joint impulse is applied with equal and opposite signs, so P is
 *   conserved to float round-off. Each velocity update v += (1/m) J^T lambda is rounded to ~6e-8 relative
 *   of |v|, i.e. a momentum error of ~6e-8 m |v| per body per update; with ~2e4 updates per body over the
 *   run, as a random walk that is at most ~1e-5 of |P_scale| = sum m |v|. We allow 1e-5 of that scale
 *   (measured: ~7e-7).
 * - Angular momentum about the centre of mass L = sum (x - c) x m v + I w: a joint impulse P applied at
 *   the two anchors changes L by (p_a - p_b) x P, i.e. by the joint gap times the impulse, and the
 *   SPOOK position correction is such an impulse; so L is conserved up to sum |gap| |P| per substep
 *   (positions move with the new velocities, which conserve L exactly for isotropic bodies). With gaps
 *   ~1e-4 m and impulses ~1e-2 N s this drifts by ~1e-6 per substep at most (1e-3 over 960 substeps);
 *   we allow 5e-4 of the scale sum |x - c| m |v| + I |w| (~30) over the whole run (measured: 4e-6 to
 *   5e-5 depending on the solver). */
#include "catena/catena.h"
#include "check.h"

#include <string.h>

static unsigned rng_state = 4242u;
static double urand(void) {
    rng_state = rng_state * 1664525u + 1013904223u;
    return (double)(rng_state >> 8) / 8388608.0 - 1.0;
}

#define NB 20

typedef struct sums {
    double P[3], L[3], p_scale, l_scale;
} sums;

static void cross(const double a[3], const double b[3], double o[3]) {
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

static sums momentum(ctn_world *w, const ctn_body_id *ids, const double *mass, const double *inertia) {
    sums s;
    memset(&s, 0, sizeof s);
    ctn_body_state st[NB];
    double c[3] = {0, 0, 0}, M = 0.0;
    for (int i = 0; i < NB; ++i) {
        ctn_body_get_state(w, ids[i], &st[i]);
        for (int k = 0; k < 3; ++k) c[k] += mass[i] * st[i].position[k];
        M += mass[i];
    }
    for (int k = 0; k < 3; ++k) c[k] /= M;
    for (int i = 0; i < NB; ++i) {
        double r[3], mv[3], rxmv[3];
        for (int k = 0; k < 3; ++k) {
            r[k] = st[i].position[k] - c[k];
            mv[k] = mass[i] * st[i].velocity[k];
            s.P[k] += mv[k];
        }
        cross(r, mv, rxmv);
        for (int k = 0; k < 3; ++k) s.L[k] += rxmv[k] + inertia[i] * st[i].angular_velocity[k];
        double vn = sqrt(mv[0] * mv[0] + mv[1] * mv[1] + mv[2] * mv[2]);
        double rn = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
        double wn = sqrt(st[i].angular_velocity[0] * st[i].angular_velocity[0] + st[i].angular_velocity[1] * st[i].angular_velocity[1] +
                         st[i].angular_velocity[2] * st[i].angular_velocity[2]);
        s.p_scale += vn;
        s.l_scale += rn * vn + inertia[i] * wn;
    }
    return s;
}

static void run(ctn_solver solver, const char *name) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.gravity[1] = 0.0;
    d.solver = solver;
    d.substeps = 8;
    d.iterations = solver == CTN_SOLVER_CG ? 20 : 8;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    ctn_body_id ids[NB];
    double mass[NB], inertia[NB];
    rng_state = 4242u;
    const double spacing = 0.3, radius = 0.1;
    for (int i = 0; i < NB; ++i) {
        ctn_body_desc b = ctn_body_desc_default();
        mass[i] = 1.0 + 0.5 * urand();
        b.mass = mass[i];
        ctn_inertia_sphere(b.mass, radius, b.inertia);
        inertia[i] = b.inertia[0];
        /* a zig-zag so that the chain is not straight */
        b.position[0] = i * spacing, b.position[1] = (i % 2) * 0.1, b.position[2] = 0.05 * urand();
        for (int k = 0; k < 3; ++k) {
            b.velocity[k] = urand();
            b.angular_velocity[k] = 3.0 * urand();
        }
        double q[4] = {1.0 + urand() * 0.5, urand(), urand(), urand()};
        memcpy(b.orientation, q, sizeof q);
        CHECK(ctn_body_add(w, &b, &ids[i]) == CTN_OK, "%s", ctn_world_last_error(w));
    }
    for (int i = 0; i + 1 < NB; ++i) {
        /* ball joints, with one hinge and one fixed joint in the middle */
        ctn_joint_type type = i == 7 ? CTN_JOINT_HINGE : i == 12 ? CTN_JOINT_FIXED : CTN_JOINT_BALL;
        ctn_joint_desc j = ctn_joint_desc_default(type);
        j.body_a = ids[i];
        j.body_b = ids[i + 1];
        ctn_body_state a, b;
        ctn_body_get_state(w, ids[i], &a);
        ctn_body_get_state(w, ids[i + 1], &b);
        double pivot[3], axis[3] = {0.0, 0.3, 1.0};
        for (int k = 0; k < 3; ++k) pivot[k] = 0.5 * (a.position[k] + b.position[k]);
        CHECK(ctn_joint_desc_set_pivot(w, &j, pivot, axis) == CTN_OK, "%s", ctn_world_last_error(w));
        CHECK(ctn_joint_add(w, &j, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    }
    /* the initial velocities violate the joints; the first steps project them (the impulses are
     * internal, so momentum is conserved through that too) */
    sums s0 = momentum(w, ids, mass, inertia);
    double worst_p = 0.0, worst_l = 0.0, worst_gap = 0.0;
    for (int step = 0; step < 120; ++step) {
        CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        sums s = momentum(w, ids, mass, inertia);
        for (int k = 0; k < 3; ++k) {
            if (fabs(s.P[k] - s0.P[k]) > worst_p) worst_p = fabs(s.P[k] - s0.P[k]);
            if (fabs(s.L[k] - s0.L[k]) > worst_l) worst_l = fabs(s.L[k] - s0.L[k]);
        }
        ctn_step_stats st;
        ctn_world_get_stats(w, &st);
        if (st.max_gap > worst_gap) worst_gap = st.max_gap;
    }
    printf("%-7s |dP| max %.3g (scale %.3g, rel %.2g)   |dL| max %.3g (scale %.3g, rel %.2g)   max gap %.3g m\n", name, worst_p,
           s0.p_scale, worst_p / s0.p_scale, worst_l, s0.l_scale, worst_l / s0.l_scale, worst_gap);
    CHECK(worst_p <= 1e-5 * s0.p_scale, "%s: linear momentum drift %.3g (scale %.3g)", name, worst_p, s0.p_scale);
    CHECK(worst_l <= 5e-4 * s0.l_scale, "%s: angular momentum drift %.3g (scale %.3g)", name, worst_l, s0.l_scale);
    ctn_world_destroy(w);
}

int main(void) {
    run(CTN_SOLVER_GS, "GS");
    run(CTN_SOLVER_JACOBI, "Jacobi");
    run(CTN_SOLVER_CG, "CG");
    return check_report("momentum");
}
