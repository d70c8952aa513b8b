/* `catena bench`: throughput of the standard cases on every device asked for, side by side in one run
 * (docs/bench.md). Each row is one case x size x solver x device: a fresh world, the case's scene, warm-up
 * steps, then repeats of timed steps measured by host/cli/bench_measure.c (the same code as bench/). Output
 * (host/cli/bench_report.c): a table on stdout, and --json / --csv files with the machine, devices, commit and
 * command in their header. SIGINT or SIGTERM stops after the current step: what was measured so far is printed and written,
 * and the tool exits with 128 + the signal. */
#define _GNU_SOURCE
#include "bench_internal.h"
#include "catena_commit.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define BATCH_LINKS 100

/* ---- the standard cases ---------------------------------------------------------------------------- */

static const char *const case_names[CASE_COUNT] = {"chain", "hanging", "tree", "grid", "pile", "batch"};
static const char *const case_text[CASE_COUNT] = {
    "chain:N: N rigid links (0.1 m, 0.1 kg) on ball joints, pinned at one end, released horizontally (a long chain swinging down)",
    "N rigid links hanging straight down from a pin at rest, the last link 1000 times as heavy as the others (mass ratio 1000:1)",
    "tree:N: a binary tree of N rigid links on ball joints pinned at the root",
    "grid:SxS, S = round(sqrt(N)): a cloth of S x S spheres on ball joints to their 4 neighbours, top row pinned",
    "pile:N: N spheres (r 0.05 m) dropped into a box of 4 walls on a floor; built-in contacts (3 rows each)",
    "N/100 replicas of chain:100 in one world, overlapping without interacting: the batch path of `catena sweep --batch`"};

const char *ctn_bench_case_name(int c) { return c >= 0 && c < CASE_COUNT ? case_names[c] : "?"; }
const char *ctn_bench_case_text(int c) { return c >= 0 && c < CASE_COUNT ? case_text[c] : "?"; }

static int parse_case(const char *s) {
    for (int k = 0; k < CASE_COUNT; ++k)
        if (!strcmp(s, case_names[k])) return k;
    return -1;
}

/* Builds case c at size n into w; the scene spec (or description) into spec. */
static ctn_status build_case(ctn_world *w, int c, int n, char *spec, size_t len) {
    switch (c) {
    case CASE_CHAIN: snprintf(spec, len, "chain:%d", n); return ctn_scene_from_spec(w, spec);
    case CASE_HANGING: {
        snprintf(spec, len, "hanging chain:%d (end mass 1000:1)", n);
        ctn_chain_desc d = ctn_chain_desc_default(n);
        d.direction[0] = 0.0, d.direction[1] = -1.0;
        d.end_mass_ratio = 1000.0;
        return ctn_scene_chain(w, &d, NULL);
    }
    case CASE_TREE: snprintf(spec, len, "tree:%d", n); return ctn_scene_from_spec(w, spec);
    case CASE_GRID: {
        int s = (int)lround(sqrt((double)n));
        snprintf(spec, len, "grid:%dx%d", s < 1 ? 1 : s, s < 1 ? 1 : s);
        return ctn_scene_from_spec(w, spec);
    }
    case CASE_PILE: snprintf(spec, len, "pile:%d", n); return ctn_scene_from_spec(w, spec);
    default: {
        int links = n < BATCH_LINKS ? n : BATCH_LINKS, k = n / links;
        char one[32];
        snprintf(one, sizeof one, "chain:%d", links);
        snprintf(spec, len, "%d x chain:%d", k, links);
        for (int i = 0; i < k; ++i) {
            ctn_status st = ctn_scene_from_spec(w, one);
            if (st != CTN_OK) return st;
        }
        return CTN_OK;
    }
    }
}

/* ---- options ------------------------------------------------------------------------------------------ */

const char *ctn_bench_solver_name(ctn_solver s) {
    static const char *const names[] = {"gs", "jacobi", "cg", "direct", "auto"};
    return (int)s >= 0 && (int)s < 5 ? names[s] : "?";
}

