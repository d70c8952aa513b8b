/* Drift of curve constraints (bead on a wire): SPOOK velocity-level rows against Witkin and Baraff's
 * acceleration-level rows with feedback (J a = -Jdot qdot - ks C - kd Cdot), at 60 Hz.
 *
 * Scenes (particles, gravity -9.81 m/s^2 along y):
 *   circle  a bead on a vertical circle of radius 0.5 m released from the height of its centre (a 90-degree
 *           swing, 3.1 m/s at the bottom: the curvature term kappa v^2 = 19.6 m/s^2 is large);
 *   helix   a bead on a helix about the horizontal x axis (radius 0.3 m, pitch 0.15 m) released level with the
 *           axis: it swings through the bottom of its turn and back, a pendulum whose path also runs along x
 *           (bounded, unlike a helix about the vertical, where the bead keeps gaining speed);
 *   loop    a bead pushed at 3 m/s around a closed 64-gon of radius 0.5 m (polyline windows moving).
 * For each: the largest and the mean |C| (the distance of the bead from the wire, ctn_step_stats.max_gap)
 * over N seconds, and the energy change (E(T) - E(0)) / m at the end.
 *
 * Usage: bench_curve [seconds=60] [substeps=4] [ks=400] [kd=40] [backend=cpu|opencl]
 * Prints a Markdown table. */
#include "catena/catena.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double G = 9.81, PI = 3.14159265358979323846;

typedef struct result {
    double max_c, mean_c, energy;
} result;

static ctn_world *world_of(int substeps, ctn_backend backend, int gravity) {
    ctn_world_desc d = ctn_world_desc_default();
    d.substeps = substeps;
    d.backend = backend;
    d.solver = CTN_SOLVER_GS;
    if (!gravity) d.gravity[1] = 0.0;
    ctn_world *w = NULL;
    char err[256];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        fprintf(stderr, "bench_curve: %s\n", err);
        exit(1);
    }
    return w;
}

static ctn_body_id bead(ctn_world *w, double x, double y, double z, double vx, double vz) {
    ctn_body_desc bd = ctn_body_desc_default();
    bd.particle = 1;
    bd.position[0] = x, bd.position[1] = y, bd.position[2] = z;
    bd.velocity[0] = vx, bd.velocity[2] = vz;
    ctn_body_id id = CTN_NULL_BODY;
    if (ctn_body_add(w, &bd, &id) != CTN_OK) exit(1);
    return id;
}

static double energy(ctn_world *w, ctn_body_id b, int gravity) {
    ctn_body_state s;
    ctn_body_get_state(w, b, &s);
    return 0.5 * (s.velocity[0] * s.velocity[0] + s.velocity[1] * s.velocity[1] + s.velocity[2] * s.velocity[2]) +
           (gravity ? G * s.position[1] : 0.0);
}

static result run(const char *scene, ctn_curve_stabilization stab, double seconds, int substeps, double ks, double kd, ctn_backend backend) {
    int gravity = strcmp(scene, "loop") != 0;
    ctn_world *w = world_of(substeps, backend, gravity);
    ctn_curve_desc cd;
    ctn_body_id b;
    enum { N = 64 };
    double pts[N][3];
    if (!strcmp(scene, "circle")) {
        cd = ctn_curve_desc_default(CTN_CURVE_CIRCLE);
        b = bead(w, 0.5, 0.5, 0.0, 0.0, 0.0);
        cd.origin[1] = 0.5;
        cd.radius = 0.5;
    } else if (!strcmp(scene, "helix")) {
        cd = ctn_curve_desc_default(CTN_CURVE_HELIX);
        b = bead(w, 0.0, 0.0, 0.3, 0.0, 0.0);
        cd.axis[0] = 1.0, cd.axis[2] = 0.0;
        cd.reference[2] = 1.0;
        cd.radius = 0.3;
        cd.pitch = 0.15;
    } else {
        cd = ctn_curve_desc_default(CTN_CURVE_POLYLINE);
        for (int i = 0; i < N; ++i) pts[i][0] = 0.5 * cos(2 * PI * i / N), pts[i][1] = 0.0, pts[i][2] = 0.5 * sin(2 * PI * i / N);
        b = bead(w, 0.5 * cos(0.01), 0.0, 0.5 * sin(0.01), 0.0, 3.0);
        cd.points = &pts[0][0];
        cd.count = N;
        cd.closed = 1;
    }
    cd.body = b;
    cd.stabilization = stab;
    cd.ks = ks;
    cd.kd = kd;
    if (ctn_curve_constraint_add(w, &cd, NULL) != CTN_OK) {
        fprintf(stderr, "bench_curve: %s\n", ctn_world_last_error(w));
        exit(1);
    }
    double e0 = energy(w, b, gravity);
    result r = {0.0, 0.0, 0.0};
    int steps = (int)(seconds * 60.0 + 0.5);
    for (int i = 0; i < steps; ++i) {
        if (ctn_world_step(w) != CTN_OK) {
            fprintf(stderr, "bench_curve: %s\n", ctn_world_last_error(w));
            exit(1);
        }
        ctn_step_stats st;
        ctn_world_get_stats(w, &st);
        r.max_c = fmax(r.max_c, st.max_gap);
        r.mean_c += st.max_gap / steps;
    }
    r.energy = energy(w, b, gravity) - e0;
    ctn_world_destroy(w);
    return r;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 60.0;
    int substeps = argc > 2 ? atoi(argv[2]) : 4;
    double ks = argc > 3 ? atof(argv[3]) : 400.0, kd = argc > 4 ? atof(argv[4]) : 40.0;
    ctn_backend backend = argc > 5 && !strcmp(argv[5], "opencl") ? CTN_BACKEND_OPENCL : CTN_BACKEND_CPU;
    if (!(seconds > 0.0) || substeps < 1) {
        fprintf(stderr, "usage: bench_curve [seconds] [substeps] [ks] [kd] [cpu|opencl]\n");
        return 2;
    }
    printf("bench_curve: %g s at 60 Hz, %d substeps, %s backend; acceleration form ks = %g 1/s^2, kd = %g 1/s\n\n", seconds, substeps,
           ctn_backend_name(backend), ks, kd);
    printf("| scene | stabilisation | max \\|C\\| (m) | mean \\|C\\| (m) | (E(T) - E(0)) / m (J/kg) |\n| --- | --- | --- | --- | --- |\n");
    const char *scenes[] = {"circle", "helix", "loop"};
    for (int s = 0; s < 3; ++s)
        for (int k = 0; k < 2; ++k) {
            ctn_curve_stabilization stab = k ? CTN_CURVE_STAB_ACCELERATION : CTN_CURVE_STAB_VELOCITY;
            result r = run(scenes[s], stab, seconds, substeps, ks, kd, backend);
            printf("| %s | %s | %.3g | %.3g | %.3g |\n", scenes[s], k ? "acceleration (Witkin-Baraff)" : "SPOOK (velocity)", r.max_c, r.mean_c,
                   r.energy);
        }
    return 0;
}
