/* The stages of the step pipeline (host/solve/pipeline.h) on the OpenCL device: each is one or a few
 * launches of the kernels of kernels/catena.cl, which wrap the per-item functions the CPU backend loops
 * over. All body and row data stay on the device; the stage that measures joins the step's one blocking
 * read (residual, joint errors, largest speed, first bad body). A stage whose work is per body or per slot
 * and reads nothing another item of the next stage writes joins that stage's launch, and the substep table
 * says so (ctn__ocl_plan): one entry covers both. */
#include "opencl/opencl_internal.h"
#include "ctn_solver.h"

#include <clblast_c.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows per slot; gs_h > 0: with the geometric-stiffness inertia (an entry that covers GEOMETRIC_INERTIA). */
static ctn_status run_prepare(ctn_world *w, ctn_ocl *o, ctn_step_params prm, float gs_h) {
    int m = w->topo.joint_count, n = w->body_count, k = CTN_K_PREPARE;
    ARG(PREPARE, m, m);
    ARG(PREPARE, defs, o->defs.mem);
    ARG(PREPARE, pose, o->pose.mem);
    ARG(PREPARE, vel, o->vel.mem);
    ARG(PREPARE, inertia, o->inertia.mem);
    ARG(PREPARE, split, o->split.mem);
    ARG(PREPARE, prm, prm);
    ARG(PREPARE, blocks, o->blocks.mem);
    ARG(PREPARE, n, n);
    ARG(PREPARE, gs_h, gs_h);
    ARG(PREPARE, props, o->props.mem);
    ARG(PREPARE, adj_offsets, o->adj_offsets.mem);
    ARG(PREPARE, adj, o->adj.mem);
    ARG(PREPARE, lambda, o->lambda.mem);
    ARG(PREPARE, ls, w->topo.stride);
    ARG(PREPARE, points, o->points.mem);
    ARG(PREPARE, compact, o->compact);
    size_t items = (size_t)(gs_h > 0.0f && n > m ? n : m);
    return ctn__ocl_launch(w, o, k, items, gs_h > 0.0f ? "row build with the geometric-stiffness inertia" : "row build");
}

/* World inverse inertia with the geometric-stiffness term (ctn_geometric_inertia_body). */
static ctn_status run_geometric_inertia(ctn_world *w, ctn_ocl *o, float gs_h) {
    int n = w->body_count, k = CTN_K_GEOMETRIC_INERTIA;
    ARG(GEOMETRIC_INERTIA, n, n);
    ARG(GEOMETRIC_INERTIA, pose, o->pose.mem);
    ARG(GEOMETRIC_INERTIA, props, o->props.mem);
    ARG(GEOMETRIC_INERTIA, adj_offsets, o->adj_offsets.mem);
    ARG(GEOMETRIC_INERTIA, adj, o->adj.mem);
    ARG(GEOMETRIC_INERTIA, defs, o->defs.mem);
    ARG(GEOMETRIC_INERTIA, lambda, o->lambda.mem);
    ARG(GEOMETRIC_INERTIA, ls, w->topo.stride);
    ARG(GEOMETRIC_INERTIA, gs_h, gs_h);
    ARG(GEOMETRIC_INERTIA, inertia, o->inertia.mem);
    return ctn__ocl_launch(w, o, k, (size_t)n, "geometric-stiffness inertia");
}

/* External forces per body; gather: with the warm start's gather of `l` (ctn_k_forces, one launch). */
static ctn_status run_forces(ctn_world *w, ctn_ocl *o, ctn_step_params prm, int gather, cl_mem l, float scale) {
    int n = w->body_count, k = CTN_K_FORCES;
    cl_mem in = o->vel.mem;
    if (w->topo.spring_count > 0 && n > 0) {
        /* springs read a copy: a body's spring force must not see a neighbour's already updated velocity */
        cl_event ev = NULL;
        TRY(ctn__ocl_check(w, clEnqueueCopyBuffer(o->queue, o->vel.mem, o->vel_copy.mem, 0, 0, (size_t)n * sizeof(ctn_vel), 0, NULL,
                                                  o->profiling ? &ev : NULL),
                           "copying velocities for the spring forces"));
        ctn__ocl_note_event(o, ev);
        in = o->vel_copy.mem;
    }
    ARG(FORCES, n, n);
    ARG(FORCES, props, o->props.mem);
    int has_forces = w->body_force != NULL; /* else o->forces is a stand-in, not read */
    ARG(FORCES, forces, o->forces.mem);
    ARG(FORCES, has_forces, has_forces);
    ARG(FORCES, inertia, o->inertia.mem);
    ARG(FORCES, sadj_offsets, o->spring_adj_offsets.mem);
    ARG(FORCES, sadj, o->spring_adj.mem);
    ARG(FORCES, springs, o->springs.mem);
    ARG(FORCES, pose, o->pose.mem);
    ARG(FORCES, vel_in, in);
    ARG(FORCES, vel_out, o->vel.mem);
    ARG(FORCES, prm, prm);
    ARG(FORCES, gather, gather);
    ARG(FORCES, adj_offsets, o->adj_offsets.mem);
    ARG(FORCES, adj, o->adj.mem);
    ARG(FORCES, blocks, o->blocks.mem);
    ARG(FORCES, l, l);
    ARG(FORCES, ls, w->topo.stride);
    ARG(FORCES, scale, scale);
    ARG(FORCES, points, o->points.mem);
    ARG(FORCES, compact, o->compact);
    return ctn__ocl_launch(w, o, k, (size_t)n, gather ? "external forces and warm start" : "external forces");
}

