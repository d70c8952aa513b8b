/* Placed generators in scene files: every generator but chains, given `origin` and `rotation`, builds the
 * same bodies as at the world origin moved as one rigid piece (positions x' = origin + R x), with its
 * joints, world anchors, hinge rest orientations and planes moved along (no joint gap or angle error at
 * creation, none growing after steps). Chains hang from a body (`attach_to`) or from nothing, and a build
 * that fails after re-hanging a chain leaves the world as it was. Skipped (77) without cJSON. */
#include "catena/catena.h"
#include "ids.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ctn_world *world_of(const char *text, ctn_status *st) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    ctn_world *w = NULL;
    char err[1024];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) return NULL;
    ctn_scene *s = NULL;
    *st = ctn_scene_parse_text(text, strlen(text), "placement", &s, err, sizeof err);
    if (*st == CTN_ERR_UNSUPPORTED) {
        ctn_world_destroy(w);
        return NULL;
    }
    CHECK(*st == CTN_OK, "parse: %s", err);
    if (*st == CTN_OK) *st = ctn_scene_build(s, w);
    CHECK(*st == CTN_OK, "build: %s", ctn_world_last_error(w));
    ctn_scene_free(s);
    return w;
}

/* R v for the unit quaternion (w, x, y, z). */
static void rotate(const double q[4], const double v[3], double out[3]) {
    double t[3] = {2 * (q[2] * v[2] - q[3] * v[1]), 2 * (q[3] * v[0] - q[1] * v[2]), 2 * (q[1] * v[1] - q[2] * v[0])};
    out[0] = v[0] + q[0] * t[0] + (q[2] * t[2] - q[3] * t[1]);
    out[1] = v[1] + q[0] * t[1] + (q[3] * t[0] - q[1] * t[2]);
    out[2] = v[2] + q[0] * t[2] + (q[1] * t[1] - q[2] * t[0]);
}

static void check_placed(const char *generator) {
    char plain[256], placed[512];
    snprintf(plain, sizeof plain, "{\"generators\": [{%s}]}", generator);
    /* 70 degrees about (0.3, 1, 0.2), moved to (10, 2, -3) */
    int keep = (int)strlen(generator) - 1; /* without the closing brace */
    snprintf(placed, sizeof placed, "{\"generators\": [{%.*s%s\"origin\": [10, 2, -3], \"rotation\": {\"axis\": [0.3, 1, 0.2], \"degrees\": 70}}}]}",
             keep, generator, generator[keep - 1] == '{' ? "" : ", ");
    ctn_status st;
    ctn_world *a = world_of(plain, &st), *b = world_of(placed, &st);
    if (!a || !b) {
        ctn_world_destroy(a), ctn_world_destroy(b);
        return;
    }
    double n = sqrt(0.09 + 1 + 0.04), half = 35.0 * 3.14159265358979323846 / 180.0;
    double q[4] = {cos(half), sin(half) * 0.3 / n, sin(half) / n, sin(half) * 0.2 / n}, o[3] = {10, 2, -3};
    int nb = ctn_world_body_count(a);
    CHECK(nb == ctn_world_body_count(b) && ctn_world_joint_count(a) == ctn_world_joint_count(b), "%s: counts differ", generator);
    double worst = 0.0;
    for (int i = 0; i < nb; ++i) {
        ctn_body_state sa, sb;
        ctn_body_get_state(a, HBODY(a, i), &sa);
        ctn_body_get_state(b, HBODY(b, i), &sb);
        double x[3];
        rotate(q, sa.position, x);
        for (int k = 0; k < 3; ++k) worst = fmax(worst, fabs(x[k] + o[k] - sb.position[k]));
    }
    CHECK(worst < 1e-5, "%s: placed bodies are %.3g m off origin + R x", generator, worst);
    double gap = 0.0, angle = 0.0;
    ctn_world_measure(b, &gap, &angle);
    CHECK(gap < 1e-5 && angle < 1e-4, "%s: placed joints violated at creation: gap %.3g m, angle %.3g rad", generator, gap, angle);
    for (int s = 0; s < 20; ++s) {
        CHECK(ctn_world_step(b) == CTN_OK, "%s: step %d: %s", generator, s, ctn_world_last_error(b));
    }
    ctn_step_stats sb;
    ctn_world_get_stats(b, &sb);
    CHECK(sb.max_gap < 0.01, "%s: placed, the joint gap grew to %.3g m in 20 steps", generator, sb.max_gap);
    ctn_world_destroy(a);
    ctn_world_destroy(b);
}

