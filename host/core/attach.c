/* Attachments: a body welded to a master body by eliminating its degrees of freedom instead of adding
 * constraint rows (Lloyd 2012, "ArtiSynth notes", section on attachments; docs/design.md section
 * "Attachments").
 *
 * The attached body's velocity is a linear function of the master's, v_p = G v_m with G = [I, -[r]x]
 * (r: the attached centre of mass relative to the master's, world frame). Eliminating v_p:
 *   - every row J_p on the attached body becomes a row J_p G on the master: the same row with its anchor
 *     moved by the attachment offset (ctn__attach_map_def, used by the topology build, so every solver and
 *     both backends see ordinary two-body rows, coloured with the master);
 *   - the master's mass matrix becomes M_m + G^T M_p G, which is the mass matrix of the composite rigid body.
 *     With the solver's body model (scalar mass, principal moments about the centre of mass) this is exact
 *     only about the composite centre of mass and along its principal axes, so a dynamic master is stepped
 *     as the composite: position c (the composite centre of mass), orientation q_m q_off (its principal
 *     axes), mass and principal moments of the composite (parallel-axis theorem). The master keeps its own
 *     pose outside the step: ctn__attach_enter converts before the step and ctn__attach_leave after it, as
 *     Box2D keeps a body's origin apart from its centre of mass (Catto, b2Body localCenter).
 * Between steps the composite of the last step is cached with the master state derived from it; the next
 * step starts from the cached composite unless the master was edited, so the conversion adds no rounding
 * to a run. */
#include "core/attach.h"
#include "core/dmat3.h"
#include "core/dquat.h"
#include "core/joint_kinds.h"

#include <string.h>

int ctn__attach_link_of(const ctn_world *w, int i) {
    const ctn_attachments *a = w->attach;
    return a && i >= 0 && i < a->map_size ? a->link_of[i] : -1;
}

int ctn__attach_group_of(const ctn_world *w, int i) {
    const ctn_attachments *a = w->attach;
    return a && i >= 0 && i < a->map_size ? a->group_of[i] : -1;
}

static ctn_dquat dq_of4(const double q[4]) {
    ctn_dquat r = {q[0], q[1], q[2], q[3]};
    return r;
}
static void dq_store(ctn_dquat q, double out[4]) { out[0] = q.w, out[1] = q.x, out[2] = q.y, out[3] = q.z; }

/* ---- composite mass properties ------------------------------------------------------------------ */

/* I += m (|d|^2 1 - d d^T): a point mass m at d (parallel-axis theorem). */
static void add_point_inertia(double I[3][3], double m, const double d[3]) {
    double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) I[i][j] += m * ((i == j ? d2 : 0.0) - d[i] * d[j]);
}

/* I += R diag(moments) R^T, R = R(q): a rigid body's own inertia turned into the master frame. */
static void add_body_inertia(double I[3][3], ctn_dquat q, ctn_v3 inv_moments) {
    double moments[3] = {1.0 / inv_moments.x, 1.0 / inv_moments.y, 1.0 / inv_moments.z};
    for (int k = 0; k < 3; ++k) {
        double axis[3] = {k == 0, k == 1, k == 2}, u[3];
        ctn_dq_rotate(q, axis, u);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) I[i][j] += moments[k] * u[i] * u[j];
    }
}

/* The composite of group g from its links and the master's own mass properties (user values: called
 * outside a step). */
