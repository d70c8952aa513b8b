/* Measurements, the fixed-shape reductions and the divergence check. Part of the program kernels/catena.cl (included there, in order). */

/* ---- measurements and deterministic reductions ---------------------------------------------------- */

/* Joint error of every slot at the current poses (ctn_joint_error, as ctn__measure_host). */
__kernel void ctn_k_joint_error(int m, __global const ctn_joint_def *defs, __global const ctn_pose *pose, __global float *gap,
                                __global float *angle) {
    int s = (int)get_global_id(0);
    if (s >= m) return;
    ctn_joint_def j = defs[s];
    float g, a;
    ctn_joint_error(j, ctn_load_pose(pose, j.a), ctn_load_pose(pose, j.b), &g, &a);
    gap[s] = g;
    angle[s] = a;
}

/* Folds a work-group's scratch in fixed pairwise order: scratch[0] = sum of scratch[0..L), scratch[L] and
 * scratch[2L] = max of the next two L-blocks. Every work-item of the group must call it. */
static void ctn_group_fold3(__local float *scratch) {
    int l = (int)get_local_id(0), L = (int)get_local_size(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = L / 2; h > 0; h >>= 1) {
        if (l < h) {
            scratch[l] += scratch[l + h];
            scratch[L + l] = fmax(scratch[L + l], scratch[L + l + h]);
            scratch[2 * L + l] = fmax(scratch[2 * L + l], scratch[2 * L + l + h]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* The same for ints: scratch[0] = max of scratch[0..L) (non-negative floats order like their int bits),
 * scratch[L] = min of scratch[L..2L). */
static void ctn_group_fold_max_min(__local int *scratch) {
    int l = (int)get_local_id(0), L = (int)get_local_size(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = L / 2; h > 0; h >>= 1) {
        if (l < h) {
            scratch[l] = max(scratch[l], scratch[l + h]);
            scratch[L + l] = min(scratch[L + l], scratch[L + l + h]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* Tree reduction of three arrays in one pass: sum of x0, max of x1 and x2 (residual^2, gap, angle).
 * Work-item l of group g first folds elements g*L + l, g*L + l + G*L, ... (G groups of L items, both
 * fixed for a given n and device), then the group folds its L values pairwise with barriers between
 * levels. The order of every addition is fixed, so the result is bitwise reproducible; no atomics.
 * Writes out[3 g + k]. L must be a power of two; scratch holds 3 L floats. */
__kernel void ctn_k_reduce3(int n, __global const float *x0, __global const float *x1, __global const float *x2,
                            __global float *out, __local float *scratch) {
    int l = (int)get_local_id(0), L = (int)get_local_size(0);
    int g = (int)get_group_id(0), G = (int)get_num_groups(0);
    float s = 0.0f, m1 = 0.0f, m2 = 0.0f;
    for (int i = g * L + l; i < n; i += G * L) {
        s += x0[i];
        m1 = fmax(m1, x1[i]);
        m2 = fmax(m2, x2[i]);
    }
    scratch[l] = s;
    scratch[L + l] = m1;
    scratch[2 * L + l] = m2;
    ctn_group_fold3(scratch);
    if (l == 0) {
        out[3 * g + 0] = scratch[0];
        out[3 * g + 1] = scratch[L];
        out[3 * g + 2] = scratch[2 * L];
    }
}

/* Final pass over the `groups` partial triples of ctn_k_reduce3 by one work-group: out[0..2]. */
__kernel void ctn_k_reduce3_final(int groups, __global const float *partial, __global float *out, __local float *scratch) {
    int l = (int)get_local_id(0), L = (int)get_local_size(0);
    float s = 0.0f, m1 = 0.0f, m2 = 0.0f;
    for (int i = l; i < groups; i += L) {
        s += partial[3 * i];
        m1 = fmax(m1, partial[3 * i + 1]);
        m2 = fmax(m2, partial[3 * i + 2]);
    }
    scratch[l] = s;
    scratch[L + l] = m1;
    scratch[2 * L + l] = m2;
    ctn_group_fold3(scratch);
    if (l == 0) {
        out[0] = scratch[0];
        out[1] = scratch[L];
        out[2] = scratch[2 * L];
    }
}

/* ---- divergence check -------------------------------------------------------------------- */

/* The device half of host/divergence.c, two passes like ctn_k_reduce3 (fixed order, no atomics): the
 * largest linear or angular speed of a body, and the lowest id of a body that is non-finite or faster
 * than `limit` (n when none). First pass: out[2 g], out[2 g + 1] per group (speeds as float bits, ids as
 * int bits of one int buffer); scratch holds 2 L ints; L a power of two. */
__kernel void ctn_k_body_check(int n, __global const ctn_pose *pose, __global const ctn_vel *vel, float limit, __global int *out,
                               __local int *scratch) {
    int l = (int)get_local_id(0), L = (int)get_local_size(0);
    int g = (int)get_group_id(0), G = (int)get_num_groups(0);
    float top = 0.0f;
    int bad = n;
    for (int i = g * L + l; i < n; i += G * L) {
        ctn_pose p = pose[i];
        ctn_vel v = vel[i];
        int finite = isfinite(p.p.x) && isfinite(p.p.y) && isfinite(p.p.z) && isfinite(p.p_lo.x) && isfinite(p.p_lo.y) &&
                     isfinite(p.p_lo.z) && isfinite(p.q.w) && isfinite(p.q.x) && isfinite(p.q.y) &&
                     isfinite(p.q.z) && isfinite(v.v.x) && isfinite(v.v.y) && isfinite(v.v.z) && isfinite(v.w.x) && isfinite(v.w.y) &&
                     isfinite(v.w.z);
        float s = fmax(ctn_length(v.v), ctn_length(v.w));
        if (!finite || !(s <= limit)) bad = min(bad, i);
        if (finite && isfinite(s)) top = fmax(top, s);
    }
    scratch[l] = as_int(top);
    scratch[L + l] = bad;
    ctn_group_fold_max_min(scratch);
    if (l == 0) {
        out[2 * g] = scratch[0];
        out[2 * g + 1] = scratch[L];
    }
}

/* Final pass over the `groups` pairs by one work-group: out[at] (speed bits), out[at + 1] (first bad id). */
__kernel void ctn_k_body_check_final(int groups, int n, __global const int *partial, __global int *out, int at, __local int *scratch) {
    int l = (int)get_local_id(0), L = (int)get_local_size(0);
    int top = 0, bad = n;
    for (int i = l; i < groups; i += L) {
        top = max(top, partial[2 * i]);
        bad = min(bad, partial[2 * i + 1]);
    }
    scratch[l] = top;
    scratch[L + l] = bad;
    ctn_group_fold_max_min(scratch);
    if (l == 0) {
        out[at] = scratch[0];
        out[at + 1] = scratch[L];
    }
}
