/* Checkpoints: the whole world state in one binary file, written atomically.
 *
 * Layout (native byte order, refused on a machine of the other order):
 *   header, 64 bytes: magic "CATENACK", u32 version, u32 byte-order mark 0x01020304, u32 sizes of the six
 *   stored records (pose, vel, inertia, props, joint def, world desc), u64 payload bytes, u64 FNV-1a 64
 *   hash of the payload continued over the other 56 header bytes (version 3: of the payload only), u32 size
 *   of the user force record (version 5; before it zero), u32 reserved (zero);
 *   payload: settings, the caller's step counter and text; the slot counts (body slots, live bodies, free
 *   body slots, joint slots, live joints, free joint slots); the body arrays by slot (pose with the two-float
 *   position, velocity with the inverse mass (v, inverse mass, w, pad: ck_vel, host/io/checkpoint_io.h),
 *   world inverse inertia (six entries, two pads: ck_inertia), properties with flags, then an i32 that is 1 when the user
 *   forces follow by slot and 0 when the world has none, joint reference counts, generations) and the free
 *   body slots in stack order; the joint definitions by slot with their alive
 *   flags and generations, the free joint slots, and each joint's 6 warm-start impulses by slot; then the
 *   collision state (settings, each body's first shape, planes, contact cache) and the body names, then the
 *   optional sections (curve polylines, attachments, joint names, the further shapes of compound bodies),
 *   each written only when the world has any (host/io/checkpoint_sections.c). Version 3 added the handles' generations and free stacks, the collision
 *   state and the names; older files are refused with a message. Version 4 (the checksum covers the header,
 * reserved bytes included) has version 3's payload: both are read. Version 5 keeps the user forces apart from
 * the properties (a 16-byte ctn_props and the forces' section above); the 48-byte properties of versions 3
 * and 4 (flags and inverse moments, then force and torque with a pad each) are split on load.
 *
 * Loading refuses a file whose contents the API could not have made: structure (counts, slots, free stacks,
 * generations, reference counts) here, values (every float of the bodies and impulses) in
 * host/io/checkpoint_values.c, joints by ctn__joint_validate, the later sections by their readers.
 *
 * The arrays are the host arrays byte for byte (the poses, velocities and inertias value for value: the file keeps
 * a 48-byte pose record with two zero pads, the in-memory one is 40 bytes, and the velocity with the inverse mass
 * and a pad, the inertia with two pads, ck_vel and ck_inertia, where memory keeps the inverse mass in the inertia:
 * host/io/checkpoint_io.h), so a loaded world continues exactly and issues the same handles. Impulses are stored by
 * joint slot; the solver order they live in (topo.lambda, by colour) is
 * rebuilt on load by the same deterministic colouring of the same joints, and the impulses are put back
 * at each joint's slot in that layout (ctn__joint_layout_slot). */
#define _POSIX_C_SOURCE 200809L
#include "core/joint_kinds.h"
#include "io/atomic_file.h"
#include "io/checkpoint_io.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CK_MAGIC "CATENACK"
#define CK_VERSION 5u /* 5: the user forces apart from the properties; 4: the checksum covers the header too;
                       * 3: handle generations and free slots; 2: two-float positions; 1: float32 positions */
#define CK_PROPS_V4 48u /* versions 3 and 4: ctn_props with the force and torque (16 + ctn_body_force) */
#define CK_VERSION_OLDEST 3u /* the oldest version still read (3: payload-only checksum, same payload) */
#define CK_BOM 0x01020304u
/* The settings' size before ctn_world_desc grew rattle_max_joints (appended last for this): such files load
 * with the field at 0, its default. */
#define CK_DESC_BEFORE_RATTLE_LIMIT offsetof(ctn_world_desc, rattle_max_joints)
#define CK_HEADER 64

/* ---- writing ------------------------------------------------------------------------------------- */

/* The header's checksum (version 4): FNV-1a 64 over the payload, continued over the header's other 56
 * bytes (magic, version, byte-order mark, sizes, payload length and the 8 reserved bytes), so that no byte
 * of the file is outside it. Version 3 hashed the payload only. */
static uint64_t header_hash(const unsigned char *h, uint64_t payload_hash) {
    uint64_t x = ctn__fnv1a(payload_hash, h, 48);
    return ctn__fnv1a(x, h + 56, CK_HEADER - 56);
}

