/* Constraint rows: Jacobians, effective masses, SPOOK right-hand sides and the block update.
 *
 * Shared by the CPU solver (host/solve/solver_cpu.c) and the OpenCL kernels (kernels/catena.cl), so both run
 * the same math. All pointers point to private (stack) memory; kernels copy global data in and out.
 *
 * Every joint is written as up to 3 linear rows along world directions d (the point-to-point Jacobian of
 * Lacoursière 2011, eq. 31 projected on d) and up to 3 angular rows along world axes t:
 *     linear:  J = [ d^T,  (ra x d)^T,  -d^T,  -(rb x d)^T ]   so  J v = d . (va + wa x ra - vb - wb x rb)
 *     angular: J = [ 0,    t^T,          0,    -t^T       ]   so  J v = t . (wa - wb)
 * which covers distance (1 row along the anchor separation, eq. 32), ball (3 rows along the world axes,
 * eq. 31), hinge (ball + 2 axes perpendicular to the hinge axis), fixed (ball + 3 world axes), universal
 * (ball + 1 angular row) and cone-twist (ball + swing and twist limit rows).
 */
#ifndef CTN_ROWS_H
#define CTN_ROWS_H

#include "ctn_joint_rows.h"
#include "ctn_types.h"

/* Index of (i, j), j <= i, in a packed lower triangle. */
#define CTN_TRI(i, j) ((i) * ((i) + 1) / 2 + (j))

/* Contact blocks (3 rows) keep the normal-friction couplings K_t1n, K_t2n in kinv entries no 3-row block
 * uses (see ctn_joint_prepare). */
#define CTN_CONTACT_K1N 15
#define CTN_CONTACT_K2N 16
/* Approach speed (m/s) below which a contact does not bounce (restitution off for resting contacts). */
#define CTN_RESTITUTION_SPEED 0.2f
/* ctn_block.pad[0] of a point block: 3 linear rows, all bilateral (a ball joint), which Gauss-Seidel updates
 * by ctn_block_solve_point. Contact blocks hold 1 + mu > 0 there, every other block 0. */
#define CTN_BLOCK_POINT -1.0f

CTN_FN int ctn_block_rows(const ctn_block *b) { return b->n_lin + b->n_ang; }

/* Body-a and body-b angular parts of row k: (ra x d, rb x d) for linear rows, (t, t) for angular rows. */
CTN_FN void ctn_row_angular(const ctn_block *b, int k, ctn_v3 *ua, ctn_v3 *ub) {
    if (k < b->n_lin) {
        *ua = ctn_cross(b->ra, b->dir[k]);
        *ub = ctn_cross(b->rb, b->dir[k]);
    } else {
        *ua = b->dir[k];
        *ub = b->dir[k];
    }
}

/* J v of every row for body velocities (va, wa), (vb, wb). */
CTN_FN void ctn_block_velocity(const ctn_block *b, ctn_vel va, ctn_vel vb, float *jv) {
    ctn_v3 dv = ctn_sub(ctn_add(va.v, ctn_cross(va.w, b->ra)), ctn_add(vb.v, ctn_cross(vb.w, b->rb)));
    ctn_v3 dw = ctn_sub(va.w, vb.w);
    int k;
    for (k = 0; k < b->n_lin; ++k) jv[k] = ctn_dot(b->dir[k], dv);
    for (k = b->n_lin; k < b->n_lin + b->n_ang; ++k) jv[k] = ctn_dot(b->dir[k], dw);
}

/* K = J M^-1 J^T for the block (dense n x n, row-major in k[36]); inverse masses and inertias may be
 * scaled for mass splitting by the caller. */
CTN_FN void ctn_block_effective_mass(const ctn_block *b, float ima, ctn_sym3 Ia, float imb, ctn_sym3 Ib, float *k) {
    int n = ctn_block_rows(b);
    ctn_v3 ua[CTN_MAX_ROWS], ub[CTN_MAX_ROWS];
    int i, j;
    for (i = 0; i < n; ++i) ctn_row_angular(b, i, &ua[i], &ub[i]);
    for (i = 0; i < n; ++i) {
        for (j = 0; j <= i; ++j) {
            float kij = ctn_sym3_form(Ia, ua[i], ua[j]) + ctn_sym3_form(Ib, ub[i], ub[j]);
            if (i < b->n_lin && j < b->n_lin) kij += (ima + imb) * ctn_dot(b->dir[i], b->dir[j]);
            k[i * CTN_MAX_ROWS + j] = kij;
            k[j * CTN_MAX_ROWS + i] = kij;
        }
    }
}

/* Inverse of the SPD n x n matrix k (row-major, stride CTN_MAX_ROWS) by Cholesky, written as a packed
 * lower triangle. Returns 0 and writes zeros when k is not positive definite (an inactive block, e.g. a
 * joint between two kinematic bodies). */
CTN_FN int ctn_spd_inverse(const float *k, int n, float *kinv) {
    float l[CTN_MAX_ROWS * CTN_MAX_ROWS];
    int i, j, c;
    for (i = 0; i < CTN_KINV_SIZE; ++i) kinv[i] = 0.0f;
    for (j = 0; j < n; ++j) {
        float d = k[j * CTN_MAX_ROWS + j];
        for (c = 0; c < j; ++c) d -= l[j * CTN_MAX_ROWS + c] * l[j * CTN_MAX_ROWS + c];
        if (!(d > 1e-30f)) return 0;
        d = CTN_SQRT(d);
        l[j * CTN_MAX_ROWS + j] = d;
        for (i = j + 1; i < n; ++i) {
            float s = k[i * CTN_MAX_ROWS + j];
            for (c = 0; c < j; ++c) s -= l[i * CTN_MAX_ROWS + c] * l[j * CTN_MAX_ROWS + c];
            l[i * CTN_MAX_ROWS + j] = s / d;
        }
    }
    /* Column e_c of the inverse: solve L y = e_c, then L^T x = y; keep x_i for i >= c. */
    for (c = 0; c < n; ++c) {
        float y[CTN_MAX_ROWS];
        for (i = 0; i < n; ++i) {
            float s = i == c ? 1.0f : 0.0f;
            for (j = 0; j < i; ++j) s -= l[i * CTN_MAX_ROWS + j] * y[j];
            y[i] = s / l[i * CTN_MAX_ROWS + i];
        }
        for (i = n - 1; i >= 0; --i) {
            float s = y[i];
            for (j = i + 1; j < n; ++j) s -= l[j * CTN_MAX_ROWS + i] * y[j];
            y[i] = s / l[i * CTN_MAX_ROWS + i];
        }
        for (i = c; i < n; ++i) kinv[CTN_TRI(i, c)] = y[i];
    }
    return 1;
}