static void group_compute(const ctn_world *w, ctn_attach_group *g) {
    const ctn_attachments *a = w->attach;
    int m = g->master;
    g->links = 0;
    for (int k = 0; k < a->link_count; ++k) g->links += a->links[k].master == m;
    g->composite = (w->props[m].flags & CTN_BODY_FLAG_DYNAMIC) != 0;
    if (!g->composite) return;
    double mass = 1.0 / (double)w->inertia[m].inv_mass, first[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < a->link_count; ++k) {
        const ctn_attach_link *l = &a->links[k];
        if (l->master != m) continue;
        double mk = 1.0 / (double)w->inertia[l->body].inv_mass;
        mass += mk;
        for (int i = 0; i < 3; ++i) first[i] += mk * l->local[i];
    }
    double c[3] = {first[0] / mass, first[1] / mass, first[2] / mass}, I[3][3] = {{0}}, mc[3] = {-c[0], -c[1], -c[2]};
    ctn_dquat id = {1.0, 0.0, 0.0, 0.0};
    add_body_inertia(I, id, w->props[m].inv_inertia_body);
    add_point_inertia(I, 1.0 / (double)w->inertia[m].inv_mass, mc);
    for (int k = 0; k < a->link_count; ++k) {
        const ctn_attach_link *l = &a->links[k];
        if (l->master != m) continue;
        double d[3] = {l->local[0] - c[0], l->local[1] - c[1], l->local[2] - c[2]};
        add_point_inertia(I, 1.0 / (double)w->inertia[l->body].inv_mass, d);
        if (!l->particle) add_body_inertia(I, dq_of4(l->q_rel), w->props[l->body].inv_inertia_body);
    }
    double e[3], V[3][3];
    ctn__sym3_eigen((const double(*)[3])I, e, V);
    memcpy(g->c_local, c, sizeof c);
    dq_store(ctn__dq_of_matrix((const double(*)[3])V), g->q_off);
    g->inv_mass = (float)(1.0 / mass);
    g->inv_moments = ctn_v3_make((float)(1.0 / e[0]), (float)(1.0 / e[1]), (float)(1.0 / e[2]));
    g->cached = 0;
}

/* ---- storage -------------------------------------------------------------------------------------- */

static int grow(void *p, int *capacity, int need, size_t size) {
    if (need <= *capacity) return 1;
    int cap = need + need / 2 + 4;
    void *q = ctn__realloc(*(void **)p, (size_t)cap * size);
    if (!q) return 0;
    *(void **)p = q;
    *capacity = cap;
    return 1;
}

/* Room for one more link and group and maps over every body slot; nothing changes on failure but sizes. */
static ctn_status reserve(ctn_world *w) {
    if (!w->attach && !(w->attach = ctn__calloc(1, sizeof *w->attach)))
        return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory adding an attachment");
    ctn_attachments *a = w->attach;
    int map_cap = a->map_size, map_cap2 = a->map_size;
    if (!grow(&a->links, &a->link_capacity, a->link_count + 1, sizeof *a->links) ||
        !grow(&a->groups, &a->group_capacity, a->group_count + 1, sizeof *a->groups) ||
        !grow(&a->link_pre, &a->pre_capacity, a->link_count + 1, sizeof *a->link_pre) ||
        !grow(&a->link_of, &map_cap, w->body_count, sizeof *a->link_of) ||
        !grow(&a->group_of, &map_cap2, w->body_count, sizeof *a->group_of))
        return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory adding an attachment");
    return CTN_OK;
}

/* The body -> link and master -> group maps over the first `size` slots. */
static void maps_build(ctn_attachments *a, int size) {
    a->map_size = size;
    for (int i = 0; i < size; ++i) a->link_of[i] = a->group_of[i] = -1;
    for (int k = 0; k < a->link_count; ++k) a->link_of[a->links[k].body] = k;
    for (int g = 0; g < a->group_count; ++g) a->group_of[a->groups[g].master] = g;
}

/* Position (double) and orientation of body slot i. */
static void pose_of(const ctn_world *w, int i, double x[3], ctn_dquat *q) {
    ctn__pose_get_position(&w->pose[i], x);
    *q = ctn_dq_of(w->pose[i].q);
}

/* The attached body of link l placed on its master (user state): x = x_m + R_m r, q = q_m q_rel,
 * v = v_m + w_m x R_m r, w = w_m. */
static void derive(ctn_world *w, const ctn_attach_link *l) {
    int m = l->master, i = l->body;
    double xm[3], r[3], wm[3], wr[3], x[3];
    ctn_dquat qm;
    pose_of(w, m, xm, &qm);
    ctn_dq_rotate(qm, l->local, r);
    for (int k = 0; k < 3; ++k) x[k] = xm[k] + r[k];
    ctn__pose_set_position(&w->pose[i], x);
    w->pose[i].q = l->particle ? ctn_quat_identity() : ctn_dq_to_float(ctn_dq_mul(qm, dq_of4(l->q_rel)));
    ctn_d3_of(w->vel[m].w, wm);
    ctn_d3_cross(wm, r, wr);
    double v[3] = {w->vel[m].v.x + wr[0], w->vel[m].v.y + wr[1], w->vel[m].v.z + wr[2]};
    w->vel[i].v = ctn_d3_to_float(v);
    w->vel[i].w = l->particle ? ctn_v3_zero() : w->vel[m].w;
    w->inertia[i].inv_inertia = ctn_body_inverse_inertia(w->pose[i], w->props[i]);
}

