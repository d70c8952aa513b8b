/* Point blocks (3 bilateral linear rows: ball joints) take written-out paths in the row build
 * (ctn_block_inverse_mass) and in the Gauss-Seidel update (ctn_block_solve_point, ctn_gs_slot_point) that
 * must give the bits of the general paths they stand in for: the same kinv, impulses and velocities, zeros
 * with the same signs. Checked here against the general paths (the same block with pad[0] = 0) for random
 * ball joints between two bodies and to the world, with velocities that have exact zeros of either sign
 * (a chain swinging in a plane has them in every step), particles, kinematic ends and soft rows.
 * Also: which blocks are marked as points (ball yes; hinge, contact, rope, limited cone-twist no), and that the
 * compact record of a ball joint (ctn_point_block: what Gauss-Seidel reads, 64 bytes) builds, updates and
 * gathers with the bits of the 288-byte block. */
#include "joint_view.h"
#include "catena/catena.h"
#include "check.h"
#include "ctn_solver.h"

#include <string.h>

static unsigned rng_state = 2024u;
static float urand(void) {
    rng_state = rng_state * 1664525u + 1013904223u;
    return (float)(rng_state >> 8) / 8388608.0f - 1.0f;
}
/* a component that is an exact +0 or -0 a third of the time */
static float comp(float s) {
    float u = urand();
    if (u < -0.33f) return u < -0.66f ? 0.0f : -0.0f;
    return s * urand();
}
static ctn_v3 rand_v3(float s) { return ctn_v3_make(comp(s), comp(s), comp(s)); }
static ctn_quat rand_quat(void) {
    float w = urand(), x = urand(), y = urand(), z = urand();
    float n = sqrtf(w * w + x * x + y * y + z * z);
    return ctn_quat_make(w / n, x / n, y / n, z / n);
}
static ctn_sym3 rand_inertia(void) {
    ctn_sym3 m;
    m.xx = 2.0f + urand(), m.yy = 2.0f + urand(), m.zz = 2.0f + urand();
    m.xy = 0.3f * urand(), m.xz = 0.3f * urand(), m.yz = 0.3f * urand();
    return m;
}
static int same_bits(const void *a, const void *b, size_t n) { return memcmp(a, b, n) == 0; }

/* A world with a 30-link ball-joint chain (Gauss-Seidel 10x1, CPU) and two free bodies 5 m away, joined by
 * a hinge when `hinge`. With the hinge a step keeps every joint's rows in the 288-byte blocks; without it
 * (every joint a ball joint) in compact point blocks (host/solve/solver_cpu.c): the chain must move with the
 * same bits either way. */
static ctn_world *pair_world(int hinge, ctn_body_id *first, ctn_joint_id *hinge_id) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.solver = CTN_SOLVER_GS;
    d.iterations = 10;
    d.substeps = 1;
    ctn_world *w = NULL;
    char err[256];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        CHECK(0, "create: %s", err);
        return NULL;
    }
    ctn_chain_desc c = ctn_chain_desc_default(30);
    ctn_body_id b[2];
    CHECK(ctn_scene_chain(w, &c, first) == CTN_OK, "chain: %s", ctn_world_last_error(w));
    for (int i = 0; i < 2; ++i) {
        ctn_body_desc bd = ctn_body_desc_default();
        bd.position[0] = 5.0 + 0.5 * i, bd.position[1] = 5.0;
        bd.angular_velocity[2] = 1.0 + i;
        CHECK(ctn_body_add(w, &bd, &b[i]) == CTN_OK, "body: %s", ctn_world_last_error(w));
    }
    if (hinge) {
        ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_HINGE);
        jd.body_a = b[0], jd.body_b = b[1];
        jd.anchor_a[0] = 0.25, jd.anchor_b[0] = -0.25;
        CHECK(ctn_joint_add(w, &jd, hinge_id) == CTN_OK, "hinge: %s", ctn_world_last_error(w));
    }
    return w;
}

/* The chains (30 links from fx, fy) of worlds x and y have the same state bits. */
static int same_chain(ctn_world *x, ctn_body_id fx, ctn_world *y, ctn_body_id fy) {
    for (int i = 0; i < 30; ++i) {
        ctn_body_state sx, sy;
        if (ctn_body_get_state(x, ctn_body_id_offset(fx, i), &sx) != CTN_OK || ctn_body_get_state(y, ctn_body_id_offset(fy, i), &sy) != CTN_OK)
            return 0;
        if (memcmp(&sx, &sy, sizeof sx) != 0) return 0;
    }
    return 1;
}

