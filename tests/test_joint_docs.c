/* The joint types' names and documentation against the joint-type table, so that neither can fall behind
 * when a type is added:
 *  - every line of CTN_JT_LIST (kernels/ctn_joint_rows.h) has its entry, named as the list names it, and that
 *    name is the enumerator's in lower case without CTN_JOINT_ (the rule include/catena/core.h gives for
 *    ctn_joint_type_name, whose documentation names every type); the value after the last is "unknown";
 *  - docs/scene-format.md's constraint table (the first table of its `constraints` section) has one row per type a scene file may hold and none for another
 *    name; the row's first number is the type's row count (ctn_joint_row_count; a type whose rows the
 *    kernels count elsewhere, a curve's, has 0 there and is not compared), and every key the scene reader
 *    takes for the type (its entry's scene_keys, besides type, name, a, b) is in the row or in the row of
 *    the type it says it is "as". */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "files.h"
#include "core/joint_kinds.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAMES(VALUE, name) {#VALUE, #name, CTN_JT_##VALUE},
static const struct {
    const char *value, *name;
    int type;
} listed[] = {CTN_JT_LIST(NAMES)};
enum { LISTED = sizeof listed / sizeof listed[0] };

/* The table rows of docs/scene-format.md's "## `constraints`" section: lines "| `name` | rows | keys |". */
typedef struct {
    char name[32];
    const char *line; /* the whole row, NUL-terminated */
} doc_row;

static int doc_rows(char *text, doc_row *rows, int max) {
    char *sec = strstr(text, "\n## `constraints`");
    if (sec) sec = strstr(sec, "\n| type | rows |");
    if (!sec) return -1;
    char *end = strstr(sec + 1, "\n\n"); /* the table ends at the first blank line */
    if (end) *end = '\0';
    int n = 0;
    for (char *line = strtok(sec, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "| `", 3) != 0 || n >= max) continue;
        const char *close = strchr(line + 3, '`');
        size_t len = close ? (size_t)(close - (line + 3)) : 0;
        if (!close || len >= sizeof rows[n].name) continue;
        memcpy(rows[n].name, line + 3, len);
        rows[n].name[len] = '\0';
        rows[n].line = line;
        ++n;
    }
    return n;
}

static const doc_row *find_row(const doc_row *rows, int n, const char *name) {
    for (int i = 0; i < n; ++i)
        if (!strcmp(rows[i].name, name)) return &rows[i];
    return NULL;
}

/* Whether `key` appears as `key` in the row of `name` or, following "as `other`", in that row. */
static int row_has_key(const doc_row *rows, int n, const char *name, const char *key, int depth) {
    const doc_row *r = find_row(rows, n, name);
    if (!r || depth > 4) return 0;
    char quoted[64], json[64];
    snprintf(quoted, sizeof quoted, "`%s`", key);
    snprintf(json, sizeof json, "`\"%s\"", key); /* `"key": value` */
    if (strstr(r->line, quoted) || strstr(r->line, json)) return 1;
    const char *as = strstr(r->line, "as `");
    if (!as) return 0;
    char other[32];
    size_t len = strcspn(as + 4, "`");
    if (len >= sizeof other) return 0;
    memcpy(other, as + 4, len);
    other[len] = '\0';
    return strcmp(other, name) != 0 && row_has_key(rows, n, other, key, depth + 1);
}

