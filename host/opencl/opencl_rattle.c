/* The RATTLE integrator's stages on the OpenCL device (host/solve/pipeline.c run_rattle drives them; the
 * equations, Andersen 1983 with the rigid-body drift of Dullweber, Leimkuhler and McLachlan 1997, are in
 * kernels/ctn_rattle.h, whose per-item functions kernels/catena_rattle.cl wraps, as the CPU's loops in
 * host/solve/solver_cpu.c call them). The exact solves are the backend's own (host/opencl/opencl_direct.c,
 * opencl_forest.c): the velocity stage's SOLVE factors A_n = J(x_n) M^-1 J(x_n)^T and the position stage's
 * chord iterations solve through that factor with r itself (CTN_DD_RESOLVE_FULL of kernels/ctn_direct_rhs.h).
 * Each chord iteration reads one float, its largest row error (the driver stops on it), as the CPU's. */
#include "opencl/opencl_internal.h"

#include <math.h>

static ctn_status reserve(ctn_world *w, ctn_ocl *o) {
    size_t n = (size_t)w->body_count, m = (size_t)w->topo.joint_count;
    TRY(ctn__ocl_reserve(w, o, &o->rattle_pose, n * sizeof(ctn_pose), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->rattle_vel, n * sizeof(ctn_vel), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->rattle_back, n * sizeof(ctn_vel), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->rattle_err, (n + m) * sizeof(float), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->rattle_top, 4 * sizeof(float), NULL));
    return ctn__ocl_reserve(w, o, &o->proj_vel, n * sizeof(ctn_vel), NULL);
}

/* The largest of the first `count` floats of rattle_err (one blocking read). */
static ctn_status read_max(ctn_world *w, ctn_ocl *o, int count, float *top) {
    float r[3] = {0};
    *top = 0.0f;
    if (count <= 0) return CTN_OK;
    TRY(ctn__ocl_reduce_max(w, o, count, o->rattle_err.mem, o->rattle_top.mem));
    TRY(ctn__ocl_check(w, clEnqueueReadBuffer(o->queue, o->rattle_top.mem, CL_TRUE, 0, sizeof r, r, 0, NULL, NULL),
                       "rattle: reading the largest error"));
    o->step_reads++;
    *top = r[1];
    return CTN_OK;
}

static ctn_status launch(ctn_world *w, ctn_ocl *o, int k, int items, const char *what) {
    if (items <= 0) return CTN_OK;
    return ctn__ocl_enqueue(w, o, k, (size_t)items, NULL, what);
}

/* C(x^k) into the kept rows' targets (ctn_rattle_slot), the slot errors into rattle_err. */
static ctn_status rows(ctn_world *w, ctn_ocl *o, float h) {
    int m = w->topo.joint_count, k = CTN_K_RATTLE_ROWS;
    ARG(RATTLE_ROWS, m, m);
    ARG(RATTLE_ROWS, defs, o->defs.mem);
    ARG(RATTLE_ROWS, pose, o->pose.mem);
    ARG(RATTLE_ROWS, vel, o->vel.mem);
    ARG(RATTLE_ROWS, h, h);
    ARG(RATTLE_ROWS, blocks, o->blocks.mem);
    ARG(RATTLE_ROWS, err, o->rattle_err.mem);
    return launch(w, o, k, m, "rattle: constraint errors");
}

/* A factor of the rows in blocks; the solve that comes with it is taken back (velocities and impulses as
 * before: the CPU's ctn__direct_factor factors alone). rattle_back holds the velocities meanwhile. */
static ctn_status factor(ctn_world *w, ctn_ocl *o) {
    size_t nb = (size_t)w->body_count * sizeof(ctn_vel), lb = ctn__ocl_impulse_bytes(w);
    TRY(ctn__ocl_reserve(w, o, &o->proj_lambda, ctn__ocl_impulse_room(w), NULL));
    TRY(ctn__ocl_copy(w, o, o->vel.mem, o->rattle_back.mem, nb, "rattle: keeping the velocities"));
    TRY(ctn__ocl_copy(w, o, o->lambda.mem, o->proj_lambda.mem, lb, "rattle: keeping the impulses"));
    TRY(ctn__ocl_direct_rattle_solve(w, o, 0));
    TRY(ctn__ocl_copy(w, o, o->rattle_back.mem, o->vel.mem, nb, "rattle: the velocities back"));
    return ctn__ocl_copy(w, o, o->proj_lambda.mem, o->lambda.mem, lb, "rattle: the impulses back");
}

