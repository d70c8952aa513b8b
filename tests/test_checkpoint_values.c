/* A checkpoint holds no float the world's API would refuse: a file whose body pose, velocity, inverse mass,
 * inverse inertia or inverse moments, user force or torque, warm-start impulse, joint rest orientation, plane,
 * shape or attachment cache is not finite (or out of the range the API keeps: a quaternion that is not unit,
 * a negative inverse mass, a friction below 0, a restitution above 1) is refused on load with
 * CTN_ERR_INVALID_ARGUMENT, a message naming the section, the slot and the field, and no world; in every
 * format still read (5, and 3 and 4, whose body properties hold the user forces). The same file unpatched
 * loads in each format. The poses are stored in the format's 48-byte record (two zero pads), not as the 40-byte
 * ctn_pose of memory. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "check.h"
#include "checkpoint_file.h"
#include "ctn_types.h"
#include "files.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Markers: values no other float of the file holds, so that a patch finds its field. */
#define SHAPE_FRICTION 0.3712890625f
#define PLANE_FRICTION 0.4189453125f

/* Byte offsets of a version-5 file's arrays (host/io/checkpoint.c's layout; record sizes from the header). */
typedef struct layout {
    int32_t nb, nj;
    size_t pose, vel, inertia, props, forces, joints, jsize, lambda, attach;
} layout;

static int u32_at(const char *buf, size_t at) {
    uint32_t v;
    memcpy(&v, buf + at, sizeof v);
    return (int)v;
}

static layout layout_of(const char *buf, size_t n) {
    layout l;
    memset(&l, 0, sizeof l);
    size_t sz[5]; /* pose, vel, inertia, props, joint def */
    for (int k = 0; k < 5; ++k) sz[k] = (size_t)u32_at(buf, 8 + 4 * (2 + (size_t)k));
    size_t p = ck_test_counts_at(buf);
    int32_t c[6];
    memcpy(c, buf + p, sizeof c);
    l.nb = c[0], l.nj = c[3];
    l.pose = p + sizeof c;
    l.vel = l.pose + (size_t)l.nb * sz[0];
    l.inertia = l.vel + (size_t)l.nb * sz[1];
    l.props = l.inertia + (size_t)l.nb * sz[2];
    size_t q = l.props + (size_t)l.nb * sz[3];
    int has_forces = u32_at(buf, q);
    l.forces = has_forces ? q + 4 : 0;
    q += 4 + (has_forces ? (size_t)l.nb * 32 : 0);
    q += (size_t)l.nb * 8 + (size_t)c[2] * 4; /* reference counts, generations, free body slots */
    l.joints = q;
    l.jsize = sz[4];
    q += (size_t)l.nj * (sz[4] + 1 + 4) + (size_t)c[5] * 4; /* definitions, alive flags, generations, free slots */
    l.lambda = q;                                            /* 6 floats a joint slot */
    /* the attachments: the tag "ATCH", i32 links, 72-byte links (4 i32, 7 doubles), i32 masters, then each
     * master's i32 slot, i32 cached and its cached composite pose (the last "ATCH" is the section's: it
     * follows the arrays) */
    for (size_t i = q; i + 4 <= n; ++i)
        if (memcmp(buf + i, "ATCH", 4) == 0) l.attach = i;
    return l;
}

static void put_float(char *buf, size_t at, float v) { memcpy(buf + at, &v, sizeof v); }

/* Where a case patches the file: a body's pose, velocity, world inverse inertia, properties or user force, a
 * joint's impulses or rest orientation, the plane (its record: normal, offset, friction, restitution), the
 * shape's friction marker, the attachment cache's composite pose. */
typedef enum { AT_POSE, AT_VEL, AT_INERTIA, AT_PROPS, AT_FORCES, AT_IMPULSES, AT_REST_ORIENTATION, AT_PLANE, AT_SHAPE, AT_ATTACH } patch_at;

