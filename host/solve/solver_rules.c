/* Rules that decide which algorithm a setting runs, shared by both backends so that the same setting runs
 * the same algorithm on the CPU and on OpenCL. */
#include "solve/solve.h"
#include "core/world.h"

int ctn__joint_may_be_bounded(const ctn_joint_def *d) {
    return d->type == CTN_JT_CONTACT || (d->flags & (CTN_JF_LIMIT | CTN_JF_MOTOR | CTN_JF_ROPE | CTN_JF_SWING));
}

/* CG (Hestenes and Stiefel 1952) solves the symmetric positive definite system of equality rows only; a
 * bounded row needs the projection of a complementarity solver. The test is on the joint definitions, not
 * on a substep's bounds, so it is one decision per step on both backends (the device has the blocks, not
 * the host): conservative for a limit that is not reached. */
int ctn__cg_runs_gs(ctn_world *w, int *warned) {
    if (w->solver != CTN_SOLVER_CG) return 0;
    const ctn_topology *t = &w->topo;
    for (int s = 0; s < t->joint_count; ++s) {
        if (!ctn__joint_may_be_bounded(&t->defs[s])) continue;
        if (!*warned) {
            *warned = 1;
            ctn__log(w, CTN_LOG_INFO,
                     "the CG solver handles bilateral rows only; joint %d has bounded rows (contact, limit, "
                     "motor or rope), so steps with bounded rows are solved by Gauss-Seidel",
                     t->order[s]);
        }
        return 1;
    }
    return 0;
}
