/* Block-Jacobi-preconditioned conjugate gradient on (J M^-1 J^T + S) lambda = target - J v (Hestenes and
 * Stiefel 1952), matrix-free: the per-joint-slot and per-body work of one iteration, written once for the
 * CPU backend (host/solve/solver_cpu.c solve_cg, a loop per function) and the OpenCL kernels
 * (kernels/catena.cl ctn_k_cg_*, one work-item per call). The dot products r.z, p.Ap and |r| are the
 * backends' own reductions (a fixed-order host loop; clBLAST on the device), and so are the scalars
 * alpha = r.z / p.Ap and beta = r_new.z_new / r.z formed from them.
 *
 * One iteration, with u the body velocities M^-1 J^T p and K_s the block preconditioner (the block's
 * effective mass inverse, ctn_block.kinv):
 *     u_i = M_i^-1 sum_s J_si^T p_s               ctn_cg_gather_body
 *     (A p)_s = J_s u + S_s p_s                     ctn_cg_apply_slot
 *     lambda += alpha p, r -= alpha A p, z = K^-1 r ctn_cg_update_slot
 *     v_i += alpha u_i                              ctn_cg_velocity_body  (velocities follow lambda)
 *     p = z + beta p                                ctn_cg_direction
 * Arrays hold 6 floats per slot; entries beyond a block's rows are kept at zero. On the host CTN_GLOBAL is
 * empty. */
#ifndef CTN_CG_H
#define CTN_CG_H

#include "ctn_solver.h"

/* The block's rows, at most CTN_MAX_ROWS (always so; said for compilers that bound the private arrays
 * below by it). */
CTN_FN int ctn_cg_rows(const ctn_block *b) {
    int n = ctn_block_rows(b);
    return n < CTN_MAX_ROWS ? n : CTN_MAX_ROWS;
}

/* r = target - J v - S lambda, z = K^-1 r, p = z for joint slot s (the start of the iteration). */
CTN_FN void ctn_cg_init_slot(int s, ctn_joints defs, CTN_GLOBAL const ctn_block *blocks,
                             CTN_GLOBAL const ctn_vel *vel, CTN_GLOBAL const float *lambda, int ls, CTN_GLOBAL float *r,
                             CTN_GLOBAL float *z, CTN_GLOBAL float *p) {
    ctn_block b = blocks[s];
    float lam[CTN_MAX_ROWS], rs[CTN_MAX_ROWS], zs[CTN_MAX_ROWS];
    int k, n = ctn_cg_rows(&b);
    ctn_lam_load(lambda, ls, s, lam);
    ctn_block_residual(&b, ctn_load_vel(vel, CTN_JC(defs, s).a), ctn_load_vel(vel, CTN_JC(defs, s).b), lam, rs);
    ctn_kinv_mul(b.kinv, n, rs, zs);
    for (k = 0; k < ls; ++k) {
        float zk = k < n ? zs[k] : 0.0f;
        r[ls * s + k] = rs[k];
        z[ls * s + k] = zk;
        p[ls * s + k] = zk;
    }
}

/* u_i = M_i^-1 J^T p over body i's joints (zero for a body without joints). */
CTN_FN void ctn_cg_gather_body(int i, CTN_GLOBAL const int *adj_offsets, CTN_GLOBAL const int *adj, CTN_GLOBAL const ctn_block *blocks,
                               CTN_GLOBAL const float *p, int ls, CTN_GLOBAL const ctn_inertia *inertia,
                               CTN_GLOBAL ctn_vel *u) {
    ctn_vel ui;
    ui.v = ctn_v3_zero();
    ui.w = ctn_v3_zero();
    if (adj_offsets[i] != adj_offsets[i + 1])
        ctn_gather_body(i, adj_offsets, adj, blocks, p, ls, inertia[i].inv_mass, inertia[i].inv_inertia, &ui.v, &ui.w);
    u[i] = ui;
}

/* (A p)_s = J_s u + S_s p_s: the operator J M^-1 J^T + S applied to the direction, for joint slot s. */
CTN_FN void ctn_cg_apply_slot(int s, ctn_joints defs, CTN_GLOBAL const ctn_block *blocks,
                              CTN_GLOBAL const ctn_vel *u, CTN_GLOBAL const float *p, int ls, CTN_GLOBAL float *ap) {
    ctn_block b = blocks[s];
    float jv[CTN_MAX_ROWS];
    int k, n = ctn_block_rows(&b);
    ctn_block_velocity(&b, ctn_load_vel(u, CTN_JC(defs, s).a), ctn_load_vel(u, CTN_JC(defs, s).b), jv);
    for (k = 0; k < ls; ++k) ap[ls * s + k] = k < n ? jv[k] + b.soft[k] * p[ls * s + k] : 0.0f;
}

/* lambda += alpha p, r -= alpha A p, z = K^-1 r for joint slot s. */
CTN_FN void ctn_cg_update_slot(int s, CTN_GLOBAL const ctn_block *blocks, float alpha, CTN_GLOBAL float *lambda, int ls,
                               CTN_GLOBAL float *r, CTN_GLOBAL const float *p, CTN_GLOBAL const float *ap, CTN_GLOBAL float *z) {
    ctn_block b = blocks[s];
    float rs[CTN_MAX_ROWS], zs[CTN_MAX_ROWS];
    int k, n = ctn_cg_rows(&b);
    for (k = 0; k < CTN_MAX_ROWS; ++k) rs[k] = 0.0f;
    for (k = 0; k < ls; ++k) {
        lambda[ls * s + k] += alpha * p[ls * s + k];
        rs[k] = r[ls * s + k] - alpha * ap[ls * s + k];
        r[ls * s + k] = rs[k];
    }
    ctn_kinv_mul(b.kinv, n, rs, zs);
    for (k = 0; k < ls; ++k) z[ls * s + k] = k < n ? zs[k] : 0.0f;
}

/* v_i += alpha u_i for a body with joints: the velocities follow lambda, so on exit v = v* + M^-1 J^T lambda
 * as after the other solvers. */
CTN_FN void ctn_cg_velocity_body(int i, CTN_GLOBAL const int *adj_offsets, float alpha, CTN_GLOBAL const ctn_vel *u,
                                 CTN_GLOBAL ctn_vel *vel) {
    if (adj_offsets[i] == adj_offsets[i + 1]) return;
    ctn_vel v = vel[i], ui = u[i];
    v.v = ctn_madd(v.v, ui.v, alpha);
    v.w = ctn_madd(v.w, ui.w, alpha);
    vel[i] = v;
}

/* p = z + beta p at float index k of the per-slot arrays. */
CTN_FN void ctn_cg_direction(int k, float beta, CTN_GLOBAL const float *z, CTN_GLOBAL float *p) { p[k] = z[k] + beta * p[k]; }

#endif /* CTN_CG_H */
