/* Generators in scene files: parsing their entries and building them. Every generator can be placed:
 * `origin` and `rotation` move the bodies, joints and planes it makes as one rigid piece (x' = origin +
 * R x, orientations and velocities rotated with it, world anchors and hinge axes too), so several can
 * share a scene without overlapping. Chains place themselves (origin is the hanging point, rotation turns
 * the direction they are laid out along) and can hang from a body, from the world (the default) or from
 * nothing (`attach_to`). */
#define _POSIX_C_SOURCE 200809L
#include "collide/collide.h"
#include "io/scene_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* v' = R v for the unit quaternion q = (w, x, y, z), in double. */
static void rotate(const double q[4], const double v[3], double out[3]) {
    double w = q[0], x = q[1], y = q[2], z = q[3];
    /* t = 2 (u x v), v' = v + w t + u x t, u = (x, y, z) */
    double t[3] = {2.0 * (y * v[2] - z * v[1]), 2.0 * (z * v[0] - x * v[2]), 2.0 * (x * v[1] - y * v[0])};
    out[0] = v[0] + w * t[0] + (y * t[2] - z * t[1]);
    out[1] = v[1] + w * t[1] + (z * t[0] - x * t[2]);
    out[2] = v[2] + w * t[2] + (x * t[1] - y * t[0]);
}

#ifdef CATENA_HAVE_CJSON

static const char *const kinds[] = {"chain",         "rope",           "grid",  "bridge", "cradle", "double_pendulum", "pile",
                                    "capsule_chain", "bridge_limits", "contact_cradle", "wheel", "tree", NULL};

/* "rotation": a unit quaternion [w, x, y, z] or {"axis": [x, y, z], "degrees": a}; identity when absent. */
static int parse_rotation(pctx *c, const cJSON *g, const char *path, scene_gen *sg) {
    const cJSON *v = ctn__json_member(g, "rotation");
    char p[PATH_MAX_LEN];
    ctn__json_path(p, path, "rotation");
    double *q = sg->rotation;
    q[0] = 1.0, q[1] = q[2] = q[3] = 0.0;
    if (!v) return 1;
    sg->placed = 1;
    if (cJSON_IsArray(v)) {
        if (ctn__json_nonzero_vec(c, g, "rotation", path, 4, q) < 0) return 0;
        double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        for (int k = 0; k < 4; ++k) q[k] /= n;
        return 1;
    }
    static const char *const keys[] = {"axis", "degrees", NULL};
    if (!cJSON_IsObject(v))
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "expected a quaternion [w, x, y, z] or {\"axis\": [x, y, z], \"degrees\": a}, got %s",
                              ctn__json_type_name(v));
    if (!ctn__json_keys(c, v, p, keys)) return 0;
    double axis[3] = {0, 0, 0}, degrees = 0.0;
    int ra = ctn__json_nonzero_vec(c, v, "axis", p, 3, axis);
    if (ra < 0) return 0;
    int rd = ctn__json_number(c, v, "degrees", p, &degrees);
    if (rd < 0) return 0;
    if (!ra || !rd) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "needs \"axis\" and \"degrees\"");
    double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]), half = 0.5 * degrees * CTN_SCENE_PI / 180.0;
    q[0] = cos(half);
    for (int k = 0; k < 3; ++k) q[k + 1] = sin(half) * axis[k] / n;
    return 1;
}

/* "attach_to": a body (index or name of an explicit body), "world" (the default), "none" or null. */
static int parse_attach_to(pctx *c, const cJSON *g, const char *path, scene_gen *sg) {
    const cJSON *v = ctn__json_member(g, "attach_to");
    sg->attach_to = SCENE_ATTACH_WORLD;
    if (!v) return 1;
    char p[PATH_MAX_LEN];
    ctn__json_path(p, path, "attach_to");
    if (cJSON_IsNull(v) || (cJSON_IsString(v) && !strcmp(v->valuestring, "none"))) {
        sg->attach_to = SCENE_ATTACH_NONE;
        return 1;
    }
    return ctn__scene_body_ref(c, v, p, 1, &sg->attach_to);
}

