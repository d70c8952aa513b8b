/* Internal pieces of the OpenCL backend shared by the files of host/opencl/. Not installed. */
#ifndef CTN_HOST_OPENCL_INTERNAL_H
#define CTN_HOST_OPENCL_INTERNAL_H

#include "opencl/opencl.h"
#include "core/hash.h"
#include "solve/pipeline.h"
#include "solve/solve.h" /* ctn_compact_cache */
#include "ctn_solver.h" /* CTN_PROJECT_DEVICE_WINDOW */
#include "opencl/opencl_kernels.h"

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <stdint.h>

/* Kernel program embedded by cmake/embed_kernels.cmake (kernels/catena.cl with its headers inlined). */
extern const char ctn__opencl_kernel_source[];
extern const size_t ctn__opencl_kernel_source_len;

/* Name of an OpenCL error code, e.g. "CL_OUT_OF_RESOURCES" (host/opencl/opencl_errors.c). */
const char *ctn__cl_error_name(cl_int err);
/* Name of a clBLAST status code, e.g. "CLBlastInvalidVectorX". */
const char *ctn__clblast_status_name(int status);

/* ---- devices (host/opencl/opencl_context.c) ----------------------------------------------------------- */

#define CTN_OCL_MAX_DEVICES 64

typedef struct ctn_ocl_device_list {
    int count;
    int auto_index;                              /* best GPU (compute units x clock), -1 if none */
    ctn_device_info info[CTN_OCL_MAX_DEVICES];
    cl_platform_id platform[CTN_OCL_MAX_DEVICES];
    cl_device_id device[CTN_OCL_MAX_DEVICES];
} ctn_ocl_device_list;

/* Enumerates every device of every platform. No platform is not an error: count is 0 and *why says so
 * ("no OpenCL platform"). Returns the failing OpenCL code (or CL_SUCCESS). */
cl_int ctn__ocl_enumerate(ctn_ocl_device_list *list, int fault_no_platform, const char **why);

/* Picks the device for a world: `request` ("P:D" or a case-insensitive name substring; NULL or "" for
 * automatic). Automatic: the best GPU; without a GPU, the first device when allow_cpu_device, else
 * failure (CTN_BACKEND_AUTO then uses the CPU solver). Returns the list index or -1 with msg filled. */
int ctn__ocl_pick_device(const ctn_ocl_device_list *list, const char *request, int allow_cpu_device, char *msg, size_t size);

/* Program build options, in one place. fault_build adds an invalid option (the injected fault "build",
 * host/core/fault.c; only in builds with CATENA_FAULT_INJECTION). */
void ctn__ocl_build_options(cl_device_id device, int fault_build, char *out, size_t size);
/* The binary cache's key of the program built with `options` for `device`: FNV-1a 64 of the kernel source,
 * the options, the device's name and version, the driver's and the platform's version. */
uint64_t ctn__ocl_cache_key(cl_platform_id platform, cl_device_id device, const char *options);

typedef struct ctn_ocl_build_info {
    double ms;            /* wall time of create + build (from source or from the cached binary) */
    int from_cache;       /* 1: the binary came from the on-disk cache */
    int cache_written;    /* 1: a new cache entry was stored */
    char cache_file[1024];
} ctn_ocl_build_info;

/* Builds the embedded program for `device`, through the binary cache. On failure the full build log is
 * recorded on w (ctn__fail) and CTN_ERR_DEVICE returned. */
ctn_status ctn__ocl_build_program(ctn_world *w, cl_context ctx, cl_platform_id platform, cl_device_id device,
                                  cl_program *out, ctn_ocl_build_info *info);

/* ---- binary cache (host/opencl/opencl_cache.c) -------------------------------------------------------- */

/* Keys and checksums: ctn__fnv1a (host/core/hash.h). */

/* Cache directory: the one set by ctn_set_cache_dir. 0 if none. */
int ctn__cache_dir(char *out, size_t size);
/* Reads the entry for key: a malloc'ed payload (caller frees) or NULL when absent, truncated, or corrupted
 * (bad magic, key or checksum): such entries are ignored and later overwritten. */
