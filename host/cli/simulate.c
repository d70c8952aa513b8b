/* The run itself, shared by `catena run` and `catena resume`, in the order it happens:
 *
 *   check_outputs       every output path is tried before the first step, so a typo fails at once and
 *                       not after hours of simulation (the checkpoint by saving the initial state to a
 *                       scratch file: that also refuses a world a checkpoint cannot hold)
 *   open_outputs        the CSV stream, the VTK directory, the plot's series
 *   step_loop           steps, per-step checks (finite, --max-gap), frames, periodic checkpoints, progress
 *   save_checkpoints    the final checkpoint, or the state before a failed step
 *   finish_outputs      commits or discards the files (a failed run leaves none behind)
 *   summarise           the JSON summary and the printed report
 *
 * Signals (SIGINT, SIGTERM) stop the loop after the current step; the run then checkpoints and exits
 * with 128 + the signal. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_FRAME_EVERY 10
/* File written when a run stops on divergence or a device failure without --checkpoint. */
#define FAILED_RUN_CHECKPOINT "catena-last-good.ckpt"
/* Joints shorter than this are not links (coincident anchors of welded or overlapping bodies). */
#define MIN_LINK_LENGTH 1e-6

static volatile sig_atomic_t g_signal = 0;

static void on_signal(int sig) { g_signal = sig; }

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* What the step loop produced. */
typedef struct run_state {
    ctn_atomic_file csv;
    ctn_series series;
    int series_ok;
    ctn_progress progress;
    ctn_step_stats last, sum;
    double worst, link_length, wall;   /* worst: the largest joint gap (contacts excluded), the torn verdict's */
    double worst_depth, worst_all;     /* the deepest contact penetration, the largest max_gap (both) */
    uint64_t worst_step, worst_depth_step, worst_all_step, step;
    int code;
    const char *status;
    int kept;               /* a failed step left the world at the state before it: 1 device fault, 2 divergence */
    const char *ck_written; /* checkpoint written, or NULL */
    uint64_t ck_step;       /* the step it holds */
    int checkpoints;        /* checkpoint files written */
    const char *failed;     /* the output whose write failed ("checkpoint", "csv", ...), or NULL */
} run_state;

/* A write failed: the run stops with exit 6 and says which output failed (the message is ctn_cli_error's). */
static void write_failed(run_state *s, const char *output) {
    s->code = CTN_EXIT_IO;
    s->status = "failed";
    if (!s->failed) s->failed = output;
}

/* ---- before the first step ---- */

/* The shortest distance between the centres of two jointed bodies at the start: a link's length (0.1 m in a
 * chain of 0.1 m links). A body's distance to a world anchor is half a link or less (the first link of a
 * hanging chain: 0.05 m), so it counts only when no two bodies are jointed (a single pendulum). A joint gap
 * beyond it means the structure has come apart, whatever --max-gap says. */
static double shortest_link(ctn_world *w) {
    int nj = 0;
    ctn_world_id_counts(w, NULL, &nj);
    double best = 0.0, best_world = 0.0;
    for (int j = 0; j < nj; ++j) {
        ctn_joint_info ji;
        ctn_joint_id id;
        if (ctn_world_joint_at(w, j, &id) != CTN_OK || ctn_joint_get_info(w, id, &ji) != CTN_OK || ji.type == CTN_JOINT_CONTACT)
            continue;
        ctn_body_state a, b;
        if (ctn_body_get_state(w, ji.body_a, &a) != CTN_OK) continue;
        const double *pb = ji.anchor_b;
        if (!ctn_body_is_world(ji.body_b)) {
            if (ctn_body_get_state(w, ji.body_b, &b) != CTN_OK) continue;
            pb = b.position;
        }
        double dx = a.position[0] - pb[0], dy = a.position[1] - pb[1], dz = a.position[2] - pb[2];
        double len = sqrt(dx * dx + dy * dy + dz * dz);
        double *to = ctn_body_is_world(ji.body_b) ? &best_world : &best;
        if (len > MIN_LINK_LENGTH && (*to == 0.0 || len < *to)) *to = len;
    }
    return best > 0.0 ? best : best_world;
}

