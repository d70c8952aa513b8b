/* Assembly and inverse kinematics: ctn_world_assemble (catena.h; the math in docs/design.md, "Assembly").
 *
 * Finds the pose closest to the current one, in the mass metric, at which every joint is closed, i.e.
 *     min 1/2 |q - q0|_M^2 + sum_t w_t/2 |p_t(q) - target_t|^2   subject to   C(q) = 0,
 * in two phases:
 *   1. Jacobian-transpose gather (Nelson 1998): per joint mu = -K_s^-1 g, per body dq = M^-1 sum J^T mu,
 *      run on the world's backend as the pipeline stages CTN_STAGE_ASSEMBLE_ROWS / _GATHER
 *      (kernels/ctn_assemble.h). Cheap and local; it removes large errors but converges slowly along long
 *      chains, so it stops at desc.gather_tolerance or when it stops improving.
 *   2. Newton steps on the host, each the minimal-norm correction
 *          dq = -M^-1 J^T (J M^-1 J^T + S)^-1 C
 *      solved exactly by the direct solver (ctn__solve_direct, host/solve/solver_direct.c) as a velocity
 *      problem with zero velocities and target -C (the position projection of the step pipeline, Cline and
 *      Pai 2003, with C evaluated in double). IK targets are temporary soft ball joints to the world whose
 *      compliance S is adapted Levenberg-Marquardt fashion (Marquardt 1963): a step that does not lower the
 *      target energy is undone and S raised tenfold, an accepted one lowers it; the fixed point is the
 *      KKT point of the weighted problem above (J^T mu = 0 with mu_t = -C_t / S_t).
 * Errors are evaluated in double from the stored (two-float position, float32 quaternion) state, so the
 * report says what a later ctn_world_get_joint_errors will see up to its float32 rounding. */
#include "ctn_assemble.h"
#include "core/alloc.h"
#include "core/dquat.h"
#include "core/joint_kinds.h"
#include "solve/pipeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Phase 2 with targets: Levenberg-Marquardt factor on the targets' compliance (times base, see target_scales). */
#define LM_START 1e-3
#define LM_MIN 1e-9
#define LM_MAX 1e9

ctn_assemble_desc ctn_assemble_desc_default(void) {
    ctn_assemble_desc d;
    memset(&d, 0, sizeof d);
    d.tolerance = 1e-6;
    d.gather_iterations = 200;
    d.gather_tolerance = 1e-3;
    d.newton_iterations = 500;
    return d;
}

/* ---- double-precision joint errors --------------------------------------------------------------- */

/* R(q) v of a float vector, ctn_quat_rotate's formula in double on the normalised quaternion */
static void dq_rotate_v3(ctn_dquat q, ctn_v3 v, double out[3]) {
    double vv[3];
    ctn_d3_of(v, vv);
    ctn_dq_rotate(q, vv, out);
}

/* The errors g of the rows of ctn_joint_rows in double (same rows, same order; the row directions of the
 * float rows in blk, which the Newton step uses). Rows the float build leaves inactive stay 0. */
