/* All-or-nothing building (world_mark.h): a scene generator, a scene file or a URDF robot that fails part
 * way leaves the world as it was. */
#include "api/world_mark.h"
#include "collide/collide.h"
#include "core/attach.h"

ctn_world_mark ctn__scene_mark(const ctn_world *w) {
    ctn_world_mark m = {w->body_count, w->joint_count, w->collision ? w->collision->plane_count : 0, w->topology_dirty, w->bodies_dirty};
    return m;
}

/* Drops the entries >= mark from a free-slot stack (slots a failed build freed, e.g. a re-hung chain's pin). */
static void keep_free_below(int *stack, int *count, int mark) {
    int n = 0;
    for (int k = 0; k < *count; ++k)
        if (stack[k] < mark) stack[n++] = stack[k];
    *count = n;
}

/* Removes everything added since the mark: a build appends fresh slots (w->append_slots), so truncating the
 * slot arrays restores the world. */
void ctn__scene_rollback(ctn_world *w, ctn_world_mark m) {
    for (int i = m.bodies; i < w->body_count; ++i) ctn__attach_forget(w, i); /* bodies the build attached */
    for (int j = m.joints; j < w->joint_count; ++j) {
        if (!w->joint_alive[j]) continue;
        if (w->body_refs) {
            w->body_refs[ctn__jcore(w, j)->a]--;
            if (ctn__jcore(w, j)->b >= 0) w->body_refs[ctn__jcore(w, j)->b]--;
        }
        w->live_joints--;
    }
    ctn__curve_truncate(w, m.joints);
    ctn__joint_names_truncate(w, m.joints);
    /* a layout built meanwhile may have moved slots below the mark above it (the table is stored in solver
     * order): then they go back to slot order and the layout is rebuilt */
    int moved = ctn__joint_table_truncate(w, m.joints);
    keep_free_below(w->joint_free, &w->joint_free_count, m.joints);
    keep_free_below(w->body_free, &w->body_free_count, m.bodies);
    struct ctn_collision *c = w->collision;
    for (int i = m.bodies; i < w->body_count; ++i) {
        if (w->props[i].flags & CTN_BODY_FLAG_ALIVE) w->live_bodies--;
        (void)ctn__body_force_set(w, i, ctn_v3_zero(), ctn_v3_zero()); /* a force the build set goes with its body */
        ctn__collision_shapes_clear(c, i);
    }
    ctn__body_names_truncate(w, m.bodies);
    w->body_count = m.bodies;
    if (c) c->plane_count = m.planes;
    w->topology_dirty = m.topology_dirty || moved;
    /* the bodies below the mark may have been edited (a freed pin): dirty if they were or the build made them so */
    w->bodies_dirty = m.bodies_dirty || w->bodies_dirty;
}
