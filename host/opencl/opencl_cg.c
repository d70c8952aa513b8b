/* Block-Jacobi-preconditioned conjugate gradient on the device (Hestenes and Stiefel 1952): the per-slot and
 * per-body steps are kernels/ctn_cg.h, the same functions solve_cg in host/solve/solver_cpu.c loops over
 * (matrix-free A p = J (M^-1 J^T p) + S p through the gather and row kernels); the dot products and the
 * final residual norm are this backend's own, through clBLAST.
 *
 * clBLAST's dot and nrm2 write their result into a device buffer while its axpy/scal take the scalar from
 * the host; reading alpha and beta back every iteration would cost two blocking round trips per
 * iteration, so alpha = rz / p^T A p and beta = rz_new / rz are formed by one-work-item kernels on the
 * device and the alpha/beta updates are fused into the row and body kernels. The only host scalar of
 * the step is the warm-start factor (clBLAST scal, host/opencl/backend_opencl.c). */
#include "opencl/opencl_internal.h"

#include <clblast_c.h>


/* Scalar slots, as kernels/catena.cl CTN_CG_*. */
enum { CG_RZ = 0, CG_PAP = 1, CG_RZNEW = 2 };

static ctn_status blas_status(ctn_world *w, CLBlastStatusCode s, const char *what) {
    if (s == CLBlastSuccess) return CTN_OK;
    return ctn__fail(w, CTN_ERR_DEVICE, "clBLAST %s: %s (%d)", what, ctn__clblast_status_name(s), (int)s);
}

/* scalars[slot] = x . y over len floats (clBLAST Sdot, result stays on the device). */
static ctn_status dot(ctn_world *w, ctn_ocl *o, size_t len, int slot, cl_mem x, cl_mem y) {
    cl_event ev = NULL;
    CLBlastStatusCode s = CLBlastSdot(len, o->cg_scalars.mem, (size_t)slot, x, 0, 1, y, 0, 1, &o->queue, o->profiling ? &ev : NULL);
    TRY(blas_status(w, s, "Sdot"));
    ctn__ocl_note_event(o, ev);
    return CTN_OK;
}

static ctn_status scalar_kernel(ctn_world *w, ctn_ocl *o, int k, const char *what) {
    ARG_OF3(k, CG_START, CG_ALPHA, CG_BETA, sc, o->cg_scalars.mem);
    return ctn__ocl_launch(w, o, k, 1, what);
}

