/* Narrow phase of boxes against boxes, spheres and capsules: the contact manifold of a pair.
 *
 * Box-box: the separating axis test over the 15 axes of two oriented boxes (3 face normals of each, 9 edge
 * cross products; Gottschalk, Lin and Manocha 1996). The axis of least penetration (largest separation)
 * decides the contact: a face axis makes a face contact, clipped as in Box2D's polygon collision (Catto
 * 2005) and ODE's dBoxBox (Smith 2001) in 3D: the face of the reference box on that axis, the face of the
 * other (incident) box most anti-parallel to it, the incident face clipped against the four side planes of
 * the reference face (Sutherland and Hodgman 1974), up to eight points, reduced to the four that span the
 * largest area (Gregorius 2015). An edge axis makes one point: the closest points of the two supporting edges.
 * Face axes win ties: an edge axis is taken only when it separates by clearly more, so that a box resting on
 * a box keeps its face contact (and its feature ids) from step to step.
 *
 * Box against a sphere or capsule (a segment with a radius; a sphere is a segment of length 0): the closest
 * points of the segment and the box, found in the box frame by golden-section search over the segment
 * parameter (the distance from a convex set is convex along a segment; Kiefer 1953). A segment that
 * reaches into the box is pushed out along the box face axis of least penetration. A capsule lying along a
 * face (its axis within 0.05 rad of the face plane) gets two points, the ends of its segment clipped to the
 * face's rectangle, so it does not rock on a single point.
 *
 * Feature ids keep a point's identity from step to step (its warm start): face contacts encode the
 * reference face, the incident face and the quadrants of both faces the point lies in; edge contacts the
 * two edges. */
#include "collide/collide.h"

#include <math.h>

/* An oriented box seen from the pair's origin: centre, unit axes, half extents. */
typedef struct obb {
    ctn_v3 c;
    ctn_v3 u[3];
    float e[3];
} obb;

static obb make_obb(ctn_pose p, const ctn_shape *s) {
    obb o;
    o.c = p.p;
    o.u[0] = ctn_quat_rotate(p.q, ctn_v3_make(1.0f, 0.0f, 0.0f));
    o.u[1] = ctn_quat_rotate(p.q, ctn_v3_make(0.0f, 1.0f, 0.0f));
    o.u[2] = ctn_quat_rotate(p.q, ctn_v3_make(0.0f, 0.0f, 1.0f));
    o.e[0] = s->half_extents.x;
    o.e[1] = s->half_extents.y;
    o.e[2] = s->half_extents.z;
    return o;
}

static float get(ctn_v3 v, int k) { return k == 0 ? v.x : (k == 1 ? v.y : v.z); }
static float fsign(float x) { return x < 0.0f ? -1.0f : 1.0f; }
static float clampf(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }

/* Half width of the box's projection on the unit axis L: sum_k e_k |u_k . L|. */
static float project(const obb *o, ctn_v3 L) {
    return o->e[0] * CTN_FABS(ctn_dot(o->u[0], L)) + o->e[1] * CTN_FABS(ctn_dot(o->u[1], L)) + o->e[2] * CTN_FABS(ctn_dot(o->u[2], L));
}

/* Emits the point pair (pa on a, pb on b) with normal n from b to a. */
static int emit(ctn_point_list *l, ctn_contact_point *cp, ctn_v3 pa, ctn_v3 pb, ctn_v3 n, int feature) {
    cp->pa = pa;
    cp->pb = pb;
    cp->n = n;
    cp->feature = feature;
    return ctn__push_point(l, cp);
}

/* ---- box against box -------------------------------------------------------------------------------- */

/* Sutherland-Hodgman: the part of polygon in[0..n) where dot(x, N) <= d. */
static int clip(const ctn_v3 *in, int n, ctn_v3 N, float d, ctn_v3 *out) {
    int m = 0;
    for (int i = 0; i < n; ++i) {
        ctn_v3 P = in[i], Q = in[(i + 1) % n];
        float dp = ctn_dot(P, N) - d, dq = ctn_dot(Q, N) - d;
        if (dp <= 0.0f) out[m++] = P;
        if ((dp <= 0.0f) != (dq <= 0.0f)) out[m++] = ctn_madd(P, ctn_sub(Q, P), dp / (dp - dq));
    }
    return m;
}

