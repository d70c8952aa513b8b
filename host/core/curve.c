/* Curve constraints ("bead on a wire", Witkin and Baraff 2001): validation, creation, the description
 * read back, and the polylines' vertex arrays with the per-step re-centring of their windows. The rows are
 * in kernels/ctn_rows.h (CTN_JT_CURVE), the closest-point geometry in kernels/ctn_curve.h. */
#include "core/alloc.h"
#include "core/world.h"
#include "core/attach.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(CTN_JOINT_CURVE == CTN_JT_CURVE, "ctn_joint_type and CTN_JT_* disagree");
_Static_assert(CTN_CURVE_LINE == CTN_CK_LINE && CTN_CURVE_CIRCLE == CTN_CK_CIRCLE && CTN_CURVE_HELIX == CTN_CK_HELIX &&
                   CTN_CURVE_POLYLINE == CTN_CK_POLYLINE,
               "ctn_curve_type and CTN_CK_* disagree");

ctn_curve_desc ctn_curve_desc_default(ctn_curve_type type) {
    ctn_curve_desc d;
    memset(&d, 0, sizeof d);
    d.type = type;
    d.body = CTN_NULL_BODY;
    d.frame = CTN_WORLD;
    d.axis[2] = 1.0;
    d.radius = 1.0;
    d.compliance = -1.0;
    d.damping_time = -1.0;
    d.stabilization = CTN_CURVE_STAB_VELOCITY;
    d.ks = 400.0;
    d.kd = 40.0;
    return d;
}

static int finite3(const double v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }
static double len3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* ---- polylines --------------------------------------------------------------------------------- */

static int poly_segments(const ctn_polyline *p) { return p->closed ? p->count : p->count - 1; }

/* Squared distance from x to segment s and its parameter u (unclamped at the open ends of the polyline,
 * as the kernels' window). */
static double seg_dist2(const ctn_polyline *p, int s, const double x[3], double *u_out) {
    int n = p->count;
    const double *a = &p->points[3 * s], *b = &p->points[3 * ((s + 1) % n)];
    double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, r[3] = {x[0] - a[0], x[1] - a[1], x[2] - a[2]};
    double l2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    double u = l2 > 0.0 ? (r[0] * d[0] + r[1] * d[1] + r[2] * d[2]) / l2 : 0.0;
    if (u < 0.0 && !(s == 0 && !p->closed)) u = 0.0;
    if (u > 1.0 && !(s == poly_segments(p) - 1 && !p->closed)) u = 1.0;
    double e[3] = {r[0] - u * d[0], r[1] - u * d[1], r[2] - u * d[2]};
    if (u_out) *u_out = u;
    return e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
}

/* Segment nearest x by a local walk from segment s: move to a neighbour while it is strictly nearer, so a
 * bead keeps its branch where the wire passes close to itself (a global search would jump). */
static int poly_walk(const ctn_polyline *p, const double x[3], int s) {
    int nseg = poly_segments(p);
    for (int it = 0; it < nseg; ++it) {
        int best = s;
        double bd = seg_dist2(p, s, x, NULL);
        for (int k = -1; k <= 1; k += 2) {
            int q = s + k;
            if (p->closed) q = (q + nseg) % nseg;
            else if (q < 0 || q >= nseg) continue;
            double d = seg_dist2(p, q, x, NULL);
            if (d < bd) bd = d, best = q;
        }
        if (best == s) break;
        s = best;
    }
    return s;
}

/* The nearest segment over the whole polyline (at creation); ties go to the first. */
static int poly_nearest(const ctn_polyline *p, const double x[3]) {
    int best = 0;
    double bd = INFINITY;
    for (int s = 0; s < poly_segments(p); ++s) {
        double d = seg_dist2(p, s, x, NULL);
        if (d < bd) bd = d, best = s;
    }
    return best;
}

/* Writes the window of up to 4 vertices around p->segment (segments segment - 1 .. segment + 1) into the
 * definition (kernels/ctn_curve.h). */
