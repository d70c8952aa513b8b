/* The exact solver for chains (host/opencl/opencl_direct.c), in double precision (inside the
 * cl_khr_fp64 block of catena.cl). Part of the program kernels/catena.cl (included there, in order). */

/* ---- Exact solver for chains of joints (host/opencl_direct.c) ---------------------------------
 * Block-tridiagonal system A dl = r over the joints of simple paths, ordered along each path (position i,
 * slot perm[i]); paths are concatenated with zero couplings. Block cyclic reduction in double precision:
 * per position a dense 6x6 pivot D, couplings L (to the previous active position) and U (to the next one)
 * and the right-hand side b, all padded to `nb` rows (padding rows: identity pivot, zero couplings).
 * Only built when the device has cl_khr_fp64; the host checks the extension and creates these kernels
 * lazily, so devices without it still build the program. */

#define CTN_DFLOOR 1e-10 /* relative regularisation of every row, as DIRECT_FLOOR in host/solver_direct.c */

/* Row k of a block's Jacobian on one side (0: body a, 1: body b) as 6 doubles (linear, angular). */
CTN_FN void ctn_d_jrow(const ctn_block *b, int k, int side, double *j) {
    ctn_v3 lin = ctn_v3_zero(), ang;
    if (k < b->n_lin) {
        lin = b->dir[k];
        ang = ctn_cross(side ? b->rb : b->ra, b->dir[k]);
    } else {
        ang = b->dir[k];
    }
    double sg = side ? -1.0 : 1.0;
    j[0] = sg * lin.x, j[1] = sg * lin.y, j[2] = sg * lin.z;
    j[3] = sg * ang.x, j[4] = sg * ang.y, j[5] = sg * ang.z;
}

/* x^T M^-1 y for one body with inverse mass im and world inverse inertia I. */
CTN_FN double ctn_d_mform(double im, ctn_sym3 I, const double *x, const double *y) {
    double lin = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
    double ix = (double)I.xx * y[3] + (double)I.xy * y[4] + (double)I.xz * y[5];
    double iy = (double)I.xy * y[3] + (double)I.yy * y[4] + (double)I.yz * y[5];
    double iz = (double)I.xz * y[3] + (double)I.yz * y[4] + (double)I.zz * y[5];
    return im * lin + x[3] * ix + x[4] * iy + x[5] * iz;
}

/* Mass of body `body` as seen by the solver: zero for the world and for non-dynamic bodies. */
CTN_FN void ctn_d_mass(int body, __global const ctn_vel *vel, __global const ctn_inertia *inertia, double *im, ctn_sym3 *I) {
    *im = 0.0;
    *I = ctn_sym3_zero();
    if (body < 0) return;
    float m = vel[body].inv_mass;
    if (!(m > 0.0f)) return;
    *im = (double)m;
    *I = inertia[body].inv_inertia;
}

/* out (6x6, row-major, padded with zeros) = J_{p,side_p} M^-1 J_{q,side_q}^T. */
CTN_FN void ctn_d_coupling(const ctn_block *p, int side_p, const ctn_block *q, int side_q, double im, ctn_sym3 I, double *out) {
    int np = ctn_block_rows(p), nq = ctn_block_rows(q), r, c;
    double jp[6], jq[6];
    for (r = 0; r < 36; ++r) out[r] = 0.0;
    for (r = 0; r < np; ++r) {
        ctn_d_jrow(p, r, side_p, jp);
        for (c = 0; c < nq; ++c) {
            ctn_d_jrow(q, c, side_q, jq);
            out[r * 6 + c] = ctn_d_mform(im, I, jp, jq);
        }
    }
}

/* Position i: pivot, couplings and right-hand side r = target - J v - S lambda (double).
 * link[3 i .. 3 i + 2] = (body shared with position i + 1 or -1, its side in joint i, its side in joint i + 1). */
