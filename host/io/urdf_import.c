/* URDF import: a robot description (links, joints, inertials, collision geometry) becomes bodies, joints
 * and shapes of a world. The XML is read by urdfdom (urdf_parse.cpp); this file maps it.
 *
 * Frames. URDF gives each link a frame; a joint's origin places the child link's frame in the parent's at
 * joint position zero, so the world pose of every link is the product of the joint origins from the root
 * (URDF specification, ROS wiki "urdf/XML"). The scene is built in that pose.
 *
 * Links -> bodies. A link with a positive mass becomes a dynamic rigid body at its centre of mass. Catena
 * bodies carry principal moments in the body frame, so the body frame is the inertial frame turned onto
 * the principal axes of the inertia tensor (Jacobi's eigenvalue method; no turn when the tensor is already
 * diagonal). A link without mass is part of its parent's body when its joint is fixed (sensor and tool
 * frames), and part of the fixed world when it is the root (the usual "world" or fixed "base" link); a
 * massive root is a free body, as in PyBullet's loadURDF without useFixedBase. A massless link on a moving
 * joint cannot be simulated and is refused.
 *
 * Joints. revolute -> hinge (body a = child, body b = parent, so the hinge angle is URDF's joint position)
 * with its limits; continuous -> hinge without limits; fixed -> fixed joint; floating -> no joint (a free
 * body). A joint with `effort` > 0 gets a velocity motor holding it (target speed 0, at most `effort` N m),
 * as PyBullet's loader does; effort 0 leaves it passive. prismatic -> slider with its limits; planar -> planar
 * joint (the child slides in the plane across the axis and turns about it).
 *
 * Collision geometry -> shapes, each at its <origin> (ctn_shape_desc.offset and rotation in the body
 * frame): a sphere and a box as they are; a cylinder becomes a capsule of the same radius and overall
 * length along its axis (URDF 1.0 has no capsule). A body holds all its elements as a compound shape (those of
 * its link and of massless links merged into it, ctn_body_add_shape); the elements of links fixed to the world
 * go on one static body per link, named after it, added after all link bodies. Unless self-collision is asked
 * for, every shape of the robot gets one fresh collision group, so its links never collide with each other
 * (PyBullet's loadURDF default: a robot's links overlap at their joints by design, and their contacts would
 * push the joints apart); with it, every pair may collide except the pairs joined by a joint.
 *
 * What is approximated, added or dropped (meshes, world-fixed elements, mimic couplings, joint damping and friction,
 * limits wider than [-pi, pi]) is never silent: each is listed by name
 * in the report returned to the caller. */
#include "catena/catena.h"
#include "collide/collide.h"
#include "core/dmat3.h"
#include "core/world.h"
#include "io/scene_internal.h"
#include "io/urdf_model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CATENA_HAVE_URDFDOM
int ctn__urdf_parse(const char *path, ctn_urdf_model **out, char *msg, size_t msg_size) {
    *out = NULL;
    snprintf(msg, msg_size, "%s: this build of catena has no URDF support (install liburdfdom-dev and rebuild)", path);
    return CTN_ERR_UNSUPPORTED;
}
void ctn__urdf_free(ctn_urdf_model *model) { (void)model; }
#endif

/* ---- double-precision frames --------------------------------------------------------------------- */

typedef struct frame {
    double p[3];
    double r[3][3]; /* rotation: columns are the frame's axes in the world */
} frame;

static void rotation_of(const double q[4], double r[3][3]) {
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
    r[0][0] = 1 - 2 * (y * y + z * z), r[0][1] = 2 * (x * y - w * z), r[0][2] = 2 * (x * z + w * y);
    r[1][0] = 2 * (x * y + w * z), r[1][1] = 1 - 2 * (x * x + z * z), r[1][2] = 2 * (y * z - w * x);
    r[2][0] = 2 * (x * z - w * y), r[2][1] = 2 * (y * z + w * x), r[2][2] = 1 - 2 * (x * x + y * y);
}

