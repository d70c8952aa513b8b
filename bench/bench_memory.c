/* Where a link's bytes are: every block the library holds after `chain:N` is built and stepped, with its
 * size and the bytes of it resident, by allocation site. Through the allocation hook (ctn_set_allocator):
 * blocks of 64 KiB and more are mapped on their own (mmap, grown with mremap, as glibc does above its
 * mmap threshold) so that mincore(2) tells how many of their pages the library has touched; smaller ones
 * come from malloc and count as resident. Each block is tagged with the return addresses of its allocation's
 * innermost frames; bench/memory_breakdown.sh turns them into function names
 * (addr2line) and sums them per site, per link.
 *
 *   bench_memory [--links N] [--steps S] [--solver gs|direct] [--iterations I]
 *
 * Output, one line a live block at the end: "links N", "peak_allocated BYTES", then
 * "block SIZE RESIDENT OFFSET..." (six return addresses as
 * offsets from the executable's load address). Linux only (mincore, mremap). */
#define _GNU_SOURCE
#include "catena/catena.h"

#include <stdio.h>

#if !defined(__linux__)
int main(void) {
    fprintf(stderr, "bench_memory: Linux only (mincore, mremap)\n");
    return 2;
}
#else

#include <dlfcn.h>
#include <execinfo.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define BIG (64u * 1024u)

typedef struct rec {
    void *p;
    size_t size;
    void *site[6];
} rec;

static rec *recs;
static size_t nrec, caprec;
static long long live, peak;
static long page;

static size_t mapped(size_t size) { return (size + (size_t)page - 1) / (size_t)page * (size_t)page; }

static rec *find(void *p) {
    for (size_t i = nrec; i-- > 0;)
        if (recs[i].p == p) return &recs[i];
    return NULL;
}

static void note_site(rec *r) {
    /* the hook's own frames, ctn__malloc / ctn__realloc, their callers: memory_breakdown.sh names them and
     * takes the first frame outside this file and the allocation functions */
    int n = backtrace(r->site, 6);
    for (int i = n < 0 ? 0 : n; i < 6; ++i) r->site[i] = NULL;
}

static void *raw_alloc(size_t size) {
    if (size < BIG) return malloc(size);
    void *p = mmap(NULL, mapped(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void raw_free(void *p, size_t size) {
    if (size < BIG) free(p);
    else munmap(p, mapped(size));
}

static void add(void *p, size_t size) {
    if (nrec == caprec) {
        caprec = caprec ? 2 * caprec : 1024;
        recs = realloc(recs, caprec * sizeof *recs);
        if (!recs) abort();
    }
    recs[nrec].p = p, recs[nrec].size = size;
    note_site(&recs[nrec]);
    nrec++;
    live += (long long)size;
    if (live > peak) peak = live;
}

static void *hook_malloc(size_t size, void *user) {
    (void)user;
    void *p = raw_alloc(size);
    if (p) add(p, size);
    return p;
}

static void hook_free(void *p, void *user) {
    (void)user;
    if (!p) return;
    rec *r = find(p);
    if (!r) abort();
    raw_free(p, r->size);
    live -= (long long)r->size;
    *r = recs[--nrec];
}

static void *hook_realloc(void *p, size_t size, void *user) {
    (void)user;
    rec *r = find(p);
    if (!r) abort();
    void *q;
    if (r->size >= BIG && size >= BIG) {
        q = mremap(p, mapped(r->size), mapped(size), MREMAP_MAYMOVE);
        if (q == MAP_FAILED) return NULL;
    } else {
        q = raw_alloc(size);
        if (!q) return NULL;
        memcpy(q, p, r->size < size ? r->size : size);
        raw_free(p, r->size);
    }
    live += (long long)size - (long long)r->size;
    if (live > peak) peak = live;
    r->p = q, r->size = size;
    note_site(r);
    return q;
}

static size_t resident(const rec *r) {
    if (r->size < BIG) return r->size;
    size_t pages = mapped(r->size) / (size_t)page, n = 0;
    unsigned char *v = malloc(pages);
    if (!v || mincore(r->p, mapped(r->size), v) != 0) {
        free(v);
        return r->size;
    }
    for (size_t i = 0; i < pages; ++i) n += v[i] & 1;
    free(v);
    return n * (size_t)page;
}

static long offset(void *a) {
    Dl_info info;
    if (!a || !dladdr(a, &info)) return 0;
    return (long)((char *)a - (char *)info.dli_fbase) - 1; /* a return address: the call is the byte before */
}

int main(int argc, char **argv) {
    int links = 1000000, steps = 2, iterations = -1;
    const char *solver = "direct";
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--links") && i + 1 < argc) links = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--solver") && i + 1 < argc) solver = argv[++i];
        else if (!strcmp(argv[i], "--iterations") && i + 1 < argc) iterations = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_memory [--links N] [--steps S] [--solver gs|direct] [--iterations I]\n");
            return 2;
        }
    }
    page = sysconf(_SC_PAGESIZE);
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.threads = 1;
    d.substeps = 1;
    d.integrator = CTN_INTEGRATOR_VELOCITY;
    d.solver = !strcmp(solver, "gs") ? CTN_SOLVER_GS : CTN_SOLVER_DIRECT;
    d.iterations = iterations > 0 ? iterations : d.solver == CTN_SOLVER_GS ? 10 : 1;
    if (ctn_set_allocator(hook_malloc, hook_realloc, hook_free, NULL) != CTN_OK) return 1;
    ctn_world *w = NULL;
    char err[512], spec[64];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        fprintf(stderr, "bench_memory: %s\n", err);
        return 1;
    }
    snprintf(spec, sizeof spec, "chain:%d", links);
    if (ctn_scene_from_spec(w, spec) != CTN_OK) {
        fprintf(stderr, "bench_memory: %s: %s\n", spec, ctn_world_last_error(w));
        return 1;
    }
    for (int s = 0; s < steps; ++s)
        if (ctn_world_step(w) != CTN_OK) {
            fprintf(stderr, "bench_memory: step %d: %s\n", s, ctn_world_last_error(w));
            return 1;
        }
    printf("links %d\npeak_allocated %lld\n", links, peak);
    for (size_t i = 0; i < nrec; ++i) {
        printf("block %zu %zu", recs[i].size, resident(&recs[i]));
        for (int k = 0; k < 6; ++k) printf(" %lx", offset(recs[i].site[k]));
        printf("\n");
    }
    ctn_world_destroy(w);
    return 0;
}
#endif /* __linux__ */
