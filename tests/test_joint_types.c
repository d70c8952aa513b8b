/* Every joint type, one world each, through the paths a joint must survive: a scene file round trip
 * (saved, loaded into a fresh world: bitwise the same steps; contacts are not scene content), a
 * checkpoint round trip (bitwise the same steps), a desc round trip (ctn_joint_get_desc into ctn_joint_add
 * stores the same joint), its rows against finite differences of its position
 * error at the world's poses, and the OpenCL backend (the same float32 kernels on PoCL: within 1e-4 of
 * the CPU after 30 steps). Types with a joint axis run twice: plain, and with every option the API
 * accepts for them (limits, motor, swing cone), so the option rows take the same paths.
 *
 * The walk runs over the joint-type table (host/core/joint_kinds.h) up to the first value without a
 * name, so a new type joins it without an edit here: a type added with ctn_joint_add is built as the
 * generic two-box pendulum below (its desc's defaults, anchored at a pivot when the table says so).
 *
 * Finite differences (as tests/test_jacobians.c, which covers random poses and particles): for random
 * body velocities (v, w), J v == (g(q + eps qdot) - g(q - eps qdot)) / (2 eps), a pose moving by
 * x +/- eps v, e -> exp(+/- eps/2 w) e, eps = 1e-3, tolerance 1e-3 (1 + |v| + |w| (1 + |r|)) (float32
 * round-off of g over 2 eps is ~1e-4, truncation ~1e-6; a wrong sign, axis or lever arm gives O(1)).
 * Rows without a position error (a contact's friction rows: g = 0 at every pose) and rows at a kink of g
 * (a cone's swing at 0) are skipped and counted; a gear's
 * row has a linear part d . (va - vb) that is no part of g (ctn_rows_gear), so its bodies share one
 * linear velocity. */
#define _POSIX_C_SOURCE 200809L
#include "core/joint_kinds.h"
#include "core/world.h"
#include "gear_rig.h"
#include "ids.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { STEPS = 30, FD_TRIALS = 20 };

static ctn_body_id box(ctn_world *w, double x, double y, double wx) {
    ctn_body_desc bd = ctn_body_desc_default();
    bd.position[0] = x, bd.position[1] = y;
    double half[3] = {0.2, 0.1, 0.1};
    ctn_inertia_box(bd.mass, half, bd.inertia);
    bd.angular_velocity[0] = wx;
    bd.angular_velocity[2] = 0.3;
    ctn_body_id id = CTN_NULL_BODY;
    CHECK(ctn_body_add(w, &bd, &id) == CTN_OK, "body: %s", ctn_world_last_error(w));
    return id;
}

/* The options of a joint with an axis, each where the joint-type table says the type takes it
 * (CTN_JK_LIMITS: ctn_joint_set_limits, _MOTOR: _motor, _SWING: _swing_limit); a type without the option
 * must refuse it with CTN_ERR_INVALID_ARGUMENT. Returns the options set (bits 1, 2, 4). */
static int set_options(ctn_world *w, ctn_joint_id j, ctn_joint_type type) {
    const char *name = ctn_joint_type_name(type);
    int set = 0;
    const unsigned flag[3] = {CTN_JK_LIMITS, CTN_JK_MOTOR, CTN_JK_SWING};
    ctn_status st[3] = {ctn_joint_set_limits(w, j, 1, -0.2, 0.3), ctn_joint_set_motor(w, j, 1, 0.5, 2.0), ctn_joint_set_swing_limit(w, j, 1, 0.4)};
    for (int k = 0; k < 3; ++k) {
        int has = ctn__joint_kind_has(type, flag[k]);
        CHECK(st[k] == (has ? CTN_OK : CTN_ERR_INVALID_ARGUMENT), "%s option %d: status %d (%s)", name, k, (int)st[k], ctn_world_last_error(w));
        if (st[k] == CTN_OK) set |= 1 << k;
    }
    return set;
}

/* The read-backs and setters each type takes where the joint-type table says so and refuses elsewhere
 * (CTN_ERR_INVALID_ARGUMENT, world unchanged): the coordinates (CTN_JK_ANGLE: ctn_joint_get_angle,
 * _AXES_ANGLE: _get_swing, _SLIDES: _get_translation), the rest length (_REST_LENGTH) and the rope
 * (_ROPE: ctn_joint_get_rope). Run on a world of its own (the rest length is set to what it is). */
