/* The per-body passes around the solve on the CPU: the geometric-stiffness inertia (CTN_STAGE_GEOMETRIC_INERTIA,
 * ctn_geometric_inertia_body), the external forces of a world without springs (CTN_STAGE_FORCES,
 * ctn_forces_body) and the position integration (CTN_STAGE_INTEGRATE: ctn_integrate_pose / _pose_from, which
 * leave the inertia alone, and ctn_integrate_body / _body_from, which form it from the new poses), all in
 * kernels/ctn_solver.h, which the OpenCL backend runs.
 *
 * Each lean loop does the shared function's IEEE 754 operations on the same operands in the same order, so the
 * results have the same bits; what goes is the work around them:
 *  - the world inverse inertia R diag(d) R^T (ctn_world_inverse_inertia) of four bodies at once, one body per
 *    SSE lane (four quaternions and four sets of principal moments transposed in, the six entries transposed
 *    out), instead of one body with its values spilled across too few registers;
 *  - a ball joint's three sums of three squares (|lambda_lin|^2, |lambda_ang|^2 and its lever arm's |r|^2) in
 *    three lanes of one register, their square roots by one sqrtps;
 *  - sqrtf's error branch: this file is compiled with -fno-math-errno (CMakeLists.txt), so a square root is
 *    the sqrtss instruction alone. That changes no value: sqrtf returns the same correctly rounded root
 *    (IEEE 754-2008, section 5.4.1) and besides only sets errno, for a negative argument, which the sums of
 *    squares here never are;
 *  - the zero a sum starts from: 0 + x is x bit for bit for x = l * l, which is never -0 (a square is +0,
 *    positive, +inf or a quiet NaN, which the addition passes on unchanged), so the sums of squares start
 *    from their first square;
 *  - three-component vectors (velocities, two-float positions, forces) as one SSE register each; a pose's
 *    fields stored in their order (p, p_lo, q), so that the lane 3 of p (onto p_lo.x) and of p_lo (onto q.w) is
 *    overwritten by the next store; a ctn_vel (six floats, v then w) as the four floats from v.x (v, w.x) and
 *    the four from v.z (v.z, w), stored in that order, the second store writing v.z again with the value of the
 *    first and w.x with its new value;
 *  - the exponential map inlined into the integration: it is called out of line, for the bodies that turn, with
 *    the |w| and half angle of the test, its quaternion product in SSE lanes (host/solve/quat_turn.h).
 * Without SSE2 the shared functions run. tests/test_body_passes.c checks lean against shared bit for bit
 * (every byte written) on random bodies with static, kinematic and particle flags, zero inverse masses and
 * non-finite values, on one and two threads. */
#include "solve/solve.h"
#include "ctn_solver.h"
#include "solve/quat_turn.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#if defined(__SSE2__)
/* ctn_quat_turn out of line, in SSE lanes (host/solve/quat_turn.h), given ctn_quat_integrate's |w| and half
 * angle: a body that turns is the rare case of a pass over a chain at rest or falling (inlined, its registers
 * spilled on every body's path), and the common one on a tree, every body at every chord step. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static __m128 turn(__m128 q, ctn_v3 w, float wn, float half_angle) {
    return quat_turn4(q, w, wn, half_angle);
}

/* Lanes 1..3 of a in lanes 0..2, lane 3 zero: the angular velocity w of a ctn_vel loaded from v.z (v.z, w). */
static inline __m128 lanes_from1(__m128 a) { return _mm_castsi128_ps(_mm_srli_si128(_mm_castps_si128(a), 4)); }

/* Lanes 0..2 of a, lane 3 of b. */
static inline __m128 keep_lane3(__m128 a, __m128 b) {
    const __m128 m = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
    return _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b));
}

/* The lanes of a joint's impulses loaded as l0..l3 (u) and l2..l5 (v) that lie inside the row stride ls
 * (CTN_LAM): the others, the next slot's impulses or past the array's last slot, read as zero. A joint with
 * three linear rows has three rows or more, so ls >= 3. */
typedef struct gi_masks {
    __m128 u, v;
} gi_masks;
static inline gi_masks gi_masks_of(int ls) {
    gi_masks m;
    m.u = _mm_castsi128_ps(_mm_set_epi32(ls > 3 ? -1 : 0, -1, -1, -1));
    m.v = _mm_castsi128_ps(_mm_set_epi32(ls > 5 ? -1 : 0, ls > 4 ? -1 : 0, ls > 3 ? -1 : 0, -1));
    return m;
}

/* ctn_geometric_inverse_inertia's alpha for body i: the sum over its joints, in adjacency order, of
 * sqrt(l2) |anchor| + sqrt(a2). A ball joint's (three linear rows, n_lin = 3) three sums of three squares go
 * through one register, lane 0 l2 = (l0^2 + l1^2) + l2^2, lane 1 |anchor|^2 = (x^2 + y^2) + z^2 (ctn_length's
 * ctn_dot), lane 2 a2 = (l3^2 + l4^2) + l5^2, and their square roots through one sqrtps. */
