/* The World handle type: creation from a settings dict, settings, stepping without the GIL, statistics,
 * removal, scenes and checkpoints. Bodies, joints and generators are in build.c, bulk arrays in bulk.c. */
#include "pycatena.h"

#include <string.h>

PyObject *pyctn_world_raise(pyctn_world *self, ctn_status status) {
    return pyctn_raise(status, ctn_world_last_error(self->world));
}

int pyctn_world_ready(pyctn_world *self) {
    if (!self->world) {
        PyErr_SetString(PyExc_RuntimeError, "the world was closed");
        return -1;
    }
    if (self->busy) { /* catena.BusyError (a RuntimeError), as the library's CTN_ERR_BUSY */
        pyctn_raise(CTN_ERR_BUSY, "the world is in use by another thread (step, load_scene or save); wait for that call to return");
        return -1;
    }
    return 0;
}

PyObject *pyctn_world_wrap(ctn_world *w) {
    pyctn_world *self = PyObject_New(pyctn_world, &pyctn_world_type);
    if (!self) {
        ctn_world_destroy(w);
        return NULL;
    }
    self->world = w;
    self->busy = 0;
    self->steps = 0, self->time = 0.0;
    return (PyObject *)self;
}

static const char *const device_key[] = {"device", NULL};

/* desc from the defaults and the dict; *device is the dict's "device" string (borrowed) or NULL. */
static int desc_from_dict(ctn_world_desc *desc, PyObject *dict, const char **device) {
    if (pyctn_fill(NULL, desc, pyctn_world_fields, dict, "World", device_key) != 0) return -1;
    PyObject *dev = dict && PyDict_Check(dict) ? PyDict_GetItemString(dict, "device") : NULL;
    if (dev && dev != Py_None) {
        *device = PyUnicode_Check(dev) ? PyUnicode_AsUTF8(dev) : NULL;
        if (!*device) {
            PyErr_SetString(PyExc_TypeError, "World.device: expected a string");
            return -1;
        }
    }
    return 0;
}

static int world_init(pyctn_world *self, PyObject *args, PyObject *kwargs) {
    PyObject *dict = NULL;
    if (kwargs && PyDict_Size(kwargs) > 0) {
        PyErr_SetString(PyExc_TypeError, "WorldHandle(settings_dict) takes no keyword arguments");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "|O", &dict)) return -1;
    if (self->busy) return pyctn_world_ready(self); /* __init__ called again while another thread uses it */
    ctn_world_desc desc = ctn_world_desc_default();
    if (desc_from_dict(&desc, dict, &desc.device) != 0) return -1;
    ctn_world *w = NULL;
    char err[1024] = "";
    ctn_status st;
    Py_BEGIN_ALLOW_THREADS /* an OpenCL context and program build can take seconds */
    st = ctn_world_create(&desc, &w, err, sizeof err);
    Py_END_ALLOW_THREADS
    if (st != CTN_OK) {
        pyctn_raise(st, err);
        return -1;
    }
    if (self->world) ctn_world_destroy(self->world);
    self->steps = 0, self->time = 0.0;
    self->world = w;
    self->busy = 0;
    return 0;
}

