/* Exact solver for forests (trees) of joints on the device (the tree half of `direct` on OpenCL).
 *
 * Scope: every joint bilateral (no contacts, hinge limits or motors, ropes; springs are forces and take
 * no part), the joints between dynamic bodies without loops, any number of joints to the world or to
 * static/kinematic bodies (as long as no body holds more than CTN_DD_MAX_ATTACHED such rows, counting the
 * joints above grounded subtrees). Anything else is refused with CTN_ERR_UNSUPPORTED naming the joint
 * and why. host/opencl_direct.c sends here every layout that is not a set of chains, and chains too on
 * CPU devices (desc.debug.direct_tree = 0 / 1 overrides).
 *
 * Symbolic phase (once per topology_version, host). The elimination tree of the CPU direct solver
 * (ctn__direct_symbolic, host/solver_direct.c: body nodes, joint nodes, supernodes holding the rows of
 * joints to the world and of joints above grounded subtrees, children before parents) gets
 *   - segments: maximal paths j1, b2, j2, ..., bk, jk of one-child nodes (joint nodes and body nodes
 *     without attached rows: a chain hanging inside the tree) of at least `segment_min` joints. Each is
 *     contracted by block cyclic reduction (kernels/catena.cl, ctn_k_seg_*): the segment bodies are
 *     eliminated into the block-tridiagonal joint system of the chain path, reduced in ceil(log2 k)
 *     launches to its top joint jk, whose pivot is then the Schur complement of the whole path;
 *   - levels of the contracted tree: level(i) = 0 for a leaf, 1 + max over children c of level(c), a
 *     segment counting as one node of level level(b1) + 1 (b1: the node under j1). Nodes of one level
 *     depend only on earlier levels; they are listed level by level (lv_nodes), with a child CSR so
 *     each node gathers its children's contributions itself (no atomics, sums in the CPU's order);
 *   - bands: runs of consecutive narrow levels (at most `band` nodes, no segments) are one launch of a
 *     single work-item that walks their nodes in order.
 * GPUs contract paths of >= 16 joints and band only single-node levels; CPU devices (PoCL) contract
 * nothing and band levels of up to 16 nodes, because there one core walking a path beats cyclic
 * reduction (which does ~3x the flops) and launches cost more than nodes. desc.debug.tree_segment and
 * .tree_band override the two thresholds; desc.debug.trace logs the schedule.
 *
 * Per substep (after the warm start), leaves first: per wide level or band one ctn_k_tree_factor launch
 * (node pivot H_ii, its right-hand side r = target - J v - S lambda, the children's Schur contributions,
 * D_i^-1 and u_i = D_i^-1 b_i), and for a level with segments the path build, log2 reductions and the
 * tops' pivots; then from the roots per level one ctn_k_tree_back launch (x_i = u_i - D_i^-1 H_ip x_p,
 * v += dv, lambda -= y) and for segments the roots, log2 back-substitutions and the update; then the
 * residual launch of the chain path. Launches per substep:
 *     1 + sum over launches of the schedule (2 per band or segment-free level, 2 + 2 ceil(log2 k) + 4 per
 *     level with segments, k its longest path),
 * e.g. (measured, desc.debug.trace) tree:100000 (binary, height 17): 33 levels, 67 launches on a GPU;
 * a 100000-link chain with a 100-link side branch: 5 levels, 3 contracted paths, 81 launches on a GPU
 * (3 on PoCL, one band). Without contraction that GPU schedule would be 2 x 200199 launches. Double
 * precision throughout (cl_khr_fp64, checked by host/opencl_direct.c before it gets here). */
#include "opencl/opencl_internal.h"
#include "solve/direct_internal.h"
#include "ctn_direct.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TK_FACTOR, TK_BACK, TK_SEG_BUILD, TK_SEG_REDUCE, TK_SEG_FINISH, TK_SEG_ROOT, TK_SEG_BACK, TK_SEG_APPLY, TK_COUNT };
static const char *const tree_names[TK_COUNT] = {"ctn_k_tree_factor", "ctn_k_tree_back", "ctn_k_seg_build", "ctn_k_seg_reduce",
                                                 "ctn_k_seg_finish", "ctn_k_seg_root", "ctn_k_seg_back", "ctn_k_seg_apply"};

/* Narrow levels merged into one serial launch: on a CPU device a node costs a few microseconds against
 * tens for a launch, on a GPU one thread's serial work is slow, so only single-node levels are merged.
 * Paths of at least `segment_min` joints are contracted by cyclic reduction (0: never). On a CPU device
 * (PoCL) serial bands beat cyclic reduction (measured: chain:100000, 522 ms against 1701 ms of solve per
 * step), so paths are contracted on GPUs only by default. desc.debug.tree_band and .tree_segment
 * override both. */
#define BAND_WIDTH_CPU 16
#define BAND_WIDTH_GPU 1
#define SEGMENT_MIN_GPU 16

