/* Building worlds: bodies, joints with their options (pivot, limits, motor, rope), shapes, planes and the
 * scene generators. Descriptions arrive as dicts keyed by the C member names (fields.c). */
#include "pycatena.h"

#include <string.h>

PyObject *pyctn_add_body(pyctn_world *self, PyObject *dict) {
    if (pyctn_world_ready(self) != 0) return NULL;
    ctn_body_desc desc = ctn_body_desc_default();
    if (pyctn_fill(self->world, &desc, pyctn_body_fields, dict, "body", NULL) != 0) return NULL;
    ctn_body_id id;
    ctn_status st = ctn_body_add(self->world, &desc, &id);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    return PYCTN_BODY_INT(id);
}

/* Joint options applied after ctn_joint_add; they are not ctn_joint_desc members. */
static const char *const joint_options[] = {"pivot", "limits", "motor", "rope", "swing_limit", NULL};

/* The pair (a, b) of a "limits" or "motor" entry. */
static int pair_of(PyObject *dict, const char *key, int *present, double out[2]) {
    PyObject *v = PyDict_GetItemString(dict, key);
    *present = v && v != Py_None;
    if (!*present) return 0;
    char what[32];
    snprintf(what, sizeof what, "joint.%s", key);
    return pyctn_doubles(v, out, 2, what);
}

/* Applies limits, motor, rope and swing cone to the new joint; CTN_OK or the failing call's status. */
static ctn_status joint_options_apply(ctn_world *w, ctn_joint_id id, int has_limits, const double limits[2], int has_motor,
                                      const double motor[2], int rope, PyObject *swing) {
    ctn_status st = CTN_OK;
    if (swing) st = ctn_joint_set_swing_limit(w, id, 1, PyFloat_AsDouble(swing));
    if (has_limits) st = ctn_joint_set_limits(w, id, 1, limits[0], limits[1]);
    if (st == CTN_OK && has_motor) st = ctn_joint_set_motor(w, id, 1, motor[0], motor[1]);
    if (st == CTN_OK && rope) st = ctn_joint_set_rope(w, id, 1);
    return st;
}

/* add_joint(dict): a ctn_joint_desc plus "pivot" (world point: both anchors from the current poses, with
 * "axis" as the hinge axis), "limits" (lower, upper), "motor" (speed, max_torque) and "rope" (bool). When
 * an option is refused the joint is removed again and the option's error raised. */
PyObject *pyctn_add_joint(pyctn_world *self, PyObject *dict) {
    if (pyctn_world_ready(self) != 0) return NULL;
    if (!PyDict_Check(dict)) return PyErr_Format(PyExc_TypeError, "joint: expected a dict");
    ctn_joint_desc desc = ctn_joint_desc_default(CTN_JOINT_BALL);
    PyObject *type = PyDict_GetItemString(dict, "type");
    if (type) { /* the type first: it chooses the defaults */
        long t = PyLong_AsLong(type);
        if (t == -1 && PyErr_Occurred()) return NULL;
        desc = ctn_joint_desc_default((ctn_joint_type)t);
    }
    if (pyctn_fill(self->world, &desc, pyctn_joint_fields, dict, "joint", joint_options) != 0) return NULL;
    double limits[2], motor[2], pivot[3];
    int has_limits, has_motor;
    if (pair_of(dict, "limits", &has_limits, limits) != 0 || pair_of(dict, "motor", &has_motor, motor) != 0) return NULL;
    PyObject *rope_obj = PyDict_GetItemString(dict, "rope");
    int rope = rope_obj ? PyObject_IsTrue(rope_obj) : 0;
    if (rope < 0) return NULL;
    PyObject *swing = PyDict_GetItemString(dict, "swing_limit");
    if (swing == Py_None) swing = NULL;
    if (swing && PyFloat_AsDouble(swing) == -1.0 && PyErr_Occurred()) return NULL;
    PyObject *pivot_obj = PyDict_GetItemString(dict, "pivot");
    ctn_status st = CTN_OK;
    if (pivot_obj && pivot_obj != Py_None) {
        if (pyctn_doubles(pivot_obj, pivot, 3, "joint.pivot") != 0) return NULL;
        PyObject *axis_obj = PyDict_GetItemString(dict, "axis");
        double axis[3] = {desc.axis[0], desc.axis[1], desc.axis[2]};
        st = ctn_joint_desc_set_pivot(self->world, &desc, pivot, axis_obj && axis_obj != Py_None ? axis : NULL);
        if (st != CTN_OK) return pyctn_world_raise(self, st);
    }
    ctn_joint_id id;
    st = ctn_joint_add(self->world, &desc, &id);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    st = joint_options_apply(self->world, id, has_limits, limits, has_motor, motor, rope, swing);
    if (st != CTN_OK) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", ctn_world_last_error(self->world));
        ctn_joint_remove(self->world, id);
        return pyctn_raise(st, msg);
    }
    return PYCTN_JOINT_INT(id);
}

