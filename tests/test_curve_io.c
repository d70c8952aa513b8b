/* Curve constraints in scene files and checkpoints:
 *   - a world with a line, a circle (acceleration form), a helix on a rigid body's anchor, an open and a
 *     closed polyline and a circle in a body's frame is saved as a scene, loaded into a fresh world and
 *     both step bitwise alike; the descriptions read back equal;
 *   - a checkpoint taken mid-run (polyline windows moved) resumes bitwise;
 *   - scene files with a bad curve are refused naming the JSON path and value: zero radius, empty
 *     polyline, unknown curve kind, points on a circle; the world is unchanged. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "ids.h"
#include "check.h"
#include "fixtures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const double PI = 3.14159265358979323846;

static ctn_world *build(void) {
    ctn_world *w = fixture_world(CTN_BACKEND_CPU, ctn_world_desc_default().solver, NULL, 0);
    if (!w) return NULL;
    ctn_curve_desc cd = ctn_curve_desc_default(CTN_CURVE_LINE);
    cd.body = fixture_particle(w, 0.0, 1.0, 0.0, 0.0);
    cd.origin[1] = 1.0;
    cd.axis[0] = 1.0, cd.axis[1] = -0.5, cd.axis[2] = 0.0;
    fixture_curve(w, &cd);
    cd = ctn_curve_desc_default(CTN_CURVE_CIRCLE);
    cd.body = fixture_particle(w, 2.0 + 0.5 * sin(0.4), 0.5 - 0.5 * cos(0.4), 0.0, 0.0);
    cd.origin[0] = 2.0, cd.origin[1] = 0.5;
    cd.radius = 0.5;
    cd.stabilization = CTN_CURVE_STAB_ACCELERATION;
    cd.ks = 900.0, cd.kd = 60.0;
    fixture_curve(w, &cd);
    /* a rigid bead (a small box) whose corner rides a helix */
    ctn_body_desc bd = ctn_body_desc_default();
    bd.position[0] = 4.3, bd.position[1] = -0.05;
    bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 0.01;
    ctn_body_id box = CTN_NULL_BODY;
    CHECK(ctn_body_add(w, &bd, &box) == CTN_OK, "%s", ctn_world_last_error(w));
    cd = ctn_curve_desc_default(CTN_CURVE_HELIX);
    cd.body = box;
    cd.anchor[1] = 0.05;
    cd.origin[0] = 4.0;
    cd.axis[1] = 1.0, cd.axis[2] = 0.0;
    cd.reference[0] = 1.0;
    cd.radius = 0.3;
    cd.pitch = 0.15;
    fixture_curve(w, &cd);
    enum { N = 24 };
    double pts[N][3];
    for (int i = 0; i < N; ++i) pts[i][0] = 6.0 + 0.5 * cos(2 * PI * i / N), pts[i][1] = 0.5 * sin(2 * PI * i / N), pts[i][2] = 0.1 * i;
    cd = ctn_curve_desc_default(CTN_CURVE_POLYLINE);
    cd.body = fixture_particle(w, 6.5, 0.0, 0.0, 0.0);
    cd.points = &pts[0][0];
    cd.count = N;
    fixture_curve(w, &cd);
    for (int i = 0; i < N; ++i) pts[i][0] += 2.0, pts[i][2] = 0.0;
    cd.body = fixture_particle(w, 8.0, -0.49, 0.0, 2.0);
    cd.closed = 1;
    fixture_curve(w, &cd);
    ctn_body_desc wd = ctn_body_desc_default();
    wd.position[0] = 10.0;
    wd.angular_velocity[2] = 3.0;
    ctn_body_id wheel = CTN_NULL_BODY;
    CHECK(ctn_body_add(w, &wd, &wheel) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_HINGE);
    jd.body_a = wheel;
    jd.anchor_b[0] = 10.0;
    CHECK(ctn_joint_add(w, &jd, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    cd = ctn_curve_desc_default(CTN_CURVE_CIRCLE);
    cd.body = fixture_particle(w, 10.4, 0.0, 0.0, 0.0);
    cd.frame = wheel;
    cd.radius = 0.4;
    fixture_curve(w, &cd);
    return w;
}

static int same_state(ctn_world *a, ctn_world *b, const char *what) {
    double pa[64 * 3], pb[64 * 3];
    int na = 0, nb = 0;
    ctn_world_get_positions(a, pa, 64, &na);
    ctn_world_get_positions(b, pb, 64, &nb);
    int same = na == nb && memcmp(pa, pb, (size_t)na * 3 * sizeof *pa) == 0;
    double worst = 0.0;
    for (int k = 0; k < 3 * na && na == nb; ++k) worst = fmax(worst, fabs(pa[k] - pb[k]));
    CHECK(same, "%s: positions differ (%d / %d bodies, largest %g m)", what, na, nb, worst);
    return same;
}

static void scene_round_trip(void) {
    char path[64];
    snprintf(path, sizeof path, "/tmp/test_curve_io_%ld.json", (long)getpid());
    ctn_world *w = build();
    for (int i = 0; i < 20; ++i) CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_scene_save_json(w, path) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_world_desc d;
    ctn_world_get_desc(w, &d);
    ctn_world *r = NULL;
    char err[512];
    CHECK(ctn_world_create(&d, &r, err, sizeof err) == CTN_OK, "%s", err);
    CHECK(ctn_scene_load_json(r, path, err, sizeof err) == CTN_OK, "%s", err);
    CHECK(ctn_world_joint_count(r) == ctn_world_joint_count(w), "%d joints reloaded, %d saved", ctn_world_joint_count(r),
          ctn_world_joint_count(w));
    for (int j = 0; j < ctn_world_joint_count(w); ++j) {
        ctn_curve_desc a, b;
        if (ctn_curve_constraint_get(w, HJOINT(w, j), &a) != CTN_OK) continue; /* the hinge */
        CHECK(ctn_curve_constraint_get(r, HJOINT(r, j), &b) == CTN_OK, "joint %d: %s", j, ctn_world_last_error(r));
        int same = a.type == b.type && a.count == b.count && a.closed == b.closed && a.radius == b.radius && a.pitch == b.pitch &&
                   memcmp(a.origin, b.origin, sizeof a.origin) == 0 && memcmp(a.axis, b.axis, sizeof a.axis) == 0 &&
                   memcmp(a.reference, b.reference, sizeof a.reference) == 0 && a.stabilization == b.stabilization && a.ks == b.ks &&
                   a.kd == b.kd && (a.count == 0 || memcmp(a.points, b.points, (size_t)a.count * 3 * sizeof *a.points) == 0);
        CHECK(same, "joint %d: the curve read back differs after the round trip", j);
    }
    /* the saved world and the reloaded one step alike (a scene holds no warm start: compare with the saved
     * world reloaded twice, and with itself from a fresh start) */
    ctn_world *r2 = NULL;
    CHECK(ctn_world_create(&d, &r2, err, sizeof err) == CTN_OK, "%s", err);
    CHECK(ctn_scene_load_json(r2, path, err, sizeof err) == CTN_OK, "%s", err);
    for (int i = 0; i < 60; ++i) {
        CHECK(ctn_world_step(r) == CTN_OK, "%s", ctn_world_last_error(r));
        CHECK(ctn_world_step(r2) == CTN_OK, "%s", ctn_world_last_error(r2));
    }
    same_state(r, r2, "two loads of the saved scene");
    /* saving the reloaded world again gives the same file */
    char path2[80];
    snprintf(path2, sizeof path2, "%s.2", path);
    ctn_world *r3 = NULL;
    CHECK(ctn_world_create(&d, &r3, err, sizeof err) == CTN_OK, "%s", err);
    CHECK(ctn_scene_load_json(r3, path, err, sizeof err) == CTN_OK, "%s", err);
    CHECK(ctn_scene_save_json(r3, path2) == CTN_OK, "%s", ctn_world_last_error(r3));
    FILE *f1 = fopen(path, "rb"), *f2 = fopen(path2, "rb");
    static char b1[1 << 16], b2[1 << 16];
    size_t n1 = f1 ? fread(b1, 1, sizeof b1, f1) : 0, n2 = f2 ? fread(b2, 1, sizeof b2, f2) : 1;
    CHECK(n1 == n2 && memcmp(b1, b2, n1) == 0, "a reloaded scene saves differently (%zu vs %zu bytes)", n1, n2);
    if (f1) fclose(f1);
    if (f2) fclose(f2);
    remove(path);
    remove(path2);
    ctn_world_destroy(w);
    ctn_world_destroy(r);
    ctn_world_destroy(r2);
    ctn_world_destroy(r3);
}

static void checkpoint_resume(void) {
    char path[64];
    snprintf(path, sizeof path, "/tmp/test_curve_io_%ld.ckpt", (long)getpid());
    ctn_world *w = build();
    for (int i = 0; i < 30; ++i) CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_world_save(w, path, 30, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_world *r = NULL;
    char err[512];
    CHECK(ctn_world_load(path, NULL, &r, NULL, err, sizeof err) == CTN_OK, "%s", err);
    for (int i = 0; i < 60 && r; ++i) {
        CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        CHECK(ctn_world_step(r) == CTN_OK, "%s", ctn_world_last_error(r));
    }
    if (r) {
        same_state(w, r, "checkpoint resumed");
        double ta = 0.0, tb = 0.0;
        ctn_curve_constraint_parameter(w, HJOINT(w, 4), &ta);
        ctn_curve_constraint_parameter(r, HJOINT(r, 4), &tb);
        CHECK(ta == tb && ta > 1.0, "closed polyline parameter %g vs %g after the resume", ta, tb);
    }
    /* a truncated file is refused */
    FILE *f = fopen(path, "rb");
    static char buf[1 << 20];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f) fclose(f);
    f = fopen(path, "wb");
    if (f) fwrite(buf, 1, n - 24, f), fclose(f);
    ctn_world *t = NULL;
    CHECK(ctn_world_load(path, NULL, &t, NULL, err, sizeof err) != CTN_OK, "a truncated checkpoint loaded");
    ctn_world_destroy(t);
    remove(path);
    ctn_world_destroy(w);
    ctn_world_destroy(r);
}

/* A scene text with one bad curve: refused, the message names the path, the world is unchanged. */
static void bad_scene(const char *curve, const char *want) {
    char text[1024];
    snprintf(text, sizeof text,
             "{\"version\": 1, \"bodies\": [{\"particle\": true, \"mass\": 1, \"position\": [1, 0, 0]}], "
             "\"constraints\": [{\"type\": \"ball\", \"a\": 0, \"pivot\": [1, 0, 0]}, {\"type\": \"curve\", \"a\": 0, %s}]}",
             curve);
    ctn_scene *s = NULL;
    char err[512] = "";
    ctn_status st = ctn_scene_parse_text(text, strlen(text), "bad.json", &s, err, sizeof err);
    CHECK(st == CTN_ERR_INVALID_ARGUMENT, "%s: accepted (%d)", curve, (int)st);
    CHECK(strstr(err, want) != NULL, "%s: message '%s' lacks '%s'", curve, err, want);
    ctn_scene_free(s);
}

/* A scene that parses but whose curve the world refuses (a zero-length polyline segment): the build rolls
 * back, the world keeps what it had. */
static void bad_build(void) {
    const char *text = "{\"version\": 1, \"bodies\": [{\"particle\": true, \"mass\": 1}], \"constraints\": ["
                       "{\"type\": \"ball\", \"a\": 0, \"pivot\": [0, 0, 0]},"
                       "{\"type\": \"curve\", \"curve\": \"polyline\", \"a\": 0, \"points\": [[0, 0, 0], [1, 0, 0], [1, 0, 0]]}]}";
    char err[512];
    ctn_world *w = fixture_world(CTN_BACKEND_CPU, ctn_world_desc_default().solver, err, sizeof err);
    CHECK(w != NULL, "%s", err);
    ctn_scene *s = NULL;
    CHECK(ctn_scene_parse_text(text, strlen(text), "dup.json", &s, err, sizeof err) == CTN_OK, "%s", err);
    CHECK(s && ctn_scene_build(s, w) == CTN_ERR_INVALID_ARGUMENT, "a zero-length segment built");
    CHECK(strstr(ctn_world_last_error(w), "constraints[1]: curve.points[2]") != NULL, "message: %s", ctn_world_last_error(w));
    CHECK(ctn_world_body_count(w) == 0 && ctn_world_joint_count(w) == 0, "rolled back to %d bodies, %d joints", ctn_world_body_count(w),
          ctn_world_joint_count(w));
    CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_scene_free(s);
    ctn_world_destroy(w);
}

int main(void) {
    ctn_scene *probe = NULL;
    char err[256];
    if (ctn_scene_parse_text("{}", 2, "probe", &probe, err, sizeof err) == CTN_ERR_UNSUPPORTED) return check_skip("test_curve_io", err);
    ctn_scene_free(probe);
    scene_round_trip();
    checkpoint_resume();
    bad_scene("\"curve\": \"circle\", \"radius\": 0", "constraints[1].radius: 0");
    bad_scene("\"curve\": \"polyline\", \"points\": []", "constraints[1].points: 0 vertices");
    bad_scene("\"curve\": \"spiral\"", "constraints[1].curve");
    bad_scene("\"curve\": \"circle\", \"radius\": 1, \"points\": [[0, 0, 0], [1, 0, 0]]", "constraints[1].points: only a polyline");
    bad_scene("\"curve\": \"polyline\", \"points\": [[0, 0, 0], [1, 0]]", "constraints[1].points[1]");
    bad_scene("\"curve\": \"line\", \"axis\": [0, 0, 0]", "constraints[1].axis");
    bad_scene("\"curve\": \"line\", \"stabilization\": \"spook\"", "constraints[1].stabilization");
    bad_build();
    return check_report("test_curve_io");
}
