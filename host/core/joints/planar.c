/* The planar joint (kernels/ctn_joint_rows.h: ctn_rows_planar): 3 rows, the anchors in one plane across
 * the axis, the axes kept parallel; two translations and the turn about the axis free. Its entry of the
 * joint-type table (core/joint_kinds.h); the axis hooks of every one-axis type (host/core/joint.c,
 * joint_validate.c). */
#include "core/joint_kinds.h"

static const char *const keys[] = {"type", "name", "a", "b", "anchor_a", "anchor_b", "pivot", "axis", "compliance", "damping_time",
                                   "axis_a", "axis_b", "rest_orientation", NULL};

const ctn_joint_kind ctn__joint_kind_planar = {
    .name = "planar",
    .flags = CTN_JK_ANGULAR | CTN_JK_PIVOT | CTN_JK_AXIS | CTN_JK_SCENE | CTN_JK_JOINT_ADD | CTN_JK_ANGLE,
    .from_desc = ctn__joint_def_axes,
    .check = ctn__joint_check_axes,
    .scene_keys = keys,
};
