/* Exact solver for forests of joints on the device (the forest path of `direct` on OpenCL).
 *
 * Scope: the spanning forest of the CPU's exact solver (host/solve/direct_build.c): joints between dynamic
 * bodies without loops, joints to the world or to static/kinematic bodies (at most CTN_DD_MAX_ATTACHED such
 * rows on one body, counting the joints above grounded subtrees). The rest (loop closers, contacts, curves,
 * joints on bodies with partly zero inverse inertia, rows beyond that bound) and, per substep, every forest
 * joint whose block has finite bounds go to the outer Gauss-Seidel of host/opencl/opencl_direct.c, as on
 * the CPU; hybrid_split below tells it which. A few loop closers are solved through their Schur complement
 * instead (host/opencl/opencl_schur.c, prepared here from the same ordering), whose columns are
 * substitutions through this factor without the update (ctn__ocl_forest_column). host/opencl/opencl_direct.c sends here every layout that is
 * not a set of chains (chains take its joint-space segments; desc.debug.direct_forest = 1 sends them here
 * too).
 *
 * Symbolic phase (once per topology_version, host). The elimination tree of the CPU direct solver
 * (ctn__direct_symbolic, host/solve/solver_direct.c: body nodes, joint nodes, supernodes holding the rows
 * of joints to the world and of joints above grounded subtrees, children before parents) gets
 *   - levels: level(i) = 0 for a leaf, 1 + max over children c of level(c). Nodes of one level depend
 *     only on earlier levels; they are listed level by level (lv_nodes), with a child CSR so each node
 *     gathers its children's contributions itself (no atomics, sums in the CPU's order);
 *   - bands: runs of consecutive narrow levels (at most `band` nodes) are one launch of a single
 *     work-item that walks their nodes in order.
 * GPUs band only single-node levels, CPU devices (PoCL) levels of up to 16 nodes: there one core walking
 * a path beats a launch per level. desc.debug.forest_band overrides; desc.debug.trace logs the schedule.
 *
 * Per substep (after the warm start), leaves first: per wide level or band one ctn_k_forest_factor launch
 * (node pivot H_ii, its right-hand side r = target - J v - S lambda, the children's Schur contributions,
 * D_i^-1 and u_i = D_i^-1 b_i), then from the roots per level one ctn_k_forest_back launch
 * (x_i = u_i - D_i^-1 H_ip x_p, v += dv, lambda -= y). Launches per solve: 2 per band or wide level,
 * e.g. tree:100000 (binary, height 17): 33 levels, 66 launches on a GPU. A long path inside a tree costs
 * a launch per level on a GPU (a set of chains takes the chain path instead). Double precision throughout
 * (cl_khr_fp64, checked by host/opencl/opencl_direct.c before it gets here). */
#include "opencl/opencl_internal.h"
#include "solve/direct_internal.h"
#include "ctn_direct.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Narrow levels merged into one serial launch: on a CPU device a node costs a few microseconds against
 * tens for a launch, on a GPU one thread's serial work is slow, so only single-node levels are merged.
 * desc.debug.forest_band overrides. */
#define BAND_WIDTH_CPU 16
#define BAND_WIDTH_GPU 1

typedef struct forest_launch {
    int begin, end; /* range of lv_nodes */
    int serial;     /* a band of narrow levels, one work-item */
} forest_launch;

typedef struct ocl_forest {
    unsigned version;
    int valid;
    int nodes, launches, levels;
    int local_one; /* CPU devices: work-groups of one item (see tenqueue) */
    forest_launch *launch;
    ctn_clbuf lv_nodes, node, child, att, slot_info, mat, u, x;
} ocl_forest;

/* The hybrid's split of the slots (SLOT_* of the symbolic phase): 1 for the joints the elimination leaves
 * to the outer Gauss-Seidel for good (loop closers, contacts, curves, joints on bodies with partly zero
 * inverse inertia, rows beyond CTN_DD_MAX_ATTACHED on one body), 2 for the forest's (cut to Gauss-Seidel in
 * a substep where their block has finite bounds), 0 for joints between two non-dynamic bodies. */
static void hybrid_split(const ctn_world *w, const direct_state *s, int *hyb) {
    for (int slot = 0; slot < w->topo.joint_count; ++slot) {
        int k = s->slot_kind[slot];
        hyb[slot] = k == SLOT_EXTRA ? 1 : (k == SLOT_NODE || k == SLOT_ATTACHED ? 2 : 0);
    }
}