static inline float gi_alpha(int i, const int *adj_offsets, const int *adj, ctn_joints defs, const float *lambda, int ls,
                             gi_masks lm) {
    float alpha = 0.0f;
    for (int e = adj_offsets[i]; e < adj_offsets[i + 1]; ++e) {
        int s = adj[e] >> 1, side = adj[e] & 1;
        const ctn_joint_core *d = &defs.core[s];
        const float *lam = lambda + ls * s;
        const ctn_v3 *r = side == 0 ? &d->anchor_a : &d->anchor_b;
        int type = d->type;
        int n_lin = type == CTN_JT_BALL ? 3 : ctn_joint_lin_rows_at(defs, s);
        if (n_lin == 3) {
            __m128 u = _mm_loadu_ps(lam), v = _mm_loadu_ps(lam + 2), a = _mm_loadu_ps(&r->x); /* l0..l3, l2..l5, (x, y, z, -) */
            u = _mm_and_ps(u, lm.u), v = _mm_and_ps(v, lm.v);
            u = _mm_mul_ps(u, u), v = _mm_mul_ps(v, v), a = _mm_mul_ps(a, a);
            __m128 t0 = _mm_unpacklo_ps(u, a), t1 = _mm_unpackhi_ps(u, a);   /* (l0^2, x^2, l1^2, y^2), (l2^2, z^2, l3^2, -) */
            __m128 p = _mm_shuffle_ps(t0, t1, _MM_SHUFFLE(3, 2, 1, 0));      /* l0^2, x^2, l3^2 */
            __m128 q = _mm_shuffle_ps(t0, v, _MM_SHUFFLE(3, 2, 3, 2));       /* l1^2, y^2, l4^2 */
            __m128 rr = _mm_shuffle_ps(t1, v, _MM_SHUFFLE(3, 3, 1, 0));      /* l2^2, z^2, l5^2 */
            __m128 root = _mm_sqrt_ps(_mm_add_ps(_mm_add_ps(p, q), rr));      /* sqrt(l2), |anchor|, sqrt(a2) */
            __m128 arm = _mm_shuffle_ps(root, root, _MM_SHUFFLE(1, 1, 1, 1)), sa = _mm_movehl_ps(root, root);
            alpha += _mm_cvtss_f32(_mm_add_ss(_mm_mul_ss(root, arm), sa));
        } else { /* the shared loop as it is */
            float l2 = 0.0f, a2 = 0.0f;
            for (int k = 0; k < CTN_MAX_ROWS; ++k) {
                float l = CTN_LAM(lam, ls, 0, k);
                if (k < n_lin) l2 += l * l;
                else a2 += l * l;
            }
            alpha += CTN_SQRT(l2) * ctn_length(*r) + CTN_SQRT(a2);
        }
    }
    return alpha;
}

/* A joint's terms of alpha for both bodies it joins, in lanes 0 and 1: c[side] = sqrt(l2) |anchor_side| +
 * sqrt(a2) (gi_alpha's per edge; a ball joint's four sums of squares as lanes (l2, a2, |anchor_a|^2,
 * |anchor_b|^2)). */
static inline __m128 gi_terms(ctn_joints defs, int s, const float *lam, int ls, gi_masks lm) {
    const ctn_joint_core *d = &defs.core[s];
    int type = d->type;
    int n_lin = type == CTN_JT_BALL ? 3 : ctn_joint_lin_rows_at(defs, s);
    if (n_lin == 3) {
        __m128 u = _mm_loadu_ps(lam), v = _mm_loadu_ps(lam + 2); /* l0..l3, l2..l5 (lam[6] may lie past the end) */
        u = _mm_and_ps(u, lm.u), v = _mm_and_ps(v, lm.v);
        __m128 ra = _mm_loadu_ps(&d->anchor_a.x), rb = _mm_loadu_ps(&d->anchor_b.x); /* (x, y, z, a neighbour) */
        v = _mm_shuffle_ps(v, v, _MM_SHUFFLE(3, 3, 2, 1)); /* l3, l4, l5 */
        u = _mm_mul_ps(u, u), v = _mm_mul_ps(v, v), ra = _mm_mul_ps(ra, ra), rb = _mm_mul_ps(rb, rb);
        __m128 l_lo = _mm_unpacklo_ps(u, v), l_hi = _mm_unpackhi_ps(u, v);   /* (l0, l3, l1, l4)^2, (l2, l5, -, -)^2 */
        __m128 r_lo = _mm_unpacklo_ps(ra, rb), r_hi = _mm_unpackhi_ps(ra, rb); /* (ax, bx, ay, by)^2, (az, bz, -, -)^2 */
        __m128 p = _mm_movelh_ps(l_lo, r_lo), q = _mm_movehl_ps(r_lo, l_lo), r = _mm_movelh_ps(l_hi, r_hi);
        __m128 root = _mm_sqrt_ps(_mm_add_ps(_mm_add_ps(p, q), r)); /* sqrt(l2), sqrt(a2), |anchor_a|, |anchor_b| */
        return _mm_add_ps(_mm_mul_ps(_mm_shuffle_ps(root, root, 0x00), _mm_movehl_ps(root, root)), _mm_shuffle_ps(root, root, 0x55));
    } else { /* the shared loop as it is */
        float l2 = 0.0f, a2 = 0.0f;
        for (int k = 0; k < CTN_MAX_ROWS; ++k) {
            float l = CTN_LAM(lam, ls, 0, k);
            if (k < n_lin) l2 += l * l;
            else a2 += l * l;
        }
        float sl = CTN_SQRT(l2), sa = CTN_SQRT(a2);
        return _mm_setr_ps(sl * ctn_length(d->anchor_a) + sa, sl * ctn_length(d->anchor_b) + sa, 0.0f, 0.0f);
    }
}

