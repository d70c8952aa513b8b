/* Read-back of bodies and joints: what their descriptions and setters put in, as the world holds it
 * (float32 where the solver stores float32, so a value may differ from the one set in its last bits). */
#include "core/joint_kinds.h"
#include "core/world.h"

#include <string.h>

static void v3_out(ctn_v3 v, double out[3]) { out[0] = v.x, out[1] = v.y, out[2] = v.z; }

ctn_status ctn_body_get_desc(ctn_world *w, ctn_body_id body, ctn_body_desc *out) {
    CTN__ENTER(w);
    if (!out) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_body_get_desc: out is NULL");
    int i = ctn__body_index(w, body, "ctn_body_get_desc", 0);
    if (i < 0) return w->handle_status;
    ctn_body_state s;
    ctn_status st = ctn_body_get_state(w, body, &s); /* brings the host arrays up to date */
    if (st != CTN_OK) return st;
    const ctn_props *pr = &w->props[i];
    memset(out, 0, sizeof *out);
    out->type = (pr->flags & CTN_BODY_FLAG_DYNAMIC) ? CTN_BODY_DYNAMIC : (pr->flags & CTN_BODY_FLAG_KINEMATIC) ? CTN_BODY_KINEMATIC : CTN_BODY_STATIC;
    out->particle = (pr->flags & CTN_BODY_FLAG_PARTICLE) != 0;
    if (out->type == CTN_BODY_DYNAMIC) {
        out->mass = 1.0 / (double)w->inertia[i].inv_mass;
        if (!out->particle) {
            out->inertia[0] = 1.0 / (double)pr->inv_inertia_body.x;
            out->inertia[1] = 1.0 / (double)pr->inv_inertia_body.y;
            out->inertia[2] = 1.0 / (double)pr->inv_inertia_body.z;
        }
    }
    memcpy(out->position, s.position, sizeof s.position);
    memcpy(out->orientation, s.orientation, sizeof s.orientation);
    memcpy(out->velocity, s.velocity, sizeof s.velocity);
    memcpy(out->angular_velocity, s.angular_velocity, sizeof s.angular_velocity);
    return CTN_OK;
}

ctn_status ctn_body_get_force(ctn_world *w, ctn_body_id body, double force[3], double torque[3]) {
    CTN__ENTER(w);
    if (!force || !torque) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_body_get_force: %s is NULL", force ? "torque" : "force");
    int i = ctn__body_index(w, body, "ctn_body_get_force", 0);
    if (i < 0) return w->handle_status;
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    ctn_body_force f = ctn__body_force_get(w, i);
    v3_out(f.force, force);
    v3_out(f.torque, torque);
    return CTN_OK;
}

/* The live joint `joint` after a sync, or NULL with the reason recorded (*st). */
static const ctn_joint_def *joint_of(ctn_world *w, ctn_joint_id joint, const char *what, ctn_status *st, ctn_joint_def *buf) {
    int j = ctn__joint_index(w, joint, what);
    if (j < 0) {
        *st = w->handle_status;
        return NULL;
    }
    *st = ctn__sync(w);
    if (*st != CTN_OK) return NULL;
    *buf = ctn__jdef_get(w, j);
    return buf;
}

ctn_status ctn_joint_get_desc(ctn_world *w, ctn_joint_id joint, ctn_joint_desc *out) {
    CTN__ENTER(w);
    if (!out) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_joint_get_desc: out is NULL");
    ctn_status st;
    ctn_joint_def stored;
    const ctn_joint_def *d = joint_of(w, joint, "ctn_joint_get_desc", &st, &stored);
    if (!d) return st;
    *out = ctn_joint_desc_default((ctn_joint_type)ctn__joint_type(d));
    out->body_a = ctn__body_handle(w, d->a);
    out->body_b = ctn__body_handle(w, d->b);
    v3_out(d->anchor_a, out->anchor_a);
    v3_out(d->anchor_b, out->anchor_b);
    /* the fields the joint-type table (core/joint_kinds.h) says the type stores; no type is named here */
    const unsigned has = ctn__joint_kind(d->type)->flags;
    if (has & (CTN_JK_AXIS | CTN_JK_RATIO)) v3_out(ctn_quat_rotate(w->pose[d->a].q, d->axis_a), out->axis);
    if (has & CTN_JK_AXIS2) v3_out(d->b < 0 ? d->axis_b : ctn_quat_rotate(w->pose[d->b].q, d->axis_b), out->axis2);
    if (has & CTN_JK_RATIO) { /* gear, rack_pinion */
        /* the anchors hold the angle references (kernels/ctn_types.h), not points */
        memset(out->anchor_a, 0, sizeof out->anchor_a);
        memset(out->anchor_b, 0, sizeof out->anchor_b);
        out->ratio = d->stiffness;
        if (d->flags & CTN_JF_RACK_BASE) out->relative = 1, v3_out(d->anchor_b, out->anchor_a); /* the pinion point */
    }
    if (has & CTN_JK_REST_LENGTH) out->rest_length = d->rest_length;
    /* an implicit spring is stored as a distance row; a hinge keeps its motor in the same fields */
    if (ctn__joint_kind_has(ctn__joint_type(d), CTN_JK_FORCE)) out->stiffness = d->stiffness, out->damping = d->damping;
    out->implicit = (d->flags & CTN_JF_IMPLICIT_SPRING) != 0;
    out->compliance = d->compliance;
    out->damping_time = d->damping_time;
    return CTN_OK;
}