static int check_outputs(ctn_run *r) {
    const ctn_cli_opts *o = r->o;
    char err[1024];
    const char *const text[4][2] = {{"csv", o->csv}, {"svg", o->svg}, {"plot", o->plot}, {"json", o->json}};
    const char *on_stdout = NULL;
    for (int k = 0; k < 4; ++k) {
        if (!text[k][1]) continue;
        if (ctn__atomic_is_stdout(text[k][1])) {
            if (on_stdout) {
                ctn_cli_error("--%s and --%s both write to standard output", on_stdout, text[k][0]);
                return CTN_EXIT_USAGE;
            }
            on_stdout = text[k][0];
        } else if (!ctn_out_check(text[k][1], err, sizeof err)) {
            ctn_cli_error("--%s: %s", text[k][0], err);
            return CTN_EXIT_IO;
        }
    }
    if (o->vtk && ctn__atomic_is_stdout(o->vtk)) {
        ctn_cli_error("--vtk needs a directory, not standard output");
        return CTN_EXIT_USAGE;
    }
    if (o->vtk && !ctn_make_dir(o->vtk, err, sizeof err)) {
        ctn_cli_error("--vtk: %s", err);
        return CTN_EXIT_IO;
    }
    if (!r->ck_path) return CTN_EXIT_OK;
    if (ctn__atomic_is_stdout(r->ck_path)) {
        ctn_cli_error("--checkpoint: a checkpoint is a binary file, not standard output");
        return CTN_EXIT_USAGE;
    }
    if (!ctn_out_check(r->ck_path, err, sizeof err)) {
        ctn_cli_error("--checkpoint: %s", err);
        return CTN_EXIT_IO;
    }
    /* a trial save of the initial state: what the world holds can be checkpointed. It goes to /dev/null
     * (written in place, host/io/atomic_file.c) so that nothing is left behind if the run is killed here;
     * ctn_out_check above tried the path itself. Without a /dev/null device, to a scratch file beside it. */
    struct stat null_st;
    int have_null = stat("/dev/null", &null_st) == 0 && S_ISCHR(null_st.st_mode);
    size_t n = strlen(r->ck_path) + 32;
    char *trial = malloc(n);
    if (!trial) return CTN_EXIT_IO;
    snprintf(trial, n, "%s.trial.%ld", r->ck_path, (long)getpid());
    ctn_status st = ctn_world_save(r->w, have_null ? "/dev/null" : trial, r->start, NULL);
    if (!have_null) remove(trial);
    free(trial);
    if (st != CTN_OK) {
        ctn_cli_error("--checkpoint %s: %s", r->ck_path, ctn_world_last_error(r->w));
        return st == CTN_ERR_IO ? CTN_EXIT_IO : CTN_EXIT_SCENE;
    }
    return CTN_EXIT_OK;
}

static int open_outputs(ctn_run *r, run_state *s) {
    const ctn_cli_opts *o = r->o;
    char err[1024];
    if (o->csv && (!ctn__atomic_open_output(&s->csv, o->csv, err, sizeof err) || !ctn_csv_header(s->csv.f))) {
        ctn_cli_error("--csv: %s", err);
        ctn__atomic_abort(&s->csv);
        return CTN_EXIT_IO;
    }
    if (o->plot) {
        s->series_ok = ctn_series_init(&s->series, r->start + 1, r->target - r->start);
        if (!s->series_ok) {
            ctn_cli_error("out of memory for the plot");
            ctn__atomic_abort(&s->csv);
            return CTN_EXIT_IO;
        }
    }
    return CTN_EXIT_OK;
}

/* ---- the steps ---- */

static int save_checkpoint_to(ctn_run *r, run_state *s, const char *path) {
    char user[CTN_CHECKPOINT_USER_MAX];
    snprintf(user, sizeof user, "scene=%s\nsteps=%llu\n", r->label, (unsigned long long)r->target);
    if (ctn_world_save(r->w, path, s->step, user) == CTN_OK) {
        s->ck_written = path;
        s->ck_step = s->step;
        s->checkpoints++;
        return 1;
    }
    ctn_cli_error("checkpoint: %s", ctn_world_last_error(r->w));
    return 0;
}