/* y = K^-1 x with K^-1 packed. */
CTN_FN void ctn_kinv_mul(const float *kinv, int n, const float *x, float *y) {
    int i, j;
    if (n == 3) { /* a ball joint's block, unrolled: the same products summed in the same order */
        y[0] = ((0.0f + kinv[0] * x[0]) + kinv[1] * x[1]) + kinv[3] * x[2];
        y[1] = ((0.0f + kinv[1] * x[0]) + kinv[2] * x[1]) + kinv[4] * x[2];
        y[2] = ((0.0f + kinv[3] * x[0]) + kinv[4] * x[1]) + kinv[5] * x[2];
        return;
    }
    for (i = 0; i < n; ++i) {
        float s = 0.0f;
        for (j = 0; j < n; ++j) s += kinv[i >= j ? CTN_TRI(i, j) : CTN_TRI(j, i)] * x[j];
        y[i] = s;
    }
}

/* Acceleration-level rows of a curve joint (Witkin and Baraff 2001, "Constrained dynamics"): instead of
 * SPOOK's velocity target, the constraint acceleration is prescribed with feedback,
 *     J W J^T lambda = -Jdot qdot - J W Q - k_s C - k_d Cdot,
 * i.e. J a = -Jdot qdot - k_s g - k_d J v. Over the substep a = (v+ - v)/h, and the forces Q are already in
 * the predicted velocity the solver starts from, so the rows become the rigid velocity target
 *     J v+ = J v + h (-Jdot qdot - k_s g - k_d J v)   (no regularisation),
 * v the velocity at the start of the substep. Jdot qdot_k = n_k . (wa x (wa x ra)) - n_k . c'' tdot^2: the
 * bead's centripetal acceleration and the curve's (kappa |v|^2 towards the centre of curvature), with
 * tdot = (v_rel . t) / |c'|. A curve in a moving body's frame leaves out that frame's own velocity
 * products (its centripetal and Coriolis terms); the feedback absorbs them. */
CTN_FN void ctn_curve_accel_rows(ctn_joint_def j, ctn_pose pb, ctn_vel va, ctn_vel vb, const float *g,
                                 const float *jv, float h, ctn_block *blk) {
    ctn_v3 ra = blk->ra;
    ctn_v3 x = ctn_quat_rotate_inv(pb.q, blk->rb);
    ctn_curve_point cp = ctn_curve_closest(j, x);
    ctn_v3 vrel = ctn_sub(ctn_add(va.v, ctn_cross(va.w, ra)), ctn_add(vb.v, ctn_cross(vb.w, blk->rb)));
    float tdot = ctn_dot(vrel, ctn_quat_rotate(pb.q, cp.t)) / cp.speed;
    ctn_v3 cdd = ctn_quat_rotate(pb.q, cp.cdd);
    ctn_v3 cent = ctn_cross(va.w, ctn_cross(va.w, ra));
    int k;
    for (k = 0; k < 2; ++k) {
        float jdqd = ctn_dot(blk->dir[k], cent) - ctn_dot(blk->dir[k], cdd) * tdot * tdot;
        blk->bias[k] = jv[k] + h * (-jdqd - j.stiffness * g[k] - j.damping * jv[k]);
        blk->soft[k] = 0.0f;
    }
}

/* The two row builders inlined into ctn_joint_prepare_rows on the host: a call in between passes the
 * joint, the poses and the velocities by value once more (callgrind: +70 instructions a row build). */
#if defined(__GNUC__) && !defined(__OPENCL_VERSION__)
#define CTN_ROWS_INLINE __attribute__((always_inline))
#else
#define CTN_ROWS_INLINE
#endif

/* ctn_joint_prepare_rows of a ball joint (ctn_joint_rows, ctn_rows_point, then the SPOOK or Baumgarte
 * targets): the same operations in the same order, with the row count, the bounds and the joint type known,
 * so none of the generic builder's per-row tests, switch and loops remain. Rows 3..5 of dir are left as
 * they are, as ctn_joint_rows leaves them. */
/* ctn_rows_ball_fields is its body on the fields of the joint it reads, so that a caller with the joint in
 * memory passes those and not a copy of the whole definition (ctn_prepare_slot_rows). ctn_rows_ball_core forms
 * what varies (the lever arms, the three targets; returns the rows' one softness S), which ctn_rows_ball_fields
 * stores into a ctn_block and ctn_prepare_slot_ball_row into the exact solver's 40-byte ctn_ball_row: the same
 * operations for both, so the same bits. J v of row k is d_k . dv with d_k the k-th world axis, as the block's
 * directions give it. */
/* The targets' coefficients of a ball joint's rows, target_k = cg g_k + cj (J v)_k with SPOOK (cg = -4Y/h, cj = Y)
 * or cg g_k alone with Baumgarte (*spook = 0: cg = -beta/h), and the rows' softness (returned); the CPU's lane-wise
 * build of the exact solver's ball records (host/solve/ball_rows.c) takes them from here too. */
CTN_ROWS_INLINE CTN_FN float ctn_rows_ball_coef(int flags, float compliance, float damping_time, ctn_step_params prm, float *cg, float *cj,
                                               int *spook_out) {
    float h = prm.h;
    int implicit_spring = (flags & CTN_JF_IMPLICIT_SPRING) != 0;
    int spook = prm.stabilization == 0 || implicit_spring;
    float tau = implicit_spring ? CTN_FMAX(damping_time, 0.1f * h) : damping_time > 0.0f ? damping_time : 2.0f * h;
    float y = 1.0f / (1.0f + 4.0f * tau / h);
    *cg = spook ? -(4.0f * y / h) : -(prm.baumgarte / h);
    *cj = y;
    *spook_out = spook;
    return spook ? 4.0f * compliance * y / (h * h) : 0.0f;
}

