/* CLI tests: runs the catena executable and parses what it writes back.
 *
 *   cli_test CHECK CATENA SOURCE_DIR WORK_DIR
 *
 * CHECK is one of: outputs (CSV, VTK, SVG picture, SVG plot, JSON summary parsed back), resume (bitwise
 * equality of an interrupted-and-resumed run with an uninterrupted one, --more, SIGTERM), checkpoint
 * (corrupted and truncated checkpoints refused), bad (the broken scene corpus tests/cli/bad with expected
 * messages and exit codes, and command-line errors), examples (every .json scene and .urdf robot in examples/ validates and runs),
 * api (the scene loader through the library: a failed build leaves the world unchanged), flags (GNU
 * conventions, help and man page, outputs on stdout, output paths checked first, --progress, --max-gap,
 * frame and checkpoint cadences). */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "ids.h"
#include "cli/harness.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- outputs ----------------------------------------------------------------------------------------- */

/* The VTK XML frame's header (tests/paraview/check_vtk_series.py reads the frames back through VTK). */
static void check_vtk(const char *path, int points, int verts, int lines) {
    char *t = read_all(path, NULL);
    CHECK(t != NULL, "%s was not written", path);
    if (!t) return;
    CHECK(strstr(t, "<VTKFile type=\"PolyData\" version=\"1.0\"") == t + 22, "%s: VTK XML PolyData header", path);
    int np = -1, nv = -1, nl = -1;
    const char *p = strstr(t, "<Piece ");
    if (p) sscanf(p, "<Piece NumberOfPoints=\"%d\" NumberOfVerts=\"%d\" NumberOfLines=\"%d\"", &np, &nv, &nl);
    CHECK(np == points && nv == verts && nl == lines, "%s: %d points, %d vertices and %d lines, expected %d, %d and %d", path, np, nv, nl, points,
          verts, lines);
    CHECK(strstr(t, "<AppendedData encoding=\"raw\">") != NULL, "%s: raw appended data", path);
    free(t);
}

