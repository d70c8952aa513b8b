/* Ensemble files: parsing, validation and expansion into runs (format: docs/ensembles.md).
 *
 * Runs are numbered point-major: run i is grid point i / replicas, replica i % replicas. Grid points are
 * the Cartesian product of the parameter lists in file order, the last parameter varying fastest. Every
 * run is defined by text alone (a filled-in spec or a scene document, the world overrides, the step
 * count, the seed), so any process can resolve any run: that is what lets MPI ranks share the queue and
 * makes a run's result independent of which rank ran it. */
#define _POSIX_C_SOURCE 200809L
#include "ensemble.h"

#include "io/json_diagnose.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* ---- diagnostics: "FILE:LINE:COL: path: message", locating the offending key in the text ---- */

typedef struct diag {
    const char *file;
    const char *text;
    size_t length;
    char *err;
    size_t err_size;
} diag;

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int fail_at(const diag *d, const char *key, const char *path, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char quoted[160];
    snprintf(quoted, sizeof quoted, "\"%s\"", key ? key : "");
    const char *at = key && d->text ? strstr(d->text, quoted) : NULL;
    if (at) {
        int line, col;
        ctn__json_line_col(d->text, d->length, (size_t)(at - d->text), &line, &col);
        snprintf(d->err, d->err_size, "%s:%d:%d: %s: %s", d->file, line, col, path, msg);
    } else {
        snprintf(d->err, d->err_size, "%s: %s: %s", d->file, path, msg);
    }
    return 0;
}

static int check_keys(const diag *d, const cJSON *obj, const char *path, const char *const *allowed) {
    for (const cJSON *it = obj->child; it; it = it->next) {
        int ok = 0;
        for (int k = 0; allowed[k]; ++k) ok |= !strcmp(it->string, allowed[k]);
        if (!ok) {
            char list[256] = "";
            for (int k = 0; allowed[k]; ++k) {
                strncat(list, k ? ", " : "", sizeof list - strlen(list) - 1);
                strncat(list, allowed[k], sizeof list - strlen(list) - 1);
            }
            return fail_at(d, it->string, path, "unknown key '%s' (allowed here: %s)", it->string, list);
        }
    }
    return 1;
}

static int get_number(const diag *d, const cJSON *obj, const char *key, const char *path, double lo, double hi, double *out) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!it) return 1;
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || it->valuedouble < lo || it->valuedouble > hi)
        return fail_at(d, key, path, "'%s' must be a number in [%g, %g]", key, lo, hi);
    *out = it->valuedouble;
    return 1;
}

static int get_integer(const diag *d, const cJSON *obj, const char *key, const char *path, long long lo, long long hi, long long *out) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!it) return 1;
    if (!cJSON_IsNumber(it) || it->valuedouble != floor(it->valuedouble) || it->valuedouble < (double)lo || it->valuedouble > (double)hi)
        return fail_at(d, key, path, "'%s' must be an integer in [%lld, %lld]", key, lo, hi);
    *out = (long long)it->valuedouble;
    return 1;
}

/* ---- the parameter grid ---- */

static int add_value(ctn_ensemble_param *p, const cJSON *v) {
    char *txt = cJSON_PrintUnformatted(v);
    if (!txt) return 0;
    char **nv = realloc(p->values, (size_t)(p->count + 1) * sizeof *nv);
    if (!nv) {
        free(txt);
        return 0;
    }
    p->values = nv;
    p->values[p->count++] = txt;
    return 1;
}

