/* The CLI's output files: host/io/atomic_file.c writes them (PATH.tmp.PID renamed onto PATH when complete;
 * "-" and existing special files such as /dev/stdout or a FIFO in place), this file adds the checks the
 * command line makes before a run. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

int ctn_out_check(const char *path, char *err, size_t err_size) {
    struct stat st;
    if (ctn__atomic_is_stdout(path)) return 1;
    if (stat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) return 1; /* opening a FIFO would wait for its reader */
    ctn_atomic_file o;
    if (!ctn__atomic_open_output(&o, path, err, err_size)) return 0;
    ctn__atomic_abort(&o); /* removes the temporary file; PATH itself is untouched */
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
