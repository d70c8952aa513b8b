/* Exact solver for chains of joints on the device (the GPU half of `direct`).
 *
 * Scope: joint layouts that are sets of simple paths: every dynamic body in at most two joints, every
 * joint bilateral (no contacts, hinge limits or motors, ropes), no loops; joints to the world or to
 * static/kinematic bodies can only sit at the ends of a path. Anything else goes to the forest path of
 * host/opencl_tree.c, which refuses loops and bounded rows with
 * CTN_ERR_UNSUPPORTED and the reason (the CPU backend's direct solver handles trees, loops and bounded
 * rows). The path order is built on the host once per topology_version and uploaded as a permutation
 * (position -> slot) and a link table (body shared with the next position and its side in both joints).
 *
 * Per substep, after the warm start, the system (J M^-1 J^T + S + 1e-10 diag(J M^-1 J^T)) dl = r with
 * r = target - J v - S lambda (the diagonal as host/solver_direct.c forms it) is block-tridiagonal along
 * each path: pivots D_i = K_i and couplings C_i = J_{i,b} M_b^-1 J_{i+1,b}^T through the shared body b.
 * The paths are concatenated (zero couplings between them) and solved by block cyclic reduction in double
 * precision (kernels/catena.cl, ctn_k_direct_*): ceil(log2 n) reduction launches, each eliminating the odd
 * positions of the current level in parallel, then as many back-substitution launches. Then lambda += dl
 * and the gather kernel applies v += M^-1 J^T dl. The reported residual is that of the final velocities,
 * as on the CPU. Requires cl_khr_fp64 (checked; without it the solver is refused, never run in float).
 * Layouts that are not chains go to the forest path (host/opencl_tree.c), which refuses loops and bounded rows;
 * so do chains on CPU devices, where its serial bands beat cyclic reduction (desc.debug.direct_tree overrides). */
#include "opencl/opencl_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


enum { DK_BUILD, DK_REDUCE, DK_BACK, DK_APPLY, DK_RESIDUAL, DK_COUNT };
static const char *const direct_names[DK_COUNT] = {"ctn_k_direct_build", "ctn_k_direct_reduce", "ctn_k_direct_back",
                                                    "ctn_k_direct_apply", "ctn_k_direct_residual"};

static ctn_status unsupported(ctn_world *w, const char *why) {
    return ctn__fail(w, CTN_ERR_UNSUPPORTED, "desc.solver: the direct solver on the OpenCL backend handles chains of bilateral joints only: %s "
                     "(use the CPU backend for direct, or gs, jacobi or cg with OpenCL)", why);
}

static ctn_status darg(ctn_world *w, ctn_ocl *o, int k, cl_uint i, size_t size, const void *value) {
    cl_int e = clSetKernelArg(o->direct_kernel[k], i, size, value);
    if (e == CL_SUCCESS) return CTN_OK;
    return ctn__fail(w, CTN_ERR_DEVICE, "clSetKernelArg(%s, %u): %s", direct_names[k], (unsigned)i, ctn__cl_error_name(e));
}
#define DARG(k, i, v) TRY(darg(w, o, (k), (i), sizeof(v), &(v)))

static ctn_status dlaunch(ctn_world *w, ctn_ocl *o, int k, size_t items, const char *what) {
    if (items == 0) return CTN_OK;
    cl_event ev = NULL;
    cl_int e = clEnqueueNDRangeKernel(o->queue, o->direct_kernel[k], 1, NULL, &items, NULL, 0, NULL,
                                      o->profiling && o->phase >= 0 ? &ev : NULL);
    if (e != CL_SUCCESS) return ctn__fail(w, CTN_ERR_DEVICE, "%s (%s): %s", what, direct_names[k], ctn__cl_error_name(e));
    ctn__ocl_note_event(o, ev);
    o->step_launches++;
    return CTN_OK;
}

