/* Jacobians against finite differences of the constraint functions.
 *
 * For every joint type (distance, ball, hinge, fixed, prismatic with its limit row, universal, cone-twist with
 * its swing and twist limit rows, gear, rack-and-pinion), with rigid bodies, particles and the world as
 * body b, the rows built by ctn_joint_rows / ctn_joint_prepare (kernels/ctn_rows.h) must satisfy
 *     J v == dg/dt == (g(q + eps qdot) - g(q - eps qdot)) / (2 eps)
 * for random body velocities, where a pose moves along (v, w) by x +/- eps v and e -> exp(+/- eps/2 w) e
 * (ctn_quat_integrate, the same exponential map the integrator uses).
 *
 * J v is formed twice: (1) from explicit 12-column rows [lin_a, ang_a, lin_b, ang_b] assembled in double
 * from the block's lever arms and directions (linear row d: [d, ra x d, -d, -(rb x d)], angular row t:
 * [0, t, 0, -t]), and (2) by the library's ctn_block_velocity. Both must match the finite difference.
 *
 * Linear rows (distance, and the point-to-point rows of ball/hinge/fixed) are exact derivatives at any
 * pose, so they are checked at random, violated poses. The angular rows of hinge and fixed are the
 * derivative of g only on the constraint manifold (dg/dt = t . (wa - wb) needs a1 = a2, resp. the
 * orientation error q_e = 1; away from it the error is O(|g|)), so they are checked at poses where the
 * angular constraint holds (positions still random); a separate check shows the error grows like |g|.
 * The universal row (g = a1 . a2), the cone-twist swing row (g = phi_max - phi) and twist row (g = theta -
 * lo or hi - theta, the exact rate T of ctn_twist_direction) and the slider's limit row are exact at any
 * pose, so they are checked at random poses away from their singular points (swing near 0 or pi, twist
 * near +-pi, where the angles wrap).
 *
 * Tolerances (float32 math): poses are O(1) m, so g carries a round-off of ~1e-7 m; with eps = 1e-3 the
 * central difference has a round-off error of ~1e-7 / 1e-3 = 1e-4 (relative to velocities of O(1)) and
 * a truncation error of eps^2 |g'''| / 6 ~ 1e-6. Moving the pose by eps v rounds each coordinate to
 * ~6e-8 of its size, another ~1e-4 relative. A tolerance of 1e-3 x (1 + |v| + |w| |r|) (relative to
 * the scale of the velocities) is 10x above these and still catches any wrong sign, missing lever arm
 * or wrong axis (those give O(1) errors). */
#include "catena/catena.h"
#include "check.h"
#include "ctn_rows.h"

#include <stdlib.h>
#include <string.h>

static unsigned rng_state = 12345u;
static double urand(void) { /* uniform in [-1, 1) */
    rng_state = rng_state * 1664525u + 1013904223u;
    return (double)(rng_state >> 8) / 8388608.0 - 1.0;
}
static ctn_v3 rand_v3(double s) { return ctn_v3_make((float)(s * urand()), (float)(s * urand()), (float)(s * urand())); }
static ctn_quat rand_quat(void) {
    double w = urand(), x = urand(), y = urand(), z = urand();
    double n = sqrt(w * w + x * x + y * y + z * z);
    return ctn_quat_make((float)(w / n), (float)(x / n), (float)(y / n), (float)(z / n));
}

typedef struct side {
    ctn_pose pose;
    ctn_vel vel;
    float inv_mass;
    int world;    /* body b is the world: identity pose at the origin, no motion */
    int particle; /* no orientation, no angular velocity */
} side;

static side make_side(int world, int particle) {
    side s;
    memset(&s, 0, sizeof s);
    s.world = world;
    s.particle = particle;
    s.pose.q = ctn_quat_identity();
    if (world) return s;
    s.pose.p = rand_v3(1.0);
    s.vel.v = rand_v3(1.0);
    s.inv_mass = 1.0f;
    if (!particle) {
        s.pose.q = rand_quat();
        s.vel.w = rand_v3(2.0);
    }
    return s;
}

/* Pose moved by t along the side's velocity (exponential map for the orientation). */
static ctn_pose advance(const side *s, float t) {
    ctn_pose p = s->pose;
    if (s->world) return p;
    p.p = ctn_madd(p.p, s->vel.v, t);
    if (!s->particle) p.q = ctn_quat_integrate(p.q, s->vel.w, t);
    return p;
}

