/* Joint limits, motors and ropes, and the joint coordinates they act on (hinge and twist angles, slider
 * position, swing angle). The rows they add are built in kernels/ctn_rows.h (ctn_joint_rows). */
#include "core/joint_kinds.h"
#include "core/world.h"

#include <math.h>

#define TYPE_BIT(t) (1 << (t))

static const double PI = 3.14159265358979323846;

/* The slot of a live joint whose type is in `types` (a mask of TYPE_BIT) in *slot, and the host arrays
 * brought up to date; `names` lists the accepted types for the message. */
static ctn_status joint_of_types(ctn_world *w, ctn_joint_id handle, int types, const char *names, const char *what, int *slot) {
    int id = ctn__joint_index(w, handle, what);
    if (id < 0) return w->handle_status;
    ctn_joint_def d = ctn__jdef_get(w, id);
    int type = ctn__joint_type(&d);
    if (!(TYPE_BIT(type) & types))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: joint %lld is a %s joint, not a %s joint", what, (long long)ctn_joint_id_to_int(handle),
                         ctn_joint_type_name((ctn_joint_type)type), names);
    *slot = id;
    return ctn__sync(w);
}

/* The slot of a live joint whose type has the option or coordinate `flag` of the joint-type table
 * (CTN_JK_LIMITS, _MOTOR, _SWING, _ROPE, _ANGLE, _AXES_ANGLE, _SLIDES), as joint_of_types; the message
 * lists the types that have it. */
static ctn_status joint_with(ctn_world *w, ctn_joint_id handle, unsigned flag, const char *what, int *slot) {
    int mask = 0;
    char names[160];
    for (int t = 0; t < CTN_JT_COUNT; ++t)
        if (ctn__joint_kind_has(t, flag)) mask |= TYPE_BIT(t);
    return joint_of_types(w, handle, mask, ctn__joint_kind_names(flag, names, sizeof names), what, slot);
}

/* Stores the changed definition j of slot id; a limit or motor adds a row (ctn_joint_def_rows), the row count
 * being part of the layout. Fails (nothing changed) only when the first extras array cannot be made. */
static ctn_status rows_changed(ctn_world *w, int id, ctn_joint_def *j) {
    j->rows = ctn_joint_def_rows(*j);
    ctn_status st = ctn__jdef_set(w, id, j);
    if (st == CTN_OK) w->topology_dirty = 1; /* the solver copies of the definition (topo.defs, device) are refreshed */
    return st;
}

static ctn_pose pose_of(const ctn_world *w, int b) { return b < 0 ? ctn__world_pose() : w->pose[b]; }

ctn_status ctn_joint_set_limits(ctn_world *w, ctn_joint_id handle, int enabled, double lower, double upper) {
    CTN__ENTER(w);
    int id = -1;
    ctn_status st = joint_with(w, handle, CTN_JK_LIMITS, "ctn_joint_set_limits", &id);
    if (st != CTN_OK) return st;
    ctn_joint_def stored = ctn__jdef_get(w, id), *j = &stored;
    if (ctn__joint_kind_has(j->type, CTN_JK_SLIDES)) {
        if (enabled && (!isfinite(lower) || !isfinite(upper) || lower > upper || fabs(lower) > 1e30 || fabs(upper) > 1e30))
            return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_joint_set_limits: need finite lower <= upper (m), got [%g, %g]", lower, upper);
    } else if (enabled && (!isfinite(lower) || !isfinite(upper) || lower > upper || lower < -PI || upper > PI)) {
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_joint_set_limits: need -pi <= lower <= upper <= pi, got [%g, %g]", lower, upper);
    }
    if (enabled) {
        j->flags |= CTN_JF_LIMIT;
        j->lo = (float)lower;
        j->hi = (float)upper;
    } else {
        j->flags &= ~CTN_JF_LIMIT;
        j->lo = j->hi = 0.0f;
    }
    return rows_changed(w, id, j);
}

