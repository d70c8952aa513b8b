/* `catena run SCENE`, `catena resume CHECKPOINT` and `catena validate SCENE`.
 *
 * SCENE is a JSON scene file (docs/scene-format.md) or a generator spec such as chain:10000. A run steps
 * the world, shows a progress bar on stderr when stderr is a terminal, writes the requested outputs
 * (CSV, VTK, SVG picture, SVG plot, JSON summary) atomically, and checkpoints periodically, at the end and
 * on SIGINT/SIGTERM. `resume` continues a checkpoint bitwise identically to an uninterrupted run. */
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

static volatile sig_atomic_t g_signal = 0;

static void on_signal(int sig) { g_signal = sig; }

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct opts {
    const char *scene;
    long long steps, more; /* -1: not given */
    int iterations, substeps;
    int solver_set, backend_set;
    ctn_solver solver;
    ctn_backend backend;
    const char *device;
    double dt;
    const char *csv, *vtk, *svg, *plot, *json, *checkpoint, *view;
    long long every, csv_every, vtk_every, ck_every; /* 0: not given */
    int quiet;
} opts;

static void usage_run(FILE *f) {
    fprintf(f,
            "usage: catena run SCENE [options]          SCENE: a .json scene file or a generator spec\n"
            "       catena resume CHECKPOINT [options]  continue a checkpointed run (--steps: the final step number)\n"
            "       catena validate SCENE               check a scene without running it\n"
            "options:\n"
            "  --steps S  --more N (resume: N more steps)  --solver auto|gs|jacobi|cg|direct  --iterations K  --substeps N\n"
            "  --backend auto|cpu|opencl  --device D  --dt SECONDS  --quiet\n"
            "  --csv FILE  --vtk DIR  --svg FILE [--view xy|xz|zy]  --plot FILE  --json FILE\n"
            "  --every K (frames and checkpoints; default: frames every %d steps)  --csv-every K  --vtk-every K\n"
            "  --checkpoint FILE [--checkpoint-every N]   (also written at the end, on SIGINT/SIGTERM and on divergence)\n",
            DEFAULT_FRAME_EVERY);
}

static int parse_ll(const char *opt, const char *s, long long lo, long long hi, long long *out) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi) {
        fprintf(stderr, "catena: %s: '%s' is not an integer in [%lld, %lld]\n", opt, s, lo, hi);
        return 0;
    }
    *out = v;
    return 1;
}

