/* Bulk state access (host/core/bulk.c): every field round-trips, removed ids read as zeros, a bad row leaves
 * the world unchanged, static bodies stay put, and the per-joint errors' maximum is ctn_world_measure's. */
#include "check.h"
#include <catena/catena.h>
#include "ids.h"

#include <stdlib.h>
#include <string.h>

enum { LINKS = 20 };

static ctn_world *chain_world(void) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    ctn_world *w = NULL;
    char err[256];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) return NULL;
    ctn_chain_desc c = ctn_chain_desc_default(LINKS);
    if (ctn_scene_chain(w, &c, NULL) != CTN_OK) {
        ctn_world_destroy(w);
        return NULL;
    }
    return w;
}

static void test_round_trip(void) {
    ctn_world *w = chain_world();
    CHECK(w != NULL, "world");
    if (!w) return;
    for (int i = 0; i < 10; ++i) ctn_world_step(w);
    for (int f = CTN_BODY_POSITION; f <= CTN_BODY_ANGULAR_VELOCITY; ++f) {
        int width = ctn_body_field_width((ctn_body_field)f), n = 0;
        double *a = calloc((size_t)LINKS * width, sizeof *a), *b = calloc((size_t)LINKS * width, sizeof *b);
        CHECK(ctn_world_get_body_field(w, (ctn_body_field)f, a, LINKS, &n) == CTN_OK && n == LINKS, "read field %d", f);
        for (int k = 0; k < LINKS * width; ++k) a[k] = 0.25 * (k % 7) + (f == CTN_BODY_ORIENTATION && k % 4 == 0 ? 1.0 : 0.0);
        CHECK(ctn_world_set_body_field(w, (ctn_body_field)f, a, LINKS) == CTN_OK, "write field %d: %s", f, ctn_world_last_error(w));
        CHECK(ctn_world_get_body_field(w, (ctn_body_field)f, b, LINKS, NULL) == CTN_OK, "read back field %d", f);
        double worst = 0.0;
        for (int i = 0; i < LINKS; ++i) {
            double norm = 1.0;
            if (f == CTN_BODY_ORIENTATION) { /* written unnormalised, read back normalised */
                const double *q = a + 4 * i;
                norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            }
            for (int k = 0; k < width; ++k) worst = fmax(worst, fabs(a[i * width + k] / norm - b[i * width + k]));
        }
        /* positions are two floats (~2^-48 relative), the other fields float32 */
        CHECK(worst <= (f == CTN_BODY_POSITION ? 1e-12 : 1e-6), "field %d round trip: worst difference %g", f, worst);
        ctn_body_state s;
        ctn_body_get_state(w, HBODY(w, 3), &s);
        const double *one = f == CTN_BODY_POSITION ? s.position
                            : f == CTN_BODY_ORIENTATION ? s.orientation
                            : f == CTN_BODY_VELOCITY ? s.velocity
                                                    : s.angular_velocity;
        CHECK(memcmp(one, b + 3 * width, (size_t)width * sizeof *one) == 0, "field %d agrees with ctn_body_get_state", f);
        free(a);
        free(b);
    }
    ctn_world_destroy(w);
}

static void test_bad_rows_change_nothing(void) {
    ctn_world *w = chain_world();
    if (!w) return;
    for (int i = 0; i < 5; ++i) ctn_world_step(w);
    double before[LINKS * 4], after[LINKS * 4], in[LINKS * 4];
    ctn_world_get_body_field(w, CTN_BODY_POSITION, before, LINKS, NULL);
    memcpy(in, before, sizeof in);
    for (int k = 0; k < 3 * LINKS; ++k) in[k] += 1.0;
    in[3 * 7 + 1] = NAN;
    CHECK(ctn_world_set_body_field(w, CTN_BODY_POSITION, in, LINKS) == CTN_ERR_INVALID_ARGUMENT, "NaN row refused");
    CHECK(strstr(ctn_world_last_error(w), "position[7][1]") != NULL, "message names the row: %s", ctn_world_last_error(w));
    ctn_world_get_body_field(w, CTN_BODY_POSITION, after, LINKS, NULL);
    CHECK(memcmp(before, after, 3 * LINKS * sizeof(double)) == 0, "world unchanged after the refused write");

    for (int k = 0; k < 4 * LINKS; ++k) in[k] = k % 4 == 0 ? 1.0 : 0.0;
    memset(in + 4 * 12, 0, 4 * sizeof(double));
    ctn_world_get_body_field(w, CTN_BODY_ORIENTATION, before, LINKS, NULL);
    CHECK(ctn_world_set_body_field(w, CTN_BODY_ORIENTATION, in, LINKS) == CTN_ERR_INVALID_ARGUMENT, "zero quaternion refused");
    CHECK(strstr(ctn_world_last_error(w), "orientation[12]") != NULL, "message names the row: %s", ctn_world_last_error(w));
    ctn_world_get_body_field(w, CTN_BODY_ORIENTATION, after, LINKS, NULL);
    CHECK(memcmp(before, after, 4 * LINKS * sizeof(double)) == 0, "orientations unchanged after the refused write");

    CHECK(ctn_world_set_body_field(w, CTN_BODY_VELOCITY, in, LINKS + 1) == CTN_ERR_INVALID_ARGUMENT, "more rows than ids refused");
    CHECK(ctn_world_get_body_field(w, (ctn_body_field)9, in, LINKS, NULL) == CTN_ERR_INVALID_ARGUMENT, "unknown field refused");
    CHECK(ctn_world_get_body_field(w, CTN_BODY_VELOCITY, NULL, LINKS, NULL) == CTN_ERR_INVALID_ARGUMENT, "NULL buffer refused");
    CHECK(ctn_body_field_width((ctn_body_field)-1) == 0, "width of an unknown field");
    ctn_world_destroy(w);
}