ctn_status ctn_joint_set_motor(ctn_world *w, ctn_joint_id handle, int enabled, double speed, double max_torque) {
    CTN__ENTER(w);
    int id = -1;
    ctn_status st = joint_with(w, handle, CTN_JK_MOTOR, "ctn_joint_set_motor", &id);
    if (st != CTN_OK) return st;
    if (enabled && (!isfinite(speed) || !isfinite(max_torque) || max_torque < 0.0 || fabs(speed) > 1e30 || max_torque > 1e30))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_joint_set_motor: speed %g and max_torque %g must be finite, max_torque >= 0",
                         speed, max_torque);
    ctn_joint_def stored = ctn__jdef_get(w, id), *j = &stored;
    if (enabled) {
        j->flags |= CTN_JF_MOTOR;
        j->stiffness = (float)speed;
        j->damping = (float)max_torque;
    } else {
        j->flags &= ~CTN_JF_MOTOR;
        j->stiffness = j->damping = 0.0f;
    }
    return rows_changed(w, id, j);
}

ctn_status ctn_joint_set_swing_limit(ctn_world *w, ctn_joint_id handle, int enabled, double swing) {
    CTN__ENTER(w);
    int id = -1;
    ctn_status st = joint_with(w, handle, CTN_JK_SWING, "ctn_joint_set_swing_limit", &id);
    if (st != CTN_OK) return st;
    if (enabled && !(swing >= 0.0 && swing <= PI))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_joint_set_swing_limit: swing %g must be within [0, pi]", swing);
    ctn_joint_def stored = ctn__jdef_get(w, id), *j = &stored;
    if (enabled) {
        j->flags |= CTN_JF_SWING;
        j->rest_length = (float)swing; /* a cone-twist has no rest length: the field holds the cone angle */
    } else {
        j->flags &= ~CTN_JF_SWING;
        j->rest_length = 0.0f;
    }
    return rows_changed(w, id, j);
}

ctn_status ctn_joint_set_rope(ctn_world *w, ctn_joint_id handle, int enabled) {
    CTN__ENTER(w);
    int id = -1;
    ctn_status st = joint_with(w, handle, CTN_JK_ROPE, "ctn_joint_set_rope", &id);
    if (st != CTN_OK) return st;
    ctn_joint_def j = ctn__jdef_get(w, id);
    if (enabled) j.flags |= CTN_JF_ROPE;
    else j.flags &= ~CTN_JF_ROPE;
    st = ctn__jdef_set(w, id, &j); /* a rope's flag is an extra: the first one creates the array */
    if (st == CTN_OK) w->topology_dirty = 1;
    return st;
}

ctn_status ctn_joint_get_angle(ctn_world *w, ctn_joint_id handle, double *angle) {
    CTN__ENTER(w);
    if (!angle) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_joint_get_angle: angle is NULL");
    int id = -1;
    ctn_status st = joint_with(w, handle, CTN_JK_ANGLE, "ctn_joint_get_angle", &id);
    if (st != CTN_OK) return st;
    ctn_joint_def stored = ctn__jdef_get(w, id);
    const ctn_joint_def *j = &stored;
    *angle = ctn_hinge_angle(*j, w->pose[j->a], pose_of(w, j->b));
    return CTN_OK;
}

ctn_status ctn_joint_get_swing(ctn_world *w, ctn_joint_id handle, double *angle) {
    CTN__ENTER(w);
    if (!angle) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_joint_get_swing: angle is NULL");
    int id = -1;
    ctn_status st = joint_with(w, handle, CTN_JK_AXES_ANGLE, "ctn_joint_get_swing", &id);
    if (st != CTN_OK) return st;
    ctn_joint_def stored = ctn__jdef_get(w, id);
    const ctn_joint_def *j = &stored;
    *angle = ctn_swing_angle(*j, w->pose[j->a], pose_of(w, j->b));
    return CTN_OK;
}

ctn_status ctn_joint_get_translation(ctn_world *w, ctn_joint_id handle, double *position) {
    CTN__ENTER(w);
    if (!position) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_joint_get_translation: position is NULL");
    int id = -1;
    ctn_status st = joint_with(w, handle, CTN_JK_SLIDES, "ctn_joint_get_translation", &id);
    if (st != CTN_OK) return st;
    ctn_joint_def stored = ctn__jdef_get(w, id);
    const ctn_joint_def *j = &stored;
    *position = ctn_prismatic_position(*j, w->pose[j->a], pose_of(w, j->b));
    return CTN_OK;
}
