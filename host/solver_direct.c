/* Exact O(n) solver for chains and trees of joints, with a block Gauss-Seidel hybrid for loops (issue 8).
 *
 * The system. After external forces and the warm start, with velocities v and accumulated impulses
 * lambda, one substep solves
 *     (J M^-1 J^T + S) dl = r,      r_i = target_i - J_i v - S_i lambda_i                      (1)
 * then lambda += dl, v += M^-1 J^T dl (DESIGN.md section 1). Writing dv = M^-1 J^T dl and y = -dl, (1) is
 * the symmetric quasi-definite KKT system (Baraff 1996, "Linear-time dynamics using Lagrange multipliers")
 *     [ M   J^T ] [dv]   [0]
 *     [ J   -S  ] [ y] = [r].                                                                    (2)
 * Its graph has one node per dynamic body (6x6 mass block; 3x3 for particles) and one per joint (1, 3, 5
 * or 6 rows), with an edge for every non-zero Jacobian block J_{j,b}. Static, kinematic and world bodies
 * are not nodes: their Jacobian blocks only enter r.
 *
 * The forest. When the joints between dynamic bodies form a forest, the graph of (2) is a forest too. A
 * joint to the world (or to a static/kinematic body) has a single neighbour and its pivot would be -S, which
 * is singular for rigid joints; so its rows are merged into the node of its body ("supernode" of size
 * dof + world rows, at most DIRECT_MAX_WORLD_ROWS world rows). Every tree is rooted at a body and ordered by
 * reverse breadth-first search: each body is followed by the joint to its parent body, so children always
 * come before parents and block elimination produces no fill-in.
 *
 * The elimination (block LDL^T, children before parents). For every node i with parent p, H_ip is the
 * Jacobian block that couples them: H_{c,s} = [J_{s,c}^T; 0] for a body c below joint s, H_{s,p} = J_{s,p}
 * for a joint s below body p.
 *     factor:    D_i = H_ii - sum_{children c} H_ic D_c^-1 H_ci           (stored as D_i^-1)
 *     forward:   u_i = D_i^-1 (b_i - sum_{children c} H_ic u_c)
 *     backward:  x_i = u_i - D_i^-1 H_ip x_p                               (parents before children)
 * with H_ii = [M_b, J_w^T; J_w, -S_w] for a body node (J_w: its world joints' rows) and H_ss = -S_s for
 * a joint node. The pivots are definite by construction: a body pivot's mass block is
 * M_b + sum J^T Q^-1 J (positive definite), a joint pivot is -Q_s with Q_s = S_s + J_{s,c} [D_c^-1]_bb J_{s,c}^T
 * (positive semi-definite), and a supernode is inverted through its Schur complement
 *     D^-1 = [A^-1 - Y Q^-1 Y^T, Y Q^-1; Q^-1 Y^T, -Q^-1],  Y = A^-1 J_w^T,  Q = S_w + J_w Y.
 * Everything is in double precision. Rows that carry no information (Q has a zero pivot: S = 0 and the row
 * touches no dynamic degree of freedom, or it repeats other rows) get dl = 0 instead of a division by zero.
 *
 * Complexity. Per substep, one pass per node for the factor, one forward and one backward pass: O(n) time
 * with constants set by the block sizes (about 1e3 flops per rigid link), O(n) memory (a dense N x N
 * inverse per node: 36 + 9 doubles per rigid ball-jointed link). The ordering (union-find spanning forest
 * and BFS) is rebuilt only when w->topology_version changes.
 *
 * Loops (AgX-style direct + iterative split). A joint whose two dynamic bodies are already connected by
 * the spanning forest closes a loop; such joints form the "extra" set. Each substep: exact tree solve; then
 * w->desc.iterations outer iterations of (a) one block Gauss-Seidel sweep over the extra joints
 * (ctn_gs_slot, their own block inverse) and (b) an exact re-solve of the tree rows for the residual the
 * extra impulses leave (the tree factor is reused; only the right-hand side changes). This is block
 * Gauss-Seidel with the whole forest as one block, so it converges for any SPD system; the rate depends on
 * how strongly the loop-closing rows couple to the tree (a ring hanging from one point converges within a
 * few outer iterations; dense meshes where most joints are extra behave like plain GS).
 *
 * Unsupported cases, and what happens instead (never an error: the rows are then solved by GS):
 *   - rows with finite impulse bounds (limits, contacts, friction): the whole joint is taken out of the
 *     tree for that substep (its coupling is zeroed, which is exact elimination of the remaining forest)
 *     and solved by projected GS in the outer loop;
 *   - more than DIRECT_MAX_WORLD_ROWS rows of world joints on one body: the excess joints are extra;
 *   - a joint whose two bodies are the same body, or a rigid body with some but not all principal inverse
 *     moments zero: those joints are extra;
 *   - out of memory for the factor storage: the whole substep falls back to GS sweeps.
 * The first time a topology needs a fallback a one-line note goes to stderr (unless CATENA_QUIET is set).
 */
