/* JSON scene files (schema: docs/scene-format.md). cJSON parses the text; this module checks every key
 * and value against the schema, naming the JSON path of any problem, checks the size limits before
 * allocating, and keeps a validated description (ctn_scene) that ctn_scene_build turns into bodies and
 * joints. A failed build rolls the world back, so a world never holds half a scene. */
#define _POSIX_C_SOURCE 200809L
#include "core/world.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef CATENA_HAVE_CJSON
#include <cjson/cJSON.h>

#include "io/json_diagnose.h"
#endif

/* ---- the validated scene ------------------------------------------------------------------------- */

typedef struct scene_body {
    ctn_body_desc d;
    char *name;
    double force[3], torque[3];
    int has_force;
} scene_body;

typedef struct scene_joint {
    ctn_joint_desc d;  /* body_a / body_b are scene body indices here (CTN_WORLD for the world) */
    int has_pivot;
    double pivot[3];
    int has_axis;
} scene_joint;

/* in the order of the generator names in parse_generator */
enum { GEN_CHAIN, GEN_ROPE, GEN_GRID, GEN_BRIDGE, GEN_CRADLE, GEN_DOUBLE_PENDULUM, GEN_PILE, GEN_CAPSULE_CHAIN, GEN_BRIDGE_LIMITS,
       GEN_CONTACT_CRADLE, GEN_WHEEL };

typedef struct scene_gen {
    int kind;
    ctn_chain_desc chain;
    int nx, ny;
    double spacing;
    int count;             /* bridge planks, cradle balls */
    int64_t bodies, joints;
} scene_gen;

struct ctn_scene {
    char source[512];
    ctn_world_desc desc;
    char device[256];
    int steps;
    int body_count;        /* explicit bodies */
    scene_body *bodies;
    int joint_count;       /* explicit constraints */
    scene_joint *joints;
    int gen_count;
    scene_gen *gens;
    int64_t total_bodies, total_joints;
};

void ctn_scene_free(ctn_scene *s) {
    if (!s) return;
    for (int i = 0; i < s->body_count; ++i) free(s->bodies[i].name);
    free(s->bodies);
    free(s->joints);
    free(s->gens);
    free(s);
}

ctn_status ctn_scene_get_settings(const ctn_scene *s, ctn_world_desc *desc, int *steps) {
    if (!s || !desc) return CTN_ERR_INVALID_ARGUMENT;
    *desc = s->desc;
    desc->device = s->device[0] ? s->device : NULL;
    if (steps) *steps = s->steps;
    return CTN_OK;
}

int64_t ctn_scene_body_count(const ctn_scene *s) { return s ? s->total_bodies : 0; }
int64_t ctn_scene_joint_count(const ctn_scene *s) { return s ? s->total_joints : 0; }

/* ---- building ------------------------------------------------------------------------------------ */

/* Removes everything added after the world had nb body slots and nj joint slots (scene building only
 * appends fresh slots, whose generation is 0, so truncation restores the world). */
static void rollback(ctn_world *w, int nb, int nj, int topology_dirty, int bodies_dirty) {
    for (int j = nj; j < w->joint_count; ++j) {
        if (!w->joint_alive[j]) continue;
        w->body_refs[w->joints[j].a]--;
        if (w->joints[j].b >= 0) w->body_refs[w->joints[j].b]--;
        w->live_joints--;
    }
    w->joint_count = nj;
    for (int i = nb; i < w->body_count; ++i)
        if (w->props[i].flags & CTN_BODY_FLAG_ALIVE) w->live_bodies--;
    ctn__body_names_truncate(w, nb);
    w->body_count = nb;
    w->topology_dirty = topology_dirty;
    w->bodies_dirty = bodies_dirty;
}

