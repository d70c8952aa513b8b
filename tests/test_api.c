/* The C API's read-back and conveniences: enum names, getters that return what the setters set, body
 * names from scene files, ctn_joint_set_rest_length (a winch reeling a weight up), joint forces in
 * newtons (a hanging mass's joint carries m g) and the last error cleared by a successful call. */
#include "catena/catena.h"
#include "ids.h"
#include "check.h"

#include <string.h>

#define G 9.81

static ctn_world *cpu_world(ctn_solver solver) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.solver = solver;
    ctn_world *w = NULL;
    return ctn_world_create(&d, &w, NULL, 0) == CTN_OK ? w : NULL;
}

static void check_names(void) {
    CHECK(!strcmp(ctn_solver_name(CTN_SOLVER_GS), "gs") && !strcmp(ctn_solver_name(CTN_SOLVER_DIRECT), "direct") &&
              !strcmp(ctn_solver_name(CTN_SOLVER_AUTO), "auto") && !strcmp(ctn_solver_name((ctn_solver)99), "unknown"),
          "solver names");
    CHECK(!strcmp(ctn_backend_name(CTN_BACKEND_OPENCL), "opencl") && !strcmp(ctn_backend_name((ctn_backend)-1), "unknown"), "backend names");
    CHECK(!strcmp(ctn_stabilization_name(CTN_STAB_BAUMGARTE), "baumgarte"), "stabilization names");
    CHECK(!strcmp(ctn_body_type_name(CTN_BODY_KINEMATIC), "kinematic"), "body type names");
    CHECK(!strcmp(ctn_joint_type_name(CTN_JOINT_HINGE), "hinge") && !strcmp(ctn_joint_type_name(CTN_JOINT_CONTACT), "contact"),
          "joint type names");
    CHECK(!strcmp(ctn_shape_type_name(CTN_SHAPE_CAPSULE), "capsule") && !strcmp(ctn_shape_type_name(CTN_SHAPE_NONE), "none"), "shape names");
    CHECK(!strcmp(ctn_log_level_name(CTN_LOG_WARNING), "warning"), "log level names");
    CHECK(!strcmp(ctn_status_name(CTN_ERR_IO), "CTN_ERR_IO") && !strcmp(ctn_status_name((ctn_status)77), "CTN_ERR_UNKNOWN"), "status names");
}

