/* Memory exhaustion keeps "error, world unchanged" (catena.h, "Memory"): a scenario of world creation, scene
 * building, contacts, steps, body and joint removal and re-addition, checkpoint save and load, scene file
 * save and load and a VTK frame is replayed once per allocation of each of its operations, with that one
 * allocation failing (the allocator hook, ctn_set_allocator). Every such run must return
 * CTN_ERR_OUT_OF_MEMORY and leave the world bit for bit as it was before the operation (handles, counts,
 * positions, orientations, velocities, impulses), write no file, and create no world, or succeed through a
 * documented fallback with the state of the run that never failed (the OpenCL backend's binary cache and
 * its best-effort step timings); the same operation
 * retried without the failure must then give the state of the run that never failed, and so must the step
 * after it (a failure that left a lasting change, such as another solver for the rest of the run, shows
 * there). No block may be left behind. `test_alloc_failures` runs the CPU backend,
 * `test_alloc_failures opencl` (CTest: test_alloc_failures_opencl) the OpenCL backend's steps, skipped
 * (exit 77) without an OpenCL device. */ 
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "check.h"
#include "opencl_lsan.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Sanitizer builds run the OpenCL half on the first variant's creation and first step only: under ASan each
 * PoCL world takes seconds, and the OpenCL half took 526 s there in full, 198 s on the first two variants'
 * creation and first step, 54-64 s on the first's (25-35 s in full in a plain build). */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* ---- the failing allocator ---------------------------------------------------------------------- */

static long alloc_calls;   /* malloc and realloc calls since the last arm */
static long alloc_fail_at; /* the call that fails (-1: none) */
static int alloc_failed;   /* it did */

static void *fail_malloc(size_t size, void *user) {
    (void)user;
    if (alloc_calls++ == alloc_fail_at) {
        alloc_failed = 1;
        return NULL;
    }
    return malloc(size);
}
static void *fail_realloc(void *p, size_t size, void *user) {
    (void)user;
    if (alloc_calls++ == alloc_fail_at) {
        alloc_failed = 1;
        return NULL; /* p is left as it was, as realloc does */
    }
    return realloc(p, size);
}
static void fail_free(void *p, void *user) {
    (void)user;
    free(p);
}
static void arm(long at) {
    alloc_calls = 0;
    alloc_fail_at = at;
    alloc_failed = 0;
}

/* Messages of the library: kept for the failure reports. */
static char last_log[1024];
static void on_log(ctn_log_level level, const char *msg, void *user) {
    (void)level, (void)user;
    snprintf(last_log, sizeof last_log, "%s", msg);
}

/* ---- the state of a world, as bytes -------------------------------------------------------------- */

typedef struct state {
    unsigned char *bytes;
    size_t size, cap;
} state;

static void put(state *s, const void *p, size_t n) {
    if (s->size + n > s->cap) {
        s->cap = 2 * (s->size + n) + 256;
        s->bytes = realloc(s->bytes, s->cap);
        if (!s->bytes) abort();
    }
    memcpy(s->bytes + s->size, p, n);
    s->size += n;
}

/* Handles, counts, body states and impulses: what "the world as it was" means (no timings). */
static void capture(ctn_world *w, state *s) {
    s->size = 0;
    int present = w != NULL;
    put(s, &present, sizeof present);
    if (!w) return;
    int nb = 0, nj = 0, live[3] = {ctn_world_body_count(w), ctn_world_joint_count(w), 0};
    ctn_world_id_counts(w, &nb, &nj);
    put(s, &nb, sizeof nb);
    put(s, &nj, sizeof nj);
    put(s, live, sizeof live);
    for (int i = 0; i < nb; ++i) {
        ctn_body_id h = CTN_NULL_BODY;
        if (ctn_world_body_at(w, i, &h) != CTN_OK) continue;
        ctn_body_state b;
        memset(&b, 0, sizeof b);
        ctn_body_get_state(w, h, &b);
        int64_t key = ctn_body_id_to_int(h); /* world-free: the compared worlds have different tags */
        put(s, &key, sizeof key);
        put(s, &b, sizeof b);
    }
    for (int j = 0; j < nj; ++j) {
        ctn_joint_id h = CTN_NULL_JOINT;
        if (ctn_world_joint_at(w, j, &h) != CTN_OK) continue;
        double imp[6] = {0};
        int rows = 0;
        ctn_joint_get_impulse(w, h, imp, &rows);
        int64_t key = ctn_joint_id_to_int(h);
        put(s, &key, sizeof key);
        put(s, imp, sizeof imp);
        put(s, &rows, sizeof rows);
    }
}

