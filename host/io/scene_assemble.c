/* The "assemble" key of scene files (docs/scene-format.md): the settings and IK targets of
 * ctn_world_assemble, run by `catena run` before the first step. Targets name bodies as every scene field
 * does (an index or a name); ctn_scene_get_assemble turns them into handles of the world the scene was
 * built into. */
#include "core/alloc.h"
#include "io/scene_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ctn__scene_assemble_free(ctn_scene *s) { ctn__free(s->assemble_targets); }

ctn_status ctn_scene_get_assemble(const ctn_scene *s, ctn_body_id first_body, ctn_assemble_desc *desc, ctn_assemble_target *targets,
                                  int capacity, int *count, int *present) {
    if (!s || !desc || !present || (capacity > 0 && !targets) || capacity < 0) return CTN_ERR_INVALID_ARGUMENT;
    *desc = s->has_assemble ? s->assemble : ctn_assemble_desc_default();
    desc->targets = NULL, desc->target_count = 0;
    *present = s->has_assemble;
    if (count) *count = s->assemble_target_count;
    for (int k = 0; k < s->assemble_target_count && k < capacity; ++k) {
        const scene_target *t = &s->assemble_targets[k];
        ctn_assemble_target *o = &targets[k];
        o->body = ctn_body_id_offset(first_body, t->body); /* the build appends fresh slots: generation 0 */
        memcpy(o->point, t->point, sizeof o->point);
        memcpy(o->target, t->target, sizeof o->target);
        o->weight = t->weight;
    }
    return CTN_OK;
}

#ifdef CATENA_HAVE_CJSON

static int parse_target(pctx *c, const cJSON *e, int i, scene_target *t) {
    static const char *const keys[] = {"body", "point", "target", "weight", NULL};
    char path[PATH_MAX_LEN], p[PATH_MAX_LEN];
    snprintf(path, sizeof path, "assemble.targets[%d]", i);
    if (!ctn__json_object(c, e, path) || !ctn__json_keys(c, e, path, keys)) return 0;
    const cJSON *b = ctn__json_member(e, "body");
    ctn__json_path(p, path, "body");
    if (!b) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "missing (a body index or name)");
    if (!ctn__scene_body_ref(c, b, p, 0, &t->body)) return 0;
    t->weight = 1.0;
    if (ctn__json_vec(c, e, "point", path, 3, t->point) < 0) return 0;
    int r = ctn__json_vec(c, e, "target", path, 3, t->target);
    if (r < 0) return 0;
    if (r == 0) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, path, "missing \"target\" (the world point to pull to)");
    if (ctn__json_range(c, e, "weight", path, 0.0, 1, 1e30, &t->weight) < 0) return 0;
    return 1;
}

/* "assemble": {"tolerance", "gather_iterations", "gather_tolerance", "newton_iterations", "keep_velocities",
 * "targets": [{"body", "point", "target", "weight"}]}; body references need c->total_bodies set. */
int ctn__scene_parse_assemble(pctx *c, const cJSON *root, ctn_scene *s) {
    static const char *const keys[] = {"tolerance", "gather_iterations", "gather_tolerance", "newton_iterations", "keep_velocities",
                                       "targets", NULL};
    const cJSON *a = ctn__json_member(root, "assemble");
    if (!a) return 1;
    if (!ctn__json_object(c, a, "assemble") || !ctn__json_keys(c, a, "assemble", keys)) return 0;
    ctn_assemble_desc *d = &s->assemble;
    *d = ctn_assemble_desc_default();
    if (ctn__json_range(c, a, "tolerance", "assemble", 0.0, 1, 1.0, &d->tolerance) < 0) return 0;
    if (ctn__json_range(c, a, "gather_tolerance", "assemble", 0.0, 0, 1e30, &d->gather_tolerance) < 0) return 0;
    if (ctn__json_int32(c, a, "gather_iterations", "assemble", 0, 100000000, &d->gather_iterations) < 0) return 0;
    if (ctn__json_int32(c, a, "newton_iterations", "assemble", 0, 100000000, &d->newton_iterations) < 0) return 0;
    if (ctn__json_bool(c, a, "keep_velocities", "assemble", &d->keep_velocities) < 0) return 0;
    const cJSON *ts = ctn__json_member(a, "targets");
    if (ts && !cJSON_IsArray(ts))
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, "assemble.targets", "expected an array, got %s", ctn__json_type_name(ts));
    int n = ts ? cJSON_GetArraySize(ts) : 0;
    if (n > 100000) return ctn__json_fail(c, CTN_ERR_LIMIT, "assemble.targets", "%d entries exceed the limit of 100000", n);
    s->assemble_targets = ctn__calloc((size_t)n + 1, sizeof *s->assemble_targets);
    if (!s->assemble_targets) return ctn__json_fail(c, CTN_ERR_OUT_OF_MEMORY, "assemble.targets", "out of memory");
    int i = 0;
    for (const cJSON *e = ts ? ts->child : NULL; e; e = e->next, ++i) {
        if (!parse_target(c, e, i, &s->assemble_targets[i])) return 0;
        s->assemble_target_count = i + 1;
    }
    s->has_assemble = 1;
    return 1;
}

#endif /* CATENA_HAVE_CJSON */