static void poly_window(const ctn_polyline *p, ctn_joint_def *j) {
    int n = p->count, cnt, start;
    if (p->closed) {
        cnt = 4;
        start = (p->segment - 1 + n) % n;
    } else {
        cnt = n < 4 ? n : 4;
        start = p->segment - 1;
        if (start > n - cnt) start = n - cnt;
        if (start < 0) start = 0;
    }
    ctn_v3 v[4];
    for (int k = 0; k < 4; ++k) {
        int i = (start + (k < cnt ? k : cnt - 1)) % n;
        v[k] = ctn_v3_make((float)p->points[3 * i], (float)p->points[3 * i + 1], (float)p->points[3 * i + 2]);
    }
    j->anchor_b = v[0];
    j->axis_b = v[1];
    j->axis_a = v[2];
    j->rel_q = ctn_quat_make(0.0f, v[3].x, v[3].y, v[3].z);
    j->hi = (float)cnt;
    j->flags &= ~(CTN_JF_CURVE_OPEN_START | CTN_JF_CURVE_OPEN_END);
    if (!p->closed && start == 0) j->flags |= CTN_JF_CURVE_OPEN_START;
    if (!p->closed && start + cnt == n) j->flags |= CTN_JF_CURVE_OPEN_END;
}

/* The bead point of joint j in its curve's frame (body b's, or the world's), in double. */
static void bead_local(const ctn_world *w, const ctn_joint_def *j, double x[3]) {
    double pa[3];
    ctn__pose_point(&w->pose[j->a], j->anchor_a, pa);
    if (j->b < 0) {
        memcpy(x, pa, sizeof pa);
        return;
    }
    double pb[3], r[3];
    ctn__pose_get_position(&w->pose[j->b], pb);
    for (int k = 0; k < 3; ++k) r[k] = pa[k] - pb[k];
    /* rotate by conj(q): v' = v + 2 w (u x v) + 2 u x (u x v) with u = -vec(q) */
    ctn_quat q = w->pose[j->b].q;
    double u[3] = {-(double)q.x, -(double)q.y, -(double)q.z}, qw = q.w;
    double c1[3] = {u[1] * r[2] - u[2] * r[1], u[2] * r[0] - u[0] * r[2], u[0] * r[1] - u[1] * r[0]};
    double c2[3] = {u[1] * c1[2] - u[2] * c1[1], u[2] * c1[0] - u[0] * c1[2], u[0] * c1[1] - u[1] * c1[0]};
    for (int k = 0; k < 3; ++k) x[k] = r[k] + 2.0 * qw * c1[k] + 2.0 * c2[k];
}

static ctn_status poly_reserve(ctn_world *w, int need) {
    if (need <= w->polyline_capacity) return CTN_OK;
    int cap = w->polyline_capacity ? w->polyline_capacity * 2 : 16;
    if (cap < need) cap = need;
    ctn_polyline **p = ctn__realloc(w->polylines, (size_t)cap * sizeof *p);
    if (!p) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for %d polyline entries", cap);
    for (int k = w->polyline_capacity; k < cap; ++k) p[k] = NULL;
    w->polylines = p;
    w->polyline_capacity = cap;
    return CTN_OK;
}

/* A polyline record holding a copy of the vertices (segment unset), or NULL with the error recorded. */
static ctn_polyline *poly_new(ctn_world *w, const double *points, int count, int closed) {
    ctn_polyline *p = ctn__malloc(sizeof *p);
    double *pts = ctn__malloc((size_t)count * 3 * sizeof *pts);
    if (!p || !pts) {
        ctn__free(p), ctn__free(pts);
        ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for a polyline of %d vertices", count);
        return NULL;
    }
    memcpy(pts, points, (size_t)count * 3 * sizeof *pts);
    p->points = pts;
    p->count = count;
    p->closed = closed != 0;
    p->segment = -1;
    return p;
}

/* Gives joint slot j (capacity reserved) the polyline p and its window at `segment`, or at the segment
 * nearest the bead when that is out of range. */
static void poly_attach(ctn_world *w, int j, ctn_polyline *p, int segment) {
    ctn_joint_def d = ctn__jdef_get(w, j);
    if (segment < 0 || segment >= poly_segments(p)) {
        double x[3];
        bead_local(w, &d, x);
        segment = poly_nearest(p, x);
    }
    p->segment = segment;
    ctn__curve_forget(w, j);
    w->polylines[j] = p;
    w->polyline_live++;
    poly_window(p, &d);
    /* cannot fail: a polyline joint's extras (its curve kind in flags) are not the default ones, so the world
     * holds the extras array already */
    (void)ctn__jdef_set(w, j, &d);
    w->topology_dirty = 1;
}

