/* ctn_world: the description and its checks, allocation and freeing, settings, errors and the log hook.
 * Creation with a backend, the step and destruction are host/api/world_api.c (they call the folders above
 * core); bodies and joints live in body.c / joint.c. */
#define _POSIX_C_SOURCE 200809L
#include "core/world.h"
#include "core/attach.h"
#include "core/joint_kinds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

ctn_status ctn__fail(ctn_world *w, ctn_status status, const char *fmt, ...) {
    if (w) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->error, sizeof w->error, fmt, ap);
        va_end(ap);
    }
    return status;
}

/* The process-wide log hook (ctn_set_log). Set once at start-up by the application; see catena.h. */
static ctn_log_fn global_log;
static void *global_log_user;

void ctn_set_log(ctn_log_fn log, void *user) {
    global_log = log;
    global_log_user = user;
}

/* The OpenCL binary cache directory (ctn_set_cache_dir), "" for none; read by host/opencl/opencl_cache.c. */
static char cache_dir[1024];

ctn_status ctn_set_cache_dir(const char *dir) {
    if (dir && strlen(dir) >= sizeof cache_dir) return CTN_ERR_LIMIT;
    snprintf(cache_dir, sizeof cache_dir, "%s", dir ? dir : "");
    return CTN_OK;
}

const char *ctn_get_cache_dir(void) { return cache_dir; }

void ctn__log(const ctn_world *w, ctn_log_level level, const char *fmt, ...) {
    ctn_log_fn log = w && w->desc.log ? w->desc.log : global_log;
    void *user = w && w->desc.log ? w->desc.log_user : global_log_user;
    if (!log) return;
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    log(level, msg, user);
}

double ctn__now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

int ctn__substeps(const ctn_world *w) {
    if (w->desc.substeps > 0) return w->desc.substeps;
    /* the choice was made for another solver (the OpenCL backend turned an auto DIRECT down): the default */
    return w->auto_substeps > 0 && w->substeps_solver == w->solver ? w->auto_substeps : 4;
}

ctn_step_params ctn__step_params(const ctn_world *w) {
    ctn_step_params prm;
    memset(&prm, 0, sizeof prm);
    prm.gravity = ctn_v3_make((float)w->desc.gravity[0], (float)w->desc.gravity[1], (float)w->desc.gravity[2]);
    prm.h = (float)(w->desc.time_step / ctn__substeps(w));
    prm.compliance = (float)w->desc.compliance;
    prm.damping_time = (float)w->desc.damping_time;
    prm.baumgarte = (float)w->desc.baumgarte;
    prm.stabilization = w->desc.stabilization == CTN_STAB_BAUMGARTE ? 1 : 0;
    prm.warm_start = (float)w->desc.warm_start;
    prm.mass_split = w->solver == CTN_SOLVER_JACOBI;
    prm.geometric_stiffness = (float)w->desc.geometric_stiffness;
    return prm;
}

ctn_pose ctn__world_pose(void) {
    ctn_pose p;
    memset(&p, 0, sizeof p);
    p.q = ctn_quat_identity();
    return p;
}

ctn_world_desc ctn_world_desc_default(void) {
    ctn_world_desc d;
    memset(&d, 0, sizeof d);
    d.gravity[1] = -9.81;
    d.time_step = 1.0 / 60.0;
    d.substeps = 4;
    d.iterations = 4;
    d.solver = CTN_SOLVER_AUTO;
    d.stabilization = CTN_STAB_SPOOK;
    d.compliance = 0.0;
    d.damping_time = 0.0;
    d.baumgarte = 0.2;
    d.warm_start = 0.5; /* full warm start destabilises unconverged GS on long chains: docs/guide.md, "Warm start factor" */
    d.max_colours = 32;
    d.threads = 0;
    d.max_speed = 1e4;
    d.geometric_stiffness = 1.0;
    d.backend = CTN_BACKEND_AUTO;
    d.integrator = CTN_INTEGRATOR_RATTLE;
    d.rattle_max_joints = 0;
    d.bounded_rows = CTN_BOUNDED_AUTO;
    d.device = NULL;
    d.log = NULL;
    d.log_user = NULL;
    d.debug.direct_forest = -1;
    d.debug.forest_band = -1;
    d.debug.chain_segment = -1;
    d.debug.forest_local_one = -1;
    d.debug.trace = 0;
    d.debug.project_chord = -1;
    d.debug.fault = NULL;
    return d;
}