static int same(const state *a, const state *b) { return a->size == b->size && memcmp(a->bytes, b->bytes, a->size) == 0; }

/* ---- the scenario -------------------------------------------------------------------------------- */

/* The scenario's variants: the solvers and the step's allocation paths they reach. */
typedef struct variant {
    const char *name;
    ctn_solver solver;
    int substeps;
    int contacts; /* a pile and a resting ball: contacts, collision and the contact undo */
    int velocity; /* the velocity step (desc.integrator), one iteration */
} variant;

static const variant variants[] = {
    {"auto solver with contacts", CTN_SOLVER_AUTO, 4, 1, 0},
    {"auto solver and substeps, a chain (the exact solver and its projection)", CTN_SOLVER_AUTO, CTN_SUBSTEPS_AUTO, 0, 0},
    {"direct solver with contacts (the hybrid)", CTN_SOLVER_DIRECT, 4, 1, 0},
    {"conjugate gradients", CTN_SOLVER_CG, 4, 0, 0},
    /* one spare for the start state, the pose spare (host/core/divergence.c): the velocity and impulse spares freed
     * and held again by the rebuilds after the removal and the re-addition, and by the loaded and rebuilt worlds */
    {"direct 1x1 velocity step, a chain (the step spare)", CTN_SOLVER_DIRECT, 1, 0, 1},
};

typedef struct ctx {
    ctn_backend backend;
    const variant *v;
    ctn_world *w;      /* the world of the scenario */
    ctn_world *loaded; /* from the checkpoint */
    ctn_world *rebuilt;/* from the scene file */
    char dir[256], ckpt[300], scene[300], vtp[300];
} ctx;

static ctn_world_desc scenario_desc(const ctx *c) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = c->backend;
    d.threads = 1;
    d.solver = c->v->solver;
    d.substeps = c->v->substeps;
    if (c->v->velocity) d.integrator = CTN_INTEGRATOR_VELOCITY, d.iterations = 1;
    d.log = on_log;
    return d;
}

static int exists(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0;
}

