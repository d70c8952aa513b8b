/* The exact solver's row build on the CPU (ctn__exact_rows, host/solve/hinge_rows.c: a hinge without a limit or
 * a motor by a lean build, every other joint by the shared ctn_prepare_slot_rows) against the shared build the
 * OpenCL backend runs (ctn_prepare_slot_rows of every joint, then ctn_project_block for the projection), block for
 * block, from the same garbage in both arrays (dir[5] of a plain hinge is left as it was), on one and on two
 * threads: random poses (two-float positions, unit quaternions; axes near the threshold of ctn_basis's choice),
 * velocities, joints to the world (b < 0) and from it (a < 0), static and kinematic bodies (no inverse mass; a
 * kinematic one moving), SPOOK and Baumgarte, damping times given or not, compliant joints, implicit springs,
 * padding fields holding NaN (read into a lane the build must ignore), non-finite velocities and poses, and
 * limited, motorised, ball and fixed joints among them (the shared build's). Projecting, with and without the
 * limits' rule: the bounds, the largest error and each joint's error (err[s]) too. And a plain hinge's joint
 * error (gap, angle) by the chord rows' lean measure (ctn__hinge_error) against ctn_joint_error. Every field must have the
 * same bits; a NaN is compared only as a NaN (IEEE 754 does not fix which operand's NaN an operation returns). */
#include "joint_view.h"
#include "check.h"
#include "solve/solve.h"
#include "ctn_solver.h"
#include "random_poses.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define HB 1500
#define HJ 6000 /* above the CPU's parallel threshold (4096) */
static ctn_pose pose[HB];
static ctn_vel vel[HB];
static ctn_joint_def defs[HJ];
static ctn_joint_core defs_core[HJ];
static ctn_joint_extra defs_extra[HJ];
static ctn_block ref[HJ], got[HJ];
static float ref_err[HJ], got_err[HJ];

/* same bits, or both NaN */
static int same_word(uint32_t a, uint32_t b) {
    float fa, fb;
    if (a == b) return 1;
    memcpy(&fa, &a, sizeof fa);
    memcpy(&fb, &b, sizeof fb);
    return fa != fa && fb != fb;
}

static int same_block(const ctn_block *a, const ctn_block *b) {
    uint32_t wa[sizeof(ctn_block) / 4], wb[sizeof(ctn_block) / 4];
    memcpy(wa, a, sizeof wa);
    memcpy(wb, b, sizeof wb);
    for (size_t k = 0; k < sizeof wa / sizeof *wa; ++k)
        if (!same_word(wa[k], wb[k])) return 0;
    return 1;
}

static ctn_v3 unit(void) {
    ctn_v3 v = rand_v3(1.0);
    float l = ctn_length(v);
    return l > 1e-3f ? ctn_scale(v, 1.0f / l) : ctn_v3_make(0.0f, 1.0f, 0.0f);
}

static int body(void) { return (int)((urand() + 1.0) * 0.5 * HB) % HB; }

static void make_inputs(void) {
    for (int i = 0; i < HB; ++i) {
        memset(&pose[i], 0, sizeof pose[i]);
        pose[i].p = rand_v3(10.0), pose[i].p_lo = rand_v3(1e-6), pose[i].q = rand_quat();
        vel[i].v = rand_v3(3.0), vel[i].w = rand_v3(5.0);
        if (i % 11 == 3) vel[i].v = ctn_v3_zero(), vel[i].w = ctn_v3_zero(); /* static */
        if (i % 97 == 5) vel[i].w.y = INFINITY;
        if (i % 131 == 7) vel[i].v.z = NAN;
        if (i % 173 == 9) vel[i].w.x = -INFINITY;
        if (i % 379 == 11) pose[i].q.x = NAN;
        if (i % 401 == 12) pose[i].p.y = INFINITY;
    }
    for (int s = 0; s < HJ; ++s) {
        ctn_joint_def *d = &defs[s];
        memset(d, 0, sizeof *d);
        int kind = s % 16; /* mostly plain hinges; the shared build's joints among them */
        d->type = kind == 13 ? CTN_JT_BALL : kind == 14 ? CTN_JT_FIXED : CTN_JT_HINGE;
        d->rows = ctn_joint_row_count(d->type);
        d->a = s % 211 == 17 ? -1 : body();
        d->b = s % 9 == 0 ? -1 : body();
        if (d->a < 0 && d->b < 0) d->b = body();
        d->anchor_a = rand_v3(0.5), d->anchor_b = rand_v3(0.5);
        d->axis_a = unit(), d->axis_b = unit();
        if (s % 17 == 2) d->axis_a = ctn_v3_make(0.57735f, 0.57735f, 0.57735f); /* ctn_basis's threshold */
        if (s % 19 == 3) d->axis_a = ctn_v3_make(1.0f, 0.0f, 0.0f), d->axis_b = d->axis_a;
        if (s % 23 == 4) d->axis_a = ctn_v3_make(0.0f, 0.0f, 1.0f), d->axis_b = d->axis_a;
        d->rel_q = rand_quat();
        d->rest_length = s % 3 ? NAN : 0.0f; /* the padding lanes after anchor_a, ... */
        d->stiffness = s % 5 ? -NAN : 1.0f;
        d->compliance = s % 4 == 0 ? (float)(1e-6 * (urand() + 1.0)) : 0.0f;
        d->damping_time = s % 5 == 0 ? 0.0f : (float)(0.05 * (urand() + 1.0));
        d->flags = s % 7 == 0 ? CTN_JF_IMPLICIT_SPRING : 0;
        if (d->type == CTN_JT_HINGE && kind == 10) { /* limited */
            d->flags |= CTN_JF_LIMIT, d->lo = -0.5f, d->hi = 0.5f, d->rows = 6;
        } else if (d->type == CTN_JT_HINGE && kind == 11) { /* motorised */
            d->flags |= CTN_JF_MOTOR, d->stiffness = 0.7f, d->damping = 2.0f, d->rows = 6;
        } else if (d->type == CTN_JT_HINGE && kind == 12) { /* both */
            d->flags |= CTN_JF_LIMIT | CTN_JF_MOTOR, d->lo = -0.3f, d->hi = 0.2f, d->stiffness = -0.5f, d->damping = 1.0f, d->rows = 6;
        }
    }
}

