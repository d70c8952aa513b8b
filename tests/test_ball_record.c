/* The exact solver's ball records (ctn_ball_row, 40 bytes a joint; host/solve/solver_cpu.c, direct_chain.c): a
 * world whose joints are all rigid ball joints on the chain path keeps its rows in them instead of the 288-byte
 * ctn_blocks, and must step to the same bits as the same world kept on the blocks (ctn__direct_set_blocks_only):
 * poses (with their low-order position words), velocities and impulses compared byte for byte after
 * every step, for chains of rigid bodies and of particles (one and two segments: the separator's generic steps
 * read a block formed from its record), several paths in one world, the velocity step with its projection (chord
 * steps and Newton steps), four substeps with two outer iterations, and RATTLE (which turns a step back to the
 * blocks), and the residual the step reports. From its second step on the blocks' world takes the generic node
 * steps (ctn__chain_set_generic) where the records' world runs the lean ball walks, so each step compares those
 * too. Both worlds keep P^-1 (the pivot inverses, which only the chord steps read back) in float on the velocity
 * step, a property of the layout (ctn__chain_pivots; the separator's in double): there the blocks' world takes the
 * generic steps from its first step on, which keep a pivot in double until it is factored, as the lean walks do.
 * The records' world never allocates the blocks: the solver is handed NULL for them, so a reader left over would
 * crash here rather than read stale rows. */
#include "joint_view.h"
#include "catena/catena.h"
#include "ids.h"
#include "check.h"
#include "solve/direct_internal.h"
#include "solve/solve.h"
#include "ctn_solver.h"
#include "random_poses.h"

#include <math.h>
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
        ctn_step_stats sa, sb;
        ctn_world_get_stats(a, &sa);
        ctn_world_get_stats(b, &sb);
        /* from step 2 on, b's chain takes the generic factor steps (ctn__chain_set_generic) */
        CHECK(memcmp(&sa.residual, &sb.residual, sizeof sa.residual) == 0, "%s %s, step %d: residual %.17g, blocks' %.17g", spec, c->name,
              k + 1, sa.residual, sb.residual);
        const direct_state *ds = b->direct_data;
        if (k == 0 && ds && ds->chain) ctn__chain_set_generic(ds->chain, 1);
        used |= ctn__direct_ball_rows(a);
        CHECK(!ctn__direct_ball_rows(b), "%s %s: the blocks-only world took the ball records", spec, c->name);
        CHECK(a->body_count == b->body_count && a->topo.joint_count == b->topo.joint_count, "%s: layouts differ", spec);
        size_t nb = (size_t)a->body_count, nl = (size_t)a->topo.stride * (size_t)a->topo.joint_count;
        int pose = memcmp(a->pose, b->pose, nb * sizeof *a->pose) == 0, vel = memcmp(a->vel, b->vel, nb * sizeof *a->vel) == 0;
        int lam = memcmp(a->topo.lambda, b->topo.lambda, nl * sizeof *a->topo.lambda) == 0;
        CHECK(pose && vel && lam, "%s %s, step %d: records and blocks differ (poses %s, velocities %s, impulses %s)", spec, c->name, k + 1,
              pose ? "equal" : "differ", vel ? "equal" : "differ", lam ? "equal" : "differ");
        if (!(pose && vel && lam)) break;
    }
    /* P^-1 is kept in float by the velocity step of both worlds (a property of the layout: K, its double storage,
     * is not allocated, ctn__chain_pivots), in double under RATTLE, whose stages re-solve with the kept factor
     * (chain:1500 is over RATTLE's joint limit: the velocity step) */
    ctn_step_stats st;
    ctn_world_get_stats(a, &st);
    int velocity = st.integrator == CTN_INTEGRATOR_VELOCITY;
    for (int w = 0; w < 2; ++w) {
        const direct_state *ds = (w ? b : a)->direct_data;
        if (!ds || !ds->chain || !ds->ball_rows) continue;
        const double *K, *C, *y;
        size_t nk, nc, ny;
        ctn__chain_arrays(ds->chain, &K, &nk, &C, &nc, &y, &ny);
        CHECK((K == NULL) == velocity, "%s %s: P^-1 of the %s' world in %s", spec, c->name,
              w ? "blocks" : "records", K ? "double" : "float");
    }
