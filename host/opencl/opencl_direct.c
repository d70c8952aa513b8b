/* Exact solver on the device (the OpenCL half of `direct`): chains here, forests in opencl_forest.c, and the
 * hybrid's outer Gauss-Seidel for the rows outside them.
 *
 * Scope: what the CPU's direct solver takes (host/solve/solver_direct.c), split the same way. Joint layouts
 * that are sets of simple paths (host/solve/direct_chain.c decides, and orders the positions) take the
 * joint-space chain path below; any other layout goes to the forest path of host/opencl/opencl_forest.c
 * (desc.debug.direct_forest = 1 sends chains there too). Loop closers, contacts, curves and joints the
 * elimination does not take are outside the exact solve for good; the rows of a chain or forest joint that
 * have finite bounds in a substep (hinge and slider limits, motors, ropes, swing cones) are cut out of it
 * for that substep by the kernels themselves (ctn_dd_cut_mask on the device: no read to the host), and the
 * joint's other rows stay in it.
 *
 * The hybrid (block Gauss-Seidel with the whole forest as one block; host/solve/solver_direct.c): per
 * substep an exact solve, then ctn__direct_outer(w) outer iterations (desc.iterations, or auto's raise) of (a) one Gauss-Seidel sweep over the rows
 * outside the exact solve and (b) an exact re-solve of the forest for the change their impulses made to its
 * residual (the velocities and impulses the last solve left are copied on the device: keep_reference). The
 * sweep is the Gauss-Seidel solver's coloured one (ctn_k_hybrid_gs around ctn_gs_slot_rows, kernels/ctn_solver.h:
 * the whole block of a joint outside for good or cut whole, else the cut rows alone):
 * one launch per colour holding such rows, each work-item skipping the slots inside the exact solve, the
 * overflow group on one work-item. Slots are sorted by colour, so this is the CPU's sweep in slot order, and
 * within a colour no two joints share a dynamic body: both backends apply the same updates in the same order.
 * On the forest path a few loop closers are solved through their Schur complement instead of swept, as on
 * the CPU (host/opencl/opencl_schur.c: in a substep without bounded rows, decided on the device by a gate
 * whose flags the Schur kernels and the sweep read as `active`). A layout with nothing outside the exact
 * solve launches no sweep; one whose
 * every chain or forest row is cut in every substep (ropes alone) launches no exact solve (it would change
 * nothing but the sign of a zero).
 *
 * The chain path solves (J M^-1 J^T + S + 1e-10 diag(J M^-1 J^T)) dl = r, r = target - J v - S lambda,
 * block tridiagonal along each path, with the node steps of kernels/ctn_direct.h that the CPU runs
 * (ctn_dd_chain_factor_node, _forward_node, _backward_node) in the CPU's segment walk (kernels/catena.cl,
 * ctn_k_chain_*): the position sequence is cut into P segments, of about CHAIN_SEGMENT positions on a GPU, as
 * the CPU's chain path cuts it on a CPU device (desc.debug.chain_segment sets a length on either), one
 * work-item eliminates each towards one end with a
 * spike to the separator behind it, one work-item solves the P - 1 separators, and the segments substitute
 * back in parallel. Five launches per solve, whatever the length:
 *     assemble (per position) | factor + forward (per segment) | separators (1 item) |
 *     backward + impulses (per segment) | velocities (per body);
 * the last solve of a substep leaves its velocities to the integration, which runs them per body first
 * (ctn_k_chain_velocity_integrate; ctn_k_chain_velocity_project in the projection): 4 launches of their
 * own. The residual of the last substep, read by the step's statistics only, is taken by the projection's
 * first rows launch before it rebuilds the rows. In a Newton step of the projection on a chain whose every
 * joint is a position, the rows are built by the assembly itself (ctn_k_chain_project_assemble) and the
 * factor takes the Newton decision (the largest error folded by an atomic maximum, kernels/catena_stages.cl):
 * 5 launches per Newton step, against 8 before (rows, decision, 5, integration).
 * With the hybrid, a substep is 1 + iterations exact solves, iterations sweeps (and the residual); the
 * re-solves run the same launches with rhs_only set: right-hand sides and substitutions through the factor,
 * spikes and separator pivots of the substep's first solve, as the CPU reuses its factor.
 * The segment count depends on the length and the device type only, never on the device's thread count,
 * so every thread count gives the same bits; with the same P as the CPU's chain path (a CPU device by
 * default, a GPU when the tests force the CPU's count) the two give the same bits too (docs/design.md,
 * "CPU and OpenCL agreement"). Requires cl_khr_fp64 (checked; without it the solver is refused, never run
 * in float). Every kernel reads an `active` flag (ctn__ocl_direct_active): the projection's later Newton
 * steps turn into no-ops once its error is small, without a read to the host. Launches per step of
 * chain:100000 released horizontal (bench/bench_chain, PoCL): 30 at one substep (49 before), 46 at four
 * (68); bench/results/2026-11-26-vm-opencl-launches.md. */