/* Parses options after the positional argument. Returns 0 on a usage error (message printed). */
static int parse_opts(int argc, char **argv, opts *o, int resume) {
    memset(o, 0, sizeof *o);
    o->steps = o->more = -1;
    o->view = "xy";
    if (argc < 1 || argv[0][0] == '-') {
        fprintf(stderr, "catena: missing %s\n", resume ? "CHECKPOINT" : "SCENE");
        usage_run(stderr);
        return 0;
    }
    o->scene = argv[0];
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (!strcmp(a, "--quiet")) {
            o->quiet = 1;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "catena: option %s needs a value\n", a);
            return 0;
        }
        const char *v = argv[++i];
        long long n;
        if (!strcmp(a, "--steps")) {
            if (!parse_ll(a, v, 0, 1000000000000LL, &o->steps)) return 0;
        } else if (!strcmp(a, "--more") && resume) {
            if (!parse_ll(a, v, 0, 1000000000000LL, &o->more)) return 0;
        } else if (!strcmp(a, "--iterations")) {
            if (!parse_ll(a, v, 1, CTN_MAX_ITERATIONS, &n)) return 0;
            o->iterations = (int)n;
        } else if (!strcmp(a, "--substeps")) {
            if (!parse_ll(a, v, 1, CTN_MAX_SUBSTEPS, &n)) return 0;
            o->substeps = (int)n;
        } else if (!strcmp(a, "--solver")) {
            if (!ctn_cli_parse_solver(v, &o->solver)) {
                fprintf(stderr, "catena: --solver: '%s' is not one of auto, gs, jacobi, cg, direct\n", v);
                return 0;
            }
            o->solver_set = 1;
        } else if (!strcmp(a, "--backend")) {
            if (!ctn_cli_parse_backend(v, &o->backend)) {
                fprintf(stderr, "catena: --backend: '%s' is not one of auto, cpu, opencl\n", v);
                return 0;
            }
            o->backend_set = 1;
        } else if (!strcmp(a, "--device")) {
            o->device = v;
        } else if (!strcmp(a, "--dt")) {
            char *end;
            o->dt = strtod(v, &end);
            if (end == v || *end || !(o->dt > 0.0) || !(o->dt <= 10.0)) {
                fprintf(stderr, "catena: --dt: '%s' is not a time step in (0, 10] s\n", v);
                return 0;
            }
        } else if (!strcmp(a, "--csv")) {
            o->csv = v;
        } else if (!strcmp(a, "--vtk")) {
            o->vtk = v;
        } else if (!strcmp(a, "--svg")) {
            o->svg = v;
        } else if (!strcmp(a, "--view")) {
            if (strcmp(v, "xy") && strcmp(v, "xz") && strcmp(v, "zy")) {
                fprintf(stderr, "catena: --view: '%s' is not one of xy, xz, zy\n", v);
                return 0;
            }
            o->view = v;
        } else if (!strcmp(a, "--plot")) {
            o->plot = v;
        } else if (!strcmp(a, "--json")) {
            o->json = v;
        } else if (!strcmp(a, "--checkpoint")) {
            o->checkpoint = v;
        } else if (!strcmp(a, "--every")) {
            if (!parse_ll(a, v, 1, 1000000000000LL, &o->every)) return 0;
        } else if (!strcmp(a, "--csv-every")) {
            if (!parse_ll(a, v, 1, 1000000000000LL, &o->csv_every)) return 0;
        } else if (!strcmp(a, "--vtk-every")) {
            if (!parse_ll(a, v, 1, 1000000000000LL, &o->vtk_every)) return 0;
        } else if (!strcmp(a, "--checkpoint-every")) {
            if (!parse_ll(a, v, 1, 1000000000000LL, &o->ck_every)) return 0;
        } else {
            fprintf(stderr, "catena: unknown option %s\n", a);
            usage_run(stderr);
            return 0;
        }
    }
    if (o->steps >= 0 && o->more >= 0) {
        fprintf(stderr, "catena: give --steps or --more, not both\n");
        return 0;
    }
    return 1;
}

static void apply_overrides(const opts *o, ctn_world_desc *d) {
    if (o->iterations) d->iterations = o->iterations;
    if (o->substeps) d->substeps = o->substeps;
    if (o->solver_set) d->solver = o->solver;
    if (o->backend_set) d->backend = o->backend;
    if (o->device) d->device = o->device;
    if (o->dt > 0.0) d->time_step = o->dt;
}

static int exit_for_create(ctn_status st) {
    return st == CTN_ERR_DEVICE || st == CTN_ERR_UNSUPPORTED ? CTN_EXIT_DEVICE : st == CTN_ERR_OUT_OF_MEMORY ? CTN_EXIT_DEVICE : CTN_EXIT_USAGE;
}

/* A scene argument is a file when it exists or looks like a path; otherwise a generator spec. */
static int is_scene_file(const char *scene) {
    struct stat st;
    if (stat(scene, &st) == 0) return 1;
    size_t n = strlen(scene);
    return strchr(scene, '/') != NULL || (n > 5 && !strcmp(scene + n - 5, ".json"));
}

static int exit_for_parse(ctn_status st) { return st == CTN_ERR_IO ? CTN_EXIT_IO : CTN_EXIT_SCENE; }

/* ---- progress ---- */

typedef struct progress {
    int on;
    double t0, last;
    uint64_t first, target;
} progress;