__kernel void ctn_k_direct_build(int n, __global const int *perm, __global const int *link, __global const ctn_joint_def *defs,
                                 __global const ctn_block *blocks, __global const ctn_vel *vel, __global const ctn_inertia *inertia,
                                 __global const float *lambda, __global double *D, __global double *L, __global double *U,
                                 __global double *bv) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    int s = perm[i], r, c;
    ctn_block blk = blocks[s], nb_blk;
    ctn_joint_def d = defs[s];
    int rows = ctn_block_rows(&blk);
    double ima, imb, m[36], t[36];
    ctn_sym3 Ia, Ib;
    ctn_d_mass(d.a, vel, inertia, &ima, &Ia);
    ctn_d_mass(d.b, vel, inertia, &imb, &Ib);
    ctn_d_coupling(&blk, 0, &blk, 0, ima, Ia, m);
    ctn_d_coupling(&blk, 1, &blk, 1, imb, Ib, t);
    for (r = 0; r < 36; ++r) m[r] += t[r];
    for (r = 0; r < 6; ++r) {
        if (r < rows) m[r * 7] += (double)blk.soft[r] + CTN_DFLOOR * m[r * 7];
        else m[r * 7] = 1.0;
    }
    for (r = 0; r < 36; ++r) D[36 * i + r] = m[r];
    /* r = target - J v - S lambda */
    ctn_vel va = ctn_load_vel(vel, d.a), vb = ctn_load_vel(vel, d.b);
    double x[6], y[6], ja[6], jb[6];
    x[0] = va.v.x, x[1] = va.v.y, x[2] = va.v.z, x[3] = va.w.x, x[4] = va.w.y, x[5] = va.w.z;
    y[0] = vb.v.x, y[1] = vb.v.y, y[2] = vb.v.z, y[3] = vb.w.x, y[4] = vb.w.y, y[5] = vb.w.z;
    for (r = 0; r < 6; ++r) {
        double rhs = 0.0;
        if (r < rows) {
            ctn_d_jrow(&blk, r, 0, ja);
            ctn_d_jrow(&blk, r, 1, jb);
            double jv = 0.0;
            for (c = 0; c < 6; ++c) jv += ja[c] * x[c] + jb[c] * y[c];
            rhs = (double)blk.bias[r] - jv - (double)blk.soft[r] * (double)lambda[6 * s + r];
        }
        bv[6 * i + r] = rhs;
    }
    /* U: coupling to position i + 1 through the shared body */
    int body = link[3 * i];
    if (body >= 0 && i + 1 < n) {
        double im;
        ctn_sym3 I;
        ctn_d_mass(body, vel, inertia, &im, &I);
        nb_blk = blocks[perm[i + 1]];
        ctn_d_coupling(&blk, link[3 * i + 1], &nb_blk, link[3 * i + 2], im, I, t);
    } else {
        for (r = 0; r < 36; ++r) t[r] = 0.0;
    }
    for (r = 0; r < 36; ++r) U[36 * i + r] = t[r];
    /* L: coupling to position i - 1 */
    body = i > 0 ? link[3 * (i - 1)] : -1;
    if (body >= 0) {
        double im;
        ctn_sym3 I;
        ctn_d_mass(body, vel, inertia, &im, &I);
        nb_blk = blocks[perm[i - 1]];
        ctn_d_coupling(&blk, link[3 * (i - 1) + 2], &nb_blk, link[3 * (i - 1) + 1], im, I, t);
    } else {
        for (r = 0; r < 36; ++r) t[r] = 0.0;
    }
    for (r = 0; r < 36; ++r) L[36 * i + r] = t[r];
}

/* In-place Cholesky of the SPD nb x nb block a (lower triangle). A pivot below 1e-13 of the row's
 * diagonal (a redundant row) becomes 0: that row's solution is 0 (the CPU direct solver drops it too). */
