/* Data layouts shared by the host and the OpenCL kernels.
 *
 * Every struct holds only 4-byte fields (float / int, no OpenCL vector types, whose 16-byte alignment would
 * add padding), so the C compiler and the OpenCL compiler lay them out identically and arrays of them can be
 * copied to a device as bytes (kernels/ctn_layout.h asserts the sizes and offsets on both sides).
 * Bodies are kept as a structure of arrays of these small records (pose, velocity, inverse inertia,
 * properties) so a kernel only streams what it needs.
 */
#ifndef CTN_TYPES_H
#define CTN_TYPES_H

#include "ctn_math.h"

#define CTN_MAX_ROWS 6
/* The impulses (lambda) and the per-slot arrays beside them (the Jacobi increments, CG's vectors, the
 * assembly's steps) hold `ls` floats a joint slot, row k of slot s at ls s + k: the layout's row stride, the
 * most rows of any of its joints (host/core/topology.c; 3 in a world of ball joints and contacts, which halves
 * the arrays against CTN_MAX_ROWS), on the host and on OpenCL devices alike (each kernel that reads them takes it
 * as its argument ls). A row at or past the stride is beyond every joint's rows and reads as zero, as the stored
 * zeros of those rows read before. */
#define CTN_LAM(l, ls, s, k) ((k) < (ls) ? (l)[(ls) * (s) + (k)] : 0.0f)
#define CTN_KINV_SIZE 21 /* packed lower triangle of a 6x6 symmetric matrix */

/* Body flags. */
#define CTN_BODY_FLAG_DYNAMIC 1   /* moved by forces and joints (inverse mass > 0) */
#define CTN_BODY_FLAG_KINEMATIC 2 /* moved by its velocity only */
#define CTN_BODY_FLAG_PARTICLE 4  /* 3 DOF: no orientation, no angular velocity */
#define CTN_BODY_FLAG_ALIVE 8

/* Position and orientation: 40 bytes, no padding.
 * The position is a two-float ("double-float") number p + p_lo, |p_lo| <= ulp(p) / 2 per component: float32
 * alone spaces 1e4 m by 9.8e-4 m (1 % of a 0.1 m link), p + p_lo resolves ~1e-12 m there. Kernels keep float32
 * arithmetic: integration adds with ctn_v3_add2, and every vector between two bodies' points is formed by
 * ctn_point_sep, which subtracts the leading parts first (exact for nearby bodies).
 * The order p, p_lo, q puts the orientation last so that a 16-byte load at any field (the CPU's SSE2 loops read
 * p, p_lo and q as four lanes each: host/solve/lanes.h, body_passes.c) stays inside the record: lane 3 of p is
 * p_lo.x, of p_lo is q.w, and q fills the last 16 bytes. With q in the middle (p, q, p_lo) a load at p_lo would
 * read 4 bytes past the record, past the end of an array at its last pose. Arrays of poses have a 40-byte
 * stride, so a pose is 8-byte aligned and the loads are unaligned ones. */
typedef struct ctn_pose {
    ctn_v3 p;    /* leading part of the position */
    ctn_v3 p_lo; /* trailing part of the position */
    ctn_quat q;
} ctn_pose;

/* Linear and angular velocity, the state a step changes and the divergence guard keeps a spare of
 * (host/core/divergence.c): 24 bytes, nothing constant beside it. */
typedef struct ctn_vel {
    ctn_v3 v;
    ctn_v3 w;
} ctn_vel;

/* The body's inverse mass matrix M^-1 = diag(inv_mass 1, I^-1): the world-frame inverse inertia, refreshed
 * from the orientation each substep, and the inverse mass (0 for static and kinematic bodies), which only the
 * API and attachments change (host/core/body.c, host/core/attach.c). Every writer of inv_inertia leaves
 * inv_mass as it is. 28 bytes, seven floats without padding (a pad would cost 4 B a body, about 1% of a link);
 * 16-byte loads of a record (host/solve/body_passes.c) start at inv_inertia.xx or inv_inertia.xy so that they
 * end inside it. */
