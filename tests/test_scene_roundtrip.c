/* Scene files round trip: a world built in C with every feature a scene file can express (world settings,
 * collision settings, dynamic / static / kinematic bodies, particles, forces, the three shapes with their
 * materials, planes, distance joints with the rope flag, balls, hinges with limits and a motor, fixed
 * joints, springs, compliance per joint, placed and attached generators) is written by
 * ctn_scene_save_json, loaded into a fresh world, and both step bitwise the same. Writing the loaded world
 * again gives the same file. Skipped (77) in a build without cJSON. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "ids.h"
#include "check.h"
#include "files.h"

#include <stdlib.h>
#include <string.h>

#define STEPS 40

static ctn_body_id add_body(ctn_world *w, ctn_body_type type, int particle, const double pos[3], const ctn_shape_desc *shape) {
    ctn_body_desc b = ctn_body_desc_default();
    b.type = type;
    b.particle = particle;
    b.mass = 0.7;
    double he[3] = {0.2, 0.1, 0.05};
    ctn_inertia_box(b.mass, he, b.inertia);
    memcpy(b.position, pos, sizeof b.position);
    double q[4] = {0.9, 0.1, -0.3, 0.2};
    if (!particle) memcpy(b.orientation, q, sizeof q);
    b.velocity[0] = 0.3, b.velocity[2] = -0.1;
    if (!particle) b.angular_velocity[1] = 0.5;
    ctn_body_id id = CTN_NULL_BODY;
    CHECK(ctn_body_add(w, &b, &id) == CTN_OK, "body: %s", ctn_world_last_error(w));
    if (shape) CHECK(ctn_body_set_shape(w, id, shape) == CTN_OK, "shape: %s", ctn_world_last_error(w));
    return id;
}

static ctn_joint_id add_joint(ctn_world *w, ctn_joint_type type, ctn_body_id a, ctn_body_id b, const double pivot[3], double compliance) {
    ctn_joint_desc d = ctn_joint_desc_default(type);
    d.body_a = a;
    d.body_b = b;
    d.compliance = compliance;
    double axis[3] = {0.0, 0.6, 0.8};
    CHECK(ctn_joint_desc_set_pivot(w, &d, pivot, type == CTN_JOINT_HINGE ? axis : NULL) == CTN_OK, "pivot: %s", ctn_world_last_error(w));
    if (type == CTN_JOINT_DISTANCE || type == CTN_JOINT_SPRING) {
        d.anchor_a[0] = 0.1; /* separate anchors */
        d.rest_length = 0.45;
        d.stiffness = 120.0, d.damping = 1.5;
    }
    ctn_joint_id id = CTN_NULL_JOINT;
    CHECK(ctn_joint_add(w, &d, &id) == CTN_OK, "joint: %s", ctn_world_last_error(w));
    return id;
}

