/* The one declaration of the kernels and their arguments (host/opencl/opencl_kernels.h), from which the host
 * binds every argument by name, against the compiled program: the embedded kernel source is built with the
 * library's options plus -cl-kernel-arg-info, and for every declared kernel clGetKernelArgInfo must give
 * the declared argument count and, in order, the declared names and kinds (a global kind is a __global
 * pointer, a local kind a __local pointer, a value kind a private argument of that type); the program holds
 * no kernel the declaration lacks. A kernel parameter added, removed, renamed, moved or retyped without
 * the declaration fails here. The library's own build options do not ask for argument information, and
 * its binary cache's key changes with the options.
 * Devices without cl_khr_fp64 build the program without the exact solver's kernels: those are then
 * checked absent. Exits 77 without an OpenCL device. */
#include "check.h"
#include "opencl_lsan.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CATENA_HAVE_OPENCL
int main(void) {
    (void)check_report;
    printf("test_opencl_kernel_args: built without OpenCL, skipped\n");
    return CHECK_SKIPPED;
}
#else
#include <CL/cl.h>

#include "opencl/opencl_kernels.h"

extern const char ctn__opencl_kernel_source[];
extern const size_t ctn__opencl_kernel_source_len;
void ctn__ocl_build_options(cl_device_id device, int fault_build, char *out, size_t size); /* the library's options */
uint64_t ctn__ocl_cache_key(cl_platform_id platform, cl_device_id device, const char *options);    /* its binary cache's key */

/* Whether `name` is declared: its index, or -1. */
static int declared(const char *name) {
    for (int k = 0; k < CTN_K_COUNT; ++k)
        if (strcmp(ctn__ocl_kernel_table[k].name, name) == 0) return k;
    return -1;
}

/* What clGetKernelArgInfo reports for an argument of kind `kind`: its address space and, for a value,
 * its type name (NULL: any pointer; a buffer's element type is the kernel's business). */
static cl_kernel_arg_address_qualifier kind_space(int kind) {
    return kind == CTN_OCL_ARG_global ? CL_KERNEL_ARG_ADDRESS_GLOBAL
           : kind == CTN_OCL_ARG_local ? CL_KERNEL_ARG_ADDRESS_LOCAL
                                       : CL_KERNEL_ARG_ADDRESS_PRIVATE;
}
static const char *kind_type(int kind) {
    return kind == CTN_OCL_ARG_int ? "int" : kind == CTN_OCL_ARG_float ? "float" : kind == CTN_OCL_ARG_params ? "ctn_step_params" : NULL;
}
static const char *space_name(cl_kernel_arg_address_qualifier space) {
    return space == CL_KERNEL_ARG_ADDRESS_GLOBAL     ? "__global"
           : space == CL_KERNEL_ARG_ADDRESS_LOCAL    ? "__local"
           : space == CL_KERNEL_ARG_ADDRESS_CONSTANT ? "__constant"
           : space == CL_KERNEL_ARG_ADDRESS_PRIVATE  ? "private"
                                                     : "?";
}
static const char *kind_name(int kind) {
    static const char *const names[] = {"global", "local", "int", "float", "params"};
    return kind >= 0 && kind < 5 ? names[kind] : "?";
}

/* Checks kernel k's argument count, names and kinds against its declaration. */
static void check_kernel(cl_program prog, int k) {
    const ctn_ocl_kernel_decl *d = &ctn__ocl_kernel_table[k];
    cl_int e = CL_SUCCESS;
    cl_kernel kern = clCreateKernel(prog, d->name, &e);
    CHECK(e == CL_SUCCESS && kern, "clCreateKernel(%s): %d", d->name, (int)e);
    if (e != CL_SUCCESS || !kern) return;
    cl_uint nargs = 0;
    e = clGetKernelInfo(kern, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL);
    CHECK(e == CL_SUCCESS && (int)nargs == d->args, "%s: %u arguments in the program, %d declared", d->name, (unsigned)nargs, d->args);
    int wrong = 0, wrong_kind = 0;
    for (cl_uint i = 0; i < nargs && (int)i < d->args; ++i) {
        char name[128] = "", type[128] = "";
        cl_kernel_arg_address_qualifier space = 0;
        e = clGetKernelArgInfo(kern, i, CL_KERNEL_ARG_NAME, sizeof name, name, NULL);
        if (e != CL_SUCCESS || strcmp(name, d->arg[i]) != 0) {
            ++wrong;
            fprintf(stderr, "%s argument %u: '%s' in the program (%d), '%s' declared\n", d->name, (unsigned)i, name, (int)e, d->arg[i]);
        }
        cl_int e1 = clGetKernelArgInfo(kern, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof space, &space, NULL);
        cl_int e2 = clGetKernelArgInfo(kern, i, CL_KERNEL_ARG_TYPE_NAME, sizeof type, type, NULL);
        const char *want = kind_type(d->kind[i]);
        int ok = e1 == CL_SUCCESS && e2 == CL_SUCCESS && space == kind_space(d->kind[i]) &&
                 (want ? strcmp(type, want) == 0 : strchr(type, '*') != NULL);
        if (!ok) {
            ++wrong_kind;
            fprintf(stderr, "%s argument %u (%s): %s '%s' in the program (%d, %d), kind %s declared\n", d->name, (unsigned)i,
                    d->arg[i], space_name(space), type, (int)e1, (int)e2, kind_name(d->kind[i]));
        }
    }
    CHECK(wrong == 0, "%s: %d argument names differ from the declaration", d->name, wrong);
    CHECK(wrong_kind == 0, "%s: %d argument kinds differ from the declaration", d->name, wrong_kind);
    clReleaseKernel(kern);
}