static void progress_update(progress *p, uint64_t step, int force) {
    if (!p->on) return;
    double t = now_s();
    if (!force && t - p->last < 0.1) return;
    p->last = t;
    uint64_t done = step - p->first, total = p->target - p->first;
    double frac = total ? (double)done / (double)total : 1.0;
    double eta = done ? (t - p->t0) / (double)done * (double)(p->target - step) : 0.0;
    char bar[31];
    int fill = (int)(frac * 30.0);
    for (int k = 0; k < 30; ++k) bar[k] = k < fill ? '#' : '.';
    bar[30] = '\0';
    fprintf(stderr, "\r[%s] %3.0f%%  step %llu/%llu  %.3g ms/step  ETA %02d:%02d:%02d ", bar, 100.0 * frac, (unsigned long long)step,
            (unsigned long long)p->target, done ? (t - p->t0) * 1e3 / (double)done : 0.0, (int)(eta / 3600), (int)fmod(eta / 60, 60),
            (int)fmod(eta, 60));
    fflush(stderr);
}

/* ---- the run ---- */

typedef struct run_ctx {
    const opts *o;
    const char *label;      /* scene name saved in checkpoints */
    const char *ck_path;    /* checkpoint file or NULL */
    ctn_world *w;
    ctn_world_desc desc;
    uint64_t start, target;
} run_ctx;

static int save_checkpoint_to(run_ctx *r, const char *path, uint64_t step) {
    char user[CTN_CHECKPOINT_USER_MAX];
    snprintf(user, sizeof user, "scene=%s\nsteps=%llu\n", r->label, (unsigned long long)r->target);
    ctn_status st = ctn_world_save(r->w, path, step, user);
    if (st != CTN_OK) {
        fprintf(stderr, "catena: checkpoint: %s\n", ctn_world_last_error(r->w));
        return 0;
    }
    return 1;
}
static int save_checkpoint(run_ctx *r, uint64_t step) { return save_checkpoint_to(r, r->ck_path, step); }

/* Issue 7: file written when a run stops on divergence or a device failure without --checkpoint. */
#define CTN_FAILED_RUN_CHECKPOINT "catena-last-good.ckpt"

