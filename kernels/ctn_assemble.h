/* Assembly (ctn_world_assemble, host/solve/assemble.c): moving bodies the least, in the mass metric, so
 * that every joint closes. Phase 1 is the Jacobian-transpose gather of Nelson 1998 ("Constraint Jacobians
 * for constant-time inverse kinematics and assembly optimization"): every joint turns its own position
 * errors g into a correction impulse, and every body gathers C_q^T times those impulses over its own
 * joints, independently of every other body, so one iteration is two parallel loops (joint slots, then
 * bodies). Both backends run the per-item functions below: the CPU backend as (OpenMP) loops
 * (host/solve/solver_cpu.c), the OpenCL backend as the kernels assemble_slot / assemble_body of
 * kernels/catena.cl.
 *
 * One iteration, with the joint's rows J (ctn_rows.h) at the current poses:
 *     per joint j:  mu_j = -(J_j M_s^-1 J_j^T + S_j)^-1 g_j
 *     per body i:   dq_i = M_i^-1 sum_{j on i} J_ij^T mu_j,   x_i += dq_i (exponential map for rotations)
 * M_s is the mass split by the number of joints on each body (Tonge et al. 2012), which bounds the step
 * so the gather cannot overshoot however many joints pull on a body (the Jacobi iteration's stability
 * condition); S_j is zero for joints and the pull's compliance for an IK target (a soft ball joint to the
 * world). Without the preconditioner (mu = -g) the gather is Nelson's plain gradient step of
 * 1/2 sum |g|^2; the block K^-1 only rescales each joint's own error, so the step stays local. */
#ifndef CTN_ASSEMBLE_H
#define CTN_ASSEMBLE_H

#include "ctn_solver.h" /* ctn_load_pose, ctn_load_vel, ctn_gather_body */

/* Joint flag of the temporary soft ball joints that stand for IK targets during an assembly (never stored
 * in a world outside ctn_world_assemble). Their error is no joint error. */
#define CTN_JF_ASSEMBLE_TARGET 32

/* Whether joint j is closed by assembly: contacts and implicit springs are not constraints to close. */
CTN_FN int ctn_assemble_joint_kind(ctn_joint_def j) {
    return j.type != CTN_JT_CONTACT && j.type != CTN_JT_SPRING && (j.flags & CTN_JF_IMPLICIT_SPRING) == 0;
}

/* Rows of joint j at poses pa, pb for an assembly step: fills blk (rows, bounds [-inf, inf] for the rows that
 * take part, [0, 0] for the others), g (the rows' errors, 0 for rows that take part in nothing: a limit that is
 * not reached, a contact, a motor row) and blk->kinv = (J M^-1 J^T + S)^-1 with inverse masses ima, imb and
 * inverse inertias Ia, Ib (already split by the caller), S = soft on every row. */
CTN_FN void ctn_assemble_block(ctn_joint_def j, ctn_pose pa, ctn_pose pb, float ima, ctn_sym3 Ia, float imb, ctn_sym3 Ib,
                               float soft, ctn_block *blk, float *g) {
    float k[CTN_MAX_ROWS * CTN_MAX_ROWS];
    int i, n;
    ctn_joint_rows(j, pa, pb, blk, g);
    n = ctn_block_rows(blk);
    for (i = 0; i < CTN_MAX_ROWS; ++i) {
        int active = i < n && ctn_assemble_joint_kind(j);
        /* a unilateral row (limit, rope) only takes part while violated; a motor row (g = 0, bilateral
         * bounds set by ctn_joint_prepare only) keeps g = 0 and so holds the angle */
        if (active && blk->lo[i] == 0.0f && g[i] >= 0.0f) active = 0;
        if (active && blk->hi[i] == 0.0f && g[i] <= 0.0f) active = 0;
        if (j.type == CTN_JT_HINGE && i == 5 && (j.flags & CTN_JF_LIMIT) == 0) active = 0;
        if (!active) g[i] = 0.0f;
        blk->lo[i] = active ? -CTN_INF : 0.0f;
        blk->hi[i] = active ? CTN_INF : 0.0f;
        blk->bias[i] = -g[i];
        blk->soft[i] = i < n ? soft : 0.0f;
    }
    blk->pad[0] = 0.0f;
    ctn_block_effective_mass(blk, ima, Ia, imb, Ib, k);
    /* the same relative floor as ctn_joint_prepare: keeps a rigid block well conditioned */
    for (i = 0; i < n; ++i) k[i * CTN_MAX_ROWS + i] += blk->soft[i] + 1e-6f * k[i * CTN_MAX_ROWS + i];
    ctn_spd_inverse(k, n, blk->kinv);
}