/* alpha of every body by one pass over the joints in slot order, each adding its two terms to its bodies'
 * sums; the sums go into the first entry of each body's inertia, which the pass overwrites afterwards. A
 * body's adjacency lists its joints in increasing slot order (host/core/topology.c, build_adjacency), so each
 * sum adds the same terms in the same order as gi_alpha, 0 + c_1 + c_2 + ...: the same bits. The adjacency
 * lists every joint of a body that was dynamic when the layout was built and none of another (a body made
 * dynamic since has an empty list, and alpha 0 in the shared function): the caller takes 0 where the list is
 * empty. One thread: a body's sum must see its joints in order. */
static void gi_alpha_by_joint(int n, int m, ctn_joints defs, const float *lambda, int ls, ctn_inertia *inertia) {
    gi_masks lm = gi_masks_of(ls);
    for (int i = 0; i < n; ++i) inertia[i].inv_inertia.xx = 0.0f;
    for (int s = 0; s < m; ++s) {
        const ctn_joint_core *d = &defs.core[s];
        __m128 c = gi_terms(defs, s, lambda + ls * s, ls, lm); /* lanes c[0], c[1] */
        int a = d->a, b = d->b;
        if (a >= 0) _mm_store_ss(&inertia[a].inv_inertia.xx, _mm_add_ss(_mm_load_ss(&inertia[a].inv_inertia.xx), c));
        if (b >= 0) _mm_store_ss(&inertia[b].inv_inertia.xx, _mm_add_ss(_mm_load_ss(&inertia[b].inv_inertia.xx), _mm_shuffle_ps(c, c, 0x55)));
    }
}

/* ctn_world_inverse_inertia of four bodies, lane k = body k: quaternion (W, X, Y, Z), moments (Dx, Dy, Dz);
 * m[0..5] = xx, yy, zz, xy, xz, yz. */
static inline void world_inverse_inertia4(__m128 W, __m128 X, __m128 Y, __m128 Z, __m128 Dx, __m128 Dy, __m128 Dz, __m128 m[6]) {
    const __m128 one = _mm_set1_ps(1.0f), two = _mm_set1_ps(2.0f);
    __m128 xx = _mm_mul_ps(X, X), yy = _mm_mul_ps(Y, Y), zz = _mm_mul_ps(Z, Z);
    __m128 xy = _mm_mul_ps(X, Y), xz = _mm_mul_ps(X, Z), yz = _mm_mul_ps(Y, Z);
    __m128 wx = _mm_mul_ps(W, X), wy = _mm_mul_ps(W, Y), wz = _mm_mul_ps(W, Z);
    __m128 c0x = _mm_sub_ps(one, _mm_mul_ps(two, _mm_add_ps(yy, zz))), c0y = _mm_mul_ps(two, _mm_add_ps(xy, wz));
    __m128 c0z = _mm_mul_ps(two, _mm_sub_ps(xz, wy));
    __m128 c1x = _mm_mul_ps(two, _mm_sub_ps(xy, wz)), c1y = _mm_sub_ps(one, _mm_mul_ps(two, _mm_add_ps(xx, zz)));
    __m128 c1z = _mm_mul_ps(two, _mm_add_ps(yz, wx));
    __m128 c2x = _mm_mul_ps(two, _mm_add_ps(xz, wy)), c2y = _mm_mul_ps(two, _mm_sub_ps(yz, wx));
    __m128 c2z = _mm_sub_ps(one, _mm_mul_ps(two, _mm_add_ps(xx, yy)));
#define TERM(D, a, b) _mm_mul_ps(_mm_mul_ps(D, a), b)
#define ENTRY(a0, b0, a1, b1, a2, b2) _mm_add_ps(_mm_add_ps(TERM(Dx, a0, b0), TERM(Dy, a1, b1)), TERM(Dz, a2, b2))
    m[0] = ENTRY(c0x, c0x, c1x, c1x, c2x, c2x);
    m[1] = ENTRY(c0y, c0y, c1y, c1y, c2y, c2y);
    m[2] = ENTRY(c0z, c0z, c1z, c1z, c2z, c2z);
    m[3] = ENTRY(c0x, c0y, c1x, c1y, c2x, c2y);
    m[4] = ENTRY(c0x, c0z, c1x, c1z, c2x, c2z);
    m[5] = ENTRY(c0y, c0z, c1y, c1z, c2y, c2z);
#undef ENTRY
#undef TERM
}

