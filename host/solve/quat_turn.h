/* ctn_quat_turn (kernels/ctn_math.h) in SSE lanes, q = (w, x, y, z) in lanes 0..3: the exponential-map update
 * r = e q, e = (cos a, s w), s = sin(a) / |w|, a the half angle, then r (1.5 - 0.5 |r|^2). Lane k of the product
 * is ctn_quat_mul's k-th sum ((e.w q_k +- e.x q_.) +- e.y q_.) +- e.z q_., each term e_j times a permutation of q,
 * added where ctn_quat_mul adds and subtracted where it subtracts (both formed, one kept per lane: a sum with a
 * negated product would flip the sign bit of a NaN that a subtraction passes on unchanged), operands in the
 * scalar order; |r|^2 is ((w^2 + x^2) + y^2) + z^2 as ctn_quat_turn sums it. The build never contracts to fused
 * multiply-adds (-ffp-contract=off), so every lane is the scalar function's IEEE 754 operations: the same bits.
 * The body passes (host/solve/body_passes.c) call it for the bodies that turn: on a tree every body does at
 * every chord step, where the scalar product's 28 operations and its quaternion spilled through the stack. */
#ifndef CTN_HOST_SOLVE_QUAT_TURN_H
#define CTN_HOST_SOLVE_QUAT_TURN_H

#include "ctn_types.h"

#if defined(__SSE2__)
#include <emmintrin.h>

/* x + p in the lanes of `add`'s set bits, x - p in the others */
static inline __m128 quat_turn_addsub(__m128 x, __m128 p, __m128 add) {
    return _mm_or_ps(_mm_and_ps(add, _mm_add_ps(x, p)), _mm_andnot_ps(add, _mm_sub_ps(x, p)));
}

/* ctn_quat_turn(q, w, wn, half_angle), q and the result in lanes (w, x, y, z). */
static inline __m128 quat_turn4(__m128 q, ctn_v3 w, float wn, float half_angle) {
    float s = CTN_SIN(half_angle) / wn;
    float ew = CTN_COS(half_angle), ex = s * w.x, ey = s * w.y, ez = s * w.z;
    /* ctn_quat_mul(e, q): w: ew qw - ex qx - ey qy - ez qz, x: ew qx + ex qw + ey qz - ez qy,
     *                     y: ew qy - ex qz + ey qw + ez qx, z: ew qz + ex qy - ey qx + ez qw */
    __m128 r = _mm_mul_ps(_mm_set1_ps(ew), q);
    r = quat_turn_addsub(r, _mm_mul_ps(_mm_set1_ps(ex), _mm_shuffle_ps(q, q, _MM_SHUFFLE(2, 3, 0, 1))), _mm_castsi128_ps(_mm_setr_epi32(0, -1, 0, -1)));
    r = quat_turn_addsub(r, _mm_mul_ps(_mm_set1_ps(ey), _mm_shuffle_ps(q, q, _MM_SHUFFLE(1, 0, 3, 2))), _mm_castsi128_ps(_mm_setr_epi32(0, -1, -1, 0)));
    r = quat_turn_addsub(r, _mm_mul_ps(_mm_set1_ps(ez), _mm_shuffle_ps(q, q, _MM_SHUFFLE(0, 1, 2, 3))), _mm_castsi128_ps(_mm_setr_epi32(0, 0, -1, -1)));
    __m128 sq = _mm_mul_ps(r, r);
    __m128 n2 = _mm_add_ss(_mm_add_ss(_mm_add_ss(sq, _mm_shuffle_ps(sq, sq, _MM_SHUFFLE(1, 1, 1, 1))), _mm_movehl_ps(sq, sq)),
                           _mm_shuffle_ps(sq, sq, _MM_SHUFFLE(3, 3, 3, 3)));
    float k = 1.5f - 0.5f * _mm_cvtss_f32(n2); /* one Newton step of 1/sqrt(n2) about 1 */
    return _mm_mul_ps(r, _mm_set1_ps(k));
}

#endif /* __SSE2__ */

#endif /* CTN_HOST_SOLVE_QUAT_TURN_H */
