/* The layout contract of the records the host copies to the device as bytes (ctn_types.h), checked at
 * compile time on both sides against the same numbers: by the C compiler in every host file that includes
 * ctn_types.h, and by the OpenCL C compiler when it builds catena.cl. A record that one compiler lays out
 * differently (a float3 in place of three floats, an 8-byte field, padding) breaks the build instead of
 * silently shifting every field the kernels read.
 *
 * OpenCL C 1.2 has no _Static_assert and no <stddef.h>: there the check is an array type whose size is -1
 * when the condition fails, and offsets are checked with __builtin_offsetof where the compiler is clang
 * (PoCL and most vendor front ends); sizes are checked by every compiler. */
#ifndef CTN_LAYOUT_H
#define CTN_LAYOUT_H

#ifdef __OPENCL_VERSION__
#define CTN_LAYOUT_ASSERT(cond, name) typedef char ctn_layout_check_##name[(cond) ? 1 : -1]
#if defined(__clang__)
#define CTN_LAYOUT_OFFSETS 1
#define CTN_LAYOUT_OFFSETOF(type, field) __builtin_offsetof(type, field)
#endif
#else
#include <stddef.h>
#define CTN_LAYOUT_ASSERT(cond, name) _Static_assert(cond, "ctn_types.h layout: " #name)
#define CTN_LAYOUT_OFFSETS 1
#define CTN_LAYOUT_OFFSETOF(type, field) offsetof(type, field)
#endif

/* Sizes (bytes): each record is 4-byte fields only (its pad fields explicit ones), so that neither compiler inserts
 * padding; the sizes are multiples of 4, not of 16 (the pose and the ball row are 40 bytes, the inertia 28, the
 * velocity 24). */
CTN_LAYOUT_ASSERT(sizeof(ctn_v3) == 12, v3_size);
CTN_LAYOUT_ASSERT(sizeof(ctn_quat) == 16, quat_size);
CTN_LAYOUT_ASSERT(sizeof(ctn_sym3) == 24, sym3_size);
CTN_LAYOUT_ASSERT(sizeof(ctn_pose) == 40, pose_size);
CTN_LAYOUT_ASSERT(sizeof(ctn_vel) == 24, vel_size);
CTN_LAYOUT_ASSERT(sizeof(ctn_inertia) == 28, inertia_size);
CTN_LAYOUT_ASSERT(sizeof(ctn_props) == 16, props_size);
CTN_LAYOUT_ASSERT(sizeof(ctn_body_force) == 32, body_force_size);
CTN_LAYOUT_ASSERT(sizeof(ctn_joint_def) == 112, joint_def_size);
CTN_LAYOUT_ASSERT(sizeof(ctn_joint_core) == 48, joint_core_size);
CTN_LAYOUT_ASSERT(sizeof(ctn_joint_extra) == 64, joint_extra_size);
CTN_LAYOUT_ASSERT(sizeof(ctn_block) == 288, block_size);
CTN_LAYOUT_ASSERT(sizeof(ctn_point_block) == 64, point_block_size);
CTN_LAYOUT_ASSERT(sizeof(ctn_ball_row) == 40, ball_row_size);
CTN_LAYOUT_ASSERT(sizeof(ctn_step_params) == 48, step_params_size);

#ifdef CTN_LAYOUT_OFFSETS
/* Offsets of every field the kernels read. */
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_pose, p_lo) == 12, pose_p_lo);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_pose, q) == 24, pose_q); /* last: 16-byte loads at p, p_lo, q stay inside (ctn_types.h) */
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_vel, w) == 12, vel_w);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_inertia, inv_mass) == 24, inertia_inv_mass);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_props, flags) == 12, props_flags);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_body_force, force) == 0, body_force_force);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_body_force, torque) == 16, body_force_torque);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_joint_def, anchor_a) == 16, joint_anchor_a);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_joint_def, anchor_b) == 32, joint_anchor_b);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_joint_def, axis_a) == 48, joint_axis_a);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_joint_def, axis_b) == 64, joint_axis_b);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_joint_def, rel_q) == 80, joint_rel_q);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_joint_def, flags) == 108, joint_flags);
/* ctn_joint_def is ctn_joint_core then ctn_joint_extra, field for field (ctn_joint_make, ctn_joint_core_of,
 * ctn_joint_extra_of) */
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_joint_core, anchor_b) == 32, joint_core_anchor_b);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_joint_core, compliance) == 44, joint_core_compliance);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_joint_def, damping_time) == 48 + CTN_LAYOUT_OFFSETOF(ctn_joint_extra, damping_time), joint_extra_damping_time);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_joint_def, rel_q) == 48 + CTN_LAYOUT_OFFSETOF(ctn_joint_extra, rel_q), joint_extra_rel_q);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_joint_def, flags) == 48 + CTN_LAYOUT_OFFSETOF(ctn_joint_extra, flags), joint_extra_flags);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_joint_core, rest_length) == CTN_LAYOUT_OFFSETOF(ctn_joint_def, rest_length), joint_core_rest_length);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_joint_def, axis_a) == 48 + CTN_LAYOUT_OFFSETOF(ctn_joint_extra, axis_a), joint_extra_axis_a);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_joint_def, axis_b) == 48 + CTN_LAYOUT_OFFSETOF(ctn_joint_extra, axis_b), joint_extra_axis_b);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_joint_def, stiffness) == 48 + CTN_LAYOUT_OFFSETOF(ctn_joint_extra, stiffness), joint_extra_stiffness);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_joint_def, damping) == 48 + CTN_LAYOUT_OFFSETOF(ctn_joint_extra, damping), joint_extra_damping);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_joint_def, lo) == 48 + CTN_LAYOUT_OFFSETOF(ctn_joint_extra, lo), joint_extra_lo);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_joint_def, hi) == 48 + CTN_LAYOUT_OFFSETOF(ctn_joint_extra, hi), joint_extra_hi);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_block, dir) == 32, block_dir);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_block, kinv) == 104, block_kinv);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_block, bias) == 188, block_bias);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_block, pad) == 284, block_pad);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_point_block, rb) == 16, point_block_rb);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_ball_row, rb) == 16, ball_row_rb); /* ctn_apply_gather_arms reads ra, rb of both records alike */
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_point_block, bias) == 28, point_block_bias);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_point_block, kinv) == 40, point_block_kinv);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_step_params, h) == 12, step_params_h);
CTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_step_params, geometric_stiffness) == 40, step_params_geometric_stiffness);
#endif

#endif /* CTN_LAYOUT_H */
