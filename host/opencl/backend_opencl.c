/* The OpenCL backend: the stages of the step pipeline (host/solve/pipeline.h) as kernel launches
 * (host/opencl/opencl_stages.c), with all body and row data resident on the device.
 *
 * Per step: bodies go up only when the host edited them (bodies_dirty), the solver layout only when the
 * topology was rebuilt (topology_version); the one blocking host synchronisation is the read of the
 * stats reduction (residual, max gap, max angle, body check) at the end. Body state and impulses come back
 * only when the host asks (sync_to_host, through ctn__sync). This file creates and destroys the backend
 * and brackets a step (begin, end); buffers, launches, timing, the snapshot and the stages have files of
 * their own. */
#include "opencl/opencl_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LOCAL 256    /* work-group size cap; the device's own limits may lower it */

/* Before the stages: device arrays sized, the layout and the bodies uploaded when the host changed them,
 * the exact solver's layout checked, and the device snapshot of the state the step starts from. */
static ctn_status ocl_begin(ctn_world *w) {
    ctn_ocl *o = w->backend_data;
    /* The active set of the CPU's exact solver (kernels/ctn_direct_active.h) has no device loop yet: asked for
     * by name, it is refused rather than replaced by another algorithm (the same setting runs the same
     * algorithm on both backends); CTN_BOUNDED_AUTO takes the sweep here. */
    if (w->desc.bounded_rows == CTN_BOUNDED_EXACT)
        return ctn__fail(w, CTN_ERR_UNSUPPORTED, "desc.bounded_rows: exact (the active set for limits and motors) runs on the CPU backend only; "
                                                 "the OpenCL backend sweeps them (desc.bounded_rows auto or sweep)");
    ++o->step_index;
    o->launches = 0;
    o->step_launches = o->step_reads = 0;
    o->proj_enqueued = 0;
    o->snap_taken = 0;
    o->in_step = 1;
    double th = ctn__now_ms();
    TRY(ctn__ocl_reserve_all(w, o));
    if (!o->have_layout || o->layout_version != w->topology_version) TRY(ctn__ocl_upload_layout(w, o));
    if (w->solver == CTN_SOLVER_DIRECT) { /* host/opencl/opencl_direct.c */
        ctn_status ds = ctn__ocl_direct_prepare(w, o);
        if (ds == CTN_ERR_UNSUPPORTED && w->desc.solver == CTN_SOLVER_AUTO) {
            w->solver = CTN_SOLVER_GS; /* auto on a device without fp64: GS (until the layout changes) */
            snprintf(w->solver_reason, sizeof w->solver_reason, "auto: gs, the OpenCL device has no fp64 for the exact solver");
            w->error[0] = '\0';
        } else if (ds != CTN_OK) {
            return ds;
        }
    }
    if (w->bodies_dirty || o->rattle_version != w->topology_version || w->solver != CTN_SOLVER_DIRECT) o->rattle_valid = 0; /* edited state */
    if (w->bodies_dirty) TRY(ctn__ocl_upload_bodies(w, o));
    w->bodies_dirty = 0;
    TRY(ctn__ocl_snapshot_take(w, o));
    o->ms_upload = ctn__now_ms() - th;
    o->cg_as_gs = ctn__cg_runs_gs(w, &o->cg_warned); /* one rule on both backends (host/solve/solver_rules.c) */
    ctn__ocl_drop_events(o);
    return CTN_OK;
}

static void ocl_timer(ctn_world *w, ctn_stage_timer timer, ctn_step_stats *st) {
    (void)st; /* device times are read out once, at the end of the step */
    ctn__ocl_phase(w->backend_data, (int)timer); /* CTN_TIMER_* are CTN_PH_PREPARE, _SOLVE, _INTEGRATE */
}

/* After the stages: the device times into the stats, or after a device fault the state before the step
 * into the host arrays. */
