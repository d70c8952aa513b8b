/* The CPU backend: the same per-item steps as the OpenCL kernels (kernels/ctn_solver.h), run as loops.
 * A colour's joints are independent, so its loop runs on OpenMP threads when the colour is large; the
 * result does not depend on the thread count. */
#include "core/world.h"
#include "ctn_solver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Below this many items a parallel loop costs more than it saves. */
#define CPU_PARALLEL_MIN 4096

typedef struct cpu_solver {
    int slots;              /* capacity of the per-joint arrays */
    int bodies;             /* capacity of the per-body arrays */
    ctn_block *blocks;
    float *dlambda;         /* Jacobi increments / CG direction p */
    float *cg_r, *cg_z, *cg_ap;
    ctn_vel *vel_copy;      /* velocities before forces (spring gather) / CG u = M^-1 J^T p / projection */
    ctn_pose *pose_copy;    /* poses before a projection step (project_positions) */
    int cg_warned;          /* issue 5: the CG -> GS fallback for bounded rows was reported */
} cpu_solver;

static ctn_status cpu_reserve(ctn_world *w, cpu_solver *c) {
    int m = w->topo.joint_count, n = w->body_count;
    if (m > c->slots) {
        size_t cap = (size_t)m + (size_t)m / 2 + 16;
        ctn_block *b = realloc(c->blocks, cap * sizeof *b);
        if (b) c->blocks = b;
        float *f[4] = {c->dlambda, c->cg_r, c->cg_z, c->cg_ap};
        int ok = b != NULL;
        for (int k = 0; k < 4 && ok; ++k) {
            float *p = realloc(f[k], 6 * cap * sizeof *p);
            if (!p) ok = 0;
            else f[k] = p;
        }
        c->dlambda = f[0], c->cg_r = f[1], c->cg_z = f[2], c->cg_ap = f[3];
        if (!ok) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for CPU solver arrays (%d joints)", m);
        c->slots = (int)cap;
    }
    if (n > c->bodies) {
        size_t cap = (size_t)n + (size_t)n / 2 + 16;
        ctn_vel *v = realloc(c->vel_copy, cap * sizeof *v);
        if (v) c->vel_copy = v;
        ctn_pose *p = v ? realloc(c->pose_copy, cap * sizeof *p) : NULL;
        if (p) c->pose_copy = p;
        if (!v || !p) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory for CPU solver arrays (%d bodies)", n);
        c->bodies = (int)cap;
    }
    return CTN_OK;
}

#ifdef _OPENMP /* issue 7: only the OpenMP loops use it (a -DCATENA_OPENMP=OFF build warned) */
static int cpu_threads(const ctn_world *w) { return w->desc.threads > 0 ? w->desc.threads : 0; }
#endif

/* ---- the phases of one substep ------------------------------------------------------------------- */

static void phase_prepare(ctn_world *w, cpu_solver *c, ctn_step_params prm) {
    const ctn_topology *t = &w->topo;
    int m = t->joint_count;
#ifdef _OPENMP
    int nt = cpu_threads(w);
#pragma omp parallel for schedule(static) if (m >= CPU_PARALLEL_MIN) num_threads(nt ? nt : omp_get_max_threads())
#endif
    for (int s = 0; s < m; ++s) ctn_prepare_slot(s, t->defs, w->pose, w->vel, w->inertia, t->split, prm, c->blocks);
}

static void phase_forces(ctn_world *w, cpu_solver *c, ctn_step_params prm) {
    const ctn_topology *t = &w->topo;
    ctn_vel *in = w->vel;
    if (t->spring_count > 0) {
        memcpy(c->vel_copy, w->vel, (size_t)w->body_count * sizeof *c->vel_copy);
        in = c->vel_copy;
    }
    for (int i = 0; i < w->body_count; ++i)
        ctn_forces_body(i, w->props, w->inertia, t->spring_adj_offsets, t->spring_adj, t->springs, w->pose, in, w->vel, prm);
}