static ctn_status create_kernels(ctn_world *w, ctn_ocl *o) {
    int failed = 0;
    cl_int e = ctn__ocl_create_kernels(o, CTN_K_FOREST_FIRST, CTN_K_FOREST_END, &failed);
    if (e == CL_SUCCESS) return CTN_OK;
    return ctn__fail(w, CTN_ERR_UNSUPPORTED, "desc.solver: direct on OpenCL: clCreateKernel(%s): %s", ctn__ocl_kernel_table[failed].name,
                     ctn__cl_error_name(e));
}

/* A debug option (ctn_debug_options), or the automatic value when it is -1. */
static int knob(int value, int automatic) { return value >= 0 ? value : automatic; }

/* Levels, launch schedule, node records and CSRs of the elimination tree s, uploaded to the device. */
static ctn_status build_schedule(ctn_world *w, ctn_ocl *o, ocl_forest *tr, const direct_state *s) {
    const ctn_topology *t = &w->topo;
    int n = s->node_count, m = t->joint_count;
    size_t n1 = (size_t)n + 1;
    int *level = ctn__calloc(n1, sizeof *level), *lv_off = NULL, *lv_nodes = ctn__malloc(n1 * sizeof *lv_nodes);
    int *rec = ctn__malloc(n1 * CTN_TN_INTS * sizeof *rec), *nchild = ctn__calloc(n1, sizeof *nchild);
    int *child = ctn__malloc(n1 * sizeof *child), *slot_info = ctn__calloc(((size_t)m + 1) * CTN_TS_INTS, sizeof *slot_info);
    forest_launch *launch = NULL;
    ctn_status st = CTN_OK;
    if (!level || !lv_nodes || !rec || !nchild || !child || !slot_info) goto oom;
    cl_device_type type = 0;
    clGetDeviceInfo(o->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    int gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    int band = knob(w->desc.debug.forest_band, gpu ? BAND_WIDTH_GPU : BAND_WIDTH_CPU);

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
    /* levels: level(i) = 1 + max over children (children come before parents) */
    int levels = n > 0 ? 1 : 0;
    for (int i = 0; i < n; ++i) {
        int p = s->parent[i];
        if (p >= 0 && level[p] < level[i] + 1) level[p] = level[i] + 1;
        if (level[i] + 1 > levels) levels = level[i] + 1;
    }
    lv_off = ctn__calloc((size_t)levels + 2, sizeof *lv_off);
    launch = ctn__malloc(((size_t)levels + 1) * sizeof *launch);
    if (!lv_off || !launch) goto oom;
    for (int i = 0; i < n; ++i) lv_off[level[i] + 1]++;
    for (int l = 0; l < levels; ++l) lv_off[l + 1] += lv_off[l];
    for (int l = levels; l > 0; --l) lv_off[l] = lv_off[l - 1]; /* fill pointers, shifted back below */
    for (int i = 0; i < n; ++i) lv_nodes[lv_off[level[i] + 1]++] = i;
    lv_off[0] = 0;
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
        si[CTN_TS_ROWS] = ctn__direct_rows_at(t, slot); /* the forest path's rows, limit rows included */
    }
    /* launches: each wide level alone, each run of narrow levels as one serial band */
    int nl = 0;
    for (int l = 0; l < levels;) {
        forest_launch *L = &launch[nl++];
        if (lv_off[l + 1] - lv_off[l] > band) {
            L->begin = lv_off[l], L->end = lv_off[l + 1], L->serial = 0;
            ++l;
            continue;
        }
        int l1 = l;
        while (l1 < levels && lv_off[l1 + 1] - lv_off[l1] <= band) ++l1;
        L->begin = lv_off[l], L->end = lv_off[l1], L->serial = 1;
        l = l1;
    }
    size_t vec = s->vec_off[n], mat = s->mat_off[n];
    st = ctn__ocl_upload(w, o, &tr->lv_nodes, lv_nodes, (size_t)n * sizeof *lv_nodes, "the forest levels");
    if (st == CTN_OK) st = ctn__ocl_upload(w, o, &tr->node, rec, (size_t)n * CTN_TN_INTS * sizeof *rec, "the forest nodes");
    if (st == CTN_OK) st = ctn__ocl_upload(w, o, &tr->child, child, (size_t)off * sizeof *child, "the forest children");
    if (st == CTN_OK) st = ctn__ocl_upload(w, o, &tr->att, s->att, (size_t)s->att_off[n] * sizeof *s->att, "the attached joints");
    if (st == CTN_OK) st = ctn__ocl_upload(w, o, &tr->slot_info, slot_info, (size_t)m * CTN_TS_INTS * sizeof *slot_info, "the joint rows");
    if (st == CTN_OK) st = ctn__ocl_reserve(w, o, &tr->mat, (mat + 1) * sizeof(double), NULL);
    if (st == CTN_OK) st = ctn__ocl_reserve(w, o, &tr->u, (vec + 1) * sizeof(double), NULL);
    if (st == CTN_OK) st = ctn__ocl_reserve(w, o, &tr->x, (vec + 1) * sizeof(double), NULL);
    if (st != CTN_OK) goto done;
    ctn__free(tr->launch);
    tr->launch = launch;
    launch = NULL;
    tr->launches = nl;
    tr->levels = levels;
    tr->nodes = n;
    tr->local_one = knob(w->desc.debug.forest_local_one, !gpu);
    goto done;
oom:
    st = ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory scheduling the joint forest for the direct solver");
done:
    ctn__free(level), ctn__free(lv_off), ctn__free(lv_nodes), ctn__free(rec), ctn__free(nchild), ctn__free(child), ctn__free(slot_info), ctn__free(launch);
    return st;
}

