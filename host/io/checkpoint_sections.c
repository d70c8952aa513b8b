/* Checkpoint sections after the joints (format version 3, host/io/checkpoint.c):
 *
 *   collision: u32 present; when present, u32 record sizes (collision settings, shape, plane, contact-cache
 *   key; a shape record without its trailing collision group, from files written before groups, still
 *   reads, as group 0), the settings, i32 shape slots + the shapes by body slot, i32 planes + the planes,
 *   i32 keys + the contact cache (body a, body b, feature -> joint slot) of the last step;
 *   names: i32 named bodies, then (i32 body slot, string) for each;
 *   curves (only when the world has polyline curve joints): u32 tag "CRVS", i32 polylines, then for each
 *   i32 joint slot, i32 vertex count, i32 closed, i32 segment of the bead, 3 x count doubles (the vertices);
 *   attachments (only when the world has some): u32 tag "ATCH", i32 links, the links (ctn_attach_link), i32
 *   masters, then for each i32 master slot, i32 cached, the cached composite and master poses and velocities;
 *   joint names (only when a joint has one): u32 tag "JNMS", i32 named joints, then (i32 joint slot, string).
 *
 * The contact cache is what lets a resumed pile continue bitwise: the next step matches its contact points
 * to these keys, so persisting contacts keep their joint slots and warm-start impulses, exactly as in the
 * run that was saved. Everything read is checked before it is used as an index. */
#include "collide/collide.h"
#include "io/checkpoint_io.h"
#include "core/attach.h"

#include <math.h>
#include <stdlib.h>

void ctn__ck_put_collision(ck_writer *wr, const ctn_world *w) {
    const struct ctn_collision *c = w->collision;
    uint32_t present = c != NULL;
    ck_put(wr, &present, sizeof present);
    if (!c) return;
    uint32_t sizes[4] = {sizeof(ctn_collision_desc), sizeof(ctn_shape), sizeof(ctn_plane), sizeof(ctn_contact_key)};
    ck_put(wr, sizes, sizeof sizes);
    ck_put(wr, &c->desc, sizeof c->desc);
    int32_t shapes = c->shape_capacity < w->body_count ? c->shape_capacity : w->body_count;
    ck_put(wr, &shapes, sizeof shapes);
    ck_put(wr, c->shapes, (size_t)shapes * sizeof *c->shapes);
    ck_put(wr, &c->plane_count, sizeof c->plane_count);
    ck_put(wr, c->planes, (size_t)c->plane_count * sizeof *c->planes);
    ck_put(wr, &c->key_count, sizeof c->key_count);
    ck_put(wr, c->keys, (size_t)c->key_count * sizeof *c->keys);
}

