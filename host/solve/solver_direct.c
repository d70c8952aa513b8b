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
 * Loops (AgX-style direct + iterative split). Each substep: exact forest solve; then ctn__direct_outer(w) (desc.iterations, or auto's raise)
 * outer iterations of (a) one Gauss-Seidel sweep over the extra joints (ctn_gs_slot, with their own
 * block inverse) and the cut rows of forest joints (ctn_gs_slot_rows) in slot order and (b) an exact
 * re-solve of the forest rows for the change the sweep made to their residual (the factor is reused; the right-hand
 * side is -J (v - v0) - S (lambda - lambda0) since the last solve, keep_reference; r itself would re-solve the
 * floor's residual, which on over-constrained layouts pumps the redundant rows: kernels/ctn_direct_rhs.h). Slots are sorted by colour, so
 * the sweep is the coloured one the OpenCL backend runs (host/opencl/opencl_direct.c), update for update. This is block Gauss-Seidel with the whole forest as
 * one block, convergent for any SPD system; its rate depends on how strongly the loop-closing rows couple to
 * the forest. Dense meshes, where most joints are extra, behave like plain GS; a mesh pinned at many points
 * with rigid rows (eps = 0) is nearly redundant, and well-converged outer iterations then produce huge
 * impulses: give such meshes a small compliance (tests/test_direct.c uses 1e-8 on a pinned 10x10 grid).
 *
 * Unsupported cases and what happens instead (the rows are then solved by GS, never an error):
 *   - rows with finite impulse bounds (limits, motors, swing cones, ropes, contacts, friction): those rows
 *     leave the forest for that substep (s->cut holds each joint's bit mask, ctn_dd_cut_mask: a cut row gets
 *     a -1 pivot, zero Jacobian rows in every coupling and r = 0, which leaves an exact elimination of the
 *     remaining rows) and are solved by projected GS in the outer loop (ctn_gs_slot_rows: each bounded row
 *     with its joint's other rows held); the joint's equality rows stay exact. A joint whose rows are all
 *     bounded (a contact, a rope) leaves whole and takes the GS block step;
 *   - more than DIRECT_MAX_ATTACHED_ROWS rows attached to one body node (many world joints on one body, or
 *     a body with many grounded branches): the joints beyond the limit are extra;
 *   - a rigid body with some but not all principal inverse moments zero: its joints are extra;
 *   - out of memory for the factor storage: the step fails with CTN_ERR_OUT_OF_MEMORY before it changes
 *     anything (ctn__direct_prepare; catena.h, "Memory"), rather than running Gauss-Seidel while the step
 *     statistics say direct. The GS sweeps below remain for a caller that solves without preparing.
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
#include "solve/pipeline.h" /* ctn__rattle_max_joints */

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Dense math shared with the OpenCL forest kernels (kernels/ctn_direct.h); here its Cholesky inverse also
 * takes the Schur matrix of the loop closers (kernels/ctn_direct_schur.h), hence the larger bound. */
#define CTN_DD_MAX_DENSE DIRECT_MAX_SCHUR_ROWS
#include "ctn_direct.h"
#include "ctn_direct_schur.h"
#include "ctn_direct_active.h"
#include "ctn_assemble.h" /* CTN_JF_ASSEMBLE_TARGET: assembly rewrites those joints' compliance */
_Static_assert(DIRECT_MAX_SCHUR_ROWS == CTN_DD_MAX_SCHUR, "one bound on the loop closers' Schur rows");
_Static_assert(DIRECT_MAX_ATTACHED_ROWS == CTN_DD_MAX_ATTACHED, "the OpenCL forest path takes the same supernodes");
_Static_assert(DIRECT_MAX_SCHUR_ROWS >= CTN_DD_MAX_NODE, "the Schur inverse bound covers the node pivots");

void ctn__direct_free(ctn_world *w) {
    if (!w || !w->direct_data) return;
    ctn__direct_state_free(w->direct_data);
    ctn__free(w->direct_data);
    w->direct_data = NULL;
}

static double gs_fallback(ctn_world *w, const ctn_block *blocks) {
    const ctn_topology *t = &w->topo;
    double r2 = 0.0;
    for (int it = 0; it < w->desc.iterations; ++it) {
        r2 = 0.0;
        for (int s = 0; s < t->joint_count; ++s) r2 += ctn_gs_slot(s, ctn__topo_joints(t), blocks, t->lambda, t->stride, w->vel, w->inertia);
    }
    return r2;
}

/* The velocities and impulses the exact solve just left: the reference of the next re-solve, whose
 * right-hand side is their change ((R) of kernels/ctn_direct_rhs.h: -J (v - v0) - S (lambda - lambda0), not r,
 * which on over-constrained layouts would re-solve the floor's residual in the redundant directions). Out of
 * memory, the re-solves take r itself. */
static void keep_reference(ctn_world *w, direct_state *s) {
    const ctn_topology *t = &w->topo;
    if (!s->vref) s->vref = ctn__malloc(((size_t)t->body_count + 1) * sizeof *s->vref);
    if (!s->lref) s->lref = ctn__malloc(((size_t)t->stride * (size_t)t->joint_count + 1) * sizeof *s->lref);
    if (!s->vref || !s->lref) return;
    memcpy(s->vref, w->vel, (size_t)t->body_count * sizeof *s->vref);
    memcpy(s->lref, t->lambda, (size_t)t->stride * (size_t)t->joint_count * sizeof *s->lref);
    s->resolve = 1;
    if (s->chain) ctn__chain_set_reference(s->chain, s->vref, s->lref);
}

/* Loop closers solved exactly through their Schur complement (few rows only): with the forest factored, W of
 * (S1) in kernels/ctn_direct_schur.h is the exact Delassus matrix of the extra rows, one substitution per
 * row; each outer iteration applies dl_E = W^-1 r_E as an impulse (S2) and re-solves the forest for what it
 * changed, which satisfies all rows at once. The math is the header's, which the OpenCL forest path runs
 * too (host/opencl/opencl_schur.c), so both backends close a ring alike. */
static int schur_applicable(const direct_state *s, const ctn_world *w, const ctn_block *blocks, int *rows_out) {
    const ctn_topology *t = &w->topo;
    int rows = 0;
    for (int k = 0; k < s->extra_count; ++k) { /* cut rows of the forest: see the outer loop */
        const ctn_joint_def d_def = ctn_joint_at(ctn__topo_joints(t), s->extra[k]), *d = &d_def;
        if (ctn_dd_block_bounded(&blocks[s->extra[k]])) return 0; /* a loop closer's limit: projected GS */
        if (!ctn__direct_body_dynamic(w, d->a) || !ctn__direct_body_dynamic(w, d->b) || !ctn__direct_body_dof(w, d->a) || !ctn__direct_body_dof(w, d->b)) return 0;
        rows += ctn__direct_rows(d);
    }
    *rows_out = rows;
    return rows > 0 && rows <= DIRECT_MAX_SCHUR_ROWS;
}

int ctn__direct_schur_rows(const ctn_world *w, const direct_state *s, int *rows) {
    const ctn_topology *t = &w->topo;
    int ne = s->extra_count, R = 0;
    /* body nodes of the extra joints' bodies, found in one pass over the nodes */
    int cb[2 * DIRECT_MAX_SCHUR_ROWS], cn[2 * DIRECT_MAX_SCHUR_ROWS], nc = 0;
    for (int k = 0; k < ne; ++k) {
        const ctn_joint_def d_def = ctn_joint_at(ctn__topo_joints(t), s->extra[k]), *d = &d_def;
        R += ctn__direct_rows(d);
        if (R > DIRECT_MAX_SCHUR_ROWS) return -1;
        cb[nc] = d->a, cn[nc++] = -1;
        cb[nc] = d->b, cn[nc++] = -1;
    }
    for (int i = 0; i < s->node_count; ++i)
        if (s->kind[i] == NODE_BODY)
            for (int k = 0; k < nc; ++k)
                if (cb[k] == s->id[i]) cn[k] = i;
    R = 0;
    for (int k = 0; k < ne; ++k) {
        int slot = s->extra[k], na = cn[2 * k], nb = cn[2 * k + 1];
        for (int q = 0; q < ctn__direct_rows_at(t, slot); ++q, ++R) {
            int *r = rows + CTN_SR_INTS * R;
            r[CTN_SR_SLOT] = slot, r[CTN_SR_ROW] = q;
            r[CTN_SR_VA] = na >= 0 ? (int)s->vec_off[na] : -1, r[CTN_SR_DA] = na >= 0 ? s->dof[na] : 0;
            r[CTN_SR_VB] = nb >= 0 ? (int)s->vec_off[nb] : -1, r[CTN_SR_DB] = nb >= 0 ? s->dof[nb] : 0;
        }
    }
    return R;
}

/* W^-1 of the R loop-closing rows: their Delassus matrix with the forest's uncut rows satisfied (S1 of
 * kernels/ctn_direct_schur.h). 0 when the rows do not match schur_applicable's count (not reached). */
static int schur_factor(ctn_world *w, direct_state *s, const ctn_block *blocks, int R, int *rows, double *W) {
    if (ctn__direct_schur_rows(w, s, rows) != R) return 0;
    for (int k = 0; k < R; ++k) {
        const int *row = rows + CTN_SR_INTS * k;
        ctn_block blk = blocks[row[CTN_SR_SLOT]];
        memset(s->b, 0, s->vec_off[s->node_count] * sizeof *s->b);
        if (row[CTN_SR_VA] >= 0) ctn_dd_schur_unit(&blk, row, row[CTN_SR_VA], s->b + row[CTN_SR_VA]);
        if (row[CTN_SR_VB] >= 0 && row[CTN_SR_VB] != row[CTN_SR_VA]) ctn_dd_schur_unit(&blk, row, row[CTN_SR_VB], s->b + row[CTN_SR_VB]);
        ctn__forest_substitute(w, s, blocks);
        ctn_dd_schur_column(k, R, rows, blocks, s->x, W);
    }
    ctn_dd_schur_invert(W, R);
    return 1;
}

static void schur_solve(ctn_world *w, direct_state *s, const ctn_block *blocks, int R) {
    ctn_topology *t = &w->topo;
    int rows[DIRECT_MAX_SCHUR_ROWS * CTN_SR_INTS];
    double W[DIRECT_MAX_SCHUR_ROWS * DIRECT_MAX_SCHUR_ROWS], rE[DIRECT_MAX_SCHUR_ROWS];
    if (!schur_factor(w, s, blocks, R, rows, W)) return;
    int iterations = ctn__direct_outer(w) > 0 ? ctn__direct_outer(w) : 1;
    for (int it = 0; it < iterations; ++it) {
        ctn_dd_schur_impulse(R, W, rows, ctn__topo_joints(t), blocks, w->vel, w->inertia, t->lambda, t->stride, rE);
        ctn__forest_solve(w, s, blocks); /* for what the impulse changed (s->resolve) */
        if (it + 1 < iterations) keep_reference(w, s);
    }
}

/* Whether the joint in slot is solved by the exact solve (a chain position or a forest node's rows). */
static int in_exact(const direct_state *s, int slot) {
    if (s->chain) return ctn__chain_has(s->chain, slot);
    return s->slot_kind[slot] == SLOT_NODE || s->slot_kind[slot] == SLOT_ATTACHED;
}

/* Whether the active set of kernels/ctn_direct_active.h takes this substep's bounded rows: some joint of the
 * exact solve has rows it treats, and every joint outside it is a loop closer the Schur complement takes
 * (*schur_rows rows; 0: none). Where it does not (a closer with a limit, more closers than
 * DIRECT_MAX_SCHUR_ROWS rows, a rope or a contact in the forest, whose rows are all bounded), the bounded
 * rows are swept by projected Gauss-Seidel as before. */
static int active_applicable(const ctn_world *w, const direct_state *s, const ctn_block *blocks, int *schur_rows) {
    const ctn_topology *t = &w->topo;
    int any = 0;
    *schur_rows = 0;
    if (!s->bounded || !s->keep || !s->ml || w->desc.bounded_rows == CTN_BOUNDED_SWEEP) return 0;
    for (int slot = 0; slot < t->joint_count; ++slot) {
        if (!in_exact(s, slot)) continue;
        const ctn_block *b = &blocks[slot];
        if (ctn_dd_cut_all(b)) return 0; /* a rope or a contact leaves the forest whole: the sweep's */
        any |= ctn_dd_active_rows(b) != 0;
    }
    if (!any) return 0;
    if (s->chain || s->extra_count == 0) return 1;
    return schur_applicable(s, w, blocks, schur_rows);
}

int ctn__direct_ball_rows(const ctn_world *w) {
    const direct_state *s = w->direct_data;
    return s && s->valid && s->version == w->topology_version && s->joints == w->topo.joint_count && s->ball_rows && !s->blocks_only;
}

void ctn__direct_set_balls(ctn_world *w, const ctn_ball_row *balls) {
    direct_state *s = w->direct_data;
    if (s && s->chain) ctn__chain_set_balls(s->chain, balls);
}

int ctn__direct_may_bound(const ctn_world *w) {
    const direct_state *s = w->direct_data;
    if (!s || !s->valid || s->version != w->topology_version || s->joints != w->topo.joint_count) return 1;
    return s->bounded;
}

int ctn__direct_active_applies(const ctn_world *w, const ctn_block *blocks) {
    const direct_state *s = w->direct_data;
    int rows = 0;
    return s && active_applicable(w, s, blocks, &rows);
}

/* ---- the descent safeguard of the active set (chain path, velocity solve) -------------------------------
 * With the rows' matrix A = J M^-1 J^T + S symmetric positive definite, the substep's complementarity problem
 * is the convex program  min f(l) = 1/2 l^T A l - b^T l  over lo <= l <= hi  (b: the targets less J v_free;
 * Cottle, Pang and Stone 1992, section 1.2), and each exact solve with a guess of the free rows is a Newton
 * step on the face the guess names. Block pivoting takes the whole step and projects it into the bounds (the
 * clamps of ctn_dd_active_check), which need not lower f: on a 2,000-link snake of weak holding motors (the
 * snake_2000 of bench/results/2026-11-29-vm-active-set.md) bands of clamped motors are released together,
 * overshoot, are clamped again, and the loop cycles to its cap in every step. Here an accepted step must lower
 * f, else it is shortened along the projected arc l(a) = P(l0 + a (l1 - l0)), a = 1/2, 1/4, ... (the
 * projected Newton line search of Bertsekas 1982, "Projected Newton methods for optimization problems with
 * simple constraints"). f then rises only at a motor-and-limit mode switch (a new problem) or at the cap of
 * halvings, so the loop seldom returns to a guess it left, which plain block pivoting does in a cycle.
 * The change of f needs no v_free: with dl = l - l0 and dv = v - v0 = M^-1 J^T dl,
 *     f(l) - f(l0) = -dl^T r0 + 1/2 dl^T (J dv + S dl),   r0 = b - A l0 = target - J v0 - S l0 per row,
 * one pass over the joints. A step whose check clamps nothing is not tested: it is the exact minimiser of f
 * on a face that holds l0 (every row l0 holds at a bound stays clamped there or is released), so it lowers f
 * already; this keeps the test off the steps it cannot change (ctn_dd_active_clamps counts the clamps). A
 * converged loop still ends on an exact solve whose check changed nothing: the exact solution of the
 * complementarity problem. l0, v0 live in s->lref, s->vref (free during the loop: the chain path's solves
 * there take r itself), l1 in s->ls_lambda. Whether a step is tested is known only after its solve, which
 * overwrites l0 and v0 in place: the chain walks keep each value as they overwrite it (ctn__chain_set_save),
 * and a tested step completes v0 with the bodies they do not move (not dynamic: nothing in the loop changes
 * them), so no step copies the whole state; where the walks cannot (ctn__chain_can_save, the ball walk) both are
 * copied before the solve. */

/* f(lambda) - f(lambda0) for the state (t->lambda, w->vel) against (s->lref, s->vref), over the joints of the
 * exact solve (the formula above; double sums: the terms cancel to small differences). r0 of each row depends
 * on l0 and v0 alone, the same at every point of one test's arc: the first call of a test (first) forms it and
 * keeps it in s->ls_r0, the halvings' calls read it back (the same doubles, so the same sums). */
static double descent_change(const ctn_world *w, const direct_state *s, const ctn_block *blocks, int first) {
    const ctn_topology *t = &w->topo;
    double df = 0.0;
    for (int slot = 0; slot < t->joint_count; ++slot) {
        if (!ctn__chain_has(s->chain, slot)) continue;
        const ctn_block *b = &blocks[slot];
        int a = t->defs[slot].a, c = t->defs[slot].b, n = ctn_block_rows(b);
        ctn_vel va0 = ctn_load_vel(s->vref, a), vb0 = ctn_load_vel(s->vref, c), dva = ctn_load_vel(w->vel, a), dvb = ctn_load_vel(w->vel, c);
        dva.v = ctn_sub(dva.v, va0.v), dva.w = ctn_sub(dva.w, va0.w);
        dvb.v = ctn_sub(dvb.v, vb0.v), dvb.w = ctn_sub(dvb.w, vb0.w);
        double *r0 = s->ls_r0 + (size_t)t->stride * (size_t)slot;
        float jv0[CTN_MAX_ROWS], jdv[CTN_MAX_ROWS];
        if (first) {
            ctn_block_velocity(b, va0, vb0, jv0);
            for (int k = 0; k < n; ++k) r0[k] = (double)b->bias[k] - jv0[k] - (double)b->soft[k] * (double)s->lref[t->stride * slot + k];
        }
        ctn_block_velocity(b, dva, dvb, jdv);
        for (int k = 0; k < n; ++k) {
            double l0 = s->lref[t->stride * slot + k], dl = (double)t->lambda[t->stride * slot + k] - l0;
            df += -dl * r0[k] + 0.5 * dl * ((double)jdv[k] + (double)b->soft[k] * dl);
        }
    }
    return df;
}

/* The state at P(lambda0 + a (lambda1 - lambda0)) (the treated rows projected into their bounds), its
 * velocities from v0, and the guess it names: a treated row strictly inside its bounds is free, one at a
 * bound clamped (ctn_dd_active_check then releases those whose residual points inside). */
static void descent_point(ctn_world *w, direct_state *s, const ctn_block *blocks, float a, int first) {
    ctn_topology *t = &w->topo;
    memcpy(w->vel, s->vref, (size_t)t->body_count * sizeof *w->vel);
    for (int slot = 0; slot < t->joint_count; ++slot) {
        if (!ctn__chain_has(s->chain, slot)) continue;
        const ctn_block *b = &blocks[slot];
        /* the treated rows, the same at every halving of a test: found by its first, kept in s->ls_treated */
        int treated = first ? (s->ls_treated[slot] = (unsigned char)ctn_dd_active_rows(b)) : s->ls_treated[slot], n = ctn_block_rows(b), kept = 0;
        float dl[CTN_MAX_ROWS];
        for (int k = 0; k < CTN_MAX_ROWS; ++k) dl[k] = 0.0f;
        for (int k = 0; k < n; ++k) {
            float l0 = s->lref[t->stride * slot + k], l = l0 + a * (s->ls_lambda[t->stride * slot + k] - l0);
            if (treated >> k & 1) {
                l = l < b->lo[k] ? b->lo[k] : (l > b->hi[k] ? b->hi[k] : l);
                if (l > b->lo[k] && l < b->hi[k]) kept |= 1 << k;
            }
            t->lambda[t->stride * slot + k] = l, dl[k] = l - l0;
        }
        if (treated) s->keep[slot] = (unsigned char)kept;
        int ba = t->defs[slot].a, bb = t->defs[slot].b;
        ctn_v3 dv, dw, P, L; /* the block's impulse sums, formed once for both sides (ctn_block_body_delta's) */
        ctn_block_impulse(b, dl, &P, &L);
        if (ba >= 0 && w->inertia[ba].inv_mass > 0.0f) {
            ctn_block_side_delta(b, P, L, 0, w->inertia[ba].inv_mass, ctn_load_inertia(w->inertia, ba), &dv, &dw);
            w->vel[ba].v = ctn_add(w->vel[ba].v, dv), w->vel[ba].w = ctn_add(w->vel[ba].w, dw);
        }
        if (bb >= 0 && w->inertia[bb].inv_mass > 0.0f) {
            ctn_block_side_delta(b, P, L, 1, w->inertia[bb].inv_mass, ctn_load_inertia(w->inertia, bb), &dv, &dw);
            w->vel[bb].v = ctn_add(w->vel[bb].v, dv), w->vel[bb].w = ctn_add(w->vel[bb].w, dw);
        }
    }
}

/* The bounded rows of the exact solve by the active set (kernels/ctn_direct_active.h has the rule and its
 * sources): start from the warm-started impulses, then up to CTN_DD_ACTIVE_MAX times: factor with the free
 * bounded rows kept and the clamped ones cut, solve exactly (loop closers through their Schur complement),
 * and check every treated row. Returns 1 when a check changed nothing (the substep is solved, bounds and
 * all); 0 leaves the state it reached (consistent: v = v_free + M^-1 J^T lambda, every impulse in its
 * bounds, those the last check clamped included) for the projected Gauss-Seidel
 * hybrid to finish. */
static int bounded_exact(ctn_world *w, direct_state *s, ctn_block *blocks, int schur_rows, int projection, int *solves) {
    ctn_topology *t = &w->topo;
    int m = t->joint_count, converged = 0, best = INT_MAX, stalled = 0;
    /* the descent safeguard (above): the velocity solve of the chain path, where its arrays are there */
    int descent = s->chain && !projection && !s->descent_off && s->ls_lambda && s->ls_r0 && s->ls_treated && s->vref && s->lref;
    int stall = descent ? CTN_DD_ACTIVE_STALL_DESCENT : CTN_DD_ACTIVE_STALL;
    for (int slot = 0; slot < m; ++slot) {
        s->keep[slot] = 0;
        if (!in_exact(s, slot)) continue;
        float *ml = s->ml + CTN_DD_ML_FLOATS * (size_t)slot;
        ctn_dd_ml_start(slot, ctn__topo_joints(t), blocks, w->pose, s->h, ml);
        if (projection) ctn_dd_ml_limit_only(slot, ctn__topo_joints(t), blocks, ml);
        ctn_dd_active_start(slot, ctn__topo_joints(t), blocks, t->lambda, t->stride, w->vel, w->inertia, s->keep, s->warm);
    }
    if (s->chain) ctn__chain_set_keep(s->chain, s->keep);
    /* l0, v0 of each step: kept by the solve as it overwrites them, where it can (ctn__chain_can_save), and
     * completed only for a step that is tested (one that clamps, known after the solve); else copied before it */
    int can_save = descent && !s->descent_copy && ctn__chain_can_save(w, s->chain);
    for (int it = 0; it < CTN_DD_ACTIVE_MAX && !converged; ++it) {
        s->resolve = 0; /* r itself: the clamps changed v */
        int saved = 0;
        if (s->chain) {
            ctn__chain_set_reference(s->chain, NULL, NULL);
            ctn__chain_factor(w, s->chain, blocks, s->extra_now);
            saved = can_save && ctn__chain_set_save(s->chain, s->lref, s->vref);
            if (descent && !saved) {
                memcpy(s->lref, t->lambda, (size_t)t->stride * (size_t)m * sizeof *s->lref);
                memcpy(s->vref, w->vel, (size_t)t->body_count * sizeof *s->vref);
            }
            ctn__chain_solve(w, s->chain, blocks);
            if (saved) ctn__chain_set_save(s->chain, NULL, NULL);
        } else {
            for (int slot = 0; slot < m; ++slot)
                s->cut[slot] = (unsigned char)(in_exact(s, slot) ? ctn_dd_cut_mask(&blocks[slot]) & ~s->keep[slot] : 0);
            ctn__forest_factor(w, s, blocks);
            ctn__forest_solve(w, s, blocks);
            if (schur_rows > 0) {
                keep_reference(w, s);
                schur_solve(w, s, blocks, schur_rows);
            }
        }
        ++*solves;
        /* count the violating rows; all change (block pivoting) while their count keeps falling, else only
         * the last violating joint's (Murty's rule, the safeguard of kernels/ctn_direct_active.h) */
        int changes = 0, last = -1, modes = 0, clamps = 0, clamps_last = 0;
        for (int slot = 0; slot < m; ++slot) {
            if (!in_exact(s, slot)) continue;
            float *ml = s->ml + CTN_DD_ML_FLOATS * (size_t)slot;
            int c = ctn_dd_ml_check(slot, ctn__topo_joints(t), blocks, w->vel, s->keep, ml, 1);
            modes += c;
            if (!c) c = ctn_dd_active_check(slot, ctn__topo_joints(t), blocks, t->lambda, t->stride, w->vel, w->inertia, s->keep, 1);
            if (c) changes += c, last = slot;
            if (c && descent) clamps_last = ctn_dd_active_clamps(slot, blocks, t->lambda, t->stride, s->keep), clamps += clamps_last;
        }
        converged = changes == 0;
        if (changes < best) best = changes, stalled = 0;
        else ++stalled;
        int single = stalled >= stall;
        /* the safeguard's test only where the step projects (clamps rows that left their bounds): a step that
         * only releases is the exact minimiser of f on a face holding l0, so it lowers f (or keeps it) */
        int test = descent && !converged && !modes && (single ? clamps_last : clamps) > 0;
        if (test) memcpy(s->ls_lambda, t->lambda, (size_t)t->stride * (size_t)m * sizeof *s->ls_lambda); /* l1 */
        /* v0 of the bodies the solve did not move (not dynamic: neither it nor a check changes them) */
        for (int b = 0; test && saved && b < t->body_count; ++b)
            if (!(w->props[b].flags & CTN_BODY_FLAG_DYNAMIC)) s->vref[b] = w->vel[b];
        for (int slot = single ? last : 0; !converged && slot < m; ++slot) {
            if (!in_exact(s, slot)) continue;
            float *ml = s->ml + CTN_DD_ML_FLOATS * (size_t)slot;
            if (!ctn_dd_ml_check(slot, ctn__topo_joints(t), blocks, w->vel, s->keep, ml, 0))
                ctn_dd_active_check(slot, ctn__topo_joints(t), blocks, t->lambda, t->stride, w->vel, w->inertia, s->keep, 0);
        }
        /* the step must lower f, else it is halved along the projected arc (at most CTN_DD_ACTIVE_HALVINGS
         * times; the last point is taken). A motor-and-limit mode switch changes the problem itself (the row's
         * target and bounds), so f of the two sides is not compared: that step is taken whole. */
        if (test) {
            float a = 1.0f;
            int halved = 0;
            for (int h = 0; h < CTN_DD_ACTIVE_HALVINGS && !(descent_change(w, s, blocks, h == 0) < 0.0); ++h) {
                a *= 0.5f;
                descent_point(w, s, blocks, a, h == 0);
                halved = 1;
            }
            /* the guess at the point taken: descent_point freed the rows strictly inside, clamped those at a
             * bound; the check releases the clamped ones whose residual points inside (the point is in its
             * bounds, so it clamps nothing and moves neither impulses nor velocities: f above is unchanged,
             * and only the last point's guess is needed) */
            for (int slot = 0; halved && slot < m; ++slot)
                if (ctn__chain_has(s->chain, slot)) ctn_dd_active_check(slot, ctn__topo_joints(t), blocks, t->lambda, t->stride, w->vel, w->inertia, s->keep, 0);
        }
    }
    if (s->chain) ctn__chain_set_keep(s->chain, NULL);
    return converged;
}

/* The ordering of the current topology: the chain path when every joint lies on a simple path, else the
 * forest. Returns 0 when out of memory. */
static int direct_layout(ctn_world *w, direct_state *s) {
    const ctn_topology *t = &w->topo;
    ctn__direct_state_free(s);
    direct_chain *c = NULL;
    int chain = ctn__chain_build(w, &c, s->chain_segments);
    if (chain < 0) return 0;
    if (chain == 0) return ctn__direct_build(w, s, 1);
    s->extra_now = ctn__malloc(((size_t)t->joint_count + 1) * sizeof *s->extra_now);
    if (!s->extra_now) {
        ctn__chain_free(c);
        return 0;
    }
    s->chain = c;
    s->joints = t->joint_count, s->bodies = t->body_count, s->version = w->topology_version;
    s->valid = 1;
    return 1;
}

/* Whether RATTLE may take this world's steps: the integrator and the joint count, the tests of
 * host/solve/pipeline.c's rattle_refusal that a layout of rigid ball joints on the chain can fail. */
static int may_rattle(const ctn_world *w) {
    return w->desc.integrator == CTN_INTEGRATOR_RATTLE && w->topo.joint_count <= ctn__rattle_max_joints(w);
}

/* Where the chain's factors keep P^-1 (ctn__chain_pivots): in float for rigid ball joints stepped by the velocity
 * step (ball_rows without RATTLE), whose velocity solve never reads it back (only the projection's chord steps
 * do, iterated to their tolerance); in double for every other layout and for RATTLE, whose stages re-solve with
 * the kept factor. A property of the layout, not of how the rows are kept: the blocks of such a world
 * (ctn__direct_set_blocks_only) take the generic walks with P^-1 in float, the same bits as the records'. */
static int direct_pivots(const ctn_world *w, direct_state *s) {
    return !s->chain || ctn__chain_pivots(s->chain, s->ball_rows && !may_rattle(w));
}

/* direct_layout when the topology changed, with the topology's one fact about bounds: whether any joint
 * can have a row with finite bounds (ctn__joint_may_be_bounded: a contact, a limit, a motor, a rope, a swing
 * cone). Without one, every block's bounds are infinite in the velocity solve and either infinite or [0, 0]
 * on every row in the projection (ctn_project_block), so no row is cut or treated by the active set and
 * active_applicable's two passes over the joints are skipped. */
static int direct_ready(ctn_world *w, direct_state *s) {
    const ctn_topology *t = &w->topo;
    if (s->valid && s->version == w->topology_version && s->joints == t->joint_count && s->bodies == t->body_count) return direct_pivots(w, s);
    if (!direct_layout(w, s)) return 0;
    s->bounded = 0;
    for (int slot = 0; slot < t->joint_count && !s->bounded; ++slot) s->bounded = ctn__joint_may_be_bounded_at(t, slot);
    /* rigid ball joints alone, all on the chain: no row is ever bounded, cut or turned into [0, 0] by the projection
     * (ctn_project_block's rigid rule), so the walks read only the lever arms, targets and softness */
    s->ball_rows = s->chain != NULL && !s->bounded && s->extra_count == 0 && t->joint_count > 0;
    for (int slot = 0; slot < t->joint_count && s->ball_rows; ++slot) {
        const ctn_jcore *d = &CTN_JC(ctn__topo_joints(t), slot);
        s->ball_rows = d->type == CTN_JT_BALL && d->compliance <= 0.0f && !(ctn_joint_flags(ctn__topo_joints(t), slot) & CTN_JF_ASSEMBLE_TARGET) &&
                       ctn__chain_has(s->chain, slot);
    }
    return direct_pivots(w, s);
}

ctn_status ctn__direct_prepare(ctn_world *w) {
    const ctn_topology *t = &w->topo;
    direct_state *s = w->direct_data;
    if (!s) {
        s = ctn__calloc(1, sizeof *s);
        if (!s) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "direct solver: out of memory for its state");
        w->direct_data = s;
    }
    if (!direct_ready(w, s))
        return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "direct solver: out of memory for the factor of %d joints on %d bodies", t->joint_count,
                         t->body_count);
    /* keep_reference's arrays, which it would otherwise allocate in the middle of a substep */
    if (!s->vref) s->vref = ctn__malloc(((size_t)t->body_count + 1) * sizeof *s->vref);
    if (!s->lref) s->lref = ctn__malloc(((size_t)t->stride * (size_t)t->joint_count + 1) * sizeof *s->lref);
    /* the active set's arrays, only where some joint can have a bounded row (active_applicable asks for them):
     * zeroed, so resident, they would cost a chain of ball joints 21 bytes a joint for nothing */
    if (s->bounded && !s->keep) s->keep = ctn__calloc((size_t)t->joint_count + 1, 1);
    if (s->bounded && !s->ml) s->ml = ctn__calloc(CTN_DD_ML_FLOATS * ((size_t)t->joint_count + 1), sizeof *s->ml);
    if (s->bounded && s->chain && !s->ls_lambda)
        s->ls_lambda = ctn__malloc(((size_t)t->stride * (size_t)t->joint_count + 1) * sizeof *s->ls_lambda);
    if (s->bounded && s->chain && !s->ls_r0)
        s->ls_r0 = ctn__malloc(((size_t)t->stride * (size_t)t->joint_count + 1) * sizeof *s->ls_r0);
    if (s->bounded && s->chain && !s->ls_treated) s->ls_treated = ctn__malloc((size_t)t->joint_count + 1);
    if (!s->vref || !s->lref || (s->bounded && (!s->keep || !s->ml || (s->chain && (!s->ls_lambda || !s->ls_r0 || !s->ls_treated)))))
        return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "direct solver: out of memory for %d joints", t->joint_count);
    return CTN_OK;
}

