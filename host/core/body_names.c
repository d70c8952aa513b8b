/* Body names: an optional name per body (scene files give them with "name"), looked up by a scan of the
 * bodies. Names are kept apart from the body arrays the solvers read, in an array indexed like them and
 * grown on the first name of a body beyond it. */
#include "core/world.h"

#include <stdlib.h>
#include <string.h>

#define NAME_MAX_BYTES 255

void ctn__body_name_clear(ctn_world *w, int i) {
    if (i < 0 || i >= w->body_names_capacity) return;
    ctn__free(w->body_names[i]);
    w->body_names[i] = NULL;
}

void ctn__body_names_truncate(ctn_world *w, int first) {
    for (int i = first < 0 ? 0 : first; i < w->body_names_capacity; ++i) ctn__body_name_clear(w, i);
}

void ctn__body_names_free(ctn_world *w) {
    ctn__body_names_truncate(w, 0);
    ctn__free(w->body_names);
    w->body_names = NULL;
    w->body_names_capacity = 0;
}

static ctn_status names_reserve(ctn_world *w, int n) {
    if (n <= w->body_names_capacity) return CTN_OK;
    int cap = w->body_names_capacity ? w->body_names_capacity : 64;
    while (cap < n) cap = cap > CTN_MAX_BODIES / 2 ? CTN_MAX_BODIES : 2 * cap;
    char **names = ctn__realloc(w->body_names, (size_t)cap * sizeof *names);
    if (!names) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for %d body names", cap);
    memset(names + w->body_names_capacity, 0, (size_t)(cap - w->body_names_capacity) * sizeof *names);
    w->body_names = names;
    w->body_names_capacity = cap;
    return CTN_OK;
}

ctn_status ctn_body_set_name(ctn_world *w, ctn_body_id body, const char *name) {
    CTN__ENTER(w);
    int i = ctn__body_index(w, body, "ctn_body_set_name", 0);
    if (i < 0) return w->handle_status;
    if (name && strlen(name) > NAME_MAX_BYTES)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_body_set_name: name of %zu bytes is longer than %d", strlen(name), NAME_MAX_BYTES);
    if (!name || !name[0]) {
        ctn__body_name_clear(w, i);
        return CTN_OK;
    }
    char *copy = ctn__malloc(strlen(name) + 1);
    if (!copy) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for a body name");
    ctn_status st = names_reserve(w, i + 1);
    if (st != CTN_OK) {
        ctn__free(copy);
        return st;
    }
    strcpy(copy, name);
    ctn__free(w->body_names[i]);
    w->body_names[i] = copy;
    return CTN_OK;
}

ctn_status ctn_body_get_name(ctn_world *w, ctn_body_id body, const char **name) {
    CTN__ENTER(w);
    if (!name) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_body_get_name: name is NULL");
    int i = ctn__body_index(w, body, "ctn_body_get_name", 0);
    if (i < 0) return w->handle_status;
    *name = i < w->body_names_capacity && w->body_names[i] ? w->body_names[i] : "";
    return CTN_OK;
}

ctn_status ctn_body_find(ctn_world *w, const char *name, ctn_body_id *out) {
    CTN__ENTER(w);
    if (!name || !out) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_body_find: %s is NULL", name ? "out" : "name");
    int n = w->body_count < w->body_names_capacity ? w->body_count : w->body_names_capacity;
    for (int i = 0; i < n; ++i) {
        if (w->body_names[i] && !strcmp(w->body_names[i], name)) {
            *out = ctn__body_handle(w, i);
            return CTN_OK;
        }
    }
    return ctn__fail(w, CTN_ERR_NOT_FOUND, "ctn_body_find: no body is named '%.255s'", name);
}