done:
    ctn_world_destroy(a);
    ctn_world_destroy(b);
    return used;
}

/* The row build of the records (ctn__ball_rows: SSE lanes where the machine has SSE2) against the scalar
 * ctn_prepare_slot_ball_row on random joints, bit for bit, from the same garbage in both arrays, on one and on
 * two threads: poses (two-float positions, unit quaternions), velocities, joints to the world, SPOOK and
 * Baumgarte, damping times given or not, implicit springs, padding fields holding NaN (read into a lane the
 * build must ignore), and a few non-finite velocities. The projection's error is ctn_project_ball_row's max. */
#define RB_BODIES 1200
#define RB_JOINTS 5000 /* above the CPU's parallel threshold (4096) */
static ctn_pose rb_pose[RB_BODIES];
static ctn_vel rb_vel[RB_BODIES];
static ctn_joint_def rb_defs[RB_JOINTS];
static ctn_joint_core rb_core[RB_JOINTS];
static ctn_joint_extra rb_extra[RB_JOINTS];
static ctn_ball_row rb_ref[RB_JOINTS], rb_got[RB_JOINTS];

static void build_lanes(void) {
    for (int i = 0; i < RB_BODIES; ++i) {
        memset(&rb_pose[i], 0, sizeof rb_pose[i]);
        rb_pose[i].p = rand_v3(10.0), rb_pose[i].p_lo = rand_v3(1e-6), rb_pose[i].q = rand_quat();
        rb_vel[i].v = rand_v3(3.0), rb_vel[i].w = rand_v3(5.0);
        if (i % 97 == 5) rb_vel[i].w.y = INFINITY;
        if (i % 131 == 7) rb_vel[i].v.z = NAN;
    }
    for (int s = 0; s < RB_JOINTS; ++s) {
        ctn_joint_def *d = &rb_defs[s];
        memset(d, 0, sizeof *d);
        d->type = CTN_JT_BALL, d->rows = 3;
        d->a = (int)((urand() + 1.0) * 0.5 * RB_BODIES) % RB_BODIES;
        d->b = s % 9 == 0 ? -1 : (int)((urand() + 1.0) * 0.5 * RB_BODIES) % RB_BODIES;
        d->anchor_a = rand_v3(0.5), d->anchor_b = rand_v3(0.5);
        d->rest_length = s % 3 ? NAN : 0.0f; /* after anchor_a: the lane the build must ignore */
        d->compliance = s % 4 == 0 ? (float)(1e-6 * (urand() + 1.0)) : 0.0f;
        d->damping_time = s % 5 == 0 ? 0.0f : (float)(0.05 * (urand() + 1.0));
        d->flags = s % 7 == 0 ? CTN_JF_IMPLICIT_SPRING : 0;
    }
    for (int stab = 0; stab < 2; ++stab) {
        ctn_step_params prm;
        memset(&prm, 0, sizeof prm);
        prm.h = 1.0f / 60.0f, prm.stabilization = stab, prm.baumgarte = 0.2f;
        memset(rb_ref, 0xA5, sizeof rb_ref);
        float ref_worst = 0.0f;
        for (int s = 0; s < RB_JOINTS; ++s) {
            ctn_prepare_slot_ball_row(s, joint_view(rb_defs, RB_JOINTS, rb_core, rb_extra), rb_pose, rb_vel, prm, rb_ref);
            float e = ctn_project_ball_row(&rb_ref[s], prm.h);
            ref_worst = e > ref_worst ? e : ref_worst;
        }
        for (int threads = 1; threads <= 2; ++threads)
            for (int project = 0; project < 2; ++project) {
                memset(rb_got, 0xA5, sizeof rb_got);
                float worst = ctn__ball_rows(joint_view(rb_defs, RB_JOINTS, rb_core, rb_extra), RB_JOINTS, rb_pose, rb_vel, prm, rb_got, project, threads);
                int bad = -1;
                for (int s = 0; s < RB_JOINTS && bad < 0; ++s)
                    if (memcmp(&rb_ref[s], &rb_got[s], sizeof rb_ref[s]) != 0) bad = s;
                CHECK(bad < 0, "stabilization %d, %d threads: joint %d's record differs from the scalar build's", stab, threads, bad);
                float want = project ? ref_worst : 0.0f;
                CHECK(memcmp(&worst, &want, sizeof worst) == 0, "stabilization %d, %d threads: error %.9g, scalar %.9g", stab, threads, worst, want);
            }
    }
}

