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
 * scratch[L] = min of scratch[L..2L), scratch[2L] = min of scratch[2L..3L). */
static void ctn_group_fold_max_min(__local int *scratch) {
    int l = (int)get_local_id(0), L = (int)get_local_size(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = L / 2; h > 0; h >>= 1) {
        if (l < h) {
            scratch[l] = max(scratch[l], scratch[l + h]);
            scratch[L + l] = min(scratch[L + l], scratch[L + l + h]);
            scratch[2 * L + l] = min(scratch[2 * L + l], scratch[2 * L + l + h]);
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

/* ---- the step's statistics in two launches ------------------------------------------------------- */

/* First pass of the step's statistics (stage MEASURE): per slot the joint error (ctn_joint_error) folded
 * with the residuals r2 as ctn_k_reduce3 folds them, then per body the device half of the divergence check
 * (host/core/divergence.c): the largest linear or angular speed, and the lowest id of a body that is
 * non-finite or faster than `limit` (n when none), and the lowest joint slot with a non-finite impulse in
 * lambda (ctn_impulse_bad, as the CPU; m when none); by G groups of L work-items in fixed orders (no
 * atomics). partial[3 g + k]: sum r2, largest gap, largest angle; ipartial[3 G + 3 g + k] (ipartial: the
 * same buffer as ints): largest speed (float bits), first bad body, first bad slot.
 * scratch: 3 L floats, iscratch: 3 L ints; L a power of two.
 * leave (after the exact solver's projection, which it ends): the Newton record `state`
 * (decided here when `decide`: the check after the last step) says whether the last step is undone; then
 * every work-item reads the kept poses instead of pose, the body pass puts them back (no work-item reads
 * pose then) and every body's world inverse inertia is formed at its pose; work-item 0 leaves the Newton
 * steps taken and whether Newton went on in istats[at], istats[at + 1] for the step's one blocking read. */
__kernel void ctn_k_measure(int m, int n, __global const ctn_joint_def *defs, __global ctn_pose *pose,
                            __global const ctn_vel *vel, __global const float *r2, __global const float *lambda, float limit, __global float *partial,
                            __global int *ipartial, __local float *scratch, __local int *iscratch, int leave,
                            __global const int *state, int decide, __global const ctn_pose *kept, __global const ctn_props *props,
                            __global ctn_inertia *inertia, __global int *istats, int at, int ls) {
    int l = (int)get_local_id(0), L = (int)get_local_size(0);
    int g = (int)get_group_id(0), G = (int)get_num_groups(0);
    float s = 0.0f, m1 = 0.0f, m2 = 0.0f;
    int undo = 0, bad_slot = m;
    if (leave) {
        int st[CTN_PS_INTS];
        if (decide) ctn_project_decided(state, st);
        else for (int k = 0; k < CTN_PS_INTS; ++k) st[k] = state[k];
        undo = st[CTN_PS_UNDO];
        if (g == 0 && l == 0) istats[at] = st[CTN_PS_STEPS], istats[at + 1] = st[CTN_PS_ACTIVE];
    }
    __global const ctn_pose *at_pose = undo ? kept : pose;
    for (int i = g * L + l; i < m; i += G * L) {
        ctn_joint_def j = defs[i];
        float gap, angle;
        ctn_joint_error(j, ctn_load_pose(at_pose, j.a), ctn_load_pose(at_pose, j.b), &gap, &angle);
        s += r2[i];
        if (ctn_impulse_bad(lambda, ls, i)) bad_slot = min(bad_slot, i);
        m1 = fmax(m1, gap);
        m2 = fmax(m2, angle);
    }
    float top = 0.0f;
    int bad = n;
    for (int i = g * L + l; i < n; i += G * L) {
        ctn_pose p = at_pose[i];
        ctn_vel v = vel[i];
        if (undo) pose[i] = p;
        if (leave) ctn_inertia_body(i, at_pose, props, inertia);
        int finite = isfinite(p.p.x) && isfinite(p.p.y) && isfinite(p.p.z) && isfinite(p.p_lo.x) && isfinite(p.p_lo.y) &&
                     isfinite(p.p_lo.z) && isfinite(p.q.w) && isfinite(p.q.x) && isfinite(p.q.y) &&
                     isfinite(p.q.z) && isfinite(v.v.x) && isfinite(v.v.y) && isfinite(v.v.z) && isfinite(v.w.x) && isfinite(v.w.y) &&
                     isfinite(v.w.z);
        float sp = fmax(ctn_length(v.v), ctn_length(v.w));
        if (!finite || !(sp <= limit)) bad = min(bad, i);
        if (finite && isfinite(sp)) top = fmax(top, sp);
    }
    scratch[l] = s;
    scratch[L + l] = m1;
    scratch[2 * L + l] = m2;
    iscratch[l] = as_int(top);
    iscratch[L + l] = bad;
    iscratch[2 * L + l] = bad_slot;
    ctn_group_fold3(scratch);
    ctn_group_fold_max_min(iscratch);
    if (l == 0) {
        partial[3 * g + 0] = scratch[0];
        partial[3 * g + 1] = scratch[L];
        partial[3 * g + 2] = scratch[2 * L];
        ipartial[3 * G + 3 * g] = iscratch[0];
        ipartial[3 * G + 3 * g + 1] = iscratch[L];
        ipartial[3 * G + 3 * g + 2] = iscratch[2 * L];
    }
}

/* Final pass of ctn_k_measure over its `groups` partials by one work-group: stats[0..2] as
 * ctn_k_reduce3_final; istats[at], istats[at + 1], istats[at + 2] (the same buffer as ints): largest speed
 * bits, first bad body, first slot with a non-finite impulse (m when none). */
__kernel void ctn_k_measure_final(int groups, int n, int m, __global const float *partial, __global const int *ipartial,
                                  __global float *stats, __global int *istats, int at, __local float *scratch, __local int *iscratch) {
    int l = (int)get_local_id(0), L = (int)get_local_size(0);
    float s = 0.0f, m1 = 0.0f, m2 = 0.0f;
    int top = 0, bad = n, bad_slot = m;
    for (int i = l; i < groups; i += L) {
        s += partial[3 * i];
        m1 = fmax(m1, partial[3 * i + 1]);
        m2 = fmax(m2, partial[3 * i + 2]);
        top = max(top, ipartial[3 * groups + 3 * i]);
        bad = min(bad, ipartial[3 * groups + 3 * i + 1]);
        bad_slot = min(bad_slot, ipartial[3 * groups + 3 * i + 2]);
    }
    scratch[l] = s;
    scratch[L + l] = m1;
    scratch[2 * L + l] = m2;
    iscratch[l] = top;
    iscratch[L + l] = bad;
    iscratch[2 * L + l] = bad_slot;
    ctn_group_fold3(scratch);
    ctn_group_fold_max_min(iscratch);
    if (l == 0) {
        stats[0] = scratch[0];
        stats[1] = scratch[L];
        stats[2] = scratch[2 * L];
        istats[at] = iscratch[0];
        istats[at + 1] = iscratch[L];
        istats[at + 2] = iscratch[2 * L];
    }
}