static int finite3(const double v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

/* The debug options: each knob is -1 (automatic) or a value in its range. The fault string is checked
 * by ctn__fault_parse at creation. */
static int debug_check(const ctn_debug_options *o, char *msg, size_t size) {
    const struct {
        const char *name;
        int value, lo, hi;
    } knob[] = {{"direct_forest", o->direct_forest, 0, 1},
                {"forest_band", o->forest_band, 1, 1 << 20},
                {"chain_segment", o->chain_segment, 0, 1 << 30},
                {"forest_local_one", o->forest_local_one, 0, 1},
                {"project_chord", o->project_chord, 0, 1}};
    for (size_t k = 0; k < sizeof knob / sizeof knob[0]; ++k) {
        if (knob[k].value != -1 && (knob[k].value < knob[k].lo || knob[k].value > knob[k].hi)) {
            snprintf(msg, size, "desc.debug.%s: %d is not -1 (automatic) or in [%d, %d]", knob[k].name, knob[k].value, knob[k].lo,
                     knob[k].hi);
            return 0;
        }
    }
    if (o->fault && strlen(o->fault) >= 79) {
        snprintf(msg, size, "desc.debug.fault: longer than 78 characters");
        return 0;
    }
    return 1;
}

/* Checks every field of a world description; writes the first problem to msg. */
static int desc_check(const ctn_world_desc *d, char *msg, size_t size) {
    if (!finite3(d->gravity)) {
        snprintf(msg, size, "desc.gravity: non-finite component (%g, %g, %g)", d->gravity[0], d->gravity[1], d->gravity[2]);
        return 0;
    }
    if (!(d->time_step > 0.0) || !isfinite(d->time_step) || d->time_step > 10.0) {
        snprintf(msg, size, "desc.time_step: %g is not in (0, 10] s", d->time_step);
        return 0;
    }
    if (d->substeps < CTN_SUBSTEPS_AUTO || d->substeps > CTN_MAX_SUBSTEPS) {
        snprintf(msg, size, "desc.substeps: %d is not in [0 (auto), %d]", d->substeps, CTN_MAX_SUBSTEPS);
        return 0;
    }
    if (d->iterations < 1 || d->iterations > CTN_MAX_ITERATIONS) {
        snprintf(msg, size, "desc.iterations: %d is not in [1, %d]", d->iterations, CTN_MAX_ITERATIONS);
        return 0;
    }
    if ((int)d->solver < CTN_SOLVER_GS || (int)d->solver > CTN_SOLVER_AUTO) {
        snprintf(msg, size, "desc.solver: unknown solver %d", (int)d->solver);
        return 0;
    }
    if ((int)d->stabilization < CTN_STAB_SPOOK || (int)d->stabilization > CTN_STAB_BAUMGARTE) {
        snprintf(msg, size, "desc.stabilization: unknown value %d", (int)d->stabilization);
        return 0;
    }
    if (!(d->compliance >= 0.0) || !isfinite(d->compliance)) {
        snprintf(msg, size, "desc.compliance: %g must be finite and >= 0", d->compliance);
        return 0;
    }
    if (!isfinite(d->damping_time)) {
        snprintf(msg, size, "desc.damping_time: %g is not finite", d->damping_time);
        return 0;
    }
    if (!(d->baumgarte >= 0.0 && d->baumgarte <= 1.0)) {
        snprintf(msg, size, "desc.baumgarte: %g is not in [0, 1]", d->baumgarte);
        return 0;
    }
    if (!(d->warm_start >= 0.0 && d->warm_start <= 1.0)) {
        snprintf(msg, size, "desc.warm_start: %g is not in [0, 1]", d->warm_start);
        return 0;
    }
    if (d->max_colours < 2 || d->max_colours > CTN_MAX_COLOURS) {
        snprintf(msg, size, "desc.max_colours: %d is not in [2, %d]", d->max_colours, CTN_MAX_COLOURS);
        return 0;
    }
    if (d->threads < 0 || d->threads > CTN_MAX_THREADS) {
        snprintf(msg, size, "desc.threads: %d is not in [0, %d]", d->threads, CTN_MAX_THREADS);
        return 0;
    }
    if (!(d->geometric_stiffness >= 0.0 && d->geometric_stiffness <= 100.0)) {
        snprintf(msg, size, "desc.geometric_stiffness: %g is not in [0, 100]", d->geometric_stiffness);
        return 0;
    }
    if (isnan(d->max_speed)) {
        snprintf(msg, size, "desc.max_speed: NaN (use a value <= 0 to disable the divergence guard)");
        return 0;
    }
    if ((int)d->integrator < CTN_INTEGRATOR_RATTLE || (int)d->integrator > CTN_INTEGRATOR_VELOCITY) {
        snprintf(msg, size, "desc.integrator: unknown integrator %d (0 rattle, 1 velocity)", (int)d->integrator);
        return 0;
    }
    if (d->rattle_max_joints < 0 || d->rattle_max_joints > CTN_MAX_JOINTS) {
        snprintf(msg, size, "desc.rattle_max_joints: %d is not in [0 (the default, %d), %d]", d->rattle_max_joints, CTN_RATTLE_MAX_JOINTS,
                 CTN_MAX_JOINTS);
        return 0;
    }
    if ((int)d->bounded_rows < CTN_BOUNDED_AUTO || (int)d->bounded_rows > CTN_BOUNDED_SWEEP) {
        snprintf(msg, size, "desc.bounded_rows: unknown value %d (0 auto, 1 exact, 2 sweep)", (int)d->bounded_rows);
        return 0;
    }
    if ((int)d->backend < CTN_BACKEND_AUTO || (int)d->backend > CTN_BACKEND_OPENCL) {
        snprintf(msg, size, "desc.backend: unknown backend %d", (int)d->backend);
        return 0;
    }
    if (d->device && strlen(d->device) >= 255) {
        snprintf(msg, size, "desc.device: name longer than 254 characters");
        return 0;
    }
    return debug_check(&d->debug, msg, size);
}

/* Checks the description, then allocates a world holding a copy of it, with no backend yet (the layer
 * above, host/api/world_api.c, picks it). Nothing is allocated on failure: err gets the reason. */
ctn_status ctn__world_new(const ctn_world_desc *desc, ctn_world **out, char *err, size_t err_size) {
    char msg[512];
    if (out) *out = NULL;
    if (!desc || !out) {
        if (err && err_size) snprintf(err, err_size, "ctn_world_create: %s is NULL", desc ? "out" : "desc");
        return CTN_ERR_INVALID_ARGUMENT;
    }
    if (!desc_check(desc, msg, sizeof msg)) {
        if (err && err_size) snprintf(err, err_size, "%s", msg);
        return CTN_ERR_INVALID_ARGUMENT;
    }
    ctn_fault fault;
    ctn_status fs = ctn__fault_parse(desc->debug.fault, &fault, msg, sizeof msg);
    if (fs != CTN_OK) {
        if (err && err_size) snprintf(err, err_size, "%s", msg);
        return fs;
    }
    ctn_world *w = ctn__calloc(1, sizeof *w);
    if (!w) {
        if (err && err_size) snprintf(err, err_size, "out of memory allocating the world");
        return CTN_ERR_OUT_OF_MEMORY;
    }
    w->tag = ctn__world_tag_claim();
    if (!w->tag) {
        ctn__free(w);
        if (err && err_size) snprintf(err, err_size, "ctn_world_create: 65535 worlds are alive, the most one process may hold");
        return CTN_ERR_LIMIT;
    }
    w->desc = *desc;
    ctn__threads_refresh(w);
    w->fault = fault;
    if (desc->device) {
        snprintf(w->device_request, sizeof w->device_request, "%s", desc->device);
        w->desc.device = w->device_request;
    }
    if (desc->debug.fault) {
        snprintf(w->fault_request, sizeof w->fault_request, "%s", desc->debug.fault);
        w->desc.debug.fault = w->fault_request;
    }
    w->topology_dirty = 1;
    *out = w;
    return CTN_OK;
}

/* Frees what core owns: the body and joint arrays, the topology, the snapshot and the world itself
 * (the backend, the exact solver's data and the collision state are freed first, by ctn_world_destroy). */
void ctn__world_free(ctn_world *w) {
    ctn__free(w->auto_scratch);
    ctn__topology_free(&w->topo);
    ctn__snapshot_free(w);
    ctn__curve_free(w);
    ctn__attach_free(w);
    ctn__free(w->pose);
    ctn__free(w->vel);
    ctn__free(w->inertia);
    ctn__free(w->props);
    ctn__free(w->body_force);
    ctn__free(w->body_refs);
    ctn__body_names_free(w);
    ctn__joint_names_free(w);
    ctn__free(w->joint_core);
    ctn__free(w->joint_extra);
    ctn__free(w->joint_pos);
    ctn__free(w->joint_at);
    ctn__free(w->joint_alive);
    ctn__free(w->joint_slot);
    ctn__free(w->body_gen);
    ctn__free(w->body_free);
    ctn__free(w->joint_gen);
    ctn__free(w->joint_free);
    ctn__world_tag_release(w->tag);
    ctn__free(w);
}

/* The step statistics that follow from the settings and the topology, and the total time since t0_ms. */
int ctn__direct_outer(const ctn_world *w) {
    return w->desc.solver == CTN_SOLVER_AUTO && w->solver == CTN_SOLVER_DIRECT && w->auto_outer > w->desc.iterations ? w->auto_outer
                                                                                                                      : w->desc.iterations;
}

/* max_gap splits into the joints' gap and the contacts' depth: ctn_joint_error gives a contact its
 * penetration (a one-sided row counts only when violated), which is no joint error, and a user reading
 * "gap 0.1 m" could not tell a torn mechanism from a box resting 0.1 m deep. Without contact joints the
 * split is max_gap itself (no pass); with them one pass over the stored state (on the OpenCL backend after
 * the download that the next step's collision detection needs anyway: a world with a contact joint has
 * collision state, built-in contacts come from it and ctn_world_add_contact creates it, and every step
 * starts ctn__collide with that download, which then finds the host current; so the split moves the step's
 * one download earlier and adds none). If that download fails, both get max_gap, an upper bound of each. */
static void step_split_gap(ctn_world *w, ctn_step_stats *st) {
    st->max_joint_gap = st->max_gap, st->max_penetration = 0.0;
    /* whether a contact joint lives: kept per topology version (adding or removing a joint marks the topology
     * dirty, and a joint's type never changes), so a step without contacts makes no pass over the joints */
    int any;
    if (w->topology_dirty) {
        any = ctn__has_contacts(w);
    } else {
        if (w->contacts_version != w->topology_version + 1u) w->contacts_version = w->topology_version + 1u, w->contacts_any = ctn__has_contacts(w);
        any = w->contacts_any;
    }
    if (!any) return;
    if (ctn__sync(w) != CTN_OK) {
        st->max_penetration = st->max_gap;
        return;
    }
    double joint = 0.0, depth = 0.0;
    for (int j = 0; j < w->joint_count; ++j) {
        float gap, angle, pen;
        ctn__joint_slot_errors(w, j, &gap, &angle, &pen);
        joint = gap > joint ? gap : joint;
        depth = pen > depth ? pen : depth;
    }
    st->max_joint_gap = joint, st->max_penetration = depth;
}

void ctn__step_stats_finish(ctn_world *w, ctn_step_stats *st, double t0_ms) {
    st->solver = w->solver;
    snprintf(st->solver_reason, sizeof st->solver_reason, "%s", w->solver_reason);
    st->substeps = ctn__substeps(w);
    st->iterations = w->solver == CTN_SOLVER_DIRECT ? ctn__direct_outer(w) : w->desc.iterations;
    st->colours = w->topo.colour_count;
    st->largest_colour = w->topo.largest_colour;
    st->overflow = w->topo.colour_offsets ? w->topo.colour_offsets[w->topo.colour_count + 1] - w->topo.colour_offsets[w->topo.colour_count] : 0;
    st->rows = w->topo.row_count;
    st->row_updates = (double)w->topo.row_count * st->iterations * st->substeps;
#ifdef _OPENMP
    st->threads = w->backend && strcmp(w->backend->name, "cpu") ? 0 : ctn__threads(w);
#else
    st->threads = w->backend && strcmp(w->backend->name, "cpu") ? 0 : 1;
#endif
    step_split_gap(w, st);
    st->ms_total = ctn__now_ms() - t0_ms;
    w->stats = *st;
}

/* A call refused as busy could not write w->error (another thread owns it): its message is this thread's
 * (host/core/world_guard.c). */
const char *ctn_world_last_error(const ctn_world *w) {
    if (!w) return "world is NULL";
    const char *busy = ctn__busy_message(w);
    return busy ? busy : w->error;
}

ctn_status ctn_world_set_desc(ctn_world *w, const ctn_world_desc *desc) {
    char msg[512];
    CTN__ENTER(w);
    if (!desc) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_set_desc: desc is NULL");
    if (!desc_check(desc, msg, sizeof msg)) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "%s", msg);
    if (desc->backend != w->desc.backend)
        return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "desc.backend: cannot change the backend of a live world");
    int colours_changed = desc->max_colours != w->desc.max_colours;
    const char *dev = w->desc.device, *fault = w->desc.debug.fault; /* fixed at creation, like the backend */
    w->desc = *desc;
    w->desc.device = dev;
    w->desc.debug.fault = fault;
    if (colours_changed) w->topology_dirty = 1;
    return CTN_OK;
}