CTN_ROWS_INLINE CTN_FN float ctn_rows_ball_core(ctn_v3 anchor_a, ctn_v3 anchor_b, int flags, float compliance, float damping_time, ctn_pose pa,
                                               ctn_pose pb, ctn_vel va, ctn_vel vb, ctn_step_params prm, ctn_v3 *ra_out, ctn_v3 *rb_out,
                                               float *bias) {
    ctn_v3 ra = ctn_quat_rotate(pa.q, anchor_a);
    ctn_v3 rb = ctn_quat_rotate(pb.q, anchor_b);
    ctn_v3 sep = ctn_point_sep(pa.p, pa.p_lo, ra, pb.p, pb.p_lo, rb); /* eq. 30, from the two-float positions */
    float g[3] = {sep.x, sep.y, sep.z}, jv[3];
    int i;
    ctn_v3 dv = ctn_sub(ctn_add(va.v, ctn_cross(va.w, ra)), ctn_add(vb.v, ctn_cross(vb.w, rb))); /* ctn_block_velocity */
    jv[0] = ctn_dot(ctn_v3_make(1.0f, 0.0f, 0.0f), dv);
    jv[1] = ctn_dot(ctn_v3_make(0.0f, 1.0f, 0.0f), dv);
    jv[2] = ctn_dot(ctn_v3_make(0.0f, 0.0f, 1.0f), dv);
    float cg, cj;
    int spook;
    float soft = ctn_rows_ball_coef(flags, compliance, damping_time, prm, &cg, &cj, &spook);
    for (i = 0; i < 3; ++i) bias[i] = spook ? cg * g[i] + cj * jv[i] : cg * g[i];
    *ra_out = ra;
    *rb_out = rb;
    return soft;
}

CTN_ROWS_INLINE CTN_FN void ctn_rows_ball_fields(ctn_v3 anchor_a, ctn_v3 anchor_b, int flags, float compliance, float damping_time, ctn_pose pa,
                                                 ctn_pose pb, ctn_vel va, ctn_vel vb, ctn_step_params prm, ctn_block *blk) {
    ctn_v3 ra, rb;
    float bias[3];
    float soft = ctn_rows_ball_core(anchor_a, anchor_b, flags, compliance, damping_time, pa, pb, va, vb, prm, &ra, &rb, bias);
    int i;
    blk->ra = ra;
    blk->rb = rb;
    blk->n_lin = 3;
    blk->n_ang = 0;
    blk->dir[0] = ctn_v3_make(1.0f, 0.0f, 0.0f);
    blk->dir[1] = ctn_v3_make(0.0f, 1.0f, 0.0f);
    blk->dir[2] = ctn_v3_make(0.0f, 0.0f, 1.0f);
    for (i = 0; i < CTN_MAX_ROWS; ++i) {
        blk->lo[i] = -CTN_INF;
        blk->hi[i] = CTN_INF;
    }
    for (i = 0; i < 3; ++i) {
        blk->bias[i] = bias[i];
        blk->soft[i] = soft;
    }
    for (; i < CTN_MAX_ROWS; ++i) blk->bias[i] = blk->soft[i] = 0.0f;
    blk->pad[0] = CTN_BLOCK_POINT; /* 3 unbounded linear rows: the generic builder's point-block test holds */
}

CTN_ROWS_INLINE CTN_FN void ctn_joint_prepare_rows_ball(ctn_joint_def j, ctn_pose pa, ctn_pose pb, ctn_vel va, ctn_vel vb, ctn_step_params prm,
                                                        ctn_block *blk) {
    ctn_rows_ball_fields(j.anchor_a, j.anchor_b, j.flags, j.compliance, j.damping_time, pa, pb, va, vb, prm, blk);
}

/* The rows of joint j for a substep of length prm.h (docs/design.md section 2, step 1): directions, lever
 * arms, targets, regularisation and bounds of the block, everything but kinv. va, vb: velocities at the
 * start of the substep (before external forces). SPOOK (Lacoursière 2011, eq. 23) with d = tau/h, Y = 1/(1 + 4d):
 *     s = 4 eps Y / h^2,   target = -(4Y/h) g + Y J v.
 * Baumgarte (Witkin and Baraff): s = 0, target = -(beta/h) g. */
