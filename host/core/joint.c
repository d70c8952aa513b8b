/* Joints: validation, creation, removal and impulse read-back. Each type's rows are in kernels/ctn_rows.h. */
#include "core/attach.h"
#include "core/joint_kinds.h"
#include "core/world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

ctn_joint_desc ctn_joint_desc_default(ctn_joint_type type) {
    ctn_joint_desc d;
    memset(&d, 0, sizeof d);
    d.type = type;
    d.body_a = CTN_NULL_BODY;
    d.body_b = CTN_WORLD;
    d.axis[2] = 1.0;
    d.axis2[0] = 1.0;
    d.ratio = 1.0;
    d.rest_length = -1.0;
    d.compliance = -1.0;
    d.damping_time = -1.0;
    return d;
}

static int finite3(const double v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

/* Pose of body slot b (< 0: the world, the identity at the origin). */
static ctn_pose pose_of(const ctn_world *w, int b) { return b < 0 ? ctn__world_pose() : w->pose[b]; }

static int is_particle(const ctn_world *w, int b) { return b >= 0 && (w->props[b].flags & CTN_BODY_FLAG_PARTICLE); }

ctn_status ctn_joint_desc_set_pivot(ctn_world *w, ctn_joint_desc *d, const double pivot[3], const double axis[3]) {
    CTN__ENTER(w);
    if (!d || !pivot) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_joint_desc_set_pivot: %s is NULL", d ? "pivot" : "desc");
    if (!finite3(pivot)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "pivot: non-finite component");
    if (axis && !finite3(axis)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "axis: non-finite component");
    int a = ctn__body_index(w, d->body_a, "joint.body_a", 0);
    int b = a < 0 ? -2 : ctn__body_index(w, d->body_b, "joint.body_b", 1);
    if (a < 0 || b < -1) return w->handle_status;
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    /* pivot - position in double (positions are two floats), then into the body frame */
    double xa[3], xb[3] = {0.0, 0.0, 0.0};
    ctn__pose_get_position(&w->pose[a], xa);
    if (b >= 0) ctn__pose_get_position(&w->pose[b], xb);
    ctn_v3 ra = ctn_v3_make((float)(pivot[0] - xa[0]), (float)(pivot[1] - xa[1]), (float)(pivot[2] - xa[2]));
    ctn_v3 rb = ctn_v3_make((float)(pivot[0] - xb[0]), (float)(pivot[1] - xb[1]), (float)(pivot[2] - xb[2]));
    ctn_v3 la = ctn_quat_rotate_inv(w->pose[a].q, ra);
    ctn_v3 lb = b < 0 ? rb : ctn_quat_rotate_inv(w->pose[b].q, rb);
    d->anchor_a[0] = la.x, d->anchor_a[1] = la.y, d->anchor_a[2] = la.z;
    d->anchor_b[0] = lb.x, d->anchor_b[1] = lb.y, d->anchor_b[2] = lb.z;
    if (axis) memcpy(d->axis, axis, sizeof d->axis);
    return CTN_OK;
}

/* Grows the joint arrays to hold `need` slots, each in place (CTN__REGROW); on failure the world is unchanged
 * (the arrays grown before the failing one keep their larger blocks, the capacity stays). */
static ctn_status joint_reserve(ctn_world *w, int need) {
    if (need <= w->joint_capacity) return CTN_OK;
    if (need > CTN_MAX_JOINTS) return ctn__fail(w, CTN_ERR_LIMIT, "joint count would exceed CTN_MAX_JOINTS (%d)", CTN_MAX_JOINTS);
    size_t cap = w->joint_capacity ? (size_t)w->joint_capacity * 2 : 64;
    if (cap < (size_t)need) cap = (size_t)need;
    if (cap > CTN_MAX_JOINTS) cap = CTN_MAX_JOINTS;
    if (ctn__mul_overflows(cap, sizeof(ctn_joint_def)))
        return ctn__fail(w, CTN_ERR_LIMIT, "%zu joints do not fit this machine's address space", cap);
    /* the extras only where the world keeps them (joint_store.c): a fresh array, the new slots' defaults */
    ctn_joint_extra *extra = w->joint_extra ? ctn__joint_extra_alloc(cap, w->joint_extra, (size_t)w->joint_count) : NULL;
    void *t;
    int ok = (!w->joint_extra || extra) && CTN__REGROW(w->joint_core, cap, t) && CTN__REGROW(w->joint_pos, cap, t) &&
             CTN__REGROW(w->joint_at, cap, t) && CTN__REGROW(w->joint_alive, cap, t) &&
             (!w->joint_slot || CTN__REGROW(w->joint_slot, cap, t)) && /* where the world keeps the map (world.h) */
             (!w->joint_gen || CTN__REGROW(w->joint_gen, cap, t)) && /* where a joint was removed (world.h) */
             CTN__REGROW(w->joint_free, cap, t);
    if (ok && w->joint_extra) {
        ctn__free(w->joint_extra);
        w->joint_extra = extra;
    }
    w->topo.order = w->joint_at; /* the layout's order is the table's first positions */
    if (!w->topo.defs_owned) w->topo.defs = w->joint_core, w->topo.extra = w->joint_extra; /* the layout's definitions are the table's first entries */
    if (!ok) {
        ctn__free(extra);
        return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory growing joint arrays to %zu", cap);
    }
    w->joint_capacity = (int)cap;
    return CTN_OK;
}

/* The unit vector of a finite, non-zero axis (world frame). */
ctn_status ctn__joint_unit_axis(ctn_world *w, const double v[3], const char *field, ctn_v3 *out) {
    if (!finite3(v)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: non-finite component", field);
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(n > 1e-9)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: (%g, %g, %g) has zero length", field, v[0], v[1], v[2]);
    *out = ctn_v3_make((float)(v[0] / n), (float)(v[1] / n), (float)(v[2] / n));
    return CTN_OK;
}

/* The second axis of a universal joint (its other cross axis) or a rack-and-pinion (the rack's): perpendicular
 * to the first within 1e-3 (cos of the angle), then made exactly perpendicular (Gram-Schmidt) so that the
 * joint starts without error. */
ctn_status ctn__joint_cross_axis(ctn_world *w, const double v[3], ctn_v3 ax, const char *why, ctn_v3 *out) {
    ctn_v3 b;
    ctn_status st = ctn__joint_unit_axis(w, v, "joint.axis2", &b);
    if (st != CTN_OK) return st;
    float c = ctn_dot(ax, b);
    if (fabsf(c) > 1e-3f)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "joint.axis2: (%g, %g, %g) is not perpendicular to joint.axis (cos %g); %s", v[0],
                         v[1], v[2], (double)c, why);
    b = ctn_madd(b, ax, -c);
    *out = ctn_scale(b, 1.0f / ctn_length(b));
    return CTN_OK;
}

/* The `from_desc` hook of the one-axis types (host/core/joints/: hinge, prismatic, cone_twist): the axis,
 * seen from both bodies; dist is the anchors' separation as the kernels measure it. */
ctn_status ctn__joint_def_axes(ctn_world *w, const ctn_joint_desc *d, float dist, ctn_joint_def *j) {
    (void)dist;
    ctn_v3 ax;
    ctn_status st = ctn__joint_unit_axis(w, d->axis, "joint.axis", &ax);
    if (st != CTN_OK) return st;
    j->axis_a = ctn_quat_rotate_inv(w->pose[j->a].q, ax);
    j->axis_b = j->b < 0 ? ax : ctn_quat_rotate_inv(w->pose[j->b].q, ax);
    return CTN_OK;
}

ctn_status ctn_joint_add(ctn_world *w, const ctn_joint_desc *d, ctn_joint_id *out) {
    CTN__ENTER(w);
    if (!d) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_joint_add: desc is NULL");
    const ctn_joint_kind *kind = ctn__joint_kind((int)d->type);
    if (kind && kind->added_by)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "joint.type: %s joints are added with %s, not ctn_joint_add", kind->name, kind->added_by);
    if (!ctn__joint_kind_has((int)d->type, CTN_JK_JOINT_ADD))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "joint.type: unknown joint type %d", (int)d->type);
    const char *name = ctn_joint_type_name((ctn_joint_type)d->type);
    int a = ctn__body_index(w, d->body_a, "joint.body_a", 0);
    int b = a < 0 ? -2 : ctn__body_index(w, d->body_b, "joint.body_b", 1);
    if (a < 0 || b < -1) return w->handle_status;
    if (a == b)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "joint.body_b: %s joint connects body %lld to itself", name, (long long)ctn_body_id_to_int(d->body_a));
    if (!finite3(d->anchor_a)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "joint.anchor_a: non-finite component");
    if (!finite3(d->anchor_b)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "joint.anchor_b: non-finite component");
    for (int s = 0; s < 2; ++s) {
        const double *anchor = s ? d->anchor_b : d->anchor_a;
        int k = ctn__length_bad(anchor, 3);
        if (k >= 0)
            return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "joint.anchor_%c[%d]: %g m exceeds CTN_MAX_LENGTH (%g m)", s ? 'b' : 'a', k, anchor[k],
                             CTN_MAX_LENGTH);
    }
    if (!isfinite(d->rest_length)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "joint.rest_length: %g is not finite", d->rest_length);
    if (!isfinite(d->compliance)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "joint.compliance: %g is not finite", d->compliance);
    if (!isfinite(d->damping_time))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "joint.damping_time: %g is not finite", d->damping_time);
    for (int s = 0; s < 2 && ctn__joint_kind_has(d->type, CTN_JK_NO_ATTACH); ++s) {
        int i = s ? b : a;
        if (i >= 0 && (ctn__attach_link_of(w, i) >= 0 || ctn__attach_group_of(w, i) >= 0))
            return ctn__fail(w, CTN_ERR_UNSUPPORTED, "joint.body_%c: body %lld is attached or carries attached bodies; %s joints on them are not supported",
                             s ? 'b' : 'a', (long long)ctn_body_id_to_int(s ? d->body_b : d->body_a), name);
    }
    int rigid_needed = ctn__joint_kind_has(d->type, CTN_JK_ANGULAR);
    if (rigid_needed && (is_particle(w, a) || is_particle(w, b)))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "joint.type: a %s joint needs rigid bodies, body %lld is a particle", name,
                         is_particle(w, a) ? (long long)ctn_body_id_to_int(d->body_a) : (long long)ctn_body_id_to_int(d->body_b));
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;

    ctn_joint_def j;
    memset(&j, 0, sizeof j);
    j.type = (int)d->type;
    j.a = a;
    j.b = b;
    j.rows = ctn_joint_row_count((int)d->type);
    /* particles have no orientation: their anchor is the particle itself */
    j.anchor_a = is_particle(w, a) ? ctn_v3_zero() : ctn_v3_make((float)d->anchor_a[0], (float)d->anchor_a[1], (float)d->anchor_a[2]);
    j.anchor_b = is_particle(w, b) ? ctn_v3_zero() : ctn_v3_make((float)d->anchor_b[0], (float)d->anchor_b[1], (float)d->anchor_b[2]);
    j.compliance = (float)(d->compliance >= 0.0 ? d->compliance : w->desc.compliance);
    j.damping_time = (float)(d->damping_time >= 0.0 ? d->damping_time : w->desc.damping_time);
    j.rel_q = ctn_quat_identity();
    /* anchor separation as the kernels measure it (ctn_joint_rows), from the two-float positions */
    ctn_pose posa = pose_of(w, a), posb = pose_of(w, b);
    float dist = ctn_length(ctn_point_sep(posa.p, posa.p_lo, ctn_quat_rotate(posa.q, j.anchor_a), posb.p, posb.p_lo,
                                          ctn_quat_rotate(posb.q, j.anchor_b)));

    if (d->implicit && !ctn__joint_kind_has(d->type, CTN_JK_FORCE))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "joint.implicit: %d on a %s joint; only springs have an implicit form", d->implicit, name);
    /* the type's own fields and checks (axes, ratio, rest length): its `from_desc` hook in the table */
    if (kind->from_desc) {
        st = kind->from_desc(w, d, dist, &j);
        if (st != CTN_OK) return st;
    }
    /* rest orientation: the zero of the hinge and twist angles (limits and motors), the fixed joint's target */
    if (ctn__joint_kind_has(d->type, CTN_JK_ANGULAR) && !ctn__joint_kind_has(d->type, CTN_JK_RATIO)) /* not gears */
        j.rel_q = ctn_quat_mul(ctn_quat_conj(w->pose[a].q), pose_of(w, b).q);

    /* the checks every stored joint passes, the checkpoint loader's too (joint_validate.c) */
    st = ctn__joint_validate(w, &j, -1);
    if (st != CTN_OK) return st;
    int id;
    st = ctn__joint_insert(w, &j, &id);
    if (st != CTN_OK) return st;
    if (out) *out = ctn__joint_handle(w, id);
    return CTN_OK;
}

