/* Work queue of `catena sweep` (see sweep_queue.h): serial, or dynamic over MPI ranks. */
#define _POSIX_C_SOURCE 200809L
#include "sweep_queue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CATENA_HAVE_MPI
#include <mpi.h>
#endif

struct ctn_queue {
    long long items;
    long long next;    /* serial: the next item */
#ifdef CATENA_HAVE_MPI
    int mpi;
    MPI_Win win;
    long long *counter; /* rank 0: the shared counter exposed through win */
#endif
};

int ctn_queue_has_mpi(void) {
#ifdef CATENA_HAVE_MPI
    return 1;
#else
    return 0;
#endif
}

#ifdef CATENA_HAVE_MPI
/* Started by an MPI launcher (Open MPI's mpirun, or a PMI/PMIx-based one such as srun)? A plain
 * `catena sweep` must not pay for MPI start-up or need a launcher. */
static int under_launcher(void) {
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", NULL};
    for (int i = 0; vars[i]; ++i)
        if (getenv(vars[i])) return 1;
    return 0;
}

static int open_mpi(ctn_queue *q, int *argc, char ***argv, ctn_queue_place *place, char *err, size_t err_size) {
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        snprintf(err, err_size, "MPI_Init_thread failed");
        return 0;
    }
    q->mpi = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &place->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &place->size);
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, place->rank, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &place->local_rank);
    MPI_Comm_size(local, &place->local_size);
    MPI_Comm_free(&local);
    place->mpi = 1;
    MPI_Aint bytes = place->rank == 0 ? (MPI_Aint)sizeof(long long) : 0;
    if (MPI_Win_allocate(bytes, sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &q->counter, &q->win) != MPI_SUCCESS) {
        snprintf(err, err_size, "MPI_Win_allocate failed");
        return 0;
    }
    return 1;
}
#endif

int ctn_queue_open(ctn_queue **out, int *argc, char ***argv, ctn_queue_place *place, char *err, size_t err_size) {
    ctn_queue *q = calloc(1, sizeof *q);
    if (!q) {
        snprintf(err, err_size, "out of memory");
        return 0;
    }
    memset(place, 0, sizeof *place);
    place->size = place->local_size = 1;
#ifdef CATENA_HAVE_MPI
    if (under_launcher() && !open_mpi(q, argc, argv, place, err, err_size)) {
        ctn_queue_close(q);
        return 0;
    }
#else
    (void)argc, (void)argv;
#endif
    *out = q;
    return 1;
}

void ctn_queue_start(ctn_queue *q, long long items) {
    q->items = items;
    q->next = 0;
#ifdef CATENA_HAVE_MPI
    if (q->mpi) {
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Barrier(MPI_COMM_WORLD); /* nobody still draws from a previous round */
        if (rank == 0) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, q->win);
            *q->counter = 0;
            MPI_Win_unlock(0, q->win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
#endif
}

long long ctn_queue_next(ctn_queue *q) {
#ifdef CATENA_HAVE_MPI
    if (q->mpi) {
        long long one = 1, got = 0;
        /* accumulate operations on one location are atomic with respect to each other */
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, q->win);
        MPI_Fetch_and_op(&one, &got, MPI_LONG_LONG, 0, 0, MPI_SUM, q->win);
        MPI_Win_unlock(0, q->win);
        return got < q->items ? got : -1;
    }
#endif
    return q->next < q->items ? q->next++ : -1;
}

int ctn_queue_all(ctn_queue *q, int ok) {
#ifdef CATENA_HAVE_MPI
    if (q->mpi) {
        int all = 0;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        return all;
    }
#endif
    (void)q;
    return ok;
}

void ctn_queue_close(ctn_queue *q) {
    if (!q) return;
#ifdef CATENA_HAVE_MPI
    if (q->mpi) {
        MPI_Win_free(&q->win);
        MPI_Finalize();
    }
#endif
    free(q);
}