unsigned char *ctn__cache_load(const char *path, uint64_t key, size_t *size);
/* Writes the entry atomically (temporary file + rename); creates the directory. Returns 1 on success. */
int ctn__cache_store(const char *dir, const char *path, uint64_t key, const unsigned char *data, size_t size);

/* ---- the backend state (host/opencl/backend_opencl.c, host/opencl/opencl_cg.c) ------------------------------ */

/* The kernels and their arguments: host/opencl/opencl_kernels.h (CTN_K_*, CTN_A_*). */

#define CTN_OCL_STATS_FLOATS 9   /* the step's stats buffer: [0] sum r^2, [1] max gap, [2] max angle, [3] CG ||r||, [4]
                                  * max body speed (float bits), [5] first non-finite or too fast body (int; body
                                  * count when none), [6] first slot with a non-finite impulse (int; joint count
                                  * when none), [7] the projection's Newton steps (int), [8] 1 when it was still
                                  * going at its end (int) */
#define CTN_OCL_STATS_CHECK 4    /* Index of the body and impulse checks in the stats buffer */
#define CTN_OCL_STATS_PROJECT 7  /* Index of the projection's counts in the stats buffer */
#define CTN_OCL_REDUCE_GROUPS 64 /* first-pass groups of the tree reductions (fixed: results do not depend on threads) */

/* A device buffer and its size in bytes. */
typedef struct ctn_clbuf {
    cl_mem mem;
    size_t size;
} ctn_clbuf;

/* Phases whose device time is reported in ctn_step_stats. */
enum { CTN_PH_PREPARE, CTN_PH_SOLVE, CTN_PH_INTEGRATE, CTN_PH_TRANSFER, CTN_PH_COUNT };

