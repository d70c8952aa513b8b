/* The chord rows of the projection on the CPU (host/solve/chord_rows.c, ctn__chord_rows): the loop for a world
 * of ball joints alone (SIMD where the machine has SSE2, the largest gap as the square root of the largest
 * squared gap, one NaN test per joint) against the general loop over ctn_chord_slot_measure
 * (kernels/ctn_solver.h), which the golden hashes were recorded with: the same targets -C/h in every block,
 * the same largest row error (infinite when one is NaN), joint gap and angle, bit for bit, and the same on
 * one and on two threads. Random poses (two-float positions, unit quaternions), lever arms, joints to the
 * world, near-closed joints (a chain's tolerance) and wide-open ones, padding fields holding NaN (the SIMD
 * loop reads them into a lane it must ignore), and non-finite positions. Both loops start from the same
 * garbage in the blocks, so a field one writes and the other does not shows up too. Then
 * ctn__chord_all_ball: 1 for a chain of ball joints, 0 once a hinge joins it (a new layout). */
#define _POSIX_C_SOURCE 200809L
#include "joint_view.h"
#include "catena/catena.h"
#include "check.h"
#include "fixtures.h"
#include "core/world.h"
#include "solve/solve.h"
#include "ctn_solver.h"
#include "random_poses.h"

#include <math.h>
#include <stdint.h>
#include <string.h>


