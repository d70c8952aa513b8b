/* Attachments (host/core/attach.c): bodies welded to a master body by eliminating their degrees of freedom
 * (Lloyd 2012, "attachments"; docs/design.md). Not installed. */
#ifndef CTN_HOST_ATTACH_H
#define CTN_HOST_ATTACH_H

#include "core/world.h"

/* One attached body: its centre of mass and orientation fixed in its master's frame. */
typedef struct ctn_attach_link {
    int body, master;  /* body slots */
    int particle;      /* the attached body is a particle (no orientation of its own) */
    int pad;
    double local[3];   /* the attached body's centre of mass in the master's body frame */
    double q_rel[4];   /* its orientation relative to the master: q_body = q_master q_rel (w, x, y, z) */
} ctn_attach_link;

/* A body's state as a step found it (ctn__attach_enter), put back when the step fails (ctn__attach_leave). */
typedef struct ctn_attach_body {
    ctn_pose pose;
    ctn_vel vel;
    ctn_inertia inertia;
    ctn_props props;
    ctn_body_force force; /* its user force (zero where the world keeps none) */
} ctn_attach_body;

/* One master with attached bodies. A dynamic master is stepped as the composite rigid body: its mass is the
 * sum, its centre of mass and principal axes those of the composite (parallel-axis theorem). */
typedef struct ctn_attach_group {
    int master;
    int links;          /* attached bodies */
    int composite;      /* the master is dynamic: stepped as the composite body */
    int cached;         /* comp_* and user_* hold the state of the last step (see ctn__attach_enter) */
    double c_local[3];  /* composite centre of mass in the master's frame */
    double q_off[4];    /* composite principal axes relative to the master's frame: q_composite = q_master q_off */
    float inv_mass;     /* composite inverse mass and principal inverse moments */
    ctn_v3 inv_moments;
    /* the master's own values, put back after the step */
    float own_inv_mass;
    ctn_v3 own_inv_inertia, own_force, own_torque;
    /* the composite at the end of the last step and the master state derived from it */
    ctn_pose comp_pose, user_pose;
    ctn_vel comp_vel, user_vel;
    /* the master and the cache above as the step found them */
    ctn_attach_body pre_master;
    int pre_cached;
    ctn_pose pre_comp_pose, pre_user_pose;
    ctn_vel pre_comp_vel, pre_user_vel;
} ctn_attach_group;

typedef struct ctn_attachments {
    int link_count, link_capacity;
    ctn_attach_link *links;
    int group_count, group_capacity;
    ctn_attach_group *groups;
    int pre_capacity;
    ctn_attach_body *link_pre; /* [pre_capacity >= link_count] each attached body as the step found it */
    int map_size;  /* entries of link_of and group_of (the body slots when they were last built) */
    int *link_of;  /* [map_size] body slot -> its link, -1 */
    int *group_of; /* [map_size] body slot -> the group it is the master of, -1 */
} ctn_attachments;

/* Link index of attached body slot i, or -1; group index of master slot i, or -1. */
int ctn__attach_link_of(const ctn_world *w, int i);
int ctn__attach_group_of(const ctn_world *w, int i);

/* Rewrites a joint definition onto the solver bodies: a side on an attached body moves to its master with
 * its anchor, axes and rest orientation carried by the attachment (J_master += J_body G, Lloyd 2012), and a
 * side on a dynamic master into the composite body's frame. Returns 0 for a joint whose two sides end on
 * the same solver body (internal to the rigid group: it carries no rows). Definitions that touch no
 * attachment are left bitwise as they are. */
int ctn__attach_map_def(const ctn_world *w, ctn_joint_def *d);

/* Around a step (host/solve/pipeline.c, both backends): enter turns every dynamic master into its composite
 * body and takes the attached bodies out of the step; leave derives the masters and the attached bodies
 * from the composites, or, after a step that failed (`failed`), puts back the masters, the attached bodies
 * and the composite cache as enter found them. The host arrays must be current (ctn__sync) for both. */
void ctn__attach_enter(ctn_world *w);
void ctn__attach_leave(ctn_world *w, int failed);

/* Detaches body slot i if it is attached (body removal). */
ctn_status ctn__attach_forget(ctn_world *w, int i);
/* Restores one link read from a checkpoint (validated like ctn_attach_point) and, after all links, the
 * cached composite state of a master. */
ctn_status ctn__attach_restore_link(ctn_world *w, const ctn_attach_link *link);
ctn_status ctn__attach_restore_cache(ctn_world *w, const ctn_attach_group *saved);
void ctn__attach_free(ctn_world *w);

#endif /* CTN_HOST_ATTACH_H */