typedef struct ctn_ocl {
    cl_platform_id platform;
    cl_device_id device;
    cl_context ctx;
    cl_command_queue queue;
    cl_program program;
    cl_kernel kernel[CTN_K_COUNT]; /* every kernel (opencl_kernels.h); the step's set from creation, the others on first use */
    size_t local[CTN_K_COUNT];    /* work-group size per kernel of the step's set, from the device's own limits */
    size_t reduce_local;          /* power of two for the tree reductions */
    size_t measure_local;         /* The same for ctn_k_measure and _final */
    unsigned long long max_alloc; /* CL_DEVICE_MAX_MEM_ALLOC_SIZE (0: unknown) */
    int profiling;                /* queue has CL_QUEUE_PROFILING_ENABLE */
    ctn_ocl_build_info build;

    /* bodies */
    ctn_clbuf pose, vel, vel_copy, inertia, props;
    ctn_clbuf forces; /* the user forces (w->body_force); a stand-in of the least size while the world has none */
    /* layout (re-uploaded when topology_version changes) */
    ctn_clbuf defs, lambda, adj_offsets, adj, split, springs, spring_adj_offsets, spring_adj;
    /* the host's staging of the joints' whole definitions for the upload of defs (the host keeps compact
     * records and extras, the device whole definitions: host/opencl/opencl_buffers.c), sized with defs, at most
     * CTN_OCL_JOINT_STAGE of them */
    ctn_joint_def *joint_stage;
    size_t joint_stage_cap;
    /* per-substep work arrays */
    ctn_clbuf blocks, dlambda, r2, gap, angle, partial, stats;
    ctn_clbuf points;             /* the rows as compact point blocks (compact) */
    int compact;                  /* this step keeps the rows in points, not blocks (ctn__rows_compact) */
    ctn_compact_cache compact_cache;
    /* CG */
    ctn_clbuf cg_r, cg_z, cg_ap, cg_u, cg_scalars;
    /* Post-stabilisation scratch (velocities, impulses, residuals, errors, undo copy, largest error),
     * swapped in for vel, lambda and r2 while projecting; the real ones wait in real_* */
    ctn_clbuf proj_vel, proj_lambda, proj_r2, proj_err, proj_pose, proj_stats;
    ctn_clbuf real_vel, real_lambda, real_r2;
    int projecting;
    int proj_full;                /* full Newton steps the next projection enqueues (0: CTN_PROJECT_MAX; opencl_stages.c) */
    unsigned char proj_need[CTN_PROJECT_DEVICE_WINDOW]; /* Newton steps the last projections needed (ring) */
    int proj_seen;                /* projections recorded in proj_need */
    int proj_enqueued;            /* full Newton steps this step's projection enqueued, 0 when it ran none */
    int cg_as_gs;                 /* this step's CG is solved by GS (bounded rows): the residual is GS's */
    double ms_upload;             /* host time of this step's uploads and snapshot */
    unsigned layout_version;
    int have_layout;

    /* Device copy of the state before the step in flight (pose, vel, inertia, impulses), taken
     * by clEnqueueCopyBuffer after the step's uploads: copied back when the step diverges, read back to
     * the host when a device fault ends the step (host/opencl/backend_opencl.c, recover_after_fault). */
    ctn_clbuf snap_pose, snap_vel, snap_inertia, snap_lambda;
    int snap_taken;               /* the snapshot of this step is enqueued */
    long step_index;              /* steps run on this backend, from 1 (the fault switch counts them) */
    int launches;                 /* ctn__ocl_launch calls in this step */
    int in_step;
    int fault_kind, fault_fired;  /* the world's injected fault (host/core/fault.c), taken at backend creation */
    long fault_step;
    int cg_warned;                /* the CG -> GS fallback for bounded rows was reported */

    /* Exact solver for chains (host/opencl/opencl_direct.c): kernels created on first use (fp64 only),
     * the path layout of topology direct_version and the joint-space system of its segments. */
    int direct_state;             /* 0: kernels not tried, 1: ready, -1: unsupported (direct_why) */
    char direct_why[160];
    unsigned direct_version;
    int have_direct_layout;
    int direct_n, direct_segments; /* positions (joints on paths) and segments */
    ctn_clbuf dir_pos, dir_slot_pos, dir_sep, dir_K, dir_C, dir_F, dir_y, dir_seg;
    ctn_clbuf dir_one;            /* an int 1: the `active` flag of the solver kernels outside the projection */
    ctn_clbuf proj_state;         /* the projection's Newton record (CTN_PS_* of kernels/ctn_solver.h), the latest */
    ctn_clbuf proj_next;          /* the buffer the next decision writes (then swapped with proj_state) */
    int direct_forest;              /* solved by the forest path (host/opencl/opencl_forest.c): not chains */
    ctn_clbuf dir_hyb;            /* [slot] the hybrid's split: 0 not solved, 1 Gauss-Seidel, 2 exact unless bounded */
    ctn_clbuf dir_vref, dir_lref; /* velocities and impulses the last exact solve left (the re-solves' reference) */
    /* RATTLE (host/opencl/opencl_rattle.c): x_n and v_n of the substep, the velocities before the last chord
     * solve, the per-item turn rates and errors, and whether blocks and the exact solver's factor are those
     * of the current poses (left by the last velocity stage of topology rattle_version) */
    ctn_clbuf rattle_pose, rattle_vel, rattle_back, rattle_err, rattle_top;
    int rattle_valid;
    unsigned rattle_version;
    int *hyb_launch;              /* the outer Gauss-Seidel's launches: (begin, end, serial) per colour with such slots */
    int hyb_launches;
    int hyb_all_exact;            /* no slot is solved by the hybrid's sweep: every joint is in the exact solve */
    int hyb_exact;                /* some joint of the chain or forest can be inside the exact solve */
    size_t dir_fold_local;        /* work-group size of ctn_k_chain_project_assemble (a power of two) */
    size_t dir_local;             /* work-group size of the sweep and the residual (opencl_direct.c dlaunch) */
    void *forest;                 /* its state (ocl_forest, host/opencl/opencl_forest.c) */
    /* Loop closers through their Schur complement on the forest path (host/opencl/opencl_schur.c) */
    int schur_rows;               /* R: their rows (0: the layout has none it can take) */
    int schur_gate;               /* slots whose bounds decide per substep whether it applies (0: always) */
    int schur_closers;            /* the first schur_closers of them are loop closers (a bound there: no Schur) */
    ctn_clbuf sch_rows, sch_W, sch_rE, sch_maybe, sch_on, sch_off, sch_mix, sch_wf;

    /* phase timing: events of the first and last command of each phase instance */
    cl_event *ev;                 /* pairs (first, last) */
    int *ev_phase;
    int ev_count, ev_cap;
    int step_launches, step_reads; /* kernel launches and blocking reads of the step (ctn_step_stats) */
    int phase;                    /* phase being recorded, -1 none */
    cl_event phase_first, phase_last;
} ctn_ocl;

