/* SSE2 lanes for the CPU's lean loops over ball joints (host/solve/chord_rows.c, host/solve/ball_rows.c): the
 * vector operations of kernels/ctn_math.h on the three components of a vector at once, lane by lane the same IEEE
 * 754 float operations in the same order as the scalar functions (the build never contracts to fused
 * multiply-adds, -ffp-contract=off), so the same bits; lane 3 holds whatever follows the vector in memory (a
 * pose's or anchor's padding) and is never stored where a caller's result lies. */
#ifndef CTN_HOST_SOLVE_LANES_H
#define CTN_HOST_SOLVE_LANES_H

#if defined(__SSE2__)
#include <emmintrin.h>

/* a x b = a.yzx b.zxy - a.zxy b.yzx, lane by lane the products and differences of ctn_cross (lane 3 unused);
 * a's two permutations are given (a quaternion's vector part is read once for its two cross products). */
static inline __m128 cross4(__m128 a_yzx, __m128 a_zxy, __m128 b) {
    __m128 b_zxy = _mm_shuffle_ps(b, b, _MM_SHUFFLE(3, 1, 0, 2)), b_yzx = _mm_shuffle_ps(b, b, _MM_SHUFFLE(3, 0, 2, 1));
    return _mm_sub_ps(_mm_mul_ps(a_yzx, b_zxy), _mm_mul_ps(a_zxy, b_yzx));
}

/* ctn_quat_rotate, q = (w, x, y, z) in lanes 0..3: v + w t + u x t, t = 2 u x v, u = (x, y, z). */
static inline __m128 rotate4(__m128 q, __m128 v) {
    __m128 u_yzx = _mm_shuffle_ps(q, q, _MM_SHUFFLE(0, 1, 3, 2)), u_zxy = _mm_shuffle_ps(q, q, _MM_SHUFFLE(0, 2, 1, 3));
    __m128 t = _mm_mul_ps(cross4(u_yzx, u_zxy, v), _mm_set1_ps(2.0f));
    return _mm_add_ps(_mm_add_ps(v, _mm_mul_ps(t, _mm_shuffle_ps(q, q, 0))), cross4(u_yzx, u_zxy, t));
}

#endif /* __SSE2__ */

#endif /* CTN_HOST_SOLVE_LANES_H */
