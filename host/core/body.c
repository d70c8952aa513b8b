/* Bodies: creation, removal, state access. Host arrays are float (positions as two floats, hi + lo); the API
 * speaks double. */
#include "core/world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

ctn_body_desc ctn_body_desc_default(void) {
    ctn_body_desc d;
    memset(&d, 0, sizeof d);
    d.type = CTN_BODY_DYNAMIC;
    d.mass = 1.0;
    d.inertia[0] = d.inertia[1] = d.inertia[2] = 1.0 / 6.0; /* unit cube of 1 kg */
    d.orientation[0] = 1.0;
    return d;
}

void ctn_inertia_box(double mass, const double he[3], double out[3]) {
    out[0] = mass * (he[1] * he[1] + he[2] * he[2]) / 3.0;
    out[1] = mass * (he[0] * he[0] + he[2] * he[2]) / 3.0;
    out[2] = mass * (he[0] * he[0] + he[1] * he[1]) / 3.0;
}

void ctn_inertia_sphere(double mass, double radius, double out[3]) {
    out[0] = out[1] = out[2] = 0.4 * mass * radius * radius;
}

void ctn_inertia_capsule(double mass, double r, double hl, int axis, double out[3]) {
    /* cylinder of length 2 hl plus two hemispheres, split by volume */
    double vc = 3.14159265358979323846 * r * r * 2.0 * hl, vs = 4.0 / 3.0 * 3.14159265358979323846 * r * r * r;
    double mc = mass * vc / (vc + vs), ms = mass - mc;
    double axial = 0.5 * mc * r * r + 0.4 * ms * r * r;
    double l = 2.0 * hl;
    double trans = mc * (r * r / 4.0 + l * l / 12.0) + ms * (0.4 * r * r + hl * hl + 0.375 * r * hl);
    if (axis < 0 || axis > 2) axis = 0;
    out[0] = out[1] = out[2] = trans;
    out[axis] = axial;
}

/* Whether v[0..n) are finite and fit the float arrays they are stored in (ctn__fits_float). */
static int finite_n(const double *v, int n) {
    for (int i = 0; i < n; ++i)
        if (!ctn__fits_float(v[i])) return 0;
    return 1;
}

/* Grows the body arrays to hold `need` slots, each in place (CTN__REGROW); on failure the world is unchanged
 * (the arrays grown before the failing one keep their larger blocks, the capacity stays). */
static ctn_status body_reserve(ctn_world *w, int need) {
    if (need <= w->body_capacity) return CTN_OK;
    if (need > CTN_MAX_BODIES) return ctn__fail(w, CTN_ERR_LIMIT, "body count would exceed CTN_MAX_BODIES (%d)", CTN_MAX_BODIES);
    size_t cap = w->body_capacity ? (size_t)w->body_capacity * 2 : 64;
    if (cap < (size_t)need) cap = (size_t)need;
    if (cap > CTN_MAX_BODIES) cap = CTN_MAX_BODIES;
    if (ctn__mul_overflows(cap, sizeof(ctn_props)) || ctn__mul_overflows(cap, sizeof(ctn_pose)) || ctn__mul_overflows(cap, sizeof(ctn_inertia)))
        return ctn__fail(w, CTN_ERR_LIMIT, "%zu bodies do not fit this machine's address space", cap);
    /* the user forces only where the world has some (host/core/body_force.c): a fresh array, the new slots' zero */
    ctn_body_force *bf = w->body_force ? ctn__body_force_alloc(cap, w->body_force, (size_t)w->body_count) : NULL;
    void *t;
    if ((w->body_force && !bf) || !CTN__REGROW(w->pose, cap, t) || !CTN__REGROW(w->vel, cap, t) || !CTN__REGROW(w->inertia, cap, t) ||
        !CTN__REGROW(w->props, cap, t) || (w->body_refs && !CTN__REGROW(w->body_refs, cap, t)) || /* where the world counts them (world.h) */
        (w->body_gen && !CTN__REGROW(w->body_gen, cap, t)) || /* where a body was removed (world.h) */
        !CTN__REGROW(w->body_free, cap, t)) {
        ctn__free(bf);
        return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory growing body arrays to %zu", cap);
    }
    if (w->body_force) {
        ctn__free(w->body_force);
        w->body_force = bf;
    }
    w->body_capacity = (int)cap;
    return CTN_OK;
}

/* The CPU backend's velocity step leaves the inertias of its final poses to this (its PROJECT_LEAVE): the next
 * step's first stage, the geometric-stiffness inertia, overwrites every one of them unread, so they are formed
 * only where something else reads them first (a checkpoint, an attachment's composite, assembly, a stage of
 * another step). */
