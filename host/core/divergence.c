/* Divergence guard: a step that produces a non-finite value or a body faster than desc.max_speed is
 * undone, so the caller gets CTN_ERR_DIVERGED with the world exactly as it was before the step and can
 * retry with a smaller time step, more substeps, or stop with its data intact.
 *
 * The CPU backend works on the host arrays, so it copies them before the step (pose, velocity, inverse
 * inertia, warm-start impulses: about 100 bytes per body, a memcpy) and puts the copy back when the step
 * pipeline's check (host/solve/pipeline.c) finds a bad body. */
#include "core/world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

ctn_status ctn__snapshot_take(ctn_world *w) {
    int n = w->body_count;
    int rows = 6 * w->topo.joint_count;
    if (n > w->snapshot_bodies) {
        size_t cap = (size_t)n + (size_t)n / 2 + 16;
        if (ctn__mul_overflows(cap, sizeof(ctn_inertia)) || ctn__mul_overflows(cap, sizeof(ctn_pose)))
            return ctn__fail(w, CTN_ERR_LIMIT, "divergence snapshot of %d bodies does not fit the address space", n);
        ctn_pose *p = realloc(w->snapshot_pose, cap * sizeof *p);
        if (p) w->snapshot_pose = p;
        ctn_vel *v = p ? realloc(w->snapshot_vel, cap * sizeof *v) : NULL;
        if (v) w->snapshot_vel = v;
        ctn_inertia *in = v ? realloc(w->snapshot_inertia, cap * sizeof *in) : NULL;
        if (in) w->snapshot_inertia = in;
        if (!in) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for the divergence snapshot (%d bodies)", n);
        w->snapshot_bodies = (int)cap;
    }
    if (rows > w->snapshot_rows) {
        size_t cap = (size_t)rows + (size_t)rows / 2 + 16;
        float *l = realloc(w->snapshot_lambda, cap * sizeof *l);
        if (!l) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for the divergence snapshot (%d rows)", rows);
        w->snapshot_lambda = l;
        w->snapshot_rows = (int)cap;
    }
    if (n == 0) return CTN_OK; /* an empty world: nothing to copy (and memcpy must not see its NULL arrays) */
    memcpy(w->snapshot_pose, w->pose, (size_t)n * sizeof *w->pose);
    memcpy(w->snapshot_vel, w->vel, (size_t)n * sizeof *w->vel);
    memcpy(w->snapshot_inertia, w->inertia, (size_t)n * sizeof *w->inertia);
    if (rows) memcpy(w->snapshot_lambda, w->topo.lambda, (size_t)rows * sizeof *w->topo.lambda);
    return CTN_OK;
}

void ctn__snapshot_restore(ctn_world *w) {
    int n = w->body_count;
    if (n == 0) return;
    memcpy(w->pose, w->snapshot_pose, (size_t)n * sizeof *w->pose);
    memcpy(w->vel, w->snapshot_vel, (size_t)n * sizeof *w->vel);
    memcpy(w->inertia, w->snapshot_inertia, (size_t)n * sizeof *w->inertia);
    if (w->topo.joint_count) memcpy(w->topo.lambda, w->snapshot_lambda, 6 * (size_t)w->topo.joint_count * sizeof *w->topo.lambda);
    w->bodies_dirty = 1;
}

void ctn__snapshot_free(ctn_world *w) {
    free(w->snapshot_pose);
    free(w->snapshot_vel);
    free(w->snapshot_inertia);
    free(w->snapshot_lambda);
    w->snapshot_pose = NULL;
    w->snapshot_vel = NULL;
    w->snapshot_inertia = NULL;
    w->snapshot_lambda = NULL;
    w->snapshot_bodies = w->snapshot_rows = 0;
}

static int finite_v3(ctn_v3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

/* One body: CTN_OK, or CTN_ERR_DIVERGED with the message naming it. Shared with the OpenCL backend, which
 * finds the first offending body on the device and reads back only that one. */
ctn_status ctn__divergence_body(ctn_world *w, int i, const ctn_pose *p, const ctn_vel *v, double *speed) {
    double limit = w->desc.max_speed > 0.0 ? w->desc.max_speed : INFINITY;
    if (!finite_v3(p->p) || !finite_v3(p->p_lo) || !isfinite(p->q.w) || !isfinite(p->q.x) || !isfinite(p->q.y) || !isfinite(p->q.z))
        return ctn__fail(w, CTN_ERR_DIVERGED, "step diverged: body %lld has a non-finite pose; the step was undone",
                         (long long)ctn__body_handle(w, i));
    if (!finite_v3(v->v) || !finite_v3(v->w))
        return ctn__fail(w, CTN_ERR_DIVERGED, "step diverged: body %lld has a non-finite velocity; the step was undone",
                         (long long)ctn__body_handle(w, i));
    double sv = ctn_length(v->v), sw = ctn_length(v->w);
    double s = sv > sw ? sv : sw;
    *speed = s;
    if (s > limit)
        return ctn__fail(w, CTN_ERR_DIVERGED, "step diverged: body %lld reached %g %s (desc.max_speed %g); the step was undone",
                         (long long)ctn__body_handle(w, i), s,
                         sv >= sw ? "m/s" : "rad/s", limit);
    return CTN_OK;
}
