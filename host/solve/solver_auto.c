/* CTN_SOLVER_AUTO: which solver a topology gets.
 *
 * What Gauss-Seidel cannot converge is the load a joint carries relative to the body it acts on: a joint
 * holding up a subtree of mass M_sub through a body of mass m needs information from the whole subtree,
 * and the number of sweeps GS needs grows with M_sub / m (with n^2 for an n-link chain: docs/guide.md, "numerical
 * model"). That ratio is the chain length for a chain of equal links hanging from a pin, 2^depth for a
 * binary tree of depth `depth`, and the end-mass ratio for a light chain holding a heavy load. The exact
 * forest solver (host/solve/solver_direct.c) solves any chain or tree of bilateral joints in one O(n)
 * pass, whatever the ratio. Loop-closing joints and bounded rows (contacts, limits, motors, ropes) are
 * outside the forest: the direct solver handles them by an outer block Gauss-Seidel, no better than plain
 * GS when they dominate. So `auto` picks
 *     DIRECT  for every articulated system without contacts whose loop closers + bounded joints are at most a
 *             quarter of the joints: the exact solver holds the joints to ~1e-7 m where GS leaves visible
 *             gaps on small systems too (a 10-link chain swinging down: 6e-3 m), and with the RATTLE
 *             integrator (host/solve/pipeline.c) it keeps their energy (the same chain at 60 Hz: within 1.8%
 *             over 10 s, GS loses 62%; a rod pendulum's period within 0.003% at 90 degrees:
 *             tests/test_rattle.c); with contacts (a pile changes its topology every step, and each change
 *             rebuilds the exact solver's ordering) it keeps the rule that follows;
 *             Where no contact can arise at all (no shape has a plane or another body's shape to touch:
 *             ctn__collision_possible), joints with a limit, motor or swing cone do not count against the
 *             quarter: their equality rows stay exact and only the bounded rows go to the outer loop;
 *             such a mechanism of at most CTN_AUTO_OUTER_JOINTS joints gets CTN_AUTO_OUTER outer iterations
 *             of that loop (w->auto_outer, see below);
 *     DIRECT  when some tree of the spanning forest has a joint whose supported mass ratio
 *             M_sub(child) / m_child reaches CTN_AUTO_MIN_RATIO, and loop closers + bounded joints are at
 *             most a quarter of the joints;
 *     GS      otherwise (piles, dense meshes, short articulations of comparable masses).
 * Trees are rooted where they hang: at a body with a joint to the world or to a static or kinematic body;
 * a free-floating tree at one end of its longest path (then a free chain of n links scores n - 1, the
 * same as a pinned one). The reason goes to ctn_step_stats.solver_reason. Cost O(bodies + joints), once
 * per topology_version. Both backends run the same
 * hybrid, so the choice holds on OpenCL too; only a device without fp64 turns DIRECT down (then GS, see
 * backend_opencl.c). */
#include "collide/collide.h"
#include "core/world.h"
#include "solve/direct_internal.h"
#include "solve/solve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CTN_AUTO_MIN_RATIO 32.0

/* Outer iterations for the bounded rows of a small mechanism (at most CTN_AUTO_OUTER_JOINTS joints, no
 * contact possible). A bounded row (a motor, a limit) is cut from the exact forest and updated by projected
 * Gauss-Seidel with its own two bodies' effective mass, then the forest re-solves the rest: a block
 * Gauss-Seidel iteration whose contraction per pass is about 1 - m_eff(body) / m_eff(subtree) for the row
 * (the same ratio the exact solve is there to remove). A light link carrying a heavy arm converges slowly: the Franka Panda's
 * 0.65 kg second link carries 12 kg, and at 4 outer iterations its 87 N m motor lets the arm fall onto its
 * joint limit (worst angle 0.186 rad over 120 steps), at 16 0.053 rad, at 64 7.9e-4 rad; the xArm 6 holds
 * to 6.7e-8 m and 3e-11 rad at 64 (bench/urdf_robots.sh with World(iterations=N)). Each outer iteration
 * costs one sweep over the bounded rows and one O(n) forest re-solve, so 64 of them on at most 256 joints
 * stay below the cost of the collision-free step's integration and projection. */
