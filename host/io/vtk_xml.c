/* ParaView output: the world as VTK XML PolyData (.vtp) and a series of frames as a ParaView data
 * collection (.pvd), both written atomically.
 *
 * Format: "VTK File Formats", VTK User's Guide 11th ed. (Kitware 2010), XML section, with the appended
 * data section in raw binary: after `<AppendedData encoding="raw">` and one '_' come the arrays back to
 * back, each a UInt64 byte count followed by its bytes in the machine's byte order (recorded in the
 * header's byte_order); each DataArray's `offset` is the position of its count after the '_'. Raw
 * appended data is what ParaView itself writes by default: no base64 inflation, no per-value parsing.
 *
 * Contents of a frame:
 *   points   live bodies in id order (Float64: positions are two floats, float32 would lose them), then one
 *            point per joint end fixed to the world (its world anchor);
 *   lines    live joints (springs and contacts included), from body a's point to body b's or to the anchor;
 *   point data  body_id (Int64 handle, CTN_WORLD = -1 on anchor points), velocity and angular_velocity
 *               (Float32 x 3);
 *   cell data   joint_id (Int64 handle), joint_type (Int32, ctn_joint_type values), gap (m) and angle_error (rad)
 *               (Float32: the joint errors of ctn_joint_error, the kernels' own measure);
 *   field data  TimeValue (Float64): the simulation time, which ParaView shows for a lone frame too. */
#define _POSIX_C_SOURCE 200809L
#include "core/world.h"
#include "io/atomic_file.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Arrays of a frame, in the order their blocks follow each other in the appended section. */
enum { A_TIME, A_BODY_ID, A_VELOCITY, A_ANGULAR, A_JOINT_ID, A_JOINT_TYPE, A_GAP, A_ANGLE, A_POINTS, A_CONN, A_OFFSETS, A_COUNT };

typedef struct frame_layout {
    int64_t points, body_points, lines;
    uint64_t bytes[A_COUNT];  /* payload bytes of each array */
    uint64_t offset[A_COUNT]; /* its offset after the '_' */
} frame_layout;

static int host_is_little_endian(void) {
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

static void layout_frame(const ctn_world *w, frame_layout *l) {
    memset(l, 0, sizeof *l);
    for (int i = 0; i < w->body_count; ++i)
        if (w->props[i].flags & CTN_BODY_FLAG_ALIVE) l->body_points++;
    int64_t anchors = 0;
    for (int j = 0; j < w->joint_count; ++j) {
        if (!w->joint_alive[j]) continue;
        l->lines++;
        if (w->joints[j].b < 0) anchors++;
    }
    l->points = l->body_points + anchors;
    uint64_t np = (uint64_t)l->points, nl = (uint64_t)l->lines;
    const uint64_t size[A_COUNT] = {8, 8 * np, 12 * np, 12 * np, 8 * nl, 4 * nl, 4 * nl, 4 * nl, 24 * np, 16 * nl, 8 * nl};
    uint64_t at = 0;
    for (int a = 0; a < A_COUNT; ++a) {
        l->bytes[a] = size[a];
        l->offset[a] = at;
        at += 8 + size[a];
    }
}

static void xml_array(FILE *f, const char *indent, const char *type, const char *name, int components, uint64_t offset) {
    fprintf(f, "%s<DataArray type=\"%s\" Name=\"%s\"", indent, type, name);
    if (components > 1) fprintf(f, " NumberOfComponents=\"%d\"", components);
    fprintf(f, " format=\"appended\" offset=\"%llu\"/>\n", (unsigned long long)offset);
}

static void write_header(FILE *f, const frame_layout *l) {
    const uint64_t *o = l->offset;
    fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n",
            host_is_little_endian() ? "LittleEndian" : "BigEndian");
    fprintf(f, "  <PolyData>\n    <FieldData>\n");
    fprintf(f, "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"appended\" offset=\"%llu\"/>\n",
            (unsigned long long)o[A_TIME]);
    fprintf(f, "    </FieldData>\n");
    fprintf(f, "    <Piece NumberOfPoints=\"%lld\" NumberOfVerts=\"0\" NumberOfLines=\"%lld\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n",
            (long long)l->points, (long long)l->lines);
    fprintf(f, "      <PointData Scalars=\"body_id\" Vectors=\"velocity\">\n");
    xml_array(f, "        ", "Int64", "body_id", 1, o[A_BODY_ID]);
    xml_array(f, "        ", "Float32", "velocity", 3, o[A_VELOCITY]);
    xml_array(f, "        ", "Float32", "angular_velocity", 3, o[A_ANGULAR]);
    fprintf(f, "      </PointData>\n      <CellData Scalars=\"gap\">\n");
    xml_array(f, "        ", "Int64", "joint_id", 1, o[A_JOINT_ID]);
    xml_array(f, "        ", "Int32", "joint_type", 1, o[A_JOINT_TYPE]);
    xml_array(f, "        ", "Float32", "gap", 1, o[A_GAP]);
    xml_array(f, "        ", "Float32", "angle_error", 1, o[A_ANGLE]);
    fprintf(f, "      </CellData>\n      <Points>\n");
    xml_array(f, "        ", "Float64", "Points", 3, o[A_POINTS]);
    fprintf(f, "      </Points>\n      <Lines>\n");
    xml_array(f, "        ", "Int64", "connectivity", 1, o[A_CONN]);
    xml_array(f, "        ", "Int64", "offsets", 1, o[A_OFFSETS]);
    fprintf(f, "      </Lines>\n    </Piece>\n  </PolyData>\n  <AppendedData encoding=\"raw\">\n   _");
}

