/* Internal world layout shared by the host modules and the backends. Not installed. */
#ifndef CTN_HOST_WORLD_H
#define CTN_HOST_WORLD_H

#include "catena/catena.h"
#include "core/alloc.h"
#include "core/fault.h"
#include "core/nonfinite.h"
#include "ctn_body.h"
#include "ctn_rows.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Solver layout, rebuilt when the topology changes (host/core/topology.c). Joints are stored in solver order:
 * sorted by colour so that colour c is the contiguous slot range [colour_offsets[c], colour_offsets[c+1]),
 * and the overflow group (joints beyond the colour budget, solved serially) is the range
 * [colour_offsets[colour_count], colour_offsets[colour_count + 1]). */
typedef struct ctn_topology {
    int joint_count;          /* m: row-carrying joints (springs excluded) */
    int row_count;
    int *order;               /* [m] solver slot -> joint id: the first m entries of ctn_world.joint_at (not owned), the table
                               * being stored in solver order (ctn__joint_store_in_order); joint_reserve follows it */
    /* [m] definitions in solver order, compact records (defs) and extras (extra, NULL while no joint has any:
     * kernels/ctn_joints.h; ctn__topo_joints): the first m entries of the world's joint table
     * (ctn_world.joint_core / joint_extra, which the build keeps in solver order) where no body is attached,
     * else arrays of their own holding the definitions with attached bodies mapped onto their masters
     * (defs_owned; the extras then always held) */
    ctn_joint_core *defs;
    ctn_joint_extra *extra;
    int defs_owned, defs_capacity;
    float *lambda;            /* [stride m] accumulated impulses of the last substep, solver order (warm start) */
    /* the row stride of lambda and of every per-slot array beside it (CTN_LAM, kernels/ctn_types.h): the most rows
     * of any joint of the layout, at least 1; set by the build */
    int stride;
    int colour_count;
    int largest_colour;
    int *colour_offsets;      /* [colour_count + 2] */
    /* Body -> joint adjacency in CSR form (the per-body gather of Nelson 1998). Entry e of body i, for
     * adj_offsets[i] <= e < adj_offsets[i+1], is (slot << 1) | side, side 0 = body a, 1 = body b.
     * Only dynamic bodies have entries. Built for the layout on first need (ctn__topology_adjacency, which
     * every reader calls first): valid only while adj_ready; the build clears it (the array may hold its
     * colour masks). */
    int body_count;           /* ids covered (= world body id count at build time) */
    int *adj_offsets;         /* [body_count + 1] */
    int *adj;                 /* [adj_offsets[body_count]] */
    int adj_ready;            /* adj_offsets and adj hold this layout's adjacency */
    int adj_offsets_capacity; /* ints of adj_offsets */
    float *split;             /* [body_count] joints on each body (>= 1): Jacobi mass-splitting factor, written on first use
                               * (ctn__topology_split): only mass splitting and the assembly read it */
    int split_ready;          /* split holds this layout's factors */
    /* Springs (force elements) and their body adjacency, same encoding. */
    int spring_count;
    ctn_joint_def *springs;   /* [spring_count] */
    int gear_count;           /* gears and rack-and-pinions (their angle references are re-centred, joint_gear.c) */
    int *spring_adj_offsets;  /* [body_count + 1], written only when spring_count > 0 (else read as all zero: ctn__forces's
                               * lean pass, the OpenCL upload's fill) */
    int *spring_adj;

    /* Capacities and scratch, kept across rebuilds so that recolouring every step (contacts) reuses
     * mapped memory instead of allocating. */
    int joint_capacity, body_capacity, spring_capacity, adj_capacity, spring_adj_capacity, colour_capacity;
    /* [lambda_capacity]; between rebuilds, the spare of lambda's double buffer (divergence.c); NULL where the step
     * spare holds the impulses' copy instead (CTN_SNAP_SHARED: freed by the take, held again by the next rebuild);
     * in a rebuild after a layout without joints, possibly the colour masks' place (topology.c) */
    float *lambda_prev;
    size_t lambda_capacity;   /* floats of lambda and of lambda_prev each (only grows) */
    unsigned long long *colour_used; /* [colour_used_capacity] colour masks where they do not fit in defs */
    int colour_used_capacity;
} ctn_topology;

/* The joints of a world and the parts of its solver layout a step's contact generation and topology
 * rebuild change, copied before them (ctn__joints_snapshot_take). Arrays only grow. */
typedef struct ctn_joint_snapshot {
    int valid;                /* holds the state of the step in flight */
    int joint_capacity;       /* capacity of the per-joint arrays below */
    int body_capacity;        /* of body_refs */
    size_t topo_capacity;     /* floats of lambda */
    int joint_count, live_joints, joint_free_count, body_count;
    ctn_joint_core *joints;   /* by storage position, with the slot <-> position maps */
    ctn_joint_extra *extra;   /* the same for the extras when the world held them (has_extra) */
    int has_extra, extra_capacity;
    int *joint_pos, *joint_at;
    unsigned char *joint_alive;
    uint16_t *joint_gen;      /* where the world held them (has_joint_gen) */
    int has_joint_gen, gen_capacity;
    int *joint_free;
    int *joint_slot;          /* the explicit map where the world held one (joint_slot_held) */
    int joint_slot_held, slot_capacity;
    int *body_refs;           /* where the world held them (has_body_refs) */
    int has_body_refs;
    int topo_joint_count;     /* the layout: its impulses (the warm start; its order is joint_at's first entries) */
    int topo_stride;          /* and their row stride */
    float *lambda;
    int topology_dirty;
    int solver, solver_fresh; /* the solver of the layout, and whether AUTO had chosen it for this layout */
} ctn_joint_snapshot;

