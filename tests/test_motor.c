/* Hinge motor: a wheel on an axle reaches its target speed; with a small maximum torque it
 * accelerates at max_torque / I; the motor scene runs. */
#include "catena/catena.h"
#include "ids.h"
#include "check.h"

#include <math.h>

static ctn_world *wheel_world(ctn_joint_id *hinge, ctn_body_id *wheel, double inertia) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    ctn_body_desc bd = ctn_body_desc_default();
    bd.mass = 2.0;
    bd.inertia[0] = bd.inertia[1] = 0.5 * inertia;
    bd.inertia[2] = inertia;
    ctn_body_add(w, &bd, wheel);
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_HINGE);
    jd.body_a = *wheel;
    const double pivot[3] = {0, 0, 0}, z[3] = {0, 0, 1};
    ctn_joint_desc_set_pivot(w, &jd, pivot, z);
    CHECK(ctn_joint_add(w, &jd, hinge) == CTN_OK, "%s", ctn_world_last_error(w));
    return w;
}

int main(void) {
    ctn_joint_id h;
    ctn_body_id b;
    const double I = 0.25;
    /* strong motor: reaches 5 rad/s */
    ctn_world *w = wheel_world(&h, &b, I);
    CHECK(ctn_joint_set_motor(w, h, 1, 5.0, -1.0) == CTN_ERR_INVALID_ARGUMENT, "negative torque accepted");
    CHECK(ctn_joint_set_motor(w, h, 1, 5.0, 100.0) == CTN_OK, "%s", ctn_world_last_error(w));
    for (int i = 0; i < 60; ++i) CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_body_state s;
    ctn_body_get_state(w, b, &s);
    CHECK(fabs(s.angular_velocity[2] - 5.0) < 0.05, "motor speed %g (target 5)", s.angular_velocity[2]);
    printf("motor: %.4f rad/s after 1 s (target 5)\n", s.angular_velocity[2]);
    /* turning the motor off: the wheel spins on freely */
    CHECK(ctn_joint_set_motor(w, h, 0, 0.0, 0.0) == CTN_OK, "%s", ctn_world_last_error(w));
    for (int i = 0; i < 30; ++i) ctn_world_step(w);
    ctn_body_get_state(w, b, &s);
    CHECK(fabs(s.angular_velocity[2] - 5.0) < 0.05, "free wheel slowed to %g", s.angular_velocity[2]);
    ctn_world_destroy(w);

    /* weak motor: torque-limited acceleration tau / I = 2 rad/s^2 for 1 s, then holds the target 3 */
    w = wheel_world(&h, &b, I);
    CHECK(ctn_joint_set_motor(w, h, 1, -3.0, 0.5) == CTN_OK, "%s", ctn_world_last_error(w));
    for (int i = 0; i < 60; ++i) ctn_world_step(w);
    ctn_body_get_state(w, b, &s);
    double want = -0.5 / I * 1.0;
    CHECK(fabs(s.angular_velocity[2] - want) < 0.05 * fabs(want), "torque-limited speed %g after 1 s, expected %g", s.angular_velocity[2], want);
    for (int i = 0; i < 60; ++i) ctn_world_step(w);
    ctn_body_get_state(w, b, &s);
    CHECK(fabs(s.angular_velocity[2] + 3.0) < 0.03, "weak motor speed %g after 2 s (target -3)", s.angular_velocity[2]);
    double imp[6];
    int rows;
    ctn_joint_get_impulse(w, h, imp, &rows);
    CHECK(rows == 6 && fabs(imp[5]) <= 0.5 * (1.0 / 240.0) * 1.0001, "motor impulse %g beyond max torque x h", imp[5]);
    printf("weak motor: %.4f rad/s after 1 s (expected %.4f)\n", want, want);
    ctn_world_destroy(w);

    /* the scene */
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    CHECK(ctn_scene_from_spec(w, "wheel") == CTN_OK, "%s", ctn_world_last_error(w));
    for (int i = 0; i < 120; ++i) CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_body_get_state(w, HBODY(w, 0), &s);
    CHECK(fabs(s.angular_velocity[2] - 10.0) < 0.5, "scene wheel at %g rad/s (target 10)", s.angular_velocity[2]);
    printf("wheel scene: %.3f rad/s (target 10)\n", s.angular_velocity[2]);
    ctn_world_destroy(w);
    return check_report("motor");
}
