/* Built-in contact generation: shapes on bodies, static planes, and contact persistence.
 *
 * A body holds one shape or several (a compound: shapes[] holds each body's first, more[] the others, each
 * at its own offset and rotation); every shape is an item of the broad phase, a body's own shapes never
 * collide, and a point's feature id carries the indices of its two shapes (ctn__shape_feature).
 * Every step, before the topology rebuild, ctn__collide
 *   1. bounds every shape by an AABB grown by its motion bound over one step (|v| + |w| R) h plus half
 *      the speculative margin, and finds overlapping pairs with the uniform grid (broadphase.c);
 *   2. runs the narrow phase (narrowphase.c) on each pair and against every plane. A point is kept while
 *      its gap is below the pair's margin, so contacts are speculative: the normal row lets the gap close
 *      within a substep but no further (ctn_joint_prepare);
 *   3. matches each point to last step's by (body a, body b, feature id): a matched contact keeps its joint
 *      id, so its impulses carry over as the warm start (topo.lambda follows joint ids); new points get a
 *      recycled or new id; vanished ones are removed. The contact graph changes every step, so the
 *      topology (colouring, solver order, device layout) is rebuilt every step in which contacts exist.
 * Pairs of bodies joined by a joint are skipped (desc.skip_jointed), as are pairs with no dynamic body and
 * pairs whose shapes share a nonzero collision group (shape.group: the links of one robot).
 * Its scratch (items, boxes, pairs, points, keys) is kept by the world and only grows: a step whose counts
 * were reached before allocates nothing. Before step 3 edits the joints it snapshots them, so a step undone
 * later (CTN_ERR_DIVERGED, a device fault) puts the contact set back with the bodies (ctn__collide_undo).
 */
#include "collide/collide.h"
#include "core/attach.h"

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
    d.rotation[0] = 1.0;
    return d;
}

struct ctn_collision *ctn__collision_get(ctn_world *w) {
    if (w->collision) return w->collision;
    struct ctn_collision *c = ctn__calloc(1, sizeof *c);
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
    for (int i = 0; c->more && i < c->shape_capacity; ++i) ctn__free(c->more[i].s);
    ctn__free(c->more);
    ctn__free(c->shapes);
    ctn__free(c->item_shape);
    ctn__free(c->planes);
    ctn__free(c->keys);
    ctn__free(c->table);
    ctn__free(c->prev_keys);
    ctn__free(c->item_body);
    ctn__free(c->item_grow);
    ctn__free(c->aabb);
    ctn__free(c->joined);
    ctn__free(c->seen);
    ctn__free(c->points.p);
    ctn__pairs_free(&c->pairs);
    ctn__free(c);
    w->collision = NULL;
}

ctn_status ctn_world_set_collision(ctn_world *w, const ctn_collision_desc *d) {
    CTN__ENTER(w);
    if (!d) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_set_collision: desc is NULL");
    if (!(d->margin >= 0.0) || !isfinite(d->margin) || d->margin > 1e3)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "collision.margin: %g must be finite and in [0, 1000] m", d->margin);
    struct ctn_collision *c = ctn__collision_get(w);
    if (!c) return CTN_ERR_OUT_OF_MEMORY;
    c->desc = *d;
    return CTN_OK;
}

static int finite_pos(double v) { return ctn__fits_float(v) && v > 0.0; } /* stored as a float */

/* Checks a shape description for body slot `body` and converts it (what = the calling function's name for
 * the messages). CTN_OK or the failure recorded on w. */