ctn_status ctn_scene_build(const ctn_scene *s, ctn_world *w) {
    if (!w) return CTN_ERR_INVALID_ARGUMENT;
    if (!s) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_scene_build: scene is NULL");
    if (s->total_bodies > (int64_t)CTN_MAX_BODIES - w->body_count)
        return ctn__fail(w, CTN_ERR_LIMIT, "%s: %lld bodies would exceed CTN_MAX_BODIES (%d) in this world", s->source,
                         (long long)s->total_bodies, CTN_MAX_BODIES);
    if (s->total_joints > (int64_t)CTN_MAX_JOINTS - w->joint_count)
        return ctn__fail(w, CTN_ERR_LIMIT, "%s: %lld joints would exceed CTN_MAX_JOINTS (%d) in this world", s->source,
                         (long long)s->total_joints, CTN_MAX_JOINTS);
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    int nb = w->body_count, nj = w->joint_count, td = w->topology_dirty, bd = w->bodies_dirty;
    char where[64] = "";
    w->append_slots++; /* file body i is slot nb + i, whose handle is nb + i (generation 0) */
    for (int i = 0; i < s->body_count && st == CTN_OK; ++i) {
        snprintf(where, sizeof where, "bodies[%d]", i);
        st = ctn_body_add(w, &s->bodies[i].d, NULL);
        if (st == CTN_OK && s->bodies[i].name) st = ctn_body_set_name(w, nb + i, s->bodies[i].name);
        if (st == CTN_OK && s->bodies[i].has_force) st = ctn_body_set_force(w, nb + i, s->bodies[i].force, s->bodies[i].torque);
    }
    for (int g = 0; g < s->gen_count && st == CTN_OK; ++g) {
        const scene_gen *gen = &s->gens[g];
        snprintf(where, sizeof where, "generators[%d]", g);
        switch (gen->kind) {
        case GEN_CHAIN:
        case GEN_ROPE: st = ctn_scene_chain(w, &gen->chain, NULL); break;
        case GEN_GRID: st = ctn_scene_grid(w, gen->nx, gen->ny, gen->spacing); break;
        case GEN_BRIDGE: st = ctn_scene_bridge(w, gen->count); break;
        case GEN_CRADLE: st = ctn_scene_cradle(w, gen->count); break;
        case GEN_PILE: st = ctn_scene_pile(w, gen->count); break;
        case GEN_CAPSULE_CHAIN: st = ctn_scene_capsule_chain(w, gen->count); break;
        case GEN_BRIDGE_LIMITS: st = ctn_scene_bridge_limits(w, gen->count); break;
        case GEN_CONTACT_CRADLE: st = ctn_scene_contact_cradle(w, gen->count); break;
        case GEN_WHEEL: st = ctn_scene_wheel(w); break;
        default: st = ctn_scene_double_pendulum(w); break;
        }
    }
    for (int j = 0; j < s->joint_count && st == CTN_OK; ++j) {
        snprintf(where, sizeof where, "constraints[%d]", j);
        ctn_joint_desc d = s->joints[j].d;
        d.body_a = nb + d.body_a;
        if (d.body_b != CTN_WORLD) d.body_b = nb + d.body_b;
        if (s->joints[j].has_pivot) st = ctn_joint_desc_set_pivot(w, &d, s->joints[j].pivot, s->joints[j].has_axis ? d.axis : NULL);
        if (st == CTN_OK) st = ctn_joint_add(w, &d, NULL);
    }
    w->append_slots--;
    if (st != CTN_OK) {
        char msg[sizeof w->error];
        snprintf(msg, sizeof msg, "%s", w->error);
        rollback(w, nb, nj, td, bd);
        ctn__fail(w, st, "%s: %s: %s", s->source, where, msg);
    }
    return st;
}

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

/* ---- parsing ------------------------------------------------------------------------------------- */

#define PATH_MAX_LEN 256

typedef struct pctx {
    const char *source;
    char *err;
    size_t err_size;
    ctn_status status;
    const cJSON *body_array; /* for name lookups */
    int body_count;          /* explicit bodies */
    int64_t total_bodies;    /* explicit + generated */
    const scene_body *bodies;
} pctx;

static int fail(pctx *c, ctn_status st, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int fail(pctx *c, ctn_status st, const char *path, const char *fmt, ...) {
    c->status = st;
    if (!c->err || !c->err_size) return 0;
    int k = snprintf(c->err, c->err_size, "%s: %s%s", c->source, path, path[0] ? ": " : "");
    if (k < 0 || (size_t)k >= c->err_size) return 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err + k, c->err_size - (size_t)k, fmt, ap);
    va_end(ap);
    return 0;
}

static const char *type_name(const cJSON *v) {
    if (!v) return "nothing";
    if (cJSON_IsObject(v)) return "an object";
    if (cJSON_IsArray(v)) return "an array";
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsBool(v)) return "a boolean";
    if (cJSON_IsNull(v)) return "null";
    return "an invalid value";
}

/* out = path + "." + key, truncated to PATH_MAX_LEN - 1 characters. */
static void join_path(char *out, const char *path, const char *key) {
    size_t n = 0;
    for (const char *s = path; *s && n + 1 < PATH_MAX_LEN; ++s) out[n++] = *s;
    if (path[0] && n + 1 < PATH_MAX_LEN) out[n++] = '.';
    for (const char *s = key; *s && n + 1 < PATH_MAX_LEN; ++s) out[n++] = *s;
    out[n] = '\0';
}

/* Every member of obj must be in `allowed` (NULL-terminated) and appear once. */
static int check_keys(pctx *c, const cJSON *obj, const char *path, const char *const *allowed) {
    for (const cJSON *m = obj->child; m; m = m->next) {
        int ok = 0;
        for (int k = 0; allowed[k]; ++k)
            if (!strcmp(m->string, allowed[k])) ok = 1;
        if (!ok) {
            char list[512];
            size_t n = 0;
            list[0] = '\0';
            for (int k = 0; allowed[k] && n + 2 < sizeof list; ++k) {
                int w = snprintf(list + n, sizeof list - n, "%s%s", k ? ", " : "", allowed[k]);
                if (w < 0) break;
                n += (size_t)w;
            }
            return fail(c, CTN_ERR_INVALID_ARGUMENT, path, "unknown key '%s' (allowed here: %s)", m->string, list);
        }
        for (const cJSON *o = obj->child; o != m; o = o->next)
            if (!strcmp(o->string, m->string)) return fail(c, CTN_ERR_INVALID_ARGUMENT, path, "duplicate key '%s'", m->string);
    }
    return 1;
}

static const cJSON *member(const cJSON *obj, const char *key) { return cJSON_GetObjectItemCaseSensitive(obj, key); }

