/* The command line of `catena run`, `catena resume` and `catena validate`, parsed by getopt_long so that it
 * follows the GNU conventions users expect: `--opt value` and `--opt=value`, options before or after the
 * positional argument, unique prefixes of long options, `--` to end the options. One table describes every
 * option: getopt_long's list, the help text and the man page (docs/catena.1) all follow it. */
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COUNT 1000000000000LL

enum {
    OPT_STEPS = 256, OPT_MORE, OPT_SOLVER, OPT_ITERATIONS, OPT_SUBSTEPS, OPT_BACKEND, OPT_DEVICE, OPT_DT, OPT_CSV, OPT_VTK, OPT_SVG,
    OPT_VIEW, OPT_PLOT, OPT_JSON, OPT_EVERY, OPT_CSV_EVERY, OPT_VTK_EVERY, OPT_CHECKPOINT, OPT_CHECKPOINT_EVERY, OPT_PROGRESS,
    OPT_MAX_GAP, OPT_ASSEMBLE, OPT_THREADS, OPT_GRAVITY, OPT_SELF_COLLISION, OPT_INTEGRATOR, OPT_RATTLE_MAX_JOINTS, OPT_BOUNDED_ROWS, OPT_QUIET = 'q', OPT_HELP = 'h'
};

/* Which commands take an option. */
#define FOR_RUN 1
#define FOR_RESUME 2
#define FOR_VALIDATE 4
#define FOR_ALL (FOR_RUN | FOR_RESUME | FOR_VALIDATE)
#define FOR_STEPPING (FOR_RUN | FOR_RESUME)

typedef struct option_doc {
    const char *name;
    int has_arg; /* no_argument, required_argument, optional_argument */
    int id;
    int commands;
    const char *metavar;
    const char *help;
} option_doc;

static const option_doc g_options[] = {
    {"steps", required_argument, OPT_STEPS, FOR_ALL, "S",
     "run until step S (default: the scene's \"steps\", else 600; resume: the saved run's target)"},
    {"more", required_argument, OPT_MORE, FOR_RESUME, "N", "resume: run N steps past the checkpoint"},
    {"solver", required_argument, OPT_SOLVER, FOR_ALL, "NAME", "auto (default), gs, jacobi, cg or direct"},
    {"integrator", required_argument, OPT_INTEGRATOR, FOR_ALL, "NAME",
     "rattle (default: energy-true with the direct solver where its joints allow) or velocity (the step of earlier versions)"},
    {"rattle-max-joints", required_argument, OPT_RATTLE_MAX_JOINTS, FOR_ALL, "N",
     "RATTLE applies to worlds of at most N joints (0: the default, 1000); larger ones run the velocity step"},
    {"bounded-rows", required_argument, OPT_BOUNDED_ROWS, FOR_ALL, "NAME",
     "the direct solver's limits and motors: auto (default: exact on the CPU, sweep on OpenCL), exact (active set, CPU only) or sweep"},
    {"iterations", required_argument, OPT_ITERATIONS, FOR_ALL, "K", "solver iterations per substep"},
    {"substeps", required_argument, OPT_SUBSTEPS, FOR_ALL, "N", "substeps per step (0: auto)"},
    {"dt", required_argument, OPT_DT, FOR_ALL, "SECONDS", "time step, in (0, 10] s"},
    {"gravity", required_argument, OPT_GRAVITY, FOR_ALL, "X,Y,Z", "gravity (m/s^2, world frame), e.g. 0,0,-9.81 for a z-up robot"},
    {"self-collision", no_argument, OPT_SELF_COLLISION, FOR_RUN | FOR_VALIDATE, NULL,
     "a .urdf robot's links collide with each other (except pairs joined by a joint); default: they never do"},
    {"backend", required_argument, OPT_BACKEND, FOR_ALL, "NAME", "auto (a GPU if there is one, else the CPU), cpu or opencl"},
    {"device", required_argument, OPT_DEVICE, FOR_STEPPING, "D", "OpenCL device: P:D (platform:device index) or a name substring"},
    {"threads", required_argument, OPT_THREADS, FOR_STEPPING, "N",
     "CPU solver threads (default: the scene's \"threads\", else $OMP_NUM_THREADS, else the CPUs this process may run on)"},
    {"csv", required_argument, OPT_CSV, FOR_STEPPING, "FILE", "body states (one row per body and frame); - for stdout"},
    {"vtk", required_argument, OPT_VTK, FOR_STEPPING, "DIR", "VTK frames and a ParaView collection DIR/catena.pvd"},
    {"svg", required_argument, OPT_SVG, FOR_STEPPING, "FILE", "SVG picture of the final state; - for stdout"},
    {"view", required_argument, OPT_VIEW, FOR_STEPPING, "PLANE", "plane of the --svg picture: xy (default), xz or zy"},
    {"plot", required_argument, OPT_PLOT, FOR_STEPPING, "FILE", "SVG plot of the joint gap and residual per step; - for stdout"},
    {"json", required_argument, OPT_JSON, FOR_STEPPING, "FILE",
     "machine-readable summary, also of a failed run (with its error); - for stdout"},
    {"every", required_argument, OPT_EVERY, FOR_STEPPING, "K", "write CSV and VTK frames every K steps (default 10)"},
    {"csv-every", required_argument, OPT_CSV_EVERY, FOR_STEPPING, "K", "CSV frames every K steps (overrides --every)"},
    {"vtk-every", required_argument, OPT_VTK_EVERY, FOR_STEPPING, "K", "VTK frames every K steps (overrides --every)"},
    {"checkpoint", required_argument, OPT_CHECKPOINT, FOR_STEPPING, "FILE",
     "save the state at the end, on SIGINT/SIGTERM and before a failed step"},
    {"checkpoint-every", required_argument, OPT_CHECKPOINT_EVERY, FOR_STEPPING, "N", "also save the checkpoint every N steps"},
    {"max-gap", required_argument, OPT_MAX_GAP, FOR_STEPPING, "METRES",
     "fail (status torn, exit 7) when a joint opens wider than METRES"},
    {"assemble", optional_argument, OPT_ASSEMBLE, FOR_RUN, "TOL",
     "close every joint (and meet the scene's \"assemble\" targets) before the first step, to TOL (m and rad; default the "
     "scene's, else 1e-6); a scene with an \"assemble\" key is always assembled"},
    {"progress", optional_argument, OPT_PROGRESS, FOR_STEPPING, "SECONDS",
     "status line on stderr every SECONDS (default 10) when stderr is not a terminal"},
    {"quiet", no_argument, OPT_QUIET, FOR_ALL, NULL, "no progress output and no library notices"},
    {"help", no_argument, OPT_HELP, FOR_ALL, NULL, "show this help"},
};
#define OPTION_COUNT (int)(sizeof g_options / sizeof g_options[0])

