/* CTN_SOLVER_AUTO (host/solve/solver_auto.c): articulated systems without contacts (chains, trees, rings)
 * get the exact solver whatever their size, and with contacts those whose joints carry a large supported
 * mass ratio (long chains, bushy trees, light links holding a heavy load); meshes and piles get Gauss-Seidel; the choice follows topology changes and explicit settings win. The exact
 * choice also shows in the physics: the auto-solved 200-link chain holds where GS stretches. */
#include "catena/catena.h"
#include "check.h"

#include <math.h>
#include <string.h>

static ctn_world *make(ctn_backend backend) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = backend;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    return w;
}

/* Steps `steps` times; returns the solver of the last step (-1 on failure), its gap in *gap. */
static int run(ctn_world *w, int steps, double *gap) {
    ctn_step_stats st;
    memset(&st, 0, sizeof st);
    for (int i = 0; i < steps; ++i)
        if (ctn_world_step(w) != CTN_OK) {
            CHECK(0, "step %d: %s", i, ctn_world_last_error(w));
            return -1;
        }
    ctn_world_get_stats(w, &st);
    if (gap) *gap = st.max_gap;
    return (int)st.solver;
}

static int spec_solver(const char *spec, int steps) {
    ctn_world *w = make(CTN_BACKEND_CPU);
    CHECK(ctn_scene_from_spec(w, spec) == CTN_OK, "%s: %s", spec, ctn_world_last_error(w));
    int s = run(w, steps, NULL);
    ctn_world_destroy(w);
    return s;
}

static void check_choices(void) {
    ctn_world_desc d = ctn_world_desc_default();
    CHECK(d.solver == CTN_SOLVER_AUTO, "default solver %d", (int)d.solver);
    CHECK(spec_solver("chain:200", 2) == CTN_SOLVER_DIRECT, "chain:200 -> direct");
    CHECK(spec_solver("rope:100", 2) == CTN_SOLVER_DIRECT, "rope:100 -> direct");
    CHECK(spec_solver("bridge:60", 2) == CTN_SOLVER_DIRECT, "bridge:60 (pinned at both ends: a tree) -> direct");
    CHECK(spec_solver("chain:10", 2) == CTN_SOLVER_DIRECT, "chain:10 (short, no contacts) -> direct");
    CHECK(spec_solver("heavy_chain:8", 2) == CTN_SOLVER_DIRECT, "heavy_chain:8 (8 links holding a 1000:1 load) -> direct");
    CHECK(spec_solver("tree:2047", 1) == CTN_SOLVER_DIRECT, "tree:2047 (binary, depth 10; no path of 32) -> direct");
    CHECK(spec_solver("tree:31", 2) == CTN_SOLVER_DIRECT, "tree:31 (binary, depth 4, no contacts) -> direct");
    CHECK(spec_solver("grid:20x20", 2) == CTN_SOLVER_GS, "grid:20x20 (half the joints close loops) -> gs");
    CHECK(spec_solver("pile:200", 2) == CTN_SOLVER_GS, "pile:200 (contacts only) -> gs");
    CHECK(spec_solver("capsule_chain:100", 30) == CTN_SOLVER_GS, "capsule_chain:100 (contacts outnumber the chain) -> gs");
}

