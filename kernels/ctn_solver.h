/* Per-item solver steps over the global arrays, shared by the CPU loops (host/solve/solver_cpu.c) and the OpenCL
 * kernels (kernels/catena.cl): each function is the body of one work-item. On the host CTN_GLOBAL is empty.
 *
 * Index conventions (see host/core/world.h): joints and blocks are in solver (colour) order; lambda and
 * dlambda hold ls floats per joint slot (the layout's row stride, CTN_LAM in kernels/ctn_types.h); adj /
 * adj_offsets is the body -> joint CSR adjacency whose entries are (slot << 1) | side. */
#ifndef CTN_SOLVER_H
#define CTN_SOLVER_H

#include "ctn_body.h"
#include "ctn_rows.h"

/* Velocity record of side b of a joint (zero for the world). */
CTN_FN ctn_vel ctn_load_vel(CTN_GLOBAL const ctn_vel *vel, int body) {
    ctn_vel z;
    if (body >= 0) return vel[body];
    z.v = ctn_v3_zero();
    z.w = ctn_v3_zero();
    return z;
}

CTN_FN ctn_pose ctn_load_pose(CTN_GLOBAL const ctn_pose *pose, int body) {
    ctn_pose p;
    if (body >= 0) return pose[body];
    p.p = ctn_v3_zero();
    p.p_lo = ctn_v3_zero();
    p.q = ctn_quat_identity();
    return p;
}

CTN_FN ctn_sym3 ctn_load_inertia(CTN_GLOBAL const ctn_inertia *inertia, int body) {
    return body >= 0 ? inertia[body].inv_inertia : ctn_sym3_zero();
}

/* Inverse mass of side b of a joint (zero for the world). */
CTN_FN float ctn_load_inv_mass(CTN_GLOBAL const ctn_inertia *inertia, int body) {
    return body >= 0 ? inertia[body].inv_mass : 0.0f;
}

/* The impulse half of the divergence check, the same on both backends (the CPU's stage_measure, the
 * device's ctn_k_measure): 1 when a row impulse of joint slot s is not finite (NaN or infinite). An
 * impulse can go non-finite while every body stays finite (a row between bodies whose velocities the
 * update does not write), so the check does not rely on the bodies'. */
CTN_FN int ctn_impulse_bad(CTN_GLOBAL const float *lambda, int ls, int s) {
    int bad = 0;
    for (int r = 0; r < ls; ++r) bad |= !isfinite(lambda[ls * s + r]);
    return bad;
}

/* The CTN_MAX_ROWS impulses of slot s (ls a slot) into a private array, rows at or past the stride zero
 * (CTN_LAM). The six floats are loaded whatever the stride and the rows past it selected away, which compiles
 * to a few vector instructions rather than a branch a row: every array read so keeps CTN_MAX_ROWS - ls floats
 * past its last slot (host/core/topology.c's impulses, host/solve/solver_cpu.c's per-slot arrays, the OpenCL
 * buffers: ctn__ocl_impulse_room). */
CTN_FN void ctn_lam_load(CTN_GLOBAL const float *l, int ls, int s, float *out) {
    CTN_GLOBAL const float *p = l + ls * s;
    for (int k = 0; k < CTN_MAX_ROWS; ++k) {
        float v = p[k];
        out[k] = k < ls ? v : 0.0f;
    }
}

/* Rows [0, n) of slot s back from a private array (n <= ls: a block's rows, the only ones its updates change). A
 * loop of constant length: a copy loop of variable length becomes a call to memcpy. */
CTN_FN void ctn_lam_store(CTN_GLOBAL float *l, int ls, int s, int n, const float *in) {
    CTN_GLOBAL float *p = l + ls * s;
    for (int k = 0; k < CTN_MAX_ROWS; ++k)
        if (k < n) p[k] = in[k];
}

/* Row build of joint slot s (docs/design.md section 2, step 1) into blk, with the inverse masses ima, imb and
 * world inverse inertias Ia, Ib of its bodies (zero for the world). split: per-body mass-splitting factors or
 * NULL. */
CTN_FN void ctn_prepare_block_with(int s, ctn_joints defs, CTN_GLOBAL const ctn_pose *pose,
                                   CTN_GLOBAL const ctn_vel *vel, float ima, ctn_sym3 Ia, float imb, ctn_sym3 Ib,
                                   CTN_GLOBAL const float *split, ctn_step_params prm, ctn_block *blk) {
    ctn_joint_def j = ctn_joint_at(defs, s);
    float sa = prm.mass_split ? split[j.a] : 1.0f;
    float sb = prm.mass_split && j.b >= 0 ? split[j.b] : 1.0f;
    ctn_joint_prepare(j, ctn_load_pose(pose, j.a), ctn_load_pose(pose, j.b), ctn_load_vel(vel, j.a), ctn_load_vel(vel, j.b), ima, Ia,
                      imb, Ib, sa, sb, prm, blk);
}

/* The same with the inverse masses and world inverse inertias of the joint's bodies read from `inertia`. */
CTN_FN void ctn_prepare_block(int s, ctn_joints defs, CTN_GLOBAL const ctn_pose *pose,
                              CTN_GLOBAL const ctn_vel *vel, CTN_GLOBAL const ctn_inertia *inertia,
                              CTN_GLOBAL const float *split, ctn_step_params prm, ctn_block *blk) {
    ctn_joint_def j = ctn_joint_at(defs, s);
    ctn_prepare_block_with(s, defs, pose, vel, ctn_load_inv_mass(inertia, j.a), ctn_load_inertia(inertia, j.a), ctn_load_inv_mass(inertia, j.b),
                           ctn_load_inertia(inertia, j.b), split, prm, blk);
}

/* Row build of joint slot s into blocks[s]. */
CTN_FN void ctn_prepare_slot(int s, ctn_joints defs, CTN_GLOBAL const ctn_pose *pose,
                             CTN_GLOBAL const ctn_vel *vel, CTN_GLOBAL const ctn_inertia *inertia,
                             CTN_GLOBAL const float *split, ctn_step_params prm, CTN_GLOBAL ctn_block *blocks) {
#ifdef __OPENCL_VERSION__
    ctn_block blk; /* OpenCL C 1.2 has no generic address space: built in private memory, then stored */
    ctn_prepare_block(s, defs, pose, vel, inertia, split, prm, &blk);
    blocks[s] = blk;
#else
    ctn_prepare_block(s, defs, pose, vel, inertia, split, prm, &blocks[s]); /* in place: a 288-byte copy less */
#endif
}

/* ctn_prepare_slot of a ball joint without mass splitting (Gauss-Seidel's row build of a chain), for
 * Gauss-Seidel only: ctn_joint_prepare_rows_ball's rows and ctn_block_inverse_mass_point's kinv with the
 * fields read where they lie (no generic dispatch, no joint, poses and velocities passed by value down three
 * calls, no mass-splitting scale by 1) and the rows' world axes folded into the arithmetic: J v of row k is
 * the component dv_k of the anchors' relative velocity (its dot product with e_k has that value) and kinv
 * comes from ctn_point_kinv. Every field has the general build's bits but for the sign of a zero in bias and
 * kinv, which no result of the update depends on (ctn_gs_slot_point): the same impulses and velocities
 * (tests/test_block_point.c). ctn_point_fields forms the fields but kinv (returns S, the rows' softness),
 * which ctn_prepare_slot_ball and ctn_prepare_slot_point store. */