typedef struct patch {
    const char *what;  /* the case */
    patch_at where;
    size_t offset;     /* bytes into the record */
    float value;
    const char *section, *index, *field; /* expected in the message; section NULL: "user forces" (5) or
                                            "properties" (3, 4) */
} patch;

/* The world: a ball with a sphere shape, a user force and a particle attached to it; a box held to the
 * world by a fixed joint (its rest orientation conj(q_box) is not the identity), a distance joint from the box
 * to the ball, a plane. Stepped a few times, so the impulses and the attachment's cache are set. */
static ctn_world *make_world(void) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.warm_start = 1.0;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "create: %s", err);
    if (!w) return NULL;
    ctn_body_desc b = ctn_body_desc_default();
    b.position[1] = 2.0;
    ctn_body_id ball = CTN_NULL_BODY, box = CTN_NULL_BODY, dot = CTN_NULL_BODY;
    CHECK(ctn_body_add(w, &b, &ball) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_shape_desc s = ctn_shape_desc_default(CTN_SHAPE_SPHERE);
    s.radius = 0.25, s.friction = SHAPE_FRICTION;
    CHECK(ctn_body_set_shape(w, ball, &s) == CTN_OK, "%s", ctn_world_last_error(w));
    const double f[3] = {0.5, -2.0, 0.25}, t[3] = {0.0, 0.125, -0.0625};
    CHECK(ctn_body_set_force(w, ball, f, t) == CTN_OK, "%s", ctn_world_last_error(w));
    b.position[0] = 1.5;
    b.orientation[0] = 0.8, b.orientation[2] = 0.6; /* (w, y) */
    CHECK(ctn_body_add(w, &b, &box) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_body_desc pd = ctn_body_desc_default();
    pd.particle = 1, pd.mass = 0.1, pd.position[1] = 2.3;
    CHECK(ctn_body_add(w, &pd, &dot) == CTN_OK, "%s", ctn_world_last_error(w));
    const double at[3] = {0.0, 0.3, 0.0};
    CHECK(ctn_attach_point(w, dot, ball, at) == CTN_OK, "attach: %s", ctn_world_last_error(w));
    ctn_joint_desc j = ctn_joint_desc_default(CTN_JOINT_FIXED); /* joint 0: at the box's centre */
    j.body_a = box;
    const double centre[3] = {1.5, 2.0, 0.0};
    CHECK(ctn_joint_desc_set_pivot(w, &j, centre, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_joint_add(w, &j, NULL) == CTN_OK, "fixed: %s", ctn_world_last_error(w));
    j = ctn_joint_desc_default(CTN_JOINT_DISTANCE); /* joint 1 */
    j.body_a = box, j.body_b = ball, j.rest_length = 1.5;
    CHECK(ctn_joint_add(w, &j, NULL) == CTN_OK, "distance: %s", ctn_world_last_error(w));
    const double up[3] = {0.0, 1.0, 0.0};
    CHECK(ctn_world_add_plane(w, up, 0.0, PLANE_FRICTION, 0.25, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    for (int i = 0; i < 3; ++i) CHECK(ctn_world_step(w) == CTN_OK, "step %d: %s", i, ctn_world_last_error(w));
    return w;
}

/* The offset of p's field in the file buf, 0 when it cannot be found. */
static size_t offset_of(const patch *p, const layout *l, const char *buf, size_t n) {
    switch (p->where) {
    case AT_POSE: return l->pose + 48 * 1 + p->offset; /* body slot 1, the box */
    case AT_VEL: return l->vel + 32 * 1 + p->offset;
    case AT_INERTIA: return l->inertia + 32 * 1 + p->offset;
    case AT_PROPS: return l->props + 16 * 1 + p->offset;
    case AT_FORCES: return l->forces ? l->forces + 32 * 0 + p->offset : 0; /* body slot 0, the ball */
    case AT_IMPULSES: return l->lambda + 24 * 1 + p->offset;                  /* joint slot 1 */
    case AT_REST_ORIENTATION: return l->joints + l->jsize * 0 + offsetof(ctn_joint_def, rel_q) + p->offset;
    case AT_ATTACH: {
        if (!l->attach) return 0;
        size_t links = (size_t)u32_at(buf, l->attach + 4), m = l->attach + 8 + links * 72;
        return m + 4 + 8 + p->offset; /* the first master's composite pose */
    }
    default: { /* the one occurrence of the marker: the plane's friction (16 bytes into its record) or the shape's */
        float mark = p->where == AT_PLANE ? PLANE_FRICTION : SHAPE_FRICTION;
        size_t at = 0;
        int found = 0;
        for (size_t i = 64; i + 4 <= n; ++i)
            if (memcmp(buf + i, &mark, sizeof mark) == 0) at = i, ++found;
        if (found != 1) return 0;
        return p->where == AT_PLANE ? at - 16 + p->offset : at + p->offset;
    }
    }
}

static void values_refused(const char *dir) {
    char path[512], out[512];
    snprintf(path, sizeof path, "%s/values.ckpt", dir);
    snprintf(out, sizeof out, "%s/values_patched.ckpt", dir);
    ctn_world *w = make_world();
    if (!w) return;
    CHECK(ctn_world_save(w, path, 3, NULL) == CTN_OK, "save: %s", ctn_world_last_error(w));
    ctn_world_destroy(w);
    size_t n = 0;
    char *orig = test_read_file(path, &n);
    char *buf = orig ? malloc(n) : NULL;
    if (!buf) {
        CHECK(0, "read %s", path);
        free(orig);
        return;
    }
    layout l = layout_of(orig, n);
    CHECK(l.nb == 3 && l.nj == 2 && l.forces && l.attach, "layout: %d bodies, %d joints, forces at %zu, attachments at %zu", l.nb, l.nj,
          l.forces, l.attach);
    CHECK(u32_at(orig, l.attach + 8 + 72 * (size_t)u32_at(orig, l.attach + 4) + 4) == 0 &&
              u32_at(orig, l.attach + 8 + 72 * (size_t)u32_at(orig, l.attach + 4) + 8) == 1,
          "the attachment cache: master slot 0, cached");
    /* The file's pose record is 48 bytes (p, a zero pad, q, p_lo, a zero pad) whatever the in-memory ctn_pose
     * (40 bytes, no pads): the header says 48 and every body's record has its orientation, a unit quaternion,
     * at byte 16 and zeros at bytes 12 and 44. */
    CHECK(u32_at(orig, 16) == 48, "header: pose record of %d bytes", u32_at(orig, 16));
    for (int b = 0; b < l.nb; ++b) {
        float f[12];
        memcpy(f, orig + l.pose + 48 * (size_t)b, sizeof f);
        double qq = (double)f[4] * f[4] + (double)f[5] * f[5] + (double)f[6] * f[6] + (double)f[7] * f[7];
        CHECK(u32_at(orig, l.pose + 48 * (size_t)b + 12) == 0 && u32_at(orig, l.pose + 48 * (size_t)b + 44) == 0 && fabs(qq - 1.0) < 1e-5,
              "body slot %d: pose record pads %g, %g, |q|^2 %g", b, (double)f[3], (double)f[11], qq);
    }
    const float nan = NAN, inf = INFINITY;
    const patch cases[] = {
        {"position x", AT_POSE, 0, nan, "pose section", "body slot 1", "position"},
        {"position's trailing part z", AT_POSE, 40, -inf, "pose section", "body slot 1", "position"},
        {"orientation w", AT_POSE, 16, nan, "pose section", "body slot 1", "orientation"},
        {"orientation not unit", AT_POSE, 16, 2.0f, "pose section", "body slot 1", "not a unit quaternion"},
        {"linear velocity y", AT_VEL, 4, inf, "velocity section", "body slot 1", "linear velocity"},
        {"angular velocity z", AT_VEL, 24, nan, "velocity section", "body slot 1", "angular velocity"},
        {"inverse mass negative", AT_VEL, 12, -1.0f, "velocity section", "body slot 1", "inverse mass"},
        {"inverse mass infinite", AT_VEL, 12, inf, "velocity section", "body slot 1", "inverse mass"},
        {"world inverse inertia xy", AT_INERTIA, 12, nan, "inertia section", "body slot 1", "world inverse inertia"},
        {"inverse moment y negative", AT_PROPS, 4, -2.0f, "properties section", "body slot 1", "inverse moments"},
        {"inverse moment z", AT_PROPS, 8, inf, "properties section", "body slot 1", "inverse moments"},
        {"force y", AT_FORCES, 4, nan, NULL, "body slot 0", "force ("},
        {"torque z", AT_FORCES, 24, -inf, NULL, "body slot 0", "torque"},
        {"impulse row 0", AT_IMPULSES, 0, nan, "impulses section", "joint slot 1", "impulse"},
        {"impulse row 5", AT_IMPULSES, 20, inf, "impulses section", "joint slot 1", "impulse"},
        {"rest orientation", AT_REST_ORIENTATION, 4, nan, "joint 0 (fixed)", "joint.rest_orientation", "non-finite"},
        {"plane normal", AT_PLANE, 4, 0.5f, "collision section", "plane 0", "normal"},
        {"plane offset", AT_PLANE, 12, inf, "collision section", "plane 0", "offset"},
        {"plane friction", AT_PLANE, 16, nan, "collision section", "plane 0", "friction"},
        {"plane friction negative", AT_PLANE, 16, -0.5f, "collision section", "plane 0", "friction"},
        {"plane restitution", AT_PLANE, 20, 2.0f, "collision section", "plane 0", "restitution"},
        {"shape friction", AT_SHAPE, 0, inf, "collision section", "shape of body slot 0", "friction"},
        {"attachment cache position", AT_ATTACH, 4, nan, "attachments section", "master body slot 0", "composite pose's position"},
    };
    for (uint32_t version = 3; version <= 5; ++version) {
        /* unpatched: loads */
        ck_test_write_as(out, orig, n, version);
        ctn_world *r = NULL;
        char err[512] = "";
        CHECK(ctn_world_load(out, NULL, &r, NULL, err, sizeof err) == CTN_OK && r, "version %u unpatched: %s", version, err);
        CHECK(!r || ctn_world_body_count(r) == 3, "version %u: %d bodies", version, r ? ctn_world_body_count(r) : -1);
        ctn_world_destroy(r);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
            const patch *p = &cases[c];
            size_t at = offset_of(p, &l, orig, n);
            CHECK(at >= 64 && at + 4 <= n, "case %s: field found (%zu)", p->what, at);
            if (!(at >= 64 && at + 4 <= n)) continue;
            memcpy(buf, orig, n);
            put_float(buf, at, p->value);
            ck_test_write_as(out, buf, n, version);
            r = NULL;
            err[0] = 0;
            ctn_status st = ctn_world_load(out, NULL, &r, NULL, err, sizeof err);
            const char *section = p->section ? p->section : version >= 5 ? "user forces section" : "properties section";
            CHECK(st == CTN_ERR_INVALID_ARGUMENT && !r, "version %u, %s = %g: %s", version, p->what, (double)p->value, ctn_status_name(st));
            CHECK(strstr(err, section) && strstr(err, p->index) && strstr(err, p->field), "version %u, %s: the message names %s, %s, %s: %s", version,
                  p->what, section, p->index, p->field, err);
            ctn_world_destroy(r);
        }
    }
    free(orig);
    free(buf);
    remove(path);
    remove(out);
}

int main(void) {
    char dir[] = "/tmp/catena-ckvalues-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    values_refused(dir);
    rmdir(dir);
    return check_report("checkpoint_values");
}
