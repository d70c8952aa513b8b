/* Shared pieces of the catena command-line tool. */
#ifndef CTN_CLI_H
#define CTN_CLI_H

#include "catena/catena.h"

/* Exit codes (documented in README.md). */
enum {
    CTN_EXIT_OK = 0,
    CTN_EXIT_USAGE = 2,    /* bad command line */
    CTN_EXIT_SCENE = 3,    /* bad scene */
    CTN_EXIT_DEVICE = 4,   /* device or solver failure */
    CTN_EXIT_DIVERGED = 5  /* the simulation diverged */
};

int ctn_cli_parse_solver(const char *s, ctn_solver *out);
int ctn_cli_parse_backend(const char *s, ctn_backend *out);
const char *ctn_cli_solver_name(ctn_solver s);

/* `catena devices [--verbose]` (host/cli/devices.c). */
int ctn_cli_devices(int argc, char **argv);

#endif