/* {"from": a, "to": b, "count": n, "scale": "linear"|"log", "integer": bool} */
static int expand_range(const diag *d, const cJSON *r, const char *path, ctn_ensemble_param *p) {
    static const char *const keys[] = {"from", "to", "count", "scale", "integer", NULL};
    if (!check_keys(d, r, path, keys)) return 0;
    const cJSON *from = cJSON_GetObjectItemCaseSensitive(r, "from"), *to = cJSON_GetObjectItemCaseSensitive(r, "to");
    if (!cJSON_IsNumber(from) || !cJSON_IsNumber(to)) return fail_at(d, p->path, path, "a range needs numbers 'from' and 'to'");
    long long count = 0;
    if (!get_integer(d, r, "count", path, 1, 100000, &count)) return 0;
    if (count == 0) return fail_at(d, p->path, path, "a range needs 'count' (an integer >= 1)");
    const cJSON *scale = cJSON_GetObjectItemCaseSensitive(r, "scale");
    int log_scale = 0;
    if (scale) {
        if (!cJSON_IsString(scale) || (strcmp(scale->valuestring, "linear") && strcmp(scale->valuestring, "log")))
            return fail_at(d, "scale", path, "'scale' must be \"linear\" or \"log\"");
        log_scale = !strcmp(scale->valuestring, "log");
    }
    const cJSON *integer = cJSON_GetObjectItemCaseSensitive(r, "integer");
    if (integer && !cJSON_IsBool(integer)) return fail_at(d, "integer", path, "'integer' must be true or false");
    double a = from->valuedouble, b = to->valuedouble;
    if (log_scale && !(a > 0.0 && b > 0.0)) return fail_at(d, p->path, path, "a log range needs 'from' and 'to' > 0");
    for (long long k = 0; k < count; ++k) {
        double t = count > 1 ? (double)k / (double)(count - 1) : 0.0;
        double v = log_scale ? exp(log(a) + t * (log(b) - log(a))) : a + t * (b - a);
        if (k == count - 1) v = b; /* the end point exactly, whatever the rounding of the steps */
        if (cJSON_IsTrue(integer)) v = floor(v + 0.5);
        cJSON *n = cJSON_CreateNumber(v);
        int ok = n && add_value(p, n);
        cJSON_Delete(n);
        if (!ok) return fail_at(d, NULL, path, "out of memory");
    }
    return 1;
}

static int load_params(const diag *d, const cJSON *params, ctn_ensemble *e) {
    if (!cJSON_IsObject(params)) return fail_at(d, "parameters", "parameters", "must be an object {\"path\": [values] or {range}}");
    e->points = 1;
    for (const cJSON *it = params->child; it; it = it->next) {
        char path[256];
        snprintf(path, sizeof path, "parameters.%s", it->string);
        if (e->param_count == CTN_ENSEMBLE_MAX_PARAMS)
            return fail_at(d, it->string, path, "at most %d parameters", CTN_ENSEMBLE_MAX_PARAMS);
        if (!it->string[0]) return fail_at(d, NULL, path, "empty parameter path");
        ctn_ensemble_param *p = &e->params[e->param_count++];
        p->path = dup_str(it->string);
        if (!p->path) return fail_at(d, NULL, path, "out of memory");
        if (cJSON_IsArray(it)) {
            for (const cJSON *v = it->child; v; v = v->next) {
                if (!cJSON_IsNumber(v) && !cJSON_IsString(v) && !cJSON_IsBool(v))
                    return fail_at(d, it->string, path, "values must be numbers, strings or booleans");
                if (!add_value(p, v)) return fail_at(d, NULL, path, "out of memory");
            }
        } else if (cJSON_IsObject(it)) {
            if (!expand_range(d, it, path, p)) return 0;
        } else {
            return fail_at(d, it->string, path, "must be a list of values or a range {\"from\", \"to\", \"count\"}");
        }
        if (p->count == 0) return fail_at(d, it->string, path, "has no values");
        if (e->points > CTN_ENSEMBLE_MAX_RUNS / p->count) return fail_at(d, it->string, path, "more than %d grid points", CTN_ENSEMBLE_MAX_RUNS);
        e->points *= p->count;
    }
    return 1;
}

/* ---- the base scene ---- */

static int is_file_name(const char *s) {
    size_t n = strlen(s);
    return strchr(s, '/') != NULL || (n > 5 && !strcmp(s + n - 5, ".json"));
}

static char *read_file(const char *path, size_t *length, char *err, size_t err_size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        if (cap > (size_t)CTN_SCENE_MAX_FILE_BYTES) {
            snprintf(err, err_size, "%s: larger than %ld bytes", path, (long)CTN_SCENE_MAX_FILE_BYTES);
            free(buf);
            fclose(f);
            return NULL;
        }
        char *nb = realloc(buf, 2 * cap + 1);
        if (!nb) free(buf);
        buf = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        snprintf(err, err_size, "%s: %s", path, buf ? "read error" : "out of memory");
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *length = n;
    return buf;
}