CTN_FN float ctn_point_fields(ctn_joints defs, int s, CTN_GLOBAL const ctn_pose *pose, CTN_GLOBAL const ctn_vel *vel,
                              ctn_step_params prm, ctn_v3 *ra_out, ctn_v3 *rb_out, float *bias) {
    CTN_GLOBAL const ctn_jcore *j = &CTN_JC(defs, s);
    int a = j->a, b = j->b;
    ctn_pose pa = pose[a], pb = ctn_load_pose(pose, b);
    ctn_vel va = vel[a], vb = ctn_load_vel(vel, b);
    ctn_v3 ra = ctn_quat_rotate(pa.q, j->anchor_a), rb = ctn_quat_rotate(pb.q, j->anchor_b);
    ctn_v3 g = ctn_point_sep(pa.p, pa.p_lo, ra, pb.p, pb.p_lo, rb); /* eq. 30: the rows' errors */
    ctn_v3 dv = ctn_add(va.v, ctn_cross(va.w, ra));               /* J v: (va + wa x ra) - (vb + wb x rb) */
    if (b >= 0) dv = ctn_sub(dv, ctn_add(vb.v, ctn_cross(vb.w, rb))); /* the world's is +0: x - 0 = x */
    /* ctn_joint_prepare_rows_ball's targets */
    float h = prm.h;
    int implicit_spring = (ctn_joint_flags(defs, s) & CTN_JF_IMPLICIT_SPRING) != 0;
    int spook = prm.stabilization == 0 || implicit_spring;
    float damping_time = ctn_joint_damping_time(defs, s);
    float tau = implicit_spring ? CTN_FMAX(damping_time, 0.1f * h) : damping_time > 0.0f ? damping_time : 2.0f * h;
    float y = 1.0f / (1.0f + 4.0f * tau / h);
    float soft = spook ? 4.0f * j->compliance * y / (h * h) : 0.0f;
    if (spook) {
        float c = 4.0f * y / h;
        bias[0] = -c * g.x + y * dv.x;
        bias[1] = -c * g.y + y * dv.y;
        bias[2] = -c * g.z + y * dv.z;
    } else {
        float c = prm.baumgarte / h;
        bias[0] = -c * g.x;
        bias[1] = -c * g.y;
        bias[2] = -c * g.z;
    }
    *ra_out = ra;
    *rb_out = rb;
    return soft;
}

CTN_FN void ctn_prepare_slot_ball(int s, ctn_joints defs, CTN_GLOBAL const ctn_pose *pose,
                                  CTN_GLOBAL const ctn_vel *vel, CTN_GLOBAL const ctn_inertia *inertia, ctn_step_params prm,
                                  CTN_GLOBAL ctn_block *blocks) {
    int a = CTN_JC(defs, s).a, b = CTN_JC(defs, s).b, i;
    ctn_v3 ra, rb;
    float bias[3];
    float soft = ctn_point_fields(defs, s, pose, vel, prm, &ra, &rb, bias);
    CTN_GLOBAL ctn_block *blk = &blocks[s];
    blk->ra = ra;
    blk->n_lin = 3;
    blk->rb = rb;
    blk->n_ang = 0;
    blk->dir[0] = ctn_v3_make(1.0f, 0.0f, 0.0f);
    blk->dir[1] = ctn_v3_make(0.0f, 1.0f, 0.0f);
    blk->dir[2] = ctn_v3_make(0.0f, 0.0f, 1.0f);
    for (i = 0; i < 3; ++i) blk->bias[i] = bias[i], blk->soft[i] = soft;
    for (i = 3; i < CTN_MAX_ROWS; ++i) blk->bias[i] = blk->soft[i] = 0.0f;
    for (i = 0; i < CTN_MAX_ROWS; ++i) {
        blk->lo[i] = -CTN_INF;
        blk->hi[i] = CTN_INF;
    }
    blk->pad[0] = CTN_BLOCK_POINT;
    float imb = b >= 0 ? inertia[b].inv_mass : 0.0f;
#ifdef __OPENCL_VERSION__
    float kinv[CTN_KINV_SIZE]; /* no generic address space: formed in private memory */
    ctn_point_kinv(ra, inertia[a].inv_mass, inertia[a].inv_inertia, rb, imb, ctn_load_inertia(inertia, b), b < 0, soft, kinv);
    for (i = 0; i < CTN_KINV_SIZE; ++i) blk->kinv[i] = kinv[i];
#else
    ctn_point_kinv(ra, inertia[a].inv_mass, inertia[a].inv_inertia, rb, imb, ctn_load_inertia(inertia, b), b < 0, soft, blk->kinv);
#endif
}

/* ctn_prepare_slot_ball into the compact record pts[s] (ctn_point_block): the same values field for field
 * (S once for the three rows, kinv's first 6 entries: a 3-row block's whole triangle), no row directions,
 * bounds or padding written. ctn_prepare_point_with takes the inverse masses ima, imb and world inverse
 * inertias Ia, Ib of the joint's bodies (zero for the world) by value: the device's row build forms the
 * geometric-stiffness inertias itself. */
CTN_FN void ctn_prepare_point_with(int s, ctn_joints defs, CTN_GLOBAL const ctn_pose *pose,
                                   CTN_GLOBAL const ctn_vel *vel, float ima, ctn_sym3 Ia, float imb, ctn_sym3 Ib,
                                   ctn_step_params prm, CTN_GLOBAL ctn_point_block *pts) {
    int b = CTN_JC(defs, s).b, i;
    ctn_v3 ra, rb;
    float bias[3], kinv[CTN_KINV_SIZE]; /* ctn_spd_inverse writes all CTN_KINV_SIZE entries */
    float soft = ctn_point_fields(defs, s, pose, vel, prm, &ra, &rb, bias);
    ctn_point_kinv(ra, ima, Ia, rb, imb, Ib, b < 0, soft, kinv);
    CTN_GLOBAL ctn_point_block *p = &pts[s];
    p->ra = ra;
    p->soft = soft;
    p->rb = rb;
    for (i = 0; i < 3; ++i) p->bias[i] = bias[i];
    for (i = 0; i < 6; ++i) p->kinv[i] = kinv[i];
}

CTN_FN void ctn_prepare_slot_point(int s, ctn_joints defs, CTN_GLOBAL const ctn_pose *pose,
                                   CTN_GLOBAL const ctn_vel *vel, CTN_GLOBAL const ctn_inertia *inertia, ctn_step_params prm,
                                   CTN_GLOBAL ctn_point_block *pts) {
    int a = CTN_JC(defs, s).a, b = CTN_JC(defs, s).b;
    ctn_prepare_point_with(s, defs, pose, vel, inertia[a].inv_mass, inertia[a].inv_inertia, b >= 0 ? inertia[b].inv_mass : 0.0f,
                           ctn_load_inertia(inertia, b), prm, pts);
}

/* The rows of joint slot s without kinv (ctn_joint_prepare_rows): what the exact solver reads. */
CTN_ROWS_INLINE CTN_FN void ctn_prepare_slot_rows(int s, ctn_joints defs, CTN_GLOBAL const ctn_pose *pose,
                                  CTN_GLOBAL const ctn_vel *vel, ctn_step_params prm, CTN_GLOBAL ctn_block *blocks) {
#ifdef __OPENCL_VERSION__
    ctn_block blk; /* OpenCL C 1.2 has no generic address space: built in private memory, then stored */
    ctn_block *b = &blk;
#else
    ctn_block *b = &blocks[s]; /* the host builds in place: a 288-byte copy less per joint */
#endif
    /* a ball joint's builder inlined here (CTN_ROWS_INLINE) on the fields it reads: the call to
     * ctn_joint_prepare_rows passed the joint, the poses and the velocities by value (some hundred
     * instructions a row build, callgrind), and a copy of the whole definition cost more than its fields */
    int a = CTN_JC(defs, s).a, bb = CTN_JC(defs, s).b;
    if (CTN_JC(defs, s).type == CTN_JT_BALL) {
        ctn_rows_ball_fields(CTN_JC(defs, s).anchor_a, CTN_JC(defs, s).anchor_b, ctn_joint_flags(defs, s), CTN_JC(defs, s).compliance, ctn_joint_damping_time(defs, s), ctn_load_pose(pose, a),
                             ctn_load_pose(pose, bb), ctn_load_vel(vel, a), ctn_load_vel(vel, bb), prm, b);
    } else {
        ctn_joint_def j = ctn_joint_at(defs, s);
        ctn_joint_prepare_rows(j, ctn_load_pose(pose, a), ctn_load_pose(pose, bb), ctn_load_vel(vel, a), ctn_load_vel(vel, bb), prm, b);
    }
    for (int k = 0; k < CTN_KINV_SIZE; ++k) b->kinv[k] = 0.0f; /* defined bits: filled by ctn_block_kinv_slot when needed */
#ifdef __OPENCL_VERSION__
    blocks[s] = blk;
#endif
}

/* ctn_prepare_slot_rows of a ball joint into the exact solver's compact record rows[s] (ctn_ball_row): the same
 * ctn_rows_ball_core, so the lever arms, targets and softness have the block's bits; the directions (the world
 * axes), the bounds (unbounded) and the zero kinv the block would hold are implied by the record's type. The
 * CPU backend's row build when every joint is a rigid ball joint on the chain path (host/solve/solver_cpu.c). */
