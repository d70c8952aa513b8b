/* Compound shapes: several collision shapes on one body, each at its own offset and rotation
 * (ctn_body_add_shape). The API's bookkeeping and refusals; a dumbbell of two spheres resting on a floor on
 * both; the shapes of one body never colliding with each other; a compound on a compound; scene files and
 * checkpoints keeping every shape (the reloaded world steps bitwise as the original). */
#include "check.h"

#include <stdint.h>
#include <string.h>

static ctn_world *cpu_world(void) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.warm_start = 1.0; /* a checkpoint resumes bitwise with full warm starts (test_checkpoint_resume) */
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    return w;
}

static ctn_shape_desc sphere_at(double r, double x, double y, double z) {
    ctn_shape_desc s = ctn_shape_desc_default(CTN_SHAPE_SPHERE);
    s.radius = r;
    s.offset[0] = x, s.offset[1] = y, s.offset[2] = z;
    return s;
}

/* A dynamic body of mass 1 at (x, y, z) with the inertia of a 0.3 m sphere (its shapes do not give it). */
static ctn_body_id add_ball_body(ctn_world *w, double x, double y, double z) {
    ctn_body_desc bd = ctn_body_desc_default();
    bd.mass = 1.0;
    ctn_inertia_sphere(1.0, 0.3, bd.inertia);
    bd.position[0] = x, bd.position[1] = y, bd.position[2] = z;
    ctn_body_id id = CTN_NULL_BODY;
    CHECK(ctn_body_add(w, &bd, &id) == CTN_OK, "%s", ctn_world_last_error(w));
    return id;
}

