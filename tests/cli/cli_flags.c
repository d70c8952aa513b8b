/* CLI tests of the command-line conventions and the run's own checks: GNU option syntax, help and the man
 * page, outputs on standard output and on links to devices, output paths checked before the first step,
 * --progress, --max-gap and the torn status, frame and checkpoint cadences. */
#define _POSIX_C_SOURCE 200809L
#include "cli/harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void check_gnu_conventions(void) {
    int code = run("run", "--steps=3", "--backend=cpu", "chain:10", "--solver", "gs", NULL);
    CHECK(code == 0, "--opt=value and options before SCENE: exit %d: %s", code, g_stderr);
    code = run("run", "chain:10", "--bogus=1", NULL);
    CHECK(code == 2 && strstr(g_stderr, "unknown option --bogus\n"), "unknown option: exit %d: %s", code, g_stderr);
    code = run("run", "chain:10", "--c", "5", NULL); /* a prefix of --csv, --checkpoint, ... */
    CHECK(code == 2 && strstr(g_stderr, "ambiguous option --c: could be --csv") && strstr(g_stderr, "--checkpoint"), "ambiguous: exit %d: %s",
          code, g_stderr);
    code = run("run", "chain:10", "--ste=3", "--backend=cpu", "-q", NULL); /* a unique prefix is the option */
    CHECK(code == 0, "unique prefix --ste: exit %d: %s", code, g_stderr);
    code = run("run", "chain:10", "--quiet=1", NULL);
    CHECK(code == 2 && strstr(g_stderr, "--quiet takes no value"), "--quiet=1: exit %d: %s", code, g_stderr);
    code = run("run", "chain:10", "--steps", NULL);
    CHECK(code == 2 && strstr(g_stderr, "--steps needs a value"), "--steps without a value: exit %d: %s", code, g_stderr);
    code = run("run", "chain:10", "chain:20", NULL);
    CHECK(code == 2 && strstr(g_stderr, "unexpected argument 'chain:20'"), "two scenes: exit %d: %s", code, g_stderr);
    code = run("validate", "chain:10", "--csv", "x.csv", NULL);
    CHECK(code == 2 && strstr(g_stderr, "unknown option --csv"), "validate --csv: exit %d: %s", code, g_stderr);
    /* validate's help lists the options it takes and none it ignores (it builds on the CPU, steps nothing) */
    code = run("validate", "--help", NULL);
    char *vhelp = last_stdout();
    CHECK(code == 0 && strstr(vhelp, "--steps") && strstr(vhelp, "--gravity") && !strstr(vhelp, "--csv") && !strstr(vhelp, "--device") &&
              !strstr(vhelp, "--threads") && !strstr(vhelp, "--every"),
          "validate --help: %s", vhelp);
    free(vhelp);
    code = run("validate", "chain:10", "--device", "0:0", NULL);
    CHECK(code == 2 && strstr(g_stderr, "unknown option --device"), "validate --device: exit %d: %s", code, g_stderr);
    /* the top-level help names every command and the .urdf scenes */
    code = run("--help", NULL);
    char *top = last_stdout();
    CHECK(code == 0 && strstr(top, "catena sweep") && strstr(top, "catena render") && strstr(top, ".urdf"), "catena --help: %s", top);
    free(top);
    const char *commands[] = {"run", "resume", "validate", "devices", "sweep", "render", "help"}; /* help help: the top-level help */
    for (int k = 0; k < 7; ++k) {
        code = run(commands[k], "--help", NULL);
        char *out = last_stdout();
        CHECK(code == 0 && strstr(out, "usage: catena ") && strstr(out, commands[k]), "%s --help: exit %d: %s", commands[k], code, out);
        free(out);
        code = run("help", commands[k], NULL);
        out = last_stdout();
        CHECK(code == 0 && strstr(out, "usage: catena ") && strstr(out, commands[k]), "help %s: exit %d", commands[k], code);
        free(out);
    }
    CHECK(run("help", "frobnicate", NULL) == 2, "help for an unknown command");
    code = run("devices", "--bogus", NULL);
    CHECK(code == 2 && strstr(g_stderr, "unknown option --bogus"), "devices --bogus: exit %d: %s", code, g_stderr);
    const char *versions[] = {"-V", "--version"};
    for (int k = 0; k < 2; ++k) {
        code = run(versions[k], NULL);
        char *out = last_stdout();
        CHECK(code == 0 && !strncmp(out, "catena ", 7), "%s: exit %d: %s", versions[k], code, out);
        free(out);
    }
}

