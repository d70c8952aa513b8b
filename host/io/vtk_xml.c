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
 *   verts    one vertex cell per live body (its point), so that a body without joints is drawn too;
 *   lines    live joints (springs and contacts included), from body a's point to body b's or to the anchor;
 *   point data  body_id (Int64 handle, CTN_WORLD = -1 on anchor points), velocity and angular_velocity
 *               (Float32 x 3, m/s and rad/s), orientation (Float32 x 4, the unit quaternion w, x, y, z that
 *               turns body axes into world axes: VTK's quaternion order, vtkGlyph3DMapper's
 *               SetOrientationModeToQuaternion), mass (Float64, kg; 0 for static and kinematic bodies and
 *               anchors), shape_type (Int32, ctn_shape_type: 0 none, 1 sphere, 2 capsule, 3 box) and
 *               shape_size (Float32 x 3, m: the full extents of the shape along the body's x, y, z axes:
 *               a box's 2 half_extents, a sphere's diameter three times, a capsule's 2 (half_length +
 *               radius), 2 radius, 2 radius; zero without a shape) for glyphs scaled by vector components;
 *   cell data   on the vertex cells first, then on the lines (VTK's cell order): joint_id (Int64 handle;
 *               -1 on vertex cells), joint_type (Int32, ctn_joint_type values; -1 on vertex cells), gap (m)
 *               and angle_error (rad) (Float32: the joint errors of ctn_joint_error, the kernels' own
 *               measure; 0 on contacts, springs and vertex cells), contact_depth (Float32, m: a contact's
 *               penetration, kept apart from the joint errors so that a resting pile does not colour as torn
 *               joints; 0 on every other cell), force (N) and torque (N m about body a's centre of mass) (Float32 x 3: what the
 *               joint applied to body a in the last substep, its impulse over the substep length, as
 *               ctn_joint_get_force); zero on vertex cells;
 *   field data  TimeValue (Float64): the simulation time, which ParaView shows for a lone frame too. */
#define _POSIX_C_SOURCE 200809L
#include "collide/collide.h"
#include "core/joint_kinds.h"
#include "core/world.h"
#include "io/atomic_file.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Arrays of a frame, in the order their blocks follow each other in the appended section. */
enum {
    A_TIME,
    A_BODY_ID, A_VELOCITY, A_ANGULAR, A_ORIENTATION, A_MASS, A_SHAPE_TYPE, A_SHAPE_SIZE,         /* point data */
    A_JOINT_ID, A_JOINT_TYPE, A_GAP, A_ANGLE, A_DEPTH, A_FORCE, A_TORQUE,                                  /* cell data */
    A_POINTS, A_VERT_CONN, A_VERT_OFFSETS, A_CONN, A_OFFSETS,
    A_COUNT
};

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

static int body_alive(const ctn_world *w, int i) { return (w->props[i].flags & CTN_BODY_FLAG_ALIVE) != 0; }

static void layout_frame(const ctn_world *w, frame_layout *l) {
    memset(l, 0, sizeof *l);
    for (int i = 0; i < w->body_count; ++i)
        if (body_alive(w, i)) l->body_points++;
    int64_t anchors = 0;
    for (int j = 0; j < w->joint_count; ++j) {
        if (!w->joint_alive[j]) continue;
        l->lines++;
        if (ctn__jcore(w, j)->b < 0) anchors++;
    }
    l->points = l->body_points + anchors;
    const uint64_t np = (uint64_t)l->points, nv = (uint64_t)l->body_points, nl = (uint64_t)l->lines, nc = nv + nl;
    const uint64_t size[A_COUNT] = {
        8,
        8 * np, 12 * np, 12 * np, 16 * np, 8 * np, 4 * np, 12 * np,
        8 * nc, 4 * nc, 4 * nc, 4 * nc, 4 * nc, 12 * nc, 12 * nc,
        24 * np, 8 * nv, 8 * nv, 16 * nl, 8 * nl,
    };
    uint64_t at = 0;
    for (int a = 0; a < A_COUNT; ++a) {
        l->bytes[a] = size[a];
        l->offset[a] = at;
        at += 8 + size[a];
    }
}