static void mat_mul(const double a[3][3], const double b[3][3], double out[3][3]) {
    double m[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
    memcpy(out, m, sizeof m);
}

static void mat_vec(const double a[3][3], const double v[3], double out[3]) {
    double o[3];
    for (int i = 0; i < 3; ++i) o[i] = a[i][0] * v[0] + a[i][1] * v[1] + a[i][2] * v[2];
    memcpy(out, o, sizeof o);
}

/* The frame `child` (given in `parent`'s coordinates) in the world. */
static frame compose(const frame *parent, const ctn_urdf_pose *child) {
    frame f;
    double r[3][3];
    rotation_of(child->q, r);
    mat_mul(parent->r, r, f.r);
    mat_vec(parent->r, child->xyz, f.p);
    for (int i = 0; i < 3; ++i) f.p[i] += parent->p[i];
    return f;
}

/* ---- the report of what was approximated or ignored ------------------------------------------------ */

enum {
    R_MESH, R_CYLINDER, R_WORLD_SHAPE, R_MIMIC, R_GEAR, R_RACK, R_IMPLIED, R_DYNAMICS, R_CLAMPED, R_INERTIA, R_START, R_KINDS
};
static const char *const report_title[R_KINDS] = {
    "collision meshes ignored (Catena collides spheres, capsules and boxes)",
    "collision cylinders made capsules of the same radius and overall length",
    "collision elements of links fixed to the world put on static bodies named after the links",
    "mimic couplings ignored (the joints move independently)",
    "mimic couplings made gears (ctn_joint_add CTN_JOINT_GEAR, ratio -multiplier)",
    ("mimic couplings made exact through added bodies on the link both joints share, named '<follower>#mimic' (and "
     "'<follower>#mimic2' for a revolute with a prismatic joint), of 10% of the lighter link's mass, without shapes "
     "(relative rack-and-pinions on that link: docs/urdf.md)"),
    ("limits of coupled mimic followers left out where their leader's limits imply them (at the end of the range both "
     "would act: two limit rows on one degree of freedom)"),
    "joint damping and friction ignored",
    "joint limits beyond [-pi, pi] clamped to it",
    "zero inertia computed from the collision geometry (solids of uniform density, the link's mass, about its <inertial> origin)",
    "joints whose zero position is outside their limits start at the nearest limit (position 0 stays the joint's zero)",
};

typedef struct report {
    char *text[R_KINDS]; /* "name, name, ..." per kind, NULL when empty */
    size_t len[R_KINDS];
    int failed;          /* out of memory */
} report;

static void report_add(report *r, int kind, const char *fmt, ...) {
    char item[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(item, sizeof item, fmt, ap);
    va_end(ap);
    size_t n = strlen(item), old = r->len[kind];
    char *t = ctn__realloc(r->text[kind], old + n + 3);
    if (!t) {
        r->failed = 1;
        return;
    }
    if (old) memcpy(t + old, ", ", 2), old += 2;
    memcpy(t + old, item, n + 1);
    r->text[kind] = t;
    r->len[kind] = old + n;
}

/* "title: items\n" per kind into out (truncated with "..." when it does not fit). */
static void report_write(const report *r, char *out, size_t size) {
    if (!out || !size) return;
    size_t at = 0;
    out[0] = '\0';
    for (int k = 0; k < R_KINDS; ++k) {
        if (!r->text[k] || at >= size) continue;
        int n = snprintf(out + at, size - at, "%s: %s\n", report_title[k], r->text[k]);
        at += n > 0 ? (size_t)n : 0;
    }
    if (at >= size && size > 4) memcpy(out + size - 5, "...\n", 5);
}

static void report_free(report *r) {
    for (int k = 0; k < R_KINDS; ++k) ctn__free(r->text[k]);
}

/* ---- links -> bodies ------------------------------------------------------------------------------- */

typedef struct link_state {
    frame pose;          /* the link frame in the world */
    int body;            /* index into the built bodies, -1: the fixed world */
    int owns_body;       /* the body is this link's own (not a parent's it was merged into) */
    frame body_frame;    /* the body's principal frame in the world (own bodies) */
    double moments[3];
} link_state;

/* Principal frame and moments of a massive link: the inertial frame turned onto the tensor's eigenvectors. */
static ctn_status principal_frame(const ctn_urdf_link *l, const frame *link, frame *out, double moments[3], char *msg, size_t size) {
    frame inertial = compose(link, &l->inertial);
    double t[3][3] = {{l->ixx, l->ixy, l->ixz}, {l->ixy, l->iyy, l->iyz}, {l->ixz, l->iyz, l->izz}};
    double v[3][3];
    double off = fabs(l->ixy) + fabs(l->ixz) + fabs(l->iyz), trace = l->ixx + l->iyy + l->izz;
    if (off <= 1e-12 * fabs(trace)) { /* already principal: keep the inertial frame exactly */
        moments[0] = l->ixx, moments[1] = l->iyy, moments[2] = l->izz;
        *out = inertial;
    } else {
        ctn__sym3_eigen((const double(*)[3])t, moments, v);
        out->p[0] = inertial.p[0], out->p[1] = inertial.p[1], out->p[2] = inertial.p[2];
        mat_mul(inertial.r, v, out->r);
    }
    for (int i = 0; i < 3; ++i) {
        if (!(moments[i] > 0) || !isfinite(moments[i])) {
            snprintf(msg, size, "link '%s': inertia (ixx %g, iyy %g, izz %g, ixy %g, ixz %g, iyz %g) has principal moment %g; "
                     "a rigid body needs three positive moments (a zero tensor is computed from the link's collision spheres, "
                     "boxes and cylinders when it has any)", l->name, l->ixx, l->iyy, l->izz, l->ixy, l->ixz, l->iyz, moments[i]);
            return CTN_ERR_INVALID_ARGUMENT;
        }
    }
    return CTN_OK;
}

/* The shape of a link's collision element on the body whose principal frame is `body`: its geometry, and
 * its pose in the body frame (offset, rotation), or CTN_SHAPE_NONE (reported) for a mesh. A cylinder
 * becomes a capsule along its axis (the element's z; Catena's capsules lie along their frame's x). */
static ctn_shape_desc shape_of(const ctn_urdf_collision *c, const frame *link, const frame *body, const char *name, report *r) {
    ctn_shape_desc none = ctn_shape_desc_default(CTN_SHAPE_NONE);
    if (c->type == CTN_URDF_MESH) {
        report_add(r, R_MESH, "%s (%s)", name, c->mesh);
        return none;
    }
    frame where = compose(link, &c->origin);
    ctn_shape_desc s;
    if (c->type == CTN_URDF_SPHERE) {
        s = ctn_shape_desc_default(CTN_SHAPE_SPHERE);
        s.radius = c->radius;
    } else if (c->type == CTN_URDF_CYLINDER) {
        report_add(r, R_CYLINDER, "%s", name);
        s = ctn_shape_desc_default(c->length > 2 * c->radius ? CTN_SHAPE_CAPSULE : CTN_SHAPE_SPHERE);
        s.radius = c->radius;
        s.half_length = fmax(c->length / 2 - c->radius, 0.0);
        /* the capsule's x along the cylinder's z: turn the element frame by -90 deg about its y */
        static const double x_to_z[3][3] = {{0, 0, -1}, {0, 1, 0}, {1, 0, 0}};
        mat_mul(where.r, x_to_z, where.r);
    } else {
        s = ctn_shape_desc_default(CTN_SHAPE_BOX);
        for (int k = 0; k < 3; ++k) s.half_extents[k] = c->size[k] / 2;
    }
    /* pose in the body frame: R_b^T (p - p_b), R_b^T R */
    double bt[3][3], d[3] = {where.p[0] - body->p[0], where.p[1] - body->p[1], where.p[2] - body->p[2]}, rel[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) bt[i][j] = body->r[j][i];
    mat_vec(bt, d, s.offset);
    for (int k = 0; k < 3; ++k)
        if (fabs(s.offset[k]) < 1e-12) s.offset[k] = 0.0; /* centred up to rounding: no offset */
    mat_mul(bt, where.r, rel);
    ctn_dquat q = ctn__dq_of_matrix((const double(*)[3])rel);
    double sg = q.w < 0.0 ? -1.0 : 1.0;
    s.rotation[0] = sg * q.w, s.rotation[1] = sg * q.x, s.rotation[2] = sg * q.y, s.rotation[3] = sg * q.z;
    if (fabs(q.x) < 1e-12 && fabs(q.y) < 1e-12 && fabs(q.z) < 1e-12) s.rotation[0] = 1.0, s.rotation[1] = s.rotation[2] = s.rotation[3] = 0.0;
    return s;
}

/* ---- the build ------------------------------------------------------------------------------------- */

typedef struct build {
    ctn_world *w;
    const ctn_urdf_model *m;
    link_state *links;
    ctn_body_id *bodies;     /* handle of built body i */
    report rep;
    char msg[1024];
    ctn_status st;
    int group;               /* collision group of every shape of the robot (0: self-collision on) */
    int *owner;              /* [bodies] the link whose body it is */
    ctn_body_id *jbase;      /* [joints] a static body standing for the fixed world as the joint's parent (has_jbase) */
    unsigned char *has_jbase;
    int *weld;               /* [bodies] the first body of the set welded to it by fixed joints (mimic couplings) */
} build;

static ctn_status fail(build *b, ctn_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->msg, sizeof b->msg, fmt, ap);
    va_end(ap);
    return b->st = st;
}

static const char *joint_type_name(ctn_urdf_joint_type t) {
    static const char *const names[] = {"revolute", "continuous", "prismatic", "floating", "planar", "fixed"};
    return names[t];
}

/* A static body at a world-fixed link's pose holding that link's collision elements, named after it
 * ("world_shapes" for a link named world: scene files keep no body of that name). */
static ctn_status add_world_link_body(build *b, const char *link, const frame *where, ctn_body_id *out) {
    ctn_body_desc d = ctn_body_desc_default();
    d.type = CTN_BODY_STATIC;
    memcpy(d.position, where->p, sizeof d.position);
    ctn_dquat q = ctn__dq_of_matrix((const double(*)[3])where->r);
    d.orientation[0] = q.w, d.orientation[1] = q.x, d.orientation[2] = q.y, d.orientation[3] = q.z;
    ctn_status st = ctn_body_add(b->w, &d, out);
    if (st == CTN_OK) st = ctn_body_set_name(b->w, *out, strcmp(link, "world") ? link : "world_shapes");
    if (st != CTN_OK) return fail(b, st, "link '%s': %s", link, ctn_world_last_error(b->w));
    return CTN_OK;
}

/* Every collision element at its origin, as one shape of a compound on the link's body (ctn_body_add_shape;
 * the elements of massless links merged into a body go on that body too). The elements of links fixed to
 * the world go on one static body per link, added after every link body so that the links keep
 * consecutive handles. */
static ctn_status add_shapes(build *b) {
    for (int pass = 0; pass < 2 && b->st == CTN_OK; ++pass) {
        for (int i = 0; i < b->m->link_count && b->st == CTN_OK; ++i) {
            const ctn_urdf_link *l = &b->m->links[i];
            const link_state *ls = &b->links[i];
            int body = ls->body;
            if ((pass == 0) != (body >= 0)) continue;
            ctn_body_id target = body >= 0 ? b->bodies[body] : CTN_WORLD;
            for (int c = 0; c < l->collision_count && b->st == CTN_OK; ++c) {
                const ctn_urdf_collision *e = &l->collisions[c];
                if (e->type == CTN_URDF_MESH) {
                    if (pass == 0 || body < 0) report_add(&b->rep, R_MESH, "%s (%s)", l->name, e->mesh);
                    continue;
                }
                if (body < 0 && ctn_body_is_world(target)) {
                    if (add_world_link_body(b, l->name, &ls->pose, &target) != CTN_OK) return b->st;
                    if (strcmp(l->name, "world")) report_add(&b->rep, R_WORLD_SHAPE, "%s", l->name);
                    else report_add(&b->rep, R_WORLD_SHAPE, "world (world_shapes)");
                }
                const frame *bf = body >= 0 ? &b->links[b->owner[body]].body_frame : &ls->pose;
                ctn_shape_desc shape = shape_of(e, &ls->pose, bf, l->name, &b->rep);
                shape.group = b->group;
                ctn_status st = ctn_body_add_shape(b->w, target, &shape, NULL);
                if (st != CTN_OK) return fail(b, st, "link '%s', collision element %d: %s", l->name, c, ctn_world_last_error(b->w));
            }
        }
    }
    return b->st;
}

/* A link whose <inertial> gives a mass but a zero tensor (ixx = ... = iyz = 0): the tensor of its collision
 * elements as solids of one density sharing the link's mass by volume (sphere 2/5 m r^2; box m/12 (b^2 +
 * c^2); cylinder m r^2 / 2 about its axis, m (3 r^2 + L^2) / 12 across), each turned into the inertial frame
 * (R I R^T) and moved to its origin (parallel axes: m (|d|^2 1 - d d^T)); meshes do not count. Returns 0
 * when the link has no such element (the tensor stays zero and the link is refused). */
static int inertia_from_geometry(ctn_urdf_link *l, const frame *link) {
    if (l->ixx != 0 || l->iyy != 0 || l->izz != 0 || l->ixy != 0 || l->ixz != 0 || l->iyz != 0) return 0;
    const double pi = 3.14159265358979323846;
    double vol = 0.0;
    for (int c = 0; c < l->collision_count; ++c) {
        const ctn_urdf_collision *e = &l->collisions[c];
        vol += e->type == CTN_URDF_SPHERE ? 4.0 / 3.0 * pi * e->radius * e->radius * e->radius
               : e->type == CTN_URDF_BOX  ? e->size[0] * e->size[1] * e->size[2]
               : e->type == CTN_URDF_CYLINDER ? pi * e->radius * e->radius * e->length
                                              : 0.0;
    }
    if (!(vol > 0.0) || !isfinite(vol)) return 0;
    frame in = compose(link, &l->inertial);
    double t[3][3] = {{0}};
    for (int c = 0; c < l->collision_count; ++c) {
        const ctn_urdf_collision *e = &l->collisions[c];
        double v = 0.0, I[3] = {0, 0, 0};
        if (e->type == CTN_URDF_SPHERE) {
            v = 4.0 / 3.0 * pi * e->radius * e->radius * e->radius;
            I[0] = I[1] = I[2] = 0.4 * e->radius * e->radius;
        } else if (e->type == CTN_URDF_BOX) {
            const double *s = e->size;
            v = s[0] * s[1] * s[2];
            I[0] = (s[1] * s[1] + s[2] * s[2]) / 12.0, I[1] = (s[0] * s[0] + s[2] * s[2]) / 12.0, I[2] = (s[0] * s[0] + s[1] * s[1]) / 12.0;
        } else if (e->type == CTN_URDF_CYLINDER) {
            v = pi * e->radius * e->radius * e->length;
            I[0] = I[1] = (3.0 * e->radius * e->radius + e->length * e->length) / 12.0;
            I[2] = 0.5 * e->radius * e->radius;
        } else {
            continue;
        }
        double m = l->mass * v / vol;
        frame ef = compose(link, &e->origin);
        /* R = in.r^T ef.r: the element's axes in the inertial frame; d its centre there */
        double R[3][3], d[3], dp[3] = {ef.p[0] - in.p[0], ef.p[1] - in.p[1], ef.p[2] - in.p[2]};
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) R[i][j] = in.r[0][i] * ef.r[0][j] + in.r[1][i] * ef.r[1][j] + in.r[2][i] * ef.r[2][j];
        for (int i = 0; i < 3; ++i) d[i] = in.r[0][i] * dp[0] + in.r[1][i] * dp[1] + in.r[2][i] * dp[2];
        double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                double rir = 0.0;
                for (int k = 0; k < 3; ++k) rir += R[i][k] * I[k] * R[j][k];
                t[i][j] += m * (rir + (i == j ? dd : 0.0) - d[i] * d[j]);
            }
    }
    l->ixx = t[0][0], l->iyy = t[1][1], l->izz = t[2][2], l->ixy = t[0][1], l->ixz = t[0][2], l->iyz = t[1][2];
    return 1;
}