int main(void) {
    /* names: the list, the table and the public rule */
    CHECK(LISTED == CTN_JT_COUNT, "CTN_JT_LIST has %d lines, CTN_JT_COUNT is %d", LISTED, CTN_JT_COUNT);
    for (int i = 0; i < LISTED; ++i) {
        CHECK(listed[i].type == i, "CTN_JT_LIST line %d is CTN_JT_%s = %d: the list is in value order", i, listed[i].value, listed[i].type);
        const ctn_joint_kind *k = ctn__joint_kind(listed[i].type);
        CHECK(k && k->name && !strcmp(k->name, listed[i].name), "type %d: the entry is named '%s', the list says '%s'", listed[i].type,
              k && k->name ? k->name : "(none)", listed[i].name);
        const char *name = ctn_joint_type_name((ctn_joint_type)listed[i].type);
        char lower[32] = "";
        size_t j = 0;
        for (; listed[i].value[j] && j + 1 < sizeof lower; ++j) lower[j] = (char)tolower((unsigned char)listed[i].value[j]);
        lower[j] = '\0';
        CHECK(!strcmp(name, lower), "ctn_joint_type_name(CTN_JOINT_%s) is '%s', the rule says '%s'", listed[i].value, name, lower);
    }
    CHECK(!strcmp(ctn_joint_type_name((ctn_joint_type)CTN_JT_COUNT), "unknown") && !strcmp(ctn_joint_type_name((ctn_joint_type)-1), "unknown"),
          "the values outside the table are 'unknown'");

    /* ctn_joint_type_name's documentation (include/catena/core.h) gives every name */
    char *header = test_read_file(CATENA_SOURCE_DIR "/include/catena/core.h", NULL);
    CHECK(header != NULL, "cannot read include/catena/core.h");
    char *decl = header ? strstr(header, "CTN_API const char *ctn_joint_type_name(") : NULL;
    char *doc = NULL; /* the last doc comment opening before the declaration */
    for (char *p = header; decl && (p = strstr(p, "/**")) != NULL && p < decl; ++p) doc = p;
    if (decl) *decl = '\0';
    CHECK(doc != NULL, "include/catena/core.h: no documentation before ctn_joint_type_name");
    for (int i = 0; doc && i < LISTED; ++i) {
        char quoted[40];
        snprintf(quoted, sizeof quoted, "\"%s\"", listed[i].name);
        CHECK(strstr(doc, quoted) != NULL, "include/catena/core.h: ctn_joint_type_name's documentation does not name %s", quoted);
    }
    free(header);

    /* docs/scene-format.md */
    char *text = test_read_file(CATENA_SOURCE_DIR "/docs/scene-format.md", NULL);
    CHECK(text != NULL, "cannot read %s", CATENA_SOURCE_DIR "/docs/scene-format.md");
    if (!text) return check_report("joint_docs");
    doc_row rows[64];
    int n = doc_rows(text, rows, 64);
    CHECK(n > 0, "docs/scene-format.md: no constraint table in the `constraints` section");
    int scene_types = 0;
    for (int t = 0; t < CTN_JT_COUNT; ++t) {
        const ctn_joint_kind *k = ctn__joint_kind(t);
        const doc_row *r = find_row(rows, n, k->name);
        if (!(k->flags & CTN_JK_SCENE)) {
            CHECK(r == NULL, "docs/scene-format.md: a row for '%s', which scene files cannot hold", k->name);
            continue;
        }
        ++scene_types;
        CHECK(r != NULL, "docs/scene-format.md: no row for the scene type '%s' in the constraint table", k->name);
        if (!r) continue;
        int rc = ctn_joint_row_count(t), doc_rc = -1;
        const char *cell = strchr(r->line + 3 + strlen(k->name) + 1, '|');
        if (cell) doc_rc = atoi(cell + 1);
        CHECK(cell && (rc == doc_rc || (rc == 0 && !(k->flags & CTN_JK_FORCE))), "docs/scene-format.md: '%s' has %d rows, the kernels %d",
              k->name, doc_rc, rc);
        for (const char *const *key = k->scene_keys; key && *key; ++key) {
            if (!strcmp(*key, "type") || !strcmp(*key, "name") || !strcmp(*key, "a") || !strcmp(*key, "b")) continue;
            CHECK(row_has_key(rows, n, k->name, *key, 0), "docs/scene-format.md: the row of '%s' does not give its key `%s`", k->name, *key);
        }
    }
    CHECK(n == scene_types, "docs/scene-format.md: %d rows in the constraint table, %d scene types", n, scene_types);
    printf("%d types named by the rule; %d rows of docs/scene-format.md checked against the table\n", LISTED, n);
    free(text);
    return check_report("joint_docs");
}
