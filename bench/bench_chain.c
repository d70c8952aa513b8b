/* bench_chain: accuracy and cost of the solvers on a hanging chain of rigid links with ball joints.
 *
 * For each chain length and solver setting, builds the chain hanging straight down from a world pin,
 * steps it `--steps` times at 60 Hz, and reports the median wall time of a step (after 5 warm-up steps;
 * measured by host/cli/bench_measure.c, the code of `catena bench`)
 * and the median of each phase's time (so no phase can exceed the total by mixing a mean with a median),
 * the row updates per second, and the joint error: the largest joint gap (anchor separation) at the
 * last step and over the run, relative to the link length. The chain starts exactly assembled and at
 * rest, so every bit of gap is solver error under gravity.
 * --release horizontal starts it horizontal instead (the `catena run chain:N` scene): it swings down from
 * its pin, and the error then also holds the linearisation error of each substep.
 * --scene GEN runs the generator GEN:N of ctn_scene_from_spec for each size N instead (bridge_limits,
 * capsule_chain, bridge, ...); its gaps are then in metres, not link lengths.
 *
 * usage: bench_chain [--sizes 1000,10000,100000] [--steps 120] [--backend cpu|opencl|auto]
 *                    [--heavy RATIO] [--release hanging|horizontal] [--scene GEN] [--configs gs:10x1,gs:50x1,...]
 *                    [--threads N] [--project-chord 0|1] [--md FILE] [--json FILE]
 * --threads N sets ctn_world_desc.threads (CPU solver threads); default $OMP_NUM_THREADS as the catena tool,
 * else 0: the CPUs this process may run on.
 * --project-chord 0|1 sets ctn_world_desc.debug.project_chord (the exact solver's projection: chord steps with
 * the step's last factor before Newton steps); default -1, the library's choice.
 * A config is solver:ITERATIONSxSUBSTEPS[:w=WARMSTART]; solver is gs, jacobi, cg, direct or auto.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_env.h"
#include "cli/bench_measure.h"
#include "catena/catena.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct config {
    char label[64];
    ctn_solver solver;
    int iterations, substeps;
    double warm_start;
} config;

typedef struct result {
    int links;
    config cfg;
    double ms_median, ms_solve, ms_prepare, ms_integrate, ms_transfer;
    double row_updates_per_s;
    double gap_final, gap_worst; /* relative to link length */
    double launches, blocking_reads; /* per step, mean over the timed steps (OpenCL; 0 on the CPU) */
    int colours;
    int solver_used; /* ctn_step_stats.solver of the last step */
    int ok;
    char backend[32];
} result;

static int parse_config(const char *s, config *c) {
    char solver[16] = "";
    memset(c, 0, sizeof *c);
    c->warm_start = -1.0;
    if (sscanf(s, "%15[a-z]:%dx%d", solver, &c->iterations, &c->substeps) != 3) return 0;
    const char *w = strstr(s, ":w=");
    if (w) c->warm_start = atof(w + 3);
    if (!strcmp(solver, "gs")) c->solver = CTN_SOLVER_GS;
    else if (!strcmp(solver, "jacobi")) c->solver = CTN_SOLVER_JACOBI;
    else if (!strcmp(solver, "cg")) c->solver = CTN_SOLVER_CG;
    else if (!strcmp(solver, "direct")) c->solver = CTN_SOLVER_DIRECT;
    else if (!strcmp(solver, "auto")) c->solver = CTN_SOLVER_AUTO;
    else return 0;
    if (c->iterations < 1 || c->substeps < 1) return 0;
    snprintf(c->label, sizeof c->label, "%s", s);
    return 1;
}

static int g_project_chord = -1; /* --project-chord: ctn_world_desc.debug.project_chord */
static int g_threads; /* --threads, else $OMP_NUM_THREADS (as the catena tool): ctn_world_desc.threads */

