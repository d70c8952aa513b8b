/* bench_peers: Catena against Bullet 3, ODE and MuJoCo on the same hanging chain, in the same run.
 *
 * Every case builds the chain of peer.h (rigid links of 0.1 m and 0.1 kg, box inertia, ball joints, first
 * link pinned to the world at the origin, hanging straight down at rest, gravity 9.81 along -y, 60 Hz) in
 * one engine, steps it, and reports:
 *   ms/step    median wall time of one step call (all its substeps; device sync included for Catena's
 *              OpenCL backend, whose step returns after its results are on the host) after 5 warm-up steps;
 *   gap        the largest joint anchor separation / link length, from the engine's own body poses and the
 *              known local anchors (the pin included), at the last step and the worst over all steps;
 *   stretch    (|free end - pin| - n L) / (n L) at the last step.
 * Accuracy is read outside the timed region. A "speed at equal accuracy" table then puts each peer row
 * next to the fastest Catena row that is at least as accurate (worst-step gap), and says so when a peer wins.
 *
 * usage: bench_peers [--sizes 1000,10000] [--steps 120] [--case-seconds 30] [--cases LIST] [--backends cpu,opencl]
 *                    [--threads 1,2] [--out DIR] [--md FILE] [--json FILE]
 * A case is ENGINE[/VARIANT]:ITERATIONSxSUBSTEPS; ENGINE is catena, bullet, ode or mujoco. Catena's
 * variant is its solver (gs, jacobi, cg, direct) and is run on every backend of --backends; Bullet's is
 * rigid or multibody, MuJoCo's connect or nested. With --out DIR the results go to
 * DIR/<YYYY-MM-DD>-<host>-peers.md and .json.
 */
#define _POSIX_C_SOURCE 200809L
#include "io/json_write.h"
#include "peer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_CASES 64
#define WARMUP 5
#define TORN 0.1 /* a worst-step gap above this fraction of a link length means the chain came apart */

static const char *DEFAULT_CASES =
    "catena/gs:10x1,bullet:10x1,ode:10x1,mujoco:10x1,"
    "catena/gs:50x1,bullet:50x1,ode:50x1,mujoco:50x1,"
    "catena/gs:1x10,bullet:1x10,ode:1x10,mujoco:1x10,"
    "catena/gs:1x50,ode:1x50,catena/gs:4x4,catena/direct:1x1,catena/direct:1x4,"
    "bullet/multibody:1x1,mujoco/nested:1x1";

typedef struct bench_case {
    char engine[16];
    char variant[32];  /* as given to the adapter */
    char label[64];    /* engine/variant, for the tables */
    int iterations, substeps, threads;
} bench_case;

typedef struct result {
    bench_case c;
    int links, steps_run, steps_wanted, ok, reduced;
    double ms_median, ms_min, gap_last, gap_worst, stretch, build_s, measure_s;
    char note[256];
    char error[512];
} result;

