/* Device faults, injected with desc.debug.fault (host/core/fault.c): no platform, out of device memory
 * (at creation and mid-run), kernel build failure, enqueue failure mid-step, device lost and out of
 * resources at the step's stats read. For each: the error is CTN_ERR_DEVICE with the OpenCL error name;
 * with explicit `opencl` the world keeps the state before the failed step (bitwise equal to a fault-free
 * run stopped there) and the step can be retried; with `auto` the world goes on on the CPU backend with
 * one warning and ends bitwise equal to a CPU run started from that state. Also the OpenCL divergence
 * guard: a diverged step is undone on the device and names the body. A fault in a step of a contact scene
 * (pile:30) puts the contact set back with the bodies: the retry and the fallback match. Each case runs in a child process
 * (the ICD loader reads its environment once per process) that takes the fault from $CATENA_FAULT, as the
 * CLI does. Needs a build with -DCATENA_FAULT_INJECTION=ON; exits 77 (skipped) without it. */
#define _POSIX_C_SOURCE 200809L
#include "catena/catena.h"
#include "ids.h"
#include "check.h"
#include "opencl_lsan.h"
#include "opencl_child.h"

#define STEPS 8

static ctn_body_state *states(ctn_world *w) {
    int n = ctn_world_body_count(w);
    ctn_body_state *s = calloc((size_t)n + 1, sizeof *s);
    for (int i = 0; i < n; ++i) ctn_body_get_state(w, HBODY(w, i), &s[i]);
    return s;
}
static int same(ctn_world *a, const ctn_body_state *ref) {
    int n = ctn_world_body_count(a);
    ctn_body_state *s = states(a);
    int eq = memcmp(s, ref, (size_t)n * sizeof *s) == 0;
    free(s);
    return eq;
}

static ctn_world *make(ctn_backend b, ctn_status *st, char *err, size_t size) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = b;
    d.device = "0:0";
    d.debug.fault = getenv("CATENA_FAULT");
    ctn_world *w = NULL;
    *st = ctn_world_create(&d, &w, err, size);
    const char *scene = getenv("CATENA_FAULT_SCENE"); /* a contact scene for the contact cases */
    if (*st == CTN_OK) *st = ctn_scene_from_spec(w, scene && scene[0] ? scene : "chain:20");
    return w;
}

/* Child: argv[2] = auto|opencl, argv[3] = K, the step the injected fault fires at (0: at creation). */
static int child(char **argv) {
    ctn_set_log(child_log_to_stderr, NULL);
    ctn_backend b = !strcmp(argv[2], "opencl") ? CTN_BACKEND_OPENCL : CTN_BACKEND_AUTO;
    int k = atoi(argv[3]);
    char err[4096] = "", ck[64];
    ctn_status st;
    snprintf(ck, sizeof ck, "faults-%ld.ck", (long)getpid());
    ctn_body_state *ref = NULL;
    if (k > 0) { /* fault-free reference: K - 1 steps on OpenCL (the fault of step K never fires) */
        ctn_world *r = make(CTN_BACKEND_OPENCL, &st, err, sizeof err);
        for (int i = 1; i < k && st == CTN_OK; ++i) st = ctn_world_step(r);
        if (st == CTN_OK) st = ctn_world_save(r, ck, (uint64_t)(k - 1), NULL);
        if (st != CTN_OK) printf("reference failed: %s %s\n", ctn_status_name(st), r ? ctn_world_last_error(r) : err);
        ref = states(r);
        ctn_world_destroy(r);
    }
    ctn_world *w = make(b, &st, err, sizeof err);
    printf("create %s backend %s\n", ctn_status_name(st), w ? ctn_world_backend_name(w) : "none");
    if (!w) {
        printf("message %s\n", err);
        return 0;
    }
    int i;
    for (i = 1; i <= STEPS && st == CTN_OK; ++i) {
        st = ctn_world_step(w);
        if (st != CTN_OK) printf("fail_at %d %s\nmessage %s\n", i, ctn_status_name(st), ctn_world_last_error(w));
    }
    if (st != CTN_OK && ref) {
        printf("preserved %d\n", same(w, ref));
        /* retry on the same device: equals the saved state stepped once on a fresh OpenCL world */
        st = ctn_world_step(w);
        printf("retry %s\n", ctn_status_name(st));
        ctn_world_desc d = ctn_world_desc_default();
        d.backend = CTN_BACKEND_OPENCL;
        d.device = "0:0";
        ctn_world *r2 = NULL;
        if (ctn_world_load(ck, &d, &r2, NULL, err, sizeof err) == CTN_OK && ctn_world_step(r2) == CTN_OK) {
            ctn_body_state *s2 = states(r2);
            printf("retry_equal %d\n", same(w, s2));
            free(s2);
        }
        ctn_world_destroy(r2);
    } else if (st == CTN_OK && ref) {
        /* auto: the run went on on the CPU from the state before step K: compare with a CPU run from there */
        ctn_world_desc d = ctn_world_desc_default();
        d.backend = CTN_BACKEND_CPU;
        ctn_world *c = NULL;
        st = ctn_world_load(ck, &d, &c, NULL, err, sizeof err);
        for (int j = k; j <= STEPS && st == CTN_OK; ++j) st = ctn_world_step(c);
        ctn_body_state *sc = c ? states(c) : NULL;
        printf("done %s backend %s fallback_equal %d\n", ctn_status_name(st), ctn_world_backend_name(w), sc && same(w, sc));
        free(sc);
        ctn_world_destroy(c);
    } else {
        printf("done %s backend %s\n", ctn_status_name(st), ctn_world_backend_name(w));
    }
    free(ref);
    remove(ck);
    ctn_world_destroy(w);
    return 0;
}

