/* The extension module catena._catena: exceptions by status, enum constants, module functions. The
 * friendly API is catena/world.py; this module is its thin layer over the C library. */
#include "pycatena.h"

#include <string.h>

static PyObject *error_classes; /* catena.errors.BY_STATUS: a tuple of classes indexed by ctn_status */

int pyctn_errors_init(void) {
    PyObject *errors = PyImport_ImportModule("catena.errors");
    if (!errors) return -1;
    error_classes = PyObject_GetAttrString(errors, "BY_STATUS");
    Py_DECREF(errors);
    if (!error_classes || !PyTuple_Check(error_classes) || PyTuple_GET_SIZE(error_classes) < 1) {
        PyErr_SetString(PyExc_ImportError, "catena.errors.BY_STATUS must be a non-empty tuple");
        return -1;
    }
    return 0;
}

PyObject *pyctn_raise(ctn_status status, const char *message) {
    Py_ssize_t i = (Py_ssize_t)status;
    if (i < 0 || i >= PyTuple_GET_SIZE(error_classes)) i = 0; /* slot 0 is catena.Error itself */
    PyObject *cls = PyTuple_GET_ITEM(error_classes, i);
    PyErr_SetString(cls, message && message[0] ? message : ctn_status_name(status));
    return NULL;
}

static PyObject *status_name(PyObject *module, PyObject *arg) {
    (void)module;
    long s = PyLong_AsLong(arg);
    if (s == -1 && PyErr_Occurred()) return NULL;
    return PyUnicode_FromString(ctn_status_name((ctn_status)s));
}

/* Library messages (ctn_set_log) go to a Python callable, catena._log, which hands them to the logging
 * module. They may come from a thread that released the GIL (a step), so the GIL is taken here. */
static PyObject *log_target;

static void log_to_python(ctn_log_level level, const char *message, void *user) {
    (void)user;
    PyGILState_STATE gil = PyGILState_Ensure();
    if (log_target) {
        PyObject *r = PyObject_CallFunction(log_target, "is", (int)level, message);
        if (!r) PyErr_WriteUnraisable(log_target);
        Py_XDECREF(r);
    }
    PyGILState_Release(gil);
}

static PyObject *set_log(PyObject *module, PyObject *target) {
    (void)module;
    if (target != Py_None && !PyCallable_Check(target)) return PyErr_Format(PyExc_TypeError, "set_log: expected a callable or None");
    ctn_set_log(target == Py_None ? NULL : log_to_python, NULL);
    Py_XSETREF(log_target, target == Py_None ? NULL : Py_NewRef(target));
    Py_RETURN_NONE;
}

static PyObject *set_cache_dir(PyObject *module, PyObject *args) {
    (void)module;
    const char *dir = NULL;
    if (!PyArg_ParseTuple(args, "z", &dir)) return NULL;
    if (ctn_set_cache_dir(dir) != CTN_OK) return PyErr_Format(PyExc_ValueError, "set_cache_dir: path of 1024 bytes or more");
    Py_RETURN_NONE;
}

static PyObject *get_cache_dir(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    return PyUnicode_FromString(ctn_get_cache_dir());
}

/* solid_inertia(kind, mass, size, axis) -> (Ixx, Iyy, Izz): the principal moments of a solid box
 * (size = half extents), sphere (size = (radius, 0, 0)) or capsule (size = (radius, half_length, 0), axis 0..2) of
 * that mass, by the library's ctn_inertia_* (the formulas scene files use). */
static PyObject *solid_inertia(PyObject *module, PyObject *args) {
    (void)module;
    const char *kind;
    double mass, a = 0.0, b = 0.0, c = 0.0, out[3];
    int axis = 0;
    if (!PyArg_ParseTuple(args, "sd(ddd)i", &kind, &mass, &a, &b, &c, &axis)) return NULL;
    if (!strcmp(kind, "box")) {
        const double half[3] = {a, b, c};
        ctn_inertia_box(mass, half, out);
    } else if (!strcmp(kind, "sphere")) {
        ctn_inertia_sphere(mass, a, out);
    } else if (!strcmp(kind, "capsule")) {
        ctn_inertia_capsule(mass, a, b, axis, out);
    } else {
        return PyErr_Format(PyExc_ValueError, "solid_inertia: unknown solid '%s' (box, sphere or capsule)", kind);
    }
    return Py_BuildValue("(ddd)", out[0], out[1], out[2]);
}

