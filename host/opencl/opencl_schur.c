/* Loop closers through their Schur complement on the device: the forest path's answer to a few joints
 * that close loops (a ring, a closed chain), the same as the CPU's (host/solve/solver_direct.c, schur_solve),
 * with the math of kernels/ctn_direct_schur.h in kernels/catena_schur.cl.
 *
 * Scope, as on the CPU: the forest path (host/opencl/opencl_forest.c) with loop closers of at most
 * CTN_DD_MAX_SCHUR rows in all, every one between two dynamic bodies that rotate or are particles, and
 * in a substep only when no loop closer is bounded (a limit, a motor, a swing cone; a contact or a rope
 * among the loop closers rules it out for good). The layouts where a bound can appear get a gate
 * (ctn_k_schur_gate over the slots that can have one, the closers first): it sets the flag `on` of the
 * Schur kernels (no row bounded), `off` of the hybrid's Gauss-Seidel sweep (some row bounded) and `mix`
 * (rows of the forest cut, no closer bounded: after each sweep and re-solve the closers' impulse and a
 * re-solve, host/opencl/opencl_direct.c), so the device takes the CPU's branch in every substep without a
 * read to the host.
 *
 * Per substep, after the first exact solve: per row k a substitution of (J_k^T; 0) through the factor
 * (ctn__ocl_forest_column: the forest path's forward and back launches without the update) and ctn_k_schur_column for
 * column k of W, the last one inverting W; then per outer iteration ctn_k_schur_impulse (dl_E = W^-1 r_E,
 * applied) before the forest's re-solve. Launches per substep: the gate (when there is one), R times (the
 * forest path's launches + 1), and one per outer iteration in place of the sweep's; no read to the host. On
 * examples/closed_chain.json (R = 1, every level narrow on PoCL: one band each way) a step took 143 launches
 * at 4 iterations against 206 with the sweeps, its position projection needing fewer Newton steps once the
 * loop holds. Both backends run the same operations in the same order (the forest kernels sum in the CPU's
 * order), so a ring runs bit for bit alike until the host's libm and the device round a sine of the
 * integration differently (tests/test_opencl_loops.c). */
#include "opencl/opencl_internal.h"
#include "solve/direct_internal.h"

#define CTN_DD_MAX_DENSE DIRECT_MAX_SCHUR_ROWS
#include "ctn_direct.h"
#include "ctn_direct_schur.h"

#include <stdlib.h>

static ctn_status create_kernels(ctn_world *w, ctn_ocl *o) {
    int failed = 0;
    cl_int e = ctn__ocl_create_kernels(o, CTN_K_SCHUR_FIRST, CTN_K_SCHUR_END, &failed);
    if (e == CL_SUCCESS) return CTN_OK;
    return ctn__fail(w, CTN_ERR_UNSUPPORTED, "desc.solver: direct on OpenCL: clCreateKernel(%s): %s", ctn__ocl_kernel_table[failed].name,
                     ctn__cl_error_name(e));
}

/* The loop closers of ordering s that the Schur solve can take in some substep: R rows (0: none). Those
 * bounded in every substep (contacts, ropes) or with a body that is not a dynamic node rule it out, as
 * schur_applicable does on the CPU. */
static int schur_rows(const ctn_world *w, const struct direct_state *s, int *rows) {
    const ctn_topology *t = &w->topo;
    if (s->extra_count == 0) return 0;
    for (int k = 0; k < s->extra_count; ++k) {
        const ctn_joint_def d_def = ctn_joint_at(ctn__topo_joints(t), s->extra[k]), *d = &d_def;
        if (ctn__ocl_always_bounded(d)) return 0;
        if (!ctn__direct_body_dynamic(w, d->a) || !ctn__direct_body_dynamic(w, d->b) || !ctn__direct_body_dof(w, d->a) || !ctn__direct_body_dof(w, d->b))
            return 0;
    }
    int R = ctn__direct_schur_rows(w, s, rows);
    return R > 0 ? R : 0;
}

