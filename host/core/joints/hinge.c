/* The hinge (kernels/ctn_joint_rows.h: ctn_rows_hinge): 5 rows, ball + axis_a parallel to axis_b; limits
 * and a motor on its angle. Its entry of the joint-type table (core/joint_kinds.h); its axis hooks are
 * those of every one-axis type (host/core/joint.c, joint_validate.c). */
#include "core/joint_kinds.h"

static const char *const keys[] = {"type", "name", "a", "b", "anchor_a", "anchor_b", "pivot", "axis", "compliance", "damping_time",
                                   "limits", "motor", "axis_a", "axis_b", "rest_orientation", NULL};

const ctn_joint_kind ctn__joint_kind_hinge = {
    .name = "hinge",
    .flags = CTN_JK_ANGULAR | CTN_JK_PIVOT | CTN_JK_AXIS | CTN_JK_SCENE | CTN_JK_JOINT_ADD | CTN_JK_LIMITS | CTN_JK_MOTOR |
             CTN_JK_POINT_ROWS | CTN_JK_ANGLE,
    .from_desc = ctn__joint_def_axes,
    .check = ctn__joint_check_axes,
    .scene_keys = keys,
};