void ctn__direct_set_substep(ctn_world *w, float h, float warm) {
    direct_state *s = w->direct_data;
    if (s) s->h = h, s->warm = warm;
}

void ctn__direct_active_counts(const ctn_world *w, long *substeps, long *solves, long *fallbacks) {
    const direct_state *s = w->direct_data;
    *substeps = s ? s->active_substeps : 0, *solves = s ? s->active_solves : 0, *fallbacks = s ? s->active_fallbacks : 0;
}

void ctn__direct_set_chain_segments(ctn_world *w, int segments) {
    if (!w->direct_data) w->direct_data = ctn__calloc(1, sizeof(direct_state));
    direct_state *s = w->direct_data;
    if (!s) return;
    s->chain_segments = segments;
    s->valid = 0;
}

void ctn__direct_set_descent(ctn_world *w, int on) {
    if (!w->direct_data) w->direct_data = ctn__calloc(1, sizeof(direct_state));
    direct_state *s = w->direct_data;
    if (s) s->descent_off = !on, s->descent_copy = on == 2;
}

void ctn__direct_set_blocks_only(ctn_world *w, int on) {
    if (!w->direct_data) w->direct_data = ctn__calloc(1, sizeof(direct_state));
    direct_state *s = w->direct_data;
    if (s) s->blocks_only = on;
}

