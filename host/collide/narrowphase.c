/* Narrow phase of the built-in contact generation: the contact points of a shape pair and of a shape
 * against a plane, the bounding boxes of the broad phase. Shape tests: sphere-sphere, sphere-capsule,
 * capsule-capsule (two points when nearly parallel), sphere / capsule (two end points) / box (eight corners)
 * against planes; pairs with a box go to host/collide/box_contact.c. */
#include "collide/collide.h"

#include <math.h>
#include <stdlib.h>

int ctn__push_point(ctn_point_list *l, const ctn_contact_point *p) {
    if (l->count == l->capacity) {
        int cap = l->capacity ? 2 * l->capacity : 1024;
        ctn_contact_point *np = ctn__realloc(l->p, (size_t)cap * sizeof *np);
        if (!np) return 0;
        l->p = np;
        l->capacity = cap;
    }
    l->p[l->count++] = *p;
    return 1;
}

/* Two spheres (ca, ra) on a and (cb, rb) on b: point if the gap is below margin. */
static int sphere_sphere(ctn_point_list *l, ctn_contact_point *cp, ctn_v3 ca, float ra, ctn_v3 cb, float rb, float margin) {
    ctn_v3 d = ctn_sub(ca, cb);
    float len = ctn_length(d);
    if (len - ra - rb >= margin) return 1;
    ctn_v3 n = len > 1e-9f ? ctn_scale(d, 1.0f / len) : ctn_v3_make(0.0f, 1.0f, 0.0f);
    cp->n = n;
    cp->pa = ctn_madd(ca, n, -ra);
    cp->pb = ctn_madd(cb, n, rb);
    return ctn__push_point(l, cp);
}

static float clampf(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }

/* Closest point of segment [p, p + d] to point x: parameter in [0, 1]. */
static float segment_param(ctn_v3 p, ctn_v3 d, ctn_v3 x) {
    float dd = ctn_dot(d, d);
    return dd > 1e-12f ? clampf(ctn_dot(ctn_sub(x, p), d) / dd, 0.0f, 1.0f) : 0.0f;
}

/* Closest points of segments p1 + s d1 and p2 + t d2 (Ericson, Real-Time Collision Detection 5.1.9). */
void ctn__segment_closest(ctn_v3 p1, ctn_v3 d1, ctn_v3 p2, ctn_v3 d2, float *s_out, float *t_out) {
    ctn_v3 r = ctn_sub(p1, p2);
    float a = ctn_dot(d1, d1), e = ctn_dot(d2, d2), f = ctn_dot(d2, r);
    float s, t;
    if (a <= 1e-12f && e <= 1e-12f) {
        s = t = 0.0f;
    } else if (a <= 1e-12f) {
        s = 0.0f;
        t = clampf(f / e, 0.0f, 1.0f);
    } else {
        float c = ctn_dot(d1, r);
        if (e <= 1e-12f) {
            t = 0.0f;
            s = clampf(-c / a, 0.0f, 1.0f);
        } else {
            float b = ctn_dot(d1, d2), denom = a * e - b * b;
            s = denom > 1e-12f * a * e ? clampf((b * f - c * e) / denom, 0.0f, 1.0f) : 0.0f;
            t = (b * s + f) / e;
            if (t < 0.0f) {
                t = 0.0f;
                s = clampf(-c / a, 0.0f, 1.0f);
            } else if (t > 1.0f) {
                t = 1.0f;
                s = clampf((b - c) / a, 0.0f, 1.0f);
            }
        }
    }
    *s_out = s;
    *t_out = t;
}

/* Segment of a capsule: p0 = x - hl u, d = 2 hl u (u = body x axis). */
static void capsule_segment(ctn_pose p, const ctn_shape *s, ctn_v3 *p0, ctn_v3 *d) {
    ctn_v3 u = ctn_quat_rotate(p.q, ctn_v3_make(1.0f, 0.0f, 0.0f));
    *p0 = ctn_madd(p.p, u, -s->half_length);
    *d = ctn_scale(u, 2.0f * s->half_length);
}