int ctn__joint_lookup(const ctn_world *w, ctn_joint_id id) {
    int32_t j = id.index1 - 1;
    if (id.index1 <= 0 || id.world0 != (uint16_t)w->tag || j >= w->joint_count || id.generation != ctn__joint_gen(w, j) ||
        !w->joint_alive[j])
        return -1;
    return j;
}

int ctn__joint_index(ctn_world *w, ctn_joint_id id, const char *field) {
    int32_t j = id.index1 - 1;
    long long h = (long long)ctn_joint_id_to_int(id);
    if (id.index1 <= 0) {
        w->handle_status = ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: the null joint handle where a joint handle is needed", field);
        return -1;
    }
    if (id.world0 != (uint16_t)w->tag) {
        w->handle_status = ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: joint handle %lld belongs to world %d, not to this world (%d)",
                                     field, h, (int)id.world0, w->tag);
        return -1;
    }
    w->handle_status = CTN_ERR_NOT_FOUND;
    if (j >= w->joint_count) {
        ctn__fail(w, CTN_ERR_NOT_FOUND, "%s: joint handle %lld (index %d) is not a joint of this world (%d slots)", field, h, (int)j,
                  w->joint_count);
        return -1;
    }
    if (id.generation != ctn__joint_gen(w, j)) {
        ctn__fail(w, CTN_ERR_NOT_FOUND, "%s: joint handle %lld (index %d, generation %d) is stale: that joint was removed%s", field, h,
                  (int)j, (int)id.generation, w->joint_alive[j] ? " and its slot reused" : "");
        return -1;
    }
    if (!w->joint_alive[j]) {
        ctn__fail(w, CTN_ERR_NOT_FOUND, "%s: joint handle %lld (index %d) names a free slot", field, h, (int)j);
        return -1;
    }
    return j;
}

