/* Curve constraints ("bead on a wire", Witkin and Baraff 1997/2001, "Physically Based Modeling",
 * constrained dynamics): a point of body a kept on a curve fixed in body b's frame (the world for b < 0).
 * Closest-point geometry of the four curve kinds, shared by the rows (kernels/ctn_rows.h), the host and
 * the OpenCL kernels.
 *
 * Stored in a ctn_joint_def of type CTN_JT_CURVE (all vectors in b's frame):
 *     anchor_a   the bead point in a's frame
 *     anchor_b   line: a point on it; circle, helix: the centre (the helix at t = 0); polyline: window vertex 0
 *     axis_b     line: unit direction; circle, helix: unit axis; polyline: window vertex 1
 *     axis_a     circle, helix: unit reference direction e1 (perpendicular to the axis, t = 0); polyline: vertex 2
 *     rel_q.xyz  polyline: window vertex 3
 *     rest_length  circle, helix: radius R
 *     lo         helix: pitch p (rise per turn along the axis, m)
 *     hi         polyline: vertices in the window (2..4)
 *     stiffness, damping: k_s (1/s^2) and k_d (1/s) of the acceleration-level form (CTN_JF_CURVE_ACCEL)
 *     flags      the kind (CTN_CK_*) in bits CTN_JF_CURVE_KIND_SHIFT.., CTN_JF_CURVE_OPEN_START / _END for a window that
 *                holds the polyline's first / last vertex (its end segments continue as straight lines).
 * A polyline's vertices live in the world (host/core/curve.c); the definition carries a window of up to
 * three consecutive segments around the bead's segment, re-centred by the host before every step. In
 * every substep the closest point is searched again within the window, so the bead may cross up to one
 * segment per step.
 */
#ifndef CTN_CURVE_H
#define CTN_CURVE_H

#include "ctn_types.h"

/* Curve kinds as stored (the values of the public ctn_curve_type, checked in host/core/curve.c). */
#define CTN_CK_LINE 0
#define CTN_CK_CIRCLE 1
#define CTN_CK_HELIX 2
#define CTN_CK_POLYLINE 3

CTN_FN int ctn_curve_kind(ctn_joint_def j) { return (j.flags >> CTN_JF_CURVE_KIND_SHIFT) & 3; }

/* The closest point of the curve to a point, in b's frame. */
typedef struct ctn_curve_point {
    ctn_v3 c;     /* curve point c(t*) */
    ctn_v3 t;     /* unit tangent c'/|c'| */
    ctn_v3 n1;    /* unit normals: (t, n1, n2) orthonormal; n1 is the radial direction of circles and helices,
                     so the rows turn smoothly with the bead (warm-started impulses keep their meaning) */
    ctn_v3 n2;
    ctn_v3 cdd;   /* c''(t*) of the parametrisation (zero for lines and polyline segments) */
    float speed;  /* |c'(t*)| */
    float param;  /* t*: arc length along a line, angle of a circle or helix, 0..1 along a polyline window's segment */
} ctn_curve_point;

/* Radial and tangential unit vectors of a circle or helix at angle t: e_r = cos t e1 + sin t e2,
 * e_t = -sin t e1 + cos t e2 with e2 = a x e1. */
CTN_FN void ctn_curve_radial(ctn_joint_def j, float t, ctn_v3 *er, ctn_v3 *et) {
    ctn_v3 e1 = j.axis_a, e2 = ctn_cross(j.axis_b, j.axis_a);
    float c = CTN_COS(t), s = CTN_SIN(t);
    *er = ctn_add(ctn_scale(e1, c), ctn_scale(e2, s));
    *et = ctn_sub(ctn_scale(e2, c), ctn_scale(e1, s));
}

/* Helix c(t) = o + R e_r(t) + k t a with k = p / (2 pi). The closest parameter minimises |c(t) - x|^2:
 * f(t) = (c - x) . c' = 0, f' = |c'|^2 + (c - x) . c''. The start is the angle of x about the axis on the
 * turn nearest x's height, so the bead keeps its turn while it is within p/2 of the wire; then Newton. */
CTN_FN float ctn_curve_helix_param(ctn_joint_def j, ctn_v3 x) {
    const float two_pi = 6.28318530718f;
    ctn_v3 r = ctn_sub(x, j.anchor_b);
    ctn_v3 e2 = ctn_cross(j.axis_b, j.axis_a);
    float k = j.lo / two_pi, R = j.rest_length;
    float px = ctn_dot(r, j.axis_a), py = ctn_dot(r, e2), z = ctn_dot(r, j.axis_b);
    float phi = px == 0.0f && py == 0.0f ? 0.0f : CTN_ATAN2(py, px);
    float t = phi;
    if (k != 0.0f) t = phi + two_pi * CTN_FLOOR((z / k - phi) / two_pi + 0.5f);
    int it;
    for (it = 0; it < 4; ++it) {
        ctn_v3 er, et;
        ctn_curve_radial(j, t, &er, &et);
        ctn_v3 c = ctn_add(ctn_add(j.anchor_b, ctn_scale(er, R)), ctn_scale(j.axis_b, k * t));
        ctn_v3 cd = ctn_add(ctn_scale(et, R), ctn_scale(j.axis_b, k));
        ctn_v3 d = ctn_sub(c, x);
        float f = ctn_dot(d, cd);
        float fd = ctn_dot(cd, cd) - R * ctn_dot(d, er);
        if (!(fd > 1e-12f)) break; /* x beyond the centre of curvature: keep the start */
        t -= f / fd;
    }
    return t;
}

