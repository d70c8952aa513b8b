/* Handles in tests: the integer form (ctn_body_id_to_int, `generation << 32 | index`) names bodies and joints
 * of a world the way the test's comments count them (0, 1, 2, ... in creation order), and the generic
 * helpers print and compare either kind of handle. */
#ifndef CATENA_TESTS_IDS_H
#define CATENA_TESTS_IDS_H

#include "catena/catena.h"

/* The body / joint of world `w` whose integer form is `i` (slot i while nothing was removed). */
#define HBODY(w, i) ctn_body_id_from_int((w), (int64_t)(i))
#define HJOINT(w, i) ctn_joint_id_from_int((w), (int64_t)(i))
/* A handle's integer form, for printing with %lld and for counting slots. */
#define ID_INT(x) ((long long)_Generic((x), ctn_body_id: ctn_body_id_to_int, ctn_joint_id: ctn_joint_id_to_int)(x))
/* Whether two handles of the same kind are equal. */
#define ID_EQ(a, b) _Generic((a), ctn_body_id: ctn_body_id_equal, ctn_joint_id: ctn_joint_id_equal)((a), (b))
/* The handle with the slot and generation of x in world w (a loaded checkpoint, a twin built the same way). */
#define ID_IN(w, x) _Generic((x), ctn_body_id: ctn_body_id_in, ctn_joint_id: ctn_joint_id_in)((w), (x))

#endif
