/* Divergence guard: a step that makes a body too fast or non-finite returns CTN_ERR_DIVERGED, names the
 * body, and leaves the world bitwise as it was before the step; stepping can continue afterwards. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "core/world.h" /* w->inertia, w->snapshot_inertia_kept */
#include "ids.h"
#include "check.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* All body states of the world, concatenated. */
static double *snapshot(ctn_world *w, int n) {
    double *s = malloc(sizeof(double) * 13 * (size_t)n);
    for (int i = 0; i < n; ++i) {
        ctn_body_state b;
        ctn_body_get_state(w, HBODY(w, i), &b);
        memcpy(&s[13 * i], b.position, sizeof b.position);
        memcpy(&s[13 * i + 3], b.orientation, sizeof b.orientation);
        memcpy(&s[13 * i + 7], b.velocity, sizeof b.velocity);
        memcpy(&s[13 * i + 10], b.angular_velocity, sizeof b.angular_velocity);
    }
    return s;
}

static ctn_world *make(double max_speed) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.max_speed = max_speed;
    ctn_world *w = NULL;
    char err[256];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) return NULL;
    ctn_chain_desc c = ctn_chain_desc_default(20);
    ctn_scene_chain(w, &c, NULL);
    return w;
}

/* The whole file at path (malloc'ed, *size bytes), or NULL. */
static unsigned char *slurp(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)(n > 0 ? n : 1));
    *size = buf && n > 0 && fread(buf, 1, (size_t)n, f) == (size_t)n ? (size_t)n : 0;
    fclose(f);
    return buf;
}

/* Forces a divergence (max_speed far below the speeds) and checks that the
 * checkpoint, which holds every body's world inverse inertia as well as its state, is byte for byte the one
 * before the undone step. The restore recomputes the inertias from the poses when every one of them was that
 * function of its pose (the test of host/core/divergence.c), and copies them back otherwise. */
static void undo_keeps_checkpoint(ctn_world *w, const char *what) {
    char a[64], b[64];
    snprintf(a, sizeof a, "divergence-%ld-a.ckpt", (long)getpid());
    snprintf(b, sizeof b, "divergence-%ld-b.ckpt", (long)getpid());
    CHECK(ctn_world_save(w, a, 5, "undo") == CTN_OK, "%s save: %s", what, ctn_world_last_error(w));
    ctn_world_desc d, fast;
    ctn_world_get_desc(w, &d);
    fast = d;
    fast.max_speed = 1e-9;
    CHECK(ctn_world_set_desc(w, &fast) == CTN_OK, "%s: %s", what, ctn_world_last_error(w));
    ctn_status st = ctn_world_step(w);
    CHECK(st == CTN_ERR_DIVERGED, "%s: forced divergence gives %s", what, ctn_status_name(st));
    CHECK(ctn_world_set_desc(w, &d) == CTN_OK, "%s: %s", what, ctn_world_last_error(w));
    CHECK(ctn_world_save(w, b, 5, "undo") == CTN_OK, "%s save: %s", what, ctn_world_last_error(w));
    size_t na = 0, nb = 0;
    unsigned char *fa = slurp(a, &na), *fb = slurp(b, &nb);
    CHECK(fa && fb && na > 0 && na == nb && memcmp(fa, fb, na) == 0, "%s: the checkpoint after the undone step differs (%zu vs %zu bytes)",
          what, na, nb);
    free(fa);
    free(fb);
    remove(a);
    remove(b);
    CHECK(ctn_world_step(w) == CTN_OK, "%s: step after the undo: %s", what, ctn_world_last_error(w));
}

