/* World set-ups shared by the tests: a world on a given backend and solver, the OpenCL probe of the tests'
 * OpenCL halves, a particle, a box with its shape, the floor plane, a pinned chain with a limited hinge, a joint to the world through a pivot, a
 * curve, the scene round trip (save, reload into a fresh world) and a world's energy. Failures are CHECKs (check.h), as in the tests.
 * The including file defines _POSIX_C_SOURCE (mkstemp, close, unlink) before its first include. */
#ifndef CTN_TEST_FIXTURES_H
#define CTN_TEST_FIXTURES_H

#include "catena/catena.h"
#include "ids.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A world with the default description on `backend` with `solver`; NULL when it cannot be created (the
 * reason in err when err is not NULL). */
static inline ctn_world *fixture_world(ctn_backend backend, ctn_solver solver, char *err, size_t err_size) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = backend;
    d.solver = solver;
    ctn_world *w = NULL;
    char local[256];
    if (!err) err = local, err_size = sizeof local;
    if (ctn_world_create(&d, &w, err, err_size) != CTN_OK) return NULL;
    return w;
}

/* The default description on the CPU backend with `threads` threads (the tests that compare bits or count
 * allocations run on one). */
static inline ctn_world_desc fixture_cpu_desc(int threads) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.threads = threads;
    return d;
}

/* A world of description d, CHECKed; NULL when it cannot be made. */
static inline ctn_world *fixture_world_from(const ctn_world_desc *d) {
    ctn_world *w = NULL;
    char err[1024];
    CHECK(ctn_world_create(d, &w, err, sizeof err) == CTN_OK, "world: %s", err);
    return w;
}

/* A world of description d holding a chain of `links` links (ctn_chain_desc_default), its first body in *first
 * (first may be NULL), CHECKed; NULL when the world cannot be made. */
static inline ctn_world *fixture_chain_from(const ctn_world_desc *d, int links, ctn_body_id *first) {
    ctn_world *w = fixture_world_from(d);
    if (!w) return NULL;
    ctn_chain_desc c = ctn_chain_desc_default(links);
    CHECK(ctn_scene_chain(w, &c, first) == CTN_OK, "chain:%d: %s", links, ctn_world_last_error(w));
    return w;
}

/* Whether an OpenCL world can be created here (the tests' OpenCL halves exit 77 when not); why says why not. */
static inline int fixture_have_opencl(char *why, size_t why_size) {
    ctn_world *probe = fixture_world(CTN_BACKEND_OPENCL, ctn_world_desc_default().solver, why, why_size);
    if (!probe) return 0;
    ctn_world_destroy(probe);
    return 1;
}

/* A particle (unit mass) at (x, y, z) moving at vx along x. */
static inline ctn_body_id fixture_particle(ctn_world *w, double x, double y, double z, double vx) {
    ctn_body_desc bd = ctn_body_desc_default();
    bd.particle = 1;
    bd.position[0] = x, bd.position[1] = y, bd.position[2] = z;
    bd.velocity[0] = vx;
    ctn_body_id id = CTN_NULL_BODY;
    CHECK(ctn_body_add(w, &bd, &id) == CTN_OK, "%s", ctn_world_last_error(w));
    return id;
}

/* A body of `type` and `mass` with the inertia of a solid box of half extents he and that box as its shape
 * (friction `friction`), at pos, turned by the unit quaternion q (w, x, y, z) when q is not NULL. */
