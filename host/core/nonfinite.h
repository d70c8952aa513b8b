/* Tests for non-finite floats (NaN or infinite) over whole arrays of the host state: the divergence check's
 * (host/core/world.h ctn__body_diverged, the CPU backend's stage_measure). */
#ifndef CTN_NONFINITE_H
#define CTN_NONFINITE_H

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Nonzero when some of the 4 binary32 values at x (lanes picked by mask: the exponent field 0x7f800000, or 0
 * for a lane not tested) is not finite: an exponent field of all ones (IEEE 754), which 0x00800000 added
 * carries into the lane's bit 31. Whole words at once: with SSE2 one load, and and add for 4 values (a float
 * test, x - x summed over the values, was one subtraction and one add per value: floats are not
 * reassociated into vectors). The result is only tested for zero; or-ing results of several calls is fine. */
#if defined(__SSE2__)
typedef __m128i ctn_lanes;
static inline ctn_lanes ctn__lanes_nonfinite(const void *x, const uint32_t *mask) {
    __m128i u = _mm_loadu_si128((const __m128i *)x), m = _mm_loadu_si128((const __m128i *)mask);
    return _mm_add_epi32(_mm_and_si128(u, m), _mm_set1_epi32(0x00800000));
}
static inline ctn_lanes ctn__lanes_or(ctn_lanes a, ctn_lanes b) { return _mm_or_si128(a, b); }
static inline int ctn__lanes_any(ctn_lanes a) { return _mm_movemask_ps(_mm_castsi128_ps(a)) != 0; }
#else
typedef uint32_t ctn_lanes;
static inline ctn_lanes ctn__lanes_nonfinite(const void *x, const uint32_t *mask) {
    uint32_t u[4];
    memcpy(u, x, sizeof u);
    return ((u[0] & mask[0]) + 0x00800000u) | ((u[1] & mask[1]) + 0x00800000u) | ((u[2] & mask[2]) + 0x00800000u) |
           ((u[3] & mask[3]) + 0x00800000u);
}
static inline ctn_lanes ctn__lanes_or(ctn_lanes a, ctn_lanes b) { return a | b; }
static inline int ctn__lanes_any(ctn_lanes a) { return (a & 0x80000000u) != 0; }
#endif
/* The masks: lanes 0..2 (a vector and not the float after it, the next field of its record), all four lanes,
 * lanes 2 and 3 (the last two floats of six read as floats 0..3 and 2..5). */
#define CTN__E 0x7f800000u
static const uint32_t ctn__lanes_xyz[4] = {CTN__E, CTN__E, CTN__E, 0u}, ctn__lanes_all[4] = {CTN__E, CTN__E, CTN__E, CTN__E};
static const uint32_t ctn__lanes_zw[4] = {0u, 0u, CTN__E, CTN__E};
#undef CTN__E

/* The first slot in [first, last) whose impulses (ls a slot at lambda, the row stride) are not all finite,
 * INT_MAX when none: ctn_impulse_bad's answer, the exponent fields of a whole group of 8 slots (8 ls floats, a
 * multiple of 4) tested first. */
static inline int ctn__impulses_bad(const float *lambda, int ls, int first, int last) {
    if (last - first == 8) {
        const float *l = lambda + (size_t)ls * (size_t)first;
        ctn_lanes any = ctn__lanes_nonfinite(l, ctn__lanes_all);
        for (int k = 4; k < 8 * ls; k += 4) any = ctn__lanes_or(any, ctn__lanes_nonfinite(l + k, ctn__lanes_all));
        if (!ctn__lanes_any(any)) return INT_MAX;
    }
    for (int s = first; s < last; ++s)
        for (int r = 0; r < ls; ++r)
            if (!isfinite(lambda[(size_t)ls * (size_t)s + r])) return s; /* ctn_impulse_bad's test */
    return INT_MAX;
}

#endif