int main(void) {
    make_inputs();
    int plain = 0;
    for (int s = 0; s < HJ; ++s) plain += ctn__hinge_lean(&defs[s]);
    CHECK(plain > HJ / 2 && plain < HJ, "plain hinges: %d of %d", plain, HJ);
    int cases = 0, cover[5] = {0, 0, 0, 0, 0};
    for (int stab = 0; stab < 2; ++stab)
        for (int project = 0; project < 2; ++project)
            for (int limits = 0; limits <= project; ++limits) {
                ctn_step_params prm;
                memset(&prm, 0, sizeof prm);
                prm.h = 1.0f / 60.0f, prm.stabilization = stab, prm.baumgarte = 0.2f;
                memset(ref, 0xA5, sizeof ref);
                memset(ref_err, 0x5A, sizeof ref_err);
                float ref_worst = 0.0f;
                for (int s = 0; s < HJ; ++s) {
                    ctn_prepare_slot_rows(s, joint_view(defs, HJ, defs_core, defs_extra), pose, vel, prm, ref);
                    /* which of the sixth row's cases the joint took (before the projection's bounds) */
                    const ctn_block *r = &ref[s];
                    if (defs[s].type == CTN_JT_HINGE && r->n_ang == 3) {
                        float dh = defs[s].damping * prm.h;
                        int motor_row = r->lo[5] == -dh && r->hi[5] == dh && r->bias[5] == defs[s].stiffness;
                        int toward = r->lo[5] == -dh && !motor_row;
                        cover[0] += r->lo[5] == 0.0f && r->bias[5] < 0.0f; /* limit violated */
                        cover[1] += r->lo[5] == 0.0f && r->bias[5] > 0.0f; /* speculative */
                        cover[2] += motor_row;
                        cover[3] += toward && r->hi[5] == CTN_INF; /* into the limit, reached */
                        cover[4] += toward && r->hi[5] == dh;      /* into the limit, not reached */
                    }
                    if (!project) continue;
                    float e = ctn_project_block(defs[s].compliance, &ref[s], prm.h, limits);
                    if (limits) ref_err[s] = e;
                    ref_worst = e > ref_worst ? e : ref_worst;
                }
                for (int threads = 1; threads <= 2; ++threads) {
                    memset(got, 0xA5, sizeof got);
                    memset(got_err, 0x5A, sizeof got_err);
                    float worst = ctn__exact_rows(joint_view(defs, HJ, defs_core, defs_extra), HJ, pose, vel, prm, got, project, limits, got_err, threads);
                    int bad = -1, bad_err = -1;
                    for (int s = 0; s < HJ && bad < 0; ++s)
                        if (!same_block(&ref[s], &got[s])) bad = s;
                    for (int s = 0; s < HJ && bad_err < 0; ++s)
                        if (memcmp(&ref_err[s], &got_err[s], sizeof ref_err[s]) != 0) bad_err = s;
                    CHECK(bad < 0, "stabilization %d, project %d, limits %d, %d threads: joint %d (type %d, flags %d)'s block differs", stab,
                          project, limits, threads, bad, bad < 0 ? 0 : defs[bad].type, bad < 0 ? 0 : defs[bad].flags);
                    CHECK(bad_err < 0, "stabilization %d, project %d, limits %d, %d threads: joint %d's error differs", stab, project, limits,
                          threads, bad_err);
                    CHECK(memcmp(&worst, &ref_worst, sizeof worst) == 0, "stabilization %d, project %d, %d threads: worst %.9g, shared %.9g", stab,
                          project, threads, worst, ref_worst);
                    ++cases;
                }
            }
    /* the joint error of a plain hinge (the step's measurement, host/solve/solver_cpu.c stage_measure) by the chord
     * rows' lean measure against ctn_joint_error */
    int errors = 0, bad_error = -1;
    for (int s = 0; s < HJ; ++s) {
        if (!ctn__chord_hinge_plain(&defs[s])) continue;
        float g0, a0, g1, a1;
        ctn_joint_error(defs[s], ctn_load_pose(pose, defs[s].a), ctn_load_pose(pose, defs[s].b), &g0, &a0);
        ctn__hinge_error(joint_view(defs, HJ, defs_core, defs_extra), s, pose, &g1, &a1);
        uint32_t w[4];
        memcpy(&w[0], &g0, 4), memcpy(&w[1], &g1, 4), memcpy(&w[2], &a0, 4), memcpy(&w[3], &a1, 4);
        if (!(same_word(w[0], w[1]) && same_word(w[2], w[3])) && bad_error < 0) bad_error = s;
        errors++;
    }
    CHECK(errors > HJ / 4 && bad_error < 0, "joint errors of %d plain hinges: joint %d differs from ctn_joint_error", errors, bad_error);
    for (int k = 0; k < 5; ++k) CHECK(cover[k] > 0, "the sixth row's case %d never taken", k);
    printf("sixth rows: %d violated, %d speculative limits, %d motor rows, %d + %d driven into the limit\n", cover[0], cover[1],
           cover[2], cover[3], cover[4]);
    printf("hinge rows: %d hinges (the lean build) of %d joints, %d cases equal to the shared build\n", plain, HJ, cases);
    return check_report("hinge_rows");
}