/* add_curve(dict): a ctn_curve_desc (its C member names) with "points" a sequence of (x, y, z) vertices for a
 * polyline. Returns the joint handle. */
PyObject *pyctn_add_curve(pyctn_world *self, PyObject *dict) {
    static const char *const options[] = {"points", NULL};
    if (pyctn_world_ready(self) != 0) return NULL;
    if (!PyDict_Check(dict)) return PyErr_Format(PyExc_TypeError, "curve: expected a dict");
    PyObject *type = PyDict_GetItemString(dict, "type");
    long t = type ? PyLong_AsLong(type) : CTN_CURVE_LINE;
    if (t == -1 && PyErr_Occurred()) return NULL;
    ctn_curve_desc desc = ctn_curve_desc_default((ctn_curve_type)t);
    if (pyctn_fill(self->world, &desc, pyctn_curve_fields, dict, "curve", options) != 0) return NULL;
    PyObject *pts = PyDict_GetItemString(dict, "points");
    double *v = NULL;
    if (pts && pts != Py_None) {
        PyObject *seq = PySequence_Fast(pts, "curve.points: expected a sequence of (x, y, z)");
        if (!seq) return NULL;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
        if (n > CTN_CURVE_MAX_POINTS) {
            Py_DECREF(seq);
            return PyErr_Format(PyExc_ValueError, "curve.points: %zd vertices exceed %d", n, CTN_CURVE_MAX_POINTS);
        }
        v = PyMem_Malloc((size_t)(n ? n : 1) * 3 * sizeof *v);
        if (!v) {
            Py_DECREF(seq);
            return PyErr_NoMemory();
        }
        for (Py_ssize_t i = 0; i < n; ++i) {
            char what[48];
            snprintf(what, sizeof what, "curve.points[%zd]", i);
            if (pyctn_doubles(PySequence_Fast_GET_ITEM(seq, i), &v[3 * i], 3, what) != 0) {
                Py_DECREF(seq);
                PyMem_Free(v);
                return NULL;
            }
        }
        Py_DECREF(seq);
        desc.points = v;
        desc.count = (int)n;
    }
    ctn_joint_id id;
    ctn_status st = ctn_curve_constraint_add(self->world, &desc, &id);
    PyMem_Free(v);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    return PYCTN_JOINT_INT(id);
}

/* curve_parameter(joint): ctn_curve_constraint_parameter. */
PyObject *pyctn_curve_parameter(pyctn_world *self, PyObject *arg) {
    if (pyctn_world_ready(self) != 0) return NULL;
    int64_t id;
    if (pyctn_handle(arg, &id) != 0) return NULL;
    double t = 0.0;
    ctn_status st = ctn_curve_constraint_parameter(self->world, PYCTN_JOINT(self, id), &t);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    return PyFloat_FromDouble(t);
}

PyObject *pyctn_set_shape(pyctn_world *self, PyObject *args) {
    long long body;
    PyObject *dict;
    if (!PyArg_ParseTuple(args, "LO!", &body, &PyDict_Type, &dict)) return NULL;
    if (pyctn_world_ready(self) != 0) return NULL;
    PyObject *type = PyDict_GetItemString(dict, "type");
    long t = type ? PyLong_AsLong(type) : CTN_SHAPE_SPHERE;
    if (t == -1 && PyErr_Occurred()) return NULL;
    ctn_shape_desc shape = ctn_shape_desc_default((ctn_shape_type)t);
    if (pyctn_fill(self->world, &shape, pyctn_shape_fields, dict, "shape", NULL) != 0) return NULL;
    ctn_status st = ctn_body_set_shape(self->world, PYCTN_BODY(self, body), &shape);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    Py_RETURN_NONE;
}

