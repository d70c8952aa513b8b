/* Reading an OpenCL world changes nothing a later step computes: the readers on a non-const world fill the
 * host copy of the device state (catena/core.h, "Reading functions"), and a world read after every step
 * steps bitwise like its twin that is never read until the end. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "check.h"
#include "fixtures.h"
#include "ids.h"

#include <string.h>

enum { STEPS = 60 };

static ctn_world *chain_world(void) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_OPENCL;
    d.solver = CTN_SOLVER_GS;
    char err[512];
    ctn_world *w = NULL;
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "world: %s", err);
    if (w) CHECK(ctn_scene_from_spec(w, "chain:40") == CTN_OK, "chain: %s", ctn_world_last_error(w));
    return w;
}

int main(void) {
    char why[256];
    if (!fixture_have_opencl(why, sizeof why)) return check_skip("test_reads_opencl", why);
    ctn_world *read = chain_world(), *quiet = chain_world();
    if (!read || !quiet) return check_report("reads_opencl");
    int reads = 0;
    for (int s = 0; s < STEPS; ++s) {
        CHECK(ctn_world_step(read) == CTN_OK && ctn_world_step(quiet) == CTN_OK, "step %d", s);
        for (int b = 0; b < ctn_world_body_count(read); ++b) {
            ctn_body_state st;
            double imp[6];
            reads += ctn_body_get_state(read, HBODY(read, b), &st) == CTN_OK;
            reads += ctn_joint_get_impulse(read, HJOINT(read, b), imp, NULL) == CTN_OK;
        }
    }
    CHECK(reads == 2 * STEPS * 40, "every read answered: %d", reads);
    int same = 1;
    for (int b = 0; b < 40; ++b) {
        ctn_body_state a, q;
        CHECK(ctn_body_get_state(read, HBODY(read, b), &a) == CTN_OK && ctn_body_get_state(quiet, HBODY(quiet, b), &q) == CTN_OK, "final state");
        same &= !memcmp(&a, &q, sizeof a);
    }
    CHECK(same, "the world read after every step departs from its unread twin");
    ctn_world_destroy(read);
    ctn_world_destroy(quiet);
    return check_report("reads_opencl");
}