static void bench_help(FILE *f) {
    fprintf(f,
            "usage: catena bench [options]\n"
            "Measures the step throughput of standard cases on the CPU and on every OpenCL device, side by side:\n"
            "per case x size x solver x device the median ms/step over repeats (with the fastest and slowest repeat),\n"
            "bodies x steps per second, row updates per second, kernel launches and blocking reads per step, the worst\n"
            "joint gap (m) and, for Gauss-Seidel, the fraction of the device's measured copy bandwidth its sweeps reach.\n"
            "Cases: chain (released horizontally), hanging (1000:1 end mass), tree, grid (cloth), pile (contacts),\n"
            "batch (N/100 replicas of chain:100 in one world). Details: docs/bench.md.\n"
            "  --quick               sizes 1e3, 2 warm-up steps, 3 repeats of 5 steps, 2 s per case (under 2 minutes)\n"
            "  --cases LIST          chain,hanging,tree,grid,pile,batch (default: all)\n"
            "  --sizes LIST          bodies per case, 1e3..1e6 accepted as 1e3 (default 1e3,1e4,1e5; --quick 1e3)\n"
            "  --solvers LIST        auto,gs,direct (default), also jacobi, cg\n"
            "  --device LIST         all (default: the CPU and every OpenCL device), cpu, opencl (every OpenCL device),\n"
            "                        auto (the device `catena run` picks) or P:D indices (catena devices), comma-separated\n"
            "  --iterations N, --substeps N   solver settings (default: the library's, 4 x 4)\n"
            "  --threads N           CPU backend threads (default: $OMP_NUM_THREADS, else every CPU of the process)\n"
            "  --warmup N, --repeats N, --steps N   untimed steps, timed repeats and steps per repeat (default 3, 5, 10)\n"
            "  --case-seconds S      a slow case runs fewer steps per repeat to fit in about S seconds (default 10)\n"
            "  --json FILE|-         every number, with machine, devices, commit and command (- for standard output)\n"
            "  --csv FILE|-          one line per row after '#' header lines\n"
            "  --commit TEXT         the commit to record (default: the one the tool was built from)\n"
            "  -q, --quiet           no progress line and no library notices\n"
            "The table goes to standard output, or to standard error when --json - or --csv - takes it.\n"
            "Ctrl-C (SIGINT) or SIGTERM: stops after the current step, prints and writes what was measured, exits 130/143.\n");
}

/* Comma-separated list of items; each goes through item(), which returns 0 for a bad one. */
static int parse_list(const char *s, const char *what, int (*item)(const char *tok, void *out, int i), void *out, int *count) {
    char buf[512];
    if (strlen(s) >= sizeof buf || !s[0]) {
        ctn_cli_command_error("bench", "%s: '%s' is not a list", what, s);
        return 0;
    }
    snprintf(buf, sizeof buf, "%s", s);
    *count = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (*count == MAX_LIST) {
            ctn_cli_command_error("bench", "%s: at most %d items", what, MAX_LIST);
            return 0;
        }
        if (!item(t, out, *count)) return 0;
        ++*count;
    }
    if (*count == 0) {
        ctn_cli_command_error("bench", "%s: empty list", what);
        return 0;
    }
    return 1;
}

static int case_item(const char *t, void *out, int i) {
    int c = parse_case(t);
    if (c < 0) {
        ctn_cli_command_error("bench", "--cases: unknown case '%s' (chain, hanging, tree, grid, pile, batch)", t);
        return 0;
    }
    ((int *)out)[i] = c;
    return 1;
}

static int size_item(const char *t, void *out, int i) {
    char *end;
    errno = 0;
    double v = strtod(t, &end);
    if (end == t || *end || errno || !(v >= 1.0) || v > 1e7 || v != floor(v)) {
        ctn_cli_command_error("bench", "--sizes: '%s' is not a body count from 1 to 1e7 (e.g. 1e3,1e4 or 1000)", t);
        return 0;
    }
    ((int *)out)[i] = (int)v;
    return 1;
}

static int solver_item(const char *t, void *out, int i) {
    if (!ctn_cli_parse_solver(t, &((ctn_solver *)out)[i])) {
        ctn_cli_command_error("bench", "--solvers: unknown solver '%s' (auto, gs, direct, jacobi, cg)", t);
        return 0;
    }
    return 1;
}

