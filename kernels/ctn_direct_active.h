/* Bounded rows of the exact solver by an active set: the update rule shared by the CPU solver
 * (host/solve/solver_direct.c, bounded_exact) and any backend that runs the same loop. Valid C11 and OpenCL C.
 *
 * The rows with finite impulse bounds lo <= lambda <= hi of a joint the exact solve holds (a hinge or slider
 * limit, lo = 0; a motor, |lambda| <= F h) make the substep a mixed linear complementarity problem
 *     A dl = r + w,   lo <= lambda <= hi,   w_k >= 0 at lambda_k = lo, w_k <= 0 at lambda_k = hi, else w_k = 0
 * (Cottle, Pang and Stone 1992, The Linear Complementarity Problem, section 4.1; Baraff 1994, "Fast contact
 * force computation for nonpenetrating rigid bodies", for the pivoting idea). An active set guesses which
 * bounded rows are free (kept in the exact solve, w_k = 0) and which are clamped (their impulse fixed at a
 * bound: the row is cut, its dl is 0, and what it already applied stays in v as a known impulse). With
 * the guess fixed the substep is one exact solve of the block-tree factor (the joint's node simply keeps the
 * row: it is local to the joint, so no Schur complement is needed). The solve is then checked row by row:
 *   - a free row whose impulse left [lo, hi] is clamped at the bound it crossed (lambda_k := bound, the
 *     difference applied to both bodies as an impulse, so v = v_free + M^-1 J^T lambda still holds);
 *   - a clamped row whose residual r_k = target_k - J_k v - S_k lambda_k points inside (r_k > 0 at lo,
 *     r_k < 0 at hi: with the other rows solved exactly around it, releasing it gives dl_k = r_k / s_k,
 *     s_k > 0 its Schur complement) is released.
 * No change: the solve is the exact solution of the complementarity problem (up to round-off and
 * CTN_DD_ACTIVE_TOL). All violating rows change at once (a block principal pivoting step, Judice and Pires
 * 1994), which can cycle in principle; the caller caps the loop at CTN_DD_ACTIVE_MAX solves and falls back
 * to the projected Gauss-Seidel hybrid from the state it reached. A variant that locked a clamped row for
 * the rest of the substep (so that the loop surely ends) left wrongly clamped limits: a 10-link chain
 * folding onto its limits overshot by 9.3e-3 rad against 6.4e-3 rad without locks, with no fallback
 * either way (tests/test_bounded_exact.c). */
#ifndef CTN_DIRECT_ACTIVE_H
#define CTN_DIRECT_ACTIVE_H

#include "ctn_solver.h"
#include "ctn_direct.h"

#define CTN_DD_ACTIVE_MAX 6     /* exact solves of one substep's active set before the fallback */
#define CTN_DD_ACTIVE_TOL 1e-7f /* relative residual (of 1 + |target|) below which a clamped row stays */

/* The rows of block b the active set treats (bit k for row k): the bounded rows (ctn_dd_cut_mask) of a joint
 * that keeps some rows in the exact solve and is not a contact (whose friction bounds follow its normal
 * impulse); 0 otherwise. */
CTN_FN int ctn_dd_active_rows(const ctn_block *b) {
    int m = ctn_dd_cut_mask(b);
    if (b->pad[0] > 0.0f) return 0; /* a contact (pad[0] = 1 + mu) */
    return ctn_dd_cut_full(m, b->n_lin + b->n_ang) ? 0 : m;
}

/* Start of a substep: the impulses of the treated rows of joint s (warm-started) are projected into their
 * bounds (the difference applied to the bodies), and the rows strictly inside are kept (free) in keep[s]. */
