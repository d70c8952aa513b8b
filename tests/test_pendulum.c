/* Pendulum periods against the analytic ones.
 *
 * - Simple pendulum (a particle on a distance joint to the world, L = 1 m) released at 0.05 rad: the
 *   period must match 2 pi sqrt(L/g) within 1% (the small-angle correction (1 + theta0^2/16) is 1.6e-4
 *   and is included anyway through the exact formula below).
 * - Compound pendulum (a rigid sphere on a ball joint whose pivot sits d above its centre): period
 *   2 pi sqrt((I + m d^2) / (m g d)) within 1%.
 * - Large angle (particle released at 90 degrees): the exact period 4 sqrt(L/g) K(sin(theta0/2)),
 *   with the complete elliptic integral K computed by the arithmetic-geometric mean, within 1%; the
 *   small-angle formula is 18% off here, so this checks the nonlinear dynamics.
 *
 * The period is measured from the downward zero crossings of x (linearly interpolated between steps)
 * over several periods: T = (t_last - t_first) / (crossings - 1). */
#include "catena/catena.h"
#include "check.h"
#include "ellipk.h"

#include <string.h>

static const double PI = 3.14159265358979323846;


static ctn_world *make_world(int substeps, int iterations) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.substeps = substeps;
    d.iterations = iterations;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    return w;
}

/* Runs `steps` steps and returns the period measured from x's downward zero crossings of body `id`
 * about the pivot's x = 0 (and the number of crossings seen). */
static double measure_period(ctn_world *w, ctn_body_id id, int steps, int *crossings, double *final_amplitude) {
    double dt = 1.0 / 60.0, prev_x = 0.0, t_first = -1.0, t_last = -1.0, amp = 0.0;
    int n = 0;
    ctn_body_state s;
    ctn_body_get_state(w, id, &s);
    prev_x = s.position[0];
    for (int i = 1; i <= steps; ++i) {
        CHECK(ctn_world_step(w) == CTN_OK, "step: %s", ctn_world_last_error(w));
        ctn_body_get_state(w, id, &s);
        double x = s.position[0];
        if (i > steps - 200 && fabs(x) > amp) amp = fabs(x);
        if (prev_x > 0.0 && x <= 0.0) {
            double tc = (i - 1 + prev_x / (prev_x - x)) * dt;
            if (t_first < 0.0) t_first = tc;
            t_last = tc;
            n++;
        }
        prev_x = x;
    }
    *crossings = n;
    *final_amplitude = amp;
    return n > 1 ? (t_last - t_first) / (n - 1) : 0.0;
}

/* Particle pendulum of length L released at angle theta0 (x = L sin, y = -L cos). */
static double particle_period(double theta0, int substeps, int iterations, int steps, double *amp) {
    ctn_world *w = make_world(substeps, iterations);
    ctn_body_desc b = ctn_body_desc_default();
    b.particle = 1;
    b.position[0] = sin(theta0), b.position[1] = -cos(theta0);
    ctn_body_id id;
    CHECK(ctn_body_add(w, &b, &id) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_joint_desc j = ctn_joint_desc_default(CTN_JOINT_DISTANCE);
    j.body_a = id;
    j.body_b = CTN_WORLD;
    j.rest_length = 1.0;
    CHECK(ctn_joint_add(w, &j, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    int n;
    double T = measure_period(w, id, steps, &n, amp);
    CHECK(n >= 4, "only %d zero crossings", n);
    ctn_world_destroy(w);
    return T;
}

int main(void) {
    const double g = 9.81, L = 1.0;
    const double T0 = 2.0 * PI * sqrt(L / g);

    /* ---- small angle, particle on a distance joint ---- */
    {
        double theta0 = 0.05, amp;
        double exact = 4.0 * sqrt(L / g) * ellipk(sin(0.5 * theta0));
        double T = particle_period(theta0, 4, 4, 720, &amp); /* 12 s: ~6 periods */
        double err = (T - T0) / T0;
        printf("small angle (%.2f rad): period %.5f s, 2 pi sqrt(L/g) = %.5f s, error %+.3f%%; final amplitude %.4f of %.4f m\n", theta0, T,
               T0, 100.0 * err, amp, sin(theta0));
        CHECK(fabs(err) < 0.01, "small-angle period error %.3f%%", 100.0 * err);
        CHECK(fabs((T - exact) / exact) < 0.01, "vs exact period %.5f", exact);
        CHECK(amp > 0.9 * sin(theta0), "numerical damping removed %.0f%% of the amplitude", 100.0 * (1.0 - amp / sin(theta0)));
    }

    /* ---- large angle (90 degrees), elliptic-integral period ---- */
    {
        double theta0 = 0.5 * PI, amp;
        double exact = 4.0 * sqrt(L / g) * ellipk(sin(0.5 * theta0));
        double T = particle_period(theta0, 4, 4, 720, &amp);
        double err = (T - exact) / exact;
        printf("large angle (90 deg): period %.5f s, exact %.5f s (small-angle formula %.5f s), error %+.3f%%\n", T, exact, T0, 100.0 * err);
        CHECK(fabs(err) < 0.01, "large-angle period error %.3f%%", 100.0 * err);
        CHECK(fabs((T - T0) / T0) > 0.1, "large-angle period must differ from the small-angle one");
    }

    /* ---- compound pendulum: rigid sphere on a ball joint ---- */
    {
        ctn_world *w = make_world(4, 4);
        const double m = 2.0, r = 0.2, dpiv = 0.8, theta0 = 0.05;
        ctn_body_desc b = ctn_body_desc_default();
        b.mass = m;
        ctn_inertia_sphere(m, r, b.inertia);
        b.position[0] = dpiv * sin(theta0), b.position[1] = -dpiv * cos(theta0);
        ctn_body_id id;
        CHECK(ctn_body_add(w, &b, &id) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_joint_desc j = ctn_joint_desc_default(CTN_JOINT_BALL);
        j.body_a = id;
        j.body_b = CTN_WORLD;
        double pivot[3] = {0.0, 0.0, 0.0};
        CHECK(ctn_joint_desc_set_pivot(w, &j, pivot, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
        CHECK(ctn_joint_add(w, &j, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
        double I = 0.4 * m * r * r;
        double Tc = 2.0 * PI * sqrt((I + m * dpiv * dpiv) / (m * g * dpiv));
        int n;
        double amp;
        double T = measure_period(w, id, 720, &n, &amp);
        double err = (T - Tc) / Tc;
        printf("compound pendulum (sphere on a ball joint): period %.5f s, analytic %.5f s, error %+.3f%%\n", T, Tc, 100.0 * err);
        CHECK(n >= 4, "only %d zero crossings", n);
        CHECK(fabs(err) < 0.01, "compound pendulum period error %.3f%%", 100.0 * err);
        double gap, angle;
        ctn_world_measure(w, &gap, &angle);
        CHECK(gap < 1e-3 * dpiv, "ball joint gap %.3g m", gap);
        ctn_world_destroy(w);
    }
    return check_report("pendulum");
}
