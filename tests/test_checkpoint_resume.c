/* Checkpoints hold everything a world holds: a pile of spheres in a box (shapes, planes, collision settings,
 * the contact cache) saved at step k and resumed ends bitwise where the uninterrupted run ends (its final
 * checkpoint is the same file, byte for byte); a world with removed bodies and joints, user contacts and
 * body names resumes with the same free slots, so it issues the same handles; files of older format
 * versions are refused with a message that says so; every header byte is inside the checksum; files of
 * versions 3 and 4 (the user forces inside the body properties) load as the world that was saved; a file whose
 * joint ctn_joint_add would refuse (a gear's ratio 0, a distance joint's rest length 0, a hinge's zero axis)
 * is refused with a message naming the joint and the field, and gives no world. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "ids.h"
#include "check.h"
#include "checkpoint_file.h"
#include "files.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static ctn_world *make_world(void) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.warm_start = 1.0;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "create: %s", err);
    return w;
}

static void step_n(ctn_world *w, int n, const char *what) {
    for (int i = 0; i < n; ++i) {
        ctn_status s = ctn_world_step(w);
        CHECK(s == CTN_OK, "%s step %d: %s", what, i, ctn_world_last_error(w));
        if (s != CTN_OK) return;
    }
}

static void pile_resumes_bitwise(const char *dir) {
    char at_k[512], end_run[512], end_resumed[512];
    snprintf(at_k, sizeof at_k, "%s/pile_k.ckpt", dir);
    snprintf(end_run, sizeof end_run, "%s/pile_end_run.ckpt", dir);
    snprintf(end_resumed, sizeof end_resumed, "%s/pile_end_resumed.ckpt", dir);
    const int k = 40, more = 40;
    ctn_world *w = make_world();
    CHECK(ctn_scene_from_spec(w, "pile:200") == CTN_OK, "%s", ctn_world_last_error(w));
    step_n(w, k, "pile");
    int contacts = 0;
    ctn_world_get_contacts(w, NULL, 0, &contacts);
    CHECK(contacts > 100, "the pile is in contact at step %d: %d contacts", k, contacts);
    CHECK(ctn_world_save(w, at_k, (uint64_t)k, "pile") == CTN_OK, "save at step %d: %s", k, ctn_world_last_error(w));
    step_n(w, more, "uninterrupted");
    CHECK(ctn_world_save(w, end_run, (uint64_t)(k + more), NULL) == CTN_OK, "%s", ctn_world_last_error(w));

    ctn_world *r = NULL;
    char err[512];
    ctn_checkpoint_info info;
    CHECK(ctn_world_load(at_k, NULL, &r, &info, err, sizeof err) == CTN_OK, "load: %s", err);
    if (!r) {
        ctn_world_destroy(w);
        return;
    }
    CHECK(info.step == (uint64_t)k && !strcmp(info.user, "pile"), "info: step %llu user '%s'", (unsigned long long)info.step, info.user);
    int rc = 0;
    ctn_world_get_contacts(r, NULL, 0, &rc);
    CHECK(rc == contacts, "contacts after load %d, at save %d", rc, contacts);
    step_n(r, more, "resumed");
    CHECK(ctn_world_save(r, end_resumed, (uint64_t)(k + more), NULL) == CTN_OK, "%s", ctn_world_last_error(r));
    CHECK(test_same_files(end_run, end_resumed), "pile:200 saved at step %d and resumed for %d steps: final checkpoint differs from the "
          "uninterrupted run's", k, more);
    ctn_step_stats a, b;
    ctn_world_get_stats(w, &a);
    ctn_world_get_stats(r, &b);
    CHECK(a.contacts == b.contacts && a.residual == b.residual && a.max_gap == b.max_gap, "last-step stats: %d/%d contacts, residual %g/%g",
          a.contacts, b.contacts, a.residual, b.residual);
    ctn_world_destroy(w);
    ctn_world_destroy(r);
    remove(at_k), remove(end_run), remove(end_resumed);
}

static ctn_body_id add_ball(ctn_world *w, double x) {
    ctn_body_desc b = ctn_body_desc_default();
    b.position[0] = x;
    ctn_body_id id = CTN_NULL_BODY;
    CHECK(ctn_body_add(w, &b, &id) == CTN_OK, "%s", ctn_world_last_error(w));
    return id;
}

static void handles_and_names_resume(const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/slots.ckpt", dir);
    ctn_world *w = make_world();
    ctn_body_id b[6];
    for (int i = 0; i < 6; ++i) b[i] = add_ball(w, i);
    CHECK(ctn_body_set_name(w, b[4], "anchor") == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_DISTANCE);
    ctn_joint_id j[3];
    for (int i = 0; i < 3; ++i) {
        jd.body_a = b[i], jd.body_b = b[i + 1];
        CHECK(ctn_joint_add(w, &jd, &j[i]) == CTN_OK, "%s", ctn_world_last_error(w));
    }
    ctn_contact_desc cd = ctn_contact_desc_default();
    cd.body_a = b[5];
    cd.point[0] = 5.0;
    ctn_joint_id contact;
    CHECK(ctn_contact_add(w, &cd, &contact) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_joint_remove(w, j[1]) == CTN_OK && ctn_joint_remove(w, j[2]) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_body_remove(w, b[3]) == CTN_OK, "%s", ctn_world_last_error(w));
    step_n(w, 3, "slots");
    CHECK(ctn_world_save(w, path, 3, NULL) == CTN_OK, "save: %s", ctn_world_last_error(w));
    ctn_world *r = NULL;
    char err[512];
    CHECK(ctn_world_load(path, NULL, &r, NULL, err, sizeof err) == CTN_OK, "load: %s", err);
    if (!r) {
        ctn_world_destroy(w);
        return;
    }
    ctn_body_id found = CTN_NULL_BODY;
    CHECK(ctn_body_find(r, "anchor", &found) == CTN_OK && ID_EQ(found, ID_IN(r, b[4])), "name after load: %lld", ID_INT(found));
    ctn_body_state s;
    CHECK(ctn_body_get_state(r, b[4], &s) == CTN_ERR_INVALID_ARGUMENT, "the saved world's handles are not the loaded world's");
    CHECK(ctn_body_get_state(r, ID_IN(r, b[4]), &s) == CTN_OK, "the saved world's slot and generation name the body in the loaded one");
    CHECK(ctn_body_get_state(r, ID_IN(r, b[3]), &s) == CTN_ERR_NOT_FOUND, "the removed body stays removed");
    double imp[6];
    CHECK(ctn_joint_get_impulse(r, ID_IN(r, j[2]), imp, NULL) == CTN_ERR_NOT_FOUND, "the removed joint's handle stays stale");
    CHECK(ctn_contact_remove(r, ID_IN(r, contact)) == CTN_OK && ctn_contact_remove(w, contact) == CTN_OK, "the user contact came along");
    /* the next adds reuse the same free slots with the same generations in both worlds */
    ctn_body_id nw = add_ball(w, 9), nr = add_ball(r, 9);
    CHECK(ID_INT(nw) == ID_INT(nr) && ctn_body_generation(nr) == 1, "next body handle %lld vs %lld", ID_INT(nw), ID_INT(nr));
    jd.body_a = b[0], jd.body_b = b[5];
    ctn_joint_id jw = CTN_NULL_JOINT, jr = CTN_NULL_JOINT;
    ctn_joint_add(w, &jd, &jw);
    jd.body_a = ID_IN(r, b[0]), jd.body_b = ID_IN(r, b[5]);
    ctn_joint_add(r, &jd, &jr);
    CHECK(ID_INT(jw) == ID_INT(jr) && ctn_joint_generation(jr) == 1, "next joint handle %lld vs %lld", ID_INT(jw), ID_INT(jr));
    ctn_world_destroy(w);
    ctn_world_destroy(r);
    remove(path);
}