CTN_ROWS_INLINE CTN_FN void ctn_joint_prepare_rows_generic(ctn_joint_def j, ctn_pose pa, ctn_pose pb, ctn_vel va, ctn_vel vb, ctn_step_params prm,
                                           ctn_block *blk) {
    float g[CTN_MAX_ROWS], jv[CTN_MAX_ROWS];
    int i, n;
    ctn_joint_rows(j, pa, pb, blk, g);
    n = ctn_block_rows(blk);
    ctn_block_velocity(blk, va, vb, jv);
    float h = prm.h;
    /* An implicit spring is SPOOK with eps = 1/k, tau = c/k (Lacoursiere 2007): the regularised row is the
     * spring-damper force -k g - c dg/dt integrated implicitly, never rigidified by Baumgarte stabilization.
     * Its damping time is at least h/10: with tau = 0 a spring too stiff for the step (eps -> 0) updates as
     * v' = v - 4 g / h, g' = g + h v', whose roots are a double -1 (an undamped flip-flop that grows
     * linearly); tau = h/10 makes them |z| = sqrt(Y) = 0.85 per substep, at the cost of a damper k h / 10
     * (0.04 N s/m for k = 100 N/m at 240 Hz) that vanishes as h -> 0. */
    int implicit_spring = (j.flags & CTN_JF_IMPLICIT_SPRING) != 0;
    int spook = prm.stabilization == 0 || implicit_spring;
    float tau = implicit_spring ? CTN_FMAX(j.damping_time, 0.1f * h) : j.damping_time > 0.0f ? j.damping_time : 2.0f * h;
    float y = 1.0f / (1.0f + 4.0f * tau / h);
    float soft = spook ? 4.0f * j.compliance * y / (h * h) : 0.0f;
    for (i = 0; i < CTN_MAX_ROWS; ++i) {
        float target = 0.0f;
        if (i < n) target = spook ? -(4.0f * y / h) * g[i] + y * jv[i] : -(prm.baumgarte / h) * g[i];
        /* unilateral rows (bounds set by ctn_joint_rows) that are not yet violated are speculative: the
         * row lets the gap close within this substep but no further (target -g/h); it only acts (lambda
         * leaves its bound) when the bodies would cross the limit */
        if (i < n && blk->lo[i] == 0.0f && g[i] > 0.0f) target = -g[i] / h;
        if (i < n && blk->hi[i] == 0.0f && g[i] < 0.0f) target = -g[i] / h;
        blk->bias[i] = target;
        blk->soft[i] = i < n ? soft : 0.0f;
    }
    if (j.type == CTN_JT_CURVE && (j.flags & CTN_JF_CURVE_ACCEL) && prm.stabilization == 0) ctn_curve_accel_rows(j, pb, va, vb, g, jv, h, blk);
    blk->pad[0] = 0.0f;
    if (j.type == CTN_JT_CONTACT) {
        /* friction rows: velocity constraints (target 0, rigid) bounded by mu lambda_n in ctn_block_delta */
        blk->bias[1] = blk->bias[2] = 0.0f;
        blk->soft[1] = blk->soft[2] = 0.0f;
        blk->pad[0] = 1.0f + j.lo;
        /* restitution: a contact that approaches faster than CTN_RESTITUTION_SPEED and closes within this
         * substep separates at e times its approach speed, target max(bias, -e J v_old) */
        if (j.hi > 0.0f && jv[0] < -CTN_RESTITUTION_SPEED && g[0] + h * jv[0] < 0.0f) {
            float bounce = -j.hi * jv[0];
            if (bounce > blk->bias[0]) blk->bias[0] = bounce;
        }
    }
    /* the motor row of a hinge (angular row 5) or a slider (linear row 2) */
    int mr = j.type == CTN_JT_HINGE && n == 6 ? 5 : (j.type == CTN_JT_PRISMATIC && blk->n_lin == 3 ? 2 : -1);
    if ((j.flags & CTN_JF_MOTOR) && mr >= 0) {
        /* A motor is a velocity row along a1 with target speed `stiffness` and impulse bounds +-F h (F =
         * max_torque, or max_force for a slider; a motorised constraint). It shares the row with the limit:
         *  - driving away from the limit (or no limit): the motor row, unless the limit is reached within
         *    this substep (limit row at its bound lo = 0 and g + h J v <= 0), when the limit row stays;
         *  - driving into the limit (target speed s_t < 0 along the limit row's direction): one row along
         *    that direction with target max(s_t, limit target), so that the motor closes the gap at its
         *    speed but not past the limit, and bounds [-F h, F h], the upper one lifted to +inf once the
         *    limit is reached (then it holds like the limit row). Switching between a motor row and a limit
         *    row here instead makes them alternate and the body creep in a band of h s_t at the limit. */
        ctn_v3 a1 = ctn_quat_rotate(pa.q, j.axis_a);
        int limited = (j.flags & CTN_JF_LIMIT) != 0;
        int reached = limited && g[mr] + h * jv[mr] <= 0.0f;
        float toward = ctn_dot(blk->dir[mr], a1) * j.stiffness;
        if (limited && toward < 0.0f) {
            if (toward >= blk->bias[mr]) blk->soft[mr] = 0.0f;
            blk->bias[mr] = CTN_FMAX(toward, blk->bias[mr]);
            blk->lo[mr] = -j.damping * h;
            blk->hi[mr] = reached ? CTN_INF : j.damping * h;
        } else if (!reached) {
            blk->dir[mr] = a1;
            blk->bias[mr] = j.stiffness;
            blk->soft[mr] = 0.0f;
            blk->lo[mr] = -j.damping * h;
            blk->hi[mr] = j.damping * h;
        }
    }
    if (j.type != CTN_JT_CONTACT && blk->n_lin == 3 && blk->n_ang == 0 && blk->lo[0] == -CTN_INF && blk->hi[0] == CTN_INF &&
        blk->lo[1] == -CTN_INF && blk->hi[1] == CTN_INF && blk->lo[2] == -CTN_INF && blk->hi[2] == CTN_INF)
        blk->pad[0] = CTN_BLOCK_POINT;
}

/* The rows of joint j (ctn_joint_prepare_rows_generic); a ball joint, most of the joints of a chain, through
 * ctn_joint_prepare_rows_ball: the same bits (tests/test_ball_rows.c) with fewer instructions (callgrind,
 * chain:10000 direct 1x1: the row build 2,201 -> 1,273 per link and step). */
CTN_FN void ctn_joint_prepare_rows(ctn_joint_def j, ctn_pose pa, ctn_pose pb, ctn_vel va, ctn_vel vb, ctn_step_params prm,
                                   ctn_block *blk) {
    if (j.type == CTN_JT_BALL) ctn_joint_prepare_rows_ball(j, pa, pb, va, vb, prm, blk);
    else ctn_joint_prepare_rows_generic(j, pa, pb, va, vb, prm, blk);
}

/* ctn_block_inverse_mass of a point block (pad[0] == CTN_BLOCK_POINT): the general path below with
 * n = n_lin = 3 as constants, so the loops unroll. */
