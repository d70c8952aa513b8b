/* The CPU backend's thread count: ctn_world_desc.threads when set, else the CPUs of the process's affinity
 * mask, read again at every step (a thread moved to one CPU steps on one thread from its next step on),
 * reported in ctn_step_stats.threads; 0 on the OpenCL backend; out-of-range values refused by name; and the
 * exact solver's chain (two segments from 1024 links on, host/solve/direct_chain.c) gives the same bits
 * on 1, 2 and 3 threads and with the automatic count. */
#define _GNU_SOURCE
#include "catena/catena.h"
#include "ids.h"
#include "check.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define LINKS 3000
#define STEPS 4

static ctn_world *chain_world(int threads, ctn_backend backend) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = backend;
    d.solver = CTN_SOLVER_DIRECT;
    d.iterations = 1;
    d.substeps = 1;
    d.threads = threads;
    ctn_world *w = NULL;
    char err[512];
    ctn_status s = ctn_world_create(&d, &w, err, sizeof err);
    if (s != CTN_OK) {
        CHECK(backend == CTN_BACKEND_OPENCL, "create (%d threads): %s", threads, err);
        return NULL;
    }
    CHECK(ctn_scene_from_spec(w, "chain:3000") == CTN_OK, "%s", ctn_world_last_error(w));
    return w;
}

static int step_threads(ctn_world *w) {
    CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_step_stats st;
    ctn_world_get_stats(w, &st);
    return st.threads;
}

/* Body states after STEPS steps on `threads` threads (caller frees). */
static ctn_body_state *states(int threads) {
    ctn_world *w = chain_world(threads, CTN_BACKEND_CPU);
    if (!w) return NULL;
    for (int k = 0; k < STEPS; ++k) CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_body_state *out = calloc(LINKS, sizeof *out);
    for (int i = 0; i < LINKS; ++i) CHECK(ctn_body_get_state(w, HBODY(w, i), &out[i]) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_world_destroy(w);
    return out;
}

int main(void) {
    cpu_set_t all;
    CPU_ZERO(&all);
    CHECK(sched_getaffinity(0, sizeof all, &all) == 0, "sched_getaffinity");
    int cpus = CPU_COUNT(&all);

    ctn_world *w = chain_world(0, CTN_BACKEND_CPU);
#ifdef CATENA_TEST_OPENMP
    int expected = cpus;
#else
    int expected = 1;
#endif
    int t = step_threads(w);
    CHECK(t == expected, "threads = 0: the step ran on %d threads, the affinity mask holds %d CPUs", t, cpus);
    /* this thread moved to its first CPU: the next step runs on one */
    int first = -1;
    for (int c = 0; c < CPU_SETSIZE && first < 0; ++c)
        if (CPU_ISSET(c, &all)) first = c;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    CHECK(sched_setaffinity(0, sizeof one, &one) == 0, "sched_setaffinity");
    t = step_threads(w);
    CHECK(t == 1, "threads = 0 on one CPU: the step ran on %d threads", t);
    CHECK(sched_setaffinity(0, sizeof all, &all) == 0, "sched_setaffinity back");
    t = step_threads(w);
    CHECK(t == expected, "back on %d CPUs: the step ran on %d threads", cpus, t);
    ctn_world_destroy(w);

#ifdef CATENA_TEST_OPENMP
    w = chain_world(3, CTN_BACKEND_CPU);
    t = step_threads(w);
    CHECK(t == 3, "threads = 3: the step ran on %d threads", t);
    ctn_world_destroy(w);
#endif

    /* the OpenCL backend runs no OpenMP loop of its own */
    w = chain_world(2, CTN_BACKEND_OPENCL);
    if (w) {
        t = step_threads(w);
        CHECK(t == 0, "OpenCL backend: threads %d, expected 0", t);
        ctn_world_destroy(w);
    }

    /* out of range: refused, naming the field and the value */
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.threads = CTN_MAX_THREADS + 1;
    char err[512] = "";
    ctn_world *bad = NULL;
    CHECK(ctn_world_create(&d, &bad, err, sizeof err) == CTN_ERR_INVALID_ARGUMENT && !bad, "threads %d accepted", d.threads);
    CHECK(strstr(err, "desc.threads") && strstr(err, "1025"), "message: %s", err);

    /* the same bits on any thread count */
    ctn_body_state *a = states(1), *b = states(2), *c = states(3), *z = states(0);
    CHECK(a && b && c && z, "runs");
    if (a && b && c && z) {
        CHECK(memcmp(a, b, LINKS * sizeof *a) == 0, "1 and 2 threads differ");
        CHECK(memcmp(a, c, LINKS * sizeof *a) == 0, "1 and 3 threads differ");
        CHECK(memcmp(a, z, LINKS * sizeof *a) == 0, "1 thread and the automatic count differ");
        CHECK(a[LINKS - 1].position[1] < -0.01, "the chain fell (end y %g)", a[LINKS - 1].position[1]);
    }
    free(a), free(b), free(c), free(z);
    return check_report("threads");
}