static void world_dealloc(pyctn_world *self) {
    if (self->world) ctn_world_destroy(self->world);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *world_close(pyctn_world *self, PyObject *unused) {
    (void)unused;
    if (self->busy) return pyctn_world_ready(self), NULL;
    if (self->world) ctn_world_destroy(self->world);
    self->world = NULL;
    Py_RETURN_NONE;
}

static PyObject *world_get_desc(pyctn_world *self, PyObject *unused) {
    (void)unused;
    if (pyctn_world_ready(self) != 0) return NULL;
    ctn_world_desc desc;
    ctn_status st = ctn_world_get_desc(self->world, &desc);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    PyObject *d = pyctn_to_dict(&desc, pyctn_world_fields);
    PyObject *dev = desc.device ? PyUnicode_FromString(desc.device) : Py_NewRef(Py_None);
    if (d && dev && PyDict_SetItemString(d, "device", dev) == 0) {
        Py_DECREF(dev);
        return d;
    }
    Py_XDECREF(dev);
    Py_XDECREF(d);
    return NULL;
}

static PyObject *world_set_desc(pyctn_world *self, PyObject *dict) {
    if (pyctn_world_ready(self) != 0) return NULL;
    ctn_world_desc desc;
    ctn_status st = ctn_world_get_desc(self->world, &desc);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    if (desc_from_dict(&desc, dict, &desc.device) != 0) return NULL;
    st = ctn_world_set_desc(self->world, &desc);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    Py_RETURN_NONE;
}

/* step(n): n steps, each without the GIL; Ctrl-C (a pending signal) stops between two steps. */
static PyObject *world_step(pyctn_world *self, PyObject *args) {
    long n = 1;
    if (!PyArg_ParseTuple(args, "|l", &n)) return NULL;
    if (n < 0) return PyErr_Format(PyExc_ValueError, "step: n = %ld is negative", n);
    if (pyctn_world_ready(self) != 0) return NULL;
    ctn_world_desc desc;
    ctn_status st = ctn_world_get_desc(self->world, &desc);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    self->busy = 1;
    for (long i = 0; i < n; ++i) {
        Py_BEGIN_ALLOW_THREADS
        st = ctn_world_step(self->world);
        Py_END_ALLOW_THREADS
        if (st != CTN_OK) {
            self->busy = 0;
            return pyctn_world_raise(self, st);
        }
        self->steps++; /* counted before a Ctrl-C stops the loop: the step happened */
        self->time += desc.time_step;
        if (PyErr_CheckSignals() != 0) {
            self->busy = 0;
            return NULL;
        }
    }
    self->busy = 0;
    Py_RETURN_NONE;
}

static PyObject *world_stats(pyctn_world *self, PyObject *unused) {
    (void)unused;
    if (pyctn_world_ready(self) != 0) return NULL;
    ctn_step_stats s;
    ctn_status st = ctn_world_get_stats(self->world, &s);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    PyObject *d = pyctn_to_dict(&s, pyctn_stats_fields), *why = d ? PyUnicode_FromString(s.solver_reason) : NULL;
    PyObject *iwhy = why ? PyUnicode_FromString(s.integrator_reason) : NULL;
    if (!iwhy || PyDict_SetItemString(d, "solver_reason", why) != 0 || PyDict_SetItemString(d, "integrator_reason", iwhy) != 0) {
        Py_XDECREF(iwhy);
        Py_XDECREF(why);
        Py_XDECREF(d);
        return NULL;
    }
    Py_DECREF(iwhy);
    Py_DECREF(why);
    return d;
}

static PyObject *world_measure(pyctn_world *self, PyObject *unused) {
    (void)unused;
    if (pyctn_world_ready(self) != 0) return NULL;
    double gap, angle;
    ctn_status st = ctn_world_measure(self->world, &gap, &angle);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    return Py_BuildValue("(dd)", gap, angle);
}

static PyObject *world_measure_contacts(pyctn_world *self, PyObject *unused) {
    (void)unused;
    if (pyctn_world_ready(self) != 0) return NULL;
    double depth;
    ctn_status st = ctn_world_measure_contacts(self->world, &depth);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    return PyFloat_FromDouble(depth);
}

/* clock() -> (steps, time); set_clock(steps, time). */
static PyObject *world_clock(pyctn_world *self, PyObject *unused) {
    (void)unused;
    return Py_BuildValue("(Kd)", self->steps, self->time);
}

static PyObject *world_set_clock(pyctn_world *self, PyObject *args) {
    unsigned long long steps;
    double time;
    if (!PyArg_ParseTuple(args, "Kd", &steps, &time)) return NULL;
    self->steps = steps, self->time = time;
    Py_RETURN_NONE;
}

static PyObject *world_info(pyctn_world *self, PyObject *unused) {
    (void)unused;
    if (pyctn_world_ready(self) != 0) return NULL;
    int bodies = 0, joints = 0;
    ctn_world_id_counts(self->world, &bodies, &joints);
    return Py_BuildValue("{s:s,s:s,s:i,s:i,s:i,s:i}", "backend", ctn_world_backend_name(self->world), "device",
                         ctn_world_device_name(self->world), "body_slots", bodies, "joint_slots", joints, "bodies",
                         ctn_world_body_count(self->world), "joints", ctn_world_joint_count(self->world));
}

/* A method taking one id and calling fn(world, id). */
#define ID_METHOD(pyname, call, HANDLE)                                                                                  \
    static PyObject *pyname(pyctn_world *self, PyObject *arg) {                                                         \
        int64_t id;                                                                                                     \
        if (pyctn_handle(arg, &id) != 0 || pyctn_world_ready(self) != 0) return NULL;                                   \
        ctn_status st = call(self->world, HANDLE(self, id));                                                            \
        if (st != CTN_OK) return pyctn_world_raise(self, st);                                                           \
        Py_RETURN_NONE;                                                                                                 \
    }
ID_METHOD(world_remove_body, ctn_body_remove, PYCTN_BODY)
ID_METHOD(world_remove_joint, ctn_joint_remove, PYCTN_JOINT)
ID_METHOD(world_detach, ctn_attach_remove, PYCTN_BODY)
#undef ID_METHOD

static PyObject *world_set_force(pyctn_world *self, PyObject *args) {
    long long id;
    PyObject *fo, *to;
    double f[3], t[3];
    if (!PyArg_ParseTuple(args, "LOO", &id, &fo, &to)) return NULL;
    if (pyctn_doubles(fo, f, 3, "force") != 0 || pyctn_doubles(to, t, 3, "torque") != 0) return NULL;
    if (pyctn_world_ready(self) != 0) return NULL;
    ctn_status st = ctn_body_set_force(self->world, PYCTN_BODY(self, id), f, t);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    Py_RETURN_NONE;
}

static PyObject *world_joint_angle(pyctn_world *self, PyObject *arg) {
    int64_t id;
    if (pyctn_handle(arg, &id) != 0 || pyctn_world_ready(self) != 0) return NULL;
    double angle;
    ctn_status st = ctn_joint_get_angle(self->world, PYCTN_JOINT(self, id), &angle);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    return PyFloat_FromDouble(angle);
}

/* A joint coordinate read by `get` (swing angle, slider position). */
static PyObject *joint_value(pyctn_world *self, PyObject *arg, ctn_status (*get)(ctn_world *, ctn_joint_id, double *)) {
    int64_t id;
    if (pyctn_handle(arg, &id) != 0 || pyctn_world_ready(self) != 0) return NULL;
    double v;
    ctn_status st = get(self->world, PYCTN_JOINT(self, id), &v);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    return PyFloat_FromDouble(v);
}

static PyObject *world_joint_swing(pyctn_world *self, PyObject *arg) { return joint_value(self, arg, ctn_joint_get_swing); }
static PyObject *world_joint_translation(pyctn_world *self, PyObject *arg) { return joint_value(self, arg, ctn_joint_get_translation); }

static PyObject *world_set_rest_length(pyctn_world *self, PyObject *args) {
    long long id;
    double length;
    if (!PyArg_ParseTuple(args, "Ld", &id, &length)) return NULL;
    if (pyctn_world_ready(self) != 0) return NULL;
    ctn_status st = ctn_joint_set_rest_length(self->world, PYCTN_JOINT(self, id), length);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    Py_RETURN_NONE;
}

/* set_limits(joint, enabled, lower, upper): ctn_joint_set_limits; set_motor(joint, enabled, speed,
 * max_torque): ctn_joint_set_motor. */
static PyObject *world_set_limits_or_motor(pyctn_world *self, PyObject *args, int motor) {
    long long id;
    int enabled;
    double a, b;
    if (!PyArg_ParseTuple(args, "Lpdd", &id, &enabled, &a, &b)) return NULL;
    if (pyctn_world_ready(self) != 0) return NULL;
    ctn_status st = motor ? ctn_joint_set_motor(self->world, PYCTN_JOINT(self, id), enabled, a, b)
                         : ctn_joint_set_limits(self->world, PYCTN_JOINT(self, id), enabled, a, b);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    Py_RETURN_NONE;
}
static PyObject *world_set_limits(pyctn_world *self, PyObject *args) { return world_set_limits_or_motor(self, args, 0); }
static PyObject *world_set_motor(pyctn_world *self, PyObject *args) { return world_set_limits_or_motor(self, args, 1); }

/* limits(joint) -> (enabled, lower, upper); motor(joint) -> (enabled, speed, max_torque). */
static PyObject *world_limits_or_motor(pyctn_world *self, PyObject *arg, int motor) {
    long long id = PyLong_AsLongLong(arg);
    if (id == -1 && PyErr_Occurred()) return NULL;
    if (pyctn_world_ready(self) != 0) return NULL;
    int on = 0;
    double a = 0.0, b = 0.0;
    ctn_status st = motor ? ctn_joint_get_motor(self->world, PYCTN_JOINT(self, id), &on, &a, &b)
                         : ctn_joint_get_limits(self->world, PYCTN_JOINT(self, id), &on, &a, &b);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    return Py_BuildValue("(Odd)", on ? Py_True : Py_False, a, b);
}
static PyObject *world_limits(pyctn_world *self, PyObject *arg) { return world_limits_or_motor(self, arg, 0); }
static PyObject *world_motor(pyctn_world *self, PyObject *arg) { return world_limits_or_motor(self, arg, 1); }

/* body_desc(body) -> dict (ctn_body_get_desc: mass, inertia, ...). */
static PyObject *world_body_desc(pyctn_world *self, PyObject *arg) {
    long long id = PyLong_AsLongLong(arg);
    if (id == -1 && PyErr_Occurred()) return NULL;
    if (pyctn_world_ready(self) != 0) return NULL;
    ctn_body_desc d;
    ctn_status st = ctn_body_get_desc(self->world, PYCTN_BODY(self, id), &d);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    return pyctn_to_dict(&d, pyctn_body_fields);
}

/* save_scene(path): ctn_scene_save_json. */
static PyObject *world_save_scene(pyctn_world *self, PyObject *arg) {
    const char *path = PyUnicode_Check(arg) ? PyUnicode_AsUTF8(arg) : NULL;
    if (!path) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "save_scene: expected a path string");
        return NULL;
    }
    if (pyctn_world_ready(self) != 0) return NULL;
    ctn_status st = ctn_scene_save_json(self->world, path);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    Py_RETURN_NONE;
}