static void put_block_size(FILE *f, uint64_t bytes) { fwrite(&bytes, sizeof bytes, 1, f); }

/* Per-point values: bodies (live ids), then zeros / -1 for the world anchors. */
static void write_point_arrays(FILE *f, const ctn_world *w, const frame_layout *l) {
    int64_t anchors = l->points - l->body_points;
    put_block_size(f, l->bytes[A_BODY_ID]);
    for (int i = 0; i < w->body_count; ++i) {
        if (!(w->props[i].flags & CTN_BODY_FLAG_ALIVE)) continue;
        const int64_t handle = ctn_body_id_to_int(ctn__body_handle(w, i));
        fwrite(&handle, sizeof handle, 1, f);
    }
    const int64_t none = ctn_body_id_to_int(CTN_WORLD);
    for (int64_t k = 0; k < anchors; ++k) fwrite(&none, sizeof none, 1, f);
    const float zero[3] = {0, 0, 0};
    for (int angular = 0; angular < 2; ++angular) {
        put_block_size(f, l->bytes[angular ? A_ANGULAR : A_VELOCITY]);
        for (int i = 0; i < w->body_count; ++i) {
            if (!(w->props[i].flags & CTN_BODY_FLAG_ALIVE)) continue;
            ctn_v3 v = angular ? w->vel[i].w : w->vel[i].v;
            const float xyz[3] = {v.x, v.y, v.z};
            fwrite(xyz, sizeof xyz, 1, f);
        }
        for (int64_t k = 0; k < anchors; ++k) fwrite(zero, sizeof zero, 1, f);
    }
}

/* Per-line values: ids, types and the joint errors as the kernels measure them (springs carry no rows). */
static void write_cell_arrays(FILE *f, const ctn_world *w, const frame_layout *l) {
    put_block_size(f, l->bytes[A_JOINT_ID]);
    for (int j = 0; j < w->joint_count; ++j) {
        if (!w->joint_alive[j]) continue;
        const int64_t handle = ctn_joint_id_to_int(ctn__joint_handle(w, j));
        fwrite(&handle, sizeof handle, 1, f);
    }
    put_block_size(f, l->bytes[A_JOINT_TYPE]);
    for (int j = 0; j < w->joint_count; ++j)
        if (w->joint_alive[j]) {
            const int32_t type = w->joints[j].type;
            fwrite(&type, sizeof type, 1, f);
        }
    ctn_pose world = ctn__world_pose();
    for (int angle = 0; angle < 2; ++angle) {
        put_block_size(f, l->bytes[angle ? A_ANGLE : A_GAP]);
        for (int j = 0; j < w->joint_count; ++j) {
            if (!w->joint_alive[j]) continue;
            const ctn_joint_def *d = &w->joints[j];
            float err[2] = {0.0f, 0.0f};
            if (d->type != CTN_JT_SPRING) ctn_joint_error(*d, w->pose[d->a], d->b >= 0 ? w->pose[d->b] : world, &err[0], &err[1]);
            fwrite(&err[angle], sizeof(float), 1, f);
        }
    }
}

