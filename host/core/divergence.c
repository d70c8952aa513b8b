/* Divergence guard: a step that produces a non-finite value or a body faster than desc.max_speed is
 * undone, so the caller gets CTN_ERR_DIVERGED with the world exactly as it was before the step and can
 * retry with a smaller time step, more substeps, or stop with its data intact.
 *
 * The CPU backend works on the host arrays. The state the step starts from is kept by double buffering, not
 * by a copy: the poses, velocities and impulses each have a second array (snapshot_pose, snapshot_vel and
 * the topology's lambda_prev), and the step's first writer of each (the integration, the forces, the warm
 * start's scaling) reads the old array and writes the other one, whose pointer then becomes the world's
 * (ctn__snapshot_fork). The old array is left as the step found it, so undoing the step is a swap of
 * pointers back; after a step that holds, the old array is the next step's spare. A stage that can only
 * write in place forks by a copy first (ctn__snapshot_keep), as the snapshot did before every step. The
 * world inverse inertias are kept only where they are not the function of the poses the restore can
 * recompute (inertia_derived below). The impulses' spare is the topology's lambda_prev, which only the layout
 * rebuild uses (for its carry-over, outside a step): no third impulse array.
 *
 * A step whose only writer of the poses is its final integration (the velocity step with one substep and no
 * position projection: Gauss-Seidel, Jacobi, CG; host/solve/solver_cpu.c cpu_integrate) holds no pose spare
 * (40 bytes a body): the divergence test of what the integration reads (the velocities, the impulses, the
 * residual) runs before it, a step that fails there is undone by the velocity and impulse swaps alone with
 * the poses never touched, and one that passes, with every pose and joint anchor within the bounds under
 * which the integration and the joint errors after it are finite, integrates in place (CTN_SNAP_POSE_IN_PLACE).
 * Outside those bounds the spare is reserved then (ctn__snapshot_pose_spare) and the step forks as above.
 * The exact solver's velocity step with one substep integrates in place the same way where every joint is a
 * rigid ball joint; its position projection then writes the poses after the integration, keeping the copy
 * that undoes one of its steps in the pose spare (free of the step's start), and leaves only finite poses and
 * joint errors (host/solve/solver_cpu.c: in_place_joints, project_unchecked), so nothing fails after the test
 * there either. Such a step holds the spare (as that copy) and no other pose array.
 *
 * The step spare (docs/design.md section 8 has the whole argument and the measurements). In that step the
 * start velocities and impulses are live only until the in-place test passes and the pose spare only after it,
 * so the pose spare alone is held (CTN_SNAP_TAKE_SHARED, CTN_SNAP_SHARED) and keeps the start velocities (its
 * first 24 n bytes) and impulses (4 stride m bytes after them) by a copy until the test; the restore copies them
 * back. The invariant: once the integration in place passed the test, ctn__snapshot_release marks the start
 * state released (CTN_SNAP_RELEASED); from then on the spare is the projection's pose copy and nothing forks,
 * keeps or restores the start velocities and impulses (every array counts as forked, forked_bits). Where the
 * copies do not fit (24 n + 4 stride m above 40 bytes a body of capacity), where RATTLE may run, and before a
 * stage that copies the poses first or a pose outside the test's bounds (unshare), the step forks by the double
 * buffer above. The impulses' spare (lambda_prev) is freed while a step spare holds their copy. */
#include "core/world.h"
#include "core/lane_copy.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Bodies below which the snapshot is copied on one thread. */
#define SNAPSHOT_PARALLEL_MIN 4096

static void ctn__joints_snapshot_free(ctn_world *w);

/* Whether every body's world inverse inertia is the one its pose and properties give (ctn_body_inverse_inertia,
 * bit for bit): then the restore recomputes it from the restored pose and no copy is kept. The step's last
 * writer of the inertias is the integration or the projection's refresh, both of that function; the
 * geometric-stiffness inertia (ctn_solver.h) lives only inside a substep. A composite body of attachments
 * (host/core/attach.c) takes its master's properties and fails the test, as any other exception would:
 * the inertias are then copied as before. */