/* The header of a payload of `payload` bytes whose FNV-1a 64 is `payload_hash`. */
static void header(unsigned char *h, uint64_t payload, uint64_t payload_hash) {
    memset(h, 0, CK_HEADER);
    uint32_t u[8] = {CK_VERSION, CK_BOM, CK_POSE_SIZE, sizeof(ck_vel), sizeof(ck_inertia), sizeof(ctn_props), sizeof(ctn_joint_def),
                     sizeof(ctn_world_desc)};
    memcpy(h, CK_MAGIC, 8);
    memcpy(h + 8, u, sizeof u);
    memcpy(h + 40, &payload, 8);
    uint32_t force_size = sizeof(ctn_body_force);
    memcpy(h + 56, &force_size, sizeof force_size);
    uint64_t hash = header_hash(h, payload_hash);
    memcpy(h + 48, &hash, 8);
}

/* Slot generations: kept modulo 65536 (uint16_t, world.h), stored as 32-bit values, the format's width. */
static void ck_put_gens(ck_writer *wr, const uint16_t *gen, size_t n) { /* gen NULL: all 0 */
    uint32_t buf[256];
    for (size_t i = 0; i < n;) {
        size_t k = 0;
        for (; k < 256 && i < n; ++k, ++i) buf[k] = gen ? gen[i] : 0u;
        ck_put(wr, buf, k * sizeof *buf);
    }
}
/* Reads n stored generations into gen (their low 16 bits, which the handles carry); 0 when one is past
 * CTN__GENERATION_MASK, which no writer stores (a short read is left to r->short_read). */
static int ck_get_gens(ck_reader *r, uint16_t *gen, size_t n) {
    int ok = 1;
    for (size_t i = 0; i < n && !r->short_read; ++i) {
        uint32_t g = 0;
        ck_get(r, &g, sizeof g);
        if (g > CTN__GENERATION_MASK) ok = 0;
        gen[i] = (uint16_t)g;
    }
    return ok;
}

/* The bodies' velocities and inertias as the file's records (ck_vel, ck_inertia), a block at a time. The inverse
 * mass goes with the velocity, the inertia's pads are zero. */
static void ck_put_vels(ck_writer *wr, const ctn_vel *vel, const ctn_inertia *inertia, size_t n) {
    ck_vel buf[128];
    for (size_t i = 0; i < n;) {
        size_t k = 0;
        for (; k < 128 && i < n; ++k, ++i) buf[k] = ck_vel_of(vel[i], inertia[i].inv_mass);
        ck_put(wr, buf, k * sizeof *buf);
    }
}
static void ck_put_inertias(ck_writer *wr, const ctn_inertia *inertia, size_t n) {
    ck_inertia buf[128];
    for (size_t i = 0; i < n;) {
        size_t k = 0;
        for (; k < 128 && i < n; ++k, ++i) buf[k].inv_inertia = inertia[i].inv_inertia, buf[k].pad[0] = buf[k].pad[1] = 0.0f;
        ck_put(wr, buf, k * sizeof *buf);
    }
}
/* Their readers: the velocities and inverse masses, then the world inverse inertias (the pads dropped). A short
 * read is left to r->short_read (ck_get zeroes what it could not read). */
static void ck_get_vels(ck_reader *r, ctn_vel *vel, ctn_inertia *inertia, size_t n) {
    for (size_t i = 0; i < n && !r->short_read; ++i) {
        ck_vel f;
        ck_get(r, &f, sizeof f);
        vel[i].v = f.v, vel[i].w = f.w;
        inertia[i].inv_mass = f.inv_mass;
    }
}
static void ck_get_inertias(ck_reader *r, ctn_inertia *inertia, size_t n) {
    for (size_t i = 0; i < n && !r->short_read; ++i) {
        ck_inertia f;
        ck_get(r, &f, sizeof f);
        inertia[i].inv_inertia = f.inv_inertia;
    }
}

