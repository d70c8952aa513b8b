/* Small vector, quaternion and symmetric-matrix math shared by the host (C11) and the device (OpenCL C).
 *
 * Everything here is float32, passes small structs by value, and touches no memory but its arguments,
 * so the CPU fallback and the OpenCL kernels run the same arithmetic.
 */
#ifndef CTN_MATH_H
#define CTN_MATH_H

#ifdef __OPENCL_VERSION__
#define CTN_FN static inline
#define CTN_GLOBAL __global
#define CTN_SQRT sqrt
#define CTN_SIN sin
#define CTN_COS cos
#define CTN_FABS fabs
#define CTN_FMAX fmax
#define CTN_ATAN2 atan2
#define CTN_FLOOR floor
#else
#include <math.h>
#define CTN_FN static inline
#define CTN_GLOBAL
#define CTN_SQRT sqrtf
#define CTN_SIN sinf
#define CTN_COS cosf
#define CTN_FABS fabsf
#define CTN_FMAX fmaxf
#define CTN_ATAN2 atan2f
#define CTN_FLOOR floorf
#endif

typedef struct ctn_v3 {
    float x, y, z;
} ctn_v3;

typedef struct ctn_quat {
    float w, x, y, z;
} ctn_quat;

/* Symmetric 3x3 matrix (inverse inertia in the world frame). */
typedef struct ctn_sym3 {
    float xx, yy, zz, xy, xz, yz;
} ctn_sym3;