/* Forest (or chain) solve of the current right-hand side. */
static void exact_solve(ctn_world *w, direct_state *s, const ctn_block *blocks) {
    if (s->chain) ctn__chain_solve(w, s->chain, blocks);
    else ctn__forest_solve(w, s, blocks);
}

int ctn__direct_exact(const ctn_world *w) {
    const direct_state *s = w->direct_data;
    return s && s->valid && s->version == w->topology_version && (s->chain || s->extra_count == 0);
}

int ctn__direct_forest_exact(const ctn_world *w) {
    const direct_state *s = w->direct_data;
    return ctn__direct_exact(w) && !s->chain;
}

int ctn__direct_residual_impulses(const ctn_world *w) {
    const direct_state *s = w->direct_data;
    return s && s->residual_impulses;
}

int ctn__direct_residual_velocities(const ctn_world *w) {
    const direct_state *s = w->direct_data;
    return s && s->residual_velocities;
}

int ctn__direct_anchored(const ctn_world *w) {
    const direct_state *s = w->direct_data;
    return ctn__direct_exact(w) && s->chain ? ctn__chain_anchored(s->chain) : -1;
}

/* A solve with the factor in place: the substep's first solve after ctn__chain_factor / ctn__forest_factor
 * already ran, so the chain path does its own forward substitution (c->forwarded is 0) and the forest
 * path takes r itself (s->resolve is 0 with no extra joints). */
