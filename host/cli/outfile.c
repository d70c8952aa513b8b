/* Atomic output files: everything is written to PATH.tmp.PID and renamed onto PATH only when complete, so
 * a reader never sees a partial file and a failed run leaves none behind. Standard output ("-") and an
 * existing path that is not a regular file (/dev/stdout, a FIFO, a terminal) are written in place instead:
 * renaming a temporary file over them would replace the device or link with a plain file. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static void out_free(ctn_outfile *o) {
    free(o->path);
    free(o->tmp);
    o->path = o->tmp = NULL;
    o->f = NULL;
}

int ctn_out_is_stdout(const char *path) { return !strcmp(path, "-"); }

/* An existing path that is not a regular file (stat follows links, so /dev/stdout counts). */
static int is_special(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

static int open_in_place(ctn_outfile *o, const char *path, char *err, size_t err_size) {
    o->path = strdup(path);
    if (!o->path) {
        snprintf(err, err_size, "%s: out of memory", path);
        return 0;
    }
    o->f = ctn_out_is_stdout(path) ? stdout : fopen(path, "wb");
    if (!o->f) {
        snprintf(err, err_size, "%s: cannot open: %s", path, strerror(errno));
        out_free(o);
        return 0;
    }
    return 1;
}

int ctn_out_open(ctn_outfile *o, const char *path, char *err, size_t err_size) {
    memset(o, 0, sizeof *o);
    if (ctn_out_is_stdout(path) || is_special(path)) return open_in_place(o, path, err, err_size);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, err_size, "%s: is a directory", path);
        return 0;
    }
    size_t n = strlen(path);
    o->path = malloc(n + 1);
    o->tmp = malloc(n + 32);
    if (!o->path || !o->tmp) {
        out_free(o);
        snprintf(err, err_size, "%s: out of memory", path);
        return 0;
    }
    memcpy(o->path, path, n + 1);
    snprintf(o->tmp, n + 32, "%s.tmp.%ld", path, (long)getpid());
    o->f = fopen(o->tmp, "wb");
    if (!o->f) {
        snprintf(err, err_size, "%s: cannot create: %s", path, strerror(errno));
        out_free(o);
        return 0;
    }
    return 1;
}

int ctn_out_commit(ctn_outfile *o, char *err, size_t err_size) {
    if (!o->f) {
        snprintf(err, err_size, "output file is not open");
        return 0;
    }
    int bad = ferror(o->f) || fflush(o->f) != 0;
    int e = errno;
    if (o->f != stdout && fclose(o->f) != 0) bad = 1, e = errno;
    o->f = NULL;
    if (!o->tmp) { /* written in place */
        if (bad) snprintf(err, err_size, "%s: write failed: %s", o->path, strerror(e));
        out_free(o);
        return !bad;
    }
    if (bad) {
        snprintf(err, err_size, "%s: write failed: %s", o->path, strerror(e));
        remove(o->tmp);
        out_free(o);
        return 0;
    }
    if (rename(o->tmp, o->path) != 0) {
        snprintf(err, err_size, "%s: cannot replace: %s", o->path, strerror(errno));
        remove(o->tmp);
        out_free(o);
        return 0;
    }
    out_free(o);
    return 1;
}

void ctn_out_abort(ctn_outfile *o) {
    if (o->f && o->f != stdout) fclose(o->f);
    if (o->tmp) remove(o->tmp);
    out_free(o);
}

int ctn_out_check(const char *path, char *err, size_t err_size) {
    if (ctn_out_is_stdout(path) || is_special(path)) return 1; /* opening a FIFO would wait for its reader */
    ctn_outfile o;
    if (!ctn_out_open(&o, path, err, err_size)) return 0;
    ctn_out_abort(&o); /* removes the temporary file; PATH itself is untouched */
    return 1;
}

int ctn_make_dir(const char *path, char *err, size_t err_size) {
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) return 1;
        snprintf(err, err_size, "%s: exists and is not a directory", path);
        return 0;
    }
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        snprintf(err, err_size, "%s: cannot create directory: %s", path, strerror(errno));
        return 0;
    }
    return 1;
}