/* attach(body, master, point or None): ctn_attach_point. */
static PyObject *world_attach(pyctn_world *self, PyObject *args) {
    long long body, master;
    PyObject *po;
    double point[3];
    if (!PyArg_ParseTuple(args, "LLO", &body, &master, &po)) return NULL;
    if (po != Py_None && pyctn_doubles(po, point, 3, "point") != 0) return NULL;
    if (pyctn_world_ready(self) != 0) return NULL;
    ctn_status st = ctn_attach_point(self->world, PYCTN_BODY(self, body), PYCTN_BODY(self, master), po == Py_None ? NULL : point);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    Py_RETURN_NONE;
}

/* attachment(body) -> (master, (x, y, z)) or None: ctn_attach_get. */
static PyObject *world_attachment(pyctn_world *self, PyObject *arg) {
    int64_t id;
    if (pyctn_handle(arg, &id) != 0 || pyctn_world_ready(self) != 0) return NULL;
    ctn_body_id master;
    double p[3];
    ctn_status st = ctn_attach_get(self->world, PYCTN_BODY(self, id), &master, p);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    if (ctn_body_is_world(master)) Py_RETURN_NONE;
    return Py_BuildValue("L(ddd)", (long long)ctn_body_id_to_int(master), p[0], p[1], p[2]);
}

