/* The per-body passes around the solve on the CPU (host/solve/body_passes.c): the lean loops (SIMD where the
 * machine has SSE2) against the shared functions of kernels/ctn_solver.h that the OpenCL backend runs and the
 * golden hashes were recorded with, bit for bit, every byte of the output arrays (both start from the same
 * garbage, so a field one loop writes and the other does not shows up too), on one and on two threads:
 *  - ctn__geometric_inertia (ctn_geometric_inertia_body): ball joints and joints of other row counts
 *    (distance, prismatic, spring, hinge), joints to the world, bodies without joints, counts of bodies that
 *    are not a multiple of the four the SIMD loop takes at once; and without an adjacency (NULL: the sums by
 *    joint, a layout whose adjacency is not built) against the shared function with the adjacency of the
 *    bodies' flags now;
 *  - ctn__forces without springs (ctn_forces_body), into another array and in place, with the user forces'
 *    array and without it (NULL: the same bits as an array of +0.0, lean and shared);
 *  - ctn__body_scan, the divergence scan of the step's measurement, against ctn__body_diverged, and
 *    ctn__body_scan_bounded (with and without the velocities known finite) against it and ctn__poses_bounded;
 *  - ctn__integrate_poses (ctn_integrate_pose_from, ctn_integrate_pose in place), bodies that turn and
 *    bodies that do not (|w| = 0 and |w| tiny), a backward step (h < 0); ctn__integrate_bodies, the same with
 *    the world inverse inertia of the new poses (ctn_integrate_body_from, ctn_integrate_body).
 * Bodies: dynamic rigid, dynamic particle, kinematic, static (flags 0), zero inverse masses and moments,
 * padding fields holding NaN and infinities (the SIMD loops read them into lanes they must give back as they
 * were). Non-finite inputs in rounds of their own: NaN or infinite impulses, quaternions, velocities, forces,
 * positions and inverse moments. One kind of NaN goes in (NaN from math.h) and, within a round, the values
 * are chosen so that no operation meets two NaNs of different payloads (which of two NaN operands an
 * addition passes on is not fixed by C, so the two compiled loops may differ there legitimately). */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS (glibc) */
#include "joint_view.h"
#include "catena/catena.h"
#include "check.h"
#include "fixtures.h"
#include "core/world.h"
#include "solve/solve.h"
#include "ctn_solver.h"
#include "random_poses.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#include <unistd.h>
#if defined(MAP_ANONYMOUS)
#define GUARD_PAGES 1
#endif
#endif

#define BODIES 1203 /* not a multiple of 4: the SIMD loop's tail */
#define JOINTS 2600

static ctn_pose pose[BODIES], ref_pose[BODIES], got_pose[BODIES];
static ctn_props props[BODIES];
static ctn_body_force forces[BODIES], zero_forces[BODIES];
static ctn_vel vel[BODIES], ref_vel[BODIES], got_vel[BODIES];
static ctn_inertia inertia[BODIES], ref_inertia[BODIES], got_inertia[BODIES];
static ctn_joint_def defs[JOINTS];
static ctn_joint_core defs_core[JOINTS];
static ctn_joint_extra defs_extra[JOINTS];
static float lambda[6 * JOINTS];
static int adj_offsets[BODIES + 1], adj[2 * JOINTS];
static const int no_springs[BODIES + 1]; /* spring adjacency offsets: none */
static int joints; /* in defs and lambda */

enum { FINITE, NAN_LAMBDA, INF_LAMBDA, NONFINITE_BODY };

static float nonfinite(void) { return urand() < -0.3 ? NAN : urand() < 0.0 ? INFINITY : -INFINITY; }

/* All BODIES bodies; joints between the first nb of them only (a step's layout never joins bodies past its
 * count). */
