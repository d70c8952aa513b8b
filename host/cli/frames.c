/* Per-frame outputs: CSV rows of body states, and VTK XML PolyData frames (the library's
 * ctn_world_write_vtp) gathered in a ParaView .pvd collection whose times are simulation seconds. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

int ctn_csv_header(FILE *f) {
    return fprintf(f, "step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz\n") > 0;
}

/* One row per live body (its handle); %.17g round-trips the two-float positions (double), %.9g the float32 rest. */
int ctn_csv_frame(FILE *f, ctn_world *w, uint64_t step, double time) {
    int nb = 0;
    ctn_world_id_counts(w, &nb, NULL);
    for (int i = 0; i < nb; ++i) {
        ctn_body_state s;
        ctn_body_id id;
        if (ctn_world_body_at(w, i, &id) != CTN_OK || ctn_body_get_state(w, id, &s) != CTN_OK) continue;
        if (fprintf(f, "%llu,%.9g,%lld,%.17g,%.17g,%.17g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", (unsigned long long)step, time, (long long)ctn_body_id_to_int(id),
                    s.position[0], s.position[1], s.position[2], s.orientation[0], s.orientation[1], s.orientation[2], s.orientation[3],
                    s.velocity[0], s.velocity[1], s.velocity[2], s.angular_velocity[0], s.angular_velocity[1],
                    s.angular_velocity[2]) < 0)
            return 0;
    }
    return !ferror(f);
}

/* DIR/frame_STEP.vtp through the library's VTK XML writer. */
int ctn_vtk_frame(const char *dir, ctn_world *w, uint64_t step, double time, char *err, size_t err_size) {
    size_t n = strlen(dir) + 40;
    char *path = malloc(n);
    if (!path) {
        snprintf(err, err_size, "out of memory writing a VTK frame");
        return 0;
    }
    snprintf(path, n, "%s/frame_%06llu.vtp", dir, (unsigned long long)step);
    int ok = ctn_world_write_vtp(w, path, time) == CTN_OK;
    if (!ok) snprintf(err, err_size, "%s", ctn_world_last_error(w));
    free(path);
    return ok;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The steps of the DIR/frame_STEP.vtp files, sorted; NULL when out of memory. */
static uint64_t *list_frames(DIR *d, size_t *count) {
    size_t n = 0, cap = 256;
    uint64_t *steps = malloc(cap * sizeof *steps);
    struct dirent *e;
    while (steps && (e = readdir(d))) {
        unsigned long long s;
        char tail[8];
        if (sscanf(e->d_name, "frame_%llu.%7s", &s, tail) != 2 || strcmp(tail, "vtp") != 0) continue;
        if (n == cap) {
            uint64_t *g = realloc(steps, 2 * cap * sizeof *g);
            if (!g) {
                free(steps);
                return NULL;
            }
            steps = g;
            cap *= 2;
        }
        steps[n++] = s;
    }
    if (steps) qsort(steps, n, sizeof *steps, cmp_u64);
    *count = n;
    return steps;
}

int ctn_vtk_collection(const char *dir, double dt, char *err, size_t err_size) {
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, err_size, "%s: cannot list the directory", dir);
        return 0;
    }
    size_t n = 0;
    uint64_t *steps = list_frames(d, &n);
    closedir(d);
    if (n > INT32_MAX) n = 0, free(steps), steps = NULL;
    char(*names)[32] = steps ? malloc((n + 1) * sizeof *names) : NULL;
    const char **files = names ? malloc((n + 1) * sizeof *files) : NULL;
    double *times = files ? malloc((n + 1) * sizeof *times) : NULL;
    size_t pl = strlen(dir) + 16;
    char *path = times ? malloc(pl) : NULL;
    int ok = path != NULL;
    if (!ok) snprintf(err, err_size, "out of memory listing %s", dir);
    for (size_t i = 0; ok && i < n; ++i) {
        snprintf(names[i], sizeof names[i], "frame_%06llu.vtp", (unsigned long long)steps[i]);
        files[i] = names[i];
        times[i] = (double)steps[i] * dt; /* simulation seconds: ParaView's time axis */
    }
    if (ok) {
        snprintf(path, pl, "%s/catena.pvd", dir);
        ok = ctn_vtk_write_pvd(path, (int)n, files, times, err, err_size) == CTN_OK;
    }
    free(path);
    free(times);
    free(files);
    free(names);
    free(steps);
    return ok;
}