static void check_outputs(void) {
    char *csv = path_in(g_work, "out.csv"), *vtk = path_in(g_work, "vtk"), *svg = path_in(g_work, "pic.svg"),
         *plot = path_in(g_work, "plot.svg"), *json = path_in(g_work, "summary.json");
    /* 50 links: 50 bodies + 1 world anchor point, 50 joint lines; frames at 0, 10, 20, 30 */
    int code = run("run", "chain:50", "--steps", "30", "--every", "10", "--backend", "cpu", "--csv", csv, "--vtk", vtk, "--svg", svg,
                   "--plot", plot, "--json", json, NULL);
    CHECK(code == 0, "run with every output: exit %d: %s", code, g_stderr);
    check_csv(csv, 50, 4);
    for (int s = 0; s <= 30; s += 10) {
        char name[64];
        snprintf(name, sizeof name, "frame_%06d.vtp", s);
        char *f = path_in(vtk, name);
        check_vtk(f, 51, 50, 50); /* 50 bodies (one vertex each) and the pin's anchor */
        free(f);
    }
    char *pvd = path_in(vtk, "catena.pvd");
    check_xml(pvd, "VTKFile");
    char *t = read_all(pvd, NULL);
    int datasets = 0;
    for (const char *p = t; p && (p = strstr(p, "<DataSet ")); ++p) datasets++;
    CHECK(datasets == 4, "catena.pvd lists %d frames, expected 4", datasets);
    free(t);
    free(pvd);
    check_xml(svg, "svg");
    check_xml(plot, "svg");
    t = read_all(svg, NULL);
    CHECK(t && strstr(t, "<path") != NULL, "picture has no paths");
    free(t);
    t = read_all(plot, NULL);
    CHECK(t && strstr(t, "<polyline") != NULL && strstr(t, "1e"), "plot has no curves or log axis");
    free(t);

    t = read_all(json, NULL);
    cJSON *j = t ? cJSON_Parse(t) : NULL;
    CHECK(j != NULL, "summary.json does not parse");
    if (j) {
        const cJSON *v;
        v = cJSON_GetObjectItemCaseSensitive(j, "status");
        CHECK(cJSON_IsString(v) && !strcmp(v->valuestring, "ok"), "summary status");
        v = cJSON_GetObjectItemCaseSensitive(j, "bodies");
        CHECK(cJSON_IsNumber(v) && v->valueint == 50, "summary bodies");
        v = cJSON_GetObjectItemCaseSensitive(j, "joints");
        CHECK(cJSON_IsNumber(v) && v->valueint == 50, "summary joints");
        v = cJSON_GetObjectItemCaseSensitive(j, "steps_run");
        CHECK(cJSON_IsNumber(v) && v->valueint == 30, "summary steps_run");
        v = cJSON_GetObjectItemCaseSensitive(j, "backend");
        CHECK(cJSON_IsString(v) && !strcmp(v->valuestring, "cpu"), "summary backend");
        v = cJSON_GetObjectItemCaseSensitive(j, "device");
        CHECK(cJSON_IsString(v), "summary device");
        const cJSON *set = cJSON_GetObjectItemCaseSensitive(j, "settings");
        v = cJSON_GetObjectItemCaseSensitive(set, "solver");
        CHECK(cJSON_IsString(v) && !strcmp(v->valuestring, "auto"), "summary settings.solver");
        v = cJSON_GetObjectItemCaseSensitive(set, "solver_used"); /* a 50-link chain: auto takes the exact solver */
        CHECK(cJSON_IsString(v) && !strcmp(v->valuestring, "direct"), "summary settings.solver_used");
        v = cJSON_GetObjectItemCaseSensitive(set, "iterations");
        CHECK(cJSON_IsNumber(v) && v->valueint == 4, "summary settings.iterations");
        const cJSON *col = cJSON_GetObjectItemCaseSensitive(j, "colours");
        v = cJSON_GetObjectItemCaseSensitive(col, "count");
        CHECK(cJSON_IsNumber(v) && v->valueint >= 2, "summary colours.count");
        const cJSON *tm = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "timings_ms"), "per_step");
        const char *phases[] = {"step", "colour", "prepare", "solve", "integrate", "transfer"};
        for (int k = 0; k < 6; ++k) {
            v = cJSON_GetObjectItemCaseSensitive(tm, phases[k]);
            CHECK(cJSON_IsNumber(v) && v->valuedouble >= 0.0, "summary timings_ms.per_step.%s", phases[k]);
        }
        const cJSON *vi = cJSON_GetObjectItemCaseSensitive(j, "violation");
        v = cJSON_GetObjectItemCaseSensitive(vi, "final_max_gap");
        CHECK(cJSON_IsNumber(v) && v->valuedouble >= 0.0 && v->valuedouble < 0.05, "summary violation.final_max_gap");
        v = cJSON_GetObjectItemCaseSensitive(vi, "worst_max_gap");
        CHECK(cJSON_IsNumber(v), "summary violation.worst_max_gap");
        cJSON_Delete(j);
    }
    free(t);
    CHECK(no_temp_files(g_work) && no_temp_files(vtk), "temporary files left behind");

    /* a failing run leaves no output behind: an unwritable checkpoint directory fails at the end */
    char *csv2 = path_in(g_work, "fail.csv"), *svg2 = path_in(g_work, "fail.svg");
    code = run("run", "chain:10", "--steps", "5", "--backend", "cpu", "--csv", csv2, "--svg", svg2, "--checkpoint",
               "/nonexistent-dir/ck.bin", NULL);
    CHECK(code == 6, "unwritable checkpoint: exit %d, expected 6", code);
    CHECK(!file_exists(csv2) && !file_exists(svg2), "outputs of a failed run were left behind");
    CHECK(no_temp_files(g_work), "temporary files left behind after a failure");
    /* an output that cannot be created fails before stepping */
    code = run("run", "chain:10", "--steps", "5", "--backend", "cpu", "--csv", "/nonexistent-dir/x.csv", NULL);
    CHECK(code == 6 && strstr(g_stderr, "cannot create"), "unwritable CSV: exit %d: %s", code, g_stderr);
    /* the message names the user's path, not the temporary file it is written through */
    CHECK(strstr(g_stderr, "/nonexistent-dir/x.csv: cannot create") && !strstr(g_stderr, ".tmp."), "unwritable CSV names %s", g_stderr);
    free(csv2);
    free(svg2);
    free(csv), free(vtk), free(svg), free(plot), free(json);
}

