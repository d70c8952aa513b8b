/** @file core.h
 * Catena: a parallel constraint solver for chained rigid bodies and particles.
 *
 * The core of the public C API (catena.h includes it with the rest). A world (`ctn_world`, opaque) owns
 * bodies and joints and advances them with the SPOOK-regularised velocity step (Lacoursiere 2007;
 * docs/design.md). Every function validates its input,
 * returns a `ctn_status`, and leaves the world unchanged on error; the reason is readable through
 * `ctn_world_last_error`.
 *
 * Conventions: SI units; right-handed world frame; quaternions are (w, x, y, z) and map body-frame
 * vectors to the world frame; angular velocities are in the world frame; joint anchors are in the
 * body frame of their body (in the world frame when the body is `CTN_WORLD`). */
#ifndef CATENA_CORE_H
#define CATENA_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The one place the version is written: CMakeLists.txt, the Python package and the CLI read it from here. */
#define CATENA_VERSION_MAJOR 0 /**< major version: the API may change when it does */
#define CATENA_VERSION_MINOR 1 /**< minor version */
#define CATENA_VERSION_PATCH 0 /**< patch version */
/** The version as one number, major * 10000 + minor * 100 + patch, to compare with ctn_version_number(). */
#define CATENA_VERSION_NUMBER (CATENA_VERSION_MAJOR * 10000 + CATENA_VERSION_MINOR * 100 + CATENA_VERSION_PATCH)

/** Marks the functions libcatena.so exports: the library is built with hidden visibility, so everything
 * else (the `ctn__` internals, the C++ of the URDF reader) stays inside it. For the static library's users
 * it changes nothing. */
#if defined(__GNUC__) || defined(__clang__)
#define CTN_API __attribute__((visibility("default")))
#else
#define CTN_API
#endif

/* ---- status codes ------------------------------------------------------------------------------ */

/** What a call returned: CTN_OK, or why it failed (details in ctn_world_last_error or the err buffer). */
typedef enum ctn_status {
    CTN_OK = 0,               /**< success */
    CTN_ERR_INVALID_ARGUMENT, /**< NULL, out of range, non-finite, degenerate geometry */
    CTN_ERR_NOT_FOUND,        /**< unknown, removed or stale body / joint handle */
    CTN_ERR_IN_USE,           /**< removing a body that joints still reference */
    CTN_ERR_OUT_OF_MEMORY,    /**< an allocation failed; nothing was changed */
    CTN_ERR_LIMIT,            /**< a documented size limit would be exceeded */
    CTN_ERR_UNSUPPORTED,      /**< valid request the chosen solver/backend cannot do */
    CTN_ERR_DEVICE,           /**< OpenCL / clBLAST failure */
    CTN_ERR_DIVERGED,         /**< non-finite or exploding state */
    CTN_ERR_IO,               /**< a file could not be read or written */
    CTN_ERR_BUSY              /**< the world is in a call on another thread; nothing was done ("Threads" below) */
} ctn_status;

/** The library's version as "MAJOR.MINOR.PATCH" (the library actually loaded, which may be newer than the
 * header an application was compiled with). Never NULL. */
CTN_API const char *ctn_version(void);

/** The library's version as one number, major * 10000 + minor * 100 + patch: an application compiled
 * against this header can check `ctn_version_number() / 10000 == CATENA_VERSION_MAJOR` before it relies on
 * the layout of the desc structs (the API may change when the major version does). */
CTN_API int ctn_version_number(void);

/** Name of a status code, e.g. "CTN_ERR_NOT_FOUND". Never NULL. */
CTN_API const char *ctn_status_name(ctn_status status);

/* ---- world ------------------------------------------------------------------------------------- */

/** A simulated world (opaque): bodies, joints, contacts, settings and the backend that steps them. */
typedef struct ctn_world ctn_world;

/** How the direct solver treats rows with impulse bounds (limits, motors) of the joints it holds exactly. */
typedef enum ctn_bounded_rows {
    CTN_BOUNDED_AUTO = 0,  /**< CTN_BOUNDED_EXACT on the CPU backend; CTN_BOUNDED_SWEEP on OpenCL, which has no
                              active set yet (docs/design.md, "Bounded rows by an active set") */
    CTN_BOUNDED_EXACT,     /**< an active set in the exact solve: a limit that acts and a motor below its force bound
                              join their joint's block, a motor at its bound acts with its bound; checked and
                              refactored up to 24 times a substep, then the sweep finishes. CPU backend only: an
                              OpenCL world refuses it (CTN_ERR_UNSUPPORTED) */
    CTN_BOUNDED_SWEEP      /**< the rows leave the exact solve and projected Gauss-Seidel sweeps them between exact
                              re-solves of the other rows (the behaviour before CTN_BOUNDED_EXACT) */
} ctn_bounded_rows;

/** How the constraint system of each substep is solved. */
typedef enum ctn_solver {
    CTN_SOLVER_GS = 0,  /**< coloured block Gauss-Seidel */
    CTN_SOLVER_JACOBI,  /**< Jacobi with per-body J^T gather and mass splitting */
    CTN_SOLVER_CG,      /**< block-preconditioned conjugate gradient (bilateral rows only) */
    CTN_SOLVER_DIRECT,  /**< exact O(n) block elimination on the joint forest, GS on the rest */
    CTN_SOLVER_AUTO     /**< DIRECT when the joints form long chains or trees with few loops and bounded rows,
                           else GS; chosen again whenever the topology changes (host/solve/solver_auto.c);
                           ctn_step_stats.solver says which one ran and solver_reason why */
} ctn_solver;

/** Where the world is stepped. */
typedef enum ctn_backend {
    CTN_BACKEND_AUTO = 0, /**< best OpenCL GPU if any, else the CPU fallback */
    CTN_BACKEND_CPU,
    CTN_BACKEND_OPENCL
} ctn_backend;

/** How position errors are fed back into the velocity step. */
typedef enum ctn_stabilization {
    CTN_STAB_SPOOK = 0, /**< SPOOK (Lacoursiere 2007): compliance + damping time */
    CTN_STAB_BAUMGARTE  /**< Baumgarte (1972): velocity target -beta/h * g */
} ctn_stabilization;

/** How a step advances positions and velocities (docs/design.md, "RATTLE"). */
typedef enum ctn_integrator {
    CTN_INTEGRATOR_RATTLE = 0, /**< RATTLE (Andersen 1983) with the exact solver where it applies: bounded energy
                                  error and joints held at the end of every substep; elsewhere the velocity step
                                  runs and ctn_step_stats.integrator_reason says why */
    CTN_INTEGRATOR_VELOCITY    /**< the velocity-level step (SPOOK, Lacoursiere 2007) with the exact solver's
                                  position projection (Cline and Pai 2003): the step of earlier versions */
} ctn_integrator;

/* ---- messages: the log callback ---------------------------------------------------------------- */

/** Severity of a library message. */
typedef enum ctn_log_level {
    CTN_LOG_DEBUG = 0, /**< asked-for diagnostics (ctn_debug_options.trace) */
    CTN_LOG_INFO,      /**< a choice the library made that the caller may want to know (a solver fallback) */
    CTN_LOG_WARNING    /**< a request that could not be honoured as asked (no OpenCL device, a device fault
                            recovered on the CPU) */
} ctn_log_level;

/** Receives every message of the library, one line without a trailing newline. `user` is the pointer
 *  registered with the callback. The library never prints; without a callback its messages are dropped. */
typedef void (*ctn_log_fn)(ctn_log_level level, const char *message, void *user);

/** Installs the process-wide log callback (NULL removes it). It receives the messages of calls made
 *  without a world (device enumeration) and of worlds whose ctn_world_desc.log is NULL. Set it at
 *  start-up, before other threads call the library: the hook itself is not synchronised. */
CTN_API void ctn_set_log(ctn_log_fn log, void *user);

/** Sets the directory where compiled OpenCL programs are cached (created when missing; NULL or "": no
 *  disk cache, so every OpenCL world creation builds its kernels from source). The string is copied. The
 *  library reads no environment variable: the `catena` tool and the Python package pass
 *  `$CATENA_CACHE_DIR`, else `$XDG_CACHE_HOME/catena`, else `$HOME/.cache/catena`. Process-wide; set it at
 *  start-up, before other threads create worlds. Returns CTN_ERR_LIMIT for a path of 1024 bytes or more
 *  (the setting is then unchanged). */
CTN_API ctn_status ctn_set_cache_dir(const char *dir);
/** The directory set by ctn_set_cache_dir ("" when none). */
CTN_API const char *ctn_get_cache_dir(void);

/* ---- memory ------------------------------------------------------------------------------------- */

/** Allocation function of the library (ctn_set_allocator; MuJoCo's mju_user_malloc with a user pointer):
 *  returns a block of at least `size` (> 0) bytes aligned for any type, or NULL. */
typedef void *(*ctn_malloc_fn)(size_t size, void *user);
/** Resizes a block the allocator returned (ptr is never NULL, size never 0) keeping its contents, or
 *  returns NULL leaving the block as it was. */
typedef void *(*ctn_realloc_fn)(void *ptr, size_t size, void *user);
/** Releases a block the allocator returned (ptr is never NULL). */
typedef void (*ctn_free_fn)(void *ptr, void *user);

