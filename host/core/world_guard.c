/* The one-thread-at-a-time guard of a world (CTN__ENTER in world.h; catena.h, "Threads"): which thread a
 * claim names, and the message of a call refused as busy. The message cannot go to w->error, which belongs
 * to the thread inside the world, so it is kept per thread and ctn_world_last_error returns it on the
 * refused thread until that thread's next call on a world. */
#include "core/world.h"

#include <stdio.h>

_Thread_local char ctn__thread_mark;
_Thread_local const ctn_world *ctn__busy_world;
static _Thread_local char busy_message[256];

ctn_status ctn__world_busy(const ctn_world *w, const char *fn) {
    snprintf(busy_message, sizeof busy_message,
             "%s: the world is in use by another thread (a world is used by one thread at a time); nothing was done", fn);
    ctn__busy_world = w;
    return CTN_ERR_BUSY;
}

const char *ctn__busy_message(void) { return busy_message; }