struct ctn_stage_ops; /* the backend half of the step pipeline (host/solve/pipeline.h) */

typedef struct ctn_backend_ops {
    const char *name;
    /* The stages of a step on this backend. World flags say what changed on the host since the last step
     * (topology_version, bodies_dirty). */
    const struct ctn_stage_ops *stages;
    /* Copies the backend's newer body state and impulses into the host arrays. */
    ctn_status (*sync_to_host)(ctn_world *w);
    /* Joint errors of the current state (max gap, max angle). */
    ctn_status (*measure)(ctn_world *w, double *max_gap, double *max_angle);
    void (*destroy)(ctn_world *w);
} ctn_backend_ops;

struct ctn_stage_entry; /* host/solve/pipeline.h */
struct ctn_world {
    /* The one-thread-at-a-time guard of the public entry points (CTN__ENTER below): the thread inside a call
     * on this world (its pthread_self()), 0 when none, and the calls let in so far (a refused call's message
     * lasts until the next one, host/core/world_guard.c). */
    _Atomic(uintptr_t) owner;
    _Atomic(unsigned) entries;

    ctn_world_desc desc;
    int affinity_cpus; /* CPUs of the process's affinity mask at the last step's start (host/core/threads.c) */
    char device_request[256]; /* desc.device copied (desc.device points here) */
    char fault_request[80];   /* desc.debug.fault copied (desc.debug.fault points here) */
    ctn_fault fault;          /* desc.debug.fault parsed at creation (host/core/fault.c) */
    char error[2048];
    ctn_status handle_status; /* why the last ctn__body_index / ctn__joint_index refused a handle */
    int tag;                  /* 1..65535, carried by every handle of this world (host/core/world_tag.c) */

    /* Bodies, indexed by slot. A removed body's slot loses the ALIVE flag, its generation is bumped and the
     * slot goes on body_free for reuse; the public handle is the slot index and its generation
     * (ctn__body_handle, ctn__joint_handle). */
    int body_count;           /* slots in use or freed: the high-water mark of live bodies */
    int body_capacity;
    int live_bodies;
    ctn_pose *pose;
    ctn_vel *vel;
    ctn_inertia *inertia;
    ctn_props *props;
    /* [body_capacity] the persistent user forces (host/core/body_force.c), NULL while no body has one: the
     * entries that are not all +0.0 are counted by force_bodies, and the array goes when that count is 0 */
    ctn_body_force *body_force;
    int force_bodies;
    /* [body_capacity] live joints on each body (a joint on the same body twice counts twice), counted on first need
     * (ctn__body_refs: the first ctn_body_remove) and kept by ctn__joint_insert / ctn__joint_kill from then on; NULL
     * before, so a world that never removes a body holds none (a checkpoint counts them for its file) */
    int *body_refs;
    char **body_names;        /* [body_names_capacity] names (host/core/body_names.c), NULL: none */
    int body_names_capacity;
    char **joint_names;       /* [joint_names_capacity] names (host/core/joint_names.c), NULL: none */
    int joint_names_capacity;
    /* [body_capacity] generation of each slot, modulo 65536 (the handle's width; ctn__body_gen), NULL while every
     * slot's is 0: made by the first ctn_body_remove (ctn__body_gens), the only edit that raises one */
    uint16_t *body_gen;
    int *body_free;           /* [body_capacity] freed slots, a stack (the last freed is reused first) */
    int body_free_count;

    /* Joints (contacts included), indexed by slot, with generations and a free stack like the bodies. */
    int joint_count;          /* slots in use or freed */
    int joint_capacity;
    int live_joints;
    /* The definitions, one per slot, stored by position rather than by slot: the topology build
     * (host/core/topology.c) permutes them so that its solver slots come first in solver order, making the
     * table and the solver layout's definitions one array; the other slots (springs, free slots, joints
     * without rows) follow in slot order. Slot j's compact record is joint_core[joint_pos[j]] (ctn__jcore), its
     * extras joint_extra[joint_pos[j]] where the array exists: it is created for the first joint whose extras
     * are not the default ones (kernels/ctn_joints.h) and freed by the topology build that finds none left
     * (host/core/joint_store.c). ctn__jdef_get / ctn__jdef_set read and write a whole definition. */
    ctn_joint_core *joint_core;
    ctn_joint_extra *joint_extra;
    int *joint_pos;           /* slot -> storage position */
    int *joint_at;            /* storage position -> slot */
    unsigned char *joint_alive;
    /* Joint slot -> its solver slot in the last layout (ctn__joint_layout_slot): its storage position where that is
     * below topo.joint_count, the table being stored in solver order from the build on (a truncation that moves
     * slots moves their impulses too, ctn__joint_table_truncate). A joint inserted into a slot whose position is
     * in the layout (a reused slot, or a fresh one after a truncation shrank the table) must start cold, which
     * breaks that until the next build: the map is kept explicitly here first (joint_slot_held; -1 for none;
     * allocated on first need, grown with the table, host/core/joint.c) */
    int *joint_slot;
    int joint_slot_held;
    /* [joint_capacity] generation of each slot, modulo 65536 (ctn__joint_gen), NULL while every slot's is 0: made
     * before a removal raises one (ctn__joint_gens: ctn_joint_remove, the first built-in contact, else
     * ctn__joint_kill itself) */
    uint16_t *joint_gen;
    int *joint_free;
    int joint_free_count;
    int append_slots;         /* > 0 while scene generators and scene files build: new bodies and joints take
                                 fresh slots at the end, so their handles are consecutive (see catena.h) */

