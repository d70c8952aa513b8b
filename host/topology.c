/* Solver layout: colours the joints, sorts them into contiguous colour ranges, carries the warm-start
 * impulses over to the new order, and builds the body -> joint CSR adjacency used by the Jacobi gather,
 * the warm start and the CG operator (seed 003: every body gathers J^T lambda over its own joints). */
#include "world.h"

#include <stdlib.h>
#include <string.h>

void ctn__topology_free(ctn_topology *t) {
    free(t->order);
    free(t->defs);
    free(t->lambda);
    free(t->colour_offsets);
    free(t->adj_offsets);
    free(t->adj);
    free(t->split);
    free(t->springs);
    free(t->spring_adj_offsets);
    free(t->spring_adj);
    memset(t, 0, sizeof *t);
}

/* CSR of body -> (index << 1 | side) for the n joints in defs, counting only dynamic bodies. */
static int build_adjacency(const ctn_joint_def *defs, int n, int body_count, const unsigned char *dynamic, int **offsets_out,
                           int **adj_out) {
    int *off = calloc((size_t)body_count + 1, sizeof *off);
    if (!off) return 0;
    for (int s = 0; s < n; ++s) {
        if (dynamic[defs[s].a]) off[defs[s].a + 1]++;
        if (defs[s].b >= 0 && dynamic[defs[s].b]) off[defs[s].b + 1]++;
    }
    for (int i = 0; i < body_count; ++i) off[i + 1] += off[i];
    int *adj = malloc(((size_t)off[body_count] + 1) * sizeof *adj);
    int *fill = malloc(((size_t)body_count + 1) * sizeof *fill);
    if (!adj || !fill) {
        free(off);
        free(adj);
        free(fill);
        return 0;
    }
    memcpy(fill, off, (size_t)body_count * sizeof *fill);
    /* slots in increasing order: the gather sums in a fixed order, so results are deterministic */
    for (int s = 0; s < n; ++s) {
        if (dynamic[defs[s].a]) adj[fill[defs[s].a]++] = s << 1;
        if (defs[s].b >= 0 && dynamic[defs[s].b]) adj[fill[defs[s].b]++] = (s << 1) | 1;
    }
    free(fill);
    *offsets_out = off;
    *adj_out = adj;
    return 1;
}

ctn_status ctn__topology_build(ctn_world *w) {
    ctn_topology t;
    memset(&t, 0, sizeof t);
    int nb = w->body_count, nj = w->joint_count;
    int m = 0, ns = 0;
    for (int j = 0; j < nj; ++j) {
        if (!w->joint_alive[j]) continue;
        if (w->joints[j].type == CTN_JT_SPRING) ns++;
        else m++;
    }
    int budget = w->desc.max_colours;
    unsigned char *dynamic = malloc((size_t)nb + 1);
    int *ids = malloc(((size_t)m + 1) * sizeof *ids);
    int *ba = malloc(((size_t)m + 1) * sizeof *ba);
    int *bb = malloc(((size_t)m + 1) * sizeof *bb);
    int *colour = malloc(((size_t)m + 1) * sizeof *colour);
    t.order = malloc(((size_t)m + 1) * sizeof *t.order);
    t.defs = malloc(((size_t)m + 1) * sizeof *t.defs);
    t.lambda = calloc(6 * (size_t)m + 1, sizeof *t.lambda);
    t.colour_offsets = calloc((size_t)budget + 2, sizeof *t.colour_offsets);
    t.split = malloc(((size_t)nb + 1) * sizeof *t.split);
    t.springs = malloc(((size_t)ns + 1) * sizeof *t.springs);
    ctn_status st = CTN_OK;
    if (!dynamic || !ids || !ba || !bb || !colour || !t.order || !t.defs || !t.lambda || !t.colour_offsets || !t.split || !t.springs) {
        st = ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory building the solver layout (%d joints, %d bodies)", m, nb);
        goto done;
    }
    for (int i = 0; i < nb; ++i) dynamic[i] = (w->props[i].flags & CTN_BODY_FLAG_DYNAMIC) != 0;
    m = 0;
    ns = 0;
    for (int j = 0; j < nj; ++j) {
        if (!w->joint_alive[j]) continue;
        if (w->joints[j].type == CTN_JT_SPRING) {
            t.springs[ns++] = w->joints[j];
            continue;
        }
        ids[m] = j;
        ba[m] = w->joints[j].a;
        bb[m] = w->joints[j].b;
        m++;
    }
    int used = ctn__colour_joints(m, ba, bb, nb, dynamic, budget, colour);
    if (used < 0) {
        st = ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory colouring %d joints", m);
        goto done;
    }
    /* counting sort by colour (stable: id order inside a colour); the overflow group sorts last */
    int *count = calloc((size_t)budget + 2, sizeof *count);
    if (!count) {
        st = ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory sorting colours");
        goto done;
    }
    for (int s = 0; s < m; ++s) count[(colour[s] < budget ? colour[s] : used) + 1]++;
    t.colour_count = used;
    t.largest_colour = 0;
    for (int c = 0; c <= used; ++c) {
        if (c < used && count[c + 1] > t.largest_colour) t.largest_colour = count[c + 1];
        t.colour_offsets[c + 1] = t.colour_offsets[c] + count[c + 1];
    }
    memcpy(count, t.colour_offsets, ((size_t)used + 1) * sizeof *count);
    t.row_count = 0;
    for (int s = 0; s < m; ++s) {
        int c = colour[s] < budget ? colour[s] : used;
        int slot = count[c]++;
        int id = ids[s];
        t.order[slot] = id;
        t.defs[slot] = w->joints[id];
        t.row_count += w->joints[id].rows;
        /* warm start: keep the impulses of joints that existed in the previous layout */
        int old = w->joint_slot[id];
        if (old >= 0 && w->topo.lambda && old < w->topo.joint_count && w->topo.order[old] == id)
            memcpy(&t.lambda[6 * slot], &w->topo.lambda[6 * old], 6 * sizeof(float));
    }
    free(count);
    t.joint_count = m;
    t.spring_count = ns;
    t.body_count = nb;
    if (!build_adjacency(t.defs, m, nb, dynamic, &t.adj_offsets, &t.adj) ||
        !build_adjacency(t.springs, ns, nb, dynamic, &t.spring_adj_offsets, &t.spring_adj)) {
        st = ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory building the body adjacency");
        goto done;
    }
    for (int i = 0; i < nb; ++i) {
        int k = t.adj_offsets[i + 1] - t.adj_offsets[i];
        t.split[i] = k > 1 ? (float)k : 1.0f;
    }
    for (int j = 0; j < nj; ++j) w->joint_slot[j] = -1;
    for (int s = 0; s < m; ++s) w->joint_slot[t.order[s]] = s;
    ctn__topology_free(&w->topo);
    w->topo = t;
    memset(&t, 0, sizeof t);
    w->topology_dirty = 0;
    w->topology_version++;
done:
    ctn__topology_free(&t);
    free(dynamic);
    free(ids);
    free(ba);
    free(bb);
    free(colour);
    return st;
}
