/* Shared pieces of the catena command-line tool. */
#ifndef CTN_CLI_H
#define CTN_CLI_H

#include "catena/catena.h"
#include "io/atomic_file.h"

#include <stdint.h>
#include <stdio.h>

/* Exit codes (documented in README.md). */
enum {
    CTN_EXIT_OK = 0,
    CTN_EXIT_USAGE = 2,    /* bad command line */
    CTN_EXIT_SCENE = 3,    /* bad scene (file or generator spec) or checkpoint */
    CTN_EXIT_DEVICE = 4,   /* device or solver failure */
    CTN_EXIT_DIVERGED = 5, /* the simulation diverged */
    CTN_EXIT_IO = 6,       /* an output, checkpoint or input file could not be read or written */
    CTN_EXIT_TORN = 7      /* a joint opened wider than --max-gap */
};

/* Prints "catena: MESSAGE" on stderr and keeps MESSAGE as the run's error for the JSON summary. */
void ctn_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same as "catena COMMAND: MESSAGE" (command-line errors). */
void ctn_cli_command_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The last message given to ctn_cli_error or ctn_cli_command_error ("" when none). */
const char *ctn_cli_last_error(void);

/* ---- the command line of run, resume and validate (host/cli/options.c) ---- */
typedef enum ctn_cli_command { CTN_CMD_RUN, CTN_CMD_RESUME, CTN_CMD_VALIDATE } ctn_cli_command;

#define CTN_CLI_DEFAULT_PROGRESS_S 10.0 /* --progress without a value */

typedef struct ctn_cli_opts {
    const char *scene;     /* SCENE or CHECKPOINT */
    long long steps, more; /* -1: not given */
    int iterations, substeps;
    int solver_set, backend_set, substeps_set, integrator_set;
    ctn_solver solver;
    ctn_integrator integrator; /* --integrator */
    int rattle_max_joints, rattle_max_joints_set; /* --rattle-max-joints */
    ctn_bounded_rows bounded_rows;
    int bounded_rows_set; /* --bounded-rows */
    ctn_backend backend;
    const char *device;
    int threads; /* --threads; 0: not given */
    double dt;
    int gravity_set;   /* --gravity given */
    double gravity[3]; /* --gravity x,y,z (m/s^2) */
    int self_collision; /* --self-collision: a URDF robot's links collide with each other */
    const char *csv, *vtk, *svg, *plot, *json, *checkpoint, *view;
    long long every, csv_every, vtk_every, checkpoint_every; /* 0: not given */
    double max_gap;  /* 0: not given */
    double progress; /* seconds between status lines when stderr is not a terminal; 0: none */
    int quiet;
    int assemble;              /* --assemble: ctn_world_assemble before the first step */
    double assemble_tolerance; /* --assemble=TOL; 0: the scene's or the default */
} ctn_cli_opts;

enum { CTN_CLI_PARSE_OK, CTN_CLI_PARSE_HELP, CTN_CLI_PARSE_ERROR };
/* argv[0] is the command's name. Returns CTN_CLI_PARSE_HELP after printing the command's help on stdout,
 * CTN_CLI_PARSE_ERROR after printing the problem on stderr. */
int ctn_cli_parse(ctn_cli_command cmd, int argc, char **argv, ctn_cli_opts *o);
struct option;
/* After getopt_long returned '?' or ':' (opterr off): says what was wrong with argv[optind - 1] ARG, an
 * option missing its value, an unknown one, a value given to a flag, or a prefix of several long options
 * (ambiguous, with the candidates), as "catena CMD: ..." on stderr. */
void ctn_cli_report_bad_option(const char *cmd, int c, const char *arg, const struct option *longs);
/* "usage" line, what the command does and its options. */
void ctn_cli_command_help(FILE *f, ctn_cli_command cmd);
/* The options of one command, one line each with its explanation. */
void ctn_cli_print_options(FILE *f, ctn_cli_command cmd);

int ctn_cli_parse_solver(const char *s, ctn_solver *out);
int ctn_cli_parse_backend(const char *s, ctn_backend *out);

/* The environment (host/cli/env.c): library messages go to stderr unless `quiet` or CATENA_QUIET; the
 * CATENA_DEVICE, CATENA_FAULT and debug variables fill a world description. */
void ctn_cli_set_quiet(int quiet);
/* The OpenCL binary cache directory from the environment (host/cli/env.c): $CATENA_CACHE_DIR, else
 * $XDG_CACHE_HOME/catena, else $HOME/.cache/catena, passed to ctn_set_cache_dir. */
void ctn_cli_env_cache_dir(void);
/* Whether CATENA_QUIET asks for quiet (set, and not "" or "0"). */
int ctn_cli_quiet_env(void);
/* CATENA_DEVICE, CATENA_FAULT, the debug knobs and OMP_NUM_THREADS into the fields of d they fill. */
void ctn_cli_env_desc(ctn_world_desc *d);
/* Runs the tool again with OMP_WAIT_POLICY=passive when no wait policy is set (returns when it does not). */
void ctn_cli_passive_openmp(char **argv);
/* CPUs in this process's affinity mask (at least 1). */
int ctn_cli_cpu_count(void);
/* $OMP_WAIT_POLICY ("" when unset), for the JSON summary. */
const char *ctn_cli_wait_policy(void);