/* ---- checkpoints --------------------------------------------------------------------------------------- */

static int same_file(const char *a, const char *b) {
    size_t na, nb;
    char *ta = read_all(a, &na), *tb = read_all(b, &nb);
    int same = ta && tb && na == nb && memcmp(ta, tb, na) == 0;
    free(ta);
    free(tb);
    return same;
}

/* The last `bodies` lines of a CSV (the final frame). */
static char *last_frame(const char *path, int bodies) {
    size_t n;
    char *t = read_all(path, &n);
    if (!t) return NULL;
    int lines = 0;
    size_t i = n;
    while (i > 0) {
        --i;
        if (t[i] == '\n' && i + 1 < n && ++lines == bodies) break;
        if (t[i] == '\n' && i + 1 == n) continue;
    }
    char *r = strdup(t + i);
    free(t);
    return r;
}

static void check_resume_scene(const char *scene, int bodies) {
    char *a = path_in(g_work, "a.ck"), *b = path_in(g_work, "b.ck"), *ca = path_in(g_work, "a.csv"), *cb = path_in(g_work, "b.csv"),
         *cc = path_in(g_work, "c.csv"), *c = path_in(g_work, "c.ck");
    remove(a), remove(b), remove(c);
    int code = run("run", scene, "--steps", "200", "--backend", "cpu", "--checkpoint", a, "--csv", ca, "--csv-every", "200", NULL);
    CHECK(code == 0, "%s: 200 steps: exit %d: %s", scene, code, g_stderr);
    code = run("run", scene, "--steps", "100", "--backend", "cpu", "--checkpoint", b, NULL);
    CHECK(code == 0, "%s: 100 steps: exit %d: %s", scene, code, g_stderr);
    /* without --checkpoint, resume keeps the file it started from and writes B-200.ck */
    size_t n100 = 0, n_after = 0;
    char *b_at_100 = read_all(b, &n100), *b200 = path_in(g_work, "b-200.ck");
    remove(b200);
    code = run("resume", b, "--steps", "200", "--backend", "cpu", "--csv", cb, "--csv-every", "200", NULL);
    CHECK(code == 0, "%s: resume to 200: exit %d: %s", scene, code, g_stderr);
    char *b_after = read_all(b, &n_after);
    CHECK(b_at_100 && b_after && n100 == n_after && !memcmp(b_at_100, b_after, n100) && file_exists(b200), "%s: resume overwrote its checkpoint",
          scene);
    CHECK(same_file(a, b200), "%s: the checkpoint after 100 + resumed 100 steps differs from the one after 200 steps", scene);
    free(b_at_100), free(b_after), free(b200);
    char *fa = last_frame(ca, bodies), *fb = last_frame(cb, bodies);
    CHECK(fa && fb && !strcmp(fa, fb), "%s: final body states differ between the uninterrupted and the resumed run", scene);
    free(fa), free(fb);
    /* 3 pieces through --more and checkpoint-every */
    code = run("run", scene, "--steps", "60", "--backend", "cpu", "--checkpoint", c, NULL);
    CHECK(code == 0, "%s: 60 steps: exit %d", scene, code);
    code = run("resume", c, "--more", "70", "--checkpoint", c, NULL);
    CHECK(code == 0, "%s: resume --more 70: exit %d: %s", scene, code, g_stderr);
    code = run("resume", "--checkpoint", c, "--steps=200", c, "--csv", cc, "--csv-every", "200", NULL);
    CHECK(code == 0, "%s: resume to 200: exit %d: %s", scene, code, g_stderr);
    CHECK(same_file(a, c), "%s: 60 + 70 + 70 resumed steps differ from 200 uninterrupted steps", scene);
    free(a), free(b), free(ca), free(cb), free(cc), free(c);
}

