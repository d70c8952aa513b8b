/* Bulk state access: one call reads or writes a state field of every body, or the errors of every joint,
 * so that bindings (the Python package's NumPy arrays) and exporters need no per-body call. Row i of a
 * buffer is body (or joint) slot index i (ctn_handle_index of its handle); free slots read as zeros and are
 * skipped on writes. The per-body work
 * goes through ctn_body_get_state / ctn_body_set_state, so the bulk calls follow exactly their rules
 * (float32 storage, two-float positions, normalised orientations, static bodies never move). */
#include "core/joint_kinds.h"
#include "core/world.h"

#include <math.h>
#include <string.h>

static const char *const field_names[] = {"position", "orientation", "velocity", "angular_velocity"};

int ctn_body_field_width(ctn_body_field field) {
    switch (field) {
    case CTN_BODY_POSITION: return 3;
    case CTN_BODY_ORIENTATION: return 4;
    case CTN_BODY_VELOCITY: return 3;
    case CTN_BODY_ANGULAR_VELOCITY: return 3;
    }
    return 0;
}

/* The field's slot inside ctn_body_state. */
static double *state_field(ctn_body_state *s, ctn_body_field field) {
    switch (field) {
    case CTN_BODY_POSITION: return s->position;
    case CTN_BODY_ORIENTATION: return s->orientation;
    case CTN_BODY_VELOCITY: return s->velocity;
    case CTN_BODY_ANGULAR_VELOCITY: return s->angular_velocity;
    }
    return NULL;
}

static int body_alive(const ctn_world *w, int id) { return (w->props[id].flags & CTN_BODY_FLAG_ALIVE) != 0; }

/* Checks the common arguments; *width gets the field's doubles per body. */
static ctn_status check_field_call(ctn_world *w, const char *fn, ctn_body_field field, const void *buf, int count, int *width) {
    *width = ctn_body_field_width(field);
    if (*width == 0) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: field %d is not a ctn_body_field", fn, (int)field);
    if (!buf) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: buffer is NULL", fn);
    if (count < 0) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: count %d is negative", fn, count);
    return CTN_OK;
}

ctn_status ctn_world_get_body_field(ctn_world *w, ctn_body_field field, double *out, int count, int *written) {
    CTN__ENTER(w);
    int width;
    ctn_status st = check_field_call(w, "ctn_world_get_body_field", field, out, count, &width);
    if (st != CTN_OK) return st;
    int n = count < w->body_count ? count : w->body_count;
    for (int i = 0; i < n; ++i) {
        double *row = out + (size_t)i * (size_t)width;
        if (!body_alive(w, i)) {
            memset(row, 0, (size_t)width * sizeof *row);
            continue;
        }
        ctn_body_state s;
        st = ctn_body_get_state(w, ctn__body_handle(w, i), &s); /* syncs from the device on the first live body */
        if (st != CTN_OK) return st;
        memcpy(row, state_field(&s, field), (size_t)width * sizeof *row);
    }
    if (written) *written = n;
    return CTN_OK;
}

/* Why row `i` cannot be written (the message is recorded on the world), or CTN_OK. */
static ctn_status check_row(ctn_world *w, ctn_body_field field, const double *row, int width, int i) {
    for (int k = 0; k < width; ++k)
        if (!ctn__fits_float(row[k])) /* stored as floats */
            return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_set_body_field: %s[%d][%d] = %g is not finite or exceeds the float range", field_names[field],
                             i, k, row[k]);
    if (field == CTN_BODY_ORIENTATION) {
        double n = sqrt(row[0] * row[0] + row[1] * row[1] + row[2] * row[2] + row[3] * row[3]);
        if (!(n > 1e-9) || !isfinite(n))
            return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_set_body_field: orientation[%d] = (%g, %g, %g, %g) is not a non-zero quaternion", i,
                             row[0], row[1], row[2], row[3]);
    }
    return CTN_OK;
}

ctn_status ctn_world_set_body_field(ctn_world *w, ctn_body_field field, const double *in, int count) {
    CTN__ENTER(w);
    int width;
    ctn_status st = check_field_call(w, "ctn_world_set_body_field", field, in, count, &width);
    if (st != CTN_OK) return st;
    if (count > w->body_count)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_set_body_field: count %d exceeds the %d body slots", count,
                         w->body_count);
    /* every row is checked before the first one is written, so a bad row leaves the world unchanged */
    for (int i = 0; i < count; ++i) {
        if (!body_alive(w, i)) continue;
        st = check_row(w, field, in + (size_t)i * (size_t)width, width, i);
        if (st != CTN_OK) return st;
    }
    st = ctn__sync(w);
    if (st != CTN_OK) return st;
    for (int i = 0; i < count; ++i) {
        if (!body_alive(w, i)) continue;
        ctn_body_state s;
        ctn_body_id body = ctn__body_handle(w, i);
        st = ctn_body_get_state(w, body, &s);
        if (st == CTN_OK) {
            memcpy(state_field(&s, field), in + (size_t)i * (size_t)width, (size_t)width * sizeof(double));
            st = ctn_body_set_state(w, body, &s); /* cannot fail: the row was checked and the host is in sync */
        }
        if (st != CTN_OK) return st;
    }
    return CTN_OK;
}

ctn_status ctn_world_get_joint_errors(ctn_world *w, double *gap, double *angle, int count, int *written) {
    CTN__ENTER(w);
    if (!gap && !angle) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_get_joint_errors: gap and angle are both NULL");
    if (count < 0) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_get_joint_errors: count %d is negative", count);
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    int n = count < w->joint_count ? count : w->joint_count;
    for (int j = 0; j < n; ++j) {
        float g, a, depth; /* removed joints, springs and contacts read as 0 (ctn_world_get_contact_depths) */
        ctn__joint_slot_errors(w, j, &g, &a, &depth);
        if (gap) gap[j] = g;
        if (angle) angle[j] = a;
    }
    if (written) *written = n;
    return CTN_OK;
}

ctn_status ctn_world_get_contact_depths(ctn_world *w, double *depth, int count, int *written) {
    CTN__ENTER(w);
    if (!depth) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_get_contact_depths: depth is NULL");
    if (count < 0) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_get_contact_depths: count %d is negative", count);
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    int n = count < w->joint_count ? count : w->joint_count;
    for (int j = 0; j < n; ++j) {
        float g, a, d; /* every slot but a live contact reads 0 */
        ctn__joint_slot_errors(w, j, &g, &a, &d);
        depth[j] = d;
    }
    if (written) *written = n;
    return CTN_OK;
}