/* The settings come back from a checkpoint, desc.rattle_max_joints (the last field of ctn_world_desc) too; a
 * file written before that field loads with it at 0 (tests/test_collision_groups.c loads one). */
static void settings_resume(const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/settings.ckpt", dir);
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.rattle_max_joints = 1500, d.integrator = CTN_INTEGRATOR_VELOCITY, d.substeps = 3;
    ctn_world *w = NULL, *r = NULL;
    char err[512];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "create: %s", err);
    if (!w) return;
    CHECK(ctn_world_save(w, path, 0, NULL) == CTN_OK, "save: %s", ctn_world_last_error(w));
    ctn_checkpoint_info info;
    CHECK(ctn_world_load(path, NULL, &r, &info, err, sizeof err) == CTN_OK, "load: %s", err);
    ctn_world_desc got;
    if (r) ctn_world_get_desc(r, &got);
    CHECK(r && got.rattle_max_joints == 1500 && got.integrator == CTN_INTEGRATOR_VELOCITY && got.substeps == 3,
          "loaded settings: rattle_max_joints %d, integrator %d, substeps %d", r ? got.rattle_max_joints : -1, r ? (int)got.integrator : -1,
          r ? got.substeps : -1);
    CHECK(info.desc.rattle_max_joints == 1500, "info: rattle_max_joints %d", info.desc.rattle_max_joints);
    ctn_world_destroy(w);
    ctn_world_destroy(r);
    remove(path);
}