static int finite_v3(ctn_v3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

/* A stored shape on body slot i is one ctn_body_set_shape could have made: NULL, or the field at fault. */
static const char *shape_bad(const ctn_world *w, int i, const ctn_shape *s) {
    if (s->type == CTN_SHAPE_NONE) return NULL;
    if (s->type < CTN_SHAPE_NONE || s->type > CTN_SHAPE_BOX) return "type";
    if (!(w->props[i].flags & CTN_BODY_FLAG_ALIVE)) return "body (a free slot)";
    if (!isfinite(s->radius) || !(s->radius >= 0.0f)) return "radius";
    if (!isfinite(s->half_length) || !(s->half_length >= 0.0f)) return "half_length";
    if (!finite_v3(s->half_extents)) return "half_extents";
    if (!isfinite(s->friction) || !(s->friction >= 0.0f)) return "friction";
    if (!(s->restitution >= 0.0f && s->restitution <= 1.0f)) return "restitution";
    if (s->group < 0) return "group";
    if (s->placed != 0 && s->placed != 1) return "placed";
    if (!finite_v3(s->offset)) return "offset";
    if (!isfinite(s->rot.w) || !isfinite(s->rot.x) || !isfinite(s->rot.y) || !isfinite(s->rot.z) ||
        (s->placed && !(fabsf(s->rot.w * s->rot.w + s->rot.x * s->rot.x + s->rot.y * s->rot.y + s->rot.z * s->rot.z - 1.0f) < 1e-3f)))
        return "rotation";
    return NULL;
}

/* A stored cache key names live bodies and, unless dropped (-1), a live built-in contact between them. */
static int key_ok(const ctn_world *w, const ctn_contact_key *k) {
    if (k->a < 0 || k->a >= w->body_count || k->b < -1 || k->b >= w->body_count) return 0;
    if (k->joint == -1) return 1;
    if (k->joint < 0 || k->joint >= w->joint_count || !w->joint_alive[k->joint]) return 0;
    const ctn_joint_core *d = ctn__jcore(w, k->joint);
    return d->type == CTN_JT_CONTACT && (ctn__jflags(w, k->joint) & CTN_JF_AUTO) && d->a == k->a && d->b == k->b;
}

/* Reads n records of `size` bytes into a fresh array of at least `min` records (zeroed beyond n). */
static void *read_array(ck_reader *r, int32_t n, int32_t min, size_t size) {
    if (n < 0 || (size_t)n > r->left / size) return NULL;
    void *a = ctn__calloc((size_t)(n > min ? n : min) + 1, size);
    if (a) ck_get(r, a, (size_t)n * size);
    else r->oom = 1;
    return a;
}

/* Reads n shape records of `size` bytes: sizeof(ctn_shape), or CTN__SHAPE_V2_SIZE / CTN__SHAPE_V1_SIZE from a
 * file written before shapes had an offset / a collision group (the same fields without those at the end:
 * centred, group 0). */
static ctn_shape *read_shapes(ck_reader *r, int32_t n, uint32_t size) {
    if (size == sizeof(ctn_shape)) return read_array(r, n, 64, sizeof(ctn_shape));
    if (n < 0 || (size_t)n > r->left / size) return NULL;
    ctn_shape *a = ctn__calloc((size_t)(n > 64 ? n : 64) + 1, sizeof *a);
    if (!a) {
        r->oom = 1;
        return NULL;
    }
    for (int32_t i = 0; i < n; ++i) ck_get(r, &a[i], size);
    return a;
}

int ctn__ck_get_collision(ck_reader *r, ctn_world *w) {
    uint32_t present = 0, sizes[4] = {0, 0, 0, 0};
    ck_get(r, &present, sizeof present);
    if (present > 1) return 0;
    if (!present) return !r->short_read;
    ck_get(r, sizes, sizeof sizes);
    if (sizes[0] != sizeof(ctn_collision_desc) || (sizes[1] != sizeof(ctn_shape) && sizes[1] != CTN__SHAPE_V2_SIZE && sizes[1] != CTN__SHAPE_V1_SIZE) ||
        sizes[2] != sizeof(ctn_plane) || sizes[3] != sizeof(ctn_contact_key))
        return 0;
    struct ctn_collision *c = ctn__collision_get(w);
    if (!c) return ck_oom(r);
    ck_get(r, &c->desc, sizeof c->desc);
    if (!(c->desc.margin >= 0.0 && c->desc.margin <= 1e3))
        return ck_bad(r, "collision section, settings: margin %g is not in [0, 1000] m", c->desc.margin);
    int32_t n = -1;
    ck_get(r, &n, sizeof n);
    if (n > w->body_count || !(c->shapes = read_shapes(r, n, sizes[1]))) return 0;
    c->shape_capacity = n > 64 ? n : 64;
    for (int i = 0; i < n; ++i) {
        const char *bad = shape_bad(w, i, &c->shapes[i]);
        if (bad) return ck_bad(r, "collision section, shape of body slot %d: %s is not one ctn_body_set_shape stores", i, bad);
        c->shape_count += c->shapes[i].type != CTN_SHAPE_NONE;
        c->shape_total += c->shapes[i].type != CTN_SHAPE_NONE;
    }
    ck_get(r, &c->plane_count, sizeof c->plane_count);
    if (c->plane_count < 0 || c->plane_count > 4096 || !(c->planes = read_array(r, c->plane_count, 8, sizeof *c->planes))) return 0;
    c->plane_capacity = c->plane_count > 8 ? c->plane_count : 8;
    for (int k = 0; k < c->plane_count; ++k) { /* what ctn_world_add_plane stores: a unit normal, finite offset, the ranges it checks */
        const ctn_plane *pl = &c->planes[k];
        float n2 = pl->normal.x * pl->normal.x + pl->normal.y * pl->normal.y + pl->normal.z * pl->normal.z;
        if (!finite_v3(pl->normal) || !(fabsf(n2 - 1.0f) < 1e-3f))
            return ck_bad(r, "collision section, plane %d: normal (%g, %g, %g) is not a unit vector", k, (double)pl->normal.x, (double)pl->normal.y,
                          (double)pl->normal.z);
        if (!isfinite(pl->offset)) return ck_bad(r, "collision section, plane %d: offset %g is not finite", k, (double)pl->offset);
        if (!(pl->friction >= 0.0f) || !isfinite(pl->friction))
            return ck_bad(r, "collision section, plane %d: friction %g must be finite and >= 0", k, (double)pl->friction);
        if (!(pl->restitution >= 0.0f && pl->restitution <= 1.0f))
            return ck_bad(r, "collision section, plane %d: restitution %g is not in [0, 1]", k, (double)pl->restitution);
    }
    ck_get(r, &c->key_count, sizeof c->key_count);
    if (!(c->keys = read_array(r, c->key_count, 1, sizeof *c->keys))) return 0;
    c->key_capacity = c->key_count + 1;
    unsigned char *owned = ctn__calloc((size_t)w->joint_count + 1, 1); /* a contact belongs to one key at most */
    int ok = owned ? 1 : ck_oom(r);
    for (int e = 0; ok && e < c->key_count; ++e) {
        const ctn_contact_key *k = &c->keys[e];
        ok = key_ok(w, k) && (k->joint < 0 || !owned[k->joint]);
        if (ok && k->joint >= 0) owned[k->joint] = 1;
    }
    ctn__free(owned);
    return ok && !r->short_read && (ctn__contact_table_build(c) || ck_oom(r)); /* the table's only failure */
}

void ctn__ck_put_names(ck_writer *wr, const ctn_world *w) {
    int32_t named = 0, n = w->body_count < w->body_names_capacity ? w->body_count : w->body_names_capacity;
    for (int32_t i = 0; i < n; ++i) named += w->body_names[i] != NULL;
    ck_put(wr, &named, sizeof named);
    for (int32_t i = 0; i < n; ++i) {
        if (!w->body_names[i]) continue;
        ck_put(wr, &i, sizeof i);
        ck_put_str(wr, w->body_names[i]);
    }
}

int ctn__ck_get_names(ck_reader *r, ctn_world *w) {
    int32_t named = -1;
    ck_get(r, &named, sizeof named);
    if (named < 0 || named > w->live_bodies) return 0;
    char name[256];
    for (int32_t k = 0; k < named; ++k) {
        int32_t i = -1;
        ck_get(r, &i, sizeof i);
        if (i < 0 || i >= w->body_count || !ck_get_str(r, name, sizeof name) || !name[0]) return 0;
        ctn_status st = ctn_body_set_name(w, ctn__body_handle(w, i), name);
        if (st != CTN_OK) return st == CTN_ERR_OUT_OF_MEMORY ? ck_oom(r) : 0;
    }
    return !r->short_read;
}

#define CK_CURVES_TAG 0x53565243u /* "CRVS" */
#define CK_ATTACH_TAG 0x48435441u /* "ATCH" */
#define CK_JNAMES_TAG 0x534d4e4au /* "JNMS" */
#define CK_SHAPES_TAG 0x58504853u /* "SHPX" */

/* The optional sections come in this order, each present or not: curves, attachments, joint names. */
static uint32_t peek_tag(const ck_reader *r) {
    uint32_t peek = 0;
    if (r->left >= sizeof peek) memcpy(&peek, r->p, sizeof peek);
    return peek;
}

void ctn__ck_put_curves(ck_writer *wr, const ctn_world *w) {
    if (w->polyline_live <= 0) return;
    uint32_t tag = CK_CURVES_TAG;
    int32_t n = 0, m = w->joint_count < w->polyline_capacity ? w->joint_count : w->polyline_capacity;
    for (int32_t j = 0; j < m; ++j) n += w->polylines[j] != NULL && w->joint_alive[j];
    ck_put(wr, &tag, sizeof tag);
    ck_put(wr, &n, sizeof n);
    for (int32_t j = 0; j < m; ++j) {
        const ctn_polyline *p = w->polylines[j];
        if (!p || !w->joint_alive[j]) continue;
        int32_t rec[4] = {j, p->count, p->closed, p->segment};
        ck_put(wr, rec, sizeof rec);
        ck_put(wr, p->points, (size_t)p->count * 3 * sizeof *p->points);
    }
}

int ctn__ck_get_curves(ck_reader *r, ctn_world *w) {
    uint32_t peek = peek_tag(r);
    if (r->left > 0 && peek != CK_ATTACH_TAG && peek != CK_JNAMES_TAG && peek != CK_SHAPES_TAG) {
        uint32_t tag = 0;
        int32_t n = -1;
        ck_get(r, &tag, sizeof tag);
        ck_get(r, &n, sizeof n);
        if (tag != CK_CURVES_TAG || n < 0 || n > w->live_joints) return 0;
        for (int32_t k = 0; k < n; ++k) {
            int32_t rec[4] = {-1, 0, 0, -1};
            ck_get(r, rec, sizeof rec);
            int32_t j = rec[0], count = rec[1], closed = rec[2];
            if (r->short_read || j < 0 || j >= w->joint_count || !w->joint_alive[j] || ctn__jcore(w, j)->type != CTN_JT_CURVE ||
                ctn_curve_kind(ctn__jdef_get(w, j)) != CTN_CURVE_POLYLINE || (j < w->polyline_capacity && w->polylines[j]) || closed < 0 ||
                closed > 1 || count < 2 + closed || (size_t)count > r->left / (3 * sizeof(double)))
                return 0;
            int32_t segments = closed ? count : count - 1;
            if (rec[3] < 0 || rec[3] >= segments) return 0;
            double *pts = read_array(r, count * 3, 1, sizeof *pts);
            if (!pts) return 0;
            int ok = 1;
            for (int32_t i = 0; i < 3 * count && ok; ++i)
                if (!isfinite(pts[i])) ok = ck_bad(r, "curves section, joint slot %d: vertex %d's coordinate %g is not finite", j, i / 3, pts[i]);
            ctn_status st = ok ? ctn__curve_set_polyline(w, j, pts, count, closed, rec[3]) : CTN_OK;
            if (st == CTN_ERR_OUT_OF_MEMORY) ok = ck_oom(r);
            ok = ok && st == CTN_OK;
            ctn__free(pts);
            if (!ok) return 0;
        }
    }
    /* every polyline joint got its vertices */
    for (int j = 0; j < w->joint_count; ++j)
        if (w->joint_alive[j] && ctn__jcore(w, j)->type == CTN_JT_CURVE && ctn_curve_kind(ctn__jdef_get(w, j)) == CTN_CURVE_POLYLINE &&
            (j >= w->polyline_capacity || !w->polylines[j]))
            return 0;
    return !r->short_read;
}

void ctn__ck_put_attach(ck_writer *wr, const ctn_world *w) {
    const ctn_attachments *a = w->attach;
    if (!a || a->link_count == 0) return;
    uint32_t tag = CK_ATTACH_TAG;
    ck_put(wr, &tag, sizeof tag);
    ck_put(wr, &a->link_count, sizeof a->link_count);
    ck_put(wr, a->links, (size_t)a->link_count * sizeof *a->links);
    ck_put(wr, &a->group_count, sizeof a->group_count);
    for (int g = 0; g < a->group_count; ++g) {
        const ctn_attach_group *gr = &a->groups[g];
        int32_t rec[2] = {gr->master, gr->cached};
        ck_put(wr, rec, sizeof rec);
        ck_put_poses(wr, &gr->comp_pose, 1); /* 48 bytes on disk (checkpoint_io.h) */
        ck_put_poses(wr, &gr->user_pose, 1);
        /* the file's velocity records (ck_vel) with the inverse masses the cached states stand with: the
         * composite's and the master's own (the master's outside a step) */
        ck_vel cv = ck_vel_of(gr->comp_vel, gr->cached ? gr->inv_mass : 0.0f);
        ck_vel uv = ck_vel_of(gr->user_vel, gr->cached ? w->inertia[gr->master].inv_mass : 0.0f);
        ck_put(wr, &cv, sizeof cv);
        ck_put(wr, &uv, sizeof uv);
    }
}

int ctn__ck_get_attach(ck_reader *r, ctn_world *w) {
    if (r->left == 0 || peek_tag(r) == CK_JNAMES_TAG || peek_tag(r) == CK_SHAPES_TAG) return 1;
    uint32_t tag = 0;
    int32_t n = -1;
    ck_get(r, &tag, sizeof tag);
    ck_get(r, &n, sizeof n);
    if (tag != CK_ATTACH_TAG || n <= 0 || n > w->live_bodies) return 0;
    for (int32_t k = 0; k < n; ++k) {
        ctn_attach_link l;
        if (!ck_get(r, &l, sizeof l)) return 0;
        ctn_status st = ctn__attach_restore_link(w, &l);
        if (st != CTN_OK) return st == CTN_ERR_OUT_OF_MEMORY ? ck_oom(r) : ck_bad(r, "attachments section, link %d: %s", (int)k, w->error);
    }
    ck_get(r, &n, sizeof n);
    if (n < 0 || n > w->live_bodies) return 0;
    for (int32_t k = 0; k < n; ++k) {
        ctn_attach_group g;
        ck_vel cv, uv;
        int32_t rec[2] = {-1, 0};
        memset(&g, 0, sizeof g);
        ck_get(r, rec, sizeof rec);
        ck_get_poses(r, &g.comp_pose, 1);
        ck_get_poses(r, &g.user_pose, 1);
        ck_get(r, &cv, sizeof cv);
        ck_get(r, &uv, sizeof uv);
        g.comp_vel.v = cv.v, g.comp_vel.w = cv.w; /* the inverse masses: the group's and the master's own */
        g.user_vel.v = uv.v, g.user_vel.w = uv.w;
        g.master = rec[0], g.cached = rec[1];
        if (r->short_read) return 0;
        /* the cached states (used only when cached) are the bodies' of a step: checked as the bodies' own
         * (host/io/checkpoint_values.c) */
        const char *bad = NULL, *which = NULL;
        if (!g.cached) which = NULL;
        else if ((bad = ctn__ck_pose_bad(&g.comp_pose))) which = "composite pose";
        else if ((bad = ctn__ck_pose_bad(&g.user_pose))) which = "master pose";
        else if ((bad = ctn__ck_vel_bad(&cv))) which = "composite velocity";
        else if ((bad = ctn__ck_vel_bad(&uv))) which = "master velocity";
        if (bad) return ck_bad(r, "attachments section, cache of master body slot %d: the %s's %s is not one a step stores", (int)g.master, which, bad);
        ctn_status st = ctn__attach_restore_cache(w, &g);
        if (st != CTN_OK) return st == CTN_ERR_OUT_OF_MEMORY ? ck_oom(r) : 0;
    }
    return !r->short_read;
}

/* Joint names (only when a joint has one): u32 tag "JNMS", i32 named joints, then (i32 joint slot, string). */
void ctn__ck_put_joint_names(ck_writer *wr, const ctn_world *w) {
    int32_t named = 0, n = w->joint_count < w->joint_names_capacity ? w->joint_count : w->joint_names_capacity;
    for (int32_t j = 0; j < n; ++j) named += w->joint_names[j] != NULL && w->joint_alive[j];
    if (!named) return;
    uint32_t tag = CK_JNAMES_TAG;
    ck_put(wr, &tag, sizeof tag);
    ck_put(wr, &named, sizeof named);
    for (int32_t j = 0; j < n; ++j) {
        if (!w->joint_names[j] || !w->joint_alive[j]) continue;
        ck_put(wr, &j, sizeof j);
        ck_put_str(wr, w->joint_names[j]);
    }
}

int ctn__ck_get_joint_names(ck_reader *r, ctn_world *w) {
    if (r->left == 0 || peek_tag(r) == CK_SHAPES_TAG) return 1;
    uint32_t tag = 0;
    int32_t named = -1;
    ck_get(r, &tag, sizeof tag);
    ck_get(r, &named, sizeof named);
    if (tag != CK_JNAMES_TAG || named <= 0 || named > w->live_joints) return 0;
    char name[256];
    for (int32_t k = 0; k < named; ++k) {
        int32_t j = -1;
        ck_get(r, &j, sizeof j);
        if (j < 0 || j >= w->joint_count || !w->joint_alive[j] || !ck_get_str(r, name, sizeof name) || !name[0]) return 0;
        ctn_status st = ctn_joint_set_name(w, ctn__joint_handle(w, j), name);
        if (st != CTN_OK) return st == CTN_ERR_OUT_OF_MEMORY ? ck_oom(r) : 0;
    }
    return !r->short_read;
}

/* The further shapes of compound bodies (only when a body has more than one): u32 tag "SHPX", u32 record
 * size, i32 count, then (i32 body slot, shape record) in body order, each body's in its order. Written
 * last, so a world without compound shapes writes the bytes it wrote before they existed. */
void ctn__ck_put_more_shapes(ck_writer *wr, const ctn_world *w) {
    const struct ctn_collision *c = w->collision;
    int32_t n = 0, nb = c ? (c->shape_capacity < w->body_count ? c->shape_capacity : w->body_count) : 0;
    for (int32_t i = 0; c && c->more && i < nb; ++i) n += c->shapes[i].type != CTN_SHAPE_NONE ? c->more[i].count : 0;
    if (!n) return;
    uint32_t tag = CK_SHAPES_TAG, size = sizeof(ctn_shape);
    ck_put(wr, &tag, sizeof tag);
    ck_put(wr, &size, sizeof size);
    ck_put(wr, &n, sizeof n);
    for (int32_t i = 0; i < nb; ++i)
        for (int k = 0; c->shapes[i].type != CTN_SHAPE_NONE && k < c->more[i].count; ++k) {
            ck_put(wr, &i, sizeof i);
            ck_put(wr, &c->more[i].s[k], sizeof c->more[i].s[k]);
        }
}

int ctn__ck_get_more_shapes(ck_reader *r, ctn_world *w) {
    if (r->left == 0) return 1;
    uint32_t tag = 0, size = 0;
    int32_t n = -1;
    ck_get(r, &tag, sizeof tag);
    ck_get(r, &size, sizeof size);
    ck_get(r, &n, sizeof n);
    struct ctn_collision *c = w->collision;
    if (tag != CK_SHAPES_TAG || size != sizeof(ctn_shape) || n <= 0 || !c || (size_t)n > r->left / size) return 0;
    for (int32_t k = 0; k < n; ++k) {
        int32_t i = -1;
        ctn_shape s;
        ck_get(r, &i, sizeof i);
        if (!ck_get(r, &s, sizeof s)) return 0;
        if (i < 0 || i >= w->body_count || i >= c->shape_capacity || c->shapes[i].type == CTN_SHAPE_NONE || s.type == CTN_SHAPE_NONE ||
            ctn__shape_count_of(c, i) >= CTN_MAX_BODY_SHAPES || (w->props[i].flags & CTN_BODY_FLAG_PARTICLE))
            return 0;
        const char *bad = shape_bad(w, i, &s);
        if (bad) return ck_bad(r, "further shapes section, shape %d (body slot %d): %s is not one ctn_body_add_shape stores", (int)k, (int)i, bad);
        if (!ctn__collision_shape_append(c, i, &s)) return ck_oom(r);
    }
    return !r->short_read;
}