#define CTN_AUTO_OUTER 64
#define CTN_AUTO_OUTER_JOINTS 256

static int uf_find(int *up, int x) {
    while (up[x] != x) x = up[x] = up[up[x]];
    return x;
}

/* Appends s to the string in dst (n bytes), cut to fit. */
static void append(char *dst, size_t n, const char *s) {
    size_t l = strlen(dst), k = strlen(s);
    if (l + 1 >= n) return;
    if (k > n - l - 1) k = n - l - 1;
    memcpy(dst + l, s, k);
    dst[l + k] = '\0';
}

static int is_bounded(const ctn_joint_def *d) {
    return d->type == CTN_JT_CONTACT || (d->flags & (CTN_JF_LIMIT | CTN_JF_MOTOR | CTN_JF_ROPE | CTN_JF_SWING));
}

/* A joint all of whose rows are bounded (a contact, a rope): it leaves the exact forest whole. Other bounded
 * joints (a hinge with a limit or a motor, a ball joint with a swing cone) keep their equality rows in it. */
static int wholly_bounded(const ctn_joint_def *d) { return d->type == CTN_JT_CONTACT || (d->flags & CTN_JF_ROPE); }

static int dynamic_body(const ctn_world *w, int b) { return b >= 0 && (w->props[b].flags & CTN_BODY_FLAG_DYNAMIC); }

static double body_mass(const ctn_world *w, int b) { return w->inertia[b].inv_mass > 0.0f ? 1.0 / (double)w->inertia[b].inv_mass : 1e30; }

typedef struct forest {
    int n;
    int *head, *adj;          /* CSR adjacency of the tree joints */
    int *queue, *parent;      /* breadth-first order and parent of the current tree */
    unsigned char *seen, *grounded;
    double *sub;              /* mass of the subtree below each body */
} forest;

/* Breadth-first search of the tree of `root`: order in queue (returned count), parents, seen marked. */
static int bfs(forest *f, int root) {
    int qh = 0, qt = 0;
    f->queue[qt++] = root;
    f->parent[root] = -1;
    f->seen[root] = 1;
    while (qh < qt) {
        int u = f->queue[qh++];
        for (int k = f->head[u]; k < f->head[u + 1]; ++k) {
            int v = f->adj[k];
            if (f->seen[v]) continue;
            f->seen[v] = 1;
            f->parent[v] = u;
            f->queue[qt++] = v;
        }
    }
    return qt;
}

/* Largest supported mass ratio of the tree containing `start` (marks its bodies seen). */
static double tree_ratio(const ctn_world *w, forest *f, int start) {
    int count = bfs(f, start), root = -1;
    for (int i = 0; i < count && root < 0; ++i)
        if (f->grounded[f->queue[i]]) root = f->queue[i];
    if (root < 0) root = f->queue[count - 1]; /* the farthest body from start: one end of a longest path */
    for (int i = 0; i < count; ++i) f->seen[f->queue[i]] = 0;
    count = bfs(f, root);
    double best = 0.0;
    for (int i = count - 1; i >= 0; --i) {
        int c = f->queue[i];
        f->sub[c] += body_mass(w, c); /* the children's masses were added already */
        if (f->parent[c] >= 0) f->sub[f->parent[c]] += f->sub[c];
        if (f->parent[c] >= 0 || f->grounded[c]) {
            double r = f->sub[c] / body_mass(w, c);
            if (r > best) best = r;
        }
    }
    return best;
}

/* Bytes of the scratch for n bodies and m joints, and the arrays carved from it (8-byte aligned: the
 * doubles first). */
static size_t scratch_bytes(int n, int m) {
    size_t nn = (size_t)n, mm = (size_t)m;
    return sizeof(double) * nn + sizeof(int) * (nn + (nn + 1) + (2 * mm + 1) + nn + nn + mm + mm) + 2 * nn + 8;
}

