/* Whether every set of dynamic bodies joined by joints has at most one joint to a body that is not dynamic, as the
 * exact solver's chain layout finds it while it orders its paths (host/solve/direct_chain.c, c->anchored;
 * ctn__direct_anchored), against the union-find over the bodies that host/solve/pipeline.c's anchored_once runs
 * where the layout is not a chain (here in the test, over the world's topology). The answer decides whether the
 * exact solve's warm start is idle (tests/test_warm_idle.c: the bits), so the two must agree on every layout:
 * chains pinned once, twice, at a single body, not at all, several chains, a static and a kinematic body at a
 * path's end or in its middle, a joint between two static bodies (off the chain). A tree (not a chain) leaves
 * the layout's answer unknown (-1). */
#include "catena/catena.h"
#include "check.h"
#include "core/world.h"
#include "solve/solve.h"

#include <stdlib.h>
#include <string.h>

static int find(int *root, int x) {
    while (root[x] != x) x = root[x] = root[root[x]];
    return x;
}

/* The reference: a union-find over the topology's bodies (loops count as not anchored). */
static int reference(const ctn_world *w) {
    int n = w->topo.body_count, ok = 1;
    int *root = malloc(((size_t)n + 1) * sizeof *root), *held = calloc((size_t)n + 1, sizeof *held);
    for (int i = 0; i < n; ++i) root[i] = i;
#define DYN(b) ((b) >= 0 && (b) < n && (w->props[(b)].flags & CTN_BODY_FLAG_DYNAMIC))
    for (int s = 0; s < w->topo.joint_count; ++s) {
        int a = w->topo.defs[s].a, b = w->topo.defs[s].b;
        if (DYN(a) && DYN(b)) {
            int ra = find(root, a), rb = find(root, b);
            if (ra == rb) ok = 0;
            held[rb] += held[ra];
            root[ra] = rb;
        } else if (DYN(a) || DYN(b)) {
            held[find(root, DYN(a) ? a : b)]++;
        }
    }
    for (int i = 0; i < n; ++i)
        if (root[i] == i && held[i] > 1) ok = 0;
#undef DYN
    free(root), free(held);
    return ok;
}

/* A scene: bodies along +x of the given types ('d' dynamic, 's' static, 'k' kinematic), then ball joints
 * "a-b" between body indices (w: the world, always second), e.g. "0-w 0-1 1-2". */
typedef struct scene {
    const char *name, *bodies, *joints;
    int expect; /* 1, 0, or -1 (not a chain layout) */
} scene;

static void check_scene(const scene *sc) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.solver = CTN_SOLVER_DIRECT;
    d.integrator = CTN_INTEGRATOR_VELOCITY;
    d.threads = 1;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    if (!w) return;
    int nb = (int)strlen(sc->bodies);
    ctn_body_id ids[32];
    for (int i = 0; i < nb && i < 32; ++i) {
        ctn_body_desc b = ctn_body_desc_default();
        b.type = sc->bodies[i] == 's' ? CTN_BODY_STATIC : sc->bodies[i] == 'k' ? CTN_BODY_KINEMATIC : CTN_BODY_DYNAMIC;
        if (b.type != CTN_BODY_DYNAMIC) b.mass = 0.0;
        b.position[0] = 0.1 * i;
        b.position[1] = 0.05 * (i % 3);
        CHECK(ctn_body_add(w, &b, &ids[i]) == CTN_OK, "%s: body %d: %s", sc->name, i, ctn_world_last_error(w));
    }
    for (const char *p = sc->joints; *p;) {
        while (*p == ' ') ++p;
        if (!*p) break;
        char ca = *p++;
        ++p; /* '-' */
        char cb = *p++;
        ctn_joint_desc j = ctn_joint_desc_default(CTN_JOINT_BALL);
        j.body_a = ca == 'w' ? CTN_WORLD : ids[ca - '0'];
        j.body_b = cb == 'w' ? CTN_WORLD : ids[cb - '0'];
        double pivot[3] = {0.05 * ((ca == 'w' ? 0 : ca - '0') + (cb == 'w' ? 0 : cb - '0')), 0.0, 0.0};
        CHECK(ctn_joint_desc_set_pivot(w, &j, pivot, NULL) == CTN_OK && ctn_joint_add(w, &j, NULL) == CTN_OK, "%s: joint %c-%c: %s",
              sc->name, ca, cb, ctn_world_last_error(w));
    }
    CHECK(ctn_world_step(w) == CTN_OK, "%s: step: %s", sc->name, ctn_world_last_error(w));
    int got = ctn__direct_anchored(w), ref = reference(w);
    CHECK(got == sc->expect, "%s: the layout's answer %d, expected %d", sc->name, got, sc->expect);
    if (got >= 0) CHECK(got == ref, "%s: the layout's answer %d, the union-find's %d", sc->name, got, ref);
    printf("  %-34s layout %2d, union-find %d\n", sc->name, got, ref);
    ctn_world_destroy(w);
}

int main(void) {
    const char *name = "test_chain_anchored";
    static const scene scenes[] = {
        {"chain pinned at one end", "ddddd", "0-w 0-1 1-2 2-3 3-4", 1},
        {"chain pinned at both ends", "ddddd", "0-w 0-1 1-2 2-3 3-4 4-w", 0},
        {"free chain", "dddd", "0-1 1-2 2-3", 1},
        {"one body held twice", "d", "0-w 0-w", 0},
        {"one body held once", "d", "0-w", 1},
        {"pinned in the middle", "ddddd", "0-1 1-2 2-w 2-3 3-4", -1}, /* body 2 in three joints: a tree */
        {"two chains, each pinned once", "dddddd", "0-w 0-1 1-2 3-4 4-5 5-w", 1},
        {"two chains, one pinned twice", "dddddd", "0-w 0-1 1-2 3-w 3-4 4-5 5-w", 0},
        {"static end body", "sddd", "0-1 1-2 2-3", 1},
        {"static at both ends", "sddds", "0-1 1-2 2-3 3-4", 0},
        {"kinematic in the middle", "ddkdd", "0-1 1-2 2-3 3-4", 1},
        {"kinematic middle, world end", "ddkdd", "0-w 0-1 1-2 2-3 3-4", 0}, /* bodies 0-1: the world and the kinematic body */
        {"kinematic middle, both ends", "ddkdd", "0-w 0-1 1-2 2-3 3-4 4-w", 0},
        {"kinematic middle held twice", "ddkdd", "0-w 0-1 1-2 2-3 3-4 1-w", -1}, /* body 1 in three joints */
        {"joint between statics", "sdds", "0-3 1-2 0-1", 1},
    };
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; ++i) check_scene(&scenes[i]);
    return check_report(name);
}
