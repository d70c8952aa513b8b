/* JSON scene files (schema: docs/scene-format.md). cJSON parses the text; this module checks every key
 * and value against the schema, naming the JSON path of any problem, checks the size limits before
 * allocating, and keeps a validated description (ctn_scene) that ctn_scene_build (scene_build.c) turns
 * into bodies, shapes, planes and joints. Generators are parsed in scene_generators.c. */
#define _POSIX_C_SOURCE 200809L
#include "core/joint_kinds.h"
#include "io/scene_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef CATENA_HAVE_CJSON
#include "io/json_diagnose.h"
#endif

#ifndef CATENA_HAVE_CJSON

ctn_status ctn_scene_parse_text(const char *text, size_t length, const char *source_name, ctn_scene **out, char *err,
                                size_t err_size) {
    (void)text;
    (void)length;
    if (out) *out = NULL;
    if (err && err_size) snprintf(err, err_size, "%s: this build of catena has no JSON support (libcjson-dev was not found)",
                                  source_name ? source_name : "scene");
    return CTN_ERR_UNSUPPORTED;
}

#else

#define PATH_MAX_LEN 256

/* ---- world ---- */

static const char *const solver_names[] = {"gs", "jacobi", "cg", "direct", "auto", NULL};
static const char *const backend_names[] = {"auto", "cpu", "opencl", NULL};
static const char *const stab_names[] = {"spook", "baumgarte", NULL};
static const char *const integrator_names[] = {"rattle", "velocity", NULL};
static const char *const bounded_names[] = {"auto", "exact", "sweep", NULL}; /* ctn_bounded_rows order */