typedef struct ctn_inertia {
    ctn_sym3 inv_inertia;
    float inv_mass;
} ctn_inertia;

/* Constant body properties: 16 bytes. */
typedef struct ctn_props {
    ctn_v3 inv_inertia_body; /* principal inverse moments, body frame */
    int flags;
} ctn_props;

/* The persistent user force and torque of a body (world frame, at the centre of mass): 32 bytes. A world
 * keeps an array of them only while some body has one that is not all +0.0 (host/core/body_force.c); a body
 * of a world without it has force and torque zero, which its forces pass adds as +0.0 just as it added the
 * stored zeros when they lived in ctn_props. */
typedef struct ctn_body_force {
    ctn_v3 force;
    float pad0;
    ctn_v3 torque;
    float pad1;
} ctn_body_force;

/* Joint types as stored (CTN_JT_*): kernels/ctn_joint_rows.h, beside their rows. */

/* ctn_joint_def.flags. */
#define CTN_JF_LIMIT 1 /* hinge: angle limits [lo, hi] (a unilateral row about the hinge axis); prismatic: position
                          limits [lo, hi] along the axis (m); cone-twist: twist angle limits [lo, hi] */
#define CTN_JF_MOTOR 2 /* hinge: velocity motor, target speed `stiffness`, max torque `damping`; prismatic: target
                          speed (m/s) and max force (N) */
#define CTN_JF_ROPE 4  /* distance: only resists stretching (lambda <= 0) */
#define CTN_JF_AUTO 8  /* contact made by the built-in collision detection (host/collide/collide.c) */
/* distance: an implicit spring, i.e. a spring-damper written as a compliant distance row (SPOOK with
 * compliance 1/k and damping time c/k, ctn_joint_prepare); stiffness and damping keep k and c */
#define CTN_JF_IMPLICIT_SPRING 16
#define CTN_JF_SWING 32 /* cone-twist: swing cone, angle between the twist axes <= rest_length (rad) */
/* rack-and-pinion on a common base (ctn_rows_rack_pinion): the pinion's turn is measured relative to the rack
 * and the rack position at the pinion point anchor_b (a's frame) instead of at its centre */
#define CTN_JF_RACK_BASE 64
/* curve (kernels/ctn_curve.h): the acceleration-level rows of Witkin and Baraff with feedback k_s, k_d
 * instead of SPOOK; the curve kind (CTN_CK_*) in the bits from CTN_JF_CURVE_KIND_SHIFT; a polyline window
 * that holds the polyline's first / last vertex */
#define CTN_JF_CURVE_ACCEL (1 << 12)
#define CTN_JF_CURVE_KIND_SHIFT 13
#define CTN_JF_CURVE_OPEN_START (1 << 15)
#define CTN_JF_CURVE_OPEN_END (1 << 16)