/* Position record of a contracted path (CTN_SP_* in kernels/catena.cl). */
enum { SP_SLOT, SP_NODE, SP_DOWN, SP_B1, SP_TOP, SP_INTS };

typedef struct tree_launch {
    int begin, end_factor, end_back; /* ranges of lv_nodes: regular nodes, then segment tops (back only) */
    int serial;                      /* a band of narrow levels, one work-item */
    int group;                       /* segments contracted at this level, -1 for none */
} tree_launch;

typedef struct seg_group {
    int pbase, npos, pmax; /* positions [pbase, pbase + npos), longest padded segment */
    int sbase, nseg;       /* segments [sbase, sbase + nseg) of segs */
} seg_group;

typedef struct ocl_tree {
    cl_kernel kernel[TK_COUNT];
    unsigned version;
    int valid;
    int nodes, launches, groups, segments, nb; /* nb: rows of the largest contracted joint */
    int levels;                                /* levels of the contracted elimination tree */
    int launches_per_substep;
    int local_one; /* CPU devices: work-groups of one item (see tenqueue) */
    tree_launch *launch;
    seg_group *group;
    ctn_clbuf lv_nodes, node, child, att, slot_info, mat, u, x;
    ctn_clbuf pos, segs, sD, sL, sU, sb, sx;   /* contracted paths (cyclic reduction) */
} ocl_tree;

static ctn_status unsupported(ctn_world *w, const char *why) {
    return ctn__fail(w, CTN_ERR_UNSUPPORTED,
                     "desc.solver: the direct solver on the OpenCL backend handles chains and trees of bilateral joints only: %s "
                     "(use the CPU backend for direct, or gs, jacobi or cg with OpenCL)", why);
}

/* The rows the forest path eliminates: the type's rows (kernels/ctn_rows.h), none for contacts. */
static int rows_of_type(int type) { return type == CTN_JT_CONTACT ? 0 : ctn_joint_row_count(type); }

static int dynamic_body(const ctn_world *w, int body) {
    return body >= 0 && body < w->topo.body_count && (w->props[body].flags & CTN_BODY_FLAG_DYNAMIC) != 0;
}

static ctn_status upload(ctn_world *w, ctn_ocl *o, ctn_clbuf *b, const void *data, size_t size, const char *what) {
    TRY(ctn__ocl_reserve(w, o, b, size ? size : sizeof(int), NULL));
    if (!size) return CTN_OK;
    cl_int e = clEnqueueWriteBuffer(o->queue, b->mem, CL_TRUE, 0, size, data, 0, NULL, NULL);
    if (e != CL_SUCCESS) return ctn__fail(w, CTN_ERR_DEVICE, "uploading %s (%zu bytes): %s", what, size, ctn__cl_error_name(e));
    return CTN_OK;
}

/* Refuses what the forest path cannot solve; names the first such joint. */
static ctn_status check_joints(ctn_world *w, const direct_state *s) {
    const ctn_topology *t = &w->topo;
    char why[200];
    for (int slot = 0; slot < t->joint_count; ++slot) {
        const ctn_joint_def *d = &t->defs[slot];
        if (d->type == CTN_JT_CONTACT) {
            snprintf(why, sizeof why, "joint %d is a contact (unilateral rows)", t->order[slot]);
            return unsupported(w, why);
        }
        if (d->flags & (CTN_JF_LIMIT | CTN_JF_MOTOR | CTN_JF_ROPE | CTN_JF_SWING)) {
            snprintf(why, sizeof why, "joint %d has a limit, motor or rope (bounded rows)", t->order[slot]);
            return unsupported(w, why);
        }
    }
    for (int k = 0; k < s->extra_count; ++k) {
        int slot = s->extra[k];
        const ctn_joint_def *d = &t->defs[slot];
        if (rows_of_type(d->type) == 0) continue; /* a spring: a force, no rows */
        int da = dynamic_body(w, d->a), db = dynamic_body(w, d->b), partial = -1;
        for (int e = 0; e < 2; ++e) {
            int b = e ? d->b : d->a;
            if (!dynamic_body(w, b) || (w->props[b].flags & CTN_BODY_FLAG_PARTICLE)) continue;
            ctn_v3 ii = w->props[b].inv_inertia_body;
            int zero = (ii.x == 0.0f) + (ii.y == 0.0f) + (ii.z == 0.0f);
            if (zero == 1 || zero == 2) partial = b;
        }
        if (da && db && d->a == d->b)
            snprintf(why, sizeof why, "joint %d joins body %d to itself", t->order[slot], d->a);
        else if (partial >= 0)
            snprintf(why, sizeof why, "joint %d is on body %d, whose inverse inertia is partly zero", t->order[slot], partial);
        else if (da && db)
            snprintf(why, sizeof why, "joint %d closes a loop of joints (or joins a grounded branch to a body already holding %d attached rows)",
                     t->order[slot], CTN_DD_MAX_ATTACHED);
        else
            snprintf(why, sizeof why, "joint %d would put more than %d rows of joints to the world or to grounded branches on one body",
                     t->order[slot], CTN_DD_MAX_ATTACHED);
        return unsupported(w, why);
    }
    return CTN_OK;
}

