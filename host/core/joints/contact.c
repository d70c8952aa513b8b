/* The contact (kernels/ctn_joint_rows.h: ctn_rows_contact): a normal row and two friction rows, added by
 * ctn_contact_add and the collision detection, never by ctn_joint_add nor in scene files. Its entry of the
 * joint-type table (core/joint_kinds.h). */
#include "core/joint_kinds.h"

const ctn_joint_kind ctn__joint_kind_contact = {
    .name = "contact",
    .flags = 0,
    .added_by = "ctn_contact_add",
};
