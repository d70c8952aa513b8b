/* Every kernel of the OpenCL program (kernels/catena.cl) and its arguments, declared once.
 *
 * CTN_OCL_KERNELS lists the kernels: an identifier (CTN_K_<ID>, the index into ctn_ocl.kernel) and the
 * kernel's name in the program. CTN_OCL_ARGS_<ID> lists that kernel's parameters in the order of its
 * parameter list, each as A_(K_, kind, name): its kind and the name it has in the kernel source. The kinds:
 *   global  a __global buffer, bound to a cl_mem;
 *   local   a __local array, given only its size in bytes (LOCAL_ARG);
 *   int, float, params  a value of the kernel's type int, float or ctn_step_params, bound to a cl_int,
 *           cl_float or ctn_step_params.
 * From them come the kernel indices, one argument index per parameter (CTN_A_<ID>_<name>), the argument
 * counts and the table of names and kinds (ctn__ocl_kernel_table). The host binds arguments by name through
 * ARG(ID, name, value) (host/opencl/opencl_internal.h): a name the declaration lacks, or a value whose type
 * is not the kind's, does not compile. The declaration itself is checked against the compiled program by
 * tests/test_opencl_kernel_args.c, which reads every kernel's argument count, names, address spaces and
 * value types back with clGetKernelArgInfo (the program built with -cl-kernel-arg-info, in the test only:
 * the library's builds do not ask for argument information).
 *
 * The kernels come in sets created at different times: the step's set (backend creation), the exact
 * solver's chain kernels (first use, devices with fp64), its forest kernels and the loop closers' Schur
 * kernels (first use of those paths). Adding a kernel: one X_ line in its set below, its CTN_OCL_ARGS_
 * line, the kernel in kernels/; the test then checks the two agree. */
#ifndef CTN_HOST_OPENCL_KERNELS_H
#define CTN_HOST_OPENCL_KERNELS_H

#define CTN_OCL_KERNELS(X_) \
    /* the step's set */ \
    X_(PREPARE, ctn_k_prepare) \
    X_(FORCES, ctn_k_forces) \
    X_(GATHER, ctn_k_gather) \
    X_(GS_COLOUR, ctn_k_gs_colour) \
    X_(GS_SERIAL, ctn_k_gs_serial) \
    X_(JACOBI, ctn_k_jacobi) \
    X_(INTEGRATE, ctn_k_integrate) \
    X_(CG_INIT, ctn_k_cg_init) \
    X_(CG_START, ctn_k_cg_start) \
    X_(CG_GATHER, ctn_k_cg_gather) \
    X_(CG_APPLY, ctn_k_cg_apply) \
    X_(CG_ALPHA, ctn_k_cg_alpha) \
    X_(CG_UPDATE, ctn_k_cg_update) \
    X_(CG_VELOCITY, ctn_k_cg_velocity) \
    X_(CG_BETA, ctn_k_cg_beta) \
    X_(CG_DIRECTION, ctn_k_cg_direction) \
    X_(JOINT_ERROR, ctn_k_joint_error) \
    X_(REDUCE3, ctn_k_reduce3) \
    X_(REDUCE3_FINAL, ctn_k_reduce3_final) \
    X_(GEOMETRIC_INERTIA, ctn_k_geometric_inertia) \
    X_(MEASURE, ctn_k_measure) \
    X_(MEASURE_FINAL, ctn_k_measure_final) \
    X_(PROJECT_PREPARE, ctn_k_project_prepare) \
    X_(PROJECT_DECIDE, ctn_k_project_decide) \
    X_(PROJECT_INTEGRATE, ctn_k_project_integrate) \
    X_(ASSEMBLE_SLOT, ctn_k_assemble_slot) \
    X_(ASSEMBLE_BODY, ctn_k_assemble_body) \
    /* the exact solver's chains and its hybrid sweep (fp64) */ \
    X_(CHAIN_ASSEMBLE, ctn_k_chain_assemble) \
    X_(CHAIN_FACTOR, ctn_k_chain_factor) \
    X_(CHAIN_SEPARATORS, ctn_k_chain_separators) \
    X_(CHAIN_BACK, ctn_k_chain_back) \
    X_(CHAIN_VELOCITY, ctn_k_chain_velocity) \
    X_(HYBRID_GS, ctn_k_hybrid_gs) \
    X_(CHAIN_VELOCITY_PROJECT, ctn_k_chain_velocity_project) \
    X_(CHAIN_PROJECT_ASSEMBLE, ctn_k_chain_project_assemble) \
    X_(CHAIN_VELOCITY_INTEGRATE, ctn_k_chain_velocity_integrate) \
    /* the RATTLE integrator's (created with the chains': it runs with the exact solver only) */ \
    X_(RATTLE_SPEED, ctn_k_rattle_speed) \
    X_(RATTLE_START, ctn_k_rattle_start) \
    X_(RATTLE_DRIFT, ctn_k_rattle_drift) \
    X_(RATTLE_ROWS, ctn_k_rattle_rows) \
    X_(RATTLE_MOMENTUM, ctn_k_rattle_momentum) \
    X_(RATTLE_INERTIA, ctn_k_rattle_inertia) \
    X_(RATTLE_RESIDUAL, ctn_k_rattle_residual) \
    /* the exact solver's forests */ \
    X_(FOREST_FACTOR, ctn_k_forest_factor) \
    X_(FOREST_BACK, ctn_k_forest_back) \
    /* the loop closers' Schur complement */ \
    X_(SCHUR_GATE, ctn_k_schur_gate) \
    X_(SCHUR_COLUMN, ctn_k_schur_column) \
    X_(SCHUR_IMPULSE, ctn_k_schur_impulse)