/* Adds link l (validated; room reserved). */
static void link_insert(ctn_world *w, const ctn_attach_link *l) {
    ctn_attachments *a = w->attach;
    a->links[a->link_count++] = *l;
    int g = ctn__attach_group_of(w, l->master);
    if (g < 0) {
        g = a->group_count++;
        memset(&a->groups[g], 0, sizeof a->groups[g]);
        a->groups[g].master = l->master;
    }
    maps_build(a, w->body_count);
    group_compute(w, &a->groups[g]);
    w->topology_dirty = 1;
    w->bodies_dirty = 1;
}

/* Removes link k; its master's group shrinks (or goes). */
static void link_remove(ctn_world *w, int k) {
    ctn_attachments *a = w->attach;
    int m = a->links[k].master, g = ctn__attach_group_of(w, m);
    a->links[k] = a->links[--a->link_count];
    if (a->groups[g].links == 1) a->groups[g] = a->groups[--a->group_count];
    maps_build(a, a->map_size);
    g = ctn__attach_group_of(w, m);
    if (g >= 0) group_compute(w, &a->groups[g]);
    w->topology_dirty = 1;
    w->bodies_dirty = 1;
}

ctn_status ctn__attach_forget(ctn_world *w, int i) {
    int k = ctn__attach_link_of(w, i);
    if (k >= 0) link_remove(w, k);
    return CTN_OK;
}

void ctn__attach_free(ctn_world *w) {
    ctn_attachments *a = w->attach;
    if (!a) return;
    ctn__free(a->links);
    ctn__free(a->groups);
    ctn__free(a->link_pre);
    ctn__free(a->link_of);
    ctn__free(a->group_of);
    ctn__free(a);
    w->attach = NULL;
}

/* ---- rows onto the master ------------------------------------------------------------------------ */

/* How a body's frame sits in the frame of the body its rows act on in the step: x_solver = o + R(q) x_body. */
typedef struct frame_map {
    int body;  /* the solver body (< 0: the world) */
    int moved; /* not the identity on the body itself */
    double o[3];
    ctn_dquat q;
} frame_map;

static frame_map map_of(const ctn_world *w, int i) {
    frame_map f = {i, 0, {0.0, 0.0, 0.0}, {1.0, 0.0, 0.0, 0.0}};
    int k = ctn__attach_link_of(w, i), g = ctn__attach_group_of(w, i);
    if (k < 0 && g < 0) return f;
    const ctn_attachments *a = w->attach;
    f.moved = 1;
    if (k >= 0) {
        const ctn_attach_link *l = &a->links[k];
        f.body = l->master;
        memcpy(f.o, l->local, sizeof f.o);
        /* a particle's frame is the world's: relative to the master it turns with the master's orientation now */
        f.q = l->particle ? ctn_dq_conj(ctn_dq_of(w->pose[l->master].q)) : dq_of4(l->q_rel);
        g = ctn__attach_group_of(w, l->master);
    }
    const ctn_attach_group *gr = &a->groups[g];
    if (gr->composite) { /* into the composite frame: x_c = R(q_off)^T (x_master - c) */
        ctn_dquat back = ctn_dq_conj(dq_of4(gr->q_off));
        double d[3] = {f.o[0] - gr->c_local[0], f.o[1] - gr->c_local[1], f.o[2] - gr->c_local[2]};
        ctn_dq_rotate(back, d, f.o);
        f.q = ctn_dq_mul(back, f.q);
    }
    return f;
}

static ctn_v3 map_point(const frame_map *f, ctn_v3 p) {
    double x[3], y[3];
    ctn_d3_of(p, x);
    ctn_dq_rotate(f->q, x, y);
    for (int k = 0; k < 3; ++k) y[k] += f->o[k];
    return ctn_d3_to_float(y);
}

static ctn_v3 map_axis(const frame_map *f, ctn_v3 v) {
    double x[3], y[3];
    ctn_d3_of(v, x);
    ctn_dq_rotate(f->q, x, y);
    return ctn_d3_to_float(y);
}

