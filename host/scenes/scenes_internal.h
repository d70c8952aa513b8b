/* Pieces shared by the scene generators of host/scenes/ (scenes.c, scenes_contact.c). Not installed. */
#ifndef CTN_HOST_SCENES_INTERNAL_H
#define CTN_HOST_SCENES_INTERNAL_H

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

/* Opens a public generator: 0 for a NULL world; else clears the error and makes every body and joint added
 * until ctn__append_end take a fresh slot at the end, so a generator's handles are consecutive (catena.h). */
static inline int ctn__scene_begin(ctn_world *w) {
    if (!w) return 0;
    ctn__clear_error(w);
    w->append_slots++;
    return 1;
}

#endif /* CTN_HOST_SCENES_INTERNAL_H */