ctn_status ctn__curve_set_polyline(ctn_world *w, int j, const double *points, int count, int closed, int segment) {
    ctn_status st = poly_reserve(w, j + 1);
    if (st != CTN_OK) return st;
    ctn_polyline *p = poly_new(w, points, count, closed);
    if (!p) return CTN_ERR_OUT_OF_MEMORY;
    poly_attach(w, j, p, segment);
    return CTN_OK;
}

void ctn__curve_forget(ctn_world *w, int j) {
    if (j >= w->polyline_capacity || !w->polylines[j]) return;
    ctn__free(w->polylines[j]->points);
    ctn__free(w->polylines[j]);
    w->polylines[j] = NULL;
    w->polyline_live--;
}

void ctn__curve_truncate(ctn_world *w, int first) {
    for (int j = first; j < w->polyline_capacity; ++j) ctn__curve_forget(w, j);
}

void ctn__curve_free(ctn_world *w) {
    ctn__curve_truncate(w, 0);
    ctn__free(w->polylines);
    w->polylines = NULL;
    w->polyline_capacity = 0;
}

ctn_status ctn__curve_track(ctn_world *w) {
    if (w->polyline_live <= 0) return CTN_OK;
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    int n = w->joint_count < w->polyline_capacity ? w->joint_count : w->polyline_capacity;
    for (int j = 0; j < n; ++j) {
        ctn_polyline *p = w->polylines[j];
        if (!p || !w->joint_alive[j]) continue;
        double x[3];
        ctn_joint_def stored = ctn__jdef_get(w, j);
        bead_local(w, &stored, x);
        p->segment = poly_walk(p, x, p->segment);
        /* compared with what is stored rather than with the last segment: an undone step puts back the
         * definitions it started with */
        ctn_joint_def d = stored;
        poly_window(p, &d);
        if (!memcmp(&d, &stored, sizeof d)) continue;
        (void)ctn__jdef_set(w, j, &d); /* cannot fail: the joint's extras keep the array (poly_attach) */
        w->topology_dirty = 1; /* the solver copies of the definition (topo.defs, device) are refreshed */
    }
    return CTN_OK;
}

/* ---- the public calls -------------------------------------------------------------------------- */

/* A unit float vector from v (length > 0): kept bit for bit when it is already unit at float precision (as a
 * saved scene writes it), so a reloaded world steps as the saved one. */
static ctn_v3 unit_f(const double v[3]) {
    ctn_v3 f = ctn_v3_make((float)v[0], (float)v[1], (float)v[2]);
    double fl = sqrt((double)f.x * f.x + (double)f.y * f.y + (double)f.z * f.z);
    if (fabs(fl - 1.0) < 1e-6) return f;
    double l = len3(v);
    return ctn_v3_make((float)(v[0] / l), (float)(v[1] / l), (float)(v[2] / l));
}

/* A length or coordinate beyond CTN_MAX_LENGTH (index < 0: a scalar field). */
static ctn_status too_long(ctn_world *w, const char *field, int index, double v) {
    if (index < 0)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: %g m exceeds CTN_MAX_LENGTH (%g m)", field, v, CTN_MAX_LENGTH);
    return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s[%d]: %g m exceeds CTN_MAX_LENGTH (%g m)", field, index, v, CTN_MAX_LENGTH);
}

