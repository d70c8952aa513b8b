/* Built-in contact generation: shapes on bodies, static planes, the narrow phase, and contact
 * persistence.
 *
 * Every step, before the topology rebuild, ctn__collide
 *   1. bounds every shape by an AABB grown by its motion bound over one step (|v| + |w| R) h plus half
 *      the speculative margin, and finds overlapping pairs with the uniform grid (host/broadphase.c);
 *   2. runs the narrow phase on each pair and against every plane: sphere-sphere, sphere-capsule,
 *      capsule-capsule (two points when nearly parallel), sphere / capsule (two end points) / box (eight
 *      corners) against planes. A point is kept while its gap is below the pair's margin, so contacts are
 *      speculative: the normal row lets the gap close within a substep but no further (ctn_joint_prepare);
 *   3. matches each point to last step's by (body a, body b, feature id): a matched contact keeps its joint
 *      id, so its impulses carry over as the warm start (topo.lambda follows joint ids); new points get a
 *      recycled or new id; vanished ones are removed. The contact graph changes every step, so the
 *      topology (colouring, solver order, device layout) is rebuilt every step in which contacts exist.
 * Pairs of bodies joined by a joint are skipped (desc.skip_jointed), as are pairs with no dynamic body.
 * Not supported (no contact is made): box against sphere, capsule or box.
 */
#include "collide/collide.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- state and public setters ----------------------------------------------------------------------- */

ctn_collision_desc ctn_collision_desc_default(void) {
    ctn_collision_desc d;
    memset(&d, 0, sizeof d);
    d.enabled = 1;
    d.skip_jointed = 1;
    d.margin = 0.01;
    return d;
}

ctn_shape_desc ctn_shape_desc_default(ctn_shape_type type) {
    ctn_shape_desc d;
    memset(&d, 0, sizeof d);
    d.type = type;
    d.radius = 0.5;
    d.half_length = 0.5;
    d.half_extents[0] = d.half_extents[1] = d.half_extents[2] = 0.5;
    d.friction = 0.5;
    d.restitution = 0.0;
    return d;
}

struct ctn_collision *ctn__collision_get(ctn_world *w) {
    if (w->collision) return w->collision;
    struct ctn_collision *c = calloc(1, sizeof *c);
    if (!c) {
        ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory creating the collision state");
        return NULL;
    }
    c->desc = ctn_collision_desc_default();
    w->collision = c;
    return c;
}

void ctn__collision_free(ctn_world *w) {
    struct ctn_collision *c = w->collision;
    if (!c) return;
    free(c->shapes);
    free(c->planes);
    free(c->keys);
    free(c->table);
    free(c->pairs.pairs);
    free(c);
    w->collision = NULL;
}

ctn_status ctn_world_set_collision(ctn_world *w, const ctn_collision_desc *d) {
    if (!w) return CTN_ERR_INVALID_ARGUMENT;
    ctn__clear_error(w);
    if (!d) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_set_collision: desc is NULL");
    if (!(d->margin >= 0.0) || !isfinite(d->margin) || d->margin > 1e3)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "collision.margin: %g must be finite and in [0, 1000] m", d->margin);
    struct ctn_collision *c = ctn__collision_get(w);
    if (!c) return CTN_ERR_OUT_OF_MEMORY;
    c->desc = *d;
    return CTN_OK;
}

static int finite_pos(double v) { return isfinite(v) && v > 0.0; }

