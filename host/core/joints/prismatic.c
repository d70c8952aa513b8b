/* The prismatic joint, a slider (kernels/ctn_joint_rows.h: ctn_rows_prismatic): 5 rows, body a moves along
 * the axis only, the orientation locked; limits and a motor on the translation. Its entry of the joint-type
 * table (core/joint_kinds.h); the axis hooks of every one-axis type (host/core/joint.c, joint_validate.c). */
#include "core/joint_kinds.h"

static const char *const keys[] = {"type", "name", "a", "b", "anchor_a", "anchor_b", "pivot", "axis", "compliance", "damping_time",
                                   "limits", "motor", "axis_a", "axis_b", "rest_orientation", NULL};

const ctn_joint_kind ctn__joint_kind_prismatic = {
    .name = "prismatic",
    .flags = CTN_JK_ANGULAR | CTN_JK_PIVOT | CTN_JK_AXIS | CTN_JK_SCENE | CTN_JK_JOINT_ADD | CTN_JK_LIMITS | CTN_JK_MOTOR |
             CTN_JK_SLIDES,
    .from_desc = ctn__joint_def_axes,
    .check = ctn__joint_check_axes,
    .scene_keys = keys,
};
