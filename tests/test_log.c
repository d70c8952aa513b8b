/* The library's messages and debug options: every message goes to the world's log callback, else to the
 * process-wide hook, else nowhere (the library never prints); the debug options are validated like every
 * other field (named field and value, nothing created). */
#include "catena/catena.h"
#include "check.h"

#include <string.h>

typedef struct captured {
    int count;
    ctn_log_level level;
    char last[512];
} captured;

static void capture(ctn_log_level level, const char *message, void *user) {
    captured *c = user;
    c->count++;
    c->level = level;
    snprintf(c->last, sizeof c->last, "%s", message);
}

/* A CG world holding a rope joint: CG solves bilateral rows only, so the first step says once (INFO) that
 * Gauss-Seidel takes the bounded rows. */
static ctn_world *cg_rope_world(ctn_log_fn log, void *user) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.solver = CTN_SOLVER_CG;
    d.log = log;
    d.log_user = user;
    ctn_world *w = NULL;
    if (ctn_world_create(&d, &w, NULL, 0) != CTN_OK) return NULL;
    ctn_body_desc b = ctn_body_desc_default();
    b.particle = 1;
    b.position[1] = -1.0;
    ctn_body_id bob;
    ctn_body_add(w, &b, &bob);
    ctn_joint_desc j = ctn_joint_desc_default(CTN_JOINT_DISTANCE);
    j.body_a = bob;
    j.body_b = CTN_WORLD;
    ctn_joint_id rope;
    ctn_joint_add(w, &j, &rope);
    ctn_joint_set_rope(w, rope, 1);
    return w;
}

int main(void) {
    captured global = {0, CTN_LOG_DEBUG, ""}, own = {0, CTN_LOG_DEBUG, ""};

    /* 1. a world without a callback and no global hook: the message is dropped, the step succeeds */
    ctn_world *w = cg_rope_world(NULL, NULL);
    CHECK(w && ctn_world_step(w) == CTN_OK && ctn_world_step(w) == CTN_OK, "step without a log");
    CHECK(w && strcmp(ctn_world_last_error(w), "") == 0, "a message is not an error: last error '%s'", w ? ctn_world_last_error(w) : "");
    ctn_world_destroy(w);

    /* 2. the global hook receives the message of a world without its own callback, once */
    ctn_set_log(capture, &global);
    w = cg_rope_world(NULL, NULL);
    for (int i = 0; i < 3 && w; ++i) ctn_world_step(w);
    CHECK(global.count == 1 && global.level == CTN_LOG_INFO && strstr(global.last, "bilateral rows only"), "global hook: %d messages, '%s'",
          global.count, global.last);
    ctn_world_destroy(w);

    /* 3. a world's own callback takes precedence over the global hook */
    global.count = 0;
    w = cg_rope_world(capture, &own);
    for (int i = 0; i < 3 && w; ++i) ctn_world_step(w);
    CHECK(own.count == 1 && strstr(own.last, "bilateral rows only") && global.count == 0, "world callback: own %d, global %d", own.count,
          global.count);
    /* ... also after ctn_world_set_desc, which may change the callback */
    ctn_world_desc d;
    ctn_world_get_desc(w, &d);
    CHECK(d.log == capture && d.log_user == &own, "get_desc returns the callback");
    ctn_world_destroy(w);
    ctn_set_log(NULL, NULL);

    /* 4. debug options: automatic by default, validated like every other field */
    d = ctn_world_desc_default();
    CHECK(d.debug.direct_forest == -1 && d.debug.forest_band == -1 && d.debug.chain_segment == -1 && d.debug.forest_local_one == -1 &&
              d.debug.trace == 0 && d.debug.fault == NULL && d.log == NULL,
          "debug defaults");
    d.backend = CTN_BACKEND_CPU;
    char err[512] = "";
    d.debug.forest_band = 0;
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_ERR_INVALID_ARGUMENT && !w && strstr(err, "desc.debug.forest_band: 0"), "band 0: '%s'",
          err);
    d.debug.forest_band = -1;
    d.debug.direct_forest = 2;
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_ERR_INVALID_ARGUMENT && strstr(err, "desc.debug.direct_forest: 2"), "direct_forest 2: '%s'",
          err);
    d.debug.direct_forest = 1;
    d.debug.chain_segment = 2;
    d.debug.trace = 1;
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "valid knobs refused: '%s'", err);
    ctn_world_destroy(w);

    /* 5. a fault name is refused by a build without fault injection, and an unknown one by any build */
    d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.debug.fault = "enqueue@3";
    ctn_status st = ctn_world_create(&d, &w, err, sizeof err);
    CHECK(st == CTN_OK || (st == CTN_ERR_UNSUPPORTED && strstr(err, "desc.debug.fault") && strstr(err, "CATENA_FAULT_INJECTION")),
          "fault: %s '%s'", ctn_status_name(st), err);
    if (st == CTN_OK) {
        ctn_world_get_desc(w, &d);
        CHECK(d.debug.fault && !strcmp(d.debug.fault, "enqueue@3"), "the world keeps its own copy of the fault");
        ctn_world_destroy(w);
    }
    d.debug.fault = "no-such-fault";
    st = ctn_world_create(&d, &w, err, sizeof err);
    CHECK(st != CTN_OK && !w && strstr(err, "desc.debug.fault"), "unknown fault: %s '%s'", ctn_status_name(st), err);
    return check_report("log");
}