static void joint_error_dd(const ctn_joint_def *j, const ctn_pose *pa, const ctn_pose *pb, const ctn_block *blk, const float *gf,
                           double *g) {
    ctn_dquat qa = ctn_dq_of(pa->q), qb = ctn_dq_of(pb->q);
    double xa[3], xb[3], ra[3], rb[3], sep[3];
    ctn__pose_get_position(pa, xa);
    ctn__pose_get_position(pb, xb);
    dq_rotate_v3(qa, j->anchor_a, ra);
    dq_rotate_v3(qb, j->anchor_b, rb);
    for (int k = 0; k < 3; ++k) sep[k] = (xa[k] - xb[k]) + (ra[k] - rb[k]);
    for (int k = 0; k < CTN_MAX_ROWS; ++k) g[k] = gf[k];
    if (j->type == CTN_JT_DISTANCE) {
        if (gf[0] != 0.0f) g[0] = sqrt(ctn_d3_dot(sep, sep)) - j->rest_length;
        return;
    }
    if (j->type == CTN_JT_CONTACT) return;
    if (j->type == CTN_JT_PRISMATIC) {
        ctn_v3 t1, t2;
        double d1[3], d2[3];
        ctn_basis(j->axis_a, &t1, &t2);
        dq_rotate_v3(qa, t1, d1);
        dq_rotate_v3(qa, t2, d2);
        g[0] = ctn_d3_dot(d1, sep), g[1] = ctn_d3_dot(d2, sep);
    } else if (ctn__joint_kind_has(j->type, CTN_JK_POINT_ROWS)) { /* rows 0-2: ctn_rows_point (core/joint_kinds.h) */
        for (int k = 0; k < 3; ++k) g[k] = sep[k];
    }
    if (j->type == CTN_JT_HINGE) {
        double a1[3], a2[3], c[3];
        dq_rotate_v3(qa, j->axis_a, a1);
        dq_rotate_v3(qb, j->axis_b, a2);
        ctn_d3_cross(a2, a1, c);
        for (int r = 3; r < 5; ++r) {
            double t[3] = {blk->dir[r].x, blk->dir[r].y, blk->dir[r].z};
            g[r] = ctn_d3_dot(t, c);
        }
    } else if (j->type == CTN_JT_FIXED || j->type == CTN_JT_PRISMATIC) {
        ctn_dquat rel = ctn_dq_of(j->rel_q), cb = ctn_dq_conj(qb);
        ctn_dquat qe = ctn_dq_mul(ctn_dq_mul(qa, rel), cb);
        double s = qe.w < 0.0 ? -2.0 : 2.0;
        int r = blk->n_lin;
        g[r] = s * qe.x, g[r + 1] = s * qe.y, g[r + 2] = s * qe.z;
    }
}

/* ---- the assembly state ---------------------------------------------------------------------------- */

typedef struct assembly {
    ctn_world *w;
    const ctn_assemble_desc *desc;
    ctn_block *blocks;     /* [topo.joint_count] */
    double *g;             /* [6 topo.joint_count] row errors in double */
    float *base;           /* [topo.joint_count] targets: local effective mass / weight (the compliance scale) */
    ctn_pose *keep;        /* poses before a Newton step */
    ctn_pose *outer;       /* poses before a target step and its projection */
    ctn_pose *best;        /* the best poses of a projection */
} assembly;

/* Errors and rows of every slot at the current poses (soft: the targets' compliance factor). Returns the
 * largest gap and angle of the joints and the targets' energy sum w |p - t|^2 and largest distance. */
static void evaluate(assembly *as, double lm, double *gap, double *angle, double *energy, double *tdist) {
    ctn_world *w = as->w;
    ctn_topology *t = &w->topo;
    double gmax = 0.0, amax = 0.0, e = 0.0, dmax = 0.0;
    for (int s = 0; s < t->joint_count; ++s) {
        const ctn_joint_def d_def = ctn_joint_at(ctn__topo_joints(t), s), *d = &d_def;
        ctn_pose pa = ctn_load_pose(w->pose, d->a), pb = ctn_load_pose(w->pose, d->b);
        ctn_sym3 Ia = ctn_body_inverse_inertia(pa, w->props[d->a]);
        ctn_sym3 Ib = d->b >= 0 ? ctn_body_inverse_inertia(pb, w->props[d->b]) : ctn_sym3_zero();
        float ima = w->inertia[d->a].inv_mass, imb = d->b >= 0 ? w->inertia[d->b].inv_mass : 0.0f;
        int target = (d->flags & CTN_JF_ASSEMBLE_TARGET) != 0;
        ctn_block *blk = &as->blocks[s];
        float gf[CTN_MAX_ROWS];
        double *g = &as->g[6 * s];
        float soft = !target ? 0.0f : lm < 0.0 ? 1.0f : (float)(lm * as->base[s]);
        ctn_assemble_block(*d, pa, pb, ima, Ia, imb, Ib, soft, blk, gf);
        joint_error_dd(d, &pa, &pb, blk, gf, g);
        if (target && lm < 0.0) {
            /* targets off: rows with no Jacobian, unit compliance and no error stay in the factor as
             * decoupled rows with mu = 0 (a huge compliance instead would swamp the pivots around them) */
            for (int k = 0; k < CTN_MAX_ROWS; ++k) blk->dir[k] = ctn_v3_zero();
            blk->ra = blk->rb = ctn_v3_zero();
        }
        double l2 = 0.0, a2 = 0.0;
        for (int k = 0; k < ctn_block_rows(blk); ++k) {
            blk->bias[k] = target && lm < 0.0 ? 0.0f : (float)-g[k];
            if (k < blk->n_lin) l2 += g[k] * g[k];
            else a2 += g[k] * g[k];
        }
        if (target) {
            e += d->stiffness * l2;
            dmax = fmax(dmax, sqrt(l2));
        } else {
            gmax = fmax(gmax, sqrt(l2));
            amax = fmax(amax, sqrt(a2));
        }
    }
    *gap = gmax, *angle = amax;
    if (energy) *energy = e;
    if (tdist) *tdist = dmax;
}

