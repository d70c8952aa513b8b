/* One entry per joint type: what every consumer outside the kernels asks of a type, read from one table
 * (host/core/joint_kinds.c, built from CTN_JT_LIST) instead of lists of types spread over the library. Each
 * type's entry, with its scene keys and the hooks that are its own, is its file host/core/joints/<name>.c
 * (every file there is built: no list names them). The per-row math, the stored value CTN_JT_* and the row
 * count (ctn_joint_row_count) stay in kernels/ctn_joint_rows.h (shared with the OpenCL backend). */
#ifndef CATENA_JOINT_KINDS_H
#define CATENA_JOINT_KINDS_H

#include "catena/catena.h"
#include "ctn_joint_rows.h"
#include "ctn_math.h"

#include <stddef.h>

struct ctn_joint_def; /* kernels/ctn_types.h */

#define CTN_JK_ANGULAR 1u     /* rows on the bodies' orientations: both bodies must be rigid (not particles) */
#define CTN_JK_PIVOT 2u       /* anchored at a point: a scene file gives "pivot" or "anchor_a" / "anchor_b" */
#define CTN_JK_AXIS 4u        /* one joint axis (`axis`), limits and a motor along or about it */
#define CTN_JK_TWO_BODIES 8u  /* body_b is a body, never CTN_WORLD (gears: the re-centring reads both poses) */
#define CTN_JK_SCENE 16u      /* a scene file's "constraints" may hold it (contacts are no scene content) */
#define CTN_JK_JOINT_ADD 32u  /* added with ctn_joint_add (curves: ctn_curve_constraint_add; contacts: ctn_contact_add) */
/* The options the setters take (joint_limits.c) and their read-backs (describe.c) and scene keys read; the
 * rows they add are the kernels' (ctn_joint_def_rows, kernels/ctn_joint_rows.h). */
#define CTN_JK_LIMITS 64u     /* ctn_joint_set_limits: a unilateral row on the joint's coordinate */
#define CTN_JK_MOTOR 128u     /* ctn_joint_set_motor: a velocity motor row on it */
#define CTN_JK_SWING 256u     /* ctn_joint_set_swing_limit: a cone on the angle between the axes */
#define CTN_JK_ROPE 512u      /* ctn_joint_set_rope: the row only pulls */
#define CTN_JK_SLIDES 1024u   /* the coordinate is a length: limits in m, a motor's max_force (N), not torque */
/* The fields a type stores beyond the anchors, compliance and damping time, which the scene writer
 * (host/io/scene_save.c), ctn_joint_get_desc (describe.c) and ctn_joint_set_rest_length read. */
#define CTN_JK_REST_LENGTH 2048u /* `rest_length`: the anchors' distance the row keeps (ctn_joint_set_rest_length) */
#define CTN_JK_FORCE 4096u       /* a spring-damper force (`stiffness`, `damping`, `implicit`), no compliance of its own */
#define CTN_JK_AXIS2 8192u       /* a second axis, in body b's frame (`axis2`: axis_b seen in the world) */
#define CTN_JK_RATIO 16384u      /* `ratio` (stored in `stiffness`) between two bodies' coordinates; the anchors hold
                                  * the angle references, not points, and there is no rest orientation */
/* The coordinates the read-backs measure (joint_limits.c): CTN_JK_SLIDES types ctn_joint_get_translation, and */
#define CTN_JK_ANGLE 65536u         /* ctn_joint_get_angle: the turn about the axis (ctn_hinge_angle) */
#define CTN_JK_AXES_ANGLE 131072u   /* ctn_joint_get_swing: the angle between the two bodies' axes (ctn_swing_angle) */
/* Fields not all in its bodies' frames (a curve's data; a gear's references are world directions and its
 * row assumes the bodies' centres on their axes): attachments, which move a body's frame into its
 * composite's, refuse its bodies, and ctn_joint_add refuses it on attached bodies and masters (attach.c). */
#define CTN_JK_NO_ATTACH 262144u
/* Its rows (kernels/ctn_joint_rows.h) begin with the three rows of ctn_rows_point (g = the anchors'
 * separation), which ctn_world_assemble refines in double (host/solve/assemble.c). */
#define CTN_JK_POINT_ROWS 32768u

