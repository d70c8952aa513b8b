/* catena: command-line front end. `catena run SCENE [options]` steps a scene file or a built-in scene,
 * prints stats and writes outputs; `catena resume` continues a checkpoint; `catena validate` checks a
 * scene (host/cli/run.c); `catena devices` lists OpenCL platforms and devices. Exit codes: 0 ok, 2 bad
 * usage, 3 bad scene, 4 device failure, 5 divergence, 6 I/O, 128 + signal when interrupted. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f) {
    fprintf(f,
            "usage: catena run SCENE [--steps S] [--solver auto|gs|jacobi|cg|direct] [--iterations K] [--substeps N]\n"
            "                        [--backend auto|cpu|opencl] [--device D] [--dt SECONDS] [--quiet]\n"
            "                        [--csv FILE] [--vtk DIR] [--svg FILE] [--plot FILE] [--json FILE] [--every K]\n"
            "                        [--checkpoint FILE [--checkpoint-every N]]\n"
            "       catena resume CHECKPOINT [--steps S | --more N] [run options]\n"
            "       catena validate SCENE\n"
            "       catena devices [--verbose]\n"
            "       catena --version\n"
            "SCENE: a JSON scene file (docs/scene-format.md) or a generator:\n"
            "       chain:N  heavy_chain:N  rope:N  grid:NXxNY  bridge:N  cradle:N  double_pendulum  tree:N\n"
            "       with contacts: pile:N  capsule_chain:N  bridge_limits:N  contact_cradle:N  wheel\n"
            "exit codes: 0 ok, 2 usage, 3 bad scene or checkpoint, 4 device, 5 diverged, 6 I/O, 130/143 interrupted\n");
}

int ctn_cli_parse_solver(const char *s, ctn_solver *out) {
    if (!strcmp(s, "gs")) *out = CTN_SOLVER_GS;
    else if (!strcmp(s, "jacobi")) *out = CTN_SOLVER_JACOBI;
    else if (!strcmp(s, "cg")) *out = CTN_SOLVER_CG;
    else if (!strcmp(s, "direct")) *out = CTN_SOLVER_DIRECT;
    else if (!strcmp(s, "auto")) *out = CTN_SOLVER_AUTO;
    else return 0;
    return 1;
}

const char *ctn_cli_solver_name(ctn_solver s) {
    static const char *const names[] = {"gs", "jacobi", "cg", "direct", "auto"};
    return (int)s >= 0 && (int)s < 5 ? names[s] : "unknown";
}

const char *ctn_cli_backend_name(ctn_backend b) {
    static const char *const names[] = {"auto", "cpu", "opencl"};
    return (int)b >= 0 && (int)b < 3 ? names[b] : "unknown";
}

int ctn_cli_parse_backend(const char *s, ctn_backend *out) {
    if (!strcmp(s, "auto")) *out = CTN_BACKEND_AUTO;
    else if (!strcmp(s, "cpu")) *out = CTN_BACKEND_CPU;
    else if (!strcmp(s, "opencl")) *out = CTN_BACKEND_OPENCL;
    else return 0;
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return CTN_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "run")) return ctn_cli_run(argc - 2, argv + 2);
    if (!strcmp(argv[1], "resume")) return ctn_cli_resume(argc - 2, argv + 2);
    if (!strcmp(argv[1], "validate")) return ctn_cli_validate(argc - 2, argv + 2);
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