#include "opencl/opencl_internal.h"
#include "solve/direct_internal.h"
#include "ctn_direct.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Positions per segment on a GPU. Costs per solve: the segments' work (about 1.8x a serial pass for a
 * middle segment with its spike) spread over the device, plus the separators' serial pass of
 * m / CHAIN_SEGMENT nodes on one work-item. A CPU device takes the CPU's split instead (upload_chain). */
#define CHAIN_SEGMENT 128

ctn_status ctn__ocl_direct_unsupported(ctn_world *w, const char *why) {
    return ctn__fail(w, CTN_ERR_UNSUPPORTED, "desc.solver: the direct solver on the OpenCL backend cannot run on this device: %s "
                     "(use the CPU backend for direct, or gs, jacobi or cg with OpenCL)", why);
}

/* The sweep and the residual run over ranges whose length changes with every contact set: they get a
 * fixed work-group size (the GS colour kernel's, within their own limits) and a padded range (their
 * work-items past the end return), since a CPU device (PoCL) compiles a kernel again for every new
 * work-group size it picks itself (measured: a 100-link capsule chain coiling on a floor took 460 ms per
 * step with automatic sizes). The chain path's ranges are fixed per topology and keep the driver's choice. */
static ctn_status dlaunch(ctn_world *w, ctn_ocl *o, int k, size_t items, const char *what) {
    size_t local = o->dir_local;
    if (k == CTN_K_HYBRID_GS && items > 1 && local > 0)
        return ctn__ocl_enqueue(w, o, k, (items + local - 1) / local * local, &local, what);
    return ctn__ocl_enqueue(w, o, k, items, NULL, what);
}

/* Kernels on first use: only devices with cl_khr_fp64 compile them (kernels/catena.cl). */
static ctn_status create_kernels(ctn_world *w, ctn_ocl *o) {
    if (o->direct_state == 1) return CTN_OK;
    if (o->direct_state < 0) return ctn__ocl_direct_unsupported(w, o->direct_why);
    cl_device_fp_config fp = 0;
    if (clGetDeviceInfo(o->device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL) != CL_SUCCESS || fp == 0) {
        o->direct_state = -1;
        snprintf(o->direct_why, sizeof o->direct_why, "the device has no double precision (cl_khr_fp64)");
        return ctn__ocl_direct_unsupported(w, o->direct_why);
    }
    int failed = 0;
    cl_int e = ctn__ocl_create_kernels(o, CTN_K_CHAIN_FIRST, CTN_K_CHAIN_END, &failed);
    if (e != CL_SUCCESS) {
        o->direct_state = -1;
        snprintf(o->direct_why, sizeof o->direct_why, "clCreateKernel(%s): %s (is cl_khr_fp64 enabled in the kernel compiler?)",
                 ctn__ocl_kernel_table[failed].name, ctn__cl_error_name(e));
        return ctn__ocl_direct_unsupported(w, o->direct_why);
    }
    o->dir_local = o->local[CTN_K_GS_COLOUR]; /* within both kernels' own limits */
    size_t kmax = 0;
    if (clGetKernelWorkGroupInfo(o->kernel[CTN_K_HYBRID_GS], o->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax, &kmax, NULL) != CL_SUCCESS)
        kmax = 1;
    if (kmax < o->dir_local) o->dir_local = kmax;
    /* the projection's assembly folds its work-group's largest error pairwise: a power of two */
    if (clGetKernelWorkGroupInfo(o->kernel[CTN_K_CHAIN_PROJECT_ASSEMBLE], o->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax, &kmax, NULL) != CL_SUCCESS)
        kmax = 1;
    if (kmax > o->local[CTN_K_PROJECT_PREPARE]) kmax = o->local[CTN_K_PROJECT_PREPARE];
    for (o->dir_fold_local = 1; 2 * o->dir_fold_local <= kmax;) o->dir_fold_local *= 2;
    int one = 1;
    TRY(ctn__ocl_upload(w, o, &o->dir_one, &one, sizeof one, "the solver's active flag"));
    o->direct_state = 1;
    return CTN_OK;
}

cl_mem ctn__ocl_direct_active(const ctn_ocl *o) { return o->projecting && o->proj_state.mem ? o->proj_state.mem : o->dir_one.mem; }

/* Segments of m positions of about `segment` each (0: one), and their separators sep[0..P] as
 * host/solve/direct_chain.c places them (sep[0] = -1, sep[P] = m). */
static int place_separators(int m, int segment, int *sep) {
    int P = segment > 0 ? (m + segment - 1) / segment : 1;
    if (P > (m + 1) / 2) P = (m + 1) / 2;
    if (P < 1) P = 1;
    int interior = m - (P - 1);
    sep[0] = -1;
    for (int k = 1; k <= P; ++k) sep[k] = sep[k - 1] + interior / P + (k - 1 < interior % P) + 1;
    return P;
}

/* Position records, slot -> position map and separators of chain layout c, uploaded; the system's
 * buffers reserved. */