void ctn__direct_resolve(ctn_world *w, const ctn_block *blocks) {
    direct_state *s = w->direct_data;
    if (!ctn__direct_exact(w)) return;
    s->resolve = 0;
    if (s->chain) ctn__chain_set_reference(s->chain, NULL, NULL);
    exact_solve(w, s, blocks);
}

void ctn__direct_resolve_rest(ctn_world *w, const ctn_block *blocks) {
    direct_state *s = w->direct_data;
    if (!ctn__direct_exact(w)) return;
    s->resolve = 0;
    if (!s->chain) { /* the forest's walk forms J v and S lambda (zero) itself */
        exact_solve(w, s, blocks);
        return;
    }
    ctn__chain_set_reference(s->chain, NULL, NULL);
    ctn__chain_solve_rest(w, s->chain, blocks);
}

int ctn__direct_chord_moves(const ctn_world *w, float h) {
    const direct_state *s = w->direct_data;
    return ctn__direct_exact(w) && s->chain && ctn__chain_moves(w, s->chain, h);
}

int ctn__direct_chord_step(ctn_world *w, const ctn_block *blocks, float h) {
    direct_state *s = w->direct_data;
    if (!ctn__direct_exact(w) || !s->chain) return 0;
    s->resolve = 0;
    ctn__chain_set_reference(s->chain, NULL, NULL);
    return ctn__chain_chord_step(w, s->chain, blocks, h);
}

