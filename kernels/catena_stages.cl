/* The per-substep stages and the position projection: one work-item per joint slot or body, each a
 * wrapper of a function of ctn_solver.h. Part of the program kernels/catena.cl (included there, in order). */

/* ---- per-substep phases ---------------------------------------------------------------------------- */

/* Step 2: rows of every joint slot (compact: Gauss-Seidel on ball joints only, ctn__rows_compact, into the
 * 64-byte records `points` instead of `blocks`, as the CPU backend). gs_h > 0 (a step's first substep with geometric stiffness): first the
 * world inverse inertia of the slot's bodies with the geometric-stiffness term of the last impulses
 * (ctn_geometric_inertia_body's function, ctn_k_geometric_inertia's work: one launch fewer), formed in
 * private for the rows and stored by the body's first joint in its adjacency (a body without joints by
 * work-item i = body; max(m, n) work-items), so no work-item reads an inertia another one writes. */
__kernel void ctn_k_prepare(int m, __global const ctn_joint_def *defs, __global const ctn_pose *pose,
                            __global const ctn_vel *vel, __global ctn_inertia *inertia, __global const float *split,
                            ctn_step_params prm, __global ctn_block *blocks, int n, float gs_h, __global const ctn_props *props,
                            __global const int *adj_offsets, __global const int *adj, __global const float *lambda,
                            __global ctn_point_block *points, int compact, int ls) {
    int s = (int)get_global_id(0);
    if (!(gs_h > 0.0f)) {
        if (s < m && compact) ctn_prepare_slot_point(s, defs, pose, vel, inertia, prm, points);
        else if (s < m) ctn_prepare_slot(s, defs, pose, vel, inertia, split, prm, blocks);
        return;
    }
    if (s < n && adj_offsets[s] == adj_offsets[s + 1])
        inertia[s].inv_inertia = ctn_geometric_inverse_inertia(s, pose, props, adj_offsets, adj, defs, lambda, ls, gs_h);
    if (s >= m) return;
    ctn_joint_def j = defs[s];
    ctn_sym3 I[2];
    int body[2] = {j.a, j.b};
    for (int k = 0; k < 2; ++k) {
        I[k] = ctn_sym3_zero();
        if (body[k] < 0) continue;
        I[k] = ctn_geometric_inverse_inertia(body[k], pose, props, adj_offsets, adj, defs, lambda, ls, gs_h);
        if (adj[adj_offsets[body[k]]] >> 1 == s) inertia[body[k]].inv_inertia = I[k];
    }
    if (compact) {
        ctn_prepare_point_with(s, defs, pose, vel, inertia[j.a].inv_mass, I[0], ctn_load_inv_mass(inertia, j.b), I[1], prm, points);
        return;
    }
    ctn_block blk;
    ctn_prepare_block_with(s, defs, pose, vel, ctn_load_inv_mass(inertia, j.a), I[0], ctn_load_inv_mass(inertia, j.b), I[1], split, prm, &blk);
    blocks[s] = blk;
}

/* Before step 2: world inverse inertia with the geometric-stiffness term of the last substep's impulses. */
__kernel void ctn_k_geometric_inertia(int n, __global const ctn_pose *pose, __global const ctn_props *props,
                                      __global const int *adj_offsets, __global const int *adj,
                                      __global const ctn_joint_def *defs, __global const float *lambda, float gs_h,
                                      __global ctn_inertia *inertia, int ls) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    ctn_geometric_inertia_body(i, pose, props, adj_offsets, adj, defs, lambda, ls, gs_h, inertia);
}

/* Step 1: v* = v + h M^-1 f. Springs read vel_in (a copy of the velocities when springs exist), so no
 * work-item reads a velocity another one is writing. gather: then the warm start's v_i += scale M^-1 sum
 * J^T l over body i's joints (ctn_apply_gather), which reads body i's own velocity only (one launch fewer
 * than ctn_k_gather after it). forces: the user forces when has_forces, else a one-element stand-in that is
 * not read (a world without user forces keeps no array of them). */