static int parse_world(pctx *c, const cJSON *wv, ctn_scene *s) {
    static const char *const keys[] = {"gravity", "time_step", "steps", "solver", "iterations", "substeps", "backend", "device",
                                       "compliance", "damping_time", "stabilization", "baumgarte", "warm_start", "max_colours",
                                       "threads", "max_speed", "geometric_stiffness", "collision", "up", "integrator",
                                       "rattle_max_joints", "bounded_rows", NULL};
    const char *path = "world";
    if (!ctn__json_object(c, wv, path) || !ctn__json_keys(c, wv, path, keys)) return 0;
    ctn_world_desc *d = &s->desc;
    int e;
    int has_gravity = ctn__json_vec(c, wv, "gravity", path, 3, d->gravity);
    if (has_gravity < 0) return 0;
    /* "up": the scene's up axis, a vector or "x", "y", "z" (URDF and ROS are z-up); without "gravity" the
     * gravity is 9.81 m/s^2 along -up */
    const cJSON *up = ctn__json_member(wv, "up");
    if (up) {
        double u[3] = {0, 0, 0};
        if (cJSON_IsString(up)) {
            const char *a = up->valuestring;
            if (strcmp(a, "x") && strcmp(a, "y") && strcmp(a, "z"))
                return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, "world.up", "'%s' is not an axis: give \"x\", \"y\", \"z\" or a vector [x, y, z]", a);
            u[a[0] - 'x'] = 1.0;
        } else if (ctn__json_nonzero_vec(c, wv, "up", path, 3, u) < 0) {
            return 0;
        }
        double n = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        if (!has_gravity)
            for (int k = 0; k < 3; ++k) d->gravity[k] = -9.81 * u[k] / n;
    }
    if (ctn__json_range(c, wv, "time_step", path, 0.0, 1, 10.0, &d->time_step) < 0) return 0;
    if (ctn__json_int32(c, wv, "steps", path, 0, 1000000000, &s->steps) < 0) return 0;
    e = (int)d->solver;
    if (ctn__json_enum(c, wv, "solver", path, solver_names, &e) < 0) return 0;
    d->solver = (ctn_solver)e;
    if (ctn__json_int32(c, wv, "iterations", path, 1, CTN_MAX_ITERATIONS, &d->iterations) < 0) return 0;
    if (ctn__json_int32(c, wv, "substeps", path, CTN_SUBSTEPS_AUTO, CTN_MAX_SUBSTEPS, &d->substeps) < 0) return 0;
    e = (int)d->backend;
    if (ctn__json_enum(c, wv, "backend", path, backend_names, &e) < 0) return 0;
    d->backend = (ctn_backend)e;
    const cJSON *dev = ctn__json_member(wv, "device");
    if (dev && !cJSON_IsNull(dev)) {
        if (!cJSON_IsString(dev)) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, "world.device", "expected a string or null, got %s", ctn__json_type_name(dev));
        if (strlen(dev->valuestring) >= sizeof s->device - 1)
            return ctn__json_fail(c, CTN_ERR_LIMIT, "world.device", "longer than %zu characters", sizeof s->device - 2);
        snprintf(s->device, sizeof s->device, "%s", dev->valuestring);
    }
    if (ctn__json_range(c, wv, "compliance", path, 0.0, 0, 1e30, &d->compliance) < 0) return 0;
    if (ctn__json_number(c, wv, "damping_time", path, &d->damping_time) < 0) return 0;
    e = (int)d->stabilization;
    if (ctn__json_enum(c, wv, "stabilization", path, stab_names, &e) < 0) return 0;
    d->stabilization = (ctn_stabilization)e;
    e = (int)d->integrator;
    if (ctn__json_enum(c, wv, "integrator", path, integrator_names, &e) < 0) return 0;
    d->integrator = (ctn_integrator)e;
    if (ctn__json_int32(c, wv, "rattle_max_joints", path, 0, CTN_MAX_JOINTS, &d->rattle_max_joints) < 0) return 0;
    e = (int)d->bounded_rows;
    if (ctn__json_enum(c, wv, "bounded_rows", path, bounded_names, &e) < 0) return 0;
    d->bounded_rows = (ctn_bounded_rows)e;
    if (ctn__json_range(c, wv, "baumgarte", path, 0.0, 0, 1.0, &d->baumgarte) < 0) return 0;
    if (ctn__json_range(c, wv, "warm_start", path, 0.0, 0, 1.0, &d->warm_start) < 0) return 0;
    if (ctn__json_int32(c, wv, "max_colours", path, 2, CTN_MAX_COLOURS, &d->max_colours) < 0) return 0;
    if (ctn__json_int32(c, wv, "threads", path, 0, 1024, &d->threads) < 0) return 0;
    if (ctn__json_number(c, wv, "max_speed", path, &d->max_speed) < 0) return 0;
    if (ctn__json_range(c, wv, "geometric_stiffness", path, 0.0, 0, 1e30, &d->geometric_stiffness) < 0) return 0;
    const cJSON *col = ctn__json_member(wv, "collision");
    if (!col) return 1;
    static const char *const ckeys[] = {"enabled", "skip_jointed", "margin", NULL};
    if (!ctn__json_object(c, col, "world.collision") || !ctn__json_keys(c, col, "world.collision", ckeys)) return 0;
    s->has_collision = 1;
    s->collision = ctn_collision_desc_default();
    if (ctn__json_bool(c, col, "enabled", "world.collision", &s->collision.enabled) < 0) return 0;
    if (ctn__json_bool(c, col, "skip_jointed", "world.collision", &s->collision.skip_jointed) < 0) return 0;
    return ctn__json_range(c, col, "margin", "world.collision", 0.0, 0, 1e30, &s->collision.margin) >= 0;
}

/* ---- constraints ---- */

/* The constraint types scene files name: the joint-type table's entries marked CTN_JK_SCENE (contacts are
 * not part of a scene), in enum order; names[] is NULL-terminated for ctn__json_enum and the messages. */
static int scene_joint_types(const char *names[CTN_JT_COUNT + 1], int values[CTN_JT_COUNT]) {
    int n = 0;
    for (int t = 0; t < CTN_JT_COUNT; ++t)
        if (ctn__joint_kind_has(t, CTN_JK_SCENE)) names[n] = ctn__joint_kind(t)->name, values[n++] = t;
    names[n] = NULL;
    return n;
}

