/* bench_suite: the benchmark suite behind `bash bench/run_suite.sh` (bench/README.md).
 *
 * Three parts, one results file (PREFIX.json + PREFIX.md + PREFIX-*.svg):
 *   scaling   ms/step, its phase breakdown, row updates/s and colours for the workloads chain, rope, grid, bridge
 *             and pile at 1e2..1e6 bodies, per backend (cpu, opencl) and solver (gs, jacobi, cg), all at the
 *             library defaults (4 iterations x 4 substeps, h = 1/60 s); for OpenCL GS also the GS sweep time
 *             against its bandwidth floor (joints x 644 B / measured device copy bandwidth, see bench_backends.c);
 *   accuracy  the hanging chain (bench_chain's and bench_peers' chain) for every solver over a grid of iteration
 *             and substep counts: ms/step against the worst joint gap and the chain stretch over a fixed 2 s run;
 *   included  other programs' JSON/Markdown (run_suite.sh passes bench_convergence's) copied in verbatim.
 * Timing (host/cli/bench_measure.c, the code of `catena bench`): wall time (CLOCK_MONOTONIC) of each ctn_world_step
 * call, which returns after the device finished;
 * median over the measured steps after the warm-up steps. Accuracy is read outside the timed call.
 *
 * usage: bench_suite --mode smoke|quick|full --prefix PREFIX [--backends cpu,opencl] [--case-seconds S]
 *                    [--command TEXT] [--commit TEXT] [--include NAME=JSONFILE] [--include-md FILE]
 *                    [--workloads chain,rope,grid,bridge,pile] [--no-accuracy] [--no-scaling] */
#define _POSIX_C_SOURCE 200809L
#include "bench_env.h"
#include "cli/bench_measure.h"
#include "catena/catena.h"
#include "io/json_write.h"

#include "svgplot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


#define GS_BYTES_PER_JOINT CTN_BENCH_GS_BYTES_PER_JOINT /* bytes one block GS update of a joint slot moves */
#define MAX_SCALE 512
#define MAX_ACC 256
#define LINK 0.1

static const char *const workload_names[] = {"chain", "rope", "grid", "bridge", "pile"};
static const char *const workload_text[] = {
    "chain:N (ctn_scene_from_spec): N rigid links 0.1 m long, 0.1 kg, box inertia of half extents (0.05, 0.005, 0.005) m, ball joints "
    "(3 rows) at the link ends, link 0 pinned to the world at the origin, laid out horizontally along +x at rest and released: it swings down",
    "rope:N: N particles 0.1 m apart, 0.1 kg, distance joints (1 row), the first pinned to the world, horizontal along +x at rest, released",
    "grid:SxS (S = round(sqrt(N))): hanging net in the x-y plane of S x S spheres (0.1 kg, spacing 0.1 m), ball joints (3 rows) to the 4 "
    "neighbours, top row pinned to the world, at rest",
    "bridge:N: N planks (1 m x 0.1 m x 1 m, 5 kg) joined by hinges (5 rows) about z, both ends hinged to the world, released from straight",
    "pile:N: N spheres (r = 0.05 m, 0.5 kg) in layers of k x k (k = ceil(cbrt N)) 0.11 m apart with a fixed-seed jitter (seed 12345) in a box "
    "of 4 walls on a floor, dropped; built-in contacts (3 rows each: normal + 2 friction, mu 0.5); rows vary with the contacts"};
#define NWORK 5

typedef struct mode_cfg {
    const char *name;
    int sizes[NWORK][8];
    int warmup, max_steps;
    double case_seconds;
    int acc_links, acc_steps;
    int acc_iters[8], acc_subs[4];
} mode_cfg;

static const mode_cfg modes[] = {
    {"smoke", {{100, 1000}, {100}, {100}, {30}, {27}}, 1, 3, 2.0, 50, 20, {1, 4}, {1, 4}},
    {"quick",
     {{100, 1000, 10000, 100000}, {100, 1000, 10000, 100000}, {100, 1000, 10000, 100000}, {100, 1000, 10000}, {125, 1000}},
     3, 30, 12.0, 1000, 120, {1, 2, 4, 8, 16, 32}, {1, 4, 16}},
    {"full",
     {{100, 1000, 10000, 100000, 1000000}, {100, 1000, 10000, 100000, 1000000}, {100, 1000, 10000, 100000, 1000000},
      {100, 1000, 10000, 100000}, {125, 1000, 8000}},
     3, 30, 30.0, 1000, 120, {1, 2, 4, 8, 16, 32, 64}, {1, 4, 16}},
};