__kernel void ctn_k_forces(int n, __global const ctn_props *props, __global const ctn_body_force *forces, int has_forces,
                           __global const ctn_inertia *inertia,
                           __global const int *sadj_offsets, __global const int *sadj, __global const ctn_joint_def *springs,
                           __global const ctn_pose *pose, __global ctn_vel *vel_in, __global ctn_vel *vel_out,
                           ctn_step_params prm, int gather, __global const int *adj_offsets, __global const int *adj,
                           __global const ctn_block *blocks, __global const float *l, float scale,
                           __global const ctn_point_block *points, int compact, int ls) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    ctn_forces_body(i, props, forces, has_forces, inertia, sadj_offsets, sadj, springs, pose, vel_in, vel_out, prm);
    if (gather && compact) ctn_apply_gather_point(i, adj_offsets, adj, points, l, ls, scale, vel_out, inertia);
    else if (gather) ctn_apply_gather(i, adj_offsets, adj, blocks, l, ls, scale, vel_out, inertia);
}

/* v_i += scale M^-1 sum J^T l over body i's joints: warm start and Jacobi update (per-body gather, Nelson 1998). */
__kernel void ctn_k_gather(int n, __global const int *adj_offsets, __global const int *adj, __global const ctn_block *blocks,
                           __global const float *l, float scale, __global ctn_vel *vel, __global const ctn_inertia *inertia,
                           __global const ctn_point_block *points, int compact, int ls) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    if (compact) ctn_apply_gather_point(i, adj_offsets, adj, points, l, ls, scale, vel, inertia);
    else ctn_apply_gather(i, adj_offsets, adj, blocks, l, ls, scale, vel, inertia);
}

/* Coloured Gauss-Seidel: the `count` slots of one colour starting at `offset`; no two share a dynamic
 * body, so each work-item writes its two bodies' velocities directly. r2: squared residual per slot. */
__kernel void ctn_k_gs_colour(int offset, int count, __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                              __global float *lambda, __global ctn_vel *vel, __global const ctn_inertia *inertia,
                              __global float *r2, __global const ctn_point_block *points, int compact, int ls) {
    int g = (int)get_global_id(0);
    if (g >= count) return;
    int s = offset + g;
    r2[s] = compact ? ctn_gs_slot_compact(s, defs, points, lambda, ls, vel, inertia, 1)
                      : ctn_gs_slot(s, defs, blocks, lambda, ls, vel, inertia);
}

/* The overflow group (joints beyond the colour budget): one work-item, slots in order, exactly as the
 * CPU loop, so the result is deterministic whatever bodies the joints share. */
__kernel void ctn_k_gs_serial(int begin, int end, __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                              __global float *lambda, __global ctn_vel *vel, __global const ctn_inertia *inertia,
                              __global float *r2, __global const ctn_point_block *points, int compact, int ls) {
    if (get_global_id(0) != 0) return;
    for (int s = begin; s < end; ++s)
        r2[s] = compact ? ctn_gs_slot_compact(s, defs, points, lambda, ls, vel, inertia, 1)
                      : ctn_gs_slot(s, defs, blocks, lambda, ls, vel, inertia);
}

/* Jacobi row step: every slot from the same velocities; increments into dlambda for the gather. */
__kernel void ctn_k_jacobi(int m, __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                           __global float *lambda, __global const ctn_vel *vel, __global float *dlambda, __global float *r2, int ls) {
    int s = (int)get_global_id(0);
    if (s >= m) return;
    r2[s] = ctn_jacobi_slot(s, defs, blocks, lambda, ls, vel, dlambda);
}

/* Step 4: positions, orientations (exp map) and world inverse inertia; gs_h > 0 (another substep follows
 * with the geometric-stiffness metric, or the projection's metric): then that inertia of body i at its new
 * pose from this substep's impulses (ctn_geometric_inertia_body, as ctn_k_geometric_inertia would: one
 * launch fewer). begin (the last substep before the exact solver's projection): also the projection's
 * scratch velocity of body i at rest in rest[i] (ctn_project_begin_body). */
CTN_FN void ctn_integrate_stage_body(int i, __global ctn_pose *pose, __global const ctn_vel *vel, __global const ctn_props *props,
                                     __global ctn_inertia *inertia, float h, __global const int *adj_offsets, __global const int *adj,
                                     __global const ctn_joint_def *defs, __global const float *lambda, int ls, float gs_h, int begin,
                                     __global ctn_vel *rest) {
    ctn_integrate_body(i, pose, vel, props, inertia, h);
    if (gs_h > 0.0f) ctn_geometric_inertia_body(i, pose, props, adj_offsets, adj, defs, lambda, ls, gs_h, inertia);
    if (begin) ctn_project_begin_body(i, rest);
}

