/* The row build of the exact solver's ball records on the CPU (CTN_STAGE_PREPARE where ctn__direct_ball_rows holds;
 * kernels/ctn_solver.h ctn_prepare_slot_ball_row): every joint's lever arms, targets and softness into its 40-byte
 * ctn_ball_row, and for the position projection the largest error max_k |target_k| h (ctn_project_ball_row: a rigid
 * ball joint's rows stay as they are under ctn_project_block's rule).
 *
 * With SSE2 (every x86-64) the three components of each vector go through ctn_rows_ball_core's arithmetic together
 * (host/solve/lanes.h): the lever arms r = R(q) anchor, the anchor separation C (ctn_point_sep of the two-float
 * positions), the anchors' relative velocity dv = (v_a + w_a x r_a) - (v_b + w_b x r_b), the rows' J v as the dot
 * products with the world axes, ((e.x dv.x + e.y dv.y) + e.z dv.z) with the axes' 1s and 0s lane by lane, and the
 * targets cg C + cj J v (SPOOK) or cg C (Baumgarte) with the joint's coefficients from ctn_rows_ball_coef: lane by
 * lane the scalar build's operations in its order, so the same bits (tests/test_ball_record.c compares the two on
 * random poses and velocities, and every step of a records world with the blocks' built by the scalar code). */
#include "solve/solve.h"
#include "solve/lanes.h"
#include "ctn_solver.h"

#include <stddef.h>

#if defined(__SSE2__)
_Static_assert(offsetof(ctn_ball_row, soft) == 12 && offsetof(ctn_ball_row, rb) == 16 && offsetof(ctn_ball_row, bias) == 28 &&
                   sizeof(ctn_ball_row) == 40,
               "the stores below write ra|soft, rb|bias[0], bias[1..2]");

/* joint s's record; err: return the projection's error of its rows (max |bias_k| h), else 0 */
static inline float ball_row(int s, ctn_joints defs, const ctn_pose *pose, const ctn_vel *vel, ctn_step_params prm,
                             ctn_ball_row *rows, int err) {
    const ctn_joint_core *d = &defs.core[s];
    const ctn_pose *pa = body_pose(pose, d->a), *pb = body_pose(pose, d->b);
    const ctn_vel *va = body_vel(vel, d->a), *vb = body_vel(vel, d->b);
    __m128 ra = rotate4(_mm_loadu_ps(&pa->q.w), _mm_loadu_ps(&d->anchor_a.x));
    __m128 rb = rotate4(_mm_loadu_ps(&pb->q.w), _mm_loadu_ps(&d->anchor_b.x));
    __m128 g = point_sep4(pa, pb, ra, rb);
    __m128 jv = axes_jv4(anchor_dv4(va, vb, ra, rb));
    float cg, cj;
    int spook;
    float soft = ctn_rows_ball_coef(ctn_joint_flags(defs, s), d->compliance, ctn_joint_damping_time(defs, s), prm, &cg, &cj, &spook);
    __m128 bias = _mm_mul_ps(_mm_set1_ps(cg), g);
    if (spook) bias = _mm_add_ps(bias, _mm_mul_ps(_mm_set1_ps(cj), jv));
    /* (ra, soft), (rb, bias_0), (bias_1, bias_2) */
    __m128 t = _mm_shuffle_ps(ra, _mm_set1_ps(soft), _MM_SHUFFLE(0, 0, 2, 2)); /* lane 0 of set1 (no zeroing of the lanes unread) */
    __m128 u = _mm_shuffle_ps(rb, bias, _MM_SHUFFLE(0, 0, 2, 2));
    float *o = (float *)(void *)&rows[s];
    _mm_storeu_ps(o, _mm_shuffle_ps(ra, t, _MM_SHUFFLE(2, 0, 1, 0)));
    _mm_storeu_ps(o + 4, _mm_shuffle_ps(rb, u, _MM_SHUFFLE(2, 0, 1, 0)));
    _mm_storel_pi((__m64 *)(void *)(o + 8), _mm_shuffle_ps(bias, bias, _MM_SHUFFLE(3, 3, 2, 1)));
    return err ? ctn_project_ball_row(&rows[s], prm.h) : 0.0f;
}
#else
static inline float ball_row(int s, ctn_joints defs, const ctn_pose *pose, const ctn_vel *vel, ctn_step_params prm,
                             ctn_ball_row *rows, int err) {
    ctn_prepare_slot_ball_row(s, defs, pose, vel, prm, rows);
    return err ? ctn_project_ball_row(&rows[s], prm.h) : 0.0f;
}
#endif

float ctn__ball_rows(ctn_joints defs, int m, const ctn_pose *pose, const ctn_vel *vel, ctn_step_params prm, ctn_ball_row *rows,
                     int project, int threads) {
    float worst = 0.0f;
    if (!project) {
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (threads > 1) num_threads(threads)
#endif
        for (int s = 0; s < m; ++s) (void)ball_row(s, defs, pose, vel, prm, rows, 0);
    } else {
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (threads > 1) num_threads(threads) reduction(max : worst)
#endif
        for (int s = 0; s < m; ++s) {
            float e = ball_row(s, defs, pose, vel, prm, rows, 1);
            worst = e > worst ? e : worst;
        }
    }
    (void)threads;
    return worst;
}