/* Optional number: 1 read, 0 absent (out unchanged), -1 error. */
static int get_number(pctx *c, const cJSON *obj, const char *key, const char *path, double *out) {
    const cJSON *v = member(obj, key);
    if (!v) return 0;
    char p[PATH_MAX_LEN];
    join_path(p, path, key);
    if (!cJSON_IsNumber(v)) return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "expected a number, got %s", type_name(v)) - 1;
    if (!isfinite(v->valuedouble)) return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "%g is not a finite number", v->valuedouble) - 1;
    *out = v->valuedouble;
    return 1;
}

/* Number in [lo, hi] (open at lo when lo_open). */
static int get_range(pctx *c, const cJSON *obj, const char *key, const char *path, double lo, int lo_open, double hi, double *out) {
    double v = 0.0;
    int r = get_number(c, obj, key, path, &v);
    if (r <= 0) return r;
    if ((lo_open ? !(v > lo) : !(v >= lo)) || !(v <= hi)) {
        char p[PATH_MAX_LEN];
        join_path(p, path, key);
        return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "%g is not in %c%g, %g]", v, lo_open ? '(' : '[', lo, hi) - 1;
    }
    *out = v;
    return 1;
}

static int get_int(pctx *c, const cJSON *obj, const char *key, const char *path, long long lo, long long hi, long long *out) {
    const cJSON *v = member(obj, key);
    if (!v) return 0;
    char p[PATH_MAX_LEN];
    join_path(p, path, key);
    if (!cJSON_IsNumber(v)) return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "expected an integer, got %s", type_name(v)) - 1;
    double d = v->valuedouble;
    if (!isfinite(d) || d != floor(d)) return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "expected an integer, got %g", d) - 1;
    if (d < (double)lo || d > (double)hi)
        return fail(c, CTN_ERR_LIMIT, p, "%.17g is not in [%lld, %lld]", d, lo, hi) - 1;
    *out = (long long)d;
    return 1;
}

static int get_int32(pctx *c, const cJSON *obj, const char *key, const char *path, int lo, int hi, int *out) {
    long long v;
    int r = get_int(c, obj, key, path, lo, hi, &v);
    if (r == 1) *out = (int)v;
    return r;
}

static int get_vec(pctx *c, const cJSON *obj, const char *key, const char *path, int n, double *out) {
    const cJSON *v = member(obj, key);
    if (!v) return 0;
    char p[PATH_MAX_LEN];
    join_path(p, path, key);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n)
        return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "expected an array of %d numbers, got %s%s", n, type_name(v),
                    cJSON_IsArray(v) ? " of another length" : "") - 1;
    int k = 0;
    for (const cJSON *e = v->child; e; e = e->next, ++k) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) {
            char pe[PATH_MAX_LEN + 16];
            snprintf(pe, sizeof pe, "%s[%d]", p, k);
            return fail(c, CTN_ERR_INVALID_ARGUMENT, pe, "expected a finite number, got %s", type_name(e)) - 1;
        }
        out[k] = e->valuedouble;
    }
    return 1;
}

static int get_bool(pctx *c, const cJSON *obj, const char *key, const char *path, int *out) {
    const cJSON *v = member(obj, key);
    if (!v) return 0;
    char p[PATH_MAX_LEN];
    join_path(p, path, key);
    if (!cJSON_IsBool(v)) return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "expected true or false, got %s", type_name(v)) - 1;
    *out = cJSON_IsTrue(v) ? 1 : 0;
    return 1;
}

/* Optional string that must be one of names[]; *out receives its index. */
static int get_enum(pctx *c, const cJSON *obj, const char *key, const char *path, const char *const *names, int *out) {
    const cJSON *v = member(obj, key);
    if (!v) return 0;
    char p[PATH_MAX_LEN];
    join_path(p, path, key);
    if (!cJSON_IsString(v)) return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "expected a string, got %s", type_name(v)) - 1;
    char list[256] = "";
    size_t n = 0;
    for (int k = 0; names[k]; ++k) {
        if (!strcmp(v->valuestring, names[k])) {
            *out = k;
            return 1;
        }
        int w = snprintf(list + n, sizeof list - n, "%s%s", k ? ", " : "", names[k]);
        if (w > 0 && (size_t)w < sizeof list - n) n += (size_t)w;
    }
    return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "'%s' is not one of %s", v->valuestring, list) - 1;
}

static int is_object(pctx *c, const cJSON *v, const char *path) {
    if (cJSON_IsObject(v)) return 1;
    return fail(c, CTN_ERR_INVALID_ARGUMENT, path, "expected an object, got %s", type_name(v));
}

/* ---- world ---- */

static const char *const solver_names[] = {"gs", "jacobi", "cg", "direct", "auto", NULL};
static const char *const backend_names[] = {"auto", "cpu", "opencl", NULL};
static const char *const stab_names[] = {"spook", "baumgarte", NULL};