int ctn__attach_map_def(const ctn_world *w, ctn_joint_def *d) {
    frame_map fa = map_of(w, d->a), fb = map_of(w, d->b);
    if (!fa.moved && !fb.moved) return 1;
    if (fa.body == fb.body) return 0;
    d->a = fa.body;
    d->b = fb.body;
    d->anchor_a = map_point(&fa, d->anchor_a);
    d->anchor_b = map_point(&fb, d->anchor_b);
    /* contacts keep both directions in body b's frame (kernels/ctn_types.h) */
    d->axis_a = map_axis(d->type == CTN_JT_CONTACT ? &fb : &fa, d->axis_a);
    d->axis_b = map_axis(&fb, d->axis_b);
    /* rest orientation conj(q_a) q_b with q_body = q_solver q_map: conj(q_map_a') ... -> q_map_a rel conj(q_map_b) */
    ctn_dquat rel = {d->rel_q.w, d->rel_q.x, d->rel_q.y, d->rel_q.z};
    d->rel_q = ctn_dq_to_float(ctn_dq_mul(ctn_dq_mul(fa.q, rel), ctn_dq_conj(fb.q)));
    return 1;
}

/* ---- around a step ------------------------------------------------------------------------------- */

/* Slot i's state into / out of s. Within a step the user forces' array neither comes nor goes (only the API
 * calls between steps do that, host/core/body_force.c): where it is absent, s->force is zero and stays so. */
static void body_save(const ctn_world *w, int i, ctn_attach_body *s) {
    s->pose = w->pose[i], s->vel = w->vel[i], s->inertia = w->inertia[i], s->props = w->props[i];
    s->force = ctn__body_force_get(w, i);
}
static void body_put(ctn_world *w, int i, const ctn_attach_body *s) {
    w->pose[i] = s->pose, w->vel[i] = s->vel, w->inertia[i] = s->inertia, w->props[i] = s->props;
    if (w->body_force) w->body_force[i] = s->force;
}

void ctn__attach_enter(ctn_world *w) {
    ctn_attachments *a = w->attach;
    if (!a || a->link_count == 0) return;
    ctn__inertia_fresh(w); /* the bodies are kept whole, inertias included */
    /* A failed step must leave the world as it was, and the round trip user -> composite -> user of a master
     * that was not cached (the first step, an edited master) is not exact in floating point: what the step
     * starts from is kept, for ctn__attach_leave to put back. */
    for (int k = 0; k < a->link_count; ++k) body_save(w, a->links[k].body, &a->link_pre[k]);
    for (int g = 0; g < a->group_count; ++g) {
        ctn_attach_group *gr = &a->groups[g];
        body_save(w, gr->master, &gr->pre_master);
        gr->pre_cached = gr->cached;
        gr->pre_comp_pose = gr->comp_pose, gr->pre_user_pose = gr->user_pose;
        gr->pre_comp_vel = gr->comp_vel, gr->pre_user_vel = gr->user_vel;
    }
    for (int g = 0; g < a->group_count; ++g) {
        ctn_attach_group *gr = &a->groups[g];
        if (!gr->composite) continue;
        int m = gr->master;
        ctn_props *pm = &w->props[m];
        gr->own_inv_mass = w->inertia[m].inv_mass;
        ctn_body_force own = ctn__body_force_get(w, m);
        gr->own_inv_inertia = pm->inv_inertia_body, gr->own_force = own.force, gr->own_torque = own.torque;
        double xm[3], d[3], c[3], wm[3], wd[3];
        ctn_dquat qm;
        pose_of(w, m, xm, &qm);
        ctn_dq_rotate(qm, gr->c_local, d);
        for (int k = 0; k < 3; ++k) c[k] = xm[k] + d[k];
        pm->inv_inertia_body = gr->inv_moments;
        w->inertia[m].inv_mass = gr->inv_mass;
        if (gr->cached && !memcmp(&w->pose[m], &gr->user_pose, sizeof gr->user_pose) && !memcmp(&w->vel[m], &gr->user_vel, sizeof gr->user_vel)) {
            w->pose[m] = gr->comp_pose; /* the composite the last step ended with, unchanged */
            w->vel[m] = gr->comp_vel;
        } else {
            ctn__pose_set_position(&w->pose[m], c);
            w->pose[m].q = ctn_dq_to_float(ctn_dq_mul(qm, dq_of4(gr->q_off)));
            ctn_d3_of(w->vel[m].w, wm);
            ctn_d3_cross(wm, d, wd);
            double v[3] = {w->vel[m].v.x + wd[0], w->vel[m].v.y + wd[1], w->vel[m].v.z + wd[2]};
            w->vel[m].v = ctn_d3_to_float(v);
            w->inertia[m].inv_inertia = ctn_body_inverse_inertia(w->pose[m], *pm);
        }
        /* user forces: the sum at the composite centre of mass, with the torque of their lever arms at the
         * start of the step (tau += (x_i - c) x f_i). A world without them sums +0.0 only (x * 0 is +-0.0 for
         * finite x, and +0.0 + -0.0 = +0.0): the master's stays zero, as the world keeps it. */
        if (!w->body_force) continue;
        double f[3], t[3], fi[3], ti[3], arm[3], xi[3];
        ctn_d3_of(gr->own_force, f);
        ctn_d3_of(gr->own_torque, t);
        for (int k = 0; k < 3; ++k) arm[k] = -d[k];
        ctn_d3_cross(arm, f, ti);
        for (int k = 0; k < 3; ++k) t[k] += ti[k];
        for (int n = 0; n < a->link_count; ++n) {
            const ctn_attach_link *l = &a->links[n];
            if (l->master != m) continue;
            ctn_d3_of(w->body_force[l->body].force, fi);
            ctn_d3_of(w->body_force[l->body].torque, ti);
            ctn__pose_get_position(&w->pose[l->body], xi);
            for (int k = 0; k < 3; ++k) f[k] += fi[k], t[k] += ti[k], arm[k] = xi[k] - c[k];
            ctn_d3_cross(arm, fi, ti);
            for (int k = 0; k < 3; ++k) t[k] += ti[k];
        }
        w->body_force[m].force = ctn_d3_to_float(f);
        w->body_force[m].torque = ctn_d3_to_float(t);
    }
    /* the attached bodies sit the step out: no forces, no integration, no rows (theirs act on the master) */
    for (int k = 0; k < a->link_count; ++k) w->props[a->links[k].body].flags &= ~CTN_BODY_FLAG_DYNAMIC;
    w->bodies_dirty = 1;
}