/* Largest supported mass ratio over the spanning forest of `edges` tree joints. */
static double forest_ratio(const ctn_world *w, forest *f, int edges, const int *ea, const int *eb) {
    int n = f->n;
    if (n <= 0) return 0.0;
    memset(f->head, 0, ((size_t)n + 1) * sizeof *f->head);
    memset(f->seen, 0, (size_t)n);
    memset(f->sub, 0, (size_t)n * sizeof *f->sub);
    for (int e = 0; e < edges; ++e) f->head[ea[e] + 1]++, f->head[eb[e] + 1]++;
    for (int i = 0; i < n; ++i) f->head[i + 1] += f->head[i];
    int *fill = f->queue; /* borrowed as the fill cursor before the searches */
    for (int i = 0; i < n; ++i) fill[i] = f->head[i];
    for (int e = 0; e < edges; ++e) f->adj[fill[ea[e]]++] = eb[e], f->adj[fill[eb[e]]++] = ea[e];
    double best = 0.0;
    for (int i = 0; i < n; ++i) {
        if (f->seen[i] || !dynamic_body(w, i) || (f->head[i] == f->head[i + 1] && !f->grounded[i])) continue;
        double r = tree_ratio(w, f, i);
        if (r > best) best = r;
    }
    return best;
}

/* The scratch lives in the world (w->auto_scratch) and only grows: the choice is made again at every
 * topology change, which is every step in which contacts exist, and such a step allocates nothing. The
 * reason of the choice goes to w->solver_reason (ctn_step_stats.solver_reason). */
