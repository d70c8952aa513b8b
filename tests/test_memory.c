/* Memory per link: the bytes the library holds at its peak (every block through the allocation hook,
 * ctn_set_allocator) while it builds and steps chain:N, less those of chain:10 with the same settings, per
 * link added. Gauss-Seidel 10x1 and the exact solver 1x1 (velocity step) on the CPU backend, one thread;
 * each must stay within its bound, so a change that makes a link heavier fails here rather than in a
 * benchmark nobody reran. The bounds are the allocated bytes measured when they were set plus about 8%
 * (the arrays grow by half their size, so one more array per joint shows as 1.5 times its element size);
 * resident memory is lower (pages of the headroom never touched), bench/instructions.sh measures it. */
#include "catena/catena.h"
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every block carries its size in a 16-byte header (16 keeps malloc's alignment for the library's doubles). */
typedef struct tally {
    long long live, peak;
} tally;

static void *tally_malloc(size_t size, void *user) {
    tally *t = user;
    unsigned char *p = malloc(size + 16);
    if (!p) return NULL;
    memcpy(p, &size, sizeof size);
    t->live += (long long)size;
    if (t->live > t->peak) t->peak = t->live;
    return p + 16;
}

static void tally_free(void *q, void *user) {
    if (!q) return;
    tally *t = user;
    unsigned char *p = (unsigned char *)q - 16;
    size_t size;
    memcpy(&size, p, sizeof size);
    t->live -= (long long)size;
    free(p);
}

static void *tally_realloc(void *q, size_t size, void *user) {
    if (!q) return tally_malloc(size, user);
    tally *t = user;
    unsigned char *p = (unsigned char *)q - 16;
    size_t old;
    memcpy(&old, p, sizeof old);
    unsigned char *r = realloc(p, size + 16);
    if (!r) return NULL;
    memcpy(r, &size, sizeof size);
    t->live += (long long)size - (long long)old;
    if (t->live > t->peak) t->peak = t->live;
    return r + 16;
}

/* Peak bytes held while a world is created, given chain:links and stepped twice; -1 on failure. */
static long long peak_bytes(tally *t, ctn_solver solver, int links) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.threads = 1;
    d.solver = solver;
    d.substeps = 1;
    d.iterations = solver == CTN_SOLVER_GS ? 10 : 1;
    d.integrator = CTN_INTEGRATOR_VELOCITY;
    t->live = t->peak = 0;
    ctn_world *w = NULL;
    char err[512], spec[64];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        CHECK(0, "world: %s", err);
        return -1;
    }
    snprintf(spec, sizeof spec, "chain:%d", links);
    int ok = ctn_scene_from_spec(w, spec) == CTN_OK;
    CHECK(ok, "%s: %s", spec, ctn_world_last_error(w));
    for (int i = 0; ok && i < 2; ++i) {
        ok = ctn_world_step(w) == CTN_OK;
        CHECK(ok, "%s step %d: %s", spec, i, ctn_world_last_error(w));
    }
    ctn_world_destroy(w);
    CHECK(t->live == 0, "%s: every byte freed (%lld held)", spec, t->live);
    return ok ? t->peak : -1;
}

int main(void) {
    tally t = {0, 0};
    CHECK(ctn_set_allocator(tally_malloc, tally_realloc, tally_free, &t) == CTN_OK, "allocator installed");
    enum { SMALL = 10, LINKS = 50000 };
    static const struct {
        const char *name;
        ctn_solver solver;
        double bound; /* bytes per link */
    } cases[] = {
        {"gs 10x1", CTN_SOLVER_GS, 575.0},
        {"direct 1x1", CTN_SOLVER_DIRECT, 815.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        long long small = peak_bytes(&t, cases[i].solver, SMALL), big = peak_bytes(&t, cases[i].solver, LINKS);
        if (small < 0 || big < 0) continue;
        double per_link = (double)(big - small) / (LINKS - SMALL);
        printf("%s: peak %lld bytes at chain:%d, %lld at chain:%d: %.0f bytes per link (bound %.0f)\n", cases[i].name, big,
               (int)LINKS, small, (int)SMALL, per_link, cases[i].bound);
        CHECK(per_link <= cases[i].bound, "%s: %.0f bytes per link allocated at the peak, more than %.0f", cases[i].name, per_link,
              cases[i].bound);
        CHECK(per_link >= 100.0, "%s: %.0f bytes per link is too few to be the measure of a chain", cases[i].name, per_link);
    }
    CHECK(ctn_set_allocator(NULL, NULL, NULL, NULL) == CTN_OK, "libc's allocator back");
    return check_report("memory");
}