int main(void) {
    cl_platform_id platform;
    cl_uint np = 0, nd = 0;
    cl_device_id dev;
    if (clGetPlatformIDs(1, &platform, &np) != CL_SUCCESS || np == 0 ||
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, &nd) != CL_SUCCESS || nd == 0) {
        printf("test_opencl_kernel_args: no OpenCL device, skipped\n");
        return CHECK_SKIPPED;
    }
    cl_int e = CL_SUCCESS;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    CHECK(e == CL_SUCCESS, "clCreateContext: %d", (int)e);
    if (e != CL_SUCCESS) return check_report("opencl_kernel_args");

    const char *src = ctn__opencl_kernel_source;
    size_t len = ctn__opencl_kernel_source_len;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, &len, &e);
    char options[600];
    ctn__ocl_build_options(dev, 0, options, sizeof options - 32);
    /* argument information costs the library's builds memory and time: only this test asks for it */
    CHECK(strstr(options, "-cl-kernel-arg-info") == NULL, "the library's build options ask for argument information: %s", options);
    /* the binary cache keys on the options: a program built with other options never loads another's binary */
    uint64_t key = ctn__ocl_cache_key(platform, dev, options);
    CHECK(key == ctn__ocl_cache_key(platform, dev, options), "the cache key is a function of its inputs");
    strcat(options, " -cl-kernel-arg-info");
    CHECK(ctn__ocl_cache_key(platform, dev, options) != key, "the cache key differs with -cl-kernel-arg-info");
    cl_int built = e == CL_SUCCESS ? clBuildProgram(prog, 1, &dev, options, NULL, NULL) : e;
    CHECK(built == CL_SUCCESS, "the kernel source builds with %s: %d", options, (int)built);
    if (built != CL_SUCCESS) {
        if (prog) clReleaseProgram(prog);
        clReleaseContext(ctx);
        return check_report("opencl_kernel_args");
    }

    /* the program's kernels: every one declared, and as many as the declaration has (fp64 permitting) */
    cl_device_fp_config fp64 = 0;
    clGetDeviceInfo(dev, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL);
    size_t nk = 0, names_len = 0;
    CHECK(clGetProgramInfo(prog, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk, NULL) == CL_SUCCESS, "CL_PROGRAM_NUM_KERNELS");
    clGetProgramInfo(prog, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &names_len);
    char *names = calloc(names_len + 1, 1);
    CHECK(names && clGetProgramInfo(prog, CL_PROGRAM_KERNEL_NAMES, names_len, names, NULL) == CL_SUCCESS, "CL_PROGRAM_KERNEL_NAMES");
    int seen = 0, in_program[CTN_K_COUNT] = {0};
    for (char *tok = names ? strtok(names, ";") : NULL; tok; tok = strtok(NULL, ";")) {
        int k = declared(tok);
        CHECK(k >= 0, "the program's kernel %s is not declared in host/opencl/opencl_kernels.h", tok);
        if (k >= 0) in_program[k] = 1;
        ++seen;
    }
    free(names);
    CHECK((size_t)seen == nk, "%d kernel names for %zu kernels", seen, nk);
    int expected = fp64 ? CTN_K_COUNT : CTN_K_STEP_COUNT;
    CHECK(nk == (size_t)expected, "%zu kernels in the program, %d declared for this device (fp64: %s)", nk, expected, fp64 ? "yes" : "no");

    /* every declared kernel against the program */
    int checked = 0, args = 0;
    for (int k = 0; k < CTN_K_COUNT; ++k) {
        if (k >= CTN_K_STEP_COUNT && !fp64) {
            CHECK(!in_program[k], "%s is in a program built without fp64", ctn__ocl_kernel_table[k].name);
            continue;
        }
        CHECK(in_program[k], "declared kernel %s is not in the program", ctn__ocl_kernel_table[k].name);
        check_kernel(prog, k);
        ++checked;
        args += ctn__ocl_kernel_table[k].args;
    }
    printf("test_opencl_kernel_args: %d kernels (%d arguments) checked against clGetKernelArgInfo%s\n", checked, args,
           fp64 ? "" : " (no fp64)");

    clReleaseProgram(prog);
    clReleaseContext(ctx);
    return check_report("opencl_kernel_args");
}
#endif
