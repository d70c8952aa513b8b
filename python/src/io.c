/* Module functions: the OpenCL device list, worlds from checkpoints and from scene files with their own
 * settings. */
#include "pycatena.h"

#include <stdlib.h>

PyObject *pyctn_devices(PyObject *module, PyObject *unused) {
    (void)module, (void)unused;
    char err[512] = "";
    int count = 0;
    ctn_status st = ctn_list_devices(NULL, 0, &count, err, sizeof err);
    ctn_device_info *info = st == CTN_OK && count > 0 ? calloc((size_t)count, sizeof *info) : NULL;
    if (st == CTN_OK && count > 0 && !info) return PyErr_NoMemory();
    if (st == CTN_OK && count > 0) st = ctn_list_devices(info, count, &count, err, sizeof err);
    if (st != CTN_OK) {
        free(info);
        return pyctn_raise(st, err);
    }
    PyObject *list = PyList_New(0);
    for (int i = 0; list && i < count; ++i) {
        const ctn_device_info *d = &info[i];
        PyObject *item = Py_BuildValue("{s:i,s:i,s:s,s:s,s:s,s:s,s:s,s:O,s:i,s:d,s:d,s:O}", "platform", d->platform, "device",
                                       d->device, "platform_name", d->platform_name, "name", d->name, "vendor", d->vendor,
                                       "version", d->version, "driver", d->driver, "is_gpu", d->is_gpu ? Py_True : Py_False,
                                       "compute_units", d->compute_units, "global_memory_mib", d->global_memory_mib,
                                       "max_alloc_mib", d->max_alloc_mib, "auto_choice", d->auto_choice ? Py_True : Py_False);
        if (!item || PyList_Append(list, item) != 0) Py_CLEAR(list);
        Py_XDECREF(item);
    }
    free(info);
    return list;
}

/* Settings for a loaded world: `base` with the members the dict names changed (the device string is
 * kept alive by the dict). */
static int override_desc(ctn_world_desc *base, PyObject *dict) {
    static const char *const device_key[] = {"device", NULL};
    if (pyctn_fill(NULL, base, pyctn_world_fields, dict, "settings", device_key) != 0) return -1;
    PyObject *dev = dict && dict != Py_None ? PyDict_GetItemString(dict, "device") : NULL;
    if (dev && dev != Py_None && !(base->device = PyUnicode_AsUTF8(dev))) return -1;
    return 0;
}

/* load_checkpoint(path, overrides): the saved settings with the members in `overrides` (e.g. another
 * backend) changed; returns (handle, {"step", "user", "bodies", "joints"}). */
PyObject *pyctn_load_checkpoint(PyObject *module, PyObject *args) {
    (void)module;
    const char *path;
    PyObject *overrides = Py_None;
    if (!PyArg_ParseTuple(args, "s|O", &path, &overrides)) return NULL;
    char err[1024] = "";
    ctn_checkpoint_info *info = calloc(1, sizeof *info);
    if (!info) return PyErr_NoMemory();
    ctn_status st;
    Py_BEGIN_ALLOW_THREADS
    st = ctn_checkpoint_read_info(path, info, err, sizeof err);
    Py_END_ALLOW_THREADS
    ctn_world *w = NULL;
    if (st == CTN_OK) {
        ctn_world_desc desc = info->desc; /* desc.device points into info */
        if (override_desc(&desc, overrides) != 0) {
            free(info);
            return NULL;
        }
        Py_BEGIN_ALLOW_THREADS
        st = ctn_world_load(path, &desc, &w, NULL, err, sizeof err); /* desc.device may point into info */
        Py_END_ALLOW_THREADS
    }
    if (st != CTN_OK) {
        free(info);
        return pyctn_raise(st, err);
    }
    PyObject *meta = Py_BuildValue("{s:K,s:s,s:i,s:i}", "step", (unsigned long long)info->step, "user", info->user, "bodies",
                                   (int)info->bodies, "joints", (int)info->joints);
    free(info);
    PyObject *handle = pyctn_world_wrap(w);
    if (!meta || !handle) {
        Py_XDECREF(meta);
        Py_XDECREF(handle);
        return NULL;
    }
    return Py_BuildValue("(NN)", handle, meta);
}

/* world_from_scene(path, overrides): a world with the scene file's settings (overrides applied) and its
 * bodies and joints; returns (handle, the file's step count). */
PyObject *pyctn_world_from_scene(PyObject *module, PyObject *args) {
    (void)module;
    const char *path;
    PyObject *overrides = Py_None;
    if (!PyArg_ParseTuple(args, "s|O", &path, &overrides)) return NULL;
    char err[1024] = "";
    ctn_scene *scene = NULL;
    ctn_status st;
    Py_BEGIN_ALLOW_THREADS
    st = ctn_scene_parse_file(path, &scene, err, sizeof err);
    Py_END_ALLOW_THREADS
    if (st != CTN_OK) return pyctn_raise(st, err);
    ctn_world_desc desc;
    int steps = 0;
    ctn_world *w = NULL;
    st = ctn_scene_get_settings(scene, &desc, &steps);
    if (st == CTN_OK && override_desc(&desc, overrides) != 0) {
        ctn_scene_free(scene);
        return NULL;
    }
    if (st == CTN_OK) {
        Py_BEGIN_ALLOW_THREADS
        st = ctn_world_create(&desc, &w, err, sizeof err);
        if (st == CTN_OK && (st = ctn_scene_build(scene, w)) != CTN_OK) snprintf(err, sizeof err, "%s", ctn_world_last_error(w));
        Py_END_ALLOW_THREADS
    }
    ctn_scene_free(scene);
    if (st != CTN_OK) {
        ctn_world_destroy(w);
        return pyctn_raise(st, err[0] ? err : "scene settings");
    }
    PyObject *handle = pyctn_world_wrap(w);
    return handle ? Py_BuildValue("(Ni)", handle, steps) : NULL;
}