ctn_status ctn_body_set_shape(ctn_world *w, ctn_body_id handle, const ctn_shape_desc *s) {
    if (!w) return CTN_ERR_INVALID_ARGUMENT;
    ctn__clear_error(w);
    if (!s) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_body_set_shape: shape is NULL");
    int body = ctn__body_index(w, handle, "ctn_body_set_shape", 0);
    if (body < 0) return CTN_ERR_NOT_FOUND;
    if ((int)s->type < CTN_SHAPE_NONE || (int)s->type > CTN_SHAPE_BOX)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "shape.type: unknown shape type %d", (int)s->type);
    if ((s->type == CTN_SHAPE_SPHERE || s->type == CTN_SHAPE_CAPSULE) && !finite_pos(s->radius))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "shape.radius: %g must be finite and > 0", s->radius);
    if (s->type == CTN_SHAPE_CAPSULE && !(isfinite(s->half_length) && s->half_length >= 0.0))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "shape.half_length: %g must be finite and >= 0", s->half_length);
    if (s->type == CTN_SHAPE_BOX)
        for (int k = 0; k < 3; ++k)
            if (!finite_pos(s->half_extents[k]))
                return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "shape.half_extents[%d]: %g must be finite and > 0", k, s->half_extents[k]);
    if (s->type != CTN_SHAPE_NONE && (!(s->friction >= 0.0) || !isfinite(s->friction)))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "shape.friction: %g must be finite and >= 0", s->friction);
    if (s->type != CTN_SHAPE_NONE && !(s->restitution >= 0.0 && s->restitution <= 1.0))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "shape.restitution: %g is not in [0, 1]", s->restitution);
    if ((w->props[body].flags & CTN_BODY_FLAG_PARTICLE) && s->type != CTN_SHAPE_SPHERE && s->type != CTN_SHAPE_NONE)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "shape.type: body %lld is a particle (no orientation): only spheres fit",
                         (long long)handle);
    struct ctn_collision *c = ctn__collision_get(w);
    if (!c) return CTN_ERR_OUT_OF_MEMORY;
    if (body >= c->shape_capacity) {
        int cap = c->shape_capacity ? c->shape_capacity : 64;
        while (cap <= body) cap *= 2;
        ctn_shape *ns = realloc(c->shapes, (size_t)cap * sizeof *ns);
        if (!ns) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for %d shapes", cap);
        memset(ns + c->shape_capacity, 0, (size_t)(cap - c->shape_capacity) * sizeof *ns);
        c->shapes = ns;
        c->shape_capacity = cap;
    }
    ctn_shape *sh = &c->shapes[body];
    if (sh->type != CTN_SHAPE_NONE) c->shape_count--;
    memset(sh, 0, sizeof *sh);
    sh->type = (int)s->type;
    if (s->type == CTN_SHAPE_NONE) return CTN_OK;
    c->shape_count++;
    sh->radius = (float)s->radius;
    sh->half_length = (float)s->half_length;
    sh->half_extents = ctn_v3_make((float)s->half_extents[0], (float)s->half_extents[1], (float)s->half_extents[2]);
    sh->friction = (float)s->friction;
    sh->restitution = (float)s->restitution;
    return CTN_OK;
}

ctn_status ctn_world_add_plane(ctn_world *w, const double normal[3], double offset, double friction, double restitution, int *out) {
    if (!w) return CTN_ERR_INVALID_ARGUMENT;
    ctn__clear_error(w);
    if (!normal) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_add_plane: normal is NULL");
    double n = sqrt(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]);
    if (!(n > 1e-9) || !isfinite(n)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "plane.normal: zero or non-finite vector");
    if (!isfinite(offset)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "plane.offset: %g is not finite", offset);
    if (!(friction >= 0.0) || !isfinite(friction)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "plane.friction: %g must be >= 0", friction);
    if (!(restitution >= 0.0 && restitution <= 1.0))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "plane.restitution: %g is not in [0, 1]", restitution);
    struct ctn_collision *c = ctn__collision_get(w);
    if (!c) return CTN_ERR_OUT_OF_MEMORY;
    if (c->plane_count >= 4096) return ctn__fail(w, CTN_ERR_LIMIT, "ctn_world_add_plane: at most 4096 planes");
    if (c->plane_count == c->plane_capacity) {
        int cap = c->plane_capacity ? 2 * c->plane_capacity : 8;
        ctn_plane *np = realloc(c->planes, (size_t)cap * sizeof *np);
        if (!np) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for planes");
        c->planes = np;
        c->plane_capacity = cap;
    }
    ctn_plane *p = &c->planes[c->plane_count];
    p->normal = ctn_v3_make((float)(normal[0] / n), (float)(normal[1] / n), (float)(normal[2] / n));
    p->offset = (float)(offset);
    p->friction = (float)friction;
    p->restitution = (float)restitution;
    if (out) *out = c->plane_count;
    c->plane_count++;
    return CTN_OK;
}

/* ---- contact definitions -------------------------------------------------------------------------- */