/* Adds the targets as soft ball joints from the body point to the world point (appended slots). */
static ctn_status add_targets(assembly *as) {
    ctn_world *w = as->w;
    const ctn_assemble_desc *d = as->desc;
    ctn_status st = CTN_OK;
    w->append_slots++;
    for (int k = 0; k < d->target_count && st == CTN_OK; ++k) {
        const ctn_assemble_target *tg = &d->targets[k];
        ctn_joint_def j;
        int slot;
        memset(&j, 0, sizeof j);
        j.type = CTN_JT_BALL;
        j.a = ctn__body_index(w, tg->body, "ctn_world_assemble: targets[].body", 0);
        j.b = -1;
        j.rows = 3;
        j.anchor_a = ctn_v3_make((float)tg->point[0], (float)tg->point[1], (float)tg->point[2]);
        j.anchor_b = ctn_v3_make((float)tg->target[0], (float)tg->target[1], (float)tg->target[2]);
        j.rel_q = ctn_quat_identity();
        j.stiffness = (float)tg->weight;
        j.flags = CTN_JF_ASSEMBLE_TARGET;
        st = ctn__joint_insert(w, &j, &slot);
    }
    return ctn__append_end(w, st);
}

/* The compliance scale of every target slot: its local effective mass over its weight (so S = lm base
 * makes every target equally soft relative to the body it pulls, scaled by 1/weight), and the same for
 * phase 1 (lm = 1) in the slot's stored compliance. */
static void target_scales(assembly *as) {
    ctn_world *w = as->w;
    ctn_topology *t = &w->topo;
    for (int s = 0; s < t->joint_count; ++s) {
        const ctn_joint_def d_def = ctn_joint_at(ctn__topo_joints(t), s), *d = &d_def;
        as->base[s] = 0.0f;
        if (!(d->flags & CTN_JF_ASSEMBLE_TARGET)) continue;
        ctn_pose pa = w->pose[d->a];
        ctn_v3 r = ctn_quat_rotate(pa.q, d->anchor_a);
        ctn_sym3 I = ctn_body_inverse_inertia(pa, w->props[d->a]);
        /* mean diagonal of the point's 3x3 mobility m^-1 I + [r]x^T I^-1 [r]x */
        double k = w->inertia[d->a].inv_mass + (ctn_sym3_form(I, ctn_cross(r, ctn_v3_make(1, 0, 0)), ctn_cross(r, ctn_v3_make(1, 0, 0))) +
                                            ctn_sym3_form(I, ctn_cross(r, ctn_v3_make(0, 1, 0)), ctn_cross(r, ctn_v3_make(0, 1, 0))) +
                                            ctn_sym3_form(I, ctn_cross(r, ctn_v3_make(0, 0, 1)), ctn_cross(r, ctn_v3_make(0, 0, 1)))) / 3.0;
        as->base[s] = (float)(k / d->stiffness);
        t->defs[s].compliance = as->base[s]; /* a field of the compact record */
    }
}

/* ---- phase 1: the gather on the world's backend ----------------------------------------------------- */

