/* All-or-nothing building (host/api/world_mark.c): what a world held before a build that adds bodies,
 * joints, shapes and planes (scene generators, scene files, URDF robots), and the rollback to it when the
 * build fails. A build appends fresh slots (w->append_slots), so truncating the slot arrays restores the
 * world, shapes, names, curves, attachments and planes included. Not installed. */
#ifndef CTN_HOST_WORLD_MARK_H
#define CTN_HOST_WORLD_MARK_H

#include "core/world.h"

typedef struct ctn_world_mark {
    int bodies, joints, planes, topology_dirty, bodies_dirty;
} ctn_world_mark;

ctn_world_mark ctn__scene_mark(const ctn_world *w);
/* Removes everything added since the mark. */
void ctn__scene_rollback(ctn_world *w, ctn_world_mark m);

#endif /* CTN_HOST_WORLD_MARK_H */