/* Setters and getters agree (to float32, the precision the world stores). */
static void check_getters(void) {
    ctn_world *w = cpu_world(CTN_SOLVER_GS);
    ctn_body_desc b = ctn_body_desc_default(), got;
    b.mass = 2.5;
    b.inertia[0] = 0.1, b.inertia[1] = 0.2, b.inertia[2] = 0.3;
    b.position[0] = 1.0;
    ctn_body_id rigid, kin;
    ctn_body_add(w, &b, &rigid);
    CHECK(ctn_body_get_desc(w, rigid, &got) == CTN_OK && got.type == CTN_BODY_DYNAMIC && !got.particle, "body desc: %s", ctn_world_last_error(w));
    CHECK_NEAR(got.mass, 2.5, 1e-6, "mass");
    CHECK_NEAR(got.inertia[2], 0.3, 1e-6, "inertia z");
    CHECK_NEAR(got.position[0], 1.0, 1e-12, "position x");
    b.type = CTN_BODY_KINEMATIC;
    b.position[0] = 3.0;
    ctn_body_add(w, &b, &kin);
    CHECK(ctn_body_get_desc(w, kin, &got) == CTN_OK && got.type == CTN_BODY_KINEMATIC && got.mass == 0.0, "kinematic body desc");
    double f[3] = {1, 2, 3}, t[3] = {4, 5, 6}, fo[3], to[3];
    ctn_body_set_force(w, rigid, f, t);
    CHECK(ctn_body_get_force(w, rigid, fo, to) == CTN_OK && fo[1] == 2.0 && to[2] == 6.0, "body force");

    ctn_joint_desc h = ctn_joint_desc_default(CTN_JOINT_HINGE), jd;
    h.body_a = rigid;
    h.body_b = CTN_WORLD;
    double pivot[3] = {0, 0, 0}, axis[3] = {0, 0, 1};
    ctn_joint_desc_set_pivot(w, &h, pivot, axis);
    h.compliance = 1e-6;
    ctn_joint_id hinge;
    ctn_joint_add(w, &h, &hinge);
    ctn_joint_set_limits(w, hinge, 1, -0.5, 0.25);
    ctn_joint_set_motor(w, hinge, 1, 2.0, 7.0);
    int on = 0;
    double lo = 0, hi = 0, speed = 0, torque = 0;
    CHECK(ctn_joint_get_limits(w, hinge, &on, &lo, &hi) == CTN_OK && on == 1 && lo == -0.5 && hi == 0.25, "limits %d %g %g", on, lo, hi);
    CHECK(ctn_joint_get_motor(w, hinge, &on, &speed, &torque) == CTN_OK && on == 1 && speed == 2.0 && torque == 7.0, "motor");
    CHECK(ctn_joint_get_desc(w, hinge, &jd) == CTN_OK && jd.type == CTN_JOINT_HINGE && ID_EQ(jd.body_a, rigid) && ctn_body_is_world(jd.body_b), "hinge desc");
    CHECK_NEAR(jd.axis[2], 1.0, 1e-6, "hinge axis");
    CHECK_NEAR(jd.anchor_a[0], -1.0, 1e-6, "hinge anchor a");
    CHECK_NEAR(jd.compliance, 1e-6, 1e-12, "compliance");
    CHECK(ctn_joint_get_rope(w, hinge, &on) == CTN_ERR_INVALID_ARGUMENT && strstr(ctn_world_last_error(w), "hinge joint, not a distance"),
          "rope of a hinge: '%s'", ctn_world_last_error(w));

    ctn_joint_desc s = ctn_joint_desc_default(CTN_JOINT_SPRING);
    s.body_a = kin;
    s.body_b = rigid;
    s.stiffness = 100.0;
    s.damping = 3.0;
    s.rest_length = 1.5;
    ctn_joint_id spring;
    ctn_joint_add(w, &s, &spring);
    CHECK(ctn_joint_get_desc(w, spring, &jd) == CTN_OK && jd.stiffness == 100.0 && jd.damping == 3.0 && jd.rest_length == 1.5, "spring desc");
    CHECK(ctn_joint_set_rest_length(w, spring, 0.75) == CTN_OK && ctn_joint_get_desc(w, spring, &jd) == CTN_OK && jd.rest_length == 0.75,
          "spring rest length set");
    CHECK(ctn_joint_set_rest_length(w, hinge, 1.0) == CTN_ERR_INVALID_ARGUMENT && strstr(ctn_world_last_error(w), "not a distance or spring"),
          "rest length of a hinge: '%s'", ctn_world_last_error(w));
    CHECK(ctn_joint_set_rest_length(w, spring, -1.0) == CTN_ERR_INVALID_ARGUMENT && strstr(ctn_world_last_error(w), "rest_length -1"),
          "negative rest length: '%s'", ctn_world_last_error(w));

    ctn_shape_desc sh = ctn_shape_desc_default(CTN_SHAPE_CAPSULE), sg;
    sh.radius = 0.05;
    sh.half_length = 0.2;
    sh.friction = 0.7;
    ctn_body_set_shape(w, rigid, &sh);
    CHECK(ctn_body_get_shape(w, rigid, &sg) == CTN_OK && sg.type == CTN_SHAPE_CAPSULE && fabs(sg.half_length - 0.2) < 1e-6 && fabs(sg.friction - 0.7) < 1e-6,
          "shape");
    CHECK(ctn_body_get_shape(w, kin, &sg) == CTN_OK && sg.type == CTN_SHAPE_NONE, "no shape");
    ctn_collision_desc cd = ctn_collision_desc_default(), cg;
    cd.margin = 0.03;
    ctn_world_set_collision(w, &cd);
    CHECK(ctn_world_get_collision(w, &cg) == CTN_OK && cg.margin == 0.03, "collision settings");
    double n[3] = {0, 2, 0}, pn[3], off, mu, e;
    ctn_world_add_plane(w, n, -1.0, 0.4, 0.5, NULL);
    CHECK(ctn_world_plane_count(w) == 1 && ctn_world_get_plane(w, 0, pn, &off, &mu, &e) == CTN_OK && pn[1] == 1.0 && off == -1.0 && e == 0.5,
          "plane");
    CHECK(ctn_world_get_plane(w, 1, pn, &off, &mu, &e) == CTN_ERR_NOT_FOUND, "plane out of range");
    ctn_world_destroy(w);
}

/* A particle of mass m hanging at rest on a distance joint from the world carries m g up; a rigid
 * pendulum bob at rest under a ball joint the same, with no torque about its centre when the pivot is
 * straight above it. The bulk read gives the same numbers. */