static int parse_int_opt(const char *name, const char *v, int lo, int hi, int *out) {
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (end == v || *end || errno || n < lo || n > hi) {
        ctn_cli_command_error("bench", "%s: '%s' is not a whole number from %d to %d", name, v, lo, hi);
        return 0;
    }
    *out = (int)n;
    return 1;
}

enum { OPT_QUICK = 256, OPT_CASES, OPT_SIZES, OPT_SOLVERS, OPT_DEVICE, OPT_ITER, OPT_SUB, OPT_THREADS, OPT_WARMUP, OPT_REPEATS,
       OPT_STEPS, OPT_CASE_S, OPT_JSON, OPT_CSV, OPT_COMMIT };

/* Returns -1 to go on, else the exit code. */
static int parse_bench(int argc, char **argv, bench_opts *o) {
    static const struct option longs[] = {
        {"quick", no_argument, NULL, OPT_QUICK},          {"cases", required_argument, NULL, OPT_CASES},
        {"sizes", required_argument, NULL, OPT_SIZES},    {"solvers", required_argument, NULL, OPT_SOLVERS},
        {"device", required_argument, NULL, OPT_DEVICE},  {"iterations", required_argument, NULL, OPT_ITER},
        {"substeps", required_argument, NULL, OPT_SUB},   {"threads", required_argument, NULL, OPT_THREADS},
        {"warmup", required_argument, NULL, OPT_WARMUP},  {"repeats", required_argument, NULL, OPT_REPEATS},
        {"steps", required_argument, NULL, OPT_STEPS},    {"case-seconds", required_argument, NULL, OPT_CASE_S},
        {"json", required_argument, NULL, OPT_JSON},      {"csv", required_argument, NULL, OPT_CSV},
        {"commit", required_argument, NULL, OPT_COMMIT},  {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},                 {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    o->device_list = "all";
    o->warmup = o->repeats = o->steps = -1;
    o->case_seconds = -1.0;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":qh", longs, NULL)) != -1) {
        int ok = 1;
        switch (c) {
        case OPT_QUICK: o->quick = 1; break;
        case OPT_CASES: ok = parse_list(optarg, "--cases", case_item, o->cases, &o->ncases); break;
        case OPT_SIZES: ok = parse_list(optarg, "--sizes", size_item, o->sizes, &o->nsizes); break;
        case OPT_SOLVERS: ok = parse_list(optarg, "--solvers", solver_item, o->solvers, &o->nsolvers); break;
        case OPT_DEVICE: o->device_list = optarg; break;
        case OPT_ITER: ok = parse_int_opt("--iterations", optarg, 1, 10000, &o->iterations); break;
        case OPT_SUB: ok = parse_int_opt("--substeps", optarg, 1, 1000, &o->substeps); break;
        case OPT_THREADS: ok = parse_int_opt("--threads", optarg, 1, CTN_MAX_THREADS, &o->threads); break;
        case OPT_WARMUP: ok = parse_int_opt("--warmup", optarg, 0, 1000, &o->warmup); break;
        case OPT_REPEATS: ok = parse_int_opt("--repeats", optarg, 1, 1000, &o->repeats); break;
        case OPT_STEPS: ok = parse_int_opt("--steps", optarg, 1, 100000, &o->steps); break;
        case OPT_CASE_S: {
            char *end;
            o->case_seconds = strtod(optarg, &end);
            if (end == optarg || *end || !(o->case_seconds > 0.0) || o->case_seconds > 1e6) {
                ctn_cli_command_error("bench", "--case-seconds: '%s' is not a positive number of seconds", optarg);
                ok = 0;
            }
            break;
        }
        case OPT_JSON: o->json = optarg; break;
        case OPT_CSV: o->csv = optarg; break;
        case OPT_COMMIT: o->commit = optarg; break;
        case 'q': o->quiet = 1; break;
        case 'h': bench_help(stdout); return CTN_EXIT_OK;
        case ':': {
            const char *bad = argv[optind - 1];
            ctn_cli_command_error("bench", "%s needs a value", bad);
            ok = 0;
            break;
        }
        default: {
            const char *bad = argv[optind - 1];
            if (!strncmp(bad, "--", 2)) ctn_cli_command_error("bench", "unknown option %.*s", (int)strcspn(bad, "="), bad);
            else ctn_cli_command_error("bench", "unknown option -%c", optopt);
            ok = 0;
        }
        }
        if (!ok) {
            fprintf(stderr, "Try 'catena bench --help'.\n");
            return CTN_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        ctn_cli_command_error("bench", "unexpected argument '%s' (catena bench takes options only)", argv[optind]);
        fprintf(stderr, "Try 'catena bench --help'.\n");
        return CTN_EXIT_USAGE;
    }
    if (o->json && o->csv && ctn__atomic_is_stdout(o->json) && ctn__atomic_is_stdout(o->csv)) {
        ctn_cli_command_error("bench", "--json - and --csv - cannot both write to standard output");
        return CTN_EXIT_USAGE;
    }
    if (o->ncases == 0)
        for (int k = 0; k < CASE_COUNT; ++k) o->cases[o->ncases++] = k;
    if (o->nsizes == 0) {
        if (o->quick) o->sizes[o->nsizes++] = 1000;
        else o->sizes[0] = 1000, o->sizes[1] = 10000, o->sizes[2] = 100000, o->nsizes = 3;
    }
    if (o->nsolvers == 0) o->solvers[0] = CTN_SOLVER_AUTO, o->solvers[1] = CTN_SOLVER_GS, o->solvers[2] = CTN_SOLVER_DIRECT, o->nsolvers = 3;
    if (o->warmup < 0) o->warmup = o->quick ? 2 : 3;
    if (o->repeats < 0) o->repeats = o->quick ? 3 : 5;
    if (o->steps < 0) o->steps = o->quick ? 5 : 10;
    if (o->case_seconds < 0.0) o->case_seconds = o->quick ? 2.0 : 10.0;
    return -1;
}

