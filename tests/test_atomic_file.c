/* The one opener of output files (host/io/atomic_file.c):
 *  - the temporaries of dead writers ("NAME.tmp.PID" of a PID that no longer exists) beside PATH are
 *    removed when PATH is opened, and nothing else: a live writer's, a PID with a leading zero or a
 *    suffix, another NAME, a directory of that name; the directory is listed once per thread (the later
 *    opens remove what that listing found) and, holding more dead writers' files than the cache keeps,
 *    listed at every open;
 *  - a character device (made by mknod in a scratch folder: never the real /dev/null) is written in place
 *    and stays a device, and ctn_world_save to it writes a checkpoint; a block device and a directory are
 *    refused, and a world saved over them is unchanged on disk.
 * The device part is skipped (the rest still runs) where mknod is not permitted. */
#define _XOPEN_SOURCE 700
#include "check.h"
#include "io/atomic_file.h"

#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static void touch(const char *dir, const char *name) {
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (f) fputs("leftover\n", f), fclose(f);
}

static int exists(const char *dir, const char *name) {
    char p[1024];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return lstat(p, &st) == 0;
}

/* A process id that existed and no longer does (a child that exited and was reaped). */
static long dead_pid(void) {
    pid_t c = fork();
    if (c == 0) _exit(0);
    waitpid(c, NULL, 0);
    return (long)c;
}

static void stale_temporaries(const char *dir) {
    long dead = dead_pid(), self = (long)getpid();
    char name[128], path[1024];
    const char *kept[6];
    char buf[6][128];
    snprintf(buf[0], 128, "a.tmp.%ld", self);      /* a live writer's (this process) */
    snprintf(buf[1], 128, "a.tmp.0%ld", dead);     /* leading zero: not a name we write */
    snprintf(buf[2], 128, "a.tmp.%ldx", dead);     /* suffix */
    snprintf(buf[3], 128, "ab.tmp.%ld", dead);     /* another NAME, kept until ab is written */
    snprintf(buf[4], 128, "a.tmp.%ld.bak", dead);  /* suffix */
    snprintf(buf[5], 128, "a.tmp.1");              /* a directory of the pattern's name (pid 1 lives anyway) */
    for (int k = 0; k < 6; ++k) kept[k] = buf[k], k == 5 ? (void)0 : touch(dir, buf[k]);
    snprintf(path, sizeof path, "%s/%s", dir, buf[5]);
    mkdir(path, 0777);
    snprintf(name, sizeof name, "a.tmp.%ld", dead);
    touch(dir, name);
    snprintf(path, sizeof path, "%s/a", dir);
    CHECK(ctn__atomic_sweep_stale(path) == 1 && !exists(dir, name), "a.tmp.DEAD removed");
    for (int k = 0; k < 6; ++k) CHECK(exists(dir, kept[k]), "%s kept", kept[k]);
    /* the listing was remembered: ab's dead temporary goes when ab is written, without a new listing */
    snprintf(path, sizeof path, "%s/ab", dir);
    CHECK(ctn__atomic_sweep_stale(path) == 1 && !exists(dir, buf[3]), "ab.tmp.DEAD removed from the remembered listing");
    /* a new dead writer's file appearing after the listing is left to the next process (no new listing) */
    snprintf(name, sizeof name, "c.tmp.%ld", dead);
    touch(dir, name);
    snprintf(path, sizeof path, "%s/c", dir);
    CHECK(ctn__atomic_sweep_stale(path) == 0 && exists(dir, name), "a later leftover waits for the next listing");
    /* opening through the opener sweeps too, and commits PATH */
    ctn_atomic_file out;
    char msg[256];
    snprintf(name, sizeof name, "d.tmp.%ld", dead);
    touch(dir, name);
    snprintf(path, sizeof path, "%s/d", dir);
    char other[512];
    snprintf(other, sizeof other, "%s/sub", dir); /* another directory: d's directory is listed anew later */
    mkdir(other, 0777);
    for (int k = 0; k < 4; ++k) { /* push dir out of the four remembered directories */
        char p[600];
        snprintf(p, sizeof p, "%s/sub/f%d", dir, k);
        mkdir(p, 0777);
        snprintf(p, sizeof p, "%s/sub/f%d/x", dir, k);
        ctn__atomic_sweep_stale(p);
    }
    CHECK(ctn__atomic_open(&out, path, msg, sizeof msg) && out.tmp != NULL, "open d: %s", msg);
    if (out.f) fputs("d\n", out.f);
    CHECK(ctn__atomic_commit(&out, msg, sizeof msg), "commit d: %s", msg);
    CHECK(!exists(dir, name) && exists(dir, "d"), "the opener removed d.tmp.DEAD and wrote d");
    /* more dead writers' files than the cache keeps: listed at every open, each still removed */
    snprintf(other, sizeof other, "%s/many", dir);
    mkdir(other, 0777);
    for (int k = 0; k < 12; ++k) {
        snprintf(name, sizeof name, "m%d.tmp.%ld", k, dead);
        touch(other, name);
    }
    for (int k = 0; k < 12; ++k) {
        snprintf(path, sizeof path, "%s/m%d", other, k);
        snprintf(name, sizeof name, "m%d.tmp.%ld", k, dead);
        CHECK(ctn__atomic_sweep_stale(path) == 1 && !exists(other, name), "m%d.tmp.DEAD removed (overflowing directory)", k);
    }
}

