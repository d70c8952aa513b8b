/* Joint forces in newtons: the impulse a joint's rows applied in the last substep over the substep
 * length. A row k with direction d_k and impulse lambda_k acts on body a through J_a = [d_k, ra x d_k]
 * (linear rows) or [0, t_k] (angular rows), kernels/ctn_rows.h, so over the substep h the joint applied
 *     f_a = sum_lin d_k lambda_k / h,   tau_a = sum_lin (ra x d_k) lambda_k / h + sum_ang t_k lambda_k / h
 * to body a (about its centre of mass), and the opposite to body b at its own anchor. The impulse is the
 * solver's, accumulated over the iterations of the last substep; the rows are linearised at the current
 * pose, which has moved by one substep since, a difference of order h in the force's direction. */
#include "core/world.h"

#include <string.h>

/* Force and torque (6 doubles) of joint j on body a; h = substep length. The host arrays are current. */
static void joint_force(const ctn_world *w, int j, double h, double out[6]) {
    ctn_joint_def def = ctn__jdef_get(w, j), *d = &def;
    ctn_pose pa = w->pose[d->a], pb = d->b >= 0 ? w->pose[d->b] : ctn__world_pose();
    ctn_v3 f = ctn_v3_zero(), t = ctn_v3_zero();
    if (d->type == CTN_JT_SPRING) { /* a force element: its force at the current state (kernels/ctn_body.h) */
        ctn_vel world_vel;
        memset(&world_vel, 0, sizeof world_vel);
        ctn_v3 ra, rb;
        f = ctn_spring_force(*d, pa, pb, w->vel[d->a], d->b >= 0 ? w->vel[d->b] : world_vel, &ra, &rb);
        t = ctn_cross(ra, f);
    } else if (!w->topology_dirty && ctn__joint_layout_slot(w, j) >= 0) {
        int ls = w->topo.stride;
        const float *lambda = &w->topo.lambda[(size_t)ls * (size_t)ctn__joint_layout_slot(w, j)];
        ctn_block blk;
        float g[CTN_MAX_ROWS];
        ctn_joint_rows(*d, pa, pb, &blk, g);
        for (int k = 0; k < blk.n_lin; ++k) {
            f = ctn_madd(f, blk.dir[k], CTN_LAM(lambda, ls, 0, k) / (float)h);
            t = ctn_madd(t, ctn_cross(blk.ra, blk.dir[k]), CTN_LAM(lambda, ls, 0, k) / (float)h);
        }
        for (int k = blk.n_lin; k < blk.n_lin + blk.n_ang; ++k) t = ctn_madd(t, blk.dir[k], CTN_LAM(lambda, ls, 0, k) / (float)h);
    }
    out[0] = f.x, out[1] = f.y, out[2] = f.z;
    out[3] = t.x, out[4] = t.y, out[5] = t.z;
}

static double substep_length(const ctn_world *w) { return w->desc.time_step / ctn__substeps(w); }

void ctn__joint_force_torque(const ctn_world *w, int j, double out[6]) { joint_force(w, j, substep_length(w), out); }

ctn_status ctn_joint_get_force(ctn_world *w, ctn_joint_id joint, double force[3], double torque[3]) {
    CTN__ENTER(w);
    if (!force || !torque) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_joint_get_force: %s is NULL", force ? "torque" : "force");
    int j = ctn__joint_index(w, joint, "ctn_joint_get_force");
    if (j < 0) return w->handle_status;
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    double ft[6];
    joint_force(w, j, substep_length(w), ft);
    memcpy(force, ft, 3 * sizeof *ft);
    memcpy(torque, ft + 3, 3 * sizeof *ft);
    return CTN_OK;
}

ctn_status ctn_world_get_joint_forces(ctn_world *w, double *force_torque, int count, int *written) {
    CTN__ENTER(w);
    if (!force_torque) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_get_joint_forces: force_torque is NULL");
    if (count < 0) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_get_joint_forces: count %d is negative", count);
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    int n = count < w->joint_count ? count : w->joint_count;
    double h = substep_length(w);
    for (int j = 0; j < n; ++j) {
        if (w->joint_alive[j]) joint_force(w, j, h, force_torque + 6 * (size_t)j);
        else memset(force_torque + 6 * (size_t)j, 0, 6 * sizeof *force_torque);
    }
    if (written) *written = n;
    return CTN_OK;
}
