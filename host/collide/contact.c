/* Contacts supplied by the caller's own collision pipeline, and the read-back of all live contacts
 * A contact is a joint of type CTN_JT_CONTACT (rows in kernels/ctn_rows.h), so it is coloured,
 * uploaded and warm-started like any joint. */
#include "collide/collide.h"

#include <math.h>
#include <string.h>

ctn_contact_desc ctn_contact_desc_default(void) {
    ctn_contact_desc d;
    memset(&d, 0, sizeof d);
    d.body_a = CTN_NULL_BODY;
    d.body_b = CTN_WORLD;
    d.normal[1] = 1.0;
    d.friction = 0.5;
    return d;
}

static int finite3(const double v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

/* Validates a contact description and builds its joint definition; prev: the contact it updates (its friction
 * direction carries over), or -1 for a new one. */
static ctn_status contact_build(ctn_world *w, const ctn_contact_desc *d, int prev, ctn_joint_def *out) {
    if (!d) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "contact: desc is NULL");
    int a = ctn__body_index(w, d->body_a, "contact.body_a", 0);
    int b = a < 0 ? -2 : ctn__body_index(w, d->body_b, "contact.body_b", 1);
    if (a < 0 || b < -1) return w->handle_status;
    if (a == b) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "contact.body_b: contact of body %lld with itself", (long long)ctn_body_id_to_int(d->body_a));
    if (!finite3(d->point)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "contact.point: non-finite component");
    if (!finite3(d->normal)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "contact.normal: non-finite component");
    double nn = sqrt(d->normal[0] * d->normal[0] + d->normal[1] * d->normal[1] + d->normal[2] * d->normal[2]);
    if (!(nn > 1e-9)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "contact.normal: zero vector");
    if (!isfinite(d->depth)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "contact.depth: %g is not finite", d->depth);
    if (!(d->friction >= 0.0) || !isfinite(d->friction))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "contact.friction: %g must be finite and >= 0", d->friction);
    if (!(d->restitution >= 0.0 && d->restitution <= 1.0))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "contact.restitution: %g is not in [0, 1]", d->restitution);
    /* a contact between two non-dynamic bodies is allowed: it simply never acts */
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    ctn_v3 n = ctn_v3_make((float)(d->normal[0] / nn), (float)(d->normal[1] / nn), (float)(d->normal[2] / nn));
    /* points on the two surfaces: n . (pa - pb) = -depth (double: positions are two floats) */
    double pa[3], pb[3];
    for (int k = 0; k < 3; ++k) {
        double nk = d->normal[k] / nn;
        pa[k] = d->point[k] - 0.5 * d->depth * nk;
        pb[k] = d->point[k] + 0.5 * d->depth * nk;
    }
    ctn_v3 prev_t1 = prev >= 0 ? ctn__contact_tangent(w, prev) : ctn_v3_zero(); /* the previous friction direction (world) */
    *out = ctn__contact_def(w, a, b, pa, pb, n, (float)d->friction, (float)d->restitution, 0, prev >= 0 ? &prev_t1 : NULL);
    return CTN_OK;
}

ctn_status ctn_contact_add(ctn_world *w, const ctn_contact_desc *d, ctn_joint_id *out) {
    CTN__ENTER(w);
    ctn_joint_def def;
    ctn_status st = contact_build(w, d, -1, &def);
    if (st != CTN_OK) return st;
    if (!ctn__collision_get(w)) return CTN_ERR_OUT_OF_MEMORY; /* so steps report contact counts */
    int slot;
    st = ctn__joint_insert(w, &def, &slot);
    if (st == CTN_OK && out) *out = ctn__joint_handle(w, slot);
    return st;
}

/* The slot of a live user contact in *slot. */
static ctn_status user_contact(ctn_world *w, ctn_joint_id handle, const char *what, int *slot) {
    int id = ctn__joint_index(w, handle, what);
    if (id < 0) return w->handle_status;
    if (ctn__jcore(w, id)->type != CTN_JT_CONTACT)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: joint %lld is not a contact", what, (long long)ctn_joint_id_to_int(handle));
    if (ctn__jflags(w, id) & CTN_JF_AUTO)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: contact %lld belongs to the built-in collision detection", what, (long long)ctn_joint_id_to_int(handle));
    *slot = id;
    return CTN_OK;
}

