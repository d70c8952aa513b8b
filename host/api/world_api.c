/* The public entry points that orchestrate the folders below: world creation (the backend choice), the step
 * (collision, topology, solver choice, the step pipeline and the CPU fallback after a device fault),
 * destruction, and body removal (with the body's built-in contacts and shape). Core (host/core) holds the
 * world's storage and checks; these functions only call into it and into collide, solve and opencl, which
 * core must not do (host/README.md). */
#include "collide/collide.h"
#include "core/attach.h"
#include "core/world.h"
#include "opencl/opencl.h"
#include "solve/pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ctn_status select_backend(ctn_world *w) {
    ctn_backend want = w->desc.backend;
#ifdef CATENA_HAVE_OPENCL
    if (want == CTN_BACKEND_OPENCL || want == CTN_BACKEND_AUTO) {
        ctn_status st = ctn__opencl_backend_init(w);
        if (st == CTN_OK) return CTN_OK;
        if (want == CTN_BACKEND_OPENCL) return st;
        /* auto: say once why the GPU path is not used, then take the CPU fallback */
        ctn__log(w, CTN_LOG_WARNING, "OpenCL unavailable, using the CPU solver: %s", w->error);
        w->error[0] = '\0';
    }
#else
    if (want == CTN_BACKEND_OPENCL)
        return ctn__fail(w, CTN_ERR_UNSUPPORTED, "desc.backend: this build of catena has no OpenCL support");
#endif
    return ctn__cpu_backend_init(w);
}

ctn_status ctn_world_create(const ctn_world_desc *desc, ctn_world **out, char *err, size_t err_size) {
    ctn_world *w = NULL;
    if (out) *out = NULL;
    ctn_status st = ctn__world_new(desc, out ? &w : NULL, err, err_size);
    if (st != CTN_OK) return st;
    st = select_backend(w);
    if (st != CTN_OK) {
        if (err && err_size) snprintf(err, err_size, "%s", w->error);
        ctn__free(w);
        return st;
    }
    *out = w;
    return CTN_OK;
}

void ctn_world_destroy(ctn_world *w) {
    if (!w) return;
    if (ctn__world_claim(w) < 0) { /* freeing it under the other thread's call would crash that thread */
        ctn__log(w, CTN_LOG_WARNING, "ctn_world_destroy: the world is in use by another thread (a world is used by one thread at a time); it was not destroyed");
        return;
    }
    if (w->backend && w->backend->destroy) w->backend->destroy(w);
    ctn__direct_free(w);
    ctn__collision_free(w);
    ctn__world_free(w);
}

/* A device fault on backend `auto`. The OpenCL backend has put the state before the failed step
 * into the host arrays (host_stale 0); the world continues on the CPU solver from there, said once. */
static ctn_status fall_back_to_cpu(ctn_world *w) {
    char why[sizeof w->error];
    snprintf(why, sizeof why, "%s", w->error);
    if (w->backend->destroy) w->backend->destroy(w);
    w->backend = NULL;
    w->backend_data = NULL;
    ctn_status s = ctn__cpu_backend_init(w);
    if (s != CTN_OK) return s;
    ctn__log(w, CTN_LOG_WARNING, "the OpenCL device failed (%s); continuing on the CPU solver from the state before the failed step", why);
    w->error[0] = '\0';
    return CTN_OK;
}

/* A step that failed after its contact generation: the bodies are back (the backends' snapshots), and so
 * are the contacts (the contact cache, the joints and the solver layout the step started from). On a
 * divergence the host arrays hold that state in full: ctn__collide synced them before the step and a
 * backend leaves them alone. */
static ctn_status step_failed(ctn_world *w, ctn_status s) {
    if (w->collision && ctn__collide_undo(w)) {
        if (s == CTN_ERR_DIVERGED) {
            w->host_stale = 0;
            w->bodies_dirty = 1;
        }
    }
    return s;
}