/* Phase 1, joint slot s: the rows at the current poses into blocks[s], the correction impulse
 * mu = -(K_s + S)^-1 g into mu[ls s ..] (ls: the row stride), and the slot's largest linear (m) and angular (rad) error into
 * gap[s], angle[s] (0 for IK targets). Inverse masses come from inertia (ctn_inertia.inv_mass), inverse
 * inertias from the pose (a body's own, never the geometric-stiffness one), both split by split[] (the joints
 * on each body). */
CTN_FN void ctn_assemble_slot(int s, ctn_joints defs, CTN_GLOBAL const ctn_pose *pose,
                              CTN_GLOBAL const ctn_inertia *inertia, CTN_GLOBAL const ctn_props *props, CTN_GLOBAL const float *split,
                              CTN_GLOBAL ctn_block *blocks, CTN_GLOBAL float *mu, int ls, CTN_GLOBAL float *gap,
                              CTN_GLOBAL float *angle) {
    ctn_joint_def j = ctn_joint_at(defs, s);
    ctn_pose pa = ctn_load_pose(pose, j.a), pb = ctn_load_pose(pose, j.b);
    float sa = split[j.a], sb = j.b >= 0 ? split[j.b] : 1.0f;
    float ima = ctn_load_inv_mass(inertia, j.a) * sa, imb = ctn_load_inv_mass(inertia, j.b) * sb;
    ctn_sym3 Ia = ctn_sym3_scale(ctn_body_inverse_inertia(pa, props[j.a]), sa);
    ctn_sym3 Ib = j.b >= 0 ? ctn_sym3_scale(ctn_body_inverse_inertia(pb, props[j.b]), sb) : ctn_sym3_zero();
    int target = (j.flags & CTN_JF_ASSEMBLE_TARGET) != 0;
    ctn_block blk;
    float g[CTN_MAX_ROWS], m[CTN_MAX_ROWS], lin = 0.0f, ang = 0.0f;
    int k, n;
    ctn_assemble_block(j, pa, pb, ima, Ia, imb, Ib, target ? j.compliance : 0.0f, &blk, g);
    n = ctn_block_rows(&blk);
    ctn_kinv_mul(blk.kinv, n, blk.bias, m);
    /* IK targets do not pull in this phase: a far target would tear the joints open faster than the local
     * gather closes them; phase 2 moves toward them with the joints held closed */
    for (k = 0; k < ls; ++k) mu[ls * s + k] = k < n && !target ? m[k] : 0.0f;
    for (k = 0; k < n && !target; ++k) {
        if (k < blk.n_lin) lin = CTN_FMAX(lin, CTN_FABS(g[k]));
        else ang = CTN_FMAX(ang, CTN_FABS(g[k]));
    }
    blocks[s] = blk;
    gap[s] = lin;
    angle[s] = ang;
}

/* Phase 1, body i: gathers dq = M^-1 sum J^T mu over its own joints (ctn_gather_body, the same gather as the
 * Jacobi solver's) and moves the body by it: x += dv, q <- exp(dw / 2) q (one unit "time" step). */
CTN_FN void ctn_assemble_body(int i, CTN_GLOBAL const int *adj_offsets, CTN_GLOBAL const int *adj,
                              CTN_GLOBAL const ctn_block *blocks, CTN_GLOBAL const float *mu, int ls, CTN_GLOBAL ctn_pose *pose,
                              CTN_GLOBAL const ctn_props *props, CTN_GLOBAL ctn_inertia *inertia) {
    ctn_props pr = props[i];
    ctn_pose p = pose[i];
    if (adj_offsets[i] != adj_offsets[i + 1] && (pr.flags & CTN_BODY_FLAG_DYNAMIC)) {
        ctn_vel d;
        ctn_gather_body(i, adj_offsets, adj, blocks, mu, ls, inertia[i].inv_mass, ctn_body_inverse_inertia(p, pr), &d.v, &d.w);
        p = ctn_body_integrate(p, d, pr, 1.0f);
        pose[i] = p;
    }
    inertia[i].inv_inertia = ctn_body_inverse_inertia(p, pr);
}

#endif /* CTN_ASSEMBLE_H */