static void phase_gather(ctn_world *w, cpu_solver *c, const float *l, float scale) {
    const ctn_topology *t = &w->topo;
    int n = w->body_count;
#ifdef _OPENMP
    int nt = cpu_threads(w);
#pragma omp parallel for schedule(static) if (n >= CPU_PARALLEL_MIN) num_threads(nt ? nt : omp_get_max_threads())
#endif
    for (int i = 0; i < n; ++i) ctn_apply_gather(i, t->adj_offsets, t->adj, c->blocks, l, scale, w->vel, w->inertia);
}

/* Coloured block Gauss-Seidel: colours in order, joints of a colour in parallel, then the overflow
 * group serially. Returns the sum of squared residuals of the last sweep. */
static double solve_gs(ctn_world *w, cpu_solver *c) {
    const ctn_topology *t = &w->topo;
    double r2 = 0.0;
    for (int it = 0; it < w->desc.iterations; ++it) {
        r2 = 0.0;
        for (int col = 0; col <= t->colour_count; ++col) {
            int begin = t->colour_offsets[col], end = t->colour_offsets[col + 1];
            int parallel = col < t->colour_count && end - begin >= CPU_PARALLEL_MIN;
            double sum = 0.0;
            (void)parallel;
#ifdef _OPENMP
            int nt = cpu_threads(w);
#pragma omp parallel for schedule(static) reduction(+ : sum) if (parallel) num_threads(nt ? nt : omp_get_max_threads())
#endif
            for (int s = begin; s < end; ++s) sum += ctn_gs_slot(s, t->defs, c->blocks, t->lambda, w->vel, w->inertia);
            r2 += sum;
        }
    }
    return r2;
}

/* Jacobi with mass splitting: every row from the same velocities, then every body gathers its rows'
 * M^-1 J^T dlambda (seed 003, Tonge et al. 2012). */
static double solve_jacobi(ctn_world *w, cpu_solver *c) {
    const ctn_topology *t = &w->topo;
    int m = t->joint_count;
    double r2 = 0.0;
    for (int it = 0; it < w->desc.iterations; ++it) {
        double sum = 0.0;
#ifdef _OPENMP
        int nt = cpu_threads(w);
#pragma omp parallel for schedule(static) reduction(+ : sum) if (m >= CPU_PARALLEL_MIN) num_threads(nt ? nt : omp_get_max_threads())
#endif
        for (int s = 0; s < m; ++s) sum += ctn_jacobi_slot(s, t->defs, c->blocks, t->lambda, w->vel, c->dlambda);
        r2 = sum;
        phase_gather(w, c, c->dlambda, 1.0f);
    }
    return r2;
}

/* Block-Jacobi-preconditioned conjugate gradient on (J M^-1 J^T + S) dlambda = r (seed 004), matrix-free:
 * A p = J (M^-1 J^T p) + S p through the same gather. Velocities follow lambda (v += alpha M^-1 J^T p),
 * so on exit v = v* + M^-1 J^T lambda as for the other solvers. Bilateral rows only. */