/* ---- devices -------------------------------------------------------------------------------------------- */

static void opencl_device(bench_device *d, const ctn_device_info *info) {
    memset(d, 0, sizeof *d);
    snprintf(d->id, sizeof d->id, "opencl:%d:%d", info->platform, info->device);
    d->backend = CTN_BACKEND_OPENCL;
    snprintf(d->request, sizeof d->request, "%d:%d", info->platform, info->device);
    snprintf(d->name, sizeof d->name, "%s", info->name);
    snprintf(d->driver, sizeof d->driver, "%.60s, driver %.60s", info->version, info->driver);
    d->is_gpu = info->is_gpu;
    d->compute_units = info->compute_units;
}

/* The devices of --device; returns how many, or -1 after a message. */
static int resolve_devices(const char *list, bench_device *out) {
    ctn_device_info info[MAX_DEVICES];
    int count = 0;
    char err[512] = "";
    /* the OpenCL platforms are opened only when the list names OpenCL devices (`cpu` and `auto` need none) */
    int need_list = strstr(list, "all") || strstr(list, "opencl") || strchr(list, ':');
    if (need_list && ctn_list_devices(info, MAX_DEVICES, &count, err, sizeof err) != CTN_OK) count = 0;
    if (count > MAX_DEVICES - 1) count = MAX_DEVICES - 1;
    char buf[256];
    if (strlen(list) >= sizeof buf || !list[0]) {
        ctn_cli_command_error("bench", "--device: '%s' is not a device list", list);
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", list);
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int all = !strcmp(t, "all"), p, q;
        char extra;
        if (all || !strcmp(t, "cpu")) {
            if (n < MAX_DEVICES) {
                memset(&out[n], 0, sizeof out[n]);
                snprintf(out[n].id, sizeof out[n].id, "cpu");
                out[n].backend = CTN_BACKEND_CPU;
                n++;
            }
        }
        if (all || !strcmp(t, "opencl")) {
            if (count == 0 && !all) {
                ctn_cli_command_error("bench", "--device opencl: no OpenCL device%s%s (catena devices)", err[0] ? ": " : "", err);
                return -1;
            }
            for (int i = 0; i < count && n < MAX_DEVICES; ++i) opencl_device(&out[n++], &info[i]);
        } else if (!strcmp(t, "auto")) {
            if (n < MAX_DEVICES) {
                memset(&out[n], 0, sizeof out[n]);
                snprintf(out[n].id, sizeof out[n].id, "auto");
                out[n].backend = CTN_BACKEND_AUTO;
                n++;
            }
        } else if (sscanf(t, "%d:%d%c", &p, &q, &extra) == 2) {
            int found = -1;
            for (int i = 0; i < count; ++i)
                if (info[i].platform == p && info[i].device == q) found = i;
            if (found < 0) {
                ctn_cli_command_error("bench", "--device: no OpenCL device %d:%d (%d listed by catena devices)", p, q, count);
                return -1;
            }
            if (n < MAX_DEVICES) opencl_device(&out[n++], &info[found]);
        } else if (!all && strcmp(t, "cpu")) {
            ctn_cli_command_error("bench", "--device: unknown device '%s' (all, cpu, opencl, auto or P:D)", t);
            return -1;
        }
    }
    /* the same device twice would only run twice */
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            if (!strcmp(out[i].id, out[j].id)) {
                memmove(&out[j], &out[j + 1], sizeof *out * (size_t)(n - j - 1));
                --n, --j;
            }
    if (n == 0) {
        ctn_cli_command_error("bench", "--device: no device in '%s'", list);
        return -1;
    }
    return n;
}

