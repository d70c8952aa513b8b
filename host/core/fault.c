/* Device-fault injection (issue 7): the one place that reads CATENA_FAULT.
 *
 *   CATENA_FAULT=<name>[@step]
 *
 *   no-platform          the ICD loader finds no OpenCL platform (clGetPlatformIDs fails with
 *                        CL_PLATFORM_NOT_FOUND_KHR): `auto` worlds take the CPU solver, `opencl` fails
 *   out-of-memory        a device buffer allocation fails with CL_MEM_OBJECT_ALLOCATION_FAILURE: without
 *                        @step at backend creation, with @N at the buffer sizing of step N
 *   build                the kernel build fails (an invalid build option; the old
 *                        CATENA_TEST_BAD_BUILD_OPTION=1 hook is the same fault)
 *   enqueue@N            the third kernel launch of step N fails with CL_OUT_OF_RESOURCES (mid-step: earlier
 *                        kernels of the step have already changed the device state)
 *   device-lost@N        the step's blocking statistics read at step N fails with CL_DEVICE_NOT_AVAILABLE
 *   out-of-resources@N   the same read fails with CL_OUT_OF_RESOURCES
 *
 * Steps are counted per world from 1 (each call of ctn_world_step on the OpenCL backend, failed ones
 * included); a step fault fires once (default step 1). Unknown names are ignored with a note on stderr.
 * The switch exists for tests (tests/test_faults.c) and for rehearsing a deployment's failure handling;
 * it costs one getenv per world creation. */
#define _POSIX_C_SOURCE 200809L
#include "core/world.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl/fault.h"

static const char *const fault_names[CTN_FAULT_COUNT] = {"none", "no-platform", "out-of-memory", "build", "enqueue", "device-lost",
                                                         "out-of-resources"};

ctn_fault ctn__fault_from_env(void) {
    ctn_fault f = {CTN_FAULT_NONE, 0};
    const char *v = getenv("CATENA_FAULT");
    const char *legacy = getenv("CATENA_TEST_BAD_BUILD_OPTION"); /* issue 3's hook, kept as an alias */
    if (legacy && !strcmp(legacy, "1")) f.kind = CTN_FAULT_BUILD;
    if (!v || !v[0]) return f;
    const char *at = strchr(v, '@');
    size_t len = at ? (size_t)(at - v) : strlen(v);
    for (int k = 1; k < CTN_FAULT_COUNT; ++k)
        if (strlen(fault_names[k]) == len && !strncmp(v, fault_names[k], len)) f.kind = k;
    if (f.kind == CTN_FAULT_NONE) {
        fprintf(stderr, "catena: CATENA_FAULT=%s: unknown fault, ignored\n", v);
        return f;
    }
    if (at) {
        char *end = NULL;
        long s = strtol(at + 1, &end, 10);
        f.step = end && *end == '\0' && s > 0 ? s : 1;
    } else if (f.kind == CTN_FAULT_ENQUEUE || f.kind == CTN_FAULT_DEVICE_LOST || f.kind == CTN_FAULT_OUT_OF_RESOURCES) {
        f.step = 1;
    }
    return f;
}

const char *ctn__fault_name(int kind) { return kind >= 0 && kind < CTN_FAULT_COUNT ? fault_names[kind] : "?"; }
