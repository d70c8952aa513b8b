/* Minimal test harness shared by the tests: CHECK records failures and goes on; each test file's main
 * returns non-zero when any check failed. */
#ifndef CTN_TEST_CHECK_H
#define CTN_TEST_CHECK_H

#include "catena/catena.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The library reads no environment variable: like the CLI, the tests pass the OpenCL binary cache
 * directory themselves, $CATENA_CACHE_DIR or else the build tree's opencl-cache (PoCL builds are slow),
 * before main runs. A test that needs another directory sets its own. */
__attribute__((constructor)) static void check_cache_dir(void) {
    const char *d = getenv("CATENA_CACHE_DIR");
    ctn_set_cache_dir(d && d[0] ? d : "opencl-cache");
}

static int check_failures = 0;
static int check_count = 0;

#define CHECK(cond, ...)                                                                                                \
    do {                                                                                                                \
        ++check_count;                                                                                                  \
        if (!(cond)) {                                                                                                  \
            ++check_failures;                                                                                           \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);                                   \
            fprintf(stderr, __VA_ARGS__);                                                                               \
            fprintf(stderr, "\n");                                                                                      \
        }                                                                                                               \
    } while (0)

#define CHECK_NEAR(a, b, tol, what)                                                                                     \
    CHECK(fabs((double)(a) - (double)(b)) <= (tol), "%s: %.9g vs %.9g (tol %.3g)", what, (double)(a), (double)(b), (double)(tol))

/* Exit status of a test that cannot run here (no OpenCL device, no fp64, ...): CTest counts it as skipped
 * (SKIP_RETURN_CODE 77, as automake does), never as passed. */
#define CHECK_SKIPPED 77

static inline int check_skip(const char *name, const char *why) {
    printf("%s: skipped: %s\n", name, why);
    return CHECK_SKIPPED;
}

static int check_report(const char *name) {
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

#endif