/* Decides which body every link belongs to (links come parents first) and adds the bodies. */
static ctn_status add_bodies(build *b) {
    int count = 0;
    for (int i = 0; i < b->m->link_count && b->st == CTN_OK; ++i) {
        const ctn_urdf_link *l = &b->m->links[i];
        link_state *ls = &b->links[i];
        const ctn_urdf_joint *j = l->parent_joint >= 0 ? &b->m->joints[l->parent_joint] : NULL;
        static const frame world = {{0, 0, 0}, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
        ls->pose = j ? compose(&b->links[j->parent].pose, &j->origin) : world;
        ls->body = -1;
        if (!(l->has_inertial && l->mass > 0)) {
            if (!j) continue; /* a massless root is the fixed world */
            if (j->type != CTN_URDF_FIXED)
                return fail(b, CTN_ERR_UNSUPPORTED, "link '%s' has no mass but moves on %s joint '%s'; give it an <inertial>", l->name,
                            joint_type_name(j->type), j->name);
            ls->body = b->links[j->parent].body; /* merged into its parent's body (or the world) */
            continue;
        }
        if (!isfinite(l->mass))
            return fail(b, CTN_ERR_INVALID_ARGUMENT, "link '%s': mass %g is not finite", l->name, l->mass);
        ctn_urdf_link lc = *l; /* the link with its computed inertia, when it had none */
        if (inertia_from_geometry(&lc, &ls->pose)) {
            report_add(&b->rep, R_INERTIA, "%s (ixx %.3g, iyy %.3g, izz %.3g)", l->name, lc.ixx, lc.iyy, lc.izz);
            ctn__log(b->w, CTN_LOG_WARNING, "URDF link '%s' has zero inertia: computed from its collision geometry (ixx %.3g, iyy %.3g, izz %.3g kg m^2)",
                     l->name, lc.ixx, lc.iyy, lc.izz);
        }
        ctn_status st = principal_frame(&lc, &ls->pose, &ls->body_frame, ls->moments, b->msg, sizeof b->msg);
        if (st != CTN_OK) return b->st = st;
        ls->body = count++;
        ls->owns_body = 1;
    }
    for (int i = 0; i < b->m->link_count; ++i) {
        const ctn_urdf_link *l = &b->m->links[i];
        link_state *ls = &b->links[i];
        if (!ls->owns_body) continue;
        ctn_body_desc d = ctn_body_desc_default();
        d.mass = l->mass;
        memcpy(d.inertia, ls->moments, sizeof d.inertia);
        memcpy(d.position, ls->body_frame.p, sizeof d.position);
        ctn_dquat q = ctn__dq_of_matrix((const double(*)[3])ls->body_frame.r);
        d.orientation[0] = q.w, d.orientation[1] = q.x, d.orientation[2] = q.y, d.orientation[3] = q.z;
        ctn_body_id id;
        ctn_status st = ctn_body_add(b->w, &d, &id);
        if (st == CTN_OK) st = ctn_body_set_name(b->w, id, l->name);
        if (st != CTN_OK) return fail(b, st, "link '%s': %s", l->name, ctn_world_last_error(b->w));
        b->bodies[ls->body] = id;
        b->owner[ls->body] = i;
    }
    return add_shapes(b);
}

static ctn_body_id handle_of(const build *b, int link) { return b->links[link].body < 0 ? CTN_WORLD : b->bodies[b->links[link].body]; }

typedef struct mimic_plan mimic_plan;
static const ctn_urdf_joint *mimic_leader(const build *b, const ctn_urdf_joint *j, char *buf, size_t size, const char **why_out, int *gear_out,
                                          mimic_plan *plan);

/* Whether joint j hangs a link on the fixed world and a <mimic> partner of j hangs on that link: the
 * coupling's added bodies then sit on j's child, and j's parent, turning relative to it, must be a body. */
static int weld_of(const build *b, int body) { return body < 0 ? -1 : b->weld[body]; }

static int world_mover(const build *b, const ctn_urdf_joint *j) {
    if (b->links[j->parent].body >= 0 || b->links[j->child].body < 0) return 0;
    for (int k = 0; k < b->m->joint_count; ++k) {
        const ctn_urdf_joint *o = &b->m->joints[k];
        int pair = o != j && ((o->mimic && !strcmp(o->mimic, j->name)) || (j->mimic && !strcmp(j->mimic, o->name)) ||
                              (o->mimic && j->mimic && !strcmp(o->mimic, j->mimic)));
        if (pair && weld_of(b, b->links[o->parent].body) == weld_of(b, b->links[j->child].body)) return 1;
    }
    return 0;
}

/* b->weld: bodies joined by fixed joints form one rigid set, named by its first body (union by the smaller
 * index), so that a coupling may sit on any body of the link the two joints share. */
static void weld_sets(build *b) {
    for (int i = 0; i < b->m->link_count; ++i)
        if (b->links[i].owns_body) b->weld[b->links[i].body] = b->links[i].body;
    for (int k = 0; k < b->m->joint_count; ++k) {
        const ctn_urdf_joint *j = &b->m->joints[k];
        int x = b->links[j->parent].body, y = b->links[j->child].body;
        if (j->type != CTN_URDF_FIXED || x < 0 || y < 0 || x == y) continue;
        while (b->weld[x] != x) x = b->weld[x];
        while (b->weld[y] != y) y = b->weld[y];
        if (x < y) b->weld[y] = x;
        else if (y < x) b->weld[x] = y;
    }
    for (int i = 0; i < b->m->link_count; ++i) { /* flatten */
        if (!b->links[i].owns_body) continue;
        int x = b->links[i].body;
        while (b->weld[x] != x) x = b->weld[x];
        b->weld[b->links[i].body] = x;
    }
}

/* The limits a joint gets: [lower, upper], clamped to [-pi, pi] for a revolute joint; 0 when it has none. */
static int joint_range(const ctn_urdf_joint *j, double *lo, double *hi) {
    const double pi = 3.14159265358979323846;
    if (!j->has_limits || (j->type != CTN_URDF_REVOLUTE && j->type != CTN_URDF_PRISMATIC)) return 0;
    *lo = j->type == CTN_URDF_REVOLUTE ? fmax(j->lower, -pi) : j->lower;
    *hi = j->type == CTN_URDF_REVOLUTE ? fmin(j->upper, pi) : j->upper;
    return 1;
}

/* Whether the limits of mimic follower j follow from its leader's: multiplier times the leader's range lies
 * within j's (as a gripper's mirrored fingers have it, equal ranges). Then the follower's own limit would
 * act together with the leader's at the end of the range, two rows on the one degree of freedom the
 * coupling leaves; the exact solve's active set cannot keep both (its system is singular there), so the
 * follower's limits are left out. */
static int limits_implied(const build *b, const ctn_urdf_joint *j) {
    double lo, hi, llo, lhi;
    if (!j->mimic || !joint_range(j, &lo, &hi)) return 0;
    for (int k = 0; k < b->m->joint_count; ++k) {
        const ctn_urdf_joint *l = &b->m->joints[k];
        if (l == j || strcmp(l->name, j->mimic)) continue;
        if (!joint_range(l, &llo, &lhi)) return 0;
        double m = j->mimic_multiplier, a = fmin(m * llo, m * lhi), c = fmax(m * llo, m * lhi);
        double tol = 1e-9 * fmax(1.0, fmax(fabs(lo), fabs(hi)));
        return a >= lo - tol && c <= hi + tol;
    }
    return 0;
}

static ctn_status add_joint(build *b, const ctn_urdf_joint *j) {
    const ctn_urdf_link *child = &b->m->links[j->child];
    if (j->damping != 0 || j->friction != 0) report_add(&b->rep, R_DYNAMICS, "%s (damping %g, friction %g)", j->name, j->damping, j->friction);
    if (j->type == CTN_URDF_FLOATING || !b->links[j->child].owns_body) return CTN_OK; /* free, or merged into its parent */
    int slider = j->type == CTN_URDF_PRISMATIC; /* q: the child's travel along the axis, the slider position s */
    int planar = j->type == CTN_URDF_PLANAR; /* 3 free coordinates: no limits, no motor */
    ctn_joint_desc d = ctn_joint_desc_default(j->type == CTN_URDF_FIXED ? CTN_JOINT_FIXED
                                              : slider                 ? CTN_JOINT_PRISMATIC
                                              : planar                 ? CTN_JOINT_PLANAR
                                                                       : CTN_JOINT_HINGE);
    d.body_a = handle_of(b, j->child);
    d.body_b = handle_of(b, j->parent);
    const frame *jf = &b->links[j->child].pose; /* the joint frame is the child's link frame */
    if (ctn_body_is_world(d.body_b) && world_mover(b, j)) {
        /* the fixed world as a static body at the joint's point: a mimic coupling turns it relative to the child */
        char name[300];
        snprintf(name, sizeof name, "%s#base", j->name);
        ctn_body_desc bd = ctn_body_desc_default();
        bd.type = CTN_BODY_STATIC;
        memcpy(bd.position, jf->p, sizeof bd.position);
        size_t k = (size_t)(j - b->m->joints);
        ctn_status st = ctn_body_add(b->w, &bd, &b->jbase[k]);
        if (st == CTN_OK) st = ctn_body_set_name(b->w, b->jbase[k], name);
        if (st != CTN_OK) return fail(b, st, "joint '%s': %s", j->name, ctn_world_last_error(b->w));
        b->has_jbase[k] = 1;
        d.body_b = b->jbase[k];
    }
    double axis[3];
    mat_vec(jf->r, j->axis, axis);
    ctn_status st = ctn_joint_desc_set_pivot(b->w, &d, jf->p, d.type != CTN_JOINT_FIXED ? axis : NULL);
    ctn_joint_id id = CTN_NULL_JOINT;
    if (st == CTN_OK) st = ctn_joint_add(b->w, &d, &id);
    if (st == CTN_OK) st = ctn_joint_set_name(b->w, id, j->name);
    /* a coupled mimic follower is driven by its coupling (as ROS and Gazebo leave it unactuated): a motor holding
     * it at speed 0 would fight the leader's */
    char buf[256];
    const char *why = "";
    int gear;
    if (j->mimic) mimic_leader(b, j, buf, sizeof buf, &why, &gear, NULL);
    int implied = !why && limits_implied(b, j);
    if (implied) report_add(&b->rep, R_IMPLIED, "%s", j->name);
    if (st == CTN_OK && j->type == CTN_URDF_REVOLUTE && j->has_limits && !implied) {
        const double pi = 3.14159265358979323846;
        double lo = fmax(j->lower, -pi), hi = fmin(j->upper, pi);
        if (lo != j->lower || hi != j->upper) report_add(&b->rep, R_CLAMPED, "%s ([%g, %g])", j->name, j->lower, j->upper);
        st = ctn_joint_set_limits(b->w, id, 1, lo, hi);
    }
    if (st == CTN_OK && slider && j->has_limits && !implied) st = ctn_joint_set_limits(b->w, id, 1, j->lower, j->upper); /* m */
    if (st == CTN_OK && d.type != CTN_JOINT_FIXED && !planar && j->has_limits && j->effort > 0 && why) st = ctn_joint_set_motor(b->w, id, 1, 0.0, j->effort);
    if (st != CTN_OK) return fail(b, st, "joint '%s' (link '%s'): %s", j->name, child->name, ctn_world_last_error(b->w));
    return CTN_OK;
}

static int is_hinge(ctn_urdf_joint_type t) { return t == CTN_URDF_REVOLUTE || t == CTN_URDF_CONTINUOUS; }

/* Distance of the centre of link `link`'s body from the axis of joint j (through the child's link frame). */
static double off_axis(const build *b, const ctn_urdf_joint *j) {
    const link_state *ls = &b->links[j->child];
    double axis[3], d[3], n = 0.0, t = 0.0, r = 0.0;
    mat_vec(ls->pose.r, j->axis, axis);
    for (int k = 0; k < 3; ++k) n += axis[k] * axis[k], d[k] = ls->body_frame.p[k] - ls->pose.p[k];
    n = sqrt(n);
    for (int k = 0; k < 3; ++k) t += d[k] * axis[k] / n;
    for (int k = 0; k < 3; ++k) r += (d[k] - t * axis[k] / n) * (d[k] - t * axis[k] / n);
    return sqrt(r);
}

/* <mimic>: q_follower = multiplier q_leader + offset. Catena's gear (CTN_JOINT_GEAR) keeps
 * theta_a + ratio theta_b constant for the turns of two bodies about their axes, which are the joint
 * positions exactly when both are hinged at their centres of mass to the fixed world (kernels/ctn_joint_rows.h,
 * ctn_rows_gear): there the coupling becomes a gear with body a = the follower, body b = the leader, ratio =
 * -multiplier, its zero at the built pose (the offset is reported). Anywhere else (a moving common parent, as
 * a gripper's palm, a finger's middle link between its two joints, or a link whose centre is off its axis)
 * the coupling of joint positions involves a third body, the link the two joints share, and is made exact
 * through added bodies on it (add_mimic_coupled). Joints that share no link (the coupling would act on four
 * bodies, which Catena's two-body rows cannot express) are reported with the reason and move independently. */
static void unit3(double v[3]) {
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; ++k) v[k] /= n;
}