/* Area measure of triangle (a, b, c) along n: (b - a) x (c - a) . n. */
static float tri_area(ctn_v3 a, ctn_v3 b, ctn_v3 c, ctn_v3 n) { return ctn_dot(ctn_cross(ctn_sub(b, a), ctn_sub(c, a)), n); }

/* Keeps at most four of the n points (keep[] their indices): the deepest, the farthest from it, the one
 * making the largest triangle with both, and the one adding the largest triangle on the other side. */
static int reduce4(const ctn_v3 *x, const float *sep, int n, ctn_v3 nrm, int *keep) {
    if (n <= 4) {
        for (int i = 0; i < n; ++i) keep[i] = i;
        return n;
    }
    int a = 0;
    for (int i = 1; i < n; ++i)
        if (sep[i] < sep[a]) a = i;
    int b = -1;
    float best = -1.0f;
    for (int i = 0; i < n; ++i) {
        ctn_v3 d = ctn_sub(x[i], x[a]);
        float dd = ctn_dot(d, d);
        if (i != a && dd > best) best = dd, b = i;
    }
    int c = -1;
    float cbest = 0.0f;
    for (int i = 0; i < n; ++i) {
        float ar = tri_area(x[a], x[b], x[i], nrm);
        if (i != a && i != b && (c < 0 || CTN_FABS(ar) > CTN_FABS(cbest))) cbest = ar, c = i;
    }
    int d = -1;
    float dbest = 0.0f;
    for (int i = 0; i < n; ++i) {
        if (i == a || i == b || i == c) continue;
        /* the largest triangle on the side of edge (a, b) opposite c */
        float ar = -fsign(cbest) * tri_area(x[a], x[b], x[i], nrm);
        if (d < 0 || ar > dbest) dbest = ar, d = i;
    }
    keep[0] = a, keep[1] = b, keep[2] = c, keep[3] = d;
    return 4;
}

/* Face contact: reference box R (face axis i, normal nR from R towards I), incident box I. ref_is_a: R is
 * body a. base: the feature base of this reference face. */
static int face_contact(ctn_point_list *l, ctn_contact_point *cp, const obb *R, const obb *I, int i, ctn_v3 nR, int ref_is_a, int base,
                        float margin) {
    /* incident face: the face of I most anti-parallel to nR */
    int m = 0;
    float dm = 0.0f;
    for (int k = 0; k < 3; ++k) {
        float dk = ctn_dot(I->u[k], nR);
        if (CTN_FABS(dk) > CTN_FABS(dm)) dm = dk, m = k;
    }
    ctn_v3 incn = ctn_scale(I->u[m], -fsign(dm)); /* points towards R */
    ctn_v3 fc = ctn_madd(I->c, incn, I->e[m]);
    int p = (m + 1) % 3, q = (m + 2) % 3;
    ctn_v3 up = ctn_scale(I->u[p], I->e[p]), uq = ctn_scale(I->u[q], I->e[q]);
    ctn_v3 poly[2][8];
    const float sp[4] = {1.0f, -1.0f, -1.0f, 1.0f}, sq[4] = {1.0f, 1.0f, -1.0f, -1.0f};
    for (int v = 0; v < 4; ++v) poly[0][v] = ctn_madd(ctn_madd(fc, up, sp[v]), uq, sq[v]);
    int n = 4, cur = 0;
    /* the four side planes of the reference face: +-u_j . x <= +-u_j . c + e_j */
    int j0 = (i + 1) % 3, j1 = (i + 2) % 3;
    for (int jj = 0; jj < 2 && n > 0; ++jj) {
        int j = jj ? j1 : j0;
        for (int sg = 0; sg < 2 && n > 0; ++sg) {
            ctn_v3 N = sg ? ctn_neg(R->u[j]) : R->u[j];
            n = clip(poly[cur], n, N, ctn_dot(N, R->c) + R->e[j], poly[1 - cur]);
            cur = 1 - cur;
        }
    }
    /* keep the points below the margin over the reference face */
    ctn_v3 rc = ctn_madd(R->c, nR, R->e[i]);
    ctn_v3 x[8];
    float sep[8];
    int k = 0;
    for (int v = 0; v < n; ++v) {
        float sv = ctn_dot(nR, ctn_sub(poly[cur][v], rc));
        if (sv >= margin) continue;
        x[k] = poly[cur][v];
        sep[k++] = sv;
    }
    int keep[4], nk = reduce4(x, sep, k, nR, keep);
    int inc_face = 2 * m + (dm > 0.0f); /* which face of I */
    int used = 0;
    for (int t = 0; t < nk; ++t) {
        int v = keep[t];
        ctn_v3 on_ref = ctn_madd(x[v], nR, -sep[v]);
        /* the point's id: the quadrant of the incident face and of the reference face it lies in (its nearest
         * corner of each), which a point keeps while the boxes shift or turn a little, where the clip
         * feature (vertex or crossing) changes as a corner crosses a side plane; a second point with the
         * same pair of quadrants takes the next free id */
        ctn_v3 ri = ctn_sub(x[v], fc), rr = ctn_sub(x[v], rc);
        int qi = (ctn_dot(ri, I->u[p]) > 0.0f) | (ctn_dot(ri, I->u[q]) > 0.0f) << 1;
        int qr = (ctn_dot(rr, R->u[j0]) > 0.0f) | (ctn_dot(rr, R->u[j1]) > 0.0f) << 1;
        int pid = 4 * qi + qr;
        while (used & (1 << pid)) pid = (pid + 1) & 15;
        used |= 1 << pid;
        int f = 1 + (base * 6 + inc_face) * 16 + pid;
        /* n from b to a: nR points from R to I */
        int ok = ref_is_a ? emit(l, cp, on_ref, x[v], ctn_neg(nR), f) : emit(l, cp, x[v], on_ref, nR, f);
        if (!ok) return 0;
    }
    return 1;
}

