/* A joint's slot in the last layout (ctn__joint_layout_slot, host/core/world.h): the joint table is stored in solver
 * order, so after a layout build a joint's slot is its storage position below the layout's joint count, and no
 * array holds the map. The edits that break that between two builds, each checked against a twin world whose
 * joints keep the map without them, bit for bit, over the steps that follow (the warm start reads the map):
 *  - a joint inserted into a reused slot whose position is in the layout starts cold: the world keeps the map
 *    explicitly from then on (joint_slot_held) until the next build, and the joint's impulse reads zero; the twin
 *    takes a fresh slot at the end instead (the same id order, so the same layout);
 *  - a table truncation that moves slots (a scene build rolled back after a layout that held its joints): the
 *    impulses follow the slots that move, a slot moved into the layout's range that was not in it (a spring)
 *    finds a zero row, and no map is kept; every joint's impulse reads as before the rollback, and the world
 *    steps as the twin that never built the scene;
 *  - a build leaves no map held, and a chain stepped alone never holds one. */
#define _POSIX_C_SOURCE 200809L
#include "api/world_mark.h"
#include "catena/catena.h"
#include "check.h"
#include "fixtures.h"
#include "core/world.h"
#include "ids.h"

#include <string.h>

enum { LINKS = 12, STEPS = 3 };

static ctn_world *chain_world(ctn_body_id *first) {
    ctn_world_desc d = fixture_cpu_desc(1);
    d.solver = CTN_SOLVER_GS; /* its warm start reads the carried impulses (the exact solver's need not) */
    return fixture_chain_from(&d, LINKS, first);
}

static void step(ctn_world *w, int n) { fixture_steps(w, n); }

/* Whether the chain's links of a and b have the same state, bit for bit. */
static int same_chain(ctn_world *a, ctn_body_id fa, ctn_world *b, ctn_body_id fb) { return fixture_same_links(a, fa, b, fb, LINKS); }

/* Joint slot j's impulse (6 doubles, zero past its rows) as the API reads it. */
static void impulse(ctn_world *w, int j, double out[6]) {
    memset(out, 0, 6 * sizeof *out);
    CHECK(ctn_joint_get_impulse(w, ctn__joint_handle(w, j), out, NULL) == CTN_OK, "impulse of joint %d: %s", j, ctn_world_last_error(w));
}

static void test_reused_slot(void) {
    ctn_body_id fa, fb;
    ctn_world *a = chain_world(&fa), *b = chain_world(&fb);
    if (!a || !b) return;
    step(a, STEPS), step(b, STEPS);
    CHECK(!a->joint_slot_held && a->joint_slot == NULL, "a chain stepped alone holds no slot map");
    /* the last joint (the highest slot, last in id order) removed and added again between the same bodies */
    int last = a->joint_count - 1;
    CHECK(a->joint_pos[last] < a->topo.joint_count, "the last joint is in the layout");
    ctn_joint_desc jd;
    CHECK(ctn_joint_get_desc(a, ctn__joint_handle(a, last), &jd) == CTN_OK, "desc: %s", ctn_world_last_error(a));
    double before[LINKS][6];
    for (int j = 0; j < last; ++j) impulse(a, j, before[j]);
    ctn_joint_id ja, jb;
    CHECK(ctn_joint_remove(a, ctn__joint_handle(a, last)) == CTN_OK && ctn_joint_remove(b, ctn__joint_handle(b, last)) == CTN_OK, "remove");
    jd.body_a = ID_IN(a, jd.body_a), jd.body_b = ID_IN(a, jd.body_b);
    CHECK(ctn_joint_add(a, &jd, &ja) == CTN_OK, "add again: %s", ctn_world_last_error(a));
    CHECK(ctn_joint_id_to_int(ja) % ((int64_t)1 << 32) == last, "the new joint reuses slot %d", last);
    CHECK(a->joint_slot_held, "a reused slot inside the layout keeps the map explicitly");
    b->append_slots++; /* the twin: a fresh slot at the end (cold whatever the map) */
    jd.body_a = ID_IN(b, jd.body_a), jd.body_b = ID_IN(b, jd.body_b);
    CHECK(ctn_joint_add(b, &jd, &jb) == CTN_OK, "add fresh: %s", ctn_world_last_error(b));
    b->append_slots--;
    CHECK(ctn_joint_id_to_int(jb) % ((int64_t)1 << 32) == last + 1, "the twin's joint takes a fresh slot");
    double got[6];
    impulse(a, last, got);
    int zero = 1;
    for (int k = 0; k < 6; ++k) zero = zero && got[k] == 0.0;
    CHECK(zero, "the joint in the reused slot reads no impulse before it is stepped");
    for (int j = 0; j < last; ++j) {
        impulse(a, j, got);
        CHECK(memcmp(got, before[j], sizeof got) == 0, "joint %d keeps its impulse", j);
    }
    step(a, STEPS), step(b, STEPS);
    CHECK(!a->joint_slot_held, "the build drops the map");
    CHECK(same_chain(a, fa, b, fb), "the joint in the reused slot starts cold, the others warm: the twin's bits");
    ctn_world_destroy(a), ctn_world_destroy(b);
}

