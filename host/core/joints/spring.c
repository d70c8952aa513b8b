/* The spring (host/core/joint_force.c): an axial spring-damper force between the anchors, no row; with
 * `implicit`, a compliant distance row instead. Its entry of the joint-type table (core/joint_kinds.h) and
 * its hooks. */
#include "core/joint_kinds.h"
#include "core/world.h"

#include <math.h>

static const char *const keys[] = {"type", "name", "a", "b", "anchor_a", "anchor_b", "rest_length", "stiffness", "damping", "implicit", NULL};

/* An implicit spring is stored as a distance row whose SPOOK regularisation is the spring-damper
 * (Lacoursiere 2007): compliance eps = 1/k, damping time tau = c/k. The row is integrated implicitly, so
 * even a 1e9 N/m spring is stable at 60 Hz, where the explicit force needs h < 2 sqrt(m/k). */
static ctn_status implicit_spring(ctn_world *w, const ctn_joint_desc *d, float dist, ctn_joint_def *j) {
    if (!(d->stiffness > 0.0))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "joint.stiffness: %g; an implicit spring needs stiffness > 0", d->stiffness);
    if (j->rest_length < 1e-6f || dist < 1e-6f)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT,
                         "joint.rest_length: %g (anchors %g m apart); an implicit spring needs both >= 1e-6 m for its direction "
                         "(use a ball joint with a compliance for a zero-length spring)",
                         (double)j->rest_length, (double)dist);
    j->type = CTN_JT_DISTANCE;
    j->rows = ctn_joint_row_count(CTN_JT_DISTANCE);
    j->flags |= CTN_JF_IMPLICIT_SPRING;
    j->compliance = (float)(1.0 / d->stiffness);
    j->damping_time = (float)(d->damping / d->stiffness);
    return CTN_OK;
}

/* from_desc: rest length (default the anchors' current distance), stiffness and damping. */
static ctn_status from_desc(ctn_world *w, const ctn_joint_desc *d, float dist, ctn_joint_def *j) {
    j->rest_length = d->rest_length >= 0.0 ? (float)d->rest_length : dist;
    if (!(d->stiffness >= 0.0) || !isfinite(d->stiffness))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "joint.stiffness: %g must be finite and >= 0", d->stiffness);
    if (!(d->damping >= 0.0) || !isfinite(d->damping))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "joint.damping: %g must be finite and >= 0", d->damping);
    j->stiffness = (float)d->stiffness;
    j->damping = (float)d->damping;
    return d->implicit ? implicit_spring(w, d, dist, j) : CTN_OK;
}

static ctn_status check(ctn_world *w, const ctn_joint_def *j, const char *where) {
    if (!(j->rest_length >= 0.0f))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: joint.rest_length: %g must be >= 0", where, (double)j->rest_length);
    if (!(j->stiffness >= 0.0f) || !isfinite(j->stiffness))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: joint.stiffness: %g must be finite and >= 0", where, (double)j->stiffness);
    if (!(j->damping >= 0.0f) || !isfinite(j->damping))
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s: joint.damping: %g must be finite and >= 0", where, (double)j->damping);
    return CTN_OK;
}

const ctn_joint_kind ctn__joint_kind_spring = {
    .name = "spring",
    .flags = CTN_JK_SCENE | CTN_JK_JOINT_ADD | CTN_JK_REST_LENGTH | CTN_JK_FORCE,
    .from_desc = from_desc,
    .check = check,
    .scene_keys = keys,
};
