/* CPU and OpenCL backends side by side: chains and grids of 1e3..1e6 bodies, ms/step (median
 * over the measured steps, after warm-up) with its phase breakdown, row updates per second, colours,
 * the measured device copy bandwidth, and the bandwidth floor of a Gauss-Seidel sweep.
 *
 * Bandwidth floor: one block GS update of a joint slot (ctn_gs_slot) reads the joint definition (112 B),
 * its block (288 B), its impulses (24 B) and both bodies' velocities (2 x 32 B) and inverse inertias
 * (2 x 32 B), and writes impulses (24 B), both velocities (64 B) and its squared residual (4 B): 644 B
 * per joint. floor = joints x 644 B / copy bandwidth (read + write bytes per second) per sweep; the
 * achieved sweep time is the device solve time per step divided by substeps x iterations (it also holds
 * the warm start, so achieved/floor is an upper bound).
 *
 * Usage: bench_backends [--sizes 1000,10000,100000] [--scenes chain,grid] [--steps 10] [--warmup 3]
 *                       [--solver gs|jacobi|cg] [--backends cpu,opencl] [--device P:D]
 *                       [--json FILE] [--md FILE] */
#define _POSIX_C_SOURCE 200809L
#include "bench_env.h"
#include "cli/bench_measure.h"
#include "catena/catena.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


#define GS_BYTES_PER_JOINT CTN_BENCH_GS_BYTES_PER_JOINT
#define MAX_RESULTS 64

typedef struct result {
    char scene[64];
    char backend[16];
    char device[256];
    int bodies, joints, rows, colours, largest_colour;
    double ms_median, ms_colour, ms_prepare, ms_solve, ms_integrate, ms_transfer;
    double row_updates_per_s, max_gap, residual;
    double sweep_ms, floor_ms; /* OpenCL GS only */
} result;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}


static const char *solver_name(ctn_solver s) { return s == CTN_SOLVER_GS ? "gs" : s == CTN_SOLVER_JACOBI ? "jacobi" : "cg"; }

/* Runs one scene on one backend; returns 0 if the backend is unavailable or failed. */
static int bench_one(const char *scene, ctn_backend backend, ctn_solver solver, const char *device, int warmup, int steps, double gbps,
                     result *r) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = backend;
    d.solver = solver;
    d.device = device;
    ctn_world *w = NULL;
    char err[4096];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        fprintf(stderr, "bench_backends: %s: %s\n", backend == CTN_BACKEND_CPU ? "cpu" : "opencl", err);
        return 0;
    }
    memset(r, 0, sizeof *r);
    snprintf(r->scene, sizeof r->scene, "%s", scene);
    snprintf(r->backend, sizeof r->backend, "%s", ctn_world_backend_name(w));
    snprintf(r->device, sizeof r->device, "%s", ctn_world_device_name(w));
    if (ctn_scene_from_spec(w, scene) != CTN_OK) {
        fprintf(stderr, "bench_backends: %s\n", ctn_world_last_error(w));
        ctn_world_destroy(w);
        return 0;
    }
    /* the shared measurement (host/cli/bench_measure.c, as `catena bench`): warm-up, then one block of `steps` */
    ctn_bench_plan plan = {.warmup = warmup, .repeats = 1, .steps = steps};
    ctn_bench_result m;
    int ok = ctn_bench_measure(w, &plan, &m);
    if (!ok) fprintf(stderr, "bench_backends: %s: %s\n", scene, m.error);
    if (ok) {
        r->ms_colour = m.ms_colour_first; /* colouring happens once, on the first step */
        r->ms_median = m.ms_median;
        r->ms_prepare = m.ms_prepare;
        r->ms_solve = m.ms_solve;
        r->ms_integrate = m.ms_integrate;
        r->ms_transfer = m.ms_transfer;
        r->bodies = m.bodies;
        r->joints = m.joints;
        r->rows = m.rows;
        r->colours = m.colours;
        r->largest_colour = m.largest_colour;
        r->row_updates_per_s = m.row_updates_per_s;
        r->max_gap = m.gap_last;
        r->residual = m.residual_last;
        if (!strcmp(r->backend, "opencl") && solver == CTN_SOLVER_GS && gbps > 0.0) {
            ctn_bench_gs_bandwidth_fraction(&m, gbps, &r->sweep_ms);
            r->floor_ms = r->joints * GS_BYTES_PER_JOINT / (gbps * 1e9) * 1e3;
        }
    }
    ctn_world_destroy(w);
    return ok;
}

