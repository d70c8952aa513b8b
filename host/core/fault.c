/* Device-fault injection: ctn_debug_options.fault = "NAME[@STEP]" (the CLI takes it from CATENA_FAULT).
 *
 *   no-platform          the ICD loader finds no OpenCL platform (clGetPlatformIDs fails with
 *                        CL_PLATFORM_NOT_FOUND_KHR): `auto` worlds take the CPU solver, `opencl` fails
 *   out-of-memory        a device buffer allocation fails with CL_MEM_OBJECT_ALLOCATION_FAILURE: without
 *                        @STEP at backend creation, with @N at the buffer sizing of step N
 *   build                the kernel build fails (an invalid build option is added)
 *   enqueue@N            the third kernel launch of step N fails with CL_OUT_OF_RESOURCES (mid-step: earlier
 *                        kernels of the step have already changed the device state)
 *   device-lost@N        the step's blocking statistics read at step N fails with CL_DEVICE_NOT_AVAILABLE
 *   out-of-resources@N   the same read fails with CL_OUT_OF_RESOURCES
 *
 * Steps are counted per world from 1 (each call of ctn_world_step on the OpenCL backend, failed ones
 * included); a step fault fires once (default step 1). It exists so that the tests (tests/test_faults.c)
 * and a deployment's failure drills can reach the recovery code, which real devices exercise rarely;
 * a production library has no business failing on purpose, so it is compiled in only with
 * -DCATENA_FAULT_INJECTION=ON. */
#include "core/fault.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const fault_names[CTN_FAULT_COUNT] = {"none", "no-platform", "out-of-memory", "build", "enqueue", "device-lost",
                                                         "out-of-resources"};

const char *ctn__fault_name(int kind) { return kind >= 0 && kind < CTN_FAULT_COUNT ? fault_names[kind] : "?"; }

ctn_status ctn__fault_parse(const char *spec, ctn_fault *out, char *msg, size_t size) {
    out->kind = CTN_FAULT_NONE;
    out->step = 0;
    if (!spec || !spec[0]) return CTN_OK;
#ifndef CATENA_FAULT_INJECTION
    snprintf(msg, size, "desc.debug.fault: '%.64s': this build of catena has no fault injection (configure with -DCATENA_FAULT_INJECTION=ON)",
             spec);
    return CTN_ERR_UNSUPPORTED;
#else
    const char *at = strchr(spec, '@');
    size_t len = at ? (size_t)(at - spec) : strlen(spec);
    for (int k = 1; k < CTN_FAULT_COUNT; ++k)
        if (strlen(fault_names[k]) == len && !strncmp(spec, fault_names[k], len)) out->kind = k;
    if (out->kind == CTN_FAULT_NONE) {
        snprintf(msg, size, "desc.debug.fault: unknown fault '%.64s' (no-platform, out-of-memory, build, enqueue@N, device-lost@N, out-of-resources@N)",
                 spec);
        return CTN_ERR_INVALID_ARGUMENT;
    }
    if (at) {
        char *end = NULL;
        long s = strtol(at + 1, &end, 10);
        if (!end || *end != '\0' || s <= 0) {
            snprintf(msg, size, "desc.debug.fault: '%.64s': the step after '@' must be a whole number >= 1", spec);
            return CTN_ERR_INVALID_ARGUMENT;
        }
        out->step = s;
    } else if (out->kind == CTN_FAULT_ENQUEUE || out->kind == CTN_FAULT_DEVICE_LOST || out->kind == CTN_FAULT_OUT_OF_RESOURCES) {
        out->step = 1;
    }
    return CTN_OK;
#endif
}
