/* The "attachments" key of scene files (docs/scene-format.md): bodies welded to a master body by
 * ctn_attach_point (host/core/attach.c), built after the constraints; and the attachments of a world written
 * back by ctn_scene_save_json. Bodies are named as every scene field names them (an index or a name). */
#include "core/alloc.h"
#include "core/attach.h"
#include "io/scene_internal.h"

#include <stdio.h>
#include <string.h>

void ctn__scene_attach_free(ctn_scene *s) { ctn__free(s->attachments); }

ctn_status ctn__scene_build_attachments(ctn_world *w, const ctn_scene *s, int first_body, char *where, size_t where_size) {
    for (int k = 0; k < s->attachment_count; ++k) {
        const scene_attach *a = &s->attachments[k];
        snprintf(where, where_size, "attachments[%d]", k);
        /* the build appends fresh slots: handle = slot, generation 0 */
        ctn_status st = ctn_attach_point(w, ctn__body_handle(w, first_body + a->body), ctn__body_handle(w, first_body + a->master),
                                         a->has_point ? a->point : NULL);
        if (st != CTN_OK) return st;
    }
    return CTN_OK;
}

void ctn__scene_write_attachments(FILE *f, const ctn_world *w, const int *index) {
    const ctn_attachments *a = w->attach;
    if (!a || a->link_count == 0) return;
    fprintf(f, ",\n  \"attachments\": [");
    for (int k = 0; k < a->link_count; ++k) {
        const ctn_attach_link *l = &a->links[k];
        fprintf(f, "%s\n    {\"body\": %d, \"master\": %d, \"point\": [%.17g, %.17g, %.17g]}", k ? "," : "", index[l->body],
                index[l->master], l->local[0], l->local[1], l->local[2]);
    }
    fprintf(f, "\n  ]");
}

#ifdef CATENA_HAVE_CJSON

static int parse_attachment(pctx *c, const cJSON *e, int i, scene_attach *a) {
    static const char *const keys[] = {"body", "master", "point", NULL};
    char path[PATH_MAX_LEN], p[PATH_MAX_LEN];
    snprintf(path, sizeof path, "attachments[%d]", i);
    if (!ctn__json_object(c, e, path) || !ctn__json_keys(c, e, path, keys)) return 0;
    const char *names[2] = {"body", "master"};
    int *out[2] = {&a->body, &a->master};
    for (int k = 0; k < 2; ++k) {
        const cJSON *b = ctn__json_member(e, names[k]);
        ctn__json_path(p, path, names[k]);
        if (!b) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "missing (a body index or name)");
        if (!ctn__scene_body_ref(c, b, p, 0, out[k])) return 0;
    }
    if (a->body == a->master) {
        ctn__json_path(p, path, "master");
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "body %d cannot be attached to itself", a->body);
    }
    int r = ctn__json_vec(c, e, "point", path, 3, a->point);
    if (r < 0) return 0;
    a->has_point = r;
    return 1;
}

/* "attachments": [{"body", "master", "point": [x, y, z] (master frame; optional)}]; body references need
 * c->total_bodies set. */
int ctn__scene_parse_attachments(pctx *c, const cJSON *root, ctn_scene *s) {
    const cJSON *as = ctn__json_member(root, "attachments");
    if (!as) return 1;
    if (!cJSON_IsArray(as)) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, "attachments", "expected an array, got %s", ctn__json_type_name(as));
    int n = cJSON_GetArraySize(as);
    if (n > CTN_MAX_BODIES) return ctn__json_fail(c, CTN_ERR_LIMIT, "attachments", "%d entries exceed CTN_MAX_BODIES (%d)", n, CTN_MAX_BODIES);
    s->attachments = ctn__calloc((size_t)n + 1, sizeof *s->attachments);
    if (!s->attachments) return ctn__json_fail(c, CTN_ERR_OUT_OF_MEMORY, "attachments", "out of memory");
    int i = 0;
    for (const cJSON *e = as->child; e; e = e->next, ++i) {
        if (!parse_attachment(c, e, i, &s->attachments[i])) return 0;
        s->attachment_count = i + 1;
        for (int k = 0; k < i; ++k)
            if (s->attachments[k].body == s->attachments[i].body) {
                char p[PATH_MAX_LEN];
                snprintf(p, sizeof p, "attachments[%d].body", i);
                return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "body %d is already attached by attachments[%d]", s->attachments[i].body, k);
            }
    }
    return 1;
}

#endif /* CATENA_HAVE_CJSON */