static int inertia_derived(const ctn_world *w, int n) {
    int bad = INT_MAX;
#ifdef _OPENMP
    int team = ctn__threads(w);
#pragma omp parallel for schedule(static) num_threads(team) reduction(min : bad) if (n >= SNAPSHOT_PARALLEL_MIN)
#endif
    for (int i = 0; i < n; ++i) {
        ctn_sym3 in = ctn_body_inverse_inertia(w->pose[i], w->props[i]);
        if (memcmp(&in, &w->inertia[i].inv_inertia, sizeof in) != 0) bad = i < bad ? i : bad;
    }
    return bad == INT_MAX;
}

/* Grows a spare body array to the world's body capacity (it takes the place of the world's array when
 * forked, and the world's arrays hold body_capacity elements); 0 when out of memory (*p kept). */
static int spare_reserve(void **p, size_t size, int cap) {
    if (ctn__mul_overflows((size_t)cap, size)) return 0;
    void *q = ctn__realloc(*p, (size_t)cap * size);
    if (!q) return 0;
    *p = q;
    return 1;
}

/* The array pairs of the double buffer: the world's pointer and its spare. */
static void **fork_world(ctn_world *w, int k) {
    return k == 0 ? (void **)&w->pose : k == 1 ? (void **)&w->vel : (void **)&w->topo.lambda;
}
static void **fork_spare(ctn_world *w, int k) {
    return k == 0 ? (void **)&w->snapshot_pose : k == 1 ? (void **)&w->snapshot_vel : (void **)&w->topo.lambda_prev;
}
static size_t fork_bytes(const ctn_world *w, int k) {
    return k == 0 ? (size_t)w->body_count * sizeof(ctn_pose)
           : k == 1 ? (size_t)w->body_count * sizeof(ctn_vel)
                    : (size_t)w->topo.stride * (size_t)w->topo.joint_count * sizeof(float); /* lambda_prev holds lambda_capacity floats */
}

/* The step spare (CTN_SNAP_SHARED): the pose spare's bytes, the start velocities first (body_count of them), the
 * start impulses after them (float-aligned: 24 bytes a velocity). Where array k's start state is kept: its spare,
 * or its place in the step spare. */
static size_t shared_impulses_at(const ctn_world *w) { return fork_bytes(w, 1); }
static void *spare_of(ctn_world *w, int k) {
    if (k > 0 && (w->snapshot_forked & CTN_SNAP_SHARED)) return (char *)w->snapshot_pose + (k == 1 ? 0 : shared_impulses_at(w));
    return *fork_spare(w, k);
}
/* Whether the start velocities and impulses fit in a pose spare of body_capacity poses: 24 n + 4 stride m <= 40
 * capacity bytes, so stride m <= 4 capacity + 6 (capacity - n): a chain or a tree of ball joints (stride 3, m < n)
 * always. */
static int shared_fits(const ctn_world *w) {
    return shared_impulses_at(w) + fork_bytes(w, 2) <= (size_t)w->body_capacity * sizeof(ctn_pose);
}

/* Copies array k (1 the velocities, 2 the impulses) between the world and the step spare (to_spare: into it), by
 * 128-byte blocks of 16-byte lanes (core/lane_copy.h), on the world's threads for a large world. Not memcpy: glibc
 * copies arrays of this size by `rep movsb`, which callgrind counts as an instruction a byte (36 a link per step on
 * the yardstick's chain), where the blocks take about two (velocities and impulses together). */
static void shared_copy(ctn_world *w, int k, int to_spare) {
#ifdef _OPENMP
    int team = ctn__threads(w);
#endif
    void *spare = spare_of(w, k), *live = k == 1 ? (void *)w->vel : (void *)w->topo.lambda;
    void *to = to_spare ? spare : live;
    const void *from = to_spare ? live : spare;
    size_t bytes = fork_bytes(w, k);
    long blocks = (long)(bytes / CTN_LANE_BLOCK);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(team) if (w->body_count >= SNAPSHOT_PARALLEL_MIN)
#endif
    for (long i = 0; i < blocks; ++i) lane_copy_block(to, from, (size_t)i);
    lane_copy_tail(to, from, bytes);
}

