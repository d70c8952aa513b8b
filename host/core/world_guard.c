/* The one-thread-at-a-time guard of a world (CTN__ENTER in world.h; catena.h, "Threads"): the message of a
 * call refused as busy. It cannot go to w->error, which belongs to the thread inside the world, so it is
 * kept per thread with the world's count of calls let in at the refusal; ctn_world_last_error returns it on
 * the refused thread until the next call on that world is let in. Thread-local storage is touched only
 * here, off the path of the calls that go through. */
#include "core/world.h"

#include <stdio.h>

static _Thread_local const ctn_world *busy_world; /* the world of this thread's last refusal */
static _Thread_local unsigned busy_entries;       /* its w->entries then */
static _Thread_local char busy_message[256];

ctn_status ctn__world_busy(const ctn_world *w, const char *fn) {
    snprintf(busy_message, sizeof busy_message,
             "%s: the world is in use by another thread (a world is used by one thread at a time); nothing was done", fn);
    busy_world = w;
    busy_entries = atomic_load_explicit(&w->entries, memory_order_relaxed);
    return CTN_ERR_BUSY;
}

const char *ctn__busy_message(const ctn_world *w) {
    if (busy_world != w || busy_entries != atomic_load_explicit(&w->entries, memory_order_relaxed)) return NULL;
    return busy_message;
}