static result run_one(int links, const config *cfg, int steps, ctn_backend backend, double heavy, int horizontal, const char *gen) {
    result r;
    memset(&r, 0, sizeof r);
    r.links = links;
    r.cfg = *cfg;
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = backend;
    d.solver = cfg->solver;
    d.iterations = cfg->iterations;
    d.substeps = cfg->substeps;
    d.threads = g_threads;
    d.debug.project_chord = g_project_chord;
    if (cfg->warm_start >= 0.0) d.warm_start = cfg->warm_start;
    char err[1024];
    ctn_world *w = NULL;
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        fprintf(stderr, "bench_chain: %s\n", err);
        return r;
    }
    ctn_chain_desc c = ctn_chain_desc_default(links);
    if (!horizontal) c.direction[0] = 0.0, c.direction[1] = -1.0;
    c.end_mass_ratio = heavy;
    char spec[96];
    if (gen) {
        snprintf(spec, sizeof spec, "%s:%d", gen, links);
        c.link_length = 1.0; /* gaps in metres */
    }
    if ((gen ? ctn_scene_from_spec(w, spec) : ctn_scene_chain(w, &c, NULL)) != CTN_OK) {
        fprintf(stderr, "bench_chain: %s\n", ctn_world_last_error(w));
        ctn_world_destroy(w);
        return r;
    }
    /* the shared measurement (host/cli/bench_measure.c, as `catena bench`): 5 warm-up steps, then one block
     * of the remaining steps; the gap is tracked over every step */
    ctn_bench_plan plan = {.warmup = 5, .repeats = 1, .steps = steps - 5};
    ctn_bench_result m;
    if (!ctn_bench_measure(w, &plan, &m)) fprintf(stderr, "bench_chain: %s\n", m.error);
    r.ok = m.ok;
    r.gap_worst = m.gap_worst / c.link_length;
    if (m.timed > 0) {
        r.ms_median = m.ms_median;
        r.ms_solve = m.ms_solve;
        r.ms_prepare = m.ms_prepare;
        r.ms_integrate = m.ms_integrate;
        r.ms_transfer = m.ms_transfer;
        r.launches = m.launches, r.blocking_reads = m.blocking_reads;
        r.row_updates_per_s = m.row_updates_per_s;
    }
    r.gap_final = m.gap_last / c.link_length;
    r.colours = m.colours;
    r.solver_used = (int)m.solver_used;
    snprintf(r.backend, sizeof r.backend, "%s", ctn_world_backend_name(w));
    ctn_world_destroy(w);
    return r;
}