static ctn_status create_kernels(ctn_world *w, ctn_ocl *o, ocl_tree *tr) {
    for (int k = 0; k < TK_COUNT; ++k) {
        if (tr->kernel[k]) continue;
        cl_int e;
        tr->kernel[k] = clCreateKernel(o->program, tree_names[k], &e);
        if (e != CL_SUCCESS) {
            tr->kernel[k] = NULL;
            return ctn__fail(w, CTN_ERR_UNSUPPORTED, "desc.solver: direct on OpenCL: clCreateKernel(%s): %s", tree_names[k],
                             ctn__cl_error_name(e));
        }
    }
    return CTN_OK;
}

/* A debug option (ctn_debug_options), or the automatic value when it is -1. */
static int knob(int value, int automatic) { return value >= 0 ? value : automatic; }

static int ceil_pow2(int n) {
    int p = 1;
    while (p < n) p *= 2;
    return p;
}

/* Levels, launch schedule, node records and CSRs of the elimination tree s, uploaded to the device.
 * Segments: maximal paths j1, b2, j2, ..., bk, jk of one-child nodes (joint nodes and body nodes without
 * attached rows); with k >= segment_min joints they leave the level lists and become one unit of level
 * level(b1) + 1 (b1: the child of j1), so a long path adds one level, not 2k. */