/* The edge of box o along axis i that is extreme along direction dir: its midpoint, and its code (2 bits). */
static ctn_v3 support_edge(const obb *o, int i, ctn_v3 dir, int *code) {
    ctn_v3 m = o->c;
    *code = 0;
    for (int k = 0, b = 0; k < 3; ++k) {
        if (k == i) continue;
        float s = fsign(ctn_dot(o->u[k], dir));
        m = ctn_madd(m, o->u[k], s * o->e[k]);
        *code |= (s > 0.0f) << b++;
    }
    return m;
}

static int box_box(ctn_point_list *l, ctn_contact_point *cp, ctn_pose pa, const ctn_shape *sa, ctn_pose pb, const ctn_shape *sb,
                   float margin) {
    obb A = make_obb(pa, sa), B = make_obb(pb, sb);
    ctn_v3 d = ctn_sub(B.c, A.c);
    /* face axes of A and of B: separation |d . L| - rA - rB */
    float fa = -INFINITY, fb = -INFINITY;
    int ia = 0, ib = 0;
    for (int k = 0; k < 3; ++k) {
        float s = CTN_FABS(ctn_dot(d, A.u[k])) - A.e[k] - project(&B, A.u[k]);
        if (s > fa) fa = s, ia = k;
        s = CTN_FABS(ctn_dot(d, B.u[k])) - B.e[k] - project(&A, B.u[k]);
        if (s > fb) fb = s, ib = k;
    }
    if (fa >= margin || fb >= margin) return 1;
    /* edge axes u_i x v_j (skipped when nearly parallel: the face axes cover them) */
    float fe = -INFINITY;
    int ei = 0, ej = 0;
    ctn_v3 Le = ctn_v3_zero();
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            ctn_v3 L = ctn_cross(A.u[i], B.u[j]);
            float len = ctn_length(L);
            if (len < 1e-3f) continue;
            L = ctn_scale(L, 1.0f / len);
            float s = CTN_FABS(ctn_dot(d, L)) - project(&A, L) - project(&B, L);
            if (s >= margin) return 1;
            if (s > fe) fe = s, ei = i, ej = j, Le = L;
        }
    /* face axes win unless another separates clearly more (stable feature choice for resting boxes) */
    float emin = sa->half_extents.x;
    emin = fminf(emin, fminf(sa->half_extents.y, sa->half_extents.z));
    emin = fminf(emin, fminf(sb->half_extents.x, fminf(sb->half_extents.y, sb->half_extents.z)));
    float tol = 0.01f * emin;
    int use_b = fb > fa + tol;
    float fbest = use_b ? fb : fa;
    if (fe > fbest + tol) {
        /* edge-edge: L from B to A */
        if (ctn_dot(Le, d) > 0.0f) Le = ctn_neg(Le);
        int codea, codeb;
        ctn_v3 ma = support_edge(&A, ei, ctn_neg(Le), &codea), mb = support_edge(&B, ej, Le, &codeb);
        ctn_v3 a0 = ctn_madd(ma, A.u[ei], -A.e[ei]), ad = ctn_scale(A.u[ei], 2.0f * A.e[ei]);
        ctn_v3 b0 = ctn_madd(mb, B.u[ej], -B.e[ej]), bd = ctn_scale(B.u[ej], 2.0f * B.e[ej]);
        float s, t;
        ctn__segment_closest(a0, ad, b0, bd, &s, &t);
        ctn_v3 xa = ctn_madd(a0, ad, s), xb = ctn_madd(b0, bd, t);
        if (ctn_dot(ctn_sub(xa, xb), Le) >= margin) return 1;
        return emit(l, cp, xa, xb, Le, 1 + 72 * 16 + (3 * ei + ej) * 16 + 4 * codea + codeb);
    }
    if (!use_b) {
        ctn_v3 nR = ctn_scale(A.u[ia], fsign(ctn_dot(d, A.u[ia])));
        return face_contact(l, cp, &A, &B, ia, nR, 1, 2 * ia + (ctn_dot(d, A.u[ia]) >= 0.0f), margin);
    }
    ctn_v3 nR = ctn_scale(B.u[ib], -fsign(ctn_dot(d, B.u[ib])));
    return face_contact(l, cp, &B, &A, ib, nR, 0, 6 + 2 * ib + (ctn_dot(d, B.u[ib]) < 0.0f), margin);
}