int main(int argc, char **argv) {
    int sizes[16], nsizes = 0, steps = 120;
    const char *md = NULL, *json = NULL;
    const char *cfgs = "gs:10x1,gs:50x1,gs:1x4,gs:1x16,gs:4x4,jacobi:10x1,cg:10x1";
    double heavy = 1.0;
    int horizontal = 0;
    const char *gen = NULL;
    ctn_backend backend = CTN_BACKEND_CPU;
    if (getenv("OMP_NUM_THREADS")) g_threads = atoi(getenv("OMP_NUM_THREADS"));
    for (int i = 1; i < argc; ++i) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--sizes") && v) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", v);
            for (char *t = strtok(buf, ","); t && nsizes < 16; t = strtok(NULL, ",")) sizes[nsizes++] = atoi(t);
            ++i;
        } else if (!strcmp(argv[i], "--steps") && v) {
            steps = atoi(v), ++i;
        } else if (!strcmp(argv[i], "--configs") && v) {
            cfgs = v, ++i;
        } else if (!strcmp(argv[i], "--heavy") && v) {
            heavy = atof(v), ++i;
        } else if (!strcmp(argv[i], "--release") && v && (!strcmp(v, "hanging") || !strcmp(v, "horizontal"))) {
            horizontal = !strcmp(v, "horizontal"), ++i;
        } else if (!strcmp(argv[i], "--scene") && v) {
            gen = v, ++i;
        } else if (!strcmp(argv[i], "--threads") && v) {
            g_threads = atoi(v), ++i;
        } else if (!strcmp(argv[i], "--project-chord") && v && (!strcmp(v, "0") || !strcmp(v, "1"))) {
            g_project_chord = atoi(v), ++i;
        } else if (!strcmp(argv[i], "--md") && v) {
            md = v, ++i;
        } else if (!strcmp(argv[i], "--json") && v) {
            json = v, ++i;
        } else if (!strcmp(argv[i], "--backend") && v) {
            backend = !strcmp(v, "opencl") ? CTN_BACKEND_OPENCL : !strcmp(v, "auto") ? CTN_BACKEND_AUTO : CTN_BACKEND_CPU;
            ++i;
        } else {
            fprintf(stderr, "usage: bench_chain [--sizes N,N] [--steps S] [--configs solver:ITxSUB,...] [--heavy R] "
                            "[--release hanging|horizontal] [--scene GEN] [--backend cpu|opencl|auto] [--threads N] [--project-chord 0|1] [--md FILE] [--json FILE]\n");
            return 2;
        }
    }
    if (nsizes == 0) sizes[0] = 1000, sizes[1] = 10000, sizes[2] = 100000, nsizes = 3;
    if (steps < 6) steps = 6;
    config list[32];
    int ncfg = 0;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", cfgs);
    for (char *t = strtok(buf, ","); t && ncfg < 32; t = strtok(NULL, ",")) {
        if (!parse_config(t, &list[ncfg])) {
            fprintf(stderr, "bench_chain: bad config '%s' (want solver:ITERATIONSxSUBSTEPS)\n", t);
            return 2;
        }
        ncfg++;
    }
    result *res = calloc((size_t)nsizes * (size_t)ncfg, sizeof *res);
    int nres = 0;
    for (int si = 0; si < nsizes; ++si)
        for (int ci = 0; ci < ncfg; ++ci) {
            res[nres] = run_one(sizes[si], &list[ci], steps, backend, heavy, horizontal, gen);
            const result *r = &res[nres++];
            fprintf(stderr, "links %7d  %-14s %9.3f ms/step  launches %.1f, blocking reads %.1f per step  gap %.3g (worst %.3g)\n", r->links,
                    r->cfg.label, r->ms_median, r->launches, r->blocking_reads, r->gap_final,
                    r->gap_worst);
        }
    FILE *f = md ? fopen(md, "w") : stdout;
    if (!f) {
        perror(md);
        return 1;
    }
    if (gen)
        fprintf(f, "Scene %s:N (ctn_scene_from_spec), 60 Hz, %d steps, backend %s.\n"
                   "gap = largest joint error in metres (limits: overshoot, contacts: penetration); ms/step and solve ms = medians "
                   "over the steps after 5 warm-up steps; launches and blocking reads per step: means over those steps.\n\n",
                gen, steps, nres ? res[0].backend : "?");
    else
        fprintf(f, "%s chain of rigid links (0.1 m, 0.1 kg, end mass ratio %g), ball joints, 60 Hz, %d steps, backend %s.\n"
                   "gap = largest joint anchor separation / link length; ms/step and solve ms = medians over the steps after 5 warm-up "
                   "steps; launches and blocking reads per step: means over those steps.\n\n",
                horizontal ? "Swinging (released horizontal)" : "Hanging", heavy, steps, nres ? res[0].backend : "?");
    fprintf(f, "| %s | solver:iterations x substeps | solver used | ms/step | solve ms | row updates/s | colours | launches/step | blocking "
               "reads/step | gap (last step) | gap (worst step) |\n",
            gen ? "N" : "links");
    fprintf(f, "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    static const char *const solver_names[] = {"gs", "jacobi", "cg", "direct", "auto"};
    for (int i = 0; i < nres; ++i) {
        const result *r = &res[i];
        const char *used = r->solver_used >= 0 && r->solver_used < 5 ? solver_names[r->solver_used] : "?";
        fprintf(f, "| %d | %s | %s | %.3f | %.3f | %.3g | %d | %.1f | %.1f | %.3g | %.3g |%s\n", r->links, r->cfg.label, used, r->ms_median,
                r->ms_solve, r->row_updates_per_s, r->colours, r->launches, r->blocking_reads, r->gap_final, r->gap_worst,
                r->ok ? "" : " (failed)");
    }
    if (md) fclose(f);
    if (json) {
        char tmp[1024];
        snprintf(tmp, sizeof tmp, "%s.tmp", json);
        FILE *j = fopen(tmp, "w");
        if (!j) {
            perror(tmp);
            return 1;
        }
        if (gen)
            fprintf(j, "{\n  \"workload\": {\"scene\": \"%s:N\", \"gap_unit\": \"m\", \"time_step\": %.9g, \"steps\": %d, \"threads\": %d},\n", gen,
                    1.0 / 60.0, steps, g_threads);
        else
            fprintf(j, "{\n  \"workload\": {\"scene\": \"%s chain\", \"link_length\": 0.1, \"link_mass\": 0.1, \"end_mass_ratio\": %g, "
                       "\"time_step\": %.9g, \"steps\": %d, \"threads\": %d},\n",
                    horizontal ? "swinging" : "hanging", heavy, 1.0 / 60.0, steps, g_threads);
        fprintf(j, "  \"timing\": \"every ms_ field is a median over the steps after 5 warm-up steps\",\n  \"results\": [\n");
        for (int i = 0; i < nres; ++i) {
            const result *r = &res[i];
            fprintf(j,
                    "    {\"links\": %d, \"config\": \"%s\", \"backend\": \"%s\", \"ms_per_step\": %.6g, \"ms_solve\": %.6g, "
                    "\"ms_prepare\": %.6g, \"ms_integrate\": %.6g, \"ms_transfer\": %.6g, \"row_updates_per_s\": %.6g, \"colours\": %d, "
                    "\"gap_final\": %.6g, \"gap_worst\": %.6g, \"launches_per_step\": %.4g, \"blocking_reads_per_step\": %.4g, "
                    "\"solver_used\": %d, \"completed\": %s}%s\n",
                    r->links, r->cfg.label, r->backend, r->ms_median, r->ms_solve, r->ms_prepare, r->ms_integrate, r->ms_transfer,
                    r->row_updates_per_s, r->colours, isfinite(r->gap_final) ? r->gap_final : -1.0,
                    isfinite(r->gap_worst) ? r->gap_worst : -1.0, r->launches, r->blocking_reads, r->solver_used, r->ok ? "true" : "false",
                    i + 1 < nres ? "," : "");
        }
        fprintf(j, "  ]\n}\n");
        fclose(j);
        if (rename(tmp, json) != 0) {
            perror(json);
            return 1;
        }
    }
    free(res);
    return 0;
}
