/* bench_substeps: what substeps buy the exact solver. For each scene and substep count, runs the scene
 * with one solver (default direct) and compares it with a converged reference: the same scene at many
 * substeps (--ref, default 64). Reports the worst joint gap over the run (m), the trajectory error
 * (largest and root-mean-square distance of the body centres from the reference's, sampled every step,
 * m) and the median wall time of a step. --integrators rattle,velocity runs every substep count with each
 * integrator (ctn_world_desc.integrator) against one reference, the first integrator's at --ref substeps
 * (default: the library's default integrator alone).
 *
 * usage: bench_substeps [--scenes chain:1000,tree:2047] [--substeps 1,2,4] [--ref 64] [--seconds 2]
 *                       [--solver direct|gs|auto] [--iterations N] [--integrators rattle,velocity] [--json FILE]
 */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct run_result {
    int substeps, steps, ok;
    ctn_integrator integrator;
    double gap_worst, err_max, err_rms, ms_median;
} run_result;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Runs `spec` for `steps` steps; ref == NULL: records the positions into *record (steps x n x 3);
 * otherwise compares with them. */
static run_result run(const char *spec, ctn_solver solver, ctn_integrator integrator, int iterations, int substeps, int steps,
                      double **record, int *bodies, const double *ref) {
    run_result r = {substeps, steps, 0, integrator, 0.0, 0.0, 0.0, 0.0};
    ctn_world_desc d = ctn_world_desc_default();
    d.integrator = integrator;
    d.backend = CTN_BACKEND_CPU;
    d.solver = solver;
    d.substeps = substeps;
    if (iterations > 0) d.iterations = iterations;
    ctn_world *w = NULL;
    char err[256];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        fprintf(stderr, "bench_substeps: %s\n", err);
        return r;
    }
    if (ctn_scene_from_spec(w, spec) != CTN_OK) {
        fprintf(stderr, "bench_substeps: %s: %s\n", spec, ctn_world_last_error(w));
        ctn_world_destroy(w);
        return r;
    }
    int n = ctn_world_body_count(w);
    double *x = malloc(3 * (size_t)n * sizeof *x), *ms = malloc((size_t)steps * sizeof *ms);
    if (!ref) *record = malloc(3 * (size_t)n * (size_t)steps * sizeof **record);
    if (!x || !ms || (!ref && !*record)) {
        free(x), free(ms);
        ctn_world_destroy(w);
        return r;
    }
    *bodies = n;
    double sum2 = 0.0;
    for (int s = 0; s < steps; ++s) {
        double t0 = now_ms();
        if (ctn_world_step(w) != CTN_OK) {
            fprintf(stderr, "bench_substeps: %s, %d substeps, step %d: %s\n", spec, substeps, s, ctn_world_last_error(w));
            break;
        }
        ms[s] = now_ms() - t0;
        ctn_step_stats st;
        ctn_world_get_stats(w, &st);
        if (st.max_gap > r.gap_worst) r.gap_worst = st.max_gap;
        int got = 0;
        ctn_world_get_positions(w, x, n, &got);
        if (!ref) {
            memcpy(*record + 3 * (size_t)n * s, x, 3 * (size_t)n * sizeof *x);
            continue;
        }
        for (int i = 0; i < n; ++i) {
            const double *y = ref + 3 * ((size_t)n * s + i);
            double e2 = (x[3 * i] - y[0]) * (x[3 * i] - y[0]) + (x[3 * i + 1] - y[1]) * (x[3 * i + 1] - y[1]) +
                        (x[3 * i + 2] - y[2]) * (x[3 * i + 2] - y[2]);
            sum2 += e2;
            if (sqrt(e2) > r.err_max) r.err_max = sqrt(e2);
        }
        if (s == steps - 1) r.ok = 1;
    }
    if (!ref && steps > 0) r.ok = 1;
    r.err_rms = sqrt(sum2 / ((double)n * steps));
    qsort(ms, (size_t)steps, sizeof *ms, cmp_double);
    r.ms_median = ms[steps / 2];
    free(x), free(ms);
    ctn_world_destroy(w);
    return r;
}