static void make_world(int mode, int other_types, int nb) {
    for (int i = 0; i < BODIES; ++i) {
        ctn_pose *p = &pose[i];
        memset(p, 0, sizeof *p);
        p->p = rand_v3(100.0), p->p_lo = rand_v3(1e-6), p->q = rand_quat();
        ctn_props *pr = &props[i];
        memset(pr, 0, sizeof *pr);
        int kind = (int)((urand() + 1.0) * 4.0) & 7; /* mostly dynamic rigid bodies */
        pr->flags = kind <= 3 ? CTN_BODY_FLAG_DYNAMIC : kind == 4 ? CTN_BODY_FLAG_DYNAMIC | CTN_BODY_FLAG_PARTICLE
                    : kind == 5 ? CTN_BODY_FLAG_KINEMATIC : kind == 6 ? 0 : CTN_BODY_FLAG_KINEMATIC | CTN_BODY_FLAG_PARTICLE;
        if (i % 7 == 0) pr->flags |= CTN_BODY_FLAG_ALIVE;
        pr->inv_inertia_body = i % 11 == 0 ? ctn_v3_zero() : ctn_v3_make(2.0f + (float)urand(), 30.0f + 20.0f * (float)urand(), 0.5f + (float)urand());
        ctn_body_force *uf = &forces[i];
        uf->force = rand_v3(5.0), uf->torque = rand_v3(2.0);
        uf->pad0 = NAN, uf->pad1 = INFINITY;
        ctn_vel *v = &vel[i];
        v->v = rand_v3(3.0), v->w = i % 5 == 0 ? ctn_v3_zero() : i % 5 == 1 ? rand_v3(1e-25) : rand_v3(10.0);
        if (i % 5 == 0 && (i & 8)) v->w = ctn_v3_make(-0.0f, -0.0f, -0.0f); /* w + 0: -0.0 + +0.0 is +0.0, -0.0 + -0.0 is -0.0 */
        ctn_inertia *in = &inertia[i];
        in->inv_mass = i % 13 == 0 ? 0.0f : 0.1f + (float)(urand() + 1.0);
        in->inv_inertia = (ctn_sym3){(float)urand(), (float)urand(), (float)urand(), (float)urand(), (float)urand(), (float)urand()};
        if (mode == NONFINITE_BODY && i % 9 == 4) { /* one field of the body */
            float x = nonfinite();
            switch ((i / 9) % 8) {
            case 0: p->q.x = x; break;
            case 1: p->p.y = x; break;
            case 2: p->p_lo.z = x; break;
            case 3: v->v.x = x; break;
            case 4: v->w.z = x; break;
            case 5: uf->force.y = x; break;
            case 6: pr->inv_inertia_body.z = x == x ? INFINITY : x; break;
            default: in->inv_inertia.xy = x; break;
            }
        }
    }
    joints = nb >= BODIES ? JOINTS : 2 * nb;
    for (int s = 0; s < joints; ++s) {
        ctn_joint_def *d = &defs[s];
        memset(d, 0, sizeof *d);
        /* a chain over the first half, random pairs over the rest, some to the world on either side */
        int chain = s < nb / 2;
        d->a = chain ? s + 1 : s % 23 == 7 ? -1 : (int)((urand() + 1.0) * 0.5 * nb) % nb;
        d->b = chain ? s : s % 10 == 0 ? -1 : (int)((urand() + 1.0) * 0.5 * nb) % nb;
        if (d->b == d->a) d->b = -1;
        static const int others[] = {CTN_JT_DISTANCE, CTN_JT_HINGE, CTN_JT_SPRING, CTN_JT_PRISMATIC, CTN_JT_GEAR};
        d->type = other_types && s % 3 == 0 ? others[(s / 3) % 5] : CTN_JT_BALL;
        if (d->type == CTN_JT_PRISMATIC && s % 2) d->flags = CTN_JF_LIMIT;
        d->anchor_a = rand_v3(0.5), d->anchor_b = rand_v3(0.5);
        d->rest_length = NAN, d->compliance = -INFINITY; /* the anchors' neighbours (the SIMD loop's lane 3) */
        for (int k = 0; k < 6; ++k) lambda[6 * s + k] = (float)(urand() * (k < 3 ? 10.0 : 1.0));
        if (mode == NAN_LAMBDA && s % 7 == 3) lambda[6 * s + s % 6] = NAN;
        if (mode == INF_LAMBDA && s % 7 == 3) lambda[6 * s + s % 6] = (s & 8) ? INFINITY : -INFINITY;
    }
    /* the adjacency of host/core/topology.c: dynamic body -> (joint << 1 | side), joints in increasing order;
     * "dynamic" as when the layout was built, which some bodies have changed since (a stale list, or an
     * empty one for a body made dynamic: its alpha is 0) */
    unsigned char dyn[BODIES];
    for (int i = 0; i < BODIES; ++i) dyn[i] = ((props[i].flags & CTN_BODY_FLAG_DYNAMIC) != 0) ^ (i % 17 == 5);
    memset(adj_offsets, 0, sizeof adj_offsets);
    for (int s = 0; s < joints; ++s) {
        if (defs[s].a >= 0 && dyn[defs[s].a]) adj_offsets[defs[s].a + 1]++;
        if (defs[s].b >= 0 && dyn[defs[s].b]) adj_offsets[defs[s].b + 1]++;
    }
    for (int i = 0; i < BODIES; ++i) adj_offsets[i + 1] += adj_offsets[i];
    int fill[BODIES];
    memcpy(fill, adj_offsets, sizeof fill);
    for (int s = 0; s < joints; ++s) {
        if (defs[s].a >= 0 && dyn[defs[s].a]) adj[fill[defs[s].a]++] = s << 1;
        if (defs[s].b >= 0 && dyn[defs[s].b]) adj[fill[defs[s].b]++] = (s << 1) | 1;
    }
}