static void check_api(void) {
    ctn_world *w = cpu_world();
    if (!w) return;
    ctn_body_id b = add_ball_body(w, 0, 1, 0);
    int32_t n = -1, idx = -1;
    CHECK(ctn_body_shape_count(w, b, &n) == CTN_OK && n == 0, "a new body has no shape (%d)", (int)n);
    ctn_shape_desc s0 = sphere_at(0.1, 0.3, 0, 0), s1 = sphere_at(0.2, -0.3, 0, 0), box = ctn_shape_desc_default(CTN_SHAPE_BOX), got;
    CHECK(ctn_body_add_shape(w, b, &s0, &idx) == CTN_OK && idx == 0, "first shape at index %d", (int)idx);
    CHECK(ctn_body_add_shape(w, b, &s1, &idx) == CTN_OK && idx == 1, "second shape at index %d", (int)idx);
    CHECK(ctn_body_add_shape(w, b, &box, &idx) == CTN_OK && idx == 2, "third shape at index %d", (int)idx);
    CHECK(ctn_body_shape_count(w, b, &n) == CTN_OK && n == 3, "3 shapes (%d)", (int)n);
    CHECK(ctn_body_get_shape_at(w, b, 1, &got) == CTN_OK && got.type == CTN_SHAPE_SPHERE && fabs(got.radius - 0.2) < 1e-7 &&
              fabs(got.offset[0] + 0.3) < 1e-7,
          "shape 1: radius %g at x %g", got.radius, got.offset[0]);
    CHECK(ctn_body_get_shape(w, b, &got) == CTN_OK && fabs(got.radius - 0.1) < 1e-7, "ctn_body_get_shape gives shape 0");
    int32_t shapes = 0, planes = 0;
    ctn_world_collision_counts(w, &shapes, &planes);
    CHECK(shapes == 1, "collision counts count bodies with shapes: %d", (int)shapes);
    /* refusals name the field and leave the body as it was */
    CHECK(ctn_body_get_shape_at(w, b, 3, &got) == CTN_ERR_NOT_FOUND && strstr(ctn_world_last_error(w), "3"), "index 3 refused: %s",
          ctn_world_last_error(w));
    CHECK(ctn_body_remove_shape(w, b, -1) == CTN_ERR_NOT_FOUND, "index -1 refused");
    ctn_shape_desc none = ctn_shape_desc_default(CTN_SHAPE_NONE), bad = sphere_at(-1, 0, 0, 0);
    CHECK(ctn_body_add_shape(w, b, &none, NULL) == CTN_ERR_INVALID_ARGUMENT, "adding a none shape is refused");
    CHECK(ctn_body_add_shape(w, b, &bad, NULL) == CTN_ERR_INVALID_ARGUMENT && strstr(ctn_world_last_error(w), "shape.radius"),
          "a bad shape is refused naming the field: %s", ctn_world_last_error(w));
    CHECK(ctn_body_add_shape(w, b, NULL, NULL) == CTN_ERR_INVALID_ARGUMENT, "NULL refused");
    CHECK(ctn_body_shape_count(w, b, &n) == CTN_OK && n == 3, "still 3 shapes after the refusals (%d)", (int)n);
    /* removal: the later shapes move down */
    CHECK(ctn_body_remove_shape(w, b, 0) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_body_shape_count(w, b, &n) == CTN_OK && n == 2 && ctn_body_get_shape_at(w, b, 0, &got) == CTN_OK &&
              fabs(got.radius - 0.2) < 1e-7 && ctn_body_get_shape_at(w, b, 1, &got) == CTN_OK && got.type == CTN_SHAPE_BOX,
          "after removing shape 0: %d shapes, the sphere of 0.2 first, the box second", (int)n);
    CHECK(ctn_body_remove_shape(w, b, 1) == CTN_OK && ctn_body_remove_shape(w, b, 0) == CTN_OK && ctn_body_shape_count(w, b, &n) == CTN_OK &&
              n == 0,
          "all removed (%d)", (int)n);
    ctn_world_collision_counts(w, &shapes, &planes);
    CHECK(shapes == 0, "no body with a shape left: %d", (int)shapes);
    /* set_shape replaces every shape */
    ctn_body_add_shape(w, b, &s0, NULL);
    ctn_body_add_shape(w, b, &s1, NULL);
    CHECK(ctn_body_set_shape(w, b, &box) == CTN_OK && ctn_body_shape_count(w, b, &n) == CTN_OK && n == 1, "set_shape leaves one (%d)", (int)n);
    CHECK(ctn_body_set_shape(w, b, &none) == CTN_OK && ctn_body_shape_count(w, b, &n) == CTN_OK && n == 0, "set_shape none leaves none (%d)",
          (int)n);
    /* the limit per body */
    ctn_status st = CTN_OK;
    for (int k = 0; k < CTN_MAX_BODY_SHAPES && st == CTN_OK; ++k) st = ctn_body_add_shape(w, b, &s0, NULL);
    CHECK(st == CTN_OK, "%d shapes fit: %s", CTN_MAX_BODY_SHAPES, ctn_world_last_error(w));
    CHECK(ctn_body_add_shape(w, b, &s0, NULL) == CTN_ERR_LIMIT, "shape %d refused", CTN_MAX_BODY_SHAPES + 1);
    /* a particle holds one centred sphere */
    ctn_body_desc pd = ctn_body_desc_default();
    pd.particle = 1;
    ctn_body_id p = CTN_NULL_BODY;
    ctn_body_add(w, &pd, &p);
    ctn_shape_desc centred = sphere_at(0.1, 0, 0, 0);
    CHECK(ctn_body_add_shape(w, p, &centred, NULL) == CTN_OK, "a particle takes a sphere: %s", ctn_world_last_error(w));
    CHECK(ctn_body_add_shape(w, p, &centred, NULL) == CTN_ERR_INVALID_ARGUMENT, "a particle takes no second shape");
    /* a removed body's shapes go with it; a body reusing the slot starts without */
    ctn_body_remove(w, b);
    ctn_body_id b2 = add_ball_body(w, 0, 1, 0);
    CHECK(ctn_body_shape_count(w, b2, &n) == CTN_OK && n == 0, "a body in a reused slot has no shapes (%d)", (int)n);
    CHECK(ctn_body_shape_count(w, b, &n) != CTN_OK, "the removed body's handle is refused");
    ctn_world_destroy(w);
}

/* A dumbbell: two spheres of radius 0.1 at +-0.3 m along x on one body dropped on the floor y = 0 under the
 * default gravity (-y). It rests level on both (two contacts), its centre at the radius; with one sphere only
 * it would tip over. The two spheres overlap a third on the same body, which never makes a contact. */
