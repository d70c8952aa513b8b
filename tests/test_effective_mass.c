/* Effective mass: the block inverse K^-1 packed in ctn_block.kinv by ctn_joint_prepare, inverted back in
 * double, must equal a dense double
 *     K = J M^-1 J^T + S + 1e-6 diag(J M^-1 J^T)
 * assembled independently from explicit 12-column Jacobian rows [lin_a, ang_a, lin_b, ang_b] and full
 * 6x6 inverse mass matrices diag(1/m I3, R diag(1/I) R^T) (the world inverse inertia computed here in
 * double from the body's quaternion), with S = 4 eps Y / h^2 (SPOOK, Lacoursière 2011, eq. 23) and the 1e-6
 * relative floor that ctn_joint_prepare adds to the diagonal. Also with mass splitting (Jacobi: inverse
 * masses scaled by the body's joint count), with particles and with the world as body b.
 *
 * Tolerance: the library works in float32 (unit round-off 6e-8). Inverting kinv back amplifies its
 * relative error by at most cond(K); the configurations below have cond(K) <= ~1e3 (checked), so a
 * relative error of 1e-7 x cond x small constant stays below 1e-3 of max |K_ij|. We additionally check
 * K^-1 K = I to 1e-3, which catches a wrong lever arm, inertia frame or floor at the O(1) level. */
#include "catena/catena.h"
#include "check.h"
#include "ctn_rows.h"

#include <string.h>

static unsigned rng_state = 777u;
static double urand(void) {
    rng_state = rng_state * 1664525u + 1013904223u;
    return (double)(rng_state >> 8) / 8388608.0 - 1.0;
}
static ctn_v3 rand_v3(double s) { return ctn_v3_make((float)(s * urand()), (float)(s * urand()), (float)(s * urand())); }
static ctn_quat rand_quat(void) {
    double w = urand(), x = urand(), y = urand(), z = urand();
    double n = sqrt(w * w + x * x + y * y + z * z);
    return ctn_quat_make((float)(w / n), (float)(x / n), (float)(y / n), (float)(z / n));
}

/* Rotation matrix of a unit quaternion, in double. */
static void quat_matrix(ctn_quat q, double R[3][3]) {
    double w = q.w, x = q.x, y = q.y, z = q.z;
    R[0][0] = 1 - 2 * (y * y + z * z), R[0][1] = 2 * (x * y - w * z), R[0][2] = 2 * (x * z + w * y);
    R[1][0] = 2 * (x * y + w * z), R[1][1] = 1 - 2 * (x * x + z * z), R[1][2] = 2 * (y * z - w * x);
    R[2][0] = 2 * (x * z - w * y), R[2][1] = 2 * (y * z + w * x), R[2][2] = 1 - 2 * (x * x + y * y);
}

/* Full 6x6 inverse mass matrix of one body: diag(im I3, R diag(d) R^T). */
static void inverse_mass_6(double im, ctn_quat q, const double d[3], double Minv[6][6]) {
    double R[3][3];
    memset(Minv, 0, 36 * sizeof(double));
    quat_matrix(q, R);
    for (int i = 0; i < 3; ++i) Minv[i][i] = im;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double s = 0.0;
            for (int k = 0; k < 3; ++k) s += R[i][k] * d[k] * R[j][k];
            Minv[3 + i][3 + j] = s;
        }
}

static void cross_d(const double a[3], const double b[3], double out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Gauss-Jordan inverse with partial pivoting (n <= 6); returns 0 when singular. */
static int invert(int n, double A[6][6], double X[6][6]) {
    double M[6][12];
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < 2 * n; ++j) M[i][j] = j < n ? A[i][j] : (j - n == i ? 1.0 : 0.0);
    for (int c = 0; c < n; ++c) {
        int p = c;
        for (int r = c + 1; r < n; ++r)
            if (fabs(M[r][c]) > fabs(M[p][c])) p = r;
        if (fabs(M[p][c]) < 1e-300) return 0;
        for (int j = 0; j < 2 * n; ++j) {
            double t = M[c][j];
            M[c][j] = M[p][j];
            M[p][j] = t;
        }
        double piv = M[c][c];
        for (int j = 0; j < 2 * n; ++j) M[c][j] /= piv;
        for (int r = 0; r < n; ++r) {
            if (r == c) continue;
            double f = M[r][c];
            for (int j = 0; j < 2 * n; ++j) M[r][j] -= f * M[c][j];
        }
    }
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) X[i][j] = M[i][n + j];
    return 1;
}

static double max_abs(int n, double A[6][6]) {
    double m = 0.0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            if (fabs(A[i][j]) > m) m = fabs(A[i][j]);
    return m;
}

