/* Exact O(n) solver for chains and trees of joints, with a block Gauss-Seidel hybrid for loops.
 *
 * The system. After external forces and the warm start, with velocities v and accumulated impulses
 * lambda, one substep solves
 *     (J M^-1 J^T + S) dl = r,      r_i = target_i - J_i v - S_i lambda_i                      (1)
 * then lambda += dl, v += M^-1 J^T dl (docs/design.md section 2). Writing dv = M^-1 J^T dl and y = -dl, (1) is
 * the symmetric quasi-definite KKT system (Baraff 1996, "Linear-time dynamics using Lagrange multipliers")
 *     [ M   J^T ] [dv]   [0]
 *     [ J   -S  ] [ y] = [r].                                                                    (2)
 * Its graph has one node per dynamic body (6 DOF; 3 for particles) and one per joint (1, 3, 5 or 6 rows),
 * with an edge for every Jacobian block J_{j,b}. Static, kinematic and world bodies are not nodes: their
 * Jacobian blocks only enter r. When the joints between dynamic bodies form a forest, so does this graph.
 *
 * Ordering (rebuilt when w->topology_version changes). A union-find pass over the joints in creation
 * order picks a spanning forest of the dynamic bodies; a joint whose two bodies are already connected
 * closes a loop and goes to the "extra" set. Every tree is rooted at a body that has a joint to the world
 * (if any) and ordered by reverse breadth-first search, so children come before parents and the block
 * elimination below creates no fill-in. Joint rows are placed in one of two ways:
 *   - a joint to the world (or a static/kinematic body) and a tree joint whose child subtree is
 *     "grounded" (contains a joint to the world) are merged into the node of the body above them, as extra
 *     rows of that node ("supernode": dof + attached rows, at most DIRECT_MAX_ATTACHED_ROWS rows). Their own
 *     pivot would be -S (or -S minus the mobility of a grounded subtree), singular for rigid joints;
 *   - every other tree joint is a node of its own between its child and its parent body (the cheap case:
 *     a chain hanging from one pin is 6x6 body nodes and 3x3 joint nodes only).
 *
 * Elimination (block LDL^T, children before parents). For node i with parent p, H_ip is the coupling
 * block: the Jacobian J_{s,c} of the joint s that joins the child body c to the parent side (placed at the
 * rows of s inside p when s is merged into p), or J_{s,p} for a joint node s below body p.
 *     factor:    D_i = H_ii - sum_{children c} H_ic D_c^-1 H_ci           (stored as D_i^-1)
 *     forward:   u_i = D_i^-1 (b_i - sum_{children c} H_ic u_c)
 *     backward:  x_i = u_i - D_i^-1 H_ip x_p                               (parents before children)
 * with H_ii = [M_b, J_a^T; J_a, -S_a] for a body node (J_a: rows of its attached joints on this body) and
 * H_ss = -S_s for a joint node. The right-hand side is 0 on body DOFs and r on joint rows; the solution is
 * dv on body DOFs and y = -dl on joint rows. A body pivot is inverted through its Schur complement
 *     D^-1 = [A^-1 - Y Q^-1 Y^T, Y Q^-1; Q^-1 Y^T, -Q^-1],  Y = A^-1 J_a^T,  Q = J_a Y - C,
 * with A = M_b + sum J^T Q_child^-1 J (positive definite) and Q positive definite unless the rows of the
 * subtree are redundant; a joint pivot is -Q_s, Q_s = S_s + J_{s,c} [D_c^-1]_bb J_{s,c}^T, positive definite
 * because the child subtree is not grounded. All of this is in double precision. Every row carries a
 * regularisation of DIRECT_FLOOR (1e-10) times its own J M^-1 J^T diagonal on top of S, so nearly redundant
 * rows (a grid pinned along its top edge) cannot produce huge impulses; this changes dl by ~1e-10 relative.
 * A pivot below 1e-13 of its block's largest diagonal (exactly redundant rows) drops that row (dl = 0).
 *
 * Complexity. One factor pass, one forward and one backward pass over the nodes per substep: O(n) time
 * (about 1e3 flops per rigid ball-jointed link) and O(n) memory (one dense N x N inverse per node: 36 + 9
 * doubles per link of a pinned chain, 81 per link of a chain grounded at both ends).
 *
 * Loops (AgX-style direct + iterative split). Each substep: exact forest solve; then w->desc.iterations
 * outer iterations of (a) one block Gauss-Seidel sweep over the extra joints (ctn_gs_slot, with their own
 * block inverse) and (b) an exact re-solve of the forest rows for the residual the extra impulses leave (the
 * factor is reused; only the right-hand side changes). This is block Gauss-Seidel with the whole forest as
 * one block, convergent for any SPD system; its rate depends on how strongly the loop-closing rows couple to
 * the forest. Dense meshes, where most joints are extra, behave like plain GS; a mesh pinned at many points
 * with rigid rows (eps = 0) is nearly redundant, and well-converged outer iterations then produce huge
 * impulses: give such meshes a small compliance (tests/test_direct.c uses 1e-8 on a pinned 10x10 grid).
 *
 * Unsupported cases and what happens instead (the rows are then solved by GS, never an error):
 *   - rows with finite impulse bounds (limits, contacts, friction): the whole joint leaves the forest for
 *     that substep (its coupling is zeroed, which leaves an exact elimination of the remaining forest) and
 *     is solved by projected GS in the outer loop;
 *   - more than DIRECT_MAX_ATTACHED_ROWS rows attached to one body node (many world joints on one body, or
 *     a body with many grounded branches): the joints beyond the limit are extra;
 *   - a rigid body with some but not all principal inverse moments zero: its joints are extra;
 *   - out of memory for the factor storage: the substep falls back to GS sweeps over all joints.
 * A one-line note goes to the log callback the first time a topology needs a fallback.
 *
 * Stability note. The solve is exact for the linearised system of one substep; it does not remove the
 * explicit treatment of geometric stiffness (the Jacobian is frozen over the substep).
 * With a single loop-closing joint set of at most DIRECT_MAX_SCHUR_ROWS rows and no bounded rows, the loop
 * closers are solved exactly through their Schur complement instead (see schur_solve), so a closed chain
 * is exact in one outer iteration. A rigid-link chain
 * with a 1000:1 end mass at 1/60 s excites link rotation modes with omega h >> 2 and needs sub-steps
 * (16 at 60 Hz in tests/test_direct.c); a particle rope at the same ratio holds at one substep.
 */
