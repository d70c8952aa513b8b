/* Constraint rows: Jacobians, effective masses, SPOOK right-hand sides and the block update.
 *
 * Shared by the CPU solver (host/solver_cpu.c) and the OpenCL kernels (kernels/catena.cl), so both run
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

#include "ctn_curve.h"
#include "ctn_types.h"

/* Index of (i, j), j <= i, in a packed lower triangle. */
#define CTN_TRI(i, j) ((i) * ((i) + 1) / 2 + (j))

/* Contact blocks (3 rows) keep the normal-friction couplings K_t1n, K_t2n in kinv entries no 3-row block
 * uses (see ctn_joint_prepare). */
#define CTN_CONTACT_K1N 15
#define CTN_CONTACT_K2N 16
/* Approach speed (m/s) below which a contact does not bounce (restitution off for resting contacts). */
#define CTN_RESTITUTION_SPEED 0.2f

CTN_FN int ctn_block_rows(const ctn_block *b) { return b->n_lin + b->n_ang; }

/* Hinge angle theta (rad, in (-pi, pi]): rotation of a relative to b about the hinge axis, measured from
 * the rest orientation rel_q (the reference frame stored at creation). q_e = (q_a q_rel) q_b^* is the
 * rotation that takes b to its rest pose relative to a; for a hinge it is a rotation about the world axis
 * a1, so theta = 2 atan2(vec(q_e) . a1, w(q_e)) and d(theta)/dt = a1 . (w_a - w_b). */
CTN_FN float ctn_hinge_angle(ctn_joint_def j, ctn_pose pa, ctn_pose pb) {
    ctn_v3 a1 = ctn_quat_rotate(pa.q, j.axis_a);
    ctn_quat qe = ctn_quat_mul(ctn_quat_mul(pa.q, j.rel_q), ctn_quat_conj(pb.q));
    float s = ctn_dot(ctn_v3_make(qe.x, qe.y, qe.z), a1);
    float c = qe.w;
    if (c < 0.0f) s = -s, c = -c;
    return 2.0f * CTN_ATAN2(s, c);
}

/* Rows of a joint type as ctn_joint_rows builds them, before options (limits, motors, cones: see
 * ctn_joint_def_rows), the bilateral part the exact solver factors: distance 1, ball 3, hinge 5, fixed 6,
 * spring 0 (a force; an implicit spring is stored as a distance row), contact 3, prismatic 5, universal 4,
 * cone-twist 3; 0 for an unknown type. The one table of row counts: joint creation (host/core/joint.c) and
 * the exact solvers' layouts use it. */
CTN_FN int ctn_joint_row_count(int type) {
    switch (type) {
    case CTN_JT_DISTANCE: return 1;
    case CTN_JT_BALL: return 3;
    case CTN_JT_HINGE: return 5;
    case CTN_JT_FIXED: return 6;
    case CTN_JT_CONTACT: return 3;
    case CTN_JT_PRISMATIC: return 5;
    case CTN_JT_UNIVERSAL: return 4;
    case CTN_JT_CONE_TWIST: return 3;
    default: return 0;
    }
}

/* Rows of joint j with its limit and motor rows (what ctn_joint_rows builds): a hinge or slider with a
 * limit or a motor has one more (the motor row stands in for the limit row while the limit is not reached),
 * a cone-twist one per swing cone and twist limit. */
CTN_FN int ctn_joint_def_rows(ctn_joint_def j) {
    int n = ctn_joint_row_count(j.type);
    if ((j.type == CTN_JT_HINGE || j.type == CTN_JT_PRISMATIC) && (j.flags & (CTN_JF_LIMIT | CTN_JF_MOTOR))) n += 1;
    if (j.type == CTN_JT_CONE_TWIST) n += ((j.flags & CTN_JF_SWING) != 0) + ((j.flags & CTN_JF_LIMIT) != 0);
    return n;
}

/* Linear (point-to-point) rows of joint j; the rest are angular. */
CTN_FN int ctn_joint_lin_rows(ctn_joint_def j) {
    if (j.type == CTN_JT_DISTANCE) return 1;
    if (j.type == CTN_JT_PRISMATIC) return (j.flags & (CTN_JF_LIMIT | CTN_JF_MOTOR)) ? 3 : 2;
    return j.type == CTN_JT_SPRING ? 0 : 3;
}