/* The parameters of each kernel, in order: kind and name as in kernels/catena_*.cl. */
#define CTN_OCL_ARGS_PREPARE(A_, K_) A_(K_, int, m) A_(K_, global, defs) A_(K_, global, pose) A_(K_, global, vel) \
    A_(K_, global, inertia) A_(K_, global, split) A_(K_, params, prm) A_(K_, global, blocks) A_(K_, int, n) \
    A_(K_, float, gs_h) A_(K_, global, props) A_(K_, global, adj_offsets) A_(K_, global, adj) A_(K_, global, lambda) \
    A_(K_, global, points) A_(K_, int, compact) A_(K_, int, ls)
#define CTN_OCL_ARGS_FORCES(A_, K_) A_(K_, int, n) A_(K_, global, props) A_(K_, global, forces) A_(K_, int, has_forces) \
    A_(K_, global, inertia) \
    A_(K_, global, sadj_offsets) A_(K_, global, sadj) A_(K_, global, springs) A_(K_, global, pose) \
    A_(K_, global, vel_in) A_(K_, global, vel_out) A_(K_, params, prm) A_(K_, int, gather) A_(K_, global, adj_offsets) \
    A_(K_, global, adj) A_(K_, global, blocks) A_(K_, global, l) A_(K_, float, scale) A_(K_, global, points) A_(K_, int, compact) A_(K_, int, ls)
#define CTN_OCL_ARGS_GATHER(A_, K_) A_(K_, int, n) A_(K_, global, adj_offsets) A_(K_, global, adj) \
    A_(K_, global, blocks) A_(K_, global, l) A_(K_, float, scale) A_(K_, global, vel) A_(K_, global, inertia) \
    A_(K_, global, points) A_(K_, int, compact) A_(K_, int, ls)
#define CTN_OCL_ARGS_GS_COLOUR(A_, K_) A_(K_, int, offset) A_(K_, int, count) A_(K_, global, defs) \
    A_(K_, global, blocks) A_(K_, global, lambda) A_(K_, global, vel) A_(K_, global, inertia) A_(K_, global, r2) \
    A_(K_, global, points) A_(K_, int, compact) A_(K_, int, ls)
#define CTN_OCL_ARGS_GS_SERIAL(A_, K_) A_(K_, int, begin) A_(K_, int, end) A_(K_, global, defs) A_(K_, global, blocks) \
    A_(K_, global, lambda) A_(K_, global, vel) A_(K_, global, inertia) A_(K_, global, r2) A_(K_, global, points) A_(K_, int, compact) A_(K_, int, ls)
#define CTN_OCL_ARGS_JACOBI(A_, K_) A_(K_, int, m) A_(K_, global, defs) A_(K_, global, blocks) A_(K_, global, lambda) \
    A_(K_, global, vel) A_(K_, global, dlambda) A_(K_, global, r2) A_(K_, int, ls)
#define CTN_OCL_ARGS_INTEGRATE(A_, K_) A_(K_, int, n) A_(K_, global, pose) A_(K_, global, vel) A_(K_, global, props) \
    A_(K_, global, inertia) A_(K_, float, h) A_(K_, global, adj_offsets) A_(K_, global, adj) A_(K_, global, defs) \
    A_(K_, global, lambda) A_(K_, float, gs_h) A_(K_, int, begin) A_(K_, global, rest) A_(K_, int, ls)