/* Records err on w as "what: CL_NAME" and returns CTN_ERR_DEVICE (CTN_OK for CL_SUCCESS). */
ctn_status ctn__ocl_check(ctn_world *w, cl_int err, const char *what);
/* Every kernel launch of the backend goes through ctn__ocl_enqueue (host/opencl/opencl_launch.c), whichever
 * kernel set k belongs to: it enqueues kernel k (CTN_K_*) over `global` work-items in work-groups of *local
 * (NULL: the implementation picks), no-op for 0 items, notes the command's profiling event in the running
 * phase and counts the launch in the step's stats. Errors read "what (kernel name): CL_...". */
ctn_status ctn__ocl_enqueue(ctn_world *w, ctn_ocl *o, int k, size_t global, const size_t *local, const char *what);
/* Kernel k of the step's set over `items` work-items (rounded up to its work-group size o->local[k]);
 * no-op for 0 items. Counts toward the injected enqueue fault. */
ctn_status ctn__ocl_launch(ctn_world *w, ctn_ocl *o, int k, size_t items, const char *what);
/* Sets argument i of kernel k (CTN_K_*, any set); errors name the kernel and the argument. i < 0 is an
 * error (CTN_ERR_DEVICE): ARG_OF2/3 give it when k is none of the kernels they name. */
ctn_status ctn__ocl_arg(ctn_world *w, ctn_ocl *o, int k, int i, size_t size, const void *value);
/* Creates kernels [first, end) that are not created yet. Returns CL_SUCCESS, or the failing code with
 * *failed set to the kernel's index (its handle left NULL). */
cl_int ctn__ocl_create_kernels(ctn_ocl *o, int first, int end, int *failed);
/* Releases kernels [first, end) that exist. */
void ctn__ocl_release_kernels(ctn_ocl *o, int first, int end);
/* Notes an event produced by a command of the current phase (takes ownership). */
void ctn__ocl_note_event(ctn_ocl *o, cl_event ev);
/* Grows buffer b to at least `size` bytes (contents are lost when it grows). *grew is set to 1 if so. */
ctn_status ctn__ocl_reserve(ctn_world *w, ctn_ocl *o, ctn_clbuf *b, size_t size, int *grew);

/* ---- buffers (host/opencl/opencl_buffers.c) ------------------------------------------------------ */

/* Sizes every device array for the current world; re-uploads what a reallocation lost. */
ctn_status ctn__ocl_reserve_all(ctn_world *w, ctn_ocl *o);
/* Host -> device: the body arrays; the solver layout of the current topology. */
ctn_status ctn__ocl_upload_bodies(ctn_world *w, ctn_ocl *o);
ctn_status ctn__ocl_upload_layout(ctn_world *w, ctn_ocl *o);
/* Blocking write of `size` bytes into b (no-op for 0); the same after growing b to hold them (at least
 * an int, so that an empty array still has a buffer to bind). */
ctn_status ctn__ocl_write(ctn_world *w, ctn_ocl *o, ctn_clbuf *b, const void *data, size_t size, const char *what);
ctn_status ctn__ocl_upload(ctn_world *w, ctn_ocl *o, ctn_clbuf *b, const void *data, size_t size, const char *what);
/* Blocking read of `size` bytes of b; device-side copy between buffers. No-ops for size 0. */
ctn_status ctn__ocl_read(ctn_world *w, ctn_ocl *o, const ctn_clbuf *b, void *data, size_t size, const char *what);
/* The device's per-slot float arrays (the impulses, their copies, the Jacobi increments, CG's vectors) at the
 * layout's row stride as the host's (kernels/ctn_types.h, CTN_LAM; every kernel that reads them takes it as its
 * argument ls): impulse_bytes is the bytes of the layout's m slots, impulse_room what a buffer of them reserves,
 * CTN_MAX_ROWS floats more for ctn_lam_load's reads past the last slot (kernels/ctn_solver.h). */