#include "core/world.h"
#include "ctn_solver.h"
#include "solve/direct_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Joint rows merged into one body node; beyond this the joints go to the GS set. */
#define DIRECT_MAX_ATTACHED_ROWS 12 /* = CTN_DD_MAX_ATTACHED of kernels/ctn_direct.h (the OpenCL node bound) */
#define DIRECT_MAX_NODE (6 + DIRECT_MAX_ATTACHED_ROWS)
/* Loop-closing rows solved through their dense Schur complement; more go to block GS. */
#define DIRECT_MAX_SCHUR_ROWS 48
/* Largest dense matrix spd_inverse handles. */
#define DIRECT_MAX_DENSE (DIRECT_MAX_SCHUR_ROWS > DIRECT_MAX_NODE ? DIRECT_MAX_SCHUR_ROWS : DIRECT_MAX_NODE)
/* Relative pivot threshold below which a row is treated as redundant: CTN_DD_PIVOT_TOL (1e-13). */
/* Relative regularisation of every row: S + DIRECT_FLOOR * (J M^-1 J^T)_ii of the row's own bodies. Keeps
 * nearly redundant rows (a grid pinned along its top row) from producing huge impulses. */
#ifndef DIRECT_FLOOR
#define DIRECT_FLOOR 1e-10
#endif

/* Dense math shared with the OpenCL tree kernels (kernels/ctn_direct.h); here its Cholesky inverse also
 * takes the Schur matrix of the loop closers, hence the larger bound. */
#define CTN_DD_MAX_DENSE DIRECT_MAX_DENSE
#include "ctn_direct.h"
_Static_assert(DIRECT_MAX_ATTACHED_ROWS == CTN_DD_MAX_ATTACHED, "the OpenCL forest path takes the same supernodes");

static void state_free_arrays(direct_state *s) {
    void *p[] = {s->kind, s->dof, s->size, s->side, s->id, s->parent, s->pslot, s->prow, s->mat_off, s->vec_off,
                 s->att_off, s->att, s->slot_kind, s->slot_side, s->slot_node, s->slot_row, s->extra, s->cut,
                 s->extra_now, s->mat, s->b, s->x};
    for (size_t k = 0; k < sizeof p / sizeof p[0]; ++k) free(p[k]);
    ctn__chain_free(s->chain);
    int noted = s->noted, segments = s->chain_segments;
    memset(s, 0, sizeof *s);
    s->noted = noted, s->chain_segments = segments;
}

void ctn__direct_free(ctn_world *w) {
    if (!w || !w->direct_data) return;
    state_free_arrays(w->direct_data);
    free(w->direct_data);
    w->direct_data = NULL;
}

/* ---- small dense kernels (double) ---------------------------------------------------------------- */

/* Jacobian row k of block b for side 0 (body a) or 1 (body b), 6 columns [linear, angular]
 * (docs/design.md section 2, step 1): linear rows [d, r x d] (negated for side b), angular rows [0, t] (negated for side b). */
static void jacobian_row(const ctn_block *b, int k, int side, double out[6]) { ctn_dd_jrow(b, k, side, out); }

/* All rows of one side: J[k][0..5]. */
static void jacobian_side(const ctn_block *b, int side, double J[CTN_MAX_ROWS][6]) {
    int n = ctn_block_rows(b);
    for (int k = 0; k < n; ++k) jacobian_row(b, k, side, J[k]);
}

/* Inverse of the symmetric positive semi-definite n x n matrix a (row-major, stride n) into inv by
 * Cholesky. A pivot below CTN_DD_PIVOT_TOL times the largest diagonal drops its row and column (the
 * inverse of the remaining submatrix is returned, zeros elsewhere). */
static void spd_inverse(const double *a, int n, double *inv) {
    memcpy(inv, a, (size_t)n * (size_t)n * sizeof *inv);
    ctn_dd_spd_inverse_g(inv, n, n);
}

/* In-place inverse of a node pivot D (N x N) = [A, B^T; B, C] with A (d x d) positive definite and
 * C - B A^-1 B^T negative semi-definite (d = 0: joint node, D = C). */
static void node_inverse(double *D, int N, int d) { ctn_dd_node_inverse_g(D, N, d); }

/* Inverse of a symmetric 3x3 (world inverse inertia -> world inertia) in double. Returns 0 if singular. */
static int sym3_inverse(ctn_sym3 s, double out[9]) { return ctn_dd_sym3_inverse(s, out); }

/* ---- ordering (per topology version) ------------------------------------------------------------- */

static int uf_find(int *p, int i) {
    while (p[i] != i) {
        p[i] = p[p[i]];
        i = p[i];
    }
    return i;
}

static int body_dynamic(const ctn_world *w, int body) {
    return body >= 0 && body < w->topo.body_count && (w->props[body].flags & CTN_BODY_FLAG_DYNAMIC) != 0;
}

/* Degrees of freedom of a dynamic body in the solve: 3 for particles and rigid bodies whose rotation is
 * locked (all inverse moments zero), 6 for rigid bodies, 0 when unsupported (some moments zero). */
int ctn__direct_body_dof(const ctn_world *w, int body) {
    const ctn_props *p = &w->props[body];
    if (p->flags & CTN_BODY_FLAG_PARTICLE) return 3;
    int zero = (p->inv_inertia_body.x == 0.0f) + (p->inv_inertia_body.y == 0.0f) + (p->inv_inertia_body.z == 0.0f);
    return zero == 3 ? 3 : (zero == 0 ? 6 : 0);
}