static void devices(const char *dir) {
    char null_path[512], blk_path[512], msg[256];
    snprintf(null_path, sizeof null_path, "%s/null", dir);
    snprintf(blk_path, sizeof blk_path, "%s/blk", dir);
    if (mknod(null_path, S_IFCHR | 0666, makedev(1, 3)) != 0) {
        printf("atomic_file: mknod not permitted here: the device checks are skipped\n");
        return;
    }
    ctn_atomic_file out;
    CHECK(ctn__atomic_open(&out, null_path, msg, sizeof msg) && out.tmp == NULL, "a character device is opened in place: %s", msg);
    if (out.f) fputs("bytes\n", out.f);
    CHECK(ctn__atomic_commit(&out, msg, sizeof msg), "commit to the device: %s", msg);
    struct stat st;
    CHECK(stat(null_path, &st) == 0 && S_ISCHR(st.st_mode), "still a character device");
    /* a checkpoint through the library's writer */
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "create: %s", err);
    if (w) {
        ctn_scene_from_spec(w, "chain:4");
        CHECK(ctn_world_save(w, null_path, 0, NULL) == CTN_OK, "save to the device: %s", ctn_world_last_error(w));
        CHECK(stat(null_path, &st) == 0 && S_ISCHR(st.st_mode), "still a character device after ctn_world_save");
        CHECK(ctn_world_save(w, dir, 0, NULL) == CTN_ERR_IO && strstr(ctn_world_last_error(w), "is a directory"), "a directory: %s",
              ctn_world_last_error(w));
        /* a block node of no device (major 259 is blkext; minor 999999 is none): refused before any open */
        if (mknod(blk_path, S_IFBLK | 0600, makedev(259, 999999)) == 0) {
            CHECK(ctn_world_save(w, blk_path, 0, NULL) == CTN_ERR_IO && strstr(ctn_world_last_error(w), "is a block device"),
                  "a block device: %s", ctn_world_last_error(w));
            CHECK(stat(blk_path, &st) == 0 && S_ISBLK(st.st_mode), "still a block device");
            remove(blk_path);
        }
        ctn_world_destroy(w);
    }
    remove(null_path);
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
    (void)st, (void)type, (void)ftw;
    return remove(path) != 0;
}

int main(void) {
    char dir[] = "/tmp/catena-atomic-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    stale_temporaries(dir);
    devices(dir);
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return check_report("atomic_file");
}
