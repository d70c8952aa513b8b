/* The library's allocation functions (host/core/alloc.c): every block the library allocates goes through
 * the allocator set with ctn_set_allocator (libc's by default). Library code calls these, never malloc,
 * calloc, realloc, free or strdup directly (the test `raw_allocations` checks the library's objects). */
#ifndef CTN_HOST_ALLOC_H
#define CTN_HOST_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* As malloc, calloc (checks n * size for overflow), realloc, free and strdup. A size of 0 allocates 1 byte,
 * so NULL always means out of memory. */
void *ctn__malloc(size_t size);
void *ctn__calloc(size_t n, size_t size);
void *ctn__realloc(void *p, size_t size);
void ctn__free(void *p);
char *ctn__strdup(const char *s);

/* Grows the array `ptr` to `n` elements in place through ctn__realloc (tmp: a void * to hold the result):
 * 1 with ptr at the grown block (its first elements unchanged), 0 when out of memory (ptr unchanged and still
 * valid). Growing an array this way rather than by a fresh block, a copy and a free keeps the old and the new
 * block from being resident at once where the allocator can move a block without copying it (glibc moves
 * one mapped on its own, above its mmap threshold, with mremap), and frees no block: glibc raises its
 * mmap threshold to the size of a freed mapped block, so freeing the old arrays as a world grows sends the
 * next arrays of up to that size (the solver's layouts and scratch) to the heap, whose freed pages it keeps
 * resident. */
#define CTN__REGROW(ptr, n, tmp) (((tmp) = ctn__realloc((ptr), (n) * sizeof *(ptr))) != NULL ? ((ptr) = (tmp), 1) : 0)

#ifdef __cplusplus
}
#endif

#endif