/* The live joint whose type has the option `flag` of the joint-type table (CTN_JK_LIMITS and friends), or
 * NULL with the reason recorded; the message lists the types that have it. */
static const ctn_joint_def *joint_with(ctn_world *w, ctn_joint_id joint, unsigned flag, const char *what, ctn_status *st,
                                       ctn_joint_def *buf) {
    const ctn_joint_def *d = joint_of(w, joint, what, st, buf);
    if (d && !ctn__joint_kind_has(ctn__joint_type(d), flag)) {
        char names[160];
        *st = ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: joint %lld is a %s joint, not a %s joint", what, (long long)ctn_joint_id_to_int(joint),
                        ctn_joint_type_name((ctn_joint_type)ctn__joint_type(d)), ctn__joint_kind_names(flag, names, sizeof names));
        return NULL;
    }
    return d;
}

ctn_status ctn_joint_get_limits(ctn_world *w, ctn_joint_id joint, int *enabled, double *lower, double *upper) {
    CTN__ENTER(w);
    if (!enabled || !lower || !upper) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_joint_get_limits: an output pointer is NULL");
    ctn_status st;
    ctn_joint_def stored;
    const ctn_joint_def *d = joint_with(w, joint, CTN_JK_LIMITS, "ctn_joint_get_limits", &st, &stored);
    if (!d) return st;
    *enabled = (d->flags & CTN_JF_LIMIT) != 0;
    *lower = *enabled ? d->lo : 0.0;
    *upper = *enabled ? d->hi : 0.0;
    return CTN_OK;
}

ctn_status ctn_joint_get_motor(ctn_world *w, ctn_joint_id joint, int *enabled, double *speed, double *max_torque) {
    CTN__ENTER(w);
    if (!enabled || !speed || !max_torque) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_joint_get_motor: an output pointer is NULL");
    ctn_status st;
    ctn_joint_def stored;
    const ctn_joint_def *d = joint_with(w, joint, CTN_JK_MOTOR, "ctn_joint_get_motor", &st, &stored);
    if (!d) return st;
    *enabled = (d->flags & CTN_JF_MOTOR) != 0;
    *speed = *enabled ? d->stiffness : 0.0; /* a motor keeps its target speed in `stiffness`, its torque in `damping` */
    *max_torque = *enabled ? d->damping : 0.0;
    return CTN_OK;
}

ctn_status ctn_joint_get_rope(ctn_world *w, ctn_joint_id joint, int *enabled) {
    CTN__ENTER(w);
    if (!enabled) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_joint_get_rope: enabled is NULL");
    ctn_status st;
    ctn_joint_def stored;
    const ctn_joint_def *d = joint_with(w, joint, CTN_JK_ROPE, "ctn_joint_get_rope", &st, &stored);
    if (!d) return st;
    *enabled = (d->flags & CTN_JF_ROPE) != 0;
    return CTN_OK;
}

ctn_status ctn_joint_get_swing_limit(ctn_world *w, ctn_joint_id joint, int *enabled, double *swing) {
    CTN__ENTER(w);
    if (!enabled || !swing) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_joint_get_swing_limit: an output pointer is NULL");
    ctn_status st;
    ctn_joint_def stored;
    const ctn_joint_def *d = joint_with(w, joint, CTN_JK_SWING, "ctn_joint_get_swing_limit", &st, &stored);
    if (!d) return st;
    *enabled = (d->flags & CTN_JF_SWING) != 0;
    *swing = *enabled ? d->rest_length : 0.0; /* a cone-twist keeps its cone angle in `rest_length` */
    return CTN_OK;
}
