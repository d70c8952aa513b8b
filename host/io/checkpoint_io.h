/* Byte streams of the checkpoint format (host/io/checkpoint.c): a writer that hashes what it writes
 * (FNV-1a 64) and a bounds-checked reader over the verified payload, shared by the sections of the format
 * (host/io/checkpoint_sections.c). Not installed. */
#ifndef CTN_HOST_CHECKPOINT_IO_H
#define CTN_HOST_CHECKPOINT_IO_H

#include "core/hash.h"
#include "core/world.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct ck_writer {
    FILE *f;
    uint64_t hash, bytes;
    int failed;
} ck_writer;

static inline void ck_put(ck_writer *w, const void *data, size_t n) {
    if (w->failed || n == 0) return;
    if (w->f && fwrite(data, 1, n, w->f) != n) w->failed = 1; /* f NULL: count and hash only */
    w->hash = ctn__fnv1a(w->hash, data, n);
    w->bytes += n;
}
static inline void ck_put_str(ck_writer *w, const char *s) {
    uint32_t n = s ? (uint32_t)strlen(s) : 0;
    ck_put(w, &n, sizeof n);
    ck_put(w, s, n);
}

/* A body's velocity and world inverse inertia as the file stores them (every version read, 3 to 5): the velocity
 * with the inverse mass between its linear and angular parts and a pad, the inertia with two pads, 32 bytes
 * each. In memory the inverse mass lives in ctn_inertia and ctn_vel holds the velocities alone
 * (kernels/ctn_types.h): ck_vel_of forms the file's record (pad zero), the readers put its fields back. The
 * header records these sizes. */
typedef struct ck_vel {
    ctn_v3 v;
    float inv_mass;
    ctn_v3 w;
    float pad;
} ck_vel;
typedef struct ck_inertia {
    ctn_sym3 inv_inertia;
    float pad[2];
} ck_inertia;
_Static_assert(sizeof(ck_vel) == 32 && sizeof(ck_inertia) == 32, "the checkpoint's body records");

static inline ck_vel ck_vel_of(ctn_vel v, float inv_mass) {
    ck_vel f;
    f.v = v.v, f.inv_mass = inv_mass, f.w = v.w, f.pad = 0.0f;
    return f;
}

typedef struct ck_reader {
    const unsigned char *p;
    size_t left;
    int short_read;
    int oom; /* an allocation failed: the load fails with CTN_ERR_OUT_OF_MEMORY, not as a corrupted file */
    char why[256]; /* what is wrong with the contents (section, index, field, value), when a check said */
} ck_reader;

/* Records why the contents are refused (the first reason only: later checks fail on its account) and returns
 * 0, as a reader's failure; the load's message is then "corrupted checkpoint: <why>". */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static inline int ck_bad(ck_reader *r, const char *fmt, ...) {
    if (!r->why[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->why, sizeof r->why, fmt, ap);
        va_end(ap);
    }
    return 0;
}

/* Records that an allocation failed while reading (r->oom) and returns 0, as a reader's failure. */
static inline int ck_oom(ck_reader *r) {
    r->oom = 1;
    return 0;
}

static inline int ck_get(ck_reader *r, void *out, size_t n) {
    if (r->short_read || n > r->left) {
        r->short_read = 1;
        if (out && n) memset(out, 0, n);
        return 0;
    }
    if (out) memcpy(out, r->p, n);
    r->p += n;
    r->left -= n;
    return 1;
}
/* A length-prefixed string into out (truncation is an error). */
static inline int ck_get_str(ck_reader *r, char *out, size_t size) {
    uint32_t n = 0;
    if (!ck_get(r, &n, sizeof n) || n >= size || n > r->left) {
        r->short_read = 1;
        out[0] = '\0';
        return 0;
    }
    ck_get(r, out, n);
    out[n] = '\0';
    return 1;
}

/* Poses as the format stores them: 48 bytes each, p (3 floats), a zero float, q (w, x, y, z), p_lo (3 floats),
 * a zero float: the in-memory ctn_pose of the writers of formats 2 to 5, kept on disk when the in-memory record
 * lost its two pads (40 bytes: p, p_lo, q, kernels/ctn_types.h), so that files stay the same bytes and older and
 * newer catenas read each other's (the header still records 48, CK_POSE_SIZE). The pads are written as +0.0
 * and never read. Converted through a buffer of 64 poses. */
