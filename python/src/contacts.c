/* Contacts: points supplied by the caller's own collision pipeline (ctn_contact_add / _update), the live
 * contact list of the last step, and the built-in collision detection's settings. */
#include "pycatena.h"

#include <stdlib.h>

PyObject *pyctn_add_contact(pyctn_world *self, PyObject *dict) {
    if (pyctn_world_ready(self) != 0) return NULL;
    ctn_contact_desc desc = ctn_contact_desc_default();
    if (pyctn_fill(self->world, &desc, pyctn_contact_fields, dict, "contact", NULL) != 0) return NULL;
    ctn_joint_id id;
    ctn_status st = ctn_contact_add(self->world, &desc, &id);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    return PYCTN_JOINT_INT(id);
}

PyObject *pyctn_update_contact(pyctn_world *self, PyObject *args) {
    long long id;
    PyObject *dict;
    if (!PyArg_ParseTuple(args, "LO!", &id, &PyDict_Type, &dict)) return NULL;
    if (pyctn_world_ready(self) != 0) return NULL;
    ctn_contact_desc desc = ctn_contact_desc_default();
    if (pyctn_fill(self->world, &desc, pyctn_contact_fields, dict, "contact", NULL) != 0) return NULL;
    ctn_status st = ctn_contact_update(self->world, PYCTN_JOINT(self, id), &desc);
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    Py_RETURN_NONE;
}

/* contacts(): the live contacts (built-in and user) as a list of ctn_contact_info dicts. */
PyObject *pyctn_contacts(pyctn_world *self, PyObject *unused) {
    (void)unused;
    if (pyctn_world_ready(self) != 0) return NULL;
    int count = 0;
    ctn_status st = ctn_world_get_contacts(self->world, NULL, 0, &count);
    ctn_contact_info *info = st == CTN_OK && count > 0 ? calloc((size_t)count, sizeof *info) : NULL;
    if (st == CTN_OK && count > 0 && !info) return PyErr_NoMemory();
    if (st == CTN_OK && count > 0) st = ctn_world_get_contacts(self->world, info, count, &count);
    if (st != CTN_OK) {
        free(info);
        return pyctn_world_raise(self, st);
    }
    PyObject *list = PyList_New(0);
    for (int i = 0; list && i < count; ++i) {
        PyObject *item = pyctn_to_dict(&info[i], pyctn_contact_info_fields);
        if (!item || PyList_Append(list, item) != 0) Py_CLEAR(list);
        Py_XDECREF(item);
    }
    free(info);
    return list;
}

/* collision(dict or None): changes the members the dict names; returns the settings in effect. */
PyObject *pyctn_collision(pyctn_world *self, PyObject *dict) {
    if (pyctn_world_ready(self) != 0) return NULL;
    ctn_collision_desc desc;
    ctn_status st = ctn_world_get_collision(self->world, &desc);
    if (st == CTN_OK && dict != Py_None) {
        if (pyctn_fill(self->world, &desc, pyctn_collision_fields, dict, "collision", NULL) != 0) return NULL;
        st = ctn_world_set_collision(self->world, &desc);
    }
    if (st != CTN_OK) return pyctn_world_raise(self, st);
    return pyctn_to_dict(&desc, pyctn_collision_fields);
}
