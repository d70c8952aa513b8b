/* Solver layout: colours the joints, sorts them into contiguous colour ranges and carries the warm-start
 * impulses over to the new order. The body -> joint CSR adjacency used by the Jacobi gather, the warm start,
 * the CG operator and the exact solver's forest (Nelson 1998: every body gathers J^T lambda over its own
 * joints) is built from the layout on first need (ctn__topology_adjacency): a chain under the exact solver on
 * the CPU never reads it.
 *
 * All arrays are kept between rebuilds and only grow, so a rebuild every step (the changing contact graph)
 * costs a few linear passes over memory that is already mapped. Every array is grown before anything is
 * written, so a failed rebuild (out of memory) leaves the previous layout intact. */
#include "core/joint_kinds.h"
#include "core/world.h"
#include "core/attach.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void ctn__topology_free(ctn_topology *t) {
    if (t->defs_owned) ctn__free(t->defs), ctn__free(t->extra);
    void *arrays[] = {t->lambda, t->colour_offsets, t->adj_offsets, t->adj, t->split, t->springs,
                      t->spring_adj_offsets, t->spring_adj, t->lambda_prev, t->colour_used};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i) ctn__free(arrays[i]);
    memset(t, 0, sizeof *t);
}

/* Resizes *p (any pointer type) to n elements of `size` bytes; on failure *p is left as it was. */
static int resize(void *p, size_t n, size_t size) {
    if (ctn__mul_overflows(n ? n : 1, size)) return 0; /* Reported as out of memory */
    void *q = ctn__realloc(*(void **)p, (n ? n : 1) * size);
    if (!q) return 0;
    *(void **)p = q;
    return 1;
}

/* The spare of the impulses' double buffer, which the rebuild below also takes for its carry-over: freed while a
 * step keeps the start impulses in its step spare (host/core/divergence.c, CTN_SNAP_SHARED), held again by the
 * next step that forks them or the next rebuild. */
ctn_status ctn__topology_impulse_spare(ctn_world *w) {
    ctn_topology *t = &w->topo;
    if (t->lambda_prev || !t->lambda_capacity) return CTN_OK;
    if (!resize(&t->lambda_prev, t->lambda_capacity, sizeof(float)))
        return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for the divergence snapshot (%d joints)", t->joint_count);
    return CTN_OK;
}

void ctn__topology_impulse_spare_free(ctn_topology *t) {
    ctn__free(t->lambda_prev);
    t->lambda_prev = NULL;
}

static size_t headroom(int need) { return (size_t)need + (size_t)need / 2 + 16; }

/* The colouring's scratch: the two bodies and the colour of each joint (3 ints a joint, COLOUR_SCRATCH), at
 * the start of the impulse array, which is sized for it (reserve: at least 3 floats a joint whatever the row
 * stride). The colour masks (8 bytes a body) go where they fit: the adjacency array where an earlier layout
 * needed one (the build leaves it stale: rebuilt on the next need; 2 entries a body or more in a chain or a
 * tree), else after the scratch, 8-byte aligned (masks_at), else at the start of the impulses' spare when the
 * carry-over reads nothing from it (spare_free: the previous layout had no joints; the step's first write of
 * the impulses lands there anyway, the divergence guard's double buffer, so its pages are no extra), else an
 * array of their own. The spare is read as the array it will be after the build's swap: the current impulses
 * when called before the swap (reserve), with the same capacity. */
#define COLOUR_SCRATCH 3
static size_t masks_at(int m) { return ((size_t)COLOUR_SCRATCH * (size_t)m + 1) & ~(size_t)1; }
static unsigned long long *masks_place(ctn_topology *t, int m, int nb, float *spare, int spare_free) {
    if (t->adj && 2 * (size_t)nb <= (size_t)t->adj_capacity) return (unsigned long long *)(void *)t->adj;
    if (masks_at(m) + 2 * (size_t)nb <= t->lambda_capacity) return (unsigned long long *)(void *)(t->lambda + masks_at(m));
    if (spare_free && spare && 2 * (size_t)nb <= t->lambda_capacity) return (unsigned long long *)(void *)spare;
    return NULL;
}

/* Makes room for m joints of `stride` impulses each, s springs, nb bodies, the spring adjacency's entries and
 * the colour budget. A partial failure only leaves some arrays larger than their recorded capacity. */
