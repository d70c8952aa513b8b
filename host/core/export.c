/* Read-only queries used by exporters (the CLI's CSV, VTK and SVG writers): slot ranges, handles of slots and joint geometry. */
#include "core/joint_kinds.h"
#include "core/world.h"

#include <string.h>

ctn_status ctn_world_id_counts(const ctn_world *w, int *bodies, int *joints) {
    if (!w) return CTN_ERR_INVALID_ARGUMENT;
    if (bodies) *bodies = w->body_count;
    if (joints) *joints = w->joint_count;
    return CTN_OK;
}

ctn_status ctn_world_body_at(ctn_world *w, int index, ctn_body_id *out) {
    CTN__ENTER(w);
    if (!out) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_body_at: out is NULL");
    if (index < 0 || index >= w->body_count || !(w->props[index].flags & CTN_BODY_FLAG_ALIVE))
        return ctn__fail(w, CTN_ERR_NOT_FOUND, "ctn_world_body_at: no live body in slot %d (%d slots)", index, w->body_count);
    *out = ctn__body_handle(w, index);
    return CTN_OK;
}

ctn_status ctn_world_joint_at(ctn_world *w, int index, ctn_joint_id *out) {
    CTN__ENTER(w);
    if (!out) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_joint_at: out is NULL");
    if (index < 0 || index >= w->joint_count || !w->joint_alive[index])
        return ctn__fail(w, CTN_ERR_NOT_FOUND, "ctn_world_joint_at: no live joint in slot %d (%d slots)", index, w->joint_count);
    *out = ctn__joint_handle(w, index);
    return CTN_OK;
}

ctn_status ctn_joint_get_info(ctn_world *w, ctn_joint_id handle, ctn_joint_info *out) {
    CTN__ENTER(w);
    if (!out) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_joint_get_info: out is NULL");
    int id = ctn__joint_index(w, handle, "ctn_joint_get_info");
    if (id < 0) return w->handle_status;
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    ctn_joint_def def = ctn__jdef_get(w, id), *d = &def;
    memset(out, 0, sizeof *out);
    out->type = (ctn_joint_type)ctn__joint_type(d);
    out->body_a = ctn__body_handle(w, d->a);
    out->body_b = ctn__body_handle(w, d->b);
    /* world anchors in double from the two-float positions (world-side anchors are stored world-frame) */
    ctn_pose world = ctn__world_pose();
    ctn__pose_point(&w->pose[d->a], d->anchor_a, out->anchor_a);
    ctn__pose_point(d->b >= 0 ? &w->pose[d->b] : &world, d->anchor_b, out->anchor_b);
    if (!ctn__joint_kind_has(d->type, CTN_JK_FORCE)) { /* a force element has no rows, no error */
        float gap = 0.0f, angle = 0.0f;
        ctn_joint_error(*d, w->pose[d->a], d->b >= 0 ? w->pose[d->b] : world, &gap, &angle);
        out->gap = gap;
        out->angle = angle;
    }
    return CTN_OK;
}