static ctn_status upload_chain(ctn_world *w, ctn_ocl *o, const direct_chain *c) {
    const int *slot, *shared;
    const unsigned char *n, *side, *dyn;
    int m = ctn__chain_positions(c, &slot, &shared, &n, &side, &dyn), joints = w->topo.joint_count;
    int segment = w->desc.debug.chain_segment >= 0 ? w->desc.debug.chain_segment : CHAIN_SEGMENT;
    /* a CPU device takes the CPU's split (one segment, two from 1024 positions): its cores gain little from
     * more, and the two backends then eliminate in the same order, bit for bit; a GPU needs the parallel
     * segments (docs/design.md, "CPU and OpenCL agreement") */
    const int *cpu_sep = NULL;
    int cpu_P = ctn__chain_separators(c, &cpu_sep);
    cl_device_type type = 0;
    if (clGetDeviceInfo(o->device, CL_DEVICE_TYPE, sizeof type, &type, NULL) != CL_SUCCESS) type = 0;
    int cpu_split = w->desc.debug.chain_segment < 0 && (type & CL_DEVICE_TYPE_CPU) != 0;
    int *rec = ctn__malloc(((size_t)m + 1) * CTN_CH_INTS * sizeof *rec), *slot_pos = ctn__malloc(((size_t)joints + 1) * sizeof *slot_pos);
    int *sep = ctn__malloc(((size_t)m + 3) * sizeof *sep);
    ctn_status st = CTN_OK;
    if (!rec || !slot_pos || !sep) {
        ctn__free(rec), ctn__free(slot_pos), ctn__free(sep);
        return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory ordering the chains for the direct solver");
    }
    size_t ko = 0, co = 0, vo = 0;
    int P = cpu_split ? cpu_P : place_separators(m, segment, sep);
    if (cpu_split) memcpy(sep, cpu_sep, ((size_t)P + 1) * sizeof *sep);
    for (int s = 0; s < joints; ++s) slot_pos[s] = -1;
    for (int p = 0, j = 1; p < m; ++p) {
        int *r = rec + CTN_CH_INTS * (size_t)p;
        int separator = j < P && sep[j] == p;
        j += separator;
        slot_pos[slot[p]] = p;
        /* n is NULL where every position has the same rows: each position's from its joint (as the layout counted them) */
        int np = n ? n[p] : ctn__direct_rows_at(&w->topo, slot[p]);
        int nn = p + 1 < m ? (n ? n[p + 1] : ctn__direct_rows_at(&w->topo, slot[p + 1])) : 0;
        /* a 3-row pivot inside a segment is kept as its lower triangle (CTN_CH_PACKED); a separator's stays full,
         * as the separators' kernel accumulates and factors it in place */
        int packed = np == 3 && !separator;
        r[CTN_CH_SLOT] = slot[p], r[CTN_CH_N] = np, r[CTN_CH_SHARED] = shared[p], r[CTN_CH_SIDE] = side[p];
        r[CTN_CH_DYN] = dyn[p] | (packed ? CTN_CH_PACKED : 0);
        r[CTN_CH_K] = (int)ko, r[CTN_CH_C] = (int)co, r[CTN_CH_V] = (int)vo;
        ko += packed ? 6 : (size_t)np * np;
        vo += np;
        co += (size_t)np * nn;
    }
    if (ko > 0x7fffffff || 6 * vo > 0x7fffffff) st = ctn__fail(w, CTN_ERR_LIMIT, "direct solver on OpenCL: %d chain positions are too many", m);
    if (st == CTN_OK) st = ctn__ocl_upload(w, o, &o->dir_pos, rec, (size_t)m * CTN_CH_INTS * sizeof *rec, "the chain positions");
    if (st == CTN_OK) st = ctn__ocl_upload(w, o, &o->dir_slot_pos, slot_pos, (size_t)joints * sizeof *slot_pos, "the chain slots");
    if (st == CTN_OK) st = ctn__ocl_upload(w, o, &o->dir_sep, sep, ((size_t)P + 1) * sizeof *sep, "the chain separators");
    ctn__free(rec), ctn__free(slot_pos), ctn__free(sep);
    TRY(st);
    /* K: each position's pivot, n x n (a 3-row one inside a segment as its lower triangle, 6 doubles), in double from
     * its assembly (a launch of its own) to the factor, which inverts it (in place, or through the segment record's
     * scratch where packed); the factor kernel's forward loop reads P^-1 back from it, so the velocity solve needs it in
     * double (the CPU, whose factor walk assembles and substitutes as it goes, keeps a chain of rigid ball joints'
     * P^-1 in float: docs/design.md, section 3). */
    TRY(ctn__ocl_reserve(w, o, &o->dir_K, (ko + 1) * sizeof(double), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->dir_C, (co + 1) * sizeof(double), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->dir_F, (P > 2 ? 6 * vo + 1 : 1) * sizeof(double), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->dir_y, (vo + 1) * sizeof(double), NULL));
    TRY(ctn__ocl_reserve(w, o, &o->dir_seg, (size_t)P * CTN_CS_DOUBLES * sizeof(double), NULL));
    o->direct_n = m;
    o->direct_segments = P;
    if (w->desc.debug.trace)
        ctn__log(w, CTN_LOG_DEBUG, "direct (OpenCL chains): %d positions in %d segments%s, %d launches per solve", m, P,
                 cpu_split ? " (the CPU's split)" : "", P > 1 ? 5 : 4);
    return CTN_OK;
}