static void check_resume(void) {
    check_resume_scene("chain:30", 30);
    check_resume_scene("rope:40", 40);
    check_resume_scene("grid:6x5", 30);
    char *mech = path_in(g_src, "examples/mechanisms.json");
    check_resume_scene(mech, 10);
    free(mech);

    /* SIGTERM: a final checkpoint is written and the run can be resumed */
    char *ck = path_in(g_work, "sig.ck");
    remove(ck);
    char *argv[] = {(char *)g_catena, "run", "chain:2000", "--steps", "100000000", "--backend", "cpu", "--checkpoint", ck,
                    "--checkpoint-every", "1", NULL};
    char *out = path_in(g_work, "sig.out"), *err = path_in(g_work, "sig.err");
    pid_t pid = spawn(argv, out, err);
    for (int i = 0; i < 600 && !file_exists(ck); ++i) {
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
    }
    CHECK(file_exists(ck), "no periodic checkpoint appeared");
    kill(pid, SIGTERM);
    int code = wait_code(pid);
    CHECK(code == 128 + SIGTERM, "SIGTERM: exit %d, expected %d", code, 128 + SIGTERM);
    char *e = read_all(err, NULL);
    CHECK(e && strstr(e, "checkpoint written"), "SIGTERM: no checkpoint message: %s", e ? e : "");
    free(e);
    ctn_checkpoint_info *info = malloc(sizeof *info);
    char msg[512];
    CHECK(ctn_checkpoint_read_info(ck, info, msg, sizeof msg) == CTN_OK && info->step > 0 && info->bodies == 2000,
          "SIGTERM checkpoint unreadable: %s", msg);
    free(info);
    code = run("resume", ck, "--more", "2", NULL);
    CHECK(code == 0, "resume after SIGTERM: exit %d: %s", code, g_stderr);
    CHECK(no_temp_files(g_work), "temporary files left behind");
    free(ck), free(out), free(err);
}

static void write_bytes(const char *path, const char *data, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fwrite(data, 1, n, f);
    fclose(f);
}

static void check_checkpoint_files(void) {
    char *ck = path_in(g_work, "good.ck"), *bad = path_in(g_work, "bad.ck");
    int code = run("run", "chain:20", "--steps", "10", "--backend", "cpu", "--checkpoint", ck, NULL);
    CHECK(code == 0, "checkpointed run: exit %d", code);
    size_t n;
    char *t = read_all(ck, &n);
    CHECK(t && n > 200, "checkpoint not written");
    if (!t) return;
    write_bytes(bad, t, n - 17);
    code = run("resume", bad, NULL);
    CHECK(code == 3 && strstr(g_stderr, "truncated"), "truncated checkpoint: exit %d: %s", code, g_stderr);
    write_bytes(bad, t, 40);
    code = run("resume", bad, NULL);
    CHECK(code == 3 && strstr(g_stderr, "truncated"), "truncated header: exit %d: %s", code, g_stderr);
    t[n / 2] ^= 0x10;
    write_bytes(bad, t, n);
    code = run("resume", bad, NULL);
    CHECK(code == 3 && strstr(g_stderr, "checksum"), "corrupted checkpoint: exit %d: %s", code, g_stderr);
    t[n / 2] ^= 0x10;
    t[0] = 'X';
    write_bytes(bad, t, n);
    code = run("resume", bad, NULL);
    CHECK(code == 3 && strstr(g_stderr, "not a catena checkpoint"), "bad magic: exit %d: %s", code, g_stderr);
    t[0] = 'C';
    t[8] = 99; /* version */
    write_bytes(bad, t, n);
    code = run("resume", bad, NULL);
    CHECK(code == 3 && strstr(g_stderr, "version"), "bad version: exit %d: %s", code, g_stderr);
    code = run("resume", "/nonexistent.ck", NULL);
    CHECK(code == 6 && strstr(g_stderr, "cannot open"), "missing checkpoint: exit %d: %s", code, g_stderr);
    code = run("resume", ck, "--steps", "5", NULL);
    CHECK(code == 2, "resume to a step before the checkpoint: exit %d", code);
    free(t);
    free(ck), free(bad);
}

/* ---- bad scenes ---------------------------------------------------------------------------------------- */

