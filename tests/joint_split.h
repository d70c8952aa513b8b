/* The joint errors and the contact depths a world reports, checked against each other: ctn_world_measure
 * and ctn_world_get_joint_errors cover the joints only, ctn_world_measure_contacts and
 * ctn_world_get_contact_depths the contacts only, and their maxima are the last step's max_joint_gap and
 * max_penetration. Returns the deepest contact (m). */
#ifndef CTN_TEST_JOINT_SPLIT_H
#define CTN_TEST_JOINT_SPLIT_H
#include "catena/catena.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>

static inline double check_joint_split(ctn_world *w, const char *what) {
    int n = 0, slots = 0, got = 0;
    ctn_world_id_counts(w, &n, &slots);
    (void)n;
    double *gap = calloc((size_t)slots + 1, sizeof *gap), *angle = calloc((size_t)slots + 1, sizeof *angle),
           *depth = calloc((size_t)slots + 1, sizeof *depth);
    CHECK(ctn_world_get_joint_errors(w, gap, angle, slots, &got) == CTN_OK && got == slots, "%s: joint errors: %s", what, ctn_world_last_error(w));
    CHECK(ctn_world_get_contact_depths(w, depth, slots, &got) == CTN_OK && got == slots, "%s: contact depths: %s", what, ctn_world_last_error(w));
    double gmax = 0, amax = 0, dmax = 0, mgap = -1, mangle = -1, mdepth = -1;
    int both = 0;
    for (int j = 0; j < slots; ++j) {
        gmax = fmax(gmax, gap[j]), amax = fmax(amax, angle[j]), dmax = fmax(dmax, depth[j]);
        both += depth[j] != 0.0 && (gap[j] != 0.0 || angle[j] != 0.0);
    }
    CHECK(both == 0, "%s: %d slots report a joint error and a contact depth at once", what, both);
    CHECK(ctn_world_measure(w, &mgap, &mangle) == CTN_OK, "%s: measure: %s", what, ctn_world_last_error(w));
    CHECK(ctn_world_measure_contacts(w, &mdepth) == CTN_OK, "%s: measure_contacts: %s", what, ctn_world_last_error(w));
    CHECK(mgap == gmax && mangle == amax, "%s: measure %g m %g rad, per-slot maxima %g m %g rad", what, mgap, mangle, gmax, amax);
    CHECK(mdepth == dmax, "%s: measure_contacts %g m, per-slot maximum %g m", what, mdepth, dmax);
    ctn_step_stats st;
    ctn_world_get_stats(w, &st);
    CHECK(fabs(st.max_joint_gap - mgap) <= 1e-6 * (1.0 + mgap) && fabs(st.max_penetration - mdepth) <= 1e-9,
          "%s: stats joint gap %g m, penetration %g m; measured %g m, %g m", what, st.max_joint_gap, st.max_penetration, mgap, mdepth);
    free(gap), free(angle), free(depth);
    return mdepth;
}
#endif