/* Grows the velocity spare to the body capacity (nothing changed when out of memory). */
static ctn_status vel_spare(ctn_world *w) {
    if (w->body_capacity <= w->snapshot_bodies) return CTN_OK;
    if (!spare_reserve((void **)&w->snapshot_vel, sizeof(ctn_vel), w->body_capacity))
        return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for the divergence snapshot (%d bodies)", w->body_count);
    w->snapshot_bodies = w->body_capacity;
    return CTN_OK;
}

/* The step spare's kept velocities and impulses to spares of their own, the double buffer's (the forked ones: the
 * spare holds the start, as after a fork), before the pose spare takes the start poses: a pose outside the bounds
 * of the in-place test, a stage that copies the poses first. Nothing changed when out of memory. */
static ctn_status unshare(ctn_world *w) {
    ctn_status s = vel_spare(w);
    if (s == CTN_OK) s = ctn__topology_impulse_spare(w);
    if (s != CTN_OK) return s;
    for (int k = 1; k < 3; ++k) {
        size_t bytes = fork_bytes(w, k);
        if ((w->snapshot_forked & (1u << k)) && bytes) memcpy(*fork_spare(w, k), spare_of(w, k), bytes);
    }
    w->snapshot_forked &= ~CTN_SNAP_SHARED;
    return CTN_OK;
}

ctn_status ctn__snapshot_pose_spare(ctn_world *w) {
    if ((w->snapshot_forked & (CTN_SNAP_SHARED | CTN_SNAP_RELEASED)) == CTN_SNAP_SHARED) {
        ctn_status s = unshare(w);
        if (s != CTN_OK) return s;
    }
    if (w->body_capacity <= w->snapshot_pose_bodies) return CTN_OK;
    if (!spare_reserve((void **)&w->snapshot_pose, sizeof(ctn_pose), w->body_capacity))
        return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for the divergence snapshot (%d bodies)", w->body_count);
    w->snapshot_pose_bodies = w->body_capacity;
    return CTN_OK;
}

ctn_status ctn__snapshot_take(ctn_world *w, int inertia_known_derived, int spares) {
    int n = w->body_count;
    w->snapshot_forked = 0; /* the world's arrays are the state the step starts from */
    if (spares == CTN_SNAP_TAKE_SHARED && shared_fits(w)) {
        /* the pose spare alone, which keeps the start velocities and impulses until the in-place test */
        ctn_status s = ctn__snapshot_pose_spare(w);
        if (s != CTN_OK) return s;
        ctn__free(w->snapshot_vel);
        w->snapshot_vel = NULL;
        w->snapshot_bodies = 0;
        ctn__topology_impulse_spare_free(&w->topo);
        w->snapshot_forked = CTN_SNAP_SHARED;
    } else {
        ctn_status s = vel_spare(w);
        if (s == CTN_OK) s = ctn__topology_impulse_spare(w); /* where an earlier step's step spare freed it */
        if (s != CTN_OK) return s;
        if (spares != CTN_SNAP_TAKE_NO_POSE) {
            s = ctn__snapshot_pose_spare(w);
            if (s != CTN_OK) return s;
        } else if (w->snapshot_pose) { /* a configuration that no longer needs it (an earlier step's, or a fork's spare) */
            ctn__free(w->snapshot_pose);
            w->snapshot_pose = NULL;
            w->snapshot_pose_bodies = 0;
        }
    }
    w->snapshot_inertia_kept = 0;
    if (n == 0) return CTN_OK; /* an empty world: nothing to copy (and memcpy must not see its NULL arrays) */
    /* the inertias only where they are not a function of the poses (28 bytes a body resident otherwise); the
     * backend knows it without the test when the last step's last writer formed them so and the host has
     * changed no body since */
    if (!inertia_known_derived && !inertia_derived(w, n)) {
        if (n > w->snapshot_inertia_bodies) {
            size_t cap = (size_t)n + (size_t)n / 2 + 16;
            ctn_inertia *in = ctn__mul_overflows(cap, sizeof *in) ? NULL : ctn__realloc(w->snapshot_inertia, cap * sizeof *in);
            if (!in) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for the divergence snapshot (%d bodies)", n);
            w->snapshot_inertia = in;
            w->snapshot_inertia_bodies = (int)cap;
        }
        memcpy(w->snapshot_inertia, w->inertia, (size_t)n * sizeof *w->inertia);
        w->snapshot_inertia_kept = 1;
    }
    return CTN_OK;
}

