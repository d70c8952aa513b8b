/* The elimination structure of the exact solver, built by host/solve/direct_build.c and shared with
 * the OpenCL forest path (host/opencl/opencl_forest.c), which uploads it: node kinds, sizes, parents and the
 * joints attached to body nodes (supernodes). See the header comment of host/solve/solver_direct.c. */
#ifndef CTN_DIRECT_INTERNAL_H
#define CTN_DIRECT_INTERNAL_H

#include "core/world.h"
#include "solve/solve.h"

/* Joint rows merged into one body node; beyond this the joints go to the GS set (= CTN_DD_MAX_ATTACHED of
 * kernels/ctn_direct.h, the OpenCL node bound). */
#define DIRECT_MAX_ATTACHED_ROWS 12
/* Relative regularisation of every row: S + DIRECT_FLOOR * (J M^-1 J^T)_ii of the row's own bodies. Keeps
 * nearly redundant rows (a grid pinned along its top row) from producing huge impulses. */
#define DIRECT_FLOOR 1e-10
/* Loop-closing rows solved through their dense Schur complement (= CTN_DD_MAX_SCHUR of
 * kernels/ctn_direct_schur.h); more go to block GS. */
#define DIRECT_MAX_SCHUR_ROWS 48

enum { SLOT_INACTIVE = 0, SLOT_NODE, SLOT_ATTACHED, SLOT_EXTRA };
enum { NODE_BODY = 0, NODE_JOINT };

typedef struct direct_chain direct_chain; /* host/solve/direct_chain.c */

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
    int bounded;             /* some joint may have rows with finite bounds (ctn__joint_may_be_bounded) */
    int ball_rows;           /* every joint a rigid ball joint on the chain path: the rows may be ctn_ball_rows (ctn__direct_ball_rows) */

    /* per substep */
    unsigned char *cut;      /* [slot] joint taken out of the forest this substep (finite bounds) */
    int *extra_now;          /* [slots] extra + cut joints of this substep */
    unsigned char *keep;     /* [slot] bounded rows the active set keeps in the exact solve (kernels/ctn_direct_active.h) */
    float *ml;               /* [CTN_DD_ML_FLOATS slot] its motor-and-limit rows' targets and modes */
    float *ls_lambda;        /* [6 slot + row] the active set's last exact solve, for its descent safeguard (chain path) */
    double *ls_r0;           /* [6 slot + row] r0 = b - A l0 of each row at the safeguard's test (the same at every halving) */
    unsigned char *ls_treated; /* [slot] its treated rows (ctn_dd_active_rows) at the safeguard's test, for its halvings */
    float h;                 /* the substep the blocks were built for (ctn__direct_set_substep; 0: unknown) */
    float warm;              /* the factor the warm start scaled the last substep's impulses by (0: none) */
    long active_substeps, active_solves, active_fallbacks; /* the active set's substeps, exact solves and fallbacks to the sweep (tests read them) */
    double *mat;             /* node pivots, then their inverses */
    unsigned char *split;    /* [node] the factor's inverse of this body node is block diagonal (direct_forest.c) */
    unsigned char *pass;     /* [node] the factor's record of how the node couples to its parent, read by its solves (direct_forest.c) */
    double *b, *x;           /* right-hand side, solution */
    ctn_vel *vref;           /* [body] velocities the last exact solve left (the hybrid's re-solves) */
    float *lref;             /* [6 slot + row] impulses it left */
    int resolve;             /* the next forest solve is a re-solve: right-hand side (R) of kernels/ctn_direct_rhs.h */
    int noted;
    int residual_impulses;   /* the last ctn__solve_direct_ex's residual read every joint's impulses (ctn__direct_residual_impulses) */
    int residual_velocities; /* and every body's velocity, finite where it is (ctn__direct_residual_velocities) */
    int said[3];             /* what the last note on unsupported joints said (direct_build.c): said again only when it changes */

    direct_chain *chain;     /* the joint-space path when the layout is a set of chains (then no forest) */
    int chain_segments;      /* segments of the chain path; 0: by length (tests set it) */
    int blocks_only;         /* the rows are never ball records (ctn__direct_set_blocks_only; tests set it) */
    int descent_off;         /* the active set's descent safeguard is off (ctn__direct_set_descent; tests compare) */
    int descent_copy;        /* ... on, with l0, v0 copied before every solve (ctn__direct_set_descent(w, 2)) */
} direct_state;

/* host/solve/direct_build.c: the ordering of the current topology with the factor storage (verbose: a log
 * note for joints left to GS); 0 when out of memory. ctn__direct_state_free frees every array of s (keeping
 * its settings); ctn__direct_body_dynamic: body is a dynamic body of the world. */
int ctn__direct_build(ctn_world *w, direct_state *s, int verbose);
void ctn__direct_state_free(direct_state *s);
int ctn__direct_body_dynamic(const ctn_world *w, int body);