/* Every option the top-level help lists is explained there and documented in the man page and docs/cli.md. */
static void check_help_documents_options(void) {
    int code = run("--help", NULL);
    char *help = last_stdout();
    char *man_path = path_in(g_src, "docs/catena.1"), *readme_path = path_in(g_src, "docs/cli.md");
    char *man = read_all(man_path, NULL), *readme = read_all(readme_path, NULL);
    CHECK(code == 0 && man && readme, "--help, docs/catena.1 and docs/cli.md");
    int options = 0;
    for (const char *p = help; man && readme && (p = strstr(p, "\n  -")); ++p) {
        const char *o = strstr(p, "--");
        size_t n = strspn(o + 2, "abcdefghijklmnopqrstuvwxyz-");
        char opt[64], man_opt[80];
        snprintf(opt, sizeof opt, "%.*s", (int)n + 2, o);
        size_t m = 0; /* roff spells - as \- */
        for (const char *c = opt; *c && m + 3 < sizeof man_opt; ++c) {
            if (*c == '-') man_opt[m++] = '\\';
            man_opt[m++] = *c;
        }
        man_opt[m] = '\0';
        const char *eol = strchr(o, '\n');
        CHECK(eol && eol - (o + n + 2) > 10, "--help lists %s without explaining it", opt);
        CHECK(strstr(man, man_opt) != NULL, "docs/catena.1 does not document %s", opt);
        CHECK(strstr(readme, opt) != NULL, "docs/cli.md does not mention %s", opt);
        options++;
    }
    CHECK(options >= 20, "--help lists only %d options", options);
    free(help), free(man), free(readme), free(man_path), free(readme_path);
}

static void check_stdout_outputs(void) {
    /* --json -: the summary on stdout, the report on stderr */
    int code = run("run", "chain:10", "--steps", "3", "--backend", "cpu", "--json", "-", NULL);
    char *out = last_stdout();
    cJSON *j = cJSON_Parse(out);
    CHECK(code == 0 && j && !strcmp(summary_string(j, "status"), "ok"), "--json -: exit %d: %s", code, out);
    CHECK(strstr(g_stderr, "bodies / joints") != NULL, "--json -: the report is not on stderr: %s", g_stderr);
    CHECK(!file_exists("-"), "--json - wrote a file named -");
    cJSON_Delete(j);
    free(out);
    code = run("run", "chain:10", "--steps", "3", "--backend", "cpu", "--csv", "-", "--csv-every", "3", NULL);
    out = last_stdout();
    CHECK(code == 0 && !strncmp(out, "step,time,body", 14) && !strstr(out, "bodies / joints"), "--csv -: exit %d: %.200s", code, out);
    free(out);
    code = run("run", "chain:10", "--steps", "3", "--csv", "-", "--json", "-", NULL);
    CHECK(code == 2 && strstr(g_stderr, "both write to standard output"), "two outputs on stdout: exit %d: %s", code, g_stderr);
    /* a link to a device is written through, never replaced by a rename */
    char *link = path_in(g_work, "null-link");
    remove(link);
    CHECK(symlink("/dev/null", link) == 0, "symlink");
    code = run("run", "chain:10", "--steps", "3", "--backend", "cpu", "--csv", link, "--svg", link, NULL);
    struct stat st;
    CHECK(code == 0 && lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "--csv to a link to /dev/null: exit %d, the link was replaced: %s", code,
          g_stderr);
    CHECK(no_temp_files(g_work), "temporary files left behind");
    free(link);
}