    ctn_topology topo;
    int stride_floor;         /* tests: the least row stride of the layout (ctn__topology_stride_floor; 0: its joints' rows) */
    int topology_dirty;       /* joints or body kinds changed: rebuild before the next step */
    unsigned topology_version;/* bumped by every rebuild; backends compare it to re-upload layout */
    ctn_solver solver;        /* the solver of this step: desc.solver, or what AUTO chose (solver_auto.c) */
    char solver_reason[128];  /* why: "desc.solver", or the choice of AUTO (ctn_step_stats.solver_reason) */
    unsigned solver_version;  /* topology_version + 1 the AUTO choice was made for (0: none yet) */
    int auto_outer;           /* AUTO's outer iterations of the direct solver's loop over bounded rows (solver_auto.c; 0: desc.iterations) */
    int auto_substeps;        /* CTN_SUBSTEPS_AUTO's choice for `solver` (solver_auto.c; 0: none yet) */
    unsigned substeps_version; /* topology_version + 1 it was made for */
    ctn_solver substeps_solver; /* the solver it was made for */
    int bodies_dirty;         /* host body arrays changed: backends re-upload them */
    int inertia_stale;        /* the world inverse inertias are not those of the poses yet: the CPU backend's last
                                 step left them to whoever reads them next (ctn__inertia_fresh) */
    int warm_idle;            /* this substep's WARM_START only clears the impulses (the pipeline's run_substeps:
                                 every joint a rigid bilateral row of the exact solve, whose solution does not
                                 depend on where the impulses start) */
    unsigned warm_version;    /* topology_version + 1 warm_anchored was found for (0: none yet) */
    int warm_anchored;        /* the pipeline's anchored_once */
    unsigned rigid_version;   /* topology_version + 1 rigid_all was found for (0: none yet) */
    int rigid_all;            /* the pipeline's joints_rigid */
    unsigned contacts_version; /* topology_version + 1 contacts_any was found for (0: none yet) */
    int contacts_any;         /* ctn__has_contacts at that version (step_split_gap) */
    int host_stale;           /* the backend holds newer state than the host arrays */

    ctn_step_stats stats;
    const ctn_backend_ops *backend;
    void *backend_data;
    /* Tests only (tests/test_stage_table.c): called by the step driver (host/solve/pipeline.c) with every entry it
     * takes, entry k of table `table` planned for (sub, n), before it runs; NULL: none. */
    void (*stage_trace)(void *user, int table, int sub, int n, int k, const struct ctn_stage_entry *e);
    void *stage_trace_user;
    void *direct_data;        /* host/solve/solver_direct.c: cached forest ordering and factor storage */
    void *auto_scratch;       /* host/solve/solver_auto.c: the forest scan's arrays (grows only) */
    size_t auto_scratch_size;
    char device_name[256];

    /* State before the step in flight, restored when the step diverges (host/core/divergence.c): the spare
     * arrays of the double buffer. Once the step forked an array (snapshot_forked), its spare holds the state
     * the step started from; before that the world's array does, and the spare holds nothing. */
    int snapshot_bodies;      /* capacity of snapshot_vel (>= body_capacity after a take that holds it; 0: none held) */
    /* capacity of snapshot_pose; 0 while none is held (an iterative solver's step that writes the poses in place) */
    int snapshot_pose_bodies;
    /* after an integration in place (CTN_SNAP_POSE_IN_PLACE) nothing of the step's start: the exact solver's
     * projection keeps its copy of the poses here (host/solve/solver_cpu.c keep_array). Under CTN_SNAP_SHARED the
     * step spare: the start velocities and impulses before that integration (host/core/divergence.c). */
    ctn_pose *snapshot_pose;
    ctn_vel *snapshot_vel;
    unsigned snapshot_forked; /* CTN_SNAP_* bits: the arrays the step has forked */
    ctn_inertia *snapshot_inertia; /* [snapshot_inertia_bodies], taken only when snapshot_inertia_kept */
    int snapshot_inertia_bodies;
    int snapshot_inertia_kept; /* 0: every inertia was ctn_body_inverse_inertia of its pose; the restore recomputes them */
    /* (the impulses' spare is topo.lambda_prev; NULL while a step spare holds their copy) */

    /* Joint table and solver layout before this step's contact generation changed them (collision worlds,
     * host/core/divergence.c), put back with the bodies when the step fails, so that an undone step also
     * restores the contact set: which contacts exist, their handles (slots and generations), definitions
     * and warm-start impulses. */
    ctn_joint_snapshot joint_snap;

    /* Shapes, planes and the contact cache of the built-in collision detection and the list of
     * user contacts (host/collide/collide.c); NULL until a shape, plane or contact is added. */
    struct ctn_collision *collision;

    /* Polyline vertices of curve joints, by joint slot (host/core/curve.c); NULL until a polyline is added. */
    struct ctn_polyline **polylines;
    int polyline_capacity;    /* entries of polylines */
    int polyline_live;        /* live polyline joints: the step re-centres their windows while > 0 */

    /* Attached bodies and their masters (host/core/attach.c); NULL until the first ctn_attach_point. */
    struct ctn_attachments *attach;
};

/* The compact record of joint slot `id` (its storage position: ctn_world.joint_core). A pointer into the table
 * is valid until the next topology build or joint slot allocation. */
static inline ctn_joint_core *ctn__jcore(const ctn_world *w, int id) { return &w->joint_core[w->joint_pos[id]]; }
/* Joint slot id's solver slot in the last layout built, -1 where it has none (a spring, a joint without rows, one
 * inserted or reused since; the carry-over of ctn__topology_build reads it): the position where the table is in
 * solver order (ctn_world.joint_slot says when it is not). A removed joint keeps its slot until the next build. */
static inline int ctn__joint_layout_slot(const ctn_world *w, int id) {
    if (w->joint_slot_held) return w->joint_slot[id];
    int p = w->joint_pos[id];
    return p < w->topo.joint_count ? p : -1;
}
/* Counts the live joints on each body into ctn_world.body_refs where the world holds none (host/core/body.c);
 * fails only out of memory, changing nothing. */