static int simulate(run_ctx *r) {
    const opts *o = r->o;
    ctn_world *w = r->w;
    char err[1024];
    int code = CTN_EXIT_OK;
    const char *status = "ok";
    long long fe = o->every ? o->every : DEFAULT_FRAME_EVERY;
    uint64_t csv_every = (uint64_t)(o->csv_every ? o->csv_every : fe), vtk_every = (uint64_t)(o->vtk_every ? o->vtk_every : fe);
    uint64_t ck_every = (uint64_t)(o->ck_every ? o->ck_every : o->every);
    double dt = r->desc.time_step;
    ctn_outfile csv;
    memset(&csv, 0, sizeof csv);
    ctn_series series;
    memset(&series, 0, sizeof series);
    int series_ok = 0;

    if (o->csv) {
        if (!ctn_out_open(&csv, o->csv, err, sizeof err) || !ctn_csv_header(csv.f)) {
            fprintf(stderr, "catena: --csv: %s\n", err);
            ctn_out_abort(&csv);
            return CTN_EXIT_IO;
        }
    }
    if (o->vtk && !ctn_make_dir(o->vtk, err, sizeof err)) {
        fprintf(stderr, "catena: --vtk: %s\n", err);
        ctn_out_abort(&csv);
        return CTN_EXIT_IO;
    }
    if (o->plot) {
        series_ok = ctn_series_init(&series, r->start + 1, r->target - r->start);
        if (!series_ok) {
            fprintf(stderr, "catena: out of memory for the plot\n");
            ctn_out_abort(&csv);
            return CTN_EXIT_IO;
        }
    }

    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    g_signal = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    progress pr = {isatty(STDERR_FILENO) && !o->quiet && !getenv("CATENA_QUIET"), now_s(), 0.0, r->start, r->target};
    ctn_step_stats s, sum;
    memset(&s, 0, sizeof s);
    memset(&sum, 0, sizeof sum);
    double worst = 0.0;
    uint64_t worst_step = r->start, step = r->start;
    double t0 = now_s();
    int kept = 0; /* issue 7: a failed step left the world at the state before it (divergence, device fault) */

    /* the initial frame of a fresh run */
    if (r->start == 0) {
        if (o->csv && !ctn_csv_frame(csv.f, w, 0, 0.0)) {
            fprintf(stderr, "catena: --csv: write failed\n");
            code = CTN_EXIT_IO;
        }
        if (code == CTN_EXIT_OK && o->vtk && !ctn_vtk_frame(o->vtk, w, 0, 0.0, err, sizeof err)) {
            fprintf(stderr, "catena: --vtk: %s\n", err);
            code = CTN_EXIT_IO;
        }
    }
    while (code == CTN_EXIT_OK && step < r->target && !g_signal) {
        ctn_status st = ctn_world_step(w);
        if (st != CTN_OK) {
            fprintf(stderr, "%scatena: step %llu: %s: %s\n", pr.on ? "\n" : "", (unsigned long long)step + 1, ctn_status_name(st),
                    ctn_world_last_error(w));
            code = st == CTN_ERR_DIVERGED ? CTN_EXIT_DIVERGED : CTN_EXIT_DEVICE;
            status = st == CTN_ERR_DIVERGED ? "diverged" : "failed";
            kept = st == CTN_ERR_DIVERGED ? 2 : st == CTN_ERR_DEVICE ? 1 : 0;
            break;
        }
        ++step;
        ctn_world_get_stats(w, &s);
        sum.ms_total += s.ms_total;
        sum.ms_colour += s.ms_colour;
        sum.ms_collide += s.ms_collide;
        sum.ms_prepare += s.ms_prepare;
        sum.ms_solve += s.ms_solve;
        sum.ms_integrate += s.ms_integrate;
        sum.ms_transfer += s.ms_transfer;
        if (!isfinite(s.max_gap) || !isfinite(s.residual)) {
            fprintf(stderr, "%scatena: step %llu: the joint error is not finite: the simulation diverged\n", pr.on ? "\n" : "",
                    (unsigned long long)step);
            code = CTN_EXIT_DIVERGED;
            status = "diverged";
            break;
        }
        if (s.max_gap > worst) worst = s.max_gap, worst_step = step;
        if (series_ok) ctn_series_add(&series, step, s.max_gap, s.residual);
        int last = step == r->target || g_signal;
        if (o->csv && (step % csv_every == 0 || last) && !ctn_csv_frame(csv.f, w, step, (double)step * dt)) {
            fprintf(stderr, "catena: --csv: write failed\n");
            code = CTN_EXIT_IO;
            break;
        }
        if (o->vtk && (step % vtk_every == 0 || last) && !ctn_vtk_frame(o->vtk, w, step, (double)step * dt, err, sizeof err)) {
            fprintf(stderr, "catena: --vtk: %s\n", err);
            code = CTN_EXIT_IO;
            break;
        }
        if (r->ck_path && ck_every && step % ck_every == 0 && step != r->target && !save_checkpoint(r, step)) {
            code = CTN_EXIT_IO;
            break;
        }
        progress_update(&pr, step, last);
    }
    double wall = now_s() - t0;
    if (pr.on) fprintf(stderr, "\n");
    int interrupted = g_signal != 0;
    if (interrupted && code == CTN_EXIT_OK) {
        status = "interrupted";
        code = 128 + (int)g_signal;
        fprintf(stderr, "catena: %s at step %llu of %llu\n", g_signal == SIGINT ? "interrupted (SIGINT)" : "terminated (SIGTERM)",
                (unsigned long long)step, (unsigned long long)r->target);
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);

    /* the final checkpoint: at the end or on a signal, never of a failed state */
    const char *ck_written = NULL;
    if (r->ck_path && (code == CTN_EXIT_OK || interrupted)) {
        if (save_checkpoint(r, step)) {
            ck_written = r->ck_path;
            if (interrupted)
                fprintf(stderr, "catena: checkpoint written to %s; continue with: catena resume %s\n", r->ck_path, r->ck_path);
        } else {
            code = CTN_EXIT_IO;
        }
    }
    /* issue 7: a diverged or device-failed step was undone: save the last good state before exiting, to
     * --checkpoint or else to ./catena-last-good.ckpt (the exit code stays that of the failure) */
    if (kept) {
        const char *path = r->ck_path ? r->ck_path : CTN_FAILED_RUN_CHECKPOINT;
        if (save_checkpoint_to(r, path, step)) {
            ck_written = path;
            fprintf(stderr, "catena: the state before the failed step (step %llu) was saved to %s; continue with: catena resume %s%s\n",
                    (unsigned long long)step, path, path, kept == 2 ? " (e.g. with a smaller --dt or more --substeps)" : "");
        }
    }
    int complete = code == CTN_EXIT_OK || interrupted; /* outputs describe the steps run */
    char title[512];
    snprintf(title, sizeof title, "%s, step %llu", r->label, (unsigned long long)step);
    if (o->csv) {
        if (complete) {
            if (!ctn_out_commit(&csv, err, sizeof err)) {
                fprintf(stderr, "catena: --csv: %s\n", err);
                code = CTN_EXIT_IO;
            }
        } else {
            ctn_out_abort(&csv);
        }
    }
    if (complete && o->vtk && !ctn_vtk_collection(o->vtk, dt, err, sizeof err)) {
        fprintf(stderr, "catena: --vtk: %s\n", err);
        code = CTN_EXIT_IO;
    }
    if (complete && o->svg && !ctn_svg_picture(o->svg, w, o->view, title, err, sizeof err)) {
        fprintf(stderr, "catena: --svg: %s\n", err);
        code = CTN_EXIT_IO;
    }
    if (complete && o->plot) {
        char ptitle[600];
        snprintf(ptitle, sizeof ptitle, "%s: joint violation and residual per step", r->label);
        if (!ctn_svg_plot(o->plot, &series, ptitle, err, sizeof err)) {
            fprintf(stderr, "catena: --plot: %s\n", err);
            code = CTN_EXIT_IO;
        }
    }
    ctn_series_free(&series);

    ctn_run_summary sm;
    memset(&sm, 0, sizeof sm);
    sm.status = status;
    sm.scene = r->label;
    sm.checkpoint = ck_written;
    ctn_world_get_desc(w, &sm.desc);
    sm.backend = ctn_world_backend_name(w);
    sm.device = ctn_world_device_name(w);
    sm.bodies = ctn_world_body_count(w);
    sm.joints = ctn_world_joint_count(w);
    sm.start_step = r->start;
    sm.end_step = step;
    sm.steps_run = step - r->start;
    sm.last = s;
    sm.sum = sum;
    sm.worst_gap = worst;
    sm.worst_gap_step = worst_step;
    sm.wall_s = wall;
    if (o->json && !ctn_json_summary(o->json, &sm, err, sizeof err)) {
        fprintf(stderr, "catena: --json: %s\n", err);
        if (code == CTN_EXIT_OK) code = CTN_EXIT_IO;
    }

    double n = step > r->start ? (double)(step - r->start) : 1.0;
    printf("scene            %s\n", r->label);
    printf("backend          %s (%s)\n", sm.backend, sm.device);
    printf("bodies / joints  %d / %d (%d rows)\n", sm.bodies, sm.joints, s.rows);
    printf("solver           %s%s, %d iterations x %d substeps, dt %.6g s\n", ctn_cli_solver_name(step > r->start ? s.solver : sm.desc.solver),
           sm.desc.solver == CTN_SOLVER_AUTO && step > r->start ? " (auto)" : "", sm.desc.iterations,
           sm.desc.substeps, sm.desc.time_step);
    printf("colours          %d (largest %d, overflow %d)\n", s.colours, s.largest_colour, s.overflow);
    if (s.contacts > 0) printf("contacts         %d (collision %.4f ms/step)\n", s.contacts, sum.ms_collide / n);
    printf("steps            %llu..%llu (%s)\n", (unsigned long long)r->start, (unsigned long long)step, status);
    printf("ms/step          %.4f (colour %.4f, prepare %.4f, solve %.4f, integrate %.4f, transfer %.4f)\n", sum.ms_total / n,
           sum.ms_colour / n, sum.ms_prepare / n, sum.ms_solve / n, sum.ms_integrate / n, sum.ms_transfer / n);
    printf("row updates/s    %.4g\n", sum.ms_total > 0 ? s.row_updates * (double)(step - r->start) / (sum.ms_total * 1e-3) : 0.0);
    printf("max joint gap    %.6g m (final), %.6g m (worst, step %llu)\n", s.max_gap, worst, (unsigned long long)worst_step);
    printf("max joint angle  %.6g rad (final)\n", s.max_angle);
    printf("residual         %.6g m/s (last iteration)\n", s.residual);
    if (o->csv && complete && code != CTN_EXIT_IO) printf("csv              %s\n", o->csv);
    if (o->vtk && complete) printf("vtk              %s/catena.pvd\n", o->vtk);
    if (o->svg && complete) printf("svg              %s\n", o->svg);
    if (o->plot && complete) printf("plot             %s\n", o->plot);
    if (o->json) printf("json             %s\n", o->json);
    if (ck_written) printf("checkpoint       %s (step %llu)\n", ck_written, (unsigned long long)step);
    return code;
}

