/* bench_direct: accuracy vs time of the exact forest solver (CTN_SOLVER_DIRECT, host/solve/solver_direct.c)
 * against Gauss-Seidel, Jacobi, CG and sub-stepped GS on hanging chains, CPU backend.
 *
 * Each run builds a chain of rigid links with ball joints hanging straight down from a world pin
 * (centred on the origin so float positions lose as little as possible), with an end mass ratio of 1
 * or --heavy, steps it --steps times at 60 Hz and reports the median ms per step (after 3 warm-up
 * steps), ms per 1000 links, and the largest joint gap over the run relative to the link length. The
 * chain starts assembled and at rest: every bit of gap is solver (or time-stepping) error.
 *
 * usage: bench_direct [--sizes 1000,10000,100000] [--steps 30] [--heavy 1000] [--particles]
 *                     [--configs direct:1x1,gs:10x1,...] [--json FILE]
 * A config is solver:ITERATIONSxSUBSTEPS. Markdown goes to stdout.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_env.h"
#include "catena/catena.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct run {
    int links;
    double heavy;
    char label[32];
    ctn_solver solver;
    int iterations, substeps;
    double ms, gap_worst, gap_final;
    int ok;
} run;

static const char *default_configs = "direct:1x1,direct:1x4,direct:1x16,gs:10x1,gs:50x1,jacobi:50x1,cg:50x1,gs:1x4,gs:1x16";

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int parse_config(const char *s, run *r) {
    char solver[16] = "";
    if (sscanf(s, "%15[a-z]:%dx%d", solver, &r->iterations, &r->substeps) != 3) return 0;
    if (!strcmp(solver, "gs")) r->solver = CTN_SOLVER_GS;
    else if (!strcmp(solver, "jacobi")) r->solver = CTN_SOLVER_JACOBI;
    else if (!strcmp(solver, "cg")) r->solver = CTN_SOLVER_CG;
    else if (!strcmp(solver, "direct")) r->solver = CTN_SOLVER_DIRECT;
    else return 0;
    snprintf(r->label, sizeof r->label, "%s", s);
    return r->iterations >= 1 && r->substeps >= 1;
}

static void measure(run *r, int steps, int particles) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.solver = r->solver;
    d.iterations = r->iterations;
    d.substeps = r->substeps;
    d.time_step = 1.0 / 60.0;
    ctn_world *w = NULL;
    char err[256];
    r->ok = 0;
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        fprintf(stderr, "bench_direct: %s\n", err);
        return;
    }
    ctn_chain_desc cd = ctn_chain_desc_default(r->links);
    cd.direction[0] = 0.0, cd.direction[1] = -1.0, cd.direction[2] = 0.0;
    cd.origin[1] = 0.5 * r->links * cd.link_length;
    cd.end_mass_ratio = r->heavy;
    cd.particles = particles;
    if (ctn_scene_chain(w, &cd, NULL) != CTN_OK) {
        fprintf(stderr, "bench_direct: %s\n", ctn_world_last_error(w));
        ctn_world_destroy(w);
        return;
    }
    double *ms = malloc((size_t)(steps + 3) * sizeof *ms);
    int n = 0;
    r->gap_worst = 0.0;
    for (int i = 0; i < steps + 3; ++i) {
        if (ctn_world_step(w) != CTN_OK) {
            /* the divergence guard undid a step: report the chain as broken */
            r->gap_worst = r->gap_final = INFINITY;
            break;
        }
        ctn_step_stats st;
        ctn_world_get_stats(w, &st);
        if (i >= 3) ms[n++] = st.ms_total;
        double g = st.max_gap / cd.link_length;
        if (g > r->gap_worst) r->gap_worst = g;
        r->gap_final = g;
    }
    qsort(ms, (size_t)n, sizeof *ms, cmp_double);
    r->ms = n ? ms[n / 2] : NAN;
    r->ok = n == steps;
    free(ms);
    ctn_world_destroy(w);
}