ctn_status ctn_world_get_desc(const ctn_world *w, ctn_world_desc *out) {
    if (!w || !out) return CTN_ERR_INVALID_ARGUMENT;
    *out = w->desc;
    return CTN_OK;
}

ctn_status ctn__sync(ctn_world *w) {
    if (!w->host_stale) return CTN_OK;
    ctn_status st = w->backend->sync_to_host(w);
    if (st == CTN_OK) w->host_stale = 0;
    return st;
}

int ctn__has_contacts(const ctn_world *w) {
    for (int j = 0; j < w->joint_count; ++j)
        if (w->joint_alive[j] && ctn__jcore(w, j)->type == CTN_JT_CONTACT) return 1;
    return 0;
}

void ctn__joint_slot_errors(const ctn_world *w, int j, float *gap, float *angle, float *depth) {
    *gap = *angle = *depth = 0.0f;
    if (!w->joint_alive[j] || ctn__joint_kind_has(ctn__jcore(w, j)->type, CTN_JK_FORCE)) return; /* no rows, no error */
    ctn_joint_def def = ctn__jdef_get(w, j), *d = &def;
    float g, a;
    ctn_joint_error(*d, w->pose[d->a], d->b >= 0 ? w->pose[d->b] : ctn__world_pose(), &g, &a);
    /* a contact's error is its penetration, how deep a resting body sits, not a mechanism coming apart: it
     * is reported on its own so that a pile's depth never reads as a torn joint */
    if (d->type == CTN_JT_CONTACT) *depth = g;
    else *gap = g, *angle = a;
}

