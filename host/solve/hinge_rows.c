/* The exact solver's row build on the CPU where the rows stay in 288-byte blocks (CTN_STAGE_PREPARE for
 * CTN_SOLVER_DIRECT and the hybrids; kernels/ctn_solver.h ctn_prepare_slot_rows, and for the projection
 * ctn_project_block): a hinge takes a lean build with the same bits, every other joint the shared build.
 *
 * A plain hinge has five bilateral rows (ctn_rows_hinge): the three point rows along the world axes e_k with the
 * anchor separation C = (x_a + R_a anchor_a) - (x_b + R_b anchor_b) (ctn_point_sep of the two-float positions,
 * Lacoursiere 2011, eq. 30) and the two angular rows along t1, t2 across a1 = R_a axis_a (ctn_basis) with
 * C_k = t_k . (a2 x a1), a2 = R_b axis_b (ctn_rows_parallel). Their targets are SPOOK's -(4Y/h) C + Y J v or
 * Baumgarte's -(beta/h) C (ctn_rows_ball_coef: the generic builder's coefficients, the same expressions), with
 * J v = e_k . dv, dv = (v_a + w_a x r_a) - (v_b + w_b x r_b), for the point rows and t_k . (w_a - w_b) for the
 * angular ones (ctn_block_velocity). ctn_joint_prepare_rows_generic forms the same values through the joint and
 * both poses and velocities passed by value, a zeroed error array, per-row loops and tests of a run-time row
 * count, and the tests of the unilateral, contact, curve and motor cases that a plain hinge never takes; here the
 * joint and the bodies are read where they lie and only the arithmetic that forms a stored value is done, in the
 * same order. Every stored field is the generic build's: dir[0..2] the world axes, dir[5] left as it was, the
 * bounds unbounded, bias[5] = soft[5] = 0, pad[0] = 0 (no point block), kinv zero (ctn_prepare_slot_rows). A hinge
 * with a limit or a motor adds its sixth row about a1 (hinge_sixth) and goes through ctn_project_block itself.
 *
 * With SSE2 (every x86-64) the three components of the lever arms, rotated axes, separation and relative
 * velocities go through the scalar functions' arithmetic together (host/solve/lanes.h: rotate4 is
 * ctn_quat_rotate lane by lane), and the point rows' J v are the dot products with the world axes with the axes'
 * 1s and 0s in the lanes (a product by a structural zero is kept: it decides the sign of a zero and turns an
 * infinite component into a NaN, as in the scalar dot product). Projecting, the rows get ctn_project_block's
 * rule for five bilateral rows: a rigid joint (compliance <= 0) keeps them and reports max_k |target_k| h
 * (in row order); a compliant one gets bounds [0, 0] and reports 0. Without SSE2 the errors, lever arms and
 * directions come from ctn_hinge_position (kernels/ctn_joint_rows.h, shared with chord_rows.c's fallback).
 * tests/test_hinge_rows.c compares the blocks and errors byte for byte with the shared build on random joints,
 * poses and velocities; test_hinge_rows_scalar does so with this file compiled with __SSE2__ undefined. */
#include "solve/solve.h"
#include "solve/lanes.h"
#include "ctn_solver.h"

#include <stddef.h>
#include <string.h>

int ctn__hinge_lean(const ctn_joint_def *d) { return d->type == CTN_JT_HINGE; }

/* the generic build's largest |C| of a rigid plain hinge's rows and their bounds (ctn_project_block, five
 * bilateral rows: bounded = 0, so the rule without limits whatever `limits` says). worst is never NaN, so
 * CTN_FMAX(worst, e) is e > worst ? e : worst (a NaN e leaves worst; e >= +0 for the substep's h > 0: no zero of
 * the other sign), without the host's call to fmaxf (ctn_project_ball_row's argument). */
static inline float hinge_project(float compliance, ctn_block *b, float h) {
    float worst = 0.0f;
    if (compliance <= 0.0f) {
        for (int k = 0; k < 5; ++k) {
            float e = CTN_FABS(b->bias[k]) * h;
            worst = e > worst ? e : worst;
        }
    } else {
        for (int k = 0; k < 5; ++k) b->lo[k] = b->hi[k] = 0.0f;
    }
    return worst;
}

/* The stores of everything but the lever arms, directions 3..4 and targets: the point rows' axes, the bounds, the
 * softness, bias[5], pad and kinv, as the generic build leaves them for a plain hinge. */
