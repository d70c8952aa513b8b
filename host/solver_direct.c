/* Exact solver for chains and trees of joints (issue 8). Placeholder: falls back to one GS sweep per
 * iteration until the block elimination lands. */
#include "world.h"
#include "ctn_solver.h"

double ctn__solve_direct(ctn_world *w, const ctn_block *blocks) {
    const ctn_topology *t = &w->topo;
    double r2 = 0.0;
    for (int it = 0; it < w->desc.iterations; ++it) {
        r2 = 0.0;
        for (int s = 0; s < t->joint_count; ++s) r2 += ctn_gs_slot(s, t->defs, blocks, t->lambda, w->vel, w->inertia);
    }
    return r2;
}
