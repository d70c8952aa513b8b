/* The allocation hook (ctn_set_allocator): every library block goes through it, it cannot change while the
 * library holds blocks, and a steady-state step allocates nothing: after warm-up steps that reach the
 * scene's largest counts, further steps of a chain, a pile with contacts and a bridge with contacts make
 * no call to the allocator. `test_alloc` checks the CPU backend, `test_alloc opencl` (CTest:
 * test_alloc_opencl) the OpenCL backend's host side, skipped (exit 77) without an OpenCL device. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "check.h"
#include "opencl_lsan.h" /* PoCL/LLVM allocations kept until exit (the OpenCL half compiles the kernels) */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct counter {
    long mallocs, reallocs, frees, live;
} counter;

static void *count_malloc(size_t size, void *user) {
    counter *c = user;
    c->mallocs++;
    c->live++;
    return malloc(size);
}

static void *count_realloc(void *p, size_t size, void *user) {
    counter *c = user;
    c->reallocs++;
    return realloc(p, size);
}

static void count_free(void *p, void *user) {
    counter *c = user;
    c->frees++;
    c->live--;
    free(p);
}

/* Steps `warm` steps, then `steps` more; returns the allocator calls (malloc + realloc) of the latter, or
 * -1 when the world cannot be made (no OpenCL device). */
static long steady_allocations(counter *k, ctn_backend backend, const char *spec, int warm, int steps) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = backend;
    ctn_world *w = NULL;
    char err[512];
    long before = k->mallocs;
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        CHECK(backend == CTN_BACKEND_OPENCL, "%s: %s", spec, err);
        return -1;
    }
    CHECK(ctn_scene_from_spec(w, spec) == CTN_OK, "%s: %s", spec, ctn_world_last_error(w));
    CHECK(k->mallocs > before, "%s: creating the world and its scene went through the allocator", spec);
    for (int i = 0; i < warm; ++i) CHECK(ctn_world_step(w) == CTN_OK, "%s warm-up step %d: %s", spec, i, ctn_world_last_error(w));
    long m0 = k->mallocs, r0 = k->reallocs, f0 = k->frees;
    ctn_step_stats s;
    memset(&s, 0, sizeof s);
    int most = 0;
    for (int i = 0; i < steps; ++i) {
        CHECK(ctn_world_step(w) == CTN_OK, "%s step %d: %s", spec, warm + i, ctn_world_last_error(w));
        ctn_world_get_stats(w, &s);
        if (s.contacts > most) most = s.contacts;
    }
    long calls = (k->mallocs - m0) + (k->reallocs - r0);
    printf("%s on %s: %ld mallocs, %ld reallocs, %ld frees in steps %d-%d (%d contacts at most), %ld blocks held\n", spec,
           ctn_world_backend_name(w), k->mallocs - m0, k->reallocs - r0, k->frees - f0, warm + 1, warm + steps, most,
           ctn_allocated_blocks());
    CHECK(k->frees - f0 == 0, "%s: %ld frees in the steady state", spec, k->frees - f0);
    CHECK(ctn_allocated_blocks() == k->live, "%s: the library counts %ld blocks, the allocator %ld", spec, ctn_allocated_blocks(), k->live);
    ctn_world_destroy(w);
    return calls;
}

int main(int argc, char **argv) {
    int opencl = argc > 1 && !strcmp(argv[1], "opencl");
    ctn_backend backend = opencl ? CTN_BACKEND_OPENCL : CTN_BACKEND_CPU;
    if (opencl) setenv("CATENA_CACHE_DIR", "opencl-cache", 0); /* build-tree binary cache: PoCL builds are slow */
    counter k;
    memset(&k, 0, sizeof k);
    CHECK(ctn_allocated_blocks() == 0, "no block held before the first world (%ld)", ctn_allocated_blocks());
    CHECK(ctn_set_allocator(count_malloc, NULL, count_free, &k) == CTN_ERR_INVALID_ARGUMENT, "a partial allocator is refused");
    CHECK(ctn_set_allocator(count_malloc, count_realloc, count_free, &k) == CTN_OK, "allocator installed");

    /* it cannot change while a world holds blocks from it */
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "world: %s", err);
    CHECK(ctn_allocated_blocks() > 0 && k.live == ctn_allocated_blocks(), "the world's blocks came from the allocator (%ld, %ld)",
          ctn_allocated_blocks(), k.live);
    CHECK(ctn_set_allocator(NULL, NULL, NULL, NULL) == CTN_ERR_IN_USE, "the allocator cannot change while a world is alive");
    ctn_world_destroy(w);
    CHECK(k.live == 0 && ctn_allocated_blocks() == 0, "destroying the world freed every block (%ld live)", k.live);

    /* steady state: warm-up long enough for the piles to settle at their largest contact counts */
    static const struct {
        const char *spec;
        int warm, steps;
    } scenes[] = {
        {"chain:200", 3, 60},            /* joints only */
        {"pile:60", 240, 60},            /* spheres settled in a pile on the floor: contacts */
        {"capsule_chain:100", 240, 60},  /* a chain coiled on the floor: contacts next to ball joints */
        {"bridge_limits:10", 240, 60},   /* a bridge with limits, loaded by falling boxes: contacts */
        {"bridge:20", 3, 60},            /* a plank bridge: joints only */
    };
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; ++i) {
        long calls = steady_allocations(&k, backend, scenes[i].spec, scenes[i].warm, scenes[i].steps);
        if (calls < 0) {
            ctn_set_allocator(NULL, NULL, NULL, NULL);
            return check_failures ? check_report("alloc_opencl") : check_skip("alloc_opencl", "no OpenCL platform or device");
        }
        CHECK(calls == 0, "%s: %ld allocator calls in the steady-state steps", scenes[i].spec, calls);
    }
    CHECK(k.live == 0 && ctn_allocated_blocks() == 0, "every block freed (%ld live, the library counts %ld)", k.live, ctn_allocated_blocks());
    CHECK(ctn_set_allocator(NULL, NULL, NULL, NULL) == CTN_OK, "libc's allocator back");
    return check_report(opencl ? "alloc_opencl" : "alloc");
}