CTN_ROWS_INLINE CTN_FN void ctn_block_inverse_mass_point(float ima, ctn_sym3 Ia, float imb, ctn_sym3 Ib, ctn_block *blk) {
    float k[CTN_MAX_ROWS * CTN_MAX_ROWS];
    ctn_v3 ua[3], ub[3];
    int i, j;
    for (i = 0; i < 3; ++i) ua[i] = ctn_cross(blk->ra, blk->dir[i]), ub[i] = ctn_cross(blk->rb, blk->dir[i]);
    for (i = 0; i < 3; ++i) {
        for (j = 0; j <= i; ++j) {
            float kij = ctn_sym3_form(Ia, ua[i], ua[j]) + ctn_sym3_form(Ib, ub[i], ub[j]);
            kij += (ima + imb) * ctn_dot(blk->dir[i], blk->dir[j]);
            k[i * CTN_MAX_ROWS + j] = kij;
            k[j * CTN_MAX_ROWS + i] = kij;
        }
    }
    for (i = 0; i < 3; ++i) k[i * CTN_MAX_ROWS + i] += blk->soft[i] + 1e-6f * k[i * CTN_MAX_ROWS + i];
    ctn_spd_inverse(k, 3, blk->kinv);
}

/* The lever-arm part u_i . (I u_j) of K = J M^-1 J^T for one body of a point block, u_k = r x e_k (the rows
 * are the world axes e_k): f = (K_00, K_10, K_11, K_20, K_21, K_22). ctn_block_inverse_mass_point forms
 * u_k = r x e_k and the quadratic forms with every product by the axes' 0 and 1; here they are left out and
 * the remaining terms summed in the general path's order: with u_0 = (0, z, -y), u_1 = (-z, 0, x),
 * u_2 = (y, -x, 0) for r = (x, y, z), each entry has the general path's value (a product by 0 is a zero, and
 * adding a zero to a sum leaves its value), and only the sign of a zero entry can differ. */
CTN_FN void ctn_point_arm_forms(ctn_v3 r, ctn_sym3 I, float *f) {
    float x = r.x, y = r.y, z = r.z;
    float w0x = I.xy * z + I.xz * -y, w0y = I.yy * z + I.yz * -y, w0z = I.yz * z + I.zz * -y; /* I u_0 */
    float w1x = I.xx * -z + I.xz * x, w1y = I.xy * -z + I.yz * x;                            /* I u_1 (x, y) */
    float w2x = I.xx * y + I.xy * -x, w2y = I.xy * y + I.yy * -x;                            /* I u_2 (x, y) */
    float w1z = I.xz * -z + I.zz * x;
    f[0] = z * w0y + -y * w0z;
    f[1] = -z * w0x + x * w0z;
    f[2] = -z * w1x + x * w1z;
    f[3] = y * w0x + -x * w0y;
    f[4] = y * w1x + -x * w1y;
    f[5] = y * w2x + -x * w2y;
}

/* kinv of a point block with arms ra, rb, inverse masses ima, imb, world inverse inertias Ia, Ib and the
 * rows' regularisation soft, for b_world = 0; with b_world = 1 (body b is the world: imb = 0, Ib = 0) its
 * forms, all zeros, are left out. The values of ctn_block_inverse_mass_point's kinv (ctn_point_arm_forms,
 * and the axes' dot products: 1 on the diagonal, a zero off it), so that the Gauss-Seidel update
 * (ctn_gs_slot_point), which never depends on the sign of a zero kinv entry, gives the same bits. */
CTN_FN void ctn_point_kinv(ctn_v3 ra, float ima, ctn_sym3 Ia, ctn_v3 rb, float imb, ctn_sym3 Ib, int b_world, float soft, float *kinv) {
    float fa[6], fb[6], k[CTN_MAX_ROWS * CTN_MAX_ROWS];
    int i;
    ctn_point_arm_forms(ra, Ia, fa);
    if (!b_world) ctn_point_arm_forms(rb, Ib, fb);
    else for (i = 0; i < 6; ++i) fb[i] = 0.0f; /* a zero of either sign: added, it leaves fa's value */
    float m = ima + imb;
    k[0] = (fa[0] + fb[0]) + m;
    k[CTN_MAX_ROWS] = fa[1] + fb[1];
    k[CTN_MAX_ROWS + 1] = (fa[2] + fb[2]) + m;
    k[2 * CTN_MAX_ROWS] = fa[3] + fb[3];
    k[2 * CTN_MAX_ROWS + 1] = fa[4] + fb[4];
    k[2 * CTN_MAX_ROWS + 2] = (fa[5] + fb[5]) + m;
    for (i = 0; i < 3; ++i) k[i * CTN_MAX_ROWS + i] += soft + 1e-6f * k[i * CTN_MAX_ROWS + i];
    ctn_spd_inverse(k, 3, kinv); /* reads the lower triangle only */
}

/* The block's kinv: (J M^-1 J^T + S)^-1 of the rows ctn_joint_prepare_rows built, for inverse masses ima,
 * imb and world inverse inertias Ia, Ib (scaled by the caller for mass splitting). Only the iterative
 * solvers read it; the exact solver factors J M^-1 J^T + S itself (kernels/ctn_direct.h). */
