/* On-disk cache of compiled OpenCL programs. An entry is
 *     "CTNB" | version u32 | key u64 | size u64 | fnv1a(payload) u64 | payload
 * where key = FNV-1a 64 of (kernel source, build options, device name, driver version, platform version),
 * so a changed kernel, option or driver never loads a stale binary. Entries are written to a temporary
 * file and renamed into place (readers never see half a file); an entry whose header, key or checksum
 * does not match is ignored and rebuilt. */
#define _POSIX_C_SOURCE 200809L
#include "opencl/opencl_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_MAGIC "CTNB"
#define CACHE_VERSION 1u
#define CACHE_HEADER 32

int ctn__cache_dir(char *out, size_t size) {
    const char *d = ctn_get_cache_dir(); /* set by the application (ctn_set_cache_dir): never the environment */
    if (!d[0]) return 0;
    int n = snprintf(out, size, "%s", d);
    return n > 0 && (size_t)n < size;
}

static void put64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
static uint64_t get64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

unsigned char *ctn__cache_load(const char *path, uint64_t key, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char h[CACHE_HEADER];
    unsigned char *data = NULL;
    if (fread(h, 1, CACHE_HEADER, f) != CACHE_HEADER || memcmp(h, CACHE_MAGIC, 4) != 0) goto bad;
    if ((uint32_t)(h[4] | h[5] << 8 | h[6] << 16 | (uint32_t)h[7] << 24) != CACHE_VERSION || get64(h + 8) != key) goto bad;
    uint64_t n = get64(h + 16);
    if (n == 0 || n > ((uint64_t)1 << 31)) goto bad;
    data = ctn__malloc((size_t)n);
    if (!data || fread(data, 1, (size_t)n, f) != (size_t)n || fgetc(f) != EOF) goto bad;
    if (ctn__fnv1a(CTN_FNV_OFFSET, data, (size_t)n) != get64(h + 24)) goto bad;
    fclose(f);
    *size = (size_t)n;
    return data;
bad:
    ctn__free(data);
    fclose(f);
    return NULL;
}

/* mkdir -p */
static int make_dirs(const char *dir) {
    char tmp[1024];
    size_t len = strlen(dir);
    if (len == 0 || len >= sizeof tmp) return 0;
    memcpy(tmp, dir, len + 1);
    for (char *p = tmp + 1; *p; ++p) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return 0;
        *p = '/';
    }
    return mkdir(tmp, 0755) == 0 || errno == EEXIST;
}

int ctn__cache_store(const char *dir, const char *path, uint64_t key, const unsigned char *data, size_t size) {
    if (!make_dirs(dir)) return 0;
    char tmp[1100];
    /* pid + payload address: unique among concurrent writers (processes, and threads of one process) */
    int n = snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%lx", path, (long)getpid(), (unsigned long)(uintptr_t)data);
    if (n < 0 || (size_t)n >= sizeof tmp) return 0;
    FILE *f = fopen(tmp, "wb");
    if (!f) return 0;
    unsigned char h[CACHE_HEADER];
    memcpy(h, CACHE_MAGIC, 4);
    h[4] = CACHE_VERSION & 0xff, h[5] = 0, h[6] = 0, h[7] = 0;
    put64(h + 8, key);
    put64(h + 16, (uint64_t)size);
    put64(h + 24, ctn__fnv1a(CTN_FNV_OFFSET, data, size));
    int ok = fwrite(h, 1, CACHE_HEADER, f) == CACHE_HEADER && fwrite(data, 1, size, f) == size;
    ok = fclose(f) == 0 && ok;
    if (ok) ok = rename(tmp, path) == 0;
    if (!ok) remove(tmp);
    return ok;
}