static ctn_status phase_gather(assembly *as, ctn_assemble_report *rep) {
    ctn_world *w = as->w;
    const ctn_stage_ops *ops = w->backend->stages;
    ctn_step_params prm = ctn__step_params(w);
    ctn_step_stats st;
    memset(&st, 0, sizeof st);
    ctn_status s = ops->begin(w);
    double best = INFINITY;
    int stalled = 0;
    for (int it = 0; s == CTN_OK && it < as->desc->gather_iterations; ++it) {
        ctn_stage_out out;
        memset(&out, 0, sizeof out);
        s = ctn__stage_run(w, ops, CTN_STAGE_ASSEMBLE_ROWS, &prm, &out);
        if (s != CTN_OK) break;
        double err = fmax(out.max_gap, out.max_angle);
        if (!isfinite(err) || err <= as->desc->gather_tolerance) break;
        stalled = err < 0.99 * best ? 0 : stalled + 1; /* stops improving: Newton takes over */
        best = fmin(best, err);
        if (stalled >= 5) break;
        s = ctn__stage_run(w, ops, CTN_STAGE_ASSEMBLE_GATHER, &prm, &out);
        if (s == CTN_OK) rep->gather_iterations++;
    }
    ops->timer(w, CTN_TIMER_NONE, &st);
    s = ops->end(w, s, &st);
    if (s != CTN_OK) return s;
    return ctn__sync(w);
}

/* ---- phase 2: Newton steps with the direct solver ---------------------------------------------------- */

/* One Newton step from the rows evaluate() built: v = M^-1 J^T mu with (J M^-1 J^T + S) mu = -C by the direct
 * solver, then x += v (a unit "time" step). Returns the largest body displacement. */
static double newton_move(assembly *as, double max_turn) {
    ctn_world *w = as->w;
    ctn_topology *t = &w->topo;
    double top = 0.0, turn = 0.0;
    for (int i = 0; i < w->body_count; ++i) w->vel[i].v = w->vel[i].w = ctn_v3_zero();
    memset(t->lambda, 0, (size_t)t->stride * (size_t)t->joint_count * sizeof *t->lambda);
    ctn__solve_direct_ex(w, as->blocks, 0); /* nobody reads the residual; the blocks hold kinv */
    for (int i = 0; i < w->body_count; ++i) turn = fmax(turn, ctn_length(w->vel[i].w));
    /* trust region: a step that turns a body by more than max_turn is shortened along its direction */
    float scale = turn > max_turn ? (float)(max_turn / turn) : 1.0f;
    for (int i = 0; i < w->body_count && scale < 1.0f; ++i) w->vel[i].v = ctn_scale(w->vel[i].v, scale), w->vel[i].w = ctn_scale(w->vel[i].w, scale);
    for (int i = 0; i < w->body_count; ++i) {
        if (!(w->props[i].flags & CTN_BODY_FLAG_DYNAMIC)) continue;
        top = fmax(top, ctn_length(w->vel[i].v));
        w->pose[i] = ctn_body_integrate(w->pose[i], w->vel[i], w->props[i], 1.0f);
        ctn_inertia_body(i, w->pose, w->props, w->inertia);
    }
    return top;
}

static void poses_put(ctn_world *w, const ctn_pose *from) {
    memcpy(w->pose, from, (size_t)w->body_count * sizeof *w->pose);
    for (int i = 0; i < w->body_count; ++i) ctn_inertia_body(i, w->pose, w->props, w->inertia);
}

/* Target steps: the largest turn of a body in one step (rad), and the metric. In the mass metric alone the
 * cheapest way to move a chain's end by d bends its last few links by angles of order d / L (most of the
 * motion is the end link's translation), far outside the linearisation; with every body's moments raised by
 * m R^2, R the targets' distance, the cheapest way turns every link a little (the chain swings as a whole),
 * and MAX_TURN bounds what is left. The metric only shapes the path: the fixed point (J^T mu = 0) is the
 * same. */