/* A unit vector across both unit vectors a and c: a x c, or any direction across a when they are parallel. */
static void across(const double a[3], const double c[3], double out[3]) {
    double x[3] = {a[1] * c[2] - a[2] * c[1], a[2] * c[0] - a[0] * c[2], a[0] * c[1] - a[1] * c[0]};
    if (sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) < 1e-6) {
        double e[3] = {0, 0, 0};
        e[fabs(a[0]) < 0.6 ? 0 : fabs(a[1]) < 0.6 ? 1 : 2] = 1.0;
        x[0] = a[1] * e[2] - a[2] * e[1], x[1] = a[2] * e[0] - a[0] * e[2], x[2] = a[0] * e[1] - a[1] * e[0];
    }
    unit3(x);
    memcpy(out, x, sizeof x);
}

/* <mimic> between two joints that share a link (the shared body B: a gripper's palm holding both fingers, or
 * a finger's middle link, the child of the leader and the parent of the follower), on a base that may move:
 * exact with two-body rows through added bodies on B, because a rack-and-pinion measured on the common base
 * (CTN_JF_RACK_BASE, kernels/ctn_joint_rows.h ctn_rows_rack_base) ties a joint position to an added body's:
 * with the pinion's turn delta (about its axis, relative to B) and the rack's travel u (along its axis,
 * relative to B), the row holds u = r delta. Each joint's "mover" is its link other than B: the child where B
 * is the joint's parent, the parent where B is its child, whose position relative to B is then -q along the
 * joint's axis, so its axis is taken reversed and the mover's coordinate is q either way.
 *  - two prismatic joints: X is a pinion hinged to B about s, across both slider axes; each mover is a rack
 *    on it: q_l = r delta, q_f = multiplier r delta, r = 0.05 m per rad;
 *  - two revolute joints: X is a rack sliding on B along s, across both hinge axes; each mover is a pinion at
 *    its joint's point: X's travel is r_f q_f = r_l q_l with r_l = multiplier r_f;
 *  - a revolute and a prismatic joint: a pinion X1 hinged to B about s1 (across the slider and the hinge
 *    axes) carries the slider's mover as a rack, q_p = r1 delta1, and turns a rack X2 sliding on B along s2
 *    (across s1 and the hinge axis), u2 = r2 delta1, on which the revolute mover is a pinion, u2 = r3 q_r;
 *    so q_r = r2 / (r1 r3) q_p, and r2 is chosen for q_f = multiplier q_l (multiplier in rad/m or m/rad).
 * An added body carries 10% of the lighter mover's mass (a sphere's inertia of its radius r) and no shape.
 * Added at the start pose, which satisfies the coupling (start_pose), so the coupling's zero is there; a
 * nonzero offset is reported as the gears' is. */
