/* Measuring the steps of one world: the one implementation of the benchmark timing, shared by `catena
 * bench` (host/cli/bench.c) and the developer benchmarks in bench/ (bench_chain, bench_suite, bench_batch).
 *
 * Definitions (bench/README.md, "Metrics"; docs/bench.md):
 *   step time  wall time (CLOCK_MONOTONIC) of one ctn_world_step call; the OpenCL step returns after the
 *              device finished (it reads the step statistics back), so device time is included;
 *   ms/step    the median over the repeats of each repeat's median step time; the spread is the fastest
 *              and the slowest repeat's median;
 *   phases     medians of the library's own ctn_step_stats timers over every timed step (device times
 *              from event profiling on OpenCL);
 *   launches, blocking reads, row updates: means per timed step of ctn_step_stats;
 *   gap        ctn_step_stats.max_gap (m): after the last step, and the largest after any step, warm-up
 *              steps included. */
#ifndef CTN_BENCH_MEASURE_H
#define CTN_BENCH_MEASURE_H

#include "catena/catena.h"

#include <signal.h>
#include <stddef.h>

/* Bytes one block Gauss-Seidel update of a joint slot moves (bench_backends.c): joint definition 112,
 * block 288, impulses read + written 48, both bodies' velocities read + written 128, inverse inertias 64,
 * residual 4. */
#define CTN_BENCH_GS_BYTES_PER_JOINT 644.0

typedef struct ctn_bench_plan {
    int warmup;      /* untimed steps first (cut to 1 when the first step shows they would not fit the budget) */
    int repeats;     /* timed blocks of `steps` steps */
    int steps;       /* steps per block */
    double budget_s; /* > 0: a slow case runs fewer steps per block (at least min_steps in all) to fit */
    int min_steps;   /* timed steps kept however slow (default 1 when 0) */
    const volatile sig_atomic_t *stop; /* non-zero: stop after the current step (a signal); may be NULL */
    void (*on_step)(void *ctx, int done, int planned); /* after each step; may be NULL */
    void *ctx;
} ctn_bench_plan;

typedef struct ctn_bench_result {
    int ok;          /* the planned steps (cut to the budget) ran */
    int interrupted; /* plan.stop was raised */
    char error[256]; /* the failed step's error, "" when none */
    int bodies, joints, rows, contacts, colours, largest_colour;
    int iterations, substeps; /* of the last step */
    ctn_solver solver_used;   /* the solver the last step ran */
    int steps_run;            /* every step, warm-up included */
    int timed;                /* timed steps */
    int repeats;              /* blocks with at least one timed step */
    double ms_median, ms_min, ms_max; /* median, fastest and slowest of the blocks' medians */
    double ms_all_median;             /* median of every timed step */
    double ms_solve, ms_prepare, ms_integrate, ms_transfer, ms_collide;
    double row_updates, launches, blocking_reads; /* per timed step */
    double row_updates_per_s;                     /* row_updates / ms_median */
    double gap_last, gap_worst;                   /* joint gap (m), contacts excluded; gap_worst is not finite when a step's was not */
    double depth_worst;                           /* deepest contact penetration after any step (m; 0 without contacts) */
    double residual_last;                         /* ctn_step_stats.residual of the last step */
    double ms_colour_first;                       /* ctn_step_stats.ms_colour of the first step (the colouring) */
    double wall_s;                                /* every step, warm-up included */
} ctn_bench_result;

/* Steps w as the plan says and fills r. Returns 1 when every planned step ran, 0 when a step failed
 * (r->error) or the plan was stopped (r->interrupted); what was measured until then is in r. */
int ctn_bench_measure(ctn_world *w, const ctn_bench_plan *plan, ctn_bench_result *r);

/* Fraction of the copy bandwidth `copy_gbps` (read + write GB/s) that the Gauss-Seidel sweeps of r reached:
 * joints x CTN_BENCH_GS_BYTES_PER_JOINT per sweep, over the solve time per sweep (ms_solve / (iterations x
 * substeps); it also holds the warm start, so this is a lower bound). 0 when r did not run GS or a value
 * is missing. *sweep_ms (may be NULL) receives the time per sweep. */
double ctn_bench_gs_bandwidth_fraction(const ctn_bench_result *r, double copy_gbps, double *sweep_ms);

/* Measured copy bandwidth (bytes read + written per second / 1e9) of the device w runs on: the OpenCL
 * device's clEnqueueCopyBuffer between two buffers of `bytes`, or one host thread's memcpy on the CPU
 * backend. 0 when it could not be measured. */
double ctn_bench_copy_bandwidth(ctn_world *w, size_t bytes, int reps);

/* Median of v[0..n) (sorts v; the mean of the two middle values when n is even); 0 when n <= 0. */
double ctn_bench_median(double *v, int n);
/* CLOCK_MONOTONIC in milliseconds. */
double ctn_bench_now_ms(void);

#endif