/* The payload: through a writer without a file (wr->f NULL) it is only counted and hashed. */
static void put_payload(ck_writer *wr, ctn_world *w, uint64_t step, const char *user) {
    /* the settings as raw bytes (the header records sizeof(ctn_world_desc)); the device pointer is
     * stored as a string after them. The log callback and the debug options belong to the process that
     * set them, not to the state: they are stored as their defaults. */
    ctn_world_desc saved = w->desc;
    saved.device = NULL;
    saved.log = NULL;
    saved.log_user = NULL;
    saved.debug = ctn_world_desc_default().debug;
    unsigned char raw[sizeof(ctn_world_desc)];
    memcpy(raw, &saved, sizeof raw);
    ck_put(wr, raw, sizeof raw);
    ck_put_str(wr, w->desc.device);
    ck_put(wr, &step, sizeof step);
    ck_put_str(wr, user);
    size_t nb = (size_t)w->body_count, nj = (size_t)w->joint_count;
    int32_t counts[6] = {w->body_count, w->live_bodies, w->body_free_count, w->joint_count, w->live_joints, w->joint_free_count};
    ck_put(wr, counts, sizeof counts);
    ck_put_poses(wr, w->pose, nb); /* 48 bytes a pose on disk (checkpoint_io.h) */
    ctn__inertia_fresh(w); /* the inertias the step left to their next reader */
    ck_put_vels(wr, w->vel, w->inertia, nb);
    ck_put_inertias(wr, w->inertia, nb);
    ck_put(wr, w->props, nb * sizeof *w->props);
    int32_t has_forces = w->body_force != NULL;
    ck_put(wr, &has_forces, sizeof has_forces);
    if (has_forces) ck_put(wr, w->body_force, nb * sizeof *w->body_force);
    ck_put(wr, w->body_refs, nb * sizeof *w->body_refs);
    ck_put_gens(wr, w->body_gen, nb);
    ck_put(wr, w->body_free, (size_t)w->body_free_count * sizeof *w->body_free);
    for (size_t j = 0; j < nj; ++j) { /* slot order, whole definitions (the file's layout: the extras' defaults filled in) */
        ctn_joint_def d = ctn__jdef_get(w, (int)j);
        ck_put(wr, &d, sizeof d);
    }
    ck_put(wr, w->joint_alive, nj);
    ck_put_gens(wr, w->joint_gen, nj);
    ck_put(wr, w->joint_free, (size_t)w->joint_free_count * sizeof *w->joint_free);
    /* 6 floats a joint whatever the layout's row stride (rows past it are zero, CTN_LAM): the file does not
     * depend on the other joints of the world */
    for (size_t j = 0; j < nj; ++j) {
        int s = ctn__joint_layout_slot(w, (int)j);
        float l[6];
        for (int k = 0; k < 6; ++k) l[k] = s >= 0 && s < w->topo.joint_count ? CTN_LAM(w->topo.lambda, w->topo.stride, s, k) : 0.0f;
        ck_put(wr, l, sizeof l);
    }
    ctn__ck_put_collision(wr, w);
    ctn__ck_put_names(wr, w);
    ctn__ck_put_curves(wr, w);
    ctn__ck_put_attach(wr, w);
    ctn__ck_put_joint_names(wr, w);
    ctn__ck_put_more_shapes(wr, w);
}

static ctn_status save_file(ctn_world *w, const char *path, uint64_t step, const char *user);

ctn_status ctn_world_save(ctn_world *w, const char *path, uint64_t step, const char *user) {
    CTN__ENTER(w);
    if (!path || !path[0]) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_save: path is empty");
    if (user && strlen(user) >= CTN_CHECKPOINT_USER_MAX)
        return ctn__fail(w, CTN_ERR_LIMIT, "ctn_world_save: user text of %zu bytes exceeds %d", strlen(user), CTN_CHECKPOINT_USER_MAX - 1);
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    if (w->topology_dirty) {
        /* the impulses are only meaningful for the current layout: bring it up to date first */
        st = ctn__topology_build(w);
        if (st != CTN_OK) return st;
    }
    /* the file holds each body's count of joints: counted for it where the world keeps none (ctn_world.body_refs) */
    int counted = w->body_refs == NULL;
    if (counted && (st = ctn__body_refs(w)) != CTN_OK) return st;
    st = save_file(w, path, step, user);
    if (counted) {
        ctn__free(w->body_refs);
        w->body_refs = NULL;
    }
    return st;
}

/* ctn_world_save's file, the host arrays current. */
static ctn_status save_file(ctn_world *w, const char *path, uint64_t step, const char *user) {
    ctn_atomic_file out; /* PATH.tmp.PID, synced and renamed onto PATH when complete (host/io/atomic_file.c) */
    char msg[512];
    if (!ctn__atomic_open(&out, path, msg, sizeof msg)) return ctn__fail(w, errno == ENOMEM ? CTN_ERR_OUT_OF_MEMORY : CTN_ERR_IO, "%s", msg);
    ck_writer wr = {out.f, CTN_FNV_OFFSET, 0, 0};
    unsigned char h[CK_HEADER];
    if (out.tmp) { /* a temporary file: one pass, the header written over its placeholder at the end */
        memset(h, 0, sizeof h);
        if (fwrite(h, 1, CK_HEADER, wr.f) != CK_HEADER) wr.failed = 1;
        put_payload(&wr, w, step, user);
        header(h, wr.bytes, wr.hash);
        if (!wr.failed && (fflush(wr.f) != 0 || fseek(wr.f, 0, SEEK_SET) != 0 || fwrite(h, 1, CK_HEADER, wr.f) != CK_HEADER)) wr.failed = 1;
    } else { /* a device or a FIFO, written in place, cannot seek back: the payload is counted and hashed
              * first (a second pass over it, +80 ms for 30.9 MB), so that the file goes front to back */
        ck_writer count = {NULL, CTN_FNV_OFFSET, 0, 0};
        put_payload(&count, w, step, user);
        header(h, count.bytes, count.hash);
        if (fwrite(h, 1, CK_HEADER, wr.f) != CK_HEADER) wr.failed = 1;
        put_payload(&wr, w, step, user);
        if (!wr.failed && fflush(wr.f) != 0) wr.failed = 1;
    }
    if (wr.failed) {
        int err = errno;
        ctn__atomic_abort(&out);
        return ctn__fail(w, CTN_ERR_IO, "%s: write failed: %s", path, strerror(err));
    }
    if (!ctn__atomic_commit(&out, msg, sizeof msg)) return ctn__fail(w, CTN_ERR_IO, "%s", msg);
    return CTN_OK;
}

