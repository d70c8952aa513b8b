/* Curve constraints in scene files (docs/scene-format.md, "curve" constraints): parsed into a
 * ctn_curve_desc, built with ctn_curve_constraint_add, and written back by ctn_scene_save_json with every
 * stored number exact (%.9g for the float32 definition, %.17g for a polyline's double vertices). */
#define _POSIX_C_SOURCE 200809L
#include "core/alloc.h"
#include "io/scene_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CATENA_HAVE_CJSON

static const char *const curve_kinds[] = {"line", "circle", "helix", "polyline", NULL};
static const char *const curve_stabs[] = {"velocity", "acceleration", NULL};

/* "points": [[x, y, z], ...] into a fresh array. */
static int parse_points(pctx *c, const cJSON *j, const char *path, scene_joint *sj) {
    char p[PATH_MAX_LEN];
    ctn__json_path(p, path, "points");
    const cJSON *pts = ctn__json_member(j, "points");
    if (!pts) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "missing (a polyline needs its vertices, [[x, y, z], ...])");
    if (!cJSON_IsArray(pts)) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "expected an array of [x, y, z], got %s", ctn__json_type_name(pts));
    int n = cJSON_GetArraySize(pts), least = sj->curve.closed ? 3 : 2;
    if (n < least)
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "%d vertices; a%s polyline needs at least %d", n, sj->curve.closed ? " closed" : "n open", least);
    if (n > CTN_CURVE_MAX_POINTS) return ctn__json_fail(c, CTN_ERR_LIMIT, p, "%d vertices exceed CTN_CURVE_MAX_POINTS (%d)", n, CTN_CURVE_MAX_POINTS);
    double *v = ctn__malloc((size_t)n * 3 * sizeof *v);
    if (!v) return ctn__json_fail(c, CTN_ERR_OUT_OF_MEMORY, p, "out of memory for %d vertices", n);
    int i = 0;
    for (const cJSON *e = pts->child; e; e = e->next, ++i) {
        char q[PATH_MAX_LEN + 16];
        snprintf(q, sizeof q, "%s[%d]", p, i);
        int bad = !cJSON_IsArray(e) || cJSON_GetArraySize(e) != 3, k = 0;
        for (const cJSON *x = bad ? NULL : e->child; x && !bad; x = x->next, ++k) {
            bad = !cJSON_IsNumber(x) || !isfinite(x->valuedouble);
            if (!bad) v[3 * i + k] = x->valuedouble;
        }
        if (bad) {
            ctn__free(v);
            return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, q, "expected [x, y, z] of finite numbers, got %s", ctn__json_type_name(e));
        }
    }
    sj->points = v;
    sj->curve.points = sj->points;
    sj->curve.count = n;
    return 1;
}

int ctn__scene_parse_curve(pctx *c, const cJSON *j, const char *path, scene_joint *sj) {
    static const char *const keys[] = {"type", "name", "a", "b", "anchor_a", "curve", "origin", "axis", "reference", "radius", "pitch",
                                       "points", "closed", "compliance", "damping_time", "stabilization", "ks", "kd", NULL};
    char p[PATH_MAX_LEN];
    if (!ctn__json_keys(c, j, path, keys)) return 0;
    const char *name = NULL; /* checked, not kept: joint names are not part of the world */
    if (ctn__json_string(c, j, "name", path, &name) < 0) return 0;
    int kind = -1;
    ctn__json_path(p, path, "curve");
    if (!ctn__json_member(j, "curve")) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "missing (line, circle, helix or polyline)");
    if (ctn__json_enum(c, j, "curve", path, curve_kinds, &kind) < 0) return 0;
    sj->is_curve = 1;
    sj->curve = ctn_curve_desc_default((ctn_curve_type)kind);
    ctn_curve_desc *d = &sj->curve;
    int a = 0, b = -1; /* -1: the world */
    ctn__json_path(p, path, "a");
    const cJSON *av = ctn__json_member(j, "a"), *bv = ctn__json_member(j, "b");
    if (!av) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "missing (the bead's body: an index or a name)");
    if (!ctn__scene_body_ref(c, av, p, 0, &a)) return 0;
    ctn__json_path(p, path, "b");
    if (bv && !ctn__scene_body_ref(c, bv, p, 1, &b)) return 0;
    if (a == b) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "body %d is also body a; its curve must be fixed to another body", b);
    d->body = ctn__scene_ref(a);
    d->frame = ctn__scene_ref(b);
    if (ctn__json_vec(c, j, "anchor_a", path, 3, d->anchor) < 0) return 0;
    if (a < c->body_count && c->bodies[a].d.particle && (d->anchor[0] != 0.0 || d->anchor[1] != 0.0 || d->anchor[2] != 0.0)) {
        ctn__json_path(p, path, "anchor_a");
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "body %d is a particle: its anchor is its centre (leave the anchor out)", a);
    }
    if (ctn__json_vec(c, j, "origin", path, 3, d->origin) < 0) return 0;
    if (ctn__json_nonzero_vec(c, j, "axis", path, 3, d->axis) < 0) return 0;
    if (ctn__json_vec(c, j, "reference", path, 3, d->reference) < 0) return 0;
    int rr = ctn__json_range(c, j, "radius", path, 0.0, 1, 1e30, &d->radius);
    if (rr < 0) return 0;
    if (!rr && (kind == CTN_CURVE_CIRCLE || kind == CTN_CURVE_HELIX)) {
        ctn__json_path(p, path, "radius");
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "missing (a %s needs a radius > 0)", curve_kinds[kind]);
    }
    if (ctn__json_number(c, j, "pitch", path, &d->pitch) < 0) return 0;
    if (ctn__json_bool(c, j, "closed", path, &d->closed) < 0) return 0;
    if (ctn__json_range(c, j, "compliance", path, 0.0, 0, 1e30, &d->compliance) < 0) return 0;
    if (ctn__json_range(c, j, "damping_time", path, 0.0, 0, 1e30, &d->damping_time) < 0) return 0;
    int stab = 0;
    if (ctn__json_enum(c, j, "stabilization", path, curve_stabs, &stab) < 0) return 0;
    d->stabilization = (ctn_curve_stabilization)stab;
    if (ctn__json_range(c, j, "ks", path, 0.0, 0, 1e30, &d->ks) < 0) return 0;
    if (ctn__json_range(c, j, "kd", path, 0.0, 0, 1e30, &d->kd) < 0) return 0;
    if (kind == CTN_CURVE_POLYLINE) return parse_points(c, j, path, sj);
    if (ctn__json_member(j, "points")) {
        ctn__json_path(p, path, "points");
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "only a polyline has vertices (this curve is a %s)", curve_kinds[kind]);
    }
    return 1;
}

