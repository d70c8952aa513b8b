/* Internals of the JSON scene files, shared by the parser (scene_json.c, scene_generators.c), the
 * builder (scene_build.c) and json_values.c. The public interface is ctn_scene_* in catena.h. */
#ifndef CTN_SCENE_INTERNAL_H
#define CTN_SCENE_INTERNAL_H

#include "api/world_mark.h"
#include "core/world.h"

#include <stdint.h>
#include <stdio.h>

/* While a scene is parsed its joints and curves name bodies by their index in the scene, held in the
 * desc's handle fields as {index + 1, world 0, generation 0} (CTN_WORLD for the world); the build turns
 * them into the new bodies' handles. */
static inline ctn_body_id ctn__scene_ref(int index) {
    ctn_body_id id = {index + 1, 0, 0};
    return index < 0 ? CTN_WORLD : id;
}
static inline int ctn__scene_ref_index(ctn_body_id id) { return ctn_body_is_world(id) ? -1 : id.index1 - 1; }

/* ---- the validated scene ---- */

typedef struct scene_body {
    ctn_body_desc d;
    char *name;
    double force[3], torque[3];
    int has_force;
    int has_shape;
    ctn_shape_desc shape;
    ctn_shape_desc *more; /* "shapes": the shapes after the first (a compound), NULL when none */
    int more_count;
} scene_body;

typedef struct scene_joint {
    ctn_joint_desc d;  /* body_a / body_b are scene body indices here (CTN_WORLD for the world) */
    int has_pivot;
    double pivot[3];
    int has_axis;
    int has_limits;
    double lower, upper;
    int has_motor;
    double motor_speed, motor_max_torque;
    int rope;
    int has_swing; /* cone-twist "swing_limit" (rad) */
    double swing;
    /* the joint's frames as stored, written by ctn_scene_save_json so that a saved world reloads bit for
     * bit: the hinge axis in each body's frame and the rest orientation of b relative to a */
    int has_frames;
    double axis_a[3], axis_b[3], rest_orientation[4];
    /* a curve constraint (scene_curves.c): body and frame are scene body indices; a polyline's vertices are
     * `points`, owned by the scene */
    int is_curve;
    ctn_curve_desc curve;
    double *points;
} scene_joint;

typedef struct scene_plane {
    double normal[3], offset, friction, restitution;
} scene_plane;

/* in the order of the generator names in scene_generators.c */
enum { GEN_CHAIN, GEN_ROPE, GEN_GRID, GEN_BRIDGE, GEN_CRADLE, GEN_DOUBLE_PENDULUM, GEN_PILE, GEN_CAPSULE_CHAIN, GEN_BRIDGE_LIMITS,
       GEN_CONTACT_CRADLE, GEN_WHEEL, GEN_TREE };

#define CTN_SCENE_PI 3.14159265358979323846
#define SCENE_ATTACH_WORLD (-1) /* chain attach_to: the world (the default) */
#define SCENE_ATTACH_NONE (-2)  /* chain attach_to: nothing, the chain is free */

typedef struct scene_gen {
    int kind;
    ctn_chain_desc chain;
    int attach_to;         /* chains: an explicit body index, SCENE_ATTACH_WORLD or SCENE_ATTACH_NONE */
    double shape_radius;   /* chains: > 0 gives the links shapes (capsules; spheres on rope particles) */
    double shape_friction; /* chains: their friction */
    int nx, ny;
    double spacing;
    int count;             /* bridge planks, cradle balls, tree links, ... */
    double origin[3];      /* placement of everything but chains (which place themselves): x' = origin + R x */
    double rotation[4];    /* R as a unit quaternion (w, x, y, z) */
    int placed;            /* origin or rotation given */
    int64_t bodies, joints;
} scene_gen;

/* An entry of the "attachments" key (scene_attach.c): scene body indices. */
typedef struct scene_attach {
    int body, master;
    int has_point;
    double point[3]; /* the body's centre of mass in the master's frame */
} scene_attach;

/* An IK target of the "assemble" key: body = scene body index (scene_assemble.c). */
typedef struct scene_target {
    int body;
    double point[3], target[3], weight;
} scene_target;

struct ctn_scene {
    char source[512];
    ctn_world_desc desc;
    char device[256];
    int steps;
    int has_collision;
    ctn_collision_desc collision;
    int body_count;        /* explicit bodies */
    scene_body *bodies;
    int joint_count;       /* explicit constraints */
    scene_joint *joints;
    int plane_count;
    scene_plane *planes;
    int gen_count;
    scene_gen *gens;
    int64_t total_bodies, total_joints;
    int has_assemble;      /* "assemble" key (scene_assemble.c): settings, targets */
    ctn_assemble_desc assemble;
    int assemble_target_count;
    scene_target *assemble_targets;
    int attachment_count;  /* "attachments" key (scene_attach.c) */
    scene_attach *attachments;
    int robot_count;       /* "robots" key (scene_robots.c): URDF files, built last */
    struct scene_robot *robots;
};

/* URDF robots of a scene (scene_robots.c): parses the "robots" key (paths relative to the scene file's
 * folder, checked readable); adds each robot (ctn_scene_load_urdf_ex, its report lines as warnings through
 * the log hook) and moves it to its pose (`where` names the entry that failed); frees them. */