static double solve_cg(ctn_world *w, cpu_solver *c) {
    const ctn_topology *t = &w->topo;
    int m = t->joint_count, n = w->body_count;
    float *r = c->cg_r, *z = c->cg_z, *p = c->dlambda, *ap = c->cg_ap;
    ctn_vel *u = c->vel_copy;
    double rz = 0.0, rr = 0.0;
    for (int s = 0; s < m; ++s) {
        const ctn_block *b = &c->blocks[s];
        ctn_block_residual(b, ctn_load_vel(w->vel, t->defs[s].a), ctn_load_vel(w->vel, t->defs[s].b), &t->lambda[6 * s], &r[6 * s]);
        ctn_kinv_mul(b->kinv, ctn_block_rows(b), &r[6 * s], &z[6 * s]);
        for (int k = 0; k < 6; ++k) {
            if (k >= ctn_block_rows(b)) z[6 * s + k] = 0.0f;
            p[6 * s + k] = z[6 * s + k];
            rz += (double)r[6 * s + k] * z[6 * s + k];
            rr += (double)r[6 * s + k] * r[6 * s + k];
        }
    }
    /* Stop once the preconditioned residual fell by 1e-6 in norm: float32 CG carried further loses
     * conjugacy and drifts away from a solution it already reached. */
    const double rz_stop = 1e-12 * rz;
    for (int it = 0; it < w->desc.iterations && rz > rz_stop && rz > 0.0; ++it) {
        /* u = M^-1 J^T p per body */
        for (int i = 0; i < n; ++i) {
            ctn_vel ui;
            memset(&ui, 0, sizeof ui);
            if (t->adj_offsets[i] != t->adj_offsets[i + 1])
                ctn_gather_body(i, t->adj_offsets, t->adj, c->blocks, p, w->vel[i].inv_mass, w->inertia[i].inv_inertia, &ui.v, &ui.w);
            u[i] = ui;
        }
        double pap = 0.0;
        for (int s = 0; s < m; ++s) {
            const ctn_block *b = &c->blocks[s];
            float jv[CTN_MAX_ROWS];
            ctn_block_velocity(b, ctn_load_vel(u, t->defs[s].a), ctn_load_vel(u, t->defs[s].b), jv);
            for (int k = 0; k < 6; ++k) {
                float a = k < ctn_block_rows(b) ? jv[k] + b->soft[k] * p[6 * s + k] : 0.0f;
                ap[6 * s + k] = a;
                pap += (double)p[6 * s + k] * a;
            }
        }
        if (!(pap > 0.0)) break;
        float alpha = (float)(rz / pap);
        for (int k = 0; k < 6 * m; ++k) {
            t->lambda[k] += alpha * p[k];
            r[k] -= alpha * ap[k];
        }
        for (int i = 0; i < n; ++i) {
            if (t->adj_offsets[i] == t->adj_offsets[i + 1]) continue;
            w->vel[i].v = ctn_madd(w->vel[i].v, u[i].v, alpha);
            w->vel[i].w = ctn_madd(w->vel[i].w, u[i].w, alpha);
        }
        double rz_new = 0.0;
        rr = 0.0;
        for (int s = 0; s < m; ++s) {
            ctn_kinv_mul(c->blocks[s].kinv, ctn_block_rows(&c->blocks[s]), &r[6 * s], &z[6 * s]);
            for (int k = 0; k < 6; ++k) {
                if (k >= ctn_block_rows(&c->blocks[s])) z[6 * s + k] = 0.0f;
                rz_new += (double)r[6 * s + k] * z[6 * s + k];
                rr += (double)r[6 * s + k] * r[6 * s + k];
            }
        }
        float beta = (float)(rz_new / rz);
        rz = rz_new;
        for (int k = 0; k < 6 * m; ++k) p[k] = z[k] + beta * p[k];
    }
    return rr;
}

/* Issue 5: CG solves equalities only. When a block has finite impulse bounds (contacts, limits, motors,
 * ropes) the substep is solved by Gauss-Seidel instead; the switch is reported once per world through
 * the log callback. */
static int blocks_bounded(ctn_world *w, cpu_solver *c) {
    int m = w->topo.joint_count;
    for (int s = 0; s < m; ++s) {
        const ctn_block *b = &c->blocks[s];
        for (int k = 0; k < ctn_block_rows(b); ++k) {
            if (b->lo[k] > -0.5f * CTN_INF || b->hi[k] < 0.5f * CTN_INF) {
                if (!c->cg_warned) {
                    c->cg_warned = 1;
                    ctn__log(w, CTN_LOG_INFO,
                             "the CG solver handles bilateral rows only; joint %d has bounded rows (contact, limit, "
                             "motor or rope), so substeps with bounded rows are solved by Gauss-Seidel",
                             w->topo.order[s]);
                }
                return 1;
            }
        }
    }
    return 0;
}