/* Whether joint d can have finite impulse bounds (ctn_joint_rows: contacts, limits, motors, ropes, swing
 * cones): a joint of the exact solve that cannot is never cut, so its colour needs no sweep for it. */
int ctn__ocl_may_be_bounded(const ctn_joint_def *d) { return ctn__joint_may_be_bounded(d); }

/* Whether every row of every block of joint d has a bound (a contact; a rope, the one row of its distance
 * joint): such a joint is cut whole in every substep. A limit, swing or motor row is cut alone, and the
 * joint's other rows stay in the exact solve. */
int ctn__ocl_always_bounded(const ctn_joint_def *d) {
    return d->type == CTN_JT_CONTACT || (d->type == CTN_JT_DISTANCE && (d->flags & CTN_JF_ROPE));
}

/* The hybrid's split hyb[slot] uploaded, and its sweep: per colour (and the overflow group) the slot range
 * from its first to its last slot that may be outside the exact solve, none for a colour without one. */
static ctn_status hybrid_layout(ctn_world *w, ctn_ocl *o, const int *hyb) {
    const ctn_topology *t = &w->topo;
    int m = t->joint_count, n = 0;
    TRY(ctn__ocl_upload(w, o, &o->dir_hyb, hyb, (size_t)m * sizeof *hyb, "the hybrid's split"));
    int *launch = ctn__malloc(3 * ((size_t)t->colour_count + 1) * sizeof *launch);
    if (!launch) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory scheduling the direct solver's Gauss-Seidel sweep");
    for (int c = 0; c <= t->colour_count; ++c) {
        int first = -1, last = -1;
        for (int slot = t->colour_offsets[c]; slot < t->colour_offsets[c + 1]; ++slot)
            if (hyb[slot] == 1 || (hyb[slot] == 2 && ctn__ocl_may_be_bounded_at(t, slot))) {
                if (first < 0) first = slot;
                last = slot;
            }
        if (first < 0) continue;
        launch[3 * n] = first, launch[3 * n + 1] = last + 1, launch[3 * n + 2] = c == t->colour_count;
        n++;
    }
    ctn__free(o->hyb_launch);
    o->hyb_launch = launch;
    o->hyb_launches = n;
    /* every row of the chain or forest cut in every substep (ropes alone): the exact solves would change
     * nothing, the hybrid is the sweep alone */
    o->hyb_all_exact = 1;
    for (int slot = 0; slot < m; ++slot) o->hyb_all_exact &= hyb[slot] != 1;
    o->hyb_exact = 0;
    for (int slot = 0; slot < m && !o->hyb_exact; ++slot) o->hyb_exact = hyb[slot] == 2 && !ctn__ocl_always_bounded_at(t, slot);
    if (w->desc.debug.trace && n > 0)
        ctn__log(w, CTN_LOG_DEBUG, "direct (OpenCL hybrid): %d launches per Gauss-Seidel sweep, %d sweeps per substep", n, ctn__direct_outer(w));
    return CTN_OK;
}

ctn_status ctn__ocl_direct_prepare(ctn_world *w, ctn_ocl *o) {
    TRY(create_kernels(w, o));
    if (o->have_direct_layout && o->direct_version == w->topology_version) return CTN_OK;
    o->have_direct_layout = 0;
    direct_chain *c = NULL;
    int chain = w->desc.debug.direct_forest == 1 ? 0 : ctn__chain_build(w, &c, 0); /* 0: the CPU's split (upload_chain) */
    if (chain < 0) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory ordering the chains for the direct solver");
    int joints = w->topo.joint_count, *hyb = ctn__calloc((size_t)joints + 1, sizeof *hyb);
    if (!hyb) {
        ctn__chain_free(c);
        return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory splitting the joints for the direct solver");
    }
    o->direct_forest = !chain;
    o->schur_rows = 0; /* the forest path's prepare sets it (host/opencl/opencl_schur.c) */
    ctn_status st;
    if (chain) {
        const int *slot, *shared;
        const unsigned char *n, *side, *dyn;
        int m = ctn__chain_positions(c, &slot, &shared, &n, &side, &dyn);
        for (int p = 0; p < m; ++p) hyb[slot[p]] = 2; /* every other slot joins two non-dynamic bodies */
        st = upload_chain(w, o, c);
    } else {
        st = ctn__ocl_forest_prepare(w, o, hyb);
    }
    if (st == CTN_OK) st = hybrid_layout(w, o, hyb);
    ctn__chain_free(c);
    ctn__free(hyb);
    TRY(st);
    o->direct_version = w->topology_version;
    o->have_direct_layout = 1;
    return CTN_OK;
}

