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
        if (!ctn__joint_may_be_bounded_at(t, s)) continue;
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

/* Gauss-Seidel's readers of a ball joint's rows (the lean row build, the point update, the warm start's
 * gather) need 64 of the general block's 288 bytes (kernels/ctn_types.h ctn_point_block). Mass splitting
 * (Jacobi), CG's general blocks, the exact solver's factor, its projection and RATTLE read the general
 * block, and so does any other joint type: only Gauss-Seidel on ball joints alone is compact. One rule on
 * both backends. */
int ctn__rows_compact(const ctn_world *w, ctn_compact_cache *cache) {
    const ctn_topology *t = &w->topo;
    if (w->solver != CTN_SOLVER_GS || t->joint_count == 0) return 0;
    if (!cache->valid || cache->version != w->topology_version) {
        int all = 1;
        for (int s = 0; s < t->joint_count && all; ++s) all = t->defs[s].type == CTN_JT_BALL;
        cache->holds = all, cache->valid = 1, cache->version = w->topology_version;
    }
    return cache->holds;
}
