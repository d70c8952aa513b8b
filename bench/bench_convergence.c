/* bench_convergence: residual vs iteration of Gauss-Seidel, Jacobi and CG on one fixed system.
 *
 * The system is the velocity step of one (sub)step of a real scene: the scene is built on the CPU backend
 * and stepped `--settle` times with the library defaults (so the geometric-stiffness inertia and the state
 * are what a running simulation sees), then the state is frozen and the row system of one step of
 * h = time_step / substeps is built with the library's own per-item functions (kernels/ctn_solver.h:
 * ctn_prepare_slot, ctn_forces_body, ctn_gs_slot, ctn_jacobi_slot, ctn_apply_gather). Every solver starts
 * from the same velocities and from lambda = 0 (no warm start), and after each iteration the true
 * residual r = target - J v - S lambda (ctn_block_residual) is measured over all rows:
 *     residual = sqrt(sum r^2 / rows)   (m/s, the same RMS as ctn_step_stats.residual).
 * GS sweeps the colours in order (the CPU backend's order; the overflow group last), Jacobi uses the mass
 * splitting of the library (blocks built with split masses), and CG is the library's block-preconditioned
 * CG (host/solve/solver_cpu.c) including its stop: once the preconditioned residual has fallen by 1e-6 in norm
 * the library stops iterating, and so does the curve here ("stopped" in the output).
 *
 * usage: bench_convergence [--scenes hanging_chain:100,grid:16x16] [--iterations 300] [--settle 30]
 *                          [--substeps 1] [--json FILE] [--md FILE] [--svg-prefix PREFIX]
 * "hanging_chain:N" is ctn_scene_chain laid out straight down (-y) at rest (bench_chain's chain); any other
 * spec goes to ctn_scene_from_spec. With --svg-prefix P each scene's plot goes to P-<scene>.svg. */
#define _POSIX_C_SOURCE 200809L
#include "core/world.h"
#include "ctn_solver.h"

#include "svgplot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_IT 500
#define NSOLVERS 3
static const char *const solver_names[NSOLVERS] = {"gs", "jacobi", "cg"};

typedef struct curve {
    double r[MAX_IT + 1];
    int n;       /* points (iteration 0 .. n-1) */
    int stopped; /* CG stop reached after n-1 iterations */
    double ms;   /* wall time of the iterations */
} curve;

typedef struct system_result {
    char scene[64];
    int bodies, joints, rows, colours;
    double h;
    curve c[NSOLVERS];
} system_result;

static double rms_residual(ctn_world *w, const ctn_block *blocks) {
    const ctn_topology *t = &w->topo;
    const int ls = t->stride;
    double sum = 0.0;
    for (int s = 0; s < t->joint_count; ++s) {
        float r[CTN_MAX_ROWS];
        ctn_block_residual(&blocks[s], ctn_load_vel(w->vel, t->defs[s].a), ctn_load_vel(w->vel, t->defs[s].b), &t->lambda[ls * s], r);
        for (int k = 0; k < CTN_MAX_ROWS; ++k) sum += (double)r[k] * r[k];
    }
    return t->row_count ? sqrt(sum / t->row_count) : 0.0;
}