ctn_status ctn__ocl_solve_cg(ctn_world *w, ctn_ocl *o) {
    const ctn_topology *t = &w->topo;
    int m = t->joint_count, n = w->body_count;
    size_t len = (size_t)w->topo.stride * (size_t)m;
    int k;
    if (m == 0) return CTN_OK;
    cl_mem p = o->dlambda.mem; /* the search direction lives in the Jacobi increment array */

    /* r = target - J v - S lambda, z = K^-1 r, p = z; rz = r . z */
    k = CTN_K_CG_INIT;
    ARG(CG_INIT, m, m);
    ARG(CG_INIT, defs, o->defs.mem);
    ARG(CG_INIT, blocks, o->blocks.mem);
    ARG(CG_INIT, vel, o->vel.mem);
    ARG(CG_INIT, lambda, o->lambda.mem);
    ARG(CG_INIT, ls, w->topo.stride);
    ARG(CG_INIT, r, o->cg_r.mem);
    ARG(CG_INIT, z, o->cg_z.mem);
    ARG(CG_INIT, p, p);
    TRY(ctn__ocl_launch(w, o, k, (size_t)m, "CG residual"));
    TRY(dot(w, o, len, CG_RZ, o->cg_r.mem, o->cg_z.mem));
    TRY(scalar_kernel(w, o, CTN_K_CG_START, "CG start"));

    for (int it = 0; it < w->desc.iterations; ++it) {
        /* u = M^-1 J^T p per body, A p = J u + S p per joint, p^T A p */
        k = CTN_K_CG_GATHER;
        ARG(CG_GATHER, n, n);
        ARG(CG_GATHER, adj_offsets, o->adj_offsets.mem);
        ARG(CG_GATHER, adj, o->adj.mem);
        ARG(CG_GATHER, blocks, o->blocks.mem);
        ARG(CG_GATHER, p, p);
        ARG(CG_GATHER, ls, w->topo.stride);
        ARG(CG_GATHER, inertia, o->inertia.mem);
        ARG(CG_GATHER, u, o->cg_u.mem);
        TRY(ctn__ocl_launch(w, o, k, (size_t)n, "CG gather"));
        k = CTN_K_CG_APPLY;
        ARG(CG_APPLY, m, m);
        ARG(CG_APPLY, defs, o->defs.mem);
        ARG(CG_APPLY, blocks, o->blocks.mem);
        ARG(CG_APPLY, u, o->cg_u.mem);
        ARG(CG_APPLY, p, p);
        ARG(CG_APPLY, ls, w->topo.stride);
        ARG(CG_APPLY, ap, o->cg_ap.mem);
        TRY(ctn__ocl_launch(w, o, k, (size_t)m, "CG operator"));
        TRY(dot(w, o, len, CG_PAP, p, o->cg_ap.mem));
        TRY(scalar_kernel(w, o, CTN_K_CG_ALPHA, "CG alpha"));
        /* lambda += alpha p, r -= alpha A p, z = K^-1 r; v += alpha u */
        k = CTN_K_CG_UPDATE;
        ARG(CG_UPDATE, m, m);
        ARG(CG_UPDATE, blocks, o->blocks.mem);
        ARG(CG_UPDATE, sc, o->cg_scalars.mem);
        ARG(CG_UPDATE, lambda, o->lambda.mem);
        ARG(CG_UPDATE, ls, w->topo.stride);
        ARG(CG_UPDATE, r, o->cg_r.mem);
        ARG(CG_UPDATE, p, p);
        ARG(CG_UPDATE, ap, o->cg_ap.mem);
        ARG(CG_UPDATE, z, o->cg_z.mem);
        TRY(ctn__ocl_launch(w, o, k, (size_t)m, "CG update"));
        k = CTN_K_CG_VELOCITY;
        ARG(CG_VELOCITY, n, n);
        ARG(CG_VELOCITY, adj_offsets, o->adj_offsets.mem);
        ARG(CG_VELOCITY, sc, o->cg_scalars.mem);
        ARG(CG_VELOCITY, u, o->cg_u.mem);
        ARG(CG_VELOCITY, vel, o->vel.mem);
        TRY(ctn__ocl_launch(w, o, k, (size_t)n, "CG velocity update"));
        /* beta = r.z / rz, p = z + beta p */
        TRY(dot(w, o, len, CG_RZNEW, o->cg_r.mem, o->cg_z.mem));
        TRY(scalar_kernel(w, o, CTN_K_CG_BETA, "CG beta"));
        k = CTN_K_CG_DIRECTION;
        int ilen = (int)len;
        ARG(CG_DIRECTION, len, ilen);
        ARG(CG_DIRECTION, sc, o->cg_scalars.mem);
        ARG(CG_DIRECTION, z, o->cg_z.mem);
        ARG(CG_DIRECTION, p, p);
        TRY(ctn__ocl_launch(w, o, k, len, "CG direction"));
    }
    /* ||r|| of the last iteration into stats[3] (clBLAST nrm2) */
    cl_event ev = NULL;
    CLBlastStatusCode s = CLBlastSnrm2(len, o->stats.mem, 3, o->cg_r.mem, 0, 1, &o->queue, o->profiling ? &ev : NULL);
    TRY(blas_status(w, s, "Snrm2"));
    ctn__ocl_note_event(o, ev);
    return CTN_OK;
}