static ctn_status ocl_end(ctn_world *w, ctn_status s, ctn_step_stats *st) {
    ctn_ocl *o = w->backend_data;
    o->in_step = 0;
    st->launches = o->step_launches;
    st->blocking_reads = o->step_reads;
    if (o->projecting) { /* a fault inside the projection: the real arrays back in place */
        o->vel = o->real_vel, o->lambda = o->real_lambda, o->r2 = o->real_r2;
        o->projecting = 0;
    }
    if (s != CTN_OK && s != CTN_ERR_DIVERGED) {
        ctn__ocl_drop_events(o);
        return ctn__ocl_recover_after_fault(w, o, s);
    }
    double ms[CTN_PH_COUNT] = {0};
    ctn__ocl_collect_times(o, ms);
    st->ms_prepare += ms[CTN_PH_PREPARE];
    st->ms_solve += ms[CTN_PH_SOLVE];
    st->ms_integrate += ms[CTN_PH_INTEGRATE];
    st->ms_transfer += ms[CTN_PH_TRANSFER] + o->ms_upload;
    w->host_stale = 1;
    return s;
}

static void ocl_release(ctn_ocl *o) {
    ctn__ocl_drop_events(o);
    ctn__free(o->ev);
    ctn__free(o->ev_phase);
    ctn__free(o->joint_stage);
    ctn_clbuf *bufs[] = {&o->pose,   &o->vel,    &o->vel_copy, &o->inertia,           &o->props,      &o->forces,    &o->defs,  &o->lambda,
                         &o->adj_offsets, &o->adj, &o->split, &o->springs, &o->spring_adj_offsets, &o->spring_adj, &o->blocks, &o->points,
                         &o->dlambda, &o->r2,    &o->gap,      &o->angle,             &o->partial,    &o->stats, &o->cg_r,
                         &o->cg_z,   &o->cg_ap,  &o->cg_u,     &o->cg_scalars,
                         &o->snap_pose, &o->snap_vel, &o->snap_inertia, &o->snap_lambda, &o->proj_vel, &o->proj_lambda,
                         &o->proj_r2, &o->proj_err, &o->proj_pose, &o->proj_stats, &o->proj_state, &o->proj_next};
    if (o->projecting) o->vel = o->real_vel, o->lambda = o->real_lambda, o->r2 = o->real_r2;
    if (o->queue) clFinish(o->queue);
    ctn__ocl_direct_release(o);
    ctn__ocl_rattle_release(o);
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
        if (bufs[i]->mem) clReleaseMemObject(bufs[i]->mem);
    ctn__ocl_release_kernels(o, 0, CTN_K_COUNT);
    if (o->program) clReleaseProgram(o->program);
    if (o->queue) clReleaseCommandQueue(o->queue);
    if (o->ctx) clReleaseContext(o->ctx);
    ctn__free(o);
}

static void ocl_destroy(ctn_world *w) {
    if (w->backend_data) ocl_release(w->backend_data);
    w->backend_data = NULL;
}

