/* Device time of the pipeline's timed stages from profiling events: the first and last command of each
 * phase instance, read out once per step (no blocking call while the step is enqueued). */
#include "opencl/opencl_internal.h"

#include <stdlib.h>

void ctn__ocl_note_event(ctn_ocl *o, cl_event ev) {
    if (!ev) return;
    if (o->phase < 0) {
        clReleaseEvent(ev);
        return;
    }
    if (!o->phase_first) {
        o->phase_first = ev;
        return;
    }
    if (o->phase_last) clReleaseEvent(o->phase_last);
    o->phase_last = ev;
}

/* Closes the current phase instance: keeps its (first, last) events for the timing read-out. */
static void phase_end(ctn_ocl *o) {
    int ph = o->phase;
    o->phase = -1;
    if (!o->phase_first) return;
    if (o->ev_count == o->ev_cap) {
        int cap = o->ev_cap ? 2 * o->ev_cap : 64;
        cl_event *ev = ctn__realloc(o->ev, 2 * (size_t)cap * sizeof *ev);
        int *ph_arr = ev ? ctn__realloc(o->ev_phase, (size_t)cap * sizeof *ph_arr) : NULL;
        if (ev) o->ev = ev;
        if (ph_arr) o->ev_phase = ph_arr;
        if (!ev || !ph_arr) { /* timing is best effort: drop this instance rather than fail the step */
            clReleaseEvent(o->phase_first);
            if (o->phase_last) clReleaseEvent(o->phase_last);
            o->phase_first = o->phase_last = NULL;
            return;
        }
        o->ev_cap = cap;
    }
    o->ev[2 * o->ev_count] = o->phase_first;
    o->ev[2 * o->ev_count + 1] = o->phase_last;
    o->ev_phase[o->ev_count++] = ph;
    o->phase_first = o->phase_last = NULL;
}

void ctn__ocl_drop_events(ctn_ocl *o) {
    for (int i = 0; i < 2 * o->ev_count; ++i)
        if (o->ev[i]) clReleaseEvent(o->ev[i]);
    o->ev_count = 0;
    if (o->phase_first) clReleaseEvent(o->phase_first);
    if (o->phase_last) clReleaseEvent(o->phase_last);
    o->phase_first = o->phase_last = NULL;
    o->phase = -1;
}

/* Device time of each phase: from the start of its first command to the end of its last one. */
void ctn__ocl_collect_times(ctn_ocl *o, double ms[CTN_PH_COUNT]) {
    for (int i = 0; i < o->ev_count; ++i) {
        cl_event a = o->ev[2 * i], b = o->ev[2 * i + 1] ? o->ev[2 * i + 1] : o->ev[2 * i];
        cl_ulong t0 = 0, t1 = 0;
        if (clGetEventProfilingInfo(a, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL) == CL_SUCCESS &&
            clGetEventProfilingInfo(b, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL) == CL_SUCCESS && t1 >= t0)
            ms[o->ev_phase[i]] += (double)(t1 - t0) * 1e-6;
    }
    ctn__ocl_drop_events(o);
}

void ctn__ocl_phase(ctn_ocl *o, int phase) {
    if (o->phase >= 0) phase_end(o);
    o->phase = phase;
}
