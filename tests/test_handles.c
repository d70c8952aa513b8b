/* Generation-checked handles: a freed slot is reused, a stale handle is refused with CTN_ERR_NOT_FOUND and a
 * message naming it, and a pipeline that adds and removes contacts every step keeps the slot range (and so
 * the cost of each topology rebuild, a pass over the slots) at the most it held at once. Failed removals
 * check before they change anything: the world evolves bitwise as if they had not been called. */
#include "catena/catena.h"
#include "ids.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

static ctn_world *make_world(void) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.threads = 1;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "create: %s", err);
    return w;
}

static ctn_body_id add_sphere(ctn_world *w, double x, double y) {
    ctn_body_desc b = ctn_body_desc_default();
    b.position[0] = x, b.position[1] = y;
    ctn_inertia_sphere(b.mass, 0.05, b.inertia);
    ctn_body_id id = CTN_NULL_BODY;
    CHECK(ctn_body_add(w, &b, &id) == CTN_OK, "body add: %s", ctn_world_last_error(w));
    return id;
}

static void stale_handles(void) {
    ctn_world *w = make_world();
    ctn_body_id a = add_sphere(w, 0, 0), b = add_sphere(w, 1, 0);
    CHECK(ctn_body_index(a) == 0 && ctn_body_index(b) == 1 && ctn_body_generation(a) == 0, "first occupants are their indices: %lld %lld",
          ID_INT(a), ID_INT(b));
    CHECK(ctn_body_is_valid(w, a) && ctn_body_is_valid(w, b) && !ctn_body_is_valid(w, CTN_WORLD), "live handles are valid");
    CHECK(ctn_body_remove(w, a) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_body_id c = add_sphere(w, 2, 0);
    CHECK(ctn_body_index(c) == ctn_body_index(a) && ctn_body_generation(c) == 1 && !ID_EQ(a, c), "slot 0 reused with generation 1: %lld",
          ID_INT(c));
    CHECK(!ctn_body_is_valid(w, a) && ctn_body_is_valid(w, c), "the stale handle is invalid, the new one valid");
    ctn_body_state s;
    CHECK(ctn_body_get_state(w, a, &s) == CTN_ERR_NOT_FOUND, "stale body handle refused");
    CHECK(strstr(ctn_world_last_error(w), "stale") && strstr(ctn_world_last_error(w), "handle 0"), "message: %s",
          ctn_world_last_error(w));
    CHECK(ctn_body_get_state(w, c, &s) == CTN_OK && s.position[0] == 2.0, "the new body answers to its handle");
    CHECK(ctn_body_remove(w, a) == CTN_ERR_NOT_FOUND, "removing through a stale handle is refused");
    CHECK(ctn_world_body_count(w) == 2, "still two bodies: %d", ctn_world_body_count(w));
        CHECK(ctn_body_get_state(w, HBODY(w, (int64_t)7 << 32 | 1), &s) == CTN_ERR_NOT_FOUND, "a generation never issued is refused");
    CHECK(ctn_body_get_state(w, HBODY(w, -5), &s) == CTN_ERR_INVALID_ARGUMENT, "negative integer refused (the null handle)");
    CHECK(ctn_body_get_state(w, CTN_NULL_BODY, &s) == CTN_ERR_INVALID_ARGUMENT && strstr(ctn_world_last_error(w), "null"), "null handle: %s",
          ctn_world_last_error(w));
    ctn_body_id at = CTN_NULL_BODY;
    CHECK(ctn_world_body_at(w, 0, &at) == CTN_OK && ID_EQ(at, c), "slot 0 holds %lld", ID_INT(at));

    /* joints: the same */
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_DISTANCE);
    jd.body_a = b, jd.body_b = c;
    ctn_joint_id j1 = CTN_NULL_JOINT, j2 = CTN_NULL_JOINT;
    CHECK(ctn_joint_add(w, &jd, &j1) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_joint_remove(w, j1) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_joint_add(w, &jd, &j2) == CTN_OK && ctn_joint_index(j2) == ctn_joint_index(j1) && !ID_EQ(j2, j1), "joint slot reused: %lld %lld",
          ID_INT(j1), ID_INT(j2));
    CHECK(!ctn_joint_is_valid(w, j1) && ctn_joint_is_valid(w, j2), "stale joint invalid, new one valid");
    double imp[6];
    CHECK(ctn_joint_get_impulse(w, j1, imp, NULL) == CTN_ERR_NOT_FOUND && strstr(ctn_world_last_error(w), "stale"), "stale joint: %s",
          ctn_world_last_error(w));
    CHECK(ctn_joint_remove(w, j1) == CTN_ERR_NOT_FOUND, "stale joint removal refused");
    CHECK(ctn_world_joint_count(w) == 1, "one joint: %d", ctn_world_joint_count(w));
    /* a handle of a removed body in a joint description is refused too */
    jd.body_b = a;
    CHECK(ctn_joint_add(w, &jd, NULL) == CTN_ERR_NOT_FOUND, "joint on a stale body handle");
    ctn_world_destroy(w);
}