static int parse_world(pctx *c, const cJSON *wv, ctn_scene *s) {
    static const char *const keys[] = {"gravity", "time_step", "steps", "solver", "iterations", "substeps", "backend", "device",
                                       "compliance", "damping_time", "stabilization", "baumgarte", "warm_start", "max_colours",
                                       "threads", "max_speed", NULL};
    const char *path = "world";
    if (!is_object(c, wv, path) || !check_keys(c, wv, path, keys)) return 0;
    ctn_world_desc *d = &s->desc;
    int e;
    if (get_vec(c, wv, "gravity", path, 3, d->gravity) < 0) return 0;
    if (get_range(c, wv, "time_step", path, 0.0, 1, 10.0, &d->time_step) < 0) return 0;
    if (get_int32(c, wv, "steps", path, 0, 1000000000, &s->steps) < 0) return 0;
    e = (int)d->solver;
    if (get_enum(c, wv, "solver", path, solver_names, &e) < 0) return 0;
    d->solver = (ctn_solver)e;
    if (get_int32(c, wv, "iterations", path, 1, CTN_MAX_ITERATIONS, &d->iterations) < 0) return 0;
    if (get_int32(c, wv, "substeps", path, 1, CTN_MAX_SUBSTEPS, &d->substeps) < 0) return 0;
    e = (int)d->backend;
    if (get_enum(c, wv, "backend", path, backend_names, &e) < 0) return 0;
    d->backend = (ctn_backend)e;
    const cJSON *dev = member(wv, "device");
    if (dev && !cJSON_IsNull(dev)) {
        if (!cJSON_IsString(dev)) return fail(c, CTN_ERR_INVALID_ARGUMENT, "world.device", "expected a string or null, got %s", type_name(dev));
        if (strlen(dev->valuestring) >= sizeof s->device - 1)
            return fail(c, CTN_ERR_LIMIT, "world.device", "longer than %zu characters", sizeof s->device - 2);
        snprintf(s->device, sizeof s->device, "%s", dev->valuestring);
    }
    if (get_range(c, wv, "compliance", path, 0.0, 0, 1e30, &d->compliance) < 0) return 0;
    if (get_number(c, wv, "damping_time", path, &d->damping_time) < 0) return 0;
    e = (int)d->stabilization;
    if (get_enum(c, wv, "stabilization", path, stab_names, &e) < 0) return 0;
    d->stabilization = (ctn_stabilization)e;
    if (get_range(c, wv, "baumgarte", path, 0.0, 0, 1.0, &d->baumgarte) < 0) return 0;
    if (get_range(c, wv, "warm_start", path, 0.0, 0, 1.0, &d->warm_start) < 0) return 0;
    if (get_int32(c, wv, "max_colours", path, 2, CTN_MAX_COLOURS, &d->max_colours) < 0) return 0;
    if (get_int32(c, wv, "threads", path, 0, 1024, &d->threads) < 0) return 0;
    if (get_number(c, wv, "max_speed", path, &d->max_speed) < 0) return 0;
    return 1;
}

/* ---- bodies ---- */

static const char *const body_types[] = {"dynamic", "static", "kinematic", NULL};

static int parse_inertia(pctx *c, const cJSON *b, const char *path, scene_body *sb) {
    const cJSON *v = member(b, "inertia");
    char p[PATH_MAX_LEN];
    join_path(p, path, "inertia");
    if (cJSON_IsArray(v)) {
        if (get_vec(c, b, "inertia", path, 3, sb->d.inertia) < 0) return 0;
        for (int k = 0; k < 3; ++k)
            if (!(sb->d.inertia[k] > 0.0)) return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "moment %d is %g; moments must be > 0", k, sb->d.inertia[k]);
        return 1;
    }
    if (!cJSON_IsObject(v))
        return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "expected [Ixx, Iyy, Izz] or a shape {\"box\": [hx, hy, hz]}, {\"sphere\": r}, {\"capsule\": {...}}, got %s",
                    type_name(v));
    static const char *const shapes[] = {"box", "sphere", "capsule", NULL};
    if (!check_keys(c, v, p, shapes)) return 0;
    if (cJSON_GetArraySize(v) != 1) return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "give exactly one shape (box, sphere or capsule)");
    double m = sb->d.mass;
    if (member(v, "box")) {
        double he[3];
        if (get_vec(c, v, "box", p, 3, he) < 0) return 0;
        for (int k = 0; k < 3; ++k)
            if (!(he[k] > 0.0)) return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "box half extent %d is %g; it must be > 0", k, he[k]);
        ctn_inertia_box(m, he, sb->d.inertia);
    } else if (member(v, "sphere")) {
        double r = 0.0;
        if (get_range(c, v, "sphere", p, 0.0, 1, 1e30, &r) < 0) return 0;
        ctn_inertia_sphere(m, r, sb->d.inertia);
    } else {
        const cJSON *cap = member(v, "capsule");
        char pc[PATH_MAX_LEN];
        join_path(pc, p, "capsule");
        static const char *const ckeys[] = {"radius", "half_length", "axis", NULL};
        static const char *const axes[] = {"x", "y", "z", NULL};
        if (!is_object(c, cap, pc) || !check_keys(c, cap, pc, ckeys)) return 0;
        double r = 0.0, hl = 0.0;
        int axis = 0;
        int rr = get_range(c, cap, "radius", pc, 0.0, 1, 1e30, &r);
        if (rr < 0) return 0;
        int rh = get_range(c, cap, "half_length", pc, 0.0, 0, 1e30, &hl);
        if (rh < 0) return 0;
        if (!rr || !rh) return fail(c, CTN_ERR_INVALID_ARGUMENT, pc, "needs \"radius\" and \"half_length\"");
        if (get_enum(c, cap, "axis", pc, axes, &axis) < 0) return 0;
        ctn_inertia_capsule(m, r, hl, axis, sb->d.inertia);
    }
    return 1;
}