/* ---- box against a sphere or capsule ----------------------------------------------------------------- */

/* Squared distance from x (box frame) to the box of half extents e, and the closest point. */
static float box_dist2(ctn_v3 x, ctn_v3 e, ctn_v3 *q) {
    *q = ctn_v3_make(clampf(x.x, -e.x, e.x), clampf(x.y, -e.y, e.y), clampf(x.z, -e.z, e.z));
    ctn_v3 r = ctn_sub(x, *q);
    return ctn_dot(r, r);
}

/* Box (pose pb, shape sb) against the segment p0 + t d, t in [0, 1], of radius r (on the other body).
 * box_is_a: the box is body a. */
static int box_round(ctn_point_list *l, ctn_contact_point *cp, ctn_pose pbox, const ctn_shape *sbox, ctn_v3 p0, ctn_v3 d, float r,
                     int box_is_a, float margin) {
    ctn_v3 e = sbox->half_extents;
    /* the segment in the box frame */
    ctn_v3 P0 = ctn_quat_rotate_inv(pbox.q, ctn_sub(p0, pbox.p)), D = ctn_quat_rotate_inv(pbox.q, d);
    float len = ctn_length(D);
    /* closest parameter: golden-section search on the convex squared distance */
    float t = 0.0f;
    ctn_v3 q;
    if (len > 1e-6f) {
        const float g = 0.6180339887f;
        float lo = 0.0f, hi = 1.0f, x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
        float f1 = box_dist2(ctn_madd(P0, D, x1), e, &q), f2 = box_dist2(ctn_madd(P0, D, x2), e, &q);
        for (int it = 0; it < 40 && hi - lo > 1e-6f; ++it) {
            if (f1 <= f2) {
                hi = x2, x2 = x1, f2 = f1;
                x1 = hi - g * (hi - lo);
                f1 = box_dist2(ctn_madd(P0, D, x1), e, &q);
            } else {
                lo = x1, x1 = x2, f1 = f2;
                x2 = lo + g * (hi - lo);
                f2 = box_dist2(ctn_madd(P0, D, x2), e, &q);
            }
        }
        t = 0.5f * (lo + hi);
        /* the ends are candidates too (the search brackets an interior minimum) */
        float ft = box_dist2(ctn_madd(P0, D, t), e, &q);
        if (box_dist2(P0, e, &q) <= ft) t = 0.0f;
        else if (box_dist2(ctn_add(P0, D), e, &q) < ft) t = 1.0f;
    }
    ctn_v3 X = ctn_madd(P0, D, t);
    float dist = CTN_SQRT(box_dist2(X, e, &q));
    ctn_v3 n;     /* box frame, from the box to the segment */
    int axis = -1; /* a face axis of n, or -1 */
    if (dist > 1e-6f) {
        if (dist - r >= margin) return 1;
        n = ctn_scale(ctn_sub(X, q), 1.0f / dist);
        for (int k = 0; k < 3; ++k)
            if (CTN_FABS(get(n, k)) > 0.9999f) axis = k;
    } else {
        /* the segment reaches into the box: out along the face axis of least penetration */
        float best = INFINITY, sgn = 1.0f;
        for (int k = 0; k < 3; ++k) {
            float a0 = get(P0, k), a1 = a0 + get(D, k), lo = fminf(a0, a1), hi = fmaxf(a0, a1), ek = get(e, k);
            if (ek - lo < best) best = ek - lo, axis = k, sgn = 1.0f;
            if (hi + ek < best) best = hi + ek, axis = k, sgn = -1.0f;
        }
        n = ctn_v3_make(axis == 0 ? sgn : 0.0f, axis == 1 ? sgn : 0.0f, axis == 2 ? sgn : 0.0f);
        /* the deepest end of the segment */
        t = (get(D, axis) * sgn > 0.0f) ? 0.0f : 1.0f;
        if (len <= 1e-6f) t = 0.0f;
    }
    ctn_v3 nw = ctn_quat_rotate(pbox.q, n);
    /* one or two parameters along the segment */
    float ts[2] = {t, t};
    int np = 1, feature0 = 0;
    if (axis >= 0 && len > 1e-6f && CTN_FABS(get(D, axis)) < 0.05f * len) {
        /* lying along face `axis`: clip the segment to the face's rectangle (Liang-Barsky) */
        float t0 = 0.0f, t1 = 1.0f;
        for (int k = 0; k < 3; ++k) {
            if (k == axis) continue;
            float pk = get(P0, k), dk = get(D, k), ek = get(e, k);
            if (CTN_FABS(dk) < 1e-12f) {
                if (pk < -ek || pk > ek) t1 = -1.0f;
                continue;
            }
            float u0 = (-ek - pk) / dk, u1 = (ek - pk) / dk;
            if (u0 > u1) {
                float tmp = u0;
                u0 = u1, u1 = tmp;
            }
            t0 = fmaxf(t0, u0);
            t1 = fminf(t1, u1);
        }
        if (t1 - t0 > 1e-3f) {
            ts[0] = t0, ts[1] = t1;
            np = 2;
            feature0 = 1;
        }
    }
    for (int i = 0; i < np; ++i) {
        ctn_v3 Xi = ctn_madd(P0, D, ts[i]), Qi;
        float gap;
        if (np == 2 || dist <= 1e-6f) {
            /* on face `axis`: the point projected on the face plane */
            float s = get(n, axis), ek = get(e, axis);
            Qi = ctn_v3_make(axis == 0 ? s * ek : Xi.x, axis == 1 ? s * ek : Xi.y, axis == 2 ? s * ek : Xi.z);
            if (np == 1) Qi = ctn_v3_make(clampf(Qi.x, -e.x, e.x), clampf(Qi.y, -e.y, e.y), clampf(Qi.z, -e.z, e.z));
            gap = ctn_dot(ctn_sub(Xi, Qi), n) - r;
        } else {
            Qi = q;
            gap = dist - r;
        }
        if (gap >= margin) continue;
        ctn_v3 on_box = ctn_add(pbox.p, ctn_quat_rotate(pbox.q, Qi));
        ctn_v3 on_seg = ctn_madd(ctn_add(pbox.p, ctn_quat_rotate(pbox.q, Xi)), nw, -r);
        int f = feature0 + i;
        int ok = box_is_a ? emit(l, cp, on_box, on_seg, ctn_neg(nw), f) : emit(l, cp, on_seg, on_box, nw, f);
        if (!ok) return 0;
    }
    return 1;
}

int ctn__box_pair_points(ctn_point_list *l, ctn_contact_point *cp, ctn_pose pa, const ctn_shape *sa, ctn_pose pb, const ctn_shape *sb,
                         float margin) {
    if (sa->type == CTN_SHAPE_BOX && sb->type == CTN_SHAPE_BOX) return box_box(l, cp, pa, sa, pb, sb, margin);
    int box_is_a = sa->type == CTN_SHAPE_BOX;
    ctn_pose pr = box_is_a ? pb : pa;
    const ctn_shape *sr = box_is_a ? sb : sa;
    ctn_v3 p0 = pr.p, d = ctn_v3_zero();
    if (sr->type == CTN_SHAPE_CAPSULE) {
        ctn_v3 u = ctn_quat_rotate(pr.q, ctn_v3_make(1.0f, 0.0f, 0.0f));
        p0 = ctn_madd(pr.p, u, -sr->half_length);
        d = ctn_scale(u, 2.0f * sr->half_length);
    }
    return box_round(l, cp, box_is_a ? pa : pb, box_is_a ? sa : sb, p0, d, sr->radius, box_is_a, margin);
}
