/* Readable diagnostics for malformed JSON. cJSON parses the scene files; when it refuses a text it only
 * gives an error offset. This module turns a refused text into "line:column: what was expected". */
#ifndef CTN_JSON_DIAGNOSE_H
#define CTN_JSON_DIAGNOSE_H

#include <stddef.h>

/* Line and column (both from 1, column in bytes) of byte offset `offset` of text. */
void ctn__json_line_col(const char *text, size_t length, size_t offset, int *line, int *col);

/* Describes the first syntax error of text (which cJSON refused): writes "LINE:COL: message" to msg.
 * `fallback_offset` (cJSON_GetErrorPtr) is used for the position when the scan finds nothing wrong
 * (e.g. cJSON's nesting limit). */
void ctn__json_diagnose(const char *text, size_t length, size_t fallback_offset, char *msg, size_t msg_size);

/* The control characters cJSON would let through: it skips every byte <= 0x20 between tokens as white
 * space (NUL included) and copies raw control bytes into strings, where a NUL (raw or \u0000) silently cuts
 * the string short. Returns 1 when text has none (outside strings: only space, tab, LF, CR; inside:
 * none, and no \u0000), else 0 with "LINE:COL: message" in msg. Run before cJSON. */
int ctn__json_check_controls(const char *text, size_t length, char *msg, size_t msg_size);

#endif
