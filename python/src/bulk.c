/* Bulk state through the buffer protocol: the Python layer allocates C-contiguous float64 NumPy arrays
 * of the right shape and the library reads or writes all rows in one call (host/core/bulk.c), so there is
 * no per-body Python loop and the extension needs no NumPy headers. */
#include "pycatena.h"

#include <string.h>

/* Gets a C-contiguous float64 view of obj (writable when asked); -1 with TypeError. */
static int double_buffer(PyObject *obj, Py_buffer *view, int writable, const char *what) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) != 0) return -1;
    if (view->itemsize != (Py_ssize_t)sizeof(double) || !view->format || strcmp(view->format, "d") != 0) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_TypeError, "%s: expected a contiguous float64 array", what);
        return -1;
    }
    return 0;
}

/* Rows of `width` doubles the buffer holds, or -1 with ValueError when it holds no whole number of rows
 * or more than INT_MAX of them. */
static int row_count(const Py_buffer *view, int width, const char *what) {
    Py_ssize_t n = view->len / (Py_ssize_t)sizeof(double);
    if (width <= 0 || n % width != 0 || n / width > INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "%s: %zd values are not rows of %d", what, n, width);
        return -1;
    }
    return (int)(n / width);
}

static int field_of(int field, int *width) {
    *width = ctn_body_field_width((ctn_body_field)field);
    if (*width == 0) {
        PyErr_Format(PyExc_ValueError, "unknown body field %d", field);
        return -1;
    }
    return 0;
}

/* read_bodies / write_bodies(field, buffer): one field of every body slot between the buffer and the
 * world; returns the rows read, or None after a write. */
static PyObject *body_field_call(pyctn_world *self, PyObject *args, int write) {
    const char *what = write ? "write_bodies" : "read_bodies";
    int field, width, written = 0;
    PyObject *obj;
    if (!PyArg_ParseTuple(args, "iO", &field, &obj) || field_of(field, &width) != 0) return NULL;
    if (pyctn_world_ready(self) != 0) return NULL;
    Py_buffer view;
    if (double_buffer(obj, &view, !write, what) != 0) return NULL;
    int rows = row_count(&view, width, what);
    ctn_status st = CTN_OK;
    if (rows >= 0 && write) st = ctn_world_set_body_field(self->world, (ctn_body_field)field, view.buf, rows);
    if (rows >= 0 && !write) st = ctn_world_get_body_field(self->world, (ctn_body_field)field, view.buf, rows, &written);
    PyBuffer_Release(&view);
    if (rows < 0) return NULL;
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    if (write) Py_RETURN_NONE;
    return PyLong_FromLong(written);
}

PyObject *pyctn_read_bodies(pyctn_world *self, PyObject *args) { return body_field_call(self, args, 0); }
PyObject *pyctn_write_bodies(pyctn_world *self, PyObject *args) { return body_field_call(self, args, 1); }

/* read_joint_errors(gap, angle): two float64 buffers of one value per joint slot (either may be None). */
PyObject *pyctn_read_joint_errors(pyctn_world *self, PyObject *args) {
    PyObject *objs[2];
    if (!PyArg_ParseTuple(args, "OO", &objs[0], &objs[1])) return NULL;
    if (pyctn_world_ready(self) != 0) return NULL;
    Py_buffer views[2];
    double *bufs[2] = {NULL, NULL};
    int rows = INT32_MAX, ok = 1;
    for (int k = 0; k < 2; ++k) {
        if (objs[k] == Py_None || !ok) continue;
        if (double_buffer(objs[k], &views[k], 1, "read_joint_errors") != 0) {
            ok = 0;
            objs[k] = Py_None;
            continue;
        }
        bufs[k] = views[k].buf;
        int n = row_count(&views[k], 1, "read_joint_errors");
        rows = n < rows ? n : rows;
    }
    int written = 0;
    ctn_status st = ok ? ctn_world_get_joint_errors(self->world, bufs[0], bufs[1], rows, &written) : CTN_OK;
    for (int k = 0; k < 2; ++k)
        if (objs[k] != Py_None) PyBuffer_Release(&views[k]);
    if (!ok) return NULL;
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    return PyLong_FromLong(written);
}

/* read_contact_depths(buffer): the penetration (m) of the contact in each joint slot, 0 for every other slot
 * (ctn_world_get_contact_depths). */
PyObject *pyctn_read_contact_depths(pyctn_world *self, PyObject *obj) {
    if (pyctn_world_ready(self) != 0) return NULL;
    Py_buffer view;
    if (double_buffer(obj, &view, 1, "read_contact_depths") != 0) return NULL;
    int rows = row_count(&view, 1, "read_contact_depths"), written = 0;
    ctn_status st = rows < 0 ? CTN_OK : ctn_world_get_contact_depths(self->world, view.buf, rows, &written);
    PyBuffer_Release(&view);
    if (rows < 0) return NULL;
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    return PyLong_FromLong(written);
}

/* read_joint_forces(buffer): rows of (force xyz N, torque xyz N m) the joint in each slot applied to its
 * body a in the last substep (ctn_world_get_joint_forces). */
PyObject *pyctn_read_joint_forces(pyctn_world *self, PyObject *obj) {
    if (pyctn_world_ready(self) != 0) return NULL;
    Py_buffer view;
    if (double_buffer(obj, &view, 1, "read_joint_forces") != 0) return NULL;
    int rows = row_count(&view, 6, "read_joint_forces"), written = 0;
    ctn_status st = rows < 0 ? CTN_OK : ctn_world_get_joint_forces(self->world, view.buf, rows, &written);
    PyBuffer_Release(&view);
    if (rows < 0) return NULL;
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    return PyLong_FromLong(written);
}
