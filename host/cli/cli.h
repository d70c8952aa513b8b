/* Shared pieces of the catena command-line tool. */
#ifndef CTN_CLI_H
#define CTN_CLI_H

#include "catena/catena.h"

#include <stdint.h>
#include <stdio.h>

/* Exit codes (documented in README.md). */
enum {
    CTN_EXIT_OK = 0,
    CTN_EXIT_USAGE = 2,    /* bad command line */
    CTN_EXIT_SCENE = 3,    /* bad scene (file or generator spec) or checkpoint */
    CTN_EXIT_DEVICE = 4,   /* device or solver failure */
    CTN_EXIT_DIVERGED = 5, /* the simulation diverged */
    CTN_EXIT_IO = 6        /* an output, checkpoint or input file could not be read or written */
};

int ctn_cli_parse_solver(const char *s, ctn_solver *out);
int ctn_cli_parse_backend(const char *s, ctn_backend *out);
const char *ctn_cli_solver_name(ctn_solver s);
const char *ctn_cli_backend_name(ctn_backend b);

/* `catena devices [--verbose]` (host/cli/devices.c). */
int ctn_cli_devices(int argc, char **argv);

/* `catena run`, `catena resume`, `catena validate` (host/cli/run.c). */
int ctn_cli_run(int argc, char **argv);
int ctn_cli_resume(int argc, char **argv);
int ctn_cli_validate(int argc, char **argv);

/* ---- atomic output files (host/cli/outfile.c): written to PATH.tmp.PID, renamed on commit ---- */
typedef struct ctn_outfile {
    FILE *f;
    char *path;
    char *tmp;
} ctn_outfile;

/* Each returns 1 on success, else 0 with a message in err. */
int ctn_out_open(ctn_outfile *o, const char *path, char *err, size_t err_size);
int ctn_out_commit(ctn_outfile *o, char *err, size_t err_size);
void ctn_out_abort(ctn_outfile *o); /* removes the temporary file; safe on a closed or zeroed outfile */
/* Creates a directory (one level) unless it exists. */
int ctn_make_dir(const char *path, char *err, size_t err_size);

/* ---- per-frame outputs (host/cli/frames.c) ---- */
int ctn_csv_header(FILE *f);
int ctn_csv_frame(FILE *f, ctn_world *w, uint64_t step, double time);
/* DIR/frame_STEP.vtk: legacy VTK PolyData, points = bodies (+ world anchors), lines = joints. */
int ctn_vtk_frame(const char *dir, ctn_world *w, uint64_t step, double time, char *err, size_t err_size);
/* DIR/catena.pvd: a ParaView collection of every DIR/frame_*.vtk, time = step * dt. */
int ctn_vtk_collection(const char *dir, double dt, char *err, size_t err_size);

/* ---- SVG (host/cli/svg.c) ---- */
/* The bodies (dots) and joints (lines) projected on a plane: view "xy", "xz" or "zy"; auto-fitted. */
int ctn_svg_picture(const char *path, ctn_world *w, const char *view, const char *title, char *err, size_t err_size);

/* Per-step joint gap and residual, kept in at most CTN_SERIES_BUCKETS buckets (maximum per bucket). */
#define CTN_SERIES_BUCKETS 4096
typedef struct ctn_series {
    uint64_t first, per;   /* step of bucket 0, steps per bucket */
    int count;             /* buckets used */
    uint64_t *step;
    double *gap, *residual;
} ctn_series;
int ctn_series_init(ctn_series *s, uint64_t first_step, uint64_t steps);
void ctn_series_add(ctn_series *s, uint64_t step, double gap, double residual);
void ctn_series_free(ctn_series *s);
/* A log-scale SVG plot of the series. */
int ctn_svg_plot(const char *path, const ctn_series *s, const char *title, char *err, size_t err_size);

/* ---- JSON summary (host/cli/summary.c) ---- */
typedef struct ctn_run_summary {
    const char *status;        /* "ok", "diverged", "interrupted" */
    const char *scene;
    const char *checkpoint;    /* NULL when none written */
    ctn_world_desc desc;
    const char *backend, *device;
    int bodies, joints;
    uint64_t start_step, end_step, steps_run;
    ctn_step_stats last;       /* stats of the last step */
    ctn_step_stats sum;        /* timing fields summed over the run */
    double worst_gap;
    uint64_t worst_gap_step;
    double wall_s;
} ctn_run_summary;
int ctn_json_summary(const char *path, const ctn_run_summary *s, char *err, size_t err_size);

#endif
