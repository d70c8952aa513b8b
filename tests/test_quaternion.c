/* Quaternion integration by the exponential map (Lacoursière 2011, eq. 20-21, ctn_quat_integrate).
 *
 * 1. Unit norm: 1e6 steps with a tumbling angular velocity (changing direction and magnitude every step)
 *    keep | |q| - 1 | below 1e-6 at every step (float32: one step's round-off is ~1e-7; the update's
 *    final Newton rescale keeps it from accumulating).
 * 2. Accuracy: for a constant w the exact orientation is q(t) = exp(t/2 w) q0. After N steps the angle
 *    of q_N q(t)^* must be round-off small. The add-and-normalise update of eq. 22,
 *    e~ = e + h/2 (0, w) * e, e = e~ / |e~|, implemented here, rotates by 2 atan(h|w|/2) per step
 *    instead of h|w| (a third-order error per step, (h|w|)^3 / 12): its angle error must be far larger.
 * 3. The body-frame -> world-frame map: rotating by the integrated quaternion equals rotating by the
 *    analytic one, and the world inverse inertia R diag(d) R^T matches a double computation. */
#include "catena/catena.h"
#include "check.h"
#include "ctn_math.h"

/* Angle (rad) of the rotation taking b to a: 2 acos(|<a, b>|) for unit quaternions, computed in double
 * and robustly as 2 atan2(|vec(a b^*)|, |w(a b^*)|). */
static double angle_between(const double a[4], const double b[4]) {
    /* a * conj(b) */
    double w = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    double x = -a[0] * b[1] + a[1] * b[0] - a[2] * b[3] + a[3] * b[2];
    double y = -a[0] * b[2] + a[1] * b[3] + a[2] * b[0] - a[3] * b[1];
    double z = -a[0] * b[3] - a[1] * b[2] + a[2] * b[1] + a[3] * b[0];
    return 2.0 * atan2(sqrt(x * x + y * y + z * z), fabs(w));
}

static void to_d(ctn_quat q, double out[4]) { out[0] = q.w, out[1] = q.x, out[2] = q.y, out[3] = q.z; }

