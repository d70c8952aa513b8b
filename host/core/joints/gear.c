/* The gear (kernels/ctn_joint_rows.h: ctn_rows_gear): 1 row, theta_a + ratio theta_b constant. Its entry
 * of the joint-type table (core/joint_kinds.h); its hooks, shared with the rack-and-pinion, are in
 * host/core/joint_gear.c. */
#include "core/joint_kinds.h"

/* "axis" of body a, "axis2" of body b (world frame), "ratio" */
static const char *const keys[] = {"type", "name", "a", "b", "axis", "axis2", "ratio", "compliance", "damping_time", NULL};

const ctn_joint_kind ctn__joint_kind_gear = {
    .name = "gear",
    .flags = CTN_JK_ANGULAR | CTN_JK_TWO_BODIES | CTN_JK_SCENE | CTN_JK_JOINT_ADD | CTN_JK_AXIS2 | CTN_JK_RATIO | CTN_JK_NO_ATTACH,
    .from_desc = ctn__joint_def_gear,
    .check = ctn__joint_check_gear,
    .between_steps = ctn__gear_between_steps,
    .scene_keys = keys,
};