CTN_ROWS_INLINE CTN_FN void ctn_prepare_slot_ball_row(int s, ctn_joints defs, CTN_GLOBAL const ctn_pose *pose,
                                                      CTN_GLOBAL const ctn_vel *vel, ctn_step_params prm, CTN_GLOBAL ctn_ball_row *rows) {
    int a = CTN_JC(defs, s).a, bb = CTN_JC(defs, s).b;
    ctn_v3 ra, rb;
    float bias[3];
    float soft = ctn_rows_ball_core(CTN_JC(defs, s).anchor_a, CTN_JC(defs, s).anchor_b, ctn_joint_flags(defs, s), CTN_JC(defs, s).compliance, ctn_joint_damping_time(defs, s),
                                    ctn_load_pose(pose, a), ctn_load_pose(pose, bb), ctn_load_vel(vel, a), ctn_load_vel(vel, bb), prm, &ra, &rb,
                                    bias);
    CTN_GLOBAL ctn_ball_row *r = &rows[s];
    r->ra = ra;
    r->soft = soft;
    r->rb = rb;
    r->bias[0] = bias[0], r->bias[1] = bias[1], r->bias[2] = bias[2];
}

/* kinv of the block of slot s built by ctn_prepare_slot_rows (no mass splitting), for a Gauss-Seidel
 * update of a joint the exact solver leaves out (bounded rows, loop closers). */
CTN_FN void ctn_block_kinv_slot(int s, ctn_joints defs, CTN_GLOBAL const ctn_inertia *inertia, CTN_GLOBAL ctn_block *blocks) {
    ctn_joint_def j = ctn_joint_at(defs, s);
    ctn_block blk = blocks[s];
    ctn_block_inverse_mass(j.type, ctn_load_inv_mass(inertia, j.a), ctn_load_inertia(inertia, j.a), ctn_load_inv_mass(inertia, j.b),
                           ctn_load_inertia(inertia, j.b), &blk);
    blocks[s] = blk;
}

/* ctn_gs_slot of a point block (pad[0] == CTN_BLOCK_POINT: a ball joint): ctn_block_solve_point's math with
 * the block's fields, the impulses, velocities and inertias read where they lie (no copy of the 288-byte
 * block or of 6 impulses, the 3 rows' fields only). Body a is never the world; b < 0 is.
 * A point block's rows are the world axes d_k = e_k (ctn_rows_point), and the general path's sums with them
 * reduce, for finite values, to the same bits without the products by 0 and 1 (IEEE 754 round to nearest):
 *  - d_k . dv = ((1 dv_k + 0 dv_i) + 0 dv_j) has the value dv_k; only the sign of a zero can differ, and so
 *    for the residual r_k = bias_k - d_k . dv - S_k l_k. No result depends on that sign: |r|^2 squares r_k,
 *    and each sum of the increment e = K^-1 r, ((0 + x r_0) + x r_1) + x r_2, starts from +0, so that its
 *    running value is never -0 and adding a zero of either sign leaves it as it is.
 *  - P = sum_k d_k e_k formed as ((0 + d_0 e_0) + d_1 e_1) + d_2 e_2 is (0 + e_0, 0 + e_1, 0 + e_2): a
 *    component starts from 0 + e_k (or +0), and the zeros added to it do not change it.
 *  - to the world (b < 0): vb + wb x rb with vb = wb = 0 is +0 in every component, and x - (+0) = x.
 * A non-finite velocity or impulse makes both paths' impulses non-finite (the divergence check undoes the
 * step either way); their NaN patterns may differ. tests/test_block_point.c compares the bits. */
/* residual = 0: the same update without |r|^2 (returns 0), for a sweep whose residual nobody reads. */
/* ctn_gs_point_fields is that update on the fields wherever they lie: lever arms pra, prb, targets bias[0..2],
 * softness soft[k * soft_step] (1: a ctn_block's per-row array, 0: a ctn_point_block's one value), the 3x3
 * kinv x[0..5], impulses lam[0..2]. */
CTN_ROWS_INLINE CTN_FN float ctn_gs_point_fields(int a, int b, CTN_GLOBAL const ctn_v3 *pra, CTN_GLOBAL const ctn_v3 *prb, CTN_GLOBAL const float *bias,
                                                 CTN_GLOBAL const float *soft, int soft_step, CTN_GLOBAL const float *x, CTN_GLOBAL float *lam,
                                                 CTN_GLOBAL ctn_vel *vel, CTN_GLOBAL const ctn_inertia *inertia, int residual) {
    /* dv = (va + wa x ra) - (vb + wb x rb) */
    float rax = pra->x, ray = pra->y, raz = pra->z;
    float wax = vel[a].w.x, way = vel[a].w.y, waz = vel[a].w.z;
    float dx = vel[a].v.x + (way * raz - waz * ray), dy = vel[a].v.y + (waz * rax - wax * raz), dz = vel[a].v.z + (wax * ray - way * rax);
    if (b >= 0) {
        float rbx = prb->x, rby = prb->y, rbz = prb->z;
        float wbx = vel[b].w.x, wby = vel[b].w.y, wbz = vel[b].w.z;
        dx = dx - (vel[b].v.x + (wby * rbz - wbz * rby));
        dy = dy - (vel[b].v.y + (wbz * rbx - wbx * rbz));
        dz = dz - (vel[b].v.z + (wbx * rby - wby * rbx));
    }
    float l0 = lam[0], l1 = lam[1], l2 = lam[2];
    float r0 = (bias[0] - dx) - soft[0 * soft_step] * l0;
    float r1 = (bias[1] - dy) - soft[1 * soft_step] * l1;
    float r2 = (bias[2] - dz) - soft[2 * soft_step] * l2;
    float res = residual ? ((0.0f + r0 * r0) + r1 * r1) + r2 * r2 : 0.0f;
    float x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3], x4 = x[4], x5 = x[5]; /* ctn_kinv_mul with n = 3 */
    float e0 = ((0.0f + x0 * r0) + x1 * r1) + x3 * r2;
    float e1 = ((0.0f + x1 * r0) + x2 * r1) + x4 * r2;
    float e2 = ((0.0f + x3 * r0) + x4 * r1) + x5 * r2;
    float n0 = l0 + e0, n1 = l1 + e1, n2 = l2 + e2;
    lam[0] = n0, lam[1] = n1, lam[2] = n2;
    /* the applied increments, rounded as the general path's: P = (0 + e_k). The bodies' fields are read again
     * below (the impulses' stores may alias them as far as the compiler can tell): loads instead of the
     * spills of values held across the solve. */
    float px = 0.0f + (n0 - l0), py = 0.0f + (n1 - l1), pz = 0.0f + (n2 - l2);
    float ima = inertia[a].inv_mass;
    if (ima > 0.0f) {
        /* va += ima P, wa += Ia ((ra x P) + 0) */
        float qx = pra->x, qy = pra->y, qz = pra->z;
        float cx = (qy * pz - qz * py) + 0.0f, cy = (qz * px - qx * pz) + 0.0f, cz = (qx * py - qy * px) + 0.0f;
        CTN_GLOBAL const ctn_sym3 *I = &inertia[a].inv_inertia;
        float ixx = I->xx, iyy = I->yy, izz = I->zz, ixy = I->xy, ixz = I->xz, iyz = I->yz;
        vel[a].v.x += px * ima, vel[a].v.y += py * ima, vel[a].v.z += pz * ima;
        vel[a].w.x += (ixx * cx + ixy * cy) + ixz * cz;
        vel[a].w.y += (ixy * cx + iyy * cy) + iyz * cz;
        vel[a].w.z += (ixz * cx + iyz * cy) + izz * cz;
    }
    if (b >= 0 && inertia[b].inv_mass > 0.0f) {
        /* vb -= imb P, wb -= Ib ((rb x P) + 0) (the general path's scale by -imb and by -1) */
        float qx = prb->x, qy = prb->y, qz = prb->z, m = -inertia[b].inv_mass;
        float cx = (qy * pz - qz * py) + 0.0f, cy = (qz * px - qx * pz) + 0.0f, cz = (qx * py - qy * px) + 0.0f;
        CTN_GLOBAL const ctn_sym3 *I = &inertia[b].inv_inertia;
        float ixx = I->xx, iyy = I->yy, izz = I->zz, ixy = I->xy, ixz = I->xz, iyz = I->yz;
        vel[b].v.x += px * m, vel[b].v.y += py * m, vel[b].v.z += pz * m;
        vel[b].w.x += ((ixx * cx + ixy * cy) + ixz * cz) * -1.0f;
        vel[b].w.y += ((ixy * cx + iyy * cy) + iyz * cz) * -1.0f;
        vel[b].w.z += ((ixz * cx + iyz * cy) + izz * cz) * -1.0f;
    }
    return res;
}