int ctn__direct_rows(const ctn_joint_def *d) {
    switch (d->type) {
    case CTN_JT_DISTANCE: return 1;
    case CTN_JT_BALL: return 3;
    case CTN_JT_HINGE: return 5;
    case CTN_JT_FIXED: return 6;
    case CTN_JT_PRISMATIC: return 5;
    default: return 0;
    }
}

/* Builds the spanning forest, the elimination order and the storage for the current topology. */
static int direct_build(ctn_world *w, direct_state *s, int verbose) {
    const ctn_topology *t = &w->topo;
    int m = t->joint_count, nb = t->body_count;
    int ok = 0, unsupported = 0, overflow = 0;
    state_free_arrays(s);
    size_t nb1 = (size_t)nb + 1, m1 = (size_t)m + 1;
    int *uf = malloc(nb1 * sizeof *uf);
    unsigned char *bdof = malloc(nb1);
    int *arows = calloc(nb1, sizeof *arows);       /* rows attached to each body */
    int *queue = malloc(nb1 * sizeof *queue);
    int *pjoint = malloc(nb1 * sizeof *pjoint);     /* tree joint to the parent body */
    int *pbody = malloc(nb1 * sizeof *pbody);
    int *body_node = malloc(nb1 * sizeof *body_node);
    unsigned char *state = calloc(nb1, 1);          /* 1: has a node, 2: visited */
    unsigned char *grounded = calloc(nb1, 1);
    s->slot_kind = calloc(m1, 1);
    s->slot_side = calloc(m1, 1);
    s->slot_node = malloc(m1 * sizeof *s->slot_node);
    s->slot_row = calloc(m1, sizeof *s->slot_row);
    s->extra = malloc(m1 * sizeof *s->extra);
    s->extra_now = malloc(m1 * sizeof *s->extra_now);
    s->cut = calloc(m1, 1);
    if (!uf || !bdof || !arows || !queue || !pjoint || !pbody || !body_node || !state || !grounded || !s->slot_kind ||
        !s->slot_side || !s->slot_node || !s->slot_row || !s->extra || !s->extra_now || !s->cut)
        goto done;

    for (int i = 0; i < nb; ++i) {
        uf[i] = i;
        bdof[i] = body_dynamic(w, i) ? (unsigned char)ctn__direct_body_dof(w, i) : 0;
        pjoint[i] = pbody[i] = body_node[i] = -1;
    }
    for (int slot = 0; slot < m; ++slot) s->slot_node[slot] = -1;
    /* classify joints in creation order, so the joint that closes a loop is the last one added */
    s->extra_count = 0;
    for (int id = 0; id < w->joint_count; ++id) {
        int slot = w->joint_slot[id];
        if (slot < 0 || slot >= m || t->order[slot] != id) continue;
        const ctn_joint_def *d = &t->defs[slot];
        int a = d->a, b = d->b, da = body_dynamic(w, a), db = body_dynamic(w, b);
        int kind;
        if (!da && !db) {
            kind = SLOT_INACTIVE;
        } else if ((da && bdof[a] == 0) || (db && bdof[b] == 0) || (da && db && a == b) || ctn__direct_rows(d) == 0) {
            kind = SLOT_EXTRA;
            unsupported++;
        } else if (da && db) {
            int ra = uf_find(uf, a), rb = uf_find(uf, b);
            kind = ra != rb ? SLOT_NODE : SLOT_EXTRA; /* provisional: may become attached below */
            if (ra != rb) {
                uf[ra] = rb;
                state[a] = state[b] = 1;
            }
        } else {
            int c = da ? a : b;
            if (arows[c] + ctn__direct_rows(d) <= DIRECT_MAX_ATTACHED_ROWS) {
                arows[c] += ctn__direct_rows(d);
                kind = SLOT_ATTACHED;
                s->slot_side[slot] = (unsigned char)(da ? 0 : 1);
                state[c] = 1;
            } else {
                kind = SLOT_EXTRA;
                overflow++;
            }
        }
        s->slot_kind[slot] = (unsigned char)kind;
        if (kind == SLOT_EXTRA) s->extra[s->extra_count++] = slot;
    }

    /* breadth-first search over tree joints, roots first among bodies with joints to the world */
    int nq = 0;
    for (int pass = 0; pass < 2; ++pass)
        for (int root = 0; root < nb; ++root) {
            if (state[root] != 1 || (pass == 0 && arows[root] == 0)) continue;
            int head = nq;
            queue[nq++] = root;
            state[root] = 2;
            while (head < nq) {
                int u = queue[head++];
                for (int e = t->adj_offsets[u]; e < t->adj_offsets[u + 1]; ++e) {
                    int slot = t->adj[e] >> 1, side = t->adj[e] & 1;
                    if (s->slot_kind[slot] != SLOT_NODE) continue;
                    int v = side ? t->defs[slot].a : t->defs[slot].b;
                    if (state[v] == 2) continue;
                    state[v] = 2;
                    pjoint[v] = slot;
                    pbody[v] = u;
                    queue[nq++] = v;
                }
            }
        }
    /* grounded subtrees (children come after parents in queue) */
    for (int i = nq - 1; i >= 0; --i) {
        int c = queue[i];
        if (arows[c] > 0) grounded[c] = 1;
        if (grounded[c] && pbody[c] >= 0) grounded[pbody[c]] = 1;
    }
    /* a tree joint above a grounded subtree is attached to its parent body (or goes to GS if that is full) */
    for (int i = 0; i < nq; ++i) {
        int c = queue[i], slot = pjoint[c];
        if (slot < 0 || !grounded[c]) continue;
        int p = pbody[c];
        if (arows[p] + ctn__direct_rows(&t->defs[slot]) <= DIRECT_MAX_ATTACHED_ROWS) {
            arows[p] += ctn__direct_rows(&t->defs[slot]);
            s->slot_kind[slot] = SLOT_ATTACHED;
            s->slot_side[slot] = (unsigned char)(t->defs[slot].a == p ? 0 : 1);
        } else {
            s->slot_kind[slot] = SLOT_EXTRA;
            s->extra[s->extra_count++] = slot;
            pjoint[c] = pbody[c] = -1; /* c's subtree becomes a tree of its own */
            overflow++;
        }
    }
    int node_count = 0;
    for (int i = 0; i < nq; ++i) node_count += 1 + (pjoint[queue[i]] >= 0 && s->slot_kind[pjoint[queue[i]]] == SLOT_NODE);
    s->node_count = node_count;
    size_t nn = (size_t)node_count + 1;
    s->kind = malloc(nn);
    s->dof = malloc(nn);
    s->size = malloc(nn);
    s->side = malloc(nn);
    s->id = malloc(nn * sizeof *s->id);
    s->parent = malloc(nn * sizeof *s->parent);
    s->pslot = malloc(nn * sizeof *s->pslot);
    s->prow = malloc(nn);
    s->mat_off = malloc((nn + 1) * sizeof *s->mat_off);
    s->vec_off = malloc((nn + 1) * sizeof *s->vec_off);
    s->att_off = calloc(nn + 1, sizeof *s->att_off);
    if (!s->kind || !s->dof || !s->size || !s->side || !s->id || !s->parent || !s->pslot || !s->prow || !s->mat_off ||
        !s->vec_off || !s->att_off)
        goto done;
    /* elimination order: reverse BFS; a body is followed by its joint node to the parent, if any */
    int k = 0;
    for (int i = nq - 1; i >= 0; --i) {
        int c = queue[i], slot = pjoint[c];
        body_node[c] = k;
        s->kind[k] = NODE_BODY;
        s->dof[k] = bdof[c];
        s->size[k] = (unsigned char)(bdof[c] + arows[c]);
        s->id[k] = c;
        s->parent[k] = -1;
        s->pslot[k] = slot;
        s->prow[k] = 0;
        s->side[k] = (unsigned char)(slot >= 0 && t->defs[slot].a != c ? 1 : 0);
        k++;
        if (slot >= 0 && s->slot_kind[slot] == SLOT_NODE) {
            s->parent[k - 1] = k;
            s->kind[k] = NODE_JOINT;
            s->dof[k] = 0;
            s->size[k] = (unsigned char)ctn__direct_rows(&t->defs[slot]);
            s->id[k] = slot;
            s->parent[k] = -1;
            s->pslot[k] = slot;
            s->prow[k] = 0;
            s->side[k] = (unsigned char)(1 - s->side[k - 1]); /* side of the parent body */
            s->slot_node[slot] = k;
            k++;
        }
    }
    /* attached rows: CSR per body node, in slot order */
    for (int slot = 0; slot < m; ++slot) {
        if (s->slot_kind[slot] != SLOT_ATTACHED) continue;
        const ctn_joint_def *d = &t->defs[slot];
        int holder = s->slot_side[slot] ? d->b : d->a;
        s->slot_node[slot] = body_node[holder];
        s->att_off[body_node[holder] + 1]++;
    }
    for (int i = 0; i < node_count; ++i) s->att_off[i + 1] += s->att_off[i];
    s->att = malloc(((size_t)s->att_off[node_count] + 1) * sizeof *s->att);
    int *fill = malloc(nn * sizeof *fill);
    if (!s->att || !fill) {
        free(fill);
        goto done;
    }
    for (int i = 0; i < node_count; ++i) fill[i] = s->dof[i]; /* next free row of each node */
    for (int slot = 0; slot < m; ++slot) {
        if (s->slot_kind[slot] != SLOT_ATTACHED) continue;
        int node = s->slot_node[slot];
        s->slot_row[slot] = fill[node];
        fill[node] += ctn__direct_rows(&t->defs[slot]);
    }
    memcpy(fill, s->att_off, nn * sizeof *fill);
    for (int slot = 0; slot < m; ++slot)
        if (s->slot_kind[slot] == SLOT_ATTACHED) s->att[fill[s->slot_node[slot]]++] = slot;
    free(fill);
    /* parents: joint node -> its parent body; body -> its joint node, or the body holding its attached joint */
    for (int i = 0; i < node_count; ++i) {
        int slot = s->pslot[i];
        if (slot < 0) continue;
        const ctn_joint_def *d = &t->defs[slot];
        if (s->kind[i] == NODE_JOINT) {
            s->parent[i] = body_node[s->side[i] ? d->b : d->a];
        } else if (s->slot_kind[slot] == SLOT_ATTACHED) {
            s->parent[i] = s->slot_node[slot];
            s->prow[i] = (unsigned char)s->slot_row[slot];
        }
    }
    size_t mo = 0, vo = 0;
    for (int i = 0; i < node_count; ++i) {
        s->mat_off[i] = mo;
        s->vec_off[i] = vo;
        mo += (size_t)s->size[i] * s->size[i];
        vo += s->size[i];
    }
    s->mat_off[node_count] = mo;
    s->vec_off[node_count] = vo;
    s->mat = malloc((mo + 1) * sizeof *s->mat);
    s->b = malloc((vo + 1) * sizeof *s->b);
    s->x = malloc((vo + 1) * sizeof *s->x);
    if (!s->mat || !s->b || !s->x) goto done;
    s->joints = m;
    s->bodies = nb;
    s->version = w->topology_version;
    s->valid = 1;
    ok = 1;
    if ((unsupported || overflow) && verbose)
        ctn__log(w, CTN_LOG_INFO,
                 "direct solver: %d joint(s) on bodies the exact solve does not support (partly zero inverse "
                 "inertia) and %d beyond %d attached rows per body are solved by Gauss-Seidel instead",
                 unsupported, overflow, DIRECT_MAX_ATTACHED_ROWS);
done:
    free(uf);
    free(bdof);
    free(arows);
    free(queue);
    free(pjoint);
    free(pbody);
    free(body_node);
    free(state);
    free(grounded);
    if (!ok) state_free_arrays(s);
    return ok;
}