static int parse_body(pctx *c, const cJSON *b, int index, scene_body *sb) {
    static const char *const keys[] = {"name", "type", "particle", "mass", "inertia", "position", "orientation", "velocity",
                                       "angular_velocity", "force", "torque", NULL};
    char path[PATH_MAX_LEN];
    snprintf(path, sizeof path, "bodies[%d]", index);
    if (!is_object(c, b, path) || !check_keys(c, b, path, keys)) return 0;
    sb->d = ctn_body_desc_default();
    int type = 0, r;
    if (get_enum(c, b, "type", path, body_types, &type) < 0) return 0;
    sb->d.type = (ctn_body_type)type;
    if (get_bool(c, b, "particle", path, &sb->d.particle) < 0) return 0;
    char p[PATH_MAX_LEN];
    if ((r = get_number(c, b, "mass", path, &sb->d.mass)) < 0) return 0;
    if (r && !(sb->d.mass > 0.0)) {
        join_path(p, path, "mass");
        return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "%g must be > 0", sb->d.mass);
    }
    int dynamic_rigid = sb->d.type == CTN_BODY_DYNAMIC && !sb->d.particle;
    if (member(b, "inertia")) {
        join_path(p, path, "inertia");
        if (sb->d.particle) return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "a particle has no inertia (remove the key or \"particle\")");
        if (!parse_inertia(c, b, path, sb)) return 0;
    } else if (dynamic_rigid) {
        join_path(p, path, "inertia");
        return fail(c, CTN_ERR_INVALID_ARGUMENT, p,
                    "required for a rigid dynamic body: give [Ixx, Iyy, Izz], a shape such as {\"sphere\": 0.1}, or \"particle\": true");
    }
    if (get_vec(c, b, "position", path, 3, sb->d.position) < 0) return 0;
    if ((r = get_vec(c, b, "orientation", path, 4, sb->d.orientation)) < 0) return 0;
    if (r) {
        const double *q = sb->d.orientation;
        if (!(sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) > 1e-9)) {
            join_path(p, path, "orientation");
            return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "the quaternion (w, x, y, z) has zero length");
        }
    }
    if (get_vec(c, b, "velocity", path, 3, sb->d.velocity) < 0) return 0;
    if (get_vec(c, b, "angular_velocity", path, 3, sb->d.angular_velocity) < 0) return 0;
    int rf = get_vec(c, b, "force", path, 3, sb->force);
    if (rf < 0) return 0;
    int rt = get_vec(c, b, "torque", path, 3, sb->torque);
    if (rt < 0) return 0;
    sb->has_force = rf || rt;
    const cJSON *name = member(b, "name");
    if (name) {
        join_path(p, path, "name");
        if (!cJSON_IsString(name)) return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "expected a string, got %s", type_name(name));
        if (!name->valuestring[0] || !strcmp(name->valuestring, "world"))
            return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "'%s' is reserved; choose another name", name->valuestring);
        if (strlen(name->valuestring) > 255) return fail(c, CTN_ERR_LIMIT, p, "longer than 255 characters");
        sb->name = malloc(strlen(name->valuestring) + 1);
        if (!sb->name) return fail(c, CTN_ERR_OUT_OF_MEMORY, p, "out of memory");
        strcpy(sb->name, name->valuestring);
    }
    return 1;
}

/* ---- generators ---- */

static int parse_chain(pctx *c, const cJSON *g, const char *path, int rope, scene_gen *sg) {
    static const char *const keys[] = {"links", "link_length", "link_mass", "end_mass_ratio", "origin", "direction", NULL};
    if (!is_object(c, g, path) || !check_keys(c, g, path, keys)) return 0;
    long long links = 0;
    int r = get_int(c, g, "links", path, 1, CTN_MAX_BODIES, &links);
    if (r < 0) return 0;
    if (!r) return fail(c, CTN_ERR_INVALID_ARGUMENT, path, "missing \"links\" (the number of links)");
    sg->chain = ctn_chain_desc_default((int)links);
    sg->chain.particles = rope;
    if (get_range(c, g, "link_length", path, 0.0, 1, 1e30, &sg->chain.link_length) < 0) return 0;
    if (get_range(c, g, "link_mass", path, 0.0, 1, 1e30, &sg->chain.link_mass) < 0) return 0;
    if (get_range(c, g, "end_mass_ratio", path, 0.0, 1, 1e30, &sg->chain.end_mass_ratio) < 0) return 0;
    if (get_vec(c, g, "origin", path, 3, sg->chain.origin) < 0) return 0;
    if ((r = get_vec(c, g, "direction", path, 3, sg->chain.direction)) < 0) return 0;
    const double *u = sg->chain.direction;
    if (r && !(sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) > 1e-9)) {
        char p[PATH_MAX_LEN];
        join_path(p, path, "direction");
        return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "zero-length direction");
    }
    sg->bodies = sg->joints = links;
    return 1;
}

