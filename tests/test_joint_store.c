/* The joint table's storage (host/core/joint_store.c, kernels/ctn_joints.h): a compact record per joint and
 * the per-type extras in an array the world holds only while some live joint's extras differ from the
 * default ones.
 *  - a chain of ball joints holds no extras array, before and after steps;
 *  - the first joint with extras (a hinge) creates it; removing that joint drops it at the next layout
 *    build; a rope flag set on a distance joint creates it too, and clearing the flag drops it again;
 *  - the same chain stepped with and without the array (a hinge between two other bodies far away, which
 *    forces the array) moves bit for bit the same: the defaults read where no array is kept are the bits the
 *    joints were stored with;
 *  - a definition reads back whole (ctn_joint_get_desc, the limits) with and without the array;
 *  - a checkpoint of a world without the array loads without it, one with it loads with it, and both resume
 *    to the same bits as the uninterrupted run. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "check.h"
#include "fixtures.h"
#include "core/world.h"
#include "ids.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { LINKS = 12, STEPS = 20 };

static ctn_world *make_world(void) {
    ctn_world_desc d = fixture_cpu_desc(1);
    return fixture_world_from(&d);
}

static ctn_body_id add_body(ctn_world *w, double x, double y) {
    ctn_body_desc b = ctn_body_desc_default();
    b.mass = 1.0;
    b.inertia[0] = b.inertia[1] = b.inertia[2] = 0.1;
    b.position[0] = x, b.position[1] = y;
    ctn_body_id id = CTN_NULL_BODY;
    CHECK(ctn_body_add(w, &b, &id) == CTN_OK, "body: %s", ctn_world_last_error(w));
    return id;
}

/* A hinge between two new bodies at height y (far from the chain): a joint whose axes are extras. */
static ctn_joint_id add_hinge(ctn_world *w, double y) {
    ctn_body_id a = add_body(w, 50.0, y), b = add_body(w, 51.0, y);
    ctn_joint_desc j = ctn_joint_desc_default(CTN_JT_HINGE);
    j.body_a = a, j.body_b = b;
    j.anchor_a[0] = 0.5, j.anchor_b[0] = -0.5;
    j.axis[0] = 0.0, j.axis[1] = 0.0, j.axis[2] = 1.0;
    ctn_joint_id id = CTN_NULL_JOINT;
    CHECK(ctn_joint_add(w, &j, &id) == CTN_OK, "hinge: %s", ctn_world_last_error(w));
    return id;
}

static ctn_world *chain_world(ctn_body_id *first) {
    ctn_world_desc d = fixture_cpu_desc(1);
    return fixture_chain_from(&d, LINKS, first);
}

static void step(ctn_world *w, int n) { fixture_steps(w, n); }

/* Whether the chain's links of a and b have the same state, bit for bit. */
static int same_chain(ctn_world *a, ctn_body_id fa, ctn_world *b, ctn_body_id fb) { return fixture_same_links(a, fa, b, fb, LINKS); }

