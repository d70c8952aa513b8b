/* The ball joint's row build (ctn_joint_prepare_rows_ball, kernels/ctn_rows.h) against the generic builder
 * (ctn_joint_prepare_rows_generic: ctn_joint_rows, ctn_rows_point and the per-row targets): the fast path
 * must give the same block bit for bit, since the golden hashes, the CPU/OpenCL agreement and the GS and
 * exact solvers all read it. Random poses (two-float positions), orientations, lever arms, velocities, body
 * b dynamic or the world, SPOOK and Baumgarte, compliant and rigid rows, the implicit-spring flag; both
 * blocks start from the same garbage, so a field one writes and the other does not shows up too.
 * Then one physical check of the rows themselves: with the pose error g and velocities chosen so that the
 * target is known, the SPOOK target of a rigid ball joint is -(4Y/h) g + Y J v (Lacoursiere 2011, eq. 23). */
#include "catena/catena.h"
#include "check.h"
#include "ctn_rows.h"
#include "random_poses.h"

#include <math.h>
#include <string.h>

static ctn_pose rand_pose(void) {
    ctn_pose p;
    memset(&p, 0, sizeof p);
    p.p = rand_v3(50.0);
    p.p_lo = rand_v3(1e-6);
    p.q = rand_quat();
    return p;
}
static ctn_vel rand_vel(void) {
    ctn_vel v;
    memset(&v, 0, sizeof v);
    v.v = rand_v3(3.0);
    v.w = rand_v3(5.0);
    return v;
}

int main(void) {
    int differ = 0, first = -1;
    for (int it = 0; it < 20000; ++it) {
        ctn_joint_def j;
        memset(&j, 0, sizeof j);
        j.type = CTN_JT_BALL;
        j.a = 0;
        j.b = it % 5 == 0 ? -1 : 1;
        j.rows = 3;
        j.anchor_a = rand_v3(0.5);
        j.anchor_b = rand_v3(0.5);
        j.compliance = it % 3 == 0 ? 0.0f : (float)(1e-6 * (1.0 + urand()));
        j.damping_time = it % 4 == 0 ? 0.0f : (float)(0.01 * (1.5 + urand()));
        j.flags = it % 7 == 0 ? CTN_JF_IMPLICIT_SPRING : 0;
        ctn_pose pa = rand_pose(), pb = rand_pose();
        ctn_vel va = rand_vel(), vb = rand_vel();
        if (j.b < 0) { /* the world: identity pose at the origin, at rest */
            memset(&pb, 0, sizeof pb);
            pb.q = ctn_quat_identity();
            memset(&vb, 0, sizeof vb);
        }
        ctn_step_params prm;
        memset(&prm, 0, sizeof prm);
        prm.h = it % 2 ? 1.0f / 60.0f : 1.0f / 240.0f;
        prm.stabilization = it % 5 == 1;
        prm.baumgarte = 0.2f;
        ctn_block fast, ref;
        memset(&fast, 0xA5, sizeof fast); /* the same garbage in both */
        memset(&ref, 0xA5, sizeof ref);
        ctn_joint_prepare_rows_ball(j, pa, pb, va, vb, prm, &fast);
        ctn_joint_prepare_rows_generic(j, pa, pb, va, vb, prm, &ref);
        if (memcmp(&fast, &ref, sizeof fast) != 0) {
            if (first < 0) first = it;
            differ++;
        }
    }
    CHECK(differ == 0, "ball row build differs from the generic builder in %d of 20000 cases (first: %d)", differ, first);

    /* The rows are a ball joint's: three linear rows along the world axes, bilateral, and the SPOOK target of
     * a rigid joint with error g = (0.01, -0.02, 0.03) m at rest is -(4Y/h) g (J v = 0). */
    {
        ctn_joint_def j;
        memset(&j, 0, sizeof j);
        j.type = CTN_JT_BALL, j.a = 0, j.b = -1, j.rows = 3;
        j.anchor_a = ctn_v3_make(0.01f, -0.02f, 0.03f); /* body at the origin: the anchor is the error */
        ctn_pose pa, pb;
        memset(&pa, 0, sizeof pa), memset(&pb, 0, sizeof pb);
        pa.q = pb.q = ctn_quat_identity();
        ctn_vel v;
        memset(&v, 0, sizeof v);
        ctn_step_params prm;
        memset(&prm, 0, sizeof prm);
        prm.h = 0.01f;
        ctn_block b;
        ctn_joint_prepare_rows(j, pa, pb, v, v, prm, &b);
        double tau = 2.0 * prm.h, y = 1.0 / (1.0 + 4.0 * tau / prm.h), g[3] = {0.01, -0.02, 0.03};
        CHECK(b.n_lin == 3 && b.n_ang == 0, "ball rows: %d linear, %d angular", b.n_lin, b.n_ang);
        for (int k = 0; k < 3; ++k) {
            CHECK_NEAR(b.bias[k], -(4.0 * y / prm.h) * g[k], 1e-5, "SPOOK target of a rigid ball row");
            CHECK(b.soft[k] == 0.0f && b.lo[k] < -1e30f && b.hi[k] > 1e30f, "row %d rigid and bilateral", k);
        }
        CHECK(b.dir[0].x == 1.0f && b.dir[1].y == 1.0f && b.dir[2].z == 1.0f && b.dir[0].y == 0.0f, "rows along the world axes");
    }
    return check_report("test_ball_rows");
}