static void check_dumbbell(void) {
    ctn_world *w = cpu_world();
    if (!w) return;
    const double up[3] = {0, 1, 0};
    ctn_world_add_plane(w, up, 0.0, 0.8, 0.0, NULL);
    ctn_body_id b = add_ball_body(w, 0, 0.5, 0);
    ctn_shape_desc a = sphere_at(0.1, 0.3, 0, 0), c = sphere_at(0.1, -0.3, 0, 0);
    ctn_body_add_shape(w, b, &a, NULL);
    ctn_body_add_shape(w, b, &c, NULL);
    ctn_shape_desc over = sphere_at(0.08, 0.22, 0, 0); /* overlaps sphere a: same body, no contact */
    ctn_body_add_shape(w, b, &over, NULL);
    int max_contacts = 0;
    for (int k = 0; k < 120; ++k) {
        CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        int32_t n = 0;
        ctn_world_get_contacts(w, NULL, 0, &n);
        if (k < 10) CHECK(n == 0, "no contact in free fall (step %d: %d): the body's own shapes do not collide", k, (int)n);
        if (n > max_contacts) max_contacts = (int)n;
    }
    ctn_body_state s;
    ctn_body_get_state(w, b, &s);
    double tilt = 2.0 * sqrt(s.orientation[1] * s.orientation[1] + s.orientation[2] * s.orientation[2] + s.orientation[3] * s.orientation[3]);
    int32_t n = 0;
    ctn_world_get_contacts(w, NULL, 0, &n);
    printf("dumbbell: rests at y %.5f (0.1), tilted %.3g rad, %d contacts\n", s.position[1], tilt, (int)n);
    CHECK(fabs(s.position[1] - 0.1) < 2e-3 && tilt < 1e-2, "dumbbell at y %g, tilted %g rad", s.position[1], tilt);
    CHECK(n >= 2, "both end spheres touch the floor (%d contacts)", (int)n);
    ctn_world_destroy(w);
}

/* A compound on a compound: a static body holding two boxes, the second 1 m along x and 0.4 m higher; a
 * ball body with two spheres dropped over that second box comes to rest on it (centre at 0.4 + 0.1 + 0.1). */
static void check_compound_pair(void) {
    ctn_world *w = cpu_world();
    if (!w) return;
    ctn_body_desc sd = ctn_body_desc_default();
    sd.type = CTN_BODY_STATIC;
    ctn_body_id ground = CTN_NULL_BODY;
    ctn_body_add(w, &sd, &ground);
    ctn_shape_desc b0 = ctn_shape_desc_default(CTN_SHAPE_BOX), b1 = b0;
    b0.half_extents[0] = b0.half_extents[2] = 0.3, b0.half_extents[1] = 0.1;
    b1 = b0;
    b1.offset[0] = 1.0, b1.offset[1] = 0.4;
    ctn_body_add_shape(w, ground, &b0, NULL);
    ctn_body_add_shape(w, ground, &b1, NULL);
    ctn_body_id ball = add_ball_body(w, 1.0, 1.0, 0.0);
    ctn_shape_desc s0 = sphere_at(0.1, 0.1, 0, 0), s1 = sphere_at(0.1, -0.1, 0, 0);
    ctn_body_add_shape(w, ball, &s0, NULL);
    ctn_body_add_shape(w, ball, &s1, NULL);
    for (int k = 0; k < 150; ++k) CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_body_state s;
    ctn_body_get_state(w, ball, &s);
    printf("compound on compound: rests at y %.5f (0.6)\n", s.position[1]);
    CHECK(fabs(s.position[1] - 0.6) < 3e-3, "the two-sphere body rests on the second box at y %g (0.6)", s.position[1]);
    ctn_world_destroy(w);
}

/* Two worlds step alike for n steps: the largest difference of a position or orientation component (0:
 * bitwise), or 1e30 when they cannot be compared. */
static double step_difference(ctn_world *a, ctn_world *b, int n) {
    double worst = 0.0;
    for (int k = 0; k < n; ++k) {
        if (ctn_world_step(a) != CTN_OK || ctn_world_step(b) != CTN_OK) return 1e30;
        int nb = ctn_world_body_count(a);
        if (nb != ctn_world_body_count(b)) return 1e30;
        for (int i = 0; i < nb; ++i) {
            ctn_body_state sa, sb;
            ctn_body_get_state(a, ctn_body_id_from_int(a, i), &sa);
            ctn_body_get_state(b, ctn_body_id_from_int(b, i), &sb);
            for (int c = 0; c < 3; ++c) worst = fmax(worst, fabs(sa.position[c] - sb.position[c]));
            for (int c = 0; c < 4; ++c) worst = fmax(worst, fabs(sa.orientation[c] - sb.orientation[c]));
        }
    }
    return worst;
}