/** Installs the process-wide allocator through which every block the library allocates goes (worlds,
 *  bodies, joints, the solver layout, contacts, scenes, checkpoints, the OpenCL backend's host arrays).
 *  Not covered: memory of the OpenCL driver, of the OpenMP runtime, of cJSON while a scene file is parsed,
 *  of urdfdom (C++ operator new) and the C library's FILE buffers. All three NULL restore the C library's
 *  malloc, realloc and free; a mix of NULL and non-NULL is CTN_ERR_INVALID_ARGUMENT.
 *  It must not change while the library holds memory from the current one: with any world or scene
 *  alive (ctn_allocated_blocks() > 0) the call changes nothing and returns CTN_ERR_IN_USE. Set it at
 *  start-up, before other threads call the library: the functions are read without synchronisation, and
 *  they are called from whichever thread calls the library (make them thread-safe if threads share it).
 *  A world whose counts (bodies, joints, contacts, shapes) stay within those of earlier steps allocates
 *  nothing in ctn_world_step on the CPU backend (tests/test_alloc.c counts).
 *
 *  Out of memory (an allocation the allocator refuses): the call returns CTN_ERR_OUT_OF_MEMORY and the
 *  world is exactly as it was before it: its bodies, joints, contacts, handles, states and impulses. A
 *  failed step has not advanced (it fails before its first change, or is undone as a diverged step is), and
 *  the same step retried with memory is bitwise the step that never failed: no other solver is taken
 *  instead, for that step or later ones. A scene generator, scene file or URDF robot adds all of its
 *  bodies and joints or none. ctn_world_save and the VTK writers leave no file (an earlier one stays as it
 *  was); ctn_world_create and ctn_world_load return no world (load does not call it a corrupted file).
 *  Two documented fallbacks succeed instead, changing nothing a caller reads but time: the OpenCL binary
 *  cache (a cached program that cannot be read is built from source; one that cannot be stored is built
 *  again at the next start) and the OpenCL step timings (a phase whose profiling events cannot be kept is
 *  left out of ms_prepare / ms_solve / ms_integrate). tests/test_alloc_failures.c fails every allocation of
 *  a build, step, remove, re-add, assemble, save, load, scene and VTK scenario in turn and compares the
 *  state before and after. */
CTN_API ctn_status ctn_set_allocator(ctn_malloc_fn malloc_fn, ctn_realloc_fn realloc_fn, ctn_free_fn free_fn, void *user);

/** Blocks the library holds now (allocated through the allocator and not yet freed), all threads. */
CTN_API long ctn_allocated_blocks(void);

/* ---- debug options ------------------------------------------------------------------------------ */

/** Switches for diagnosing and tuning the solvers; ctn_world_desc_default() fills every field with
 *  "automatic" (-1, or 0 / NULL for the on-off switches). Read when the world is created and whenever
 *  the solver layout is rebuilt. */
typedef struct ctn_debug_options {
    int direct_forest;    /**< OpenCL `direct` for chains: -1 automatic (the joint-space chain path), 0 the
                           chain path, 1 the forest path */
    int forest_band;      /**< OpenCL forest path: levels of at most this many nodes are merged into one
                           serial launch; -1 automatic (16 on CPU devices, 1 on GPUs) */
    int chain_segment;    /**< OpenCL chain path: joints per segment (one work-item eliminates a segment),
                           0 one segment for the whole sequence; -1 automatic (128) */
    int forest_local_one; /**< OpenCL forest path: 1 runs the serial bands with a work-group of one, 0 with
                           the device's preferred size; -1 automatic (1 on CPU devices) */
    int trace;            /**< non-zero: the exact solver logs its layout (CTN_LOG_DEBUG) when it is built */
    int project_chord;    /**< exact solver's position projection: 1 tries chord steps (the last factor of the
                           step, no new factorisation) before Newton steps, 0 Newton steps only; -1
                           automatic (on where the backend has the chord stages: the CPU backend) */
    const char *fault;    /**< device-fault injection "NAME[@STEP]" (host/core/fault.c lists the names), for
                           tests and failure drills; NULL or "" for none. Only in builds configured with
                           -DCATENA_FAULT_INJECTION=ON, else world creation fails with CTN_ERR_UNSUPPORTED */
} ctn_debug_options;

/* Limits enforced by the API (checked before any allocation). */
#define CTN_MAX_BODIES 50000000   /**< most bodies in one world */
#define CTN_MAX_JOINTS 50000000   /**< most joints (contacts included) in one world */
#define CTN_MAX_COLOURS 64        /**< largest colour budget (ctn_world_desc.max_colours) */
#define CTN_MAX_SUBSTEPS 1000     /**< most substeps per step */
#define CTN_SUBSTEPS_AUTO 0       /**< ctn_world_desc.substeps: 1 for the exact solver on joints it holds alone, else 4 */
#define CTN_MAX_ITERATIONS 100000 /**< most solver iterations per substep */
/** Largest magnitude (m) of an offset or length the library keeps in float32: joint anchors, attachment
 *  points, curve anchors, origins, radii, pitches and polyline vertices. 1000 km: no rigid body or
 *  mechanism is larger, float32 still resolves 0.06 m there, and squares and products of such values stay
 *  far inside float range (a value near FLT_MAX, 3.4e38, turned the state non-finite at the first step). */
#define CTN_MAX_LENGTH 1e6
#define CTN_MAX_THREADS 1024      /**< most CPU solver threads (ctn_world_desc.threads) */
#define CTN_RATTLE_MAX_JOINTS 1000 /**< ctn_world_desc.rattle_max_joints when it is 0: RATTLE's default joint limit */

/** The settings of a world; start from ctn_world_desc_default(). */
typedef struct ctn_world_desc {
    double gravity[3];       /**< m/s^2, default (0, -9.81, 0) */
    double time_step;        /**< s, default 1/60 */
    int substeps;            /**< n substeps of time_step/n, Jacobians refreshed each; default 4;
                                  CTN_SUBSTEPS_AUTO (0): chosen per step with the solver (docs/guide.md, "Choosing substeps") */
    int iterations;          /**< solver iterations per substep; default 4 */
    ctn_solver solver;       /**< default CTN_SOLVER_AUTO */
    ctn_stabilization stabilization; /**< default CTN_STAB_SPOOK */
    double compliance;       /**< SPOOK epsilon (m/N) for joints that do not set their own; default 0 */
    double damping_time;     /**< SPOOK tau (s); <= 0 means two substep lengths; default 0 */
    double baumgarte;        /**< Baumgarte beta in [0, 1]; default 0.2 */
    double warm_start;       /**< factor in [0, 1] on last substep's impulses; default 0.5 */
    int max_colours;         /**< colour budget, 2..CTN_MAX_COLOURS; the rest is solved serially; default 32 */
    int threads;             /**< CPU solver threads, 1..CTN_MAX_THREADS; 0 = the CPUs in the process's affinity
                                  mask (sched_getaffinity: what taskset, cpusets and batch schedulers allow), read
                                  at every step; OMP_NUM_THREADS is not consulted. Waiting threads spin in
                                  libgomp's default policy, which costs a loaded machine dearly: run the program
                                  with OMP_WAIT_POLICY=passive (the catena tool and the Python package set it,
                                  docs/cli.md, "Threads"); default 0 */
    double geometric_stiffness; /**< factor on the geometric-stiffness inertia that keeps long, tense chains of
                                   rigid bodies stable at large steps (ctn_solver.h); 0 disables; default 1 */
    double max_speed;        /**< divergence guard (m/s and rad/s): a step that leaves a body faster than this, or
                                any non-finite value, is undone and returns CTN_ERR_DIVERGED; <= 0: no speed
                                limit (non-finite values are still undone); default 1e4 */
    ctn_backend backend;     /**< default CTN_BACKEND_AUTO */
    ctn_integrator integrator; /**< default CTN_INTEGRATOR_RATTLE (applies to the direct solver's rigid bilateral
                                    joints; docs/design.md, "RATTLE") */
    const char *device;      /**< OpenCL device: NULL = automatic; "P:D" indices or a name substring */
    ctn_log_fn log;          /**< where this world's messages go; NULL: the process-wide hook (ctn_set_log) */
    void *log_user;          /**< passed to `log` */
    ctn_debug_options debug; /**< diagnostics and solver tuning; the defaults choose automatically */
    int rattle_max_joints;   /**< RATTLE applies to worlds of at most this many joints; larger ones run the velocity
                                  step (ctn_step_stats.integrator_reason says so). 0: CTN_RATTLE_MAX_JOINTS (1000);
                                  1..CTN_MAX_JOINTS: that limit. Above about 1000 joints a swinging chain's chord
                                  iteration stalls and RATTLE costs several times the velocity step (docs/design.md,
                                  "RATTLE"); raise it for energy-true long chains. Last in the struct so that
                                  checkpoints written before it load (as 0); default 0 */
    ctn_bounded_rows bounded_rows; /**< the direct solver's limits and motors (ctn_bounded_rows); in the struct's tail
                                  padding, so its size and the other offsets are those of earlier versions, and a
                                  checkpoint written before it loads it as CTN_BOUNDED_AUTO; default CTN_BOUNDED_AUTO */
} ctn_world_desc;

/** The default settings (each field documents its default). */
CTN_API ctn_world_desc ctn_world_desc_default(void);

/* ---- threads ------------------------------------------------------------------------------------ */

/* A world is used by one thread at a time; different worlds run on different threads at once (set the
 * process-wide hooks, ctn_set_log, ctn_set_allocator and ctn_set_cache_dir, before starting threads). Every
 * function that takes a non-const world claims it for the length of the call (one atomic compare-and-swap,
 * about 20 ns; calls the library nests on the same thread go on). A call from another thread meanwhile returns
 * CTN_ERR_BUSY and does nothing: the world, its last error and the call's outputs are untouched, and
 * ctn_world_last_error(world) on the refused thread names the function ("ctn_world_step: the world is in
 * use by another thread ..."). ctn_world_destroy of a world another thread is inside leaves it alive and
 * logs a warning. The queries on a const world (ctn_world_get_stats, ctn_world_get_desc, ...) are not
 * guarded: call them from the thread that uses the world. The guard refuses overlapping calls; it does not
 * order them: a program that shares a world between threads serialises its calls itself (a mutex) and
 * retries a refused call that must happen (tests/test_world_busy.c). */