void ctn__measure_host(const ctn_world *w, double *max_gap, double *max_angle) {
    double gmax = 0.0, amax = 0.0;
    for (int j = 0; j < w->joint_count; ++j) {
        float gap, angle, depth;
        ctn__joint_slot_errors(w, j, &gap, &angle, &depth);
        if (gap > gmax) gmax = gap;
        if (angle > amax) amax = angle;
    }
    *max_gap = gmax;
    *max_angle = amax;
}

ctn_status ctn_world_measure(ctn_world *w, double *max_gap, double *max_angle) {
    CTN__ENTER(w);
    if (!max_gap || !max_angle) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_measure: output pointer is NULL");
    /* the device's MEASURE counts contacts with the joints: with contacts the host state is measured instead */
    int contacts = ctn__has_contacts(w);
    if (w->backend->measure && w->host_stale && !contacts) return w->backend->measure(w, max_gap, max_angle);
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    ctn__measure_host(w, max_gap, max_angle);
    return CTN_OK;
}

ctn_status ctn_world_measure_contacts(ctn_world *w, double *max_depth) {
    CTN__ENTER(w);
    if (!max_depth) return ctn__fail(w, CTN_ERR_INVALID_ARGUMENT, "ctn_world_measure_contacts: max_depth is NULL");
    double deepest = 0.0;
    if (ctn__has_contacts(w)) {
        ctn_status st = ctn__sync(w);
        if (st != CTN_OK) return st;
        for (int j = 0; j < w->joint_count; ++j) {
            float gap, angle, depth;
            ctn__joint_slot_errors(w, j, &gap, &angle, &depth);
            if (depth > deepest) deepest = depth;
        }
    }
    *max_depth = deepest;
    return CTN_OK;
}

ctn_status ctn_world_get_stats(const ctn_world *w, ctn_step_stats *out) {
    if (!w || !out) return CTN_ERR_INVALID_ARGUMENT;
    *out = w->stats;
    return CTN_OK;
}

const char *ctn_world_backend_name(const ctn_world *w) { return w && w->backend ? w->backend->name : "none"; }
const char *ctn_world_device_name(const ctn_world *w) { return w ? w->device_name : ""; }

#ifndef CATENA_HAVE_OPENCL
ctn_status ctn_list_devices(ctn_device_info *out, int capacity, int *count, char *err, size_t err_size) {
    (void)out;
    (void)capacity;
    if (!count) return CTN_ERR_INVALID_ARGUMENT;
    *count = 0;
    if (err && err_size) snprintf(err, err_size, "this build of catena has no OpenCL support");
    return CTN_OK;
}
#endif