static ctn_world_desc world_desc(const bench_opts *o, const bench_device *d, ctn_solver solver) {
    ctn_world_desc desc = ctn_world_desc_default();
    ctn_cli_env_desc(&desc);
    desc.backend = d->backend;
    if (d->request[0]) desc.device = d->request;
    desc.solver = solver;
    if (o->iterations > 0) desc.iterations = o->iterations;
    if (o->substeps > 0) desc.substeps = o->substeps;
    if (o->threads > 0) desc.threads = o->threads;
    return desc;
}

/* Opens each device once: its name and driver as the world reports them, and its copy bandwidth. */
static void probe_device(const bench_opts *o, bench_device *d) {
    ctn_world_desc desc = world_desc(o, d, CTN_SOLVER_GS);
    ctn_world *w = NULL;
    char err[sizeof d->error] = ""; /* the world's message is kept whole in d->error */
    if (ctn_world_create(&desc, &w, err, sizeof err) != CTN_OK) {
        snprintf(d->error, sizeof d->error, "%s", err);
        return;
    }
    if (!d->name[0]) snprintf(d->name, sizeof d->name, "%s", ctn_world_device_name(w));
    if (!strcmp(ctn_world_backend_name(w), "cpu")) {
        ctn_world_desc got;
        ctn_world_get_desc(w, &got);
        int threads = got.threads > 0 ? got.threads : ctn_cli_cpu_count();
        snprintf(d->driver, sizeof d->driver, "catena CPU backend (OpenMP), %d threads", threads);
        d->compute_units = threads;
        if (d->backend == CTN_BACKEND_AUTO) snprintf(d->id, sizeof d->id, "auto:cpu");
    } else if (d->backend == CTN_BACKEND_AUTO) {
        snprintf(d->id, sizeof d->id, "auto:opencl");
    }
    d->copy_gbps = ctn_bench_copy_bandwidth(w, (size_t)(o->quick ? 32 : 128) << 20, o->quick ? 5 : 10);
    ctn_world_destroy(w);
}

/* ---- rows ---------------------------------------------------------------------------------------------------- */

static volatile sig_atomic_t g_bench_signal = 0;
static void on_bench_signal(int sig) { g_bench_signal = sig; }

typedef struct progress_ctx {
    int on;
    int row, rows;
    const bench_row *cur;
    const bench_device *dev;
    double last;
} progress_ctx;

static void progress_step(void *ctx, int done, int planned) {
    progress_ctx *p = ctx;
    if (!p->on) return;
    double t = ctn_bench_now_ms();
    if (done < planned && t - p->last < 100.0) return;
    p->last = t;
    fprintf(stderr, "\r\033[K[%d/%d] %s %d %s on %s: step %d/%d", p->row + 1, p->rows, case_names[p->cur->c], p->cur->size,
            ctn_bench_solver_name(p->cur->solver), p->dev->id, done, planned);
    fflush(stderr);
}