static ctn_status op_create(ctx *c) {
    ctn_world_desc d = scenario_desc(c);
    char err[512];
    return ctn_world_create(&d, &c->w, err, sizeof err);
}
static ctn_status op_chain(ctx *c) { return ctn_scene_from_spec(c->w, "chain:6"); }
static ctn_status op_pile(ctx *c) { return c->v->contacts ? ctn_scene_from_spec(c->w, "pile:3") : CTN_OK; }
/* a sphere resting on a plane: contacts from the first step */
static ctn_status op_ball(ctx *c) {
    if (!c->v->contacts) return CTN_OK;
    double up[3] = {0.0, 1.0, 0.0};
    ctn_status st = ctn_world_add_plane(c->w, up, -2.0, 0.5, 0.0, NULL);
    if (st != CTN_OK) return st;
    ctn_body_desc b = ctn_body_desc_default();
    b.position[0] = 3.0, b.position[1] = -1.95;
    ctn_body_id id;
    st = ctn_body_add(c->w, &b, &id);
    if (st != CTN_OK) return st;
    ctn_shape_desc s = ctn_shape_desc_default(CTN_SHAPE_SPHERE);
    s.radius = 0.06;
    return ctn_body_set_shape(c->w, id, &s);
}
static ctn_status op_step(ctx *c) { return ctn_world_step(c->w); }
/* the chain's last link: its joint, then the body */
static ctn_status op_remove_joint(ctx *c) {
    ctn_joint_id j;
    ctn_status st = ctn_world_joint_at(c->w, 5, &j);
    return st == CTN_OK ? ctn_joint_remove(c->w, j) : st;
}
static ctn_status op_remove_body(ctx *c) {
    ctn_body_id b;
    ctn_status st = ctn_world_body_at(c->w, 5, &b);
    return st == CTN_OK ? ctn_body_remove(c->w, b) : st;
}
static ctn_status op_add_body(ctx *c) {
    ctn_body_desc b = ctn_body_desc_default();
    b.mass = 0.1;
    b.position[0] = 0.55;
    double he[3] = {0.05, 0.005, 0.005};
    ctn_inertia_box(b.mass, he, b.inertia);
    return ctn_body_add(c->w, &b, NULL);
}
static ctn_status op_add_joint(ctx *c) {
    ctn_body_id a, b;
    ctn_world_body_at(c->w, 4, &b);
    ctn_world_body_at(c->w, 5, &a);
    ctn_joint_desc d = ctn_joint_desc_default(CTN_JOINT_BALL);
    d.body_a = a, d.body_b = b;
    double pivot[3] = {0.5, 0.0, 0.0};
    ctn_status st = ctn_joint_desc_set_pivot(c->w, &d, pivot, NULL);
    return st == CTN_OK ? ctn_joint_add(c->w, &d, NULL) : st;
}
/* the chain's links pulled apart by a target, then assembled back (two phases, temporary joints) */
static ctn_status op_assemble(ctx *c) {
    ctn_body_id b;
    ctn_world_body_at(c->w, 5, &b);
    ctn_assemble_target t;
    memset(&t, 0, sizeof t);
    t.body = b;
    t.target[0] = 0.5, t.target[1] = -0.2, t.weight = 1.0; /* the last link's centre moved down */
    ctn_assemble_desc d = ctn_assemble_desc_default();
    d.targets = &t, d.target_count = 1;
    ctn_assemble_report rep;
    return ctn_world_assemble(c->w, &d, &rep);
}
static ctn_status op_save(ctx *c) { return ctn_world_save(c->w, c->ckpt, 7, "alloc failures"); }
static ctn_status op_load(ctx *c) {
    char err[512];
    return ctn_world_load(c->ckpt, NULL, &c->loaded, NULL, err, sizeof err);
}
static ctn_status op_step_loaded(ctx *c) { return ctn_world_step(c->loaded); }
static ctn_status op_scene_save(ctx *c) { return ctn_scene_save_json(c->w, c->scene); }
static ctn_status op_scene_new(ctx *c) {
    ctn_world_desc d = scenario_desc(c);
    char err[512];
    return ctn_world_create(&d, &c->rebuilt, err, sizeof err);
}
static ctn_status op_scene_load(ctx *c) {
    char err[512];
    return ctn_scene_load_json(c->rebuilt, c->scene, err, sizeof err);
}
static ctn_status op_step_rebuilt(ctx *c) { return ctn_world_step(c->rebuilt); }
static ctn_status op_vtp(ctx *c) { return ctn_world_write_vtp(c->w, c->vtp, 0.5); }

typedef struct op {
    const char *name;
    ctn_status (*run)(ctx *);
    int world;        /* which world it changes: 0 the scenario's, 1 the loaded, 2 the rebuilt */
    const char *file; /* the file it writes (NULL: none), by field */
} op;

#define FILE_CKPT "ckpt"
#define FILE_SCENE "scene"
#define FILE_VTP "vtp"