typedef struct mimic_side {
    ctn_body_id mover;   /* the joint's body other than the shared one */
    int prism;           /* a prismatic joint (else revolute or continuous) */
    double axis[3];      /* world, unit: the mover's positive coordinate about or along it (reversed for a parent) */
    double point[3];     /* the joint's point (its child's link frame origin), world */
    double anchor[3];    /* that point in the mover's body frame */
    double r;            /* distance of the mover's centre from the axis (revolute), at least 0.01 m */
    double mass;         /* the mover's link mass */
} mimic_side;

typedef struct mimic_plan {
    ctn_body_id base;    /* the shared body (CTN_WORLD: a common parent fixed to the world) */
    mimic_side f, l;     /* follower, partner */
    const ctn_urdf_joint *partner; /* the leader, or a joint coupled to it that shares a link with the follower */
    double m;            /* q_follower = m q_partner */
} mimic_plan;

/* The side of joint j whose shared body is `shared` (a body index, -1: the world): B = j's parent when
 * `shared_is_parent`, else B = j's child. Returns 0 when the mover is the fixed world. */
static int mimic_side_of(const build *b, const ctn_urdf_joint *j, int shared_is_parent, mimic_side *s) {
    int mover_link = shared_is_parent ? j->child : j->parent, body = b->links[mover_link].body;
    size_t k = (size_t)(j - b->m->joints);
    if (body < 0 && (shared_is_parent || !world_mover(b, j))) return 0; /* add_joint gave it a static body */
    const link_state *child = &b->links[j->child];
    /* the mover's body frame: its own; for the fixed world's static body (at the joint's point, unturned) the
     * shared child's, whose centre turns about the axis */
    const link_state *own = body >= 0 ? &b->links[b->owner[body]] : &b->links[b->owner[b->links[j->child].body]];
    s->mover = body >= 0 ? b->bodies[body] : b->jbase[k];
    s->prism = j->type == CTN_URDF_PRISMATIC;
    mat_vec(child->pose.r, j->axis, s->axis);
    unit3(s->axis);
    if (!shared_is_parent)
        for (int k = 0; k < 3; ++k) s->axis[k] = -s->axis[k];
    memcpy(s->point, child->pose.p, sizeof s->point);
    double dp[3], t = 0.0, r = 0.0;
    for (int c = 0; c < 3; ++c) dp[c] = s->point[c] - own->body_frame.p[c];
    for (int c = 0; c < 3; ++c) s->anchor[c] = own->body_frame.r[0][c] * dp[0] + own->body_frame.r[1][c] * dp[1] + own->body_frame.r[2][c] * dp[2];
    if (body < 0) s->anchor[0] = s->anchor[1] = s->anchor[2] = 0.0; /* the static body sits at the point */
    for (int c = 0; c < 3; ++c) t += dp[c] * s->axis[c];
    for (int c = 0; c < 3; ++c) r += (dp[c] - t * s->axis[c]) * (dp[c] - t * s->axis[c]);
    s->r = fmax(0.01, sqrt(r));
    s->mass = b->m->links[b->owner[body >= 0 ? body : b->links[j->child].body]].mass;
    return 1;
}

