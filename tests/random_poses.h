/* Reproducible random inputs for the tests that compare two computations of the same rows bit for bit
 * (test_ball_rows, test_chord_rows): a xorshift32 generator (Marsaglia 2003) with a fixed seed, so every run
 * draws the same values, and vectors and unit quaternions built from it. */
#ifndef CTN_TEST_RANDOM_POSES_H
#define CTN_TEST_RANDOM_POSES_H

#include "ctn_math.h"

#include <math.h>

static unsigned rng_state = 2463534242u;

/* Uniform in [-1, 1). */
static inline double urand(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return (double)rng_state / 2147483648.0 - 1.0;
}

static inline ctn_v3 rand_v3(double s) { return ctn_v3_make((float)(s * urand()), (float)(s * urand()), (float)(s * urand())); }

/* A unit quaternion (the identity for the rare draw near zero). */
static inline ctn_quat rand_quat(void) {
    double x = urand(), y = urand(), z = urand(), w = urand(), n = sqrt(x * x + y * y + z * z + w * w);
    if (n < 1e-3) return ctn_quat_identity();
    return ctn_quat_make((float)(w / n), (float)(x / n), (float)(y / n), (float)(z / n));
}

#endif
