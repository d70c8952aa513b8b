/* Device buffers of the OpenCL backend: sizing (with the device's allocation limit and the injected
 * out-of-memory fault), uploads of what the host changed, reads and device-side copies. */
#include "opencl/opencl_internal.h"

ctn_status ctn__ocl_reserve(ctn_world *w, ctn_ocl *o, ctn_clbuf *b, size_t size, int *grew) {
    if (size < 64) size = 64;
    /* CATENA_FAULT=out-of-memory[@N] fails an allocation at backend creation or at step N */
    if (o->fault_kind == CTN_FAULT_OUT_OF_MEMORY && !o->fault_fired && o->step_index == o->fault_step) {
        o->fault_fired = 1;
        return ctn__fail(w, CTN_ERR_DEVICE, "clCreateBuffer(%zu bytes): %s (injected by CATENA_FAULT)", size,
                         ctn__cl_error_name(CL_MEM_OBJECT_ALLOCATION_FAILURE));
    }
    if (b->mem && b->size >= size) return CTN_OK;
    size_t cap = b->mem && size <= (size_t)-1 / 3 * 2 ? size + size / 2 : size; /* grow geometrically when a world keeps growing */
    /* A buffer larger than the device allows is refused with the sizes, not left to the driver */
    if (o->max_alloc && size > o->max_alloc)
        return ctn__fail(w, CTN_ERR_DEVICE, "clCreateBuffer(%zu bytes): %s: more than the device's CL_DEVICE_MAX_MEM_ALLOC_SIZE (%llu bytes)", size,
                         ctn__cl_error_name(CL_INVALID_BUFFER_SIZE), (unsigned long long)o->max_alloc);
    if (o->max_alloc && cap > o->max_alloc) cap = (size_t)o->max_alloc;
    if (b->mem) clReleaseMemObject(b->mem);
    b->mem = NULL;
    b->size = 0;
    cl_int e;
    b->mem = clCreateBuffer(o->ctx, CL_MEM_READ_WRITE, cap, NULL, &e);
    if (e != CL_SUCCESS) {
        b->mem = NULL;
        return ctn__fail(w, CTN_ERR_DEVICE, "clCreateBuffer(%zu bytes): %s", cap, ctn__cl_error_name(e));
    }
    b->size = cap;
    if (grew) *grew = 1;
    return CTN_OK;
}

ctn_status ctn__ocl_write(ctn_world *w, ctn_ocl *o, ctn_clbuf *b, const void *data, size_t size, const char *what) {
    if (size == 0) return CTN_OK;
    cl_int e = clEnqueueWriteBuffer(o->queue, b->mem, CL_TRUE, 0, size, data, 0, NULL, NULL);
    if (e != CL_SUCCESS) return ctn__fail(w, CTN_ERR_DEVICE, "uploading %s (%zu bytes): %s", what, size, ctn__cl_error_name(e));
    return CTN_OK;
}

ctn_status ctn__ocl_upload(ctn_world *w, ctn_ocl *o, ctn_clbuf *b, const void *data, size_t size, const char *what) {
    TRY(ctn__ocl_reserve(w, o, b, size ? size : sizeof(int), NULL));
    return ctn__ocl_write(w, o, b, data, size, what);
}

ctn_status ctn__ocl_upload_bodies(ctn_world *w, ctn_ocl *o) {
    size_t n = (size_t)w->body_count;
    TRY(ctn__ocl_write(w, o, &o->pose, w->pose, n * sizeof(ctn_pose), "poses"));
    TRY(ctn__ocl_write(w, o, &o->vel, w->vel, n * sizeof(ctn_vel), "velocities"));
    TRY(ctn__ocl_write(w, o, &o->inertia, w->inertia, n * sizeof(ctn_inertia), "inertias"));
    TRY(ctn__ocl_write(w, o, &o->props, w->props, n * sizeof(ctn_props), "body properties"));
    if (w->body_force) TRY(ctn__ocl_write(w, o, &o->forces, w->body_force, n * sizeof(ctn_body_force), "user forces"));
    return CTN_OK;
}

/* Whole definitions staged on the host per upload call at most: 4096 of 112 bytes (448 KiB) */
#define CTN_OCL_JOINT_STAGE 4096

/* o->joint_stage for the capacity of o->defs (at most CTN_OCL_JOINT_STAGE definitions). */
static ctn_status joint_stage_reserve(ctn_world *w, ctn_ocl *o) {
    size_t want = o->defs.size / sizeof(ctn_joint_def);
    if (want > CTN_OCL_JOINT_STAGE) want = CTN_OCL_JOINT_STAGE;
    if (want <= o->joint_stage_cap) return CTN_OK;
    ctn_joint_def *s = ctn__malloc(want * sizeof *s);
    if (!s) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory staging %zu joint definitions for the device", want);
    ctn__free(o->joint_stage);
    o->joint_stage = s;
    o->joint_stage_cap = want;
    return CTN_OK;
}

/* The layout's joints as the device reads them, whole definitions (kernels/ctn_joints.h): formed from the
 * host's compact records and extras a chunk at a time in o->joint_stage (sized with o->defs by
 * ctn__ocl_reserve_all, so that an upload allocates nothing), the host holding no full copy. */
