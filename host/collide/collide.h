/* Internal interface of the built-in contact generation: host/collide.c (shapes, planes, narrow
 * phase, contact persistence), host/broadphase.c (uniform grid) and host/contact.c (user contacts). */
#ifndef CTN_HOST_COLLIDE_H
#define CTN_HOST_COLLIDE_H

#include "core/world.h"

/* Candidate pairs (i, j), i < j, as item indices: pairs[2k], pairs[2k+1]. */
typedef struct ctn_pairs {
    int *pairs;
    int count;
    int capacity;
} ctn_pairs;

/* Pairs of overlapping AABBs (6 floats per item: min xyz, max xyz). Returns 0 on out-of-memory. */
int ctn__broadphase(int n, const float *aabb, ctn_pairs *out);

typedef struct ctn_shape {
    int type;             /* ctn_shape_type */
    float radius;
    float half_length;
    ctn_v3 half_extents;
    float friction;
    float restitution;
} ctn_shape;

typedef struct ctn_plane {
    ctn_v3 normal;        /* unit */
    float offset;         /* solid where normal . x <= offset */
    float friction;
    float restitution;
} ctn_plane;

/* One entry of the persistent contact cache: (body slot a, body slot b, feature) -> joint slot. */
typedef struct ctn_contact_key {
    int a, b, feature;
    int joint;            /* -1: empty / dropped */
} ctn_contact_key;

struct ctn_collision {
    ctn_collision_desc desc;
    int shape_capacity;   /* body ids covered by shapes[] */
    ctn_shape *shapes;
    int shape_count;      /* bodies with a shape */
    int plane_count, plane_capacity;
    ctn_plane *planes;
    /* contact cache of the last step: a list and an open-addressed table over it */
    ctn_contact_key *keys;
    int key_count, key_capacity;
    int *table;           /* [table_size] index into keys, -1 empty */
    int table_size;       /* power of two */
    ctn_pairs pairs;
};

/* Rebuilds the lookup table of the contact cache over keys[0..key_count). Returns 0 on out-of-memory. */
int ctn__contact_table_build(struct ctn_collision *c);

/* The collision state of the world, created on first use (NULL on out-of-memory, message recorded). */
struct ctn_collision *ctn__collision_get(ctn_world *w);

/* Joint definition of a contact between world points pa (on a) and pb (on b, double: body positions are two
 * floats), normal n from b to a. prev: the contact's previous definition (NULL for a new one), whose friction
 * direction is carried over. */
ctn_joint_def ctn__contact_def(const ctn_world *w, int a, int b, const double pa[3], const double pb[3], ctn_v3 n, float mu, float e,
                               int flags, const ctn_joint_def *prev);

#endif