/* Reading functions. Two kinds, said here once:
 *   - Const and side-effect free (take `const ctn_world *`; not guarded, no error recorded, nothing
 *     changed): ctn_world_last_error, ctn_world_get_desc, ctn_world_get_stats, ctn_world_body_count,
 *     ctn_world_joint_count, ctn_world_attachment_count, ctn_world_plane_count, ctn_world_collision_counts,
 *     ctn_world_id_counts, ctn_world_backend_name, ctn_world_device_name, ctn_world_tag,
 *     ctn_body_is_valid, ctn_joint_is_valid, ctn_body_id_from_int, ctn_joint_id_from_int, ctn_body_id_in,
 *     ctn_joint_id_in.
 *   - Readers that take a non-const world: every other *_get_*, ctn_body_find, ctn_world_body_at,
 *     ctn_world_joint_at, ctn_curve_constraint_parameter, ctn_world_get_positions / _body_field /
 *     _joint_errors / _joint_forces / _contacts / _collision / _plane. They are not const, and not free of
 *     side effects, for three reasons: (1) they claim the world with the busy guard above, so that a read
 *     never overlaps a step or an edit on another thread (it is refused with CTN_ERR_BUSY instead of
 *     returning a torn state); (2) they set the world's last error (a refused handle or a NULL output is
 *     named there) or clear it on success; (3) on the OpenCL backend the first of them after a step copies
 *     the device's state into the host arrays the readers read (a cache fill, once per step: later reads
 *     copy nothing, no value a caller can read changes, and the following step does not depend on whether
 *     it happened). A device failure during that copy is returned as CTN_ERR_DEVICE. Nothing else of the
 *     world changes. */

/** Creates a world. On failure *out is NULL and, when err is not NULL, a message is written to it. */
CTN_API ctn_status ctn_world_create(const ctn_world_desc *desc, ctn_world **out, char *err, size_t err_size);
/** Frees the world and everything it owns (NULL is allowed). */
CTN_API void ctn_world_destroy(ctn_world *world);

/** The message of the latest call on this world: what failed and why, naming the field and value; ""
 *  after a call that succeeded. Every function that takes a non-const world sets or clears it; the
 *  read-only queries on a const world (ctn_world_get_desc, ctn_world_get_stats, ...) leave it as it is.
 *  After a call refused with CTN_ERR_BUSY it is the refusal, on the refused thread only ("Threads"). */
CTN_API const char *ctn_world_last_error(const ctn_world *world);

/** Changes solver settings (solver, iterations, substeps, time step, stabilisation, gravity, ...) of a
 * live world. The backend and device fields must equal the world's. */
CTN_API ctn_status ctn_world_set_desc(ctn_world *world, const ctn_world_desc *desc);
/** The world's current settings (desc.device points into the world). */
CTN_API ctn_status ctn_world_get_desc(const ctn_world *world, ctn_world_desc *out);

/* ---- bodies ------------------------------------------------------------------------------------ */

/** Handles. Bodies and joints (contacts included) are named by generation-checked handles, after Box2D
 * v3's b2BodyId (Catto): small structs passed by value, one type for bodies and another for joints, so that
 * a joint handle given where a body is expected does not compile. A handle holds
 *   - index1: the slot index + 1 (0 in the null handle, so a zero-initialised handle is null;
 *     -1 in CTN_WORLD, the fixed world frame);
 *   - world0: the tag of the world that made it (1..65535, unique among the live worlds of the process,
 *     and a destroyed world's tag is reused only after the other 65534 were handed out);
 *   - generation: the slot's generation modulo 65536.
 * Removing a body or joint frees its slot and increments the slot's generation; the next add reuses the
 * slot (the last freed first), so a world that adds and removes contacts every step keeps its index range
 * at the most it ever held at once. A handle whose generation no longer matches its slot (its body or
 * joint was removed) is rejected with CTN_ERR_NOT_FOUND, as are out-of-range handles; the null handle and
 * a handle of another world are rejected with CTN_ERR_INVALID_ARGUMENT, naming the handle (as
 * ctn_body_id_to_int prints it) and both world tags. As in Box2D, a handle stale by exactly a multiple of
 * 65536 removals of its slot is taken for the current occupant.
 * A slot's first occupant has generation 0. Scene generators and scene files always take fresh slots at
 * the end, so the bodies they add have consecutive indices and generation 0: the k-th body after `first`
 * is ctn_body_id_offset(first, k).
 *
 * Printing and storing: ctn_body_id_to_u64 / ctn_body_id_from_u64 keep all three fields (b2StoreBodyId);
 * ctn_body_id_to_int gives the world-free integer `generation << 32 | index` (CTN_WORLD: -1, null: -2)
 * that the CLI, the VTK files and the Python package show, and ctn_body_id_from_int reads it back for a
 * given world. The same functions exist for joints. */
typedef struct ctn_body_id {
    int32_t index1;      /**< slot index + 1; 0: the null handle; -1: CTN_WORLD */
    uint16_t world0;     /**< tag of the world the handle belongs to (0 in the null handle and CTN_WORLD) */
    uint16_t generation; /**< the slot's generation modulo 65536 */
} ctn_body_id;

/** A joint or contact handle (the same fields as ctn_body_id, a distinct type). */
typedef struct ctn_joint_id {
    int32_t index1;      /**< slot index + 1; 0: the null handle */
    uint16_t world0;     /**< tag of the world the handle belongs to */
    uint16_t generation; /**< the slot's generation modulo 65536 */
} ctn_joint_id;

/** A compound literal of type T in C, a braced temporary in C++ (for the constants below). */
#ifdef __cplusplus
#define CTN__LITERAL(T) T
#else
#define CTN__LITERAL(T) (T)
#endif
#define CTN_NULL_BODY (CTN__LITERAL(ctn_body_id){0, 0, 0})   /**< the null body handle (all zero) */
#define CTN_NULL_JOINT (CTN__LITERAL(ctn_joint_id){0, 0, 0}) /**< the null joint handle (all zero) */
#define CTN_WORLD (CTN__LITERAL(ctn_body_id){-1, 0, 0})      /**< the fixed world frame, usable as a joint's body_b */

/** Whether a handle is the null handle (index1 == 0; a zero-initialised handle is). */
static inline int ctn_body_is_null(ctn_body_id id) { return id.index1 == 0; }
static inline int ctn_joint_is_null(ctn_joint_id id) { return id.index1 == 0; }
/** Whether a body handle is CTN_WORLD. */
static inline int ctn_body_is_world(ctn_body_id id) { return id.index1 == -1; }
/** Whether two handles name the same body / joint (all three fields equal). */
static inline int ctn_body_id_equal(ctn_body_id a, ctn_body_id b) {
    return a.index1 == b.index1 && a.world0 == b.world0 && a.generation == b.generation;
}
static inline int ctn_joint_id_equal(ctn_joint_id a, ctn_joint_id b) {
    return a.index1 == b.index1 && a.world0 == b.world0 && a.generation == b.generation;
}
/** The slot index of a handle (-1 for null, -2 for CTN_WORLD) and its generation. */
static inline int32_t ctn_body_index(ctn_body_id id) { return id.index1 - 1; }
static inline int32_t ctn_joint_index(ctn_joint_id id) { return id.index1 - 1; }
static inline int32_t ctn_body_generation(ctn_body_id id) { return id.generation; }
static inline int32_t ctn_joint_generation(ctn_joint_id id) { return id.generation; }
/** The handle `k` slots after `first`, same world and generation 0: the k-th body (joint) a scene generator
 *  or scene file added after `first` (they take fresh slots, "Handles" above). */
static inline ctn_body_id ctn_body_id_offset(ctn_body_id first, int32_t k) {
    ctn_body_id id = first;
    id.index1 += k;
    id.generation = 0;
    return id;
}
static inline ctn_joint_id ctn_joint_id_offset(ctn_joint_id first, int32_t k) {
    ctn_joint_id id = first;
    id.index1 += k;
    id.generation = 0;
    return id;
}
/** A handle as one 64-bit number and back, all fields kept (bits 0-31 index1, 32-47 world0, 48-63
 *  generation), to store it or use it as a key (Box2D's b2StoreBodyId / b2LoadBodyId). */
static inline uint64_t ctn_body_id_to_u64(ctn_body_id id) {
    return (uint64_t)(uint32_t)id.index1 | (uint64_t)id.world0 << 32 | (uint64_t)id.generation << 48;
}
static inline ctn_body_id ctn_body_id_from_u64(uint64_t v) {
    ctn_body_id id;
    id.index1 = (int32_t)(uint32_t)(v & 0xffffffffu);
    id.world0 = (uint16_t)(v >> 32);
    id.generation = (uint16_t)(v >> 48);
    return id;
}
static inline uint64_t ctn_joint_id_to_u64(ctn_joint_id id) {
    return (uint64_t)(uint32_t)id.index1 | (uint64_t)id.world0 << 32 | (uint64_t)id.generation << 48;
}
static inline ctn_joint_id ctn_joint_id_from_u64(uint64_t v) {
    ctn_joint_id id;
    id.index1 = (int32_t)(uint32_t)(v & 0xffffffffu);
    id.world0 = (uint16_t)(v >> 32);
    id.generation = (uint16_t)(v >> 48);
    return id;
}
/** A handle as the world-free integer `generation << 32 | index` (CTN_WORLD -1, the null handle -2): how
 *  the CLI, the VTK files and the Python package show handles, and what `%lld` prints. */
static inline int64_t ctn_body_id_to_int(ctn_body_id id) {
    return id.index1 > 0 ? (int64_t)((uint64_t)id.generation << 32 | (uint32_t)(id.index1 - 1)) : id.index1 == 0 ? -2 : -1;
}
static inline int64_t ctn_joint_id_to_int(ctn_joint_id id) {
    return id.index1 > 0 ? (int64_t)((uint64_t)id.generation << 32 | (uint32_t)(id.index1 - 1)) : id.index1 == 0 ? -2 : -1;
}

/** The handle of `world` that ctn_body_id_to_int gave `value` (-1: CTN_WORLD; -2 or a value that is no
 *  handle, index beyond 2^31 - 2 or generation beyond 65535: the null handle). It does not check that the
 *  body is alive (ctn_body_is_valid does). */
