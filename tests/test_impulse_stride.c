/* The impulses at the layout's row stride (host/core/topology.c; CTN_LAM in kernels/ctn_types.h): the most rows
 * of any joint of the world, 3 for a chain of ball joints. A world steps beside a twin whose layout keeps them at
 * CTN_MAX_ROWS = 6 floats a joint whatever its joints (ctn__topology_stride_floor), and after every step both hold
 * the same poses, velocities and impulses to the bit while the world's stride changes under it:
 *   1. a chain of ball joints (stride 3) steps; then gains a bob on a hinge at its end (5 rows: the impulses carried
 *      over from 3 to 5 floats a joint), then a block fixed to the bob (6), then loses the fixed joint (back to 5)
 *      and the hinge (back to 3), stepping between each change. The chain's impulses read through
 *      ctn_joint_get_impulse right after the hinge is added (before the rebuild) are those of the step before.
 *      With Gauss-Seidel, whose result depends on where the impulses start (the warm start): a carry-over that lost
 *      them at a change of stride parts the world from its twin at the first step after the hinge is added (checked
 *      by hand); with the exact solver, whose every joint here is a rigid bilateral row (its warm start idle), the
 *      stride-dependent reads of the solve and of the geometric-stiffness inertia;
 *   2. a checkpoint saved at stride 3 (the file keeps 6 floats a joint) loads into a world that goes on equal to
 *      the one saved.
 * `test_impulse_stride opencl`: the same on the OpenCL backend (its buffers at the same stride, every kernel that
 * reads them given it), exit 77 without a device. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "check.h"
#include "core/world.h"
#include "opencl_lsan.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define LINKS 12

/* The settings of every world here (the saved one and the one it loads into): one thread, Gauss-Seidel at 6
 * iterations, the exact solver at 1. */
static ctn_world_desc desc_of(ctn_backend backend, ctn_solver solver) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = backend;
    d.solver = solver;
    d.iterations = solver == CTN_SOLVER_GS ? 6 : 1;
    d.threads = 1;
    return d;
}

static ctn_world *make(ctn_backend backend, ctn_solver solver, int floor) {
    ctn_world_desc d = desc_of(backend, solver);
    ctn_world *w = NULL;
    char err[256];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        if (backend != CTN_BACKEND_OPENCL) CHECK(0, "world: %s", err);
        return NULL;
    }
    char spec[32];
    snprintf(spec, sizeof spec, "chain:%d", LINKS);
    CHECK(ctn_scene_from_spec(w, spec) == CTN_OK, "%s: %s", spec, ctn_world_last_error(w));
    if (floor) ctn__topology_stride_floor(w, floor);
    return w;
}

/* Whether every body's state and every joint's impulses (through the API) are the same to the bit. */
static int same(ctn_world *a, ctn_world *b, const char *what, int step) {
    int na = 0, ja = 0, nb = 0, jb = 0;
    ctn_world_id_counts(a, &na, &ja);
    ctn_world_id_counts(b, &nb, &jb);
    CHECK(na == nb && ja == jb, "%s, step %d: %d/%d bodies, %d/%d joints", what, step, na, nb, ja, jb);
    if (na != nb || ja != jb) return 0;
    int ok = 1;
    for (int i = 0; i < na && ok; ++i) {
        ctn_body_id ia, ib;
        ctn_body_state sa, sb;
        memset(&sa, 0, sizeof sa), memset(&sb, 0, sizeof sb);
        if (ctn_world_body_at(a, i, &ia) != CTN_OK || ctn_world_body_at(b, i, &ib) != CTN_OK) continue;
        ctn_body_get_state(a, ia, &sa), ctn_body_get_state(b, ib, &sb);
        ok = memcmp(&sa, &sb, sizeof sa) == 0;
        CHECK(ok, "%s, step %d: body %d differs", what, step, i);
    }
    for (int j = 0; j < ja && ok; ++j) {
        ctn_joint_id ia, ib;
        double la[6] = {0}, lb[6] = {0};
        int32_t ra = 0, rb = 0;
        if (ctn_world_joint_at(a, j, &ia) != CTN_OK || ctn_world_joint_at(b, j, &ib) != CTN_OK) continue;
        ctn_joint_get_impulse(a, ia, la, &ra), ctn_joint_get_impulse(b, ib, lb, &rb);
        ok = ra == rb && memcmp(la, lb, sizeof la) == 0;
        CHECK(ok, "%s, step %d: joint %d's impulses differ (%g %g %g / %g %g %g)", what, step, j, la[0], la[1], la[2], lb[0], lb[1], lb[2]);
    }
    return ok;
}

