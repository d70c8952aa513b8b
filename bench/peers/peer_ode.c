/* peer_ode: the hanging chain in ODE 0.16 (double precision build), maximal coordinates.
 *
 * One dBody per link, dJointCreateBall joints (the first attached to the static environment), stepped with
 * dWorldQuickStep (projected SOR Gauss-Seidel, row by row, warm started) with dWorldSetQuickStepNumIterations
 * = chain->iterations. ODE's defaults otherwise (ERP 0.2, CFM 1e-10 in double precision, SOR w 1.3). No
 * collision space: the chain has no contacts. The variant is ignored.
 */
#include "peer.h"

#include <ode/ode.h>

#include <stdio.h>
#include <stdlib.h>

typedef struct ode_sim {
    dWorldID world;
    dBodyID *bodies;
    int links, substeps;
    double h, half;
} ode_sim;

static int ode_initialised;

static void ode_destroy(void *p) {
    ode_sim *s = p;
    if (!s) return;
    if (s->world) dWorldDestroy(s->world); /* destroys its bodies and joints */
    free(s->bodies);
    free(s);
}

static void *ode_create(const peer_chain *c, char *note, size_t note_size, char *err, size_t err_size) {
    if (!ode_initialised) {
        dInitODE2(0);
        ode_initialised = 1;
    }
    ode_sim *s = calloc(1, sizeof *s);
    if (!s || !(s->bodies = calloc((size_t)c->links, sizeof *s->bodies))) {
        free(s);
        snprintf(err, err_size, "ode: out of memory");
        return NULL;
    }
    const double L = c->link_length;
    s->links = c->links;
    s->substeps = c->substeps;
    s->h = c->time_step / c->substeps;
    s->half = 0.5 * L;
    s->world = dWorldCreate();
    dWorldSetGravity(s->world, 0, -c->gravity, 0);
    dWorldSetQuickStepNumIterations(s->world, c->iterations);
    dWorldSetAutoDisableFlag(s->world, 0);
    dMass m;
    dMassSetParameters(&m, c->link_mass, 0, 0, 0, c->inertia[0], c->inertia[1], c->inertia[2], 0, 0, 0);
    for (int i = 0; i < c->links; ++i) {
        dBodyID b = dBodyCreate(s->world);
        dBodySetPosition(b, 0, -(i + 0.5) * L, 0);
        dBodySetMass(b, &m);
        s->bodies[i] = b;
        dJointID j = dJointCreateBall(s->world, 0);
        dJointAttach(j, b, i == 0 ? 0 : s->bodies[i - 1]);
        dJointSetBallAnchor(j, 0, -i * L, 0);
    }
    snprintf(note, note_size, "dWorldQuickStep, dJointCreateBall, %s precision, erp %.2g, cfm %.2g", sizeof(dReal) == 8 ? "double" : "single",
             (double)dWorldGetERP(s->world), (double)dWorldGetCFM(s->world));
    return s;
}

static int ode_step(void *p) {
    ode_sim *s = p;
    for (int k = 0; k < s->substeps; ++k)
        if (!dWorldQuickStep(s->world, s->h)) return 1;
    return 0;
}

/* world point of body-frame point (0, y, 0): p + R[:,1] y; dMatrix3 is 3x4 row-major */
static void ode_point(dBodyID b, double y, double *out) {
    const dReal *p = dBodyGetPosition(b), *R = dBodyGetRotation(b);
    for (int k = 0; k < 3; ++k) out[k] = (double)p[k] + (double)R[4 * k + 1] * y;
}

static int ode_anchors(void *p, double *top, double *bottom) {
    ode_sim *s = p;
    for (int i = 0; i < s->links; ++i) {
        ode_point(s->bodies[i], s->half, top + 3 * i);
        ode_point(s->bodies[i], -s->half, bottom + 3 * i);
    }
    return 0;
}

const peer_engine peer_ode = {"ode", ode_create, ode_step, ode_anchors, ode_destroy};
