/* Dense 3x3 double-precision matrix helpers for host code that builds body frames from inertia tensors
 * (composite bodies of attachments, URDF links). */
#ifndef CTN_HOST_DMAT3_H
#define CTN_HOST_DMAT3_H

#include "core/dquat.h"

/* Eigen-decomposition a = V diag(e) V^T of the symmetric 3x3 matrix a by cyclic Jacobi rotations (Golub
 * and Van Loan 2013, "Matrix Computations", section 8.5), V a rotation (det +1). A diagonal a gives V = I
 * exactly. */
void ctn__sym3_eigen(const double a[3][3], double e[3], double V[3][3]);

/* Unit quaternion of the rotation matrix R (Shepperd 1978: from the largest of the trace and the three
 * diagonal entries, the best-conditioned of the four formulas). */
ctn_dquat ctn__dq_of_matrix(const double R[3][3]);

#endif /* CTN_HOST_DMAT3_H */