static int command_bit(ctn_cli_command cmd) { return cmd == CTN_CMD_RUN ? FOR_RUN : cmd == CTN_CMD_RESUME ? FOR_RESUME : FOR_VALIDATE; }

static const char *command_name(ctn_cli_command cmd) { return cmd == CTN_CMD_RUN ? "run" : cmd == CTN_CMD_RESUME ? "resume" : "validate"; }

void ctn_cli_print_options(FILE *f, ctn_cli_command cmd) {
    for (int k = 0; k < OPTION_COUNT; ++k) {
        const option_doc *d = &g_options[k];
        if (!(d->commands & command_bit(cmd))) continue;
        char left[64];
        if (d->has_arg == required_argument) snprintf(left, sizeof left, "--%s=%s", d->name, d->metavar);
        else if (d->has_arg == optional_argument) snprintf(left, sizeof left, "--%s[=%s]", d->name, d->metavar);
        else snprintf(left, sizeof left, "-%c, --%s", d->id, d->name);
        fprintf(f, "  %-28s %s\n", left, d->help);
    }
}

void ctn_cli_command_help(FILE *f, ctn_cli_command cmd) {
    if (cmd == CTN_CMD_RUN)
        fprintf(f, "usage: catena run SCENE [options]\n"
                   "Steps SCENE (a .json scene file, a .urdf robot or a generator spec such as chain:1000) and reports how it went.\n");
    else if (cmd == CTN_CMD_RESUME)
        fprintf(f, "usage: catena resume CHECKPOINT [options]\n"
                   "Continues a checkpointed run bitwise identically to an uninterrupted one. The final state goes to\n"
                   "--checkpoint FILE, by default to a new file named after CHECKPOINT and the final step; pass\n"
                   "--checkpoint CHECKPOINT to overwrite it.\n");
    else
        fprintf(f, "usage: catena validate SCENE [options]\n"
                   "Parses SCENE and builds its world on the CPU without stepping it.\n");
    fprintf(f, "options (the command line overrides the scene file's settings):\n");
    ctn_cli_print_options(f, cmd);
}

static int bad_value(const char *cmd, const char *opt, const char *v, const char *what) {
    ctn_cli_command_error(cmd, "--%s: '%s' is not %s", opt, v, what);
    return 0;
}

static int parse_count(const char *cmd, const char *opt, const char *s, long long lo, long long hi, long long *out) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi) {
        char what[96];
        snprintf(what, sizeof what, "an integer in [%lld, %lld]", lo, hi);
        return bad_value(cmd, opt, s, what);
    }
    *out = v;
    return 1;
}