CTN_ROWS_INLINE CTN_FN float ctn_gs_slot_point_ex(int s, int a, int b, CTN_GLOBAL const ctn_block *blk, CTN_GLOBAL float *lambda, int ls,
                                                  CTN_GLOBAL ctn_vel *vel, CTN_GLOBAL const ctn_inertia *inertia, int residual) {
    return ctn_gs_point_fields(a, b, &blk->ra, &blk->rb, blk->bias, blk->soft, 1, blk->kinv, lambda + ls * s, vel, inertia, residual);
}

/* ctn_gs_slot of a ball joint kept as a compact point block (pts[s], ctn_prepare_slot_point): the same bits
 * as ctn_gs_slot_point on the ctn_block that ctn_prepare_slot_ball builds (its fields have the same values
 * and the same operations read them). */
CTN_ROWS_INLINE CTN_FN float ctn_gs_slot_compact(int s, ctn_joints defs, CTN_GLOBAL const ctn_point_block *pts,
                                                 CTN_GLOBAL float *lambda, int ls, CTN_GLOBAL ctn_vel *vel,
                                                 CTN_GLOBAL const ctn_inertia *inertia, int residual) {
    CTN_GLOBAL const ctn_point_block *p = &pts[s];
    return ctn_gs_point_fields(CTN_JC(defs, s).a, CTN_JC(defs, s).b, &p->ra, &p->rb, p->bias, &p->soft, 0, p->kinv, lambda + ls * s, vel, inertia, residual);
}

CTN_FN float ctn_gs_slot_point(int s, int a, int b, CTN_GLOBAL const ctn_block *blk, CTN_GLOBAL float *lambda, int ls,
                               CTN_GLOBAL ctn_vel *vel, CTN_GLOBAL const ctn_inertia *inertia) {
    return ctn_gs_slot_point_ex(s, a, b, blk, lambda, ls, vel, inertia, 1);
}

/* The host keeps the general update out of line: inlined into a sweep's loop beside the point update, its
 * register pressure made the point update spill (callgrind, chain:10000 GS 10x1, 1.1e6 updates: 312 -> 296
 * instructions a point block update). */
#if defined(__GNUC__) && !defined(__OPENCL_VERSION__)
#define CTN_FN_OUTLINE static __attribute__((noinline, unused))
#else
#define CTN_FN_OUTLINE CTN_FN
#endif

/* ctn_gs_slot of a block that is not a point block. */
CTN_FN_OUTLINE float ctn_gs_slot_block(int s, int a, int b, CTN_GLOBAL const ctn_block *blocks, CTN_GLOBAL float *lambda,
                                       int ls, CTN_GLOBAL ctn_vel *vel, CTN_GLOBAL const ctn_inertia *inertia) {
#ifdef __OPENCL_VERSION__
    ctn_block blk = blocks[s]; /* OpenCL C 1.2 has no generic address space: the block goes to private memory */
    const ctn_block *bp = &blk;
    float lam[CTN_MAX_ROWS];
    ctn_lam_load(lambda, ls, s, lam);
#else
    const ctn_block *bp = &blocks[s]; /* the host reads it in place: a 288-byte copy less per update */
    float *lam = lambda + ls * s;     /* and the impulses: the update reads and writes the block's rows [0, n) alone */
#endif
    ctn_vel va = ctn_load_vel(vel, a), vb = ctn_load_vel(vel, b);
    float ima = ctn_load_inv_mass(inertia, a), imb = ctn_load_inv_mass(inertia, b);
    float r2 = ctn_block_solve(bp, lam, &va, &vb, ima, ctn_load_inertia(inertia, a), imb, ctn_load_inertia(inertia, b));
#ifdef __OPENCL_VERSION__
    ctn_lam_store(lambda, ls, s, ctn_block_rows(bp), lam);
#endif
    if (ima > 0.0f) vel[a] = va;
    if (b >= 0 && imb > 0.0f) vel[b] = vb;
    return r2;
}

/* One block Gauss-Seidel update of joint slot s; writes the velocities of its dynamic bodies.
 * Returns the squared residual seen before the update; ctn_gs_slot_ex with residual = 0 may return 0
 * instead (a point block skips forming it: a sweep before the last one of a solve). */
CTN_ROWS_INLINE CTN_FN float ctn_gs_slot_ex(int s, ctn_joints defs, CTN_GLOBAL const ctn_block *blocks,
                                            CTN_GLOBAL float *lambda, int ls, CTN_GLOBAL ctn_vel *vel, CTN_GLOBAL const ctn_inertia *inertia,
                                            int residual) {
    int a = CTN_JC(defs, s).a, b = CTN_JC(defs, s).b;
    if (blocks[s].pad[0] == CTN_BLOCK_POINT) return ctn_gs_slot_point_ex(s, a, b, &blocks[s], lambda, ls, vel, inertia, residual);
    return ctn_gs_slot_block(s, a, b, blocks, lambda, ls, vel, inertia);
}

CTN_FN float ctn_gs_slot(int s, ctn_joints defs, CTN_GLOBAL const ctn_block *blocks,
                         CTN_GLOBAL float *lambda, int ls, CTN_GLOBAL ctn_vel *vel, CTN_GLOBAL const ctn_inertia *inertia) {
    return ctn_gs_slot_ex(s, defs, blocks, lambda, ls, vel, inertia, 1);
}

/* The hybrid exact solver's outer Gauss-Seidel update of joint slot s (host/solve/solver_direct.c; the
 * OpenCL sweep ctn_k_hybrid_gs). rows = 0: the whole block (ctn_gs_slot: a loop closer, or a joint whose
 * rows are all bounded, such as a contact). Otherwise only the rows in the bit mask `rows` (the bounded rows
 * of a joint whose other rows stay in the exact solve) are projected, one at a time, each with the joint's
 * other rows held: with X = K^-1 the block's kinv (K = J M^-1 J^T + S of its two bodies, ctn_block_inverse_mass),
 * the increment dl = X e_k t changes the velocity error of row k alone (K dl = e_k t), so
 *     lambda_k <- clamp(lambda_k + X_kk r_k, lo_k, hi_k),   t = (change of lambda_k) / X_kk,
 *     dl = X[:, k] t  on every row of the joint,   r = target - J v - S lambda
 * (the effective mass of row k is 1 / X_kk, that of the row with the joint's equality rows rigid: a hinge
 * limit acts on the hinged body about the pivot, not about its centre). The equality rows' share of dl moves
 * both bodies with it; the exact re-solve that follows corrects whatever the rest of the forest adds. For a
 * joint to the world on a free body this is the exact projected solution of the joint. A last clamp keeps
 * every bounded row in its bounds when several are. Returns |r|^2 of the bounded rows before the update. */
