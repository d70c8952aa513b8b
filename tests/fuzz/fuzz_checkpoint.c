/* libFuzzer target: checkpoint bytes -> ctn_checkpoint_read_info and ctn_world_load (through a
 * temporary file: the reader takes a path). The FNV-1a checksum would stop almost every mutation at the
 * header, so for inputs whose first byte is odd the harness rewrites the header's payload length and
 * checksum to match (version 4: over the payload and the rest of the header; version 3: over the
 * payload) (the checksum test itself is covered by the even inputs and by tests/cli). A world that
 * loads is stepped twice on the CPU backend with clamped solver settings. Also linked into fuzz_replay (tests/CMakeLists.txt). */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t fnv1a(uint64_t h, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    int fix = data[0] & 1;
    data += 1;
    size -= 1;
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf) return 0;
    if (size) memcpy(buf, data, size);
    if (fix && size >= 64) { /* header: u32 version at 8, u64 payload bytes at 40, u64 checksum at 48 */
        uint64_t plen = size - 64, hash = fnv1a(14695981039346656037ull, buf + 64, size - 64);
        uint32_t version;
        memcpy(&version, buf + 8, 4);
        memcpy(buf + 40, &plen, 8);
        if (version >= 4) { /* version 4: continued over the rest of the header (host/io/checkpoint.c) */
            hash = fnv1a(hash, buf, 48);
            hash = fnv1a(hash, buf + 56, 8);
        }
        memcpy(buf + 48, &hash, 8);
    }
    char path[64];
    snprintf(path, sizeof path, "/tmp/catena-fuzz-ck-%ld.bin", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) {
        free(buf);
        return 0;
    }
    fwrite(buf, 1, size, f);
    fclose(f);
    free(buf);

    char err[512];
    ctn_checkpoint_info *info = malloc(sizeof *info);
    if (!info) return 0;
    ctn_world_desc desc = ctn_world_desc_default();
    if (ctn_checkpoint_read_info(path, info, err, sizeof err) == CTN_OK) desc = info->desc;
    desc.backend = CTN_BACKEND_CPU;
    desc.device = NULL;
    desc.threads = 1;
    if (desc.iterations > 8) desc.iterations = 8;
    if (desc.substeps > 4) desc.substeps = 4;
    ctn_world *w = NULL;
    if (ctn_world_load(path, &desc, &w, info, err, sizeof err) == CTN_OK) {
        int nb = 0, nj = 0;
        ctn_world_id_counts(w, &nb, &nj);
        if (nb <= 5000 && nj <= 10000) {
            ctn_world_step(w);
            ctn_world_step(w);
        }
        ctn_world_destroy(w);
    }
    free(info);
    remove(path);
    return 0;
}