typedef struct ctn_joint_kind {
    const char *name; /* ctn_joint_type_name, scene files' "type", the CLI and messages */
    unsigned flags;   /* CTN_JK_* */
    /* ctn_joint_add: the type's own fields of the definition from the desc with their checks (axes, ratio,
     * rest length); dist is the anchors' separation. NULL: the common fields are all. */
    ctn_status (*from_desc)(ctn_world *w, const ctn_joint_desc *d, float dist, struct ctn_joint_def *j);
    /* The type's own checks of a stored definition (axes, ratio, rest length), after the common ones of
     * ctn__joint_validate; `where` names the joint for the message. NULL: none. */
    ctn_status (*check)(ctn_world *w, const struct ctn_joint_def *j, const char *where);
    /* Between steps (ctn__gear_track in joint_gear.c, before each step): updates the definition from the poses;
     * returns 1 when it changed it (the solver copies are then refreshed). NULL: nothing to do. */
    int (*between_steps)(ctn_world *w, struct ctn_joint_def *j);
    /* The keys a scene file's joint of this type may hold (host/io/scene_json.c), NULL-terminated; NULL for
     * types the scene reader parses elsewhere (curves: scene_curves.c) or not at all (contacts). */
    const char *const *scene_keys;
    /* The function that adds joints of the type when ctn_joint_add does not (named in its refusal); NULL for
     * the types it adds. */
    const char *added_by;
} ctn_joint_kind;

/* The entry of a public joint type; NULL for a value that is none. */
const ctn_joint_kind *ctn__joint_kind(int type);
/* Whether `type` has every flag of `flags` (0 for a value that is no type). */
int ctn__joint_kind_has(int type, unsigned flags);
/* The names of the types with every flag of `flags`, "a, b or c", in buf (for messages); returns buf. */
const char *ctn__joint_kind_names(unsigned flags, char *buf, size_t size);

/* The checks every stored joint passes (joint_validate.c): the common ones (bodies, rigid bodies for
 * angular rows, finite fields, compliance, anchor lengths), then the type's `check`. ctn_joint_add runs
 * them on the definition it built, the checkpoint loader on each live joint it reads. index >= 0: the
 * joint slot, named in the message. On failure the message is on the world (ctn__fail). */
ctn_status ctn__joint_validate(ctn_world *w, const struct ctn_joint_def *j, int index);

/* A unit axis from a desc's field (its message names `field`), and a second axis across `ax` within 1e-3
 * (cos), made exactly perpendicular (joint.c): for the types' `from_desc` hooks. */
ctn_status ctn__joint_unit_axis(ctn_world *w, const double v[3], const char *field, ctn_v3 *out);
ctn_status ctn__joint_cross_axis(ctn_world *w, const double v[3], ctn_v3 ax, const char *why, ctn_v3 *out);

/* Each type's entry (host/core/joints/<name>.c), one per line of CTN_JT_LIST (kernels/ctn_joint_rows.h). */
#define CTN__JOINT_KIND_DECLARE(VALUE, name) extern const ctn_joint_kind ctn__joint_kind_##name;
CTN_JT_LIST(CTN__JOINT_KIND_DECLARE)

/* Hooks shared by several types' entries: the one-axis types' (joint.c, joint_validate.c: hinge, prismatic,
 * cone_twist; universal's and the gears' checks begin with the axes') and the gears' (joint_gear.c: gear,
 * rack_pinion). A type's own hooks are static in its file. */
ctn_status ctn__joint_def_axes(ctn_world *w, const ctn_joint_desc *d, float dist, struct ctn_joint_def *j);
ctn_status ctn__joint_check_axes(ctn_world *w, const struct ctn_joint_def *j, const char *where);
ctn_status ctn__joint_check_gear(ctn_world *w, const struct ctn_joint_def *j, const char *where);
ctn_status ctn__joint_def_gear(ctn_world *w, const ctn_joint_desc *d, float dist, struct ctn_joint_def *j);
ctn_status ctn__joint_def_rack_pinion(ctn_world *w, const ctn_joint_desc *d, float dist, struct ctn_joint_def *j);
int ctn__gear_between_steps(ctn_world *w, struct ctn_joint_def *j);

#endif