static int reserve(ctn_topology *t, int m, int stride, int s, int nb, int sadj, int colours, int w_attach, int spare_free) {
    int per = stride > COLOUR_SCRATCH ? stride : COLOUR_SCRATCH;
    if (m + 1 > t->joint_capacity || (size_t)per * ((size_t)m + 1) > t->lambda_capacity) {
        size_t cap = headroom(m + 1);
        if (ctn__mul_overflows(cap, (size_t)per) || !resize(&t->lambda, per * cap, sizeof(float)) ||
            !resize(&t->lambda_prev, per * cap, sizeof(float)))
            return 0;
        t->joint_capacity = (int)cap;
        t->lambda_capacity = per * cap;
    } else if (!t->lambda_prev && !resize(&t->lambda_prev, t->lambda_capacity, sizeof(float))) { /* freed by a step spare */
        return 0;
    }
    if (nb + 1 > t->body_capacity) {
        size_t cap = headroom(nb + 1);
        if (!resize(&t->spring_adj_offsets, cap, sizeof(int)) || !resize(&t->split, cap, sizeof(float)))
            return 0;
        t->body_capacity = (int)cap;
    }
    if (colours + 2 > t->colour_capacity) {
        if (!resize(&t->colour_offsets, (size_t)colours + 2, sizeof(int))) return 0;
        t->colour_capacity = colours + 2;
    }
    if (s + 1 > t->spring_capacity) {
        if (!resize(&t->springs, headroom(s + 1), sizeof(ctn_joint_def))) return 0;
        t->spring_capacity = (int)headroom(s + 1);
    }
    if (sadj > t->spring_adj_capacity) {
        if (!resize(&t->spring_adj, headroom(sadj), sizeof(int))) return 0;
        t->spring_adj_capacity = (int)headroom(sadj);
    }
    /* the colour masks in an array of their own where the adjacency and the impulses have no room (masks_place;
     * the spare is the present impulse array until the build's swap) */
    if (!masks_place(t, m, nb, t->lambda, spare_free) && nb + 1 > t->colour_used_capacity) {
        if (!resize(&t->colour_used, headroom(nb + 1), sizeof(unsigned long long))) return 0;
        t->colour_used_capacity = (int)headroom(nb + 1);
    }
    /* With attached bodies the layout's definitions differ from the table's (mapped onto the masters): an
     * array of their own, replaced last so that a failure above leaves the previous one in place. Its
     * contents are all rewritten by the build. */
    if (w_attach && (!t->defs_owned || m + 1 > t->defs_capacity)) {
        size_t cap = headroom(m + 1);
        ctn_joint_core *defs = ctn__mul_overflows(cap, sizeof *defs) ? NULL : ctn__malloc(cap * sizeof *defs);
        ctn_joint_extra *extra = defs ? ctn__joint_extra_alloc(cap, NULL, 0) : NULL;
        if (!extra) {
            ctn__free(defs);
            return 0;
        }
        if (t->defs_owned) ctn__free(t->defs), ctn__free(t->extra);
        t->defs = defs;
        t->extra = extra;
        t->defs_owned = 1;
        t->defs_capacity = (int)cap;
    }
    return 1;
}

/* Whether body i (>= 0) is dynamic: read from its flags where the build needs it (no array of its own). */
static inline int body_dynamic(const ctn_props *props, int i) { return (props[i].flags & CTN_BODY_FLAG_DYNAMIC) != 0; }

/* CSR of body -> (index << 1 | side) for n joints, counting only dynamic bodies; entries in increasing index
 * order, so the gathers sum in a fixed order and results are deterministic. Joint s's bodies a, b are the ints
 * ab[s * stride] and ab[s * stride + 1] (the fields a, b of a compact record or of a whole definition).
 * count_adjacency_ab writes the offsets off[nb + 1] and returns the entry count off[nb]; fill_adjacency_ab then
 * writes the entries adj[off[nb]]. */