/* Kernels on first use: only devices with cl_khr_fp64 compile them (kernels/catena.cl). */
static ctn_status create_kernels(ctn_world *w, ctn_ocl *o) {
    if (o->direct_state == 1) return CTN_OK;
    if (o->direct_state < 0) return unsupported(w, o->direct_why);
    cl_device_fp_config fp = 0;
    if (clGetDeviceInfo(o->device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL) != CL_SUCCESS || fp == 0) {
        o->direct_state = -1;
        snprintf(o->direct_why, sizeof o->direct_why, "the device has no double precision (cl_khr_fp64)");
        return unsupported(w, o->direct_why);
    }
    for (int k = 0; k < DK_COUNT; ++k) {
        cl_int e;
        o->direct_kernel[k] = clCreateKernel(o->program, direct_names[k], &e);
        if (e != CL_SUCCESS) {
            o->direct_kernel[k] = NULL;
            o->direct_state = -1;
            snprintf(o->direct_why, sizeof o->direct_why, "clCreateKernel(%s): %s (is cl_khr_fp64 enabled in the kernel compiler?)",
                     direct_names[k], ctn__cl_error_name(e));
            return unsupported(w, o->direct_why);
        }
    }
    o->direct_state = 1;
    return CTN_OK;
}

static int is_dynamic(const ctn_world *w, int body) {
    return body >= 0 && body < w->body_count && (w->props[body].flags & CTN_BODY_FLAG_DYNAMIC);
}

/* The paths of the current topology: perm (position -> slot) and link (3 ints per position). Returns
 * CTN_ERR_UNSUPPORTED naming the first joint or body that breaks the chain layout. */
static ctn_status build_paths(ctn_world *w, int *perm, int *link, int *nb_out) {
    const ctn_topology *t = &w->topo;
    int m = t->joint_count, n = w->body_count, nb = 1;
    char why[160];
    int *cnt = ctn__calloc((size_t)n + 1, sizeof *cnt), *jt = ctn__malloc((2 * (size_t)n + 1) * sizeof *jt);
    unsigned char *seen = ctn__calloc((size_t)m + 1, 1);
    ctn_status st = CTN_OK;
    if (!cnt || !jt || !seen) {
        ctn__free(cnt), ctn__free(jt), ctn__free(seen);
        return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory ordering the chains for the direct solver");
    }
    for (int s = 0; s < m && st == CTN_OK; ++s) {
        const ctn_joint_def *d = &t->defs[s];
        if (d->type == CTN_JT_CONTACT) {
            snprintf(why, sizeof why, "joint %d is a contact (unilateral rows)", t->order[s]);
            st = unsupported(w, why);
        } else if (d->flags & (CTN_JF_LIMIT | CTN_JF_MOTOR | CTN_JF_ROPE | CTN_JF_SWING)) {
            snprintf(why, sizeof why, "joint %d has a limit, motor or rope (bounded rows)", t->order[s]);
            st = unsupported(w, why);
        } else if (d->rows > nb) {
            nb = d->rows;
        }
        int ends[2] = {d->a, d->b};
        for (int e = 0; e < 2 && st == CTN_OK; ++e) {
            int b = ends[e];
            if (!is_dynamic(w, b)) continue;
            if (cnt[b] == 2) {
                snprintf(why, sizeof why, "body %d has more than two joints (joint %d is its third), so the joints do not form chains", b,
                         t->order[s]);
                st = unsupported(w, why);
                break;
            }
            jt[2 * b + cnt[b]++] = s;
        }
    }
    /* the joint of position s reached through body b (the other joint of b), or -1 */
    int pos = 0;
    for (int s0 = 0; s0 < m && st == CTN_OK; ++s0) {
        if (seen[s0]) continue;
        const ctn_joint_def *d = &t->defs[s0];
        int deg = 0, ends[2] = {d->a, d->b};
        for (int e = 0; e < 2; ++e)
            if (is_dynamic(w, ends[e]) && cnt[ends[e]] == 2) ++deg;
        if (deg == 2) continue; /* an inner joint: its path starts elsewhere (or it lies on a loop) */
        int cur = s0, via = -1;
        while (cur >= 0) {
            seen[cur] = 1;
            perm[pos] = cur;
            link[3 * pos] = -1, link[3 * pos + 1] = 0, link[3 * pos + 2] = 0;
            const ctn_joint_def *c = &t->defs[cur];
            int next = -1, ce[2] = {c->a, c->b};
            for (int e = 0; e < 2 && next < 0; ++e) {
                int b = ce[e];
                if (b == via || !is_dynamic(w, b) || cnt[b] != 2) continue;
                int o = jt[2 * b] == cur ? jt[2 * b + 1] : jt[2 * b];
                if (o == cur || seen[o]) continue;
                next = o;
                link[3 * pos] = b;
                link[3 * pos + 1] = e;
                link[3 * pos + 2] = t->defs[o].a == b ? 0 : 1;
                via = b;
            }
            ++pos;
            cur = next;
        }
    }
    for (int s = 0; s < m && st == CTN_OK; ++s)
        if (!seen[s]) {
            snprintf(why, sizeof why, "joint %d lies on a loop of joints", t->order[s]);
            st = unsupported(w, why);
        }
    ctn__free(cnt), ctn__free(jt), ctn__free(seen);
    *nb_out = nb;
    return st;
}

