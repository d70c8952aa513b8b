/* The numeric half of the exact forest solver (host/solve/solver_direct.c, whose header comment gives the
 * system (2), the node pivots and the elimination): per substep, the node pivots of the ordering that
 * host/solve/direct_build.c made, their block LDL^T elimination children first, and forward and backward
 * substitution for a right-hand side. The dense per-node math is kernels/ctn_direct.h's, the same functions
 * the OpenCL forest kernels run. */
#include "core/world.h"
#include "ctn_solver.h"
#include "solve/direct_internal.h"

#include <string.h>

#include "ctn_direct.h"

/* All rows of one side of a joint: J[k][0..5] (ctn_dd_jrow), zero for the rows cut this substep (s->cut:
 * a bit mask of the rows with finite bounds), which then couple to nothing. */
static void jacobian_side(const direct_state *s, const ctn_block *b, int slot, int side, double J[CTN_MAX_ROWS][6]) {
    int n = ctn_block_rows(b);
    for (int k = 0; k < n; ++k) ctn_dd_jrow_cut(b, k, side, s->cut[slot], J[k]);
}

/* Every row of the joint in slot is cut this substep (a contact, a rope): it leaves the forest whole. */
static int cut_whole(const ctn_world *w, const direct_state *s, int slot) {
    return ctn_dd_cut_full(s->cut[slot], ctn__direct_rows(&w->topo.defs[slot]));
}

/* Coupling of node i to its parent: the joint slot, the side of the Jacobian to use, the first row in
 * the parent (body child) or the parent's DOF count (joint child). Returns 0 when there is none. */
static int node_coupling(const ctn_world *w, const direct_state *s, int i, int *slot) {
    if (s->parent[i] < 0) return 0;
    *slot = s->pslot[i];
    return !cut_whole(w, s, *slot);
}

