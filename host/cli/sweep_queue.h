/* The work queue of `catena sweep`: which process runs which work item. Without MPI (or when the process
 * was not started by an MPI launcher) one process takes every item in order. Under `mpirun` the items are
 * handed out dynamically: every rank, rank 0 included, takes the next untaken item from a shared counter
 * (an MPI one-sided fetch-and-add on rank 0's window), so a rank that drew cheap runs simply takes more of
 * them. Which rank ran an item never changes its result: each item is defined by the ensemble alone. */
#ifndef CTN_CLI_SWEEP_QUEUE_H
#define CTN_CLI_SWEEP_QUEUE_H

#include <stddef.h>

typedef struct ctn_queue ctn_queue;

typedef struct ctn_queue_place {
    int rank, size;             /* this process among all (0 and 1 without MPI) */
    int local_rank, local_size; /* among the processes on this machine (for device and core binding) */
    int mpi;                    /* non-zero when MPI is in use */
} ctn_queue_place;

/* Creates the queue; initialises MPI when the process runs under an MPI launcher. Returns 1, or 0 with a
 * message. */
int ctn_queue_open(ctn_queue **out, int *argc, char ***argv, ctn_queue_place *place, char *err, size_t err_size);
/* Collective: (re)starts the queue over items 0 .. items-1. */
void ctn_queue_start(ctn_queue *q, long long items);
/* The next item for this process, or -1 when none is left. */
long long ctn_queue_next(ctn_queue *q);
/* Waits for every process; returns the logical AND of every process's `ok`. */
int ctn_queue_all(ctn_queue *q, int ok);
/* Ends the queue (and MPI). */
void ctn_queue_close(ctn_queue *q);
/* Whether this build has MPI support. */
int ctn_queue_has_mpi(void);

#endif