static inline void hinge_fixed_fields(ctn_block *b, float soft) {
    b->n_lin = 3;
    b->n_ang = 2;
    b->dir[0] = ctn_v3_make(1.0f, 0.0f, 0.0f);
    b->dir[1] = ctn_v3_make(0.0f, 1.0f, 0.0f);
    b->dir[2] = ctn_v3_make(0.0f, 0.0f, 1.0f);
    for (int k = 0; k < CTN_KINV_SIZE; ++k) b->kinv[k] = 0.0f;
    b->bias[5] = 0.0f;
    for (int k = 0; k < 5; ++k) b->soft[k] = soft;
    b->soft[5] = 0.0f;
    for (int k = 0; k < CTN_MAX_ROWS; ++k) {
        b->lo[k] = -CTN_INF;
        b->hi[k] = CTN_INF;
    }
    b->pad[0] = 0.0f;
}

/* The sixth row of a hinge with a limit or a motor (ctn_rows_hinge, ctn_limit_row, the targets and the motor block
 * of ctn_joint_prepare_rows_generic), the same operations in the same order: along a1 with C = 0, or with a limit
 * the row guarding the nearer limit, along a1 (C = theta - lo) or -a1 (C = hi - theta), lambda >= 0, theta the
 * hinge angle 2 atan2(vec(q_e) . a1, w(q_e)) of q_e = (q_a q_rel) q_b^* (ctn_hinge_angle), a not yet violated
 * limit speculative (target -C/h); then the motor: a velocity row along a1 with target speed `stiffness` and
 * bounds +-F h, or driving into the limit the limit row's target raised to the motor's speed. qa, qb: the bodies'
 * orientations (the identity for the world), a1 = R_a axis_a, dw = w_a - w_b. err: returns ctn_project_block's
 * error of the block (the rule with limits where `limits` is set), else 0. */
static inline float hinge_sixth(const ctn_joint_def *d, ctn_quat qa, ctn_quat qb, ctn_v3 a1, ctn_v3 dw, float soft, float cg, float cj,
                                    int spook, float h, ctn_block *b, int err, int limits) {
    int limited = (d->flags & CTN_JF_LIMIT) != 0;
    ctn_v3 dir = a1;
    float g = 0.0f, lo = -CTN_INF, hi = CTN_INF;
    if (limited) {
        ctn_quat qe = ctn_quat_mul(ctn_quat_mul(qa, d->rel_q), ctn_quat_conj(qb));
        float sn = ctn_dot(ctn_v3_make(qe.x, qe.y, qe.z), a1), cs = qe.w;
        if (cs < 0.0f) sn = -sn, cs = -cs;
        float value = 2.0f * CTN_ATAN2(sn, cs);
        if (value - d->lo < d->hi - value) {
            g = value - d->lo;
        } else {
            dir = ctn_neg(a1);
            g = d->hi - value;
        }
        lo = 0.0f;
    }
    float jv = ctn_dot(dir, dw);
    float target = spook ? cg * g + cj * jv : cg * g;
    if (lo == 0.0f && g > 0.0f) target = -g / h;
    float sf = soft;
    if (d->flags & CTN_JF_MOTOR) {
        int reached = limited && g + h * jv <= 0.0f;
        float toward = ctn_dot(dir, a1) * d->stiffness;
        if (limited && toward < 0.0f) {
            if (toward >= target) sf = 0.0f;
            target = CTN_FMAX(toward, target);
            lo = -d->damping * h;
            hi = reached ? CTN_INF : d->damping * h;
        } else if (!reached) {
            dir = a1;
            target = d->stiffness;
            sf = 0.0f;
            lo = -d->damping * h;
            hi = d->damping * h;
        }
    }
    b->n_ang = 3;
    b->dir[5] = dir;
    b->bias[5] = target;
    b->soft[5] = sf;
    b->lo[5] = lo;
    b->hi[5] = hi;
    return err ? ctn_project_block(d->compliance, b, h, limits) : 0.0f;
}

/* hinge_body is compiled twice, with six a constant (hinge_plain, hinge_six): the plain hinge's instance carries
 * none of the sixth row's code (one body with a run-time test cost the plain hinge's build 27 instructions, callgrind) */
#if defined(__GNUC__)
#define HINGE_INLINE inline __attribute__((always_inline))
#else
#define HINGE_INLINE inline
#endif