/* The first differing index of two arrays of n elements of `size` bytes, -1 if none. */
static int first_diff(const void *a, const void *b, int n, size_t size) {
    for (int i = 0; i < n; ++i)
        if (memcmp((const char *)a + (size_t)i * size, (const char *)b + (size_t)i * size, size) != 0) return i;
    return -1;
}

/* The adjacency as the topology builds it for the flags the bodies have now (not stale): what the lean pass without
 * an adjacency (NULL: the layout's not built, a chain under the exact solver) must match. */
static int now_offsets[BODIES + 1], now_adj[2 * JOINTS];
static void adjacency_now(void) {
    memset(now_offsets, 0, sizeof now_offsets);
    for (int s = 0; s < joints; ++s)
        for (int e = 0; e < 2; ++e) {
            int b = e ? defs[s].b : defs[s].a;
            if (b >= 0 && (props[b].flags & CTN_BODY_FLAG_DYNAMIC)) now_offsets[b + 1]++;
        }
    for (int i = 0; i < BODIES; ++i) now_offsets[i + 1] += now_offsets[i];
    int fill[BODIES];
    memcpy(fill, now_offsets, sizeof fill);
    for (int s = 0; s < joints; ++s)
        for (int e = 0; e < 2; ++e) {
            int b = e ? defs[s].b : defs[s].a;
            if (b >= 0 && (props[b].flags & CTN_BODY_FLAG_DYNAMIC)) now_adj[fill[b]++] = (s << 1) | e;
        }
}

static void compare_inertia(const char *what, int n, float gs_h) {
    if (CTN_GEOMETRIC_INERTIA_BY_JOINT) { /* without an adjacency: the shared function's with the adjacency of now */
        adjacency_now();
        memset(ref_inertia, 0xA5, sizeof ref_inertia);
        ctn__geometric_inertia(n, joints, pose, props, now_offsets, now_adj, joint_view(defs, JOINTS, defs_core, defs_extra), lambda, CTN_MAX_ROWS, gs_h,
                               ref_inertia, 0, 1);
        for (int threads = 1; threads <= 2; ++threads) {
            memset(got_inertia, 0xA5, sizeof got_inertia);
            ctn__geometric_inertia(n, joints, pose, props, NULL, NULL, joint_view(defs, JOINTS, defs_core, defs_extra), lambda, CTN_MAX_ROWS, gs_h,
                                   got_inertia, 1, threads);
            int i = first_diff(got_inertia, ref_inertia, BODIES, sizeof *got_inertia);
            CHECK(i < 0, "%s, %d bodies, %d threads, no adjacency: inertia of body %d differs (xx %.9g, shared %.9g)", what, n, threads, i,
                  i < 0 ? 0.0 : (double)got_inertia[i].inv_inertia.xx, i < 0 ? 0.0 : (double)ref_inertia[i].inv_inertia.xx);
        }
    }
    memset(ref_inertia, 0xA5, sizeof ref_inertia);
    ctn__geometric_inertia(n, joints, pose, props, adj_offsets, adj, joint_view(defs, JOINTS, defs_core, defs_extra), lambda, CTN_MAX_ROWS, gs_h, ref_inertia, 0, 1);
    for (int threads = 1; threads <= 2; ++threads) {
        memset(got_inertia, 0xA5, sizeof got_inertia);
        ctn__geometric_inertia(n, joints, pose, props, adj_offsets, adj, joint_view(defs, JOINTS, defs_core, defs_extra), lambda, CTN_MAX_ROWS, gs_h, got_inertia, 1, threads);
        int i = first_diff(got_inertia, ref_inertia, BODIES, sizeof *got_inertia);
        CHECK(i < 0, "%s, %d bodies, %d threads: inertia of body %d differs (xx %.9g, shared %.9g; xz %.9g, shared %.9g)", what, n,
              threads, i, i < 0 ? 0.0 : (double)got_inertia[i].inv_inertia.xx, i < 0 ? 0.0 : (double)ref_inertia[i].inv_inertia.xx,
              i < 0 ? 0.0 : (double)got_inertia[i].inv_inertia.xz, i < 0 ? 0.0 : (double)ref_inertia[i].inv_inertia.xz);
    }
}

