/* Joint rows: the position error g and the Jacobian directions of every joint type at the current poses,
 * one builder per joint family (ctn_rows_*) and the dispatcher ctn_joint_rows; the row-count tables and
 * the angles (hinge, slider, swing, twist) that limits, motors and read-backs measure.
 *
 * Part of the math shared by the CPU solver and the OpenCL kernels (included by kernels/ctn_rows.h, which
 * holds the block algebra: effective masses, SPOOK targets and the block update). The row forms (linear
 * rows along d with lever arms ra, rb; angular rows along t) are described there.
 */
#ifndef CTN_JOINT_ROWS_H
#define CTN_JOINT_ROWS_H

#include "ctn_curve.h"
#include "ctn_joints.h"
#include "ctn_types.h"

/* Joint types as stored: the value of ctn_joint_type of the public header (host/core/joint_kinds.c checks
 * each pair at compile time), defined here beside their rows so that a new type's kernel side is this file. */
#define CTN_JT_DISTANCE 0
#define CTN_JT_BALL 1
#define CTN_JT_HINGE 2
#define CTN_JT_FIXED 3
#define CTN_JT_SPRING 4
#define CTN_JT_CONTACT 5     /* normal (unilateral) + two friction rows, Lacoursière 2011, eq. 33 */
#define CTN_JT_PRISMATIC 6   /* slider: translation along one axis only */
#define CTN_JT_UNIVERSAL 7   /* cardan: ball + axis_a kept perpendicular to axis_b */
#define CTN_JT_CONE_TWIST 8  /* ball + swing cone and twist limits (ragdoll shoulders, hips) */
#define CTN_JT_CURVE 9       /* a point of body a on a curve in body b's frame: 2 rows (kernels/ctn_curve.h) */
#define CTN_JT_GEAR 10       /* two bodies' turns about their axes at a ratio: 1 row (ctn_rows_gear) */
#define CTN_JT_RACK_PINION 11 /* a pinion's turn to a rack's travel along its axis: 1 row (ctn_rows_rack_pinion) */
#define CTN_JT_PLANAR 12     /* a plane of body a sliding on body b's anchor, turning about its normal: 3 rows */
#define CTN_JT_COUNT 13      /* the number of types (the joint-type table's length) */
/* Every type in value order, X(VALUE, name): CTN_JT_<VALUE>, the public CTN_JOINT_<VALUE> (checked equal at
 * compile time) and the host's entry ctn__joint_kind_<name>, defined in host/core/joints/<name>.c with the
 * type's own hooks (host/core/joint_kinds.c builds the table from this list). A new type adds its line. */
#define CTN_JT_LIST(X)                                                                                                   \
    X(DISTANCE, distance) X(BALL, ball) X(HINGE, hinge) X(FIXED, fixed) X(SPRING, spring) X(CONTACT, contact)          \
    X(PRISMATIC, prismatic) X(UNIVERSAL, universal) X(CONE_TWIST, cone_twist) X(CURVE, curve) X(GEAR, gear)            \
    X(RACK_PINION, rack_pinion) X(PLANAR, planar)

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
 * ctn_joint_def_rows), the bilateral part: distance 1, ball 3, hinge 5, fixed 6,
 * spring 0 (a force; an implicit spring is stored as a distance row), contact 3, prismatic 5, universal 4,
 * cone-twist 3, gear 1, rack-and-pinion 1; 0 for an unknown type. The one table of row counts: joint
 * creation (host/core/joint.c) and the exact solvers' layouts use it. */
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
    case CTN_JT_GEAR: return 1;
    case CTN_JT_RACK_PINION: return 1;
    case CTN_JT_PLANAR: return 3;
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

/* Linear (point-to-point) rows of a joint of type `type` with flags `flags`; the rest are angular. */
CTN_FN int ctn_joint_lin_rows_of(int type, int flags) {
    if (type == CTN_JT_DISTANCE) return 1;
    if (type == CTN_JT_PRISMATIC) return (flags & (CTN_JF_LIMIT | CTN_JF_MOTOR)) ? 3 : 2;
    if (type == CTN_JT_GEAR || type == CTN_JT_RACK_PINION || type == CTN_JT_PLANAR) return 1;
    return type == CTN_JT_SPRING ? 0 : 3;
}