/* v += scale M^-1 J^T l per body (Nelson 1998's Jacobian-transpose assembly). */
static ctn_status run_gather(ctn_world *w, ctn_ocl *o, cl_mem l, float scale) {
    int n = w->body_count, k = CTN_K_GATHER;
    ARG(GATHER, n, n);
    ARG(GATHER, adj_offsets, o->adj_offsets.mem);
    ARG(GATHER, adj, o->adj.mem);
    ARG(GATHER, blocks, o->blocks.mem);
    ARG(GATHER, l, l);
    ARG(GATHER, ls, w->topo.stride);
    ARG(GATHER, scale, scale);
    ARG(GATHER, vel, o->vel.mem);
    ARG(GATHER, inertia, o->inertia.mem);
    ARG(GATHER, points, o->points.mem);
    ARG(GATHER, compact, o->compact);
    return ctn__ocl_launch(w, o, k, (size_t)n, "impulse gather");
}

/* Warm start: lambda *= w (clBLAST scal), then v += M^-1 J^T lambda; forces (an entry that covers FORCES,
 * which comes right before it): in the launch of the substep's external forces. */
static ctn_status run_warm_start(ctn_world *w, ctn_ocl *o, const ctn_step_params *prm, int forces) {
    size_t len = (size_t)w->topo.stride * (size_t)w->topo.joint_count;
    float warm = w->warm_idle ? 0.0f : prm->warm_start; /* idle (host/solve/pipeline.c): lambda *= 0, no gather */
    if (len == 0) return forces ? run_forces(w, o, *prm, 0, o->lambda.mem, 0.0f) : CTN_OK;
    cl_event ev = NULL;
    CLBlastStatusCode s = CLBlastSscal(len, warm, o->lambda.mem, 0, 1, &o->queue, o->profiling ? &ev : NULL);
    if (s != CLBlastSuccess)
        return ctn__fail(w, CTN_ERR_DEVICE, "clBLAST Sscal (warm start): %s (%d)", ctn__clblast_status_name(s), (int)s);
    ctn__ocl_note_event(o, ev);
    if (forces) return run_forces(w, o, *prm, !w->warm_idle, o->lambda.mem, w->warm_idle ? 0.0f : 1.0f);
    return w->warm_idle ? CTN_OK : run_gather(w, o, o->lambda.mem, 1.0f);
}

/* Coloured block Gauss-Seidel: one launch per colour, then the overflow group on one work-item. */
static ctn_status solve_gs(ctn_world *w, ctn_ocl *o) {
    const ctn_topology *t = &w->topo;
    for (int it = 0; it < w->desc.iterations; ++it) {
        for (int c = 0; c <= t->colour_count; ++c) {
            int begin = t->colour_offsets[c], count = t->colour_offsets[c + 1] - begin;
            if (count == 0) continue;
            int k = c < t->colour_count ? CTN_K_GS_COLOUR : CTN_K_GS_SERIAL;
            if (k == CTN_K_GS_COLOUR) {
                ARG(GS_COLOUR, offset, begin);
                ARG(GS_COLOUR, count, count);
            } else {
                int end = begin + count;
                ARG(GS_SERIAL, begin, begin);
                ARG(GS_SERIAL, end, end);
            }
            ARG_OF2(k, GS_COLOUR, GS_SERIAL, defs, o->defs.mem);
            ARG_OF2(k, GS_COLOUR, GS_SERIAL, blocks, o->blocks.mem);
            ARG_OF2(k, GS_COLOUR, GS_SERIAL, lambda, o->lambda.mem);
            ARG_OF2(k, GS_COLOUR, GS_SERIAL, ls, w->topo.stride);
            ARG_OF2(k, GS_COLOUR, GS_SERIAL, vel, o->vel.mem);
            ARG_OF2(k, GS_COLOUR, GS_SERIAL, inertia, o->inertia.mem);
            ARG_OF2(k, GS_COLOUR, GS_SERIAL, r2, o->r2.mem);
            ARG_OF2(k, GS_COLOUR, GS_SERIAL, points, o->points.mem);
            ARG_OF2(k, GS_COLOUR, GS_SERIAL, compact, o->compact);
            TRY(ctn__ocl_launch(w, o, k, k == CTN_K_GS_COLOUR ? (size_t)count : 1, "Gauss-Seidel colour"));
        }
    }
    return CTN_OK;
}

/* Jacobi with mass splitting: all rows from the same velocities, then the per-body gather. */
static ctn_status solve_jacobi(ctn_world *w, ctn_ocl *o) {
    int m = w->topo.joint_count, k = CTN_K_JACOBI;
    for (int it = 0; it < w->desc.iterations; ++it) {
        ARG(JACOBI, m, m);
        ARG(JACOBI, defs, o->defs.mem);
        ARG(JACOBI, blocks, o->blocks.mem);
        ARG(JACOBI, lambda, o->lambda.mem);
        ARG(JACOBI, ls, w->topo.stride);
        ARG(JACOBI, vel, o->vel.mem);
        ARG(JACOBI, dlambda, o->dlambda.mem);
        ARG(JACOBI, r2, o->r2.mem);
        TRY(ctn__ocl_launch(w, o, k, (size_t)m, "Jacobi rows"));
        TRY(run_gather(w, o, o->dlambda.mem, 1.0f));
    }
    return CTN_OK;
}