/* ---- reading ------------------------------------------------------------------------------------- */

#define ERR(...) (err && err_size ? snprintf(err, err_size, __VA_ARGS__) : 0)

/* Reads the whole file, checks the header and checksum; *payload is malloc'd. */
static ctn_status read_verified(const char *path, unsigned char **payload, size_t *size, size_t *desc_size, uint32_t *version, char *err,
                                size_t err_size) {
    *payload = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        ERR("%s: cannot open: %s", path, strerror(errno));
        return CTN_ERR_IO;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) { /* fopen opens a directory; reading it fails */
        fclose(f);
        ERR("%s: is a directory, not a checkpoint file", path);
        return CTN_ERR_IO;
    }
    unsigned char h[CK_HEADER];
    size_t got = fread(h, 1, CK_HEADER, f);
    if (got < 8 || memcmp(h, CK_MAGIC, 8) != 0) {
        fclose(f);
        ERR("%s: not a catena checkpoint (bad magic)", path);
        return CTN_ERR_INVALID_ARGUMENT;
    }
    if (got < CK_HEADER) {
        fclose(f);
        ERR("%s: truncated checkpoint (header is %zu of %d bytes)", path, got, CK_HEADER);
        return CTN_ERR_INVALID_ARGUMENT;
    }
    uint32_t u[8];
    uint64_t plen, hash;
    memcpy(u, h + 8, sizeof u);
    memcpy(&plen, h + 40, 8);
    memcpy(&hash, h + 48, 8);
    if (u[1] != CK_BOM) {
        fclose(f);
        ERR("%s: checkpoint written on a machine of the other byte order", path);
        return CTN_ERR_UNSUPPORTED;
    }
    if (u[0] < CK_VERSION_OLDEST || u[0] > CK_VERSION) {
        fclose(f);
        if (u[0] == 1u || u[0] == 2u)
            ERR("%s: checkpoint format version %u is no longer read; this catena reads versions %u to %u (%s): rerun the scene "
                "to write a new checkpoint", path, u[0], CK_VERSION_OLDEST, CK_VERSION, "generation-checked handles, collision state");
        else ERR("%s: checkpoint format version %u; this catena reads versions %u to %u", path, u[0], CK_VERSION_OLDEST, CK_VERSION);
        return CTN_ERR_UNSUPPORTED;
    }
    uint32_t props_size = u[0] >= 5u ? (uint32_t)sizeof(ctn_props) : CK_PROPS_V4;
    if (u[2] != CK_POSE_SIZE || u[3] != sizeof(ck_vel) || u[4] != sizeof(ck_inertia) || u[5] != props_size ||
        u[6] != sizeof(ctn_joint_def) || (u[7] != sizeof(ctn_world_desc) && u[7] != CK_DESC_BEFORE_RATTLE_LIMIT)) {
        fclose(f);
        ERR("%s: checkpoint written by a catena with other data layouts", path);
        return CTN_ERR_UNSUPPORTED;
    }
    long end = -1;
    if (fseek(f, 0, SEEK_END) == 0) end = ftell(f);
    if (end < CK_HEADER || fseek(f, CK_HEADER, SEEK_SET) != 0) {
        fclose(f);
        ERR("%s: cannot read", path);
        return CTN_ERR_IO;
    }
    uint64_t have = (uint64_t)end - CK_HEADER;
    if (have != plen) {
        fclose(f);
        if (have < plen) ERR("%s: truncated checkpoint (%llu of %llu payload bytes)", path, (unsigned long long)have, (unsigned long long)plen);
        else ERR("%s: corrupted checkpoint (%llu bytes after the payload)", path, (unsigned long long)(have - plen));
        return CTN_ERR_INVALID_ARGUMENT;
    }
    unsigned char *buf = ctn__malloc((size_t)plen + 1);
    if (!buf) {
        fclose(f);
        ERR("%s: out of memory reading %llu bytes", path, (unsigned long long)plen);
        return CTN_ERR_OUT_OF_MEMORY;
    }
    got = fread(buf, 1, (size_t)plen, f);
    fclose(f);
    if (got != plen) {
        ctn__free(buf);
        ERR("%s: read error", path);
        return CTN_ERR_IO;
    }
    uint64_t payload_hash = ctn__fnv1a(CTN_FNV_OFFSET, buf, (size_t)plen);
    if ((u[0] >= 4u ? header_hash(h, payload_hash) : payload_hash) != hash) {
        ctn__free(buf);
        ERR("%s: corrupted checkpoint (checksum mismatch)", path);
        return CTN_ERR_INVALID_ARGUMENT;
    }
    uint32_t force_size; /* version 5: in the first reserved bytes, so checked once they are known intact */
    memcpy(&force_size, h + 56, sizeof force_size);
    if (u[0] >= 5u && force_size != sizeof(ctn_body_force)) {
        ctn__free(buf);
        ERR("%s: checkpoint written by a catena with other data layouts", path);
        return CTN_ERR_UNSUPPORTED;
    }
    *payload = buf;
    *size = (size_t)plen;
    *desc_size = u[7];
    *version = u[0];
    return CTN_OK;
}