CTN_FN void ctn_d_chol(double *a, int nb) {
    int i, j, k;
    for (j = 0; j < nb; ++j) {
        double dj = a[j * 6 + j], d = dj;
        for (k = 0; k < j; ++k) d -= a[j * 6 + k] * a[j * 6 + k];
        d = d > 1e-13 * fabs(dj) && d > 0.0 ? sqrt(d) : 0.0;
        a[j * 6 + j] = d;
        for (i = j + 1; i < nb; ++i) {
            double s = a[i * 6 + j];
            for (k = 0; k < j; ++k) s -= a[i * 6 + k] * a[j * 6 + k];
            a[i * 6 + j] = d > 0.0 ? s / d : 0.0;
        }
    }
}

/* Solves (L L^T) x = b in place for cols columns of b (6 x 6 row-major, column stride 1). */
CTN_FN void ctn_d_chol_solve(const double *a, int nb, double *b, int cols) {
    int i, k, c;
    for (c = 0; c < cols; ++c) {
        for (i = 0; i < nb; ++i) {
            double s = b[i * 6 + c];
            for (k = 0; k < i; ++k) s -= a[i * 6 + k] * b[k * 6 + c];
            b[i * 6 + c] = a[i * 6 + i] > 0.0 ? s / a[i * 6 + i] : 0.0;
        }
        for (i = nb - 1; i >= 0; --i) {
            double s = b[i * 6 + c];
            for (k = i + 1; k < nb; ++k) s -= a[k * 6 + i] * b[k * 6 + c];
            b[i * 6 + c] = a[i * 6 + i] > 0.0 ? s / a[i * 6 + i] : 0.0;
        }
    }
}

CTN_FN void ctn_d_load(__global const double *src, int at, double *dst, int len) {
    int k;
    for (k = 0; k < len; ++k) dst[k] = src[at * len + k];
}

/* acc -= a b (nb x nb blocks), or acc = -a b when assign. */
CTN_FN void ctn_d_mul_sub(double *acc, const double *a, const double *b, int nb, int assign) {
    int i, j, k;
    for (i = 0; i < nb; ++i)
        for (j = 0; j < nb; ++j) {
            double s = 0.0;
            for (k = 0; k < nb; ++k) s += a[i * 6 + k] * b[k * 6 + j];
            acc[i * 6 + j] = assign ? -s : acc[i * 6 + j] - s;
        }
}

/* One reduction level with stride st: position j = 2 st t eliminates its odd neighbours j - st and
 * j + st (which keep their own blocks for the back-substitution). */
CTN_FN void ctn_d_reduce_at(int j, int n, int st, int nb, __global double *D, __global double *L, __global double *U,
                            __global double *bv) {
    double dj[36], lj[36], uj[36], bj[6], nl[36], nu[36], po[36], x[36], y[36];
    int r, c;
    ctn_d_load(D, j, dj, 36);
    ctn_d_load(L, j, lj, 36);
    ctn_d_load(U, j, uj, 36);
    ctn_d_load(bv, j, bj, 6);
    for (r = 0; r < 36; ++r) nl[r] = nu[r] = 0.0;
    for (int side = 0; side < 2; ++side) {
        int o = side == 0 ? j - st : j + st;
        if (o < 0 || o >= n) continue;
        const double *cj = side == 0 ? lj : uj; /* coupling of j to o */
        ctn_d_load(D, o, po, 36);
        ctn_d_chol(po, nb);
        /* x = D_o^-1 (coupling of o back to j), y = D_o^-1 (coupling of o onward), plus D_o^-1 b_o in y's column 5.. */
        for (r = 0; r < 36; ++r) {
            x[r] = side == 0 ? U[36 * o + r] : L[36 * o + r];
            y[r] = side == 0 ? L[36 * o + r] : U[36 * o + r];
        }
        ctn_d_chol_solve(po, nb, x, nb);
        ctn_d_chol_solve(po, nb, y, nb);
        double z[36];
        for (r = 0; r < 36; ++r) z[r] = 0.0;
        for (r = 0; r < 6; ++r) z[r * 6] = bv[6 * o + r];
        ctn_d_chol_solve(po, nb, z, 1);
        ctn_d_mul_sub(dj, cj, x, nb, 0);
        ctn_d_mul_sub(side == 0 ? nl : nu, cj, y, nb, 1);
        for (r = 0; r < nb; ++r) {
            double s = 0.0;
            for (c = 0; c < nb; ++c) s += cj[r * 6 + c] * z[c * 6];
            bj[r] -= s;
        }
    }
    for (r = 0; r < 36; ++r) {
        D[36 * j + r] = dj[r];
        L[36 * j + r] = nl[r];
        U[36 * j + r] = nu[r];
    }
    for (r = 0; r < 6; ++r) bv[6 * j + r] = bj[r];
}