/* A joint as defined by the user, in solver (colour) order on the device: 112 bytes, the compact record
 * ctn_joint_core (48 bytes) followed by the per-type extras ctn_joint_extra (64 bytes), field for field.
 * The host's joint table and solver layout keep the two parts in two arrays, the extras only while some joint
 * has extras other than ctn_joint_extra_default's (kernels/ctn_joints.h); a full definition is formed where
 * a row builder, a getter or a file needs one (ctn_joint_at). The device keeps full definitions.
 * Body b < 0 is the world; then anchor_b / axis_b are world-frame.
 * Per-type meaning of the shared fields (contacts reuse fields a type does not need, so the size stays 112):
 *   prismatic: axis_a / axis_b = slider axis in each body's frame, rel_q = rest orientation of b relative to a;
 *            CTN_JF_LIMIT with lo/hi the position limits (m), CTN_JF_MOTOR as the hinge's (speed m/s, force N).
 *   universal: axis_a = the cross axis fixed in a (a's frame), axis_b = the one fixed in b (b's frame), kept
 *            perpendicular; rel_q = rest orientation of b relative to a.
 *   cone-twist: axis_a / axis_b = twist axis in each body's frame, rel_q = rest orientation of b relative to
 *            a (the zero of the twist angle); CTN_JF_SWING with rest_length = swing limit (rad), CTN_JF_LIMIT
 *            with lo/hi the twist limits (rad).
 *   hinge:   rel_q = rest orientation of b relative to a (the zero of the hinge angle); flags CTN_JF_LIMIT
 *            with lo/hi the angle limits (rad); CTN_JF_MOTOR with stiffness = target speed (rad/s) and
 *            damping = maximum torque (N m).
 *   gear:    axis_a / axis_b = each gear's axis in its body's frame; stiffness = ratio; anchor_a / anchor_b =
 *            the world directions each gear's reference spoke had when the world last re-centred the gear's
 *            angles (ctn_turn_angle, host/core/joint_gear.c); rest_length = the gear's error at that moment.
 *   rack-and-pinion: axis_a = the pinion's axis (a's frame), axis_b = the rack's axis (b's frame); stiffness =
 *            ratio (m of rack travel per rad); anchor_a, rest_length as the gear's; lo = the rack position
 *            a2 . (x_a - x_b) at the re-centring. With CTN_JF_RACK_BASE: anchor_a is the reference spoke in
 *            the rack's (b's) frame, anchor_b the pinion point on its axis (a's frame), lo = a2 . (x_a + R_a
 *            anchor_b - x_b).
 *   distance: flags CTN_JF_ROPE: the row only pulls (|pa - pb| <= rest_length).
 *   contact: anchor_a / anchor_b = contact points on a and b (body frames), axis_b = normal in b's frame
 *            (world frame for b < 0), pointing from b to a, axis_a = first friction direction in b's frame
 *            (kept across steps so warm-started friction keeps its direction); lo = mu, hi = restitution. */
typedef struct ctn_joint_def {
    int type;
    int a;
    int b;
    int rows;
    ctn_v3 anchor_a;
    float rest_length;
    ctn_v3 anchor_b;
    float compliance;   /* SPOOK epsilon (resolved: never negative) */
    ctn_v3 axis_a;      /* hinge axis, body-a frame */
    float damping_time; /* SPOOK tau in s, <= 0: two substep lengths */
    ctn_v3 axis_b;      /* hinge axis, body-b frame */
    float stiffness;    /* spring stiffness; hinge motor: target speed; gear, rack-and-pinion: ratio */
    ctn_quat rel_q;     /* fixed joint: rest orientation of b relative to a, conj(q_a) q_b */
    float damping;      /* spring: N s/m; hinge motor: max torque */
    float lo;           /* hinge: lower angle limit; contact: friction coefficient */
    float hi;           /* hinge: upper angle limit; contact: restitution */
    int flags;          /* CTN_JF_* */
} ctn_joint_def;

/* What every joint has and the row builders of ball, distance and contact-free chains read: the first 48 bytes
 * of ctn_joint_def, the same fields at the same offsets. */
typedef struct ctn_joint_core {
    int type;
    int a;
    int b;
    int rows;
    ctn_v3 anchor_a;
    float rest_length;
    ctn_v3 anchor_b;
    float compliance;
} ctn_joint_core;

/* The rest of ctn_joint_def (its last 64 bytes, the same fields in the same order): axes, damping time,
 * spring / motor / limit parameters, rest orientation and flags. A joint whose extras are
 * ctn_joint_extra_default's (zero but for the identity rest orientation: a ball or plain distance joint with
 * the default damping time) needs none stored. */
typedef struct ctn_joint_extra {
    ctn_v3 axis_a;
    float damping_time;
    ctn_v3 axis_b;
    float stiffness;
    ctn_quat rel_q;
    float damping;
    float lo;
    float hi;
    int flags;
} ctn_joint_extra;

