/* Collision groups (ctn_shape_desc.group): two overlapping spheres in one nonzero group make no contact, the
 * same pair in different groups (or group 0) does; a negative group is refused, naming the field, and leaves
 * the shape as it was; a URDF robot's links share one fresh group by default, so the 50-link snake
 * (examples/snake_50.urdf) makes no contacts with itself and holds its joints closer than with
 * self-collision on (ctn_scene_load_urdf_ex); a checkpoint keeps the groups (a resumed snake continues
 * bitwise); a checkpoint written before shapes had groups still loads (group 0); scene files read and
 * write "group". The URDF checks exit 77 (skipped) in a build without urdfdom. */
#include "catena/catena.h"
#include "ids.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static ctn_world *cpu_world(const double gravity[3]) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    if (gravity) memcpy(d.gravity, gravity, sizeof d.gravity);
    ctn_world *w = NULL;
    char err[512];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        fprintf(stderr, "world: %s\n", err);
        exit(1);
    }
    return w;
}

static int contacts_of(ctn_world *w) {
    int n = 0;
    ctn_world_get_contacts(w, NULL, 0, &n);
    return n;
}

/* Two unit-mass spheres of radius 0.1 m overlapping by 2 cm, no gravity, groups ga and gb: the contacts of
 * one step. */
static int sphere_pair_contacts(int ga, int gb) {
    const double zero[3] = {0, 0, 0};
    ctn_world *w = cpu_world(zero);
    ctn_shape_desc s = ctn_shape_desc_default(CTN_SHAPE_SPHERE);
    s.radius = 0.1;
    for (int k = 0; k < 2; ++k) {
        ctn_body_desc d = ctn_body_desc_default();
        d.position[0] = 0.18 * k;
        ctn_body_id id;
        CHECK(ctn_body_add(w, &d, &id) == CTN_OK, "%s", ctn_world_last_error(w));
        s.group = k ? gb : ga;
        CHECK(ctn_body_set_shape(w, id, &s) == CTN_OK, "group %d: %s", s.group, ctn_world_last_error(w));
        ctn_shape_desc back;
        CHECK(ctn_body_get_shape(w, id, &back) == CTN_OK && back.group == s.group, "the getter gives group %d back, got %d", s.group,
              back.group);
    }
    CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    int n = contacts_of(w);
    ctn_world_destroy(w);
    return n;
}

static void check_pairs(void) {
    int same = sphere_pair_contacts(3, 3), differ = sphere_pair_contacts(3, 4), none = sphere_pair_contacts(0, 0),
        one = sphere_pair_contacts(3, 0);
    printf("overlapping spheres: contacts %d (same group), %d (groups 3, 4), %d (no group), %d (groups 3, 0)\n", same, differ, none, one);
    CHECK(same == 0, "two shapes of one group collide: %d contacts", same);
    CHECK(differ > 0 && none > 0 && one > 0, "the pair in different groups must collide: %d, %d, %d contacts", differ, none, one);
}

static void check_refused(void) {
    ctn_world *w = cpu_world(NULL);
    ctn_body_desc d = ctn_body_desc_default();
    ctn_body_id id;
    ctn_body_add(w, &d, &id);
    ctn_shape_desc s = ctn_shape_desc_default(CTN_SHAPE_SPHERE);
    s.group = 2;
    CHECK(ctn_body_set_shape(w, id, &s) == CTN_OK, "%s", ctn_world_last_error(w));
    s.group = -1;
    s.radius = 0.25;
    CHECK(ctn_body_set_shape(w, id, &s) == CTN_ERR_INVALID_ARGUMENT, "group -1 must be refused");
    const char *e = ctn_world_last_error(w);
    CHECK(strstr(e, "shape.group") && strstr(e, "-1"), "the error names the field and value: %s", e);
    ctn_shape_desc back;
    ctn_body_get_shape(w, id, &back);
    CHECK(back.group == 2 && back.radius == 0.5, "a refused shape leaves the old one: group %d radius %g", back.group, back.radius);
    ctn_world_destroy(w);
}