/* snapshot_forked as a fork or a keep reads it: the poses once written in place count as forked (no later
 * writer may fork them, their spare holds nothing of this step's start), and after the release every array
 * does (the step can no longer be undone: the step spare is the projection's). */
static unsigned forked_bits(const ctn_world *w) {
    if (w->snapshot_forked & CTN_SNAP_RELEASED) return CTN_SNAP_POSE | CTN_SNAP_VEL | CTN_SNAP_LAMBDA;
    return w->snapshot_forked | (w->snapshot_forked & CTN_SNAP_POSE_IN_PLACE ? CTN_SNAP_POSE : 0u);
}

void *ctn__snapshot_fork(ctn_world *w, unsigned what) {
    if (forked_bits(w) & what) return NULL;
    int k = what == CTN_SNAP_POSE ? 0 : what == CTN_SNAP_VEL ? 1 : 2;
    w->snapshot_forked |= what;
    if (k > 0 && (w->snapshot_forked & CTN_SNAP_SHARED)) { /* kept by a copy into the step spare, written in place */
        shared_copy(w, k, 1);
        return spare_of(w, k);
    }
    /* a pose fork (k = 0) never runs under an unreleased CTN_SNAP_SHARED: its callers reserve the pose spare first
     * (ctn__snapshot_pose_spare), which moves the kept velocities and impulses out of it (unshare) */
    void **a = fork_world(w, k), **b = fork_spare(w, k), *t = *a;
    *a = *b, *b = t;
    return t;
}

void ctn__snapshot_release(ctn_world *w) {
    if (w->snapshot_forked & CTN_SNAP_SHARED) w->snapshot_forked |= CTN_SNAP_RELEASED;
}

ctn_status ctn__snapshot_keep(ctn_world *w, unsigned what) {
    what &= ~forked_bits(w);
    if (!what) return CTN_OK;
    if (what & CTN_SNAP_POSE) {
        ctn_status s = ctn__snapshot_pose_spare(w); /* under CTN_SNAP_SHARED the velocities and impulses move out first */
        if (s != CTN_OK) return s;
    }
    /* A large world's copy is bound by memory bandwidth, which one thread does not fill (1e5 links: 12 MB
     * per step): the arrays on the world's threads. */
#ifdef _OPENMP
    int n = w->body_count, team = ctn__threads(w);
#pragma omp parallel for schedule(static, 1) num_threads(team) if (n >= SNAPSHOT_PARALLEL_MIN)
#endif
    for (int k = 0; k < 3; ++k) {
        size_t bytes = fork_bytes(w, k);
        if ((what & (1u << k)) && bytes) memcpy(spare_of(w, k), *fork_world(w, k), bytes);
    }
    w->snapshot_forked |= what;
    return CTN_OK;
}