void ctn__inertia_fresh(ctn_world *w) {
    if (!w->inertia_stale) return;
    int n = w->body_count;
    const ctn_pose *pose = w->pose;
    const ctn_props *props = w->props;
    ctn_inertia *inertia = w->inertia;
#ifdef _OPENMP
    int team = ctn__threads(w);
#pragma omp parallel for schedule(static) num_threads(team) if (n >= 4096)
#endif
    for (int i = 0; i < n; ++i) inertia[i].inv_inertia = ctn_body_inverse_inertia(pose[i], props[i]);
    w->inertia_stale = 0;
}

ctn_status ctn__body_gens(ctn_world *w) {
    if (w->body_gen) return CTN_OK;
    size_t cap = w->body_capacity > 0 ? (size_t)w->body_capacity : 1;
    w->body_gen = ctn__calloc(cap, sizeof *w->body_gen);
    if (!w->body_gen) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for the generations of %d bodies", w->body_count);
    return CTN_OK;
}

ctn_status ctn__body_refs(ctn_world *w) {
    if (w->body_refs) return CTN_OK;
    size_t cap = w->body_capacity > 0 ? (size_t)w->body_capacity : 1;
    int *refs = ctn__calloc(cap, sizeof *refs);
    if (!refs) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory counting the joints on %d bodies", w->body_count);
    for (int j = 0; j < w->joint_count; ++j) { /* as ctn__joint_insert counts them */
        if (!w->joint_alive[j]) continue;
        const ctn_joint_core *d = ctn__jcore(w, j);
        refs[d->a]++;
        if (d->b >= 0) refs[d->b]++;
    }
    w->body_refs = refs;
    return CTN_OK;
}

ctn_status ctn__body_slot_take(ctn_world *w, int *slot) {
    if (w->body_free_count > 0 && !w->append_slots) {
        *slot = w->body_free[--w->body_free_count];
        return CTN_OK;
    }
    ctn_status st = body_reserve(w, w->body_count + 1);
    if (st != CTN_OK) return st;
    *slot = w->body_count++;
    if (w->body_gen) w->body_gen[*slot] = 0;
    return CTN_OK;
}

int ctn__body_lookup(const ctn_world *w, ctn_body_id id) {
    if (ctn_body_is_world(id)) return -1;
    int32_t i = id.index1 - 1;
    if (id.index1 <= 0 || id.world0 != (uint16_t)w->tag || i >= w->body_count || id.generation != ctn__body_gen(w, i) ||
        !(w->props[i].flags & CTN_BODY_FLAG_ALIVE))
        return -2;
    return i;
}

int ctn__body_index(ctn_world *w, ctn_body_id id, const char *field, int allow_world) {
    if (ctn_body_is_world(id) && allow_world) return -1;
    int32_t i = id.index1 - 1;
    long long h = (long long)ctn_body_id_to_int(id);
    if (id.index1 == 0) {
        w->handle_status = ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: the null body handle where a body handle is needed", field);
        return -2;
    }
    if (id.index1 < 0) { /* CTN_WORLD names no body */
        w->handle_status = ctn__fail(w, CTN_ERR_NOT_FOUND, "%s: body handle -1 (CTN_WORLD) where a body is needed", field);
        return -2;
    }
    if (id.world0 != (uint16_t)w->tag) {
        w->handle_status = ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: body handle %lld belongs to world %d, not to this world (%d)",
                                     field, h, (int)id.world0, w->tag);
        return -2;
    }
    w->handle_status = CTN_ERR_NOT_FOUND;
    if (i >= w->body_count) {
        ctn__fail(w, CTN_ERR_NOT_FOUND, "%s: body handle %lld (index %d) is not a body of this world (%d slots)", field, h, (int)i,
                  w->body_count);
        return -2;
    }
    if (id.generation != ctn__body_gen(w, i)) {
        ctn__fail(w, CTN_ERR_NOT_FOUND, "%s: body handle %lld (index %d, generation %d) is stale: that body was removed%s", field, h,
                  (int)i, (int)id.generation, (w->props[i].flags & CTN_BODY_FLAG_ALIVE) ? " and its slot reused" : "");
        return -2;
    }
    if (!(w->props[i].flags & CTN_BODY_FLAG_ALIVE)) {
        ctn__fail(w, CTN_ERR_NOT_FOUND, "%s: body handle %lld (index %d) was removed", field, h, (int)i);
        return -2;
    }
    return i;
}

ctn_body_id ctn_body_id_in(const ctn_world *w, ctn_body_id id) {
    if (w && id.index1 > 0) id.world0 = (uint16_t)w->tag;
    return id;
}

int ctn_body_is_valid(const ctn_world *w, ctn_body_id id) { return w && !ctn_body_is_world(id) && ctn__body_lookup(w, id) >= 0; }

