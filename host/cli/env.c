/* What the command-line tool takes from its environment. The library never reads the environment: the
 * tool turns these variables into ctn_world_desc fields and routes the library's messages to stderr.
 *
 *   CATENA_QUIET=1          no library messages on stderr (as --quiet)
 *   CATENA_DEVICE=D         OpenCL device when neither the scene nor --device names one
 *   CATENA_FAULT=NAME[@N]   desc.debug.fault (builds with -DCATENA_FAULT_INJECTION=ON)
 *   CATENA_DIRECT_TREE, CATENA_TREE_BAND, CATENA_TREE_SEGMENT, CATENA_TREE_LOCAL_ONE   desc.debug knobs
 *   CATENA_DIRECT_TRACE=1   desc.debug.trace
 *   CATENA_CACHE_DIR=DIR    the OpenCL binary cache (ctn_set_cache_dir), else $XDG_CACHE_HOME/catena, else
 *                           $HOME/.cache/catena */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static void print_message(ctn_log_level level, const char *message, void *user) {
    (void)user;
    fprintf(stderr, "catena: %s%s\n", level == CTN_LOG_WARNING ? "warning: " : "", message);
}

int ctn_cli_quiet_env(void) {
    const char *q = getenv("CATENA_QUIET");
    return q && q[0] && strcmp(q, "0") != 0;
}

void ctn_cli_env_cache_dir(void) {
    char dir[1024] = "";
    const char *d = getenv("CATENA_CACHE_DIR");
    if (d && d[0]) snprintf(dir, sizeof dir, "%s", d);
    else if ((d = getenv("XDG_CACHE_HOME")) && d[0]) snprintf(dir, sizeof dir, "%s/catena", d);
    else if ((d = getenv("HOME")) && d[0]) snprintf(dir, sizeof dir, "%s/.cache/catena", d);
    if (ctn_set_cache_dir(dir) != CTN_OK) fprintf(stderr, "catena: warning: the cache directory %s is too long; no program cache\n", dir);
}

void ctn_cli_set_quiet(int quiet) { ctn_set_log(quiet || ctn_cli_quiet_env() ? NULL : print_message, NULL); }

static void env_int(const char *name, int *out) {
    const char *v = getenv(name);
    if (v && v[0]) *out = atoi(v);
}

void ctn_cli_env_desc(ctn_world_desc *d) {
    const char *dev = getenv("CATENA_DEVICE");
    if ((!d->device || !d->device[0]) && dev && dev[0]) d->device = dev;
    const char *fault = getenv("CATENA_FAULT");
    if (fault && fault[0]) d->debug.fault = fault;
    env_int("CATENA_DIRECT_TREE", &d->debug.direct_tree);
    env_int("CATENA_TREE_BAND", &d->debug.tree_band);
    env_int("CATENA_TREE_SEGMENT", &d->debug.tree_segment);
    env_int("CATENA_TREE_LOCAL_ONE", &d->debug.tree_local_one);
    env_int("CATENA_DIRECT_TRACE", &d->debug.trace);
}