/* Step 4. An entry that covers GEOMETRIC_INERTIA (not the last substep, ctn__ocl_plan) also forms the
 * geometric-stiffness inertia the next substep starts with (the same function at the same poses with the
 * same impulses), and the next substep's PREPARE does not. One that covers PROJECT_ENTER and REST_VELOCITIES
 * (the last substep of the exact solver, before the position projection of host/solve/pipeline.c) forms the
 * projection's metric (ctn_geometric_inertia_body at the new poses with the last substep's impulses) and puts
 * its scratch velocities at rest in the launch, then swaps the scratch arrays in (ctn__ocl_project_enter, no
 * launch; out: the steps to enqueue). One that covers VELOCITIES (the chain path) first applies the exact
 * solve's last velocity update per body, in the same launch. */
static ctn_status run_integrate(ctn_world *w, ctn_ocl *o, ctn_step_params prm, uint64_t covers, ctn_stage_out *out) {
    int n = w->body_count, k = CTN_K_INTEGRATE;
    int next = (covers & CTN_STAGE_BIT(CTN_STAGE_GEOMETRIC_INERTIA)) != 0;
    int begin = (covers & CTN_STAGE_BIT(CTN_STAGE_PROJECT_ENTER)) != 0;
    float gs_h = (next || begin) && prm.geometric_stiffness > 0.0f ? prm.geometric_stiffness * prm.h : 0.0f;
    if (begin) TRY(ctn__ocl_reserve(w, o, &o->proj_vel, (size_t)n * sizeof(ctn_vel), NULL));
    ARG(INTEGRATE, n, n);
    ARG(INTEGRATE, pose, o->pose.mem);
    ARG(INTEGRATE, vel, o->vel.mem);
    ARG(INTEGRATE, props, o->props.mem);
    ARG(INTEGRATE, inertia, o->inertia.mem);
    ARG(INTEGRATE, h, prm.h);
    ARG(INTEGRATE, adj_offsets, o->adj_offsets.mem);
    ARG(INTEGRATE, adj, o->adj.mem);
    ARG(INTEGRATE, defs, o->defs.mem);
    ARG(INTEGRATE, lambda, o->lambda.mem);
    ARG(INTEGRATE, ls, w->topo.stride);
    ARG(INTEGRATE, gs_h, gs_h);
    ARG(INTEGRATE, begin, begin);
    cl_mem rest = begin ? o->proj_vel.mem : o->vel.mem;
    ARG(INTEGRATE, rest, rest);
    if (covers & CTN_STAGE_BIT(CTN_STAGE_VELOCITIES)) TRY(ctn__ocl_direct_velocity_integrate(w, o, prm.h, gs_h, begin, rest)); /* on a chain */
    else TRY(ctn__ocl_launch(w, o, k, (size_t)n, begin ? "integration and the projection's metric" : "integration"));
    return begin ? ctn__ocl_project_enter(w, o, prm, out) : CTN_OK;
}

/* Deterministic two-pass reduction of n floats per array: out[0] = sum of x0, out[1] = max of x1,
 * out[2] = max of x2 (ctn_k_reduce3 + ctn_k_reduce3_final). */
static ctn_status run_reduce3(ctn_world *w, ctn_ocl *o, int n, cl_mem x0, cl_mem x1, cl_mem x2, cl_mem out) {
    size_t L = o->reduce_local;
    int groups = (int)(((size_t)n + L - 1) / L);
    if (groups > CTN_OCL_REDUCE_GROUPS) groups = CTN_OCL_REDUCE_GROUPS;
    int k = CTN_K_REDUCE3;
    ARG(REDUCE3, n, n);
    ARG(REDUCE3, x0, x0);
    ARG(REDUCE3, x1, x1);
    ARG(REDUCE3, x2, x2);
    ARG(REDUCE3, out, o->partial.mem);
    LOCAL_ARG(REDUCE3, scratch, 3 * L * sizeof(float));
    size_t global = (size_t)groups * L;
    TRY(ctn__ocl_enqueue(w, o, k, global, &L, "reduction"));
    k = CTN_K_REDUCE3_FINAL;
    ARG(REDUCE3_FINAL, groups, groups);
    ARG(REDUCE3_FINAL, partial, o->partial.mem);
    ARG(REDUCE3_FINAL, out, out);
    LOCAL_ARG(REDUCE3_FINAL, scratch, 3 * L * sizeof(float));
    return ctn__ocl_enqueue(w, o, k, L, &L, "reduction");
}

/* Joint errors and their reduction with the residual into stats[0..2]. */
static ctn_status run_measure(ctn_world *w, ctn_ocl *o) {
    int m = w->topo.joint_count;
    int k = CTN_K_JOINT_ERROR;
    ARG(JOINT_ERROR, m, m);
    ARG(JOINT_ERROR, defs, o->defs.mem);
    ARG(JOINT_ERROR, pose, o->pose.mem);
    ARG(JOINT_ERROR, gap, o->gap.mem);
    ARG(JOINT_ERROR, angle, o->angle.mem);
    TRY(ctn__ocl_launch(w, o, k, (size_t)m, "joint errors"));
    return run_reduce3(w, o, m, o->r2.mem, o->gap.mem, o->angle.mem, o->stats.mem);
}