static int parse_generator(pctx *c, const cJSON *e, int index, scene_gen *sg) {
    static const char *const kinds[] = {"chain",          "rope",         "grid",          "bridge",
                                        "cradle",         "double_pendulum", "pile",        "capsule_chain",
                                        "bridge_limits",  "contact_cradle",  "wheel",       NULL};
    char path[PATH_MAX_LEN];
    snprintf(path, sizeof path, "generators[%d]", index);
    if (!is_object(c, e, path) || !check_keys(c, e, path, kinds)) return 0;
    if (cJSON_GetArraySize(e) != 1)
        return fail(c, CTN_ERR_INVALID_ARGUMENT, path, "expected exactly one generator, e.g. {\"chain\": {\"links\": 100}}, got %d keys",
                    cJSON_GetArraySize(e));
    const cJSON *g = e->child;
    char p[PATH_MAX_LEN];
    join_path(p, path, g->string);
    int kind = 0;
    while (strcmp(kinds[kind], g->string)) ++kind;
    sg->kind = kind;
    if (kind == GEN_CHAIN || kind == GEN_ROPE) return parse_chain(c, g, p, kind == GEN_ROPE, sg);
    if (!is_object(c, g, p)) return 0;
    if (kind == GEN_GRID) {
        static const char *const keys[] = {"nx", "ny", "spacing", NULL};
        if (!check_keys(c, g, p, keys)) return 0;
        int rx = get_int32(c, g, "nx", p, 1, CTN_MAX_BODIES / 2, &sg->nx);
        if (rx < 0) return 0;
        int ry = get_int32(c, g, "ny", p, 1, CTN_MAX_BODIES / 2, &sg->ny);
        if (ry < 0) return 0;
        if (!rx || !ry) return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "needs \"nx\" and \"ny\"");
        if ((int64_t)sg->nx * sg->ny > CTN_MAX_BODIES / 2)
            return fail(c, CTN_ERR_LIMIT, p, "%d x %d bodies exceed the grid limit of %d", sg->nx, sg->ny, CTN_MAX_BODIES / 2);
        sg->spacing = 0.1;
        if (get_range(c, g, "spacing", p, 0.0, 1, 1e30, &sg->spacing) < 0) return 0;
        int64_t nx = sg->nx, ny = sg->ny;
        sg->bodies = nx * ny;
        sg->joints = nx + (nx - 1) * ny + nx * (ny - 1);
        return 1;
    }
    if (kind == GEN_BRIDGE || kind == GEN_CRADLE || kind == GEN_PILE || kind == GEN_CAPSULE_CHAIN || kind == GEN_BRIDGE_LIMITS ||
        kind == GEN_CONTACT_CRADLE) {
        /* the count key and limit of each counted generator, and the joints it makes per count */
        const char *key = kind == GEN_BRIDGE || kind == GEN_BRIDGE_LIMITS ? "planks"
                          : kind == GEN_PILE                              ? "spheres"
                          : kind == GEN_CAPSULE_CHAIN                     ? "links"
                                                                          : "balls";
        int limit = kind == GEN_CRADLE || kind == GEN_CONTACT_CRADLE ? 100000 : kind == GEN_PILE ? 10000000 : CTN_MAX_BODIES / 2;
        const char *const keys[] = {key, NULL};
        if (!check_keys(c, g, p, keys)) return 0;
        int r = get_int32(c, g, key, p, 1, limit, &sg->count);
        if (r < 0) return 0;
        if (!r) return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "missing \"%s\"", key);
        sg->bodies = sg->count;
        sg->joints = kind == GEN_BRIDGE || kind == GEN_BRIDGE_LIMITS ? (int64_t)sg->count + 1
                     : kind == GEN_PILE                              ? 0
                     : kind == GEN_CAPSULE_CHAIN                     ? (int64_t)sg->count - 1
                                                                     : sg->count;
        return 1;
    }
    if (kind == GEN_WHEEL) {
        static const char *const none[] = {NULL};
        if (!check_keys(c, g, p, none)) return 0;
        sg->bodies = 6; /* the wheel and five boxes */
        sg->joints = 1;
        return 1;
    }
    static const char *const none[] = {NULL};
    if (!check_keys(c, g, p, none)) return 0;
    sg->bodies = sg->joints = 2;
    return 1;
}

/* ---- constraints ---- */

static const char *const joint_types[] = {"distance", "ball", "hinge", "fixed", "spring", NULL};

/* A body reference: an index into the scene's bodies, a body name, or "world". */
static int parse_body_ref(pctx *c, const cJSON *j, const char *key, const char *path, int allow_world, ctn_body_id *out) {
    const cJSON *v = member(j, key);
    char p[PATH_MAX_LEN];
    join_path(p, path, key);
    if (!v) return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "missing (a body index, a body name or \"world\")");
    if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        if (d != floor(d) || !isfinite(d)) return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "body index %g is not an integer", d);
        if (d < 0 || d >= (double)c->total_bodies)
            return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "body index %.0f out of range (%lld bodies)", d, (long long)c->total_bodies);
        *out = (int)d;
        return 1;
    }
    if (cJSON_IsString(v)) {
        if (!strcmp(v->valuestring, "world")) {
            if (!allow_world) return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "\"world\" can only be body b");
            *out = CTN_WORLD;
            return 1;
        }
        for (int i = 0; i < c->body_count; ++i)
            if (c->bodies[i].name && !strcmp(c->bodies[i].name, v->valuestring)) {
                *out = i;
                return 1;
            }
        return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "no body is named '%s'", v->valuestring);
    }
    return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "expected a body index, a body name or \"world\", got %s", type_name(v));
}