/* The arguments that the two chain assembly kernels share (ctn_k_chain_assemble,
 * ctn_k_chain_project_assemble): positions, rows, bodies, impulses and the system K, C, y. */
static ctn_status chain_system_args(ctn_world *w, ctn_ocl *o, int k) {
#define SYS(name, v) ARG_OF2(k, CHAIN_ASSEMBLE, CHAIN_PROJECT_ASSEMBLE, name, v)
    int m = o->direct_n;
    SYS(m, m);
    SYS(pos, o->dir_pos.mem);
    SYS(defs, o->defs.mem);
    SYS(blocks, o->blocks.mem);
    SYS(vel, o->vel.mem);
    SYS(inertia, o->inertia.mem);
    SYS(lambda, o->lambda.mem);
    SYS(ls, w->topo.stride);
    SYS(K, o->dir_K.mem);
    SYS(C, o->dir_C.mem);
    SYS(y, o->dir_y.mem);
    return CTN_OK;
#undef SYS
}

/* The arguments that the three chain velocity kernels share (ctn_k_chain_velocity and its fusions
 * with the substep's and the Newton step's integration): each body's joints, their solution y and the
 * body's velocity and inertia. */
static ctn_status chain_velocity_args(ctn_world *w, ctn_ocl *o, int k) {
#define VEL(name, v) ARG_OF3(k, CHAIN_VELOCITY, CHAIN_VELOCITY_PROJECT, CHAIN_VELOCITY_INTEGRATE, name, v)
    int nbody = w->body_count;
    VEL(nb, nbody);
    VEL(adj_offsets, o->adj_offsets.mem);
    VEL(adj, o->adj.mem);
    VEL(slot_pos, o->dir_slot_pos.mem);
    VEL(pos, o->dir_pos.mem);
    VEL(blocks, o->blocks.mem);
    VEL(y, o->dir_y.mem);
    VEL(vel, o->vel.mem);
    VEL(inertia, o->inertia.mem);
    return CTN_OK;
#undef VEL
}

/* A Newton step's rows with the assembly (ctn_k_chain_project_assemble): the SOLVE entry covers PREPARE and
 * PROJECT_ROWS (ctn__ocl_plan on a chain whose every joint is a position), prm: the rows' parameters. */
static ctn_status project_assemble(ctn_world *w, ctn_ocl *o, const ctn_step_params *prm, int residual) {
    int m = o->direct_n, k = CTN_K_CHAIN_PROJECT_ASSEMBLE;
    size_t L = o->dir_fold_local;
    TRY(chain_system_args(w, o, k));
    ARG(CHAIN_PROJECT_ASSEMBLE, state, o->proj_state.mem);
    ARG(CHAIN_PROJECT_ASSEMBLE, pose, o->pose.mem);
    ARG(CHAIN_PROJECT_ASSEMBLE, split, o->split.mem);
    ARG(CHAIN_PROJECT_ASSEMBLE, prm, *prm);
    ARG(CHAIN_PROJECT_ASSEMBLE, err, o->proj_err.mem);
    LOCAL_ARG(CHAIN_PROJECT_ASSEMBLE, scratch, L * sizeof(float));
    ARG(CHAIN_PROJECT_ASSEMBLE, residual, residual);
    ARG(CHAIN_PROJECT_ASSEMBLE, real_vel, o->real_vel.mem);
    ARG(CHAIN_PROJECT_ASSEMBLE, real_lambda, o->real_lambda.mem);
    ARG(CHAIN_PROJECT_ASSEMBLE, r2, o->real_r2.mem);
    return ctn__ocl_enqueue(w, o, k, ((size_t)m + L - 1) / L * L, &L,
                            "projection: rows and chain assembly");
}

int ctn__ocl_direct_fuses_rows(const ctn_world *w, const ctn_ocl *o) {
    return ctn__ocl_direct_defers_velocities(w, o) && o->direct_n == w->topo.joint_count;
}

int ctn__ocl_direct_defers_velocities(const ctn_world *w, const ctn_ocl *o) {
    return w->solver == CTN_SOLVER_DIRECT && w->topo.joint_count > 0 && o->direct_state == 1 && o->have_direct_layout &&
           !o->direct_forest && o->direct_n > 0 && o->hyb_exact;
}

/* decide: the projection's Newton record `active` awaits its decision (its rows are built before the
 * factor), which the factor takes (into proj_next, then swapped in for the later kernels); the assembly
 * before it runs while the record before the decision is active. defer: the velocities are left to the
 * integration, the launch after this solve (its entry covers CTN_STAGE_VELOCITIES). rows: the assembly builds
 * a Newton step's rows with these parameters (NULL: none), and the last substep's residual when residual. */
