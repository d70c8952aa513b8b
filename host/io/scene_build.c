/* Builds a validated scene (ctn_scene, parsed by scene_json.c) into a world: explicit bodies with their
 * shapes and forces, the planes, the generators, then the constraints with their limits, motors and rope
 * flags, and last the collision settings. A failed build rolls the world back, so a world never holds half
 * a scene. */
#define _POSIX_C_SOURCE 200809L
#include "collide/collide.h"
#include "io/scene_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ctn_scene_free(ctn_scene *s) {
    if (!s) return;
    for (int i = 0; i < s->body_count; ++i) {
        ctn__free(s->bodies[i].name);
        ctn__free(s->bodies[i].more);
    }
    ctn__free(s->bodies);
    for (int j = 0; j < s->joint_count; ++j) ctn__free(s->joints[j].points);
    ctn__free(s->joints);
    ctn__free(s->planes);
    ctn__free(s->gens);
    ctn__scene_assemble_free(s);
    ctn__scene_attach_free(s);
    ctn__scene_robots_free(s);
    ctn__free(s);
}

ctn_status ctn_scene_get_settings(const ctn_scene *s, ctn_world_desc *desc, int *steps) {
    if (!s || !desc) return CTN_ERR_INVALID_ARGUMENT;
    *desc = s->desc;
    desc->device = s->device[0] ? s->device : NULL;
    if (steps) *steps = s->steps;
    return CTN_OK;
}

/* Counts are int32_t in the API; a scene of more than INT32_MAX bodies (its generators summed) reads as
 * INT32_MAX, which ctn_scene_build refuses all the same (CTN_MAX_BODIES). */
static int32_t count_of(int64_t n) { return n > INT32_MAX ? INT32_MAX : (int32_t)n; }
int32_t ctn_scene_body_count(const ctn_scene *s) { return s ? count_of(s->total_bodies) : 0; }
int32_t ctn_scene_joint_count(const ctn_scene *s) { return s ? count_of(s->total_joints) : 0; }

/* A quaternion that is already unit at float precision (as a saved scene writes it) is kept bit for bit;
 * ctn_body_add renormalises in double, which can move the last bit of a float quaternion. */
static void keep_exact_orientation(ctn_world *w, int id, const double q[4]) {
    ctn_quat f = ctn_quat_make((float)q[0], (float)q[1], (float)q[2], (float)q[3]);
    double n = sqrt((double)f.w * f.w + (double)f.x * f.x + (double)f.y * f.y + (double)f.z * f.z);
    if (!(fabs(n - 1.0) < 1e-6) || (w->props[id].flags & CTN_BODY_FLAG_PARTICLE)) return;
    w->pose[id].q = f;
    w->inertia[id].inv_inertia = ctn_body_inverse_inertia(w->pose[id], w->props[id]);
}

/* The same for a plane normal. */
static void keep_exact_normal(ctn_world *w, int plane, const double n[3]) {
    ctn_v3 f = ctn_v3_make((float)n[0], (float)n[1], (float)n[2]);
    double len = sqrt((double)f.x * f.x + (double)f.y * f.y + (double)f.z * f.z);
    if (fabs(len - 1.0) < 1e-6) w->collision->planes[plane].normal = f;
}

static ctn_status build_body(ctn_world *w, const scene_body *b) {
    ctn_body_id id = CTN_WORLD;
    ctn_status st = ctn_body_add(w, &b->d, &id);
    if (st != CTN_OK) return st;
    keep_exact_orientation(w, w->body_count - 1, b->d.orientation); /* a fresh slot, the last */
    if (b->name) st = ctn_body_set_name(w, id, b->name);
    if (st == CTN_OK && b->has_force) st = ctn_body_set_force(w, id, b->force, b->torque);
    if (st == CTN_OK && b->has_shape) st = ctn_body_set_shape(w, id, &b->shape);
    for (int k = 0; k < b->more_count && st == CTN_OK; ++k) st = ctn_body_add_shape(w, id, &b->more[k], NULL);
    return st;
}

static ctn_v3 v3_of(const double v[3]) { return ctn_v3_make((float)v[0], (float)v[1], (float)v[2]); }