static ctn_status upload_joints(ctn_world *w, ctn_ocl *o, const ctn_topology *t) {
    size_t m = (size_t)t->joint_count;
    if (m == 0) return CTN_OK;
    if (o->joint_stage_cap == 0) TRY(joint_stage_reserve(w, o)); /* a layout uploaded before the arrays were sized */
    size_t chunk = o->joint_stage_cap;
    if (chunk == 0) return ctn__fail(w, CTN_ERR_DEVICE, "uploading joints: the device's joint array is not sized");
    ctn_joints J = ctn__topo_joints(t);
    for (size_t first = 0; first < m; first += chunk) {
        size_t n = m - first < chunk ? m - first : chunk;
        for (size_t k = 0; k < n; ++k) o->joint_stage[k] = ctn_joint_at(J, (int)(first + k));
        cl_int e = clEnqueueWriteBuffer(o->queue, o->defs.mem, CL_TRUE, first * sizeof *o->joint_stage, n * sizeof *o->joint_stage,
                                        o->joint_stage, 0, NULL, NULL);
        if (e != CL_SUCCESS) return ctn__fail(w, CTN_ERR_DEVICE, "uploading joints (%zu bytes): %s", m * sizeof *o->joint_stage, ctn__cl_error_name(e));
    }
    return CTN_OK;
}



ctn_status ctn__ocl_upload_layout(ctn_world *w, ctn_ocl *o) {
    const ctn_topology *t = &w->topo;
    size_t n = (size_t)t->body_count;
    TRY(upload_joints(w, o, t));
    TRY(ctn__ocl_write(w, o, &o->lambda, t->lambda, ctn__ocl_impulse_bytes(w), "impulses"));
    /* The body -> joint adjacency is built on first need and its array may hold the colouring's masks until
     * then, so what says it holds this layout's is adj_ready, not an allocated adj_offsets: read it, as every
     * reader does, through ctn__topology_adjacency (world.h). ctn__ocl_reserve_all, which runs before every
     * upload (backend_opencl.c), built it already and sized the device's arrays from it: here a no-op. */
    TRY(ctn__topology_adjacency(w));
    TRY(ctn__ocl_write(w, o, &o->adj_offsets, t->adj_offsets, (n + 1) * sizeof(int), "adjacency offsets"));
    TRY(ctn__ocl_write(w, o, &o->adj, t->adj, (size_t)t->adj_offsets[n] * sizeof(int), "adjacency"));
    if (t->spring_count > 0) { /* the springs' adjacency: written by the layout build whenever it has springs */
        TRY(ctn__ocl_write(w, o, &o->spring_adj_offsets, t->spring_adj_offsets, (n + 1) * sizeof(int), "spring adjacency offsets"));
        TRY(ctn__ocl_write(w, o, &o->spring_adj, t->spring_adj, (size_t)t->spring_adj_offsets[n] * sizeof(int), "spring adjacency"));
    } else { /* no springs: the host does not write its offsets (topology.c); every body's are 0 */
        const int zero = 0;
        TRY(ctn__ocl_check(w, clEnqueueFillBuffer(o->queue, o->spring_adj_offsets.mem, &zero, sizeof zero, 0, (n + 1) * sizeof(int), 0, NULL, NULL),
                           "clEnqueueFillBuffer(spring adjacency offsets)"));
    }
    TRY(ctn__ocl_write(w, o, &o->split, ctn__topology_split(&w->topo), n * sizeof(float), "mass-splitting factors"));
    TRY(ctn__ocl_write(w, o, &o->springs, t->springs, (size_t)t->spring_count * sizeof(ctn_joint_def), "springs"));
    o->layout_version = w->topology_version;
    o->have_layout = 1;
    return CTN_OK;
}

