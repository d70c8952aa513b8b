/* The values of a loaded checkpoint (host/io/checkpoint.c): every float the file gives a world is one the
 * world's own API could have stored, so that a crafted or damaged file cannot start a world from a state
 * that ctn_body_add, ctn_body_set_state or ctn_body_set_force would refuse (a non-finite position, velocity
 * or force, a mass or moment of inertia that is not positive). A NaN loaded into the state would reach the
 * first step's divergence check and make every step fail, or, in a field that check does not read (an
 * inverse mass, a force), spread into the poses first; refused on load, the caller gets a message that names
 * the section, the slot, the field and the value, and no world.
 *
 * What the API stores: positions as two finite floats (hi + lo), a unit orientation (normalised from the
 * caller's quaternion; the integration keeps |q| - 1 ~ 1e-7, ctn_quat_turn), finite linear and angular
 * velocities, inverse mass 1 / mass >= 0 (0 for static and kinematic bodies), the principal inverse moments
 * 1 / inertia >= 0, the world inverse inertia formed from them (finite), and finite user forces and
 * torques. The warm-start impulses are the solver's, finite after every step the divergence guard accepts
 * (ctn_impulse_bad). All body slots are checked, free ones too: a free slot keeps the finite pose of the
 * body that had it and zero velocity, force and inertia (ctn__body_release), and the step's non-finite test
 * reads every slot. */
#include "io/checkpoint_io.h"

#include <math.h>

static int finite3(ctn_v3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }
static int nonneg3(ctn_v3 v) { return v.x >= 0.0f && v.y >= 0.0f && v.z >= 0.0f; }

/* Unit within 1e-3 of the squared length, the tolerance of the shapes' stored rotations (checkpoint_sections.c):
 * far above the float round-off the integration leaves, far below any quaternion that was not normalised. */
static int unit_quat(ctn_quat q) {
    return isfinite(q.w) && isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && fabsf(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z - 1.0f) < 1e-3f;
}

const char *ctn__ck_pose_bad(const ctn_pose *p) {
    if (!finite3(p->p) || !finite3(p->p_lo)) return "position";
    if (!unit_quat(p->q)) return "orientation";
    return NULL;
}

const char *ctn__ck_vel_bad(const ck_vel *v) {
    if (!finite3(v->v)) return "linear velocity";
    if (!finite3(v->w)) return "angular velocity";
    if (!(v->inv_mass >= 0.0f) || !isfinite(v->inv_mass)) return "inverse mass";
    return NULL;
}

#define V3(v) (double)(v).x, (double)(v).y, (double)(v).z

int ctn__ck_bodies_ok(ck_reader *r, const ctn_world *w, const char *forces_in) {
    for (int i = 0; i < w->body_count; ++i) {
        const ctn_pose *p = &w->pose[i];
        const ctn_vel *v = &w->vel[i];
        const ctn_sym3 *m = &w->inertia[i].inv_inertia;
        float inv_mass = w->inertia[i].inv_mass; /* stored in the velocity section (ck_vel) */
        const ctn_props *pr = &w->props[i];
        if (!finite3(p->p) || !finite3(p->p_lo))
            return ck_bad(r, "pose section, body slot %d: position (%g, %g, %g) + (%g, %g, %g) is not finite", i, V3(p->p), V3(p->p_lo));
        if (!unit_quat(p->q))
            return ck_bad(r, "pose section, body slot %d: orientation (%g, %g, %g, %g) is not a unit quaternion", i, (double)p->q.w,
                          (double)p->q.x, (double)p->q.y, (double)p->q.z);
        if (!finite3(v->v)) return ck_bad(r, "velocity section, body slot %d: linear velocity (%g, %g, %g) is not finite", i, V3(v->v));
        if (!finite3(v->w)) return ck_bad(r, "velocity section, body slot %d: angular velocity (%g, %g, %g) is not finite", i, V3(v->w));
        if (!(inv_mass >= 0.0f) || !isfinite(inv_mass))
            return ck_bad(r, "velocity section, body slot %d: inverse mass %g must be finite and >= 0 (1 / mass)", i, (double)inv_mass);
        if (!isfinite(m->xx) || !isfinite(m->yy) || !isfinite(m->zz) || !isfinite(m->xy) || !isfinite(m->xz) || !isfinite(m->yz))
            return ck_bad(r, "inertia section, body slot %d: world inverse inertia (%g, %g, %g, %g, %g, %g) is not finite", i, (double)m->xx,
                          (double)m->yy, (double)m->zz, (double)m->xy, (double)m->xz, (double)m->yz);
        if (!finite3(pr->inv_inertia_body) || !nonneg3(pr->inv_inertia_body))
            return ck_bad(r, "properties section, body slot %d: inverse moments (%g, %g, %g) must be finite and >= 0 (1 / inertia)", i,
                          V3(pr->inv_inertia_body));
        if (!w->body_force) continue;
        const ctn_body_force *f = &w->body_force[i];
        if (!finite3(f->force)) return ck_bad(r, "%s section, body slot %d: force (%g, %g, %g) is not finite", forces_in, i, V3(f->force));
        if (!finite3(f->torque)) return ck_bad(r, "%s section, body slot %d: torque (%g, %g, %g) is not finite", forces_in, i, V3(f->torque));
    }
    return 1;
}

int ctn__ck_impulses_ok(ck_reader *r, const float *lambda, int joints, int per_joint) {
    for (int j = 0; j < joints; ++j)
        for (int k = 0; k < per_joint; ++k) {
            float x = lambda[(size_t)per_joint * (size_t)j + (size_t)k];
            if (!isfinite(x)) return ck_bad(r, "impulses section, joint slot %d: row %d's impulse %g is not finite", j, k, (double)x);
        }
    return 1;
}