/* Settings (desc_size bytes of them: the fields after those of an older file keep 0, their default), step and
 * user text; leaves r at the body section. */
static int read_info(ck_reader *r, size_t desc_size, ctn_checkpoint_info *info) {
    memset(info, 0, sizeof *info);
    ctn_world_desc *d = &info->desc;
    ck_get(r, d, desc_size);
    ck_get_str(r, info->device, sizeof info->device);
    d->device = info->device[0] ? info->device : NULL;
    /* pointers in the file are never used: a corrupted file must not hand out a callback */
    d->log = NULL;
    d->log_user = NULL;
    d->debug = ctn_world_desc_default().debug;
    /* bounded_rows sits in what was the struct's tail padding: a file written before it holds whatever those
     * bytes were, so a value outside the enum is read as CTN_BOUNDED_AUTO, its default */
    if ((int)d->bounded_rows < CTN_BOUNDED_AUTO || (int)d->bounded_rows > CTN_BOUNDED_SWEEP) d->bounded_rows = CTN_BOUNDED_AUTO;
    ck_get(r, &info->step, sizeof info->step);
    ck_get_str(r, info->user, sizeof info->user);
    return !r->short_read;
}

ctn_status ctn_checkpoint_read_info(const char *path, ctn_checkpoint_info *info, char *err, size_t err_size) {
    if (!path || !info) {
        ERR("ctn_checkpoint_read_info: %s is NULL", path ? "info" : "path");
        return CTN_ERR_INVALID_ARGUMENT;
    }
    unsigned char *buf;
    size_t n;
    size_t desc_size;
    uint32_t version;
    ctn_status st = read_verified(path, &buf, &n, &desc_size, &version, err, err_size);
    if (st != CTN_OK) return st;
    ck_reader r = {buf, n, 0, 0, ""};
    int ok = read_info(&r, desc_size, info);
    int32_t counts[6];
    if (ok && ck_get(&r, counts, sizeof counts)) {
        info->bodies = counts[0];
        info->joints = counts[3];
    }
    ctn__free(buf);
    if (!ok || r.short_read) {
        ERR("%s: corrupted checkpoint (inconsistent contents)", path);
        return CTN_ERR_INVALID_ARGUMENT;
    }
    info->desc.device = info->device[0] ? info->device : NULL;
    return CTN_OK;
}

/* Whether stack[0..n) names distinct slots in [0, slots) that are not alive (alive[i] != 0: live). */
static int free_stack_ok(ck_reader *r, const int *stack, int n, int slots, const unsigned char *alive) {
    unsigned char *seen = ctn__calloc((size_t)slots + 1, 1);
    int ok = seen ? 1 : ck_oom(r);
    for (int k = 0; ok && k < n; ++k) {
        int i = stack[k];
        ok = i >= 0 && i < slots && !alive[i] && !seen[i];
        if (ok) seen[i] = 1;
    }
    ctn__free(seen);
    return ok;
}