/* Compact (x: ball joints only) against general blocks (y, z: with the hinge) for 20 steps, then y without
 * its hinge (compact from then on, its general blocks left as they were) for 20 more; then assembly, which
 * needs the general blocks a compact world never allocated: on x as on z (whose hinge pair is apart from the
 * chain, so the chain's rows gather the same; the pair closes at once). */
static void check_worlds(void) {
    ctn_body_id fx, fy, fz;
    ctn_joint_id hinge, hz;
    ctn_world *x = pair_world(0, &fx, NULL), *y = pair_world(1, &fy, &hinge), *z = pair_world(1, &fz, &hz);
    if (x && y && z) {
        for (int k = 0; k < 40; ++k) {
            if (k == 20) CHECK(ctn_joint_remove(y, hinge) == CTN_OK, "remove: %s", ctn_world_last_error(y));
            CHECK(ctn_world_step(x) == CTN_OK && ctn_world_step(y) == CTN_OK && ctn_world_step(z) == CTN_OK, "step %d", k);
            CHECK(same_chain(x, fx, y, fy), "step %d: the chain of the compact world has the bits of the %s", k,
                  k < 20 ? "general blocks' world" : "world that dropped its hinge");
        }
        /* x to the direct solver (general blocks, allocated now) and back (compact again) */
        ctn_world_desc dx = ctn_world_desc_default();
        CHECK(ctn_world_get_desc(x, &dx) == CTN_OK, "get desc");
        for (int round = 0; round < 2; ++round) {
            dx.solver = round == 0 ? CTN_SOLVER_DIRECT : CTN_SOLVER_GS;
            CHECK(ctn_world_set_desc(x, &dx) == CTN_OK, "set solver: %s", ctn_world_last_error(x));
            for (int k = 0; k < 3; ++k) CHECK(ctn_world_step(x) == CTN_OK, "round %d step %d: %s", round, k, ctn_world_last_error(x));
            ctn_body_state st;
            CHECK(ctn_body_get_state(x, ctn_body_id_offset(fx, 29), &st) == CTN_OK && isfinite(st.position[0]) && isfinite(st.velocity[1]),
                  "round %d: the chain's last link is finite", round);
        }
        /* z steps the same 6 steps with general blocks: assembly then starts from comparable states */
        ctn_world_desc dz = ctn_world_desc_default();
        CHECK(ctn_world_get_desc(z, &dz) == CTN_OK, "get desc");
        for (int round = 0; round < 2; ++round) {
            dz.solver = round == 0 ? CTN_SOLVER_DIRECT : CTN_SOLVER_GS;
            CHECK(ctn_world_set_desc(z, &dz) == CTN_OK, "set solver: %s", ctn_world_last_error(z));
            for (int k = 0; k < 3; ++k) CHECK(ctn_world_step(z) == CTN_OK, "z round %d step %d", round, k);
        }
        ctn_assemble_desc ad = ctn_assemble_desc_default();
        ad.tolerance = 1e-3;
        ctn_assemble_report rx, rz;
        memset(&rx, 0, sizeof rx), memset(&rz, 0, sizeof rz);
        ctn_status sx = ctn_world_assemble(x, &ad, &rx), sz = ctn_world_assemble(z, &ad, &rz);
        CHECK(sx == sz && rx.gather_iterations == rz.gather_iterations && rx.gather_iterations > 0,
              "assembly of the compact world: status %d, %d gather iterations; with general blocks: %d, %d", (int)sx, rx.gather_iterations,
              (int)sz, rz.gather_iterations);
        CHECK(ctn_world_step(x) == CTN_OK, "a step after assembly: %s", ctn_world_last_error(x));
    }
    ctn_world_destroy(x);
    ctn_world_destroy(y);
    ctn_world_destroy(z);
}

