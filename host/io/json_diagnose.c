/* Diagnostics for JSON that cJSON refused. cJSON reports only a byte offset (and not always the offset of
 * the real mistake), so after a failed cJSON parse this module re-scans the text with the JSON grammar's
 * token rules to find the first offending byte and to name what was expected there ("expected ',' or '}'
 * after a member value", "trailing comma", "unterminated string starting at 3:12", ...). It builds
 * nothing: the scene itself is always parsed by cJSON. */
#include "io/json_diagnose.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define DIAG_MAX_DEPTH 1000 /* cJSON's CJSON_NESTING_LIMIT */

void ctn__json_line_col(const char *text, size_t length, size_t offset, int *line, int *col) {
    int l = 1, c = 1;
    if (offset > length) offset = length;
    for (size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n') {
            ++l;
            c = 1;
        } else {
            ++c;
        }
    }
    *line = l;
    *col = c;
}

typedef struct diag {
    const char *t;
    size_t n;
    char *msg;
    size_t size;
} diag;

static void report(diag *d, size_t at, const char *fmt, ...) {
    int line, col;
    ctn__json_line_col(d->t, d->n, at, &line, &col);
    int k = snprintf(d->msg, d->size, "%d:%d: ", line, col);
    if (k < 0 || (size_t)k >= d->size) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->msg + k, d->size - (size_t)k, fmt, ap);
    va_end(ap);
}

/* Shows the text at p for a message: a short quoted excerpt or "end of file". */
static void excerpt(const diag *d, size_t p, char *out, size_t size) {
    if (p >= d->n) {
        snprintf(out, size, "end of file");
        return;
    }
    size_t k = 0;
    out[k++] = '\'';
    for (size_t i = p; i < d->n && k + 2 < size && i < p + 12; ++i) {
        unsigned char c = (unsigned char)d->t[i];
        if (i > p && (isspace(c) || c == ',' || c == '}' || c == ']' || c == ':')) break;
        out[k++] = isprint(c) ? (char)c : '?';
    }
    out[k++] = '\'';
    out[k] = '\0';
}

/* Scans a string starting at the quote at *p; returns 0 (and reports) on a bad string. */
static int scan_string(diag *d, size_t *p) {
    size_t start = *p, i = start + 1;
    while (i < d->n) {
        unsigned char c = (unsigned char)d->t[i];
        if (c == '"') {
            *p = i + 1;
            return 1;
        }
        if (c < 0x20) {
            report(d, i, "control character 0x%02x inside a string (a line break needs \\n; did a string miss its closing '\"'?)", c);
            return 0;
        }
        if (c == '\\') {
            if (i + 1 >= d->n) break;
            char e = d->t[i + 1];
            if (e == 'u') {
                for (int k = 2; k < 6; ++k)
                    if (i + (size_t)k >= d->n || !isxdigit((unsigned char)d->t[i + (size_t)k])) {
                        report(d, i, "invalid \\u escape in string: expected 4 hexadecimal digits");
                        return 0;
                    }
                i += 6;
                continue;
            }
            if (!strchr("\"\\/bfnrt", e) || e == '\0') {
                report(d, i, "invalid escape '\\%c' in string (valid: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)", e);
                return 0;
            }
            i += 2;
            continue;
        }
        ++i;
    }
    report(d, start, "unterminated string: expected a closing '\"'");
    return 0;
}

