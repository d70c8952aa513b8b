/* Pieces shared by the scene generators of host/scenes/ (scenes.c, scenes_contact.c). Not installed. */
#ifndef CTN_HOST_SCENES_INTERNAL_H
#define CTN_HOST_SCENES_INTERNAL_H

#include "api/world_mark.h"
#include "core/world.h"

#include <math.h>

/* Shortest-arc rotation (w, x, y, z) taking the x axis to unit vector u. */
static inline void ctn__quat_x_to(const double u[3], double q[4]) {
    double c = u[0]; /* x . u */
    if (c < -0.999999) {
        q[0] = 0.0, q[1] = 0.0, q[2] = 1.0, q[3] = 0.0;
        return;
    }
    /* axis = x cross u = (0, -u_z, u_y) */
    double w = 1.0 + c, x = 0.0, y = -u[2], z = u[1];
    double n = sqrt(w * w + x * x + y * y + z * z);
    q[0] = w / n, q[1] = x / n, q[2] = y / n, q[3] = z / n;
}

/* Opens a public generator: CTN_ERR_INVALID_ARGUMENT for a NULL world; else clears the error, brings the
 * host arrays up to date, marks what the world holds (api/world_mark.h) and makes every body and joint
 * added until ctn__scene_end take a fresh slot at the end, so a generator's handles are consecutive
 * (catena.h). */
static inline ctn_status ctn__scene_begin(ctn_world *w, ctn_world_mark *mark) {
    if (!w) return CTN_ERR_INVALID_ARGUMENT;
    ctn__clear_error(w);
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    *mark = ctn__scene_mark(w);
    w->append_slots++;
    return CTN_OK;
}

/* Closes a public generator with its status: a generator that failed part way (out of memory, a limit) is
 * rolled back to the mark, so the world holds all of the scene or none of it; its message stays. */
static inline ctn_status ctn__scene_end(ctn_world *w, ctn_world_mark mark, ctn_status st) {
    w->append_slots--;
    if (st != CTN_OK) ctn__scene_rollback(w, mark);
    return st;
}

#endif /* CTN_HOST_SCENES_INTERNAL_H */
