/* peer_mujoco: the hanging chain in MuJoCo 2.2 (double precision), built from an MJCF string.
 *
 * variant "connect" (default): maximal coordinates, as Catena, Bullet and ODE: one free body per link and
 *   one `connect` equality constraint (3 rows) per ball joint, solved by MuJoCo's PGS (the dual projected
 *   Gauss-Seidel) with a sparse Jacobian, `iterations` = chain->iterations and tolerance 0 so that every
 *   iteration runs. MuJoCo's constraints are soft by design (default solref 0.02 s, clamped to at least
 *   2 time steps): the joint gap it reports is part of its model, not only solver error.
 * variant "nested": reduced coordinates, nested bodies with ball joints (the way a MuJoCo user builds a
 *   chain). There are no constraint rows, so the iteration count is irrelevant and the gap is 0 by
 *   construction: this row compares speed only.
 *
 * MuJoCo 2.2 preallocates its data: njmax x nv for the constraint Jacobian and njmax x njmax for J M^-1 J^T
 * (connect), and the tree-sparse mass matrix, which is dense along a chain: (3n)^2 / 2 entries (nested).
 * Cases whose preallocation would exceed MUJOCO_MAX_BYTES are refused with the estimate, and nested chains
 * longer than MUJOCO_MAX_NESTED links are refused because the XML parser limits the nesting depth.
 */
#include "peer.h"

#include <mujoco/mujoco.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MUJOCO_MAX_BYTES (6.0 * 1024 * 1024 * 1024)
#define MUJOCO_MAX_NESTED 96 /* <mujoco><worldbody> + bodies + <joint>/<inertial> within tinyxml2's depth limit of 100 */

typedef struct mujoco_sim {
    mjModel *m;
    mjData *d;
    int links, substeps, nested;
    double half;
} mujoco_sim;

static jmp_buf mujoco_jump;
static char mujoco_error[512];

static void mujoco_on_error(const char *msg) {
    snprintf(mujoco_error, sizeof mujoco_error, "%s", msg);
    longjmp(mujoco_jump, 1);
}

typedef struct text {
    char *s;
    size_t len, cap;
    int failed;
} text;

static void text_add(text *t, const char *fmt, ...) {
    if (t->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = 1;
            return;
        }
        if (t->s && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap ? 2 * t->cap : 1 << 16;
        while (cap < t->len + (size_t)n + 1) cap *= 2;
        char *s = realloc(t->s, cap);
        if (!s) {
            t->failed = 1;
            return;
        }
        t->s = s, t->cap = cap;
    }
}

static char *mjcf_chain(const peer_chain *c, int nested, size_t *len) {
    const double L = c->link_length, h = 0.5 * L;
    text t = {0};
    int njmax = nested ? 1 : 3 * c->links + 3;
    text_add(&t, "<mujoco model=\"catena_chain\">\n  <size njmax=\"%d\" nconmax=\"1\"/>\n", njmax);
    text_add(&t,
             "  <option timestep=\"%.17g\" gravity=\"0 %.17g 0\" iterations=\"%d\" tolerance=\"0\" solver=\"PGS\" "
             "jacobian=\"sparse\" integrator=\"Euler\">\n    <flag contact=\"disable\"/>\n  </option>\n  <worldbody>\n",
             c->time_step / c->substeps, -c->gravity, c->iterations);
    for (int i = 0; i < c->links; ++i) {
        if (nested) {
            /* body frame at the link centre; the ball joint at its top, on the parent's bottom */
            text_add(&t, "<body name=\"l%d\" pos=\"0 %.17g 0\"><joint type=\"ball\" pos=\"0 %.17g 0\"/>", i, i == 0 ? -h : -L, h);
        } else {
            text_add(&t, "    <body name=\"l%d\" pos=\"0 %.17g 0\"><freejoint/>", i, -(i + 0.5) * L);
        }
        text_add(&t, "<inertial pos=\"0 0 0\" mass=\"%.17g\" diaginertia=\"%.17g %.17g %.17g\"/>", c->link_mass, c->inertia[0],
                 c->inertia[1], c->inertia[2]);
        text_add(&t, nested ? "\n" : "</body>\n");
    }
    if (nested)
        for (int i = 0; i < c->links; ++i) text_add(&t, "</body>");
    text_add(&t, "\n  </worldbody>\n");
    if (!nested) {
        text_add(&t, "  <equality>\n");
        for (int i = 0; i < c->links; ++i) {
            if (i == 0) text_add(&t, "    <connect body1=\"l0\" anchor=\"0 %.17g 0\"/>\n", h);
            else text_add(&t, "    <connect body1=\"l%d\" body2=\"l%d\" anchor=\"0 %.17g 0\"/>\n", i, i - 1, h);
        }
        text_add(&t, "  </equality>\n");
    }
    text_add(&t, "</mujoco>\n");
    if (t.failed) {
        free(t.s);
        return NULL;
    }
    *len = t.len;
    return t.s;
}