/* One solver from the frozen state: vel0 (before forces), lambda = 0. */
static void run_solver(ctn_world *w, int solver, const ctn_vel *vel0, ctn_step_params prm, int iterations, curve *out) {
    ctn_topology *t = &w->topo;
    int m = t->joint_count, n = w->body_count, ls = t->stride;
    ctn_block *blocks = malloc(sizeof *blocks * (size_t)(m ? m : 1));
    float *p = calloc(6 * (size_t)(m ? m : 1), sizeof *p), *r = calloc(6 * (size_t)(m ? m : 1), sizeof *r);
    float *z = calloc(6 * (size_t)(m ? m : 1), sizeof *z), *ap = calloc(6 * (size_t)(m ? m : 1), sizeof *ap);
    ctn_vel *u = calloc((size_t)(n ? n : 1), sizeof *u);
    memset(out, 0, sizeof *out);
    if (!blocks || !p || !r || !z || !ap || !u) {
        fprintf(stderr, "bench_convergence: out of memory\n");
        goto done;
    }
    memcpy(w->vel, vel0, sizeof *w->vel * (size_t)n);
    memset(t->lambda, 0, sizeof *t->lambda * (size_t)ls * (size_t)m);
    prm.mass_split = solver == 1;
    for (int s = 0; s < m; ++s) ctn_prepare_slot(s, ctn__topo_joints(t), w->pose, w->vel, w->inertia, ctn__topology_split(t), prm, blocks);
    static const int no_springs[2] = {0, 0}; /* the topology writes the spring offsets only when there are springs */
    for (int i = 0; i < n; ++i)
        if (t->spring_count)
            ctn_forces_body(i, w->props, w->body_force, w->body_force != NULL, w->inertia, t->spring_adj_offsets, t->spring_adj, t->springs,
                            w->pose, w->vel, w->vel, prm);
        else
            ctn_forces_body(0, w->props + i, w->body_force ? w->body_force + i : NULL, w->body_force != NULL, w->inertia + i, no_springs,
                            t->spring_adj, t->springs, w->pose, w->vel + i, w->vel + i, prm);
    out->r[0] = rms_residual(w, blocks);
    out->n = 1;
    double t0 = ctn__now_ms();
    double rz = 0.0, rz_stop = 0.0;
    if (solver == 2) { /* CG set-up, as solve_cg in host/solve/solver_cpu.c */
        for (int s = 0; s < m; ++s) {
            const ctn_block *b = &blocks[s];
            ctn_block_residual(b, ctn_load_vel(w->vel, t->defs[s].a), ctn_load_vel(w->vel, t->defs[s].b), &t->lambda[ls * s], &r[ls * s]);
            ctn_kinv_mul(b->kinv, ctn_block_rows(b), &r[ls * s], &z[ls * s]);
            for (int k = 0; k < ls; ++k) {
                if (k >= ctn_block_rows(b)) z[ls * s + k] = 0.0f;
                p[ls * s + k] = z[ls * s + k];
                rz += (double)r[ls * s + k] * z[ls * s + k];
            }
        }
        rz_stop = 1e-12 * rz;
    }
    for (int it = 0; it < iterations; ++it) {
        if (solver == 0) {
            for (int col = 0; col <= t->colour_count; ++col)
                for (int s = t->colour_offsets[col]; s < t->colour_offsets[col + 1]; ++s)
                    ctn_gs_slot(s, ctn__topo_joints(t), blocks, t->lambda, t->stride, w->vel, w->inertia);
        } else if (solver == 1) {
            for (int s = 0; s < m; ++s) ctn_jacobi_slot(s, ctn__topo_joints(t), blocks, t->lambda, t->stride, w->vel, p);
            for (int i = 0; i < n; ++i) ctn_apply_gather(i, t->adj_offsets, t->adj, blocks, p, t->stride, 1.0f, w->vel, w->inertia);
        } else {
            if (!(rz > rz_stop && rz > 0.0)) {
                out->stopped = 1;
                break;
            }
            for (int i = 0; i < n; ++i) {
                ctn_vel ui;
                memset(&ui, 0, sizeof ui);
                if (t->adj_offsets[i] != t->adj_offsets[i + 1])
                    ctn_gather_body(i, t->adj_offsets, t->adj, blocks, p, t->stride, w->inertia[i].inv_mass, w->inertia[i].inv_inertia, &ui.v, &ui.w);
                u[i] = ui;
            }
            double pap = 0.0;
            for (int s = 0; s < m; ++s) {
                const ctn_block *b = &blocks[s];
                float jv[CTN_MAX_ROWS];
                ctn_block_velocity(b, ctn_load_vel(u, t->defs[s].a), ctn_load_vel(u, t->defs[s].b), jv);
                for (int k = 0; k < ls; ++k) {
                    float a = k < ctn_block_rows(b) ? jv[k] + b->soft[k] * p[ls * s + k] : 0.0f;
                    ap[ls * s + k] = a;
                    pap += (double)p[ls * s + k] * a;
                }
            }
            if (!(pap > 0.0)) {
                out->stopped = 1;
                break;
            }
            float alpha = (float)(rz / pap);
            for (int k = 0; k < ls * m; ++k) {
                t->lambda[k] += alpha * p[k];
                r[k] -= alpha * ap[k];
            }
            for (int i = 0; i < n; ++i) {
                if (t->adj_offsets[i] == t->adj_offsets[i + 1]) continue;
                w->vel[i].v = ctn_madd(w->vel[i].v, u[i].v, alpha);
                w->vel[i].w = ctn_madd(w->vel[i].w, u[i].w, alpha);
            }
            double rz_new = 0.0;
            for (int s = 0; s < m; ++s) {
                ctn_kinv_mul(blocks[s].kinv, ctn_block_rows(&blocks[s]), &r[ls * s], &z[ls * s]);
                for (int k = 0; k < ls; ++k) {
                    if (k >= ctn_block_rows(&blocks[s])) z[ls * s + k] = 0.0f;
                    rz_new += (double)r[ls * s + k] * z[ls * s + k];
                }
            }
            float beta = (float)(rz_new / rz);
            rz = rz_new;
            for (int k = 0; k < ls * m; ++k) p[k] = z[k] + beta * p[k];
        }
        double t1 = ctn__now_ms();
        out->r[out->n++] = rms_residual(w, blocks); /* outside the timed part */
        t0 += ctn__now_ms() - t1;
    }
    out->ms = ctn__now_ms() - t0;
done:
    free(blocks), free(p), free(r), free(z), free(ap), free(u);
}

