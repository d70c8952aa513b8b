/* Gears and rack-and-pinions: the hooks of their entries of the joint-type table (host/core/joints/gear.c,
 * rack_pinion.c): the definition from a desc, the check of a stored one, and between steps the re-centring
 * of their angle references.
 *
 * Their rows (kernels/ctn_joint_rows.h, ctn_rows_gear and ctn_rows_rack_pinion) measure each gear's turn as
 * an angle in (-pi, pi] from a reference direction stored in the joint definition, plus the error at that
 * reference. Before a gear can turn by pi from its reference the world moves the reference to the gear's
 * current spoke and folds the turn into the stored error (ctn_gear_recentre), so the error the rows see is
 * the accumulated, unwrapped one however many turns the gears make. The rows are then refreshed on the
 * backend like any changed definition (the topology is rebuilt). */
#include "core/joint_kinds.h"
#include "core/world.h"

#include <math.h>

/* The `between_steps` hook of both types (host/core/joints/gear.c, rack_pinion.c). */
int ctn__gear_between_steps(ctn_world *w, ctn_joint_def *d) {
    if (!(ctn_gear_turn(*d, w->pose[d->a], w->pose[d->b]) > CTN_GEAR_RECENTRE)) return 0;
    ctn_gear_recentre(d, w->pose[d->a], w->pose[d->b]);
    return 1;
}

/* Runs the table's between-steps hooks; only gears have one, so a world without gears skips the walk. */
ctn_status ctn__gear_track(ctn_world *w) {
    if (w->topo.gear_count <= 0) return CTN_OK;
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    for (int j = 0; j < w->joint_count; ++j) {
        if (!w->joint_alive[j]) continue;
        const ctn_joint_kind *k = ctn__joint_kind(ctn__jcore(w, j)->type);
        if (!k || !k->between_steps) continue;
        ctn_joint_def d = ctn__jdef_get(w, j);
        if (k->between_steps(w, &d)) {
            /* cannot fail: a gear's extras (its axes and ratio) keep the world's extras array */
            (void)ctn__jdef_set(w, j, &d);
            w->topology_dirty = 1; /* the solver copies of the definition (topo.defs, device) are refreshed */
        }
    }
    return CTN_OK;
}

/* Whether body slot i is a side of a live joint of internal type `type`. */
static int has_joint(const ctn_world *w, int i, int type) {
    for (int k = 0; k < w->joint_count; ++k)
        if (w->joint_alive[k] && ctn__jcore(w, k)->type == type && (ctn__jcore(w, k)->a == i || ctn__jcore(w, k)->b == i)) return 1;
    return 0;
}

/* Gear and rack-and-pinion (rows: ctn_rows_gear, ctn_rows_rack_pinion): the axes in the bodies' frames, the
 * ratio, and the angle references at the current poses (ctn_gear_recentre: error 0 at creation). `rack`:
 * body b is a rack on a slider, its axis (axis2) across the pinion's. */
static ctn_status gear_def(ctn_world *w, const ctn_joint_desc *d, int rack, ctn_joint_def *j) {
    const char *name = ctn_joint_type_name(d->type);
    if (j->b < 0)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "joint.body_b: CTN_WORLD; a %s joint couples two bodies (the world does not turn)", name);
    if (!isfinite(d->ratio) || d->ratio == 0.0 || fabs(d->ratio) > 1e6 || fabs(d->ratio) < 1e-6)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "joint.ratio: %g; a %s joint needs a finite ratio with 1e-6 <= |ratio| <= 1e6", d->ratio, name);
    ctn_v3 ax, ax2;
    ctn_status st = ctn__joint_unit_axis(w, d->axis, "joint.axis", &ax);
    if (st == CTN_OK && !rack) st = ctn__joint_unit_axis(w, d->axis2, "joint.axis2", &ax2);
    if (st == CTN_OK && rack) st = ctn__joint_cross_axis(w, d->axis2, ax, "the rack runs across the pinion's axis", &ax2);
    if (st != CTN_OK) return st;
    /* the row couples the two turns only: each body must be held by its own joint (catena.h), else the pair
     * drifts and tumbles with nothing but the gear between them */
    if (!has_joint(w, j->a, CTN_JT_HINGE))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "joint.body_a: body %lld has no hinge; a %s joint needs %s hinged (add the hinge "
                         "before the %s; in a scene file, list it before)", (long long)ctn_body_id_to_int(d->body_a), name, rack ? "the pinion" : "both bodies", name);
    if (!has_joint(w, j->b, rack ? CTN_JT_PRISMATIC : CTN_JT_HINGE))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "joint.body_b: body %lld has no %s; a %s joint needs %s (add it before the %s; in a "
                         "scene file, list it before)", (long long)ctn_body_id_to_int(d->body_b), rack ? "prismatic joint" : "hinge", name,
                         rack ? "the rack on a slider (a prismatic joint)" : "both bodies hinged", name);
    j->axis_a = ctn_quat_rotate_inv(w->pose[j->a].q, ax);
    j->axis_b = ctn_quat_rotate_inv(w->pose[j->b].q, ax2);
    j->stiffness = (float)d->ratio;
    j->anchor_a = j->anchor_b = ctn_v3_zero();
    if (rack && d->relative) { /* the pinion point on its axis rides in anchor_b (kernels/ctn_types.h) */
        if (!isfinite(d->anchor_a[0]) || !isfinite(d->anchor_a[1]) || !isfinite(d->anchor_a[2]))
            return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "joint.anchor_a: non-finite component");
        j->flags |= CTN_JF_RACK_BASE;
        j->anchor_b = ctn_v3_make((float)d->anchor_a[0], (float)d->anchor_a[1], (float)d->anchor_a[2]);
    }
    ctn_gear_recentre(j, w->pose[j->a], w->pose[j->b]);
    j->rest_length = 0.0f; /* the pose at creation is the gear's zero */
    return CTN_OK;
}

/* The `from_desc` hooks (called by ctn_joint_add). */
ctn_status ctn__joint_def_gear(ctn_world *w, const ctn_joint_desc *d, float dist, ctn_joint_def *j) {
    (void)dist;
    return gear_def(w, d, 0, j);
}

ctn_status ctn__joint_def_rack_pinion(ctn_world *w, const ctn_joint_desc *d, float dist, ctn_joint_def *j) {
    (void)dist;
    return gear_def(w, d, 1, j);
}

/* The `check` hook of both (ctn__joint_validate: ctn_joint_add and the checkpoint loader): unit axes and the
 * ratio's bounds. */
ctn_status ctn__joint_check_gear(ctn_world *w, const ctn_joint_def *j, const char *where) {
    ctn_status st = ctn__joint_check_axes(w, j, where);
    if (st != CTN_OK) return st;
    /* the bounds of ctn_joint_add in float: rounding is monotone, so every ratio it accepts passes */
    float r = fabsf(j->stiffness);
    if (!isfinite(j->stiffness) || !(r >= (float)1e-6) || !(r <= (float)1e6))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: joint.ratio: %g; a %s joint needs a finite ratio with 1e-6 <= |ratio| <= 1e6", where,
                         (double)j->stiffness, ctn_joint_type_name((ctn_joint_type)j->type));
    return CTN_OK;
}