/* Hamilton product in double. */
static void qmul_d(const double a[4], const double b[4], double r[4]) {
    r[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    r[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    r[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    r[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

/* Lacoursière 2011, eq. 22 (what Catena must NOT do): e~ = e + h/2 G^T(e) w, i.e. e + h/2 (0, w) * e, then
 * normalise. */
static ctn_quat integrate_add_normalise(ctn_quat e, ctn_v3 w, float h) {
    ctn_quat dw = ctn_quat_mul(ctn_quat_make(0.0f, w.x, w.y, w.z), e);
    ctn_quat t = ctn_quat_make(e.w + 0.5f * h * dw.w, e.x + 0.5f * h * dw.x, e.y + 0.5f * h * dw.y, e.z + 0.5f * h * dw.z);
    float n = sqrtf(t.w * t.w + t.x * t.x + t.y * t.y + t.z * t.z);
    return ctn_quat_make(t.w / n, t.x / n, t.y / n, t.z / n);
}

int main(void) {
    /* ---- 1. unit norm over 1e6 steps with a tumbling w ---- */
    {
        ctn_quat q = ctn_quat_make(0.5f, 0.5f, -0.5f, 0.5f);
        const float h = 1.0f / 240.0f;
        double worst = 0.0;
        for (int i = 0; i < 1000000; ++i) {
            float t = (float)i * h;
            ctn_v3 w = ctn_v3_make(7.0f * sinf(0.9f * t), 5.0f * cosf(1.3f * t) + 3.0f, 11.0f * sinf(0.37f * t + 1.0f));
            q = ctn_quat_integrate(q, w, h);
            double n = sqrt((double)q.w * q.w + (double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z);
            if (fabs(n - 1.0) > worst) worst = fabs(n - 1.0);
        }
        printf("exp map, 1e6 tumbling steps: max | |q| - 1 | = %.3g\n", worst);
        CHECK(worst < 1e-6, "norm drift %.3g after 1e6 steps", worst);
        CHECK(isfinite(q.w) && isfinite(q.x) && isfinite(q.y) && isfinite(q.z), "non-finite quaternion");
    }

    /* ---- 2. constant w: exp map vs analytic vs add-and-normalise ---- */
    {
        const double wd[3] = {3.0, -2.0, 1.5}; /* |w| = 3.9 rad/s */
        const ctn_v3 w = ctn_v3_make((float)wd[0], (float)wd[1], (float)wd[2]);
        const double wn = sqrt(wd[0] * wd[0] + wd[1] * wd[1] + wd[2] * wd[2]);
        const float h = 1.0f / 60.0f; /* h|w| = 0.065 rad per step */
        const int steps = 2000;       /* t = 33 s, about 20 turns */
        ctn_quat q0 = ctn_quat_make(0.8f, 0.0f, 0.6f, 0.0f);
        ctn_quat qe = q0, qn = q0;
        double worst_exp = 0.0, final_exp = 0.0, final_an = 0.0;
        double q0d[4];
        to_d(q0, q0d);
        for (int i = 1; i <= steps; ++i) {
            qe = ctn_quat_integrate(qe, w, h);
            qn = integrate_add_normalise(qn, w, h);
            double t = (double)i * (double)h, half = 0.5 * t * wn;
            double e[4] = {cos(half), sin(half) * wd[0] / wn, sin(half) * wd[1] / wn, sin(half) * wd[2] / wn}, exact[4], a[4], b[4];
            qmul_d(e, q0d, exact);
            to_d(qe, a);
            to_d(qn, b);
            double ae = angle_between(a, exact);
            if (ae > worst_exp) worst_exp = ae;
            if (i == steps) {
                final_exp = ae;
                final_an = angle_between(b, exact);
            }
        }
        /* eq. 22 per-step angle error ~ (h|w|)^3/12 = 2.3e-5 rad, times 2000 steps ~ 0.046 rad */
        double predicted = steps * (h * wn - 2.0 * atan(0.5 * h * wn));
        printf("constant w, %d steps: exp-map angle error %.3g rad (worst %.3g); add-and-normalise (eq. 22) %.3g rad (predicted %.3g)\n",
               steps, final_exp, worst_exp, final_an, predicted);
        /* float round-off: ~1e-7 rad per step as a random walk, well below 1e-4 after 2000 steps */
        CHECK(worst_exp < 1e-4, "exp map drifts from the analytic rotation: %.3g rad", worst_exp);
        CHECK(final_an > 1e-2, "add-and-normalise should show its O(h^3) per-step error: %.3g rad", final_an);
        CHECK(final_an > 100.0 * final_exp, "exp map (%.3g) must beat add-and-normalise (%.3g) by far", final_exp, final_an);
        CHECK_NEAR(final_an, predicted, 0.2 * predicted, "eq. 22 error vs (h|w| - 2 atan(h|w|/2)) N");
    }

    /* ---- 3. rotation and world inverse inertia ---- */
    {
        ctn_quat q = ctn_quat_integrate(ctn_quat_identity(), ctn_v3_make(0.3f, -1.1f, 0.7f), 1.7f);
        double qd[4];
        to_d(q, qd);
        double R[3][3] = {{1 - 2 * (qd[2] * qd[2] + qd[3] * qd[3]), 2 * (qd[1] * qd[2] - qd[0] * qd[3]), 2 * (qd[1] * qd[3] + qd[0] * qd[2])},
                          {2 * (qd[1] * qd[2] + qd[0] * qd[3]), 1 - 2 * (qd[1] * qd[1] + qd[3] * qd[3]), 2 * (qd[2] * qd[3] - qd[0] * qd[1])},
                          {2 * (qd[1] * qd[3] - qd[0] * qd[2]), 2 * (qd[2] * qd[3] + qd[0] * qd[1]), 1 - 2 * (qd[1] * qd[1] + qd[2] * qd[2])}};
        ctn_v3 v = ctn_v3_make(0.2f, -0.9f, 1.4f);
        ctn_v3 rv = ctn_quat_rotate(q, v), back = ctn_quat_rotate_inv(q, rv);
        double vd[3] = {v.x, v.y, v.z};
        for (int i = 0; i < 3; ++i) {
            double s = R[i][0] * vd[0] + R[i][1] * vd[1] + R[i][2] * vd[2];
            CHECK_NEAR(i == 0 ? rv.x : i == 1 ? rv.y : rv.z, s, 1e-6, "R(q) v");
        }
        CHECK_NEAR(back.x, v.x, 1e-6, "R^T R v");
        CHECK_NEAR(back.y, v.y, 1e-6, "R^T R v");
        CHECK_NEAR(back.z, v.z, 1e-6, "R^T R v");
        double d[3] = {2.0, 5.0, 0.5};
        ctn_sym3 m = ctn_world_inverse_inertia(q, ctn_v3_make(2.0f, 5.0f, 0.5f));
        double ref[3][3];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) ref[i][j] = R[i][0] * d[0] * R[j][0] + R[i][1] * d[1] * R[j][1] + R[i][2] * d[2] * R[j][2];
        CHECK_NEAR(m.xx, ref[0][0], 1e-5, "Iinv xx");
        CHECK_NEAR(m.yy, ref[1][1], 1e-5, "Iinv yy");
        CHECK_NEAR(m.zz, ref[2][2], 1e-5, "Iinv zz");
        CHECK_NEAR(m.xy, ref[0][1], 1e-5, "Iinv xy");
        CHECK_NEAR(m.xz, ref[0][2], 1e-5, "Iinv xz");
        CHECK_NEAR(m.yz, ref[1][2], 1e-5, "Iinv yz");
        /* negative h is a backward step: integrate forward then back returns to the start */
        ctn_quat f = ctn_quat_integrate(q, ctn_v3_make(1.0f, 2.0f, 3.0f), 0.01f), r = ctn_quat_integrate(f, ctn_v3_make(1.0f, 2.0f, 3.0f), -0.01f);
        double a[4], b[4];
        to_d(q, a);
        to_d(r, b);
        CHECK(angle_between(a, b) < 1e-6, "forward then backward step leaves an angle of %.3g rad", angle_between(a, b));
    }
    return check_report("quaternion");
}