#define CTN_OCL_ARGS_CG_INIT(A_, K_) A_(K_, int, m) A_(K_, global, defs) A_(K_, global, blocks) A_(K_, global, vel) \
    A_(K_, global, lambda) A_(K_, global, r) A_(K_, global, z) A_(K_, global, p) A_(K_, int, ls)
#define CTN_OCL_ARGS_CG_START(A_, K_) A_(K_, global, sc)
#define CTN_OCL_ARGS_CG_GATHER(A_, K_) A_(K_, int, n) A_(K_, global, adj_offsets) A_(K_, global, adj) \
    A_(K_, global, blocks) A_(K_, global, p) A_(K_, global, inertia) A_(K_, global, u) A_(K_, int, ls)
#define CTN_OCL_ARGS_CG_APPLY(A_, K_) A_(K_, int, m) A_(K_, global, defs) A_(K_, global, blocks) A_(K_, global, u) \
    A_(K_, global, p) A_(K_, global, ap) A_(K_, int, ls)
#define CTN_OCL_ARGS_CG_ALPHA(A_, K_) A_(K_, global, sc)
#define CTN_OCL_ARGS_CG_UPDATE(A_, K_) A_(K_, int, m) A_(K_, global, blocks) A_(K_, global, sc) A_(K_, global, lambda) \
    A_(K_, global, r) A_(K_, global, p) A_(K_, global, ap) A_(K_, global, z) A_(K_, int, ls)
#define CTN_OCL_ARGS_CG_VELOCITY(A_, K_) A_(K_, int, n) A_(K_, global, adj_offsets) A_(K_, global, sc) \
    A_(K_, global, u) A_(K_, global, vel)
#define CTN_OCL_ARGS_CG_BETA(A_, K_) A_(K_, global, sc)
#define CTN_OCL_ARGS_CG_DIRECTION(A_, K_) A_(K_, int, len) A_(K_, global, sc) A_(K_, global, z) A_(K_, global, p)
#define CTN_OCL_ARGS_JOINT_ERROR(A_, K_) A_(K_, int, m) A_(K_, global, defs) A_(K_, global, pose) A_(K_, global, gap) \
    A_(K_, global, angle)
#define CTN_OCL_ARGS_REDUCE3(A_, K_) A_(K_, int, n) A_(K_, global, x0) A_(K_, global, x1) A_(K_, global, x2) \
    A_(K_, global, out) A_(K_, local, scratch)
#define CTN_OCL_ARGS_REDUCE3_FINAL(A_, K_) A_(K_, int, groups) A_(K_, global, partial) A_(K_, global, out) \
    A_(K_, local, scratch)
#define CTN_OCL_ARGS_GEOMETRIC_INERTIA(A_, K_) A_(K_, int, n) A_(K_, global, pose) A_(K_, global, props) \
    A_(K_, global, adj_offsets) A_(K_, global, adj) A_(K_, global, defs) A_(K_, global, lambda) A_(K_, float, gs_h) \
    A_(K_, global, inertia) A_(K_, int, ls)
#define CTN_OCL_ARGS_MEASURE(A_, K_) A_(K_, int, m) A_(K_, int, n) A_(K_, global, defs) A_(K_, global, pose) \
    A_(K_, global, vel) A_(K_, global, r2) A_(K_, global, lambda) A_(K_, float, limit) A_(K_, global, partial) \
    A_(K_, global, ipartial) A_(K_, local, scratch) A_(K_, local, iscratch) A_(K_, int, leave) A_(K_, global, state) \
    A_(K_, int, decide) A_(K_, global, kept) A_(K_, global, props) A_(K_, global, inertia) A_(K_, global, istats) \
    A_(K_, int, at) A_(K_, int, ls)
#define CTN_OCL_ARGS_MEASURE_FINAL(A_, K_) A_(K_, int, groups) A_(K_, int, n) A_(K_, int, m) A_(K_, global, partial) \
    A_(K_, global, ipartial) A_(K_, global, stats) A_(K_, global, istats) A_(K_, int, at) A_(K_, local, scratch) \
    A_(K_, local, iscratch)