/* ctn_body_inverse_inertia_augmented of bodies b..b+3 with alphas A (lane k: gs_h * alpha of body b + k, as the
 * shared function's argument): d_k / (1 + alpha d_k), R diag(d) R^T, zero where the body is not dynamic or is a
 * particle (computed and masked: the lanes are independent). augmented = 0: ctn_body_inverse_inertia, R
 * diag(d) R^T of the moments as they are (A unread). Writes the six entries of each, not the inverse mass after
 * them (ctn_inertia). */
static inline void inertia4(const ctn_pose *pose, const ctn_props *props, int b, int augmented, __m128 A, ctn_inertia *inertia) {
    __m128 W = _mm_loadu_ps(&pose[b].q.w), X = _mm_loadu_ps(&pose[b + 1].q.w);
    __m128 Y = _mm_loadu_ps(&pose[b + 2].q.w), Z = _mm_loadu_ps(&pose[b + 3].q.w);
    _MM_TRANSPOSE4_PS(W, X, Y, Z);
    __m128 Dx = _mm_loadu_ps(&props[b].inv_inertia_body.x), Dy = _mm_loadu_ps(&props[b + 1].inv_inertia_body.x);
    __m128 Dz = _mm_loadu_ps(&props[b + 2].inv_inertia_body.x), F = _mm_loadu_ps(&props[b + 3].inv_inertia_body.x);
    _MM_TRANSPOSE4_PS(Dx, Dy, Dz, F); /* F: the four flags words */
    if (augmented) {
        const __m128 one = _mm_set1_ps(1.0f);
        Dx = _mm_div_ps(Dx, _mm_add_ps(one, _mm_mul_ps(A, Dx)));
        Dy = _mm_div_ps(Dy, _mm_add_ps(one, _mm_mul_ps(A, Dy)));
        Dz = _mm_div_ps(Dz, _mm_add_ps(one, _mm_mul_ps(A, Dz)));
    }
    __m128 m[6];
    world_inverse_inertia4(W, X, Y, Z, Dx, Dy, Dz, m);
    const __m128i dp = _mm_set1_epi32(CTN_BODY_FLAG_DYNAMIC | CTN_BODY_FLAG_PARTICLE), dyn = _mm_set1_epi32(CTN_BODY_FLAG_DYNAMIC);
    __m128 rigid = _mm_castsi128_ps(_mm_cmpeq_epi32(_mm_and_si128(_mm_castps_si128(F), dp), dyn));
    for (int k = 0; k < 6; ++k) m[k] = _mm_and_ps(m[k], rigid); /* ctn_sym3_zero's +0 elsewhere */
    _MM_TRANSPOSE4_PS(m[0], m[1], m[2], m[3]);
    __m128 lo = _mm_unpacklo_ps(m[4], m[5]), hi = _mm_unpackhi_ps(m[4], m[5]);
    for (int k = 0; k < 4; ++k) _mm_storeu_ps(&inertia[b + k].inv_inertia.xx, m[k]);
    _mm_storel_pi((__m64 *)&inertia[b].inv_inertia.xz, lo);
    _mm_storeh_pi((__m64 *)&inertia[b + 1].inv_inertia.xz, lo);
    _mm_storel_pi((__m64 *)&inertia[b + 2].inv_inertia.xz, hi);
    _mm_storeh_pi((__m64 *)&inertia[b + 3].inv_inertia.xz, hi);
}
#endif

/* The four sums gi_alpha_by_joint left in bodies b..b+3 (lane k: body b + k). */
static inline __m128 gi_sums4(const ctn_inertia *inertia, int b) {
    return _mm_movelh_ps(_mm_unpacklo_ps(_mm_load_ss(&inertia[b].inv_inertia.xx), _mm_load_ss(&inertia[b + 1].inv_inertia.xx)),
                         _mm_unpacklo_ps(_mm_load_ss(&inertia[b + 2].inv_inertia.xx), _mm_load_ss(&inertia[b + 3].inv_inertia.xx)));
}