static int load_scene(const diag *d, const cJSON *scene, ctn_ensemble *e) {
    if (cJSON_IsObject(scene)) {
        e->doc_text = cJSON_PrintUnformatted(scene);
        return e->doc_text ? 1 : fail_at(d, NULL, "scene", "out of memory");
    }
    if (!cJSON_IsString(scene) || !scene->valuestring[0])
        return fail_at(d, "scene", "scene", "must be a generator spec (\"chain:{links}\"), a scene file name or a scene object");
    if (!is_file_name(scene->valuestring)) {
        e->spec = dup_str(scene->valuestring);
        return e->spec ? 1 : fail_at(d, NULL, "scene", "out of memory");
    }
    char path[4096];
    if (scene->valuestring[0] == '/') snprintf(path, sizeof path, "%s", scene->valuestring);
    else snprintf(path, sizeof path, "%s/%s", e->base_dir, scene->valuestring);
    char msg[512];
    size_t n = 0;
    char *text = read_file(path, &n, msg, sizeof msg);
    if (!text) return fail_at(d, "scene", "scene", "%s", msg);
    const char *end = NULL;
    char bad[512];
    if (!ctn__json_check_controls(text, n, bad, sizeof bad)) {
        free(text);
        return fail_at(d, "scene", "scene", "%s:%s", path, bad);
    }
    cJSON *doc = cJSON_ParseWithLengthOpts(text, n, &end, 0);
    if (!doc) {
        char why[512];
        ctn__json_diagnose(text, n, end ? (size_t)(end - text) : 0, why, sizeof why);
        free(text);
        return fail_at(d, "scene", "scene", "%s:%s", path, why);
    }
    free(text);
    e->doc_text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    return e->doc_text ? 1 : fail_at(d, NULL, "scene", "out of memory");
}

static int load_sections(const diag *d, const cJSON *root, ctn_ensemble *e) {
    static const char *const top[] = {"version", "description", "scene", "world", "steps", "parameters", "replicas", "seed",
                                      "perturb", "batch", "outputs", "checks", NULL};
    if (!check_keys(d, root, "ensemble", top)) return 0;
    long long version = 1;
    if (!get_integer(d, root, "version", "version", 1, 1, &version)) return 0;
    const cJSON *scene = cJSON_GetObjectItemCaseSensitive(root, "scene");
    if (!scene) return fail_at(d, NULL, "scene", "required: the base scene (generator spec, file name or object)");
    if (!load_scene(d, scene, e)) return 0;
    const cJSON *world = cJSON_GetObjectItemCaseSensitive(root, "world");
    if (world && !cJSON_IsObject(world)) return fail_at(d, "world", "world", "must be an object of world settings");
    e->world_text = world ? cJSON_PrintUnformatted(world) : dup_str("{}");
    if (!e->world_text) return fail_at(d, NULL, "world", "out of memory");
    if (!get_integer(d, root, "steps", "steps", 0, 1000000000LL, &e->steps)) return 0;
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "parameters");
    e->points = 1;
    if (params && !load_params(d, params, e)) return 0;
    long long replicas = 1, batch = 1, seed = 1;
    if (!get_integer(d, root, "replicas", "replicas", 1, 100000, &replicas)) return 0;
    if (!get_integer(d, root, "seed", "seed", 0, 9007199254740991LL, &seed)) return 0;
    if (!get_integer(d, root, "batch", "batch", 1, 100000, &batch)) return 0;
    e->replicas = (int)replicas;
    e->batch = (int)batch;
    e->seed = (uint64_t)seed;
    if (e->points > CTN_ENSEMBLE_MAX_RUNS / e->replicas) return fail_at(d, "replicas", "replicas", "more than %d runs", CTN_ENSEMBLE_MAX_RUNS);
    e->runs = e->points * e->replicas;

    const cJSON *perturb = cJSON_GetObjectItemCaseSensitive(root, "perturb");
    if (perturb) {
        static const char *const keys[] = {"velocity", "position", "force", NULL};
        if (!cJSON_IsObject(perturb)) return fail_at(d, "perturb", "perturb", "must be an object");
        if (!check_keys(d, perturb, "perturb", keys) || !get_number(d, perturb, "velocity", "perturb.velocity", 0, 1e6, &e->perturb_velocity) ||
            !get_number(d, perturb, "position", "perturb.position", 0, 1e3, &e->perturb_position) ||
            !get_number(d, perturb, "force", "perturb.force", 0, 1e9, &e->perturb_force))
            return 0;
    }
    e->every = 10;
    const cJSON *outputs = cJSON_GetObjectItemCaseSensitive(root, "outputs");
    if (outputs) {
        static const char *const keys[] = {"csv", "every", NULL};
        if (!cJSON_IsObject(outputs)) return fail_at(d, "outputs", "outputs", "must be an object");
        if (!check_keys(d, outputs, "outputs", keys) || !get_integer(d, outputs, "every", "outputs.every", 1, 1000000000LL, &e->every))
            return 0;
        const cJSON *csv = cJSON_GetObjectItemCaseSensitive(outputs, "csv");
        if (csv && !cJSON_IsBool(csv)) return fail_at(d, "csv", "outputs.csv", "must be true or false");
        e->csv = cJSON_IsTrue(csv);
    }
    const cJSON *checks = cJSON_GetObjectItemCaseSensitive(root, "checks");
    if (checks) {
        static const char *const keys[] = {"max_gap", NULL};
        if (!cJSON_IsObject(checks)) return fail_at(d, "checks", "checks", "must be an object");
        if (!check_keys(d, checks, "checks", keys) || !get_number(d, checks, "max_gap", "checks.max_gap", 0, 1e9, &e->max_gap)) return 0;
    }
    return 1;
}