#define MAX_TURN 0.25
static void target_metric(assembly *as, double R) {
    ctn_world *w = as->w;
    for (int i = 0; i < w->body_count; ++i) {
        float m = w->inertia[i].inv_mass > 0.0f ? 1.0f / w->inertia[i].inv_mass : 0.0f;
        w->inertia[i].inv_inertia = ctn_body_inverse_inertia_augmented(w->pose[i], w->props[i], (float)(m * R * R));
    }
}

/* Newton steps on the joints alone (targets off) until the largest error is below the tolerance (`tight`: on
 * while a step still halves it, down to the float32 floor) or has not shrunk for PROJECT_PATIENCE steps (far
 * from the manifold a full step can overshoot before it converges); the best poses seen are kept. Quadratic
 * convergence down to the float32 rounding of the rows' directions. Returns the largest error reached. */
#define PROJECT_PATIENCE 3
static double project_joints(assembly *as, ctn_assemble_report *rep, int *budget, double R, int tight) {
    ctn_world *w = as->w;
    double g, a, best, tol = as->desc->tolerance;
    int worse = 0, moved = 0;
    evaluate(as, -1.0, &g, &a, NULL, NULL);
    best = fmax(g, a);
    while (*budget > 0 && (best > tol || (tight && best > 0.0))) {
        /* below the tolerance only a step that halves the error counts (rounding noise does not) */
        if (worse >= (best <= tol ? 1 : PROJECT_PATIENCE)) break;
        if (worse == 0) memcpy(as->best, w->pose, (size_t)w->body_count * sizeof *w->pose);
        if (R > 0.0) target_metric(as, R);
        newton_move(as, INFINITY);
        moved = 1;
        --*budget;
        rep->newton_iterations++;
        evaluate(as, -1.0, &g, &a, NULL, NULL);
        double err = fmax(g, a);
        if (err < (best <= tol ? 0.5 * best : best)) best = err, worse = 0;
        else worse++;
        if (!isfinite(err)) break;
    }
    if (moved && worse > 0) {
        poses_put(w, as->best);
        evaluate(as, -1.0, &g, &a, NULL, NULL);
    }
    return best;
}

/* Phase 2. Without targets: Newton steps on the joints. With targets, projected Levenberg-Marquardt: a step
 * with the targets' rows at compliance lm * base (joints rigid), then the joints closed again by
 * project_joints; the pair is kept when the joints are closed (or closer) and the target energy went down
 * (lm / 3 next), else undone (lm x 10). It stops when the step moves no body by more than tolerance / 10,
 * the targets are met, or lm exceeds LM_MAX. */
static void phase_newton(assembly *as, ctn_assemble_report *rep) {
    const ctn_assemble_desc *d = as->desc;
    ctn_world *w = as->w;
    double tol = d->tolerance, lm = LM_START, g, a, e, dist;
    int budget = d->newton_iterations;
    /* without targets: to the tolerance, then on to the float32 floor while Newton still improves */
    double err = project_joints(as, rep, &budget, 0.0, d->target_count == 0);
    if (d->target_count == 0) return;
    evaluate(as, -1.0, &g, &a, &e, &dist);
    double scale = fmax(dist, tol); /* the metric's length: the targets' distance at the start */
    while (budget > 0 && dist > 0.1 * tol) {
        memcpy(as->outer, w->pose, (size_t)w->body_count * sizeof *w->pose);
        evaluate(as, lm, &g, &a, NULL, NULL);
        target_metric(as, scale);
        double moved = newton_move(as, MAX_TURN);
        --budget;
        rep->newton_iterations++;
        double err2 = project_joints(as, rep, &budget, scale, 1), e2, d2;
        evaluate(as, -1.0, &g, &a, &e2, &d2);
        if (err2 <= fmax(err, 100.0 * tol) && e2 < e && isfinite(e2)) {
            int done = moved <= 0.1 * tol;
            err = err2, e = e2, dist = d2;
            lm = fmax(lm / 3.0, LM_MIN);
            if (done) break;
        } else {
            poses_put(w, as->outer);
            lm *= 10.0;
            if (lm > LM_MAX) break;
        }
    }
    /* to the float32 floor: a chain pulled straight stretches by the sum of its joints' gaps */
    project_joints(as, rep, &budget, scale, 1);
}