void ctn__geometric_inertia(int n, int m, const ctn_pose *pose, const ctn_props *props, const int *adj_offsets, const int *adj,
                            ctn_joints defs, const float *lambda, int ls, float gs_h, ctn_inertia *inertia, int lean, int threads) {
    (void)threads, (void)m; /* read by the OpenMP pragmas and the SSE2 branch only */
#if defined(__SSE2__)
    if (lean && !adj_offsets) {
        /* No adjacency (not built: a chain under the exact solver): the sums by joint, each body's taken whole. A
         * list is empty only for a body without joints (sum +0, as the mask would give) or one not dynamic at the
         * build, which is not dynamic now either (a change of a body's kind rebuilds the layout before the next
         * step's stages), so its inertia is zero whatever its sum (inertia4's mask, the shared function's test).
         * Then the bodies, on the team's threads. */
        int groups = n / 4;
        gi_alpha_by_joint(n, m, defs, lambda, ls, inertia);
        const __m128 vgs = _mm_set1_ps(gs_h);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (threads > 1) num_threads(threads)
#endif
        for (int g = 0; g < groups; ++g) inertia4(pose, props, 4 * g, 1, _mm_mul_ps(vgs, gi_sums4(inertia, 4 * g)), inertia);
        for (int i = 4 * groups; i < n; ++i) /* the last n mod 4: the shared function's last line, alpha its sum */
            inertia[i].inv_inertia = ctn_body_inverse_inertia_augmented(pose[i], props[i], gs_h * inertia[i].inv_inertia.xx);
        return;
    }
    if (lean) {
        int groups = n / 4;
        if (threads <= 1) { /* the sums by joint (about a joint's work per body less than by edge), then the bodies */
            gi_alpha_by_joint(n, m, defs, lambda, ls, inertia);
            const __m128 vgs = _mm_set1_ps(gs_h);
            for (int g = 0; g < groups; ++g) {
                int b = 4 * g;
                __m128 sum = gi_sums4(inertia, b);
                /* 0 (+0) where the adjacency list is empty: offsets[i] == offsets[i + 1] */
                __m128i o0 = _mm_loadu_si128((const __m128i *)&adj_offsets[b]), o1 = _mm_loadu_si128((const __m128i *)&adj_offsets[b + 1]);
                __m128 alpha = _mm_andnot_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(o0, o1)), sum);
                inertia4(pose, props, b, 1, _mm_mul_ps(vgs, alpha), inertia);
            }
            for (int i = 4 * groups; i < n; ++i) /* the last n mod 4 */
                ctn_geometric_inertia_body(i, pose, props, adj_offsets, adj, defs, lambda, ls, gs_h, inertia);
            return;
        }
        gi_masks lm = gi_masks_of(ls);
#ifdef _OPENMP
#pragma omp parallel if (threads > 1) num_threads(threads)
#endif
        {
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
            for (int g = 0; g < groups; ++g) {
                float al[4];
                for (int k = 0; k < 4; ++k) al[k] = gs_h * gi_alpha(4 * g + k, adj_offsets, adj, defs, lambda, ls, lm);
                inertia4(pose, props, 4 * g, 1, _mm_loadu_ps(al), inertia);
            }
        }
        for (int i = 4 * groups; i < n; ++i) /* the last n mod 4 */
            ctn_geometric_inertia_body(i, pose, props, adj_offsets, adj, defs, lambda, ls, gs_h, inertia);
        return;
    }
#else
    (void)lean;
#endif
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (threads > 1) num_threads(threads)
#endif
    for (int i = 0; i < n; ++i) ctn_geometric_inertia_body(i, pose, props, adj_offsets, adj, defs, lambda, ls, gs_h, inertia);
}

void ctn__forces(int n, const ctn_props *props, const ctn_body_force *forces, const ctn_inertia *inertia, const int *sadj_offsets,
                 const int *sadj, const ctn_joint_def *springs, const ctn_pose *pose, ctn_vel *in, ctn_vel *out, ctn_step_params prm,
                 int lean, int threads) {
    (void)threads; /* read by the OpenMP pragmas only, in some of the branches */
#if defined(__SSE2__)
    if (lean) { /* no springs: f_extra = t_extra = 0 */
        const __m128 zero = _mm_setzero_ps(), g = _mm_setr_ps(prm.gravity.x, prm.gravity.y, prm.gravity.z, 0.0f), h = _mm_set1_ps(prm.h);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (threads > 1) num_threads(threads)
#endif
        for (int i = 0; i < n; ++i) {
            int flags = props[i].flags;
            const float *src = (const float *)(const void *)&in[i];
            float *dst = (float *)(void *)&out[i];
            __m128 v = _mm_loadu_ps(src), w = _mm_loadu_ps(src + 2); /* (v, w.x), (v.z, w) */
            if (flags & CTN_BODY_FLAG_DYNAMIC) {
                /* v += h (g + inv_mass (force + 0)); without user forces force + 0 = +0 + +0 = zero */
                __m128 b = _mm_loadu_ps(&inertia[i].inv_inertia.xy); /* xy xz yz inv_mass: the record's last 16 bytes */
                __m128 f = forces ? _mm_add_ps(_mm_loadu_ps(&forces[i].force.x), zero) : zero;
                __m128 dv = _mm_mul_ps(_mm_add_ps(g, _mm_mul_ps(f, _mm_shuffle_ps(b, b, _MM_SHUFFLE(3, 3, 3, 3)))), h);
                v = keep_lane3(_mm_add_ps(v, dv), v);
                if ((flags & CTN_BODY_FLAG_PARTICLE) == 0) { /* w += h I^-1 (torque + 0), ctn_sym3_mul's sums */
                    __m128 t = forces ? _mm_add_ps(_mm_loadu_ps(&forces[i].torque.x), zero) : zero;
                    __m128 a = _mm_loadu_ps(&inertia[i].inv_inertia.xx);     /* xx yy zz xy */
                    __m128 c0 = _mm_shuffle_ps(a, b, _MM_SHUFFLE(1, 1, 3, 0)); /* xx xy xz */
                    __m128 c1 = _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 2, 1, 3)); /* xy yy yz */
                    __m128 c2 = _mm_shuffle_ps(b, a, _MM_SHUFFLE(2, 2, 2, 1)); /* xz yz zz */
                    __m128 m = _mm_add_ps(_mm_add_ps(_mm_mul_ps(c0, _mm_shuffle_ps(t, t, 0x00)), _mm_mul_ps(c1, _mm_shuffle_ps(t, t, 0x55))),
                                          _mm_mul_ps(c2, _mm_shuffle_ps(t, t, 0xAA)));
                    w = _mm_add_ps(w, _mm_mul_ps(_mm_shuffle_ps(m, m, _MM_SHUFFLE(2, 1, 0, 0)), h)); /* lanes 1..3: w + h m */
                }
                w = _mm_move_ss(w, _mm_movehl_ps(v, v)); /* lane 0: the new v.z */
            }
            _mm_storeu_ps(dst, v);
            _mm_storeu_ps(dst + 2, w);
        }
        return;
    }
