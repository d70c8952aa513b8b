/* OpenCL device enumeration and selection, program build options, and the program build through the
 * on-disk binary cache (host/opencl/opencl_cache.c). */
#define _POSIX_C_SOURCE 200809L
#include "opencl/opencl_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void info_string(cl_device_id d, cl_device_info what, char *out, size_t size) {
    out[0] = '\0';
    if (clGetDeviceInfo(d, what, size, out, NULL) != CL_SUCCESS) out[0] = '\0';
    out[size - 1] = '\0';
}

cl_int ctn__ocl_enumerate(ctn_ocl_device_list *list, int fault_no_platform, const char **why) {
    cl_platform_id plats[16];
    cl_uint np = 0;
    memset(list, 0, sizeof *list);
    list->auto_index = -1;
    *why = NULL;
    /* the injected fault "no-platform" answers as an ICD loader without vendors */
    cl_int e = fault_no_platform ? -1001 : clGetPlatformIDs(16, plats, &np);
    if (e == -1001 /* CL_PLATFORM_NOT_FOUND_KHR: the ICD loader found no vendor */ || (e == CL_SUCCESS && np == 0)) {
        *why = "no OpenCL platform";
        return CL_SUCCESS;
    }
    if (e != CL_SUCCESS) return e;
    if (np > 16) np = 16;
    double best = -1.0;
    for (cl_uint p = 0; p < np; ++p) {
        cl_device_id devs[CTN_OCL_MAX_DEVICES];
        cl_uint nd = 0;
        e = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, CTN_OCL_MAX_DEVICES, devs, &nd);
        if (e == CL_DEVICE_NOT_FOUND) continue;
        if (e != CL_SUCCESS) return e;
        if (nd > CTN_OCL_MAX_DEVICES) nd = CTN_OCL_MAX_DEVICES;
        char pname[128];
        pname[0] = '\0';
        if (clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL) != CL_SUCCESS) pname[0] = '\0';
        pname[sizeof pname - 1] = '\0';
        for (cl_uint d = 0; d < nd && list->count < CTN_OCL_MAX_DEVICES; ++d) {
            int k = list->count++;
            ctn_device_info *di = &list->info[k];
            cl_device_type type = 0;
            cl_uint cu = 0, clock = 0;
            cl_ulong gmem = 0, amax = 0;
            clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
            clGetDeviceInfo(devs[d], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
            clGetDeviceInfo(devs[d], CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof clock, &clock, NULL);
            clGetDeviceInfo(devs[d], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof gmem, &gmem, NULL);
            clGetDeviceInfo(devs[d], CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof amax, &amax, NULL);
            di->platform = (int)p;
            di->device = (int)d;
            snprintf(di->platform_name, sizeof di->platform_name, "%s", pname);
            info_string(devs[d], CL_DEVICE_NAME, di->name, sizeof di->name);
            info_string(devs[d], CL_DEVICE_VENDOR, di->vendor, sizeof di->vendor);
            info_string(devs[d], CL_DEVICE_VERSION, di->version, sizeof di->version);
            info_string(devs[d], CL_DRIVER_VERSION, di->driver, sizeof di->driver);
            di->is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
            di->compute_units = (int)cu;
            di->global_memory_mib = (double)gmem / (1024.0 * 1024.0);
            di->max_alloc_mib = (double)amax / (1024.0 * 1024.0);
            list->platform[k] = plats[p];
            list->device[k] = devs[d];
            /* auto: the GPU with the most compute units x clock (first one on ties) */
            double score = (double)cu * (double)(clock ? clock : 1);
            if (di->is_gpu && score > best) {
                best = score;
                list->auto_index = k;
            }
        }
    }
    if (list->auto_index >= 0) list->info[list->auto_index].auto_choice = 1;
    if (list->count == 0) *why = "no OpenCL device";
    return CL_SUCCESS;
}

static int contains_nocase(const char *hay, const char *needle) {
    size_t n = strlen(needle);
    for (const char *h = hay; *h; ++h) {
        size_t i = 0;
        while (i < n && h[i] && tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i])) ++i;
        if (i == n) return 1;
    }
    return n == 0;
}

int ctn__ocl_pick_device(const ctn_ocl_device_list *list, const char *request, int allow_cpu_device, char *msg, size_t size) {
    if (list->count == 0) {
        snprintf(msg, size, "no OpenCL device");
        return -1;
    }
    if (request && request[0]) {
        int p, d;
        char extra;
        if (sscanf(request, "%d:%d%c", &p, &d, &extra) == 2) {
            for (int k = 0; k < list->count; ++k)
                if (list->info[k].platform == p && list->info[k].device == d) return k;
            snprintf(msg, size, "OpenCL device %d:%d does not exist (see `catena devices`)", p, d);
            return -1;
        }
        for (int k = 0; k < list->count; ++k)
            if (contains_nocase(list->info[k].name, request) || contains_nocase(list->info[k].platform_name, request)) return k;
        snprintf(msg, size, "no OpenCL device matches '%s' (see `catena devices`)", request);
        return -1;
    }
    if (list->auto_index >= 0) return list->auto_index;
    if (allow_cpu_device) return 0;
    snprintf(msg, size, "no OpenCL GPU (%d non-GPU device%s; pick one with desc.device)", list->count,
             list->count == 1 ? "" : "s");
    return -1;
}