static int cases = 0;
static double worst = 0.0;

/* One configuration: builds the block with ctn_joint_prepare and compares. */
static void check_case(const char *what, int type, int particle_a, int particle_b, int world_b, double compliance, float split_a,
                       float split_b) {
    ctn_joint_def j;
    memset(&j, 0, sizeof j);
    j.type = type;
    j.rows = type == CTN_JT_DISTANCE ? 1 : type == CTN_JT_BALL ? 3 : type == CTN_JT_HINGE ? 5 : 6;
    j.a = 0;
    j.b = world_b ? -1 : 1;
    j.compliance = (float)compliance;
    j.rest_length = 0.5f;
    ctn_pose pa, pb;
    memset(&pa, 0, sizeof pa);
    memset(&pb, 0, sizeof pb);
    pa.p = rand_v3(1.0);
    pa.q = particle_a ? ctn_quat_identity() : rand_quat();
    pb.p = world_b ? ctn_v3_zero() : rand_v3(1.0);
    pb.q = particle_b || world_b ? ctn_quat_identity() : rand_quat();
    j.anchor_a = particle_a ? ctn_v3_zero() : rand_v3(0.5);
    j.anchor_b = particle_b ? ctn_v3_zero() : rand_v3(world_b ? 1.0 : 0.5);
    ctn_v3 ax = rand_v3(1.0);
    ax = ctn_scale(ax, 1.0f / ctn_length(ax));
    j.axis_a = ctn_quat_rotate_inv(pa.q, ax);
    j.axis_b = ctn_quat_rotate_inv(pb.q, ax);
    j.rel_q = ctn_quat_mul(ctn_quat_conj(pa.q), pb.q);

    /* masses in [0.5, 2] kg, anisotropic principal moments in [0.05, 0.5] kg m^2 */
    double ma = 1.25 + 0.75 * urand(), mb = 1.25 + 0.75 * urand();
    double Ia_body[3], Ib_body[3], da[3], db[3];
    for (int k = 0; k < 3; ++k) {
        Ia_body[k] = 0.275 + 0.225 * urand();
        Ib_body[k] = 0.275 + 0.225 * urand();
        da[k] = particle_a ? 0.0 : 1.0 / Ia_body[k];
        db[k] = particle_b || world_b ? 0.0 : 1.0 / Ib_body[k];
    }
    ctn_vel va, vb;
    memset(&va, 0, sizeof va);
    memset(&vb, 0, sizeof vb);
    float ima = (float)(1.0 / ma), imb = world_b ? 0.0f : (float)(1.0 / mb);
    va.v = rand_v3(1.0), vb.v = world_b ? ctn_v3_zero() : rand_v3(1.0);
    ctn_sym3 Ia = particle_a ? ctn_sym3_zero() : ctn_world_inverse_inertia(pa.q, ctn_v3_make((float)da[0], (float)da[1], (float)da[2]));
    ctn_sym3 Ib = particle_b || world_b ? ctn_sym3_zero() : ctn_world_inverse_inertia(pb.q, ctn_v3_make((float)db[0], (float)db[1], (float)db[2]));

    ctn_step_params prm;
    memset(&prm, 0, sizeof prm);
    prm.h = 1.0f / 240.0f;
    prm.stabilization = 0;
    ctn_block blk;
    ctn_joint_prepare(j, pa, pb, va, vb, ima, Ia, imb, Ib, split_a, split_b, prm, &blk);
    int n = ctn_block_rows(&blk);
    CHECK(n == j.rows, "%s: %d rows", what, n);

    /* dense J (n x 12) from explicit rows */
    double J[6][12];
    memset(J, 0, sizeof J);
    double ra[3] = {blk.ra.x, blk.ra.y, blk.ra.z}, rb[3] = {blk.rb.x, blk.rb.y, blk.rb.z};
    for (int k = 0; k < n; ++k) {
        double d[3] = {blk.dir[k].x, blk.dir[k].y, blk.dir[k].z}, ca[3], cb[3];
        cross_d(ra, d, ca);
        cross_d(rb, d, cb);
        for (int i = 0; i < 3; ++i) {
            if (k < blk.n_lin) J[k][i] = d[i], J[k][3 + i] = ca[i], J[k][6 + i] = -d[i], J[k][9 + i] = -cb[i];
            else J[k][3 + i] = d[i], J[k][9 + i] = -d[i];
        }
    }
    /* 12 x 12 block-diagonal M^-1 (with mass splitting factors, Tonge et al. 2012) */
    double Ma[6][6], Mb[6][6], Minv[12][12];
    double da_s[3] = {da[0] * split_a, da[1] * split_a, da[2] * split_a}, db_s[3] = {db[0] * split_b, db[1] * split_b, db[2] * split_b};
    inverse_mass_6((1.0 / ma) * split_a, pa.q, da_s, Ma);
    inverse_mass_6(world_b ? 0.0 : (1.0 / mb) * split_b, pb.q, db_s, Mb);
    memset(Minv, 0, sizeof Minv);
    for (int i = 0; i < 6; ++i)
        for (int k = 0; k < 6; ++k) Minv[i][k] = Ma[i][k], Minv[6 + i][6 + k] = Mb[i][k];
    double K[6][6];
    memset(K, 0, sizeof K);
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c) {
            double s = 0.0;
            for (int p = 0; p < 12; ++p)
                for (int q = 0; q < 12; ++q) s += J[r][p] * Minv[p][q] * J[c][q];
            K[r][c] = s;
        }
    /* SPOOK regularisation and the relative floor */
    double h = prm.h, tau = 2.0 * h, y = 1.0 / (1.0 + 4.0 * tau / h);
    double soft = 4.0 * compliance * y / (h * h);
    for (int r = 0; r < n; ++r) K[r][r] += soft + 1e-6 * K[r][r];
    for (int r = 0; r < n; ++r) CHECK_NEAR(blk.soft[r], soft, 1e-6 * (1.0 + soft), "S of a row");

    double Kinv_lib[6][6], K_back[6][6], Kinv_ref[6][6];
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c) Kinv_lib[r][c] = blk.kinv[r >= c ? CTN_TRI(r, c) : CTN_TRI(c, r)];
    CHECK(invert(n, Kinv_lib, K_back), "%s: packed K^-1 is singular", what);
    CHECK(invert(n, K, Kinv_ref), "%s: dense K is singular", what);
    double cond = max_abs(n, K) * max_abs(n, Kinv_ref);
    double scale = max_abs(n, K), err = 0.0, err_i = 0.0;
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c) {
            if (fabs(K_back[r][c] - K[r][c]) > err) err = fabs(K_back[r][c] - K[r][c]);
            double s = 0.0;
            for (int p = 0; p < n; ++p) s += Kinv_lib[r][p] * K[p][c];
            if (fabs(s - (r == c ? 1.0 : 0.0)) > err_i) err_i = fabs(s - (r == c ? 1.0 : 0.0));
        }
    CHECK(cond < 1e4, "%s: test configuration too ill-conditioned (cond ~ %.3g)", what, cond);
    CHECK(err <= 1e-3 * scale, "%s: (K^-1)^-1 differs from dense J M^-1 J^T + S by %.3g (max |K| %.3g, cond %.3g)", what, err, scale,
          cond);
    CHECK(err_i <= 1e-3, "%s: K^-1 K - I = %.3g (cond %.3g)", what, err_i, cond);
    if (err / scale > worst) worst = err / scale;
    cases++;
}