/* Post-stabilisation of the exact solver (Cline and Pai 2003, "Post-stabilization for rigid body simulation
 * with contact and constraints"; seed 002 "constraint projection"): after the last substep, Newton steps of
 * the mass-weighted projection of the positions onto the manifold of the rigid bilateral joints,
 *     dx = M^-1 J^T mu,   (J M^-1 J^T) mu = -C(x),
 * each solved by the forest solver as a velocity problem on scratch arrays: zero velocities and impulses,
 * Baumgarte rows with beta = 1 and no regularisation (target -C/h), then x += h v (kernels/ctn_solver.h
 * ctn_prepare_slot and ctn_integrate_body, as in a substep). Velocities and impulses are left as they are.
 * A velocity-level step leaves a drift of about L (omega h)^2 / 2 per substep on a link turning at omega
 * (a whipping chain's tip); Newton removes it quadratically: it stops once the largest error of a projected
 * row is below CTN_PROJECT_TOL or after CTN_PROJECT_MAX steps, and a step that does not shrink the largest
 * error is undone (far from the manifold, at steps too large for the motion, Newton can overshoot).
 * The metric is the implicit step's, M plus the geometric-stiffness inertia of the last substep's impulses
 * (ctn_geometric_inertia_body), not M alone: along nearly straight runs of slender links the M-metric
 * correction turns links by angles far larger than the error (measured on chain:10000: 0.014 rad to fix
 * 2e-6 m), its second-order error exceeds the first and the step is undone; with the stiffness term links
 * under tension move along the chain instead (7e-4 rad) and one step takes 1.5e-6 m to 1.5e-8 m.
 * Compliant joints and joints with bounded rows (contacts, limits, motors, ropes) are not projected: their
 * rows get the bounds [0, 0]. */
static void project_positions(ctn_world *w, cpu_solver *c, ctn_step_params prm) {
    ctn_topology *t = &w->topo;
    int n = w->body_count, m = t->joint_count;
    float last = INFINITY; /* largest error before the last Newton step */
    ctn_vel *vel = w->vel;
    float *lambda = t->lambda;
    w->vel = c->vel_copy, t->lambda = c->dlambda;
    prm.stabilization = 1, prm.baumgarte = 1.0f, prm.warm_start = 0.0f;
    for (int steps = 0; steps < CTN_PROJECT_MAX; ++steps) {
        for (int i = 0; i < n; ++i) ctn_project_begin_body(i, vel, c->vel_copy);
        memset(c->dlambda, 0, 6 * (size_t)m * sizeof *c->dlambda);
        if (prm.geometric_stiffness > 0.0f)
            for (int i = 0; i < n; ++i)
                ctn_geometric_inertia_body(i, w->pose, w->props, t->adj_offsets, t->adj, t->defs, lambda,
                                           prm.geometric_stiffness * prm.h, w->inertia);
        phase_prepare(w, c, prm);
        float worst = 0.0f; /* largest |C| of a projected row (per slot in cg_r, free outside CG) */
        for (int s = 0; s < m; ++s) {
            ctn_project_slot(s, t->defs, c->blocks, prm.h, c->cg_r);
            worst = fmaxf(worst, c->cg_r[s]);
        }
        if (!(worst < last)) { /* the last step made it worse: undo it */
            memcpy(w->pose, c->pose_copy, (size_t)n * sizeof *w->pose);
            break;
        }
        if (!(worst > CTN_PROJECT_TOL)) break;
        last = worst;
        memcpy(c->pose_copy, w->pose, (size_t)n * sizeof *w->pose);
        ctn__solve_direct(w, c->blocks);
        for (int i = 0; i < n; ++i) ctn_integrate_body(i, w->pose, w->vel, w->props, w->inertia, prm.h);
    }
    for (int i = 0; i < n; ++i) w->inertia[i].inv_inertia = ctn_body_inverse_inertia(w->pose[i], w->props[i]);
    w->vel = vel, t->lambda = lambda;
}