/* A 40-link chain closed into a ring: one loop closer in 41 joints, still direct. */
static void check_ring(void) {
    ctn_world *w = make(CTN_BACKEND_CPU);
    ctn_chain_desc c = ctn_chain_desc_default(40);
    c.particles = 1;
    ctn_body_id first = CTN_NULL_BODY;
    CHECK(ctn_scene_chain(w, &c, &first) == CTN_OK, "%s", ctn_world_last_error(w));
    ctn_joint_desc j = ctn_joint_desc_default(CTN_JOINT_DISTANCE);
    j.body_a = first;
    j.body_b = ctn_body_id_offset(first, 39);
    j.rest_length = 39 * c.link_length;
    CHECK(ctn_joint_add(w, &j, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(run(w, 2, NULL) == CTN_SOLVER_DIRECT, "ring of 40 -> direct");
    ctn_world_destroy(w);
}

/* The choice is remade when the topology changes, and an explicit solver wins. */
static void check_follows_topology(void) {
    ctn_world *w = make(CTN_BACKEND_CPU);
    ctn_chain_desc c = ctn_chain_desc_default(20);
    c.particles = 1;
    ctn_body_id first = CTN_NULL_BODY;
    CHECK(ctn_scene_chain(w, &c, &first) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(run(w, 1, NULL) == CTN_SOLVER_DIRECT, "20 links -> direct");
    /* 51 distance joints across pairs of links 2, 3 and 4 apart: loop closers, 51 of 71 joints (more than a
     * quarter), more rows than their Schur complement takes (a few closers alone keep the exact solver:
     * check_schur_closers) */
    int loops = 0;
    for (int d = 2; d <= 4; ++d)
        for (int k = 0; k + d < 20; ++k, ++loops) {
            ctn_joint_desc j = ctn_joint_desc_default(CTN_JOINT_DISTANCE);
            j.body_a = ctn_body_id_offset(first, k), j.body_b = ctn_body_id_offset(first, k + d), j.rest_length = -1.0;
            CHECK(ctn_joint_add(w, &j, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
        }
    int used = run(w, 1, NULL);
    ctn_step_stats st;
    ctn_world_get_stats(w, &st);
    CHECK(loops == 51 && used == CTN_SOLVER_GS, "51 loops in 71 joints -> gs after the topology change (%s)", st.solver_reason);
    ctn_world_desc d;
    ctn_world_get_desc(w, &d);
    d.solver = CTN_SOLVER_DIRECT;
    CHECK(ctn_world_set_desc(w, &d) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(run(w, 1, NULL) == CTN_SOLVER_DIRECT, "explicit direct wins");
    d.solver = CTN_SOLVER_AUTO;
    CHECK(ctn_world_set_desc(w, &d) == CTN_OK, "%s", ctn_world_last_error(w));
    CHECK(run(w, 1, NULL) == CTN_SOLVER_GS, "back to auto -> gs");
    ctn_world_destroy(w);
}

/* A few loop closers (8 distance joints across pairs of a 20-link chain: 8 of 28 joints, more than a
 * quarter, 8 rows) where no contact can arise: their Schur complement solves them exactly, so auto keeps the
 * exact solver and says so. */
static void check_schur_closers(void) {
    ctn_world *w = make(CTN_BACKEND_CPU);
    ctn_chain_desc c = ctn_chain_desc_default(20);
    c.particles = 1;
    ctn_body_id first = CTN_NULL_BODY;
    CHECK(ctn_scene_chain(w, &c, &first) == CTN_OK, "%s", ctn_world_last_error(w));
    for (int k = 0; k < 8; ++k) {
        ctn_joint_desc j = ctn_joint_desc_default(CTN_JOINT_DISTANCE);
        j.body_a = ctn_body_id_offset(first, 2 * k), j.body_b = ctn_body_id_offset(first, 2 * k + 2), j.rest_length = 2 * c.link_length;
        CHECK(ctn_joint_add(w, &j, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    }
    CHECK(run(w, 1, NULL) == CTN_SOLVER_DIRECT, "8 loops in 28 joints, 8 closing rows -> direct");
    ctn_step_stats st;
    ctn_world_get_stats(w, &st);
    CHECK(strstr(st.solver_reason, "8 loop closers exact") != NULL, "reason: %s", st.solver_reason);
    ctn_world_destroy(w);
}

/* The physics of the choice: a 200-link chain with a 100:1 heavy end hanging for 1 s. */
static double hanging_gap(ctn_solver solver, int *used) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.solver = solver;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    ctn_chain_desc c = ctn_chain_desc_default(200);
    c.direction[0] = 0.0, c.direction[1] = -1.0;
    c.end_mass_ratio = 100.0;
    CHECK(ctn_scene_chain(w, &c, NULL) == CTN_OK, "%s", ctn_world_last_error(w));
    double gap = 0.0;
    *used = run(w, 60, &gap);
    ctn_world_destroy(w);
    return gap / c.link_length;
}

/* The reason of the choice, in the step statistics. */
static void check_reason(void) {
    const char *specs[] = {"chain:10", "chain:200", "pile:200", "grid:20x20"};
    const char *want[] = {"auto: direct, an articulated system without contacts", "auto: direct", "auto: gs", "close loops"};
    for (int k = 0; k < 4; ++k) {
        ctn_world *w = make(CTN_BACKEND_CPU);
        CHECK(ctn_scene_from_spec(w, specs[k]) == CTN_OK, "%s", ctn_world_last_error(w));
        run(w, 1, NULL);
        ctn_step_stats st;
        ctn_world_get_stats(w, &st);
        CHECK(strstr(st.solver_reason, want[k]) != NULL, "%s: reason '%s' lacks '%s'", specs[k], st.solver_reason, want[k]);
        ctn_world_destroy(w);
    }
    ctn_world_desc d = ctn_world_desc_default();
    d.solver = CTN_SOLVER_DIRECT;
    d.backend = CTN_BACKEND_CPU;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    CHECK(ctn_scene_from_spec(w, "chain:10") == CTN_OK, "%s", ctn_world_last_error(w));
    run(w, 1, NULL);
    ctn_step_stats st;
    ctn_world_get_stats(w, &st);
    CHECK(!strcmp(st.solver_reason, "set by desc.solver"), "explicit: '%s'", st.solver_reason);
    ctn_world_destroy(w);
}

static void check_physics(void) {
    int used_auto = -1, used_gs = -1;
    double g_auto = hanging_gap(CTN_SOLVER_AUTO, &used_auto), g_gs = hanging_gap(CTN_SOLVER_GS, &used_gs);
    printf("200-link chain, 100:1 end, 1 s: auto (%d) gap %.3g L, gs gap %.3g L\n", used_auto, g_auto, g_gs);
    CHECK(used_auto == CTN_SOLVER_DIRECT && used_gs == CTN_SOLVER_GS, "solvers used %d %d", used_auto, used_gs);
    CHECK(g_auto < 1e-4, "auto holds the chain: %.3g L", g_auto);
    CHECK(g_gs > 100 * g_auto, "gs stretches it visibly more: %.3g L vs %.3g L", g_gs, g_auto);
}

/* A bushy tree: tree:2047 (binary, depth 10, no path longer than 21 bodies) for 0.5 s. Measured with the
 * CLI (catena run tree:2047 --steps 60): gs worst gap 0.23 m (links are 0.1 m), auto (direct) 6.3e-8 m. */
static void check_tree(void) {
    double gap[2];
    int used[2];
    ctn_solver solvers[2] = {CTN_SOLVER_AUTO, CTN_SOLVER_GS};
    for (int k = 0; k < 2; ++k) {
        ctn_world_desc d = ctn_world_desc_default();
        d.backend = CTN_BACKEND_CPU;
        d.solver = solvers[k];
        ctn_world *w = NULL;
        char err[256];
        CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
        CHECK(ctn_scene_from_spec(w, "tree:2047") == CTN_OK, "%s", ctn_world_last_error(w));
        used[k] = run(w, 30, &gap[k]);
        ctn_world_destroy(w);
    }
    printf("tree:2047, 0.5 s: auto (%d) gap %.3g m, gs gap %.3g m\n", used[0], gap[0], gap[1]);
    CHECK(used[0] == CTN_SOLVER_DIRECT, "auto on tree:2047 used %d", used[0]);
    CHECK(gap[0] < 4e-7, "auto holds the tree: %.3g m", gap[0]); /* measured 3.9e-8 m */
    CHECK(gap[1] > 1e-2, "gs tears the tree: %.3g m", gap[1]);
}

/* CTN_SUBSTEPS_AUTO: one substep for the exact solver on a forest of bilateral joints of comparable masses,
 * four for distance joints (a particle rope), a 1000:1 end mass and the iterative solvers. A bushy tree of depth 12
 * (tree:8191) under auto solver and auto substeps runs direct at one substep and holds its joints. */
static int auto_substeps(const char *spec, int steps, int *solver, double *gap) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.substeps = CTN_SUBSTEPS_AUTO;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    CHECK(ctn_scene_from_spec(w, spec) == CTN_OK, "%s: %s", spec, ctn_world_last_error(w));
    *solver = run(w, steps, gap);
    ctn_step_stats st;
    ctn_world_get_stats(w, &st);
    ctn_world_destroy(w);
    return st.substeps;
}

static void check_substeps(void) {
    int solver = -1;
    double gap = 0.0;
    int n = auto_substeps("tree:8191", 10, &solver, &gap);
    printf("tree:8191, auto substeps, 10 steps: solver %d, %d substep(s), gap %.3g m\n", solver, n, gap);
    CHECK(solver == CTN_SOLVER_DIRECT && n == 1, "tree:8191 -> direct at 1 substep (%d, %d)", solver, n);
    CHECK(gap < 1e-6, "the depth-12 tree holds at one substep: %.3g m", gap); /* measured 4.1e-8 m */
    CHECK(auto_substeps("chain:200", 2, &solver, &gap) == 1, "chain:200 -> 1 substep");
    CHECK(auto_substeps("rope:100", 2, &solver, &gap) == 4, "rope:100 (distance joints) -> 4 substeps");
    CHECK(auto_substeps("heavy_chain:8", 2, &solver, &gap) == 4, "heavy_chain:8 (1000:1 end) -> 4 substeps");
    CHECK(auto_substeps("grid:20x20", 2, &solver, &gap) == 4 && solver == CTN_SOLVER_GS, "grid:20x20 -> gs at 4 substeps");
    ctn_world_desc d = ctn_world_desc_default();
    d.substeps = -1;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) != CTN_OK && strstr(err, "desc.substeps"), "substeps -1 refused: %s", err);
    ctn_world_destroy(w);
}

/* A chain of 12 hinges, each limited to +-0.5 rad and held by a motor (a robot arm or snake, as URDF files
 * give them): every joint has bounded rows. Alone in the world, with no contact possible, auto keeps it in
 * the exact solve (the limits and motors take the outer loop) and holds its joints far better than GS
 * does; with a floor under capsule links (contacts possible) the bounded joints count against the quarter
 * and it gets GS. */
static int limited_chain(ctn_solver solver, int floor, double *worst_gap, char *reason, size_t reason_size) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.solver = solver;
    ctn_world *w = NULL;
    char err[256];
    CHECK(ctn_world_create(&d, &w, err, sizeof err) == CTN_OK, "%s", err);
    if (!w) return -1;
    ctn_body_id prev = CTN_WORLD;
    for (int i = 0; i < 12; ++i) {
        ctn_body_desc b = ctn_body_desc_default();
        b.mass = 0.1;
        ctn_inertia_capsule(0.1, 0.02, 0.05, 0, b.inertia);
        b.position[0] = 0.1 * i + 0.05, b.position[1] = 2.0;
        ctn_body_id id = CTN_NULL_BODY;
        ctn_body_add(w, &b, &id);
        if (floor) {
            ctn_shape_desc sh = ctn_shape_desc_default(CTN_SHAPE_CAPSULE);
            sh.radius = 0.02, sh.half_length = 0.05;
            ctn_body_set_shape(w, id, &sh);
        }
        ctn_joint_desc j = ctn_joint_desc_default(CTN_JOINT_HINGE);
        j.body_a = id, j.body_b = prev;
        const double pivot[3] = {0.1 * i, 2.0, 0.0}, axis[3] = {0.0, i % 2 ? 1.0 : 0.0, i % 2 ? 0.0 : 1.0};
        ctn_joint_desc_set_pivot(w, &j, pivot, axis);
        ctn_joint_id jid = CTN_NULL_JOINT;
        CHECK(ctn_joint_add(w, &j, &jid) == CTN_OK, "%s", ctn_world_last_error(w));
        ctn_joint_set_limits(w, jid, 1, -0.5, 0.5);
        ctn_joint_set_motor(w, jid, 1, 0.0, 0.05);
        prev = id;
    }
    if (floor) {
        const double up[3] = {0, 1, 0};
        ctn_world_add_plane(w, up, 0.0, 0.5, 0.0, NULL);
    }
    double worst = 0.0;
    int used = -1;
    for (int k = 0; k < 120; ++k) {
        double gap = 0.0;
        used = run(w, 1, &gap);
        if (gap > worst) worst = gap;
    }
    ctn_step_stats st;
    ctn_world_get_stats(w, &st);
    snprintf(reason, reason_size, "%s", st.solver_reason);
    *worst_gap = worst;
    ctn_world_destroy(w);
    return used;
}

static void check_limited_chain(void) {
    char reason[256], reason_gs[256], reason_floor[256];
    double g_auto = 0.0, g_gs = 0.0, g_floor = 0.0;
    int used = limited_chain(CTN_SOLVER_AUTO, 0, &g_auto, reason, sizeof reason);
    int used_gs = limited_chain(CTN_SOLVER_GS, 0, &g_gs, reason_gs, sizeof reason_gs);
    int used_floor = limited_chain(CTN_SOLVER_AUTO, 1, &g_floor, reason_floor, sizeof reason_floor);
    printf("12 limited, motorised hinges, 120 steps: auto (%d) worst gap %.3g m, gs %.3g m; over a floor auto picks %d (%s)\n", used,
           g_auto, g_gs, used_floor, reason_floor);
    CHECK(used == CTN_SOLVER_DIRECT && strstr(reason, "no contact possible"), "auto without contacts: %d (%s)", used, reason);
    CHECK(g_auto < 0.5 * g_gs, "the exact solve holds the limited chain better: %.3g m vs gs %.3g m", g_auto, g_gs);
    CHECK(used_floor == CTN_SOLVER_GS && used_gs == CTN_SOLVER_GS, "over a floor (contacts possible): %d (%s)", used_floor, reason_floor);
}

/* examples/gear_train.json: four wheels hinged to the world and meshed by gears, the first driven at 1 rad/s
 * and driving a rack. No contact arises (the rack runs in its own layer), so auto takes the exact solver and
 * the train turns as its ratios say: after 10 s the driver has turned ~10 rad and the big wheel, the idler,
 * the output and the rack follow at -1/2, 1, -2/3 and 0.3 m/rad. With the rack in the wheels' plane its box
 * lay inside the big wheel's from the start, a contact the one-degree-of-freedom train cannot separate: gs
 * jammed it at -0.11 rad with 3.9 cm joint gaps and the exact solver kept the joints but jammed at 2.7 rad. */
static double turned_z(const double q[4]) { return 2.0 * atan2(q[3], q[0]); }

static void check_gear_train(void) {
    ctn_world *w = make(CTN_BACKEND_CPU);
    char err[512];
    CHECK(ctn_scene_load_json(w, CATENA_SOURCE_DIR "/examples/gear_train.json", err, sizeof err) == CTN_OK, "%s", err);
    const char *names[5] = {"driver", "big", "idler", "output", "rack"};
    ctn_body_id id[5];
    for (int k = 0; k < 5; ++k) CHECK(ctn_body_find(w, names[k], &id[k]) == CTN_OK, "body %s", names[k]);
    double turn[5] = {0}, last[5] = {0}, worst = 0.0, relation = 0.0, x0 = 0.0;
    int contacts = 0, solver = -1;
    ctn_step_stats st;
    memset(&st, 0, sizeof st);
    for (int i = 0; i <= 600; ++i) {
        ctn_body_state b[5];
        for (int k = 0; k < 5; ++k) {
            CHECK(ctn_body_get_state(w, id[k], &b[k]) == CTN_OK, "state %s", names[k]);
            double a = turned_z(b[k].orientation), d = a - last[k];
            d -= 6.283185307179586 * floor((d + 3.141592653589793) / 6.283185307179586); /* unwrapped: steps turn far less than pi */
            if (i > 0) turn[k] += d;
            last[k] = a;
        }
        if (i == 0) x0 = b[4].position[0];
        double t = turn[0], e[4] = {turn[1] + t / 2.0, turn[2] - t, turn[3] + t / 1.5, (b[4].position[0] - x0) - 0.3 * t};
        for (int k = 0; k < 4; ++k) relation = fmax(relation, fabs(e[k]));
        if (i == 600) break;
        if (ctn_world_step(w) != CTN_OK) {
            CHECK(0, "step %d: %s", i, ctn_world_last_error(w));
            break;
        }
        ctn_world_get_stats(w, &st);
        worst = fmax(worst, st.max_gap);
        contacts += st.contacts;
        solver = (int)st.solver;
    }
    printf("gear_train: auto -> %d (%s), driver %.4f rad, worst gap %.3g m, worst ratio error %.3g, contacts %d\n", solver,
           st.solver_reason, turn[0], worst, relation, contacts);
    CHECK(solver == CTN_SOLVER_DIRECT && strstr(st.solver_reason, "auto: direct"), "gear_train: auto -> %d (%s)", solver, st.solver_reason);
    CHECK(contacts == 0, "gear_train: %d contacts (the rack's layer is clear of the wheels)", contacts);
    CHECK(fabs(turn[0] - 10.0) < 0.05, "gear_train: the driver turned %.4f rad in 10 s at 1 rad/s", turn[0]);
    CHECK(worst < 1e-6 && relation < 1e-5, "gear_train: worst gap %.3g m, ratio error %.3g", worst, relation);
    ctn_world_destroy(w);
}

int main(void) {
    check_choices();
    check_limited_chain();
    check_ring();
    check_follows_topology();
    check_schur_closers();
    check_reason();
    check_physics();
    check_tree();
    check_substeps();
    check_gear_train();
    return check_report("test_auto_solver");
}
