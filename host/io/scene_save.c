/* ctn_scene_save_json: a world written as a scene file (docs/scene-format.md) that ctn_scene_load_json
 * turns back into the same world, bit for bit: every stored number is written with enough digits to read
 * back exactly (%.9g for the float32 state, %.17g for doubles), body-frame anchors and hinge frames as
 * stored rather than re-derived, masses as the reciprocals of the stored inverse masses. A scene holds no
 * solver state: warm-start impulses, the contact cache and user contacts belong to checkpoints. The file is
 * written to PATH.tmp.PID and renamed over PATH when complete. */
#define _POSIX_C_SOURCE 200809L
#include "core/joint_kinds.h"
#include "collide/collide.h"
#include "io/json_write.h"
#include "io/scene_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void put_f3(FILE *f, const char *key, ctn_v3 v) { fprintf(f, ", \"%s\": [%.9g, %.9g, %.9g]", key, v.x, v.y, v.z); }

static void put_d3(FILE *f, const char *key, const double v[3]) { fprintf(f, ", \"%s\": [%.17g, %.17g, %.17g]", key, v[0], v[1], v[2]); }

static void put_quat(FILE *f, const char *key, ctn_quat q) { fprintf(f, ", \"%s\": [%.9g, %.9g, %.9g, %.9g]", key, q.w, q.x, q.y, q.z); }

static int is_zero(ctn_v3 v) { return v.x == 0.0f && v.y == 0.0f && v.z == 0.0f; }


static void write_world(FILE *f, const ctn_world *w) {
    const ctn_world_desc *d = &w->desc;
    fprintf(f, "  \"world\": {\"gravity\": [%.17g, %.17g, %.17g], \"time_step\": %.17g, \"substeps\": %d, \"iterations\": %d",
            d->gravity[0], d->gravity[1], d->gravity[2], d->time_step, d->substeps, d->iterations);
    static const char *const bounded[] = {"auto", "exact", "sweep"};
    fprintf(f, ", \"solver\": \"%s\", \"backend\": \"%s\", \"stabilization\": \"%s\", \"integrator\": \"%s\", \"rattle_max_joints\": %d",
            ctn_solver_name(d->solver), ctn_backend_name(d->backend), ctn_stabilization_name(d->stabilization), ctn_integrator_name(d->integrator),
            d->rattle_max_joints);
    fprintf(f, ", \"bounded_rows\": \"%s\"", (unsigned)d->bounded_rows <= CTN_BOUNDED_SWEEP ? bounded[d->bounded_rows] : "auto");
    fprintf(f, ",\n            \"compliance\": %.17g, \"damping_time\": %.17g, \"baumgarte\": %.17g, \"warm_start\": %.17g", d->compliance,
            d->damping_time, d->baumgarte, d->warm_start);
    fprintf(f, ", \"max_colours\": %d, \"threads\": %d, \"max_speed\": %.17g, \"geometric_stiffness\": %.17g", d->max_colours, d->threads,
            d->max_speed, d->geometric_stiffness);
    if (w->collision) {
        const ctn_collision_desc *c = &w->collision->desc;
        fprintf(f, ",\n            \"collision\": {\"enabled\": %s, \"skip_jointed\": %s, \"margin\": %.17g}", c->enabled ? "true" : "false",
                c->skip_jointed ? "true" : "false", c->margin);
    }
    fputs("}", f);
}

/* One shape object ({"sphere": r, ...}). */
static void write_shape_object(FILE *f, const ctn_shape *s) {
    if (s->type == CTN_SHAPE_SPHERE) fprintf(f, "{\"sphere\": %.9g", s->radius);
    else if (s->type == CTN_SHAPE_CAPSULE) fprintf(f, "{\"capsule\": {\"radius\": %.9g, \"half_length\": %.9g}", s->radius, s->half_length);
    else fprintf(f, "{\"box\": [%.9g, %.9g, %.9g]", s->half_extents.x, s->half_extents.y, s->half_extents.z);
    fprintf(f, ", \"friction\": %.9g, \"restitution\": %.9g", s->friction, s->restitution);
    if (s->group) fprintf(f, ", \"group\": %d", s->group);
    if (s->placed)
        fprintf(f, ", \"offset\": [%.9g, %.9g, %.9g], \"rotation\": [%.9g, %.9g, %.9g, %.9g]", s->offset.x, s->offset.y, s->offset.z, s->rot.w,
                s->rot.x, s->rot.y, s->rot.z);
    fputs("}", f);
}

