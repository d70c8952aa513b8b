/* The universal (cardan, Hooke) joint (kernels/ctn_joint_rows.h: ctn_rows_universal): 4 rows, ball + the
 * cross axis of body a (`axis`) kept perpendicular to that of body b (`axis2`). Its entry of the
 * joint-type table (core/joint_kinds.h) and its `from_desc` hook; its check is every axis type's
 * (joint_validate.c). */
#include "core/joint_kinds.h"
#include "core/world.h"

static const char *const keys[] = {"type", "name", "a", "b", "anchor_a", "anchor_b", "pivot", "axis", "axis2", "compliance",
                                   "damping_time", "axis_a", "axis_b", "rest_orientation", NULL};

/* from_desc: two cross axes, `axis` in body a and `axis2` (made exactly perpendicular) in body b. */
static ctn_status from_desc(ctn_world *w, const ctn_joint_desc *d, float dist, ctn_joint_def *j) {
    (void)dist;
    ctn_v3 ax, ax2;
    ctn_status st = ctn__joint_unit_axis(w, d->axis, "joint.axis", &ax);
    if (st == CTN_OK) st = ctn__joint_cross_axis(w, d->axis2, ax, "a universal joint's cross axes are", &ax2);
    if (st != CTN_OK) return st;
    j->axis_a = ctn_quat_rotate_inv(w->pose[j->a].q, ax);
    j->axis_b = j->b < 0 ? ax2 : ctn_quat_rotate_inv(w->pose[j->b].q, ax2);
    return CTN_OK;
}

const ctn_joint_kind ctn__joint_kind_universal = {
    .name = "universal",
    .flags = CTN_JK_ANGULAR | CTN_JK_PIVOT | CTN_JK_AXIS | CTN_JK_SCENE | CTN_JK_JOINT_ADD | CTN_JK_AXIS2 | CTN_JK_POINT_ROWS |
             CTN_JK_AXES_ANGLE,
    .from_desc = from_desc,
    .check = ctn__joint_check_axes,
    .scene_keys = keys,
};