static void test_truncation(void) {
    ctn_body_id fa, fb;
    ctn_world *a = chain_world(&fa), *b = chain_world(&fb);
    if (!a || !b) return;
    /* a spring between two links: a slot the layout leaves out, stored past it */
    ctn_world *ws[2] = {a, b};
    ctn_body_id fs[2] = {fa, fb};
    for (int k = 0; k < 2; ++k) {
        ctn_joint_desc s = ctn_joint_desc_default(CTN_JT_SPRING);
        s.body_a = ctn_body_id_offset(fs[k], 2), s.body_b = ctn_body_id_offset(fs[k], 5);
        s.stiffness = 10.0, s.rest_length = 3.0;
        ctn_joint_id id;
        CHECK(ctn_joint_add(ws[k], &s, &id) == CTN_OK, "spring: %s", ctn_world_last_error(ws[k]));
    }
    step(a, STEPS), step(b, STEPS);
    int n = a->joint_count, spring = n - 1;
    CHECK(a->joint_pos[spring] >= a->topo.joint_count, "the spring is stored past the layout");
    double before[LINKS + 1][6];
    for (int j = 0; j < n; ++j) impulse(a, j, before[j]);
    /* a scene build: fresh bodies and ball joints appended, a layout built with them, then rolled back */
    ctn_world_mark mark = ctn__scene_mark(a);
    a->append_slots++;
    ctn_body_id prev = CTN_WORLD;
    for (int k = 0; k < 6; ++k) {
        ctn_body_desc bd = ctn_body_desc_default();
        bd.mass = 1.0;
        bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 0.1;
        bd.position[0] = 100.0 + k, bd.position[1] = 50.0;
        ctn_body_id id;
        CHECK(ctn_body_add(a, &bd, &id) == CTN_OK, "body: %s", ctn_world_last_error(a));
        ctn_joint_desc jd = ctn_joint_desc_default(CTN_JT_BALL);
        jd.body_a = id, jd.body_b = prev;
        jd.anchor_a[0] = -0.5, jd.anchor_b[0] = 0.5;
        if (k == 0) jd.anchor_b[0] = 99.5, jd.anchor_b[1] = 50.0; /* the first to the world */
        ctn_joint_id jid;
        CHECK(ctn_joint_add(a, &jd, &jid) == CTN_OK, "joint: %s", ctn_world_last_error(a));
        prev = id;
    }
    a->append_slots--;
    CHECK(ctn__topology_build(a) == CTN_OK, "layout with the scene: %s", ctn_world_last_error(a));
    int moved_out = 0;
    for (int j = 0; j < n; ++j) moved_out += a->joint_pos[j] >= n;
    CHECK(moved_out > 0, "the layout stored chain joints past the mark (%d)", moved_out);
    ctn__scene_rollback(a, mark);
    CHECK(a->joint_count == n && a->topology_dirty && !a->joint_slot_held, "rolled back: %d joints, dirty, no map held", a->joint_count);
    for (int j = 0; j < n; ++j) CHECK(a->joint_pos[j] < n && a->joint_at[a->joint_pos[j]] == j, "joint %d stored at %d", j, a->joint_pos[j]);
    double got[6];
    for (int j = 0; j < n; ++j) {
        impulse(a, j, got);
        CHECK(memcmp(got, before[j], sizeof got) == 0, "joint %d reads its impulse after the rollback", j);
    }
    step(a, STEPS), step(b, STEPS);
    CHECK(same_chain(a, fa, b, fb), "the rolled-back world steps as its twin, bit for bit");
    ctn_world_destroy(a), ctn_world_destroy(b);
}

int main(void) {
    test_reused_slot();
    test_truncation();
    return check_report("test_layout_slot");
}
