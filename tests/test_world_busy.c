/* One thread at a time per world (catena.h, "Threads"): a call that finds its world inside a call on another
 * thread returns CTN_ERR_BUSY, names itself in that thread's ctn_world_last_error and changes nothing.
 *   1. Deterministic: from inside a step (the CG solver's note on a rope row reaches the log callback on the
 *      stepping thread), a second thread calls the mutating entry points on the same world: every one is
 *      CTN_ERR_BUSY, ctn_world_destroy leaves the world alone, and the step that was running ends bit for bit
 *      as the same step of a world nobody disturbed.
 *   2. Two threads step one world 300 times each: every call is CTN_OK or CTN_ERR_BUSY, the state stays
 *      finite, it equals a reference world stepped as many times as steps succeeded (a refused call did
 *      nothing), and the world is destroyed cleanly (the sanitizer build checks for races on the heap).
 *   3. Different worlds on different threads run in parallel, never busy. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "ids.h"
#include "check.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A 40-link chain on the exact solver; with `cg`, a 40-bead rope on conjugate gradients whose second joint is
 * a rope (a bounded row: the CG solver says once, through the log callback, inside the step, that it hands
 * such substeps to Gauss-Seidel). */
static ctn_world *make_world(ctn_log_fn log, int cg) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.solver = cg ? CTN_SOLVER_CG : CTN_SOLVER_DIRECT;
    d.threads = 1;
    d.log = log;
    ctn_world *w = NULL;
    char err[512];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        CHECK(0, "world: %s", err);
        return NULL;
    }
    CHECK(ctn_scene_from_spec(w, cg ? "rope:40" : "chain:40") == CTN_OK, "chain: %s", ctn_world_last_error(w));
    if (cg) CHECK(ctn_joint_set_rope(w, HJOINT(w, 1), 1) == CTN_OK, "rope: %s", ctn_world_last_error(w));
    return w;
}

/* Every body's state, as bytes; 0 when one is not finite. */
static int snapshot(ctn_world *w, ctn_body_state *out, int n) {
    int finite = 1;
    for (int i = 0; i < n; ++i) {
        ctn_body_id h;
        memset(&out[i], 0, sizeof out[i]);
        if (ctn_world_body_at(w, i, &h) != CTN_OK || ctn_body_get_state(w, h, &out[i]) != CTN_OK) continue;
        for (int k = 0; k < 3; ++k) finite = finite && isfinite(out[i].position[k]) && isfinite(out[i].velocity[k]);
    }
    return finite;
}

/* ---- 1. a second thread inside a step ---------------------------------------------------------- */

typedef struct intruder {
    ctn_world *w;
    ctn_status st[8];
    char msg[8][256];
} intruder;

static const char *const intruder_calls[] = {"ctn_world_step", "ctn_body_add", "ctn_body_set_state", "ctn_joint_remove",
                                             "ctn_world_save", "ctn_scene_from_spec", "ctn_body_get_state"};
#define INTRUDER_CALLS 7

static void *intrude(void *arg) {
    intruder *t = arg;
    ctn_body_desc bd = ctn_body_desc_default();
    ctn_body_state bs;
    memset(&bs, 0, sizeof bs);
    bs.orientation[0] = 1.0;
    for (int k = 0; k < INTRUDER_CALLS; ++k) {
        ctn_status s = CTN_OK;
        switch (k) {
        case 0: s = ctn_world_step(t->w); break;
        case 1: s = ctn_body_add(t->w, &bd, NULL); break;
        case 2: s = ctn_body_set_state(t->w, HBODY(t->w, 3), &bs); break;
        case 3: s = ctn_joint_remove(t->w, HJOINT(t->w, 5)); break;
        case 4: s = ctn_world_save(t->w, "busy-never-written.ckpt", 0, NULL); break;
        case 5: s = ctn_scene_from_spec(t->w, "chain:5"); break;
        case 6: s = ctn_body_get_state(t->w, HBODY(t->w, 3), &bs); break;
        }
        t->st[k] = s;
        snprintf(t->msg[k], sizeof t->msg[k], "%s", ctn_world_last_error(t->w));
    }
    ctn_world_destroy(t->w); /* refused: the world stays for the stepping thread (ASan: no use after free) */
    return NULL;
}

static ctn_world *traced_world;
static int intruded;
static intruder the_intruder;

/* The CG solver's note on the rope row: the stepping thread is inside ctn_world_step. */
static void on_trace(ctn_log_level level, const char *msg, void *user) {
    (void)level, (void)msg, (void)user;
    if (intruded) return;
    intruded = 1;
    the_intruder.w = traced_world;
    pthread_t th;
    if (pthread_create(&th, NULL, intrude, &the_intruder) != 0) {
        CHECK(0, "pthread_create");
        return;
    }
    pthread_join(th, NULL);
}