static void compare_forces_with(const char *what, int n, ctn_step_params prm, const ctn_body_force *forces) {
    memset(ref_vel, 0xA5, sizeof ref_vel);
    ctn__forces(n, props, forces, inertia, no_springs, NULL, NULL, pose, vel, ref_vel, prm, 0, 1);
    for (int threads = 1; threads <= 2; ++threads) {
        for (int inplace = 0; inplace <= 1; ++inplace) {
            memset(got_vel, 0xA5, sizeof got_vel);
            if (inplace) memcpy(got_vel, vel, (size_t)n * sizeof *vel);
            ctn__forces(n, props, forces, inertia, no_springs, NULL, NULL, pose, inplace ? got_vel : vel, got_vel, prm, 1, threads);
            int i = first_diff(got_vel, ref_vel, BODIES, sizeof *got_vel);
            CHECK(i < 0, "%s, %d bodies, %d threads%s: velocity of body %d differs (v.x %.9g, shared %.9g; w.y %.9g, shared %.9g)", what,
                  n, threads, inplace ? ", in place" : "", i, i < 0 ? 0.0 : (double)got_vel[i].v.x, i < 0 ? 0.0 : (double)ref_vel[i].v.x,
                  i < 0 ? 0.0 : (double)got_vel[i].w.y, i < 0 ? 0.0 : (double)ref_vel[i].w.y);
        }
    }
    /* the shared function in place gives what it gives into another array: the reference holds for both */
    memcpy(got_vel, vel, sizeof vel);
    ctn__forces(n, props, forces, inertia, no_springs, NULL, NULL, pose, got_vel, got_vel, prm, 0, 1);
    CHECK(first_diff(got_vel, ref_vel, n, sizeof *got_vel) < 0, "%s: the shared forces in place differ", what);
}

/* With the user forces; without them (NULL) against an array of +0.0 forces (a world's bodies before the
 * array was split off ctn_props stored those zeros): the same bits, lean and shared. */
static void compare_forces(const char *what, int n, ctn_step_params prm) {
    compare_forces_with(what, n, prm, forces);
    static ctn_vel zero_ref[BODIES];
    for (int lean = 0; lean <= 1; ++lean) {
        memset(zero_ref, 0xA5, sizeof zero_ref);
        memset(got_vel, 0xA5, sizeof got_vel);
        ctn__forces(n, props, zero_forces, inertia, no_springs, NULL, NULL, pose, vel, zero_ref, prm, lean, 1);
        ctn__forces(n, props, NULL, inertia, no_springs, NULL, NULL, pose, vel, got_vel, prm, lean, 1);
        int i = first_diff(got_vel, zero_ref, BODIES, sizeof *got_vel);
        CHECK(i < 0, "%s, %d bodies, %s: without user forces body %d differs from zero forces", what, n, lean ? "lean" : "shared", i);
    }
    compare_forces_with(what, n, prm, NULL);
}

