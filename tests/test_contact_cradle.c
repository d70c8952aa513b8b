/* Newton's cradle with contacts and restitution 1: the raised ball stops at the impact and the
 * last ball leaves with its speed; the middle balls stay put; contacts never pull. */
#include "catena/catena.h"
#include "ids.h"
#include "check.h"

#include <math.h>

int main(void) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    CHECK(ctn_scene_from_spec(w, "contact_cradle:5") == CTN_OK, "%s", ctn_world_last_error(w));
    double v[5], u = 0.0;
    int pulls = 0;
    for (int i = 0; i < 40; ++i) {
        CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_contact_info ci[16];
        int n = 0;
        ctn_world_get_contacts(w, ci, 16, &n);
        for (int k = 0; k < n && k < 16; ++k) pulls += ci[k].impulse[0] < 0.0;
        for (int b = 0; b < 5; ++b) {
            ctn_body_state s;
            ctn_body_get_state(w, HBODY(w, b), &s);
            v[b] = s.velocity[0];
        }
        if (v[0] > u) u = v[0]; /* impact speed: the first ball's largest speed */
    }
    /* 2.4 m/s from 45 degrees on a 1 m string */
    CHECK(fabs(u - sqrt(2.0 * 9.81 * (1.0 - cos(0.25 * 3.14159265358979)))) < 0.05, "impact speed %g", u);
    CHECK(fabs(v[0]) < 0.05 * u, "first ball moves on at %g m/s after the impact (impact %g)", v[0], u);
    for (int b = 1; b < 4; ++b) CHECK(fabs(v[b]) < 0.05 * u, "middle ball %d moves at %g m/s", b, v[b]);
    /* the last ball left with (almost) the impact speed; 40 steps in it has risen a little */
    ctn_body_state last;
    ctn_body_get_state(w, HBODY(w, 4), &last);
    double speed = sqrt(last.velocity[0] * last.velocity[0] + last.velocity[1] * last.velocity[1]);
    double energy = 0.5 * speed * speed + 9.81 * (last.position[1] + 1.0);
    CHECK(fabs(energy - 0.5 * u * u) < 0.05 * 0.5 * u * u, "last ball energy %g J/kg, impact %g J/kg", energy, 0.5 * u * u);
    CHECK(pulls == 0, "%d pulling contacts", pulls);
    printf("cradle: impact %.3f m/s, after: %.3f %.3f %.3f %.3f, last ball energy %.1f%% of the impact\n", u, v[0], v[1], v[2], v[3],
           100.0 * energy / (0.5 * u * u));
    ctn_world_destroy(w);
    return check_report("contact_cradle");
}