static void busy_inside_a_step(void) {
    traced_world = make_world(on_trace, 1);
    ctn_world *ref = make_world(NULL, 1);
    if (!traced_world || !ref) return;
    int n = ctn_world_body_count(ref);
    CHECK(ctn_world_step(traced_world) == CTN_OK, "the step the second thread ran into: %s", ctn_world_last_error(traced_world));
    CHECK(intruded, "the CG solver's note reached the log callback inside the step");
    for (int k = 0; k < INTRUDER_CALLS && intruded; ++k) {
        CHECK(the_intruder.st[k] == CTN_ERR_BUSY, "%s from a second thread inside a step: %s (%s)", intruder_calls[k],
              ctn_status_name(the_intruder.st[k]), the_intruder.msg[k]);
        CHECK(strstr(the_intruder.msg[k], intruder_calls[k]) != NULL && strstr(the_intruder.msg[k], "another thread") != NULL,
              "the refusal names %s: '%s'", intruder_calls[k], the_intruder.msg[k]);
    }
    CHECK(strcmp(ctn_status_name(CTN_ERR_BUSY), "CTN_ERR_BUSY") == 0, "the status has a name: %s", ctn_status_name(CTN_ERR_BUSY));
    /* nothing the refused calls asked for happened: the step ends as the undisturbed one */
    CHECK(ctn_world_step(ref) == CTN_OK, "reference step");
    ctn_body_state *a = calloc((size_t)n, sizeof *a), *b = calloc((size_t)n, sizeof *b);
    CHECK(ctn_world_body_count(traced_world) == n && ctn_world_joint_count(traced_world) == ctn_world_joint_count(ref),
          "counts unchanged: %d bodies, %d joints", ctn_world_body_count(traced_world), ctn_world_joint_count(traced_world));
    snapshot(traced_world, a, n);
    snapshot(ref, b, n);
    CHECK(memcmp(a, b, (size_t)n * sizeof *a) == 0, "the disturbed step equals the undisturbed one bit for bit");
    FILE *f = fopen("busy-never-written.ckpt", "rb");
    CHECK(f == NULL, "the refused save wrote no file");
    if (f) fclose(f), remove("busy-never-written.ckpt");
    /* the refusal was this thread's only: the stepping thread's last error is its own */
    CHECK(ctn_world_last_error(traced_world)[0] == '\0', "the stepping thread's last error: '%s'", ctn_world_last_error(traced_world));
    free(a), free(b);
    ctn_world_destroy(traced_world);
    ctn_world_destroy(ref);
}

/* ---- 2. two threads stepping one world ------------------------------------------------------------ */

typedef struct stepper {
    ctn_world *w;
    int ok, busy, other;
    ctn_status bad;
} stepper;

static void *step_many(void *arg) {
    stepper *s = arg;
    for (int i = 0; i < 300; ++i) {
        ctn_status st = ctn_world_step(s->w);
        if (st == CTN_OK) s->ok++;
        else if (st == CTN_ERR_BUSY) s->busy++;
        else s->other++, s->bad = st;
    }
    return NULL;
}

static void two_threads_one_world(void) {
    ctn_world *w = make_world(NULL, 0), *ref = make_world(NULL, 0);
    if (!w || !ref) return;
    stepper s[2];
    memset(s, 0, sizeof s);
    pthread_t th[2];
    for (int k = 0; k < 2; ++k) {
        s[k].w = w;
        CHECK(pthread_create(&th[k], NULL, step_many, &s[k]) == 0, "pthread_create");
    }
    for (int k = 0; k < 2; ++k) pthread_join(th[k], NULL);
    int ok = s[0].ok + s[1].ok, busy = s[0].busy + s[1].busy;
    printf("two threads, 600 steps of one world: %d done, %d refused as busy\n", ok, busy);
    CHECK(s[0].other + s[1].other == 0, "every call succeeded or was refused as busy (%d others, e.g. %s)", s[0].other + s[1].other,
          ctn_status_name(s[0].other ? s[0].bad : s[1].bad));
    CHECK(ok + busy == 600 && ok >= 1, "%d steps done, %d refused", ok, busy);
    for (int i = 0; i < ok; ++i) ctn_world_step(ref);
    int n = ctn_world_body_count(ref);
    ctn_body_state *a = calloc((size_t)n, sizeof *a), *b = calloc((size_t)n, sizeof *b);
    CHECK(snapshot(w, a, n), "the state stays finite");
    snapshot(ref, b, n);
    CHECK(memcmp(a, b, (size_t)n * sizeof *a) == 0, "the world equals one stepped %d times on one thread: the refused steps did nothing", ok);
    free(a), free(b);
    ctn_world_destroy(w);
    ctn_world_destroy(ref);
}

/* ---- 3. different worlds in parallel ---------------------------------------------------------------- */

static void different_worlds(void) {
    stepper s[2];
    memset(s, 0, sizeof s);
    pthread_t th[2];
    for (int k = 0; k < 2; ++k) {
        s[k].w = make_world(NULL, 0);
        if (!s[k].w) return;
        CHECK(pthread_create(&th[k], NULL, step_many, &s[k]) == 0, "pthread_create");
    }
    for (int k = 0; k < 2; ++k) {
        pthread_join(th[k], NULL);
        CHECK(s[k].ok == 300 && s[k].busy == 0 && s[k].other == 0, "world %d on its own thread: %d steps done, %d busy, %d failed", k,
              s[k].ok, s[k].busy, s[k].other);
        ctn_world_destroy(s[k].w);
    }
}

int main(void) {
    busy_inside_a_step();
    two_threads_one_world();
    different_worlds();
    CHECK(ctn_allocated_blocks() == 0, "every block freed (%ld held)", ctn_allocated_blocks());
    return check_report("world_busy");
}
