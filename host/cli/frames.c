/* Per-frame outputs: CSV rows of body states and VTK legacy PolyData frames (points = bodies and world
 * anchors, lines = joints) with a ParaView .pvd collection. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

int ctn_csv_header(FILE *f) {
    return fprintf(f, "step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz\n") > 0;
}

/* One row per live body; %.17g round-trips the two-float positions (double), %.9g the float32 rest. */
int ctn_csv_frame(FILE *f, ctn_world *w, uint64_t step, double time) {
    int nb = 0;
    ctn_world_id_counts(w, &nb, NULL);
    for (int i = 0; i < nb; ++i) {
        ctn_body_state s;
        ctn_body_id id;
        if (ctn_world_body_at(w, i, &id) != CTN_OK || ctn_body_get_state(w, id, &s) != CTN_OK) continue;
        if (fprintf(f, "%llu,%.9g,%d,%.17g,%.17g,%.17g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", (unsigned long long)step, time, i,
                    s.position[0], s.position[1], s.position[2], s.orientation[0], s.orientation[1], s.orientation[2], s.orientation[3],
                    s.velocity[0], s.velocity[1], s.velocity[2], s.angular_velocity[0], s.angular_velocity[1],
                    s.angular_velocity[2]) < 0)
            return 0;
    }
    return !ferror(f);
}

int ctn_vtk_frame(const char *dir, ctn_world *w, uint64_t step, double time, char *err, size_t err_size) {
    int nb = 0, nj = 0;
    ctn_world_id_counts(w, &nb, &nj);
    int *point = malloc(((size_t)nb + 1) * sizeof *point);
    ctn_body_state *st = malloc(((size_t)nb + 1) * sizeof *st);
    int *ja = malloc(((size_t)nj + 1) * sizeof *ja), *jb = malloc(((size_t)nj + 1) * sizeof *jb), *jt = malloc(((size_t)nj + 1) * sizeof *jt);
    double *anchor = malloc(((size_t)nj + 1) * 3 * sizeof *anchor);
    int ok = point && st && ja && jb && jt && anchor;
    int npts = 0, nlines = 0, nanchors = 0;
    ctn_outfile out;
    memset(&out, 0, sizeof out);
    if (!ok) {
        snprintf(err, err_size, "out of memory writing a VTK frame");
        goto done;
    }
    for (int i = 0; i < nb; ++i) {
        point[i] = -1;
        ctn_body_id id;
        if (ctn_world_body_at(w, i, &id) == CTN_OK && ctn_body_get_state(w, id, &st[i]) == CTN_OK) point[i] = npts++;
    }
    int body_points = npts;
    for (int j = 0; j < nj; ++j) {
        ctn_joint_info info;
        ctn_joint_id id;
        if (ctn_world_joint_at(w, j, &id) != CTN_OK || ctn_joint_get_info(w, id, &info) != CTN_OK) continue;
        jt[nlines] = (int)info.type;
        ja[nlines] = point[ctn_handle_index(info.body_a)];
        if (info.body_b == CTN_WORLD) {
            memcpy(&anchor[3 * nanchors], info.anchor_b, 3 * sizeof(double));
            jb[nlines] = body_points + nanchors++;
        } else {
            jb[nlines] = point[ctn_handle_index(info.body_b)];
        }
        nlines++;
    }
    npts += nanchors;
    size_t dl = strlen(dir);
    char *path = malloc(dl + 40);
    if (!path) {
        ok = 0;
        snprintf(err, err_size, "out of memory");
        goto done;
    }
    snprintf(path, dl + 40, "%s/frame_%06llu.vtk", dir, (unsigned long long)step);
    ok = ctn_out_open(&out, path, err, err_size);
    free(path);
    if (!ok) goto done;
    FILE *f = out.f;
    fprintf(f, "# vtk DataFile Version 3.0\ncatena step %llu time %.9g\nASCII\nDATASET POLYDATA\n", (unsigned long long)step, time);
    fprintf(f, "POINTS %d double\n", npts); /* positions are two floats: double keeps them */
    for (int i = 0; i < nb; ++i)
        if (point[i] >= 0) fprintf(f, "%.17g %.17g %.17g\n", st[i].position[0], st[i].position[1], st[i].position[2]);
    for (int k = 0; k < nanchors; ++k) fprintf(f, "%.17g %.17g %.17g\n", anchor[3 * k], anchor[3 * k + 1], anchor[3 * k + 2]);
    fprintf(f, "LINES %d %d\n", nlines, 3 * nlines);
    for (int l = 0; l < nlines; ++l) fprintf(f, "2 %d %d\n", ja[l], jb[l]);
    fprintf(f, "POINT_DATA %d\nSCALARS body_id int 1\nLOOKUP_TABLE default\n", npts);
    for (int i = 0; i < nb; ++i)
        if (point[i] >= 0) fprintf(f, "%d\n", i);
    for (int k = 0; k < nanchors; ++k) fprintf(f, "-1\n");
    fprintf(f, "VECTORS velocity float\n");
    for (int i = 0; i < nb; ++i)
        if (point[i] >= 0) fprintf(f, "%.9g %.9g %.9g\n", st[i].velocity[0], st[i].velocity[1], st[i].velocity[2]);
    for (int k = 0; k < nanchors; ++k) fprintf(f, "0 0 0\n");
    if (nlines > 0) {
        fprintf(f, "CELL_DATA %d\nSCALARS joint_type int 1\nLOOKUP_TABLE default\n", nlines);
        for (int l = 0; l < nlines; ++l) fprintf(f, "%d\n", jt[l]);
    }
    ok = ctn_out_commit(&out, err, err_size);
done:
    if (!ok) ctn_out_abort(&out);
    free(point);
    free(st);
    free(ja);
    free(jb);
    free(jt);
    free(anchor);
    return ok;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int ctn_vtk_collection(const char *dir, double dt, char *err, size_t err_size) {
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, err_size, "%s: cannot list the directory", dir);
        return 0;
    }
    size_t n = 0, cap = 256;
    uint64_t *steps = malloc(cap * sizeof *steps);
    struct dirent *e;
    while (steps && (e = readdir(d))) {
        unsigned long long s;
        char tail[8];
        if (sscanf(e->d_name, "frame_%llu.%7s", &s, tail) != 2 || strcmp(tail, "vtk") != 0) continue;
        if (n == cap) {
            uint64_t *g = realloc(steps, 2 * cap * sizeof *g);
            if (!g) {
                free(steps);
                steps = NULL;
                break;
            }
            steps = g;
            cap *= 2;
        }
        steps[n++] = s;
    }
    closedir(d);
    if (!steps) {
        snprintf(err, err_size, "out of memory listing %s", dir);
        return 0;
    }
    qsort(steps, n, sizeof *steps, cmp_u64);
    size_t dl = strlen(dir);
    char *path = malloc(dl + 16);
    ctn_outfile out;
    int ok = path != NULL;
    if (ok) {
        snprintf(path, dl + 16, "%s/catena.pvd", dir);
        ok = ctn_out_open(&out, path, err, err_size);
    }
    if (ok) {
        fprintf(out.f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n");
        for (size_t i = 0; i < n; ++i)
            fprintf(out.f, "    <DataSet timestep=\"%.9g\" part=\"0\" file=\"frame_%06llu.vtk\"/>\n", (double)steps[i] * dt,
                    (unsigned long long)steps[i]);
        fprintf(out.f, "  </Collection>\n</VTKFile>\n");
        ok = ctn_out_commit(&out, err, err_size);
    }
    free(path);
    free(steps);
    return ok;
}