ctn_joint_def ctn__contact_def(const ctn_world *w, int a, int b, const double pa[3], const double pb[3], ctn_v3 n, float mu, float e,
                               int flags, const ctn_joint_def *prev) {
    ctn_joint_def j;
    memset(&j, 0, sizeof j);
    /* friction direction t1 (world): the previous one projected on the new tangent plane, else any */
    ctn_v3 t1 = ctn_v3_zero(), t2;
    if (prev) {
        ctn_v3 old = prev->b >= 0 ? ctn_quat_rotate(w->pose[prev->b].q, prev->axis_a) : prev->axis_a;
        t1 = ctn_madd(old, n, -ctn_dot(n, old));
    }
    float tl = ctn_length(t1);
    if (tl > 0.1f) t1 = ctn_scale(t1, 1.0f / tl);
    else ctn_basis(n, &t1, &t2);
    j.type = CTN_JT_CONTACT;
    j.a = a;
    j.b = b;
    j.rows = 3;
    /* lever arms in double from the two-float positions, then into the body frames */
    double xa[3], xb[3] = {0.0, 0.0, 0.0};
    ctn__pose_get_position(&w->pose[a], xa);
    if (b >= 0) ctn__pose_get_position(&w->pose[b], xb);
    ctn_v3 ra = ctn_v3_make((float)(pa[0] - xa[0]), (float)(pa[1] - xa[1]), (float)(pa[2] - xa[2]));
    ctn_v3 rb = ctn_v3_make((float)(pb[0] - xb[0]), (float)(pb[1] - xb[1]), (float)(pb[2] - xb[2]));
    j.anchor_a = ctn_quat_rotate_inv(w->pose[a].q, ra);
    if (b >= 0) {
        j.anchor_b = ctn_quat_rotate_inv(w->pose[b].q, rb);
        j.axis_b = ctn_quat_rotate_inv(w->pose[b].q, n);
        j.axis_a = ctn_quat_rotate_inv(w->pose[b].q, t1);
    } else {
        j.anchor_b = rb; /* world frame: float32 (a world-side anchor has no trailing part) */
        j.axis_b = n;
        j.axis_a = t1;
    }
    j.compliance = (float)w->desc.compliance;
    j.damping_time = (float)w->desc.damping_time;
    j.rel_q = ctn_quat_identity();
    j.lo = mu;
    j.hi = e;
    j.flags = flags;
    return j;
}

/* ---- narrow phase ----------------------------------------------------------------------------------- */

/* The narrow phase runs in float32 about a per-pair origin `org` (the leading part of body a's position), so
 * points far from the world origin keep float precision relative to the bodies (positions are two floats). */
typedef struct contact_point {
    int a, b, feature;
    ctn_v3 org;       /* origin of pa, pb: world point = org + p (in double) */
    ctn_v3 pa, pb, n; /* points on a and b relative to org, normal from b to a */
    float mu, e;
} contact_point;

typedef struct point_list {
    contact_point *p;
    int count, capacity;
} point_list;

static int push_point(point_list *l, const contact_point *p) {
    if (l->count == l->capacity) {
        int cap = l->capacity ? 2 * l->capacity : 1024;
        contact_point *np = realloc(l->p, (size_t)cap * sizeof *np);
        if (!np) return 0;
        l->p = np;
        l->capacity = cap;
    }
    l->p[l->count++] = *p;
    return 1;
}

/* Two spheres (ca, ra) on a and (cb, rb) on b: point if the gap is below margin. */
static int sphere_sphere(point_list *l, contact_point *cp, ctn_v3 ca, float ra, ctn_v3 cb, float rb, float margin) {
    ctn_v3 d = ctn_sub(ca, cb);
    float len = ctn_length(d);
    if (len - ra - rb >= margin) return 1;
    ctn_v3 n = len > 1e-9f ? ctn_scale(d, 1.0f / len) : ctn_v3_make(0.0f, 1.0f, 0.0f);
    cp->n = n;
    cp->pa = ctn_madd(ca, n, -ra);
    cp->pb = ctn_madd(cb, n, rb);
    return push_point(l, cp);
}

static float clampf(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }

/* Closest point of segment [p, p + d] to point x: parameter in [0, 1]. */
static float segment_param(ctn_v3 p, ctn_v3 d, ctn_v3 x) {
    float dd = ctn_dot(d, d);
    return dd > 1e-12f ? clampf(ctn_dot(ctn_sub(x, p), d) / dd, 0.0f, 1.0f) : 0.0f;
}

/* Closest points of segments p1 + s d1 and p2 + t d2 (Ericson, Real-Time Collision Detection 5.1.9). */
static void segment_segment(ctn_v3 p1, ctn_v3 d1, ctn_v3 p2, ctn_v3 d2, float *s_out, float *t_out) {
    ctn_v3 r = ctn_sub(p1, p2);
    float a = ctn_dot(d1, d1), e = ctn_dot(d2, d2), f = ctn_dot(d2, r);
    float s, t;
    if (a <= 1e-12f && e <= 1e-12f) {
        s = t = 0.0f;
    } else if (a <= 1e-12f) {
        s = 0.0f;
        t = clampf(f / e, 0.0f, 1.0f);
    } else {
        float c = ctn_dot(d1, r);
        if (e <= 1e-12f) {
            t = 0.0f;
            s = clampf(-c / a, 0.0f, 1.0f);
        } else {
            float b = ctn_dot(d1, d2), denom = a * e - b * b;
            s = denom > 1e-12f * a * e ? clampf((b * f - c * e) / denom, 0.0f, 1.0f) : 0.0f;
            t = (b * s + f) / e;
            if (t < 0.0f) {
                t = 0.0f;
                s = clampf(-c / a, 0.0f, 1.0f);
            } else if (t > 1.0f) {
                t = 1.0f;
                s = clampf((b - c) / a, 0.0f, 1.0f);
            }
        }
    }
    *s_out = s;
    *t_out = t;
}

/* Segment of a capsule: p0 = x - hl u, d = 2 hl u (u = body x axis). */
static void capsule_segment(ctn_pose p, const ctn_shape *s, ctn_v3 *p0, ctn_v3 *d) {
    ctn_v3 u = ctn_quat_rotate(p.q, ctn_v3_make(1.0f, 0.0f, 0.0f));
    *p0 = ctn_madd(p.p, u, -s->half_length);
    *d = ctn_scale(u, 2.0f * s->half_length);
}

/* Shape of a against shape b (both spheres or capsules). */
static int pair_points(point_list *l, contact_point *cp, ctn_pose pa, const ctn_shape *sa, ctn_pose pb, const ctn_shape *sb,
                       float margin) {
    if (sa->type == CTN_SHAPE_BOX || sb->type == CTN_SHAPE_BOX) return 1; /* not supported */
    ctn_v3 a0 = pa.p, ad = ctn_v3_zero(), b0 = pb.p, bd = ctn_v3_zero();
    if (sa->type == CTN_SHAPE_CAPSULE) capsule_segment(pa, sa, &a0, &ad);
    if (sb->type == CTN_SHAPE_CAPSULE) capsule_segment(pb, sb, &b0, &bd);
    cp->feature = 0;
    if (sa->type == CTN_SHAPE_CAPSULE && sb->type == CTN_SHAPE_CAPSULE) {
        float la = ctn_length(ad), lb = ctn_length(bd);
        if (la > 1e-6f && lb > 1e-6f) {
            ctn_v3 ua = ctn_scale(ad, 1.0f / la), ub = ctn_scale(bd, 1.0f / lb);
            if (ctn_length(ctn_cross(ua, ub)) < 0.05f) {
                /* nearly parallel: the overlap of b's projection on a gives two points (features 1, 2),
                 * so a capsule lying on another does not rock about a single point */
                float t0 = ctn_dot(ctn_sub(b0, a0), ua), t1 = ctn_dot(ctn_sub(ctn_add(b0, bd), a0), ua);
                float lo = clampf(t0 < t1 ? t0 : t1, 0.0f, la), hi = clampf(t0 < t1 ? t1 : t0, 0.0f, la);
                if (hi - lo > 1e-3f * la) {
                    for (int k = 0; k < 2; ++k) {
                        ctn_v3 xa = ctn_madd(a0, ua, k == 0 ? lo : hi);
                        ctn_v3 xb = ctn_madd(b0, bd, segment_param(b0, bd, xa));
                        cp->feature = 1 + k;
                        if (!sphere_sphere(l, cp, xa, sa->radius, xb, sb->radius, margin)) return 0;
                    }
                    return 1;
                }
            }
        }
    }
    float s, t;
    segment_segment(a0, ad, b0, bd, &s, &t);
    return sphere_sphere(l, cp, ctn_madd(a0, ad, s), sa->radius, ctn_madd(b0, bd, t), sb->radius, margin);
}