/* ---- the call ---------------------------------------------------------------------------------------- */

static ctn_status check_desc(ctn_world *w, const ctn_assemble_desc *d) {
    if (!(d->tolerance > 0.0) || !isfinite(d->tolerance))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_assemble: tolerance %g must be finite and > 0", d->tolerance);
    if (!(d->gather_tolerance >= 0.0) || !isfinite(d->gather_tolerance))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_assemble: gather_tolerance %g must be finite and >= 0", d->gather_tolerance);
    if (d->gather_iterations < 0 || d->newton_iterations < 0)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_assemble: gather_iterations %d and newton_iterations %d must be >= 0",
                         d->gather_iterations, d->newton_iterations);
    if (d->target_count < 0 || (d->target_count > 0 && !d->targets))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_assemble: target_count %d with targets %s", d->target_count,
                         d->targets ? "set" : "NULL");
    for (int k = 0; k < d->target_count; ++k) {
        const ctn_assemble_target *t = &d->targets[k];
        char field[64];
        snprintf(field, sizeof field, "ctn_world_assemble: targets[%d].body", k);
        int i = ctn__body_index(w, t->body, field, 0);
        if (i < 0) return w->handle_status;
        if (!(w->props[i].flags & CTN_BODY_FLAG_DYNAMIC))
            return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: body %lld is not dynamic", field, (long long)ctn_body_id_to_int(t->body));
        for (int c = 0; c < 3; ++c)
            if (!isfinite(t->point[c]) || !isfinite(t->target[c]))
                return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_assemble: targets[%d] has a non-finite point or target", k);
        if (!(t->weight > 0.0) || !isfinite(t->weight))
            return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_assemble: targets[%d].weight %g must be finite and > 0", k, t->weight);
    }
    return CTN_OK;
}

/* "body H \"name\"" or "the world" */
static void body_label(const ctn_world *w, int i, char *out, size_t size) {
    const char *name = i >= 0 && w->body_names && i < w->body_names_capacity ? w->body_names[i] : NULL;
    if (i < 0) snprintf(out, size, "the world");
    else if (name) snprintf(out, size, "body %lld \"%s\"", (long long)ctn_body_id_to_int(ctn__body_handle(w, i)), name);
    else snprintf(out, size, "body %lld", (long long)ctn_body_id_to_int(ctn__body_handle(w, i)));
}

/* The joints above the tolerance, named in the world's error: "joint H (bodies A, B) gap X m, angle Y rad". */
static int name_open_joints(assembly *as, char *msg, size_t size) {
    ctn_world *w = as->w;
    ctn_topology *t = &w->topo;
    int open = 0;
    size_t len = 0;
    msg[0] = '\0';
    for (int s = 0; s < t->joint_count; ++s) {
        const ctn_joint_def d_def = ctn_joint_at(ctn__topo_joints(t), s), *d = &d_def;
        const double *g = &as->g[6 * s];
        if (d->flags & CTN_JF_ASSEMBLE_TARGET) continue;
        double l2 = 0.0, a2 = 0.0;
        for (int k = 0; k < ctn_block_rows(&as->blocks[s]); ++k) *(k < as->blocks[s].n_lin ? &l2 : &a2) += g[k] * g[k];
        if (sqrt(l2) <= as->desc->tolerance && sqrt(a2) <= as->desc->tolerance) continue;
        int id = t->order[s];
        if (open++ < 8 && len + 1 < size) {
            char a[96], b[96];
            body_label(w, d->a, a, sizeof a);
            body_label(w, d->b, b, sizeof b);
            int n = snprintf(msg + len, size - len, "%sjoint %lld (%s to %s) gap %.3g m, angle %.3g rad", open > 1 ? "; " : "",
                             (long long)ctn_joint_id_to_int(ctn__joint_handle(w, id)), a, b, sqrt(l2), sqrt(a2));
            if (n > 0) len += (size_t)n < size - len ? (size_t)n : size - len - 1;
        }
    }
    return open;
}

/* Takes the target joints out again and gives their slots back: the slot counts are those before the call,
 * so the world's handles are as if the targets had never been there. */