static void check_joint_force(void) {
    const double m = 3.0;
    ctn_world *w = cpu_world(CTN_SOLVER_GS);
    ctn_body_desc b = ctn_body_desc_default();
    b.mass = m;
    b.particle = 1;
    b.position[1] = -1.0;
    ctn_body_id p, r;
    ctn_body_add(w, &b, &p);
    b.particle = 0;
    b.position[0] = 2.0;
    ctn_inertia_sphere(m, 0.1, b.inertia);
    ctn_body_add(w, &b, &r);
    ctn_joint_desc d = ctn_joint_desc_default(CTN_JOINT_DISTANCE);
    d.body_a = p;
    d.body_b = CTN_WORLD;
    ctn_joint_id dist, ball;
    ctn_joint_add(w, &d, &dist);
    ctn_joint_desc bd = ctn_joint_desc_default(CTN_JOINT_BALL);
    bd.body_a = r;
    double pivot[3] = {2.0, 0.0, 0.0};
    ctn_joint_desc_set_pivot(w, &bd, pivot, NULL);
    ctn_joint_add(w, &bd, &ball);
    double f[3], t[3];
    CHECK(ctn_joint_get_force(w, dist, f, t) == CTN_OK && f[0] == 0.0 && f[1] == 0.0, "zero before the first step");
    for (int i = 0; i < 120; ++i) ctn_world_step(w);
    CHECK(ctn_joint_get_force(w, dist, f, t) == CTN_OK, "get force: %s", ctn_world_last_error(w));
    CHECK_NEAR(f[1], m * G, 1e-3 * m * G, "distance joint force on a hanging particle (N)");
    CHECK_NEAR(f[0], 0.0, 1e-6, "no sideways force");
    CHECK(ctn_joint_get_force(w, ball, f, t) == CTN_OK, "get force");
    CHECK_NEAR(f[1], m * G, 1e-3 * m * G, "ball joint force on a hanging bob (N)");
    CHECK_NEAR(t[0] + t[1] + t[2], 0.0, 1e-3, "no torque on a bob hanging straight down");
    double all[12];
    int written = 0;
    CHECK(ctn_world_get_joint_forces(w, all, 2, &written) == CTN_OK && written == 2, "bulk read");
    CHECK(all[6 + 1] == f[1] && all[1] > 0.0, "bulk equals single: %g %g", all[7], f[1]);
    CHECK(ctn_joint_get_force(w, HJOINT(w, 7), f, t) == CTN_ERR_NOT_FOUND, "unknown joint");
    ctn_world_destroy(w);
}

/* A winch: a 5 kg weight on a 2 m cable (a distance joint) from a drum at the origin; the cable is reeled
 * in at 0.25 m/s for 4 s (ctn_joint_set_rest_length every step), the weight rises to 1 m below the drum,
 * and once the winch stops the cable holds it with a tension of m g. (While reeling, each step's 4 mm is
 * taken up in the first substeps and braked in the last, so the last substep's force, which
 * ctn_joint_get_force reports, is not the step's mean there.) */
static void check_winch(void) {
    const double m = 5.0;
    ctn_world *w = cpu_world(CTN_SOLVER_GS);
    ctn_body_desc b = ctn_body_desc_default();
    b.mass = m;
    b.particle = 1;
    b.position[1] = -2.0;
    ctn_body_id weight;
    ctn_body_add(w, &b, &weight);
    ctn_joint_desc d = ctn_joint_desc_default(CTN_JOINT_DISTANCE);
    d.body_a = weight;
    ctn_joint_id cable;
    ctn_joint_add(w, &d, &cable);
    double length = 2.0, dt = 1.0 / 60.0, f[3], t[3];
    int reeled = 1;
    for (int i = 0; i < 60; ++i) ctn_world_step(w); /* settle */
    for (int i = 0; i < 240; ++i) {
        length -= 0.25 * dt;
        reeled &= ctn_joint_set_rest_length(w, cable, length) == CTN_OK;
        ctn_world_step(w);
    }
    CHECK(reeled, "reeling: %s", ctn_world_last_error(w));
    ctn_body_state s;
    ctn_body_get_state(w, weight, &s);
    CHECK_NEAR(s.position[1], -1.0, 5e-3, "the weight is reeled up to 1 m below the drum");
    for (int i = 0; i < 120; ++i) ctn_world_step(w); /* the winch stops; the weight comes to rest */
    ctn_body_get_state(w, weight, &s);
    CHECK_NEAR(s.position[1], -1.0, 1e-3, "the cable holds the weight at 1 m");
    CHECK(ctn_joint_get_force(w, cable, f, t) == CTN_OK, "force: %s", ctn_world_last_error(w));
    CHECK_NEAR(f[1], m * G, 1e-3 * m * G, "cable tension holding the weight (N)");
    ctn_joint_desc jd;
    ctn_joint_get_desc(w, cable, &jd);
    CHECK_NEAR(jd.rest_length, 1.0, 1e-5, "rest length read back");
    ctn_world_destroy(w);
}

