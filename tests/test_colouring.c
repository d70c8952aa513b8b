/* Colouring (host/core/colouring.c, host/core/topology.c), checked white-box through w->topo:
 * - validity: no two joints of a colour share a dynamic body; static, kinematic and world bodies are
 *   ignored (joints sharing only those may share a colour);
 * - layout: colour c is the contiguous slot range [colour_offsets[c], colour_offsets[c+1]), the overflow
 *   group follows, every live joint has exactly one slot and ctn__joint_layout_slot / order agree;
 * - counts: a chain uses exactly 2 colours, the 4-neighbour grid of ctn_scene_grid 4 (what the greedy
 *   first-fit gives in id order: rows and columns each alternate, and the pin joints to the world add no
 *   conflict; a 2x2 grid needs only 3), random graphs at most 2 * max degree - 1;
 * - a star (one body with 100 joints) with max_colours = 8 puts 92 joints in the overflow group, and the
 *   step still solves it (gaps small, nothing diverges). Measured: with the default 4 iterations and
 *   warm start 0.5 this star DIVERGES in ~20 steps (gap 50 m, the divergence guard fires) with or
 *   without overflow; with warm start 0 it stays bounded (gap ~1.6e-2 m), and with 50 GS iterations or
 *   CG the gap is ~8e-4 m. Unconverged GS plus warm start is unstable on strongly coupled bodies (see
 *   also test_chain.c); the test uses 50 iterations so it checks the overflow path, not that issue;
 * - recolouring only when the topology changes;
 * - the time to colour 1 M joints (printed, not asserted). */
#include "catena/catena.h"
#include "ids.h"
#include "check.h"
#include "core/world.h"

#include <stdlib.h>
#include <string.h>