#define CTN_OCL_ARGS_PROJECT_PREPARE(A_, K_) A_(K_, int, m) A_(K_, global, defs) A_(K_, global, pose) \
    A_(K_, global, vel) A_(K_, global, inertia) A_(K_, global, split) A_(K_, params, prm) A_(K_, global, blocks) \
    A_(K_, global, err) A_(K_, global, state) A_(K_, local, scratch) A_(K_, int, residual) A_(K_, global, real_vel) \
    A_(K_, global, real_lambda) A_(K_, global, r2) A_(K_, int, ls)
#define CTN_OCL_ARGS_PROJECT_DECIDE(A_, K_) A_(K_, global, from) A_(K_, global, to)
#define CTN_OCL_ARGS_PROJECT_INTEGRATE(A_, K_) A_(K_, int, n) A_(K_, global, pose) A_(K_, global, vel) \
    A_(K_, global, props) A_(K_, global, inertia) A_(K_, float, h) A_(K_, global, kept) A_(K_, global, state) \
    A_(K_, global, adj_offsets) A_(K_, global, adj) A_(K_, global, defs) \
    A_(K_, global, lambda) A_(K_, float, gs_h) A_(K_, int, ls)
#define CTN_OCL_ARGS_ASSEMBLE_SLOT(A_, K_) A_(K_, int, m) A_(K_, global, defs) A_(K_, global, pose) \
    A_(K_, global, inertia) A_(K_, global, props) A_(K_, global, split) A_(K_, global, blocks) A_(K_, global, mu) \
    A_(K_, global, gap) A_(K_, global, angle) A_(K_, int, ls)
#define CTN_OCL_ARGS_ASSEMBLE_BODY(A_, K_) A_(K_, int, n) A_(K_, global, adj_offsets) A_(K_, global, adj) \
    A_(K_, global, blocks) A_(K_, global, mu) A_(K_, global, pose) A_(K_, global, props) \
    A_(K_, global, inertia) A_(K_, int, ls)
#define CTN_OCL_ARGS_CHAIN_ASSEMBLE(A_, K_) A_(K_, int, m) A_(K_, global, pos) A_(K_, global, defs) \
    A_(K_, global, blocks) A_(K_, global, vel) A_(K_, global, inertia) A_(K_, global, lambda) A_(K_, global, K) \
    A_(K_, global, C) A_(K_, global, y) A_(K_, global, active) A_(K_, int, rhs_only) A_(K_, global, vel_ref) \
    A_(K_, global, lambda_ref) A_(K_, int, ls)
#define CTN_OCL_ARGS_CHAIN_FACTOR(A_, K_) A_(K_, int, P) A_(K_, global, pos) A_(K_, global, sep) A_(K_, global, defs) \
    A_(K_, global, blocks) A_(K_, global, inertia) A_(K_, global, K) \
    A_(K_, global, C) A_(K_, global, F) A_(K_, global, y) A_(K_, global, seg) A_(K_, global, active) \
    A_(K_, int, rhs_only) A_(K_, int, decide) A_(K_, global, decided)
#define CTN_OCL_ARGS_CHAIN_SEPARATORS(A_, K_) A_(K_, int, P) A_(K_, global, pos) A_(K_, global, sep) A_(K_, global, K) \
    A_(K_, global, y) A_(K_, global, seg) A_(K_, global, active) A_(K_, int, rhs_only)
#define CTN_OCL_ARGS_CHAIN_BACK(A_, K_) A_(K_, int, P) A_(K_, int, m) A_(K_, global, pos) A_(K_, global, sep) \
    A_(K_, global, K) A_(K_, global, C) A_(K_, global, F) A_(K_, global, y) A_(K_, global, lambda) \
    A_(K_, global, blocks) A_(K_, global, active) A_(K_, int, ls)
#define CTN_OCL_ARGS_CHAIN_VELOCITY(A_, K_) A_(K_, int, nb) A_(K_, global, adj_offsets) A_(K_, global, adj) \
    A_(K_, global, slot_pos) A_(K_, global, pos) A_(K_, global, blocks) A_(K_, global, y) A_(K_, global, vel) \
    A_(K_, global, inertia) A_(K_, global, active)
#define CTN_OCL_ARGS_HYBRID_GS(A_, K_) A_(K_, int, begin) A_(K_, int, end) A_(K_, int, serial) A_(K_, global, hyb) \
    A_(K_, global, defs) A_(K_, global, blocks) A_(K_, global, lambda) A_(K_, global, vel) A_(K_, global, inertia) \
    A_(K_, global, active) A_(K_, int, ls)
