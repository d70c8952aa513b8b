/** @file opencl.h
 * Catena: listing the OpenCL devices a world can run on (host/opencl/opencl_devices.c). */
#ifndef CATENA_OPENCL_H
#define CATENA_OPENCL_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- OpenCL devices (host/opencl/opencl_devices.c) ---------------------------------------------------- */

/** An OpenCL device as ctn_list_devices reports it. */
typedef struct ctn_device_info {
    int platform;            /**< platform index */
    int device;              /**< device index within the platform */
    char platform_name[128]; /**< OpenCL platform name */
    char name[128];          /**< device name */
    char vendor[128];        /**< device vendor */
    char version[128];       /**< OpenCL version string of the device */
    char driver[128];        /**< driver version */
    int is_gpu;              /**< non-zero for a GPU */
    int compute_units;       /**< CL_DEVICE_MAX_COMPUTE_UNITS */
    double global_memory_mib;/**< global memory, MiB */
    double max_alloc_mib;    /**< largest single buffer, MiB */
    int auto_choice;         /**< non-zero for the device CTN_BACKEND_AUTO would pick */
} ctn_device_info;

/** Lists OpenCL devices into out[0..capacity); *count receives how many exist. With no OpenCL platform
 * (or a build without OpenCL) *count is 0 and CTN_OK is returned. */
CTN_API ctn_status ctn_list_devices(ctn_device_info *out, int32_t capacity, int32_t *count, char *err, size_t err_size);

#ifdef __cplusplus
}
#endif

#endif /* CATENA_OPENCL_H */
