/* The fixed joint (kernels/ctn_joint_rows.h: ctn_rows_fixed): 6 rows, ball + the relative orientation
 * held at its rest orientation. Its entry of the joint-type table (core/joint_kinds.h). */
#include "core/joint_kinds.h"

static const char *const keys[] = {"type", "name", "a", "b", "anchor_a", "anchor_b", "pivot", "compliance", "damping_time",
                                   "rest_orientation", NULL};

const ctn_joint_kind ctn__joint_kind_fixed = {
    .name = "fixed",
    .flags = CTN_JK_ANGULAR | CTN_JK_PIVOT | CTN_JK_SCENE | CTN_JK_JOINT_ADD | CTN_JK_POINT_ROWS,
    .scene_keys = keys,
};
