/* The OpenCL backend: the CPU backend's substep loop (host/solver_cpu.c) with every loop replaced by a
 * launch of the matching kernel of kernels/catena.cl, and all body and row data resident on the device.
 *
 * Per step: bodies go up only when the host edited them (bodies_dirty), the solver layout only when the
 * topology was rebuilt (topology_version); the one blocking host synchronisation is the read of the
 * stats reduction (residual, max gap, max angle) at the end. Body state and impulses come back only
 * when the host asks (sync_to_host, through ctn__sync). */
#include "opencl/opencl_internal.h"
#include "ctn_solver.h" /* CTN_PROJECT_TOL, CTN_PROJECT_MAX */

#include <clblast_c.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STATS_FLOATS 8   /* [0] sum r^2, [1] max gap, [2] max angle, [3] CG ||r||, [4] max body speed (float
                          * bits), [5] first non-finite or too fast body (int; body count when none) */
#define STATS_CHECK 4    /* issue 7: index of the body check in the stats buffer */
#define REDUCE_GROUPS 64 /* first-pass groups of the tree reduction (fixed: results do not depend on threads) */
#define MAX_LOCAL 256    /* work-group size cap; the device's own limits may lower it */

static const char *const kernel_names[CTN_K_COUNT] = {
    "ctn_k_prepare",      "ctn_k_forces",    "ctn_k_gather",    "ctn_k_gs_colour",   "ctn_k_gs_serial",
    "ctn_k_jacobi",       "ctn_k_integrate", "ctn_k_cg_init",   "ctn_k_cg_start",    "ctn_k_cg_gather",
    "ctn_k_cg_apply",     "ctn_k_cg_alpha",  "ctn_k_cg_update", "ctn_k_cg_velocity", "ctn_k_cg_beta",
    "ctn_k_cg_direction", "ctn_k_joint_error", "ctn_k_reduce3", "ctn_k_reduce3_final", "ctn_k_geometric_inertia",
    "ctn_k_body_check",   "ctn_k_body_check_final", "ctn_k_project_begin", "ctn_k_project_slot"};

/* ---- small helpers --------------------------------------------------------------------------------- */

ctn_status ctn__ocl_check(ctn_world *w, cl_int err, const char *what) {
    if (err == CL_SUCCESS) return CTN_OK;
    return ctn__fail(w, CTN_ERR_DEVICE, "%s: %s (%d)", what, ctn__cl_error_name(err), (int)err);
}

ctn_status ctn__ocl_arg(ctn_world *w, ctn_ocl *o, int k, cl_uint i, size_t size, const void *value) {
    cl_int e = clSetKernelArg(o->kernel[k], i, size, value);
    if (e == CL_SUCCESS) return CTN_OK;
    return ctn__fail(w, CTN_ERR_DEVICE, "clSetKernelArg(%s, %u): %s", kernel_names[k], (unsigned)i, ctn__cl_error_name(e));
}

void ctn__ocl_note_event(ctn_ocl *o, cl_event ev) {
    if (!ev) return;
    if (o->phase < 0) {
        clReleaseEvent(ev);
        return;
    }
    if (!o->phase_first) {
        o->phase_first = ev;
        return;
    }
    if (o->phase_last) clReleaseEvent(o->phase_last);
    o->phase_last = ev;
}

ctn_status ctn__ocl_launch(ctn_world *w, ctn_ocl *o, int k, size_t items, const char *what) {
    if (items == 0) return CTN_OK;
    size_t local = o->local[k];
    size_t global = (items + local - 1) / local * local;
    cl_event ev = NULL;
    /* issue 7: CATENA_FAULT=enqueue@N fails the third launch of step N */
    if (o->in_step && ++o->launches == 3 && o->fault_kind == CTN_FAULT_ENQUEUE && !o->fault_fired && o->step_index == o->fault_step) {
        o->fault_fired = 1;
        return ctn__fail(w, CTN_ERR_DEVICE, "%s (%s): %s (injected by CATENA_FAULT)", what, kernel_names[k], ctn__cl_error_name(CL_OUT_OF_RESOURCES));
    }
    cl_int e = clEnqueueNDRangeKernel(o->queue, o->kernel[k], 1, NULL, &global, &local, 0, NULL,
                                      o->profiling && o->phase >= 0 ? &ev : NULL);
    if (e != CL_SUCCESS) return ctn__fail(w, CTN_ERR_DEVICE, "%s (%s): %s", what, kernel_names[k], ctn__cl_error_name(e));
    ctn__ocl_note_event(o, ev);
    return CTN_OK;
}

