/* The right-hand sides of the exact solver (host/solve/solver_direct.c, direct_chain.c, direct_forest.c;
 * the OpenCL chain and forest kernels, kernels/catena_chain.cl and catena_forest.cl): r = target - J v - S lambda
 * of a joint's rows in double, in the 6-wide form of the forest and through the anchors' velocity difference
 * for the chain path, and for the hybrid's re-solves the change of r since the last exact solve (R).
 * Valid C11 and OpenCL C (after cl_khr_fp64 is enabled); included at the end of ctn_direct.h. */
#ifndef CTN_DIRECT_RHS_H
#define CTN_DIRECT_RHS_H

#include "ctn_direct.h"

/* rhs_only of the OpenCL exact solver's kernels for a solve through the factor in place with r itself
 * (target - J v - S lambda, not the change (R) below): the position stage of the RATTLE integrator, whose
 * chord iterations re-solve with the factor of x_n that the last velocity stage left (kernels/ctn_rattle.h). */
#define CTN_DD_RESOLVE_FULL 3

/* The velocity [v; w] of a body in double (Va), and its change since v0 (the differences of floats, exact
 * in double). */
CTN_FN void ctn_dd_vel(ctn_vel v, double *V) {
    V[0] = v.v.x, V[1] = v.v.y, V[2] = v.v.z, V[3] = v.w.x, V[4] = v.w.y, V[5] = v.w.z;
}
CTN_FN void ctn_dd_vel_change(ctn_vel v, ctn_vel v0, double *V) {
    V[0] = (double)v.v.x - v0.v.x, V[1] = (double)v.v.y - v0.v.y, V[2] = (double)v.v.z - v0.v.z;
    V[3] = (double)v.w.x - v0.w.x, V[4] = (double)v.w.y - v0.w.y, V[5] = (double)v.w.z - v0.w.z;
}

/* J_k V of row k of block b for the velocities Va, Vb ([v; w] in double) of its two bodies, 6-wide rows. */
CTN_FN double ctn_dd_row_jv(const ctn_block *b, int k, const double *Va, const double *Vb) {
    double ja[6], jb[6], jv = 0.0;
    ctn_dd_jrow(b, k, 0, ja);
    ctn_dd_jrow(b, k, 1, jb);
    for (int c = 0; c < 6; ++c) jv += ja[c] * Va[c] + jb[c] * Vb[c];
    return jv;
}

/* r = target - J v - S lambda of the n rows of a joint, the products in double (va, vb: the velocities of
 * its two bodies, zero for the world). */
CTN_FN void ctn_dd_row_residual(const ctn_block *b, ctn_vel va, ctn_vel vb, CTN_GLOBAL const float *lam, CTN_GLOBAL double *r) {
    double Va[6], Vb[6];
    ctn_dd_vel(va, Va);
    ctn_dd_vel(vb, Vb);
    int n = b->n_lin + b->n_ang;
    for (int k = 0; k < n; ++k) r[k] = (double)b->bias[k] - ctn_dd_row_jv(b, k, Va, Vb) - (double)b->soft[k] * lam[k];
}

/* The chain path's J v, through the velocity difference of the anchors (Va, Vb as for ctn_dd_row_jv):
 *     J v = d . ((v_a + w_a x r_a) - (v_b + w_b x r_b))   (linear row),   t . (w_a - w_b)   (angular row),
 * since (r x d) . w = d . (w x r): about 30 flops for a ball joint against 80 for the 6-wide rows.
 * ctn_dd_anchor_rel forms u (the anchors' relative velocity) and dw; ctn_dd_chain_row_jv row k's product. */
/* ctn_dd_anchor_rel_arms takes the lever arms themselves (the CPU's ball records, host/solve/direct_chain.c). */
CTN_FN void ctn_dd_anchor_rel_arms(ctn_v3 ra_, ctn_v3 rb_, const double *Va, const double *Vb, double *u, double *dw) {
    const double *wa = Va + 3, *wb = Vb + 3;
    double ra[3] = {ra_.x, ra_.y, ra_.z}, rb[3] = {rb_.x, rb_.y, rb_.z};
    u[0] = (Va[0] + (wa[1] * ra[2] - wa[2] * ra[1])) - (Vb[0] + (wb[1] * rb[2] - wb[2] * rb[1]));
    u[1] = (Va[1] + (wa[2] * ra[0] - wa[0] * ra[2])) - (Vb[1] + (wb[2] * rb[0] - wb[0] * rb[2]));
    u[2] = (Va[2] + (wa[0] * ra[1] - wa[1] * ra[0])) - (Vb[2] + (wb[0] * rb[1] - wb[1] * rb[0]));
    dw[0] = wa[0] - wb[0], dw[1] = wa[1] - wb[1], dw[2] = wa[2] - wb[2];
}
CTN_FN void ctn_dd_anchor_rel(const ctn_block *b, const double *Va, const double *Vb, double *u, double *dw) {
    ctn_dd_anchor_rel_arms(b->ra, b->rb, Va, Vb, u, dw);
}
CTN_FN double ctn_dd_chain_row_jv(const ctn_block *b, int k, const double *u, const double *dw) {
    const double *x = k < b->n_lin ? u : dw;
    return (double)b->dir[k].x * x[0] + (double)b->dir[k].y * x[1] + (double)b->dir[k].z * x[2];
}