CTN_FN void ctn_dd_active_start(int s, CTN_GLOBAL const ctn_joint_def *defs, CTN_GLOBAL const ctn_block *blocks, CTN_GLOBAL float *lambda,
                                CTN_GLOBAL ctn_vel *vel, CTN_GLOBAL const ctn_inertia *inertia, CTN_GLOBAL unsigned char *keep) {
    ctn_block blk = blocks[s];
    int m = ctn_dd_active_rows(&blk), n = ctn_block_rows(&blk), k, kept = 0, moved = 0;
    float dl[CTN_MAX_ROWS];
    for (k = 0; k < CTN_MAX_ROWS; ++k) dl[k] = 0.0f;
    for (k = 0; k < n; ++k) {
        if (!(m >> k & 1)) continue;
        float l = lambda[6 * s + k], c = l < blk.lo[k] ? blk.lo[k] : (l > blk.hi[k] ? blk.hi[k] : l);
        if (c != l) dl[k] = c - l, lambda[6 * s + k] = c, moved = 1;
        if (c > blk.lo[k] && c < blk.hi[k]) kept |= 1 << k;
    }
    keep[s] = (unsigned char)kept;
    if (!moved) return;
    int a = defs[s].a, b = defs[s].b;
    ctn_v3 dv, dw;
    if (a >= 0 && vel[a].inv_mass > 0.0f) {
        ctn_block_body_delta(&blk, dl, 0, vel[a].inv_mass, ctn_load_inertia(inertia, a), &dv, &dw);
        vel[a].v = ctn_add(vel[a].v, dv), vel[a].w = ctn_add(vel[a].w, dw);
    }
    if (b >= 0 && vel[b].inv_mass > 0.0f) {
        ctn_block_body_delta(&blk, dl, 1, vel[b].inv_mass, ctn_load_inertia(inertia, b), &dv, &dw);
        vel[b].v = ctn_add(vel[b].v, dv), vel[b].w = ctn_add(vel[b].w, dw);
    }
}

/* The check after an exact solve with the guess keep[s] of joint s (the rule in the header comment): clamps
 * the free rows that left their bounds (applying the difference) and releases the clamped rows whose
 * residual points inside. Returns the number of rows that changed state (0: this joint's rows solve the
 * complementarity problem). */
CTN_FN int ctn_dd_active_check(int s, CTN_GLOBAL const ctn_joint_def *defs, CTN_GLOBAL const ctn_block *blocks, CTN_GLOBAL float *lambda,
                               CTN_GLOBAL ctn_vel *vel, CTN_GLOBAL const ctn_inertia *inertia, CTN_GLOBAL unsigned char *keep) {
    ctn_block blk = blocks[s];
    int m = ctn_dd_active_rows(&blk), n = ctn_block_rows(&blk), k, changes = 0, moved = 0, kept = keep[s];
    if (!m) return 0;
    int a = defs[s].a, b = defs[s].b;
    ctn_vel va = ctn_load_vel(vel, a), vb = ctn_load_vel(vel, b);
    float jv[CTN_MAX_ROWS], dl[CTN_MAX_ROWS];
    ctn_block_velocity(&blk, va, vb, jv);
    for (k = 0; k < CTN_MAX_ROWS; ++k) dl[k] = 0.0f;
    for (k = 0; k < n; ++k) {
        if (!(m >> k & 1)) continue;
        float l = lambda[6 * s + k], lo = blk.lo[k], hi = blk.hi[k];
        if (kept >> k & 1) {
            if (l >= lo && l <= hi) continue;
            float c = l < lo ? lo : hi;
            dl[k] = c - l, lambda[6 * s + k] = c, moved = 1;
            kept &= ~(1 << k), ++changes;
        } else if (lo < hi) {
            float r = blk.bias[k] - jv[k] - blk.soft[k] * l, tol = CTN_DD_ACTIVE_TOL * (1.0f + CTN_FABS(blk.bias[k]));
            if ((l <= lo && r > tol) || (l >= hi && r < -tol)) kept |= 1 << k, ++changes;
        }
    }
    keep[s] = (unsigned char)kept;
    if (moved) {
        ctn_v3 dv, dw;
        if (a >= 0 && va.inv_mass > 0.0f) {
            ctn_block_body_delta(&blk, dl, 0, va.inv_mass, ctn_load_inertia(inertia, a), &dv, &dw);
            vel[a].v = ctn_add(va.v, dv), vel[a].w = ctn_add(va.w, dw);
        }
        if (b >= 0 && vb.inv_mass > 0.0f) {
            ctn_block_body_delta(&blk, dl, 1, vb.inv_mass, ctn_load_inertia(inertia, b), &dv, &dw);
            vel[b].v = ctn_add(vb.v, dv), vel[b].w = ctn_add(vb.w, dw);
        }
    }
    return changes;
}

#endif /* CTN_DIRECT_ACTIVE_H */