/* Output paths are checked before the first step: a 1e8-step run fails at once. */
static void check_outputs_checked_first(void) {
    char *json = path_in(g_work, "early.json");
    const char *bad[][2] = {{"--checkpoint", "/nonexistent/c.ckpt"}, {"--svg", "/nonexistent/x.svg"}, {"--plot", "/nonexistent/p.svg"},
                            {"--csv", "/nonexistent/x.csv"}};
    for (int k = 0; k < 4; ++k) {
        remove(json);
        int code = run("run", "chain:2000", "--steps", "100000000", "--backend", "cpu", bad[k][0], bad[k][1], "--json", json, NULL);
        CHECK(code == 6 && strstr(g_stderr, bad[k][1]), "%s %s: exit %d: %s", bad[k][0], bad[k][1], code, g_stderr);
        cJSON *j = read_summary(json);
        CHECK(j && !strcmp(summary_string(j, "status"), "failed") && strstr(summary_string(j, "error"), bad[k][1]) &&
                  summary_number(j, "exit_code") == 6,
              "%s: the JSON summary lacks the failure", bad[k][0]);
        cJSON_Delete(j);
    }
    /* a command line that does not parse: the summary has the error too */
    remove(json);
    int bad_code = run("run", "chain:10", "--json", json, "--solver", "sor", NULL);
    cJSON *u = read_summary(json);
    CHECK(bad_code == 2 && u && strstr(summary_string(u, "error"), "--solver: 'sor'") && summary_number(u, "exit_code") == 2,
          "a usage error: exit %d, summary error '%s'", bad_code, u ? summary_string(u, "error") : "(none)");
    cJSON_Delete(u);
    char json_opt[600];
    snprintf(json_opt, sizeof json_opt, "--json=%s", json);
    bad_code = run("run", json_opt, "chain:10", "--bogus", NULL);
    u = read_summary(json);
    CHECK(bad_code == 2 && u && !strcmp(summary_string(u, "error"), "unknown option --bogus"), "--bogus: summary error '%s'",
          u ? summary_string(u, "error") : "(none)");
    cJSON_Delete(u);
    /* a scene that cannot be built: the summary still has the error */
    remove(json);
    int code = run("run", "spiral:3", "--json", json, NULL);
    cJSON *j = read_summary(json);
    CHECK(code == 3 && j && strstr(summary_string(j, "error"), "unknown generator"), "failed scene: exit %d, summary error '%s'", code,
          j ? summary_string(j, "error") : "(none)");
    cJSON_Delete(j);
    free(json);
}

static void check_progress(void) {
    unsetenv("CATENA_QUIET"); /* it silences progress too */
    int code = run("run", "chain:50", "--steps", "20", "--backend", "cpu", "--progress=0.0001", NULL);
    CHECK(code == 0 && strstr(g_stderr, "catena: step 20/20 (100.0%)"), "--progress: exit %d: %s", code, g_stderr);
    code = run("run", "chain:50", "--steps", "20", "--backend", "cpu", "--progress", NULL);
    CHECK(code == 0 && strstr(g_stderr, "step 20/20"), "--progress (default interval): the final line is missing: %s", g_stderr);
    code = run("run", "chain:50", "--steps", "20", "--backend", "cpu", NULL);
    CHECK(code == 0 && !strstr(g_stderr, "step 20/20"), "no --progress: status lines anyway: %s", g_stderr);
    code = run("run", "chain:50", "--steps", "20", "--backend", "cpu", "--progress=0.0001", "--quiet", NULL);
    CHECK(code == 0 && !strstr(g_stderr, "step 20/20"), "--quiet --progress: status lines anyway: %s", g_stderr);
    CHECK(run("run", "chain:5", "--progress=soon", NULL) == 2, "--progress=soon accepted");
    setenv("CATENA_QUIET", "1", 1);
}

