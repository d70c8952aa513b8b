/* Double-precision quaternion and 3-vector helpers for host code that composes body frames (attachments, URDF import) or evaluates joint errors in double (ctn_world_assemble).
 * Quaternions are (w, x, y, z) as in catena.h; the formulas are those of kernels/ctn_math.h in double. */
#ifndef CTN_HOST_DQUAT_H
#define CTN_HOST_DQUAT_H

#include "ctn_math.h"

#include <math.h>

typedef struct ctn_dquat {
    double w, x, y, z;
} ctn_dquat;

static inline ctn_dquat ctn_dq_of(ctn_quat q) {
    double n = sqrt((double)q.w * q.w + (double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z);
    ctn_dquat r = {q.w / n, q.x / n, q.y / n, q.z / n};
    return r;
}
static inline ctn_quat ctn_dq_to_float(ctn_dquat q) {
    double n = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    return ctn_quat_make((float)(q.w / n), (float)(q.x / n), (float)(q.y / n), (float)(q.z / n));
}
static inline ctn_dquat ctn_dq_mul(ctn_dquat a, ctn_dquat b) {
    ctn_dquat r = {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                   a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
    return r;
}
static inline ctn_dquat ctn_dq_conj(ctn_dquat q) {
    ctn_dquat r = {q.w, -q.x, -q.y, -q.z};
    return r;
}
static inline void ctn_d3_cross(const double a[3], const double b[3], double out[3]) {
    double r[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    out[0] = r[0], out[1] = r[1], out[2] = r[2];
}
static inline double ctn_d3_dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
/* R(q) v for a unit q: v + 2 w (u x v) + 2 u x (u x v), u = (x, y, z). */
static inline void ctn_dq_rotate(ctn_dquat q, const double v[3], double out[3]) {
    double u[3] = {q.x, q.y, q.z}, t[3], c[3];
    ctn_d3_cross(u, v, t);
    for (int k = 0; k < 3; ++k) t[k] *= 2.0;
    ctn_d3_cross(u, t, c);
    for (int k = 0; k < 3; ++k) out[k] = v[k] + q.w * t[k] + c[k];
}
static inline ctn_v3 ctn_d3_to_float(const double v[3]) { return ctn_v3_make((float)v[0], (float)v[1], (float)v[2]); }
static inline void ctn_d3_of(ctn_v3 v, double out[3]) { out[0] = v.x, out[1] = v.y, out[2] = v.z; }

#endif /* CTN_HOST_DQUAT_H */
