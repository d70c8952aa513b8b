/* Description structs <-> dicts: each struct is described once by a table of its members, so a new field
 * of ctn_world_desc & co. is one line here and reaches Python under its C name. */
#include "pycatena.h"

#include <stddef.h>
#include <string.h>

/* Enum members are read and written as int. */
_Static_assert(sizeof(ctn_solver) == sizeof(int) && sizeof(ctn_backend) == sizeof(int) &&
                   sizeof(ctn_stabilization) == sizeof(int) && sizeof(ctn_integrator) == sizeof(int) && sizeof(ctn_body_type) == sizeof(int) &&
                   sizeof(ctn_joint_type) == sizeof(int) && sizeof(ctn_shape_type) == sizeof(int),
               "enums are stored as int");
/* Handle members are converted as ctn_body_id: a ctn_joint_id has the same members in the same places. */
_Static_assert(sizeof(ctn_body_id) == sizeof(ctn_joint_id) && offsetof(ctn_body_id, world0) == offsetof(ctn_joint_id, world0) &&
                   offsetof(ctn_body_id, generation) == offsetof(ctn_joint_id, generation),
               "body and joint handles share a layout");

int pyctn_handle(PyObject *obj, int64_t *out) {
    long long v = PyLong_AsLongLong(obj);
    if (v == -1 && PyErr_Occurred()) return -1;
    *out = (int64_t)v;
    return 0;
}

#define W(m, k) PYCTN_FIELD(ctn_world_desc, m, k)
const pyctn_field pyctn_world_fields[] = {
    W(gravity, PYCTN_VEC3), W(time_step, PYCTN_DOUBLE), W(substeps, PYCTN_INT), W(iterations, PYCTN_INT),
    W(solver, PYCTN_INT), W(stabilization, PYCTN_INT), W(compliance, PYCTN_DOUBLE), W(damping_time, PYCTN_DOUBLE),
    W(baumgarte, PYCTN_DOUBLE), W(warm_start, PYCTN_DOUBLE), W(max_colours, PYCTN_INT), W(threads, PYCTN_INT),
    W(geometric_stiffness, PYCTN_DOUBLE), W(max_speed, PYCTN_DOUBLE), W(backend, PYCTN_INT), W(integrator, PYCTN_INT),
    W(rattle_max_joints, PYCTN_INT), W(bounded_rows, PYCTN_INT), {NULL, 0, 0}};
#undef W

#define B(m, k) PYCTN_FIELD(ctn_body_desc, m, k)
const pyctn_field pyctn_body_fields[] = {
    B(type, PYCTN_INT), B(particle, PYCTN_INT), B(mass, PYCTN_DOUBLE), B(inertia, PYCTN_VEC3), B(position, PYCTN_VEC3),
    B(orientation, PYCTN_VEC4), B(velocity, PYCTN_VEC3), B(angular_velocity, PYCTN_VEC3), {NULL, 0, 0}};
#undef B

#define J(m, k) PYCTN_FIELD(ctn_joint_desc, m, k)
const pyctn_field pyctn_joint_fields[] = {
    J(type, PYCTN_INT), J(body_a, PYCTN_HANDLE), J(body_b, PYCTN_HANDLE), J(anchor_a, PYCTN_VEC3), J(anchor_b, PYCTN_VEC3),
    J(axis, PYCTN_VEC3), J(rest_length, PYCTN_DOUBLE), J(stiffness, PYCTN_DOUBLE), J(damping, PYCTN_DOUBLE),
    J(compliance, PYCTN_DOUBLE), J(damping_time, PYCTN_DOUBLE), J(implicit, PYCTN_INT), J(axis2, PYCTN_VEC3), J(ratio, PYCTN_DOUBLE), J(relative, PYCTN_INT),
    {NULL, 0, 0}};
#undef J

#define V(m, k) PYCTN_FIELD(ctn_curve_desc, m, k)
const pyctn_field pyctn_curve_fields[] = {
    V(type, PYCTN_INT), V(body, PYCTN_HANDLE), V(anchor, PYCTN_VEC3), V(frame, PYCTN_HANDLE), V(origin, PYCTN_VEC3),
    V(axis, PYCTN_VEC3), V(reference, PYCTN_VEC3), V(radius, PYCTN_DOUBLE), V(pitch, PYCTN_DOUBLE), V(closed, PYCTN_INT),
    V(compliance, PYCTN_DOUBLE), V(damping_time, PYCTN_DOUBLE), V(stabilization, PYCTN_INT), V(ks, PYCTN_DOUBLE),
    V(kd, PYCTN_DOUBLE), {NULL, 0, 0}};
#undef V