static const op ops[] = {
    {"ctn_world_create", op_create, 0, NULL},
    {"ctn_scene_from_spec chain:6", op_chain, 0, NULL},
    {"ctn_scene_from_spec pile:3", op_pile, 0, NULL},
    {"plane, body and shape", op_ball, 0, NULL},
    {"first step", op_step, 0, NULL},
    {"second step", op_step, 0, NULL},
    {"ctn_joint_remove", op_remove_joint, 0, NULL},
    {"ctn_body_remove", op_remove_body, 0, NULL},
    {"step after the removal", op_step, 0, NULL},
    {"ctn_body_add", op_add_body, 0, NULL},
    {"ctn_joint_add", op_add_joint, 0, NULL},
    {"step after the re-addition", op_step, 0, NULL},
    {"ctn_world_assemble", op_assemble, 0, NULL},
    {"ctn_world_save", op_save, 0, FILE_CKPT},
    {"ctn_world_load", op_load, 1, NULL},
    {"step of the loaded world", op_step_loaded, 1, NULL},
    {"ctn_scene_save_json", op_scene_save, 0, FILE_SCENE},
    {"ctn_world_create for the scene", op_scene_new, 2, NULL},
    {"ctn_scene_load_json", op_scene_load, 2, NULL},
    {"step of the rebuilt world", op_step_rebuilt, 2, NULL},
    {"ctn_world_write_vtp", op_vtp, 0, FILE_VTP},
};
#define OP_COUNT ((int)(sizeof ops / sizeof ops[0]))

static ctn_world *op_world(const ctx *c, int k) { return ops[k].world == 1 ? c->loaded : ops[k].world == 2 ? c->rebuilt : c->w; }
static const char *op_file(const ctx *c, int k) {
    if (!ops[k].file) return NULL;
    return !strcmp(ops[k].file, FILE_CKPT) ? c->ckpt : !strcmp(ops[k].file, FILE_SCENE) ? c->scene : c->vtp;
}
/* The step that follows operation k on its world (a failure that changed something lasting shows there);
 * none after a world creation. */
static int has_followup(int k) { return ops[k].run != op_create && ops[k].run != op_scene_new; }

static void teardown(ctx *c) {
    ctn_world_destroy(c->w);
    ctn_world_destroy(c->loaded);
    ctn_world_destroy(c->rebuilt);
    c->w = c->loaded = c->rebuilt = NULL;
}

/* Runs operations [0, k) without failures; 0 when one of them failed (a broken scenario). */
static int replay(ctx *c, int k) {
    teardown(c);
    unlink(c->ckpt), unlink(c->scene), unlink(c->vtp);
    for (int i = 0; i < k; ++i) {
        arm(-1);
        ctn_status st = ops[i].run(c);
        if (st != CTN_OK) {
            CHECK(0, "replaying %s: %s (%s)", ops[i].name, ctn_status_name(st), op_world(c, i) ? ctn_world_last_error(op_world(c, i)) : "");
            return 0;
        }
    }
    return 1;
}

/* Every allocation of operation k fails in turn. Returns the allocations it makes, -1 when the scenario broke. */
static long fail_each(ctx *c, int k, int *broken) {
    state ref_after = {0}, ref_next = {0}, before = {0}, now = {0};
    if (!replay(c, k)) return -1;
    arm(-1);
    ctn_status st = ops[k].run(c);
    long n = alloc_calls;
    CHECK(st == CTN_OK, "%s without failures: %s", ops[k].name, ctn_status_name(st));
    capture(op_world(c, k), &ref_after);
    if (has_followup(k)) CHECK(ctn_world_step(op_world(c, k)) == CTN_OK, "%s: the step after", ops[k].name);
    capture(op_world(c, k), &ref_next);
    for (long i = 0; i < n; ++i) {
        if (!replay(c, k)) break;
        capture(op_world(c, k), &before);
        const char *file = op_file(c, k);
        last_log[0] = '\0';
        arm(i);
        st = ops[k].run(c);
        int failed = alloc_failed;
        arm(-1);
        ctn_world *w = op_world(c, k);
        char msg[512];
        snprintf(msg, sizeof msg, "%s", w ? ctn_world_last_error(w) : "no world");
        capture(w, &now);
        /* out of memory and nothing changed; or a documented fallback that changes nothing the caller sees
         * (the OpenCL binary cache, the OpenCL step timings): success with the state of the run that never
         * failed, checked again by the step after it */
        int ok = failed && st != CTN_OK ? st == CTN_ERR_OUT_OF_MEMORY && same(&before, &now) && !(file && exists(file))
                                        : st == CTN_OK && same(&ref_after, &now);
        CHECK(ok, "%s, allocation %ld of %ld failing: %s (%s; world %s%s; log: %s)", ops[k].name, i, n, ctn_status_name(st),
              msg, same(&before, &now) ? "unchanged" : "changed",
              file && exists(file) ? ", the file was written" : "", last_log);
        if (!ok) ++*broken;
        /* the operation again, without failures: the state of the run that never failed, and the step after */
        if (st != CTN_OK) {
            st = ops[k].run(c);
            CHECK(st == CTN_OK, "%s retried after allocation %ld failed: %s", ops[k].name, i, ctn_status_name(st));
        }
        w = op_world(c, k);
        capture(w, &now);
        CHECK(same(&ref_after, &now), "%s retried after allocation %ld failed: a state other than the run without failures",
              ops[k].name, i);
        if (has_followup(k)) {
            CHECK(ctn_world_step(w) == CTN_OK, "%s: the step after the retry", ops[k].name);
            capture(w, &now);
            CHECK(same(&ref_next, &now), "%s, allocation %ld failed then retried: the next step differs from the run without failures",
                  ops[k].name, i);
        }
    }
    free(ref_after.bytes), free(ref_next.bytes), free(before.bytes), free(now.bytes);
    return n;
}