/* Structural sanity of loaded slots, so that a crafted file cannot index out of bounds: joint bodies in
 * range (a gear's or rack-and-pinion's both real bodies: the re-centring reads both poses), free stacks
 * naming distinct dead slots (the generations are checked as read: ck_get_gens). 0 also when out of
 * memory (r->oom). */
static int slots_consistent(ck_reader *r, ctn_world *w) {
    unsigned char *body_alive = ctn__malloc((size_t)w->body_count + 1);
    if (!body_alive) return ck_oom(r);
    int ok = 1;
    for (int i = 0; i < w->body_count; ++i) {
        body_alive[i] = (w->props[i].flags & CTN_BODY_FLAG_ALIVE) != 0;
    }
    for (int j = 0; j < w->joint_count; ++j) {
        const ctn_joint_core *d = ctn__jcore(w, j);
        if (w->joint_alive[j] > 1 || d->a < 0 || d->a >= w->body_count || d->b < -1 ||
            d->b >= w->body_count || !ctn__joint_kind(d->type) || d->rows < 0 || d->rows > CTN_MAX_ROWS)
            ok = 0;
        if (ctn__joint_kind_has(d->type, CTN_JK_TWO_BODIES) && d->b < 0) ok = 0; /* two bodies, as ctn_joint_add */
        /* a live joint's rows at least those its row builders write (ctn_joint_def_rows): the layout's impulse
         * stride is the largest stored count, and a block with more rows would read past its joint's impulses */
        if (ok && w->joint_alive[j] && d->rows < ctn_joint_def_rows(ctn__jdef_get(w, j))) ok = 0;
    }
    ok = ok && free_stack_ok(r, w->body_free, w->body_free_count, w->body_count, body_alive) &&
         free_stack_ok(r, w->joint_free, w->joint_free_count, w->joint_count, w->joint_alive);
    ctn__free(body_alive);
    return ok;
}

