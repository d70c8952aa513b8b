/* The RATTLE integrator against the velocity step on a chain released horizontally (docs/design.md, "RATTLE"):
 * energy drift, joint gap and wall time per step, per configuration, in one run.
 *
 *   bench_rattle [--links N] [--seconds T] [--dt S] [--backend cpu|opencl|both] [--configs LIST] [--rattle-max-joints M]
 *
 * The scene: N rigid 0.1 m, 0.1 kg links on ball joints, pinned at the origin, laid out along +x (released
 * horizontally), the direct solver. LIST: comma-separated INTEGRATOR:SUBSTEPS, INTEGRATOR rattle or velocity
 * (default rattle:1,rattle:4,velocity:1,velocity:4). Per configuration: the largest and the final |E - E0| as a
 * fraction of m g L N^2 / 2 (the potential energy the chain releases swinging down to hanging), the potential
 * energy released so far at the end (the same fraction: on a long chain over a short run only part of it
 * swings, so the drift is also worth reading against this), the largest joint gap, the median wall time of a step (ms), the substeps RATTLE ran at the end (it adds substeps when a
 * body turns fast: host/solve/pipeline.c), its chord iterations per step, the substeps it split and those
 * the Newton projection finished. --backend both runs every configuration on the CPU and then on OpenCL, in
 * one table (column "backend"). --rattle-max-joints sets ctn_world_desc.rattle_max_joints (0, the default: the
 * library's 1000; give N or more to run RATTLE on a longer chain). One thread unless
 * OMP_NUM_THREADS says otherwise; the configurations run one after the other. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "../tests/rattle_scenes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* m g y summed over the chain's links (J), gravity 9.81 along -y. */
static double potential(ctn_world *w, ctn_body_id first, int count) {
    double e = 0.0;
    for (int i = 0; i < count; ++i) {
        ctn_body_desc d;
        ctn_body_state s;
        if (ctn_body_get_desc(w, ctn_body_id_offset(first, i), &d) != CTN_OK || ctn_body_get_state(w, ctn_body_id_offset(first, i), &s) != CTN_OK) return NAN;
        e += d.mass * 9.81 * s.position[1];
    }
    return e;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int links = 1000;
    double seconds = 2.0, dt = 1.0 / 60.0;
    int both = 0, rattle_max = 0;
    ctn_backend backend = CTN_BACKEND_CPU;
    char configs[256] = "rattle:1,rattle:4,velocity:1,velocity:4";
    for (int i = 1; i < argc; ++i) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--links") && v) links = atoi(v), ++i;
        else if (!strcmp(argv[i], "--seconds") && v) seconds = atof(v), ++i;
        else if (!strcmp(argv[i], "--dt") && v) dt = atof(v), ++i;
        else if (!strcmp(argv[i], "--backend") && v) both = !strcmp(v, "both"), backend = !strcmp(v, "opencl") ? CTN_BACKEND_OPENCL : CTN_BACKEND_CPU, ++i;
        else if (!strcmp(argv[i], "--configs") && v) snprintf(configs, sizeof configs, "%s", v), ++i;
        else if (!strcmp(argv[i], "--rattle-max-joints") && v) rattle_max = atoi(v), ++i;
        else {
            fprintf(stderr, "usage: bench_rattle [--links N] [--seconds T] [--dt S] [--backend cpu|opencl|both] [--configs rattle:1,...] [--rattle-max-joints M]\n");
            return 2;
        }
    }
    int steps = (int)(seconds / dt + 0.5);
    double scale = 0.1 * 9.81 * 0.1 * (double)links * links / 2.0;
    printf("chain:%d released horizontally, direct solver, dt %.6g s, %d steps, backend %s, rattle_max_joints %d; energy as a fraction of "
           "m g L N^2/2 = %.6g J\n",
           links, dt, steps, both ? "cpu and opencl" : backend == CTN_BACKEND_OPENCL ? "opencl" : "cpu", rattle_max, scale);
    printf("%-12s %-7s %-9s %12s %12s %10s %10s %10s %5s %10s %11s %6s %5s  %s\n", "config", "backend", "ran", "max|dE|", "end dE", "released", "max gap m",
           "ms/step", "subs",
           "chord/step", "newton/step", "splits", "proj", "integrator_reason");
    double *ms = malloc(sizeof *ms * (size_t)(steps > 0 ? steps : 1));
    if (!ms) return 1;
    for (char *tok = strtok(configs, ","); tok; tok = strtok(NULL, ","))
    for (int pass = 0; pass < (both ? 2 : 1); ++pass) {
        if (both) backend = pass ? CTN_BACKEND_OPENCL : CTN_BACKEND_CPU;
        const char *bname = backend == CTN_BACKEND_OPENCL ? "opencl" : "cpu";
        char name[32];
        int sub = 1;
        if (sscanf(tok, "%31[a-z]:%d", name, &sub) != 2) {
            fprintf(stderr, "bench_rattle: bad config '%s'\n", tok);
            return 2;
        }
        ctn_integrator integ = !strcmp(name, "velocity") ? CTN_INTEGRATOR_VELOCITY : CTN_INTEGRATOR_RATTLE;
        ctn_body_id first;
        ctn_world *w = rattle_chain(links, CTN_SOLVER_DIRECT, integ, dt, sub, backend, &first);
        if (!w) {
            printf("%-12s %-7s no world\n", tok, bname);
            continue;
        }
        ctn_world_desc wd;
        ctn_world_get_desc(w, &wd);
        wd.rattle_max_joints = rattle_max;
        if (ctn_world_set_desc(w, &wd) != CTN_OK) {
            fprintf(stderr, "bench_rattle: %s\n", ctn_world_last_error(w));
            ctn_world_destroy(w);
            free(ms);
            return 2;
        }
        double e0 = rattle_energy(w, first, links, 9.81), p0 = potential(w, first, links), worst = 0.0, gap = 0.0, de = 0.0;
        long chord = 0, newton = 0, splits = 0, proj = 0;
        ctn_step_stats st;
        memset(&st, 0, sizeof st);
        int done = 0;
        for (int i = 0; i < steps; ++i) {
            double t0 = now_ms();
            if (ctn_world_step(w) != CTN_OK) {
                printf("%-12s %-7s step %d: %s\n", tok, bname, i, ctn_world_last_error(w));
                break;
            }
            ms[done++] = now_ms() - t0;
            ctn_world_get_stats(w, &st);
            chord += st.position_iterations, newton += st.newton_steps, splits += st.splits, proj += st.projections;
            gap = st.max_gap > gap ? st.max_gap : gap;
            de = rattle_energy(w, first, links, 9.81) - e0;
            worst = fabs(de) > worst ? fabs(de) : worst;
        }
        qsort(ms, (size_t)done, sizeof *ms, cmp_double);
        printf("%-12s %-7s %-9s %12.4g %12.4g %10.4g %10.3g %10.4g %5d %10.2f %11.2f %6ld %5ld  %s\n", tok, bname, ctn_integrator_name(st.integrator),
               worst / scale, de / scale, (p0 - potential(w, first, links)) / scale, gap, done ? ms[done / 2] : 0.0, st.integrator == CTN_INTEGRATOR_RATTLE ? st.rattle_substeps : st.substeps,
               done ? (double)chord / done : 0.0, done ? (double)newton / done : 0.0, splits, proj, st.integrator_reason);
        fflush(stdout);
        ctn_world_destroy(w);
    }
    free(ms);
    return 0;
}
