/* The exact solver's position projection on the OpenCL device (host/solve/pipeline.c project_steps):
 * its stages as launches of kernels/catena_stages.cl and, on a chain, of the chain solve
 * (host/opencl/opencl_direct.c). Called by the stage dispatch of host/opencl/opencl_stages.c. */
#include "opencl/opencl_internal.h"
#include "ctn_solver.h"

#include <math.h>
#include <string.h>

/* ---- the position projection (host/solve/pipeline.c project_steps) --------------------------------- */
/* The device decides its Newton steps (ctn_project_decide) without a read, so the host picks how many full
 * steps to enqueue before the step: the count the previous projection's decisions let run plus
 * CTN_PROJECT_DEVICE_MARGIN (kernels/ctn_solver.h), or CTN_PROJECT_MAX for the first step and after a
 * projection that was still going when its enqueued steps ran out. The decision needs the largest error
 * of all slots: the rows launch joins it into the Newton record by an atomic maximum of its bits (exact,
 * order-free), and the launch after it decides from the record (ctn_project_decided, kernels/catena_stages.cl).
 * Launches per projection on a chain whose every joint is a position: per full step 5 (the rows with the
 * assembly, the factor deciding, separators, back-substitution, velocities with the integration), the
 * check 1 (rows); entering is the last substep's integration's, leaving the statistics' (ctn_k_measure).
 * Elsewhere (forests, the hybrid without an exact solve) a full step is the rows, ctn_k_project_decide, the
 * solve and ctn_k_project_integrate. */

/* The plan for the next step from the counts of the step's one blocking read (stats[CTN_OCL_STATS_PROJECT]):
 * the most Newton steps any of the last CTN_PROJECT_DEVICE_WINDOW projections needed, plus the margin. */
void ctn__ocl_project_plan(ctn_ocl *o, const float *stats) {
    if (o->proj_enqueued <= 0) return; /* no projection this step */
    int32_t steps, going;
    memcpy(&steps, &stats[CTN_OCL_STATS_PROJECT], sizeof steps);
    memcpy(&going, &stats[CTN_OCL_STATS_PROJECT + 1], sizeof going);
    int cut = going && o->proj_enqueued < CTN_PROJECT_MAX; /* stopped above the tolerance: needed more */
    int need = cut ? o->proj_enqueued + 1 : steps;
    o->proj_need[o->proj_seen++ % CTN_PROJECT_DEVICE_WINDOW] = (unsigned char)(need < 0 ? 0 : need > CTN_PROJECT_MAX ? CTN_PROJECT_MAX : need);
    int most = 0, seen = o->proj_seen < CTN_PROJECT_DEVICE_WINDOW ? o->proj_seen : CTN_PROJECT_DEVICE_WINDOW;
    for (int i = 0; i < seen; ++i) most = o->proj_need[i] > most ? o->proj_need[i] : most;
    int next = cut ? CTN_PROJECT_MAX : most + CTN_PROJECT_DEVICE_MARGIN;
    o->proj_full = next < 1 ? 1 : next > CTN_PROJECT_MAX ? CTN_PROJECT_MAX : next;
}

/* Scratch velocities, impulses and residuals swapped in; the real ones wait in real_* (the metric reads
 * the real impulses, the exact solver works on whatever vel, lambda and r2 hold). The scratch velocities
 * were put at rest and the metric's inertia built by the entry before, which covers REST_VELOCITIES (the last
 * substep's integration, whose entry this is, or RATTLE's momentum and geometric-stiffness inertia:
 * ctn__ocl_plan); the Newton record starts. out->deferred: the full steps. */
