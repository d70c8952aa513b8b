/* SSE2 lanes for the CPU's lean loops over ball and hinge joints (host/solve/chord_rows.c, ball_rows.c,
 * hinge_rows.c, direct_chain.c's residual): the vector operations of kernels/ctn_math.h on the three components
 * of a vector at once, lane by lane the same IEEE 754 float operations in the same order as the scalar functions
 * (the build never contracts to fused multiply-adds, -ffp-contract=off), so the same bits; lane 3 holds whatever
 * follows the vector in memory (a pose's next field: p_lo.x after p, q.w after p_lo (ctn_types.h); an anchor's
 * neighbour) and is never stored where a caller's result lies. */
#ifndef CTN_HOST_SOLVE_LANES_H
#define CTN_HOST_SOLVE_LANES_H

#include "ctn_types.h"

#if defined(__SSE2__)
#include <emmintrin.h>

/* a x b = a.yzx b.zxy - a.zxy b.yzx, lane by lane the products and differences of ctn_cross (lane 3 unused);
 * a's two permutations are given (a quaternion's vector part is read once for its two cross products). */
static inline __m128 cross4(__m128 a_yzx, __m128 a_zxy, __m128 b) {
    __m128 b_zxy = _mm_shuffle_ps(b, b, _MM_SHUFFLE(3, 1, 0, 2)), b_yzx = _mm_shuffle_ps(b, b, _MM_SHUFFLE(3, 0, 2, 1));
    return _mm_sub_ps(_mm_mul_ps(a_yzx, b_zxy), _mm_mul_ps(a_zxy, b_yzx));
}

/* a x b of two vectors in lanes 0..2: cross4 with a's permutations taken here. */
static inline __m128 cross4v(__m128 a, __m128 b) {
    return cross4(_mm_shuffle_ps(a, a, _MM_SHUFFLE(3, 0, 2, 1)), _mm_shuffle_ps(a, a, _MM_SHUFFLE(3, 1, 0, 2)), b);
}

/* ctn_quat_rotate, q = (w, x, y, z) in lanes 0..3: v + w t + u x t, t = 2 u x v, u = (x, y, z). */
static inline __m128 rotate4(__m128 q, __m128 v) {
    __m128 u_yzx = _mm_shuffle_ps(q, q, _MM_SHUFFLE(0, 1, 3, 2)), u_zxy = _mm_shuffle_ps(q, q, _MM_SHUFFLE(0, 2, 1, 3));
    __m128 t = _mm_mul_ps(cross4(u_yzx, u_zxy, v), _mm_set1_ps(2.0f));
    return _mm_add_ps(_mm_add_ps(v, _mm_mul_ps(t, _mm_shuffle_ps(q, q, 0))), cross4(u_yzx, u_zxy, t));
}

/* lanes 0..2 as a ctn_v3 */
static inline ctn_v3 lanes_v3(__m128 v) {
    float f[4];
    _mm_storeu_ps(f, v);
    return ctn_v3_make(f[0], f[1], f[2]);
}
/* lanes 1..3 as a ctn_v3 (the angular velocity of a ctn_vel loaded from v.z: v.z, w) */
static inline ctn_v3 lanes_v3_from1(__m128 v) {
    float f[4];
    _mm_storeu_ps(f, v);
    return ctn_v3_make(f[1], f[2], f[3]);
}

/* Body i's pose and velocity where they lie; for the world (i < 0) a body at rest at the origin, unrotated: what
 * ctn_load_pose(-1) and ctn_load_vel(-1) return, without the copies. */
static inline const ctn_pose *body_pose(const ctn_pose *pose, int i) {
    static const ctn_pose world = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, {1.0f, 0.0f, 0.0f, 0.0f}};
    return i >= 0 ? &pose[i] : &world;
}
static inline const ctn_vel *body_vel(const ctn_vel *vel, int i) {
    static const ctn_vel world = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}};
    return i >= 0 ? &vel[i] : &world;
}

/* The anchor separation C = (x_a + r_a) - (x_b + r_b) of two-float positions x = p + p_lo and lever arms r
 * (ctn_point_sep: ((a_hi - b_hi) - r_b + r_a) + (a_lo - b_lo), the leading parts first; Lacoursiere 2011, eq. 30). */
static inline __m128 point_sep4(const ctn_pose *pa, const ctn_pose *pb, __m128 ra, __m128 rb) {
    __m128 c = _mm_sub_ps(_mm_sub_ps(_mm_loadu_ps(&pa->p.x), _mm_loadu_ps(&pb->p.x)), rb);
    return _mm_add_ps(_mm_add_ps(c, ra), _mm_sub_ps(_mm_loadu_ps(&pa->p_lo.x), _mm_loadu_ps(&pb->p_lo.x)));
}

/* A ctn_vel's angular velocity w as loaded from v.z, (v.z, w) (the six floats v, w: four from v.z end with the
 * record), permuted for cross4: w.yzx and w.zxy in lanes 0..2, as rotate4 permutes a quaternion's (x, y, z). */
static inline __m128 vel_w_yzx(const ctn_vel *v, __m128 *zxy) {
    __m128 u = _mm_loadu_ps(&v->v.z);
    *zxy = _mm_shuffle_ps(u, u, _MM_SHUFFLE(0, 2, 1, 3));
    return _mm_shuffle_ps(u, u, _MM_SHUFFLE(0, 1, 3, 2));
}

/* The anchors' relative velocity dv = (v_a + w_a x r_a) - (v_b + w_b x r_b) (ctn_block_velocity's linear part). */
static inline __m128 anchor_dv4(const ctn_vel *va, const ctn_vel *vb, __m128 ra, __m128 rb) {
    __m128 za, zb, ya = vel_w_yzx(va, &za), yb = vel_w_yzx(vb, &zb);
    __m128 ua = _mm_add_ps(_mm_loadu_ps(&va->v.x), cross4(ya, za, ra));
    __m128 ub = _mm_add_ps(_mm_loadu_ps(&vb->v.x), cross4(yb, zb, rb));
    return _mm_sub_ps(ua, ub);
}

/* J v of the three point rows along the world axes e_k: lane k holds ctn_dot(e_k, dv) = (e_k.x dv.x + e_k.y dv.y)
 * + e_k.z dv.z with e_k's 1s and 0s in the lanes. A product by a structural zero is kept: it decides the sign of a
 * zero and turns an infinite component into a NaN, as in the scalar dot product. */
static inline __m128 axes_jv4(__m128 dv) {
    const __m128 ex = _mm_setr_ps(1.0f, 0.0f, 0.0f, 0.0f), ey = _mm_setr_ps(0.0f, 1.0f, 0.0f, 0.0f), ez = _mm_setr_ps(0.0f, 0.0f, 1.0f, 0.0f);
    return _mm_add_ps(_mm_add_ps(_mm_mul_ps(ex, _mm_shuffle_ps(dv, dv, 0x00)), _mm_mul_ps(ey, _mm_shuffle_ps(dv, dv, 0x55))),
                      _mm_mul_ps(ez, _mm_shuffle_ps(dv, dv, 0xaa)));
}

#endif /* __SSE2__ */

#endif /* CTN_HOST_SOLVE_LANES_H */