ctn_status ctn__body_refs(ctn_world *w);
/* Makes ctn_world.body_gen (all 0) where the world holds none (host/core/body.c); fails only out of memory,
 * changing nothing. */
ctn_status ctn__body_gens(ctn_world *w);
/* Makes ctn_world.joint_gen (all 0) where the world holds none (host/core/joint.c); fails only out of memory,
 * changing nothing. */
ctn_status ctn__joint_gens(ctn_world *w);
/* Keeps the layout's slots explicitly (ctn_world.joint_slot) before an edit that breaks the positions' map
 * (host/core/joint.c); fails only out of memory, changing nothing. */
ctn_status ctn__joint_slots_hold(ctn_world *w);
/* Joint slot id's flags (ctn_joint_def.flags: 0 where the world keeps no extras). */
static inline int ctn__jflags(const ctn_world *w, int id) { return w->joint_extra ? w->joint_extra[w->joint_pos[id]].flags : 0; }
/* The joint table and the layout's definitions as the shared kernel code reads them (kernels/ctn_joints.h). */
static inline ctn_joints ctn__topo_joints(const ctn_topology *t) { return ctn_joints_of(t->defs, t->extra); }
/* The joint table (host/core/joint_store.c). ctn__jdef_get: the whole definition of slot id (the default
 * extras where none are kept). ctn__jdef_set: stores one, creating the extras array for the first definition
 * whose extras are not the default ones (CTN_ERR_OUT_OF_MEMORY, nothing changed, when that fails).
 * ctn__joint_extra_alloc: an array of `cap` extras, the first `count` copied from `old` (NULL: defaults), the
 * rest default; NULL when out of memory. ctn__joint_extra_recount: frees the array when no live joint's
 * extras differ from the default ones (the topology build; not while the step snapshot holds them). */
static inline ctn_joint_def ctn__jdef_get(const ctn_world *w, int id) {
    int p = w->joint_pos[id];
    return ctn_joint_make(w->joint_core[p], w->joint_extra ? w->joint_extra[p] : ctn_joint_extra_default());
}
ctn_status ctn__jdef_set_slow(ctn_world *w, int id, const ctn_joint_def *d);
static inline ctn_status ctn__jdef_set(ctn_world *w, int id, const ctn_joint_def *d) {
    if (!w->joint_extra) return ctn__jdef_set_slow(w, id, d); /* the extras may be needed: the array made first */
    int p = w->joint_pos[id];
    w->joint_core[p] = ctn_joint_core_of(*d);
    w->joint_extra[p] = ctn_joint_extra_of(*d);
    return CTN_OK;
}
int ctn__joint_extra_needed(const ctn_joint_extra *x);
ctn_joint_extra *ctn__joint_extra_alloc(size_t cap, const ctn_joint_extra *old, size_t count);
void ctn__joint_extra_recount(ctn_world *w);

/* Whether n elements of `size` bytes overflow size_t (checked before every array allocation
 * whose length comes from a count; on 64-bit hosts the documented limits keep every product far below). */
static inline int ctn__mul_overflows(size_t n, size_t size) { return size != 0 && n > (size_t)-1 / size; }

/* Handles (catena.h "Handles"): slot index + 1, the world's tag and the slot generation modulo 65536. The
 * slots keep their generations modulo 65536 too (uint16_t, wrapping): a handle matches a slot when the 16 bits
 * agree. The checkpoint format stores each as a 32-bit value and accepts up to this mask on load (files from
 * before kept 31-bit counters), of which the low 16 bits are kept: the same handles match. */
#define CTN__GENERATION_MASK 0x7fffffffu
/* Tags of the live worlds (host/core/world_tag.c): claim returns a free tag, 0 when all 65535 are in use. */
int ctn__world_tag_claim(void);
void ctn__world_tag_release(int tag);
/* The slot of a live body handle (CTN_WORLD gives -1 when allow_world), or -2 with the error recorded:
 * CTN_ERR_INVALID_ARGUMENT for the null handle or one of another world, CTN_ERR_NOT_FOUND for one out of
 * range, removed or stale (its slot now holds a later body), naming FIELD and the handle. */
int ctn__body_index(ctn_world *w, ctn_body_id id, const char *field, int allow_world);
/* The slot of a live joint or contact handle, or -1 with the error recorded the same way. */
int ctn__joint_index(ctn_world *w, ctn_joint_id id, const char *field);
/* The same checks without recording anything: the slot, or a negative number (-1 for CTN_WORLD). */
int ctn__body_lookup(const ctn_world *w, ctn_body_id id);
int ctn__joint_lookup(const ctn_world *w, ctn_joint_id id);
/* Public handle of body slot i (CTN_WORLD for i < 0) and of joint slot j. */
static inline uint16_t ctn__body_gen(const ctn_world *w, int i) { return w->body_gen ? w->body_gen[i] : 0; }
static inline ctn_body_id ctn__body_handle(const ctn_world *w, int i) {
    if (i < 0) return CTN_WORLD;
    ctn_body_id id = {i + 1, (uint16_t)w->tag, ctn__body_gen(w, i)};
    return id;
}
static inline uint16_t ctn__joint_gen(const ctn_world *w, int j) { return w->joint_gen ? w->joint_gen[j] : 0; }
static inline ctn_joint_id ctn__joint_handle(const ctn_world *w, int j) {
    ctn_joint_id id = {j + 1, (uint16_t)w->tag, ctn__joint_gen(w, j)};
    return id;
}
/* The public type of a stored joint: an implicit spring is stored as a distance row (CTN_JF_IMPLICIT_SPRING). */
static inline int ctn__joint_type(const ctn_joint_def *d) { return (d->flags & CTN_JF_IMPLICIT_SPRING) ? CTN_JT_SPRING : d->type; }
/* Takes a slot for a new body / joint (from the free stack unless w->append_slots) after growing the arrays;
 * nothing changes on failure. */