/* An added body of the coupling at the follower's joint point, hinged (pinion) or sliding (rack) on the base
 * about or along s. */
static ctn_status add_mimic_body(build *b, const mimic_plan *p, const char *name, int pinion, const double s[3], double mass, double radius,
                                 ctn_body_id *out) {
    ctn_body_desc bd = ctn_body_desc_default();
    bd.mass = mass;
    bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 0.4 * mass * radius * radius;
    memcpy(bd.position, p->f.point, sizeof bd.position);
    ctn_status st = ctn_body_add(b->w, &bd, out);
    if (st == CTN_OK) st = ctn_body_set_name(b->w, *out, name);
    ctn_joint_desc d = ctn_joint_desc_default(pinion ? CTN_JOINT_HINGE : CTN_JOINT_PRISMATIC);
    d.body_a = *out;
    d.body_b = p->base;
    ctn_joint_id id;
    if (st == CTN_OK) st = ctn_joint_desc_set_pivot(b->w, &d, p->f.point, s);
    if (st == CTN_OK) st = ctn_joint_add(b->w, &d, &id);
    if (st == CTN_OK) st = ctn_joint_set_name(b->w, id, name);
    return st;
}

/* A relative rack-and-pinion: the rack's travel along rack_axis = ratio times the pinion's turn about
 * pinion_axis, both on the base; anchor: the pinion's point on its axis in its body frame (NULL: its centre). */
static ctn_status add_relative_rack(build *b, ctn_body_id pinion, const double pinion_axis[3], const double *anchor, ctn_body_id rack,
                                    const double rack_axis[3], double ratio) {
    ctn_joint_desc d = ctn_joint_desc_default(CTN_JOINT_RACK_PINION);
    d.relative = 1;
    d.body_a = pinion, d.body_b = rack;
    memcpy(d.axis, pinion_axis, sizeof d.axis);
    memcpy(d.axis2, rack_axis, sizeof d.axis2);
    if (anchor) memcpy(d.anchor_a, anchor, sizeof d.anchor_a);
    d.ratio = ratio;
    return ctn_joint_add(b->w, &d, NULL);
}

/* The ratio r2 of the mixed coupling's middle rack-and-pinion (see above) for q_f = m q_l. */
static double mimic_mixed_ratio(const mimic_plan *p, double m) {
    const double r1 = 0.05;
    return p->f.prism ? r1 * p->l.r / m : m * r1 * p->f.r;
}

static ctn_status add_mimic_coupled(build *b, const ctn_urdf_joint *j, const mimic_plan *p) {
    const double m = p->m, r1 = 0.05;
    double mass = 0.1 * fmin(p->f.mass, p->l.mass), s[3], s2[3];
    char name[300], name2[300];
    snprintf(name, sizeof name, "%s#mimic", j->name);
    snprintf(name2, sizeof name2, "%s#mimic2", j->name);
    ctn_body_id x, x2;
    ctn_status st;
    if (p->f.prism == p->l.prism) {
        int prism = p->f.prism;
        across(p->f.axis, p->l.axis, s);
        double r = prism ? r1 : p->f.r; /* m of travel per rad */
        st = add_mimic_body(b, p, name, prism, s, mass, r, &x);
        for (int k = 0; k < 2 && st == CTN_OK; ++k) { /* k = 0: the follower, 1: the leader */
            const mimic_side *sd = k ? &p->l : &p->f;
            if (prism) st = add_relative_rack(b, x, s, NULL, sd->mover, sd->axis, k ? r : m * r); /* X the pinion, the mover the rack */
            else st = add_relative_rack(b, sd->mover, sd->axis, sd->anchor, x, s, k ? m * r : r); /* the mover the pinion at its point */
        }
    } else {
        const mimic_side *rv = p->f.prism ? &p->l : &p->f, *pr = p->f.prism ? &p->f : &p->l;
        across(pr->axis, rv->axis, s);
        across(s, rv->axis, s2);
        st = add_mimic_body(b, p, name, 1, s, mass, r1, &x);
        if (st == CTN_OK) st = add_mimic_body(b, p, name2, 0, s2, mass, rv->r, &x2);
        if (st == CTN_OK) st = add_relative_rack(b, x, s, NULL, pr->mover, pr->axis, r1);
        if (st == CTN_OK) st = add_relative_rack(b, x, s, NULL, x2, s2, mimic_mixed_ratio(p, m));
        if (st == CTN_OK) st = add_relative_rack(b, rv->mover, rv->axis, rv->anchor, x2, s2, rv->r);
    }
    if (st != CTN_OK) return fail(b, st, "joint '%s' (mimics '%s'): %s", j->name, j->mimic, ctn_world_last_error(b->w));
    char via[300] = "";
    if (strcmp(p->partner->name, j->mimic)) snprintf(via, sizeof via, "; through %s, multiplier %g", p->partner->name, p->m);
    if (j->mimic_offset != 0.0) report_add(&b->rep, R_RACK, "%s (mimics %s, multiplier %g%s; offset %g ignored: zero at the start pose)", j->name, j->mimic,
                                           j->mimic_multiplier, via, j->mimic_offset);
    else report_add(&b->rep, R_RACK, "%s (mimics %s, multiplier %g%s)", j->name, j->mimic, j->mimic_multiplier, via);
    return CTN_OK;
}

/* Whether q_j = m q_l can be coupled: NULL and the plan (with *gear: as a gear of two links hinged at their
 * centres to the world), else the reason it cannot. */
static const char *mimic_pair(const build *b, const ctn_urdf_joint *j, const ctn_urdf_joint *l, double m, char *buf, size_t size, mimic_plan *p,
                              int *gear) {
    memset(p, 0, sizeof *p);
    p->partner = l, p->m = m;
    *gear = 0;
    if (!(is_hinge(j->type) || j->type == CTN_URDF_PRISMATIC) || !(is_hinge(l->type) || l->type == CTN_URDF_PRISMATIC))
        return "not two revolute, continuous or prismatic joints";
    if (!b->links[j->child].owns_body || !b->links[l->child].owns_body) return "a link without its own body";
    int fp = weld_of(b, b->links[j->parent].body), fc = weld_of(b, b->links[j->child].body);
    int lp = weld_of(b, b->links[l->parent].body), lc = weld_of(b, b->links[l->child].body), ok;
    if (fp == lp) ok = mimic_side_of(b, j, 1, &p->f) && mimic_side_of(b, l, 1, &p->l), p->base = handle_of(b, j->parent);
    else if (fp == lc) ok = mimic_side_of(b, j, 1, &p->f) && mimic_side_of(b, l, 0, &p->l), p->base = handle_of(b, l->child);
    else if (fc == lp) ok = mimic_side_of(b, j, 0, &p->f) && mimic_side_of(b, l, 1, &p->l), p->base = handle_of(b, j->child);
    else {
        snprintf(buf, size, "no link common to both joints (parents '%s' and '%s')", b->m->links[j->parent].name, b->m->links[l->parent].name);
        return buf;
    }
    if (!ok) return "a mover is the fixed world"; /* not reached: add_joint gives such a world a static body */
    double r2 = p->f.prism != p->l.prism ? fabs(mimic_mixed_ratio(p, m)) : 1.0;
    if (!(r2 >= 1e-6 && r2 <= 1e6)) {
        snprintf(buf, size, "multiplier %g: the coupling's ratio %g is outside [1e-6, 1e6]", m, r2);
        return buf;
    }
    *gear = is_hinge(j->type) && is_hinge(l->type) && fp == lp && fp < 0 && off_axis(b, j) <= 1e-9 && off_axis(b, l) <= 1e-9;
    return NULL;
}

