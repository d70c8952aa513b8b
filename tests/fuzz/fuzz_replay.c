/* Runs fuzz-target inputs without libFuzzer: each argument is a file or a directory of files,
 * fed one by one to the LLVMFuzzerTestOneInput the driver is linked with (fuzz_scene.c or
 * fuzz_checkpoint.c). CTest runs it over tests/fuzz/crashes/<target>/ and the seed corpus in the normal
 * (and sanitizer) build, so a crash found once stays fixed. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fuzz_replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 4096, n = 0;
    unsigned char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            unsigned char *b = realloc(buf, cap *= 2);
            if (!b) free(buf);
            buf = b;
        }
    }
    fclose(f);
    if (!buf) return 1;
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
    int files = 0, bad = 0;
    for (int i = 1; i < argc; ++i) {
        struct stat sb;
        if (stat(argv[i], &sb) != 0) {
            fprintf(stderr, "fuzz_replay: %s does not exist\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(sb.st_mode)) {
            bad |= run_file(argv[i]);
            ++files;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) return 1;
        char **names = NULL;
        size_t count = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.') continue;
            char **nn = realloc(names, (count + 1) * sizeof *names);
            if (!nn) break;
            names = nn;
            size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
            names[count] = malloc(len);
            if (names[count]) snprintf(names[count++], len, "%s/%s", argv[i], e->d_name);
        }
        closedir(d);
        if (count) qsort(names, count, sizeof *names, cmp);
        for (size_t k = 0; k < count; ++k) {
            bad |= run_file(names[k]);
            ++files;
            free(names[k]);
        }
        free(names);
    }
    printf("fuzz_replay: %d inputs, no crash\n", files);
    return bad;
}
