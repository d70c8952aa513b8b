/* Bodies in scene files: type, mass, inertia (given or of a solid shape), pose, velocities, forces, name,
 * and the collision shape with its material. */
#define _POSIX_C_SOURCE 200809L
#include "io/scene_internal.h"

#ifdef CATENA_HAVE_CJSON
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const body_types[] = {"dynamic", "static", "kinematic", NULL};

static int parse_inertia(pctx *c, const cJSON *b, const char *path, scene_body *sb) {
    const cJSON *v = ctn__json_member(b, "inertia");
    char p[PATH_MAX_LEN];
    ctn__json_path(p, path, "inertia");
    if (cJSON_IsArray(v)) {
        if (ctn__json_vec(c, b, "inertia", path, 3, sb->d.inertia) < 0) return 0;
        for (int k = 0; k < 3; ++k)
            if (!(sb->d.inertia[k] > 0.0)) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "moment %d is %g; moments must be > 0", k, sb->d.inertia[k]);
        return 1;
    }
    if (!cJSON_IsObject(v))
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "expected [Ixx, Iyy, Izz] or a shape {\"box\": [hx, hy, hz]}, {\"sphere\": r}, {\"capsule\": {...}}, got %s",
                    ctn__json_type_name(v));
    static const char *const shapes[] = {"box", "sphere", "capsule", NULL};
    if (!ctn__json_keys(c, v, p, shapes)) return 0;
    if (cJSON_GetArraySize(v) != 1) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "give exactly one shape (box, sphere or capsule)");
    double m = sb->d.mass;
    if (ctn__json_member(v, "box")) {
        double he[3];
        if (ctn__json_vec(c, v, "box", p, 3, he) < 0) return 0;
        for (int k = 0; k < 3; ++k)
            if (!(he[k] > 0.0)) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "box half extent %d is %g; it must be > 0", k, he[k]);
        ctn_inertia_box(m, he, sb->d.inertia);
    } else if (ctn__json_member(v, "sphere")) {
        double r = 0.0;
        if (ctn__json_range(c, v, "sphere", p, 0.0, 1, 1e30, &r) < 0) return 0;
        ctn_inertia_sphere(m, r, sb->d.inertia);
    } else {
        const cJSON *cap = ctn__json_member(v, "capsule");
        char pc[PATH_MAX_LEN];
        ctn__json_path(pc, p, "capsule");
        static const char *const ckeys[] = {"radius", "half_length", "axis", NULL};
        static const char *const axes[] = {"x", "y", "z", NULL};
        if (!ctn__json_object(c, cap, pc) || !ctn__json_keys(c, cap, pc, ckeys)) return 0;
        double r = 0.0, hl = 0.0;
        int axis = 0;
        int rr = ctn__json_range(c, cap, "radius", pc, 0.0, 1, 1e30, &r);
        if (rr < 0) return 0;
        int rh = ctn__json_range(c, cap, "half_length", pc, 0.0, 0, 1e30, &hl);
        if (rh < 0) return 0;
        if (!rr || !rh) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, pc, "needs \"radius\" and \"half_length\"");
        if (ctn__json_enum(c, cap, "axis", pc, axes, &axis) < 0) return 0;
        ctn_inertia_capsule(m, r, hl, axis, sb->d.inertia);
    }
    return 1;
}

/* "shape": {"sphere": r}, {"capsule": {"radius": r, "half_length": h}} (along body x) or {"box": [hx, hy, hz]},
 * with the material: "friction" (default 0.5) and "restitution" (default 0), the collision "group"
 * (default 0: none; shapes sharing a nonzero group never collide), and its place on the body: "offset"
 * (the centre in the body frame) and "rotation" (a quaternion [w, x, y, z]: its axes in the body frame). */