/* The leader of mimic joint j, with *why = NULL when the coupling can be made (*gear: as a gear, else through
 * added bodies on the shared link, planned in *plan when plan is not NULL), else the reason it cannot. A
 * follower that shares no link with its leader is coupled to another follower o of that leader that does
 * (q_j = m q_l = (m / m_o) q_o, o itself coupled to the leader directly): the inner fingers of a four-bar
 * gripper such as Robotiq's 2F-85 mimic the leader on the far side of the palm and share a link with the
 * outer knuckle that mimics it on their own side. */
static const ctn_urdf_joint *mimic_leader(const build *b, const ctn_urdf_joint *j, char *buf, size_t size, const char **why_out, int *gear_out,
                                          mimic_plan *plan) {
    int leader = -1;
    for (int k = 0; k < b->m->joint_count; ++k)
        if (!strcmp(b->m->joints[k].name, j->mimic)) leader = k;
    const ctn_urdf_joint *l = leader >= 0 ? &b->m->joints[leader] : NULL;
    const char *why = NULL;
    int gear = 0;
    mimic_plan p;
    memset(&p, 0, sizeof p);
    double m = j->mimic_multiplier;
    if (!l) why = "no such joint";
    else if (l == j) why = "itself";
    else if (m == 0.0 || !isfinite(m)) {
        snprintf(buf, size, "multiplier %g", m);
        why = buf;
    } else why = mimic_pair(b, j, l, m, buf, size, &p, &gear);
    for (int k = 0; why && l && l != j && m != 0.0 && isfinite(m) && k < b->m->joint_count; ++k) {
        const ctn_urdf_joint *o = &b->m->joints[k];
        double mo = o->mimic_multiplier;
        if (o == j || o == l || !o->mimic || strcmp(o->mimic, l->name) || mo == 0.0 || !isfinite(mo)) continue;
        char scratch[256];
        mimic_plan q;
        int g;
        if (mimic_pair(b, o, l, mo, scratch, sizeof scratch, &q, &g)) continue; /* o is not coupled to l directly */
        if (!mimic_pair(b, j, o, m / mo, scratch, sizeof scratch, &q, &g)) why = NULL, p = q, gear = g;
    }
    *why_out = why, *gear_out = gear;
    if (plan) *plan = p;
    return l;
}

/* phase 0 (before the start pose): the gears of links hinged at their centres to the world; phase 1 (at the
 * start pose): the couplings on a common parent (add_mimic_on_base) and the reports of the rest. */
static ctn_status add_mimic(build *b, const ctn_urdf_joint *j, int phase) {
    char buf[256];
    const char *why;
    int gear;
    mimic_plan plan;
    const ctn_urdf_joint *l = mimic_leader(b, j, buf, sizeof buf, &why, &gear, &plan);
    if (phase == 0 && !gear) return CTN_OK;
    if (phase == 1 && gear) return CTN_OK;
    if (why) {
        report_add(&b->rep, R_MIMIC, "%s (mimics %s: %s)", j->name, j->mimic, why);
        return CTN_OK;
    }
    if (phase == 1) return add_mimic_coupled(b, j, &plan);
    (void)l;
    const ctn_urdf_joint *o = plan.partner;
    ctn_joint_desc d = ctn_joint_desc_default(CTN_JOINT_GEAR);
    d.body_a = handle_of(b, j->child);
    d.body_b = handle_of(b, o->child);
    mat_vec(b->links[j->child].pose.r, j->axis, d.axis);
    mat_vec(b->links[o->child].pose.r, o->axis, d.axis2);
    d.ratio = -plan.m;
    ctn_status st = ctn_joint_add(b->w, &d, NULL);
    if (st != CTN_OK) return fail(b, st, "joint '%s' (mimics '%s'): %s", j->name, j->mimic, ctn_world_last_error(b->w));
    if (j->mimic_offset != 0.0) report_add(&b->rep, R_GEAR, "%s (mimics %s, multiplier %g; offset %g ignored: zero at the built pose)", j->name, j->mimic,
                                           j->mimic_multiplier, j->mimic_offset);
    else report_add(&b->rep, R_GEAR, "%s (mimics %s, multiplier %g)", j->name, j->mimic, j->mimic_multiplier);
    return CTN_OK;
}

/* The position a joint starts at: 0, or the nearest limit of a revolute or prismatic joint whose limits
 * exclude 0 (many arms and legs: a quadruped's knee limited to [-2.7, -0.9] rad, a Panda's fourth joint
 * to [-3.07, -0.07] rad). Built at zero such a joint would snap onto its limit in the first steps and shake
 * the robot (measured on a generated Unitree A1: worst joint gap 2.8e-3 m over 120 steps). */
static const char *l_name(const ctn_urdf_model *m, int i) { return m->links[i].name; }

static double start_position(const ctn_urdf_joint *j) {
    if (!j->has_limits || !(j->lower <= j->upper) || (j->type != CTN_URDF_REVOLUTE && j->type != CTN_URDF_PRISMATIC)) return 0.0;
    double lo = j->lower, hi = j->upper;
    if (j->type == CTN_URDF_REVOLUTE) lo = fmax(lo, -3.14159265358979323846), hi = fmin(hi, 3.14159265358979323846);
    return lo > 0.0 ? lo : hi < 0.0 ? hi : 0.0;
}

/* Rotation by angle t about the unit axis a (Rodrigues). */
static void axis_rotation(const double a[3], double t, double r[3][3]) {
    double c = cos(t), s = sin(t), v = 1.0 - c;
    r[0][0] = c + a[0] * a[0] * v, r[0][1] = a[0] * a[1] * v - a[2] * s, r[0][2] = a[0] * a[2] * v + a[1] * s;
    r[1][0] = a[1] * a[0] * v + a[2] * s, r[1][1] = c + a[1] * a[1] * v, r[1][2] = a[1] * a[2] * v - a[0] * s;
    r[2][0] = a[2] * a[0] * v - a[1] * s, r[2][1] = a[2] * a[1] * v + a[0] * s, r[2][2] = c + a[2] * a[2] * v;
}

/* Moves the robot from its zero pose, where its joints were made (so that position 0 stays every joint's
 * zero), to the pose of start_position: each link frame by forward kinematics with those positions (a mimic
 * follower at multiplier times its leader's, as its gear holds it), each own body with its link. */