static void check_bad(void) {
    char *dir = path_in(g_src, "tests/cli/bad"), *manifest = path_in(dir, "expected.txt");
    char *t = read_all(manifest, NULL);
    CHECK(t != NULL, "cannot read %s", manifest);
    int cases = 0;
    char *save = NULL;
    for (char *l = t ? strtok_r(t, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
        if (l[0] == '#' || !l[0]) continue;
        char *name = l, *tab1 = strchr(l, '\t');
        if (!tab1) continue;
        *tab1 = '\0';
        char *tab2 = strchr(tab1 + 1, '\t');
        if (!tab2) continue;
        *tab2 = '\0';
        int want = atoi(tab1 + 1);
        const char *expect = tab2 + 1;
        char *file = path_in(dir, name);
        CHECK(file_exists(file), "corpus file %s missing", name);
        int code = run("validate", file, NULL);
        CHECK(code == want, "validate %s: exit %d, expected %d: %s", name, code, want, g_stderr);
        CHECK(strstr(g_stderr, expect) != NULL, "validate %s: message '%s' lacks '%s'", name, g_stderr, expect);
        /* run refuses it the same way and writes nothing */
        char *svg = path_in(g_work, "bad.svg");
        code = run("run", file, "--steps", "1", "--backend", "cpu", "--svg", svg, NULL);
        CHECK(code == want && strstr(g_stderr, expect), "run %s: exit %d: %s", name, code, g_stderr);
        CHECK(!file_exists(svg), "run %s left an output", name);
        free(svg);
        free(file);
        cases++;
    }
    CHECK(cases >= 20, "only %d broken scenes in the corpus", cases);
    free(t);
    free(manifest);

    /* command-line and other input errors */
    CHECK(run("run", NULL) == 2, "run without a scene");
    CHECK(run("run", "chain:10", "--steps", "-5", NULL) == 2, "negative steps");
    CHECK(run("run", "chain:10", "--solver", "sor", NULL) == 2, "unknown solver");
    CHECK(run("run", "chain:10", "--bogus", "1", NULL) == 2, "unknown option");
    CHECK(run("frobnicate", NULL) == 2, "unknown command");
    int code = run("run", "spiral:10", "--steps", "1", NULL);
    CHECK(code == 3 && strstr(g_stderr, "unknown generator"), "unknown generator spec: exit %d: %s", code, g_stderr);
    code = run("validate", "/nonexistent/scene.json", NULL);
    CHECK(code == 6 && strstr(g_stderr, "cannot open"), "missing scene file: exit %d: %s", code, g_stderr);
    code = run("validate", dir, NULL);
    CHECK(code == 6, "a directory as scene: exit %d: %s", code, g_stderr);
    code = run("validate", "chain:100", NULL);
    CHECK(code == 0, "validate a generator spec: exit %d: %s", code, g_stderr);
    free(dir);
}

/* ---- examples ------------------------------------------------------------------------------------------ */

/* The next scene file (.json or .urdf) of the examples folder d, NULL at its end; *urdf says which. */
static const char *next_example(DIR *d, int *urdf) {
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        *urdf = n > 5 && !strcmp(e->d_name + n - 5, ".urdf");
        if (n >= 6 && (!strcmp(e->d_name + n - 5, ".json") || *urdf)) return e->d_name;
    }
    return NULL;
}

static void check_examples(void) {
    char *dir = path_in(g_src, "examples");
    DIR *d = opendir(dir);
    CHECK(d != NULL, "no examples directory");
    int count = 0;
    const char *name;
    int urdf;
    while ((name = next_example(d, &urdf))) {
        char *f = path_in(dir, name);
        int code = run("validate", f, NULL);
        if (urdf && code != 0 && strstr(g_stderr, "no URDF support")) { /* a build without urdfdom says so */
            free(f);
            continue;
        }
        CHECK(code == 0, "validate %s: exit %d: %s", name, code, g_stderr);
        if (urdf && strstr(name, "snake"))
            CHECK(strstr(g_stderr, "catena: warning: ") && strstr(g_stderr, "capsules"), "%s: the import's report as warnings: %s", name,
                  g_stderr);
        char *json = path_in(g_work, "example.json");
        code = run("run", f, "--steps", "5", "--backend", "cpu", "--json", json, NULL);
        CHECK(code == 0, "run %s: exit %d: %s", name, code, g_stderr);
        char *t = read_all(json, NULL);
        cJSON *j = t ? cJSON_Parse(t) : NULL;
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, "status");
        CHECK(cJSON_IsString(s) && !strcmp(s->valuestring, "ok"), "%s: summary status", name);
        if (urdf) { /* URDF is z-up: its robots get gravity along -z unless --gravity says otherwise */
            const cJSON *set = cJSON_GetObjectItemCaseSensitive(j, "settings");
            const cJSON *g = cJSON_GetObjectItemCaseSensitive(set, "gravity");
            int zup = cJSON_GetArraySize(g) == 3 && cJSON_GetArrayItem(g, 1)->valuedouble == 0.0 &&
                      cJSON_GetArrayItem(g, 2)->valuedouble == -9.81;
            CHECK(zup, "%s: a URDF run's gravity is not (0, 0, -9.81)", name);
        }
        cJSON_Delete(j);
        free(t);
        free(json);
        free(f);
        count++;
    }
    if (d) closedir(d);
    CHECK(count >= 4, "only %d example scenes", count);
    free(dir);
}