int ctn__direct_symbolic(ctn_world *w, direct_state *s) {
    if (!direct_build(w, s, 0)) return 0;
    free(s->mat), free(s->b), free(s->x); /* the caller keeps its own factor storage */
    s->mat = s->b = s->x = NULL;
    return 1;
}

void ctn__direct_symbolic_free(direct_state *s) { state_free_arrays(s); }

/* ---- numeric factor and solve (per substep) ------------------------------------------------------ */

static int block_bounded(const ctn_block *b) { return ctn_dd_block_bounded(b); }

/* Coupling of node i to its parent: the joint slot, the side of the Jacobian to use, the first row in
 * the parent (body child) or the parent's DOF count (joint child). Returns 0 when there is none. */
static int node_coupling(const direct_state *s, int i, int *slot) {
    if (s->parent[i] < 0) return 0;
    *slot = s->pslot[i];
    return !s->cut[*slot];
}

/* Diagonal of J M^-1 J^T of row k of a joint from its own two bodies (the scale of the row). */
static double row_local_mass(const ctn_world *w, const ctn_block *b, const ctn_joint_def *d, int k) {
    double acc = 0.0;
    for (int side = 0; side < 2; ++side) {
        int body = side ? d->b : d->a;
        if (body < 0 || !(w->props[body].flags & CTN_BODY_FLAG_DYNAMIC)) continue;
        double j[6];
        jacobian_row(b, k, side, j);
        ctn_sym3 I = w->inertia[body].inv_inertia;
        double im = w->vel[body].inv_mass;
        double Iw[3] = {I.xx * j[3] + I.xy * j[4] + I.xz * j[5], I.xy * j[3] + I.yy * j[4] + I.yz * j[5],
                        I.xz * j[3] + I.yz * j[4] + I.zz * j[5]};
        acc += im * (j[0] * j[0] + j[1] * j[1] + j[2] * j[2]) + j[3] * Iw[0] + j[4] * Iw[1] + j[5] * Iw[2];
    }
    return acc;
}

