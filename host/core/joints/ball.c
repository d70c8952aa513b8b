/* The ball joint (kernels/ctn_joint_rows.h: ctn_rows_point): 3 rows, p_a = p_b. Its entry of the
 * joint-type table (core/joint_kinds.h): the common fields are all it has. */
#include "core/joint_kinds.h"

static const char *const keys[] = {"type", "name", "a", "b", "anchor_a", "anchor_b", "pivot", "compliance", "damping_time", NULL};

const ctn_joint_kind ctn__joint_kind_ball = {
    .name = "ball",
    .flags = CTN_JK_PIVOT | CTN_JK_SCENE | CTN_JK_JOINT_ADD | CTN_JK_POINT_ROWS,
    .scene_keys = keys,
};