static inline size_t ctn__ocl_impulse_bytes(const ctn_world *w) {
    return (size_t)w->topo.stride * (size_t)w->topo.joint_count * sizeof(float);
}
static inline size_t ctn__ocl_impulse_room(const ctn_world *w) { return ctn__ocl_impulse_bytes(w) + CTN_MAX_ROWS * sizeof(float); }
ctn_status ctn__ocl_copy(ctn_world *w, ctn_ocl *o, cl_mem from, cl_mem to, size_t size, const char *what);
/* Body state and impulses device -> host (the backend's sync_to_host). */
ctn_status ctn__ocl_sync(ctn_world *w);

/* ---- stage timing from profiling events (host/opencl/opencl_profile.c) --------------------------- */

/* The commands that follow count toward phase (CTN_PH_*), -1 for none; closes the running phase. */
void ctn__ocl_phase(ctn_ocl *o, int phase);
/* Adds the device time of each phase since the last call to ms[] and releases the events. */
void ctn__ocl_collect_times(ctn_ocl *o, double ms[CTN_PH_COUNT]);
void ctn__ocl_drop_events(ctn_ocl *o);

/* ---- the stages (host/opencl/opencl_stages.c) ---------------------------------------------------- */

/* Runs one stage of the step pipeline (host/solve/pipeline.h) as kernel launches. */
ctn_status ctn__ocl_run_stage(ctn_world *w, const ctn_stage_entry *e, const ctn_step_params *prm, ctn_stage_out *out);
/* This backend's stage tables (ctn_stage_ops.plan; opencl_stages.c has the fused entries). */
int ctn__ocl_plan(const ctn_world *w, const ctn_step_params *prm, ctn_stage_table table, int sub, int n, ctn_stage_entry *e);
/* Joint errors of the device state (the backend's measure). */
ctn_status ctn__ocl_measure(ctn_world *w, double *max_gap, double *max_angle);

/* ---- snapshot and fault recovery (host/opencl/opencl_snapshot.c) --------------------------------- */

/* Device copy of the state the step starts from; putting it back; one body read back. */
ctn_status ctn__ocl_snapshot_take(ctn_world *w, ctn_ocl *o);
ctn_status ctn__ocl_restore(ctn_world *w);
ctn_status ctn__ocl_read_body(ctn_world *w, int i, ctn_pose *p, ctn_vel *v);
/* After a device fault (status s): the state before the step into the host arrays; returns s with the
 * reason extended. */
ctn_status ctn__ocl_recover_after_fault(ctn_world *w, ctn_ocl *o, ctn_status s);

/* Block-preconditioned CG on the device (host/opencl/opencl_cg.c): dots and norms through clBLAST, scalars
 * kept on the device. Leaves ||r||^2 of the last iteration to be read from stats[3]. */
ctn_status ctn__ocl_solve_cg(ctn_world *w, ctn_ocl *o);

/* Exact solver with its Gauss-Seidel hybrid on the device (host/opencl/opencl_direct.c).
 * ctn__ocl_direct_prepare: once per step, checks the device (CTN_ERR_UNSUPPORTED with the reason when it has
 * no fp64) and uploads the layout (chain or forest path, the hybrid's split and sweep) when the topology
 * changed. ctn__ocl_solve_direct: one substep's solve after the warm start (lambda, velocities, r2).
 * ctn__ocl_direct_release: frees its kernels and buffers. */
ctn_status ctn__ocl_direct_prepare(ctn_world *w, ctn_ocl *o);
/* Refuses the direct solver on the device: CTN_ERR_UNSUPPORTED with the reason `why` (no fp64, no kernels). */
ctn_status ctn__ocl_direct_unsupported(ctn_world *w, const char *why);
/* The `active` flag the exact solver's kernels read: the projection's Newton state while projecting
 * (its later steps are no-ops once the error is small), else a constant 1. */