/* Row diagonal of (2): -(S + floor * local effective mass). */
static double row_pivot(const ctn_world *w, const ctn_block *b, const ctn_joint_def *d, int k) {
    return -((double)b->soft[k] + DIRECT_FLOOR * row_local_mass(w, b, d, k));
}

/* Node pivots H_ii, then elimination of every node into its parent (children first). */
static void direct_factor(ctn_world *w, direct_state *s, const ctn_block *blocks) {
    const ctn_topology *t = &w->topo;
    for (int i = 0; i < s->node_count; ++i) {
        int N = s->size[i], d = s->dof[i];
        double *D = s->mat + s->mat_off[i];
        memset(D, 0, (size_t)N * N * sizeof *D);
        if (s->kind[i] == NODE_JOINT) {
            const ctn_block *blk = &blocks[s->id[i]];
            for (int r = 0; r < N; ++r) D[r * N + r] = s->cut[s->id[i]] ? -1.0 : row_pivot(w, blk, &t->defs[s->id[i]], r);
            continue;
        }
        int body = s->id[i];
        double mass = w->vel[body].inv_mass > 0.0f ? 1.0 / (double)w->vel[body].inv_mass : 1e30;
        for (int r = 0; r < 3; ++r) D[r * N + r] = mass;
        if (d == 6) {
            double I[9];
            if (!sym3_inverse(w->inertia[body].inv_inertia, I))
                for (int r = 0; r < 9; ++r) I[r] = (r % 4 == 0) ? 1e30 : 0.0; /* degenerate: rotation locked */
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c) D[(3 + r) * N + 3 + c] = I[r * 3 + c];
        }
        for (int e = s->att_off[i]; e < s->att_off[i + 1]; ++e) {
            int slot = s->att[e], row0 = s->slot_row[slot], n = ctn__direct_rows(&t->defs[slot]);
            const ctn_block *blk = &blocks[slot];
            if (s->cut[slot]) {
                for (int r = 0; r < n; ++r) D[(row0 + r) * N + row0 + r] = -1.0;
                continue;
            }
            double J[CTN_MAX_ROWS][6];
            jacobian_side(blk, s->slot_side[slot], J);
            for (int r = 0; r < n; ++r) {
                for (int c = 0; c < d; ++c) {
                    D[(row0 + r) * N + c] = J[r][c];
                    D[c * N + row0 + r] = J[r][c];
                }
                D[(row0 + r) * N + row0 + r] = row_pivot(w, blk, &t->defs[slot], r);
            }
        }
    }
    for (int i = 0; i < s->node_count; ++i) {
        int N = s->size[i], d = s->dof[i], slot;
        double *Di = s->mat + s->mat_off[i];
        node_inverse(Di, N, d);
        if (!node_coupling(s, i, &slot)) continue;
        int p = s->parent[i], Np = s->size[p];
        double *Dp = s->mat + s->mat_off[p];
        double J[CTN_MAX_ROWS][6], T[CTN_MAX_ROWS][6];
        jacobian_side(&blocks[slot], s->side[i], J);
        int n = ctn__direct_rows(&t->defs[slot]);
        if (s->kind[i] == NODE_BODY) {
            /* rows of slot in p (at prow): D -= J_sc [D_c^-1]_bb J_sc^T */
            double *Dr = Dp + (size_t)s->prow[i] * Np + s->prow[i];
            for (int r = 0; r < n; ++r)
                for (int c = 0; c < d; ++c) {
                    double acc = 0.0;
                    for (int k = 0; k < d; ++k) acc += J[r][k] * Di[k * N + c];
                    T[r][c] = acc;
                }
            for (int r = 0; r < n; ++r)
                for (int c = 0; c <= r; ++c) {
                    double acc = 0.0;
                    for (int k = 0; k < d; ++k) acc += T[r][k] * J[c][k];
                    Dr[r * Np + c] -= acc;
                    if (c != r) Dr[c * Np + r] -= acc;
                }
        } else {
            /* DOF block of the parent body: D -= J_sp^T D_s^-1 J_sp */
            int dp = s->dof[p];
            for (int r = 0; r < N; ++r)
                for (int c = 0; c < dp; ++c) {
                    double acc = 0.0;
                    for (int k = 0; k < N; ++k) acc += Di[r * N + k] * J[k][c];
                    T[r][c] = acc;
                }
            for (int a = 0; a < dp; ++a)
                for (int c = 0; c <= a; ++c) {
                    double acc = 0.0;
                    for (int k = 0; k < N; ++k) acc += J[k][a] * T[k][c];
                    Dp[a * Np + c] -= acc;
                    if (c != a) Dp[c * Np + a] -= acc;
                }
        }
    }
}