__kernel void ctn_k_integrate(int n, __global ctn_pose *pose, __global const ctn_vel *vel, __global const ctn_props *props,
                              __global ctn_inertia *inertia, float h, __global const int *adj_offsets, __global const int *adj,
                              __global const ctn_joint_def *defs, __global const float *lambda, float gs_h, int begin,
                              __global ctn_vel *rest, int ls) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    ctn_integrate_stage_body(i, pose, vel, props, inertia, h, adj_offsets, adj, defs, lambda, ls, gs_h, begin, rest);
}

/* ---- post-stabilisation of the exact solver (ctn_project_*, host/solve/pipeline.c project_steps) -------- */
/* A Newton step on the device is PREPARE (ctn_k_project_prepare), the exact solve and the integration: the
 * stages the CPU runs apart are merged where they touch only their own slot or body (the metric's inertia
 * of a body depends on its own pose; the rows of a slot and its error on that slot). The decision
 * (ctn_project_decide) needs the largest error over all slots: prepare joins it into the Newton record
 * (CTN_PS_WORST, an atomic maximum), and the first kernel after it decides from the record alone, every
 * work-item for itself (ctn_project_decided), work-item 0 writing the decided record into a second buffer
 * that the later kernels read: the chain solve's factor (on a chain whose every joint is a position the
 * assembly builds the rows itself, ctn_k_chain_project_assemble; host/opencl/opencl_direct.c), else
 * ctn_k_project_decide, and after the last step the statistics (ctn_k_measure, which also leaves the
 * projection). The atomic maximum is exact and order-free, and only later launches read it (the end of
 * a kernel orders its global writes before the next kernel of an in-order queue, OpenCL 1.2 and 3.0).
 * The functions and their order per item are the CPU's, so the bits are. */

/* The Newton record in: a private copy of `st` after the decision on its largest error (CTN_PS_WORST). */
static void ctn_project_decided(__global const int *st, int *out) {
    union {
        int i;
        float f;
    } worst;
    for (int k = 0; k < CTN_PS_INTS; ++k) out[k] = st[k];
    worst.i = st[CTN_PS_WORST];
    ctn_project_decide(out, worst.f);
}

/* The decided record `st` into `to` (one work-item), the next decision's error reset to 0. */
static void ctn_project_store(const int *st, __global int *to) {
    for (int k = 0; k < CTN_PS_INTS; ++k) to[k] = st[k];
    to[CTN_PS_WORST] = 0;
}

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

/* |r|^2 of slot s after the exact solve (as host/solve/solver_direct.c reports it), r = target - J v - S l. */
static float ctn_direct_residual_slot(int s, __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                                      __global const ctn_vel *vel, __global const float *lambda, int ls) {
    ctn_block b = blocks[s];
    float lam[CTN_MAX_ROWS], r[CTN_MAX_ROWS], acc = 0.0f;
    int k;
    ctn_lam_load(lambda, ls, s, lam);
    ctn_block_residual(&b, ctn_load_vel(vel, defs[s].a), ctn_load_vel(vel, defs[s].b), lam, r);
    for (k = 0; k < ctn_block_rows(&b); ++k) acc += r[k] * r[k];
    return acc;
}

/* Per slot: the rows (Baumgarte, beta = 1), the projected rows and their error, and the work-group's
 * largest error joined into state[CTN_PS_WORST] (local size a power of two; every work-item reaches the
 * fold). The bits of a non-negative float order as ints, so the atomic maximum is the largest error
 * whatever order the work-groups arrive in. residual (the first Newton step): before the slot's rows are
 * rebuilt, the last substep's residual of the slot from its rows, the real velocities and impulses into
 * r2[s] (the step's statistics are its only reader; one launch fewer than a residual kernel). */