static int parse_chain(pctx *c, const cJSON *g, const char *path, int rope, scene_gen *sg) {
    static const char *const keys[] = {"links",    "link_length", "link_mass", "end_mass_ratio", "origin", "direction",
                                       "rotation", "attach_to",   "radius",    "friction",       NULL};
    if (!ctn__json_object(c, g, path) || !ctn__json_keys(c, g, path, keys)) return 0;
    long long links = 0;
    int r = ctn__json_int(c, g, "links", path, 1, CTN_MAX_BODIES, &links);
    if (r < 0) return 0;
    if (!r) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, path, "missing \"links\" (the number of links)");
    sg->chain = ctn_chain_desc_default((int)links);
    sg->chain.particles = rope;
    if (ctn__json_range(c, g, "link_length", path, 0.0, 1, 1e30, &sg->chain.link_length) < 0) return 0;
    if (ctn__json_range(c, g, "link_mass", path, 0.0, 1, 1e30, &sg->chain.link_mass) < 0) return 0;
    if (ctn__json_range(c, g, "end_mass_ratio", path, 0.0, 1, 1e30, &sg->chain.end_mass_ratio) < 0) return 0;
    if (ctn__json_vec(c, g, "origin", path, 3, sg->chain.origin) < 0) return 0;
    if (ctn__json_nonzero_vec(c, g, "direction", path, 3, sg->chain.direction) < 0) return 0;
    if (!parse_rotation(c, g, path, sg)) return 0;
    double d[3];
    rotate(sg->rotation, sg->chain.direction, d); /* a chain places itself: rotate its direction */
    memcpy(sg->chain.direction, d, sizeof d);
    if (!parse_attach_to(c, g, path, sg)) return 0;
    /* "radius": the links collide, as capsules from pivot to pivot (rope particles: spheres) */
    if (ctn__json_range(c, g, "radius", path, 0.0, 1, 1e30, &sg->shape_radius) < 0) return 0;
    sg->shape_friction = 0.5;
    if (ctn__json_range(c, g, "friction", path, 0.0, 0, 1e30, &sg->shape_friction) < 0) return 0;
    if (sg->shape_radius == 0.0 && ctn__json_member(g, "friction"))
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, path, "\"friction\" needs \"radius\" (the links' collision shapes)");
    sg->bodies = sg->joints = links;
    return 1;
}

/* The size keys of every generator but chains, then origin and rotation. */
static int parse_placed(pctx *c, const cJSON *g, const char *p, scene_gen *sg) {
    int kind = sg->kind;
    if (kind == GEN_GRID) {
        static const char *const keys[] = {"nx", "ny", "spacing", "origin", "rotation", NULL};
        if (!ctn__json_keys(c, g, p, keys)) return 0;
        int rx = ctn__json_int32(c, g, "nx", p, 1, CTN_MAX_BODIES / 2, &sg->nx);
        if (rx < 0) return 0;
        int ry = ctn__json_int32(c, g, "ny", p, 1, CTN_MAX_BODIES / 2, &sg->ny);
        if (ry < 0) return 0;
        if (!rx || !ry) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "needs \"nx\" and \"ny\"");
        if ((int64_t)sg->nx * sg->ny > CTN_MAX_BODIES / 2)
            return ctn__json_fail(c, CTN_ERR_LIMIT, p, "%d x %d bodies exceed the grid limit of %d", sg->nx, sg->ny, CTN_MAX_BODIES / 2);
        sg->spacing = 0.1;
        if (ctn__json_range(c, g, "spacing", p, 0.0, 1, 1e30, &sg->spacing) < 0) return 0;
        int64_t nx = sg->nx, ny = sg->ny;
        sg->bodies = nx * ny;
        sg->joints = nx + (nx - 1) * ny + nx * (ny - 1);
    } else if (kind == GEN_WHEEL || kind == GEN_DOUBLE_PENDULUM) {
        static const char *const keys[] = {"origin", "rotation", NULL};
        if (!ctn__json_keys(c, g, p, keys)) return 0;
        sg->bodies = kind == GEN_WHEEL ? 6 : 2; /* the wheel and five boxes; two rods */
        sg->joints = kind == GEN_WHEEL ? 1 : 2;
    } else {
        /* the count key and limit of each counted generator, and the joints it makes per count */
        const char *key = kind == GEN_BRIDGE || kind == GEN_BRIDGE_LIMITS  ? "planks"
                          : kind == GEN_PILE                               ? "spheres"
                          : kind == GEN_CAPSULE_CHAIN || kind == GEN_TREE ? "links"
                                                                           : "balls";
        int limit = kind == GEN_CRADLE || kind == GEN_CONTACT_CRADLE ? 100000 : kind == GEN_PILE ? 10000000 : CTN_MAX_BODIES / 2;
        const char *const keys[] = {key, "origin", "rotation", NULL};
        if (!ctn__json_keys(c, g, p, keys)) return 0;
        int r = ctn__json_int32(c, g, key, p, 1, limit, &sg->count);
        if (r < 0) return 0;
        if (!r) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "missing \"%s\"", key);
        sg->bodies = sg->count;
        sg->joints = kind == GEN_BRIDGE || kind == GEN_BRIDGE_LIMITS ? (int64_t)sg->count + 1
                     : kind == GEN_PILE                              ? 0
                     : kind == GEN_CAPSULE_CHAIN                     ? (int64_t)sg->count - 1
                                                                     : sg->count;
    }
    int ro = ctn__json_vec(c, g, "origin", p, 3, sg->origin);
    if (ro < 0) return 0;
    if (ro) sg->placed = 1;
    return parse_rotation(c, g, p, sg);
}


