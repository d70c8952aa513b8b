/* Joint names: an optional name per joint (URDF joints keep theirs), looked up by a scan of the joints, as
 * body names are (host/core/body_names.c). Kept apart from the joint arrays the solvers read, in an array
 * indexed like them and grown on the first name of a joint beyond it; a removed joint's name goes with it. */
#include "core/world.h"

#include <stdlib.h>
#include <string.h>

#define NAME_MAX_BYTES 255

void ctn__joint_name_clear(ctn_world *w, int j) {
    if (j < 0 || j >= w->joint_names_capacity) return;
    ctn__free(w->joint_names[j]);
    w->joint_names[j] = NULL;
}

void ctn__joint_names_truncate(ctn_world *w, int first) {
    for (int j = first < 0 ? 0 : first; j < w->joint_names_capacity; ++j) ctn__joint_name_clear(w, j);
}

void ctn__joint_names_free(ctn_world *w) {
    ctn__joint_names_truncate(w, 0);
    ctn__free(w->joint_names);
    w->joint_names = NULL;
    w->joint_names_capacity = 0;
}

static ctn_status names_reserve(ctn_world *w, int n) {
    if (n <= w->joint_names_capacity) return CTN_OK;
    int cap = w->joint_names_capacity ? w->joint_names_capacity : 64;
    while (cap < n) cap = cap > CTN_MAX_JOINTS / 2 ? CTN_MAX_JOINTS : 2 * cap;
    char **names = ctn__realloc(w->joint_names, (size_t)cap * sizeof *names);
    if (!names) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for %d joint names", cap);
    memset(names + w->joint_names_capacity, 0, (size_t)(cap - w->joint_names_capacity) * sizeof *names);
    w->joint_names = names;
    w->joint_names_capacity = cap;
    return CTN_OK;
}

ctn_status ctn_joint_set_name(ctn_world *w, ctn_joint_id joint, const char *name) {
    CTN__ENTER(w);
    int j = ctn__joint_index(w, joint, "ctn_joint_set_name");
    if (j < 0) return CTN_ERR_NOT_FOUND;
    if (name && strlen(name) > NAME_MAX_BYTES)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_joint_set_name: name of %zu bytes is longer than %d", strlen(name), NAME_MAX_BYTES);
    if (!name || !name[0]) {
        ctn__joint_name_clear(w, j);
        return CTN_OK;
    }
    char *copy = ctn__malloc(strlen(name) + 1);
    if (!copy) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for a joint name");
    ctn_status st = names_reserve(w, j + 1);
    if (st != CTN_OK) {
        ctn__free(copy);
        return st;
    }
    strcpy(copy, name);
    ctn__free(w->joint_names[j]);
    w->joint_names[j] = copy;
    return CTN_OK;
}

ctn_status ctn_joint_get_name(ctn_world *w, ctn_joint_id joint, const char **name) {
    CTN__ENTER(w);
    if (!name) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_joint_get_name: name is NULL");
    int j = ctn__joint_index(w, joint, "ctn_joint_get_name");
    if (j < 0) return CTN_ERR_NOT_FOUND;
    *name = j < w->joint_names_capacity && w->joint_names[j] ? w->joint_names[j] : "";
    return CTN_OK;
}

ctn_status ctn_joint_find(ctn_world *w, const char *name, ctn_joint_id *out) {
    CTN__ENTER(w);
    if (!name || !out) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_joint_find: %s is NULL", name ? "out" : "name");
    int n = w->joint_count < w->joint_names_capacity ? w->joint_count : w->joint_names_capacity;
    for (int j = 0; j < n; ++j) {
        if (w->joint_alive[j] && w->joint_names[j] && !strcmp(w->joint_names[j], name)) {
            *out = ctn__joint_handle(w, j);
            return CTN_OK;
        }
    }
    return ctn__fail(w, CTN_ERR_NOT_FOUND, "ctn_joint_find: no joint is named '%.255s'", name);
}
