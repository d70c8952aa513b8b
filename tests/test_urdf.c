/* URDF import (ctn_scene_load_urdf): the double pendulum steps bitwise like the same scene in JSON; the
 * 50-link snake gets its bodies, capsules, limits and motors; frames and principal axes; what cannot be
 * represented is refused or reported by name; a refused file leaves the world unchanged. Exits 77
 * (skipped) in a build without urdfdom, after checking that such a build says so. */
#include "catena/catena.h"
#include "ids.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_msg[8192];

static ctn_world *cpu_world(void) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    ctn_world *w = NULL;
    char err[512];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        fprintf(stderr, "world: %s\n", err);
        exit(1);
    }
    return w;
}

static ctn_status load(ctn_world *w, const char *path) {
    g_msg[0] = '\0';
    return ctn_scene_load_urdf(w, path, g_msg, sizeof g_msg);
}

/* Loads a URDF robot given as the text inside <robot>, through a temporary file. */
static ctn_status load_text(ctn_world *w, const char *body) {
    char path[64];
    snprintf(path, sizeof path, "test_urdf_%ld.urdf", (long)getpid());
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fprintf(f, "<?xml version=\"1.0\"?>\n<robot name=\"t\">\n%s\n</robot>\n", body);
    fclose(f);
    ctn_status st = load(w, path);
    remove(path);
    return st;
}

/* A link of mass m with diagonal inertia at the link origin (+ extra XML inside the link). */
#define LINK(name, extra) \
    "<link name=\"" name "\"><inertial><mass value=\"1\"/><inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.02\" iyz=\"0\" izz=\"0.03\"/></inertial>" extra "</link>\n"
#define JOINT(name, type, parent, child, xyz, extra)                                                                     \
    "<joint name=\"" name "\" type=\"" type "\"><parent link=\"" parent "\"/><child link=\"" child "\"/><origin xyz=\"" xyz \
    "\"/>" extra "</joint>\n"

static void check_double_pendulum_matches_json(void) {
    ctn_world *wu = cpu_world(), *wj = cpu_world();
    ctn_status su = load(wu, CATENA_SOURCE_DIR "/examples/double_pendulum.urdf");
    CHECK(su == CTN_OK, "double_pendulum.urdf: %s", g_msg);
    CHECK(g_msg[0] == '\0', "the double pendulum imports exactly, yet the report says: %s", g_msg);
    char err[1024];
    ctn_status sj = ctn_scene_load_json(wj, CATENA_SOURCE_DIR "/examples/double_pendulum.json", err, sizeof err);
    if (sj == CTN_ERR_UNSUPPORTED) {
        printf("double_pendulum.json not compared: built without cJSON\n");
    } else {
        CHECK(sj == CTN_OK, "double_pendulum.json: %s", err);
        CHECK(ctn_world_body_count(wu) == 2 && ctn_world_joint_count(wu) == 2, "2 bodies and 2 joints expected");
        for (int s = 0; s < 300; ++s) {
            CHECK(ctn_world_step(wu) == CTN_OK && ctn_world_step(wj) == CTN_OK, "step %d", s);
        }
        for (int b = 0; b < 2; ++b) {
            ctn_body_state a, c;
            ctn_body_get_state(wu, HBODY(wu, b), &a);
            ctn_body_get_state(wj, HBODY(wj, b), &c);
            CHECK(memcmp(&a, &c, sizeof a) == 0, "body %d after 300 steps: URDF (%.17g, %.17g) vs JSON (%.17g, %.17g)", (int)b,
                  a.position[0], a.position[1], c.position[0], c.position[1]);
        }
        ctn_body_state tip;
        ctn_body_get_state(wu, HBODY(wu, 1), &tip);
        CHECK(fabs(tip.position[0] - 1.5) > 0.1, "the pendulum must have swung (lower rod at x %.3f)", tip.position[0]);
    }
    const char *name = NULL;
    ctn_body_id upper = CTN_NULL_BODY;
    CHECK(ctn_body_find(wu, "upper_rod", &upper) == CTN_OK && ID_INT(upper) == 0, "upper_rod is body 0");
    CHECK(ctn_body_get_name(wu, HBODY(wu, 1), &name) == CTN_OK && name && !strcmp(name, "lower_rod"), "body 1 is lower_rod");
    ctn_world_destroy(wu);
    ctn_world_destroy(wj);
}

static void check_snake(void) {
    ctn_world *w = cpu_world();
    CHECK(load(w, CATENA_SOURCE_DIR "/examples/snake_50.urdf") == CTN_OK, "snake_50.urdf: %s", g_msg);
    CHECK(ctn_world_body_count(w) == 50 && ctn_world_joint_count(w) == 50, "50 links, 50 joints: %d, %d", ctn_world_body_count(w),
          ctn_world_joint_count(w));
    CHECK(strstr(g_msg, "cylinders made capsules") && strstr(g_msg, "link_00") && strstr(g_msg, "link_49"),
          "the cylinders' approximation is reported by link: %s", g_msg);
    for (int b = 0; b < 50; ++b) {
        ctn_shape_desc s;
        ctn_body_desc d;
        ctn_body_get_shape(w, HBODY(w, b), &s);
        ctn_body_get_desc(w, HBODY(w, b), &d);
        CHECK(s.type == CTN_SHAPE_CAPSULE && fabs(s.radius - 0.02) < 1e-7 && fabs(s.half_length - 0.03) < 1e-7, "link %d: capsule r 0.02, half 0.03",
              (int)b);
        CHECK(fabs(d.position[0] - (0.1 * (double)b + 0.05)) < 1e-12 && d.position[1] == 1.0 && d.mass == 0.1, "link %d at x %.17g y %g",
              (int)b, d.position[0], d.position[1]);
        int on = 0;
        double lo = 0, hi = 0, speed = 1, torque = 0;
        ctn_joint_get_limits(w, HJOINT(w, b), &on, &lo, &hi);
        CHECK(on && lo == -0.5 && hi == 0.5, "joint %d limits [%g, %g]", (int)b, lo, hi);
        ctn_joint_get_motor(w, HJOINT(w, b), &on, &speed, &torque);
        CHECK(on && speed == 0.0 && torque == 0.5, "joint %d: motor at speed 0 with the effort 0.5 N m as its torque limit", (int)b);
        ctn_joint_desc jd;
        ctn_joint_get_desc(w, HJOINT(w, b), &jd);
        CHECK(jd.type == CTN_JOINT_HINGE && ID_INT(jd.body_a) == b && ID_INT(jd.body_b) == (b ? b - 1 : -1), "joint %d: hinge from the child", (int)b);
    }
    ctn_world_desc d;
    ctn_world_get_desc(w, &d);
    d.iterations = 20;
    ctn_world_set_desc(w, &d);
    for (int s = 0; s < 120; ++s) CHECK(ctn_world_step(w) == CTN_OK, "snake step %d: %s", s, ctn_world_last_error(w));
    double worst = 0;
    for (int j = 0; j < 50; ++j) {
        double a = 0;
        ctn_joint_get_angle(w, HJOINT(w, j), &a);
        worst = fmax(worst, fabs(a));
    }
    CHECK(worst < 0.5 + 0.05, "hinge angles stay within their 0.5 rad limits (worst %.3f)", worst);
    CHECK(worst > 0.01, "the snake must sag under gravity (worst angle %.3g)", worst);
    ctn_world_destroy(w);
}

/* Links and joints in rotated frames: a joint origin turned 90 degrees about z places the child's x along
 * world y; an inertia tensor with products of inertia is diagonalised onto its principal axes. */
static void check_frames(void) {
    ctn_world *w = cpu_world();
    ctn_status st = load_text(w, "<link name=\"base\"/>\n"
                              "<joint name=\"j\" type=\"revolute\"><parent link=\"base\"/><child link=\"arm\"/>"
                              "<origin xyz=\"1 2 3\" rpy=\"0 0 1.5707963267948966\"/><axis xyz=\"1 0 0\"/>"
                              "<limit lower=\"-1\" upper=\"1\" effort=\"0\" velocity=\"1\"/></joint>\n"
                              "<link name=\"arm\"><inertial><origin xyz=\"0.5 0 0\"/><mass value=\"2\"/>"
                              "<inertia ixx=\"0.03\" ixy=\"0.01\" ixz=\"0\" iyy=\"0.03\" iyz=\"0\" izz=\"0.05\"/></inertial></link>");
    CHECK(st == CTN_OK, "frames: %s", g_msg);
    ctn_body_desc d;
    ctn_body_get_desc(w, HBODY(w, 0), &d);
    CHECK(fabs(d.position[0] - 1) < 1e-12 && fabs(d.position[1] - 2.5) < 1e-12 && fabs(d.position[2] - 3) < 1e-12,
          "centre of mass at (1, 2.5, 3), not (%g, %g, %g)", d.position[0], d.position[1], d.position[2]);
    /* eigenvalues of [[0.03, 0.01], [0.01, 0.03]] are 0.02 and 0.04; z stays 0.05 */
    double m[3] = {d.inertia[0], d.inertia[1], d.inertia[2]};
    int has02 = 0, has04 = 0, has05 = 0;
    for (int i = 0; i < 3; ++i) has02 |= fabs(m[i] - 0.02) < 1e-12, has04 |= fabs(m[i] - 0.04) < 1e-12, has05 |= fabs(m[i] - 0.05) < 1e-12;
    CHECK(has02 && has04 && has05, "principal moments 0.02, 0.04, 0.05, not %g %g %g", m[0], m[1], m[2]);
    ctn_joint_desc jd;
    ctn_joint_get_desc(w, HJOINT(w, 0), &jd);
    CHECK(jd.type == CTN_JOINT_HINGE && fabs(jd.axis[1] - 1) < 1e-6 && fabs(jd.axis[0]) < 1e-6, "hinge axis x turned onto world y: (%g, %g, %g)",
          jd.axis[0], jd.axis[1], jd.axis[2]);
    int on = 1;
    double speed, torque;
    ctn_joint_get_motor(w, HJOINT(w, 0), &on, &speed, &torque);
    CHECK(!on, "effort 0 leaves the joint passive");
    ctn_world_destroy(w);
}