/* A chain torn apart by one Gauss-Seidel sweep at 10 Hz: an error with --max-gap, a warning without. */
static void check_max_gap(void) {
    char *json = path_in(g_work, "torn.json");
    int code = run("run", "heavy_chain:300", "--solver", "gs", "--iterations", "1", "--substeps", "1", "--dt", "0.1", "--steps", "100",
                   "--backend", "cpu", "--max-gap", "1", "--json", json, NULL);
    cJSON *j = read_summary(json);
    CHECK(code == 7 && strstr(g_stderr, "--max-gap"), "--max-gap 1: exit %d: %s", code, g_stderr);
    CHECK(j && !strcmp(summary_string(j, "status"), "torn") && strstr(summary_string(j, "error"), "torn") && summary_number(j, "steps_run") < 100,
          "--max-gap: summary status '%s', error '%s'", j ? summary_string(j, "status") : "", j ? summary_string(j, "error") : "");
    cJSON_Delete(j);
    code = run("run", "heavy_chain:300", "--solver", "gs", "--iterations", "1", "--substeps", "1", "--dt", "0.1", "--steps", "100",
               "--backend", "cpu", "--json", json, NULL);
    j = read_summary(json);
    CHECK(code == 0 && strstr(g_stderr, "torn"), "torn without --max-gap: exit %d: %s", code, g_stderr);
    CHECK(j && !strcmp(summary_string(j, "status"), "torn"), "torn without --max-gap: summary status '%s'", j ? summary_string(j, "status") : "");
    /* the warning names the real link length: 0.1 m links (not the 0.05 m from the first link's centre to its pin) */
    CHECK(strstr(g_stderr, "more than the shortest link (0.1 m between the centres of two jointed bodies)") && j &&
              fabs(summary_number(cJSON_GetObjectItemCaseSensitive(j, "violation"), "shortest_link") - 0.1) < 1e-6,
          "torn warning's link length: %s", g_stderr);
    cJSON_Delete(j);
    /* a sound run is not torn */
    code = run("run", "chain:50", "--steps", "30", "--backend", "cpu", "--max-gap", "0.01", "--json", json, NULL);
    j = read_summary(json);
    CHECK(code == 0 && j && !strcmp(summary_string(j, "status"), "ok"), "chain:50 --max-gap 0.01: exit %d: %s", code, g_stderr);
    cJSON_Delete(j);
    CHECK(run("run", "chain:5", "--max-gap", "-1", NULL) == 2, "--max-gap -1 accepted");
    free(json);
}

/* Joints and contacts apart: a pile of 200 spheres under one Gauss-Seidel sweep at 60 Hz sinks several
 * centimetres into the floor and each other (measured 0.068 m final, 0.090 m worst) while a ball joint
 * elsewhere holds to 3e-9 m. The summary names the depth as a contact's, the joint gap stays the joint's,
 * and --max-gap 0.01 (below the depth) does not call the run torn. */
/* The `count` values (of `size` bytes each) of the appended DataArray `name` of a raw VTK XML frame `t` of
 * `len` bytes (host/io/vtk_xml.c's layout: after the '_' each array is a UInt64 byte count and its bytes, at
 * the DataArray's offset); NULL when absent or short. */
static const unsigned char *vtk_array(const char *t, size_t len, const char *name, size_t size, long long count) {
    char key[96];
    snprintf(key, sizeof key, "Name=\"%s\"", name);
    const char *a = strstr(t, key), *o = a ? strstr(a, "offset=\"") : NULL, *data = strstr(t, "<AppendedData encoding=\"raw\">");
    if (!o || !data || !(data = strchr(data, '_'))) return NULL;
    unsigned long long offset = strtoull(o + 8, NULL, 10), bytes = 0;
    const unsigned char *at = (const unsigned char *)data + 1 + offset;
    if ((size_t)(at - (const unsigned char *)t) + 8 > len) return NULL;
    memcpy(&bytes, at, 8);
    if (bytes != size * (unsigned long long)count || (size_t)(at - (const unsigned char *)t) + 8 + bytes > len) return NULL;
    return at + 8;
}