ctn_status ctn__body_slot_take(ctn_world *w, int *slot);
ctn_status ctn__joint_slot_take(ctn_world *w, int *slot);

/* Ends a stretch of scene building begun with w->append_slots++ and passes its status through. */
static inline ctn_status ctn__append_end(ctn_world *w, ctn_status st) {
    w->append_slots--;
    return st;
}

/* Body names (host/core/body_names.c): forgets the name of body i; of every body from index `first` on
 * (a rolled-back scene build); frees them all. */
void ctn__body_name_clear(ctn_world *w, int i);
void ctn__body_names_truncate(ctn_world *w, int first);
void ctn__body_names_free(ctn_world *w);
/* Joint names (host/core/joint_names.c): the same for joint slots. */
void ctn__joint_name_clear(ctn_world *w, int j);
void ctn__joint_names_truncate(ctn_world *w, int first);
void ctn__joint_names_free(ctn_world *w);

/* The one-thread-at-a-time guard (catena.h, "Threads"). Every public entry point that takes a non-const world
 * opens with CTN__ENTER(w): it returns CTN_ERR_INVALID_ARGUMENT for a NULL world, claims the world for this
 * thread with one compare-and-swap of w->owner (a call nested in another on the same thread, such as a scene
 * generator's ctn_body_add, finds it claimed already and goes on), returns CTN_ERR_BUSY having changed
 * nothing when another thread holds it, and clears the world's last error. The claim is let go when the
 * function returns, by whichever return (the cleanup attribute of GCC and Clang). A busy call leaves
 * w->error alone (it belongs to the thread inside); its message is kept for the refused thread
 * (world_guard.c). Cost: one uncontended compare-and-swap and two plain atomic stores per call; no
 * thread-local storage on this path (its general-dynamic model in a shared library costs a call). */
ctn_status ctn__world_busy(const ctn_world *w, const char *fn); /* records the refusal, returns CTN_ERR_BUSY */
/* The refusal message of this thread's last CTN_ERR_BUSY on w while no call on w has been let in since, else NULL. */
const char *ctn__busy_message(const ctn_world *w);

typedef struct ctn__world_hold {
    ctn_world *w;
    int held; /* this call claimed the world and lets it go on return */
} ctn__world_hold;

static inline void ctn__world_let_go(ctn__world_hold *h) {
    if (h->held) atomic_store_explicit(&h->w->owner, (uintptr_t)0, memory_order_release);
}

/* 1: claimed now; 0: this thread holds it already (a nested call); -1: another thread holds it. */
static inline int ctn__world_claim(ctn_world *w) {
    uintptr_t none = 0, me = (uintptr_t)pthread_self();
    if (atomic_compare_exchange_strong_explicit(&w->owner, &none, me, memory_order_acquire, memory_order_relaxed)) {
        /* only the owner writes it: no read-modify-write needed */
        atomic_store_explicit(&w->entries, atomic_load_explicit(&w->entries, memory_order_relaxed) + 1u, memory_order_relaxed);
        return 1;
    }
    return none == me ? 0 : -1;
}

#if !defined(__GNUC__)
#error "CTN__ENTER needs __attribute__((cleanup)) (GCC or Clang)"
#endif
#define CTN__ENTER(w)                                                                                  \
    if (!(w)) return CTN_ERR_INVALID_ARGUMENT;                                                         \
    __attribute__((cleanup(ctn__world_let_go))) ctn__world_hold ctn__hold = {(w), ctn__world_claim(w)}; \
    if (ctn__hold.held < 0) {                                                                          \
        ctn__hold.held = 0;                                                                            \
        return ctn__world_busy((w), __func__);                                                         \
    }                                                                                                  \
    ctn__clear_error(w)

/* Clears the world's last error. Part of CTN__ENTER, the opening of every public function that takes a
 * non-const world (scene generators' inner steps call it again), so that ctn_world_last_error describes
 * the latest call: a failure records its message again, a success leaves "". */
static inline void ctn__clear_error(ctn_world *w) { w->error[0] = '\0'; }

/* The index of the first of v[0..n) that is not finite or exceeds CTN_MAX_LENGTH in magnitude, else -1
 * (offsets and lengths kept in float32). */
static inline int ctn__length_bad(const double *v, int n) {
    for (int k = 0; k < n; ++k)
        if (!(fabs(v[k]) <= CTN_MAX_LENGTH)) return k;
    return -1;
}

/* Whether x is finite and within float32's range (|x| <= FLT_MAX; NaN is not): the host arrays hold floats,
 * and a finite double beyond that range would be stored as an infinity that no check of a double sees. */
static inline int ctn__fits_float(double x) { return fabs(x) <= FLT_MAX; }

/* Records a formatted error message on the world and returns `status`. */