#define AB_A(s) ab[(size_t)(s) * stride]
#define AB_B(s) ab[(size_t)(s) * stride + 1]
static int count_adjacency_ab(const int *ab, size_t stride, int n, int nb, const ctn_props *props, int *off) {
    memset(off, 0, ((size_t)nb + 1) * sizeof *off);
    for (int s = 0; s < n; ++s) {
        if (body_dynamic(props, AB_A(s))) off[AB_A(s) + 1]++;
        if (AB_B(s) >= 0 && body_dynamic(props, AB_B(s))) off[AB_B(s) + 1]++;
    }
    for (int i = 0; i < nb; ++i) off[i + 1] += off[i];
    return off[nb];
}
static void fill_adjacency_ab(const int *ab, size_t stride, int n, int nb, const ctn_props *props, int *off, int *adj) {
    /* off[b] is body b's fill cursor, which ends at the next body's start: no cursor array; shifted back after */
    for (int s = 0; s < n; ++s) {
        if (body_dynamic(props, AB_A(s))) adj[off[AB_A(s)]++] = s << 1;
        if (AB_B(s) >= 0 && body_dynamic(props, AB_B(s))) adj[off[AB_B(s)]++] = (s << 1) | 1;
    }
    if (nb > 1) memmove(off + 1, off, ((size_t)nb - 1) * sizeof *off);
    if (nb > 0) off[0] = 0;
}
#undef AB_A
#undef AB_B
static void build_adjacency_ab(const int *ab, size_t stride, int n, int nb, const ctn_props *props, int *off, int *adj) {
    count_adjacency_ab(ab, stride, n, nb, props, off);
    fill_adjacency_ab(ab, stride, n, nb, props, off, adj);
}
_Static_assert(offsetof(ctn_joint_core, b) == offsetof(ctn_joint_core, a) + sizeof(int) && offsetof(ctn_joint_def, b) == offsetof(ctn_joint_def, a) + sizeof(int),
               "a joint's bodies a, b are adjacent ints");


/* The world whose layout t is: every layout is a world's own (ctn_world.topo). */
static const ctn_world *world_of(const ctn_topology *t) {
    return (const ctn_world *)(const void *)((const char *)t - offsetof(ctn_world, topo));
}

/* Each body's count of joints on it as a dynamic body (its adjacency list's length), at least 1: counted from
 * the layout's joints, so it needs no adjacency (counts of 2^24 joints a body and more would round). */
const float *ctn__topology_split(ctn_topology *t) {
    if (!t->split_ready) {
        const ctn_props *props = world_of(t)->props;
        float *k = t->split;
        for (int i = 0; i < t->body_count; ++i) k[i] = 0.0f;
        for (int s = 0; s < t->joint_count; ++s) {
            int a = t->defs[s].a, b = t->defs[s].b;
            if (body_dynamic(props, a)) k[a] += 1.0f;
            if (b >= 0 && body_dynamic(props, b)) k[b] += 1.0f;
        }
        for (int i = 0; i < t->body_count; ++i) k[i] = k[i] > 1.0f ? k[i] : 1.0f;
        t->split_ready = 1;
    }
    return t->split;
}

ctn_status ctn__topology_adjacency(ctn_world *w) {
    ctn_topology *t = &w->topo;
    if (t->adj_ready) return CTN_OK;
    int nb = t->body_count, m = t->joint_count;
    if (nb + 1 > t->adj_offsets_capacity) {
        size_t cap = headroom(nb + 1);
        if (!resize(&t->adj_offsets, cap, sizeof(int)))
            return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for the body -> joint adjacency (%d bodies)", nb);
        t->adj_offsets_capacity = (int)cap;
    }
    /* the counts first (the offsets), then the entries into an array of their count */
    const int *ab = &t->defs[0].a;
    size_t stride = sizeof(ctn_joint_core) / sizeof(int);
    int entries = count_adjacency_ab(ab, stride, m, nb, w->props, t->adj_offsets);
    if (entries + 1 > t->adj_capacity) {
        if (!resize(&t->adj, headroom(entries + 1), sizeof(int)))
            return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for the body -> joint adjacency (%d entries)", entries);
        t->adj_capacity = (int)headroom(entries + 1);
    }
    fill_adjacency_ab(ab, stride, m, nb, w->props, t->adj_offsets, t->adj);
    t->adj_ready = 1;
    return CTN_OK;
}

/* Joint slot j as the solver sees it: rows on an attached body rewritten onto its master (host/core/attach.c).
 * Returns 0 for a joint internal to one rigid group of attached bodies, which carries no rows. */
static int solver_def(const ctn_world *w, int j, ctn_joint_def *out) {
    *out = ctn__jdef_get(w, j);
    return w->attach ? ctn__attach_map_def(w, out) : 1;
}

/* Its compact record: in the joint table where no body is attached (no copy), else in *tmp; NULL for a joint
 * without rows. */