/* Closest point of the segments of a polyline window to x (b's frame). Segment i runs from vertex i to
 * i + 1; its parameter u is clamped to [0, 1] except at the polyline's own ends (open start / end). Ties go
 * to the earlier segment. Past a convex corner (u >= 1 on the incoming segment and u <= 0 on the outgoing
 * one, so both clamp to the shared vertex) the tangent is the bisector of the two: the bead turns in two
 * substeps, keeping cos^2(theta/2) of its speed at a kink of angle theta, where the tangent of either
 * segment alone would keep cos(theta) or let it fly off along the incoming one. */
CTN_FN ctn_curve_point ctn_curve_polyline(ctn_joint_def j, ctn_v3 x) {
    ctn_v3 v[4], t[3];
    float u[3];
    ctn_curve_point cp;
    int n = (int)j.hi, i, best = -1;
    float best_d = CTN_INF;
    v[0] = j.anchor_b;
    v[1] = j.axis_b;
    v[2] = j.axis_a;
    v[3] = ctn_v3_make(j.rel_q.x, j.rel_q.y, j.rel_q.z);
    cp.c = v[0];
    cp.t = ctn_v3_make(1.0f, 0.0f, 0.0f);
    cp.param = 0.0f;
    for (i = 0; i < 3; ++i) {
        u[i] = 0.5f;
        t[i] = ctn_v3_zero();
        if (i + 1 >= n) continue;
        ctn_v3 d = ctn_sub(v[i + 1], v[i]);
        float l2 = ctn_dot(d, d);
        if (!(l2 > 0.0f)) continue;
        t[i] = ctn_scale(d, 1.0f / CTN_SQRT(l2));
        u[i] = ctn_dot(ctn_sub(x, v[i]), d) / l2;
        float uc = u[i];
        if (uc < 0.0f && !(i == 0 && (j.flags & CTN_JF_CURVE_OPEN_START))) uc = 0.0f;
        if (uc > 1.0f && !(i + 2 == n && (j.flags & CTN_JF_CURVE_OPEN_END))) uc = 1.0f;
        ctn_v3 q = ctn_madd(v[i], d, uc), e = ctn_sub(x, q);
        float dist2 = ctn_dot(e, e);
        if (dist2 < best_d) {
            best_d = dist2;
            best = i;
            cp.c = q;
            cp.t = t[i];
            cp.param = uc;
        }
    }
    /* the outer region of the corner at the end (start) of the best segment */
    int other = best < 0 ? -1 : (u[best] >= 1.0f ? best + 1 : (u[best] <= 0.0f ? best - 1 : -1));
    if (other >= 0 && other < 3 && ctn_dot(t[other], t[other]) > 0.0f && (other > best ? u[other] <= 0.0f : u[other] >= 1.0f)) {
        ctn_v3 s = ctn_add(t[best], t[other]);
        float sl = ctn_length(s);
        if (sl > 1e-6f) cp.t = ctn_scale(s, 1.0f / sl); /* a reversal (sl = 0) keeps the segment's tangent */
    }
    ctn_basis(cp.t, &cp.n1, &cp.n2);
    cp.cdd = ctn_v3_zero();
    cp.speed = 1.0f;
    return cp;
}

/* Closest point of the curve of joint j to x, both in b's frame. */
CTN_FN ctn_curve_point ctn_curve_closest(ctn_joint_def j, ctn_v3 x) {
    ctn_curve_point cp;
    int kind = ctn_curve_kind(j);
    if (kind == CTN_CK_POLYLINE) return ctn_curve_polyline(j, x);
    if (kind == CTN_CK_LINE) {
        /* c(t) = o + t d */
        float t = ctn_dot(ctn_sub(x, j.anchor_b), j.axis_b);
        cp.c = ctn_madd(j.anchor_b, j.axis_b, t);
        cp.t = j.axis_b;
        ctn_basis(j.axis_b, &cp.n1, &cp.n2);
        cp.cdd = ctn_v3_zero();
        cp.speed = 1.0f;
        cp.param = t;
        return cp;
    }
    /* circle (pitch 0) and helix: c(t) = o + R e_r(t) + k t a, c' = R e_t + k a, c'' = -R e_r */
    const float two_pi = 6.28318530718f;
    float R = j.rest_length, k = kind == CTN_CK_HELIX ? j.lo / two_pi : 0.0f;
    float t;
    if (kind == CTN_CK_HELIX) {
        t = ctn_curve_helix_param(j, x);
    } else {
        ctn_v3 r = ctn_sub(x, j.anchor_b);
        float px = ctn_dot(r, j.axis_a), py = ctn_dot(r, ctn_cross(j.axis_b, j.axis_a));
        t = px == 0.0f && py == 0.0f ? 0.0f : CTN_ATAN2(py, px); /* the centre: every point is closest */
    }
    ctn_v3 er, et;
    ctn_curve_radial(j, t, &er, &et);
    ctn_v3 cd = ctn_add(ctn_scale(et, R), ctn_scale(j.axis_b, k));
    cp.speed = ctn_length(cd);
    cp.c = ctn_add(ctn_add(j.anchor_b, ctn_scale(er, R)), ctn_scale(j.axis_b, k * t));
    cp.t = ctn_scale(cd, 1.0f / cp.speed);
    cp.n1 = er; /* e_r . c' = 0 */
    cp.n2 = ctn_cross(cp.t, er);
    cp.cdd = ctn_scale(er, -R);
    cp.param = t;
    return cp;
}

#endif /* CTN_CURVE_H */