static void mujoco_destroy(void *p) {
    mujoco_sim *s = p;
    if (!s) return;
    if (s->d) mj_deleteData(s->d);
    if (s->m) mj_deleteModel(s->m);
    free(s);
}

static void *mujoco_create(const peer_chain *c, char *note, size_t note_size, char *err, size_t err_size) {
    int nested = !strcmp(c->variant, "nested");
    if (!nested && c->variant[0] && strcmp(c->variant, "connect")) {
        snprintf(err, err_size, "mujoco: unknown variant '%s' (connect|nested)", c->variant);
        return NULL;
    }
    if (nested && c->links > MUJOCO_MAX_NESTED) {
        snprintf(err, err_size, "mujoco nested: MuJoCo %s's XML parser caps element nesting at 100, i.e. %d nested links",
                 mj_versionString(), MUJOCO_MAX_NESTED);
        return NULL;
    }
    double n = c->links, nv = nested ? 3 * n : 6 * n, njmax = 3 * n + 3;
    double bytes = nested ? 4.0 * 8.0 * nv * (nv + 1) / 2 : 12.0 * njmax * (nv + njmax);
    if (bytes > MUJOCO_MAX_BYTES) {
        snprintf(err, err_size, "mujoco %s: MuJoCo %s would preallocate ~%.0f GB for %d links (%s)", nested ? "nested" : "connect",
                 mj_versionString(), bytes / 1e9, c->links,
                 nested ? "the mass matrix of a serial chain is dense: (3n)^2/2 entries" : "njmax x nv Jacobian + njmax^2 J M^-1 J^T");
        return NULL;
    }
    mujoco_sim *s = calloc(1, sizeof *s);
    size_t len = 0;
    char *xml = mjcf_chain(c, nested, &len);
    mjVFS *vfs = malloc(sizeof *vfs);
    if (!s || !xml || !vfs) {
        free(s), free(xml), free(vfs);
        snprintf(err, err_size, "mujoco: out of memory");
        return NULL;
    }
    s->links = c->links;
    s->substeps = c->substeps;
    s->nested = nested;
    s->half = 0.5 * c->link_length;
    void (*old_error)(const char *) = mju_user_error;
    mju_user_error = mujoco_on_error;
    volatile int ok = 0;
    char load_err[1024] = "";
    mj_defaultVFS(vfs);
    if (setjmp(mujoco_jump) == 0) {
        if (mj_makeEmptyFileVFS(vfs, "chain.xml", (int)len) == 0) {
            memcpy(vfs->filedata[mj_findFileVFS(vfs, "chain.xml")], xml, len);
            s->m = mj_loadXML("chain.xml", vfs, load_err, (int)sizeof load_err);
            if (s->m) s->d = mj_makeData(s->m);
            if (s->d) mj_forward(s->m, s->d);
            ok = s->d != NULL;
        } else {
            snprintf(load_err, sizeof load_err, "mj_makeEmptyFileVFS failed");
        }
    } else {
        snprintf(load_err, sizeof load_err, "%s", mujoco_error);
    }
    mju_user_error = old_error;
    mj_deleteVFS(vfs);
    free(vfs);
    free(xml);
    if (!ok) {
        snprintf(err, err_size, "mujoco: %s", load_err[0] ? load_err : "model or data allocation failed");
        mujoco_destroy(s);
        return NULL;
    }
    if (nested)
        snprintf(note, note_size, "MuJoCo %s, nested bodies + ball joints (reduced coordinates: gap 0 by construction, speed only)",
                 mj_versionString());
    else
        snprintf(note, note_size, "MuJoCo %s, free bodies + connect equalities, PGS, sparse Jacobian, tolerance 0, default soft solref",
                 mj_versionString());
    return s;
}

static int mujoco_step(void *p) {
    mujoco_sim *s = p;
    void (*old_error)(const char *) = mju_user_error;
    mju_user_error = mujoco_on_error;
    volatile int rc = 0;
    if (setjmp(mujoco_jump) == 0) {
        for (int k = 0; k < s->substeps; ++k) mj_step(s->m, s->d);
    } else {
        fprintf(stderr, "mujoco: %s\n", mujoco_error);
        rc = 1;
    }
    mju_user_error = old_error;
    return rc;
}

static int mujoco_anchors(void *p, double *top, double *bottom) {
    mujoco_sim *s = p;
    mj_kinematics(s->m, s->d); /* mj_step leaves xpos/xmat at the start of the step; bring them to qpos */
    for (int i = 0; i < s->links; ++i) {
        const mjtNum *x = s->d->xpos + 3 * (i + 1), *R = s->d->xmat + 9 * (i + 1); /* body 0 is the world */
        for (int k = 0; k < 3; ++k) {
            top[3 * i + k] = x[k] + R[3 * k + 1] * s->half;
            bottom[3 * i + k] = x[k] - R[3 * k + 1] * s->half;
        }
    }
    return 0;
}

const peer_engine peer_mujoco = {"mujoco", mujoco_create, mujoco_step, mujoco_anchors, mujoco_destroy};