ctn_joint_id ctn_joint_id_in(const ctn_world *w, ctn_joint_id id) {
    if (w && id.index1 > 0) id.world0 = (uint16_t)w->tag;
    return id;
}

int ctn_joint_is_valid(const ctn_world *w, ctn_joint_id id) { return w && ctn__joint_lookup(w, id) >= 0; }

ctn_joint_id ctn_joint_id_from_int(const ctn_world *w, int64_t v) {
    if (!w || v < 0 || (v & 0xffffffff) >= 0x7fffffff || (v >> 32) > 0xffff) return CTN_NULL_JOINT;
    ctn_joint_id id = {(int32_t)(v & 0xffffffff) + 1, (uint16_t)w->tag, (uint16_t)(v >> 32)};
    return id;
}

ctn_status ctn_joint_remove(ctn_world *w, ctn_joint_id handle) {
    CTN__ENTER(w);
    int id = ctn__joint_index(w, handle, "ctn_joint_remove");
    if (id < 0) return w->handle_status;
    if (ctn__jflags(w, id) & CTN_JF_AUTO)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT,
                         "ctn_joint_remove: joint %lld is a contact of the built-in collision detection, which removes it", (long long)ctn_joint_id_to_int(handle));
    ctn_status st = ctn__sync(w);
    if (st == CTN_OK) st = ctn__joint_gens(w); /* the removal raises the slot's generation */
    if (st != CTN_OK) return st;
    ctn__joint_kill(w, id);
    return CTN_OK;
}