static void readbacks(ctn_world *w, ctn_joint_type type, const char *name) {
    ctn_joint_id id = CTN_NULL_JOINT;
    for (int j = 0; j < ctn_world_joint_count(w) + 4; ++j) {
        ctn_joint_info ji;
        if (ctn_joint_get_info(w, HJOINT(w, j), &ji) == CTN_OK && ji.type == type) id = HJOINT(w, j);
    }
    if (!ctn_joint_is_valid(w, id)) return; /* contacts: no handle kept here */
    double v = 0.0;
    int on = 0;
    ctn_joint_desc d;
    const unsigned flag[5] = {CTN_JK_ANGLE, CTN_JK_AXES_ANGLE, CTN_JK_SLIDES, CTN_JK_REST_LENGTH, CTN_JK_ROPE};
    ctn_status st[5] = {ctn_joint_get_angle(w, id, &v), ctn_joint_get_swing(w, id, &v), ctn_joint_get_translation(w, id, &v), CTN_OK,
                        ctn_joint_get_rope(w, id, &on)};
    st[3] = ctn_joint_get_desc(w, id, &d);
    if (st[3] == CTN_OK) st[3] = ctn_joint_set_rest_length(w, id, d.rest_length > 0.0 ? d.rest_length : 0.5);
    for (int k = 0; k < 5; ++k)
        CHECK(st[k] == (ctn__joint_kind_has(type, flag[k]) ? CTN_OK : CTN_ERR_INVALID_ARGUMENT), "%s read-back %d: status %d (%s)", name, k,
              (int)st[k], ctn_world_last_error(w));
}

/* A world holding the joint `type`: body 0 hangs from the world by a ball joint, body 1 hangs from body 0
 * by the joint under test (gears and rack-and-pinions: the rig of tests/gear_rig.h). `options`: also set
 * the options the type takes (*options_set: which). */
static ctn_world *build(ctn_joint_type type, ctn_backend backend, int options, int *options_set) {
    char err[512];
    if (options_set) *options_set = 0;
    if (ctn__joint_kind_has(type, CTN_JK_TWO_BODIES)) {
        gear_rig r;
        CHECK(rig_build(&r, backend, CTN_SOLVER_GS, 2.0, err, sizeof err), "rig: %s", err);
        return r.w;
    }
    ctn_world *w = fixture_world(backend, CTN_SOLVER_GS, err, sizeof err);
    CHECK(w != NULL, "world: %s", err);
    if (!w) return NULL;
    /* b turns about x as well: the joint's free directions (a cone's swing) move off their start */
    ctn_body_id a = box(w, 0.0, -0.5, 0.0), b = box(w, 0.5, -1.0, 0.8);
    /* an axis other than the descs' default +z, so that a desc round trip that loses it fails */
    const double top[3] = {0.0, 0.0, 0.0}, mid[3] = {0.25, -0.75, 0.0}, z[3] = {0.0, 0.6, 0.8};
    fixture_world_joint(w, CTN_JOINT_BALL, a, top, NULL, NULL);
    ctn_status st = CTN_OK;
    ctn_joint_id id = CTN_NULL_JOINT;
    if (type == CTN_JOINT_CONTACT) {
        ctn_contact_desc cd = ctn_contact_desc_default();
        cd.body_a = b, cd.body_b = a;
        cd.point[0] = mid[0], cd.point[1] = mid[1];
        cd.depth = 0.001;
        st = ctn_contact_add(w, &cd, NULL);
    } else if (type == CTN_JOINT_CURVE) {
        ctn_curve_desc cd = ctn_curve_desc_default(CTN_CURVE_CIRCLE);
        cd.body = b, cd.frame = a;
        cd.radius = sqrt(0.5); /* through b's centre: the rows are exact derivatives on the curve */
        st = ctn_curve_constraint_add(w, &cd, &id);
    } else {
        ctn_joint_desc jd = ctn_joint_desc_default(type);
        jd.body_a = b, jd.body_b = a;
        jd.rest_length = 0.6;
        if (type == CTN_JOINT_SPRING) jd.stiffness = 200.0, jd.damping = 1.0;
        if (ctn__joint_kind_has(type, CTN_JK_PIVOT)) st = ctn_joint_desc_set_pivot(w, &jd, mid, z);
        if (st == CTN_OK) st = ctn_joint_add(w, &jd, &id);
    }
    CHECK(st == CTN_OK, "%s joint: %s", ctn_joint_type_name(type), ctn_world_last_error(w));
    if (options && st == CTN_OK) {
        int set = set_options(w, id, type);
        if (options_set) *options_set = set;
    }
    int found = 0;
    for (int j = 0; j < ctn_world_joint_count(w) + 4; ++j) {
        ctn_joint_info ji;
        if (ctn_joint_get_info(w, HJOINT(w, j), &ji) == CTN_OK && ji.type == type) found = 1;
    }
    CHECK(found, "the world holds a %s joint", ctn_joint_type_name(type));
    return w;
}