static inline const ctn_joint_core *solver_def_ref(const ctn_world *w, int j, ctn_joint_core *tmp) {
    if (!w->attach) return ctn__jcore(w, j);
    ctn_joint_def d;
    if (!solver_def(w, j, &d)) return NULL;
    *tmp = ctn_joint_core_of(d);
    return tmp;
}

/* Permutes the joint table (ctn_world.joint_core, joint_extra, joint_pos, joint_at) so that slot order[s] is
 * stored at position s for s < m, followed by every other slot in increasing order. In place, one cycle of the
 * permutation at a time, through a single definition held aside: no second table, and a layout that did not
 * change (a rebuild with the same joints) moves nothing. */
void ctn__joint_store_in_order(ctn_world *w, const int *order, int m) {
    int n = w->joint_count, *pos = w->joint_pos, *at = w->joint_at;
    ctn_joint_core *defs = w->joint_core;
    ctn_joint_extra *extra = w->joint_extra;
    /* the new position -> slot map; the slots of the layout are marked meanwhile by complementing their
     * (still old) positions */
    for (int s = 0; s < m; ++s) pos[order[s]] = ~pos[order[s]];
    int k = m;
    for (int j = 0; j < n; ++j) {
        if (pos[j] >= 0) at[k++] = j;
        else pos[j] = ~pos[j];
    }
    if (m && at != order) memcpy(at, order, (size_t)m * sizeof *at); /* the layout's order is at's own start (topo.order) */
    /* Position q receives the definition now at from[q] = pos[at[q]]. That map is formed first, in at[] (pos[] takes
     * its new values in the same pass, and at[] is put back from them at the end): each of the three passes reads
     * and writes independent entries, so the memory system serves many at once, where following a cycle through
     * pos[at[p]] waited for two loads from far apart at every move. A cycle is then walked MOVE_AHEAD moves at a
     * time, its positions first, the definitions they read requested together, then moved in the cycle's order
     * (each is read before the move that overwrites it). A chain's colour order (even joints, then odd ones)
     * sends nearly every move far away: 1e6 joints took ~350 ms one move at a time, most of the topology build. */
    int *from = at;
    for (int q = 0; q < n; ++q) {
        int slot = at[q], old = pos[slot];
        pos[slot] = q;
        from[q] = old;
    }
    enum { MOVE_AHEAD = 32 };
    for (int q = 0; q < n; ++q) {
        if (from[q] == q) continue;
        ctn_joint_core held = defs[q];
        ctn_joint_extra held_extra = extra ? extra[q] : ctn_joint_extra_default();
        int to_at[MOVE_AHEAD], from_at[MOVE_AHEAD], p = q, closed = 0;
        while (!closed) {
            int k = 0;
            for (; k < MOVE_AHEAD && !closed; ++k) {
                int src = from[p];
                from[p] = p; /* filled (or about to be) */
                to_at[k] = p, from_at[k] = src;
                closed = src == q;
                p = src;
#if defined(__GNUC__)
                __builtin_prefetch(&defs[src]);
                __builtin_prefetch((const char *)(&defs[src] + 1) - 1);
#endif
            }
            int moves = closed ? k - 1 : k; /* the cycle's last position takes the definition held aside */
            for (int i = 0; i < moves; ++i) {
                defs[to_at[i]] = defs[from_at[i]];
                if (extra) extra[to_at[i]] = extra[from_at[i]];
            }
            if (closed) {
                defs[to_at[k - 1]] = held;
                if (extra) extra[to_at[k - 1]] = held_extra;
            }
        }
    }
    for (int j = 0; j < n; ++j) at[pos[j]] = j;
}

/* The slots below n that are stored at or above n take the positions below n that slots >= n held (there are as
 * many of each), in slot order and position order; the others stay. Where the layout's slots are not kept
 * explicitly (ctn_world.joint_slot_held) its impulses follow (the host's: ctn__sync first), so that a slot's
 * position still names its slot in the layout: a moved slot that was in it takes its row of impulses along, and
 * one that was not, moved into the layout's range, finds a zero row (it starts cold, as it would have). A slot
 * that was in the layout was stored below its count m, so where it moves (n <= its position < m) every position
 * below n is in that range too. */
