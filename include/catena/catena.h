/** @file catena.h
 * Catena: a parallel constraint solver for chained rigid bodies and particles.
 *
 * The whole public C API, one header per concern, all included here:
 *   - catena/core.h:   status codes, version, worlds, bodies, joints, handles, contacts, shapes, stepping,
 *                      statistics, assembly and the exporters' read-only queries;
 *   - catena/io.h:     JSON scene files, URDF robots, checkpoints, ParaView (VTK) output;
 *   - catena/scenes.h: the demo scene generators (ctn_scene_chain, ctn_scene_from_spec, ...);
 *   - catena/opencl.h: the OpenCL devices (ctn_list_devices).
 * Counts (bodies, joints, items in a buffer, capacities) are int32_t; byte sizes of text buffers are size_t.
 */
#ifndef CATENA_CATENA_H
#define CATENA_CATENA_H

#include "core.h"
#include "io.h"
#include "opencl.h"
#include "scenes.h"

#endif /* CATENA_CATENA_H */
