/* The per-item steps of the RATTLE integrator of the exact solver (host/solve/pipeline.c, run_rattle; docs/design.md
 * "RATTLE"), shared by the CPU loops (host/solve/solver_cpu.c) and, once it has the stages, the OpenCL backend.
 *
 * RATTLE (Andersen 1983, "Rattle: a velocity version of the Shake algorithm"; Ryckaert, Ciccotti and Berendsen
 * 1977 for SHAKE; symplectic and time-reversible: Leimkuhler and Skeel 1994) for a substep h, with the
 * constraint Jacobian J(x) of the rigid bilateral joints:
 *   position stage   v' = v_n + h/2 M^-1 f(x_n) + M^-1 J(x_n)^T lambda,   x_{n+1} = x_n (+) h v',   C(x_{n+1}) = 0
 *   velocity stage   v_{n+1} = v' + h/2 M^-1 f(x_{n+1}) + M^-1 J(x_{n+1})^T mu,   J(x_{n+1}) v_{n+1} = 0.
 * lambda comes from quasi-Newton (chord) iterations lambda += -(J_n M^-1 J_n^T)^-1 C(x^k)/h with the factor of
 * A_n = J(x_n) M^-1 J(x_n)^T that the previous velocity stage left: each iteration is one row evaluation
 * (ctn_rattle_slot) and one pair of substitutions, no factorisation. The drift x_n (+) h v' of a rigid body
 * conserves its world angular momentum L = I(q_n) w' and rotates it as the free rigid body by the symmetric
 * splitting of Dullweber, Leimkuhler and McLachlan 1997 ("Symplectic splitting methods for rigid body molecular
 * dynamics"): exact rotations about the body's principal axes, x for h/2, y for h/2, z for h, y for h/2,
 * x for h/2 (ctn_rattle_rotate), which keeps the gyroscopic term time-symmetric, so the energy error stays
 * bounded for anisotropic bodies too; the velocity stage then reads w = I(q_{n+1})^-1 L (ctn_rattle_momentum_body). */
#ifndef CTN_RATTLE_H
#define CTN_RATTLE_H

#include "ctn_solver.h"

/* Exact free rotation about body axis k (0, 1, 2) for time t: the body turns by theta = t pi_k d_k about its
 * axis k (q <- q exp(theta e_k), a body-frame turn) and its body-frame momentum pi turns by -theta about it. */
CTN_FN void ctn_rattle_axis(ctn_quat *q, ctn_v3 *pi, ctn_v3 d, int k, float t) {
    float pk = k == 0 ? pi->x : (k == 1 ? pi->y : pi->z), dk = k == 0 ? d.x : (k == 1 ? d.y : d.z);
    float theta = t * pk * dk;
    if (!(CTN_FABS(theta) > 0.0f)) return;
    float c = CTN_COS(0.5f * theta), s = CTN_SIN(0.5f * theta);
    ctn_quat e = ctn_quat_make(c, k == 0 ? s : 0.0f, k == 1 ? s : 0.0f, k == 2 ? s : 0.0f);
    *q = ctn_quat_mul(*q, e);
    float ct = CTN_COS(theta), st = CTN_SIN(theta);
    ctn_v3 p = *pi;
    /* R(-theta) about axis k: (a, b) -> (a cos + b sin, -a sin + b cos) on the two other components */
    if (k == 0) *pi = ctn_v3_make(p.x, p.y * ct + p.z * st, -p.y * st + p.z * ct);
    else if (k == 1) *pi = ctn_v3_make(p.x * ct - p.z * st, p.y, p.x * st + p.z * ct);
    else *pi = ctn_v3_make(p.x * ct + p.y * st, -p.x * st + p.y * ct, p.z);
}

/* The free rigid body's rotation over h from orientation q with world angular velocity w, principal inverse
 * moments d (body frame, a zero: infinite moment): the body-frame momentum pi_k = (R^T w)_k / d_k goes through
 * the splitting x(h/2) y(h/2) z(h) y(h/2) x(h/2). An isotropic body turns about its constant w (the exact flow). */
CTN_FN ctn_quat ctn_rattle_rotate(ctn_quat q, ctn_v3 w, ctn_v3 d, float h) {
    if (d.x == d.y && d.y == d.z) return ctn_quat_integrate(q, w, h);
    ctn_v3 wb = ctn_quat_rotate_inv(q, w);
    ctn_v3 pi = ctn_v3_make(d.x > 0.0f ? wb.x / d.x : 0.0f, d.y > 0.0f ? wb.y / d.y : 0.0f, d.z > 0.0f ? wb.z / d.z : 0.0f);
    ctn_rattle_axis(&q, &pi, d, 0, 0.5f * h);
    ctn_rattle_axis(&q, &pi, d, 1, 0.5f * h);
    ctn_rattle_axis(&q, &pi, d, 2, h);
    ctn_rattle_axis(&q, &pi, d, 1, 0.5f * h);
    ctn_rattle_axis(&q, &pi, d, 0, 0.5f * h);
    float n2 = q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z;
    float r = 1.5f - 0.5f * n2; /* float round-off only, as ctn_quat_integrate */
    return ctn_quat_make(q.w * r, q.x * r, q.y * r, q.z * r);
}

/* The drift of body i: pose = start (+) h v with the start pose of the substep (x_n, kept), the velocity of
 * the position stage; the world inverse inertia stays that of x_n (the kept factor's metric). */
