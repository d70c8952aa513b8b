/* The impulse half of the divergence check, one function on both backends (ctn_impulse_bad,
 * kernels/ctn_solver.h): the CPU's stage_measure calls it per joint slot, the device's ctn_k_measure per
 * slot too, and both report the lowest slot with a NaN or infinite row impulse.
 *   test_impulse_check          the function itself on the host
 *   test_impulse_check opencl   ctn_k_measure + ctn_k_measure_final on the device, launched directly over
 *                               impulses with planted NaN and infinity (exits 77 without a device) */
#include "check.h"
#include "opencl_lsan.h"
#include "ctn_solver.h"
#include "core/nonfinite.h" /* ctn__impulses_bad: the CPU's grouped scan */

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 37

/* The lowest bad slot by the shared function, SLOTS when none. */
static int first_bad(const float *lambda) {
    for (int s = 0; s < SLOTS; ++s)
        if (ctn_impulse_bad(lambda, CTN_MAX_ROWS, s)) return s;
    return SLOTS;
}

static void check_host(void) {
    float lambda[6 * SLOTS];
    for (int k = 0; k < 6 * SLOTS; ++k) lambda[k] = (float)(k % 7) - 3.0f;
    lambda[6 * 5 + 2] = 3.0e38f; /* large but finite */
    CHECK(first_bad(lambda) == SLOTS, "finite impulses: first bad slot %d", first_bad(lambda));
    lambda[6 * 20 + 5] = NAN;
    CHECK(first_bad(lambda) == 20, "NaN in row 5 of slot 20: first bad slot %d", first_bad(lambda));
    lambda[6 * 9 + 0] = -INFINITY;
    CHECK(first_bad(lambda) == 9, "-inf in row 0 of slot 9: first bad slot %d", first_bad(lambda));
    CHECK(!ctn_impulse_bad(lambda, CTN_MAX_ROWS, 8) && !ctn_impulse_bad(lambda, CTN_MAX_ROWS, 10) && ctn_impulse_bad(lambda, CTN_MAX_ROWS, 20),
          "only the slots holding them are bad");
}

#ifndef CATENA_HAVE_OPENCL
static int check_device(void) { return CHECK_SKIPPED; }
#else
#include <CL/cl.h>

#include "opencl/opencl_kernels.h"

extern const char ctn__opencl_kernel_source[];
extern const size_t ctn__opencl_kernel_source_len;
void ctn__ocl_build_options(cl_device_id device, int fault_build, char *out, size_t size);

#define L 4
#define G 2
#define BODIES 3

static cl_mem buffer(cl_context ctx, size_t size, const void *data) {
    cl_int e = CL_SUCCESS;
    return clCreateBuffer(ctx, CL_MEM_READ_WRITE | (data ? CL_MEM_COPY_HOST_PTR : 0), size, (void *)data, &e);
}

/* ctn_k_measure and _final over `lambda` (the stats layout of host/opencl/opencl_internal.h: the body
 * check at [4], [5], the impulse check at [6]); returns the first bad slot the device reports. */