/* Scene files ("shapes") and checkpoints (the SHPX section) keep every shape: the reloaded worlds step
 * bitwise as the original. */
static void check_files(void) {
    ctn_world *w = cpu_world();
    if (!w) return;
    const double up[3] = {0, 1, 0};
    ctn_world_add_plane(w, up, 0.0, 0.8, 0.0, NULL);
    ctn_body_id b = add_ball_body(w, 0, 0.4, 0);
    ctn_shape_desc a = sphere_at(0.1, 0.3, 0, 0), c = ctn_shape_desc_default(CTN_SHAPE_CAPSULE);
    c.radius = 0.05, c.half_length = 0.2, c.offset[0] = -0.3, c.rotation[0] = 0.92388, c.rotation[3] = 0.38268;
    c.group = 3;
    CHECK(ctn_body_add_shape(w, b, &a, NULL) == CTN_OK && ctn_body_add_shape(w, b, &c, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_body_id single = add_ball_body(w, 2, 0.4, 0);
    ctn_body_set_shape(w, single, &a);
    for (int k = 0; k < 20; ++k) ctn_world_step(w);

    const char *scene = "compound_shape.json", *ck = "compound_shape.ckpt"; /* in the test's working directory */
    CHECK(ctn_scene_save_json(w, scene) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_world_save(w, ck, 20, NULL) == CTN_OK, "%s", ctn_world_last_error(w));

    ctn_world *ws = cpu_world(), *wc = NULL;
    char err[512];
    CHECK(ws && ctn_scene_load_json(ws, scene, err, sizeof err) == CTN_OK, "scene reload: %s", err);
    CHECK(ctn_world_load(ck, NULL, &wc, NULL, err, sizeof err) == CTN_OK, "checkpoint reload: %s", err);
    int32_t ns = 0, nc = 0;
    ctn_shape_desc got;
    if (ws) {
        ctn_body_shape_count(ws, ctn_body_id_from_int(ws, 0), &ns);
        CHECK(ns == 2 && ctn_body_get_shape_at(ws, ctn_body_id_from_int(ws, 0), 1, &got) == CTN_OK && got.type == CTN_SHAPE_CAPSULE &&
                  got.group == 3 && fabs(got.offset[0] + 0.3) < 1e-6 && fabs(got.rotation[3] - 0.38268) < 1e-4,
              "the scene file keeps both shapes (%d), the capsule placed (group %d, x %g, qz %g)", (int)ns, got.group, got.offset[0],
              got.rotation[3]);
    }
    if (wc) {
        ctn_body_shape_count(wc, ctn_body_id_from_int(wc, 0), &nc);
        CHECK(nc == 2, "the checkpoint keeps both shapes (%d)", (int)nc);
        double diff = step_difference(w, wc, 60);
        CHECK(diff == 0.0, "the checkpoint's world steps bitwise as the original (difference %g)", diff);
    }
    /* a world without compounds writes no SHPX section: the bytes checkpoints had before it */
    ctn_body_remove_shape(w, b, 1);
    CHECK(ctn_world_save(w, ck, 20, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    FILE *f = fopen(ck, "rb");
    int found = 0;
    if (f) {
        char buf[4096];
        size_t got_n;
        while ((got_n = fread(buf, 1, sizeof buf, f)) > 0)
            for (size_t i = 0; i + 4 <= got_n; ++i) found |= !memcmp(buf + i, "SHPX", 4);
        fclose(f);
    }
    CHECK(!found, "no SHPX section without compound shapes");
    if (!check_failures) {
        remove(scene);
        remove(ck);
    }
    ctn_world_destroy(ws);
    ctn_world_destroy(wc);
    ctn_world_destroy(w);
}

int main(void) {
    check_api();
    check_dumbbell();
    check_compound_pair();
    check_files();
    return check_report("test_compound_shape");
}