static void test_removed_and_static(void) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    ctn_world *w = NULL;
    ctn_world_create(&d, &w, NULL, 0);
    if (!w) return;
    ctn_body_desc b = ctn_body_desc_default();
    ctn_body_id ids[3];
    for (int i = 0; i < 3; ++i) {
        b.type = i == 2 ? CTN_BODY_STATIC : CTN_BODY_DYNAMIC;
        b.position[0] = i + 1.0;
        ctn_body_add(w, &b, &ids[i]);
    }
    ctn_body_remove(w, ids[1]);
    double v[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, out[9];
    CHECK(ctn_world_set_body_field(w, CTN_BODY_VELOCITY, v, 3) == CTN_OK, "write with a removed id");
    ctn_world_get_body_field(w, CTN_BODY_VELOCITY, out, 3, NULL);
    CHECK(out[0] == 1.0 && out[1] == 2.0 && out[2] == 3.0, "dynamic body takes the velocity");
    CHECK(out[3] == 0.0 && out[4] == 0.0 && out[5] == 0.0, "removed id reads zeros");
    CHECK(out[6] == 0.0 && out[7] == 0.0 && out[8] == 0.0, "static body keeps zero velocity");
    ctn_world_get_body_field(w, CTN_BODY_POSITION, out, 3, NULL);
    CHECK(out[0] == 1.0 && out[3] == 0.0 && out[6] == 3.0, "positions: %g %g %g", out[0], out[3], out[6]);
    ctn_world_destroy(w);
}

static void test_joint_errors(void) {
    ctn_world *w = chain_world();
    if (!w) return;
    ctn_world_desc d;
    ctn_world_get_desc(w, &d);
    d.solver = CTN_SOLVER_GS; /* an iterative solve leaves gaps worth comparing */
    ctn_world_set_desc(w, &d);
    for (int i = 0; i < 30; ++i) ctn_world_step(w);
    double gap[LINKS + 5], angle[LINKS + 5], max_gap, max_angle;
    int n = 0;
    CHECK(ctn_world_get_joint_errors(w, gap, angle, LINKS + 5, &n) == CTN_OK && n == LINKS, "read %d joint errors", n);
    ctn_world_measure(w, &max_gap, &max_angle);
    double g = 0.0, a = 0.0;
    for (int j = 0; j < n; ++j) g = fmax(g, gap[j]), a = fmax(a, angle[j]);
    CHECK(g == max_gap && g > 0.0, "largest gap %g equals ctn_world_measure's %g", g, max_gap);
    CHECK(a == max_angle, "largest angle %g equals %g", a, max_angle);
    ctn_joint_remove(w, HJOINT(w, LINKS - 1));
    CHECK(ctn_world_get_joint_errors(w, gap, NULL, LINKS, NULL) == CTN_OK && gap[LINKS - 1] == 0.0, "removed joint reads 0");
    CHECK(ctn_world_get_joint_errors(w, NULL, NULL, LINKS, NULL) == CTN_ERR_INVALID_ARGUMENT, "no output refused");
    ctn_world_destroy(w);
}

int main(void) {
    test_round_trip();
    test_bad_rows_change_nothing();
    test_removed_and_static();
    test_joint_errors();
    return check_report("test_bulk");
}
