/* The joint-space chain path of the exact solver (host/solve/direct_chain.c):
 *   (a) random sets of paths (rigid bodies and particles; distance, ball, hinge and fixed joints; paths
 *       free, pinned at one end or at both, to the world, a static or a kinematic body; soft and rigid
 *       rows) take the chain path and match a dense float64 solve of (J M^-1 J^T + S) dl = r, with 1, 2, 3
 *       and 5 segments (the middle segments use the separator spikes), and the segment counts agree with
 *       each other to round-off;
 *   (b) one and two threads give the same bits;
 *   (c) a joint cut out of the exact solve (finite bounds) is brought back by the outer Gauss-Seidel
 *       iterations: with many of them the result converges to the dense solution;
 *   (d) a branch or a loop sends the layout to the forest path;
 *   (e), (f) the lean steps of ball-joint, hinge and mixed paths give the generic steps' bits
 *       (lean_against_generic). */
#include "catena/catena.h"
#include "ids.h"
#include "check.h"
#include "dense_ref.h"
#include "solve/direct_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;
static double urand(void) { /* xorshift64*, uniform in [0, 1) */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}
static double srand1(void) { return 2.0 * urand() - 1.0; }

static ctn_world *make_world(int iterations, int threads) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.solver = CTN_SOLVER_DIRECT;
    d.substeps = 1;
    d.iterations = iterations;
    d.threads = threads;
    ctn_world *w = NULL;
    char err[256];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        fprintf(stderr, "world: %s\n", err);
        exit(1);
    }
    return w;
}

static ctn_body_id add_body(ctn_world *w, int particle) {
    ctn_body_desc bd = ctn_body_desc_default();
    bd.particle = particle;
    bd.mass = 0.05 + 5.0 * urand() * urand();
    for (int k = 0; k < 3; ++k) {
        bd.inertia[k] = bd.mass * (0.01 + 0.2 * urand());
        bd.position[k] = 2.0 * srand1();
        bd.velocity[k] = srand1();
        bd.angular_velocity[k] = particle ? 0.0 : srand1();
    }
    double q[4] = {srand1(), srand1(), srand1(), srand1()};
    double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; ++k) bd.orientation[k] = q[k] / qn;
    ctn_body_id id;
    CHECK(ctn_body_add(w, &bd, &id) == CTN_OK, "%s", ctn_world_last_error(w));
    return id;
}

/* The joint types add_joint picks: 0 distance, ball, hinge and fixed joints; 1 ball joints only; 2 hinges (some
 * with a limit or a motor) and fixed joints between rigid bodies, and no particles (random_paths); 3 ball
 * joints, hinges (some limited or motorised) and fixed joints, particles with ball joints. */
static int joint_mix;