void ctn__attach_leave(ctn_world *w, int failed) {
    ctn_attachments *a = w->attach;
    if (!a || a->link_count == 0) return;
    if (failed) {
        for (int g = 0; g < a->group_count; ++g) {
            ctn_attach_group *gr = &a->groups[g];
            body_put(w, gr->master, &gr->pre_master);
            gr->cached = gr->pre_cached;
            gr->comp_pose = gr->pre_comp_pose, gr->user_pose = gr->pre_user_pose;
            gr->comp_vel = gr->pre_comp_vel, gr->user_vel = gr->pre_user_vel;
        }
        for (int k = 0; k < a->link_count; ++k) body_put(w, a->links[k].body, &a->link_pre[k]);
        w->bodies_dirty = 1;
        return;
    }
    for (int g = 0; g < a->group_count; ++g) {
        ctn_attach_group *gr = &a->groups[g];
        if (!gr->composite) continue;
        int m = gr->master;
        gr->comp_pose = w->pose[m];
        gr->comp_vel = w->vel[m];
        double c[3], d[3], wm[3], wd[3], x[3];
        ctn__pose_get_position(&w->pose[m], c);
        ctn_dquat qm = ctn_dq_mul(ctn_dq_of(w->pose[m].q), ctn_dq_conj(dq_of4(gr->q_off)));
        ctn_dq_rotate(qm, gr->c_local, d);
        for (int k = 0; k < 3; ++k) x[k] = c[k] - d[k];
        ctn__pose_set_position(&w->pose[m], x);
        w->pose[m].q = ctn_dq_to_float(qm);
        ctn_d3_of(w->vel[m].w, wm);
        ctn_d3_cross(wm, d, wd);
        double v[3] = {w->vel[m].v.x - wd[0], w->vel[m].v.y - wd[1], w->vel[m].v.z - wd[2]};
        w->vel[m].v = ctn_d3_to_float(v);
        w->inertia[m].inv_mass = gr->own_inv_mass;
        ctn_props *pm = &w->props[m];
        pm->inv_inertia_body = gr->own_inv_inertia;
        if (w->body_force) w->body_force[m].force = gr->own_force, w->body_force[m].torque = gr->own_torque;
        gr->user_pose = w->pose[m];
        gr->user_vel = w->vel[m];
        gr->cached = 1;
    }
    for (int k = 0; k < a->link_count; ++k) {
        w->props[a->links[k].body].flags |= CTN_BODY_FLAG_DYNAMIC;
        derive(w, &a->links[k]);
    }
    w->bodies_dirty = 1;
}