static unsigned rng_state = 99u;
static unsigned urand_u(void) {
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

static ctn_world *new_world_its(int max_colours, int iterations) {
    ctn_world_desc d = ctn_world_desc_default();
    d.iterations = iterations;
    d.backend = CTN_BACKEND_CPU;
    d.max_colours = max_colours;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    return w;
}

static ctn_world *new_world(int max_colours) { return new_world_its(max_colours, 4); }

/* Validates w->topo; returns the colour count. */
static int check_topology(ctn_world *w, const char *what) {
    if (w->topology_dirty) CHECK(ctn__topology_build(w) == CTN_OK, "%s: %s", what, ctn_world_last_error(w));
    const ctn_topology *t = &w->topo;
    int m = t->joint_count, nc = t->colour_count;
    CHECK(!w->joint_slot_held, "%s: the build left the slot map held (the table is in solver order)", what);
    CHECK(t->colour_offsets[0] == 0, "%s: first colour starts at %d", what, t->colour_offsets[0]);
    CHECK(t->colour_offsets[nc + 1] == m, "%s: ranges end at %d, %d joints", what, t->colour_offsets[nc + 1], m);
    int largest = 0;
    for (int c = 0; c <= nc; ++c) {
        CHECK(t->colour_offsets[c] <= t->colour_offsets[c + 1], "%s: colour %d range decreasing", what, c);
        if (c < nc) {
            int size = t->colour_offsets[c + 1] - t->colour_offsets[c];
            CHECK(size > 0, "%s: colour %d is empty", what, c);
            if (size > largest) largest = size;
        }
    }
    CHECK(largest == t->largest_colour, "%s: largest colour %d, reported %d", what, largest, t->largest_colour);
    /* every live row joint exactly once, slot maps consistent */
    int live = 0;
    for (int j = 0; j < w->joint_count; ++j) {
        if (!w->joint_alive[j] || ctn__jcore(w, j)->type == CTN_JT_SPRING) continue;
        live++;
        int s = ctn__joint_layout_slot(w, j);
        CHECK(s >= 0 && s < m && t->order[s] == j, "%s: joint %d slot %d", what, j, s);
        if (s >= 0 && s < m) CHECK(memcmp(&t->defs[s], ctn__jcore(w, j), sizeof t->defs[s]) == 0, "%s: defs[%d] is not joint %d", what, s, j);
    }
    CHECK(live == m, "%s: %d live row joints, %d slots", what, live, m);
    /* the joint table is stored in solver order: the layout's definitions are its first m entries, and
     * joint_pos / joint_at are inverse permutations of the slots */
    if (!w->attach) CHECK(t->defs == w->joint_core || m == 0, "%s: the layout's definitions are a second array", what);
    for (int p = 0; p < w->joint_count; ++p) {
        int j = w->joint_at[p];
        CHECK(j >= 0 && j < w->joint_count && w->joint_pos[j] == p, "%s: position %d holds slot %d (stored at %d)", what, p, j,
              j >= 0 && j < w->joint_count ? w->joint_pos[j] : -1);
        if (p < m) CHECK(t->order[p] == j, "%s: position %d holds slot %d, solver slot %d is joint %d", what, p, j, p, t->order[p]);
    }
    /* no dynamic body twice in a colour (stamp array: last colour that touched each body) */
    int *stamp = malloc(((size_t)w->body_count + 1) * sizeof *stamp);
    for (int i = 0; i < w->body_count; ++i) stamp[i] = -1;
    int bad = 0;
    for (int c = 0; c < nc; ++c) {
        for (int s = t->colour_offsets[c]; s < t->colour_offsets[c + 1]; ++s) {
            int bodies[2] = {t->defs[s].a, t->defs[s].b};
            for (int k = 0; k < 2; ++k) {
                int b = bodies[k];
                if (b < 0 || !(w->props[b].flags & CTN_BODY_FLAG_DYNAMIC)) continue;
                if (stamp[b] == c) bad++;
                stamp[b] = c;
            }
        }
    }
    free(stamp);
    CHECK(bad == 0, "%s: %d conflicts (a dynamic body twice in one colour)", what, bad);
    return nc;
}

static ctn_body_id add_body(ctn_world *w, ctn_body_type type, double x, double y) {
    ctn_body_desc b = ctn_body_desc_default();
    b.type = type;
    b.position[0] = x, b.position[1] = y;
    ctn_body_id id = CTN_NULL_BODY;
    CHECK(ctn_body_add(w, &b, &id) == CTN_OK, "%s", ctn_world_last_error(w));
    return id;
}

static void add_ball(ctn_world *w, ctn_body_id a, ctn_body_id b) {
    ctn_joint_desc j = ctn_joint_desc_default(CTN_JOINT_BALL);
    j.body_a = a;
    j.body_b = b;
    CHECK(ctn_joint_add(w, &j, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
}

int main(void) {
    /* ---- chains: exactly 2 colours ---- */
    int sizes[] = {2, 3, 100, 5000};
    for (int i = 0; i < 4; ++i) {
        ctn_world *w = new_world(32);
        ctn_chain_desc c = ctn_chain_desc_default(sizes[i]);
        CHECK(ctn_scene_chain(w, &c, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
        int nc = check_topology(w, "chain");
        CHECK(nc == 2, "chain of %d links: %d colours", sizes[i], nc);
        CHECK(w->topo.largest_colour == (sizes[i] + 1) / 2, "chain of %d: largest colour %d", sizes[i], w->topo.largest_colour);
        ctn_world_destroy(w);
    }
    /* particle rope too */
    {
        ctn_world *w = new_world(32);
        CHECK(ctn_scene_from_spec(w, "rope:777") == CTN_OK, "%s", ctn_world_last_error(w));
        CHECK(check_topology(w, "rope") == 2, "rope colours %d", w->topo.colour_count);
        ctn_world_destroy(w);
    }

    /* ---- grids: the greedy gives 4 on the 4-neighbour grid ---- */
    int gx[] = {2, 10, 64, 7}, gy[] = {2, 10, 64, 31};
    for (int i = 0; i < 4; ++i) {
        ctn_world *w = new_world(32);
        CHECK(ctn_scene_grid(w, gx[i], gy[i], 0.1) == CTN_OK, "%s", ctn_world_last_error(w));
        int nc = check_topology(w, "grid");
        printf("grid %dx%d: %d joints, %d colours, largest %d\n", gx[i], gy[i], w->topo.joint_count, nc, w->topo.largest_colour);
        CHECK(nc <= 4, "grid %dx%d: %d colours", gx[i], gy[i], nc);
        if (gx[i] >= 3 && gy[i] >= 3) CHECK(nc == 4, "grid %dx%d: %d colours (4 expected)", gx[i], gy[i], nc);
        ctn_world_destroy(w);
    }

    /* ---- random graphs with some static and kinematic bodies ---- */
    for (int trial = 0; trial < 5; ++trial) {
        ctn_world *w = new_world(CTN_MAX_COLOURS);
        int nb = 300, nj = 900;
        ctn_body_id ids[300];
        for (int i = 0; i < nb; ++i) {
            ctn_body_type type = i % 17 == 0 ? CTN_BODY_STATIC : i % 23 == 0 ? CTN_BODY_KINEMATIC : CTN_BODY_DYNAMIC;
            ids[i] = add_body(w, type, (double)i, 0.0);
        }
        int degree[300] = {0};
        for (int j = 0; j < nj; ++j) {
            int a = (int)(urand_u() % nb), b = (int)(urand_u() % nb);
            if (a == b) continue;
            /* a joint between two non-dynamic bodies is allowed but inert */
            add_ball(w, ids[a], urand_u() % 10 == 0 ? CTN_WORLD : ids[b]);
            degree[a]++, degree[b]++;
        }
        int dmax = 0;
        for (int i = 0; i < nb; ++i)
            if ((w->props[ctn_body_index(ids[i])].flags & CTN_BODY_FLAG_DYNAMIC) && degree[i] > dmax) dmax = degree[i];
        int nc = check_topology(w, "random graph");
        CHECK(nc <= 2 * dmax - 1, "random graph: %d colours > 2 dmax - 1 = %d", nc, 2 * dmax - 1);
        CHECK(w->topo.colour_offsets[nc + 1] - w->topo.colour_offsets[nc] == 0, "random graph: unexpected overflow");
        for (int s = 0; s < 10; ++s) CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_world_destroy(w);
    }

    /* ---- joints sharing only a static / kinematic body or the world share a colour ---- */
    {
        ctn_world *w = new_world(32);
        ctn_body_id s = add_body(w, CTN_BODY_STATIC, 0, 0), k = add_body(w, CTN_BODY_KINEMATIC, 0, 5);
        for (int i = 0; i < 50; ++i) {
            ctn_body_id d = add_body(w, CTN_BODY_DYNAMIC, 1.0 + i, 0.0);
            add_ball(w, d, s);
            add_ball(w, ctn_body_index(d) == 0 ? s : k, d);
            add_ball(w, d, CTN_WORLD);
        }
        int nc = check_topology(w, "static hub");
        CHECK(nc == 3, "three joints per dynamic body, hubs ignored: %d colours", nc);
        ctn_world_destroy(w);
    }

    /* ---- star: one dynamic body with 100 joints, small colour budget -> overflow ---- */
    for (int budget = 8; budget <= CTN_MAX_COLOURS; budget += CTN_MAX_COLOURS - 8) {
        ctn_world *w = new_world_its(budget, 50);
        ctn_body_id hub = add_body(w, CTN_BODY_DYNAMIC, 0, 0);
        for (int i = 0; i < 100; ++i) {
            double a = 2.0 * 3.14159265358979 * i / 100.0;
            ctn_body_id leaf = add_body(w, CTN_BODY_DYNAMIC, cos(a), sin(a));
            ctn_joint_desc j = ctn_joint_desc_default(CTN_JOINT_DISTANCE);
            j.body_a = leaf;
            j.body_b = hub;
            CHECK(ctn_joint_add(w, &j, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
        }
        ctn_joint_desc pin = ctn_joint_desc_default(CTN_JOINT_BALL);
        pin.body_a = hub;
        CHECK(ctn_joint_add(w, &pin, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
        int nc = check_topology(w, "star");
        int overflow = w->topo.colour_offsets[nc + 1] - w->topo.colour_offsets[nc];
        printf("star of 101 joints on one body, max_colours %d: %d colours, overflow %d\n", budget, nc, overflow);
        CHECK(nc == budget, "star: %d colours with a budget of %d", nc, budget);
        CHECK(overflow == 101 - budget, "star: overflow %d", overflow);
        /* the solve still works: it spins without falling apart */
        ctn_body_state st;
        ctn_body_get_state(w, HBODY(w, 1), &st);
        st.velocity[2] = 1.0;
        ctn_body_set_state(w, HBODY(w, 1), &st);
        for (int s = 0; s < 60; ++s) CHECK(ctn_world_step(w) == CTN_OK, "star step: %s", ctn_world_last_error(w));
        ctn_step_stats stats;
        ctn_world_get_stats(w, &stats);
        CHECK(stats.overflow == overflow && stats.colours == nc, "stats: overflow %d colours %d", stats.overflow, stats.colours);
        CHECK(stats.max_gap < 5e-3, "star with overflow: gap %.3g m after 1 s", stats.max_gap);
        printf("  after 1 s: max gap %.3g m\n", stats.max_gap);
        ctn_world_destroy(w);
    }

    /* ---- recolour only when the topology changes; warm-start impulses survive a rebuild ---- */
    {
        ctn_world *w = new_world(32);
        ctn_chain_desc c = ctn_chain_desc_default(10);
        ctn_body_id first;
        CHECK(ctn_scene_chain(w, &c, &first) == CTN_OK, "%s", ctn_world_last_error(w));
        CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        unsigned v0 = w->topology_version;
        for (int s = 0; s < 5; ++s) ctn_world_step(w);
        CHECK(w->topology_version == v0, "topology rebuilt without a change (%u -> %u)", v0, w->topology_version);
        ctn_step_stats st;
        ctn_world_get_stats(w, &st);
        CHECK(st.ms_colour == 0.0, "colour time reported without recolouring");
        double before[6], after[6];
        ctn_joint_get_impulse(w, HJOINT(w, 3), before, NULL);
        ctn_body_id extra = add_body(w, CTN_BODY_DYNAMIC, 5, 5);
        add_ball(w, extra, ctn_body_id_offset(first, 9));
        CHECK(w->topology_dirty, "adding a joint must mark the topology dirty");
        CHECK(ctn__topology_build(w) == CTN_OK, "%s", ctn_world_last_error(w));
        CHECK(w->topology_version == v0 + 1, "one rebuild expected");
        ctn_joint_get_impulse(w, HJOINT(w, 3), after, NULL);
        CHECK(memcmp(before, after, sizeof before) == 0, "warm-start impulses lost in the rebuild");
        check_topology(w, "after adding a joint");
        CHECK(ctn_joint_remove(w, HJOINT(w, 5)) == CTN_OK, "%s", ctn_world_last_error(w));
        check_topology(w, "after removing a joint");
        ctn_world_destroy(w);
    }

    /* ---- the definitions follow their slots through the permutations of the table: every rebuild (joints
     * removed, added, slots reused) keeps each live slot's definition, as recorded when it was added ---- */
    {
        ctn_world *w = new_world(8);
        ctn_chain_desc c = ctn_chain_desc_default(40);
        ctn_body_id first;
        CHECK(ctn_scene_chain(w, &c, &first) == CTN_OK, "%s", ctn_world_last_error(w));
        enum { CAP = 128 };
        ctn_joint_def want[CAP];
        for (int j = 0; j < w->joint_count && j < CAP; ++j) want[j] = ctn__jdef_get(w, j);
        for (int round = 0; round < 6; ++round) {
            CHECK(ctn__topology_build(w) == CTN_OK, "%s", ctn_world_last_error(w));
            check_topology(w, "permuted table");
            for (int j = 0; j < w->joint_count && j < CAP; ++j)
                if (w->joint_alive[j]) CHECK(memcmp(&(ctn_joint_def[1]){ctn__jdef_get(w, j)}[0], &want[j], sizeof want[j]) == 0, "round %d: slot %d lost its definition", round, j);
            /* remove two joints, then add three (two reuse the freed slots, one appends) */
            for (int pick = 0; pick < 2; ++pick) {
                int j = pick ? 30 - 4 * round : 3 + 5 * round;
                while (!w->joint_alive[j]) j++;
                ctn_joint_id h;
                CHECK(ctn_world_joint_at(w, j, &h) == CTN_OK && ctn_joint_remove(w, h) == CTN_OK, "%s", ctn_world_last_error(w));
            }
            for (int k = 0; k < 3; ++k) {
                ctn_body_id extra = add_body(w, CTN_BODY_DYNAMIC, 1.0 + round, 2.0 + k);
                int before = w->joint_count, slot = w->joint_free_count > 0 ? w->joint_free[w->joint_free_count - 1] : before;
                add_ball(w, extra, ctn_body_id_offset(first, 7 * k + round));
                CHECK(slot < CAP, "slot %d beyond the record", slot);
                if (slot < CAP) want[slot] = ctn__jdef_get(w, slot);
            }
        }
        ctn_world_destroy(w);
    }

    /* ---- time: colouring 1 M joints (a chain and a random graph), printed only ---- */
    {
        int m = 1000000, nb = m + 1;
        int *a = malloc((size_t)m * sizeof *a), *b = malloc((size_t)m * sizeof *b), *colour = malloc((size_t)m * sizeof *colour);
        unsigned char *dyn = malloc((size_t)nb);
        memset(dyn, 1, (size_t)nb);
        for (int j = 0; j < m; ++j) a[j] = j + 1, b[j] = j;
        double t0 = ctn__now_ms();
        int nc = ctn__colour_joints(m, a, b, nb, dyn, 32, colour);
        double t1 = ctn__now_ms();
        printf("colouring 1M chain joints: %.2f ms, %d colours\n", t1 - t0, nc);
        CHECK(nc == 2, "1M chain: %d colours", nc);
        for (int j = 0; j < m; ++j) a[j] = (int)(urand_u() % (unsigned)nb), b[j] = (int)(urand_u() % (unsigned)nb);
        t0 = ctn__now_ms();
        nc = ctn__colour_joints(m, a, b, nb, dyn, 32, colour);
        t1 = ctn__now_ms();
        printf("colouring 1M random joints on 1M bodies: %.2f ms, %d colours\n", t1 - t0, nc);
        int bad = 0;
        for (int j = 0; j < m; ++j) bad += colour[j] < 0 || colour[j] > 32;
        CHECK(bad == 0, "colour out of range");
        free(a), free(b), free(colour), free(dyn);

        ctn_world *w = new_world(32);
        ctn_chain_desc c = ctn_chain_desc_default(m);
        c.particles = 1;
        CHECK(ctn_scene_chain(w, &c, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
        t0 = ctn__now_ms();
        CHECK(ctn__topology_build(w) == CTN_OK, "%s", ctn_world_last_error(w));
        t1 = ctn__now_ms();
        printf("full topology build (colour + sort + CSR) of a 1M-joint rope: %.2f ms\n", t1 - t0);
        ctn_world_destroy(w);
    }
    return check_report("colouring");
}
