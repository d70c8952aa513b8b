/* bench_warmstart: joint error of hanging chains and ropes against the warm-start factor.
 *
 * Each case hangs a chain of rigid links (ball joints) or a rope of particles (distance joints) straight
 * down, steps it 600 times at 60 Hz with Gauss-Seidel and prints the worst joint gap over the run and
 * over its second half, relative to the link length, and how many steps the divergence guard refused. This is the measurement behind the default
 * warm_start = 0.5 (docs/guide.md, "Warm start factor").
 *
 * usage: bench_warmstart [--links 10,100] [--steps 600]
 */
#include "bench_env.h"
#include "catena/catena.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void run(int links, int rope, int substeps, int iterations, double ws, int steps) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.solver = CTN_SOLVER_GS; /* the default (auto) would take the exact solver for 100 links */
    d.substeps = substeps;
    d.iterations = iterations;
    d.warm_start = ws;
    char err[512];
    ctn_world *w = NULL;
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    ctn_chain_desc c = ctn_chain_desc_default(links);
    c.direction[0] = 0.0, c.direction[1] = -1.0;
    c.particles = rope;
    ctn_scene_chain(w, &c, NULL);
    double worst = 0.0, late = 0.0;
    int refused = 0; /* steps the divergence guard undid (CTN_ERR_DIVERGED): the state stays as before */
    for (int s = 0; s < steps; ++s) {
        refused += ctn_world_step(w) != CTN_OK;
        ctn_step_stats st;
        ctn_world_get_stats(w, &st);
        double g = isfinite(st.max_gap) ? st.max_gap / c.link_length : INFINITY;
        if (g > worst) worst = g;
        if (s >= steps / 2 && g > late) late = g;
    }
    printf("| %d | %s | %dx%d | %.2f | %.3g | %.3g | %d |\n", links, rope ? "rope" : "chain", iterations, substeps, ws, worst, late, refused);
    ctn_world_destroy(w);
}

int main(int argc, char **argv) {
    int links[8] = {10, 100}, nl = 2, steps = 600;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--links")) {
            nl = 0;
            char buf[128];
            snprintf(buf, sizeof buf, "%s", argv[i + 1]);
            for (char *t = strtok(buf, ","); t && nl < 8; t = strtok(NULL, ",")) links[nl++] = atoi(t);
        } else if (!strcmp(argv[i], "--steps")) {
            steps = atoi(argv[i + 1]);
        }
    }
    const int cfg[][2] = {{4, 1}, {4, 4}, {16, 1}}; /* substeps, iterations */
    const double ws[] = {0.0, 0.5, 0.8, 1.0};
    printf("| links | kind | iterations x substeps | warm start | worst gap / link | worst gap, 2nd half | steps refused as diverged |\n"
           "|---:|---|---|---:|---:|---:|---:|\n");
    for (int l = 0; l < nl; ++l)
        for (int rope = 0; rope < 2; ++rope)
            for (int c = 0; c < 3; ++c)
                for (int k = 0; k < 4; ++k) run(links[l], rope, cfg[c][0], cfg[c][1], ws[k], steps);
    return 0;
}