static void cross_d(const double a[3], const double b[3], double out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Explicit 12-column row k of the block: [lin_a(3), ang_a(3), lin_b(3), ang_b(3)]. */
static void explicit_row(const ctn_block *b, int k, double row[12]) {
    double d[3] = {b->dir[k].x, b->dir[k].y, b->dir[k].z};
    double ra[3] = {b->ra.x, b->ra.y, b->ra.z}, rb[3] = {b->rb.x, b->rb.y, b->rb.z};
    double ca[3], cb[3];
    cross_d(ra, d, ca);
    cross_d(rb, d, cb);
    for (int i = 0; i < 3; ++i) {
        if (k < b->n_lin) {
            row[i] = d[i], row[3 + i] = ca[i], row[6 + i] = -d[i], row[9 + i] = -cb[i];
        } else {
            row[i] = 0.0, row[3 + i] = d[i], row[6 + i] = 0.0, row[9 + i] = -d[i];
        }
    }
}

static int checked_rows = 0;
static double worst_rel = 0.0; /* largest |J v - fd| / scale over the checked rows */

/* Checks every row of joint j at the sides' poses; `ang_ok`: also check angular rows. Returns the
 * largest angular-row mismatch (for the off-manifold check). */
static double check_joint(const char *what, ctn_joint_def j, const side *a, const side *b, int ang_ok) {
    ctn_block blk, bp, bm;
    float g[CTN_MAX_ROWS], gp[CTN_MAX_ROWS], gm[CTN_MAX_ROWS], jv[CTN_MAX_ROWS];
    const float eps = 1e-3f;
    double worst_ang = 0.0;
    ctn_joint_rows(j, a->pose, b->pose, &blk, g);
    CHECK(ctn_block_rows(&blk) == j.rows, "%s: %d rows, expected %d", what, ctn_block_rows(&blk), j.rows);

    /* the block of ctn_joint_prepare has the same rows */
    ctn_step_params prm;
    memset(&prm, 0, sizeof prm);
    prm.h = 1.0f / 240.0f;
    ctn_block full;
    ctn_sym3 Ia = ctn_world_inverse_inertia(a->pose.q, ctn_v3_make(1.0f, 2.0f, 3.0f));
    ctn_sym3 Ib = b->world ? ctn_sym3_zero() : ctn_world_inverse_inertia(b->pose.q, ctn_v3_make(2.0f, 1.0f, 0.5f));
    ctn_joint_prepare(j, a->pose, b->pose, a->vel, b->vel, a->inv_mass, Ia, b->inv_mass, Ib, 1.0f, 1.0f, prm, &full);
    CHECK(memcmp(&full.ra, &blk.ra, sizeof blk.ra) == 0 && memcmp(&full.rb, &blk.rb, sizeof blk.rb) == 0 &&
              full.n_lin == blk.n_lin && full.n_ang == blk.n_ang && memcmp(full.dir, blk.dir, (size_t)ctn_block_rows(&blk) * sizeof blk.dir[0]) == 0,
          "%s: ctn_joint_prepare built different rows than ctn_joint_rows", what);

    ctn_joint_rows(j, advance(a, eps), advance(b, eps), &bp, gp);
    ctn_joint_rows(j, advance(a, -eps), advance(b, -eps), &bm, gm);
    ctn_block_velocity(&blk, a->vel, b->vel, jv);
    double qd[12] = {a->vel.v.x, a->vel.v.y, a->vel.v.z, a->vel.w.x, a->vel.w.y, a->vel.w.z,
                     b->vel.v.x, b->vel.v.y, b->vel.v.z, b->vel.w.x, b->vel.w.y, b->vel.w.z};
    double scale = 1.0 + ctn_length(a->vel.v) + ctn_length(b->vel.v) + ctn_length(a->vel.w) * (1.0 + ctn_length(blk.ra)) +
                   ctn_length(b->vel.w) * (1.0 + ctn_length(blk.rb));
    double tol = 1e-3 * scale;
    for (int k = 0; k < ctn_block_rows(&blk); ++k) {
        int angular = k >= blk.n_lin;
        double fd = ((double)gp[k] - (double)gm[k]) / (2.0 * eps);
        double row[12], jv_explicit = 0.0;
        explicit_row(&blk, k, row);
        for (int c = 0; c < 12; ++c) jv_explicit += row[c] * qd[c];
        if (angular && fabs(jv_explicit - fd) > worst_ang) worst_ang = fabs(jv_explicit - fd);
        if (angular && !ang_ok) continue;
        if (fabs(jv_explicit - fd) / scale > worst_rel) worst_rel = fabs(jv_explicit - fd) / scale;
        CHECK(fabs(jv_explicit - fd) <= tol, "%s row %d (%s): J v = %.7g, finite difference %.7g (tol %.2g)", what, k,
              angular ? "angular" : "linear", jv_explicit, fd, tol);
        CHECK(fabs((double)jv[k] - jv_explicit) <= 1e-5 * scale, "%s row %d: ctn_block_velocity %.7g vs explicit row %.7g", what, k,
              (double)jv[k], jv_explicit);
        checked_rows++;
    }
    return worst_ang;
}

static ctn_joint_def make_joint(int type, const side *a, const side *b) {
    ctn_joint_def j;
    memset(&j, 0, sizeof j);
    j.type = type;
    j.a = 0;
    j.b = b->world ? -1 : 1;
    j.rows = ctn_joint_row_count(type);
    j.anchor_a = a->particle ? ctn_v3_zero() : rand_v3(0.5);
    j.anchor_b = b->particle ? ctn_v3_zero() : rand_v3(0.5);
    if (b->world) j.anchor_b = rand_v3(1.0); /* world-frame anchor */
    j.rest_length = 0.7f;
    j.rel_q = ctn_quat_identity();
    return j;
}

/* Puts the angular constraint of a hinge / fixed joint on its manifold by choosing the b-frame data
 * from the current orientations (as ctn_joint_add does at creation). */
static void satisfy_angular(ctn_joint_def *j, const side *a, const side *b) {
    if (j->type == CTN_JT_HINGE) {
        /* a world axis kept away from ctn_basis's switch at |n.x| = 0.577 so that t1, t2 are smooth */
        ctn_v3 ax;
        do {
            ax = rand_v3(1.0);
            ax = ctn_scale(ax, 1.0f / ctn_length(ax));
        } while (fabsf(fabsf(ax.x) - 0.57735f) < 0.1f);
        j->axis_a = ctn_quat_rotate_inv(a->pose.q, ax);
        j->axis_b = ctn_quat_rotate_inv(b->pose.q, ax);
    } else if (j->type == CTN_JT_FIXED || j->type == CTN_JT_PRISMATIC) {
        j->rel_q = ctn_quat_mul(ctn_quat_conj(a->pose.q), b->pose.q);
    }
    if (j->type == CTN_JT_PRISMATIC) { /* any slider axis: its rows are exact at every pose */
        ctn_v3 ax = rand_v3(1.0);
        j->axis_a = ctn_scale(ax, 1.0f / ctn_length(ax));
    }
}

/* A curve joint (kernels/ctn_curve.h) of kind `kind` in b's frame with the bead of a placed on it at a
 * random parameter: its rows are exact on the curve (off it, dn/dt . (x - c) is first order in the error). */
static ctn_joint_def make_curve(int kind, side *a, const side *b) {
    ctn_joint_def j = make_joint(CTN_JT_CURVE, a, b);
    j.rows = 2;
    j.flags = kind << CTN_JF_CURVE_KIND_SHIFT;
    ctn_v3 ax = rand_v3(1.0), e1;
    ax = ctn_scale(ax, 1.0f / ctn_length(ax));
    ctn_v3 t2;
    ctn_basis(ax, &e1, &t2);
    j.anchor_b = rand_v3(0.5);
    j.axis_b = ax;
    j.axis_a = e1;
    j.rest_length = 0.3f + 0.2f * (float)urand();
    /* pitch of either sign, at least 0.05 m: the bead keeps its turn of the helix while it is within p/2 of
     * the wire, and the finite differences move it by ~1e-3 m */
    double up = urand();
    j.lo = kind == CTN_CURVE_HELIX ? (float)((up < 0.0 ? -1.0 : 1.0) * (0.05 + 0.25 * fabs(up))) : 0.0f;
    float t = (float)(3.0 * urand());
    ctn_v3 local;
    if (kind == CTN_CURVE_POLYLINE) {
        ctn_v3 v1 = rand_v3(0.5), v2 = ctn_add(v1, rand_v3(0.5)), v3 = ctn_add(v2, rand_v3(0.5));
        j.axis_b = v1;
        j.axis_a = v2;
        j.rel_q = ctn_quat_make(0.0f, v3.x, v3.y, v3.z);
        j.hi = 4.0f;
        local = ctn_scale(ctn_add(v1, v2), 0.5f); /* the middle of segment 1 */
    } else if (kind == CTN_CURVE_LINE) {
        local = ctn_madd(j.anchor_b, ax, t);
    } else {
        ctn_v3 er, et;
        ctn_curve_radial(j, t, &er, &et);
        local = ctn_add(ctn_add(j.anchor_b, ctn_scale(er, j.rest_length)), ctn_scale(ax, j.lo / 6.28318530718f * t));
    }
    ctn_v3 world = ctn_add(b->pose.p, ctn_quat_rotate(b->pose.q, local));
    a->pose.p = ctn_sub(world, ctn_quat_rotate(a->pose.q, j.anchor_a));
    return j;
}

static ctn_v3 unit_v3(ctn_v3 v) { return ctn_scale(v, 1.0f / ctn_length(v)); }

/* A gear or rack-and-pinion between two random rigid bodies whose angle references were re-centred a random
 * turn (up to 2.8 rad either way) ago: ctn_gear_recentre at the poses turned back about the gears' axes. Gear
 * axes are random (bevel gears) or parallel either way; the rack's axis is across the pinion's. A gear's
 * row is the derivative of g for any angular velocities while its centres move together (its linear part
 * d . (va - vb) is not part of g, see ctn_rows_gear), so b's linear velocity is a's; the rack's row is exact
 * for any velocities. */
static ctn_joint_def make_gear(int type, side *a, side *b, int parallel) {
    ctn_joint_def j = make_joint(type, a, b);
    ctn_v3 ax = unit_v3(rand_v3(1.0)), ax2 = unit_v3(rand_v3(1.0));
    if (type == CTN_JT_RACK_PINION) ax2 = unit_v3(ctn_cross(ax, ax2));
    else if (parallel) ax2 = ctn_scale(ax, urand() < 0.0 ? -1.0f : 1.0f);
    j.axis_a = ctn_quat_rotate_inv(a->pose.q, ax);
    j.axis_b = ctn_quat_rotate_inv(b->pose.q, ax2);
    double r = urand();
    j.stiffness = (float)((r < 0.0 ? -1.0 : 1.0) * (0.2 + 1.8 * fabs(r)));
    ctn_pose pa = a->pose, pb = b->pose;
    pa.q = ctn_quat_integrate(pa.q, ax, (float)(-2.8 * urand()));
    pb.q = ctn_quat_integrate(pb.q, ax2, (float)(-2.8 * urand()));
    pb.p = ctn_madd(pb.p, ax2, (float)(0.5 * urand())); /* the rack somewhere else along its axis */
    ctn_gear_recentre(&j, pa, pb);
    j.rest_length += 0.1f * (float)urand(); /* an error carried over */
    if (type == CTN_JT_GEAR) b->vel.v = a->vel.v;
    return j;
}

/* Re-centring j (ctn_gear_recentre) leaves its g unchanged and its turn at zero: g before in g0, the largest
 * change so far in *worst. */
static void check_recentre(const char *what, ctn_joint_def j, const side *a, const side *b, float g0[CTN_MAX_ROWS], double *worst) {
    ctn_block blk;
    float g1[CTN_MAX_ROWS];
    ctn_joint_rows(j, a->pose, b->pose, &blk, g0);
    ctn_joint_def re = j;
    ctn_gear_recentre(&re, a->pose, b->pose);
    ctn_joint_rows(re, a->pose, b->pose, &blk, g1);
    *worst = fmax(*worst, fabs((double)g1[0] - (double)g0[0]));
    CHECK(fabsf(g1[0] - g0[0]) < 1e-5f && ctn_gear_turn(re, a->pose, b->pose) < 1e-5f, "%s: re-centring moved g from %.7g to %.7g (turn left %g)",
          what, g0[0], g1[0], ctn_gear_turn(re, a->pose, b->pose));
}

/* Gear and rack-and-pinion rows, and the re-centring: it leaves g unchanged while resetting the turn. */
static void check_gears(void) {
    char what[128];
    double worst_recentre = 0.0;
    for (int type = CTN_JT_GEAR; type <= CTN_JT_RACK_PINION; ++type)
        for (int trial = 0; trial < 100; ++trial) {
            side a = make_side(0, 0), b = make_side(0, 0);
            ctn_joint_def j = make_gear(type, &a, &b, trial % 2);
            snprintf(what, sizeof what, "%s trial %d", type == CTN_JT_GEAR ? "gear" : "rack-and-pinion", trial);
            check_joint(what, j, &a, &b, 1);
            float g0[CTN_MAX_ROWS];
            check_recentre(what, j, &a, &b, g0, &worst_recentre); /* measured: g unchanged bit for bit (the deltas restart at atan2(0, 1) = 0) */
        }
    printf("gears and rack-and-pinions: 200 joints; re-centring moved g by at most %.3g\n", worst_recentre);
}

/* Rack-and-pinion on a common base (CTN_JF_RACK_BASE, ctn_rows_rack_base): the pinion a turns relative to the
 * rack b only about its own axis (a hinge and a slider on one moving base keep a1 fixed in b's frame), so
 * wa = wb + s a1 with any wb; b moves at any velocity, the pinion point anywhere on a's axis. The row must
 * be the derivative of g there, after a random re-centring, and re-centring must leave g unchanged. */
static void check_rack_base(void) {
    char what[128];
    double worst_recentre = 0.0;
    for (int trial = 0; trial < 200; ++trial) {
        side a = make_side(0, 0), b = make_side(0, 0);
        ctn_joint_def j = make_joint(CTN_JT_RACK_PINION, &a, &b);
        ctn_v3 ax = unit_v3(rand_v3(1.0)), ax2 = unit_v3(ctn_cross(ax, unit_v3(rand_v3(1.0))));
        j.flags = CTN_JF_RACK_BASE;
        j.axis_a = ctn_quat_rotate_inv(a.pose.q, ax);
        j.axis_b = ctn_quat_rotate_inv(b.pose.q, ax2);
        j.anchor_b = ctn_madd(rand_v3(0.5), j.axis_a, 0.0f); /* the pinion point (a's frame) */
        double r = urand();
        j.stiffness = (float)((r < 0.0 ? -1.0 : 1.0) * (0.02 + 1.0 * fabs(r)));
        ctn_pose pa = a.pose, pb = b.pose;
        pa.q = ctn_quat_integrate(pa.q, ax, (float)(-2.8 * urand())); /* turned back on the base */
        pb.p = ctn_madd(pb.p, ax2, (float)(0.5 * urand()));
        ctn_gear_recentre(&j, pa, pb);
        j.rest_length += 0.1f * (float)urand();
        a.vel.w = ctn_madd(b.vel.w, ax, (float)(3.0 * urand()));
        snprintf(what, sizeof what, "rack-and-pinion on a base, trial %d", trial);
        check_joint(what, j, &a, &b, 1);
        ctn_block blk;
        float g0[CTN_MAX_ROWS], g1[CTN_MAX_ROWS];
        check_recentre(what, j, &a, &b, g0, &worst_recentre);
        /* g does not see a common motion of both bodies: the base turned and moved with both on it */
        ctn_quat turn = ctn_quat_integrate(ctn_quat_identity(), unit_v3(rand_v3(1.0)), 1.3f);
        ctn_v3 shift = rand_v3(1.0);
        ctn_pose qa = a.pose, qb = b.pose;
        qa.q = ctn_quat_mul(turn, qa.q), qa.p = ctn_add(ctn_quat_rotate(turn, qa.p), shift);
        qb.q = ctn_quat_mul(turn, qb.q), qb.p = ctn_add(ctn_quat_rotate(turn, qb.p), shift);
        ctn_joint_rows(j, qa, qb, &blk, g1);
        CHECK(fabsf(g1[0] - g0[0]) < 2e-5f * (1.0f + fabsf(g0[0])), "%s: moving the base changed g from %.7g to %.7g", what, g0[0], g1[0]);
    }
    printf("rack-and-pinions on a base: 200 joints; re-centring moved g by at most %.3g\n", worst_recentre);
}

/* Curve rows on the curve, for every kind and every pairing of rigid bodies, particles and the world. */
static void check_curves(void) {
    static const char *const kinds[] = {"line", "circle", "helix", "polyline"};
    char what[128];
    for (int kind = CTN_CURVE_LINE; kind <= CTN_CURVE_POLYLINE; ++kind)
        for (int config = 0; config < 4; ++config) /* a rigid/particle x b world/rigid */
            for (int trial = 0; trial < 50; ++trial) {
                side a = make_side(0, config >= 2), b = make_side(config % 2 == 0, 0);
                ctn_joint_def j = make_curve(kind, &a, &b);
                snprintf(what, sizeof what, "curve %s config %d trial %d", kinds[kind], config, trial);
                check_joint(what, j, &a, &b, 1);
                float g[CTN_MAX_ROWS];
                ctn_block blk;
                ctn_joint_rows(j, a.pose, b.pose, &blk, g);
                /* measured: |g| <= 3e-7 m (float rounding of the placement) */
                CHECK(fabsf(g[0]) < 1e-5f && fabsf(g[1]) < 1e-5f, "%s: bead placed on the curve has g = (%g, %g)", what, g[0], g[1]);
            }
}

int main(void) {
    static const char *const names[] = {"distance", "ball", "hinge", "fixed"};
    char what[128];
    for (int type = CTN_JT_DISTANCE; type <= CTN_JT_FIXED; ++type) {
        for (int config = 0; config < 4; ++config) {
            /* 0: rigid-rigid, 1: rigid-world, 2: particle-particle, 3: particle-world / particle-rigid */
            int rigid_only = type == CTN_JT_HINGE || type == CTN_JT_FIXED;
            if (rigid_only && config >= 2) continue;
            for (int trial = 0; trial < 50; ++trial) {
                side a = make_side(0, config >= 2);
                side b = make_side(config == 1 || (config == 3 && trial % 2 == 0), config == 2);
                ctn_joint_def j = make_joint(type, &a, &b);
                snprintf(what, sizeof what, "%s config %d trial %d", names[type], config, trial);
                if (rigid_only) {
                    /* linear rows at a violated random pose (angular rows are not derivatives there) */
                    satisfy_angular(&j, &a, &b);
                    ctn_joint_def off = j;
                    if (type == CTN_JT_HINGE) off.axis_b = ctn_add(off.axis_b, rand_v3(0.3));
                    else off.rel_q = ctn_quat_integrate(off.rel_q, rand_v3(1.0), 0.3f);
                    if (type == CTN_JT_HINGE) off.axis_b = ctn_scale(off.axis_b, 1.0f / ctn_length(off.axis_b));
                    check_joint(what, off, &a, &b, 0);
                }
                check_joint(what, j, &a, &b, 1);
            }
        }
    }
    /* The slider (rigid-rigid and rigid-world): its 2 linear rows are exact at any pose, also with the
     * orientation violated; its 3 angular rows are the fixed joint's, checked on their manifold. */
    for (int config = 0; config < 2; ++config) {
        for (int trial = 0; trial < 50; ++trial) {
            side a = make_side(0, 0), b = make_side(config == 1, 0);
            ctn_joint_def j = make_joint(CTN_JT_PRISMATIC, &a, &b);
            satisfy_angular(&j, &a, &b);
            snprintf(what, sizeof what, "prismatic config %d trial %d", config, trial);
            ctn_joint_def off = j;
            off.rel_q = ctn_quat_integrate(off.rel_q, rand_v3(1.0), 0.3f);
            check_joint(what, off, &a, &b, 0);
            check_joint(what, j, &a, &b, 1);
        }
    }
    /* The slider's limit row (a third linear row along the axis, guarding the nearer limit) at random
     * positions; each limit in turn is the nearer one. */
    for (int config = 0; config < 2; ++config) {
        for (int trial = 0; trial < 50; ++trial) {
            side a = make_side(0, 0), b = make_side(config == 1, 0);
            ctn_joint_def j = make_joint(CTN_JT_PRISMATIC, &a, &b);
            satisfy_angular(&j, &a, &b);
            float s0 = ctn_prismatic_position(j, a.pose, b.pose);
            j.flags = CTN_JF_LIMIT;
            j.lo = trial % 2 ? s0 - 0.3f : s0 - 2.0f;
            j.hi = trial % 2 ? s0 + 2.0f : s0 + 0.3f;
            j.rows = ctn_joint_def_rows(j);
            snprintf(what, sizeof what, "prismatic limit config %d trial %d", config, trial);
            check_joint(what, j, &a, &b, 1);
        }
    }
    /* Universal and cone-twist at random poses (rigid-rigid, rigid-world): random axes for the universal
     * (its row is exact anywhere); for the cone-twist a random rest orientation, a cone and twist limits
     * around the current angles (so both limit rows are present, each limit the nearer one in turn). */
    int cone_rows = 0;
    for (int config = 0; config < 2; ++config) {
        for (int trial = 0; trial < 100; ++trial) {
            side a = make_side(0, 0), b = make_side(config == 1, 0);
            ctn_joint_def u = make_joint(CTN_JT_UNIVERSAL, &a, &b);
            u.axis_a = rand_v3(1.0), u.axis_b = rand_v3(1.0);
            u.axis_a = ctn_scale(u.axis_a, 1.0f / ctn_length(u.axis_a));
            u.axis_b = ctn_scale(u.axis_b, 1.0f / ctn_length(u.axis_b));
            snprintf(what, sizeof what, "universal config %d trial %d", config, trial);
            check_joint(what, u, &a, &b, 1);

            ctn_joint_def c = make_joint(CTN_JT_CONE_TWIST, &a, &b);
            ctn_v3 ax = rand_v3(1.0);
            ax = ctn_scale(ax, 1.0f / ctn_length(ax));
            c.axis_a = ax;
            c.rel_q = rand_quat();
            c.axis_b = ctn_quat_rotate_inv(c.rel_q, ax); /* as at creation: the same axis seen from b at rest */
            float phi = ctn_swing_angle(c, a.pose, b.pose), theta = ctn_hinge_angle(c, a.pose, b.pose);
            if (phi < 0.1f || phi > 2.5f || fabsf(theta) > 2.8f) continue; /* the singular and wrapping points */
            c.flags = CTN_JF_SWING | CTN_JF_LIMIT;
            c.rest_length = phi + 0.2f;
            c.lo = trial % 2 ? theta - 0.3f : theta - 2.0f;
            c.hi = trial % 2 ? theta + 2.0f : theta + 0.3f;
            c.rows = ctn_joint_def_rows(c);
            snprintf(what, sizeof what, "cone-twist config %d trial %d (swing %.2f, twist %.2f)", config, trial, phi, theta);
            check_joint(what, c, &a, &b, 1);
            cone_rows += 5;
        }
    }
    printf("universal: 200 joints, cone-twist: %d rows at random poses\n", cone_rows);
    CHECK(cone_rows > 200, "only %d cone-twist rows checked", cone_rows);
    /* Off the angular manifold the angular rows are only first-order accurate: the mismatch grows
     * with the violation (documents why the rows above are checked on the manifold). */
    for (int type = CTN_JT_HINGE; type <= CTN_JT_FIXED; ++type) {
        double err_small = 0.0, err_big = 0.0;
        for (int trial = 0; trial < 20; ++trial) {
            side a = make_side(0, 0), b = make_side(0, 0);
            ctn_joint_def j = make_joint(type, &a, &b);
            satisfy_angular(&j, &a, &b);
            ctn_v3 tilt = rand_v3(1.0);
            tilt = ctn_scale(tilt, 1.0f / ctn_length(tilt));
            ctn_joint_def small = j, big = j;
            if (type == CTN_JT_FIXED) {
                small.rel_q = ctn_quat_integrate(j.rel_q, tilt, 0.01f);
                big.rel_q = ctn_quat_integrate(j.rel_q, tilt, 0.3f);
            } else {
                ctn_quat r1 = ctn_quat_integrate(ctn_quat_identity(), tilt, 0.01f), r2 = ctn_quat_integrate(ctn_quat_identity(), tilt, 0.3f);
                small.axis_b = ctn_quat_rotate(r1, j.axis_b);
                big.axis_b = ctn_quat_rotate(r2, j.axis_b);
            }
            double es = check_joint("off-manifold small", small, &a, &b, 0);
            double eb = check_joint("off-manifold big", big, &a, &b, 0);
            if (es > err_small) err_small = es;
            if (eb > err_big) err_big = eb;
        }
        printf("%s angular rows off the manifold: max |J v - dg/dt| = %.3g at 0.01 rad, %.3g at 0.3 rad\n", names[type], err_small,
               err_big);
        CHECK(err_small < 0.1 * err_big, "%s: off-manifold angular error should scale with the violation (%.3g vs %.3g)", names[type],
              err_small, err_big);
    }
    check_curves();
    check_gears();
    check_rack_base();
    printf("checked %d rows against finite differences, worst |J v - fd| / scale = %.3g\n", checked_rows, worst_rel);
    CHECK(checked_rows > 1000, "only %d rows checked", checked_rows);
    return check_report("jacobians");
}