cl_mem ctn__ocl_direct_active(const ctn_ocl *o);
/* covers: the entry's stages (without CTN_STAGE_VELOCITIES the chain path leaves its last velocity update
 * to the integration; with CTN_STAGE_PREPARE it builds the projection's rows with prm in its assembly; with
 * CTN_STAGE_RESIDUAL, outside the projection, it leaves its residual per slot in r2). */
ctn_status ctn__ocl_solve_direct(ctn_world *w, ctn_ocl *o, uint64_t covers, const ctn_step_params *prm);
/* RATTLE's exact solves (host/opencl/opencl_rattle.c): full_rhs 0: a factor (and solve) of the rows in
 * blocks, 1: a solve through the factor in place for r itself (CTN_DD_RESOLVE_FULL); the velocities are
 * applied (never left to an integration). ctn__ocl_direct_all_exact: every joint of the layout is in the
 * exact solve. */
ctn_status ctn__ocl_direct_rattle_solve(ctn_world *w, ctn_ocl *o, int full_rhs);
int ctn__ocl_direct_all_exact(const ctn_world *w);
/* The RATTLE stages (CTN_STAGE_RATTLE_* and CTN_STAGE_INERTIA of host/solve/pipeline.h). */
ctn_status ctn__ocl_rattle_stage(ctn_world *w, ctn_ocl *o, ctn_stage stage, const ctn_step_params *prm, ctn_stage_out *out);
void ctn__ocl_rattle_release(ctn_ocl *o);
ctn_status ctn__ocl_reduce_max(ctn_world *w, ctn_ocl *o, int n, cl_mem x, cl_mem out);
/* A Newton step's velocities of the chain solve and its integration in one launch (the solve left them to
 * it: the INTEGRATE entry covers CTN_STAGE_VELOCITIES). */
ctn_status ctn__ocl_direct_velocity_project(ctn_world *w, ctn_ocl *o, const ctn_step_params *prm);
/* The same in a substep: the velocities and ctn_k_integrate's work (h, gs_h, begin, rest: its arguments). */
ctn_status ctn__ocl_direct_velocity_integrate(ctn_world *w, ctn_ocl *o, float h, float gs_h, int begin, cl_mem rest);
/* Whether the chain solve builds a Newton step's rows in its assembly (every joint slot a chain position), and
 * whether the exact solve can leave its last velocity update to the integration (the chain path): the
 * stage tables declare both (ctn__ocl_plan). */
int ctn__ocl_direct_fuses_rows(const ctn_world *w, const ctn_ocl *o);
int ctn__ocl_direct_defers_velocities(const ctn_world *w, const ctn_ocl *o);
/* The projection's Newton decision (host/opencl/opencl_project.c): ctn_k_project_decide on the record of
 * the last rows into proj_next, and the swap that makes the decided record proj_state, which a kernel that
 * decides itself (the chain solve's assembly) calls alone. */
ctn_status ctn__ocl_project_decide(ctn_world *w, ctn_ocl *o);
void ctn__ocl_project_swap(ctn_ocl *o);
/* The projection's stages (host/opencl/opencl_project.c): the plan of the next step's Newton steps from the
 * step's statistics, PROJECT_ENTER, PROJECT_LEAVE, PROJECT_REST, and PREPARE and INTEGRATE while projecting. */
void ctn__ocl_project_plan(ctn_ocl *o, const float *stats);
ctn_status ctn__ocl_project_enter(ctn_world *w, ctn_ocl *o, ctn_step_params prm, ctn_stage_out *out);
/* The real arrays back; *left: it was projecting (the statistics' launch finishes leaving: the undo, the
 * inertia of the final poses), *decide: the check's rows await their decision (that launch takes it). */