ctn_status ctn__ocl_reserve(ctn_world *w, ctn_ocl *o, ctn_clbuf *b, size_t size, int *grew) {
    if (size < 64) size = 64;
    /* issue 7: CATENA_FAULT=out-of-memory[@N] fails an allocation at backend creation or at step N */
    if (o->fault_kind == CTN_FAULT_OUT_OF_MEMORY && !o->fault_fired && o->step_index == o->fault_step) {
        o->fault_fired = 1;
        return ctn__fail(w, CTN_ERR_DEVICE, "clCreateBuffer(%zu bytes): %s (injected by CATENA_FAULT)", size,
                         ctn__cl_error_name(CL_MEM_OBJECT_ALLOCATION_FAILURE));
    }
    if (b->mem && b->size >= size) return CTN_OK;
    size_t cap = b->mem && size <= (size_t)-1 / 3 * 2 ? size + size / 2 : size; /* grow geometrically when a world keeps growing */
    /* issue 7: a buffer larger than the device allows is refused with the sizes, not left to the driver */
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

static void phase_begin(ctn_ocl *o, int phase) { o->phase = phase; }

/* Closes the current phase instance: keeps its (first, last) events for the timing read-out. */
static void phase_end(ctn_ocl *o) {
    int ph = o->phase;
    o->phase = -1;
    if (!o->phase_first) return;
    if (o->ev_count == o->ev_cap) {
        int cap = o->ev_cap ? 2 * o->ev_cap : 64;
        cl_event *ev = realloc(o->ev, 2 * (size_t)cap * sizeof *ev);
        int *ph_arr = ev ? realloc(o->ev_phase, (size_t)cap * sizeof *ph_arr) : NULL;
        if (ev) o->ev = ev;
        if (ph_arr) o->ev_phase = ph_arr;
        if (!ev || !ph_arr) { /* timing is best effort: drop this instance rather than fail the step */
            clReleaseEvent(o->phase_first);
            if (o->phase_last) clReleaseEvent(o->phase_last);
            o->phase_first = o->phase_last = NULL;
            return;
        }
        o->ev_cap = cap;
    }
    o->ev[2 * o->ev_count] = o->phase_first;
    o->ev[2 * o->ev_count + 1] = o->phase_last;
    o->ev_phase[o->ev_count++] = ph;
    o->phase_first = o->phase_last = NULL;
}

static void drop_events(ctn_ocl *o) {
    for (int i = 0; i < 2 * o->ev_count; ++i)
        if (o->ev[i]) clReleaseEvent(o->ev[i]);
    o->ev_count = 0;
    if (o->phase_first) clReleaseEvent(o->phase_first);
    if (o->phase_last) clReleaseEvent(o->phase_last);
    o->phase_first = o->phase_last = NULL;
    o->phase = -1;
}

/* Device time of each phase: from the start of its first command to the end of its last one. */
static void collect_times(ctn_ocl *o, double ms[CTN_PH_COUNT]) {
    for (int i = 0; i < o->ev_count; ++i) {
        cl_event a = o->ev[2 * i], b = o->ev[2 * i + 1] ? o->ev[2 * i + 1] : o->ev[2 * i];
        cl_ulong t0 = 0, t1 = 0;
        if (clGetEventProfilingInfo(a, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL) == CL_SUCCESS &&
            clGetEventProfilingInfo(b, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL) == CL_SUCCESS && t1 >= t0)
            ms[o->ev_phase[i]] += (double)(t1 - t0) * 1e-6;
    }
    drop_events(o);
}


/* ---- uploads ----------------------------------------------------------------------------------------- */

static ctn_status write_buf(ctn_world *w, ctn_ocl *o, ctn_clbuf *b, const void *data, size_t size, const char *what) {
    if (size == 0) return CTN_OK;
    cl_int e = clEnqueueWriteBuffer(o->queue, b->mem, CL_TRUE, 0, size, data, 0, NULL, NULL);
    if (e != CL_SUCCESS) return ctn__fail(w, CTN_ERR_DEVICE, "uploading %s (%zu bytes): %s", what, size, ctn__cl_error_name(e));
    return CTN_OK;
}

static ctn_status upload_bodies(ctn_world *w, ctn_ocl *o) {
    size_t n = (size_t)w->body_count;
    TRY(write_buf(w, o, &o->pose, w->pose, n * sizeof(ctn_pose), "poses"));
    TRY(write_buf(w, o, &o->vel, w->vel, n * sizeof(ctn_vel), "velocities"));
    TRY(write_buf(w, o, &o->inertia, w->inertia, n * sizeof(ctn_inertia), "inertias"));
    TRY(write_buf(w, o, &o->props, w->props, n * sizeof(ctn_props), "body properties"));
    return CTN_OK;
}

static ctn_status upload_layout(ctn_world *w, ctn_ocl *o) {
    const ctn_topology *t = &w->topo;
    size_t m = (size_t)t->joint_count, n = (size_t)t->body_count;
    TRY(write_buf(w, o, &o->defs, t->defs, m * sizeof(ctn_joint_def), "joints"));
    TRY(write_buf(w, o, &o->lambda, t->lambda, 6 * m * sizeof(float), "impulses"));
    if (t->adj_offsets) {
        TRY(write_buf(w, o, &o->adj_offsets, t->adj_offsets, (n + 1) * sizeof(int), "adjacency offsets"));
        TRY(write_buf(w, o, &o->adj, t->adj, (size_t)t->adj_offsets[n] * sizeof(int), "adjacency"));
        TRY(write_buf(w, o, &o->spring_adj_offsets, t->spring_adj_offsets, (n + 1) * sizeof(int), "spring adjacency offsets"));
        TRY(write_buf(w, o, &o->spring_adj, t->spring_adj, (size_t)t->spring_adj_offsets[n] * sizeof(int), "spring adjacency"));
    }
    TRY(write_buf(w, o, &o->split, t->split, n * sizeof(float), "mass-splitting factors"));
    TRY(write_buf(w, o, &o->springs, t->springs, (size_t)t->spring_count * sizeof(ctn_joint_def), "springs"));
    o->layout_version = w->topology_version;
    o->have_layout = 1;
    return CTN_OK;
}

/* Sizes every device array for the current world; re-uploads what a reallocation lost. */
static ctn_status reserve_all(ctn_world *w, ctn_ocl *o) {
    const ctn_topology *t = &w->topo;
    size_t n = (size_t)w->body_count, m = (size_t)t->joint_count;
    int body_grew = 0, layout_grew = 0, r2_grew = 0;
    TRY(ctn__ocl_reserve(w, o, &o->pose, n * sizeof(ctn_pose), &body_grew));
    TRY(ctn__ocl_reserve(w, o, &o->vel, n * sizeof(ctn_vel), &body_grew));
    TRY(ctn__ocl_reserve(w, o, &o->inertia, n * sizeof(ctn_inertia), &body_grew));
    TRY(ctn__ocl_reserve(w, o, &o->props, n * sizeof(ctn_props), &body_grew));
    if (t->spring_count > 0) TRY(ctn__ocl_reserve(w, o, &o->vel_copy, n * sizeof(ctn_vel), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->defs, m * sizeof(ctn_joint_def), &layout_grew));
    TRY(ctn__ocl_reserve(w, o, &o->lambda, 6 * m * sizeof(float), &layout_grew));
    TRY(ctn__ocl_reserve(w, o, &o->adj_offsets, (n + 1) * sizeof(int), &layout_grew));
    TRY(ctn__ocl_reserve(w, o, &o->adj, (t->adj_offsets ? (size_t)t->adj_offsets[t->body_count] : 0) * sizeof(int), &layout_grew));
    TRY(ctn__ocl_reserve(w, o, &o->split, n * sizeof(float), &layout_grew));
    TRY(ctn__ocl_reserve(w, o, &o->springs, (size_t)t->spring_count * sizeof(ctn_joint_def), &layout_grew));
    TRY(ctn__ocl_reserve(w, o, &o->spring_adj_offsets, (n + 1) * sizeof(int), &layout_grew));
    TRY(ctn__ocl_reserve(w, o, &o->spring_adj,
                         (t->spring_adj_offsets ? (size_t)t->spring_adj_offsets[t->body_count] : 0) * sizeof(int), &layout_grew));
    TRY(ctn__ocl_reserve(w, o, &o->blocks, m * sizeof(ctn_block), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->dlambda, 6 * m * sizeof(float), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->r2, m * sizeof(float), &r2_grew));
    TRY(ctn__ocl_reserve(w, o, &o->gap, m * sizeof(float), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->angle, m * sizeof(float), NULL));
    if (r2_grew) { /* CG leaves r2 unwritten; keep it defined for the reduction */
        float zero = 0.0f;
        TRY(ctn__ocl_check(w, clEnqueueFillBuffer(o->queue, o->r2.mem, &zero, sizeof zero, 0, o->r2.size / sizeof zero * sizeof zero, 0, NULL, NULL),
                           "clearing the residual array"));
    }
    if (w->solver == CTN_SOLVER_CG) {
        TRY(ctn__ocl_reserve(w, o, &o->cg_r, 6 * m * sizeof(float), NULL));
        TRY(ctn__ocl_reserve(w, o, &o->cg_z, 6 * m * sizeof(float), NULL));
        TRY(ctn__ocl_reserve(w, o, &o->cg_ap, 6 * m * sizeof(float), NULL));
        TRY(ctn__ocl_reserve(w, o, &o->cg_u, n * sizeof(ctn_vel), NULL));
        TRY(ctn__ocl_reserve(w, o, &o->cg_scalars, 8 * sizeof(float), NULL));
    }
    if (body_grew) w->bodies_dirty = 1;
    if (layout_grew) o->have_layout = 0;
    return CTN_OK;
}

/* ---- the phases of one substep ------------------------------------------------------------------- */

static ctn_status run_prepare(ctn_world *w, ctn_ocl *o, ctn_step_params prm) {
    int m = w->topo.joint_count, k = CTN_K_PREPARE;
    ARG(k, 0, m);
    ARG(k, 1, o->defs.mem);
    ARG(k, 2, o->pose.mem);
    ARG(k, 3, o->vel.mem);
    ARG(k, 4, o->inertia.mem);
    ARG(k, 5, o->split.mem);
    ARG(k, 6, prm);
    ARG(k, 7, o->blocks.mem);
    return ctn__ocl_launch(w, o, k, (size_t)m, "row build");
}

/* World inverse inertia with the geometric-stiffness term (ctn_geometric_inertia_body). */
static ctn_status run_geometric_inertia(ctn_world *w, ctn_ocl *o, ctn_step_params prm, cl_mem lambda) {
    int n = w->body_count, k = CTN_K_GEOMETRIC_INERTIA;
    float gs_h = prm.geometric_stiffness * prm.h;
    ARG(k, 0, n);
    ARG(k, 1, o->pose.mem);
    ARG(k, 2, o->props.mem);
    ARG(k, 3, o->adj_offsets.mem);
    ARG(k, 4, o->adj.mem);
    ARG(k, 5, o->defs.mem);
    ARG(k, 6, lambda);
    ARG(k, 7, gs_h);
    ARG(k, 8, o->inertia.mem);
    return ctn__ocl_launch(w, o, k, (size_t)n, "geometric-stiffness inertia");
}

static ctn_status run_forces(ctn_world *w, ctn_ocl *o, ctn_step_params prm) {
    int n = w->body_count, k = CTN_K_FORCES;
    cl_mem in = o->vel.mem;
    if (w->topo.spring_count > 0 && n > 0) {
        /* springs read a copy: a body's spring force must not see a neighbour's already updated velocity */
        cl_event ev = NULL;
        TRY(ctn__ocl_check(w, clEnqueueCopyBuffer(o->queue, o->vel.mem, o->vel_copy.mem, 0, 0, (size_t)n * sizeof(ctn_vel), 0, NULL,
                                                  o->profiling ? &ev : NULL),
                           "copying velocities for the spring forces"));
        ctn__ocl_note_event(o, ev);
        in = o->vel_copy.mem;
    }
    ARG(k, 0, n);
    ARG(k, 1, o->props.mem);
    ARG(k, 2, o->inertia.mem);
    ARG(k, 3, o->spring_adj_offsets.mem);
    ARG(k, 4, o->spring_adj.mem);
    ARG(k, 5, o->springs.mem);
    ARG(k, 6, o->pose.mem);
    ARG(k, 7, in);
    ARG(k, 8, o->vel.mem);
    ARG(k, 9, prm);
    return ctn__ocl_launch(w, o, k, (size_t)n, "external forces");
}

/* v += scale M^-1 J^T l per body (seed 003's Jacobian-transpose assembly). */
static ctn_status run_gather(ctn_world *w, ctn_ocl *o, cl_mem l, float scale) {
    int n = w->body_count, k = CTN_K_GATHER;
    ARG(k, 0, n);
    ARG(k, 1, o->adj_offsets.mem);
    ARG(k, 2, o->adj.mem);
    ARG(k, 3, o->blocks.mem);
    ARG(k, 4, l);
    ARG(k, 5, scale);
    ARG(k, 6, o->vel.mem);
    ARG(k, 7, o->inertia.mem);
    return ctn__ocl_launch(w, o, k, (size_t)n, "impulse gather");
}

/* Warm start: lambda *= w (clBLAST scal), then v += M^-1 J^T lambda. */
static ctn_status run_warm_start(ctn_world *w, ctn_ocl *o, float warm) {
    size_t len = 6 * (size_t)w->topo.joint_count;
    if (len == 0) return CTN_OK;
    cl_event ev = NULL;
    CLBlastStatusCode s = CLBlastSscal(len, warm, o->lambda.mem, 0, 1, &o->queue, o->profiling ? &ev : NULL);
    if (s != CLBlastSuccess)
        return ctn__fail(w, CTN_ERR_DEVICE, "clBLAST Sscal (warm start): %s (%d)", ctn__clblast_status_name(s), (int)s);
    ctn__ocl_note_event(o, ev);
    return run_gather(w, o, o->lambda.mem, 1.0f);
}

/* Coloured block Gauss-Seidel: one launch per colour, then the overflow group on one work-item. */
static ctn_status solve_gs(ctn_world *w, ctn_ocl *o) {
    const ctn_topology *t = &w->topo;
    for (int it = 0; it < w->desc.iterations; ++it) {
        for (int c = 0; c <= t->colour_count; ++c) {
            int begin = t->colour_offsets[c], count = t->colour_offsets[c + 1] - begin;
            if (count == 0) continue;
            int k = c < t->colour_count ? CTN_K_GS_COLOUR : CTN_K_GS_SERIAL;
            int second = k == CTN_K_GS_COLOUR ? count : begin + count; /* count, or end for the serial kernel */
            ARG(k, 0, begin);
            ARG(k, 1, second);
            ARG(k, 2, o->defs.mem);
            ARG(k, 3, o->blocks.mem);
            ARG(k, 4, o->lambda.mem);
            ARG(k, 5, o->vel.mem);
            ARG(k, 6, o->inertia.mem);
            ARG(k, 7, o->r2.mem);
            TRY(ctn__ocl_launch(w, o, k, k == CTN_K_GS_COLOUR ? (size_t)count : 1, "Gauss-Seidel colour"));
        }
    }
    return CTN_OK;
}

/* Jacobi with mass splitting: all rows from the same velocities, then the per-body gather. */
static ctn_status solve_jacobi(ctn_world *w, ctn_ocl *o) {
    int m = w->topo.joint_count, k = CTN_K_JACOBI;
    for (int it = 0; it < w->desc.iterations; ++it) {
        ARG(k, 0, m);
        ARG(k, 1, o->defs.mem);
        ARG(k, 2, o->blocks.mem);
        ARG(k, 3, o->lambda.mem);
        ARG(k, 4, o->vel.mem);
        ARG(k, 5, o->dlambda.mem);
        ARG(k, 6, o->r2.mem);
        TRY(ctn__ocl_launch(w, o, k, (size_t)m, "Jacobi rows"));
        TRY(run_gather(w, o, o->dlambda.mem, 1.0f));
    }
    return CTN_OK;
}

static ctn_status run_integrate(ctn_world *w, ctn_ocl *o, float h) {
    int n = w->body_count, k = CTN_K_INTEGRATE;
    ARG(k, 0, n);
    ARG(k, 1, o->pose.mem);
    ARG(k, 2, o->vel.mem);
    ARG(k, 3, o->props.mem);
    ARG(k, 4, o->inertia.mem);
    ARG(k, 5, h);
    return ctn__ocl_launch(w, o, k, (size_t)n, "integration");
}

/* Deterministic two-pass reduction of n floats per array: out[0] = sum of x0, out[1] = max of x1,
 * out[2] = max of x2 (ctn_k_reduce3 + ctn_k_reduce3_final). */
static ctn_status run_reduce3(ctn_world *w, ctn_ocl *o, int n, cl_mem x0, cl_mem x1, cl_mem x2, cl_mem out) {
    size_t L = o->reduce_local;
    int groups = (int)(((size_t)n + L - 1) / L);
    if (groups > REDUCE_GROUPS) groups = REDUCE_GROUPS;
    int k = CTN_K_REDUCE3;
    ARG(k, 0, n);
    ARG(k, 1, x0);
    ARG(k, 2, x1);
    ARG(k, 3, x2);
    ARG(k, 4, o->partial.mem);
    TRY(ctn__ocl_arg(w, o, k, 5, 3 * L * sizeof(float), NULL));
    size_t global = (size_t)groups * L;
    TRY(ctn__ocl_check(w, clEnqueueNDRangeKernel(o->queue, o->kernel[k], 1, NULL, &global, &L, 0, NULL, NULL), "reduction (ctn_k_reduce3)"));
    k = CTN_K_REDUCE3_FINAL;
    ARG(k, 0, groups);
    ARG(k, 1, o->partial.mem);
    ARG(k, 2, out);
    TRY(ctn__ocl_arg(w, o, k, 3, 3 * L * sizeof(float), NULL));
    TRY(ctn__ocl_check(w, clEnqueueNDRangeKernel(o->queue, o->kernel[k], 1, NULL, &L, &L, 0, NULL, NULL), "reduction (ctn_k_reduce3_final)"));
    return CTN_OK;
}

/* Joint errors and their reduction with the residual into stats[0..2]. */
static ctn_status run_measure(ctn_world *w, ctn_ocl *o) {
    int m = w->topo.joint_count;
    int k = CTN_K_JOINT_ERROR;
    ARG(k, 0, m);
    ARG(k, 1, o->defs.mem);
    ARG(k, 2, o->pose.mem);
    ARG(k, 3, o->gap.mem);
    ARG(k, 4, o->angle.mem);
    TRY(ctn__ocl_launch(w, o, k, (size_t)m, "joint errors"));
    return run_reduce3(w, o, m, o->r2.mem, o->gap.mem, o->angle.mem, o->stats.mem);
}

static ctn_status copy_buf(ctn_world *w, ctn_ocl *o, cl_mem from, cl_mem to, size_t size, const char *what) {
    if (size == 0) return CTN_OK;
    return ctn__ocl_check(w, clEnqueueCopyBuffer(o->queue, from, to, 0, 0, size, 0, NULL, NULL), what);
}

/* Post-stabilisation of the exact solver after the last substep: host/solver_cpu.c project_positions on
 * the device (the same kernels on scratch velocities, impulses and residuals, swapped in for the solve;
 * `lambda` holds the real impulses for the geometric-stiffness metric). One blocking read of the largest
 * error per Newton step (at most CTN_PROJECT_MAX + 1). */
static ctn_status project_steps(ctn_world *w, ctn_ocl *o, ctn_step_params prm, cl_mem lambda) {
    int n = w->body_count, m = w->topo.joint_count;
    prm.stabilization = 1, prm.baumgarte = 1.0f, prm.warm_start = 0.0f;
    float last = INFINITY, zero = 0.0f;
    for (int steps = 0; steps < CTN_PROJECT_MAX; ++steps) {
        int k = CTN_K_PROJECT_BEGIN;
        ARG(k, 0, n);
        ARG(k, 1, o->proj_vel.mem); /* the real velocities: swapped out by project_positions */
        ARG(k, 2, o->vel.mem);
        TRY(ctn__ocl_launch(w, o, k, (size_t)n, "projection: scratch velocities"));
        TRY(ctn__ocl_check(w, clEnqueueFillBuffer(o->queue, o->lambda.mem, &zero, sizeof zero, 0, 6 * (size_t)m * sizeof zero, 0, NULL, NULL),
                           "projection: clearing the scratch impulses"));
        if (prm.geometric_stiffness > 0.0f) TRY(run_geometric_inertia(w, o, prm, lambda));
        TRY(run_prepare(w, o, prm));
        k = CTN_K_PROJECT_SLOT;
        ARG(k, 0, m);
        ARG(k, 1, o->defs.mem);
        ARG(k, 2, o->blocks.mem);
        ARG(k, 3, prm.h);
        ARG(k, 4, o->proj_err.mem);
        TRY(ctn__ocl_launch(w, o, k, (size_t)m, "projection: rows"));
        TRY(run_reduce3(w, o, m, o->proj_err.mem, o->proj_err.mem, o->proj_err.mem, o->proj_stats.mem));
        float top[3];
        TRY(ctn__ocl_check(w, clEnqueueReadBuffer(o->queue, o->proj_stats.mem, CL_TRUE, 0, sizeof top, top, 0, NULL, NULL),
                           "projection: reading the largest error"));
        if (!(top[1] < last)) { /* the last step made it worse: undo it */
            TRY(copy_buf(w, o, o->proj_pose.mem, o->pose.mem, (size_t)n * sizeof(ctn_pose), "projection: undoing a step"));
            break;
        }
        if (!(top[1] > CTN_PROJECT_TOL)) break;
        last = top[1];
        TRY(copy_buf(w, o, o->pose.mem, o->proj_pose.mem, (size_t)n * sizeof(ctn_pose), "projection: keeping the poses"));
        TRY(ctn__ocl_solve_direct(w, o));
        TRY(run_integrate(w, o, prm.h));
    }
    /* the scratch velocities are zero here (set at the top of the last pass): this only refreshes the plain
     * inverse inertia of the final poses */
    return run_integrate(w, o, prm.h);
}

static ctn_status project_positions(ctn_world *w, ctn_ocl *o, ctn_step_params prm) {
    int n = w->body_count, m = w->topo.joint_count;
    TRY(ctn__ocl_reserve(w, o, &o->proj_vel, (size_t)n * sizeof(ctn_vel), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->proj_pose, (size_t)n * sizeof(ctn_pose), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->proj_lambda, 6 * (size_t)m * sizeof(float), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->proj_r2, (size_t)m * sizeof(float), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->proj_err, (size_t)m * sizeof(float), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->proj_stats, 4 * sizeof(float), NULL));
    ctn_clbuf vel = o->vel, lambda = o->lambda, r2 = o->r2;
    o->vel = o->proj_vel, o->lambda = o->proj_lambda, o->r2 = o->proj_r2;
    o->proj_vel = vel; /* project_steps reads the real velocities from here */
    ctn_status s = project_steps(w, o, prm, lambda.mem);
    o->proj_vel = o->vel;
    o->vel = vel, o->lambda = lambda, o->r2 = r2;
    return s;
}

/* The one blocking read of a step. */
static ctn_status read_stats(ctn_world *w, ctn_ocl *o, float *stats) {
    cl_event ev = NULL;
    /* issue 7: CATENA_FAULT=device-lost@N / out-of-resources@N fail this read at step N */
    if (o->in_step && (o->fault_kind == CTN_FAULT_DEVICE_LOST || o->fault_kind == CTN_FAULT_OUT_OF_RESOURCES) && !o->fault_fired &&
        o->step_index == o->fault_step) {
        o->fault_fired = 1;
        clFinish(o->queue);
        return ctn__fail(w, CTN_ERR_DEVICE, "reading the step statistics: %s (injected by CATENA_FAULT)",
                         ctn__cl_error_name(o->fault_kind == CTN_FAULT_DEVICE_LOST ? CL_DEVICE_NOT_AVAILABLE : CL_OUT_OF_RESOURCES));
    }
    cl_int e = clEnqueueReadBuffer(o->queue, o->stats.mem, CL_TRUE, 0, STATS_FLOATS * sizeof(float), stats, 0, NULL,
                                   o->profiling && o->phase >= 0 ? &ev : NULL);
    if (e != CL_SUCCESS) return ctn__fail(w, CTN_ERR_DEVICE, "reading the step statistics: %s", ctn__cl_error_name(e));
    ctn__ocl_note_event(o, ev);
    return CTN_OK;
}

/* CG solves equalities only (as on the CPU, host/solver_cpu.c): a step whose layout holds joints with
 * bounded rows (contacts, hinge limits or motors, ropes) is solved by Gauss-Seidel, reported once. The
 * device has the blocks, so the test is on the joint definitions: conservative for a limit not reached. */
static int has_bounded_joints(ctn_world *w, ctn_ocl *o) {
    const ctn_topology *t = &w->topo;
    for (int s = 0; s < t->joint_count; ++s) {
        const ctn_joint_def *d = &t->defs[s];
        if (d->type == CTN_JT_CONTACT || (d->flags & (CTN_JF_LIMIT | CTN_JF_MOTOR | CTN_JF_ROPE))) {
            if (!o->cg_warned) {
                o->cg_warned = 1;
                ctn__log(w, CTN_LOG_INFO,
                         "the CG solver handles bilateral rows only; joint %d has bounded rows (contact, limit, "
                         "motor or rope), so steps with bounded rows are solved by Gauss-Seidel",
                         t->order[s]);
            }
            return 1;
        }
    }
    return 0;
}

/* ---- issue 7: device snapshot, divergence check, fault recovery -------------------------------------- */

static ctn_status read_buf(ctn_world *w, ctn_ocl *o, const ctn_clbuf *b, void *data, size_t size, const char *what);

/* Pose and velocity of one body from the device (the divergence message). */
static ctn_status read_body(ctn_world *w, ctn_ocl *o, int i, ctn_pose *p, ctn_vel *v) {
    cl_int e = clEnqueueReadBuffer(o->queue, o->pose.mem, CL_TRUE, (size_t)i * sizeof *p, sizeof *p, p, 0, NULL, NULL);
    if (e == CL_SUCCESS) e = clEnqueueReadBuffer(o->queue, o->vel.mem, CL_TRUE, (size_t)i * sizeof *v, sizeof *v, v, 0, NULL, NULL);
    return ctn__ocl_check(w, e, "reading the diverged body");
}

/* Device-side copy of the state the step starts from (after this step's uploads). */
static ctn_status take_snapshot(ctn_world *w, ctn_ocl *o) {
    size_t n = (size_t)w->body_count, m = (size_t)w->topo.joint_count;
    TRY(ctn__ocl_reserve(w, o, &o->snap_pose, n * sizeof(ctn_pose), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->snap_vel, n * sizeof(ctn_vel), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->snap_inertia, n * sizeof(ctn_inertia), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->snap_lambda, 6 * m * sizeof(float), NULL));
    TRY(copy_buf(w, o, o->pose.mem, o->snap_pose.mem, n * sizeof(ctn_pose), "snapshot of the poses"));
    TRY(copy_buf(w, o, o->vel.mem, o->snap_vel.mem, n * sizeof(ctn_vel), "snapshot of the velocities"));
    TRY(copy_buf(w, o, o->inertia.mem, o->snap_inertia.mem, n * sizeof(ctn_inertia), "snapshot of the inertias"));
    TRY(copy_buf(w, o, o->lambda.mem, o->snap_lambda.mem, 6 * m * sizeof(float), "snapshot of the impulses"));
    o->snap_taken = 1;
    return CTN_OK;
}

/* Puts the snapshot back on the device (a diverged step is undone without touching the host). */
static ctn_status restore_snapshot(ctn_world *w, ctn_ocl *o) {
    size_t n = (size_t)w->body_count, m = (size_t)w->topo.joint_count;
    TRY(copy_buf(w, o, o->snap_pose.mem, o->pose.mem, n * sizeof(ctn_pose), "restoring the poses"));
    TRY(copy_buf(w, o, o->snap_vel.mem, o->vel.mem, n * sizeof(ctn_vel), "restoring the velocities"));
    TRY(copy_buf(w, o, o->snap_inertia.mem, o->inertia.mem, n * sizeof(ctn_inertia), "restoring the inertias"));
    TRY(copy_buf(w, o, o->snap_lambda.mem, o->lambda.mem, 6 * m * sizeof(float), "restoring the impulses"));
    return ctn__ocl_check(w, clFinish(o->queue), "clFinish");
}

/* Max body speed and first offending body into stats[STATS_CHECK..+1] (no blocking read here: it joins
 * the step's one stats read). */
static ctn_status run_body_check(ctn_world *w, ctn_ocl *o) {
    int n = w->body_count, k = CTN_K_BODY_CHECK;
    float limit = w->desc.max_speed > 0.0 ? (float)w->desc.max_speed : INFINITY;
    size_t L = o->check_local;
    int groups = (int)(((size_t)n + L - 1) / L);
    if (groups > REDUCE_GROUPS) groups = REDUCE_GROUPS;
    if (groups < 1) groups = 1;
    ARG(k, 0, n);
    ARG(k, 1, o->pose.mem);
    ARG(k, 2, o->vel.mem);
    ARG(k, 3, limit);
    ARG(k, 4, o->partial.mem);
    TRY(ctn__ocl_arg(w, o, k, 5, 2 * L * sizeof(int), NULL));
    size_t global = (size_t)groups * L;
    TRY(ctn__ocl_check(w, clEnqueueNDRangeKernel(o->queue, o->kernel[k], 1, NULL, &global, &L, 0, NULL, NULL), "divergence check (ctn_k_body_check)"));
    k = CTN_K_BODY_CHECK_FINAL;
    int at = STATS_CHECK;
    ARG(k, 0, groups);
    ARG(k, 1, n);
    ARG(k, 2, o->partial.mem);
    ARG(k, 3, o->stats.mem);
    ARG(k, 4, at);
    TRY(ctn__ocl_arg(w, o, k, 5, 2 * L * sizeof(int), NULL));
    TRY(ctn__ocl_check(w, clEnqueueNDRangeKernel(o->queue, o->kernel[k], 1, NULL, &L, &L, 0, NULL, NULL),
                       "divergence check (ctn_k_body_check_final)"));
    return CTN_OK;
}

/* After the stats read: a body that is non-finite or faster than desc.max_speed, or a non-finite joint
 * error or residual, undoes the step on the device and returns CTN_ERR_DIVERGED naming the body (the
 * same message as the CPU guard, from that one body read back). */
static ctn_status check_divergence(ctn_world *w, ctn_ocl *o, const float *stats, ctn_step_stats *st) {
    int32_t top_bits, bad;
    float top;
    memcpy(&top_bits, &stats[STATS_CHECK], sizeof top_bits);
    memcpy(&bad, &stats[STATS_CHECK + 1], sizeof bad);
    memcpy(&top, &top_bits, sizeof top);
    st->max_speed = top;
    int stats_bad = !isfinite(st->max_gap) || !isfinite(st->residual);
    if (bad >= w->body_count && !stats_bad) return CTN_OK;
    char msg[sizeof w->error];
    if (bad >= 0 && bad < w->body_count) {
        ctn_pose p;
        ctn_vel v;
        TRY(read_body(w, o, bad, &p, &v));
        double speed = 0.0;
        if (ctn__divergence_body(w, bad, &p, &v, &speed) == CTN_OK) /* rounding between device and host */
            ctn__fail(w, CTN_ERR_DIVERGED, "step diverged: body %lld reached %g (desc.max_speed %g); the step was undone",
                      (long long)ctn__body_handle(w, (int)bad), speed,
                      w->desc.max_speed);
        snprintf(msg, sizeof msg, "%s", w->error);
    } else {
        snprintf(msg, sizeof msg, "step diverged on the opencl backend: joint error %g, residual %g; the step was undone", st->max_gap,
                 st->residual);
    }
    TRY(restore_snapshot(w, o));
    return ctn__fail(w, CTN_ERR_DIVERGED, "%s", msg);
}

static ctn_status ocl_step_inner(ctn_world *w, ctn_ocl *o, ctn_step_stats *st) {
    const ctn_topology *t = &w->topo;
    double th = ctn__now_ms();
    TRY(reserve_all(w, o));
    if (!o->have_layout || o->layout_version != w->topology_version) TRY(upload_layout(w, o));
    if (w->solver == CTN_SOLVER_DIRECT) { /* issue 8 (host/opencl_direct.c) */
        ctn_status ds = ctn__ocl_direct_prepare(w, o);
        if (ds == CTN_ERR_UNSUPPORTED && w->desc.solver == CTN_SOLVER_AUTO) {
            w->solver = CTN_SOLVER_GS; /* auto: a layout the device cannot eliminate runs GS (until it changes) */
            w->error[0] = '\0';
        } else if (ds != CTN_OK) {
            return ds;
        }
    }
    if (w->bodies_dirty) TRY(upload_bodies(w, o));
    w->bodies_dirty = 0;
    TRY(take_snapshot(w, o)); /* issue 7 */
    double ms_upload = ctn__now_ms() - th;

    int substeps = w->desc.substeps;
    ctn_step_params prm = ctn__step_params(w);
    int use_gs_for_cg = w->solver == CTN_SOLVER_CG && has_bounded_joints(w, o);
    drop_events(o);
    for (int sub = 0; sub < substeps; ++sub) {
        phase_begin(o, CTN_PH_PREPARE);
        if (prm.geometric_stiffness > 0.0f && t->joint_count > 0) TRY(run_geometric_inertia(w, o, prm, o->lambda.mem));
        TRY(run_prepare(w, o, prm));
        phase_end(o);
        phase_begin(o, CTN_PH_INTEGRATE);
        TRY(run_forces(w, o, prm));
        phase_end(o);
        phase_begin(o, CTN_PH_SOLVE);
        TRY(run_warm_start(w, o, prm.warm_start));
        if (w->solver == CTN_SOLVER_GS || use_gs_for_cg) TRY(solve_gs(w, o));
        else if (w->solver == CTN_SOLVER_JACOBI) TRY(solve_jacobi(w, o));
        else if (w->solver == CTN_SOLVER_DIRECT) TRY(ctn__ocl_solve_direct(w, o));
        else TRY(ctn__ocl_solve_cg(w, o));
        phase_end(o);
        phase_begin(o, CTN_PH_INTEGRATE);
        TRY(run_integrate(w, o, prm.h));
        phase_end(o);
    }
    if (w->solver == CTN_SOLVER_DIRECT && t->joint_count > 0) {
        phase_begin(o, CTN_PH_SOLVE);
        TRY(project_positions(w, o, prm));
        phase_end(o);
    }
    float stats[STATS_FLOATS] = {0};
    if (t->joint_count > 0) TRY(run_measure(w, o));
    TRY(run_body_check(w, o)); /* issue 7: joins the one blocking read below */
    phase_begin(o, CTN_PH_TRANSFER);
    TRY(read_stats(w, o, stats));
    phase_end(o);
    if (t->joint_count == 0) memset(stats, 0, STATS_CHECK * sizeof *stats); /* no joints: nothing measured */
    double ms[CTN_PH_COUNT] = {0};
    collect_times(o, ms);
    st->ms_prepare += ms[CTN_PH_PREPARE];
    st->ms_solve += ms[CTN_PH_SOLVE];
    st->ms_integrate += ms[CTN_PH_INTEGRATE];
    st->ms_transfer += ms[CTN_PH_TRANSFER] + ms_upload;
    double r2 = w->solver == CTN_SOLVER_CG ? (double)stats[3] * stats[3] : (double)stats[0];
    st->residual = t->row_count ? sqrt(r2 / t->row_count) : 0.0;
    st->max_gap = stats[1];
    st->max_angle = stats[2];
    w->host_stale = 1;
    return check_divergence(w, o, stats, st); /* issue 7 */
}

/* Issue 7: after a failed step, brings the state the step started from (the last good state) into the
 * host arrays: the device snapshot when this step took one, else the device arrays (untouched by the
 * failed step) when the host is stale. On success the host is current (host_stale 0) and the next step
 * re-uploads everything, so a world on explicit `opencl` can retry and a world on `auto` can go on on the
 * CPU backend (ctn_world_step). When the device cannot be read the host stays stale and says so. */
static ctn_status recover_after_fault(ctn_world *w, ctn_ocl *o, ctn_status s) {
    char why[sizeof w->error];
    snprintf(why, sizeof why, "%s", w->error);
    size_t n = (size_t)w->body_count, m = (size_t)w->topo.joint_count;
    clFinish(o->queue);
    if (o->snap_taken || w->host_stale) {
        int snap = o->snap_taken;
        ctn_status r = read_buf(w, o, snap ? &o->snap_pose : &o->pose, w->pose, n * sizeof(ctn_pose), "poses");
        if (r == CTN_OK) r = read_buf(w, o, snap ? &o->snap_vel : &o->vel, w->vel, n * sizeof(ctn_vel), "velocities");
        if (r == CTN_OK) r = read_buf(w, o, snap ? &o->snap_inertia : &o->inertia, w->inertia, n * sizeof(ctn_inertia), "inertias");
        if (r == CTN_OK && (snap || o->have_layout))
            r = read_buf(w, o, snap ? &o->snap_lambda : &o->lambda, w->topo.lambda, 6 * m * sizeof(float), "impulses");
        if (r != CTN_OK) {
            w->host_stale = 1;
            return ctn__fail(w, s, "%s; the state before the step could not be read back (%s)", why, w->error);
        }
    }
    w->host_stale = 0;
    w->bodies_dirty = 1;
    o->have_layout = 0;
    return ctn__fail(w, s, "%s; the world holds the state before this step", why);
}

static ctn_status ocl_step(ctn_world *w, ctn_step_stats *st) {
    ctn_ocl *o = w->backend_data;
    ++o->step_index;
    o->launches = 0;
    o->snap_taken = 0;
    o->in_step = 1;
    ctn_status s = ocl_step_inner(w, o, st);
    o->in_step = 0;
    if (s != CTN_OK && s != CTN_ERR_DIVERGED) {
        drop_events(o);
        s = recover_after_fault(w, o, s);
    }
    return s;
}

static ctn_status read_buf(ctn_world *w, ctn_ocl *o, const ctn_clbuf *b, void *data, size_t size, const char *what) {
    if (size == 0) return CTN_OK;
    cl_int e = clEnqueueReadBuffer(o->queue, b->mem, CL_TRUE, 0, size, data, 0, NULL, NULL);
    if (e != CL_SUCCESS) return ctn__fail(w, CTN_ERR_DEVICE, "reading %s (%zu bytes): %s", what, size, ctn__cl_error_name(e));
    return CTN_OK;
}

static ctn_status ocl_sync(ctn_world *w) {
    ctn_ocl *o = w->backend_data;
    size_t n = (size_t)w->body_count, m = (size_t)w->topo.joint_count;
    if (!o->pose.mem) return CTN_OK; /* never stepped */
    TRY(read_buf(w, o, &o->pose, w->pose, n * sizeof(ctn_pose), "poses"));
    TRY(read_buf(w, o, &o->vel, w->vel, n * sizeof(ctn_vel), "velocities"));
    TRY(read_buf(w, o, &o->inertia, w->inertia, n * sizeof(ctn_inertia), "inertias"));
    if (o->have_layout) TRY(read_buf(w, o, &o->lambda, w->topo.lambda, 6 * m * sizeof(float), "impulses"));
    return CTN_OK;
}

static ctn_status ocl_measure(ctn_world *w, double *max_gap, double *max_angle) {
    ctn_ocl *o = w->backend_data;
    float stats[STATS_FLOATS] = {0};
    if (w->topo.joint_count > 0 && o->have_layout && !w->topology_dirty) {
        TRY(run_measure(w, o));
        TRY(read_stats(w, o, stats));
    } else {
        TRY(ctn__sync(w));
        ctn__measure_host(w, max_gap, max_angle);
        return CTN_OK;
    }
    *max_gap = stats[1];
    *max_angle = stats[2];
    return CTN_OK;
}

static void ocl_release(ctn_ocl *o) {
    drop_events(o);
    free(o->ev);
    free(o->ev_phase);
    ctn_clbuf *bufs[] = {&o->pose,   &o->vel,    &o->vel_copy, &o->inertia,           &o->props,      &o->defs,  &o->lambda,
                         &o->adj_offsets, &o->adj, &o->split, &o->springs, &o->spring_adj_offsets, &o->spring_adj, &o->blocks,
                         &o->dlambda, &o->r2,    &o->gap,      &o->angle,             &o->partial,    &o->stats, &o->cg_r,
                         &o->cg_z,   &o->cg_ap,  &o->cg_u,     &o->cg_scalars,
                         &o->snap_pose, &o->snap_vel, &o->snap_inertia, &o->snap_lambda, &o->proj_vel, &o->proj_lambda,
                         &o->proj_r2, &o->proj_err, &o->proj_pose, &o->proj_stats};
    if (o->queue) clFinish(o->queue);
    ctn__ocl_direct_release(o); /* issue 8 */
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
        if (bufs[i]->mem) clReleaseMemObject(bufs[i]->mem);
    for (int k = 0; k < CTN_K_COUNT; ++k)
        if (o->kernel[k]) clReleaseKernel(o->kernel[k]);
    if (o->program) clReleaseProgram(o->program);
    if (o->queue) clReleaseCommandQueue(o->queue);
    if (o->ctx) clReleaseContext(o->ctx);
    free(o);
}

static void ocl_destroy(ctn_world *w) {
    if (w->backend_data) ocl_release(w->backend_data);
    w->backend_data = NULL;
}

static const ctn_backend_ops opencl_backend = {"opencl", ocl_step, ocl_sync, ocl_measure, ocl_destroy};

int ctn__opencl_build_info(const ctn_world *w, ctn_ocl_build_info *out) {
    if (!w || w->backend != &opencl_backend || !w->backend_data) return 0;
    *out = ((const ctn_ocl *)w->backend_data)->build;
    return 1;
}

/* Work-group size of kernel k on this device: the largest multiple of its preferred size multiple that
 * fits both its CL_KERNEL_WORK_GROUP_SIZE and MAX_LOCAL; pow2 rounds down to a power of two. */
static size_t pick_local(cl_kernel k, cl_device_id dev, int pow2) {
    size_t kmax = 1, mult = 1;
    if (clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax, &kmax, NULL) != CL_SUCCESS || kmax == 0) kmax = 1;
    if (clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof mult, &mult, NULL) != CL_SUCCESS || mult == 0)
        mult = 1;
    size_t cap = kmax < MAX_LOCAL ? kmax : MAX_LOCAL;
    if (pow2) {
        size_t p = 1;
        while (2 * p <= cap) p *= 2;
        return p;
    }
    size_t local = mult <= cap ? cap / mult * mult : cap;
    return local ? local : 1;
}

