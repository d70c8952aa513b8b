/* bench_batch: throughput of replicas batched in one world (what `catena sweep --batch K` does).
 *
 * For K replicas of a chain of `--links` rigid links (the chain:N scene: pinned, released horizontally),
 * all built into one world where they overlap in space without interacting (no collision shapes), steps
 * the world `--steps` times at 60 Hz and reports the median wall time of a step (after 3 warm-up steps)
 * and the replica-steps per second, K / median step time. A small scene alone leaves a GPU (or the CPU's
 * threads) idle between launches; K replicas share every launch, so throughput should grow with K until
 * the device is busy. The backends are measured side by side in one run.
 *
 * usage: bench_batch [--replicas 1,10,100,1000] [--links 100] [--steps 30] [--backends cpu,opencl]
 *                    [--solver gs|direct|auto] [--md FILE] [--json FILE]
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_env.h"
#include "cli/bench_measure.h"
#include "catena/catena.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct result {
    char backend[16];
    char device[128];
    int replicas;
    double ms_median;
    double replica_steps_per_s;
    double max_gap;
    const char *solver;
} result;



static int parse_list(const char *s, int *out, int max) {
    int n = 0;
    while (*s && n < max) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1) return 0;
        out[n++] = (int)v;
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

static const char *solver_name(ctn_solver s) {
    static const char *const names[] = {"gs", "jacobi", "cg", "direct", "auto"};
    return (int)s >= 0 && (int)s < 5 ? names[s] : "?";
}

/* Builds K replicas and times the steps. Returns 0 when the backend is not available (skipped). */
static int measure(ctn_backend backend, ctn_solver solver, int replicas, int links, int steps, result *r) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = backend;
    d.solver = solver;
    ctn_world *w;
    char err[512], spec[64];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        fprintf(stderr, "bench_batch: %s backend unavailable: %s\n", backend == CTN_BACKEND_CPU ? "cpu" : "opencl", err);
        return 0;
    }
    snprintf(spec, sizeof spec, "chain:%d", links);
    for (int k = 0; k < replicas; ++k) {
        if (ctn_scene_from_spec(w, spec) != CTN_OK) {
            fprintf(stderr, "bench_batch: %s\n", ctn_world_last_error(w));
            ctn_world_destroy(w);
            return 0;
        }
    }
    /* the shared measurement (host/cli/bench_measure.c, as `catena bench`'s batch case): 3 warm-up steps,
     * one block of `steps` */
    ctn_bench_plan plan = {.warmup = 3, .repeats = 1, .steps = steps};
    ctn_bench_result m;
    int ok = ctn_bench_measure(w, &plan, &m);
    if (!ok) fprintf(stderr, "bench_batch: step failed: %s\n", m.error);
    if (ok) {
        r->ms_median = m.ms_median;
        r->replica_steps_per_s = (double)replicas * 1e3 / r->ms_median;
        r->replicas = replicas;
        r->max_gap = m.gap_last;
        r->solver = solver_name(m.solver_used);
        snprintf(r->backend, sizeof r->backend, "%s", ctn_world_backend_name(w));
        snprintf(r->device, sizeof r->device, "%s", ctn_world_device_name(w));
    }
    ctn_world_destroy(w);
    return ok;
}

int main(int argc, char **argv) {
    int counts[16] = {1, 10, 100, 1000}, ncounts = 4, links = 100, steps = 30;
    const char *backends = "cpu,opencl", *md = NULL, *json = NULL;
    ctn_solver solver = CTN_SOLVER_GS;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "bench_batch: %s needs a value\n", a);
            return 2;
        }
        ++i;
        if (!strcmp(a, "--replicas")) ncounts = parse_list(v, counts, 16);
        else if (!strcmp(a, "--links")) links = atoi(v);
        else if (!strcmp(a, "--steps")) steps = atoi(v);
        else if (!strcmp(a, "--backends")) backends = v;
        else if (!strcmp(a, "--md")) md = v;
        else if (!strcmp(a, "--json")) json = v;
        else if (!strcmp(a, "--solver")) {
            if (!strcmp(v, "gs")) solver = CTN_SOLVER_GS;
            else if (!strcmp(v, "direct")) solver = CTN_SOLVER_DIRECT;
            else if (!strcmp(v, "auto")) solver = CTN_SOLVER_AUTO;
            else ncounts = 0;
        } else ncounts = 0;
        if (ncounts == 0 || links < 1 || steps < 1) {
            fprintf(stderr, "bench_batch: bad option %s %s\n", a, v);
            return 2;
        }
    }
    result res[64];
    int n = 0;
    const ctn_backend kinds[2] = {CTN_BACKEND_CPU, CTN_BACKEND_OPENCL};
    const char *names[2] = {"cpu", "opencl"};
    for (int b = 0; b < 2; ++b) {
        if (!strstr(backends, names[b])) continue;
        for (int c = 0; c < ncounts && n < 64; ++c) {
            if (!measure(kinds[b], solver, counts[c], links, steps, &res[n])) break;
            fprintf(stderr, "bench_batch: %s %d x chain:%d: %.3f ms/step, %.0f replica-steps/s\n", names[b], counts[c], links,
                    res[n].ms_median, res[n].replica_steps_per_s);
            ++n;
        }
    }
    FILE *out = md ? fopen(md, "w") : stdout;
    if (!out) {
        perror(md);
        return 1;
    }
    fprintf(out, "| backend | device | replicas of chain:%d | solver | median ms/step | replica-steps/s | vs 1 replica | max gap (m) |\n", links);
    fprintf(out, "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: |\n");
    for (int i = 0; i < n; ++i) {
        double base = 0.0;
        for (int k = 0; k < n; ++k)
            if (!strcmp(res[k].backend, res[i].backend) && res[k].replicas == 1) base = res[k].replica_steps_per_s;
        fprintf(out, "| %s | %s | %d | %s | %.3f | %.0f | %s%.1fx | %.2e |\n", res[i].backend, res[i].device, res[i].replicas, res[i].solver,
                res[i].ms_median, res[i].replica_steps_per_s, base > 0 ? "" : "n/a ", base > 0 ? res[i].replica_steps_per_s / base : 0.0,
                res[i].max_gap);
    }
    if (md) fclose(out);
    if (json) {
        FILE *f = fopen(json, "w");
        if (!f) {
            perror(json);
            return 1;
        }
        fprintf(f, "{\"bench\": \"bench_batch\", \"links\": %d, \"steps\": %d, \"results\": [\n", links, steps);
        for (int i = 0; i < n; ++i)
            fprintf(f, "  {\"backend\": \"%s\", \"device\": \"%s\", \"replicas\": %d, \"solver\": \"%s\", \"ms_median\": %.6g, "
                       "\"replica_steps_per_s\": %.6g, \"max_gap\": %.6g}%s\n",
                    res[i].backend, res[i].device, res[i].replicas, res[i].solver, res[i].ms_median, res[i].replica_steps_per_s,
                    res[i].max_gap, i + 1 < n ? "," : "");
        fprintf(f, "]}\n");
        fclose(f);
    }
    return n > 0 ? 0 : 1;
}
