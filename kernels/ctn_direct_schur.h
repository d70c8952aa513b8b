/* Loop closers solved through their Schur complement: the math of the exact solver's step for a few
 * loop-closing rows, shared by the CPU (host/solve/solver_direct.c, schur_solve) and the OpenCL forest
 * path (kernels/catena_schur.cl, host/opencl/opencl_schur.c), so both backends close a ring the same way.
 * Valid C11 and OpenCL C (after cl_khr_fp64 is enabled, with CTN_DD_MAX_DENSE >= CTN_DD_MAX_SCHUR).
 *
 * With the forest factored, the velocity response of the forest-constrained system to a unit impulse on
 * loop-closing row k is dv_k = [H^-1 (J_k^T; 0)]_v (one substitution through the factor, H the KKT matrix
 * (2) of host/solve/solver_direct.c), so
 *     W = J_E [dv_1 .. dv_R] + S_E                                                              (S1)
 * is the exact Delassus matrix of the R loop-closing rows E (Schur complement of the forest block in the
 * system of all rows; Golub and Van Loan 2013, Matrix Computations, 4th ed., section 3.2.11). Each outer
 * iteration then applies
 *     dl_E = W^-1 r_E,   lambda_E += dl_E,   v += M^-1 J_E^T dl_E                               (S2)
 * (r_E = target - J v - S lambda of those rows) and re-solves the forest for the change this made to its
 * residual ((R) of kernels/ctn_direct_rhs.h): one iteration satisfies all rows at once up to round-off,
 * where block Gauss-Seidel over the loop closers converges at a rate set by how strongly they couple to
 * the forest (a 1000-link ring pinned at one link: 0.3 m open after 74 steps at 4 iterations).
 *
 * Rows are described by a record of CTN_SR_INTS ints each, in the order of the loop-closing joints and
 * their rows: the joint slot, the row, and the offset and DOF count of the body node of each of the
 * joint's two bodies in the substitution vectors (-1: the body has no node). */
#ifndef CTN_DIRECT_SCHUR_H
#define CTN_DIRECT_SCHUR_H

#include "ctn_solver.h"
#include "ctn_direct.h"

#define CTN_DD_MAX_SCHUR 48 /* loop-closing rows solved through W; more go to block Gauss-Seidel */
#if CTN_DD_MAX_DENSE < CTN_DD_MAX_SCHUR
#error "ctn_direct_schur.h: define CTN_DD_MAX_DENSE >= CTN_DD_MAX_SCHUR before including ctn_direct.h"
#endif

#define CTN_SR_SLOT 0 /* joint slot */
#define CTN_SR_ROW 1  /* row within the joint */
#define CTN_SR_VA 2   /* offset of body a's node vector (-1: none) */
#define CTN_SR_DA 3   /* its DOF count */
#define CTN_SR_VB 4   /* the same for body b */
#define CTN_SR_DB 5
#define CTN_SR_INTS 6

/* Right-hand side of the substitution that gives dv_k of (S1): b = (J_k^T; 0), whose only non-zeros are
 * on the body nodes of row k's joint. Adds row k's Jacobian to the node vector b of the node at offset vec
 * (the body of either side whose node that is; b starts at zero). */
CTN_FN void ctn_dd_schur_unit(const ctn_block *blk, CTN_GLOBAL const int *row, int vec, double *b) {
    double j[6];
    for (int side = 0; side < 2; ++side) {
        if (row[side ? CTN_SR_VB : CTN_SR_VA] != vec) continue;
        ctn_dd_jrow(blk, row[CTN_SR_ROW], side, j);
        for (int c = 0; c < row[side ? CTN_SR_DB : CTN_SR_DA]; ++c) b[c] += j[c];
    }
}

/* Column k of W (S1) from the solution x of that substitution (x: the node vectors): W_jk = S_k [j = k] +
 * J_j dv_k over the body nodes of row j's joint. */
