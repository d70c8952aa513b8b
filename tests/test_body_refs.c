/* The count of live joints on each body (ctn_world.body_refs, host/core/body.c ctn__body_refs): held only from the
 * first body removal on, which asks it.
 *  - a chain built and stepped holds none; the first ctn_body_remove counts them and refuses a linked body with
 *    the count in its message, leaving the world as it was;
 *  - from then on joint removal and insertion keep the counts equal to a recount, and a body whose joints are
 *    gone is removed;
 *  - a checkpoint holds the counts whether the world kept them or not: the two files are the same bytes, the
 *    save leaves a world without counts without them, and the loaded world holds none and refuses a linked
 *    body's removal as the original does;
 *  - the slot generations (body_gen, joint_gen) likewise exist only from the first removal on: a reused slot's
 *    handle has generation 1 and the old one is stale, also after a checkpoint. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "check.h"
#include "fixtures.h"
#include "core/world.h"
#include "ids.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { LINKS = 8 };

static ctn_world *chain_world(ctn_body_id *first) {
    ctn_world_desc d = fixture_cpu_desc(1);
    return fixture_chain_from(&d, LINKS, first);
}

/* Whether w's counts equal a recount over its live joints. */
static int counts_right(const ctn_world *w) {
    if (!w->body_refs) return 0;
    int ok = 1;
    for (int b = 0; b < w->body_count; ++b) {
        int n = 0;
        for (int j = 0; j < w->joint_count; ++j)
            if (w->joint_alive[j]) n += (ctn__jcore(w, j)->a == b) + (ctn__jcore(w, j)->b == b);
        ok = ok && n == w->body_refs[b];
    }
    return ok;
}

static long file_bytes(const char *path, unsigned char **out) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *out = malloc(n > 0 ? (size_t)n : 1);
    if (!*out || fread(*out, 1, (size_t)n, f) != (size_t)n) n = -1;
    fclose(f);
    return n;
}

