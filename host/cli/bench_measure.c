/* Measuring the steps of one world (bench_measure.h): the timing behind `catena bench` and bench/. */
#define _POSIX_C_SOURCE 200809L
#include "bench_measure.h"
#ifdef CATENA_HAVE_OPENCL
#include "opencl/opencl_report.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double ctn_bench_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double ctn_bench_median(double *v, int n) {
    if (n <= 0) return 0.0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

enum { PH_STEP, PH_SOLVE, PH_PREPARE, PH_INTEGRATE, PH_TRANSFER, PH_COLLIDE, PH_COUNT };

/* Median of column k of the rows [from, to) of ms (PH_COUNT columns); NaN when out of memory. */
static double column_median(const double *ms, int from, int to, int k) {
    int n = to - from;
    double tmp[64], *v = n <= 64 ? tmp : malloc(sizeof *v * (size_t)n);
    if (!v) return NAN;
    for (int i = 0; i < n; ++i) v[i] = ms[(size_t)(from + i) * PH_COUNT + (size_t)k];
    double m = ctn_bench_median(v, n);
    if (v != tmp) free(v);
    return m;
}

/* Timed steps per block: `steps`, or fewer so that repeats x steps x est_ms fits in left_ms (at least
 * min_steps in all, spread over the blocks). */
static int steps_per_block(const ctn_bench_plan *p, double est_ms, double left_ms, int min_steps) {
    int steps = p->steps;
    if (p->budget_s <= 0.0 || !(est_ms > 0.0)) return steps;
    double fit = left_ms / (est_ms * p->repeats);
    int floor_steps = (min_steps + p->repeats - 1) / p->repeats;
    if (floor_steps < 1) floor_steps = 1;
    if (fit < steps) steps = fit < floor_steps ? floor_steps : (int)fit;
    return steps;
}

int ctn_bench_measure(ctn_world *w, const ctn_bench_plan *p, ctn_bench_result *r) {
    memset(r, 0, sizeof *r);
    r->bodies = ctn_world_body_count(w);
    r->joints = ctn_world_joint_count(w);
    int repeats = p->repeats > 0 ? p->repeats : 1, min_steps = p->min_steps > 0 ? p->min_steps : 1;
    int warm = p->warmup > 0 ? p->warmup : 0;
    long long cap = (long long)repeats * (p->steps > 0 ? p->steps : 1); /* timed steps at most */
    int have = 64;                                                      /* rows of ms allocated */
    double *ms = malloc(sizeof *ms * (size_t)have * PH_COUNT), *block = malloc(sizeof *block * (size_t)repeats);
    if (!ms || !block) {
        free(ms);
        free(block);
        snprintf(r->error, sizeof r->error, "out of memory");
        return 0;
    }
    ctn_step_stats s;
    memset(&s, 0, sizeof s);
    double t_start = ctn_bench_now_ms(), budget_ms = p->budget_s * 1e3, est = 0.0;
    int per_block = p->steps > 0 ? p->steps : 1, planned = warm + repeats * per_block, done = 0, in_block = 0;
    int failed = 0;
    while (r->timed < cap) {
        if (p->stop && *p->stop) {
            r->interrupted = 1;
            break;
        }
        double t0 = ctn_bench_now_ms();
        ctn_status st = ctn_world_step(w);
        double t1 = ctn_bench_now_ms();
        if (st != CTN_OK) {
            snprintf(r->error, sizeof r->error, "step %d: %.230s", done, ctn_world_last_error(w));
            failed = 1;
            break;
        }
        ctn_world_get_stats(w, &s);
        ++done;
        if (done == 1) r->ms_colour_first = s.ms_colour;
        if (!(s.max_joint_gap <= r->gap_worst)) r->gap_worst = s.max_joint_gap; /* NaN sticks */
        if (!(s.max_penetration <= r->depth_worst)) r->depth_worst = s.max_penetration;
        if (done == 1 && p->budget_s > 0.0 && warm > 1 && (t1 - t0) * (warm + min_steps) > budget_ms) warm = 1;
        if (done <= warm) {
            est = t1 - t0;
            if (done == warm) { /* the blocks' length from the last warm-up step */
                per_block = steps_per_block(p, est, budget_ms - (t1 - t_start), min_steps);
                planned = warm + repeats * per_block;
            }
            if (p->on_step) p->on_step(p->ctx, done, planned);
            continue;
        }
        if (warm == 0 && r->timed == 0) {
            per_block = steps_per_block(p, t1 - t0, budget_ms - (t1 - t_start), min_steps);
            planned = repeats * per_block;
        }
        if (r->timed == have) { /* one row per timed step: {step, solve, prepare, integrate, transfer, collide} */
            double *more = realloc(ms, sizeof *ms * (size_t)have * 2 * PH_COUNT);
            if (!more) {
                snprintf(r->error, sizeof r->error, "out of memory after %d timed steps", r->timed);
                failed = 1;
                break;
            }
            ms = more, have *= 2;
        }
        const double phase[PH_COUNT] = {t1 - t0, s.ms_solve, s.ms_prepare, s.ms_integrate, s.ms_transfer, s.ms_collide};
        for (int k = 0; k < PH_COUNT; ++k) ms[(size_t)r->timed * PH_COUNT + (size_t)k] = phase[k];
        r->timed++;
        r->row_updates += s.row_updates;
        r->launches += s.launches;
        r->blocking_reads += s.blocking_reads;
        if (p->on_step) p->on_step(p->ctx, done, planned);
        if (++in_block == per_block) {
            block[r->repeats++] = column_median(ms, r->timed - in_block, r->timed, PH_STEP);
            in_block = 0;
            if (r->repeats == repeats) break;
        }
        /* a step far slower than the estimate: stop once min_steps are in */
        if (p->budget_s > 0.0 && t1 - t_start > 2.0 * budget_ms && r->timed >= min_steps) break;
    }
    if (in_block > 0 && r->repeats < repeats) block[r->repeats++] = column_median(ms, r->timed - in_block, r->timed, PH_STEP); /* cut short */
    r->steps_run = done;
    r->wall_s = (ctn_bench_now_ms() - t_start) * 1e-3;
    r->gap_last = s.max_joint_gap;
    r->residual_last = s.residual;
    r->rows = s.rows, r->contacts = s.contacts, r->colours = s.colours, r->largest_colour = s.largest_colour;
    r->iterations = s.iterations, r->substeps = s.substeps;
    r->solver_used = s.solver;
    r->joints = ctn_world_joint_count(w);
    if (r->timed > 0) {
        r->ms_all_median = column_median(ms, 0, r->timed, PH_STEP);
        r->ms_solve = column_median(ms, 0, r->timed, PH_SOLVE);
        r->ms_prepare = column_median(ms, 0, r->timed, PH_PREPARE);
        r->ms_integrate = column_median(ms, 0, r->timed, PH_INTEGRATE);
        r->ms_transfer = column_median(ms, 0, r->timed, PH_TRANSFER);
        r->ms_collide = column_median(ms, 0, r->timed, PH_COLLIDE);
        r->row_updates /= r->timed, r->launches /= r->timed, r->blocking_reads /= r->timed;
        if (r->repeats > 0) {
            r->ms_median = ctn_bench_median(block, r->repeats); /* sorted: */
            r->ms_min = block[0], r->ms_max = block[r->repeats - 1];
        } else {
            r->ms_median = r->ms_min = r->ms_max = r->ms_all_median;
        }
        if (r->ms_median > 0.0) r->row_updates_per_s = r->row_updates / (r->ms_median * 1e-3);
    }
    free(ms);
    free(block);
    r->ok = !failed && !r->interrupted && r->timed > 0;
    return r->ok;
}