static ctn_status curve_check(ctn_world *w, const ctn_curve_desc *d) {
    if ((int)d->type < CTN_CURVE_LINE || (int)d->type > CTN_CURVE_POLYLINE)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "curve.type: unknown curve type %d", (int)d->type);
    if (!finite3(d->anchor)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "curve.anchor: non-finite component");
    int bad = ctn__length_bad(d->anchor, 3);
    if (bad >= 0) return too_long(w, "curve.anchor", bad, d->anchor[bad]);
    if (!isfinite(d->compliance)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "curve.compliance: %g is not finite", d->compliance);
    if (!isfinite(d->damping_time)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "curve.damping_time: %g is not finite", d->damping_time);
    if ((int)d->stabilization != CTN_CURVE_STAB_VELOCITY && (int)d->stabilization != CTN_CURVE_STAB_ACCELERATION)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "curve.stabilization: unknown value %d", (int)d->stabilization);
    if (!(d->ks >= 0.0) || !isfinite(d->ks)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "curve.ks: %g must be finite and >= 0", d->ks);
    if (!(d->kd >= 0.0) || !isfinite(d->kd)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "curve.kd: %g must be finite and >= 0", d->kd);
    if (d->type == CTN_CURVE_POLYLINE) {
        int least = d->closed ? 3 : 2;
        if (!d->points || d->count < least)
            return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "curve.count: %d vertices%s; a%s polyline needs at least %d", d->count,
                             d->points ? "" : " (points is NULL)", d->closed ? " closed" : "n open", least);
        if (d->count > CTN_CURVE_MAX_POINTS)
            return ctn__fail(w, CTN_ERR_LIMIT, "curve.count: %d vertices exceed CTN_CURVE_MAX_POINTS (%d)", d->count, CTN_CURVE_MAX_POINTS);
        for (int i = 0; i < d->count; ++i) {
            const double *p = &d->points[3 * i];
            if (!finite3(p)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "curve.points[%d]: non-finite component", i);
            if ((bad = ctn__length_bad(p, 3)) >= 0) {
                char field[48];
                snprintf(field, sizeof field, "curve.points[%d]", i);
                return too_long(w, field, bad, p[bad]);
            }
            int next = i + 1 < d->count ? i + 1 : (d->closed ? 0 : -1);
            if (next < 0) continue;
            const double *q = &d->points[3 * next];
            if ((float)p[0] == (float)q[0] && (float)p[1] == (float)q[1] && (float)p[2] == (float)q[2])
                return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "curve.points[%d]: (%g, %g, %g) coincides with points[%d]: a zero-length segment",
                                 next, q[0], q[1], q[2], i);
        }
        return CTN_OK;
    }
    if (!finite3(d->origin)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "curve.origin: non-finite component");
    if ((bad = ctn__length_bad(d->origin, 3)) >= 0) return too_long(w, "curve.origin", bad, d->origin[bad]);
    if (!finite3(d->axis)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "curve.axis: non-finite component");
    if (!(len3(d->axis) > 1e-9))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "curve.axis: (%g, %g, %g) has zero length", d->axis[0], d->axis[1], d->axis[2]);
    if (d->type == CTN_CURVE_LINE) return CTN_OK;
    if (!(d->radius > 0.0) || !isfinite(d->radius) || (float)d->radius <= 0.0f)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "curve.radius: %g; a %s needs a finite radius > 0", d->radius,
                         d->type == CTN_CURVE_CIRCLE ? "circle" : "helix");
    if (d->radius > CTN_MAX_LENGTH) return too_long(w, "curve.radius", -1, d->radius);
    if (!finite3(d->reference)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "curve.reference: non-finite component");
    /* a given reference is the direction of t = 0 once its part along the axis is removed: parallel to the
     * axis (at float precision) it names no direction; zero asks for an automatic one */
    const double *r = d->reference, *a = d->axis;
    double rl = len3(r), al = len3(a), ra = (r[0] * a[0] + r[1] * a[1] + r[2] * a[2]) / (al * al);
    double e[3] = {r[0] - ra * a[0], r[1] - ra * a[1], r[2] - ra * a[2]};
    if (rl > 0.0 && !(len3(e) > 1e-6 * rl))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT,
                         "curve.reference: (%g, %g, %g) is parallel to curve.axis (%g, %g, %g), so it gives no direction for t = 0; "
                         "give one across the axis, or (0, 0, 0) for an automatic one", r[0], r[1], r[2], a[0], a[1], a[2]);
    if (d->type == CTN_CURVE_HELIX && !isfinite(d->pitch)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "curve.pitch: %g is not finite", d->pitch);
    if (d->type == CTN_CURVE_HELIX && fabs(d->pitch) > CTN_MAX_LENGTH) return too_long(w, "curve.pitch", -1, d->pitch);
    return CTN_OK;
}