/* A chain hung from a spinning kinematic hub follows it; a free chain falls; a failed build rolls back. */
static void check_attach(void) {
    ctn_status st;
    const char *hub = "{\"bodies\": [{\"name\": \"hub\", \"type\": \"kinematic\", \"position\": [0, 2, 0], \"velocity\": [1, 0, 0]}],"
                      " \"generators\": [{\"chain\": {\"links\": 5, \"origin\": [0, 2, 0], \"attach_to\": \"hub\", \"direction\": [0, -1, 0]}}]}";
    ctn_world *w = world_of(hub, &st);
    if (!w) return;
    CHECK(ctn_world_joint_count(w) == 5, "attach_to hub: %d joints, expected 5", ctn_world_joint_count(w));
    for (int s = 0; s < 60; ++s) ctn_world_step(w);
    ctn_body_state link;
    ctn_body_get_state(w, HBODY(w, 1), &link);
    CHECK(fabs(link.position[0] - 1.0) < 0.05, "the chain hung from the moving hub is at x = %.3f after 1 s, expected about 1", link.position[0]);
    ctn_world_destroy(w);

    const char *free_chain = "{\"generators\": [{\"chain\": {\"links\": 4, \"origin\": [0, 0, 0], \"attach_to\": \"none\"}}]}";
    w = world_of(free_chain, &st);
    if (!w) return;
    CHECK(ctn_world_joint_count(w) == 3, "attach_to none: %d joints, expected 3", ctn_world_joint_count(w));
    for (int s = 0; s < 30; ++s) ctn_world_step(w);
    ctn_body_state first;
    ctn_body_get_state(w, HBODY(w, 0), &first);
    CHECK(first.position[1] < -1.0, "a free chain falls: y = %.3f after 0.5 s", first.position[1]);

    /* the second build fails at its constraint after re-hanging a chain: nothing of it stays */
    int before = ctn_world_joint_count(w);
    const char *bad = "{\"bodies\": [{\"name\": \"p\", \"particle\": true}, {\"name\": \"q\", \"particle\": true}],"
                      " \"generators\": [{\"rope\": {\"links\": 3, \"origin\": [5, 0, 0], \"attach_to\": \"none\"}}],"
                      " \"constraints\": [{\"type\": \"distance\", \"a\": \"p\", \"b\": \"q\"}]}";
    ctn_scene *s = NULL;
    char err[512];
    CHECK(ctn_scene_parse_text(bad, strlen(bad), "bad", &s, err, sizeof err) == CTN_OK, "parse: %s", err);
    CHECK(ctn_scene_build(s, w) != CTN_OK, "coinciding distance anchors should fail the build");
    ctn_scene_free(s);
    CHECK(ctn_world_body_count(w) == 4 && ctn_world_joint_count(w) == before, "the failed build left %d bodies, %d joints",
          ctn_world_body_count(w), ctn_world_joint_count(w));
    ctn_joint_desc d = ctn_joint_desc_default(CTN_JOINT_BALL);
    d.body_a = HBODY(w, 0);
    double pivot[3] = {0, 0, 0};
    ctn_body_get_state(w, HBODY(w, 0), &first);
    memcpy(pivot, first.position, sizeof pivot);
    CHECK(ctn_joint_desc_set_pivot(w, &d, pivot, NULL) == CTN_OK && ctn_joint_add(w, &d, NULL) == CTN_OK, "a joint after the rollback: %s",
          ctn_world_last_error(w));
    CHECK(ctn_world_step(w) == CTN_OK, "the world steps after the rollback: %s", ctn_world_last_error(w));
    ctn_world_destroy(w);
}

int main(void) {
    ctn_status st;
    ctn_world *probe = world_of("{}", &st);
    if (!probe) {
        printf("test_scene_placement: skipped: no JSON support in this build\n");
        return 77;
    }
    ctn_world_destroy(probe);
    const char *generators[] = {"\"grid\": {\"nx\": 4, \"ny\": 3}", "\"bridge\": {\"planks\": 6}", "\"bridge_limits\": {\"planks\": 6}",
                                "\"cradle\": {\"balls\": 3}", "\"double_pendulum\": {}", "\"wheel\": {}", "\"tree\": {\"links\": 15}",
                                "\"capsule_chain\": {\"links\": 5}", "\"contact_cradle\": {\"balls\": 3}", "\"pile\": {\"spheres\": 20}"};
    for (size_t k = 0; k < sizeof generators / sizeof generators[0]; ++k) check_placed(generators[k]);
    check_attach();
    return check_report("test_scene_placement");
}