CTN_FN float ctn_gs_slot_rows(int s, int rows, ctn_joints defs, CTN_GLOBAL const ctn_block *blocks,
                              CTN_GLOBAL float *lambda, int ls, CTN_GLOBAL ctn_vel *vel, CTN_GLOBAL const ctn_inertia *inertia) {
    if (!rows) return ctn_gs_slot(s, defs, blocks, lambda, ls, vel, inertia);
    int a = CTN_JC(defs, s).a, b = CTN_JC(defs, s).b, k, i, n;
    ctn_block blk = blocks[s];
    ctn_vel va = ctn_load_vel(vel, a), vb = ctn_load_vel(vel, b);
    ctn_sym3 Ia = ctn_load_inertia(inertia, a), Ib = ctn_load_inertia(inertia, b);
    float ima = ctn_load_inv_mass(inertia, a), imb = ctn_load_inv_mass(inertia, b);
    float r2 = 0.0f, jv[CTN_MAX_ROWS], lam[CTN_MAX_ROWS], dl[CTN_MAX_ROWS];
    ctn_v3 dv, dw;
    n = ctn_block_rows(&blk);
    ctn_block_velocity(&blk, va, vb, jv);
    ctn_lam_load(lambda, ls, s, lam);
    for (i = 0; i < CTN_MAX_ROWS; ++i) dl[i] = 0.0f;
    for (k = 0; k < n; ++k) {
        if (!(rows >> k & 1)) continue;
        float r = blk.bias[k] - jv[k] - blk.soft[k] * lam[k], xkk = blk.kinv[CTN_TRI(k, k)];
        r2 += r * r;
        if (!(xkk > 0.0f)) continue;
        float cur = lam[k] + dl[k], l = cur + xkk * r;
        l = l < blk.lo[k] ? blk.lo[k] : (l > blk.hi[k] ? blk.hi[k] : l);
        float t = (l - cur) / xkk;
        for (i = 0; i < n; ++i) dl[i] += blk.kinv[i >= k ? CTN_TRI(i, k) : CTN_TRI(k, i)] * t;
        dl[k] = l - lam[k];
    }
    for (k = 0; k < n; ++k) {
        float l = lam[k] + dl[k];
        if (rows >> k & 1) l = l < blk.lo[k] ? blk.lo[k] : (l > blk.hi[k] ? blk.hi[k] : l);
        dl[k] = l - lam[k];
        lambda[ls * s + k] = l;
    }
    ctn_block_body_delta(&blk, dl, 0, ima, Ia, &dv, &dw);
    va.v = ctn_add(va.v, dv);
    va.w = ctn_add(va.w, dw);
    ctn_block_body_delta(&blk, dl, 1, imb, Ib, &dv, &dw);
    vb.v = ctn_add(vb.v, dv);
    vb.w = ctn_add(vb.w, dw);
    if (ima > 0.0f) vel[a] = va;
    if (b >= 0 && imb > 0.0f) vel[b] = vb;
    return r2;
}

/* Jacobi row step of joint slot s: impulse increment from the shared velocities into dlambda (the blocks
 * were built with split masses). Returns the squared residual. */
CTN_FN float ctn_jacobi_slot(int s, ctn_joints defs, CTN_GLOBAL const ctn_block *blocks,
                             CTN_GLOBAL float *lambda, int ls, CTN_GLOBAL const ctn_vel *vel, CTN_GLOBAL float *dlambda) {
    int k;
    ctn_block blk = blocks[s];
    float lam[CTN_MAX_ROWS], dl[CTN_MAX_ROWS];
    ctn_lam_load(lambda, ls, s, lam);
    float r2 = ctn_block_delta(&blk, ctn_load_vel(vel, CTN_JC(defs, s).a), ctn_load_vel(vel, CTN_JC(defs, s).b), lam, dl);
    for (k = 0; k < CTN_MAX_ROWS; ++k) { /* of constant length: no memcpy (ctn_lam_store) */
        if (k >= ls) continue;
        lambda[ls * s + k] = lam[k];
        dlambda[ls * s + k] = dl[k];
    }
    return r2;
}

/* Jacobian-transpose assembly for body i (Nelson 1998): sum over its own joints of M^-1 J^T l, in adjacency
 * order (deterministic, no atomics). */
CTN_FN void ctn_gather_body(int i, CTN_GLOBAL const int *adj_offsets, CTN_GLOBAL const int *adj,
                            CTN_GLOBAL const ctn_block *blocks, CTN_GLOBAL const float *l, int ls, float inv_mass, ctn_sym3 Iinv,
                            ctn_v3 *dv, ctn_v3 *dw) {
    ctn_v3 sv = ctn_v3_zero(), sw = ctn_v3_zero();
    int e;
    for (e = adj_offsets[i]; e < adj_offsets[i + 1]; ++e) {
        int s = adj[e] >> 1, side = adj[e] & 1;
#ifdef __OPENCL_VERSION__
        ctn_block blk = blocks[s]; /* OpenCL C 1.2 has no generic address space: the block goes to private memory */
        const ctn_block *bp = &blk;
#else
        const ctn_block *bp = &blocks[s]; /* the host reads it in place: a 288-byte copy less per entry */
#endif
        ctn_v3 a, b;
        if (bp->pad[0] == CTN_BLOCK_POINT) {
            /* a point block (rows along the world axes e_k): ctn_block_body_delta's P = sum_k e_k l_k is
             * (0 + l_0, 0 + l_1, 0 + l_2) and L = 0 for finite l (ctn_gs_slot_point says why), so the
             * same bits without the row directions */
            CTN_GLOBAL const float *lp = l + ls * s;
            ctn_v3 P = ctn_v3_make(0.0f + lp[0], 0.0f + lp[1], 0.0f + lp[2]);
            ctn_block_side_delta(bp, P, ctn_v3_zero(), side, inv_mass, Iinv, &a, &b);
        } else {
#ifdef __OPENCL_VERSION__
            float lr[CTN_MAX_ROWS];
            ctn_lam_load(l, ls, s, lr);
#else
            const float *lr = l + ls * s; /* read in place: ctn_block_impulse reads the block's rows alone */
#endif
            ctn_block_body_delta(bp, lr, side, inv_mass, Iinv, &a, &b);
        }
        sv = ctn_add(sv, a);
        sw = ctn_add(sw, b);
    }
    *dv = sv;
    *dw = sw;
}

/* v_i += scale * M^-1 sum J^T l over body i's joints (Jacobi update, warm start, CG velocity update). */
CTN_FN void ctn_apply_gather(int i, CTN_GLOBAL const int *adj_offsets, CTN_GLOBAL const int *adj,
                             CTN_GLOBAL const ctn_block *blocks, CTN_GLOBAL const float *l, int ls, float scale,
                             CTN_GLOBAL ctn_vel *vel, CTN_GLOBAL const ctn_inertia *inertia) {
    if (adj_offsets[i] == adj_offsets[i + 1]) return;
    ctn_vel v = vel[i];
    ctn_v3 dv, dw;
    ctn_gather_body(i, adj_offsets, adj, blocks, l, ls, inertia[i].inv_mass, inertia[i].inv_inertia, &dv, &dw);
    v.v = ctn_madd(v.v, dv, scale);
    v.w = ctn_madd(v.w, dw, scale);
    vel[i] = v;
}

/* ctn_apply_gather where every joint of body i is a ball joint whose rows are the world axes (ctn_gather_body's
 * point branch: P = (0 + l_0, 0 + l_1, 0 + l_2), L = 0), with the lever arms read from a compact record of
 * `stride` floats a joint that begins ra, S, rb (ctn_point_block and ctn_ball_row: ra at float 0, rb at float 4,
 * ctn_layout.h): joint s's ra at rec[stride s], its rb at rec[stride s + 4]. The same operations in the same
 * order as ctn_gather_body on the joint's block, so the same bits. */
CTN_FN void ctn_apply_gather_arms(int i, CTN_GLOBAL const int *adj_offsets, CTN_GLOBAL const int *adj, CTN_GLOBAL const float *rec,
                                  int stride, CTN_GLOBAL const float *l, int ls, float scale, CTN_GLOBAL ctn_vel *vel,
                                  CTN_GLOBAL const ctn_inertia *inertia) {
    if (adj_offsets[i] == adj_offsets[i + 1]) return;
    ctn_vel v = vel[i];
    ctn_sym3 Iinv = inertia[i].inv_inertia;
    float im = inertia[i].inv_mass;
    ctn_v3 sv = ctn_v3_zero(), sw = ctn_v3_zero(), a, b;
    for (int e = adj_offsets[i]; e < adj_offsets[i + 1]; ++e) {
        int s = adj[e] >> 1, side = adj[e] & 1;
        CTN_GLOBAL const float *lp = l + ls * s, *r = rec + stride * s + 4 * side;
        ctn_v3 P = ctn_v3_make(0.0f + lp[0], 0.0f + lp[1], 0.0f + lp[2]);
        ctn_side_delta(ctn_v3_make(r[0], r[1], r[2]), P, ctn_v3_zero(), side, im, Iinv, &a, &b);
        sv = ctn_add(sv, a);
        sw = ctn_add(sw, b);
    }
    v.v = ctn_madd(v.v, sv, scale);
    v.w = ctn_madd(v.w, sw, scale);
    vel[i] = v;
}