/* Names from a scene file; ctn_body_find; the name goes with its body. */
static void check_names_from_scene(void) {
    const char *text = "{\"bodies\": [{\"name\": \"anchor\", \"type\": \"static\"},"
                       " {\"name\": \"bob\", \"mass\": 1, \"particle\": true, \"position\": [0, -1, 0]}],"
                       " \"constraints\": [{\"type\": \"distance\", \"a\": \"bob\", \"b\": \"anchor\"}]}";
    ctn_scene *scene = NULL;
    char err[512] = "";
    ctn_status st = ctn_scene_parse_text(text, strlen(text), "names.json", &scene, err, sizeof err);
    if (st == CTN_ERR_UNSUPPORTED) {
        printf("scene names: no JSON support in this build, not checked\n");
        return;
    }
    CHECK(st == CTN_OK, "parse: %s", err);
    ctn_world *w = cpu_world(CTN_SOLVER_GS);
    ctn_body_desc b = ctn_body_desc_default();
    ctn_body_add(w, &b, NULL); /* the scene's bodies come after this one */
    CHECK(ctn_scene_build(scene, w) == CTN_OK, "build: %s", ctn_world_last_error(w));
    ctn_scene_free(scene);
    ctn_body_id bob = CTN_NULL_BODY, anchor = CTN_NULL_BODY;
    const char *name = NULL;
    CHECK(ctn_body_find(w, "bob", &bob) == CTN_OK && ID_INT(bob) == 2, "find bob: %lld %s", ID_INT(bob), ctn_world_last_error(w));
    CHECK(ctn_body_find(w, "anchor", &anchor) == CTN_OK && ID_INT(anchor) == 1, "find anchor");
    CHECK(ctn_body_get_name(w, bob, &name) == CTN_OK && !strcmp(name, "bob"), "get name");
    CHECK(ctn_body_get_name(w, HBODY(w, 0), &name) == CTN_OK && !strcmp(name, ""), "unnamed body");
    CHECK(ctn_body_find(w, "nobody", &bob) == CTN_ERR_NOT_FOUND && strstr(ctn_world_last_error(w), "no body is named 'nobody'"), "missing name");
    CHECK(ctn_body_set_name(w, HBODY(w, 0), "base") == CTN_OK && ctn_body_find(w, "base", &bob) == CTN_OK && ID_INT(bob) == 0, "set name");
    ctn_body_remove(w, HBODY(w, 0));
    CHECK(ctn_body_find(w, "base", &bob) == CTN_ERR_NOT_FOUND, "a removed body's name goes with it");
    ctn_world_destroy(w);
}

/* ctn_world_last_error describes the latest call: a success clears the message of an earlier failure. */
static void check_last_error(void) {
    ctn_world *w = cpu_world(CTN_SOLVER_GS);
    ctn_body_state s;
    CHECK(ctn_body_get_state(w, HBODY(w, 42), &s) == CTN_ERR_NOT_FOUND && strstr(ctn_world_last_error(w), "42"), "failure recorded");
    ctn_body_desc b = ctn_body_desc_default();
    ctn_body_id id;
    CHECK(ctn_body_add(w, &b, &id) == CTN_OK && !strcmp(ctn_world_last_error(w), ""), "cleared by a success: '%s'", ctn_world_last_error(w));
    CHECK(ctn_body_get_state(w, HBODY(w, 42), &s) == CTN_ERR_NOT_FOUND, "failure again");
    CHECK(ctn_world_step(w) == CTN_OK && !strcmp(ctn_world_last_error(w), ""), "cleared by a step: '%s'", ctn_world_last_error(w));
    ctn_world_destroy(w);
}

/* The library's run-time version is the header's, as a string and as one number. */
static void check_version(void) {
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", CATENA_VERSION_MAJOR, CATENA_VERSION_MINOR, CATENA_VERSION_PATCH);
    CHECK(ctn_version() && !strcmp(ctn_version(), want), "ctn_version() '%s', header %s", ctn_version(), want);
    CHECK(ctn_version_number() == CATENA_VERSION_NUMBER, "ctn_version_number() %d, header %d", ctn_version_number(), CATENA_VERSION_NUMBER);
    CHECK(ctn_version_number() / 10000 == CATENA_VERSION_MAJOR && ctn_version_number() % 100 == CATENA_VERSION_PATCH, "number layout");
}

int main(void) {
    check_version();
    check_names();
    check_getters();
    check_joint_force();
    check_winch();
    check_names_from_scene();
    check_last_error();
    return check_report("api");
}
