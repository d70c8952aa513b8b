/* `catena devices`: lists OpenCL platforms and devices and the one `auto` picks. With --verbose it also
 * times the kernel program build of each device: cold (from source, into an empty binary cache) and warm
 * (from the cached binary), through world creation with a temporary cache directory (ctn_set_cache_dir),
 * and lists each kernel's private memory per work-item and static local memory (CL_KERNEL_PRIVATE_MEM_SIZE
 * and CL_KERNEL_LOCAL_MEM_SIZE): private memory is reserved per resident thread on a GPU, so a kernel
 * above about 1 KB there limits occupancy. */
#define _GNU_SOURCE
#include "cli.h"
#ifdef CATENA_HAVE_OPENCL
#include "opencl/opencl_report.h"
#endif

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double devices_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* World creation time (ms) on device "P:D" with explicit OpenCL; < 0 on failure. */
static double time_world(const ctn_device_info *d, char *err, size_t err_size) {
    char req[32];
    snprintf(req, sizeof req, "%d:%d", d->platform, d->device);
    ctn_world_desc desc = ctn_world_desc_default();
    desc.backend = CTN_BACKEND_OPENCL;
    desc.device = req;
    ctn_world *w = NULL;
    double t0 = devices_now_ms();
    ctn_status st = ctn_world_create(&desc, &w, err, err_size);
    double ms = devices_now_ms() - t0;
    ctn_world_destroy(w);
    return st == CTN_OK ? ms : -1.0;
}

/* Cold and warm program build times of one device, in a temporary cache directory. */
static void print_build_times(const ctn_device_info *d) {
    char dir[64], saved[1024] = "", err[2048] = "";
    snprintf(saved, sizeof saved, "%s", ctn_get_cache_dir());
    snprintf(dir, sizeof dir, "/tmp/catena-devices-%ld", (long)getpid());
    ctn_set_cache_dir(dir);
    double cold = time_world(d, err, sizeof err);
    double warm = cold >= 0.0 ? time_world(d, err, sizeof err) : -1.0;
    if (cold >= 0.0) printf("        program build: cold %.1f ms (from source), warm %.1f ms (cached binary)\n", cold, warm);
    else printf("        program build failed: %s\n", err);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "catena: could not remove %s\n", dir);
    ctn_set_cache_dir(saved);
}

/* Private and local memory of every kernel of the program built for device d. */
static void print_kernel_memory(const ctn_device_info *d) {
#ifdef CATENA_HAVE_OPENCL
    char req[32], err[2048] = "";
    snprintf(req, sizeof req, "%d:%d", d->platform, d->device);
    ctn_world_desc desc = ctn_world_desc_default();
    desc.backend = CTN_BACKEND_OPENCL;
    desc.device = req;
    ctn_world *w = NULL;
    if (ctn_world_create(&desc, &w, err, sizeof err) != CTN_OK) {
        printf("        kernels: %s\n", err);
        return;
    }
    ctn_ocl_kernel_memory k[128];
    int n = ctn__opencl_kernel_memory(w, k, 128);
    if (n < 0) printf("        kernels: the device did not report their memory\n");
    for (int i = 0; i < n && i < 128; ++i)
        printf("        kernel %-28s private %6llu B, local %6llu B\n", k[i].name, k[i].private_bytes, k[i].local_bytes);
    ctn_world_destroy(w);
#else
    (void)d;
#endif
}

/* argv[0] is "devices". Returns -1 to go on, else the exit code. */
static int parse_devices(int argc, char **argv, int *verbose) {
    static const struct option longs[] = {{"verbose", no_argument, NULL, 'v'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    opterr = 0;
    optind = 1;
    int c;
    *verbose = 0;
    while ((c = getopt_long(argc, argv, "vh", longs, NULL)) != -1) {
        if (c == 'v') *verbose = 1;
        else if (c == 'h') {
            printf("usage: catena devices [-v|--verbose]\n"
                   "Lists the OpenCL platforms and devices and marks the one the auto backend picks.\n"
                   "  -v, --verbose   platform, vendor, driver and allocation limit, the kernel build time of each device and\n"
                   "                  each kernel's private (per work-item) and local memory\n");
            return CTN_EXIT_OK;
        } else {
            const char *bad = argv[optind - 1];
            if (!strncmp(bad, "--", 2)) fprintf(stderr, "catena devices: unknown option %.*s\n", (int)strcspn(bad, "="), bad);
            else fprintf(stderr, "catena devices: unknown option -%c\n", optopt);
            fprintf(stderr, "Try 'catena devices --help'.\n");
            return CTN_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "catena devices: unexpected argument '%s'\n", argv[optind]);
        return CTN_EXIT_USAGE;
    }
    return -1;
}

int ctn_cli_devices(int argc, char **argv) {
    int verbose;
    int code = parse_devices(argc, argv, &verbose);
    if (code >= 0) return code;
    ctn_device_info dev[64];
    int count = 0;
    char err[1024] = "";
    ctn_status st = ctn_list_devices(dev, 64, &count, err, sizeof err);
    if (st != CTN_OK) {
        fprintf(stderr, "catena: %s: %s\n", ctn_status_name(st), err);
        return CTN_EXIT_DEVICE;
    }
    if (count == 0) {
        printf("no OpenCL devices%s%s; `auto` uses the CPU solver\n", err[0] ? ": " : "", err);
        return CTN_EXIT_OK;
    }
    int any_auto = 0;
    for (int i = 0; i < count && i < 64; ++i) any_auto |= dev[i].auto_choice;
    if (!any_auto) printf("no OpenCL GPU: `auto` uses the CPU solver; `--backend opencl` uses device 0:0\n");
    for (int i = 0; i < count && i < 64; ++i) {
        const ctn_device_info *d = &dev[i];
        printf("%s%d:%d  %-40s %s, %d compute units, %.0f MiB%s\n", d->auto_choice ? "* " : "  ", d->platform, d->device, d->name,
               d->is_gpu ? "GPU" : "CPU", d->compute_units, d->global_memory_mib, d->auto_choice ? "  (auto)" : "");
        if (verbose)
            printf("        platform %s | vendor %s | %s | driver %s | max alloc %.0f MiB\n", d->platform_name, d->vendor, d->version,
                   d->driver, d->max_alloc_mib);
        if (verbose) print_build_times(d);
        if (verbose) print_kernel_memory(d);
    }
    return CTN_EXIT_OK;
}