static int parse_constraint(pctx *c, const cJSON *j, int index, scene_joint *sj) {
    char path[PATH_MAX_LEN], p[PATH_MAX_LEN];
    snprintf(path, sizeof path, "constraints[%d]", index);
    if (!is_object(c, j, path)) return 0;
    int type = 0;
    const cJSON *tv = member(j, "type");
    join_path(p, path, "type");
    if (!tv) return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "missing (distance, ball, hinge, fixed or spring)");
    if (get_enum(c, j, "type", path, joint_types, &type) < 0) return 0;
    static const char *const k_distance[] = {"type", "name", "a", "b", "anchor_a", "anchor_b", "rest_length", "compliance", "damping_time", NULL};
    static const char *const k_ball[] = {"type", "name", "a", "b", "anchor_a", "anchor_b", "pivot", "compliance", "damping_time", NULL};
    static const char *const k_hinge[] = {"type", "name", "a", "b", "anchor_a", "anchor_b", "pivot", "axis", "compliance", "damping_time", NULL};
    static const char *const k_spring[] = {"type", "name", "a", "b", "anchor_a", "anchor_b", "rest_length", "stiffness", "damping", NULL};
    const char *const *keys = type == CTN_JOINT_DISTANCE ? k_distance
                              : type == CTN_JOINT_HINGE  ? k_hinge
                              : type == CTN_JOINT_SPRING ? k_spring
                                                         : k_ball;
    if (!check_keys(c, j, path, keys)) return 0;
    const cJSON *name = member(j, "name");
    if (name && !cJSON_IsString(name)) {
        join_path(p, path, "name");
        return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "expected a string, got %s", type_name(name));
    }
    sj->d = ctn_joint_desc_default((ctn_joint_type)type);
    if (!parse_body_ref(c, j, "a", path, 0, &sj->d.body_a)) return 0;
    sj->d.body_b = CTN_WORLD;
    if (member(j, "b") && !parse_body_ref(c, j, "b", path, 1, &sj->d.body_b)) return 0;
    if (sj->d.body_a == sj->d.body_b) {
        join_path(p, path, "b");
        return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "body %d is also body a; a joint needs two different bodies", (int)sj->d.body_b);
    }
    int ra = get_vec(c, j, "anchor_a", path, 3, sj->d.anchor_a);
    if (ra < 0) return 0;
    int rb = get_vec(c, j, "anchor_b", path, 3, sj->d.anchor_b);
    if (rb < 0) return 0;
    int rp = get_vec(c, j, "pivot", path, 3, sj->pivot);
    if (rp < 0) return 0;
    sj->has_pivot = rp;
    if (rp && (ra || rb)) {
        join_path(p, path, "pivot");
        return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "give either \"pivot\" (a world point) or \"anchor_a\"/\"anchor_b\", not both");
    }
    if ((type == CTN_JOINT_BALL || type == CTN_JOINT_HINGE || type == CTN_JOINT_FIXED) && !rp && !ra && !rb)
        return fail(c, CTN_ERR_INVALID_ARGUMENT, path, "a %s joint needs \"pivot\" (a world point) or \"anchor_a\" and \"anchor_b\"",
                    joint_types[type]);
    /* particle anchors are their centres */
    for (int side = 0; side < 2; ++side) {
        int b = side ? sj->d.body_b : sj->d.body_a;
        const double *an = side ? sj->d.anchor_b : sj->d.anchor_a;
        if (b < 0 || b >= c->body_count || !c->bodies[b].d.particle) continue;
        if (type == CTN_JOINT_HINGE || type == CTN_JOINT_FIXED) {
            join_path(p, path, side ? "b" : "a");
            return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "a %s joint needs rigid bodies; body %d is a particle", joint_types[type], b);
        }
        if (an[0] != 0.0 || an[1] != 0.0 || an[2] != 0.0) {
            join_path(p, path, side ? "anchor_b" : "anchor_a");
            return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "body %d is a particle: its anchor is its centre (leave the anchor out)", b);
        }
    }
    int r = get_vec(c, j, "axis", path, 3, sj->d.axis);
    if (r < 0) return 0;
    sj->has_axis = r;
    if (r && !(sqrt(sj->d.axis[0] * sj->d.axis[0] + sj->d.axis[1] * sj->d.axis[1] + sj->d.axis[2] * sj->d.axis[2]) > 1e-9)) {
        join_path(p, path, "axis");
        return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "(%g, %g, %g) has zero length", sj->d.axis[0], sj->d.axis[1], sj->d.axis[2]);
    }
    if (get_range(c, j, "rest_length", path, 0.0, 0, 1e30, &sj->d.rest_length) < 0) return 0;
    if (get_range(c, j, "stiffness", path, 0.0, 0, 1e30, &sj->d.stiffness) < 0) return 0;
    if (get_range(c, j, "damping", path, 0.0, 0, 1e30, &sj->d.damping) < 0) return 0;
    if (get_range(c, j, "compliance", path, 0.0, 0, 1e30, &sj->d.compliance) < 0) return 0;
    if (get_range(c, j, "damping_time", path, 0.0, 0, 1e30, &sj->d.damping_time) < 0) return 0;
    return 1;
}

/* ---- top level ---- */