#if defined(__SSE2__)
static HINGE_INLINE float hinge_body(int s, ctn_joints defs, const ctn_pose *pose, const ctn_vel *vel, ctn_step_params prm,
                                     ctn_block *blocks, int err, int limits, int six) {
    /* a hinge's axes are extras: a world with a hinge holds the extras array (host/core/joint_store.c) */
    const ctn_joint_core *d = &defs.core[s];
    const ctn_joint_extra *x = &defs.extra[s];
    const ctn_pose *pa = body_pose(pose, d->a), *pb = body_pose(pose, d->b);
    const ctn_vel *va = body_vel(vel, d->a), *vb = body_vel(vel, d->b);
    __m128 qa = _mm_loadu_ps(&pa->q.w), qb = _mm_loadu_ps(&pb->q.w);
    __m128 ra = rotate4(qa, _mm_loadu_ps(&d->anchor_a.x)), rb = rotate4(qb, _mm_loadu_ps(&d->anchor_b.x));
    __m128 a1 = rotate4(qa, _mm_loadu_ps(&x->axis_a.x)), a2 = rotate4(qb, _mm_loadu_ps(&x->axis_b.x));
    __m128 g = point_sep4(pa, pb, ra, rb);
    __m128 jv = axes_jv4(anchor_dv4(va, vb, ra, rb)); /* the point rows' J v */
    /* ctn_rows_parallel: t1, t2 across a1, C_k = t_k . (a2 x a1); J v = t_k . (w_a - w_b) */
    ctn_v3 t1, t2;
    ctn_basis(lanes_v3(a1), &t1, &t2);
    ctn_v3 c = lanes_v3(cross4v(a2, a1));
    ctn_v3 dw = lanes_v3_from1(_mm_sub_ps(_mm_loadu_ps(&va->v.z), _mm_loadu_ps(&vb->v.z))); /* (v.z, w) of each */
    float g3 = ctn_dot(t1, c), g4 = ctn_dot(t2, c), j3 = ctn_dot(t1, dw), j4 = ctn_dot(t2, dw);
    float cg, cj;
    int spook;
    float soft = ctn_rows_ball_coef(x->flags, d->compliance, x->damping_time, prm, &cg, &cj, &spook);
    __m128 bias = _mm_mul_ps(_mm_set1_ps(cg), g);
    float b3 = cg * g3, b4 = cg * g4;
    if (spook) {
        bias = _mm_add_ps(bias, _mm_mul_ps(_mm_set1_ps(cj), jv));
        b3 = b3 + cj * j3;
        b4 = b4 + cj * j4;
    }
    ctn_block *b = &blocks[s];
    hinge_fixed_fields(b, soft);
    b->ra = lanes_v3(ra);
    b->rb = lanes_v3(rb);
    b->dir[3] = t1;
    b->dir[4] = t2;
    _mm_storeu_ps(b->bias, bias); /* bias[0..2], lane 3 overwritten next */
    b->bias[3] = b3;
    b->bias[4] = b4;
    if (six) {
        ctn_joint_def full = ctn_joint_make(*d, *x);
        return hinge_sixth(&full, pa->q, pb->q, lanes_v3(a1), dw, soft, cg, cj, spook, prm.h, b, err, limits);
    }
    return err ? hinge_project(d->compliance, b, prm.h) : 0.0f;
}
#else
static HINGE_INLINE float hinge_body(int s, ctn_joints defs, const ctn_pose *pose, const ctn_vel *vel, ctn_step_params prm,
                                     ctn_block *blocks, int err, int limits, int six) {
    /* a hinge's axes are extras: a world with a hinge holds the extras array (host/core/joint_store.c) */
    const ctn_joint_core *d = &defs.core[s];
    const ctn_joint_extra *x = &defs.extra[s];
    ctn_pose pa = ctn_load_pose(pose, d->a), pb = ctn_load_pose(pose, d->b);
    ctn_vel va = ctn_load_vel(vel, d->a), vb = ctn_load_vel(vel, d->b);
    ctn_hinge_pos hp = ctn_hinge_position(pa, pb, d->anchor_a, d->anchor_b, x->axis_a, x->axis_b); /* ctn_rows_hinge's C */
    ctn_v3 dv = ctn_sub(ctn_add(va.v, ctn_cross(va.w, hp.ra)), ctn_add(vb.v, ctn_cross(vb.w, hp.rb)));
    ctn_v3 dw = ctn_sub(va.w, vb.w);
    float jv[5] = {ctn_dot(ctn_v3_make(1.0f, 0.0f, 0.0f), dv), ctn_dot(ctn_v3_make(0.0f, 1.0f, 0.0f), dv),
                   ctn_dot(ctn_v3_make(0.0f, 0.0f, 1.0f), dv), ctn_dot(hp.t1, dw), ctn_dot(hp.t2, dw)};
    float cg, cj;
    int spook;
    float soft = ctn_rows_ball_coef(x->flags, d->compliance, x->damping_time, prm, &cg, &cj, &spook);
    ctn_block *b = &blocks[s];
    hinge_fixed_fields(b, soft);
    b->ra = hp.ra;
    b->rb = hp.rb;
    b->dir[3] = hp.t1;
    b->dir[4] = hp.t2;
    for (int k = 0; k < 5; ++k) b->bias[k] = spook ? cg * hp.g[k] + cj * jv[k] : cg * hp.g[k];
    if (six) {
        ctn_joint_def full = ctn_joint_make(*d, *x);
        return hinge_sixth(&full, pa.q, pb.q, hp.a1, dw, soft, cg, cj, spook, prm.h, b, err, limits);
    }
    return err ? hinge_project(d->compliance, b, prm.h) : 0.0f;
}
#endif