/* Cold (empty cache) and warm (cached binary) OpenCL world creation times in ms. */
static void build_times(const char *device, double *cold, double *warm) {
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/catena-bench-cache-%ld", (long)getpid());
    char saved[1024] = "";
    snprintf(saved, sizeof saved, "%s", ctn_get_cache_dir());
    ctn_set_cache_dir(dir);
    double t[2] = {-1.0, -1.0};
    for (int k = 0; k < 2; ++k) {
        ctn_world_desc d = ctn_world_desc_default();
        d.backend = CTN_BACKEND_OPENCL;
        d.device = device;
        ctn_world *w = NULL;
        char err[4096];
        double t0 = now_ms();
        if (ctn_world_create(&d, &w, err, sizeof err) == CTN_OK) t[k] = now_ms() - t0;
        ctn_world_destroy(w);
    }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "bench_backends: could not remove %s\n", dir);
    ctn_set_cache_dir(saved);
    *cold = t[0];
    *warm = t[1];
}

int main(int argc, char **argv) {
    const char *sizes = "1000,10000,100000", *scenes = "chain,grid", *json = NULL, *md = NULL, *device = NULL, *backends = "cpu,opencl";
    int steps = 10, warmup = 3;
    ctn_solver solver = CTN_SOLVER_GS;
    for (int i = 1; i < argc; ++i) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "bench_backends: %s needs a value\n", o);
            return 2;
        }
        ++i;
        if (!strcmp(o, "--sizes")) sizes = v;
        else if (!strcmp(o, "--scenes")) scenes = v;
        else if (!strcmp(o, "--steps")) steps = atoi(v);
        else if (!strcmp(o, "--warmup")) warmup = atoi(v);
        else if (!strcmp(o, "--json")) json = v;
        else if (!strcmp(o, "--md")) md = v;
        else if (!strcmp(o, "--device")) device = v;
        else if (!strcmp(o, "--backends")) backends = v;
        else if (!strcmp(o, "--solver")) {
            solver = !strcmp(v, "jacobi") ? CTN_SOLVER_JACOBI : !strcmp(v, "cg") ? CTN_SOLVER_CG : CTN_SOLVER_GS;
        } else {
            fprintf(stderr, "bench_backends: unknown option %s\n", o);
            return 2;
        }
    }
    if (steps < 1 || warmup < 0) {
        fprintf(stderr, "bench_backends: --steps must be >= 1 and --warmup >= 0\n");
        return 2;
    }
    int use_cpu = strstr(backends, "cpu") != NULL, use_ocl = strstr(backends, "opencl") != NULL;

    /* device facts: copy bandwidth and program build times */
    double gbps = 0.0, cold = -1.0, warm = -1.0;
    char devname[256] = "none";
    if (use_ocl) {
        ctn_world_desc d = ctn_world_desc_default();
        d.backend = CTN_BACKEND_OPENCL;
        d.device = device;
        ctn_world *w = NULL;
        char err[4096];
        if (ctn_world_create(&d, &w, err, sizeof err) == CTN_OK) {
            snprintf(devname, sizeof devname, "%s", ctn_world_device_name(w));
            gbps = ctn_bench_copy_bandwidth(w, (size_t)256 << 20, 10);
            ctn_world_destroy(w);
            build_times(device, &cold, &warm);
        } else {
            fprintf(stderr, "bench_backends: no OpenCL backend: %s\n", err);
            use_ocl = 0;
        }
    }
    printf("device: %s\ncopy bandwidth: %.2f GB/s (read + write)\nprogram build: cold %.1f ms, warm (cached binary) %.1f ms\n", devname,
           gbps, cold, warm);

    result res[MAX_RESULTS];
    int nres = 0;
    char sizes_copy[256], scenes_copy[256];
    snprintf(scenes_copy, sizeof scenes_copy, "%s", scenes);
    for (char *sc = strtok(scenes_copy, ","); sc; sc = strtok(NULL, ",")) {
        char kind[32];
        snprintf(kind, sizeof kind, "%s", sc);
        snprintf(sizes_copy, sizeof sizes_copy, "%s", sizes);
        char *save = NULL;
        for (char *sz = strtok_r(sizes_copy, ",", &save); sz; sz = strtok_r(NULL, ",", &save)) {
            int n = atoi(sz);
            if (n < 2) continue;
            char spec[64];
            if (!strcmp(kind, "grid")) {
                int side = (int)lround(sqrt((double)n));
                snprintf(spec, sizeof spec, "grid:%dx%d", side, side);
            } else {
                snprintf(spec, sizeof spec, "%s:%d", kind, n);
            }
            for (int b = 0; b < 2; ++b) {
                if ((b == 0 && !use_cpu) || (b == 1 && !use_ocl) || nres >= MAX_RESULTS) continue;
                fprintf(stderr, "bench_backends: %s on %s...\n", spec, b ? "opencl" : "cpu");
                if (bench_one(spec, b ? CTN_BACKEND_OPENCL : CTN_BACKEND_CPU, solver, device, warmup, steps, gbps, &res[nres])) nres++;
            }
        }
    }

    FILE *outs[2] = {stdout, md ? fopen(md, "w") : NULL};
    for (int k = 0; k < 2; ++k) {
        FILE *f = outs[k];
        if (!f) continue;
        if (k == 1)
            fprintf(f, "# CPU vs OpenCL, solver %s\n\nDevice: %s. Copy bandwidth %.2f GB/s (read + write). Program build: cold %.1f ms, warm "
                       "%.1f ms (cached binary).\nSteps: %d measured after %d warm-up; ms/step is the median, phases are medians (OpenCL phases are "
                       "device times from event profiling).\n\n",
                    solver_name(solver), devname, gbps, cold, warm, steps, warmup);
        fprintf(f, "\n| scene | bodies | rows | colours | backend | ms/step | colour | prepare | solve | integrate | transfer | row updates/s | "
                   "max gap (m) | GS sweep ms | floor ms | achieved/floor |\n");
        fprintf(f, "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (int i = 0; i < nres; ++i) {
            const result *r = &res[i];
            fprintf(f, "| %s | %d | %d | %d | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3g | %.3g |", r->scene, r->bodies, r->rows, r->colours,
                    r->backend, r->ms_median, r->ms_colour, r->ms_prepare, r->ms_solve, r->ms_integrate, r->ms_transfer, r->row_updates_per_s,
                    r->max_gap);
            if (r->floor_ms > 0.0) fprintf(f, " %.4f | %.4f | %.1f |\n", r->sweep_ms, r->floor_ms, r->sweep_ms / r->floor_ms);
            else fprintf(f, " - | - | - |\n");
        }
        if (k == 1) fclose(f);
    }
    if (json) {
        FILE *f = fopen(json, "w");
        if (!f) {
            fprintf(stderr, "bench_backends: cannot write %s\n", json);
            return 1;
        }
        fprintf(f, "{\n  \"solver\": \"%s\",\n  \"device\": \"%s\",\n  \"copy_bandwidth_gbps\": %.4f,\n  \"build_ms_cold\": %.2f,\n  \"build_ms_warm\": %.2f,\n"
                   "  \"steps\": %d,\n  \"warmup\": %d,\n  \"gs_bytes_per_joint\": %.0f,\n  \"results\": [\n",
                solver_name(solver), devname, gbps, cold, warm, steps, warmup, GS_BYTES_PER_JOINT);
        for (int i = 0; i < nres; ++i) {
            const result *r = &res[i];
            fprintf(f,
                    "    {\"scene\": \"%s\", \"backend\": \"%s\", \"device\": \"%s\", \"bodies\": %d, \"joints\": %d, \"rows\": %d, \"colours\": %d, "
                    "\"largest_colour\": %d, \"ms_step_median\": %.5f, \"ms_colour\": %.5f, \"ms_prepare\": %.5f, \"ms_solve\": %.5f, "
                    "\"ms_integrate\": %.5f, \"ms_transfer\": %.5f, \"row_updates_per_s\": %.6g, \"max_gap\": %.6g, \"residual\": %.6g, "
                    "\"gs_sweep_ms\": %.6f, \"gs_floor_ms\": %.6f}%s\n",
                    r->scene, r->backend, r->device, r->bodies, r->joints, r->rows, r->colours, r->largest_colour, r->ms_median, r->ms_colour,
                    r->ms_prepare, r->ms_solve, r->ms_integrate, r->ms_transfer, r->row_updates_per_s, r->max_gap, r->residual, r->sweep_ms,
                    r->floor_ms, i + 1 < nres ? "," : "");
        }
        fprintf(f, "  ]\n}\n");
        fclose(f);
    }
    return 0;
}
