/* Scene generators: chains, ropes, grids, bridges, Newton's cradle, double pendulum, binary trees. Each one builds
 * through the public API only, so a generator never creates what a user could not. On failure the world
 * keeps the bodies and joints added so far; the generators validate their parameters first so that this
 * only happens on out-of-memory. */
#include "scenes/scenes_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ctn_chain_desc ctn_chain_desc_default(int links) {
    ctn_chain_desc d;
    memset(&d, 0, sizeof d);
    d.links = links;
    d.link_length = 0.1;
    d.link_mass = 0.1;
    d.end_mass_ratio = 1.0;
    d.direction[0] = 1.0;
    return d;
}

static ctn_status scene_chain(ctn_world *w, const ctn_chain_desc *d, ctn_body_id *first) {
    if (!w) return CTN_ERR_INVALID_ARGUMENT;
    ctn__clear_error(w);
    if (!d) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_scene_chain: desc is NULL");
    if (d->links < 1 || d->links > CTN_MAX_BODIES - w->body_count)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "chain.links: %d is not in [1, %d]", d->links, CTN_MAX_BODIES - w->body_count);
    if (!(d->link_length > 0.0) || !isfinite(d->link_length))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "chain.link_length: %g must be finite and > 0", d->link_length);
    if (!(d->link_mass > 0.0) || !isfinite(d->link_mass))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "chain.link_mass: %g must be finite and > 0", d->link_mass);
    if (!(d->end_mass_ratio > 0.0) || !isfinite(d->end_mass_ratio))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "chain.end_mass_ratio: %g must be finite and > 0", d->end_mass_ratio);
    double dn = sqrt(d->direction[0] * d->direction[0] + d->direction[1] * d->direction[1] + d->direction[2] * d->direction[2]);
    if (!(dn > 1e-9) || !isfinite(dn)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "chain.direction: zero or non-finite vector");
    for (int k = 0; k < 3; ++k)
        if (!isfinite(d->origin[k])) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "chain.origin[%d]: not finite", k);
    double u[3] = {d->direction[0] / dn, d->direction[1] / dn, d->direction[2] / dn};
    double L = d->link_length;
    ctn_body_desc bd = ctn_body_desc_default();
    bd.particle = d->particles;
    if (!d->particles) ctn__quat_x_to(u, bd.orientation);
    ctn_joint_desc jd = ctn_joint_desc_default(d->particles ? CTN_JOINT_DISTANCE : CTN_JOINT_BALL);
    ctn_body_id prev = CTN_WORLD, id = CTN_NULL_BODY;
    for (int i = 0; i < d->links; ++i) {
        double mass = d->link_mass * (i == d->links - 1 ? d->end_mass_ratio : 1.0);
        /* rigid link: a slender box centred mid-link; rope: a particle at the link's far end */
        double along = d->particles ? (i + 1) * L : (i + 0.5) * L;
        for (int k = 0; k < 3; ++k) bd.position[k] = d->origin[k] + along * u[k];
        bd.mass = mass;
        double he[3] = {0.5 * L, 0.05 * L, 0.05 * L};
        ctn_inertia_box(mass, he, bd.inertia);
        ctn_status st = ctn_body_add(w, &bd, &id);
        if (st != CTN_OK) return st;
        if (i == 0 && first) *first = id;
        double pivot[3];
        for (int k = 0; k < 3; ++k) pivot[k] = d->origin[k] + i * L * u[k];
        jd.body_a = id;
        jd.body_b = prev;
        if (d->particles) {
            memset(jd.anchor_a, 0, sizeof jd.anchor_a);
            if (ctn_body_is_world(prev)) memcpy(jd.anchor_b, pivot, sizeof pivot);
            else memset(jd.anchor_b, 0, sizeof jd.anchor_b);
            jd.rest_length = L;
        } else {
            st = ctn_joint_desc_set_pivot(w, &jd, pivot, NULL);
            if (st != CTN_OK) return st;
        }
        st = ctn_joint_add(w, &jd, NULL);
        if (st != CTN_OK) return st;
        prev = id;
    }
    return CTN_OK;
}

