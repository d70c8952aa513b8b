/* The benchmarks pass the OpenCL binary cache directory as the CLI does (the library reads no environment
 * variable): $CATENA_CACHE_DIR, else $XDG_CACHE_HOME/catena, else $HOME/.cache/catena, before main runs. */
#ifndef CTN_BENCH_ENV_H
#define CTN_BENCH_ENV_H

#include "catena/catena.h"

#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor)) static void bench_cache_dir(void) {
    char dir[1024] = "";
    const char *d = getenv("CATENA_CACHE_DIR");
    if (d && d[0]) snprintf(dir, sizeof dir, "%s", d);
    else if ((d = getenv("XDG_CACHE_HOME")) && d[0]) snprintf(dir, sizeof dir, "%s/catena", d);
    else if ((d = getenv("HOME")) && d[0]) snprintf(dir, sizeof dir, "%s/.cache/catena", d);
    ctn_set_cache_dir(dir);
}

#endif