static ctn_status build_schedule(ctn_world *w, ctn_ocl *o, ocl_tree *tr, const direct_state *s) {
    const ctn_topology *t = &w->topo;
    int n = s->node_count, m = t->joint_count;
    size_t n1 = (size_t)n + 1;
    int *level = ctn__calloc(n1, sizeof *level), *lv_off = NULL, *lv_nodes = ctn__malloc(n1 * sizeof *lv_nodes);
    int *rec = ctn__malloc(n1 * CTN_TN_INTS * sizeof *rec), *nchild = ctn__calloc(n1, sizeof *nchild);
    int *child = ctn__malloc(n1 * sizeof *child), *slot_info = ctn__calloc(((size_t)m + 1) * CTN_TS_INTS, sizeof *slot_info);
    int *seg = ctn__malloc(n1 * sizeof *seg), *seg_b1 = ctn__malloc(n1 * sizeof *seg_b1), *seg_top = ctn__malloc(n1 * sizeof *seg_top);
    int *seg_len = ctn__malloc(n1 * sizeof *seg_len), *lv_nseg = NULL, *lv_ntop = NULL, *pos = NULL, *segs = NULL, *order = NULL;
    tree_launch *launch = NULL;
    seg_group *group = NULL;
    ctn_status st = CTN_OK;
    if (!level || !lv_nodes || !rec || !nchild || !child || !slot_info || !seg || !seg_b1 || !seg_top || !seg_len) goto oom;
    cl_device_type type = 0;
    clGetDeviceInfo(o->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    int gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    int band = knob(w->desc.debug.tree_band, gpu ? BAND_WIDTH_GPU : BAND_WIDTH_CPU);
    int segment_min = knob(w->desc.debug.tree_segment, gpu ? SEGMENT_MIN_GPU : 0);

    /* child CSR in node order (the CPU's summation order) */
    for (int i = 0; i < n; ++i)
        if (s->parent[i] >= 0) nchild[s->parent[i]]++;
    int off = 0;
    for (int i = 0; i < n; ++i) {
        int c = nchild[i];
        rec[CTN_TN_INTS * i + CTN_TN_CHILD] = off;
        rec[CTN_TN_INTS * i + CTN_TN_NCHILD] = c;
        nchild[i] = off; /* fill pointer */
        off += c;
    }
    for (int i = 0; i < n; ++i)
        if (s->parent[i] >= 0) child[nchild[s->parent[i]]++] = i;
    for (int i = 0; i < n; ++i) nchild[i] = rec[CTN_TN_INTS * i + CTN_TN_NCHILD];

    /* segments, found from their bottom joint j1 upwards */
    int nseg = 0, nb = 1;
    for (int i = 0; i < n; ++i) seg[i] = -1;
#define PATH_BODY(b) (s->kind[b] == NODE_BODY && nchild[b] == 1 && s->att_off[(b) + 1] == s->att_off[b] && s->parent[b] >= 0 && \
                      s->kind[s->parent[b]] == NODE_JOINT)
    for (int j = 0; segment_min > 0 && j < n; ++j) {
        if (s->kind[j] != NODE_JOINT || nchild[j] != 1) continue;
        int b1 = child[rec[CTN_TN_INTS * j + CTN_TN_CHILD]];
        if (PATH_BODY(b1)) continue; /* not the bottom of its path */
        int k = 1, top = j;
        while (s->parent[top] >= 0 && PATH_BODY(s->parent[top])) {
            top = s->parent[s->parent[top]];
            ++k;
        }
        if (k < segment_min) continue;
        seg_b1[nseg] = b1, seg_top[nseg] = top, seg_len[nseg] = k;
        for (int v = j;; v = s->parent[v]) {
            seg[v] = nseg;
            if (s->kind[v] == NODE_JOINT && rows_of_type(t->defs[s->id[v]].type) > nb) nb = rows_of_type(t->defs[s->id[v]].type);
            if (v == top) break;
        }
        ++nseg;
    }
#undef PATH_BODY
    /* levels of the contracted tree: level(i) = 1 + max over children; a segment's nodes share level(b1) + 1 */
    int levels = n > 0 ? 1 : 0;
    for (int i = 0; i < n; ++i) { /* children come before parents */
        if (seg[i] >= 0) level[i] = level[seg_b1[seg[i]]] + 1;
        int p = s->parent[i];
        if (p >= 0 && !(seg[p] >= 0 && seg[p] == seg[i]) && level[p] < level[i] + 1) level[p] = level[i] + 1;
        if (level[i] + 1 > levels) levels = level[i] + 1;
    }
    lv_off = ctn__calloc((size_t)levels + 2, sizeof *lv_off);
    lv_nseg = ctn__calloc((size_t)levels + 1, sizeof *lv_nseg);
    lv_ntop = ctn__calloc((size_t)levels + 1, sizeof *lv_ntop);
    launch = ctn__malloc(((size_t)levels + 1) * sizeof *launch);
    group = ctn__malloc(((size_t)levels + 1) * sizeof *group);
    if (!lv_off || !lv_nseg || !lv_ntop || !launch || !group) goto oom;
    /* lv_nodes per level: regular nodes, then the tops of the level's segments */
    for (int i = 0; i < n; ++i) {
        if (seg[i] < 0 || seg_top[seg[i]] == i) lv_off[level[i] + 1]++;
        if (seg[i] >= 0 && seg_top[seg[i]] == i) lv_ntop[level[i]]++, lv_nseg[level[i]]++;
    }
    for (int l = 0; l < levels; ++l) lv_off[l + 1] += lv_off[l];
    {
        int *fill = ctn__malloc(((size_t)levels + 1) * 2 * sizeof *fill);
        if (!fill) goto oom;
        for (int l = 0; l < levels; ++l) fill[2 * l] = lv_off[l], fill[2 * l + 1] = lv_off[l + 1] - lv_ntop[l];
        for (int i = 0; i < n; ++i) {
            if (seg[i] < 0) lv_nodes[fill[2 * level[i]]++] = i;
            else if (seg_top[seg[i]] == i) lv_nodes[fill[2 * level[i] + 1]++] = i;
        }
        ctn__free(fill);
    }
    /* positions: per level, its segments by padded length (descending), each aligned to that length */
    order = ctn__malloc(((size_t)nseg + 1) * sizeof *order);
    segs = ctn__malloc(((size_t)nseg + 1) * 2 * sizeof *segs);
    if (!order || !segs) goto oom;
    for (int k = 0; k < nseg; ++k) order[k] = k;
    /* sort segment ids by (level, padded length descending): insertion into buckets per level */
    {
        int *lvl_first = ctn__calloc((size_t)levels + 1, sizeof *lvl_first), *tmp = ctn__calloc((size_t)nseg + 1, sizeof *tmp); /* calloc: GCC 13 -Wmaybe-uninitialized */
        if (!lvl_first || !tmp) {
            ctn__free(lvl_first), ctn__free(tmp);
            goto oom;
        }
        for (int k = 0; k < nseg; ++k) lvl_first[level[seg_top[k]] + 1]++;
        for (int l = 0; l < levels; ++l) lvl_first[l + 1] += lvl_first[l];
        for (int k = 0; k < nseg; ++k) tmp[lvl_first[level[seg_top[k]]]++] = k;
        for (int l = levels; l > 0; --l) lvl_first[l] = lvl_first[l - 1];
        lvl_first[0] = 0;
        for (int l = 0; l < levels; ++l) { /* insertion sort inside the level (few segments per level) */
            int a = lvl_first[l], b = lvl_first[l + 1];
            for (int x = a + 1; x < b; ++x) {
                int v = tmp[x], y = x;
                while (y > a && ceil_pow2(seg_len[tmp[y - 1]]) < ceil_pow2(seg_len[v])) tmp[y] = tmp[y - 1], --y;
                tmp[y] = v;
            }
        }
        memcpy(order, tmp, (size_t)nseg * sizeof *order);
        ctn__free(lvl_first), ctn__free(tmp);
    }
    size_t npos_total = 0;
    for (int k = 0; k < nseg; ++k) npos_total += (size_t)ceil_pow2(seg_len[k]);
    if (npos_total > (size_t)0x3fffffff) {
        st = ctn__fail(w, CTN_ERR_LIMIT, "direct solver on OpenCL: %zu path positions are too many", npos_total);
        goto done;
    }
    pos = ctn__malloc((npos_total + 1) * SP_INTS * sizeof *pos);
    if (!pos) goto oom;
    int ng = 0, pcur = 0;
    for (int q = 0; q < nseg;) {
        int l = level[seg_top[order[q]]];
        seg_group *g = &group[ng];
        g->pbase = pcur, g->sbase = q, g->pmax = ceil_pow2(seg_len[order[q]]);
        for (; q < nseg && level[seg_top[order[q]]] == l; ++q) {
            int k = order[q], P = ceil_pow2(seg_len[k]), at = pcur;
            segs[2 * q] = at; /* top position */
            segs[2 * q + 1] = seg_top[k];
            /* positions top (0) down: jk, j_{k-1}, ..., j1; the body below each is its child */
            int v = seg_top[k];
            for (int p = 0; p < P; ++p) {
                int *r = pos + SP_INTS * (size_t)(at + p);
                if (p >= seg_len[k]) {
                    r[SP_SLOT] = -1, r[SP_NODE] = 0, r[SP_DOWN] = -1, r[SP_B1] = -1, r[SP_TOP] = 0;
                    continue;
                }
                int below = child[rec[CTN_TN_INTS * v + CTN_TN_CHILD]]; /* body node under joint v */
                r[SP_SLOT] = s->id[v];
                r[SP_NODE] = v;
                r[SP_DOWN] = s->id[below];
                r[SP_B1] = p == seg_len[k] - 1 ? below : -1;
                r[SP_TOP] = p == 0;
                if (p < seg_len[k] - 1) v = child[rec[CTN_TN_INTS * below + CTN_TN_CHILD]];
            }
            pcur += P;
        }
        g->npos = pcur - g->pbase;
        g->nseg = q - g->sbase;
        ++ng;
    }
    /* node records */
    for (int i = 0; i < n; ++i) {
        int *r = rec + CTN_TN_INTS * i;
        if (s->mat_off[i] > (size_t)0x7fffffff || s->vec_off[i] > (size_t)0x7fffffff) {
            st = ctn__fail(w, CTN_ERR_LIMIT, "direct solver on OpenCL: the factor of %d nodes exceeds 2^31 doubles", n);
            goto done;
        }
        r[CTN_TN_KIND] = s->kind[i] == NODE_JOINT ? 1 : 0;
        r[CTN_TN_DOF] = s->dof[i];
        r[CTN_TN_SIZE] = s->size[i];
        r[CTN_TN_SIDE] = s->side[i];
        r[CTN_TN_ID] = s->id[i];
        r[CTN_TN_PARENT] = s->parent[i];
        r[CTN_TN_PSLOT] = s->pslot[i];
        r[CTN_TN_PROW] = s->prow[i];
        r[CTN_TN_MAT] = (int)s->mat_off[i];
        r[CTN_TN_VEC] = (int)s->vec_off[i];
        r[CTN_TN_ATT] = s->att_off[i];
        r[CTN_TN_NATT] = s->att_off[i + 1] - s->att_off[i];
    }
    for (int slot = 0; slot < m; ++slot) {
        int *si = slot_info + CTN_TS_INTS * slot;
        si[CTN_TS_ROW] = s->slot_row[slot];
        si[CTN_TS_SIDE] = s->slot_side[slot];
        si[CTN_TS_ROWS] = rows_of_type(t->defs[slot].type);
    }
    /* launches: a level with segments alone (regular nodes, then its group), each other wide level alone,
     * each run of narrow levels as one serial band */
    int nl = 0, gi = 0, lps = 1; /* launches per substep: the residual */
    for (int l = 0; l < levels;) {
        int width = lv_off[l + 1] - lv_off[l] - lv_ntop[l];
        if (lv_nseg[l] > 0 || width > band) {
            tree_launch *L = &launch[nl++];
            L->begin = lv_off[l], L->end_factor = lv_off[l + 1] - lv_ntop[l], L->end_back = lv_off[l + 1], L->serial = 0;
            L->group = lv_nseg[l] > 0 ? gi++ : -1;
            lps += (L->end_factor > L->begin) + 1;
            if (L->group >= 0) {
                int lg = 0;
                while ((1 << lg) < group[L->group].pmax) ++lg;
                lps += 2 * lg + 4;
            }
            ++l;
            continue;
        }
        int l1 = l;
        while (l1 < levels && lv_nseg[l1] == 0 && lv_off[l1 + 1] - lv_off[l1] <= band) ++l1;
        tree_launch *L = &launch[nl++];
        L->begin = lv_off[l], L->end_factor = L->end_back = lv_off[l1], L->serial = 1, L->group = -1;
        lps += 2;
        l = l1;
    }
    size_t vec = s->vec_off[n], mat = s->mat_off[n];
    st = upload(w, o, &tr->lv_nodes, lv_nodes, (size_t)(n ? lv_off[levels] : 0) * sizeof *lv_nodes, "the tree levels");
    if (st == CTN_OK) st = upload(w, o, &tr->node, rec, (size_t)n * CTN_TN_INTS * sizeof *rec, "the tree nodes");
    if (st == CTN_OK) st = upload(w, o, &tr->child, child, (size_t)off * sizeof *child, "the tree children");
    if (st == CTN_OK) st = upload(w, o, &tr->att, s->att, (size_t)s->att_off[n] * sizeof *s->att, "the attached joints");
    if (st == CTN_OK) st = upload(w, o, &tr->slot_info, slot_info, (size_t)m * CTN_TS_INTS * sizeof *slot_info, "the joint rows");
    if (st == CTN_OK) st = upload(w, o, &tr->pos, pos, npos_total * SP_INTS * sizeof *pos, "the path positions");
    if (st == CTN_OK) st = upload(w, o, &tr->segs, segs, (size_t)nseg * 2 * sizeof *segs, "the path tops");
    if (st == CTN_OK) st = ctn__ocl_reserve(w, o, &tr->mat, (mat + 1) * sizeof(double), NULL);
    if (st == CTN_OK) st = ctn__ocl_reserve(w, o, &tr->u, (vec + 1) * sizeof(double), NULL);
    if (st == CTN_OK) st = ctn__ocl_reserve(w, o, &tr->x, (vec + 1) * sizeof(double), NULL);
    if (st == CTN_OK) st = ctn__ocl_reserve(w, o, &tr->sD, (npos_total + 1) * 36 * sizeof(double), NULL);
    if (st == CTN_OK) st = ctn__ocl_reserve(w, o, &tr->sL, (npos_total + 1) * 36 * sizeof(double), NULL);
    if (st == CTN_OK) st = ctn__ocl_reserve(w, o, &tr->sU, (npos_total + 1) * 36 * sizeof(double), NULL);
    if (st == CTN_OK) st = ctn__ocl_reserve(w, o, &tr->sb, (npos_total + 1) * 6 * sizeof(double), NULL);
    if (st == CTN_OK) st = ctn__ocl_reserve(w, o, &tr->sx, (npos_total + 1) * 6 * sizeof(double), NULL);
    if (st != CTN_OK) goto done;
    ctn__free(tr->launch), ctn__free(tr->group);
    tr->launch = launch, tr->group = group;
    launch = NULL, group = NULL;
    tr->launches = nl;
    tr->groups = ng;
    tr->segments = nseg;
    tr->nb = nb;
    tr->levels = levels;
    tr->nodes = n;
    tr->launches_per_substep = lps;
    tr->local_one = knob(w->desc.debug.tree_local_one, !gpu);
    goto done;
oom:
    st = ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory scheduling the joint tree for the direct solver");
done:
    ctn__free(level), ctn__free(lv_off), ctn__free(lv_nodes), ctn__free(rec), ctn__free(nchild), ctn__free(child), ctn__free(slot_info), ctn__free(launch), ctn__free(group);
    ctn__free(seg), ctn__free(seg_b1), ctn__free(seg_top), ctn__free(seg_len), ctn__free(lv_nseg), ctn__free(lv_ntop), ctn__free(pos), ctn__free(segs), ctn__free(order);
    return st;
}