static void xml_array(FILE *f, const char *type, const char *name, int components, uint64_t offset) {
    fprintf(f, "        <DataArray type=\"%s\" Name=\"%s\"", type, name);
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
    fprintf(f, "    <Piece NumberOfPoints=\"%lld\" NumberOfVerts=\"%lld\" NumberOfLines=\"%lld\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n",
            (long long)l->points, (long long)l->body_points, (long long)l->lines);
    fprintf(f, "      <PointData Scalars=\"body_id\" Vectors=\"velocity\">\n");
    xml_array(f, "Int64", "body_id", 1, o[A_BODY_ID]);
    xml_array(f, "Float32", "velocity", 3, o[A_VELOCITY]);
    xml_array(f, "Float32", "angular_velocity", 3, o[A_ANGULAR]);
    xml_array(f, "Float32", "orientation", 4, o[A_ORIENTATION]);
    xml_array(f, "Float64", "mass", 1, o[A_MASS]);
    xml_array(f, "Int32", "shape_type", 1, o[A_SHAPE_TYPE]);
    xml_array(f, "Float32", "shape_size", 3, o[A_SHAPE_SIZE]);
    fprintf(f, "      </PointData>\n      <CellData Scalars=\"gap\" Vectors=\"force\">\n");
    xml_array(f, "Int64", "joint_id", 1, o[A_JOINT_ID]);
    xml_array(f, "Int32", "joint_type", 1, o[A_JOINT_TYPE]);
    xml_array(f, "Float32", "gap", 1, o[A_GAP]);
    xml_array(f, "Float32", "angle_error", 1, o[A_ANGLE]);
    xml_array(f, "Float32", "contact_depth", 1, o[A_DEPTH]);
    xml_array(f, "Float32", "force", 3, o[A_FORCE]);
    xml_array(f, "Float32", "torque", 3, o[A_TORQUE]);
    fprintf(f, "      </CellData>\n      <Points>\n");
    xml_array(f, "Float64", "Points", 3, o[A_POINTS]);
    fprintf(f, "      </Points>\n      <Verts>\n");
    xml_array(f, "Int64", "connectivity", 1, o[A_VERT_CONN]);
    xml_array(f, "Int64", "offsets", 1, o[A_VERT_OFFSETS]);
    fprintf(f, "      </Verts>\n      <Lines>\n");
    xml_array(f, "Int64", "connectivity", 1, o[A_CONN]);
    xml_array(f, "Int64", "offsets", 1, o[A_OFFSETS]);
    fprintf(f, "      </Lines>\n    </Piece>\n  </PolyData>\n  <AppendedData encoding=\"raw\">\n   _");
}

static void put_block_size(FILE *f, uint64_t bytes) { fwrite(&bytes, sizeof bytes, 1, f); }

/* `count` copies of the `size` bytes at `value` (the anchors' and vertex cells' fill values). */
static void put_repeated(FILE *f, const void *value, size_t size, int64_t count) {
    for (int64_t k = 0; k < count; ++k) fwrite(value, size, 1, f);
}

/* The full extents of body i's shape along its axes (zero without one). */
static void shape_size(const ctn_world *w, int i, int *type, float size[3]) {
    const struct ctn_collision *c = w->collision;
    const ctn_shape *sh = c && i < c->shape_capacity ? &c->shapes[i] : NULL;
    *type = sh ? sh->type : CTN_SHAPE_NONE;
    size[0] = size[1] = size[2] = 0.0f;
    if (!sh) return;
    switch (sh->type) {
    case CTN_SHAPE_SPHERE: size[0] = size[1] = size[2] = 2.0f * sh->radius; break;
    case CTN_SHAPE_CAPSULE:
        size[0] = 2.0f * (sh->half_length + sh->radius);
        size[1] = size[2] = 2.0f * sh->radius;
        break;
    case CTN_SHAPE_BOX:
        size[0] = 2.0f * sh->half_extents.x, size[1] = 2.0f * sh->half_extents.y, size[2] = 2.0f * sh->half_extents.z;
        break;
    default: *type = CTN_SHAPE_NONE;
    }
}

/* Per-point values: bodies (live ids), then the fill values of the world anchors. */
static void write_point_arrays(FILE *f, const ctn_world *w, const frame_layout *l) {
    const int64_t anchors = l->points - l->body_points;
    put_block_size(f, l->bytes[A_BODY_ID]);
    for (int i = 0; i < w->body_count; ++i) {
        if (!body_alive(w, i)) continue;
        const int64_t handle = ctn_body_id_to_int(ctn__body_handle(w, i));
        fwrite(&handle, sizeof handle, 1, f);
    }
    const int64_t none = ctn_body_id_to_int(CTN_WORLD);
    put_repeated(f, &none, sizeof none, anchors);
    const float zero[3] = {0, 0, 0};
    for (int angular = 0; angular < 2; ++angular) {
        put_block_size(f, l->bytes[angular ? A_ANGULAR : A_VELOCITY]);
        for (int i = 0; i < w->body_count; ++i) {
            if (!body_alive(w, i)) continue;
            ctn_v3 v = angular ? w->vel[i].w : w->vel[i].v;
            const float xyz[3] = {v.x, v.y, v.z};
            fwrite(xyz, sizeof xyz, 1, f);
        }
        put_repeated(f, zero, sizeof zero, anchors);
    }
    put_block_size(f, l->bytes[A_ORIENTATION]);
    for (int i = 0; i < w->body_count; ++i) {
        if (!body_alive(w, i)) continue;
        const ctn_quat q = w->pose[i].q;
        const float wxyz[4] = {q.w, q.x, q.y, q.z};
        fwrite(wxyz, sizeof wxyz, 1, f);
    }
    const float identity[4] = {1, 0, 0, 0};
    put_repeated(f, identity, sizeof identity, anchors);
    put_block_size(f, l->bytes[A_MASS]);
    for (int i = 0; i < w->body_count; ++i) {
        if (!body_alive(w, i)) continue;
        const double m = (w->props[i].flags & CTN_BODY_FLAG_DYNAMIC) && w->inertia[i].inv_mass > 0.0f ? 1.0 / (double)w->inertia[i].inv_mass : 0.0;
        fwrite(&m, sizeof m, 1, f);
    }
    const double no_mass = 0.0;
    put_repeated(f, &no_mass, sizeof no_mass, anchors);
    for (int size = 0; size < 2; ++size) {
        put_block_size(f, l->bytes[size ? A_SHAPE_SIZE : A_SHAPE_TYPE]);
        for (int i = 0; i < w->body_count; ++i) {
            if (!body_alive(w, i)) continue;
            int type;
            float extent[3];
            shape_size(w, i, &type, extent);
            const int32_t t = type;
            if (size) fwrite(extent, sizeof extent, 1, f);
            else fwrite(&t, sizeof t, 1, f);
        }
        const int32_t no_shape = CTN_SHAPE_NONE;
        if (size) put_repeated(f, zero, sizeof zero, anchors);
        else put_repeated(f, &no_shape, sizeof no_shape, anchors);
    }
}

