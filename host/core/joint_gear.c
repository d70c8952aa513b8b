/* Gears and rack-and-pinions between steps: the re-centring of their angle references.
 *
 * Their rows (kernels/ctn_joint_rows.h, ctn_rows_gear and ctn_rows_rack_pinion) measure each gear's turn as
 * an angle in (-pi, pi] from a reference direction stored in the joint definition, plus the error at that
 * reference. Before a gear can turn by pi from its reference the world moves the reference to the gear's
 * current spoke and folds the turn into the stored error (ctn_gear_recentre), so the error the rows see is
 * the accumulated, unwrapped one however many turns the gears make. The rows are then refreshed on the
 * backend like any changed definition (the topology is rebuilt). */
#include "core/joint_kinds.h"
#include "core/world.h"

/* The `between_steps` hook of both types in the joint-type table (joint_kinds.c). */
int ctn__gear_between_steps(ctn_world *w, ctn_joint_def *d) {
    if (!(ctn_gear_turn(*d, w->pose[d->a], w->pose[d->b]) > CTN_GEAR_RECENTRE)) return 0;
    ctn_gear_recentre(d, w->pose[d->a], w->pose[d->b]);
    return 1;
}

/* Runs the table's between-steps hooks; only gears have one, so a world without gears skips the walk. */
ctn_status ctn__gear_track(ctn_world *w) {
    if (w->topo.gear_count <= 0) return CTN_OK;
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    for (int j = 0; j < w->joint_count; ++j) {
        if (!w->joint_alive[j]) continue;
        const ctn_joint_kind *k = ctn__joint_kind(w->joints[j].type);
        if (k && k->between_steps && k->between_steps(w, &w->joints[j]))
            w->topology_dirty = 1; /* the solver copies of the definition (topo.defs, device) are refreshed */
    }
    return CTN_OK;
}