ctn_body_id ctn_body_id_from_int(const ctn_world *w, int64_t v) {
    if (v == -1) return CTN_WORLD;
    if (!w || v < 0 || (v & 0xffffffff) >= 0x7fffffff || (v >> 32) > 0xffff) return CTN_NULL_BODY;
    ctn_body_id id = {(int32_t)(v & 0xffffffff) + 1, (uint16_t)w->tag, (uint16_t)(v >> 32)};
    return id;
}

/* Unit quaternion from a double (w, x, y, z); returns 0 when it cannot be normalised. */
static int quat_from(const double q[4], ctn_quat *out) {
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 1e-9) || !isfinite(n)) return 0;
    *out = ctn_quat_make((float)(q[0] / n), (float)(q[1] / n), (float)(q[2] / n), (float)(q[3] / n));
    return 1;
}

static ctn_v3 v3_from(const double v[3]) { return ctn_v3_make((float)v[0], (float)v[1], (float)v[2]); }

ctn_status ctn_body_add(ctn_world *w, const ctn_body_desc *d, ctn_body_id *out) {
    CTN__ENTER(w);
    if (!d) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_body_add: desc is NULL");
    if ((int)d->type < CTN_BODY_DYNAMIC || (int)d->type > CTN_BODY_KINEMATIC)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "body.type: unknown body type %d", (int)d->type);
    if (!finite_n(d->position, 3)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "body.position: a component is not finite or exceeds the float range");
    if (!finite_n(d->velocity, 3)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "body.velocity: a component is not finite or exceeds the float range");
    if (!finite_n(d->angular_velocity, 3))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "body.angular_velocity: a component is not finite or exceeds the float range");
    ctn_quat q;
    if (!quat_from(d->orientation, &q))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "body.orientation: (%g, %g, %g, %g) is not a finite non-zero quaternion",
                         d->orientation[0], d->orientation[1], d->orientation[2], d->orientation[3]);
    int dynamic = d->type == CTN_BODY_DYNAMIC;
    if (dynamic) {
        if (!(d->mass > 0.0) || !isfinite(d->mass) || !ctn__fits_float(1.0 / d->mass)) /* 1 / mass is stored as a float */
            return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "body.mass: %g must be finite and > 0 for a dynamic body (and its inverse a float)",
                             d->mass);
        if (!d->particle) {
            for (int k = 0; k < 3; ++k)
                if (!(d->inertia[k] > 0.0) || !isfinite(d->inertia[k]) || !ctn__fits_float(1.0 / d->inertia[k]))
                    return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT,
                                     "body.inertia[%d]: %g must be finite and > 0 for a rigid dynamic body", k, d->inertia[k]);
        }
    }
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    int id;
    st = ctn__body_slot_take(w, &id);
    if (st != CTN_OK) return st;
    ctn_pose *p = &w->pose[id];
    memset(p, 0, sizeof *p);
    ctn__pose_set_position(p, d->position); /* two floats: round trip to ~2^-48 relative */
    p->q = d->particle ? ctn_quat_identity() : q;
    ctn_vel *v = &w->vel[id];
    memset(v, 0, sizeof *v);
    if (d->type != CTN_BODY_STATIC) {
        v->v = v3_from(d->velocity);
        if (!d->particle) v->w = v3_from(d->angular_velocity);
    }
    ctn_props *pr = &w->props[id];
    memset(pr, 0, sizeof *pr);
    pr->flags = CTN_BODY_FLAG_ALIVE | (dynamic ? CTN_BODY_FLAG_DYNAMIC : 0) |
                (d->type == CTN_BODY_KINEMATIC ? CTN_BODY_FLAG_KINEMATIC : 0) | (d->particle ? CTN_BODY_FLAG_PARTICLE : 0);
    if (dynamic && !d->particle)
        pr->inv_inertia_body = ctn_v3_make((float)(1.0 / d->inertia[0]), (float)(1.0 / d->inertia[1]), (float)(1.0 / d->inertia[2]));
    memset(&w->inertia[id], 0, sizeof w->inertia[id]);
    w->inertia[id].inv_inertia = ctn_body_inverse_inertia(*p, *pr);
    w->inertia[id].inv_mass = dynamic ? (float)(1.0 / d->mass) : 0.0f;
    (void)ctn__body_force_set(w, id, ctn_v3_zero(), ctn_v3_zero()); /* no force (a zero never allocates) */
    if (w->body_refs) w->body_refs[id] = 0;
    w->live_bodies++;
    w->bodies_dirty = 1;
    w->topology_dirty = 1; /* the adjacency covers every body slot */
    if (out) *out = ctn__body_handle(w, id);
    return CTN_OK;
}

