/** @file scenes.h
 * Catena: the demo scene generators (chains, grids, bridges, cradles, contact scenes; host/scenes/). */
#ifndef CATENA_SCENES_H
#define CATENA_SCENES_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- scene generators (host/scenes/scenes.c) ---------------------------------------------------------- */

/** A chain or rope for ctn_scene_chain; start from ctn_chain_desc_default(). */
typedef struct ctn_chain_desc {
    int32_t links;               /**< number of links */
    double link_length;      /**< m, default 0.1 */
    double link_mass;        /**< kg, default 0.1 */
    double end_mass_ratio;   /**< mass of the last link / link_mass; default 1 */
    double origin[3];        /**< the fixed end (pinned to the world), default (0,0,0) */
    double direction[3];     /**< direction the chain is laid out along, default (1,0,0): horizontal */
    int particles;           /**< non-zero: rope of particles with distance joints instead of rigid links */
} ctn_chain_desc;

/** A horizontal chain of `links` rigid 0.1 m, 0.1 kg links pinned at the origin. */
CTN_API ctn_chain_desc ctn_chain_desc_default(int32_t links);
/** Hanging chain: `links` rigid capsule-like links joined by ball joints (or a particle rope joined by
 * distance joints), the first pinned to the world at origin. The first link's handle is written to *first
 * (the links are first, first + 1, ...: generators take fresh slots). */
CTN_API ctn_status ctn_scene_chain(ctn_world *world, const ctn_chain_desc *desc, ctn_body_id *first);
/** nx x ny grid of rigid bodies (spacing m) joined by ball joints to their 4-neighbours, top row pinned. */
CTN_API ctn_status ctn_scene_grid(ctn_world *world, int32_t nx, int32_t ny, double spacing);
/** Bridge of `planks` hinged planks, both ends hinged to the world. */
CTN_API ctn_status ctn_scene_bridge(ctn_world *world, int32_t planks);
/** Newton's cradle of `balls` pendulums (distance joints to the world), the first one raised. */
CTN_API ctn_status ctn_scene_cradle(ctn_world *world, int32_t balls);
/** Double pendulum of two rigid rods with hinges, released from horizontal. */
CTN_API ctn_status ctn_scene_double_pendulum(ctn_world *world);
/* Contact scenes (host/scenes/scenes_contact.c). */
/** `links` capsule links (radius 0.02 m, 0.1 m long) joined by ball joints, dropped from 1 m onto a floor. */
CTN_API ctn_status ctn_scene_capsule_chain(ctn_world *world, int32_t links);
/** `spheres` spheres (radius 0.05 m) dropped into a box of four walls on a floor. */
CTN_API ctn_status ctn_scene_pile(ctn_world *world, int32_t spheres);
/** ctn_scene_bridge with hinge limits of +-0.15 rad per hinge and a load of boxes dropped on it. */
CTN_API ctn_status ctn_scene_bridge_limits(ctn_world *world, int32_t planks);
/** A 0.5 m wheel on a fixed axle driven by a hinge motor (10 rad/s, at most 50 N m); balls dropped on it. */
CTN_API ctn_status ctn_scene_wheel(ctn_world *world);
/** Newton's cradle with contacts and restitution 1: `balls` pendulums 12 mm apart, the first raised 45 deg. */
CTN_API ctn_status ctn_scene_contact_cradle(ctn_world *world, int32_t balls);

/** Builds a scene from a spec such as "chain:1000", "rope:500", "grid:64x64", "bridge:50",
 * "cradle:5", "double_pendulum", "heavy_chain:1000" (end mass ratio 1000), and the contact scenes
 * "capsule_chain:N", "pile:N", "bridge_limits:N", "wheel", "contact_cradle:N". */
CTN_API ctn_status ctn_scene_from_spec(ctn_world *world, const char *spec);

#ifdef __cplusplus
}
#endif

#endif /* CATENA_SCENES_H */