static const peer_engine *find_engine(const char *name) {
    static const peer_engine *const all[] = {
        &peer_catena,
#ifdef PEER_HAVE_BULLET
        &peer_bullet,
#endif
#ifdef PEER_HAVE_ODE
        &peer_ode,
#endif
#ifdef PEER_HAVE_MUJOCO
        &peer_mujoco,
#endif
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        if (!strcmp(all[i]->name, name)) return all[i];
    return NULL;
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double dist3(const double *a, const double *b) {
    double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

/* Largest joint gap / L: the pin (top of link 0 vs the origin) and every link-to-link joint. */
static double max_gap(const double *top, const double *bottom, int n, double L) {
    const double origin[3] = {0.0, 0.0, 0.0};
    double g = dist3(top, origin);
    for (int i = 1; i < n; ++i) {
        double d = dist3(bottom + 3 * (i - 1), top + 3 * i);
        if (d > g || !isfinite(d)) g = d;
    }
    return g / L;
}

static result run_case(const bench_case *bc, int links, int steps, double case_seconds) {
    result r;
    memset(&r, 0, sizeof r);
    r.c = *bc;
    r.links = links;
    r.steps_wanted = steps;
    const peer_engine *e = find_engine(bc->engine);
    if (!e) {
        snprintf(r.error, sizeof r.error, "%.15s: not built (library not found at configure time)", bc->engine);
        return r;
    }
    peer_chain c;
    memset(&c, 0, sizeof c);
    c.links = links;
    c.link_length = 0.1;
    c.link_mass = 0.1;
    /* box of half extents (L/20, L/2, L/20): I = m/3 (b^2 + c^2) for the two other half extents */
    double hx = 0.05 * c.link_length, hy = 0.5 * c.link_length;
    c.inertia[0] = c.link_mass / 3.0 * (hy * hy + hx * hx);
    c.inertia[1] = c.link_mass / 3.0 * (hx * hx + hx * hx);
    c.inertia[2] = c.inertia[0];
    c.gravity = 9.81;
    c.time_step = 1.0 / 60.0;
    c.iterations = bc->iterations;
    c.substeps = bc->substeps;
    c.threads = bc->threads;
    snprintf(c.variant, sizeof c.variant, "%s", bc->variant);
    double t0 = now_s();
    void *sim = e->create(&c, r.note, sizeof r.note, r.error, sizeof r.error);
    r.build_s = now_s() - t0;
    for (char *q = r.error; *q; ++q)
        if (*q == '\n' || *q == '\r' || *q == '|') *q = ' ';
    if (!sim) return r;
    double *top = malloc(sizeof(double) * 3 * (size_t)links), *bottom = malloc(sizeof(double) * 3 * (size_t)links);
    double *ms = malloc(sizeof(double) * (size_t)(steps > 0 ? steps : 1));
    if (!top || !bottom || !ms) {
        snprintf(r.error, sizeof r.error, "out of memory");
        goto done;
    }
    double spent = 0.0, t_measure = 0.0;
    int timed = 0;
    for (int k = 0; k < steps; ++k) {
        double a = now_s();
        int rc = e->step(sim);
        double dt = now_s() - a;
        spent += dt;
        if (rc) {
            snprintf(r.error, sizeof r.error, "step %d failed", k);
            break;
        }
        if (k >= WARMUP) ms[timed++] = 1e3 * dt;
        double m0 = now_s();
        int bad = e->anchors(sim, top, bottom);
        t_measure += now_s() - m0;
        if (bad) {
            snprintf(r.error, sizeof r.error, "reading poses failed at step %d", k);
            break;
        }
        double g = max_gap(top, bottom, links, c.link_length);
        if (g > r.gap_worst || !isfinite(g)) r.gap_worst = g;
        r.gap_last = g;
        r.steps_run = k + 1;
        if (!isfinite(g)) {
            snprintf(r.error, sizeof r.error, "diverged (non-finite pose) at step %d", k);
            break;
        }
        /* slow case: after the warm-up, cut the run to fit case_seconds, keeping at least 20 steps */
        if (k == WARMUP && case_seconds > 0.0) {
            double per = spent / (k + 1);
            int fit = (int)(case_seconds / (per > 1e-9 ? per : 1e-9));
            if (fit < steps) {
                steps = fit < 20 ? 20 : fit;
                r.reduced = 1;
            }
        }
    }
    if (r.steps_run == steps && !r.error[0]) r.ok = 1;
    if (timed > 0) {
        qsort(ms, (size_t)timed, sizeof *ms, cmp_double);
        r.ms_median = ms[timed / 2];
        r.ms_min = ms[0];
    }
    if (r.steps_run > 0) {
        const double origin[3] = {0.0, 0.0, 0.0};
        double ideal = links * c.link_length;
        r.stretch = (dist3(bottom + 3 * (links - 1), origin) - ideal) / ideal;
    }
    r.measure_s = t_measure;
done:
    free(top), free(bottom), free(ms);
    e->destroy(sim);
    return r;
}

static int parse_case(const char *s, bench_case *bc) {
    char name[64] = "";
    memset(bc, 0, sizeof *bc);
    if (sscanf(s, "%63[^:]:%dx%d", name, &bc->iterations, &bc->substeps) != 3) return 0;
    if (bc->iterations < 1 || bc->substeps < 1) return 0;
    char *slash = strchr(name, '/');
    if (slash) *slash = '\0';
    const char *variant = slash ? slash + 1 : "";
    size_t ne = strlen(name), nv = strlen(variant);
    if (ne >= sizeof bc->engine || nv >= sizeof bc->variant) return 0; /* refused, not cut short */
    memcpy(bc->engine, name, ne + 1);
    memcpy(bc->variant, variant, nv + 1);
    return bc->engine[0] != '\0';
}

static void cpu_model(char *out, size_t size) {
    snprintf(out, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "model name", 10)) {
            char *c = strchr(line, ':');
            if (c) {
                c += 2;
                c[strcspn(c, "\n")] = '\0';
                snprintf(out, size, "%s", c);
            }
            break;
        }
    }
    fclose(f);
}

/* The 1-minute load average when the run ended: other work on the machine makes the timings noisier. */
static double load_average(void) {
    double l = -1.0;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = -1.0;
        fclose(f);
    }
    return l;
}