/* ---- public calls --------------------------------------------------------------------------------- */

/* The type of a joint on slot i that attachments refuse (CTN_JK_NO_ATTACH of the joint-type table: a
 * curve's data, a gear's world references), or -1. */
static int unattachable(const ctn_world *w, int i) {
    for (int j = 0; j < w->joint_count; ++j)
        if (w->joint_alive[j] && (ctn__jcore(w, j)->a == i || ctn__jcore(w, j)->b == i) && ctn__joint_kind_has(ctn__jcore(w, j)->type, CTN_JK_NO_ATTACH))
            return ctn__jcore(w, j)->type;
    return -1;
}

/* The checks of ctn_attach_point on slots i (attached) and m (master); CTN_OK or the failure recorded. */
static ctn_status check_pair(ctn_world *w, int i, int m, ctn_body_id body, ctn_body_id master) {
    const char *fn = "ctn_attach_point";
    if (i == m) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: body %lld cannot be attached to itself", fn, (long long)ctn_body_id_to_int(body));
    if (!(w->props[i].flags & CTN_BODY_FLAG_DYNAMIC))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: body %lld is not dynamic; only dynamic bodies can be attached", fn, (long long)ctn_body_id_to_int(body));
    if (w->props[m].flags & CTN_BODY_FLAG_PARTICLE)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: master %lld is a particle, which has no frame to carry a point; attach to a rigid body",
                         fn, (long long)ctn_body_id_to_int(master));
    int k = ctn__attach_link_of(w, i);
    if (k >= 0)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: body %lld is already attached to body %lld; ctn_attach_remove it first", fn,
                         (long long)ctn_body_id_to_int(body), (long long)ctn_body_id_to_int(ctn__body_handle(w, w->attach->links[k].master)));
    k = ctn__attach_link_of(w, m);
    if (k >= 0)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT,
                         "%s: master %lld is itself attached to body %lld; chains of attachments are not supported: attach to body %lld", fn,
                         (long long)ctn_body_id_to_int(master), (long long)ctn_body_id_to_int(ctn__body_handle(w, w->attach->links[k].master)),
                         (long long)ctn_body_id_to_int(ctn__body_handle(w, w->attach->links[k].master)));
    int g = ctn__attach_group_of(w, i);
    if (g >= 0)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT,
                         "%s: body %lld carries %d attached bodies; chains of attachments are not supported: attach those to body %lld directly",
                         fn, (long long)ctn_body_id_to_int(body), w->attach->groups[g].links, (long long)ctn_body_id_to_int(master));
    int ti = unattachable(w, i), tm = ti >= 0 ? ti : unattachable(w, m);
    if (tm >= 0) {
        char names[160];
        return ctn__fail(w, CTN_ERR_UNSUPPORTED, "%s: body %lld has a %s joint; %s joints on attached bodies and their masters are not supported",
                         fn, ti >= 0 ? (long long)ctn_body_id_to_int(body) : (long long)ctn_body_id_to_int(master),
                         ctn_joint_type_name((ctn_joint_type)tm), ctn__joint_kind_names(CTN_JK_NO_ATTACH, names, sizeof names));
    }
    return CTN_OK;
}

