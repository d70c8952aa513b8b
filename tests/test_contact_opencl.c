/* OpenCL vs CPU on the contact scenes: same contacts, limits and motors, positions within a
 * tolerance after a short run. The split of the joint gap from the contact depth, made on the host from the
 * stored state (host/core/world.c step_split_gap), costs an OpenCL world with contacts no download of its
 * own: one a step, the one its collision detection makes (then earlier), and none in a world without
 * contacts. Skipped (exit 77) when this build or machine has no OpenCL device. */
#include "catena/catena.h"
#include "check.h"
#include "core/world.h"
#include "joint_split.h"
#include "opencl_lsan.h" /* PoCL/LLVM allocations kept until exit (when this test compiles the kernels) */

#include <math.h>
#include <stdlib.h>

static ctn_world *make(ctn_backend backend, char *err, size_t n) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = backend;
    d.integrator = CTN_INTEGRATOR_VELOCITY; /* compared bitwise with OpenCL on the velocity step (RATTLE agrees to rounding only: test_rattle_opencl) */
    d.debug.project_chord = 0;               /* nor the projection's chord steps (CPU only) */
    ctn_world *w = NULL;
    if (ctn_world_create(&d, &w, err, n) != CTN_OK) return NULL;
    return w;
}

/* Downloads of the device state to the host (the backend's sync_to_host, counted through a copy of its
 * operations) per step over 10 steps of `spec` on OpenCL: each step's count must be `want`. */
static int syncs;
static ctn_status (*real_sync)(ctn_world *);
static ctn_status counted_sync(ctn_world *w) {
    syncs++;
    return real_sync(w);
}

static void downloads_per_step(const char *spec, int want) {
    char err[512];
    ctn_world *w = make(CTN_BACKEND_OPENCL, err, sizeof err);
    CHECK(w && ctn_scene_from_spec(w, spec) == CTN_OK, "%s: %s", spec, w ? ctn_world_last_error(w) : err);
    if (!w) return;
    static ctn_backend_ops ops;
    const ctn_backend_ops *real = w->backend;
    ops = *real;
    real_sync = ops.sync_to_host;
    ops.sync_to_host = counted_sync;
    w->backend = &ops;
    for (int i = 0; i < 10; ++i) {
        int before = syncs;
        CHECK(ctn_world_step(w) == CTN_OK, "%s: %s", spec, ctn_world_last_error(w));
        ctn_step_stats st;
        ctn_world_get_stats(w, &st);
        CHECK(syncs - before == want, "%s step %d (%d contacts): %d downloads, expected %d", spec, i, st.contacts, syncs - before, want);
        CHECK((st.contacts > 0) == (want > 0), "%s step %d: %d contacts", spec, i, st.contacts);
    }
    w->backend = real;
    ctn_world_destroy(w);
}

int main(void) {
    char err[512];
    ctn_world *probe = make(CTN_BACKEND_OPENCL, err, sizeof err);
    if (!probe) {
        printf("contact_opencl: no OpenCL backend: %s\n", err);
        return check_skip("contact_opencl", "no OpenCL backend");
    }
    ctn_world_destroy(probe);
    downloads_per_step("pile:20", 1);  /* the collision detection's, which the split takes first */
    downloads_per_step("chain:20", 0); /* no contacts: the device's max_gap is the joint gap, no pass */
    const char *scenes[] = {"pile:200", "capsule_chain:60", "bridge_limits:10", "wheel", "contact_cradle:5"};
    for (size_t s = 0; s < sizeof scenes / sizeof scenes[0]; ++s) {
        ctn_world *cpu = make(CTN_BACKEND_CPU, err, sizeof err), *gpu = make(CTN_BACKEND_OPENCL, err, sizeof err);
        CHECK(cpu && gpu, "create: %s", err);
        if (!cpu || !gpu) break;
        CHECK(ctn_scene_from_spec(cpu, scenes[s]) == CTN_OK && ctn_scene_from_spec(gpu, scenes[s]) == CTN_OK, "%s", scenes[s]);
        for (int i = 0; i < 20; ++i) {
            CHECK(ctn_world_step(cpu) == CTN_OK, "cpu %s: %s", scenes[s], ctn_world_last_error(cpu));
            CHECK(ctn_world_step(gpu) == CTN_OK, "opencl %s: %s", scenes[s], ctn_world_last_error(gpu));
        }
        int n = ctn_world_body_count(cpu), wa = 0, wb = 0;
        double *a = malloc(3 * (size_t)n * sizeof *a), *b = malloc(3 * (size_t)n * sizeof *b);
        ctn_world_get_positions(cpu, a, n, &wa);
        ctn_world_get_positions(gpu, b, n, &wb);
        double worst = 0.0;
        for (int k = 0; k < 3 * wa; ++k) worst = fmax(worst, fabs(a[k] - b[k]));
        /* measured on PoCL 3.1 (2-core VM, 2026-11-23): 1.4e-7 m on pile:200, 4.2e-8 m on bridge_limits:10,
         * bitwise on the others; 10x the largest */
        CHECK(wa == wb && worst < 1.5e-6, "%s: OpenCL and CPU positions differ by %g m", scenes[s], worst);
        int ca = 0, cb = 0;
        ctn_world_get_contacts(cpu, NULL, 0, &ca);
        ctn_world_get_contacts(gpu, NULL, 0, &cb);
        CHECK(ca == cb, "%s: %d contacts on the CPU, %d on OpenCL", scenes[s], ca, cb);
        /* both backends report the joints' error and the contacts' depth apart (the OpenCL world is read back) */
        double da = check_joint_split(cpu, scenes[s]), db = check_joint_split(gpu, scenes[s]);
        CHECK(fabs(da - db) <= 1e-5, "%s: contact depth %g m on the CPU, %g m on OpenCL", scenes[s], da, db);
        printf("%s: max position difference %.3g m, %d contacts, depth %.3g m\n", scenes[s], worst, ca, db);
        free(a);
        free(b);
        ctn_world_destroy(cpu);
        ctn_world_destroy(gpu);
    }
    return check_report("contact_opencl");
}