/* Rows of one joint linearised at the current pose (built every substep): 288 bytes.
 * Rows 0..n_lin-1 are linear: d = dir[k], J = [d, ra x d, -d, -(rb x d)].
 * Rows n_lin..n_lin+n_ang-1 are angular: t = dir[k], J = [0, t, 0, -t]. */
typedef struct ctn_block {
    ctn_v3 ra;   /* lever arm of body a: anchor - centre of mass, world frame */
    int n_lin;
    ctn_v3 rb;   /* lever arm of body b (zero for the world) */
    int n_ang;
    ctn_v3 dir[CTN_MAX_ROWS];
    float kinv[CTN_KINV_SIZE]; /* (J M^-1 J^T + S)^-1, packed lower triangle */
    float bias[CTN_MAX_ROWS];  /* velocity target of each row */
    float soft[CTN_MAX_ROWS];  /* S: SPOOK regularisation of each row */
    float lo[CTN_MAX_ROWS];    /* impulse bounds (bilateral: -/+ CTN_INF) */
    float hi[CTN_MAX_ROWS];
    float pad[1]; /* contact blocks: 1 + friction coefficient; point blocks (3 bilateral linear rows): CTN_BLOCK_POINT; else 0 */
} ctn_block;

/* A ball joint's rows as Gauss-Seidel reads them (a point block's fields without the row directions, bounds
 * and padding): 64 bytes, one cache line, against ctn_block's 288. The rows are the world axes, all bilateral,
 * with one softness S for the three (ctn_prepare_slot_point builds it, ctn_gs_slot_compact updates it). The
 * CPU backend keeps these instead of ctn_blocks when every joint of a Gauss-Seidel world is a ball joint. */
typedef struct ctn_point_block {
    ctn_v3 ra;     /* lever arm of body a: anchor - centre of mass, world frame */
    float soft;    /* S of each of the three rows */
    ctn_v3 rb;     /* lever arm of body b (zero for the world) */
    float bias[3]; /* velocity target of each row */
    float kinv[6]; /* (K + S)^-1 of the 3x3 block, packed lower triangle (CTN_TRI) */
} ctn_point_block;

/* A ball joint's rows as the exact solver's chain path reads them (host/solve/direct_chain.c's ball walks): the
 * lever arms, the three targets and one softness S for the three rows, which are the world axes, all bilateral
 * (ctn_block's fields of a ball joint without the row directions, bounds, kinv and padding): 40 bytes against
 * ctn_block's 288. ra and rb lie where they lie in ctn_block and ctn_point_block. The CPU backend keeps these
 * instead of ctn_blocks when the exact solver takes every joint on its chain path and every joint is a rigid
 * ball joint (ctn__direct_ball_rows); ctn_prepare_slot_ball_row builds them. */
typedef struct ctn_ball_row {
    ctn_v3 ra;     /* lever arm of body a: anchor - centre of mass, world frame */
    float soft;    /* S of each of the three rows */
    ctn_v3 rb;     /* lever arm of body b (zero for the world) */
    float bias[3]; /* velocity target of each row */
} ctn_ball_row;

#define CTN_INF 3.0e38f

/* Solver parameters of one substep, passed to kernels by value: 48 bytes. */
typedef struct ctn_step_params {
    ctn_v3 gravity;
    float h;            /* substep length */
    float compliance;   /* world default (joints store their own resolved value) */
    float damping_time; /* world default tau */
    float baumgarte;    /* beta, used when stabilization == 1 */
    int stabilization;  /* 0 SPOOK, 1 Baumgarte */
    float warm_start;
    int mass_split;     /* 1: effective masses with split inverse masses (Jacobi) */
    float geometric_stiffness; /* factor on the geometric-stiffness inertia (0: off), ctn_solver.h */
    float pad;
} ctn_step_params;

#include "ctn_layout.h" /* the sizes and offsets above, checked by both compilers */

#endif /* CTN_TYPES_H */