static void check_gap_and_depth(void) {
    char *scene = path_in(g_work, "deep_contacts.json"), *json = path_in(g_work, "deep_contacts_summary.json"),
         *vtk = path_in(g_work, "deep_contacts_vtk");
    FILE *f = fopen(scene, "w");
    CHECK(f != NULL, "cannot write %s", scene);
    if (!f) {
        free(scene), free(json), free(vtk);
        return;
    }
    fputs("{\"world\": {\"time_step\": 0.016666667, \"steps\": 60, \"solver\": \"gs\", \"substeps\": 1, \"iterations\": 1},\n"
          " \"bodies\": [{\"name\": \"bob\", \"mass\": 1.0, \"position\": [10, 2, 0], \"particle\": true}],\n"
          " \"constraints\": [{\"type\": \"ball\", \"a\": \"bob\", \"b\": \"world\", \"pivot\": [10, 2, 0]}],\n"
          " \"generators\": [{\"pile\": {\"spheres\": 200}}]}\n",
          f);
    fclose(f);
    unsetenv("CATENA_QUIET"); /* the text summary is the subject */
    int code = run("run", scene, "--backend", "cpu", "--max-gap", "0.01", "--json", json, "--vtk", vtk, "--every", "60", NULL);
    setenv("CATENA_QUIET", "1", 1);
    char *out = last_stdout();
    cJSON *j = read_summary(json);
    const cJSON *v = j ? cJSON_GetObjectItemCaseSensitive(j, "violation") : NULL;
    CHECK(code == 0 && j && !strcmp(summary_string(j, "status"), "ok"), "deep contacts, held joint, --max-gap 0.01: exit %d, status '%s': %s", code,
          j ? summary_string(j, "status") : "", g_stderr);
    double joint = summary_number(v, "worst_joint_gap"), depth = summary_number(v, "worst_penetration");
    double fj = summary_number(v, "final_joint_gap"), fd = summary_number(v, "final_penetration"), fall = summary_number(v, "final_max_gap");
    CHECK(v && joint < 1e-6 && depth > 0.02, "deep contacts: worst joint gap %g m (held: < 1e-6), worst penetration %g m (> 0.02)", joint, depth);
    CHECK(v && fall == (fj > fd ? fj : fd) && summary_number(v, "worst_max_gap") == (joint > depth ? joint : depth),
          "deep contacts: max_gap %g m is not the larger of the joint gap %g m and the depth %g m", fall, fj, fd);
    /* the text: the joint line carries the joint's gap, the depth is named as a contact's */
    char want[128];
    snprintf(want, sizeof want, "contact depth    %.6g m (final), %.6g m (worst", fd, depth);
    CHECK(out && strstr(out, want), "deep contacts: the summary does not name the contact depth ('%s'): %s", want, out ? out : "");
    snprintf(want, sizeof want, "max joint gap    %.6g m (final), %.6g m (worst", fj, joint);
    CHECK(out && strstr(out, want), "deep contacts: the joint gap line is not the joints' ('%s'): %s", want, out ? out : "");
    /* the last VTK frame: `gap` is the joints' (0 on contact lines), `contact_depth` the contacts' (0 on joints) */
    char *frame = path_in(vtk, "frame_000060.vtp");
    size_t len = 0;
    char *t = read_all(frame, &len);
    long long nv = -1, nl = -1;
    const char *piece = t ? strstr(t, "NumberOfVerts=\"") : NULL;
    if (piece) sscanf(piece, "NumberOfVerts=\"%lld\" NumberOfLines=\"%lld\"", &nv, &nl);
    const unsigned char *types = t && nl > 0 ? vtk_array(t, len, "joint_type", 4, nv + nl) : NULL;
    const unsigned char *gaps = t && nl > 0 ? vtk_array(t, len, "gap", 4, nv + nl) : NULL;
    const unsigned char *depths = t && nl > 0 ? vtk_array(t, len, "contact_depth", 4, nv + nl) : NULL;
    CHECK(types && gaps && depths, "%s: joint_type, gap and contact_depth cell arrays of %lld cells", frame, nv + nl);
    if (types && gaps && depths) {
        float worst_gap = 0.0f, worst_depth = 0.0f;
        int contacts = 0, misplaced = 0;
        for (long long c = 0; c < nv + nl; ++c) {
            int32_t type;
            float g, d;
            memcpy(&type, types + 4 * c, 4), memcpy(&g, gaps + 4 * c, 4), memcpy(&d, depths + 4 * c, 4);
            contacts += type == CTN_JOINT_CONTACT;
            misplaced += type == CTN_JOINT_CONTACT ? g != 0.0f : d != 0.0f;
            worst_gap = g > worst_gap ? g : worst_gap, worst_depth = d > worst_depth ? d : worst_depth;
        }
        CHECK(contacts > 0 && misplaced == 0, "%s: %d contact lines; %d cells carry the other quantity", frame, contacts, misplaced);
        CHECK(worst_gap < 1e-6f && worst_depth == (float)fd, "%s: largest gap %g m (joint %g m), deepest contact_depth %g m (summary %g m)", frame,
              worst_gap, fj, worst_depth, fd);
    }
    free(t), free(frame);
    cJSON_Delete(j);
    free(out), free(scene), free(json), free(vtk);
}