/* Slider position s = a1 . (x_a - x_b): the anchor separation along the slider axis a1 = R_a axis_a, 0
 * where the anchors coincide, positive when body a has moved along +axis relative to body b. With body a's
 * lever arm ra - sep, d(s)/dt = a1 . (va + wa x (ra - sep) - vb - wb x rb) (the across rows' derivation in
 * ctn_joint_rows, along a1 instead of t_k). */
CTN_FN float ctn_prismatic_position(ctn_joint_def j, ctn_pose pa, ctn_pose pb) {
    ctn_v3 ra = ctn_quat_rotate(pa.q, j.anchor_a);
    ctn_v3 rb = ctn_quat_rotate(pb.q, j.anchor_b);
    ctn_v3 sep = ctn_point_sep(pa.p, pa.p_lo, ra, pb.p, pb.p_lo, rb);
    return ctn_dot(ctn_quat_rotate(pa.q, j.axis_a), sep);
}

/* Swing angle phi in [0, pi] of a cone-twist (or the angle between any two body axes): the angle between
 * the twist axes a1 = R_a axis_a and a2 = R_b axis_b, phi = atan2(|a1 x a2|, a1 . a2) (accurate near 0
 * and pi, unlike acos). */
CTN_FN float ctn_swing_angle(ctn_joint_def j, ctn_pose pa, ctn_pose pb) {
    ctn_v3 a1 = ctn_quat_rotate(pa.q, j.axis_a);
    ctn_v3 a2 = ctn_quat_rotate(pb.q, j.axis_b);
    return CTN_ATAN2(ctn_length(ctn_cross(a1, a2)), ctn_dot(a1, a2));
}

/* Twist rate direction of a cone-twist: with the swing-twist decomposition of the rest error (Grassia 1998;
 * Bullet's btConeTwistConstraint, Coumans 2006) q_e = (q_a q_rel) q_b^* into a swing that carries b's twist
 * axis onto a1 = R_a axis_a by the shortest arc and a twist about a1, the twist angle is the hinge angle
 * theta = 2 atan2(v . a1, w) of q_e = (w, v) (ctn_hinge_angle), and differentiating it with
 * dq_e/dt = (wa q_e - q_e wb) / 2 gives, exactly at any swing below pi (docs/design.md),
 *     d(theta)/dt = T . (wa - wb),  T = [w^2 a1 - w (v x a1) + (v . a1) v] / (w^2 + (v . a1)^2).
 * With no swing v is parallel to a1 and T = a1 (the hinge's row). */
CTN_FN ctn_v3 ctn_twist_direction(ctn_joint_def j, ctn_pose pa, ctn_pose pb) {
    ctn_v3 a1 = ctn_quat_rotate(pa.q, j.axis_a);
    ctn_quat qe = ctn_quat_mul(ctn_quat_mul(pa.q, j.rel_q), ctn_quat_conj(pb.q));
    ctn_v3 v = ctn_v3_make(qe.x, qe.y, qe.z);
    float va = ctn_dot(v, a1), den = qe.w * qe.w + va * va;
    if (!(den > 1e-12f)) return a1; /* swing of pi: the twist is undefined */
    ctn_v3 t = ctn_madd(ctn_scale(a1, qe.w * qe.w), ctn_cross(v, a1), -qe.w);
    return ctn_scale(ctn_madd(t, v, va), 1.0f / den);
}

/* A limit row at index k along +dir (value - lo >= 0) or -dir (hi - value >= 0), whichever limit is nearer;
 * g > 0 is the distance to the limit and lambda >= 0 pushes away from it. */
CTN_FN void ctn_limit_row(ctn_block *blk, float *g, int k, ctn_v3 dir, float value, float lo, float hi) {
    if (value - lo < hi - value) {
        blk->dir[k] = dir;
        g[k] = value - lo;
    } else {
        blk->dir[k] = ctn_neg(dir);
        g[k] = hi - value;
    }
    blk->lo[k] = 0.0f;
}

/* Position error g of every row and the row directions at the current poses (body b < 0: the world,
 * pose pb must then be the identity at the origin). Fills ra, rb, dir, n_lin, n_ang of `blk`. */