/* Shape of body a against plane k (b = the world). */
static int plane_points(point_list *l, contact_point *cp, ctn_pose pa, const ctn_shape *sa, const ctn_plane *pl, int k, float margin) {
    ctn_v3 pts[8];
    float rad = 0.0f;
    int np = 0;
    if (sa->type == CTN_SHAPE_SPHERE) {
        pts[np++] = pa.p;
        rad = sa->radius;
    } else if (sa->type == CTN_SHAPE_CAPSULE) {
        ctn_v3 p0, d;
        capsule_segment(pa, sa, &p0, &d);
        pts[np++] = p0;
        pts[np++] = ctn_add(p0, d);
        rad = sa->radius;
    } else {
        ctn_v3 he = sa->half_extents;
        for (int c = 0; c < 8; ++c) {
            ctn_v3 loc = ctn_v3_make(c & 1 ? he.x : -he.x, c & 2 ? he.y : -he.y, c & 4 ? he.z : -he.z);
            pts[np++] = ctn_add(pa.p, ctn_quat_rotate(pa.q, loc));
        }
    }
    ctn_v3 n = pl->normal;
    for (int i = 0; i < np; ++i) {
        float sep = ctn_dot(n, pts[i]) - pl->offset - rad;
        if (sep >= margin) continue;
        cp->feature = 8 * k + i;
        cp->n = n;
        cp->pa = ctn_madd(pts[i], n, -rad);
        cp->pb = ctn_madd(cp->pa, n, -sep);
        if (!push_point(l, cp)) return 0;
    }
    return 1;
}

/* Pose p seen from the origin o: position (p.p - o) + p.p_lo as one float (exact subtraction for nearby o). */
static ctn_pose local_pose(ctn_pose p, ctn_v3 o) {
    ctn_v3 z = ctn_v3_zero();
    p.p = ctn_point_sep(p.p, p.p_lo, z, o, z, z);
    p.p_lo = z;
    return p;
}

/* Plane pl seen from the origin o: the offset n . x <= offset becomes n . (x - o) <= offset - n . o (double). */
static ctn_plane local_plane(ctn_plane pl, ctn_v3 o) {
    pl.offset = (float)((double)pl.offset - ((double)pl.normal.x * o.x + (double)pl.normal.y * o.y + (double)pl.normal.z * o.z));
    return pl;
}

/* Bounding radius of a shape about its body origin. */
static float shape_radius(const ctn_shape *s) {
    if (s->type == CTN_SHAPE_SPHERE) return s->radius;
    if (s->type == CTN_SHAPE_CAPSULE) return s->radius + s->half_length;
    return ctn_length(s->half_extents);
}

static void shape_aabb(ctn_pose p, const ctn_shape *s, float grow, float *box) {
    ctn_v3 ext;
    if (s->type == CTN_SHAPE_SPHERE) {
        ext = ctn_v3_make(s->radius, s->radius, s->radius);
    } else if (s->type == CTN_SHAPE_CAPSULE) {
        ctn_v3 u = ctn_quat_rotate(p.q, ctn_v3_make(s->half_length, 0.0f, 0.0f));
        ext = ctn_v3_make(CTN_FABS(u.x) + s->radius, CTN_FABS(u.y) + s->radius, CTN_FABS(u.z) + s->radius);
    } else {
        ctn_v3 c0 = ctn_quat_rotate(p.q, ctn_v3_make(s->half_extents.x, 0.0f, 0.0f));
        ctn_v3 c1 = ctn_quat_rotate(p.q, ctn_v3_make(0.0f, s->half_extents.y, 0.0f));
        ctn_v3 c2 = ctn_quat_rotate(p.q, ctn_v3_make(0.0f, 0.0f, s->half_extents.z));
        ext = ctn_v3_make(CTN_FABS(c0.x) + CTN_FABS(c1.x) + CTN_FABS(c2.x), CTN_FABS(c0.y) + CTN_FABS(c1.y) + CTN_FABS(c2.y),
                          CTN_FABS(c0.z) + CTN_FABS(c1.z) + CTN_FABS(c2.z));
    }
    /* in double from the two-float position, rounded outwards */
    double x[3], e[3] = {ext.x + grow, ext.y + grow, ext.z + grow};
    ctn__pose_get_position(&p, x);
    for (int k = 0; k < 3; ++k) {
        box[k] = nextafterf((float)(x[k] - e[k]), -INFINITY);
        box[3 + k] = nextafterf((float)(x[k] + e[k]), INFINITY);
    }
}