int ctn__direct_project_step(ctn_world *w, const ctn_block *blocks, float h) {
    direct_state *s = w->direct_data;
    if (!ctn__direct_exact(w) || !s->chain || s->bounded) return 0; /* bounded: the active set reads the impulses */
    s->resolve = 0;
    ctn__chain_set_reference(s->chain, NULL, NULL);
    return ctn__chain_project_step(w, s->chain, blocks, s->extra_now, h);
}

void ctn__direct_factor(ctn_world *w, const ctn_block *blocks) {
    direct_state *s = w->direct_data;
    if (!ctn__direct_exact(w)) return;
    s->resolve = 0;
    if (s->chain) {
        ctn__chain_set_reference(s->chain, NULL, NULL);
        ctn__chain_factor(w, s->chain, blocks, s->extra_now);
        ctn__chain_unforward(s->chain);
    } else {
        memset(s->cut, 0, (size_t)w->topo.joint_count); /* rigid rows only (the caller checked) */
        ctn__forest_factor(w, s, blocks);
    }
}

double ctn__solve_direct(ctn_world *w, const ctn_block *blocks) {
    return ctn__solve_direct_ex(w, (ctn_block *)blocks, CTN_DIRECT_RESIDUAL); /* no FILL_KINV: not written */
}

/* kinv of the n slots in list (CTN_DIRECT_FILL_KINV), before Gauss-Seidel reads them. */
static void fill_kinv(const ctn_world *w, ctn_block *blocks, const int *list, int n) {
    for (int k = 0; k < n; ++k) ctn_block_kinv_slot(list ? list[k] : k, ctn__topo_joints(&w->topo), w->inertia, blocks);
}