/* The one blocking read of a step. */
static ctn_status read_stats(ctn_world *w, ctn_ocl *o, float *stats) {
    cl_event ev = NULL;
    /* CATENA_FAULT=device-lost@N / out-of-resources@N fail this read at step N */
    if (o->in_step && (o->fault_kind == CTN_FAULT_DEVICE_LOST || o->fault_kind == CTN_FAULT_OUT_OF_RESOURCES) && !o->fault_fired &&
        o->step_index == o->fault_step) {
        o->fault_fired = 1;
        clFinish(o->queue);
        return ctn__fail(w, CTN_ERR_DEVICE, "reading the step statistics: %s (injected by CATENA_FAULT)",
                         ctn__cl_error_name(o->fault_kind == CTN_FAULT_DEVICE_LOST ? CL_DEVICE_NOT_AVAILABLE : CL_OUT_OF_RESOURCES));
    }
    cl_int e = clEnqueueReadBuffer(o->queue, o->stats.mem, CL_TRUE, 0, CTN_OCL_STATS_FLOATS * sizeof(float), stats, 0, NULL,
                                   o->profiling && o->phase >= 0 ? &ev : NULL);
    if (e != CL_SUCCESS) return ctn__fail(w, CTN_ERR_DEVICE, "reading the step statistics: %s", ctn__cl_error_name(e));
    ctn__ocl_note_event(o, ev);
    o->step_reads++;
    return CTN_OK;
}

/* The step's statistics in two launches (ctn_k_measure, ctn_k_measure_final): joint errors with the
 * residuals into stats[0..2], the largest body speed, the first offending body and the first joint slot
 * with a non-finite impulse into stats[CTN_OCL_STATS_CHECK..+2]. No blocking read here: they join the step's one read. The sum of the
 * residuals is folded in a fixed order for a given device (G groups of L), so it is reproducible. leave: it
 * also finishes leaving the projection (the undo of its last step, deciding first when decide, and the
 * inertia of the final poses). */
static ctn_status run_step_stats(ctn_world *w, ctn_ocl *o, int leave, int decide) {
    int m = w->topo.joint_count, n = w->body_count, k = CTN_K_MEASURE;
    float limit = w->desc.max_speed > 0.0 ? (float)w->desc.max_speed : INFINITY;
    size_t L = o->measure_local, items = (size_t)(m > n ? m : n);
    int groups = (int)((items + L - 1) / L);
    if (groups > CTN_OCL_REDUCE_GROUPS) groups = CTN_OCL_REDUCE_GROUPS;
    if (groups < 1) groups = 1;
    ARG(MEASURE, m, m);
    ARG(MEASURE, n, n);
    ARG(MEASURE, defs, o->defs.mem);
    ARG(MEASURE, pose, o->pose.mem);
    ARG(MEASURE, vel, o->vel.mem);
    ARG(MEASURE, r2, o->r2.mem);
    ARG(MEASURE, lambda, o->lambda.mem);
    ARG(MEASURE, ls, w->topo.stride);
    ARG(MEASURE, limit, limit);
    ARG(MEASURE, partial, o->partial.mem);
    ARG(MEASURE, ipartial, o->partial.mem);
    LOCAL_ARG(MEASURE, scratch, 3 * L * sizeof(float));
    LOCAL_ARG(MEASURE, iscratch, 3 * L * sizeof(int));
    int at_project = CTN_OCL_STATS_PROJECT;
    ARG(MEASURE, leave, leave);
    cl_mem state = leave ? o->proj_state.mem : o->stats.mem, kept = leave ? o->proj_pose.mem : o->pose.mem;
    ARG(MEASURE, state, state);
    ARG(MEASURE, decide, decide);
    ARG(MEASURE, kept, kept);
    ARG(MEASURE, props, o->props.mem);
    ARG(MEASURE, inertia, o->inertia.mem);
    ARG(MEASURE, istats, o->stats.mem);
    ARG(MEASURE, at, at_project);
    size_t global = (size_t)groups * L;
    TRY(ctn__ocl_enqueue(w, o, k, global, &L, leave ? "leaving the projection, step statistics" : "step statistics"));
    k = CTN_K_MEASURE_FINAL;
    int at = CTN_OCL_STATS_CHECK;
    ARG(MEASURE_FINAL, groups, groups);
    ARG(MEASURE_FINAL, n, n);
    ARG(MEASURE_FINAL, m, m);
    ARG(MEASURE_FINAL, partial, o->partial.mem);
    ARG(MEASURE_FINAL, ipartial, o->partial.mem);
    ARG(MEASURE_FINAL, stats, o->stats.mem);
    ARG(MEASURE_FINAL, istats, o->stats.mem);
    ARG(MEASURE_FINAL, at, at);
    LOCAL_ARG(MEASURE_FINAL, scratch, 3 * L * sizeof(float));
    LOCAL_ARG(MEASURE_FINAL, iscratch, 3 * L * sizeof(int));
    return ctn__ocl_enqueue(w, o, k, L, &L, "step statistics");
}

/* ---- assembly, phase 1 (host/solve/assemble.c; kernels/ctn_assemble.h) ------------------------------------ */

