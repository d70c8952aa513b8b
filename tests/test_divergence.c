/* Divergence guard: a step that makes a body too fast or non-finite returns CTN_ERR_DIVERGED, names the
 * body, and leaves the world bitwise as it was before the step; stepping can continue afterwards. */
#include "catena/catena.h"
#include "ids.h"
#include "check.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

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
    return check_report("divergence");
}