CTN_API ctn_body_id ctn_body_id_from_int(const ctn_world *world, int64_t value);
/** The joint handle of `world` that ctn_joint_id_to_int gave `value` (the null handle for one that is none). */
CTN_API ctn_joint_id ctn_joint_id_from_int(const ctn_world *world, int64_t value);
/** The handle with the slot and generation of `id` in `world` (CTN_WORLD and the null handle unchanged): a
 *  world loaded from a checkpoint keeps every slot and generation of the saved one, and twins built by the
 *  same calls agree, so ctn_body_id_in(loaded, h) names in `loaded` the body h named in the saved world.
 *  It does not check that the body is alive. */
CTN_API ctn_body_id ctn_body_id_in(const ctn_world *world, ctn_body_id id);
/** The same for a joint or contact handle. */
CTN_API ctn_joint_id ctn_joint_id_in(const ctn_world *world, ctn_joint_id id);
/** Whether `id` names a live body of `world` (CTN_WORLD: no). Const and side-effect free. */
CTN_API int ctn_body_is_valid(const ctn_world *world, ctn_body_id id);
/** Whether `id` names a live joint or contact of `world`. Const and side-effect free. */
CTN_API int ctn_joint_is_valid(const ctn_world *world, ctn_joint_id id);
/** The tag (1..65535) that the handles of `world` carry in world0. */
CTN_API int ctn_world_tag(const ctn_world *world);

/** How a body moves. */
typedef enum ctn_body_type {
    CTN_BODY_DYNAMIC = 0, /**< moved by gravity, forces, joints and contacts */
    CTN_BODY_STATIC,    /**< never moves */
    CTN_BODY_KINEMATIC  /**< moves with its set velocity, unaffected by forces and joints */
} ctn_body_type;

/** A body to add; start from ctn_body_desc_default(). */
typedef struct ctn_body_desc {
    ctn_body_type type;        /**< default CTN_BODY_DYNAMIC */
    int particle;              /**< non-zero: 3-DOF point mass (no orientation) */
    double mass;               /**< kg, > 0 for dynamic bodies; default 1 */
    double inertia[3];         /**< principal moments in the body frame, kg m^2, > 0 for rigid dynamic bodies */
    double position[3];        /**< m; kept as two floats (hi + lo, ~2^-48 relative: 4e-12 m at 1e4 m) */
    double orientation[4];     /**< (w, x, y, z), normalised on input; default identity */
    double velocity[3];        /**< m/s */
    double angular_velocity[3];/**< rad/s, world frame */
} ctn_body_desc;

/** A dynamic rigid body of 1 kg and unit inertia at rest at the origin. */
CTN_API ctn_body_desc ctn_body_desc_default(void);

/** Inertia of common shapes about their centre (principal axes = body axes). */
CTN_API void ctn_inertia_box(double mass, const double half_extents[3], double out[3]);
/** Principal moments of a solid sphere: 2/5 m r^2 about each axis. */
CTN_API void ctn_inertia_sphere(double mass, double radius, double out[3]);
/** Principal moments of a solid capsule (a cylinder of half length `half_length` and two hemispheres)
 *  lying along body axis `axis` (0, 1 or 2). */
CTN_API void ctn_inertia_capsule(double mass, double radius, double half_length, int axis, double out[3]);

/** The moving state of a body. */
typedef struct ctn_body_state {
    double position[3];        /**< two-float precision (see ctn_body_desc); the other fields are float32 */
    double orientation[4];     /**< (w, x, y, z), body to world */
    double velocity[3];        /**< m/s */
    double angular_velocity[3];/**< rad/s, world frame */
} ctn_body_state;

/** Adds a body; *out (may be NULL) receives its handle. */
CTN_API ctn_status ctn_body_add(ctn_world *world, const ctn_body_desc *desc, ctn_body_id *out);
/** Fails with CTN_ERR_IN_USE, changing nothing, while a joint or user contact references the body; its
 * shape and its built-in contacts go with it. */
CTN_API ctn_status ctn_body_remove(ctn_world *world, ctn_body_id body);
/** The body's position, orientation and velocities. */
CTN_API ctn_status ctn_body_get_state(ctn_world *world, ctn_body_id body, ctn_body_state *out);
/** Sets the body's position, orientation and velocities (a static body keeps zero velocity; a particle
 *  keeps the identity orientation). */
CTN_API ctn_status ctn_body_set_state(ctn_world *world, ctn_body_id body, const ctn_body_state *state);
/** A force (N) and torque (N m), world frame, applied at the centre of mass until changed. */
CTN_API ctn_status ctn_body_set_force(ctn_world *world, ctn_body_id body, const double force[3], const double torque[3]);
/** Number of live bodies. */
CTN_API int32_t ctn_world_body_count(const ctn_world *world);

/** The body as a description: type, particle flag, mass (kg; 0 for static and kinematic bodies), principal
 *  moments of inertia (kg m^2; 0 for particles and non-dynamic bodies) and the current state, so that
 *  ctn_body_add(other_world, out) makes the same body. */
CTN_API ctn_status ctn_body_get_desc(ctn_world *world, ctn_body_id body, ctn_body_desc *out);
/** The force (N) and torque (N m) set with ctn_body_set_force (zero when none). */
CTN_API ctn_status ctn_body_get_force(ctn_world *world, ctn_body_id body, double force[3], double torque[3]);

/** Names a body (at most 255 bytes; NULL or "" removes the name). Scene files name their bodies with
 *  `"name"`. Names need not be unique; ctn_body_find returns the first. */
CTN_API ctn_status ctn_body_set_name(ctn_world *world, ctn_body_id body, const char *name);
/** The body's name ("" when it has none); valid until the name changes or the body is removed. */
CTN_API ctn_status ctn_body_get_name(ctn_world *world, ctn_body_id body, const char **name);
/** The live body named `name` (the lowest id when several are); CTN_ERR_NOT_FOUND when none is. A scan of
 *  the bodies: look names up once, keep the ids. */
CTN_API ctn_status ctn_body_find(ctn_world *world, const char *name, ctn_body_id *out);

/** Bulk read of all positions (3 doubles per body slot index, 0..count-1; free slots read as 0).
 * `count` is the number of slots the buffer holds; *written gets the number written. */
CTN_API ctn_status ctn_world_get_positions(ctn_world *world, double *xyz, int32_t count, int32_t *written);

/** Bulk access to one state field of every body (host/core/bulk.c), for bindings and exporters: row i of
 * the buffer (ctn_body_field_width doubles) is the body in slot index i (ctn_handle_index of its handle),
 * for slots 0..count-1; in a world where nothing was removed, row i is handle i. */
typedef enum ctn_body_field {
    CTN_BODY_POSITION = 0,     /**< 3 doubles, m */
    CTN_BODY_ORIENTATION,      /**< 4 doubles, (w, x, y, z); normalised on write */
    CTN_BODY_VELOCITY,         /**< 3 doubles, m/s */
    CTN_BODY_ANGULAR_VELOCITY  /**< 3 doubles, rad/s, world frame */
} ctn_body_field;

/** Doubles per body of a field (3 or 4; 0 for a value that is not a ctn_body_field). */
CTN_API int32_t ctn_body_field_width(ctn_body_field field);
/** Reads rows 0..min(count, slots)-1 (ctn_world_id_counts); free slots read as zeros. *written (may be NULL) gets the rows. */
CTN_API ctn_status ctn_world_get_body_field(ctn_world *world, ctn_body_field field, double *out, int32_t count, int32_t *written);
/** Writes rows 0..count-1 (count <= slots) with the rules of ctn_body_set_state (static bodies keep zero
 * velocity, particles keep the identity orientation); rows of free slots are ignored. Every row is checked
 * first: a non-finite value or a zero quaternion fails naming the row and leaves the world unchanged. */
CTN_API ctn_status ctn_world_set_body_field(ctn_world *world, ctn_body_field field, const double *in, int32_t count);
/** Position error (m) and angular error (rad) of the joint in each slot 0..min(count, slots)-1 in the
 * current state, the per-joint values whose maxima are ctn_step_stats.max_joint_gap / max_angle and
 * ctn_world_measure's; free slots, springs and contacts read as 0 (a contact's penetration is no joint error:
 * ctn_world_get_contact_depths reads it). gap or angle may be NULL (not both). */
CTN_API ctn_status ctn_world_get_joint_errors(ctn_world *world, double *gap, double *angle, int32_t count, int32_t *written);
/** Penetration depth (m, >= 0; 0 for a separated contact) of the contact in each slot 0..min(count,
 * slots)-1 in the current state, the per-slot values whose maximum is ctn_step_stats.max_penetration and
 * ctn_world_measure_contacts'; every other slot (joints, springs, free slots) reads as 0. */
CTN_API ctn_status ctn_world_get_contact_depths(ctn_world *world, double *depth, int32_t count, int32_t *written);

/* ---- joints ------------------------------------------------------------------------------------ */