ctn_status ctn__ocl_schur_prepare(ctn_world *w, ctn_ocl *o, const struct direct_state *s) {
    const ctn_topology *t = &w->topo;
    int rows[DIRECT_MAX_SCHUR_ROWS * CTN_SR_INTS];
    o->schur_rows = 0;
    int R = schur_rows(w, s, rows);
    if (R == 0) return CTN_OK;
    /* the gate's slots: loop closers and forest joints that can have bounds in a substep */
    int *maybe = ctn__malloc(((size_t)t->joint_count + 1) * sizeof *maybe), n = 0;
    if (!maybe) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory preparing the loop closers for the direct solver");
    for (int slot = 0; slot < t->joint_count; ++slot) /* the closers first, then the forest joints */
        if (s->slot_kind[slot] == SLOT_EXTRA && ctn__ocl_may_be_bounded_at(t, slot)) maybe[n++] = slot;
    int closers = n;
    for (int slot = 0; slot < t->joint_count; ++slot) {
        int kind = s->slot_kind[slot];
        if ((kind == SLOT_NODE || kind == SLOT_ATTACHED) && ctn__ocl_may_be_bounded_at(t, slot)) maybe[n++] = slot;
    }
    ctn_status st = create_kernels(w, o);
    if (st == CTN_OK) st = ctn__ocl_upload(w, o, &o->sch_rows, rows, (size_t)R * CTN_SR_INTS * sizeof *rows, "the loop closers' rows");
    if (st == CTN_OK && n > 0) st = ctn__ocl_upload(w, o, &o->sch_maybe, maybe, (size_t)n * sizeof *maybe, "the loop closers' gate");
    ctn__free(maybe);
    TRY(st);
    TRY(ctn__ocl_reserve(w, o, &o->sch_W, (size_t)R * R * sizeof(double), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->sch_rE, (size_t)R * sizeof(double), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->sch_on, sizeof(int), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->sch_off, sizeof(int), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->sch_mix, sizeof(int), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->sch_wf, sizeof(int), NULL));
    o->schur_rows = R;
    o->schur_gate = n;
    o->schur_closers = closers;
    if (w->desc.debug.trace)
        ctn__log(w, CTN_LOG_DEBUG, "direct (OpenCL forest): %d loop-closing rows through their Schur complement%s", R,
                 n > 0 ? ", gated by their bounds" : "");
    return CTN_OK;
}

static ctn_status launch(ctn_world *w, ctn_ocl *o, int k, const char *what) {
    return ctn__ocl_enqueue(w, o, k, 1, NULL, what);
}

ctn_status ctn__ocl_schur_factor(ctn_world *w, ctn_ocl *o, cl_mem active, cl_mem *on, cl_mem *off, cl_mem *mix) {
    int R = o->schur_rows, k;
    cl_mem wf = active; /* W is formed while no closer is bounded */
    *on = *off = *mix = active;
    if (o->schur_gate > 0) {
        k = CTN_K_SCHUR_GATE;
        ARG(SCHUR_GATE, n, o->schur_gate);
        ARG(SCHUR_GATE, closers, o->schur_closers);
        ARG(SCHUR_GATE, maybe, o->sch_maybe.mem);
        ARG(SCHUR_GATE, blocks, o->blocks.mem);
        ARG(SCHUR_GATE, active, active);
        ARG(SCHUR_GATE, on, o->sch_on.mem);
        ARG(SCHUR_GATE, off, o->sch_off.mem);
        ARG(SCHUR_GATE, mixed, o->sch_mix.mem);
        ARG(SCHUR_GATE, wf, o->sch_wf.mem);
        TRY(launch(w, o, k, "direct solver: loop closers' gate"));
        *on = o->sch_on.mem, *off = o->sch_off.mem, *mix = o->sch_mix.mem, wf = o->sch_wf.mem;
    }
    cl_mem x = ctn__ocl_forest_solution(o);
    k = CTN_K_SCHUR_COLUMN;
    ARG(SCHUR_COLUMN, R, R);
    ARG(SCHUR_COLUMN, rows, o->sch_rows.mem);
    ARG(SCHUR_COLUMN, blocks, o->blocks.mem);
    ARG(SCHUR_COLUMN, x, x);
    ARG(SCHUR_COLUMN, W, o->sch_W.mem);
    ARG(SCHUR_COLUMN, active, wf);
    for (int c = 0; c < R; ++c) {
        TRY(ctn__ocl_forest_column(w, o, wf, c));
        ARG(SCHUR_COLUMN, k, c);
        TRY(launch(w, o, k, "direct solver: loop closers' Schur complement"));
    }
    return CTN_OK;
}

ctn_status ctn__ocl_schur_impulse(ctn_world *w, ctn_ocl *o, cl_mem on) {
    int k = CTN_K_SCHUR_IMPULSE, R = o->schur_rows;
    ARG(SCHUR_IMPULSE, R, R);
    ARG(SCHUR_IMPULSE, Wi, o->sch_W.mem);
    ARG(SCHUR_IMPULSE, rows, o->sch_rows.mem);
    ARG(SCHUR_IMPULSE, defs, o->defs.mem);
    ARG(SCHUR_IMPULSE, blocks, o->blocks.mem);
    ARG(SCHUR_IMPULSE, vel, o->vel.mem);
    ARG(SCHUR_IMPULSE, inertia, o->inertia.mem);
    ARG(SCHUR_IMPULSE, lambda, o->lambda.mem);
    ARG(SCHUR_IMPULSE, ls, w->topo.stride);
    ARG(SCHUR_IMPULSE, rE, o->sch_rE.mem);
    ARG(SCHUR_IMPULSE, active, on);
    return launch(w, o, k, "direct solver: loop closers' impulse");
}

void ctn__ocl_schur_release(ctn_ocl *o) {
    ctn_clbuf *bufs[] = {&o->sch_rows, &o->sch_W, &o->sch_rE, &o->sch_maybe, &o->sch_on, &o->sch_off, &o->sch_mix, &o->sch_wf};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
        if (bufs[i]->mem) clReleaseMemObject(bufs[i]->mem);
    ctn__ocl_release_kernels(o, CTN_K_SCHUR_FIRST, CTN_K_SCHUR_END);
}