/* Attachments (ctn_attach_point) move a body's frame into its composite's: they refuse the bodies of the
 * types the joint-type table marks CTN_JK_NO_ATTACH (CTN_ERR_UNSUPPORTED) and take the others, whose
 * joints then stay as closed as without it: a small body is added off-centre beside the joint's body a,
 * and attached to it or not; over the steps the largest gap and angle of the attached world stay within
 * 3 times those of the other plus 1e-4 (the attached body's mass changes the motion). Returns 0 when the
 * attachment was refused (or could not be tried); `out`: the worst gap and angle over the steps. */
static int attach_run(ctn_world *w, ctn_joint_type type, const char *name, int attach, double out[2]) {
    ctn_joint_id id = CTN_NULL_JOINT;
    for (int j = 0; j < ctn_world_joint_count(w) + 4; ++j) {
        ctn_joint_info ji;
        if (ctn_joint_get_info(w, HJOINT(w, j), &ji) == CTN_OK && ji.type == type) id = HJOINT(w, j);
    }
    ctn_joint_desc d;
    if (!ctn_joint_is_valid(w, id) || ctn_joint_get_desc(w, id, &d) != CTN_OK) return 0;
    ctn_body_state sa;
    CHECK(ctn_body_get_state(w, d.body_a, &sa) == CTN_OK, "%s: state: %s", name, ctn_world_last_error(w));
    ctn_body_desc bd = ctn_body_desc_default();
    bd.mass = 0.3;
    double half[3] = {0.05, 0.05, 0.05}, at[3] = {0.15, 0.05, 0.02};
    for (int k = 0; k < 3; ++k) bd.position[k] = sa.position[k] + at[k] + 1.0; /* apart, when not attached */
    ctn_inertia_box(bd.mass, half, bd.inertia);
    ctn_body_id x = CTN_NULL_BODY;
    CHECK(ctn_body_add(w, &bd, &x) == CTN_OK, "%s: body: %s", name, ctn_world_last_error(w));
    if (attach) {
        ctn_status st = ctn_attach_point(w, x, d.body_a, at);
        int refuse = ctn__joint_kind_has(type, CTN_JK_NO_ATTACH);
        CHECK(st == (refuse ? CTN_ERR_UNSUPPORTED : CTN_OK), "%s: attach: status %d (%s)", name, (int)st, ctn_world_last_error(w));
        if (st != CTN_OK) return 0;
    }
    out[0] = out[1] = 0.0;
    for (int i = 0; i < STEPS; ++i) {
        double gap = 0.0, angle = 0.0;
        CHECK(ctn_world_step(w) == CTN_OK, "%s: step: %s", name, ctn_world_last_error(w));
        CHECK(ctn_world_measure(w, &gap, &angle) == CTN_OK, "%s: measure: %s", name, ctn_world_last_error(w));
        out[0] = fmax(out[0], gap), out[1] = fmax(out[1], angle);
    }
    return 1;
}

static void attach_check(ctn_joint_type type, const char *name) {
    double with[2], without[2];
    ctn_world *w = build(type, CTN_BACKEND_CPU, 0, NULL), *o = build(type, CTN_BACKEND_CPU, 0, NULL);
    if (w && o && attach_run(w, type, name, 1, with) && attach_run(o, type, name, 0, without)) {
        printf("%-20s with a body attached: largest gap %.3g m, angle %.3g rad over %d steps (not attached: %.3g, %.3g)\n", name, with[0], with[1],
               STEPS, without[0], without[1]);
        CHECK(with[0] <= 3.0 * without[0] + 1e-4 && with[1] <= 3.0 * without[1] + 1e-4, "%s: attached, the joints open to %g m, %g rad (%g, %g without)",
              name, with[0], with[1], without[0], without[1]);
    }
    ctn_world_destroy(w);
    ctn_world_destroy(o);
}