static ctn_status shape_from_desc(ctn_world *w, int body, ctn_body_id handle, const ctn_shape_desc *s, ctn_shape *sh) {
    if ((int)s->type < CTN_SHAPE_NONE || (int)s->type > CTN_SHAPE_BOX)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "shape.type: unknown shape type %d", (int)s->type);
    if ((s->type == CTN_SHAPE_SPHERE || s->type == CTN_SHAPE_CAPSULE) && !finite_pos(s->radius))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "shape.radius: %g must be a finite float and > 0", s->radius);
    if (s->type == CTN_SHAPE_CAPSULE && !(ctn__fits_float(s->half_length) && s->half_length >= 0.0))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "shape.half_length: %g must be a finite float and >= 0", s->half_length);
    if (s->type == CTN_SHAPE_BOX)
        for (int k = 0; k < 3; ++k)
            if (!finite_pos(s->half_extents[k]))
                return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "shape.half_extents[%d]: %g must be a finite float and > 0", k, s->half_extents[k]);
    if (s->type != CTN_SHAPE_NONE && (!(s->friction >= 0.0) || !ctn__fits_float(s->friction)))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "shape.friction: %g must be a finite float and >= 0", s->friction);
    if (s->type != CTN_SHAPE_NONE && !(s->restitution >= 0.0 && s->restitution <= 1.0))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "shape.restitution: %g is not in [0, 1]", s->restitution);
    if (s->type != CTN_SHAPE_NONE && s->group < 0)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "shape.group: %d must be >= 0 (0: no group)", s->group);
    double qn = 0.0;
    for (int k = 0; k < 4; ++k) qn += s->rotation[k] * s->rotation[k];
    qn = sqrt(qn);
    if (s->type != CTN_SHAPE_NONE) {
        for (int k = 0; k < 3; ++k)
            if (!isfinite(s->offset[k]) || fabs(s->offset[k]) > CTN_MAX_LENGTH)
                return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "shape.offset[%d]: %g must be finite and at most %g m", k, s->offset[k],
                                 (double)CTN_MAX_LENGTH);
        if (!(qn > 1e-9) || !isfinite(qn))
            return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "shape.rotation: (%g, %g, %g, %g) is not a rotation (zero or not finite)",
                             s->rotation[0], s->rotation[1], s->rotation[2], s->rotation[3]);
    }
    int placed = s->type != CTN_SHAPE_NONE && (s->offset[0] != 0.0 || s->offset[1] != 0.0 || s->offset[2] != 0.0 ||
                                               s->rotation[1] != 0.0 || s->rotation[2] != 0.0 || s->rotation[3] != 0.0);
    if ((w->props[body].flags & CTN_BODY_FLAG_PARTICLE) && placed)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "shape.offset: body %lld is a particle (no orientation): its sphere sits at its centre",
                         (long long)ctn_body_id_to_int(handle));
    if ((w->props[body].flags & CTN_BODY_FLAG_PARTICLE) && s->type != CTN_SHAPE_SPHERE && s->type != CTN_SHAPE_NONE)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "shape.type: body %lld is a particle (no orientation): only spheres fit",
                         (long long)ctn_body_id_to_int(handle));
    memset(sh, 0, sizeof *sh);
    sh->type = (int)s->type;
    if (s->type == CTN_SHAPE_NONE) return CTN_OK;
    sh->radius = (float)s->radius;
    sh->half_length = (float)s->half_length;
    sh->half_extents = ctn_v3_make((float)s->half_extents[0], (float)s->half_extents[1], (float)s->half_extents[2]);
    sh->friction = (float)s->friction;
    sh->restitution = (float)s->restitution;
    sh->group = s->group;
    sh->offset = ctn_v3_make((float)s->offset[0], (float)s->offset[1], (float)s->offset[2]);
    sh->rot = ctn_quat_make((float)(s->rotation[0] / qn), (float)(s->rotation[1] / qn), (float)(s->rotation[2] / qn),
                            (float)(s->rotation[3] / qn));
    sh->placed = placed;
    return CTN_OK;
}

/* Room for body slot `body` in shapes[] and more[]; 0 on out-of-memory. */
static int shapes_reserve(struct ctn_collision *c, int body) {
    if (body < c->shape_capacity) return 1;
    int cap = c->shape_capacity ? c->shape_capacity : 64;
    while (cap <= body) cap *= 2;
    ctn_shape *ns = ctn__realloc(c->shapes, (size_t)cap * sizeof *ns);
    if (!ns) return 0;
    memset(ns + c->shape_capacity, 0, (size_t)(cap - c->shape_capacity) * sizeof *ns);
    c->shapes = ns;
    if (c->more) {
        ctn_shape_list *nm = ctn__realloc(c->more, (size_t)cap * sizeof *nm);
        if (!nm) return 0; /* shapes[] grew alone: harmless, shape_capacity still covers both */
        memset(nm + c->shape_capacity, 0, (size_t)(cap - c->shape_capacity) * sizeof *nm);
        c->more = nm;
    }
    c->shape_capacity = cap;
    return 1;
}

