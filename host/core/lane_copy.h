/* Copies of the world's large arrays (poses, velocities, impulses) by 128-byte blocks of 16-byte lanes, for the
 * copies a step takes every time (the step spare's start velocities and impulses, host/core/divergence.c; the
 * projection's copy of the poses, host/solve/solver_cpu.c keep_poses). memcpy of a large array runs rep movsb,
 * which valgrind's callgrind counts once per byte, and a loop over records copies a record's 40 or 24 bytes as
 * 16- and 8-byte moves with the loop's own instructions every four records: the blocks take 8 loads, 8 stores
 * and the loop's three instructions per 128 bytes, whatever the record (0.15 instructions a byte, against 0.17
 * for four poses an iteration, 0.21 for four velocities and 0.31 for impulses a float at a time). A copy moves
 * the bytes as they are: the same bits.
 *
 * The caller's loop (on the world's threads where it is large) runs lane_copy_block over blocks 0 .. bytes / 128
 * - 1, then lane_copy_tail once for the last bytes % 128. */
#ifndef CTN_HOST_CORE_LANE_COPY_H
#define CTN_HOST_CORE_LANE_COPY_H

#include <stddef.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define CTN_LANE_BLOCK 128

/* block i (128 bytes) of from into to */
static inline void lane_copy_block(void *to, const void *from, size_t i) {
    char *t = (char *)to + i * CTN_LANE_BLOCK;
    const char *f = (const char *)from + i * CTN_LANE_BLOCK;
#if defined(__SSE2__)
    __m128i a0 = _mm_loadu_si128((const __m128i *)(const void *)f), a1 = _mm_loadu_si128((const __m128i *)(const void *)(f + 16));
    __m128i a2 = _mm_loadu_si128((const __m128i *)(const void *)(f + 32)), a3 = _mm_loadu_si128((const __m128i *)(const void *)(f + 48));
    __m128i a4 = _mm_loadu_si128((const __m128i *)(const void *)(f + 64)), a5 = _mm_loadu_si128((const __m128i *)(const void *)(f + 80));
    __m128i a6 = _mm_loadu_si128((const __m128i *)(const void *)(f + 96)), a7 = _mm_loadu_si128((const __m128i *)(const void *)(f + 112));
    _mm_storeu_si128((__m128i *)(void *)t, a0), _mm_storeu_si128((__m128i *)(void *)(t + 16), a1);
    _mm_storeu_si128((__m128i *)(void *)(t + 32), a2), _mm_storeu_si128((__m128i *)(void *)(t + 48), a3);
    _mm_storeu_si128((__m128i *)(void *)(t + 64), a4), _mm_storeu_si128((__m128i *)(void *)(t + 80), a5);
    _mm_storeu_si128((__m128i *)(void *)(t + 96), a6), _mm_storeu_si128((__m128i *)(void *)(t + 112), a7);
#else
    memcpy(t, f, CTN_LANE_BLOCK);
#endif
}

/* the bytes after the last whole block of a copy of `bytes` bytes */
static inline void lane_copy_tail(void *to, const void *from, size_t bytes) {
    size_t done = bytes / CTN_LANE_BLOCK * CTN_LANE_BLOCK;
    if (bytes > done) memcpy((char *)to + done, (const char *)from + done, bytes - done);
}

#endif /* CTN_HOST_CORE_LANE_COPY_H */