static int is_catena(const result *r) { return !strcmp(r->c.engine, "catena"); }
static int reduced_coordinates(const result *r) {
    return !strcmp(r->c.variant, "multibody") || !strcmp(r->c.variant, "nested");
}

/* Sweeps through the constraints per step: iterations x substeps (0 for reduced-coordinate engines). */
static int sweeps(const result *r) { return reduced_coordinates(r) ? 0 : r->c.iterations * r->c.substeps; }

/* Row updates per second: 3 rows per ball joint (the pin included) x sweeps / step time; 0 when not applicable. */
static double row_updates_per_s(const result *r) {
    return r->ms_median > 0.0 ? 3.0 * r->links * sweeps(r) / (1e-3 * r->ms_median) : 0.0;
}

static void fmt_gap(char *out, size_t size, const result *r, double g) {
    if (reduced_coordinates(r)) snprintf(out, size, "%.2g (by construction)", g);
    else snprintf(out, size, "%.3g", g);
}

static void write_md(FILE *f, const result *res, int nres, const int *sizes, int nsizes, int steps, const char *date, const char *host,
                     const char *cpu, const char *cmdline) {
    fprintf(f, "# Catena vs Bullet, ODE and MuJoCo: hanging chain, %s, %s\n\n", date, host);
    fprintf(f, "Machine: %s, %ld logical CPUs, load average %.2f at the end of the run. Command: `%s`\n\n", cpu,
            sysconf(_SC_NPROCESSORS_ONLN), load_average(), cmdline);
    fprintf(f, "Workload: n rigid links (0.1 m, 0.1 kg, box inertia of half extents 0.005 x 0.05 x 0.005 m), ball joints at the "
               "link ends, link 0 pinned to the world at the origin, hanging straight down at rest; gravity 9.81 m/s^2, time step "
               "1/60 s, up to %d steps per case (fewer where marked, to bound the run time). ms/step: median wall time of a step "
               "(all its substeps) after %d warm-up steps. gap: largest joint anchor separation / link length computed from the "
               "engine's body poses (last step, and worst over the run). stretch: (|end - pin| - nL) / nL at the last step. "
               "sweeps: solver iterations x substeps per step; row updates/s: 3 rows per ball joint x sweeps / step time. Peers are single-threaded; Catena runs with the threads shown.\n\n",
            steps, WARMUP);
    for (int si = 0; si < nsizes; ++si) {
        int n = sizes[si];
        fprintf(f, "## %d links\n\n", n);
        /* headline: per engine label, its most accurate completed row (ties: the faster) */
        fprintf(f, "Most accurate row per engine (worst-step gap; ties go to the faster):\n\n");
        fprintf(f, "| engine | iterations x substeps | ms/step | gap (worst) | stretch |\n|---|---|---:|---:|---:|\n");
        for (int i = 0; i < nres; ++i) {
            const result *r = &res[i];
            if (r->links != n) continue;
            int first = 1, best = i;
            for (int j = 0; j < nres; ++j) {
                const result *o = &res[j];
                if (o->links != n || strcmp(o->c.label, r->c.label)) continue;
                if (j < i) first = 0;
                const result *b = &res[best];
                if (o->ok && (!b->ok || o->gap_worst < b->gap_worst || (o->gap_worst == b->gap_worst && o->ms_median < b->ms_median)))
                    best = j;
            }
            if (!first) continue;
            const result *b = &res[best];
            if (!b->ok) {
                fprintf(f, "| %s | | not run | | %s |\n", b->c.label, b->error);
                continue;
            }
            char gw[48];
            fmt_gap(gw, sizeof gw, b, b->gap_worst);
            fprintf(f, "| %s | %dx%d | %.3f | %s | %.3g |\n", b->c.label, b->c.iterations, b->c.substeps, b->ms_median, gw, b->stretch);
        }
        fprintf(f, "\nAll rows:\n\n");
        fprintf(f, "| engine | iterations x substeps | sweeps | ms/step | row updates/s | gap (last) | gap (worst) | stretch | steps |\n");
        fprintf(f, "|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (int i = 0; i < nres; ++i) {
            const result *r = &res[i];
            if (r->links != n) continue;
            if (r->error[0] && r->steps_run == 0) {
                fprintf(f, "| %s | %dx%d | | not run | | | | | %s |\n", r->c.label, r->c.iterations, r->c.substeps, r->error);
                continue;
            }
            char gl[48], gw[48];
            fmt_gap(gl, sizeof gl, r, r->gap_last);
            fmt_gap(gw, sizeof gw, r, r->gap_worst);
            char ru[32] = "";
            if (sweeps(r) > 0) snprintf(ru, sizeof ru, "%.3g", row_updates_per_s(r));
            fprintf(f, "| %s | %dx%d | %d | %.3f | %s | %s | %s | %.3g | %d%s%s |\n", r->c.label, r->c.iterations, r->c.substeps, sweeps(r),
                    r->ms_median, ru, gl, gw, r->stretch, r->steps_run, r->reduced ? " (cut)" : "", r->error[0] ? " FAILED" : "");
        }
        /* speed at equal accuracy */
        fprintf(f, "\nSpeed at equal accuracy (%d links): each peer row against the fastest Catena row whose worst-step gap is "
                   "no larger.\n\n", n);
        fprintf(f, "| peer | peer ms/step | peer gap (worst) | fastest Catena row at least as accurate | Catena ms/step | Catena gap "
                   "(worst) | verdict |\n|---|---:|---:|---|---:|---:|---|\n");
        for (int i = 0; i < nres; ++i) {
            const result *p = &res[i];
            if (p->links != n || is_catena(p) || !p->ok) continue;
            const result *best = NULL;
            for (int j = 0; j < nres; ++j) {
                const result *c = &res[j];
                if (c->links != n || !is_catena(c) || !c->ok) continue;
                if (c->gap_worst <= p->gap_worst && (!best || c->ms_median < best->ms_median)) best = c;
            }
            char pl[96];
            snprintf(pl, sizeof pl, "%s %dx%d", p->c.label, p->c.iterations, p->c.substeps);
            if (!best) {
                fprintf(f, "| %s | %.3f | %.3g | none | | | **%s wins**: no Catena row reached its accuracy |\n", pl, p->ms_median,
                        p->gap_worst, p->c.engine);
                continue;
            }
            double ratio = p->ms_median / best->ms_median;
            char verdict[160];
            if (ratio >= 1.0) snprintf(verdict, sizeof verdict, "Catena %.2fx faster", ratio);
            else snprintf(verdict, sizeof verdict, "**%s %.2fx faster**", p->c.engine, 1.0 / ratio);
            if (p->gap_worst > TORN) {
                size_t len = strlen(verdict);
                snprintf(verdict + len, sizeof verdict - len, " (peer gap > %g L: chain not held)", TORN);
            }
            fprintf(f, "| %s | %.3f | %.3g | %s %dx%d | %.3f | %.3g | %s |\n", pl, p->ms_median, p->gap_worst, best->c.label,
                    best->c.iterations, best->c.substeps, best->ms_median, best->gap_worst, verdict);
        }
        fprintf(f, "\n");
    }
    fprintf(f, "## Engine settings\n\n");
    for (int i = 0; i < nres; ++i) {
        int dup = 0;
        for (int j = 0; j < i; ++j)
            if (!strcmp(res[j].c.label, res[i].c.label) && !strcmp(res[j].note, res[i].note)) dup = 1;
        if (!dup && res[i].note[0]) fprintf(f, "- %s: %s\n", res[i].c.label, res[i].note);
    }
    fprintf(f, "\nReduced-coordinate rows (bullet/multibody, mujoco/nested) cannot open a joint: their gap is 0 up to rounding by "
               "construction and their iteration count is irrelevant; they compare speed only. MuJoCo's connect constraints are soft "
               "by design (solref), so part of its gap is its model, not solver error.\n");
}