static ctn_status solve_chain(ctn_world *w, ctn_ocl *o, cl_mem active, int rhs_only, int decide, int defer, const ctn_step_params *rows,
                              int residual) {
    int m = o->direct_n, P = o->direct_segments, nbody = w->body_count, k = CTN_K_CHAIN_ASSEMBLE;
    TRY(chain_system_args(w, o, k));
    ARG(CHAIN_ASSEMBLE, active, active);
    ARG(CHAIN_ASSEMBLE, rhs_only, rhs_only);
    int ref = rhs_only && rhs_only != CTN_DD_RESOLVE_FULL; /* (R): the change since the last solve */
    cl_mem vref = ref ? o->dir_vref.mem : o->vel.mem, lref = ref ? o->dir_lref.mem : o->lambda.mem;
    ARG(CHAIN_ASSEMBLE, vel_ref, vref); /* read by re-solves only (ctn__ocl_solve_direct) */
    ARG(CHAIN_ASSEMBLE, lambda_ref, lref);
    if (rows) TRY(project_assemble(w, o, rows, residual));
    else TRY(dlaunch(w, o, k, (size_t)m, "direct solver: chain assembly"));
    k = CTN_K_CHAIN_FACTOR;
    ARG(CHAIN_FACTOR, P, P);
    ARG(CHAIN_FACTOR, pos, o->dir_pos.mem);
    ARG(CHAIN_FACTOR, sep, o->dir_sep.mem);
    ARG(CHAIN_FACTOR, defs, o->defs.mem); /* a packed position's pivot is formed by the factor walk */
    ARG(CHAIN_FACTOR, blocks, o->blocks.mem);
    ARG(CHAIN_FACTOR, inertia, o->inertia.mem);
    ARG(CHAIN_FACTOR, K, o->dir_K.mem);
    ARG(CHAIN_FACTOR, C, o->dir_C.mem);
    ARG(CHAIN_FACTOR, F, o->dir_F.mem);
    ARG(CHAIN_FACTOR, y, o->dir_y.mem);
    ARG(CHAIN_FACTOR, seg, o->dir_seg.mem);
    ARG(CHAIN_FACTOR, active, active);
    ARG(CHAIN_FACTOR, rhs_only, rhs_only);
    ARG(CHAIN_FACTOR, decide, decide);
    cl_mem decided = decide ? o->proj_next.mem : active;
    ARG(CHAIN_FACTOR, decided, decided);
    TRY(dlaunch(w, o, k, (size_t)P, "direct solver: chain segments"));
    if (decide) ctn__ocl_project_swap(o), active = ctn__ocl_direct_active(o);
    if (P > 1) {
        k = CTN_K_CHAIN_SEPARATORS;
        ARG(CHAIN_SEPARATORS, P, P);
        ARG(CHAIN_SEPARATORS, pos, o->dir_pos.mem);
        ARG(CHAIN_SEPARATORS, sep, o->dir_sep.mem);
        ARG(CHAIN_SEPARATORS, K, o->dir_K.mem);
        ARG(CHAIN_SEPARATORS, y, o->dir_y.mem);
        ARG(CHAIN_SEPARATORS, seg, o->dir_seg.mem);
        ARG(CHAIN_SEPARATORS, active, active);
        ARG(CHAIN_SEPARATORS, rhs_only, rhs_only);
        TRY(dlaunch(w, o, k, 1, "direct solver: chain separators"));
    }
    k = CTN_K_CHAIN_BACK;
    ARG(CHAIN_BACK, P, P);
    ARG(CHAIN_BACK, m, m);
    ARG(CHAIN_BACK, pos, o->dir_pos.mem);
    ARG(CHAIN_BACK, sep, o->dir_sep.mem);
    ARG(CHAIN_BACK, K, o->dir_K.mem);
    ARG(CHAIN_BACK, C, o->dir_C.mem);
    ARG(CHAIN_BACK, F, o->dir_F.mem);
    ARG(CHAIN_BACK, y, o->dir_y.mem);
    ARG(CHAIN_BACK, lambda, o->lambda.mem);
    ARG(CHAIN_BACK, ls, w->topo.stride);
    ARG(CHAIN_BACK, blocks, o->blocks.mem);
    ARG(CHAIN_BACK, active, active);
    TRY(dlaunch(w, o, k, (size_t)P, "direct solver: chain back-substitution"));
    if (defer) return CTN_OK;
    k = CTN_K_CHAIN_VELOCITY;
    TRY(chain_velocity_args(w, o, k));
    ARG(CHAIN_VELOCITY, active, active);
    return dlaunch(w, o, k, (size_t)nbody, "direct solver: chain velocities");
}

/* rhs_only: a re-solve of the hybrid through the factor of the substep's first solve (the pivots depend on
 * the rows and masses only), as the CPU reuses its factor. */
static ctn_status exact_solve(ctn_world *w, ctn_ocl *o, cl_mem active, int rhs_only, int decide, int defer, const ctn_step_params *rows,
                              int residual) {
    if (o->direct_forest) return ctn__ocl_forest_solve(w, o, active, rhs_only);
    return o->direct_n > 0 ? solve_chain(w, o, active, rhs_only, decide, defer, rows, residual) : CTN_OK;
}