int ctn__scene_body_ref(pctx *c, const cJSON *v, const char *p, int allow_world, int *out) {
    if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        if (d != floor(d) || !isfinite(d)) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "body index %g is not an integer", d);
        if (d < 0 || d >= (double)c->total_bodies)
            return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "body index %.0f out of range (%lld bodies)", d, (long long)c->total_bodies);
        *out = (int)d;
        return 1;
    }
    if (cJSON_IsString(v)) {
        if (!strcmp(v->valuestring, "world")) {
            if (!allow_world) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "\"world\" can only be body b");
            *out = -1; /* the world */
            return 1;
        }
        for (int i = 0; i < c->body_count; ++i)
            if (c->bodies[i].name && !strcmp(c->bodies[i].name, v->valuestring)) {
                *out = i;
                return 1;
            }
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "no body is named '%s'", v->valuestring);
    }
    return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "expected a body index, a body name or \"world\", got %s", ctn__json_type_name(v));
}

/* A scene body index into a joint desc (CTN_WORLD for the world); made a handle when the scene is built. */
static int parse_body_ref(pctx *c, const cJSON *j, const char *key, const char *path, int allow_world, ctn_body_id *out) {
    const cJSON *v = ctn__json_member(j, key);
    char p[PATH_MAX_LEN];
    ctn__json_path(p, path, key);
    if (!v) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "missing (a body index, a body name or \"world\")");
    int index = 0;
    if (!ctn__scene_body_ref(c, v, p, allow_world, &index)) return 0;
    *out = ctn__scene_ref(index);
    return 1;
}

/* Hinge and cone-twist (twist) "limits": [lower, upper] (rad, within [-pi, pi]), slider "limits" (m);
 * "motor": {"speed": rad/s, "max_torque": N m} on a hinge, {"speed": m/s, "max_force": N} on a slider;
 * cone-twist "swing_limit" (rad, within [0, pi]). */
static int parse_hinge_drive(pctx *c, const cJSON *j, const char *path, int type, scene_joint *sj) {
    char p[PATH_MAX_LEN];
    double lim[2];
    int r = ctn__json_vec(c, j, "limits", path, 2, lim);
    if (r < 0) return 0;
    if (r) {
        ctn__json_path(p, path, "limits");
        int slider = ctn__joint_kind_has(type, CTN_JK_SLIDES);
        double bound = slider ? 1e30 : CTN_SCENE_PI;
        if (!(lim[0] >= -bound && lim[0] <= lim[1] && lim[1] <= bound))
            return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "[%g, %g] is not an interval lower <= upper within %s", lim[0], lim[1],
                                  slider ? "[-1e30, 1e30] m" : "[-pi, pi]");
        sj->has_limits = 1, sj->lower = lim[0], sj->upper = lim[1];
    }
    int rw = ctn__json_range(c, j, "swing_limit", path, 0.0, 0, CTN_SCENE_PI, &sj->swing);
    if (rw < 0) return 0;
    sj->has_swing = rw;
    const cJSON *m = ctn__json_member(j, "motor");
    if (!m) return 1;
    ctn__json_path(p, path, "motor");
    const char *limit_key = ctn__joint_kind_has(type, CTN_JK_SLIDES) ? "max_force" : "max_torque";
    const char *const keys[] = {"speed", limit_key, NULL};
    if (!ctn__json_object(c, m, p) || !ctn__json_keys(c, m, p, keys)) return 0;
    int rs = ctn__json_number(c, m, "speed", p, &sj->motor_speed);
    if (rs < 0) return 0;
    int rt = ctn__json_range(c, m, limit_key, p, 0.0, 0, 1e30, &sj->motor_max_torque);
    if (rt < 0) return 0;
    if (!rs || !rt) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "needs \"speed\" and \"%s\"", limit_key);
    sj->has_motor = 1;
    return 1;
}

