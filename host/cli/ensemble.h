/* Ensemble files for `catena sweep` (docs/ensembles.md): a base scene, a parameter grid, seeded random
 * replicas, outputs and acceptance checks. This module parses and validates the file and expands it into
 * numbered runs; host/cli/sweep.c executes them. */
#ifndef CTN_CLI_ENSEMBLE_H
#define CTN_CLI_ENSEMBLE_H

#include "catena/catena.h"
#include "core/hash.h"

#include <stdint.h>
#include <stdio.h>

#define CTN_ENSEMBLE_MAX_PARAMS 16
#define CTN_ENSEMBLE_MAX_RUNS 1000000

/* One axis of the parameter grid: a JSON path and the values it takes (cJSON items, printed compactly). */
typedef struct ctn_ensemble_param {
    char *path;      /* "world.substeps", "generators[0].links", or a spec placeholder name such as "links" */
    int count;
    char **values;   /* each value as compact JSON text: 4, 0.5, "direct" */
} ctn_ensemble_param;

typedef struct ctn_ensemble {
    char *source;            /* the ensemble file, for messages */
    char *base_dir;          /* its directory: scene files are relative to it */
    /* the base scene: a generator spec with {placeholders}, or a scene document (file or inline) */
    char *spec;              /* NULL for a document */
    char *doc_text;          /* the scene document as JSON text (NULL for a spec) */
    char *world_text;        /* the ensemble's "world" overrides as a JSON object text ("{}" when none) */
    long long steps;         /* -1: the scene's own */
    int param_count;
    ctn_ensemble_param params[CTN_ENSEMBLE_MAX_PARAMS];
    int replicas;            /* >= 1 */
    uint64_t seed;
    double perturb_velocity; /* m/s, standard deviation per component of every dynamic body's velocity */
    double perturb_position; /* m, standard deviation per component of every dynamic body's position */
    double perturb_force;    /* N, standard deviation per component of a constant force on the last body */
    int batch;               /* replicas advanced together in one world (>= 1) */
    double max_gap;          /* m; a run whose joint gap exceeds it is "torn"; <= 0: no check */
    int csv;                 /* write runs/run-NNNNNN.csv */
    long long every;         /* CSV frame cadence and gap sampling cadence for batched replicas */
    long long points;        /* grid points (product of the parameter counts) */
    long long runs;          /* points * replicas */
} ctn_ensemble;

/* Reads and validates an ensemble file. Errors read "FILE:LINE:COL: ..." for malformed JSON and
 * "FILE:LINE:COL: path: ..." (or "FILE: path: ..." when the key cannot be located) for bad content. */
int ctn_ensemble_load(const char *path, ctn_ensemble *e, char *err, size_t err_size);
void ctn_ensemble_free(ctn_ensemble *e);

/* A run resolved from the ensemble: what to build and how long to step it. */
typedef struct ctn_ensemble_run {
    long long index;         /* 0 .. runs-1 */
    long long point;         /* grid point */
    int replica;             /* 0 .. replicas-1 */
    uint64_t seed;           /* the replica's random stream (the same for every grid point: common random numbers) */
    char *spec;              /* filled-in generator spec, or NULL */
    char *doc_text;          /* the scene document with the parameters applied, or NULL */
    char *world_text;        /* world overrides with the parameters applied */
    long long steps;         /* -1: the scene's own */
    char *params_json;       /* {"path": value, ...} of this grid point, for the summaries */
    uint64_t signature;      /* hash of everything that defines the run: a finished run is reused only if it matches */
} ctn_ensemble_run;

/* Resolves run `index`. Returns 1, or 0 with a message (e.g. a JSON path that does not exist). */
int ctn_ensemble_resolve(const ctn_ensemble *e, long long index, ctn_ensemble_run *out, char *err, size_t err_size);
void ctn_ensemble_run_free(ctn_ensemble_run *r);

/* Run seeds, run signatures and state hashes of sweeps and ensembles: FNV-1a 64 (ctn__fnv1a,
 * host/core/hash.h) started from CTN_ENSEMBLE_HASH_START. That start is not FNV's offset basis
 * (CTN_FNV_OFFSET: it is one digit short) but it stays: the seeds of existing ensembles and the signatures
 * a resumed sweep compares its run records with are made from it. */
#define CTN_ENSEMBLE_HASH_START 1469598103934665603ULL

#endif