#define C(m, k) PYCTN_FIELD(ctn_chain_desc, m, k)
const pyctn_field pyctn_chain_fields[] = {
    C(links, PYCTN_INT), C(link_length, PYCTN_DOUBLE), C(link_mass, PYCTN_DOUBLE), C(end_mass_ratio, PYCTN_DOUBLE),
    C(origin, PYCTN_VEC3), C(direction, PYCTN_VEC3), C(particles, PYCTN_INT), {NULL, 0, 0}};
#undef C

#define S(m, k) PYCTN_FIELD(ctn_shape_desc, m, k)
const pyctn_field pyctn_shape_fields[] = {
    S(type, PYCTN_INT), S(radius, PYCTN_DOUBLE), S(half_length, PYCTN_DOUBLE), S(half_extents, PYCTN_VEC3),
    S(friction, PYCTN_DOUBLE), S(restitution, PYCTN_DOUBLE), S(group, PYCTN_INT), S(offset, PYCTN_VEC3), S(rotation, PYCTN_VEC4),
    {NULL, 0, 0}};
#undef S

#define K(m, k) PYCTN_FIELD(ctn_contact_desc, m, k)
const pyctn_field pyctn_contact_fields[] = {
    K(body_a, PYCTN_HANDLE), K(body_b, PYCTN_HANDLE), K(point, PYCTN_VEC3), K(normal, PYCTN_VEC3), K(depth, PYCTN_DOUBLE),
    K(friction, PYCTN_DOUBLE), K(restitution, PYCTN_DOUBLE), {NULL, 0, 0}};
#undef K

#define I(m, k) PYCTN_FIELD(ctn_contact_info, m, k)
const pyctn_field pyctn_contact_info_fields[] = {
    I(joint, PYCTN_HANDLE), I(body_a, PYCTN_HANDLE), I(body_b, PYCTN_HANDLE), I(point, PYCTN_VEC3), I(normal, PYCTN_VEC3),
    I(separation, PYCTN_DOUBLE), I(impulse, PYCTN_VEC3), I(friction, PYCTN_DOUBLE), I(user, PYCTN_INT), {NULL, 0, 0}};
#undef I

#define L(m, k) PYCTN_FIELD(ctn_collision_desc, m, k)
const pyctn_field pyctn_collision_fields[] = {L(enabled, PYCTN_INT), L(skip_jointed, PYCTN_INT), L(margin, PYCTN_DOUBLE), {NULL, 0, 0}};
#undef L

#define T(m, k) PYCTN_FIELD(ctn_step_stats, m, k)
const pyctn_field pyctn_stats_fields[] = {
    T(substeps, PYCTN_INT), T(iterations, PYCTN_INT), T(colours, PYCTN_INT), T(largest_colour, PYCTN_INT),
    T(overflow, PYCTN_INT), T(rows, PYCTN_INT), T(residual, PYCTN_DOUBLE), T(max_gap, PYCTN_DOUBLE),
    T(max_angle, PYCTN_DOUBLE), T(ms_total, PYCTN_DOUBLE), T(ms_colour, PYCTN_DOUBLE), T(ms_prepare, PYCTN_DOUBLE),
    T(ms_solve, PYCTN_DOUBLE), T(ms_integrate, PYCTN_DOUBLE), T(ms_transfer, PYCTN_DOUBLE), T(row_updates, PYCTN_DOUBLE),
    T(max_speed, PYCTN_DOUBLE), T(ms_collide, PYCTN_DOUBLE), T(contacts, PYCTN_INT), T(solver, PYCTN_INT),
    T(threads, PYCTN_INT), T(integrator, PYCTN_INT), T(rattle_substeps, PYCTN_INT), T(splits, PYCTN_INT),
    T(position_iterations, PYCTN_INT), T(projections, PYCTN_INT),
    T(projection_factors, PYCTN_INT), T(projection_chords, PYCTN_INT), T(newton_steps, PYCTN_INT),
    T(max_joint_gap, PYCTN_DOUBLE), T(max_penetration, PYCTN_DOUBLE), {NULL, 0, 0}};
#undef T

int pyctn_doubles(PyObject *seq, double *out, int n, const char *what) {
    PyObject *fast = PySequence_Fast(seq, "");
    if (!fast || PySequence_Fast_GET_SIZE(fast) != n) {
        Py_XDECREF(fast);
        PyErr_Format(PyExc_TypeError, "%s: expected a sequence of %d numbers", what, n);
        return -1;
    }
    for (int i = 0; i < n; ++i) {
        out[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, i));
        if (out[i] == -1.0 && PyErr_Occurred()) {
            Py_DECREF(fast);
            PyErr_Format(PyExc_TypeError, "%s[%d]: expected a number", what, i);
            return -1;
        }
    }
    Py_DECREF(fast);
    return 0;
}