static ctn_status scene_grid(ctn_world *w, int nx, int ny, double spacing) {
    if (!w) return CTN_ERR_INVALID_ARGUMENT;
    ctn__clear_error(w);
    if (nx < 1 || ny < 1 || (long long)nx * ny > CTN_MAX_BODIES / 2)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "grid: %d x %d is not a valid size", nx, ny);
    if (!(spacing > 0.0) || !isfinite(spacing)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "grid.spacing: %g must be > 0", spacing);
    /* a hanging net in the x-y plane: row 0 at y = 0 pinned to the world, rows below it */
    ctn_body_desc bd = ctn_body_desc_default();
    double r = 0.25 * spacing;
    bd.mass = 0.1;
    ctn_inertia_sphere(bd.mass, r, bd.inertia);
    int base = w->body_count;
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
            bd.position[0] = i * spacing, bd.position[1] = -j * spacing, bd.position[2] = 0.0;
            ctn_status st = ctn_body_add(w, &bd, NULL);
            if (st != CTN_OK) return st;
        }
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_BALL);
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
            int slot = base + j * nx + i;
            ctn_body_id id = ctn__body_handle(w, slot);
            double p[3] = {i * spacing, -j * spacing, 0.0};
            /* neighbour joints sit half-way between the centres */
            int nb[3] = {j == 0 ? -1 : -2, i + 1 < nx ? slot + 1 : -2, j + 1 < ny ? slot + nx : -2}; /* -1 the world, -2 none */
            double piv[3][3] = {{p[0], p[1] + 0.5 * spacing, 0.0}, {p[0] + 0.5 * spacing, p[1], 0.0}, {p[0], p[1] - 0.5 * spacing, 0.0}};
            for (int k = 0; k < 3; ++k) {
                if (nb[k] == -2) continue;
                jd.body_a = id;
                jd.body_b = ctn__body_handle(w, nb[k]);
                ctn_status st = ctn_joint_desc_set_pivot(w, &jd, piv[k], NULL);
                if (st == CTN_OK) st = ctn_joint_add(w, &jd, NULL);
                if (st != CTN_OK) return st;
            }
        }
    return CTN_OK;
}

static ctn_status scene_bridge(ctn_world *w, int planks) {
    if (!w) return CTN_ERR_INVALID_ARGUMENT;
    ctn__clear_error(w);
    if (planks < 1 || planks > CTN_MAX_BODIES / 2) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "bridge.planks: %d is not valid", planks);
    const double len = 1.0, z_axis[3] = {0.0, 0.0, 1.0};
    ctn_body_desc bd = ctn_body_desc_default();
    double he[3] = {0.5 * len, 0.05, 0.5};
    bd.mass = 5.0;
    ctn_inertia_box(bd.mass, he, bd.inertia);
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_HINGE);
    ctn_body_id prev = CTN_WORLD, id = CTN_NULL_BODY;
    for (int i = 0; i <= planks; ++i) {
        double pivot[3] = {i * len, 0.0, 0.0};
        if (i < planks) {
            bd.position[0] = (i + 0.5) * len;
            ctn_status st = ctn_body_add(w, &bd, &id);
            if (st != CTN_OK) return st;
            jd.body_a = id;
            jd.body_b = prev;
        } else {
            jd.body_a = prev;
            jd.body_b = CTN_WORLD;
        }
        ctn_status st = ctn_joint_desc_set_pivot(w, &jd, pivot, z_axis);
        if (st == CTN_OK) st = ctn_joint_add(w, &jd, NULL);
        if (st != CTN_OK) return st;
        prev = id;
    }
    return CTN_OK;
}

static ctn_status scene_cradle(ctn_world *w, int balls) {
    if (!w) return CTN_ERR_INVALID_ARGUMENT;
    ctn__clear_error(w);
    if (balls < 1 || balls > 100000) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "cradle.balls: %d is not in [1, 100000]", balls);
    /* pendulums of length 1 m with 0.1 m balls touching; the first is raised 45 degrees. Balls do not
     * collide until contacts exist: this is the joint half of the cradle. */
    const double r = 0.05, len = 1.0;
    ctn_body_desc bd = ctn_body_desc_default();
    bd.mass = 0.2;
    ctn_inertia_sphere(bd.mass, r, bd.inertia);
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_DISTANCE);
    for (int i = 0; i < balls; ++i) {
        double x = 2.0 * r * i, a = i == 0 ? -0.25 * 3.14159265358979323846 : 0.0;
        bd.position[0] = x + len * sin(a), bd.position[1] = -len * cos(a), bd.position[2] = 0.0;
        ctn_body_id id;
        ctn_status st = ctn_body_add(w, &bd, &id);
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

static ctn_status scene_double_pendulum(ctn_world *w) {
    if (!w) return CTN_ERR_INVALID_ARGUMENT;
    ctn__clear_error(w);
    const double len = 1.0, z_axis[3] = {0.0, 0.0, 1.0};
    ctn_body_desc bd = ctn_body_desc_default();
    double he[3] = {0.5 * len, 0.02, 0.02};
    ctn_inertia_box(bd.mass, he, bd.inertia);
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_HINGE);
    ctn_body_id prev = CTN_WORLD, id;
    for (int i = 0; i < 2; ++i) {
        bd.position[0] = (i + 0.5) * len;
        ctn_status st = ctn_body_add(w, &bd, &id);
        if (st != CTN_OK) return st;
        double pivot[3] = {i * len, 0.0, 0.0};
        jd.body_a = id;
        jd.body_b = prev;
        st = ctn_joint_desc_set_pivot(w, &jd, pivot, z_axis);
        if (st == CTN_OK) st = ctn_joint_add(w, &jd, NULL);
        if (st != CTN_OK) return st;
        prev = id;
    }
    return CTN_OK;
}