/** The kinds of joint. */
typedef enum ctn_joint_type {
    CTN_JOINT_DISTANCE = 0, /**< 1 row: |p_a - p_b| = rest_length (body_b may be CTN_WORLD) */
    CTN_JOINT_BALL,         /**< 3 rows: p_a = p_b (spherical; with CTN_WORLD a pin) */
    CTN_JOINT_HINGE,        /**< 5 rows: ball + axis_a parallel to axis_b */
    CTN_JOINT_FIXED,        /**< 6 rows: ball + relative orientation locked */
    CTN_JOINT_SPRING,       /**< 0 rows: axial spring-damper force element (1 compliant row when implicit) */
    CTN_JOINT_CONTACT,      /**< 3 rows: normal (lambda_n >= 0) + 2 friction rows (|lambda_t| <= mu lambda_n);
                               created with ctn_contact_add or by the built-in collision detection, never by
                               ctn_joint_add */
    CTN_JOINT_PRISMATIC,    /**< 5 rows: slider, body a moves relative to body b along `axis` only (2 rows
                               across the axis, 3 locking the relative orientation); 6 with a limit or motor */
    CTN_JOINT_UNIVERSAL,    /**< 4 rows: cardan (Hooke) joint, ball + the cross axis `axis` (fixed in body a) kept
                               perpendicular to `axis2` (fixed in body b); transmits rotation about the axis
                               across both */
    CTN_JOINT_CONE_TWIST,   /**< 3 rows: ball; plus one unilateral row for the swing cone
                               (ctn_joint_set_swing_limit: angle between the twist axes, `axis` seen from each
                               body, <= swing) and one for the twist limits (ctn_joint_set_limits: twist angle
                               about the axis within [lower, upper]); the ragdoll joint */
    CTN_JOINT_CURVE,        /**< 2 rows: a point of body a on a curve (line, circle, helix, polyline) fixed in
                               body b's frame; added with ctn_curve_constraint_add, never by ctn_joint_add */
    CTN_JOINT_GEAR,         /**< 1 row: the turns of body_a about `axis` and of body_b about `axis2` keep
                               theta_a + ratio theta_b constant, i.e. w_a . axis + ratio w_b . axis2 = 0 (with
                               parallel axes a positive ratio turns them opposite ways, as two meshing spur gears
                               with ratio = teeth_b / teeth_a); both bodies hinged at their centres to the world or
                               to one base (the row acts on the two gears only): ctn_joint_add refuses a gear
                               whose bodies have no hinge yet */
    CTN_JOINT_RACK_PINION,  /**< 1 row: body_b (the rack) travels `ratio` metres along `axis2` relative to body_a
                               (the pinion) per radian body_a turns about `axis` (ratio = the pinion's pitch
                               radius); axis2 perpendicular to axis; the pinion hinged, the rack on a slider
                               (ctn_joint_add refuses it before both exist) */
    CTN_JOINT_PLANAR        /**< 3 rows: the two anchors stay in one plane across `axis` (its normal, seen from
                               both bodies, kept parallel): body a slides in the plane and turns about `axis`
                               only, relative to body b; two translations and one rotation free (URDF's planar
                               joint); ctn_joint_get_angle reads the turn */
} ctn_joint_type;

/** A joint to add; start from ctn_joint_desc_default(). */
typedef struct ctn_joint_desc {
    ctn_joint_type type;     /**< not CTN_JOINT_CONTACT (see ctn_contact_add) */
    ctn_body_id body_a;      /**< a body (never CTN_WORLD) */
    ctn_body_id body_b;      /**< or CTN_WORLD */
    double anchor_a[3];      /**< body-a frame */
    double anchor_b[3];      /**< body-b frame, or world frame for CTN_WORLD */
    double axis[3];          /**< hinge, slider or cone-twist (twist) axis, universal cross axis of body a; world
                                  frame at creation */
    double rest_length;      /**< distance and spring; < 0: the current anchor distance */
    double stiffness;        /**< spring, N/m */
    double damping;          /**< spring, N s/m */
    double compliance;       /**< SPOOK epsilon; < 0: the world default */
    double damping_time;     /**< SPOOK tau; < 0: the world default */
    int implicit;            /**< spring: 0 = an explicit force (exact for soft springs, stable only while
                                  h < 2 sqrt(m/k)); 1 = a compliant distance row, SPOOK compliance 1/k and
                                  damping time c/k (stable at any stiffness; needs stiffness > 0 and a rest
                                  length >= 1e-6 m; compliance and damping_time are then ignored) */
    double axis2[3];         /**< universal: the cross axis of body b, world frame at creation, perpendicular to
                                  `axis` (within 1e-3 of 90 degrees; made exact); gear: body b's axis; rack-and-pinion:
                                  the rack's axis, perpendicular to `axis` (as universal's); default +x */
    double ratio;            /**< gear: theta_a + ratio theta_b = const; rack-and-pinion: rack travel (m) per radian
                                  of the pinion; finite and non-zero; default 1 */
    int relative;            /**< rack-and-pinion: 1 = pinion and rack on one base that may move (the pinion hinged
                                  and the rack sliding on the same body): the pinion's turn is measured relative to
                                  the rack and the rack's travel at the point anchor_a on the pinion's axis (body-a
                                  frame), exact however the base moves; 0 (default) = the pinion's turn in the world
                                  and the travel at its centre of mass (exact on the fixed world) */
} ctn_joint_desc;

/** A joint of `type` from body 0 to the world: zero anchors, axis +z, and rest length (-1), compliance and
 *  damping time (-1) taken from the current anchor distance and the world when the joint is added. */
CTN_API ctn_joint_desc ctn_joint_desc_default(ctn_joint_type type);

/** Fills anchor_a / anchor_b so that both anchors sit at the world point `pivot` in the bodies' current
 * poses (and sets `axis` when axis is not NULL). */
CTN_API ctn_status ctn_joint_desc_set_pivot(ctn_world *world, ctn_joint_desc *desc, const double pivot[3], const double axis[3]);

/** Adds a joint (not a contact: see ctn_contact_add); *out (may be NULL) receives its handle.
 *  CTN_ERR_UNSUPPORTED for a gear or rack-and-pinion on an attached body or a master (ctn_attach_point). */
CTN_API ctn_status ctn_joint_add(ctn_world *world, const ctn_joint_desc *desc, ctn_joint_id *out);
/** Removes a joint or a user contact; contacts of the built-in collision detection are refused (it removes
 * them itself when they vanish). */
CTN_API ctn_status ctn_joint_remove(ctn_world *world, ctn_joint_id joint);
/** Number of live joints, springs included. */
CTN_API int32_t ctn_world_joint_count(const ctn_world *world);

/** Impulses (N s) of the joint's rows in the last substep; `rows` receives the row count (<= 6). */
CTN_API ctn_status ctn_joint_get_impulse(ctn_world *world, ctn_joint_id joint, double impulse[6], int32_t *rows);

/** Force (N) and torque (N m, about body a's centre of mass), world frame, that the joint applied to
 *  body a in the last substep of the last step: the row impulses lambda over the substep length h,
 *  f = J_a^T lambda / h, with the rows linearised at the current pose. Body b receives -force at its
 *  anchor. A hanging mass m on a pin reads force = (0, m g, 0). Springs report their spring-damper force
 *  at the current state. Zero before the first step and after a change of the joints until the next one.
 *  The last substep is not the step's mean where a load changes within the step (a rest length shortened
 *  every step is taken up in the first substeps and braked in the last). */
CTN_API ctn_status ctn_joint_get_force(ctn_world *world, ctn_joint_id joint, double force[3], double torque[3]);
/** ctn_joint_get_force for every joint at once, by slot index as ctn_world_get_positions: row i (6
 *  doubles: force xyz, torque xyz) is the joint in slot i (ctn_handle_index of its handle), for slots
 *  0..count-1; free slots read as zeros. *written (may be NULL) gets the number of rows written. */
CTN_API ctn_status ctn_world_get_joint_forces(ctn_world *world, double *force_torque, int32_t count, int32_t *written);

/** The joint as a description: bodies, anchors (body frames), axis (hinge: world frame at the current
 *  pose), rest length, spring stiffness and damping, and the compliance and damping time in effect. */
CTN_API ctn_status ctn_joint_get_desc(ctn_world *world, ctn_joint_id joint, ctn_joint_desc *out);
/** Names a joint (at most 255 bytes; NULL or "" removes the name), as ctn_body_set_name does a body; URDF
 *  joints keep their names. The name goes with the joint when it is removed. */
CTN_API ctn_status ctn_joint_set_name(ctn_world *world, ctn_joint_id joint, const char *name);
/** The joint's name ("" when it has none); valid until the name changes or the joint is removed. */
CTN_API ctn_status ctn_joint_get_name(ctn_world *world, ctn_joint_id joint, const char **name);
/** The live joint named `name` (the lowest id when several are); CTN_ERR_NOT_FOUND when none is. A scan of
 *  the joints: look names up once, keep the ids. */
CTN_API ctn_status ctn_joint_find(ctn_world *world, const char *name, ctn_joint_id *out);
/** Changes the rest length (m, finite; >= 1e-6 for distance joints, >= 0 for springs) of a distance or spring joint: a winch or a reeling cable
 *  shortens it step by step. Takes effect at the next step (the solver layout is refreshed). */
CTN_API ctn_status ctn_joint_set_rest_length(ctn_world *world, ctn_joint_id joint, double rest_length);

/* ---- attachments (host/core/attach.c) ----------------------------------------------------------- */

/** Welds a dynamic body (a particle or a rigid body) to a master body by eliminating its degrees of freedom
 *  instead of adding constraint rows (Lloyd 2012, "attachments"; docs/design.md): its velocity becomes
 *  v = v_m + w_m x r, every joint and contact on it acts on the master at the same point, and its mass is
 *  added to the master's. A dynamic master is stepped as the composite rigid body (mass, centre of mass
 *  and inertia of master plus attached bodies, exact for any offset); a static or kinematic master carries
 *  the body along. The attached body keeps its handle; after every step its state is derived from the
 *  master (ctn_body_get_state returns it; writes to it are overwritten by the next step). Joints between
 *  the body and its master carry no rows while it is attached.
 *  `local_point`: where the body's centre of mass sits in the master's body frame (the body is moved there
 *  at once, with the master's velocity at that point); NULL keeps it where it is. Its orientation relative
 *  to the master is kept as it is now.
 *  Errors (CTN_ERR_INVALID_ARGUMENT unless said, the world unchanged): `master` CTN_WORLD (attach to a static
 *  body to weld to the world), body == master, a non-dynamic body, a particle master, a body already
 *  attached, a master that is itself attached or a body that carries attached bodies (no chains), a
 *  non-finite point; CTN_ERR_NOT_FOUND for removed or stale handles; CTN_ERR_UNSUPPORTED when either body has
 *  a curve constraint, a gear or a rack-and-pinion (ctn_joint_add refuses those on attached bodies and masters). A user force on the body or its master acts on the composite at its centre of
 *  mass, with the torque of its lever arm taken at the start of each step. ctn_world_assemble refuses
 *  worlds with attachments. */