/* ---- persistence: (a, b, feature) -> joint id ------------------------------------------------------- */

static uint32_t key_hash(int a, int b, int f) {
    uint32_t h = (uint32_t)a * 2654435761u;
    h ^= ((uint32_t)b + 0x9e3779b9u) * 2246822519u;
    h ^= ((uint32_t)f + 0x7f4a7c15u) * 3266489917u;
    return h ^ (h >> 15);
}

static int table_find(const struct ctn_collision *c, int a, int b, int f) {
    if (!c->table_size) return -1;
    uint32_t mask = (uint32_t)c->table_size - 1;
    for (uint32_t s = key_hash(a, b, f) & mask;; s = (s + 1) & mask) {
        int e = c->table[s];
        if (e < 0) return -1;
        const ctn_contact_key *k = &c->keys[e];
        if (k->a == a && k->b == b && k->feature == f) return e;
    }
}

int ctn__contact_table_build(struct ctn_collision *c) {
    int need = 16;
    while (need < 2 * c->key_count) need *= 2;
    if (need != c->table_size) {
        int *t = realloc(c->table, (size_t)need * sizeof *t);
        if (!t) return 0;
        c->table = t;
        c->table_size = need;
    }
    for (int i = 0; i < c->table_size; ++i) c->table[i] = -1;
    uint32_t mask = (uint32_t)c->table_size - 1;
    for (int e = 0; e < c->key_count; ++e) {
        const ctn_contact_key *k = &c->keys[e];
        uint32_t s = key_hash(k->a, k->b, k->feature) & mask;
        while (c->table[s] >= 0) s = (s + 1) & mask;
        c->table[s] = e;
    }
    return 1;
}

/* Whether joint slot id holds a live built-in contact. */
static int auto_contact(const ctn_world *w, int id) {
    return id >= 0 && id < w->joint_count && w->joint_alive[id] && w->joints[id].type == CTN_JT_CONTACT &&
           (w->joints[id].flags & CTN_JF_AUTO);
}

/* Kills a built-in contact; the world's free stack recycles its slot. */
static void drop_contact(ctn_world *w, int id) {
    if (auto_contact(w, id)) ctn__joint_kill(w, id);
}

int ctn__collision_body_contacts(const ctn_world *w, int body) {
    const struct ctn_collision *c = w->collision;
    int n = 0;
    for (int e = 0; c && e < c->key_count; ++e) {
        const ctn_contact_key *k = &c->keys[e];
        n += (k->a == body || k->b == body) && auto_contact(w, k->joint);
    }
    return n;
}

void ctn__collision_body_removed(ctn_world *w, int body) {
    struct ctn_collision *c = w->collision;
    if (!c) return;
    for (int e = 0; e < c->key_count; ++e) {
        ctn_contact_key *k = &c->keys[e];
        if (k->joint >= 0 && (k->a == body || k->b == body)) {
            drop_contact(w, k->joint);
            k->joint = -1;
        }
    }
    if (body < c->shape_capacity && c->shapes[body].type != CTN_SHAPE_NONE) {
        c->shapes[body].type = CTN_SHAPE_NONE;
        c->shape_count--;
    }
}

/* ---- jointed pairs ------------------------------------------------------------------------------------ */

typedef struct pair_set {
    uint64_t *slots; /* 0 = empty; key = ((a + 1) << 32) | (b + 1), a < b */
    size_t mask;
} pair_set;

static uint64_t pair_key(int a, int b) {
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    return ((uint64_t)(uint32_t)(a + 1) << 32) | (uint32_t)(b + 1);
}

