/* Every invalid input returns the right status, a message naming the offending field, and leaves the
 * world unchanged (body states and counts identical before and after; a step after a failed call works). */
#include "catena/catena.h"
#include "ids.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

static ctn_world *w;
static ctn_body_id rigid, rigid2, particle, removed_body;
static ctn_joint_id joint, removed_joint;

typedef struct snapshot {
    int bodies, joints;
    ctn_body_state s[8];
} snapshot;

static snapshot snap(void) {
    snapshot s;
    memset(&s, 0, sizeof s);
    s.bodies = ctn_world_body_count(w);
    s.joints = ctn_world_joint_count(w);
    ctn_body_id ids[3] = {rigid, rigid2, particle};
    for (int i = 0; i < 3; ++i) ctn_body_get_state(w, ids[i], &s.s[i]);
    return s;
}

/* Checks status, message and that nothing changed. */
#define EXPECT(call, status, field)                                                                                       \
    do {                                                                                                                  \
        snapshot before_ = snap();                                                                                        \
        ctn_status st_ = (call);                                                                                          \
        CHECK(st_ == (status), "%s returned %s, expected %s (%s)", #call, ctn_status_name(st_), ctn_status_name(status),  \
              ctn_world_last_error(w));                                                                                   \
        CHECK(strstr(ctn_world_last_error(w), field) != NULL, "%s: message '%s' does not name '%s'", #call,              \
              ctn_world_last_error(w), field);                                                                            \
        snapshot after_ = snap();                                                                                         \
        CHECK(memcmp(&before_, &after_, sizeof before_) == 0, "%s changed the world", #call);                             \
    } while (0)

int main(void) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);

    ctn_body_desc b = ctn_body_desc_default();
    CHECK(ctn_body_add(w, &b, &rigid) == CTN_OK, "%s", ctn_world_last_error(w));
    b.position[0] = 1.0;
    CHECK(ctn_body_add(w, &b, &rigid2) == CTN_OK, "%s", ctn_world_last_error(w));
    b.particle = 1, b.position[1] = -1.0;
    CHECK(ctn_body_add(w, &b, &particle) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_body_add(w, &b, &removed_body) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_body_remove(w, removed_body) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_BALL);
    jd.body_a = rigid, jd.body_b = rigid2;
    double piv[3] = {0.5, 0, 0};
    ctn_joint_desc_set_pivot(w, &jd, piv, NULL);
    CHECK(ctn_joint_add(w, &jd, &joint) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_joint_add(w, &jd, &removed_joint) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_joint_remove(w, removed_joint) == CTN_OK, "%s", ctn_world_last_error(w));
    jd.type = CTN_JOINT_DISTANCE, jd.body_a = particle, jd.body_b = CTN_WORLD;
    memset(jd.anchor_b, 0, sizeof jd.anchor_b);
    CHECK(ctn_joint_add(w, &jd, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));

    /* ---- NULL world: no message to read, status only ---- */
    CHECK(ctn_world_step(NULL) == CTN_ERR_INVALID_ARGUMENT, "step(NULL)");
    CHECK(ctn_body_add(NULL, &b, NULL) == CTN_ERR_INVALID_ARGUMENT, "body_add(NULL)");
    CHECK(ctn_joint_add(NULL, &jd, NULL) == CTN_ERR_INVALID_ARGUMENT, "joint_add(NULL)");
    CHECK(ctn_body_remove(NULL, HBODY(NULL, 0)) == CTN_ERR_INVALID_ARGUMENT, "body_remove(NULL)");
    CHECK(ctn_joint_remove(NULL, HJOINT(NULL, 0)) == CTN_ERR_INVALID_ARGUMENT, "joint_remove(NULL)");
    CHECK(ctn_world_set_desc(NULL, &d) == CTN_ERR_INVALID_ARGUMENT, "set_desc(NULL)");
    CHECK(ctn_world_get_desc(NULL, &d) == CTN_ERR_INVALID_ARGUMENT, "get_desc(NULL)");
    CHECK(ctn_world_get_stats(NULL, NULL) == CTN_ERR_INVALID_ARGUMENT, "get_stats(NULL)");
    CHECK(ctn_scene_from_spec(NULL, "chain:3") == CTN_ERR_INVALID_ARGUMENT, "scene(NULL)");
    CHECK(ctn_world_body_count(NULL) == 0 && ctn_world_joint_count(NULL) == 0, "counts of NULL");
    CHECK(ctn_world_last_error(NULL) != NULL, "last_error(NULL)");
    ctn_world_destroy(NULL);
    ctn_world *out = (ctn_world *)&err;
    CHECK(ctn_world_create(NULL, &out, err, sizeof err) == CTN_ERR_INVALID_ARGUMENT && out == NULL && strstr(err, "desc"), "create(NULL desc): %s", err);
    CHECK(ctn_world_create(&d, NULL, err, sizeof err) == CTN_ERR_INVALID_ARGUMENT && strstr(err, "out"), "create(NULL out): %s", err);

    /* ---- NULL arguments ---- */
    ctn_body_state st;
    double v3[3] = {0, 0, 0}, imp[6];
    EXPECT(ctn_body_add(w, NULL, NULL), CTN_ERR_INVALID_ARGUMENT, "desc");
    EXPECT(ctn_joint_add(w, NULL, NULL), CTN_ERR_INVALID_ARGUMENT, "desc");
    EXPECT(ctn_body_get_state(w, rigid, NULL), CTN_ERR_INVALID_ARGUMENT, "out");
    EXPECT(ctn_body_set_state(w, rigid, NULL), CTN_ERR_INVALID_ARGUMENT, "state");
    EXPECT(ctn_joint_get_impulse(w, joint, NULL, NULL), CTN_ERR_INVALID_ARGUMENT, "impulse");
    EXPECT(ctn_world_set_desc(w, NULL), CTN_ERR_INVALID_ARGUMENT, "desc");
    EXPECT(ctn_world_measure(w, NULL, NULL), CTN_ERR_INVALID_ARGUMENT, "NULL");
    EXPECT(ctn_world_get_positions(w, NULL, 3, NULL), CTN_ERR_INVALID_ARGUMENT, "xyz");
    EXPECT(ctn_scene_from_spec(w, NULL), CTN_ERR_INVALID_ARGUMENT, "spec");
    EXPECT(ctn_scene_chain(w, NULL, NULL), CTN_ERR_INVALID_ARGUMENT, "desc");
    EXPECT(ctn_joint_desc_set_pivot(w, NULL, v3, NULL), CTN_ERR_INVALID_ARGUMENT, "desc");
    EXPECT(ctn_joint_desc_set_pivot(w, &jd, NULL, NULL), CTN_ERR_INVALID_ARGUMENT, "pivot");

    /* ---- unknown and removed ids ---- */
    EXPECT(ctn_body_get_state(w, HBODY(w, 999), &st), CTN_ERR_NOT_FOUND, "999");
    EXPECT(ctn_body_get_state(w, removed_body, &st), CTN_ERR_NOT_FOUND, "removed");
    EXPECT(ctn_body_get_state(w, HBODY(w, -7), &st), CTN_ERR_INVALID_ARGUMENT, "null"); /* -7 is no handle */
    ctn_body_get_state(w, rigid, &st);
    EXPECT(ctn_body_set_state(w, removed_body, &st), CTN_ERR_NOT_FOUND, "removed");
    EXPECT(ctn_body_set_force(w, HBODY(w, 12345), v3, v3), CTN_ERR_NOT_FOUND, "12345");
    EXPECT(ctn_body_remove(w, removed_body), CTN_ERR_NOT_FOUND, "removed");
    EXPECT(ctn_body_remove(w, CTN_WORLD), CTN_ERR_NOT_FOUND, "-1");
    EXPECT(ctn_joint_remove(w, removed_joint), CTN_ERR_NOT_FOUND, "removed");
    EXPECT(ctn_joint_remove(w, HJOINT(w, 4242)), CTN_ERR_NOT_FOUND, "4242");
    EXPECT(ctn_joint_get_impulse(w, removed_joint, imp, NULL), CTN_ERR_NOT_FOUND, "removed");
    ctn_joint_desc bad = ctn_joint_desc_default(CTN_JOINT_BALL);
    bad.body_a = HBODY(w, 77), bad.body_b = rigid;
    EXPECT(ctn_joint_add(w, &bad, NULL), CTN_ERR_NOT_FOUND, "body_a");
    bad.body_a = rigid, bad.body_b = removed_body;
    EXPECT(ctn_joint_add(w, &bad, NULL), CTN_ERR_NOT_FOUND, "body_b");
    bad.body_a = CTN_WORLD, bad.body_b = rigid;
    EXPECT(ctn_joint_add(w, &bad, NULL), CTN_ERR_NOT_FOUND, "body_a");

    /* ---- in use ---- */
    EXPECT(ctn_body_remove(w, rigid), CTN_ERR_IN_USE, "joint");
    EXPECT(ctn_body_remove(w, particle), CTN_ERR_IN_USE, "joint");

    /* ---- bad bodies ---- */
    ctn_body_desc bb = ctn_body_desc_default();
    bb.mass = -1.0;
    EXPECT(ctn_body_add(w, &bb, NULL), CTN_ERR_INVALID_ARGUMENT, "mass");
    bb.mass = 0.0;
    EXPECT(ctn_body_add(w, &bb, NULL), CTN_ERR_INVALID_ARGUMENT, "mass");
    bb.mass = NAN;
    EXPECT(ctn_body_add(w, &bb, NULL), CTN_ERR_INVALID_ARGUMENT, "mass");
    bb.mass = INFINITY;
    EXPECT(ctn_body_add(w, &bb, NULL), CTN_ERR_INVALID_ARGUMENT, "mass");
    bb = ctn_body_desc_default();
    bb.inertia[1] = -0.5;
    EXPECT(ctn_body_add(w, &bb, NULL), CTN_ERR_INVALID_ARGUMENT, "inertia[1]");
    bb.inertia[1] = 0.0;
    EXPECT(ctn_body_add(w, &bb, NULL), CTN_ERR_INVALID_ARGUMENT, "inertia[1]");
    bb.inertia[1] = 1.0, bb.inertia[2] = NAN;
    EXPECT(ctn_body_add(w, &bb, NULL), CTN_ERR_INVALID_ARGUMENT, "inertia[2]");
    bb = ctn_body_desc_default();
    bb.orientation[0] = 0.0;
    EXPECT(ctn_body_add(w, &bb, NULL), CTN_ERR_INVALID_ARGUMENT, "orientation");
    bb.orientation[0] = NAN;
    EXPECT(ctn_body_add(w, &bb, NULL), CTN_ERR_INVALID_ARGUMENT, "orientation");
    bb = ctn_body_desc_default();
    bb.position[2] = INFINITY;
    EXPECT(ctn_body_add(w, &bb, NULL), CTN_ERR_INVALID_ARGUMENT, "position");
    bb = ctn_body_desc_default();
    bb.velocity[0] = NAN;
    EXPECT(ctn_body_add(w, &bb, NULL), CTN_ERR_INVALID_ARGUMENT, "velocity");
    bb = ctn_body_desc_default();
    bb.angular_velocity[0] = NAN;
    EXPECT(ctn_body_add(w, &bb, NULL), CTN_ERR_INVALID_ARGUMENT, "angular_velocity");
    /* finite doubles whose float (the arrays' type) would be infinite: a position, a velocity, the inverse of
     * a mass or a moment of inertia */
    bb = ctn_body_desc_default();
    bb.position[0] = 1e300;
    EXPECT(ctn_body_add(w, &bb, NULL), CTN_ERR_INVALID_ARGUMENT, "position");
    bb = ctn_body_desc_default();
    bb.angular_velocity[1] = -1e39;
    EXPECT(ctn_body_add(w, &bb, NULL), CTN_ERR_INVALID_ARGUMENT, "angular_velocity");
    bb = ctn_body_desc_default();
    bb.mass = 1e-300;
    EXPECT(ctn_body_add(w, &bb, NULL), CTN_ERR_INVALID_ARGUMENT, "mass");
    bb = ctn_body_desc_default();
    bb.inertia[0] = 1e-40;
    EXPECT(ctn_body_add(w, &bb, NULL), CTN_ERR_INVALID_ARGUMENT, "inertia[0]");
    bb = ctn_body_desc_default();
    bb.type = (ctn_body_type)7;
    EXPECT(ctn_body_add(w, &bb, NULL), CTN_ERR_INVALID_ARGUMENT, "type");

    /* ---- bad state and forces ---- */
    ctn_body_state s2 = st;
    s2.orientation[0] = s2.orientation[1] = s2.orientation[2] = s2.orientation[3] = 0.0;
    EXPECT(ctn_body_set_state(w, rigid, &s2), CTN_ERR_INVALID_ARGUMENT, "orientation");
    s2 = st;
    s2.position[0] = NAN;
    EXPECT(ctn_body_set_state(w, rigid, &s2), CTN_ERR_INVALID_ARGUMENT, "position");
    s2 = st;
    s2.velocity[1] = INFINITY;
    EXPECT(ctn_body_set_state(w, rigid, &s2), CTN_ERR_INVALID_ARGUMENT, "velocity");
    s2 = st;
    s2.angular_velocity[2] = NAN;
    EXPECT(ctn_body_set_state(w, rigid, &s2), CTN_ERR_INVALID_ARGUMENT, "angular_velocity");
    s2 = st;
    s2.velocity[2] = 1e300;
    EXPECT(ctn_body_set_state(w, rigid, &s2), CTN_ERR_INVALID_ARGUMENT, "velocity");
    double nanv[3] = {0, NAN, 0}, hugev[3] = {0, 0, -1e300}, gf[3] = {1, 1, 1}, gt[3] = {1, 1, 1};
    EXPECT(ctn_body_set_force(w, rigid, nanv, NULL), CTN_ERR_INVALID_ARGUMENT, "force");
    EXPECT(ctn_body_set_force(w, rigid, NULL, nanv), CTN_ERR_INVALID_ARGUMENT, "torque");
    EXPECT(ctn_body_set_force(w, rigid, hugev, NULL), CTN_ERR_INVALID_ARGUMENT, "force");
    EXPECT(ctn_body_set_force(w, rigid, NULL, hugev), CTN_ERR_INVALID_ARGUMENT, "torque");
    CHECK(ctn_body_get_force(w, rigid, gf, gt) == CTN_OK && gf[2] == 0.0 && gt[2] == 0.0, "the refused forces changed nothing (%g, %g)", gf[2], gt[2]);
    const double up[3] = {0.0, 1.0, 0.0};
    EXPECT(ctn_world_add_plane(w, up, 1e300, 0.5, 0.0, NULL), CTN_ERR_INVALID_ARGUMENT, "plane.offset");
    EXPECT(ctn_world_add_plane(w, up, 0.0, 1e39, 0.0, NULL), CTN_ERR_INVALID_ARGUMENT, "plane.friction");
    CHECK(ctn_world_plane_count(w) == 0, "refused planes: %d planes", (int)ctn_world_plane_count(w));
    ctn_shape_desc sd = ctn_shape_desc_default(CTN_SHAPE_SPHERE);
    sd.radius = 1e300;
    EXPECT(ctn_body_set_shape(w, rigid, &sd), CTN_ERR_INVALID_ARGUMENT, "shape.radius");
    EXPECT(ctn_world_get_positions(w, imp, -1, NULL), CTN_ERR_INVALID_ARGUMENT, "count");

    /* ---- bad joints ---- */
    ctn_joint_desc j = ctn_joint_desc_default(CTN_JOINT_BALL);
    j.body_a = rigid, j.body_b = rigid;
    EXPECT(ctn_joint_add(w, &j, NULL), CTN_ERR_INVALID_ARGUMENT, "itself");
    j = ctn_joint_desc_default(CTN_JOINT_HINGE);
    j.body_a = rigid, j.body_b = rigid2;
    j.axis[0] = j.axis[1] = j.axis[2] = 0.0;
    EXPECT(ctn_joint_add(w, &j, NULL), CTN_ERR_INVALID_ARGUMENT, "axis");
    j.axis[2] = NAN;
    EXPECT(ctn_joint_add(w, &j, NULL), CTN_ERR_INVALID_ARGUMENT, "axis");
    j = ctn_joint_desc_default(CTN_JOINT_HINGE);
    j.body_a = particle, j.body_b = CTN_WORLD;
    EXPECT(ctn_joint_add(w, &j, NULL), CTN_ERR_INVALID_ARGUMENT, "particle");
    j = ctn_joint_desc_default(CTN_JOINT_FIXED);
    j.body_a = rigid, j.body_b = particle;
    EXPECT(ctn_joint_add(w, &j, NULL), CTN_ERR_INVALID_ARGUMENT, "particle");
    j = ctn_joint_desc_default(CTN_JOINT_DISTANCE);
    j.body_a = rigid, j.body_b = rigid2;
    j.anchor_a[0] = 0.5, j.anchor_b[0] = -0.5; /* both at x = 0.5: coincident */
    EXPECT(ctn_joint_add(w, &j, NULL), CTN_ERR_INVALID_ARGUMENT, "anchor");
    j.anchor_a[0] = 0.0, j.anchor_b[0] = 0.0, j.rest_length = 0.0;
    EXPECT(ctn_joint_add(w, &j, NULL), CTN_ERR_INVALID_ARGUMENT, "rest_length");
    j.rest_length = NAN;
    EXPECT(ctn_joint_add(w, &j, NULL), CTN_ERR_INVALID_ARGUMENT, "rest_length");
    j.rest_length = -1.0, j.anchor_a[1] = INFINITY;
    EXPECT(ctn_joint_add(w, &j, NULL), CTN_ERR_INVALID_ARGUMENT, "anchor_a");
    j.anchor_a[1] = 0.0, j.anchor_b[2] = NAN;
    EXPECT(ctn_joint_add(w, &j, NULL), CTN_ERR_INVALID_ARGUMENT, "anchor_b");
    j.anchor_b[2] = 0.0, j.compliance = NAN;
    EXPECT(ctn_joint_add(w, &j, NULL), CTN_ERR_INVALID_ARGUMENT, "compliance");
    j.compliance = -1.0, j.damping_time = INFINITY;
    EXPECT(ctn_joint_add(w, &j, NULL), CTN_ERR_INVALID_ARGUMENT, "damping_time");
    j = ctn_joint_desc_default(CTN_JOINT_SPRING);
    j.body_a = rigid, j.body_b = rigid2, j.stiffness = -5.0;
    EXPECT(ctn_joint_add(w, &j, NULL), CTN_ERR_INVALID_ARGUMENT, "stiffness");
    j.stiffness = 5.0, j.damping = -1.0;
    EXPECT(ctn_joint_add(w, &j, NULL), CTN_ERR_INVALID_ARGUMENT, "damping");
    j.type = (ctn_joint_type)99;
    EXPECT(ctn_joint_add(w, &j, NULL), CTN_ERR_INVALID_ARGUMENT, "type");

    /* ---- bad world descriptions (create and set_desc) ---- */
    ctn_world_desc bads[32];
    const char *fields[32];
    int nb = 0;