static ctn_status build_joint(ctn_world *w, const scene_joint *sj, int first_body) {
    if (sj->is_curve) return ctn__scene_build_curve(w, sj, first_body);
    ctn_joint_desc d = sj->d;
    d.body_a = ctn__body_handle(w, first_body + ctn__scene_ref_index(d.body_a));
    if (!ctn_body_is_world(d.body_b)) d.body_b = ctn__body_handle(w, first_body + ctn__scene_ref_index(d.body_b));
    ctn_status st = CTN_OK;
    if (sj->has_pivot) st = ctn_joint_desc_set_pivot(w, &d, sj->pivot, sj->has_axis ? d.axis : NULL);
    ctn_joint_id id = CTN_NULL_JOINT;
    if (st == CTN_OK) st = ctn_joint_add(w, &d, &id);
    if (st != CTN_OK) return st;
    if (sj->has_frames) {
        ctn_joint_def j = ctn__jdef_get(w, w->joint_count - 1); /* a fresh slot, the last */
        j.axis_a = v3_of(sj->axis_a);
        j.axis_b = v3_of(sj->axis_b);
        const double *q = sj->rest_orientation;
        j.rel_q = ctn_quat_make((float)q[0], (float)q[1], (float)q[2], (float)q[3]);
        st = ctn__jdef_set(w, w->joint_count - 1, &j);
        if (st != CTN_OK) return st;
    }
    if (sj->has_limits) st = ctn_joint_set_limits(w, id, 1, sj->lower, sj->upper);
    if (st == CTN_OK && sj->has_motor) st = ctn_joint_set_motor(w, id, 1, sj->motor_speed, sj->motor_max_torque);
    if (st == CTN_OK && sj->rope) st = ctn_joint_set_rope(w, id, 1);
    if (st == CTN_OK && sj->has_swing) st = ctn_joint_set_swing_limit(w, id, 1, sj->swing);
    return st;
}

ctn_status ctn_scene_build(const ctn_scene *s, ctn_world *w) {
    CTN__ENTER(w);
    if (!s) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_scene_build: scene is NULL");
    if (s->total_bodies > (int64_t)CTN_MAX_BODIES - w->body_count)
        return ctn__fail(w, CTN_ERR_LIMIT, "%s: %lld bodies would exceed CTN_MAX_BODIES (%d) in this world", s->source,
                         (long long)s->total_bodies, CTN_MAX_BODIES);
    if (s->total_joints > (int64_t)CTN_MAX_JOINTS - w->joint_count)
        return ctn__fail(w, CTN_ERR_LIMIT, "%s: %lld joints would exceed CTN_MAX_JOINTS (%d) in this world", s->source,
                         (long long)s->total_joints, CTN_MAX_JOINTS);
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    ctn_world_mark mark = ctn__scene_mark(w);
    w->append_slots++; /* file body i is slot mark.bodies + i */
    char where[64] = "";
    for (int i = 0; i < s->body_count && st == CTN_OK; ++i) {
        snprintf(where, sizeof where, "bodies[%d]", i);
        st = build_body(w, &s->bodies[i]);
    }
    for (int p = 0; p < s->plane_count && st == CTN_OK; ++p) {
        const scene_plane *pl = &s->planes[p];
        snprintf(where, sizeof where, "planes[%d]", p);
        int k = -1;
        st = ctn_world_add_plane(w, pl->normal, pl->offset, pl->friction, pl->restitution, &k);
        if (st == CTN_OK) keep_exact_normal(w, k, pl->normal);
    }
    for (int g = 0; g < s->gen_count && st == CTN_OK; ++g) {
        snprintf(where, sizeof where, "generators[%d]", g);
        st = ctn__scene_build_generator(w, &s->gens[g], mark.bodies);
    }
    for (int j = 0; j < s->joint_count && st == CTN_OK; ++j) {
        snprintf(where, sizeof where, "constraints[%d]", j);
        st = build_joint(w, &s->joints[j], mark.bodies);
    }
    if (st == CTN_OK) st = ctn__scene_build_attachments(w, s, mark.bodies, where, sizeof where);
    if (st == CTN_OK) st = ctn__scene_build_robots(w, s, where, sizeof where);
    if (st == CTN_OK && s->has_collision) {
        snprintf(where, sizeof where, "world.collision");
        st = ctn_world_set_collision(w, &s->collision);
    }
    w->append_slots--;
    if (st != CTN_OK) {
        char msg[sizeof w->error];
        snprintf(msg, sizeof msg, "%s", w->error);
        ctn__scene_rollback(w, mark);
        ctn__fail(w, st, "%s: %s: %s", s->source, where, msg);
    }
    return st;
}