/* A body's shapes: "shape" for one, "shapes" for a compound. */
static void write_shapes(FILE *f, const struct ctn_collision *c, int body) {
    int n = ctn__shape_count_of(c, body);
    if (n == 1) fputs(", \"shape\": ", f);
    else if (n > 1) fputs(", \"shapes\": [", f);
    for (int k = 0; k < n; ++k) {
        if (k) fputs(", ", f);
        write_shape_object(f, ctn__shape_at(c, body, k));
    }
    if (n > 1) fputs("]", f);
}

/* Live bodies in id order; index[id] = their position in the file (the ids a loaded world gives them). */
/* A scene's body names are unique and never "world": the first body of each name keeps it. */
static void write_name(FILE *f, ctn_world *w, int id) {
    const char *name = NULL;
    ctn_body_id first = CTN_NULL_BODY;
    ctn_body_id handle = ctn__body_handle(w, id);
    if (ctn_body_get_name(w, handle, &name) != CTN_OK || !name || !name[0] || !strcmp(name, "world")) return;
    if (ctn_body_find(w, name, &first) != CTN_OK || !ctn_body_id_equal(first, handle)) return;
    fputs(", \"name\": ", f);
    ctn__json_write_string(f, name);
}

static void write_bodies(FILE *f, ctn_world *w, int *index) {
    const struct ctn_collision *c = w->collision;
    int n = 0;
    fputs(",\n  \"bodies\": [", f);
    for (int i = 0; i < w->body_count; ++i) {
        const ctn_props *pr = &w->props[i];
        index[i] = -1;
        if (!(pr->flags & CTN_BODY_FLAG_ALIVE)) continue;
        index[i] = n;
        int particle = pr->flags & CTN_BODY_FLAG_PARTICLE, dynamic = pr->flags & CTN_BODY_FLAG_DYNAMIC;
        const char *type = dynamic ? "dynamic" : (pr->flags & CTN_BODY_FLAG_KINEMATIC) ? "kinematic" : "static";
        fprintf(f, "%s\n    {\"type\": \"%s\"", n++ ? "," : "", type);
        write_name(f, w, i);
        if (particle) fputs(", \"particle\": true", f);
        if (dynamic) fprintf(f, ", \"mass\": %.17g", 1.0 / (double)w->inertia[i].inv_mass);
        if (dynamic && !particle) {
            ctn_v3 ii = pr->inv_inertia_body;
            fprintf(f, ", \"inertia\": [%.17g, %.17g, %.17g]", 1.0 / (double)ii.x, 1.0 / (double)ii.y, 1.0 / (double)ii.z);
        }
        double x[3];
        ctn__pose_get_position(&w->pose[i], x);
        put_d3(f, "position", x);
        if (!particle) put_quat(f, "orientation", w->pose[i].q);
        put_f3(f, "velocity", w->vel[i].v);
        if (!particle) put_f3(f, "angular_velocity", w->vel[i].w);
        ctn_body_force uf = ctn__body_force_get(w, i);
        if (!is_zero(uf.force)) put_f3(f, "force", uf.force);
        if (!is_zero(uf.torque)) put_f3(f, "torque", uf.torque);
        write_shapes(f, c, i);
        fputs("}", f);
    }
    fputs("\n  ]", f);
}

static void write_planes(FILE *f, const ctn_world *w) {
    const struct ctn_collision *c = w->collision;
    if (!c || !c->plane_count) return;
    fputs(",\n  \"planes\": [", f);
    for (int k = 0; k < c->plane_count; ++k) {
        const ctn_plane *p = &c->planes[k];
        fprintf(f, "%s\n    {\"normal\": [%.9g, %.9g, %.9g], \"offset\": %.9g, \"friction\": %.9g, \"restitution\": %.9g}", k ? "," : "",
                p->normal.x, p->normal.y, p->normal.z, p->offset, p->friction, p->restitution);
    }
    fputs("\n  ]", f);
}

/* A joint's fields as the joint-type table says the type stores them (core/joint_kinds.h): the scene
 * writer names no type. */
