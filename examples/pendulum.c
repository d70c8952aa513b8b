/* The README's API example: a rigid pendulum on a ball joint. Built by the install test against the
 * installed package (tests/install). */
#include <catena/catena.h>
#include <stdio.h>

int main(void) {
    ctn_world_desc desc = ctn_world_desc_default();  /* gravity -9.81 y, 60 Hz, 4 substeps x 4 GS iterations */
    desc.backend = CTN_BACKEND_AUTO;
    ctn_world *world;
    char err[512];
    if (ctn_world_create(&desc, &world, err, sizeof err) != CTN_OK) { fprintf(stderr, "%s\n", err); return 1; }

    /* a pendulum: one rigid body on a ball joint pinned to the world at the origin */
    ctn_body_desc body = ctn_body_desc_default();
    body.mass = 1.0;
    body.position[0] = 1.0;
    double half[3] = {0.1, 0.1, 0.1};
    ctn_inertia_box(body.mass, half, body.inertia);
    ctn_body_id bob;
    ctn_body_add(world, &body, &bob);

    ctn_joint_desc pin = ctn_joint_desc_default(CTN_JOINT_BALL);
    pin.body_a = bob;
    pin.body_b = CTN_WORLD;
    double pivot[3] = {0, 0, 0};
    ctn_joint_desc_set_pivot(world, &pin, pivot, NULL);
    if (ctn_joint_add(world, &pin, NULL) != CTN_OK) { fprintf(stderr, "%s\n", ctn_world_last_error(world)); return 1; }

    for (int i = 0; i < 600; ++i) ctn_world_step(world);
    ctn_body_state s;
    ctn_body_get_state(world, bob, &s);
    ctn_step_stats st;
    ctn_world_get_stats(world, &st);
    printf("bob at (%.3f, %.3f, %.3f), joint gap %.2g m\n", s.position[0], s.position[1], s.position[2], st.max_joint_gap);
    ctn_world_destroy(world);
    return 0;
}