ctn_status ctn__ocl_forest_prepare(ctn_world *w, ctn_ocl *o, int *hyb) {
    ocl_forest *tr = o->forest;
    if (!tr) {
        tr = ctn__calloc(1, sizeof *tr);
        if (!tr) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for the direct solver's forest path");
        o->forest = tr;
    }
    TRY(create_kernels(w, o));
    if (tr->valid && tr->version == w->topology_version && !hyb) return CTN_OK;
    tr->valid = 0;
    direct_state s;
    memset(&s, 0, sizeof s);
    if (!ctn__direct_symbolic(w, &s)) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory ordering the joint forest for the direct solver");
    if (hyb) hybrid_split(w, &s, hyb);
    ctn_status st = build_schedule(w, o, tr, &s);
    if (st == CTN_OK) st = ctn__ocl_schur_prepare(w, o, &s);
    ctn__direct_symbolic_free(&s);
    TRY(st);
    tr->version = w->topology_version;
    tr->valid = 1;
    if (w->desc.debug.trace)
        ctn__log(w, CTN_LOG_DEBUG, "direct (OpenCL forest): %d nodes, %d levels, %d launches per solve", tr->nodes, tr->levels,
                 2 * tr->launches);
    return CTN_OK;
}

/* On CPU devices the kernels run in work-groups of one item: PoCL's private memory of a work-group is
 * sized for the group and these kernels keep tens of kB of private arrays per item (the dense node
 * inverse), which overflowed it with larger automatic groups (measured: PoCL 3.x crashed in
 * ctn_k_seg_* at 8192 positions). One-item groups cost nothing measurable there (tree:10000). */
static ctn_status tenqueue(ctn_world *w, ctn_ocl *o, ocl_forest *tr, int k, size_t items, const char *what) {
    size_t one = 1;
    return ctn__ocl_enqueue(w, o, k, items, tr->local_one ? &one : NULL, what);
}

static ctn_status tlaunch(ctn_world *w, ctn_ocl *o, ocl_forest *tr, int k, int begin, int end, int serial, const char *what) {
    if (end <= begin) return CTN_OK;
    ARG_OF2(k, FOREST_FACTOR, FOREST_BACK, begin, begin);
    ARG_OF2(k, FOREST_FACTOR, FOREST_BACK, end, end);
    ARG_OF2(k, FOREST_FACTOR, FOREST_BACK, serial, serial);
    return tenqueue(w, o, tr, k, serial ? 1 : (size_t)(end - begin), what);
}

/* One factor (rhs_only 0), or forward substitution (1: a re-solve, 2: Schur column schur_k), and back
 * substitution, with the update of velocities and impulses when apply. */
