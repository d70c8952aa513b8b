/* catena: command-line front end. `catena run SCENE [options]` steps a built-in scene and prints stats;
 * `catena devices` lists OpenCL platforms and devices. Exit codes: 0 ok, 2 bad usage, 3 bad scene,
 * 4 device failure, 5 divergence. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f) {
    fprintf(f,
            "usage: catena run SCENE [--steps S] [--solver gs|jacobi|cg|direct] [--iterations K] [--substeps N]\n"
            "                        [--backend auto|cpu|opencl] [--device D] [--dt SECONDS] [--quiet]\n"
            "       catena devices [--verbose]\n"
            "       catena --version\n"
            "SCENE: chain:N  heavy_chain:N  rope:N  grid:NXxNY  bridge:N  cradle:N  double_pendulum\n");
}

static int parse_int(const char *opt, const char *s, int lo, int hi, int *out) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "catena: %s: '%s' is not an integer in [%d, %d]\n", opt, s, lo, hi);
        return 0;
    }
    *out = (int)v;
    return 1;
}

int ctn_cli_parse_solver(const char *s, ctn_solver *out) {
    if (!strcmp(s, "gs")) *out = CTN_SOLVER_GS;
    else if (!strcmp(s, "jacobi")) *out = CTN_SOLVER_JACOBI;
    else if (!strcmp(s, "cg")) *out = CTN_SOLVER_CG;
    else if (!strcmp(s, "direct")) *out = CTN_SOLVER_DIRECT;
    else return 0;
    return 1;
}

const char *ctn_cli_solver_name(ctn_solver s) {
    static const char *const names[] = {"gs", "jacobi", "cg", "direct"};
    return (int)s >= 0 && (int)s < 4 ? names[s] : "unknown";
}

int ctn_cli_parse_backend(const char *s, ctn_backend *out) {
    if (!strcmp(s, "auto")) *out = CTN_BACKEND_AUTO;
    else if (!strcmp(s, "cpu")) *out = CTN_BACKEND_CPU;
    else if (!strcmp(s, "opencl")) *out = CTN_BACKEND_OPENCL;
    else return 0;
    return 1;
}

static int cmd_run(int argc, char **argv) {
    if (argc < 1) {
        usage(stderr);
        return CTN_EXIT_USAGE;
    }
    const char *scene = argv[0];
    ctn_world_desc desc = ctn_world_desc_default();
    int steps = 600, quiet = 0;
    for (int i = 1; i < argc; ++i) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--quiet")) {
            quiet = 1;
            continue;
        }
        if (!v) {
            fprintf(stderr, "catena: option %s needs a value\n", o);
            return CTN_EXIT_USAGE;
        }
        ++i;
        if (!strcmp(o, "--steps")) {
            if (!parse_int(o, v, 0, 1000000000, &steps)) return CTN_EXIT_USAGE;
        } else if (!strcmp(o, "--iterations")) {
            if (!parse_int(o, v, 1, CTN_MAX_ITERATIONS, &desc.iterations)) return CTN_EXIT_USAGE;
        } else if (!strcmp(o, "--substeps")) {
            if (!parse_int(o, v, 1, CTN_MAX_SUBSTEPS, &desc.substeps)) return CTN_EXIT_USAGE;
        } else if (!strcmp(o, "--solver")) {
            if (!ctn_cli_parse_solver(v, &desc.solver)) {
                fprintf(stderr, "catena: --solver: '%s' is not one of gs, jacobi, cg, direct\n", v);
                return CTN_EXIT_USAGE;
            }
        } else if (!strcmp(o, "--backend")) {
            if (!ctn_cli_parse_backend(v, &desc.backend)) {
                fprintf(stderr, "catena: --backend: '%s' is not one of auto, cpu, opencl\n", v);
                return CTN_EXIT_USAGE;
            }
        } else if (!strcmp(o, "--device")) {
            desc.device = v;
        } else if (!strcmp(o, "--dt")) {
            char *end;
            desc.time_step = strtod(v, &end);
            if (end == v || *end || !(desc.time_step > 0.0)) {
                fprintf(stderr, "catena: --dt: '%s' is not a positive number\n", v);
                return CTN_EXIT_USAGE;
            }
        } else {
            fprintf(stderr, "catena: unknown option %s\n", o);
            usage(stderr);
            return CTN_EXIT_USAGE;
        }
    }
    char err[2048];
    ctn_world *w = NULL;
    ctn_status st = ctn_world_create(&desc, &w, err, sizeof err);
    if (st != CTN_OK) {
        fprintf(stderr, "catena: %s: %s\n", ctn_status_name(st), err);
        return st == CTN_ERR_DEVICE ? CTN_EXIT_DEVICE : CTN_EXIT_USAGE;
    }
    st = ctn_scene_from_spec(w, scene);
    if (st != CTN_OK) {
        fprintf(stderr, "catena: %s\n", ctn_world_last_error(w));
        ctn_world_destroy(w);
        return CTN_EXIT_SCENE;
    }
    ctn_step_stats s, sum;
    memset(&sum, 0, sizeof sum);
    memset(&s, 0, sizeof s);
    double worst_gap = 0.0;
    for (int k = 0; k < steps; ++k) {
        st = ctn_world_step(w);
        if (st != CTN_OK) {
            fprintf(stderr, "catena: step %d: %s: %s\n", k, ctn_status_name(st), ctn_world_last_error(w));
            ctn_world_destroy(w);
            return st == CTN_ERR_DIVERGED ? CTN_EXIT_DIVERGED : CTN_EXIT_DEVICE;
        }
        ctn_world_get_stats(w, &s);
        sum.ms_total += s.ms_total;
        sum.ms_colour += s.ms_colour;
        sum.ms_prepare += s.ms_prepare;
        sum.ms_solve += s.ms_solve;
        sum.ms_integrate += s.ms_integrate;
        sum.ms_transfer += s.ms_transfer;
        if (s.max_gap > worst_gap) worst_gap = s.max_gap;
        if (!isfinite(s.max_gap)) {
            fprintf(stderr, "catena: step %d: joint error is not finite\n", k);
            ctn_world_destroy(w);
            return CTN_EXIT_DIVERGED;
        }
        if (!quiet && (k + 1) % 100 == 0) fprintf(stderr, "\rstep %d/%d", k + 1, steps);
    }
    if (!quiet && steps >= 100) fprintf(stderr, "\n");
    int n = steps > 0 ? steps : 1;
    printf("scene            %s\n", scene);
    printf("backend          %s (%s)\n", ctn_world_backend_name(w), ctn_world_device_name(w));
    printf("bodies / joints  %d / %d (%d rows)\n", ctn_world_body_count(w), ctn_world_joint_count(w), s.rows);
    printf("solver           %s, %d iterations x %d substeps, dt %.6g s\n",
           ctn_cli_solver_name(desc.solver), desc.iterations, desc.substeps,
           desc.time_step);
    printf("colours          %d (largest %d, overflow %d)\n", s.colours, s.largest_colour, s.overflow);
    printf("steps            %d\n", steps);
    printf("ms/step          %.4f (colour %.4f, prepare %.4f, solve %.4f, integrate %.4f, transfer %.4f)\n", sum.ms_total / n,
           sum.ms_colour / n, sum.ms_prepare / n, sum.ms_solve / n, sum.ms_integrate / n, sum.ms_transfer / n);
    printf("row updates/s    %.4g\n", sum.ms_total > 0 ? s.row_updates * steps / (sum.ms_total * 1e-3) : 0.0);
    printf("max joint gap    %.6g m (final), %.6g m (worst step)\n", s.max_gap, worst_gap);
    printf("max joint angle  %.6g rad (final)\n", s.max_angle);
    printf("residual         %.6g m/s (last iteration)\n", s.residual);
    ctn_world_destroy(w);
    return CTN_EXIT_OK;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return CTN_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "run")) return cmd_run(argc - 2, argv + 2);
    if (!strcmp(argv[1], "devices")) return ctn_cli_devices(argc - 2, argv + 2);
    if (!strcmp(argv[1], "--version")) {
        printf("catena %d.%d.%d\n", CATENA_VERSION_MAJOR, CATENA_VERSION_MINOR, CATENA_VERSION_PATCH);
        return CTN_EXIT_OK;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return CTN_EXIT_OK;
    }
    fprintf(stderr, "catena: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return CTN_EXIT_USAGE;
}
