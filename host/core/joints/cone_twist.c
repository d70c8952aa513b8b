/* The cone-twist joint (kernels/ctn_joint_rows.h: ctn_rows_cone_twist): 3 rows, ball; a swing cone and
 * twist limits as options; the ragdoll joint. Its entry of the joint-type table (core/joint_kinds.h); the
 * axis hooks of every one-axis type (host/core/joint.c, joint_validate.c). */
#include "core/joint_kinds.h"

static const char *const keys[] = {"type", "name", "a", "b", "anchor_a", "anchor_b", "pivot", "axis", "compliance", "damping_time",
                                   "limits", "swing_limit", "axis_a", "axis_b", "rest_orientation", NULL};

const ctn_joint_kind ctn__joint_kind_cone_twist = {
    .name = "cone_twist",
    .flags = CTN_JK_ANGULAR | CTN_JK_PIVOT | CTN_JK_AXIS | CTN_JK_SCENE | CTN_JK_JOINT_ADD | CTN_JK_LIMITS | CTN_JK_SWING |
             CTN_JK_POINT_ROWS | CTN_JK_ANGLE | CTN_JK_AXES_ANGLE,
    .from_desc = ctn__joint_def_axes,
    .check = ctn__joint_check_axes,
    .scene_keys = keys,
};