ctn_status ctn_attach_point(ctn_world *w, ctn_body_id body, ctn_body_id master, const double local_point[3]) {
    CTN__ENTER(w);
    if (ctn_body_is_world(master))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT,
                         "ctn_attach_point: master is CTN_WORLD; to weld a body to the world attach it to a static body");
    int i = ctn__body_index(w, body, "ctn_attach_point.body", 0);
    if (i < 0) return w->handle_status;
    int m = ctn__body_index(w, master, "ctn_attach_point.master", 0);
    if (m < 0) return w->handle_status;
    for (int k = 0; local_point && k < 3; ++k)
        if (!isfinite(local_point[k]))
            return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_attach_point: local_point[%d] = %g is not finite", k, local_point[k]);
    int bad = local_point ? ctn__length_bad(local_point, 3) : -1;
    if (bad >= 0)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_attach_point: local_point[%d] = %g m is farther from the master than CTN_MAX_LENGTH (%g m)",
                         bad, local_point[bad], CTN_MAX_LENGTH);
    ctn_status st = check_pair(w, i, m, body, master);
    if (st == CTN_OK) st = ctn__sync(w);
    if (st == CTN_OK) st = reserve(w);
    if (st != CTN_OK) return st;
    ctn_attach_link l;
    memset(&l, 0, sizeof l);
    l.body = i, l.master = m, l.particle = (w->props[i].flags & CTN_BODY_FLAG_PARTICLE) != 0;
    double xm[3], xi[3];
    ctn_dquat qm, qi;
    pose_of(w, m, xm, &qm);
    pose_of(w, i, xi, &qi);
    if (local_point) {
        memcpy(l.local, local_point, sizeof l.local);
    } else { /* where the body is now: R_m^T (x - x_m) */
        double d[3] = {xi[0] - xm[0], xi[1] - xm[1], xi[2] - xm[2]};
        ctn_dq_rotate(ctn_dq_conj(qm), d, l.local);
    }
    dq_store(ctn_dq_mul(ctn_dq_conj(qm), qi), l.q_rel);
    link_insert(w, &l);
    derive(w, &w->attach->links[w->attach->link_count - 1]);
    return CTN_OK;
}

ctn_status ctn_attach_remove(ctn_world *w, ctn_body_id body) {
    CTN__ENTER(w);
    int i = ctn__body_index(w, body, "ctn_attach_remove", 0);
    if (i < 0) return w->handle_status;
    int k = ctn__attach_link_of(w, i);
    if (k < 0) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_attach_remove: body %lld is not attached", (long long)ctn_body_id_to_int(body));
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    link_remove(w, k); /* the body goes on from the state derived at the end of the last step */
    return CTN_OK;
}

ctn_status ctn_attach_get(ctn_world *w, ctn_body_id body, ctn_body_id *master, double local_point[3]) {
    CTN__ENTER(w);
    if (!master) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_attach_get: master is NULL");
    int i = ctn__body_index(w, body, "ctn_attach_get", 0);
    if (i < 0) return w->handle_status;
    int k = ctn__attach_link_of(w, i);
    *master = k < 0 ? CTN_WORLD : ctn__body_handle(w, w->attach->links[k].master);
    if (local_point) {
        for (int n = 0; n < 3; ++n) local_point[n] = k < 0 ? 0.0 : w->attach->links[k].local[n];
    }
    return CTN_OK;
}

int ctn_world_attachment_count(const ctn_world *w) { return w && w->attach ? w->attach->link_count : 0; }

/* ---- checkpoints ---------------------------------------------------------------------------------- */

ctn_status ctn__attach_restore_link(ctn_world *w, const ctn_attach_link *l) {
    int i = l->body, m = l->master;
    if (i < 0 || i >= w->body_count || m < 0 || m >= w->body_count || !(w->props[i].flags & CTN_BODY_FLAG_ALIVE) ||
        !(w->props[m].flags & CTN_BODY_FLAG_ALIVE) || l->particle != ((w->props[i].flags & CTN_BODY_FLAG_PARTICLE) != 0))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "attachment of body slot %d to slot %d: not two live bodies", i, m);
    for (int k = 0; k < 3; ++k)
        if (!isfinite(l->local[k])) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "attachment of body slot %d: non-finite point", i);
    double n = l->q_rel[0] * l->q_rel[0] + l->q_rel[1] * l->q_rel[1] + l->q_rel[2] * l->q_rel[2] + l->q_rel[3] * l->q_rel[3];
    if (!(fabs(n - 1.0) < 1e-6)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "attachment of body slot %d: not a unit quaternion", i);
    ctn_status st = check_pair(w, i, m, ctn__body_handle(w, i), ctn__body_handle(w, m));
    if (st == CTN_OK) st = reserve(w);
    if (st == CTN_OK) link_insert(w, l);
    return st;
}

ctn_status ctn__attach_restore_cache(ctn_world *w, const ctn_attach_group *saved) {
    int g = ctn__attach_group_of(w, saved->master);
    if (g < 0) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "attachment cache of body slot %d: not a master", saved->master);
    ctn_attach_group *gr = &w->attach->groups[g];
    gr->cached = saved->cached != 0;
    gr->comp_pose = saved->comp_pose, gr->user_pose = saved->user_pose;
    gr->comp_vel = saved->comp_vel, gr->user_vel = saved->user_vel;
    return CTN_OK;
}