#endif /* CATENA_HAVE_CJSON */

ctn_status ctn__scene_build_curve(ctn_world *w, const scene_joint *sj, int first_body) {
    ctn_curve_desc d = sj->curve;
    d.body = ctn__body_handle(w, first_body + ctn__scene_ref_index(d.body));
    if (!ctn_body_is_world(d.frame)) d.frame = ctn__body_handle(w, first_body + ctn__scene_ref_index(d.frame));
    return ctn_curve_constraint_add(w, &d, NULL);
}

void ctn__scene_write_curve(FILE *f, const ctn_world *w, int slot, const int *index) {
    ctn_joint_def def = ctn__jdef_get(w, slot);
    const ctn_joint_def *j = &def;
    int kind = ctn_curve_kind(*j);
    static const char *const kinds[] = {"line", "circle", "helix", "polyline"};
    fprintf(f, "{\"type\": \"curve\", \"curve\": \"%s\", \"a\": %d, \"b\": ", kinds[kind], index[j->a]);
    if (j->b < 0) fputs("\"world\"", f);
    else fprintf(f, "%d", index[j->b]);
    fprintf(f, ", \"anchor_a\": [%.9g, %.9g, %.9g]", j->anchor_a.x, j->anchor_a.y, j->anchor_a.z);
    if (kind == CTN_CURVE_POLYLINE) {
        const ctn_polyline *p = w->polylines[slot];
        fputs(", \"points\": [", f);
        for (int i = 0; i < p->count; ++i)
            fprintf(f, "%s[%.17g, %.17g, %.17g]", i ? ", " : "", p->points[3 * i], p->points[3 * i + 1], p->points[3 * i + 2]);
        fputs("]", f);
        if (p->closed) fputs(", \"closed\": true", f);
    } else {
        fprintf(f, ", \"origin\": [%.9g, %.9g, %.9g], \"axis\": [%.9g, %.9g, %.9g]", j->anchor_b.x, j->anchor_b.y, j->anchor_b.z, j->axis_b.x,
                j->axis_b.y, j->axis_b.z);
        if (kind != CTN_CURVE_LINE)
            fprintf(f, ", \"reference\": [%.9g, %.9g, %.9g], \"radius\": %.9g", j->axis_a.x, j->axis_a.y, j->axis_a.z, j->rest_length);
        if (kind == CTN_CURVE_HELIX) fprintf(f, ", \"pitch\": %.9g", j->lo);
    }
    fprintf(f, ", \"compliance\": %.9g, \"damping_time\": %.9g", j->compliance, j->damping_time);
    fprintf(f, ", \"stabilization\": \"%s\", \"ks\": %.9g, \"kd\": %.9g", (j->flags & CTN_JF_CURVE_ACCEL) ? "acceleration" : "velocity",
            j->stiffness, j->damping);
    fputs("}", f);
}