ctn_status ctn__ocl_direct_velocity_integrate(ctn_world *w, ctn_ocl *o, float h, float gs_h, int begin, cl_mem rest) {
    int k = CTN_K_CHAIN_VELOCITY_INTEGRATE, nbody = w->body_count;
    TRY(chain_velocity_args(w, o, k));
    ARG(CHAIN_VELOCITY_INTEGRATE, pose, o->pose.mem);
    ARG(CHAIN_VELOCITY_INTEGRATE, props, o->props.mem);
    ARG(CHAIN_VELOCITY_INTEGRATE, h, h);
    ARG(CHAIN_VELOCITY_INTEGRATE, defs, o->defs.mem);
    ARG(CHAIN_VELOCITY_INTEGRATE, lambda, o->lambda.mem);
    ARG(CHAIN_VELOCITY_INTEGRATE, ls, w->topo.stride);
    ARG(CHAIN_VELOCITY_INTEGRATE, gs_h, gs_h);
    ARG(CHAIN_VELOCITY_INTEGRATE, begin, begin);
    ARG(CHAIN_VELOCITY_INTEGRATE, rest, rest);
    return dlaunch(w, o, k, (size_t)nbody, "direct solver: chain velocities and integration");
}

ctn_status ctn__ocl_direct_velocity_project(ctn_world *w, ctn_ocl *o, const ctn_step_params *prm) {
    int k = CTN_K_CHAIN_VELOCITY_PROJECT, nbody = w->body_count;
    float gs_h = prm->geometric_stiffness > 0.0f ? prm->geometric_stiffness * prm->h : 0.0f;
    TRY(chain_velocity_args(w, o, k));
    ARG(CHAIN_VELOCITY_PROJECT, state, o->proj_state.mem);
    ARG(CHAIN_VELOCITY_PROJECT, pose, o->pose.mem);
    ARG(CHAIN_VELOCITY_PROJECT, props, o->props.mem);
    ARG(CHAIN_VELOCITY_PROJECT, h, prm->h);
    ARG(CHAIN_VELOCITY_PROJECT, kept, o->proj_pose.mem);
    ARG(CHAIN_VELOCITY_PROJECT, defs, o->defs.mem);
    ARG(CHAIN_VELOCITY_PROJECT, lambda, o->real_lambda.mem);
    ARG(CHAIN_VELOCITY_PROJECT, ls, w->topo.stride);
    ARG(CHAIN_VELOCITY_PROJECT, gs_h, gs_h);
    return dlaunch(w, o, k, (size_t)nbody, "projection: chain velocities and integration");
}

/* One Gauss-Seidel sweep over the rows outside the exact solve, colour by colour (see the header). */
static ctn_status hybrid_sweep(ctn_world *w, ctn_ocl *o, cl_mem active) {
    int k = CTN_K_HYBRID_GS;
    ARG(HYBRID_GS, hyb, o->dir_hyb.mem);
    ARG(HYBRID_GS, defs, o->defs.mem);
    ARG(HYBRID_GS, blocks, o->blocks.mem);
    ARG(HYBRID_GS, lambda, o->lambda.mem);
    ARG(HYBRID_GS, ls, w->topo.stride);
    ARG(HYBRID_GS, vel, o->vel.mem);
    ARG(HYBRID_GS, inertia, o->inertia.mem);
    ARG(HYBRID_GS, active, active);
    for (int l = 0; l < o->hyb_launches; ++l) {
        const int *L = o->hyb_launch + 3 * l;
        ARG(HYBRID_GS, begin, L[0]);
        ARG(HYBRID_GS, end, L[1]);
        ARG(HYBRID_GS, serial, L[2]);
        TRY(dlaunch(w, o, k, L[2] ? 1 : (size_t)(L[1] - L[0]), "direct solver: Gauss-Seidel sweep"));
    }
    return CTN_OK;
}

/* The velocities and impulses the exact solve just left, copied on the device: a re-solve's right-hand side
 * is their change since ((R) of kernels/ctn_direct_rhs.h), as the CPU's keep_reference (host/solve/solver_direct.c). */
static ctn_status keep_reference(ctn_world *w, ctn_ocl *o) {
    size_t vbytes = (size_t)w->body_count * sizeof(ctn_vel), lbytes = ctn__ocl_impulse_bytes(w);
    TRY(ctn__ocl_reserve(w, o, &o->dir_vref, vbytes, NULL));
    TRY(ctn__ocl_reserve(w, o, &o->dir_lref, ctn__ocl_impulse_room(w), NULL));
    TRY(ctn__ocl_copy(w, o, o->vel.mem, o->dir_vref.mem, vbytes, "the direct solver's reference velocities"));
    return ctn__ocl_copy(w, o, o->lambda.mem, o->dir_lref.mem, lbytes, "the direct solver's reference impulses");
}