#include "world.h"
#include "ctn_solver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* World-joint rows merged into one body node (3 fixed joints); more go to the GS set. */
#define DIRECT_MAX_WORLD_ROWS 18
#define DIRECT_MAX_NODE (6 + DIRECT_MAX_WORLD_ROWS)
/* Relative pivot threshold below which a row is treated as carrying no information. */
#define DIRECT_PIVOT_TOL 1e-13

enum { SLOT_INACTIVE = 0, SLOT_TREE, SLOT_WORLD, SLOT_EXTRA };
enum { NODE_BODY = 0, NODE_JOINT };

typedef struct direct_state {
    int valid;
    unsigned version;        /* w->topology_version the ordering was built for */
    int joints, bodies;      /* topo.joint_count, topo.body_count at build time */

    int node_count;
    unsigned char *kind;     /* [node] NODE_BODY / NODE_JOINT */
    unsigned char *dof;      /* [node] body: 3 or 6; joint: 0 */
    unsigned char *side;     /* [node] body: its side in the parent joint; joint: side of the parent body */
    unsigned char *size;     /* [node] N: dof + world rows (body) or rows (joint) */
    int *id;                 /* [node] body id or joint slot */
    int *parent;             /* [node] parent node, -1 for a root */
    size_t *mat_off;         /* [node] offset of the N x N block in mat */
    size_t *vec_off;         /* [node] offset of the N-vector in b / x */
    int *world_off;          /* [node + 1] CSR of world joints merged into body nodes */
    int *world;

    unsigned char *slot_kind;/* [slot] SLOT_* */
    int *slot_node;          /* [slot] tree: its node; world: the node of its body; else -1 */
    int *slot_row;           /* [slot] world joints: first row inside the body node */
    int extra_count;
    int *extra;              /* static extra slots (loop closers, unsupported) */

    /* per substep */
    unsigned char *cut;      /* [slot] joint taken out of the tree this substep (finite bounds) */
    int *extra_now;          /* [slots] extra + cut joints of this substep */
    double *mat;             /* node pivots, then their inverses */
    double *b, *x;           /* right-hand side, solution */
    int noted;
} direct_state;

static void state_free_arrays(direct_state *s) {
    free(s->kind);
    free(s->dof);
    free(s->side);
    free(s->size);
    free(s->id);
    free(s->parent);
    free(s->mat_off);
    free(s->vec_off);
    free(s->world_off);
    free(s->world);
    free(s->slot_kind);
    free(s->slot_node);
    free(s->slot_row);
    free(s->extra);
    free(s->cut);
    free(s->extra_now);
    free(s->mat);
    free(s->b);
    free(s->x);
    memset(s, 0, sizeof *s);
}

void ctn__direct_free(ctn_world *w) {
    if (!w || !w->direct_data) return;
    state_free_arrays(w->direct_data);
    free(w->direct_data);
    w->direct_data = NULL;
}

/* ---- small dense kernels (double) ---------------------------------------------------------------- */

/* Jacobian row k of block b for side 0 (body a) or 1 (body b), 6 columns [linear, angular] (DESIGN.md
 * step 2): linear rows [d, r x d] (negated for side b), angular rows [0, t] (negated for side b). */
static void jacobian_row(const ctn_block *b, int k, int side, double out[6]) {
    double sg = side ? -1.0 : 1.0;
    ctn_v3 d = b->dir[k];
    if (k < b->n_lin) {
        ctn_v3 r = side ? b->rb : b->ra;
        out[0] = sg * d.x, out[1] = sg * d.y, out[2] = sg * d.z;
        out[3] = sg * ((double)r.y * d.z - (double)r.z * d.y);
        out[4] = sg * ((double)r.z * d.x - (double)r.x * d.z);
        out[5] = sg * ((double)r.x * d.y - (double)r.y * d.x);
    } else {
        out[0] = out[1] = out[2] = 0.0;
        out[3] = sg * d.x, out[4] = sg * d.y, out[5] = sg * d.z;
    }
}

/* All rows of one side: J[k][0..5]. */
static void jacobian_side(const ctn_block *b, int side, double J[CTN_MAX_ROWS][6]) {
    int n = ctn_block_rows(b);
    for (int k = 0; k < n; ++k) jacobian_row(b, k, side, J[k]);
}

