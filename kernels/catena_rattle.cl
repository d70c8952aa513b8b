/* The RATTLE integrator's kernels (host/opencl/opencl_rattle.c; the equations and their sources are in
 * kernels/ctn_rattle.h, whose per-item functions the CPU backend loops over): one work-item per body or
 * joint slot, no math here. Created with the exact solver's set (RATTLE runs with the exact solver only). */

/* The turn rate of each body (|w|) and distance row (|v_a - v_b| / length) into out[i] (bodies first, then
 * the slots): reduced to the largest on the device (host/solve/pipeline.c, run_rattle's substep count). */
__kernel void ctn_k_rattle_speed(int n, int m, __global const ctn_vel *vel, __global const ctn_joint_def *defs, __global float *out) {
    int i = (int)get_global_id(0);
    if (i >= n + m) return;
    if (i < n) {
        out[i] = ctn_length(vel[i].w);
        return;
    }
    ctn_joint_def d = defs[i - n];
    float r = 0.0f;
    if (d.type == CTN_JT_DISTANCE && d.rest_length > 0.0f)
        r = ctn_length(ctn_sub(ctn_load_vel(vel, d.a).v, ctn_load_vel(vel, d.b).v)) / d.rest_length;
    out[i] = r;
}

/* The substep's start: x_n and v_n kept (per body), impulses and the kept rows' targets zeroed (per slot:
 * the linearised position stage J_n v' = 0). */
__kernel void ctn_k_rattle_start(int n, int m, __global const ctn_pose *pose, __global const ctn_vel *vel, __global ctn_pose *kept,
                                 __global ctn_vel *kept_vel, __global float *lambda, __global ctn_block *blocks, int ls) {
    int i = (int)get_global_id(0);
    if (i < n) kept[i] = pose[i], kept_vel[i] = vel[i];
    if (i < m) {
        for (int k = 0; k < ls; ++k) lambda[ls * i + k] = 0.0f;
        for (int k = 0; k < CTN_MAX_ROWS; ++k) blocks[i].bias[k] = 0.0f;
    }
}

/* x = x_n (+) h v (ctn_rattle_drift_body). */
__kernel void ctn_k_rattle_drift(int n, __global const ctn_pose *start, __global ctn_pose *pose, __global const ctn_vel *vel,
                                 __global const ctn_props *props, float h) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    ctn_rattle_drift_body(i, start, pose, vel, props, h);
}

/* C(x) into the kept rows' targets (ctn_rattle_slot) and the slot's joint error into err (a non-finite one
 * as infinity, which stops the iteration as on the CPU). */
__kernel void ctn_k_rattle_rows(int m, __global const ctn_joint_def *defs, __global const ctn_pose *pose, __global const ctn_vel *vel,
                                float h, __global ctn_block *blocks, __global float *err) {
    int s = (int)get_global_id(0);
    if (s >= m) return;
    float e = ctn_rattle_slot(s, defs, pose, vel, h, blocks);
    err[s] = e == e ? e : INFINITY;
}

/* w for the same world momentum at the new orientation, and the new inverse inertia (ctn_rattle_momentum_body);
 * the position projection's scratch velocities at rest in `rest` (ctn_project_begin_body), for the Newton
 * projection that follows a position stage the chord iteration and its splits did not finish. */
__kernel void ctn_k_rattle_momentum(int n, __global const ctn_pose *start, __global const ctn_pose *pose, __global ctn_vel *vel,
                                    __global const ctn_props *props, __global ctn_inertia *inertia, __global ctn_vel *rest) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    ctn_rattle_momentum_body(i, start, pose, vel, props, inertia);
    ctn_project_begin_body(i, rest);
}

/* The world inverse inertia of the current poses (ctn_inertia_body). */
__kernel void ctn_k_rattle_inertia(int n, __global const ctn_pose *pose, __global const ctn_props *props, __global ctn_inertia *inertia) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    ctn_inertia_body(i, pose, props, inertia);
}

/* The velocity stage's squared residual per slot (ctn_direct_residual_slot), read by the step's statistics. */
__kernel void ctn_k_rattle_residual(int m, __global const ctn_joint_def *defs, __global const ctn_block *blocks, __global const ctn_vel *vel,
                                    __global const float *lambda, __global float *r2, int ls) {
    int s = (int)get_global_id(0);
    if (s >= m) return;
    r2[s] = ctn_direct_residual_slot(s, defs, blocks, vel, lambda, ls);
}
