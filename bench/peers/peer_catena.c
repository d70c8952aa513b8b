/* peer_catena: the hanging chain in Catena, through the public API only (ctn_scene_chain).
 *
 * variant "BACKEND:SOLVER" with BACKEND cpu|opencl|auto and SOLVER gs|jacobi|cg|direct (default "cpu:gs").
 * One step() is one ctn_world_step: `substeps` substeps of time_step/substeps with `iterations` each, as
 * configured in the world. Catena lays a link's long axis along body x, pointing down the chain.
 */
#include "peer.h"

#include "catena/catena.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct catena_sim {
    ctn_world *world;
    ctn_body_id first;
    int links;
    double half;
} catena_sim;

static void catena_destroy(void *p) {
    catena_sim *s = p;
    if (!s) return;
    ctn_world_destroy(s->world);
    free(s);
}

static void *catena_create(const peer_chain *c, char *note, size_t note_size, char *err, size_t err_size) {
    char backend[16] = "cpu", solver[16] = "gs";
    if (c->variant[0] && sscanf(c->variant, "%15[a-z]:%15[a-z]", backend, solver) != 2) {
        snprintf(err, err_size, "catena: bad variant '%s' (want BACKEND:SOLVER)", c->variant);
        return NULL;
    }
    ctn_world_desc d = ctn_world_desc_default();
    if (!strcmp(backend, "cpu")) d.backend = CTN_BACKEND_CPU;
    else if (!strcmp(backend, "opencl")) d.backend = CTN_BACKEND_OPENCL;
    else if (!strcmp(backend, "auto")) d.backend = CTN_BACKEND_AUTO;
    else {
        snprintf(err, err_size, "catena: unknown backend '%s' (cpu|opencl|auto)", backend);
        return NULL;
    }
    if (!strcmp(solver, "gs")) d.solver = CTN_SOLVER_GS;
    else if (!strcmp(solver, "jacobi")) d.solver = CTN_SOLVER_JACOBI;
    else if (!strcmp(solver, "cg")) d.solver = CTN_SOLVER_CG;
    else if (!strcmp(solver, "direct")) d.solver = CTN_SOLVER_DIRECT;
    else {
        snprintf(err, err_size, "catena: unknown solver '%s' (gs|jacobi|cg|direct)", solver);
        return NULL;
    }
    d.gravity[0] = 0.0, d.gravity[1] = -c->gravity, d.gravity[2] = 0.0;
    d.time_step = c->time_step;
    d.substeps = c->substeps;
    d.iterations = c->iterations;
    d.threads = c->threads;
    catena_sim *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, err_size, "catena: out of memory");
        return NULL;
    }
    char msg[1024] = "";
    if (ctn_world_create(&d, &s->world, msg, sizeof msg) != CTN_OK) {
        snprintf(err, err_size, "catena %s: %s", c->variant, msg);
        free(s);
        return NULL;
    }
    ctn_chain_desc chain = ctn_chain_desc_default(c->links);
    chain.link_length = c->link_length;
    chain.link_mass = c->link_mass;
    chain.direction[0] = 0.0, chain.direction[1] = -1.0, chain.direction[2] = 0.0;
    if (ctn_scene_chain(s->world, &chain, &s->first) != CTN_OK) {
        snprintf(err, err_size, "catena: %s", ctn_world_last_error(s->world));
        catena_destroy(s);
        return NULL;
    }
    s->links = c->links;
    s->half = 0.5 * c->link_length;
    ctn_world_desc got;
    ctn_world_get_desc(s->world, &got);
    snprintf(note, note_size, "Catena %s backend (%s), solver %s, threads %d (0 = automatic), warm start %.2g, SPOOK", ctn_world_backend_name(s->world),
             ctn_world_device_name(s->world), solver, c->threads, got.warm_start);
    return s;
}

static int catena_step(void *p) {
    catena_sim *s = p;
    ctn_status st = ctn_world_step(s->world);
    if (st != CTN_OK) fprintf(stderr, "catena: %s\n", ctn_world_last_error(s->world));
    return st != CTN_OK;
}

static int catena_anchors(void *p, double *top, double *bottom) {
    catena_sim *s = p;
    for (int i = 0; i < s->links; ++i) {
        ctn_body_state b;
        if (ctn_body_get_state(s->world, ctn_body_id_offset(s->first, i), &b) != CTN_OK) return 1;
        const double *q = b.orientation; /* (w, x, y, z); R e_x is the link axis, pointing down the chain */
        double ax[3] = {1.0 - 2.0 * (q[2] * q[2] + q[3] * q[3]), 2.0 * (q[1] * q[2] + q[0] * q[3]), 2.0 * (q[1] * q[3] - q[0] * q[2])};
        for (int k = 0; k < 3; ++k) {
            top[3 * i + k] = b.position[k] - s->half * ax[k];
            bottom[3 * i + k] = b.position[k] + s->half * ax[k];
        }
    }
    return 0;
}

const peer_engine peer_catena = {"catena", catena_create, catena_step, catena_anchors, catena_destroy};
