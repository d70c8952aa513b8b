/* The per-substep stages and the position projection: one work-item per joint slot or body, each a
 * wrapper of a function of ctn_solver.h. Part of the program kernels/catena.cl (included there, in order). */

/* ---- per-substep phases ---------------------------------------------------------------------------- */

/* Step 2: rows of every joint slot. */
__kernel void ctn_k_prepare(int m, __global const ctn_joint_def *defs, __global const ctn_pose *pose,
                            __global const ctn_vel *vel, __global const ctn_inertia *inertia, __global const float *split,
                            ctn_step_params prm, __global ctn_block *blocks) {
    int s = (int)get_global_id(0);
    if (s >= m) return;
    ctn_prepare_slot(s, defs, pose, vel, inertia, split, prm, blocks);
}

/* Before step 2: world inverse inertia with the geometric-stiffness term of the last substep's impulses. */
__kernel void ctn_k_geometric_inertia(int n, __global const ctn_pose *pose, __global const ctn_props *props,
                                      __global const int *adj_offsets, __global const int *adj,
                                      __global const ctn_joint_def *defs, __global const float *lambda, float gs_h,
                                      __global ctn_inertia *inertia) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    ctn_geometric_inertia_body(i, pose, props, adj_offsets, adj, defs, lambda, gs_h, inertia);
}

/* Step 1: v* = v + h M^-1 f. Springs read vel_in (a copy of the velocities when springs exist), so no
 * work-item reads a velocity another one is writing. */
__kernel void ctn_k_forces(int n, __global const ctn_props *props, __global const ctn_inertia *inertia,
                           __global const int *sadj_offsets, __global const int *sadj, __global const ctn_joint_def *springs,
                           __global const ctn_pose *pose, __global ctn_vel *vel_in, __global ctn_vel *vel_out,
                           ctn_step_params prm) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    ctn_forces_body(i, props, inertia, sadj_offsets, sadj, springs, pose, vel_in, vel_out, prm);
}

/* v_i += scale M^-1 sum J^T l over body i's joints: warm start and Jacobi update (per-body gather, Nelson 1998). */
__kernel void ctn_k_gather(int n, __global const int *adj_offsets, __global const int *adj, __global const ctn_block *blocks,
                           __global const float *l, float scale, __global ctn_vel *vel, __global const ctn_inertia *inertia) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    ctn_apply_gather(i, adj_offsets, adj, blocks, l, scale, vel, inertia);
}

/* Coloured Gauss-Seidel: the `count` slots of one colour starting at `offset`; no two share a dynamic
 * body, so each work-item writes its two bodies' velocities directly. r2: squared residual per slot. */
__kernel void ctn_k_gs_colour(int offset, int count, __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                              __global float *lambda, __global ctn_vel *vel, __global const ctn_inertia *inertia,
                              __global float *r2) {
    int g = (int)get_global_id(0);
    if (g >= count) return;
    int s = offset + g;
    r2[s] = ctn_gs_slot(s, defs, blocks, lambda, vel, inertia);
}

/* The overflow group (joints beyond the colour budget): one work-item, slots in order, exactly as the
 * CPU loop, so the result is deterministic whatever bodies the joints share. */
__kernel void ctn_k_gs_serial(int begin, int end, __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                              __global float *lambda, __global ctn_vel *vel, __global const ctn_inertia *inertia,
                              __global float *r2) {
    if (get_global_id(0) != 0) return;
    for (int s = begin; s < end; ++s) r2[s] = ctn_gs_slot(s, defs, blocks, lambda, vel, inertia);
}

/* Jacobi row step: every slot from the same velocities; increments into dlambda for the gather. */
__kernel void ctn_k_jacobi(int m, __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                           __global float *lambda, __global const ctn_vel *vel, __global float *dlambda, __global float *r2) {
    int s = (int)get_global_id(0);
    if (s >= m) return;
    r2[s] = ctn_jacobi_slot(s, defs, blocks, lambda, vel, dlambda);
}

/* Step 4: positions, orientations (exp map) and world inverse inertia; gs_h > 0 (another substep follows
 * with the geometric-stiffness metric): then that substep's inertia of body i at its new pose from this
 * substep's impulses (ctn_geometric_inertia_body, as ctn_k_geometric_inertia would: one launch fewer). */
__kernel void ctn_k_integrate(int n, __global ctn_pose *pose, __global const ctn_vel *vel, __global const ctn_props *props,
                              __global ctn_inertia *inertia, float h, __global const int *adj_offsets, __global const int *adj,
                              __global const ctn_joint_def *defs, __global const float *lambda, float gs_h) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    ctn_integrate_body(i, pose, vel, props, inertia, h);
    if (gs_h > 0.0f) ctn_geometric_inertia_body(i, pose, props, adj_offsets, adj, defs, lambda, gs_h, inertia);
}

/* ---- post-stabilisation of the exact solver (ctn_project_*, host/solve/pipeline.c project_deferred) ----- */
/* A Newton step on the device is PREPARE (ctn_k_project_prepare), the decision (ctn_k_project_decide), the
 * exact solve and ctn_k_project_integrate: the stages the CPU runs apart are merged where they touch only
 * their own slot or body (the metric's inertia of a body depends on its own pose; the rows of a slot and
 * its error on that slot), so a step is 3 launches plus the solve's. The functions and their order per
 * item are the CPU's, so the bits are. */

/* Largest value of a work-group's scratch[0..L) into scratch[0], pairwise (L a power of two; fmax ignores
 * a NaN as ctn_k_reduce3 does). Every work-item of the group must call it. */
