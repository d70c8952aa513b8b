/* Bench hook of the OpenCL backend: device copy bandwidth (the roofline the step's memory traffic is
 * compared with in bench/). */
#include "opencl/opencl_internal.h"

#include <string.h>

/* Bench hook: device copy bandwidth in GB/s, counting bytes read plus bytes written, from `reps`
 * clEnqueueCopyBuffer calls of `bytes` bytes between two device buffers (after one untimed copy).
 * Returns CTN_ERR_UNSUPPORTED when w does not run on OpenCL. */
ctn_status ctn__opencl_copy_bandwidth(ctn_world *w, size_t bytes, int reps, double *gbps) {
    if (!w || strcmp(w->backend->name, "opencl") != 0 || !gbps || reps < 1) return CTN_ERR_UNSUPPORTED;
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
