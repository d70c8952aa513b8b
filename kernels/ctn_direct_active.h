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
 * CTN_DD_ACTIVE_TOL). All violating rows change at once (a block principal pivoting step), which can cycle;
 * as Judice and Pires (1994, "A block principal pivoting algorithm for large-scale strictly monotone linear
 * complementarity problems") safeguard it, once CTN_DD_ACTIVE_STALL steps in a row have not lowered the
 * count of violating rows below its best so far, only the violating joint of highest slot changes (Murty's single principal pivoting
 * rule, finite for these matrices) until the count drops; with the descent safeguard of the CPU's chain path
 * (host/solve/solver_direct.c: a step that clamps rows is kept only if it lowers the problem's convex
 * objective, else halved along the projected arc, Bertsekas 1982) after CTN_DD_ACTIVE_STALL_DESCENT. The caller caps the loop at CTN_DD_ACTIVE_MAX
 * solves and falls back to the projected Gauss-Seidel hybrid from the state it reached (snake_50.urdf, 480
 * substeps: 13 fallbacks at a cap of 16 without the safeguard, 113 switching after 1 step without a new
 * lowest count, 26 after 3; 7 after 3 at a cap of 24, 3.8 solves a substep on average, when first built; with the
 * impulse-only clamped start and the projection's limits, 18 velocity substeps of 480, 4.15 solves a substep). A variant that locked a clamped row for
 * the rest of the substep (so that the loop surely ends) left wrongly clamped limits: a 10-link chain
 * folding onto its limits overshot by 9.3e-3 rad against 6.4e-3 rad without locks, with no fallback
 * either way (tests/test_bounded_exact.c). */
#ifndef CTN_DIRECT_ACTIVE_H
#define CTN_DIRECT_ACTIVE_H

#include "ctn_solver.h"
#include "ctn_direct.h"
#include "ctn_joint_rows.h"

#define CTN_DD_ACTIVE_MAX 24     /* exact solves of one substep's active set before the fallback */
#define CTN_DD_ACTIVE_STALL 3  /* block steps without a new lowest count of violating rows before single steps */
#define CTN_DD_ACTIVE_STALL_DESCENT 6 /* the same with the descent safeguard (host/solve/solver_direct.c) */
#define CTN_DD_ACTIVE_HALVINGS 20     /* halvings of a step that does not lower the objective before it is taken */
#define CTN_DD_ACTIVE_TOL 1e-7f /* relative residual (of 1 + |target|) below which a clamped row stays */

/* The rows of block b the active set treats (bit k for row k): the bounded rows (ctn_dd_cut_mask) of a joint
 * that keeps some rows in the exact solve and is not a contact (whose friction bounds follow its normal
 * impulse); 0 otherwise. */
CTN_FN int ctn_dd_active_rows(const ctn_block *b) {
    int m = ctn_dd_cut_mask(b);
    if (b->pad[0] > 0.0f) return 0; /* a contact (pad[0] = 1 + mu) */
    return ctn_dd_cut_full(m, b->n_lin + b->n_ang) ? 0 : m;
}

/* Start of a substep: the impulses of the treated rows of joint s (warm-started: the last substep's times
 * warm) are projected into their bounds (the difference applied to the bodies), and the rows strictly inside
 * are kept (free) in keep[s]. A row whose impulse is at its bound scaled by warm, lambda = warm lo or
 * warm hi, ended the last substep clamped there and starts clamped at that bound again: the warm start
 * scales the impulses, which would otherwise free every saturated motor (examples/snake_50.urdf, 50 links on
 * weak holding motors, 480 substeps: at a cap of 6 solves it fell back to the sweep in nearly every substep
 * without this, in 99 with it). The test reads only the impulses, which checkpoints and the divergence
 * snapshot keep, so a resumed or undone run continues bit for bit (x warm rounds the same way both times). */
CTN_FN void ctn_dd_active_start(int s, ctn_joints defs, CTN_GLOBAL const ctn_block *blocks, CTN_GLOBAL float *lambda,
                                int ls, CTN_GLOBAL ctn_vel *vel, CTN_GLOBAL const ctn_inertia *inertia, CTN_GLOBAL unsigned char *keep,
                                float warm) {
    ctn_block blk = blocks[s];
    int m = ctn_dd_active_rows(&blk), n = ctn_block_rows(&blk), k, kept = 0, moved = 0;
    float dl[CTN_MAX_ROWS];
    for (k = 0; k < CTN_MAX_ROWS; ++k) dl[k] = 0.0f;
    for (k = 0; k < n; ++k) {
        if (!(m >> k & 1)) continue;
        float l = lambda[ls * s + k], c = l < blk.lo[k] ? blk.lo[k] : (l > blk.hi[k] ? blk.hi[k] : l);
        if (warm > 0.0f && blk.lo[k] < 0.0f && blk.lo[k] > -0.5f * CTN_INF && l <= blk.lo[k] * warm) c = blk.lo[k];
        else if (warm > 0.0f && blk.hi[k] > 0.0f && blk.hi[k] < 0.5f * CTN_INF && l >= blk.hi[k] * warm) c = blk.hi[k];
        if (c != l) dl[k] = c - l, lambda[ls * s + k] = c, moved = 1;
        if (c > blk.lo[k] && c < blk.hi[k]) kept |= 1 << k;
    }
    keep[s] = (unsigned char)kept;
    if (!moved) return;
    int a = CTN_JC(defs, s).a, b = CTN_JC(defs, s).b;
    ctn_v3 dv, dw;
    if (a >= 0 && inertia[a].inv_mass > 0.0f) {
        ctn_block_body_delta(&blk, dl, 0, inertia[a].inv_mass, ctn_load_inertia(inertia, a), &dv, &dw);
        vel[a].v = ctn_add(vel[a].v, dv), vel[a].w = ctn_add(vel[a].w, dw);
    }
    if (b >= 0 && inertia[b].inv_mass > 0.0f) {
        ctn_block_body_delta(&blk, dl, 1, inertia[b].inv_mass, ctn_load_inertia(inertia, b), &dv, &dw);
        vel[b].v = ctn_add(vel[b].v, dv), vel[b].w = ctn_add(vel[b].w, dw);
    }
}

/* The check after an exact solve with the guess keep[s] of joint s (the rule in the header comment): clamps
 * the free rows that left their bounds (applying the difference) and releases the clamped rows whose
 * residual points inside. Returns the number of rows that change state (0: this joint's rows solve the
 * complementarity problem); dry: counts them and changes nothing. */
CTN_FN int ctn_dd_active_check(int s, ctn_joints defs, CTN_GLOBAL const ctn_block *blocks, CTN_GLOBAL float *lambda,
                               int ls, CTN_GLOBAL ctn_vel *vel, CTN_GLOBAL const ctn_inertia *inertia, CTN_GLOBAL unsigned char *keep, int dry) {
    ctn_block blk = blocks[s];
    int m = ctn_dd_active_rows(&blk), n = ctn_block_rows(&blk), k, changes = 0, moved = 0, kept = keep[s];
    if (!m) return 0;
    int a = CTN_JC(defs, s).a, b = CTN_JC(defs, s).b;
    ctn_vel va = ctn_load_vel(vel, a), vb = ctn_load_vel(vel, b);
    float jv[CTN_MAX_ROWS], dl[CTN_MAX_ROWS];
    ctn_block_velocity(&blk, va, vb, jv);
    for (k = 0; k < CTN_MAX_ROWS; ++k) dl[k] = 0.0f;
    for (k = 0; k < n; ++k) {
        if (!(m >> k & 1)) continue;
        float l = lambda[ls * s + k], lo = blk.lo[k], hi = blk.hi[k];
        if (kept >> k & 1) {
            if (l >= lo && l <= hi) continue;
            float c = l < lo ? lo : hi;
            dl[k] = c - l, moved = 1;
            if (!dry) lambda[ls * s + k] = c;
            kept &= ~(1 << k), ++changes;
        } else if (lo < hi) {
            float r = blk.bias[k] - jv[k] - blk.soft[k] * l, tol = CTN_DD_ACTIVE_TOL * (1.0f + CTN_FABS(blk.bias[k]));
            if ((l <= lo && r > tol) || (l >= hi && r < -tol)) kept |= 1 << k, ++changes;
        }
    }
    if (dry) return changes;
    keep[s] = (unsigned char)kept;
    if (moved) {
        ctn_v3 dv, dw;
        if (a >= 0 && inertia[a].inv_mass > 0.0f) {
            ctn_block_body_delta(&blk, dl, 0, inertia[a].inv_mass, ctn_load_inertia(inertia, a), &dv, &dw);
            vel[a].v = ctn_add(va.v, dv), vel[a].w = ctn_add(va.w, dw);
        }
        if (b >= 0 && inertia[b].inv_mass > 0.0f) {
            ctn_block_body_delta(&blk, dl, 1, inertia[b].inv_mass, ctn_load_inertia(inertia, b), &dv, &dw);
            vel[b].v = ctn_add(vb.v, dv), vel[b].w = ctn_add(vb.w, dw);
        }
    }
    return changes;
}

/* The free treated rows of joint s whose impulse left [lo, hi] after an exact solve: the rows
 * ctn_dd_active_check would clamp. A check that clamps none only releases rows, so its step is the exact
 * minimiser of the convex objective on a face holding the state it started from (the descent safeguard of
 * host/solve/solver_direct.c uses this to skip its test there: such a step always lowers f). */
CTN_FN int ctn_dd_active_clamps(int s, CTN_GLOBAL const ctn_block *blocks, CTN_GLOBAL const float *lambda, int ls,
                                CTN_GLOBAL const unsigned char *keep) {
    ctn_block blk = blocks[s];
    int m = ctn_dd_active_rows(&blk) & keep[s], n = ctn_block_rows(&blk), k, clamps = 0;
    for (k = 0; k < n; ++k) {
        if (!(m >> k & 1)) continue;
        float l = lambda[ls * s + k];
        if (!(l >= blk.lo[k] && l <= blk.hi[k])) ++clamps;
    }
    return clamps;
}

/* ---- a motor and a limit on one row ----------------------------------------------------------------
 * A hinge or slider with both keeps one row for the two (kernels/ctn_rows.h): the row builder predicts from
 * the velocity at the start of the substep whether the limit is reached, and builds either the motor's row
 * (|lambda| <= F h, no limit) or the limit's (lambda >= 0 or, driving into it, >= -F h; no motor). Solved
 * exactly, a prediction that misses costs the whole joint: a snake of 50 links on 0.5 N m holding motors
 * whips its joints 0.2 rad through their limits in the substeps that built the motor's row, and a gripper's
 * finger resting on its limit never moves away from it under its motor (tests/test_bounded_exact.c). The
 * active set decides the row's role from the solve instead. Along the limit's direction d (value moves away
 * from the limit as d . v grows), with the limit target t (d . v >= t: -g/h for a gap g > 0, the builder's
 * target when the limit row was built) and the motor's target m (its speed along d) and bound F h, the row's
 * impulse is that of the motor (|l_m| <= F h) plus that of the limit (l_l >= 0), and
 *   mode M (motor): target m, bounds [-F h, F h]  (the limit is not touched: d . v >= t);
 *   mode L (limit): target t, l >= s F h          (the motor saturated against the limit's side:
 *                                                  s = +1 when m > t, pushing away; -1 when it drives into it).
 * Switches (before the generic rule, ctn_dd_active_check): in M, a solve with d . v < t goes to L (the row
 * kept); in L, a clamped row (at s F h) with d . v > t goes back to M (still clamped there). The block's
 * direction may be d or -d (rho); its target and bounds are rewritten for the mode, so that the factor
 * (which reads neither) stays. ml[] per slot: CTN_DD_ML_* floats. */
#define CTN_DD_ML_RHO 0  /* +1: the block's row is along d; -1: along -d; 0: not a motor-and-limit row */
#define CTN_DD_ML_T 1    /* limit target along d */
#define CTN_DD_ML_M 2    /* motor target along d */
#define CTN_DD_ML_F 3    /* F h */
#define CTN_DD_ML_MODE 4 /* 0: M, 1: L */
#define CTN_DD_ML_FLOATS 5

/* The row of joint j that a motor and a limit share (the builder's rule, kernels/ctn_rows.h), -1 if none. */
CTN_FN int ctn_dd_ml_row(ctn_joint_def j, const ctn_block *b) {
    if (!(j.flags & CTN_JF_MOTOR) || !(j.flags & CTN_JF_LIMIT) || !(j.damping > 0.0f)) return -1;
    return j.type == CTN_JT_HINGE && b->n_lin + b->n_ang == 6 ? 5 : (j.type == CTN_JT_PRISMATIC && b->n_lin == 3 ? 2 : -1);
}

/* Sets the row's target and bounds for the mode ml[MODE] (the block's row k). */
CTN_FN void ctn_dd_ml_apply(CTN_GLOBAL ctn_block *b, int k, CTN_GLOBAL const float *ml) {
    float rho = ml[CTN_DD_ML_RHO], F = ml[CTN_DD_ML_F];
    if (ml[CTN_DD_ML_MODE] == 0.0f) {
        b->bias[k] = rho * ml[CTN_DD_ML_M], b->lo[k] = -F, b->hi[k] = F;
        return;
    }
    float side = ml[CTN_DD_ML_M] > ml[CTN_DD_ML_T] ? F : -F; /* s F h */
    b->bias[k] = rho * ml[CTN_DD_ML_T];
    if (rho > 0.0f) b->lo[k] = side, b->hi[k] = CTN_INF;
    else b->lo[k] = -CTN_INF, b->hi[k] = -side;
}

/* Start of a substep for joint s (before ctn_dd_active_start): for a motor-and-limit row, the limit's
 * direction and gap from the poses (ctn_joint_rows), the targets, the mode the builder chose, and the row
 * rewritten for it; ml[RHO] = 0 for other joints. h: the substep. */
CTN_FN void ctn_dd_ml_start(int s, ctn_joints defs, CTN_GLOBAL ctn_block *blocks, CTN_GLOBAL const ctn_pose *pose, float h,
                            CTN_GLOBAL float *ml) {
    ctn_joint_def j = ctn_joint_at(defs, s);
    ctn_block blk = blocks[s], tmp;
    int k = ctn_dd_ml_row(j, &blk);
    ml[CTN_DD_ML_RHO] = 0.0f;
    if (k < 0 || !(h > 0.0f)) return;
    ctn_pose pa = ctn_load_pose(pose, j.a), pb = ctn_load_pose(pose, j.b);
    float g[CTN_MAX_ROWS];
    ctn_joint_rows(j, pa, pb, &tmp, g);
    ctn_v3 d = tmp.dir[k], a1 = ctn_quat_rotate(pa.q, j.axis_a);
    float rho = ctn_dot(blk.dir[k], d) >= 0.0f ? 1.0f : -1.0f;
    /* the builder's limit row (reached, the motor dropped): its target; else the gap closed in this substep */
    int limit_row = blk.lo[k] == 0.0f && blk.hi[k] > 0.5f * CTN_INF;
    int into = blk.hi[k] > 0.5f * CTN_INF; /* driving into a reached limit: the limit's row with the motor's lower bound */
    float t = limit_row ? rho * blk.bias[k] : -g[k] / h;
    ml[CTN_DD_ML_RHO] = rho;
    ml[CTN_DD_ML_T] = t;
    ml[CTN_DD_ML_M] = ctn_dot(d, a1) * j.stiffness;
    ml[CTN_DD_ML_F] = j.damping * h;
    ml[CTN_DD_ML_MODE] = limit_row || into ? 1.0f : 0.0f;
    ctn_dd_ml_apply(&blocks[s], k, ml);
}

/* The position projection's form of joint s's motor-and-limit row (after ctn_dd_ml_start): the limit's
 * one-sided row alone, target rho t (the gap closed in the step) with lambda >= 0 along the limit's
 * direction, no motor and no mode switch (rho := 0 leaves the row to the generic rule). A motor has no part
 * in a position correction (ctn_project_block holds a plain motor row at [0, 0]); left as the velocity
 * stage's two-sided motor box with mode switches, the projection's active set cycled to its cap on
 * examples/snake_50.urdf (29 of 120 steps) and its Gauss-Seidel fallback's step was undone, leaving the
 * step's drift (2.5e-5 m); with the limit row alone it converges in about 3 solves. */
CTN_FN void ctn_dd_ml_limit_only(int s, ctn_joints defs, CTN_GLOBAL ctn_block *blocks, CTN_GLOBAL float *ml) {
    float rho = ml[CTN_DD_ML_RHO];
    if (rho == 0.0f) return;
    int k = ctn_dd_ml_row(ctn_joint_at(defs, s), &blocks[s]);
    blocks[s].bias[k] = rho * ml[CTN_DD_ML_T];
    if (rho > 0.0f) blocks[s].lo[k] = 0.0f, blocks[s].hi[k] = CTN_INF;
    else blocks[s].lo[k] = -CTN_INF, blocks[s].hi[k] = 0.0f;
    ml[CTN_DD_ML_RHO] = 0.0f;
}

/* The mode switch of joint s's motor-and-limit row after an exact solve (the rule above); returns 1 when it
 * switches (the check of this row is then done), 0 to leave it to the generic rule; dry: changes nothing. */
CTN_FN int ctn_dd_ml_check(int s, ctn_joints defs, CTN_GLOBAL ctn_block *blocks, CTN_GLOBAL const ctn_vel *vel,
                           CTN_GLOBAL unsigned char *keep, CTN_GLOBAL float *ml, int dry) {
    if (ml[CTN_DD_ML_RHO] == 0.0f) return 0;
    ctn_block blk = blocks[s];
    int k = ctn_dd_ml_row(ctn_joint_at(defs, s), &blk);
    float jv[CTN_MAX_ROWS];
    ctn_block_velocity(&blk, ctn_load_vel(vel, CTN_JC(defs, s).a), ctn_load_vel(vel, CTN_JC(defs, s).b), jv);
    float ud = ml[CTN_DD_ML_RHO] * jv[k], t = ml[CTN_DD_ML_T], tol = CTN_DD_ACTIVE_TOL * (1.0f + CTN_FABS(t));
    if (ml[CTN_DD_ML_MODE] == 0.0f && ud < t - tol) {
        if (dry) return 1;
        ml[CTN_DD_ML_MODE] = 1.0f;
        ctn_dd_ml_apply(&blocks[s], k, ml);
        keep[s] = (unsigned char)(keep[s] | 1 << k);
        return 1;
    }
    if (ml[CTN_DD_ML_MODE] != 0.0f && !(keep[s] >> k & 1) && ud > t + tol) {
        if (dry) return 1;
        ml[CTN_DD_ML_MODE] = 0.0f;
        ctn_dd_ml_apply(&blocks[s], k, ml);
        return 1;
    }
    return 0;
}

#endif /* CTN_DIRECT_ACTIVE_H */