int ctn__scene_parse_generator(pctx *c, const cJSON *e, int index, scene_gen *sg) {
    char path[PATH_MAX_LEN];
    snprintf(path, sizeof path, "generators[%d]", index);
    if (!ctn__json_object(c, e, path) || !ctn__json_keys(c, e, path, kinds)) return 0;
    if (cJSON_GetArraySize(e) != 1)
        return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, path, "expected exactly one generator, e.g. {\"chain\": {\"links\": 100}}, got %d keys",
                    cJSON_GetArraySize(e));
    const cJSON *g = e->child;
    char p[PATH_MAX_LEN];
    ctn__json_path(p, path, g->string);
    int kind = 0;
    while (strcmp(kinds[kind], g->string)) ++kind;
    sg->kind = kind;
    sg->rotation[0] = 1.0;
    if (kind == GEN_CHAIN || kind == GEN_ROPE) return parse_chain(c, g, p, kind == GEN_ROPE, sg);
    if (!ctn__json_object(c, g, p)) return 0;
    return parse_placed(c, g, p, sg);
}
#endif /* CATENA_HAVE_CJSON */

/* ---- building ---- */

/* Moves what a generator made (bodies from nb0, joints from nj0, planes from np0) by x' = origin + R x. */
static ctn_status place(ctn_world *w, const scene_gen *g, int nb0, int nj0, int np0) {
    return ctn__scene_place(w, g->origin, g->rotation, nb0, nj0, np0);
}

ctn_status ctn__scene_place(ctn_world *w, const double origin[3], const double rotation[4], int nb0, int nj0, int np0) {
    const double *o = origin, *q = rotation;
    ctn_quat qr = ctn_quat_make((float)q[0], (float)q[1], (float)q[2], (float)q[3]);
    for (int i = nb0; i < w->body_count; ++i) {
        ctn_pose *pose = &w->pose[i];
        double x[3], y[3], v[3];
        ctn__pose_get_position(pose, x);
        rotate(q, x, y);
        for (int k = 0; k < 3; ++k) y[k] += o[k];
        ctn__pose_set_position(pose, y);
        pose->q = ctn_quat_mul(qr, pose->q);
        ctn_vel *vel = &w->vel[i];
        double lin[3] = {vel->v.x, vel->v.y, vel->v.z}, ang[3] = {vel->w.x, vel->w.y, vel->w.z};
        rotate(q, lin, v);
        vel->v = ctn_v3_make((float)v[0], (float)v[1], (float)v[2]);
        rotate(q, ang, v);
        vel->w = ctn_v3_make((float)v[0], (float)v[1], (float)v[2]);
        w->inertia[i].inv_inertia = ctn_body_inverse_inertia(*pose, w->props[i]);
    }
    /* body-frame anchors and axes move with their bodies; the world side of a joint is in the world frame */
    for (int j = nj0; j < w->joint_count; ++j) {
        if (!w->joint_alive[j] || ctn__jcore(w, j)->b >= 0) continue;
        ctn_joint_def jdef = ctn__jdef_get(w, j), *jd = &jdef;
        double a[3] = {jd->anchor_b.x, jd->anchor_b.y, jd->anchor_b.z}, b[3];
        rotate(q, a, b);
        jd->anchor_b = ctn_v3_make((float)(b[0] + o[0]), (float)(b[1] + o[1]), (float)(b[2] + o[2]));
        double ax[3] = {jd->axis_b.x, jd->axis_b.y, jd->axis_b.z};
        rotate(q, ax, b);
        jd->axis_b = ctn_v3_make((float)b[0], (float)b[1], (float)b[2]);
        /* rest orientation conj(q_a) q_world: body a turned by R, the world did not */
        jd->rel_q = ctn_quat_mul(jd->rel_q, ctn_quat_conj(qr));
        ctn_status st = ctn__jdef_set(w, j, jd); /* fails only making the first extras array */
        if (st != CTN_OK) return st;
    }
    struct ctn_collision *c = w->collision;
    for (int k = np0; c && k < c->plane_count; ++k) {
        ctn_plane *pl = &c->planes[k];
        double n[3] = {pl->normal.x, pl->normal.y, pl->normal.z}, m[3];
        rotate(q, n, m);
        pl->normal = ctn_v3_make((float)m[0], (float)m[1], (float)m[2]);
        pl->offset = (float)(pl->offset + m[0] * o[0] + m[1] * o[1] + m[2] * o[2]);
    }
    w->bodies_dirty = 1;
    return CTN_OK;
}