#define CK_POSE_SIZE 48u
#define CK_POSE_FLOATS 12
static inline void ck_pose_to_disk(const ctn_pose *p, float *f) {
    f[0] = p->p.x, f[1] = p->p.y, f[2] = p->p.z, f[3] = 0.0f;
    f[4] = p->q.w, f[5] = p->q.x, f[6] = p->q.y, f[7] = p->q.z;
    f[8] = p->p_lo.x, f[9] = p->p_lo.y, f[10] = p->p_lo.z, f[11] = 0.0f;
}
static inline void ck_pose_from_disk(const float *f, ctn_pose *p) {
    p->p = ctn_v3_make(f[0], f[1], f[2]);
    p->q.w = f[4], p->q.x = f[5], p->q.y = f[6], p->q.z = f[7];
    p->p_lo = ctn_v3_make(f[8], f[9], f[10]);
}
static inline void ck_put_poses(ck_writer *wr, const ctn_pose *p, size_t n) {
    float buf[64 * CK_POSE_FLOATS];
    for (size_t i = 0; i < n;) {
        size_t k = 0;
        for (; k < 64 && i < n; ++k, ++i) ck_pose_to_disk(&p[i], buf + k * CK_POSE_FLOATS);
        ck_put(wr, buf, k * CK_POSE_SIZE);
    }
}
/* Reads n stored poses into p (zeros past a short read, as ck_get). */
static inline int ck_get_poses(ck_reader *r, ctn_pose *p, size_t n) {
    float buf[64 * CK_POSE_FLOATS];
    for (size_t i = 0; i < n;) {
        size_t k = n - i < 64 ? n - i : 64;
        int ok = ck_get(r, buf, k * CK_POSE_SIZE);
        for (size_t j = 0; j < k; ++j, ++i) ck_pose_from_disk(buf + j * CK_POSE_FLOATS, &p[i]);
        if (!ok) return 0;
    }
    return 1;
}

/* The sections after the joints: the collision state (settings, shapes, planes, contact cache) and the
 * body names (host/io/checkpoint_sections.c). The readers return 0 for inconsistent contents, or for an
 * allocation that failed with r->oom set, and leave what they allocated on the world, which the caller
 * destroys. */
void ctn__ck_put_collision(ck_writer *wr, const ctn_world *w);
int ctn__ck_get_collision(ck_reader *r, ctn_world *w);
void ctn__ck_put_names(ck_writer *wr, const ctn_world *w);
int ctn__ck_get_names(ck_reader *r, ctn_world *w);
/* The polylines of curve joints, after the names; written only when the world has some, so a world without
 * them writes the same bytes as before curves existed. */
void ctn__ck_put_curves(ck_writer *wr, const ctn_world *w);
/* The attachments (links and the cached composite state of their masters), last; written only when the
 * world has some. */
void ctn__ck_put_attach(ck_writer *wr, const ctn_world *w);
int ctn__ck_get_attach(ck_reader *r, ctn_world *w);
void ctn__ck_put_joint_names(ck_writer *wr, const ctn_world *w);
int ctn__ck_get_joint_names(ck_reader *r, ctn_world *w);
int ctn__ck_get_curves(ck_reader *r, ctn_world *w);
/* The further shapes of compound bodies, last; written only when a body has more than one shape. */
void ctn__ck_put_more_shapes(ck_writer *wr, const ctn_world *w);
int ctn__ck_get_more_shapes(ck_reader *r, ctn_world *w);

/* The values the world's API would refuse (host/io/checkpoint_values.c): each returns 1 when every float of
 * the loaded state is one the API could have stored, else 0 with the section, index, field and value in
 * r->why. ctn__ck_bodies_ok: each body slot's pose, velocity, inverse mass, world inverse inertia, inverse
 * moments and user force and torque (`forces_in`: the section that held the forces); ctn__ck_impulses_ok:
 * the joints' warm-start impulses, `per_joint` floats a joint slot. The attachments' cached states take the same
 * pose and velocity tests (ctn__ck_pose_bad, ctn__ck_vel_bad: the field at fault, NULL when none), which
 * ctn__ck_bodies_ok repeats inline to name the values in its messages. */
int ctn__ck_bodies_ok(ck_reader *r, const ctn_world *w, const char *forces_in);
int ctn__ck_impulses_ok(ck_reader *r, const float *lambda, int joints, int per_joint);
const char *ctn__ck_pose_bad(const ctn_pose *p);
const char *ctn__ck_vel_bad(const ck_vel *v);

#endif