__kernel void ctn_k_direct_reduce(int n, int st, int nb, __global double *D, __global double *L, __global double *U,
                                  __global double *bv) {
    int j = 2 * st * (int)get_global_id(0);
    if (j < n) ctn_d_reduce_at(j, n, st, nb, D, L, U, bv);
}

/* Back-substitution of one level: x_i = D_i^-1 (b_i - L_i x_{i-st} - U_i x_{i+st}) for the odd positions
 * i = st (2 t + 1); root != 0: position 0 alone, x_0 = D_0^-1 b_0. */
CTN_FN void ctn_d_back_at(int i, int n, int st, int nb, int root, __global const double *D, __global const double *L,
                          __global const double *U, __global const double *bv, __global double *xv) {
    double p[36], z[36];
    int r, c;
    ctn_d_load(D, i, p, 36);
    ctn_d_chol(p, nb);
    for (r = 0; r < 36; ++r) z[r] = 0.0;
    for (r = 0; r < nb; ++r) {
        double s = bv[6 * i + r];
        if (!root) {
            for (c = 0; c < nb; ++c) s -= L[36 * i + r * 6 + c] * xv[6 * (i - st) + c];
            if (i + st < n)
                for (c = 0; c < nb; ++c) s -= U[36 * i + r * 6 + c] * xv[6 * (i + st) + c];
        }
        z[r * 6] = s;
    }
    ctn_d_chol_solve(p, nb, z, 1);
    for (r = 0; r < 6; ++r) xv[6 * i + r] = r < nb ? z[r * 6] : 0.0;
}

__kernel void ctn_k_direct_back(int n, int st, int nb, int root, __global const double *D, __global const double *L,
                                __global const double *U, __global const double *bv, __global double *xv) {
    int i = root ? 0 : st * (2 * (int)get_global_id(0) + 1);
    if (i >= n || (root && get_global_id(0) > 0)) return;
    ctn_d_back_at(i, n, st, nb, root, D, L, U, bv, xv);
}

/* lambda += dl, dlambda = dl for the gather (slot order). */
__kernel void ctn_k_direct_apply(int n, __global const int *perm, __global const ctn_block *blocks, __global const double *xv,
                                 __global float *lambda, __global float *dlambda) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    int s = perm[i], k, rows = blocks[s].n_lin + blocks[s].n_ang;
    for (k = 0; k < CTN_MAX_ROWS; ++k) {
        float dl = k < rows ? (float)xv[6 * i + k] : 0.0f;
        dlambda[6 * s + k] = dl;
        lambda[6 * s + k] += dl;
    }
}

/* |r|^2 of slot s after the solve (as host/solver_direct.c reports it). */
__kernel void ctn_k_direct_residual(int m, __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                                    __global const ctn_vel *vel, __global const float *lambda, __global float *r2) {
    int s = (int)get_global_id(0);
    if (s >= m) return;
    ctn_block b = blocks[s];
    float lam[CTN_MAX_ROWS], r[CTN_MAX_ROWS], acc = 0.0f;
    int k;
    for (k = 0; k < CTN_MAX_ROWS; ++k) lam[k] = lambda[6 * s + k];
    ctn_block_residual(&b, ctn_load_vel(vel, defs[s].a), ctn_load_vel(vel, defs[s].b), lam, r);
    for (k = 0; k < ctn_block_rows(&b); ++k) acc += r[k] * r[k];
    r2[s] = acc;
}
