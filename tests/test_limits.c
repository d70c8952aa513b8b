/* Joint limits: a hinged rod released from horizontal stays within its angle limits, a bridge
 * with limits holds, and a rope (distance joint that only pulls) is slack when short and holds when taut. */
#include "catena/catena.h"
#include "ids.h"
#include "check.h"

#include <math.h>

static ctn_world *make_world(void) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    return w;
}

static void test_hinge_limits(void) {
    ctn_world *w = make_world();
    ctn_body_desc bd = ctn_body_desc_default();
    double he[3] = {0.5, 0.02, 0.02};
    ctn_inertia_box(bd.mass, he, bd.inertia);
    bd.position[0] = 0.5;
    ctn_body_id rod;
    ctn_body_add(w, &bd, &rod);
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_HINGE);
    jd.body_a = rod;
    const double pivot[3] = {0, 0, 0}, z[3] = {0, 0, 1};
    ctn_joint_desc_set_pivot(w, &jd, pivot, z);
    ctn_joint_id h;
    CHECK(ctn_joint_add(w, &jd, &h) == CTN_OK, "%s", ctn_world_last_error(w));
    /* validation */
    CHECK(ctn_joint_set_limits(w, h, 1, 0.5, -0.5) == CTN_ERR_INVALID_ARGUMENT, "lower > upper accepted");
    CHECK(ctn_joint_set_limits(w, h, 1, -4.0, 0.5) == CTN_ERR_INVALID_ARGUMENT, "limit beyond pi accepted");
    CHECK(ctn_joint_set_rope(w, h, 1) == CTN_ERR_INVALID_ARGUMENT, "rope on a hinge accepted");
    const double lo = -0.6, hi = 0.3;
    CHECK(ctn_joint_set_limits(w, h, 1, lo, hi) == CTN_OK, "%s", ctn_world_last_error(w));
    double amin = 1e9, amax = -1e9, theta = 0.0;
    int rows = 0, negative = 0;
    for (int i = 0; i < 240; ++i) {
        CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_joint_get_angle(w, h, &theta);
        if (theta < amin) amin = theta;
        if (theta > amax) amax = theta;
        double imp[6];
        ctn_joint_get_impulse(w, h, imp, &rows);
        negative += imp[5] < 0.0; /* the limit row only pushes away from the limit */
    }
    CHECK(rows == 6, "hinge with limits has %d rows", rows);
    CHECK(amin > lo - 0.02, "rod fell through the lower limit: %g < %g", amin, lo);
    CHECK(amax < hi + 0.02, "rod passed the upper limit: %g > %g", amax, hi);
    CHECK(fabs(theta - lo) < 0.02, "rod rests on the lower limit: %g (limit %g)", theta, lo);
    CHECK(negative == 0, "limit impulse negative in %d steps", negative);
    printf("hinge limits [%.2f, %.2f]: angle range [%.4f, %.4f], rest %.4f\n", lo, hi, amin, amax, theta);
    /* disabling the limit lets it swing down to -pi/2 */
    CHECK(ctn_joint_set_limits(w, h, 0, 0.0, 0.0) == CTN_OK, "%s", ctn_world_last_error(w));
    for (int i = 0; i < 60; ++i) ctn_world_step(w);
    ctn_joint_get_angle(w, h, &theta);
    ctn_joint_get_impulse(w, h, (double[6]){0}, &rows);
    CHECK(theta < lo - 0.3, "without limits the rod swings on: %g", theta);
    CHECK(rows == 5, "hinge without limits has %d rows", rows);
    ctn_world_destroy(w);
}

static void test_bridge_limits(void) {
    ctn_world *w = make_world();
    CHECK(ctn_scene_from_spec(w, "bridge_limits:10") == CTN_OK, "%s", ctn_world_last_error(w));
    double worst = 0.0;
    for (int i = 0; i < 300; ++i) {
        CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        for (int j = 0; j <= 10; ++j) {
            double a;
            if (ctn_joint_get_angle(w, HJOINT(w, j), &a) == CTN_OK && fabs(a) > worst) worst = fabs(a);
        }
    }
    ctn_step_stats st;
    ctn_world_get_stats(w, &st);
    CHECK(worst < 0.15 + 0.05, "bridge hinge bent %g rad (limit 0.15)", worst);
    printf("bridge_limits:10: largest hinge angle %.4f rad (limit 0.15), joint gap %.3g m, %d contacts\n", worst, st.max_gap, st.contacts);
    ctn_world_destroy(w);
}

static void test_rope(void) {
    ctn_world *w = make_world();
    ctn_body_desc bd = ctn_body_desc_default();
    bd.particle = 1;
    ctn_body_id p;
    ctn_body_add(w, &bd, &p);
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_DISTANCE);
    jd.body_a = p;
    jd.anchor_b[1] = 0.5; /* 0.5 m above the particle, rope 1 m: 0.5 m of slack */
    jd.rest_length = 1.0;
    ctn_joint_id r;
    CHECK(ctn_joint_add(w, &jd, &r) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_joint_set_rope(w, r, 1) == CTN_OK, "%s", ctn_world_last_error(w));
    /* slack: free fall for sqrt(2 * 0.5 / g) = 0.319 s */
    for (int i = 0; i < 12; ++i) ctn_world_step(w); /* 0.2 s */
    ctn_body_state s;
    ctn_body_get_state(w, p, &s);
    double t = 0.2;
    CHECK(fabs(s.velocity[1] + 9.81 * t) < 0.02, "slack rope: vy %g, free fall %g", s.velocity[1], -9.81 * t);
    int positive = 0;
    for (int i = 0; i < 180; ++i) {
        ctn_world_step(w);
        double imp[6];
        int rows;
        ctn_joint_get_impulse(w, r, imp, &rows);
        positive += imp[0] > 0.0; /* a rope only pulls: lambda <= 0 */
    }
    ctn_body_get_state(w, p, &s);
    CHECK(fabs(s.position[1] - (0.5 - 1.0)) < 0.01, "taut rope holds the particle at %g (expected -0.5)", s.position[1]);
    CHECK(positive == 0, "rope pushed in %d steps", positive);
    printf("rope: hangs at y = %.4f (expected -0.5)\n", s.position[1]);
    ctn_world_destroy(w);
}

int main(void) {
    test_hinge_limits();
    test_bridge_limits();
    test_rope();
    return check_report("limits");
}