static void old_versions_refused(const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/old.ckpt", dir);
    ctn_world *w = make_world();
    ctn_scene_from_spec(w, "chain:4");
    CHECK(ctn_world_save(w, path, 0, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_world_destroy(w);
    size_t n = 0;
    char *buf = test_read_file(path, &n);
    if (!buf) return;
    uint32_t v2 = 2; /* the format version follows the 8-byte magic */
    memcpy(buf + 8, &v2, sizeof v2);
    FILE *f = fopen(path, "wb");
    fwrite(buf, 1, n, f);
    fclose(f);
    free(buf);
    ctn_world *r = NULL;
    char err[512] = "";
    CHECK(ctn_world_load(path, NULL, &r, NULL, err, sizeof err) == CTN_ERR_UNSUPPORTED && !r, "a version-2 file is refused");
    CHECK(strstr(err, "version 2") && strstr(err, "versions 3 to 5"), "message: %s", err);
    remove(path);
}

/* Every header byte is inside the checksum (format version 4 on): a flipped reserved byte is refused; a
 * version-3 file (checksum over the payload only, the user forces inside the properties) still loads. */
static void header_checked(const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/header.ckpt", dir);
    ctn_world *w = make_world();
    ctn_scene_from_spec(w, "chain:4");
    CHECK(ctn_world_save(w, path, 7, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_world_destroy(w);
    size_t n = 0;
    char *buf = test_read_file(path, &n);
    if (!buf) return;
    uint32_t version;
    memcpy(&version, buf + 8, sizeof version);
    CHECK(version == 5, "written as version %u", version);
    char err[512] = "";
    for (int k = 56; k < 64; ++k) { /* the reserved bytes */
        buf[k] ^= 0x20;
        FILE *f = fopen(path, "wb");
        fwrite(buf, 1, n, f);
        fclose(f);
        buf[k] ^= 0x20;
        ctn_world *r = NULL;
        ctn_status st = ctn_world_load(path, NULL, &r, NULL, err, sizeof err);
        CHECK(st == CTN_ERR_INVALID_ARGUMENT && !r && strstr(err, "checksum"), "reserved byte %d flipped: %s (%s)", k, ctn_status_name(st), err);
        ctn_world_destroy(r);
    }
    /* as version 3 wrote it: FNV-1a 64 of the payload alone */
    ck_test_write_as(path, buf, n, 3);
    free(buf);
    ctn_world *r = NULL;
    ctn_checkpoint_info info;
    CHECK(ctn_world_load(path, NULL, &r, &info, err, sizeof err) == CTN_OK && r && info.step == 7, "a version-3 file loads: %s", err);
    CHECK(!r || ctn_world_body_count(r) == 4, "version-3 file: %d bodies", r ? ctn_world_body_count(r) : -1);
    ctn_world_destroy(r);
    remove(path);
}

/* Files of versions 3 and 4 hold the user forces inside 48-byte body properties: loaded, their worlds are the
 * one that was saved (saved again they give the version-5 file byte for byte, forces section or none) and step on
 * to the same bits. */
static void old_forces_load(const char *dir) {
    char path[512], old[512], again[512], end_a[512], end_b[512];
    snprintf(path, sizeof path, "%s/forces.ckpt", dir);
    snprintf(old, sizeof old, "%s/forces_old.ckpt", dir);
    snprintf(again, sizeof again, "%s/forces_again.ckpt", dir);
    snprintf(end_a, sizeof end_a, "%s/forces_end_a.ckpt", dir);
    snprintf(end_b, sizeof end_b, "%s/forces_end_b.ckpt", dir);
    for (int with = 0; with <= 1; ++with) {
        ctn_world *w = make_world();
        ctn_scene_from_spec(w, "chain:6");
        ctn_body_id p = add_ball(w, 0.65);
        const double at[3] = {0.05, 0.0, 0.0}, f[3] = {0.5, -2.0, 0.25}, t[3] = {0.0, 1.0 / 1024.0, -1.0 / 2048.0}; /* links of 0.1 kg and 0.1 m: small torques */
        CHECK(ctn_attach_point(w, p, HBODY(w, 5), at) == CTN_OK, "attach: %s", ctn_world_last_error(w));
        if (with) {
            CHECK(ctn_body_set_force(w, HBODY(w, 3), f, t) == CTN_OK && ctn_body_set_force(w, p, t, f) == CTN_OK, "%s",
                  ctn_world_last_error(w));
        }
        step_n(w, 4, "forces");
        CHECK(ctn_world_save(w, path, 4, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
        step_n(w, 10, "forces, uninterrupted");
        CHECK(ctn_world_save(w, end_a, 14, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_world_destroy(w);
        size_t n = 0;
        char *buf = test_read_file(path, &n);
        if (!buf) continue;
        for (uint32_t version = 3; version <= 4; ++version) {
            ck_test_write_as(old, buf, n, version);
            ctn_world *r = NULL;
            char err[512] = "";
            CHECK(ctn_world_load(old, NULL, &r, NULL, err, sizeof err) == CTN_OK && r, "version %u %s forces: %s", version, with ? "with" : "without", err);
            if (!r) continue;
            double gf[3], gt[3];
            CHECK(ctn_body_get_force(r, HBODY(r, 3), gf, gt) == CTN_OK && gf[1] == (with ? -2.0 : 0.0) && gt[2] == (with ? -1.0 / 2048.0 : 0.0),
                  "version %u: the force read back (%g, %g)", version, gf[1], gt[2]);
            CHECK(ctn_world_save(r, again, 4, NULL) == CTN_OK, "%s", ctn_world_last_error(r));
            CHECK(test_same_files(path, again), "version %u %s forces: saved again it is not the version-5 file", version, with ? "with" : "without");
            step_n(r, 10, "forces, resumed");
            CHECK(ctn_world_save(r, end_b, 14, NULL) == CTN_OK, "%s", ctn_world_last_error(r));
            CHECK(test_same_files(end_a, end_b), "version %u %s forces: resumed run differs", version, with ? "with" : "without");
            ctn_world_destroy(r);
        }
        free(buf);
    }
    remove(path), remove(old), remove(again), remove(end_a), remove(end_b);
}

static void bad_joints_refused(const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/joints.ckpt", dir);
    ctn_world *w = make_world();
    ctn_body_id a = add_ball(w, 1.0), b = add_ball(w, 3.0);
    const double z[3] = {0.0, 0.0, 1.0};
    for (int i = 0; i < 2; ++i) { /* joints 0, 1: hinges (the second's axis (0, 0, 1.2345678) before normalising) */
        ctn_joint_desc d = ctn_joint_desc_default(CTN_JOINT_HINGE);
        d.body_a = i ? b : a;
        double pivot[3] = {i ? 3.0 : 1.0, 0.0, 0.0};
        CHECK(ctn_joint_desc_set_pivot(w, &d, pivot, z) == CTN_OK, "%s", ctn_world_last_error(w));
        CHECK(ctn_joint_add(w, &d, NULL) == CTN_OK, "hinge: %s", ctn_world_last_error(w));
    }
    ctn_joint_desc g = ctn_joint_desc_default(CTN_JOINT_GEAR); /* joint 2 */
    g.body_a = a, g.body_b = b, g.ratio = 1.2345678;
    CHECK(ctn_joint_add(w, &g, NULL) == CTN_OK, "gear: %s", ctn_world_last_error(w));
    ctn_joint_desc d = ctn_joint_desc_default(CTN_JOINT_DISTANCE); /* joint 3 */
    d.body_a = a, d.rest_length = 0.7654321;
    CHECK(ctn_joint_add(w, &d, NULL) == CTN_OK, "distance: %s", ctn_world_last_error(w));
    step_n(w, 3, "joints");
    CHECK(ctn_world_save(w, path, 0, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_world_destroy(w);
    size_t n = 0;
    char *orig = test_read_file(path, &n);
    char *buf = malloc(n ? n : 1);
    if (!orig || !buf) {
        free(orig);
        free(buf);
        CHECK(0, "read %s", path);
        return;
    }
    /* unpatched, through the same version-3 path: loads */
    memcpy(buf, orig, n);
    ck_test_write_as(path, buf, n, 3);
    char err[512] = "";
    ctn_world *r = NULL;
    CHECK(ctn_world_load(path, NULL, &r, NULL, err, sizeof err) == CTN_OK && r, "the valid file loads: %s", err);
    ctn_world_destroy(r);
    static const struct {
        float mark, value;
        const char *joint, *field;
    } cases[] = {
        {1.2345678f, 0.0f, "joint 2 (gear)", "joint.ratio"},
        {1.2345678f, 1e9f, "joint 2 (gear)", "joint.ratio"},
        {0.7654321f, 0.0f, "joint 3 (distance)", "joint.rest_length"},
        {0.7654321f, NAN, "joint 3 (distance)", "joint.rest_length"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        memcpy(buf, orig, n);
        CHECK(ck_test_patch_float(buf, n, cases[c].mark, cases[c].value) == 1, "case %zu: the marker %g is in the file once", c, (double)cases[c].mark);
        ck_test_write_as(path, buf, n, 3);
        r = NULL;
        err[0] = 0;
        ctn_status st = ctn_world_load(path, NULL, &r, NULL, err, sizeof err);
        CHECK(st == CTN_ERR_INVALID_ARGUMENT && !r && strstr(err, cases[c].joint) && strstr(err, cases[c].field),
              "case %zu (%s %s = %g): %s, %s", c, cases[c].joint, cases[c].field, (double)cases[c].value, ctn_status_name(st), err);
        ctn_world_destroy(r);
    }
    /* a hinge's axis of zero length: joint 0's stored definition (kernels/ctn_types.h ctn_joint_def: i32 type,
     * a, b, rows, then anchor_a, rest_length, anchor_b, compliance, axis_a at byte 48) found by its head
     * (hinge, body slot 0, the world, 5 rows), its axis_a zeroed */
    memcpy(buf, orig, n);
    const int32_t head[4] = {CTN_JOINT_HINGE, 0, -1, 5};
    const float zero[3] = {0.0f, 0.0f, 0.0f};
    size_t at = 0;
    int heads = 0;
    for (size_t i = 64; i + 48 + sizeof zero <= n; ++i)
        if (memcmp(buf + i, head, sizeof head) == 0) at = i + 48, ++heads;
    CHECK(heads == 1, "joint 0's definition is in the file once (%d)", heads);
    if (at) {
        memcpy(buf + at, zero, sizeof zero);
        ck_test_write_as(path, buf, n, 3);
        r = NULL;
        ctn_status st = ctn_world_load(path, NULL, &r, NULL, err, sizeof err);
        CHECK(st == CTN_ERR_INVALID_ARGUMENT && !r && strstr(err, "joint 0 (hinge)") && strstr(err, "joint.axis"), "zero hinge axis: %s, %s",
              ctn_status_name(st), err);
        ctn_world_destroy(r);
    }
    free(orig);
    free(buf);
    remove(path);
}

int main(void) {
    char dir[] = "/tmp/catena-ckpt-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    pile_resumes_bitwise(dir);
    handles_and_names_resume(dir);
    settings_resume(dir);
    old_versions_refused(dir);
    header_checked(dir);
    old_forces_load(dir);
    bad_joints_refused(dir);
    rmdir(dir);
    return check_report("checkpoint_resume");
}
