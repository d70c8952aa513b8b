/* opencl_buffer_bytes: device memory an OpenCL program allocates, by intercepting clCreateBuffer and
 * clReleaseMemObject (LD_PRELOAD; bench/opencl_buffer_bytes.sh builds and runs it). At exit it prints to
 * stderr the peak of the bytes live at once (the buffers created and not yet released), the bytes live at
 * exit, and with OPENCL_BUFFER_BYTES_LIST=1 every buffer live at the peak by size. The backend reports no
 * device memory of its own (host/opencl/opencl_report.h gives the kernels' private and local memory only),
 * and under PoCL the buffers sit in host memory among everything else, so this is how the device's share of a
 * run is counted. A bench tool, not part of the library. */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS (1 << 16) /* open addressing: far more buffers than a world holds */
static struct { cl_mem mem; size_t size; } g_live[SLOTS], g_at_peak[SLOTS];
static size_t g_bytes, g_peak, g_created;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t slot_of(cl_mem m) {
    size_t h = (size_t)(uintptr_t)m;
    return (h ^ h >> 17) * 0x9E3779B97F4A7C15ull >> 48 & (SLOTS - 1);
}

cl_mem clCreateBuffer(cl_context ctx, cl_mem_flags flags, size_t size, void *host, cl_int *err) {
    static cl_mem (*real)(cl_context, cl_mem_flags, size_t, void *, cl_int *);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "clCreateBuffer");
    cl_mem m = real(ctx, flags, size, host, err);
    if (!m) return m;
    pthread_mutex_lock(&g_lock);
    size_t s = slot_of(m);
    while (g_live[s].mem) s = (s + 1) & (SLOTS - 1);
    g_live[s].mem = m, g_live[s].size = size;
    g_bytes += size, g_created += size;
    if (g_bytes > g_peak) {
        g_peak = g_bytes;
        memcpy(g_at_peak, g_live, sizeof g_live);
    }
    pthread_mutex_unlock(&g_lock);
    return m;
}

cl_int clReleaseMemObject(cl_mem m) {
    static cl_int (*real)(cl_mem);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "clReleaseMemObject");
    pthread_mutex_lock(&g_lock);
    size_t s = slot_of(m);
    for (size_t n = 0; n < SLOTS && g_live[s].mem; ++n, s = (s + 1) & (SLOTS - 1))
        if (g_live[s].mem == m) { /* the backend holds one reference to each of its buffers */
            g_bytes -= g_live[s].size;
            g_live[s].mem = NULL;
            /* re-insert the run after the hole so that lookups keep finding it */
            for (size_t t = (s + 1) & (SLOTS - 1); g_live[t].mem; t = (t + 1) & (SLOTS - 1)) {
                cl_mem mm = g_live[t].mem;
                size_t sz = g_live[t].size, u = slot_of(mm);
                g_live[t].mem = NULL;
                while (g_live[u].mem) u = (u + 1) & (SLOTS - 1);
                g_live[u].mem = mm, g_live[u].size = sz;
            }
            break;
        }
    pthread_mutex_unlock(&g_lock);
    return real(m);
}

static int by_size(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

__attribute__((destructor)) static void report(void) {
    fprintf(stderr, "opencl_buffer_bytes: peak live %zu bytes, live at exit %zu, created in all %zu\n", g_peak, g_bytes, g_created);
    const char *list = getenv("OPENCL_BUFFER_BYTES_LIST");
    if (!list || strcmp(list, "1")) return;
    static size_t sizes[SLOTS];
    size_t n = 0;
    for (size_t s = 0; s < SLOTS; ++s)
        if (g_at_peak[s].mem) sizes[n++] = g_at_peak[s].size;
    qsort(sizes, n, sizeof *sizes, by_size);
    for (size_t i = 0; i < n; ++i) fprintf(stderr, "opencl_buffer_bytes:   %zu\n", sizes[i]);
}