/* Child: the OpenCL divergence guard (argv[2] = speed|nan). */
static int child_diverge(char **argv) {
    int nan = !strcmp(argv[2], "nan");
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_OPENCL;
    d.device = "0:0";
    if (nan) { /* velocities overflow to inf on the second step; the speed limit is off */
        d.gravity[1] = -3e38;
        d.time_step = 1.0;
        d.substeps = 1;
        d.iterations = 1;
        d.max_speed = 0.0;
    } else {
        d.max_speed = 3.0;
    }
    ctn_world *w = NULL;
    char err[1024];
    if (ctn_world_create(&d, &w, err, sizeof err) != CTN_OK || ctn_scene_from_spec(w, "chain:20") != CTN_OK) {
        printf("create failed %s\n", err);
        return 0;
    }
    for (int k = 1; k <= 200; ++k) {
        ctn_body_state *before = states(w);
        double imp_before[6], imp_after[6];
        ctn_joint_get_impulse(w, HJOINT(w, 5), imp_before, NULL);
        ctn_status st = ctn_world_step(w);
        if (st != CTN_OK) {
            char message[2048]; /* the step's message, before the next call clears it */
            snprintf(message, sizeof message, "%s", ctn_world_last_error(w));
            ctn_joint_get_impulse(w, HJOINT(w, 5), imp_after, NULL);
            printf("diverged_at %d %s restored %d impulses %d\nmessage %s\n", k, ctn_status_name(st), same(w, before),
                   !memcmp(imp_before, imp_after, sizeof imp_after), message);
            free(before);
            if (!nan) { /* relax the guard and go on from the restored state */
                d.max_speed = 1e4;
                ctn_world_set_desc(w, &d);
                printf("continue %s\n", ctn_status_name(ctn_world_step(w)));
            }
            break;
        }
        free(before);
    }
    ctn_world_destroy(w);
    return 0;
}

static char out[16384], eout[16384];

static int count_of(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) ++n;
    return n;
}

static void run_fault_scene(const char *fault, const char *backend, int k, const char *scene) {
    char env[256], args[128];
    snprintf(env, sizeof env, "env CATENA_FAULT=%s CATENA_FAULT_SCENE=%s", fault, scene);
    snprintf(args, sizeof args, "--child %s %d", backend, k);
    int rc = run_child(env, args, out, sizeof out, eout, sizeof eout);
    CHECK(rc == 0, "%s %s: child exit %d, stderr '%s'", fault, backend, rc, eout);
}

static void run_fault(const char *fault, const char *backend, int k) { run_fault_scene(fault, backend, k, ""); }