double ctn__solve_direct_ex(ctn_world *w, ctn_block *blocks, int options) {
    ctn_topology *t = &w->topo;
    direct_state *s = w->direct_data;
    int fill = (options & CTN_DIRECT_FILL_KINV) != 0;
    if (!s) {
        s = ctn__calloc(1, sizeof *s);
        if (!s) {
            if (fill) fill_kinv(w, blocks, NULL, t->joint_count);
            return gs_fallback(w, blocks);
        }
        w->direct_data = s;
    }
    s->residual_impulses = s->residual_velocities = 0; /* set where the residual below reads every impulse, velocity */
    if (!direct_ready(w, s)) {
        if (!s->noted) ctn__log(w, CTN_LOG_WARNING, "direct solver: out of memory for %d joints, using Gauss-Seidel", t->joint_count);
        s->noted = 1;
        if (fill) fill_kinv(w, blocks, NULL, t->joint_count);
        return gs_fallback(w, blocks);
    }
    /* rows with finite bounds leave the exact solve for this substep; their joints join the GS set */
    int n_extra = 0, schur_rows = 0;
    int schur_list[DIRECT_MAX_SCHUR_ROWS * CTN_SR_INTS];
    double W[DIRECT_MAX_SCHUR_ROWS * DIRECT_MAX_SCHUR_ROWS], rE[DIRECT_MAX_SCHUR_ROWS];
    s->resolve = 0; /* the first solve takes r itself */
    int active_rows = 0, active_solves = 0;
    if (active_applicable(w, s, blocks, &active_rows)) {
        if (fill) fill_kinv(w, blocks, s->extra, s->extra_count); /* the closers' kinv, as the sweep below fills it */
        int done = bounded_exact(w, s, blocks, active_rows, (options & CTN_DIRECT_PROJECTION) != 0, &active_solves);
        if (!(options & CTN_DIRECT_PROJECTION))
            s->active_solves += active_solves, s->active_substeps += 1, s->active_fallbacks += !done;
        if (done) goto residual;
        s->resolve = 0; /* the fallback: the hybrid below, from the state the active set reached */
    }
    if (s->chain) {
        ctn__chain_set_reference(s->chain, NULL, NULL);
        n_extra = ctn__chain_factor(w, s->chain, blocks, s->extra_now);
        if (fill) fill_kinv(w, blocks, s->extra_now, n_extra);
        ctn__chain_solve(w, s->chain, blocks);
        if (n_extra > 0) keep_reference(w, s);
    } else {
        /* in slot order, which is colour order: the OpenCL backend's coloured sweep (opencl_direct.c) */
        for (int slot = 0; slot < t->joint_count; ++slot) {
            int kind = s->slot_kind[slot];
            s->cut[slot] = (unsigned char)(kind == SLOT_NODE || kind == SLOT_ATTACHED ? ctn_dd_cut_mask(&blocks[slot]) : 0);
            if (s->cut[slot] || kind == SLOT_EXTRA) s->extra_now[n_extra++] = slot;
        }
        if (fill) fill_kinv(w, blocks, s->extra_now, n_extra);
        ctn__forest_factor(w, s, blocks);
        ctn__forest_solve(w, s, blocks);
        if (n_extra > 0) keep_reference(w, s);
        if (n_extra > 0 && schur_applicable(s, w, blocks, &schur_rows)) {
            if (n_extra == s->extra_count) { /* no row of the forest cut: the closers alone, exactly */
                schur_solve(w, s, blocks, schur_rows);
                n_extra = 0;
            }
            if (n_extra > 0 && !schur_factor(w, s, blocks, schur_rows, schur_list, W)) schur_rows = 0;
        } else {
            schur_rows = 0;
        }
    }
    int outer = ctn__direct_outer(w);
    /* Projected GS on the cut rows and the loop closers, then the forest's re-solve; where the closers' Schur
     * complement applies while rows of the forest are cut (a closed loop on a robot with motors and limits,
     * as the mimic couplings of docs/urdf.md), each iteration ends with the closers' exact impulse and the
     * forest's re-solve for it, so the closers and the forest hold exactly for the cut rows' impulses of
     * that iteration (the OpenCL backend's order, opencl_direct.c). */
    for (int it = 0; n_extra > 0 && it < outer; ++it) {
        for (int k = 0; k < n_extra; ++k) { /* a joint's cut rows alone, or the whole block (ctn_dd_gs_rows) */
            int slot = s->extra_now[k], outside = !s->chain && s->slot_kind[slot] == SLOT_EXTRA;
            ctn_gs_slot_rows(slot, ctn_dd_gs_rows(&blocks[slot], outside), ctn__topo_joints(t), blocks, t->lambda, t->stride, w->vel, w->inertia);
        }
        exact_solve(w, s, blocks); /* for what the sweep changed (keep_reference) */
        if (schur_rows > 0) {
            keep_reference(w, s);
            ctn_dd_schur_impulse(schur_rows, W, schur_list, ctn__topo_joints(t), blocks, w->vel, w->inertia, t->lambda, t->stride, rE);
            exact_solve(w, s, blocks);
        }
        if (it + 1 < outer) keep_reference(w, s);
    }
residual:
    if (!(options & CTN_DIRECT_RESIDUAL)) return 0.0;
    if (s->chain) {
        s->residual_impulses = ctn__chain_residual_impulses(w, s->chain);
        s->residual_velocities = ctn__chain_residual_velocities(w, s->chain);
        return ctn__chain_residual(w, s->chain, blocks);
    }
    double r2 = 0.0;
    for (int slot = 0; slot < t->joint_count; ++slot) {
        const ctn_joint_core *d = &t->defs[slot];
        if (!ctn__direct_body_dynamic(w, d->a) && !ctn__direct_body_dynamic(w, d->b)) continue;
        float r[CTN_MAX_ROWS];
        const ctn_block *b = &blocks[slot];
        ctn_block_residual(b, ctn_load_vel(w->vel, d->a), ctn_load_vel(w->vel, d->b), &t->lambda[t->stride * slot], r);
        for (int k = 0; k < ctn_block_rows(b); ++k) r2 += (double)r[k] * r[k];
    }
    return r2;
}