static const pyctn_field *find_field(const pyctn_field *fields, const char *name) {
    for (const pyctn_field *f = fields; f->name; ++f)
        if (strcmp(f->name, name) == 0) return f;
    return NULL;
}

static int skipped(const char *const *skip, const char *name) {
    for (; skip && *skip; ++skip)
        if (strcmp(*skip, name) == 0) return 1;
    return 0;
}

/* Stores one value; -1 with TypeError naming what.name on a wrong kind. */
static int set_member(const ctn_world *world, char *base, const pyctn_field *f, PyObject *value, const char *what) {
    char label[128];
    snprintf(label, sizeof label, "%s.%s", what, f->name);
    switch (f->kind) {
    case PYCTN_DOUBLE: {
        double d = PyFloat_AsDouble(value);
        if (d == -1.0 && PyErr_Occurred()) break;
        memcpy(base + f->offset, &d, sizeof d);
        return 0;
    }
    case PYCTN_INT: {
        long v = PyLong_AsLong(value); /* bool is an int: True/False work for flags */
        if (v == -1 && PyErr_Occurred()) break;
        if (v < INT32_MIN || v > INT32_MAX) {
            PyErr_Format(PyExc_OverflowError, "%s: %ld does not fit a 32-bit int", label, v);
            return -1;
        }
        int i = (int)v;
        memcpy(base + f->offset, &i, sizeof i);
        return 0;
    }
    case PYCTN_HANDLE: {
        int64_t h;
        if (pyctn_handle(value, &h) != 0) break;
        ctn_body_id id = ctn_body_id_from_int(world, h);
        memcpy(base + f->offset, &id, sizeof id);
        return 0;
    }
    case PYCTN_VEC3:
    case PYCTN_VEC4: {
        double v[4];
        int n = f->kind == PYCTN_VEC3 ? 3 : 4;
        if (pyctn_doubles(value, v, n, label) != 0) return -1;
        memcpy(base + f->offset, v, (size_t)n * sizeof v[0]);
        return 0;
    }
    }
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s: expected %s, got %R", label, f->kind == PYCTN_DOUBLE ? "a number" : "an integer", value);
    return -1;
}

int pyctn_fill(const ctn_world *world, void *out, const pyctn_field *fields, PyObject *dict, const char *what, const char *const *skip) {
    if (!dict || dict == Py_None) return 0;
    if (!PyDict_Check(dict)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a dict", what);
        return -1;
    }
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(dict, &pos, &key, &value)) {
        const char *name = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
        if (!name) {
            PyErr_Format(PyExc_TypeError, "%s: keys must be strings, got %R", what, key);
            return -1;
        }
        if (skipped(skip, name) || value == Py_None) continue;
        const pyctn_field *f = find_field(fields, name);
        if (!f) {
            PyErr_Format(PyExc_TypeError, "%s: unknown field '%s'", what, name);
            return -1;
        }
        if (set_member(world, (char *)out, f, value, what) != 0) return -1;
    }
    return 0;
}

static PyObject *member_value(const char *base, const pyctn_field *f) {
    switch (f->kind) {
    case PYCTN_DOUBLE: {
        double d;
        memcpy(&d, base + f->offset, sizeof d);
        return PyFloat_FromDouble(d);
    }
    case PYCTN_INT: {
        int i;
        memcpy(&i, base + f->offset, sizeof i);
        return PyLong_FromLong(i);
    }
    case PYCTN_HANDLE: {
        ctn_body_id id;
        memcpy(&id, base + f->offset, sizeof id);
        return PYCTN_BODY_INT(id);
    }
    case PYCTN_VEC3:
    case PYCTN_VEC4: {
        double v[4];
        int n = f->kind == PYCTN_VEC3 ? 3 : 4;
        memcpy(v, base + f->offset, (size_t)n * sizeof v[0]);
        return n == 3 ? Py_BuildValue("(ddd)", v[0], v[1], v[2]) : Py_BuildValue("(dddd)", v[0], v[1], v[2], v[3]);
    }
    }
    return NULL;
}

PyObject *pyctn_to_dict(const void *in, const pyctn_field *fields) {
    PyObject *d = PyDict_New();
    for (const pyctn_field *f = fields; d && f->name; ++f) {
        PyObject *v = member_value((const char *)in, f);
        if (!v || PyDict_SetItemString(d, f->name, v) != 0) Py_CLEAR(d);
        Py_XDECREF(v);
    }
    return d;
}