int main(void) {
    /* 1. speed limit: a chain released horizontally passes 3 m/s within a second */
    ctn_world *w = make(3.0);
    CHECK(w != NULL, "world");
    int n = ctn_world_body_count(w), diverged_at = -1;
    for (int k = 0; k < 120 && diverged_at < 0; ++k) {
        double *before = snapshot(w, n);
        double impulse_before[6], impulse_after[6];
        ctn_joint_get_impulse(w, HJOINT(w, 5), impulse_before, NULL);
        ctn_status st = ctn_world_step(w);
        if (st != CTN_OK) {
            diverged_at = k;
            CHECK(st == CTN_ERR_DIVERGED, "status %s", ctn_status_name(st));
            CHECK(strstr(ctn_world_last_error(w), "body") && strstr(ctn_world_last_error(w), "max_speed"), "message: %s",
                  ctn_world_last_error(w));
            double *after = snapshot(w, n);
            CHECK(memcmp(before, after, sizeof(double) * 13 * (size_t)n) == 0, "state restored bitwise after divergence");
            ctn_joint_get_impulse(w, HJOINT(w, 5), impulse_after, NULL);
            CHECK(memcmp(impulse_before, impulse_after, sizeof impulse_after) == 0, "warm-start impulses restored");
            free(after);
        }
        free(before);
    }
    CHECK(diverged_at > 0, "the speed guard fired (step %d)", diverged_at);
    /* the caller can relax the guard and go on from the restored state */
    ctn_world_desc d;
    ctn_world_get_desc(w, &d);
    d.max_speed = 1e4;
    CHECK(ctn_world_set_desc(w, &d) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_world_step(w) == CTN_OK, "step after relaxing the guard: %s", ctn_world_last_error(w));
    ctn_world_destroy(w);

    /* 2. non-finite: a force of FLT_MAX overflows the velocity */
    w = make(1e4);
    n = ctn_world_body_count(w);
    double f[3] = {FLT_MAX, 0.0, 0.0};
    CHECK(ctn_body_set_force(w, HBODY(w, 7), f, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    double *before = snapshot(w, n);
    ctn_status st = ctn_world_step(w);
    CHECK(st == CTN_ERR_DIVERGED, "non-finite step gives %s", ctn_status_name(st));
    CHECK(strstr(ctn_world_last_error(w), "body") != NULL, "message names the body: %s", ctn_world_last_error(w));
    double *after = snapshot(w, n);
    CHECK(memcmp(before, after, sizeof(double) * 13 * (size_t)n) == 0, "state restored bitwise after a non-finite step");
    free(before);
    free(after);
    CHECK(ctn_body_set_force(w, HBODY(w, 7), NULL, NULL) == CTN_OK, "clear force");
    CHECK(ctn_world_step(w) == CTN_OK, "step after removing the force: %s", ctn_world_last_error(w));
    ctn_world_destroy(w);

    /* 3. the guard can be disabled */
    w = make(0.0);
    for (int k = 0; k < 60; ++k) CHECK(ctn_world_step(w) == CTN_OK, "unguarded step %d", k);
    ctn_world_destroy(w);
    /* 4. the inertias: a chain under the exact solver, whose every inertia is the function of its pose the
     * restore recomputes (no copy taken); the same world with one inertia off by one unit in the last place,
     * which the snapshot must copy and put back */
    for (int odd = 0; odd < 2; ++odd) {
        ctn_world_desc d = ctn_world_desc_default();
        d.backend = CTN_BACKEND_CPU;
        d.solver = CTN_SOLVER_DIRECT;
        d.max_speed = 1e4;
        w = NULL;
        char err[256];
        CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "world: %s", err);
        if (!w) continue;
        ctn_chain_desc c = ctn_chain_desc_default(8);
        CHECK(ctn_scene_chain(w, &c, NULL) == CTN_OK, "chain: %s", ctn_world_last_error(w));
        for (int k = 0; k < 5; ++k) CHECK(ctn_world_step(w) == CTN_OK, "step %d: %s", k, ctn_world_last_error(w));
        if (odd) w->inertia[3].inv_inertia.xx = nextafterf(w->inertia[3].inv_inertia.xx, INFINITY);
        undo_keeps_checkpoint(w, odd ? "chain:8, one inertia off" : "chain:8, direct");
        CHECK(w->snapshot_inertia_kept == odd, "the inertias were %s (kept %d)", odd ? "copied" : "recomputed", w->snapshot_inertia_kept);
        ctn_world_destroy(w);
    }
    return check_report("divergence");
}
