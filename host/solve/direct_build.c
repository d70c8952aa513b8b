/* The symbolic half of the exact forest solver (host/solve/solver_direct.c, whose header comment gives the
 * system and the ordering): per topology version, the spanning forest of the dynamic bodies, which joints
 * become joint nodes, which are merged into body nodes (supernodes) and which go to the Gauss-Seidel set,
 * the elimination order (children before parents) and the factor storage. The OpenCL forest path
 * (host/opencl/opencl_forest.c) uploads the same structure through ctn__direct_symbolic. */
#include "core/world.h"
#include "solve/direct_internal.h"

#include <stdlib.h>
#include <string.h>

void ctn__direct_state_free(direct_state *s) {
    void *p[] = {s->kind, s->dof, s->size, s->side, s->id, s->parent, s->pslot, s->prow, s->mat_off, s->vec_off,
                 s->att_off, s->att, s->slot_kind, s->slot_side, s->slot_node, s->slot_row, s->extra, s->cut,
                 s->extra_now, s->keep, s->ml, s->ls_lambda, s->ls_r0, s->ls_treated, s->mat, s->split, s->pass, s->b, s->x, s->vref, s->lref};
    for (size_t k = 0; k < sizeof p / sizeof p[0]; ++k) ctn__free(p[k]);
    ctn__chain_free(s->chain);
    int noted = s->noted, segments = s->chain_segments, blocks_only = s->blocks_only, descent_off = s->descent_off, descent_copy = s->descent_copy, said[3] = {s->said[0], s->said[1], s->said[2]};
    long active[3] = {s->active_substeps, s->active_solves, s->active_fallbacks};
    memset(s, 0, sizeof *s);
    s->noted = noted, s->chain_segments = segments, s->blocks_only = blocks_only, s->descent_off = descent_off, s->descent_copy = descent_copy;
    s->active_substeps = active[0], s->active_solves = active[1], s->active_fallbacks = active[2];
    s->said[0] = said[0], s->said[1] = said[1], s->said[2] = said[2];
}

