/* Kernel resource report and copy bandwidth of an OpenCL world (`catena devices --verbose`,
 * host/cli/devices.c; `catena bench`, host/cli/bench_measure.c): declared without OpenCL types so that the
 * CLI needs no OpenCL headers. */
#ifndef CTN_OPENCL_REPORT_H
#define CTN_OPENCL_REPORT_H

#include "catena/catena.h"

typedef struct ctn_ocl_kernel_memory {
    char name[64];
    unsigned long long private_bytes; /* CL_KERNEL_PRIVATE_MEM_SIZE: per work-item */
    unsigned long long local_bytes;   /* CL_KERNEL_LOCAL_MEM_SIZE: static __local of a work-group */
} ctn_ocl_kernel_memory;

/* Every kernel of w's program (the device's build) into out[0..capacity); returns how many the program
 * has (may exceed capacity), or -1 when w does not run on OpenCL or the query fails. */
int ctn__opencl_kernel_memory(const ctn_world *w, ctn_ocl_kernel_memory *out, int capacity);

/* Device copy bandwidth in GB/s (bytes read plus written) of w's OpenCL device (host/opencl/opencl_bandwidth.c):
 * `reps` copies of `bytes` between two device buffers; CTN_ERR_UNSUPPORTED when w does not run on OpenCL.
 * `catena bench` compares the Gauss-Seidel sweep with it (host/cli/bench_measure.c). */
ctn_status ctn__opencl_copy_bandwidth(ctn_world *w, size_t bytes, int reps, double *gbps);

#endif /* CTN_OPENCL_REPORT_H */