static int parse_shape_at(pctx *c, const cJSON *v, const char *p, const scene_body *sb, ctn_shape_desc *sh) {
    static const char *const keys[] = {"sphere", "capsule", "box", "friction", "restitution", "group", "offset", "rotation", NULL};
    if (!ctn__json_object(c, v, p) || !ctn__json_keys(c, v, p, keys)) return 0;
    int kinds = !!ctn__json_member(v, "sphere") + !!ctn__json_member(v, "capsule") + !!ctn__json_member(v, "box");
    if (kinds != 1) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "give exactly one of \"sphere\", \"capsule\", \"box\"");
    if (ctn__json_member(v, "sphere")) {
        *sh = ctn_shape_desc_default(CTN_SHAPE_SPHERE);
        if (ctn__json_range(c, v, "sphere", p, 0.0, 1, 1e30, &sh->radius) < 0) return 0;
    } else if (ctn__json_member(v, "box")) {
        *sh = ctn_shape_desc_default(CTN_SHAPE_BOX);
        if (ctn__json_vec(c, v, "box", p, 3, sh->half_extents) < 0) return 0;
        for (int k = 0; k < 3; ++k)
            if (!(sh->half_extents[k] > 0.0))
                return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "box half extent %d is %g; it must be > 0", k, sh->half_extents[k]);
    } else {
        *sh = ctn_shape_desc_default(CTN_SHAPE_CAPSULE);
        const cJSON *cap = ctn__json_member(v, "capsule");
        char pc[PATH_MAX_LEN];
        ctn__json_path(pc, p, "capsule");
        static const char *const ckeys[] = {"radius", "half_length", NULL};
        if (!ctn__json_object(c, cap, pc) || !ctn__json_keys(c, cap, pc, ckeys)) return 0;
        int rr = ctn__json_range(c, cap, "radius", pc, 0.0, 1, 1e30, &sh->radius);
        if (rr < 0) return 0;
        int rh = ctn__json_range(c, cap, "half_length", pc, 0.0, 0, 1e30, &sh->half_length);
        if (rh < 0) return 0;
        if (!rr || !rh) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, pc, "needs \"radius\" and \"half_length\"");
    }
    if (sb->d.particle && sh->type != CTN_SHAPE_SPHERE)
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "a particle has no orientation: only a sphere fits");
    if (ctn__json_range(c, v, "friction", p, 0.0, 0, 1e30, &sh->friction) < 0) return 0;
    if (ctn__json_range(c, v, "restitution", p, 0.0, 0, 1.0, &sh->restitution) < 0) return 0;
    if (ctn__json_int32(c, v, "group", p, 0, 2147483647, &sh->group) < 0) return 0;
    if (ctn__json_vec(c, v, "offset", p, 3, sh->offset) < 0) return 0;
    for (int k = 0; k < 3; ++k)
        if (fabs(sh->offset[k]) > CTN_MAX_LENGTH) {
            char po[PATH_MAX_LEN];
            ctn__json_path(po, p, "offset");
            return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, po, "[%d] = %g m is beyond CTN_MAX_LENGTH (%g m)", k, sh->offset[k], CTN_MAX_LENGTH);
        }
    if (ctn__json_nonzero_vec(c, v, "rotation", p, 4, sh->rotation) < 0) return 0;
    int placed = sh->offset[0] != 0.0 || sh->offset[1] != 0.0 || sh->offset[2] != 0.0 || sh->rotation[1] != 0.0 || sh->rotation[2] != 0.0 ||
                 sh->rotation[3] != 0.0;
    if (sb->d.particle && placed)
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "a particle has no orientation: its sphere sits at its centre (no offset or rotation)");
    return 1;
}

/* "shape": one shape; "shapes": a list of them (a compound: each at its own offset and rotation, at most
 * CTN_MAX_BODY_SHAPES), the first as "shape" would give it. */
static int parse_shape(pctx *c, const cJSON *b, const char *path, scene_body *sb) {
    const cJSON *v = ctn__json_member(b, "shape"), *list = ctn__json_member(b, "shapes");
    char p[PATH_MAX_LEN];
    if (v && list) {
        ctn__json_path(p, path, "shapes");
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "give \"shape\" or \"shapes\", not both");
    }
    if (v) {
        ctn__json_path(p, path, "shape");
        if (!parse_shape_at(c, v, p, sb, &sb->shape)) return 0;
        sb->has_shape = 1;
        return 1;
    }
    if (!list) return 1;
    ctn__json_path(p, path, "shapes");
    int n = cJSON_IsArray(list) ? cJSON_GetArraySize(list) : -1;
    if (n < 1 || n > CTN_MAX_BODY_SHAPES)
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "expected a list of 1 to %d shapes", CTN_MAX_BODY_SHAPES);
    if (sb->d.particle && n > 1) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "a particle holds one centred sphere");
    if (n > 1 && !(sb->more = ctn__calloc((size_t)n - 1, sizeof *sb->more)))
        return ctn__json_fail(c, CTN_ERR_OUT_OF_MEMORY, p, "out of memory");
    for (int k = 0; k < n; ++k) {
        char pk[PATH_MAX_LEN + 16];
        snprintf(pk, sizeof pk, "%.*s[%d]", PATH_MAX_LEN - 1, p, k);
        if (!parse_shape_at(c, cJSON_GetArrayItem(list, k), pk, sb, k ? &sb->more[k - 1] : &sb->shape)) return 0;
        sb->more_count = k; /* the parsed ones (freed with the scene) */
    }
    sb->has_shape = 1;
    return 1;
}