static size_t pair_slot(uint64_t k, size_t mask) { return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 20) & mask; }

/* Set of body pairs joined by a (non-contact) joint; slots NULL when there are none. */
static int pair_set_build(const ctn_world *w, pair_set *s) {
    int n = 0;
    s->slots = NULL;
    s->mask = 0;
    for (int j = 0; j < w->joint_count; ++j)
        if (w->joint_alive[j] && w->joints[j].type != CTN_JT_CONTACT && w->joints[j].b >= 0) n++;
    if (!n) return 1;
    size_t size = 16;
    while (size < 2 * (size_t)n) size *= 2;
    s->slots = calloc(size, sizeof *s->slots);
    if (!s->slots) return 0;
    s->mask = size - 1;
    for (int j = 0; j < w->joint_count; ++j) {
        const ctn_joint_def *d = &w->joints[j];
        if (!w->joint_alive[j] || d->type == CTN_JT_CONTACT || d->b < 0) continue;
        uint64_t k = pair_key(d->a, d->b);
        size_t i = pair_slot(k, s->mask);
        while (s->slots[i] && s->slots[i] != k) i = (i + 1) & s->mask;
        s->slots[i] = k;
    }
    return 1;
}

static int pair_set_has(const pair_set *s, int a, int b) {
    if (!s->slots) return 0;
    uint64_t k = pair_key(a, b);
    for (size_t i = pair_slot(k, s->mask); s->slots[i]; i = (i + 1) & s->mask)
        if (s->slots[i] == k) return 1;
    return 0;
}

/* ---- the step hook ------------------------------------------------------------------------------------ */

static int is_dynamic(const ctn_world *w, int b) { return b >= 0 && (w->props[b].flags & CTN_BODY_FLAG_DYNAMIC); }

/* Motion bound of a body over one step: (|v| + |w| R) h. */
static float swept(const ctn_world *w, int b, float radius, float h) {
    const ctn_vel *v = &w->vel[b];
    if (!(w->props[b].flags & (CTN_BODY_FLAG_DYNAMIC | CTN_BODY_FLAG_KINEMATIC))) return 0.0f;
    return (ctn_length(v->v) + ctn_length(v->w) * radius) * h;
}

static int count_contacts(const ctn_world *w) {
    int n = 0;
    for (int j = 0; j < w->joint_count; ++j) n += w->joint_alive[j] && w->joints[j].type == CTN_JT_CONTACT;
    return n;
}

