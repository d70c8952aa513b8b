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

#ifdef __cplusplus
}
#endif

#endif