/* host/solve/direct_forest.c, per substep: ctn__forest_factor forms and eliminates the node pivots (joints
 * with s->cut set are left out); ctn__forest_substitute solves x = H^-1 b of s->b into s->x (b consumed);
 * ctn__forest_solve solves for the current velocities and impulses (with s->resolve: for their change since
 * s->vref, s->lref, the right-hand side (R) of kernels/ctn_direct_rhs.h) and applies dv and dl. */
void ctn__forest_factor(ctn_world *w, direct_state *s, const ctn_block *blocks);
void ctn__forest_substitute(const ctn_world *w, direct_state *s, const ctn_block *blocks);
void ctn__forest_solve(ctn_world *w, direct_state *s, const ctn_block *blocks);
/* The in-place inverse of an N x N node pivot with d body DOFs that the forest's elimination takes
 * (ctn_dd_node_inverse_g's operations; unrolled for N = d = 6 and N = 3, d = 0). For tests. */
void ctn__forest_node_inverse(double *D, int N, int d);

/* Builds the spanning forest and elimination order of the current topology into s (without the factor
 * storage mat, b, x; no stderr notes). Returns 0 when out of memory. Free with ctn__direct_symbolic_free. */
int ctn__direct_symbolic(ctn_world *w, direct_state *s);
void ctn__direct_symbolic_free(direct_state *s);

/* host/solve/solver_direct.c: the row records (CTN_SR_* of kernels/ctn_direct_schur.h, DIRECT_MAX_SCHUR_ROWS at
 * most) of the loop closers s->extra of the ordering s, for their Schur complement: returns their count, -1
 * when they have more rows than that. The OpenCL forest path uploads the same records. */
int ctn__direct_schur_rows(const ctn_world *w, const direct_state *s, int *rows);

/* Rows of a joint in the exact solve (0: a type it does not eliminate); degrees of freedom of a dynamic
 * body (3 or 6; 0 for partly zero inverse inertia, which it does not support). */
int ctn__direct_rows(const ctn_joint_def *d);
/* The same of the layout's slot s. */
static inline int ctn__direct_rows_at(const ctn_topology *t, int s) {
    ctn_joint_def d = ctn_joint_at(ctn__topo_joints(t), s);
    return ctn__direct_rows(&d);
}
int ctn__direct_body_dof(const ctn_world *w, int body);

/* Chain path (host/solve/direct_chain.c). ctn__chain_build: 1 and *out when every joint lies on a simple
 * path, 0 when the layout has branches or loops (the forest path takes it), -1 when out of memory.
 * `segments` > 0 forces the segment count. ctn__chain_factor marks this substep's bounded joints (their
 * slots into cut_list, count returned), factors, and runs the forward substitution of the next
 * ctn__chain_solve (which must follow before the velocities or impulses change); ctn__chain_solve solves
 * for the current velocities and applies the impulses; ctn__chain_residual sums the squared residuals of the chain's rows. */
int ctn__chain_build(ctn_world *w, direct_chain **out, int segments);
void ctn__chain_free(direct_chain *c);
int ctn__chain_factor(ctn_world *w, direct_chain *c, const ctn_block *blocks, int *cut_list);
void ctn__chain_solve(ctn_world *w, direct_chain *c, const ctn_block *blocks);
/* Drops the forward substitution ctn__chain_factor ran, so that the next ctn__chain_solve runs its own (a
 * factor kept for later right-hand sides: the RATTLE integrator, ctn__direct_factor). */
void ctn__chain_unforward(direct_chain *c);
/* The velocities and impulses the last exact solve left (NULL: none), for the right-hand side (R) of
 * kernels/ctn_direct_rhs.h: with them set, ctn__chain_solve is a re-solve of the hybrid. */
void ctn__chain_set_reference(direct_chain *c, const ctn_vel *vref, const float *lref);
/* Whether the solves can keep what they overwrite (ctn__chain_set_save) such that every velocity they do not keep
 * is unchanged by them and by the active set's checks: the dynamic bodies are exactly the dynamic bodies of the
 * positions (the layout's flags are the bodies' now, and every one is on the chain: c->covers), and no other body
 * has an inverse mass. */
int ctn__chain_can_save(const ctn_world *w, const direct_chain *c);
/* After ctn__chain_factor, for the next ctn__chain_solve only (then call it with NULL): the solve keeps in lsave the
 * impulses of every position's slot (topo.stride floats at stride * slot) and in vsave the velocity of every
 * dynamic body of a position, each just before it overwrites them; other entries are left as they were. Returns 1
 * when it will, 0 (nothing set) where it cannot: the ball walk, a solve from rest, a chord step. */