/* ctn_apply_gather over compact point blocks (a world whose joints are all ball joints kept as ctn_point_block). */
CTN_FN void ctn_apply_gather_point(int i, CTN_GLOBAL const int *adj_offsets, CTN_GLOBAL const int *adj,
                                   CTN_GLOBAL const ctn_point_block *pts, CTN_GLOBAL const float *l, int ls, float scale,
                                   CTN_GLOBAL ctn_vel *vel, CTN_GLOBAL const ctn_inertia *inertia) {
    ctn_apply_gather_arms(i, adj_offsets, adj, (CTN_GLOBAL const float *)pts, (int)(sizeof(ctn_point_block) / sizeof(float)), l, ls, scale, vel,
                          inertia);
}

/* ctn_apply_gather over the exact solver's ball records (ctn_ball_row): the bits of ctn_apply_gather on the
 * ctn_blocks the records stand for (a ball joint's block is a point block, pad[0] == CTN_BLOCK_POINT, and takes
 * ctn_gather_body's point branch). */
CTN_FN void ctn_apply_gather_ball_row(int i, CTN_GLOBAL const int *adj_offsets, CTN_GLOBAL const int *adj, CTN_GLOBAL const ctn_ball_row *rows,
                                      CTN_GLOBAL const float *l, int ls, float scale, CTN_GLOBAL ctn_vel *vel,
                                      CTN_GLOBAL const ctn_inertia *inertia) {
    ctn_apply_gather_arms(i, adj_offsets, adj, (CTN_GLOBAL const float *)rows, (int)(sizeof(ctn_ball_row) / sizeof(float)), l, ls, scale, vel,
                          inertia);
}

/* Spring forces on body i gathered over its springs (each spring is evaluated from both ends). */
CTN_FN void ctn_spring_gather(int i, CTN_GLOBAL const int *sadj_offsets, CTN_GLOBAL const int *sadj,
                              CTN_GLOBAL const ctn_joint_def *springs, CTN_GLOBAL const ctn_pose *pose,
                              CTN_GLOBAL const ctn_vel *vel, ctn_v3 *force, ctn_v3 *torque) {
    ctn_v3 f = ctn_v3_zero(), t = ctn_v3_zero();
    int e;
    for (e = sadj_offsets[i]; e < sadj_offsets[i + 1]; ++e) {
        int s = sadj[e] >> 1, side = sadj[e] & 1;
        ctn_joint_def sp = springs[s];
        ctn_v3 ra, rb;
        ctn_v3 fa = ctn_spring_force(sp, ctn_load_pose(pose, sp.a), ctn_load_pose(pose, sp.b), ctn_load_vel(vel, sp.a),
                                     ctn_load_vel(vel, sp.b), &ra, &rb);
        if (side == 0) {
            f = ctn_add(f, fa);
            t = ctn_add(t, ctn_cross(ra, fa));
        } else {
            f = ctn_sub(f, fa);
            t = ctn_sub(t, ctn_cross(rb, fa));
        }
    }
    *force = f;
    *torque = t;
}

/* Step 1 for body i: v* = v + h M^-1 (f_ext + springs); the user forces from `forces` when has_forces. */
CTN_FN void ctn_forces_body(int i, CTN_GLOBAL const ctn_props *props, CTN_GLOBAL const ctn_body_force *forces, int has_forces,
                            CTN_GLOBAL const ctn_inertia *inertia,
                            CTN_GLOBAL const int *sadj_offsets, CTN_GLOBAL const int *sadj,
                            CTN_GLOBAL const ctn_joint_def *springs, CTN_GLOBAL const ctn_pose *pose,
                            CTN_GLOBAL ctn_vel *vel_in, CTN_GLOBAL ctn_vel *vel_out, ctn_step_params prm) {
    ctn_v3 f = ctn_v3_zero(), t = ctn_v3_zero();
    if (sadj_offsets[i] != sadj_offsets[i + 1]) ctn_spring_gather(i, sadj_offsets, sadj, springs, pose, vel_in, &f, &t);
    vel_out[i] = ctn_body_apply_forces(vel_in[i], props[i], ctn_body_user_force(i, forces, has_forces), inertia[i].inv_mass, inertia[i].inv_inertia,
                                       prm.gravity, prm.h, f, t);
}

/* Geometric-stiffness inertia of body i for the coming substep (after Andrews, Teichmann and Kry 2017,
 * "Geometric stiffness for real-time constrained multibody dynamics"). A joint pulling with force f at
 * lever arm r makes the body's rotation stiff, k ~ |f| |r|, a term the linearised velocity step leaves
 * out; the explicit step then goes unstable once h^2 k exceeds about twice the rotational inertia (a
 * hanging chain of n slender links of length L: 6 h^2 n g / L > ~2, e.g. 20 links at 60 Hz without
 * substeps). Adding alpha = h^2 k to the principal moments keeps it stable at any tension; with the last
 * substep's impulses f = lambda / h, so alpha = gs * h * sum(|lambda_lin| |anchor| + |lambda_ang|) over the
 * body's joints. The extra inertia only slows rotation under high joint tension; gs = 0 turns it off. */
CTN_FN ctn_sym3 ctn_geometric_inverse_inertia(int i, CTN_GLOBAL const ctn_pose *pose, CTN_GLOBAL const ctn_props *props,
                                              CTN_GLOBAL const int *adj_offsets, CTN_GLOBAL const int *adj,
                                              ctn_joints defs, CTN_GLOBAL const float *lambda, int ls, float gs_h) {
    float alpha = 0.0f;
    int e, k;
    for (e = adj_offsets[i]; e < adj_offsets[i + 1]; ++e) {
        int s = adj[e] >> 1, side = adj[e] & 1;
        /* the fields read where they lie (a copy of the whole definition per edge was a tenth of the pass) */
        int type = CTN_JC(defs, s).type;
        int n_lin = type == CTN_JT_BALL ? 3 : ctn_joint_lin_rows_at(defs, s);
        CTN_GLOBAL const float *lam = lambda + ls * s;
        float l2 = 0.0f, a2 = 0.0f;
        if (n_lin == 3) { /* the sums below for n_lin = 3, in the same order, without the per-row test */
            float l3 = CTN_LAM(lam, ls, 0, 3), l4 = CTN_LAM(lam, ls, 0, 4), l5 = CTN_LAM(lam, ls, 0, 5);
            l2 = ((l2 + lam[0] * lam[0]) + lam[1] * lam[1]) + lam[2] * lam[2];
            a2 = ((a2 + l3 * l3) + l4 * l4) + l5 * l5;
        } else {
            for (k = 0; k < CTN_MAX_ROWS; ++k) {
                float l = CTN_LAM(lam, ls, 0, k);
                if (k < n_lin) l2 += l * l;
                else a2 += l * l;
            }
        }
        float arm = ctn_length(side == 0 ? CTN_JC(defs, s).anchor_a : CTN_JC(defs, s).anchor_b);
        alpha += CTN_SQRT(l2) * arm + CTN_SQRT(a2);
    }
    return ctn_body_inverse_inertia_augmented(pose[i], props[i], gs_h * alpha);
}

CTN_FN void ctn_geometric_inertia_body(int i, CTN_GLOBAL const ctn_pose *pose, CTN_GLOBAL const ctn_props *props,
                                       CTN_GLOBAL const int *adj_offsets, CTN_GLOBAL const int *adj,
                                       ctn_joints defs, CTN_GLOBAL const float *lambda, int ls, float gs_h,
                                       CTN_GLOBAL ctn_inertia *inertia) {
    inertia[i].inv_inertia = ctn_geometric_inverse_inertia(i, pose, props, adj_offsets, adj, defs, lambda, ls, gs_h);
}

/* Step 4 for body i: positions and orientations (exp map). */
CTN_FN void ctn_integrate_pose(int i, CTN_GLOBAL ctn_pose *pose, CTN_GLOBAL const ctn_vel *vel, CTN_GLOBAL const ctn_props *props,
                               float h) {
    pose[i] = ctn_body_integrate(pose[i], vel[i], props[i], h);
}

/* The same and the new world inverse inertia. */
CTN_FN void ctn_integrate_body(int i, CTN_GLOBAL ctn_pose *pose, CTN_GLOBAL const ctn_vel *vel,
                               CTN_GLOBAL const ctn_props *props, CTN_GLOBAL ctn_inertia *inertia, float h) {
    ctn_props pr = props[i];
    ctn_pose p = ctn_body_integrate(pose[i], vel[i], pr, h);
    pose[i] = p;
    inertia[i].inv_inertia = ctn_body_inverse_inertia(p, pr);
}

