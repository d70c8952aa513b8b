/* Minimal test harness shared by the tests: CHECK records failures and goes on; each test file's main
 * returns non-zero when any check failed. */
#ifndef CTN_TEST_CHECK_H
#define CTN_TEST_CHECK_H

#include <math.h>
#include <stdio.h>

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
