/* Helpers for the OpenCL tests that re-run their own executable with a changed environment: the
 * OpenCL ICD loader and PoCL read their environment once, at the first OpenCL call of a process. */
#ifndef CTN_TEST_OPENCL_CHILD_H
#define CTN_TEST_OPENCL_CHILD_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catena/catena.h"

/* The children print the library's messages on stderr, as the CLI does, for the parent to check. */
static inline void child_log_to_stderr(ctn_log_level level, const char *message, void *user) {
    (void)level, (void)user;
    fprintf(stderr, "catena: %s\n", message);
}

/* Whether this build injects device faults (-DCATENA_FAULT_INJECTION=ON): a world asking for one is
 * refused with CTN_ERR_UNSUPPORTED otherwise. */
static inline int fault_injection_built(void) {
    ctn_world_desc d = ctn_world_desc_default();
    d.backend = CTN_BACKEND_CPU;
    d.debug.fault = "build";
    ctn_world *w = NULL;
    ctn_status st = ctn_world_create(&d, &w, NULL, 0);
    ctn_world_destroy(w);
    return st == CTN_OK;
}

/* Path of the running executable. */
static int self_path(char *out, size_t size) {
    ssize_t n = readlink("/proc/self/exe", out, size - 1);
    if (n <= 0) return 0;
    out[n] = '\0';
    return 1;
}

/* Runs `env_prefix self args`, capturing stdout and stderr (each truncated to size). Returns the exit
 * status, -1 if it could not run. */
static int run_child_once(const char *env_prefix, const char *args, char *out, size_t out_size, char *err, size_t err_size) {
    char self[1024], cmd[4096], fo[64], fe[64];
    if (!self_path(self, sizeof self)) return -1;
    snprintf(fo, sizeof fo, "child-%ld.out", (long)getpid());
    snprintf(fe, sizeof fe, "child-%ld.err", (long)getpid());
    snprintf(cmd, sizeof cmd, "%s '%s' %s >%s 2>%s", env_prefix, self, args, fo, fe);
    int rc = system(cmd);
    const char *files[2] = {fo, fe};
    char *bufs[2] = {out, err};
    size_t sizes[2] = {out_size, err_size};
    for (int i = 0; i < 2; ++i) {
        bufs[i][0] = '\0';
        FILE *f = fopen(files[i], "rb");
        if (f) {
            size_t k = fread(bufs[i], 1, sizes[i] - 1, f);
            bufs[i][k] = '\0';
            fclose(f);
        }
        remove(files[i]);
    }
    if (rc == -1) return -1;
    return (rc >> 8) & 0xff;
}

/* As run_child_once, run again once when LeakSanitizer itself crashed at the child's exit ("Tracer caught
 * signal", seen once in CI on a loaded machine while PoCL's threads were exiting): that is not a leak
 * report and says nothing about the code under test. A real leak report fails as before. */
static int run_child(const char *env_prefix, const char *args, char *out, size_t out_size, char *err, size_t err_size) {
    int rc = run_child_once(env_prefix, args, out, out_size, err, err_size);
    if (rc != 0 && strstr(err, "LeakSanitizer has encountered a fatal error") && strstr(err, "Tracer caught signal"))
        rc = run_child_once(env_prefix, args, out, out_size, err, err_size);
    return rc;
}

#endif