static void remove_targets(ctn_world *w, int joint_count, int free_count) {
    for (int id = joint_count; id < w->joint_count; ++id)
        if (w->joint_alive[id]) ctn__joint_kill(w, id);
    ctn__joint_table_truncate(w, joint_count);
    w->joint_free_count = free_count;
}

typedef struct saved_state {
    ctn_pose *pose;
    ctn_vel *vel;
    float *lambda; /* [6 joint ids]: CTN_MAX_ROWS a joint, whatever the layout's row stride */
} saved_state;

static ctn_status save_state(ctn_world *w, saved_state *sv) {
    size_t n = (size_t)w->body_count, m = (size_t)w->joint_count;
    sv->pose = ctn__malloc((n ? n : 1) * sizeof *sv->pose);
    sv->vel = ctn__malloc((n ? n : 1) * sizeof *sv->vel);
    sv->lambda = ctn__calloc(6 * (m ? m : 1), sizeof *sv->lambda);
    if (!sv->pose || !sv->vel || !sv->lambda) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "ctn_world_assemble: out of memory (%zu bodies)", n);
    if (n > 0) { /* an empty world has no arrays (memcpy from NULL is undefined even for 0 bytes) */
        memcpy(sv->pose, w->pose, n * sizeof *sv->pose);
        memcpy(sv->vel, w->vel, n * sizeof *sv->vel);
    }
    for (size_t id = 0; id < m; ++id) {
        int slot = w->joint_alive[id] ? ctn__joint_layout_slot(w, id) : -1;
        for (int k = 0; k < 6 && slot >= 0; ++k) sv->lambda[6 * id + k] = CTN_LAM(w->topo.lambda, w->topo.stride, slot, k);
    }
    return CTN_OK;
}

/* The velocities and impulses after the call: those saved (refused, or desc.keep_velocities) or zero. */
static void finish_state(ctn_world *w, const saved_state *sv, int restore_pose, int keep) {
    int n = w->body_count;
    if (restore_pose && n > 0) memcpy(w->pose, sv->pose, (size_t)n * sizeof *w->pose);
    for (int i = 0; i < n; ++i) {
        w->vel[i] = sv->vel[i];
        if (!keep) w->vel[i].v = w->vel[i].w = ctn_v3_zero();
        ctn_inertia_body(i, w->pose, w->props, w->inertia);
    }
    for (int id = 0; id < w->joint_count; ++id) {
        int slot = w->joint_alive[id] ? ctn__joint_layout_slot(w, id) : -1;
        if (slot < 0) continue;
        for (int k = 0; k < w->topo.stride; ++k) w->topo.lambda[w->topo.stride * slot + k] = keep ? sv->lambda[6 * id + k] : 0.0f;
    }
    w->bodies_dirty = 1;
}

static void quiet_log(ctn_log_level level, const char *message, void *user) { (void)level, (void)message, (void)user; }

static ctn_status assemble_run(assembly *as, ctn_assemble_report *rep) {
    ctn_world *w = as->w;
    int m = w->topo.joint_count;
    as->blocks = ctn__malloc((size_t)(m ? m : 1) * sizeof *as->blocks);
    as->g = ctn__calloc(6 * (size_t)(m ? m : 1), sizeof *as->g);
    as->base = ctn__calloc((size_t)(m ? m : 1), sizeof *as->base);
    as->keep = ctn__malloc((size_t)(w->body_count ? w->body_count : 1) * sizeof *as->keep);
    as->outer = ctn__malloc((size_t)(w->body_count ? w->body_count : 1) * sizeof *as->outer);
    as->best = ctn__malloc((size_t)(w->body_count ? w->body_count : 1) * sizeof *as->best);
    if (!as->blocks || !as->g || !as->base || !as->keep || !as->outer || !as->best)
        return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "ctn_world_assemble: out of memory (%d joints)", m);
    target_scales(as);
    double e;
    evaluate(as, 1.0, &rep->initial_gap, &rep->initial_angle, &e, &rep->target_distance);
    if (m > 0 && fmax(rep->initial_gap, rep->initial_angle) > as->desc->gather_tolerance) {
        ctn_status s = phase_gather(as, rep);
        if (s != CTN_OK) return s;
    }
    if (m > 0) {
        /* the Newton steps' factor before the first of them: out of memory fails the call (the world is
         * restored) instead of solving by Gauss-Seidel */
        ctn_status s = ctn__direct_prepare(w);
        if (s != CTN_OK) return s;
        /* the direct solver's notes on the layout with the temporary target joints (rows it leaves to
         * Gauss-Seidel) describe no layout the user built: not logged */
        ctn_log_fn log = w->desc.log;
        void *log_user = w->desc.log_user;
        w->desc.log = quiet_log, w->desc.log_user = NULL;
        phase_newton(as, rep);
        w->desc.log = log, w->desc.log_user = log_user;
    }
    evaluate(as, 1.0, &rep->max_gap, &rep->max_angle, &e, &rep->target_distance);
    return CTN_OK;
}