static void compare_integrate(const char *what, int n, float h) {
    memset(ref_pose, 0xA5, sizeof ref_pose);
    ctn__integrate_poses(n, pose, ref_pose, vel, props, h, 0, 1);
    ctn_pose inplace_ref[BODIES];
    memset(inplace_ref, 0xA5, sizeof inplace_ref);
    memcpy(inplace_ref, pose, (size_t)n * sizeof *pose);
    ctn__integrate_poses(n, inplace_ref, inplace_ref, vel, props, h, 0, 1);
    CHECK(first_diff(inplace_ref, ref_pose, n, sizeof *pose) < 0, "%s: the shared integration in place and from another array differ", what);
    for (int threads = 1; threads <= 2; ++threads) {
        for (int inplace = 0; inplace <= 1; ++inplace) {
            memset(got_pose, 0xA5, sizeof got_pose);
            if (inplace) memcpy(got_pose, pose, (size_t)n * sizeof *pose);
            ctn__integrate_poses(n, inplace ? got_pose : pose, got_pose, vel, props, h, 1, threads);
            const ctn_pose *want = inplace ? inplace_ref : ref_pose;
            int i = first_diff(got_pose, want, BODIES, sizeof *got_pose);
            CHECK(i < 0, "%s, %d bodies, %d threads%s: pose of body %d differs (p.x %.9g, shared %.9g; q.w %.9g, shared %.9g)", what, n,
                  threads, inplace ? ", in place" : "", i, i < 0 ? 0.0 : (double)got_pose[i].p.x, i < 0 ? 0.0 : (double)want[i].p.x,
                  i < 0 ? 0.0 : (double)got_pose[i].q.w, i < 0 ? 0.0 : (double)want[i].q.w);
        }
    }
}

static void compare_integrate_inertia(const char *what, int n, float h) {
    memset(ref_pose, 0xA5, sizeof ref_pose), memset(ref_inertia, 0xA5, sizeof ref_inertia);
    ctn__integrate_bodies(n, pose, ref_pose, vel, props, ref_inertia, h, 0, 1);
    for (int threads = 1; threads <= 2; ++threads) {
        for (int inplace = 0; inplace <= 1; ++inplace) {
            memset(got_pose, 0xA5, sizeof got_pose), memset(got_inertia, 0xA5, sizeof got_inertia);
            if (inplace) memcpy(got_pose, pose, (size_t)n * sizeof *pose);
            ctn__integrate_bodies(n, inplace ? got_pose : pose, got_pose, vel, props, got_inertia, h, 1, threads);
            int i = first_diff(got_pose, ref_pose, n, sizeof *got_pose), j = first_diff(got_inertia, ref_inertia, BODIES, sizeof *got_inertia);
            CHECK(i < 0 && j < 0, "%s, %d bodies, %d threads%s: with the inertia, pose of body %d, inertia of body %d differ", what, n, threads,
                  inplace ? ", in place" : "", i, j);
        }
    }
}

#ifdef GUARD_PAGES
/* A copy of `bytes` bytes that ends where an inaccessible page begins: a read past the copy's end faults. */
static void *at_page_end(const void *src, size_t bytes) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE), span = (bytes + page - 1) / page * page;
    char *m = mmap(NULL, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    if (mprotect(m + span, page, PROT_NONE) != 0) return munmap(m, span + page), NULL;
    memcpy(m + span - bytes, src, bytes);
    return m + span - bytes;
}
static void page_free(void *p, size_t bytes) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE), span = (bytes + page - 1) / page * page;
    munmap((char *)p + bytes - span, span + page);
}

/* The lean loops on arrays of exactly n records, each ending at an inaccessible page: their 16-byte loads stay
 * inside the last record (a 28-byte ctn_inertia is read at inv_inertia.xx and inv_inertia.xy, a 24-byte
 * ctn_vel at v.x and v.z), and they give what the shared functions give. */
static void compare_at_page_end(int n) {
    ctn_step_params prm;
    memset(&prm, 0, sizeof prm);
    prm.gravity = ctn_v3_make(0.0f, -9.81f, 0.25f), prm.h = 1.0f / 60.0f;
    size_t nb = (size_t)n;
    ctn_inertia *in = at_page_end(inertia, nb * sizeof *in);
    ctn_vel *v = at_page_end(vel, nb * sizeof *v), *out = at_page_end(vel, nb * sizeof *out);
    ctn_props *pr = at_page_end(props, nb * sizeof *pr);
    ctn_body_force *f = at_page_end(forces, nb * sizeof *f);
    ctn_pose *po = at_page_end(pose, nb * sizeof *po);
    CHECK(in && v && out && pr && f && po, "%d bodies: no guarded pages", n);
    if (in && v && out && pr && f && po) {
        memset(ref_vel, 0xA5, sizeof ref_vel);
        ctn__forces(n, props, forces, inertia, no_springs, NULL, NULL, pose, vel, ref_vel, prm, 0, 1);
        ctn__forces(n, pr, f, in, no_springs, NULL, NULL, pose, v, out, prm, 1, 1);
        int i = first_diff(out, ref_vel, n, sizeof *out);
        CHECK(i < 0, "%d bodies at a page's end: velocity of body %d differs from the shared forces", n, i);
        ctn__forces(n, pr, NULL, in, no_springs, NULL, NULL, pose, v, out, prm, 1, 1);
        memcpy(ref_inertia, inertia, sizeof ref_inertia);
        ctn__integrate_bodies(n, pose, ref_pose, vel, props, ref_inertia, prm.h, 0, 1);
        memcpy(in, inertia, nb * sizeof *in);
        ctn__integrate_bodies(n, po, got_pose, v, pr, in, prm.h, 1, 1);
        i = first_diff(in, ref_inertia, n, sizeof *in);
        CHECK(i < 0, "%d bodies at a page's end: inertia of body %d differs from the shared integration", n, i);
    }
    if (in) page_free(in, nb * sizeof *in);
    if (v) page_free(v, nb * sizeof *v);
    if (out) page_free(out, nb * sizeof *out);
    if (pr) page_free(pr, nb * sizeof *pr);
    if (f) page_free(f, nb * sizeof *f);
    if (po) page_free(po, nb * sizeof *po);
}
#endif

