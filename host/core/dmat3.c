/* Dense 3x3 double-precision helpers (host/core/dmat3.h). */
#include "core/dmat3.h"

#include <string.h>

void ctn__sym3_eigen(const double a_in[3][3], double e[3], double V[3][3]) {
    double A[3][3];
    memcpy(A, a_in, sizeof A);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) V[i][j] = i == j;
    for (int sweep = 0; sweep < 50; ++sweep) {
        /* converged when the off-diagonal part is at rounding level of the diagonal (quadratic convergence:
         * a few sweeps) */
        double off = A[0][1] * A[0][1] + A[0][2] * A[0][2] + A[1][2] * A[1][2];
        double diag = A[0][0] * A[0][0] + A[1][1] * A[1][1] + A[2][2] * A[2][2];
        if (off <= 1e-30 * diag) break;
        for (int p = 0; p < 2; ++p)
            for (int q = p + 1; q < 3; ++q) {
                if (A[p][q] == 0.0) continue;
                /* the rotation J(p, q, theta) that zeroes A[p][q]: t = tan(theta), the smaller root */
                double theta = (A[q][q] - A[p][p]) / (2.0 * A[p][q]);
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < 3; ++k) { /* A <- A J */
                    double akp = A[k][p], akq = A[k][q];
                    A[k][p] = c * akp - s * akq, A[k][q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; ++k) { /* A <- J^T A */
                    double apk = A[p][k], aqk = A[q][k];
                    A[p][k] = c * apk - s * aqk, A[q][k] = s * apk + c * aqk;
                }
                for (int k = 0; k < 3; ++k) { /* V <- V J */
                    double vkp = V[k][p], vkq = V[k][q];
                    V[k][p] = c * vkp - s * vkq, V[k][q] = s * vkp + c * vkq;
                }
            }
    }
    for (int i = 0; i < 3; ++i) e[i] = A[i][i];
    double det = V[0][0] * (V[1][1] * V[2][2] - V[1][2] * V[2][1]) - V[0][1] * (V[1][0] * V[2][2] - V[1][2] * V[2][0]) +
                 V[0][2] * (V[1][0] * V[2][1] - V[1][1] * V[2][0]);
    if (det < 0.0) /* eigenvectors are defined up to sign: make V a rotation */
        for (int i = 0; i < 3; ++i) V[i][2] = -V[i][2];
}

ctn_dquat ctn__dq_of_matrix(const double R[3][3]) {
    double t = R[0][0] + R[1][1] + R[2][2];
    ctn_dquat q;
    if (t >= R[0][0] && t >= R[1][1] && t >= R[2][2]) {
        double s = 2.0 * sqrt(1.0 + t);
        q = (ctn_dquat){0.25 * s, (R[2][1] - R[1][2]) / s, (R[0][2] - R[2][0]) / s, (R[1][0] - R[0][1]) / s};
    } else if (R[0][0] >= R[1][1] && R[0][0] >= R[2][2]) {
        double s = 2.0 * sqrt(1.0 + R[0][0] - R[1][1] - R[2][2]);
        q = (ctn_dquat){(R[2][1] - R[1][2]) / s, 0.25 * s, (R[0][1] + R[1][0]) / s, (R[0][2] + R[2][0]) / s};
    } else if (R[1][1] >= R[2][2]) {
        double s = 2.0 * sqrt(1.0 - R[0][0] + R[1][1] - R[2][2]);
        q = (ctn_dquat){(R[0][2] - R[2][0]) / s, (R[0][1] + R[1][0]) / s, 0.25 * s, (R[1][2] + R[2][1]) / s};
    } else {
        double s = 2.0 * sqrt(1.0 - R[0][0] - R[1][1] + R[2][2]);
        q = (ctn_dquat){(R[1][0] - R[0][1]) / s, (R[0][2] + R[2][0]) / s, (R[1][2] + R[2][1]) / s, 0.25 * s};
    }
    double n = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z); /* R rounded off SO(3) */
    return (ctn_dquat){q.w / n, q.x / n, q.y / n, q.z / n};
}