ctn_status ctn__ocl_tree_prepare(ctn_world *w, ctn_ocl *o) {
    ocl_tree *tr = o->tree;
    if (!tr) {
        tr = ctn__calloc(1, sizeof *tr);
        if (!tr) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for the tree direct solver");
        o->tree = tr;
    }
    TRY(create_kernels(w, o, tr));
    if (tr->valid && tr->version == w->topology_version) return CTN_OK;
    tr->valid = 0;
    direct_state s;
    memset(&s, 0, sizeof s);
    if (!ctn__direct_symbolic(w, &s)) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory ordering the joint tree for the direct solver");
    ctn_status st = check_joints(w, &s);
    if (st == CTN_OK) st = build_schedule(w, o, tr, &s);
    ctn__direct_symbolic_free(&s);
    TRY(st);
    tr->version = w->topology_version;
    tr->valid = 1;
    if (w->desc.debug.trace)
        ctn__log(w, CTN_LOG_DEBUG, "direct (OpenCL forest): %d nodes, %d levels, %d contracted paths, %d launches per substep", tr->nodes,
                 tr->levels, tr->segments, tr->launches_per_substep);
    return CTN_OK;
}

static ctn_status targ(ctn_world *w, ocl_tree *tr, int k, cl_uint i, size_t size, const void *value) {
    cl_int e = clSetKernelArg(tr->kernel[k], i, size, value);
    if (e == CL_SUCCESS) return CTN_OK;
    return ctn__fail(w, CTN_ERR_DEVICE, "clSetKernelArg(%s, %u): %s", tree_names[k], (unsigned)i, ctn__cl_error_name(e));
}
#define TARG(k, i, v) TRY(targ(w, tr, (k), (i), sizeof(v), &(v)))

