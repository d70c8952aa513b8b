/* Divergence and fault recovery on the OpenCL backend: the device copy of the state a step starts from (put back when the step
 * diverges), the one body read back for the divergence message, and the recovery after a device fault. */
#include "opencl/opencl_internal.h"

#include <stdio.h>

/* Pose and velocity of one body from the device (the divergence message). */
ctn_status ctn__ocl_read_body(ctn_world *w, int i, ctn_pose *p, ctn_vel *v) {
    ctn_ocl *o = w->backend_data;
    cl_int e = clEnqueueReadBuffer(o->queue, o->pose.mem, CL_TRUE, (size_t)i * sizeof *p, sizeof *p, p, 0, NULL, NULL);
    if (e == CL_SUCCESS) e = clEnqueueReadBuffer(o->queue, o->vel.mem, CL_TRUE, (size_t)i * sizeof *v, sizeof *v, v, 0, NULL, NULL);
    return ctn__ocl_check(w, e, "reading the diverged body");
}

/* Device-side copy of the state the step starts from (after this step's uploads). */
ctn_status ctn__ocl_snapshot_take(ctn_world *w, ctn_ocl *o) {
    size_t n = (size_t)w->body_count;
    TRY(ctn__ocl_reserve(w, o, &o->snap_pose, n * sizeof(ctn_pose), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->snap_vel, n * sizeof(ctn_vel), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->snap_inertia, n * sizeof(ctn_inertia), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->snap_lambda, ctn__ocl_impulse_room(w), NULL));
    TRY(ctn__ocl_copy(w, o, o->pose.mem, o->snap_pose.mem, n * sizeof(ctn_pose), "snapshot of the poses"));
    TRY(ctn__ocl_copy(w, o, o->vel.mem, o->snap_vel.mem, n * sizeof(ctn_vel), "snapshot of the velocities"));
    TRY(ctn__ocl_copy(w, o, o->inertia.mem, o->snap_inertia.mem, n * sizeof(ctn_inertia), "snapshot of the inertias"));
    TRY(ctn__ocl_copy(w, o, o->lambda.mem, o->snap_lambda.mem, ctn__ocl_impulse_bytes(w), "snapshot of the impulses"));
    o->snap_taken = 1;
    return CTN_OK;
}

/* Puts the snapshot back on the device (a diverged step is undone without touching the host). */
ctn_status ctn__ocl_restore(ctn_world *w) {
    ctn_ocl *o = w->backend_data;
    size_t n = (size_t)w->body_count;
    o->rattle_valid = 0; /* the kept rows and factor are not those of the restored poses */
    TRY(ctn__ocl_copy(w, o, o->snap_pose.mem, o->pose.mem, n * sizeof(ctn_pose), "restoring the poses"));
    TRY(ctn__ocl_copy(w, o, o->snap_vel.mem, o->vel.mem, n * sizeof(ctn_vel), "restoring the velocities"));
    TRY(ctn__ocl_copy(w, o, o->snap_inertia.mem, o->inertia.mem, n * sizeof(ctn_inertia), "restoring the inertias"));
    TRY(ctn__ocl_copy(w, o, o->snap_lambda.mem, o->lambda.mem, ctn__ocl_impulse_bytes(w), "restoring the impulses"));
    return ctn__ocl_check(w, clFinish(o->queue), "clFinish");
}

/* After a failed step, brings the state the step started from (the last good state) into the
 * host arrays: the device snapshot when this step took one, else the device arrays (untouched by the
 * failed step) when the host is stale. On success the host is current (host_stale 0) and the next step
 * re-uploads everything, so a world on explicit `opencl` can retry and a world on `auto` can go on on the
 * CPU backend (ctn_world_step). When the device cannot be read the host stays stale and says so. */
ctn_status ctn__ocl_recover_after_fault(ctn_world *w, ctn_ocl *o, ctn_status s) {
    char why[sizeof w->error];
    snprintf(why, sizeof why, "%s", w->error);
    size_t n = (size_t)w->body_count;
    o->rattle_valid = 0;
    clFinish(o->queue);
    if (o->snap_taken || w->host_stale) {
        int snap = o->snap_taken;
        ctn_status r = ctn__ocl_read(w, o, snap ? &o->snap_pose : &o->pose, w->pose, n * sizeof(ctn_pose), "poses");
        if (r == CTN_OK) r = ctn__ocl_read(w, o, snap ? &o->snap_vel : &o->vel, w->vel, n * sizeof(ctn_vel), "velocities");
        if (r == CTN_OK) r = ctn__ocl_read(w, o, snap ? &o->snap_inertia : &o->inertia, w->inertia, n * sizeof(ctn_inertia), "inertias");
        if (r == CTN_OK && (snap || o->have_layout))
            r = ctn__ocl_read(w, o, snap ? &o->snap_lambda : &o->lambda, w->topo.lambda, ctn__ocl_impulse_bytes(w), "impulses");
        if (r != CTN_OK) {
            w->host_stale = 1;
            return ctn__fail(w, s, "%s; the state before the step could not be read back (%s)", why, w->error);
        }
    }
    w->host_stale = 0;
    w->bodies_dirty = 1;
    o->have_layout = 0;
    return ctn__fail(w, s, "%s; the world holds the state before this step", why);
}
