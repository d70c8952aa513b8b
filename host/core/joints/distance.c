/* The distance joint (kernels/ctn_joint_rows.h: ctn_rows_distance): 1 row, |p_a - p_b| = rest_length; a rope
 * when it only pulls (ctn_joint_set_rope). Its entry of the joint-type table (core/joint_kinds.h) and its
 * hooks. */
#include "core/joint_kinds.h"
#include "core/world.h"

static const char *const keys[] = {"type", "name", "a", "b", "anchor_a", "anchor_b", "rest_length", "compliance", "damping_time", "rope", NULL};

/* from_desc: the rest length (default the anchors' current distance); the row's direction is the anchors'
 * separation, so both must be apart. */
static ctn_status from_desc(ctn_world *w, const ctn_joint_desc *d, float dist, ctn_joint_def *j) {
    j->rest_length = d->rest_length >= 0.0 ? (float)d->rest_length : dist;
    if (j->rest_length < 1e-6f)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "joint.rest_length: %g is too small: a distance joint needs separate anchors (use a ball joint)",
                         (double)j->rest_length);
    if (dist < 1e-6f)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "joint.anchor_b: distance joint anchors coincide (%g m apart); the direction is undefined",
                         (double)dist);
    return CTN_OK;
}

static ctn_status check(ctn_world *w, const ctn_joint_def *j, const char *where) {
    /* the row's direction is the anchors' separation: a distance joint keeps them apart */
    if (!(j->rest_length >= 1e-6f))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: joint.rest_length: %g is too small: a distance joint needs separate anchors", where,
                         (double)j->rest_length);
    return CTN_OK;
}

const ctn_joint_kind ctn__joint_kind_distance = {
    .name = "distance",
    .flags = CTN_JK_SCENE | CTN_JK_JOINT_ADD | CTN_JK_ROPE | CTN_JK_REST_LENGTH,
    .from_desc = from_desc,
    .check = check,
    .scene_keys = keys,
};