double ctn_bench_gs_bandwidth_fraction(const ctn_bench_result *r, double copy_gbps, double *sweep_ms) {
    if (sweep_ms) *sweep_ms = 0.0;
    if (r->solver_used != CTN_SOLVER_GS || r->rows <= 0 || r->joints <= 0 || !(copy_gbps > 0.0) || !(r->ms_solve > 0.0)) return 0.0;
    int sweeps = (r->iterations > 0 ? r->iterations : 1) * (r->substeps > 0 ? r->substeps : 1);
    double per_sweep = r->ms_solve / sweeps;
    if (sweep_ms) *sweep_ms = per_sweep;
    double gbps = (double)r->joints * CTN_BENCH_GS_BYTES_PER_JOINT / (per_sweep * 1e-3) / 1e9;
    return gbps / copy_gbps;
}

/* One host thread's memcpy between two buffers of `bytes` (after one untimed copy). */
static double host_copy_gbps(size_t bytes, int reps) {
    unsigned char *a = malloc(bytes), *b = malloc(bytes);
    double gbps = 0.0;
    if (a && b) {
        memset(a, 1, bytes);
        memcpy(b, a, bytes);
        double best = 0.0;
        for (int i = 0; i < reps; ++i) { /* the fastest copy: the others met a busy machine */
            double t0 = ctn_bench_now_ms();
            memcpy(i % 2 ? a : b, i % 2 ? b : a, bytes);
            double ms = ctn_bench_now_ms() - t0;
            if (ms > 0.0 && (best == 0.0 || ms < best)) best = ms;
        }
        /* keep the copies observable so they are not optimised away */
        volatile unsigned char sink = a[bytes / 2] ^ b[bytes / 3];
        (void)sink;
        if (best > 0.0) gbps = 2.0 * (double)bytes / (best * 1e-3) / 1e9;
    }
    free(a);
    free(b);
    return gbps;
}

double ctn_bench_copy_bandwidth(ctn_world *w, size_t bytes, int reps) {
    if (!strcmp(ctn_world_backend_name(w), "cpu")) return host_copy_gbps(bytes, reps);
#ifdef CATENA_HAVE_OPENCL
    double gbps = 0.0;
    if (ctn__opencl_copy_bandwidth(w, bytes, reps, &gbps) == CTN_OK) return gbps;
#endif
    return 0.0;
}
