/* Contacts: a box resting on a plane, a sphere on a slope (stick / slide / roll), user-supplied
 * contacts, and the sign of the normal impulses (contacts never pull). */
#define _POSIX_C_SOURCE 200809L /* fixtures.h: mkstemp, close, unlink */
#include "catena/catena.h"
#include "ids.h"
#include "check.h"
#include "fixtures.h"
#include "joint_split.h"

#include <math.h>
#include <stdlib.h>

static ctn_world *make_world(int substeps, int iterations) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.substeps = substeps;
    d.iterations = iterations;
    ctn_world *w = NULL;
    char err[256];
    ctn_status st = ctn_world_create(&d, &w, err, sizeof err);
    CHECK(st == CTN_OK, "create: %s", err);
    return w;
}

/* Every contact pushes (lambda_n >= 0) and friction stays in its cone; returns the contact count. */
static int check_contacts(ctn_world *w, const char *what) {
    int n = 0;
    CHECK(ctn_world_get_contacts(w, NULL, 0, &n) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_contact_info *ci = calloc((size_t)n + 1, sizeof *ci);
    int got = 0;
    CHECK(ctn_world_get_contacts(w, ci, n, &got) == CTN_OK && got == n, "%s", ctn_world_last_error(w));
    int bad_n = 0, bad_t = 0;
    for (int i = 0; i < n; ++i) {
        double ln = ci[i].impulse[0], lt = hypot(ci[i].impulse[1], ci[i].impulse[2]);
        double ln_api[6];
        int rows = 0;
        CHECK(ctn_joint_get_impulse(w, ci[i].joint, ln_api, &rows) == CTN_OK && rows == 3, "impulse of contact %lld", ID_INT(ci[i].joint));
        if (ln_api[0] < 0.0 || ln < 0.0) bad_n++;
        if (lt > ci[i].friction * ln * (1.0 + 1e-5) + 1e-9) bad_t++;
    }
    CHECK(bad_n == 0, "%s: %d of %d contacts pull (lambda_n < 0)", what, bad_n, n);
    CHECK(bad_t == 0, "%s: %d of %d contacts outside the friction cone", what, bad_t, n);
    free(ci);
    return n;
}

static void test_box_rest(void) {
    ctn_world *w = make_world(4, 4);
    const double he[3] = {0.5, 0.25, 0.4}, at[3] = {1.0, 0.25, -2.0};
    fixture_floor(w, 0.6);
    ctn_body_id box = fixture_box(w, CTN_BODY_DYNAMIC, 2.0, he, at, NULL, ctn_shape_desc_default(CTN_SHAPE_BOX).friction);
    int min_contacts = 100, max_contacts = 0;
    for (int i = 0; i < 600; ++i) { /* 10 s */
        ctn_status st = ctn_world_step(w);
        CHECK(st == CTN_OK, "step %d: %s", i, ctn_world_last_error(w));
        if (st != CTN_OK) break;
        int n = check_contacts(w, "box");
        if (n < min_contacts) min_contacts = n;
        if (n > max_contacts) max_contacts = n;
    }
    ctn_body_state s;
    ctn_body_get_state(w, box, &s);
    double drift = hypot(s.position[0] - 1.0, s.position[2] + 2.0);
    CHECK(drift < 1e-3, "box drifted %g m sideways in 10 s", drift);
    CHECK(fabs(s.position[1] - 0.25) < 2e-3, "box height %g (rest 0.25)", s.position[1]);
    double tilt = 2.0 * sqrt(s.orientation[1] * s.orientation[1] + s.orientation[2] * s.orientation[2] + s.orientation[3] * s.orientation[3]);
    CHECK(tilt < 1e-3, "box turned %g rad", tilt);
    CHECK(min_contacts == 4 && max_contacts == 4, "bottom corners in contact: %d..%d (expected 4)", min_contacts, max_contacts);
    ctn_step_stats st;
    ctn_world_get_stats(w, &st);
    CHECK(st.contacts == 4, "stats.contacts %d", st.contacts);
    CHECK(st.max_gap < 2e-3, "penetration %g m", st.max_gap);
    /* no joints: max_gap is the contacts' depth, reported as such (max_penetration), and no joint gap */
    CHECK(st.max_joint_gap == 0.0 && st.max_penetration > 0.0 && fabs(st.max_penetration - st.max_gap) <= 1e-6,
          "split: joint gap %g m, penetration %g m, max_gap %g m", st.max_joint_gap, st.max_penetration, st.max_gap);
    printf("box rest: drift %.3g m, height %.6f, tilt %.3g rad, penetration %.3g m\n", drift, s.position[1], tilt, st.max_gap);
    ctn_world_destroy(w);
}

/* A sphere (particle: no rotation, or rigid: rolls) on a plane tilted by theta about z; returns the
 * acceleration down the slope measured between t = 1 s and t = 2 s, and the distance moved by then. */
static double slope_run(double theta, double mu, int particle, double *moved) {
    ctn_world *w = make_world(4, 8);
    double n[3] = {-sin(theta), cos(theta), 0.0};
    CHECK(ctn_world_add_plane(w, n, 0.0, mu, 0.0, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    const double r = 0.1;
    ctn_body_desc bd = ctn_body_desc_default();
    bd.particle = particle;
    bd.mass = 1.0;
    ctn_inertia_sphere(bd.mass, r, bd.inertia);
    for (int k = 0; k < 3; ++k) bd.position[k] = n[k] * r;
    ctn_body_id b;
    CHECK(ctn_body_add(w, &bd, &b) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_shape_desc sh = ctn_shape_desc_default(CTN_SHAPE_SPHERE);
    sh.radius = r;
    sh.friction = 1.0; /* the pair uses sqrt(1 * mu) */
    CHECK(ctn_body_set_shape(w, b, &sh) == CTN_OK, "%s", ctn_world_last_error(w));
    double mu_pair = sqrt(mu);
    (void)mu_pair;
    const double down[3] = {-cos(theta), -sin(theta), 0.0};
    double v1 = 0.0, v2 = 0.0;
    for (int i = 1; i <= 120; ++i) {
        ctn_status st = ctn_world_step(w);
        CHECK(st == CTN_OK, "step: %s", ctn_world_last_error(w));
        if (st != CTN_OK) break;
        check_contacts(w, "slope");
        ctn_body_state s;
        ctn_body_get_state(w, b, &s);
        double v = s.velocity[0] * down[0] + s.velocity[1] * down[1];
        if (i == 60) v1 = v;
        if (i == 120) {
            v2 = v;
            *moved = s.position[0] * down[0] + s.position[1] * down[1];
        }
    }
    ctn_world_destroy(w);
    return v2 - v1;
}

static void test_slope(void) {
    const double g = 9.81, mu_pair = 0.4, mu_plane = mu_pair * mu_pair; /* shape friction 1: pair mu = sqrt(mu_plane) */
    double crit = atan(mu_pair), moved = 0.0;
    /* below atan(mu): sticks */
    double a = slope_run(crit - 0.05, mu_plane, 1, &moved);
    CHECK(fabs(moved) < 1e-3 && fabs(a) < 1e-3, "stick below atan(mu): moved %g m, acceleration %g", moved, a);
    printf("slope %.3f rad (< atan mu = %.3f): moved %.3g m in 2 s\n", crit - 0.05, crit, moved);
    /* above: slides with g (sin - mu cos) */
    for (int k = 0; k < 2; ++k) {
        double th = crit + (k == 0 ? 0.1 : 0.4);
        double want = g * (sin(th) - mu_pair * cos(th));
        a = slope_run(th, mu_plane, 1, &moved);
        CHECK(fabs(a - want) <= 0.05 * want, "slide at %.3f rad: acceleration %g, expected %g (5%%)", th, a, want);
        printf("slope %.3f rad: acceleration %.4f, g(sin - mu cos) = %.4f (%.2f%%)\n", th, a, want, 100.0 * (a - want) / want);
    }
    /* a rigid ball rolls without slipping while tan(theta) < 3.5 mu: a = 5/7 g sin(theta) */
    double th = 0.35, want = 5.0 / 7.0 * g * sin(th);
    a = slope_run(th, mu_plane, 0, &moved);
    CHECK(fabs(a - want) <= 0.05 * want, "rolling: acceleration %g, expected 5/7 g sin = %g", a, want);
    printf("rolling ball at %.2f rad: acceleration %.4f, 5/7 g sin = %.4f\n", th, a, want);
}

static void test_user_contacts(void) {
    ctn_world *w = make_world(4, 4);
    ctn_body_desc bd = ctn_body_desc_default();
    bd.position[1] = 0.5;
    ctn_body_id b;
    ctn_body_add(w, &bd, &b);
    ctn_contact_desc cd = ctn_contact_desc_default();
    cd.body_a = b;
    cd.body_b = CTN_WORLD;
    cd.point[1] = 0.0;
    cd.depth = 0.0;
    ctn_joint_id c = CTN_NULL_JOINT;
    /* validation */
    cd.normal[1] = 0.0;
    CHECK(ctn_contact_add(w, &cd, &c) == CTN_ERR_INVALID_ARGUMENT, "zero normal accepted");
    cd.normal[1] = 1.0;
    cd.friction = -1.0;
    CHECK(ctn_contact_add(w, &cd, &c) == CTN_ERR_INVALID_ARGUMENT, "negative friction accepted");
    cd.friction = 0.5;
    cd.body_b = HBODY(w, 99);
    CHECK(ctn_contact_add(w, &cd, &c) == CTN_ERR_NOT_FOUND, "unknown body accepted");
    cd.body_b = CTN_WORLD;
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_CONTACT);
    jd.body_a = b;
    CHECK(ctn_joint_add(w, &jd, NULL) == CTN_ERR_INVALID_ARGUMENT, "ctn_joint_add accepted a contact");
    /* the body (a unit cube resting on its centre 0.5 m up) sits on a contact at the origin */
    CHECK(ctn_contact_add(w, &cd, &c) == CTN_OK, "%s", ctn_world_last_error(w));
    /* anchors on the bottom face: offset the point, contacts at four corners */
    ctn_joint_id cs[4];
    CHECK(ctn_contact_remove(w, c) == CTN_OK, "%s", ctn_world_last_error(w));
    for (int k = 0; k < 4; ++k) {
        cd.point[0] = k & 1 ? 0.5 : -0.5;
        cd.point[2] = k & 2 ? 0.5 : -0.5;
        CHECK(ctn_contact_add(w, &cd, &cs[k]) == CTN_OK, "%s", ctn_world_last_error(w));
    }
    for (int i = 0; i < 120; ++i) {
        CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        check_contacts(w, "user");
    }
    ctn_body_state s;
    ctn_body_get_state(w, b, &s);
    CHECK(fabs(s.position[1] - 0.5) < 1e-3, "cube on user contacts at height %g", s.position[1]);
    double imp[6], sum = 0.0;
    int rows;
    for (int k = 0; k < 4; ++k) {
        ctn_joint_get_impulse(w, cs[k], imp, &rows);
        sum += imp[0];
    }
    /* impulses of the last substep, scaled by nothing: sum lambda_n = m g h_sub */
    double want = 9.81 * (1.0 / 60.0) / 4.0;
    CHECK(fabs(sum - want) < 0.02 * want, "normal impulses sum %g, m g h = %g", sum, want);
    /* update: a contact that moves keeps working */
    cd.point[0] = 0.5, cd.point[2] = 0.5;
    CHECK(ctn_contact_update(w, cs[3], &cd) == CTN_OK, "%s", ctn_world_last_error(w));
    cd.body_a = CTN_WORLD;
    CHECK(ctn_contact_update(w, cs[3], &cd) != CTN_OK, "update with other bodies accepted");
    int n = 0;
    ctn_world_get_contacts(w, NULL, 0, &n);
    CHECK(n == 4, "%d contacts listed", n);
    CHECK(ctn_body_remove(w, b) == CTN_ERR_IN_USE, "body with user contacts removed");
    ctn_world_destroy(w);
}

static void test_shape_api(void) {
    ctn_world *w = make_world(4, 4);
    ctn_body_desc bd = ctn_body_desc_default();
    bd.particle = 1;
    ctn_body_id p;
    ctn_body_add(w, &bd, &p);
    ctn_shape_desc sh = ctn_shape_desc_default(CTN_SHAPE_BOX);
    CHECK(ctn_body_set_shape(w, p, &sh) == CTN_ERR_INVALID_ARGUMENT, "box on a particle accepted");
    sh = ctn_shape_desc_default(CTN_SHAPE_SPHERE);
    sh.radius = -1.0;
    CHECK(ctn_body_set_shape(w, p, &sh) == CTN_ERR_INVALID_ARGUMENT, "negative radius accepted");
    CHECK(ctn_body_set_shape(w, HBODY(w, 42), &sh) == CTN_ERR_NOT_FOUND, "unknown body accepted");
    const double zero[3] = {0, 0, 0};
    CHECK(ctn_world_add_plane(w, zero, 0.0, 0.5, 0.0, NULL) == CTN_ERR_INVALID_ARGUMENT, "zero plane normal accepted");
    ctn_collision_desc cd = ctn_collision_desc_default();
    cd.margin = -1.0;
    CHECK(ctn_world_set_collision(w, &cd) == CTN_ERR_INVALID_ARGUMENT, "negative margin accepted");
    /* removing a body drops its built-in contacts */
    const double up[3] = {0, 1, 0};
    sh.radius = 0.1;
    bd.position[1] = 0.1;
    ctn_body_id q;
    ctn_body_add(w, &bd, &q);
    CHECK(ctn_body_set_shape(w, q, &sh) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_world_add_plane(w, up, 0.0, 0.5, 0.0, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    for (int i = 0; i < 10; ++i) ctn_world_step(w);
    int n = 0;
    ctn_world_get_contacts(w, NULL, 0, &n);
    CHECK(n == 1, "sphere on floor: %d contacts", n);
    CHECK(ctn_body_remove(w, q) == CTN_OK, "remove body with built-in contacts: %s", ctn_world_last_error(w));
    CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_world_get_contacts(w, NULL, 0, &n);
    CHECK(n == 0, "%d contacts after removal", n);
    ctn_world_destroy(w);
}

/* A box resting on the floor next to a sphere held by a ball joint: the API reports the joint's error and
 * the contacts' depth apart, so the depth of the resting box does not read as a joint gap. */
static void test_joint_and_contact_apart(void) {
    ctn_world *w = make_world(4, 4);
    const double he[3] = {0.5, 0.25, 0.4}, at[3] = {1.0, 0.25, -2.0};
    fixture_floor(w, 0.6);
    fixture_box(w, CTN_BODY_DYNAMIC, 2.0, he, at, NULL, ctn_shape_desc_default(CTN_SHAPE_BOX).friction);
    ctn_body_desc b = ctn_body_desc_default();
    b.mass = 1.0;
    ctn_inertia_sphere(1.0, 0.1, b.inertia);
    b.position[0] = -2.0, b.position[1] = 1.5;
    ctn_body_id ball;
    CHECK(ctn_body_add(w, &b, &ball) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_joint_desc j = ctn_joint_desc_default(CTN_JOINT_BALL);
    j.body_a = ball;
    j.body_b = CTN_WORLD;
    const double pivot[3] = {-2.0, 2.0, 0.0};
    CHECK(ctn_joint_desc_set_pivot(w, &j, pivot, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_joint_add(w, &j, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    for (int i = 0; i < 60; ++i) CHECK(ctn_world_step(w) == CTN_OK, "step %d: %s", i, ctn_world_last_error(w));
    double depth = check_joint_split(w, "box and ball joint");
    double gap = -1, angle = -1;
    ctn_world_measure(w, &gap, &angle);
    ctn_step_stats st;
    ctn_world_get_stats(w, &st);
    CHECK(st.contacts == 4 && depth > 0.0 && depth == st.max_penetration, "4 contacts (%d), depth %g m (stats %g m)", st.contacts, depth,
          st.max_penetration);
    /* the joint holds far better than the box sinks: a measure that mixed them in would read the depth */
    CHECK(gap < 0.1 * depth && st.max_gap == fmax(st.max_joint_gap, st.max_penetration), "joint gap %g m, depth %g m, max_gap %g m", gap,
          depth, st.max_gap);
    printf("box and ball joint: joint gap %.3g m, contact depth %.3g m\n", gap, depth);
    ctn_world_destroy(w);
}

int main(void) {
    test_box_rest();
    test_joint_and_contact_apart();
    test_slope();
    test_user_contacts();
    test_shape_api();
    return check_report("contact");
}