ctn_status ctn_world_load(const char *path, const ctn_world_desc *desc, ctn_world **out, ctn_checkpoint_info *info_out, char *err,
                          size_t err_size) {
    if (out) *out = NULL;
    if (!path || !out) {
        ERR("ctn_world_load: %s is NULL", path ? "out" : "path");
        return CTN_ERR_INVALID_ARGUMENT;
    }
    unsigned char *buf;
    size_t n;
    size_t desc_size;
    uint32_t version;
    ctn_status st = read_verified(path, &buf, &n, &desc_size, &version, err, err_size);
    if (st != CTN_OK) return st;
    ck_reader r = {buf, n, 0, 0, ""};
    ctn_checkpoint_info *info = ctn__malloc(sizeof *info);
    ctn_world *w = NULL;
    if (!info) {
        ctn__free(buf);
        ERR("out of memory");
        return CTN_ERR_OUT_OF_MEMORY;
    }
    if (!read_info(&r, desc_size, info)) goto corrupt;
    info->desc.device = info->device[0] ? info->device : NULL;
    int32_t c[6];
    ck_get(&r, c, sizeof c);
    int32_t nb = c[0], live_b = c[1], free_b = c[2], nj = c[3], live_j = c[4], free_j = c[5];
    size_t props_size = version >= 5u ? sizeof(ctn_props) : CK_PROPS_V4;
    size_t per_body = CK_POSE_SIZE + sizeof(ck_vel) + sizeof(ck_inertia) + props_size + sizeof(int) + sizeof(uint32_t);
    size_t per_joint = sizeof(ctn_joint_def) + 1 + sizeof(uint32_t) + 6 * sizeof(float);
    if (r.short_read || nb < 0 || nb > CTN_MAX_BODIES || live_b < 0 || free_b < 0 || (int64_t)live_b + free_b != nb || nj < 0 ||
        nj > CTN_MAX_JOINTS || live_j < 0 || free_j < 0 || (int64_t)live_j + free_j != nj ||
        (size_t)nb > r.left / per_body || (size_t)nj > r.left / per_joint)
        goto corrupt;
    info->bodies = nb;
    info->joints = nj;
    st = ctn_world_create(desc ? desc : &info->desc, &w, err, err_size);
    if (st != CTN_OK) {
        ctn__free(buf);
        ctn__free(info);
        return st;
    }
    size_t cap = nb > 0 ? (size_t)nb : 1;
    w->pose = ctn__malloc(cap * sizeof *w->pose);
    w->vel = ctn__malloc(cap * sizeof *w->vel);
    w->inertia = ctn__malloc(cap * sizeof *w->inertia);
    w->props = ctn__malloc(cap * sizeof *w->props);
    w->body_refs = ctn__malloc(cap * sizeof *w->body_refs);
    w->body_gen = ctn__malloc(cap * sizeof *w->body_gen);
    w->body_free = ctn__malloc(cap * sizeof *w->body_free);
    if (!w->pose || !w->vel || !w->inertia || !w->props || !w->body_refs || !w->body_gen || !w->body_free) goto oom;
    w->body_capacity = (int)cap;
    ck_get_poses(&r, w->pose, (size_t)nb);
    ck_get_vels(&r, w->vel, w->inertia, (size_t)nb);
    ck_get_inertias(&r, w->inertia, (size_t)nb);
    if (version >= 5u) {
        ck_get(&r, w->props, (size_t)nb * sizeof *w->props);
        int32_t has_forces = 0;
        ck_get(&r, &has_forces, sizeof has_forces);
        if (has_forces != 0 && has_forces != 1) goto corrupt;
        if (has_forces && (size_t)nb > r.left / sizeof(ctn_body_force)) goto corrupt;
        if (has_forces && !(w->body_force = ctn__body_force_alloc(cap, NULL, 0))) goto oom;
        if (has_forces) ck_get(&r, w->body_force, (size_t)nb * sizeof *w->body_force);
    } else { /* versions 3 and 4: each body's 48 bytes are its ctn_props and then its ctn_body_force */
        if (!(w->body_force = ctn__body_force_alloc(cap, NULL, 0))) goto oom;
        for (int32_t i = 0; i < nb && !r.short_read; ++i) {
            ck_get(&r, &w->props[i], sizeof *w->props);
            ck_get(&r, &w->body_force[i], sizeof *w->body_force);
        }
    }
    ck_get(&r, w->body_refs, (size_t)nb * sizeof *w->body_refs);
    int gens_ok = ck_get_gens(&r, w->body_gen, (size_t)nb);
    int any_gen = 0; /* a world none of whose bodies was removed holds no generations (ctn__body_gens) */
    for (int32_t i = 0; i < nb && !any_gen && !r.short_read; ++i) any_gen = w->body_gen[i] != 0;
    if (!any_gen && !r.short_read) {
        ctn__free(w->body_gen);
        w->body_gen = NULL;
    }
    ck_get(&r, w->body_free, (size_t)free_b * sizeof *w->body_free);
    w->body_count = nb;
    /* every body's floats are ones the API could have stored (host/io/checkpoint_values.c) */
    if (r.short_read || !ctn__ck_bodies_ok(&r, w, version >= 5u ? "user forces" : "properties")) goto corrupt;
    ctn__body_force_recount(w); /* force_bodies; the array dropped where no body has a force */
    w->live_bodies = live_b;
    w->body_free_count = free_b;
    cap = nj > 0 ? (size_t)nj : 1;
    w->joint_core = ctn__malloc(cap * sizeof *w->joint_core);
    w->joint_pos = ctn__malloc(cap * sizeof *w->joint_pos);
    w->joint_at = ctn__malloc(cap * sizeof *w->joint_at);
    w->joint_alive = ctn__malloc(cap);
    w->joint_gen = ctn__malloc(cap * sizeof *w->joint_gen);
    w->joint_free = ctn__malloc(cap * sizeof *w->joint_free);
    float *lambda = ctn__malloc(cap * 6 * sizeof *lambda);
    if (!w->joint_core || !w->joint_pos || !w->joint_at || !w->joint_alive || !w->joint_gen || !w->joint_free || !lambda) {
        ctn__free(lambda);
        goto oom;
    }
    w->joint_capacity = (int)cap;
    /* slot order, each slot at its own position: whole definitions, split into the compact records and the
     * extras, whose array is made for the first definition that needs one (host/core/joint_store.c) */
    for (int32_t j = 0; j < nj; ++j) {
        ctn_joint_def d;
        memset(&d, 0, sizeof d);
        ck_get(&r, &d, sizeof d);
        ctn_joint_extra x = ctn_joint_extra_of(d);
        if (!w->joint_extra && ctn__joint_extra_needed(&x) && !(w->joint_extra = ctn__joint_extra_alloc(cap, NULL, 0))) {
            ctn__free(lambda);
            goto oom;
        }
        w->joint_core[j] = ctn_joint_core_of(d);
        if (w->joint_extra) w->joint_extra[j] = x;
    }
    for (int32_t j = 0; j < nj; ++j) w->joint_pos[j] = w->joint_at[j] = j;
    w->topo.defs = w->joint_core; /* until the layout is built (no slot is in it yet) */
    w->topo.extra = w->joint_extra;
    ck_get(&r, w->joint_alive, (size_t)nj);
    gens_ok &= ck_get_gens(&r, w->joint_gen, (size_t)nj);
    any_gen = 0; /* the same for the joints (ctn__joint_gens) */
    for (int32_t j = 0; j < nj && !any_gen && !r.short_read; ++j) any_gen = w->joint_gen[j] != 0;
    if (!any_gen && !r.short_read) {
        ctn__free(w->joint_gen);
        w->joint_gen = NULL;
    }
    ck_get(&r, w->joint_free, (size_t)free_j * sizeof *w->joint_free);
    ck_get(&r, lambda, (size_t)nj * 6 * sizeof *lambda);
    if (!r.short_read && !ctn__ck_impulses_ok(&r, lambda, nj, 6)) {
        ctn__free(lambda);
        goto corrupt;
    }
    w->joint_count = nj;
    w->live_joints = live_j;
    w->joint_free_count = free_j;
    if (r.short_read || !gens_ok || !slots_consistent(&r, w) || !ctn__ck_get_collision(&r, w) || !ctn__ck_get_names(&r, w) || !ctn__ck_get_curves(&r, w) || !ctn__ck_get_attach(&r, w) || !ctn__ck_get_joint_names(&r, w) || !ctn__ck_get_more_shapes(&r, w) || r.left != 0) {
        ctn__free(lambda);
        if (r.oom) goto oom; /* the file may be fine: say so, not "corrupted" */
        goto corrupt;
    }
    /* every live joint passes the checks of ctn_joint_add (core/joint_validate.c): a crafted or damaged file
     * cannot hold a joint the API would refuse */
    for (int32_t j = 0; j < nj; ++j) {
        if (!w->joint_alive[j]) continue;
        ctn_joint_def d = ctn__jdef_get(w, j);
        if (ctn__joint_validate(w, &d, j) == CTN_OK) continue;
        ERR("%s: %s", path, w->error);
        ctn__free(lambda);
        st = CTN_ERR_INVALID_ARGUMENT;
        goto fail;
    }
    /* a body's reference count is the number of live joints on it (ctn__body_refs; ctn__joint_insert /
     * ctn__joint_kill keep it so; removing a body asks it): a file whose counts disagree is refused */
    int32_t bad_body = -1, counted = 0;
    int *refs = ctn__calloc((size_t)nb + 1, sizeof *refs);
    if (!refs) {
        ctn__free(lambda);
        goto oom;
    }
    for (int32_t j = 0; j < nj; ++j) {
        if (!w->joint_alive[j]) continue;
        refs[ctn__jcore(w, j)->a]++;
        if (ctn__jcore(w, j)->b >= 0) refs[ctn__jcore(w, j)->b]++;
    }
    for (int32_t b = 0; b < nb && bad_body < 0; ++b)
        if (refs[b] != w->body_refs[b]) bad_body = b, counted = refs[b];
    ctn__free(refs);
    if (bad_body >= 0) {
        ERR("%s: corrupted checkpoint: body %d is held by %d joints, the file says %d", path, (int)bad_body, (int)counted,
            w->body_refs[bad_body]);
        ctn__free(lambda);
        st = CTN_ERR_INVALID_ARGUMENT;
        goto fail;
    }
    /* checked: the world counts them again on first need (ctn__body_refs), as one never loaded */
    ctn__free(w->body_refs);
    w->body_refs = NULL;
    w->topology_dirty = 1;
    w->bodies_dirty = 1;
    st = ctn__topology_build(w);
    if (st != CTN_OK) {
        ERR("%s: %s", path, w->error);
        ctn__free(lambda);
        goto fail;
    }
    for (int32_t j = 0; j < nj; ++j) {
        int s = ctn__joint_layout_slot(w, j);
        /* the rows the layout's stride holds: the rows of every joint (the file's rows past them are zero) */
        if (s >= 0) memcpy(&w->topo.lambda[(size_t)w->topo.stride * s], &lambda[6 * (size_t)j], (size_t)w->topo.stride * sizeof *lambda);
    }
    ctn__free(lambda);
    ctn__free(buf);
    if (info_out) {
        *info_out = *info;
        info_out->desc.device = info_out->device[0] ? info_out->device : NULL;
    }
    ctn__free(info);
    *out = w;
    return CTN_OK;
oom:
    ERR("%s: out of memory loading the checkpoint", path);
    st = CTN_ERR_OUT_OF_MEMORY;
    goto fail;
corrupt:
    if (r.why[0]) ERR("%s: corrupted checkpoint: %s", path, r.why);
    else ERR("%s: corrupted checkpoint (inconsistent contents)", path);
    st = CTN_ERR_INVALID_ARGUMENT;
fail:
    ctn_world_destroy(w);
    ctn__free(buf);
    ctn__free(info);
    return st;
}