/* Fixed, floating, merged and free links. */
static void check_link_kinds(void) {
    ctn_world *w = cpu_world();
    ctn_status st = load_text(w, LINK("base", "")
                              JOINT("weld", "fixed", "base", "tool", "0 1 0", "")
                              LINK("tool", "")
                              JOINT("sensor_mount", "fixed", "tool", "camera", "0 0.1 0", "")
                              "<link name=\"camera\"/>\n"
                              JOINT("hinge", "continuous", "camera", "flap", "0 0.2 0", "<axis xyz=\"0 0 1\"/>")
                              LINK("flap", "")
                              JOINT("loose", "floating", "base", "ball", "2 0 0", "")
                              LINK("ball", ""));
    CHECK(st == CTN_OK, "link kinds: %s", g_msg);
    /* bodies: base (free root), tool, flap, ball; joints: weld, hinge (from the camera, merged into tool) */
    CHECK(ctn_world_body_count(w) == 4 && ctn_world_joint_count(w) == 2, "4 bodies and 2 joints, not %d and %d", ctn_world_body_count(w),
          ctn_world_joint_count(w));
    ctn_joint_desc a, b;
    ctn_joint_get_desc(w, HJOINT(w, 0), &a);
    ctn_joint_get_desc(w, HJOINT(w, 1), &b);
    ctn_body_id tool = CTN_NULL_BODY, flap = CTN_NULL_BODY;
    ctn_body_find(w, "tool", &tool);
    ctn_body_find(w, "flap", &flap);
    CHECK(a.type == CTN_JOINT_FIXED && ID_EQ(a.body_a, tool) && ID_INT(a.body_b) == 0, "weld: fixed joint tool-base");
    CHECK(b.type == CTN_JOINT_HINGE && ID_EQ(b.body_a, flap) && ID_EQ(b.body_b, tool), "hinge: flap on tool (the massless camera is part of tool)");
    for (int s = 0; s < 30; ++s) ctn_world_step(w);
    ctn_body_state base;
    ctn_body_get_state(w, HBODY(w, 0), &base);
    CHECK(base.position[1] < -0.1, "a massive root is a free body: it falls (y %.3f)", base.position[1]);
    ctn_world_destroy(w);
}

/* Everything Catena cannot represent: refused with the name, or reported by name. */
static void check_refusals_and_reports(void) {
    ctn_world *w = cpu_world();
    ctn_body_desc bd = ctn_body_desc_default();
    ctn_inertia_sphere(1, 0.1, bd.inertia);
    ctn_body_id keep;
    ctn_body_add(w, &bd, &keep);
    int nb = ctn_world_body_count(w), nj = ctn_world_joint_count(w);

    CHECK(load(w, "no/such/robot.urdf") == CTN_ERR_IO && strstr(g_msg, "no/such/robot.urdf"), "missing file: %s", g_msg);
    CHECK(ctn_scene_load_urdf(w, "no/such/robot.urdf", NULL, 0) == CTN_ERR_IO && strstr(ctn_world_last_error(w), "no/such/robot.urdf"),
          "without a message buffer the error is on the world: %s", ctn_world_last_error(w));
    CHECK(load_text(w, "<link name=\"a\"><inertial><mass value=\"1\"/></link>") == CTN_ERR_INVALID_ARGUMENT,
          "malformed XML refused: %s", g_msg);
    ctn_status st = load_text(w, "<link name=\"world\"/>" LINK("arm", "<collision><geometry><sphere radius=\"0.1\"/></geometry></collision>")
                                   JOINT("rail", "fixed", "world", "arm", "0 0 0", "") LINK("carriage", "<collision><geometry><box size=\"0.1 0.1 0.1\"/></geometry></collision>")
                                   JOINT("slider", "continuous", "arm", "carriage", "1 0 0", "<axis xyz=\"0 0 0\"/>"));
    CHECK(st == CTN_ERR_INVALID_ARGUMENT && strstr(g_msg, "slider") && strstr(g_msg, "axis"), "a slider without an axis refused by name: %s", g_msg);
    CHECK(strstr(ctn_world_last_error(w), "slider") != NULL, "the world's error names the joint too: %s", ctn_world_last_error(w));
    st = load_text(w, "<link name=\"world\"/><link name=\"ghost\"/>"
                                     JOINT("spin", "continuous", "world", "ghost", "0 0 0", "<axis xyz=\"0 0 1\"/>"));
    CHECK(st == CTN_ERR_UNSUPPORTED && strstr(g_msg, "ghost") && strstr(g_msg, "spin"), "massless moving link refused: %s", g_msg);
    CHECK(ctn_world_body_count(w) == nb && ctn_world_joint_count(w) == nj, "refused files leave the world unchanged");
    /* the slot the refused import used is free again, without the shapes it had been given */
    ctn_body_id next;
    ctn_body_add(w, &bd, &next);
    ctn_shape_desc s;
    ctn_body_get_shape(w, next, &s);
    CHECK(s.type == CTN_SHAPE_NONE, "a body added after a refused import has no stale shape (type %d)", (int)s.type);
    ctn_body_remove(w, next);

    st = load_text(w, "<link name=\"world\"><collision><geometry><box size=\"10 0.1 10\"/></geometry></collision></link>"
                                  LINK("a", "<collision><geometry><mesh filename=\"package://robot/a.stl\"/></geometry></collision>")
                                  JOINT("ja", "revolute", "world", "a", "0 0 0", "<axis xyz=\"0 0 1\"/><limit lower=\"-4\" upper=\"4\" effort=\"0\" velocity=\"1\"/><dynamics damping=\"0.5\"/>")
                                  LINK("b", "<collision><origin xyz=\"0.3 0 0\"/><geometry><sphere radius=\"0.1\"/></geometry></collision>")
                                  JOINT("jb", "continuous", "a", "b", "1 0 0", "<axis xyz=\"0 0 1\"/>")
                                  LINK("c", "<collision><geometry><sphere radius=\"0.1\"/></geometry></collision><collision name=\"spare\"><geometry><sphere radius=\"0.2\"/></geometry></collision>")
                                  JOINT("jc", "continuous", "b", "c", "1 0 0", "<axis xyz=\"0 0 1\"/><mimic joint=\"ja\"/>"));
    CHECK(st == CTN_OK, "lossy robot loads: %s", g_msg);
    const char *expect[] = {"(Catena collides spheres, capsules and boxes): a (package://robot/a.stl)\n",
                            "collision elements of links fixed to the world put on static bodies named after the links: world (world_shapes)\n",
                            "mimic couplings ignored (the joints move independently): jc (mimics ja: no link common to both joints (parents 'b' and 'world'))\n",
                            "joint damping and friction ignored: ja (damping 0.5, friction 0)\n",
                            "joint limits beyond [-pi, pi] clamped to it: ja ([-4, 4])\n"};
    for (size_t k = 0; k < sizeof expect / sizeof *expect; ++k) CHECK(strstr(g_msg, expect[k]) != NULL, "report lacks '%s':\n%s", expect[k], g_msg);
    int on = 0;
    double lo = 0, hi = 0;
    ctn_joint_get_limits(w, HJOINT(w, nj), &on, &lo, &hi);
    CHECK(on && fabs(lo + 3.14159265358979) < 1e-6 && fabs(hi - 3.14159265358979) < 1e-6, "limits clamped to [-pi, pi]: [%g, %g]", lo, hi);
    /* every collision element kept at its origin: b's sphere 0.3 m off its centre, c's second sphere the
     * second shape of c's compound, the world link's box on a static body named after it */
    ctn_body_id hb = CTN_NULL_BODY, hc = CTN_NULL_BODY, hw = CTN_NULL_BODY;
    ctn_shape_desc sb, sc1, sw;
    int32_t nc = 0;
    CHECK(ctn_body_find(w, "b", &hb) == CTN_OK && ctn_body_get_shape(w, hb, &sb) == CTN_OK && sb.type == CTN_SHAPE_SPHERE &&
              fabs(sb.offset[0] - 0.3) < 1e-7 && sb.offset[1] == 0.0 && sb.offset[2] == 0.0,
          "b's sphere at offset (%g %g %g)", sb.offset[0], sb.offset[1], sb.offset[2]);
    CHECK(ctn_body_find(w, "c", &hc) == CTN_OK && ctn_body_shape_count(w, hc, &nc) == CTN_OK && nc == 2 &&
              ctn_body_get_shape_at(w, hc, 1, &sc1) == CTN_OK && sc1.type == CTN_SHAPE_SPHERE && fabs(sc1.radius - 0.2) < 1e-7,
          "c holds both its spheres (%d shapes, the second of radius %g)", (int)nc, sc1.radius);
    CHECK(ctn_world_body_count(w) == nb + 4, "one body per link and one static body for the world link: %d bodies", ctn_world_body_count(w) - nb);
    ctn_body_desc dw;
    CHECK(ctn_body_find(w, "world_shapes", &hw) == CTN_OK && ctn_body_get_shape(w, hw, &sw) == CTN_OK && sw.type == CTN_SHAPE_BOX &&
              ctn_body_get_desc(w, hw, &dw) == CTN_OK && dw.type == CTN_BODY_STATIC,
          "the world link's box is a static body");
    ctn_world_destroy(w);
}

