/* OpenCL kernels of the catena solver: thin wrappers that give every work-item one index and call the
 * per-item functions of ctn_solver.h, which the CPU backend runs as loops. No math lives here, only
 * indexing, so the two backends cannot drift.
 *
 * Rules every kernel follows: one work-item writes only the records it owns (its joint slot, or its
 * body), no assumption that a work-group runs in lock-step (reductions synchronise with barrier() only
 * and read only what the barrier published), and sums are taken in a fixed order, so results do not
 * depend on how many threads the device uses. The one atomic is the projection's largest error
 * (ctn_k_project_prepare, ctn_k_chain_project_assemble): atomic_max of the bits of non-negative floats,
 * exact and independent of the order, read only by later launches.
 *
 * The host embeds this file with its #include lines resolved (cmake/embed_kernels.cmake). */

/* Contraction into fma would round differently from the host build (-ffp-contract=off). */
#pragma OPENCL FP_CONTRACT OFF

#include "ctn_solver.h"
#include "ctn_cg.h"
#include "ctn_assemble.h"
#include "ctn_rattle.h"

/* The kernels by concern, in this order (kernel names are what the host looks up). */
#include "catena_stages.cl"
#include "catena_cg.cl"
#include "catena_reduce.cl"

/* The exact solvers run in double precision: only built when the device has cl_khr_fp64; the host checks
 * the extension and creates these kernels lazily, so devices without it still build the program. */
#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* the dense inverse also takes the loop closers' Schur matrix (CTN_DD_MAX_SCHUR of ctn_direct_schur.h) */
#define CTN_DD_MAX_DENSE 48
#include "catena_chain.cl"
#include "catena_forest.cl"
#include "catena_schur.cl"
#include "catena_rattle.cl"
#endif /* cl_khr_fp64 */

