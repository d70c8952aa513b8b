/* The body and joint arrays grow in place (host/core/body.c body_reserve, host/core/joint.c joint_reserve,
 * CTN__REGROW in host/core/alloc.h): each array through one realloc, never a fresh block, a copy and a free.
 *  - a growth frees no block (the old code freed the seven old body arrays and the seven old joint arrays);
 *  - every allocation of a growth failed in turn: the add fails with CTN_ERR_OUT_OF_MEMORY and the world is
 *    unchanged (counts, capacity, the bytes of every pose, velocity, inertia, props and joint record), the
 *    same add then succeeds;
 *  - the world grown through all those failures steps to the same bits as a twin grown without any. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "check.h"
#include "fixtures.h"
#include "core/world.h"

#include <stdlib.h>
#include <string.h>

static long calls, frees; /* allocation calls (malloc, realloc) and frees since the last arm */
static long fail_at;      /* the call that fails (1-based), 0: none */

static void *t_malloc(size_t size, void *user) {
    (void)user;
    if (++calls == fail_at) return NULL;
    return malloc(size);
}
static void *t_realloc(void *p, size_t size, void *user) {
    (void)user;
    if (++calls == fail_at) return NULL;
    return realloc(p, size);
}
static void t_free(void *p, void *user) {
    (void)user;
    ++frees;
    free(p);
}
static void arm(long at) { calls = 0, frees = 0, fail_at = at; }

static ctn_world *make(void) {
    ctn_world_desc d = fixture_cpu_desc(1);
    return fixture_world_from(&d);
}

/* Adds link i of a chain along +x hung from the world (body i, joint i to body i - 1 or the world). */
static ctn_status add_body(ctn_world *w, int i, ctn_body_id *id) {
    ctn_body_desc b = ctn_body_desc_default();
    b.position[0] = 0.1 * (i + 1);
    return ctn_body_add(w, &b, id);
}
static ctn_status add_joint(ctn_world *w, int i, ctn_body_id a, ctn_body_id prev) {
    ctn_joint_desc j = ctn_joint_desc_default(CTN_JOINT_BALL);
    j.body_a = a;
    j.body_b = i > 0 ? prev : CTN_WORLD;
    double pivot[3] = {0.1 * i + 0.05, 0.0, 0.0};
    ctn_status st = ctn_joint_desc_set_pivot(w, &j, pivot, NULL);
    return st == CTN_OK ? ctn_joint_add(w, &j, NULL) : st;
}

typedef struct state {
    int bodies, joints, body_cap, joint_cap;
    void *pose, *vel, *inertia, *props, *core;
} state;

static state take(const ctn_world *w) {
    state s = {w->body_count, w->joint_count, w->body_capacity, w->joint_capacity, NULL, NULL, NULL, NULL, NULL};
    size_t nb = (size_t)w->body_count, nj = (size_t)w->joint_count;
    s.pose = malloc(nb * sizeof *w->pose + 1), s.vel = malloc(nb * sizeof *w->vel + 1);
    s.inertia = malloc(nb * sizeof *w->inertia + 1), s.props = malloc(nb * sizeof *w->props + 1);
    s.core = malloc(nj * sizeof *w->joint_core + 1);
    if (nb) {
        memcpy(s.pose, w->pose, nb * sizeof *w->pose), memcpy(s.vel, w->vel, nb * sizeof *w->vel);
        memcpy(s.inertia, w->inertia, nb * sizeof *w->inertia), memcpy(s.props, w->props, nb * sizeof *w->props);
    }
    if (nj) memcpy(s.core, w->joint_core, nj * sizeof *w->joint_core);
    return s;
}
static int same(const ctn_world *w, const state *s) {
    size_t nb = (size_t)s->bodies, nj = (size_t)s->joints;
    return w->body_count == s->bodies && w->joint_count == s->joints && w->body_capacity == s->body_cap &&
           w->joint_capacity == s->joint_cap && (!nb || (!memcmp(s->pose, w->pose, nb * sizeof *w->pose) &&
           !memcmp(s->vel, w->vel, nb * sizeof *w->vel) && !memcmp(s->inertia, w->inertia, nb * sizeof *w->inertia) &&
           !memcmp(s->props, w->props, nb * sizeof *w->props))) && (!nj || !memcmp(s->core, w->joint_core, nj * sizeof *w->joint_core));
}
static void drop(state *s) { free(s->pose), free(s->vel), free(s->inertia), free(s->props), free(s->core); }

