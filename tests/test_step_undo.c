/* An undone step restores the contact set: a step forced to diverge (desc.max_speed far below the
 * bodies' speeds) on a scene whose contacts change from step to step leaves the world bitwise as it was
 * before the step: every slot's handle (slot and generation: which contacts exist, and which were
 * recycled), body state, joint anchors and warm-start impulses, and the checkpoint file byte for byte.
 * The world then goes on bitwise equal to a twin that never took the undone steps.
 * `test_step_undo` checks the CPU backend, `test_step_undo opencl` (CTest: test_step_undo_opencl) the
 * OpenCL backend, skipped (exit 77) without an OpenCL device. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "check.h"
#include "files.h"
#include "opencl_lsan.h" /* PoCL/LLVM allocations kept until exit (the OpenCL half compiles the kernels) */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static ctn_world *make(ctn_backend backend, const char *spec, char *err, size_t err_size) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = backend;
    d.solver = CTN_SOLVER_GS;
    ctn_world *w = NULL;
    if (ctn_world_create(&d, &w, err, err_size) != CTN_OK) return NULL;
    if (ctn_scene_from_spec(w, spec) != CTN_OK) {
        snprintf(err, err_size, "%s: %s", spec, ctn_world_last_error(w));
        ctn_world_destroy(w);
        return NULL;
    }
    return w;
}

/* Every slot: handle, body state; every joint slot: handle, type, world anchors, impulses. Free slots are
 * zeros. Returns a malloc'ed buffer of *size bytes. */
static unsigned char *fingerprint(ctn_world *w, size_t *size, int *contacts) {
    int nb = 0, nj = 0;
    ctn_world_id_counts(w, &nb, &nj);
    size_t body_bytes = sizeof(ctn_body_id) + sizeof(ctn_body_state);
    size_t joint_bytes = sizeof(ctn_joint_id) + sizeof(ctn_joint_info) + 6 * sizeof(double);
    *size = (size_t)nb * body_bytes + (size_t)nj * joint_bytes;
    unsigned char *buf = calloc(1, *size + 1), *p = buf;
    *contacts = 0;
    for (int i = 0; i < nb; ++i, p += body_bytes) {
        ctn_body_id id;
        if (ctn_world_body_at(w, i, &id) != CTN_OK) continue;
        int64_t key = ctn_body_id_to_int(id); /* world-free: twins have different world tags */
        memcpy(p, &key, sizeof key);
        ctn_body_get_state(w, id, (ctn_body_state *)(p + sizeof id));
    }
    for (int j = 0; j < nj; ++j, p += joint_bytes) {
        ctn_joint_id id;
        if (ctn_world_joint_at(w, j, &id) != CTN_OK) continue;
        ctn_joint_info info;
        memset(&info, 0, sizeof info);
        ctn_joint_get_info(w, id, &info);
        *contacts += info.type == CTN_JOINT_CONTACT;
        info.body_a.world0 = info.body_b.world0 = 0;
        int64_t key = ctn_joint_id_to_int(id);
        memcpy(p, &key, sizeof key);
        memcpy(p + sizeof id, &info, sizeof info);
        ctn_joint_get_impulse(w, id, (double *)(p + sizeof id + sizeof info), NULL);
    }
    return buf;
}

/* One scene: `steps` steps of world A and of its twin B; every `every`-th step of A is first tried with
 * max_speed 1e-9 (it diverges and must be undone), then taken normally. Returns the undone steps in which
 * the contact set had changed (the step's contact generation added or removed contacts), or -1 to skip. */