/* joint s's block, a hinge without (hinge_plain) or with (hinge_six) a limit or a motor; err: return the projection's
 * error (ctn_project_block's, with the limits' rule where `limits` is set), else 0 */
static float hinge_plain(int s, ctn_joints defs, const ctn_pose *pose, const ctn_vel *vel, ctn_step_params prm, ctn_block *blocks,
                         int err) {
    return hinge_body(s, defs, pose, vel, prm, blocks, err, 0, 0);
}
static float hinge_six(int s, ctn_joints defs, const ctn_pose *pose, const ctn_vel *vel, ctn_step_params prm, ctn_block *blocks,
                       int err, int limits) {
    return hinge_body(s, defs, pose, vel, prm, blocks, err, limits, 1);
}
static inline float hinge_slot(int s, ctn_joints defs, const ctn_pose *pose, const ctn_vel *vel, ctn_step_params prm, ctn_block *blocks,
                               int err, int limits) {
    return defs.extra[s].flags & (CTN_JF_LIMIT | CTN_JF_MOTOR) ? hinge_six(s, defs, pose, vel, prm, blocks, err, limits)
                                                         : hinge_plain(s, defs, pose, vel, prm, blocks, err);
}

float ctn__exact_rows(ctn_joints defs, int m, const ctn_pose *pose, const ctn_vel *vel, ctn_step_params prm, ctn_block *blocks,
                      int project, int limits, float *err, int threads) {
    float worst = 0.0f;
    /* the two arrays as read-only locals: OpenMP copies them into the team's data once, where the struct
     * parameter would be shared by address and reloaded every joint (callgrind) */
    const ctn_joint_core *const core = defs.core;
    const ctn_joint_extra *const extra = defs.extra;
    if (!project) {
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (threads > 1) num_threads(threads)
#endif
        for (int s = 0; s < m; ++s) {
            ctn_joints J = ctn_joints_of(core, extra);
            if (CTN_JC(J, s).type == CTN_JT_HINGE) (void)hinge_slot(s, J, pose, vel, prm, blocks, 0, 0);
            else ctn_prepare_slot_rows(s, J, pose, vel, prm, blocks);
        }
    } else {
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (threads > 1) num_threads(threads) reduction(max : worst)
#endif
        for (int s = 0; s < m; ++s) {
            float e;
            ctn_joints J = ctn_joints_of(core, extra);
            if (CTN_JC(J, s).type == CTN_JT_HINGE) {
                e = hinge_slot(s, J, pose, vel, prm, blocks, 1, limits);
            } else {
                ctn_prepare_slot_rows(s, J, pose, vel, prm, blocks);
                e = ctn_project_block(CTN_JC(J, s).compliance, &blocks[s], prm.h, limits);
            }
            if (limits) err[s] = e;
            worst = e > worst ? e : worst; /* never NaN: ctn_project_block's CTN_FMAX drops them */
        }
    }
    (void)threads;
    return worst;
}