int ctn__direct_body_dynamic(const ctn_world *w, int body) {
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

/* Rows of a joint in the exact solve: all the rows ctn_joint_rows builds (ctn_joint_def_rows, with the
 * limit, motor and cone rows); 0 for a type it does not eliminate (contacts: always bounded, Gauss-Seidel's).
 * A row with finite bounds in a substep (limit, motor, cone) is cut out of the elimination for that substep
 * (ctn_dd_cut_mask) and the joint's other rows stay in it.
 * Every count is at most CTN_MAX_ROWS, and the solver's loops take it as a run-time size. */
int ctn__direct_rows(const ctn_joint_def *d) { return d->type == CTN_JT_CONTACT ? 0 : ctn_joint_def_rows(*d); }

/* Per-body scratch of one build. */
typedef struct build_scratch {
    int *uf;                 /* union-find parents */
    unsigned char *bdof;     /* degrees of freedom in the solve (0: not a node) */
    int *arows;              /* rows attached to each body */
    int *queue, nq;          /* breadth-first order of the forest's bodies */
    int *pjoint, *pbody;     /* tree joint to the parent body, the parent body */
    int *body_node;          /* node of each body */
    unsigned char *state;    /* 1: has a node, 2: visited */
    unsigned char *grounded; /* the subtree below the body holds a joint to the world */
    int unsupported, overflow, first_body; /* first_body: a body the exact solve does not support (-1: none) */
} build_scratch;

static void scratch_free(build_scratch *b) {
    ctn__free(b->uf), ctn__free(b->bdof), ctn__free(b->arows), ctn__free(b->queue), ctn__free(b->pjoint), ctn__free(b->pbody);
    ctn__free(b->body_node), ctn__free(b->state), ctn__free(b->grounded);
}

static int scratch_alloc(build_scratch *b, direct_state *s, int nb, int m) {
    size_t nb1 = (size_t)nb + 1, m1 = (size_t)m + 1;
    memset(b, 0, sizeof *b);
    b->first_body = -1;
    b->uf = ctn__malloc(nb1 * sizeof *b->uf);
    b->bdof = ctn__malloc(nb1);
    b->arows = ctn__calloc(nb1, sizeof *b->arows);
    b->queue = ctn__malloc(nb1 * sizeof *b->queue);
    b->pjoint = ctn__malloc(nb1 * sizeof *b->pjoint);
    b->pbody = ctn__malloc(nb1 * sizeof *b->pbody);
    b->body_node = ctn__malloc(nb1 * sizeof *b->body_node);
    b->state = ctn__calloc(nb1, 1);
    b->grounded = ctn__calloc(nb1, 1);
    s->slot_kind = ctn__calloc(m1, 1);
    s->slot_side = ctn__calloc(m1, 1);
    s->slot_node = ctn__malloc(m1 * sizeof *s->slot_node);
    s->slot_row = ctn__calloc(m1, sizeof *s->slot_row);
    s->extra = ctn__malloc(m1 * sizeof *s->extra);
    s->extra_now = ctn__malloc(m1 * sizeof *s->extra_now);
    s->cut = ctn__calloc(m1, 1);
    return b->uf && b->bdof && b->arows && b->queue && b->pjoint && b->pbody && b->body_node && b->state && b->grounded &&
           s->slot_kind && s->slot_side && s->slot_node && s->slot_row && s->extra && s->extra_now && s->cut;
}

static int uf_find(int *p, int i) {
    while (p[i] != i) {
        p[i] = p[p[i]];
        i = p[i];
    }
    return i;
}

/* Step 1: every joint in creation order (so the joint that closes a loop is the last one added) becomes
 * a provisional tree joint (SLOT_NODE), a row set attached to its one dynamic body, a loop closer or an
 * unsupported joint (SLOT_EXTRA), or inactive. */
static void classify_joints(const ctn_world *w, direct_state *s, build_scratch *b) {
    const ctn_topology *t = &w->topo;
    int m = t->joint_count;
    for (int i = 0; i < t->body_count; ++i) {
        b->uf[i] = i;
        b->bdof[i] = ctn__direct_body_dynamic(w, i) ? (unsigned char)ctn__direct_body_dof(w, i) : 0;
        b->pjoint[i] = b->pbody[i] = b->body_node[i] = -1;
    }
    for (int slot = 0; slot < m; ++slot) s->slot_node[slot] = -1;
    s->extra_count = 0;
    for (int id = 0; id < w->joint_count; ++id) {
        int slot = ctn__joint_layout_slot(w, id);
        if (slot < 0 || slot >= m || t->order[slot] != id) continue;
        const ctn_joint_def d_def = ctn_joint_at(ctn__topo_joints(t), slot), *d = &d_def;
        int a = d->a, c = d->b, da = ctn__direct_body_dynamic(w, a), dc = ctn__direct_body_dynamic(w, c), rows = ctn__direct_rows(d);
        int kind;
        if (!da && !dc) {
            kind = SLOT_INACTIVE;
        } else if ((da && b->bdof[a] == 0) || (dc && b->bdof[c] == 0) || (da && dc && a == c) || rows == 0) {
            kind = SLOT_EXTRA;
            /* the note names bodies with a partly zero inverse inertia; contacts and springs (no rows here) and
             * joints of a body to itself are outside by design, not what the note is about */
            int partial = (da && b->bdof[a] == 0) || (dc && b->bdof[c] == 0);
            b->unsupported += partial;
            if (partial && b->first_body < 0) b->first_body = (da && b->bdof[a] == 0) ? a : c;
        } else if (da && dc) {
            int ra = uf_find(b->uf, a), rc = uf_find(b->uf, c);
            kind = ra != rc ? SLOT_NODE : SLOT_EXTRA; /* provisional: may become attached below */
            if (ra != rc) {
                b->uf[ra] = rc;
                b->state[a] = b->state[c] = 1;
            }
        } else {
            int holder = da ? a : c;
            if (b->arows[holder] + rows <= DIRECT_MAX_ATTACHED_ROWS) {
                b->arows[holder] += rows;
                kind = SLOT_ATTACHED;
                s->slot_side[slot] = (unsigned char)(da ? 0 : 1);
                b->state[holder] = 1;
            } else {
                kind = SLOT_EXTRA;
                b->overflow++;
            }
        }
        s->slot_kind[slot] = (unsigned char)kind;
        if (kind == SLOT_EXTRA) s->extra[s->extra_count++] = slot;
    }
}

/* Step 2: breadth-first search over the tree joints, roots first among bodies with joints to the world. */
static void search_forest(const ctn_world *w, const direct_state *s, build_scratch *b) {
    const ctn_topology *t = &w->topo;
    b->nq = 0;
    for (int pass = 0; pass < 2; ++pass)
        for (int root = 0; root < t->body_count; ++root) {
            if (b->state[root] != 1 || (pass == 0 && b->arows[root] == 0)) continue;
            int head = b->nq;
            b->queue[b->nq++] = root;
            b->state[root] = 2;
            while (head < b->nq) {
                int u = b->queue[head++];
                for (int e = t->adj_offsets[u]; e < t->adj_offsets[u + 1]; ++e) {
                    int slot = t->adj[e] >> 1, side = t->adj[e] & 1;
                    if (s->slot_kind[slot] != SLOT_NODE) continue;
                    int v = side ? t->defs[slot].a : t->defs[slot].b;
                    if (b->state[v] == 2) continue;
                    b->state[v] = 2;
                    b->pjoint[v] = slot;
                    b->pbody[v] = u;
                    b->queue[b->nq++] = v;
                }
            }
        }
}

/* Step 3: a tree joint above a grounded subtree (children come after parents in the queue) is attached
 * to its parent body, its own pivot being singular; when the parent is full it goes to GS and the
 * subtree becomes a tree of its own. */
static void attach_grounded(const ctn_world *w, direct_state *s, build_scratch *b) {
    const ctn_topology *t = &w->topo;
    for (int i = b->nq - 1; i >= 0; --i) {
        int c = b->queue[i];
        if (b->arows[c] > 0) b->grounded[c] = 1;
        if (b->grounded[c] && b->pbody[c] >= 0) b->grounded[b->pbody[c]] = 1;
    }
    for (int i = 0; i < b->nq; ++i) {
        int c = b->queue[i], slot = b->pjoint[c];
        if (slot < 0 || !b->grounded[c]) continue;
        int p = b->pbody[c], rows = ctn__direct_rows_at(t, slot);
        if (b->arows[p] + rows <= DIRECT_MAX_ATTACHED_ROWS) {
            b->arows[p] += rows;
            s->slot_kind[slot] = SLOT_ATTACHED;
            s->slot_side[slot] = (unsigned char)(t->defs[slot].a == p ? 0 : 1);
        } else {
            s->slot_kind[slot] = SLOT_EXTRA;
            s->extra[s->extra_count++] = slot;
            b->pjoint[c] = b->pbody[c] = -1;
            b->overflow++;
        }
    }
}

/* Step 4: the node arrays in elimination order (reverse BFS; a body is followed by its joint node to
 * the parent, if any). Returns 0 when out of memory. */
static int place_nodes(const ctn_world *w, direct_state *s, build_scratch *b) {
    const ctn_topology *t = &w->topo;
    int node_count = 0;
    for (int i = 0; i < b->nq; ++i) node_count += 1 + (b->pjoint[b->queue[i]] >= 0 && s->slot_kind[b->pjoint[b->queue[i]]] == SLOT_NODE);
    s->node_count = node_count;
    size_t nn = (size_t)node_count + 1;
    s->kind = ctn__malloc(nn);
    s->dof = ctn__malloc(nn);
    s->size = ctn__malloc(nn);
    s->side = ctn__malloc(nn);
    s->id = ctn__malloc(nn * sizeof *s->id);
    s->parent = ctn__malloc(nn * sizeof *s->parent);
    s->pslot = ctn__malloc(nn * sizeof *s->pslot);
    s->prow = ctn__malloc(nn);
    s->mat_off = ctn__malloc((nn + 1) * sizeof *s->mat_off);
    s->vec_off = ctn__malloc((nn + 1) * sizeof *s->vec_off);
    s->att_off = ctn__calloc(nn + 1, sizeof *s->att_off);
    if (!s->kind || !s->dof || !s->size || !s->side || !s->id || !s->parent || !s->pslot || !s->prow || !s->mat_off ||
        !s->vec_off || !s->att_off)
        return 0;
    int k = 0;
    for (int i = b->nq - 1; i >= 0; --i) {
        int c = b->queue[i], slot = b->pjoint[c];
        b->body_node[c] = k;
        s->kind[k] = NODE_BODY;
        s->dof[k] = b->bdof[c];
        s->size[k] = (unsigned char)(b->bdof[c] + b->arows[c]);
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
            s->size[k] = (unsigned char)ctn__direct_rows_at(t, slot);
            s->id[k] = slot;
            s->parent[k] = -1;
            s->pslot[k] = slot;
            s->prow[k] = 0;
            s->side[k] = (unsigned char)(1 - s->side[k - 1]); /* side of the parent body */
            s->slot_node[slot] = k;
            k++;
        }
    }
    return 1;
}