/* Scans a number per the JSON grammar; returns 0 (and reports) when malformed. */
static int scan_number(diag *d, size_t *p) {
    size_t i = *p, start = i;
    const char *t = d->t;
    if (i < d->n && t[i] == '-') ++i;
    if (i >= d->n || !isdigit((unsigned char)t[i])) {
        report(d, start, "invalid number: expected a digit after '-'");
        return 0;
    }
    if (t[i] == '0' && i + 1 < d->n && isdigit((unsigned char)t[i + 1])) {
        report(d, start, "invalid number: numbers cannot have leading zeros");
        return 0;
    }
    while (i < d->n && isdigit((unsigned char)t[i])) ++i;
    if (i < d->n && t[i] == '.') {
        ++i;
        if (i >= d->n || !isdigit((unsigned char)t[i])) {
            report(d, start, "invalid number: expected a digit after the decimal point");
            return 0;
        }
        while (i < d->n && isdigit((unsigned char)t[i])) ++i;
    }
    if (i < d->n && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        if (i < d->n && (t[i] == '+' || t[i] == '-')) ++i;
        if (i >= d->n || !isdigit((unsigned char)t[i])) {
            report(d, start, "invalid number: expected a digit in the exponent");
            return 0;
        }
        while (i < d->n && isdigit((unsigned char)t[i])) ++i;
    }
    if (i < d->n && (isalnum((unsigned char)t[i]) || t[i] == '.' || t[i] == '_')) {
        char ex[32];
        excerpt(d, start, ex, sizeof ex);
        report(d, start, "invalid number %s", ex);
        return 0;
    }
    *p = i;
    return 1;
}

enum { E_VALUE, E_VALUE_OR_CLOSE, E_KEY, E_KEY_OR_CLOSE, E_COLON, E_COMMA_OR_CLOSE, E_END };