/* On CPU devices the kernels run in work-groups of one item: PoCL's private memory of a work-group is
 * sized for the group and these kernels keep tens of kB of private arrays per item (the dense node
 * inverse), which overflowed it with larger automatic groups (measured: PoCL 3.x crashed in
 * ctn_k_seg_* at 8192 positions). One-item groups cost nothing measurable there (tree:10000). */
static ctn_status tenqueue(ctn_world *w, ctn_ocl *o, ocl_tree *tr, int k, size_t items, const char *what) {
    if (items == 0) return CTN_OK;
    cl_event ev = NULL;
    size_t one = 1;
    cl_int e = clEnqueueNDRangeKernel(o->queue, tr->kernel[k], 1, NULL, &items, tr->local_one ? &one : NULL, 0, NULL,
                                      o->profiling && o->phase >= 0 ? &ev : NULL);
    if (e != CL_SUCCESS) return ctn__fail(w, CTN_ERR_DEVICE, "%s (%s): %s", what, tree_names[k], ctn__cl_error_name(e));
    ctn__ocl_note_event(o, ev);
    o->step_launches++;
    return CTN_OK;
}

static ctn_status tlaunch(ctn_world *w, ctn_ocl *o, ocl_tree *tr, int k, int begin, int end, int serial, const char *what) {
    if (end <= begin) return CTN_OK;
    TARG(k, 0, begin);
    TARG(k, 1, end);
    TARG(k, 2, serial);
    return tenqueue(w, o, tr, k, serial ? 1 : (size_t)(end - begin), what);
}

