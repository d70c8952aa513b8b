// peer_bullet: the hanging chain in Bullet 3 (C++; the only C++ file of the peer benchmark).
//
// variant "rigid" (default): maximal coordinates, btDiscreteDynamicsWorld + btSequentialImpulseConstraintSolver
//   (projected Gauss-Seidel, row by row, warm started), one btRigidBody per link and btPoint2PointConstraint
//   ball joints; solver iterations = chain->iterations. Bullet's defaults otherwise (ERP 0.2, CFM 0,
//   warm-start factor 0.85). Bodies get a box collision shape in a collision group with an empty mask, so
//   the broadphase runs (it is part of Bullet's step) but no contact pair is ever created.
// variant "multibody": reduced coordinates, btMultiBodyDynamicsWorld with one btMultiBody of spherical
//   joints (Featherstone articulated-body algorithm, O(n)); joints cannot open, so the gap is 0 by
//   construction and the iteration count is irrelevant (there are no constraint rows). Damping set to 0.
#include "peer.h"

#include <btBulletDynamicsCommon.h>
#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyConstraintSolver.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>
#include <BulletDynamics/Featherstone/btMultiBodyLink.h>

#include <cstdio>
#include <cstring>
#include <new>
#include <vector>

namespace {

struct BulletSim {
    btDefaultCollisionConfiguration *config = nullptr;
    btCollisionDispatcher *dispatcher = nullptr;
    btBroadphaseInterface *broadphase = nullptr;
    btConstraintSolver *solver = nullptr;
    btDiscreteDynamicsWorld *world = nullptr;
    btCollisionShape *shape = nullptr;
    std::vector<btRigidBody *> bodies;
    std::vector<btDefaultMotionState *> motion_states;
    std::vector<btTypedConstraint *> joints;
    btMultiBody *multibody = nullptr;
    btAlignedObjectArray<btQuaternion> scratch_q;
    btAlignedObjectArray<btVector3> scratch_v;
    double h = 0.0, half = 0.0;
    int substeps = 1, links = 0;
};

void destroy_sim(BulletSim *s) {
    if (!s) return;
    if (s->world) {
        for (btTypedConstraint *j : s->joints) s->world->removeConstraint(j);
        for (btRigidBody *b : s->bodies) s->world->removeRigidBody(b);
        if (s->multibody) static_cast<btMultiBodyDynamicsWorld *>(s->world)->removeMultiBody(s->multibody);
    }
    for (btTypedConstraint *j : s->joints) delete j;
    for (btRigidBody *b : s->bodies) delete b;
    for (btDefaultMotionState *m : s->motion_states) delete m;
    delete s->multibody;
    delete s->world;
    delete s->solver;
    delete s->broadphase;
    delete s->dispatcher;
    delete s->config;
    delete s->shape;
    delete s;
}

void *create(const peer_chain *c, char *note, size_t note_size, char *err, size_t err_size) {
    bool multibody = !strcmp(c->variant, "multibody");
    if (!multibody && c->variant[0] && strcmp(c->variant, "rigid")) {
        snprintf(err, err_size, "bullet: unknown variant '%s' (rigid|multibody)", c->variant);
        return nullptr;
    }
    BulletSim *s = new (std::nothrow) BulletSim;
    if (!s) {
        snprintf(err, err_size, "bullet: out of memory");
        return nullptr;
    }
    const double L = c->link_length;
    s->h = c->time_step / c->substeps;
    s->substeps = c->substeps;
    s->half = 0.5 * L;
    s->links = c->links;
    s->config = new btDefaultCollisionConfiguration();
    s->dispatcher = new btCollisionDispatcher(s->config);
    s->broadphase = new btDbvtBroadphase();
    const btVector3 inertia(btScalar(c->inertia[0]), btScalar(c->inertia[1]), btScalar(c->inertia[2]));
    if (multibody) {
        s->solver = new btMultiBodyConstraintSolver();
        s->world = new btMultiBodyDynamicsWorld(s->dispatcher, s->broadphase, static_cast<btMultiBodyConstraintSolver *>(s->solver),
                                                s->config);
        s->world->setGravity(btVector3(0, btScalar(-c->gravity), 0));
        s->world->getSolverInfo().m_numIterations = c->iterations;
        btMultiBody *mb = new btMultiBody(c->links, 0, btVector3(0, 0, 0), true, false);
        mb->setBasePos(btVector3(0, 0, 0));
        for (int i = 0; i < c->links; ++i) {
            // pivot of link i: at the base origin for i = 0, else at the bottom of link i-1
            btVector3 parent_to_pivot = i == 0 ? btVector3(0, 0, 0) : btVector3(0, btScalar(-s->half), 0);
            mb->setupSpherical(i, btScalar(c->link_mass), inertia, i - 1, btQuaternion(0, 0, 0, 1), parent_to_pivot,
                               btVector3(0, btScalar(-s->half), 0), true);
        }
        mb->finalizeMultiDof();
        mb->setLinearDamping(0);
        mb->setAngularDamping(0);
        mb->setHasSelfCollision(false);
        mb->setCanSleep(false);
        s->multibody = mb;
        static_cast<btMultiBodyDynamicsWorld *>(s->world)->addMultiBody(mb);
        snprintf(note, note_size, "btMultiBody, %d spherical joints, Featherstone ABA (reduced coordinates: gap 0 by construction)",
                 c->links);
        return s;
    }
    btSequentialImpulseConstraintSolver *solver = new btSequentialImpulseConstraintSolver();
    s->solver = solver;
    s->world = new btDiscreteDynamicsWorld(s->dispatcher, s->broadphase, solver, s->config);
    s->world->setGravity(btVector3(0, btScalar(-c->gravity), 0));
    btContactSolverInfo &info = s->world->getSolverInfo();
    info.m_numIterations = c->iterations;
    s->shape = new btBoxShape(btVector3(btScalar(0.05 * L), btScalar(0.5 * L), btScalar(0.05 * L)));
    s->bodies.reserve(size_t(c->links));
    s->motion_states.reserve(size_t(c->links));
    s->joints.reserve(size_t(c->links));
    for (int i = 0; i < c->links; ++i) {
        btTransform t;
        t.setIdentity();
        t.setOrigin(btVector3(0, btScalar(-(i + 0.5) * L), 0));
        btDefaultMotionState *ms = new btDefaultMotionState(t);
        btRigidBody::btRigidBodyConstructionInfo ci(btScalar(c->link_mass), ms, s->shape, inertia);
        btRigidBody *b = new btRigidBody(ci);
        b->setActivationState(DISABLE_DEACTIVATION);
        s->motion_states.push_back(ms);
        s->bodies.push_back(b);
        s->world->addRigidBody(b, 1, 0); // group 1, mask 0: never paired by the broadphase
        btPoint2PointConstraint *j;
        if (i == 0)
            j = new btPoint2PointConstraint(*b, btVector3(0, btScalar(s->half), 0)); // pinned to the world at the origin
        else
            j = new btPoint2PointConstraint(*b, *s->bodies[size_t(i - 1)], btVector3(0, btScalar(s->half), 0),
                                            btVector3(0, btScalar(-s->half), 0));
        s->joints.push_back(j);
        s->world->addConstraint(j, true);
    }
    snprintf(note, note_size, "btDiscreteDynamicsWorld + btSequentialImpulseConstraintSolver, btPoint2PointConstraint, %s precision, "
             "erp %.2g, warm start %.2g", sizeof(btScalar) == 8 ? "double" : "single", double(info.m_erp), double(info.m_warmstartingFactor));
    return s;
}

int step(void *p) {
    BulletSim *s = static_cast<BulletSim *>(p);
    for (int k = 0; k < s->substeps; ++k) s->world->stepSimulation(btScalar(s->h), 0); // maxSubSteps 0: exactly one step of h
    return 0;
}

void put(double *out, const btVector3 &v) {
    out[0] = double(v.x()), out[1] = double(v.y()), out[2] = double(v.z());
}

int anchors(void *p, double *top, double *bottom) {
    BulletSim *s = static_cast<BulletSim *>(p);
    const btVector3 up(0, btScalar(s->half), 0), down(0, btScalar(-s->half), 0);
    if (s->multibody) {
        s->multibody->forwardKinematics(s->scratch_q, s->scratch_v); // refreshes m_cachedWorldTransform, O(n)
        for (int i = 0; i < s->links; ++i) {
            const btTransform &t = s->multibody->getLink(i).m_cachedWorldTransform;
            put(top + 3 * i, t * up);
            put(bottom + 3 * i, t * down);
        }
        return 0;
    }
    for (int i = 0; i < s->links; ++i) {
        const btTransform &t = s->bodies[size_t(i)]->getCenterOfMassTransform();
        put(top + 3 * i, t * up);
        put(bottom + 3 * i, t * down);
    }
    return 0;
}

void destroy(void *p) { destroy_sim(static_cast<BulletSim *>(p)); }

} // namespace

extern "C" const peer_engine peer_bullet = {"bullet", create, step, anchors, destroy};