/* Spec tree:N: a binary tree of N rigid links (slender boxes 0.1 m, 0.1 kg) on ball joints, link
 * 0 pinned to the world at the origin; link i hangs from the far end of link (i - 1) / 2, tilted 30
 * degrees left or right (odd / even i) and rotated about the vertical by the depth, so branches spread. */
static ctn_status scene_tree(ctn_world *w, int n) {
    const double L = 0.1, mass = 0.1;
    double *tip = ctn__malloc(3 * (size_t)n * sizeof *tip); /* far end of each link */
    if (!tip) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "tree:%d: out of memory", n);
    ctn_body_desc bd = ctn_body_desc_default();
    ctn_joint_desc jd = ctn_joint_desc_default(CTN_JOINT_BALL);
    ctn_body_id first = CTN_NULL_BODY, id = CTN_NULL_BODY;
    ctn_status st = CTN_OK;
    for (int i = 0; i < n && st == CTN_OK; ++i) {
        int parent = i ? (i - 1) / 2 : -1, depth = 0;
        for (int k = i + 1; k > 1; k /= 2) ++depth;
        double start[3] = {0.0, 0.0, 0.0}, u[3] = {0.0, -1.0, 0.0};
        if (parent >= 0) {
            memcpy(start, tip + 3 * parent, sizeof start);
            double tilt = (i % 2 ? -0.5 : 0.5), yaw = 0.7 * depth;
            u[0] = tilt * cos(yaw), u[1] = -0.8660254037844386, u[2] = tilt * sin(yaw);
        }
        ctn__quat_x_to(u, bd.orientation);
        for (int k = 0; k < 3; ++k) {
            bd.position[k] = start[k] + 0.5 * L * u[k];
            tip[3 * i + k] = start[k] + L * u[k];
        }
        bd.mass = mass;
        double he[3] = {0.5 * L, 0.05 * L, 0.05 * L};
        ctn_inertia_box(mass, he, bd.inertia);
        st = ctn_body_add(w, &bd, &id);
        if (st != CTN_OK) break;
        if (i == 0) first = id;
        jd.body_a = id;
        jd.body_b = ctn__body_handle(w, parent >= 0 ? ctn_body_index(first) + parent : -1);
        st = ctn_joint_desc_set_pivot(w, &jd, start, NULL);
        if (st == CTN_OK) st = ctn_joint_add(w, &jd, NULL);
    }
    ctn__free(tip);
    return st;
}

/* The count N of a spec "name:N" (arg: the text after the colon) in [1, max]: 1, or 0 with the error
 * naming the spec and the range. */
static int spec_count(ctn_world *w, const char *spec, size_t nlen, const char *arg, long max, int *n) {
    char *end;
    long v = strtol(arg, &end, 10);
    if (end == arg || *end != '\0' || v < 1 || v > max) {
        ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "scene '%s': expected %.*s:N with N in [1, %ld]", spec, (int)nlen, spec, max);
        return 0;
    }
    *n = (int)v;
    return 1;
}

static ctn_status scene_from_spec(ctn_world *w, const char *spec) {
    if (!w) return CTN_ERR_INVALID_ARGUMENT;
    ctn__clear_error(w);
    if (!spec) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "scene spec is NULL");
    const char *colon = strchr(spec, ':');
    size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
    const char *arg = colon ? colon + 1 : "";
