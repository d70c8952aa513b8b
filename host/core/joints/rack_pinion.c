/* The rack-and-pinion (kernels/ctn_joint_rows.h: ctn_rows_rack_pinion): 1 row, the rack's travel along
 * axis2 = ratio x the pinion's turn about axis. Its entry of the joint-type table (core/joint_kinds.h); its
 * hooks, shared with the gear, are in host/core/joint_gear.c. */
#include "core/joint_kinds.h"

/* the pinion a's "axis", the rack b's "axis2"; "relative" (pinion and rack on one moving base) with the
 * pinion point "anchor_a" */
static const char *const keys[] = {"type", "name", "a", "b", "axis", "axis2", "ratio", "compliance", "damping_time", "relative", "anchor_a", NULL};

const ctn_joint_kind ctn__joint_kind_rack_pinion = {
    .name = "rack_pinion",
    .flags = CTN_JK_ANGULAR | CTN_JK_TWO_BODIES | CTN_JK_SCENE | CTN_JK_JOINT_ADD | CTN_JK_AXIS2 | CTN_JK_RATIO | CTN_JK_NO_ATTACH,
    .from_desc = ctn__joint_def_rack_pinion,
    .check = ctn__joint_check_gear,
    .between_steps = ctn__gear_between_steps,
    .scene_keys = keys,
};
