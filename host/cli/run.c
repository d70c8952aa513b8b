/* `catena run SCENE`, `catena resume CHECKPOINT` and `catena validate SCENE`: each parses its command line
 * (host/cli/options.c), builds the world from a scene file, a generator spec or a checkpoint, and hands it
 * to the run (host/cli/simulate.c). SCENE is a JSON scene file (docs/scene-format.md) or a generator spec
 * such as chain:10000. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static void apply_overrides(const ctn_cli_opts *o, ctn_world_desc *d) {
    ctn_cli_env_desc(d);
    if (o->iterations) d->iterations = o->iterations;
    if (o->substeps_set) d->substeps = o->substeps;
    if (o->solver_set) d->solver = o->solver;
    if (o->integrator_set) d->integrator = o->integrator;
    if (o->rattle_max_joints_set) d->rattle_max_joints = o->rattle_max_joints;
    if (o->bounded_rows_set) d->bounded_rows = o->bounded_rows;
    if (o->backend_set) d->backend = o->backend;
    if (o->device) d->device = o->device;
    if (o->threads) d->threads = o->threads;
    if (o->dt > 0.0) d->time_step = o->dt;
    if (o->gravity_set)
        for (int k = 0; k < 3; ++k) d->gravity[k] = o->gravity[k];
}

static int exit_for_create(ctn_status st) {
    return st == CTN_ERR_DEVICE || st == CTN_ERR_UNSUPPORTED || st == CTN_ERR_OUT_OF_MEMORY ? CTN_EXIT_DEVICE : CTN_EXIT_USAGE;
}

/* A scene argument is a file when it exists or looks like a path; otherwise a generator spec. */
static int is_scene_file(const char *scene) {
    struct stat st;
    if (stat(scene, &st) == 0) return 1;
    size_t n = strlen(scene);
    return strchr(scene, '/') != NULL || (n > 5 && !strcmp(scene + n - 5, ".json"));
}

static int exit_for_parse(ctn_status st) { return st == CTN_ERR_IO ? CTN_EXIT_IO : CTN_EXIT_SCENE; }

/* A command line that fails to parse still gets its JSON summary when it names one (--json FILE or
 * --json=FILE, looked up directly since the parse stopped). */
static void summary_of_usage_error(int argc, char **argv) {
    ctn_cli_opts o;
    memset(&o, 0, sizeof o);
    for (int k = 1; k < argc && !o.json; ++k) {
        if (!strncmp(argv[k], "--json=", 7)) o.json = argv[k] + 7;
        else if (!strcmp(argv[k], "--json") && k + 1 < argc) o.json = argv[k + 1];
    }
    if (o.json && o.json[0]) ctn_summary_of_failure(&o, CTN_EXIT_USAGE);
}

/* A .urdf robot description (ctn_scene_load_urdf) rather than a JSON scene. */
static int is_urdf(const char *scene) {
    size_t n = strlen(scene);
    return n > 5 && !strcasecmp(scene + n - 5, ".urdf");
}

/* Builds a URDF robot (its links colliding with each other with --self-collision); what the import
 * approximated or ignored is printed, one warning per line. */
static ctn_status load_urdf(ctn_world *w, const char *path, int self_collision) {
    char report[4096];
    ctn_status st = ctn_scene_load_urdf_ex(w, path, self_collision, report, sizeof report);
    for (const char *line = report; st == CTN_OK && *line;) {
        size_t n = strcspn(line, "\n");
        fprintf(stderr, "catena: warning: %s: %.*s\n", path, (int)n, line);
        line += n + (line[n] == '\n');
    }
    return st;
}

/* Parses the command line; returns -1 to go on, else the exit code (help shown or a usage error). --quiet
 * also silences the library's messages (as CATENA_QUIET does). */
static int parse_command(ctn_cli_command cmd, int argc, char **argv, ctn_cli_opts *o) {
    int p = ctn_cli_parse(cmd, argc, argv, o);
    if (p == CTN_CLI_PARSE_HELP) return CTN_EXIT_OK;
    if (p == CTN_CLI_PARSE_ERROR) {
        if (cmd != CTN_CMD_VALIDATE) summary_of_usage_error(argc, argv); /* validate writes no files */
        return CTN_EXIT_USAGE;
    }
    if (o->quiet) ctn_cli_set_quiet(1);
    return -1;
}

/* `catena run --assemble` or a scene's "assemble" key: ctn_world_assemble with the scene's settings and
 * targets (--assemble=TOL overrides the tolerance), its report on stdout. Returns an exit code. */