/* Every example run to its end with its own settings (steps, solver, iterations; the CPU backend) ends
 * `ok`: no example ships torn. The slow one (examples/chain_10000.json, about 50 s) is included: this check
 * has its own CTest entry (cli_examples_full, label slow_examples). */
static void check_examples_full(void) {
    char *dir = path_in(g_src, "examples");
    DIR *d = opendir(dir);
    CHECK(d != NULL, "no examples directory");
    int count = 0;
    const char *name;
    int urdf;
    while ((name = next_example(d, &urdf))) {
        char *f = path_in(dir, name), *json = path_in(g_work, "example_full.json");
        int code = run("run", f, "--backend", "cpu", "--json", json, NULL);
        if (urdf && code != 0 && strstr(g_stderr, "no URDF support")) {
            free(f);
            free(json);
            continue;
        }
        char *t = read_all(json, NULL);
        cJSON *j = t ? cJSON_Parse(t) : NULL;
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, "status");
        CHECK(code == 0 && cJSON_IsString(s) && !strcmp(s->valuestring, "ok"), "%s with its own settings: exit %d, status %s: %s", name, code,
              cJSON_IsString(s) ? s->valuestring : "(none)", g_stderr);
        printf("%s: %s\n", name, cJSON_IsString(s) ? s->valuestring : "(no summary)");
        cJSON_Delete(j);
        free(t);
        free(json);
        free(f);
        count++;
    }
    if (d) closedir(d);
    CHECK(count >= 4, "only %d example scenes", count);
    free(dir);
}

/* ---- library ------------------------------------------------------------------------------------------- */

