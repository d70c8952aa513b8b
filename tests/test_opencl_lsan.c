/* The LeakSanitizer suppressions of tests/opencl_lsan.h hide PoCL's own allocations kept until exit, and
 * nothing else: a cl_mem that the program leaks is still reported, although it is allocated inside
 * libpocl.so (a suppression by library name, such as "leak:libpocl.so", would hide it).
 *   child --clean: a Catena OpenCL world stepped and destroyed, plus a cl_mem created and released
 *                  directly: LeakSanitizer must stay silent (exit 0).
 *   child --leak:  the same, but the cl_mem is never released: LeakSanitizer must report a leak whose
 *                  stack holds this file's child() (libpocl.so and the ICD loader carry no symbols for
 *                  clCreateBuffer itself).
 * Runs in sanitizer builds (-DCATENA_SANITIZE=ON, as .ci/run does); elsewhere, or without an OpenCL
 * device, it exits 77 (skipped). */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include "catena/catena.h"
#include "check.h"
#include "opencl_lsan.h"
#include "opencl_child.h"

#include <CL/cl.h>

#if defined(__SANITIZE_ADDRESS__) /* gcc */
#define HAVE_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) /* clang */
#define HAVE_LSAN 1
#endif
#endif
#ifndef HAVE_LSAN
#define HAVE_LSAN 0
#endif

/* Steps a Catena OpenCL world, then creates one cl_mem directly and releases it unless `leak`. The
 * leaked buffer is dropped from every root (the pointer lives only in this frame), so LeakSanitizer
 * sees it unreachable at exit. */
static int child(int leak) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_OPENCL;
    ctn_world *w = NULL;
    char err[1024];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        printf("no world: %s\n", err);
        return 2;
    }
    ctn_status st = ctn_scene_from_spec(w, "chain:20");
    for (int i = 0; i < 3 && st == CTN_OK; ++i) st = ctn_world_step(w);
    ctn_world_destroy(w);
    if (st != CTN_OK) return 2;
    cl_platform_id platform;
    cl_device_id device;
    cl_int e = clGetPlatformIDs(1, &platform, NULL);
    if (e == CL_SUCCESS) e = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    cl_context ctx = e == CL_SUCCESS ? clCreateContext(NULL, 1, &device, NULL, NULL, &e) : NULL;
    cl_mem buf = e == CL_SUCCESS ? clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &e) : NULL;
    if (e != CL_SUCCESS) {
        printf("OpenCL error %d\n", (int)e);
        return 2;
    }
    if (!leak) clReleaseMemObject(buf);
    buf = NULL;
    clReleaseContext(ctx);
    printf("child done (%s)\n", leak ? "cl_mem leaked" : "clean");
    fflush(stdout); /* LeakSanitizer ends the process before stdio would flush */
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--clean")) return child(0);
    if (argc > 1 && !strcmp(argv[1], "--leak")) return child(1);
    if (!HAVE_LSAN) return check_skip("test_opencl_lsan", "not a sanitizer build (-DCATENA_SANITIZE=ON): no LeakSanitizer to check");
    int count = 0;
    char err[256];
    ctn_device_info dev[4];
    if (ctn_list_devices(dev, 4, &count, err, sizeof err) != CTN_OK || count == 0)
        return check_skip("test_opencl_lsan", "no OpenCL platform or device");
    static char out[1 << 16], eout[1 << 16];
    int rc = run_child("ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0", "--clean", out, sizeof out, eout, sizeof eout);
    CHECK(rc == 0 && !strstr(eout, "LeakSanitizer"), "clean run: exit %d, stderr:\n%s", rc, eout);
    rc = run_child("ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0", "--leak", out, sizeof out, eout, sizeof eout);
    CHECK(strstr(out, "child done") != NULL, "leaking run did not finish: '%s' '%s'", out, eout);
    CHECK(rc != 0 && strstr(eout, "ERROR: LeakSanitizer: detected memory leaks") && strstr(eout, "in child") &&
              strstr(eout, "test_opencl_lsan.c"),
          "the leaked cl_mem was not reported: exit %d, stderr:\n%s", rc, eout);
    return check_report("test_opencl_lsan");
}