#define CTN_OCL_ARGS_CHAIN_VELOCITY_PROJECT(A_, K_) A_(K_, int, nb) A_(K_, global, adj_offsets) A_(K_, global, adj) \
    A_(K_, global, slot_pos) A_(K_, global, pos) A_(K_, global, blocks) A_(K_, global, y) A_(K_, global, vel) \
    A_(K_, global, inertia) A_(K_, global, state) A_(K_, global, pose) A_(K_, global, props) A_(K_, float, h) \
    A_(K_, global, kept) A_(K_, global, defs) A_(K_, global, lambda) A_(K_, float, gs_h) A_(K_, int, ls)
#define CTN_OCL_ARGS_CHAIN_PROJECT_ASSEMBLE(A_, K_) A_(K_, int, m) A_(K_, global, pos) A_(K_, global, defs) \
    A_(K_, global, blocks) A_(K_, global, vel) A_(K_, global, inertia) A_(K_, global, lambda) A_(K_, global, K) \
    A_(K_, global, C) A_(K_, global, y) A_(K_, global, state) A_(K_, global, pose) A_(K_, global, split) \
    A_(K_, params, prm) A_(K_, global, err) A_(K_, local, scratch) A_(K_, int, residual) A_(K_, global, real_vel) \
    A_(K_, global, real_lambda) A_(K_, global, r2) A_(K_, int, ls)
#define CTN_OCL_ARGS_CHAIN_VELOCITY_INTEGRATE(A_, K_) A_(K_, int, nb) A_(K_, global, adj_offsets) A_(K_, global, adj) \
    A_(K_, global, slot_pos) A_(K_, global, pos) A_(K_, global, blocks) A_(K_, global, y) A_(K_, global, vel) \
    A_(K_, global, inertia) A_(K_, global, pose) A_(K_, global, props) A_(K_, float, h) A_(K_, global, defs) \
    A_(K_, global, lambda) A_(K_, float, gs_h) A_(K_, int, begin) A_(K_, global, rest) A_(K_, int, ls)
#define CTN_OCL_ARGS_FOREST_FACTOR(A_, K_) A_(K_, int, begin) A_(K_, int, end) A_(K_, int, serial) \
    A_(K_, global, lv_nodes) A_(K_, global, node) A_(K_, global, child) A_(K_, global, att) A_(K_, global, slot_info) \
    A_(K_, global, defs) A_(K_, global, blocks) A_(K_, global, vel) A_(K_, global, inertia) A_(K_, global, lambda) \
    A_(K_, global, mat) A_(K_, global, u) A_(K_, global, active) A_(K_, int, rhs_only) A_(K_, global, vel_ref) \
    A_(K_, global, lambda_ref) A_(K_, global, schur_rows) A_(K_, int, schur_k) A_(K_, int, ls)
#define CTN_OCL_ARGS_FOREST_BACK(A_, K_) A_(K_, int, begin) A_(K_, int, end) A_(K_, int, serial) \
    A_(K_, global, lv_nodes) A_(K_, global, node) A_(K_, global, att) A_(K_, global, slot_info) A_(K_, global, blocks) \
    A_(K_, global, mat) A_(K_, global, u) A_(K_, global, xv) A_(K_, global, vel) A_(K_, global, lambda) \
    A_(K_, global, active) A_(K_, int, apply) A_(K_, int, ls)
#define CTN_OCL_ARGS_SCHUR_GATE(A_, K_) A_(K_, int, n) A_(K_, int, closers) A_(K_, global, maybe) A_(K_, global, blocks) \
    A_(K_, global, active) A_(K_, global, on) A_(K_, global, off) A_(K_, global, mixed) A_(K_, global, wf)
#define CTN_OCL_ARGS_SCHUR_COLUMN(A_, K_) A_(K_, int, k) A_(K_, int, R) A_(K_, global, rows) A_(K_, global, blocks) \
    A_(K_, global, x) A_(K_, global, W) A_(K_, global, active)
#define CTN_OCL_ARGS_SCHUR_IMPULSE(A_, K_) A_(K_, int, R) A_(K_, global, Wi) A_(K_, global, rows) A_(K_, global, defs) \
    A_(K_, global, blocks) A_(K_, global, vel) A_(K_, global, inertia) A_(K_, global, lambda) A_(K_, global, rE) \
    A_(K_, global, active) A_(K_, int, ls)

#define CTN_OCL_ARGS_RATTLE_SPEED(A_, K_) A_(K_, int, n) A_(K_, int, m) A_(K_, global, vel) A_(K_, global, defs) \
    A_(K_, global, out)