CTN_FN ctn_v3 ctn_v3_make(float x, float y, float z) {
    ctn_v3 r;
    r.x = x;
    r.y = y;
    r.z = z;
    return r;
}
CTN_FN ctn_v3 ctn_v3_zero(void) { return ctn_v3_make(0.0f, 0.0f, 0.0f); }
CTN_FN ctn_v3 ctn_add(ctn_v3 a, ctn_v3 b) { return ctn_v3_make(a.x + b.x, a.y + b.y, a.z + b.z); }
CTN_FN ctn_v3 ctn_sub(ctn_v3 a, ctn_v3 b) { return ctn_v3_make(a.x - b.x, a.y - b.y, a.z - b.z); }
CTN_FN ctn_v3 ctn_scale(ctn_v3 a, float s) { return ctn_v3_make(a.x * s, a.y * s, a.z * s); }
CTN_FN ctn_v3 ctn_neg(ctn_v3 a) { return ctn_v3_make(-a.x, -a.y, -a.z); }
CTN_FN float ctn_dot(ctn_v3 a, ctn_v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
CTN_FN ctn_v3 ctn_cross(ctn_v3 a, ctn_v3 b) {
    return ctn_v3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
CTN_FN float ctn_length(ctn_v3 a) { return CTN_SQRT(ctn_dot(a, a)); }
/* a + s b */
CTN_FN ctn_v3 ctn_madd(ctn_v3 a, ctn_v3 b, float s) { return ctn_v3_make(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z); }

/* ---- Two-float ("double-float") positions: x = hi + lo, |lo| <= ulp(hi) / 2 (ctn_pose.p, .p_lo) ----------------
 * Float32 arithmetic only, so kernels need no fp64. The error-free transformations below are exact only when the
 * compiler neither reassociates nor contracts: the host builds with -ffp-contract=off and never -ffast-math, the
 * OpenCL program with FP_CONTRACT OFF and without -cl-fast-relaxed-math / -cl-unsafe-math-optimizations. */

/* Rounding error of s = fl(a + b): a + b = s + err exactly (Knuth's TwoSum, any order of magnitude). */
CTN_FN float ctn_two_sum_err(float a, float b, float s) {
    float bb = s - a;
    return (a - (s - bb)) + (b - bb);
}

/* (hi, lo) += d: the increment's rounding error goes to lo, then (hi, lo) is renormalised. Error ~2^-48 |hi|. */
CTN_FN void ctn_f2_add(float *hi, float *lo, float d) {
    float s = *hi + d;
    float e = ctn_two_sum_err(*hi, d, s) + *lo;
    float t = s + e;
    *lo = ctn_two_sum_err(s, e, t);
    *hi = t;
}

/* Componentwise (hi, lo) += d (position integration x += h v). */
CTN_FN void ctn_v3_add2(ctn_v3 *hi, ctn_v3 *lo, ctn_v3 d) {
    ctn_f2_add(&hi->x, &lo->x, d.x);
    ctn_f2_add(&hi->y, &lo->y, d.y);
    ctn_f2_add(&hi->z, &lo->z, d.z);
}

/* (a + ra) - (b + rb) for two-float positions a = a_hi + a_lo, b = b_hi + b_lo and float offsets ra, rb (lever
 * arms; for the world, b = 0 and rb its world-frame anchor). The leading parts go first: a_hi - b_hi is exact for
 * nearby bodies (Sterbenz), a large world anchor rb is taken off before the small terms are added, so the
 * result is accurate to float precision of the (small) separation, not of the positions. */
CTN_FN ctn_v3 ctn_point_sep(ctn_v3 a_hi, ctn_v3 a_lo, ctn_v3 ra, ctn_v3 b_hi, ctn_v3 b_lo, ctn_v3 rb) {
    ctn_v3 d = ctn_sub(ctn_sub(a_hi, b_hi), rb);
    return ctn_add(ctn_add(d, ra), ctn_sub(a_lo, b_lo));
}

#ifndef __OPENCL_VERSION__
/* Host: a double as two floats, hi = fl32(x), lo = fl32(x - hi) (x - hi is exact in double). The volatile is
 * a workaround: GCC 12 at -O2/-O3 SLP-vectorises x - (double)(float)x into x - x (lo = 0) for two lanes. */
static inline void ctn_f2_split(double x, float *hi, float *lo) {
    volatile float h = (float)x;
    float hv = h;
    *hi = hv;
    *lo = (float)(x - (double)hv);
}
/* Host: a double position as two floats. */
static inline void ctn_v3_split(const double x[3], ctn_v3 *hi, ctn_v3 *lo) {
    ctn_f2_split(x[0], &hi->x, &lo->x);
    ctn_f2_split(x[1], &hi->y, &lo->y);
    ctn_f2_split(x[2], &hi->z, &lo->z);
}
/* Host: hi + lo in double. */
static inline void ctn_v3_merge(ctn_v3 hi, ctn_v3 lo, double out[3]) {
    out[0] = (double)hi.x + (double)lo.x, out[1] = (double)hi.y + (double)lo.y, out[2] = (double)hi.z + (double)lo.z;
}
#endif

CTN_FN ctn_v3 ctn_sym3_mul(ctn_sym3 m, ctn_v3 v) {
    return ctn_v3_make(m.xx * v.x + m.xy * v.y + m.xz * v.z,
                       m.xy * v.x + m.yy * v.y + m.yz * v.z,
                       m.xz * v.x + m.yz * v.y + m.zz * v.z);
}

CTN_FN ctn_sym3 ctn_sym3_zero(void) {
    ctn_sym3 m;
    m.xx = m.yy = m.zz = m.xy = m.xz = m.yz = 0.0f;
    return m;
}

CTN_FN ctn_sym3 ctn_sym3_scale(ctn_sym3 m, float s) {
    m.xx *= s;
    m.yy *= s;
    m.zz *= s;
    m.xy *= s;
    m.xz *= s;
    m.yz *= s;
    return m;
}

/* u^T M v */
CTN_FN float ctn_sym3_form(ctn_sym3 m, ctn_v3 u, ctn_v3 v) { return ctn_dot(u, ctn_sym3_mul(m, v)); }

/* ---- quaternions (w, x, y, z): p' = q p q* maps body to world ---------------------------------- */

CTN_FN ctn_quat ctn_quat_make(float w, float x, float y, float z) {
    ctn_quat q;
    q.w = w;
    q.x = x;
    q.y = y;
    q.z = z;
    return q;
}
CTN_FN ctn_quat ctn_quat_identity(void) { return ctn_quat_make(1.0f, 0.0f, 0.0f, 0.0f); }
CTN_FN ctn_quat ctn_quat_conj(ctn_quat q) { return ctn_quat_make(q.w, -q.x, -q.y, -q.z); }

/* Hamilton product a * b (Lacoursière 2011, eq. 14's star). */
CTN_FN ctn_quat ctn_quat_mul(ctn_quat a, ctn_quat b) {
    return ctn_quat_make(a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                         a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                         a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                         a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w);
}

/* R(q) v = v + 2 w (u x v) + 2 u x (u x v), u = vector part. */
CTN_FN ctn_v3 ctn_quat_rotate(ctn_quat q, ctn_v3 v) {
    ctn_v3 u = ctn_v3_make(q.x, q.y, q.z);
    ctn_v3 t = ctn_scale(ctn_cross(u, v), 2.0f);
    return ctn_add(ctn_add(v, ctn_scale(t, q.w)), ctn_cross(u, t));
}

CTN_FN ctn_v3 ctn_quat_rotate_inv(ctn_quat q, ctn_v3 v) { return ctn_quat_rotate(ctn_quat_conj(q), v); }

/* Exponential-map update e(h) = exp(h/2 w) * e (Lacoursière 2011, eq. 20-21): rotates q by the angle h|w| about
 * w. The result is unit up to round-off; the final rescale only removes float round-off (|q| - 1 ~ 1e-7)
 * and never stands in for the update itself (the add-and-normalise update of eq. 22 is not used).
 * ctn_quat_turn is the update once the rotation is known to be one (wn = |w|, half_angle = h |w| / 2 not below
 * 1e-20 in size): a caller that makes that test itself reads and writes q only for a body that turns. */
CTN_FN ctn_quat ctn_quat_turn(ctn_quat q, ctn_v3 w, float wn, float half_angle) {
    float s = CTN_SIN(half_angle) / wn;
    ctn_quat e = ctn_quat_make(CTN_COS(half_angle), s * w.x, s * w.y, s * w.z);
    ctn_quat r = ctn_quat_mul(e, q);
    float n2 = r.w * r.w + r.x * r.x + r.y * r.y + r.z * r.z;
    float k = 1.5f - 0.5f * n2; /* one Newton step of 1/sqrt(n2) about 1 */
    return ctn_quat_make(r.w * k, r.x * k, r.y * k, r.z * k);
}

CTN_FN ctn_quat ctn_quat_integrate(ctn_quat q, ctn_v3 w, float h) {
    float wn = ctn_length(w);
    float half_angle = 0.5f * h * wn;
    if (CTN_FABS(half_angle) < 1e-20f) return q; /* no rotation; h may be negative (a backward step) */
    return ctn_quat_turn(q, w, wn, half_angle);
}

/* World inverse inertia R diag(d) R^T from body-frame principal inverse moments d. The columns of R are
 * those of the unit quaternion's rotation matrix in closed form (Shoemake 1985), a third of the flops of
 * rotating the three axes with ctn_quat_rotate and the same bits (its scalings by 2 are exact and the axes'
 * zeros drop out; checked on 1e5 random quaternions). Formed for every body at every integration and
 * every projection step. */
CTN_FN ctn_sym3 ctn_world_inverse_inertia(ctn_quat q, ctn_v3 d) {
    float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z, xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    ctn_v3 c0 = ctn_v3_make(1.0f - 2.0f * (yy + zz), 2.0f * (xy + wz), 2.0f * (xz - wy));
    ctn_v3 c1 = ctn_v3_make(2.0f * (xy - wz), 1.0f - 2.0f * (xx + zz), 2.0f * (yz + wx));
    ctn_v3 c2 = ctn_v3_make(2.0f * (xz + wy), 2.0f * (yz - wx), 1.0f - 2.0f * (xx + yy));
    /* M = sum_k d_k c_k c_k^T */
    ctn_sym3 m;
    m.xx = d.x * c0.x * c0.x + d.y * c1.x * c1.x + d.z * c2.x * c2.x;
    m.yy = d.x * c0.y * c0.y + d.y * c1.y * c1.y + d.z * c2.y * c2.y;
    m.zz = d.x * c0.z * c0.z + d.y * c1.z * c1.z + d.z * c2.z * c2.z;
    m.xy = d.x * c0.x * c0.y + d.y * c1.x * c1.y + d.z * c2.x * c2.y;
    m.xz = d.x * c0.x * c0.z + d.y * c1.x * c1.z + d.z * c2.x * c2.z;
    m.yz = d.x * c0.y * c0.z + d.y * c1.y * c1.z + d.z * c2.y * c2.z;
    return m;
}

/* Two unit vectors completing n (unit) to an orthonormal basis. */
CTN_FN void ctn_basis(ctn_v3 n, ctn_v3 *t1, ctn_v3 *t2) {
    ctn_v3 a = CTN_FABS(n.x) < 0.57735f ? ctn_v3_make(1.0f, 0.0f, 0.0f) : ctn_v3_make(0.0f, 1.0f, 0.0f);
    ctn_v3 u = ctn_cross(n, a);
    u = ctn_scale(u, 1.0f / ctn_length(u));
    *t1 = u;
    *t2 = ctn_cross(n, u);
}

#endif /* CTN_MATH_H */
