/* The chain path's lean steps for positions whose first three rows are linear along the world axes, followed
 * by angular rows (hinges, and with the same structure fixed and universal joints, a limited or motorised
 * hinge's sixth row): host/solve/direct_hinge.c. CPU only; the same bits as the shared steps of
 * kernels/ctn_direct.h that the OpenCL backend runs (see direct_hinge.c). Internal to host/solve. */
#ifndef CTN_DIRECT_HINGE_H
#define CTN_DIRECT_HINGE_H

#include "ctn_direct.h"

#include <string.h>

/* Block b has n rows, its first three linear along the world axes in order, bit for bit as ctn_rows_point
 * writes them (+0.0f zeros), then n - 3 angular rows. */
static inline int ctn__hinge_rows(const ctn_block *b, int n) {
    static const ctn_v3 axes[3] = {{1.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, {0.0f, 0.0f, 1.0f}};
    return b->n_lin == 3 && b->n_ang >= 0 && 3 + b->n_ang == n && memcmp(b->dir, axes, sizeof axes) == 0;
}

/* ctn_dd_chain_assemble_ax (the pivot K, n x n, and with bp the coupling C, np x n) for blk and bp both
 * ctn__hinge_rows (bp NULL: no coupling) and at least one of them with angular rows: the same bits in the
 * lower triangle of K (the only part the factor reads; the upper one is mirrored) and in C. */
void ctn__hinge_assemble(const ctn_block *blk, int n, int dyn, double ima, const ctn_sym3 *Ia, double imb, const ctn_sym3 *Ib, const ctn_block *bp,
                         int np, int sp, int ps, double *K, double *C);

/* The node steps of kernels/ctn_direct.h (ctn_dd_chain_factor_node, _forward_node, _backward_node) for a node
 * of n = 5 or 6 rows coupled to n rows without a spike, with the sizes compile-time constants (the same
 * operations). ctn__node_factor with y (not NULL): the forward step with y and yq follows (u = P^-1 y into y). */
void ctn__node_factor(int n, double *P, double *C, int tr, double *Pq, double *y, double *yq);
void ctn__node_forward(int n, const double *Pinv, double *y, const double *T, int tr, double *yq);
void ctn__node_backward(int n, double *x, const double *T, int tr, const double *xq);

/* ctn_dd_block_impulse for a ctn__hinge_rows block: the force of the three axis rows is sg x[0..2] itself (as
 * ctn_dd_block_impulse_axes), the torque the angular rows' sum; the same bits for finite x. ctn__hinge_impulse_n takes
 * the row count n as a constant where it is inlined with one (the loop over the angular rows unrolled). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void ctn__hinge_impulse_n(const ctn_block *b, int n, int side, const double *x, double im, ctn_sym3 I, int angular, double *out) {
    double sg = side ? -1.0 : 1.0, f[3] = {sg * x[0], sg * x[1], sg * x[2]}, tq[3] = {0.0, 0.0, 0.0};
    for (int k = 3; k < n; ++k) {
        double xk = sg * x[k];
        tq[0] += xk * b->dir[k].x, tq[1] += xk * b->dir[k].y, tq[2] += xk * b->dir[k].z;
    }
    ctn_dd_force_add(f, tq, side ? b->rb : b->ra, im, I, angular, out);
}

/* A hinge's two angular rows (5 rows, the common case) with the count a constant; other counts as they come. */
static inline void ctn__hinge_impulse(const ctn_block *b, int side, const double *x, double im, ctn_sym3 I, int angular, double *out) {
    if (b->n_ang == 2) ctn__hinge_impulse_n(b, 5, side, x, im, I, angular, out);
    else ctn__hinge_impulse_n(b, 3 + b->n_ang, side, x, im, I, angular, out);
}

#endif /* CTN_DIRECT_HINGE_H */