int ctn_ensemble_load(const char *path, ctn_ensemble *e, char *err, size_t err_size) {
    memset(e, 0, sizeof *e);
    e->steps = -1;
    size_t n = 0;
    char *text = read_file(path, &n, err, err_size);
    if (!text) return 0;
    e->source = dup_str(path);
    e->base_dir = dup_str(path);
    if (!e->source || !e->base_dir) {
        free(text);
        snprintf(err, err_size, "%s: out of memory", path);
        return 0;
    }
    char *slash = strrchr(e->base_dir, '/');
    if (slash) *slash = '\0';
    else strcpy(e->base_dir, ".");
    diag d = {path, text, n, err, err_size};
    const char *end = NULL;
    char bad[512] = "";
    cJSON *root = ctn__json_check_controls(text, n, bad, sizeof bad) ? cJSON_ParseWithLengthOpts(text, n, &end, 0) : NULL;
    int ok;
    if (!root && bad[0]) {
        snprintf(err, err_size, "%s:%s", path, bad);
        ok = 0;
    } else if (!root) {
        char why[512];
        ctn__json_diagnose(text, n, end ? (size_t)(end - text) : 0, why, sizeof why);
        snprintf(err, err_size, "%s:%s", path, why);
        ok = 0;
    } else if (!cJSON_IsObject(root)) {
        ok = fail_at(&d, NULL, "ensemble", "the file must hold one JSON object");
    } else {
        ok = load_sections(&d, root, e);
    }
    /* Every grid point must resolve (paths exist, placeholders filled): fail now, not in run 731. */
    for (long long p = 0; ok && p < e->points; ++p) {
        ctn_ensemble_run r;
        char msg[512];
        if (!ctn_ensemble_resolve(e, p * e->replicas, &r, msg, sizeof msg)) {
            const char *colon = strchr(msg, ':');
            char key[128] = "";
            if (colon && (size_t)(colon - msg) < sizeof key) memcpy(key, msg, (size_t)(colon - msg)), key[colon - msg] = '\0';
            char *dot = strrchr(key, '.');
            ok = fail_at(&d, dot ? dot + 1 : key, "parameters", "%s", msg);
        } else {
            ctn_ensemble_run_free(&r);
        }
    }
    cJSON_Delete(root);
    free(text);
    if (!ok) ctn_ensemble_free(e);
    return ok;
}