int main(int argc, char **argv) {
    int opencl = argc > 1 && !strcmp(argv[1], "opencl");
    const char *name = opencl ? "alloc_failures_opencl" : "alloc_failures";
    ctx c;
    memset(&c, 0, sizeof c);
    c.backend = opencl ? CTN_BACKEND_OPENCL : CTN_BACKEND_CPU;
    if (opencl) {
        ctn_world_desc d = ctn_world_desc_default();
        d.backend = CTN_BACKEND_OPENCL;
        ctn_world *probe = NULL;
        char err[512];
        if (ctn_world_create(&d, &probe, err, sizeof err) != CTN_OK) return check_skip(name, err);
        ctn_world_destroy(probe);
    }
    snprintf(c.dir, sizeof c.dir, "/tmp/catena-alloc-XXXXXX");
    if (!mkdtemp(c.dir)) return check_skip(name, "no temporary folder");
    snprintf(c.ckpt, sizeof c.ckpt, "%s/world.ckpt", c.dir);
    snprintf(c.scene, sizeof c.scene, "%s/world.json", c.dir);
    snprintf(c.vtp, sizeof c.vtp, "%s/world.vtp", c.dir);
    CHECK(ctn_set_allocator(fail_malloc, fail_realloc, fail_free, NULL) == CTN_OK, "failing allocator installed");
    long total = 0;
    int broken = 0;
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; ++v) {
        /* OpenCL: the backend's own allocations (its creation and steps) in the first three variants (the
         * hybrid's first step only); a world takes ~0.1 s to create from the binary cache, and every failing
         * run replays the scenario */
        if (opencl && v >= (SANITIZED ? 1 : 3)) break;
        c.v = &variants[v];
        printf("%s:\n", c.v->name);
        for (int k = 0; k < OP_COUNT; ++k) {
            if (opencl && ops[k].run != op_create && ops[k].run != op_step) continue;
            if (opencl && (v == 2 || SANITIZED) && k > 4) break; /* the hybrid's device layout: its first step */
            int before = broken;
            long n = fail_each(&c, k, &broken);
            if (n < 0) break;
            printf("  %-32s %4ld allocations, %d broke the contract\n", ops[k].name, n, broken - before);
            total += n;
        }
    }
    teardown(&c);
    unlink(c.ckpt), unlink(c.scene), unlink(c.vtp);
    rmdir(c.dir);
    printf("%s: %ld allocations failed one at a time, %d broke the contract\n", name, total, broken);
    CHECK(total > (opencl ? (SANITIZED ? 30 : 100) : 500), "the scenario allocates (%ld)", total);
    CHECK(ctn_allocated_blocks() == 0, "every block freed (%ld held)", ctn_allocated_blocks());
    CHECK(ctn_set_allocator(NULL, NULL, NULL, NULL) == CTN_OK, "libc's allocator back");
    return check_report(name);
}