ctn_status ctn__collide(ctn_world *w, double *ms, int *contacts) {
    struct ctn_collision *c = w->collision;
    double t0 = ctn__now_ms();
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    int active = c->desc.enabled && (c->shape_count > 0);
    if (!active && c->key_count == 0) {
        *contacts = count_contacts(w);
        *ms = ctn__now_ms() - t0;
        return CTN_OK;
    }
    float h = (float)w->desc.time_step, base = (float)c->desc.margin;
    point_list pts = {NULL, 0, 0};
    int *item_body = NULL;
    float *item_grow = NULL, *aabb = NULL;
    pair_set joined = {NULL, 0};
    int n = 0, ok = 1;
    if (active) {
        int nb = w->body_count < c->shape_capacity ? w->body_count : c->shape_capacity;
        item_body = malloc(((size_t)c->shape_count + 1) * sizeof *item_body);
        item_grow = malloc(((size_t)c->shape_count + 1) * sizeof *item_grow);
        aabb = malloc(6 * ((size_t)c->shape_count + 1) * sizeof *aabb);
        ok = item_body && item_grow && aabb && (!c->desc.skip_jointed || pair_set_build(w, &joined));
        for (int b = 0; ok && b < nb; ++b) {
            const ctn_shape *s = &c->shapes[b];
            if (s->type == CTN_SHAPE_NONE || !(w->props[b].flags & CTN_BODY_FLAG_ALIVE)) continue;
            item_body[n] = b;
            item_grow[n] = swept(w, b, shape_radius(s), h);
            shape_aabb(w->pose[b], s, 0.5f * base + item_grow[n], &aabb[6 * n]);
            n++;
        }
        /* planes */
        for (int i = 0; ok && i < n; ++i) {
            int b = item_body[i];
            if (!is_dynamic(w, b)) continue;
            const ctn_shape *s = &c->shapes[b];
            for (int k = 0; ok && k < c->plane_count; ++k) {
                contact_point cp;
                cp.a = b;
                cp.b = -1;
                cp.org = w->pose[b].p;
                cp.mu = sqrtf(s->friction * c->planes[k].friction);
                cp.e = s->restitution > c->planes[k].restitution ? s->restitution : c->planes[k].restitution;
                ctn_plane pl = local_plane(c->planes[k], cp.org);
                ok = plane_points(&pts, &cp, local_pose(w->pose[b], cp.org), s, &pl, k, base + item_grow[i]);
            }
        }
        /* shape pairs */
        if (ok) ok = ctn__broadphase(n, aabb, &c->pairs);
        for (int p = 0; ok && p < c->pairs.count; ++p) {
            int i = c->pairs.pairs[2 * p], j = c->pairs.pairs[2 * p + 1];
            int a = item_body[i], b = item_body[j]; /* a < b: items are in body order */
            if (!is_dynamic(w, a) && !is_dynamic(w, b)) continue;
            if (pair_set_has(&joined, a, b)) continue;
            const ctn_shape *sa = &c->shapes[a], *sb = &c->shapes[b];
            contact_point cp;
            cp.a = a;
            cp.b = b;
            cp.org = w->pose[a].p;
            cp.mu = sqrtf(sa->friction * sb->friction);
            cp.e = sa->restitution > sb->restitution ? sa->restitution : sb->restitution;
            ok = pair_points(&pts, &cp, local_pose(w->pose[a], cp.org), sa, local_pose(w->pose[b], cp.org), sb,
                             base + item_grow[i] + item_grow[j]);
        }
    }
    free(item_body);
    free(item_grow);
    free(aabb);
    free(joined.slots);
    if (!ok) {
        free(pts.p);
        return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory in contact generation (%d shapes)", c->shape_count);
    }

    /* match to last step's contacts; keys are rebuilt in this step's order */
    ctn_contact_key *keys = malloc(((size_t)pts.count + 1) * sizeof *keys);
    unsigned char *seen = calloc((size_t)c->key_count + 1, 1);
    if (!keys || !seen) {
        free(keys);
        free(seen);
        free(pts.p);
        return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory matching %d contacts", pts.count);
    }
    for (int i = 0; i < pts.count && st == CTN_OK; ++i) {
        const contact_point *p = &pts.p[i];
        int e = table_find(c, p->a, p->b, p->feature), id = -1;
        if (e >= 0 && !seen[e]) {
            id = c->keys[e].joint;
            seen[e] = 1;
        }
        int live = auto_contact(w, id);
        double pa[3] = {(double)p->org.x + p->pa.x, (double)p->org.y + p->pa.y, (double)p->org.z + p->pa.z};
        double pb[3] = {(double)p->org.x + p->pb.x, (double)p->org.y + p->pb.y, (double)p->org.z + p->pb.z};
        ctn_joint_def def = ctn__contact_def(w, p->a, p->b, pa, pb, p->n, p->mu, p->e, CTN_JF_AUTO, live ? &w->joints[id] : NULL);
        if (live) {
            w->joints[id] = def; /* same joint id: its impulses warm-start the new geometry */
        } else {
            st = ctn__joint_insert(w, &def, &id);
            if (st != CTN_OK) id = -1;
        }
        keys[i].a = p->a;
        keys[i].b = p->b;
        keys[i].feature = p->feature;
        keys[i].joint = id;
    }
    for (int e = 0; e < c->key_count; ++e)
        if (!seen[e] && c->keys[e].joint >= 0) drop_contact(w, c->keys[e].joint);
    free(seen);
    free(pts.p);
    free(c->keys);
    c->keys = keys;
    c->key_count = st == CTN_OK ? pts.count : 0;
    c->key_capacity = pts.count + 1;
    if (!ctn__contact_table_build(c)) st = ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for the contact table");
    /* moved anchors must reach the solver copies (topo.defs and the device): rebuild every step */
    if (c->key_count > 0) w->topology_dirty = 1;
    *contacts = count_contacts(w);
    *ms = ctn__now_ms() - t0;
    return st;
}