/* Generations are modulo 65536 (the handle's 16 bits): the 65536th reuse of a slot gives generation 0 again,
 * and the slot's first handle names its occupant then, for bodies and joints alike. */
static void generations_wrap(void) {
    ctn_world *w = make_world();
    ctn_body_id first = add_sphere(w, 0, 0), other = add_sphere(w, 1, 0), a = first;
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_DISTANCE);
    jd.body_a = other, jd.body_b = CTN_WORLD;
    ctn_joint_id jfirst = CTN_NULL_JOINT, j;
    CHECK(ctn_joint_add(w, &jd, &jfirst) == CTN_OK, "%s", ctn_world_last_error(w));
    j = jfirst;
    for (int k = 1; k <= 65536; ++k) {
        if (ctn_body_remove(w, a) != CTN_OK || ctn_joint_remove(w, j) != CTN_OK) break;
        a = add_sphere(w, 0, 0);
        CHECK(ctn_joint_add(w, &jd, &j) == CTN_OK, "%s", ctn_world_last_error(w));
        if (ctn_body_generation(a) != (k & 0xffff) || ctn_joint_generation(j) != (k & 0xffff)) {
            CHECK(0, "reuse %d: generations %d %d", k, (int)ctn_body_generation(a), (int)ctn_joint_generation(j));
            break;
        }
        if (k == 65535) CHECK(!ctn_body_is_valid(w, first) && !ctn_joint_is_valid(w, jfirst), "generation 65535 is not the first");
    }
    CHECK(ctn_body_index(a) == 0 && ctn_body_generation(a) == 0 && ID_EQ(a, first) && ctn_body_is_valid(w, first),
          "after 65536 reuses the slot's first handle names it again: %lld", ID_INT(a));
    CHECK(ctn_joint_generation(j) == 0 && ID_EQ(j, jfirst) && ctn_joint_is_valid(w, jfirst), "the same for the joint: %lld", ID_INT(j));
    CHECK(ctn_world_body_count(w) == 2 && ctn_world_joint_count(w) == 1, "no slot leaked: %d bodies, %d joints", ctn_world_body_count(w),
          ctn_world_joint_count(w));
    ctn_world_destroy(w);
}

/* A user collision pipeline: 1000 contacts added before and removed after every step. */
static void contact_churn(void) {
    ctn_world *w = make_world();
    enum { BODIES = 100, CONTACTS = 1000, STEPS = 300 };
    ctn_body_id body[BODIES];
    for (int i = 0; i < BODIES; ++i) body[i] = add_sphere(w, 0.2 * i, 0.05);
    ctn_joint_id *ids = malloc(CONTACTS * sizeof *ids);
    int max_slots = 0;
    for (int step = 0; step < STEPS; ++step) {
        for (int k = 0; k < CONTACTS; ++k) {
            ctn_contact_desc cd = ctn_contact_desc_default();
            cd.body_a = body[k % BODIES];
            cd.body_b = CTN_WORLD;
            cd.point[0] = 0.2 * (k % BODIES), cd.point[1] = 0.0;
            cd.depth = 0.0;
            if (ctn_contact_add(w, &cd, &ids[k]) != CTN_OK) {
                CHECK(0, "step %d contact %d: %s", step, k, ctn_world_last_error(w));
                break;
            }
        }
        CHECK(ctn_world_step(w) == CTN_OK, "step %d: %s", step, ctn_world_last_error(w));
        for (int k = 0; k < CONTACTS; ++k) ctn_contact_remove(w, ids[k]);
        int nb = 0, nj = 0;
        ctn_world_id_counts(w, &nb, &nj);
        if (nj > max_slots) max_slots = nj;
    }
    /* 300,000 contacts were issued; without reuse the slot range (and every rebuild) would grow with them */
    CHECK(max_slots == CONTACTS, "joint slot range %d after %d steps of %d contacts", max_slots, STEPS, CONTACTS);
    CHECK(ctn_world_joint_count(w) == 0, "no live joints left: %d", ctn_world_joint_count(w));
    /* bodies churn the same way */
    for (int round = 0; round < 100; ++round) {
        ctn_body_id extra = add_sphere(w, 0, 5);
        CHECK(ctn_body_remove(w, extra) == CTN_OK, "%s", ctn_world_last_error(w));
    }
    int nb = 0;
    ctn_world_id_counts(w, &nb, NULL);
    CHECK(nb == BODIES + 1, "body slot range %d after 100 add/remove rounds", nb);
    printf("contact churn: %d steps x %d contacts, joint slot range %d, body slot range %d\n", STEPS, CONTACTS, max_slots, nb);
    free(ids);
    ctn_world_destroy(w);
}

