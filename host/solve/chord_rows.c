/* The chord rows of the exact solver's projection on the CPU (CTN_STAGE_CHORD_ROWS; ctn_chord_slot_measure and
 * ctn_chord_ball in kernels/ctn_solver.h): every joint's C(x) at the current poses into its kept block's targets
 * -C/h, with the largest |C| of a row (the projection's decision, host/solve/pipeline.c project_decide) and
 * the largest joint gap and angle (the step's measurement when the projection stops on these rows).
 *
 * A world of ball joints alone (a chain, a rope, a tree of ball joints: the common case of a projection that
 * takes chord steps) runs a loop without the per-joint type test and without a square root per joint: the
 * largest gap is sqrt(max_s |C_s|^2), which is max_s sqrt(|C_s|^2) bit for bit, as an IEEE 754 square root is
 * correctly rounded and so non-decreasing (IEEE 754-2008, section 5.4.1); a ball joint's angle is 0. A NaN
 * in some |C_s| makes its |C_s|^2 NaN (and only a NaN does: the sum of squares of finite or infinite values
 * is never NaN), and the general loop's rule, the largest error infinite whenever a row's error is NaN,
 * follows from that one test per joint (with SSE2 from the running sum of the |C_k|, NaN exactly when one of
 * them is: one add per joint and one test per loop). Both loops take C from the same function of the shared header, so
 * the targets have the same bits, and tests/test_chord_rows.c checks that the two loops agree bit for bit
 * (targets, largest error, gap and angle) on random poses, world joints and non-finite positions. */
#include "solve/solve.h"
#include "ctn_solver.h"

#include "solve/lanes.h"

#include <math.h>

int ctn__chord_all_ball(const ctn_world *w, ctn_compact_cache *cache) {
    const ctn_topology *t = &w->topo;
    if (!cache->valid || cache->version != w->topology_version) {
        int all = t->joint_count > 0;
        for (int s = 0; s < t->joint_count && all; ++s) all = t->defs[s].type == CTN_JT_BALL;
        cache->holds = all, cache->valid = 1, cache->version = w->topology_version;
    }
    return cache->holds;
}


/* Ball joints alone: max |C| over the rows and max |C|^2 over the joints, a NaN noted once per loop. With
 * SSE2 (every x86-64) the three components go through the arithmetic of ctn_chord_ball together, lane by
 * lane the same operations in the same order (IEEE 754 operations on each lane; the build never contracts to
 * fused multiply-adds, -ffp-contract=off), the fourth lane (the field after a pose's vector, or an anchor's neighbour) masked out.
 * A NaN among the |C_k| is found from their running sum (one add per joint): the values are >= 0 or +inf, whose
 * sums are never NaN, and a NaN term leaves the sum NaN from there on. */