ctn_status ctn__auto_solver(ctn_world *w, ctn_solver *out) {
    const ctn_topology *t = &w->topo;
    int m = t->joint_count, n = w->body_count;
    w->auto_outer = 0;
    if (m == 0 || n == 0) {
        snprintf(w->solver_reason, sizeof w->solver_reason, "auto: gs, no joints");
        *out = CTN_SOLVER_GS;
        return CTN_OK;
    }
    size_t need = scratch_bytes(n, m);
    if (need > w->auto_scratch_size) {
        size_t cap = need + need / 2;
        void *p = ctn__realloc(w->auto_scratch, cap);
        /* no quiet GS instead: a choice made out of memory would stay for the rest of the run */
        if (!p) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "ctn_world_step: out of memory choosing the solver (%zu bytes)", cap);
        w->auto_scratch = p;
        w->auto_scratch_size = cap;
    }
    forest f;
    f.n = n;
    f.sub = w->auto_scratch;
    int *ip = (int *)(f.sub + n);
    int *up = ip, *ea = up + n, *eb = ea + m;
    f.head = eb + m;
    f.adj = f.head + n + 1;
    f.queue = f.adj + 2 * m + 1;
    f.parent = f.queue + n;
    f.grounded = (unsigned char *)(f.parent + n);
    f.seen = f.grounded + n;
    memset(f.grounded, 0, (size_t)n);
    for (int i = 0; i < n; ++i) up[i] = i;
    int edges = 0, outside = 0, contacts = 0, kept = 0, closers = 0, closer_rows = 0, closer_bounded = 0;
    for (int s = 0; s < m; ++s) contacts += t->defs[s].type == CTN_JT_CONTACT;
    /* Without contacts, now or possible later (no shape has anything to touch), a limit, motor or swing cone
     * does not make the direct solver the wrong tool: the joint's equality rows stay in the exact forest and
     * only its bounded rows take the outer Gauss-Seidel loop (solver_direct.c), while plain GS leaves every
     * row to converge (examples/snake_50.urdf, 50 limited and motorised hinges: worst gap over 120 steps
     * 0.0249 m with gs, 0.00165 m with direct). */
    int keep_bounded = contacts == 0 && !ctn__collision_possible(w);
    for (int s = 0; s < m; ++s) {
        const ctn_joint_def d_def = ctn_joint_at(ctn__topo_joints(t), s), *d = &d_def;
        if (is_bounded(d) && !(keep_bounded && !wholly_bounded(d))) {
            outside++;
            continue;
        }
        kept += is_bounded(d);
        int a = d->a, b = d->b, da = dynamic_body(w, a), db = dynamic_body(w, b);
        if (da != db) f.grounded[da ? a : b] = 1; /* a joint to the world or a static body holds the tree */
        if (!da || !db) continue;
        int ra = uf_find(up, a), rb = uf_find(up, b);
        if (ra == rb) {
            outside++; /* closes a loop */
            continue;
        }
        up[ra] = rb;
        ea[edges] = a, eb[edges] = b, edges++;
    }
    double ratio = forest_ratio(w, &f, edges, ea, eb);
    char *why = w->solver_reason;
    size_t wn = sizeof w->solver_reason;
    /* the loop closers as the exact solver finds them: in creation order (host/solve/direct_build.c) */
    for (int i = 0; i < n; ++i) up[i] = i;
    for (int id = 0; id < w->joint_count && keep_bounded; ++id) {
        int s = ctn__joint_layout_slot(w, id);
        if (s < 0 || s >= m || t->order[s] != id) continue;
        const ctn_joint_def d_def = ctn_joint_at(ctn__topo_joints(t), s), *d = &d_def;
        if (wholly_bounded(d) || !dynamic_body(w, d->a) || !dynamic_body(w, d->b)) continue;
        int ra = uf_find(up, d->a), rb = uf_find(up, d->b);
        if (ra != rb) {
            up[ra] = rb;
            continue;
        }
        closers++;
        closer_rows += ctn_joint_def_rows(*d);
        closer_bounded |= is_bounded(d);
    }
    /* Loop closers the exact solver takes through their Schur complement (at most DIRECT_MAX_SCHUR_ROWS rows,
     * none of them bounded: solver_direct.c) are exact, not outside, where no contact can arise: a
     * mechanism with loops (a four-bar linkage, the mimic couplings of a gripper, docs/urdf.md) gets the
     * exact solver. While rows of the forest are cut (limits, motors) the closers take the outer loop with
     * them. */
    char closed[64] = "";
    if (keep_bounded && closers > 0 && !closer_bounded && closer_rows <= DIRECT_MAX_SCHUR_ROWS) {
        outside -= closers;
        snprintf(closed, sizeof closed, ", %d loop closer%s exact", closers, closers == 1 ? "" : "s");
    }
    if (4 * outside > m) {
        snprintf(why, wn, "auto: gs, %d of %d joints have bounded rows or close loops (more than a quarter)", outside, m);
        *out = CTN_SOLVER_GS;
    } else if (contacts == 0 && kept > 0) {
        if (m <= CTN_AUTO_OUTER_JOINTS) w->auto_outer = CTN_AUTO_OUTER;
        int outer = w->auto_outer > w->desc.iterations ? w->auto_outer : w->desc.iterations;
        /* the CPU's active set (kernels/ctn_direct_active.h) takes the bounded rows; the outer sweeps are then its
         * fallback's */
        int active = w->desc.bounded_rows != CTN_BOUNDED_SWEEP && w->backend && !strcmp(w->backend->name, "cpu");
        char sweeps[48];
        snprintf(sweeps, sizeof sweeps, active ? "an active set, %d outer sweeps to fall back on" : "%d outer sweeps",
                 outer < CTN_MAX_ITERATIONS ? outer : CTN_MAX_ITERATIONS);
        snprintf(why, wn, "auto: direct, no contact possible (%d of %d joints outside, %d bounded in, ", outside, m, kept);
        append(why, wn, sweeps);
        append(why, wn, closed);
        append(why, wn, ")");
        *out = CTN_SOLVER_DIRECT;
    } else if (contacts == 0) {
        snprintf(why, wn, "auto: direct, an articulated system without contacts (%d of %d joints outside the exact solve", outside, m);
        append(why, wn, closed);
        append(why, wn, ")");
        *out = CTN_SOLVER_DIRECT;
    } else if (ratio < CTN_AUTO_MIN_RATIO) {
        snprintf(why, wn, "auto: gs, the largest mass a joint supports is %.3g times its body's (below %g)", ratio, CTN_AUTO_MIN_RATIO);
        *out = CTN_SOLVER_GS;
    } else {
        snprintf(why, wn, "auto: direct, a joint supports %.3g times its body's mass (%g or more), %d of %d joints outside", ratio,
                 CTN_AUTO_MIN_RATIO, outside, m);
        *out = CTN_SOLVER_DIRECT;
    }
    return CTN_OK;
}

