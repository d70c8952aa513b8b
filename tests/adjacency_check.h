/* A test's check of the solver layout's body -> joint adjacency (host/core/topology.c ctn__topology_adjacency)
 * against the one the layout's joints and the bodies' flags give; failures are CHECKs (check.h). Reads the
 * library's internal world (core/world.h). */
#ifndef CTN_TESTS_ADJACENCY_CHECK_H
#define CTN_TESTS_ADJACENCY_CHECK_H

#include "check.h"
#include "core/world.h"

#include <stdlib.h>

/* The adjacency of w's layout against one counted here from its joints and the bodies' flags. */
static inline void adjacency_check(ctn_world *w, const char *what) {
    const ctn_topology *t = &w->topo;
    CHECK(t->adj_ready, "%s: the adjacency is built", what);
    if (!t->adj_ready) return;
    int nb = t->body_count, *fill = calloc((size_t)nb + 1, sizeof *fill);
    if (!fill) return;
    for (int s = 0; s < t->joint_count; ++s)
        for (int e = 0; e < 2; ++e) {
            int b = e ? t->defs[s].b : t->defs[s].a;
            if (b < 0 || !(w->props[b].flags & CTN_BODY_FLAG_DYNAMIC)) continue;
            int at = t->adj_offsets[b] + fill[b]++;
            CHECK(at < t->adj_offsets[b + 1] && t->adj[at] == ((s << 1) | e), "%s: body %d's entry %d is joint %d side %d", what, b, at, s, e);
        }
    for (int b = 0; b < nb; ++b)
        CHECK(t->adj_offsets[b] + fill[b] == t->adj_offsets[b + 1], "%s: body %d has %d entries", what, b, fill[b]);
    free(fill);
}

#endif /* CTN_TESTS_ADJACENCY_CHECK_H */