#define BAD(f, stmt)                                                                                                      \
    do {                                                                                                                  \
        ctn_world_desc x_ = ctn_world_desc_default();                                                                     \
        x_.backend = CTN_BACKEND_CPU;                                                                                     \
        stmt;                                                                                                             \
        bads[nb] = x_;                                                                                                    \
        fields[nb++] = f;                                                                                                 \
    } while (0)
    BAD("time_step", x_.time_step = 0.0);
    BAD("time_step", x_.time_step = -0.01);
    BAD("time_step", x_.time_step = NAN);
    BAD("substeps", x_.substeps = -1);
    BAD("substeps", x_.substeps = CTN_MAX_SUBSTEPS + 1);
    BAD("iterations", x_.iterations = 0);
    BAD("iterations", x_.iterations = -3);
    BAD("solver", x_.solver = (ctn_solver)17);
    BAD("stabilization", x_.stabilization = (ctn_stabilization)5);
    BAD("max_colours", x_.max_colours = 1);
    BAD("max_colours", x_.max_colours = CTN_MAX_COLOURS + 1);
    BAD("gravity", x_.gravity[1] = INFINITY);
    BAD("compliance", x_.compliance = -1.0);
    BAD("damping_time", x_.damping_time = NAN);
    BAD("baumgarte", x_.baumgarte = 1.5);
    BAD("warm_start", x_.warm_start = -0.1);
    BAD("warm_start", x_.warm_start = 2.0);
    BAD("threads", x_.threads = -1);
    BAD("backend", x_.backend = (ctn_backend)9);