/* A scene file's "group" is read, written by ctn_scene_save_json and read back. */
static void check_scene_json(void) {
    char path[64], saved[64], err[1024];
    snprintf(path, sizeof path, "test_groups_%ld.json", (long)getpid());
    snprintf(saved, sizeof saved, "test_groups_saved_%ld.json", (long)getpid());
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputs("{\"bodies\": [{\"mass\": 1, \"shape\": {\"sphere\": 0.1, \"group\": 7}}, {\"mass\": 1, \"position\": [0.18, 0, 0], "
          "\"shape\": {\"sphere\": 0.1}}]}\n",
          f);
    fclose(f);
    ctn_world *w = cpu_world(NULL);
    CHECK(ctn_scene_load_json(w, path, err, sizeof err) == CTN_OK, "%s", err);
    ctn_shape_desc a, b;
    ctn_body_get_shape(w, HBODY(w, 0), &a);
    ctn_body_get_shape(w, HBODY(w, 1), &b);
    CHECK(a.group == 7 && b.group == 0, "scene groups: %d, %d", a.group, b.group);
    CHECK(ctn_scene_save_json(w, saved) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_world *r = cpu_world(NULL);
    CHECK(ctn_scene_load_json(r, saved, err, sizeof err) == CTN_OK, "%s", err);
    ctn_body_get_shape(r, HBODY(r, 0), &a);
    ctn_body_get_shape(r, HBODY(r, 1), &b);
    CHECK(a.group == 7 && b.group == 0, "saved and loaded scene groups: %d, %d", a.group, b.group);
    f = fopen(path, "w");
    fputs("{\"bodies\": [{\"mass\": 1, \"shape\": {\"sphere\": 0.1, \"group\": -2}}]}\n", f);
    fclose(f);
    ctn_world *bad = cpu_world(NULL);
    CHECK(ctn_scene_load_json(bad, path, err, sizeof err) != CTN_OK && strstr(err, "group"), "a negative group is refused: %s", err);
    CHECK(ctn_world_body_count(bad) == 0, "a refused scene adds nothing");
    ctn_world_destroy(w), ctn_world_destroy(r), ctn_world_destroy(bad);
    remove(path), remove(saved);
}

/* A checkpoint written before shapes had a group (tests/fuzz/checkpoint/pile_6_raw.bin: the fuzz harness's
 * byte, then the file) loads, its shapes in group 0, and steps on with its contacts. */
static void check_old_checkpoint(void) {
    FILE *in = fopen(CATENA_SOURCE_DIR "/tests/fuzz/checkpoint/pile_6_raw.bin", "rb");
    CHECK(in != NULL, "tests/fuzz/checkpoint/pile_6_raw.bin");
    if (!in) return;
    char path[64], err[1024];
    snprintf(path, sizeof path, "test_groups_old_%ld.ckpt", (long)getpid());
    FILE *out = fopen(path, "wb");
    fgetc(in);
    for (int c; (c = fgetc(in)) != EOF;) fputc(c, out);
    fclose(in), fclose(out);
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    ctn_world *w = NULL;
    ctn_checkpoint_info info;
    CHECK(ctn_world_load(path, &d, &w, &info, err, sizeof err) == CTN_OK, "old checkpoint: %s", err);
    remove(path);
    if (!w) return;
    /* written before ctn_world_desc grew rattle_max_joints (its last field): the settings before it are read
     * in place, the field is 0 (the default) */
    CHECK(info.desc.rattle_max_joints == 0 && info.desc.time_step > 0.0 && info.desc.time_step <= 10.0 && info.desc.iterations >= 1 &&
              (int)info.desc.integrator >= 0 && (int)info.desc.integrator <= 1,
          "old settings: rattle_max_joints %d, time_step %g, iterations %d", info.desc.rattle_max_joints, info.desc.time_step,
          info.desc.iterations);
    int shapes = 0, planes = 0, grouped = 0;
    ctn_world_collision_counts(w, &shapes, &planes);
    for (int b = 0; b < ctn_world_body_count(w); ++b) {
        ctn_shape_desc s;
        if (ctn_body_get_shape(w, HBODY(w, b), &s) == CTN_OK) grouped += s.group != 0;
    }
    CHECK(shapes >= 6 && planes >= 1 && grouped == 0, "old pile: %d shapes, %d planes, %d in a group", shapes, planes, grouped);
    for (int s = 0; s < 10; ++s) CHECK(ctn_world_step(w) == CTN_OK, "old pile step %d: %s", s, ctn_world_last_error(w));
    CHECK(contacts_of(w) > 0, "the old pile still rests on its contacts");
    ctn_world_destroy(w);
}

static const double z_down[3] = {0, 0, -9.81};

/* The snake of examples/snake_50.urdf under z-up gravity for `steps` steps: contacts after the last step
 * (all between its own links: the world has no plane), the worst joint gap and the worst joint angle error
 * (limit excursions included: every joint of the snake is a limited, motorised hinge) over the run. */
static double snake_angle; /* the last run's worst angle error */
static int snake_run(int self_collision, int steps, ctn_solver solver, int *contacts, double *worst_gap, ctn_world **keep) {
    ctn_world *w = cpu_world(z_down);
    ctn_world_desc wd;
    ctn_world_get_desc(w, &wd);
    wd.solver = solver;
    ctn_world_set_desc(w, &wd);
    char msg[4096];
    ctn_status st = ctn_scene_load_urdf_ex(w, CATENA_SOURCE_DIR "/examples/snake_50.urdf", self_collision, msg, sizeof msg);
    if (st == CTN_ERR_UNSUPPORTED) {
        ctn_world_destroy(w);
        return 0;
    }
    CHECK(st == CTN_OK, "snake_50.urdf: %s", msg);
    ctn_shape_desc s;
    ctn_body_get_shape(w, HBODY(w, 0), &s);
    int g0 = s.group, same = 1;
    for (int b = 0; b < 50; ++b) {
        ctn_body_get_shape(w, HBODY(w, b), &s);
        same &= s.group == g0;
    }
    CHECK(same && (self_collision ? g0 == 0 : g0 == 1), "self_collision %d: the links' group is %d (every link the same: %d)", self_collision,
          g0, same);
    *worst_gap = 0;
    snake_angle = 0;
    int most = 0;
    for (int k = 0; k < steps; ++k) {
        CHECK(ctn_world_step(w) == CTN_OK, "snake step %d: %s", k, ctn_world_last_error(w));
        double gap = 0, angle = 0;
        ctn_world_measure(w, &gap, &angle);
        if (gap > *worst_gap) *worst_gap = gap;
        if (angle > snake_angle) snake_angle = angle;
        int n = contacts_of(w);
        if (n > most) most = n;
    }
    *contacts = most;
    if (keep) *keep = w;
    else ctn_world_destroy(w);
    return 1;
}

static int check_snake(void) {
    int off = 0, on = 0;
    double gap_off = 0, gap_on = 0;
    if (!snake_run(0, 60, CTN_SOLVER_AUTO, &off, &gap_off, NULL)) return 0;
    double angle_off = snake_angle;
    snake_run(1, 60, CTN_SOLVER_AUTO, &on, &gap_on, NULL);
    printf("snake_50.urdf, 60 steps under (0, 0, -9.81), solver auto: most self-contacts %d, worst joint gap %.3g m by default; %d, "
           "%.3g m with self-collision\n",
           off, gap_off, on, gap_on);
    CHECK(off == 0, "by default the snake's links must not collide with each other: %d contacts", off);
    /* The exact solve keeps the limited, motorised hinges (bounded_rows auto: the active set, and the
     * projection's one-sided limit rows): 7.9e-8 m and 6.0e-8 rad over 60 steps, 1.2e-7 m and 1.2e-7 rad
     * over 600 (measured at 38ebbb5); the hybrid's sweep left 7.3e-4 m over 120 steps. */
    printf("  worst joint angle error without self-collision: %.3g rad\n", angle_off);
    CHECK(gap_off <= 1e-6 && angle_off <= 1e-5, "the snake holds its joints: worst gap %.3g m (<= 1e-6), angle %.3g rad (<= 1e-5)", gap_off,
          angle_off);
    CHECK(on > 0, "with self-collision the snake's links must touch: %d contacts", on);
    CHECK(gap_off <= gap_on, "self-contacts can only pry the joints open: worst gap %.3g m without them, %.3g m with", gap_off, gap_on);
    /* over 600 steps the swinging snake folds onto itself: the contacts between its links then push on them */
    snake_run(0, 600, CTN_SOLVER_DIRECT, &off, &gap_off, NULL);
    angle_off = snake_angle;
    snake_run(1, 600, CTN_SOLVER_DIRECT, &on, &gap_on, NULL);
    printf("snake_50.urdf, 600 steps, solver direct: most self-contacts %d, worst joint gap %.3g m by default; %d, %.3g m with "
           "self-collision\n",
           off, gap_off, on, gap_on);
    CHECK(off == 0 && on > 0, "600 steps: %d self-contacts by default, %d with self-collision", off, on);
    printf("  worst joint angle error without self-collision: %.3g rad\n", angle_off);
    CHECK(gap_off <= 1e-6 && angle_off <= 1e-5, "600 steps: the snake holds its joints: worst gap %.3g m, angle %.3g rad", gap_off, angle_off);
    CHECK(gap_off < gap_on, "self-contacts pry the joints open: worst gap %.3g m without them, %.3g m with", gap_off, gap_on);

    /* a second robot gets the next group; self_collision other than 0 and 1 is refused */
    ctn_world *w = cpu_world(z_down);
    char msg[4096];
    ctn_scene_load_urdf(w, CATENA_SOURCE_DIR "/examples/snake_50.urdf", msg, sizeof msg);
    CHECK(ctn_scene_load_urdf(w, CATENA_SOURCE_DIR "/examples/snake_50.urdf", msg, sizeof msg) == CTN_OK, "%s", msg);
    ctn_shape_desc s;
    ctn_body_get_shape(w, HBODY(w, 99), &s);
    CHECK(s.group == 2, "the second robot's group: %d", s.group);
    CHECK(ctn_scene_load_urdf_ex(w, CATENA_SOURCE_DIR "/examples/snake_50.urdf", 2, msg, sizeof msg) == CTN_ERR_INVALID_ARGUMENT &&
              strstr(msg, "self_collision") && ctn_world_body_count(w) == 100,
          "self_collision 2 refused, world unchanged: %s", msg);
    ctn_world_destroy(w);
    return 1;
}

/* The snake saved at step 20 and resumed for 40 steps ends bitwise where the uninterrupted run does; the
 * loaded links keep their group, and the resumed snake makes no contacts with itself. */
static void check_checkpoint_keeps_group(void) {
    int contacts;
    double gap;
    ctn_world *w = NULL;
    if (!snake_run(0, 20, CTN_SOLVER_AUTO, &contacts, &gap, &w)) return;
    char path[64], err[1024];
    snprintf(path, sizeof path, "test_groups_%ld.ckpt", (long)getpid());
    CHECK(ctn_world_save(w, path, 20, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_world *r = NULL;
    CHECK(ctn_world_load(path, NULL, &r, NULL, err, sizeof err) == CTN_OK, "load: %s", err);
    remove(path);
    if (!r) {
        ctn_world_destroy(w);
        return;
    }
    ctn_shape_desc s;
    ctn_body_get_shape(r, HBODY(r, 49), &s);
    CHECK(s.group == 1, "the loaded link's group: %d", s.group);
    for (int k = 0; k < 40; ++k) {
        CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        CHECK(ctn_world_step(r) == CTN_OK, "%s", ctn_world_last_error(r));
        CHECK(contacts_of(r) == 0, "the resumed snake's links collide: %d contacts", contacts_of(r));
    }
    double a[150], b[150];
    int na = 0, nb = 0;
    ctn_world_get_positions(w, a, 50, &na);
    ctn_world_get_positions(r, b, 50, &nb);
    CHECK(na == 50 && nb == 50 && memcmp(a, b, sizeof a) == 0, "the resumed snake continues bitwise");
    ctn_world_destroy(w);
    ctn_world_destroy(r);
}

int main(void) {
    check_pairs();
    check_refused();
    check_scene_json();
    check_old_checkpoint();
    int urdf = check_snake();
    if (urdf) check_checkpoint_keeps_group();
    int rc = check_report("test_collision_groups");
    return rc || urdf ? rc : check_skip("test_collision_groups", "this build has no URDF support");
}