static void check_api(void) {
    ctn_world_desc desc = ctn_world_desc_default();
    desc.backend = CTN_BACKEND_CPU;
    ctn_world *w;
    char err[1024];
    CHECK(ctn_world_create(&desc, &w, err, sizeof err) == CTN_OK, "create: %s", err);
    CHECK(ctn_scene_from_spec(w, "chain:5") == CTN_OK, "chain:5");
    int nb0 = 0, nj0 = 0;
    ctn_world_id_counts(w, &nb0, &nj0);
    /* valid JSON whose second constraint fails only when built (coinciding distance anchors) */
    const char *text = "{\"bodies\": [{\"particle\": true, \"position\": [0, -1, 0]}, {\"particle\": true, \"position\": [0, -1, 0]}],"
                       " \"generators\": [{\"rope\": {\"links\": 4}}],"
                       " \"constraints\": [{\"type\": \"distance\", \"a\": 0, \"anchor_b\": [0, 0, 0]}, {\"type\": \"distance\", \"a\": 0, \"b\": 1}]}";
    ctn_scene *s = NULL;
    CHECK(ctn_scene_parse_text(text, strlen(text), "api", &s, err, sizeof err) == CTN_OK, "parse: %s", err);
    CHECK(ctn_scene_body_count(s) == 6 && ctn_scene_joint_count(s) == 6, "counts %lld %lld", (long long)ctn_scene_body_count(s),
          (long long)ctn_scene_joint_count(s));
    ctn_status st = ctn_scene_build(s, w);
    CHECK(st != CTN_OK, "the build should fail");
    CHECK(strstr(ctn_world_last_error(w), "api: constraints[1]") != NULL, "build error names the constraint: %s", ctn_world_last_error(w));
    int nb = 0, nj = 0;
    ctn_world_id_counts(w, &nb, &nj);
    CHECK(nb == nb0 && nj == nj0 && ctn_world_body_count(w) == 5 && ctn_world_joint_count(w) == 5, "world changed: %d/%d bodies, %d/%d joints",
          nb, nb0, nj, nj0);
    CHECK(ctn_world_step(w) == CTN_OK, "the world still steps: %s", ctn_world_last_error(w));
    ctn_scene_free(s);
    /* settings */
    const char *t2 = "{\"world\": {\"solver\": \"cg\", \"iterations\": 9, \"steps\": 7, \"device\": \"0:1\"}}";
    CHECK(ctn_scene_parse_text(t2, strlen(t2), "t2", &s, err, sizeof err) == CTN_OK, "parse t2: %s", err);
    int steps = 0;
    ctn_world_desc d2;
    ctn_scene_get_settings(s, &d2, &steps);
    CHECK(d2.solver == CTN_SOLVER_CG && d2.iterations == 9 && steps == 7 && d2.device && !strcmp(d2.device, "0:1"), "settings read back");
    ctn_scene_free(s);
    /* line and column of a syntax error */
    const char *t3 = "{\n  \"world\": {\n    \"steps\": 10\n    \"solver\": \"gs\"\n  }\n}\n";
    CHECK(ctn_scene_parse_text(t3, strlen(t3), "t3", &s, err, sizeof err) == CTN_ERR_INVALID_ARGUMENT, "t3 refused");
    CHECK(strstr(err, "t3:4:5: expected ',' or '}'") != NULL, "t3 message: %s", err);
    /* save / load in memory round trip */
    char *ck = path_in(g_work, "api.ck");
    CHECK(ctn_world_save(w, ck, 42, "hello") == CTN_OK, "save: %s", ctn_world_last_error(w));
    ctn_world *w2 = NULL;
    ctn_checkpoint_info *info = malloc(sizeof *info);
    CHECK(ctn_world_load(ck, NULL, &w2, info, err, sizeof err) == CTN_OK, "load: %s", err);
    CHECK(info->step == 42 && !strcmp(info->user, "hello") && info->bodies == 5 && info->joints == 5, "info read back");
    for (int k = 0; k < 10; ++k) {
        ctn_world_step(w);
        ctn_world_step(w2);
    }
    int same = 1;
    for (int i = 0; i < 5; ++i) {
        ctn_body_state a, b;
        ctn_body_get_state(w, HBODY(w, i), &a);
        ctn_body_get_state(w2, HBODY(w2, i), &b);
        same &= memcmp(&a, &b, sizeof a) == 0;
    }
    CHECK(same, "a loaded world steps like the saved one");
    free(info);
    free(ck);
    ctn_world_destroy(w2);
    ctn_world_destroy(w);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: cli_test outputs|resume|checkpoint|bad|examples|api|flags CATENA SOURCE_DIR WORK_DIR\n");
        return 2;
    }
    g_catena = argv[2];
    g_src = argv[3];
    g_work = argv[4];
    mkdir(g_work, 0777);
    setenv("CATENA_QUIET", "1", 1);
    if (!strcmp(argv[1], "outputs")) check_outputs();
    else if (!strcmp(argv[1], "resume")) check_resume();
    else if (!strcmp(argv[1], "checkpoint")) check_checkpoint_files();
    else if (!strcmp(argv[1], "bad")) check_bad();
    else if (!strcmp(argv[1], "examples")) check_examples();
    else if (!strcmp(argv[1], "examples_full")) check_examples_full();
    else if (!strcmp(argv[1], "api")) check_api();
    else if (!strcmp(argv[1], "flags")) check_flags();
    else {
        fprintf(stderr, "unknown check %s\n", argv[1]);
        return 2;
    }
    harness_tally(&check_count, &check_failures);
    flags_tally(&check_count, &check_failures);
    char name[64];
    snprintf(name, sizeof name, "cli_%s", argv[1]);
    return check_report(name);
}