static void compare_all(const char *what, int n) {
    ctn_step_params prm;
    memset(&prm, 0, sizeof prm);
    prm.gravity = ctn_v3_make(0.0f, -9.81f, 0.25f), prm.h = 1.0f / 60.0f, prm.geometric_stiffness = 1.0f;
    compare_inertia(what, n, prm.geometric_stiffness * prm.h);
    compare_inertia(what, n, 0.0f); /* geometric stiffness off: the plain inertia */
    compare_forces(what, n, prm);
    compare_integrate(what, n, prm.h);
    compare_integrate(what, n, -prm.h); /* a backward step */
    compare_integrate_inertia(what, n, prm.h);
}

/* The divergence scan: the lean loop against ctn__body_diverged's (lean = 0), the same first diverged body and
 * the same largest speed, bit for bit, at speed limits that cut through the bodies' speeds, on one and two
 * threads. Bodies: random speeds over twelve decades, some exactly at the limit and one float either side of
 * its square, non-finite positions, orientations and velocities. */
static void compare_scan(ctn_world *w, const char *what) {
    static const double limits[] = {1e4, 0.0, -1.0, 3.0, 1e-20, 1e38, INFINITY, 0.5};
    for (size_t k = 0; k < sizeof limits / sizeof limits[0]; ++k) {
        double L = limits[k];
        w->desc.max_speed = L;
        for (int i = 0; i < BODIES; ++i) { /* bodies at the limit and a float either side of its square */
            if (i % 29 != 3 || !(L > 0.0 && L < 1e30)) continue;
            float x = (float)L;
            if (i % 3 == 1) x = nextafterf(x, 0.0f);
            if (i % 3 == 2) x = nextafterf(x, INFINITY);
            vel[i].v = ctn_v3_make(x, 0.0f, 0.0f), vel[i].w = (i & 1) ? ctn_v3_make(0.0f, x, 0.0f) : ctn_v3_zero();
        }
        double ref_top, got_top;
        int ref_bad, got_bad;
        ctn__body_scan(w, BODIES, pose, vel, 0, 1, &ref_top, &ref_bad);
        for (int threads = 1; threads <= 2; ++threads) {
            ctn__body_scan(w, BODIES, pose, vel, 1, threads, &got_top, &got_bad);
            CHECK(got_bad == ref_bad && memcmp(&got_top, &ref_top, sizeof got_top) == 0,
                  "%s, limit %g, %d threads: first diverged body %d, largest speed %.17g (ctn__body_diverged: %d, %.17g)", what, L, threads,
                  got_bad, got_top, ref_bad, ref_top);
        }
        /* the scan with the pose bounds (in_place_test): passes exactly where no body diverged and every pose is
         * within the bounds, with the same largest speed; told that the velocities are finite (vel_finite, where
         * they are: a finite residual that read them all), the same answers */
        int vel_finite = 1;
        for (int i = 0; i < BODIES && vel_finite; ++i)
            vel_finite = isfinite(vel[i].v.x) && isfinite(vel[i].v.y) && isfinite(vel[i].v.z) && isfinite(vel[i].w.x) &&
                         isfinite(vel[i].w.y) && isfinite(vel[i].w.z);
        int bounded = ctn__poses_bounded(pose, BODIES, 1);
        for (int threads = 1; threads <= 2; ++threads)
            for (int known = 0; known <= vel_finite; ++known) {
                double top = -1.0;
                int ok = ctn__body_scan_bounded(w, BODIES, pose, vel, known, threads, &top);
                CHECK(ok == (ref_bad == INT_MAX && bounded) && (!ok || memcmp(&top, &ref_top, sizeof top) == 0),
                      "%s, limit %g, %d threads, velocities known finite %d: bounded scan %d, largest speed %.17g (expected %d, %.17g)",
                      what, L, threads, known, ok, top, ref_bad == INT_MAX && bounded, ref_top);
            }
        if (L == 3.0) /* the checks can fail: some bodies are faster than 3 m/s */
            CHECK(ref_bad < BODIES && ref_top <= 3.0 && ref_top > 2.0, "%s, limit 3: first diverged body %d, largest speed %g", what, ref_bad, ref_top);
        ctn__body_scan(w, 0, pose, vel, 1, 1, &got_top, &got_bad);
        CHECK(got_top == 0.0 && got_bad == INT_MAX, "no bodies: largest speed %g, first diverged %d", got_top, got_bad);
    }
}

