/* CTN_SOLVER_AUTO: which solver a topology gets (issue 8).
 *
 * Gauss-Seidel needs about n^2 sweeps to carry a load along an n-link chain (README, "numerical model"),
 * while the exact forest solver (host/solver_direct.c) solves a chain or tree of bilateral joints in one
 * O(n) pass, whatever its length and mass ratios. Loop-closing joints and bounded rows (contacts, limits,
 * motors, ropes) are outside the forest: the direct solver handles them by an outer block Gauss-Seidel,
 * which is no better than plain GS when they dominate. So `auto` picks
 *     DIRECT  when some tree of the spanning forest holds a path of at least CTN_AUTO_MIN_CHAIN bodies and
 *             loop closers + bounded joints are at most a quarter of the joints;
 *     GS      otherwise (piles, dense meshes, short articulations).
 * The path length is the diameter of each tree, found by two breadth-first searches (the farthest body from
 * any body is one end of a longest path). Cost O(bodies + joints), once per topology_version; the OpenCL
 * backend may still turn DIRECT down for a layout it cannot eliminate (then GS, see backend_opencl.c). */
#include "core/world.h"

#include <stdlib.h>

#define CTN_AUTO_MIN_CHAIN 32

static int uf_find(int *up, int x) {
    while (up[x] != x) x = up[x] = up[up[x]];
    return x;
}

static int is_bounded(const ctn_joint_def *d) {
    return d->type == CTN_JT_CONTACT || (d->flags & (CTN_JF_LIMIT | CTN_JF_MOTOR | CTN_JF_ROPE));
}

/* Farthest body from `start` in its tree (breadth-first over the CSR adjacency); its distance in *dist.
 * Marks the tree's bodies in `seen`. */
static int farthest(int start, const int *head, const int *adj, int *depth, int *queue, unsigned char *seen, int *dist) {
    int qh = 0, qt = 0, far = start;
    depth[start] = 0;
    queue[qt++] = start;
    while (qh < qt) {
        int u = queue[qh++];
        if (depth[u] > depth[far]) far = u;
        for (int k = head[u]; k < head[u + 1]; ++k)
            if (depth[adj[k]] < 0) depth[adj[k]] = depth[u] + 1, queue[qt++] = adj[k];
    }
    *dist = depth[far];
    for (int k = 0; k < qt; ++k) depth[queue[k]] = -1, seen[queue[k]] = 1; /* depth ready for the next search */
    return far;
}

/* Longest path (in bodies) of the spanning forest of `edges` tree joints; -1 when out of memory. */
static int forest_longest_path(int n, int edges, const int *ea, const int *eb) {
    int *head = calloc((size_t)n + 1, sizeof *head), *adj = malloc(sizeof *adj * (size_t)(2 * edges + 1));
    int *depth = malloc(sizeof *depth * (size_t)n), *queue = malloc(sizeof *queue * (size_t)n);
    unsigned char *seen = calloc((size_t)n, 1);
    int best = -1;
    if (head && adj && depth && queue && seen) {
        for (int e = 0; e < edges; ++e) head[ea[e] + 1]++, head[eb[e] + 1]++;
        for (int i = 0; i < n; ++i) head[i + 1] += head[i];
        int *fill = queue; /* borrowed as the fill cursor before the searches */
        for (int i = 0; i < n; ++i) fill[i] = head[i];
        for (int e = 0; e < edges; ++e) adj[fill[ea[e]]++] = eb[e], adj[fill[eb[e]]++] = ea[e];
        for (int i = 0; i < n; ++i) depth[i] = -1;
        best = 0;
        for (int i = 0; i < n; ++i) {
            if (seen[i] || head[i] == head[i + 1]) continue;
            int d = 0, u = farthest(i, head, adj, depth, queue, seen, &d);
            farthest(u, head, adj, depth, queue, seen, &d); /* from one end of a longest path to the other */
            if (d + 1 > best) best = d + 1;
        }
    }
    free(head), free(adj), free(depth), free(queue), free(seen);
    return best;
}

ctn_solver ctn__auto_solver(const ctn_world *w) {
    const ctn_topology *t = &w->topo;
    int m = t->joint_count, n = w->body_count;
    if (m == 0 || n == 0) return CTN_SOLVER_GS;
    int *up = malloc(sizeof *up * (size_t)n), *ea = malloc(sizeof *ea * (size_t)m), *eb = malloc(sizeof *eb * (size_t)m);
    ctn_solver pick = CTN_SOLVER_GS;
    if (up && ea && eb) {
        for (int i = 0; i < n; ++i) up[i] = i;
        int edges = 0, outside = 0;
        for (int s = 0; s < m; ++s) {
            const ctn_joint_def *d = &t->defs[s];
            if (is_bounded(d)) {
                outside++;
                continue;
            }
            int a = d->a, b = d->b;
            int da = a >= 0 && (w->props[a].flags & CTN_BODY_FLAG_DYNAMIC), db = b >= 0 && (w->props[b].flags & CTN_BODY_FLAG_DYNAMIC);
            if (!da || !db) continue; /* a joint to the world or a static body: part of the tree's root */
            int ra = uf_find(up, a), rb = uf_find(up, b);
            if (ra == rb) {
                outside++; /* closes a loop */
                continue;
            }
            up[ra] = rb;
            ea[edges] = a, eb[edges] = b, edges++;
        }
        if (4 * outside <= m && forest_longest_path(n, edges, ea, eb) >= CTN_AUTO_MIN_CHAIN) pick = CTN_SOLVER_DIRECT;
    }
    free(up), free(ea), free(eb);
    return pick;
}