ctn_status ctn_contact_update(ctn_world *w, ctn_joint_id handle, const ctn_contact_desc *d) {
    CTN__ENTER(w);
    int id = -1;
    ctn_status st = user_contact(w, handle, "ctn_contact_update", &id);
    if (st != CTN_OK) return st;
    ctn_joint_def def, prev = ctn__jdef_get(w, id);
    st = contact_build(w, d, id, &def);
    if (st != CTN_OK) return st;
    if (def.a != prev.a || def.b != prev.b)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_contact_update: contact %lld joins bodies %lld and %lld, not %lld and %lld",
                         (long long)ctn_joint_id_to_int(handle), (long long)ctn_body_id_to_int(ctn__body_handle(w, prev.a)), (long long)ctn_body_id_to_int(ctn__body_handle(w, prev.b)),
                         (long long)ctn_body_id_to_int(d->body_a), (long long)ctn_body_id_to_int(d->body_b));
    st = ctn__jdef_set(w, id, &def); /* cannot fail: a contact's extras keep the extras array */
    if (st != CTN_OK) return st;
    w->topology_dirty = 1; /* refreshes the solver copies; the impulses carry over by joint id */
    return CTN_OK;
}

ctn_status ctn_contact_remove(ctn_world *w, ctn_joint_id handle) {
    CTN__ENTER(w);
    int id = -1;
    ctn_status st = user_contact(w, handle, "ctn_contact_remove", &id);
    if (st != CTN_OK) return st;
    return ctn_joint_remove(w, handle);
}

ctn_status ctn_world_get_contacts(ctn_world *w, ctn_contact_info *out, int capacity, int *count) {
    CTN__ENTER(w);
    if (!count) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_get_contacts: count is NULL");
    if (capacity < 0 || (capacity > 0 && !out))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_get_contacts: out is NULL or capacity %d < 0", capacity);
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    int n = 0;
    ctn_pose world = ctn__world_pose();
    for (int j = 0; j < w->joint_count; ++j) {
        if (!w->joint_alive[j] || ctn__jcore(w, j)->type != CTN_JT_CONTACT) continue;
        ctn_joint_def def = ctn__jdef_get(w, j), *d = &def;
        if (n < capacity) {
            ctn_contact_info *ci = &out[n];
            ctn_pose pa = w->pose[d->a], pb = d->b >= 0 ? w->pose[d->b] : world;
            ctn_v3 ra = ctn_quat_rotate(pa.q, d->anchor_a), rb = ctn_quat_rotate(pb.q, d->anchor_b);
            double xa[3], xb[3];
            ctn__pose_point(&pa, d->anchor_a, xa);
            ctn__pose_point(&pb, d->anchor_b, xb);
            ctn_v3 nrm = ctn_quat_rotate(pb.q, d->axis_b);
            ci->joint = ctn__joint_handle(w, j);
            ci->body_a = ctn__body_handle(w, d->a);
            ci->body_b = ctn__body_handle(w, d->b);
            for (int k = 0; k < 3; ++k) ci->point[k] = 0.5 * (xa[k] + xb[k]);
            ci->normal[0] = nrm.x, ci->normal[1] = nrm.y, ci->normal[2] = nrm.z;
            ci->separation = ctn_dot(nrm, ctn_point_sep(pa.p, pa.p_lo, ra, pb.p, pb.p_lo, rb)); /* as the solver's g_n */
            int slot = w->topology_dirty ? -1 : ctn__joint_layout_slot(w, j);
            for (int k = 0; k < 3; ++k) ci->impulse[k] = slot >= 0 ? CTN_LAM(w->topo.lambda, w->topo.stride, slot, k) : 0.0;
            ci->friction = d->lo;
            ci->user = !(d->flags & CTN_JF_AUTO);
        }
        n++;
    }
    *count = n;
    return CTN_OK;
}

ctn_status ctn_world_collision_counts(const ctn_world *w, int *shapes, int *planes) {
    if (!w) return CTN_ERR_INVALID_ARGUMENT;
    const struct ctn_collision *c = w->collision;
    if (shapes) *shapes = c ? c->shape_count : 0;
    if (planes) *planes = c ? c->plane_count : 0;
    return CTN_OK;
}