/* Per slot: rows and correction impulses (into the projection's scratch buffers, free outside a step), then
 * the largest gap and angle reduced and read (one blocking read per iteration: the driver stops on them). */
static ctn_status assemble_rows(ctn_world *w, ctn_ocl *o, ctn_stage_out *out) {
    size_t m = (size_t)w->topo.joint_count;
    TRY(ctn__ocl_reserve(w, o, &o->proj_lambda, ctn__ocl_impulse_room(w), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->proj_err, m * sizeof(float), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->proj_r2, m * sizeof(float), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->proj_stats, 4 * sizeof(float), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->blocks, m * sizeof(ctn_block), NULL)); /* a compact world has none yet */
    int mi = (int)m, k = CTN_K_ASSEMBLE_SLOT;
    ARG(ASSEMBLE_SLOT, m, mi);
    ARG(ASSEMBLE_SLOT, defs, o->defs.mem);
    ARG(ASSEMBLE_SLOT, pose, o->pose.mem);
    ARG(ASSEMBLE_SLOT, inertia, o->inertia.mem);
    ARG(ASSEMBLE_SLOT, props, o->props.mem);
    ARG(ASSEMBLE_SLOT, split, o->split.mem);
    ARG(ASSEMBLE_SLOT, blocks, o->blocks.mem);
    ARG(ASSEMBLE_SLOT, mu, o->proj_lambda.mem);
    ARG(ASSEMBLE_SLOT, ls, w->topo.stride);
    ARG(ASSEMBLE_SLOT, gap, o->proj_err.mem);
    ARG(ASSEMBLE_SLOT, angle, o->proj_r2.mem);
    TRY(ctn__ocl_launch(w, o, k, m, "assembly: rows"));
    TRY(run_reduce3(w, o, mi, o->proj_err.mem, o->proj_err.mem, o->proj_r2.mem, o->proj_stats.mem));
    float top[3];
    TRY(ctn__ocl_check(w, clEnqueueReadBuffer(o->queue, o->proj_stats.mem, CL_TRUE, 0, sizeof top, top, 0, NULL, NULL),
                       "assembly: reading the largest error"));
    o->step_reads++;
    out->max_gap = top[1];
    out->max_angle = top[2];
    return CTN_OK;
}

/* Per body: the gather of M^-1 J^T mu over its own joints and the move. */
static ctn_status assemble_gather(ctn_world *w, ctn_ocl *o) {
    int n = w->body_count, k = CTN_K_ASSEMBLE_BODY;
    ARG(ASSEMBLE_BODY, n, n);
    ARG(ASSEMBLE_BODY, adj_offsets, o->adj_offsets.mem);
    ARG(ASSEMBLE_BODY, adj, o->adj.mem);
    ARG(ASSEMBLE_BODY, blocks, o->blocks.mem);
    ARG(ASSEMBLE_BODY, mu, o->proj_lambda.mem);
    ARG(ASSEMBLE_BODY, ls, w->topo.stride);
    ARG(ASSEMBLE_BODY, pose, o->pose.mem);
    ARG(ASSEMBLE_BODY, props, o->props.mem);
    ARG(ASSEMBLE_BODY, inertia, o->inertia.mem);
    return ctn__ocl_launch(w, o, k, (size_t)n, "assembly: gather");
}

/* ---- dispatch ---------------------------------------------------------------------------------------- */

static ctn_status stage_solve(ctn_world *w, ctn_ocl *o, uint64_t covers, const ctn_step_params *prm) {
    if (w->solver == CTN_SOLVER_GS || o->cg_as_gs) return solve_gs(w, o);
    if (w->solver == CTN_SOLVER_JACOBI) return solve_jacobi(w, o);
    if (w->solver == CTN_SOLVER_DIRECT) return ctn__ocl_solve_direct(w, o, covers, prm);
    return ctn__ocl_solve_cg(w, o);
}

/* Residual, joint errors, largest speed and first bad body: reductions on the device, one blocking read. */
static ctn_status stage_measure(ctn_world *w, ctn_ocl *o, int leave, int decide, ctn_stage_out *out) {
    float stats[CTN_OCL_STATS_FLOATS] = {0};
    int m = w->topo.joint_count;
    TRY(run_step_stats(w, o, leave, decide));
    ctn__ocl_phase(o, CTN_PH_TRANSFER);
    TRY(read_stats(w, o, stats));
    ctn__ocl_phase(o, -1);
    ctn__ocl_project_plan(o, stats);
    if (m == 0) memset(stats, 0, CTN_OCL_STATS_CHECK * sizeof *stats); /* no joints: nothing measured */
    /* CG leaves ||r|| in stats[3] (clBLAST nrm2); every other solver, GS standing in for CG included,
     * leaves per-slot squared residuals that the reduction summed into stats[0] */
    int cg_ran = w->solver == CTN_SOLVER_CG && !o->cg_as_gs;
    out->r2 = cg_ran ? (double)stats[3] * stats[3] : (double)stats[0];
    out->max_gap = stats[1];
    out->max_angle = stats[2];
    int32_t top_bits, bad, bad_slot;
    float top;
    memcpy(&top_bits, &stats[CTN_OCL_STATS_CHECK], sizeof top_bits);
    memcpy(&bad, &stats[CTN_OCL_STATS_CHECK + 1], sizeof bad);
    memcpy(&bad_slot, &stats[CTN_OCL_STATS_CHECK + 2], sizeof bad_slot);
    memcpy(&top, &top_bits, sizeof top);
    out->max_speed = top;
    out->bad_body = bad >= 0 && bad < w->body_count ? (int)bad : -1;
    out->bad_joint = bad_slot >= 0 && bad_slot < m ? w->topo.order[bad_slot] : -1;
    return CTN_OK;
}

