/* Device-fault injection (ctn_debug_options.fault; host/core/fault.c documents the names). Not installed.
 * Compiled in only with -DCATENA_FAULT_INJECTION=ON; otherwise every world's fault is CTN_FAULT_NONE and
 * the injection points in the OpenCL backend never fire. */
#ifndef CTN_HOST_FAULT_H
#define CTN_HOST_FAULT_H

#include "catena/catena.h"

#include <stddef.h>

enum {
    CTN_FAULT_NONE,
    CTN_FAULT_NO_PLATFORM,
    CTN_FAULT_OUT_OF_MEMORY,
    CTN_FAULT_BUILD,
    CTN_FAULT_ENQUEUE,
    CTN_FAULT_DEVICE_LOST,
    CTN_FAULT_OUT_OF_RESOURCES,
    CTN_FAULT_COUNT
};

typedef struct ctn_fault {
    int kind;  /* CTN_FAULT_* */
    long step; /* step (from 1) at which a step fault fires; 0: at backend creation */
} ctn_fault;

/* Parses "NAME[@STEP]" (NULL or "": no fault). An unknown name is CTN_ERR_INVALID_ARGUMENT, any fault in
 * a build without CATENA_FAULT_INJECTION is CTN_ERR_UNSUPPORTED; msg then names the field and value. */
ctn_status ctn__fault_parse(const char *spec, ctn_fault *out, char *msg, size_t size);
const char *ctn__fault_name(int kind);

#endif /* CTN_HOST_FAULT_H */