/* CTN_SUBSTEPS_AUTO: the substeps of a step for `solver`. With the exact solver and every joint inside its
 * forest (no bounded rows, no loop closers), the joints hold at one substep: the solve is exact and the
 * position projection (host/solve/pipeline.c) removes the drift of the step, so more substeps only shrink the
 * first-order time-discretisation error of the trajectory, at their full cost. Measured with
 * bench/bench_substeps against the same scene at 64 substeps (docs/guide.md, "Choosing substeps"): chain:1000
 * and tree:2047 hold to ~1e-7 m at 1, 2 and 4 substeps; the chain's trajectory error halves with each
 * doubling (0.17, 0.081, 0.040 m over 2 s), the tree's barely moves (0.33, 0.31, 0.28 m: its error is not
 * the step's). Three layouts need the substeps: distance joints (rope:100, a particle rope swinging down:
 * each row fixes only the distance, and over a whole 60 Hz step its direction turns too far for the
 * linearised row and the projection's Newton steps: it tears by 0.31 m at 1 substep, 0.24 m at 2, holds
 * to 1e-7 m at 4), a large mass ratio across a joint (heavy_chain:8, a 1000:1 end: trajectory error
 * 0.19 m at 1 substep, 0.028 m at 4, on a 0.8 m chain) and joints outside the exact forest (bounded rows
 * and loop closers, solved by the outer Gauss-Seidel loop and not projected). So: 1 substep for the exact
 * solver on a forest of bilateral ball, hinge, fixed or prismatic joints whose adjacent masses are within
 * CTN_AUTO_SUBSTEP_RATIO of each other, else CTN_AUTO_SUBSTEPS, the default of the iterative solvers. */
#define CTN_AUTO_SUBSTEPS 4
#define CTN_AUTO_SUBSTEP_RATIO 10.0

ctn_status ctn__auto_substeps(ctn_world *w, ctn_solver solver, int *out) {
    const ctn_topology *t = &w->topo;
    int m = t->joint_count, n = w->body_count;
    if (solver != CTN_SOLVER_DIRECT || m == 0) {
        *out = CTN_AUTO_SUBSTEPS;
        return CTN_OK;
    }
    int *up = ctn__malloc(sizeof *up * ((size_t)n + 1)), pick = 1; /* once per topology or solver change */
    if (!up) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "ctn_world_step: out of memory choosing the substeps (%d bodies)", n);
    for (int i = 0; i < n; ++i) up[i] = i;
    for (int s = 0; s < m && pick == 1; ++s) {
        const ctn_joint_def d_def = ctn_joint_at(ctn__topo_joints(t), s), *d = &d_def;
        int da = dynamic_body(w, d->a), db = dynamic_body(w, d->b);
        if (!da && !db) continue;
        if (is_bounded(d) || d->type == CTN_JT_DISTANCE) pick = CTN_AUTO_SUBSTEPS;
        if (!da || !db) continue;
        double ma = body_mass(w, d->a), mb = body_mass(w, d->b);
        if (ma > CTN_AUTO_SUBSTEP_RATIO * mb || mb > CTN_AUTO_SUBSTEP_RATIO * ma) pick = CTN_AUTO_SUBSTEPS;
        int ra = uf_find(up, d->a), rb = uf_find(up, d->b);
        if (ra == rb) pick = CTN_AUTO_SUBSTEPS; /* a loop closer: outer Gauss-Seidel */
        up[ra] = rb;
    }
    ctn__free(up);
    *out = pick;
    return CTN_OK;
}
