#include "catena/catena.h"
#include "check.h"

int main(void) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    CHECK(ctn_scene_from_spec(w, "chain:100") == CTN_OK, "%s", ctn_world_last_error(w));
    for (int i = 0; i < 60; ++i) CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_step_stats s;
    ctn_world_get_stats(w, &s);
    CHECK(s.colours == 2, "colours %d", s.colours);
    /* a 100-link chain released horizontally whips; 4 substeps x 4 GS sweeps keep joints within half a link */
    CHECK(s.max_gap < 0.05, "gap %g", s.max_gap);
    ctn_world_destroy(w);
    return check_report("smoke");
}
