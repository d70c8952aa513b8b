/* Contact scenes: a capsule chain dropped onto a floor, a pile of spheres in a box, a hinged
 * bridge with limits, a motorised wheel, and Newton's cradle with contacts. Built through the public API
 * only, like host/scenes/scenes.c. */
#include "collide/collide.h"
#include "scenes/scenes_internal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

static ctn_status add_floor(ctn_world *w, double friction) {
    const double up[3] = {0.0, 1.0, 0.0};
    return ctn_world_add_plane(w, up, 0.0, friction, 0.0, NULL);
}

static ctn_status scene_capsule_chain(ctn_world *w, int links) {
    if (!w) return CTN_ERR_INVALID_ARGUMENT;
    ctn__clear_error(w);
    if (links < 1 || links > CTN_MAX_BODIES / 2)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "capsule_chain.links: %d is not in [1, %d]", links, CTN_MAX_BODIES / 2);
    /* A helix of pivots 0.1 m apart (about 2 sqrt(N) links per turn, 0.1 m pitch) from 0.5 m up: it falls
     * and coils on the floor, so non-neighbouring links collide. */
    const double seg = 0.1, radius = 0.02, mass = 0.1, pitch = 0.1, y0 = 0.5;
    int per_turn = (int)ceil(2.0 * sqrt((double)links));
    if (per_turn < 16) per_turn = 16;
    double R = per_turn * seg / (2.0 * PI);
    ctn_status st = add_floor(w, 0.5);
    if (st != CTN_OK) return st;
    ctn_shape_desc sh = ctn_shape_desc_default(CTN_SHAPE_CAPSULE);
    sh.radius = radius;
    ctn_body_desc bd = ctn_body_desc_default();
    bd.mass = mass;
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_BALL);
    ctn_body_id prev = CTN_WORLD;
    for (int i = 0; i < links; ++i) {
        double p[2][3];
        for (int e = 0; e < 2; ++e) {
            double a = 2.0 * PI * (i + e) / per_turn;
            p[e][0] = R * cos(a), p[e][1] = y0 + pitch * (i + e) / per_turn, p[e][2] = R * sin(a);
        }
        double d[3] = {p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]};
        double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        for (int k = 0; k < 3; ++k) d[k] /= len, bd.position[k] = 0.5 * (p[0][k] + p[1][k]);
        ctn__quat_x_to(d, bd.orientation);
        sh.half_length = 0.5 * len;
        ctn_inertia_capsule(mass, radius, sh.half_length, 0, bd.inertia);
        ctn_body_id id;
        st = ctn_body_add(w, &bd, &id);
        if (st == CTN_OK) st = ctn_body_set_shape(w, id, &sh);
        if (st == CTN_OK && !ctn_body_is_world(prev)) {
            jd.body_a = id;
            jd.body_b = prev;
            st = ctn_joint_desc_set_pivot(w, &jd, p[0], NULL);
            if (st == CTN_OK) st = ctn_joint_add(w, &jd, NULL);
        }
        if (st != CTN_OK) return st;
        prev = id;
    }
    return CTN_OK;
}

/* Deterministic jitter in [-1, 1). */
static double jitter(uint32_t *s) {
    *s = *s * 1664525u + 1013904223u;
    return (double)(*s >> 8) / 8388608.0 - 1.0;
}

static ctn_status scene_pile(ctn_world *w, int spheres) {
    if (!w) return CTN_ERR_INVALID_ARGUMENT;
    ctn__clear_error(w);
    if (spheres < 1 || spheres > 10000000)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "pile.spheres: %d is not in [1, 10000000]", spheres);
    /* layers of k x k spheres 2.2 r apart (k ~ cbrt(N)), jittered by 0.05 r, in a box just wide enough */
    const double r = 0.05, mass = 0.5, gap = 2.2 * r;
    int k = (int)ceil(cbrt((double)spheres));
    if (k < 2) k = 2;
    double half = 0.5 * k * gap + 0.2 * r;
    const double walls[5][4] = {{0, 1, 0, 0}, {1, 0, 0, -half}, {-1, 0, 0, -half}, {0, 0, 1, -half}, {0, 0, -1, -half}};
    for (int p = 0; p < 5; ++p) {
        ctn_status st = ctn_world_add_plane(w, walls[p], walls[p][3], 0.5, 0.0, NULL);
        if (st != CTN_OK) return st;
    }
    ctn_shape_desc sh = ctn_shape_desc_default(CTN_SHAPE_SPHERE);
    sh.radius = r;
    ctn_body_desc bd = ctn_body_desc_default();
    bd.mass = mass;
    ctn_inertia_sphere(mass, r, bd.inertia);
    uint32_t seed = 12345u;
    for (int i = 0; i < spheres; ++i) {
        int layer = i / (k * k), ix = i % k, iz = (i / k) % k;
        bd.position[0] = -half + 0.2 * r + (ix + 0.5) * gap + 0.05 * r * jitter(&seed);
        bd.position[1] = r + 0.1 + layer * gap + 0.05 * r * jitter(&seed);
        bd.position[2] = -half + 0.2 * r + (iz + 0.5) * gap + 0.05 * r * jitter(&seed);
        ctn_body_id id;
        ctn_status st = ctn_body_add(w, &bd, &id);
        if (st == CTN_OK) st = ctn_body_set_shape(w, id, &sh);
        if (st != CTN_OK) return st;
    }
    return CTN_OK;
}