/* The same two from the poses `from` into `pose` (another array): the step's first integration on the CPU,
 * which leaves the poses it started from as they were (the divergence guard's double buffer). */
CTN_FN void ctn_integrate_pose_from(int i, CTN_GLOBAL const ctn_pose *from, CTN_GLOBAL ctn_pose *pose, CTN_GLOBAL const ctn_vel *vel,
                                    CTN_GLOBAL const ctn_props *props, float h) {
    pose[i] = ctn_body_integrate(from[i], vel[i], props[i], h);
}
CTN_FN void ctn_integrate_body_from(int i, CTN_GLOBAL const ctn_pose *from, CTN_GLOBAL ctn_pose *pose, CTN_GLOBAL const ctn_vel *vel,
                                    CTN_GLOBAL const ctn_props *props, CTN_GLOBAL ctn_inertia *inertia, float h) {
    ctn_props pr = props[i];
    ctn_pose p = ctn_body_integrate(from[i], vel[i], pr, h);
    pose[i] = p;
    inertia[i].inv_inertia = ctn_body_inverse_inertia(p, pr);
}

/* World inverse inertia of body i from its pose (after a position change without a substep). */
CTN_FN void ctn_inertia_body(int i, CTN_GLOBAL const ctn_pose *pose, CTN_GLOBAL const ctn_props *props,
                             CTN_GLOBAL ctn_inertia *inertia) {
    inertia[i].inv_inertia = ctn_body_inverse_inertia(pose[i], props[i]);
}

/* Post-stabilisation of the exact solver (host/solve/pipeline.c project_steps; both backends run these
 * items): Newton steps until the largest error of a projected row is below CTN_PROJECT_TOL, at most
 * CTN_PROJECT_MAX of them. A projection step moves bodies by h v with scratch velocities that start at rest: */
#define CTN_PROJECT_TOL 1e-7f /* m (rad for angular rows) */
#define CTN_PROJECT_MAX 8
/* Newton steps the OpenCL backend enqueues per step: it decides on the device (ctn_project_decide), so it
 * cannot stop enqueuing early, and the steps after the decision to stop cost their launches as no-ops.
 * Measured on the CPU backend (Newton solves per step over 300 steps): chain:1000 1: 248, 2: 50, 3: 2;
 * chain:10000 1: 300; tree:1000 1: 2, 2: 292, 3: 6; double_pendulum 1: 215, 2: 75, 3: 10; rope:1000
 * 1: 257, 2: 19, 3: 19, 4: 4, 6: 1. A fixed cap of 3 left a random tree of tests/test_opencl_forest.c
 * (seed 19) with a 1.0e-5 m gap against the CPU's 6e-8 m. So the device adapts instead
 * (host/opencl/opencl_stages.c): it counts the steps its decisions let run (CTN_PS_STEPS) and whether the
 * projection was still going when the enqueued steps ran out; both come back in the step's one blocking
 * read, and the next step enqueues that count plus CTN_PROJECT_DEVICE_MARGIN full steps, then one check
 * (rows and the decision, no solve), up to CTN_PROJECT_MAX; a step cut short (still above
 * CTN_PROJECT_TOL, not stalled) makes the next one enqueue CTN_PROJECT_MAX. The first step enqueues
 * CTN_PROJECT_MAX. A step that needs no more steps than enqueued takes the CPU's steps exactly; a step cut
 * short ends with a smaller error than it started with, above the tolerance (see the measurements in
 * bench/results/2026-11-25-vm-opencl-launches.md). */
#define CTN_PROJECT_DEVICE_MARGIN 1
#define CTN_PROJECT_DEVICE_WINDOW 16 /* projections whose largest need sets the next one's steps */

/* Newton state of the projection: the same decision on the host (host/solve/pipeline.c) and on the device
 * (ctn_k_project_decide), CTN_PS_INTS ints. */
#define CTN_PS_ACTIVE 0 /* 1 while Newton steps go on */
#define CTN_PS_KEPT 1   /* the poses before the last step were copied: an undo has something to put back */
#define CTN_PS_UNDO 2   /* put the copy back (the last step made the error worse) */
#define CTN_PS_LAST 3   /* largest error before the last step (float bits; +inf at the start) */
#define CTN_PS_STEPS 4  /* Newton steps the decisions let run so far */
#define CTN_PS_INTS 5
/* The device's record adds the largest error of the rows built since the last decision (float bits, 0 at
 * the start): every work-group of ctn_k_project_prepare folds its own largest error and joins it by an
 * atomic maximum of the bits, exact and independent of the order (a non-negative float orders as its bits;
 * the errors are fmax folds of |C|, never NaN); the next kernel decides from the record alone. */
#define CTN_PS_WORST 5
#define CTN_PS_RECORD 8 /* ints per device record (a fill pattern's size is a power of two) */

/* After a Newton step left the largest error `worst`: a step that did not shrink it (or a non-finite one)
 * is undone and ends the projection; an error at or below CTN_PROJECT_TOL ends it; otherwise the poses
 * are kept for a possible undo and the next step runs. st: the host's array, or a kernel's private copy of
 * the device record (ctn_project_decided, kernels/catena_stages.cl). */
CTN_FN void ctn_project_decide(int *st, float worst) {
    union {
        int i;
        float f;
    } last;
    if (!st[CTN_PS_ACTIVE]) return;
    last.i = st[CTN_PS_LAST];
    if (!(worst < last.f)) {
        st[CTN_PS_UNDO] = st[CTN_PS_KEPT];
        st[CTN_PS_ACTIVE] = 0;
        return;
    }
    if (!(worst > CTN_PROJECT_TOL)) {
        st[CTN_PS_ACTIVE] = 0;
        return;
    }
    last.f = worst;
    st[CTN_PS_LAST] = last.i;
    st[CTN_PS_KEPT] = 1;
    st[CTN_PS_STEPS] += 1;
}

/* The projection's scratch velocity of body i at rest: v = w = +0 (its inverse mass is the body's, in
 * ctn_inertia). */
CTN_FN void ctn_project_begin_body(int i, CTN_GLOBAL ctn_vel *out) {
    ctn_vel v;
    v.v = ctn_v3_zero();
    v.w = ctn_v3_zero();
    out[i] = v;
}

/* The block b of a joint of compliance `compliance` after a Baumgarte (beta = 1) row build, for the
 * projection. limits == 0 (the sweep and the OpenCL backend): a rigid bilateral joint keeps its rows, targets
 * -C/h; any other joint (compliant, or with a bounded row: contact, limit, motor, rope) gets the bounds [0, 0]
 * and no impulse. limits != 0 (the CPU's exact solve with its active set, kernels/ctn_direct_active.h): a
 * rigid joint with some bilateral row keeps its bilateral rows (targets -C/h) and its unilateral ones (limits,
 * swing cones: bound 0 on one side, target -C/h, which lets a gap close but not past the limit and pushes an
 * overshoot back: the active inequalities of Cline and Pai 2003, "Post-stabilization for rigid body
 * simulation with contact and constraints"), while its rows bounded on both sides (a motor: a velocity row,
 * no position to restore) get [0, 0]; a compliant joint and one whose rows are all bounded (a contact, a
 * rope) get [0, 0] on every row. Leaving a limited joint out whole lets the projection move the bodies on one
 * side of it to close the others' drift, the joint taking up the difference (the gated ring of
 * tests/test_opencl_loops.c opens its limited hinge by 1e-2 m in 60 steps, docs/design.md section 6); the
 * inequalities need the active set, the projected sweep solves them worse than it leaves them out. Returns the
 * largest |C| = h |target| of the kept rows, a unilateral row's only where it is violated (0 for the others);
 * ctn_project_slot: the same for slot s, the error into err[s]. */
