/* Gears and rack-and-pinions between steps: the re-centring of their angle references.
 *
 * Their rows (kernels/ctn_joint_rows.h, ctn_rows_gear and ctn_rows_rack_pinion) measure each gear's turn as
 * an angle in (-pi, pi] from a reference direction stored in the joint definition, plus the error at that
 * reference. Before a gear can turn by pi from its reference the world moves the reference to the gear's
 * current spoke and folds the turn into the stored error (ctn_gear_recentre), so the error the rows see is
 * the accumulated, unwrapped one however many turns the gears make. The rows are then refreshed on the
 * backend like any changed definition (the topology is rebuilt). */
#include "core/world.h"

ctn_status ctn__gear_track(ctn_world *w) {
    if (w->topo.gear_count <= 0) return CTN_OK;
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    for (int j = 0; j < w->joint_count; ++j) {
        ctn_joint_def *d = &w->joints[j];
        if (!w->joint_alive[j] || (d->type != CTN_JT_GEAR && d->type != CTN_JT_RACK_PINION)) continue;
        if (!(ctn_gear_turn(*d, w->pose[d->a], w->pose[d->b]) > CTN_GEAR_RECENTRE)) continue;
        ctn_gear_recentre(d, w->pose[d->a], w->pose[d->b]);
        w->topology_dirty = 1; /* the solver copies of the definition (topo.defs, device) are refreshed */
    }
    return CTN_OK;
}
