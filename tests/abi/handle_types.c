/* Compiled twice by tests/abi/handle_types.cmake: as is it must compile (the right handle kinds), and
 * with -DCTN_WRONG_KIND it must not (a joint handle where a body handle is expected, the mistake that
 * compiled while both were int64_t). */
#include "catena/catena.h"

ctn_status use_handles(ctn_world *w);

ctn_status use_handles(ctn_world *w) {
    ctn_body_id body = CTN_NULL_BODY;
    ctn_joint_id joint = CTN_NULL_JOINT;
    ctn_body_state s;
#ifdef CTN_WRONG_KIND
    return ctn_body_get_state(w, joint, &s);
#else
    double imp[6];
    ctn_status st = ctn_joint_get_impulse(w, joint, imp, NULL);
    return st == CTN_OK ? ctn_body_get_state(w, body, &s) : st;
#endif
}