/* The exact frames a saved scene writes: hinges "axis_a", "axis_b" and "rest_orientation" together, fixed
 * joints "rest_orientation". */
static int parse_frames(pctx *c, const cJSON *j, const char *path, int type, scene_joint *sj) {
    int rq = ctn__json_nonzero_vec(c, j, "rest_orientation", path, 4, sj->rest_orientation);
    if (rq < 0) return 0;
    if (!ctn__joint_kind_has(type, CTN_JK_AXIS)) {
        sj->has_frames = rq;
        return 1;
    }
    int ra = ctn__json_nonzero_vec(c, j, "axis_a", path, 3, sj->axis_a);
    if (ra < 0) return 0;
    int rb = ctn__json_nonzero_vec(c, j, "axis_b", path, 3, sj->axis_b);
    if (rb < 0) return 0;
    if (ra + rb + rq != 0 && ra + rb + rq != 3)
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, path, "give \"axis_a\", \"axis_b\" and \"rest_orientation\" together (or none)");
    sj->has_frames = rq;
    return 1;
}

static int parse_constraint(pctx *c, const cJSON *j, int index, scene_joint *sj) {
    char path[PATH_MAX_LEN], p[PATH_MAX_LEN];
    snprintf(path, sizeof path, "constraints[%d]", index);
    if (!ctn__json_object(c, j, path)) return 0;
    int type = 0;
    const cJSON *tv = ctn__json_member(j, "type");
    ctn__json_path(p, path, "type");
    const char *joint_types[CTN_JT_COUNT + 1];
    int joint_type_values[CTN_JT_COUNT];
    scene_joint_types(joint_types, joint_type_values);
    if (!tv) {
        char list[256] = "";
        for (int k = 0, n = 0; joint_types[k] && n >= 0 && (size_t)n < sizeof list; ++k)
            n += snprintf(list + n, sizeof list - (size_t)n, "%s%s", k ? ", " : "", joint_types[k]);
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "missing (one of %s)", list);
    }
    if (ctn__json_enum(c, j, "type", path, joint_types, &type) < 0) return 0;
    type = joint_type_values[type];
    if (type == CTN_JOINT_CURVE) return ctn__scene_parse_curve(c, j, path, sj);
    const char *const *keys = ctn__joint_kind(type)->scene_keys; /* the joint-type table (core/joint_kinds.h; the keys: core/joints/<type>.c) */
    if (!ctn__json_keys(c, j, path, keys)) return 0;
    const char *name = NULL; /* checked, not kept: joint names are not part of the world */
    if (ctn__json_string(c, j, "name", path, &name) < 0) return 0;
    sj->d = ctn_joint_desc_default((ctn_joint_type)type);
    if (!parse_body_ref(c, j, "a", path, 0, &sj->d.body_a)) return 0;
    sj->d.body_b = CTN_WORLD;
    if (ctn__json_member(j, "b") && !parse_body_ref(c, j, "b", path, 1, &sj->d.body_b)) return 0;
    if (ctn_body_id_equal(sj->d.body_a, sj->d.body_b)) {
        ctn__json_path(p, path, "b");
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "body %d is also body a; a joint needs two different bodies", ctn__scene_ref_index(sj->d.body_b));
    }
    int ra = ctn__json_vec(c, j, "anchor_a", path, 3, sj->d.anchor_a);
    if (ra < 0) return 0;
    int rb = ctn__json_vec(c, j, "anchor_b", path, 3, sj->d.anchor_b);
    if (rb < 0) return 0;
    int rp = ctn__json_vec(c, j, "pivot", path, 3, sj->pivot);
    if (rp < 0) return 0;
    sj->has_pivot = rp;
    if (rp && (ra || rb)) {
        ctn__json_path(p, path, "pivot");
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "give either \"pivot\" (a world point) or \"anchor_a\"/\"anchor_b\", not both");
    }
    int rigid = ctn__joint_kind_has(type, CTN_JK_ANGULAR | CTN_JK_PIVOT);
    if (ctn__joint_kind_has(type, CTN_JK_PIVOT) && !rp && !ra && !rb)
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, path, "a %s joint needs \"pivot\" (a world point) or \"anchor_a\" and \"anchor_b\"",
                    ctn_joint_type_name((ctn_joint_type)type));
    /* particle anchors are their centres */
    for (int side = 0; side < 2; ++side) {
        int b = ctn__scene_ref_index(side ? sj->d.body_b : sj->d.body_a);
        const double *an = side ? sj->d.anchor_b : sj->d.anchor_a;
        if (b < 0 || b >= c->body_count || !c->bodies[b].d.particle) continue;
        if (rigid) {
            ctn__json_path(p, path, side ? "b" : "a");
            return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "a %s joint needs rigid bodies; body %d is a particle",
                                  ctn_joint_type_name((ctn_joint_type)type), b);
        }
        if (an[0] != 0.0 || an[1] != 0.0 || an[2] != 0.0) {
            ctn__json_path(p, path, side ? "anchor_b" : "anchor_a");
            return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "body %d is a particle: its anchor is its centre (leave the anchor out)", b);
        }
    }
    int r = ctn__json_vec(c, j, "axis", path, 3, sj->d.axis);
    if (r < 0) return 0;
    sj->has_axis = r;
    if (r && !(sqrt(sj->d.axis[0] * sj->d.axis[0] + sj->d.axis[1] * sj->d.axis[1] + sj->d.axis[2] * sj->d.axis[2]) > 1e-9)) {
        ctn__json_path(p, path, "axis");
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "(%g, %g, %g) has zero length", sj->d.axis[0], sj->d.axis[1], sj->d.axis[2]);
    }
    if (ctn__json_nonzero_vec(c, j, "axis2", path, 3, sj->d.axis2) < 0) return 0;
    if (ctn__json_number(c, j, "ratio", path, &sj->d.ratio) < 0) return 0;
    if (!(sj->d.ratio != 0.0)) {
        ctn__json_path(p, path, "ratio");
        char names[160];
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "0; a %s joint needs a non-zero ratio", ctn__joint_kind_names(CTN_JK_RATIO, names, sizeof names));
    }
    if (ctn__json_range(c, j, "rest_length", path, 0.0, 0, 1e30, &sj->d.rest_length) < 0) return 0;
    if (ctn__json_range(c, j, "stiffness", path, 0.0, 0, 1e30, &sj->d.stiffness) < 0) return 0;
    if (ctn__json_range(c, j, "damping", path, 0.0, 0, 1e30, &sj->d.damping) < 0) return 0;
    if (ctn__json_range(c, j, "compliance", path, 0.0, 0, 1e30, &sj->d.compliance) < 0) return 0;
    if (ctn__json_range(c, j, "damping_time", path, 0.0, 0, 1e30, &sj->d.damping_time) < 0) return 0;
    return parse_hinge_drive(c, j, path, type, sj) && parse_frames(c, j, path, type, sj) && ctn__json_bool(c, j, "rope", path, &sj->rope) >= 0 &&
           ctn__json_bool(c, j, "implicit", path, &sj->d.implicit) >= 0 && ctn__json_bool(c, j, "relative", path, &sj->d.relative) >= 0;
}