/* Circle and helix frame: unit axis a and unit e1 perpendicular to it (from `reference`, else automatic). */
static void circle_frame(const ctn_curve_desc *d, ctn_joint_def *j) {
    double al = len3(d->axis), a[3] = {d->axis[0] / al, d->axis[1] / al, d->axis[2] / al};
    const double *r = d->reference;
    double ra = r[0] * a[0] + r[1] * a[1] + r[2] * a[2];
    double e[3] = {r[0] - ra * a[0], r[1] - ra * a[1], r[2] - ra * a[2]};
    j->axis_b = unit_f(d->axis);
    if (len3(e) > 1e-9 * (len3(r) + 1e-300)) {
        ctn_v3 f = ctn_v3_make((float)r[0], (float)r[1], (float)r[2]);
        /* a reference that is already unit and perpendicular at float precision is kept as stored */
        if (fabs(ra) < 1e-6 && fabs(len3(r) - 1.0) < 1e-6 && fabs((double)ctn_dot(f, j->axis_b)) < 1e-6) j->axis_a = unit_f(r);
        else j->axis_a = unit_f(e);
    } else {
        ctn_v3 t2;
        ctn_basis(j->axis_b, &j->axis_a, &t2);
    }
}

ctn_status ctn_curve_constraint_add(ctn_world *w, const ctn_curve_desc *d, ctn_joint_id *out) {
    CTN__ENTER(w);
    if (!d) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_curve_constraint_add: desc is NULL");
    int a = ctn__body_index(w, d->body, "curve.body", 0);
    int b = a < 0 ? -2 : ctn__body_index(w, d->frame, "curve.frame", 1);
    if (a < 0 || b < -1) return w->handle_status;
    if (a == b) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "curve.frame: body %lld carries its own curve", (long long)ctn_body_id_to_int(d->body));
    for (int k = 0; k < 2; ++k) {
        int i = k ? b : a;
        if (ctn__attach_link_of(w, i) >= 0 || ctn__attach_group_of(w, i) >= 0)
            return ctn__fail(w, CTN_ERR_UNSUPPORTED, "%s: body %lld is attached or carries attached bodies; curve constraints on them are not supported",
                             k ? "curve.frame" : "curve.body", (long long)ctn_body_id_to_int((k ? d->frame : d->body)));
    }
    ctn_status st = curve_check(w, d);
    if (st != CTN_OK) return st;
    st = ctn__sync(w);
    if (st != CTN_OK) return st;
    ctn_polyline *poly = NULL; /* allocated before the joint, so that nothing can fail after it is added */
    if (d->type == CTN_CURVE_POLYLINE) {
        st = poly_reserve(w, w->joint_count + 1); /* the slot the joint will take is below this */
        if (st != CTN_OK) return st;
        poly = poly_new(w, d->points, d->count, d->closed);
        if (!poly) return CTN_ERR_OUT_OF_MEMORY;
    }
    ctn_joint_def j;
    memset(&j, 0, sizeof j);
    j.type = CTN_JT_CURVE;
    j.a = a;
    j.b = b;
    j.rows = 2;
    j.anchor_a = (w->props[a].flags & CTN_BODY_FLAG_PARTICLE) ? ctn_v3_zero()
                                                              : ctn_v3_make((float)d->anchor[0], (float)d->anchor[1], (float)d->anchor[2]);
    j.compliance = (float)(d->compliance >= 0.0 ? d->compliance : w->desc.compliance);
    j.damping_time = (float)(d->damping_time >= 0.0 ? d->damping_time : w->desc.damping_time);
    j.rel_q = ctn_quat_identity();
    j.flags = (int)d->type << CTN_JF_CURVE_KIND_SHIFT;
    if (d->stabilization == CTN_CURVE_STAB_ACCELERATION) j.flags |= CTN_JF_CURVE_ACCEL;
    j.stiffness = (float)d->ks;
    j.damping = (float)d->kd;
    if (d->type != CTN_CURVE_POLYLINE) j.anchor_b = ctn_v3_make((float)d->origin[0], (float)d->origin[1], (float)d->origin[2]);
    if (d->type == CTN_CURVE_LINE) j.axis_b = unit_f(d->axis);
    if (d->type == CTN_CURVE_CIRCLE || d->type == CTN_CURVE_HELIX) {
        circle_frame(d, &j);
        j.rest_length = (float)d->radius;
        j.lo = d->type == CTN_CURVE_HELIX ? (float)d->pitch : 0.0f;
    }
    int id;
    st = ctn__joint_insert(w, &j, &id);
    if (st != CTN_OK) {
        if (poly) ctn__free(poly->points), ctn__free(poly);
        return st;
    }
    if (poly) poly_attach(w, id, poly, -1);
    if (out) *out = ctn__joint_handle(w, id);
    return CTN_OK;
}