static ctn_status forest_pass(ctn_world *w, ctn_ocl *o, cl_mem active, int rhs_only, int schur_k, int apply) {
    ocl_forest *tr = o->forest;
    if (!tr || !tr->valid || tr->nodes == 0) return CTN_OK;
    ARG(FOREST_FACTOR, lv_nodes, tr->lv_nodes.mem);
    ARG(FOREST_FACTOR, node, tr->node.mem);
    ARG(FOREST_FACTOR, child, tr->child.mem);
    ARG(FOREST_FACTOR, att, tr->att.mem);
    ARG(FOREST_FACTOR, slot_info, tr->slot_info.mem);
    ARG(FOREST_FACTOR, defs, o->defs.mem);
    ARG(FOREST_FACTOR, blocks, o->blocks.mem);
    ARG(FOREST_FACTOR, vel, o->vel.mem);
    ARG(FOREST_FACTOR, inertia, o->inertia.mem);
    ARG(FOREST_FACTOR, lambda, o->lambda.mem);
    ARG(FOREST_FACTOR, ls, w->topo.stride);
    ARG(FOREST_FACTOR, mat, tr->mat.mem);
    ARG(FOREST_FACTOR, u, tr->u.mem);
    ARG(FOREST_FACTOR, active, active);
    ARG(FOREST_FACTOR, rhs_only, rhs_only);
    int ref = rhs_only && rhs_only != CTN_DD_RESOLVE_FULL; /* (R): the change since the last solve */
    cl_mem vref = ref ? o->dir_vref.mem : o->vel.mem, lref = ref ? o->dir_lref.mem : o->lambda.mem;
    ARG(FOREST_FACTOR, vel_ref, vref); /* read by re-solves only (ctn__ocl_solve_direct) */
    ARG(FOREST_FACTOR, lambda_ref, lref);
    cl_mem schur_rows = o->sch_rows.mem ? o->sch_rows.mem : o->dir_one.mem; /* read with rhs_only = 2 only */
    ARG(FOREST_FACTOR, schur_rows, schur_rows);
    ARG(FOREST_FACTOR, schur_k, schur_k);
    ARG(FOREST_BACK, lv_nodes, tr->lv_nodes.mem);
    ARG(FOREST_BACK, node, tr->node.mem);
    ARG(FOREST_BACK, att, tr->att.mem);
    ARG(FOREST_BACK, slot_info, tr->slot_info.mem);
    ARG(FOREST_BACK, blocks, o->blocks.mem);
    ARG(FOREST_BACK, mat, tr->mat.mem);
    ARG(FOREST_BACK, u, tr->u.mem);
    ARG(FOREST_BACK, xv, tr->x.mem);
    ARG(FOREST_BACK, vel, o->vel.mem);
    ARG(FOREST_BACK, lambda, o->lambda.mem);
    ARG(FOREST_BACK, ls, w->topo.stride);
    ARG(FOREST_BACK, active, active);
    ARG(FOREST_BACK, apply, apply);
    for (int l = 0; l < tr->launches; ++l) {
        const forest_launch *L = &tr->launch[l];
        TRY(tlaunch(w, o, tr, CTN_K_FOREST_FACTOR, L->begin, L->end, L->serial, "direct solver: forest factor"));
    }
    for (int l = tr->launches - 1; l >= 0; --l) {
        const forest_launch *L = &tr->launch[l];
        TRY(tlaunch(w, o, tr, CTN_K_FOREST_BACK, L->begin, L->end, L->serial, "direct solver: forest back-substitution"));
    }
    return CTN_OK;
}

ctn_status ctn__ocl_forest_solve(ctn_world *w, ctn_ocl *o, cl_mem active, int rhs_only) { return forest_pass(w, o, active, rhs_only, 0, 1); }

ctn_status ctn__ocl_forest_column(ctn_world *w, ctn_ocl *o, cl_mem active, int k) { return forest_pass(w, o, active, 2, k, 0); }

cl_mem ctn__ocl_forest_solution(const ctn_ocl *o) {
    const ocl_forest *tr = o->forest;
    return tr ? tr->x.mem : NULL;
}

void ctn__ocl_forest_release(ctn_ocl *o) {
    ocl_forest *tr = o->forest;
    if (!tr) return;
    ctn_clbuf *bufs[] = {&tr->lv_nodes, &tr->node, &tr->child, &tr->att, &tr->slot_info, &tr->mat, &tr->u, &tr->x};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
        if (bufs[i]->mem) clReleaseMemObject(bufs[i]->mem);
    ctn__ocl_release_kernels(o, CTN_K_FOREST_FIRST, CTN_K_FOREST_END);
    ctn__free(tr->launch);
    ctn__free(tr);
    o->forest = NULL;
}