ctn_status ctn__ocl_project_enter(ctn_world *w, ctn_ocl *o, ctn_step_params prm, ctn_stage_out *out) {
    size_t n = (size_t)w->body_count, m = (size_t)w->topo.joint_count;
    (void)prm;
    TRY(ctn__ocl_reserve(w, o, &o->proj_vel, n * sizeof(ctn_vel), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->proj_pose, n * sizeof(ctn_pose), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->proj_lambda, ctn__ocl_impulse_room(w), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->proj_r2, m * sizeof(float), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->proj_err, m * sizeof(float), NULL));
    union {
        cl_int i;
        float f;
    } inf = {.f = INFINITY};
    /* active, nothing kept, no undo, last error +inf, no steps, no error folded yet */
    cl_int start[CTN_PS_RECORD] = {1, 0, 0, inf.i, 0, 0};
    _Static_assert(CTN_PS_WORST < CTN_PS_RECORD && CTN_PS_ACTIVE == 0 && CTN_PS_LAST == 3, "the Newton record's start fits");
    TRY(ctn__ocl_reserve(w, o, &o->proj_state, sizeof start, NULL));
    TRY(ctn__ocl_reserve(w, o, &o->proj_next, sizeof start, NULL));
    TRY(ctn__ocl_check(w, clEnqueueFillBuffer(o->queue, o->proj_state.mem, start, sizeof start, 0, sizeof start, 0, NULL, NULL),
                       "projection: the Newton state"));
    o->real_vel = o->vel, o->real_lambda = o->lambda, o->real_r2 = o->r2;
    o->vel = o->proj_vel, o->lambda = o->proj_lambda, o->r2 = o->proj_r2;
    o->projecting = 1;
    o->proj_enqueued = o->proj_full > 0 ? o->proj_full : CTN_PROJECT_MAX;
    if (out) out->deferred = o->proj_enqueued;
    return CTN_OK;
}

void ctn__ocl_project_swap(ctn_ocl *o) {
    ctn_clbuf t = o->proj_state;
    o->proj_state = o->proj_next, o->proj_next = t;
}

/* The decision by a launch of its own (ctn_k_project_decide, one work-item), for a solve that does not
 * take it in its first kernel. */
ctn_status ctn__ocl_project_decide(ctn_world *w, ctn_ocl *o) {
    size_t one = 1;
    int k = CTN_K_PROJECT_DECIDE;
    ARG(PROJECT_DECIDE, from, o->proj_state.mem);
    ARG(PROJECT_DECIDE, to, o->proj_next.mem);
    TRY(ctn__ocl_enqueue(w, o, k, 1, &one, "projection: Newton decision"));
    ctn__ocl_project_swap(o);
    return CTN_OK;
}

/* The real arrays back; the undo of the last step (deciding on the check's rows when they wait for it),
 * the world inverse inertia of the poses and the Newton counts for the step's one blocking read are left
 * to the statistics' launch, which the entry that leaves covers (ctn_k_measure: one launch fewer). */
ctn_status ctn__ocl_project_leave(ctn_world *w, ctn_ocl *o, int *left, int *decide) {
    (void)w;
    /* a check (CTN_TABLE_PROJECT_CHECK) ended the steps below CTN_PROJECT_MAX: its rows await their decision.
     * The driver (host/solve/pipeline.c project_steps) runs that check exactly when the full steps it was given
     * (out->deferred of PROJECT_ENTER, which is proj_enqueued) are fewer than CTN_PROJECT_MAX: the same test on
     * the same count, so this state cannot disagree with the tables that ran. */
    *left = o->projecting, *decide = o->projecting && o->proj_enqueued < CTN_PROJECT_MAX;
    if (!o->projecting) return CTN_OK;
    o->proj_vel = o->vel, o->proj_lambda = o->lambda, o->proj_r2 = o->r2;
    o->vel = o->real_vel, o->lambda = o->real_lambda, o->r2 = o->real_r2;
    o->projecting = 0;
    return CTN_OK;
}

/* The scratch impulses cleared for the next Newton step (its velocities were put at rest by
 * the last substep's integration or the last Newton step's). */
ctn_status ctn__ocl_project_rest(ctn_world *w, ctn_ocl *o) {
    float zero = 0.0f;
    size_t bytes = ctn__ocl_impulse_bytes(w);
    if (bytes == 0) return CTN_OK;
    return ctn__ocl_check(w, clEnqueueFillBuffer(o->queue, o->lambda.mem, &zero, sizeof zero, 0, bytes, 0, NULL, NULL),
                          "projection: clearing the scratch impulses");
}

