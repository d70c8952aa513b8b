/* What the command-line tool takes from its environment. The library never reads the environment: the
 * tool turns these variables into ctn_world_desc fields and routes the library's messages to stderr.
 *
 *   CATENA_QUIET=1          no library messages on stderr (as --quiet)
 *   CATENA_DEVICE=D         OpenCL device when neither the scene nor --device names one
 *   CATENA_FAULT=NAME[@N]   desc.debug.fault (builds with -DCATENA_FAULT_INJECTION=ON)
 *   CATENA_DIRECT_FOREST, CATENA_FOREST_BAND, CATENA_CHAIN_SEGMENT, CATENA_FOREST_LOCAL_ONE   desc.debug knobs
 *   CATENA_DIRECT_TRACE=1   desc.debug.trace
 *   CATENA_PROJECT_CHORD=0|1   desc.debug.project_chord
 *   CATENA_CACHE_DIR=DIR    the OpenCL binary cache (ctn_set_cache_dir), else $XDG_CACHE_HOME/catena, else
 *                           $HOME/.cache/catena
 *   OMP_NUM_THREADS=N       desc.threads when neither the scene nor --threads sets it (the first number of
 *                           a list)
 *   OMP_WAIT_POLICY         when unset, the tool runs itself again with OMP_WAIT_POLICY=passive
 *                           (ctn_cli_passive_openmp) */
#define _GNU_SOURCE
#include "cli.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

/* OpenMP threads that wait for work (at the end of every parallel loop, and through the serial parts of a
 * step) spin in libgomp's default policy: on a machine where another process holds a core they take the
 * CPU time the thread with work needs: two threads ran 1.1-5.3x slower than one on chain:1e4 and 1e5 (direct and
 * GS), and 0.27-0.76x with passive waiting (bench/results/2026-11-27-vm-threads-busy.md).
 * OMP_WAIT_POLICY=passive makes them sleep instead. libgomp reads the variable once, while it is loaded,
 * before main runs, so setting it here has no effect on this process: the tool sets it and executes itself
 * again (same arguments, same process id) unless the user chose a policy (OMP_WAIT_POLICY or
 * GOMP_SPINCOUNT set, to any value) or it runs under valgrind (which would not follow the exec). If the exec
 * fails the run goes on with the default policy. */
void ctn_cli_passive_openmp(char **argv) {
    if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT") || RUNNING_ON_VALGRIND) return;
    if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
    execv("/proc/self/exe", argv);
}

const char *ctn_cli_wait_policy(void) {
    const char *p = getenv("OMP_WAIT_POLICY");
    return p ? p : "";
}

int ctn_cli_cpu_count(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    int n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
    if (n < 1) n = (int)sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n;
}

/* The library names the C API's setting desc.device; on the command line it is --device or CATENA_DEVICE. */
static void print_message(ctn_log_level level, const char *message, void *user) {
    (void)user;
    fprintf(stderr, "catena: %s", level == CTN_LOG_WARNING ? "warning: " : "");
    static const char c_words[] = "desc.device";
    const char *at;
    while ((at = strstr(message, c_words))) {
        fprintf(stderr, "%.*s--device or CATENA_DEVICE", (int)(at - message), message);
        message = at + sizeof c_words - 1;
    }
    fprintf(stderr, "%s\n", message);
}

int ctn_cli_quiet_env(void) {
    const char *q = getenv("CATENA_QUIET");
    return q && q[0] && strcmp(q, "0") != 0;
}

void ctn_cli_env_cache_dir(void) {
    char dir[1024] = "";
    const char *d = getenv("CATENA_CACHE_DIR");
    if (d && d[0]) snprintf(dir, sizeof dir, "%s", d);
    else if ((d = getenv("XDG_CACHE_HOME")) && d[0]) snprintf(dir, sizeof dir, "%s/catena", d);
    else if ((d = getenv("HOME")) && d[0]) snprintf(dir, sizeof dir, "%s/.cache/catena", d);
    if (ctn_set_cache_dir(dir) != CTN_OK) fprintf(stderr, "catena: warning: the cache directory %s is too long; no program cache\n", dir);
}

void ctn_cli_set_quiet(int quiet) { ctn_set_log(quiet || ctn_cli_quiet_env() ? NULL : print_message, NULL); }

static void env_int(const char *name, int *out) {
    const char *v = getenv(name);
    if (v && v[0]) *out = atoi(v);
}

void ctn_cli_env_desc(ctn_world_desc *d) {
    const char *dev = getenv("CATENA_DEVICE");
    if ((!d->device || !d->device[0]) && dev && dev[0]) d->device = dev;
    const char *fault = getenv("CATENA_FAULT");
    if (fault && fault[0]) d->debug.fault = fault;
    env_int("CATENA_DIRECT_FOREST", &d->debug.direct_forest);
    env_int("CATENA_FOREST_BAND", &d->debug.forest_band);
    env_int("CATENA_CHAIN_SEGMENT", &d->debug.chain_segment);
    env_int("CATENA_FOREST_LOCAL_ONE", &d->debug.forest_local_one);
    env_int("CATENA_DIRECT_TRACE", &d->debug.trace);
    env_int("CATENA_PROJECT_CHORD", &d->debug.project_chord);
    const char *omp = getenv("OMP_NUM_THREADS");
    if (d->threads == 0 && omp && omp[0]) {
        char *end;
        long n = strtol(omp, &end, 10);
        if (end != omp && (*end == '\0' || *end == ',') && n >= 1 && n <= CTN_MAX_THREADS) d->threads = (int)n;
    }
}