int ctn_world_joint_count(const ctn_world *w) { return w ? w->live_joints : 0; }

ctn_status ctn_joint_get_impulse(ctn_world *w, ctn_joint_id handle, double impulse[6], int *rows) {
    CTN__ENTER(w);
    if (!impulse) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_joint_get_impulse: impulse is NULL");
    int id = ctn__joint_index(w, handle, "ctn_joint_get_impulse");
    if (id < 0) return w->handle_status;
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    /* while the topology is dirty the impulses of the last step are still in place under the old slots (the
     * next build carries them over): read them there, so that a step which fails after rebuilding the
     * topology does not seem to change them (tests/test_alloc_failures.c). Its slot in the last layout, or -1 (a
     * joint inserted since: ctn__joint_insert), as the build's carry-over reads it */
    int slot = ctn__joint_layout_slot(w, id);
    if (w->topology_dirty && (slot < 0 || slot >= w->topo.joint_count)) slot = -1;
    for (int k = 0; k < 6; ++k) impulse[k] = slot >= 0 ? CTN_LAM(w->topo.lambda, w->topo.stride, slot, k) : 0.0;
    if (rows) *rows = ctn__jcore(w, id)->rows;
    return CTN_OK;
}

ctn_status ctn_joint_set_rest_length(ctn_world *w, ctn_joint_id handle, double rest_length) {
    CTN__ENTER(w);
    int id = ctn__joint_index(w, handle, "ctn_joint_set_rest_length");
    if (id < 0) return w->handle_status;
    ctn_joint_def stored = ctn__jdef_get(w, id), *j = &stored;
    const ctn_joint_kind *k = ctn__joint_kind(j->type);
    if (!(k->flags & CTN_JK_REST_LENGTH)) {
        char names[160];
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_joint_set_rest_length: joint %lld is a %s joint, not a %s joint",
                         (long long)ctn_joint_id_to_int(handle), k->name, ctn__joint_kind_names(CTN_JK_REST_LENGTH, names, sizeof names));
    }
    if (!(rest_length >= 0.0) || !isfinite(rest_length) || rest_length > 1e30)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_joint_set_rest_length: rest_length %g must be finite and >= 0", rest_length);
    /* the type's own bounds (a distance joint keeps its anchors apart): its `check` hook on the changed copy */
    ctn_joint_def changed = *j;
    changed.rest_length = (float)rest_length;
    if (k->check && k->check(w, &changed, "ctn_joint_set_rest_length") != CTN_OK) return CTN_ERR_INVALID_ARGUMENT;
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    ctn__jcore(w, id)->rest_length = (float)rest_length; /* a field of the compact record */
    w->topology_dirty = 1; /* the solver copies of the definition (topo.defs, springs, device) are refreshed */
    return CTN_OK;
}

