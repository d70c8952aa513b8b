/* World tags: the number every handle of a world carries (ctn_body_id.world0, catena.h "Handles"), so that a
 * handle given to another world is refused instead of naming whatever body holds the same slot there.
 *
 * A tag is 1..65535, unique among the live worlds of the process: a bitmap of the tags in use, claimed and
 * released with atomic bit operations (no lock; worlds are created on any thread). The search starts after
 * the last tag handed out, so a destroyed world's tag comes back only after the other 65534 were used: a
 * handle kept past its world's destruction is refused by the worlds created soon after. */
#include "world.h"

#include <stdatomic.h>

#define TAG_WORDS (65536 / 64)

static _Atomic(uint64_t) tags_in_use[TAG_WORDS];
static _Atomic(unsigned) tag_cursor;

int ctn__world_tag_claim(void) {
    for (int tries = 0; tries < 65535; ++tries) {
        unsigned t = atomic_fetch_add_explicit(&tag_cursor, 1u, memory_order_relaxed) % 65535u + 1u;
        uint64_t bit = (uint64_t)1 << (t % 64);
        uint64_t old = atomic_fetch_or_explicit(&tags_in_use[t / 64], bit, memory_order_acq_rel);
        if (!(old & bit)) return (int)t;
    }
    return 0;
}

void ctn__world_tag_release(int tag) {
    if (tag <= 0 || tag > 65535) return;
    atomic_fetch_and_explicit(&tags_in_use[tag / 64], ~((uint64_t)1 << (tag % 64)), memory_order_acq_rel);
}

int ctn_world_tag(const ctn_world *w) { return w ? w->tag : 0; }