static ctn_status ocl_init(ctn_world *w, ctn_ocl *o) {
    o->fault_kind = w->fault.kind; /* issue 7 */
    o->fault_step = w->fault.step;
    ctn_ocl_device_list *list = malloc(sizeof *list);
    if (!list) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory listing OpenCL devices");
    const char *why = NULL;
    cl_int e = ctn__ocl_enumerate(list, w->fault.kind == CTN_FAULT_NO_PLATFORM, &why);
    if (e != CL_SUCCESS) {
        free(list);
        return ctn__fail(w, CTN_ERR_DEVICE, "listing OpenCL devices: %s", ctn__cl_error_name(e));
    }
    if (list->count == 0) {
        free(list);
        return ctn__fail(w, CTN_ERR_DEVICE, "%s", why ? why : "no OpenCL device");
    }
    char msg[256];
    int k = ctn__ocl_pick_device(list, w->desc.device, w->desc.backend == CTN_BACKEND_OPENCL, msg, sizeof msg);
    if (k < 0) {
        free(list);
        return ctn__fail(w, CTN_ERR_DEVICE, "%s", msg);
    }
    o->platform = list->platform[k];
    o->device = list->device[k];
    cl_ulong max_alloc = 0; /* issue 7: buffer sizes are checked against it before clCreateBuffer */
    if (clGetDeviceInfo(o->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL) == CL_SUCCESS) o->max_alloc = max_alloc;
    snprintf(w->device_name, sizeof w->device_name, "%.100s (%.100s, OpenCL %d:%d)", list->info[k].name, list->info[k].platform_name,
             list->info[k].platform, list->info[k].device);
    free(list);

    cl_context_properties props[3] = {CL_CONTEXT_PLATFORM, (cl_context_properties)o->platform, 0};
    o->ctx = clCreateContext(props, 1, &o->device, NULL, NULL, &e);
    TRY(ctn__ocl_check(w, e, "clCreateContext"));
    o->queue = clCreateCommandQueue(o->ctx, o->device, CL_QUEUE_PROFILING_ENABLE, &e);
    o->profiling = e == CL_SUCCESS;
    if (e != CL_SUCCESS) o->queue = clCreateCommandQueue(o->ctx, o->device, 0, &e);
    TRY(ctn__ocl_check(w, e, "clCreateCommandQueue"));
    TRY(ctn__ocl_build_program(w, o->ctx, o->platform, o->device, &o->program, &o->build));
    for (int i = 0; i < CTN_K_COUNT; ++i) {
        o->kernel[i] = clCreateKernel(o->program, kernel_names[i], &e);
        if (e != CL_SUCCESS) {
            o->kernel[i] = NULL;
            return ctn__fail(w, CTN_ERR_DEVICE, "clCreateKernel(%s): %s", kernel_names[i], ctn__cl_error_name(e));
        }
        int serial = i == CTN_K_GS_SERIAL || i == CTN_K_CG_START || i == CTN_K_CG_ALPHA || i == CTN_K_CG_BETA;
        o->local[i] = serial ? 1 : pick_local(o->kernel[i], o->device, 0);
    }
    size_t a = pick_local(o->kernel[CTN_K_REDUCE3], o->device, 1), b = pick_local(o->kernel[CTN_K_REDUCE3_FINAL], o->device, 1);
    o->reduce_local = a < b ? a : b;
    a = pick_local(o->kernel[CTN_K_BODY_CHECK], o->device, 1), b = pick_local(o->kernel[CTN_K_BODY_CHECK_FINAL], o->device, 1);
    o->check_local = a < b ? a : b;
    TRY(ctn__ocl_reserve(w, o, &o->partial, 3 * REDUCE_GROUPS * sizeof(float), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->stats, STATS_FLOATS * sizeof(float), NULL));
    o->phase = -1;
    return CTN_OK;
}