/* r = target - J v - S lambda of one joint, in double. */
static void row_residual(const ctn_world *w, const ctn_block *blk, const ctn_joint_def *d, const float *lam, double *r) {
    ctn_dd_row_residual(blk, ctn_load_vel(w->vel, d->a), ctn_load_vel(w->vel, d->b), lam, r);
}

/* Right-hand side of (2) from the current velocities and impulses: 0 on body DOFs, r on joint rows. */
static void direct_rhs(const ctn_world *w, direct_state *s, const ctn_block *blocks) {
    const ctn_topology *t = &w->topo;
    for (int i = 0; i < s->node_count; ++i) {
        double *b = s->b + s->vec_off[i];
        memset(b, 0, (size_t)s->size[i] * sizeof *b);
        if (s->kind[i] == NODE_JOINT) {
            int slot = s->id[i];
            if (!s->cut[slot]) row_residual(w, &blocks[slot], &t->defs[slot], &t->lambda[6 * slot], b);
            continue;
        }
        for (int e = s->att_off[i]; e < s->att_off[i + 1]; ++e) {
            int slot = s->att[e];
            if (!s->cut[slot]) row_residual(w, &blocks[slot], &t->defs[slot], &t->lambda[6 * slot], b + s->slot_row[slot]);
        }
    }
}

/* Forward and backward substitution through the factor: x = H^-1 b (b is consumed). */
static void direct_substitute(const ctn_world *w, direct_state *s, const ctn_block *blocks) {
    const ctn_topology *t = &w->topo;
    double J[CTN_MAX_ROWS][6];
    for (int i = 0; i < s->node_count; ++i) {
        int N = s->size[i], slot;
        const double *Di = s->mat + s->mat_off[i];
        double *b = s->b + s->vec_off[i], *u = s->x + s->vec_off[i];
        for (int r = 0; r < N; ++r) {
            double acc = 0.0;
            for (int c = 0; c < N; ++c) acc += Di[r * N + c] * b[c];
            u[r] = acc;
        }
        if (!node_coupling(s, i, &slot)) continue;
        int p = s->parent[i], n = ctn__direct_rows(&t->defs[slot]);
        double *bp = s->b + s->vec_off[p];
        jacobian_side(&blocks[slot], s->side[i], J);
        if (s->kind[i] == NODE_BODY) {
            int d = s->dof[i];
            bp += s->prow[i];
            for (int r = 0; r < n; ++r)
                for (int k = 0; k < d; ++k) bp[r] -= J[r][k] * u[k];
        } else {
            int dp = s->dof[p];
            for (int r = 0; r < N; ++r)
                for (int k = 0; k < dp; ++k) bp[k] -= J[r][k] * u[r];
        }
    }
    for (int i = s->node_count - 1; i >= 0; --i) {
        int N = s->size[i], slot;
        if (!node_coupling(s, i, &slot)) continue;
        int p = s->parent[i], n = ctn__direct_rows(&t->defs[slot]);
        const double *Di = s->mat + s->mat_off[i];
        double *x = s->x + s->vec_off[i];
        const double *xp = s->x + s->vec_off[p];
        double g[DIRECT_MAX_NODE];
        int gn;
        jacobian_side(&blocks[slot], s->side[i], J);
        if (s->kind[i] == NODE_BODY) {
            /* x_c -= D_c^-1 [J_sc^T y_s; 0] */
            gn = s->dof[i];
            xp += s->prow[i];
            for (int k = 0; k < gn; ++k) {
                double acc = 0.0;
                for (int r = 0; r < n; ++r) acc += J[r][k] * xp[r];
                g[k] = acc;
            }
        } else {
            /* x_s -= D_s^-1 J_sp dv_p */
            int dp = s->dof[p];
            gn = N;
            for (int r = 0; r < N; ++r) {
                double acc = 0.0;
                for (int k = 0; k < dp; ++k) acc += J[r][k] * xp[k];
                g[r] = acc;
            }
        }
        for (int r = 0; r < N; ++r) {
            double acc = 0.0;
            for (int k = 0; k < gn; ++k) acc += Di[r * N + k] * g[k];
            x[r] -= acc;
        }
    }
}

/* v += dv of the body nodes, lambda += dl = -y of the joint rows. */
static void direct_apply(ctn_world *w, direct_state *s) {
    ctn_topology *t = &w->topo;
    for (int i = 0; i < s->node_count; ++i) {
        const double *x = s->x + s->vec_off[i];
        if (s->kind[i] == NODE_JOINT) {
            int slot = s->id[i];
            if (s->cut[slot]) continue;
            for (int r = 0; r < s->size[i]; ++r) t->lambda[6 * slot + r] = (float)((double)t->lambda[6 * slot + r] - x[r]);
            continue;
        }
        ctn_vel *v = &w->vel[s->id[i]];
        v->v.x = (float)((double)v->v.x + x[0]);
        v->v.y = (float)((double)v->v.y + x[1]);
        v->v.z = (float)((double)v->v.z + x[2]);
        if (s->dof[i] == 6) {
            v->w.x = (float)((double)v->w.x + x[3]);
            v->w.y = (float)((double)v->w.y + x[4]);
            v->w.z = (float)((double)v->w.z + x[5]);
        }
        for (int e = s->att_off[i]; e < s->att_off[i + 1]; ++e) {
            int slot = s->att[e], row0 = s->slot_row[slot];
            if (s->cut[slot]) continue;
            for (int r = 0; r < ctn__direct_rows(&t->defs[slot]); ++r)
                t->lambda[6 * slot + r] = (float)((double)t->lambda[6 * slot + r] - x[row0 + r]);
        }
    }
}

