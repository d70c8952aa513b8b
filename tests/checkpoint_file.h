/* Checkpoint files rewritten by the tests that craft them (test_checkpoint_resume, test_checkpoint_values):
 * the FNV-1a 64 of the format (host/core/hash.h), a file of this catena (format version 5) rewritten as an
 * older version wrote it or only re-hashed, and a float marker replaced in place. The layout is
 * host/io/checkpoint.c's (its header comment). */
#ifndef CTN_TEST_CHECKPOINT_FILE_H
#define CTN_TEST_CHECKPOINT_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline uint64_t ck_test_fnv(uint64_t h, const char *p, size_t n) {
    for (size_t i = 0; i < n; ++i) h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
    return h;
}

/* The offset in the file buf of the six i32 slot counts (body slots first): after the 64-byte header, the
 * settings (their size the header's u32 at byte 36) and the device and user strings (u32 length,
 * bytes) around the u64 step. */
static inline size_t ck_test_counts_at(const char *buf) {
    uint32_t desc_size, len;
    memcpy(&desc_size, buf + 8 + 7 * 4, sizeof desc_size);
    size_t p = 64 + desc_size;
    memcpy(&len, buf + p, sizeof len);
    p += 4 + len + 8;
    memcpy(&len, buf + p, sizeof len);
    return p + 4 + len;
}

/* Writes the file buf (n bytes, as this catena writes it: version 5) as version `version` wrote it. Version 5:
 * the same bytes with the header's checksum recomputed (after a patch of the payload). Versions 3 and 4: each
 * body's properties as the 48-byte record of then, the 16-byte ctn_props followed by its force and torque (the
 * 32-byte ctn_body_force, zero when the file has no forces), the forces' section dropped; the header's props
 * size 48 and its reserved bytes zero; the checksum of that version (3: the payload's FNV-1a 64 alone; 4 and 5:
 * continued over the header's other bytes). The payload up to the properties: as far as the slot counts
 * (ck_test_counts_at), then the poses, velocities and inertias (48, 32 and 32 bytes a body). */
static inline void ck_test_write_as(const char *path, const char *buf, size_t n, uint32_t version) {
    size_t p = ck_test_counts_at(buf);
    int32_t nb;
    memcpy(&nb, buf + p, sizeof nb);
    p += 6 * 4 + (size_t)nb * (48 + 32 + 32);
    size_t props = p, after = props + (size_t)nb * 16;
    int32_t has_forces;
    memcpy(&has_forces, buf + after, sizeof has_forces);
    const char *forces = buf + after + 4;
    after += 4 + (has_forces ? (size_t)nb * 32 : 0);
    size_t m = version >= 5 ? n : props + (size_t)nb * 48 + (n - after);
    char *out = calloc(m, 1);
    if (!out) return;
    if (version >= 5) {
        memcpy(out, buf, n);
    } else {
        memcpy(out, buf, props);
        for (int32_t i = 0; i < nb; ++i) {
            memcpy(out + props + 48 * (size_t)i, buf + props + 16 * (size_t)i, 16);
            if (has_forces) memcpy(out + props + 48 * (size_t)i + 16, forces + 32 * (size_t)i, 32);
        }
        memcpy(out + props + (size_t)nb * 48, buf + after, n - after);
        uint32_t props_size = 48;
        uint64_t payload = m - 64;
        memcpy(out + 8, &version, sizeof version);
        memcpy(out + 8 + 5 * 4, &props_size, sizeof props_size);
        memcpy(out + 40, &payload, sizeof payload);
        memset(out + 56, 0, 8);
    }
    uint64_t h = ck_test_fnv(14695981039346656037ull, out + 64, m - 64);
    if (version >= 4) h = ck_test_fnv(ck_test_fnv(h, out, 48), out + 56, 8);
    memcpy(out + 48, &h, sizeof h);
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(out, 1, m, f);
        fclose(f);
    }
    free(out);
}

/* Replaces every occurrence of the float `mark` in the payload by `value`; the count of occurrences. */
static inline int ck_test_patch_float(char *buf, size_t n, float mark, float value) {
    int found = 0;
    for (size_t i = 64; i + sizeof mark <= n; ++i)
        if (memcmp(buf + i, &mark, sizeof mark) == 0) {
            memcpy(buf + i, &value, sizeof value);
            ++found;
        }
    return found;
}

#endif
