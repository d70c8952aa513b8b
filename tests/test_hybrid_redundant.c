/* The exact solver's hybrid (`direct` with bounded rows or loop closers, host/solve/solver_direct.c) on
 * over-constrained layouts, over 600 steps: the energy never rises above its start and the joints hold.
 *
 * A hinged bridge anchored at both ends has redundant rows (3 out of its plane): directions n of impulses
 * with J^T n = 0, which the exact solve keeps solvable by its floor F = 1e-10 diag(J M^-1 J^T) and in which
 * the SPOOK target's position errors are inconsistent (n^T r != 0). The hybrid's outer iterations re-solve
 * the exact rows after each sweep of the bounded rows; they used to re-solve the residual r itself, which
 * after a solve still holds n^T r, so every re-solve added the same 1e10-fold impulse along n again until
 * float rounding turned it into motion. The re-solves now take the change of r since the last solve
 * ((R) in kernels/ctn_direct_rhs.h). Measured on the 2-core dev VM, CPU and OpenCL (PoCL) alike, `direct`, 600
 * steps (before: main at 7dd2116):
 *
 *   scene                                         iterations   energy above the start   worst gap
 *   bridge_limits:40 (every hinge limited, ball)      4        before +2.4e6 J, after never   0.107 m -> 1.3e-5 m
 *                                                     8        before +2.5e6 J, after never   0.043 m -> 2.6e-6 m
 *   bridge:120, limits on every 40th hinge            4        before +9.5e7 J, after never   0.80 m  -> 2.4e-7 m
 *                                                     8        before +1.5e7 J, after never   0.21 m  -> 2.4e-7 m
 *   grid:6x6 (pinned along its top edge, 25 loop      8        1.2e-7 J -> 7.7e-8 J           2.7e-7 m -> 9.9e-8 m
 *   closers: the sweep is of whole joints)
 *
 * (bench/results/2026-11-25-vm-hybrid-rowsplit.md, "Fixed"). The grid guards against the other remedy: the
 * residual of the regularised system (r minus F times this substep's impulses) diverged on it within 2 steps
 * at 8 iterations, since the factor's rounding there is of the size of F. The gap is the worst anchor
 * separation of any joint over the run (ctn_world_get_joint_errors); the tolerances are about 10x the values
 * measured. The OpenCL half (4 iterations on the bridges, the grid) runs when a device with cl_khr_fp64 is
 * available; the whole test takes about 10 s on the loaded 2-core VM. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "ids.h"
#include "check.h"
#include "fixtures.h"
#include "opencl_lsan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEPS 600
#define ENERGY_RISE 1e-3 /* J above the start; measured: never above it (before: up to +9.5e7 J) */

typedef void (*builder)(ctn_world *w);

static void bridge_four(ctn_world *w) {
    CHECK(ctn_scene_from_spec(w, "bridge:120") == CTN_OK, "%s", ctn_world_last_error(w));
    for (int j = 0; j < ctn_world_joint_count(w); j += 40)
        CHECK(ctn_joint_set_limits(w, HJOINT(w, j), 1, -0.05, 0.05) == CTN_OK, "limit %d: %s", j, ctn_world_last_error(w));
}

static void bridge_ball(ctn_world *w) { CHECK(ctn_scene_from_spec(w, "bridge_limits:40") == CTN_OK, "%s", ctn_world_last_error(w)); }

static void grid(ctn_world *w) { CHECK(ctn_scene_from_spec(w, "grid:6x6") == CTN_OK, "%s", ctn_world_last_error(w)); }

typedef struct scene_case {
    const char *name;
    builder build;
    int iterations;
    double gap_tol; /* m */
    int opencl;     /* also on OpenCL (the 8-iteration bridges run on the CPU only, to keep the test short) */
} scene_case;

static const scene_case cases[] = {
    {"bridge_limits:40", bridge_ball, 4, 1.5e-4, 1}, /* measured 1.3e-5 m (0.107 m before) */
    {"bridge_limits:40", bridge_ball, 8, 1.5e-4, 0}, /* 2.6e-6 m (0.043 m) */
    {"bridge:120/4", bridge_four, 4, 2.5e-6, 1},     /* 2.4e-7 m (0.80 m) */
    {"bridge:120/4", bridge_four, 8, 2.5e-6, 0},     /* 2.4e-7 m (0.21 m) */
    {"grid:6x6", grid, 8, 1e-6, 1},                  /* 9.9e-8 m, OpenCL 1.5e-7 m (2.7e-7 m, 5.4e-7 m) */
};

/* Steps one case; *rise: the largest energy above the start, *gap: the worst joint gap. Returns -1 on a
 * device without doubles, 0 when the world cannot be made, else 1. */
static int run(ctn_backend backend, const scene_case *c, double *rise, double *gap) {
    *rise = *gap = 0.0;
    ctn_world *w = fixture_world(backend, CTN_SOLVER_DIRECT, NULL, 0);
    CHECK(w != NULL, "%s: world", c->name);
    if (!w) return 0;
    c->build(w);
    ctn_world_desc d;
    ctn_world_get_desc(w, &d);
    d.solver = CTN_SOLVER_DIRECT;
    d.iterations = c->iterations;
    CHECK(ctn_world_set_desc(w, &d) == CTN_OK, "%s: %s", c->name, ctn_world_last_error(w));
    int m = ctn_world_joint_count(w), ok = 1;
    double *g = calloc((size_t)m + 1, sizeof *g), e0 = fixture_energy(w, d.gravity);
    for (int i = 0; i < STEPS && g; ++i) {
        ctn_status st = ctn_world_step(w);
        if (st == CTN_ERR_UNSUPPORTED && strstr(ctn_world_last_error(w), "fp64")) {
            ok = -1;
            break;
        }
        CHECK(st == CTN_OK, "%s, %d iterations, step %d: %s", c->name, c->iterations, i, ctn_world_last_error(w));
        if (st != CTN_OK) break;
        int written = 0;
        CHECK(ctn_world_get_joint_errors(w, g, NULL, m, &written) == CTN_OK && written == m, "%s: %s", c->name, ctn_world_last_error(w));
        for (int j = 0; j < m; ++j) *gap = fmax(*gap, g[j]);
        *rise = fmax(*rise, fixture_energy(w, d.gravity) - e0);
    }
    free(g);
    ctn_world_destroy(w);
    return ok;
}

static void backend_cases(ctn_backend backend, const char *bname) {
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        const scene_case *c = &cases[k];
        double rise, gap;
        if (backend == CTN_BACKEND_OPENCL && !c->opencl) continue;
        int ok = run(backend, c, &rise, &gap);
        if (ok < 0) {
            printf("%s %s: skipped (no cl_khr_fp64)\n", bname, c->name);
            return;
        }
        printf("%s %s, %d iterations, %d steps: energy rise %.3g J, worst gap %.3g m\n", bname, c->name, c->iterations, STEPS, rise, gap);
        CHECK(rise <= ENERGY_RISE, "%s %s, %d iterations: energy rose by %g J", bname, c->name, c->iterations, rise);
        CHECK(gap <= c->gap_tol, "%s %s, %d iterations: joints open by %g m", bname, c->name, c->iterations, gap);
    }
}

int main(void) {
    backend_cases(CTN_BACKEND_CPU, "cpu");
    char why[256];
    if (fixture_have_opencl(why, sizeof why)) backend_cases(CTN_BACKEND_OPENCL, "opencl");
    else printf("opencl: skipped (%s)\n", why);
    return check_report("test_hybrid_redundant");
}