/* ctn_dd_row_residual for the chain path. */
CTN_FN void ctn_dd_chain_rhs(const ctn_block *b, ctn_vel va, ctn_vel vb, CTN_GLOBAL const float *lam, CTN_GLOBAL double *r) {
    double Va[6], Vb[6], u[3], dw[3];
    ctn_dd_vel(va, Va);
    ctn_dd_vel(vb, Vb);
    ctn_dd_anchor_rel(b, Va, Vb, u, dw);
    int n = b->n_lin + b->n_ang;
    for (int k = 0; k < n; ++k) r[k] = (double)b->bias[k] - ctn_dd_chain_row_jv(b, k, u, dw) - (double)b->soft[k] * lam[k];
}

/* ---- the hybrid's re-solves ---------------------------------------------------------------------
 * After the substep's first solve, each outer iteration of the hybrid (host/solve/solver_direct.c,
 * host/opencl/opencl_direct.c) sweeps the rows outside the exact solve and re-solves the exact rows for what
 * that sweep changed: the right-hand side of a re-solve is the change of r = target - J v - S lambda since
 * the previous exact solve,
 *     r' = -J (v - v0) - S (lambda - lambda0),   v0, lambda0: the velocities and impulses that solve left,  (R)
 * not r itself. This is block Gauss-Seidel with the exact solve as one block (Golub and Van Loan 2013,
 * Matrix Computations, 4th ed., section 11.2): each block update answers the other blocks' changes, and the
 * exact block's own system is the one its factor inverts, so the iteration converges whatever that factor's
 * rounding. r itself differs from (R) by what the previous solve left, which is not zero: the factor is of
 * J M^-1 J^T + S + F, the floor F = CTN_DD_FLOOR diag(J M^-1 J^T) being a Tikhonov regularisation (Tikhonov
 * and Arsenin 1977) that keeps the redundant rows of an over-constrained layout solvable, so a solve leaves
 * F dl. On a hinged bridge anchored at both ends the redundant directions n (J^T n = 0: impulses that move no
 * body, indeterminate in a closed loop, Featherstone 2008, Rigid Body Dynamics Algorithms, chapter 8) carry
 * the SPOOK target's inconsistent position errors, n^T r != 0. A solve puts (n^T r) / (n^T F n) into dl
 * along n and leaves n^T r in the residual; re-solving r added the same amount again on every outer
 * iteration (the proximal point iteration, Rockafellar 1976, of a singular and inconsistent system), and the
 * impulses grew until float rounding turned them into motion (bridge:120 with four limited hinges: +6.4e7 J
 * in 600 steps). Re-solving the regularised residual instead (r minus F times this substep's impulses) holds
 * only as far as the factor carries F exactly; on nearly redundant meshes (a 6x6 grid pinned along its top
 * edge) its rounding is of the size of F, and that iteration diverged within 2 steps at 8 outer iterations.
 * Under (R) the sweep's velocity changes never reach n (n^T J = 0; the rigid rows have S = 0), and what the
 * first solve left stays as it is in a substep without re-solves. */
CTN_FN void ctn_dd_row_change(const ctn_block *b, ctn_vel va, ctn_vel vb, ctn_vel va0, ctn_vel vb0, CTN_GLOBAL const float *lam,
                              CTN_GLOBAL const float *lam0, double *r) {
    double Va[6], Vb[6];
    ctn_dd_vel_change(va, va0, Va);
    ctn_dd_vel_change(vb, vb0, Vb);
    int n = b->n_lin + b->n_ang;
    for (int k = 0; k < n; ++k) r[k] = -ctn_dd_row_jv(b, k, Va, Vb) - (double)b->soft[k] * ((double)lam[k] - lam0[k]);
}

/* (R) for the chain path (ctn_dd_anchor_rel). */
CTN_FN void ctn_dd_chain_change(const ctn_block *b, ctn_vel va, ctn_vel vb, ctn_vel va0, ctn_vel vb0, CTN_GLOBAL const float *lam,
                                CTN_GLOBAL const float *lam0, double *r) {
    double Va[6], Vb[6], u[3], dw[3];
    ctn_dd_vel_change(va, va0, Va);
    ctn_dd_vel_change(vb, vb0, Vb);
    ctn_dd_anchor_rel(b, Va, Vb, u, dw);
    int n = b->n_lin + b->n_ang;
    for (int k = 0; k < n; ++k) r[k] = -ctn_dd_chain_row_jv(b, k, u, dw) - (double)b->soft[k] * ((double)lam[k] - lam0[k]);
}

#endif /* CTN_DIRECT_RHS_H */
