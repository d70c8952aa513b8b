/* catena: command-line front end. `catena run SCENE [options]` steps a scene file or a built-in scene,
 * prints stats and writes outputs; `catena resume` continues a checkpoint; `catena validate` checks a
 * scene (host/cli/run.c); `catena devices` lists OpenCL platforms and devices; `catena help [COMMAND]`.
 * Exit codes: 0 ok, 2 bad usage, 3 bad scene, 4 device failure, 5 divergence, 6 I/O, 7 torn (--max-gap),
 * 128 + signal when interrupted. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char g_last_error[2048];

void ctn_cli_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_last_error, sizeof g_last_error, fmt, ap);
    va_end(ap);
    fprintf(stderr, "catena: %s\n", g_last_error);
}

void ctn_cli_command_error(const char *command, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_last_error, sizeof g_last_error, fmt, ap);
    va_end(ap);
    fprintf(stderr, "catena %s: %s\n", command, g_last_error);
}

const char *ctn_cli_last_error(void) { return g_last_error; }

static void usage(FILE *f) {
    fprintf(f,
            "usage: catena run SCENE [options]         step a scene and report how it went\n"
            "       catena resume CHECKPOINT [options] continue a checkpointed run\n"
            "       catena validate SCENE [options]    check a scene without running it\n"
            "       catena devices [--verbose]         list the OpenCL devices (--verbose: details, program build times)\n"
            "       catena sweep ENSEMBLE.json [options] run a parameter sweep / replicas, also under mpirun (docs/ensembles.md)\n"
            "       catena render FRAMES.pvd --out DIR [--mp4 FILE] PNG frames (and a movie) of a --vtk series, no display needed\n"
            "       catena bench [--quick] [options]   step throughput of standard cases on the CPU and every OpenCL device (docs/bench.md)\n"
            "       catena help [COMMAND]              this help, or a command's (also: catena COMMAND --help)\n"
            "       catena -V | --version              the version\n"
            "SCENE: a JSON scene file (docs/scene-format.md), a URDF robot FILE.urdf (docs/urdf.md) or a generator:\n"
            "       chain:N  heavy_chain:N  rope:N  grid:NXxNY  bridge:N  cradle:N  double_pendulum  tree:N\n"
            "       with contacts: pile:N  capsule_chain:N  bridge_limits:N  contact_cradle:N  wheel\n"
            "options of run and resume (validate takes --steps, --solver, --iterations, --substeps, --dt, --gravity,\n"
            "--self-collision, --backend and --quiet; --more is resume's; render's: catena render --help);\n"
            "--opt=value and --opt value both work, options may come before or after SCENE:\n");
    ctn_cli_print_options(f, CTN_CMD_RESUME);
    fprintf(f, "exit codes: 0 ok, 2 usage, 3 bad scene or checkpoint, 4 device, 5 diverged, 6 I/O, 7 torn (--max-gap),\n"
               "            130/143 interrupted (SIGINT/SIGTERM)\n"
               "environment: CATENA_DEVICE (device choice), CATENA_QUIET=1 (no notices), CATENA_CACHE_DIR (kernel cache)\n"
               "manual: man catena\n");
}

static int version(void) {
    printf("catena %s\n", ctn_version());
    return CTN_EXIT_OK;
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

int ctn_cli_parse_backend(const char *s, ctn_backend *out) {
    if (!strcmp(s, "auto")) *out = CTN_BACKEND_AUTO;
    else if (!strcmp(s, "cpu")) *out = CTN_BACKEND_CPU;
    else if (!strcmp(s, "opencl")) *out = CTN_BACKEND_OPENCL;
    else return 0;
    return 1;
}

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
} command;

static const command g_commands[] = {
    {"run", ctn_cli_run}, {"resume", ctn_cli_resume}, {"validate", ctn_cli_validate}, {"devices", ctn_cli_devices},
    {"render", ctn_cli_render},
    {"bench", ctn_cli_bench},
#ifdef CATENA_HAVE_CJSON
    {"sweep", ctn_cli_sweep},
#endif
};
#define COMMAND_COUNT (int)(sizeof g_commands / sizeof g_commands[0])

static const command *find_command(const char *name) {
    for (int k = 0; k < COMMAND_COUNT; ++k)
        if (!strcmp(name, g_commands[k].name)) return &g_commands[k];
    return NULL;
}

/* `catena help [COMMAND]`: the command's own --help. */
static int help(int argc, char **argv) {
    if (argc < 2) {
        usage(stdout);
        return CTN_EXIT_OK;
    }
    if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return CTN_EXIT_OK;
    }
    const command *c = find_command(argv[1]);
    if (!c) {
        fprintf(stderr, "catena help: unknown command '%s'; the commands are", argv[1]);
        for (int k = 0; k < COMMAND_COUNT; ++k) fprintf(stderr, "%s %s", k ? "," : "", g_commands[k].name);
        fprintf(stderr, ", help\n");
        return CTN_EXIT_USAGE;
    }
    char *args[] = {argv[1], "--help", NULL};
    return c->run(2, args);
}

int main(int argc, char **argv) {
    ctn_cli_passive_openmp(argv);
    ctn_cli_set_quiet(0);
    ctn_cli_env_cache_dir();
    if (argc < 2) {
        usage(stderr);
        return CTN_EXIT_USAGE;
    }
    const char *a = argv[1];
    if (!strcmp(a, "--version") || !strcmp(a, "-V")) return version();
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
        usage(stdout);
        return CTN_EXIT_OK;
    }
    if (!strcmp(a, "help")) return help(argc - 1, argv + 1);
    const command *c = find_command(a);
    if (c) return c->run(argc - 1, argv + 1); /* argv[0] of the command is its name */
    if (a[0] == '-') fprintf(stderr, "catena: unknown option %s (options follow the command: catena run SCENE %s)\n", a, a);
    else fprintf(stderr, "catena: unknown command '%s'; try 'catena --help'\n", a);
    return CTN_EXIT_USAGE;
}
