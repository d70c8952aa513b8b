/* `catena sweep`'s files (host/cli/sweep_files.c): the run records in OUT/runs/, the merged summaries
 * OUT/summary.{json,csv}, and the options of the command they depend on. */
#ifndef CTN_CLI_SWEEP_FILES_H
#define CTN_CLI_SWEEP_FILES_H

#include "cli.h"
#include "ensemble.h"

#include <cjson/cJSON.h>

typedef struct sweep_opts {
    const char *ensemble, *out, *device_list;
    int batch;                /* 0: the file's */
    char device[256];         /* this process's OpenCL device ("" : the backend's choice), from rank_device */
    int backend_set;
    int threads; /* --threads; 0: the file's, else the CPUs of this process shared by its node's ranks */
    ctn_backend backend;
    int quiet;
} sweep_opts;

/* OUT/runs/run-NNNNNN.EXT */
void ctn_sweep_run_path(const char *dir, long long index, const char *ext, char *out, size_t n);
/* The finished run's record, or NULL when it is missing, unreadable, from another definition or damaged
 * (not JSON, or its signature, point, replica or status missing or not the run's); a damaged file is named
 * in a warning on stderr when `warn`. */
cJSON *ctn_sweep_load_run(const char *dir, const ctn_ensemble_run *run, int warn);
/* Writes j as indented JSON, atomically. 1 on success, else 0 with a message in err. */
int ctn_sweep_write_json(const char *path, const cJSON *j, char *err, size_t err_size);
/* Resolves run `index` and folds into its signature what the command line changes about its result. */
int ctn_sweep_resolve(const ctn_ensemble *e, const sweep_opts *o, int batch, long long index, ctn_ensemble_run *run, char *err, size_t n);
/* Merges every run's record into OUT/summary.json and OUT/summary.csv; *failed counts the runs not ok. */
int ctn_sweep_write_summaries(const ctn_ensemble *e, const sweep_opts *o, int batch, int *failed);
/* Removes the temporary files of runs killed while writing (they are run again). */
void ctn_sweep_remove_stale_temporaries(const char runs_dir[4200]);

#endif