enum { LINKS = 300, STEPS = 5 };

int main(void) {
    const char *name = "test_grow_in_place";
    CHECK(ctn_set_allocator(t_malloc, t_realloc, t_free, NULL) == CTN_OK, "counting allocator installed");
    ctn_world *w = make(), *twin = make();
    if (!w || !twin) return check_report(name);
    ctn_body_id prev = {0}, tprev = {0};
    int growths = 0, failed = 0, unchanged = 0, growth_frees = 0;
    for (int i = 0; i < LINKS; ++i) {
        ctn_body_id id, tid;
        CHECK(add_body(twin, i, &tid) == CTN_OK && add_joint(twin, i, tid, tprev) == CTN_OK, "twin link %d", i);
        tprev = tid;
        /* the body: every allocation of its add failed in turn, then none */
        int grows = w->body_count == w->body_capacity;
        ctn_status st = CTN_ERR_OUT_OF_MEMORY;
        for (long k = 1; st == CTN_ERR_OUT_OF_MEMORY && grows; ++k) {
            state s = take(w);
            arm(k);
            st = add_body(w, i, &id);
            if (st != CTN_OK) {
                ++failed;
                unchanged += same(w, &s);
                CHECK(st == CTN_ERR_OUT_OF_MEMORY && same(w, &s), "body %d, allocation %ld failed: status %d, world unchanged", i, k, (int)st);
            }
            drop(&s);
        }
        if (grows) {
            ++growths;
            growth_frees += (int)frees; /* those of the add that succeeded */
        } else {
            arm(0);
            st = add_body(w, i, &id);
        }
        CHECK(st == CTN_OK, "body %d added", i);
        /* the joint, the same way */
        grows = w->joint_count == w->joint_capacity;
        st = CTN_ERR_OUT_OF_MEMORY;
        for (long k = 1; st == CTN_ERR_OUT_OF_MEMORY && grows; ++k) {
            state s = take(w);
            arm(k);
            st = add_joint(w, i, id, prev);
            if (st != CTN_OK) {
                ++failed;
                unchanged += same(w, &s);
                CHECK(st == CTN_ERR_OUT_OF_MEMORY && same(w, &s), "joint %d, allocation %ld failed: status %d, world unchanged", i, k, (int)st);
            }
            drop(&s);
        }
        if (!grows) {
            arm(0);
            st = add_joint(w, i, id, prev);
        } else {
            ++growths;
            growth_frees += (int)frees;
        }
        CHECK(st == CTN_OK, "joint %d added", i);
        prev = id;
    }
    arm(0);
    printf("%s: %d growths, %d failed allocations left the world unchanged (of %d), %d blocks freed by the growths\n", name,
           growths, unchanged, failed, growth_frees);
    CHECK(growths >= 6, "the arrays grew (%d times: 64, 128, 256 bodies and joints)", growths);
    CHECK(failed >= 5 * growths, "each growth failed at each of its allocations (%d, 5 arrays or more a growth)", failed);
    CHECK(growth_frees == 0, "a growth frees no block (%d freed)", growth_frees);
    for (int s = 0; s < STEPS; ++s) {
        CHECK(ctn_world_step(w) == CTN_OK, "step %d: %s", s, ctn_world_last_error(w));
        CHECK(ctn_world_step(twin) == CTN_OK, "twin step %d", s);
    }
    CHECK(w->body_count == twin->body_count && !memcmp(w->pose, twin->pose, (size_t)w->body_count * sizeof *w->pose) &&
              !memcmp(w->vel, twin->vel, (size_t)w->body_count * sizeof *w->vel),
          "the world grown through failures steps to the twin's bits");
    ctn_world_destroy(w);
    ctn_world_destroy(twin);
    CHECK(ctn_allocated_blocks() == 0, "every block freed (%ld held)", ctn_allocated_blocks());
    CHECK(ctn_set_allocator(NULL, NULL, NULL, NULL) == CTN_OK, "libc's allocator back");
    return check_report(name);
}