/* A random joint between a and b (b may be CTN_WORLD or a static/kinematic body). */
static void add_joint(ctn_world *w, ctn_body_id a, ctn_body_id b, int rigid_pair) {
    double u = urand();
    int type = joint_mix == 1 ? CTN_JOINT_BALL
               : joint_mix >= 2 ? (!rigid_pair ? CTN_JOINT_BALL
                                   : joint_mix == 2 ? (u < 0.85 ? CTN_JOINT_HINGE : CTN_JOINT_FIXED)
                                                    : (u < 0.35 ? CTN_JOINT_BALL : u < 0.85 ? CTN_JOINT_HINGE : CTN_JOINT_FIXED))
               : rigid_pair ? (u < 0.2 ? CTN_JOINT_DISTANCE : u < 0.5 ? CTN_JOINT_BALL : u < 0.8 ? CTN_JOINT_HINGE : CTN_JOINT_FIXED)
                            : (u < 0.5 ? CTN_JOINT_DISTANCE : CTN_JOINT_BALL);
    ctn_joint_desc jd = ctn_joint_desc_default((ctn_joint_type)type);
    jd.body_a = a;
    jd.body_b = b;
    double pivot[3], axis[3] = {srand1(), srand1(), srand1() + 2.0};
    for (int k = 0; k < 3; ++k) pivot[k] = 2.0 * srand1();
    if (type == CTN_JOINT_DISTANCE) {
        double pa[3];
        for (int k = 0; k < 3; ++k) pa[k] = pivot[k] + 0.3 * srand1();
        CHECK(ctn_joint_desc_set_pivot(w, &jd, pa, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
        double anchor_a[3];
        memcpy(anchor_a, jd.anchor_a, sizeof anchor_a);
        CHECK(ctn_joint_desc_set_pivot(w, &jd, pivot, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
        memcpy(jd.anchor_a, anchor_a, sizeof anchor_a);
    } else {
        CHECK(ctn_joint_desc_set_pivot(w, &jd, pivot, axis) == CTN_OK, "%s", ctn_world_last_error(w));
    }
    jd.compliance = urand() < 0.3 ? 1e-3 * urand() : 0.0;
    ctn_joint_id id;
    CHECK(ctn_joint_add(w, &jd, &id) == CTN_OK, "%s", ctn_world_last_error(w));
    if (joint_mix >= 2 && type == CTN_JOINT_HINGE) { /* a sixth row, bounded: cut from the exact solve */
        double v = urand();
        if (v < 0.2) CHECK(ctn_joint_set_limits(w, id, 1, -0.4, 0.3) == CTN_OK, "%s", ctn_world_last_error(w));
        else if (v < 0.3) CHECK(ctn_joint_set_motor(w, id, 1, 1.5, 2.0) == CTN_OK, "%s", ctn_world_last_error(w));
    }
}

static int is_particle(const ctn_world *w, ctn_body_id b) { return ctn_body_index(b) >= 0 && (w->props[ctn_body_index(b)].flags & CTN_BODY_FLAG_PARTICLE); }

/* npaths paths of 1..maxlen bodies. */
static void random_paths(ctn_world *w, int npaths, int maxlen) {
    ctn_body_desc st = ctn_body_desc_default();
    st.type = CTN_BODY_STATIC;
    ctn_body_id fixed_body, kin_body;
    ctn_body_add(w, &st, &fixed_body);
    st.type = CTN_BODY_KINEMATIC;
    st.velocity[0] = 0.3;
    st.angular_velocity[2] = 0.7;
    ctn_body_add(w, &st, &kin_body);
    for (int path = 0; path < npaths; ++path) {
        int len = 1 + (int)(urand() * maxlen);
        double pp = joint_mix == 2 ? 0.0 : 0.3; /* particles */
        ctn_body_id prev = add_body(w, urand() < pp);
        double u = urand();
        if (u < 0.8) {
            ctn_body_id anchor = u < 0.5 ? CTN_WORLD : (u < 0.65 ? fixed_body : kin_body);
            add_joint(w, prev, anchor, !is_particle(w, prev) && !is_particle(w, anchor));
        }
        for (int i = 1; i < len; ++i) {
            ctn_body_id b = add_body(w, urand() < pp);
            add_joint(w, b, prev, !is_particle(w, b) && !is_particle(w, prev));
            prev = b;
        }
        if (urand() < 0.3) add_joint(w, prev, CTN_WORLD, !is_particle(w, prev)); /* grounded at both ends */
    }
}

typedef struct chain_case {
    ctn_world *w;
    ctn_block *blocks;
    ctn_vel *v0;
    float *l0;
    dense_sys d;
    double *ref, rmax;
} chain_case;

static void case_setup(chain_case *k, ctn_world *w) {
    CHECK(ctn__topology_build(w) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_topology *t = &w->topo;
    int m = t->joint_count, nb = w->body_count;
    k->w = w;
    k->blocks = calloc((size_t)m, sizeof *k->blocks);
    ctn_step_params prm;
    memset(&prm, 0, sizeof prm);
    prm.gravity = ctn_v3_make(0.0f, -9.81f, 0.0f);
    prm.h = (float)w->desc.time_step;
    prm.warm_start = 1.0f;
    for (int s = 0; s < m; ++s) ctn_prepare_slot(s, ctn__topo_joints(t), w->pose, w->vel, w->inertia, ctn__topology_split(t), prm, k->blocks);
    for (int k6 = 0; k6 < 6 * m; ++k6) { /* six draws a joint at any row stride: the same random sequence for the later trials */
        float l = (float)(0.01 * srand1());
        if (k6 % 6 < t->stride) t->lambda[t->stride * (k6 / 6) + k6 % 6] = l;
    }
    k->v0 = malloc((size_t)nb * sizeof *k->v0);
    k->l0 = malloc((size_t)w->topo.stride * m * sizeof *k->l0);
    memcpy(k->v0, w->vel, (size_t)nb * sizeof *k->v0);
    memcpy(k->l0, t->lambda, (size_t)w->topo.stride * m * sizeof *k->l0);
    dense_build(w, k->blocks, &k->d);
    k->ref = calloc((size_t)k->d.rows, sizeof *k->ref);
    dense_solve(&k->d, k->ref);
    k->rmax = 0.0;
    for (int i = 0; i < k->d.rows; ++i) k->rmax = fmax(k->rmax, fabs(k->ref[i]));
}

static void case_free(chain_case *k) {
    dense_free(&k->d);
    free(k->ref), free(k->v0), free(k->l0), free(k->blocks);
    ctn_world_destroy(k->w);
}

/* Solves from the saved state with `segments`; dl into out (d.rows). Returns 1 if the chain path ran. */
static int case_solve(chain_case *k, int segments, double *out) {
    ctn_world *w = k->w;
    ctn_topology *t = &w->topo;
    memcpy(w->vel, k->v0, (size_t)w->body_count * sizeof *w->vel);
    memcpy(t->lambda, k->l0, (size_t)t->stride * t->joint_count * sizeof *t->lambda);
    ctn__direct_set_chain_segments(w, segments);
    ctn__solve_direct(w, k->blocks);
    for (int i = 0; i < k->d.rows; ++i)
        out[i] = (double)t->lambda[t->stride * k->d.row_slot[i] + k->d.row_k[i]] - k->l0[t->stride * k->d.row_slot[i] + k->d.row_k[i]];
    const direct_state *s = w->direct_data;
    return s && s->chain != NULL;
}

static double max_diff(const double *a, const double *b, int n) {
    double e = 0.0;
    for (int i = 0; i < n; ++i) e = fmax(e, fabs(a[i] - b[i]));
    return e;
}

/* (a) */
static void paths_against_dense(int trial) {
    ctn_world *w = make_world(1, 0);
    random_paths(w, 1 + trial % 4, 4 + 6 * trial);
    chain_case k;
    case_setup(&k, w);
    int rows = k.d.rows;
    double *one = calloc((size_t)rows, sizeof *one), *got = calloc((size_t)rows, sizeof *got);
    CHECK(case_solve(&k, 1, one), "trial %d: the chain path did not take a set of paths", trial);
    double e1 = max_diff(one, k.ref, rows);
    CHECK(e1 <= 1e-6 * k.rmax, "trial %d (%d rows), 1 segment: |dl - dense| = %.3g, |dense| = %.3g", trial, rows, e1, k.rmax);
    int counts[3] = {2, 3, 5};
    for (int q = 0; q < 3; ++q) {
        case_solve(&k, counts[q], got);
        double e = max_diff(got, k.ref, rows), es = max_diff(got, one, rows);
        CHECK(e <= 1e-6 * k.rmax, "trial %d, %d segments: |dl - dense| = %.3g, |dense| = %.3g", trial, counts[q], e, k.rmax);
        CHECK(es <= 1e-9 * k.rmax, "trial %d, %d segments vs 1: %.3g (|dl| %.3g)", trial, counts[q], es, k.rmax);
    }
    free(one), free(got);
    case_free(&k);
}

/* (b) 1 and 2 threads, 3 segments, bitwise; the state after a few full steps too. */
static void threads_bitwise(void) {
    ctn_body_state *st[2];
    int n = 0;
    for (int th = 0; th < 2; ++th) {
        ctn_world *w = make_world(2, th + 1);
        ctn_chain_desc cd = ctn_chain_desc_default(3000);
        CHECK(ctn_scene_chain(w, &cd, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn__direct_set_chain_segments(w, 3);
        for (int i = 0; i < 5; ++i) CHECK(ctn_world_step(w) == CTN_OK, "%s", ctn_world_last_error(w));
        n = w->body_count;
        st[th] = calloc((size_t)n, sizeof *st[th]);
        for (int b = 0; b < n; ++b) ctn_body_get_state(w, HBODY(w, b), &st[th][b]);
        const direct_state *s = w->direct_data;
        CHECK(s && s->chain, "chain:3000 did not take the chain path");
        ctn_world_destroy(w);
    }
    CHECK(memcmp(st[0], st[1], (size_t)n * sizeof *st[0]) == 0, "chain path: 1 and 2 threads differ");
    free(st[0]), free(st[1]);
}

/* (c) a joint with finite (but never reached) bounds leaves the exact solve; outer GS brings it back. */
static void cut_joint_converges(void) {
    ctn_world *w = make_world(400, 0);
    random_paths(w, 2, 12);
    chain_case k;
    case_setup(&k, w);
    int cut = w->topo.joint_count / 2;
    for (int r = 0; r < ctn_block_rows(&k.blocks[cut]); ++r) k.blocks[cut].lo[r] = -1e20f, k.blocks[cut].hi[r] = 1e20f;
    double *got = calloc((size_t)k.d.rows, sizeof *got);
    CHECK(case_solve(&k, 2, got), "the cut case did not take the chain path");
    double e = max_diff(got, k.ref, k.d.rows);
    printf("chain with one cut joint, 400 outer iterations: |dl - dense| = %.3g of %.3g\n", e, k.rmax);
    CHECK(e <= 1e-3 * k.rmax, "cut joint: |dl - dense| = %.3g, |dense| = %.3g", e, k.rmax);
    free(got);
    case_free(&k);
}

/* (d) a branch (a body with three joints) and a ring (every body in two joints, no end) go to the forest
 * path. */
static void forest_layouts(void) {
    for (int loop = 0; loop < 2; ++loop) {
        ctn_world *w = make_world(1, 0);
        ctn_body_id b[4];
        for (int i = 0; i < 4; ++i) b[i] = add_body(w, 0);
        if (!loop) add_joint(w, b[0], CTN_WORLD, 1);
        add_joint(w, b[1], b[0], 1);
        add_joint(w, b[2], b[1], 1);
        if (loop) add_joint(w, b[2], b[0], 1);
        else add_joint(w, b[3], b[1], 1);
        chain_case k;
        case_setup(&k, w);
        double *got = calloc((size_t)k.d.rows, sizeof *got);
        CHECK(!case_solve(&k, 0, got), "%s: took the chain path", loop ? "loop" : "branch");
        free(got);
        case_free(&k);
    }
}

/* One case of (e) and (f): random paths of the joints joint_mix selects, with one row of the first (where 0), a
 * middle (1) or the last (2) joint slot bounded (cut from the exact solve) or none (-1), solved on the chain path
 * in `segments` segments with its lean steps, then again from the same velocities and impulses with the generic
 * steps on the same layout (ctn__chain_set_generic): the factor K, the couplings C, the solution y, the impulses
 * and the velocities must be equal bit for bit. dense: also the lean solve against the dense float64 one (where
 * no row is cut). *lean counts the hinge-like joints (three point rows and two or more angular ones). Returns 1
 * if the case was compared, 0 for a path set without a joint. */
static int lean_against_generic(int trial, int segments, int where, int dense, int *lean) {
    ctn_world *w = make_world(3, 0);
    random_paths(w, 1 + trial % 3, 6 + 5 * trial);
    chain_case k;
    case_setup(&k, w);
    int m = w->topo.joint_count, nb = w->body_count, mix = joint_mix;
    if (m == 0) { /* a path of one free body and no joint: nothing to compare */
        case_free(&k);
        return 0;
    }
    if (where >= 0) {
        int slot = where == 0 ? 0 : where == 1 ? m / 2 : m - 1;
        k.blocks[slot].lo[1] = -1e20f, k.blocks[slot].hi[1] = 1e20f;
    }
    for (int s = 0; s < m; ++s) *lean += k.blocks[s].n_lin == 3 && k.blocks[s].n_ang >= 2;
    double *got = calloc((size_t)k.d.rows, sizeof *got);
    if (!case_solve(&k, segments, got)) {
        CHECK(0, "mix %d, trial %d: the paths did not take the chain path", mix, trial);
        free(got);
        case_free(&k);
        return 0;
    }
    float *lam = malloc((size_t)w->topo.stride * m * sizeof *lam);
    ctn_vel *vel = malloc((size_t)nb * sizeof *vel);
    memcpy(lam, w->topo.lambda, (size_t)w->topo.stride * m * sizeof *lam);
    memcpy(vel, w->vel, (size_t)nb * sizeof *vel);
    const direct_state *s = w->direct_data;
    const double *K, *C, *y;
    size_t nk, nc, ny;
    ctn__chain_arrays(s->chain, &K, &nk, &C, &nc, &y, &ny);
    double *fac = malloc((nk + nc + ny + 1) * sizeof *fac); /* the lean steps' factor and last solution */
    memcpy(fac, K, nk * sizeof *K), memcpy(fac + nk, C, nc * sizeof *C), memcpy(fac + nk + nc, y, ny * sizeof *y);
    ctn__chain_set_generic(s->chain, 1); /* the same layout, the generic steps */
    memcpy(w->vel, k.v0, (size_t)nb * sizeof *w->vel);
    memcpy(w->topo.lambda, k.l0, (size_t)w->topo.stride * m * sizeof *w->topo.lambda);
    ctn__solve_direct(w, k.blocks);
    CHECK(memcmp(fac, K, nk * sizeof *K) == 0, "mix %d, trial %d, %d segments, cut %d: the factor differs", mix, trial, segments, where);
    CHECK(memcmp(fac + nk, C, nc * sizeof *C) == 0, "mix %d, trial %d, %d segments, cut %d: the couplings differ", mix, trial, segments,
          where);
    CHECK(memcmp(fac + nk + nc, y, ny * sizeof *y) == 0, "mix %d, trial %d, %d segments, cut %d: the solution differs", mix, trial, segments,
          where);
    CHECK(memcmp(lam, w->topo.lambda, (size_t)w->topo.stride * m * sizeof *lam) == 0, "mix %d, trial %d, %d segments, cut %d: impulses differ", mix, trial,
          segments, where);
    CHECK(memcmp(vel, w->vel, (size_t)nb * sizeof *vel) == 0, "mix %d, trial %d, %d segments, cut %d: velocities differ", mix, trial,
          segments, where);
    if (dense && where < 0) {
        double e = max_diff(got, k.ref, k.d.rows);
        CHECK(e <= 1e-6 * k.rmax, "mix %d, trial %d, %d segments: |dl - dense| = %.3g, |dense| = %.3g", mix, trial, segments, e, k.rmax);
    }
    free(fac), free(lam), free(vel), free(got);
    case_free(&k);
    return 1;
}

/* (e) Paths of ball joints: the chain path's own factor walk for them (host/solve/direct_ball.c) against the
 * generic node steps, bit for bit, on 1 and 2 segments, with no joint cut and with one row of the first, a
 * middle or the last joint slot bounded (cut from the exact solve: the walk hands the rest of its segment to the
 * generic steps there); uncut, against the dense solve too. */
static void ball_walk_bitwise(void) {
    int runs = 0, lean = 0;
    joint_mix = 1;
    for (int trial = 0; trial < 6; ++trial)
        for (int segments = 1; segments <= 2; ++segments)
            for (int where = -1; where < 3; ++where) runs += lean_against_generic(trial, segments, where, 1, &lean);
    CHECK(runs == 6 * 2 * 4, "%d of %d ball path solves compared", runs, 6 * 2 * 4);
    printf("ball paths: lean and generic factor walks equal bit for bit in %d solves\n", runs);
    joint_mix = 0;
}

/* (f) Paths of hinges (some limited or motorised: a sixth row, cut) and fixed joints, and mixed paths of ball
 * joints, hinges and fixed joints with particles: the lean hinge assembly and the 5-row node steps
 * (host/solve/direct_hinge.c) against the generic steps, bit for bit, on 1, 2 and 3 segments (3: the middle
 * segment's spikes), with no further row cut and with one row of the first, a middle or the last joint slot
 * bounded. */
static void hinge_walk_bitwise(void) {
    int runs = 0, lean = 0;
    for (joint_mix = 2; joint_mix <= 3; ++joint_mix)
        for (int trial = 0; trial < 5; ++trial)
            for (int segments = 1; segments <= 3; ++segments)
                for (int where = -1; where < 3; ++where) runs += lean_against_generic(trial, segments, where, 0, &lean);
    CHECK(lean > 100 && runs > 100, "only %d hinge-like joints in the paths, %d solves", lean, runs);
    printf("hinge and mixed paths (%d hinge-like joints): lean and generic steps equal bit for bit in %d solves\n", lean, runs);
    joint_mix = 0;
}

int main(void) {
    for (int trial = 0; trial < 10; ++trial) paths_against_dense(trial);
    threads_bitwise();
    cut_joint_converges();
    forest_layouts();
    ball_walk_bitwise();
    hinge_walk_bitwise();
    return check_report("direct_chain");
}