void ctn_ensemble_free(ctn_ensemble *e) {
    for (int i = 0; i < e->param_count; ++i) {
        for (int k = 0; k < e->params[i].count; ++k) free(e->params[i].values[k]);
        free(e->params[i].values);
        free(e->params[i].path);
    }
    free(e->source);
    free(e->base_dir);
    free(e->spec);
    free(e->doc_text);
    free(e->world_text);
    memset(e, 0, sizeof *e);
}

/* ---- resolving one run ---- */

/* Sets the item at a JSON path ("a.b[2].c") of root to a copy of value. Every step but the last must
 * exist; the last key of an object is created when absent. */
static int set_path(cJSON *root, const char *path, const cJSON *value, char *err, size_t err_size) {
    cJSON *node = root;
    const char *p = path;
    char key[128];
    while (*p) {
        if (*p == '[') {
            char *end;
            long idx = strtol(p + 1, &end, 10);
            if (*end != ']' || !cJSON_IsArray(node) || idx < 0 || idx >= cJSON_GetArraySize(node)) {
                snprintf(err, err_size, "%s: no array element at '%.*s'", path, (int)(end - path + 1), path);
                return 0;
            }
            p = end + 1;
            if (*p == '.') ++p;
            if (!*p) {
                cJSON *copy = cJSON_Duplicate(value, 1);
                return copy && cJSON_ReplaceItemInArray(node, (int)idx, copy);
            }
            node = cJSON_GetArrayItem(node, (int)idx);
            continue;
        }
        size_t n = strcspn(p, ".[");
        if (n == 0 || n >= sizeof key) {
            snprintf(err, err_size, "%s: malformed path", path);
            return 0;
        }
        memcpy(key, p, n);
        key[n] = '\0';
        p += n;
        if (*p == '.') ++p;
        if (!cJSON_IsObject(node)) {
            snprintf(err, err_size, "%s: '%s' is not inside an object", path, key);
            return 0;
        }
        cJSON *child = cJSON_GetObjectItemCaseSensitive(node, key);
        if (!*p) {
            cJSON *copy = cJSON_Duplicate(value, 1);
            if (!copy) return 0;
            if (child) return cJSON_ReplaceItemInObjectCaseSensitive(node, key, copy);
            cJSON_AddItemToObject(node, key, copy);
            return 1;
        }
        if (!child) {
            snprintf(err, err_size, "%s: the scene has no '%s'", path, key);
            return 0;
        }
        node = child;
    }
    snprintf(err, err_size, "%s: malformed path", path);
    return 0;
}

/* Replaces "{name}" in spec by the value (strings without their quotes). */
static char *fill_placeholder(char *spec, const char *name, const cJSON *value, int *found) {
    char pat[160];
    snprintf(pat, sizeof pat, "{%s}", name);
    char *at = strstr(spec, pat);
    *found = at != NULL;
    if (!at) return spec;
    char num[64];
    const char *text = cJSON_IsString(value) ? value->valuestring : num;
    if (cJSON_IsNumber(value)) snprintf(num, sizeof num, "%.17g", value->valuedouble);
    else if (cJSON_IsBool(value)) snprintf(num, sizeof num, "%s", cJSON_IsTrue(value) ? "1" : "0");
    size_t before = (size_t)(at - spec), plen = strlen(pat), tlen = strlen(text), n = strlen(spec);
    char *out = malloc(n - plen + tlen + 1);
    if (!out) return NULL;
    memcpy(out, spec, before);
    memcpy(out + before, text, tlen);
    memcpy(out + before + tlen, at + plen, n - before - plen + 1);
    free(spec);
    return out;
}

static int apply_param(const ctn_ensemble *e, ctn_ensemble_run *r, cJSON *doc, cJSON *world, const char *path, const cJSON *value,
                       char *err, size_t err_size) {
    if (!strcmp(path, "steps")) {
        if (!cJSON_IsNumber(value) || value->valuedouble < 0 || value->valuedouble != floor(value->valuedouble)) {
            snprintf(err, err_size, "steps: %s is not a step count", cJSON_IsString(value) ? value->valuestring : "value");
            return 0;
        }
        r->steps = (long long)value->valuedouble;
        return 1;
    }
    if (!strncmp(path, "world.", 6)) return set_path(world, path + 6, value, err, err_size);
    if (doc) return set_path(doc, path, value, err, err_size);
    int found = 0;
    char *filled = fill_placeholder(r->spec, path, value, &found);
    if (!filled) {
        snprintf(err, err_size, "out of memory");
        return 0;
    }
    r->spec = filled;
    if (!found) snprintf(err, err_size, "%s: no {%s} in the scene spec '%s'", path, path, e->spec);
    return found;
}

