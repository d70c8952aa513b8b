/* Per-body steps shared by host and device: external forces, the spring-damper force element, position
 * and orientation integration, and the world inverse inertia. */
#ifndef CTN_BODY_H
#define CTN_BODY_H

#include "ctn_types.h"

/* World inverse inertia R J0^-1 R^T of a rigid dynamic body; zero for particles and non-dynamic bodies. */
CTN_FN ctn_sym3 ctn_body_inverse_inertia(ctn_pose pose, ctn_props pr) {
    if ((pr.flags & CTN_BODY_FLAG_DYNAMIC) == 0 || (pr.flags & CTN_BODY_FLAG_PARTICLE) != 0) return ctn_sym3_zero();
    return ctn_world_inverse_inertia(pose.q, pr.inv_inertia_body);
}

/* The same with `alpha` added to every principal moment: R diag(1/(J0_k + alpha)) R^T. */
CTN_FN ctn_sym3 ctn_body_inverse_inertia_augmented(ctn_pose pose, ctn_props pr, float alpha) {
    if ((pr.flags & CTN_BODY_FLAG_DYNAMIC) == 0 || (pr.flags & CTN_BODY_FLAG_PARTICLE) != 0) return ctn_sym3_zero();
    ctn_v3 d = pr.inv_inertia_body;
    d = ctn_v3_make(d.x / (1.0f + alpha * d.x), d.y / (1.0f + alpha * d.y), d.z / (1.0f + alpha * d.z));
    return ctn_world_inverse_inertia(pose.q, d);
}

/* v* = v + h M^-1 f_ext (docs/design.md section 2, step 2): gravity, the user force and torque `user` (zero
 * for a world without them: +0.0 + f_extra is what the sum was when the zeros were stored), and any extra
 * force/torque (springs). The gyroscopic term is left out on purpose (Lacoursière 2011, after eq. 35). */
CTN_FN ctn_vel ctn_body_apply_forces(ctn_vel v, ctn_props pr, ctn_body_force user, float inv_mass, ctn_sym3 Iinv, ctn_v3 gravity, float h,
                                     ctn_v3 f_extra, ctn_v3 t_extra) {
    if ((pr.flags & CTN_BODY_FLAG_DYNAMIC) == 0) return v;
    ctn_v3 f = ctn_add(user.force, f_extra);
    v.v = ctn_add(v.v, ctn_scale(ctn_add(gravity, ctn_scale(f, inv_mass)), h));
    if ((pr.flags & CTN_BODY_FLAG_PARTICLE) == 0) v.w = ctn_add(v.w, ctn_scale(ctn_sym3_mul(Iinv, ctn_add(user.torque, t_extra)), h));
    return v;
}

/* The user force of body i: forces[i], or zero where the world keeps none (has_forces 0). */
CTN_FN ctn_body_force ctn_body_user_force(int i, CTN_GLOBAL const ctn_body_force *forces, int has_forces) {
    ctn_body_force u;
    if (has_forces) return forces[i];
    u.force = ctn_v3_zero();
    u.pad0 = 0.0f;
    u.torque = ctn_v3_zero();
    u.pad1 = 0.0f;
    return u;
}

/* x += h v; e = exp(h/2 w) e (Lacoursière 2011, eq. 20-21). Static bodies do not move. */
CTN_FN ctn_pose ctn_body_integrate(ctn_pose pose, ctn_vel v, ctn_props pr, float h) {
    if ((pr.flags & (CTN_BODY_FLAG_DYNAMIC | CTN_BODY_FLAG_KINEMATIC)) == 0) return pose;
    ctn_v3_add2(&pose.p, &pose.p_lo, ctn_scale(v.v, h)); /* two-float position: no float32 drift far out */
    if ((pr.flags & CTN_BODY_FLAG_PARTICLE) == 0) pose.q = ctn_quat_integrate(pose.q, v.w, h);
    return pose;
}

/* Axial spring-damper between two anchors (Lloyd 2012, section 0.12): with n = (pa - pb)/|pa - pb|,
 * the force on body a is f = -(k (|pa - pb| - l0) + c n . (va_p - vb_p)) n, body b gets -f.
 * Writes f and the world lever arms of both anchors. */
CTN_FN ctn_v3 ctn_spring_force(ctn_joint_def s, ctn_pose pa, ctn_pose pb, ctn_vel va, ctn_vel vb, ctn_v3 *ra, ctn_v3 *rb) {
    ctn_v3 la = ctn_quat_rotate(pa.q, s.anchor_a);
    ctn_v3 lb = ctn_quat_rotate(pb.q, s.anchor_b);
    ctn_v3 d = ctn_point_sep(pa.p, pa.p_lo, la, pb.p, pb.p_lo, lb);
    *ra = la;
    *rb = lb;
    float len = ctn_length(d);
    if (len < 1e-12f) return ctn_v3_zero();
    ctn_v3 n = ctn_scale(d, 1.0f / len);
    ctn_v3 rel = ctn_sub(ctn_add(va.v, ctn_cross(va.w, la)), ctn_add(vb.v, ctn_cross(vb.w, lb)));
    float mag = s.stiffness * (len - s.rest_length) + s.damping * ctn_dot(n, rel);
    return ctn_scale(n, -mag);
}

#endif /* CTN_BODY_H */
