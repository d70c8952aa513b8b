/* The elimination structure of the exact solver (issue 8), built by host/solver_direct.c and shared with
 * the OpenCL tree solver (host/opencl_tree.c), which uploads it: node kinds, sizes, parents and the
 * joints attached to body nodes (supernodes). See the header comment of host/solver_direct.c. */
#ifndef CTN_DIRECT_INTERNAL_H
#define CTN_DIRECT_INTERNAL_H

#include "core/world.h"

enum { SLOT_INACTIVE = 0, SLOT_NODE, SLOT_ATTACHED, SLOT_EXTRA };
enum { NODE_BODY = 0, NODE_JOINT };

typedef struct direct_state {
    int valid;
    unsigned version;        /* w->topology_version the ordering was built for */
    int joints, bodies;      /* topo.joint_count, topo.body_count at build time */

    int node_count;
    unsigned char *kind;     /* [node] NODE_BODY / NODE_JOINT */
    unsigned char *dof;      /* [node] body: 3 or 6; joint: 0 */
    unsigned char *size;     /* [node] N: dof + attached rows (body) or rows (joint) */
    unsigned char *side;     /* [node] body: its side in pslot; joint: side of the parent body */
    int *id;                 /* [node] body id or joint slot */
    int *parent;             /* [node] parent node, -1 for a root */
    int *pslot;              /* [node] body: slot of the joint coupling it to the parent (-1 for roots) */
    unsigned char *prow;     /* [node] body: first row of pslot inside the parent node */
    size_t *mat_off;         /* [node] offset of the N x N block in mat */
    size_t *vec_off;         /* [node] offset of the N-vector in b / x */
    int *att_off;            /* [node + 1] CSR of the joints attached to body nodes */
    int *att;

    unsigned char *slot_kind;/* [slot] SLOT_* */
    unsigned char *slot_side;/* [slot] attached: side of the body whose node holds the rows */
    int *slot_node;          /* [slot] node: its node; attached: the body node holding its rows; else -1 */
    int *slot_row;           /* [slot] attached: first row inside that node (after the body DOFs) */
    int extra_count;
    int *extra;              /* static extra slots (loop closers, unsupported) */

    /* per substep */
    unsigned char *cut;      /* [slot] joint taken out of the forest this substep (finite bounds) */
    int *extra_now;          /* [slots] extra + cut joints of this substep */
    double *mat;             /* node pivots, then their inverses */
    double *b, *x;           /* right-hand side, solution */
    int noted;
} direct_state;

/* Builds the spanning forest and elimination order of the current topology into s (without the factor
 * storage mat, b, x; no stderr notes). Returns 0 when out of memory. Free with ctn__direct_symbolic_free. */
int ctn__direct_symbolic(ctn_world *w, direct_state *s);
void ctn__direct_symbolic_free(direct_state *s);

#endif /* CTN_DIRECT_INTERNAL_H */