ctn_status ctn_world_assemble(ctn_world *w, const ctn_assemble_desc *din, ctn_assemble_report *rep_out) {
    CTN__ENTER(w);
    ctn__inertia_fresh(w); /* assembly reads and writes them outside a step's stages */
    ctn_assemble_desc d = din ? *din : ctn_assemble_desc_default();
    ctn_assemble_report rep;
    memset(&rep, 0, sizeof rep);
    ctn_status st = check_desc(w, &d);
    if (st == CTN_OK && ctn_world_attachment_count(w) > 0)
        st = ctn__fail(w, CTN_ERR_UNSUPPORTED, "ctn_world_assemble: the world has %d attached bodies; assembly with attachments is not supported",
                       ctn_world_attachment_count(w));
    if (st == CTN_OK) st = ctn__sync(w);
    if (st == CTN_OK && w->topology_dirty) st = ctn__topology_build(w);
    if (st != CTN_OK) return st;
    saved_state sv = {NULL, NULL, NULL};
    assembly as;
    memset(&as, 0, sizeof as);
    as.w = w, as.desc = &d;
    int joint_count = w->joint_count, free_count = w->joint_free_count;
    st = save_state(w, &sv);
    int saved = st == CTN_OK; /* else nothing changed, and the copies may be partial */
    if (st == CTN_OK) st = add_targets(&as);
    if (st == CTN_OK) st = ctn__topology_build(w);
    if (st == CTN_OK) st = assemble_run(&as, &rep);
    char open_msg[1024] = "";
    if (st == CTN_OK) rep.open_joints = name_open_joints(&as, open_msg, sizeof open_msg);
    for (int i = 0; st == CTN_OK && i < w->body_count; ++i) {
        double a[3], b[3];
        ctn__pose_get_position(&sv.pose[i], a);
        ctn__pose_get_position(&w->pose[i], b);
        rep.max_move = fmax(rep.max_move, sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2])));
    }
    int refused = st != CTN_OK || rep.open_joints > 0;
    if (w->joint_count > joint_count) remove_targets(w, joint_count, free_count);
    ctn_status st2 = w->topology_dirty ? ctn__topology_build(w) : CTN_OK;
    if (saved) finish_state(w, &sv, refused, refused || d.keep_velocities);
    if (st == CTN_OK && st2 != CTN_OK) st = st2;
    if (st == CTN_OK && rep.open_joints > 0)
        st = ctn__fail(w, CTN_ERR_INVALID_ARGUMENT,
                       "ctn_world_assemble: %d joint(s) cannot be closed to the tolerance %g (best reached after %d gather and %d Newton "
                       "iterations: %s%s); the world is unchanged",
                       rep.open_joints, d.tolerance, rep.gather_iterations, rep.newton_iterations, open_msg, rep.open_joints > 8 ? "; ..." : "");
    ctn__free(sv.pose), ctn__free(sv.vel), ctn__free(sv.lambda);
    ctn__free(as.blocks), ctn__free(as.g), ctn__free(as.base), ctn__free(as.keep), ctn__free(as.outer), ctn__free(as.best);
    if (rep_out) *rep_out = rep;
    return st;
}
