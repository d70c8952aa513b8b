/* A pile of spheres in a box settles without exploding, contacts never pull, every contact stays in its
 * friction cone, warm starting persists contact ids, and the result is deterministic: bitwise the same
 * with 1 and with 3 CPU threads, on a contact scene large enough that the threads really run (the CPU
 * solver goes parallel for colours and loops of at least 4096 items, CPU_PARALLEL_MIN in
 * host/solve/solver_cpu.c; the test asserts the largest colour is that large and that OpenMP started
 * its threads). */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "ids.h"
#include "check.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PARALLEL_MIN 4096 /* CPU_PARALLEL_MIN of host/solve/solver_cpu.c */

static ctn_world *make_world(int threads) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.threads = threads;
    d.warm_start = 1.0; /* full warm start: the recommended setting for contact piles (docs/guide.md) */
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "create: %s", err);
    return w;
}

/* Threads of this process (entries of /proc/self/task); 0 when unreadable. OpenMP (libgomp) starts its
 * worker threads at the first parallel region that runs with more than one and keeps them: a count above
 * one in this single-threaded test proves a parallel region ran. */
static int process_threads(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* A bed of BED x BED spheres (r 0.05 m) touching in a square lattice, dropped 1 cm onto a floor with a
 * deterministic jitter of the velocities: ~3 BED^2 contacts, the floor contacts of distinct spheres in
 * the same colours, so colours hold thousands of contacts. Returns every body position after `steps`. */
#define BED 72
static double *bed_positions(int threads, int steps, int *largest_colour) {
    ctn_world *w = make_world(threads);
    const double up[3] = {0.0, 1.0, 0.0};
    CHECK(ctn_world_add_plane(w, up, 0.0, 0.5, 0.0, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_shape_desc sh = ctn_shape_desc_default(CTN_SHAPE_SPHERE);
    sh.radius = 0.05;
    ctn_body_desc bd = ctn_body_desc_default();
    bd.mass = 0.5;
    ctn_inertia_sphere(bd.mass, sh.radius, bd.inertia);
    unsigned seed = 1u;
    for (int i = 0; i < BED * BED; ++i) {
        bd.position[0] = 0.1 * (i % BED), bd.position[1] = 0.06, bd.position[2] = 0.1 * (i / BED);
        for (int k = 0; k < 3; ++k) {
            seed = seed * 1664525u + 1013904223u;
            bd.velocity[k] = 0.2 * ((double)(seed >> 8) / 8388608.0 - 1.0);
        }
        ctn_body_id id;
        CHECK(ctn_body_add(w, &bd, &id) == CTN_OK && ctn_body_set_shape(w, id, &sh) == CTN_OK, "%s", ctn_world_last_error(w));
    }
    *largest_colour = 0;
    for (int i = 0; i < steps; ++i) {
        CHECK(ctn_world_step(w) == CTN_OK, "bed, %d threads, step %d: %s", threads, i, ctn_world_last_error(w));
        ctn_step_stats st;
        ctn_world_get_stats(w, &st);
        if (st.largest_colour > *largest_colour) *largest_colour = st.largest_colour;
    }
    double *x = malloc(3 * sizeof *x * BED * BED);
    int written = 0;
    CHECK(x && ctn_world_get_positions(w, x, BED * BED, &written) == CTN_OK && written == BED * BED, "positions");
    ctn_world_destroy(w);
    return x;
}

/* 1 thread and 3 threads give the same bits, with the threads really running. */
static void test_threads_deterministic(void) {
    const int steps = 10;
    int colour1 = 0, colour3 = 0, before = process_threads();
    double *a = bed_positions(1, steps, &colour1);
    int after1 = process_threads();
    double *b = bed_positions(3, steps, &colour3);
    int after3 = process_threads();
    printf("bed of %d spheres, %d steps: largest colour %d; threads of the process %d before, %d after the 1-thread run, %d after the "
           "3-thread run\n",
           BED * BED, steps, colour1, before, after1, after3);
    CHECK(colour1 >= PARALLEL_MIN && colour3 == colour1, "largest colour %d / %d: below %d, the solver would not go parallel", colour1, colour3,
          PARALLEL_MIN);
    CHECK(after1 == before, "the 1-thread run started threads (%d -> %d)", before, after1);
#ifdef CATENA_TEST_OPENMP
    CHECK(after3 >= before + 2, "the 3-thread run did not start OpenMP threads (%d -> %d)", before, after3);
#else
    printf("built without OpenMP: the CPU solver has no threads to compare\n");
#endif
    CHECK(a && b && memcmp(a, b, 3 * sizeof *a * BED * BED) == 0, "the bed differs between 1 and 3 threads");
    free(a);
    free(b);
}

int main(void) {
    test_threads_deterministic(); /* first: no thread of OpenMP exists yet */
    const int N = 400, steps = 240;
    ctn_world *w = make_world(0);
    CHECK(ctn_scene_from_spec(w, "pile:400") == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_contact_info *ci = malloc(20 * N * sizeof *ci);
    double max_speed_seen = 0.0;
    int pulls = 0, cone = 0, persisted = 0, total = 0;
    int *prev = calloc(64 * N, sizeof *prev);             /* by slot index: the step + 1 it was last seen */
    ctn_joint_id *prev_handle = calloc(64 * N, sizeof *prev_handle); /* and the handle it had */
    int prev_n = 0;
    ctn_step_stats st;
    for (int i = 0; i < steps; ++i) {
        ctn_status s = ctn_world_step(w);
        CHECK(s == CTN_OK, "step %d: %s", i, ctn_world_last_error(w));
        if (s != CTN_OK) break;
        ctn_world_get_stats(w, &st);
        if (st.max_speed > max_speed_seen) max_speed_seen = st.max_speed;
        int n = 0;
        ctn_world_get_contacts(w, ci, 20 * N, &n);
        CHECK(n <= 20 * N, "%d contacts", n);
        for (int k = 0; k < n; ++k) {
            if (ci[k].impulse[0] < 0.0) pulls++;
            if (hypot(ci[k].impulse[1], ci[k].impulse[2]) > ci[k].friction * ci[k].impulse[0] * (1.0 + 1e-5) + 1e-9) cone++;
        }
        /* persistence: in the settled half, most contacts keep their joint handle from one step to the next */
        if (i >= steps / 2) {
            for (int k = 0; k < n; ++k) {
                int id = ctn_joint_index(ci[k].joint);
                if (id < 64 * N && prev[id] == i && ID_EQ(prev_handle[id], ci[k].joint)) persisted++;
            }
            total += n;
        }
        for (int k = 0; k < n; ++k) {
            int id = ctn_joint_index(ci[k].joint);
            CHECK(id < 64 * N, "contact slot %d: the slot range grew past %d", id, 64 * N);
            if (id < 64 * N) prev[id] = i + 1, prev_handle[id] = ci[k].joint;
        }
        prev_n = n;
    }
    (void)prev_n;
    CHECK(pulls == 0, "%d contact impulses < 0", pulls);
    CHECK(cone == 0, "%d friction impulses outside mu lambda_n", cone);
    /* settled: the largest linear speed (spheres may keep spinning about their contact normals: point
     * contacts have no torsional or rolling friction) */
    double vmax = 0.0;
    for (int b = 0; b < N; ++b) {
        ctn_body_state bs;
        ctn_body_get_state(w, HBODY(w, b), &bs);
        double v = sqrt(bs.velocity[0] * bs.velocity[0] + bs.velocity[1] * bs.velocity[1] + bs.velocity[2] * bs.velocity[2]);
        if (v > vmax) vmax = v;
    }
    CHECK(vmax < 0.1, "pile still moving at %g m/s after %d steps", vmax, steps);
    CHECK(max_speed_seen < 40.0, "pile exploded: %g m/s or rad/s", max_speed_seen);
    CHECK(st.max_gap < 0.01, "penetration %g m", st.max_gap);
    CHECK(total > 0 && persisted > 0.95 * total, "contact ids persisted %d of %d", persisted, total);
    CHECK(st.colours >= 4 && st.colours <= 32, "%d colours", st.colours);
    /* every sphere is in the box */
    double *xyz = malloc(3 * N * sizeof *xyz);
    int written = 0;
    ctn_world_get_positions(w, xyz, N, &written);
    int out = 0;
    for (int b = 0; b < written; ++b) out += xyz[3 * b + 1] < 0.05 - 0.01 || !isfinite(xyz[3 * b]);
    CHECK(out == 0, "%d spheres fell through the floor", out);
    printf("pile:%d: max linear speed %.3g m/s, max speed %.3g (peak %.3g), %d contacts, %d colours (largest %d), persisted %.1f%%, penetration %.3g m, "
           "%.2f ms/step (collide %.2f ms)\n",
           N, vmax, st.max_speed, max_speed_seen, st.contacts, st.colours, st.largest_colour, 100.0 * persisted / (total ? total : 1),
           st.max_gap, st.ms_total, st.ms_collide);
    free(xyz);
    free(ci);
    free(prev);
    free(prev_handle);
    ctn_world_destroy(w);
    return check_report("contact_pile");
}