int main(int argc, char **argv) {
    if (argc > 3 && !strcmp(argv[1], "--child")) return child(argv);
    if (argc > 2 && !strcmp(argv[1], "--diverge")) return child_diverge(argv);
    int count = 0;
    char err[256];
    ctn_device_info dev[8];
    if (ctn_list_devices(dev, 8, &count, err, sizeof err) != CTN_OK || count == 0) {
        return check_skip("test_faults", "no OpenCL platform or device");
    }
    if (!fault_injection_built()) {
        printf("test_faults: this build has no fault injection (configure with -DCATENA_FAULT_INJECTION=ON), skipped\n");
        return 77;
    }

    /* 1. faults at creation: auto takes the CPU solver and says why; explicit opencl fails */
    struct {
        const char *fault, *name;
    } init[] = {{"no-platform", "no OpenCL platform"}, {"out-of-memory", "CL_MEM_OBJECT_ALLOCATION_FAILURE"}, {"build", "kernel build failed"}};
    for (int i = 0; i < 3; ++i) {
        run_fault(init[i].fault, "auto", 0);
        CHECK(strstr(out, "create CTN_OK backend cpu") && strstr(out, "done CTN_OK backend cpu"), "%s auto: out '%s'", init[i].fault, out);
        CHECK(strstr(eout, "using the CPU solver") && strstr(eout, init[i].name), "%s auto: stderr '%s'", init[i].fault, eout);
        run_fault(init[i].fault, "opencl", 0);
        CHECK(strstr(out, "create CTN_ERR_DEVICE backend none") && strstr(out, init[i].name), "%s opencl: out '%s'", init[i].fault, out);
    }

    /* 2. faults mid-run at step 3 */
    struct {
        const char *fault, *name;
    } run[] = {{"out-of-memory@3", "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
               {"enqueue@3", "CL_OUT_OF_RESOURCES"},
               {"device-lost@3", "CL_DEVICE_NOT_AVAILABLE"},
               {"out-of-resources@3", "CL_OUT_OF_RESOURCES"}};
    for (int i = 0; i < 4; ++i) {
        run_fault(run[i].fault, "opencl", 3);
        CHECK(strstr(out, "create CTN_OK backend opencl") && strstr(out, "fail_at 3 CTN_ERR_DEVICE"), "%s opencl: out '%s'", run[i].fault, out);
        CHECK(strstr(out, run[i].name) && strstr(out, "injected by CATENA_FAULT") && strstr(out, "state before this step"),
              "%s opencl: message in '%s'", run[i].fault, out);
        CHECK(strstr(out, "preserved 1"), "%s opencl: state before the failed step kept: '%s'", run[i].fault, out);
        CHECK(strstr(out, "retry CTN_OK") && strstr(out, "retry_equal 1"), "%s opencl: retry: '%s'", run[i].fault, out);
        CHECK(!strstr(out, "reference failed"), "%s: '%s'", run[i].fault, out);

        run_fault(run[i].fault, "auto", 3);
        CHECK(strstr(out, "create CTN_OK backend opencl") && strstr(out, "done CTN_OK backend cpu fallback_equal 1"), "%s auto: out '%s'",
              run[i].fault, out);
        CHECK(count_of(eout, "continuing on the CPU solver") == 1 && strstr(eout, run[i].name), "%s auto: one warning: stderr '%s'",
              run[i].fault, eout);
    }

    /* 2b. a fault in a step whose contact generation changed the contacts (spheres falling into a pile): the
     * contact set goes back with the bodies, so the retry and the CPU fallback continue exactly as a world
     * loaded from the state before the step */
    run_fault_scene("enqueue@3", "opencl", 3, "pile:30");
    CHECK(strstr(out, "fail_at 3 CTN_ERR_DEVICE") && strstr(out, "preserved 1") && strstr(out, "retry CTN_OK") &&
              strstr(out, "retry_equal 1") && !strstr(out, "reference failed"),
          "pile enqueue@3 opencl: '%s'", out);
    run_fault_scene("enqueue@3", "auto", 3, "pile:30");
    CHECK(strstr(out, "done CTN_OK backend cpu fallback_equal 1"), "pile enqueue@3 auto: '%s'", out);

    /* 3. an unknown fault name is refused at creation, naming the field */
    run_fault("no-such-fault", "opencl", 0);
    CHECK(strstr(out, "create CTN_ERR_INVALID_ARGUMENT backend none") && strstr(out, "desc.debug.fault: unknown fault 'no-such-fault'"),
          "unknown fault: out '%s' err '%s'", out, eout);

    /* 4. the OpenCL divergence guard: speed limit and non-finite state, undone on the device */
    int rc = run_child("", "--diverge speed", out, sizeof out, eout, sizeof eout);
    CHECK(rc == 0 && strstr(out, "CTN_ERR_DIVERGED restored 1 impulses 1") && strstr(out, "max_speed") && strstr(out, "message step diverged: body"),
          "opencl speed guard: out '%s' err '%s'", out, eout);
    CHECK(strstr(out, "continue CTN_OK"), "opencl speed guard: stepping goes on: '%s'", out);
    rc = run_child("", "--diverge nan", out, sizeof out, eout, sizeof eout);
    CHECK(rc == 0 && strstr(out, "CTN_ERR_DIVERGED restored 1 impulses 1") && strstr(out, "non-finite"),
          "opencl non-finite guard: out '%s' err '%s'", out, eout);
    return check_report("faults");
}