/* The substep's stage table (ctn_stage_ops.plan), the pipeline's order with these fused entries:
 *   PREPARE [GEOMETRIC_INERTIA + PREPARE]  the first substep's geometric-stiffness inertia in the row build's
 *                                          launch (ctn_k_prepare: items max(bodies, slots));
 *   WARM_START [FORCES + WARM_START]       the external forces in the warm start's gather (ctn_k_forces);
 *   INTEGRATE [INTEGRATE + GEOMETRIC_INERTIA]  not the last substep: the next substep's geometric-stiffness
 *                                          inertia at the new poses (ctn_k_integrate), so its PREPARE is plain;
 *   INTEGRATE [INTEGRATE + PROJECT_ENTER + REST_VELOCITIES]  the last substep of the exact solver with joints:
 *                                          the projection's metric and its first step's rest velocities in the
 *                                          launch, then its scratch arrays swapped in (ctn__ocl_project_enter);
 *   SOLVE [SOLVE], INTEGRATE [VELOCITIES + INTEGRATE]  the exact solver's chain path: the solve's last
 *                                          velocity update in the integration's launch
 *                                          (ctn_k_chain_velocity_integrate; ctn__ocl_direct_defers_velocities).
 * Each fused stage reads nothing another item of the stage it joins writes, so the results are those of
 * the unfused table (ctn__substep_plan) bit for bit (test_golden_opencl against test_golden's scenes).
 * The position projection (opencl_project.c), decided on the device, one Newton step:
 *   PROJECT_REST [PROJECT_REST]            the scratch impulses cleared (its velocities were put at rest by the
 *                                          entry before: REST_VELOCITIES);
 *   PREPARE [PREPARE + PROJECT_ROWS]       rows, rigid bilateral rows kept, the largest error into the
 *                                          Newton record (ctn_k_project_prepare), decided by the next launch;
 *   SOLVE [PROJECT_DECIDE + SOLVE]         the exact solve, whose first launch decides (the chain factor, or
 *                                          ctn_k_project_decide);
 *   INTEGRATE [GEOMETRIC_INERTIA + POSES_KEEP + POSES_UNDO + INTEGRATE]  x += h v kept, undone or skipped
 *                                          after the decision, and the next step's metric (geometric-stiffness
 *                                          inertia) at the new poses (ctn_k_project_integrate);
 * and its check, the first two. On a chain whose every joint is a position (ctn__ocl_direct_fuses_rows) the
 * step is PROJECT_REST, SOLVE [PREPARE + PROJECT_ROWS + PROJECT_DECIDE + SOLVE] (the rows built by the
 * solve's assembly, ctn_k_chain_project_assemble, and decided by its factor), INTEGRATE [VELOCITIES + ...]
 * (ctn_k_chain_velocity_project); on the chain path elsewhere INTEGRATE covers VELOCITIES too. The first step's metric is the last substep's integration's (PROJECT_ENTER).
 * After it, MEASURE [PROJECT_DECIDE + POSES_UNDO + PROJECT_LEAVE + MEASURE]: the real arrays back, and the
 * check's decision (when the steps ended with a check), the last decision's undo and the inertia of the final
 * poses in the statistics' launch (ctn_k_measure with leave = 1). PROJECT_LEAVE alone (RATTLE's projections)
 * launches that kernel at once. The host-decided tables (ctn__substep_plan) cover the same stages: a step
 * PROJECT_REST, PREPARE, PROJECT_ROWS, PROJECT_DECIDE [+ POSES_UNDO], GEOMETRIC_INERTIA, POSES_KEEP, SOLVE,
 * INTEGRATE (tests/test_stage_table.c compares the sets). */
