/* The checks every stored joint definition passes, whoever made it: ctn_joint_add runs them on the
 * definition it built from a ctn_joint_desc before inserting it, and the checkpoint loader on every live
 * joint it reads (host/io/checkpoint.c), so that a checkpoint cannot hold a joint ctn_joint_add refuses.
 * The common checks are here; the per-type ones are the `check` hooks of the joint-type table
 * (each type's file in host/core/joints/). Messages name the joint, the field and the value. */
#include "core/joint_kinds.h"
#include "core/world.h"

#include <math.h>
#include <stdio.h>

static int finite_v3(ctn_v3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

static int is_particle(const ctn_world *w, int b) { return b >= 0 && (w->props[b].flags & CTN_BODY_FLAG_PARTICLE); }

/* Unit within float rounding: ctn_joint_add stores a normalised axis rotated into a body frame. */
static ctn_status unit(ctn_world *w, const char *where, const char *field, ctn_v3 v) {
    float n = ctn_length(v);
    if (!finite_v3(v) || !(fabsf(n - 1.0f) <= 1e-3f))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: joint.%s: (%g, %g, %g) is not a unit axis (length %g)", where, field, (double)v.x,
                         (double)v.y, (double)v.z, (double)n);
    return CTN_OK;
}

/* The `check` hook of the types with one axis or two (hinge, prismatic, cone_twist, universal; gears
 * after their ratio): unit axes in both bodies' frames. */
ctn_status ctn__joint_check_axes(ctn_world *w, const ctn_joint_def *j, const char *where) {
    ctn_status st = unit(w, where, "axis (body a)", j->axis_a);
    return st == CTN_OK ? unit(w, where, "axis (body b)", j->axis_b) : st;
}

ctn_status ctn__joint_validate(ctn_world *w, const ctn_joint_def *j, int index) {
    const ctn_joint_kind *k = ctn__joint_kind(j->type);
    char where[64];
    if (index >= 0)
        snprintf(where, sizeof where, "joint %d (%s)", index, k ? k->name : "?");
    else
        snprintf(where, sizeof where, "joint (%s)", k ? k->name : "?");
    if (!k) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: joint.type: unknown joint type %d", where, j->type);
    if (j->a < 0 || j->a >= w->body_count || j->b < -1 || j->b >= w->body_count)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: joint.body_a / body_b: slots %d, %d are not bodies of this world (%d slots)", where,
                         j->a, j->b, w->body_count);
    if (j->a == j->b) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: joint.body_b: connects body slot %d to itself", where, j->a);
    if ((k->flags & CTN_JK_TWO_BODIES) && j->b < 0)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: joint.body_b: the world; a %s joint couples two bodies", where, k->name);
    if ((k->flags & CTN_JK_ANGULAR) && (is_particle(w, j->a) || is_particle(w, j->b)))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: joint.type: a %s joint needs rigid bodies, body slot %d is a particle", where,
                         k->name, is_particle(w, j->a) ? j->a : j->b);
    static const char *const vname[4] = {"anchor_a", "anchor_b", "axis_a", "axis_b"};
    const ctn_v3 *v[4] = {&j->anchor_a, &j->anchor_b, &j->axis_a, &j->axis_b};
    for (int s = 0; s < 4; ++s)
        if (!finite_v3(*v[s]))
            return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: joint.%s: (%g, %g, %g) has a non-finite component", where, vname[s], (double)v[s]->x,
                             (double)v[s]->y, (double)v[s]->z);
    /* the rest orientation (a curve's window vertex in its vector part): finite as ctn_joint_add stores it */
    if (!isfinite(j->rel_q.w) || !isfinite(j->rel_q.x) || !isfinite(j->rel_q.y) || !isfinite(j->rel_q.z))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: joint.rest_orientation: (%g, %g, %g, %g) has a non-finite component", where,
                         (double)j->rel_q.w, (double)j->rel_q.x, (double)j->rel_q.y, (double)j->rel_q.z);
    static const char *const sname[6] = {"rest_length", "compliance", "damping_time", "stiffness", "damping", "lo / hi"};
    const float sv[7] = {j->rest_length, j->compliance, j->damping_time, j->stiffness, j->damping, j->lo, j->hi};
    for (int s = 0; s < 7; ++s)
        if (!isfinite(sv[s]))
            return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: joint.%s: %g is not finite", where, sname[s < 6 ? s : 5], (double)sv[s]);
    if (k->flags & CTN_JK_JOINT_ADD) {
        if (!(j->compliance >= 0.0f))
            return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: joint.compliance: %g must be >= 0", where, (double)j->compliance);
        for (int s = 0; s < 2; ++s) {
            const ctn_v3 *a = v[s];
            if (!(fabsf(a->x) <= CTN_MAX_LENGTH && fabsf(a->y) <= CTN_MAX_LENGTH && fabsf(a->z) <= CTN_MAX_LENGTH))
                return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: joint.%s: (%g, %g, %g) m exceeds CTN_MAX_LENGTH (%g m)", where, vname[s],
                                 (double)a->x, (double)a->y, (double)a->z, CTN_MAX_LENGTH);
        }
    }
    return k->check ? k->check(w, j, where) : CTN_OK;
}