CTN_FN void ctn_dd_schur_column(int k, int R, CTN_GLOBAL const int *rows, CTN_GLOBAL const ctn_block *blocks, CTN_GLOBAL const double *x,
                                CTN_GLOBAL double *W) {
    for (int j = 0; j < R; ++j) {
        CTN_GLOBAL const int *row = rows + CTN_SR_INTS * j;
        ctn_block blk = blocks[row[CTN_SR_SLOT]];
        double acc = j == k ? (double)blk.soft[row[CTN_SR_ROW]] : 0.0, jr[6];
        for (int side = 0; side < 2; ++side) {
            int v = row[side ? CTN_SR_VB : CTN_SR_VA];
            if (v < 0) continue;
            ctn_dd_jrow(&blk, row[CTN_SR_ROW], side, jr);
            for (int c = 0; c < row[side ? CTN_SR_DB : CTN_SR_DA]; ++c) acc += jr[c] * x[v + c];
        }
        W[j * R + k] = acc;
    }
}

/* W (R x R, row-major) replaced by W^-1: symmetrised (the round-off of the substitutions), then the
 * Cholesky inverse that drops exactly redundant rows (ctn_dd_spd_inverse_g). */
CTN_FN void ctn_dd_schur_invert(CTN_GLOBAL double *W, int R) {
    for (int j = 0; j < R; ++j)
        for (int k = 0; k < j; ++k) W[j * R + k] = W[k * R + j] = 0.5 * (W[j * R + k] + W[k * R + j]);
    ctn_dd_spd_inverse_g(W, R, R);
}

/* One outer iteration's impulse (S2): r_E of every loop-closing row (into rE, R doubles of scratch), dl_E =
 * W^-1 r_E, lambda_E += dl_E and v += M^-1 J_E^T dl_E on both bodies of each joint (both are dynamic). */
CTN_FN void ctn_dd_schur_impulse(int R, CTN_GLOBAL const double *Wi, CTN_GLOBAL const int *rows, ctn_joints defs,
                                 CTN_GLOBAL const ctn_block *blocks, CTN_GLOBAL ctn_vel *vel, CTN_GLOBAL const ctn_inertia *inertia,
                                 CTN_GLOBAL float *lambda, int ls, CTN_GLOBAL double *rE) {
    double dl[CTN_DD_MAX_SCHUR];
    ctn_block blk;
    for (int j = 0; j < R; ++j) {
        CTN_GLOBAL const int *row = rows + CTN_SR_INTS * j;
        if (row[CTN_SR_ROW] != 0) continue;
        int slot = row[CTN_SR_SLOT];
        blk = blocks[slot];
        ctn_dd_row_residual(&blk, ctn_load_vel(vel, CTN_JC(defs, slot).a), ctn_load_vel(vel, CTN_JC(defs, slot).b), lambda + ls * slot, rE + j);
    }
    for (int j = 0; j < R; ++j) {
        double acc = 0.0;
        for (int k = 0; k < R; ++k) acc += Wi[j * R + k] * rE[k];
        dl[j] = acc;
    }
    for (int j = 0; j < R;) {
        int slot = rows[CTN_SR_INTS * j + CTN_SR_SLOT], n = 0;
        float l[CTN_MAX_ROWS];
        for (int e = 0; e < CTN_MAX_ROWS; ++e) l[e] = 0.0f;
        blk = blocks[slot];
        while (j + n < R && rows[CTN_SR_INTS * (j + n) + CTN_SR_SLOT] == slot) {
            l[n] = (float)dl[j + n];
            lambda[ls * slot + n] = (float)((double)lambda[ls * slot + n] + dl[j + n]);
            ++n;
        }
        j += n;
        for (int side = 0; side < 2; ++side) {
            int body = side ? CTN_JC(defs, slot).b : CTN_JC(defs, slot).a;
            ctn_v3 dv, dw;
            ctn_block_body_delta(&blk, l, side, inertia[body].inv_mass, inertia[body].inv_inertia, &dv, &dw);
            vel[body].v = ctn_add(vel[body].v, dv);
            vel[body].w = ctn_add(vel[body].w, dw);
        }
    }
}

#endif /* CTN_DIRECT_SCHUR_H */