CTN_API ctn_status ctn_attach_point(ctn_world *world, ctn_body_id body, ctn_body_id master, const double local_point[3]);
/** Detaches `body`: it moves on independently with the velocity of its point of the master, and the master
 *  gets its own mass back. CTN_ERR_INVALID_ARGUMENT when the body is not attached. Removing an attached body
 *  (ctn_body_remove) detaches it first; removing a master fails with CTN_ERR_IN_USE while bodies are
 *  attached to it. */
CTN_API ctn_status ctn_attach_remove(ctn_world *world, ctn_body_id body);
/** The master of `body` (CTN_WORLD when it is not attached) and, when local_point is not NULL, its point in
 *  the master's frame (zeros when not attached). */
CTN_API ctn_status ctn_attach_get(ctn_world *world, ctn_body_id body, ctn_body_id *master, double local_point[3]);
/** Number of attached bodies. */
CTN_API int32_t ctn_world_attachment_count(const ctn_world *world);

/* ---- joint limits, motors, ropes ------------------------------------------------------- */

/** Hinge angle limits lower <= theta <= upper (rad, within [-pi, pi]; theta = 0 in the pose at creation,
 * positive when body_a turns about +axis relative to body_b). Adds a sixth, unilateral row about the hinge
 * axis guarding the nearer limit. enabled = 0 removes the limits.
 * Prismatic: position limits lower <= s <= upper (m, finite; s = ctn_joint_get_translation), a unilateral
 * row along the axis. Cone-twist: twist limits lower <= theta <= upper (rad, within [-pi, pi]; theta =
 * ctn_joint_get_angle), a unilateral row about the twist axis. */
CTN_API ctn_status ctn_joint_set_limits(ctn_world *world, ctn_joint_id joint, int enabled, double lower, double upper);
/** Hinge velocity motor: drives d(theta)/dt towards `speed` (rad/s) with at most `max_torque` (N m, >= 0).
 * With limits too, the limit row replaces the motor row in every substep in which the limit is reached
 * (a hinge has at most 6 rows). enabled = 0 removes the motor.
 * Prismatic: drives ds/dt towards `speed` (m/s) with a force of at most `max_torque` (read: max force, N),
 * sharing the limit row the same way. */
CTN_API ctn_status ctn_joint_set_motor(ctn_world *world, ctn_joint_id joint, int enabled, double speed, double max_torque);
/** Cone-twist swing cone: the angle between the twist axes of the two bodies stays <= swing (rad, within
 * [0, pi]; 0 in the pose at creation), a unilateral row about their common normal. enabled = 0 removes it. */
CTN_API ctn_status ctn_joint_set_swing_limit(ctn_world *world, ctn_joint_id joint, int enabled, double swing);
/** The cone as set with ctn_joint_set_swing_limit (*enabled 0: none; swing then 0). */
CTN_API ctn_status ctn_joint_get_swing_limit(ctn_world *world, ctn_joint_id joint, int *enabled, double *swing);
/** Swing angle (rad, [0, pi]) of a cone-twist: the angle between the twist axis seen from body a and from
 * body b. Universal: the angle between the two cross axes (pi/2 while the joint holds). */
CTN_API ctn_status ctn_joint_get_swing(ctn_world *world, ctn_joint_id joint, double *angle);
/** Slider position s (m) of a prismatic joint: the separation of the anchors along the axis, 0 where they
 * coincide, positive when body_a has moved along +axis relative to body_b. */
CTN_API ctn_status ctn_joint_get_translation(ctn_world *world, ctn_joint_id joint, double *position);
/** Distance joint as a rope: resists stretching beyond rest_length only (its impulse can only pull). */
CTN_API ctn_status ctn_joint_set_rope(ctn_world *world, ctn_joint_id joint, int enabled);
/** Current hinge angle theta (rad); cone-twist: the twist angle about the twist axis (the swing-twist
 * decomposition, twist after swing). */
CTN_API ctn_status ctn_joint_get_angle(ctn_world *world, ctn_joint_id joint, double *angle);
/** The hinge, slider or twist limits as set with ctn_joint_set_limits (*enabled 0: none; bounds then 0). */
CTN_API ctn_status ctn_joint_get_limits(ctn_world *world, ctn_joint_id joint, int *enabled, double *lower, double *upper);
/** The hinge or slider motor as set with ctn_joint_set_motor (*enabled 0: none; speed and torque then 0). */
CTN_API ctn_status ctn_joint_get_motor(ctn_world *world, ctn_joint_id joint, int *enabled, double *speed, double *max_torque);
/** Whether a distance joint is a rope (ctn_joint_set_rope). */
CTN_API ctn_status ctn_joint_get_rope(ctn_world *world, ctn_joint_id joint, int *enabled);

/* ---- curve constraints ("bead on a wire") --------------------------------------------- */

/** Kinds of curve for ctn_curve_constraint_add. */
typedef enum ctn_curve_type {
    CTN_CURVE_LINE = 0, /**< through `origin` along `axis` (unbounded) */
    CTN_CURVE_CIRCLE,   /**< centre `origin`, normal `axis`, `radius`; parameter 0 at `reference` */
    CTN_CURVE_HELIX,    /**< c(t) = origin + radius (cos t e1 + sin t e2) + pitch t / (2 pi) axis, e1 = `reference`,
                             e2 = axis x e1: turns counter-clockwise about `axis` while rising `pitch` per turn
                             (unbounded both ways) */
    CTN_CURVE_POLYLINE  /**< straight segments between `count` vertices `points` (closed: back to the first); the
                             end segments of an open polyline continue as straight lines */
} ctn_curve_type;

/** How a curve constraint feeds back its error. */
typedef enum ctn_curve_stabilization {
    CTN_CURVE_STAB_VELOCITY = 0, /**< velocity-level rows with the world's stabilisation (SPOOK, with the joint's
                                      compliance and damping time, or Baumgarte) as every other joint */
    CTN_CURVE_STAB_ACCELERATION  /**< acceleration-level rows of Witkin and Baraff: J a = -Jdot qdot - k_s C - k_d Cdot
                                      (gains `ks`, `kd`); in a world with Baumgarte stabilisation the rows are
                                      Baumgarte's */
} ctn_curve_stabilization;

/** A point of body `body` constrained to a curve fixed in the frame of body `frame` (CTN_WORLD: the world);
 *  start from ctn_curve_desc_default(). Two rows, across the tangent at the point of the curve closest to
 *  the bead, which is found again at every substep; the bead slides freely along the curve. Geometry is in
 *  the frame of `frame` (the world frame for CTN_WORLD). */
typedef struct ctn_curve_desc {
    ctn_curve_type type;      /**< default CTN_CURVE_LINE */
    ctn_body_id body;         /**< the bead's body (never CTN_WORLD); default 0 */
    double anchor[3];         /**< the bead point in the body's frame (ignored for particles); default 0 */
    ctn_body_id frame;        /**< CTN_WORLD (default) or the body the curve is fixed to */
    double origin[3];         /**< line: a point on it; circle, helix: the centre (helix: of its t = 0 turn) */
    double axis[3];           /**< line: direction; circle, helix: axis (normalised); default +z */
    double reference[3];      /**< circle, helix: direction of t = 0 (made perpendicular to axis); zero: automatic */
    double radius;            /**< circle, helix: > 0 (m); default 1 */
    double pitch;             /**< helix: rise per turn along axis (m), finite, may be 0 or negative; default 0 */
    const double *points;     /**< polyline: count x 3 vertices, copied by the world (ctn_curve_constraint_get
                                   points it into the world's copy) */
    int32_t count;                /**< polyline: vertex count, >= 2 (>= 3 when closed), at most CTN_CURVE_MAX_POINTS */
    int closed;               /**< polyline: non-zero joins the last vertex back to the first */
    double compliance;        /**< SPOOK epsilon; < 0 (default): the world default */
    double damping_time;      /**< SPOOK tau; < 0 (default): the world default */
    ctn_curve_stabilization stabilization; /**< default CTN_CURVE_STAB_VELOCITY */
    double ks;                /**< acceleration form: position gain (1/s^2, >= 0); default 400 */
    double kd;                /**< acceleration form: velocity gain (1/s, >= 0); default 40 (critical damping) */
} ctn_curve_desc;

#define CTN_CURVE_MAX_POINTS 10000000 /**< most vertices of one polyline */

/** A line along +z through the origin for body 0 in the world frame. */
CTN_API ctn_curve_desc ctn_curve_desc_default(ctn_curve_type type);
/** Adds a curve constraint (a joint of type CTN_JOINT_CURVE, removed with ctn_joint_remove); *out (may be
 *  NULL) receives its handle. Bad input (zero radius, an empty polyline, a zero axis, ...) fails with
 *  CTN_ERR_INVALID_ARGUMENT naming the field and value, and the world is unchanged. */
CTN_API ctn_status ctn_curve_constraint_add(ctn_world *world, const ctn_curve_desc *desc, ctn_joint_id *out);
/** The curve constraint as a description; a polyline's `points` point into the world (valid until the joint
 *  is removed). CTN_ERR_INVALID_ARGUMENT for a joint that is not a curve constraint. */
CTN_API ctn_status ctn_curve_constraint_get(ctn_world *world, ctn_joint_id joint, ctn_curve_desc *out);
/** The curve parameter of the bead's closest point in the current state: the arc length along a line (from
 *  `origin`), the angle t (rad) of a circle or helix, and for a polyline the segment index plus the
 *  fraction along it (2.25: a quarter of the way from vertex 2 to 3). */
CTN_API ctn_status ctn_curve_constraint_parameter(ctn_world *world, ctn_joint_id joint, double *t);