/* `catena devices [--verbose]` (host/cli/devices.c). */
int ctn_cli_devices(int argc, char **argv);

/* `catena bench` (host/cli/bench.c): throughput of the standard cases on every device asked for. */
int ctn_cli_bench(int argc, char **argv);

/* `catena run`, `catena resume`, `catena validate` (host/cli/run.c). */
int ctn_cli_run(int argc, char **argv);
int ctn_cli_resume(int argc, char **argv);
int ctn_cli_validate(int argc, char **argv);

/* `catena sweep ENSEMBLE.json` (host/cli/sweep.c): parameter sweeps and replicas, serial or over MPI. */
int ctn_cli_sweep(int argc, char **argv);

/* `catena render FRAMES.pvd --out DIR` (host/cli/render.c): PNG frames and an MP4 of a --vtk series through
 * share/catena/render.py (VTK offscreen); its help text. */
int ctn_cli_render(int argc, char **argv);
void ctn_cli_render_help(FILE *f);

/* ---- output files: host/io/atomic_file.h (ctn__atomic_open_output, ctn__atomic_commit, ctn__atomic_abort),
 * written to PATH.tmp.PID and renamed on commit; "-" is standard output, and an existing path that is not a
 * regular file (/dev/stdout, a FIFO) is written in place. ----
 * Checks that PATH could be written, creating and removing its temporary file, without touching PATH
 * (host/cli/outfile.c). 1 on success, else 0 with a message in err. */
int ctn_out_check(const char *path, char *err, size_t err_size);
/* Creates a directory (one level) unless it exists. */
int ctn_make_dir(const char *path, char *err, size_t err_size);

/* ---- per-frame outputs (host/cli/frames.c) ---- */
int ctn_csv_header(FILE *f);
int ctn_csv_frame(FILE *f, ctn_world *w, uint64_t step, double time);
/* DIR/frame_STEP.vtp: VTK XML PolyData (ctn_world_write_vtp), points = bodies (+ world anchors), lines = joints. */
int ctn_vtk_frame(const char *dir, ctn_world *w, uint64_t step, double time, char *err, size_t err_size);
/* DIR/catena.pvd: a ParaView collection of every DIR/frame_*.vtp, time = step * dt (s). */
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
    const char *status;        /* "ok", "torn", "diverged", "failed", "interrupted" */
    const char *error;         /* what went wrong, NULL or "" when nothing did */
    int exit_code;
    const char *scene;
    const char *checkpoint;    /* the last checkpoint written, NULL when none */
    uint64_t checkpoint_step;  /* the step it holds */
    int checkpoints_written;   /* periodic and final */
    const char *failed_output; /* the output whose write failed ("checkpoint", "csv", "vtk", "svg", "plot"), or NULL */
    ctn_world_desc desc;
    const char *backend, *device;
    int bodies, joints;
    uint64_t start_step, end_step, steps_run;
    ctn_step_stats last;       /* stats of the last step */
    ctn_step_stats sum;        /* timing fields summed over the run */
    double worst_gap;        /* m: the largest joint gap of any step (ctn_step_stats.max_joint_gap; contacts excluded) */
    uint64_t worst_gap_step;
    double worst_depth;      /* m: the deepest contact penetration of any step (ctn_step_stats.max_penetration) */
    uint64_t worst_depth_step;
    double worst_all;        /* m: the largest ctn_step_stats.max_gap (joints and contacts) of any step */
    uint64_t worst_all_step;
    double link_length;        /* shortest initial joint span (host/cli/simulate.c); 0 when none */
    double wall_s;
    const char *outputs[6][2]; /* {label, path} of the outputs written, NULL-terminated */
} ctn_run_summary;
int ctn_json_summary(const char *path, const ctn_run_summary *s, char *err, size_t err_size);
/* The human-readable summary of a run. */
void ctn_print_summary(FILE *f, const ctn_run_summary *s);

/* ---- progress on stderr (host/cli/progress.c) ---- */
typedef struct ctn_progress {
    int bar;          /* a bar redrawn in place (stderr is a terminal) */
    double interval;  /* seconds between status lines (stderr is not a terminal); 0: none */
    double t0, last;
    uint64_t first, target;
} ctn_progress;
void ctn_progress_start(ctn_progress *p, const ctn_cli_opts *o, uint64_t first, uint64_t target);
/* Shows the state after `step` when due (always when final). */
void ctn_progress_update(ctn_progress *p, uint64_t step, double gap, int final);
/* Ends the bar's line before other messages are printed. */
void ctn_progress_break(ctn_progress *p);

/* ---- the run (host/cli/simulate.c) ---- */
typedef struct ctn_run {
    const ctn_cli_opts *o;
    const char *label;      /* scene name saved in checkpoints */
    const char *ck_path;    /* checkpoint file or NULL */
    ctn_world *w;
    ctn_world_desc desc;
    uint64_t start, target;
} ctn_run;
/* Steps r->w from r->start to r->target with every output; returns the exit code. */
int ctn_simulate(ctn_run *r);
/* Writes the JSON summary of a run that failed before its first step (--json given). */
void ctn_summary_of_failure(const ctn_cli_opts *o, int code);

#endif
