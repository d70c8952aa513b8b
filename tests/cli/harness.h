/* The CLI tests' harness (tests/cli/harness.c), shared by cli_test.c and cli_flags.c. */
#ifndef CTN_CLI_HARNESS_H
#define CTN_CLI_HARNESS_H

#include "check.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <sys/types.h>

extern const char *g_catena, *g_src, *g_work; /* the catena executable, the source tree, a scratch directory */
extern char g_stderr[65536];                  /* stderr of the last run() */

char *path_in(const char *dir, const char *name); /* malloc'd DIR/NAME */
char *read_all(const char *path, size_t *len);     /* malloc'd contents, NUL-terminated; NULL when unreadable */
pid_t spawn(char *const argv[], const char *out, const char *err);
int wait_code(pid_t pid); /* the exit code, 1000 + signal when killed */
/* Runs catena with the given arguments (NULL-terminated); returns the exit code, stderr in g_stderr,
 * stdout in WORK/stdout.txt (last_stdout()). */
int run(const char *first, ...);
char *last_stdout(void);
int file_exists(const char *p);
int no_temp_files(const char *dir); /* no PATH.tmp.* left in dir */
int xml_well_formed(const char *text, const char *root);
int xmllint_ok(const char *path);
void check_xml(const char *path, const char *root);
void check_csv(const char *path, int bodies, int frames);
/* The JSON summary at path (NULL when missing or malformed) and its fields ("" or -1 when absent). */
cJSON *read_summary(const char *path);
const char *summary_string(const cJSON *j, const char *key);
double summary_number(const cJSON *j, const char *key);

/* check.h keeps its counters per file: each file adds its own to the caller's before the report. */
void harness_tally(int *checks, int *failures);
void flags_tally(int *checks, int *failures);

void check_flags(void); /* tests/cli/cli_flags.c */

#endif
