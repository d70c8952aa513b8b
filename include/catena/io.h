/** @file io.h
 * Catena: files. JSON scene files (read and write), URDF robots, checkpoints and ParaView (VTK) output. */
#ifndef CATENA_IO_H
#define CATENA_IO_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- scene files and checkpoints (host/io/scene_json.c, host/io/checkpoint.c) ---------------- */

/** A parsed and fully validated JSON scene file (schema: docs/scene-format.md). */
typedef struct ctn_scene ctn_scene;

/** Largest scene file accepted (bytes), checked before reading. */
#define CTN_SCENE_MAX_FILE_BYTES (512L * 1024 * 1024)

/** Parses and validates a scene file (or a text). Nothing is built. Errors read
 * "FILE:LINE:COL: ..." for malformed JSON and "FILE: constraints[12].b: body index 40 out of range (37 bodies)"
 * for a wrong field. Returns CTN_ERR_IO when the file cannot be read, CTN_ERR_UNSUPPORTED in a build
 * without cJSON, CTN_ERR_LIMIT for size limits and CTN_ERR_INVALID_ARGUMENT for any other problem. */
CTN_API ctn_status ctn_scene_parse_file(const char *path, ctn_scene **out, char *err, size_t err_size);
/** As ctn_scene_parse_file, from `length` bytes of JSON text; `source_name` (may be NULL) names it in
 *  messages. */
CTN_API ctn_status ctn_scene_parse_text(const char *text, size_t length, const char *source_name, ctn_scene **out, char *err,
                                size_t err_size);
/** Frees a parsed scene (NULL is allowed). */
CTN_API void ctn_scene_free(ctn_scene *scene);

/** The file's world settings (defaults for what it leaves out) and step count (default 600). desc->device
 * points into the scene and stays valid until ctn_scene_free. */
CTN_API ctn_status ctn_scene_get_settings(const ctn_scene *scene, ctn_world_desc *desc, int32_t *steps);
/** The scene's "assemble" key (docs/scene-format.md): *present is 1 when it has one. *desc gets its settings
 *  (the defaults without the key; desc->targets NULL, target_count 0), *count (may be NULL) the number of
 *  targets and targets[0..min(count, capacity)) the targets, their bodies as handles in a world the scene
 *  was built into with its first body at handle first_body (0 for an empty world). Set desc->targets and
 *  target_count to pass them to ctn_world_assemble. */
CTN_API ctn_status ctn_scene_get_assemble(const ctn_scene *scene, ctn_body_id first_body, ctn_assemble_desc *desc, ctn_assemble_target *targets,
                                  int32_t capacity, int32_t *count, int *present);
/** Bodies the scene adds (generators expanded). */
CTN_API int32_t ctn_scene_body_count(const ctn_scene *scene);
/** Joints the scene adds (generators expanded). */
CTN_API int32_t ctn_scene_joint_count(const ctn_scene *scene);

/** Adds the scene's bodies and joints to a world (explicit bodies, then generators, then constraints).
 * On failure the world is left as it was and the message, with the scene path, is on the world. */
CTN_API ctn_status ctn_scene_build(const ctn_scene *scene, ctn_world *world);

/** Parses and builds in one call; the world's settings are not changed. */
CTN_API ctn_status ctn_scene_load_json(ctn_world *world, const char *path, char *err, size_t err_size);
/** Writes the world as a scene file that ctn_scene_load_json turns back into the same world: loaded into a
 * fresh world with the same settings, it steps bitwise like the saved world would from a fresh start (no
 * warm-start impulses: a scene holds no solver state; contacts are left out, built-in ones come back by
 * themselves). Live bodies keep their order (removed ones are skipped). Written atomically. */
CTN_API ctn_status ctn_scene_save_json(ctn_world *world, const char *path);

/** Adds the robot of a URDF file (links, joints, inertials, collision geometry; urdfdom parses it) to a world
 * in its zero joint pose; the world's settings are not changed. Links with mass become rigid bodies named
 * after them (principal axes of their inertia as body axes; consecutive handles, parents first); a
 * massless root is the fixed world, a massive one a free body. revolute -> hinge with its limits,
 * continuous -> hinge, fixed -> fixed, floating -> none; `effort` > 0 adds a motor holding the joint (speed
 * 0, at most effort N m); prismatic -> slider with its limits, planar -> CTN_JOINT_PLANAR. Collision spheres,
 * boxes and cylinders (as capsules) become shapes. Massless links on moving joints are refused
 * (CTN_ERR_UNSUPPORTED, naming them).
 * On success `msg` receives the report of what was approximated or ignored, one line per kind naming the
 * links and joints ("" when the import is exact: docs/urdf.md); on failure the error, as on the world,
 * and the world is unchanged. CTN_ERR_IO: unreadable file; CTN_ERR_INVALID_ARGUMENT: not valid URDF;
 * CTN_ERR_UNSUPPORTED also in a build without urdfdom. */
