/* The persistent user forces and torques (ctn_body_set_force), kept apart from the bodies' other properties:
 * most bodies of a large world never have one, so the world holds the array (32 bytes a body) only while
 * some body's is not all +0.0. A body of a world without it has force and torque +0.0, which the forces pass
 * (kernels/ctn_body.h ctn_body_apply_forces) adds to the springs' force exactly as it added the stored zeros:
 * the results are the same bits with and without the array. */
#include "core/world.h"

#include <string.h>

/* Whether f's force and torque are all +0.0 (bits: a -0.0 is kept as set, so it counts as a force). */
static int is_zero(const ctn_body_force *f) {
    static const ctn_v3 zero;
    return memcmp(&f->force, &zero, sizeof zero) == 0 && memcmp(&f->torque, &zero, sizeof zero) == 0;
}

ctn_body_force ctn__body_force_get(const ctn_world *w, int i) {
    if (w->body_force) return w->body_force[i];
    ctn_body_force z;
    memset(&z, 0, sizeof z);
    return z;
}

ctn_body_force *ctn__body_force_alloc(size_t cap, const ctn_body_force *old, size_t count) {
    if (cap == 0 || ctn__mul_overflows(cap, sizeof(ctn_body_force))) return NULL;
    ctn_body_force *f = ctn__calloc(cap, sizeof *f);
    if (f && old && count) memcpy(f, old, count * sizeof *f);
    return f;
}

ctn_status ctn__body_force_set(ctn_world *w, int i, ctn_v3 force, ctn_v3 torque) {
    ctn_body_force f;
    memset(&f, 0, sizeof f);
    f.force = force;
    f.torque = torque;
    int now = !is_zero(&f);
    if (!w->body_force) {
        if (!now) return CTN_OK; /* zero already */
        w->body_force = ctn__body_force_alloc((size_t)w->body_capacity, NULL, 0);
        if (!w->body_force)
            return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for the user forces of %d body slots", w->body_capacity);
        w->force_bodies = 0;
    }
    int was = !is_zero(&w->body_force[i]);
    w->body_force[i] = f;
    w->force_bodies += now - was;
    if (w->force_bodies == 0) {
        ctn__free(w->body_force);
        w->body_force = NULL;
    }
    return CTN_OK;
}

void ctn__body_force_recount(ctn_world *w) {
    w->force_bodies = 0;
    if (!w->body_force) return;
    static const ctn_body_force zero;
    for (int i = 0; i < w->body_count; ++i) {
        if (!(w->props[i].flags & CTN_BODY_FLAG_ALIVE)) w->body_force[i] = zero; /* never applied; a reused slot starts at zero */
        w->force_bodies += !is_zero(&w->body_force[i]);
    }
    if (w->force_bodies == 0) {
        ctn__free(w->body_force);
        w->body_force = NULL;
    }
}