/* The targets of joint s go to bias[0..2] at (char *)bias0 + s * stride: a ctn_block's bias or a ctn_ball_row's. */
#define CHORD_BIAS(s) ((float *)(void *)((char *)bias0 + (size_t)(s) * stride))
static void chord_rows_ball(const ctn_joint_core *defs, int m, const ctn_pose *pose, float h, float *bias0, size_t stride, int threads,
                            ctn_chord_rows_result *r) {
    float worst = 0.0f, top = 0.0f;
    int bad = 0;
#ifdef _OPENMP
#pragma omp parallel if (threads > 1) num_threads(threads) reduction(max : worst, top) reduction(| : bad)
#endif
    {
#if defined(__SSE2__)
        const __m128 abs3 = _mm_castsi128_ps(_mm_set_epi32(0, 0x7fffffff, 0x7fffffff, 0x7fffffff));
        const __m128 sign = _mm_set1_ps(-0.0f), vh = _mm_set1_ps(h);
        __m128 vworst = _mm_setzero_ps(), vtop = _mm_setzero_ps(), vsum = _mm_setzero_ps();
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
        for (int s = 0; s < m; ++s) {
            const ctn_joint_core *d = &defs[s];
            const ctn_pose *pa = body_pose(pose, d->a), *pb = body_pose(pose, d->b);
            __m128 ra = rotate4(_mm_loadu_ps(&pa->q.w), _mm_loadu_ps(&d->anchor_a.x));
            __m128 rb = rotate4(_mm_loadu_ps(&pb->q.w), _mm_loadu_ps(&d->anchor_b.x));
            __m128 c = point_sep4(pa, pb, ra, rb);
            __m128 nb = _mm_div_ps(_mm_xor_ps(c, sign), vh); /* -C/h */
            float *bias = CHORD_BIAS(s);
            _mm_storel_pi((__m64 *)(void *)bias, nb);
            _mm_store_ss(&bias[2], _mm_movehl_ps(nb, nb));
            __m128 a = _mm_and_ps(c, abs3); /* |C|, lane 3 zero */
            vworst = _mm_max_ps(vworst, a);
            vsum = _mm_add_ps(vsum, a); /* NaN once a |C_k| is: a sum of values >= 0 (+inf included) is never NaN otherwise */
            __m128 sq = _mm_mul_ps(c, c); /* (x^2 + y^2) + z^2: ctn_chord_slot_measure's sum (0 + x^2 is x^2, never -0) */
            __m128 l2 = _mm_add_ss(_mm_add_ss(sq, _mm_shuffle_ps(sq, sq, 1)), _mm_movehl_ps(sq, sq));
            vtop = _mm_max_ss(l2, vtop); /* l2 > top ? l2 : top: a NaN leaves top (and is in vbad) */
        }
        vworst = _mm_max_ps(vworst, _mm_movehl_ps(vworst, vworst));
        vworst = _mm_max_ss(vworst, _mm_shuffle_ps(vworst, vworst, 1));
        float tw = _mm_cvtss_f32(vworst), tt = _mm_cvtss_f32(vtop);
        worst = tw > worst ? tw : worst;
        top = tt > top ? tt : top;
        bad |= _mm_movemask_ps(_mm_cmpunord_ps(vsum, vsum)) != 0;
#else
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
        for (int s = 0; s < m; ++s) {
            ctn_v3 c = ctn_chord_ball_sep(s, ctn_joints_of(defs, NULL), pose); /* ctn_chord_ball's C and targets (compact records alone) */
            float *bias = CHORD_BIAS(s);
            bias[0] = -c.x / h, bias[1] = -c.y / h, bias[2] = -c.z / h;
            float x = CTN_FABS(c.x), y = CTN_FABS(c.y), z = CTN_FABS(c.z);
            float l2 = (c.x * c.x + c.y * c.y) + c.z * c.z; /* ctn_chord_slot_measure's sum: 0 + x^2 is x^2, never -0 */
            worst = x > worst ? x : worst;
            worst = y > worst ? y : worst;
            worst = z > worst ? z : worst;
            top = l2 > top ? l2 : top;
            bad |= l2 != l2;
        }
#endif
    }
    (void)threads;
    r->worst = bad ? INFINITY : worst; /* a non-finite error fails the chord step's test */
    r->gap = sqrtf(top);
    r->angle = 0.0;
}

/* ctn_chord_slot_measure of a hinge without a limit, a motor or an implicit spring (five bilateral rows: the point
 * rows and the two rows across the axis, ctn_rows_hinge), with the rows' errors formed as ctn_joint_rows forms
 * them, by the same functions of the shared headers, but without building the joint's block: the anchor
 * separation sep = C of the point rows (ctn_point_sep), a1 = R_a axis_a, a2 = R_b axis_b, the basis t1, t2 across
 * a1 (ctn_basis) and C = t . (a2 x a1) of the angular rows (ctn_rows_parallel); then the measure's sums
 * (bilateral rows: no clamping), targets -C/h and largest error, in its order. The same bits; the joint's
 * defaults are read in place (no copy of the joint or of a 288-byte block per joint and chord step). */
#if defined(__SSE2__)
/* With SSE2 the lever arms, the rotated axes, the separation, a2 x a1, the squares of the point rows and their
 * targets go through lanes (host/solve/lanes.h), lane by lane the scalar operations in their order; the sums keep
 * the scalar order ((0 + x^2) + y^2) + z^2, whose leading 0 + x^2 is x^2 bit for bit (x^2 is never -0, and a NaN
 * stays the NaN it is), the basis and the dot products the shared functions. hinge_c: the point rows' C (lanes
 * 0..2 of the return) and the angular rows' g3, g4; *l2: sum of the point rows' squares in lane 0. */
static inline __m128 hinge_c(const ctn_joint_core *j, const ctn_joint_extra *x, const ctn_pose *pose, float *g3, float *g4, __m128 *l2) {
    const ctn_pose *pa = body_pose(pose, j->a), *pb = body_pose(pose, j->b);
    __m128 qa = _mm_loadu_ps(&pa->q.w), qb = _mm_loadu_ps(&pb->q.w);
    __m128 ra = rotate4(qa, _mm_loadu_ps(&j->anchor_a.x)), rb = rotate4(qb, _mm_loadu_ps(&j->anchor_b.x));
    __m128 a1 = rotate4(qa, _mm_loadu_ps(&x->axis_a.x)), a2 = rotate4(qb, _mm_loadu_ps(&x->axis_b.x));
    __m128 c = point_sep4(pa, pb, ra, rb);
    ctn_v3 t1, t2;
    ctn_basis(lanes_v3(a1), &t1, &t2);
    ctn_v3 ax = lanes_v3(cross4v(a2, a1));
    *g3 = ctn_dot(t1, ax), *g4 = ctn_dot(t2, ax);
    __m128 sq = _mm_mul_ps(c, c);
    *l2 = _mm_add_ss(_mm_add_ss(sq, _mm_shuffle_ps(sq, sq, 1)), _mm_movehl_ps(sq, sq));
    return c;
}