/* Every feature, on a world with non-default settings. */
static void build(ctn_world *w) {
    ctn_shape_desc sphere = ctn_shape_desc_default(CTN_SHAPE_SPHERE), capsule = ctn_shape_desc_default(CTN_SHAPE_CAPSULE),
                   box = ctn_shape_desc_default(CTN_SHAPE_BOX);
    sphere.radius = 0.12, sphere.friction = 0.3, sphere.restitution = 0.4;
    capsule.radius = 0.05, capsule.half_length = 0.2, capsule.friction = 0.9;
    box.half_extents[0] = 0.2, box.half_extents[1] = 0.1, box.half_extents[2] = 0.05, box.restitution = 0.2;
    double p0[3] = {0.0, 1.0, 0.0}, p1[3] = {0.5, 1.1, 0.1}, p2[3] = {1.0, 0.9, -0.1}, p3[3] = {1.5, 1.3, 0.0}, p4[3] = {2.0, 0.5, 0.3},
           p5[3] = {-1.0, 2.0, 0.0}, p6[3] = {-1.5, 0.2, 0.0};
    ctn_body_id a = add_body(w, CTN_BODY_DYNAMIC, 0, p0, &box);
    ctn_body_id b = add_body(w, CTN_BODY_DYNAMIC, 0, p1, &capsule);
    ctn_body_id c = add_body(w, CTN_BODY_DYNAMIC, 1, p2, &sphere);
    ctn_body_id d = add_body(w, CTN_BODY_DYNAMIC, 0, p3, NULL);
    ctn_body_id s = add_body(w, CTN_BODY_STATIC, 0, p4, &box);
    ctn_body_id k = add_body(w, CTN_BODY_KINEMATIC, 0, p5, NULL);
    ctn_body_id e = add_body(w, CTN_BODY_DYNAMIC, 0, p6, &sphere);
    double p7[3] = {-2.5, -0.45, 0.0};
    add_body(w, CTN_BODY_DYNAMIC, 0, p7, &sphere); /* on the floor: contacts */
    double f[3] = {0.5, 0.0, -0.2}, t[3] = {0.0, 0.1, 0.0};
    CHECK(ctn_body_set_force(w, d, f, t) == CTN_OK, "force");
    CHECK(ctn_body_set_name(w, k, "hub \"7\"") == CTN_OK && ctn_body_set_name(w, a, "arm") == CTN_OK, "names");
    double up[3] = {0.0, 1.0, 0.0}, tilted[3] = {0.3, 1.0, 0.1};
    CHECK(ctn_world_add_plane(w, up, -0.5, 0.7, 0.1, NULL) == CTN_OK, "plane");
    CHECK(ctn_world_add_plane(w, tilted, -1.0, 0.4, 0.0, NULL) == CTN_OK, "tilted plane");
    add_joint(w, CTN_JOINT_BALL, a, CTN_WORLD, p0, -1.0);
    ctn_joint_id hinge = add_joint(w, CTN_JOINT_HINGE, b, a, p1, 1e-6);
    CHECK(ctn_joint_set_limits(w, hinge, 1, -0.4, 0.6) == CTN_OK, "limits: %s", ctn_world_last_error(w));
    CHECK(ctn_joint_set_motor(w, hinge, 1, 1.5, 2.0) == CTN_OK, "motor: %s", ctn_world_last_error(w));
    ctn_joint_id rope = add_joint(w, CTN_JOINT_DISTANCE, c, b, p1, 1e-5);
    CHECK(ctn_joint_set_rope(w, rope, 1) == CTN_OK, "rope");
    add_joint(w, CTN_JOINT_FIXED, d, k, p3, -1.0);
    add_joint(w, CTN_JOINT_SPRING, e, s, p6, -1.0);
    ctn_joint_id world_hinge = add_joint(w, CTN_JOINT_HINGE, e, CTN_WORLD, p6, -1.0);
    CHECK(ctn_joint_set_limits(w, world_hinge, 1, -1.0, 1.0) == CTN_OK, "world hinge limits");
    ctn_chain_desc chain = ctn_chain_desc_default(12);
    chain.origin[0] = 3.0, chain.origin[1] = 2.0;
    CHECK(ctn_scene_chain(w, &chain, NULL) == CTN_OK, "chain: %s", ctn_world_last_error(w));
    ctn_collision_desc col = ctn_collision_desc_default();
    col.margin = 0.02, col.skip_jointed = 0;
    CHECK(ctn_world_set_collision(w, &col) == CTN_OK, "collision settings");
}

static ctn_world_desc settings(void) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.gravity[0] = 0.5, d.gravity[1] = -9.0;
    d.time_step = 0.01, d.substeps = 3, d.iterations = 5, d.solver = CTN_SOLVER_GS;
    d.compliance = 1e-8, d.damping_time = 0.004, d.warm_start = 0.7, d.max_colours = 16, d.threads = 1;
    d.max_speed = 500.0, d.geometric_stiffness = 0.8, d.baumgarte = 0.3, d.rattle_max_joints = 2500;
    return d;
}

static int same_states(ctn_world *x, ctn_world *y, int n) {
    for (int i = 0; i < n; ++i) {
        ctn_body_state a, b;
        if (ctn_body_get_state(x, HBODY(x, i), &a) != CTN_OK || ctn_body_get_state(y, HBODY(y, i), &b) != CTN_OK || memcmp(&a, &b, sizeof a)) {
            fprintf(stderr, "body %d differs: (%.17g %.17g %.17g) vs (%.17g %.17g %.17g)\n", i, a.position[0], a.position[1], a.position[2],
                    b.position[0], b.position[1], b.position[2]);
            return 0;
        }
    }
    return 1;
}

