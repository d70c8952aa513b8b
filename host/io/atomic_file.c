/* Atomic output files (atomic_file.h): temporary file + fsync + rename(2), which POSIX makes atomic
 * within one file system. The one opener of every output: the library's writers (ParaView frames,
 * checkpoints) and the CLI's outputs (host/cli/outfile.c) use it. A path that names a device or a FIFO is
 * written in place: rename(2) onto it would replace the device node itself (as root, `--checkpoint
 * /dev/null` would have destroyed the system's /dev/null). */
#define _POSIX_C_SOURCE 200809L
#include "io/atomic_file.h"
#include "core/alloc.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define TMP_TAG ".tmp."

static void release(ctn_atomic_file *a) {
    ctn__free(a->path);
    ctn__free(a->tmp);
    a->path = a->tmp = NULL;
    a->f = NULL;
}

int ctn__atomic_is_stdout(const char *path) { return !strcmp(path, "-"); }

int ctn__atomic_is_special(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* The process id in the name of a temporary file of ours ("NAME.tmp.PID", PID decimal without a leading
 * zero, nothing after it) whose NAME is `base` (base_len bytes; base NULL: any NAME), else 0. */
static long temp_pid(const char *name, const char *base, size_t base_len) {
    const char *tag = NULL;
    if (base) {
        if (strncmp(name, base, base_len) != 0 || strncmp(name + base_len, TMP_TAG, sizeof TMP_TAG - 1) != 0) return 0;
        tag = name + base_len;
    } else {
        for (const char *t = strstr(name, TMP_TAG); t; t = strstr(t + 1, TMP_TAG)) tag = t; /* the last one */
        if (!tag || tag == name) return 0;
    }
    const char *p = tag + sizeof TMP_TAG - 1;
    if (*p < '1' || *p > '9') return 0;
    long pid = 0;
    for (; *p; ++p) {
        if (*p < '0' || *p > '9' || pid > 99999999) return 0; /* Linux caps pids at 2^22 */
        pid = pid * 10 + (*p - '0');
    }
    return pid;
}

/* Whether process `pid` no longer exists: kill(pid, 0) probes without signalling; ESRCH is "no such
 * process" (EPERM means alive and someone else's). */
static int pid_dead(long pid) { return pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH; }

/* Removes DIR/NAME if it is a regular file (lstat: a link or a directory of that name is left alone). */
static int remove_regular(const char *dir, const char *name) {
    size_t n = strlen(dir) + strlen(name) + 2;
    char *victim = ctn__malloc(n);
    if (!victim) return 0;
    snprintf(victim, n, "%s/%s", dir, name);
    struct stat st;
    int removed = lstat(victim, &st) == 0 && S_ISREG(st.st_mode) && unlink(victim) == 0;
    ctn__free(victim);
    return removed;
}

/* Per thread, the directories listed last and the temporaries of dead writers found there, so that a VTK
 * series (thousands of frames in one directory) lists its directory once, not at every frame (which cost
 * O(frames^2): 1.3 s of system time more for 3000 frames). A directory with more than STALE_NAMES such
 * files, or a longer name than these buffers hold, is listed at every open instead. Fixed buffers: the
 * cache allocates nothing that would outlive a call. */
#define STALE_DIRS 4
#define STALE_NAMES 8
typedef struct stale_dir {
    char dir[512];                /* "" : unused */
    int count, overflow;
    char names[STALE_NAMES][256]; /* "NAME.tmp.PID" of dead PIDs, any NAME */
} stale_dir;
static _Thread_local stale_dir t_stale[STALE_DIRS];
static _Thread_local int t_stale_next;

/* Lists dir: removes base's dead temporaries and, with a cache slot, remembers the others. */
static int scan_dir(const char *dir, const char *base, size_t base_len, stale_dir *slot) {
    int removed = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (pid_dead(temp_pid(e->d_name, base, base_len))) {
            removed += remove_regular(dir, e->d_name);
        } else if (slot && pid_dead(temp_pid(e->d_name, NULL, 0))) {
            if (slot->count < STALE_NAMES && strlen(e->d_name) < sizeof slot->names[0])
                snprintf(slot->names[slot->count++], sizeof slot->names[0], "%s", e->d_name);
            else slot->overflow = 1;
        }
    }
    if (d) closedir(d);
    return removed;
}