/* Creates the world and builds the scene of a file or a spec. */
static int load_scene(const opts *o, ctn_world **out, ctn_world_desc *desc, long long *steps, int validate_only) {
    char err[2048];
    *out = NULL;
    ctn_scene *scene = NULL;
    *desc = ctn_world_desc_default();
    int file_steps = 600;
    int is_file = is_scene_file(o->scene);
    if (is_file) {
        ctn_status st = ctn_scene_parse_file(o->scene, &scene, err, sizeof err);
        if (st != CTN_OK) {
            fprintf(stderr, "catena: %s\n", err);
            return st == CTN_ERR_UNSUPPORTED ? CTN_EXIT_SCENE : exit_for_parse(st);
        }
        ctn_scene_get_settings(scene, desc, &file_steps);
    }
    *steps = o->steps >= 0 ? o->steps : file_steps;
    apply_overrides(o, desc);
    ctn_world_desc create = *desc;
    ctn_backend requested = desc->backend;
    if (validate_only) create.backend = CTN_BACKEND_CPU, create.device = NULL; /* validation needs no device */
    ctn_world *w = NULL;
    ctn_status st = ctn_world_create(&create, &w, err, sizeof err);
    if (st != CTN_OK) {
        fprintf(stderr, "catena: %s: %s\n", ctn_status_name(st), err);
        ctn_scene_free(scene);
        return exit_for_create(st);
    }
    st = is_file ? ctn_scene_build(scene, w) : ctn_scene_from_spec(w, o->scene);
    if (st != CTN_OK) {
        fprintf(stderr, "catena: %s\n", ctn_world_last_error(w));
        ctn_world_destroy(w);
        ctn_scene_free(scene);
        return st == CTN_ERR_OUT_OF_MEMORY ? CTN_EXIT_DEVICE : CTN_EXIT_SCENE;
    }
    /* desc.device points into the scene: keep a copy owned by the world */
    ctn_world_get_desc(w, desc);
    if (validate_only) desc->backend = requested;
    ctn_scene_free(scene);
    *out = w;
    return CTN_EXIT_OK;
}