static inline ctn_body_id fixture_box(ctn_world *w, ctn_body_type type, double mass, const double he[3], const double pos[3], const double q[4],
                                      double friction) {
    ctn_body_desc bd = ctn_body_desc_default();
    bd.type = type;
    bd.mass = mass;
    ctn_inertia_box(mass, he, bd.inertia);
    for (int k = 0; k < 3; ++k) bd.position[k] = pos[k];
    if (q)
        for (int k = 0; k < 4; ++k) bd.orientation[k] = q[k];
    ctn_body_id b = CTN_NULL_BODY;
    CHECK(ctn_body_add(w, &bd, &b) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_shape_desc sh = ctn_shape_desc_default(CTN_SHAPE_BOX);
    for (int k = 0; k < 3; ++k) sh.half_extents[k] = he[k];
    sh.friction = friction;
    CHECK(ctn_body_set_shape(w, b, &sh) == CTN_OK, "%s", ctn_world_last_error(w));
    return b;
}

/* The plane y = 0 (normal +y), friction `friction`, no restitution. */
static inline void fixture_floor(ctn_world *w, double friction) {
    const double up[3] = {0, 1, 0};
    CHECK(ctn_world_add_plane(w, up, 0.0, friction, 0.0, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
}

/* A limited hinge (-0.3..0.3 rad) in the middle (link 3) of a ball chain of 8 links (0.1 m, 0.1 kg, along +x)
 * pinned at the origin; the links' handles in ids when ids is not NULL. */
static inline void fixture_limited_chain(ctn_world *w, ctn_body_id ids[8]) {
    ctn_body_id link[8];
    for (int i = 0; i < 8; ++i) {
        ctn_body_desc b = ctn_body_desc_default();
        b.mass = 0.1;
        b.inertia[0] = b.inertia[1] = b.inertia[2] = 1e-4;
        b.position[0] = 0.1 * i + 0.05;
        CHECK(ctn_body_add(w, &b, &link[i]) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_joint_desc j = ctn_joint_desc_default(i == 3 ? CTN_JOINT_HINGE : CTN_JOINT_BALL);
        j.body_a = link[i], j.body_b = i ? link[i - 1] : CTN_WORLD;
        double pivot[3] = {0.1 * i, 0.0, 0.0}, axis[3] = {0.0, 1.0, 0.0};
        CHECK(ctn_joint_desc_set_pivot(w, &j, pivot, axis) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_joint_id jid;
        CHECK(ctn_joint_add(w, &j, &jid) == CTN_OK, "%s", ctn_world_last_error(w));
        if (i == 3) CHECK(ctn_joint_set_limits(w, jid, 1, -0.3, 0.3) == CTN_OK, "%s", ctn_world_last_error(w));
        if (ids) ids[i] = link[i];
    }
}

/* A joint of `type` from body to the world through the world point `pivot` with the world `axis`; its
 * handle in *id when id is not NULL. */
static inline void fixture_world_joint(ctn_world *w, ctn_joint_type type, ctn_body_id body, const double pivot[3], const double axis[3],
                                       ctn_joint_id *id) {
    ctn_joint_desc jd = ctn_joint_desc_default(type);
    jd.body_a = body;
    CHECK(ctn_joint_desc_set_pivot(w, &jd, pivot, axis) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(ctn_joint_add(w, &jd, id) == CTN_OK, "%s", ctn_world_last_error(w));
}

static inline void fixture_curve(ctn_world *w, const ctn_curve_desc *cd) {
    CHECK(ctn_curve_constraint_add(w, cd, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
}

/* Saves w as a scene to a temporary file and loads it into a fresh world created from d; the file is
 * removed. NULL when the reloaded world cannot be created (checked). */
static inline ctn_world *fixture_scene_reload(ctn_world *w, const ctn_world_desc *d) {
    char path[] = "/tmp/catena_fixture_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd >= 0) close(fd);
    CHECK(ctn_scene_save_json(w, path) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_world *back = NULL;
    char err[256];
    CHECK(ctn_world_create(d, &back, err, sizeof err) == CTN_OK, "%s", err);
    if (back) CHECK(ctn_scene_load_json(back, path, err, sizeof err) == CTN_OK, "%s", err);
    unlink(path);
    return back;
}

/* Steps a and b n times each, alternately. */
static inline void fixture_step_both(ctn_world *a, ctn_world *b, int n) {
    for (int i = 0; i < n; ++i) ctn_world_step(a), ctn_world_step(b);
}

/* Kinetic plus gravitational energy of the dynamic bodies (gravity g). */
static inline double fixture_energy(ctn_world *w, const double g[3]) {
    double e = 0.0;
    for (int b = 0; b < ctn_world_body_count(w); ++b) {
        ctn_body_desc d;
        ctn_body_state s;
        if (ctn_body_get_desc(w, HBODY(w, b), &d) != CTN_OK || d.type != CTN_BODY_DYNAMIC || ctn_body_get_state(w, HBODY(w, b), &s) != CTN_OK) continue;
        const double *q = s.orientation, *om = s.angular_velocity;
        double v2 = s.velocity[0] * s.velocity[0] + s.velocity[1] * s.velocity[1] + s.velocity[2] * s.velocity[2];
        e += 0.5 * d.mass * v2 - d.mass * (g[0] * s.position[0] + g[1] * s.position[1] + g[2] * s.position[2]);
        if (d.particle) continue;
        /* body-frame angular velocity R^T w, R of the unit quaternion (w, x, y, z) */
        double qw = q[0], qx = -q[1], qy = -q[2], qz = -q[3];
        double t[3] = {2.0 * (qy * om[2] - qz * om[1]), 2.0 * (qz * om[0] - qx * om[2]), 2.0 * (qx * om[1] - qy * om[0])};
        double wb[3] = {om[0] + qw * t[0] + qy * t[2] - qz * t[1], om[1] + qw * t[1] + qz * t[0] - qx * t[2],
                        om[2] + qw * t[2] + qx * t[1] - qy * t[0]};
        for (int k = 0; k < 3; ++k) e += 0.5 * d.inertia[k] * wb[k] * wb[k];
    }
    return e;
}

/* n steps of w, each CHECKed. */
static inline void fixture_steps(ctn_world *w, int n) {
    for (int i = 0; i < n; ++i) CHECK(ctn_world_step(w) == CTN_OK, "step: %s", ctn_world_last_error(w));
}

/* Whether the `links` bodies from fa in a and from fb in b have the same state, bit for bit. */
static inline int fixture_same_links(ctn_world *a, ctn_body_id fa, ctn_world *b, ctn_body_id fb, int links) {
    int same = 1;
    for (int k = 0; k < links; ++k) {
        ctn_body_state sa, sb;
        memset(&sa, 0, sizeof sa), memset(&sb, 0, sizeof sb);
        CHECK(ctn_body_get_state(a, ctn_body_id_offset(fa, k), &sa) == CTN_OK && ctn_body_get_state(b, ctn_body_id_offset(fb, k), &sb) == CTN_OK,
              "state of link %d", k);
        same = same && memcmp(&sa, &sb, sizeof sa) == 0;
    }
    return same;
}

#endif