/* Inverse of the symmetric positive semi-definite n x n matrix a (row-major, stride n) into inv by
 * Cholesky. A pivot below DIRECT_PIVOT_TOL times the largest diagonal drops its row and column (the
 * inverse of the remaining submatrix is returned, zeros elsewhere). */
static void spd_inverse(const double *a, int n, double *inv) {
    double l[DIRECT_MAX_NODE * DIRECT_MAX_NODE];
    unsigned char live[DIRECT_MAX_NODE];
    double dmax = 0.0;
    for (int i = 0; i < n; ++i)
        if (a[i * n + i] > dmax) dmax = a[i * n + i];
    double tol = DIRECT_PIVOT_TOL * dmax;
    for (int j = 0; j < n; ++j) {
        double d = a[j * n + j];
        for (int c = 0; c < j; ++c) d -= l[j * n + c] * l[j * n + c];
        live[j] = d > tol && d > 0.0;
        if (!live[j]) {
            for (int i = j; i < n; ++i) l[i * n + j] = 0.0;
            continue;
        }
        d = sqrt(d);
        l[j * n + j] = d;
        double id = 1.0 / d;
        for (int i = j + 1; i < n; ++i) {
            double s = a[i * n + j];
            for (int c = 0; c < j; ++c) s -= l[i * n + c] * l[j * n + c];
            l[i * n + j] = s * id;
        }
    }
    /* inverse of L (lower triangular) in place of its live part, then inv = L^-T L^-1 */
    double li[DIRECT_MAX_NODE * DIRECT_MAX_NODE];
    for (int c = 0; c < n; ++c) {
        for (int i = 0; i < n; ++i) {
            if (i < c || !live[i]) {
                li[i * n + c] = 0.0;
                continue;
            }
            double s = i == c ? 1.0 : 0.0;
            for (int k = c; k < i; ++k) s -= l[i * n + k] * li[k * n + c];
            li[i * n + c] = s / l[i * n + i];
        }
    }
    for (int i = 0; i < n; ++i)
        for (int j = 0; j <= i; ++j) {
            double s = 0.0;
            for (int k = i; k < n; ++k) s += li[k * n + i] * li[k * n + j];
            inv[i * n + j] = s;
            inv[j * n + i] = s;
        }
}

/* In-place inverse of a node pivot D (N x N) = [A, B^T; B, C] with A (d x d) positive definite and
 * C - B A^-1 B^T negative semi-definite (d = 0: joint node, D = C). */
static void node_inverse(double *D, int N, int d) {
    int m = N - d;
    double Ainv[36], Y[6 * DIRECT_MAX_NODE], Q[DIRECT_MAX_NODE * DIRECT_MAX_NODE], Qi[DIRECT_MAX_NODE * DIRECT_MAX_NODE];
    if (d > 0) {
        double A[36];
        for (int i = 0; i < d; ++i)
            for (int j = 0; j < d; ++j) A[i * d + j] = D[i * N + j];
        spd_inverse(A, d, Ainv);
    }
    if (m == 0) {
        for (int i = 0; i < d; ++i)
            for (int j = 0; j < d; ++j) D[i * N + j] = Ainv[i * d + j];
        return;
    }
    /* Y = A^-1 B^T (d x m); Q = B Y - C (m x m) */
    for (int i = 0; i < d; ++i)
        for (int r = 0; r < m; ++r) {
            double s = 0.0;
            for (int k = 0; k < d; ++k) s += Ainv[i * d + k] * D[(d + r) * N + k];
            Y[i * m + r] = s;
        }
    for (int r = 0; r < m; ++r)
        for (int c = 0; c <= r; ++c) {
            double s = -D[(d + r) * N + d + c];
            for (int k = 0; k < d; ++k) s += D[(d + r) * N + k] * Y[k * m + c];
            Q[r * m + c] = s;
            Q[c * m + r] = s;
        }
    spd_inverse(Q, m, Qi);
    /* YQ = Y Q^-1 (d x m) */
    double YQ[6 * DIRECT_MAX_NODE];
    for (int i = 0; i < d; ++i)
        for (int c = 0; c < m; ++c) {
            double s = 0.0;
            for (int k = 0; k < m; ++k) s += Y[i * m + k] * Qi[k * m + c];
            YQ[i * m + c] = s;
        }
    for (int i = 0; i < d; ++i)
        for (int j = 0; j <= i; ++j) {
            double s = Ainv[i * d + j];
            for (int k = 0; k < m; ++k) s -= YQ[i * m + k] * Y[j * m + k];
            D[i * N + j] = s;
            D[j * N + i] = s;
        }
    for (int i = 0; i < d; ++i)
        for (int c = 0; c < m; ++c) {
            D[i * N + d + c] = YQ[i * m + c];
            D[(d + c) * N + i] = YQ[i * m + c];
        }
    for (int r = 0; r < m; ++r)
        for (int c = 0; c < m; ++c) D[(d + r) * N + d + c] = -Qi[r * m + c];
}

