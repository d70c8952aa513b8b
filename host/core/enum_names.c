/* Names of the public enums' values, spelled as scene files and the CLI spell them. */
#include "catena/catena.h"

/* names[value], or "unknown" outside [0, count). */
static const char *name_of(int value, const char *const *names, int count) { return value >= 0 && value < count ? names[value] : "unknown"; }
#define NAME_OF(value, names) name_of((int)(value), names, (int)(sizeof names / sizeof names[0]))

const char *ctn_status_name(ctn_status status) {
    static const char *const names[] = {"CTN_OK", "CTN_ERR_INVALID_ARGUMENT", "CTN_ERR_NOT_FOUND", "CTN_ERR_IN_USE", "CTN_ERR_OUT_OF_MEMORY",
                                        "CTN_ERR_LIMIT", "CTN_ERR_UNSUPPORTED", "CTN_ERR_DEVICE", "CTN_ERR_DIVERGED", "CTN_ERR_IO",
                                        "CTN_ERR_BUSY"};
    int s = (int)status;
    return s >= 0 && s < (int)(sizeof names / sizeof names[0]) ? names[s] : "CTN_ERR_UNKNOWN";
}

const char *ctn_solver_name(ctn_solver solver) {
    static const char *const names[] = {"gs", "jacobi", "cg", "direct", "auto"};
    return NAME_OF(solver, names);
}

const char *ctn_backend_name(ctn_backend backend) {
    static const char *const names[] = {"auto", "cpu", "opencl"};
    return NAME_OF(backend, names);
}

const char *ctn_stabilization_name(ctn_stabilization stabilization) {
    static const char *const names[] = {"spook", "baumgarte"};
    return NAME_OF(stabilization, names);
}

const char *ctn_integrator_name(ctn_integrator integrator) {
    static const char *const names[] = {"rattle", "velocity"};
    return NAME_OF(integrator, names);
}

const char *ctn_body_type_name(ctn_body_type type) {
    static const char *const names[] = {"dynamic", "static", "kinematic"};
    return NAME_OF(type, names);
}

/* ctn_joint_type_name: host/core/joint_kinds.c (the joint-type table, names from host/core/joints/). */

const char *ctn_shape_type_name(ctn_shape_type type) {
    static const char *const names[] = {"none", "sphere", "capsule", "box"};
    return NAME_OF(type, names);
}

const char *ctn_log_level_name(ctn_log_level level) {
    static const char *const names[] = {"debug", "info", "warning"};
    return NAME_OF(level, names);
}

const char *ctn_curve_type_name(ctn_curve_type type) {
    static const char *const names[] = {"line", "circle", "helix", "polyline"};
    return NAME_OF(type, names);
}