/* The pose of a shape on a body of pose p: its offset turned into the world and added in the two-float
 * position (p_lo keeps the trailing part), its rotation after the body's. */
ctn_pose ctn__shape_pose(ctn_pose p, const ctn_shape *s) {
    if (!s->placed) return p;
    ctn_v3 d = ctn_quat_rotate(p.q, s->offset);
    ctn_v3_add2(&p.p, &p.p_lo, d);
    p.q = ctn_quat_mul(p.q, s->rot);
    return p;
}

/* Shape of a against shape b (poses of the bodies; the shapes' offsets are applied here). */
int ctn__pair_points(ctn_point_list *l, ctn_contact_point *cp, ctn_pose pa, const ctn_shape *sa, ctn_pose pb, const ctn_shape *sb,
                       float margin) {
    pa = ctn__shape_pose(pa, sa);
    pb = ctn__shape_pose(pb, sb);
    if (sa->type == CTN_SHAPE_BOX || sb->type == CTN_SHAPE_BOX) return ctn__box_pair_points(l, cp, pa, sa, pb, sb, margin);
    ctn_v3 a0 = pa.p, ad = ctn_v3_zero(), b0 = pb.p, bd = ctn_v3_zero();
    if (sa->type == CTN_SHAPE_CAPSULE) capsule_segment(pa, sa, &a0, &ad);
    if (sb->type == CTN_SHAPE_CAPSULE) capsule_segment(pb, sb, &b0, &bd);
    cp->feature = 0;
    if (sa->type == CTN_SHAPE_CAPSULE && sb->type == CTN_SHAPE_CAPSULE) {
        float la = ctn_length(ad), lb = ctn_length(bd);
        if (la > 1e-6f && lb > 1e-6f) {
            ctn_v3 ua = ctn_scale(ad, 1.0f / la), ub = ctn_scale(bd, 1.0f / lb);
            if (ctn_length(ctn_cross(ua, ub)) < 0.05f) {
                /* nearly parallel: the overlap of b's projection on a gives two points (features 1, 2),
                 * so a capsule lying on another does not rock about a single point */
                float t0 = ctn_dot(ctn_sub(b0, a0), ua), t1 = ctn_dot(ctn_sub(ctn_add(b0, bd), a0), ua);
                float lo = clampf(t0 < t1 ? t0 : t1, 0.0f, la), hi = clampf(t0 < t1 ? t1 : t0, 0.0f, la);
                if (hi - lo > 1e-3f * la) {
                    for (int k = 0; k < 2; ++k) {
                        ctn_v3 xa = ctn_madd(a0, ua, k == 0 ? lo : hi);
                        ctn_v3 xb = ctn_madd(b0, bd, segment_param(b0, bd, xa));
                        cp->feature = 1 + k;
                        if (!sphere_sphere(l, cp, xa, sa->radius, xb, sb->radius, margin)) return 0;
                    }
                    return 1;
                }
            }
        }
    }
    float s, t;
    ctn__segment_closest(a0, ad, b0, bd, &s, &t);
    return sphere_sphere(l, cp, ctn_madd(a0, ad, s), sa->radius, ctn_madd(b0, bd, t), sb->radius, margin);
}