/* A free link with two spheres at +-0.3 m along x and a cylinder (0.5 m long, r 0.05) lying along y 0.04 m
 * below the centre, dropped on a floor under z-up gravity: it comes to rest level on its two spheres, its
 * centre at their radius 0.1. The capsule made of the cylinder reaches 0.09 m below the centre when placed
 * and turned as the file says; standing along z, as an unturned cylinder would, it would reach 0.29 m down
 * and hold the link up. */
static void check_compound(void) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.gravity[0] = 0, d.gravity[1] = 0, d.gravity[2] = -9.81;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    if (!w) return;
    const double up[3] = {0, 0, 1};
    ctn_world_add_plane(w, up, 0.0, 0.8, 0.0, NULL);
    ctn_status st = load_text(w, LINK("body", "<collision><origin xyz=\"0.3 0 0\"/><geometry><sphere radius=\"0.1\"/></geometry></collision>"
                                              "<collision><origin xyz=\"-0.3 0 0\"/><geometry><sphere radius=\"0.1\"/></geometry></collision>"
                                              "<collision><origin xyz=\"0 0.05 -0.04\" rpy=\"1.5707963 0 0\"/><geometry><cylinder radius=\"0.05\" length=\"0.5\"/></geometry></collision>"));
    CHECK(st == CTN_OK, "%s", g_msg);
    /* lift it 0.2 m (the root link sits at the origin) */
    ctn_body_id h = CTN_NULL_BODY;
    ctn_body_find(w, "body", &h);
    ctn_body_state s;
    ctn_body_get_state(w, h, &s);
    s.position[2] += 0.2;
    ctn_body_set_state(w, h, &s);
    int bodies = ctn_world_body_count(w);
    for (int k = 0; k < 180; ++k) CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_body_get_state(w, h, &s);
    double tilt = 2.0 * sqrt(s.orientation[1] * s.orientation[1] + s.orientation[2] * s.orientation[2]);
    int32_t shapes = 0;
    ctn_body_shape_count(w, h, &shapes);
    printf("compound link: %d body with %d shapes, rests at z %.5f (0.1), tilted %.3g rad\n", bodies, (int)shapes, s.position[2], tilt);
    CHECK(bodies == 1 && shapes == 3, "%d bodies, %d shapes", bodies, (int)shapes);
    CHECK(fabs(s.position[2] - 0.1) < 2e-3 && tilt < 1e-2, "compound link at z %g, tilted %g rad", s.position[2], tilt);
    ctn_world_destroy(w);
}

/* A prismatic joint becomes a slider: q is the child's travel along the axis (the slider position), its limits
 * the slider's (m) and its effort a motor holding it (speed 0); the carriage slides along x onto the lower
 * limit when gravity points along -x. */
static void check_prismatic(void) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.gravity[0] = -9.81, d.gravity[1] = 0.0;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    ctn_status st = load_text(w, "<link name=\"world\"/>" LINK("carriage", "")
                                     JOINT("rail", "prismatic", "world", "carriage", "0.5 0 0",
                                           "<axis xyz=\"1 0 0\"/><limit lower=\"-0.2\" upper=\"0.3\" effort=\"5\" velocity=\"1\"/>"));
    CHECK(st == CTN_OK, "prismatic import: %s", g_msg);
    ctn_joint_desc jd;
    int on = 0;
    double lo = 0, hi = 0, s = 1.0;
    CHECK(ctn_joint_get_desc(w, HJOINT(w, 0), &jd) == CTN_OK && jd.type == CTN_JOINT_PRISMATIC && fabs(jd.axis[0] - 1.0) < 1e-6, "rail is a slider along x");
    CHECK(ctn_joint_get_limits(w, HJOINT(w, 0), &on, &lo, &hi) == CTN_OK && on && fabs(lo + 0.2) < 1e-6 && fabs(hi - 0.3) < 1e-6, "slider limits [%g, %g]",
          lo, hi);
    CHECK(ctn_joint_get_motor(w, HJOINT(w, 0), &on, &lo, &hi) == CTN_OK && on && lo == 0.0 && hi == 5.0, "effort as a holding motor: %d %g %g", on, lo, hi);
    CHECK(ctn_joint_get_translation(w, HJOINT(w, 0), &s) == CTN_OK && fabs(s) < 1e-6, "zero joint pose: s = %g", s);
    for (int i = 0; i < 120; ++i) ctn_world_step(w);
    ctn_joint_get_translation(w, HJOINT(w, 0), &s);
    /* m g = 9.81 N > effort 5 N: the motor gives way and the carriage rests on the lower limit (measured -0.2000) */
    CHECK(fabs(s + 0.2) < 1e-4, "carriage rests at s = %g, lower limit -0.2", s);
    ctn_world_destroy(w);
}

/* planar -> CTN_JOINT_PLANAR: a puck on a horizontal plane (normal y, along gravity) launched along x and z,
 * spinning about y and tumbling about x: after 1 s it is still on the plane, has slid on, and turns about y
 * only (the tumble is taken out at the first step), its turn read by ctn_joint_get_angle. */
static void check_planar(void) {
    ctn_world *w = cpu_world();
    ctn_status st = load_text(w, "<link name=\"world\"/>" LINK("puck", "") JOINT("table", "planar", "world", "puck", "0 1 0", "<axis xyz=\"0 1 0\"/>"));
    CHECK(st == CTN_OK, "planar import: %s", g_msg);
    ctn_joint_desc jd;
    CHECK(ctn_joint_get_desc(w, HJOINT(w, 0), &jd) == CTN_OK && jd.type == CTN_JOINT_PLANAR && fabs(jd.axis[1] - 1.0) < 1e-6,
          "table is a planar joint across y");
    ctn_body_state bs;
    ctn_body_get_state(w, HBODY(w, 0), &bs);
    bs.velocity[0] = 1.0, bs.velocity[2] = 0.5;
    bs.angular_velocity[0] = 1.0, bs.angular_velocity[1] = 1.5;
    CHECK(ctn_body_set_state(w, HBODY(w, 0), &bs) == CTN_OK, "launch: %s", ctn_world_last_error(w));
    for (int i = 0; i < 60; ++i) ctn_world_step(w);
    ctn_body_get_state(w, HBODY(w, 0), &bs);
    const double *q = bs.orientation; /* body y axis in the world: the second column of R(q) */
    double yy = 1.0 - 2.0 * (q[1] * q[1] + q[3] * q[3]), angle = 0.0;
    CHECK(fabs(bs.position[1] - 1.0) < 1e-4, "the puck stays on the plane: y = %.6f", bs.position[1]);
    CHECK(fabs(bs.position[0] - 1.0) < 1e-2 && fabs(bs.position[2] - 0.5) < 1e-2, "it slides on: x = %g, z = %g", bs.position[0], bs.position[2]);
    CHECK(yy > 1.0 - 1e-6, "it turns about y only: its y axis . y = %.9f", yy);
    CHECK(ctn_joint_get_angle(w, HJOINT(w, 0), &angle) == CTN_OK && fabs(fabs(angle) - 1.5) < 0.05, "the turn about y: %g rad", angle);
    printf("planar: y %.7f, x %.5f, z %.5f, y axis . y %.9f, angle %.5f\n", bs.position[1], bs.position[0], bs.position[2], yy, angle);
    ctn_world_destroy(w);
}

/* Joint names are kept (ctn_joint_find; checkpoints keep them); a <mimic> between two links hinged at their
 * centres to the world becomes a gear (wb follows twice wa's angle), one under a moving parent a coupling
 * through an added body (check_mimic_on_base). */