/* ctn_joint_add refuses a CTN_JK_NO_ATTACH type on an attached body or a master (CTN_ERR_UNSUPPORTED,
 * no joint added): on the gear rig a fourth wheel, hinged and carrying an attached body, is geared to A. */
/* ctn_joint_add refuses every type the table does not add with it, naming the function that does (its
 * entry's added_by) and leaving the world unchanged; the table names one for each such type. */
static void other_adders(void) {
    ctn_world *w = build(CTN_JOINT_BALL, CTN_BACKEND_CPU, 0, NULL);
    if (!w) return;
    for (int t = 0; ctn__joint_kind(t); ++t) {
        const ctn_joint_kind *k = ctn__joint_kind(t);
        if (k->flags & CTN_JK_JOINT_ADD) {
            CHECK(k->added_by == NULL, "%s: added by ctn_joint_add and by %s", k->name, k->added_by);
            continue;
        }
        CHECK(k->added_by != NULL, "%s: not added by ctn_joint_add, and the table names no function that adds it", k->name);
        ctn_joint_desc d = ctn_joint_desc_default((ctn_joint_type)t);
        d.body_a = HBODY(w, 1), d.body_b = HBODY(w, 0);
        int n = ctn_world_joint_count(w);
        ctn_status st = ctn_joint_add(w, &d, NULL);
        const char *msg = ctn_world_last_error(w);
        CHECK(st == CTN_ERR_INVALID_ARGUMENT && ctn_world_joint_count(w) == n && k->added_by && strstr(msg, k->added_by),
              "ctn_joint_add of a %s: status %d (%s)", k->name, (int)st, msg);
    }
    ctn_world_destroy(w);
}

static void no_attach_add(void) {
    char err[512];
    gear_rig r;
    if (!rig_build(&r, CTN_BACKEND_CPU, CTN_SOLVER_GS, 0.0, err, sizeof err)) return;
    ctn_body_id y = rig_body(r.w, -2.0, 0.0, 1.0, 0.5, 0.5), x = rig_body(r.w, -2.0, 0.3, 0.2, 0.1, 0.1);
    const double pivot[3] = {-2.0, 0.0, 0.0}, z[3] = {0.0, 0.0, 1.0}, at[3] = {0.0, 0.3, 0.0};
    fixture_world_joint(r.w, CTN_JOINT_HINGE, y, pivot, z, NULL);
    CHECK(ctn_attach_point(r.w, x, y, at) == CTN_OK, "attach: %s", ctn_world_last_error(r.w));
    for (int t = 0; ctn__joint_kind(t); ++t) {
        if (!ctn__joint_kind_has(t, CTN_JK_NO_ATTACH | CTN_JK_JOINT_ADD)) continue;
        ctn_joint_desc d = ctn_joint_desc_default((ctn_joint_type)t);
        d.body_a = r.wheel[0], d.body_b = y;
        d.axis2[0] = 1.0, d.axis2[1] = 0.0, d.axis2[2] = 0.0; /* across the pinion's axis, for a rack */
        int n = ctn_world_joint_count(r.w);
        ctn_status st = ctn_joint_add(r.w, &d, NULL);
        CHECK(st == CTN_ERR_UNSUPPORTED && ctn_world_joint_count(r.w) == n, "%s on an attached master: status %d (%s)",
              ctn_joint_type_name((ctn_joint_type)t), (int)st, ctn_world_last_error(r.w));
    }
    ctn_world_destroy(r.w);
}

/* Largest difference of position, orientation and velocity over the live bodies of two worlds with the
 * same slots (-1 when a body cannot be read). */
static double state_diff(ctn_world *a, ctn_world *b) {
    double worst = 0.0;
    int n = 0;
    ctn_world_id_counts(a, &n, NULL);
    for (int i = 0; i < n; ++i) {
        ctn_body_state x, y;
        if (ctn_world_body_at(a, i, &(ctn_body_id){0}) != CTN_OK) continue;
        if (ctn_body_get_state(a, HBODY(a, i), &x) != CTN_OK || ctn_body_get_state(b, HBODY(b, i), &y) != CTN_OK) return -1.0;
        for (int k = 0; k < 3; ++k)
            worst = fmax(worst, fmax(fabs(x.position[k] - y.position[k]), fabs(x.velocity[k] - y.velocity[k])));
        for (int k = 0; k < 4; ++k) worst = fmax(worst, fabs(x.orientation[k] - y.orientation[k]));
    }
    return worst;
}