/* Step 5: attached rows, a CSR per body node in slot order, each joint's first row inside its node.
 * Returns 0 when out of memory. */
static int attach_rows(const ctn_world *w, direct_state *s, const build_scratch *b) {
    const ctn_topology *t = &w->topo;
    int m = t->joint_count, node_count = s->node_count;
    for (int slot = 0; slot < m; ++slot) {
        if (s->slot_kind[slot] != SLOT_ATTACHED) continue;
        const ctn_joint_core *d = &t->defs[slot];
        int holder = s->slot_side[slot] ? d->b : d->a;
        s->slot_node[slot] = b->body_node[holder];
        s->att_off[b->body_node[holder] + 1]++;
    }
    for (int i = 0; i < node_count; ++i) s->att_off[i + 1] += s->att_off[i];
    s->att = ctn__malloc(((size_t)s->att_off[node_count] + 1) * sizeof *s->att);
    int *fill = ctn__malloc(((size_t)node_count + 1) * sizeof *fill);
    if (!s->att || !fill) {
        ctn__free(fill);
        return 0;
    }
    for (int i = 0; i < node_count; ++i) fill[i] = s->dof[i]; /* next free row of each node */
    for (int slot = 0; slot < m; ++slot) {
        if (s->slot_kind[slot] != SLOT_ATTACHED) continue;
        int node = s->slot_node[slot];
        s->slot_row[slot] = fill[node];
        fill[node] += ctn__direct_rows_at(t, slot);
    }
    memcpy(fill, s->att_off, ((size_t)node_count + 1) * sizeof *fill);
    for (int slot = 0; slot < m; ++slot)
        if (s->slot_kind[slot] == SLOT_ATTACHED) s->att[fill[s->slot_node[slot]]++] = slot;
    ctn__free(fill);
    return 1;
}