static int assemble_world(const ctn_cli_opts *o, const ctn_scene *scene, ctn_world *w) {
    ctn_assemble_desc d = ctn_assemble_desc_default();
    ctn_assemble_target *targets = NULL;
    int present = 0, count = 0;
    if (scene) {
        ctn_scene_get_assemble(scene, ctn_body_id_from_int(w, 0), &d, NULL, 0, &count, &present);
        targets = count > 0 ? calloc((size_t)count, sizeof *targets) : NULL;
        if (count > 0 && !targets) {
            ctn_cli_error("out of memory for %d assembly targets", count);
            return CTN_EXIT_DEVICE;
        }
        ctn_scene_get_assemble(scene, ctn_body_id_from_int(w, 0), &d, targets, count, &count, &present);
        d.targets = targets, d.target_count = count;
    }
    if (!present && !o->assemble) return CTN_EXIT_OK;
    if (o->assemble_tolerance > 0.0) d.tolerance = o->assemble_tolerance;
    ctn_assemble_report r;
    ctn_status st = ctn_world_assemble(w, &d, &r);
    free(targets);
    if (st != CTN_OK) {
        ctn_cli_error("%s: %s", ctn_status_name(st), ctn_world_last_error(w));
        return st == CTN_ERR_OUT_OF_MEMORY || st == CTN_ERR_DEVICE ? CTN_EXIT_DEVICE : CTN_EXIT_SCENE;
    }
    printf("assembled: joint error %.3g m, %.3g rad -> %.3g m, %.3g rad (tolerance %g) in %d gather + %d Newton iterations; "
           "bodies moved up to %.3g m",
           r.initial_gap, r.initial_angle, r.max_gap, r.max_angle, d.tolerance, r.gather_iterations, r.newton_iterations, r.max_move);
    if (count > 0) printf("; %d target%s, the farthest %.3g m away", count, count > 1 ? "s" : "", r.target_distance);
    printf("\n");
    fflush(stdout);
    return CTN_EXIT_OK;
}

/* Creates the world and builds the scene of a file or a spec. */
static int load_scene(const ctn_cli_opts *o, ctn_world **out, ctn_world_desc *desc, long long *steps, int validate_only) {
    char err[2048];
    *out = NULL;
    ctn_scene *scene = NULL;
    *desc = ctn_world_desc_default();
    int file_steps = 600;
    int urdf = is_urdf(o->scene), is_file = !urdf && is_scene_file(o->scene);
    if (o->self_collision && !urdf) {
        ctn_cli_error("--self-collision applies to a .urdf robot, not to %s (a scene gives its shapes' \"group\")", o->scene);
        return CTN_EXIT_USAGE;
    }
    if (is_file) {
        ctn_status st = ctn_scene_parse_file(o->scene, &scene, err, sizeof err);
        if (st != CTN_OK) {
            ctn_cli_error("%s", err);
            return st == CTN_ERR_UNSUPPORTED ? CTN_EXIT_SCENE : exit_for_parse(st);
        }
        ctn_scene_get_settings(scene, desc, &file_steps);
    }
    if (urdf) { /* URDF is z-up (ROS REP 103): its robots fall along -z unless --gravity says otherwise */
        desc->gravity[0] = 0.0, desc->gravity[1] = 0.0, desc->gravity[2] = -9.81;
    }
    *steps = o->steps >= 0 ? o->steps : file_steps;
    apply_overrides(o, desc);
    ctn_world_desc create = *desc;
    ctn_backend requested = desc->backend;
    if (validate_only) create.backend = CTN_BACKEND_CPU, create.device = NULL; /* validation needs no device */
    ctn_world *w = NULL;
    ctn_status st = ctn_world_create(&create, &w, err, sizeof err);
    if (st != CTN_OK) {
        ctn_cli_error("%s: %s", ctn_status_name(st), err);
        ctn_scene_free(scene);
        return exit_for_create(st);
    }
    st = urdf ? load_urdf(w, o->scene, o->self_collision) : is_file ? ctn_scene_build(scene, w) : ctn_scene_from_spec(w, o->scene);
    if (st != CTN_OK) {
        ctn_cli_error("%s", ctn_world_last_error(w));
        ctn_world_destroy(w);
        ctn_scene_free(scene);
        return st == CTN_ERR_OUT_OF_MEMORY ? CTN_EXIT_DEVICE : st == CTN_ERR_IO ? CTN_EXIT_IO : CTN_EXIT_SCENE;
    }
    int code = validate_only ? CTN_EXIT_OK : assemble_world(o, scene, w);
    if (code != CTN_EXIT_OK) {
        ctn_world_destroy(w);
        ctn_scene_free(scene);
        return code;
    }
    /* desc.device points into the scene: keep a copy owned by the world */
    ctn_world_get_desc(w, desc);
    if (validate_only) desc->backend = requested;
    ctn_scene_free(scene);
    *out = w;
    return CTN_EXIT_OK;
}

int ctn_cli_run(int argc, char **argv) {
    ctn_cli_opts o;
    int code = parse_command(CTN_CMD_RUN, argc, argv, &o);
    if (code >= 0) return code;
    ctn_run r;
    memset(&r, 0, sizeof r);
    long long steps;
    code = load_scene(&o, &r.w, &r.desc, &steps, 0);
    if (code != CTN_EXIT_OK) {
        ctn_summary_of_failure(&o, code);
        return code;
    }
    r.o = &o;
    r.label = o.scene;
    r.ck_path = o.checkpoint;
    r.start = 0;
    r.target = (uint64_t)steps;
    code = ctn_simulate(&r);
    ctn_world_destroy(r.w);
    return code;
}