/* ---- joints by slot (also for contacts: host/collide/contact.c, host/collide/collide.c) --------------------------- */

ctn_status ctn__joint_slot_take(ctn_world *w, int *slot) {
    if (w->joint_free_count > 0 && !w->append_slots) {
        *slot = w->joint_free[--w->joint_free_count];
        return CTN_OK;
    }
    ctn_status st = joint_reserve(w, w->joint_count + 1);
    if (st != CTN_OK) return st;
    *slot = w->joint_count++;
    w->joint_pos[*slot] = w->joint_at[*slot] = *slot; /* a fresh slot is stored at the end */
    if (w->joint_gen) w->joint_gen[*slot] = 0;
    w->joint_alive[*slot] = 0;
    return CTN_OK;
}

/* The slot generations, all 0, where the world holds none; 0 out of memory. */
static int gens_made(ctn_world *w) {
    if (!w->joint_gen) w->joint_gen = ctn__calloc(w->joint_capacity > 0 ? (size_t)w->joint_capacity : 1, sizeof *w->joint_gen);
    return w->joint_gen != NULL;
}

ctn_status ctn__joint_gens(ctn_world *w) {
    if (gens_made(w)) return CTN_OK;
    return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for the generations of %d joints", w->joint_count);
}

ctn_status ctn__joint_slots_hold(ctn_world *w) {
    if (w->joint_slot_held) return CTN_OK;
    if (!w->joint_slot) {
        size_t cap = w->joint_capacity > 0 ? (size_t)w->joint_capacity : 1;
        w->joint_slot = ctn__malloc(cap * sizeof *w->joint_slot);
        if (!w->joint_slot) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for the joint slot map (%zu joints)", cap);
    }
    for (int j = 0; j < w->joint_count; ++j) w->joint_slot[j] = ctn__joint_layout_slot(w, j); /* from the positions */
    w->joint_slot_held = 1;
    return CTN_OK;
}