static void test_presence(void) {
    ctn_body_id first;
    ctn_world *w = chain_world(&first);
    if (!w) return;
    CHECK(w->joint_extra == NULL, "a chain of ball joints holds no extras");
    step(w, 3);
    CHECK(w->joint_extra == NULL && w->topo.extra == NULL, "nor after steps");
    ctn_joint_id h = add_hinge(w, 40.0);
    CHECK(w->joint_extra != NULL, "a hinge creates the extras array");
    step(w, 1);
    CHECK(w->topo.extra == w->joint_extra, "the layout reads the table's extras");
    int enabled = 0;
    double lo = 0.0, hi = 0.0;
    CHECK(ctn_joint_set_limits(w, h, 1, -0.5, 0.25) == CTN_OK, "limits: %s", ctn_world_last_error(w));
    CHECK(ctn_joint_get_limits(w, h, &enabled, &lo, &hi) == CTN_OK && enabled && lo == -0.5 && hi == 0.25, "limits read back: %d [%g, %g]",
          enabled, lo, hi);
    CHECK(ctn_joint_remove(w, h) == CTN_OK, "remove: %s", ctn_world_last_error(w));
    step(w, 1);
    CHECK(w->joint_extra == NULL && w->topo.extra == NULL, "the layout build after the hinge's removal drops the array");
    ctn_world_destroy(w);

    /* a rope flag is an extra of a distance joint */
    w = make_world();
    if (!w) return;
    ctn_body_id a = add_body(w, 0.0, 0.0), b = add_body(w, 1.0, 0.0);
    ctn_joint_desc j = ctn_joint_desc_default(CTN_JT_DISTANCE);
    j.body_a = a, j.body_b = b;
    ctn_joint_id id = CTN_NULL_JOINT;
    CHECK(ctn_joint_add(w, &j, &id) == CTN_OK, "distance: %s", ctn_world_last_error(w));
    CHECK(w->joint_extra == NULL, "a plain distance joint holds no extras");
    CHECK(ctn_joint_set_rope(w, id, 1) == CTN_OK, "rope: %s", ctn_world_last_error(w));
    CHECK(w->joint_extra != NULL, "a rope creates the array");
    CHECK(ctn_joint_get_rope(w, id, &enabled) == CTN_OK && enabled, "the rope reads back");
    CHECK(ctn_joint_set_rope(w, id, 0) == CTN_OK, "rope off: %s", ctn_world_last_error(w));
    step(w, 1);
    CHECK(w->joint_extra == NULL, "clearing the rope drops the array at the next layout build");
    CHECK(ctn_joint_get_rope(w, id, &enabled) == CTN_OK && !enabled, "the rope reads back off");
    ctn_world_destroy(w);
}

static void test_same_bits(void) {
    ctn_body_id fa, fb;
    ctn_world *a = chain_world(&fa), *b = chain_world(&fb);
    if (!a || !b) {
        ctn_world_destroy(a), ctn_world_destroy(b);
        return;
    }
    (void)add_hinge(b, 40.0);
    CHECK(a->joint_extra == NULL && b->joint_extra != NULL, "one world without the extras array, one with");
    for (int i = 0; i < STEPS; ++i) {
        step(a, 1), step(b, 1);
        if (!same_chain(a, fa, b, fb)) {
            CHECK(0, "step %d: the chain moves differently with the extras array", i + 1);
            break;
        }
    }
    /* every ball joint's definition reads back the same with and without the array */
    ctn_joint_desc da, db;
    CHECK(ctn_joint_get_desc(a, HJOINT(a, 3), &da) == CTN_OK && ctn_joint_get_desc(b, HJOINT(b, 3), &db) == CTN_OK, "get_desc");
    CHECK(da.type == db.type && memcmp(da.anchor_a, db.anchor_a, sizeof da.anchor_a) == 0 && da.compliance == db.compliance &&
              da.damping_time == db.damping_time,
          "a ball joint's desc is the same with and without the array");
    ctn_world_destroy(a);
    ctn_world_destroy(b);
}

/* A checkpoint saved after k steps and loaded: the array as it was, and the same bits as the run that went on. */
static void test_checkpoint(int with_hinge) {
    ctn_body_id first;
    ctn_world *w = chain_world(&first);
    if (!w) return;
    if (with_hinge) (void)add_hinge(w, 40.0);
    step(w, 5);
    char path[64];
    snprintf(path, sizeof path, "test_joint_store_%d_%d.ckpt", (int)getpid(), with_hinge);
    CHECK(ctn_world_save(w, path, 5, NULL) == CTN_OK, "save: %s", ctn_world_last_error(w));
    ctn_world *r = NULL;
    char err[256];
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.threads = 1;
    CHECK(ctn_world_load(path, &d, &r, NULL, err, sizeof err) == CTN_OK, "load: %s", err);
    unlink(path);
    if (r) {
        CHECK((r->joint_extra != NULL) == with_hinge, "loaded %s the extras array (hinge %d)", r->joint_extra ? "with" : "without", with_hinge);
        step(w, 5), step(r, 5);
        CHECK(same_chain(w, first, r, ctn_body_id_in(r, first)), "hinge %d: the resumed run ends where the uninterrupted one does", with_hinge);
        ctn_world_destroy(r);
    }
    ctn_world_destroy(w);
}

int main(void) {
    test_presence();
    test_same_bits();
    test_checkpoint(0);
    test_checkpoint(1);
    return check_report("joint_store");
}