int main(int argc, char **argv) {
    const char *scenes = "chain:1000,tree:2047,heavy_chain:8,bridge:60", *subs = "1,2,4", *json = NULL, *integrators = NULL;
    int ref_sub = 64, iterations = 0;
    double seconds = 2.0;
    ctn_solver solver = CTN_SOLVER_DIRECT;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !v) {
            printf("usage: bench_substeps [--scenes chain:1000,tree:2047] [--substeps 1,2,4] [--ref 64] [--seconds 2]\n"
                   "                      [--solver direct|gs|auto] [--iterations N] [--integrators rattle,velocity] [--json FILE]\n");
            return strcmp(a, "--help") ? 2 : 0;
        }
        ++i;
        if (!strcmp(a, "--scenes")) scenes = v;
        else if (!strcmp(a, "--substeps")) subs = v;
        else if (!strcmp(a, "--ref")) ref_sub = atoi(v);
        else if (!strcmp(a, "--seconds")) seconds = atof(v);
        else if (!strcmp(a, "--iterations")) iterations = atoi(v);
        else if (!strcmp(a, "--json")) json = v;
        else if (!strcmp(a, "--integrators")) integrators = v;
        else if (!strcmp(a, "--solver"))
            solver = !strcmp(v, "gs") ? CTN_SOLVER_GS : !strcmp(v, "auto") ? CTN_SOLVER_AUTO : CTN_SOLVER_DIRECT;
        else {
            fprintf(stderr, "bench_substeps: unknown option %s\n", a);
            return 2;
        }
    }
    int steps = (int)lround(seconds * 60.0);
    ctn_integrator integ[2] = {ctn_world_desc_default().integrator, CTN_INTEGRATOR_VELOCITY};
    int n_integ = 1;
    if (integrators) {
        char il[64];
        snprintf(il, sizeof il, "%s", integrators);
        n_integ = 0;
        for (char *s3 = NULL, *tok = strtok_r(il, ",", &s3); tok; tok = strtok_r(NULL, ",", &s3)) {
            if (n_integ == 2 || (strcmp(tok, "rattle") && strcmp(tok, "velocity"))) {
                fprintf(stderr, "bench_substeps: --integrators takes rattle and/or velocity, not %s\n", integrators);
                return 2;
            }
            integ[n_integ++] = !strcmp(tok, "rattle") ? CTN_INTEGRATOR_RATTLE : CTN_INTEGRATOR_VELOCITY;
        }
    }
    FILE *jf = json ? fopen(json, "w") : NULL;
    if (jf) fprintf(jf, "{\"seconds\": %g, \"ref_substeps\": %d, \"ref_integrator\": \"%s\", \"results\": [", seconds, ref_sub,
                    ctn_integrator_name(integ[0]));
    printf("| scene | integrator | substeps | worst gap (m) | trajectory error max (m) | rms (m) | ms/step |\n|---|---|---:|---:|---:|---:|---:|\n");
    char list[1024];
    snprintf(list, sizeof list, "%s", scenes);
    int first = 1;
    for (char *save = NULL, *spec = strtok_r(list, ",", &save); spec; spec = strtok_r(NULL, ",", &save)) {
        double *ref = NULL;
        int n = 0;
        run_result rr = run(spec, solver, integ[0], iterations, ref_sub, steps, &ref, &n, NULL);
        if (!rr.ok) {
            free(ref);
            continue;
        }
        printf("| %s | %s | %d (reference) | %.2e | - | - | %.3f |\n", spec, ctn_integrator_name(integ[0]), ref_sub, rr.gap_worst, rr.ms_median);
        for (int k = 0; k < n_integ; ++k) {
            char sl[256];
            snprintf(sl, sizeof sl, "%s", subs);
            for (char *s2 = NULL, *tok = strtok_r(sl, ",", &s2); tok; tok = strtok_r(NULL, ",", &s2)) {
                run_result r = run(spec, solver, integ[k], iterations, atoi(tok), steps, NULL, &n, ref);
                printf("| %s | %s | %d | %.2e | %.2e | %.2e | %.3f |%s\n", spec, ctn_integrator_name(integ[k]), r.substeps, r.gap_worst, r.err_max,
                       r.err_rms, r.ms_median, r.ok ? "" : " (failed)");
                fflush(stdout);
                if (jf)
                    fprintf(jf, "%s\n  {\"scene\": \"%s\", \"integrator\": \"%s\", \"substeps\": %d, \"gap_worst\": %.3e, \"err_max\": %.3e, "
                                "\"err_rms\": %.3e, \"ms_per_step\": %.4f, \"ref_gap_worst\": %.3e, \"completed\": %s}",
                            first ? "" : ",", spec, ctn_integrator_name(integ[k]), r.substeps, r.gap_worst, r.err_max, r.err_rms, r.ms_median,
                            rr.gap_worst, r.ok ? "true" : "false");
                first = 0;
            }
        }
        free(ref);
    }
    if (jf) {
        fprintf(jf, "\n]}\n");
        fclose(jf);
    }
    return 0;
}
