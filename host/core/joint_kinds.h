/* One entry per joint type (host/core/joint_kinds.c): what every consumer outside the kernels asks of a
 * type, read from one table instead of lists of types spread over the library. The per-row math stays in
 * kernels/ctn_joint_rows.h (shared with the OpenCL backend). */
#ifndef CATENA_JOINT_KINDS_H
#define CATENA_JOINT_KINDS_H

#include "catena/catena.h"

#define CTN_JK_ANGULAR 1u     /* rows on the bodies' orientations: both bodies must be rigid (not particles) */
#define CTN_JK_PIVOT 2u       /* anchored at a point: a scene file gives "pivot" or "anchor_a" / "anchor_b" */
#define CTN_JK_AXIS 4u        /* one joint axis (`axis`), limits and a motor along or about it */
#define CTN_JK_TWO_BODIES 8u  /* body_b is a body, never CTN_WORLD (gears: the re-centring reads both poses) */
#define CTN_JK_SCENE 16u      /* a scene file's "constraints" may hold it (contacts are no scene content) */
#define CTN_JK_JOINT_ADD 32u  /* added with ctn_joint_add (curves: ctn_curve_constraint_add; contacts: ctn_contact_add) */

typedef struct ctn_joint_kind {
    const char *name; /* ctn_joint_type_name, scene files' "type", the CLI and messages */
    int rows;         /* constraint rows (a spring: 0, one compliant row when implicit) */
    unsigned flags;   /* CTN_JK_* */
} ctn_joint_kind;

/* The entry of a public joint type; NULL for a value that is none. */
const ctn_joint_kind *ctn__joint_kind(int type);
/* Whether `type` has every flag of `flags` (0 for a value that is no type). */
int ctn__joint_kind_has(int type, unsigned flags);

#endif