int main(int argc, char **argv) {
    const char *sizes = "1000,10000,100000", *configs = default_configs, *json = NULL;
    int steps = 30, particles = 0;
    double heavy = 1000.0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) sizes = argv[++i];
        else if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--heavy") && i + 1 < argc) heavy = atof(argv[++i]);
        else if (!strcmp(argv[i], "--configs") && i + 1 < argc) configs = argv[++i];
        else if (!strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
        else if (!strcmp(argv[i], "--particles")) particles = 1;
        else {
            fprintf(stderr, "usage: %s [--sizes N,N,..] [--steps N] [--heavy RATIO] [--particles] [--configs LIST] [--json FILE]\n", argv[0]);
            return 2;
        }
    }
    if (steps < 1) steps = 1;
    run runs[512];
    int nr = 0;
    char sbuf[256], cbuf[512];
    snprintf(sbuf, sizeof sbuf, "%s", sizes);
    for (char *sp = NULL, *s = strtok_r(sbuf, ",", &sp); s; s = strtok_r(NULL, ",", &sp)) {
        int links = atoi(s);
        double ratios[2] = {1.0, heavy};
        for (int h = 0; h < (heavy != 1.0 ? 2 : 1); ++h) {
            snprintf(cbuf, sizeof cbuf, "%s", configs);
            for (char *cp = NULL, *c = strtok_r(cbuf, ",", &cp); c && nr < 512; c = strtok_r(NULL, ",", &cp)) {
                run *r = &runs[nr];
                memset(r, 0, sizeof *r);
                if (!parse_config(c, r)) {
                    fprintf(stderr, "bench_direct: bad config '%s' (solver:ITERATIONSxSUBSTEPS)\n", c);
                    return 2;
                }
                r->links = links;
                r->heavy = ratios[h];
                fprintf(stderr, "links %d heavy %g %s ...", links, r->heavy, r->label);
                measure(r, steps, particles);
                fprintf(stderr, " %.3f ms/step, gap %.3g\n", r->ms, r->gap_worst);
                nr++;
            }
        }
    }
    printf("| links | end mass | config (iter x substeps) | ms/step | ms per 1000 links | max gap / link length | final gap / L |\n");
    printf("| ---: | ---: | --- | ---: | ---: | ---: | ---: |\n");
    for (int i = 0; i < nr; ++i) {
        const run *r = &runs[i];
        printf("| %d | %g | %s | %.3f | %.4f | %.3g | %.3g |%s\n", r->links, r->heavy, r->label, r->ms, r->ms / (r->links / 1000.0),
               r->gap_worst, r->gap_final, r->ok ? "" : " (diverged)");
    }
    if (json) {
        FILE *f = fopen(json, "w");
        if (!f) {
            fprintf(stderr, "bench_direct: cannot write %s\n", json);
            return 1;
        }
        fprintf(f, "{\n  \"bench\": \"bench_direct\",\n  \"steps\": %d,\n  \"time_step\": %.9g,\n  \"particles\": %d,\n  \"runs\": [\n", steps,
                1.0 / 60.0, particles);
        for (int i = 0; i < nr; ++i) {
            const run *r = &runs[i];
            char gw[32], gf[32];
            if (isfinite(r->gap_worst)) snprintf(gw, sizeof gw, "%.6g", r->gap_worst);
            else snprintf(gw, sizeof gw, "null");
            if (isfinite(r->gap_final)) snprintf(gf, sizeof gf, "%.6g", r->gap_final);
            else snprintf(gf, sizeof gf, "null");
            fprintf(f,
                    "    {\"links\": %d, \"end_mass_ratio\": %g, \"config\": \"%s\", \"iterations\": %d, \"substeps\": %d, "
                    "\"ms_per_step\": %.6g, \"ms_per_1000_links\": %.6g, \"max_gap_rel\": %s, \"final_gap_rel\": %s, \"completed\": %s}%s\n",
                    r->links, r->heavy, r->label, r->iterations, r->substeps, r->ms, r->ms / (r->links / 1000.0), gw, gf,
                    r->ok ? "true" : "false", i + 1 < nr ? "," : "");
        }
        fprintf(f, "  ]\n}\n");
        fclose(f);
    }
    return 0;
}