#define CTN_OCL_ARGS_RATTLE_START(A_, K_) A_(K_, int, n) A_(K_, int, m) A_(K_, global, pose) A_(K_, global, vel) \
    A_(K_, global, kept) A_(K_, global, kept_vel) A_(K_, global, lambda) A_(K_, global, blocks) A_(K_, int, ls)
#define CTN_OCL_ARGS_RATTLE_DRIFT(A_, K_) A_(K_, int, n) A_(K_, global, start) A_(K_, global, pose) \
    A_(K_, global, vel) A_(K_, global, props) A_(K_, float, h)
#define CTN_OCL_ARGS_RATTLE_ROWS(A_, K_) A_(K_, int, m) A_(K_, global, defs) A_(K_, global, pose) A_(K_, global, vel) \
    A_(K_, float, h) A_(K_, global, blocks) A_(K_, global, err)
#define CTN_OCL_ARGS_RATTLE_MOMENTUM(A_, K_) A_(K_, int, n) A_(K_, global, start) A_(K_, global, pose) \
    A_(K_, global, vel) A_(K_, global, props) A_(K_, global, inertia) A_(K_, global, rest)
#define CTN_OCL_ARGS_RATTLE_INERTIA(A_, K_) A_(K_, int, n) A_(K_, global, pose) A_(K_, global, props) \
    A_(K_, global, inertia)
#define CTN_OCL_ARGS_RATTLE_RESIDUAL(A_, K_) A_(K_, int, m) A_(K_, global, defs) A_(K_, global, blocks) \
    A_(K_, global, vel) A_(K_, global, lambda) A_(K_, global, r2) A_(K_, int, ls)

/* Kernel indices: CTN_K_<ID>; the step's set first. */
#define CTN__K_ENUM(id, name) CTN_K_##id,
enum { CTN_OCL_KERNELS(CTN__K_ENUM) CTN_K_COUNT };
#undef CTN__K_ENUM
enum {
    CTN_K_STEP_COUNT = CTN_K_ASSEMBLE_BODY + 1, /* kernels [0, CTN_K_STEP_COUNT) are created with the backend */
    CTN_K_CHAIN_FIRST = CTN_K_CHAIN_ASSEMBLE, CTN_K_CHAIN_END = CTN_K_RATTLE_RESIDUAL + 1,
    CTN_K_FOREST_FIRST = CTN_K_FOREST_FACTOR, CTN_K_FOREST_END = CTN_K_FOREST_BACK + 1,
    CTN_K_SCHUR_FIRST = CTN_K_SCHUR_GATE, CTN_K_SCHUR_END = CTN_K_SCHUR_IMPULSE + 1
};

/* Argument indices: CTN_A_<ID>_<name>, and CTN_A_<ID>_COUNT_ per kernel. */
#define CTN__A_ENUM(id, kind, a) CTN_A_##id##_##a,
#define CTN__A_ENUMS(id, name) enum { CTN_OCL_ARGS_##id(CTN__A_ENUM, id) CTN_A_##id##_COUNT_ };
CTN_OCL_KERNELS(CTN__A_ENUMS)
#undef CTN__A_ENUMS
#undef CTN__A_ENUM

/* The argument kinds (CTN_OCL_ARG_<kind>), and each argument's: CTN_AK_<ID>_<name>. */
enum { CTN_OCL_ARG_global, CTN_OCL_ARG_local, CTN_OCL_ARG_int, CTN_OCL_ARG_float, CTN_OCL_ARG_params };
#define CTN__AK_ENUM(id, kind, a) CTN_AK_##id##_##a = CTN_OCL_ARG_##kind,
#define CTN__AK_ENUMS(id, name) enum { CTN_OCL_ARGS_##id(CTN__AK_ENUM, id) };
CTN_OCL_KERNELS(CTN__AK_ENUMS)
#undef CTN__AK_ENUMS
#undef CTN__AK_ENUM

/* A kernel's declaration: its name, argument count, argument names and kinds (CTN_OCL_ARG_*). */
typedef struct ctn_ocl_kernel_decl {
    const char *name;
    int args;
    const char *const *arg;
    const unsigned char *kind;
} ctn_ocl_kernel_decl;

/* Indexed by CTN_K_* (host/opencl/opencl_launch.c). */
extern const ctn_ocl_kernel_decl ctn__ocl_kernel_table[CTN_K_COUNT];

#endif /* CTN_HOST_OPENCL_KERNELS_H */