static const ctn_stage_ops opencl_stages = {ocl_begin, ctn__ocl_run_stage, ocl_timer, ctn__ocl_read_body, ctn__ocl_restore, ocl_end, 1, 0, ctn__ocl_plan, ctn__ocl_direct_all_exact};
static const ctn_backend_ops opencl_backend = {"opencl", &opencl_stages, ctn__ocl_sync, ctn__ocl_measure, ocl_destroy};

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
    o->fault_kind = w->fault.kind;
    o->fault_step = w->fault.step;
    ctn_ocl_device_list *list = ctn__malloc(sizeof *list);
    if (!list) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory listing OpenCL devices");
    const char *why = NULL;
    cl_int e = ctn__ocl_enumerate(list, w->fault.kind == CTN_FAULT_NO_PLATFORM, &why);
    if (e != CL_SUCCESS) {
        ctn__free(list);
        return ctn__fail(w, CTN_ERR_DEVICE, "listing OpenCL devices: %s", ctn__cl_error_name(e));
    }
    if (list->count == 0) {
        ctn__free(list);
        return ctn__fail(w, CTN_ERR_DEVICE, "%s", why ? why : "no OpenCL device");
    }
    char msg[256];
    int k = ctn__ocl_pick_device(list, w->desc.device, w->desc.backend == CTN_BACKEND_OPENCL, msg, sizeof msg);
    if (k < 0) {
        ctn__free(list);
        return ctn__fail(w, CTN_ERR_DEVICE, "%s", msg);
    }
    o->platform = list->platform[k];
    o->device = list->device[k];
    cl_ulong max_alloc = 0; /* Buffer sizes are checked against it before clCreateBuffer */
    if (clGetDeviceInfo(o->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL) == CL_SUCCESS) o->max_alloc = max_alloc;
    snprintf(w->device_name, sizeof w->device_name, "%.100s (%.100s, OpenCL %d:%d)", list->info[k].name, list->info[k].platform_name,
             list->info[k].platform, list->info[k].device);
    ctn__free(list);

    cl_context_properties props[3] = {CL_CONTEXT_PLATFORM, (cl_context_properties)o->platform, 0};
    o->ctx = clCreateContext(props, 1, &o->device, NULL, NULL, &e);
    TRY(ctn__ocl_check(w, e, "clCreateContext"));
    o->queue = clCreateCommandQueue(o->ctx, o->device, CL_QUEUE_PROFILING_ENABLE, &e);
    o->profiling = e == CL_SUCCESS;
    if (e != CL_SUCCESS) o->queue = clCreateCommandQueue(o->ctx, o->device, 0, &e);
    TRY(ctn__ocl_check(w, e, "clCreateCommandQueue"));
    TRY(ctn__ocl_build_program(w, o->ctx, o->platform, o->device, &o->program, &o->build));
    int failed = 0;
    e = ctn__ocl_create_kernels(o, 0, CTN_K_STEP_COUNT, &failed);
    if (e != CL_SUCCESS) return ctn__fail(w, CTN_ERR_DEVICE, "clCreateKernel(%s): %s", ctn__ocl_kernel_table[failed].name, ctn__cl_error_name(e));
    for (int i = 0; i < CTN_K_STEP_COUNT; ++i) {
        int serial = i == CTN_K_GS_SERIAL || i == CTN_K_CG_START || i == CTN_K_CG_ALPHA || i == CTN_K_CG_BETA || i == CTN_K_PROJECT_DECIDE;
        int folds = i == CTN_K_PROJECT_PREPARE; /* pairwise work-group folds */
        o->local[i] = serial ? 1 : pick_local(o->kernel[i], o->device, folds);
    }
    size_t a = pick_local(o->kernel[CTN_K_REDUCE3], o->device, 1), b = pick_local(o->kernel[CTN_K_REDUCE3_FINAL], o->device, 1);
    o->reduce_local = a < b ? a : b;
    a = pick_local(o->kernel[CTN_K_MEASURE], o->device, 1), b = pick_local(o->kernel[CTN_K_MEASURE_FINAL], o->device, 1);
    o->measure_local = a < b ? a : b;
    /* per first-pass group: 3 floats of the reductions, 2 ints of the divergence check (ctn_k_measure) */
    TRY(ctn__ocl_reserve(w, o, &o->partial, 6 * CTN_OCL_REDUCE_GROUPS * sizeof(float), NULL)); /* ctn_k_measure: 3 floats, 3 ints per group */
    TRY(ctn__ocl_reserve(w, o, &o->stats, CTN_OCL_STATS_FLOATS * sizeof(float), NULL));
    o->phase = -1;
    return CTN_OK;
}

ctn_status ctn__opencl_backend_init(ctn_world *w) {
    ctn_ocl *o = ctn__calloc(1, sizeof *o);
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