static void add_timings(ctn_step_stats *sum, const ctn_step_stats *s) {
    sum->ms_total += s->ms_total;
    sum->ms_colour += s->ms_colour;
    sum->ms_collide += s->ms_collide;
    sum->ms_prepare += s->ms_prepare;
    sum->ms_solve += s->ms_solve;
    sum->ms_integrate += s->ms_integrate;
    sum->ms_transfer += s->ms_transfer;
}

/* The frames due after `step` (all of them at the last step). Returns 0 on a write failure (s says which). */
static int write_frames(ctn_run *r, run_state *s, uint64_t step, int last) {
    const ctn_cli_opts *o = r->o;
    long long every = o->every ? o->every : DEFAULT_FRAME_EVERY;
    uint64_t csv_every = (uint64_t)(o->csv_every ? o->csv_every : every), vtk_every = (uint64_t)(o->vtk_every ? o->vtk_every : every);
    double time = (double)step * r->desc.time_step;
    char err[1024];
    errno = 0;
    if (o->csv && (step % csv_every == 0 || last) && !ctn_csv_frame(s->csv.f, r->w, step, time)) {
        ctn_cli_error("--csv %s: write failed at step %llu: %s", o->csv, (unsigned long long)step, errno ? strerror(errno) : "stream error");
        write_failed(s, "csv");
        return 0;
    }
    if (o->vtk && (step % vtk_every == 0 || last) && !ctn_vtk_frame(o->vtk, r->w, step, time, err, sizeof err)) {
        ctn_cli_error("--vtk: %s", err);
        write_failed(s, "vtk");
        return 0;
    }
    return 1;
}

/* One step and its checks; returns 0 when the run must stop (s->code and s->status say why). */
static int advance(ctn_run *r, run_state *s) {
    ctn_status st = ctn_world_step(r->w);
    if (st != CTN_OK) {
        ctn_progress_break(&s->progress);
        ctn_cli_error("step %llu: %s: %s", (unsigned long long)s->step + 1, ctn_status_name(st), ctn_world_last_error(r->w));
        s->code = st == CTN_ERR_DIVERGED ? CTN_EXIT_DIVERGED : CTN_EXIT_DEVICE;
        s->status = st == CTN_ERR_DIVERGED ? "diverged" : "failed";
        s->kept = st == CTN_ERR_DIVERGED ? 2 : st == CTN_ERR_DEVICE ? 1 : 0;
        return 0;
    }
    ++s->step;
    ctn_world_get_stats(r->w, &s->last);
    add_timings(&s->sum, &s->last);
    if (!isfinite(s->last.max_gap) || !isfinite(s->last.residual)) {
        ctn_progress_break(&s->progress);
        ctn_cli_error("step %llu: the joint error is not finite: the simulation diverged", (unsigned long long)s->step);
        s->code = CTN_EXIT_DIVERGED;
        s->status = "diverged";
        return 0;
    }
    /* joints and contacts apart: a contact's depth (max_penetration) is no joint opening, and neither the
     * torn verdict nor the plot reads it as one */
    if (s->last.max_joint_gap > s->worst) s->worst = s->last.max_joint_gap, s->worst_step = s->step;
    if (s->last.max_penetration > s->worst_depth) s->worst_depth = s->last.max_penetration, s->worst_depth_step = s->step;
    if (s->last.max_gap > s->worst_all) s->worst_all = s->last.max_gap, s->worst_all_step = s->step;
    if (s->series_ok) ctn_series_add(&s->series, s->step, s->last.max_joint_gap, s->last.residual);
    if (r->o->max_gap > 0.0 && s->last.max_joint_gap > r->o->max_gap) {
        ctn_progress_break(&s->progress);
        ctn_cli_error("step %llu: a joint opened by %.6g m, more than --max-gap %.6g m: the structure is torn", (unsigned long long)s->step,
                      s->last.max_joint_gap, r->o->max_gap);
        s->code = CTN_EXIT_TORN;
        s->status = "torn";
        return 0;
    }
    return 1;
}