/* add_shape(body, shape dict): ctn_body_add_shape; returns the shape's index on the body. */
PyObject *pyctn_add_shape(pyctn_world *self, PyObject *args) {
    long long body;
    PyObject *dict;
    if (!PyArg_ParseTuple(args, "LO!", &body, &PyDict_Type, &dict)) return NULL;
    if (pyctn_world_ready(self) != 0) return NULL;
    PyObject *type = PyDict_GetItemString(dict, "type");
    long t = type ? PyLong_AsLong(type) : CTN_SHAPE_SPHERE;
    if (t == -1 && PyErr_Occurred()) return NULL;
    ctn_shape_desc shape = ctn_shape_desc_default((ctn_shape_type)t);
    if (pyctn_fill(self->world, &shape, pyctn_shape_fields, dict, "shape", NULL) != 0) return NULL;
    int32_t index = 0;
    ctn_status st = ctn_body_add_shape(self->world, PYCTN_BODY(self, body), &shape, &index);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    return PyLong_FromLong(index);
}

/* shape_count(body): ctn_body_shape_count. */
PyObject *pyctn_shape_count(pyctn_world *self, PyObject *arg) {
    if (pyctn_world_ready(self) != 0) return NULL;
    int64_t id;
    if (pyctn_handle(arg, &id) != 0) return NULL;
    int32_t n = 0;
    ctn_status st = ctn_body_shape_count(self->world, PYCTN_BODY(self, id), &n);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    return PyLong_FromLong(n);
}

PyObject *pyctn_add_plane(pyctn_world *self, PyObject *args) {
    PyObject *normal_obj;
    double normal[3], offset, friction, restitution;
    if (!PyArg_ParseTuple(args, "Oddd", &normal_obj, &offset, &friction, &restitution)) return NULL;
    if (pyctn_doubles(normal_obj, normal, 3, "plane.normal") != 0) return NULL;
    if (pyctn_world_ready(self) != 0) return NULL;
    int index;
    ctn_status st = ctn_world_add_plane(self->world, normal, offset, friction, restitution, &index);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    return PyLong_FromLong(index);
}

PyObject *pyctn_add_chain(pyctn_world *self, PyObject *dict) {
    if (pyctn_world_ready(self) != 0) return NULL;
    PyObject *links = PyDict_Check(dict) ? PyDict_GetItemString(dict, "links") : NULL;
    if (!links) return PyErr_Format(PyExc_TypeError, "chain: 'links' is required");
    long n = PyLong_AsLong(links);
    if (n == -1 && PyErr_Occurred()) return NULL;
    ctn_chain_desc desc = ctn_chain_desc_default((int)n);
    if (pyctn_fill(self->world, &desc, pyctn_chain_fields, dict, "chain", NULL) != 0) return NULL;
    ctn_body_id first;
    ctn_status st = ctn_scene_chain(self->world, &desc, &first);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    return PYCTN_BODY_INT(first);
}

/* The generators other than the chain, by name, with their integer counts (and the grid's spacing). */
PyObject *pyctn_generate(pyctn_world *self, PyObject *args) {
    const char *name;
    int n = 0, ny = 0;
    double spacing = 0.1;
    if (!PyArg_ParseTuple(args, "s|iid", &name, &n, &ny, &spacing)) return NULL;
    if (pyctn_world_ready(self) != 0) return NULL;
    ctn_world *w = self->world;
    ctn_status st;
    if (strcmp(name, "grid") == 0) st = ctn_scene_grid(w, n, ny, spacing);
    else if (strcmp(name, "bridge") == 0) st = ctn_scene_bridge(w, n);
    else if (strcmp(name, "cradle") == 0) st = ctn_scene_cradle(w, n);
    else if (strcmp(name, "double_pendulum") == 0) st = ctn_scene_double_pendulum(w);
    else if (strcmp(name, "capsule_chain") == 0) st = ctn_scene_capsule_chain(w, n);
    else if (strcmp(name, "pile") == 0) st = ctn_scene_pile(w, n);
    else if (strcmp(name, "bridge_limits") == 0) st = ctn_scene_bridge_limits(w, n);
    else if (strcmp(name, "wheel") == 0) st = ctn_scene_wheel(w);
    else if (strcmp(name, "contact_cradle") == 0) st = ctn_scene_contact_cradle(w, n);
    else return PyErr_Format(PyExc_ValueError, "generate: unknown generator '%s'", name);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    Py_RETURN_NONE;
}