int ctn_ensemble_resolve(const ctn_ensemble *e, long long index, ctn_ensemble_run *r, char *err, size_t err_size) {
    memset(r, 0, sizeof *r);
    r->index = index;
    r->point = index / e->replicas;
    r->replica = (int)(index % e->replicas);
    /* the replica's stream: the same for every grid point, so points are compared under the same loads */
    r->seed = ctn__fnv1a(ctn__fnv1a(CTN_ENSEMBLE_HASH_START, &e->seed, sizeof e->seed), &r->replica, sizeof r->replica);
    r->steps = e->steps;
    cJSON *doc = e->doc_text ? cJSON_Parse(e->doc_text) : NULL;
    cJSON *world = cJSON_Parse(e->world_text);
    cJSON *params = cJSON_CreateObject();
    int ok = world && params && (!e->doc_text || doc);
    if (ok && e->spec) ok = (r->spec = dup_str(e->spec)) != NULL;
    if (!ok) snprintf(err, err_size, "out of memory");
    int digit[CTN_ENSEMBLE_MAX_PARAMS];
    long long rest = r->point;
    for (int i = e->param_count - 1; i >= 0; --i) {
        digit[i] = (int)(rest % e->params[i].count);
        rest /= e->params[i].count;
    }
    for (int i = 0; ok && i < e->param_count; ++i) {
        const ctn_ensemble_param *p = &e->params[i];
        const char *text = p->values[digit[i]];
        cJSON *value = cJSON_Parse(text);
        ok = value && apply_param(e, r, doc, world, p->path, value, err, err_size);
        if (ok) cJSON_AddItemToObject(params, p->path, cJSON_Duplicate(value, 1));
        cJSON_Delete(value);
    }
    if (ok && e->spec && strchr(r->spec, '{')) {
        snprintf(err, err_size, "scene '%s': placeholder left unfilled in '%s' (no parameter of that name)", e->spec, r->spec);
        ok = 0;
    }
    /* the ensemble's world overrides go into the document's own world object */
    if (ok && doc) {
        cJSON *dw = cJSON_GetObjectItemCaseSensitive(doc, "world");
        if (!dw) cJSON_AddItemToObject(doc, "world", dw = cJSON_CreateObject());
        for (cJSON *it = world->child; ok && it; it = it->next) ok = set_path(dw, it->string, it, err, err_size);
    }
    if (ok) {
        r->world_text = cJSON_PrintUnformatted(world);
        r->doc_text = doc ? cJSON_PrintUnformatted(doc) : NULL;
        r->params_json = cJSON_PrintUnformatted(params);
        ok = r->world_text && r->params_json && (!doc || r->doc_text);
        if (!ok) snprintf(err, err_size, "out of memory");
    }
    cJSON_Delete(doc);
    cJSON_Delete(world);
    cJSON_Delete(params);
    if (!ok) {
        ctn_ensemble_run_free(r);
        return 0;
    }
    /* the signature covers everything that changes the run's result */
    uint64_t h = CTN_ENSEMBLE_HASH_START;
    const char *parts[3] = {r->spec ? r->spec : "", r->doc_text ? r->doc_text : "", r->world_text};
    for (int k = 0; k < 3; ++k) h = ctn__fnv1a(h, parts[k], strlen(parts[k]) + 1);
    double f[4] = {e->perturb_velocity, e->perturb_position, e->perturb_force, e->max_gap};
    h = ctn__fnv1a(h, f, sizeof f);
    h = ctn__fnv1a(h, &r->steps, sizeof r->steps);
    h = ctn__fnv1a(h, &r->seed, sizeof r->seed);
    r->signature = h;
    return 1;
}

void ctn_ensemble_run_free(ctn_ensemble_run *r) {
    free(r->spec);
    free(r->doc_text);
    free(r->world_text);
    free(r->params_json);
    memset(r, 0, sizeof *r);
}