static void progress_clear(progress_ctx *p) {
    if (p->on) fprintf(stderr, "\r\033[K");
}

/* The library's warnings during a row (a solver that falls back, repeated every step) go to the row's note
 * instead of the terminal, where they would bury the progress line and the table. */
static bench_row *g_note_row;
static int g_note_print; /* messages outside a row go to stderr (not --quiet) */
static void note_message(ctn_log_level level, const char *message, void *user) {
    (void)user;
    if (!g_note_row) {
        if (g_note_print) fprintf(stderr, "catena: %s%s\n", level == CTN_LOG_WARNING ? "warning: " : "", message);
        return;
    }
    if (level < CTN_LOG_INFO) return;
    if (g_note_row->notes++ == 0) snprintf(g_note_row->note, sizeof g_note_row->note, "%s", message);
}

/* One row: a fresh world on device d, the case's scene, the measurement. */
static void run_row(const bench_opts *o, const bench_device *d, bench_row *row, progress_ctx *pc) {
    row->status = "failed";
    g_note_row = row;
    if (d->error[0]) {
        snprintf(row->error, sizeof row->error, "device: %.240s", d->error);
        return;
    }
    double t0 = ctn_bench_now_ms();
    ctn_world_desc desc = world_desc(o, d, row->solver);
    ctn_world *w = NULL;
    char err[512] = "";
    if (ctn_world_create(&desc, &w, err, sizeof err) != CTN_OK) {
        snprintf(row->error, sizeof row->error, "world: %.240s", err);
        return;
    }
    if (build_case(w, row->c, row->size, row->spec, sizeof row->spec) != CTN_OK) {
        snprintf(row->error, sizeof row->error, "scene %.50s: %.190s", row->spec, ctn_world_last_error(w));
        ctn_world_destroy(w);
        return;
    }
    row->setup_s = (ctn_bench_now_ms() - t0) * 1e-3;
    ctn_bench_plan plan = {.warmup = o->warmup,
                           .repeats = o->repeats,
                           .steps = o->steps,
                           .budget_s = o->case_seconds,
                           .min_steps = o->repeats < 3 ? o->repeats : 3,
                           .stop = &g_bench_signal,
                           .on_step = progress_step,
                           .ctx = pc};
    ctn_bench_measure(w, &plan, &row->r);
    if (row->r.interrupted) row->status = "interrupted";
    else if (row->r.error[0]) snprintf(row->error, sizeof row->error, "%s", row->r.error);
    else row->status = "ok";
    row->gs_fraction = ctn_bench_gs_bandwidth_fraction(&row->r, d->copy_gbps, &row->sweep_ms);
    ctn_world_destroy(w);
    g_note_row = NULL;
}

/* ---- the header: machine, devices, commit, command ---------------------------------------------------------- */

static void read_load(char *buf, size_t n) {
    FILE *f = fopen("/proc/loadavg", "r");
    double a, b, c;
    snprintf(buf, n, "?");
    if (f && fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3) snprintf(buf, n, "%.2f %.2f %.2f", a, b, c);
    if (f) fclose(f);
}