int ctn__chain_set_save(direct_chain *c, float *lsave, ctn_vel *vsave);
/* Bounded rows kept in the exact solve, a bit mask per slot (the active set of solver_direct.c; NULL: every
 * bounded row is cut). Read by the next ctn__chain_factor; not owned. */
void ctn__chain_set_keep(direct_chain *c, const unsigned char *keep);
/* generic = 1: the factor walks of a ball-jointed chain take the generic node steps instead of their own
 * (the same bits; tests/test_direct_chain.c compares the two). */
void ctn__chain_set_generic(direct_chain *c, int generic);
/* The storage of P^-1 (the pivot inverses) of the next factors: single = 1, in float where the layout allows it
 * (every position 3 rows, at most two segments), else in double; the other storage is freed. The ball records' lean
 * walks keep it in float, the blocks' in double (each takes the generic walks with the other storage). Returns 0
 * when out of memory. */
int ctn__chain_pivots(direct_chain *c, int single);
/* balls: the rows of every joint slot as ball records (ctn_ball_row), which the chain's walks then read in place
 * of the blocks (the block arguments of the entries below are not read; NULL: the blocks). Not owned. */
void ctn__chain_set_balls(direct_chain *c, const ctn_ball_row *balls);
/* The factor (pivot inverses K, couplings T_E in C) and the last solve's x (y) of the layout, and their
 * lengths in doubles: for tests that compare two factor walks bit for bit. *K is NULL where P^-1 is kept in float
 * (ctn__chain_pivots). */
void ctn__chain_arrays(const direct_chain *c, const double **K, size_t *nk, const double **C, size_t *nc, const double **y, size_t *ny);
/* Whether every path of layout c has at most one joint to a body that is not dynamic (the world, a static or a
 * kinematic body): host/solve/pipeline.c's anchored_once for a chain layout, found by the build without scratch. */
int ctn__chain_anchored(const direct_chain *c);
/* Whether the joint in slot has a position in the chain (is solved by it). */
int ctn__chain_has(const direct_chain *c, int slot);
void ctn__chain_solve_rest(ctn_world *w, direct_chain *c, const ctn_block *blocks);
int ctn__chain_chord_step(ctn_world *w, direct_chain *c, const ctn_block *blocks, float h);
int ctn__chain_project_step(ctn_world *w, direct_chain *c, const ctn_block *blocks, int *cut_list, float h);
/* Whether ctn__chain_chord_step moves the poses at step h (every body the integration would move is a dynamic
 * body of some position). */
int ctn__chain_moves(const ctn_world *w, const direct_chain *c, float h);
double ctn__chain_residual(ctn_world *w, direct_chain *c, const ctn_block *blocks);
/* Whether ctn__chain_residual reads every impulse of the world: ball records (rows 0..2 of each joint) at a row
 * stride of 3, every joint a position of the layout. */
int ctn__chain_residual_impulses(const ctn_world *w, const direct_chain *c);
/* Whether ctn__chain_residual reads every body's velocity such that a finite residual has every one finite: ball
 * records whose positions' ends are all the world's bodies. */
int ctn__chain_residual_velocities(const ctn_world *w, const direct_chain *c);

/* The positions' arrays of layout c (its position count returned); *n is NULL where every position has the same
 * rows (then each position's are ctn__direct_rows of its joint). */
int ctn__chain_positions(const direct_chain *c, const int **slot, const int **shared, const unsigned char **n, const unsigned char **side,
                         const unsigned char **dyn);
/* The segment count P of layout c and its separators sep[0..P] (sep[0] = -1, sep[P] = m): the CPU's split,
 * which the OpenCL chain path takes on CPU devices (host/opencl/opencl_direct.c). */
int ctn__chain_separators(const direct_chain *c, const int **sep);

/* The active set's counts since the world's first direct step (substeps it ran, exact solves, substeps that
 * fell back to the projected Gauss-Seidel sweep); zeros before. For tests and the bench. */
void ctn__direct_active_counts(const ctn_world *w, long *substeps, long *solves, long *fallbacks);

/* Forces the chain path's segment count of a world (0: automatic); for tests. */
void ctn__direct_set_chain_segments(ctn_world *w, int segments);
/* on = 1: ctn__direct_ball_rows never holds, so a world of rigid ball joints on the chain keeps its rows in the
 * 288-byte blocks as any other world; for tests (the two must give the same bits). */
void ctn__direct_set_blocks_only(ctn_world *w, int on);
/* on = 0: the active set's velocity solve on the chain path runs without its descent safeguard (every step taken
 * whole, Murty's single pivots after CTN_DD_ACTIVE_STALL steps), the rule before it; 2: with it, but l0 and v0
 * copied whole before every solve instead of kept by the solve as it overwrites them (the same bits); for tests
 * that compare. */
void ctn__direct_set_descent(ctn_world *w, int on);

#endif /* CTN_DIRECT_INTERNAL_H */
