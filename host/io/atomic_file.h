/* Output files written atomically by the library: the bytes go to PATH.tmp.PID, which is flushed, synced
 * and renamed onto PATH only when complete, so a reader (ParaView polling a series, a crashed run) never
 * sees a partial file and a failed write leaves none behind. */
#ifndef CTN_ATOMIC_FILE_H
#define CTN_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

typedef struct ctn_atomic_file {
    FILE *f;   /* write here between open and commit */
    char *path;
    char *tmp;
} ctn_atomic_file;

/* Each returns 1 on success, else 0 with a message naming the file in msg. */
int ctn__atomic_open(ctn_atomic_file *a, const char *path, char *msg, size_t msg_size);
/* Flushes, syncs and renames; on any failure removes the temporary file. Always releases `a`. */
int ctn__atomic_commit(ctn_atomic_file *a, char *msg, size_t msg_size);
/* Drops the temporary file; safe on a zeroed or already released handle. */
void ctn__atomic_abort(ctn_atomic_file *a);

#endif