static int run_system(const char *spec, int settle, int substeps, int iterations, system_result *res) {
    memset(res, 0, sizeof *res);
    snprintf(res->scene, sizeof res->scene, "%s", spec);
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.threads = 1;
    char err[1024];
    ctn_world *w = NULL;
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK) {
        fprintf(stderr, "bench_convergence: %s\n", err);
        return 0;
    }
    ctn_status st;
    if (!strncmp(spec, "hanging_chain:", 14)) {
        ctn_chain_desc c = ctn_chain_desc_default(atoi(spec + 14));
        c.direction[0] = 0.0, c.direction[1] = -1.0;
        st = ctn_scene_chain(w, &c, NULL);
    } else {
        st = ctn_scene_from_spec(w, spec);
    }
    /* settle with the defaults; at least one step so that the topology (colours) exists */
    for (int k = 0; k < (settle > 0 ? settle : 1) && st == CTN_OK; ++k) st = ctn_world_step(w);
    if (st != CTN_OK) {
        fprintf(stderr, "bench_convergence: %s: %s\n", spec, ctn_world_last_error(w));
        ctn_world_destroy(w);
        return 0;
    }
    ctn_step_stats s;
    ctn_world_get_stats(w, &s);
    ctn_topology *t = &w->topo;
    if (ctn__topology_adjacency(w) != CTN_OK) { /* the gathers below walk it: built on first need */
        ctn_world_destroy(w);
        return 0;
    }
    res->bodies = ctn_world_body_count(w);
    res->joints = t->joint_count;
    res->rows = t->row_count;
    res->colours = t->colour_count;
    ctn_step_params prm;
    memset(&prm, 0, sizeof prm);
    prm.gravity = ctn_v3_make((float)w->desc.gravity[0], (float)w->desc.gravity[1], (float)w->desc.gravity[2]);
    prm.h = (float)(w->desc.time_step / substeps);
    prm.compliance = (float)w->desc.compliance;
    prm.damping_time = (float)w->desc.damping_time;
    prm.baumgarte = (float)w->desc.baumgarte;
    prm.stabilization = w->desc.stabilization == CTN_STAB_BAUMGARTE ? 1 : 0;
    prm.warm_start = 0.0f;
    prm.geometric_stiffness = (float)w->desc.geometric_stiffness;
    res->h = prm.h;
    /* the geometric-stiffness inertia of this step, from the last step's impulses (as the CPU backend) */
    if (prm.geometric_stiffness > 0.0f)
        for (int i = 0; i < w->body_count; ++i)
            ctn_geometric_inertia_body(i, w->pose, w->props, t->adj_offsets, t->adj, ctn__topo_joints(t), t->lambda, t->stride, prm.geometric_stiffness * prm.h,
                                       w->inertia);
    ctn_vel *vel0 = malloc(sizeof *vel0 * (size_t)(w->body_count ? w->body_count : 1));
    if (!vel0) {
        ctn_world_destroy(w);
        return 0;
    }
    memcpy(vel0, w->vel, sizeof *vel0 * (size_t)w->body_count);
    for (int k = 0; k < NSOLVERS; ++k) {
        run_solver(w, k, vel0, prm, iterations, &res->c[k]);
        fprintf(stderr, "%-16s %-6s residual %.3g -> %.3g after %d iterations%s (%.1f ms)\n", spec, solver_names[k], res->c[k].r[0],
                res->c[k].r[res->c[k].n - 1], res->c[k].n - 1, res->c[k].stopped ? " (stopped)" : "", res->c[k].ms);
    }
    /* leave the world consistent before it is destroyed */
    memcpy(w->vel, vel0, sizeof *vel0 * (size_t)w->body_count);
    free(vel0);
    ctn_world_destroy(w);
    return 1;
}