void ctn__collision_shapes_clear(struct ctn_collision *c, int body) {
    if (!c || body >= c->shape_capacity) return;
    if (c->shapes[body].type != CTN_SHAPE_NONE) {
        c->shape_count--;
        c->shape_total -= ctn__shape_count_of(c, body);
    }
    c->shapes[body].type = CTN_SHAPE_NONE;
    if (c->more) c->more[body].count = 0;
}

int ctn__collision_shape_append(struct ctn_collision *c, int body, const ctn_shape *s) {
    if (!c->more) {
        c->more = ctn__calloc((size_t)c->shape_capacity, sizeof *c->more);
        if (!c->more) return 0;
    }
    ctn_shape_list *l = &c->more[body];
    if (l->count == l->capacity) {
        int cap = l->capacity ? 2 * l->capacity : 4;
        ctn_shape *ns = ctn__realloc(l->s, (size_t)cap * sizeof *ns);
        if (!ns) return 0;
        l->s = ns;
        l->capacity = cap;
    }
    l->s[l->count++] = *s;
    c->shape_total++;
    return 1;
}

ctn_status ctn_body_set_shape(ctn_world *w, ctn_body_id handle, const ctn_shape_desc *s) {
    CTN__ENTER(w);
    if (!s) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_body_set_shape: shape is NULL");
    int body = ctn__body_index(w, handle, "ctn_body_set_shape", 0);
    if (body < 0) return w->handle_status;
    ctn_shape sh;
    ctn_status st = shape_from_desc(w, body, handle, s, &sh);
    if (st != CTN_OK) return st;
    struct ctn_collision *c = ctn__collision_get(w);
    if (!c) return CTN_ERR_OUT_OF_MEMORY;
    if (!shapes_reserve(c, body)) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for %d shapes", body + 1);
    ctn__collision_shapes_clear(c, body);
    c->shapes[body] = sh;
    if (sh.type == CTN_SHAPE_NONE) return CTN_OK;
    c->shape_count++;
    c->shape_total++;
    return CTN_OK;
}

ctn_status ctn_body_add_shape(ctn_world *w, ctn_body_id handle, const ctn_shape_desc *s, int32_t *index) {
    CTN__ENTER(w);
    if (!s) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_body_add_shape: shape is NULL");
    int body = ctn__body_index(w, handle, "ctn_body_add_shape", 0);
    if (body < 0) return w->handle_status;
    if (s->type == CTN_SHAPE_NONE)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "shape.type: none adds nothing (ctn_body_remove_shape removes a shape)");
    ctn_shape sh;
    ctn_status st = shape_from_desc(w, body, handle, s, &sh);
    if (st != CTN_OK) return st;
    struct ctn_collision *c = ctn__collision_get(w);
    if (!c) return CTN_ERR_OUT_OF_MEMORY;
    if (!shapes_reserve(c, body)) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for %d shapes", body + 1);
    int n = ctn__shape_count_of(c, body);
    if (n > 0 && (w->props[body].flags & CTN_BODY_FLAG_PARTICLE))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_body_add_shape: body %lld is a particle: it holds one centred sphere",
                         (long long)ctn_body_id_to_int(handle));
    if (n >= CTN_MAX_BODY_SHAPES)
        return ctn__fail(w, CTN_ERR_LIMIT, "ctn_body_add_shape: body %lld has %d shapes, the most one body holds",
                         (long long)ctn_body_id_to_int(handle), n);
    if (n == 0) {
        c->shapes[body] = sh;
        c->shape_count++;
        c->shape_total++;
    } else if (!ctn__collision_shape_append(c, body, &sh)) {
        return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for the shapes of body %lld", (long long)ctn_body_id_to_int(handle));
    }
    if (index) *index = n;
    return CTN_OK;
}

