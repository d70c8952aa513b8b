/* The allocation hook (ctn_set_allocator, include/catena/catena.h): MuJoCo-style process-wide functions
 * with a user pointer, read on every allocation. Changing them while blocks allocated through the old ones
 * are outstanding would free a block with the wrong function, so the library counts its outstanding
 * blocks and refuses the change while any exist (every world, scene or other library object holds some). */
#include "core/alloc.h"
#include "catena/catena.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static void *libc_malloc(size_t size, void *user) {
    (void)user;
    return malloc(size);
}
static void *libc_realloc(void *p, size_t size, void *user) {
    (void)user;
    return realloc(p, size);
}
static void libc_free(void *p, void *user) {
    (void)user;
    free(p);
}

static ctn_malloc_fn alloc_malloc = libc_malloc;
static ctn_realloc_fn alloc_realloc = libc_realloc;
static ctn_free_fn alloc_free = libc_free;
static void *alloc_user = NULL;
static atomic_long outstanding; /* blocks allocated through the hook and not yet freed */

ctn_status ctn_set_allocator(ctn_malloc_fn malloc_fn, ctn_realloc_fn realloc_fn, ctn_free_fn free_fn, void *user) {
    int given = (malloc_fn != NULL) + (realloc_fn != NULL) + (free_fn != NULL);
    if (given != 0 && given != 3) return CTN_ERR_INVALID_ARGUMENT;
    if (atomic_load(&outstanding) != 0) return CTN_ERR_IN_USE;
    alloc_malloc = malloc_fn ? malloc_fn : libc_malloc;
    alloc_realloc = realloc_fn ? realloc_fn : libc_realloc;
    alloc_free = free_fn ? free_fn : libc_free;
    alloc_user = malloc_fn ? user : NULL;
    return CTN_OK;
}

long ctn_allocated_blocks(void) { return atomic_load(&outstanding); }

void *ctn__malloc(size_t size) {
    void *p = alloc_malloc(size ? size : 1, alloc_user);
    if (p) atomic_fetch_add(&outstanding, 1);
    return p;
}

void *ctn__calloc(size_t n, size_t size) {
    if (size && n > (size_t)-1 / size) return NULL;
    void *p = ctn__malloc(n * size);
    if (p) memset(p, 0, n * size);
    return p;
}

void *ctn__realloc(void *p, size_t size) {
    if (!p) return ctn__malloc(size);
    return alloc_realloc(p, size ? size : 1, alloc_user);
}

void ctn__free(void *p) {
    if (!p) return;
    atomic_fetch_sub(&outstanding, 1);
    alloc_free(p, alloc_user);
}

char *ctn__strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = ctn__malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}