#else
    (void)lean;
#endif
    /* no springs (lean): sadj_offsets is NULL, the topology having not written them; body i with no spring entries
     * is ctn_forces_body of index 0 on the arrays from i on, with offsets {0, 0} */
    static const int no_springs[2] = {0, 0};
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (threads > 1) num_threads(threads)
#endif
    for (int i = 0; i < n; ++i)
        if (sadj_offsets) ctn_forces_body(i, props, forces, forces != NULL, inertia, sadj_offsets, sadj, springs, pose, in, out, prm);
        else ctn_forces_body(0, props + i, forces ? forces + i : NULL, forces != NULL, inertia + i, no_springs, sadj, springs, pose, in + i, out + i, prm);
}

#if defined(__SSE2__)
/* ctn_body_integrate of body i from `from` into `pose` (the same array or another): x += h v, e = exp(h/2 w) e. */
static inline void integrate_one(int i, const ctn_pose *from, ctn_pose *pose, const ctn_vel *vel, const ctn_props *props, float h) {
    int flags = props[i].flags;
    if ((flags & (CTN_BODY_FLAG_DYNAMIC | CTN_BODY_FLAG_KINEMATIC)) == 0) { /* static: does not move */
        if (from != pose) pose[i] = from[i];
        return;
    }
    /* (p, p_lo) += h v by ctn_f2_add per lane: s = hi + d, e = TwoSum error + lo, t = s + e,
     * lo = TwoSum error of s + e (Knuth's TwoSum: err(a, b, s) = (a - (s - bb)) + (b - bb), bb = s - a) */
    __m128 hi = _mm_loadu_ps(&from[i].p.x), lo = _mm_loadu_ps(&from[i].p_lo.x); /* (p, p_lo.x), (p_lo, q.w) */
    const float *vf = (const float *)(const void *)&vel[i];
    __m128 d = _mm_mul_ps(_mm_loadu_ps(vf), _mm_set1_ps(h)); /* (v, w.x) h: lane 3 not stored */
    __m128 s = _mm_add_ps(hi, d), bb = _mm_sub_ps(s, hi);
    __m128 e = _mm_add_ps(_mm_add_ps(_mm_sub_ps(hi, _mm_sub_ps(s, bb)), _mm_sub_ps(d, bb)), lo);
    __m128 t = _mm_add_ps(s, e), bt = _mm_sub_ps(t, s);
    __m128 l = _mm_add_ps(_mm_sub_ps(s, _mm_sub_ps(t, bt)), _mm_sub_ps(e, bt));
    __m128 q = _mm_loadu_ps(&from[i].q.w);
    if ((flags & CTN_BODY_FLAG_PARTICLE) == 0) {
        /* ctn_length(w): sqrt((x^2 + y^2) + z^2); ctn_quat_integrate's 0.5f * h * wn is (0.5f * h) * wn */
        __m128 w2 = lanes_from1(_mm_loadu_ps(vf + 2)); /* (w, 0) from (v.z, w) */
        w2 = _mm_mul_ps(w2, w2);
        __m128 n2 = _mm_add_ss(_mm_add_ss(w2, _mm_shuffle_ps(w2, w2, _MM_SHUFFLE(1, 1, 1, 1))), _mm_movehl_ps(w2, w2));
        float wn = _mm_cvtss_f32(_mm_sqrt_ss(n2)), half_angle = 0.5f * h * wn;
        if (!(fabsf(half_angle) < 1e-20f)) q = turn(q, vel[i].w, wn, half_angle); /* else no rotation */
    }
    /* in field order: each store's lane 3 (p's onto p_lo.x, p_lo's onto q.w) is overwritten by the next */
    _mm_storeu_ps(&pose[i].p.x, t);
    _mm_storeu_ps(&pose[i].p_lo.x, l);
    _mm_storeu_ps(&pose[i].q.w, q);
}
#endif

void ctn__integrate_poses(int n, const ctn_pose *from, ctn_pose *pose, const ctn_vel *vel, const ctn_props *props, float h, int lean,
                          int threads) {
    (void)threads; /* read by the OpenMP pragmas only, in some of the branches */
#if defined(__SSE2__)
    if (lean) {
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (threads > 1) num_threads(threads)
#endif
        for (int i = 0; i < n; ++i) integrate_one(i, from, pose, vel, props, h);
        return;
    }
#else
    (void)lean;
#endif
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (threads > 1) num_threads(threads)
#endif
    for (int i = 0; i < n; ++i) {
        if (from == pose) ctn_integrate_pose(i, pose, vel, props, h);
        else ctn_integrate_pose_from(i, from, pose, vel, props, h);
    }
}

