/* A world's joints as the solver reads them: the compact records (ctn_joint_core, 48 bytes: type, bodies,
 * rows, anchors, rest length, compliance) and, only while some joint needs them, the per-type extras
 * (ctn_joint_extra, 64 bytes: axes, damping time, spring / motor / limit parameters, rest orientation, flags)
 * in a second array of the same order. Most joints of a large world (the balls of a chain) have the default
 * extras, so the host holds 48 bytes a joint instead of ctn_joint_def's 112.
 *
 * Code shared by both backends takes the joints as a ctn_joints and reads a joint's common fields with
 * CTN_JC(joints, s).field and a whole definition with ctn_joint_at: on the host ctn_joints is the two arrays
 * (extra NULL when no joint has extras, ctn_joint_at then filling the defaults), on the device it is the
 * array of full definitions, which the host forms from its two when it uploads them
 * (host/opencl/opencl_buffers.c). Either way the row builders see the same ctn_joint_def bits. */
#ifndef CTN_JOINTS_H
#define CTN_JOINTS_H

#include "ctn_types.h"

/* The extras of a joint that stores none: every field zero but the rest orientation, the identity (what
 * ctn_joint_add stores for the types without an angular row). */
CTN_FN ctn_joint_extra ctn_joint_extra_default(void) {
    ctn_joint_extra x;
    x.axis_a = ctn_v3_zero();
    x.damping_time = 0.0f;
    x.axis_b = ctn_v3_zero();
    x.stiffness = 0.0f;
    x.rel_q = ctn_quat_identity();
    x.damping = 0.0f;
    x.lo = 0.0f;
    x.hi = 0.0f;
    x.flags = 0;
    return x;
}

/* The definition made of a compact record and its extras. */
CTN_FN ctn_joint_def ctn_joint_make(ctn_joint_core c, ctn_joint_extra x) {
    ctn_joint_def j;
    j.type = c.type;
    j.a = c.a;
    j.b = c.b;
    j.rows = c.rows;
    j.anchor_a = c.anchor_a;
    j.rest_length = c.rest_length;
    j.anchor_b = c.anchor_b;
    j.compliance = c.compliance;
    j.axis_a = x.axis_a;
    j.damping_time = x.damping_time;
    j.axis_b = x.axis_b;
    j.stiffness = x.stiffness;
    j.rel_q = x.rel_q;
    j.damping = x.damping;
    j.lo = x.lo;
    j.hi = x.hi;
    j.flags = x.flags;
    return j;
}

/* The two parts of a definition. */
CTN_FN ctn_joint_core ctn_joint_core_of(ctn_joint_def j) {
    ctn_joint_core c;
    c.type = j.type;
    c.a = j.a;
    c.b = j.b;
    c.rows = j.rows;
    c.anchor_a = j.anchor_a;
    c.rest_length = j.rest_length;
    c.anchor_b = j.anchor_b;
    c.compliance = j.compliance;
    return c;
}

CTN_FN ctn_joint_extra ctn_joint_extra_of(ctn_joint_def j) {
    ctn_joint_extra x;
    x.axis_a = j.axis_a;
    x.damping_time = j.damping_time;
    x.axis_b = j.axis_b;
    x.stiffness = j.stiffness;
    x.rel_q = j.rel_q;
    x.damping = j.damping;
    x.lo = j.lo;
    x.hi = j.hi;
    x.flags = j.flags;
    return x;
}

#ifdef __OPENCL_VERSION__
/* The device's joints: full definitions. ctn_jcore is the record CTN_JC reads the common fields from. */
typedef __global const ctn_joint_def *ctn_joints;
typedef ctn_joint_def ctn_jcore;
#define CTN_JC(J, s) ((J)[s])
CTN_FN ctn_joint_def ctn_joint_at(ctn_joints J, int s) { return J[s]; }
CTN_FN int ctn_joint_flags(ctn_joints J, int s) { return J[s].flags; }
CTN_FN float ctn_joint_damping_time(ctn_joints J, int s) { return J[s].damping_time; }
#else
/* The host's joints: core[s] and, when extra is not NULL, extra[s]. */
typedef struct ctn_joints {
    const ctn_joint_core *core;
    const ctn_joint_extra *extra;
} ctn_joints;
typedef ctn_joint_core ctn_jcore;
#define CTN_JC(J, s) ((J).core[s])
CTN_FN ctn_joints ctn_joints_of(const ctn_joint_core *core, const ctn_joint_extra *extra) {
    ctn_joints J;
    J.core = core;
    J.extra = extra;
    return J;
}
CTN_FN ctn_joint_def ctn_joint_at(ctn_joints J, int s) {
    return ctn_joint_make(J.core[s], J.extra ? J.extra[s] : ctn_joint_extra_default());
}
CTN_FN int ctn_joint_flags(ctn_joints J, int s) { return J.extra ? J.extra[s].flags : 0; }
CTN_FN float ctn_joint_damping_time(ctn_joints J, int s) { return J.extra ? J.extra[s].damping_time : 0.0f; }
#endif

#endif
