/* Whole files for the tests that compare checkpoints or scenes byte for byte or read a document:
 * test_read_file (the bytes, NUL-terminated) and test_same_files (two non-empty files with the same bytes). */
#ifndef CTN_TEST_FILES_H
#define CTN_TEST_FILES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole file at path, malloc'ed and NUL-terminated, its length in *size when size is not NULL; NULL when
 * it cannot be opened or read (then *size is 0). */
static inline char *test_read_file(const char *path, size_t *size) {
    if (size) *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) free(buf), buf = NULL;
    fclose(f);
    if (!buf) return NULL;
    buf[n] = '\0';
    if (size) *size = (size_t)n;
    return buf;
}

/* Whether the files at a and b both read, are not empty (a checkpoint or a scene never is) and hold the same
 * bytes. */
static inline int test_same_files(const char *a, const char *b) {
    size_t na = 0, nb = 0;
    char *x = test_read_file(a, &na), *y = test_read_file(b, &nb);
    int same = x && y && na > 0 && na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

#endif
