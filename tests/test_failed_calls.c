/* Every call that fails leaves the world bitwise unchanged: a world with bodies, joints, hinges, user and
 * built-in contacts, shapes, planes and names is checkpointed, then each setter, add and remove of the API is
 * called with something wrong (a stale or unknown handle, an out-of-range value, a body still in use, a
 * built-in contact), and the checkpoint written afterwards is the same file byte for byte. A call that
 * changed anything before failing (as body removal once dropped the body's contacts and shape before its
 * in-use check) changes the file. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "ids.h"
#include "check.h"
#include "files.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Fails when the call succeeds or returns another status than `want`. */
#define FAILS(call, want) CHECK((call) == (want), "%s should fail with %s: %s", #call, ctn_status_name(want), ctn_world_last_error(w))

int main(void) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    ctn_world *w = NULL;
    char err[256];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        fprintf(stderr, "create: %s\n", err);
        return 1;
    }
    /* spheres on a floor; sphere 2 hangs from the world by a distance joint; two boxes on a hinge */
    double up[3] = {0, 1, 0};
    ctn_world_add_plane(w, up, 0.0, 0.5, 0.0, NULL);
    ctn_shape_desc sphere = ctn_shape_desc_default(CTN_SHAPE_SPHERE);
    sphere.radius = 0.05;
    ctn_body_id s[5];
    for (int i = 0; i < 5; ++i) {
        ctn_body_desc b = ctn_body_desc_default();
        b.position[0] = 0.09 * i, b.position[1] = 0.05;
        ctn_inertia_sphere(b.mass, 0.05, b.inertia);
        ctn_body_add(w, &b, &s[i]);
        ctn_body_set_shape(w, s[i], &sphere);
    }
    ctn_body_set_name(w, s[0], "first");
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_DISTANCE);
    jd.body_a = s[2];
    jd.anchor_b[0] = 0.18, jd.anchor_b[1] = 1.0;
    ctn_joint_id rope;
    CHECK(ctn_joint_add(w, &jd, &rope) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_body_desc box = ctn_body_desc_default();
    box.position[1] = 2.0;
    ctn_body_id b1, b2, gone;
    ctn_body_add(w, &box, &b1);
    box.position[0] = 0.5;
    ctn_body_add(w, &box, &b2);
    ctn_body_add(w, &box, &gone);
    ctn_body_remove(w, gone);
    ctn_joint_desc hd = ctn_joint_desc_default(CTN_JOINT_HINGE);
    hd.body_a = b1, hd.body_b = b2;
    double pivot[3] = {0.25, 2.0, 0.0}, axis[3] = {0, 0, 1};
    ctn_joint_desc_set_pivot(w, &hd, pivot, axis);
    ctn_joint_id hinge, stale_joint;
    ctn_joint_add(w, &hd, &hinge);
    ctn_joint_add(w, &hd, &stale_joint);
    ctn_joint_remove(w, stale_joint);
    ctn_contact_desc cd = ctn_contact_desc_default();
    cd.body_a = b2;
    cd.point[0] = 0.5, cd.point[1] = 1.5;
    ctn_joint_id user_contact;
    CHECK(ctn_contact_add(w, &cd, &user_contact) == CTN_OK, "%s", ctn_world_last_error(w));
    for (int i = 0; i < 10; ++i) CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_contact_info ci[64];
    int nc = 0;
    ctn_world_get_contacts(w, ci, 64, &nc);
    ctn_joint_id builtin = CTN_NULL_JOINT;
    for (int k = 0; k < nc && k < 64; ++k)
        if (!ci[k].user && (ID_EQ(ci[k].body_a, s[2]) || ID_EQ(ci[k].body_b, s[2]))) builtin = ci[k].joint;
    CHECK(!ctn_joint_is_null(builtin), "sphere 2 touches the floor or a neighbour (%d contacts)", nc);

    char dir[] = "/tmp/catena-failed-XXXXXX", before[512], after[512];
    if (!mkdtemp(dir)) return 1;
    snprintf(before, sizeof before, "%s/before.ckpt", dir);
    snprintf(after, sizeof after, "%s/after.ckpt", dir);
    CHECK(ctn_world_save(w, before, 10, NULL) == CTN_OK, "%s", ctn_world_last_error(w));

    double nan3[3] = {NAN, 0, 0}, v3[3] = {1, 2, 3};
    ctn_body_state st;
    ctn_body_get_state(w, s[1], &st);
    /* bodies */
    FAILS(ctn_body_remove(w, s[2]), CTN_ERR_IN_USE); /* its joint keeps it; its contacts and shape must stay */
    FAILS(ctn_body_remove(w, gone), CTN_ERR_NOT_FOUND);
    FAILS(ctn_body_set_state(w, gone, &st), CTN_ERR_NOT_FOUND);
    st.position[1] = NAN;
    FAILS(ctn_body_set_state(w, s[1], &st), CTN_ERR_INVALID_ARGUMENT);
    FAILS(ctn_body_set_force(w, s[1], nan3, NULL), CTN_ERR_INVALID_ARGUMENT);
    FAILS(ctn_body_set_force(w, gone, v3, v3), CTN_ERR_NOT_FOUND);
    FAILS(ctn_body_set_name(w, gone, "x"), CTN_ERR_NOT_FOUND);
    ctn_body_desc bad = ctn_body_desc_default();
    bad.mass = -1.0;
    FAILS(ctn_body_add(w, &bad, NULL), CTN_ERR_INVALID_ARGUMENT);
    ctn_shape_desc bad_shape = ctn_shape_desc_default(CTN_SHAPE_BOX);
    bad_shape.half_extents[1] = 0.0;
    FAILS(ctn_body_set_shape(w, s[1], &bad_shape), CTN_ERR_INVALID_ARGUMENT); /* a zero half extent */
    FAILS(ctn_body_set_shape(w, gone, &sphere), CTN_ERR_NOT_FOUND);
    /* joints */
    FAILS(ctn_joint_remove(w, stale_joint), CTN_ERR_NOT_FOUND);
    FAILS(ctn_joint_remove(w, builtin), CTN_ERR_INVALID_ARGUMENT);
    FAILS(ctn_joint_set_limits(w, hinge, 1, 1.0, -1.0), CTN_ERR_INVALID_ARGUMENT);
    FAILS(ctn_joint_set_limits(w, rope, 1, -0.5, 0.5), CTN_ERR_INVALID_ARGUMENT);
    FAILS(ctn_joint_set_motor(w, hinge, 1, 1.0, -5.0), CTN_ERR_INVALID_ARGUMENT);
    FAILS(ctn_joint_set_motor(w, stale_joint, 1, 1.0, 5.0), CTN_ERR_NOT_FOUND);
    FAILS(ctn_joint_set_rope(w, hinge, 1), CTN_ERR_INVALID_ARGUMENT);
    FAILS(ctn_joint_set_rest_length(w, rope, -1.0), CTN_ERR_INVALID_ARGUMENT);
    FAILS(ctn_joint_set_rest_length(w, hinge, 1.0), CTN_ERR_INVALID_ARGUMENT);
    ctn_joint_desc bad_joint = hd;
    bad_joint.body_b = gone;
    FAILS(ctn_joint_add(w, &bad_joint, NULL), CTN_ERR_NOT_FOUND);
    bad_joint = hd;
    bad_joint.axis[0] = bad_joint.axis[1] = bad_joint.axis[2] = 0.0;
    FAILS(ctn_joint_add(w, &bad_joint, NULL), CTN_ERR_INVALID_ARGUMENT);
    /* contacts */
    ctn_contact_desc bad_contact = cd;
    bad_contact.friction = -1.0;
    FAILS(ctn_contact_add(w, &bad_contact, NULL), CTN_ERR_INVALID_ARGUMENT);
    FAILS(ctn_contact_update(w, user_contact, &bad_contact), CTN_ERR_INVALID_ARGUMENT);
    bad_contact = cd;
    bad_contact.body_a = b1; /* other bodies than the contact's */
    FAILS(ctn_contact_update(w, user_contact, &bad_contact), CTN_ERR_INVALID_ARGUMENT);
    FAILS(ctn_contact_update(w, builtin, &cd), CTN_ERR_INVALID_ARGUMENT);
    FAILS(ctn_contact_remove(w, builtin), CTN_ERR_INVALID_ARGUMENT);
    FAILS(ctn_contact_remove(w, rope), CTN_ERR_INVALID_ARGUMENT);
    /* world */
    double zero3[3] = {0, 0, 0};
    FAILS(ctn_world_add_plane(w, zero3, 0.0, 0.5, 0.0, NULL), CTN_ERR_INVALID_ARGUMENT);
    ctn_collision_desc bad_collision = ctn_collision_desc_default();
    bad_collision.margin = -1.0;
    FAILS(ctn_world_set_collision(w, &bad_collision), CTN_ERR_INVALID_ARGUMENT);
    ctn_world_desc bad_desc = d;
    bad_desc.substeps = -1;
    FAILS(ctn_world_set_desc(w, &bad_desc), CTN_ERR_INVALID_ARGUMENT);
    bad_desc = d;
    bad_desc.backend = CTN_BACKEND_OPENCL;
    FAILS(ctn_world_set_desc(w, &bad_desc), CTN_ERR_INVALID_ARGUMENT);

    CHECK(ctn_world_save(w, after, 10, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(test_same_files(before, after), "the checkpoint after %d failed calls differs from the one before them", check_count);
    remove(before);
    remove(after);
    rmdir(dir);
    ctn_world_destroy(w);
    return check_report("failed_calls");
}