/* Points and lines: the body point of each live id, the anchors in joint order, and one segment per joint. */
static int write_geometry(FILE *f, const ctn_world *w, const frame_layout *l) {
    int64_t *point_of = ctn__malloc(((size_t)w->body_count + 1) * sizeof *point_of);
    if (!point_of) return 0;
    put_block_size(f, l->bytes[A_POINTS]);
    int64_t n = 0;
    for (int i = 0; i < w->body_count; ++i) {
        point_of[i] = -1;
        if (!(w->props[i].flags & CTN_BODY_FLAG_ALIVE)) continue;
        double p[3];
        ctn__pose_get_position(&w->pose[i], p);
        fwrite(p, sizeof p, 1, f);
        point_of[i] = n++;
    }
    ctn_pose world = ctn__world_pose();
    for (int j = 0; j < w->joint_count; ++j) {
        if (!w->joint_alive[j] || w->joints[j].b >= 0) continue;
        double p[3];
        ctn__pose_point(&world, w->joints[j].anchor_b, p);
        fwrite(p, sizeof p, 1, f);
    }
    put_block_size(f, l->bytes[A_CONN]);
    int64_t anchor = l->body_points;
    for (int j = 0; j < w->joint_count; ++j) {
        if (!w->joint_alive[j]) continue;
        const ctn_joint_def *d = &w->joints[j];
        const int64_t ends[2] = {point_of[d->a], d->b >= 0 ? point_of[d->b] : anchor++};
        fwrite(ends, sizeof ends, 1, f);
    }
    ctn__free(point_of);
    put_block_size(f, l->bytes[A_OFFSETS]);
    for (int64_t k = 1; k <= l->lines; ++k) {
        const int64_t end = 2 * k;
        fwrite(&end, sizeof end, 1, f);
    }
    return 1;
}

ctn_status ctn_world_write_vtp(ctn_world *w, const char *path, double time) {
    CTN__ENTER(w);
    if (!path) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_write_vtp: path is NULL");
    if (!isfinite(time)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_write_vtp: time %g is not finite", time);
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    frame_layout l;
    layout_frame(w, &l);
    char msg[1024];
    ctn_atomic_file out;
    if (!ctn__atomic_open(&out, path, msg, sizeof msg)) return ctn__fail(w, errno == ENOMEM ? CTN_ERR_OUT_OF_MEMORY : CTN_ERR_IO, "%s", msg);
    write_header(out.f, &l);
    put_block_size(out.f, l.bytes[A_TIME]);
    fwrite(&time, sizeof time, 1, out.f);
    write_point_arrays(out.f, w, &l);
    write_cell_arrays(out.f, w, &l);
    if (!write_geometry(out.f, w, &l)) {
        ctn__atomic_abort(&out);
        return ctn__fail(w, CTN_ERR_OUT_OF_MEMORY, "ctn_world_write_vtp: out of memory for %d point indices", w->body_count);
    }
    fprintf(out.f, "\n  </AppendedData>\n</VTKFile>\n");
    if (!ctn__atomic_commit(&out, msg, sizeof msg)) return ctn__fail(w, CTN_ERR_IO, "%s", msg);
    return CTN_OK;
}

/* XML attribute text: the five predefined entities (XML 1.0, section 2.4). */
static void xml_attribute(FILE *f, const char *s) {
    for (; *s; ++s) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default: fputc(*s, f);
        }
    }
}

ctn_status ctn_vtk_write_pvd(const char *path, int count, const char *const *files, const double *times, char *err, size_t err_size) {
    char dummy[1];
    if (!err) err = dummy, err_size = sizeof dummy;
    if (!path || count < 0 || (count > 0 && (!files || !times))) {
        snprintf(err, err_size, "ctn_vtk_write_pvd: path, files or times is NULL (count %d)", count);
        return CTN_ERR_INVALID_ARGUMENT;
    }
    for (int i = 0; i < count; ++i) {
        if (!files[i] || !isfinite(times[i])) {
            snprintf(err, err_size, "ctn_vtk_write_pvd: files[%d] is NULL or times[%d] = %g is not finite", i, i, times[i]);
            return CTN_ERR_INVALID_ARGUMENT;
        }
    }
    ctn_atomic_file out;
    if (!ctn__atomic_open(&out, path, err, err_size)) return errno == ENOMEM ? CTN_ERR_OUT_OF_MEMORY : CTN_ERR_IO;
    fprintf(out.f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n");
    for (int i = 0; i < count; ++i) {
        /* %.17g: the times round-trip, so frames at t and t + dt never collapse */
        fprintf(out.f, "    <DataSet timestep=\"%.17g\" part=\"0\" file=\"", times[i]);
        xml_attribute(out.f, files[i]);
        fprintf(out.f, "\"/>\n");
    }
    fprintf(out.f, "  </Collection>\n</VTKFile>\n");
    return ctn__atomic_commit(&out, err, err_size) ? CTN_OK : CTN_ERR_IO;
}