static void ctn_group_fold_fmax(__local float *scratch) {
    int l = (int)get_local_id(0), L = (int)get_local_size(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = L / 2; h > 0; h >>= 1) {
        if (l < h) scratch[l] = fmax(scratch[l], scratch[l + h]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* Entering the projection, per body: scratch velocities at rest and (gs_h > 0) the metric's inertia from
 * the last substep's impulses `lambda` (ctn_geometric_inertia_body). */
__kernel void ctn_k_project_begin(int n, __global const ctn_vel *real_vel, __global ctn_vel *vel, __global const ctn_pose *pose,
                                  __global const ctn_props *props, __global const int *adj_offsets, __global const int *adj,
                                  __global const ctn_joint_def *defs, __global const float *lambda, float gs_h,
                                  __global ctn_inertia *inertia) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    ctn_project_begin_body(i, real_vel, vel);
    if (gs_h > 0.0f) ctn_geometric_inertia_body(i, pose, props, adj_offsets, adj, defs, lambda, gs_h, inertia);
}

/* Per slot: the rows (Baumgarte, beta = 1), the projected rows and their error, and the work-group's
 * largest error into partial[group] (local size a power of two; every work-item reaches the fold). */
__kernel void ctn_k_project_prepare(int m, __global const ctn_joint_def *defs, __global const ctn_pose *pose,
                                    __global const ctn_vel *vel, __global const ctn_inertia *inertia, __global const float *split,
                                    ctn_step_params prm, __global ctn_block *blocks, __global float *err, __global float *partial,
                                    __local float *scratch) {
    int s = (int)get_global_id(0), l = (int)get_local_id(0);
    float e = 0.0f;
    if (s < m) {
        ctn_prepare_slot(s, defs, pose, vel, inertia, split, prm, blocks);
        ctn_project_slot(s, defs, blocks, prm.h, err);
        e = err[s];
    }
    scratch[l] = e;
    ctn_group_fold_fmax(scratch);
    if (l == 0) partial[get_group_id(0)] = scratch[0];
}

/* One work-group: the largest error over the `groups` partials and the Newton decision
 * (ctn_project_decide); the steps taken so far and whether Newton goes on into stats[at], stats[at + 1],
 * which the step's one blocking read brings back (the host sizes the next step's projection on them). */
__kernel void ctn_k_project_decide(int groups, __global const float *partial, __global int *state, __global int *stats, int at,
                                   __local float *scratch) {
    int l = (int)get_local_id(0), L = (int)get_local_size(0);
    float top = 0.0f;
    for (int i = l; i < groups; i += L) top = fmax(top, partial[i]);
    scratch[l] = top;
    ctn_group_fold_fmax(scratch);
    if (l != 0) return;
    ctn_project_decide(state, scratch[0]);
    stats[at] = state[CTN_PS_STEPS];
    stats[at + 1] = state[CTN_PS_ACTIVE];
}

/* x += h v of a Newton step while the state is active, after keeping the poses, then the metric's inertia
 * at the new pose (gs_h > 0) and the scratch velocities at rest for the next step; the kept poses put back
 * when the state says undo; nothing after the projection stopped. */
__kernel void ctn_k_project_integrate(int n, __global ctn_pose *pose, __global ctn_vel *vel, __global const ctn_props *props,
                                      __global ctn_inertia *inertia, float h, __global ctn_pose *kept, __global const int *state,
                                      __global const ctn_vel *real_vel, __global const int *adj_offsets, __global const int *adj,
                                      __global const ctn_joint_def *defs, __global const float *lambda, float gs_h) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    if (state[CTN_PS_UNDO]) {
        pose[i] = kept[i];
        return;
    }
    if (!state[CTN_PS_ACTIVE]) return;
    kept[i] = pose[i];
    ctn_integrate_body(i, pose, vel, props, inertia, h);
    if (gs_h > 0.0f) ctn_geometric_inertia_body(i, pose, props, adj_offsets, adj, defs, lambda, gs_h, inertia);
    ctn_project_begin_body(i, real_vel, vel);
}

/* Leaving the projection, per body: the kept pose back if the last decision undid a step (the check after
 * the last enqueued step has no integration to do it), and the world inverse inertia of the pose. */
__kernel void ctn_k_project_leave(int n, __global ctn_pose *pose, __global const ctn_props *props, __global ctn_inertia *inertia,
                                  __global const ctn_pose *kept, __global const int *state) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    if (state[CTN_PS_UNDO]) pose[i] = kept[i];
    ctn_inertia_body(i, pose, props, inertia);
}

/* ---- assembly, phase 1: the Jacobian-transpose gather (Nelson 1998; kernels/ctn_assemble.h) -------------- */

__kernel void ctn_k_assemble_slot(int m, __global const ctn_joint_def *defs, __global const ctn_pose *pose,
                                  __global const ctn_vel *vel, __global const ctn_props *props, __global const float *split,
                                  __global ctn_block *blocks, __global float *mu, __global float *gap, __global float *angle) {
    int s = (int)get_global_id(0);
    if (s >= m) return;
    ctn_assemble_slot(s, defs, pose, vel, props, split, blocks, mu, gap, angle);
}

__kernel void ctn_k_assemble_body(int n, __global const int *adj_offsets, __global const int *adj, __global const ctn_block *blocks,
                                  __global const float *mu, __global ctn_pose *pose, __global const ctn_vel *vel,
                                  __global const ctn_props *props, __global ctn_inertia *inertia) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    ctn_assemble_body(i, adj_offsets, adj, blocks, mu, pose, vel, props, inertia);
}
