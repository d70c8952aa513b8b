/* Kernel launches of the OpenCL backend: argument binding, the NDRange enqueue (with the injected enqueue
 * fault of the tests) and OpenCL error messages. */
#include "opencl/opencl_internal.h"

/* The declaration of every kernel (opencl_kernels.h): its name, argument count, argument names and kinds. */
#define CTN__ARG_NAME(id, kind, a) #a,
#define CTN__ARG_KIND(id, kind, a) CTN_OCL_ARG_##kind,
#define CTN__ARG_NAMES(id, name)                                                      \
    static const char *const args_##id[] = {CTN_OCL_ARGS_##id(CTN__ARG_NAME, id)};    \
    static const unsigned char kinds_##id[] = {CTN_OCL_ARGS_##id(CTN__ARG_KIND, id)};
CTN_OCL_KERNELS(CTN__ARG_NAMES)
#define CTN__DECL(id, name) {#name, CTN_A_##id##_COUNT_, args_##id, kinds_##id},
const ctn_ocl_kernel_decl ctn__ocl_kernel_table[CTN_K_COUNT] = {CTN_OCL_KERNELS(CTN__DECL)};
#undef CTN__DECL
#undef CTN__ARG_NAMES
#undef CTN__ARG_KIND
#undef CTN__ARG_NAME

ctn_status ctn__ocl_check(ctn_world *w, cl_int err, const char *what) {
    if (err == CL_SUCCESS) return CTN_OK;
    return ctn__fail(w, CTN_ERR_DEVICE, "%s: %s (%d)", what, ctn__cl_error_name(err), (int)err);
}

ctn_status ctn__ocl_arg(ctn_world *w, ctn_ocl *o, int k, int i, size_t size, const void *value) {
    const ctn_ocl_kernel_decl *d = &ctn__ocl_kernel_table[k];
    /* i < 0: ARG_OF's kernel k is none of the kernels it names */
    if (i < 0) return ctn__fail(w, CTN_ERR_DEVICE, "clSetKernelArg(%s): the kernel is not among those of the binding", d->name);
    cl_int e = clSetKernelArg(o->kernel[k], (cl_uint)i, size, value);
    if (e == CL_SUCCESS) return CTN_OK;
    return ctn__fail(w, CTN_ERR_DEVICE, "clSetKernelArg(%s, %s): %s", d->name, i < d->args ? d->arg[i] : "?", ctn__cl_error_name(e));
}

cl_int ctn__ocl_create_kernels(ctn_ocl *o, int first, int end, int *failed) {
    for (int k = first; k < end; ++k) {
        if (o->kernel[k]) continue;
        cl_int e = CL_SUCCESS;
        o->kernel[k] = clCreateKernel(o->program, ctn__ocl_kernel_table[k].name, &e);
        if (e != CL_SUCCESS) {
            o->kernel[k] = NULL;
            *failed = k;
            return e;
        }
    }
    return CL_SUCCESS;
}

void ctn__ocl_release_kernels(ctn_ocl *o, int first, int end) {
    for (int k = first; k < end; ++k) {
        if (o->kernel[k]) clReleaseKernel(o->kernel[k]);
        o->kernel[k] = NULL;
    }
}

ctn_status ctn__ocl_enqueue(ctn_world *w, ctn_ocl *o, int k, size_t global, const size_t *local, const char *what) {
    if (global == 0) return CTN_OK;
    cl_event ev = NULL;
    cl_int e = clEnqueueNDRangeKernel(o->queue, o->kernel[k], 1, NULL, &global, local, 0, NULL, o->profiling && o->phase >= 0 ? &ev : NULL);
    if (e != CL_SUCCESS) return ctn__fail(w, CTN_ERR_DEVICE, "%s (%s): %s", what, ctn__ocl_kernel_table[k].name, ctn__cl_error_name(e));
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
        return ctn__fail(w, CTN_ERR_DEVICE, "%s (%s): %s (injected by CATENA_FAULT)", what, ctn__ocl_kernel_table[k].name, ctn__cl_error_name(CL_OUT_OF_RESOURCES));
    }
    return ctn__ocl_enqueue(w, o, k, global, &local, what);
}