typedef struct scale_res {
    int work, n;
    char spec[64], backend[16], solver[8], note[160];
    int bodies, joints, rows, colours, contacts, steps, ok;
    double ms, ms_min, prepare, solve, integrate, transfer, collide, rups, gap, sweep_ms, floor_ms;
} scale_res;

typedef struct acc_res {
    char solver[8], note[160];
    int iterations, substeps, steps, ok;
    double ms, gap_last, gap_worst, stretch, rups;
} acc_res;

static const char *solver_name(ctn_solver s) {
    return s == CTN_SOLVER_GS ? "gs" : s == CTN_SOLVER_JACOBI ? "jacobi" : s == CTN_SOLVER_CG ? "cg" : "direct";
}




static void loadavg(char *buf, size_t n) {
    FILE *f = fopen("/proc/loadavg", "r");
    snprintf(buf, n, "?");
    if (f) {
        double a, b, c;
        if (fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3) snprintf(buf, n, "%.2f %.2f %.2f", a, b, c);
        fclose(f);
    }
}

static void cpu_model(char *buf, size_t n) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    snprintf(buf, n, "unknown CPU");
    if (!f) return;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "model name", 10)) {
            char *c = strchr(line, ':');
            if (c) {
                c += 2;
                c[strcspn(c, "\n")] = '\0';
                snprintf(buf, n, "%s", c);
            }
            break;
        }
    fclose(f);
}


static double jnum(double v) { return isfinite(v) ? v : -1.0; }

static ctn_world *make_world(ctn_backend backend, ctn_solver solver, int iterations, int substeps, char *err, size_t errn) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = backend;
    d.solver = solver;
    if (iterations > 0) d.iterations = iterations;
    if (substeps > 0) d.substeps = substeps;
    ctn_world *w = NULL;
    if (ctn_world_create(&d, &w, err, errn) != CTN_OK) return NULL;
    return w;
}

static void spec_of(int work, int n, char *spec, size_t len) {
    if (work == 2) {
        int s = (int)lround(sqrt((double)n));
        snprintf(spec, len, "grid:%dx%d", s, s);
    } else {
        snprintf(spec, len, "%s:%d", workload_names[work], n);
    }
}

static void run_scale(const mode_cfg *m, int work, int n, ctn_backend backend, ctn_solver solver, double gbps, double case_s, scale_res *r) {
    memset(r, 0, sizeof *r);
    r->work = work, r->n = n;
    spec_of(work, n, r->spec, sizeof r->spec);
    snprintf(r->backend, sizeof r->backend, "%s", backend == CTN_BACKEND_CPU ? "cpu" : "opencl");
    snprintf(r->solver, sizeof r->solver, "%s", solver_name(solver));
    char err[2048];
    ctn_world *w = make_world(backend, solver, 0, 0, err, sizeof err);
    if (!w) {
        snprintf(r->note, sizeof r->note, "world: %.140s", err);
        return;
    }
    if (ctn_scene_from_spec(w, r->spec) != CTN_OK) {
        snprintf(r->note, sizeof r->note, "scene: %.140s", ctn_world_last_error(w));
        ctn_world_destroy(w);
        return;
    }
    /* the shared measurement (host/cli/bench_measure.c, as `catena bench`): warm-up steps (1 when the first
     * step shows they would not fit), then one block of up to max_steps steps within the case's budget */
    ctn_bench_plan plan = {.warmup = m->warmup, .repeats = 1, .steps = m->max_steps, .budget_s = case_s, .min_steps = 3};
    ctn_bench_result b;
    if (!ctn_bench_measure(w, &plan, &b)) snprintf(r->note, sizeof r->note, "%.150s", b.error);
    if (b.timed > 0) {
        r->ok = r->note[0] == '\0';
        r->steps = b.timed;
        r->ms = b.ms_median;
        r->ms_min = b.ms_min;
        r->prepare = b.ms_prepare, r->solve = b.ms_solve, r->integrate = b.ms_integrate;
        r->transfer = b.ms_transfer, r->collide = b.ms_collide;
        r->bodies = b.bodies;
        r->joints = b.joints;
        r->rows = b.rows, r->colours = b.colours, r->contacts = b.contacts;
        r->rups = b.row_updates_per_s;
        r->gap = b.gap_last;
        if (backend == CTN_BACKEND_OPENCL && solver == CTN_SOLVER_GS && gbps > 0.0 && b.rows > 0) {
            ctn_bench_gs_bandwidth_fraction(&b, gbps, &r->sweep_ms);
            r->floor_ms = r->joints * CTN_BENCH_GS_BYTES_PER_JOINT / (gbps * 1e9) * 1e3; /* one slot per joint (contacts included) */
        }
    }
    if (solver == CTN_SOLVER_CG && work == 4 && !r->note[0]) snprintf(r->note, sizeof r->note, "CG falls back to GS on contact rows");
    ctn_world_destroy(w);
}

