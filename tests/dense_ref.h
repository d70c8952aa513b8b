/* Dense float64 reference for the exact solver's tests: the rows of a topology as J (rows x 6 bodies),
 * M^-1 and S, and (J M^-1 J^T + S) x = r solved by Gaussian elimination with partial pivoting. */
#ifndef CATENA_TEST_DENSE_REF_H
#define CATENA_TEST_DENSE_REF_H

#include "ctn_solver.h"
#include "core/world.h"

#include <math.h>
#include <stdlib.h>

/* Rows of the topology as dense float64 J (rows x 6 nb), M^-1 (6 nb diagonal blocks), S and r. */
typedef struct dense_sys {
    int rows, cols;
    double *J, *Minv, *S, *r;
    int *row_slot, *row_k;
} dense_sys;

static void dense_build(const ctn_world *w, const ctn_block *blocks, dense_sys *d) {
    const ctn_topology *t = &w->topo;
    int nb = w->body_count;
    d->rows = 0;
    for (int s = 0; s < t->joint_count; ++s) d->rows += ctn_block_rows(&blocks[s]);
    d->cols = 6 * nb;
    d->J = calloc((size_t)d->rows * d->cols, sizeof *d->J);
    d->Minv = calloc((size_t)d->cols * 6, sizeof *d->Minv);
    d->S = calloc((size_t)d->rows, sizeof *d->S);
    d->r = calloc((size_t)d->rows, sizeof *d->r);
    d->row_slot = calloc((size_t)d->rows, sizeof *d->row_slot);
    d->row_k = calloc((size_t)d->rows, sizeof *d->row_k);
    for (int i = 0; i < nb; ++i) {
        const ctn_props *p = &w->props[i];
        if (!(p->flags & CTN_BODY_FLAG_DYNAMIC)) continue;
        double *m = &d->Minv[(size_t)6 * i * 6];
        for (int k = 0; k < 3; ++k) m[k * 6 + k] = w->inertia[i].inv_mass;
        ctn_sym3 I = w->inertia[i].inv_inertia;
        double Im[9] = {I.xx, I.xy, I.xz, I.xy, I.yy, I.yz, I.xz, I.yz, I.zz};
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) m[(3 + a) * 6 + 3 + b] = Im[a * 3 + b];
    }
    int row = 0;
    for (int s = 0; s < t->joint_count; ++s) {
        const ctn_block *b = &blocks[s];
        const ctn_joint_core *jd = &t->defs[s];
        for (int k = 0; k < ctn_block_rows(b); ++k, ++row) {
            ctn_v3 ua, ub, dir = b->dir[k];
            ctn_row_angular(b, k, &ua, &ub);
            double lin = k < b->n_lin ? 1.0 : 0.0;
            double ja[6] = {lin * dir.x, lin * dir.y, lin * dir.z, ua.x, ua.y, ua.z};
            double jb[6] = {-lin * dir.x, -lin * dir.y, -lin * dir.z, -ub.x, -ub.y, -ub.z};
            double jv = 0.0;
            ctn_vel va = ctn_load_vel(w->vel, jd->a), vb = ctn_load_vel(w->vel, jd->b);
            double Va[6] = {va.v.x, va.v.y, va.v.z, va.w.x, va.w.y, va.w.z};
            double Vb[6] = {vb.v.x, vb.v.y, vb.v.z, vb.w.x, vb.w.y, vb.w.z};
            for (int c = 0; c < 6; ++c) jv += ja[c] * Va[c] + jb[c] * Vb[c];
            int da = w->props[jd->a].flags & CTN_BODY_FLAG_DYNAMIC;
            int db = jd->b >= 0 && (w->props[jd->b].flags & CTN_BODY_FLAG_DYNAMIC);
            for (int c = 0; c < 6; ++c) {
                if (da) d->J[(size_t)row * d->cols + 6 * jd->a + c] += ja[c];
                if (db) d->J[(size_t)row * d->cols + 6 * jd->b + c] += jb[c];
            }
            d->S[row] = b->soft[k];
            d->r[row] = (double)b->bias[k] - jv - (double)b->soft[k] * t->lambda[t->stride * s + k];
            d->row_slot[row] = s;
            d->row_k[row] = k;
        }
    }
}

static void dense_free(dense_sys *d) {
    free(d->J);
    free(d->Minv);
    free(d->S);
    free(d->r);
    free(d->row_slot);
    free(d->row_k);
}

/* Solves (J M^-1 J^T + S) x = r by Gaussian elimination with partial pivoting (float64). */
static void dense_solve(const dense_sys *d, double *x) {
    int n = d->rows, c6 = d->cols;
    double *A = calloc((size_t)n * (n + 1), sizeof *A);
    double *B = calloc((size_t)n * c6, sizeof *B); /* B = J M^-1 */
    for (int i = 0; i < n; ++i)
        for (int body = 0; body < c6 / 6; ++body)
            for (int a = 0; a < 6; ++a) {
                double s = 0.0;
                for (int k = 0; k < 6; ++k) s += d->J[(size_t)i * c6 + 6 * body + k] * d->Minv[(size_t)(6 * body + k) * 6 + a];
                B[(size_t)i * c6 + 6 * body + a] = s;
            }
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            double s = 0.0;
            for (int k = 0; k < c6; ++k) s += B[(size_t)i * c6 + k] * d->J[(size_t)j * c6 + k];
            A[(size_t)i * (n + 1) + j] = s + (i == j ? d->S[i] : 0.0);
        }
        A[(size_t)i * (n + 1) + n] = d->r[i];
    }
    for (int c = 0; c < n; ++c) {
        int p = c;
        for (int i = c + 1; i < n; ++i)
            if (fabs(A[(size_t)i * (n + 1) + c]) > fabs(A[(size_t)p * (n + 1) + c])) p = i;
        for (int k = 0; k <= n; ++k) {
            double tmp = A[(size_t)c * (n + 1) + k];
            A[(size_t)c * (n + 1) + k] = A[(size_t)p * (n + 1) + k];
            A[(size_t)p * (n + 1) + k] = tmp;
        }
        for (int i = c + 1; i < n; ++i) {
            double f = A[(size_t)i * (n + 1) + c] / A[(size_t)c * (n + 1) + c];
            for (int k = c; k <= n; ++k) A[(size_t)i * (n + 1) + k] -= f * A[(size_t)c * (n + 1) + k];
        }
    }
    for (int i = n - 1; i >= 0; --i) {
        double s = A[(size_t)i * (n + 1) + n];
        for (int k = i + 1; k < n; ++k) s -= A[(size_t)i * (n + 1) + k] * x[k];
        x[i] = s / A[(size_t)i * (n + 1) + i];
    }
    free(A);
    free(B);
}

#endif /* CATENA_TEST_DENSE_REF_H */
