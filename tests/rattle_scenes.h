/* Scenes and measures of the RATTLE tests and benchmark (tests/test_rattle.c, bench/bench_rattle.c): the total
 * energy of a world under gravity, a horizontal chain pinned at one end, a pendulum and a double pendulum. */
#ifndef CTN_TEST_RATTLE_SCENES_H
#define CTN_TEST_RATTLE_SCENES_H

#include "catena/catena.h"

#include <math.h>
#include <string.h>

/* Kinetic plus potential energy (gravity g along -y, zero at y = 0) of `count` bodies from `first` (J):
 * 1/2 m v^2 + 1/2 sum_k I_k (R^T w)_k^2 + m g y, with I the principal moments of the body desc. */
static inline double rattle_energy(ctn_world *w, ctn_body_id first, int count, double g) {
    double e = 0.0;
    for (int i = 0; i < count; ++i) {
        ctn_body_desc d;
        ctn_body_state s;
        if (ctn_body_get_desc(w, ctn_body_id_offset(first, i), &d) != CTN_OK || ctn_body_get_state(w, ctn_body_id_offset(first, i), &s) != CTN_OK) return NAN;
        const double *q = s.orientation, *om = s.angular_velocity;
        /* R^T w with R of the unit quaternion (w, x, y, z) */
        double qw = q[0], qx = q[1], qy = q[2], qz = q[3];
        double R[3][3] = {{1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qw * qz), 2 * (qx * qz + qw * qy)},
                          {2 * (qx * qy + qw * qz), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qw * qx)},
                          {2 * (qx * qz - qw * qy), 2 * (qy * qz + qw * qx), 1 - 2 * (qx * qx + qy * qy)}};
        for (int k = 0; k < 3; ++k) {
            double wb = R[0][k] * om[0] + R[1][k] * om[1] + R[2][k] * om[2];
            e += 0.5 * d.mass * s.velocity[k] * s.velocity[k] + (d.particle ? 0.0 : 0.5 * d.inertia[k] * wb * wb);
        }
        e += d.mass * g * s.position[1];
    }
    return e;
}

/* A world of `links` rigid 0.1 m, 0.1 kg links (ball joints) pinned at the origin and laid out along +x
 * (released horizontally), with the given solver, integrator, time step and substeps; *first the first link. */
static inline ctn_world *rattle_chain(int links, ctn_solver solver, ctn_integrator integ, double dt, int substeps, ctn_backend backend,
                                      ctn_body_id *first) {
    ctn_world_desc d = ctn_world_desc_default();
    d.solver = solver, d.integrator = integ, d.time_step = dt, d.backend = backend;
    if (substeps >= 0) d.substeps = substeps;
    d.iterations = solver == CTN_SOLVER_DIRECT ? 1 : d.iterations;
    ctn_world *w = NULL;
    char err[256];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) return NULL;
    ctn_chain_desc c = ctn_chain_desc_default(links);
    if (ctn_scene_chain(w, &c, first) != CTN_OK) {
        ctn_world_destroy(w);
        return NULL;
    }
    return w;
}

#endif /* CTN_TEST_RATTLE_SCENES_H */