/* ---- top level ---- */

static int array_member(pctx *c, const cJSON *root, const char *key, const cJSON **out) {
    const cJSON *v = ctn__json_member(root, key);
    *out = NULL;
    if (!v) return 1;
    if (!cJSON_IsArray(v)) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, key, "expected an array, got %s", ctn__json_type_name(v));
    *out = v;
    return 1;
}

/* "planes": [{"normal": [x, y, z], "offset": d, "friction": mu, "restitution": e}]: solid where normal . x <= offset. */
static int parse_planes(pctx *c, const cJSON *root, ctn_scene *s) {
    const cJSON *planes;
    if (!array_member(c, root, "planes", &planes)) return 0;
    int n = planes ? cJSON_GetArraySize(planes) : 0;
    if (n > 100000) return ctn__json_fail(c, CTN_ERR_LIMIT, "planes", "%d entries exceed the limit of 100000", n);
    s->planes = ctn__calloc((size_t)n + 1, sizeof *s->planes);
    if (!s->planes) return ctn__json_fail(c, CTN_ERR_OUT_OF_MEMORY, "planes", "out of memory");
    static const char *const keys[] = {"normal", "offset", "friction", "restitution", NULL};
    int i = 0;
    for (const cJSON *e = planes ? planes->child : NULL; e; e = e->next, ++i) {
        char path[PATH_MAX_LEN];
        snprintf(path, sizeof path, "planes[%d]", i);
        scene_plane *pl = &s->planes[i];
        pl->friction = 0.5;
        if (!ctn__json_object(c, e, path) || !ctn__json_keys(c, e, path, keys)) return 0;
        int r = ctn__json_nonzero_vec(c, e, "normal", path, 3, pl->normal);
        if (r < 0) return 0;
        if (!r) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, path, "missing \"normal\" (the direction out of the solid)");
        if (ctn__json_number(c, e, "offset", path, &pl->offset) < 0) return 0;
        if (ctn__json_range(c, e, "friction", path, 0.0, 0, 1e30, &pl->friction) < 0) return 0;
        if (ctn__json_range(c, e, "restitution", path, 0.0, 0, 1.0, &pl->restitution) < 0) return 0;
        s->plane_count = i + 1;
    }
    return 1;
}