/* Free end of the last link of a chain hanging along -y (link axis = body x, half length L/2). */
static double chain_stretch(ctn_world *w, ctn_body_id first, int links) {
    ctn_body_state b;
    if (ctn_body_get_state(w, ctn_body_id_offset(first, links - 1), &b) != CTN_OK) return NAN;
    const double *q = b.orientation, v[3] = {0.5 * LINK, 0.0, 0.0};
    double u[3] = {q[1], q[2], q[3]}, t[3], e[3];
    t[0] = 2.0 * (u[1] * v[2] - u[2] * v[1]), t[1] = 2.0 * (u[2] * v[0] - u[0] * v[2]), t[2] = 2.0 * (u[0] * v[1] - u[1] * v[0]);
    e[0] = v[0] + q[0] * t[0] + (u[1] * t[2] - u[2] * t[1]);
    e[1] = v[1] + q[0] * t[1] + (u[2] * t[0] - u[0] * t[2]);
    e[2] = v[2] + q[0] * t[2] + (u[0] * t[1] - u[1] * t[0]);
    double d = sqrt(pow(b.position[0] + e[0], 2) + pow(b.position[1] + e[1], 2) + pow(b.position[2] + e[2], 2));
    return (d - links * LINK) / (links * LINK);
}

static void run_acc(int links, int steps, ctn_solver solver, int iterations, int substeps, acc_res *r) {
    memset(r, 0, sizeof *r);
    snprintf(r->solver, sizeof r->solver, "%s", solver_name(solver));
    r->iterations = iterations, r->substeps = substeps;
    char err[2048];
    ctn_world *w = make_world(CTN_BACKEND_CPU, solver, iterations, substeps, err, sizeof err);
    if (!w) {
        snprintf(r->note, sizeof r->note, "world: %.140s", err);
        return;
    }
    ctn_chain_desc c = ctn_chain_desc_default(links);
    c.direction[0] = 0.0, c.direction[1] = -1.0;
    ctn_body_id first = CTN_NULL_BODY;
    if (ctn_scene_chain(w, &c, &first) != CTN_OK) {
        snprintf(r->note, sizeof r->note, "scene: %.140s", ctn_world_last_error(w));
        ctn_world_destroy(w);
        return;
    }
    ctn_bench_plan plan = {.warmup = 5, .repeats = 1, .steps = steps - 5};
    ctn_bench_result b;
    if (!ctn_bench_measure(w, &plan, &b)) snprintf(r->note, sizeof r->note, "%.150s", b.error);
    r->steps = b.steps_run;
    r->ok = r->steps == steps;
    r->gap_worst = b.gap_worst / LINK;
    if (b.timed > 0) {
        r->ms = b.ms_median;
        r->rups = b.row_updates_per_s;
    }
    r->gap_last = b.gap_last / LINK;
    r->stretch = chain_stretch(w, first, links);
    ctn_world_destroy(w);
}

static int copy_file(FILE *out, const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, n, out);
    fclose(f);
    return 1;
}