int ctn__ocl_plan(const ctn_world *w, const ctn_step_params *prm, ctn_stage_table table, int sub, int n, ctn_stage_entry *e) {
    int geometric = ctn__substep_geometric(w, prm), last = sub + 1 >= n;
    int project = ctn__substep_projects(w, sub, n);
    uint64_t gi = CTN_STAGE_BIT(CTN_STAGE_GEOMETRIC_INERTIA);
    int k = 0;
    if (table == CTN_TABLE_MEASURE) { /* (sub = 1 is the CPU's: a chord step's rows, none here) */
        e[k++] = (ctn_stage_entry){CTN_STAGE_MEASURE, CTN_TIMER_NONE,
                                   CTN_STAGE_BIT(CTN_STAGE_PROJECT_DECIDE) | CTN_STAGE_BIT(CTN_STAGE_POSES_UNDO) |
                                       CTN_STAGE_BIT(CTN_STAGE_PROJECT_LEAVE) | ctn__stage_whole(CTN_STAGE_MEASURE), CTN_PRM_STEP};
        return k;
    }
    if (table == CTN_TABLE_PROJECT_LEAVE) return ctn__substep_plan(w, prm, table, sub, n, e);
    if (table >= CTN_TABLE_RATTLE_ENTER) { /* RATTLE's (opencl_rattle.c): one launch or copy per stage, as the CPU's */
        k = ctn__substep_plan(w, prm, table, sub, n, e);
        /* the momentum launch also puts the projection's scratch velocities at rest (ctn_k_rattle_momentum; it
         * writes them in every substep, read only when the projection follows) */
        if (table == CTN_TABLE_RATTLE_MOMENTUM && sub) e[0].covers |= CTN_STAGE_BIT(CTN_STAGE_REST_VELOCITIES);
        return k;
    }
    const ctn_ocl *o = w->backend_data;
    uint64_t vel = CTN_STAGE_BIT(CTN_STAGE_VELOCITIES), moved = ctn__ocl_direct_defers_velocities(w, o) ? vel : 0;
    /* the exact solver's residual: only the last substep's is read (MEASURE), and the projection's first rows
     * launch takes it, before its rows replace the substep's */
    uint64_t residual = CTN_STAGE_BIT(CTN_STAGE_RESIDUAL), later = w->solver == CTN_SOLVER_DIRECT ? residual : 0;
    uint64_t rows = CTN_STAGE_BIT(CTN_STAGE_PREPARE) | CTN_STAGE_BIT(CTN_STAGE_PROJECT_ROWS);
    if (table != CTN_TABLE_SUBSTEP) {
        int fused = table == CTN_TABLE_PROJECT_STEP && ctn__ocl_direct_fuses_rows(w, o); /* the rows in the chain assembly */
        e[k++] = (ctn_stage_entry){CTN_STAGE_PROJECT_REST, CTN_TIMER_SOLVE, CTN_STAGE_BIT(CTN_STAGE_PROJECT_REST), CTN_PRM_STEP}; /* impulses */
        if (sub == 0) rows |= residual;
        if (!fused) e[k++] = (ctn_stage_entry){CTN_STAGE_PREPARE, CTN_TIMER_SOLVE, rows, CTN_PRM_STEP};
        if (table == CTN_TABLE_PROJECT_CHECK) return k;
        e[k++] = (ctn_stage_entry){CTN_STAGE_SOLVE, CTN_TIMER_SOLVE,
                                   (fused ? rows : 0) | CTN_STAGE_BIT(CTN_STAGE_PROJECT_DECIDE) |
                                       (ctn__stage_whole(CTN_STAGE_SOLVE) & ~moved & ~residual), CTN_PRM_STEP};
        e[k++] = (ctn_stage_entry){CTN_STAGE_INTEGRATE, CTN_TIMER_SOLVE,
                                   moved | CTN_STAGE_BIT(CTN_STAGE_INTEGRATE) | CTN_STAGE_BIT(CTN_STAGE_POSES_KEEP) |
                                       CTN_STAGE_BIT(CTN_STAGE_POSES_UNDO) | (prm->geometric_stiffness > 0.0f ? gi : 0) |
                                       CTN_STAGE_BIT(CTN_STAGE_REST_VELOCITIES), CTN_PRM_STEP}; /* the next step's rest */
        return k;
    }
    e[k++] = (ctn_stage_entry){CTN_STAGE_PREPARE, CTN_TIMER_PREPARE, CTN_STAGE_BIT(CTN_STAGE_PREPARE) | (geometric && sub == 0 ? gi : 0), CTN_PRM_STEP};
    e[k++] = (ctn_stage_entry){CTN_STAGE_WARM_START, CTN_TIMER_SOLVE, CTN_STAGE_BIT(CTN_STAGE_FORCES) | CTN_STAGE_BIT(CTN_STAGE_WARM_START), CTN_PRM_STEP};
    e[k++] = (ctn_stage_entry){CTN_STAGE_SOLVE, CTN_TIMER_SOLVE, ctn__stage_whole(CTN_STAGE_SOLVE) & ~moved & ~later, CTN_PRM_STEP};
    e[k++] = (ctn_stage_entry){CTN_STAGE_INTEGRATE, CTN_TIMER_INTEGRATE,
                               moved | CTN_STAGE_BIT(CTN_STAGE_INTEGRATE) | (geometric && !last ? gi : 0) |
                                   (project ? CTN_STAGE_BIT(CTN_STAGE_PROJECT_ENTER) | CTN_STAGE_BIT(CTN_STAGE_REST_VELOCITIES) : 0), CTN_PRM_STEP};
    return k;
}