int ctn__joint_table_truncate(ctn_world *w, int n) {
    int moved = 0;
    for (int j = n; j < w->joint_count && !moved; ++j) moved = w->joint_pos[j] < n;
    if (moved) {
        ctn_topology *t = &w->topo;
        int *pos = w->joint_pos, *at = w->joint_at, m = t->joint_count, ls = t->stride, rows = !w->joint_slot_held;
        if (rows && ctn__sync(w) != CTN_OK) rows = 0, t->joint_count = 0; /* no current impulses: every joint starts cold */
        for (int j = 0, hole = 0; j < n; ++j) {
            int p = pos[j];
            if (p < n) continue;
            while (at[hole] < n) ++hole; /* a position below n held by a slot >= n */
            w->joint_core[hole] = w->joint_core[p];
            if (w->joint_extra) w->joint_extra[hole] = w->joint_extra[p];
            if (rows && hole < m)
                for (int k = 0; k < ls; ++k) t->lambda[(size_t)ls * hole + k] = p < m ? t->lambda[(size_t)ls * p + k] : 0.0f;
            pos[j] = hole, at[hole] = j;
        }
        w->topology_dirty = 1;
    }
    w->joint_count = n;
    return moved;
}

void ctn__topology_stride_floor(ctn_world *w, int floor) {
    w->stride_floor = floor < 0 ? 0 : floor > CTN_MAX_ROWS ? CTN_MAX_ROWS : floor;
    w->topology_dirty = 1;
}

