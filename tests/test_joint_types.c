/* Every joint type, one world each, through the paths a joint must survive: a scene file round trip
 * (saved, loaded into a fresh world: bitwise the same steps; contacts are not scene content), a
 * checkpoint round trip (bitwise the same steps) and the OpenCL backend (the same float32 kernels on
 * PoCL: within 1e-4 of the CPU after 30 steps). A new joint type is added to the table below; the test
 * fails for a type it does not cover (the loop runs to CTN_JOINT_RACK_PINION, the last type). */
#define _POSIX_C_SOURCE 200809L
#include "gear_rig.h"
#include "ids.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { STEPS = 30, BODIES_MAX = 8 };

static ctn_body_id box(ctn_world *w, double x, double y) {
    ctn_body_desc bd = ctn_body_desc_default();
    bd.position[0] = x, bd.position[1] = y;
    double half[3] = {0.2, 0.1, 0.1};
    ctn_inertia_box(bd.mass, half, bd.inertia);
    bd.angular_velocity[2] = 0.3;
    ctn_body_id id = CTN_NULL_BODY;
    CHECK(ctn_body_add(w, &bd, &id) == CTN_OK, "body: %s", ctn_world_last_error(w));
    return id;
}

/* A world holding the joint `type`: body 0 hangs from the world by a ball joint, body 1 hangs from body 0
 * by the joint under test (gears and rack-and-pinions: the rig of tests/gear_rig.h). */
static ctn_world *build(ctn_joint_type type, ctn_backend backend) {
    char err[512];
    if (type == CTN_JOINT_GEAR || type == CTN_JOINT_RACK_PINION) {
        gear_rig r;
        CHECK(rig_build(&r, backend, CTN_SOLVER_GS, 2.0, err, sizeof err), "rig: %s", err);
        return r.w;
    }
    ctn_world *w = fixture_world(backend, CTN_SOLVER_GS, err, sizeof err);
    CHECK(w != NULL, "world: %s", err);
    if (!w) return NULL;
    ctn_body_id a = box(w, 0.0, -0.5), b = box(w, 0.5, -1.0);
    const double top[3] = {0.0, 0.0, 0.0}, mid[3] = {0.25, -0.75, 0.0}, z[3] = {0.0, 0.0, 1.0};
    fixture_world_joint(w, CTN_JOINT_BALL, a, top, NULL, NULL);
    ctn_status st = CTN_OK;
    if (type == CTN_JOINT_CONTACT) {
        ctn_contact_desc cd = ctn_contact_desc_default();
        cd.body_a = b, cd.body_b = a;
        cd.point[0] = mid[0], cd.point[1] = mid[1];
        cd.depth = 0.001;
        st = ctn_contact_add(w, &cd, NULL);
    } else if (type == CTN_JOINT_CURVE) {
        ctn_curve_desc cd = ctn_curve_desc_default(CTN_CURVE_CIRCLE);
        cd.body = b, cd.frame = a;
        cd.radius = 0.5;
        cd.origin[1] = 0.0;
        st = ctn_curve_constraint_add(w, &cd, NULL);
    } else {
        ctn_joint_desc jd = ctn_joint_desc_default(type);
        jd.body_a = b, jd.body_b = a;
        if (type == CTN_JOINT_SPRING || type == CTN_JOINT_DISTANCE) {
            jd.rest_length = 0.6;
            jd.stiffness = 200.0, jd.damping = 1.0;
        } else {
            st = ctn_joint_desc_set_pivot(w, &jd, mid, z);
        }
        if (st == CTN_OK) st = ctn_joint_add(w, &jd, NULL);
    }
    CHECK(st == CTN_OK, "%s joint: %s", ctn_joint_type_name(type), ctn_world_last_error(w));
    int found = 0;
    for (int j = 0; j < ctn_world_joint_count(w) + 4; ++j) {
        ctn_joint_info ji;
        if (ctn_joint_get_info(w, HJOINT(w, j), &ji) == CTN_OK && ji.type == type) found = 1;
    }
    CHECK(found, "the world holds a %s joint", ctn_joint_type_name(type));
    return w;
}

/* Largest difference of position, orientation and velocity over the live bodies of two worlds with the
 * same slots (-1 when a body cannot be read). */