static void write_json(FILE *f, const result *res, int nres, int steps, const char *date, const char *host, const char *cpu,
                       const char *cmdline) {
    fprintf(f, "{\n  \"benchmark\": \"bench_peers\",\n  \"date\": ");
    ctn__json_write_string(f, date);
    fprintf(f, ",\n  \"host\": ");
    ctn__json_write_string(f, host);
    fprintf(f, ",\n  \"cpu\": ");
    ctn__json_write_string(f, cpu);
    fprintf(f, ",\n  \"logical_cpus\": %ld,\n  \"load_average_1min\": %.2f,\n  \"command\": ", sysconf(_SC_NPROCESSORS_ONLN),
            load_average());
    ctn__json_write_string(f, cmdline);
    fprintf(f, ",\n  \"workload\": {\"scene\": \"hanging chain, rigid links, ball joints, link 0 pinned at the origin, at rest\", "
               "\"link_length\": 0.1, \"link_mass\": 0.1, \"link_half_extents\": [0.005, 0.05, 0.005], \"gravity\": 9.81, "
               "\"time_step\": %.9g, \"steps\": %d, \"warmup_steps\": %d},\n",
            1.0 / 60.0, steps, WARMUP);
    fprintf(f, "  \"metrics\": {\"ms_per_step\": \"median wall time of one step call after the warm-up\", "
               "\"gap\": \"largest joint anchor separation / link length from the engine's poses\", "
               "\"stretch\": \"(|end - pin| - n L) / (n L) at the last step\", "
               "\"row_updates_per_s\": \"3 rows per ball joint x iterations x substeps / step time (0: reduced coordinates)\"},\n  \"results\": [\n");
    for (int i = 0; i < nres; ++i) {
        const result *r = &res[i];
        fprintf(f, "    {\"links\": %d, \"engine\": ", r->links);
        ctn__json_write_string(f, r->c.engine);
        fprintf(f, ", \"variant\": ");
        ctn__json_write_string(f, r->c.variant);
        fprintf(f, ", \"iterations\": %d, \"substeps\": %d, \"threads\": %d, \"reduced_coordinates\": %s, \"completed\": %s, ", r->c.iterations,
                r->c.substeps, r->c.threads, reduced_coordinates(r) ? "true" : "false", r->ok ? "true" : "false");
        fprintf(f, "\"steps\": %d, \"ms_per_step\": %.6g, \"ms_min\": %.6g, \"row_updates_per_s\": %.6g, \"gap_last\": %.6g, \"gap_worst\": %.6g, \"stretch\": %.6g, "
                   "\"build_s\": %.4g, \"settings\": ",
                r->steps_run, r->ms_median, r->ms_min, row_updates_per_s(r), isfinite(r->gap_last) ? r->gap_last : -1.0,
                isfinite(r->gap_worst) ? r->gap_worst : -1.0, isfinite(r->stretch) ? r->stretch : -1.0, r->build_s);
        ctn__json_write_string(f, r->note);
        fprintf(f, ", \"error\": ");
        ctn__json_write_string(f, r->error);
        fprintf(f, "}%s\n", i + 1 < nres ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
}

static int usage(void) {
    fprintf(stderr, "usage: bench_peers [--sizes 1000,10000] [--steps 120] [--case-seconds 30] [--cases ENGINE[/VARIANT]:ITxSUB,...]\n"
                    "                   [--backends cpu,opencl] [--threads 1,2] [--out DIR] [--md FILE] [--json FILE]\n"
                    "engines built in: catena"
#ifdef PEER_HAVE_BULLET
                    " bullet"
#endif
#ifdef PEER_HAVE_ODE
                    " ode"
#endif
#ifdef PEER_HAVE_MUJOCO
                    " mujoco"
#endif
                    "\n");
    return 2;
}

static int write_file(const char *path, int json, const result *res, int nres, const int *sizes, int nsizes, int steps, const char *date,
                      const char *host, const char *cpu, const char *cmdline) {
    char tmp[1200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        perror(tmp);
        return 1;
    }
    if (json) write_json(f, res, nres, steps, date, host, cpu, cmdline);
    else write_md(f, res, nres, sizes, nsizes, steps, date, host, cpu, cmdline);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        perror(path);
        return 1;
    }
    fprintf(stderr, "bench_peers: wrote %s\n", path);
    return 0;
}

int main(int argc, char **argv) {
    int sizes[16], nsizes = 0, steps = 120;
    double case_seconds = 30.0;
    const char *cases = DEFAULT_CASES, *backends = "cpu", *threads = "1", *out_dir = NULL, *md = NULL, *json = NULL;
    for (int i = 1; i < argc; i += 2) { /* every option takes a value */
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) return usage();
        if (!strcmp(argv[i], "--sizes")) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", v);
            for (char *t = strtok(buf, ","); t && nsizes < 16; t = strtok(NULL, ",")) sizes[nsizes++] = atoi(t);
        } else if (!strcmp(argv[i], "--steps")) steps = atoi(v);
        else if (!strcmp(argv[i], "--case-seconds")) case_seconds = atof(v);
        else if (!strcmp(argv[i], "--cases")) cases = v;
        else if (!strcmp(argv[i], "--backends")) backends = v;
        else if (!strcmp(argv[i], "--threads")) threads = v;
        else if (!strcmp(argv[i], "--out")) out_dir = v;
        else if (!strcmp(argv[i], "--md")) md = v;
        else if (!strcmp(argv[i], "--json")) json = v;
        else return usage();
    }
    if (nsizes == 0) sizes[0] = 1000, sizes[1] = 10000, nsizes = 2;
    for (int i = 0; i < nsizes; ++i)
        if (sizes[i] < 1) return usage();
    if (steps < WARMUP + 1) steps = WARMUP + 1;

    bench_case list[MAX_CASES];
    int ncases = 0;
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", cases);
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
        bench_case bc;
        if (!parse_case(t, &bc)) {
            fprintf(stderr, "bench_peers: bad case '%s' (want ENGINE[/VARIANT]:ITERATIONSxSUBSTEPS)\n", t);
            return 2;
        }
        if (!strcmp(bc.engine, "catena")) {
            char solver[32];
            snprintf(solver, sizeof solver, "%s", bc.variant[0] ? bc.variant : "gs");
            char bbuf[128];
            snprintf(bbuf, sizeof bbuf, "%s", backends);
            char *save = NULL;
            for (char *b = strtok_r(bbuf, ",", &save); b; b = strtok_r(NULL, ",", &save)) {
                char tbuf[64];
                snprintf(tbuf, sizeof tbuf, "%s", strcmp(b, "cpu") ? "0" : threads); /* threads: CPU backend only */
                char *save_t = NULL;
                for (char *t = strtok_r(tbuf, ",", &save_t); t && ncases < MAX_CASES; t = strtok_r(NULL, ",", &save_t)) {
                    bench_case cc = bc;
                    cc.threads = atoi(t);
                    snprintf(cc.variant, sizeof cc.variant, "%.12s:%.12s", b, solver);
                    if (!strcmp(b, "cpu")) snprintf(cc.label, sizeof cc.label, "catena %.12s %.12s (%d thr)", b, solver, cc.threads);
                    else snprintf(cc.label, sizeof cc.label, "catena %.12s %.12s", b, solver);
                    list[ncases++] = cc;
                }
            }
        } else if (ncases < MAX_CASES) {
            snprintf(bc.label, sizeof bc.label, "%s%s%s", bc.engine, bc.variant[0] ? "/" : "", bc.variant);
            list[ncases++] = bc;
        }
    }
    char cmdline[1024] = "";
    for (int i = 0; i < argc; ++i) {
        size_t len = strlen(cmdline);
        snprintf(cmdline + len, sizeof cmdline - len, "%s%s", i ? " " : "", argv[i]);
    }
    char host[128] = "host", date[32], cpu[256];
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    for (char *p = host; *p; ++p)
        if (*p == '/' || *p == ' ') *p = '_';
    time_t tt = time(NULL);
    struct tm tm;
    localtime_r(&tt, &tm);
    strftime(date, sizeof date, "%Y-%m-%d", &tm);
    cpu_model(cpu, sizeof cpu);

    result *res = calloc((size_t)nsizes * (size_t)ncases, sizeof *res);
    if (!res) return 1;
    int nres = 0;
    double t_start = now_s();
    for (int si = 0; si < nsizes; ++si)
        for (int ci = 0; ci < ncases; ++ci) {
            res[nres] = run_case(&list[ci], sizes[si], steps, case_seconds);
            const result *r = &res[nres++];
            if (r->steps_run == 0)
                fprintf(stderr, "links %6d  %-28s %3dx%-3d  not run: %s\n", r->links, r->c.label, r->c.iterations, r->c.substeps, r->error);
            else
                fprintf(stderr,
                        "links %6d  %-28s %3dx%-3d %9.3f ms/step  gap %.3g (worst %.3g)  stretch %.3g  %d steps  "
                        "[build %.1f s, measure %.1f s, total %.0f s]%s%s\n",
                        r->links, r->c.label, r->c.iterations, r->c.substeps, r->ms_median, r->gap_last, r->gap_worst, r->stretch,
                        r->steps_run, r->build_s, r->measure_s, now_s() - t_start, r->error[0] ? "  FAILED: " : "", r->error);
        }

    int rc = 0;
    char path[1100];
    if (out_dir) {
        snprintf(path, sizeof path, "%s/%s-%s-peers.md", out_dir, date, host);
        rc |= write_file(path, 0, res, nres, sizes, nsizes, steps, date, host, cpu, cmdline);
        snprintf(path, sizeof path, "%s/%s-%s-peers.json", out_dir, date, host);
        rc |= write_file(path, 1, res, nres, sizes, nsizes, steps, date, host, cpu, cmdline);
    }
    if (md) rc |= write_file(md, 0, res, nres, sizes, nsizes, steps, date, host, cpu, cmdline);
    if (json) rc |= write_file(json, 1, res, nres, sizes, nsizes, steps, date, host, cpu, cmdline);
    if (!out_dir && !md) write_md(stdout, res, nres, sizes, nsizes, steps, date, host, cpu, cmdline);
    free(res);
    return rc;
}