/* The same of joint j, and of joint s of J (its type and flags read where they lie: no whole definition). */
CTN_FN int ctn_joint_lin_rows(ctn_joint_def j) { return ctn_joint_lin_rows_of(j.type, j.flags); }
CTN_FN int ctn_joint_lin_rows_at(ctn_joints J, int s) { return ctn_joint_lin_rows_of(CTN_JC(J, s).type, ctn_joint_flags(J, s)); }

/* Slider position s = a1 . (x_a - x_b): the anchor separation along the slider axis a1 = R_a axis_a, 0
 * where the anchors coincide, positive when body a has moved along +axis relative to body b. With body a's
 * lever arm ra - sep, d(s)/dt = a1 . (va + wa x (ra - sep) - vb - wb x rb) (the across rows' derivation in
 * ctn_rows_prismatic, along a1 instead of t_k). */
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


/* ---- row builders, one per joint family: each fills the rows of its joint from row 0 (linear rows first,
 * then angular ones), given the lever arms blk->ra, blk->rb and the anchor separation sep = pa - pb
 * (Lacoursière 2011, eq. 30) that ctn_joint_rows set up. ---- */

/* Point-to-point part of ball, hinge, fixed, universal and cone-twist: g = pa - pb along the world axes
 * (eq. 31), rows 0..2. */
CTN_FN void ctn_rows_point(ctn_v3 sep, ctn_block *blk, float *g) {
    blk->dir[0] = ctn_v3_make(1.0f, 0.0f, 0.0f);
    blk->dir[1] = ctn_v3_make(0.0f, 1.0f, 0.0f);
    blk->dir[2] = ctn_v3_make(0.0f, 0.0f, 1.0f);
    g[0] = sep.x;
    g[1] = sep.y;
    g[2] = sep.z;
    blk->n_lin = 3;
}

/* Orientation lock of fixed and prismatic: the rotation q_e = (q_a q_rel) q_b^* that takes b to its target;
 * for a small error q_e ~ (1, theta/2) and dtheta/dt = wa - wb, so g = 2 vec(q_e) along the world axes
 * (rows n_lin .. n_lin + 2: 3..5 for a fixed joint, 2..4 for a slider). */