void ctn__json_diagnose(const char *text, size_t length, size_t fallback_offset, char *msg, size_t msg_size) {
    diag d = {text, length, msg, msg_size};
    char stack[DIAG_MAX_DEPTH];
    size_t opened[DIAG_MAX_DEPTH];
    int depth = 0, expect = E_VALUE;
    size_t p = 0;
    char ex[32];
    if (msg_size) msg[0] = '\0';
    if (length >= 3 && (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB && (unsigned char)text[2] == 0xBF) p = 3;
    for (;;) {
        while (p < length && (text[p] == ' ' || text[p] == '\t' || text[p] == '\n' || text[p] == '\r')) ++p;
        if (p >= length) {
            if (expect == E_END) break;
            if (depth == 0) {
                report(&d, p, "unexpected end of file: expected a JSON value (the file is empty?)");
            } else {
                int line, col;
                ctn__json_line_col(text, length, opened[depth - 1], &line, &col);
                report(&d, p, "unexpected end of file: expected '%c' to close the %s opened at %d:%d", stack[depth - 1] == '{' ? '}' : ']',
                       stack[depth - 1] == '{' ? "object" : "array", line, col);
            }
            return;
        }
        char c = text[p];
        if (c == '\0') {
            report(&d, p, "NUL byte in the file: a JSON scene file is text");
            return;
        }
        int value_done = 0;
        switch (expect) {
        case E_VALUE:
        case E_VALUE_OR_CLOSE:
            if (c == ']' && expect == E_VALUE_OR_CLOSE) {
                --depth;
                ++p;
                value_done = 1;
            } else if (c == '{' || c == '[') {
                if (depth >= DIAG_MAX_DEPTH) {
                    report(&d, p, "nesting deeper than %d levels", DIAG_MAX_DEPTH);
                    return;
                }
                stack[depth] = c;
                opened[depth++] = p++;
                expect = c == '{' ? E_KEY_OR_CLOSE : E_VALUE_OR_CLOSE;
            } else if (c == '"') {
                if (!scan_string(&d, &p)) return;
                value_done = 1;
            } else if (c == '-' || isdigit((unsigned char)c)) {
                if (!scan_number(&d, &p)) return;
                value_done = 1;
            } else if (isalpha((unsigned char)c)) {
                size_t s = p;
                while (p < length && (isalnum((unsigned char)text[p]) || text[p] == '_')) ++p;
                size_t n = p - s;
                if (!((n == 4 && !strncmp(text + s, "true", 4)) || (n == 5 && !strncmp(text + s, "false", 5)) ||
                      (n == 4 && !strncmp(text + s, "null", 4)))) {
                    excerpt(&d, s, ex, sizeof ex);
                    report(&d, s, "expected a value (object, array, string in double quotes, number, true, false or null), found %s", ex);
                    return;
                }
                value_done = 1;
            } else if ((c == ']' || c == '}') && expect == E_VALUE) {
                report(&d, p, "expected a value after ',' but found '%c' (trailing commas are not allowed)", c);
                return;
            } else if (c == '\'') {
                report(&d, p, "expected a value; strings must be in double quotes, not single quotes");
                return;
            } else {
                excerpt(&d, p, ex, sizeof ex);
                report(&d, p, "expected a value (object, array, string, number, true, false or null), found %s", ex);
                return;
            }
            break;
        case E_KEY:
        case E_KEY_OR_CLOSE:
            if (c == '}' && expect == E_KEY_OR_CLOSE) {
                --depth;
                ++p;
                value_done = 1;
            } else if (c == '"') {
                if (!scan_string(&d, &p)) return;
                expect = E_COLON;
            } else if (c == '}') {
                report(&d, p, "expected a member name after ',' but found '}' (trailing commas are not allowed)");
                return;
            } else if (c == '\'') {
                report(&d, p, "expected a member name; member names must be in double quotes, not single quotes");
                return;
            } else {
                excerpt(&d, p, ex, sizeof ex);
                report(&d, p, "expected a member name in double quotes, found %s", ex);
                return;
            }
            break;
        case E_COLON:
            if (c != ':') {
                excerpt(&d, p, ex, sizeof ex);
                report(&d, p, "expected ':' after the member name, found %s", ex);
                return;
            }
            ++p;
            expect = E_VALUE;
            break;
        case E_COMMA_OR_CLOSE: {
            char open = stack[depth - 1], close = open == '{' ? '}' : ']';
            if (c == ',') {
                ++p;
                expect = open == '{' ? E_KEY : E_VALUE;
            } else if (c == close) {
                --depth;
                ++p;
                value_done = 1;
            } else if (c == '}' || c == ']') {
                int line, col;
                ctn__json_line_col(text, length, opened[depth - 1], &line, &col);
                report(&d, p, "expected ',' or '%c' to close the %s opened at %d:%d, found '%c'", close, open == '{' ? "object" : "array",
                       line, col, c);
                return;
            } else {
                excerpt(&d, p, ex, sizeof ex);
                report(&d, p, "expected ',' or '%c' after %s, found %s (missing comma?)", close,
                       open == '{' ? "a member value" : "an array element", ex);
                return;
            }
            break;
        }
        default: /* E_END */
            excerpt(&d, p, ex, sizeof ex);
            report(&d, p, "unexpected %s after the end of the JSON document", ex);
            return;
        }
        if (value_done) expect = depth == 0 ? E_END : E_COMMA_OR_CLOSE;
    }
    /* The grammar scan found nothing: report cJSON's own position. */
    report(&d, fallback_offset, "invalid JSON (cJSON refused the text here)");
}

int ctn__json_check_controls(const char *text, size_t length, char *msg, size_t msg_size) {
    diag d = {text, length, msg, msg_size};
    int in_string = 0;
    for (size_t i = 0; i < length; ++i) {
        unsigned char c = (unsigned char)text[i];
        if (!in_string) {
            if (c == '"') in_string = 1;
            else if (c < 0x20 && c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                report(&d, i, "control character 0x%02x between tokens (JSON allows only space, tab, line feed and carriage return there)", c);
                return 0;
            }
            continue;
        }
        if (c == '"') {
            in_string = 0;
        } else if (c < 0x20) {
            report(&d, i, "control character 0x%02x inside a string (JSON strings write control characters escaped, a line break as \\n; "
                          "did a string miss its closing '\"'?)", c);
            return 0;
        } else if (c == '\\' && i + 1 < length) {
            if (text[i + 1] == 'u' && i + 6 <= length && !memcmp(text + i + 2, "0000", 4)) {
                report(&d, i, "\\u0000 inside a string: a NUL would cut the string short here");
                return 0;
            }
            ++i; /* the escaped character (an escaped quote does not end the string) */
        }
    }
    return 1;
}