void ctn__snapshot_restore(ctn_world *w) {
    int n = w->body_count;
    unsigned f = w->snapshot_forked;
    if (f & CTN_SNAP_RELEASED) {
        w->snapshot_forked = 0;
        /* not reached: a step that released its step spare integrated in place after its divergence test, and
         * nothing fails after it (solver_cpu.c in_place_test). Its start velocities and impulses are gone; the
         * step's state, consistent, stays (the inertias of its poses formed again below). */
        w->bodies_dirty = 1;
        w->inertia_stale = 1;
        return;
    }
    /* the spares of the forked arrays hold the state the step started from: their pointers back (or, kept in the
     * step spare, the copies) */
    for (int k = 0; k < 3; ++k) {
        if (!(f & (1u << k))) continue;
        if (k > 0 && (f & CTN_SNAP_SHARED)) {
            shared_copy(w, k, 0);
            continue;
        }
        void **a = fork_world(w, k), **b = fork_spare(w, k), *t = *a;
        *a = *b, *b = t;
    }
    w->snapshot_forked = 0;
    if (n == 0) return;
    if (w->snapshot_inertia_kept) memcpy(w->inertia, w->snapshot_inertia, (size_t)n * sizeof *w->inertia);
    else /* the same bits as at the take (inertia_derived); the step changes no body's properties */
        for (int i = 0; i < n; ++i) w->inertia[i].inv_inertia = ctn_body_inverse_inertia(w->pose[i], w->props[i]);
    w->inertia_stale = 0;
    w->bodies_dirty = 1;
}

void ctn__snapshot_free(ctn_world *w) {
    ctn__free(w->snapshot_pose);
    ctn__free(w->snapshot_vel);
    ctn__free(w->snapshot_inertia);
    w->snapshot_pose = NULL;
    w->snapshot_vel = NULL;
    w->snapshot_inertia = NULL;
    w->snapshot_bodies = 0;
    w->snapshot_pose_bodies = 0;
    w->snapshot_inertia_bodies = 0;
    w->snapshot_inertia_kept = 0;
    w->snapshot_forked = 0;
    ctn__joints_snapshot_free(w);
}

/* ---- the joint table and the solver layout ------------------------------------------------------------
 * The contact generation of a step (host/collide/collide.c) adds, rewrites and removes contact joints and
 * the topology rebuild re-lays the solver arrays before the body snapshot above is taken, so undoing a step
 * needs the joints too: the live set with its slots, generations and free stack (the handles), the
 * definitions (contact anchors move every step), the body reference counts, and the layout's order and
 * impulses. The restore copies them back and, when the layout was current, rebuilds it: the colouring is a
 * function of the live joints and the body kinds alone, so the rebuilt layout is the one the step started
 * with, and the carry-over of ctn__topology_build puts every impulse back in its slot. */

/* Grows *p to hold n elements of `size` bytes (capacity *cap, headroom 1.5x); 0 on failure (*p kept). */
static int grow_size(void *p, size_t *cap, size_t n, size_t size, int commit) {
    if (n <= *cap) return 1;
    size_t c = n + n / 2 + 16;
    if (ctn__mul_overflows(c, size)) return 0;
    void *q = ctn__realloc(*(void **)p, c * size);
    if (!q) return 0;
    *(void **)p = q;
    if (commit) *cap = c;
    return 1;
}
static int grow(void *p, int *cap, int n, size_t size, int commit) {
    size_t c = (size_t)*cap;
    if (!grow_size(p, &c, (size_t)n, size, commit)) return 0;
    *cap = (int)c;
    return 1;
}