void ctn__integrate_bodies(int n, const ctn_pose *from, ctn_pose *pose, const ctn_vel *vel, const ctn_props *props, ctn_inertia *inertia,
                           float h, int lean, int threads) {
    (void)threads; /* read by the OpenMP pragmas only, in some of the branches */
#if defined(__SSE2__)
    if (lean) { /* four poses, then their four inertias from the new orientations */
        int groups = n / 4;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (threads > 1) num_threads(threads)
#endif
        for (int g = 0; g < groups; ++g) {
            for (int k = 0; k < 4; ++k) integrate_one(4 * g + k, from, pose, vel, props, h);
            inertia4(pose, props, 4 * g, 0, _mm_setzero_ps(), inertia);
        }
        for (int i = 4 * groups; i < n; ++i) ctn_integrate_body_from(i, from, pose, vel, props, inertia, h); /* the last n mod 4 */
        return;
    }
#else
    (void)lean;
#endif
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (threads > 1) num_threads(threads)
#endif
    for (int i = 0; i < n; ++i) {
        if (from == pose) ctn_integrate_body(i, pose, vel, props, inertia, h);
        else ctn_integrate_body_from(i, from, pose, vel, props, inertia, h);
    }
}

#if defined(__SSE2__)
/* The largest float x >= 0 whose speed (double)sqrtf(x) is at most `limit` (> 0): a body whose squared speed
 * x is finite or +inf is then faster than the limit exactly when x > T, since sqrtf is non-decreasing (IEEE
 * 754's correctly rounded square root) and so is the predicate's failure over the non-negative floats in the
 * order of their bit patterns. By bisection over the bit patterns, once a scan. */
static float speed2_limit(double limit) {
    if (!(limit < INFINITY)) return INFINITY; /* sqrtf(+inf) = +inf is not above +inf */
    uint32_t lo = 0u, hi = 0x7f800000u;       /* sqrtf(+0) = 0 <= limit; sqrtf(+inf) > limit */
    while (hi - lo > 1u) {
        uint32_t mid = lo + (hi - lo) / 2u;
        float x;
        memcpy(&x, &mid, sizeof x);
        if ((double)sqrtf(x) <= limit) lo = mid;
        else hi = mid;
    }
    float t;
    memcpy(&t, &lo, sizeof t);
    return t;
}
#endif

#if defined(__SSE2__)
/* The larger of a body's squared linear and angular speeds, v.v and w.w (ctn_dot's (x^2 + y^2) + z^2, in lanes
 * 0 and 1, then a > b ? a : b), from its ctn_vel read as floats (v xyz, w xyz). */
static inline float speed2_of(const float *vf) {
    __m128 v = _mm_loadu_ps(vf), u = lanes_from1(_mm_loadu_ps(vf + 2)); /* (v, w.x), (w, 0) */
    v = _mm_mul_ps(v, v), u = _mm_mul_ps(u, u);
    __m128 lo = _mm_unpacklo_ps(v, u), hi = _mm_unpackhi_ps(v, u); /* (vx, wx, vy, wy)^2, (vz, wz, -, -)^2 */
    __m128 ab = _mm_add_ps(_mm_add_ps(lo, _mm_movehl_ps(lo, lo)), hi);
    return _mm_cvtss_f32(_mm_max_ss(ab, _mm_shuffle_ps(ab, ab, _MM_SHUFFLE(1, 1, 1, 1))));
}
#endif

void ctn__body_scan(const ctn_world *w, int n, const ctn_pose *pose, const ctn_vel *vel, int lean, int threads, double *top, int *bad_body) {
    (void)threads; /* read by the OpenMP pragmas only, in some of the branches */
    int bad = INT_MAX;
#if defined(__SSE2__)
    if (lean) {
        float t2 = speed2_limit(w->desc.max_speed > 0.0 ? w->desc.max_speed : INFINITY), top2 = 0.0f;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (threads > 1) num_threads(threads) reduction(max : top2) reduction(min : bad)
#endif
        for (int i = 0; i < n; ++i) {
            if (ctn__lanes_any(ctn__state_nonfinite(&pose[i], &vel[i]))) { /* ctn__body_diverged's finite test */
                bad = i < bad ? i : bad;
                continue;
            }
            float x = speed2_of((const float *)(const void *)&vel[i]);
            if (x > t2) bad = i < bad ? i : bad;      /* faster than the limit */
            else top2 = x > top2 ? x : top2;          /* the largest speed is the root of the largest square */
        }
        *top = (double)sqrtf(top2);
        *bad_body = bad;
        return;
    }
#else
    (void)lean;
#endif
    double t = 0.0;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (threads > 1) num_threads(threads) reduction(max : t) reduction(min : bad)
#endif
    for (int i = 0; i < n; ++i) {
        double speed = 0.0;
        if (ctn__body_diverged(w, &pose[i], &vel[i], &speed)) bad = i < bad ? i : bad;
        else t = speed > t ? speed : t;
    }
    *top = t;
    *bad_body = bad;
}