ctn_status ctn__ocl_solve_direct(ctn_world *w, ctn_ocl *o, uint64_t covers, const ctn_step_params *prm) {
    int m = w->topo.joint_count;
    if (m == 0) return CTN_OK;
    /* while projecting: the chain factor takes the Newton decision, else a launch of its own does; on a
     * chain the last exact solve leaves its velocities to the integration after it when the entry does not
     * cover them (ctn__ocl_plan), and builds the Newton step's rows in its assembly when it covers PREPARE; a
     * Newton step's entry covers PROJECT_DECIDE, the decision on the rows just built */
    int chain = !o->direct_forest && o->direct_n > 0 && o->hyb_exact;
    int defer = chain && !(covers & CTN_STAGE_BIT(CTN_STAGE_VELOCITIES));
    const ctn_step_params *rows = chain && (covers & CTN_STAGE_BIT(CTN_STAGE_PREPARE)) ? prm : NULL;
    int residual = (covers & CTN_STAGE_BIT(CTN_STAGE_RESIDUAL)) != 0;
    int decides = o->projecting && (covers & CTN_STAGE_BIT(CTN_STAGE_PROJECT_DECIDE)); /* the Newton step's rows */
    int decide = decides && chain;
    /* a few loop closers on the forest path: their Schur complement (always, or in the substeps without
     * bounded rows, as the CPU: schur gives the flags of the two branches), else the sweeps */
    int schur = o->direct_forest && o->schur_rows > 0 && o->hyb_exact;
    int sweep = o->hyb_launches > 0 && (!schur || o->schur_gate > 0);
    int outer = sweep || schur ? ctn__direct_outer(w) : 0;
    if (decides && !decide) TRY(ctn__ocl_project_decide(w, o));
    if (o->hyb_exact) TRY(exact_solve(w, o, ctn__ocl_direct_active(o), 0, decide, defer && outer == 0, rows, rows && residual));
    cl_mem active = ctn__ocl_direct_active(o), on = active, off = active, mix = active;
    if (schur && outer > 0) TRY(ctn__ocl_schur_factor(w, o, active, &on, &off, &mix));
    for (int it = 0; it < outer; ++it) {
        if (o->hyb_exact) TRY(keep_reference(w, o));
        if (schur) TRY(ctn__ocl_schur_impulse(w, o, on));
        if (sweep) TRY(hybrid_sweep(w, o, off));
        if (o->hyb_exact) TRY(exact_solve(w, o, active, 1, 0, defer && it == outer - 1, NULL, 0));
        if (schur && o->schur_gate > 0) { /* closers exact while forest rows are cut (solver_direct.c) */
            TRY(keep_reference(w, o));
            TRY(ctn__ocl_schur_impulse(w, o, mix));
            TRY(exact_solve(w, o, mix, 1, 0, 0, NULL, 0));
        }
    }
    /* the residual per slot (RATTLE's solves run whole); the velocity step's substeps leave the last one's to the
     * projection's first rows launch (ctn__ocl_plan), and a projection's solve has none */
    if (!residual || o->projecting) return CTN_OK;
    int k = CTN_K_RATTLE_RESIDUAL;
    ARG(RATTLE_RESIDUAL, m, m);
    ARG(RATTLE_RESIDUAL, defs, o->defs.mem);
    ARG(RATTLE_RESIDUAL, blocks, o->blocks.mem);
    ARG(RATTLE_RESIDUAL, vel, o->vel.mem);
    ARG(RATTLE_RESIDUAL, lambda, o->lambda.mem);
    ARG(RATTLE_RESIDUAL, ls, w->topo.stride);
    ARG(RATTLE_RESIDUAL, r2, o->r2.mem);
    /* the driver's work-group size, as RATTLE's kernels: PoCL compiles a kernel per size, and the float
     * contractions of another size round the residual differently */
    return ctn__ocl_enqueue(w, o, k, (size_t)m, NULL, "direct solver: residual");
}

ctn_status ctn__ocl_direct_rattle_solve(ctn_world *w, ctn_ocl *o, int full_rhs) {
    if (w->topo.joint_count == 0 || !o->hyb_exact) return CTN_OK;
    return exact_solve(w, o, ctn__ocl_direct_active(o), full_rhs ? CTN_DD_RESOLVE_FULL : 0, 0, 0, NULL, 0);
}

/* RATTLE's condition on the layout (host/solve/pipeline.c, rattle_refusal), as ctn__direct_exact on the CPU. */
int ctn__ocl_direct_all_exact(const ctn_world *w) {
    const ctn_ocl *o = w->backend_data;
    return o && o->direct_state == 1 && o->have_direct_layout && o->direct_version == w->topology_version && o->hyb_all_exact &&
           o->schur_rows == 0;
}

void ctn__ocl_direct_release(ctn_ocl *o) {
    ctn__ocl_forest_release(o);
    ctn__ocl_schur_release(o);
    ctn_clbuf *bufs[] = {&o->dir_pos, &o->dir_slot_pos, &o->dir_sep, &o->dir_K,   &o->dir_C,   &o->dir_F,
                         &o->dir_y,   &o->dir_seg,      &o->dir_one, &o->dir_hyb, &o->dir_vref, &o->dir_lref};
    ctn__free(o->hyb_launch);
    o->hyb_launch = NULL;
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
        if (bufs[i]->mem) clReleaseMemObject(bufs[i]->mem);
    ctn__ocl_release_kernels(o, CTN_K_CHAIN_FIRST, CTN_K_CHAIN_END);
}