ctn_status ctn__ocl_run_stage(ctn_world *w, const ctn_stage_entry *e, const ctn_step_params *prm, ctn_stage_out *out) {
    ctn_ocl *o = w->backend_data;
    ctn_stage stage = e->stage;
    uint64_t covers = e->covers;
    if (covers & (CTN_STAGE_BIT(CTN_STAGE_PREPARE) | CTN_STAGE_BIT(CTN_STAGE_ASSEMBLE_ROWS))) o->rattle_valid = 0; /* the blocks change */
    switch (stage) {
    case CTN_STAGE_GEOMETRIC_INERTIA: return run_geometric_inertia(w, o, prm->geometric_stiffness * prm->h);
    case CTN_STAGE_PREPARE: {
        float gs_h = covers & CTN_STAGE_BIT(CTN_STAGE_GEOMETRIC_INERTIA) ? prm->geometric_stiffness * prm->h : 0.0f;
        return o->projecting ? ctn__ocl_project_prepare(w, o, *prm, (covers & CTN_STAGE_BIT(CTN_STAGE_RESIDUAL)) != 0) : run_prepare(w, o, *prm, gs_h);
    }
    case CTN_STAGE_FORCES: return run_forces(w, o, *prm, 0, o->lambda.mem, 0.0f);
    case CTN_STAGE_WARM_START: return run_warm_start(w, o, prm, (covers & CTN_STAGE_BIT(CTN_STAGE_FORCES)) != 0);
    case CTN_STAGE_SOLVE: return stage_solve(w, o, covers, prm);
    case CTN_STAGE_INTEGRATE: return o->projecting ? ctn__ocl_project_integrate(w, o, *prm, covers) : run_integrate(w, o, *prm, covers, out);
    case CTN_STAGE_PROJECT_ENTER: return ctn__ocl_project_enter(w, o, *prm, out); /* after RATTLE_MOMENTUM [+ REST_VELOCITIES] */
    case CTN_STAGE_PROJECT_REST: return ctn__ocl_project_rest(w, o);
    case CTN_STAGE_PROJECT_ROWS: /* in the launch of the projection's PREPARE or SOLVE (ctn__ocl_plan) */
    case CTN_STAGE_VELOCITIES:   /* in the exact solve's launches or the integration's (ctn__ocl_plan) */
    case CTN_STAGE_REST_VELOCITIES: /* in the launch of the entry before the projection's step (ctn__ocl_plan) */
    case CTN_STAGE_JOINT_ERRORS: /* in MEASURE's launch */
    case CTN_STAGE_RESIDUAL:     /* in the solve's launches or the projection's first rows (ctn__ocl_plan) */
        break;
    case CTN_STAGE_POSES_KEEP:
        return ctn__ocl_copy(w, o, o->pose.mem, o->proj_pose.mem, (size_t)w->body_count * sizeof(ctn_pose), "projection: keeping the poses");
    case CTN_STAGE_POSES_UNDO:
        return ctn__ocl_copy(w, o, o->proj_pose.mem, o->pose.mem, (size_t)w->body_count * sizeof(ctn_pose), "projection: undoing a step");
    case CTN_STAGE_PROJECT_LEAVE: { /* alone: the statistics' launch that finishes leaving at once */
        int left = 0, decide = 0;
        TRY(ctn__ocl_project_leave(w, o, &left, &decide));
        return left ? run_step_stats(w, o, 1, decide) : CTN_OK;
    }
    case CTN_STAGE_MEASURE: {
        int left = 0, decide = 0;
        if (covers & CTN_STAGE_BIT(CTN_STAGE_PROJECT_LEAVE)) TRY(ctn__ocl_project_leave(w, o, &left, &decide));
        return stage_measure(w, o, left, decide, out);
    }
    case CTN_STAGE_ASSEMBLE_ROWS: return assemble_rows(w, o, out);
    case CTN_STAGE_ASSEMBLE_GATHER: return assemble_gather(w, o);
    /* RATTLE (host/opencl/opencl_rattle.c) */
    case CTN_STAGE_RATTLE_ENTER:
    case CTN_STAGE_RATTLE_START:
    case CTN_STAGE_RATTLE_UNDO:
    case CTN_STAGE_RATTLE_FACTOR:
    case CTN_STAGE_RATTLE_BACK:
    case CTN_STAGE_RATTLE_RESOLVE:
    case CTN_STAGE_RATTLE_DRIFT:
    case CTN_STAGE_RATTLE_ROWS:
    case CTN_STAGE_RATTLE_MOMENTUM:
    case CTN_STAGE_RATTLE_LEAVE:
    case CTN_STAGE_RATTLE_NEWTON:
    case CTN_STAGE_INERTIA: return ctn__ocl_rattle_stage(w, o, stage, prm, out);
    case CTN_STAGE_PROJECT_DECIDE: /* on the device, by the launch after the rows (no entry of its own) */
    case CTN_STAGE_RATTLE_DECIDE:  /* on the host (host/solve/pipeline.c rattle_decide) */
    case CTN_STAGE_CHORD_ROWS: /* the projection's chord steps: not on this backend (chord = 0) */
    case CTN_STAGE_CHORD_SOLVE:
    case CTN_STAGE_COUNT: break;
    }
    return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "pipeline stage %s (%d) is no entry of the opencl backend's tables (ctn__ocl_plan)",
                     ctn__stage_name(stage), (int)stage);
}

/* Joint errors of the device state (ctn_world_measure while the host is stale). */
ctn_status ctn__ocl_measure(ctn_world *w, double *max_gap, double *max_angle) {
    ctn_ocl *o = w->backend_data;
    float stats[CTN_OCL_STATS_FLOATS] = {0};
    if (w->topo.joint_count > 0 && o->have_layout && !w->topology_dirty) {
        TRY(run_measure(w, o));
        TRY(read_stats(w, o, stats));
    } else {
        TRY(ctn__sync(w));
        ctn__measure_host(w, max_gap, max_angle);
        return CTN_OK;
    }
    *max_gap = stats[1];
    *max_angle = stats[2];
    return CTN_OK;
}

/* The largest of n floats of x on the device into out[1] (run_reduce3; host/opencl/opencl_rattle.c). */
ctn_status ctn__ocl_reduce_max(ctn_world *w, ctn_ocl *o, int n, cl_mem x, cl_mem out) { return run_reduce3(w, o, n, x, x, x, out); }
