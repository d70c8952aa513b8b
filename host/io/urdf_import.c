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
 * as PyBullet's loader does; effort 0 leaves it passive. Prismatic and planar joints have no Catena
 * counterpart and are refused with their names.
 *
 * Collision geometry -> shapes: a sphere as is; a box when its axes lie along the body axes; a cylinder
 * becomes a capsule of the same radius and overall length (URDF 1.0 has no capsule) when its axis lies
 * along a principal axis (the body's x axis is turned onto it). A shape must sit at the centre of mass
 * (Catena's shapes are centred on their body). Catena bodies hold one shape. Unless self-collision is asked
 * for, every shape of the robot gets one fresh collision group, so its links never collide with each other
 * (PyBullet's loadURDF default: a robot's links overlap at their joints by design, and their contacts would
 * push the joints apart); with it, every pair may collide except the pairs joined by a joint.
 *
 * What is approximated or dropped (meshes, extra or off-centre shapes, mimic couplings, joint damping and
 * friction, limits wider than [-pi, pi], collisions of world links) is never silent: each is listed by name
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
    R_MESH, R_CYLINDER, R_EXTRA_SHAPE, R_OFF_CENTRE, R_WORLD_SHAPE, R_MIMIC, R_DYNAMICS, R_CLAMPED, R_KINDS
};
static const char *const report_title[R_KINDS] = {
    "collision meshes ignored (Catena collides spheres, capsules and boxes)",
    "collision cylinders made capsules of the same radius and overall length",
    "collision elements beyond a link's first ignored (one shape per body)",
    "collision shapes ignored: not centred at the link's centre of mass or not along its principal axes",
    "collision shapes of links fixed to the world ignored",
    "mimic couplings ignored (the joints move independently)",
    "joint damping and friction ignored",
    "joint limits beyond [-pi, pi] clamped to it",
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
                     "a rigid body needs three positive moments", l->name, l->ixx, l->iyy, l->izz, l->ixy, l->ixz, l->iyz, moments[i]);
            return CTN_ERR_INVALID_ARGUMENT;
        }
    }
    return CTN_OK;
}

/* Turns the body frame's axes cyclically so that axis k becomes x (a capsule lies along body x). */
static void make_axis_x(frame *f, double moments[3], int k) {
    for (int turn = 0; turn < k; ++turn) {
        for (int i = 0; i < 3; ++i) {
            double x = f->r[i][0];
            f->r[i][0] = f->r[i][1], f->r[i][1] = f->r[i][2], f->r[i][2] = x;
        }
        double m = moments[0];
        moments[0] = moments[1], moments[1] = moments[2], moments[2] = m;
    }
}

static int parallel(const double a[3], const double b[3]) {
    return fabs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) > 1 - 1e-9;
}

/* The shape of a link's collision element in the frame of its body, or CTN_SHAPE_NONE (reported) when
 * Catena cannot place it. May turn the body frame (capsules). */
static ctn_shape_desc shape_of(const ctn_urdf_collision *c, const link_state *ls, frame *body, double moments[3], const char *link, report *r) {
    ctn_shape_desc none = ctn_shape_desc_default(CTN_SHAPE_NONE);
    if (c->type == CTN_URDF_MESH) {
        report_add(r, R_MESH, "%s (%s)", link, c->mesh);
        return none;
    }
    frame where = compose(&ls->pose, &c->origin);
    double d = 0.0;
    for (int i = 0; i < 3; ++i) d = fmax(d, fabs(where.p[i] - body->p[i]));
    if (d > 1e-9 * (1 + fabs(body->p[0]) + fabs(body->p[1]) + fabs(body->p[2]))) {
        report_add(r, R_OFF_CENTRE, "%s (%g m from the centre of mass)", link, d);
        return none;
    }
    if (c->type == CTN_URDF_SPHERE) {
        ctn_shape_desc s = ctn_shape_desc_default(CTN_SHAPE_SPHERE);
        s.radius = c->radius;
        return s;
    }
    if (c->type == CTN_URDF_CYLINDER) {
        double axis[3] = {where.r[0][2], where.r[1][2], where.r[2][2]};
        for (int k = 0; k < 3; ++k) {
            double col[3] = {body->r[0][k], body->r[1][k], body->r[2][k]};
            if (!parallel(axis, col)) continue;
            make_axis_x(body, moments, k);
            report_add(r, R_CYLINDER, "%s", link);
            ctn_shape_desc s = ctn_shape_desc_default(c->length > 2 * c->radius ? CTN_SHAPE_CAPSULE : CTN_SHAPE_SPHERE);
            s.radius = c->radius;
            s.half_length = fmax(c->length / 2 - c->radius, 0.0);
            return s;
        }
        report_add(r, R_OFF_CENTRE, "%s (cylinder axis off the principal axes)", link);
        return none;
    }
    /* box: each of its axes along one body axis */
    ctn_shape_desc s = ctn_shape_desc_default(CTN_SHAPE_BOX);
    for (int k = 0; k < 3; ++k) {
        double axis[3] = {where.r[0][k], where.r[1][k], where.r[2][k]};
        int found = -1;
        for (int b = 0; b < 3 && found < 0; ++b) {
            double col[3] = {body->r[0][b], body->r[1][b], body->r[2][b]};
            if (parallel(axis, col)) found = b;
        }
        if (found < 0) {
            report_add(r, R_OFF_CENTRE, "%s (box axes off the principal axes)", link);
            return none;
        }
        s.half_extents[found] = c->size[k] / 2;
    }
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
        ctn_status st = principal_frame(l, &ls->pose, &ls->body_frame, ls->moments, b->msg, sizeof b->msg);
        if (st != CTN_OK) return b->st = st;
        ls->body = count++;
        ls->owns_body = 1;
    }
    for (int i = 0; i < b->m->link_count; ++i) {
        const ctn_urdf_link *l = &b->m->links[i];
        link_state *ls = &b->links[i];
        ctn_shape_desc shape = ctn_shape_desc_default(CTN_SHAPE_NONE);
        for (int c = 0; c < l->collision_count; ++c) {
            if (ls->body < 0) report_add(&b->rep, R_WORLD_SHAPE, "%s", l->name);
            else if (!ls->owns_body || shape.type != CTN_SHAPE_NONE) report_add(&b->rep, R_EXTRA_SHAPE, "%s", l->name);
            else shape = shape_of(&l->collisions[c], ls, &ls->body_frame, ls->moments, l->name, &b->rep);
        }
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
        shape.group = b->group;
        if (st == CTN_OK && shape.type != CTN_SHAPE_NONE) st = ctn_body_set_shape(b->w, id, &shape);
        if (st != CTN_OK) return fail(b, st, "link '%s': %s", l->name, ctn_world_last_error(b->w));
        b->bodies[ls->body] = id;
    }
    return CTN_OK;
}