ctn_status ctn__topology_build(ctn_world *w) {
    ctn_topology *t = &w->topo;
    int nb = w->body_count, nj = w->joint_count, budget = w->desc.max_colours;
    int m = 0, ns = 0, sadj = 0, gears = 0, stride = 1, rows = 0;
    for (int j = 0; j < nj; ++j) {
        ctn_joint_core tmp;
        const ctn_joint_core *d = w->joint_alive[j] ? solver_def_ref(w, j, &tmp) : NULL;
        if (!d) continue;
        const ctn_joint_kind *kind = ctn__joint_kind(d->type);
        gears += kind && kind->between_steps; /* joints with a between-steps hook (gears: joint_gear.c) */
        int ends = (w->props[d->a].flags & CTN_BODY_FLAG_DYNAMIC ? 1 : 0) +
                   (d->b >= 0 && (w->props[d->b].flags & CTN_BODY_FLAG_DYNAMIC) ? 1 : 0);
        if (kind && (kind->flags & CTN_JK_FORCE)) ns++, sadj += ends; /* a force element: no rows */
        else m++, stride = d->rows > stride ? d->rows : stride, rows += ctn__jcore(w, j)->rows;
    }
    if (w->stride_floor > stride) stride = w->stride_floor;
    /* the carry-over reads the previous impulses (the spare after the swap below) only where there were some */
    int spare_free = t->joint_count == 0;
    if (!reserve(t, m, stride, ns, nb, sadj + 1, budget, w->attach != NULL, spare_free))
        return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory building the solver layout (%d joints, %d bodies)", m, nb);

    /* keep the previous impulses for the carry-over (by joint id: ctn__joint_layout_slot gives its slot in the previous
     * layout, -1 for every joint not in it, until the table is put in the new order below) */
    int old_count = t->joint_count, old_stride = t->stride;
    float *swap_lambda = t->lambda;
    t->lambda = t->lambda_prev;
    t->lambda_prev = swap_lambda;

    /* The colouring's scratch (bodies and colour of each joint in id order: COLOUR_SCRATCH ints a joint) lives
     * in the impulse array, which is only written once the solver order is known; the joint ids in id order
     * go to the start of the joint table's position -> slot map (ctn__joint_store_in_order rewrites it from
     * the order alone). Every slot's joint id goes to order[] first, then the carried-over impulses are
     * written in slot order over the scratch. */
    _Static_assert(COLOUR_SCRATCH * sizeof(int) == COLOUR_SCRATCH * sizeof(float), "the colouring scratch fits in the impulses");
    int *ids = w->joint_at, *body_a = (int *)(void *)t->lambda, *body_b = body_a + m, *colour = body_b + m;
    m = 0;
    ns = 0;
    for (int j = 0; j < nj; ++j) {
        ctn_joint_core tmp;
        const ctn_joint_core *d = w->joint_alive[j] ? solver_def_ref(w, j, &tmp) : NULL;
        if (!d) continue;
        if (ctn__joint_kind_has(d->type, CTN_JK_FORCE)) {
            ctn_joint_def spring;
            solver_def(w, j, &spring); /* springs are few: whole definitions (their stiffness and damping are extras) */
            t->springs[ns++] = spring;
            continue;
        }
        ids[m] = j;
        /* the colouring sees the dynamic bodies only (-1: none) */
        body_a[m] = body_dynamic(w->props, d->a) ? d->a : -1;
        body_b[m] = d->b >= 0 && body_dynamic(w->props, d->b) ? d->b : -1;
        m++;
    }
    unsigned long long *masks = masks_place(t, m, nb, t->lambda_prev, spare_free);
    if (!masks) masks = t->colour_used;
    t->adj_ready = 0; /* the adjacency array may hold the masks now; it is rebuilt for this layout on first need */
    memset(masks, 0, (size_t)nb * sizeof *masks);
    int used = ctn__colour_joints_into(m, body_a, body_b, NULL, budget, masks, colour);

    /* counting sort by colour (stable: id order inside a colour); the overflow group sorts last */
    int *off = t->colour_offsets;
    memset(off, 0, ((size_t)used + 2) * sizeof *off);
    for (int s = 0; s < m; ++s) off[(colour[s] < budget ? colour[s] : used) + 1]++;
    t->largest_colour = 0;
    for (int c = 0; c <= used; ++c) {
        if (c < used && off[c + 1] > t->largest_colour) t->largest_colour = off[c + 1];
        off[c + 1] += off[c];
    }
    int cursor[CTN_MAX_COLOURS + 2];
    memcpy(cursor, off, ((size_t)used + 1) * sizeof *cursor);
    /* the order goes to the joint table's position -> slot map, which ctn__joint_store_in_order sets to it: through
     * body_a, dead after the colouring, as the ids lie in that map */
    t->order = w->joint_at;
    for (int s = 0; s < m; ++s) body_a[cursor[colour[s] < budget ? colour[s] : used]++] = ids[s];
    if (m) memcpy(t->order, body_a, (size_t)m * sizeof *t->order);
    /* the scratch is dead from here: the impulses overwrite it. Warm start: the impulses of the joints that were
     * in the previous layout, read at their slots there (ctn__joint_layout_slot: the old positions and count, or
     * the map kept since, restored with the impulses by the step undo, divergence.c); every other joint's are
     * zero (a new joint, one inserted into a reused slot, a loaded checkpoint's) */
    for (int slot = 0; slot < m; ++slot) {
        int old = ctn__joint_layout_slot(w, t->order[slot]), k = 0;
        float *to = &t->lambda[(size_t)stride * slot];
        /* from the previous layout's row stride to this one's: the rows both have, the others zero (a row at or
         * past a stride is past its joint's rows, CTN_LAM) */
        if (old >= 0 && old < old_count)
            for (const float *from = &t->lambda_prev[(size_t)old_stride * old]; k < stride && k < old_stride; ++k) to[k] = from[k];
        for (; k < stride; ++k) to[k] = 0.0f;
    }
    ctn__joint_store_in_order(w, t->order, m);
    if (w->attach) {
        for (int slot = 0; slot < m; ++slot) {
            ctn_joint_def d;
            solver_def(w, t->order[slot], &d);
            t->defs[slot] = ctn_joint_core_of(d);
            t->extra[slot] = ctn_joint_extra_of(d);
        }
    } else {
        if (t->defs_owned) ctn__free(t->defs), ctn__free(t->extra);
        /* the extras array goes when no live joint needs it (joint_store.c) */
        ctn__joint_extra_recount(w);
        /* the table's first m entries, now in solver order (a world that never had a joint points at an empty
         * record, so that the layout's arrays are never NULL) */
        static ctn_joint_core no_joints;
        t->defs = w->joint_core ? w->joint_core : &no_joints;
        t->extra = w->joint_extra;
        t->defs_owned = 0;
        t->defs_capacity = 0;
    }
    t->row_count = rows;
    t->colour_count = used;
    t->joint_count = m;
    t->stride = stride;
    t->spring_count = ns;
    t->gear_count = gears;
    t->body_count = nb;
    if (ns) build_adjacency_ab(&t->springs[0].a, sizeof(ctn_joint_def) / sizeof(int), ns, nb, w->props, t->spring_adj_offsets, t->spring_adj); /* else not read (world.h) */
    t->split_ready = 0; /* the mass-splitting factors, on first use (ctn__topology_split) */
    w->joint_slot_held = 0; /* the table is in solver order: a joint's slot is its position below m */
    w->topology_dirty = 0;
    w->topology_version++;
    return CTN_OK;
}