ctn_status ctn__ocl_project_leave(ctn_world *w, ctn_ocl *o, int *left, int *decide);
ctn_status ctn__ocl_project_rest(ctn_world *w, ctn_ocl *o);
ctn_status ctn__ocl_project_prepare(ctn_world *w, ctn_ocl *o, ctn_step_params prm, int residual);
ctn_status ctn__ocl_project_integrate(ctn_world *w, ctn_ocl *o, ctn_step_params prm, uint64_t covers);
void ctn__ocl_direct_release(ctn_ocl *o);
/* Exact solver for forests of joints (host/opencl/opencl_forest.c), used by host/opencl/opencl_direct.c when the
 * joints are not chains (or desc.debug.direct_forest = 1): prepare (symbolic phase per topology_version; hyb[slot]
 * gets the hybrid's split: 0 not solved, 1 Gauss-Seidel, 2 in the forest), the substep solve of the forest
 * (velocities and lambda; not r2; rhs_only: through the factor of the substep's first solve), release. */
ctn_status ctn__ocl_forest_prepare(ctn_world *w, ctn_ocl *o, int *hyb);
ctn_status ctn__ocl_forest_solve(ctn_world *w, ctn_ocl *o, cl_mem active, int rhs_only);
void ctn__ocl_forest_release(ctn_ocl *o);
/* A column of the loop closers' Schur complement (host/opencl/opencl_schur.c): substitution of the right-hand
 * side of Schur row k through the factor of the substep's first solve, its solution left in the buffer
 * ctn__ocl_forest_solution returns (velocities and impulses unchanged). */
ctn_status ctn__ocl_forest_column(ctn_world *w, ctn_ocl *o, cl_mem active, int k);
cl_mem ctn__ocl_forest_solution(const ctn_ocl *o);
/* The loop closers' Schur complement on the device (host/opencl/opencl_schur.c), as the CPU's
 * (host/solve/solver_direct.c): prepare from the forest's ordering s (once per topology; o->schur_rows = 0
 * when it does not apply to the layout); per substep, after the first exact solve, ctn__ocl_schur_factor forms
 * W^-1 and gives the flags on (it applies alone in this substep), off (the hybrid's sweeps run) and mix (no
 * closer bounded while rows of the forest are cut: the sweeps, then the closers' impulse and a re-solve,
 * in every outer iteration), each `active` where it holds; ctn__ocl_schur_impulse is one outer
 * iteration's impulse, before its re-solve. */
struct direct_state;
ctn_status ctn__ocl_schur_prepare(ctn_world *w, ctn_ocl *o, const struct direct_state *s);
ctn_status ctn__ocl_schur_factor(ctn_world *w, ctn_ocl *o, cl_mem active, cl_mem *on, cl_mem *off, cl_mem *mix);
ctn_status ctn__ocl_schur_impulse(ctn_world *w, ctn_ocl *o, cl_mem on);
void ctn__ocl_schur_release(ctn_ocl *o);
/* Whether joint d can have finite impulse bounds (contacts, limits, motors, ropes, swing cones), and whether
 * every row of it always has (contacts, ropes) (host/opencl/opencl_direct.c). */
int ctn__ocl_may_be_bounded(const ctn_joint_def *d);
int ctn__ocl_always_bounded(const ctn_joint_def *d);
/* The same of the layout's slot s. */
static inline int ctn__ocl_may_be_bounded_at(const ctn_topology *t, int s) {
    ctn_joint_def d = ctn_joint_at(ctn__topo_joints(t), s);
    return ctn__ocl_may_be_bounded(&d);
}
static inline int ctn__ocl_always_bounded_at(const ctn_topology *t, int s) {
    ctn_joint_def d = ctn_joint_at(ctn__topo_joints(t), s);
    return ctn__ocl_always_bounded(&d);
}

/* Build information of an OpenCL world (bench, CLI). Returns 0 when w does not use OpenCL. */
int ctn__opencl_build_info(const ctn_world *w, ctn_ocl_build_info *out);
/* Bench hook (host/opencl/backend_opencl.c): device copy bandwidth in GB/s (bytes read + written). */
ctn_status ctn__opencl_copy_bandwidth(ctn_world *w, size_t bytes, int reps, double *gbps);

