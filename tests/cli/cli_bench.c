/* `catena bench` checks: the JSON (fields, one row per case x size x solver x device, sane values), the CSV,
 * bad options, and SIGINT (what was measured is written, exit 130).
 * usage: cli_bench json|csv|bad|signal CATENA SOURCE_DIR WORK_DIR */
#define _POSIX_C_SOURCE 200809L
#include "cli/harness.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Small settings: two short chains and the batch path, two solvers, a few steps. */
#define SMALL "--sizes", "60", "--warmup", "1", "--repeats", "2", "--steps", "2"

static const cJSON *item(const cJSON *j, const char *key) { return cJSON_GetObjectItemCaseSensitive(j, key); }
static double num(const cJSON *j, const char *key) {
    const cJSON *v = item(j, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}
static const char *str(const cJSON *j, const char *key) {
    const cJSON *v = item(j, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* The OpenCL devices `catena devices` lists (0 when none). */
static int opencl_devices(void) {
    if (run("devices", NULL) != 0) return 0;
    char *out = last_stdout();
    int n = 0;
    for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"))
        if (l[0] != 'n' && strchr(l, ':')) n++; /* "  P:D  name ..." or "* P:D ..."; "no OpenCL ..." lines start with n */
    free(out);
    return n;
}

/* Checks one result row; returns its device id. */
static void check_row(const cJSON *r, int must_be_ok) {
    const char *c = str(r, "case"), *dev = str(r, "device"), *status = str(r, "status");
    CHECK(!must_be_ok || !strcmp(status, "ok"), "%s on %s: status %s (%s)", c, dev, status, str(r, "error"));
    if (strcmp(status, "ok")) return;
    double ms = num(r, "ms_per_step"), lo = num(r, "ms_min"), hi = num(r, "ms_max");
    CHECK(ms > 0.0 && lo > 0.0 && lo <= ms && ms <= hi, "%s on %s: ms/step %g not in [%g, %g] or not positive", c, dev, ms, lo, hi);
    double bodies = num(r, "bodies"), bsps = num(r, "bodies_steps_per_s");
    CHECK(bodies >= 60, "%s: %g bodies, asked for 60", c, bodies);
    CHECK(fabs(bsps - bodies / (ms * 1e-3)) <= 1e-3 * bsps, "%s: bodies x steps/s %g is not bodies / ms/step (%g)", c, bsps,
          bodies / (ms * 1e-3));
    CHECK(num(r, "row_updates_per_s") > 0.0, "%s on %s: row updates/s %g", c, dev, num(r, "row_updates_per_s"));
    CHECK(num(r, "timed_steps") >= 2 && num(r, "repeats") == 2, "%s: %g timed steps in %g repeats, expected 2 x 2", c, num(r, "timed_steps"),
          num(r, "repeats"));
    /* chains of 0.1 m links held by the solver: the gap is finite and below a link length */
    double gap = num(r, "worst_gap_m");
    CHECK(isfinite(gap) && gap >= 0.0 && gap < 0.1, "%s on %s: worst gap %g m", c, dev, gap);
    double launches = num(r, "launches_per_step"), reads = num(r, "blocking_reads_per_step");
    if (!strcmp(dev, "cpu")) CHECK(launches == 0.0 && reads == 0.0, "cpu: %g launches, %g blocking reads per step", launches, reads);
    else CHECK(launches >= 1.0 && reads >= 1.0, "%s: %g launches, %g blocking reads per step (the step reads its statistics)", dev, launches, reads);
    double frac = num(r, "gs_bandwidth_fraction");
    if (!strcmp(str(r, "solver_used"), "gs")) CHECK(frac > 0.0 && isfinite(frac), "%s on %s: GS bandwidth fraction %g", c, dev, frac);
    else CHECK(frac == 0.0, "%s on %s (%s): a GS bandwidth fraction %g", c, dev, str(r, "solver_used"), frac);
}

static void check_json(void) {
    int ocl = opencl_devices();
    int code = run("bench", "--cases", "chain,batch", "--solvers", "gs,direct", "--device", "all", SMALL, "--json", "-", NULL);
    CHECK(code == 0, "catena bench --json - exited %d: %s", code, g_stderr);
    char *out = last_stdout();
    cJSON *j = cJSON_Parse(out);
    CHECK(j != NULL, "--json - did not write JSON on stdout: %.200s", out);
    CHECK(strstr(g_stderr, "ms/step") != NULL, "the table did not go to stderr with --json -: %.300s", g_stderr);
    free(out);
    if (!j) return;
    CHECK(strstr(str(j, "command"), "catena bench --cases chain,batch") == str(j, "command"), "command: '%s'", str(j, "command"));
    CHECK(str(j, "commit")[0] != '\0', "no commit");
    const cJSON *m = item(j, "machine");
    CHECK(str(m, "cpu")[0] && str(m, "host")[0] && num(m, "logical_cpus") >= 1, "machine: cpu '%s' host '%s'", str(m, "cpu"), str(m, "host"));
    const cJSON *devs = item(j, "devices");
    int ndev = cJSON_GetArraySize(devs);
    CHECK(ndev == 1 + ocl, "%d devices, expected the CPU and %d OpenCL", ndev, ocl);
    for (int d = 0; d < ndev; ++d) {
        const cJSON *dv = cJSON_GetArrayItem(devs, d);
        CHECK(str(dv, "name")[0] && str(dv, "driver")[0], "device %s without name or driver", str(dv, "id"));
        CHECK(num(dv, "copy_bandwidth_gbps") > 0.0, "device %s: copy bandwidth %g", str(dv, "id"), num(dv, "copy_bandwidth_gbps"));
    }
    CHECK(item(j, "interrupted") && cJSON_IsFalse(item(j, "interrupted")), "interrupted is not false");
    const cJSON *res = item(j, "results");
    int n = cJSON_GetArraySize(res);
    CHECK(n == 2 * 2 * ndev && num(j, "rows_planned") == n, "%d rows (%g planned), expected 2 cases x 2 solvers x %d devices", n,
          num(j, "rows_planned"), ndev);
    /* each case x solver x device once */
    for (int a = 0; a < n; ++a)
        for (int b = a + 1; b < n; ++b) {
            const cJSON *x = cJSON_GetArrayItem(res, a), *y = cJSON_GetArrayItem(res, b);
            CHECK(strcmp(str(x, "case"), str(y, "case")) || strcmp(str(x, "solver"), str(y, "solver")) || strcmp(str(x, "device"), str(y, "device")),
                  "row %s %s %s twice", str(x, "case"), str(x, "solver"), str(x, "device"));
        }
    for (int a = 0; a < n; ++a) check_row(cJSON_GetArrayItem(res, a), 1);
    cJSON_Delete(j);
}

/* A pile of spheres has contacts and no joint: its worst joint gap is 0, the contacts' penetration is reported
 * apart (worst_contact_depth_m; measured 2.2e-3 m after 10 steps of 60 spheres). */
static void check_pile_depth(void) {
    int code = run("bench", "--cases", "pile", "--solvers", "gs", "--device", "cpu", "--sizes", "60", "--warmup", "10", "--repeats", "2",
                   "--steps", "2", "--json", "-", NULL);
    CHECK(code == 0, "catena bench --cases pile exited %d: %s", code, g_stderr);
    char *out = last_stdout();
    cJSON *j = cJSON_Parse(out);
    free(out);
    CHECK(j != NULL, "no JSON");
    if (!j) return;
    const cJSON *r = cJSON_GetArrayItem(item(j, "results"), 0);
    CHECK(r && num(r, "contacts") > 0, "the pile has no contacts");
    CHECK(r && num(r, "worst_gap_m") == 0.0, "the pile has no joint, but its worst joint gap is %g m", num(r, "worst_gap_m"));
    CHECK(r && num(r, "worst_contact_depth_m") > 0.0 && num(r, "worst_contact_depth_m") < 0.05, "the pile's contact depth: %g m",
          num(r, "worst_contact_depth_m"));
    cJSON_Delete(j);
}

static void check_csv_out(void) {
    char *path = path_in(g_work, "bench.csv");
    int code = run("bench", "--cases", "hanging,tree", "--solvers", "auto", "--device", "cpu", SMALL, "--csv", path, "--commit", "abc123",
                   "--quiet", NULL);
    CHECK(code == 0, "catena bench --csv exited %d: %s", code, g_stderr);
    char *out = last_stdout();
    CHECK(strstr(out, "hanging") && strstr(out, "tree") && strstr(out, "ms/step"), "no table on stdout: %.300s", out);
    free(out);
    char *t = read_all(path, NULL);
    CHECK(t != NULL, "%s was not written", path);
    CHECK(no_temp_files(g_work), "temporary files left");
    if (!t) return;
    int comments = 0, rows = 0, header = 0, have_command = 0, have_commit = 0, have_machine = 0, have_device = 0;
    char *save = NULL;
    for (char *l = strtok_r(t, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (l[0] == '#') {
            comments++;
            have_command |= strstr(l, "# command: catena bench --cases hanging,tree") != NULL;
            have_commit |= !strcmp(l, "# commit: abc123");
            have_machine |= !strncmp(l, "# machine: ", 11);
            have_device |= !strncmp(l, "# device cpu: ", 14);
            continue;
        }
        int fields = 1, quoted = 0; /* RFC 4180: commas inside quotes do not separate */
        for (char *c = l; *c; ++c) {
            if (*c == '"') quoted = !quoted;
            fields += *c == ',' && !quoted;
        }
        if (!header) {
            header = 1;
            CHECK(!strncmp(l, "case,size,scene,solver,solver_used,device,status,bodies,", 56), "CSV header: %s", l);
            CHECK(fields == 23, "CSV header has %d fields", fields);
            continue;
        }
        rows++;
        CHECK(fields == 23, "CSV row has %d fields: %s", fields, l);
        char c[16], solver[16], dev[16], status[16];
        double ms = -1.0;
        /* case,size,scene,solver,solver_used,device,status,bodies,joints,rows,timed,repeats,ms_per_step */
        CHECK(sscanf(l, "%15[^,],%*d,%*[^,],%15[^,],%*[^,],%15[^,],%15[^,],%*d,%*d,%*d,%*d,%*d,%lf", c, solver, dev, status, &ms) == 5 &&
                  ms > 0.0 && !strcmp(status, "ok") && !strcmp(dev, "cpu") && !strcmp(solver, "auto"),
              "CSV row: %s", l);
    }
    CHECK(have_command && have_commit && have_machine && have_device, "CSV header lines: command %d commit %d machine %d device %d",
          have_command, have_commit, have_machine, have_device);
    CHECK(rows == 2, "%d CSV rows, expected 2 cases x 1 solver x 1 device", rows);
    free(t);
    free(path);
}

/* A usage error: exit 2 and a message naming the option and the value. */
static void expect_usage(const char *want, const char *a, const char *b, const char *c) {
    int code = run("bench", a, b, c, NULL);
    CHECK(code == 2, "catena bench %s %s %s: exit %d, expected 2 (usage)", a, b ? b : "", c ? c : "", code);
    CHECK(strstr(g_stderr, want) != NULL, "catena bench %s %s: message '%s' does not hold '%s'", a, b ? b : "", g_stderr, want);
}

static void check_bad(void) {
    expect_usage("catena bench: unknown option --bogus", "--bogus", NULL, NULL);
    expect_usage("--sizes: '0' is not a body count", "--sizes", "1e3,0", NULL);
    expect_usage("--sizes: '1e3x' is not a body count", "--sizes", "1e3x", NULL);
    expect_usage("--solvers: unknown solver 'fast'", "--solvers", "gs,fast", NULL);
    expect_usage("--cases: unknown case 'rope'", "--cases", "rope", NULL);
    expect_usage("--device: unknown device 'gpu'", "--device", "gpu", NULL);
    expect_usage("--device: no OpenCL device 9:9", "--device", "9:9", NULL);
    expect_usage("--repeats: 'x' is not a whole number", "--repeats", "x", NULL);
    expect_usage("--case-seconds: '-1' is not a positive number", "--case-seconds", "-1", NULL);
    expect_usage("--json needs a value", "--json", NULL, NULL);
    expect_usage("unexpected argument 'chain:10'", "chain:10", NULL, NULL);
    int code = run("bench", "--json", "-", "--csv", "-", NULL);
    CHECK(code == 2 && strstr(g_stderr, "cannot both write to standard output"), "--json - --csv -: exit %d, '%s'", code, g_stderr);
    char *missing = path_in(g_work, "no/such/dir/out.json");
    code = run("bench", "--json", missing, "--device", "cpu", NULL);
    CHECK(code == 6 && strstr(g_stderr, "no/such/dir"), "--json into a missing directory: exit %d (expected 6, I/O), '%s'", code, g_stderr);
    free(missing);
    code = run("bench", "--help", NULL);
    char *out = last_stdout();
    CHECK(code == 0 && strstr(out, "usage: catena bench") && strstr(out, "--device"), "catena bench --help: exit %d", code);
    free(out);
    code = run("help", "bench", NULL);
    out = last_stdout();
    CHECK(code == 0 && strstr(out, "usage: catena bench"), "catena help bench: exit %d", code);
    free(out);
}

/* Runs the endless bench of check_signal, sends SIGINT after `wait_s` seconds; returns the exit code. */
static int interrupted_run(const char *json, const char *out, const char *err, int wait_s) {
    remove(json);
    /* 2 x 1e5 steps of the first row (100 links) run until the signal; the second row never starts
     * (--quick: the smaller copy-bandwidth probe; the explicit settings override its others) */
    char *argv[] = {(char *)g_catena, "bench", "--quick", "--cases", "chain", "--sizes", "100,1000", "--solvers", "gs", "--device", "cpu",
                    "--warmup", "1", "--repeats", "2", "--steps", "100000", "--case-seconds", "100000", "--json", (char *)json, NULL};
    pid_t pid = spawn(argv, out, err);
    if (pid <= 0) return -1;
    struct timespec wait = {wait_s, 0};
    nanosleep(&wait, NULL);
    kill(pid, SIGINT);
    return wait_code(pid);
}

/* SIGINT during a long run: the table and the JSON hold what was measured, marked interrupted, exit 130. */
static void check_signal(void) {
    char *json = path_in(g_work, "signal.json"), *out = path_in(g_work, "signal.out"), *err = path_in(g_work, "signal.err");
    cJSON *j = NULL;
    int code = -1;
    /* a loaded machine may not reach the first timed step within the first wait: then the run (rightly) has
     * no row or one without timed steps, and it is repeated with a longer wait */
    for (int wait_s = 3; wait_s <= 48; wait_s *= 2) {
        code = interrupted_run(json, out, err, wait_s);
        cJSON_Delete(j);
        j = read_summary(json);
        const cJSON *first = j ? cJSON_GetArrayItem(item(j, "results"), 0) : NULL;
        if (code != 130 || !j || (first && num(first, "timed_steps") >= 1)) break;
        fprintf(stderr, "no timed step within %d s; again with a longer wait\n", wait_s);
    }
    CHECK(code == 130, "catena bench after SIGINT: exit %d, expected 130", code);
    char *table = read_all(out, NULL);
    CHECK(table && strstr(table, "INTERRUPTED") && strstr(table, "chain"), "the table after SIGINT: %.300s", table ? table : "(none)");
    free(table);
    CHECK(j != NULL, "no JSON after SIGINT");
    if (j) {
        CHECK(cJSON_IsTrue(item(j, "interrupted")), "interrupted is not true");
        const cJSON *res = item(j, "results");
        int n = cJSON_GetArraySize(res);
        CHECK(n == 1 && num(j, "rows_planned") == 2, "%d rows of %g planned, expected 1 of 2", n, num(j, "rows_planned"));
        const cJSON *r = cJSON_GetArrayItem(res, 0);
        CHECK(r && !strcmp(str(r, "status"), "interrupted"), "the row cut by the signal has status %s", r ? str(r, "status") : "(none)");
        /* what it measured until then is kept */
        CHECK(r && num(r, "timed_steps") >= 1 && num(r, "ms_per_step") > 0.0 && isfinite(num(r, "worst_gap_m")),
              "interrupted row: %g timed steps, %g ms/step, gap %g", num(r, "timed_steps"), num(r, "ms_per_step"), num(r, "worst_gap_m"));
    }
    cJSON_Delete(j);
    CHECK(no_temp_files(g_work), "temporary files left after SIGINT");
    free(json);
    free(out);
    free(err);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: cli_bench json|csv|bad|signal CATENA SOURCE_DIR WORK_DIR\n");
        return 2;
    }
    g_catena = argv[2];
    g_src = argv[3];
    g_work = argv[4];
    mkdir(g_work, 0777);
    setenv("CATENA_QUIET", "1", 1);
    if (!strcmp(argv[1], "json")) {
        check_json();
        check_pile_depth();
    }
    else if (!strcmp(argv[1], "csv")) check_csv_out();
    else if (!strcmp(argv[1], "bad")) check_bad();
    else if (!strcmp(argv[1], "signal")) check_signal();
    else {
        fprintf(stderr, "unknown check %s\n", argv[1]);
        return 2;
    }
    harness_tally(&check_count, &check_failures);
    char name[64];
    snprintf(name, sizeof name, "cli_bench_%s", argv[1]);
    return check_report(name);
}