/* Steps both `n` times, comparing after each; the world's stride must be `stride`, the twin's 6. */
static int step_both(ctn_world *a, ctn_world *b, int n, int stride, const char *what, int *step) {
    for (int k = 0; k < n; ++k, ++*step) {
        ctn_status sa = ctn_world_step(a), sb = ctn_world_step(b);
        CHECK(sa == CTN_OK && sb == CTN_OK, "%s, step %d: %s / %s", what, *step, ctn_world_last_error(a), ctn_world_last_error(b));
        if (sa != CTN_OK || sb != CTN_OK) return 0;
        CHECK(a->topo.stride == stride && b->topo.stride == CTN_MAX_ROWS, "%s, step %d: row strides %d and %d (expected %d and %d)", what,
              *step, a->topo.stride, b->topo.stride, stride, CTN_MAX_ROWS);
        if (!same(a, b, what, *step)) return 0;
    }
    return 1;
}

static ctn_body_id add_body(ctn_world *w, const double at[3]) {
    ctn_body_desc bd = ctn_body_desc_default();
    bd.mass = 0.5;
    bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 0.002;
    memcpy(bd.position, at, sizeof bd.position);
    ctn_body_id id;
    memset(&id, 0, sizeof id);
    CHECK(ctn_body_add(w, &bd, &id) == CTN_OK, "body: %s", ctn_world_last_error(w));
    return id;
}

static ctn_joint_id add_joint(ctn_world *w, ctn_joint_type type, ctn_body_id a, ctn_body_id b, const double pivot[3]) {
    ctn_joint_desc jd = ctn_joint_desc_default(type);
    const double axis[3] = {0.0, 0.0, 1.0};
    jd.body_a = a, jd.body_b = b;
    CHECK(ctn_joint_desc_set_pivot(w, &jd, pivot, axis) == CTN_OK, "pivot: %s", ctn_world_last_error(w));
    ctn_joint_id id;
    memset(&id, 0, sizeof id);
    CHECK(ctn_joint_add(w, &jd, &id) == CTN_OK, "joint: %s", ctn_world_last_error(w));
    return id;
}

/* The changes of case 1 applied to one world (the same calls on both, so the same handles). */
typedef struct added {
    ctn_body_id bob, block;
    ctn_joint_id hinge, fixed;
} added;

static void grow_hinge(ctn_world *w, added *x) {
    int nb = 0, nj = 0;
    ctn_world_id_counts(w, &nb, &nj);
    ctn_body_id last;
    ctn_body_state s;
    ctn_world_body_at(w, nb - 1, &last);
    ctn_body_get_state(w, last, &s);
    double at[3] = {s.position[0] + 0.1, s.position[1], s.position[2]}, pivot[3] = {s.position[0] + 0.05, s.position[1], s.position[2]};
    x->bob = add_body(w, at);
    x->hinge = add_joint(w, CTN_JOINT_HINGE, x->bob, last, pivot);
}

static void grow_fixed(ctn_world *w, added *x) {
    ctn_body_state s;
    ctn_body_get_state(w, x->bob, &s);
    double at[3] = {s.position[0] + 0.1, s.position[1], s.position[2]}, pivot[3] = {s.position[0] + 0.05, s.position[1], s.position[2]};
    x->block = add_body(w, at);
    x->fixed = add_joint(w, CTN_JOINT_FIXED, x->block, x->bob, pivot);
}