CTN_FN void ctn_joint_rows(ctn_joint_def j, ctn_pose pa, ctn_pose pb, ctn_block *blk, float *g) {
    ctn_v3 ra = ctn_quat_rotate(pa.q, j.anchor_a);
    ctn_v3 rb = ctn_quat_rotate(pb.q, j.anchor_b);
    ctn_v3 sep = ctn_point_sep(pa.p, pa.p_lo, ra, pb.p, pb.p_lo, rb); /* eq. 30, from the two-float positions */
    int k;
    for (k = 0; k < CTN_MAX_ROWS; ++k) g[k] = 0.0f;
    blk->ra = ra;
    blk->rb = rb;
    blk->n_lin = 0;
    blk->n_ang = 0;
    /* impulse bounds: bilateral unless a row below says otherwise */
    for (k = 0; k < CTN_MAX_ROWS; ++k) {
        blk->lo[k] = -CTN_INF;
        blk->hi[k] = CTN_INF;
    }
    if (j.type == CTN_JT_DISTANCE) {
        /* g = |r| - l, J = r^T/|r| [I, -ra^, -I, rb^] (eq. 32) */
        float len = ctn_length(sep);
        ctn_v3 n = len > 1e-12f ? ctn_scale(sep, 1.0f / len) : ctn_v3_make(0.0f, 1.0f, 0.0f);
        blk->dir[0] = n;
        blk->n_lin = 1;
        g[0] = len - j.rest_length;
        /* rope: a positive impulse pushes the anchors apart, so a rope that only pulls has lambda <= 0 */
        if (j.flags & CTN_JF_ROPE) blk->lo[0] = -CTN_INF, blk->hi[0] = 0.0f;
        return;
    }
    if (j.type == CTN_JT_CONTACT) {
        /* Lacoursière 2011, eq. 33: the normal n (from b to a) and two tangents, all point-to-point rows at the
         * contact points. g_n = n . (pa - pb) is the signed separation (< 0: penetration); the friction
         * rows have no position error. Bounds: lambda_n >= 0; friction is bounded by mu lambda_n in
         * ctn_block_delta. */
        ctn_v3 n = ctn_quat_rotate(pb.q, j.axis_b), t1, t2;
        /* first tangent: axis_a (b's frame) made orthogonal to n; it is carried over from step to step by
         * the contact matching, so warm-started friction impulses keep their direction */
        t1 = ctn_quat_rotate(pb.q, j.axis_a);
        t1 = ctn_madd(t1, n, -ctn_dot(n, t1));
        float tl = ctn_length(t1);
        if (tl > 0.1f) {
            t1 = ctn_scale(t1, 1.0f / tl);
            t2 = ctn_cross(n, t1);
        } else {
            ctn_basis(n, &t1, &t2);
        }
        blk->dir[0] = n;
        blk->dir[1] = t1;
        blk->dir[2] = t2;
        blk->n_lin = 3;
        g[0] = ctn_dot(n, sep);
        g[1] = 0.0f;
        g[2] = 0.0f;
        blk->lo[0] = 0.0f;
        return;
    }
    if (j.type == CTN_JT_CURVE) {
        /* Bead on a wire (Witkin and Baraff 2001): x = a's anchor, c(t*) its closest point on the curve (in b's
         * frame, kernels/ctn_curve.h), n1, n2 the normals there; g_k = n_k . (x - c(t*)), two rows across the
         * tangent. Because (x - c) . c'(t*) = 0, the motion of t* drops out of
         *     dg_k/dt = n_k . (v_x - v_c) + (dn_k/dt) . (x - c),
         * and the last term, first order in the error, is left out (J is exact on the curve). With n_k and c
         * fixed in b, dg_k/dt = n_k . (va + wa x ra - vb - wb x s0) with s0 = x - x_b: b's lever arm is its
         * centre to the bead (as the slider's, below). The closest point is found again at every substep. */
        ctn_v3 s0 = ctn_point_sep(pa.p, pa.p_lo, ra, pb.p, pb.p_lo, ctn_v3_zero());
        ctn_v3 x = ctn_quat_rotate_inv(pb.q, s0);
        ctn_curve_point cp = ctn_curve_closest(j, x);
        ctn_v3 e = ctn_sub(x, cp.c);
        blk->rb = s0;
        blk->dir[0] = ctn_quat_rotate(pb.q, cp.n1);
        blk->dir[1] = ctn_quat_rotate(pb.q, cp.n2);
        g[0] = ctn_dot(cp.n1, e);
        g[1] = ctn_dot(cp.n2, e);
        blk->n_lin = 2;
        return;
    }
    if (j.type == CTN_JT_PRISMATIC) {
        /* Slider along a1 = R_a axis_a: the anchor separation s has no component across the axis,
         * g_k = t_k . s for t1, t2 perpendicular to a1, fixed in body a's frame (so they turn with it). Then
         *     dg_k/dt = t_k . (va + wa x ra - vb - wb x rb) + (wa x t_k) . s
         *             = t_k . (va - vb - wb x rb) + wa . ((ra - s) x t_k),
         * the linear-row form with body a's lever arm ra - s (a's centre to b's anchor), exact at any pose
         * (Box2D's prismatic joint, Catto 2007, uses the same arm). The relative orientation is locked like
         * a fixed joint's (angular rows below). */
        ctn_v3 t1, t2;
        ctn_basis(j.axis_a, &t1, &t2);
        t1 = ctn_quat_rotate(pa.q, t1);
        t2 = ctn_quat_rotate(pa.q, t2);
        blk->ra = ctn_sub(ra, sep);
        blk->dir[0] = t1;
        blk->dir[1] = t2;
        g[0] = ctn_dot(t1, sep);
        g[1] = ctn_dot(t2, sep);
        blk->n_lin = 2;
        if (j.flags & (CTN_JF_LIMIT | CTN_JF_MOTOR)) {
            /* Third linear row along a1 with the same arm (ctn_prismatic_position): the nearer position limit
             * as a unilateral row (lambda >= 0), or g = 0 for a motor-only slider (ctn_joint_prepare makes it
             * the motor row while the limit is not reached), as the hinge's sixth row. */
            ctn_v3 a1 = ctn_quat_rotate(pa.q, j.axis_a);
            blk->dir[2] = a1;
            g[2] = 0.0f;
            if (j.flags & CTN_JF_LIMIT) ctn_limit_row(blk, g, 2, a1, ctn_dot(a1, sep), j.lo, j.hi);
            blk->n_lin = 3;
        }
    }
    if (j.type == CTN_JT_BALL || j.type == CTN_JT_HINGE || j.type == CTN_JT_FIXED || j.type == CTN_JT_UNIVERSAL ||
        j.type == CTN_JT_CONE_TWIST) {
        /* g = pa - pb along the world axes (eq. 31) */
        blk->dir[0] = ctn_v3_make(1.0f, 0.0f, 0.0f);
        blk->dir[1] = ctn_v3_make(0.0f, 1.0f, 0.0f);
        blk->dir[2] = ctn_v3_make(0.0f, 0.0f, 1.0f);
        g[0] = sep.x;
        g[1] = sep.y;
        g[2] = sep.z;
        blk->n_lin = 3;
    }
    if (j.type == CTN_JT_HINGE) {
        /* Keep a1 = R_a axis_a parallel to a2 = R_b axis_b. With t1, t2 perpendicular to a1,
         * g_k = t_k . (a2 x a1) has dg_k/dt = t_k . (wa - wb) to first order. */
        ctn_v3 a1 = ctn_quat_rotate(pa.q, j.axis_a);
        ctn_v3 a2 = ctn_quat_rotate(pb.q, j.axis_b);
        ctn_v3 t1, t2;
        ctn_basis(a1, &t1, &t2);
        ctn_v3 c = ctn_cross(a2, a1);
        blk->dir[3] = t1;
        blk->dir[4] = t2;
        g[3] = ctn_dot(t1, c);
        g[4] = ctn_dot(t2, c);
        blk->n_ang = 2;
        if (j.flags & (CTN_JF_LIMIT | CTN_JF_MOTOR)) {
            /* Sixth row about the hinge axis a1: J = [0, a1, 0, -a1], J v = d(theta)/dt. With a limit it
             * guards the nearer limit as a unilateral row (lambda >= 0): theta - lo >= 0 along a1, or
             * hi - theta >= 0 along -a1; g > 0 is the distance to the limit. A motor-only hinge has g = 0;
             * ctn_joint_prepare turns the row into the motor row when the limit is not reached. */
            blk->dir[5] = a1;
            g[5] = 0.0f;
            if (j.flags & CTN_JF_LIMIT) ctn_limit_row(blk, g, 5, a1, ctn_hinge_angle(j, pa, pb), j.lo, j.hi);
            blk->n_ang = 3;
        }
    } else if (j.type == CTN_JT_UNIVERSAL) {
        /* Cardan joint (the universal joint of ODE, Smith 2006, and Bullet): the cross axes a1 = R_a axis_a and
         * a2 = R_b axis_b stay perpendicular, g = a1 . a2; with da1/dt = wa x a1, da2/dt = wb x a2,
         *     dg/dt = (wa x a1) . a2 + a1 . (wb x a2) = (a1 x a2) . (wa - wb),
         * one angular row along t = a1 x a2, exact at any pose (|t| = 1 while the axes are perpendicular). */
        ctn_v3 a1 = ctn_quat_rotate(pa.q, j.axis_a);
        ctn_v3 a2 = ctn_quat_rotate(pb.q, j.axis_b);
        blk->dir[3] = ctn_cross(a1, a2);
        g[3] = ctn_dot(a1, a2);
        blk->n_ang = 1;
    } else if (j.type == CTN_JT_CONE_TWIST) {
        /* Ragdoll joint: ball + a swing cone phi <= phi_max and twist limits lo <= theta <= hi, each a
         * unilateral row (lambda >= 0) present when enabled (the swing-twist split of Bullet's
         * btConeTwistConstraint, Coumans 2006; docs/design.md). Swing: cos(phi) = a1 . a2, so
         * -sin(phi) dphi/dt = (a1 x a2) . (wa - wb) and g = phi_max - phi has dg/dt = n . (wa - wb) with
         * n = (a1 x a2) / |a1 x a2| (any axis across a1 when the axes are aligned, far from the cone).
         * Twist: theta (ctn_hinge_angle) with d(theta)/dt = T . (wa - wb) (ctn_twist_direction). */
        int r = 3;
        if (j.flags & CTN_JF_SWING) {
            ctn_v3 a1 = ctn_quat_rotate(pa.q, j.axis_a);
            ctn_v3 c = ctn_cross(a1, ctn_quat_rotate(pb.q, j.axis_b)), t2;
            float sn = ctn_length(c);
            if (sn > 1e-6f) c = ctn_scale(c, 1.0f / sn);
            else ctn_basis(a1, &c, &t2);
            blk->dir[r] = c;
            g[r] = j.rest_length - ctn_swing_angle(j, pa, pb);
            blk->lo[r] = 0.0f;
            ++r;
        }
        if (j.flags & CTN_JF_LIMIT) {
            ctn_limit_row(blk, g, r, ctn_twist_direction(j, pa, pb), ctn_hinge_angle(j, pa, pb), j.lo, j.hi);
            ++r;
        }
        blk->n_ang = r - 3;
    } else if (j.type == CTN_JT_FIXED || j.type == CTN_JT_PRISMATIC) {
        /* Orientation error: the rotation q_e = (q_a q_rel) q_b^* that takes b to its target; for a small
         * error q_e ~ (1, theta/2) and dtheta/dt = wa - wb, so g = 2 vec(q_e) along the world axes
         * (rows n_lin .. n_lin + 2: 3..5 for a fixed joint, 2..4 for a slider). */
        ctn_quat qe = ctn_quat_mul(ctn_quat_mul(pa.q, j.rel_q), ctn_quat_conj(pb.q));
        float s = qe.w < 0.0f ? -2.0f : 2.0f;
        int r = blk->n_lin;
        blk->dir[r] = ctn_v3_make(1.0f, 0.0f, 0.0f);
        blk->dir[r + 1] = ctn_v3_make(0.0f, 1.0f, 0.0f);
        blk->dir[r + 2] = ctn_v3_make(0.0f, 0.0f, 1.0f);
        g[r] = s * qe.x;
        g[r + 1] = s * qe.y;
        g[r + 2] = s * qe.z;
        blk->n_ang = 3;
    }
}

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

