/* World.assemble: ctn_world_assemble with its settings and IK targets from Python dicts, the report as a dict. */
#include "pycatena.h"

#include <stdlib.h>

#define D(m, k) PYCTN_FIELD(ctn_assemble_desc, m, k)
static const pyctn_field desc_fields[] = {D(tolerance, PYCTN_DOUBLE), D(gather_iterations, PYCTN_INT), D(gather_tolerance, PYCTN_DOUBLE),
                                          D(newton_iterations, PYCTN_INT), D(keep_velocities, PYCTN_INT), {NULL, 0, 0}};
#undef D
#define T(m, k) PYCTN_FIELD(ctn_assemble_target, m, k)
static const pyctn_field target_fields[] = {T(body, PYCTN_HANDLE), T(point, PYCTN_VEC3), T(target, PYCTN_VEC3), T(weight, PYCTN_DOUBLE),
                                            {NULL, 0, 0}};
#undef T
#define R(m, k) PYCTN_FIELD(ctn_assemble_report, m, k)
static const pyctn_field report_fields[] = {R(gather_iterations, PYCTN_INT), R(newton_iterations, PYCTN_INT), R(initial_gap, PYCTN_DOUBLE),
                                            R(initial_angle, PYCTN_DOUBLE),  R(max_gap, PYCTN_DOUBLE),        R(max_angle, PYCTN_DOUBLE),
                                            R(target_distance, PYCTN_DOUBLE), R(max_move, PYCTN_DOUBLE),     R(open_joints, PYCTN_INT),
                                            {NULL, 0, 0}};
#undef R

/* assemble(settings dict or None, sequence of target dicts) -> report dict; the assembly runs without the GIL. */
PyObject *pyctn_assemble(pyctn_world *self, PyObject *args) {
    PyObject *settings = NULL, *targets = NULL;
    if (!PyArg_ParseTuple(args, "OO", &settings, &targets)) return NULL;
    if (pyctn_world_ready(self) != 0) return NULL;
    ctn_assemble_desc d = ctn_assemble_desc_default();
    if (settings != Py_None && pyctn_fill(self->world, &d, desc_fields, settings, "assemble", NULL) != 0) return NULL;
    PyObject *fast = PySequence_Fast(targets, "assemble: targets must be a sequence of dicts");
    if (!fast) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > 1000000) {
        Py_DECREF(fast);
        return PyErr_Format(PyExc_ValueError, "assemble: %zd targets exceed the limit of 1000000", n);
    }
    ctn_assemble_target *t = calloc((size_t)n + 1, sizeof *t);
    if (!t) {
        Py_DECREF(fast);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t k = 0; k < n; ++k) {
        t[k].weight = 1.0;
        if (pyctn_fill(self->world, &t[k], target_fields, PySequence_Fast_GET_ITEM(fast, k), "assemble target", NULL) != 0) {
            free(t);
            Py_DECREF(fast);
            return NULL;
        }
    }
    Py_DECREF(fast);
    d.targets = t, d.target_count = (int)n;
    ctn_assemble_report r;
    ctn_status st;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    st = ctn_world_assemble(self->world, &d, &r);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    free(t);
    if (st != CTN_OK) return pyctn_raise(st, ctn_world_last_error(self->world));
    return pyctn_to_dict(&r, report_fields);
}