int main(int argc, char **argv) {
    const char *mode_name = "quick", *prefix = NULL, *backends = "cpu,opencl", *command = "", *commit = "", *workloads = "chain,rope,grid,bridge,pile";
    const char *inc_name[4], *inc_file[4], *inc_md[4];
    int ninc = 0, ninc_md = 0, do_acc = 1, do_scale = 1;
    double case_s = -1.0;
    for (int i = 1; i < argc; ++i) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--no-accuracy")) {
            do_acc = 0;
            continue;
        }
        if (!strcmp(o, "--no-scaling")) {
            do_scale = 0;
            continue;
        }
        if (!v) {
            fprintf(stderr, "usage: bench_suite --mode smoke|quick|full --prefix PREFIX [--backends cpu,opencl] [--case-seconds S] "
                            "[--command TEXT] [--commit TEXT] [--include NAME=FILE] [--include-md FILE] [--workloads LIST] "
                            "[--no-accuracy] [--no-scaling]\n");
            return 2;
        }
        ++i;
        if (!strcmp(o, "--mode")) mode_name = v;
        else if (!strcmp(o, "--prefix")) prefix = v;
        else if (!strcmp(o, "--backends")) backends = v;
        else if (!strcmp(o, "--case-seconds")) case_s = atof(v);
        else if (!strcmp(o, "--command")) command = v;
        else if (!strcmp(o, "--commit")) commit = v;
        else if (!strcmp(o, "--workloads")) workloads = v;
        else if (!strcmp(o, "--include-md") && ninc_md < 4) inc_md[ninc_md++] = v;
        else if (!strcmp(o, "--include") && ninc < 4 && strchr(v, '=')) {
            static char names[4][64];
            snprintf(names[ninc], sizeof names[ninc], "%.*s", (int)(strchr(v, '=') - v), v);
            inc_name[ninc] = names[ninc];
            inc_file[ninc++] = strchr(v, '=') + 1;
        } else {
            fprintf(stderr, "bench_suite: unknown option %s\n", o);
            return 2;
        }
    }
    const mode_cfg *m = NULL;
    for (size_t k = 0; k < sizeof modes / sizeof modes[0]; ++k)
        if (!strcmp(modes[k].name, mode_name)) m = &modes[k];
    if (!m || !prefix) {
        fprintf(stderr, "bench_suite: --mode smoke|quick|full and --prefix are required\n");
        return 2;
    }
    if (case_s <= 0.0) case_s = m->case_seconds;
    int use_cpu = strstr(backends, "cpu") != NULL, use_ocl = strstr(backends, "opencl") != NULL;
    char host[128] = "host", date[32], cpu[256], load0[64], load1[64];
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M", localtime(&now));
    cpu_model(cpu, sizeof cpu);
    loadavg(load0, sizeof load0);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

    /* devices and the OpenCL copy bandwidth */
    char dev_cpu[256] = "-", dev_ocl[256] = "not available", err[2048];
    double gbps = 0.0;
    ctn_world *w = make_world(CTN_BACKEND_CPU, CTN_SOLVER_GS, 0, 0, err, sizeof err);
    if (w) {
        snprintf(dev_cpu, sizeof dev_cpu, "%s", ctn_world_device_name(w));
        ctn_world_destroy(w);
    }
    if (use_ocl) {
        w = make_world(CTN_BACKEND_OPENCL, CTN_SOLVER_GS, 0, 0, err, sizeof err);
        if (w) {
            snprintf(dev_ocl, sizeof dev_ocl, "%s", ctn_world_device_name(w));
            size_t bytes = (size_t)(strcmp(m->name, "smoke") ? 128 : 8) << 20;
            gbps = ctn_bench_copy_bandwidth(w, bytes, 5);
            ctn_world_destroy(w);
        } else {
            snprintf(dev_ocl, sizeof dev_ocl, "not available: %.200s", err);
            fprintf(stderr, "bench_suite: no OpenCL backend (%s); CPU only\n", err);
            use_ocl = 0;
        }
    }
    fprintf(stderr, "bench_suite: mode %s, cpu '%s', opencl '%s', copy bandwidth %.2f GB/s\n", m->name, dev_cpu, dev_ocl, gbps);

    /* scaling */
    scale_res *sr = calloc(MAX_SCALE, sizeof *sr);
    acc_res *ar = calloc(MAX_ACC, sizeof *ar);
    if (!sr || !ar) return 1;
    int nsr = 0, nar = 0;
    const ctn_solver solvers[3] = {CTN_SOLVER_GS, CTN_SOLVER_JACOBI, CTN_SOLVER_CG};
    for (int wk = 0; wk < NWORK && do_scale; ++wk) {
        if (!strstr(workloads, workload_names[wk])) continue;
        for (int si = 0; si < 8 && m->sizes[wk][si] > 0; ++si)
            for (int b = 0; b < 2; ++b) {
                if ((b == 0 && !use_cpu) || (b == 1 && !use_ocl)) continue;
                for (int sv = 0; sv < 3 && nsr < MAX_SCALE; ++sv) {
                    scale_res *r = &sr[nsr++];
                    run_scale(m, wk, m->sizes[wk][si], b ? CTN_BACKEND_OPENCL : CTN_BACKEND_CPU, solvers[sv], gbps, case_s, r);
                    fprintf(stderr, "scaling %-14s %-6s %-6s %10.3f ms/step  %9.3g row updates/s  %d steps %s\n", r->spec, r->backend, r->solver,
                            r->ms, r->rups, r->steps, r->note);
                }
            }
    }
    /* accuracy vs time */
    const ctn_solver asolvers[4] = {CTN_SOLVER_GS, CTN_SOLVER_JACOBI, CTN_SOLVER_CG, CTN_SOLVER_DIRECT};
    for (int sv = 0; sv < 4 && do_acc; ++sv)
        for (int su = 0; su < 4 && m->acc_subs[su] > 0; ++su)
            for (int it = 0; it < 8 && m->acc_iters[it] > 0 && nar < MAX_ACC; ++it) {
                /* the direct solver is exact on a chain (a tree): one iteration; more only repeat the GS part */
                if (asolvers[sv] == CTN_SOLVER_DIRECT && it > 0) break;
                acc_res *r = &ar[nar++];
                run_acc(m->acc_links, m->acc_steps, asolvers[sv], m->acc_iters[it], m->acc_subs[su], r);
                fprintf(stderr, "accuracy %-6s %3dx%-3d %10.3f ms/step  gap worst %9.3g  stretch %9.3g %s\n", r->solver, r->iterations, r->substeps,
                        r->ms, r->gap_worst, r->stretch, r->note);
            }
    loadavg(load1, sizeof load1);

    /* ---- plots ---- */
    char path[1200];
    svg_series *ser = calloc(16, sizeof *ser);
    if (!ser) return 1;
    for (int wk = 0; wk < NWORK; ++wk) {
        int ns = 0;
        for (int b = 0; b < 2; ++b)
            for (int sv = 0; sv < 3; ++sv) {
                svg_series *s = &ser[ns];
                memset(s, 0, sizeof *s);
                snprintf(s->name, sizeof s->name, "%s %s", b ? "opencl" : "cpu", solver_name(solvers[sv]));
                s->dashed = b;
                for (int i = 0; i < nsr; ++i)
                    if (sr[i].work == wk && sr[i].ok && !strcmp(sr[i].backend, b ? "opencl" : "cpu") && !strcmp(sr[i].solver, solver_name(solvers[sv])))
                        svg_series_add(s, sr[i].bodies, sr[i].ms);
                if (s->n > 0) ns++;
            }
        if (ns == 0) continue;
        char title[256];
        snprintf(title, sizeof title, "ms/step vs bodies: %s (4 iterations x 4 substeps, h = 1/60 s)", workload_names[wk]);
        snprintf(path, sizeof path, "%.1000s-ms-per-step-%s.svg", prefix, workload_names[wk]);
        svg_plot(path, title, "bodies", "ms/step (median)", 1, 1, ser, ns);
    }
    {
        int ns = 0;
        for (int wk = 0; wk < NWORK; ++wk)
            for (int b = 0; b < 2; ++b) {
                svg_series *s = &ser[ns];
                memset(s, 0, sizeof *s);
                snprintf(s->name, sizeof s->name, "%s %s gs", workload_names[wk], b ? "opencl" : "cpu");
                s->dashed = b;
                for (int i = 0; i < nsr; ++i)
                    if (sr[i].work == wk && sr[i].ok && !strcmp(sr[i].backend, b ? "opencl" : "cpu") && !strcmp(sr[i].solver, "gs"))
                        svg_series_add(s, sr[i].bodies, sr[i].rups);
                if (s->n > 0) ns++;
            }
        snprintf(path, sizeof path, "%.1000s-row-updates.svg", prefix);
        if (ns) svg_plot(path, "Row updates per second vs bodies (GS, 4 x 4, dashed: OpenCL)", "bodies", "row updates/s", 1, 1, ser, ns);
    }
    for (int plot = 0; plot < 2 && nar > 0; ++plot) {
        int ns = 0;
        for (int sv = 0; sv < 4; ++sv)
            for (int su = 0; su < 4 && m->acc_subs[su] > 0; ++su) {
                svg_series *s = &ser[ns];
                memset(s, 0, sizeof *s);
                snprintf(s->name, sizeof s->name, "%s, %d substeps%s", solver_name(asolvers[sv]), m->acc_subs[su],
                         asolvers[sv] == CTN_SOLVER_DIRECT ? "" : " (1..N it.)");
                s->dashed = sv % 2;
                for (int i = 0; i < nar; ++i)
                    if (ar[i].ok && ar[i].substeps == m->acc_subs[su] && !strcmp(ar[i].solver, solver_name(asolvers[sv])))
                        svg_series_add(s, ar[i].ms, plot ? fabs(ar[i].stretch) : ar[i].gap_worst);
                if (s->n > 0 && ns < 15) ns++;
            }
        char title[256];
        snprintf(title, sizeof title, "%s vs ms/step: hanging chain of %d links, %d steps at 60 Hz, CPU", plot ? "|stretch|" : "Worst joint gap / L",
                 m->acc_links, m->acc_steps);
        snprintf(path, sizeof path, "%.1000s-accuracy-%s.svg", prefix, plot ? "stretch" : "gap");
        svg_plot(path, title, "ms/step (median)", plot ? "|stretch| = ||end - pin| - nL| / nL" : "worst joint gap / link length", 1, 1, ser, ns);
    }
    free(ser);

    /* ---- Markdown ---- */
    snprintf(path, sizeof path, "%.1000s.md", prefix);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 1;
    }
    fprintf(f, "# Catena benchmark suite: %s, %s (mode %s)\n\n", date, host, m->name);
    fprintf(f, "Command: `%s`%s%s%s. Machine: %s, %ld logical CPUs; load average (1, 5, 15 min) %s at the start, %s at the end. "
               "CPU backend: %s (OpenMP threads: automatic). OpenCL device: %s. Measured device copy bandwidth: %.2f GB/s (read + write).\n\n",
            command, commit[0] ? " at commit `" : "", commit, commit[0] ? "`" : "", cpu, ncpu, load0, load1, dev_cpu, dev_ocl, gbps);
    fprintf(f, "Metric definitions: bench/README.md (\"Metrics\"). ms/step = median wall time of `ctn_world_step` (all substeps; the OpenCL step "
               "returns after the device finished) over the measured steps after the warm-up steps; row updates/s = rows x iterations x "
               "substeps / (ms/step); gap = largest joint anchor separation.\n\n");
    if (nsr > 0) { /* headline: the chain at 1e4 links and at the largest size, every backend and solver */
        int big = 0;
        for (int i = 0; i < nsr; ++i)
            if (sr[i].work == 0 && sr[i].ok && sr[i].n > big) big = sr[i].n;
        fprintf(f, "## Headline: chain (defaults: 4 iterations x 4 substeps, h = 1/60 s)\n\n| links | backend | solver | ms/step | row updates/s |\n"
                   "|---:|---|---|---:|---:|\n");
        for (int i = 0; i < nsr; ++i)
            if (sr[i].work == 0 && sr[i].ok && (sr[i].n == 10000 || sr[i].n == big))
                fprintf(f, "| %d | %s | %s | %.3f | %.3g |\n", sr[i].n, sr[i].backend, sr[i].solver, sr[i].ms, sr[i].rups);
        fprintf(f, "\n");
    }
    if (nsr > 0) {
        fprintf(f, "## Scaling: ms/step and row updates/s vs bodies\n\nAll at the library defaults: %d iterations x %d substeps, h = 1/60 s, "
                   "SPOOK, warm start 0.5, geometric stiffness 1. %d warm-up steps (1 for a case whose first step is slow), then up to %d "
                   "measured steps or %.0f s per case (at least 3). Workloads (`ctn_scene_from_spec` specs, deterministic; the pile's jitter "
                   "has a fixed seed):\n\n",
                4, 4, m->warmup, m->max_steps, case_s);
        for (int wk = 0; wk < NWORK; ++wk) fprintf(f, "- **%s**: %s.\n", workload_names[wk], workload_text[wk]);
        fprintf(f, "\n| scene | backend | solver | bodies | rows | colours | ms/step | prepare | solve | integrate | transfer | collide | row "
                   "updates/s | max gap (m) | steps | notes |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (int i = 0; i < nsr; ++i) {
            const scale_res *r = &sr[i];
            if (r->steps == 0) {
                fprintf(f, "| %s | %s | %s | | | | not run | | | | | | | | | %s |\n", r->spec, r->backend, r->solver, r->note);
                continue;
            }
            fprintf(f, "| %s | %s | %s | %d | %d | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3g | %.3g | %d | %s |\n", r->spec, r->backend,
                    r->solver, r->bodies, r->rows, r->colours, r->ms, r->prepare, r->solve, r->integrate, r->transfer, r->collide, r->rups, r->gap,
                    r->steps, r->note);
        }
        int nfloor = 0;
        for (int i = 0; i < nsr; ++i) nfloor += sr[i].floor_ms > 0.0;
        if (nfloor) {
            fprintf(f, "\n### Physical floor of the OpenCL GS sweep\n\nOne block GS update of a joint slot moves %.0f B (bench_backends.c: joint "
                       "definition 112, block 288, impulses 24 + 24, two bodies' velocities 64 + 64 and inverse inertias 64, residual 4). "
                       "floor = joint slots x %.0f B / %.2f GB/s (measured copy bandwidth); achieved = device solve time per step / "
                       "(iterations x substeps), which also holds the warm start, so achieved/floor is an upper bound.\n\n",
                    GS_BYTES_PER_JOINT, GS_BYTES_PER_JOINT, gbps);
            fprintf(f, "| scene | rows | GS sweep ms (achieved) | floor ms | achieved / floor |\n|---|---:|---:|---:|---:|\n");
            for (int i = 0; i < nsr; ++i)
                if (sr[i].floor_ms > 0.0)
                    fprintf(f, "| %s | %d | %.4f | %.5f | %.1f |\n", sr[i].spec, sr[i].rows, sr[i].sweep_ms, sr[i].floor_ms,
                            sr[i].sweep_ms / sr[i].floor_ms);
        }
        fprintf(f, "\nPlots: `%s-ms-per-step-<workload>.svg` (log-log, dashed: OpenCL), `%s-row-updates.svg`.\n\n", strrchr(prefix, '/') ? strrchr(prefix, '/') + 1 : prefix,
                strrchr(prefix, '/') ? strrchr(prefix, '/') + 1 : prefix);
    }
    if (nar > 0) {
        fprintf(f, "## Accuracy vs time: hanging chain of %d links\n\nThe chain of bench_chain and bench_peers: %d rigid links of 0.1 m and 0.1 kg "
                   "(box inertia of half extents 0.05 x 0.005 x 0.005 m), ball joints at the link ends, link 0 pinned at the origin, hanging "
                   "straight down (-y) at rest, exactly assembled; gravity 9.81, h = 1/60 s, %d steps (%.1f s), CPU backend, warm start 0.5, "
                   "SPOOK, geometric stiffness 1. ms/step = median after 5 warm-up steps. gap (worst) = largest joint anchor separation / L "
                   "over all steps; stretch = (|free end - pin| - nL) / nL after the last step (a freely falling lower chain reads about "
                   "+0.2 at 1000 links after 2 s). The direct solver is exact on a tree, so it runs 1 iteration.\n\n",
                m->acc_links, m->acc_links, m->acc_steps, m->acc_steps / 60.0);
        fprintf(f, "| solver | iterations x substeps | ms/step | row updates/s | gap (last) | gap (worst) | stretch | notes |\n"
                   "|---|---|---:|---:|---:|---:|---:|---|\n");
        for (int i = 0; i < nar; ++i) {
            const acc_res *r = &ar[i];
            fprintf(f, "| %s | %dx%d | %.3f | %.3g | %.3g | %.3g | %.3g | %s%s |\n", r->solver, r->iterations, r->substeps, r->ms, r->rups, r->gap_last,
                    r->gap_worst, r->stretch, r->ok ? "" : "incomplete: ", r->note);
        }
        fprintf(f, "\nFastest setting per solver that holds the chain (worst gap <= 0.1 L over the run), and the most accurate one:\n\n"
                   "| solver | fastest with gap <= 0.1 L | ms/step | gap (worst) | most accurate | ms/step | gap (worst) |\n|---|---|---:|---:|---|---:|---:|\n");
        for (int sv = 0; sv < 4; ++sv) {
            int best = -1, acc = -1;
            for (int i = 0; i < nar; ++i) {
                if (!ar[i].ok || strcmp(ar[i].solver, solver_name(asolvers[sv]))) continue;
                if (ar[i].gap_worst <= 0.1 && (best < 0 || ar[i].ms < ar[best].ms)) best = i;
                if (acc < 0 || ar[i].gap_worst < ar[acc].gap_worst) acc = i;
            }
            fprintf(f, "| %s |", solver_name(asolvers[sv]));
            if (best >= 0) fprintf(f, " %dx%d | %.3f | %.3g |", ar[best].iterations, ar[best].substeps, ar[best].ms, ar[best].gap_worst);
            else fprintf(f, " none | | |");
            if (acc >= 0) fprintf(f, " %dx%d | %.3f | %.3g |\n", ar[acc].iterations, ar[acc].substeps, ar[acc].ms, ar[acc].gap_worst);
            else fprintf(f, " none | | |\n");
        }
        fprintf(f, "\nPlots: `%s-accuracy-gap.svg`, `%s-accuracy-stretch.svg` (one line per solver and substep count, points = iteration counts).\n\n",
                strrchr(prefix, '/') ? strrchr(prefix, '/') + 1 : prefix, strrchr(prefix, '/') ? strrchr(prefix, '/') + 1 : prefix);
    }
    for (int k = 0; k < ninc_md; ++k)
        if (!copy_file(f, inc_md[k])) fprintf(stderr, "bench_suite: cannot read %s\n", inc_md[k]);
    fclose(f);

    /* ---- JSON ---- */
    snprintf(path, sizeof path, "%.1000s.json", prefix);
    f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 1;
    }
    fprintf(f, "{\n  \"suite\": \"catena bench_suite\",\n  \"mode\": \"%s\",\n  \"date\": \"%s\",\n  \"host\": ", m->name, date);
    ctn__json_write_string(f, host);
    fprintf(f, ",\n  \"command\": ");
    ctn__json_write_string(f, command);
    fprintf(f, ",\n  \"commit\": ");
    ctn__json_write_string(f, commit);
    fprintf(f, ",\n  \"cpu\": ");
    ctn__json_write_string(f, cpu);
    fprintf(f, ",\n  \"logical_cpus\": %ld,\n  \"load_average_start\": \"%s\",\n  \"load_average_end\": \"%s\",\n  \"devices\": {\"cpu\": ", ncpu, load0, load1);
    ctn__json_write_string(f, dev_cpu);
    fprintf(f, ", \"opencl\": ");
    ctn__json_write_string(f, dev_ocl);
    fprintf(f, "},\n  \"opencl_copy_bandwidth_gbps\": %.4f,\n  \"gs_bytes_per_joint\": %.0f,\n", gbps, GS_BYTES_PER_JOINT);
    fprintf(f, "  \"timing\": \"wall time (CLOCK_MONOTONIC) of ctn_world_step incl. device sync, median of measured steps after warm-up\",\n");
    fprintf(f, "  \"scaling\": {\n    \"iterations\": 4, \"substeps\": 4, \"time_step\": %.9g, \"warmup\": %d, \"max_steps\": %d, \"case_seconds\": %g,\n"
               "    \"workloads\": {",
            1.0 / 60.0, m->warmup, m->max_steps, case_s);
    for (int wk = 0; wk < NWORK; ++wk) {
        fprintf(f, "%s\"%s\": ", wk ? ", " : "", workload_names[wk]);
        ctn__json_write_string(f, workload_text[wk]);
    }
    fprintf(f, "},\n    \"results\": [\n");
    for (int i = 0; i < nsr; ++i) {
        const scale_res *r = &sr[i];
        fprintf(f,
                "      {\"workload\": \"%s\", \"spec\": \"%s\", \"backend\": \"%s\", \"solver\": \"%s\", \"bodies\": %d, \"joints\": %d, \"rows\": %d, "
                "\"colours\": %d, \"contacts\": %d, \"steps\": %d, \"ok\": %s, \"ms_per_step\": %.6g, \"ms_min\": %.6g, \"ms_prepare\": %.6g, "
                "\"ms_solve\": %.6g, \"ms_integrate\": %.6g, \"ms_transfer\": %.6g, \"ms_collide\": %.6g, \"row_updates_per_s\": %.6g, "
                "\"max_gap_m\": %.6g, \"gs_sweep_ms\": %.6g, \"gs_floor_ms\": %.6g, \"note\": ",
                workload_names[r->work], r->spec, r->backend, r->solver, r->bodies, r->joints, r->rows, r->colours, r->contacts, r->steps,
                r->ok ? "true" : "false", r->ms, r->ms_min, r->prepare, r->solve, r->integrate, r->transfer, r->collide, r->rups, jnum(r->gap),
                r->sweep_ms, r->floor_ms);
        ctn__json_write_string(f, r->note);
        fprintf(f, "}%s\n", i + 1 < nsr ? "," : "");
    }
    fprintf(f, "    ]\n  },\n  \"accuracy\": {\n    \"scene\": \"hanging chain (ctn_scene_chain, direction -y, at rest)\", \"links\": %d, "
               "\"link_length\": 0.1, \"link_mass\": 0.1, \"time_step\": %.9g, \"steps\": %d, \"warmup\": 5, \"backend\": \"cpu\",\n    \"results\": [\n",
            m->acc_links, 1.0 / 60.0, m->acc_steps);
    for (int i = 0; i < nar; ++i) {
        const acc_res *r = &ar[i];
        fprintf(f,
                "      {\"solver\": \"%s\", \"iterations\": %d, \"substeps\": %d, \"steps\": %d, \"ok\": %s, \"ms_per_step\": %.6g, "
                "\"row_updates_per_s\": %.6g, \"gap_last\": %.6g, \"gap_worst\": %.6g, \"stretch\": %.6g, \"note\": ",
                r->solver, r->iterations, r->substeps, r->steps, r->ok ? "true" : "false", r->ms, r->rups, jnum(r->gap_last), jnum(r->gap_worst),
                jnum(r->stretch));
        ctn__json_write_string(f, r->note);
        fprintf(f, "}%s\n", i + 1 < nar ? "," : "");
    }
    fprintf(f, "    ]\n  }");
    for (int k = 0; k < ninc; ++k) {
        fprintf(f, ",\n  \"%s\": ", inc_name[k]);
        if (!copy_file(f, inc_file[k])) fprintf(f, "null");
    }
    fprintf(f, "\n}\n");
    fclose(f);
    free(sr);
    free(ar);
    fprintf(stderr, "bench_suite: wrote %s.md, %s.json and %s-*.svg\n", prefix, prefix, prefix);
    return 0;
}
