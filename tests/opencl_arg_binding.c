/* The binding macros of host/opencl/opencl_internal.h (ARG, LOCAL_ARG, ARG_OF2) refuse a wrong binding when
 * compiling. Not a program: CTest compiles it once per CASE (tests/CMakeLists.txt, opencl_arg_binding_N).
 * Case 0 binds one argument of every kind the right way and must compile (so the other cases fail for
 * their binding, not for the set-up); each other case binds one argument wrongly and must not compile. */
#include "opencl/opencl_internal.h"

ctn_status bind(ctn_world *w, ctn_ocl *o, int k);
ctn_status bind(ctn_world *w, ctn_ocl *o, int k) {
    int i = 1;
    unsigned u = 1;
    float x = 1.0f;
    size_t z = 1;
    cl_mem b = NULL;
    ctn_step_params prm = {0};
    (void)i, (void)u, (void)x, (void)z, (void)b, (void)prm, (void)k;
#if CASE == 0
    ARG(PREPARE, m, i);           /* int */
    ARG(PREPARE, gs_h, x);        /* float */
    ARG(PREPARE, defs, b);        /* global */
    ARG(PREPARE, prm, prm);       /* params */
    LOCAL_ARG(REDUCE3, scratch, 4 * sizeof(float)); /* local */
    ARG_OF2(k, GS_COLOUR, GS_SERIAL, r2, b);        /* shared by both kernels */
#elif CASE == 1
    ARG(PREPARE, gs_h, i); /* an int for a float */
#elif CASE == 2
    ARG(PREPARE, m, z); /* a size_t for an int */
#elif CASE == 3
    ARG(PREPARE, m, b); /* a buffer for an int */
#elif CASE == 4
    ARG(PREPARE, defs, i); /* an int for a buffer */
#elif CASE == 5
    ARG(PREPARE, no_such_argument, i); /* a name the declaration lacks */
#elif CASE == 6
    LOCAL_ARG(PREPARE, defs, 4); /* a global argument as a __local one */
#elif CASE == 7
    ARG(REDUCE3, scratch, b); /* a value for a __local argument */
#elif CASE == 8
    ARG_OF2(k, GS_COLOUR, GS_SERIAL, offset, i); /* GS_SERIAL has no argument `offset` */
#elif CASE == 9
    ARG(PREPARE, m, u); /* an unsigned for an int */
#elif CASE == 10
    ARG(PREPARE, prm, x); /* a float for the step's parameters */
#endif
    return CTN_OK;
}
