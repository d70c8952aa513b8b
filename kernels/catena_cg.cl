/* Conjugate gradient: the steps of ctn_cg.h as kernels, and the one-work-item kernels that form
 * alpha and beta on the device. Part of the program kernels/catena.cl (included there, in order). */

/* ---- conjugate gradient (Hestenes and Stiefel 1952): kernels/ctn_cg.h ------------------------------------------------ */

/* Index 5 of the CG scalar buffer: 1 while the iteration is running, 0 once it stopped (rz <= 0 or
 * p^T A p <= 0), as the CPU loop's `break`. */
#define CTN_CG_RZ 0
#define CTN_CG_PAP 1
#define CTN_CG_RZNEW 2
#define CTN_CG_ALPHA 3
#define CTN_CG_BETA 4
#define CTN_CG_ACTIVE 5
#define CTN_CG_RZ_STOP 6 /* 1e-12 rz0: stop once the preconditioned residual fell by 1e-6 (as the CPU loop) */

/* The per-slot and per-body steps are kernels/ctn_cg.h, shared with the CPU's solve_cg; the scalars alpha
 * and beta stay on the device in sc[] (formed by one-work-item kernels from clBLAST's dot products), and
 * the kernels after a stop do nothing. */

/* r = target - J v - S lambda, z = K^-1 r (block preconditioner), p = z. */
__kernel void ctn_k_cg_init(int m, __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                            __global const ctn_vel *vel, __global const float *lambda, __global float *r, __global float *z,
                            __global float *p, int ls) {
    int s = (int)get_global_id(0);
    if (s >= m) return;
    ctn_cg_init_slot(s, defs, blocks, vel, lambda, ls, r, z, p);
}

/* active = rz > 0 after the initial dot product; the stop threshold is relative to it. */
__kernel void ctn_k_cg_start(__global float *sc) {
    if (get_global_id(0) != 0) return;
    sc[CTN_CG_RZ_STOP] = 1e-12f * sc[CTN_CG_RZ];
    sc[CTN_CG_ACTIVE] = sc[CTN_CG_RZ] > 0.0f ? 1.0f : 0.0f;
}

/* u_i = M^-1 J^T p over body i's joints (zero for bodies without joints). */
__kernel void ctn_k_cg_gather(int n, __global const int *adj_offsets, __global const int *adj, __global const ctn_block *blocks,
                              __global const float *p, __global const ctn_inertia *inertia,
                              __global ctn_vel *u, int ls) {
    int i = (int)get_global_id(0);
    if (i >= n) return;
    ctn_cg_gather_body(i, adj_offsets, adj, blocks, p, ls, inertia, u);
}

/* (A p)_s = J_s u + S_s p_s: the matrix-free operator J M^-1 J^T + S. */
__kernel void ctn_k_cg_apply(int m, __global const ctn_joint_def *defs, __global const ctn_block *blocks,
                             __global const ctn_vel *u, __global const float *p, __global float *ap, int ls) {
    int s = (int)get_global_id(0);
    if (s >= m) return;
    ctn_cg_apply_slot(s, defs, blocks, u, p, ls, ap);
}

/* alpha = rz / p^T A p, or stop (alpha = 0) when the iteration stopped or p^T A p <= 0. */
__kernel void ctn_k_cg_alpha(__global float *sc) {
    if (get_global_id(0) != 0) return;
    if (sc[CTN_CG_ACTIVE] != 0.0f && sc[CTN_CG_PAP] > 0.0f) {
        sc[CTN_CG_ALPHA] = sc[CTN_CG_RZ] / sc[CTN_CG_PAP];
    } else {
        sc[CTN_CG_ALPHA] = 0.0f;
        sc[CTN_CG_ACTIVE] = 0.0f;
    }
}

/* lambda += alpha p, r -= alpha A p, z = K^-1 r (fused: alpha stays on the device). */
__kernel void ctn_k_cg_update(int m, __global const ctn_block *blocks, __global const float *sc, __global float *lambda,
                              __global float *r, __global const float *p, __global const float *ap, __global float *z, int ls) {
    int s = (int)get_global_id(0);
    if (s >= m || sc[CTN_CG_ACTIVE] == 0.0f) return;
    ctn_cg_update_slot(s, blocks, sc[CTN_CG_ALPHA], lambda, ls, r, p, ap, z);
}

/* v_i += alpha u_i: velocities follow lambda. */
__kernel void ctn_k_cg_velocity(int n, __global const int *adj_offsets, __global const float *sc, __global const ctn_vel *u,
                                __global ctn_vel *vel) {
    int i = (int)get_global_id(0);
    if (i >= n || sc[CTN_CG_ACTIVE] == 0.0f) return;
    ctn_cg_velocity_body(i, adj_offsets, sc[CTN_CG_ALPHA], u, vel);
}

/* beta = rz_new / rz, rz = rz_new; the iteration goes on while rz > 0 and above the stop threshold. */
__kernel void ctn_k_cg_beta(__global float *sc) {
    if (get_global_id(0) != 0) return;
    if (sc[CTN_CG_ACTIVE] == 0.0f) {
        sc[CTN_CG_BETA] = 0.0f;
        return;
    }
    sc[CTN_CG_BETA] = sc[CTN_CG_RZNEW] / sc[CTN_CG_RZ];
    sc[CTN_CG_RZ] = sc[CTN_CG_RZNEW];
    if (!(sc[CTN_CG_RZ] > 0.0f) || !(sc[CTN_CG_RZ] > sc[CTN_CG_RZ_STOP])) sc[CTN_CG_ACTIVE] = 0.0f;
}

/* p = z + beta p. */
__kernel void ctn_k_cg_direction(int len, __global const float *sc, __global const float *z, __global float *p) {
    int k = (int)get_global_id(0);
    if (k >= len || sc[CTN_CG_ACTIVE] == 0.0f) return;
    ctn_cg_direction(k, sc[CTN_CG_BETA], z, p);
}