int ctn__atomic_sweep_stale(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t base_len = strlen(base), dir_len = slash ? (size_t)(slash - path) : 1;
    if (!base_len) return 0;
    char *dir = ctn__malloc(dir_len + 2);
    if (!dir) return 0;
    if (!slash) snprintf(dir, dir_len + 2, ".");
    else if (dir_len == 0) snprintf(dir, dir_len + 2, "/");
    else snprintf(dir, dir_len + 2, "%.*s", (int)dir_len, path);
    int removed = 0;
    stale_dir *slot = NULL;
    for (int k = 0; k < STALE_DIRS && !slot; ++k)
        if (t_stale[k].dir[0] && !strcmp(t_stale[k].dir, dir)) slot = &t_stale[k];
    if (slot && slot->overflow) { /* too many to remember: listed every time */
        removed = scan_dir(dir, base, base_len, NULL);
    } else if (slot) { /* listed before by this thread: only the dead writers' files found then */
        for (int k = 0; k < slot->count;) {
            if (temp_pid(slot->names[k], base, base_len) <= 0) {
                ++k;
                continue;
            }
            if (pid_dead(temp_pid(slot->names[k], base, base_len))) removed += remove_regular(dir, slot->names[k]);
            if (k != --slot->count) memcpy(slot->names[k], slot->names[slot->count], sizeof slot->names[0]);
        }
    } else if (strlen(dir) < sizeof t_stale[0].dir) {
        slot = &t_stale[t_stale_next];
        t_stale_next = (t_stale_next + 1) % STALE_DIRS;
        memset(slot, 0, sizeof *slot);
        snprintf(slot->dir, sizeof slot->dir, "%s", dir);
        removed = scan_dir(dir, base, base_len, slot);
    } else {
        removed = scan_dir(dir, base, base_len, NULL);
    }
    ctn__free(dir);
    return removed;
}

int ctn__atomic_open(ctn_atomic_file *a, const char *path, char *msg, size_t msg_size) {
    memset(a, 0, sizeof *a);
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        snprintf(msg, msg_size, "%s: is a directory", path);
        return 0;
    }
    if (exists && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode)) { /* a disk, a socket */
        snprintf(msg, msg_size, "%s: is a %s; outputs go to regular files (replaced atomically), character devices or FIFOs", path,
                 S_ISBLK(st.st_mode) ? "block device" : "socket or other special file");
        return 0;
    }
    int in_place = exists && !S_ISREG(st.st_mode); /* a character device or a FIFO (stat follows links: /dev/stdout too) */
    size_t n = strlen(path);
    a->path = ctn__malloc(n + 1);
    a->tmp = in_place ? NULL : ctn__malloc(n + 32);
    if (!a->path || (!in_place && !a->tmp)) {
        release(a);
        snprintf(msg, msg_size, "%s: out of memory", path);
        errno = ENOMEM;
        return 0;
    }
    memcpy(a->path, path, n + 1);
    if (in_place) {
        a->f = fopen(path, "wb");
        if (!a->f) {
            snprintf(msg, msg_size, "%s: cannot open: %s", path, strerror(errno));
            release(a);
            return 0;
        }
        return 1;
    }
    ctn__atomic_sweep_stale(path);
    snprintf(a->tmp, n + 32, "%s" TMP_TAG "%ld", path, (long)getpid());
    a->f = fopen(a->tmp, "wb");
    if (!a->f) {
        snprintf(msg, msg_size, "%s: cannot create: %s", path, strerror(errno)); /* the user's path, not the temporary one */
        release(a);
        return 0;
    }
    return 1;
}

int ctn__atomic_open_output(ctn_atomic_file *a, const char *path, char *msg, size_t msg_size) {
    if (!ctn__atomic_is_stdout(path)) return ctn__atomic_open(a, path, msg, msg_size);
    memset(a, 0, sizeof *a);
    a->path = ctn__malloc(2);
    if (!a->path) {
        snprintf(msg, msg_size, "%s: out of memory", path);
        errno = ENOMEM; /* the caller's status: CTN_ERR_OUT_OF_MEMORY, not CTN_ERR_IO */
        return 0;
    }
    memcpy(a->path, "-", 2);
    a->f = stdout;
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
