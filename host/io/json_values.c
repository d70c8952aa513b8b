/* Typed access to cJSON values for the scene parser: each getter checks the type and range of one member
 * and records an error naming the source, the JSON path and the offending value. */
#define _POSIX_C_SOURCE 200809L
#include "io/scene_internal.h"

#ifdef CATENA_HAVE_CJSON
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int ctn__json_fail(pctx *c, ctn_status st, const char *path, const char *fmt, ...) {
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

const char *ctn__json_type_name(const cJSON *v) {
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
void ctn__json_path(char *out, const char *path, const char *key) {
    size_t n = 0;
    for (const char *s = path; *s && n + 1 < PATH_MAX_LEN; ++s) out[n++] = *s;
    if (path[0] && n + 1 < PATH_MAX_LEN) out[n++] = '.';
    for (const char *s = key; *s && n + 1 < PATH_MAX_LEN; ++s) out[n++] = *s;
    out[n] = '\0';
}

/* Every member of obj must be in `allowed` (NULL-terminated) and appear once. */
int ctn__json_keys(pctx *c, const cJSON *obj, const char *path, const char *const *allowed) {
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
            return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, path, "unknown key '%s' (allowed here: %s)", m->string, list);
        }
        for (const cJSON *o = obj->child; o != m; o = o->next)
            if (!strcmp(o->string, m->string)) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, path, "duplicate key '%s'", m->string);
    }
    return 1;
}

const cJSON *ctn__json_member(const cJSON *obj, const char *key) { return cJSON_GetObjectItemCaseSensitive(obj, key); }

/* A JSON number cJSON turned into an infinity: its literal (1e999, -1e999) is beyond the double range. */
static int out_of_range(pctx *c, const char *p, double v) {
    return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "number out of range: it overflows a double to %s (the largest finite magnitude is %g)",
                          v < 0 ? "-inf" : "+inf", DBL_MAX);
}

/* Optional number: 1 read, 0 absent (out unchanged), -1 error. */
int ctn__json_number(pctx *c, const cJSON *obj, const char *key, const char *path, double *out) {
    const cJSON *v = ctn__json_member(obj, key);
    if (!v) return 0;
    char p[PATH_MAX_LEN];
    ctn__json_path(p, path, key);
    if (!cJSON_IsNumber(v)) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "expected a number, got %s", ctn__json_type_name(v)) - 1;
    if (isinf(v->valuedouble)) return out_of_range(c, p, v->valuedouble) - 1;
    if (!isfinite(v->valuedouble)) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "%g is not a finite number", v->valuedouble) - 1;
    *out = v->valuedouble;
    return 1;
}

/* Number in [lo, hi] (open at lo when lo_open). */
int ctn__json_range(pctx *c, const cJSON *obj, const char *key, const char *path, double lo, int lo_open, double hi, double *out) {
    double v = 0.0;
    int r = ctn__json_number(c, obj, key, path, &v);
    if (r <= 0) return r;
    if ((lo_open ? !(v > lo) : !(v >= lo)) || !(v <= hi)) {
        char p[PATH_MAX_LEN];
        ctn__json_path(p, path, key);
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "%g is not in %c%g, %g]", v, lo_open ? '(' : '[', lo, hi) - 1;
    }
    *out = v;
    return 1;
}

int ctn__json_int(pctx *c, const cJSON *obj, const char *key, const char *path, long long lo, long long hi, long long *out) {
    const cJSON *v = ctn__json_member(obj, key);
    if (!v) return 0;
    char p[PATH_MAX_LEN];
    ctn__json_path(p, path, key);
    if (!cJSON_IsNumber(v)) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "expected an integer, got %s", ctn__json_type_name(v)) - 1;
    double d = v->valuedouble;
    if (isinf(d)) return out_of_range(c, p, d) - 1;
    if (!isfinite(d) || d != floor(d)) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "expected an integer, got %g", d) - 1;
    if (d < (double)lo || d > (double)hi)
        return ctn__json_fail(c, CTN_ERR_LIMIT, p, "%.17g is not in [%lld, %lld]", d, lo, hi) - 1;
    *out = (long long)d;
    return 1;
}