/* ---- contacts ------------------------------------------------------------------------- */

/** A contact point supplied by the caller's own collision pipeline. Impulse rows: 0 normal (>= 0, pushes
 * body_a along +normal), 1-2 friction. */
typedef struct ctn_contact_desc {
    ctn_body_id body_a;      /**< a body (never CTN_WORLD) */
    ctn_body_id body_b;      /**< or CTN_WORLD */
    double point[3];         /**< world contact point (midway between the two surfaces) */
    double normal[3];        /**< world normal pointing from body_b to body_a (normalised on input) */
    double depth;            /**< penetration (m) along the normal; < 0: separated by -depth (speculative) */
    double friction;         /**< Coulomb coefficient mu >= 0; default 0.5 */
    double restitution;      /**< in [0, 1]; default 0 */
} ctn_contact_desc;

/** A contact between body 0 and the world along +y, friction 0.5, no restitution. */
CTN_API ctn_contact_desc ctn_contact_desc_default(void);
/** Adds a contact joint (removed with ctn_joint_remove or ctn_contact_remove). It stays until removed; its
 * anchors move with the bodies, so the depth is re-evaluated every substep. */
CTN_API ctn_status ctn_contact_add(ctn_world *world, const ctn_contact_desc *desc, ctn_joint_id *out);
/** Moves an existing contact (same bodies) to a new point / normal / depth / material; the impulses of
 * the last step are kept for the warm start. */
CTN_API ctn_status ctn_contact_update(ctn_world *world, ctn_joint_id contact, const ctn_contact_desc *desc);
/** Removes a user contact (as ctn_joint_remove). */
CTN_API ctn_status ctn_contact_remove(ctn_world *world, ctn_joint_id contact);

/** Collision shapes for the built-in contact generation (host/collide/collide.c). Capsules lie along the body x
 * axis; boxes are centred on the body. Pairs: sphere-sphere, sphere-capsule, capsule-capsule, and
 * sphere / capsule / box against planes. */
typedef enum ctn_shape_type {
    CTN_SHAPE_NONE = 0,
    CTN_SHAPE_SPHERE,
    CTN_SHAPE_CAPSULE,
    CTN_SHAPE_BOX
} ctn_shape_type;

/** A collision shape; start from ctn_shape_desc_default(). */
typedef struct ctn_shape_desc {
    ctn_shape_type type;     /**< CTN_SHAPE_NONE removes the body's shape */
    double radius;           /**< sphere, capsule */
    double half_length;      /**< capsule: half the length of its segment (along body x) */
    double half_extents[3];  /**< box */
    double friction;         /**< default 0.5; a pair uses sqrt(mu_a mu_b) */
    double restitution;      /**< default 0; a pair uses the larger */
    int group;               /**< collision group, >= 0: bodies whose shapes share a nonzero group never collide
                                  with each other (a robot's own links); 0 = no group, the default */
    double offset[3];        /**< the shape's centre in the body frame (m), default 0: at the centre of mass */
    double rotation[4];      /**< the shape's axes in the body frame (w, x, y, z; normalised), default identity */
} ctn_shape_desc;

/** A shape of `type` with radius, half length and half extents 0.5 m, friction 0.5, no restitution, group 0,
 *  centred on the body with its axes along the body's (offset 0, rotation identity). */
CTN_API ctn_shape_desc ctn_shape_desc_default(ctn_shape_type type);
/** Attaches a shape to a body (replacing all of its shapes); CTN_SHAPE_NONE removes them. Particles take
 *  spheres only. */
CTN_API ctn_status ctn_body_set_shape(ctn_world *world, ctn_body_id body, const ctn_shape_desc *shape);
/** Maximum number of shapes on one body (a compound: each shape at its own offset and rotation). */
#define CTN_MAX_BODY_SHAPES 64
/** Adds one more shape to a body (a compound shape: every shape rides on the body at its offset and
 *  rotation, contacts of any of them act on the body, shapes of one body never collide with each other).
 *  *index (may be NULL) gets the shape's index on the body (0 for a body that had none). At most
 *  CTN_MAX_BODY_SHAPES per body (CTN_ERR_LIMIT); particles take one centred sphere. */
CTN_API ctn_status ctn_body_add_shape(ctn_world *world, ctn_body_id body, const ctn_shape_desc *shape, int32_t *index);
/** Removes shape `index` (0..count-1) of a body; the later shapes move down by one. */
CTN_API ctn_status ctn_body_remove_shape(ctn_world *world, ctn_body_id body, int32_t index);
/** Number of shapes on a body (0 when it has none). */
CTN_API ctn_status ctn_body_shape_count(ctn_world *world, ctn_body_id body, int32_t *count);
/** Shape `index` (0..count-1) of a body; index 0 is what ctn_body_get_shape returns. */
CTN_API ctn_status ctn_body_get_shape_at(ctn_world *world, ctn_body_id body, int32_t index, ctn_shape_desc *out);
/** Adds a static plane: the half-space normal . x <= offset is solid. *out (may be NULL) gets its index. */
CTN_API ctn_status ctn_world_add_plane(ctn_world *world, const double normal[3], double offset, double friction, double restitution,
                               int *out);

/** Settings of the built-in collision detection; start from ctn_collision_desc_default(). */
typedef struct ctn_collision_desc {
    int enabled;             /**< default 1 (contact generation runs when any shape or plane exists) */
    int skip_jointed;        /**< default 1: no contacts between two bodies joined by a joint (shapes sharing a
                                  nonzero ctn_shape_desc.group never collide, whatever this says) */
    double margin;           /**< speculative distance (m) added to the motion bound of one step; default 0.01 */
} ctn_collision_desc;

/** The default collision settings (enabled, no contacts between jointed bodies, margin 0.01 m). */
CTN_API ctn_collision_desc ctn_collision_desc_default(void);
/** Changes the collision settings. */
CTN_API ctn_status ctn_world_set_collision(ctn_world *world, const ctn_collision_desc *desc);
/** The collision settings (the defaults until ctn_world_set_collision is called). */
CTN_API ctn_status ctn_world_get_collision(ctn_world *world, ctn_collision_desc *out);
/** The body's (first) collision shape (type CTN_SHAPE_NONE when it has none). */
CTN_API ctn_status ctn_body_get_shape(ctn_world *world, ctn_body_id body, ctn_shape_desc *out);
/** Number of planes added with ctn_world_add_plane. */
CTN_API int32_t ctn_world_plane_count(const ctn_world *world);
/** Plane `index` (0..count-1): unit normal, offset, friction and restitution. */
CTN_API ctn_status ctn_world_get_plane(ctn_world *world, int32_t index, double normal[3], double *offset, double *friction, double *restitution);

/** A live contact joint (built-in or user supplied) as of the last step. */
typedef struct ctn_contact_info {
    ctn_joint_id joint;      /**< a contact keeps its handle while it persists from step to step */
    ctn_body_id body_a;      /**< the body the normal points to */
    ctn_body_id body_b;      /**< the other body, or CTN_WORLD (planes) */
    double point[3];         /**< midpoint of the two contact points */
    double normal[3];        /**< from b to a */
    double separation;       /**< signed gap (m), < 0: penetration */
    double impulse[3];       /**< normal, friction 1, friction 2 (N s) of the last substep */
    double friction;         /**< Coulomb coefficient of the pair */
    int user;                /**< non-zero: supplied through ctn_contact_add */
} ctn_contact_info;

/** Bodies with a collision shape and planes in the world. */
CTN_API ctn_status ctn_world_collision_counts(const ctn_world *world, int32_t *shapes, int32_t *planes);
/** Copies up to `capacity` live contacts into out (may be NULL with capacity 0); *count gets the total. */
CTN_API ctn_status ctn_world_get_contacts(ctn_world *world, ctn_contact_info *out, int32_t capacity, int32_t *count);

/* ---- stepping ---------------------------------------------------------------------------------- */

/** What the last step did and how long its phases took (milliseconds). */
typedef struct ctn_step_stats {
    int substeps;            /**< substeps of the step */
    int iterations;          /**< per substep: desc.iterations, or the direct solver's outer iterations where auto raised them (small mechanisms with bounded rows and no contacts) */
    int colours;             /**< colour count (overflow group not included) */
    int largest_colour;      /**< constraints in the largest colour */
    int overflow;            /**< constraints solved serially beyond the colour budget */
    int32_t rows;                /**< constraint rows */
    double residual;         /**< RMS of the row residual (m/s) at the last iteration */
    double max_gap;          /**< largest position error of any joint after the step (m), contacts included: the
                                  larger of max_joint_gap and max_penetration */
    double max_angle;        /**< largest joint angular error after the step (rad) */
    double ms_total;         /**< wall time of the step */
    double ms_colour;        /**< (re)colouring, when topology changed */
    double ms_prepare;       /**< row build: Jacobians, effective masses, right-hand sides */
    double ms_solve;         /**< warm start + iterations */
    double ms_integrate;     /**< forces, positions, orientations */
    double ms_transfer;      /**< host <-> device copies (OpenCL) */
    double row_updates;      /**< rows x iterations x substeps */
    double max_speed;        /**< largest linear or angular speed of a body after the step (m/s or rad/s) */
    double ms_collide;       /**< built-in contact generation: broad + narrow phase and matching */
    int32_t contacts;            /**< live contact joints in the step (built-in and user) */
    ctn_solver solver;       /**< the solver that ran the step (never CTN_SOLVER_AUTO) */
    int launches;            /**< OpenCL kernel launches in the step (0 on the CPU backend) */
    int blocking_reads;      /**< reads in the step that wait for the device (0 on the CPU backend) */
    char solver_reason[128]; /**< why `solver` ran: "set by desc.solver", or what CTN_SOLVER_AUTO saw, e.g.
                                  "auto: gs, the largest mass a joint supports is 10 times its body's (below 32)" */
    int threads;             /**< CPU threads the step's parallel loops ran on (ctn_world_desc.threads, else the
                                  CPUs of the process's affinity mask at the step's start; 1 in a build without
                                  OpenMP; 0 on the OpenCL backend) */
    ctn_integrator integrator; /**< the integrator that ran the step */
    char integrator_reason[128]; /**< why: "rattle: ..." or why the velocity step ran instead, e.g. "velocity:
                                      joint 3 has a limit or motor (bounded rows)" */
    int position_iterations; /**< RATTLE: chord iterations of the position stages of the step (each one row
                                  evaluation and one solve with the kept factor) */
    int rattle_substeps;     /**< RATTLE: substeps the step ran (more than `substeps` when a body turned fast) */
    int splits;              /**< RATTLE: substeps run as two halves because their chord iteration stalled */
    int projections;         /**< RATTLE: substeps whose position stage was finished by the Newton projection
                                  (the chord iteration stalled at the shortest split) */
    int projection_factors;  /**< exact solver's position projection: Newton steps that factored their own
                                  system in the step */
    int projection_chords;   /**< ... and chord steps kept (a solve with the last factor of the step, no
                                  factorisation); an undone chord step counts in neither */
    int newton_steps;        /**< RATTLE: Newton steps (row build and factorisation at the drifted poses each) of
                                  position stages whose chord iteration stalled (worlds of more than 100 joints) */
    double max_joint_gap;    /**< largest position error of the joints after the step (m), contacts excluded: how
                                  well the mechanism holds together */
    double max_penetration;  /**< deepest contact penetration after the step (m; 0 without contacts): a resting
                                  contact's depth, no joint error */
} ctn_step_stats;