ctn_status ctn__opencl_backend_init(ctn_world *w) {
    ctn_ocl *o = calloc(1, sizeof *o);
    if (!o) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory creating the OpenCL backend");
    ctn_status s = ocl_init(w, o);
    if (s != CTN_OK) {
        ocl_release(o);
        w->device_name[0] = '\0';
        return s;
    }
    w->backend = &opencl_backend;
    w->backend_data = o;
    return CTN_OK;
}

/* Bench hook: device copy bandwidth in GB/s, counting bytes read plus bytes written, from `reps`
 * clEnqueueCopyBuffer calls of `bytes` bytes between two device buffers (after one untimed copy).
 * Returns CTN_ERR_UNSUPPORTED when w does not run on OpenCL. */
ctn_status ctn__opencl_copy_bandwidth(ctn_world *w, size_t bytes, int reps, double *gbps) {
    if (!w || w->backend != &opencl_backend || !gbps || reps < 1) return CTN_ERR_UNSUPPORTED;
    ctn_ocl *o = w->backend_data;
    ctn_clbuf a = {NULL, 0}, b = {NULL, 0};
    ctn_status s = ctn__ocl_reserve(w, o, &a, bytes, NULL);
    if (s == CTN_OK) s = ctn__ocl_reserve(w, o, &b, bytes, NULL);
    cl_event first = NULL, last = NULL;
    if (s == CTN_OK) {
        unsigned char zero = 0;
        s = ctn__ocl_check(w, clEnqueueFillBuffer(o->queue, a.mem, &zero, 1, 0, bytes, 0, NULL, NULL), "fill");
    }
    if (s == CTN_OK) s = ctn__ocl_check(w, clEnqueueCopyBuffer(o->queue, a.mem, b.mem, 0, 0, bytes, 0, NULL, NULL), "copy");
    if (s == CTN_OK) s = ctn__ocl_check(w, clFinish(o->queue), "clFinish");
    double t0 = ctn__now_ms();
    for (int i = 0; i < reps && s == CTN_OK; ++i) {
        cl_event ev = NULL;
        s = ctn__ocl_check(w, clEnqueueCopyBuffer(o->queue, a.mem, b.mem, 0, 0, bytes, 0, NULL, o->profiling ? &ev : NULL), "copy");
        if (!first) first = ev;
        else {
            if (last) clReleaseEvent(last);
            last = ev;
        }
    }
    if (s == CTN_OK) s = ctn__ocl_check(w, clFinish(o->queue), "clFinish");
    double ms = ctn__now_ms() - t0;
    cl_ulong t_start = 0, t_end = 0;
    if (s == CTN_OK && first &&
        clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof t_start, &t_start, NULL) == CL_SUCCESS &&
        clGetEventProfilingInfo(last ? last : first, CL_PROFILING_COMMAND_END, sizeof t_end, &t_end, NULL) == CL_SUCCESS && t_end > t_start)
        ms = (double)(t_end - t_start) * 1e-6; /* device time, without the host's enqueue overhead */
    if (first) clReleaseEvent(first);
    if (last) clReleaseEvent(last);
    if (a.mem) clReleaseMemObject(a.mem);
    if (b.mem) clReleaseMemObject(b.mem);
    if (s == CTN_OK) *gbps = 2.0 * (double)bytes * reps / (ms * 1e-3) / 1e9;
    return s;
}