/* Builds the block of joint j for a substep of length prm.h (docs/design.md section 2, step 1).
 * va, vb: velocities at the start of the substep (before external forces); Ia, Ib: world inverse
 * inertias; split_a, split_b: mass-splitting factors (1 for Gauss-Seidel and CG, the body's joint count
 * for Jacobi, Tonge et al. 2012). SPOOK (Lacoursière 2011, eq. 23) with d = tau/h, Y = 1/(1 + 4d):
 *     s = 4 eps Y / h^2,   target = -(4Y/h) g + Y J v.
 * Baumgarte (Witkin and Baraff): s = 0, target = -(beta/h) g. */
CTN_FN void ctn_joint_prepare(ctn_joint_def j, ctn_pose pa, ctn_pose pb, ctn_vel va, ctn_vel vb, ctn_sym3 Ia,
                              ctn_sym3 Ib, float split_a, float split_b, ctn_step_params prm, ctn_block *blk) {
    float g[CTN_MAX_ROWS], jv[CTN_MAX_ROWS], k[CTN_MAX_ROWS * CTN_MAX_ROWS];
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
    /* mass splitting scales the whole inverse mass matrix of a body, inertia included */
    ctn_block_effective_mass(blk, va.inv_mass * split_a, ctn_sym3_scale(Ia, split_a), vb.inv_mass * split_b, ctn_sym3_scale(Ib, split_b), k);
    for (i = 0; i < n; ++i) {
        /* regularisation, plus a relative floor of 1e-6 that keeps rigid (eps = 0) blocks well conditioned */
        k[i * CTN_MAX_ROWS + i] += blk->soft[i] + 1e-6f * k[i * CTN_MAX_ROWS + i];
    }
    if (j.type == CTN_JT_CONTACT) {
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

/* Velocity change M^-1 J_side^T l of one side (0: body a, 1: body b) for the impulses l of a block. */
CTN_FN void ctn_block_body_delta(const ctn_block *b, const float *l, int side, float inv_mass, ctn_sym3 Iinv,
                                 ctn_v3 *dv, ctn_v3 *dw) {
    ctn_v3 P, L;
    ctn_block_impulse(b, l, &P, &L);
    ctn_v3 r = side == 0 ? b->ra : b->rb;
    float sign = side == 0 ? 1.0f : -1.0f;
    *dv = ctn_scale(P, sign * inv_mass);
    *dw = ctn_scale(ctn_sym3_mul(Iinv, ctn_add(ctn_cross(r, P), L)), sign);
}

/* One projected block Gauss-Seidel step of a joint: solves its rows as one block and applies the
 * impulse to both bodies' velocities (the caller writes back only dynamic bodies). Returns |r|^2. */
CTN_FN float ctn_block_solve(const ctn_block *b, float *lam, ctn_vel *va, ctn_vel *vb, ctn_sym3 Ia, ctn_sym3 Ib) {
    float dl[CTN_MAX_ROWS];
    ctn_v3 dv, dw;
    float r2 = ctn_block_delta(b, *va, *vb, lam, dl);
    ctn_block_body_delta(b, dl, 0, va->inv_mass, Ia, &dv, &dw);
    va->v = ctn_add(va->v, dv);
    va->w = ctn_add(va->w, dw);
    ctn_block_body_delta(b, dl, 1, vb->inv_mass, Ib, &dv, &dw);
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
CTN_FN void ctn_joint_error(ctn_joint_def j, ctn_pose pa, ctn_pose pb, float *gap, float *angle) {
    ctn_block blk;
    float g[CTN_MAX_ROWS];
    int k;
    float l2 = 0.0f, a2 = 0.0f;
    ctn_joint_rows(j, pa, pb, &blk, g);
    if (j.flags & CTN_JF_IMPLICIT_SPRING) blk.n_lin = 0;
    for (k = 0; k < blk.n_lin + blk.n_ang; ++k) {
        float e = g[k];
        if (blk.lo[k] == 0.0f) e = e < 0.0f ? e : 0.0f;
        else if (blk.hi[k] == 0.0f) e = e > 0.0f ? e : 0.0f;
        if (k < blk.n_lin) l2 += e * e;
        else a2 += e * e;
    }
    *gap = CTN_SQRT(l2);
    *angle = CTN_SQRT(a2);
}

#endif /* CTN_ROWS_H */
