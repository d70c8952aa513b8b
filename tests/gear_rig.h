/* The gear train of the gear tests (tests/test_gear.c, tests/test_gear_opencl.c): three wheels hinged to the
 * world about +z at their centres, A at the origin, B at x = 1.5 m, C at x = 2.5 m, coupled by gears A-B
 * (ratio 2: B turns at -1/2 of A's speed, as a wheel with twice A's teeth) and B-C (ratio -0.5, an internal
 * mesh: C turns the same way as B at twice its speed), and a rack below A on a slider along +x, driven by A
 * as its pinion (0.5 m of rack travel per radian). A may carry a hinge motor. Gravity is off: the rig
 * lies in the plane of the turns. Built on the shared set-ups of tests/fixtures.h (the including file
 * defines _POSIX_C_SOURCE first). */
#ifndef CTN_TEST_GEAR_RIG_H
#define CTN_TEST_GEAR_RIG_H

#include "catena/catena.h"
#include "check.h"
#include "fixtures.h"

#include <math.h>
#include <string.h>

#define RIG_AB 2.0    /* theta_A + 2 theta_B = 0 */
#define RIG_BC (-0.5) /* theta_B - 0.5 theta_C = 0 */
#define RIG_RACK 0.5  /* rack travel per radian of A (m) */

typedef struct gear_rig {
    ctn_world *w;
    ctn_body_id wheel[3], rack;
    ctn_joint_id hinge[3], gear_ab, gear_bc, rack_pinion;
    double turn[3];       /* each wheel's hinge angle, unwrapped by rig_track */
    double last[3];
    double rack_x0;
} gear_rig;

static inline ctn_body_id rig_body(ctn_world *w, double x, double y, double mass, double half_x, double half_y) {
    ctn_body_desc bd = ctn_body_desc_default();
    bd.mass = mass;
    bd.position[0] = x, bd.position[1] = y;
    double half[3] = {half_x, half_y, 0.05};
    ctn_inertia_box(mass, half, bd.inertia);
    ctn_body_id id = CTN_NULL_BODY;
    CHECK(ctn_body_add(w, &bd, &id) == CTN_OK, "body: %s", ctn_world_last_error(w));
    return id;
}

static inline ctn_joint_id rig_gear(ctn_world *w, ctn_joint_type type, ctn_body_id a, ctn_body_id b, double ratio, const double axis2[3]) {
    ctn_joint_desc d = ctn_joint_desc_default(type);
    d.body_a = a, d.body_b = b;
    memcpy(d.axis2, axis2, sizeof d.axis2); /* axis: +z (the default) */
    d.ratio = ratio;
    ctn_joint_id id = CTN_NULL_JOINT;
    CHECK(ctn_joint_add(w, &d, &id) == CTN_OK, "%s joint: %s", ctn_joint_type_name(type), ctn_world_last_error(w));
    return id;
}

/* The rig on `backend` with `solver`; motor_speed != 0 drives wheel A (max torque 100 N m). Returns 0 when
 * the world cannot be created (err says why). */
/* rig_build with the treatment of the motor's bounded row set (ctn_world_desc.bounded_rows). */
static inline int rig_build_bounded(gear_rig *r, ctn_backend backend, ctn_solver solver, ctn_bounded_rows bounded, double motor_speed,
                                    char *err, size_t err_size) {
    memset(r, 0, sizeof *r);
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = backend;
    d.solver = solver;
    d.bounded_rows = bounded;
    d.gravity[1] = 0.0;
    if (ctn_world_create(&d, &r->w, err, err_size) != CTN_OK) return 0;
    static const double x[3] = {0.0, 1.5, 2.5}, m[3] = {1.0, 2.0, 0.5};
    static const double z[3] = {0.0, 0.0, 1.0}, ex[3] = {1.0, 0.0, 0.0};
    for (int i = 0; i < 3; ++i) {
        r->wheel[i] = rig_body(r->w, x[i], 0.0, m[i], 0.5, 0.5);
        double pivot[3] = {x[i], 0.0, 0.0};
        fixture_world_joint(r->w, CTN_JOINT_HINGE, r->wheel[i], pivot, z, &r->hinge[i]);
    }
    r->rack = rig_body(r->w, 0.0, -1.0, 1.5, 1.0, 0.1);
    double pivot[3] = {0.0, -1.0, 0.0};
    fixture_world_joint(r->w, CTN_JOINT_PRISMATIC, r->rack, pivot, ex, NULL);
    r->gear_ab = rig_gear(r->w, CTN_JOINT_GEAR, r->wheel[0], r->wheel[1], RIG_AB, z);
    r->gear_bc = rig_gear(r->w, CTN_JOINT_GEAR, r->wheel[1], r->wheel[2], RIG_BC, z);
    r->rack_pinion = rig_gear(r->w, CTN_JOINT_RACK_PINION, r->wheel[0], r->rack, RIG_RACK, ex);
    if (motor_speed != 0.0) CHECK(ctn_joint_set_motor(r->w, r->hinge[0], 1, motor_speed, 100.0) == CTN_OK, "%s", ctn_world_last_error(r->w));
    r->rack_x0 = -1.0;
    ctn_body_state st;
    if (ctn_body_get_state(r->w, r->rack, &st) == CTN_OK) r->rack_x0 = st.position[0];
    return 1;
}

static inline int rig_build(gear_rig *r, ctn_backend backend, ctn_solver solver, double motor_speed, char *err, size_t err_size) {
    return rig_build_bounded(r, backend, solver, CTN_BOUNDED_AUTO, motor_speed, err, err_size);
}

/* Unwraps the hinge angles after a step (a wheel turns far less than pi per step). */
static inline void rig_track(gear_rig *r) {
    for (int i = 0; i < 3; ++i) {
        double a = 0.0;
        CHECK(ctn_joint_get_angle(r->w, r->hinge[i], &a) == CTN_OK, "%s", ctn_world_last_error(r->w));
        double d = a - r->last[i];
        d -= 6.283185307179586 * floor((d + 3.141592653589793) / 6.283185307179586);
        r->turn[i] += d;
        r->last[i] = a;
    }
}

/* The largest violation of the three relations at the current state: |theta_A + 2 theta_B| and
 * |theta_B - 0.5 theta_C| (rad), |rack travel - 0.5 theta_A| (m). */
static inline double rig_error(gear_rig *r) {
    ctn_body_state st;
    CHECK(ctn_body_get_state(r->w, r->rack, &st) == CTN_OK, "%s", ctn_world_last_error(r->w));
    double e = fabs(r->turn[0] + RIG_AB * r->turn[1]);
    e = fmax(e, fabs(r->turn[1] + RIG_BC * r->turn[2]));
    return fmax(e, fabs(st.position[0] - r->rack_x0 - RIG_RACK * r->turn[0]));
}

#endif
