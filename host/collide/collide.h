/* Internal interface of the built-in contact generation: host/collide/collide.c (shapes, planes, narrow
 * phase, contact persistence), host/collide/broadphase.c (uniform grid) and host/collide/contact.c (user contacts). */
#ifndef CTN_HOST_COLLIDE_H
#define CTN_HOST_COLLIDE_H

#include "core/world.h"

#include <stddef.h>

/* The entry points of collision for the layers above (host/collide/collide.c): contact generation before
 * the topology rebuild of a step (does nothing without shapes); frees the collision state; drops the
 * built-in contacts of a body being removed. */
ctn_status ctn__collide(ctn_world *w, double *ms, int *contacts);
/* After a step that failed once ctn__collide had run: puts back the contact cache and the joints it changed
 * (the contact set the step started with) and returns 1; 0 (nothing done) when that step's contact
 * generation changed nothing. */
int ctn__collide_undo(ctn_world *w);
void ctn__collision_free(ctn_world *w);
void ctn__collision_body_removed(ctn_world *w, int body);
/* Whether the built-in collision detection can make a contact in this world as it is: it is enabled, and a
 * shape has a plane to touch or a shape on another body outside its collision group (a robot alone in a
 * world without planes, its links in one group, has none). O(bodies). */
int ctn__collision_possible(const ctn_world *w);
/* Built-in contacts on body slot `body` (they go with the body when it is removed). */
int ctn__collision_body_contacts(const ctn_world *w, int body);

/* Candidate pairs (i, j), i < j, as item indices: pairs[2k], pairs[2k+1], and the broad phase's scratch.
 * Kept by the world between steps; every array only grows, so a step like the last allocates nothing. */
typedef struct ctn_pairs {
    int *pairs;
    int count;
    int capacity;
    int item_capacity;    /* items the scratch below holds */
    int *cxyz;            /* [3 items] grid cell of each item */
    int *items;           /* [items] items bucketed by hash slot */
    uint32_t *slot_of;    /* [items] hash slot of each item */
    size_t slot_capacity; /* slots + 1 the two arrays below hold */
    int *start, *fill;
} ctn_pairs;

/* Pairs of overlapping AABBs (6 floats per item: min xyz, max xyz). Returns 0 on out-of-memory. */
int ctn__broadphase(int n, const float *aabb, ctn_pairs *out);
/* Frees the pairs and the scratch. */
void ctn__pairs_free(ctn_pairs *p);

typedef struct ctn_shape {
    int type;             /* ctn_shape_type */
    float radius;
    float half_length;
    ctn_v3 half_extents;
    float friction;
    float restitution;
    int group;            /* collision group: shapes sharing a nonzero one never collide (0: none) */
    ctn_v3 offset;        /* the shape's centre in the body frame */
    ctn_quat rot;         /* the shape's frame in the body frame */
    int placed;           /* offset or rot is not the identity (the shape's pose differs from the body's) */
} ctn_shape;
/* The records of checkpoints written before shapes had a group (V1: group 0) and before they had an offset
 * (V2: centred, identity rotation): the fields before those. */
#define CTN__SHAPE_V1_SIZE offsetof(ctn_shape, group)
#define CTN__SHAPE_V2_SIZE offsetof(ctn_shape, offset)

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

/* One contact point of the narrow phase. It runs in float32 about a per-pair origin `org` (the leading part
 * of body a's position), so points far from the world origin keep float precision relative to the bodies
 * (positions are two floats). */
typedef struct ctn_contact_point {
    int a, b, feature;
    ctn_v3 org;       /* origin of pa, pb: world point = org + p (in double) */
    ctn_v3 pa, pb, n; /* points on a and b relative to org, normal from b to a */
    float mu, e;
} ctn_contact_point;

typedef struct ctn_point_list {
    ctn_contact_point *p;
    int count, capacity;
} ctn_point_list;

/* A body's shapes after its first (a compound shape). */
typedef struct ctn_shape_list {
    ctn_shape *s;
    int count, capacity;
} ctn_shape_list;

struct ctn_collision {
    ctn_collision_desc desc;
    int shape_capacity;   /* body ids covered by shapes[] and more[] */
    ctn_shape *shapes;    /* [shape_capacity] each body's first shape (type CTN_SHAPE_NONE: none) */
    ctn_shape_list *more; /* [shape_capacity] each body's further shapes (NULL until one is added) */
    int shape_count;      /* bodies with a shape */
    int shape_total;      /* shapes of all bodies (first and further) */
    int plane_count, plane_capacity;
    ctn_plane *planes;
    /* contact cache of the last step: a list and an open-addressed table over it */
    ctn_contact_key *keys;
    int key_count, key_capacity;
    int *table;           /* [table_size] index into keys, -1 empty */
    int table_size;       /* power of two; only grows */
    /* the cache the step in flight started from (the other buffer of keys), kept so that a failed step
     * can put it back (ctn__collide_undo); undo: this step's contact generation changed the contacts */
    ctn_contact_key *prev_keys;
    int prev_key_count, prev_key_capacity;
    int undo;