/* ---- finite differences of the stored rows at the world's poses and at random poses ---- */

static unsigned rng_state = 12345u;
static double urand(void) { /* uniform in [-1, 1) */
    rng_state = rng_state * 1664525u + 1013904223u;
    return (double)(rng_state >> 8) / 8388608.0 - 1.0;
}
static ctn_v3 rand_v3(double s) { return ctn_v3_make((float)(s * urand()), (float)(s * urand()), (float)(s * urand())); }

/* Pose moved by t along velocity v (exponential map for the orientation, as the integrator). */
static ctn_pose advance(ctn_pose p, ctn_vel v, float t) {
    p.p = ctn_madd(p.p, v.v, t);
    p.q = ctn_quat_integrate(p.q, v.w, t);
    return p;
}

/* A random rigid motion (rotation r about the origin, then translation t) applied to a pose. The rotation
 * is uniformly random: a normalised 4-vector of uniform components, rejected outside the unit ball. */
typedef struct rigid_motion {
    ctn_quat r;
    ctn_v3 t;
} rigid_motion;

static rigid_motion random_motion(void) {
    double q[4], n2;
    do {
        n2 = 0.0;
        for (int k = 0; k < 4; ++k) q[k] = urand(), n2 += q[k] * q[k];
    } while (!(n2 > 1e-4 && n2 <= 1.0));
    double n = sqrt(n2);
    rigid_motion m = {ctn_quat_make((float)(q[0] / n), (float)(q[1] / n), (float)(q[2] / n), (float)(q[3] / n)), rand_v3(2.0)};
    return m;
}

