/* Atomic output files (atomic_file.h): temporary file + fsync + rename(2), which POSIX makes atomic
 * within one file system. The one implementation: the library's writers (ParaView frames, checkpoints)
 * and the CLI's outputs (host/cli/outfile.c) use it. */
#define _POSIX_C_SOURCE 200809L
#include "io/atomic_file.h"
#include "core/alloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
        errno = ENOMEM; /* the caller's status: CTN_ERR_OUT_OF_MEMORY, not CTN_ERR_IO */
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

int ctn__atomic_is_stdout(const char *path) { return !strcmp(path, "-"); }

int ctn__atomic_is_special(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

int ctn__atomic_open_output(ctn_atomic_file *a, const char *path, char *msg, size_t msg_size) {
    memset(a, 0, sizeof *a);
    if (!ctn__atomic_is_stdout(path) && !ctn__atomic_is_special(path)) {
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            snprintf(msg, msg_size, "%s: is a directory", path);
            return 0;
        }
        return ctn__atomic_open(a, path, msg, msg_size);
    }
    size_t n = strlen(path);
    a->path = ctn__malloc(n + 1);
    if (!a->path) {
        snprintf(msg, msg_size, "%s: out of memory", path);
        errno = ENOMEM;
        return 0;
    }
    memcpy(a->path, path, n + 1);
    a->f = ctn__atomic_is_stdout(path) ? stdout : fopen(path, "wb");
    if (!a->f) {
        snprintf(msg, msg_size, "%s: cannot open: %s", path, strerror(errno));
        release(a);
        return 0;
    }
    return 1;
}

/* An output written in place: flushed, closed unless it is standard output. */
static int commit_in_place(ctn_atomic_file *a, char *msg, size_t msg_size) {
    int bad = ferror(a->f) || fflush(a->f) != 0;
    int e = errno;
    if (a->f != stdout && fclose(a->f) != 0 && !bad) bad = 1, e = errno;
    a->f = NULL;
    if (bad) snprintf(msg, msg_size, "%s: write failed: %s", a->path, strerror(e));
    release(a);
    return !bad;
}

int ctn__atomic_commit(ctn_atomic_file *a, char *msg, size_t msg_size) {
    if (!a->f) {
        snprintf(msg, msg_size, "output file is not open");
        release(a);
        return 0;
    }
    if (!a->tmp) return commit_in_place(a, msg, msg_size);
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
    if (a->f && a->f != stdout) fclose(a->f);
    if (a->tmp) remove(a->tmp);
    release(a);
}