static double state_diff(ctn_world *a, ctn_world *b) {
    double worst = 0.0;
    int n = 0;
    ctn_world_id_counts(a, &n, NULL);
    for (int i = 0; i < n; ++i) {
        ctn_body_state x, y;
        if (ctn_world_body_at(a, i, &(ctn_body_id){0}) != CTN_OK) continue;
        if (ctn_body_get_state(a, HBODY(a, i), &x) != CTN_OK || ctn_body_get_state(b, HBODY(b, i), &y) != CTN_OK) return -1.0;
        for (int k = 0; k < 3; ++k)
            worst = fmax(worst, fmax(fabs(x.position[k] - y.position[k]), fabs(x.velocity[k] - y.velocity[k])));
        for (int k = 0; k < 4; ++k) worst = fmax(worst, fabs(x.orientation[k] - y.orientation[k]));
    }
    return worst;
}

static void walk(ctn_joint_type type, int have_opencl) {
    const char *name = ctn_joint_type_name(type);
    CHECK(strcmp(name, "unknown") != 0 && name[0], "type %d has a name", (int)type);
    ctn_world *w = build(type, CTN_BACKEND_CPU);
    if (!w) return;
    /* scene file round trip (contacts are not scene content) */
    ctn_world_desc d;
    ctn_world_get_desc(w, &d);
    ctn_world *s = fixture_scene_reload(w, &d);
    if (s) {
        int want = ctn_world_joint_count(w) - (type == CTN_JOINT_CONTACT);
        CHECK(ctn_world_joint_count(s) == want, "%s: scene round trip has %d joints, want %d", name, ctn_world_joint_count(s), want);
        if (type != CTN_JOINT_CONTACT) {
            ctn_world *fresh = build(type, CTN_BACKEND_CPU);
            fixture_step_both(fresh, s, STEPS);
            double diff = state_diff(fresh, s);
            CHECK(diff == 0.0, "%s: the scene round trip steps differently (%g)", name, diff);
            ctn_world_destroy(fresh);
        }
        ctn_world_destroy(s);
    }
    /* checkpoint round trip */
    char path[64];
    snprintf(path, sizeof path, "test_joint_types_%d.ckpt", (int)type);
    ctn_world_step(w);
    CHECK(ctn_world_save(w, path, 1, NULL) == CTN_OK, "%s: save: %s", name, ctn_world_last_error(w));
    ctn_world *c = NULL;
    char err[512];
    CHECK(ctn_world_load(path, NULL, &c, NULL, err, sizeof err) == CTN_OK, "%s: load: %s", name, err);
    remove(path);
    if (c) {
        fixture_step_both(w, c, STEPS);
        double diff = state_diff(w, c);
        CHECK(diff == 0.0, "%s: the checkpoint round trip steps differently (%g)", name, diff);
        ctn_world_destroy(c);
    }
    ctn_world_destroy(w);
    /* both backends */
    if (!have_opencl) return;
    ctn_world *cpu = build(type, CTN_BACKEND_CPU), *ocl = build(type, CTN_BACKEND_OPENCL);
    if (cpu && ocl) {
        for (int i = 0; i < STEPS; ++i)
            CHECK(ctn_world_step(cpu) == CTN_OK && ctn_world_step(ocl) == CTN_OK, "%s step %d: %s", name, i, ctn_world_last_error(ocl));
        double diff = state_diff(cpu, ocl);
        printf("%-12s CPU vs OpenCL after %d steps: %.3g\n", name, STEPS, diff);
        CHECK(diff >= 0.0 && diff < 1e-4, "%s: CPU and OpenCL differ by %g", name, diff);
    }
    ctn_world_destroy(cpu);
    ctn_world_destroy(ocl);
}

int main(void) {
    char why[256];
    int have_opencl = fixture_have_opencl(why, sizeof why);
    if (!have_opencl) printf("OpenCL part not run: %s\n", why);
    for (int t = CTN_JOINT_DISTANCE; t <= CTN_JOINT_RACK_PINION; ++t) walk((ctn_joint_type)t, have_opencl);
    (void)rig_track, (void)rig_error; /* gear_rig.h helpers this test does not need */
    CHECK(!strcmp(ctn_joint_type_name((ctn_joint_type)(CTN_JOINT_RACK_PINION + 1)), "unknown"),
          "CTN_JOINT_RACK_PINION is the last type (a new one must join this walk): %s",
          ctn_joint_type_name((ctn_joint_type)(CTN_JOINT_RACK_PINION + 1)));
    return check_report("joint_types");
}