static void check_changes(ctn_backend backend, ctn_solver solver, const char *name) {
    ctn_world *a = make(backend, solver, 0), *b = make(backend, solver, CTN_MAX_ROWS);
    if (!a || !b) {
        ctn_world_destroy(a), ctn_world_destroy(b);
        return;
    }
    added xa, xb;
    int step = 0;
    char what[96];
    snprintf(what, sizeof what, "%s, ball chain", name);
    int ok = step_both(a, b, 8, 3, what, &step);
    /* the chain's impulses before the rebuild that the hinge asks for: those of the last step, under the old slots */
    double before[LINKS][6], after[LINKS][6];
    for (int j = 0; j < LINKS && ok; ++j) {
        ctn_joint_id id;
        ctn_world_joint_at(a, j, &id);
        ctn_joint_get_impulse(a, id, before[j], NULL);
    }
    grow_hinge(a, &xa), grow_hinge(b, &xb);
    for (int j = 0; j < LINKS && ok; ++j) {
        ctn_joint_id id;
        ctn_world_joint_at(a, j, &id);
        ctn_joint_get_impulse(a, id, after[j], NULL);
        CHECK(memcmp(before[j], after[j], sizeof before[j]) == 0, "%s: joint %d's impulses changed by adding a joint", name, j);
    }
    CHECK(ok && (before[LINKS - 1][0] != 0.0 || before[LINKS - 1][1] != 0.0), "%s: the chain carries no impulse", name);
    snprintf(what, sizeof what, "%s, a hinge added", name);
    ok = ok && step_both(a, b, 6, 5, what, &step);
    grow_fixed(a, &xa), grow_fixed(b, &xb);
    snprintf(what, sizeof what, "%s, a fixed joint added", name);
    ok = ok && step_both(a, b, 6, 6, what, &step);
    CHECK(ctn_joint_remove(a, xa.fixed) == CTN_OK && ctn_joint_remove(b, xb.fixed) == CTN_OK, "%s: removing the fixed joint", name);
    snprintf(what, sizeof what, "%s, the fixed joint removed", name);
    ok = ok && step_both(a, b, 6, 5, what, &step);
    CHECK(ctn_joint_remove(a, xa.hinge) == CTN_OK && ctn_joint_remove(b, xb.hinge) == CTN_OK, "%s: removing the hinge", name);
    snprintf(what, sizeof what, "%s, the hinge removed", name);
    ok = ok && step_both(a, b, 6, 3, what, &step);
    if (ok) printf("impulse_stride: %s: strides 3, 5, 6, 5, 3 over %d steps equal to the stride-6 twin\n", name, step);
    ctn_world_destroy(a), ctn_world_destroy(b);
}

/* Case 2: a checkpoint of a stride-3 world loads and goes on as the world saved. */
static void check_checkpoint(ctn_backend backend, ctn_solver solver, const char *name) {
    ctn_world *a = make(backend, solver, 0);
    if (!a) return;
    char path[64];
    snprintf(path, sizeof path, "impulse-stride-%ld.ckpt", (long)getpid());
    int ok = 1;
    for (int k = 0; k < 5 && ok; ++k) ok = ctn_world_step(a) == CTN_OK;
    CHECK(ok && a->topo.stride == 3, "%s: 5 steps at stride 3 (stride %d)", name, a->topo.stride);
    CHECK(ctn_world_save(a, path, 5, NULL) == CTN_OK, "%s: save: %s", name, ctn_world_last_error(a));
    ctn_world_desc d = desc_of(backend, solver);
    ctn_world *c = NULL;
    char err[256];
    CHECK(ctn_world_load(path, &d, &c, NULL, err, sizeof err) == CTN_OK, "%s: load: %s", name, err);
    unlink(path);
    if (c) {
        CHECK(same(a, c, name, 5), "%s: the loaded world differs from the saved one", name);
        int step = 5;
        for (int k = 0; k < 5 && ok; ++k, ++step) {
            ok = ctn_world_step(a) == CTN_OK && ctn_world_step(c) == CTN_OK;
            ok = ok && same(a, c, name, step);
        }
        CHECK(ok && c->topo.stride == 3, "%s: the loaded world's stride %d", name, c->topo.stride);
        if (ok) printf("impulse_stride: %s: checkpoint at stride 3 resumed bit for bit\n", name);
    }
    ctn_world_destroy(a), ctn_world_destroy(c);
}

int main(int argc, char **argv) {
    ctn_backend backend = argc > 1 && strcmp(argv[1], "opencl") == 0 ? CTN_BACKEND_OPENCL : CTN_BACKEND_CPU;
    if (backend == CTN_BACKEND_OPENCL) {
        ctn_world_desc d = ctn_world_desc_default();
        d.backend = CTN_BACKEND_OPENCL;
        ctn_world *w = NULL;
        char err[256];
        if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
            printf("impulse_stride: no OpenCL world (%s): skipped\n", err);
            return 77;
        }
        ctn_world_destroy(w);
    }
    check_changes(backend, CTN_SOLVER_GS, "gs");
    check_changes(backend, CTN_SOLVER_DIRECT, "direct");
    check_checkpoint(backend, CTN_SOLVER_GS, "gs checkpoint");
    check_checkpoint(backend, CTN_SOLVER_DIRECT, "direct checkpoint");
    return check_report("impulse_stride");
}