    /* Scratch of the step hook, kept between steps: every array only grows, so a step whose shape, pair
     * and contact counts were reached before allocates nothing. */
    int item_capacity;
    int *item_body;       /* [items] body slot of each shape, in body order */
    int *item_shape;      /* [items] the shape's index on its body (0: its first) */
    float *item_grow;     /* [items] motion bound over one step */
    float *aabb;          /* [6 items] grown bounding boxes */
    uint64_t *joined;     /* open-addressed set of jointed body pairs (0: empty), joined_size slots */
    size_t joined_size;
    int joined_count;     /* pairs in the set (0: none; the set is not consulted) */
    unsigned char *seen;  /* [seen_capacity] the old keys matched this step */
    int seen_capacity;
    ctn_point_list points;
    ctn_pairs pairs;
};

/* Shape k (0: the first) of body slot `body`; the caller checks that it exists. */
static inline const ctn_shape *ctn__shape_at(const struct ctn_collision *c, int body, int k) {
    return k == 0 ? &c->shapes[body] : &c->more[body].s[k - 1];
}
/* Shapes on body slot `body` (0 when none). */
static inline int ctn__shape_count_of(const struct ctn_collision *c, int body) {
    if (!c || body >= c->shape_capacity || c->shapes[body].type == 0) return 0;
    return 1 + (c->more ? c->more[body].count : 0);
}
/* Removes every shape of body slot `body` (the body is removed, or a build rolled back). */
void ctn__collision_shapes_clear(struct ctn_collision *c, int body);
/* Appends a further shape to body slot `body`, which has a first one; 0 on out-of-memory. */
int ctn__collision_shape_append(struct ctn_collision *c, int body, const ctn_shape *s);
/* The feature id of a contact point between shape ka of body a and shape kb of body b: the narrow phase's
 * own id (below 2^18) with the two shape indices (below 64) above it, so that the first shapes keep it. */
static inline int ctn__shape_feature(int feature, int ka, int kb) { return feature | (ka << 18) | (kb << 24); }

/* Rebuilds the lookup table of the contact cache over keys[0..key_count). Returns 0 on out-of-memory. */
int ctn__contact_table_build(struct ctn_collision *c);

/* The collision state of the world, created on first use (NULL on out-of-memory, message recorded). */
struct ctn_collision *ctn__collision_get(ctn_world *w);

/* Joint definition of a contact between world points pa (on a) and pb (on b, double: body positions are two
 * floats), normal n from b to a. prev_t1: the contact's previous friction direction in world coordinates
 * (ctn__contact_tangent; NULL for a new contact), carried over. */
ctn_joint_def ctn__contact_def(const ctn_world *w, int a, int b, const double pa[3], const double pb[3], ctn_v3 n, float mu, float e,
                               int flags, const ctn_v3 *prev_t1);
/* The friction direction of live contact joint slot id in world coordinates: its axis_a (b's frame) turned by
 * b's orientation, read from the compact record and the extras (no whole definition formed). */
ctn_v3 ctn__contact_tangent(const ctn_world *w, int id);

/* Narrow phase (host/collide/narrowphase.c): the points of the pair (a, b) and of shape a against plane k,
 * appended to l with cp's bodies, origin and material; 0 on out-of-memory. The poses and the plane are
 * seen from cp->org (ctn__local_pose, ctn__local_plane). Pairs with a box: ctn__box_pair_points
 * (host/collide/box_contact.c). */
int ctn__pair_points(ctn_point_list *l, ctn_contact_point *cp, ctn_pose pa, const ctn_shape *sa, ctn_pose pb, const ctn_shape *sb,
                     float margin);
int ctn__plane_points(ctn_point_list *l, ctn_contact_point *cp, ctn_pose pa, const ctn_shape *sa, const ctn_plane *pl, int k, float margin);
int ctn__box_pair_points(ctn_point_list *l, ctn_contact_point *cp, ctn_pose pa, const ctn_shape *sa, ctn_pose pb, const ctn_shape *sb,
                         float margin);
/* Appends p to l (0 on out-of-memory); closest points p1 + s d1, p2 + t d2 of two segments, s, t in [0, 1]. */
int ctn__push_point(ctn_point_list *l, const ctn_contact_point *p);
void ctn__segment_closest(ctn_v3 p1, ctn_v3 d1, ctn_v3 p2, ctn_v3 d2, float *s_out, float *t_out);
ctn_pose ctn__local_pose(ctn_pose p, ctn_v3 o);
ctn_plane ctn__local_plane(ctn_plane pl, ctn_v3 o);
/* The pose of a shape on a body of pose p: (p.p + R offset, p.q rot). */
ctn_pose ctn__shape_pose(ctn_pose p, const ctn_shape *s);
/* Bounding radius of a shape about its body origin, and its AABB grown by `grow` (box[0..2] min, [3..5] max). */
float ctn__shape_radius(const ctn_shape *s);
void ctn__shape_aabb(ctn_pose p, const ctn_shape *s, float grow, float *box);

#endif