int main(void) {
    ctn_step_params prm;
    memset(&prm, 0, sizeof prm);
    prm.h = 1.0f / 60.0f;
    prm.gravity = ctn_v3_make(0.0f, -9.81f, 0.0f);
    int points = 0;
    for (int trial = 0; trial < 2000; ++trial) {
        int to_world = trial % 4 == 3;
        ctn_joint_def j;
        memset(&j, 0, sizeof j);
        j.type = CTN_JT_BALL, j.rows = 3, j.a = 0, j.b = to_world ? -1 : 1;
        j.anchor_a = rand_v3(0.1f);
        j.anchor_b = rand_v3(0.1f);
        j.compliance = trial % 3 == 0 ? 1e-4f * (1.0f + urand()) : 0.0f;
        j.damping_time = trial % 5 == 0 ? 0.05f : 0.0f;
        ctn_pose pose[2];
        ctn_vel vel[2];
        ctn_inertia inertia[2];
        for (int i = 0; i < 2; ++i) {
            memset(&pose[i], 0, sizeof pose[i]);
            pose[i].p = rand_v3(1.0f);
            pose[i].q = trial % 7 == 0 ? ctn_quat_identity() : rand_quat();
            memset(&vel[i], 0, sizeof vel[i]);
            vel[i].v = rand_v3(2.0f);
            vel[i].w = trial % 6 == 1 ? ctn_v3_zero() : rand_v3(3.0f);
            float im = trial % 11 == 5 && i == 1 ? 0.0f : 1.0f + urand() * 0.5f; /* b kinematic sometimes */
            memset(&inertia[i], 0, sizeof inertia[i]);
            inertia[i].inv_inertia = trial % 13 == 4 ? ctn_sym3_zero() : rand_inertia(); /* a particle */
            inertia[i].inv_mass = im;
        }
        if (to_world) pose[1].p = ctn_v3_zero(), pose[1].p_lo = ctn_v3_zero(), pose[1].q = ctn_quat_identity();
        ctn_block blk;
        ctn_sym3 Ib = to_world ? ctn_sym3_zero() : inertia[1].inv_inertia;
        float ima = inertia[0].inv_mass, imb = to_world ? 0.0f : inertia[1].inv_mass;
        ctn_vel vb0 = vel[1];
        if (to_world) memset(&vb0, 0, sizeof vb0);
        ctn_joint_prepare(j, pose[0], to_world ? pose[1] : pose[1], vel[0], vb0, ima, inertia[0].inv_inertia, imb, Ib, 1.0f, 1.0f, prm, &blk);
        CHECK(blk.pad[0] == CTN_BLOCK_POINT, "trial %d: a ball block is a point block (pad %g)", trial, blk.pad[0]);
        if (blk.pad[0] != CTN_BLOCK_POINT) continue;
        points++;
        /* the row build: kinv of the general path (pad 0) */
        ctn_block gen = blk;
        gen.pad[0] = 0.0f;
        ctn_block_inverse_mass(j.type, ima, inertia[0].inv_inertia, imb, Ib, &gen);
        CHECK(same_bits(gen.kinv, blk.kinv, sizeof blk.kinv), "trial %d: point kinv has the general path's bits", trial);
        /* the update, three times in a row (warm impulses after the first) */
        float lam_g[CTN_MAX_ROWS] = {0}, lambda_p[6] = {0};
        for (int k = 0; k < 3; ++k) lam_g[k] = lambda_p[k] = trial % 2 ? 0.0f : 0.01f * urand();
        ctn_vel va_g = vel[0], vb_g = vb0, vel_p[2] = {vel[0], vel[1]};
        ctn_inertia in_p[2] = {inertia[0], inertia[1]};
        ctn_joint_core defs_core[1];
        ctn_joint_extra defs_extra[1];
        ctn_joints defs = joint_view(&j, 1, defs_core, defs_extra);
        for (int it = 0; it < 3; ++it) {
            float r2_g = ctn_block_solve(&gen, lam_g, &va_g, &vb_g, ima, inertia[0].inv_inertia, imb, Ib);
            /* the caller writes back dynamic bodies only (ctn_gs_slot) */
            if (!(ima > 0.0f)) va_g = vel[0];
            if (to_world || !(imb > 0.0f)) vb_g = vb0;
            float r2_p = ctn_gs_slot(0, defs, &blk, lambda_p, CTN_MAX_ROWS, vel_p, in_p);
            CHECK(same_bits(&r2_g, &r2_p, sizeof r2_g), "trial %d it %d: residual %g vs %g", trial, it, r2_g, r2_p);
            CHECK(same_bits(lam_g, lambda_p, 3 * sizeof(float)), "trial %d it %d: impulses have the same bits", trial, it);
            CHECK(same_bits(&va_g, &vel_p[0], sizeof va_g), "trial %d it %d: body a's velocity has the same bits", trial, it);
            if (!to_world) CHECK(same_bits(&vb_g, &vel_p[1], sizeof vb_g), "trial %d it %d: body b's velocity has the same bits", trial, it);
            else CHECK(same_bits(&vel[1], &vel_p[1], sizeof vel[1]), "trial %d it %d: the world side is not written", trial, it);
        }
        /* Gauss-Seidel's lean row build of a ball joint (ctn_prepare_slot_ball) against the general one
         * (ctn_prepare_slot): the same bits but for the sign of a zero in bias and kinv, and then the same
         * bits of impulses and velocities over three updates */
        {
            ctn_block gb[1], lb[1];
            memset(gb, 0x5a, sizeof gb), memset(lb, 0x5a, sizeof lb); /* the rows a ball joint leaves alone */
            ctn_joint_core jd_core[1];
            ctn_joint_extra jd_extra[1];
            ctn_joints jd = joint_view(&j, 1, jd_core, jd_extra);
            ctn_prepare_slot(0, jd, pose, vel, inertia, NULL, prm, gb);
            ctn_prepare_slot_ball(0, jd, pose, vel, inertia, prm, lb);
            int same = same_bits(&gb->ra, &lb->ra, sizeof gb->ra) && gb->n_lin == lb->n_lin && gb->n_ang == lb->n_ang &&
                       same_bits(&gb->rb, &lb->rb, sizeof gb->rb) && same_bits(gb->dir, lb->dir, sizeof gb->dir) &&
                       same_bits(gb->soft, lb->soft, sizeof gb->soft) && same_bits(gb->lo, lb->lo, sizeof gb->lo) &&
                       same_bits(gb->hi, lb->hi, sizeof gb->hi) && same_bits(gb->pad, lb->pad, sizeof gb->pad);
            CHECK(same, "trial %d: the lean ball build's rows have the general build's bits", trial);
            for (int k = 0; k < CTN_MAX_ROWS; ++k)
                CHECK(gb->bias[k] == lb->bias[k], "trial %d: bias[%d] %a vs %a", trial, k, gb->bias[k], lb->bias[k]);
            for (int k = 0; k < CTN_KINV_SIZE; ++k)
                CHECK(gb->kinv[k] == lb->kinv[k], "trial %d: kinv[%d] %a vs %a", trial, k, gb->kinv[k], lb->kinv[k]);
            float lg[6] = {0}, ll[6] = {0};
            for (int k = 0; k < 3; ++k) lg[k] = ll[k] = trial % 2 ? -0.0f : 0.01f * urand();
            ctn_vel vg[2] = {vel[0], vel[1]}, vl[2] = {vel[0], vel[1]};
            for (int it = 0; it < 3; ++it) {
                float rg = ctn_gs_slot(0, jd, gb, lg, CTN_MAX_ROWS, vg, inertia), rl = ctn_gs_slot(0, jd, lb, ll, CTN_MAX_ROWS, vl, inertia);
                CHECK(same_bits(&rg, &rl, sizeof rg) && same_bits(lg, ll, sizeof lg) && same_bits(vg, vl, sizeof vg),
                      "trial %d it %d: updates of the lean and the general ball block have the same bits", trial, it);
            }
            /* the compact record (ctn_prepare_slot_point): the lean build's fields bit for bit, then the same
             * impulses and velocities from its update (with and without the residual) and its warm-start gather */
            ctn_point_block pb[1];
            memset(pb, 0x5a, sizeof pb);
            ctn_prepare_slot_point(0, jd, pose, vel, inertia, prm, pb);
            int fields = same_bits(&pb->ra, &lb->ra, sizeof pb->ra) && same_bits(&pb->rb, &lb->rb, sizeof pb->rb) &&
                         same_bits(pb->bias, lb->bias, sizeof pb->bias) && same_bits(pb->kinv, lb->kinv, sizeof pb->kinv);
            for (int k = 0; k < 3; ++k) fields = fields && same_bits(&pb->soft, &lb->soft[k], sizeof pb->soft);
            CHECK(fields, "trial %d: the compact point block holds the lean build's bits", trial);
            float lc[6] = {0}, lq[6] = {0};
            for (int k = 0; k < 3; ++k) lc[k] = lq[k] = trial % 2 ? -0.0f : 0.01f * urand();
            ctn_vel vq[2] = {vel[0], vel[1]}, vc[2] = {vel[0], vel[1]};
            for (int it = 0; it < 3; ++it) {
                int residual = it != 1;
                float rq = ctn_gs_slot_ex(0, jd, lb, lq, CTN_MAX_ROWS, vq, inertia, residual),
                      rc = ctn_gs_slot_compact(0, jd, pb, lc, CTN_MAX_ROWS, vc, inertia, residual);
                CHECK(same_bits(&rq, &rc, sizeof rq) && same_bits(lq, lc, sizeof lq) && same_bits(vq, vc, sizeof vq),
                      "trial %d it %d: updates of the compact and the lean ball block have the same bits", trial, it);
            }
            int offsets[3] = {0, 1, to_world ? 1 : 2}, adj[2] = {0 << 1 | 0, 0 << 1 | 1};
            for (int i = 0; i < 2; ++i) {
                ctn_vel wg[2] = {vel[0], vel[1]}, wc[2] = {vel[0], vel[1]};
                ctn_apply_gather(i, offsets, adj, lb, lq, CTN_MAX_ROWS, 0.75f, wg, inertia);
                ctn_apply_gather_point(i, offsets, adj, pb, lq, CTN_MAX_ROWS, 0.75f, wc, inertia);
                CHECK(same_bits(wg, wc, sizeof wg), "trial %d body %d: the compact warm-start gather has the block's bits", trial, i);
            }
        }
        /* ctn_block_solve_point through ctn_block_solve on a point block */
        float lam_q[CTN_MAX_ROWS] = {0}, lam_r[CTN_MAX_ROWS] = {0};
        ctn_vel va_q = vel[0], vb_q = vb0, va_r = vel[0], vb_r = vb0;
        ctn_block_solve(&gen, lam_q, &va_q, &vb_q, ima, inertia[0].inv_inertia, imb, Ib);
        ctn_block_solve(&blk, lam_r, &va_r, &vb_r, ima, inertia[0].inv_inertia, imb, Ib);
        CHECK(same_bits(lam_q, lam_r, sizeof lam_q) && same_bits(&va_q, &va_r, sizeof va_q) && same_bits(&vb_q, &vb_r, sizeof vb_q),
              "trial %d: ctn_block_solve of a point block has the general path's bits", trial);
    }
    CHECK(points == 2000, "every ball block is a point block (%d)", points);

    /* blocks that are not points: bounded, angular or contact rows */
    ctn_pose p0, p1;
    memset(&p0, 0, sizeof p0), memset(&p1, 0, sizeof p1);
    p0.q = p1.q = ctn_quat_identity();
    p1.p = ctn_v3_make(0.2f, 0.0f, 0.0f);
    ctn_vel v0;
    memset(&v0, 0, sizeof v0);
    int types[] = {CTN_JT_HINGE, CTN_JT_CONTACT, CTN_JT_DISTANCE, CTN_JT_CONE_TWIST, CTN_JT_FIXED};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t) {
        ctn_joint_def j;
        memset(&j, 0, sizeof j);
        j.type = types[t], j.a = 0, j.b = 1;
        j.axis_a = j.axis_b = ctn_v3_make(0.0f, 0.0f, 1.0f);
        j.rel_q = ctn_quat_identity();
        j.rest_length = 0.1f;
        if (j.type == CTN_JT_CONE_TWIST) j.flags = CTN_JF_LIMIT, j.lo = -0.5f, j.hi = 0.5f;
        if (j.type == CTN_JT_DISTANCE) j.flags = CTN_JF_ROPE;
        ctn_block blk;
        ctn_joint_prepare(j, p0, p1, v0, v0, 1.0f, ctn_sym3_zero(), 1.0f, ctn_sym3_zero(), 1.0f, 1.0f, prm, &blk);
        CHECK(blk.pad[0] != CTN_BLOCK_POINT, "joint type %d is no point block", j.type);
    }
    check_worlds();
    return check_report("test_block_point");
}
