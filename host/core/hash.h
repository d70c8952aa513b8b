/* FNV-1a, 64 bit (Fowler, Noll and Vo 1991): the one byte hash of
 * the library and the CLI (checkpoint payloads, the OpenCL binary cache's keys and payloads, sweep and
 * ensemble signatures). Not cryptographic: it detects corruption and tells inputs apart. */
#ifndef CTN_HOST_CORE_HASH_H
#define CTN_HOST_CORE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* The FNV-1a 64 offset basis: the hash of no bytes. */
#define CTN_FNV_OFFSET 14695981039346656037ULL

/* FNV-1a 64 of `size` bytes, continuing from h (start with CTN_FNV_OFFSET):
 * h = (h ^ byte) * 1099511628211 per byte. */
static inline uint64_t ctn__fnv1a(uint64_t h, const void *data, size_t size) {
    const unsigned char *p = data;
    for (size_t i = 0; i < size; ++i) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

#endif /* CTN_HOST_CORE_HASH_H */