/* --every is the frame cadence only; checkpoints follow --checkpoint-every. */
static void check_cadences(void) {
    char *json = path_in(g_work, "cadence.json"), *ck = path_in(g_work, "cadence.ck"), *csv = path_in(g_work, "cadence.csv");
    int code = run("run", "chain:10", "--steps", "20", "--backend", "cpu", "--every", "2", "--checkpoint", ck, "--csv", csv, "--json", json, NULL);
    cJSON *j = read_summary(json);
    CHECK(code == 0 && summary_number(j, "checkpoints_written") == 1, "--every 2: %g checkpoints written, expected 1",
          summary_number(j, "checkpoints_written"));
    check_csv(csv, 10, 11);
    cJSON_Delete(j);
    code = run("run", "chain:10", "--steps", "20", "--backend", "cpu", "--every", "2", "--checkpoint", ck, "--checkpoint-every", "5", "--json", json,
               NULL);
    j = read_summary(json);
    CHECK(code == 0 && summary_number(j, "checkpoints_written") == 4, "--checkpoint-every 5: %g checkpoints written, expected 4",
          summary_number(j, "checkpoints_written"));
    cJSON_Delete(j);
    free(json), free(ck), free(csv);
}

/* --threads and the environment: the thread count the steps ran on and the OpenMP wait policy the run had
 * (the tool executes itself again with OMP_WAIT_POLICY=passive when none is set) are in the summary. */
/* --gravity x,y,z replaces the scene's gravity: a link pinned on the x axis swings down along -z, not -y;
 * a malformed vector is refused naming the option. */
static void check_gravity(void) {
    char *csv = path_in(g_work, "gravity.csv");
    int code = run("run", "chain:1", "--steps", "30", "--every", "30", "--backend", "cpu", "--gravity", "0,0,-9.81", "--csv", csv, "-q", NULL);
    double step = -1, time = 0, body = 0, x = 0, y = 1, z = 0; /* step,time,body,x,y,z,... */
    FILE *f = fopen(csv, "r");
    char line[512];
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf", &step, &time, &body, &x, &y, &z) != 6) step = -1;
    if (f) fclose(f);
    CHECK(code == 0 && step == 30 && y == 0.0 && z < -0.01, "--gravity 0,0,-9.81: exit %d, step %g at (%g, %g, %g)", code, step, x, y, z);
    code = run("run", "chain:1", "--gravity", "0,-9.81", NULL);
    CHECK(code == 2 && strstr(g_stderr, "--gravity") && strstr(g_stderr, "three numbers"), "two components: exit %d: %s", code, g_stderr);
    free(csv);
}

/* --self-collision: the snake's links (examples/snake_50.urdf) touch each other within 60 steps (contacts
 * among the final joints) and never do without it; a scene that is not a URDF robot is refused. */
