/* The ctn_joints view (kernels/ctn_joints.h) of an array of whole joint definitions, for tests that build
 * joints by hand: their compact records and extras copied into core[] and extra[] (the caller's arrays of n). */
#ifndef CTN_TEST_JOINT_VIEW_H
#define CTN_TEST_JOINT_VIEW_H

#include "ctn_joints.h"

static inline ctn_joints joint_view(const ctn_joint_def *defs, int n, ctn_joint_core *core, ctn_joint_extra *extra) {
    for (int k = 0; k < n; ++k) core[k] = ctn_joint_core_of(defs[k]), extra[k] = ctn_joint_extra_of(defs[k]);
    return ctn_joints_of(core, extra);
}

#endif