CTN_FN void ctn_block_inverse_mass(int type, float ima, ctn_sym3 Ia, float imb, ctn_sym3 Ib, ctn_block *blk) {
    float k[CTN_MAX_ROWS * CTN_MAX_ROWS];
    int i, n = ctn_block_rows(blk);
    if (blk->pad[0] == CTN_BLOCK_POINT) {
        ctn_block_inverse_mass_point(ima, Ia, imb, Ib, blk);
        return;
    }
    ctn_block_effective_mass(blk, ima, Ia, imb, Ib, k);
    for (i = 0; i < n; ++i) {
        /* regularisation, plus a relative floor of 1e-6 that keeps rigid (eps = 0) blocks well conditioned */
        k[i * CTN_MAX_ROWS + i] += blk->soft[i] + 1e-6f * k[i * CTN_MAX_ROWS + i];
    }
    if (type == CTN_JT_CONTACT) {
        /* Contacts are solved in two sub-steps (ctn_block_delta), so kinv holds the block-diagonal
         * inverse diag(1/K_nn, F^-1) with F the 2x2 friction block, and the couplings K_t1n, K_t2n that
         * carry the normal increment into the friction residual sit in the unused entries 15 and 16. */
        float f[CTN_MAX_ROWS * CTN_MAX_ROWS];
        for (i = 0; i < CTN_KINV_SIZE; ++i) blk->kinv[i] = 0.0f;
        blk->kinv[CTN_TRI(0, 0)] = k[0] > 1e-30f ? 1.0f / k[0] : 0.0f;
        f[0] = k[1 * CTN_MAX_ROWS + 1];
        f[1] = k[1 * CTN_MAX_ROWS + 2];
        f[CTN_MAX_ROWS] = k[2 * CTN_MAX_ROWS + 1];
        f[CTN_MAX_ROWS + 1] = k[2 * CTN_MAX_ROWS + 2];
        float fi[CTN_KINV_SIZE];
        ctn_spd_inverse(f, 2, fi);
        blk->kinv[CTN_TRI(1, 1)] = fi[CTN_TRI(0, 0)];
        blk->kinv[CTN_TRI(2, 1)] = fi[CTN_TRI(1, 0)];
        blk->kinv[CTN_TRI(2, 2)] = fi[CTN_TRI(1, 1)];
        blk->kinv[CTN_CONTACT_K1N] = k[1 * CTN_MAX_ROWS + 0];
        blk->kinv[CTN_CONTACT_K2N] = k[2 * CTN_MAX_ROWS + 0];
        if (blk->kinv[CTN_TRI(0, 0)] == 0.0f) blk->pad[0] = 0.0f; /* inactive (no dynamic body): plain path */
        return;
    }
    ctn_spd_inverse(k, n, blk->kinv);
}

/* Builds the block of joint j for a substep of length prm.h: its rows (ctn_joint_prepare_rows) and their
 * kinv (ctn_block_inverse_mass). split_a, split_b: mass-splitting factors (1 for Gauss-Seidel and CG, the
 * body's joint count for Jacobi, Tonge et al. 2012); mass splitting scales the whole inverse mass matrix
 * of a body, inertia included. ima, Ia and imb, Ib: the bodies' inverse masses and world inverse inertias
 * (ctn_inertia; zero for the world). */
CTN_FN void ctn_joint_prepare(ctn_joint_def j, ctn_pose pa, ctn_pose pb, ctn_vel va, ctn_vel vb, float ima, ctn_sym3 Ia,
                              float imb, ctn_sym3 Ib, float split_a, float split_b, ctn_step_params prm, ctn_block *blk) {
    ctn_joint_prepare_rows(j, pa, pb, va, vb, prm, blk);
    ctn_block_inverse_mass(j.type, ima * split_a, ctn_sym3_scale(Ia, split_a), imb * split_b, ctn_sym3_scale(Ib, split_b), blk);
}

/* Impulse increment of one block from the current velocities (projected Gauss-Seidel / Jacobi row step,
 * Lloyd 2012, section 0.15): r = target - J v - S lambda, dl = K^-1 r, lambda <- clamp(lambda + dl).
 * Contact blocks (pad[0] = 1 + mu > 0) take two sub-steps in the same work-item (Lloyd 2012, 0.16): first the
 * normal row alone, clamped to lambda_n >= 0; then the two friction rows as a 2x2 block from the residual
 * corrected for the normal increment (r_t - K_tn dl_n: J_t v after the normal impulse), clamped to the disc
 * |lambda_t| <= mu lambda_n of the new normal impulse (which implies the box of Lloyd 2012, 0.10). Projecting
 * the coupled 3x3 solution instead mixes the rows: when the normal clamps to 0 the friction increment was
 * computed for a normal impulse that is not applied, and a coupled clamp can inject energy into sliding
 * contacts. The sequential form is the classic one (Box2D, Bullet) and keeps the friction bound exact at
 * the end of every iteration.
 * Updates lam, writes the applied increment to dl and returns |r|^2. */
CTN_FN float ctn_block_delta(const ctn_block *b, ctn_vel va, ctn_vel vb, float *lam, float *dl) {
    float jv[CTN_MAX_ROWS], r[CTN_MAX_ROWS];
    int i, n = ctn_block_rows(b);
    float r2 = 0.0f;
    ctn_block_velocity(b, va, vb, jv);
    for (i = 0; i < n; ++i) {
        r[i] = b->bias[i] - jv[i] - b->soft[i] * lam[i];
        r2 += r[i] * r[i];
    }
    for (i = n; i < CTN_MAX_ROWS; ++i) dl[i] = 0.0f;
    if (b->pad[0] > 0.0f) {
        float mu = b->pad[0] - 1.0f;
        float ln = lam[0] + b->kinv[CTN_TRI(0, 0)] * r[0];
        ln = ln > 0.0f ? ln : 0.0f;
        dl[0] = ln - lam[0];
        lam[0] = ln;
        float r1 = r[1] - b->kinv[CTN_CONTACT_K1N] * dl[0];
        float rr2 = r[2] - b->kinv[CTN_CONTACT_K2N] * dl[0];
        float t1 = lam[1] + b->kinv[CTN_TRI(1, 1)] * r1 + b->kinv[CTN_TRI(2, 1)] * rr2;
        float t2 = lam[2] + b->kinv[CTN_TRI(2, 1)] * r1 + b->kinv[CTN_TRI(2, 2)] * rr2;
        float lim = mu * ln, mag2 = t1 * t1 + t2 * t2;
        if (mag2 > lim * lim) {
            float s = mag2 > 0.0f ? lim / CTN_SQRT(mag2) : 0.0f;
            t1 *= s;
            t2 *= s;
        }
        dl[1] = t1 - lam[1];
        dl[2] = t2 - lam[2];
        lam[1] = t1;
        lam[2] = t2;
        return r2;
    }
    ctn_kinv_mul(b->kinv, n, r, dl);
    /* Bounded rows (limits, motors, ropes): when row k leaves its bounds, the other rows are
     * re-solved with row k held at its bound. With X = K^-1, adding the reaction e to row k's right-hand
     * side moves dl by X[:,k] e, so e = (dl_k' - dl_k) / X_kk gives the exact block solution with row k
     * fixed; with one bounded row per block (hinge limit or motor, rope) this is the exact projected block
     * step, whereas a plain clamp would leave the other rows with the increment of an impulse that is not
     * applied. A final clamp keeps every row in its bounds when several rows are bounded. */
    for (i = 0; i < n; ++i) {
        float l = lam[i] + dl[i];
        float c = l < b->lo[i] ? b->lo[i] : (l > b->hi[i] ? b->hi[i] : l);
        float xkk = b->kinv[CTN_TRI(i, i)];
        if (c != l && xkk > 0.0f) {
            float e = (c - l) / xkk;
            int k;
            for (k = 0; k < n; ++k) dl[k] += b->kinv[k >= i ? CTN_TRI(k, i) : CTN_TRI(i, k)] * e;
            dl[i] = c - lam[i];
        }
    }
    for (i = 0; i < n; ++i) {
        float l = lam[i] + dl[i];
        l = l < b->lo[i] ? b->lo[i] : (l > b->hi[i] ? b->hi[i] : l);
        dl[i] = l - lam[i];
        lam[i] = l;
    }
    return r2;
}