/* Spheres on a floor, one of them also hanging from a distance joint; built identically twice. */
static ctn_world *contact_scene(ctn_body_id *jointed, ctn_joint_id *joint) {
    ctn_world *w = make_world();
    double up[3] = {0, 1, 0};
    CHECK(ctn_world_add_plane(w, up, 0.0, 0.5, 0.0, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_shape_desc sd = ctn_shape_desc_default(CTN_SHAPE_SPHERE);
    sd.radius = 0.05;
    for (int i = 0; i < 8; ++i) {
        ctn_body_id b = add_sphere(w, 0.09 * i, 0.06 + 0.02 * (i % 3));
        CHECK(ctn_body_set_shape(w, b, &sd) == CTN_OK, "%s", ctn_world_last_error(w));
        if (i == 3) *jointed = b;
    }
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_DISTANCE);
    jd.body_a = *jointed;
    jd.body_b = CTN_WORLD;
    jd.anchor_b[0] = 0.27, jd.anchor_b[1] = 1.0;
    CHECK(ctn_joint_add(w, &jd, joint) == CTN_OK, "%s", ctn_world_last_error(w));
    for (int s = 0; s < 20; ++s) ctn_world_step(w); /* settle into contact with the floor and neighbours */
    return w;
}

static int same_positions(ctn_world *a, ctn_world *b) {
    int na = 0, nb = 0;
    ctn_world_id_counts(a, &na, NULL);
    ctn_world_id_counts(b, &nb, NULL);
    if (na != nb) return 0;
    double *xa = calloc(3 * (size_t)na, sizeof *xa), *xb = calloc(3 * (size_t)na, sizeof *xb);
    ctn_world_get_positions(a, xa, na, NULL);
    ctn_world_get_positions(b, xb, nb, NULL);
    int same = memcmp(xa, xb, 3 * (size_t)na * sizeof *xa) == 0;
    free(xa);
    free(xb);
    return same;
}

static void failed_remove_changes_nothing(void) {
    ctn_body_id jointed, jointed2;
    ctn_joint_id joint, joint2;
    ctn_world *w = contact_scene(&jointed, &joint), *twin = contact_scene(&jointed2, &joint2);
    int before = 0;
    ctn_world_get_contacts(w, NULL, 0, &before);
    CHECK(before > 0, "the jointed sphere touches something: %d contacts", before);
    /* the joint keeps the body in use: refused, and nothing of the body (its shape, its contacts) is dropped */
    CHECK(ctn_body_remove(w, jointed) == CTN_ERR_IN_USE, "remove of a jointed body");
    CHECK(strstr(ctn_world_last_error(w), "1 joint"), "message: %s", ctn_world_last_error(w));
    int after = 0;
    ctn_world_get_contacts(w, NULL, 0, &after);
    CHECK(after == before, "contacts %d before the failed remove, %d after", before, after);
    /* the built-in contacts are not the user's to remove */
    ctn_contact_info ci;
    int n = 0;
    ctn_world_get_contacts(w, &ci, 1, &n);
    CHECK(n > 0 && ctn_joint_remove(w, ci.joint) == CTN_ERR_INVALID_ARGUMENT, "built-in contact removal refused");
    for (int s = 0; s < 30; ++s) {
        ctn_world_step(w);
        ctn_world_step(twin);
    }
    CHECK(same_positions(w, twin), "the world after failed calls steps bitwise like its twin");
    /* once the joint is gone the body goes, with its shape and built-in contacts */
    CHECK(ctn_joint_remove(w, joint) == CTN_OK && ctn_body_remove(w, jointed) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_world_destroy(w);
    ctn_world_destroy(twin);
}

/* Handles carry their world: a handle of another world is refused naming both worlds, even when the other
 * world has a live body in the same slot with the same generation. */
static void foreign_handles(void) {
    ctn_world *w = make_world(), *v = make_world();
    CHECK(ctn_world_tag(w) != ctn_world_tag(v) && ctn_world_tag(w) > 0 && ctn_world_tag(v) > 0, "two live worlds, two tags: %d %d",
          ctn_world_tag(w), ctn_world_tag(v));
    ctn_body_id a = add_sphere(w, 0, 0), b = add_sphere(w, 1, 0), va = add_sphere(v, 0, 0);
    CHECK(ctn_body_index(a) == ctn_body_index(va) && ctn_body_generation(a) == ctn_body_generation(va) && !ID_EQ(a, va),
          "same slot and generation, different worlds");
    ctn_body_state s;
    CHECK(ctn_body_get_state(v, b, &s) == CTN_ERR_INVALID_ARGUMENT, "a handle of another world (its slot is free there)");
    CHECK(ctn_body_get_state(v, a, &s) == CTN_ERR_INVALID_ARGUMENT, "a handle of another world (its slot is live there)");
    char want[64];
    snprintf(want, sizeof want, "belongs to world %d", ctn_world_tag(w));
    CHECK(strstr(ctn_world_last_error(v), want) != NULL, "message names the world: %s", ctn_world_last_error(v));
    CHECK(!ctn_body_is_valid(v, a) && ctn_body_is_valid(w, a), "is_valid is per world");
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_DISTANCE);
    jd.body_a = a, jd.body_b = b;
    ctn_joint_id j = CTN_NULL_JOINT;
    CHECK(ctn_joint_add(w, &jd, &j) == CTN_OK, "%s", ctn_world_last_error(w));
    jd.body_a = va;
    int nj = ctn_world_joint_count(w);
    CHECK(ctn_joint_add(w, &jd, NULL) == CTN_ERR_INVALID_ARGUMENT && ctn_world_joint_count(w) == nj, "a joint desc naming another world's body");
    double imp[6];
    CHECK(ctn_joint_get_impulse(v, j, imp, NULL) == CTN_ERR_INVALID_ARGUMENT && !ctn_joint_is_valid(v, j) && ctn_joint_is_valid(w, j),
          "a joint handle of another world");
    /* storing: the 64-bit form keeps all fields; the integer form is world-free and comes back per world */
    CHECK(ID_EQ(ctn_body_id_from_u64(ctn_body_id_to_u64(b)), b) && ID_EQ(ctn_joint_id_from_u64(ctn_joint_id_to_u64(j)), j), "u64 round trip");
    CHECK(ID_EQ(ctn_body_id_from_int(w, ctn_body_id_to_int(b)), b) && ID_EQ(ctn_joint_id_from_int(w, ctn_joint_id_to_int(j)), j),
          "integer round trip");
    CHECK(ctn_body_id_to_int(CTN_WORLD) == -1 && ID_EQ(ctn_body_id_from_int(w, -1), CTN_WORLD) && ctn_body_id_to_int(CTN_NULL_BODY) == -2 &&
              ctn_body_is_null(ctn_body_id_from_int(w, -2)),
          "CTN_WORLD is -1, the null handle -2");
    ctn_body_id zero;
    memset(&zero, 0, sizeof zero);
    CHECK(ctn_body_is_null(zero) && ID_EQ(zero, CTN_NULL_BODY) && !ctn_body_is_null(CTN_WORLD) && ctn_body_is_world(CTN_WORLD),
          "a zeroed handle is null");
    /* a destroyed world's tag does not come back at once: its handles stay refused by the next worlds */
    int old_tag = ctn_world_tag(v);
    ctn_world_destroy(v);
    ctn_world *u = make_world();
    CHECK(ctn_world_tag(u) != old_tag, "a new world does not reuse the tag just freed (%d)", old_tag);
    CHECK(ctn_body_get_state(u, ctn_body_id_offset(va, 0), &s) == CTN_ERR_INVALID_ARGUMENT, "a dead world's handle");
    ctn_world_destroy(u);
    ctn_world_destroy(w);
}

int main(void) {
    stale_handles();
    foreign_handles();
    contact_churn();
    failed_remove_changes_nothing();
    generations_wrap();
    return check_report("handles");
}
