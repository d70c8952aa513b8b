/* The OpenCL program binary cache (host/opencl/opencl_cache.c): a cold start writes one entry; a warm start loads
 * it without rewriting it (same inode: entries are only written, by rename, after a build from source);
 * a corrupted or truncated entry is ignored, the program is rebuilt from source and the entry replaced. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "check.h"
#include "opencl_lsan.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Finds the single program-*.bin entry in dir; returns the number of entries. */
static int find_entry(const char *dir, char *path, size_t size) {
    DIR *d = opendir(dir);
    int n = 0;
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, "program-", 8) && strstr(e->d_name, ".bin") && !strstr(e->d_name, ".tmp")) {
            snprintf(path, size, "%s/%s", dir, e->d_name);
            n++;
        }
    closedir(d);
    return n;
}

static int make_world(void) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_OPENCL;
    d.device = "0:0";
    ctn_world *w = NULL;
    char err[4096];
    ctn_status st = ctn_world_create(&d, &w, err, sizeof err);
    CHECK(st == CTN_OK, "create: %s", err);
    if (st == CTN_OK) {
        st = ctn_scene_from_spec(w, "chain:10");
        if (st == CTN_OK) st = ctn_world_step(w);
        CHECK(st == CTN_OK, "step: %s", ctn_world_last_error(w));
    }
    ctn_world_destroy(w);
    return st == CTN_OK;
}

static void write_file(const char *path, const char *data, size_t n) {
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(data, 1, n, f);
        fclose(f);
    }
}

int main(void) {
    int count = 0;
    char err[256];
    ctn_device_info dev[4];
    /* the directory is a setting (ctn_set_cache_dir): copied, and a path too long for it refused unchanged */
    char longpath[1100];
    memset(longpath, 'x', sizeof longpath - 1);
    longpath[sizeof longpath - 1] = '\0';
    CHECK(ctn_set_cache_dir("some/dir") == CTN_OK && !strcmp(ctn_get_cache_dir(), "some/dir"), "set: '%s'", ctn_get_cache_dir());
    CHECK(ctn_set_cache_dir(longpath) == CTN_ERR_LIMIT && !strcmp(ctn_get_cache_dir(), "some/dir"), "long path: '%s'", ctn_get_cache_dir());
    CHECK(ctn_set_cache_dir(NULL) == CTN_OK && !strcmp(ctn_get_cache_dir(), ""), "NULL: '%s'", ctn_get_cache_dir());
    if (ctn_list_devices(dev, 4, &count, err, sizeof err) != CTN_OK || count == 0) {
        return check_skip("test_opencl_cache", "no OpenCL platform or device");
    }
    char dir[64], path[512] = "";
    snprintf(dir, sizeof dir, "cache-test-%ld", (long)getpid());
    ctn_set_cache_dir(dir);
    struct stat s1, s2;

    /* cold: one entry appears */
    make_world();
    CHECK(find_entry(dir, path, sizeof path) == 1, "cold start left no single cache entry in %s", dir);
    CHECK(stat(path, &s1) == 0 && s1.st_size > 32, "entry %s is empty", path);

    /* warm: loaded, not rewritten */
    make_world();
    CHECK(stat(path, &s2) == 0 && s2.st_ino == s1.st_ino && s2.st_mtime == s1.st_mtime, "warm start rewrote the entry");

    /* garbage in place of the entry: ignored, rebuilt, replaced by a valid entry */
    write_file(path, "CTNB garbage that is no program", 31);
    CHECK(make_world(), "corrupted entry broke world creation");
    char magic[5] = "";
    FILE *g = fopen(path, "rb");
    if (g) {
        if (fread(magic, 1, 4, g) != 4) magic[0] = '\0';
        fclose(g);
    }
    CHECK(stat(path, &s2) == 0 && s2.st_size > 64 && !strcmp(magic, "CTNB"), "corrupted entry was not rebuilt (size %ld)", (long)s2.st_size);
    s1 = s2;

    /* flipped byte inside a valid entry: caught by the payload checksum */
    FILE *f = fopen(path, "r+b");
    if (f) {
        fseek(f, s1.st_size / 2, SEEK_SET);
        int c = fgetc(f);
        fseek(f, s1.st_size / 2, SEEK_SET);
        fputc(c ^ 0x5a, f);
        fclose(f);
    }
    stat(path, &s1);
    CHECK(make_world(), "entry with a flipped byte broke world creation");
    CHECK(stat(path, &s2) == 0 && s2.st_ino != s1.st_ino, "entry with a flipped byte was not replaced");

    /* truncated */
    CHECK(truncate(path, 40) == 0, "truncate %s", path);
    CHECK(make_world(), "truncated entry broke world creation");
    CHECK(stat(path, &s2) == 0 && s2.st_size > 40, "truncated entry was not rebuilt");

    remove(path);
    rmdir(dir);
    return check_report("opencl_cache");
}