static ctn_status scene_bridge_limits(ctn_world *w, int planks) {
    if (!w) return CTN_ERR_INVALID_ARGUMENT;
    ctn__clear_error(w);
    if (planks < 1 || planks > 1000000) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "bridge_limits.planks: %d is not valid", planks);
    int first_body = w->body_count, first_joint = w->joint_count;
    ctn_status st = ctn_scene_bridge(w, planks);
    if (st != CTN_OK) return st;
    /* planks (1 m along x) collide as capsules; the hinges bend at most 0.15 rad */
    ctn_shape_desc sh = ctn_shape_desc_default(CTN_SHAPE_CAPSULE);
    sh.radius = 0.05;
    sh.half_length = 0.45;
    for (int b = first_body; b < w->body_count && st == CTN_OK; ++b) st = ctn_body_set_shape(w, ctn__body_handle(w, b), &sh);
    for (int j = first_joint; j < w->joint_count && st == CTN_OK; ++j) st = ctn_joint_set_limits(w, ctn__joint_handle(w, j), 1, -0.15, 0.15);
    /* a load: heavy balls dropped along the span */
    ctn_shape_desc ball = ctn_shape_desc_default(CTN_SHAPE_SPHERE);
    ball.radius = 0.2;
    ctn_body_desc bd = ctn_body_desc_default();
    bd.mass = 20.0;
    ctn_inertia_sphere(bd.mass, ball.radius, bd.inertia);
    int balls = planks < 8 ? 1 : planks / 4;
    for (int i = 0; i < balls && st == CTN_OK; ++i) {
        ctn_body_id id;
        bd.position[0] = (i + 0.5) * planks / (double)balls;
        bd.position[1] = 1.0;
        st = ctn_body_add(w, &bd, &id);
        if (st == CTN_OK) st = ctn_body_set_shape(w, id, &ball);
    }
    return st;
}

static ctn_status scene_wheel(ctn_world *w) {
    if (!w) return CTN_ERR_INVALID_ARGUMENT;
    ctn__clear_error(w);
    ctn_status st = add_floor(w, 0.5);
    if (st != CTN_OK) return st;
    /* a 0.5 m disc of 10 kg on a fixed axle along z at 1.5 m, driven at 10 rad/s with at most 50 N m */
    ctn_body_desc bd = ctn_body_desc_default();
    bd.mass = 10.0;
    bd.position[1] = 1.5;
    double r = 0.5;
    bd.inertia[0] = bd.inertia[1] = 0.25 * bd.mass * r * r;
    bd.inertia[2] = 0.5 * bd.mass * r * r;
    ctn_body_id wheel;
    st = ctn_body_add(w, &bd, &wheel);
    ctn_shape_desc sh = ctn_shape_desc_default(CTN_SHAPE_SPHERE);
    sh.radius = r;
    sh.friction = 0.8;
    if (st == CTN_OK) st = ctn_body_set_shape(w, wheel, &sh);
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_HINGE);
    jd.body_a = wheel;
    jd.body_b = CTN_WORLD;
    const double pivot[3] = {0.0, 1.5, 0.0}, axis[3] = {0.0, 0.0, 1.0};
    ctn_joint_id hinge = CTN_NULL_JOINT;
    if (st == CTN_OK) st = ctn_joint_desc_set_pivot(w, &jd, pivot, axis);
    if (st == CTN_OK) st = ctn_joint_add(w, &jd, &hinge);
    if (st == CTN_OK) st = ctn_joint_set_motor(w, hinge, 1, 10.0, 50.0);
    /* balls dropped onto the turning wheel are flung off by friction */
    ctn_shape_desc ball = ctn_shape_desc_default(CTN_SHAPE_SPHERE);
    ball.radius = 0.1;
    ball.friction = 0.8;
    ctn_body_desc bb = ctn_body_desc_default();
    bb.mass = 0.5;
    ctn_inertia_sphere(bb.mass, ball.radius, bb.inertia);
    for (int i = 0; i < 5 && st == CTN_OK; ++i) {
        ctn_body_id id;
        bb.position[0] = -0.2 + 0.1 * i;
        bb.position[1] = 2.3 + 0.3 * i;
        st = ctn_body_add(w, &bb, &id);
        if (st == CTN_OK) st = ctn_body_set_shape(w, id, &ball);
    }
    return st;
}