/* Return the status of a failed call. */
#define TRY(expr)                          \
    do {                                   \
        ctn_status s_ = (expr);            \
        if (s_ != CTN_OK) return s_;       \
    } while (0)
/* The host type of each argument kind of opencl_kernels.h, and of each argument: ctn_ocl_at_<ID>_<name>.
 * A __local argument's type is incomplete: it has no value to bind, LOCAL_ARG gives its size. */
typedef cl_mem ctn_ocl_at_global;
typedef struct ctn_ocl_local_arg ctn_ocl_at_local;
typedef cl_int ctn_ocl_at_int;
typedef cl_float ctn_ocl_at_float;
typedef ctn_step_params ctn_ocl_at_params;
#define CTN__AT(id, kind, a) typedef ctn_ocl_at_##kind ctn_ocl_at_##id##_##a;
#define CTN__ATS(id, name) CTN_OCL_ARGS_##id(CTN__AT, id)
CTN_OCL_KERNELS(CTN__ATS)
#undef CTN__ATS
#undef CTN__AT

/* Bind argument `name` of kernel ID (CTN_K_ID, declared in opencl_kernels.h) to the lvalue v. The index
 * and the size come from the declaration: a name it lacks does not compile, nor does a v whose type is not
 * the argument kind's host type (an int for a float, a size_t for an int, a cl_mem for a value; the
 * pointer initialisation below is a constraint violation, -Werror). LOCAL_ARG: the __local argument
 * `name`, `bytes` long (a name of another kind fails its static assertion). ARG_OF2 / ARG_OF3: kernel k,
 * known at run time only, is one of the kernels named (the arguments several kernels share); the name
 * and type are checked against each of them at compile time, the index is the one of the kernel k is,
 * and a k that is none of them is an error. With w and o in scope. */
#define ARG(ID, name, v)                                                              \
    do {                                                                              \
        const ctn_ocl_at_##ID##_##name *arg_ = &(v);                                  \
        TRY(ctn__ocl_arg(w, o, CTN_K_##ID, CTN_A_##ID##_##name, sizeof *arg_, arg_)); \
    } while (0)
#define LOCAL_ARG(ID, name, bytes)                                                                                     \
    do {                                                                                                               \
        _Static_assert((int)CTN_AK_##ID##_##name == (int)CTN_OCL_ARG_local, #ID " argument " #name " is not __local"); \
        TRY(ctn__ocl_arg(w, o, CTN_K_##ID, CTN_A_##ID##_##name, (bytes), NULL));                                       \
    } while (0)
#define CTN__ARG_AT(k, ID, name) (k) == CTN_K_##ID ? CTN_A_##ID##_##name
#define ARG_OF2(k, ID1, ID2, name, v)                                                                         \
    do {                                                                                                      \
        const ctn_ocl_at_##ID1##_##name *arg_ = &(v);                                                         \
        const ctn_ocl_at_##ID2##_##name *arg2_ = &(v);                                                        \
        (void)arg2_;                                                                                          \
        TRY(ctn__ocl_arg(w, o, (k), CTN__ARG_AT(k, ID1, name) : CTN__ARG_AT(k, ID2, name) : -1, sizeof *arg_, \
                         arg_));                                                                              \
    } while (0)
#define ARG_OF3(k, ID1, ID2, ID3, name, v)                                                                       \
    do {                                                                                                         \
        const ctn_ocl_at_##ID1##_##name *arg_ = &(v);                                                            \
        const ctn_ocl_at_##ID2##_##name *arg2_ = &(v);                                                           \
        const ctn_ocl_at_##ID3##_##name *arg3_ = &(v);                                                           \
        (void)arg2_, (void)arg3_;                                                                                \
        TRY(ctn__ocl_arg(w, o, (k),                                                                              \
                         CTN__ARG_AT(k, ID1, name) : CTN__ARG_AT(k, ID2, name) : CTN__ARG_AT(k, ID3, name) : -1, \
                         sizeof *arg_, arg_));                                                                   \
    } while (0)

#endif /* CTN_HOST_OPENCL_INTERNAL_H */