/* Rows, rigid bilateral rows kept and the largest error into the Newton record (ctn_k_project_prepare);
 * the decision waits for the next kernel (PROJECT_ROWS launches nothing). */
static ctn_status project_rows(ctn_world *w, ctn_ocl *o, ctn_step_params prm, int residual) {
    int m = w->topo.joint_count, k = CTN_K_PROJECT_PREPARE;
    ARG(PROJECT_PREPARE, m, m);
    ARG(PROJECT_PREPARE, defs, o->defs.mem);
    ARG(PROJECT_PREPARE, pose, o->pose.mem);
    ARG(PROJECT_PREPARE, vel, o->vel.mem);
    ARG(PROJECT_PREPARE, inertia, o->inertia.mem);
    ARG(PROJECT_PREPARE, split, o->split.mem);
    ARG(PROJECT_PREPARE, prm, prm);
    ARG(PROJECT_PREPARE, blocks, o->blocks.mem);
    ARG(PROJECT_PREPARE, err, o->proj_err.mem);
    ARG(PROJECT_PREPARE, state, o->proj_state.mem);
    LOCAL_ARG(PROJECT_PREPARE, scratch, o->local[k] * sizeof(float));
    ARG(PROJECT_PREPARE, residual, residual);
    ARG(PROJECT_PREPARE, real_vel, o->real_vel.mem);
    ARG(PROJECT_PREPARE, real_lambda, o->real_lambda.mem);
    ARG(PROJECT_PREPARE, ls, w->topo.stride);
    ARG(PROJECT_PREPARE, r2, o->real_r2.mem);
    TRY(ctn__ocl_launch(w, o, k, (size_t)m, residual ? "projection: rows and the last substep's residual" : "projection: rows"));
    return CTN_OK;
}

/* The projection's PREPARE [PREPARE + PROJECT_ROWS], in its first step with the last substep's RESIDUAL. (On a chain whose every joint is a position, a Newton
 * step's rows are the solve's assembly's: its SOLVE entry covers PREPARE and PROJECT_ROWS, ctn__ocl_plan.) */
ctn_status ctn__ocl_project_prepare(ctn_world *w, ctn_ocl *o, ctn_step_params prm, int residual) {
    return project_rows(w, o, prm, residual);
}

/* A Newton step's x += h v, the metric's inertia at the new poses and the velocities at rest again
 * (ctn_k_project_integrate: keeps, undoes, or does nothing after the decision); on a chain with the
 * solve's velocities (ctn__ocl_direct_velocity_project). */
ctn_status ctn__ocl_project_integrate(ctn_world *w, ctn_ocl *o, ctn_step_params prm, uint64_t covers) {
    if (covers & CTN_STAGE_BIT(CTN_STAGE_VELOCITIES)) return ctn__ocl_direct_velocity_project(w, o, &prm);
    int n = w->body_count, k = CTN_K_PROJECT_INTEGRATE;
    float gs_h = prm.geometric_stiffness > 0.0f ? prm.geometric_stiffness * prm.h : 0.0f;
    ARG(PROJECT_INTEGRATE, n, n);
    ARG(PROJECT_INTEGRATE, pose, o->pose.mem);
    ARG(PROJECT_INTEGRATE, vel, o->vel.mem);
    ARG(PROJECT_INTEGRATE, props, o->props.mem);
    ARG(PROJECT_INTEGRATE, inertia, o->inertia.mem);
    ARG(PROJECT_INTEGRATE, h, prm.h);
    ARG(PROJECT_INTEGRATE, kept, o->proj_pose.mem);
    ARG(PROJECT_INTEGRATE, state, o->proj_state.mem);
    ARG(PROJECT_INTEGRATE, adj_offsets, o->adj_offsets.mem);
    ARG(PROJECT_INTEGRATE, adj, o->adj.mem);
    ARG(PROJECT_INTEGRATE, defs, o->defs.mem);
    ARG(PROJECT_INTEGRATE, lambda, o->real_lambda.mem);
    ARG(PROJECT_INTEGRATE, ls, w->topo.stride);
    ARG(PROJECT_INTEGRATE, gs_h, gs_h);
    return ctn__ocl_launch(w, o, k, (size_t)n, "projection: integration");
}
