/* Atomic output files (atomic_file.h): temporary file + fsync + rename(2), which POSIX makes atomic
 * within one file system. */
#define _POSIX_C_SOURCE 200809L
#include "io/atomic_file.h"
#include "core/alloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void release(ctn_atomic_file *a) {
    ctn__free(a->path);
    ctn__free(a->tmp);
    a->path = a->tmp = NULL;
    a->f = NULL;
}

int ctn__atomic_open(ctn_atomic_file *a, const char *path, char *msg, size_t msg_size) {
    memset(a, 0, sizeof *a);
    size_t n = strlen(path);
    a->path = ctn__malloc(n + 1);
    a->tmp = ctn__malloc(n + 32);
    if (!a->path || !a->tmp) {
        release(a);
        snprintf(msg, msg_size, "%s: out of memory", path);
        return 0;
    }
    memcpy(a->path, path, n + 1);
    snprintf(a->tmp, n + 32, "%s.tmp.%ld", path, (long)getpid());
    a->f = fopen(a->tmp, "wb");
    if (!a->f) {
        snprintf(msg, msg_size, "%s: cannot create: %s", a->tmp, strerror(errno));
        release(a);
        return 0;
    }
    return 1;
}

int ctn__atomic_commit(ctn_atomic_file *a, char *msg, size_t msg_size) {
    if (!a->f) {
        snprintf(msg, msg_size, "output file is not open");
        release(a);
        return 0;
    }
    int bad = ferror(a->f) || fflush(a->f) != 0 || fsync(fileno(a->f)) != 0;
    int e = errno;
    if (fclose(a->f) != 0 && !bad) bad = 1, e = errno;
    a->f = NULL;
    if (!bad && rename(a->tmp, a->path) != 0) {
        snprintf(msg, msg_size, "%s: cannot replace: %s", a->path, strerror(errno));
        remove(a->tmp);
        release(a);
        return 0;
    }
    if (bad) {
        snprintf(msg, msg_size, "%s: write failed: %s", a->path, strerror(e));
        remove(a->tmp);
    }
    release(a);
    return !bad;
}

void ctn__atomic_abort(ctn_atomic_file *a) {
    if (a->f) fclose(a->f);
    if (a->tmp) remove(a->tmp);
    release(a);
}