/* Shape of body a against plane k (b = the world). */
int ctn__plane_points(ctn_point_list *l, ctn_contact_point *cp, ctn_pose pa, const ctn_shape *sa, const ctn_plane *pl, int k, float margin) {
    pa = ctn__shape_pose(pa, sa);
    ctn_v3 pts[8];
    float rad = 0.0f;
    int np = 0;
    if (sa->type == CTN_SHAPE_SPHERE) {
        pts[np++] = pa.p;
        rad = sa->radius;
    } else if (sa->type == CTN_SHAPE_CAPSULE) {
        ctn_v3 p0, d;
        capsule_segment(pa, sa, &p0, &d);
        pts[np++] = p0;
        pts[np++] = ctn_add(p0, d);
        rad = sa->radius;
    } else {
        ctn_v3 he = sa->half_extents;
        for (int c = 0; c < 8; ++c) {
            ctn_v3 loc = ctn_v3_make(c & 1 ? he.x : -he.x, c & 2 ? he.y : -he.y, c & 4 ? he.z : -he.z);
            pts[np++] = ctn_add(pa.p, ctn_quat_rotate(pa.q, loc));
        }
    }
    ctn_v3 n = pl->normal;
    for (int i = 0; i < np; ++i) {
        float sep = ctn_dot(n, pts[i]) - pl->offset - rad;
        if (sep >= margin) continue;
        cp->feature = 8 * k + i;
        cp->n = n;
        cp->pa = ctn_madd(pts[i], n, -rad);
        cp->pb = ctn_madd(cp->pa, n, -sep);
        if (!ctn__push_point(l, cp)) return 0;
    }
    return 1;
}

/* Pose p seen from the origin o: position (p.p - o) + p.p_lo as one float (exact subtraction for nearby o). */
ctn_pose ctn__local_pose(ctn_pose p, ctn_v3 o) {
    ctn_v3 z = ctn_v3_zero();
    p.p = ctn_point_sep(p.p, p.p_lo, z, o, z, z);
    p.p_lo = z;
    return p;
}

/* Plane pl seen from the origin o: the offset n . x <= offset becomes n . (x - o) <= offset - n . o (double). */
ctn_plane ctn__local_plane(ctn_plane pl, ctn_v3 o) {
    pl.offset = (float)((double)pl.offset - ((double)pl.normal.x * o.x + (double)pl.normal.y * o.y + (double)pl.normal.z * o.z));
    return pl;
}

/* Bounding radius of a shape about its body origin. */
float ctn__shape_radius(const ctn_shape *s) {
    float off = s->placed ? ctn_length(s->offset) : 0.0f;
    if (s->type == CTN_SHAPE_SPHERE) return off + s->radius;
    if (s->type == CTN_SHAPE_CAPSULE) return off + s->radius + s->half_length;
    return off + ctn_length(s->half_extents);
}

void ctn__shape_aabb(ctn_pose p, const ctn_shape *s, float grow, float *box) {
    p = ctn__shape_pose(p, s);
    ctn_v3 ext;
    if (s->type == CTN_SHAPE_SPHERE) {
        ext = ctn_v3_make(s->radius, s->radius, s->radius);
    } else if (s->type == CTN_SHAPE_CAPSULE) {
        ctn_v3 u = ctn_quat_rotate(p.q, ctn_v3_make(s->half_length, 0.0f, 0.0f));
        ext = ctn_v3_make(CTN_FABS(u.x) + s->radius, CTN_FABS(u.y) + s->radius, CTN_FABS(u.z) + s->radius);
    } else {
        ctn_v3 c0 = ctn_quat_rotate(p.q, ctn_v3_make(s->half_extents.x, 0.0f, 0.0f));
        ctn_v3 c1 = ctn_quat_rotate(p.q, ctn_v3_make(0.0f, s->half_extents.y, 0.0f));
        ctn_v3 c2 = ctn_quat_rotate(p.q, ctn_v3_make(0.0f, 0.0f, s->half_extents.z));
        ext = ctn_v3_make(CTN_FABS(c0.x) + CTN_FABS(c1.x) + CTN_FABS(c2.x), CTN_FABS(c0.y) + CTN_FABS(c1.y) + CTN_FABS(c2.y),
                          CTN_FABS(c0.z) + CTN_FABS(c1.z) + CTN_FABS(c2.z));
    }
    /* in double from the two-float position, rounded outwards */
    double x[3], e[3] = {ext.x + grow, ext.y + grow, ext.z + grow};
    ctn__pose_get_position(&p, x);
    for (int k = 0; k < 3; ++k) {
        box[k] = nextafterf((float)(x[k] - e[k]), -INFINITY);
        box[3 + k] = nextafterf((float)(x[k] + e[k]), INFINITY);
    }
}