static ctn_pose moved(ctn_pose p, rigid_motion m) {
    p.p = ctn_add(ctn_quat_rotate(m.r, ctn_add(p.p, p.p_lo)), m.t);
    p.p_lo = ctn_v3_zero();
    ctn_quat q = ctn_quat_mul(m.r, p.q);
    float n = sqrtf(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    p.q = ctn_quat_make(q.w / n, q.x / n, q.y / n, q.z / n);
    return p;
}

typedef struct fd_stats {
    int checked, skipped, kinks;
    double worst; /* largest |J v - fd| / scale */
} fd_stats;

/* Every row of the live joint in slot j against central differences of its g, for FD_TRIALS random
 * velocities of its bodies. `random`: each trial at random poses of its two bodies, both moved by one
 * random rigid motion, so that the joint's own configuration (its error) stays as at the world's poses
 * while every body-frame quantity is seen from a random orientation and place: a row built in the wrong
 * frame, or with a lever arm about the wrong point, fails there. (The angular rows of hinges and fixed
 * joints are the derivative of g only where their angular error is 0, tests/test_jacobians.c, so poses
 * that break the joint would test nothing generic.) A joint to the world keeps its poses, and so do gears
 * and rack-and-pinions (CTN_JK_RATIO): their turns are measured from references fixed in the world, and
 * their rows are derivatives only while their centres move as hinged ones (ctn_rows_gear), so a common
 * motion changes their g; tests/test_jacobians.c covers them at random axes and references. */
static void fd_joint(const ctn_world *w, int slot, const char *what, int random, fd_stats *fs) {
    ctn_joint_def j = ctn__jdef_get(w, slot);
    ctn_pose pa0 = w->pose[j.a], pb0;
    memset(&pb0, 0, sizeof pb0);
    pb0.q = ctn_quat_identity(); /* the world: identity at the origin, at rest */
    if (j.b >= 0) pb0 = w->pose[j.b];
    const float eps = 1e-3f;
    for (int trial = 0; trial < FD_TRIALS; ++trial) {
        ctn_pose pa = pa0, pb = pb0;
        if (random && j.b >= 0 && !ctn__joint_kind_has(j.type, CTN_JK_RATIO)) {
            rigid_motion m = random_motion();
            pa = moved(pa0, m), pb = moved(pb0, m);
        }
        ctn_vel va, vb;
        memset(&va, 0, sizeof va), memset(&vb, 0, sizeof vb);
        va.v = rand_v3(1.0), va.w = rand_v3(2.0);
        if (j.b >= 0) vb.v = rand_v3(1.0), vb.w = rand_v3(2.0);
        if (ctn__joint_kind_has(j.type, CTN_JK_TWO_BODIES)) vb.v = va.v;
        ctn_block blk, bp, bm;
        float g[CTN_MAX_ROWS], gp[CTN_MAX_ROWS], gm[CTN_MAX_ROWS], jv[CTN_MAX_ROWS];
        ctn_joint_rows(j, pa, pb, &blk, g);
        CHECK(ctn_block_rows(&blk) == j.rows, "%s: %d rows built, %d stored", what, ctn_block_rows(&blk), j.rows);
        ctn_joint_rows(j, advance(pa, va, eps), advance(pb, vb, eps), &bp, gp);
        ctn_joint_rows(j, advance(pa, va, -eps), advance(pb, vb, -eps), &bm, gm);
        ctn_block_velocity(&blk, va, vb, jv);
        double scale = 1.0 + ctn_length(va.v) + ctn_length(vb.v) + ctn_length(va.w) * (1.0 + ctn_length(blk.ra)) +
                       ctn_length(vb.w) * (1.0 + ctn_length(blk.rb));
        for (int k = 0; k < ctn_block_rows(&blk); ++k) {
            if (g[k] == 0.0f && gp[k] == 0.0f && gm[k] == 0.0f) { /* no position error: a velocity-level row */
                fs->skipped++;
                continue;
            }
            /* g not smooth here: a kink (|x| at 0: a cone's swing at 0, where its row's direction is any) or
             * a row direction that jumps (a hinge's t_k, from ctn_basis, where its branch changes; g = 0
             * there, so the rows are right on either side). Then the second difference is O(eps |J v - fd|):
             * 2 eps |J v - fd| for g = |x|, however close the kink; where g is smooth it is O(eps^2), so a
             * wrong row (|J v - fd| = O(1)) is not taken for a kink. */
            double fd = ((double)gp[k] - (double)gm[k]) / (2.0 * eps), err = fabs((double)jv[k] - fd);
            double second = fabs((double)gp[k] + (double)gm[k] - 2.0 * (double)g[k]);
            if (second > 1e-4 * scale || (err > 1e-3 * scale && second > 0.5 * eps * err)) {
                fs->kinks++;
                continue;
            }
            fs->worst = fmax(fs->worst, err / scale);
            CHECK(err <= 1e-3 * scale, "%s trial %d row %d: J v = %.7g, finite difference %.7g (tol %.2g)", what, trial, k, (double)jv[k], fd,
                  1e-3 * scale);
            fs->checked++;
        }
    }
}

/* Every live joint of the world against finite differences (the CPU backend's state). `made`: the poses
 * the joints were made at; later, and at random poses, contacts are left out (a contact's normal row is
 * dg/dt only while the anchors' separation lies along the normal, as where it is made; one added by hand
 * stays as its bodies part, where collision detection would have replaced it). */
static void fd_world(const ctn_world *w, const char *what, int made, int random, fd_stats *fs) {
    char name[128];
    for (int s = 0; s < w->joint_count; ++s) {
        if (!w->joint_alive[s] || ((!made || random) && ctn__jcore(w, s)->type == CTN_JT_CONTACT)) continue;
        snprintf(name, sizeof name, "%s: joint %d (%s)%s", what, s, ctn_joint_type_name((ctn_joint_type)ctn__jcore(w, s)->type), random ? " at random poses" : "");
        fd_joint(w, s, name, random, fs);
    }
}

/* ctn_joint_get_desc read back into ctn_joint_add, at the same poses, must store the same joint: every live
 * joint of the table's ctn_joint_add types in a fresh world, added again from its desc and compared field by
 * field (float32 fields within 1e-6 of their size: the axes pass through the world frame in double). Joints
 * with options (the gear rig's motor) are left out: limits, motors, cones and ropes have their own setters. */
static void desc_round_trip(ctn_joint_type type, const char *name) {
    ctn_world *w = build(type, CTN_BACKEND_CPU, 0, NULL);
    if (!w) return;
    int n = w->joint_count, compared = 0;
    for (int s = 0; s < n; ++s) {
        if (!w->joint_alive[s] || !ctn__joint_kind_has(ctn__jcore(w, s)->type, CTN_JK_JOINT_ADD)) continue;
        if (ctn__jflags(w, s) & (CTN_JF_LIMIT | CTN_JF_MOTOR | CTN_JF_SWING | CTN_JF_ROPE)) continue; /* options: their setters, not the desc */
        const char *tn = ctn_joint_type_name((ctn_joint_type)ctn__jcore(w, s)->type);
        ctn_joint_desc d;
        ctn_joint_id again = CTN_NULL_JOINT;
        ctn_status st = ctn_joint_get_desc(w, HJOINT(w, s), &d);
        CHECK(st == CTN_OK, "%s: get_desc of joint %d: %s", name, s, ctn_world_last_error(w));
        if (st == CTN_OK) st = ctn_joint_add(w, &d, &again);
        CHECK(st == CTN_OK, "%s: joint %d (%s) from its desc: %s", name, s, tn, ctn_world_last_error(w));
        if (st != CTN_OK) continue;
        const ctn_joint_def xd = ctn__jdef_get(w, s), yd = ctn__jdef_get(w, w->joint_count - 1), *x = &xd, *y = &yd;
        CHECK(x->type == y->type && x->a == y->a && x->b == y->b && x->rows == y->rows && x->flags == y->flags,
              "%s: joint %d (%s) from its desc: type %d/%d, bodies %d,%d/%d,%d, rows %d/%d, flags %d/%d", name, s, tn, x->type, y->type, x->a,
              x->b, y->a, y->b, x->rows, y->rows, x->flags, y->flags);
        const float fx[] = {x->anchor_a.x, x->anchor_a.y, x->anchor_a.z, x->anchor_b.x, x->anchor_b.y, x->anchor_b.z, x->axis_a.x, x->axis_a.y,
                            x->axis_a.z, x->axis_b.x, x->axis_b.y, x->axis_b.z, x->rel_q.w, x->rel_q.x, x->rel_q.y, x->rel_q.z, x->rest_length,
                            x->compliance, x->damping_time, x->stiffness, x->damping, x->lo, x->hi};
        const float fy[] = {y->anchor_a.x, y->anchor_a.y, y->anchor_a.z, y->anchor_b.x, y->anchor_b.y, y->anchor_b.z, y->axis_a.x, y->axis_a.y,
                            y->axis_a.z, y->axis_b.x, y->axis_b.y, y->axis_b.z, y->rel_q.w, y->rel_q.x, y->rel_q.y, y->rel_q.z, y->rest_length,
                            y->compliance, y->damping_time, y->stiffness, y->damping, y->lo, y->hi};
        for (size_t k = 0; k < sizeof fx / sizeof fx[0]; ++k)
            CHECK(fabs((double)fx[k] - (double)fy[k]) <= 1e-6 * (1.0 + fabs((double)fx[k])), "%s: joint %d (%s) from its desc: field %zu is %.9g, was %.9g",
                  name, s, tn, k, (double)fy[k], (double)fx[k]);
        compared++;
    }
    CHECK(compared > 0 || !ctn__joint_kind_has(type, CTN_JK_JOINT_ADD), "%s: no joint compared", name);
    ctn_world_destroy(w);
}

static void walk(ctn_joint_type type, int options, int have_opencl) {
    char name[64];
    int set = 0;
    snprintf(name, sizeof name, "%s%s", ctn_joint_type_name(type), options ? "+options" : "");
    CHECK(strcmp(ctn_joint_type_name(type), "unknown") != 0 && name[0], "type %d has a name", (int)type);
    ctn_world *w = build(type, CTN_BACKEND_CPU, options, &set);
    if (!w) return;
    if (options) printf("%-20s options taken: %s%s%s\n", name, (set & 1) ? "limits " : "", (set & 2) ? "motor " : "", (set & 4) ? "swing" : "");
    fd_stats fs = {0, 0, 0, 0.0};
    if (!options) {
        desc_round_trip(type, name);
        ctn_world *r = build(type, CTN_BACKEND_CPU, 0, NULL);
        if (r) readbacks(r, type, name);
        ctn_world_destroy(r);
        attach_check(type, name);
    }
    fd_world(w, name, 1, 0, &fs);
    fd_world(w, name, 1, 1, &fs);
    /* scene file round trip (contacts are not scene content) */
    ctn_world_desc d;
    ctn_world_get_desc(w, &d);
    ctn_world *s = fixture_scene_reload(w, &d);
    if (s) {
        int want = ctn_world_joint_count(w) - (type == CTN_JOINT_CONTACT);
        CHECK(ctn_world_joint_count(s) == want, "%s: scene round trip has %d joints, want %d", name, ctn_world_joint_count(s), want);
        if (type != CTN_JOINT_CONTACT) {
            ctn_world *fresh = build(type, CTN_BACKEND_CPU, options, NULL);
            fixture_step_both(fresh, s, STEPS);
            double diff = state_diff(fresh, s);
            CHECK(diff == 0.0, "%s: the scene round trip steps differently (%g)", name, diff);
            ctn_world_destroy(fresh);
        }
        ctn_world_destroy(s);
    }
    /* checkpoint round trip */
    char path[64];
    snprintf(path, sizeof path, "test_joint_types_%d_%d.ckpt", (int)type, options);
    ctn_world_step(w);
    CHECK(ctn_world_save(w, path, 1, NULL) == CTN_OK, "%s: save: %s", name, ctn_world_last_error(w));
    ctn_world *c = NULL;
    char err[512];
    CHECK(ctn_world_load(path, NULL, &c, NULL, err, sizeof err) == CTN_OK, "%s: load: %s", name, err);
    remove(path);
    if (c) {
        fixture_step_both(w, c, STEPS);
        double diff = state_diff(w, c);
        CHECK(diff == 0.0, "%s: the checkpoint round trip steps differently (%g)", name, diff);
        ctn_world_destroy(c);
    }
    /* the rows again after the steps (the bodies have turned; limits may be active) */
    fd_world(w, name, 0, 0, &fs);
    printf("%-20s finite differences: %d rows checked, skipped %d velocity-level and %d at a kink, worst |Jv - fd| / scale %.3g\n", name,
           fs.checked, fs.skipped, fs.kinks, fs.worst);
    CHECK(fs.checked > 0, "%s: no row checked against finite differences", name);
    /* assembly (host/solve/assemble.c) closes the joints the steps left open, from the rows and their
     * errors (contacts and springs are not closed) */
    ctn_assemble_report rep;
    ctn_status ast = ctn_world_assemble(w, NULL, &rep);
    printf("%-20s assembly: gap %.3g m, angle %.3g rad -> %.3g m, %.3g rad in %d Newton steps\n", name, rep.initial_gap, rep.initial_angle,
           rep.max_gap, rep.max_angle, rep.newton_iterations);
    CHECK(ast == CTN_OK && rep.open_joints == 0 && rep.max_gap <= 1e-6 && rep.max_angle <= 1e-6, "%s: assembly: %s", name,
          ast == CTN_OK ? "open joints" : ctn_world_last_error(w));
    ctn_world_destroy(w);
    /* both backends */
    if (!have_opencl) return;
    ctn_world *cpu = build(type, CTN_BACKEND_CPU, options, NULL), *ocl = build(type, CTN_BACKEND_OPENCL, options, NULL);
    if (cpu && ocl) {
        for (int i = 0; i < STEPS; ++i)
            CHECK(ctn_world_step(cpu) == CTN_OK && ctn_world_step(ocl) == CTN_OK, "%s step %d: %s", name, i, ctn_world_last_error(ocl));
        double diff = state_diff(cpu, ocl);
        printf("%-20s CPU vs OpenCL after %d steps: %.3g\n", name, STEPS, diff);
        CHECK(diff >= 0.0 && diff < 1e-4, "%s: CPU and OpenCL differ by %g", name, diff);
    }
    ctn_world_destroy(cpu);
    ctn_world_destroy(ocl);
}

int main(void) {
    char why[256];
    int have_opencl = fixture_have_opencl(why, sizeof why);
    if (!have_opencl) printf("OpenCL part not run: %s\n", why);
    int types = 0;
    for (int t = 0; ctn__joint_kind(t); ++t, ++types) {
        walk((ctn_joint_type)t, 0, have_opencl);
        if (ctn__joint_kind_has(t, CTN_JK_AXIS)) walk((ctn_joint_type)t, 1, have_opencl);
    }
    no_attach_add();
    other_adders();
    (void)rig_track, (void)rig_error; /* gear_rig.h helpers this test does not need */
    CHECK(types == CTN_JT_COUNT && !strcmp(ctn_joint_type_name((ctn_joint_type)types), "unknown"),
          "the walk covered %d types; the table has %d, the next value is named '%s'", types, CTN_JT_COUNT,
          ctn_joint_type_name((ctn_joint_type)types));
    return check_report("joint_types");
}