/* Linear impulse P = sum d_k l_k over linear rows and angular impulse L = sum t_k l_k over angular rows. */
CTN_FN void ctn_block_impulse(const ctn_block *b, const float *l, ctn_v3 *P, ctn_v3 *L) {
    ctn_v3 p = ctn_v3_zero(), a = ctn_v3_zero();
    int k;
    for (k = 0; k < b->n_lin; ++k) p = ctn_madd(p, b->dir[k], l[k]);
    for (k = b->n_lin; k < b->n_lin + b->n_ang; ++k) a = ctn_madd(a, b->dir[k], l[k]);
    *P = p;
    *L = a;
}

/* Velocity change M^-1 J_side^T l of one side (0: body a, 1: body b) for the impulses l of a block, from
 * their linear and angular sums P, L (ctn_block_impulse; ctn_block_side_delta takes them formed once). */
CTN_FN void ctn_side_delta(ctn_v3 r, ctn_v3 P, ctn_v3 L, int side, float inv_mass, ctn_sym3 Iinv, ctn_v3 *dv, ctn_v3 *dw) {
    float sign = side == 0 ? 1.0f : -1.0f;
    *dv = ctn_scale(P, sign * inv_mass);
    *dw = ctn_scale(ctn_sym3_mul(Iinv, ctn_add(ctn_cross(r, P), L)), sign);
}

CTN_FN void ctn_block_side_delta(const ctn_block *b, ctn_v3 P, ctn_v3 L, int side, float inv_mass, ctn_sym3 Iinv, ctn_v3 *dv,
                                 ctn_v3 *dw) {
    ctn_side_delta(side == 0 ? b->ra : b->rb, P, L, side, inv_mass, Iinv, dv, dw);
}

CTN_FN void ctn_block_body_delta(const ctn_block *b, const float *l, int side, float inv_mass, ctn_sym3 Iinv,
                                 ctn_v3 *dv, ctn_v3 *dw) {
    ctn_v3 P, L;
    ctn_block_impulse(b, l, &P, &L);
    ctn_block_side_delta(b, P, L, side, inv_mass, Iinv, dv, dw);
}

/* ctn_block_solve of a point block (3 linear rows, no bounds, no contact: pad[0] == CTN_BLOCK_POINT, a ball
 * joint): the same operations in the same order as the general path with n = 3, so the same bits for finite
 * values, written out without the loops over a variable row count, the bound tests and the angular rows'
 * zero sums (the "+ 0" kept where it decides the sign of a zero). Gauss-Seidel's inner update of a chain;
 * a non-finite impulse gives non-finite velocities on both paths (the divergence check undoes the step). */
CTN_FN float ctn_block_solve_point(const ctn_block *b, float *lam, ctn_vel *va, ctn_vel *vb, float ima, ctn_sym3 Ia, float imb, ctn_sym3 Ib) {
    ctn_v3 d = ctn_sub(ctn_add(va->v, ctn_cross(va->w, b->ra)), ctn_add(vb->v, ctn_cross(vb->w, b->rb)));
    float r[3], dl[3];
    r[0] = b->bias[0] - ctn_dot(b->dir[0], d) - b->soft[0] * lam[0];
    r[1] = b->bias[1] - ctn_dot(b->dir[1], d) - b->soft[1] * lam[1];
    r[2] = b->bias[2] - ctn_dot(b->dir[2], d) - b->soft[2] * lam[2];
    float r2 = ((0.0f + r[0] * r[0]) + r[1] * r[1]) + r[2] * r[2];
    ctn_kinv_mul(b->kinv, 3, r, dl);
    float l0 = lam[0] + dl[0], l1 = lam[1] + dl[1], l2 = lam[2] + dl[2];
    dl[0] = l0 - lam[0], dl[1] = l1 - lam[1], dl[2] = l2 - lam[2]; /* the applied increments, rounded as the general path's */
    lam[0] = l0, lam[1] = l1, lam[2] = l2;
    ctn_v3 P = ctn_madd(ctn_madd(ctn_madd(ctn_v3_zero(), b->dir[0], dl[0]), b->dir[1], dl[1]), b->dir[2], dl[2]);
    ctn_v3 z = ctn_v3_zero(); /* the angular impulse L of a block without angular rows */
    va->v = ctn_add(va->v, ctn_scale(P, ima));
    va->w = ctn_add(va->w, ctn_sym3_mul(Ia, ctn_add(ctn_cross(b->ra, P), z)));
    vb->v = ctn_add(vb->v, ctn_scale(P, -imb));
    vb->w = ctn_add(vb->w, ctn_scale(ctn_sym3_mul(Ib, ctn_add(ctn_cross(b->rb, P), z)), -1.0f));
    return r2;
}

/* One projected block Gauss-Seidel step of a joint: solves its rows as one block and applies the
 * impulse to both bodies' velocities (the caller writes back only dynamic bodies); ima, Ia, imb, Ib are the
 * bodies' inverse masses and world inverse inertias. Returns |r|^2. */