/* Inverse of a symmetric 3x3 (world inverse inertia -> world inertia) in double. Returns 0 if singular. */
static int sym3_inverse(ctn_sym3 s, double out[9]) {
    double a = s.xx, b = s.xy, c = s.xz, d = s.yy, e = s.yz, f = s.zz;
    double A = d * f - e * e, B = c * e - b * f, C = b * e - c * d;
    double det = a * A + b * B + c * C;
    double scale = fabs(a) + fabs(d) + fabs(f);
    if (!(fabs(det) > 1e-18 * scale * scale * scale) || !isfinite(det)) return 0;
    double id = 1.0 / det;
    out[0] = A * id, out[1] = B * id, out[2] = C * id;
    out[3] = B * id, out[4] = (a * f - c * c) * id, out[5] = (b * c - a * e) * id;
    out[6] = C * id, out[7] = (b * c - a * e) * id, out[8] = (a * d - b * b) * id;
    return 1;
}

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
static int body_dof(const ctn_world *w, int body) {
    const ctn_props *p = &w->props[body];
    if (p->flags & CTN_BODY_FLAG_PARTICLE) return 3;
    int zero = (p->inv_inertia_body.x == 0.0f) + (p->inv_inertia_body.y == 0.0f) + (p->inv_inertia_body.z == 0.0f);
    return zero == 3 ? 3 : (zero == 0 ? 6 : 0);
}

static int rows_of(const ctn_joint_def *d) {
    switch (d->type) {
    case CTN_JT_DISTANCE: return 1;
    case CTN_JT_BALL: return 3;
    case CTN_JT_HINGE: return 5;
    case CTN_JT_FIXED: return 6;
    default: return 0;
    }
}