static int parse_root(pctx *c, const cJSON *root, ctn_scene *s) {
    static const char *const keys[] = {"version", "description", "world", "bodies", "planes", "generators", "constraints", "assemble",
                                       "attachments", "robots", NULL};
    if (!cJSON_IsObject(root))
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, "", "expected a JSON object at the top level, got %s", ctn__json_type_name(root));
    if (!ctn__json_keys(c, root, "", keys)) return 0;
    long long version = 1;
    if (ctn__json_int(c, root, "version", "", 1, 1, &version) < 0) return 0;
    const cJSON *desc = ctn__json_member(root, "description");
    if (desc && !cJSON_IsString(desc)) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, "description", "expected a string, got %s", ctn__json_type_name(desc));
    const cJSON *wv = ctn__json_member(root, "world");
    if (wv && !parse_world(c, wv, s)) return 0;
    const cJSON *bodies, *gens, *cons;
    if (!array_member(c, root, "bodies", &bodies) || !array_member(c, root, "generators", &gens) ||
        !array_member(c, root, "constraints", &cons))
        return 0;
    int nb = bodies ? cJSON_GetArraySize(bodies) : 0, ng = gens ? cJSON_GetArraySize(gens) : 0,
        nc = cons ? cJSON_GetArraySize(cons) : 0;
    /* limits before allocating */
    if (nb > CTN_MAX_BODIES) return ctn__json_fail(c, CTN_ERR_LIMIT, "bodies", "%d entries exceed CTN_MAX_BODIES (%d)", nb, CTN_MAX_BODIES);
    if (nc > CTN_MAX_JOINTS) return ctn__json_fail(c, CTN_ERR_LIMIT, "constraints", "%d entries exceed CTN_MAX_JOINTS (%d)", nc, CTN_MAX_JOINTS);
    if (ng > 100000) return ctn__json_fail(c, CTN_ERR_LIMIT, "generators", "%d entries exceed the limit of 100000", ng);
    s->bodies = ctn__calloc((size_t)nb + 1, sizeof *s->bodies);
    s->gens = ctn__calloc((size_t)ng + 1, sizeof *s->gens);
    s->joints = ctn__calloc((size_t)nc + 1, sizeof *s->joints);
    if (!s->bodies || !s->gens || !s->joints) return ctn__json_fail(c, CTN_ERR_OUT_OF_MEMORY, "", "out of memory");
    int i = 0;
    for (const cJSON *b = bodies ? bodies->child : NULL; b; b = b->next, ++i) {
        if (!ctn__scene_parse_body(c, b, i, &s->bodies[i])) {
            s->body_count = i + 1; /* free the names parsed so far */
            return 0;
        }
        s->body_count = i + 1;
        for (int k = 0; k < i; ++k)
            if (s->bodies[i].name && s->bodies[k].name && !strcmp(s->bodies[i].name, s->bodies[k].name)) {
                char p[PATH_MAX_LEN];
                snprintf(p, sizeof p, "bodies[%d].name", i);
                return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "'%s' is already the name of bodies[%d]", s->bodies[i].name, k);
            }
    }
    if (!parse_planes(c, root, s)) return 0;
    int64_t total_b = nb, total_j = nc;
    c->bodies = s->bodies; /* generators may hang from explicit bodies */
    c->body_count = nb;
    c->total_bodies = nb;
    i = 0;
    for (const cJSON *g = gens ? gens->child : NULL; g; g = g->next, ++i) {
        if (!ctn__scene_parse_generator(c, g, i, &s->gens[i])) return 0;
        s->gen_count = i + 1;
        total_b += s->gens[i].bodies;
        total_j += s->gens[i].joints;
        char p[PATH_MAX_LEN];
        snprintf(p, sizeof p, "generators[%d]", i);
        if (total_b > CTN_MAX_BODIES)
            return ctn__json_fail(c, CTN_ERR_LIMIT, p, "the scene would have %lld bodies, more than CTN_MAX_BODIES (%d)", (long long)total_b, CTN_MAX_BODIES);
        if (total_j > CTN_MAX_JOINTS)
            return ctn__json_fail(c, CTN_ERR_LIMIT, p, "the scene would have %lld joints, more than CTN_MAX_JOINTS (%d)", (long long)total_j, CTN_MAX_JOINTS);
    }
    c->total_bodies = total_b;
    i = 0;
    for (const cJSON *j = cons ? cons->child : NULL; j; j = j->next, ++i) {
        if (!parse_constraint(c, j, i, &s->joints[i])) return 0;
        s->joint_count = i + 1;
    }
    s->total_bodies = total_b;
    s->total_joints = total_j;
    return ctn__scene_parse_attachments(c, root, s) && ctn__scene_parse_assemble(c, root, s) && ctn__scene_parse_robots(c, root, s);
}