static PyObject *world_set_name(pyctn_world *self, PyObject *args) {
    long long id;
    const char *name;
    if (!PyArg_ParseTuple(args, "Ls", &id, &name)) return NULL;
    if (pyctn_world_ready(self) != 0) return NULL;
    ctn_status st = ctn_body_set_name(self->world, PYCTN_BODY(self, id), name);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    Py_RETURN_NONE;
}

static PyObject *world_find_body(pyctn_world *self, PyObject *arg) {
    const char *name = PyUnicode_AsUTF8(arg);
    if (!name || pyctn_world_ready(self) != 0) return NULL;
    ctn_body_id id;
    ctn_status st = ctn_body_find(self->world, name, &id);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    return PYCTN_BODY_INT(id);
}

static PyObject *world_find_joint(pyctn_world *self, PyObject *arg) {
    const char *name = PyUnicode_AsUTF8(arg);
    if (!name || pyctn_world_ready(self) != 0) return NULL;
    ctn_joint_id id;
    ctn_status st = ctn_joint_find(self->world, name, &id);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    return PYCTN_JOINT_INT(id);
}

/* load_scene(kind, text[, self_collision]): kind "file" loads a JSON scene file, "spec" runs a generator spec,
 * "urdf" a URDF file (its links colliding with each other when self_collision is true). Returns the
 * importer's report (URDF: what was approximated or ignored; "" otherwise). */