/* The inertia of a rigid dynamic body given only a shape: that of the shape, solid. */
static void inertia_of_shape(scene_body *sb) {
    const ctn_shape_desc *sh = &sb->shape;
    if (sh->type == CTN_SHAPE_SPHERE) ctn_inertia_sphere(sb->d.mass, sh->radius, sb->d.inertia);
    else if (sh->type == CTN_SHAPE_BOX) ctn_inertia_box(sb->d.mass, sh->half_extents, sb->d.inertia);
    else ctn_inertia_capsule(sb->d.mass, sh->radius, sh->half_length, 0, sb->d.inertia);
}

int ctn__scene_parse_body(pctx *c, const cJSON *b, int index, scene_body *sb) {
    static const char *const keys[] = {"name", "type", "particle", "mass", "inertia", "position", "orientation", "velocity",
                                       "angular_velocity", "force", "torque", "shape", "shapes", NULL};
    char path[PATH_MAX_LEN];
    snprintf(path, sizeof path, "bodies[%d]", index);
    if (!ctn__json_object(c, b, path) || !ctn__json_keys(c, b, path, keys)) return 0;
    sb->d = ctn_body_desc_default();
    int type = 0, r;
    if (ctn__json_enum(c, b, "type", path, body_types, &type) < 0) return 0;
    sb->d.type = (ctn_body_type)type;
    if (ctn__json_bool(c, b, "particle", path, &sb->d.particle) < 0) return 0;
    char p[PATH_MAX_LEN];
    if ((r = ctn__json_number(c, b, "mass", path, &sb->d.mass)) < 0) return 0;
    if (r && !(sb->d.mass > 0.0)) {
        ctn__json_path(p, path, "mass");
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "%g must be > 0", sb->d.mass);
    }
    int dynamic_rigid = sb->d.type == CTN_BODY_DYNAMIC && !sb->d.particle;
    if (ctn__json_member(b, "inertia")) {
        ctn__json_path(p, path, "inertia");
        if (sb->d.particle) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "a particle has no inertia (remove the key or \"particle\")");
        if (!parse_inertia(c, b, path, sb)) return 0;
    } else if (dynamic_rigid && ctn__json_member(b, "shapes")) {
        ctn__json_path(p, path, "inertia");
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "required for a rigid dynamic body with \"shapes\" (a compound does not give it)");
    } else if (dynamic_rigid && ctn__json_member(b, "shape")) {
        if (!parse_shape(c, b, path, sb)) return 0;
        const double *o = sb->shape.offset, *q = sb->shape.rotation;
        if (o[0] != 0.0 || o[1] != 0.0 || o[2] != 0.0 || q[1] != 0.0 || q[2] != 0.0 || q[3] != 0.0) {
            ctn__json_path(p, path, "inertia");
            return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p,
                                  "required: the shape is placed off the body's centre or axes, so it does not give the inertia about them");
        }
        inertia_of_shape(sb);
    } else if (dynamic_rigid) {
        ctn__json_path(p, path, "inertia");
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p,
                    "required for a rigid dynamic body: give [Ixx, Iyy, Izz], a shape such as {\"sphere\": 0.1}, or \"particle\": true");
    }
    if (!sb->has_shape && !parse_shape(c, b, path, sb)) return 0;
    if (ctn__json_vec(c, b, "position", path, 3, sb->d.position) < 0) return 0;
    if ((r = ctn__json_vec(c, b, "orientation", path, 4, sb->d.orientation)) < 0) return 0;
    if (r) {
        const double *q = sb->d.orientation;
        if (!(sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) > 1e-9)) {
            ctn__json_path(p, path, "orientation");
            return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "the quaternion (w, x, y, z) has zero length");
        }
    }
    if (ctn__json_vec(c, b, "velocity", path, 3, sb->d.velocity) < 0) return 0;
    if (ctn__json_vec(c, b, "angular_velocity", path, 3, sb->d.angular_velocity) < 0) return 0;
    int rf = ctn__json_vec(c, b, "force", path, 3, sb->force);
    if (rf < 0) return 0;
    int rt = ctn__json_vec(c, b, "torque", path, 3, sb->torque);
    if (rt < 0) return 0;
    sb->has_force = rf || rt;
    const char *name = NULL;
    int rn = ctn__json_string(c, b, "name", path, &name);
    if (rn < 0) return 0;
    if (rn) {
        ctn__json_path(p, path, "name");
        if (!name[0] || !strcmp(name, "world"))
            return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "'%s' is reserved; choose another name", name);
        if (strlen(name) > 255) return ctn__json_fail(c, CTN_ERR_LIMIT, p, "longer than 255 characters");
        sb->name = ctn__malloc(strlen(name) + 1);
        if (!sb->name) return ctn__json_fail(c, CTN_ERR_OUT_OF_MEMORY, p, "out of memory");
        strcpy(sb->name, name);
    }
    return 1;
}

#endif /* CATENA_HAVE_CJSON */