#define IS(name) (nlen == strlen(name) && strncmp(spec, name, nlen) == 0)
#define COUNT(max) if (!spec_count(w, spec, nlen, arg, (max), &n)) return CTN_ERR_INVALID_ARGUMENT
    int n = 0;
    if (IS("chain") || IS("rope") || IS("heavy_chain")) {
        COUNT(CTN_MAX_BODIES);
        ctn_chain_desc d = ctn_chain_desc_default(n);
        d.particles = IS("rope");
        if (IS("heavy_chain")) d.end_mass_ratio = 1000.0;
        return ctn_scene_chain(w, &d, NULL);
    }
    if (IS("grid")) {
        int nx = 0, ny = 0;
        char extra;
        if (sscanf(arg, "%dx%d%c", &nx, &ny, &extra) != 2 || nx < 1 || ny < 1)
            return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "scene '%s': expected grid:NXxNY, e.g. grid:64x64", spec);
        return ctn_scene_grid(w, nx, ny, 0.1);
    }
    if (IS("bridge") || IS("cradle")) {
        COUNT(1000000);
        return IS("bridge") ? ctn_scene_bridge(w, n) : ctn_scene_cradle(w, n);
    }
    /* Contact scenes (host/scenes/scenes_contact.c) */
    if (IS("capsule_chain") || IS("pile") || IS("bridge_limits") || IS("contact_cradle")) {
        COUNT(10000000);
        if (IS("capsule_chain")) return ctn_scene_capsule_chain(w, n);
        if (IS("pile")) return ctn_scene_pile(w, n);
        if (IS("bridge_limits")) return ctn_scene_bridge_limits(w, n);
        return ctn_scene_contact_cradle(w, n);
    }
    if (IS("wheel")) {
        if (colon) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "scene '%s': wheel takes no argument", spec);
        return ctn_scene_wheel(w);
    }
    if (IS("tree")) {
        COUNT(CTN_MAX_BODIES - w->body_count);
        return scene_tree(w, n);
    }
    if (IS("double_pendulum")) {
        if (colon) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "scene '%s': double_pendulum takes no argument", spec);
        return ctn_scene_double_pendulum(w);
    }
#undef IS
#undef COUNT
    return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT,
                     "scene '%s': unknown generator (chain:N, heavy_chain:N, rope:N, grid:NXxNY, bridge:N, cradle:N, double_pendulum, "
                     "capsule_chain:N, pile:N, bridge_limits:N, wheel, contact_cradle:N, tree:N)", spec);
}

/* The public generators: every body and joint they add takes a fresh slot at the end, so their handles are
 * consecutive (catena.h). */
ctn_status ctn_scene_chain(ctn_world *w, const ctn_chain_desc *d, ctn_body_id *first) {
    CTN__ENTER(w);
    ctn_world_mark mark;
    ctn_status st = ctn__scene_begin(w, &mark);
    return st != CTN_OK ? st : ctn__scene_end(w, mark, scene_chain(w, d, first));
}

ctn_status ctn_scene_grid(ctn_world *w, int nx, int ny, double spacing) {
    CTN__ENTER(w);
    ctn_world_mark mark;
    ctn_status st = ctn__scene_begin(w, &mark);
    return st != CTN_OK ? st : ctn__scene_end(w, mark, scene_grid(w, nx, ny, spacing));
}

ctn_status ctn_scene_bridge(ctn_world *w, int planks) {
    CTN__ENTER(w);
    ctn_world_mark mark;
    ctn_status st = ctn__scene_begin(w, &mark);
    return st != CTN_OK ? st : ctn__scene_end(w, mark, scene_bridge(w, planks));
}

ctn_status ctn_scene_cradle(ctn_world *w, int balls) {
    CTN__ENTER(w);
    ctn_world_mark mark;
    ctn_status st = ctn__scene_begin(w, &mark);
    return st != CTN_OK ? st : ctn__scene_end(w, mark, scene_cradle(w, balls));
}

ctn_status ctn_scene_double_pendulum(ctn_world *w) {
    CTN__ENTER(w);
    ctn_world_mark mark;
    ctn_status st = ctn__scene_begin(w, &mark);
    return st != CTN_OK ? st : ctn__scene_end(w, mark, scene_double_pendulum(w));
}

ctn_status ctn_scene_from_spec(ctn_world *w, const char *spec) {
    CTN__ENTER(w);
    ctn_world_mark mark;
    ctn_status st = ctn__scene_begin(w, &mark);
    return st != CTN_OK ? st : ctn__scene_end(w, mark, scene_from_spec(w, spec));
}