CTN_FN float ctn_block_solve(const ctn_block *b, float *lam, ctn_vel *va, ctn_vel *vb, float ima, ctn_sym3 Ia, float imb, ctn_sym3 Ib) {
    if (b->pad[0] == CTN_BLOCK_POINT) return ctn_block_solve_point(b, lam, va, vb, ima, Ia, imb, Ib);
    float dl[CTN_MAX_ROWS];
    ctn_v3 dv, dw;
    ctn_v3 P, L;
    float r2 = ctn_block_delta(b, *va, *vb, lam, dl);
    ctn_block_impulse(b, dl, &P, &L); /* once for both bodies */
    ctn_block_side_delta(b, P, L, 0, ima, Ia, &dv, &dw);
    va->v = ctn_add(va->v, dv);
    va->w = ctn_add(va->w, dw);
    ctn_block_side_delta(b, P, L, 1, imb, Ib, &dv, &dw);
    vb->v = ctn_add(vb->v, dv);
    vb->w = ctn_add(vb->w, dw);
    return r2;
}

/* Row residual r = target - J v - S lambda of a block (for CG and convergence reports). */
CTN_FN void ctn_block_residual(const ctn_block *b, ctn_vel va, ctn_vel vb, const float *lam, float *r) {
    float jv[CTN_MAX_ROWS];
    int i, n = ctn_block_rows(b);
    ctn_block_velocity(b, va, vb, jv);
    for (i = 0; i < CTN_MAX_ROWS; ++i) r[i] = i < n ? b->bias[i] - jv[i] - b->soft[i] * lam[i] : 0.0f;
}

/* Joint error at the current poses: largest linear gap |g_lin| (m) and angular error |g_ang| (rad).
 * Unilateral rows count only when violated: contacts their penetration, limits their overshoot, ropes
 * their stretch (a separated contact or a slack rope is no error). A spring's stretch is no error either:
 * implicit springs read 0 like the explicit ones. */
/* A ball joint's: its 3 bilateral rows' errors are the anchor separation (ctn_rows_point), summed as
 * ctn_joint_error's loop sums them, without building the block. */
CTN_FN void ctn_ball_error(ctn_v3 anchor_a, ctn_v3 anchor_b, ctn_pose pa, ctn_pose pb, float *gap, float *angle) {
    ctn_v3 sep = ctn_point_sep(pa.p, pa.p_lo, ctn_quat_rotate(pa.q, anchor_a), pb.p, pb.p_lo, ctn_quat_rotate(pb.q, anchor_b));
    *gap = CTN_SQRT(((0.0f + sep.x * sep.x) + sep.y * sep.y) + sep.z * sep.z);
    *angle = CTN_SQRT(0.0f);
}

CTN_FN void ctn_joint_error(ctn_joint_def j, ctn_pose pa, ctn_pose pb, float *gap, float *angle) {
    ctn_block blk;
    float g[CTN_MAX_ROWS];
    int k;
    float l2 = 0.0f, a2 = 0.0f;
    if (j.type == CTN_JT_BALL && !(j.flags & CTN_JF_IMPLICIT_SPRING)) {
        ctn_ball_error(j.anchor_a, j.anchor_b, pa, pb, gap, angle);
        return;
    }
    ctn_joint_rows(j, pa, pb, &blk, g);
    if (j.flags & CTN_JF_IMPLICIT_SPRING) blk.n_lin = 0;
    /* a gear's row is a point row whose error is an angle (rad, ctn_rows_gear) */
    int n_gap = j.type == CTN_JT_GEAR ? 0 : blk.n_lin;
    for (k = 0; k < blk.n_lin + blk.n_ang; ++k) {
        float e = g[k];
        if (blk.lo[k] == 0.0f) e = e < 0.0f ? e : 0.0f;
        else if (blk.hi[k] == 0.0f) e = e > 0.0f ? e : 0.0f;
        if (k < n_gap) l2 += e * e;
        else a2 += e * e;
    }
    *gap = CTN_SQRT(l2);
    *angle = CTN_SQRT(a2);
}

/* A contact's (ctn_rows_contact): its one error is the penetration along the normal n = R_b axis_b, the
 * normal row's g_0 = n . sep clamped to g_0 <= 0 (lambda_n >= 0); the friction rows have none. The sums of
 * ctn_joint_error's loop, 0 + e_0^2 + 0^2 + 0^2 and 0, are e_0^2 and 0 exactly, so these are its bits. */
CTN_FN void ctn_contact_error(ctn_v3 anchor_a, ctn_v3 anchor_b, ctn_v3 axis_b, ctn_pose pa, ctn_pose pb, float *gap, float *angle) {
    ctn_v3 sep = ctn_point_sep(pa.p, pa.p_lo, ctn_quat_rotate(pa.q, anchor_a), pb.p, pb.p_lo, ctn_quat_rotate(pb.q, anchor_b));
    float e = ctn_dot(ctn_quat_rotate(pb.q, axis_b), sep);
    e = e < 0.0f ? e : 0.0f;
    *gap = CTN_SQRT(0.0f + e * e);
    *angle = CTN_SQRT(0.0f);
}

/* ctn_joint_error of joint s of J: a ball joint's from its compact record, a contact's from its record and
 * its normal (no whole definition formed: these are the joint-error passes' most frequent joints). */
CTN_FN void ctn_joint_error_at(ctn_joints J, int s, ctn_pose pa, ctn_pose pb, float *gap, float *angle) {
    int type = CTN_JC(J, s).type;
    if ((type == CTN_JT_BALL || type == CTN_JT_CONTACT) && !(ctn_joint_flags(J, s) & CTN_JF_IMPLICIT_SPRING)) {
        if (type == CTN_JT_BALL) ctn_ball_error(CTN_JC(J, s).anchor_a, CTN_JC(J, s).anchor_b, pa, pb, gap, angle);
        else ctn_contact_error(CTN_JC(J, s).anchor_a, CTN_JC(J, s).anchor_b, ctn_joint_axis_b(J, s), pa, pb, gap, angle);
        return;
    }
    ctn_joint_error(ctn_joint_at(J, s), pa, pb, gap, angle);
}

#endif /* CTN_ROWS_H */