static ctn_body_id handle_of(const build *b, int link) { return b->links[link].body < 0 ? CTN_WORLD : b->bodies[b->links[link].body]; }

static ctn_status add_joint(build *b, const ctn_urdf_joint *j) {
    const ctn_urdf_link *child = &b->m->links[j->child];
    if (j->mimic) report_add(&b->rep, R_MIMIC, "%s (mimics %s)", j->name, j->mimic);
    if (j->damping != 0 || j->friction != 0) report_add(&b->rep, R_DYNAMICS, "%s (damping %g, friction %g)", j->name, j->damping, j->friction);
    if (j->type == CTN_URDF_PLANAR)
        return fail(b, CTN_ERR_UNSUPPORTED, "joint '%s' is %s: Catena has no planar joint", j->name, joint_type_name(j->type));
    if (j->type == CTN_URDF_FLOATING || !b->links[j->child].owns_body) return CTN_OK; /* free, or merged into its parent */
    int slider = j->type == CTN_URDF_PRISMATIC; /* q: the child's travel along the axis, the slider position s */
    ctn_joint_desc d = ctn_joint_desc_default(j->type == CTN_URDF_FIXED ? CTN_JOINT_FIXED : slider ? CTN_JOINT_PRISMATIC : CTN_JOINT_HINGE);
    d.body_a = handle_of(b, j->child);
    d.body_b = handle_of(b, j->parent);
    const frame *jf = &b->links[j->child].pose; /* the joint frame is the child's link frame */
    double axis[3];
    mat_vec(jf->r, j->axis, axis);
    ctn_status st = ctn_joint_desc_set_pivot(b->w, &d, jf->p, d.type != CTN_JOINT_FIXED ? axis : NULL);
    ctn_joint_id id = CTN_NULL_JOINT;
    if (st == CTN_OK) st = ctn_joint_add(b->w, &d, &id);
    if (st == CTN_OK && j->type == CTN_URDF_REVOLUTE && j->has_limits) {
        const double pi = 3.14159265358979323846;
        double lo = fmax(j->lower, -pi), hi = fmin(j->upper, pi);
        if (lo != j->lower || hi != j->upper) report_add(&b->rep, R_CLAMPED, "%s ([%g, %g])", j->name, j->lower, j->upper);
        st = ctn_joint_set_limits(b->w, id, 1, lo, hi);
    }
    if (st == CTN_OK && slider && j->has_limits) st = ctn_joint_set_limits(b->w, id, 1, j->lower, j->upper); /* m */
    if (st == CTN_OK && d.type != CTN_JOINT_FIXED && j->has_limits && j->effort > 0) st = ctn_joint_set_motor(b->w, id, 1, 0.0, j->effort);
    if (st != CTN_OK) return fail(b, st, "joint '%s' (link '%s'): %s", j->name, child->name, ctn_world_last_error(b->w));
    return CTN_OK;
}

/* A collision group no shape of the world uses yet: one more than the largest in use (1 when none is). */
static int fresh_group(const ctn_world *w) {
    const struct ctn_collision *c = w->collision;
    int top = 0, n = c ? (c->shape_capacity < w->body_count ? c->shape_capacity : w->body_count) : 0;
    for (int i = 0; i < n; ++i)
        if (c->shapes[i].type != CTN_SHAPE_NONE && (w->props[i].flags & CTN_BODY_FLAG_ALIVE) && c->shapes[i].group > top)
            top = c->shapes[i].group;
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
               self_collision ? 0 : fresh_group(w)};
    if (!b.links || !b.bodies) fail(&b, CTN_ERR_OUT_OF_MEMORY, "out of memory for %d links", m->link_count);
    if (b.group < 0) fail(&b, CTN_ERR_LIMIT, "no collision group left for the robot's links (the world uses group 2147483647)");
    ctn_world_mark mark = ctn__scene_mark(w);
    if (b.st == CTN_OK) {
        w->append_slots++; /* consecutive handles, as scene files get */
        add_bodies(&b);
        for (int k = 0; k < m->joint_count && b.st == CTN_OK; ++k) add_joint(&b, &m->joints[k]);
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
    ctn__urdf_free(m);
    return st;
}