static ctn_status start_pose(build *b) {
    const ctn_urdf_model *m = b->m;
    double *q = ctn__calloc((size_t)m->joint_count + 1, sizeof *q);
    frame *start = ctn__calloc((size_t)m->link_count + 1, sizeof *start);
    int moved = 0;
    if (!q || !start) {
        ctn__free(q);
        ctn__free(start);
        return fail(b, CTN_ERR_OUT_OF_MEMORY, "out of memory for the start pose of %d links", m->link_count);
    }
    for (int k = 0; k < m->joint_count; ++k) {
        q[k] = start_position(&m->joints[k]);
        if (q[k] != 0.0) {
            report_add(&b->rep, R_START, "%s (%g)", m->joints[k].name, q[k]);
            moved = 1;
        }
    }
    for (int k = 0; k < m->joint_count && moved; ++k) {
        const ctn_urdf_joint *j = &m->joints[k];
        if (!j->mimic) continue;
        for (int l = 0; l < m->joint_count; ++l)
            if (!strcmp(m->joints[l].name, j->mimic) && q[l] != 0.0) q[k] = j->mimic_multiplier * q[l];
    }
    for (int i = 0; i < m->link_count && moved; ++i) {
        const ctn_urdf_link *l = &m->links[i];
        if (l->parent_joint < 0) {
            start[i] = b->links[i].pose;
            continue;
        }
        const ctn_urdf_joint *j = &m->joints[l->parent_joint];
        start[i] = compose(&start[j->parent], &j->origin);
        double n = sqrt(j->axis[0] * j->axis[0] + j->axis[1] * j->axis[1] + j->axis[2] * j->axis[2]), a[3];
        for (int c = 0; c < 3; ++c) a[c] = n > 0.0 ? j->axis[c] / n : 0.0;
        if (q[l->parent_joint] != 0.0 && n > 0.0 && (j->type == CTN_URDF_REVOLUTE || j->type == CTN_URDF_CONTINUOUS)) {
            double r[3][3];
            axis_rotation(a, q[l->parent_joint], r);
            mat_mul(start[i].r, r, start[i].r);
        } else if (q[l->parent_joint] != 0.0 && n > 0.0 && j->type == CTN_URDF_PRISMATIC) {
            double d[3];
            mat_vec(start[i].r, a, d);
            for (int c = 0; c < 3; ++c) start[i].p[c] += q[l->parent_joint] * d[c];
        }
    }
    for (int i = 0; i < m->link_count && moved && b->st == CTN_OK; ++i) {
        const link_state *ls = &b->links[i];
        if (!ls->owns_body) continue;
        /* body = start * zero^-1 * body at zero: R = Rs Rz^T Rb, p = ps + Rs Rz^T (pb - pz) */
        double rel[3][3], rt[3][3], d[3], dp[3];
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) rt[r][c] = ls->pose.r[c][r];
        mat_mul(start[i].r, rt, rel);
        frame body;
        mat_mul(rel, ls->body_frame.r, body.r);
        for (int c = 0; c < 3; ++c) d[c] = ls->body_frame.p[c] - ls->pose.p[c];
        mat_vec(rel, d, dp);
        for (int c = 0; c < 3; ++c) body.p[c] = start[i].p[c] + dp[c];
        b->links[i].pose = start[i], b->links[i].body_frame = body; /* the couplings added at the start pose use them */
        ctn_body_state st;
        ctn_status s = ctn_body_get_state(b->w, b->bodies[ls->body], &st);
        ctn_dquat dq = ctn__dq_of_matrix((const double(*)[3])body.r);
        memcpy(st.position, body.p, sizeof st.position);
        st.orientation[0] = dq.w, st.orientation[1] = dq.x, st.orientation[2] = dq.y, st.orientation[3] = dq.z;
        if (s == CTN_OK) s = ctn_body_set_state(b->w, b->bodies[ls->body], &st);
        if (s != CTN_OK) fail(b, s, "link '%s': %s", l_name(m, i), ctn_world_last_error(b->w));
    }
    ctn__free(q);
    ctn__free(start);
    return b->st;
}

/* A collision group no shape of the world uses yet: one more than the largest in use (1 when none is). */
static int fresh_group(const ctn_world *w) {
    const struct ctn_collision *c = w->collision;
    int top = 0, n = c ? (c->shape_capacity < w->body_count ? c->shape_capacity : w->body_count) : 0;
    for (int i = 0; i < n; ++i)
        for (int k = 0; (w->props[i].flags & CTN_BODY_FLAG_ALIVE) && k < ctn__shape_count_of(c, i); ++k)
            if (ctn__shape_at(c, i, k)->group > top) top = ctn__shape_at(c, i, k)->group;
    return top < 2147483647 ? top + 1 : -1;
}

ctn_status ctn_scene_load_urdf(ctn_world *w, const char *path, char *msg, size_t msg_size) {
    return ctn_scene_load_urdf_ex(w, path, 0, msg, msg_size);
}

ctn_status ctn_scene_load_urdf_ex(ctn_world *w, const char *path, int self_collision, char *msg, size_t msg_size) {
    char scratch[1];
    if (!msg) msg = scratch, msg_size = sizeof scratch;
    if (msg_size) msg[0] = '\0';
    CTN__ENTER(w);
    if (!path) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_scene_load_urdf: path is NULL");
    if (self_collision != 0 && self_collision != 1) {
        ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_scene_load_urdf_ex: self_collision: %d must be 0 or 1", self_collision);
        snprintf(msg, msg_size, "%s", w->error);
        return CTN_ERR_INVALID_ARGUMENT;
    }
    ctn_urdf_model *m = NULL;
    char parse_msg[1024];
    ctn_status st = (ctn_status)ctn__urdf_parse(path, &m, parse_msg, sizeof parse_msg);
    if (st != CTN_OK) {
        snprintf(msg, msg_size, "%s", parse_msg);
        return ctn__fail(w, st, "%s", parse_msg);
    }
    st = ctn__sync(w);
    if (st != CTN_OK) {
        ctn__urdf_free(m);
        snprintf(msg, msg_size, "%s", w->error);
        return st;
    }
    build b = {w, m, ctn__calloc((size_t)m->link_count + 1, sizeof *b.links), ctn__calloc((size_t)m->link_count + 1, sizeof *b.bodies), {{0}, {0}, 0}, "", CTN_OK,
               self_collision ? 0 : fresh_group(w), NULL, NULL, NULL, NULL};
    b.owner = ctn__calloc((size_t)m->link_count + 1, sizeof *b.owner);
    b.jbase = ctn__calloc((size_t)m->joint_count + 1, sizeof *b.jbase);
    b.has_jbase = ctn__calloc((size_t)m->joint_count + 1, 1);
    b.weld = ctn__calloc((size_t)m->link_count + 1, sizeof *b.weld);
    if (!b.links || !b.bodies || !b.owner || !b.jbase || !b.has_jbase || !b.weld) fail(&b, CTN_ERR_OUT_OF_MEMORY, "out of memory for %d links", m->link_count);
    if (b.group < 0) fail(&b, CTN_ERR_LIMIT, "no collision group left for the robot's links (the world uses group 2147483647)");
    ctn_world_mark mark = ctn__scene_mark(w);
    if (b.st == CTN_OK) {
        w->append_slots++; /* consecutive handles, as scene files get */
        add_bodies(&b);
        if (b.st == CTN_OK) weld_sets(&b);
        for (int k = 0; k < m->joint_count && b.st == CTN_OK; ++k) add_joint(&b, &m->joints[k]);
        for (int k = 0; k < m->joint_count && b.st == CTN_OK; ++k)
            if (m->joints[k].mimic) add_mimic(&b, &m->joints[k], 0);
        if (b.st == CTN_OK) start_pose(&b);
        for (int k = 0; k < m->joint_count && b.st == CTN_OK; ++k)
            if (m->joints[k].mimic) add_mimic(&b, &m->joints[k], 1);
        w->append_slots--;
        if (b.st == CTN_OK && b.rep.failed) fail(&b, CTN_ERR_OUT_OF_MEMORY, "out of memory for the import report");
        if (b.st != CTN_OK) ctn__scene_rollback(w, mark);
    }
    st = b.st;
    if (st == CTN_OK) report_write(&b.rep, msg, msg_size);
    else {
        ctn__fail(w, st, "%s: %s", path, b.msg);
        snprintf(msg, msg_size, "%s", w->error);
    }
    report_free(&b.rep);
    ctn__free(b.links);
    ctn__free(b.bodies);
    ctn__free(b.owner);
    ctn__free(b.jbase);
    ctn__free(b.has_jbase);
    ctn__free(b.weld);
    ctn__urdf_free(m);
    return st;
}