static void check_joint_names_and_mimic(void) {
    ctn_world *w = cpu_world();
    ctn_status st = load_text(w, "<link name=\"world\"/>" LINK("a", "") JOINT("wa", "continuous", "world", "a", "0 0 0", "<axis xyz=\"0 0 1\"/>")
                                     LINK("b", "") JOINT("wb", "continuous", "world", "b", "1 0 0", "<axis xyz=\"0 0 1\"/><mimic joint=\"wa\" multiplier=\"2\"/>")
                                     LINK("c", "") JOINT("wc", "continuous", "a", "c", "0 0.5 0", "<axis xyz=\"0 0 1\"/>")
                                     LINK("d", "") JOINT("wd", "continuous", "a", "d", "0 -0.5 0", "<axis xyz=\"0 0 1\"/><mimic joint=\"wc\"/>"));
    CHECK(st == CTN_OK, "%s", g_msg);
    CHECK(strstr(g_msg, "mimic couplings made gears (ctn_joint_add CTN_JOINT_GEAR, ratio -multiplier): wb (mimics wa, multiplier 2)") != NULL,
          "report: %s", g_msg);
    CHECK(strstr(g_msg, "without shapes (relative rack-and-pinions on that link: docs/urdf.md): wd (mimics wc, multiplier 1)") != NULL, "report: %s", g_msg);
    ctn_joint_id ja = CTN_NULL_JOINT, jb = CTN_NULL_JOINT, none = CTN_NULL_JOINT;
    CHECK(ctn_joint_find(w, "wa", &ja) == CTN_OK && ctn_joint_find(w, "wb", &jb) == CTN_OK, "joints found by name");
    CHECK(ctn_joint_find(w, "nope", &none) == CTN_ERR_NOT_FOUND, "an unknown name is not found");
    const char *name = NULL;
    CHECK(ctn_joint_get_name(w, jb, &name) == CTN_OK && !strcmp(name, "wb"), "name of wb: %s", name ? name : "(null)");
    /* spin a: b follows at twice its angle */
    ctn_body_id a = CTN_NULL_BODY;
    ctn_body_find(w, "a", &a);
    ctn_body_state s;
    ctn_body_get_state(w, a, &s);
    s.angular_velocity[2] = 1.0;
    ctn_body_set_state(w, a, &s);
    for (int k = 0; k < 30; ++k) CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    double qa = 0, qb = 0;
    ctn_joint_get_angle(w, ja, &qa);
    ctn_joint_get_angle(w, jb, &qb);
    printf("mimic as gear: wa %.5f rad, wb %.5f rad (2 wa = %.5f)\n", qa, qb, 2 * qa);
    CHECK(fabs(qa) > 0.01 && fabs(qb - 2 * qa) < 1e-3 * fabs(qb), "wb %g, 2 wa %g", qb, 2 * qa);
    /* a checkpoint keeps the names; removing a joint forgets its name */
    CHECK(ctn_world_save(w, "test_urdf_names.ckpt", 30, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_world *r = NULL;
    char err[256];
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    CHECK(ctn_world_load("test_urdf_names.ckpt", &d, &r, NULL, err, sizeof err) == CTN_OK, "%s", err);
    ctn_joint_id jr = CTN_NULL_JOINT;
    CHECK(r && ctn_joint_find(r, "wb", &jr) == CTN_OK && ctn_joint_id_equal(jr, ctn_joint_id_in(r, jb)), "the resumed world finds wb");
    if (r) ctn_world_destroy(r);
    remove("test_urdf_names.ckpt");
    ctn_joint_id jc = CTN_NULL_JOINT;
    CHECK(ctn_joint_find(w, "wc", &jc) == CTN_OK && ctn_joint_remove(w, jc) == CTN_OK && ctn_joint_find(w, "wc", &jc) == CTN_ERR_NOT_FOUND,
          "a removed joint's name is gone");
    ctn_world_destroy(w);
}

/* <mimic> on a moving parent: a palm swinging on a passive hinge under gravity (z down, the hinge along x)
 * carries a leader finger and a follower at multiplier m, each joint measured against its leader over 240
 * steps at 60 Hz: two continuous fingers (m = -0.5, centres 0.1 m off their parallel axes; no bounded row
 * in the robot: the couplings, loop closers, are solved exactly through their Schur complement) and two
 * prismatic fingers sliding along mirrored axes (m = 1, as a gripper's; their limits are bounded rows, cut
 * from the forest, and each outer iteration ends with the closers' Schur impulse). The leaders are set
 * moving; auto picks the exact solver for both. */
static void mimic_on_base(int prismatic, double m, double *worst, double *travel, int roundtrip) {
    char urdf[4096];
    const char *type = prismatic ? "prismatic" : "continuous";
    const char *lim = prismatic ? "<limit lower=\"-1\" upper=\"1\" effort=\"0\" velocity=\"1\"/>" : "";
    const char *ax1 = prismatic ? "0 1 0" : "1 0 0", *ax2 = prismatic ? "0 -1 0" : "1 0 0";
    snprintf(urdf, sizeof urdf,
             "<link name=\"world\"/>"
             "<link name=\"palm\"><inertial><origin xyz=\"0 0 -0.5\"/><mass value=\"2\"/><inertia ixx=\"0.02\" ixy=\"0\" ixz=\"0\" iyy=\"0.02\" iyz=\"0\" izz=\"0.02\"/></inertial></link>"
             "<joint name=\"swing\" type=\"continuous\"><parent link=\"world\"/><child link=\"palm\"/><axis xyz=\"1 0 0\"/></joint>"
             "<link name=\"f1\"><inertial><origin xyz=\"0 0 -0.1\"/><mass value=\"0.1\"/><inertia ixx=\"1e-4\" ixy=\"0\" ixz=\"0\" iyy=\"1e-4\" iyz=\"0\" izz=\"1e-4\"/></inertial></link>"
             "<link name=\"f2\"><inertial><origin xyz=\"0 0 -0.1\"/><mass value=\"0.1\"/><inertia ixx=\"1e-4\" ixy=\"0\" ixz=\"0\" iyy=\"1e-4\" iyz=\"0\" izz=\"1e-4\"/></inertial></link>"
             "<joint name=\"lead\" type=\"%s\"><parent link=\"palm\"/><child link=\"f1\"/><origin xyz=\"0 0.05 -0.6\"/><axis xyz=\"%s\"/>%s</joint>"
             "<joint name=\"follow\" type=\"%s\"><parent link=\"palm\"/><child link=\"f2\"/><origin xyz=\"0 -0.05 -0.6\"/><axis xyz=\"%s\"/>%s"
             "<mimic joint=\"lead\" multiplier=\"%g\"/></joint>",
             type, ax1, lim, type, ax2, lim, m);
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.gravity[0] = 0, d.gravity[1] = 0, d.gravity[2] = -9.81;
    ctn_world *w = NULL;
    CHECK(ctn_world_create(&d, &w, NULL, 0) == CTN_OK, "world");
    CHECK(load_text(w, urdf) == CTN_OK, "%s", g_msg);
    CHECK(strstr(g_msg, "follow (mimics lead, multiplier") != NULL, "coupled: %s", g_msg);
    ctn_joint_id lead = CTN_NULL_JOINT, follow = CTN_NULL_JOINT;
    ctn_body_id palm = CTN_NULL_BODY, f1 = CTN_NULL_BODY;
    ctn_joint_find(w, "lead", &lead), ctn_joint_find(w, "follow", &follow);
    ctn_body_find(w, "palm", &palm), ctn_body_find(w, "f1", &f1);
    ctn_body_state s;
    ctn_body_get_state(w, palm, &s);
    s.angular_velocity[0] = 1.5; /* the palm swings up (a moving parent) */
    ctn_body_set_state(w, palm, &s);
    ctn_body_get_state(w, f1, &s);
    if (prismatic) s.velocity[1] = 0.2; /* the leader slides out */
    else s.angular_velocity[0] = 3.0;          /* the leader turns */
    ctn_body_set_state(w, f1, &s);
    *worst = 0.0, *travel = 0.0;
    if (roundtrip) { /* a scene file keeps the relative rack-and-pinions (\"relative\", the pinion point) */
        CHECK(ctn_scene_save_json(w, "test_urdf_mimic.json") == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_world *r = cpu_world();
        char err[512];
        CHECK(ctn_scene_load_json(r, "test_urdf_mimic.json", err, sizeof err) == CTN_OK, "%s", err);
        int racks = 0, same = 1;
        for (int k = 0; k < ctn_world_joint_count(w); ++k) {
            ctn_joint_desc a, b;
            ctn_joint_id id = ctn_joint_id_from_int(w, k);
            if (ctn_joint_get_desc(w, id, &a) != CTN_OK || a.type != CTN_JOINT_RACK_PINION) continue;
            racks++;
            same &= ctn_joint_get_desc(r, ctn_joint_id_in(r, id), &b) == CTN_OK && b.type == CTN_JOINT_RACK_PINION && b.relative == 1 &&
                    fabs(b.anchor_a[0] - a.anchor_a[0]) + fabs(b.anchor_a[1] - a.anchor_a[1]) + fabs(b.anchor_a[2] - a.anchor_a[2]) < 1e-6 &&
                    fabs(b.ratio - a.ratio) < 1e-6;
        }
        CHECK(racks == 2 && same, "scene round trip: %d relative rack-and-pinions, kept %d", racks, same);
        ctn_world_destroy(r);
        remove("test_urdf_mimic.json");
    }
    for (int k = 0; k < 240; ++k) {
        CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        double ql = 0, qf = 0;
        if (prismatic) ctn_joint_get_translation(w, lead, &ql), ctn_joint_get_translation(w, follow, &qf);
        else ctn_joint_get_angle(w, lead, &ql), ctn_joint_get_angle(w, follow, &qf);
        *worst = fmax(*worst, fabs(qf - m * ql));
        *travel = fmax(*travel, fabs(ql));
    }
    ctn_world_destroy(w);
}

static void check_mimic_on_base(void) {
    double worst, travel;
    mimic_on_base(0, -0.5, &worst, &travel, 1);
    printf("mimic on a swinging palm, continuous fingers (m = -0.5): |q_f - m q_l| <= %.3g rad, leader up to %.3g rad\n", worst, travel);
    CHECK(travel > 0.05 && worst < 1e-6, "continuous fingers: worst %g (leader %g)", worst, travel);
    mimic_on_base(1, 1.0, &worst, &travel, 0);
    printf("mimic on a swinging palm, prismatic fingers (m = 1): |q_f - m q_l| <= %.3g m, leader up to %.3g m\n", worst, travel);
    CHECK(travel > 0.2 && worst < 1e-5, "prismatic fingers: worst %g (leader %g)", worst, travel);
}

/* <mimic> between joints that share a link other than a common parent, and between a revolute and a
 * prismatic joint: a palm swinging on a passive hinge under gravity (z down) carries the two joints, whose
 * links hang off their axes so that they swing too; each case measures |q_f - m q_l| over 240 steps at
 * 60 Hz. The leader and the follower are revolute (r) or prismatic (p), on the palm (both) or in a chain
 * (the follower on the leader's child, or the leader on the follower's child); the last case hangs the
 * leader on the fixed world (the import gives the world a static body there). */
#define MM_LINK(name, com) \
    "<link name=\"" name "\"><inertial><origin xyz=\"" com "\"/><mass value=\"0.1\"/><inertia ixx=\"1e-4\" ixy=\"0\" ixz=\"0\" iyy=\"1e-4\" iyz=\"0\" izz=\"1e-4\"/></inertial></link>"
#define MM_JOINT(name, type, parent, child, xyz, axis, extra)                                                                                  \
    "<joint name=\"" name "\" type=\"" type "\"><parent link=\"" parent "\"/><child link=\"" child "\"/><origin xyz=\"" xyz "\"/><axis xyz=\"" axis \
    "\"/>" extra "</joint>"
#define MM_PALM                                                                                                                                  \
    "<link name=\"world\"/><link name=\"palm\"><inertial><origin xyz=\"0 0 -0.5\"/><mass value=\"2\"/><inertia ixx=\"0.02\" ixy=\"0\" ixz=\"0\" " \
    "iyy=\"0.02\" iyz=\"0\" izz=\"0.02\"/></inertial></link>"                                                                                \
    "<joint name=\"swing\" type=\"continuous\"><parent link=\"world\"/><child link=\"palm\"/><axis xyz=\"1 0 0\"/></joint>"

static void mimic_case(const char *what, const char *urdf, int lead_prism, int follow_prism, double m, double tol, double min_travel) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.gravity[0] = 0, d.gravity[1] = 0, d.gravity[2] = -9.81;
    ctn_world *w = NULL;
    CHECK(ctn_world_create(&d, &w, NULL, 0) == CTN_OK, "world");
    if (load_text(w, urdf) != CTN_OK) {
        CHECK(0, "%s: %s", what, g_msg);
        ctn_world_destroy(w);
        return;
    }
    char expect[64];
    snprintf(expect, sizeof expect, "follow (mimics lead, multiplier %g)", m);
    CHECK(strstr(g_msg, expect) != NULL && strstr(g_msg, "mimic couplings ignored") == NULL, "%s: coupled: %s", what, g_msg);
    ctn_joint_id lead = CTN_NULL_JOINT, follow = CTN_NULL_JOINT;
    ctn_joint_find(w, "lead", &lead), ctn_joint_find(w, "follow", &follow);
    ctn_body_id palm = CTN_NULL_BODY;
    if (ctn_body_find(w, "palm", &palm) == CTN_OK) {
        ctn_body_state s;
        ctn_body_get_state(w, palm, &s);
        s.angular_velocity[0] = 1.5; /* the palm swings up (a moving base) */
        ctn_body_set_state(w, palm, &s);
    }
    double worst = 0.0, travel = 0.0;
    ctn_step_stats st;
    memset(&st, 0, sizeof st);
    for (int k = 0; k < 240; ++k) {
        if (ctn_world_step(w) != CTN_OK) {
            CHECK(0, "%s: %s", what, ctn_world_last_error(w));
            break;
        }
        double ql = 0, qf = 0;
        if (lead_prism) ctn_joint_get_translation(w, lead, &ql);
        else ctn_joint_get_angle(w, lead, &ql);
        if (follow_prism) ctn_joint_get_translation(w, follow, &qf);
        else ctn_joint_get_angle(w, follow, &qf);
        worst = fmax(worst, fabs(qf - m * ql));
        travel = fmax(travel, fabs(ql));
    }
    ctn_world_get_stats(w, &st);
    printf("mimic %s (m = %g): |q_f - m q_l| <= %.3g, leader up to %.3g; %s\n", what, m, worst, travel, st.solver_reason);
    CHECK(travel > min_travel && worst < tol, "%s: worst %g (leader %g)", what, worst, travel);
    CHECK(st.solver == CTN_SOLVER_DIRECT, "%s: %s", what, st.solver_reason);
    ctn_world_destroy(w);
}

static void check_mimic_general(void) {
    const char *lim = "<limit lower=\"-1\" upper=\"1\" effort=\"0\" velocity=\"1\"/>";
    char u[4096];
    /* revolute follower on the leader's child (a finger's distal joint following its middle one) */
    snprintf(u, sizeof u, "%s", MM_PALM MM_LINK("mid", "0 0.05 -0.1") MM_LINK("tip", "0 0.05 -0.1")
             MM_JOINT("lead", "continuous", "palm", "mid", "0 0 -0.6", "1 0 0", "")
             MM_JOINT("follow", "continuous", "mid", "tip", "0 0 -0.2", "1 0 0", "<mimic joint=\"lead\" multiplier=\"0.7\"/>"));
    mimic_case("r on r's child", u, 0, 0, 0.7, 1e-6, 0.05);
    /* the leader on the follower's child, axes not parallel */
    snprintf(u, sizeof u, "%s", MM_PALM MM_LINK("mid", "0 0.05 -0.1") MM_LINK("tip", "0.05 0 -0.1")
             MM_JOINT("follow", "continuous", "palm", "mid", "0 0 -0.6", "1 0 0", "<mimic joint=\"lead\" multiplier=\"-1.5\"/>")
             MM_JOINT("lead", "continuous", "mid", "tip", "0 0 -0.2", "0 1 0", ""));
    mimic_case("r under r's child", u, 0, 0, -1.5, 1e-6, 0.05);
    /* a revolute follower of a prismatic leader on one palm (rad per m) */
    snprintf(u, sizeof u, "%s%s%s", MM_PALM MM_LINK("f1", "0 0 -0.1") MM_LINK("f2", "0 0.05 -0.1"),
             "<joint name=\"lead\" type=\"prismatic\"><parent link=\"palm\"/><child link=\"f1\"/><origin xyz=\"0 0.05 -0.6\"/><axis xyz=\"0 1 0\"/>", lim);
    snprintf(u + strlen(u), sizeof u - strlen(u), "%s", "</joint>" MM_JOINT("follow", "continuous", "palm", "f2", "0 -0.05 -0.6", "1 0 0", "<mimic joint=\"lead\" multiplier=\"2\"/>"));
    mimic_case("r of p, one palm", u, 1, 0, 2.0, 1e-5, 0.05);
    /* a prismatic follower on a revolute leader's child (m per rad) */
    snprintf(u, sizeof u, "%s%s%s", MM_PALM MM_LINK("mid", "0 0.05 -0.1") MM_LINK("slide", "0 0 -0.1")
             MM_JOINT("lead", "continuous", "palm", "mid", "0 0 -0.6", "1 0 0", "")
             "<joint name=\"follow\" type=\"prismatic\"><parent link=\"mid\"/><child link=\"slide\"/><origin xyz=\"0 0 -0.2\"/><axis xyz=\"0 1 0\"/>",
             lim, "<mimic joint=\"lead\" multiplier=\"0.1\"/></joint>");
    mimic_case("p on r's child", u, 0, 1, 0.1, 1e-6, 0.05);
    /* the leader hinged to the fixed world, the follower on its child */
    snprintf(u, sizeof u, "%s", "<link name=\"world\"/>" MM_LINK("mid", "0 0.05 -0.1") MM_LINK("tip", "0 0.05 -0.1")
             MM_JOINT("lead", "continuous", "world", "mid", "0 0 0", "1 0 0", "")
             MM_JOINT("follow", "continuous", "mid", "tip", "0 0 -0.2", "1 0 0", "<mimic joint=\"lead\" multiplier=\"0.5\"/>"));
    mimic_case("r on the world-hinged r's child", u, 0, 0, 0.5, 1e-6, 0.05);
}
#undef MM_LINK
#undef MM_JOINT
#undef MM_PALM

/* A four-bar gripper laid out as Robotiq's 2F-85 description does it: the leader finger_joint turns the
 * left outer knuckle on the palm; the right outer knuckle and both inner knuckles mimic it on the palm
 * (m = 1), and each inner finger, on an outer finger welded to its outer knuckle, mimics it with m = -1.
 * The right inner finger shares no link with the leader: it is coupled through the right outer knuckle that
 * mimics the leader on its side (the report says "through"). The palm swings, a motor closes the leader onto
 * its limit. While it moves, the motor and limit rows take the velocity step (no position projection), and
 * the couplings through the heavy swinging palm (the inner fingers': the palm turns relative to the outer
 * knuckle) drift within a step by a few 1e-5 rad before the stabilisation pulls them back; at rest they hold. */
static void check_mimic_gripper(ctn_bounded_rows bounded) {
    char u[8192];
    size_t n = 0;
#define PUT(...) n += (size_t)snprintf(u + n, sizeof u - n, __VA_ARGS__)
    PUT("<link name=\"world\"/><link name=\"palm\"><inertial><origin xyz=\"0 0 -0.5\"/><mass value=\"2\"/><inertia ixx=\"0.02\" ixy=\"0\" "
        "ixz=\"0\" iyy=\"0.02\" iyz=\"0\" izz=\"0.02\"/></inertial></link>"
        "<joint name=\"swing\" type=\"continuous\"><parent link=\"world\"/><child link=\"palm\"/><axis xyz=\"1 0 0\"/></joint>");
    const char *names[6] = {"lok", "rok", "lik", "rik", "lof", "rof"};
    for (int k = 0; k < 8; ++k) {
        const char *name = k < 6 ? names[k] : k == 6 ? "lif" : "rif";
        PUT("<link name=\"%s\"><inertial><origin xyz=\"0 %s0.02 -0.02\"/><mass value=\"0.03\"/><inertia ixx=\"1e-5\" ixy=\"0\" ixz=\"0\" "
            "iyy=\"1e-5\" iyz=\"0\" izz=\"1e-5\"/></inertial></link>", name, name[0] == 'l' ? "" : "-");
    }
    /* knuckles on the palm: outer at |y| 0.03, inner at |y| 0.013, the inner 0.006 lower; axes along x */
    PUT("<joint name=\"finger_joint\" type=\"revolute\"><parent link=\"palm\"/><child link=\"lok\"/><origin xyz=\"0 0.03 -0.6\"/>"
        "<axis xyz=\"1 0 0\"/><limit lower=\"0\" upper=\"0.8\" effort=\"0\" velocity=\"2\"/></joint>");
    PUT("<joint name=\"rok_joint\" type=\"revolute\"><parent link=\"palm\"/><child link=\"rok\"/><origin xyz=\"0 -0.03 -0.6\"/>"
        "<axis xyz=\"-1 0 0\"/><limit lower=\"0\" upper=\"0.8\" effort=\"1\" velocity=\"2\"/><mimic joint=\"finger_joint\" multiplier=\"1\"/></joint>");
    PUT("<joint name=\"lik_joint\" type=\"revolute\"><parent link=\"palm\"/><child link=\"lik\"/><origin xyz=\"0 0.013 -0.606\"/>"
        "<axis xyz=\"1 0 0\"/><limit lower=\"0\" upper=\"0.8\" effort=\"1\" velocity=\"2\"/><mimic joint=\"finger_joint\" multiplier=\"1\"/></joint>");
    PUT("<joint name=\"rik_joint\" type=\"revolute\"><parent link=\"palm\"/><child link=\"rik\"/><origin xyz=\"0 -0.013 -0.606\"/>"
        "<axis xyz=\"-1 0 0\"/><limit lower=\"0\" upper=\"0.8\" effort=\"1\" velocity=\"2\"/><mimic joint=\"finger_joint\" multiplier=\"1\"/></joint>");
    PUT("<joint name=\"lof_joint\" type=\"fixed\"><parent link=\"lok\"/><child link=\"lof\"/><origin xyz=\"0 0.03 -0.06\"/></joint>");
    PUT("<joint name=\"rof_joint\" type=\"fixed\"><parent link=\"rok\"/><child link=\"rof\"/><origin xyz=\"0 -0.03 -0.06\"/></joint>");
    PUT("<joint name=\"lif_joint\" type=\"revolute\"><parent link=\"lof\"/><child link=\"lif\"/><origin xyz=\"0 -0.01 -0.04\"/>"
        "<axis xyz=\"1 0 0\"/><limit lower=\"-0.8\" upper=\"0\" effort=\"1\" velocity=\"2\"/><mimic joint=\"finger_joint\" multiplier=\"-1\"/></joint>");
    PUT("<joint name=\"rif_joint\" type=\"revolute\"><parent link=\"rof\"/><child link=\"rif\"/><origin xyz=\"0 0.01 -0.04\"/>"
        "<axis xyz=\"-1 0 0\"/><limit lower=\"-0.8\" upper=\"0\" effort=\"1\" velocity=\"2\"/><mimic joint=\"finger_joint\" multiplier=\"-1\"/></joint>");
#undef PUT
    CHECK(n < sizeof u, "gripper text fits (%zu)", n);
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.bounded_rows = bounded;
    d.gravity[0] = 0, d.gravity[1] = 0, d.gravity[2] = -9.81;
    ctn_world *w = NULL;
    CHECK(ctn_world_create(&d, &w, NULL, 0) == CTN_OK, "world");
    if (load_text(w, u) != CTN_OK) {
        CHECK(0, "gripper: %s", g_msg);
        ctn_world_destroy(w);
        return;
    }
    CHECK(strstr(g_msg, "mimic couplings ignored") == NULL, "every mimic coupled: %s", g_msg);
    CHECK(strstr(g_msg, "rif_joint (mimics finger_joint, multiplier -1; through rok_joint, multiplier -1)") != NULL, "report: %s", g_msg);
    const char *fol[5] = {"rok_joint", "lik_joint", "rik_joint", "lif_joint", "rif_joint"};
    const double mul[5] = {1, 1, 1, -1, -1};
    ctn_joint_id lead = CTN_NULL_JOINT, f[5];
    CHECK(ctn_joint_find(w, "finger_joint", &lead) == CTN_OK, "leader");
    for (int k = 0; k < 5; ++k) CHECK(ctn_joint_find(w, fol[k], &f[k]) == CTN_OK, "%s", fol[k]);
    ctn_body_id palm = CTN_NULL_BODY;
    ctn_body_find(w, "palm", &palm);
    ctn_body_state s;
    ctn_body_get_state(w, palm, &s);
    s.angular_velocity[0] = 1.5;
    ctn_body_set_state(w, palm, &s);
    CHECK(ctn_joint_set_motor(w, lead, 1, 1.0, 10.0) == CTN_OK, "%s", ctn_world_last_error(w)); /* closes at 1 rad/s onto 0.8 */
    double worst = 0.0, travel = 0.0, last = 0.0;
    for (int step = 0; step < 120; ++step) {
        if (ctn_world_step(w) != CTN_OK) {
            CHECK(0, "gripper: %s", ctn_world_last_error(w));
            break;
        }
        double ql = 0.0, qf = 0.0;
        ctn_joint_get_angle(w, lead, &ql);
        travel = fmax(travel, fabs(ql));
        last = 0.0;
        for (int k = 0; k < 5; ++k) {
            ctn_joint_get_angle(w, f[k], &qf);
            last = fmax(last, fabs(qf - mul[k] * ql));
        }
        worst = fmax(worst, last);
    }
    ctn_step_stats st;
    ctn_world_get_stats(w, &st);
    printf("mimic gripper (2F-85 layout, 5 followers, leader driven at 1 rad/s onto its limit): |q_f - m q_l| <= %.3g rad while it closes, "
           "%.3g rad at rest, leader up to %.3g rad; %s\n", worst, last, travel, st.solver_reason);
    CHECK(travel > 0.79 && worst < 1e-4 && last < 1e-6, "gripper: worst %g, at rest %g (leader %g)", worst, last, travel);
    ctn_world_destroy(w);
}

static int g_warnings;
static char g_warning[512];
static void log_hook(ctn_log_level level, const char *message, void *user) {
    (void)user;
    if (level != CTN_LOG_WARNING) return;
    g_warnings++;
    snprintf(g_warning, sizeof g_warning, "%s", message);
}

/* A link with a mass and a zero inertia tensor gets the tensor of its collision box (m/12 (b^2 + c^2), ...),
 * with a warning through the log hook and a line in the report; without collision geometry it is refused. */
static void check_zero_inertia(void) {
    ctn_world *w = cpu_world();
    ctn_set_log(log_hook, NULL);
    g_warnings = 0;
    ctn_status st = load_text(w, "<link name=\"brick\"><inertial><mass value=\"2\"/><inertia ixx=\"0\" ixy=\"0\" ixz=\"0\" iyy=\"0\" iyz=\"0\" izz=\"0\"/>"
                                 "</inertial><collision><geometry><box size=\"0.2 0.4 0.6\"/></geometry></collision></link>");
    ctn_set_log(NULL, NULL);
    CHECK(st == CTN_OK, "%s", g_msg);
    ctn_body_id b = CTN_NULL_BODY;
    ctn_body_desc d;
    CHECK(ctn_body_find(w, "brick", &b) == CTN_OK && ctn_body_get_desc(w, b, &d) == CTN_OK, "brick");
    double want[3] = {2.0 / 12 * (0.16 + 0.36), 2.0 / 12 * (0.04 + 0.36), 2.0 / 12 * (0.04 + 0.16)};
    for (int k = 0; k < 3; ++k) CHECK(fabs(d.inertia[k] - want[k]) < 1e-6 * want[k], "moment %d: %g, box %g", k, d.inertia[k], want[k]);
    CHECK(g_warnings == 1 && strstr(g_warning, "brick") && strstr(g_warning, "zero inertia"), "warning: %d, '%s'", g_warnings, g_warning);
    CHECK(strstr(g_msg, "zero inertia computed from the collision geometry") && strstr(g_msg, "brick (ixx 0.0867"), "report: %s", g_msg);
    ctn_world_destroy(w);
    w = cpu_world();
    st = load_text(w, "<link name=\"ghost\"><inertial><mass value=\"2\"/><inertia ixx=\"0\" ixy=\"0\" ixz=\"0\" iyy=\"0\" iyz=\"0\" izz=\"0\"/></inertial></link>");
    CHECK(st == CTN_ERR_INVALID_ARGUMENT && strstr(g_msg, "ghost") && strstr(g_msg, "three positive moments"), "no geometry: %s", g_msg);
    ctn_world_destroy(w);
}

/* Links of 2e-6 kg (fingers) on a 10 kg free base spinning in free fall: measured, they stay on their joints
 * and swing exactly as 0.02 kg fingers of the same proportions do (a pendulum's motion does not depend on its
 * mass); no mass floor is needed. Returns the largest finger spin relative to the base. */
static double tiny_run(const char *mass, double *gap) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.gravity[1] = 0, d.gravity[2] = -9.81;
    ctn_world *w = NULL;
    char err[256], text[2048];
    ctn_world_create(&d, &w, err, sizeof err);
    snprintf(text, sizeof text,
             "<link name=\"base\"><inertial><mass value=\"10\"/><inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" iyz=\"0\" izz=\"0.1\"/></inertial></link>"
             "<link name=\"f1\"><inertial><origin xyz=\"0 0 0.02\"/><mass value=\"%s\"/><inertia ixx=\"%s\" ixy=\"0\" ixz=\"0\" iyy=\"%s\" iyz=\"0\" izz=\"%s\"/></inertial></link>"
             "<joint name=\"j1\" type=\"revolute\"><parent link=\"base\"/><child link=\"f1\"/><origin xyz=\"0.05 0 0.15\"/><axis xyz=\"0 1 0\"/>"
             "<limit lower=\"-0.5\" upper=\"0.5\" effort=\"0\" velocity=\"1\"/></joint>",
             mass, mass[0] == '2' ? "1e-12" : "1e-8", mass[0] == '2' ? "1e-12" : "1e-8", mass[0] == '2' ? "1e-12" : "1e-8");
    CHECK(load_text(w, text) == CTN_OK, "%s", g_msg);
    ctn_body_id base = CTN_NULL_BODY, f1 = CTN_NULL_BODY;
    ctn_body_find(w, "base", &base);
    ctn_body_find(w, "f1", &f1);
    ctn_body_state s;
    ctn_body_get_state(w, base, &s);
    s.angular_velocity[0] = 1, s.angular_velocity[1] = 2, s.angular_velocity[2] = 0.5;
    ctn_body_set_state(w, base, &s);
    double spin = 0.0;
    *gap = 0.0;
    for (int k = 0; k < 600; ++k) {
        CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_step_stats ss;
        ctn_world_get_stats(w, &ss);
        *gap = fmax(*gap, ss.max_gap);
        ctn_body_state a, f;
        ctn_body_get_state(w, base, &a);
        ctn_body_get_state(w, f1, &f);
        spin = fmax(spin, hypot(hypot(f.angular_velocity[0] - a.angular_velocity[0], f.angular_velocity[1] - a.angular_velocity[1]),
                                f.angular_velocity[2] - a.angular_velocity[2]));
    }
    ctn_world_destroy(w);
    return spin;
}

static void check_tiny_links(void) {
    double gap_tiny = 0, gap_heavy = 0;
    double tiny = tiny_run("2e-6", &gap_tiny), heavy = tiny_run("0.02", &gap_heavy);
    printf("tiny links: 2e-6 kg finger spins at most %.4g rad/s relative to its base (0.02 kg: %.4g), worst gap %.3g m (%.3g m) over 10 s\n",
           tiny, heavy, gap_tiny, gap_heavy);
    CHECK(fabs(tiny - heavy) < 0.05 * heavy && tiny < 30.0, "2e-6 kg finger %g rad/s, 0.02 kg %g rad/s", tiny, heavy);
    CHECK(gap_tiny < 1e-3, "2e-6 kg finger's joint opened %g m", gap_tiny);
}

/* A scene file with "up": "z" (gravity along -z) and two copies of examples/double_pendulum.urdf under
 * "robots", the second moved 5 m along x and turned 90 deg about z; a missing robot file is refused naming
 * the entry. */
static void check_scene_robots(void) {
    const char *text = "{\"world\": {\"up\": \"z\"}, \"robots\": ["
                       "{\"urdf\": \"double_pendulum.urdf\"},"
                       "{\"urdf\": \"double_pendulum.urdf\", \"position\": [5, 0, 0], \"rotation\": [0.70710678, 0, 0, 0.70710678]}]}";
    ctn_scene *sc = NULL;
    char err[512];
    ctn_status st = ctn_scene_parse_text(text, strlen(text), CATENA_SOURCE_DIR "/examples/robots.json", &sc, err, sizeof err);
    if (st == CTN_ERR_UNSUPPORTED) {
        printf("scene robots: skipped (%s)\n", err);
        return;
    }
    CHECK(st == CTN_OK, "%s", err);
    if (st != CTN_OK) return;
    ctn_world_desc d;
    int steps = 0;
    ctn_scene_get_settings(sc, &d, &steps);
    CHECK(d.gravity[0] == 0.0 && d.gravity[1] == 0.0 && d.gravity[2] == -9.81, "up z: gravity (%g %g %g)", d.gravity[0], d.gravity[1], d.gravity[2]);
    d.backend = CTN_BACKEND_CPU;
    ctn_world *w = NULL;
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    CHECK(ctn_scene_build(sc, w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_scene_free(sc);
    int n = ctn_world_body_count(w), nj = ctn_world_joint_count(w);
    CHECK(n == 4 && nj == 4, "two robots: %d bodies, %d joints", n, nj);
    double x[12];
    int got = 0;
    ctn_world_get_positions(w, x, 4, &got);
    /* robot 2's first rod: robot 1's rod turned 90 deg about z, then moved by (5, 0, 0) */
    CHECK(fabs(x[6] - (5.0 - x[1])) < 1e-9 && fabs(x[7] - x[0]) < 1e-9 && fabs(x[8] - x[2]) < 1e-9, "placed rod at (%g %g %g) from (%g %g %g)", x[6],
          x[7], x[8], x[0], x[1], x[2]);
    for (int k = 0; k < 60; ++k) CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_step_stats ss;
    ctn_world_get_stats(w, &ss);
    CHECK(ss.max_gap < 1e-3, "robots' joints open by %g m", ss.max_gap);
    ctn_world_destroy(w);
    const char *bad = "{\"robots\": [{\"urdf\": \"double_pendulum.urdf\"}, {\"urdf\": \"no_such_robot.urdf\"}]}";
    st = ctn_scene_parse_text(bad, strlen(bad), CATENA_SOURCE_DIR "/examples/robots.json", &sc, err, sizeof err);
    CHECK(st == CTN_ERR_IO && strstr(err, "robots[1].urdf") && strstr(err, "no_such_robot.urdf"), "missing robot file: %s", err);
    const char *dev = "{\"robots\": [{\"urdf\": \"/dev/null\"}]}";
    st = ctn_scene_parse_text(dev, strlen(dev), "dev.json", &sc, err, sizeof err);
    CHECK(st == CTN_ERR_IO && strstr(err, "robots[0].urdf") && strstr(err, "not a regular file"), "a device as robot: %s", err);
    const char *badup = "{\"world\": {\"up\": \"w\"}}";
    st = ctn_scene_parse_text(badup, strlen(badup), "up.json", &sc, err, sizeof err);
    CHECK(st == CTN_ERR_INVALID_ARGUMENT && strstr(err, "world.up") && strstr(err, "'w'"), "bad up axis: %s", err);
    printf("scene robots: up z, two double pendulums placed, gap %.3g m after 60 steps\n", ss.max_gap);
}

/* A leg whose knee is limited to [-2.7, -0.9] rad (as a quadruped's) and a slider limited to [0.1, 0.3] m:
 * zero is outside both, so the robot starts with the knee at -0.9 rad and the slider at 0.1 m (reported),
 * while position 0 stays the joints' zero (the angle reads -0.9, not 0). Under z-up gravity, the hip held
 * by its motor, nothing snaps: the joints hold to 1e-6 m over 120 steps (built at zero, the knee would
 * jump 0.9 rad onto its limit). */
static void check_start_in_limits(void) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.gravity[0] = 0, d.gravity[1] = 0, d.gravity[2] = -9.81;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    if (!w) return;
    ctn_status st = load_text(w, "<link name=\"world\"/>" LINK("thigh", "") LINK("calf", "") LINK("carriage", "")
                                 JOINT("hip", "revolute", "world", "thigh", "0 0 1", "<axis xyz=\"0 1 0\"/><limit lower=\"-1\" upper=\"1\" effort=\"200\" velocity=\"1\"/>")
                                 JOINT("knee", "revolute", "thigh", "calf", "0 0 -0.3", "<axis xyz=\"0 1 0\"/><limit lower=\"-2.7\" upper=\"-0.9\" effort=\"100\" velocity=\"1\"/>")
                                 JOINT("rail", "prismatic", "world", "carriage", "2 0 1", "<axis xyz=\"0 0 1\"/><limit lower=\"0.1\" upper=\"0.3\" effort=\"100\" velocity=\"1\"/>"));
    CHECK(st == CTN_OK, "%s", g_msg);
    CHECK(strstr(g_msg, "start at the nearest limit (position 0 stays the joint's zero): knee (-0.9), rail (0.1)") != NULL, "report: %s", g_msg);
    ctn_joint_id knee = CTN_NULL_JOINT, rail = CTN_NULL_JOINT;
    double angle = 0.0, travel = 0.0;
    CHECK(ctn_joint_find(w, "knee", &knee) == CTN_OK && ctn_joint_get_angle(w, knee, &angle) == CTN_OK && fabs(angle + 0.9) < 1e-6,
          "the knee starts at %g rad (-0.9)", angle);
    CHECK(ctn_joint_find(w, "rail", &rail) == CTN_OK && ctn_joint_get_translation(w, rail, &travel) == CTN_OK && fabs(travel - 0.1) < 1e-6,
          "the slider starts at %g m (0.1)", travel);
    double worst_gap = 0.0, worst_angle = 0.0, gap, ang;
    for (int k = 0; k < 120; ++k) {
        CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_world_measure(w, &gap, &ang);
        worst_gap = fmax(worst_gap, gap), worst_angle = fmax(worst_angle, ang);
    }
    printf("start in limits: knee at %.3f rad, slider at %.3f m; worst gap %.3g m, angle %.3g rad over 120 steps\n", angle, travel, worst_gap,
           worst_angle);
    CHECK(worst_gap < 1e-6 && worst_angle < 1e-3, "worst gap %g m, angle %g rad", worst_gap, worst_angle);
    ctn_world_destroy(w);
}

/* A motorised joint on a light link carrying a heavy arm (the Franka Panda's 0.65 kg second link carries
 * 12 kg): the motor row is bounded, leaves the exact forest and is updated with its own two bodies'
 * effective mass, so each outer iteration recovers only about the light link's share of the load. With
 * the default 4 iterations the arm fell onto its limit; auto gives such a small mechanism more outer
 * iterations (solver_auto.c), and the joints hold by default. */
static void light_link_heavy_arm(ctn_solver solver, ctn_bounded_rows bounded, double *worst_gap, double *worst_angle, double *moved,
                                 ctn_step_stats *stats) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.solver = solver;
    d.bounded_rows = bounded;
    d.gravity[0] = 0, d.gravity[1] = 0, d.gravity[2] = -9.81;
    ctn_world *w = NULL;
    char err[256];
    *worst_gap = *worst_angle = *moved = 1e30;
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    if (!w) return;
#define MLINK(name, mass, com, i)                                                                                              \
    "<link name=\"" name "\"><inertial><origin xyz=\"" com "\"/><mass value=\"" mass "\"/><inertia ixx=\"" i "\" ixy=\"0\" ixz=\"0\" iyy=\"" i \
    "\" iyz=\"0\" izz=\"" i "\"/></inertial></link>\n"
    ctn_status st = load_text(w, "<link name=\"world\"/>" MLINK("base", "3", "0 0 0.1", "0.01") MLINK("shoulder_link", "0.5", "0 0 0.05", "0.001")
                                 MLINK("upper_arm", "6", "0.08 0 0.15", "0.05") MLINK("forearm", "5", "0.16 0 0.1", "0.04")
                                 JOINT("fix", "fixed", "world", "base", "0 0 0", "")
                                 JOINT("j1", "revolute", "base", "shoulder_link", "0 0 0.3", "<axis xyz=\"0 0 1\"/><limit lower=\"-2.9\" upper=\"2.9\" effort=\"87\" velocity=\"2\"/>")
                                 JOINT("j2", "revolute", "shoulder_link", "upper_arm", "0 0 0.1", "<axis xyz=\"0 1 0\"/><limit lower=\"-1.76\" upper=\"1.76\" effort=\"87\" velocity=\"2\"/>")
                                 JOINT("j3", "revolute", "upper_arm", "forearm", "0.08 0 0.3", "<axis xyz=\"0 1 0\"/><limit lower=\"-3\" upper=\"-0.07\" effort=\"87\" velocity=\"2\"/>"));
#undef MLINK
    CHECK(st == CTN_OK, "%s", g_msg);
    ctn_joint_id j2 = CTN_NULL_JOINT;
    CHECK(ctn_joint_find(w, "j2", &j2) == CTN_OK, "j2");
    double gap, ang;
    *worst_gap = *worst_angle = 0.0;
    for (int k = 0; k < 120; ++k) {
        CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_world_measure(w, &gap, &ang);
        *worst_gap = fmax(*worst_gap, gap), *worst_angle = fmax(*worst_angle, ang);
    }
    ctn_world_get_stats(w, stats);
    ctn_joint_get_angle(w, j2, moved);
    *moved = fabs(*moved);
    ctn_world_destroy(w);
}

/* A motorised joint on a light link carrying a heavy arm (the Franka Panda's 0.65 kg second link carries
 * 12 kg): the motor row is bounded, leaves the exact forest and is updated with its own two bodies'
 * effective mass, so each outer iteration recovers only about the light link's share of the load. With
 * 4 outer iterations (direct set by hand, and auto before it raised them) the 87 N m shoulder motor lets
 * the 16 N m load fall onto the elbow's limit; auto gives such a small mechanism 64 (solver_auto.c), which
 * keeps its joints and limits and slows the sag, without stopping it. That is the sweep (CTN_BOUNDED_SWEEP);
 * with the active set (the default on the CPU) the motor row is in the exact solve and holds at 4. */
static void check_light_link_heavy_arm(void) {
    double g4, a4, m4, g, a, m, ge, ae, me;
    ctn_step_stats s4, st, se;
    memset(&s4, 0, sizeof s4), memset(&st, 0, sizeof st), memset(&se, 0, sizeof se);
    light_link_heavy_arm(CTN_SOLVER_DIRECT, CTN_BOUNDED_SWEEP, &g4, &a4, &m4, &s4);
    light_link_heavy_arm(CTN_SOLVER_AUTO, CTN_BOUNDED_SWEEP, &g, &a, &m, &st);
    light_link_heavy_arm(CTN_SOLVER_DIRECT, CTN_BOUNDED_AUTO, &ge, &ae, &me, &se);
    printf("light link, heavy arm, active set at %d iterations: worst gap %.3g m, angle %.3g rad, shoulder moved %.3g rad\n", se.iterations,
           ge, ae, me);
    CHECK(ge < 1e-5 && ae < 1e-3 && me < 1e-6 && me < 0.01 * m, "active set: worst gap %g m, angle %g rad, shoulder moved %g rad (the sweep at 64: %g)",
          ge, ae, me, m);
    printf("light link, heavy arm: direct at %d iterations: worst gap %.3g m, angle %.3g rad, shoulder moved %.3g rad; %s: worst gap %.3g m, "
           "angle %.3g rad, shoulder moved %.3g rad (120 steps)\n",
           s4.iterations, g4, a4, m4, st.solver_reason, g, a, m);
    CHECK(st.solver == CTN_SOLVER_DIRECT && st.iterations == 64 && strstr(st.solver_reason, "64 outer sweeps"),
          "auto: direct with 64 outer iterations for the bounded rows (%d: %s)", st.iterations, st.solver_reason);
    CHECK(s4.iterations == 4, "direct set by hand keeps desc.iterations (%d)", s4.iterations);
    CHECK(g < 1e-5 && a < 1e-3, "auto: worst gap %g m, angle %g rad", g, a);
    CHECK(g4 > 1e-5 || a4 > 1e-3, "4 outer iterations do not hold (gap %g m, angle %g rad): the case no longer tests the raise", g4, a4);
    CHECK(m < 0.5 * m4, "the shoulder sags less with auto (%g rad) than with 4 outer iterations (%g rad)", m, m4);
}

int main(void) {
    ctn_world *w = cpu_world();
    ctn_status st = load(w, CATENA_SOURCE_DIR "/examples/double_pendulum.urdf");
    ctn_world_destroy(w);
    if (st == CTN_ERR_UNSUPPORTED) {
        CHECK(strstr(g_msg, "no URDF support") != NULL, "a build without urdfdom says so: %s", g_msg);
        printf("SKIP: %s\n", g_msg);
        return check_failures ? 1 : 77;
    }
    check_double_pendulum_matches_json();
    check_snake();
    check_frames();
    check_link_kinds();
    check_refusals_and_reports();
    check_prismatic();
    check_planar();
    check_compound();
    check_joint_names_and_mimic();
    check_mimic_on_base();
    check_mimic_general();
    check_mimic_gripper(CTN_BOUNDED_SWEEP);
    check_mimic_gripper(CTN_BOUNDED_AUTO);
    check_zero_inertia();
    check_tiny_links();
    check_scene_robots();
    check_start_in_limits();
    check_light_link_heavy_arm();
    return check_report("test_urdf");
}