/* Diagonal of J M^-1 J^T of row k of a joint from its own two bodies (the scale of the row). */
static double row_local_mass(const ctn_world *w, const ctn_block *b, const ctn_joint_def *d, int k) {
    double acc = 0.0;
    for (int side = 0; side < 2; ++side) {
        int body = side ? d->b : d->a;
        if (body < 0 || !(w->props[body].flags & CTN_BODY_FLAG_DYNAMIC)) continue;
        double j[6];
        ctn_dd_jrow(b, k, side, j);
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

/* Node pivots H_ii: [M_b, J_a^T; J_a, -S_a] of a body node, -S_s of a joint node (cut rows: -1 with zero
 * couplings). */
static void assemble_pivots(const ctn_world *w, direct_state *s, const ctn_block *blocks) {
    const ctn_topology *t = &w->topo;
    for (int i = 0; i < s->node_count; ++i) {
        int N = s->size[i], d = s->dof[i];
        double *D = s->mat + s->mat_off[i];
        memset(D, 0, (size_t)N * N * sizeof *D);
        if (s->kind[i] == NODE_JOINT) {
            const ctn_block *blk = &blocks[s->id[i]];
            for (int r = 0; r < N; ++r) D[r * N + r] = (s->cut[s->id[i]] >> r & 1) ? -1.0 : row_pivot(w, blk, &t->defs[s->id[i]], r);
            continue;
        }
        int body = s->id[i];
        double mass = w->vel[body].inv_mass > 0.0f ? 1.0 / (double)w->vel[body].inv_mass : 1e30;
        for (int r = 0; r < 3; ++r) D[r * N + r] = mass;
        if (d == 6) {
            double I[9];
            if (!ctn_dd_sym3_inverse(w->inertia[body].inv_inertia, I))
                for (int r = 0; r < 9; ++r) I[r] = (r % 4 == 0) ? 1e30 : 0.0; /* degenerate: rotation locked */
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c) D[(3 + r) * N + 3 + c] = I[r * 3 + c];
        }
        for (int e = s->att_off[i]; e < s->att_off[i + 1]; ++e) {
            int slot = s->att[e], row0 = s->slot_row[slot], n = ctn__direct_rows(&t->defs[slot]);
            const ctn_block *blk = &blocks[slot];
            if (cut_whole(w, s, slot)) {
                for (int r = 0; r < n; ++r) D[(row0 + r) * N + row0 + r] = -1.0;
                continue;
            }
            double J[CTN_MAX_ROWS][6];
            jacobian_side(s, blk, slot, s->slot_side[slot], J);
            for (int r = 0; r < n; ++r) {
                for (int c = 0; c < d; ++c) {
                    D[(row0 + r) * N + c] = J[r][c];
                    D[c * N + row0 + r] = J[r][c];
                }
                D[(row0 + r) * N + row0 + r] = (s->cut[slot] >> r & 1) ? -1.0 : row_pivot(w, blk, &t->defs[slot], r);
            }
        }
    }
}

/* Elimination of every node into its parent, children first: D_i^-1 in place, then
 * D_p -= H_pi D_i^-1 H_ip through the coupling joint's Jacobian. */
static void eliminate_nodes(const ctn_world *w, direct_state *s, const ctn_block *blocks) {
    const ctn_topology *t = &w->topo;
    for (int i = 0; i < s->node_count; ++i) {
        int N = s->size[i], d = s->dof[i], slot;
        double *Di = s->mat + s->mat_off[i];
        ctn_dd_node_inverse_g(Di, N, d);
        if (!node_coupling(w, s, i, &slot)) continue;
        int p = s->parent[i], Np = s->size[p];
        double *Dp = s->mat + s->mat_off[p];
        double J[CTN_MAX_ROWS][6], T[CTN_MAX_ROWS][6];
        jacobian_side(s, &blocks[slot], slot, s->side[i], J);
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

void ctn__forest_factor(ctn_world *w, direct_state *s, const ctn_block *blocks) {
    assemble_pivots(w, s, blocks);
    eliminate_nodes(w, s, blocks);
}

/* r = target - J v - S lambda of one joint, in double (a re-solve: its change since the last solve, (R) of
 * kernels/ctn_direct_rhs.h); 0 on its cut rows (all of them for a whole cut). */
static void row_residual(const ctn_world *w, const direct_state *s, const ctn_block *blk, int slot, double *r) {
    const ctn_joint_def *d = &w->topo.defs[slot];
    if (cut_whole(w, s, slot)) return; /* r stays 0 */
    if (s->resolve)
        ctn_dd_row_change(blk, ctn_load_vel(w->vel, d->a), ctn_load_vel(w->vel, d->b), ctn_load_vel(s->vref, d->a),
                          ctn_load_vel(s->vref, d->b), &w->topo.lambda[6 * slot], &s->lref[6 * slot], r);
    else
        ctn_dd_row_residual(blk, ctn_load_vel(w->vel, d->a), ctn_load_vel(w->vel, d->b), &w->topo.lambda[6 * slot], r);
    ctn_dd_zero_cut(s->cut[slot], ctn_block_rows(blk), r);
}

/* Right-hand side of (2) from the current velocities and impulses: 0 on body DOFs, r on joint rows. */
static void direct_rhs(const ctn_world *w, direct_state *s, const ctn_block *blocks) {
    for (int i = 0; i < s->node_count; ++i) {
        double *b = s->b + s->vec_off[i];
        memset(b, 0, (size_t)s->size[i] * sizeof *b);
        if (s->kind[i] == NODE_JOINT) {
            int slot = s->id[i];
            row_residual(w, s, &blocks[slot], slot, b);
            continue;
        }
        for (int e = s->att_off[i]; e < s->att_off[i + 1]; ++e) {
            int slot = s->att[e];
            row_residual(w, s, &blocks[slot], slot, b + s->slot_row[slot]);
        }
    }
}

/* Forward and backward substitution through the factor: x = H^-1 b (b is consumed). */
void ctn__forest_substitute(const ctn_world *w, direct_state *s, const ctn_block *blocks) {
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
        if (!node_coupling(w, s, i, &slot)) continue;
        int p = s->parent[i], n = ctn__direct_rows(&t->defs[slot]);
        double *bp = s->b + s->vec_off[p];
        jacobian_side(s, &blocks[slot], slot, s->side[i], J);
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
        if (!node_coupling(w, s, i, &slot)) continue;
        int p = s->parent[i], n = ctn__direct_rows(&t->defs[slot]);
        const double *Di = s->mat + s->mat_off[i];
        double *x = s->x + s->vec_off[i];
        const double *xp = s->x + s->vec_off[p];
        double g[CTN_DD_MAX_NODE];
        int gn;
        jacobian_side(s, &blocks[slot], slot, s->side[i], J);
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
            for (int r = 0; r < s->size[i]; ++r) /* cut rows: the outer Gauss-Seidel's */
                if (!(s->cut[slot] >> r & 1)) t->lambda[6 * slot + r] = (float)((double)t->lambda[6 * slot + r] - x[r]);
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
            for (int r = 0; r < ctn__direct_rows(&t->defs[slot]); ++r)
                if (!(s->cut[slot] >> r & 1)) t->lambda[6 * slot + r] = (float)((double)t->lambda[6 * slot + r] - x[row0 + r]);
        }
    }
}

void ctn__forest_solve(ctn_world *w, direct_state *s, const ctn_block *blocks) {
    direct_rhs(w, s, blocks);
    ctn__forest_substitute(w, s, blocks);
    direct_apply(w, s);
}