ctn_status ctn_world_step(ctn_world *w) {
    CTN__ENTER(w);
    ctn__threads_refresh(w);
    double t0 = ctn__now_ms();
    ctn_step_stats st;
    memset(&st, 0, sizeof st);
    if (w->collision) {
        /* Built-in contacts of this step (adds / updates / removes contact joints) */
        ctn_status s = ctn__collide(w, &st.ms_collide, &st.contacts);
        if (s != CTN_OK) return s;
    }
    if (w->polyline_live > 0) {
        /* polyline windows to the segments their beads reached (kernels/ctn_curve.h, host/core/curve.c) */
        ctn_status s = ctn__curve_track(w);
        if (s != CTN_OK) return step_failed(w, s);
    }
    if (w->topo.gear_count > 0) {
        /* gear angle references re-centred before a gear turns by pi from them (host/core/joint_gear.c) */
        ctn_status s = ctn__gear_track(w);
        if (s != CTN_OK) return step_failed(w, s);
    }
    if (w->topology_dirty) {
        ctn_status s = ctn__sync(w);
        double tc = ctn__now_ms();
        if (s == CTN_OK) s = ctn__topology_build(w);
        if (s != CTN_OK) return step_failed(w, s);
        st.ms_colour = ctn__now_ms() - tc;
    }
    if (w->desc.solver != CTN_SOLVER_AUTO) {
        w->solver = w->desc.solver;
        w->solver_version = 0; /* choose again if auto comes back */
        snprintf(w->solver_reason, sizeof w->solver_reason, "set by desc.solver");
    } else if (w->solver_version != w->topology_version + 1u) {
        ctn_status s = ctn__auto_solver(w, &w->solver); /* the OpenCL backend may turn DIRECT down to GS */
        if (s != CTN_OK) return step_failed(w, s);
        w->solver_version = w->topology_version + 1u;
    }
    if (w->desc.substeps == CTN_SUBSTEPS_AUTO && (w->substeps_version != w->topology_version + 1u || w->substeps_solver != w->solver)) {
        ctn_status s = ctn__auto_substeps(w, w->solver, &w->auto_substeps);
        if (s != CTN_OK) return step_failed(w, s);
        w->substeps_version = w->topology_version + 1u;
        w->substeps_solver = w->solver;
    }
retry:; /* The step again on the CPU backend after a device fault (backend auto) */
    ctn_status s = ctn__pipeline_step(w, &st);
    if (s == CTN_ERR_DEVICE && w->desc.backend == CTN_BACKEND_AUTO && w->backend != &ctn__cpu_backend && !w->host_stale) {
        s = fall_back_to_cpu(w);
        if (s != CTN_OK) return step_failed(w, s);
        st.ms_prepare = st.ms_solve = st.ms_integrate = st.ms_transfer = 0.0;
        goto retry;
    }
    if (s != CTN_OK) return step_failed(w, s);
    ctn__step_stats_finish(w, &st, t0);
    return CTN_OK;
}

ctn_status ctn_body_remove(ctn_world *w, ctn_body_id handle) {
    CTN__ENTER(w);
    int id = ctn__body_index(w, handle, "ctn_body_remove", 0);
    if (id < 0) return w->handle_status;
    /* every check before the first change: the built-in contacts on the body go with it, any other joint
     * keeps it in use (the counts, kept from the first removal on) */
    ctn_status counted = ctn__body_refs(w);
    if (counted == CTN_OK) counted = ctn__body_gens(w); /* the removal raises the slot's generation */
    if (counted != CTN_OK) return counted;
    int user_refs = w->body_refs[id] - ctn__collision_body_contacts(w, id);
    if (user_refs > 0)
        return ctn__fail(w, CTN_ERR_IN_USE, "ctn_body_remove: body %lld is still used by %d joint(s); remove them first", (long long)ctn_body_id_to_int(handle),
                         user_refs);
    int g = ctn__attach_group_of(w, id);
    if (g >= 0)
        return ctn__fail(w, CTN_ERR_IN_USE, "ctn_body_remove: body %lld is the master of %d attached bodies; ctn_attach_remove them first",
                         (long long)ctn_body_id_to_int(handle), w->attach->groups[g].links);
    ctn_status st = ctn__sync(w);
    if (st != CTN_OK) return st;
    ctn__attach_forget(w, id); /* an attached body is detached first: its master gets its own mass back */
    ctn__collision_body_removed(w, id); /* its built-in contacts and its shape */
    ctn__body_release(w, id);
    return CTN_OK;
}