static int parse_positive(const char *cmd, const char *opt, const char *s, double hi, double *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v > 0.0) || !(v <= hi)) {
        char what[96];
        snprintf(what, sizeof what, "a number in (0, %g]", hi);
        return bad_value(cmd, opt, s, what);
    }
    *out = v;
    return 1;
}

/* "x,y,z": three finite numbers of magnitude at most 1e4 m/s^2 (a thousand g: anything larger is a typo). */
static int parse_vec3(const char *cmd, const char *opt, const char *s, double out[3]) {
    const char *p = s;
    for (int k = 0; k < 3; ++k) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || !isfinite(v) || fabs(v) > 1e4 || *end != (k < 2 ? ',' : '\0'))
            return bad_value(cmd, opt, s, "three numbers x,y,z of magnitude at most 1e4 m/s^2");
        out[k] = v;
        p = end + 1;
    }
    return 1;
}

/* One option's value into o. Returns 0 after printing the problem. */
static int apply_option(const char *cmd, int id, const char *name, const char *v, ctn_cli_opts *o) {
    long long n = 0;
    switch (id) {
    case OPT_STEPS: return parse_count(cmd, name, v, 0, MAX_COUNT, &o->steps);
    case OPT_MORE: return parse_count(cmd, name, v, 0, MAX_COUNT, &o->more);
    case OPT_ITERATIONS:
        if (!parse_count(cmd, name, v, 1, CTN_MAX_ITERATIONS, &n)) return 0;
        o->iterations = (int)n;
        return 1;
    case OPT_SUBSTEPS:
        if (!parse_count(cmd, name, v, CTN_SUBSTEPS_AUTO, CTN_MAX_SUBSTEPS, &n)) return 0;
        o->substeps = (int)n;
        o->substeps_set = 1;
        return 1;
    case OPT_SOLVER:
        o->solver_set = 1;
        return ctn_cli_parse_solver(v, &o->solver) || bad_value(cmd, name, v, "one of auto, gs, jacobi, cg, direct");
    case OPT_INTEGRATOR:
        o->integrator_set = 1;
        if (!strcmp(v, "rattle")) o->integrator = CTN_INTEGRATOR_RATTLE;
        else if (!strcmp(v, "velocity")) o->integrator = CTN_INTEGRATOR_VELOCITY;
        else return bad_value(cmd, name, v, "one of rattle, velocity");
        return 1;
    case OPT_BOUNDED_ROWS:
        o->bounded_rows_set = 1;
        if (!strcmp(v, "auto")) o->bounded_rows = CTN_BOUNDED_AUTO;
        else if (!strcmp(v, "exact")) o->bounded_rows = CTN_BOUNDED_EXACT;
        else if (!strcmp(v, "sweep")) o->bounded_rows = CTN_BOUNDED_SWEEP;
        else return bad_value(cmd, name, v, "one of auto, exact, sweep");
        return 1;
    case OPT_RATTLE_MAX_JOINTS:
        if (!parse_count(cmd, name, v, 0, CTN_MAX_JOINTS, &n)) return 0;
        o->rattle_max_joints = (int)n;
        o->rattle_max_joints_set = 1;
        return 1;
    case OPT_BACKEND:
        o->backend_set = 1;
        return ctn_cli_parse_backend(v, &o->backend) || bad_value(cmd, name, v, "one of auto, cpu, opencl");
    case OPT_DEVICE: o->device = v; return 1;
    case OPT_THREADS:
        if (!parse_count(cmd, name, v, 1, CTN_MAX_THREADS, &n)) return 0;
        o->threads = (int)n;
        return 1;
    case OPT_DT: return parse_positive(cmd, name, v, 10.0, &o->dt);
    case OPT_GRAVITY:
        o->gravity_set = 1;
        return parse_vec3(cmd, name, v, o->gravity);
    case OPT_CSV: o->csv = v; return 1;
    case OPT_VTK: o->vtk = v; return 1;
    case OPT_SVG: o->svg = v; return 1;
    case OPT_VIEW:
        o->view = v;
        return !strcmp(v, "xy") || !strcmp(v, "xz") || !strcmp(v, "zy") || bad_value(cmd, name, v, "one of xy, xz, zy");
    case OPT_PLOT: o->plot = v; return 1;
    case OPT_JSON: o->json = v; return 1;
    case OPT_CHECKPOINT: o->checkpoint = v; return 1;
    case OPT_EVERY: return parse_count(cmd, name, v, 1, MAX_COUNT, &o->every);
    case OPT_CSV_EVERY: return parse_count(cmd, name, v, 1, MAX_COUNT, &o->csv_every);
    case OPT_VTK_EVERY: return parse_count(cmd, name, v, 1, MAX_COUNT, &o->vtk_every);
    case OPT_CHECKPOINT_EVERY: return parse_count(cmd, name, v, 1, MAX_COUNT, &o->checkpoint_every);
    case OPT_MAX_GAP: return parse_positive(cmd, name, v, HUGE_VAL, &o->max_gap);
    case OPT_PROGRESS:
        o->progress = CTN_CLI_DEFAULT_PROGRESS_S;
        return !v || parse_positive(cmd, name, v, 86400.0, &o->progress);
    case OPT_ASSEMBLE:
        o->assemble = 1;
        return !v || parse_positive(cmd, name, v, 1.0, &o->assemble_tolerance);
    case OPT_SELF_COLLISION: o->self_collision = 1; return 1;
    case OPT_QUIET: o->quiet = 1; return 1;
    default: return 0;
    }
}

