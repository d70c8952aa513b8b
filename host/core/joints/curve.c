/* The curve constraint (kernels/ctn_curve.h): 2 rows, a point of body a on a curve fixed in body b's frame;
 * added with ctn_curve_constraint_add (host/core/curve.c) and read from scene files by
 * host/io/scene_curves.c. Its entry of the joint-type table (core/joint_kinds.h). */
#include "core/joint_kinds.h"

const ctn_joint_kind ctn__joint_kind_curve = {
    .name = "curve",
    .flags = CTN_JK_SCENE | CTN_JK_NO_ATTACH,
    .added_by = "ctn_curve_constraint_add",
};