/* Builds the spanning forest, the elimination order and the storage for the current topology. */
static int direct_build(ctn_world *w, direct_state *s) {
    const ctn_topology *t = &w->topo;
    int m = t->joint_count, nb = t->body_count;
    int ok = 0, unsupported = 0, overflow_world = 0, loops = 0;
    state_free_arrays(s);
    int *uf = malloc(((size_t)nb + 1) * sizeof *uf);
    unsigned char *bdof = malloc((size_t)nb + 1);
    int *wrows = calloc((size_t)nb + 1, sizeof *wrows);
    int *queue = malloc(((size_t)nb + 1) * sizeof *queue);
    int *pjoint = malloc(((size_t)nb + 1) * sizeof *pjoint);
    int *body_node = malloc(((size_t)nb + 1) * sizeof *body_node);
    unsigned char *has_node = calloc((size_t)nb + 1, 1);
    s->slot_kind = calloc((size_t)m + 1, 1);
    s->slot_node = malloc(((size_t)m + 1) * sizeof *s->slot_node);
    s->slot_row = malloc(((size_t)m + 1) * sizeof *s->slot_row);
    s->extra = malloc(((size_t)m + 1) * sizeof *s->extra);
    s->extra_now = malloc(((size_t)m + 1) * sizeof *s->extra_now);
    s->cut = calloc((size_t)m + 1, 1);
    if (!uf || !bdof || !wrows || !queue || !pjoint || !body_node || !has_node || !s->slot_kind || !s->slot_node ||
        !s->slot_row || !s->extra || !s->extra_now || !s->cut)
        goto done;

    for (int i = 0; i < nb; ++i) {
        uf[i] = i;
        bdof[i] = body_dynamic(w, i) ? (unsigned char)body_dof(w, i) : 0;
        pjoint[i] = -1;
        body_node[i] = -1;
    }
    /* classify joints in creation order, so the joint that closes a loop is the last one added */
    s->extra_count = 0;
    for (int id = 0; id < w->joint_count; ++id) {
        int slot = w->joint_slot[id];
        if (slot < 0 || slot >= m || t->order[slot] != id) continue;
        const ctn_joint_def *d = &t->defs[slot];
        int a = d->a, b = d->b;
        int da = body_dynamic(w, a), db = body_dynamic(w, b);
        s->slot_node[slot] = -1;
        s->slot_row[slot] = 0;
        if (!da && !db) {
            s->slot_kind[slot] = SLOT_INACTIVE;
            continue;
        }
        int kind;
        if ((da && bdof[a] == 0) || (db && bdof[b] == 0) || (da && db && a == b) || rows_of(d) == 0) {
            kind = SLOT_EXTRA;
            unsupported++;
        } else if (da && db) {
            int ra = uf_find(uf, a), rb = uf_find(uf, b);
            if (ra != rb) {
                uf[ra] = rb;
                kind = SLOT_TREE;
                has_node[a] = has_node[b] = 1;
            } else {
                kind = SLOT_EXTRA;
                loops++;
            }
        } else {
            int c = da ? a : b;
            if (wrows[c] + rows_of(d) <= DIRECT_MAX_WORLD_ROWS) {
                s->slot_row[slot] = wrows[c];
                wrows[c] += rows_of(d);
                kind = SLOT_WORLD;
                has_node[c] = 1;
            } else {
                kind = SLOT_EXTRA;
                overflow_world++;
            }
        }
        s->slot_kind[slot] = (unsigned char)kind;
        if (kind == SLOT_EXTRA) s->extra[s->extra_count++] = slot;
    }
    for (int slot = 0; slot < m; ++slot) /* joints not reached above (should not happen) */
        if (t->order[slot] < 0 || t->order[slot] >= w->joint_count || w->joint_slot[t->order[slot]] != slot) {
            s->slot_kind[slot] = SLOT_INACTIVE;
            s->slot_node[slot] = -1;
        }

    /* breadth-first search over tree joints from an arbitrary root of every component */
    unsigned char *seen = has_node; /* reuse: 1 = has a node, not yet visited; 2 = visited */
    int nq = 0, node_count = 0;
    for (int root = 0; root < nb; ++root) {
        if (seen[root] != 1) continue;
        int head = nq;
        queue[nq++] = root;
        seen[root] = 2;
        while (head < nq) {
            int u = queue[head++];
            for (int e = t->adj_offsets[u]; e < t->adj_offsets[u + 1]; ++e) {
                int slot = t->adj[e] >> 1, side = t->adj[e] & 1;
                if (s->slot_kind[slot] != SLOT_TREE) continue;
                int v = side ? t->defs[slot].a : t->defs[slot].b;
                if (seen[v] == 2) continue;
                seen[v] = 2;
                pjoint[v] = slot;
                queue[nq++] = v;
            }
        }
    }
    for (int i = 0; i < nq; ++i) node_count += 1 + (pjoint[queue[i]] >= 0);
    s->node_count = node_count;
    size_t nn = (size_t)node_count + 1;
    s->kind = malloc(nn);
    s->dof = malloc(nn);
    s->side = malloc(nn);
    s->size = malloc(nn);
    s->id = malloc(nn * sizeof *s->id);
    s->parent = malloc(nn * sizeof *s->parent);
    s->mat_off = malloc((nn + 1) * sizeof *s->mat_off);
    s->vec_off = malloc((nn + 1) * sizeof *s->vec_off);
    s->world_off = calloc(nn + 1, sizeof *s->world_off);
    if (!s->kind || !s->dof || !s->side || !s->size || !s->id || !s->parent || !s->mat_off || !s->vec_off || !s->world_off)
        goto done;
    /* elimination order: reverse BFS; each body is followed by the joint to its parent */
    int k = 0;
    for (int i = nq - 1; i >= 0; --i) {
        int c = queue[i];
        body_node[c] = k;
        s->kind[k] = NODE_BODY;
        s->dof[k] = bdof[c];
        s->size[k] = (unsigned char)(bdof[c] + wrows[c]);
        s->id[k] = c;
        s->parent[k] = -1;
        s->side[k] = 0;
        k++;
        int slot = pjoint[c];
        if (slot >= 0) {
            s->side[k - 1] = (unsigned char)(t->defs[slot].a == c ? 0 : 1);
            s->parent[k - 1] = k;
            s->kind[k] = NODE_JOINT;
            s->dof[k] = 0;
            s->size[k] = (unsigned char)rows_of(&t->defs[slot]);
            s->id[k] = slot;
            s->side[k] = (unsigned char)(1 - s->side[k - 1]); /* side of the parent body */
            s->slot_node[slot] = k;
            k++;
        }
    }
    for (int i = 0; i < node_count; ++i) {
        if (s->kind[i] != NODE_JOINT) continue;
        const ctn_joint_def *d = &t->defs[s->id[i]];
        int p = s->side[i] ? d->b : d->a;
        s->parent[i] = body_node[p];
    }
    /* world joints merged into their body's node */
    for (int slot = 0; slot < m; ++slot) {
        if (s->slot_kind[slot] != SLOT_WORLD) continue;
        const ctn_joint_def *d = &t->defs[slot];
        int c = body_dynamic(w, d->a) ? d->a : d->b;
        s->slot_node[slot] = body_node[c];
        s->world_off[body_node[c] + 1]++;
    }
    for (int i = 0; i < node_count; ++i) s->world_off[i + 1] += s->world_off[i];
    s->world = malloc(((size_t)s->world_off[node_count] + 1) * sizeof *s->world);
    if (!s->world) goto done;
    {
        int *fill = malloc(((size_t)node_count + 1) * sizeof *fill);
        if (!fill) goto done;
        memcpy(fill, s->world_off, ((size_t)node_count + 1) * sizeof *fill);
        for (int slot = 0; slot < m; ++slot)
            if (s->slot_kind[slot] == SLOT_WORLD) s->world[fill[s->slot_node[slot]]++] = slot;
        free(fill);
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
    if ((unsupported || overflow_world) && !getenv("CATENA_QUIET"))
        fprintf(stderr,
                "catena: direct solver: %d joint(s) not supported by the exact solve (same body on both sides, or a "
                "rigid body with partly zero inverse inertia) and %d beyond %d world-joint rows per body are solved "
                "by Gauss-Seidel instead\n",
                unsupported, overflow_world, DIRECT_MAX_WORLD_ROWS);
    (void)loops;
done:
    free(uf);
    free(bdof);
    free(wrows);
    free(queue);
    free(pjoint);
    free(body_node);
    free(has_node);
    if (!ok) state_free_arrays(s);
    return ok;
}

/* ---- numeric factor and solve (per substep) ------------------------------------------------------ */

static int block_bounded(const ctn_block *b) {
    int n = ctn_block_rows(b);
    for (int k = 0; k < n; ++k)
        if (b->lo[k] > -0.5f * CTN_INF || b->hi[k] < 0.5f * CTN_INF) return 1;
    return 0;
}

/* Node pivots H_ii, then elimination of every node into its parent (children first). */
static void direct_factor(ctn_world *w, direct_state *s, const ctn_block *blocks) {
    const ctn_topology *t = &w->topo;
    /* H_ii */
    for (int i = 0; i < s->node_count; ++i) {
        int N = s->size[i], d = s->dof[i];
        double *D = s->mat + s->mat_off[i];
        memset(D, 0, (size_t)N * N * sizeof *D);
        if (s->kind[i] == NODE_JOINT) {
            const ctn_block *blk = &blocks[s->id[i]];
            for (int r = 0; r < N; ++r) D[r * N + r] = s->cut[s->id[i]] ? -1.0 : -(double)blk->soft[r];
            continue;
        }
        int body = s->id[i];
        double mass = w->vel[body].inv_mass > 0.0f ? 1.0 / (double)w->vel[body].inv_mass : 1e30;
        for (int r = 0; r < 3; ++r) D[r * N + r] = mass;
        if (d == 6) {
            double I[9];
            if (!sym3_inverse(w->inertia[body].inv_inertia, I)) {
                /* degenerate inertia: a huge rotational mass keeps the factor finite */
                for (int r = 0; r < 9; ++r) I[r] = (r % 4 == 0) ? 1e30 : 0.0;
            }
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c) D[(3 + r) * N + 3 + c] = I[r * 3 + c];
        }
        for (int e = s->world_off[i]; e < s->world_off[i + 1]; ++e) {
            int slot = s->world[e], row0 = d + s->slot_row[slot];
            const ctn_block *blk = &blocks[slot];
            int n = rows_of(&t->defs[slot]);
            if (s->cut[slot]) {
                for (int r = 0; r < n; ++r) D[(row0 + r) * N + row0 + r] = -1.0;
                continue;
            }
            int side = t->defs[slot].a == body ? 0 : 1;
            double J[CTN_MAX_ROWS][6];
            jacobian_side(blk, side, J);
            for (int r = 0; r < n; ++r) {
                for (int c = 0; c < d; ++c) {
                    D[(row0 + r) * N + c] = J[r][c];
                    D[c * N + row0 + r] = J[r][c];
                }
                D[(row0 + r) * N + row0 + r] = -(double)blk->soft[r];
            }
        }
    }
    /* eliminate */
    for (int i = 0; i < s->node_count; ++i) {
        int N = s->size[i], d = s->dof[i], p = s->parent[i];
        double *Di = s->mat + s->mat_off[i];
        node_inverse(Di, N, d);
        if (p < 0) continue;
        double *Dp = s->mat + s->mat_off[p];
        int Np = s->size[p];
        double J[CTN_MAX_ROWS][6], T[CTN_MAX_ROWS][6];
        if (s->kind[i] == NODE_BODY) {
            /* D_s -= J_sc [D_c^-1]_bb J_sc^T */
            int slot = s->id[p];
            if (s->cut[slot]) continue;
            jacobian_side(&blocks[slot], s->side[i], J);
            for (int r = 0; r < Np; ++r)
                for (int c = 0; c < d; ++c) {
                    double acc = 0.0;
                    for (int k = 0; k < d; ++k) acc += J[r][k] * Di[k * N + c];
                    T[r][c] = acc;
                }
            for (int r = 0; r < Np; ++r)
                for (int c = 0; c <= r; ++c) {
                    double acc = 0.0;
                    for (int k = 0; k < d; ++k) acc += T[r][k] * J[c][k];
                    Dp[r * Np + c] -= acc;
                    if (c != r) Dp[c * Np + r] -= acc;
                }
        } else {
            /* [D_p]_bb -= J_sp^T D_s^-1 J_sp */
            int slot = s->id[i], dp = s->dof[p];
            if (s->cut[slot]) continue;
            jacobian_side(&blocks[slot], s->side[i], J);
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

/* r = target - J v - S lambda of slot s in double. */
static void row_residual(const ctn_world *w, const ctn_block *blk, const ctn_joint_def *d, const float *lam, double *r) {
    int n = ctn_block_rows(blk);
    ctn_vel va = ctn_load_vel(w->vel, d->a), vb = ctn_load_vel(w->vel, d->b);
    double Va[6] = {va.v.x, va.v.y, va.v.z, va.w.x, va.w.y, va.w.z};
    double Vb[6] = {vb.v.x, vb.v.y, vb.v.z, vb.w.x, vb.w.y, vb.w.z};
    for (int k = 0; k < n; ++k) {
        double ja[6], jb[6], jv = 0.0;
        jacobian_row(blk, k, 0, ja);
        jacobian_row(blk, k, 1, jb);
        for (int c = 0; c < 6; ++c) jv += ja[c] * Va[c] + jb[c] * Vb[c];
        r[k] = (double)blk->bias[k] - jv - (double)blk->soft[k] * lam[k];
    }
}

/* Right-hand side of (2) from the current velocities and impulses: 0 for body rows, r for joint rows. */
static void direct_rhs(const ctn_world *w, direct_state *s, const ctn_block *blocks) {
    const ctn_topology *t = &w->topo;
    for (int i = 0; i < s->node_count; ++i) {
        double *b = s->b + s->vec_off[i];
        int N = s->size[i];
        if (s->kind[i] == NODE_JOINT) {
            int slot = s->id[i];
            if (s->cut[slot]) memset(b, 0, (size_t)N * sizeof *b);
            else row_residual(w, &blocks[slot], &t->defs[slot], &t->lambda[6 * slot], b);
            continue;
        }
        memset(b, 0, (size_t)N * sizeof *b);
        for (int e = s->world_off[i]; e < s->world_off[i + 1]; ++e) {
            int slot = s->world[e];
            if (!s->cut[slot]) row_residual(w, &blocks[slot], &t->defs[slot], &t->lambda[6 * slot], b + s->dof[i] + s->slot_row[slot]);
        }
    }
}

/* Forward and backward substitution through the factor: x = H^-1 b (b is consumed). */
static void direct_substitute(direct_state *s, const ctn_block *blocks) {
    double J[CTN_MAX_ROWS][6];
    for (int i = 0; i < s->node_count; ++i) {
        int N = s->size[i], p = s->parent[i];
        const double *Di = s->mat + s->mat_off[i];
        double *b = s->b + s->vec_off[i], *u = s->x + s->vec_off[i];
        for (int r = 0; r < N; ++r) {
            double acc = 0.0;
            for (int c = 0; c < N; ++c) acc += Di[r * N + c] * b[c];
            u[r] = acc;
        }
        if (p < 0) continue;
        double *bp = s->b + s->vec_off[p];
        if (s->kind[i] == NODE_BODY) {
            int slot = s->id[p], n = s->size[p], d = s->dof[i];
            if (s->cut[slot]) continue;
            jacobian_side(&blocks[slot], s->side[i], J);
            for (int r = 0; r < n; ++r)
                for (int k = 0; k < d; ++k) bp[r] -= J[r][k] * u[k];
        } else {
            int slot = s->id[i], dp = s->dof[p];
            if (s->cut[slot]) continue;
            jacobian_side(&blocks[slot], s->side[i], J);
            for (int r = 0; r < N; ++r)
                for (int k = 0; k < dp; ++k) bp[k] -= J[r][k] * u[r];
        }
    }
    for (int i = s->node_count - 1; i >= 0; --i) {
        int N = s->size[i], p = s->parent[i];
        if (p < 0) continue;
        const double *Di = s->mat + s->mat_off[i];
        double *x = s->x + s->vec_off[i];
        const double *xp = s->x + s->vec_off[p];
        double g[DIRECT_MAX_NODE];
        if (s->kind[i] == NODE_BODY) {
            /* x_c -= D_c^-1 [J_sc^T x_s; 0] */
            int slot = s->id[p], n = s->size[p], d = s->dof[i];
            if (s->cut[slot]) continue;
            jacobian_side(&blocks[slot], s->side[i], J);
            for (int k = 0; k < d; ++k) {
                double acc = 0.0;
                for (int r = 0; r < n; ++r) acc += J[r][k] * xp[r];
                g[k] = acc;
            }
            for (int r = 0; r < N; ++r) {
                double acc = 0.0;
                for (int k = 0; k < d; ++k) acc += Di[r * N + k] * g[k];
                x[r] -= acc;
            }
        } else {
            /* x_s -= D_s^-1 J_sp x_p */
            int slot = s->id[i], dp = s->dof[p];
            if (s->cut[slot]) continue;
            jacobian_side(&blocks[slot], s->side[i], J);
            for (int r = 0; r < N; ++r) {
                double acc = 0.0;
                for (int k = 0; k < dp; ++k) acc += J[r][k] * xp[k];
                g[r] = acc;
            }
            for (int r = 0; r < N; ++r) {
                double acc = 0.0;
                for (int k = 0; k < N; ++k) acc += Di[r * N + k] * g[k];
                x[r] -= acc;
            }
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
        int body = s->id[i], d = s->dof[i];
        ctn_vel *v = &w->vel[body];
        v->v.x = (float)((double)v->v.x + x[0]);
        v->v.y = (float)((double)v->v.y + x[1]);
        v->v.z = (float)((double)v->v.z + x[2]);
        if (d == 6) {
            v->w.x = (float)((double)v->w.x + x[3]);
            v->w.y = (float)((double)v->w.y + x[4]);
            v->w.z = (float)((double)v->w.z + x[5]);
        }
        for (int e = s->world_off[i]; e < s->world_off[i + 1]; ++e) {
            int slot = s->world[e], row0 = d + s->slot_row[slot];
            if (s->cut[slot]) continue;
            for (int r = 0; r < rows_of(&t->defs[slot]); ++r)
                t->lambda[6 * slot + r] = (float)((double)t->lambda[6 * slot + r] - x[row0 + r]);
        }
    }
}

static void tree_solve(ctn_world *w, direct_state *s, const ctn_block *blocks) {
    direct_rhs(w, s, blocks);
    direct_substitute(s, blocks);
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

double ctn__solve_direct(ctn_world *w, const ctn_block *blocks) {
    ctn_topology *t = &w->topo;
    direct_state *s = w->direct_data;
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s) return gs_fallback(w, blocks);
        w->direct_data = s;
    }
    if (!s->valid || s->version != w->topology_version || s->joints != t->joint_count || s->bodies != t->body_count) {
        if (!direct_build(w, s)) {
            if (!s->noted && !getenv("CATENA_QUIET"))
                fprintf(stderr, "catena: direct solver: out of memory for %d joints, using Gauss-Seidel\n", t->joint_count);
            s->noted = 1;
            return gs_fallback(w, blocks);
        }
    }
    /* joints with finite bounds leave the tree for this substep and join the GS set */
    int n_extra = 0;
    for (int k = 0; k < s->extra_count; ++k) s->extra_now[n_extra++] = s->extra[k];
    for (int slot = 0; slot < t->joint_count; ++slot) {
        int kind = s->slot_kind[slot];
        s->cut[slot] = (unsigned char)((kind == SLOT_TREE || kind == SLOT_WORLD) && block_bounded(&blocks[slot]));
        if (s->cut[slot]) s->extra_now[n_extra++] = slot;
    }
    direct_factor(w, s, blocks);
    tree_solve(w, s, blocks);
    if (n_extra > 0) {
        for (int it = 0; it < w->desc.iterations; ++it) {
            for (int k = 0; k < n_extra; ++k) ctn_gs_slot(s->extra_now[k], t->defs, blocks, t->lambda, w->vel, w->inertia);
            tree_solve(w, s, blocks);
        }
    }
    double r2 = 0.0;
    for (int slot = 0; slot < t->joint_count; ++slot) {
        if (s->slot_kind[slot] == SLOT_INACTIVE) continue;
        float r[CTN_MAX_ROWS];
        const ctn_block *b = &blocks[slot];
        ctn_block_residual(b, ctn_load_vel(w->vel, t->defs[slot].a), ctn_load_vel(w->vel, t->defs[slot].b), &t->lambda[6 * slot], r);
        for (int k = 0; k < ctn_block_rows(b); ++k) r2 += (double)r[k] * r[k];
    }
    return r2;
}