CTN_FN void ctn_rows_orientation(ctn_joint_def j, ctn_pose pa, ctn_pose pb, ctn_block *blk, float *g) {
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

/* Distance: g = |r| - l, J = r^T/|r| [I, -ra^, -I, rb^] (eq. 32). */
CTN_FN void ctn_rows_distance(ctn_joint_def j, ctn_v3 sep, ctn_block *blk, float *g) {
    float len = ctn_length(sep);
    ctn_v3 n = len > 1e-12f ? ctn_scale(sep, 1.0f / len) : ctn_v3_make(0.0f, 1.0f, 0.0f);
    blk->dir[0] = n;
    blk->n_lin = 1;
    g[0] = len - j.rest_length;
    /* rope: a positive impulse pushes the anchors apart, so a rope that only pulls has lambda <= 0 */
    if (j.flags & CTN_JF_ROPE) blk->lo[0] = -CTN_INF, blk->hi[0] = 0.0f;
}

/* Contact (Lacoursière 2011, eq. 33): the normal n (from b to a) and two tangents, all point-to-point rows
 * at the contact points. g_n = n . (pa - pb) is the signed separation (< 0: penetration); the friction rows
 * have no position error. Bounds: lambda_n >= 0; friction is bounded by mu lambda_n in ctn_block_delta. */
CTN_FN void ctn_rows_contact(ctn_joint_def j, ctn_pose pb, ctn_v3 sep, ctn_block *blk, float *g) {
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
}

/* Bead on a wire (Witkin and Baraff 2001): x = a's anchor, c(t*) its closest point on the curve (in b's
 * frame, kernels/ctn_curve.h), n1, n2 the normals there; g_k = n_k . (x - c(t*)), two rows across the
 * tangent. Because (x - c) . c'(t*) = 0, the motion of t* drops out of
 *     dg_k/dt = n_k . (v_x - v_c) + (dn_k/dt) . (x - c),
 * and the last term, first order in the error, is left out (J is exact on the curve). With n_k and c
 * fixed in b, dg_k/dt = n_k . (va + wa x ra - vb - wb x s0) with s0 = x - x_b: b's lever arm is its
 * centre to the bead (as the slider's, below). The closest point is found again at every substep. */
CTN_FN void ctn_rows_curve(ctn_joint_def j, ctn_pose pa, ctn_pose pb, ctn_block *blk, float *g) {
    ctn_v3 s0 = ctn_point_sep(pa.p, pa.p_lo, blk->ra, pb.p, pb.p_lo, ctn_v3_zero());
    ctn_v3 x = ctn_quat_rotate_inv(pb.q, s0);
    ctn_curve_point cp = ctn_curve_closest(j, x);
    ctn_v3 e = ctn_sub(x, cp.c);
    blk->rb = s0;
    blk->dir[0] = ctn_quat_rotate(pb.q, cp.n1);
    blk->dir[1] = ctn_quat_rotate(pb.q, cp.n2);
    g[0] = ctn_dot(cp.n1, e);
    g[1] = ctn_dot(cp.n2, e);
    blk->n_lin = 2;
}

/* Slider along a1 = R_a axis_a: the anchor separation s has no component across the axis,
 * g_k = t_k . s for t1, t2 perpendicular to a1, fixed in body a's frame (so they turn with it). Then
 *     dg_k/dt = t_k . (va + wa x ra - vb - wb x rb) + (wa x t_k) . s
 *             = t_k . (va - vb - wb x rb) + wa . ((ra - s) x t_k),
 * the linear-row form with body a's lever arm ra - s (a's centre to b's anchor), exact at any pose
 * (Box2D's prismatic joint, Catto 2007, uses the same arm). The relative orientation is locked like
 * a fixed joint's (ctn_rows_orientation). */
CTN_FN void ctn_rows_prismatic(ctn_joint_def j, ctn_pose pa, ctn_pose pb, ctn_v3 sep, ctn_block *blk, float *g) {
    ctn_v3 t1, t2;
    ctn_basis(j.axis_a, &t1, &t2);
    t1 = ctn_quat_rotate(pa.q, t1);
    t2 = ctn_quat_rotate(pa.q, t2);
    blk->ra = ctn_sub(blk->ra, sep);
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
    ctn_rows_orientation(j, pa, pb, blk, g);
}

/* The two angular rows that keep the world axes a1 (body a's) and a2 (body b's) parallel, at rows r, r + 1:
 * with t1, t2 perpendicular to a1, g_k = t_k . (a2 x a1) has dg_k/dt = t_k . (wa - wb) to first order (the
 * hinge's and the planar joint's). */
CTN_FN void ctn_rows_parallel(ctn_v3 a1, ctn_v3 a2, int r, ctn_block *blk, float *g) {
    ctn_v3 t1, t2;
    ctn_basis(a1, &t1, &t2);
    ctn_v3 c = ctn_cross(a2, a1);
    blk->dir[r] = t1;
    blk->dir[r + 1] = t2;
    g[r] = ctn_dot(t1, c);
    g[r + 1] = ctn_dot(t2, c);
    blk->n_ang = 2;
}

/* Hinge: the point rows, and a1 = R_a axis_a kept parallel to a2 = R_b axis_b (ctn_rows_parallel). */
CTN_FN void ctn_rows_hinge(ctn_joint_def j, ctn_pose pa, ctn_pose pb, ctn_v3 sep, ctn_block *blk, float *g) {
    ctn_rows_point(sep, blk, g);
    ctn_v3 a1 = ctn_quat_rotate(pa.q, j.axis_a);
    ctn_v3 a2 = ctn_quat_rotate(pb.q, j.axis_b);
    ctn_rows_parallel(a1, a2, 3, blk, g);
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
}

/* A hinge's five position errors without its block, as ctn_joint_rows forms them with ctn_rows_hinge (the same
 * functions, so the same bits): the lever arms ra = R_a anchor_a, rb = R_b anchor_b, g_0..2 the anchors'
 * separation (ctn_point_sep; ctn_rows_point's g), a1 = R_a axis_a, and the basis t1, t2 across it with
 * g_3,4 = t_k . (a2 x a1), a2 = R_b axis_b (ctn_rows_parallel, into a block of its own: its directions are read
 * back, the caller's block is not written). For the host's hinge builds without SSE2 (host/solve/hinge_rows.c,
 * chord_rows.c), where a chord step must keep the velocity solve's row directions. */
typedef struct ctn_hinge_pos {
    ctn_v3 ra, rb, a1, t1, t2;
    float g[5];
} ctn_hinge_pos;

CTN_FN ctn_hinge_pos ctn_hinge_position(ctn_pose pa, ctn_pose pb, ctn_v3 anchor_a, ctn_v3 anchor_b, ctn_v3 axis_a, ctn_v3 axis_b) {
    ctn_hinge_pos h;
    ctn_block rows; /* only dir[3], dir[4] and n_ang are written */
    h.ra = ctn_quat_rotate(pa.q, anchor_a);
    h.rb = ctn_quat_rotate(pb.q, anchor_b);
    ctn_v3 sep = ctn_point_sep(pa.p, pa.p_lo, h.ra, pb.p, pb.p_lo, h.rb);
    h.g[0] = sep.x;
    h.g[1] = sep.y;
    h.g[2] = sep.z;
    h.a1 = ctn_quat_rotate(pa.q, axis_a);
    ctn_rows_parallel(h.a1, ctn_quat_rotate(pb.q, axis_b), 3, &rows, h.g);
    h.t1 = rows.dir[3];
    h.t2 = rows.dir[4];
    return h;
}

/* Fixed (weld): the point rows and the orientation lock. */
CTN_FN void ctn_rows_fixed(ctn_joint_def j, ctn_pose pa, ctn_pose pb, ctn_v3 sep, ctn_block *blk, float *g) {
    ctn_rows_point(sep, blk, g);
    ctn_rows_orientation(j, pa, pb, blk, g);
}

/* Planar (URDF's planar joint): the anchors stay in one plane across a1 = R_a axis_a, g_0 = a1 . s (s = pa - pb, the anchors' separation), a row with the slider's arm ra - s
 * (ctn_rows_prismatic, along a1 instead of across it: d(g_0)/dt = a1 . (va - vb - wb x rb) +
 * wa . ((ra - s) x a1), exact at any pose); and a1 stays parallel to a2 = R_b axis_b (the hinge's angular
 * rows), so the bodies turn relative to each other about the normal only. */
CTN_FN void ctn_rows_planar(ctn_joint_def j, ctn_pose pa, ctn_pose pb, ctn_v3 sep, ctn_block *blk, float *g) {
    ctn_v3 a1 = ctn_quat_rotate(pa.q, j.axis_a);
    ctn_v3 a2 = ctn_quat_rotate(pb.q, j.axis_b);
    blk->ra = ctn_sub(blk->ra, sep);
    blk->dir[0] = a1;
    g[0] = ctn_dot(a1, sep);
    blk->n_lin = 1;
    ctn_rows_parallel(a1, a2, 1, blk, g);
}

/* Cardan joint (the universal joint of ODE, Smith 2006, and Bullet): the point rows, and the cross axes
 * a1 = R_a axis_a and a2 = R_b axis_b stay perpendicular, g = a1 . a2; with da1/dt = wa x a1,
 * da2/dt = wb x a2,
 *     dg/dt = (wa x a1) . a2 + a1 . (wb x a2) = (a1 x a2) . (wa - wb),
 * one angular row along t = a1 x a2, exact at any pose (|t| = 1 while the axes are perpendicular). */
CTN_FN void ctn_rows_universal(ctn_joint_def j, ctn_pose pa, ctn_pose pb, ctn_v3 sep, ctn_block *blk, float *g) {
    ctn_rows_point(sep, blk, g);
    ctn_v3 a1 = ctn_quat_rotate(pa.q, j.axis_a);
    ctn_v3 a2 = ctn_quat_rotate(pb.q, j.axis_b);
    blk->dir[3] = ctn_cross(a1, a2);
    g[3] = ctn_dot(a1, a2);
    blk->n_ang = 1;
}

/* Ragdoll joint: the point rows, a swing cone phi <= phi_max and twist limits lo <= theta <= hi, each a
 * unilateral row (lambda >= 0) present when enabled (the swing-twist split of Bullet's
 * btConeTwistConstraint, Coumans 2006; docs/design.md). Swing: cos(phi) = a1 . a2, so
 * -sin(phi) dphi/dt = (a1 x a2) . (wa - wb) and g = phi_max - phi has dg/dt = n . (wa - wb) with
 * n = (a1 x a2) / |a1 x a2| (any axis across a1 when the axes are aligned, far from the cone).
 * Twist: theta (ctn_hinge_angle) with d(theta)/dt = T . (wa - wb) (ctn_twist_direction). */
CTN_FN void ctn_rows_cone_twist(ctn_joint_def j, ctn_pose pa, ctn_pose pb, ctn_v3 sep, ctn_block *blk, float *g) {
    int r = 3;
    ctn_rows_point(sep, blk, g);
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
}

/* Turn of a body about its axis since a reference (the angles of gears and rack-and-pinions): the body's
 * spoke u = R e, e the first direction across its axis n (ctn_basis, body frame), has turned about
 * a = R n by
 *     delta = atan2(a . (ref x u), ref . u)   in (-pi, pi]
 * since it pointed along the world direction ref. With u = cos(delta) ref + sin(delta) (a x ref) and
 * du/dt = w x u, d(delta)/dt = a . w exactly for any w while a stays perpendicular to ref, i.e. while the
 * body turns about a fixed axis as a hinge holds it (docs/design.md). The world re-centres ref on u long
 * before delta reaches pi (ctn_gear_recentre), so the accumulated angle never jumps at +-pi. */
CTN_FN float ctn_turn_angle(ctn_quat q, ctn_v3 axis, ctn_v3 ref, ctn_v3 *a, ctn_v3 *u) {
    ctn_v3 e, f;
    ctn_basis(axis, &e, &f);
    *a = ctn_quat_rotate(q, axis);
    *u = ctn_quat_rotate(q, e);
    return CTN_ATAN2(ctn_dot(*a, ctn_cross(ref, *u)), ctn_dot(ref, *u));
}

/* Gear (Bullet's btGearConstraint, Coumans 2012; Jolt's GearConstraint, Rouwe 2022): the turns of the two
 * bodies about their axes a1 = R_a axis_a, a2 = R_b axis_b keep theta_a + r theta_b constant (r = stiffness;
 * with parallel axes r > 0 turns them opposite ways, as two meshing spur gears with r = teeth_b / teeth_a):
 *     g = g_ref + delta_a + r delta_b   (ctn_turn_angle, from the references of the last re-centring),
 *     dg/dt = a1 . wa + r a2 . wb.
 * It is written as a linear row along a unit d perpendicular to both axes with lever arms ra = d x a1 and
 * rb = -r (d x a2), so that ra x d = a1 and rb x d = -r a2:
 *     J v = d . (va - vb) + a1 . wa + r a2 . wb,
 * the gear's row plus d . (va - vb), which vanishes while the two centres move together: gears hinged at
 * their centres to the world or to one base, the setting in which world angular velocities about the axes
 * are the gears' turns at all. The impulse is the torque a1 lambda on a and r a2 lambda on b, with opposite
 * forces along d on the two centres that their hinges take. d: the common normal a1 x a2 of bevel gears,
 * or for (near) parallel axes a direction across both: any d across both gives the same angular parts,
 * so the choice does not matter where the axes wobble about parallel. */
CTN_FN void ctn_rows_gear(ctn_joint_def j, ctn_pose pa, ctn_pose pb, ctn_block *blk, float *g) {
    ctn_v3 a1, a2, ua, ub, t;
    float da = ctn_turn_angle(pa.q, j.axis_a, j.anchor_a, &a1, &ua);
    float db = ctn_turn_angle(pb.q, j.axis_b, j.anchor_b, &a2, &ub);
    ctn_v3 d = ctn_cross(a1, a2);
    float s = ctn_length(d);
    if (s > 1e-3f) {
        d = ctn_scale(d, 1.0f / s);
    } else { /* parallel axes: across a1, made exactly perpendicular to a2 (then |d . a1| < 1e-3) */
        ctn_basis(a1, &d, &t);
        d = ctn_madd(d, a2, -ctn_dot(d, a2));
        d = ctn_scale(d, 1.0f / ctn_length(d));
    }
    blk->ra = ctn_cross(d, a1);
    blk->rb = ctn_scale(ctn_cross(d, a2), -j.stiffness);
    blk->dir[0] = d;
    blk->n_lin = 1;
    g[0] = j.rest_length + da + j.stiffness * db;
}

/* Rack and pinion on a common moving base (CTN_JF_RACK_BASE; a gripper's palm on which a pinion is hinged and
 * a rack slides, as the couplings URDF import makes of <mimic> joints): the world turn of the pinion is not
 * its turn on the base once the base rotates, so the turn is measured relative to the rack, whose
 * orientation its slider locks to the base: delta = the turn of q_rel = q_b^* q_a about axis_a from the
 * reference spoke anchor_a, both in b's frame (ctn_turn_angle), with d(delta)/dt = a1 . (wa - wb) exactly
 * while a1 = R_a axis_a keeps its direction in b's frame, as the hinge and the slider on one base make it.
 * The rack position is taken at the pinion point x_p = x_a + R_a anchor_b on the pinion's axis (a hinged
 * link's centre of mass is usually off its axis), p = a2 . (x_p - x_b):
 *     g = g_ref + r delta + p - p_ref,
 *     dg/dt = r a1 . (wa - wb) + a2 . (va + wa x rp - vb) + (wb x a2) . (x_p - x_b),   rp = R_a anchor_b,
 * a linear row along a2 with arms ra = rp + r (a2 x a1) and rb = (x_p - x_b) + r (a2 x a1), since
 * (a2 x a1) x a2 = a1 for a1 perpendicular to a2. Exact at any pose and velocity of the base: two such
 * joints from one pinion (or to one rack) tie two joint positions on the base in a fixed ratio. */
CTN_FN void ctn_rows_rack_base(ctn_joint_def j, ctn_pose pa, ctn_pose pb, ctn_block *blk, float *g) {
    ctn_v3 a1b, ua;
    float da = ctn_turn_angle(ctn_quat_mul(ctn_quat_conj(pb.q), pa.q), j.axis_a, j.anchor_a, &a1b, &ua);
    ctn_v3 a1 = ctn_quat_rotate(pa.q, j.axis_a);
    ctn_v3 a2 = ctn_quat_rotate(pb.q, j.axis_b);
    ctn_v3 rp = ctn_quat_rotate(pa.q, j.anchor_b);
    ctn_v3 sep = ctn_point_sep(pa.p, pa.p_lo, rp, pb.p, pb.p_lo, ctn_v3_zero());
    ctn_v3 arm = ctn_scale(ctn_cross(a2, a1), j.stiffness);
    blk->ra = ctn_add(rp, arm);
    blk->rb = ctn_add(sep, arm);
    blk->dir[0] = a2;
    blk->n_lin = 1;
    g[0] = j.rest_length + j.stiffness * da + (ctn_dot(a2, sep) - j.lo);
}

/* Rack and pinion (Jolt's RackAndPinionConstraint, Rouwe 2022): the rack b travels r = stiffness metres along its axis
 * a2 = R_b axis_b per radian the pinion a turns about a1 = R_a axis_a (a1 perpendicular to a2). With the
 * pinion's centre seen from the rack's along the rack, p = a2 . (x_a - x_b) (p_ref = lo at the re-centring),
 *     g = g_ref + r delta_a + p - p_ref.
 * This is the tooth contact at the pinion's pitch point: a linear row along a2 with the pinion's arm
 * ra = r (a2 x a1), so that (wa x ra) . a2 = r a1 . wa, and the rack's arm rb = x_a - x_b:
 *     J v = a2 . (va + wa x ra - vb - wb x rb) = r a1 . wa + a2 . (va - vb) + (wb x a2) . (x_a - x_b) = dg/dt,
 * exact while a1 is perpendicular to a2 and to the reference. */
CTN_FN void ctn_rows_rack_pinion(ctn_joint_def j, ctn_pose pa, ctn_pose pb, ctn_block *blk, float *g) {
    ctn_v3 a1, ua;
    if (j.flags & CTN_JF_RACK_BASE) {
        ctn_rows_rack_base(j, pa, pb, blk, g);
        return;
    }
    float da = ctn_turn_angle(pa.q, j.axis_a, j.anchor_a, &a1, &ua);
    ctn_v3 a2 = ctn_quat_rotate(pb.q, j.axis_b);
    ctn_v3 sep = ctn_point_sep(pa.p, pa.p_lo, ctn_v3_zero(), pb.p, pb.p_lo, ctn_v3_zero());
    blk->ra = ctn_scale(ctn_cross(a2, a1), j.stiffness);
    blk->rb = sep;
    blk->dir[0] = a2;
    blk->n_lin = 1;
    g[0] = j.rest_length + j.stiffness * da + (ctn_dot(a2, sep) - j.lo);
}

/* Re-centres the angle references of a gear or rack-and-pinion at poses pa, pb: the spokes' current
 * directions become the references and the current error becomes g_ref, so g is unchanged (to rounding)
 * while the deltas restart from 0. The world does this between steps once a delta passes
 * CTN_GEAR_RECENTRE (host/core/joint_gear.c); ctn_gear_turn says how far the spokes turned. */
#define CTN_GEAR_RECENTRE 0.7853982f /* pi/4: a gear may then turn up to 3 pi / 4 in one step */
CTN_FN float ctn_gear_turn(ctn_joint_def j, ctn_pose pa, ctn_pose pb) {
    ctn_v3 a, u;
    ctn_quat qa = (j.flags & CTN_JF_RACK_BASE) ? ctn_quat_mul(ctn_quat_conj(pb.q), pa.q) : pa.q; /* the pinion's turn on the rack */
    float t = CTN_FABS(ctn_turn_angle(qa, j.axis_a, j.anchor_a, &a, &u));
    if (j.type == CTN_JT_GEAR) t = CTN_FMAX(t, CTN_FABS(ctn_turn_angle(pb.q, j.axis_b, j.anchor_b, &a, &u)));
    return t;
}
CTN_FN void ctn_gear_recentre(ctn_joint_def *j, ctn_pose pa, ctn_pose pb) {
    ctn_block blk;
    float g[CTN_MAX_ROWS];
    ctn_v3 a;
    if (j->type == CTN_JT_GEAR) ctn_rows_gear(*j, pa, pb, &blk, g);
    else ctn_rows_rack_pinion(*j, pa, pb, &blk, g);
    j->rest_length = g[0];
    if (j->flags & CTN_JF_RACK_BASE) {
        ctn_turn_angle(ctn_quat_mul(ctn_quat_conj(pb.q), pa.q), j->axis_a, j->anchor_a, &a, &j->anchor_a);
        ctn_v3 rp = ctn_quat_rotate(pa.q, j->anchor_b);
        j->lo = ctn_dot(ctn_quat_rotate(pb.q, j->axis_b), ctn_point_sep(pa.p, pa.p_lo, rp, pb.p, pb.p_lo, ctn_v3_zero()));
        return;
    }
    ctn_turn_angle(pa.q, j->axis_a, j->anchor_a, &a, &j->anchor_a);
    if (j->type == CTN_JT_GEAR) ctn_turn_angle(pb.q, j->axis_b, j->anchor_b, &a, &j->anchor_b);
    else j->lo = ctn_dot(ctn_quat_rotate(pb.q, j->axis_b), ctn_point_sep(pa.p, pa.p_lo, ctn_v3_zero(), pb.p, pb.p_lo, ctn_v3_zero()));
}

/* ctn_joint_rows' part common to every joint, from the anchors alone: lever arms ra, rb, g zero, no rows,
 * bilateral bounds; returns the anchor separation. A ball joint's rows are then ctn_rows_point(sep, blk, g), which
 * a caller holding the compact record forms without a whole definition (ctn_rattle_slot). */
CTN_FN ctn_v3 ctn_joint_rows_start(ctn_v3 anchor_a, ctn_v3 anchor_b, ctn_pose pa, ctn_pose pb, ctn_block *blk, float *g) {
    ctn_v3 ra = ctn_quat_rotate(pa.q, anchor_a);
    ctn_v3 rb = ctn_quat_rotate(pb.q, anchor_b);
    ctn_v3 sep = ctn_point_sep(pa.p, pa.p_lo, ra, pb.p, pb.p_lo, rb); /* eq. 30, from the two-float positions */
    int k;
    for (k = 0; k < CTN_MAX_ROWS; ++k) g[k] = 0.0f;
    blk->ra = ra;
    blk->rb = rb;
    blk->n_lin = 0;
    blk->n_ang = 0;
    /* impulse bounds: bilateral unless a row builder says otherwise */
    for (k = 0; k < CTN_MAX_ROWS; ++k) {
        blk->lo[k] = -CTN_INF;
        blk->hi[k] = CTN_INF;
    }
    return sep;
}

/* Position error g of every row and the row directions at the current poses (body b < 0: the world,
 * pose pb must then be the identity at the origin). Fills ra, rb, dir, n_lin, n_ang of `blk`; the rows
 * themselves come from the builder of the joint's family above. */
CTN_FN void ctn_joint_rows(ctn_joint_def j, ctn_pose pa, ctn_pose pb, ctn_block *blk, float *g) {
    ctn_v3 sep = ctn_joint_rows_start(j.anchor_a, j.anchor_b, pa, pb, blk, g);
    switch (j.type) {
    case CTN_JT_DISTANCE: ctn_rows_distance(j, sep, blk, g); break;
    case CTN_JT_CONTACT: ctn_rows_contact(j, pb, sep, blk, g); break;
    case CTN_JT_CURVE: ctn_rows_curve(j, pa, pb, blk, g); break;
    case CTN_JT_PRISMATIC: ctn_rows_prismatic(j, pa, pb, sep, blk, g); break;
    case CTN_JT_BALL: ctn_rows_point(sep, blk, g); break;
    case CTN_JT_HINGE: ctn_rows_hinge(j, pa, pb, sep, blk, g); break;
    case CTN_JT_FIXED: ctn_rows_fixed(j, pa, pb, sep, blk, g); break;
    case CTN_JT_UNIVERSAL: ctn_rows_universal(j, pa, pb, sep, blk, g); break;
    case CTN_JT_CONE_TWIST: ctn_rows_cone_twist(j, pa, pb, sep, blk, g); break;
    case CTN_JT_GEAR: ctn_rows_gear(j, pa, pb, blk, g); break;
    case CTN_JT_RACK_PINION: ctn_rows_rack_pinion(j, pa, pb, blk, g); break;
    case CTN_JT_PLANAR: ctn_rows_planar(j, pa, pb, sep, blk, g); break;
    default: break; /* a spring (a force, no rows) */
    }
}

#endif /* CTN_JOINT_ROWS_H */
