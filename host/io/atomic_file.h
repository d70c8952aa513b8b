/* Output files written atomically by the library: the bytes go to PATH.tmp.PID, which is flushed, synced
 * and renamed onto PATH only when complete, so a reader (ParaView polling a series, a crashed run) never
 * sees a partial file and a failed write leaves none behind. A PATH that exists and is neither a regular
 * file nor a directory (a character device such as /dev/null, a FIFO, /dev/stdout) is written in place:
 * renaming onto it would replace the device node with a plain file. Opening PATH also removes the
 * PATH.tmp.PID files that processes which no longer exist left behind (killed with SIGKILL mid-write). */
#ifndef CTN_ATOMIC_FILE_H
#define CTN_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

typedef struct ctn_atomic_file {
    FILE *f;   /* write here between open and commit */
    char *path;
    char *tmp; /* NULL when written in place (a device, a FIFO, standard output) */
} ctn_atomic_file;

/* Each returns 1 on success, else 0 with a message naming the file in msg; errno is ENOMEM when the
 * failure was out of memory (the writers then return CTN_ERR_OUT_OF_MEMORY, not CTN_ERR_IO). A directory,
 * a block device (writing a disk in place would destroy its data) and a socket are refused; a character
 * device or a FIFO is opened in place (a FIFO waits for its reader). */
int ctn__atomic_open(ctn_atomic_file *a, const char *path, char *msg, size_t msg_size);
/* As ctn__atomic_open for an output named by a user (the CLI's files), where "-" is standard output. */
int ctn__atomic_open_output(ctn_atomic_file *a, const char *path, char *msg, size_t msg_size);
/* 1 when PATH is "-" (standard output). */
int ctn__atomic_is_stdout(const char *path);
/* 1 when PATH exists and is neither a regular file nor a directory (stat follows links: /dev/stdout counts). */
int ctn__atomic_is_special(const char *path);
/* Removes the files named exactly "BASE.tmp.PID" beside PATH (BASE its last component, PID decimal) whose
 * process no longer exists (kill(PID, 0) fails with ESRCH) and that are regular files: the temporaries of
 * writers killed mid-write. Each thread lists a directory once and remembers the dead writers' files it
 * saw there, so a temporary left while this thread writes into the directory is removed by the next
 * process (or thread) that writes there. Called by ctn__atomic_open; returns how many it removed. */
int ctn__atomic_sweep_stale(const char *path);
/* Flushes, syncs and renames (in place: flushes and closes, standard output stays open); on any failure
 * removes the temporary file. Always releases `a`. */
int ctn__atomic_commit(ctn_atomic_file *a, char *msg, size_t msg_size);
/* Drops the temporary file; safe on a zeroed or already released handle. */
void ctn__atomic_abort(ctn_atomic_file *a);

#endif