static uint32_t bits_f(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static uint64_t bits_d(double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

#define BODIES 1200
#define JOINTS 5000 /* above the CPU's parallel threshold (4096): two threads split the loop */

static ctn_pose pose[BODIES];
static ctn_joint_def defs[JOINTS];
static ctn_joint_core defs_core[JOINTS];
static ctn_joint_extra defs_extra[JOINTS];
static ctn_block ref_blocks[JOINTS], fast_blocks[JOINTS];

/* A random set of ball joints; `closed`: joint s's anchor on b is placed where a's anchor is, up to ~1e-7 m
 * (the projection's regime), else the bodies are anywhere (joints wide open). */
static void make_world(int closed) {
    for (int i = 0; i < BODIES; ++i) {
        memset(&pose[i], 0, sizeof pose[i]);
        pose[i].p = rand_v3(closed ? 1.0 : 50.0); /* closed: bodies within links' reach, open: anywhere */
        pose[i].p_lo = rand_v3(closed ? 3e-8 : 1e-6);
        pose[i].q = rand_quat();
    }
    for (int s = 0; s < JOINTS; ++s) {
        ctn_joint_def *d = &defs[s];
        memset(d, 0, sizeof *d);
        d->type = CTN_JT_BALL;
        d->rows = 3;
        d->a = (int)((urand() + 1.0) * 0.5 * BODIES) % BODIES;
        d->b = s % 9 == 0 ? -1 : (int)((urand() + 1.0) * 0.5 * BODIES) % BODIES;
        d->anchor_a = rand_v3(0.5);
        d->anchor_b = rand_v3(0.5);
        d->rest_length = s % 3 ? NAN : 0.0f, d->compliance = s % 5 ? -INFINITY : 0.0f; /* the anchors' neighbours */
        if (closed) { /* anchor_b := R_b^T ((x_a + R_a r_a) - x_b) + noise, in float: a gap of float round-off */
            ctn_pose pa = ctn_load_pose(pose, d->a), pb = ctn_load_pose(pose, d->b);
            ctn_v3 world_a = ctn_point_sep(pa.p, pa.p_lo, ctn_quat_rotate(pa.q, d->anchor_a), pb.p, pb.p_lo, ctn_v3_zero());
            d->anchor_b = ctn_add(ctn_quat_rotate_inv(pb.q, world_a), rand_v3(1e-7));
        }
    }
}

/* Both loops on one and two threads; every result compared bit for bit with the general loop on one thread.
 * Returns the general loop's result. */
static ctn_chord_rows_result compare(const char *what, float h) {
    ctn_chord_rows_result ref, got;
    memset(ref_blocks, 0xA5, sizeof ref_blocks); /* the same garbage in both */
    ctn__chord_rows(joint_view(defs, JOINTS, defs_core, defs_extra), JOINTS, pose, h, ref_blocks, 0, 1, &ref);
    for (int ball = 0; ball <= 1; ++ball) {
        for (int threads = 1; threads <= 2; ++threads) {
            memset(fast_blocks, 0xA5, sizeof fast_blocks);
            ctn__chord_rows(joint_view(defs, JOINTS, defs_core, defs_extra), JOINTS, pose, h, fast_blocks, ball, threads, &got);
            CHECK(bits_f(got.worst) == bits_f(ref.worst), "%s (ball loop %d, %d threads): worst %.9g, general %.9g", what, ball, threads,
                  (double)got.worst, (double)ref.worst);
            CHECK(bits_d(got.gap) == bits_d(ref.gap), "%s (ball loop %d, %d threads): gap %.17g, general %.17g", what, ball, threads, got.gap,
                  ref.gap);
            CHECK(bits_d(got.angle) == bits_d(ref.angle), "%s (ball loop %d, %d threads): angle %.17g, general %.17g", what, ball, threads,
                  got.angle, ref.angle);
            int first = -1;
            for (int s = 0; s < JOINTS && first < 0; ++s)
                if (memcmp(&fast_blocks[s], &ref_blocks[s], sizeof fast_blocks[s]) != 0) first = s;
            CHECK(first < 0, "%s (ball loop %d, %d threads): block %d differs (bias %.9g %.9g %.9g, general %.9g %.9g %.9g)", what, ball,
                  threads, first, first < 0 ? 0.0 : (double)fast_blocks[first].bias[0], first < 0 ? 0.0 : (double)fast_blocks[first].bias[1],
                  first < 0 ? 0.0 : (double)fast_blocks[first].bias[2], first < 0 ? 0.0 : (double)ref_blocks[first].bias[0],
                  first < 0 ? 0.0 : (double)ref_blocks[first].bias[1], first < 0 ? 0.0 : (double)ref_blocks[first].bias[2]);
        }
    }
    return ref;
}

/* ctn__chord_rows's general loop, as it was before hinges had their own measure: ctn_chord_slot_measure of
 * every joint (the function the golden hashes were recorded with). */
static ctn_chord_rows_result measure_all(ctn_block *blocks, float h) {
    ctn_chord_rows_result r;
    float worst = 0.0f;
    double gap = 0.0, angle = 0.0;
    for (int s = 0; s < JOINTS; ++s) {
        float g, a;
        float e = ctn_chord_slot_measure(s, joint_view(defs, JOINTS, defs_core, defs_extra), pose, h, blocks, &g, &a);
        worst = e > worst ? e : worst;
        if (e != e) worst = INFINITY;
        gap = g > gap ? g : gap;
        angle = a > angle ? a : angle;
    }
    r.worst = worst, r.gap = gap, r.angle = angle;
    return r;
}

/* Hinges (plain, and every fifth with a limit or a motor, which take the general measure) among the ball
 * joints: ctn__chord_rows (its hinge measure, host/solve/chord_rows.c chord_hinge) against ctn_chord_slot_measure
 * of every joint, bit for bit (targets, largest error, gap, angle), on one and two threads. */
static void hinges_against_measure(const char *what, float h) {
    for (int s = 0; s < JOINTS; s += 2) {
        ctn_joint_def *d = &defs[s];
        d->type = CTN_JT_HINGE;
        d->rows = 5;
        ctn_v3 ax = rand_v3(1.0f);
        d->axis_a = ctn_scale(ax, 1.0f / ctn_length(ax));
        d->axis_b = s % 4 ? ctn_quat_rotate_inv(ctn_load_pose(pose, d->b).q, ctn_quat_rotate(ctn_load_pose(pose, d->a).q, d->axis_a))
                          : d->axis_a; /* mostly aligned (the joint holds), else across */
        d->flags = s % 10 == 0 ? CTN_JF_LIMIT : s % 10 == 4 ? CTN_JF_MOTOR : 0;
        d->lo = -0.5f, d->hi = 0.5f;
    }
    memset(ref_blocks, 0xA5, sizeof ref_blocks);
    ctn_chord_rows_result ref = measure_all(ref_blocks, h), got;
    for (int threads = 1; threads <= 2; ++threads) {
        memset(fast_blocks, 0xA5, sizeof fast_blocks);
        ctn__chord_rows(joint_view(defs, JOINTS, defs_core, defs_extra), JOINTS, pose, h, fast_blocks, 0, threads, &got);
        CHECK(bits_f(got.worst) == bits_f(ref.worst) && bits_d(got.gap) == bits_d(ref.gap) && bits_d(got.angle) == bits_d(ref.angle),
              "%s (%d threads): worst %.9g gap %.17g angle %.17g, measure %.9g %.17g %.17g", what, threads, (double)got.worst, got.gap,
              got.angle, (double)ref.worst, ref.gap, ref.angle);
        int first = -1, nans = 0;
        for (int s = 0; s < JOINTS && first < 0; ++s) {
            /* a NaN target is compared as NaN: IEEE 754 does not fix which operand's NaN (sign) an operation returns,
             * and the compiler may order a commutative operation's operands differently in the two measures */
            ctn_block x = fast_blocks[s], y = ref_blocks[s];
            for (int k = 0; k < CTN_MAX_ROWS; ++k)
                if (x.bias[k] != x.bias[k] && y.bias[k] != y.bias[k]) x.bias[k] = y.bias[k] = 0.0f, nans++;
            if (memcmp(&x, &y, sizeof x) != 0) first = s;
        }
        CHECK(first < 0, "%s (%d threads): block %d differs", what, threads, first);
        CHECK(nans == 0 || strstr(what, "NaN"), "%s: %d NaN targets", what, nans);
    }
}

int main(void) {
    /* near-closed joints: the errors the projection sees; a target is -C/h of each row */
    for (int rep = 0; rep < 4; ++rep) {
        make_world(1);
        ctn_chord_rows_result r = compare("closed joints", rep & 1 ? 1.0f / 60.0f : 1.0f / 240.0f);
        CHECK(r.worst > 0.0f && r.worst < 1e-5f && r.gap > 0.0 && r.gap < 1e-5 && r.angle == 0.0, "closed joints: worst %.3g, gap %.3g, angle %.3g",
              (double)r.worst, r.gap, r.angle);
        CHECK(r.gap >= r.worst && r.gap <= sqrt(3.0) * r.worst * (1.0 + 1e-6), "closed joints: gap %.9g against the largest row error %.9g",
              r.gap, (double)r.worst);
        float h = rep & 1 ? 1.0f / 60.0f : 1.0f / 240.0f;
        ctn_v3 c7 = ctn_chord_ball(7, joint_view(defs, JOINTS, defs_core, defs_extra), pose, h, fast_blocks); /* the targets are -C/h of the rows */
        CHECK(bits_f(ref_blocks[7].bias[0]) == bits_f(-c7.x / h) && bits_f(ref_blocks[7].bias[2]) == bits_f(-c7.z / h) && c7.x != 0.0f,
              "closed joints: target %.9g for C %.9g", (double)ref_blocks[7].bias[0], (double)c7.x);
    }
    /* wide-open joints */
    make_world(0);
    ctn_chord_rows_result r = compare("open joints", 1.0f / 60.0f);
    CHECK(r.worst > 1.0f && isfinite(r.worst), "open joints: worst %.3g", (double)r.worst);
    /* a NaN position: the largest error is infinite (the chord step fails its test), the gap that of the others */
    make_world(1);
    pose[17].p.y = NAN;
    r = compare("a NaN position", 1.0f / 60.0f);
    CHECK(isinf(r.worst) && r.worst > 0.0f && isfinite(r.gap), "a NaN position: worst %.3g, gap %.3g", (double)r.worst, r.gap);
    /* an infinite one: infinite error and gap */
    make_world(1);
    pose[23].p_lo.z = -INFINITY;
    r = compare("an infinite position", 1.0f / 60.0f);
    CHECK(isinf(r.worst) && isinf(r.gap), "an infinite position: worst %.3g, gap %.3g", (double)r.worst, r.gap);
    /* hinges among the ball joints: near-closed, wide open, a NaN position */
    make_world(1);
    hinges_against_measure("closed hinges", 1.0f / 60.0f);
    make_world(0);
    hinges_against_measure("open hinges", 1.0f / 240.0f);
    make_world(1);
    pose[17].p.y = NAN;
    pose[40].q.x = NAN;
    hinges_against_measure("hinges, NaN poses", 1.0f / 60.0f);
    /* no joints */
    ctn_chord_rows_result none;
    ctn__chord_rows(joint_view(defs, JOINTS, defs_core, defs_extra), 0, pose, 1.0f / 60.0f, fast_blocks, 1, 1, &none);
    CHECK(none.worst == 0.0f && none.gap == 0.0 && none.angle == 0.0, "no joints: worst %.3g, gap %.3g", (double)none.worst, none.gap);

    /* the lean loop's condition, once per layout */
    char err[256];
    ctn_world *w = fixture_world(CTN_BACKEND_CPU, CTN_SOLVER_DIRECT, err, sizeof err);
    CHECK(w != NULL, "%s", err);
    if (w) {
        CHECK(ctn_scene_from_spec(w, "chain:10") == CTN_OK, "%s", ctn_world_last_error(w));
        CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_compact_cache cache;
        memset(&cache, 0, sizeof cache);
        CHECK(ctn__chord_all_ball(w, &cache) == 1, "chain:10 is not seen as ball joints alone");
        ctn_body_id body;
        CHECK(ctn_world_body_at(w, 3, &body) == CTN_OK, "%s", ctn_world_last_error(w));
        const double pivot[3] = {0.3, 0.0, 0.0}, axis[3] = {0.0, 0.0, 1.0};
        fixture_world_joint(w, CTN_JOINT_HINGE, body, pivot, axis, NULL);
        CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        CHECK(ctn__chord_all_ball(w, &cache) == 0, "a chain with a hinge is seen as ball joints alone");
        ctn_world_destroy(w);
    }
    return check_report("test_chord_rows");
}