static void forest_solve(ctn_world *w, direct_state *s, const ctn_block *blocks) {
    direct_rhs(w, s, blocks);
    direct_substitute(w, s, blocks);
    direct_apply(w, s);
}

static double gs_fallback(ctn_world *w, const ctn_block *blocks) {
    const ctn_topology *t = &w->topo;
    double r2 = 0.0;
    for (int it = 0; it < w->desc.iterations; ++it) {
        r2 = 0.0;
        for (int s = 0; s < t->joint_count; ++s) r2 += ctn_gs_slot(s, t->defs, blocks, t->lambda, w->vel, w->inertia);
    }
    return r2;
}

/* Loop closers solved exactly through their Schur complement (few rows only): with the forest factored,
 * the velocity response of the forest-constrained system to a unit impulse on extra row k is
 * dv_k = [H^-1 (J_k^T; 0)]_v (one substitution), so W = J_E [dv_1 .. dv_R] + S_E is the exact Delassus
 * matrix of the extra rows. dl_E = W^-1 r_E (r_E after the forest solve), applied as an impulse and
 * followed by a forest re-solve, satisfies all rows at once. */
static int schur_applicable(const direct_state *s, const ctn_world *w, int n_extra, int *rows_out) {
    const ctn_topology *t = &w->topo;
    int rows = 0;
    if (n_extra != s->extra_count) return 0; /* cut (bounded) joints: projected GS instead */
    for (int k = 0; k < n_extra; ++k) {
        const ctn_joint_def *d = &t->defs[s->extra[k]];
        if (!body_dynamic(w, d->a) || !body_dynamic(w, d->b) || !ctn__direct_body_dof(w, d->a) || !ctn__direct_body_dof(w, d->b)) return 0;
        rows += ctn__direct_rows(d);
    }
    *rows_out = rows;
    return rows > 0 && rows <= DIRECT_MAX_SCHUR_ROWS;
}

/* Body node of one of the extra joints' bodies from the small table built per substep (-1: none). */
static int find_body_node(int body, int *cache_body, int *cache_node, int ncache) {
    for (int k = 0; k < ncache; ++k)
        if (cache_body[k] == body) return cache_node[k];
    return -1;
}

static void schur_solve(ctn_world *w, direct_state *s, const ctn_block *blocks, int R) {
    ctn_topology *t = &w->topo;
    int ne = s->extra_count;
    /* body nodes of the extra joints' bodies */
    int cb[2 * DIRECT_MAX_SCHUR_ROWS], cn[2 * DIRECT_MAX_SCHUR_ROWS], nc = 0;
    for (int k = 0; k < ne; ++k) {
        const ctn_joint_def *d = &t->defs[s->extra[k]];
        cb[nc] = d->a, cn[nc++] = -1;
        cb[nc] = d->b, cn[nc++] = -1;
    }
    for (int i = 0; i < s->node_count; ++i)
        if (s->kind[i] == NODE_BODY)
            for (int k = 0; k < nc; ++k)
                if (cb[k] == s->id[i]) cn[k] = i;
    double W[DIRECT_MAX_SCHUR_ROWS * DIRECT_MAX_SCHUR_ROWS], Wi[DIRECT_MAX_SCHUR_ROWS * DIRECT_MAX_SCHUR_ROWS];
    double Jr[DIRECT_MAX_SCHUR_ROWS][2][6];
    int row_slot[DIRECT_MAX_SCHUR_ROWS], row_k[DIRECT_MAX_SCHUR_ROWS], row_na[DIRECT_MAX_SCHUR_ROWS], row_nb[DIRECT_MAX_SCHUR_ROWS];
    int r = 0;
    for (int k = 0; k < ne; ++k) {
        int slot = s->extra[k];
        const ctn_joint_def *d = &t->defs[slot];
        for (int q = 0; q < ctn__direct_rows(d); ++q, ++r) {
            row_slot[r] = slot, row_k[r] = q;
            jacobian_row(&blocks[slot], q, 0, Jr[r][0]);
            jacobian_row(&blocks[slot], q, 1, Jr[r][1]);
            row_na[r] = find_body_node(d->a, cb, cn, nc);
            row_nb[r] = find_body_node(d->b, cb, cn, nc);
        }
    }
    for (int k = 0; k < R; ++k) {
        memset(s->b, 0, s->vec_off[s->node_count] * sizeof *s->b);
        int nodes[2] = {row_na[k], row_nb[k]};
        for (int side = 0; side < 2; ++side) {
            if (nodes[side] < 0) continue;
            double *b = s->b + s->vec_off[nodes[side]];
            for (int c = 0; c < s->dof[nodes[side]]; ++c) b[c] += Jr[k][side][c];
        }
        direct_substitute(w, s, blocks);
        for (int j = 0; j < R; ++j) {
            double acc = j == k ? (double)blocks[row_slot[j]].soft[row_k[j]] : 0.0;
            int nj[2] = {row_na[j], row_nb[j]};
            for (int side = 0; side < 2; ++side) {
                if (nj[side] < 0) continue;
                const double *x = s->x + s->vec_off[nj[side]];
                for (int c = 0; c < s->dof[nj[side]]; ++c) acc += Jr[j][side][c] * x[c];
            }
            W[j * R + k] = acc;
        }
    }
    for (int j = 0; j < R; ++j) /* symmetrise round-off */
        for (int k = 0; k < j; ++k) W[j * R + k] = W[k * R + j] = 0.5 * (W[j * R + k] + W[k * R + j]);
    spd_inverse(W, R, Wi);
    for (int it = 0; it < (w->desc.iterations > 0 ? w->desc.iterations : 1); ++it) {
        double rE[DIRECT_MAX_SCHUR_ROWS], dl[DIRECT_MAX_SCHUR_ROWS];
        for (int k = 0, q = 0; k < ne; ++k) {
            int slot = s->extra[k];
            row_residual(w, &blocks[slot], &t->defs[slot], &t->lambda[6 * slot], rE + q);
            q += ctn__direct_rows(&t->defs[slot]);
        }
        for (int j = 0; j < R; ++j) {
            double acc = 0.0;
            for (int k = 0; k < R; ++k) acc += Wi[j * R + k] * rE[k];
            dl[j] = acc;
        }
        /* impulse on the extra rows: lambda += dl, v += M^-1 J^T dl, then the forest reacts */
        for (int k = 0, q = 0; k < ne; ++k) {
            int slot = s->extra[k], n = ctn__direct_rows(&t->defs[slot]);
            const ctn_joint_def *d = &t->defs[slot];
            float l[CTN_MAX_ROWS] = {0};
            for (int e = 0; e < n; ++e) {
                l[e] = (float)dl[q + e];
                t->lambda[6 * slot + e] = (float)((double)t->lambda[6 * slot + e] + dl[q + e]);
            }
            q += n;
            for (int side = 0; side < 2; ++side) {
                int body = side ? d->b : d->a;
                ctn_v3 dv, dw;
                ctn_block_body_delta(&blocks[slot], l, side, w->vel[body].inv_mass, w->inertia[body].inv_inertia, &dv, &dw);
                w->vel[body].v = ctn_add(w->vel[body].v, dv);
                w->vel[body].w = ctn_add(w->vel[body].w, dw);
            }
        }
        forest_solve(w, s, blocks);
    }
}

