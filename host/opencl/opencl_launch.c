/* Kernel launches of the OpenCL backend: argument binding, the NDRange enqueue (with the injected enqueue
 * fault of the tests) and OpenCL error messages. */
#include "opencl/opencl_internal.h"

const char *const ctn__ocl_kernel_names[CTN_K_COUNT] = {
    "ctn_k_prepare",      "ctn_k_forces",    "ctn_k_gather",    "ctn_k_gs_colour",   "ctn_k_gs_serial",
    "ctn_k_jacobi",       "ctn_k_integrate", "ctn_k_cg_init",   "ctn_k_cg_start",    "ctn_k_cg_gather",
    "ctn_k_cg_apply",     "ctn_k_cg_alpha",  "ctn_k_cg_update", "ctn_k_cg_velocity", "ctn_k_cg_beta",
    "ctn_k_cg_direction", "ctn_k_joint_error", "ctn_k_reduce3", "ctn_k_reduce3_final", "ctn_k_geometric_inertia",
    "ctn_k_measure",      "ctn_k_measure_final", "ctn_k_project_prepare",
    "ctn_k_project_decide", "ctn_k_project_integrate",
    "ctn_k_assemble_slot", "ctn_k_assemble_body"};

ctn_status ctn__ocl_check(ctn_world *w, cl_int err, const char *what) {
    if (err == CL_SUCCESS) return CTN_OK;
    return ctn__fail(w, CTN_ERR_DEVICE, "%s: %s (%d)", what, ctn__cl_error_name(err), (int)err);
}

ctn_status ctn__ocl_set_arg(ctn_world *w, cl_kernel kernel, const char *name, cl_uint i, size_t size, const void *value) {
    cl_int e = clSetKernelArg(kernel, i, size, value);
    if (e == CL_SUCCESS) return CTN_OK;
    return ctn__fail(w, CTN_ERR_DEVICE, "clSetKernelArg(%s, %u): %s", name, (unsigned)i, ctn__cl_error_name(e));
}

ctn_status ctn__ocl_arg(ctn_world *w, ctn_ocl *o, int k, cl_uint i, size_t size, const void *value) {
    return ctn__ocl_set_arg(w, o->kernel[k], ctn__ocl_kernel_names[k], i, size, value);
}

ctn_status ctn__ocl_enqueue(ctn_world *w, ctn_ocl *o, cl_kernel kernel, const char *name, size_t global, const size_t *local,
                            const char *what) {
    if (global == 0) return CTN_OK;
    cl_event ev = NULL;
    cl_int e = clEnqueueNDRangeKernel(o->queue, kernel, 1, NULL, &global, local, 0, NULL, o->profiling && o->phase >= 0 ? &ev : NULL);
    if (e != CL_SUCCESS) return ctn__fail(w, CTN_ERR_DEVICE, "%s (%s): %s", what, name, ctn__cl_error_name(e));
    ctn__ocl_note_event(o, ev);
    o->step_launches++;
    return CTN_OK;
}

ctn_status ctn__ocl_launch(ctn_world *w, ctn_ocl *o, int k, size_t items, const char *what) {
    if (items == 0) return CTN_OK;
    size_t local = o->local[k];
    size_t global = (items + local - 1) / local * local;
    /* CATENA_FAULT=enqueue@N fails the third launch of step N */
    if (o->in_step && ++o->launches == 3 && o->fault_kind == CTN_FAULT_ENQUEUE && !o->fault_fired && o->step_index == o->fault_step) {
        o->fault_fired = 1;
        return ctn__fail(w, CTN_ERR_DEVICE, "%s (%s): %s (injected by CATENA_FAULT)", what, ctn__ocl_kernel_names[k], ctn__cl_error_name(CL_OUT_OF_RESOURCES));
    }
    return ctn__ocl_enqueue(w, o, o->kernel[k], ctn__ocl_kernel_names[k], global, &local, what);
}