/* chain SPEC after one velocity step 1x1, with its chain layout, where READS_ALL (what the step's residual read in
 * full: WHAT) holds; NULL (the checks said why) otherwise. */
static ctn_world *stepped_chain(const char *spec, int (*reads_all)(const ctn_world *), const char *what, const direct_state **out) {
    const config c = {"velocity 1x1", 1, 1, CTN_INTEGRATOR_VELOCITY};
    ctn_world *w = make(spec, &c, 0);
    if (!w) return NULL;
    CHECK(ctn_world_step(w) == CTN_OK, "%s: %s", spec, ctn_world_last_error(w));
    const direct_state *s = w->direct_data;
    int ok = reads_all(w) && s && s->chain;
    CHECK(ok, "%s: the step's residual read every %s", spec, what);
    if (!ok) {
        ctn_world_destroy(w);
        return NULL;
    }
    *out = s;
    return w;
}

/* The residual of the ball records reads every impulse (ctn__direct_residual_impulses: the integration in place
 * then skips the impulses' scan): after a velocity step of chain:40 and chain:1500 (two segments), a NaN, +inf
 * or -inf planted in any row of any joint's impulse makes the chain residual not finite, and it is finite
 * without one. */
static void residual_reads_impulses(const char *spec) {
    const direct_state *s = NULL;
    ctn_world *w = stepped_chain(spec, ctn__direct_residual_impulses, "impulse", &s);
    if (!w) return;
    ctn_topology *t = &w->topo;
    CHECK(t->stride == 3, "%s: row stride %d", spec, t->stride);
    CHECK(isfinite(ctn__chain_residual(w, s->chain, NULL)), "%s: a finite residual without a planted impulse", spec);
    const float bad[3] = {NAN, INFINITY, -INFINITY};
    int missed = 0, tried = 0;
    for (int j = 0; j < t->joint_count; j += (j < 8 || j > t->joint_count - 8) ? 1 : 37)
        for (int r = 0; r < 3; ++r)
            for (int b = 0; b < 3; ++b) {
                float keep = t->lambda[3 * j + r];
                t->lambda[3 * j + r] = bad[b];
                missed += isfinite(ctn__chain_residual(w, s->chain, NULL)) != 0, tried++;
                t->lambda[3 * j + r] = keep;
            }
    CHECK(missed == 0, "%s: %d of %d planted non-finite impulses left the residual finite", spec, missed, tried);
    ctn_world_destroy(w);
}

/* The residual of the ball records reads every body's velocity (ctn__direct_residual_velocities: the integration in
 * place then leaves out the scan's finite test of the velocities): after a velocity step of chain:40 and chain:1500,
 * a NaN, +inf or -inf planted in any component of any body's velocity (v and w, zero lever arms included: the
 * pinned end's) makes the chain residual not finite, and it is finite without one. */
static void residual_reads_velocities(const char *spec) {
    const direct_state *s = NULL;
    ctn_world *w = stepped_chain(spec, ctn__direct_residual_velocities, "velocity", &s);
    if (!w) return;
    CHECK(isfinite(ctn__chain_residual(w, s->chain, NULL)), "%s: a finite residual without a planted velocity", spec);
    const float bad[3] = {NAN, INFINITY, -INFINITY};
    int missed = 0, tried = 0, n = w->body_count;
    for (int i = 0; i < n; i += (i < 8 || i > n - 8) ? 1 : 37)
        for (int k = 0; k < 6; ++k)
            for (int b = 0; b < 3; ++b) {
                float *f = (float *)(void *)&w->vel[i] + k; /* v xyz, w xyz (core/world.h's layout) */
                float keep = *f;
                *f = bad[b];
                missed += isfinite(ctn__chain_residual(w, s->chain, NULL)) != 0, tried++;
                *f = keep;
            }
    CHECK(missed == 0, "%s: %d of %d planted non-finite velocities left the residual finite", spec, missed, tried);
    ctn_world_destroy(w);
}

int main(void) {
    build_lanes();
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
    residual_reads_impulses("chain:40");
    residual_reads_impulses("chain:1500");
    residual_reads_velocities("chain:40");
    residual_reads_velocities("chain:1500");
    return check_report("ball_record");
}
