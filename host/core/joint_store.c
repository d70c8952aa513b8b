/* The joint table's storage: a compact record per slot (ctn_joint_core, 48 bytes) and the per-type extras
 * (ctn_joint_extra, 64 bytes) in an array the world holds only while some joint's extras differ from the
 * default ones (kernels/ctn_joints.h): the ball joints of a large chain need none, so their table is 48
 * bytes a joint instead of ctn_joint_def's 112. A definition read from a world without the array has the
 * default extras, the bits the joint was stored with: results are the same with and without the array. */
#include "core/world.h"

#include <string.h>

/* Whether extras x differ from the defaults (bits: a -0.0 or a NaN counts as a value of its own). */
int ctn__joint_extra_needed(const ctn_joint_extra *x) {
    ctn_joint_extra d = ctn_joint_extra_default();
    return memcmp(x, &d, sizeof d) != 0;
}

ctn_joint_extra *ctn__joint_extra_alloc(size_t cap, const ctn_joint_extra *old, size_t count) {
    if (cap == 0 || ctn__mul_overflows(cap, sizeof(ctn_joint_extra))) return NULL;
    ctn_joint_extra *x = ctn__malloc(cap * sizeof *x);
    if (!x) return NULL;
    if (old && count) memcpy(x, old, count * sizeof *x);
    ctn_joint_extra d = ctn_joint_extra_default();
    for (size_t i = old ? count : 0; i < cap; ++i) x[i] = d;
    return x;
}

/* ctn__jdef_set (world.h) where the world holds no extras array yet. */
ctn_status ctn__jdef_set_slow(ctn_world *w, int id, const ctn_joint_def *d) {
    ctn_joint_extra x = ctn_joint_extra_of(*d);
    if (!w->joint_extra && ctn__joint_extra_needed(&x)) {
        ctn_joint_extra *a = ctn__joint_extra_alloc((size_t)w->joint_capacity, NULL, 0);
        if (!a) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for the joint extras of %d joint slots", w->joint_capacity);
        w->joint_extra = a;
        if (!w->topo.defs_owned) w->topo.extra = a; /* the layout's first entries (the defaults until its next build) */
    }
    int p = w->joint_pos[id];
    w->joint_core[p] = ctn_joint_core_of(*d);
    if (w->joint_extra) w->joint_extra[p] = x;
    return CTN_OK;
}

void ctn__joint_extra_recount(ctn_world *w) {
    if (!w->joint_extra || w->joint_snap.valid) return; /* the step snapshot's restore writes them back */
    for (int j = 0; j < w->joint_count; ++j)
        if (w->joint_alive[j] && ctn__joint_extra_needed(&w->joint_extra[w->joint_pos[j]])) return;
    ctn__free(w->joint_extra);
    w->joint_extra = NULL;
    if (!w->topo.defs_owned) w->topo.extra = NULL;
}