ctn_status ctn__joints_snapshot_take(ctn_world *w) {
    ctn_joint_snapshot *s = &w->joint_snap;
    int nj = w->joint_count, nb = w->body_count, m = w->topo.joint_count;
    s->valid = 0;
    /* every array first (capacities committed once all grew), then the copies: a failure changes nothing */
    int jc = s->joint_capacity, bc = s->body_capacity, ls = w->topo.stride;
    size_t tc = s->topo_capacity, lambdas = (size_t)ls * (size_t)m;
    int ok = grow(&s->joints, &jc, nj, sizeof *s->joints, 0) && grow(&s->joint_alive, &jc, nj, 1, 0) &&
             (!w->joint_gen || grow(&s->joint_gen, &s->gen_capacity, nj, sizeof *s->joint_gen, 1)) && grow(&s->joint_free, &jc, nj, sizeof *s->joint_free, 0) &&
             grow(&s->joint_pos, &jc, nj, sizeof *s->joint_pos, 0) && grow(&s->joint_at, &jc, nj, sizeof *s->joint_at, 1) &&
             (!w->body_refs || grow(&s->body_refs, &bc, nb, sizeof *s->body_refs, 1)) &&
             (!w->joint_slot_held || grow(&s->joint_slot, &s->slot_capacity, nj, sizeof *s->joint_slot, 1)) &&
             grow_size(&s->lambda, &tc, lambdas, sizeof *s->lambda, 1) &&
             (!w->joint_extra || grow(&s->extra, &s->extra_capacity, nj, sizeof *s->extra, 1));
    if (!ok) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for the step snapshot of %d joints", nj);
    s->joint_capacity = jc;
    s->body_capacity = bc;
    s->topo_capacity = tc;
    s->joint_count = nj;
    s->live_joints = w->live_joints;
    s->joint_free_count = w->joint_free_count;
    s->body_count = nb;
    s->has_extra = w->joint_extra != NULL;
    if (nj) {
        memcpy(s->joints, w->joint_core, (size_t)nj * sizeof *s->joints);
        if (w->joint_extra) memcpy(s->extra, w->joint_extra, (size_t)nj * sizeof *s->extra);
        memcpy(s->joint_pos, w->joint_pos, (size_t)nj * sizeof *s->joint_pos);
        memcpy(s->joint_at, w->joint_at, (size_t)nj * sizeof *s->joint_at);
        memcpy(s->joint_alive, w->joint_alive, (size_t)nj);
        if (w->joint_gen) memcpy(s->joint_gen, w->joint_gen, (size_t)nj * sizeof *s->joint_gen);
        if (w->joint_slot_held) memcpy(s->joint_slot, w->joint_slot, (size_t)nj * sizeof *s->joint_slot);
    }
    s->joint_slot_held = w->joint_slot_held;
    s->has_joint_gen = w->joint_gen != NULL;
    if (w->joint_free_count) memcpy(s->joint_free, w->joint_free, (size_t)w->joint_free_count * sizeof *s->joint_free);
    s->has_body_refs = w->body_refs != NULL;
    if (nb && w->body_refs) memcpy(s->body_refs, w->body_refs, (size_t)nb * sizeof *s->body_refs);
    s->topo_joint_count = m;
    s->topo_stride = ls;
    if (m) memcpy(s->lambda, w->topo.lambda, lambdas * sizeof *s->lambda);
    s->topology_dirty = w->topology_dirty;
    s->solver = (int)w->solver;
    s->solver_fresh = w->solver_version != 0 && w->solver_version == w->topology_version + 1u;
    s->valid = 1;
    return CTN_OK;
}