/* The pose bounds of a step that integrates in place (ctn__body_scan_bounded): a float x has |x| >= 2^K, or is
 * not finite, exactly when its biased exponent e >= 127 + K, i.e. when (e << 23) + ((129 - K) << 23) sets bit
 * 31 (at most 383 << 23: no carry out); K = 40 for the position and its low part, 1 for the orientation. For
 * the velocities K = 128 is the non-finite test of ctn__lanes_nonfinite (0x00800000). */
#define BOUND_P ((129u - 40u) << 23)
#define BOUND_Q ((129u - 1u) << 23)

int ctn__poses_bounded(const ctn_pose *pose, int n, int threads) {
    (void)threads; /* read by the OpenMP pragma only */
    const uint32_t E = 0x7f800000u;
    uint32_t bad = 0;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (threads > 1) num_threads(threads) reduction(| : bad)
#endif
    for (int i = 0; i < n; ++i) {
        uint32_t u[10];
        memcpy(u, &pose[i], sizeof u); /* p xyz, p_lo xyz, q (world.h's static assertions) */
        bad |= ((u[0] & E) + BOUND_P) | ((u[1] & E) + BOUND_P) | ((u[2] & E) + BOUND_P) | ((u[3] & E) + BOUND_P) |
               ((u[4] & E) + BOUND_P) | ((u[5] & E) + BOUND_P) | ((u[6] & E) + BOUND_Q) | ((u[7] & E) + BOUND_Q) |
               ((u[8] & E) + BOUND_Q) | ((u[9] & E) + BOUND_Q);
    }
    return !(bad & 0x80000000u);
}

#if defined(__SSE2__)
/* Body i of ctn__body_scan_bounded: 1 when it fails (a pose component outside the bounds, a velocity component not
 * finite, or faster than the limit t2), else its squared speed into *top2. vel_finite: every velocity is known
 * finite (the step's residual said so), and the velocities' part of the test, which could not fire, is left out. */
static inline int scan_bounded_one(const ctn_pose *pose, const ctn_vel *vel, int i, int vel_finite, float t2, float *top2) {
    const float *pf = (const float *)(const void *)&pose[i], *vf = (const float *)(const void *)&vel[i];
    const __m128i e3 = _mm_setr_epi32(0x7f800000, 0x7f800000, 0x7f800000, 0), e4 = _mm_set1_epi32(0x7f800000);
    const __m128i e2 = _mm_setr_epi32(0, 0, 0x7f800000, 0x7f800000);
    const __m128i bp = _mm_set1_epi32((int)BOUND_P), bq = _mm_set1_epi32((int)BOUND_Q), bv = _mm_set1_epi32(0x00800000);
    __m128i p = _mm_add_epi32(_mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)pf), e3), bp);
    __m128i l = _mm_add_epi32(_mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(pf + 3)), e3), bp);
    __m128i q = _mm_add_epi32(_mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(pf + 6)), e4), bq);
    __m128i any = _mm_or_si128(_mm_or_si128(p, q), l);
    if (!vel_finite) {
        __m128i v = _mm_add_epi32(_mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)vf), e4), bv);       /* v, w.x */
        __m128i u = _mm_add_epi32(_mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(vf + 2)), e2), bv); /* w.y, w.z */
        any = _mm_or_si128(any, _mm_or_si128(v, u));
    }
    if (_mm_movemask_ps(_mm_castsi128_ps(any))) return 1;
    float x = speed2_of(vf);
    if (x > t2) return 1;
    *top2 = x > *top2 ? x : *top2;
    return 0;
}
#endif

int ctn__body_scan_bounded(const ctn_world *w, int n, const ctn_pose *pose, const ctn_vel *vel, int vel_finite, int threads, double *top) {
#if defined(__SSE2__)
    float t2 = speed2_limit(w->desc.max_speed > 0.0 ? w->desc.max_speed : INFINITY), top2 = 0.0f;
    int bad = 0;
    (void)threads;
    if (vel_finite) { /* two loops, so that each is compiled with its own test */
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (threads > 1) num_threads(threads) reduction(max : top2) reduction(| : bad)
#endif
        for (int i = 0; i < n; ++i) bad |= scan_bounded_one(pose, vel, i, 1, t2, &top2);
    } else {
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (threads > 1) num_threads(threads) reduction(max : top2) reduction(| : bad)
#endif
        for (int i = 0; i < n; ++i) bad |= scan_bounded_one(pose, vel, i, 0, t2, &top2);
    }
    *top = (double)sqrtf(top2);
    return !bad;
#else
    int bad_body = INT_MAX;
    (void)vel_finite; /* the scan's answer is the same either way */
    if (!ctn__poses_bounded(pose, n, threads)) return 0;
    ctn__body_scan(w, n, pose, vel, 0, threads, top, &bad_body);
    return bad_body == INT_MAX;
#endif
}