CTN_FN void ctn_rattle_drift_body(int i, CTN_GLOBAL const ctn_pose *start, CTN_GLOBAL ctn_pose *pose, CTN_GLOBAL const ctn_vel *vel,
                                  CTN_GLOBAL const ctn_props *props, float h) {
    ctn_props pr = props[i];
    ctn_pose p = start[i];
    if ((pr.flags & (CTN_BODY_FLAG_DYNAMIC | CTN_BODY_FLAG_KINEMATIC)) == 0) return;
    ctn_vel v = vel[i];
    ctn_v3_add2(&p.p, &p.p_lo, ctn_scale(v.v, h));
    if ((pr.flags & CTN_BODY_FLAG_PARTICLE) == 0) {
        if (pr.flags & CTN_BODY_FLAG_DYNAMIC) p.q = ctn_rattle_rotate(p.q, v.w, pr.inv_inertia_body, h);
        else p.q = ctn_quat_integrate(p.q, v.w, h);
    }
    pose[i] = p;
}

/* After the drift, body i's angular velocity for the same world momentum at the new orientation,
 * w = I(q_{n+1})^-1 I(q_n) w, and the world inverse inertia of the new pose. */
CTN_FN void ctn_rattle_momentum_body(int i, CTN_GLOBAL const ctn_pose *start, CTN_GLOBAL const ctn_pose *pose, CTN_GLOBAL ctn_vel *vel,
                                     CTN_GLOBAL const ctn_props *props, CTN_GLOBAL ctn_inertia *inertia) {
    ctn_props pr = props[i];
    ctn_pose p = pose[i];
    ctn_v3 d = pr.inv_inertia_body;
    int rigid = (pr.flags & CTN_BODY_FLAG_DYNAMIC) && !(pr.flags & CTN_BODY_FLAG_PARTICLE);
    if (rigid && !(d.x == d.y && d.y == d.z)) {
        ctn_vel v = vel[i];
        ctn_v3 wb = ctn_quat_rotate_inv(start[i].q, v.w);
        ctn_v3 pb = ctn_v3_make(d.x > 0.0f ? wb.x / d.x : 0.0f, d.y > 0.0f ? wb.y / d.y : 0.0f, d.z > 0.0f ? wb.z / d.z : 0.0f);
        ctn_v3 L = ctn_quat_rotate(start[i].q, pb);
        ctn_v3 pn = ctn_quat_rotate_inv(p.q, L);
        v.w = ctn_quat_rotate(p.q, ctn_v3_make(pn.x * d.x, pn.y * d.y, pn.z * d.z));
        vel[i] = v;
    }
    inertia[i].inv_inertia = ctn_body_inverse_inertia(p, pr);
}

/* The chord iteration's right-hand side for joint slot s: its error C at the current poses, written into the
 * kept rows of x_n (blocks[s], the factor's rows) as the target bias = J_n v - C/h, so that the exact solve
 * with the kept factor, whose right-hand side is bias - J_n v, solves A_n dl = -C/h. Returns the
 * slot's joint error as ctn_joint_error measures it (kernels/ctn_rows.h; rigid bilateral rows only): the larger of
 * the norms of its linear rows' C (m, a ball joint's anchor separation) and of its angular rows' (rad), the gap
 * the step reports, NaN kept. The rows of C come from the current poses: for a ball joint the same world axes as
 * the kept rows, for the angular rows of a hinge axes turned by the link's rotation over the substep (a
 * perturbation of the chord's model, which the iteration absorbs). */
CTN_FN float ctn_rattle_slot(int s, ctn_joints defs, CTN_GLOBAL const ctn_pose *pose, CTN_GLOBAL const ctn_vel *vel,
                             float h, CTN_GLOBAL ctn_block *blocks) {
    int type = CTN_JC(defs, s).type, a = CTN_JC(defs, s).a, bb = CTN_JC(defs, s).b;
    ctn_block cur;
    float g[CTN_MAX_ROWS], jv[CTN_MAX_ROWS], worst;
    if (type == CTN_JT_BALL) { /* ctn_joint_rows of a ball joint from the record's anchors: no whole definition formed */
        ctn_v3 sep = ctn_joint_rows_start(CTN_JC(defs, s).anchor_a, CTN_JC(defs, s).anchor_b, ctn_load_pose(pose, a),
                                          ctn_load_pose(pose, bb), &cur, g);
        ctn_rows_point(sep, &cur, g);
    } else {
        ctn_joint_def j = ctn_joint_at(defs, s);
        ctn_joint_rows(j, ctn_load_pose(pose, a), ctn_load_pose(pose, bb), &cur, g);
    }
#ifdef __OPENCL_VERSION__
    ctn_block kept = blocks[s];
    ctn_block *b = &kept;
#else
    ctn_block *b = &blocks[s];
#endif
    int n = ctn_block_rows(b), n_gap = type == CTN_JT_GEAR ? 0 : cur.n_lin;
    float l2 = 0.0f, a2 = 0.0f;
    ctn_block_velocity(b, ctn_load_vel(vel, a), ctn_load_vel(vel, bb), jv);
    for (int k = 0; k < n; ++k) {
        b->bias[k] = jv[k] - g[k] / h;
        if (k < n_gap) l2 += g[k] * g[k];
        else a2 += g[k] * g[k];
    }
    worst = CTN_SQRT(l2 + a2 != l2 + a2 || l2 > a2 ? l2 : a2); /* a NaN stays */
#ifdef __OPENCL_VERSION__
    blocks[s] = kept;
#endif
    return worst;
}

#endif /* CTN_RATTLE_H */
