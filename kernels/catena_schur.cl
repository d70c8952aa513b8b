/* The loop closers' Schur complement on the device (host/opencl/opencl_schur.c), with the math of
 * kernels/ctn_direct_schur.h that the CPU's exact solver runs (host/solve/solver_direct.c, schur_solve). Part
 * of the program kernels/catena.cl (included there inside its cl_khr_fp64 block, after catena_forest.cl).
 * Every kernel is one work-item: R <= CTN_DD_MAX_SCHUR rows, a few thousand operations. The columns of W
 * come from substitutions through the forest's factor (ctn_k_forest_factor with rhs_only = 2, ctn_k_forest_back
 * with apply = 0), one per row. */
#include "ctn_direct_schur.h"

/* Whether the Schur solve applies in this substep, as the CPU decides it (schur_applicable): no row of the
 * forest is cut and no loop closer is bounded. maybe[0..n): the slots that can have bounds (limits, motors,
 * swing cones). on = active and it applies, off = active and it does not (then the hybrid's Gauss-Seidel
 * sweeps run instead). */
__kernel void ctn_k_schur_gate(int n, int closers, __global const int *maybe, __global const ctn_block *blocks, __global const int *active,
                               __global int *on, __global int *off, __global int *mixed, __global int *wf) {
    if (get_global_id(0) != 0) return;
    int closer_bounded = 0, bounded = 0;
    for (int k = 0; k < n; ++k) { /* maybe[0 .. closers - 1]: the loop closers, then forest joints */
        ctn_block blk = blocks[maybe[k]];
        int b = ctn_dd_block_bounded(&blk);
        bounded |= b;
        if (k < closers) closer_bounded |= b;
    }
    on[0] = active[0] && !bounded;                   /* the Schur solve alone */
    off[0] = active[0] && bounded;                   /* the sweeps */
    mixed[0] = active[0] && bounded && !closer_bounded; /* the sweeps, then the closers' Schur impulse */
    wf[0] = active[0] && !closer_bounded;            /* W is formed */
}

/* Column k of W from the substitution's solution x (S1); the last column also inverts W in place. */
__kernel void ctn_k_schur_column(int k, int R, __global const int *rows, __global const ctn_block *blocks, __global const double *x,
                                 __global double *W, __global const int *active) {
    if (get_global_id(0) != 0 || !active[0]) return;
    ctn_dd_schur_column(k, R, rows, blocks, x, W);
    if (k == R - 1) ctn_dd_schur_invert(W, R);
}

/* One outer iteration's impulse on the loop closers (S2); the forest's re-solve follows. */
__kernel void ctn_k_schur_impulse(int R, __global const double *Wi, __global const int *rows, __global const ctn_joint_def *defs,
                                  __global const ctn_block *blocks, __global ctn_vel *vel, __global const ctn_inertia *inertia,
                                  __global float *lambda, __global double *rE, __global const int *active, int ls) {
    if (get_global_id(0) != 0 || !active[0]) return;
    ctn_dd_schur_impulse(R, Wi, rows, defs, blocks, vel, inertia, lambda, ls, rE);
}
