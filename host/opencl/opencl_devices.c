/* ctn_list_devices: the OpenCL platforms and devices, and the one CTN_BACKEND_AUTO would pick. */
#include "opencl/opencl_internal.h"
#include "opencl/opencl_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ctn_status ctn_list_devices(ctn_device_info *out, int capacity, int *count, char *err, size_t err_size) {
    if (!count || capacity < 0 || (capacity > 0 && !out)) {
        if (err && err_size) snprintf(err, err_size, "ctn_list_devices: %s", !count ? "count is NULL" : "out is NULL or capacity < 0");
        return CTN_ERR_INVALID_ARGUMENT;
    }
    *count = 0;
    if (err && err_size) err[0] = '\0';
    ctn_ocl_device_list *list = ctn__malloc(sizeof *list);
    if (!list) {
        if (err && err_size) snprintf(err, err_size, "out of memory listing OpenCL devices");
        return CTN_ERR_OUT_OF_MEMORY;
    }
    const char *why = NULL;
    cl_int e = ctn__ocl_enumerate(list, 0, &why);
    if (e != CL_SUCCESS) {
        if (err && err_size) snprintf(err, err_size, "listing OpenCL devices: %s", ctn__cl_error_name(e));
        ctn__free(list);
        return CTN_ERR_DEVICE;
    }
    if (why && err && err_size) snprintf(err, err_size, "%s", why);
    for (int k = 0; k < list->count && k < capacity; ++k) out[k] = list->info[k];
    *count = list->count;
    ctn__free(list);
    return CTN_OK;
}

int ctn__opencl_kernel_memory(const ctn_world *w, ctn_ocl_kernel_memory *out, int capacity) {
    if (!w || !w->backend || strcmp(w->backend->name, "opencl") != 0 || !w->backend_data) return -1;
    const ctn_ocl *o = w->backend_data;
    cl_uint n = 0;
    if (clCreateKernelsInProgram(o->program, 0, NULL, &n) != CL_SUCCESS) return -1;
    cl_kernel *k = ctn__calloc((size_t)n + 1, sizeof *k);
    if (!k || clCreateKernelsInProgram(o->program, n, k, NULL) != CL_SUCCESS) {
        ctn__free(k);
        return -1;
    }
    for (cl_uint i = 0; i < n; ++i) {
        if ((int)i < capacity) {
            cl_ulong priv = 0, local = 0;
            ctn_ocl_kernel_memory *r = &out[i];
            memset(r, 0, sizeof *r);
            clGetKernelInfo(k[i], CL_KERNEL_FUNCTION_NAME, sizeof r->name - 1, r->name, NULL);
            clGetKernelWorkGroupInfo(k[i], o->device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof priv, &priv, NULL);
            clGetKernelWorkGroupInfo(k[i], o->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local, &local, NULL);
            r->private_bytes = priv, r->local_bytes = local;
        }
        clReleaseKernel(k[i]);
    }
    ctn__free(k);
    return (int)n;
}