/** Advances the world by one time_step. */
CTN_API ctn_status ctn_world_step(ctn_world *world);
/** Statistics and timings of the last step. */
CTN_API ctn_status ctn_world_get_stats(const ctn_world *world, ctn_step_stats *out);

/** Joint errors of the current state without stepping: the largest position error (m) and angular error
 * (rad) of the joints with rows, contacts excluded (ctn_step_stats.max_joint_gap's measure; a contact's
 * penetration is ctn_world_measure_contacts'). A world with contacts on the OpenCL backend is read back
 * to the host for it (the download the next step's collision detection makes anyway). */
CTN_API ctn_status ctn_world_measure(ctn_world *world, double *max_gap, double *max_angle);
/** Deepest contact penetration of the current state without stepping (m; 0 without contacts or when every
 * contact is separated): ctn_step_stats.max_penetration's measure. */
CTN_API ctn_status ctn_world_measure_contacts(ctn_world *world, double *max_depth);

/* ---- assembly and inverse kinematics (host/solve/assemble.c) ------------------------------------ */

/** An IK target of ctn_world_assemble: the body-frame point `point` of `body` is pulled to the world point
 *  `target` with relative weight `weight` (> 0) while the joints stay closed. A target out of reach ends as
 *  close as the joints allow (the weighted least-squares compromise when several targets compete). */
typedef struct ctn_assemble_target {
    ctn_body_id body;  /**< a dynamic body */
    double point[3];   /**< body frame */
    double target[3];  /**< world frame */
    double weight;     /**< > 0; only the ratios between targets matter */
} ctn_assemble_target;

/** Settings of ctn_world_assemble; start from ctn_assemble_desc_default(). */
typedef struct ctn_assemble_desc {
    double tolerance;          /**< largest joint error accepted, m for gaps and rad for angles (default 1e-6; the
                                    float32 orientations of rigid bodies close loops to about 1e-7 m per metre of
                                    lever arm, particle positions to 1e-12 m) */
    int gather_iterations;     /**< phase 1 (Jacobian-transpose gather, Nelson 1998) at most; default 200 */
    double gather_tolerance;   /**< phase 1 hands over to Newton once the largest error is below this (m / rad,
                                    default 1e-3) or stops improving */
    int newton_iterations;     /**< phase 2 Newton steps (direct-solver solves) at most; default 500 */
    int keep_velocities;       /**< 0 (default): velocities and joint impulses are set to zero; 1: kept */
    const ctn_assemble_target *targets; /**< IK targets (may be NULL when target_count is 0) */
    int32_t target_count;          /**< entries of `targets` */
} ctn_assemble_desc;

/** The defaults of ctn_assemble_desc: tolerance 1e-6, 200 gather iterations to 1e-3, 500 Newton steps, no
 *  targets, velocities zeroed. */
CTN_API ctn_assemble_desc ctn_assemble_desc_default(void);

/** What ctn_world_assemble did. */
typedef struct ctn_assemble_report {
    int gather_iterations;     /**< phase 1 iterations run */
    int newton_iterations;     /**< phase 2 Newton steps taken (accepted or undone) */
    double initial_gap;        /**< largest joint gap before (m) */
    double initial_angle;      /**< largest joint angular error before (rad) */
    double max_gap;            /**< largest joint gap after (m), evaluated in double from the stored state */
    double max_angle;          /**< largest joint angular error after (rad) */
    double target_distance;    /**< largest |point - target| over the targets after (m); 0 without targets */
    double max_move;           /**< largest displacement of a body (m) */
    int open_joints;           /**< joints whose error is above the tolerance (0 on success) */
} ctn_assemble_report;

/** Moves the dynamic bodies the least, in the mass metric, so that every joint closes to desc->tolerance
 *  (gaps in m, angles in rad) and the IK targets are met as well as the joints allow. Phase 1: Jacobian-
 *  transpose gather iterations (Nelson 1998), one parallel loop over joints and one over bodies, on the
 *  world's backend (CPU or OpenCL). Phase 2: Newton steps dq = -M^-1 J^T (J M^-1 J^T)^-1 C solved by the
 *  exact direct solver on the host (Levenberg-Marquardt damped for targets). Contacts and springs are not
 *  closed; a hinge limit only when violated. desc may be NULL (the defaults); report may be NULL.
 *  When the joints cannot all be closed (e.g. a rod pinned at both ends to world points further apart than
 *  its length) returns CTN_ERR_INVALID_ARGUMENT naming the joints left open, with the world unchanged
 *  (report still filled with the best state reached). Invalid settings or targets: CTN_ERR_INVALID_ARGUMENT
 *  or CTN_ERR_NOT_FOUND naming the field, world unchanged. */
CTN_API ctn_status ctn_world_assemble(ctn_world *world, const ctn_assemble_desc *desc, ctn_assemble_report *report);

/** Names of enum values, as scene files and the CLI spell them ("gs", "opencl", "spook", "kinematic",
 *  "hinge", "capsule", "warning"); "unknown" for a value outside the enum. Never NULL. */
CTN_API const char *ctn_solver_name(ctn_solver solver);
/** Name of a backend ("auto", "cpu", "opencl"). */
CTN_API const char *ctn_backend_name(ctn_backend backend);
/** Name of a stabilisation ("spook", "baumgarte"). */
CTN_API const char *ctn_stabilization_name(ctn_stabilization stabilization);
/** "rattle" or "velocity". */
CTN_API const char *ctn_integrator_name(ctn_integrator integrator);
/** Name of a body type ("dynamic", "static", "kinematic"). */
CTN_API const char *ctn_body_type_name(ctn_body_type type);
/** Name of a joint type: its enumerator in lower case without CTN_JOINT_ ("distance", "ball", "hinge", "fixed",
 *  "spring", "contact", "prismatic", "universal", "cone_twist", "curve", "gear", "rack_pinion",
 *  "planar"); every value
 *  from 0 up to the first named "unknown" is a type (the Python package lists them so). */
CTN_API const char *ctn_joint_type_name(ctn_joint_type type);
/** Name of a curve type ("line", "circle", "helix", "polyline"). */
CTN_API const char *ctn_curve_type_name(ctn_curve_type type);
/** Name of a shape type ("none", "sphere", "capsule", "box"). */
CTN_API const char *ctn_shape_type_name(ctn_shape_type type);
/** Name of a log level ("debug", "info", "warning"). */
CTN_API const char *ctn_log_level_name(ctn_log_level level);

/** Name of the backend in use ("cpu" or "opencl"). */
CTN_API const char *ctn_world_backend_name(const ctn_world *world);
/** Name of the device the world runs on ("host CPU" for the CPU backend). */
CTN_API const char *ctn_world_device_name(const ctn_world *world);


/* Read-only queries for exporters (host/core/export.c). */
/** Slot index ranges: live handles have indices in [0, *bodies) and [0, *joints) (free slots included). */
CTN_API ctn_status ctn_world_id_counts(const ctn_world *world, int32_t *bodies, int32_t *joints);
/** The handle of the live body in slot `index`; CTN_ERR_NOT_FOUND for a free or out-of-range slot. */
CTN_API ctn_status ctn_world_body_at(ctn_world *world, int32_t index, ctn_body_id *out);
/** The handle of the live joint in slot `index`; CTN_ERR_NOT_FOUND for a free or out-of-range slot. */
CTN_API ctn_status ctn_world_joint_at(ctn_world *world, int32_t index, ctn_joint_id *out);
/** A joint as exporters draw it (ctn_joint_get_info). */
typedef struct ctn_joint_info {
    ctn_joint_type type;     /**< its type */
    ctn_body_id body_a;      /**< its first body */
    ctn_body_id body_b;      /**< or CTN_WORLD */
    double anchor_a[3];      /**< world-frame anchor points in the current state */
    double anchor_b[3];      /**< (the same for body b) */
    double gap;              /**< position error of the joint in the current state (m; distance joints: |d| - rest) */
    double angle;            /**< angular error (rad; 0 for joints without angular rows) */
} ctn_joint_info;
/** The joint's type, bodies, world anchors and errors in the current state; CTN_ERR_NOT_FOUND for a
 *  removed, stale or unknown handle. */
CTN_API ctn_status ctn_joint_get_info(ctn_world *world, ctn_joint_id joint, ctn_joint_info *out);

#ifdef __cplusplus
}
#endif

#endif /* CATENA_CORE_H */