int main(void) {
    static const int counts[] = {0, 1, 3, 4, 5, 8, 9, 13, 100, BODIES};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; ++k) {
        make_world(FINITE, 0, counts[k]);
        compare_all("ball joints", counts[k]);
    }
    make_world(FINITE, 1, BODIES);
    compare_all("joints of several types", BODIES);
    make_world(NAN_LAMBDA, 1, BODIES);
    compare_all("NaN impulses", BODIES);
    make_world(INF_LAMBDA, 0, BODIES);
    compare_all("infinite impulses", BODIES);
    make_world(NONFINITE_BODY, 0, BODIES);
    compare_all("non-finite body values", BODIES);
#ifdef GUARD_PAGES
    make_world(FINITE, 0, BODIES);
    for (int n = 1; n <= 9; ++n) compare_at_page_end(n);
#endif

    char err[256];
    ctn_world *w = fixture_world(CTN_BACKEND_CPU, CTN_SOLVER_DIRECT, err, sizeof err);
    CHECK(w != NULL, "%s", err);
    if (w) {
        make_world(FINITE, 0, BODIES);
        for (int i = 0; i < BODIES; ++i) /* speeds over twelve decades */
            vel[i].v = ctn_add(vel[i].v, rand_v3(pow(10.0, 6.0 * urand()))), vel[i].w = ctn_add(vel[i].w, rand_v3(pow(10.0, 6.0 * urand())));
        compare_scan(w, "finite bodies");
        make_world(NONFINITE_BODY, 0, BODIES);
        compare_scan(w, "non-finite body values");
        ctn_world_destroy(w);
    }

    /* the checks can fail: the geometric stiffness changes the inertia, forces and integration change what
     * they write (the lean loops are not compared against unchanged arrays) */
    make_world(FINITE, 0, BODIES);
    ctn__geometric_inertia(BODIES, joints, pose, props, adj_offsets, adj, joint_view(defs, JOINTS, defs_core, defs_extra), lambda, CTN_MAX_ROWS, 0.0f, ref_inertia, 1, 1);
    ctn__geometric_inertia(BODIES, joints, pose, props, adj_offsets, adj, joint_view(defs, JOINTS, defs_core, defs_extra), lambda, CTN_MAX_ROWS, 1.0f / 60.0f, got_inertia, 1, 1);
    int rigid = 1; /* body 1: a dynamic rigid body? */
    while (rigid < BODIES && ((props[rigid].flags & 5) != 1 || adj_offsets[rigid] == adj_offsets[rigid + 1] || rigid % 11 == 0)) ++rigid;
    CHECK(rigid < BODIES && got_inertia[rigid].inv_inertia.xx < ref_inertia[rigid].inv_inertia.xx,
          "geometric stiffness: body %d's inverse inertia %.9g not below the plain one %.9g", rigid,
          rigid < BODIES ? (double)got_inertia[rigid].inv_inertia.xx : 0.0, rigid < BODIES ? (double)ref_inertia[rigid].inv_inertia.xx : 0.0);
    ctn__integrate_poses(BODIES, pose, got_pose, vel, props, 0.1f, 1, 1);
    CHECK(got_pose[rigid].p.x != pose[rigid].p.x || (props[rigid].flags & 3) == 0, "integration: body %d did not move", rigid);
    return check_report("test_body_passes");
}