/* Where a resumed run saves its state without --checkpoint: a new file beside the one it resumed, named
 * after the final step (run.ckpt -> run-600.ckpt), so the checkpoint it started from is kept. */
static char *resumed_checkpoint_path(const char *from, uint64_t target) {
    const char *slash = strrchr(from, '/'), *dot = strrchr(from, '.');
    if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : from)) dot = from + strlen(from);
    size_t n = strlen(from) + 32;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%.*s-%llu%s", (int)(dot - from), from, (unsigned long long)target, dot);
    return p;
}

/* The saved run's scene label and step target from the checkpoint's user text. */
static void saved_run(const ctn_checkpoint_info *info, char *label, size_t label_size, unsigned long long *target) {
    snprintf(label, label_size, "checkpoint");
    *target = info->step;
    const char *p = strstr(info->user, "scene=");
    if (p) {
        p += 6;
        int n = (int)strcspn(p, "\n");
        snprintf(label, label_size, "%.*s", n, p);
    }
    p = strstr(info->user, "steps=");
    if (p) *target = strtoull(p + 6, NULL, 10);
}

static int resume_world(ctn_cli_opts *o, ctn_checkpoint_info *info, ctn_world **w) {
    char err[2048];
    ctn_status st = ctn_checkpoint_read_info(o->scene, info, err, sizeof err);
    if (st != CTN_OK) {
        ctn_cli_error("%s", err);
        return st == CTN_ERR_OUT_OF_MEMORY ? CTN_EXIT_DEVICE : st == CTN_ERR_IO ? CTN_EXIT_IO : CTN_EXIT_SCENE;
    }
    ctn_world_desc desc = info->desc;
    desc.device = info->device[0] ? info->device : NULL;
    apply_overrides(o, &desc);
    st = ctn_world_load(o->scene, &desc, w, NULL, err, sizeof err);
    if (st != CTN_OK) {
        ctn_cli_error("%s", err);
        /* out of memory is exit 4 (docs/cli.md, "Exit codes"), not a bad checkpoint */
        return st == CTN_ERR_DEVICE || st == CTN_ERR_UNSUPPORTED || st == CTN_ERR_OUT_OF_MEMORY ? CTN_EXIT_DEVICE
               : st == CTN_ERR_IO                                                               ? CTN_EXIT_IO
                                                                                                : CTN_EXIT_SCENE;
    }
    return CTN_EXIT_OK;
}

int ctn_cli_resume(int argc, char **argv) {
    ctn_cli_opts o;
    int code = parse_command(CTN_CMD_RESUME, argc, argv, &o);
    if (code >= 0) return code;
    ctn_checkpoint_info *info = malloc(sizeof *info);
    if (!info) return CTN_EXIT_IO;
    ctn_run r;
    memset(&r, 0, sizeof r);
    code = resume_world(&o, info, &r.w);
    if (code != CTN_EXIT_OK) {
        free(info);
        ctn_summary_of_failure(&o, code);
        return code;
    }
    char label[1024];
    unsigned long long target;
    saved_run(info, label, sizeof label, &target);
    if (o.steps >= 0) target = (unsigned long long)o.steps;
    if (o.more >= 0) target = info->step + (unsigned long long)o.more;
    r.start = info->step;
    free(info);
    char *ck = NULL;
    if (target < r.start) {
        ctn_cli_error("--steps %llu is before the checkpoint's step %llu", target, (unsigned long long)r.start);
        code = CTN_EXIT_USAGE;
    } else if (!o.checkpoint && !(ck = resumed_checkpoint_path(o.scene, target))) {
        code = CTN_EXIT_IO;
    }
    if (code != CTN_EXIT_OK) {
        ctn_summary_of_failure(&o, code);
        ctn_world_destroy(r.w);
        return code;
    }
    r.o = &o;
    r.label = label;
    r.ck_path = o.checkpoint ? o.checkpoint : ck;
    ctn_world_get_desc(r.w, &r.desc);
    r.target = target;
    code = ctn_simulate(&r);
    ctn_world_destroy(r.w);
    free(ck);
    return code;
}

int ctn_cli_validate(int argc, char **argv) {
    ctn_cli_opts o;
    int code = parse_command(CTN_CMD_VALIDATE, argc, argv, &o);
    if (code >= 0) return code;
    ctn_world *w;
    ctn_world_desc desc;
    long long steps;
    code = load_scene(&o, &w, &desc, &steps, 1);
    if (code != CTN_EXIT_OK) return code;
    double gap = 0.0, angle = 0.0;
    ctn_world_measure(w, &gap, &angle);
    printf("%s: ok: %d bodies, %d joints, %lld steps of %.6g s, solver %s (%d iterations x %d substeps), backend %s; "
           "initial joint gap %.3g m\n",
           o.scene, ctn_world_body_count(w), ctn_world_joint_count(w), steps, desc.time_step, ctn_solver_name(desc.solver),
           desc.iterations, desc.substeps, ctn_backend_name(desc.backend), gap);
    ctn_world_destroy(w);
    return CTN_EXIT_OK;
}
