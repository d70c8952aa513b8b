/* Fallback of the OpenCL backend: with no OpenCL platform (an empty OCL_ICD_VENDORS folder) and
 * with a kernel build failure (the injected fault "build", in builds with -DCATENA_FAULT_INJECTION=ON), CTN_BACKEND_AUTO falls back to the CPU
 * solver and says why once on stderr, while an explicit CTN_BACKEND_OPENCL fails with CTN_ERR_DEVICE and
 * the reason (for the build failure, the build log). A positive control shows the same child succeeds on
 * OpenCL without the fault, so the checks can fail. Each case runs in a child process because the ICD
 * loader reads its environment once per process; the child takes the fault from $CATENA_FAULT. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "check.h"
#include "opencl_lsan.h"
#include "opencl_child.h"

#include <sys/stat.h>

/* Child: create a world (argv[2] = auto|opencl, argv[3] = device request or "-"), step a chain, print
 * "status <NAME> backend <name>" and the error message on stdout. */
static int child(int argc, char **argv) {
    ctn_set_log(child_log_to_stderr, NULL);
    ctn_world_desc d = ctn_world_desc_default();
    d.debug.fault = getenv("CATENA_FAULT");
    d.backend = argc > 2 && !strcmp(argv[2], "opencl") ? CTN_BACKEND_OPENCL : CTN_BACKEND_AUTO;
    if (argc > 3 && strcmp(argv[3], "-") != 0) d.device = argv[3];
    ctn_world *w = NULL;
    char err[4096] = "";
    ctn_status st = ctn_world_create(&d, &w, err, sizeof err);
    if (st == CTN_OK) st = ctn_scene_from_spec(w, "chain:20");
    for (int i = 0; i < 3 && st == CTN_OK; ++i) st = ctn_world_step(w);
    printf("status %s backend %s\n%s\n", ctn_status_name(st), w ? ctn_world_backend_name(w) : "none", w ? ctn_world_last_error(w) : err);
    ctn_world_destroy(w);
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--child")) return child(argc, argv);
    int count = 0;
    char err[256];
    ctn_device_info dev[8];
    if (ctn_list_devices(dev, 8, &count, err, sizeof err) != CTN_OK || count == 0) {
        return check_skip("test_opencl_fallback", "no OpenCL platform or device");
    }
    char out[8192], eout[8192];
    char noplat[64];
    snprintf(noplat, sizeof noplat, "empty-icd-%ld", (long)getpid());
    mkdir(noplat, 0755);
    char env[256];

    /* 0. positive control: explicit OpenCL works on the first device */
    int rc = run_child("env -u CATENA_FAULT", "--child opencl 0:0", out, sizeof out, eout, sizeof eout);
    CHECK(rc == 0 && strstr(out, "status CTN_OK backend opencl"), "control: rc %d, out '%s' err '%s'", rc, out, eout);

    /* 1. no platform: auto falls back and reports it; explicit fails */
    snprintf(env, sizeof env, "env -u CATENA_FAULT OCL_ICD_VENDORS=%s", noplat);
    rc = run_child(env, "--child auto 0:0", out, sizeof out, eout, sizeof eout);
    CHECK(rc == 0 && strstr(out, "status CTN_OK backend cpu"), "no platform, auto: out '%s'", out);
    CHECK(strstr(eout, "using the CPU solver") && strstr(eout, "no OpenCL platform"), "no platform, auto: stderr '%s'", eout);
    rc = run_child(env, "--child opencl -", out, sizeof out, eout, sizeof eout);
    CHECK(rc == 0 && strstr(out, "status CTN_ERR_DEVICE backend none") && strstr(out, "no OpenCL platform"), "no platform, explicit: out '%s'",
          out);

    /* 2. kernel build failure: auto (asked for device 0:0) falls back and reports it; explicit fails with the log */
    if (fault_injection_built()) {
        rc = run_child("env CATENA_FAULT=build", "--child auto 0:0", out, sizeof out, eout, sizeof eout);
        CHECK(rc == 0 && strstr(out, "status CTN_OK backend cpu"), "bad build, auto: out '%s'", out);
        CHECK(strstr(eout, "using the CPU solver") && strstr(eout, "kernel build failed") && strstr(eout, "build log"),
              "bad build, auto: stderr '%s'", eout);
        rc = run_child("env CATENA_FAULT=build", "--child opencl 0:0", out, sizeof out, eout, sizeof eout);
        CHECK(rc == 0 && strstr(out, "status CTN_ERR_DEVICE backend none") && strstr(out, "-catena-injected-bad-build-option") &&
                  strstr(out, "build log"),
              "bad build, explicit: out '%s'", out);
    } else {
        printf("bad build: not checked, this build has no fault injection (-DCATENA_FAULT_INJECTION=ON)\n");
    }

    /* 3. a device request that matches nothing is an error for explicit OpenCL */
    rc = run_child("", "--child opencl no-such-device-xyz", out, sizeof out, eout, sizeof eout);
    CHECK(rc == 0 && strstr(out, "status CTN_ERR_DEVICE") && strstr(out, "no-such-device-xyz"), "bad device: out '%s'", out);
    rmdir(noplat);
    return check_report("opencl_fallback");
}