ctn_status ctn__ocl_rattle_stage(ctn_world *w, ctn_ocl *o, ctn_stage stage, const ctn_step_params *prm, ctn_stage_out *out) {
    int n = w->body_count, m = w->topo.joint_count, k;
    size_t nb = (size_t)n * sizeof(ctn_vel);
    TRY(reserve(w, o));
    switch (stage) {
    case CTN_STAGE_RATTLE_ENTER: { /* A_n has no h in it: valid for any substep length */
        k = CTN_K_RATTLE_SPEED;
        ARG(RATTLE_SPEED, n, n);
        ARG(RATTLE_SPEED, m, m);
        ARG(RATTLE_SPEED, vel, o->vel.mem);
        ARG(RATTLE_SPEED, defs, o->defs.mem);
        ARG(RATTLE_SPEED, out, o->rattle_err.mem);
        TRY(launch(w, o, k, n + m, "rattle: turn rates"));
        out->deferred = o->rattle_valid;
        float top;
        TRY(read_max(w, o, n + m, &top));
        out->max_speed = top;
        return CTN_OK;
    }
    case CTN_STAGE_RATTLE_START:
        k = CTN_K_RATTLE_START;
        ARG(RATTLE_START, n, n);
        ARG(RATTLE_START, m, m);
        ARG(RATTLE_START, pose, o->pose.mem);
        ARG(RATTLE_START, vel, o->vel.mem);
        ARG(RATTLE_START, kept, o->rattle_pose.mem);
        ARG(RATTLE_START, kept_vel, o->rattle_vel.mem);
        ARG(RATTLE_START, lambda, o->lambda.mem);
        ARG(RATTLE_START, ls, w->topo.stride);
        ARG(RATTLE_START, blocks, o->blocks.mem);
        return launch(w, o, k, n > m ? n : m, "rattle: substep start");
    case CTN_STAGE_RATTLE_UNDO:
        TRY(ctn__ocl_copy(w, o, o->rattle_pose.mem, o->pose.mem, (size_t)n * sizeof(ctn_pose), "rattle: undoing the poses"));
        return ctn__ocl_copy(w, o, o->rattle_vel.mem, o->vel.mem, nb, "rattle: undoing the velocities");
    case CTN_STAGE_RATTLE_RESOLVE:
        TRY(ctn__ocl_copy(w, o, o->vel.mem, o->rattle_back.mem, nb, "rattle: keeping the velocities")); /* for RATTLE_BACK */
        return ctn__ocl_direct_rattle_solve(w, o, 1);
    case CTN_STAGE_RATTLE_FACTOR: return factor(w, o);
    case CTN_STAGE_RATTLE_BACK: return ctn__ocl_copy(w, o, o->rattle_back.mem, o->vel.mem, nb, "rattle: the velocities back");
    case CTN_STAGE_RATTLE_DRIFT:
        k = CTN_K_RATTLE_DRIFT;
        ARG(RATTLE_DRIFT, n, n);
        ARG(RATTLE_DRIFT, start, o->rattle_pose.mem);
        ARG(RATTLE_DRIFT, pose, o->pose.mem);
        ARG(RATTLE_DRIFT, vel, o->vel.mem);
        ARG(RATTLE_DRIFT, props, o->props.mem);
        ARG(RATTLE_DRIFT, h, prm->h);
        return launch(w, o, k, n, "rattle: drift");
    case CTN_STAGE_RATTLE_ROWS:
        TRY(rows(w, o, prm->h));
        return read_max(w, o, m, &out->worst);
    case CTN_STAGE_RATTLE_MOMENTUM:
        k = CTN_K_RATTLE_MOMENTUM;
        ARG(RATTLE_MOMENTUM, n, n);
        ARG(RATTLE_MOMENTUM, start, o->rattle_pose.mem);
        ARG(RATTLE_MOMENTUM, pose, o->pose.mem);
        ARG(RATTLE_MOMENTUM, vel, o->vel.mem);
        ARG(RATTLE_MOMENTUM, props, o->props.mem);
        ARG(RATTLE_MOMENTUM, inertia, o->inertia.mem);
        ARG(RATTLE_MOMENTUM, rest, o->proj_vel.mem);
        /* also the projection's scratch velocities at rest: REST_VELOCITIES, which this entry covers when the
         * projection follows (ctn__ocl_plan) */
        return launch(w, o, k, n, "rattle: momentum at the new orientation");
    case CTN_STAGE_RATTLE_LEAVE: /* after the velocity stage (its SOLVE, run whole, left its residual in r2) */
        o->rattle_valid = 1, o->rattle_version = w->topology_version;
        return CTN_OK;
    case CTN_STAGE_RATTLE_NEWTON: /* the rows J_k of the drifted poses x^k, the factor of J_k M_n^-1 J_k^T, C(x^k) */
        TRY(ctn__ocl_run_stage(w, &(ctn_stage_entry){CTN_STAGE_PREPARE, CTN_TIMER_PREPARE, CTN_STAGE_BIT(CTN_STAGE_PREPARE), CTN_PRM_STEP}, prm, NULL));
        TRY(factor(w, o));
        return rows(w, o, prm->h);
    case CTN_STAGE_INERTIA:
        k = CTN_K_RATTLE_INERTIA;
        ARG(RATTLE_INERTIA, n, n);
        ARG(RATTLE_INERTIA, pose, o->pose.mem);
        ARG(RATTLE_INERTIA, props, o->props.mem);
        ARG(RATTLE_INERTIA, inertia, o->inertia.mem);
        return launch(w, o, k, n, "rattle: inverse inertia");
    default: break;
    }
    return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "rattle: unknown pipeline stage %d", (int)stage);
}

void ctn__ocl_rattle_release(ctn_ocl *o) {
    ctn_clbuf *bufs[] = {&o->rattle_pose, &o->rattle_vel, &o->rattle_back, &o->rattle_err, &o->rattle_top};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
        if (bufs[i]->mem) clReleaseMemObject(bufs[i]->mem);
}