CTN_API ctn_status ctn_scene_load_urdf(ctn_world *world, const char *path, char *msg, size_t msg_size);
/** ctn_scene_load_urdf with the choice of self-collision. self_collision = 0 (what ctn_scene_load_urdf does):
 * every shape of the robot gets the same fresh collision group (one more than the largest group in use in
 * the world), so the robot's links never collide with each other, as in PyBullet's loadURDF without
 * URDF_USE_SELF_COLLISION; they still collide with planes, other robots and other bodies. self_collision = 1:
 * the shapes get no group, and every pair of the robot's links may collide except pairs joined by a joint
 * (as the collision settings' skip_jointed says). Other values are refused. */
CTN_API ctn_status ctn_scene_load_urdf_ex(ctn_world *world, const char *path, int self_collision, char *msg, size_t msg_size);

/* Checkpoints: the complete world state (settings; bodies, joints and contacts with their handles and free
 * slots; warm-start impulses; shapes, planes, collision settings and the contact cache; body names) in a binary file
 * with a magic, a version and an FNV-1a checksum, written atomically (temporary file + rename). A world
 * loaded from a checkpoint steps bitwise identically to the world that was saved. */
#define CTN_CHECKPOINT_USER_MAX 4096 /**< size of the user text buffer of a checkpoint, terminator included */

/* ---- ParaView output (host/io/vtk_xml.c) --------------------------------------------------------- */

/** Writes the world's current state as VTK XML PolyData (a .vtp file, raw binary appended data),
 * atomically. Points: the live bodies in slot order, then one point per joint end fixed to CTN_WORLD (its
 * world anchor). Cells: one vertex per body, then the live joints as lines (springs and contacts
 * included), body a to body b or the anchor. Point arrays: body_id, velocity, angular_velocity,
 * orientation, mass, shape_type, shape_size; cell arrays: joint_id, joint_type, gap, angle_error, force,
 * torque (docs/visualisation.md lists their types and units). Field data: TimeValue (Float64) = time (s).
 * CTN_ERR_IO names the file when it cannot be written. */
CTN_API ctn_status ctn_world_write_vtp(ctn_world *world, const char *path, double time);
/** Writes a ParaView data collection (.pvd) of `count` frames: files[i] (a path relative to the .pvd's
 * folder) at time times[i] (s, the value ParaView's time controls show), atomically. */
CTN_API ctn_status ctn_vtk_write_pvd(const char *path, int32_t count, const char *const *files, const double *times, char *err,
                             size_t err_size);

/** What a checkpoint holds besides the state (ctn_checkpoint_read_info, ctn_world_load). */
typedef struct ctn_checkpoint_info {
    uint64_t step;                     /**< the caller's step counter at save time */
    ctn_world_desc desc;               /**< settings as saved; desc.device points into `device` below */
    char device[256];                  /**< the saved device request ("" for none) */
    char user[CTN_CHECKPOINT_USER_MAX]; /**< the caller's text saved with the state */
    int32_t bodies;                    /**< body slots (index range) */
    int32_t joints;                    /**< joint slots (index range) */
} ctn_checkpoint_info;

/** Saves the world. `user` (may be NULL, at most CTN_CHECKPOINT_USER_MAX - 1 bytes) is stored verbatim. */
CTN_API ctn_status ctn_world_save(ctn_world *world, const char *path, uint64_t step, const char *user);
/** Reads and verifies a checkpoint's header, checksum and settings without building a world. */
CTN_API ctn_status ctn_checkpoint_read_info(const char *path, ctn_checkpoint_info *info, char *err, size_t err_size);
/** Creates a world from a checkpoint. desc: NULL to use the saved settings, else the settings to use
 * (e.g. the saved ones with another backend). info may be NULL. Truncated or corrupted files are refused. */
CTN_API ctn_status ctn_world_load(const char *path, const ctn_world_desc *desc, ctn_world **out, ctn_checkpoint_info *info, char *err,
                          size_t err_size);

#ifdef __cplusplus
}
#endif

#endif /* CATENA_IO_H */