/* getopt_long's complaint about argv[optind - 1], in our words (opterr is off). */
void ctn_cli_report_bad_option(const char *cmd, int c, const char *arg, const struct option *longs) {
    if (c == ':') {
        ctn_cli_command_error(cmd, "option %s needs a value", arg);
        return;
    }
    if (strncmp(arg, "--", 2)) {
        ctn_cli_command_error(cmd, "unknown option -%c", optopt ? optopt : '?');
        return;
    }
    size_t n = strcspn(arg + 2, "=");
    for (const struct option *l = longs; l->name; ++l)
        if (strlen(l->name) == n && !strncmp(l->name, arg + 2, n) && l->has_arg == no_argument) {
            ctn_cli_command_error(cmd, "option --%s takes no value", l->name);
            return;
        }
    /* getopt_long takes any unique prefix of a long option: a prefix of several is ambiguous, not unknown */
    char which[256] = "";
    int matches = 0;
    for (const struct option *l = longs; l->name; ++l) {
        if (n == 0 || strncmp(l->name, arg + 2, n)) continue;
        size_t used = strlen(which);
        snprintf(which + used, sizeof which - used, "%s--%s", matches ? ", " : "", l->name);
        matches++;
    }
    if (matches > 1) {
        ctn_cli_command_error(cmd, "ambiguous option %.*s: could be %s", (int)(n + 2), arg, which);
        return;
    }
    ctn_cli_command_error(cmd, "unknown option %.*s", (int)(n + 2), arg);
}

int ctn_cli_parse(ctn_cli_command cmd, int argc, char **argv, ctn_cli_opts *o) {
    const char *name = command_name(cmd);
    memset(o, 0, sizeof *o);
    o->steps = o->more = -1;
    o->view = "xy";
    struct option longs[OPTION_COUNT + 1];
    int nl = 0;
    for (int k = 0; k < OPTION_COUNT; ++k)
        if (g_options[k].commands & command_bit(cmd))
            longs[nl++] = (struct option){g_options[k].name, g_options[k].has_arg, NULL, g_options[k].id};
    longs[nl] = (struct option){NULL, 0, NULL, 0};
    opterr = 0;
    optind = 1; /* argv[0] is the command name */
    int c, index = -1;
    while ((c = getopt_long(argc, argv, ":qh", longs, &index)) != -1) {
        if (c == '?' || c == ':') {
            ctn_cli_report_bad_option(name, c, argv[optind - 1], longs);
            fprintf(stderr, "Try 'catena %s --help'.\n", name);
            return CTN_CLI_PARSE_ERROR;
        }
        if (c == OPT_HELP) {
            ctn_cli_command_help(stdout, cmd);
            return CTN_CLI_PARSE_HELP;
        }
        const char *opt = c == OPT_QUIET ? "quiet" : longs[index].name;
        if (!apply_option(name, c, opt, optarg, o)) return CTN_CLI_PARSE_ERROR;
        index = -1;
    }
    const char *what = cmd == CTN_CMD_RESUME ? "CHECKPOINT" : "SCENE";
    if (optind >= argc) {
        ctn_cli_command_error(name, "missing %s", what);
        fprintf(stderr, "Try 'catena %s --help'.\n", name);
        return CTN_CLI_PARSE_ERROR;
    }
    if (optind + 1 < argc) {
        ctn_cli_command_error(name, "unexpected argument '%s' after %s '%s'", argv[optind + 1], what, argv[optind]);
        return CTN_CLI_PARSE_ERROR;
    }
    o->scene = argv[optind];
    if (o->steps >= 0 && o->more >= 0) {
        ctn_cli_command_error(name, "give --steps or --more, not both");
        return CTN_CLI_PARSE_ERROR;
    }
    return CTN_CLI_PARSE_OK;
}
