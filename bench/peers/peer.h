/* peer.h: one interface for every engine the peer benchmark drives (Catena, Bullet 3, ODE, MuJoCo).
 *
 * Every adapter builds the same hanging chain (see peer_chain) and steps it. The driver times the step
 * call only; accuracy is measured outside the timed region from the engine's own body poses: each
 * adapter reports, per link, the world positions of its two joint anchors (top = the pivot towards the
 * pin, bottom = the pivot towards the free end), and the driver computes the gaps from those.
 */
#ifndef CATENA_BENCH_PEER_H
#define CATENA_BENCH_PEER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The workload, identical for every engine. The chain hangs straight down (-y) from a world pin at the
 * origin and starts assembled and at rest. Link i is a slender box of half extents (L/20, L/2, L/20)
 * when its long axis is y (Catena lays the long axis along body x, which is the same box rotated), its
 * centre at (0, -(i + 1/2) L, 0); ball joints sit at (0, -i L, 0). */
typedef struct peer_chain {
    int links;
    double link_length;   /* L, m */
    double link_mass;     /* kg */
    double inertia[3];    /* principal moments about the link axes: (across, along, across), kg m^2 */
    double gravity;       /* m/s^2 along -y */
    double time_step;     /* s, one call of step() advances this much */
    int iterations;       /* solver iterations per (sub)step */
    int substeps;         /* step() runs `substeps` engine steps of time_step / substeps */
    int threads;          /* Catena CPU threads (0 = automatic); peers are single-threaded */
    char variant[32];     /* engine-specific: see each adapter */
} peer_chain;

typedef struct peer_engine {
    const char *name;
    /* Builds the chain. Returns NULL with a reason in err when the engine cannot run this case. `note`
     * receives a one-line description of the engine settings used (may be left empty). */
    void *(*create)(const peer_chain *chain, char *note, size_t note_size, char *err, size_t err_size);
    /* Advances by chain->time_step (all substeps); returns 0 on success. */
    int (*step)(void *sim);
    /* Writes the world positions of each link's top and bottom joint anchor (3 doubles per link). */
    int (*anchors)(void *sim, double *top, double *bottom);
    void (*destroy)(void *sim);
} peer_engine;

extern const peer_engine peer_catena;
#ifdef PEER_HAVE_BULLET
extern const peer_engine peer_bullet;
#endif
#ifdef PEER_HAVE_ODE
extern const peer_engine peer_ode;
#endif
#ifdef PEER_HAVE_MUJOCO
extern const peer_engine peer_mujoco;
#endif

#ifdef __cplusplus
}
#endif

#endif /* CATENA_BENCH_PEER_H */