ctn_status ctn__fail(ctn_world *w, ctn_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Sends a formatted message to the world's log callback, else to the process-wide one (ctn_set_log),
 * else nowhere (w may be NULL). The library's only way of saying something besides its return values. */
void ctn__log(const ctn_world *w, ctn_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Brings the host arrays up to date with the backend (before reading or editing body state). */
ctn_status ctn__sync(ctn_world *w);

/* Rebuilds the colouring and the solver layout from the live joints (host/core/topology.c). */
ctn_status ctn__topology_build(ctn_world *w);
void ctn__topology_free(ctn_topology *t);
/* The impulses' spare (topo.lambda_prev, lambda_capacity floats) held again where a step spare freed it
 * (CTN_ERR_OUT_OF_MEMORY: nothing changed), and freed (host/core/divergence.c, CTN_SNAP_SHARED). */
ctn_status ctn__topology_impulse_spare(ctn_world *w);
void ctn__topology_impulse_spare_free(ctn_topology *t);
/* Tests: lays the impulses out at a row stride of at least `floor` (1..CTN_MAX_ROWS; 0: the most rows of any joint,
 * as always otherwise) from the next rebuild on, which it asks for. The results do not depend on the stride. */
void ctn__topology_stride_floor(ctn_world *w, int floor);
/* The layout's mass-splitting factors (topo.split), written on the first call after a build (t: a world's own
 * layout, ctn_world.topo). */
const float *ctn__topology_split(ctn_topology *t);
/* Builds the body -> joint adjacency (topo.adj_offsets, topo.adj) of the current layout unless built since the
 * last topology build; CTN_ERR_OUT_OF_MEMORY (the layout otherwise intact) when its arrays cannot grow. */
ctn_status ctn__topology_adjacency(ctn_world *w);
/* Stores joint slot order[s] at position s of the joint table for s < m, then the other slots in increasing
 * order (m = 0: every slot at its own position); in place (host/core/topology.c). */
void ctn__joint_store_in_order(ctn_world *w, const int *order, int m);
/* Drops the joint slots >= n (they must be dead or forgotten by the caller): slots below n stored at or above n
 * first take the positions below n that those held, if a layout built since they were appended moved them (then
 * the topology is marked dirty; each joint keeps its slot in the last layout, ctn__joint_layout_slot). Returns
 * whether they had to be moved. */
int ctn__joint_table_truncate(ctn_world *w, int n);

/* Greedy colouring of m joints so that no two joints of a colour share a dynamic body (host/core/colouring.c).
 * body_a/body_b: joint bodies (< 0: world or none); dynamic[i]: whether body i counts (NULL: every body >= 0
 * does, the caller having written -1 for the others). Writes colour[j] in
 * [0, max_colours] where max_colours means the overflow group; returns the colour count used. */
int ctn__colour_joints(int m, const int *body_a, const int *body_b, int body_count, const unsigned char *dynamic,
                       int max_colours, int *colour);
/* The same with caller-provided colour masks used[body_count], which must be zero on entry. */
int ctn__colour_joints_into(int m, const int *body_a, const int *body_b, const unsigned char *dynamic, int max_colours,
                            unsigned long long *used, int *colour);

/* The parameters of one substep from the world's settings (shared by the CPU and OpenCL backends). */
ctn_step_params ctn__step_params(const ctn_world *w);

/* The identity pose at the origin, used for the world side of a joint. */
ctn_pose ctn__world_pose(void);
/* Force and torque (N, N m; 6 doubles) that live joint slot j applied to body a in the last substep, the
 * impulse over the substep length (host/core/joint_force.c); the host arrays must be current. */
void ctn__joint_force_torque(const ctn_world *w, int j, double out[6]);

/* A body position (two-float p + p_lo, kernels/ctn_types.h) in double, and set from double. */
static inline void ctn__pose_get_position(const ctn_pose *p, double out[3]) { ctn_v3_merge(p->p, p->p_lo, out); }
static inline void ctn__pose_set_position(ctn_pose *p, const double x[3]) { ctn_v3_split(x, &p->p, &p->p_lo); }
/* World position (double) of the body-frame point `local` of pose p. */
static inline void ctn__pose_point(const ctn_pose *p, ctn_v3 local, double out[3]) {
    ctn_v3 r = ctn_quat_rotate(p->q, local);
    ctn__pose_get_position(p, out);
    out[0] += (double)r.x, out[1] += (double)r.y, out[2] += (double)r.z;
}

/* Joint errors computed on the host from the host arrays (cpu backend, tests); contacts excluded. */
void ctn__measure_host(const ctn_world *w, double *max_gap, double *max_angle);
/* ctn_joint_error_at (kernels/ctn_rows.h) out of line, for the CPU backend's measure of the joints other than balls:
 * a contact's error inlined into that file crowded its row build's inlines (callgrind, pile:500: the row build's
 * ctn_joint_rows then called ctn_quat_rotate out of line, 371 -> 486 instructions a contact). */
void ctn__joint_error_at(ctn_joints J, int s, ctn_pose pa, ctn_pose pb, float *gap, float *angle);
/* The errors of joint slot j at the host poses, apart: a joint with rows gives its gap (m) and angle (rad) of
 * ctn_joint_error and depth 0; a contact gives gap = angle = 0 and depth = its penetration (ctn_joint_error's
 * gap of a contact: only its violated normal row counts); a free slot or a force element gives all zero. */
void ctn__joint_slot_errors(const ctn_world *w, int j, float *gap, float *angle, float *depth);
/* Whether a live contact joint is in the world. */
int ctn__has_contacts(const ctn_world *w);

/* Monotonic wall clock in milliseconds. */
double ctn__now_ms(void);

/* Substeps of a step: desc.substeps, or CTN_SUBSTEPS_AUTO's choice (w->auto_substeps, made by ctn_world_step
 * for w->solver through ctn__auto_substeps of host/solve/solver_auto.c; 4 before it or for another solver). */
int ctn__substeps(const ctn_world *w);

/* Outer iterations of the direct solver's loop (bounded rows and loop closers, both backends):
 * desc.iterations, or more where AUTO chose DIRECT for a small mechanism with bounded rows and no contact
 * (w->auto_outer, host/solve/solver_auto.c). */
int ctn__direct_outer(const ctn_world *w);

/* The world inverse inertia of every body from its pose and properties (ctn_body_inverse_inertia), where the
 * last step left them stale (w->inertia_stale); a no-op otherwise. Every reader of w->inertia outside a step's
 * stages calls it first (host/core/body.c). */
void ctn__inertia_fresh(ctn_world *w);
/* Divergence guard (host/core/divergence.c): keeps the host state a step starts from by double buffering
 * and puts it back. take: before the step's first stage (the spares sized, the inertias copied where they are
 * not the function of the poses; inertia_known_derived: the caller knows they are; spares: which spares the
 * step holds, CTN_SNAP_TAKE_*). */
ctn_status ctn__snapshot_take(ctn_world *w, int inertia_known_derived, int spares);
/* the step's only writer of the poses is its final integration, which runs after the divergence test and writes
 * in place: no pose spare is held and the one held is freed */
#define CTN_SNAP_TAKE_NO_POSE 0
/* every array has its spare (the velocities', the impulses' and the poses') */
#define CTN_SNAP_TAKE_FORK 1
/* the step spare: the exact solver's velocity step that integrates in place, whose projection keeps its copy of
 * the poses in the pose spare after the test; that spare keeps the start velocities and impulses before it, and
 * no other spare is held (CTN_SNAP_TAKE_FORK where they do not fit in it) */
#define CTN_SNAP_TAKE_SHARED 2
#define CTN_SNAP_POSE 1u   /* w->pose, spare snapshot_pose */
#define CTN_SNAP_VEL 2u    /* w->vel, spare snapshot_vel (the step spare's first bytes while CTN_SNAP_SHARED) */
#define CTN_SNAP_LAMBDA 4u /* w->topo.lambda, spare topo.lambda_prev (the step spare's, after the velocities) */
/* the poses were written in place after the step's divergence test passed, or left untouched where it failed
 * (the CPU backend's in_place_test): no undo needed either way */
#define CTN_SNAP_POSE_IN_PLACE 8u
/* the start velocities and impulses are kept by a copy into the pose spare (CTN_SNAP_TAKE_SHARED) and put back by
 * one; snapshot_vel and topo.lambda_prev are not held */
#define CTN_SNAP_SHARED 16u
/* the step spare was given to the projection's copy of the poses (ctn__snapshot_release): the start velocities
 * and impulses are gone, and nothing may fork, keep or restore them */
#define CTN_SNAP_RELEASED 32u
/* The pose spare for a step whose take had CTN_SNAP_TAKE_NO_POSE and that must fork or copy the poses after all
 * (held to body_capacity poses); under CTN_SNAP_SHARED, the kept velocities and impulses move to spares of their
 * own first (the double buffer), as the pose spare is to take the start poses. CTN_ERR_OUT_OF_MEMORY: nothing
 * changed (the kept state where it was). */
ctn_status ctn__snapshot_pose_spare(ctn_world *w);
/* Before the step's first write of one array (a CTN_SNAP_* bit): the array that holds the state the step started
 * from when this is it (the spare, whose pointer and the world's have been swapped, or under CTN_SNAP_SHARED the
 * step spare's copy of the world's array): the caller writes every element of the world's array (body_count poses
 * or velocities, stride joint_count impulses) from it, and must not write it; NULL when the array was forked
 * before (write it in place). Under CTN_SNAP_SHARED the poses fork only after ctn__snapshot_pose_spare. */
void *ctn__snapshot_fork(ctn_world *w, unsigned what);
/* After the in-place integration of a step under CTN_SNAP_SHARED passed the divergence test: the step can no longer
 * be undone (its poses are written in place, and nothing fails after the test), so the step spare is free for the
 * projection's copy of the poses; the start velocities and impulses it kept are released (CTN_SNAP_RELEASED). */
void ctn__snapshot_release(ctn_world *w);
/* The same for writers in place: the arrays of `what` not forked yet are copied to their spares (the pose
 * spare reserved first where the take left none: CTN_ERR_OUT_OF_MEMORY, nothing copied, when that fails). */
ctn_status ctn__snapshot_keep(ctn_world *w, unsigned what);
void ctn__snapshot_restore(ctn_world *w);
void ctn__snapshot_free(ctn_world *w);
/* The same for the joint table and the solver layout (w->joint_snap): taken by the contact generation
 * before it edits the contacts; the restore puts them back and rebuilds the layout the step started with. */
ctn_status ctn__joints_snapshot_take(ctn_world *w);
void ctn__joints_snapshot_restore(ctn_world *w);
/* The check of one body (CTN_OK, or CTN_ERR_DIVERGED naming it); *speed = max(|v|, |w|). */
ctn_status ctn__divergence_body(ctn_world *w, int i, const ctn_pose *p, const ctn_vel *v, double *speed);
/* The same test without a message (safe on many threads at once): 1 when the body diverged (a non-finite
 * pose or velocity, or max(|v|, |w|) above desc.max_speed when that is > 0). Inline: it runs for every body at
 * every step. The 16 floats of position, orientation, velocity and angular velocity are tested by their
 * exponent fields (host/core/nonfinite.h; ctn_pose: p, p_lo, q, four floats read at each, lane 3 of p and p_lo
 * not tested; ctn_vel: v, w, six floats read as floats 0..3 and lanes 2, 3 of floats 2..5); and since sqrtf is
 * monotone, sqrtf(max(v.v, w.w)) is max(|v|, |w|) to the bit with one root instead of two. */
_Static_assert(sizeof(ctn_pose) == 40 && offsetof(ctn_pose, p_lo) == 12 && offsetof(ctn_pose, q) == 24, "ctn__body_diverged's pose lanes");
_Static_assert(sizeof(ctn_vel) == 24 && offsetof(ctn_vel, w) == 12, "ctn__body_diverged's velocity lanes");
/* The finite test of the pose's 10 floats (ctn__lanes_any of it: one is NaN or infinite); also the exact
 * solver's check of its projection's unchecked last step (host/solve/solver_cpu.c project_unchecked). */
static inline ctn_lanes ctn__pose_nonfinite(const ctn_pose *p) {
    const float *pf = (const float *)(const void *)p;
    return ctn__lanes_or(ctn__lanes_or(ctn__lanes_nonfinite(pf, ctn__lanes_xyz), ctn__lanes_nonfinite(pf + 6, ctn__lanes_all)),
                         ctn__lanes_nonfinite(pf + 3, ctn__lanes_xyz));
}
/* The finite test of those 16 floats (ctn__lanes_any of it: one is NaN or infinite); also the CPU's lean scan's
 * (host/solve/body_passes.c ctn__body_scan). */
static inline ctn_lanes ctn__state_nonfinite(const ctn_pose *p, const ctn_vel *v) {
    const float *vf = (const float *)(const void *)v;
    return ctn__lanes_or(ctn__pose_nonfinite(p), ctn__lanes_or(ctn__lanes_nonfinite(vf, ctn__lanes_all), ctn__lanes_nonfinite(vf + 2, ctn__lanes_zw)));
}
static inline int ctn__body_diverged(const ctn_world *w, const ctn_pose *p, const ctn_vel *v, double *speed) {
    if (ctn__lanes_any(ctn__state_nonfinite(p, v))) return 1;
    float a = ctn_dot(v->v, v->v), b = ctn_dot(v->w, v->w);
    *speed = sqrtf(a > b ? a : b);
    return *speed > (w->desc.max_speed > 0.0 ? w->desc.max_speed : INFINITY);
}

/* Joints by slot (host/core/joint.c): inserts a definition without validation into a new slot (*slot gets it),
 * and kills a live joint slot (no checks; its slot is freed for reuse). Both mark the topology dirty. */
ctn_status ctn__joint_insert(ctn_world *w, const ctn_joint_def *def, int *slot);
void ctn__joint_kill(ctn_world *w, int slot);
/* The persistent user forces (host/core/body_force.c). ctn__body_force_get: body i's (zero where the world
 * keeps none). ctn__body_force_set: sets body i's, creating the array for the first one that is not all +0.0
 * (CTN_ERR_OUT_OF_MEMORY, nothing changed, when that fails) and dropping it when the last such one becomes
 * zero. ctn__body_force_alloc: an array of `cap` entries, the first `count` copied from `old`, the rest zero;
 * NULL when out of memory. ctn__body_force_recount: force_bodies from the array after a load, the
 * dead slots' entries cleared, the array dropped when none is left. */
ctn_body_force ctn__body_force_get(const ctn_world *w, int i);
ctn_status ctn__body_force_set(ctn_world *w, int i, ctn_v3 force, ctn_v3 torque);
ctn_body_force *ctn__body_force_alloc(size_t cap, const ctn_body_force *old, size_t count);
void ctn__body_force_recount(ctn_world *w);

/* Frees body slot `id` (no checks; joints on it and its shape must be gone): its generation is bumped and
 * the slot goes on the free stack (host/core/body.c, for ctn_body_remove, which makes the generations first:
 * ctn__body_gens). */
void ctn__body_release(ctn_world *w, int id);

/* The world without a backend, and its storage freed (host/core/world.c); the public ctn_world_create,
 * ctn_world_destroy and ctn_world_step that add the backend, collision and the pipeline are
 * host/api/world_api.c. */
ctn_status ctn__world_new(const ctn_world_desc *desc, ctn_world **out, char *err, size_t err_size);
void ctn__world_free(ctn_world *w);
/* Fills the step statistics that follow from the settings and the topology; stores them on the world. */
void ctn__step_stats_finish(ctn_world *w, ctn_step_stats *st, double t0_ms);
/* The CPU backend's OpenMP team (host/core/threads.c): desc.threads, else the CPUs of the process's affinity
 * mask as read by ctn__threads_refresh (at world creation and every step's start). */
int ctn__affinity_cpus(void);
void ctn__threads_refresh(ctn_world *w);
static inline int ctn__threads(const ctn_world *w) { return w->desc.threads > 0 ? w->desc.threads : w->affinity_cpus; }

/* Curve constraints (host/core/curve.c). A polyline's vertices, in its frame body's frame, and the segment
 * the bead is on (its window in the joint definition is centred there). */
typedef struct ctn_polyline {
    double *points; /* [3 count] */
    int count;
    int closed;
    int segment;    /* segments are count - 1 (count when closed); segment i runs from vertex i to i + 1 */
} ctn_polyline;
/* Moves every polyline window to the segment nearest its bead (a local walk from the last segment) before a
 * step; marks the topology dirty when one moved. */
ctn_status ctn__curve_track(ctn_world *w);
/* Re-centres the angle references of the gears and rack-and-pinions that turned more than CTN_GEAR_RECENTRE
 * since their last re-centring (host/core/joint_gear.c); the step calls it before the topology rebuild. */
ctn_status ctn__gear_track(ctn_world *w);
/* Frees the polyline of joint slot j (a removed joint), of every slot from `first` on (a rolled-back scene
 * build), all of them (world destroy). */
void ctn__curve_forget(ctn_world *w, int j);
void ctn__curve_truncate(ctn_world *w, int first);
void ctn__curve_free(ctn_world *w);
/* Gives joint slot j (a curve joint whose definition is in place) the polyline of `count` vertices (3 count
 * doubles, copied), positions its window at the bead. Used by ctn_curve_constraint_add and checkpoints. */
ctn_status ctn__curve_set_polyline(ctn_world *w, int j, const double *points, int count, int closed, int segment);

#endif /* CTN_HOST_WORLD_H */