static PyObject *world_load_scene(pyctn_world *self, PyObject *args) {
    const char *kind, *text;
    int self_collision = 0;
    if (!PyArg_ParseTuple(args, "ss|p", &kind, &text, &self_collision)) return NULL;
    if (pyctn_world_ready(self) != 0) return NULL;
    ctn_status st;
    char err[1024] = "";
    int file = strcmp(kind, "file") == 0, urdf = strcmp(kind, "urdf") == 0;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    st = urdf ? ctn_scene_load_urdf_ex(self->world, text, self_collision, err, sizeof err)
         : file ? ctn_scene_load_json(self->world, text, err, sizeof err) : ctn_scene_from_spec(self->world, text);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (st != CTN_OK) return file || urdf ? pyctn_raise(st, err) : pyctn_world_raise(self, st);
    return PyUnicode_FromString(urdf ? err : "");
}

static PyObject *world_save(pyctn_world *self, PyObject *args) {
    const char *path, *user = NULL;
    unsigned long long step = 0;
    if (!PyArg_ParseTuple(args, "s|Kz", &path, &step, &user)) return NULL;
    if (pyctn_world_ready(self) != 0) return NULL;
    ctn_status st;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    st = ctn_world_save(self->world, path, (uint64_t)step, user);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    Py_RETURN_NONE;
}