CTN_FN float ctn_project_block(float compliance, ctn_block *b, float h, int limits) {
    int rows = ctn_block_rows(b), equal = 0, bounded = 0, k;
    for (k = 0; k < rows; ++k) {
        int bi = b->lo[k] <= -0.5f * CTN_INF && b->hi[k] >= 0.5f * CTN_INF;
        equal += bi;
        bounded += !bi;
    }
    float worst = 0.0f;
    if (!limits || bounded == 0) { /* the rule without limits, bit for bit */
        int rigid = compliance <= 0.0f && bounded == 0;
        for (k = 0; k < rows; ++k) {
            if (!rigid) b->lo[k] = b->hi[k] = 0.0f;
            else worst = CTN_FMAX(worst, CTN_FABS(b->bias[k]) * h);
        }
        return worst;
    }
    int keep = compliance <= 0.0f && equal > 0;
    for (k = 0; k < rows; ++k) {
        int lo_inf = b->lo[k] <= -0.5f * CTN_INF, hi_inf = b->hi[k] >= 0.5f * CTN_INF;
        int lower = b->lo[k] == 0.0f && hi_inf, upper = b->hi[k] == 0.0f && lo_inf; /* unilateral */
        if (!keep || !((lo_inf && hi_inf) || lower || upper)) b->lo[k] = b->hi[k] = 0.0f;
        else if (lower) worst = CTN_FMAX(worst, b->bias[k] * h);
        else if (upper) worst = CTN_FMAX(worst, -b->bias[k] * h);
        else worst = CTN_FMAX(worst, CTN_FABS(b->bias[k]) * h);
    }
    return worst;
}

CTN_FN void ctn_project_slot(int s, ctn_joints defs, CTN_GLOBAL ctn_block *blocks, float h,
                             int limits, CTN_GLOBAL float *err) {
#ifdef __OPENCL_VERSION__
    ctn_block b = blocks[s]; /* OpenCL C 1.2 has no generic address space: a private copy */
    err[s] = ctn_project_block(CTN_JC(defs, s).compliance, &b, h, limits);
    blocks[s] = b;
#else
    err[s] = ctn_project_block(CTN_JC(defs, s).compliance, &blocks[s], h, limits); /* in place on the host: no block copy */
#endif
}

/* ctn_project_block of a rigid ball joint's record (compliance <= 0, three bilateral rows: the rule keeps the
 * rows as they are, with or without limits): its error, max_k |bias_k| h, in the same order. worst is never NaN,
 * so CTN_FMAX(worst, e) is e > worst ? e : worst (a NaN e leaves worst; e >= +0 for h > 0: no zero of the
 * other sign), without the host's call to fmaxf. */
CTN_FN float ctn_project_ball_row(CTN_GLOBAL const ctn_ball_row *r, float h) {
    float worst = 0.0f;
    for (int k = 0; k < 3; ++k) {
        float e = CTN_FABS(r->bias[k]) * h;
        worst = e > worst ? e : worst;
    }
    return worst;
}

/* A chord step of the projection (host/solve/pipeline.c, project_steps): the Newton system of the current
 * poses x_k is replaced by the one whose factor the step already holds (its last exact solve, with rows J_0
 * at poses x_0 and metric W_0): dl = -(J_0 W_0 J_0^T)^-1 C(x_k) / h, x_{k+1} = x_k + h W_0 J_0^T dl, so
 * that J_0 (x_{k+1} - x_k) = -C(x_k). It converges linearly at a rate of about the turn of the rows between
 * x_0 and x_k (the simplified Newton method: Deuflhard 2004, "Newton Methods for Nonlinear Problems",
 * section 2.1.4); the pipeline undoes a step that does not shrink the error enough and factors instead.
 * For slot s: C(x_k) into the kept block's targets, bias = -C/h (the scratch velocities of the projection
 * are zero, so the exact solve's right-hand side is the bias). Returns max |C| of its rows, NaN kept. A ball
 * joint's rows are the world axes, so its C is the anchor separation (ctn_joint_prepare_rows_ball's); the
 * other joints' C comes from their rows at x_k (angular rows about axes turned since x_0: a perturbation of
 * the chord's model that the iteration absorbs, as RATTLE's, kernels/ctn_rattle.h). */
/* A ball joint's C for a chord step: the anchor separation C = (x_a + R_a r_a) - (x_b + R_b r_b), formed as
 * ctn_joint_prepare_rows_ball forms it (ctn_point_sep of the two-float positions), its targets -C/h into the
 * kept block. It reads only the bodies' poses and the two anchors: the chord rows run two to four times per
 * step on every joint, so their loads and flops are most of their cost. Returns C (the joint's rows are the
 * world axes, so C's components are the rows' errors). The CPU's loop over a world of ball joints alone
 * (host/solve/chord_rows.c) calls it directly; ctn_chord_slot_measure calls it for a ball joint. */
/* ctn_chord_ball_sep: C alone, for a caller that stores the targets elsewhere (the exact solver's ball records,
 * host/solve/chord_rows.c). */
CTN_FN ctn_v3 ctn_chord_ball_sep(int s, ctn_joints defs, CTN_GLOBAL const ctn_pose *pose) {
    ctn_pose pa = ctn_load_pose(pose, CTN_JC(defs, s).a), pb = ctn_load_pose(pose, CTN_JC(defs, s).b);
    return ctn_point_sep(pa.p, pa.p_lo, ctn_quat_rotate(pa.q, CTN_JC(defs, s).anchor_a), pb.p, pb.p_lo, ctn_quat_rotate(pb.q, CTN_JC(defs, s).anchor_b));
}

CTN_FN ctn_v3 ctn_chord_ball(int s, ctn_joints defs, CTN_GLOBAL const ctn_pose *pose, float h,
                             CTN_GLOBAL ctn_block *blocks) {
    ctn_v3 sep = ctn_chord_ball_sep(s, defs, pose);
    blocks[s].bias[0] = -sep.x / h;
    blocks[s].bias[1] = -sep.y / h;
    blocks[s].bias[2] = -sep.z / h;
    return sep;
}

/* ctn_chord_slot_measure also gives the joint's gap and angle as ctn_joint_error (kernels/ctn_rows.h) of the
 * same poses (the same operations on the same C, so the same bits, for the joints a chord step takes: rigid
 * bilateral rows, no implicit spring): the step's measurement after a projection whose last check was a
 * chord row evaluation need not evaluate the joints again. */
CTN_FN float ctn_chord_slot_measure(int s, ctn_joints defs, CTN_GLOBAL const ctn_pose *pose, float h,
                                    CTN_GLOBAL ctn_block *blocks, float *gap, float *angle) {
    float g[CTN_MAX_ROWS], worst = 0.0f;
    int n;
    if (CTN_JC(defs, s).type == CTN_JT_BALL) {
        ctn_v3 sep = ctn_chord_ball(s, defs, pose, h, blocks);
        g[0] = sep.x, g[1] = sep.y, g[2] = sep.z;
        n = 3;
        *gap = CTN_SQRT(((0.0f + sep.x * sep.x) + sep.y * sep.y) + sep.z * sep.z);
        *angle = CTN_SQRT(0.0f);
    } else {
        ctn_joint_def j = ctn_joint_at(defs, s);
        ctn_pose pa = ctn_load_pose(pose, j.a), pb = ctn_load_pose(pose, j.b);
        ctn_block cur;
        ctn_joint_rows(j, pa, pb, &cur, g);
        n = ctn_block_rows(&cur);
        float l2 = 0.0f, a2 = 0.0f;
        int n_lin = (j.flags & CTN_JF_IMPLICIT_SPRING) ? 0 : cur.n_lin, n_gap = j.type == CTN_JT_GEAR ? 0 : n_lin;
        for (int k = 0; k < n_lin + cur.n_ang; ++k) { /* ctn_joint_error's sums */
            float e = g[k];
            if (cur.lo[k] == 0.0f) e = e < 0.0f ? e : 0.0f;
            else if (cur.hi[k] == 0.0f) e = e > 0.0f ? e : 0.0f;
            if (k < n_gap) l2 += e * e;
            else a2 += e * e;
        }
        *gap = CTN_SQRT(l2);
        *angle = CTN_SQRT(a2);
        for (int k = 0; k < n; ++k) blocks[s].bias[k] = -g[k] / h;
    }
    for (int k = 0; k < n; ++k) {
        float e = CTN_FABS(g[k]);
        worst = e > worst || e != e ? e : worst; /* a NaN stays */
    }
    return worst;
}

CTN_FN float ctn_chord_slot(int s, ctn_joints defs, CTN_GLOBAL const ctn_pose *pose, float h,
                            CTN_GLOBAL ctn_block *blocks) {
    float gap, angle;
    return ctn_chord_slot_measure(s, defs, pose, h, blocks, &gap, &angle);
}

#endif /* CTN_SOLVER_H */