__kernel void ctn_k_project_prepare(int m, __global const ctn_joint_def *defs, __global const ctn_pose *pose,
                                    __global const ctn_vel *vel, __global const ctn_inertia *inertia, __global const float *split,
                                    ctn_step_params prm, __global ctn_block *blocks, __global float *err, __global int *state,
                                    __local float *scratch, int residual, __global const ctn_vel *real_vel,
                                    __global const float *real_lambda, __global float *r2, int ls) {
    int s = (int)get_global_id(0), l = (int)get_local_id(0);
    float e = 0.0f;
    if (s < m) {
        if (residual) r2[s] = ctn_direct_residual_slot(s, defs, blocks, real_vel, real_lambda, ls);
        ctn_prepare_slot(s, defs, pose, vel, inertia, split, prm, blocks);
        ctn_project_slot(s, defs, blocks, prm.h, 0, err); /* no limit rows: the active set is the CPU's */
        e = err[s];
    }
    scratch[l] = e;
    ctn_group_fold_fmax(scratch);
    if (l == 0 && scratch[0] > 0.0f) atomic_max(state + CTN_PS_WORST, as_int(scratch[0]));
}

/* One work-item: the Newton decision on the record `from` into `to`, for the kernels after it (a solve
 * that does not decide itself: the forest path, the hybrid without an exact solve). */
__kernel void ctn_k_project_decide(__global const int *from, __global int *to) {
    if (get_global_id(0) != 0) return;
    int st[CTN_PS_INTS];
    ctn_project_decided(from, st);
    ctn_project_store(st, to);
}

/* x += h v of a Newton step while the state is active, after keeping the poses, then the metric's inertia
 * at the new pose (gs_h > 0) and the scratch velocities at rest for the next step; the kept poses put back
 * when the state says undo; nothing after the projection stopped. The forest path's; the chain path runs
 * ctn_project_integrate_body inside ctn_k_chain_velocity_project. */
CTN_FN void ctn_project_integrate_body(int i, __global ctn_pose *pose, __global ctn_vel *vel, __global const ctn_props *props,
                                       __global ctn_inertia *inertia, float h, __global ctn_pose *kept,
                                       __global const int *adj_offsets, __global const int *adj, __global const ctn_joint_def *defs,
                                       __global const float *lambda, int ls, float gs_h) {
    kept[i] = pose[i];
    ctn_integrate_body(i, pose, vel, props, inertia, h);
    if (gs_h > 0.0f) ctn_geometric_inertia_body(i, pose, props, adj_offsets, adj, defs, lambda, ls, gs_h, inertia);
    ctn_project_begin_body(i, vel);
}

__kernel void ctn_k_project_integrate(int n, __global ctn_pose *pose, __global ctn_vel *vel, __global const ctn_props *props,
                                      __global ctn_inertia *inertia, float h, __global ctn_pose *kept, __global const int *state,
                                      __global const int *adj_offsets, __global const int *adj,
                                      __global const ctn_joint_def *defs, __global const float *lambda, float gs_h, int ls) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    if (state[CTN_PS_UNDO]) {
        pose[i] = kept[i];
        return;
    }
    if (!state[CTN_PS_ACTIVE]) return;
    ctn_project_integrate_body(i, pose, vel, props, inertia, h, kept, adj_offsets, adj, defs, lambda, ls, gs_h);
}

/* ---- assembly, phase 1: the Jacobian-transpose gather (Nelson 1998; kernels/ctn_assemble.h) -------------- */

__kernel void ctn_k_assemble_slot(int m, __global const ctn_joint_def *defs, __global const ctn_pose *pose,
                                  __global const ctn_inertia *inertia, __global const ctn_props *props, __global const float *split,
                                  __global ctn_block *blocks, __global float *mu, __global float *gap, __global float *angle, int ls) {
    int s = (int)get_global_id(0);
    if (s >= m) return;
    ctn_assemble_slot(s, defs, pose, inertia, props, split, blocks, mu, ls, gap, angle);
}

__kernel void ctn_k_assemble_body(int n, __global const int *adj_offsets, __global const int *adj, __global const ctn_block *blocks,
                                  __global const float *mu, __global ctn_pose *pose,
                                  __global const ctn_props *props, __global ctn_inertia *inertia, int ls) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    ctn_assemble_body(i, adj_offsets, adj, blocks, mu, ls, pose, props, inertia);
}