void ctn__joints_snapshot_restore(ctn_world *w) {
    ctn_joint_snapshot *s = &w->joint_snap;
    if (!s->valid) return;
    s->valid = 0;
    int nj = s->joint_count, m = s->topo_joint_count;
    /* the step only grew the joint arrays and the layout's capacities: the old counts fit */
    w->joint_count = nj;
    w->live_joints = s->live_joints;
    w->joint_free_count = s->joint_free_count;
    if (nj) {
        memcpy(w->joint_core, s->joints, (size_t)nj * sizeof *s->joints);
        /* the extras array is not freed while the snapshot is valid (ctn__joint_extra_recount); one the step
         * created gets the defaults back */
        if (w->joint_extra && s->has_extra) memcpy(w->joint_extra, s->extra, (size_t)nj * sizeof *s->extra);
        else if (w->joint_extra)
            for (int j = 0; j < nj; ++j) w->joint_extra[j] = ctn_joint_extra_default();
        memcpy(w->joint_pos, s->joint_pos, (size_t)nj * sizeof *s->joint_pos);
        memcpy(w->joint_at, s->joint_at, (size_t)nj * sizeof *s->joint_at);
        memcpy(w->joint_alive, s->joint_alive, (size_t)nj);
        if (s->has_joint_gen) memcpy(w->joint_gen, s->joint_gen, (size_t)nj * sizeof *s->joint_gen);
        /* the map the world kept then, in its array, which only grows */
        if (s->joint_slot_held) memcpy(w->joint_slot, s->joint_slot, (size_t)nj * sizeof *s->joint_slot);
    }
    w->joint_slot_held = s->joint_slot_held;
    if (!s->has_joint_gen && w->joint_gen) { /* made by the step (its first built-in contact): every generation was 0 */
        ctn__free(w->joint_gen);
        w->joint_gen = NULL;
    }
    if (s->joint_free_count) memcpy(w->joint_free, s->joint_free, (size_t)s->joint_free_count * sizeof *s->joint_free);
    if (s->has_body_refs && s->body_count) memcpy(w->body_refs, s->body_refs, (size_t)s->body_count * sizeof *s->body_refs);
    else if (!s->has_body_refs && w->body_refs) { /* counted since (never inside a step): counted again on need */
        ctn__free(w->body_refs);
        w->body_refs = NULL;
    }
    /* the layout's capacities only grow: the impulses of the layout the step started from fit at their stride */
    w->topo.joint_count = m;
    w->topo.stride = s->topo_stride;
    if (m) memcpy(w->topo.lambda, s->lambda, (size_t)s->topo_stride * (size_t)m * sizeof *s->lambda);
    w->topology_dirty = 1;
    if (s->topology_dirty) return; /* the next step rebuilds it, as it would have */
    /* Same joints, same body kinds: the same layout, the impulses carried over by joint id. It fits in the
     * capacities the step's own rebuild left, so nothing is allocated but the impulses' spare where the step's
     * step spare freed it (CTN_SNAP_SHARED); without memory for it the layout stays dirty and the next step
     * rebuilds it from the impulses put back above, as after a step that started dirty. */
    if (ctn__topology_build(w) != CTN_OK) return;
    if (s->solver_fresh) {
        w->solver = (ctn_solver)s->solver;
        w->solver_version = w->topology_version + 1u;
    }
}

static void ctn__joints_snapshot_free(ctn_world *w) {
    ctn_joint_snapshot *s = &w->joint_snap;
    ctn__free(s->joints);
    ctn__free(s->extra);
    ctn__free(s->joint_pos);
    ctn__free(s->joint_at);
    ctn__free(s->joint_alive);
    ctn__free(s->joint_gen);
    ctn__free(s->joint_free);
    ctn__free(s->joint_slot);
    ctn__free(s->body_refs);
    ctn__free(s->lambda);
    memset(s, 0, sizeof *s);
}

static int finite_v3(ctn_v3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }
static int finite_pose(const ctn_pose *p) {
    return finite_v3(p->p) && finite_v3(p->p_lo) && isfinite(p->q.w) && isfinite(p->q.x) && isfinite(p->q.y) && isfinite(p->q.z);
}
static double speed_limit(const ctn_world *w) { return w->desc.max_speed > 0.0 ? w->desc.max_speed : INFINITY; }

/* One body: CTN_OK, or CTN_ERR_DIVERGED with the message naming it. Shared with the OpenCL backend, which
 * finds the first offending body on the device and reads back only that one. */
ctn_status ctn__divergence_body(ctn_world *w, int i, const ctn_pose *p, const ctn_vel *v, double *speed) {
    if (!ctn__body_diverged(w, p, v, speed)) return CTN_OK;
    long long handle = (long long)ctn_body_id_to_int(ctn__body_handle(w, i));
    if (!finite_pose(p)) return ctn__fail(w, CTN_ERR_DIVERGED, "step diverged: body %lld has a non-finite pose; the step was undone", handle);
    if (!finite_v3(v->v) || !finite_v3(v->w))
        return ctn__fail(w, CTN_ERR_DIVERGED, "step diverged: body %lld has a non-finite velocity; the step was undone", handle);
    double sv = ctn_length(v->v), sw = ctn_length(v->w);
    return ctn__fail(w, CTN_ERR_DIVERGED, "step diverged: body %lld reached %g %s (desc.max_speed %g); the step was undone", handle,
                     *speed, sv >= sw ? "m/s" : "rad/s", speed_limit(w));
}