/* Per-cell values: the vertex cells' fill values, then per line the ids, types, joint errors as the kernels
 * measure them (springs carry no rows) and the force and torque on body a. */
static void write_cell_arrays(FILE *f, const ctn_world *w, const frame_layout *l) {
    const int64_t verts = l->body_points;
    const int64_t no_joint = -1;
    put_block_size(f, l->bytes[A_JOINT_ID]);
    put_repeated(f, &no_joint, sizeof no_joint, verts);
    for (int j = 0; j < w->joint_count; ++j) {
        if (!w->joint_alive[j]) continue;
        const int64_t handle = ctn_joint_id_to_int(ctn__joint_handle(w, j));
        fwrite(&handle, sizeof handle, 1, f);
    }
    put_block_size(f, l->bytes[A_JOINT_TYPE]);
    const int32_t no_type = -1;
    put_repeated(f, &no_type, sizeof no_type, verts);
    for (int j = 0; j < w->joint_count; ++j)
        if (w->joint_alive[j]) {
            const int32_t type = ctn__jcore(w, j)->type;
            fwrite(&type, sizeof type, 1, f);
        }
    const float zero[3] = {0, 0, 0};
    for (int which = 0; which < 3; ++which) { /* gap, angle_error, contact_depth */
        put_block_size(f, l->bytes[which == 0 ? A_GAP : which == 1 ? A_ANGLE : A_DEPTH]);
        put_repeated(f, zero, sizeof(float), verts);
        for (int j = 0; j < w->joint_count; ++j) {
            if (!w->joint_alive[j]) continue;
            float err[3];
            ctn__joint_slot_errors(w, j, &err[0], &err[1], &err[2]);
            fwrite(&err[which], sizeof(float), 1, f);
        }
    }
    for (int torque = 0; torque < 2; ++torque) {
        put_block_size(f, l->bytes[torque ? A_TORQUE : A_FORCE]);
        put_repeated(f, zero, sizeof zero, verts);
        for (int j = 0; j < w->joint_count; ++j) {
            if (!w->joint_alive[j]) continue;
            double ft[6];
            ctn__joint_force_torque(w, j, ft);
            const double *v = ft + 3 * torque;
            const float xyz[3] = {(float)v[0], (float)v[1], (float)v[2]};
            fwrite(xyz, sizeof xyz, 1, f);
        }
    }
}

/* Points, vertex cells and lines: the body point of each live id, the anchors in joint order, one vertex
 * per body and one segment per joint. */
static int write_geometry(FILE *f, const ctn_world *w, const frame_layout *l) {
    int64_t *point_of = ctn__malloc(((size_t)w->body_count + 1) * sizeof *point_of);
    if (!point_of) return 0;
    put_block_size(f, l->bytes[A_POINTS]);
    int64_t n = 0;
    for (int i = 0; i < w->body_count; ++i) {
        point_of[i] = -1;
        if (!body_alive(w, i)) continue;
        double p[3];
        ctn__pose_get_position(&w->pose[i], p);
        fwrite(p, sizeof p, 1, f);
        point_of[i] = n++;
    }
    ctn_pose world = ctn__world_pose();
    for (int j = 0; j < w->joint_count; ++j) {
        if (!w->joint_alive[j] || ctn__jcore(w, j)->b >= 0) continue;
        double p[3];
        ctn__pose_point(&world, ctn__jcore(w, j)->anchor_b, p);
        fwrite(p, sizeof p, 1, f);
    }
    for (int offsets = 0; offsets < 2; ++offsets) { /* vertex k is point k; its cell ends at k + 1 */
        put_block_size(f, l->bytes[offsets ? A_VERT_OFFSETS : A_VERT_CONN]);
        for (int64_t k = 0; k < l->body_points; ++k) {
            const int64_t v = k + offsets;
            fwrite(&v, sizeof v, 1, f);
        }
    }
    put_block_size(f, l->bytes[A_CONN]);
    int64_t anchor = l->body_points;
    for (int j = 0; j < w->joint_count; ++j) {
        if (!w->joint_alive[j]) continue;
        const ctn_joint_core *d = ctn__jcore(w, j);
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