/* The ordering of the current topology: the chain path when every joint lies on a simple path, else the
 * forest. Returns 0 when out of memory. */
static int direct_ready(ctn_world *w, direct_state *s) {
    const ctn_topology *t = &w->topo;
    if (s->valid && s->version == w->topology_version && s->joints == t->joint_count && s->bodies == t->body_count) return 1;
    state_free_arrays(s);
    direct_chain *c = NULL;
    int chain = ctn__chain_build(w, &c, s->chain_segments);
    if (chain < 0) return 0;
    if (chain == 0) return direct_build(w, s, 1);
    s->extra_now = malloc(((size_t)t->joint_count + 1) * sizeof *s->extra_now);
    if (!s->extra_now) {
        ctn__chain_free(c);
        return 0;
    }
    s->chain = c;
    s->joints = t->joint_count, s->bodies = t->body_count, s->version = w->topology_version;
    s->valid = 1;
    return 1;
}

void ctn__direct_set_chain_segments(ctn_world *w, int segments) {
    if (!w->direct_data) w->direct_data = calloc(1, sizeof(direct_state));
    direct_state *s = w->direct_data;
    if (!s) return;
    s->chain_segments = segments;
    s->valid = 0;
}

/* Forest (or chain) solve of the current right-hand side. */
static void exact_solve(ctn_world *w, direct_state *s, const ctn_block *blocks) {
    if (s->chain) ctn__chain_solve(w, s->chain, blocks);
    else forest_solve(w, s, blocks);
}

double ctn__solve_direct(ctn_world *w, const ctn_block *blocks) { return ctn__solve_direct_ex(w, blocks, 1); }

double ctn__solve_direct_ex(ctn_world *w, const ctn_block *blocks, int residual) {
    ctn_topology *t = &w->topo;
    direct_state *s = w->direct_data;
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s) return gs_fallback(w, blocks);
        w->direct_data = s;
    }
    if (!direct_ready(w, s)) {
        if (!s->noted) ctn__log(w, CTN_LOG_WARNING, "direct solver: out of memory for %d joints, using Gauss-Seidel", t->joint_count);
        s->noted = 1;
        return gs_fallback(w, blocks);
    }
    /* joints with finite bounds leave the exact solve for this substep and join the GS set */
    int n_extra = 0;
    if (s->chain) {
        n_extra = ctn__chain_factor(w, s->chain, blocks, s->extra_now);
        ctn__chain_solve(w, s->chain, blocks);
    } else {
        for (int k = 0; k < s->extra_count; ++k) s->extra_now[n_extra++] = s->extra[k];
        for (int slot = 0; slot < t->joint_count; ++slot) {
            int kind = s->slot_kind[slot];
            s->cut[slot] = (unsigned char)((kind == SLOT_NODE || kind == SLOT_ATTACHED) && block_bounded(&blocks[slot]));
            if (s->cut[slot]) s->extra_now[n_extra++] = slot;
        }
        direct_factor(w, s, blocks);
        forest_solve(w, s, blocks);
        int schur_rows = 0;
        if (n_extra > 0 && schur_applicable(s, w, n_extra, &schur_rows)) {
            schur_solve(w, s, blocks, schur_rows);
            n_extra = 0;
        }
    }
    for (int it = 0; n_extra > 0 && it < w->desc.iterations; ++it) {
        for (int k = 0; k < n_extra; ++k) ctn_gs_slot(s->extra_now[k], t->defs, blocks, t->lambda, w->vel, w->inertia);
        exact_solve(w, s, blocks);
    }
    if (!residual) return 0.0;
    if (s->chain) return ctn__chain_residual(w, s->chain, blocks);
    double r2 = 0.0;
    for (int slot = 0; slot < t->joint_count; ++slot) {
        const ctn_joint_def *d = &t->defs[slot];
        if (!body_dynamic(w, d->a) && !body_dynamic(w, d->b)) continue;
        float r[CTN_MAX_ROWS];
        const ctn_block *b = &blocks[slot];
        ctn_block_residual(b, ctn_load_vel(w->vel, d->a), ctn_load_vel(w->vel, d->b), &t->lambda[6 * slot], r);
        for (int k = 0; k < ctn_block_rows(b); ++k) r2 += (double)r[k] * r[k];
    }
    return r2;
}