#undef BAD
    for (int i = 0; i < nb; ++i) {
        ctn_world *o = (ctn_world *)&err;
        err[0] = '\0';
        ctn_status s = ctn_world_create(&bads[i], &o, err, sizeof err);
        CHECK(s == CTN_ERR_INVALID_ARGUMENT && o == NULL, "create with bad %s: %s", fields[i], ctn_status_name(s));
        CHECK(strstr(err, fields[i]) != NULL, "create: message '%s' does not name %s", err, fields[i]);
        ctn_world_desc before;
        ctn_world_get_desc(w, &before);
        EXPECT(ctn_world_set_desc(w, &bads[i]), CTN_ERR_INVALID_ARGUMENT, fields[i]);
        ctn_world_desc after;
        ctn_world_get_desc(w, &after);
        CHECK(memcmp(&before, &after, sizeof before) == 0, "set_desc with bad %s changed the description", fields[i]);
    }

    /* ---- bad scene specs and generator parameters ---- */
    const char *specs[] = {"chain", "chain:", "chain:0", "chain:-5", "chain:abc", "chain:10x", "grid:10", "grid:0x5", "grid:5x5x",
                           "bridge:0", "cradle:", "double_pendulum:3", "nonsense:5", ""};
    for (int i = 0; i < (int)(sizeof specs / sizeof specs[0]); ++i) {
        snapshot before = snap();
        ctn_status s = ctn_scene_from_spec(w, specs[i]);
        CHECK(s == CTN_ERR_INVALID_ARGUMENT, "spec '%s': %s", specs[i], ctn_status_name(s));
        CHECK(strstr(ctn_world_last_error(w), "scene") != NULL, "spec '%s': message '%s'", specs[i], ctn_world_last_error(w));
        snapshot after = snap();
        CHECK(memcmp(&before, &after, sizeof before) == 0, "spec '%s' changed the world", specs[i]);
    }
    ctn_chain_desc cd = ctn_chain_desc_default(0);
    EXPECT(ctn_scene_chain(w, &cd, NULL), CTN_ERR_INVALID_ARGUMENT, "links");
    cd = ctn_chain_desc_default(5);
    cd.link_length = -1.0;
    EXPECT(ctn_scene_chain(w, &cd, NULL), CTN_ERR_INVALID_ARGUMENT, "link_length");
    cd = ctn_chain_desc_default(5);
    cd.link_mass = 0.0;
    EXPECT(ctn_scene_chain(w, &cd, NULL), CTN_ERR_INVALID_ARGUMENT, "link_mass");
    cd = ctn_chain_desc_default(5);
    cd.end_mass_ratio = NAN;
    EXPECT(ctn_scene_chain(w, &cd, NULL), CTN_ERR_INVALID_ARGUMENT, "end_mass_ratio");
    cd = ctn_chain_desc_default(5);
    cd.direction[0] = 0.0;
    EXPECT(ctn_scene_chain(w, &cd, NULL), CTN_ERR_INVALID_ARGUMENT, "direction");
    cd = ctn_chain_desc_default(5);
    cd.origin[1] = INFINITY;
    EXPECT(ctn_scene_chain(w, &cd, NULL), CTN_ERR_INVALID_ARGUMENT, "origin");
    EXPECT(ctn_scene_grid(w, 0, 4, 0.1), CTN_ERR_INVALID_ARGUMENT, "grid");
    EXPECT(ctn_scene_grid(w, 4, 4, -0.1), CTN_ERR_INVALID_ARGUMENT, "spacing");
    EXPECT(ctn_scene_bridge(w, 0), CTN_ERR_INVALID_ARGUMENT, "planks");
    EXPECT(ctn_scene_cradle(w, 0), CTN_ERR_INVALID_ARGUMENT, "balls");

    /* ---- the world still works ---- */
    for (int i = 0; i < 10; ++i) CHECK(ctn_world_step(w) == CTN_OK, "step after failed calls: %s", ctn_world_last_error(w));
    double gap, angle;
    CHECK(ctn_world_measure(w, &gap, &angle) == CTN_OK && gap < 1e-2, "gap %.3g after the failures", gap);
    CHECK(ctn_world_body_count(w) == 3 && ctn_world_joint_count(w) == 2, "counts %d %d", ctn_world_body_count(w), ctn_world_joint_count(w));
    ctn_world_destroy(w);
    return check_report("invalid_input");
}