/* The collision shapes of a chain's links (slots nb0 ...): capsules along the rigid links from pivot to
 * pivot (the body x axis), spheres on rope particles. */
static ctn_status chain_shapes(ctn_world *w, const scene_gen *g, int nb0) {
    if (!(g->shape_radius > 0.0)) return CTN_OK;
    ctn_shape_desc sh = ctn_shape_desc_default(g->chain.particles ? CTN_SHAPE_SPHERE : CTN_SHAPE_CAPSULE);
    sh.radius = g->shape_radius;
    sh.half_length = 0.5 * g->chain.link_length;
    sh.friction = g->shape_friction;
    for (int i = 0; i < g->chain.links; ++i) {
        ctn_status st = ctn_body_set_shape(w, ctn__body_handle(w, nb0 + i), &sh);
        if (st != CTN_OK) return st;
    }
    return CTN_OK;
}

/* A chain hangs from the world by its first joint; re-hang it from a body, or free it. */
static ctn_status attach_chain(ctn_world *w, const scene_gen *g, int first_body, ctn_body_id first_link, int pin) {
    if (g->attach_to == SCENE_ATTACH_WORLD) return CTN_OK;
    ctn_status st = ctn_joint_remove(w, ctn__joint_handle(w, pin));
    if (st != CTN_OK || g->attach_to == SCENE_ATTACH_NONE) return st;
    ctn_joint_desc d = ctn_joint_desc_default(g->chain.particles ? CTN_JOINT_DISTANCE : CTN_JOINT_BALL);
    d.body_a = first_link;
    d.body_b = ctn__body_handle(w, first_body + g->attach_to);
    st = ctn_joint_desc_set_pivot(w, &d, g->chain.origin, NULL);
    if (g->chain.particles) d.rest_length = g->chain.link_length;
    return st == CTN_OK ? ctn_joint_add(w, &d, NULL) : st;
}

ctn_status ctn__scene_build_generator(ctn_world *w, const scene_gen *g, int first_body) {
    int nb0 = w->body_count, nj0 = w->joint_count, np0 = w->collision ? w->collision->plane_count : 0;
    ctn_status st;
    char spec[64];
    switch (g->kind) {
    case GEN_CHAIN:
    case GEN_ROPE: {
        ctn_body_id first = CTN_NULL_BODY;
        st = ctn_scene_chain(w, &g->chain, &first);
        if (st == CTN_OK) st = chain_shapes(w, g, nb0);
        return st == CTN_OK ? attach_chain(w, g, first_body, first, nj0) : st;
    }
    case GEN_GRID: st = ctn_scene_grid(w, g->nx, g->ny, g->spacing); break;
    case GEN_BRIDGE: st = ctn_scene_bridge(w, g->count); break;
    case GEN_CRADLE: st = ctn_scene_cradle(w, g->count); break;
    case GEN_PILE: st = ctn_scene_pile(w, g->count); break;
    case GEN_CAPSULE_CHAIN: st = ctn_scene_capsule_chain(w, g->count); break;
    case GEN_BRIDGE_LIMITS: st = ctn_scene_bridge_limits(w, g->count); break;
    case GEN_CONTACT_CRADLE: st = ctn_scene_contact_cradle(w, g->count); break;
    case GEN_WHEEL: st = ctn_scene_wheel(w); break;
    case GEN_TREE:
        snprintf(spec, sizeof spec, "tree:%d", g->count);
        st = ctn_scene_from_spec(w, spec);
        break;
    default: st = ctn_scene_double_pendulum(w); break;
    }
    if (st == CTN_OK && g->placed) st = place(w, g, nb0, nj0, np0);
    return st;
}