/* The slot of a live curve joint in *id, or the error recorded and returned. */
static ctn_status curve_slot(ctn_world *w, ctn_joint_id handle, const char *what, int *id) {
    *id = ctn__joint_index(w, handle, what);
    if (*id < 0) return w->handle_status;
    if (ctn__jcore(w, *id)->type != CTN_JT_CURVE) {
        ctn_joint_def d = ctn__jdef_get(w, *id);
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: joint %lld is a %s joint, not a curve constraint", what, (long long)ctn_joint_id_to_int(handle),
                         ctn_joint_type_name((ctn_joint_type)ctn__joint_type(&d)));
    }
    return CTN_OK;
}

ctn_status ctn_curve_constraint_get(ctn_world *w, ctn_joint_id handle, ctn_curve_desc *out) {
    CTN__ENTER(w);
    if (!out) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_curve_constraint_get: out is NULL");
    int id;
    ctn_status st = curve_slot(w, handle, "ctn_curve_constraint_get", &id);
    if (st != CTN_OK) return st;
    ctn_joint_def stored = ctn__jdef_get(w, id);
    const ctn_joint_def *j = &stored;
    int kind = ctn_curve_kind(*j);
    ctn_curve_desc d = ctn_curve_desc_default((ctn_curve_type)kind);
    d.body = ctn__body_handle(w, j->a);
    d.frame = ctn__body_handle(w, j->b);
    d.anchor[0] = j->anchor_a.x, d.anchor[1] = j->anchor_a.y, d.anchor[2] = j->anchor_a.z;
    d.compliance = j->compliance;
    d.damping_time = j->damping_time;
    d.stabilization = (j->flags & CTN_JF_CURVE_ACCEL) ? CTN_CURVE_STAB_ACCELERATION : CTN_CURVE_STAB_VELOCITY;
    d.ks = j->stiffness;
    d.kd = j->damping;
    if (kind == CTN_CURVE_POLYLINE) {
        const ctn_polyline *p = w->polylines[id];
        d.points = p->points;
        d.count = p->count;
        d.closed = p->closed;
        d.radius = 0.0;
        d.axis[2] = 0.0;
    } else {
        d.origin[0] = j->anchor_b.x, d.origin[1] = j->anchor_b.y, d.origin[2] = j->anchor_b.z;
        d.axis[0] = j->axis_b.x, d.axis[1] = j->axis_b.y, d.axis[2] = j->axis_b.z;
        d.radius = kind == CTN_CURVE_LINE ? 0.0 : j->rest_length;
        d.pitch = kind == CTN_CURVE_HELIX ? j->lo : 0.0;
        if (kind != CTN_CURVE_LINE) d.reference[0] = j->axis_a.x, d.reference[1] = j->axis_a.y, d.reference[2] = j->axis_a.z;
    }
    *out = d;
    return CTN_OK;
}

ctn_status ctn_curve_constraint_parameter(ctn_world *w, ctn_joint_id handle, double *t) {
    CTN__ENTER(w);
    if (!t) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_curve_constraint_parameter: t is NULL");
    int id;
    ctn_status st = curve_slot(w, handle, "ctn_curve_constraint_parameter", &id);
    if (st == CTN_OK) st = ctn__sync(w);
    if (st != CTN_OK) return st;
    ctn_joint_def stored = ctn__jdef_get(w, id);
    const ctn_joint_def *j = &stored;
    double x[3];
    bead_local(w, j, x);
    if (ctn_curve_kind(*j) == CTN_CURVE_POLYLINE) {
        const ctn_polyline *p = w->polylines[id];
        int s = poly_walk(p, x, p->segment);
        double u = 0.0;
        seg_dist2(p, s, x, &u);
        *t = s + u;
        return CTN_OK;
    }
    ctn_curve_point cp = ctn_curve_closest(*j, ctn_v3_make((float)x[0], (float)x[1], (float)x[2]));
    *t = cp.param;
    return CTN_OK;
}