ctn_status ctn__joint_insert(ctn_world *w, const ctn_joint_def *def, int *slot) {
    int id, count = w->joint_count;
    /* a built-in contact is removed by the collision detection inside a step, where nothing may fail: the
     * generations it will raise first */
    if (def->flags & CTN_JF_AUTO) {
        ctn_status made = ctn__joint_gens(w);
        if (made != CTN_OK) return made;
    }
    /* a new joint starts cold (no warm start from a reused slot's previous joint): where the position of the slot
     * ctn__joint_slot_take gives (the free stack's top, else a fresh one at the end, which a truncation may have left
     * inside the layout) is in the layout, which would then name it, the layout's slots are kept explicitly first */
    int reuse = w->joint_free_count > 0 && !w->append_slots;
    if ((reuse ? w->joint_pos[w->joint_free[w->joint_free_count - 1]] : w->joint_count) < w->topo.joint_count) {
        ctn_status held = ctn__joint_slots_hold(w);
        if (held != CTN_OK) return held;
    }
    ctn_status st = ctn__joint_slot_take(w, &id);
    if (st != CTN_OK) return st;
    st = ctn__jdef_set(w, id, def); /* fails only creating the extras array */
    if (st != CTN_OK) { /* the slot goes back: a fresh one off the end, a reused one onto the free stack */
        if (w->joint_count > count) w->joint_count = count;
        else w->joint_free_count++;
        return st;
    }
    w->joint_alive[id] = 1;
    if (w->joint_slot_held) w->joint_slot[id] = -1; /* not in the layout (else its position says so) */
    if (w->body_refs) {
        w->body_refs[def->a]++;
        if (def->b >= 0) w->body_refs[def->b]++;
    }
    w->live_joints++;
    w->topology_dirty = 1;
    *slot = id;
    return CTN_OK;
}

void ctn__joint_kill(ctn_world *w, int id) {
    w->joint_alive[id] = 0;
    ctn__joint_name_clear(w, id); /* its name goes with it */
    ctn__curve_forget(w, id); /* a polyline's vertices go with its joint */
    if (w->body_refs) {
        w->body_refs[ctn__jcore(w, id)->a]--;
        if (ctn__jcore(w, id)->b >= 0) w->body_refs[ctn__jcore(w, id)->b]--;
    }
    /* modulo 65536: the handle's generation. The array exists (made by the callers that can fail) unless out
     * of memory here, where the slot is not offered again: a dead slot never reused keeps its handles stale */
    if (gens_made(w)) {
        w->joint_gen[id] = (uint16_t)(w->joint_gen[id] + 1);
        w->joint_free[w->joint_free_count++] = id; /* the stack has room for every slot */
    }
    w->live_joints--;
    w->topology_dirty = 1;
}
