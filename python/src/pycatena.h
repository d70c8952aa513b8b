/* Shared declarations of the CPython extension `catena._catena`: the World handle type, conversion of
 * the library's description structs to and from dicts, and Catena errors raised as Python exceptions. */
#ifndef PYCATENA_H
#define PYCATENA_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <catena/catena.h>

#include <stddef.h>

/* One member of a description struct, read from / written to a dict under its C name. Enums are stored
 * as int (checked in fields.c); PYCTN_HANDLE is a 64-bit body or joint handle (ctn_body_id). */
typedef enum pyctn_kind { PYCTN_DOUBLE, PYCTN_INT, PYCTN_HANDLE, PYCTN_VEC3, PYCTN_VEC4 } pyctn_kind;
typedef struct pyctn_field {
    const char *name;
    pyctn_kind kind;
    size_t offset;
} pyctn_field;
#define PYCTN_FIELD(type, member, kind) {#member, kind, offsetof(type, member)}

/* Sets the members named by the dict's keys (NULL or None: nothing); `skip` (may be NULL) lists keys the
 * caller handles itself. An unknown key or a value of the wrong kind raises TypeError naming `what.key`.
 * Returns 0, or -1 with the exception set. */
int pyctn_fill(const ctn_world *world, void *out, const pyctn_field *fields, PyObject *dict, const char *what, const char *const *skip);
/* A new dict of all the members. */
PyObject *pyctn_to_dict(const void *in, const pyctn_field *fields);
/* Handles cross the Python boundary as ints: ctn_body_id_to_int's `generation << 32 | index` (catena.WORLD is
 * -1), the same numbers the CLI and the VTK files show. The World an int is given to supplies the world the
 * handle belongs to (ctn_body_id_from_int). pyctn_handle reads the int; -1 with the exception set on failure. */
int pyctn_handle(PyObject *obj, int64_t *out);
#define PYCTN_BODY(self, v) ctn_body_id_from_int((self)->world, (v))
#define PYCTN_JOINT(self, v) ctn_joint_id_from_int((self)->world, (v))
#define PYCTN_BODY_INT(id) PyLong_FromLongLong((long long)ctn_body_id_to_int(id))
#define PYCTN_JOINT_INT(id) PyLong_FromLongLong((long long)ctn_joint_id_to_int(id))
/* Reads a sequence of n floats (3 or 4) into out; -1 with TypeError naming `what` otherwise. */
int pyctn_doubles(PyObject *seq, double *out, int n, const char *what);

extern const pyctn_field pyctn_world_fields[];
extern const pyctn_field pyctn_body_fields[];
extern const pyctn_field pyctn_joint_fields[];
extern const pyctn_field pyctn_curve_fields[];
extern const pyctn_field pyctn_chain_fields[];
extern const pyctn_field pyctn_shape_fields[];
extern const pyctn_field pyctn_stats_fields[];
extern const pyctn_field pyctn_contact_fields[];
extern const pyctn_field pyctn_contact_info_fields[];
extern const pyctn_field pyctn_collision_fields[];

/* Raises the catena.Error subclass of `status` (catena/errors.py) with `message` (the status name when
 * empty); returns NULL. */
PyObject *pyctn_raise(ctn_status status, const char *message);
/* Loads the exception classes; called once at module import. */
int pyctn_errors_init(void);

/* The World handle: owns one ctn_world. `busy` is set (under the GIL) while a call on it runs without the
 * GIL (step, load_scene, save), so that another thread cannot use the world meanwhile. */
typedef struct pyctn_world {
    PyObject_HEAD
    ctn_world *world;
    int busy;
    /* The simulation clock: steps completed by step() and their summed time steps (s); the library keeps
     * no clock, so the binding counts (restored by World.reset and World.load). */
    unsigned long long steps;
    double time;
} pyctn_world;

extern PyTypeObject pyctn_world_type;
/* A new handle owning w. */
PyObject *pyctn_world_wrap(ctn_world *w);
/* 0 when the world can be used now; -1 with RuntimeError set while it is closed, catena.BusyError (a
 * RuntimeError; the library's CTN_ERR_BUSY) while it is busy in another thread. */
int pyctn_world_ready(pyctn_world *self);
/* World.assemble (assemble.c). */
PyObject *pyctn_assemble(pyctn_world *self, PyObject *args);
/* Raises the world's last error for `status`. */
PyObject *pyctn_world_raise(pyctn_world *self, ctn_status status);

/* Methods of the handle implemented outside world.c (build.c: bodies, joints, shapes, generators;
 * contacts.c: user contacts and collision settings; bulk.c: NumPy-side buffers). */
PyObject *pyctn_add_body(pyctn_world *self, PyObject *desc);
PyObject *pyctn_add_joint(pyctn_world *self, PyObject *desc);
PyObject *pyctn_add_curve(pyctn_world *self, PyObject *desc);
PyObject *pyctn_curve_parameter(pyctn_world *self, PyObject *joint);
PyObject *pyctn_set_shape(pyctn_world *self, PyObject *args);
PyObject *pyctn_add_shape(pyctn_world *self, PyObject *args);
PyObject *pyctn_shape_count(pyctn_world *self, PyObject *arg);
PyObject *pyctn_add_plane(pyctn_world *self, PyObject *args);
PyObject *pyctn_add_chain(pyctn_world *self, PyObject *desc);
PyObject *pyctn_generate(pyctn_world *self, PyObject *args);
PyObject *pyctn_add_contact(pyctn_world *self, PyObject *desc);
PyObject *pyctn_update_contact(pyctn_world *self, PyObject *args);
PyObject *pyctn_contacts(pyctn_world *self, PyObject *unused);
PyObject *pyctn_collision(pyctn_world *self, PyObject *desc);
PyObject *pyctn_read_bodies(pyctn_world *self, PyObject *args);
PyObject *pyctn_write_bodies(pyctn_world *self, PyObject *args);
PyObject *pyctn_read_joint_errors(pyctn_world *self, PyObject *args);
PyObject *pyctn_read_joint_forces(pyctn_world *self, PyObject *buffer);
PyObject *pyctn_read_contact_depths(pyctn_world *self, PyObject *buffer);

/* Module functions of io.c: OpenCL devices and checkpoints. */
PyObject *pyctn_devices(PyObject *module, PyObject *unused);
PyObject *pyctn_load_checkpoint(PyObject *module, PyObject *args);
PyObject *pyctn_world_from_scene(PyObject *module, PyObject *args);

#endif