static void fill_header(bench_header *h, const bench_opts *o, int argc, char **argv) {
    memset(h, 0, sizeof *h);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(h->date, sizeof h->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (gethostname(h->host, sizeof h->host - 1) != 0) snprintf(h->host, sizeof h->host, "?");
    snprintf(h->cpu, sizeof h->cpu, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
            char *c = strchr(line, ':') + 1;
            c += strspn(c, " \t");
            c[strcspn(c, "\n")] = '\0';
            snprintf(h->cpu, sizeof h->cpu, "%s", c);
            break;
        }
    if (f) fclose(f);
    struct utsname u;
    if (uname(&u) == 0) snprintf(h->os, sizeof h->os, "%.40s %.60s %.20s", u.sysname, u.release, u.machine);
    h->cpus = ctn_cli_cpu_count();
    read_load(h->load_start, sizeof h->load_start);
    h->commit = o->commit ? o->commit : CATENA_COMMIT;
    size_t len = 0;
    len += (size_t)snprintf(h->command, sizeof h->command, "catena");
    for (int i = 0; i < argc && len < sizeof h->command; ++i) {
        int quote = argv[i][strcspn(argv[i], " \t'\"$*?;&|<>()")] != '\0';
        len += (size_t)snprintf(h->command + len, sizeof h->command - len, quote ? " '%s'" : " %s", argv[i]);
    }
}

/* ---- the command --------------------------------------------------------------------------------------------- */

int ctn_cli_bench(int argc, char **argv) {
    bench_opts o;
    int code = parse_bench(argc, argv, &o);
    if (code >= 0) return code;
    g_note_print = !o.quiet && !ctn_cli_quiet_env();
    ctn_set_log(note_message, NULL);
    char err[1024];
    if ((o.json && !ctn_out_check(o.json, err, sizeof err)) || (o.csv && !ctn_out_check(o.csv, err, sizeof err))) {
        ctn_cli_command_error("bench", "%s", err);
        return CTN_EXIT_IO;
    }
    bench_device dev[MAX_DEVICES];
    int ndev = resolve_devices(o.device_list, dev);
    if (ndev < 0) return CTN_EXIT_USAGE;
    bench_header h;
    fill_header(&h, &o, argc, argv);
    double t_start = ctn_bench_now_ms();

    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_bench_signal;
    sa.sa_flags = SA_RESETHAND; /* a second Ctrl-C ends the tool at once */
    sigemptyset(&sa.sa_mask);
    g_bench_signal = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    int planned = o.ncases * o.nsizes * o.nsolvers * ndev;
    bench_row *rows = calloc((size_t)planned, sizeof *rows);
    if (!rows) {
        ctn_cli_command_error("bench", "out of memory");
        return CTN_EXIT_DEVICE;
    }
    progress_ctx pc = {.on = !o.quiet && !ctn_cli_quiet_env() && isatty(STDERR_FILENO), .rows = planned};
    for (int i = 0; i < ndev && !g_bench_signal; ++i) {
        if (pc.on) fprintf(stderr, "\r\033[Kcatena bench: opening %s", dev[i].id);
        probe_device(&o, &dev[i]);
    }
    progress_clear(&pc);
    int nrows = 0, failed = 0;
    for (int c = 0; c < o.ncases; ++c)
        for (int s = 0; s < o.nsizes; ++s)
            for (int v = 0; v < o.nsolvers; ++v)
                for (int d = 0; d < ndev; ++d) {
                    if (g_bench_signal) goto done;
                    bench_row *row = &rows[nrows];
                    row->c = o.cases[c], row->size = o.sizes[s], row->solver = o.solvers[v], row->dev = d;
                    pc.row = nrows, pc.cur = row, pc.dev = &dev[d];
                    run_row(&o, &dev[d], row, &pc);
                    nrows++;
                    failed += !strcmp(row->status, "failed");
                }
done:
    g_note_row = NULL;
    progress_clear(&pc);
    int sig = g_bench_signal;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    h.wall_s = (ctn_bench_now_ms() - t_start) * 1e-3;
    read_load(h.load_end, sizeof h.load_end);

    int table_to_stderr = (o.json && ctn__atomic_is_stdout(o.json)) || (o.csv && ctn__atomic_is_stdout(o.csv));
    h.interrupted = sig;
    ctn_bench_print_table(table_to_stderr ? stderr : stdout, &h, dev, ndev, rows, nrows, planned, &o);
    fflush(stdout);
    code = sig ? 128 + sig : failed ? CTN_EXIT_DEVICE : CTN_EXIT_OK;
    if (o.json && !ctn_bench_write_output(o.json, 0, &h, dev, ndev, rows, nrows, planned, &o)) code = CTN_EXIT_IO;
    if (o.csv && !ctn_bench_write_output(o.csv, 1, &h, dev, ndev, rows, nrows, planned, &o)) code = CTN_EXIT_IO;
    if (failed && !sig) fprintf(stderr, "catena bench: %d of %d rows failed (status \"failed\" in the table)\n", failed, nrows);
    free(rows);
    return code;
}