static void write_joint(FILE *f, const ctn_world *w, const ctn_joint_def *j, const int *index) {
    const unsigned has = ctn__joint_kind(j->type)->flags;
    fprintf(f, "{\"type\": \"%s\", \"a\": %d, \"b\": ", ctn_joint_type_name((ctn_joint_type)ctn__joint_type(j)), index[j->a]);
    if (j->b < 0) fputs("\"world\"", f);
    else fprintf(f, "%d", index[j->b]);
    /* a second axis in body b's frame, as a world direction (fixed in the world when b is) */
    ctn_v3 axis2 = (has & CTN_JK_AXIS2) ? (j->b < 0 ? j->axis_b : ctn_quat_rotate(w->pose[j->b].q, j->axis_b)) : ctn_v3_zero();
    if (has & CTN_JK_RATIO) { /* gear, rack_pinion: the anchors hold angle references, not points */
        /* the axes at the current poses; the reloaded gear starts from its error at the save (~0) again */
        put_f3(f, "axis", ctn_quat_rotate(w->pose[j->a].q, j->axis_a));
        put_f3(f, "axis2", axis2);
        if (j->flags & CTN_JF_RACK_BASE) {
            put_f3(f, "anchor_a", j->anchor_b); /* the pinion point (kernels/ctn_types.h) */
            fputs(", \"relative\": true", f);
        }
        fprintf(f, ", \"ratio\": %.9g, \"compliance\": %.9g, \"damping_time\": %.9g}", j->stiffness, j->compliance, j->damping_time);
        return;
    }
    put_f3(f, "anchor_a", j->anchor_a);
    put_f3(f, "anchor_b", j->anchor_b);
    if (has & CTN_JK_REST_LENGTH) fprintf(f, ", \"rest_length\": %.9g", j->rest_length);
    if (ctn__joint_kind_has(ctn__joint_type(j), CTN_JK_FORCE)) { /* an implicit spring is stored as a distance row */
        fprintf(f, ", \"stiffness\": %.9g, \"damping\": %.9g%s}", j->stiffness, j->damping,
                (j->flags & CTN_JF_IMPLICIT_SPRING) ? ", \"implicit\": true" : "");
        return;
    }
    fprintf(f, ", \"compliance\": %.9g, \"damping_time\": %.9g", j->compliance, j->damping_time);
    if (has & CTN_JK_AXIS) {
        put_f3(f, "axis", ctn_quat_rotate(w->pose[j->a].q, j->axis_a)); /* for the reader; the frames are exact */
        if (has & CTN_JK_AXIS2) put_f3(f, "axis2", axis2);
        put_f3(f, "axis_a", j->axis_a);
        put_f3(f, "axis_b", j->axis_b);
        if (j->flags & CTN_JF_LIMIT) fprintf(f, ", \"limits\": [%.9g, %.9g]", j->lo, j->hi);
        if (j->flags & CTN_JF_SWING) fprintf(f, ", \"swing_limit\": %.9g", j->rest_length);
        if (j->flags & CTN_JF_MOTOR)
            fprintf(f, ", \"motor\": {\"speed\": %.9g, \"%s\": %.9g}", j->stiffness, (has & CTN_JK_SLIDES) ? "max_force" : "max_torque", j->damping);
    }
    if (has & CTN_JK_ANGULAR) put_quat(f, "rest_orientation", j->rel_q); /* ratio types returned above */
    if ((has & CTN_JK_ROPE) && (j->flags & CTN_JF_ROPE)) fputs(", \"rope\": true", f);
    fputs("}", f);
}

static void write_scene(FILE *f, ctn_world *w, int *index) {
    fputs("{\n  \"version\": 1,\n  \"description\": \"written by ctn_scene_save_json\",\n", f);
    write_world(f, w);
    write_bodies(f, w, index);
    write_planes(f, w);
    fputs(",\n  \"constraints\": [", f);
    int n = 0;
    for (int j = 0; j < w->joint_count; ++j) {
        if (!w->joint_alive[j] || !ctn__joint_kind_has(ctn__jcore(w, j)->type, CTN_JK_SCENE)) continue;
        ctn_joint_def def = ctn__jdef_get(w, j);
        const ctn_joint_def *jd = &def; /* contacts are not part of a scene */
        fputs(n++ ? ",\n    " : "\n    ", f);
        if (jd->type == CTN_JT_CURVE) ctn__scene_write_curve(f, w, j, index);
        else write_joint(f, w, jd, index);
    }
    fputs("\n  ]", f);
    ctn__scene_write_attachments(f, w, index);
    fputs("\n}\n", f);
}

ctn_status ctn_scene_save_json(ctn_world *w, const char *path) {
    CTN__ENTER(w);
    if (!path) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_scene_save_json: path is NULL");
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    size_t n = strlen(path) + 32;
    char *tmp = ctn__malloc(n);
    int *index = ctn__malloc(((size_t)w->body_count + 1) * sizeof *index);
    if (!tmp || !index) {
        ctn__free(tmp), ctn__free(index);
        return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "ctn_scene_save_json: out of memory for %d bodies", w->body_count);
    }
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        st = ctn__fail(w, CTN_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    } else {
        write_scene(f, w, index);
        int bad = ferror(f) != 0;
        if (fclose(f) != 0) bad = 1;
        if (bad) st = ctn__fail(w, CTN_ERR_IO, "%s: write failed: %s", path, strerror(errno));
        else if (rename(tmp, path) != 0) st = ctn__fail(w, CTN_ERR_IO, "%s: cannot replace: %s", path, strerror(errno));
        if (st != CTN_OK) remove(tmp);
    }
    ctn__free(tmp);
    ctn__free(index);
    return st;
}