void ctn__body_release(ctn_world *w, int id) {
    ctn__inertia_fresh(w); /* the others' before this one's props change (its inertia is zero from here on) */
    w->props[id].flags = 0;
    (void)ctn__body_force_set(w, id, ctn_v3_zero(), ctn_v3_zero()); /* the last force gone: the array goes */
    ctn__body_name_clear(w, id);
    w->inertia[id].inv_mass = 0.0f;
    w->vel[id].v = w->vel[id].w = ctn_v3_zero();
    w->inertia[id].inv_inertia = ctn_sym3_zero();
    w->body_gen[id] = (uint16_t)(w->body_gen[id] + 1); /* modulo 65536: the handle's generation (the array made by ctn_body_remove) */
    w->body_free[w->body_free_count++] = id; /* the stack has room for every slot */
    w->live_bodies--;
    w->bodies_dirty = 1;
    w->topology_dirty = 1;
}

ctn_status ctn_body_get_state(ctn_world *w, ctn_body_id handle, ctn_body_state *out) {
    CTN__ENTER(w);
    if (!out) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_body_get_state: out is NULL");
    int id = ctn__body_index(w, handle, "ctn_body_get_state", 0);
    if (id < 0) return w->handle_status;
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    const ctn_pose *p = &w->pose[id];
    const ctn_vel *v = &w->vel[id];
    ctn__pose_get_position(p, out->position);
    out->orientation[0] = p->q.w, out->orientation[1] = p->q.x, out->orientation[2] = p->q.y, out->orientation[3] = p->q.z;
    out->velocity[0] = v->v.x, out->velocity[1] = v->v.y, out->velocity[2] = v->v.z;
    out->angular_velocity[0] = v->w.x, out->angular_velocity[1] = v->w.y, out->angular_velocity[2] = v->w.z;
    return CTN_OK;
}

ctn_status ctn_body_set_state(ctn_world *w, ctn_body_id handle, const ctn_body_state *s) {
    CTN__ENTER(w);
    if (!s) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_body_set_state: state is NULL");
    int id = ctn__body_index(w, handle, "ctn_body_set_state", 0);
    if (id < 0) return w->handle_status;
    if (!finite_n(s->position, 3)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "state.position: a component is not finite or exceeds the float range");
    if (!finite_n(s->velocity, 3)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "state.velocity: a component is not finite or exceeds the float range");
    if (!finite_n(s->angular_velocity, 3))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "state.angular_velocity: a component is not finite or exceeds the float range");
    ctn_quat q;
    if (!quat_from(s->orientation, &q))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "state.orientation: (%g, %g, %g, %g) is not a finite non-zero quaternion",
                         s->orientation[0], s->orientation[1], s->orientation[2], s->orientation[3]);
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    ctn_props *pr = &w->props[id];
    int particle = (pr->flags & CTN_BODY_FLAG_PARTICLE) != 0;
    int moving = (pr->flags & (CTN_BODY_FLAG_DYNAMIC | CTN_BODY_FLAG_KINEMATIC)) != 0;
    ctn__pose_set_position(&w->pose[id], s->position);
    if (!particle) w->pose[id].q = q;
    w->vel[id].v = moving ? v3_from(s->velocity) : ctn_v3_zero();
    w->vel[id].w = moving && !particle ? v3_from(s->angular_velocity) : ctn_v3_zero();
    w->inertia[id].inv_inertia = ctn_body_inverse_inertia(w->pose[id], *pr);
    w->bodies_dirty = 1;
    return CTN_OK;
}

ctn_status ctn_body_set_force(ctn_world *w, ctn_body_id handle, const double force[3], const double torque[3]) {
    CTN__ENTER(w);
    int id = ctn__body_index(w, handle, "ctn_body_set_force", 0);
    if (id < 0) return w->handle_status;
    if (force && !finite_n(force, 3)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "force: a component is not finite or exceeds the float range");
    if (torque && !finite_n(torque, 3)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "torque: a component is not finite or exceeds the float range");
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    st = ctn__body_force_set(w, id, force ? v3_from(force) : ctn_v3_zero(), torque ? v3_from(torque) : ctn_v3_zero());
    if (st != CTN_OK) return st;
    w->bodies_dirty = 1;
    return CTN_OK;
}

int ctn_world_body_count(const ctn_world *w) { return w ? w->live_bodies : 0; }

ctn_status ctn_world_get_positions(ctn_world *w, double *xyz, int count, int *written) {
    CTN__ENTER(w);
    if (!xyz) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_get_positions: xyz is NULL");
    if (count < 0) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_get_positions: count %d is negative", count);
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    int n = count < w->body_count ? count : w->body_count;
    for (int i = 0; i < n; ++i) {
        int alive = (w->props[i].flags & CTN_BODY_FLAG_ALIVE) != 0;
        double x[3] = {0.0, 0.0, 0.0};
        if (alive) ctn__pose_get_position(&w->pose[i], x);
        xyz[3 * i + 0] = x[0], xyz[3 * i + 1] = x[1], xyz[3 * i + 2] = x[2];
    }
    if (written) *written = n;
    return CTN_OK;
}