static void step_loop(ctn_run *r, run_state *s) {
    uint64_t ck_every = (uint64_t)r->o->checkpoint_every;
    if (r->start == 0 && !write_frames(r, s, 0, 0)) return; /* the initial frame of a fresh run */
    while (s->step < r->target && !g_signal && advance(r, s)) {
        int last = s->step == r->target || g_signal;
        if (!write_frames(r, s, s->step, last)) break;
        if (r->ck_path && ck_every && s->step % ck_every == 0 && s->step != r->target && !save_checkpoint_to(r, s, r->ck_path)) {
            write_failed(s, "checkpoint");
            break;
        }
        ctn_progress_update(&s->progress, s->step, s->last.max_joint_gap, last);
    }
}

/* ---- after the last step ---- */

static void save_checkpoints(ctn_run *r, run_state *s, int interrupted) {
    /* the final checkpoint: at the end or on a signal, never of a failed or torn state */
    if (r->ck_path && (s->code == CTN_EXIT_OK || interrupted)) {
        if (save_checkpoint_to(r, s, r->ck_path)) {
            if (interrupted)
                fprintf(stderr, "catena: checkpoint written to %s; continue with: catena resume %s\n", r->ck_path, r->ck_path);
        } else {
            write_failed(s, "checkpoint");
        }
    }
    /* a diverged or device-failed step was undone: keep the last good state (the exit code stays the failure's) */
    if (s->kept) {
        const char *path = r->ck_path ? r->ck_path : FAILED_RUN_CHECKPOINT;
        if (save_checkpoint_to(r, s, path)) {
            fprintf(stderr, "catena: the state before the failed step (step %llu) was saved to %s; continue with: catena resume %s%s\n",
                    (unsigned long long)s->step, path, path, s->kept == 2 ? " (e.g. with a smaller --dt or more --substeps)" : "");
        }
    }
}

/* Commits the outputs of a run that ran its course (ok, torn or interrupted: they show what happened),
 * discards them otherwise. */
static void finish_outputs(ctn_run *r, run_state *s, int complete) {
    const ctn_cli_opts *o = r->o;
    char err[1024], title[600];
    if (o->csv) {
        if (!complete) ctn__atomic_abort(&s->csv);
        else if (!ctn__atomic_commit(&s->csv, err, sizeof err)) ctn_cli_error("--csv: %s", err), write_failed(s, "csv");
    }
    if (complete && o->vtk && !ctn_vtk_collection(o->vtk, r->desc.time_step, err, sizeof err))
        ctn_cli_error("--vtk: %s", err), write_failed(s, "vtk");
    snprintf(title, sizeof title, "%s, step %llu", r->label, (unsigned long long)s->step);
    if (complete && o->svg && !ctn_svg_picture(o->svg, r->w, o->view, title, err, sizeof err))
        ctn_cli_error("--svg: %s", err), write_failed(s, "svg");
    snprintf(title, sizeof title, "%s: joint violation and residual per step", r->label);
    if (complete && o->plot && !ctn_svg_plot(o->plot, &s->series, title, err, sizeof err))
        ctn_cli_error("--plot: %s", err), write_failed(s, "plot");
    ctn_series_free(&s->series);
}