static int array_member(pctx *c, const cJSON *root, const char *key, const cJSON **out) {
    const cJSON *v = member(root, key);
    *out = NULL;
    if (!v) return 1;
    if (!cJSON_IsArray(v)) return fail(c, CTN_ERR_INVALID_ARGUMENT, key, "expected an array, got %s", type_name(v));
    *out = v;
    return 1;
}

static int parse_root(pctx *c, const cJSON *root, ctn_scene *s) {
    static const char *const keys[] = {"version", "description", "world", "bodies", "generators", "constraints", NULL};
    if (!cJSON_IsObject(root))
        return fail(c, CTN_ERR_INVALID_ARGUMENT, "", "expected a JSON object at the top level, got %s", type_name(root));
    if (!check_keys(c, root, "", keys)) return 0;
    long long version = 1;
    if (get_int(c, root, "version", "", 1, 1, &version) < 0) return 0;
    const cJSON *desc = member(root, "description");
    if (desc && !cJSON_IsString(desc)) return fail(c, CTN_ERR_INVALID_ARGUMENT, "description", "expected a string, got %s", type_name(desc));
    const cJSON *wv = member(root, "world");
    if (wv && !parse_world(c, wv, s)) return 0;
    const cJSON *bodies, *gens, *cons;
    if (!array_member(c, root, "bodies", &bodies) || !array_member(c, root, "generators", &gens) ||
        !array_member(c, root, "constraints", &cons))
        return 0;
    int nb = bodies ? cJSON_GetArraySize(bodies) : 0, ng = gens ? cJSON_GetArraySize(gens) : 0,
        nc = cons ? cJSON_GetArraySize(cons) : 0;
    /* limits before allocating */
    if (nb > CTN_MAX_BODIES) return fail(c, CTN_ERR_LIMIT, "bodies", "%d entries exceed CTN_MAX_BODIES (%d)", nb, CTN_MAX_BODIES);
    if (nc > CTN_MAX_JOINTS) return fail(c, CTN_ERR_LIMIT, "constraints", "%d entries exceed CTN_MAX_JOINTS (%d)", nc, CTN_MAX_JOINTS);
    if (ng > 100000) return fail(c, CTN_ERR_LIMIT, "generators", "%d entries exceed the limit of 100000", ng);
    s->bodies = calloc((size_t)nb + 1, sizeof *s->bodies);
    s->gens = calloc((size_t)ng + 1, sizeof *s->gens);
    s->joints = calloc((size_t)nc + 1, sizeof *s->joints);
    if (!s->bodies || !s->gens || !s->joints) return fail(c, CTN_ERR_OUT_OF_MEMORY, "", "out of memory");
    int i = 0;
    for (const cJSON *b = bodies ? bodies->child : NULL; b; b = b->next, ++i) {
        if (!parse_body(c, b, i, &s->bodies[i])) {
            s->body_count = i + 1; /* free the names parsed so far */
            return 0;
        }
        s->body_count = i + 1;
        for (int k = 0; k < i; ++k)
            if (s->bodies[i].name && s->bodies[k].name && !strcmp(s->bodies[i].name, s->bodies[k].name)) {
                char p[PATH_MAX_LEN];
                snprintf(p, sizeof p, "bodies[%d].name", i);
                return fail(c, CTN_ERR_INVALID_ARGUMENT, p, "'%s' is already the name of bodies[%d]", s->bodies[i].name, k);
            }
    }
    int64_t total_b = nb, total_j = nc;
    i = 0;
    for (const cJSON *g = gens ? gens->child : NULL; g; g = g->next, ++i) {
        if (!parse_generator(c, g, i, &s->gens[i])) return 0;
        s->gen_count = i + 1;
        total_b += s->gens[i].bodies;
        total_j += s->gens[i].joints;
        char p[PATH_MAX_LEN];
        snprintf(p, sizeof p, "generators[%d]", i);
        if (total_b > CTN_MAX_BODIES)
            return fail(c, CTN_ERR_LIMIT, p, "the scene would have %lld bodies, more than CTN_MAX_BODIES (%d)", (long long)total_b, CTN_MAX_BODIES);
        if (total_j > CTN_MAX_JOINTS)
            return fail(c, CTN_ERR_LIMIT, p, "the scene would have %lld joints, more than CTN_MAX_JOINTS (%d)", (long long)total_j, CTN_MAX_JOINTS);
    }
    c->bodies = s->bodies;
    c->body_count = nb;
    c->total_bodies = total_b;
    i = 0;
    for (const cJSON *j = cons ? cons->child : NULL; j; j = j->next, ++i) {
        if (!parse_constraint(c, j, i, &s->joints[i])) return 0;
        s->joint_count = i + 1;
    }
    s->total_bodies = total_b;
    s->total_joints = total_j;
    return 1;
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
    ctn_scene *s = calloc(1, sizeof *s);
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
    char *text = malloc((size_t)size + 1);
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
        free(text);
        return CTN_ERR_IO;
    }
    text[got] = '\0';
    ctn_status st = ctn_scene_parse_text(text, got, path, out, err, err_size);
    free(text);
    return st;
}

ctn_status ctn_scene_load_json(ctn_world *w, const char *path, char *err, size_t err_size) {
    if (!w) return CTN_ERR_INVALID_ARGUMENT;
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