static void check_self_collision(void) {
    char *json = path_in(g_work, "self_collision.json"), *snake = path_in(g_src, "examples/snake_50.urdf");
    int code = run("run", snake, "--steps", "60", "--backend", "cpu", "--json", json, "-q", NULL);
    if (code != 0 && strstr(g_stderr, "no URDF support")) {
        free(json), free(snake);
        return; /* a build without urdfdom: test_urdf checks that it says so */
    }
    cJSON *j = read_summary(json);
    double plain = summary_number(j, "joints");
    cJSON_Delete(j);
    code = run("run", snake, "--steps", "60", "--backend", "cpu", "--json", json, "-q", "--self-collision", NULL);
    j = read_summary(json);
    double self = summary_number(j, "joints");
    cJSON_Delete(j);
    CHECK(code == 0 && plain == 50 && self > 50, "snake joints after 60 steps: %g by default (50 hinges), %g with --self-collision", plain, self);
    code = run("run", "chain:3", "--self-collision", NULL);
    CHECK(code == 2 && strstr(g_stderr, "--self-collision") && strstr(g_stderr, ".urdf"), "--self-collision on a generator: exit %d: %s", code,
          g_stderr);
    free(json), free(snake);
}

static void check_threads(void) {
    char *json = path_in(g_work, "threads.json");
    char *policy = getenv("OMP_WAIT_POLICY") ? strdup(getenv("OMP_WAIT_POLICY")) : NULL;
    char *omp = getenv("OMP_NUM_THREADS") ? strdup(getenv("OMP_NUM_THREADS")) : NULL;
    unsetenv("OMP_WAIT_POLICY"), unsetenv("GOMP_SPINCOUNT"), unsetenv("OMP_NUM_THREADS");
    int code = run("run", "chain:2000", "--steps", "2", "--backend", "cpu", "--threads", "3", "--json", json, NULL);
    cJSON *j = read_summary(json);
    CHECK(code == 0 && summary_number(j, "cpu_threads") == 3, "--threads 3: exit %d, cpu_threads %g", code, summary_number(j, "cpu_threads"));
    CHECK(!strcmp(summary_string(j, "omp_wait_policy"), "passive"), "no policy set: the run had OMP_WAIT_POLICY '%s', expected passive",
          summary_string(j, "omp_wait_policy"));
    cJSON_Delete(j);
    setenv("OMP_WAIT_POLICY", "active", 1);
    setenv("OMP_NUM_THREADS", "1", 1);
    code = run("run", "chain:2000", "--steps", "2", "--backend", "cpu", "--json", json, NULL);
    j = read_summary(json);
    CHECK(code == 0 && summary_number(j, "cpu_threads") == 1, "OMP_NUM_THREADS=1: exit %d, cpu_threads %g", code, summary_number(j, "cpu_threads"));
    CHECK(!strcmp(summary_string(j, "omp_wait_policy"), "active"), "OMP_WAIT_POLICY=active became '%s'", summary_string(j, "omp_wait_policy"));
    cJSON_Delete(j);
    code = run("run", "chain:10", "--threads", "0", NULL);
    CHECK(code == 2 && strstr(g_stderr, "--threads: '0' is not an integer in [1, 1024]"), "--threads 0: exit %d: %s", code, g_stderr);
    code = run("run", "chain:10", "--threads", "1025", NULL);
    CHECK(code == 2 && strstr(g_stderr, "--threads"), "--threads 1025: exit %d: %s", code, g_stderr);
    if (policy) setenv("OMP_WAIT_POLICY", policy, 1);
    else unsetenv("OMP_WAIT_POLICY");
    if (omp) setenv("OMP_NUM_THREADS", omp, 1);
    else unsetenv("OMP_NUM_THREADS");
    free(policy), free(omp), free(json);
}

void check_flags(void) {
    check_gnu_conventions();
    check_help_documents_options();
    check_stdout_outputs();
    check_outputs_checked_first();
    check_progress();
    check_max_gap();
    check_gap_and_depth();
    check_cadences();
    check_threads();
    check_gravity();
    check_self_collision();
}

void flags_tally(int *checks, int *failures) {
    (void)check_report; /* the report is the caller's */
    *checks += check_count;
    *failures += check_failures;
}