void ctn__ocl_build_options(cl_device_id device, int fault_build, char *out, size_t size) {
    /* OpenCL C 1.2 (what every vendor still supports), warnings are errors (the kernels build clean),
     * and IEEE division and square root where the device offers them, so the device rounds like the host
     * (fma contraction is switched off in the source with FP_CONTRACT). No -cl-fast-relaxed-math. */
    cl_device_fp_config fp = 0;
    clGetDeviceInfo(device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL);
    snprintf(out, size, "-cl-std=CL1.2 -Werror%s", (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) ? " -cl-fp32-correctly-rounded-divide-sqrt" : "");
#ifdef CATENA_FAULT_INJECTION
    /* the injected fault "build": an option no compiler knows */
    if (fault_build) snprintf(out + strlen(out), size - strlen(out), " -catena-injected-bad-build-option");
#else
    (void)fault_build;
#endif
}

static void program_log(cl_program prog, cl_device_id device, char *out, size_t size) {
    size_t n = 0;
    out[0] = '\0';
    if (clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) != CL_SUCCESS || n == 0) return;
    char *log = ctn__malloc(n + 1);
    if (!log) return;
    if (clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS) {
        log[n] = '\0';
        snprintf(out, size, "%s", log);
    }
    ctn__free(log);
}

/* Cache key: source, options, device name, driver version, platform version (section comment above). */
uint64_t ctn__ocl_cache_key(cl_platform_id platform, cl_device_id device, const char *options) {
    char name[256], driver[256], dversion[256], pversion[256];
    info_string(device, CL_DEVICE_NAME, name, sizeof name);
    info_string(device, CL_DRIVER_VERSION, driver, sizeof driver);
    info_string(device, CL_DEVICE_VERSION, dversion, sizeof dversion);
    pversion[0] = '\0';
    if (clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof pversion, pversion, NULL) != CL_SUCCESS) pversion[0] = '\0';
    pversion[sizeof pversion - 1] = '\0';
    const char *parts[6] = {options, name, driver, dversion, pversion, ""};
    uint64_t h = ctn__fnv1a(CTN_FNV_OFFSET, ctn__opencl_kernel_source, ctn__opencl_kernel_source_len);
    for (int i = 0; i < 5; ++i) h = ctn__fnv1a(h, parts[i], strlen(parts[i]) + 1); /* + NUL: field separator */
    return h;
}

ctn_status ctn__ocl_build_program(ctn_world *w, cl_context ctx, cl_platform_id platform, cl_device_id device, cl_program *out,
                                  ctn_ocl_build_info *info) {
    char options[512], dir[900];
    double t0 = ctn__now_ms();
    memset(info, 0, sizeof *info);
    *out = NULL;
    ctn__ocl_build_options(device, w->fault.kind == CTN_FAULT_BUILD, options, sizeof options);
    uint64_t key = ctn__ocl_cache_key(platform, device, options);
    int have_dir = ctn__cache_dir(dir, sizeof dir);
    if (have_dir) snprintf(info->cache_file, sizeof info->cache_file, "%s/program-%016llx.bin", dir, (unsigned long long)key);

    /* 1. the cached binary, when one is there and the driver accepts it */
    if (have_dir) {
        size_t size = 0;
        unsigned char *bin = ctn__cache_load(info->cache_file, key, &size);
        if (bin) {
            cl_int st = CL_SUCCESS, e;
            const unsigned char *bins[1] = {bin};
            cl_program prog = clCreateProgramWithBinary(ctx, 1, &device, &size, bins, &st, &e);
            ctn__free(bin);
            if (prog && e == CL_SUCCESS && st == CL_SUCCESS && clBuildProgram(prog, 1, &device, options, NULL, NULL) == CL_SUCCESS) {
                *out = prog;
                info->from_cache = 1;
                info->ms = ctn__now_ms() - t0;
                return CTN_OK;
            }
            if (prog) clReleaseProgram(prog); /* stale or foreign binary: rebuild from source below */
        }
    }

    /* 2. from the embedded source */
    cl_int e;
    const char *src = ctn__opencl_kernel_source;
    size_t len = ctn__opencl_kernel_source_len;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, &len, &e);
    if (e != CL_SUCCESS) return ctn__fail(w, CTN_ERR_DEVICE, "clCreateProgramWithSource: %s", ctn__cl_error_name(e));
    e = clBuildProgram(prog, 1, &device, options, NULL, NULL);
    if (e != CL_SUCCESS) {
        char log[1536];
        program_log(prog, device, log, sizeof log);
        clReleaseProgram(prog);
        return ctn__fail(w, CTN_ERR_DEVICE, "OpenCL kernel build failed (%s) with options '%s'; build log:\n%s", ctn__cl_error_name(e), options,
                         log[0] ? log : "(empty)");
    }
    info->ms = ctn__now_ms() - t0;
    *out = prog;

    /* 3. store the binary for the next start (a failure here only costs the next start a rebuild) */
    size_t bsize = 0;
    if (have_dir && clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof bsize, &bsize, NULL) == CL_SUCCESS && bsize > 0) {
        unsigned char *bin = ctn__malloc(bsize);
        unsigned char *bins[1] = {bin};
        if (bin && clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == CL_SUCCESS)
            info->cache_written = ctn__cache_store(dir, info->cache_file, key, bin, bsize);
        ctn__free(bin);
    }
    return CTN_OK;
}