int main(void) {
    ctn_world_desc desc = settings();
    ctn_world *w = NULL, *w2 = NULL;
    char err[1024];
    CHECK(ctn_world_create(&desc, &w, err, sizeof err) == CTN_OK, "create: %s", err);
    build(w);
    const char *path = "scene_roundtrip.json", *again = "scene_roundtrip_again.json";
    CHECK(ctn_scene_save_json(w, path) == CTN_OK, "save: %s", ctn_world_last_error(w));
    ctn_scene *scene = NULL;
    ctn_status st = ctn_scene_parse_file(path, &scene, err, sizeof err);
    if (st == CTN_ERR_UNSUPPORTED) {
        printf("test_scene_roundtrip: skipped: %s\n", err);
        ctn_world_destroy(w);
        return 77;
    }
    CHECK(st == CTN_OK, "parse: %s", err);
    ctn_world_desc loaded;
    int steps = 0;
    ctn_scene_get_settings(scene, &loaded, &steps);
    loaded.backend = CTN_BACKEND_CPU;
    desc.device = loaded.device = NULL;
    CHECK(!memcmp(&loaded, &desc, sizeof desc), "the world settings did not round-trip");
    CHECK(ctn_world_create(&loaded, &w2, err, sizeof err) == CTN_OK, "create 2: %s", err);
    CHECK(ctn_scene_build(scene, w2) == CTN_OK, "build: %s", ctn_world_last_error(w2));
    ctn_scene_free(scene);
    int n = ctn_world_body_count(w);
    CHECK(ctn_world_body_count(w2) == n && ctn_world_joint_count(w2) == ctn_world_joint_count(w), "counts %d/%d bodies, %d/%d joints",
          ctn_world_body_count(w2), n, ctn_world_joint_count(w2), ctn_world_joint_count(w));
    CHECK(same_states(w, w2, n), "the loaded world differs before stepping");
    ctn_body_id hub = CTN_NULL_BODY;
    CHECK(ctn_body_find(w2, "hub \"7\"", &hub) == CTN_OK && ID_INT(hub) == 5, "the body name did not round-trip (found %lld)", ID_INT(hub));
    CHECK(ctn_scene_save_json(w2, again) == CTN_OK, "save again: %s", ctn_world_last_error(w2));
    char *t1 = test_read_file(path, NULL), *t2 = test_read_file(again, NULL);
    CHECK(t1 && t2 && !strcmp(t1, t2), "saving the loaded world gives another file");
    /* every key of the format that the world uses is in the file */
    const char *keys[] = {"\"gravity\"", "\"time_step\"", "\"substeps\"", "\"iterations\"", "\"solver\"", "\"stabilization\"",
                          "\"compliance\"", "\"damping_time\"", "\"baumgarte\"", "\"warm_start\"", "\"max_colours\"", "\"threads\"",
                          "\"max_speed\"", "\"geometric_stiffness\"", "\"rattle_max_joints\"", "\"collision\"", "\"margin\"", "\"skip_jointed\"", "\"enabled\"",
                          "\"kinematic\"", "\"static\"", "\"particle\"", "\"mass\"", "\"inertia\"", "\"orientation\"", "\"velocity\"",
                          "\"angular_velocity\"", "\"force\"", "\"torque\"", "\"sphere\"", "\"capsule\"", "\"box\"", "\"friction\"",
                          "\"restitution\"", "\"planes\"", "\"normal\"", "\"offset\"", "\"distance\"", "\"ball\"", "\"hinge\"", "\"fixed\"",
                          "\"spring\"", "\"rope\"", "\"limits\"", "\"motor\"", "\"max_torque\"", "\"rest_length\"", "\"stiffness\"",
                          "\"damping\"", "\"axis_a\"", "\"axis_b\"", "\"rest_orientation\"", "\"world\"", "\"name\""};
    for (size_t i = 0; t1 && i < sizeof keys / sizeof keys[0]; ++i) CHECK(strstr(t1, keys[i]) != NULL, "the saved scene has no %s", keys[i]);
    free(t1), free(t2);
    int same = 1, contacts = 0;
    for (int s = 0; s < STEPS && same; ++s) {
        CHECK(ctn_world_step(w) == CTN_OK && ctn_world_step(w2) == CTN_OK, "step %d: %s %s", s, ctn_world_last_error(w), ctn_world_last_error(w2));
        same = same_states(w, w2, n);
        CHECK(same, "step %d: the loaded world steps differently", s + 1);
        ctn_step_stats sa, sb;
        ctn_world_get_stats(w, &sa);
        ctn_world_get_stats(w2, &sb);
        CHECK(sa.contacts == sb.contacts, "step %d: %d and %d contacts", s + 1, sa.contacts, sb.contacts);
        if (sa.contacts > contacts) contacts = sa.contacts;
    }
    CHECK(contacts > 0, "no contacts in %d steps (the scene should make some)", STEPS);
    remove(path), remove(again);
    ctn_world_destroy(w);
    ctn_world_destroy(w2);
    return check_report("test_scene_roundtrip");
}
