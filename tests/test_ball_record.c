/* The exact solver's ball records (ctn_ball_row, 40 bytes a joint; host/solve/solver_cpu.c, direct_chain.c): a
 * world whose joints are all rigid ball joints on the chain path keeps its rows in them instead of the 288-byte
 * ctn_blocks, and must step to the same bits as the same world kept on the blocks (ctn__direct_set_blocks_only):
 * poses (with their low-order position words and padding), velocities and impulses compared byte for byte after
 * every step, for chains of rigid bodies and of particles (one and two segments: the separator's generic steps
 * read a block formed from its record), several paths in one world, the velocity step with its projection (chord
 * steps and Newton steps), four substeps with two outer iterations, and RATTLE (which turns a step back to the
 * blocks). The records' world never allocates the blocks: the solver is handed NULL for them, so a reader left
 * over would crash here rather than read stale rows. */
#include "catena/catena.h"
#include "ids.h"
#include "check.h"
#include "solve/direct_internal.h"
#include "solve/solve.h"

#include <string.h>

#define STEPS 12

typedef struct config {
    const char *name;
    int iterations, substeps;
    ctn_integrator integrator;
} config;

/* n particles along +x, 0.1 m apart, on ball joints whose anchors lie half a link off each particle (a particle
 * does not rotate: the bodies' ROT bits are off), the first pinned to the world at the origin. */
static void particle_chain(ctn_world *w, int n) {
    const double L = 0.1;
    ctn_body_id prev = CTN_WORLD, id = CTN_NULL_BODY;
    for (int i = 0; i < n; ++i) {
        ctn_body_desc bd = ctn_body_desc_default();
        bd.particle = 1;
        bd.mass = 0.1 * (1.0 + 0.5 * (i % 3));
        bd.position[0] = (i + 0.5) * L;
        CHECK(ctn_body_add(w, &bd, &id) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_BALL);
        jd.body_a = id, jd.body_b = prev;
        jd.anchor_a[0] = -0.5 * L;
        jd.anchor_b[0] = ctn_body_is_world(prev) ? 0.0 : 0.5 * L;
        CHECK(ctn_joint_add(w, &jd, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
        prev = id;
    }
}

static ctn_world *make(const char *spec, const config *c, int blocks_only) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.solver = CTN_SOLVER_DIRECT;
    d.iterations = c->iterations;
    d.substeps = c->substeps;
    d.integrator = c->integrator;
    d.threads = 1;
    ctn_world *w = NULL;
    char err[256];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        CHECK(0, "world: %s", err);
        return NULL;
    }
    if (blocks_only) ctn__direct_set_blocks_only(w, 1);
    if (strcmp(spec, "particles") == 0) particle_chain(w, 200);
    else CHECK(ctn_scene_from_spec(w, spec) == CTN_OK, "%s: %s", spec, ctn_world_last_error(w));
    /* every body a random velocity and spin (the same draws in both worlds): no joint starts at a zero target, as
     * the links of a chain released at rest would (free fall keeps their rows' targets at zero for many steps) */
    unsigned long long x = 0x9E3779B97F4A7C15ull;
    int n = ctn_world_body_count(w);
    for (int i = 0; i < n; ++i) {
        ctn_body_state st;
        CHECK(ctn_body_get_state(w, HBODY(w, i), &st) == CTN_OK, "%s", ctn_world_last_error(w));
        for (int k = 0; k < 6; ++k) {
            x ^= x >> 12, x ^= x << 25, x ^= x >> 27; /* xorshift64* */
            double u = (double)((x * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0) - 0.5;
            if (k < 3) st.velocity[k] += u;
            else st.angular_velocity[k - 3] += 4.0 * u;
        }
        CHECK(ctn_body_set_state(w, HBODY(w, i), &st) == CTN_OK, "%s", ctn_world_last_error(w));
    }
    return w;
}

/* Steps both worlds and compares their state after each step; returns whether the records were used. */
static int compare(const char *spec, const config *c) {
    ctn_world *a = make(spec, c, 0), *b = make(spec, c, 1);
    int used = 0;
    if (!a || !b) goto done;
    for (int k = 0; k < STEPS; ++k) {
        CHECK(ctn_world_step(a) == CTN_OK, "%s %s: %s", spec, c->name, ctn_world_last_error(a));
        CHECK(ctn_world_step(b) == CTN_OK, "%s %s: %s", spec, c->name, ctn_world_last_error(b));
        used |= ctn__direct_ball_rows(a);
        CHECK(!ctn__direct_ball_rows(b), "%s %s: the blocks-only world took the ball records", spec, c->name);
        CHECK(a->body_count == b->body_count && a->topo.joint_count == b->topo.joint_count, "%s: layouts differ", spec);
        size_t nb = (size_t)a->body_count, nl = 6 * (size_t)a->topo.joint_count;
        int pose = memcmp(a->pose, b->pose, nb * sizeof *a->pose) == 0, vel = memcmp(a->vel, b->vel, nb * sizeof *a->vel) == 0;
        int lam = memcmp(a->topo.lambda, b->topo.lambda, nl * sizeof *a->topo.lambda) == 0;
        CHECK(pose && vel && lam, "%s %s, step %d: records and blocks differ (poses %s, velocities %s, impulses %s)", spec, c->name, k + 1,
              pose ? "equal" : "differ", vel ? "equal" : "differ", lam ? "equal" : "differ");
        if (!(pose && vel && lam)) break;
    }
done:
    ctn_world_destroy(a);
    ctn_world_destroy(b);
    return used;
}

int main(void) {
    const config configs[] = {
        {"velocity 1x1", 1, 1, CTN_INTEGRATOR_VELOCITY},
        {"velocity 2x4", 2, 4, CTN_INTEGRATOR_VELOCITY},
        {"rattle 1x1", 1, 1, CTN_INTEGRATOR_RATTLE},
    };
    /* chain:1500 has two segments (a separator); particles: no rotation; cradle:5 five paths */
    const char *scenes[] = {"chain:40", "chain:1500", "particles", "heavy_chain:60", "cradle:5", "double_pendulum"};
    int used = 0, runs = 0;
    for (size_t s = 0; s < sizeof scenes / sizeof *scenes; ++s)
        for (size_t c = 0; c < sizeof configs / sizeof *configs; ++c) {
            int u = compare(scenes[s], &configs[c]);
            if (s < 4 && configs[c].integrator == CTN_INTEGRATOR_VELOCITY)
                CHECK(u, "%s %s: the ball records were not used", scenes[s], configs[c].name);
            used += u, runs++;
        }
    printf("ball records: %d of %d runs on them, every step equal to the blocks' bit for bit\n", used, runs);
    return check_report("ball_record");
}