ctn_status ctn_body_remove_shape(ctn_world *w, ctn_body_id handle, int32_t index) {
    CTN__ENTER(w);
    int body = ctn__body_index(w, handle, "ctn_body_remove_shape", 0);
    if (body < 0) return w->handle_status;
    struct ctn_collision *c = w->collision;
    int n = ctn__shape_count_of(c, body);
    if (index < 0 || index >= n)
        return ctn__fail(w, CTN_ERR_NOT_FOUND, "ctn_body_remove_shape: shape %d out of range (body %lld has %d)", (int)index,
                         (long long)ctn_body_id_to_int(handle), n);
    if (n == 1) {
        ctn__collision_shapes_clear(c, body);
        return CTN_OK;
    }
    ctn_shape_list *l = &c->more[body];
    if (index == 0) c->shapes[body] = l->s[0];
    int from = index == 0 ? 0 : index - 1;
    memmove(l->s + from, l->s + from + 1, (size_t)(l->count - from - 1) * sizeof *l->s);
    l->count--;
    c->shape_total--;
    return CTN_OK;
}

ctn_status ctn_world_add_plane(ctn_world *w, const double normal[3], double offset, double friction, double restitution, int *out) {
    CTN__ENTER(w);
    if (!normal) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_add_plane: normal is NULL");
    double n = sqrt(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]);
    if (!(n > 1e-9) || !isfinite(n)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "plane.normal: zero or non-finite vector");
    if (!ctn__fits_float(offset)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "plane.offset: %g is not finite or exceeds the float range", offset);
    if (!(friction >= 0.0) || !ctn__fits_float(friction))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "plane.friction: %g must be >= 0 and within the float range", friction);
    if (!(restitution >= 0.0 && restitution <= 1.0))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "plane.restitution: %g is not in [0, 1]", restitution);
    struct ctn_collision *c = ctn__collision_get(w);
    if (!c) return CTN_ERR_OUT_OF_MEMORY;
    if (c->plane_count >= 4096) return ctn__fail(w, CTN_ERR_LIMIT, "ctn_world_add_plane: at most 4096 planes");
    if (c->plane_count == c->plane_capacity) {
        int cap = c->plane_capacity ? 2 * c->plane_capacity : 8;
        ctn_plane *np = ctn__realloc(c->planes, (size_t)cap * sizeof *np);
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

int ctn__collision_possible(const ctn_world *w) {
    const struct ctn_collision *c = w->collision;
    if (!c || !c->desc.enabled || c->shape_count == 0) return 0;
    if (c->plane_count > 0) return 1;
    /* two bodies with shapes, unless every shape shares one nonzero group (one robot's links) */
    int bodies = 0, group = -1, nb = w->body_count < c->shape_capacity ? w->body_count : c->shape_capacity;
    for (int b = 0; b < nb; ++b) {
        if (!(w->props[b].flags & CTN_BODY_FLAG_ALIVE)) continue;
        int ns = ctn__shape_count_of(c, b);
        if (ns) bodies++;
        for (int k = 0; k < ns; ++k) {
            int g = ctn__shape_at(c, b, k)->group;
            if (g == 0 || (group >= 0 && g != group)) group = -2;
            else if (group == -1) group = g;
        }
        if (bodies >= 2 && group == -2) return 1;
    }
    return 0;
}

/* ---- contact definitions -------------------------------------------------------------------------- */

ctn_joint_def ctn__contact_def(const ctn_world *w, int a, int b, const double pa[3], const double pb[3], ctn_v3 n, float mu, float e,
                               int flags, const ctn_v3 *prev_t1) {
    ctn_joint_def j;
    memset(&j, 0, sizeof j);
    /* friction direction t1 (world): the previous one projected on the new tangent plane, else any */
    ctn_v3 t1 = ctn_v3_zero(), t2;
    if (prev_t1) {
        ctn_v3 old = *prev_t1;
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

ctn_v3 ctn__contact_tangent(const ctn_world *w, int id) {
    const ctn_joint_core *c = ctn__jcore(w, id);
    ctn_v3 axis_a = w->joint_extra ? w->joint_extra[w->joint_pos[id]].axis_a : ctn_v3_zero();
    return c->b >= 0 ? ctn_quat_rotate(w->pose[c->b].q, axis_a) : axis_a;
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

/* Fills the table with keys[0..key_count) (its size holds them at a load of at most one half). */
static void table_fill(struct ctn_collision *c) {
    for (int i = 0; i < c->table_size; ++i) c->table[i] = -1;
    uint32_t mask = (uint32_t)c->table_size - 1;
    for (int e = 0; e < c->key_count; ++e) {
        const ctn_contact_key *k = &c->keys[e];
        uint32_t s = key_hash(k->a, k->b, k->feature) & mask;
        while (c->table[s] >= 0) s = (s + 1) & mask;
        c->table[s] = e;
    }
}

/* Room in the table for `count` keys at a load of at most one half; a grown table is filled again. The
 * table only grows: what a lookup finds does not depend on the table's size. */
static int table_reserve(struct ctn_collision *c, int count) {
    int need = 16;
    while (need < 2 * count) need *= 2;
    if (need > c->table_size) {
        int *t = ctn__realloc(c->table, (size_t)need * sizeof *t);
        if (!t) return 0;
        c->table = t;
        c->table_size = need;
        table_fill(c);
    }
    return 1;
}

int ctn__contact_table_build(struct ctn_collision *c) {
    if (!table_reserve(c, c->key_count)) return 0;
    table_fill(c);
    return 1;
}

/* Whether joint slot id holds a live built-in contact. */
static int auto_contact(const ctn_world *w, int id) {
    return id >= 0 && id < w->joint_count && w->joint_alive[id] && ctn__jcore(w, id)->type == CTN_JT_CONTACT &&
           (ctn__jflags(w, id) & CTN_JF_AUTO);
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
    ctn__collision_shapes_clear(c, body);
}

/* ---- jointed pairs ------------------------------------------------------------------------------------ */

static uint64_t pair_key(int a, int b) {
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    return ((uint64_t)(uint32_t)(a + 1) << 32) | (uint32_t)(b + 1);
}

static size_t pair_slot(uint64_t k, size_t mask) { return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 20) & mask; }

/* The set of body pairs joined by a (non-contact) joint, in c->joined (key ((a + 1) << 32) | (b + 1), a < b;
 * 0 = empty slot). Returns 0 on out-of-memory. */
static int joined_build(const ctn_world *w, struct ctn_collision *c) {
    int n = 0;
    for (int j = 0; j < w->joint_count; ++j)
        if (w->joint_alive[j] && ctn__jcore(w, j)->type != CTN_JT_CONTACT && ctn__jcore(w, j)->b >= 0) n++;
    c->joined_count = n;
    if (!n) return 1;
    size_t size = 16;
    while (size < 2 * (size_t)n) size *= 2;
    if (size > c->joined_size) {
        uint64_t *t = ctn__realloc(c->joined, size * sizeof *t);
        if (!t) return 0;
        c->joined = t;
        c->joined_size = size;
    }
    size_t mask = c->joined_size - 1;
    memset(c->joined, 0, c->joined_size * sizeof *c->joined);
    for (int j = 0; j < w->joint_count; ++j) {
        const ctn_joint_core *d = ctn__jcore(w, j);
        if (!w->joint_alive[j] || d->type == CTN_JT_CONTACT || d->b < 0) continue;
        uint64_t k = pair_key(d->a, d->b);
        size_t i = pair_slot(k, mask);
        while (c->joined[i] && c->joined[i] != k) i = (i + 1) & mask;
        c->joined[i] = k;
    }
    return 1;
}

static int joined_has(const struct ctn_collision *c, int a, int b) {
    if (!c->joined_count) return 0;
    uint64_t k = pair_key(a, b);
    size_t mask = c->joined_size - 1;
    for (size_t i = pair_slot(k, mask); c->joined[i]; i = (i + 1) & mask)
        if (c->joined[i] == k) return 1;
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
    for (int j = 0; j < w->joint_count; ++j) n += w->joint_alive[j] && ctn__jcore(w, j)->type == CTN_JT_CONTACT;
    return n;
}

/* Grows *p (elements of `size` bytes) to hold n; *cap is updated by the caller. 0 on out-of-memory. */
static int grow_to(void *p, size_t n, size_t size) {
    if (ctn__mul_overflows(n, size)) return 0;
    void *q = ctn__realloc(*(void **)p, n * size);
    if (!q) return 0;
    *(void **)p = q;
    return 1;
}

/* Step 1: room for every shape as a broad-phase item. */
static int reserve_items(struct ctn_collision *c) {
    int need = c->shape_total + 1;
    if (need <= c->item_capacity) return 1;
    size_t cap = (size_t)need + (size_t)need / 2;
    if (!grow_to(&c->item_body, cap, sizeof *c->item_body) || !grow_to(&c->item_shape, cap, sizeof *c->item_shape) ||
        !grow_to(&c->item_grow, cap, sizeof *c->item_grow) ||
        !grow_to(&c->aabb, 6 * cap, sizeof *c->aabb))
        return 0;
    c->item_capacity = (int)cap;
    return 1;
}

/* Step 2: the shapes of live bodies as items, in body order (a body's shapes in their order), each with its
 * motion bound over the step and its AABB grown by that bound plus half the margin. Returns the item count. */
static int gather_items(const ctn_world *w, struct ctn_collision *c, float h, float margin) {
    int nb = w->body_count < c->shape_capacity ? w->body_count : c->shape_capacity, n = 0;
    for (int b = 0; b < nb; ++b) {
        if (c->shapes[b].type == CTN_SHAPE_NONE || !(w->props[b].flags & CTN_BODY_FLAG_ALIVE)) continue;
        int ns = ctn__shape_count_of(c, b);
        for (int k = 0; k < ns; ++k) {
            const ctn_shape *s = ctn__shape_at(c, b, k);
            c->item_body[n] = b;
            c->item_shape[n] = k;
            c->item_grow[n] = swept(w, b, ctn__shape_radius(s), h);
            ctn__shape_aabb(w->pose[b], s, 0.5f * margin + c->item_grow[n], &c->aabb[6 * n]);
            n++;
        }
    }
    return n;
}

/* The points appended to c->points from index `from` on get the feature ids of shapes ka and kb. */
static void tag_features(struct ctn_collision *c, int from, int ka, int kb) {
    if (ka == 0 && kb == 0) return;
    for (int i = from; i < c->points.count; ++i) c->points.p[i].feature = ctn__shape_feature(c->points.p[i].feature, ka, kb);
}

/* Step 3: points of every dynamic item against every plane. 0 on out-of-memory. */
static int plane_contacts(const ctn_world *w, struct ctn_collision *c, int n, float margin) {
    for (int i = 0; i < n; ++i) {
        int b = c->item_body[i];
        if (!is_dynamic(w, b)) continue;
        const ctn_shape *s = ctn__shape_at(c, b, c->item_shape[i]);
        for (int k = 0; k < c->plane_count; ++k) {
            ctn_contact_point cp;
            cp.a = b;
            cp.b = -1;
            cp.org = w->pose[b].p;
            cp.mu = sqrtf(s->friction * c->planes[k].friction);
            cp.e = s->restitution > c->planes[k].restitution ? s->restitution : c->planes[k].restitution;
            ctn_plane pl = ctn__local_plane(c->planes[k], cp.org);
            int from = c->points.count;
            if (!ctn__plane_points(&c->points, &cp, ctn__local_pose(w->pose[b], cp.org), s, &pl, k, margin + c->item_grow[i]))
                return 0;
            tag_features(c, from, c->item_shape[i], 0);
        }
    }
    return 1;
}

/* The body whose motion a body's follows: its master when it is attached, else itself. */
static int solver_body(const ctn_world *w, int b) {
    int k = w->attach ? ctn__attach_link_of(w, b) : -1;
    return k >= 0 ? w->attach->links[k].master : b;
}

/* Step 4: the broad phase's candidate pairs through the narrow phase, skipping pairs with no dynamic body,
 * pairs whose shapes share a nonzero collision group, pairs that move as one rigid body (a body attached
 * to the other, or two attached to one master) and (desc.skip_jointed) pairs joined by a joint, an attached
 * body counting as its master (a shape carried by a robot link does not collide with the link's jointed
 * neighbours). 0 on out-of-memory. */
static int pair_contacts(const ctn_world *w, struct ctn_collision *c, int n, float margin) {
    if (c->desc.skip_jointed && !joined_build(w, c)) return 0;
    if (!c->desc.skip_jointed) c->joined_count = 0;
    if (!ctn__broadphase(n, c->aabb, &c->pairs)) return 0;
    for (int p = 0; p < c->pairs.count; ++p) {
        int i = c->pairs.pairs[2 * p], j = c->pairs.pairs[2 * p + 1];
        int a = c->item_body[i], b = c->item_body[j]; /* a < b: items are in body order */
        if (!is_dynamic(w, a) && !is_dynamic(w, b)) continue;
        const ctn_shape *sa = ctn__shape_at(c, a, c->item_shape[i]), *sb = ctn__shape_at(c, b, c->item_shape[j]);
        if (sa->group != 0 && sa->group == sb->group) continue; /* one collision group: never collide */
        int ra = solver_body(w, a), rb = solver_body(w, b);
        if (ra == rb || joined_has(c, ra, rb)) continue;
        ctn_contact_point cp;
        cp.a = a;
        cp.b = b;
        cp.org = w->pose[a].p;
        cp.mu = sqrtf(sa->friction * sb->friction);
        cp.e = sa->restitution > sb->restitution ? sa->restitution : sb->restitution;
        int from = c->points.count;
        if (!ctn__pair_points(&c->points, &cp, ctn__local_pose(w->pose[a], cp.org), sa, ctn__local_pose(w->pose[b], cp.org), sb,
                              margin + c->item_grow[i] + c->item_grow[j]))
            return 0;
        tag_features(c, from, c->item_shape[i], c->item_shape[j]);
    }
    return 1;
}

/* Room for this step's keys (in the spare buffer, prev_keys) and the matched flags of last step's. */
static int reserve_match(struct ctn_collision *c) {
    int nk = c->points.count + 1, ns = c->key_count + 1;
    if (nk > c->prev_key_capacity) {
        size_t cap = (size_t)nk + (size_t)nk / 2;
        if (!grow_to(&c->prev_keys, cap, sizeof *c->prev_keys)) return 0;
        c->prev_key_capacity = (int)cap;
    }
    if (ns > c->seen_capacity) {
        size_t cap = (size_t)ns + (size_t)ns / 2;
        if (!grow_to(&c->seen, cap, 1)) return 0;
        c->seen_capacity = (int)cap;
    }
    return 1;
}

/* Step 5: each point matched to last step's cache by (body a, body b, feature): a matched contact keeps its
 * joint id, its definition moved to the new geometry, so its impulses warm-start it (topo.lambda follows
 * joint ids); a new point gets a recycled or new id; the contacts left unmatched are removed. The new keys
 * are written to the spare buffer, which then becomes the cache; the old one is kept for an undo. */
static ctn_status match_contacts(ctn_world *w, struct ctn_collision *c) {
    ctn_contact_key *keys = c->prev_keys;
    memset(c->seen, 0, (size_t)c->key_count + 1);
    ctn_status st = CTN_OK;
    for (int i = 0; i < c->points.count && st == CTN_OK; ++i) {
        const ctn_contact_point *p = &c->points.p[i];
        int e = table_find(c, p->a, p->b, p->feature), id = -1;
        if (e >= 0 && !c->seen[e]) {
            id = c->keys[e].joint;
            c->seen[e] = 1;
        }
        int live = auto_contact(w, id);
        double pa[3] = {(double)p->org.x + p->pa.x, (double)p->org.y + p->pa.y, (double)p->org.z + p->pa.z};
        double pb[3] = {(double)p->org.x + p->pb.x, (double)p->org.y + p->pb.y, (double)p->org.z + p->pb.z};
        ctn_v3 prev_t1 = ctn_v3_zero();
        if (live) prev_t1 = ctn__contact_tangent(w, id);
        ctn_joint_def def = ctn__contact_def(w, p->a, p->b, pa, pb, p->n, p->mu, p->e, CTN_JF_AUTO, live ? &prev_t1 : NULL);
        if (live) {
            /* same joint id: its impulses warm-start the new geometry. Cannot fail: a live built-in contact's
             * extras (CTN_JF_AUTO) keep the world's extras array */
            (void)ctn__jdef_set(w, id, &def);
        } else {
            st = ctn__joint_insert(w, &def, &id);
            if (st != CTN_OK) id = -1;
        }
        keys[i].a = p->a;
        keys[i].b = p->b;
        keys[i].feature = p->feature;
        keys[i].joint = id;
    }
    if (st != CTN_OK) return st; /* the caller undoes the joints from the step snapshot */
    for (int e = 0; e < c->key_count; ++e)
        if (!c->seen[e] && c->keys[e].joint >= 0) drop_contact(w, c->keys[e].joint);
    c->prev_keys = c->keys;
    c->keys = keys;
    int cap = c->prev_key_capacity;
    c->prev_key_capacity = c->key_capacity;
    c->key_capacity = cap;
    c->prev_key_count = c->key_count;
    c->key_count = c->points.count;
    return CTN_OK;
}

/* The step hook: contact generation of one step (the file comment), in the steps above. Before it edits the
 * joints it takes the step snapshot of the joints and the layout (ctn__joints_snapshot_take), so that a step
 * that fails later (divergence, device fault) restores the contact set with the bodies (ctn__collide_undo). */
ctn_status ctn__collide(ctn_world *w, double *ms, int *contacts) {
    struct ctn_collision *c = w->collision;
    double t0 = ctn__now_ms();
    c->undo = 0;
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    int active = c->desc.enabled && (c->shape_count > 0);
    if (!active && c->key_count == 0) {
        *contacts = count_contacts(w);
        *ms = ctn__now_ms() - t0;
        return CTN_OK;
    }
    float h = (float)w->desc.time_step, margin = (float)c->desc.margin;
    c->points.count = 0;
    int ok = 1;
    if (active) {
        ok = reserve_items(c);
        int n = ok ? gather_items(w, c, h, margin) : 0;
        ok = ok && plane_contacts(w, c, n, margin) && pair_contacts(w, c, n, margin);
    }
    if (!ok || !reserve_match(c) || !table_reserve(c, c->points.count))
        return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory in contact generation (%d shapes, %d points)", c->shape_count,
                         c->points.count);
    st = ctn__joints_snapshot_take(w);
    if (st != CTN_OK) return st;
    c->undo = 1;
    st = match_contacts(w, c);
    if (st != CTN_OK) {
        ctn__joints_snapshot_restore(w);
        c->undo = 0;
        return st;
    }
    ctn__contact_table_build(c); /* reserved above: cannot fail */
    /* moved anchors must reach the solver copies (topo.defs and the device): rebuild every step */
    if (c->key_count > 0) w->topology_dirty = 1;
    *contacts = count_contacts(w);
    *ms = ctn__now_ms() - t0;
    return CTN_OK;
}

int ctn__collide_undo(ctn_world *w) {
    struct ctn_collision *c = w->collision;
    if (!c || !c->undo) return 0;
    c->undo = 0;
    ctn_contact_key *keys = c->keys;
    int cap = c->key_capacity;
    c->keys = c->prev_keys;
    c->key_capacity = c->prev_key_capacity;
    c->key_count = c->prev_key_count;
    c->prev_keys = keys;
    c->prev_key_capacity = cap;
    ctn__contact_table_build(c); /* the table only grows: it was built for the older cache before */
    ctn__joints_snapshot_restore(w);
    return 1;
}
