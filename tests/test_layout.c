/* The layout contract of kernels/ctn_layout.h is enforced by the OpenCL C compiler too: the kernel source
 * as the library embeds it builds, and the same source with one false size or offset claim appended does
 * not. (The C side is checked by every host build: ctn_types.h includes the same assertions.) Exits 77
 * without OpenCL. */
#include "check.h"
#include "opencl_lsan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CATENA_HAVE_OPENCL
int main(void) {
    (void)check_report; /* nothing to check without an OpenCL compiler */
    printf("test_layout: built without OpenCL, skipped\n");
    return 77;
}
#else
#include <CL/cl.h>

extern const char ctn__opencl_kernel_source[];
extern const size_t ctn__opencl_kernel_source_len;
void ctn__ocl_build_options(cl_device_id device, int fault_build, char *out, size_t size); /* the library's options */

/* Builds the embedded kernel source followed by `extra`; returns 1 when the build succeeds and copies the
 * first line of the build log that mentions ctn_layout_check into why. */
static int builds(cl_context ctx, cl_device_id dev, const char *extra, char *why, size_t why_size) {
    size_t n = ctn__opencl_kernel_source_len + strlen(extra);
    char *src = malloc(n + 1);
    if (!src) return -1;
    memcpy(src, ctn__opencl_kernel_source, ctn__opencl_kernel_source_len);
    memcpy(src + ctn__opencl_kernel_source_len, extra, strlen(extra) + 1);
    const char *text = src;
    cl_int err = CL_SUCCESS;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &text, &n, &err);
    char options[512];
    ctn__ocl_build_options(dev, 0, options, sizeof options);
    int ok = err == CL_SUCCESS && clBuildProgram(prog, 1, &dev, options, NULL, NULL) == CL_SUCCESS;
    why[0] = '\0';
    if (!ok && prog) {
        size_t len = 0;
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
        char *log = malloc(len + 1);
        if (log && clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, len, log, NULL) == CL_SUCCESS) {
            log[len] = '\0';
            char *hit = strstr(log, "ctn_layout_check");
            if (hit) snprintf(why, why_size, "%.*s", (int)strcspn(hit, "\n"), hit);
        }
        free(log);
    }
    if (prog) clReleaseProgram(prog);
    free(src);
    return ok;
}

int main(void) {
    cl_platform_id platform;
    cl_uint np = 0, nd = 0;
    cl_device_id dev;
    if (clGetPlatformIDs(1, &platform, &np) != CL_SUCCESS || np == 0 ||
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, &nd) != CL_SUCCESS || nd == 0) {
        printf("test_layout: no OpenCL device, skipped\n");
        return 77;
    }
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err == CL_SUCCESS, "clCreateContext: %d", err);
    if (err != CL_SUCCESS) return check_report("layout");
    char why[512];
    CHECK(builds(ctx, dev, "\n", why, sizeof why) == 1, "the kernel source builds");
    CHECK(builds(ctx, dev, "\nCTN_LAYOUT_ASSERT(sizeof(ctn_pose) == 52, false_pose_size);\n", why, sizeof why) == 0,
          "a false size claim breaks the OpenCL build");
    printf("false size: %s\n", why);
    CHECK(strstr(why, "false_pose_size") != NULL, "the build log names the failed check: '%s'", why);
    /* offsets are checked on clang-based OpenCL compilers (PoCL is one) */
    const char *offset_claim = "\n#ifdef CTN_LAYOUT_OFFSETS\nCTN_LAYOUT_ASSERT(CTN_LAYOUT_OFFSETOF(ctn_joint_def, flags) == 104, "
                               "false_flags_offset);\n#else\n#error no offset checks\n#endif\n";
    CHECK(builds(ctx, dev, offset_claim, why, sizeof why) == 0, "a false offset claim breaks the OpenCL build");
    printf("false offset: %s\n", why);
    clReleaseContext(ctx);
    return check_report("layout");
}
#endif