int main(void) {
    ctn_body_id first;
    ctn_world *w = chain_world(&first);
    if (!w) return check_report("body_refs");
    for (int k = 0; k < 3; ++k) CHECK(ctn_world_step(w) == CTN_OK, "step: %s", ctn_world_last_error(w));
    CHECK(w->body_refs == NULL && w->body_gen == NULL && w->joint_gen == NULL, "a chain built and stepped holds no joint counts and no generations");

    /* a checkpoint of a world without counts, and of the same world with them: the same bytes */
    char p1[64], p2[64];
    snprintf(p1, sizeof p1, "/tmp/test_body_refs_%d_a.ckpt", (int)getpid());
    snprintf(p2, sizeof p2, "/tmp/test_body_refs_%d_b.ckpt", (int)getpid());
    CHECK(ctn_world_save(w, p1, 3, NULL) == CTN_OK, "save: %s", ctn_world_last_error(w));
    CHECK(w->body_refs == NULL, "the save counts them for the file alone");
    CHECK(ctn__body_refs(w) == CTN_OK && counts_right(w), "counted");
    CHECK(ctn_world_save(w, p2, 3, NULL) == CTN_OK, "save: %s", ctn_world_last_error(w));
    CHECK(w->body_refs != NULL, "a world that holds them keeps them");
    unsigned char *b1 = NULL, *b2 = NULL;
    long n1 = file_bytes(p1, &b1), n2 = file_bytes(p2, &b2);
    CHECK(n1 > 0 && n1 == n2 && memcmp(b1, b2, (size_t)n1) == 0, "the two files are the same bytes (%ld, %ld)", n1, n2);
    free(b1), free(b2);

    /* the loaded world holds none, counts them at its first removal, and refuses a linked body */
    ctn_world *r = NULL;
    char err[256];
    CHECK(ctn_world_load(p1, NULL, &r, NULL, err, sizeof err) == CTN_OK, "load: %s", err);
    unlink(p1), unlink(p2);
    if (r) {
        CHECK(r->body_refs == NULL && r->body_gen == NULL, "a loaded world holds no counts, and no generations where all are 0");
        ctn_body_id mid = ID_IN(r, ctn_body_id_offset(first, 3));
        CHECK(ctn_body_remove(r, mid) == CTN_ERR_IN_USE && strstr(ctn_world_last_error(r), "used by 2 joint(s)"),
              "the loaded world refuses a linked body: %s", ctn_world_last_error(r));
        CHECK(counts_right(r), "the loaded world's counts");
        ctn_world_destroy(r);
    }

    ctn_world *v = chain_world(&first);
    if (!v) return check_report("body_refs");
    CHECK(ctn_world_step(v) == CTN_OK, "step");
    ctn_body_id last = ctn_body_id_offset(first, LINKS - 1);
    CHECK(ctn_body_remove(v, last) == CTN_ERR_IN_USE && strstr(ctn_world_last_error(v), "used by 1 joint(s)"), "the end link is refused: %s",
          ctn_world_last_error(v));
    CHECK(counts_right(v), "the first removal counted them");
    /* the end link's joint goes, a new joint between two links comes, the end link goes */
    int end_joint = -1;
    for (int j = 0; j < v->joint_count; ++j)
        if (v->joint_alive[j] && ctn__jcore(v, j)->a == (int)(ctn_body_id_to_int(last) & 0xffffffff)) end_joint = j;
    for (int j = 0; j < v->joint_count && end_joint < 0; ++j)
        if (v->joint_alive[j] && ctn__jcore(v, j)->b == (int)(ctn_body_id_to_int(last) & 0xffffffff)) end_joint = j;
    CHECK(end_joint >= 0, "the end link's joint");
    if (end_joint >= 0) CHECK(ctn_joint_remove(v, ctn__joint_handle(v, end_joint)) == CTN_OK, "joint remove: %s", ctn_world_last_error(v));
    CHECK(counts_right(v), "kept over a joint removal");
    CHECK(v->joint_gen != NULL && end_joint >= 0 && v->joint_gen[end_joint] == 1, "the joint removal made the joint generations and raised one");
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JT_DISTANCE);
    jd.body_a = ctn_body_id_offset(first, 1), jd.body_b = ctn_body_id_offset(first, 4);
    jd.rest_length = -1.0;
    ctn_joint_id jid;
    CHECK(ctn_joint_add(v, &jd, &jid) == CTN_OK, "joint add: %s", ctn_world_last_error(v));
    CHECK(ctn_joint_index(jid) == end_joint && ctn_joint_generation(jid) == 1 && ctn_joint_is_valid(v, jid), "the reused joint slot's handle has generation %d",
          (int)ctn_joint_generation(jid));
    CHECK(counts_right(v), "kept over a joint insertion");
    CHECK(ctn_world_step(v) == CTN_OK, "step");
    CHECK(v->body_gen != NULL, "the first removal made the generations");
    CHECK(ctn_body_remove(v, last) == CTN_OK, "a body without joints goes: %s", ctn_world_last_error(v));
    CHECK(counts_right(v), "kept over the body's removal");
    CHECK(!ctn_body_is_valid(v, last), "the removed body's handle is stale");
    /* its slot reused: generation 1, the old handle still stale, the new one valid */
    ctn_body_desc bd = ctn_body_desc_default();
    bd.mass = 1.0;
    bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 0.1;
    ctn_body_id again;
    CHECK(ctn_body_add(v, &bd, &again) == CTN_OK, "body add: %s", ctn_world_last_error(v));
    CHECK(ctn_body_index(again) == ctn_body_index(last) && ctn_body_generation(again) == 1 && ctn_body_is_valid(v, again) &&
              !ctn_body_is_valid(v, last),
          "the reused slot's handle has generation %d", (int)ctn_body_generation(again));
    /* a checkpoint of a world with a raised generation keeps it */
    char p3[64];
    snprintf(p3, sizeof p3, "/tmp/test_body_refs_%d_c.ckpt", (int)getpid());
    CHECK(ctn_world_save(v, p3, 1, NULL) == CTN_OK, "save: %s", ctn_world_last_error(v));
    ctn_world *q = NULL;
    CHECK(ctn_world_load(p3, NULL, &q, NULL, err, sizeof err) == CTN_OK, "load: %s", err);
    unlink(p3);
    if (q) {
        CHECK(q->body_gen != NULL && ctn_body_is_valid(q, ID_IN(q, again)) && !ctn_body_is_valid(q, ID_IN(q, last)),
              "the loaded world keeps the generation");
        ctn_world_destroy(q);
    }
    ctn_world_destroy(v);
    ctn_world_destroy(w);
    return check_report("body_refs");
}
