/* Writing JSON text: the one string writer of the library's and the tools' JSON outputs (scene files,
 * the CLI's run summary, the benchmarks' results). */
#ifndef CTN_JSON_WRITE_H
#define CTN_JSON_WRITE_H

#include <stdio.h>

/* Writes s as a JSON string: quoted, with quotes and backslashes escaped and control characters as
 * \u00XX (RFC 8259, section 7); NULL is written as null. */
void ctn__json_write_string(FILE *f, const char *s);

#endif