static void summarise(ctn_run *r, run_state *s, int complete) {
    const ctn_cli_opts *o = r->o;
    ctn_run_summary sm;
    memset(&sm, 0, sizeof sm);
    sm.scene = r->label;
    sm.checkpoint = s->ck_written;
    sm.checkpoint_step = s->ck_step;
    sm.checkpoints_written = s->checkpoints;
    sm.failed_output = s->failed;
    ctn_world_get_desc(r->w, &sm.desc);
    sm.backend = ctn_world_backend_name(r->w);
    sm.device = ctn_world_device_name(r->w);
    sm.bodies = ctn_world_body_count(r->w);
    sm.joints = ctn_world_joint_count(r->w);
    sm.start_step = r->start;
    sm.end_step = s->step;
    sm.steps_run = s->step - r->start;
    sm.last = s->last;
    sm.sum = s->sum;
    sm.worst_gap = s->worst;
    sm.worst_gap_step = s->worst_step;
    sm.worst_depth = s->worst_depth;
    sm.worst_depth_step = s->worst_depth_step;
    sm.worst_all = s->worst_all;
    sm.worst_all_step = s->worst_all_step;
    sm.link_length = s->link_length;
    sm.wall_s = s->wall;
    if (s->code == CTN_EXIT_OK && !(o->max_gap > 0.0) && s->link_length > 0.0 && s->worst > s->link_length) {
        /* torn without --max-gap: said in the status and on stderr, but the run succeeded as asked */
        s->status = "torn";
        fprintf(stderr, "catena: warning: a joint opened by %.6g m (step %llu), more than the shortest link (%.6g m between the centres of two jointed bodies): the structure is torn; "
                        "--max-gap METRES makes this an error\n", s->worst, (unsigned long long)s->worst_step, s->link_length);
    }
    sm.status = s->status;
    int n = 0;
    const char *const written[4][2] = {{"csv", o->csv}, {"vtk", o->vtk}, {"svg", o->svg}, {"plot", o->plot}};
    for (int k = 0; k < 4; ++k) /* the outputs committed (a failed one is not) */
        if (written[k][1] && complete && !(s->failed && !strcmp(s->failed, written[k][0])))
            sm.outputs[n][0] = written[k][0], sm.outputs[n++][1] = written[k][1];
    if (o->json) sm.outputs[n][0] = "json", sm.outputs[n++][1] = o->json;
    char err[1024];
    sm.exit_code = s->code;
    sm.error = s->code != CTN_EXIT_OK ? ctn_cli_last_error() : NULL;
    if (o->json && !ctn_json_summary(o->json, &sm, err, sizeof err)) {
        ctn_cli_error("--json: %s", err);
        if (s->code == CTN_EXIT_OK) s->code = CTN_EXIT_IO;
    }
    /* the report goes to stderr when an output took stdout */
    int stdout_taken = (o->csv && ctn__atomic_is_stdout(o->csv)) || (o->svg && ctn__atomic_is_stdout(o->svg)) ||
                       (o->plot && ctn__atomic_is_stdout(o->plot)) || (o->json && ctn__atomic_is_stdout(o->json));
    ctn_print_summary(stdout_taken ? stderr : stdout, &sm);
}

int ctn_simulate(ctn_run *r) {
    run_state s;
    memset(&s, 0, sizeof s);
    s.status = "ok";
    s.step = s.worst_step = s.worst_depth_step = s.worst_all_step = r->start;
    s.code = check_outputs(r);
    if (s.code == CTN_EXIT_OK) s.code = open_outputs(r, &s);
    if (s.code != CTN_EXIT_OK) {
        ctn_summary_of_failure(r->o, s.code);
        return s.code;
    }
    s.link_length = shortest_link(r->w);

    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    g_signal = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    ctn_progress_start(&s.progress, r->o, r->start, r->target);
    double t0 = now_s();
    step_loop(r, &s);
    s.wall = now_s() - t0;
    if (s.code == CTN_EXIT_OK) ctn_progress_break(&s.progress);
    int interrupted = g_signal != 0;
    if (interrupted && s.code == CTN_EXIT_OK) {
        s.status = "interrupted";
        s.code = 128 + (int)g_signal;
        ctn_cli_error("%s at step %llu of %llu", g_signal == SIGINT ? "interrupted (SIGINT)" : "terminated (SIGTERM)",
                      (unsigned long long)s.step, (unsigned long long)r->target);
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);

    save_checkpoints(r, &s, interrupted);
    int complete = s.code == CTN_EXIT_OK || s.code == CTN_EXIT_TORN || interrupted;
    finish_outputs(r, &s, complete);
    summarise(r, &s, complete);
    return s.code;
}