static inline float chord_hinge(int s, ctn_joints defs, const ctn_pose *pose, float h, ctn_block *blocks, float *gap,
                                float *angle) {
    float g3, g4, f[4];
    /* a hinge: its axes are extras, so the world holds the extras array (host/core/joint_store.c) */
    __m128 l2, c = hinge_c(&defs.core[s], &defs.extra[s], pose, &g3, &g4, &l2);
    *gap = CTN_SQRT(_mm_cvtss_f32(l2));
    *angle = CTN_SQRT(g3 * g3 + g4 * g4);
    float *bias = blocks[s].bias;
    _mm_storeu_ps(bias, _mm_div_ps(_mm_xor_ps(c, _mm_set1_ps(-0.0f)), _mm_set1_ps(h))); /* -C/h; lane 3 overwritten next */
    bias[3] = -g3 / h;
    bias[4] = -g4 / h;
    _mm_storeu_ps(f, c);
    float g[5] = {f[0], f[1], f[2], g3, g4}, worst = 0.0f;
    for (int k = 0; k < 5; ++k) {
        float e = CTN_FABS(g[k]);
        worst = e > worst || e != e ? e : worst; /* a NaN stays */
    }
    return worst;
}

/* ctn_joint_error of a plain hinge: its five rows are bilateral, so gap = sqrt(((0 + C0^2) + C1^2) + C2^2) and
 * angle = sqrt((0 + g3^2) + g4^2) of the same rows (the chord measure's gap and angle) */
void ctn__hinge_error(ctn_joints defs, int s, const ctn_pose *pose, float *gap, float *angle) {
    float g3, g4;
    __m128 l2;
    (void)hinge_c(&defs.core[s], &defs.extra[s], pose, &g3, &g4, &l2);
    *gap = CTN_SQRT(_mm_cvtss_f32(l2));
    *angle = CTN_SQRT(g3 * g3 + g4 * g4);
}
#else
static inline float chord_hinge(int s, ctn_joints defs, const ctn_pose *pose, float h, ctn_block *blocks, float *gap,
                                float *angle) {
    ctn_joint_def jd = ctn_joint_at(defs, s), *j = &jd; /* a hinge: its axes are extras */
    ctn_hinge_pos hp = ctn_hinge_position(ctn_load_pose(pose, j->a), ctn_load_pose(pose, j->b), j->anchor_a, j->anchor_b, j->axis_a, j->axis_b);
    const float *g = hp.g;
    float l2 = 0.0f, a2s = 0.0f, worst = 0.0f;
    for (int k = 0; k < 3; ++k) l2 += g[k] * g[k];
    for (int k = 3; k < 5; ++k) a2s += g[k] * g[k];
    *gap = CTN_SQRT(l2);
    *angle = CTN_SQRT(a2s);
    for (int k = 0; k < 5; ++k) blocks[s].bias[k] = -g[k] / h;
    for (int k = 0; k < 5; ++k) {
        float e = CTN_FABS(g[k]);
        worst = e > worst || e != e ? e : worst; /* a NaN stays */
    }
    return worst;
}

void ctn__hinge_error(ctn_joints defs, int s, const ctn_pose *pose, float *gap, float *angle) {
    ctn_joint_def jd = ctn_joint_at(defs, s), *j = &jd;
    ctn_joint_error(*j, ctn_load_pose(pose, j->a), ctn_load_pose(pose, j->b), gap, angle);
}
#endif

void ctn__chord_rows(ctn_joints defs, int m, const ctn_pose *pose, float h, ctn_block *blocks, int all_ball, int threads,
                     ctn_chord_rows_result *r) {
    if (all_ball) {
        chord_rows_ball(defs.core, m, pose, h, blocks[0].bias, sizeof *blocks, threads, r);
        return;
    }
    float worst = 0.0f;
    double gap = 0.0, angle = 0.0;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (threads > 1) num_threads(threads) reduction(max : worst, gap, angle)
#endif
    for (int s = 0; s < m; ++s) {
        float g, a;
        float e = ctn__chord_hinge_plain_at(defs, s) ? chord_hinge(s, defs, pose, h, blocks, &g, &a)
                      : ctn_chord_slot_measure(s, defs, pose, h, blocks, &g, &a);
        worst = e > worst ? e : worst;
        if (e != e) worst = INFINITY; /* a non-finite error fails the chord step's test */
        gap = g > gap ? g : gap;
        angle = a > angle ? a : angle;
    }
    (void)threads;
    r->worst = worst, r->gap = gap, r->angle = angle;
}

void ctn__chord_rows_balls(ctn_joints defs, int m, const ctn_pose *pose, float h, ctn_ball_row *rows, int threads,
                           ctn_chord_rows_result *r) {
    chord_rows_ball(defs.core, m, pose, h, rows[0].bias, sizeof *rows, threads, r);
}