int ctn__json_int32(pctx *c, const cJSON *obj, const char *key, const char *path, int lo, int hi, int *out) {
    long long v;
    int r = ctn__json_int(c, obj, key, path, lo, hi, &v);
    if (r == 1) *out = (int)v;
    return r;
}

int ctn__json_vec(pctx *c, const cJSON *obj, const char *key, const char *path, int n, double *out) {
    const cJSON *v = ctn__json_member(obj, key);
    if (!v) return 0;
    char p[PATH_MAX_LEN];
    ctn__json_path(p, path, key);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n)
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "expected an array of %d numbers, got %s%s", n, ctn__json_type_name(v),
                    cJSON_IsArray(v) ? " of another length" : "") - 1;
    int k = 0;
    for (const cJSON *e = v->child; e; e = e->next, ++k) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) {
            char pe[PATH_MAX_LEN + 16];
            snprintf(pe, sizeof pe, "%s[%d]", p, k);
            if (cJSON_IsNumber(e) && isinf(e->valuedouble)) return out_of_range(c, pe, e->valuedouble) - 1;
            return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, pe, "expected a finite number, got %s", ctn__json_type_name(e)) - 1;
        }
        out[k] = e->valuedouble;
    }
    return 1;
}

int ctn__json_bool(pctx *c, const cJSON *obj, const char *key, const char *path, int *out) {
    const cJSON *v = ctn__json_member(obj, key);
    if (!v) return 0;
    char p[PATH_MAX_LEN];
    ctn__json_path(p, path, key);
    if (!cJSON_IsBool(v)) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "expected true or false, got %s", ctn__json_type_name(v)) - 1;
    *out = cJSON_IsTrue(v) ? 1 : 0;
    return 1;
}

/* Optional string; *out points into obj. */
int ctn__json_string(pctx *c, const cJSON *obj, const char *key, const char *path, const char **out) {
    const cJSON *v = ctn__json_member(obj, key);
    if (!v) return 0;
    if (!cJSON_IsString(v)) {
        char p[PATH_MAX_LEN];
        ctn__json_path(p, path, key);
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "expected a string, got %s", ctn__json_type_name(v)) - 1;
    }
    *out = v->valuestring;
    return 1;
}

/* Optional string that must be one of names[]; *out receives its index. */
int ctn__json_enum(pctx *c, const cJSON *obj, const char *key, const char *path, const char *const *names, int *out) {
    const cJSON *v = ctn__json_member(obj, key);
    if (!v) return 0;
    char p[PATH_MAX_LEN];
    ctn__json_path(p, path, key);
    if (!cJSON_IsString(v)) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "expected a string, got %s", ctn__json_type_name(v)) - 1;
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
    return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "'%s' is not one of %s", v->valuestring, list) - 1;
}

int ctn__json_object(pctx *c, const cJSON *v, const char *path) {
    if (cJSON_IsObject(v)) return 1;
    return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, path, "expected an object, got %s", ctn__json_type_name(v));
}

int ctn__json_nonzero_vec(pctx *c, const cJSON *obj, const char *key, const char *path, int n, double *out) {
    double v[4] = {0, 0, 0, 0};
    int r = ctn__json_vec(c, obj, key, path, n, v);
    if (r <= 0) return r;
    double len2 = 0.0;
    for (int k = 0; k < n; ++k) len2 += v[k] * v[k];
    if (!(sqrt(len2) > 1e-9)) {
        char p[PATH_MAX_LEN];
        ctn__json_path(p, path, key);
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "has zero length") - 1;
    }
    for (int k = 0; k < n; ++k) out[k] = v[k];
    return 1;
}

#endif /* CATENA_HAVE_CJSON */
