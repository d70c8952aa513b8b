/* A URDF robot description as plain C data: what host/io/urdf_parse.cpp reads with urdfdom (the ROS
 * community's parser) and host/io/urdf_import.c turns into bodies, joints and shapes. Poses are a
 * translation and a unit quaternion (w, x, y, z) of a child frame in its parent's frame. */
#ifndef CTN_URDF_MODEL_H
#define CTN_URDF_MODEL_H

#include <stddef.h>

typedef struct ctn_urdf_pose {
    double xyz[3];
    double q[4]; /* (w, x, y, z) */
} ctn_urdf_pose;

typedef enum ctn_urdf_geometry { CTN_URDF_SPHERE, CTN_URDF_BOX, CTN_URDF_CYLINDER, CTN_URDF_MESH } ctn_urdf_geometry;

typedef struct ctn_urdf_collision {
    char *name;             /* "" when the element has none */
    ctn_urdf_geometry type;
    ctn_urdf_pose origin;   /* in the link frame */
    double radius, length;  /* sphere, cylinder (its axis is the collision frame's z) */
    double size[3];         /* box: full edge lengths */
    char *mesh;             /* mesh file name */
} ctn_urdf_collision;

typedef struct ctn_urdf_link {
    char *name;
    int has_inertial;
    double mass;
    ctn_urdf_pose inertial;  /* centre of mass and inertia frame, in the link frame */
    double ixx, ixy, ixz, iyy, iyz, izz;
    int collision_count;
    ctn_urdf_collision *collisions;
    int parent_joint;        /* index into joints, -1 for the root */
} ctn_urdf_link;

typedef enum ctn_urdf_joint_type {
    CTN_URDF_REVOLUTE, CTN_URDF_CONTINUOUS, CTN_URDF_PRISMATIC, CTN_URDF_FLOATING, CTN_URDF_PLANAR, CTN_URDF_FIXED
} ctn_urdf_joint_type;

typedef struct ctn_urdf_joint {
    char *name;
    ctn_urdf_joint_type type;
    int parent, child;       /* link indices */
    ctn_urdf_pose origin;    /* the joint frame (= the child link frame at zero position) in the parent link frame */
    double axis[3];          /* in the joint frame */
    int has_limits;
    double lower, upper, effort, velocity;
    double damping, friction; /* <dynamics>, 0 when absent */
    char *mimic;             /* the mimicked joint, NULL when none */
    double mimic_multiplier, mimic_offset; /* this joint's position = multiplier * the mimicked one's + offset */
} ctn_urdf_joint;

/* Links in depth-first order from the root (children in urdfdom's order, by joint name); joints[k] is the
 * parent joint of links[k + 1]. */
typedef struct ctn_urdf_model {
    char *name;
    int link_count, joint_count;
    ctn_urdf_link *links;
    ctn_urdf_joint *joints;
} ctn_urdf_model;

#ifdef __cplusplus
extern "C" {
#endif

/* Parses a URDF file. Returns 0 with the model, else a catena status (CTN_ERR_IO: unreadable file,
 * CTN_ERR_INVALID_ARGUMENT: urdfdom refused it, with its message; CTN_ERR_UNSUPPORTED: built without
 * urdfdom; CTN_ERR_OUT_OF_MEMORY) with a message in msg. */
int ctn__urdf_parse(const char *path, ctn_urdf_model **out, char *msg, size_t msg_size);
void ctn__urdf_free(ctn_urdf_model *model);

#ifdef __cplusplus
}
#endif

#endif
