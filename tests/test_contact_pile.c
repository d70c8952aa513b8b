/* A pile of spheres in a box settles without exploding, contacts never pull, every contact stays in its
 * friction cone, warm starting persists contact ids, and the result is deterministic (issue 5). */
#include "catena/catena.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static ctn_world *make_world(int threads) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.threads = threads;
    d.warm_start = 1.0; /* full warm start: the recommended setting for contact piles (README) */
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "create: %s", err);
    return w;
}

int main(void) {
    const int N = 400, steps = 240;
    ctn_world *w = make_world(0);
    CHECK(ctn_scene_from_spec(w, "pile:400") == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_contact_info *ci = malloc(20 * N * sizeof *ci);
    double max_speed_seen = 0.0;
    int pulls = 0, cone = 0, persisted = 0, total = 0;
    int *prev = calloc(64 * N, sizeof *prev);             /* by slot index: the step + 1 it was last seen */
    ctn_joint_id *prev_handle = calloc(64 * N, sizeof *prev_handle); /* and the handle it had */
    int prev_n = 0;
    ctn_step_stats st;
    for (int i = 0; i < steps; ++i) {
        ctn_status s = ctn_world_step(w);
        CHECK(s == CTN_OK, "step %d: %s", i, ctn_world_last_error(w));
        if (s != CTN_OK) break;
        ctn_world_get_stats(w, &st);
        if (st.max_speed > max_speed_seen) max_speed_seen = st.max_speed;
        int n = 0;
        ctn_world_get_contacts(w, ci, 20 * N, &n);
        CHECK(n <= 20 * N, "%d contacts", n);
        for (int k = 0; k < n; ++k) {
            if (ci[k].impulse[0] < 0.0) pulls++;
            if (hypot(ci[k].impulse[1], ci[k].impulse[2]) > ci[k].friction * ci[k].impulse[0] * (1.0 + 1e-5) + 1e-9) cone++;
        }
        /* persistence: in the settled half, most contacts keep their joint handle from one step to the next */
        if (i >= steps / 2) {
            for (int k = 0; k < n; ++k) {
                int id = ctn_handle_index(ci[k].joint);
                if (id < 64 * N && prev[id] == i && prev_handle[id] == ci[k].joint) persisted++;
            }
            total += n;
        }
        for (int k = 0; k < n; ++k) {
            int id = ctn_handle_index(ci[k].joint);
            CHECK(id < 64 * N, "contact slot %d: the slot range grew past %d", id, 64 * N);
            if (id < 64 * N) prev[id] = i + 1, prev_handle[id] = ci[k].joint;
        }
        prev_n = n;
    }
    (void)prev_n;
    CHECK(pulls == 0, "%d contact impulses < 0", pulls);
    CHECK(cone == 0, "%d friction impulses outside mu lambda_n", cone);
    /* settled: the largest linear speed (spheres may keep spinning about their contact normals: point
     * contacts have no torsional or rolling friction) */
    double vmax = 0.0;
    for (int b = 0; b < N; ++b) {
        ctn_body_state bs;
        ctn_body_get_state(w, b, &bs);
        double v = sqrt(bs.velocity[0] * bs.velocity[0] + bs.velocity[1] * bs.velocity[1] + bs.velocity[2] * bs.velocity[2]);
        if (v > vmax) vmax = v;
    }
    CHECK(vmax < 0.1, "pile still moving at %g m/s after %d steps", vmax, steps);
    CHECK(max_speed_seen < 40.0, "pile exploded: %g m/s or rad/s", max_speed_seen);
    CHECK(st.max_gap < 0.01, "penetration %g m", st.max_gap);
    CHECK(total > 0 && persisted > 0.95 * total, "contact ids persisted %d of %d", persisted, total);
    CHECK(st.colours >= 4 && st.colours <= 32, "%d colours", st.colours);
    /* every sphere is in the box */
    double *xyz = malloc(3 * N * sizeof *xyz);
    int written = 0;
    ctn_world_get_positions(w, xyz, N, &written);
    int out = 0;
    for (int b = 0; b < written; ++b) out += xyz[3 * b + 1] < 0.05 - 0.01 || !isfinite(xyz[3 * b]);
    CHECK(out == 0, "%d spheres fell through the floor", out);
    printf("pile:%d: max linear speed %.3g m/s, max speed %.3g (peak %.3g), %d contacts, %d colours (largest %d), persisted %.1f%%, penetration %.3g m, "
           "%.2f ms/step (collide %.2f ms)\n",
           N, vmax, st.max_speed, max_speed_seen, st.contacts, st.colours, st.largest_colour, 100.0 * persisted / (total ? total : 1),
           st.max_gap, st.ms_total, st.ms_collide);
    /* determinism: a second world with another thread count gives the same bits */
    ctn_world *w2 = make_world(1);
    ctn_scene_from_spec(w2, "pile:400");
    for (int i = 0; i < 60; ++i) ctn_world_step(w2);
    ctn_world *w3 = make_world(3);
    ctn_scene_from_spec(w3, "pile:400");
    for (int i = 0; i < 60; ++i) ctn_world_step(w3);
    double *a = malloc(3 * N * sizeof *a), *b = malloc(3 * N * sizeof *b);
    ctn_world_get_positions(w2, a, N, &written);
    ctn_world_get_positions(w3, b, N, &written);
    CHECK(memcmp(a, b, 3 * N * sizeof *a) == 0, "pile differs between 1 and 3 threads");
    free(a);
    free(b);
    free(xyz);
    free(ci);
    free(prev);
    free(prev_handle);
    ctn_world_destroy(w);
    ctn_world_destroy(w2);
    ctn_world_destroy(w3);
    return check_report("contact_pile");
}