/* Cyclic reduction of the paths of group g down to their tops, then the tops' pivots and u. */
static ctn_status group_factor(ctn_world *w, ctn_ocl *o, ocl_tree *tr, const seg_group *g) {
    int k = TK_SEG_BUILD;
    TARG(k, 0, g->pbase);
    TARG(k, 1, g->npos);
    TRY(tenqueue(w, o, tr, k, (size_t)g->npos, "direct solver: path build"));
    k = TK_SEG_REDUCE;
    TARG(k, 0, g->pbase);
    TARG(k, 1, g->npos);
    for (int st = 1; st < g->pmax; st *= 2) {
        TARG(k, 2, st);
        TRY(tenqueue(w, o, tr, k, ((size_t)g->npos + 2 * (size_t)st - 1) / (2 * (size_t)st), "direct solver: path cyclic reduction"));
    }
    k = TK_SEG_FINISH;
    int first = g->sbase;
    TARG(k, 0, g->nseg);
    TARG(k, 1, first);
    return tenqueue(w, o, tr, k, (size_t)g->nseg, "direct solver: path tops");
}

static ctn_status group_back(ctn_world *w, ctn_ocl *o, ocl_tree *tr, const seg_group *g) {
    int k = TK_SEG_ROOT;
    TARG(k, 0, g->nseg);
    TARG(k, 1, g->sbase);
    TRY(tenqueue(w, o, tr, k, (size_t)g->nseg, "direct solver: path roots"));
    k = TK_SEG_BACK;
    TARG(k, 0, g->pbase);
    TARG(k, 1, g->npos);
    for (int st = g->pmax / 2; st >= 1; st /= 2) {
        TARG(k, 2, st);
        TRY(tenqueue(w, o, tr, k, ((size_t)g->npos + st) / (2 * (size_t)st), "direct solver: path back-substitution"));
    }
    k = TK_SEG_APPLY;
    TARG(k, 0, g->pbase);
    TARG(k, 1, g->npos);
    return tenqueue(w, o, tr, k, (size_t)g->npos, "direct solver: path update");
}