ctn_status ctn__scene_build_robots(ctn_world *w, const ctn_scene *s, char *where, size_t where_size);
void ctn__scene_robots_free(ctn_scene *s);
/* Moves what was added from body nb0, joint nj0 and plane np0 on by x' = origin + R x (R: unit quaternion
 * q = (w, x, y, z)) as one rigid piece (scene_generators.c). */
ctn_status ctn__scene_place(ctn_world *w, const double origin[3], const double q[4], int nb0, int nj0, int np0);

/* Frees the "assemble" targets (scene_assemble.c). */
void ctn__scene_assemble_free(ctn_scene *s);
/* Attachments (scene_attach.c): frees the parsed ones; attaches them after the constraints (`where` names the
 * entry that failed); writes a world's as the "attachments" key (index: file position of each body slot). */
void ctn__scene_attach_free(ctn_scene *s);
ctn_status ctn__scene_build_attachments(ctn_world *w, const ctn_scene *s, int first_body, char *where, size_t where_size);
void ctn__scene_write_attachments(FILE *f, const ctn_world *w, const int *index);

/* Adds generator g's bodies and joints to the world (scene_generators.c). */
ctn_status ctn__scene_build_generator(ctn_world *w, const scene_gen *g, int first_body);

/* Curve constraints (scene_curves.c): a scene curve into the world; a curve joint of the world as a
 * constraints entry (index: file position of each body slot). */
ctn_status ctn__scene_build_curve(ctn_world *w, const scene_joint *sj, int first_body);
void ctn__scene_write_curve(FILE *f, const ctn_world *w, int slot, const int *index);

/* ctn__scene_mark and ctn__scene_rollback: api/world_mark.h. */

#ifdef CATENA_HAVE_CJSON
#include <cjson/cJSON.h>

/* ---- parsing: typed access to cJSON values, errors naming the JSON path (json_values.c) ---- */

#define PATH_MAX_LEN 256

typedef struct pctx {
    const char *source;
    char *err;
    size_t err_size;
    ctn_status status;
    int body_count;          /* explicit bodies */
    int64_t total_bodies;    /* explicit + generated */
    const scene_body *bodies;
} pctx;

/* Records "SOURCE: PATH: message" and returns 0. */
int ctn__json_fail(pctx *c, ctn_status st, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
const char *ctn__json_type_name(const cJSON *v);
/* out = path + "." + key, truncated to PATH_MAX_LEN - 1 characters. */
void ctn__json_path(char *out, const char *path, const char *key);
/* Every member of obj must be in `allowed` (NULL-terminated) and appear once. */
int ctn__json_keys(pctx *c, const cJSON *obj, const char *path, const char *const *allowed);
const cJSON *ctn__json_member(const cJSON *obj, const char *key);
/* Optional values: 1 read, 0 absent (out unchanged), -1 error. */
int ctn__json_number(pctx *c, const cJSON *obj, const char *key, const char *path, double *out);
/* Number in [lo, hi] (open at lo when lo_open). */
int ctn__json_range(pctx *c, const cJSON *obj, const char *key, const char *path, double lo, int lo_open, double hi, double *out);
int ctn__json_int(pctx *c, const cJSON *obj, const char *key, const char *path, long long lo, long long hi, long long *out);
int ctn__json_int32(pctx *c, const cJSON *obj, const char *key, const char *path, int lo, int hi, int *out);
int ctn__json_vec(pctx *c, const cJSON *obj, const char *key, const char *path, int n, double *out);
int ctn__json_bool(pctx *c, const cJSON *obj, const char *key, const char *path, int *out);
/* Optional string; *out points into obj. */
int ctn__json_string(pctx *c, const cJSON *obj, const char *key, const char *path, const char **out);
/* Optional string that must be one of names[]; *out receives its index. */
int ctn__json_enum(pctx *c, const cJSON *obj, const char *key, const char *path, const char *const *names, int *out);
/* 1 when v is an object, else 0 with the error recorded. */
int ctn__json_object(pctx *c, const cJSON *v, const char *path);
/* A non-zero vector of n numbers (direction, axis, quaternion): like ctn__json_vec, refusing zero length. */
int ctn__json_nonzero_vec(pctx *c, const cJSON *obj, const char *key, const char *path, int n, double *out);

/* One entry of "bodies" (scene_bodies.c). */
int ctn__scene_parse_body(pctx *c, const cJSON *b, int index, scene_body *sb);
/* One entry of "generators" (scene_generators.c); c->bodies must list the explicit bodies. */
int ctn__scene_parse_generator(pctx *c, const cJSON *e, int index, scene_gen *sg);
/* The "assemble" key (scene_assemble.c); needs c->total_bodies. */
int ctn__scene_parse_assemble(pctx *c, const cJSON *root, ctn_scene *s);
int ctn__scene_parse_robots(pctx *c, const cJSON *root, ctn_scene *s);
int ctn__scene_parse_attachments(pctx *c, const cJSON *root, ctn_scene *s);
/* A body reference: an index into the scene's bodies, a body name, or "world" (scene_json.c). */
int ctn__scene_body_ref(pctx *c, const cJSON *v, const char *path, int allow_world, int *out);
/* A constraints entry of type "curve" (scene_curves.c). */
int ctn__scene_parse_curve(pctx *c, const cJSON *j, const char *path, scene_joint *sj);
#endif

#endif
