/* What the layers above host/opencl call: the backend's creation. Everything else of the backend is
 * opencl_internal.h. */
#ifndef CTN_HOST_OPENCL_H
#define CTN_HOST_OPENCL_H

#include "core/world.h"

#ifdef CATENA_HAVE_OPENCL
/* Creates the OpenCL backend on the device selected by w->desc.device. On failure
 * returns an error with the reason recorded on w and leaves w->backend unset. */
ctn_status ctn__opencl_backend_init(ctn_world *w);
#endif

#endif /* CTN_HOST_OPENCL_H */