/* Step 6: parents (joint node -> its parent body; body -> its joint node, or the body holding its attached
 * joint) and the factor storage. Returns 0 when out of memory. */
static int link_nodes(const ctn_world *w, direct_state *s, const build_scratch *b) {
    const ctn_topology *t = &w->topo;
    int node_count = s->node_count;
    for (int i = 0; i < node_count; ++i) {
        int slot = s->pslot[i];
        if (slot < 0) continue;
        const ctn_joint_core *d = &t->defs[slot];
        if (s->kind[i] == NODE_JOINT) {
            s->parent[i] = b->body_node[s->side[i] ? d->b : d->a];
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
    s->mat = ctn__malloc((mo + 1) * sizeof *s->mat);
    s->split = ctn__calloc((size_t)s->node_count + 1, 1);
    s->pass = ctn__calloc((size_t)s->node_count + 1, 1);
    s->b = ctn__malloc((vo + 1) * sizeof *s->b);
    s->x = ctn__malloc((vo + 1) * sizeof *s->x);
    return s->mat && s->split && s->pass && s->b && s->x;
}

int ctn__direct_build(ctn_world *w, direct_state *s, int verbose) {
    const ctn_topology *t = &w->topo;
    build_scratch b;
    ctn__direct_state_free(s);
    /* the breadth-first search walks the body -> joint adjacency, built here on first need */
    int ok = scratch_alloc(&b, s, t->body_count, t->joint_count) && ctn__topology_adjacency(w) == CTN_OK;
    if (ok) {
        classify_joints(w, s, &b);
        search_forest(w, s, &b);
        attach_grounded(w, s, &b);
        ok = place_nodes(w, s, &b) && attach_rows(w, s, &b) && link_nodes(w, s, &b);
    }
    if (ok) {
        s->joints = t->joint_count;
        s->bodies = t->body_count;
        s->version = w->topology_version;
        s->valid = 1;
        /* Said once per change of what it says: with contacts the layout is rebuilt every step, and the same
         * line each step would bury everything else. */
        int said[3] = {b.unsupported, b.overflow, b.first_body};
        if ((b.unsupported || b.overflow) && verbose && memcmp(said, s->said, sizeof said) != 0) {
            const char *name = NULL;
            if (b.first_body >= 0 && w->body_names && b.first_body < w->body_names_capacity) name = w->body_names[b.first_body];
            if (b.unsupported)
                ctn__log(w, CTN_LOG_INFO,
                         "direct solver: %d joint(s) run by Gauss-Seidel instead of the exact solve: their bodies (body %d%s%s%s first) turn "
                         "about some axes but not others (an inverse inertia with some but not all principal moments zero), which the exact "
                         "solve does not take",
                         b.unsupported, b.first_body, name ? " '" : "", name ? name : "", name ? "'" : "");
            if (b.overflow)
                ctn__log(w, CTN_LOG_INFO,
                         "direct solver: %d joint(s) run by Gauss-Seidel instead of the exact solve: their body already has %d rows of "
                         "joints to the world or to other branches attached (the exact solve's limit per body)",
                         b.overflow, DIRECT_MAX_ATTACHED_ROWS);
        }
        memcpy(s->said, said, sizeof said);
    }
    scratch_free(&b);
    if (!ok) ctn__direct_state_free(s);
    return ok;
}

int ctn__direct_symbolic(ctn_world *w, direct_state *s) {
    if (!ctn__direct_build(w, s, 0)) return 0;
    ctn__free(s->mat), ctn__free(s->split), ctn__free(s->pass), ctn__free(s->b), ctn__free(s->x); /* the caller keeps its own factor storage */
    s->mat = s->b = s->x = NULL;
    s->split = s->pass = NULL;
    return 1;
}

void ctn__direct_symbolic_free(direct_state *s) { ctn__direct_state_free(s); }