static PyMethodDef module_methods[] = {
    {"solid_inertia", solid_inertia, METH_VARARGS, "solid_inertia(kind, mass, size, axis) -> principal moments (kg m^2)."},
    {"set_cache_dir", set_cache_dir, METH_VARARGS, "set_cache_dir(path or None): the OpenCL binary cache directory (None: no disk cache)."},
    {"get_cache_dir", get_cache_dir, METH_NOARGS, "The OpenCL binary cache directory (\"\" when none)."},
    {"set_log", set_log, METH_O, "set_log(fn(level, message) or None): where the library's messages go."},
    {"devices", pyctn_devices, METH_NOARGS, "OpenCL devices as a list of dicts (empty without OpenCL)."},
    {"load_checkpoint", pyctn_load_checkpoint, METH_VARARGS,
     "load_checkpoint(path, desc_or_None) -> (World handle, info dict)."},
    {"world_from_scene", pyctn_world_from_scene, METH_VARARGS,
     "world_from_scene(path, desc_overrides_or_None) -> (World handle, steps): a world with the file's settings."},
    {"status_name", status_name, METH_O, "The name of a ctn_status value."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "catena._catena",
                                        "Low-level binding of the Catena C library (use the catena package).", -1,
                                        module_methods, NULL, NULL, NULL, NULL};

/* The enum values the Python layer maps names onto. */
static int add_constants(PyObject *m) {
    static const struct {
        const char *name;
        int value;
    } constants[] = {
        {"SOLVER_GS", CTN_SOLVER_GS}, {"SOLVER_JACOBI", CTN_SOLVER_JACOBI}, {"SOLVER_CG", CTN_SOLVER_CG},
        {"SOLVER_DIRECT", CTN_SOLVER_DIRECT}, {"SOLVER_AUTO", CTN_SOLVER_AUTO},
        {"BACKEND_AUTO", CTN_BACKEND_AUTO}, {"BACKEND_CPU", CTN_BACKEND_CPU}, {"BACKEND_OPENCL", CTN_BACKEND_OPENCL},
        {"STAB_SPOOK", CTN_STAB_SPOOK}, {"STAB_BAUMGARTE", CTN_STAB_BAUMGARTE},
        {"INTEGRATOR_RATTLE", CTN_INTEGRATOR_RATTLE}, {"INTEGRATOR_VELOCITY", CTN_INTEGRATOR_VELOCITY},
        {"BODY_DYNAMIC", CTN_BODY_DYNAMIC}, {"BODY_STATIC", CTN_BODY_STATIC}, {"BODY_KINEMATIC", CTN_BODY_KINEMATIC},
        {"CURVE_LINE", CTN_CURVE_LINE}, {"CURVE_CIRCLE", CTN_CURVE_CIRCLE}, {"CURVE_HELIX", CTN_CURVE_HELIX},
        {"CURVE_POLYLINE", CTN_CURVE_POLYLINE}, {"CURVE_STAB_VELOCITY", CTN_CURVE_STAB_VELOCITY},
        {"CURVE_STAB_ACCELERATION", CTN_CURVE_STAB_ACCELERATION},
        {"SHAPE_NONE", CTN_SHAPE_NONE}, {"SHAPE_SPHERE", CTN_SHAPE_SPHERE}, {"SHAPE_CAPSULE", CTN_SHAPE_CAPSULE},
        {"SHAPE_BOX", CTN_SHAPE_BOX},
        {"BODY_POSITION", CTN_BODY_POSITION}, {"BODY_ORIENTATION", CTN_BODY_ORIENTATION},
        {"BODY_VELOCITY", CTN_BODY_VELOCITY}, {"BODY_ANGULAR_VELOCITY", CTN_BODY_ANGULAR_VELOCITY},
        {"WORLD", -1 /* ctn_body_id_to_int(CTN_WORLD) */}, {"MAX_BODIES", CTN_MAX_BODIES}, {"MAX_JOINTS", CTN_MAX_JOINTS},
        {"VERSION_MAJOR", CATENA_VERSION_MAJOR}, {"VERSION_MINOR", CATENA_VERSION_MINOR},
        {"VERSION_PATCH", CATENA_VERSION_PATCH},
        {"LOG_DEBUG", CTN_LOG_DEBUG}, {"LOG_INFO", CTN_LOG_INFO}, {"LOG_WARNING", CTN_LOG_WARNING},
    };
    for (size_t i = 0; i < sizeof constants / sizeof constants[0]; ++i)
        if (PyModule_AddIntConstant(m, constants[i].name, constants[i].value) != 0) return -1;
    /* JOINT_<NAME> for every joint type, from the library's type names (ctn_joint_type_name: the joint-type
     * table), so that a new type needs no line here */
    for (int t = 0; strcmp(ctn_joint_type_name((ctn_joint_type)t), "unknown") != 0; ++t) {
        const char *name = ctn_joint_type_name((ctn_joint_type)t);
        char upper[64] = "JOINT_";
        size_t n = strlen(upper);
        for (size_t k = 0; name[k] && n + 1 < sizeof upper; ++k) upper[n++] = (char)(name[k] >= 'a' && name[k] <= 'z' ? name[k] - 'a' + 'A' : name[k]);
        upper[n] = '\0';
        if (PyModule_AddIntConstant(m, upper, t) != 0) return -1;
    }
    return 0;
}

PyMODINIT_FUNC PyInit__catena(void) {
    if (PyType_Ready(&pyctn_world_type) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    if (pyctn_errors_init() != 0 || add_constants(m) != 0) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&pyctn_world_type);
    if (PyModule_AddObject(m, "WorldHandle", (PyObject *)&pyctn_world_type) != 0) {
        Py_DECREF(&pyctn_world_type);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
