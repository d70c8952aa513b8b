/* Read-back of the collision settings, shapes and planes (set in host/collide/collide.c). */
#include "collide/collide.h"

#include <string.h>

ctn_status ctn_world_get_collision(ctn_world *w, ctn_collision_desc *out) {
    CTN__ENTER(w);
    if (!out) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_get_collision: out is NULL");
    *out = w->collision ? w->collision->desc : ctn_collision_desc_default();
    return CTN_OK;
}

static void shape_to_desc(const ctn_shape *sh, ctn_shape_desc *out) {
    memset(out, 0, sizeof *out);
    out->type = (ctn_shape_type)sh->type;
    out->radius = sh->radius;
    out->half_length = sh->half_length;
    out->half_extents[0] = sh->half_extents.x, out->half_extents[1] = sh->half_extents.y, out->half_extents[2] = sh->half_extents.z;
    out->friction = sh->friction;
    out->restitution = sh->restitution;
    out->group = sh->group;
    out->offset[0] = sh->offset.x, out->offset[1] = sh->offset.y, out->offset[2] = sh->offset.z;
    out->rotation[0] = sh->placed ? sh->rot.w : 1.0;
    out->rotation[1] = sh->rot.x, out->rotation[2] = sh->rot.y, out->rotation[3] = sh->rot.z;
}

ctn_status ctn_body_get_shape(ctn_world *w, ctn_body_id body, ctn_shape_desc *out) {
    CTN__ENTER(w);
    if (!out) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_body_get_shape: out is NULL");
    int i = ctn__body_index(w, body, "ctn_body_get_shape", 0);
    if (i < 0) return w->handle_status;
    const struct ctn_collision *c = w->collision;
    if (ctn__shape_count_of(c, i) == 0) *out = ctn_shape_desc_default(CTN_SHAPE_NONE);
    else shape_to_desc(&c->shapes[i], out);
    return CTN_OK;
}

ctn_status ctn_body_shape_count(ctn_world *w, ctn_body_id body, int32_t *count) {
    CTN__ENTER(w);
    if (!count) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_body_shape_count: count is NULL");
    int i = ctn__body_index(w, body, "ctn_body_shape_count", 0);
    if (i < 0) return w->handle_status;
    *count = ctn__shape_count_of(w->collision, i);
    return CTN_OK;
}

ctn_status ctn_body_get_shape_at(ctn_world *w, ctn_body_id body, int32_t index, ctn_shape_desc *out) {
    CTN__ENTER(w);
    if (!out) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_body_get_shape_at: out is NULL");
    int i = ctn__body_index(w, body, "ctn_body_get_shape_at", 0);
    if (i < 0) return w->handle_status;
    int n = ctn__shape_count_of(w->collision, i);
    if (index < 0 || index >= n)
        return ctn__fail(w, CTN_ERR_NOT_FOUND, "ctn_body_get_shape_at: shape %d out of range (body %lld has %d)", (int)index,
                         (long long)ctn_body_id_to_int(body), n);
    shape_to_desc(ctn__shape_at(w->collision, i, index), out);
    return CTN_OK;
}

int ctn_world_plane_count(const ctn_world *w) { return w && w->collision ? w->collision->plane_count : 0; }

ctn_status ctn_world_get_plane(ctn_world *w, int index, double normal[3], double *offset, double *friction, double *restitution) {
    CTN__ENTER(w);
    if (!normal || !offset || !friction || !restitution)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_get_plane: an output pointer is NULL");
    int n = ctn_world_plane_count(w);
    if (index < 0 || index >= n) return ctn__fail(w, CTN_ERR_NOT_FOUND, "ctn_world_get_plane: plane %d out of range (%d planes)", index, n);
    const ctn_plane *p = &w->collision->planes[index];
    normal[0] = p->normal.x, normal[1] = p->normal.y, normal[2] = p->normal.z;
    *offset = p->offset;
    *friction = p->friction;
    *restitution = p->restitution;
    return CTN_OK;
}