int main(void) {
    static const char *const names[] = {"distance", "ball", "hinge", "fixed"};
    char what[160];
    for (int type = CTN_JT_DISTANCE; type <= CTN_JT_FIXED; ++type) {
        int rigid_only = type >= CTN_JT_HINGE;
        for (int trial = 0; trial < 40; ++trial) {
            double eps = trial % 3 == 0 ? 0.0 : (trial % 3 == 1 ? 1e-4 : 1e-2); /* rigid, stiff and soft */
            float sa = trial % 4 == 3 ? 3.0f : 1.0f, sb = trial % 4 == 3 ? 2.0f : 1.0f; /* Jacobi mass splitting */
            snprintf(what, sizeof what, "%s rigid-rigid trial %d", names[type], trial);
            check_case(what, type, 0, 0, 0, eps, sa, sb);
            snprintf(what, sizeof what, "%s rigid-world trial %d", names[type], trial);
            check_case(what, type, 0, 0, 1, eps, sa, 1.0f);
            if (!rigid_only) {
                snprintf(what, sizeof what, "%s particle-particle trial %d", names[type], trial);
                check_case(what, type, 1, 1, 0, eps, sa, sb);
                snprintf(what, sizeof what, "%s particle-world trial %d", names[type], trial);
                check_case(what, type, 1, 0, 1, eps, sa, 1.0f);
                snprintf(what, sizeof what, "%s particle-rigid trial %d", names[type], trial);
                check_case(what, type, 1, 0, 0, eps, sa, sb);
            }
        }
    }
    printf("%d blocks compared, worst |(K^-1)^-1 - K| / max|K| = %.3g\n", cases, worst);
    return check_report("effective_mass");
}