static ctn_status upload(ctn_world *w, ctn_ocl *o, ctn_clbuf *b, const void *data, size_t size, const char *what) {
    TRY(ctn__ocl_reserve(w, o, b, size, NULL));
    cl_int e = clEnqueueWriteBuffer(o->queue, b->mem, CL_TRUE, 0, size, data, 0, NULL, NULL);
    if (e != CL_SUCCESS) return ctn__fail(w, CTN_ERR_DEVICE, "uploading %s (%zu bytes): %s", what, size, ctn__cl_error_name(e));
    return CTN_OK;
}

ctn_status ctn__ocl_direct_prepare(ctn_world *w, ctn_ocl *o) {
    TRY(create_kernels(w, o));
    if (o->have_direct_layout && o->direct_version == w->topology_version) return CTN_OK;
    o->have_direct_layout = 0;
    int m = w->topo.joint_count;
    int *perm = ctn__malloc(((size_t)m + 1) * sizeof *perm), *link = ctn__malloc((3 * (size_t)m + 1) * sizeof *link);
    if (!perm || !link) {
        ctn__free(perm), ctn__free(link);
        return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory ordering the chains for the direct solver");
    }
    int nb = 1;
    /* Chains take cyclic reduction on GPUs and the forest path (serial bands) on CPU devices, where it is
     * faster (PoCL, chain:100000: see host/opencl_tree.c); desc.debug.direct_tree = 1 / 0 forces one or the other. */
    cl_device_type type = 0;
    clGetDeviceInfo(o->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    int tree_first = w->desc.debug.direct_tree >= 0 ? w->desc.debug.direct_tree : !(type & CL_DEVICE_TYPE_GPU);
    ctn_status s = tree_first ? CTN_ERR_UNSUPPORTED : build_paths(w, perm, link, &nb);
    o->direct_tree = 0;
    if (s == CTN_ERR_UNSUPPORTED) { /* not chains: the forest path decides (and names what it refuses) */
        ctn__free(perm), ctn__free(link);
        TRY(ctn__ocl_tree_prepare(w, o));
        o->direct_tree = 1;
        o->direct_n = m;
        o->direct_version = w->topology_version;
        o->have_direct_layout = 1;
        return CTN_OK;
    }
    if (s == CTN_OK) s = upload(w, o, &o->dir_perm, perm, (size_t)m * sizeof *perm, "the chain order");
    if (s == CTN_OK) s = upload(w, o, &o->dir_link, link, 3 * (size_t)m * sizeof *link, "the chain links");
    ctn__free(perm), ctn__free(link);
    TRY(s);
    size_t blocks = 36 * (size_t)m * sizeof(double), vecs = 6 * (size_t)m * sizeof(double);
    TRY(ctn__ocl_reserve(w, o, &o->dir_D, blocks, NULL));
    TRY(ctn__ocl_reserve(w, o, &o->dir_L, blocks, NULL));
    TRY(ctn__ocl_reserve(w, o, &o->dir_U, blocks, NULL));
    TRY(ctn__ocl_reserve(w, o, &o->dir_b, vecs, NULL));
    TRY(ctn__ocl_reserve(w, o, &o->dir_x, vecs, NULL));
    o->direct_n = m;
    o->direct_nb = nb;
    o->direct_version = w->topology_version;
    o->have_direct_layout = 1;
    return CTN_OK;
}

ctn_status ctn__ocl_solve_direct(ctn_world *w, ctn_ocl *o) {
    int n = o->direct_n, nb = o->direct_nb, k;
    if (n == 0) return CTN_OK;
    if (o->direct_tree) {
        TRY(ctn__ocl_tree_solve(w, o));
        goto residual;
    }
    k = DK_BUILD;
    DARG(k, 0, n);
    DARG(k, 1, o->dir_perm.mem);
    DARG(k, 2, o->dir_link.mem);
    DARG(k, 3, o->defs.mem);
    DARG(k, 4, o->blocks.mem);
    DARG(k, 5, o->vel.mem);
    DARG(k, 6, o->inertia.mem);
    DARG(k, 7, o->lambda.mem);
    DARG(k, 8, o->dir_D.mem);
    DARG(k, 9, o->dir_L.mem);
    DARG(k, 10, o->dir_U.mem);
    DARG(k, 11, o->dir_b.mem);
    TRY(dlaunch(w, o, k, (size_t)n, "direct solver: block build"));
    /* cyclic reduction: stride st eliminates the positions st (2 t + 1) into 2 st t */
    int top = 1;
    k = DK_REDUCE;
    DARG(k, 0, n);
    DARG(k, 2, nb);
    DARG(k, 3, o->dir_D.mem);
    DARG(k, 4, o->dir_L.mem);
    DARG(k, 5, o->dir_U.mem);
    DARG(k, 6, o->dir_b.mem);
    for (int st = 1; st < n; st *= 2) {
        DARG(k, 1, st);
        TRY(dlaunch(w, o, k, ((size_t)n + 2 * (size_t)st - 1) / (2 * (size_t)st), "direct solver: cyclic reduction"));
        top = st;
    }
    k = DK_BACK;
    DARG(k, 0, n);
    DARG(k, 2, nb);
    DARG(k, 4, o->dir_D.mem);
    DARG(k, 5, o->dir_L.mem);
    DARG(k, 6, o->dir_U.mem);
    DARG(k, 7, o->dir_b.mem);
    DARG(k, 8, o->dir_x.mem);
    int root = 1, st = 1;
    DARG(k, 1, st);
    DARG(k, 3, root);
    TRY(dlaunch(w, o, k, 1, "direct solver: root solve"));
    root = 0;
    DARG(k, 3, root);
    for (st = top; st >= 1 && n > 1; st /= 2) {
        DARG(k, 1, st);
        TRY(dlaunch(w, o, k, ((size_t)n - (size_t)st + 2 * (size_t)st - 1) / (2 * (size_t)st), "direct solver: back-substitution"));
    }
    k = DK_APPLY;
    DARG(k, 0, n);
    DARG(k, 1, o->dir_perm.mem);
    DARG(k, 2, o->blocks.mem);
    DARG(k, 3, o->dir_x.mem);
    DARG(k, 4, o->lambda.mem);
    DARG(k, 5, o->dlambda.mem);
    TRY(dlaunch(w, o, k, (size_t)n, "direct solver: impulse update"));
    /* v += M^-1 J^T dl (the gather kernel of the warm start) */
    int nbody = w->body_count;
    float one = 1.0f;
    k = CTN_K_GATHER;
    TRY(ctn__ocl_arg(w, o, k, 0, sizeof nbody, &nbody));
    TRY(ctn__ocl_arg(w, o, k, 1, sizeof(cl_mem), &o->adj_offsets.mem));
    TRY(ctn__ocl_arg(w, o, k, 2, sizeof(cl_mem), &o->adj.mem));
    TRY(ctn__ocl_arg(w, o, k, 3, sizeof(cl_mem), &o->blocks.mem));
    TRY(ctn__ocl_arg(w, o, k, 4, sizeof(cl_mem), &o->dlambda.mem));
    TRY(ctn__ocl_arg(w, o, k, 5, sizeof one, &one));
    TRY(ctn__ocl_arg(w, o, k, 6, sizeof(cl_mem), &o->vel.mem));
    TRY(ctn__ocl_arg(w, o, k, 7, sizeof(cl_mem), &o->inertia.mem));
    TRY(ctn__ocl_launch(w, o, k, (size_t)nbody, "direct solver: impulse gather"));
residual:
    k = DK_RESIDUAL;
    int m = w->topo.joint_count;
    DARG(k, 0, m);
    DARG(k, 1, o->defs.mem);
    DARG(k, 2, o->blocks.mem);
    DARG(k, 3, o->vel.mem);
    DARG(k, 4, o->lambda.mem);
    DARG(k, 5, o->r2.mem);
    return dlaunch(w, o, k, (size_t)m, "direct solver: residual");
}

void ctn__ocl_direct_release(ctn_ocl *o) {
    ctn__ocl_tree_release(o);
    ctn_clbuf *bufs[] = {&o->dir_perm, &o->dir_link, &o->dir_D, &o->dir_L, &o->dir_U, &o->dir_b, &o->dir_x};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
        if (bufs[i]->mem) clReleaseMemObject(bufs[i]->mem);
    for (int k = 0; k < DK_COUNT; ++k)
        if (o->direct_kernel[k]) clReleaseKernel(o->direct_kernel[k]);
}