static int device_first_bad(cl_context ctx, cl_command_queue q, cl_kernel km, cl_kernel kf, const float *lambda) {
    ctn_joint_def defs[SLOTS];
    memset(defs, 0, sizeof defs);
    for (int s = 0; s < SLOTS; ++s) defs[s].a = s % BODIES, defs[s].b = -1;
    ctn_pose pose[BODIES];
    ctn_vel vel[BODIES];
    memset(pose, 0, sizeof pose);
    memset(vel, 0, sizeof vel);
    for (int i = 0; i < BODIES; ++i) pose[i].q.w = 1.0f;
    float r2[SLOTS] = {0}, stats[9] = {0};
    int zero[8] = {0};
    cl_mem bdefs = buffer(ctx, sizeof defs, defs), bpose = buffer(ctx, sizeof pose, pose), bvel = buffer(ctx, sizeof vel, vel);
    cl_mem br2 = buffer(ctx, sizeof r2, r2), blambda = buffer(ctx, 6 * SLOTS * sizeof(float), lambda);
    cl_mem bpartial = buffer(ctx, 6 * G * sizeof(float), NULL), bstats = buffer(ctx, sizeof stats, stats);
    cl_mem bstate = buffer(ctx, sizeof zero, zero), bprops = buffer(ctx, 64 * BODIES, NULL), binertia = buffer(ctx, 64 * BODIES, NULL);
    int m = SLOTS, n = BODIES, leave = 0, decide = 0, at_project = 7, at = 4, ls = CTN_MAX_ROWS;
    float limit = INFINITY;
    cl_int e = CL_SUCCESS;
#define SET(k, a, v) e |= clSetKernelArg(k, CTN_A_##a, sizeof(v), &(v))
    SET(km, MEASURE_m, m);
    SET(km, MEASURE_n, n);
    SET(km, MEASURE_defs, bdefs);
    SET(km, MEASURE_pose, bpose);
    SET(km, MEASURE_vel, bvel);
    SET(km, MEASURE_r2, br2);
    SET(km, MEASURE_lambda, blambda);
    SET(km, MEASURE_limit, limit);
    SET(km, MEASURE_partial, bpartial);
    SET(km, MEASURE_ipartial, bpartial);
    e |= clSetKernelArg(km, CTN_A_MEASURE_scratch, 3 * L * sizeof(float), NULL);
    e |= clSetKernelArg(km, CTN_A_MEASURE_iscratch, 3 * L * sizeof(int), NULL);
    SET(km, MEASURE_leave, leave);
    SET(km, MEASURE_state, bstate);
    SET(km, MEASURE_decide, decide);
    SET(km, MEASURE_kept, bpose);
    SET(km, MEASURE_props, bprops);
    SET(km, MEASURE_inertia, binertia);
    SET(km, MEASURE_istats, bstats);
    SET(km, MEASURE_at, at_project);
    SET(km, MEASURE_ls, ls);
    int groups = G;
    SET(kf, MEASURE_FINAL_groups, groups);
    SET(kf, MEASURE_FINAL_n, n);
    SET(kf, MEASURE_FINAL_m, m);
    SET(kf, MEASURE_FINAL_partial, bpartial);
    SET(kf, MEASURE_FINAL_ipartial, bpartial);
    SET(kf, MEASURE_FINAL_stats, bstats);
    SET(kf, MEASURE_FINAL_istats, bstats);
    SET(kf, MEASURE_FINAL_at, at);
    e |= clSetKernelArg(kf, CTN_A_MEASURE_FINAL_scratch, 3 * L * sizeof(float), NULL);
    e |= clSetKernelArg(kf, CTN_A_MEASURE_FINAL_iscratch, 3 * L * sizeof(int), NULL);
#undef SET
    CHECK(e == CL_SUCCESS, "clSetKernelArg: %d", (int)e);
    size_t local = L, global = G * L;
    e = clEnqueueNDRangeKernel(q, km, 1, NULL, &global, &local, 0, NULL, NULL);
    CHECK(e == CL_SUCCESS, "ctn_k_measure: %d", (int)e);
    e = clEnqueueNDRangeKernel(q, kf, 1, NULL, &local, &local, 0, NULL, NULL);
    CHECK(e == CL_SUCCESS, "ctn_k_measure_final: %d", (int)e);
    e = clEnqueueReadBuffer(q, bstats, CL_TRUE, 0, sizeof stats, stats, 0, NULL, NULL);
    CHECK(e == CL_SUCCESS, "reading the statistics: %d", (int)e);
    int bad_body = -1, bad_slot = -1;
    memcpy(&bad_body, &stats[5], sizeof bad_body);
    memcpy(&bad_slot, &stats[6], sizeof bad_slot);
    CHECK(bad_body == BODIES, "no bad body reported (%d)", bad_body);
    cl_mem all[] = {bdefs, bpose, bvel, br2, blambda, bpartial, bstats, bstate, bprops, binertia};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        if (all[i]) clReleaseMemObject(all[i]);
    return bad_slot;
}