static ctn_status cpu_step(ctn_world *w, ctn_step_stats *st) {
    cpu_solver *c = w->backend_data;
    ctn_status s = cpu_reserve(w, c);
    if (s != CTN_OK) return s;
    const ctn_topology *t = &w->topo;
    int substeps = w->desc.substeps;
    ctn_step_params prm = ctn__step_params(w);
    double r2 = 0.0;
    for (int sub = 0; sub < substeps; ++sub) {
        double t0 = ctn__now_ms();
        if (prm.geometric_stiffness > 0.0f)
            for (int i = 0; i < w->body_count; ++i)
                ctn_geometric_inertia_body(i, w->pose, w->props, t->adj_offsets, t->adj, t->defs, t->lambda,
                                           prm.geometric_stiffness * prm.h, w->inertia);
        phase_prepare(w, c, prm);
        double t1 = ctn__now_ms();
        phase_forces(w, c, prm);
        double t2 = ctn__now_ms();
        /* warm start: v += M^-1 J^T (w lambda_prev) */
        for (int k = 0; k < 6 * t->joint_count; ++k) t->lambda[k] *= prm.warm_start;
        phase_gather(w, c, t->lambda, 1.0f);
        if (w->solver == CTN_SOLVER_GS) r2 = solve_gs(w, c);
        else if (w->solver == CTN_SOLVER_JACOBI) r2 = solve_jacobi(w, c);
        else if (w->solver == CTN_SOLVER_CG && blocks_bounded(w, c)) r2 = solve_gs(w, c); /* issue 5 */
        else if (w->solver == CTN_SOLVER_CG) r2 = solve_cg(w, c);
        else r2 = ctn__solve_direct(w, c->blocks);
        double t3 = ctn__now_ms();
        for (int i = 0; i < w->body_count; ++i) ctn_integrate_body(i, w->pose, w->vel, w->props, w->inertia, prm.h);
        double t4 = ctn__now_ms();
        st->ms_prepare += t1 - t0;
        st->ms_integrate += (t2 - t1) + (t4 - t3);
        st->ms_solve += t3 - t2;
    }
    if (w->solver == CTN_SOLVER_DIRECT && t->joint_count > 0) {
        double t0 = ctn__now_ms();
        project_positions(w, c, prm);
        st->ms_solve += ctn__now_ms() - t0;
    }
    st->residual = t->row_count ? sqrt(r2 / t->row_count) : 0.0;
    ctn__measure_host(w, &st->max_gap, &st->max_angle);
    w->bodies_dirty = 0;
    return CTN_OK;
}

static ctn_status cpu_sync(ctn_world *w) {
    (void)w;
    return CTN_OK;
}

static void cpu_destroy(ctn_world *w) {
    cpu_solver *c = w->backend_data;
    if (!c) return;
    free(c->blocks);
    free(c->dlambda);
    free(c->cg_r);
    free(c->cg_z);
    free(c->cg_ap);
    free(c->vel_copy);
    free(c->pose_copy);
    free(c);
    w->backend_data = NULL;
}

const ctn_backend_ops ctn__cpu_backend = {"cpu", cpu_step, cpu_sync, NULL, cpu_destroy};

ctn_status ctn__cpu_backend_init(ctn_world *w) {
    cpu_solver *c = calloc(1, sizeof *c);
    if (!c) return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "out of memory creating the CPU solver");
    w->backend = &ctn__cpu_backend;
    w->backend_data = c;
    snprintf(w->device_name, sizeof w->device_name, "host CPU");
    return CTN_OK;
}