ctn_status ctn_scene_parse_text(const char *text, size_t length, const char *source_name, ctn_scene **out, char *err,
                                size_t err_size) {
    if (out) *out = NULL;
    if (err && err_size) err[0] = '\0';
    const char *src = source_name ? source_name : "scene";
    if (!text || !out) {
        if (err && err_size) snprintf(err, err_size, "%s: ctn_scene_parse_text: %s is NULL", src, text ? "out" : "text");
        return CTN_ERR_INVALID_ARGUMENT;
    }
    if (length > (size_t)CTN_SCENE_MAX_FILE_BYTES) {
        if (err && err_size) snprintf(err, err_size, "%s: %zu bytes exceed the scene file limit of %ld bytes", src, length, CTN_SCENE_MAX_FILE_BYTES);
        return CTN_ERR_LIMIT;
    }
    size_t skip = length >= 3 && (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB && (unsigned char)text[2] == 0xBF ? 3 : 0;
    char bad[512];
    if (!ctn__json_check_controls(text, length, bad, sizeof bad)) {
        if (err && err_size) snprintf(err, err_size, "%s:%s", src, bad);
        return CTN_ERR_INVALID_ARGUMENT;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text + skip, length - skip, &end, 0);
    if (root && end) { /* only white space may follow the document */
        for (const char *q = end; q < text + length; ++q)
            if (*q != ' ' && *q != '\t' && *q != '\n' && *q != '\r') {
                cJSON_Delete(root);
                root = NULL;
                end = q;
                break;
            }
    }
    if (!root) {
        char msg[512];
        size_t off = end && end >= text + skip ? (size_t)(end - text) : skip;
        ctn__json_diagnose(text, length, off, msg, sizeof msg);
        if (err && err_size) snprintf(err, err_size, "%s:%s", src, msg);
        return CTN_ERR_INVALID_ARGUMENT;
    }
    ctn_scene *s = ctn__calloc(1, sizeof *s);
    if (!s) {
        cJSON_Delete(root);
        if (err && err_size) snprintf(err, err_size, "%s: out of memory", src);
        return CTN_ERR_OUT_OF_MEMORY;
    }
    snprintf(s->source, sizeof s->source, "%s", src);
    s->desc = ctn_world_desc_default();
    s->steps = 600;
    pctx c;
    memset(&c, 0, sizeof c);
    c.source = src;
    c.err = err;
    c.err_size = err_size;
    c.status = CTN_OK;
    int ok = parse_root(&c, root, s);
    cJSON_Delete(root);
    if (!ok) {
        ctn_scene_free(s);
        return c.status != CTN_OK ? c.status : CTN_ERR_INVALID_ARGUMENT;
    }
    *out = s;
    return CTN_OK;
}

#endif /* CATENA_HAVE_CJSON */

ctn_status ctn_scene_parse_file(const char *path, ctn_scene **out, char *err, size_t err_size) {
    if (out) *out = NULL;
    if (!path || !out) {
        if (err && err_size) snprintf(err, err_size, "ctn_scene_parse_file: %s is NULL", path ? "out" : "path");
        return CTN_ERR_INVALID_ARGUMENT;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (err && err_size) snprintf(err, err_size, "%s: cannot open: %s", path, strerror(errno));
        return CTN_ERR_IO;
    }
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        if (err && err_size) snprintf(err, err_size, "%s: cannot read: not a regular file", path);
        fclose(f);
        return CTN_ERR_IO;
    }
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0) {
        if (err && err_size) snprintf(err, err_size, "%s: cannot read (not a regular file?)", path);
        fclose(f);
        return CTN_ERR_IO;
    }
    if (size > CTN_SCENE_MAX_FILE_BYTES) {
        if (err && err_size) snprintf(err, err_size, "%s: %ld bytes exceed the scene file limit of %ld bytes", path, size, CTN_SCENE_MAX_FILE_BYTES);
        fclose(f);
        return CTN_ERR_LIMIT;
    }
    char *text = ctn__malloc((size_t)size + 1);
    if (!text) {
        if (err && err_size) snprintf(err, err_size, "%s: out of memory reading %ld bytes", path, size);
        fclose(f);
        return CTN_ERR_OUT_OF_MEMORY;
    }
    size_t got = fread(text, 1, (size_t)size, f);
    int bad = ferror(f);
    fclose(f);
    if (bad || got != (size_t)size) {
        if (err && err_size) snprintf(err, err_size, "%s: read error", path);
        ctn__free(text);
        return CTN_ERR_IO;
    }
    text[got] = '\0';
    ctn_status st = ctn_scene_parse_text(text, got, path, out, err, err_size);
    ctn__free(text);
    return st;
}

ctn_status ctn_scene_load_json(ctn_world *w, const char *path, char *err, size_t err_size) {
    CTN__ENTER(w);
    ctn_scene *s = NULL;
    ctn_status st = ctn_scene_parse_file(path, &s, err, err_size);
    if (st != CTN_OK) {
        ctn__fail(w, st, "%s", err && err_size ? err : "scene file rejected");
        return st;
    }
    st = ctn_scene_build(s, w);
    if (st != CTN_OK && err && err_size) snprintf(err, err_size, "%s", w->error);
    ctn_scene_free(s);
    return st;
}