static PyMethodDef world_methods[] = {
    {"close", (PyCFunction)world_close, METH_NOARGS, "Frees the world now."},
    {"get_desc", (PyCFunction)world_get_desc, METH_NOARGS, "Settings as a dict (ctn_world_desc)."},
    {"set_desc", (PyCFunction)world_set_desc, METH_O, "Changes settings named in a dict (ctn_world_set_desc)."},
    {"step", (PyCFunction)world_step, METH_VARARGS, "step(n=1): n time steps without the GIL."},
    {"clock", (PyCFunction)world_clock, METH_NOARGS, "clock() -> (steps, time): steps taken and simulated seconds."},
    {"set_clock", (PyCFunction)world_set_clock, METH_VARARGS, "set_clock(steps, time)."},
    {"stats", (PyCFunction)world_stats, METH_NOARGS, "ctn_step_stats of the last step as a dict."},
    {"measure", (PyCFunction)world_measure, METH_NOARGS, "(max joint gap m, max angle rad) of the current state, contacts excluded."},
    {"measure_contacts", (PyCFunction)world_measure_contacts, METH_NOARGS, "Deepest contact penetration (m) of the current state."},
    {"info", (PyCFunction)world_info, METH_NOARGS, "Backend, device, slot ranges and live counts."},
    {"remove_body", (PyCFunction)world_remove_body, METH_O, "ctn_body_remove."},
    {"remove_joint", (PyCFunction)world_remove_joint, METH_O, "ctn_joint_remove."},
    {"set_force", (PyCFunction)world_set_force, METH_VARARGS, "set_force(id, force, torque)."},
    {"joint_angle", (PyCFunction)world_joint_angle, METH_O, "Hinge angle or cone-twist twist angle (rad)."},
    {"joint_swing", (PyCFunction)world_joint_swing, METH_O, "Cone-twist swing angle (rad)."},
    {"joint_translation", (PyCFunction)world_joint_translation, METH_O, "Slider position (m)."},
    {"set_rest_length", (PyCFunction)world_set_rest_length, METH_VARARGS, "set_rest_length(joint, metres)."},
    {"set_name", (PyCFunction)world_set_name, METH_VARARGS, "set_name(body, name)."},
    {"set_limits", (PyCFunction)world_set_limits, METH_VARARGS, "set_limits(joint, enabled, lower, upper)."},
    {"set_motor", (PyCFunction)world_set_motor, METH_VARARGS, "set_motor(joint, enabled, speed, max_torque)."},
    {"limits", (PyCFunction)world_limits, METH_O, "limits(joint) -> (enabled, lower, upper)."},
    {"motor", (PyCFunction)world_motor, METH_O, "motor(joint) -> (enabled, speed, max_torque)."},
    {"body_desc", (PyCFunction)world_body_desc, METH_O, "body_desc(body) -> dict (ctn_body_get_desc)."},
    {"save_scene", (PyCFunction)world_save_scene, METH_O, "save_scene(path): ctn_scene_save_json."},
    {"attach", (PyCFunction)world_attach, METH_VARARGS, "attach(body, master, point or None): ctn_attach_point."},
    {"detach", (PyCFunction)world_detach, METH_O, "ctn_attach_remove."},
    {"attachment", (PyCFunction)world_attachment, METH_O, "attachment(body) -> (master, point) or None."},
    {"find_body", (PyCFunction)world_find_body, METH_O, "find_body(name) -> handle."},
    {"find_joint", (PyCFunction)world_find_joint, METH_O, "find_joint(name) -> handle."},
    {"load_scene", (PyCFunction)world_load_scene, METH_VARARGS, "load_scene('file'|'spec'|'urdf', text, self_collision=False) -> report."},
    {"save", (PyCFunction)world_save, METH_VARARGS, "save(path, step=0, user=None): a checkpoint."},
    {"add_body", (PyCFunction)pyctn_add_body, METH_O, "add_body(desc dict) -> id."},
    {"add_joint", (PyCFunction)pyctn_add_joint, METH_O, "add_joint(desc dict with limits/motor/rope/pivot) -> id."},
    {"add_curve", (PyCFunction)pyctn_add_curve, METH_O, "add_curve(ctn_curve_desc dict, points as (x, y, z) rows) -> id."},
    {"curve_parameter", (PyCFunction)pyctn_curve_parameter, METH_O, "curve_parameter(joint) -> t."},
    {"set_shape", (PyCFunction)pyctn_set_shape, METH_VARARGS, "set_shape(body, shape dict)."},
    {"add_shape", (PyCFunction)pyctn_add_shape, METH_VARARGS, "add_shape(body, shape dict) -> index."},
    {"shape_count", (PyCFunction)pyctn_shape_count, METH_O, "shape_count(body)."},
    {"add_plane", (PyCFunction)pyctn_add_plane, METH_VARARGS, "add_plane(normal, offset, friction, restitution) -> index."},
    {"add_chain", (PyCFunction)pyctn_add_chain, METH_O, "add_chain(ctn_chain_desc dict) -> the first link's handle."},
    {"generate", (PyCFunction)pyctn_generate, METH_VARARGS, "generate(name, *args): a scene generator."},
    {"add_contact", (PyCFunction)pyctn_add_contact, METH_O, "add_contact(ctn_contact_desc dict) -> handle."},
    {"update_contact", (PyCFunction)pyctn_update_contact, METH_VARARGS, "update_contact(handle, dict)."},
    {"contacts", (PyCFunction)pyctn_contacts, METH_NOARGS, "The live contacts as dicts (ctn_contact_info)."},
    {"collision", (PyCFunction)pyctn_collision, METH_O, "collision(dict or None) -> the collision settings."},
    {"read_bodies", (PyCFunction)pyctn_read_bodies, METH_VARARGS, "read_bodies(field, buffer) -> rows."},
    {"write_bodies", (PyCFunction)pyctn_write_bodies, METH_VARARGS, "write_bodies(field, buffer)."},
    {"read_joint_errors", (PyCFunction)pyctn_read_joint_errors, METH_VARARGS, "read_joint_errors(gap, angle)."},
    {"read_joint_forces", (PyCFunction)pyctn_read_joint_forces, METH_O, "read_joint_forces(buffer of rows of 6)."},
    {"read_contact_depths", (PyCFunction)pyctn_read_contact_depths, METH_O, "read_contact_depths(buffer) -> rows."},
    {"assemble", (PyCFunction)pyctn_assemble, METH_VARARGS, "assemble(settings dict, target dicts) -> report dict."},
    {NULL, NULL, 0, NULL}};

PyTypeObject pyctn_world_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "catena._catena.WorldHandle",
    .tp_basicsize = sizeof(pyctn_world),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One ctn_world (use catena.World).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)world_init,
    .tp_dealloc = (destructor)world_dealloc,
    .tp_methods = world_methods,
};
