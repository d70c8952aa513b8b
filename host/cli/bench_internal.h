/* The pieces of `catena bench` (host/cli/bench.c runs the rows, host/cli/bench_report.c writes the table,
 * JSON and CSV). */
#ifndef CTN_BENCH_INTERNAL_H
#define CTN_BENCH_INTERNAL_H

#include "bench_measure.h"
#include "cli.h"

#include <stdio.h>

#define MAX_LIST 16
#define MAX_DEVICES 17

typedef enum { CASE_CHAIN, CASE_HANGING, CASE_TREE, CASE_GRID, CASE_PILE, CASE_BATCH, CASE_COUNT } case_id;

/* "chain", "hanging", ...; what the case's scene is (host/cli/bench.c). */
const char *ctn_bench_case_name(int c);
const char *ctn_bench_case_text(int c);
/* "gs", "jacobi", "cg", "direct", "auto". */
const char *ctn_bench_solver_name(ctn_solver s);

typedef struct bench_device {
    char id[32];      /* "cpu", "opencl:P:D", "opencl" (the automatic OpenCL device) */
    ctn_backend backend;
    char request[32]; /* ctn_world_desc.device: "P:D", or "" for the automatic choice */
    char name[128], driver[160];
    int is_gpu, compute_units;
    double copy_gbps;
    char error[256];  /* the device could not be used */
} bench_device;

typedef struct bench_opts {
    int quick, quiet;
    int cases[CASE_COUNT], ncases;
    int sizes[MAX_LIST], nsizes;
    ctn_solver solvers[MAX_LIST];
    int nsolvers;
    const char *device_list;
    int iterations, substeps, threads; /* 0: the library's defaults */
    int warmup, repeats, steps;
    double case_seconds;
    const char *json, *csv, *commit;
} bench_opts;

typedef struct bench_row {
    int c, size, dev;
    ctn_solver solver;
    char spec[64];
    const char *status; /* "ok", "failed", "interrupted" */
    char error[256];
    char note[256]; /* the first library warning of the row (e.g. a solver falling back), and how many more */
    int notes;
    double setup_s;
    ctn_bench_result r;
    double gs_fraction, sweep_ms;
} bench_row;

typedef struct bench_header {
    char date[32], host[128], cpu[160], os[160], load_start[48], load_end[48], command[2048];
    const char *commit;
    int cpus;
    double wall_s;
    int interrupted; /* the signal that stopped the run, 0 when none */
} bench_header;


/* The table (host/cli/bench_report.c): a header with the machine and devices, one line per row. */
void ctn_bench_print_table(FILE *f, const bench_header *h, const bench_device *dev, int ndev, const bench_row *rows, int nrows,
                           int planned, const bench_opts *o);
/* --json (csv = 0) or --csv (csv = 1) to path, atomically ("-": standard output); 1 on success, else 0 after
 * a message. */
int ctn_bench_write_output(const char *path, int csv, const bench_header *h, const bench_device *dev, int ndev, const bench_row *rows,
                           int nrows, int planned, const bench_opts *o);

#endif