int ctn_cli_run(int argc, char **argv) {
    opts o;
    if (!parse_opts(argc, argv, &o, 0)) return CTN_EXIT_USAGE;
    ctn_world *w;
    run_ctx r;
    memset(&r, 0, sizeof r);
    long long steps;
    int code = load_scene(&o, &w, &r.desc, &steps, 0);
    if (code != CTN_EXIT_OK) return code;
    r.o = &o;
    r.label = o.scene;
    r.ck_path = o.checkpoint;
    r.w = w;
    r.start = 0;
    r.target = (uint64_t)steps;
    code = simulate(&r);
    ctn_world_destroy(w);
    return code;
}

int ctn_cli_resume(int argc, char **argv) {
    opts o;
    if (!parse_opts(argc, argv, &o, 1)) return CTN_EXIT_USAGE;
    char err[2048];
    ctn_checkpoint_info *info = malloc(sizeof *info);
    if (!info) return CTN_EXIT_IO;
    ctn_status st = ctn_checkpoint_read_info(o.scene, info, err, sizeof err);
    if (st != CTN_OK) {
        fprintf(stderr, "catena: %s\n", err);
        free(info);
        return st == CTN_ERR_IO ? CTN_EXIT_IO : CTN_EXIT_SCENE;
    }
    ctn_world_desc desc = info->desc;
    desc.device = info->device[0] ? info->device : NULL;
    apply_overrides(&o, &desc);
    ctn_world *w = NULL;
    st = ctn_world_load(o.scene, &desc, &w, NULL, err, sizeof err);
    if (st != CTN_OK) {
        fprintf(stderr, "catena: %s\n", err);
        free(info);
        return st == CTN_ERR_DEVICE || st == CTN_ERR_UNSUPPORTED ? CTN_EXIT_DEVICE : st == CTN_ERR_IO ? CTN_EXIT_IO : CTN_EXIT_SCENE;
    }
    /* the saved run's scene label and step target */
    char label[1024] = "checkpoint";
    unsigned long long target = info->step;
    const char *p = strstr(info->user, "scene=");
    if (p) {
        p += 6;
        size_t n = strcspn(p, "\n");
        if (n >= sizeof label) n = sizeof label - 1;
        memcpy(label, p, n);
        label[n] = '\0';
    }
    p = strstr(info->user, "steps=");
    if (p) target = strtoull(p + 6, NULL, 10);
    if (o.steps >= 0) target = (unsigned long long)o.steps;
    if (o.more >= 0) target = info->step + (unsigned long long)o.more;
    run_ctx r;
    memset(&r, 0, sizeof r);
    r.o = &o;
    r.label = label;
    r.ck_path = o.checkpoint ? o.checkpoint : o.scene;
    r.w = w;
    ctn_world_get_desc(w, &r.desc);
    r.start = info->step;
    free(info);
    if (target < r.start) {
        fprintf(stderr, "catena: --steps %llu is before the checkpoint's step %llu\n", target, (unsigned long long)r.start);
        ctn_world_destroy(w);
        return CTN_EXIT_USAGE;
    }
    r.target = target;
    int code = simulate(&r);
    ctn_world_destroy(w);
    return code;
}

int ctn_cli_validate(int argc, char **argv) {
    opts o;
    if (!parse_opts(argc, argv, &o, 0)) return CTN_EXIT_USAGE;
    if (o.csv || o.vtk || o.svg || o.plot || o.json || o.checkpoint) {
        fprintf(stderr, "catena: validate writes no outputs; use catena run\n");
        return CTN_EXIT_USAGE;
    }
    ctn_world *w;
    ctn_world_desc desc;
    long long steps;
    int code = load_scene(&o, &w, &desc, &steps, 1);
    if (code != CTN_EXIT_OK) return code;
    double gap = 0.0, angle = 0.0;
    ctn_world_measure(w, &gap, &angle);
    printf("%s: ok: %d bodies, %d joints, %lld steps of %.6g s, solver %s (%d iterations x %d substeps), backend %s; "
           "initial joint gap %.3g m\n",
           o.scene, ctn_world_body_count(w), ctn_world_joint_count(w), steps, desc.time_step, ctn_cli_solver_name(desc.solver),
           desc.iterations, desc.substeps, ctn_cli_backend_name(desc.backend), gap);
    ctn_world_destroy(w);
    return CTN_EXIT_OK;
}