/* First iteration count at which the residual fell below frac x its start, or -1. */
static int iterations_to(const curve *c, double frac) {
    for (int i = 0; i < c->n; ++i)
        if (c->r[i] <= frac * c->r[0]) return i;
    return -1;
}

int main(int argc, char **argv) {
    const char *scenes = "hanging_chain:100,grid:16x16", *json = NULL, *md = NULL, *svg = NULL;
    int iterations = 300, settle = 30, substeps = 1;
    for (int i = 1; i < argc; ++i) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "usage: bench_convergence [--scenes LIST] [--iterations N] [--settle N] [--substeps N] [--json FILE] "
                            "[--md FILE] [--svg-prefix PREFIX]\n");
            return 2;
        }
        ++i;
        if (!strcmp(o, "--scenes")) scenes = v;
        else if (!strcmp(o, "--iterations")) iterations = atoi(v);
        else if (!strcmp(o, "--settle")) settle = atoi(v);
        else if (!strcmp(o, "--substeps")) substeps = atoi(v);
        else if (!strcmp(o, "--json")) json = v;
        else if (!strcmp(o, "--md")) md = v;
        else if (!strcmp(o, "--svg-prefix")) svg = v;
        else {
            fprintf(stderr, "bench_convergence: unknown option %s\n", o);
            return 2;
        }
    }
    if (iterations < 1 || iterations > MAX_IT || substeps < 1 || settle < 0) {
        fprintf(stderr, "bench_convergence: --iterations must be in [1, %d], --substeps >= 1, --settle >= 0\n", MAX_IT);
        return 2;
    }
    system_result res[8];
    int nres = 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", scenes);
    for (char *sc = strtok(buf, ","); sc && nres < 8; sc = strtok(NULL, ","))
        if (run_system(sc, settle, substeps, iterations, &res[nres])) nres++;
    if (nres == 0) return 1;

    if (svg) {
        svg_series *ser = calloc(NSOLVERS, sizeof *ser);
        if (!ser) return 1;
        for (int i = 0; i < nres; ++i) {
            for (int k = 0; k < NSOLVERS; ++k) {
                memset(&ser[k], 0, sizeof ser[k]);
                snprintf(ser[k].name, sizeof ser[k].name, "%s%s", solver_names[k], res[i].c[k].stopped ? " (library stop)" : "");
                for (int j = 0; j < res[i].c[k].n; ++j) svg_series_add(&ser[k], j, res[i].c[k].r[j]);
            }
            char path[1200], title[256], name[64];
            snprintf(name, sizeof name, "%.60s", res[i].scene);
            for (char *c = name; *c; ++c)
                if (*c == ':') *c = '-';
            snprintf(path, sizeof path, "%.1000s-%.60s.svg", svg, name);
            snprintf(title, sizeof title, "Convergence: %.60s (%d rows, h = %.4g s, lambda0 = 0)", res[i].scene, res[i].rows, res[i].h);
            if (svg_plot(path, title, "iteration", "RMS row residual (m/s)", 0, 1, ser, NSOLVERS) != 0) fprintf(stderr, "cannot write %s\n", path);
        }
        free(ser);
    }
    if (md) {
        FILE *f = fopen(md, "w");
        if (!f) {
            perror(md);
            return 1;
        }
        fprintf(f, "## Convergence: residual vs iteration (`bench_convergence`)\n\n"
                   "One fixed system per scene: the scene is stepped %d times with the library defaults on the CPU backend, then the "
                   "velocity system of one step of h = time step / %d is built with the library's row code and solved from the same "
                   "velocities and lambda = 0 (no warm start) by each solver. residual = sqrt(sum r^2 / rows), r = target - J v - S lambda "
                   "(m/s), measured after every iteration. CG stops where the library stops (preconditioned residual down by 1e-6).\n\n",
                settle, substeps);
        fprintf(f, "| scene | bodies | rows | colours | solver | residual at 0 | at 10 | at 100 | at last | iterations | to 1e-2 x | to 1e-4 x | ms/iteration |\n");
        fprintf(f, "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (int i = 0; i < nres; ++i)
            for (int k = 0; k < NSOLVERS; ++k) {
                const curve *c = &res[i].c[k];
                int a = iterations_to(c, 1e-2), b = iterations_to(c, 1e-4);
                char sa[16] = "-", sb[16] = "-", s10[32] = "-", s100[32] = "-";
                if (a >= 0) snprintf(sa, sizeof sa, "%d", a);
                if (b >= 0) snprintf(sb, sizeof sb, "%d", b);
                if (c->n > 10) snprintf(s10, sizeof s10, "%.3g", c->r[10]);
                if (c->n > 100) snprintf(s100, sizeof s100, "%.3g", c->r[100]);
                fprintf(f, "| %s | %d | %d | %d | %s | %.3g | %s | %s | %.3g | %d%s | %s | %s | %.4f |\n", res[i].scene, res[i].bodies,
                        res[i].rows, res[i].colours, solver_names[k], c->r[0], s10, s100, c->r[c->n - 1], c->n - 1,
                        c->stopped ? " (stop)" : "", sa, sb, c->n > 1 ? c->ms / (c->n - 1) : 0.0);
            }
        fprintf(f, "\n");
        fclose(f);
    }
    if (json) {
        FILE *f = fopen(json, "w");
        if (!f) {
            perror(json);
            return 1;
        }
        fprintf(f, "{\"settle_steps\": %d, \"substeps\": %d, \"iterations\": %d, \"warm_start\": 0, \"backend\": \"cpu\", \"threads\": 1, "
                   "\"residual\": \"sqrt(sum r^2 / rows), r = target - J v - S lambda, m/s\",\n \"systems\": [\n",
                settle, substeps, iterations);
        for (int i = 0; i < nres; ++i) {
            fprintf(f, "  {\"scene\": \"%s\", \"bodies\": %d, \"joints\": %d, \"rows\": %d, \"colours\": %d, \"h\": %.9g, \"solvers\": [\n",
                    res[i].scene, res[i].bodies, res[i].joints, res[i].rows, res[i].colours, res[i].h);
            for (int k = 0; k < NSOLVERS; ++k) {
                const curve *c = &res[i].c[k];
                fprintf(f, "    {\"solver\": \"%s\", \"stopped\": %s, \"ms\": %.5g, \"residual\": [", solver_names[k], c->stopped ? "true" : "false",
                        c->ms);
                for (int j = 0; j < c->n; ++j) fprintf(f, "%s%.6g", j ? ", " : "", isfinite(c->r[j]) ? c->r[j] : -1.0);
                fprintf(f, "]}%s\n", k + 1 < NSOLVERS ? "," : "");
            }
            fprintf(f, "  ]}%s\n", i + 1 < nres ? "," : "");
        }
        fprintf(f, " ]}\n");
        fclose(f);
    }
    return 0;
}