static int check_scene(ctn_backend backend, const char *spec, int steps, int every, int *changed) {
    char err[512], ck1[64], ck2[64];
    ctn_world *a = make(backend, spec, err, sizeof err);
    if (!a && backend == CTN_BACKEND_OPENCL) {
        printf("step_undo: no OpenCL world (%s)\n", err);
        return -1;
    }
    ctn_world *b = make(backend, spec, err, sizeof err);
    CHECK(a && b, "%s: %s", spec, err);
    if (!a || !b) return 0;
    snprintf(ck1, sizeof ck1, "step-undo-%ld-1.ckpt", (long)getpid());
    snprintf(ck2, sizeof ck2, "step-undo-%ld-2.ckpt", (long)getpid());
    ctn_world_desc d;
    ctn_world_get_desc(a, &d);
    int undone = 0;
    *changed = 0;
    for (int k = 1; k <= steps; ++k) {
        if (k % every == 0) {
            size_t n0 = 0, n1 = 0;
            int c0 = 0, c1 = 0;
            unsigned char *f0 = fingerprint(a, &n0, &c0);
            CHECK(ctn_world_save(a, ck1, (uint64_t)k, "undo") == CTN_OK, "save: %s", ctn_world_last_error(a));
            ctn_world_desc fast = d;
            fast.max_speed = 1e-9;
            ctn_world_set_desc(a, &fast);
            ctn_status st = ctn_world_step(a);
            ctn_step_stats s;
            ctn_world_get_stats(a, &s);
            ctn_world_set_desc(a, &d);
            CHECK(st == CTN_ERR_DIVERGED, "%s step %d: status %s, expected CTN_ERR_DIVERGED", spec, k, ctn_status_name(st));
            unsigned char *f1 = fingerprint(a, &n1, &c1);
            CHECK(n0 == n1 && memcmp(f0, f1, n0) == 0, "%s step %d: the undone step changed the world (%d -> %d contacts, %zu -> %zu bytes)",
                  spec, k, c0, c1, n0, n1);
            CHECK(ctn_world_save(a, ck2, (uint64_t)k, "undo") == CTN_OK, "save: %s", ctn_world_last_error(a));
            CHECK(test_same_files(ck1, ck2), "%s step %d: the checkpoints before and after the undone step differ", spec, k);
            free(f0);
            free(f1);
            undone++;
        }
        /* the contact count of the previous step, to tell whether this step's contact set changes */
        ctn_step_stats before;
        ctn_world_get_stats(b, &before);
        CHECK(ctn_world_step(a) == CTN_OK, "%s step %d (A): %s", spec, k, ctn_world_last_error(a));
        CHECK(ctn_world_step(b) == CTN_OK, "%s step %d (B): %s", spec, k, ctn_world_last_error(b));
        ctn_step_stats after;
        ctn_world_get_stats(b, &after);
        if (k % every == 0 && after.contacts != before.contacts) ++*changed;
    }
    size_t na = 0, nb = 0;
    int ca = 0, cb = 0;
    unsigned char *fa = fingerprint(a, &na, &ca), *fb = fingerprint(b, &nb, &cb);
    CHECK(na == nb && memcmp(fa, fb, na) == 0, "%s: after %d undone steps the world differs from its twin (%d vs %d contacts)", spec,
          undone, ca, cb);
    CHECK(cb > 0, "%s: %d contacts at the end", spec, cb);
    printf("%s on %s: %d steps, %d undone (%d of them with a changing contact count), %d contacts at the end\n", spec,
           ctn_world_backend_name(a), steps, undone, *changed, cb);
    free(fa);
    free(fb);
    remove(ck1);
    remove(ck2);
    ctn_world_destroy(a);
    ctn_world_destroy(b);
    return undone;
}

int main(int argc, char **argv) {
    int opencl = argc > 1 && !strcmp(argv[1], "opencl");
    ctn_backend backend = opencl ? CTN_BACKEND_OPENCL : CTN_BACKEND_CPU;
    /* spheres falling into a pile onto the floor: contacts appear, vanish and move every step */
    int changed = 0, total = 0;
    int r = check_scene(backend, "pile:40", 90, 3, &changed);
    if (r < 0) return check_skip("step_undo_opencl", "no OpenCL platform or device");
    total += changed;
    /* a capsule chain coiling on the floor: contacts between links and with the floor next to ball joints */
    check_scene(backend, "capsule_chain:40", 60, 4, &changed);
    total += changed;
    CHECK(total > 0, "no undone step changed the contact set: the test would not see a missing contact undo");
    return check_report(opencl ? "step_undo_opencl" : "step_undo");
}