ctn_status ctn__ocl_tree_solve(ctn_world *w, ctn_ocl *o) {
    ocl_tree *tr = o->tree;
    if (!tr || !tr->valid || tr->nodes == 0) return CTN_OK;
    int k = TK_FACTOR;
    TARG(k, 3, tr->lv_nodes.mem);
    TARG(k, 4, tr->node.mem);
    TARG(k, 5, tr->child.mem);
    TARG(k, 6, tr->att.mem);
    TARG(k, 7, tr->slot_info.mem);
    TARG(k, 8, o->defs.mem);
    TARG(k, 9, o->blocks.mem);
    TARG(k, 10, o->vel.mem);
    TARG(k, 11, o->inertia.mem);
    TARG(k, 12, o->lambda.mem);
    TARG(k, 13, tr->mat.mem);
    TARG(k, 14, tr->u.mem);
    k = TK_BACK;
    TARG(k, 3, tr->lv_nodes.mem);
    TARG(k, 4, tr->node.mem);
    TARG(k, 5, tr->att.mem);
    TARG(k, 6, tr->slot_info.mem);
    TARG(k, 7, o->blocks.mem);
    TARG(k, 8, tr->mat.mem);
    TARG(k, 9, tr->u.mem);
    TARG(k, 10, tr->x.mem);
    TARG(k, 11, o->vel.mem);
    TARG(k, 12, o->lambda.mem);
    if (tr->groups > 0) {
        k = TK_SEG_BUILD; /* base, n, nb, pos, node, defs, blocks, vel, inertia, lambda, mat, u, D, L, U, b */
        TARG(k, 2, tr->nb);
        TARG(k, 3, tr->pos.mem);
        TARG(k, 4, tr->node.mem);
        TARG(k, 5, o->defs.mem);
        TARG(k, 6, o->blocks.mem);
        TARG(k, 7, o->vel.mem);
        TARG(k, 8, o->inertia.mem);
        TARG(k, 9, o->lambda.mem);
        TARG(k, 10, tr->mat.mem);
        TARG(k, 11, tr->u.mem);
        TARG(k, 12, tr->sD.mem);
        TARG(k, 13, tr->sL.mem);
        TARG(k, 14, tr->sU.mem);
        TARG(k, 15, tr->sb.mem);
        k = TK_SEG_REDUCE; /* base, n, st, nb, D, L, U, b */
        TARG(k, 3, tr->nb);
        TARG(k, 4, tr->sD.mem);
        TARG(k, 5, tr->sL.mem);
        TARG(k, 6, tr->sU.mem);
        TARG(k, 7, tr->sb.mem);
        k = TK_SEG_FINISH; /* nseg, first, segs, node, D, b, mat, u */
        TARG(k, 2, tr->segs.mem);
        TARG(k, 3, tr->node.mem);
        TARG(k, 4, tr->sD.mem);
        TARG(k, 5, tr->sb.mem);
        TARG(k, 6, tr->mat.mem);
        TARG(k, 7, tr->u.mem);
        k = TK_SEG_ROOT; /* nseg, first, segs, node, x (tree), x (paths) */
        TARG(k, 2, tr->segs.mem);
        TARG(k, 3, tr->node.mem);
        TARG(k, 4, tr->x.mem);
        TARG(k, 5, tr->sx.mem);
        k = TK_SEG_BACK; /* base, n, st, nb, pos, D, L, U, b, x */
        TARG(k, 3, tr->nb);
        TARG(k, 4, tr->pos.mem);
        TARG(k, 5, tr->sD.mem);
        TARG(k, 6, tr->sL.mem);
        TARG(k, 7, tr->sU.mem);
        TARG(k, 8, tr->sb.mem);
        TARG(k, 9, tr->sx.mem);
        k = TK_SEG_APPLY; /* base, n, pos, node, defs, blocks, inertia, x (paths), x (tree), vel, lambda */
        TARG(k, 2, tr->pos.mem);
        TARG(k, 3, tr->node.mem);
        TARG(k, 4, o->defs.mem);
        TARG(k, 5, o->blocks.mem);
        TARG(k, 6, o->inertia.mem);
        TARG(k, 7, tr->sx.mem);
        TARG(k, 8, tr->x.mem);
        TARG(k, 9, o->vel.mem);
        TARG(k, 10, o->lambda.mem);
    }
    for (int l = 0; l < tr->launches; ++l) {
        const tree_launch *L = &tr->launch[l];
        TRY(tlaunch(w, o, tr, TK_FACTOR, L->begin, L->end_factor, L->serial, "direct solver: tree factor"));
        if (L->group >= 0) TRY(group_factor(w, o, tr, &tr->group[L->group]));
    }
    for (int l = tr->launches - 1; l >= 0; --l) {
        const tree_launch *L = &tr->launch[l];
        TRY(tlaunch(w, o, tr, TK_BACK, L->begin, L->end_back, L->serial, "direct solver: tree back-substitution"));
        if (L->group >= 0) TRY(group_back(w, o, tr, &tr->group[L->group]));
    }
    return CTN_OK;
}

void ctn__ocl_tree_release(ctn_ocl *o) {
    ocl_tree *tr = o->tree;
    if (!tr) return;
    ctn_clbuf *bufs[] = {&tr->lv_nodes, &tr->node, &tr->child, &tr->att, &tr->slot_info, &tr->mat, &tr->u, &tr->x,
                         &tr->pos, &tr->segs, &tr->sD, &tr->sL, &tr->sU, &tr->sb, &tr->sx};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
        if (bufs[i]->mem) clReleaseMemObject(bufs[i]->mem);
    for (int k = 0; k < TK_COUNT; ++k)
        if (tr->kernel[k]) clReleaseKernel(tr->kernel[k]);
    ctn__free(tr->launch);
    ctn__free(tr->group);
    ctn__free(tr);
    o->tree = NULL;
}