static int check_device(void) {
    cl_platform_id platform;
    cl_uint np = 0, nd = 0;
    cl_device_id dev;
    if (clGetPlatformIDs(1, &platform, &np) != CL_SUCCESS || np == 0 ||
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, &nd) != CL_SUCCESS || nd == 0)
        return CHECK_SKIPPED;
    cl_int e = CL_SUCCESS;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    CHECK(e == CL_SUCCESS, "clCreateContext: %d", (int)e);
    if (e != CL_SUCCESS) return 0;
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &e);
    const char *src = ctn__opencl_kernel_source;
    size_t len = ctn__opencl_kernel_source_len;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, &len, &e);
    char options[512];
    ctn__ocl_build_options(dev, 0, options, sizeof options);
    e = clBuildProgram(prog, 1, &dev, options, NULL, NULL);
    CHECK(e == CL_SUCCESS, "the kernel source builds: %d", (int)e);
    cl_kernel km = clCreateKernel(prog, ctn__ocl_kernel_table[CTN_K_MEASURE].name, &e);
    cl_kernel kf = clCreateKernel(prog, ctn__ocl_kernel_table[CTN_K_MEASURE_FINAL].name, &e);
    if (km && kf) {
        float lambda[6 * SLOTS];
        for (int k = 0; k < 6 * SLOTS; ++k) lambda[k] = (float)(k % 7) - 3.0f;
        int got = device_first_bad(ctx, q, km, kf, lambda);
        CHECK(got == SLOTS, "finite impulses: the device reports slot %d (%d: none)", got, SLOTS);
        lambda[6 * 30 + 1] = NAN; /* in the second group's range of slots */
        got = device_first_bad(ctx, q, km, kf, lambda);
        CHECK(got == 30 && got == first_bad(lambda), "NaN in slot 30: the device reports %d, the host %d", got, first_bad(lambda));
        lambda[6 * 6 + 4] = INFINITY;
        got = device_first_bad(ctx, q, km, kf, lambda);
        CHECK(got == 6 && got == first_bad(lambda), "inf in slot 6: the device reports %d, the host %d", got, first_bad(lambda));
    }
    if (km) clReleaseKernel(km);
    if (kf) clReleaseKernel(kf);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return 0;
}
#endif

/* The CPU's stage_measure scans by groups of 8 slots (ctn__impulses_bad, their exponent fields first): the
 * lowest bad slot as ctn_impulse_bad's, for each of NaN, +inf and -inf planted alone in each row of each slot
 * (37 slots: 4 whole groups and a last one of 5), with large, tiny and subnormal finite values around. */
static int grouped_first_bad(const float *lambda) {
    int bad = INT_MAX;
    for (int g = 0; g < (SLOTS + 7) / 8; ++g) {
        int s = ctn__impulses_bad(lambda, CTN_MAX_ROWS, 8 * g, 8 * g + 8 < SLOTS ? 8 * g + 8 : SLOTS);
        bad = s < bad ? s : bad;
    }
    return bad == INT_MAX ? SLOTS : bad;
}

static void check_grouped(void) {
    float lambda[6 * SLOTS];
    const float finite[5] = {3.0e38f, -3.4028235e38f, 1e-45f, -0.0f, 1.17549435e-38f};
    for (int k = 0; k < 6 * SLOTS; ++k) lambda[k] = finite[k % 5] * (k % 3 == 0 ? 1.0f : 0.5f);
    CHECK(grouped_first_bad(lambda) == SLOTS && first_bad(lambda) == SLOTS, "finite impulses: grouped scan %d", grouped_first_bad(lambda));
    const float bad[3] = {NAN, INFINITY, -INFINITY};
    int wrong = 0;
    for (int b = 0; b < 3; ++b)
        for (int k = 0; k < 6 * SLOTS; ++k) {
            float keep = lambda[k];
            lambda[k] = bad[b];
            wrong += grouped_first_bad(lambda) != k / 6 || first_bad(lambda) != k / 6;
            lambda[k] = keep;
        }
    CHECK(wrong == 0, "%d of %d planted non-finite impulses found in the wrong slot by the grouped scan", wrong, 3 * 6 * SLOTS);
    lambda[6 * 30 + 1] = NAN, lambda[6 * 13 + 5] = INFINITY;
    CHECK(grouped_first_bad(lambda) == 13, "two bad slots: the grouped scan reports %d, not 13", grouped_first_bad(lambda));
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "opencl") == 0) {
        if (check_device() == CHECK_SKIPPED) {
            printf("test_impulse_check opencl: no OpenCL device, skipped\n");
            return CHECK_SKIPPED;
        }
    } else {
        check_host();
        check_grouped();
    }
    return check_report("impulse_check");
}