/* Sizes every device array for the current world; re-uploads what a reallocation lost. */
ctn_status ctn__ocl_reserve_all(ctn_world *w, ctn_ocl *o) {
    const ctn_topology *t = &w->topo;
    size_t n = (size_t)w->body_count, m = (size_t)t->joint_count;
    int body_grew = 0, layout_grew = 0, r2_grew = 0;
    TRY(ctn__topology_adjacency(w)); /* the device's stages read it: the host's on first need, sized and uploaded below */
    TRY(ctn__ocl_reserve(w, o, &o->pose, n * sizeof(ctn_pose), &body_grew));
    TRY(ctn__ocl_reserve(w, o, &o->vel, n * sizeof(ctn_vel), &body_grew));
    TRY(ctn__ocl_reserve(w, o, &o->inertia, n * sizeof(ctn_inertia), &body_grew));
    TRY(ctn__ocl_reserve(w, o, &o->props, n * sizeof(ctn_props), &body_grew));
    if (!w->body_force && o->forces.mem && o->forces.size > 64) { /* the forces are gone: so is their device array */
        clReleaseMemObject(o->forces.mem);
        o->forces.mem = NULL;
        o->forces.size = 0;
    }
    TRY(ctn__ocl_reserve(w, o, &o->forces, w->body_force ? n * sizeof(ctn_body_force) : 0, &body_grew));
    if (t->spring_count > 0) TRY(ctn__ocl_reserve(w, o, &o->vel_copy, n * sizeof(ctn_vel), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->defs, m * sizeof(ctn_joint_def), &layout_grew));
    TRY(joint_stage_reserve(w, o));
    TRY(ctn__ocl_reserve(w, o, &o->lambda, ctn__ocl_impulse_room(w), &layout_grew));
    TRY(ctn__ocl_reserve(w, o, &o->adj_offsets, (n + 1) * sizeof(int), &layout_grew));
    TRY(ctn__ocl_reserve(w, o, &o->adj, (size_t)t->adj_offsets[t->body_count] * sizeof(int), &layout_grew)); /* adj_ready: built above */
    TRY(ctn__ocl_reserve(w, o, &o->split, n * sizeof(float), &layout_grew));
    TRY(ctn__ocl_reserve(w, o, &o->springs, (size_t)t->spring_count * sizeof(ctn_joint_def), &layout_grew));
    TRY(ctn__ocl_reserve(w, o, &o->spring_adj_offsets, (n + 1) * sizeof(int), &layout_grew));
    TRY(ctn__ocl_reserve(w, o, &o->spring_adj,
                         (t->spring_count > 0 ? (size_t)t->spring_adj_offsets[t->body_count] : 0) * sizeof(int), &layout_grew));
    /* the rows: compact point blocks for Gauss-Seidel on ball joints alone (ctn__rows_compact), else the
     * general blocks (assembly reserves those itself) */
    o->compact = ctn__rows_compact(w, &o->compact_cache);
    if (o->compact) TRY(ctn__ocl_reserve(w, o, &o->points, m * sizeof(ctn_point_block), NULL));
    else TRY(ctn__ocl_reserve(w, o, &o->blocks, m * sizeof(ctn_block), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->dlambda, ctn__ocl_impulse_room(w), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->r2, m * sizeof(float), &r2_grew));
    TRY(ctn__ocl_reserve(w, o, &o->gap, m * sizeof(float), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->angle, m * sizeof(float), NULL));
    if (r2_grew) { /* CG leaves r2 unwritten; keep it defined for the reduction */
        float zero = 0.0f;
        TRY(ctn__ocl_check(w, clEnqueueFillBuffer(o->queue, o->r2.mem, &zero, sizeof zero, 0, o->r2.size / sizeof zero * sizeof zero, 0, NULL, NULL),
                           "clearing the residual array"));
    }
    if (w->solver == CTN_SOLVER_CG) {
        TRY(ctn__ocl_reserve(w, o, &o->cg_r, ctn__ocl_impulse_room(w), NULL));
        TRY(ctn__ocl_reserve(w, o, &o->cg_z, ctn__ocl_impulse_room(w), NULL));
        TRY(ctn__ocl_reserve(w, o, &o->cg_ap, ctn__ocl_impulse_room(w), NULL));
        TRY(ctn__ocl_reserve(w, o, &o->cg_u, n * sizeof(ctn_vel), NULL));
        TRY(ctn__ocl_reserve(w, o, &o->cg_scalars, 8 * sizeof(float), NULL));
    }
    if (body_grew) w->bodies_dirty = 1;
    if (layout_grew) o->have_layout = 0;
    return CTN_OK;
}

ctn_status ctn__ocl_read(ctn_world *w, ctn_ocl *o, const ctn_clbuf *b, void *data, size_t size, const char *what) {
    if (size == 0) return CTN_OK;
    cl_int e = clEnqueueReadBuffer(o->queue, b->mem, CL_TRUE, 0, size, data, 0, NULL, NULL);
    if (e != CL_SUCCESS) return ctn__fail(w, CTN_ERR_DEVICE, "reading %s (%zu bytes): %s", what, size, ctn__cl_error_name(e));
    return CTN_OK;
}

ctn_status ctn__ocl_copy(ctn_world *w, ctn_ocl *o, cl_mem from, cl_mem to, size_t size, const char *what) {
    if (size == 0) return CTN_OK;
    return ctn__ocl_check(w, clEnqueueCopyBuffer(o->queue, from, to, 0, 0, size, 0, NULL, NULL), what);
}

ctn_status ctn__ocl_sync(ctn_world *w) {
    ctn_ocl *o = w->backend_data;
    size_t n = (size_t)w->body_count;
    if (!o->pose.mem) return CTN_OK; /* never stepped */
    TRY(ctn__ocl_read(w, o, &o->pose, w->pose, n * sizeof(ctn_pose), "poses"));
    TRY(ctn__ocl_read(w, o, &o->vel, w->vel, n * sizeof(ctn_vel), "velocities"));
    TRY(ctn__ocl_read(w, o, &o->inertia, w->inertia, n * sizeof(ctn_inertia), "inertias"));
    if (o->have_layout) TRY(ctn__ocl_read(w, o, &o->lambda, w->topo.lambda, ctn__ocl_impulse_bytes(w), "impulses"));
    return CTN_OK;
}