static ctn_status scene_contact_cradle(ctn_world *w, int balls) {
    if (!w) return CTN_ERR_INVALID_ARGUMENT;
    ctn__clear_error(w);
    if (balls < 2 || balls > 100000) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "contact_cradle.balls: %d is not in [2, 100000]", balls);
    /* pendulums of 1 m with 0.1 m balls 12 mm apart: with the default 4 substeps the 2.4 m/s impact speed
     * covers 10 mm per substep, so each impact is a two-ball event (a simultaneous impact of touching balls
     * spreads the momentum, the textbook failure of a one-shot LCP) */
    const double r = 0.05, len = 1.0, gap = 0.012;
    /* contacts are found once per step: a ball at rest that is struck moves 40 mm within the step, so the
     * speculative margin must cover the gaps for the next contact to exist before the ball arrives */
    ctn_collision_desc cd = ctn_collision_desc_default();
    if (w->collision) cd = w->collision->desc;
    if (cd.margin < 0.05) cd.margin = 0.05;
    ctn_status cst = ctn_world_set_collision(w, &cd);
    if (cst != CTN_OK) return cst;
    ctn_body_desc bd = ctn_body_desc_default();
    bd.mass = 0.2;
    ctn_inertia_sphere(bd.mass, r, bd.inertia);
    ctn_shape_desc sh = ctn_shape_desc_default(CTN_SHAPE_SPHERE);
    sh.radius = r;
    sh.friction = 0.0;
    sh.restitution = 1.0;
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_DISTANCE);
    for (int i = 0; i < balls; ++i) {
        double x = (2.0 * r + gap) * i, a = i == 0 ? -0.25 * PI : 0.0;
        bd.position[0] = x + len * sin(a), bd.position[1] = -len * cos(a), bd.position[2] = 0.0;
        ctn_body_id id;
        ctn_status st = ctn_body_add(w, &bd, &id);
        if (st == CTN_OK) st = ctn_body_set_shape(w, id, &sh);
        if (st != CTN_OK) return st;
        jd.body_a = id;
        jd.body_b = CTN_WORLD;
        memset(jd.anchor_a, 0, sizeof jd.anchor_a);
        jd.anchor_b[0] = x, jd.anchor_b[1] = 0.0, jd.anchor_b[2] = 0.0;
        jd.rest_length = len;
        st = ctn_joint_add(w, &jd, NULL);
        if (st != CTN_OK) return st;
    }
    return CTN_OK;
}

/* The public generators: every body and joint they add takes a fresh slot at the end, so their handles are
 * consecutive (catena.h). */
ctn_status ctn_scene_capsule_chain(ctn_world *w, int links) {
    CTN__ENTER(w);
    ctn_world_mark mark;
    ctn_status st = ctn__scene_begin(w, &mark);
    return st != CTN_OK ? st : ctn__scene_end(w, mark, scene_capsule_chain(w, links));
}

ctn_status ctn_scene_pile(ctn_world *w, int spheres) {
    CTN__ENTER(w);
    ctn_world_mark mark;
    ctn_status st = ctn__scene_begin(w, &mark);
    return st != CTN_OK ? st : ctn__scene_end(w, mark, scene_pile(w, spheres));
}

ctn_status ctn_scene_bridge_limits(ctn_world *w, int planks) {
    CTN__ENTER(w);
    ctn_world_mark mark;
    ctn_status st = ctn__scene_begin(w, &mark);
    return st != CTN_OK ? st : ctn__scene_end(w, mark, scene_bridge_limits(w, planks));
}

ctn_status ctn_scene_wheel(ctn_world *w) {
    CTN__ENTER(w);
    ctn_world_mark mark;
    ctn_status st = ctn__scene_begin(w, &mark);
    return st != CTN_OK ? st : ctn__scene_end(w, mark, scene_wheel(w));
}

ctn_status ctn_scene_contact_cradle(ctn_world *w, int balls) {
    CTN__ENTER(w);
    ctn_world_mark mark;
    ctn_status st = ctn__scene_begin(w, &mark);
    return st != CTN_OK ? st : ctn__scene_end(w, mark, scene_contact_cradle(w, balls));
}
