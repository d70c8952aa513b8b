/* The CLI tests' harness: runs the catena executable with its output captured, reads files back, and
 * checks what the CLI writes (XML well-formedness, CSV shape, the JSON summary). */
#define _POSIX_C_SOURCE 200809L
#include "cli/harness.h"

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

extern char **environ;

const char *g_catena, *g_src, *g_work;
char g_stderr[65536];

/* ---- helpers --------------------------------------------------------------------------------------- */

char *path_in(const char *dir, const char *name) {
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    fclose(f);
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

pid_t spawn(char *const argv[], const char *out, const char *err) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = -1;
    if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    return pid;
}

int wait_code(pid_t pid) {
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) return -1;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 1000 + WTERMSIG(status);
}


/* Runs catena with the given arguments (NULL-terminated); returns the exit code, stderr in g_stderr. */
int run(const char *first, ...) {
    char *argv[64];
    int n = 0;
    argv[n++] = (char *)g_catena;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && n < 63; a = va_arg(ap, const char *)) argv[n++] = (char *)a;
    va_end(ap);
    argv[n] = NULL;
    char *out = path_in(g_work, "stdout.txt"), *err = path_in(g_work, "stderr.txt");
    int code = wait_code(spawn(argv, out, err));
    char *e = read_all(err, NULL);
    snprintf(g_stderr, sizeof g_stderr, "%s", e ? e : "");
    free(e);
    free(out);
    free(err);
    return code;
}

int file_exists(const char *p) {
    struct stat st;
    return stat(p, &st) == 0;
}

/* No PATH.tmp.* files left in dir. */
int no_temp_files(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return 1;
    struct dirent *e;
    int clean = 1;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".tmp.")) {
            fprintf(stderr, "left-over temporary file %s/%s\n", dir, e->d_name);
            clean = 0;
        }
    closedir(d);
    return clean;
}

/* A small XML well-formedness check: balanced and properly nested elements, quoted attributes, entities,
 * one root element. xmllint is used as well when it is installed. */
int xml_well_formed(const char *text, const char *root) {
    const char *p = text;
    const char *stack[256];
    size_t lens[256];
    int depth = 0, roots = 0;
    while (*p) {
        if (*p == '&') {
            if (strncmp(p, "&lt;", 4) && strncmp(p, "&gt;", 4) && strncmp(p, "&amp;", 5) && strncmp(p, "&quot;", 6) && strncmp(p, "&apos;", 6))
                return 0;
            ++p;
            continue;
        }
        if (*p != '<') {
            if (depth == 0 && *p != ' ' && *p != '\n' && *p != '\r' && *p != '\t') return 0;
            ++p;
            continue;
        }
        if (!strncmp(p, "<?", 2)) {
            p = strstr(p, "?>");
            if (!p) return 0;
            p += 2;
            continue;
        }
        if (!strncmp(p, "<!--", 4)) {
            p = strstr(p, "-->");
            if (!p) return 0;
            p += 3;
            continue;
        }
        int closing = p[1] == '/';
        const char *name = p + 1 + closing;
        size_t nl = strcspn(name, " \t\n/>");
        if (nl == 0) return 0;
        const char *q = name + nl;
        /* attributes */
        for (;;) {
            while (*q == ' ' || *q == '\t' || *q == '\n') ++q;
            if (*q == '>' || (*q == '/' && q[1] == '>')) break;
            if (closing || !*q) return 0;
            size_t an = strcspn(q, "= \t\n>");
            if (an == 0 || q[an] != '=' || q[an + 1] != '"') return 0;
            const char *v = q + an + 2, *ve = strchr(v, '"');
            if (!ve) return 0;
            for (const char *c = v; c < ve; ++c)
                if (*c == '<') return 0;
            q = ve + 1;
        }
        int empty = *q == '/';
        p = q + (empty ? 2 : 1);
        if (closing) {
            if (depth == 0 || lens[depth - 1] != nl || strncmp(stack[depth - 1], name, nl)) return 0;
            --depth;
        } else {
            if (depth == 0) {
                if (++roots > 1 || strlen(root) != nl || strncmp(name, root, nl)) return 0;
            }
            if (!empty) {
                if (depth == 256) return 0;
                stack[depth] = name;
                lens[depth++] = nl;
            }
        }
    }
    return depth == 0 && roots == 1;
}

int xmllint_ok(const char *path) {
    if (!file_exists("/usr/bin/xmllint")) return 1;
    char *argv[] = {"/usr/bin/xmllint", "--noout", (char *)path, NULL};
    char *out = path_in(g_work, "xmllint.txt");
    int code = wait_code(spawn(argv, out, out));
    free(out);
    return code == 0;
}

void check_xml(const char *path, const char *root) {
    char *t = read_all(path, NULL);
    CHECK(t != NULL, "%s was not written", path);
    if (!t) return;
    CHECK(xml_well_formed(t, root), "%s is not well-formed XML with root <%s>", path, root);
    CHECK(xmllint_ok(path), "xmllint --noout %s failed", path);
    free(t);
}

void check_csv(const char *path, int bodies, int frames) {
    char *t = read_all(path, NULL);
    CHECK(t != NULL, "%s was not written", path);
    if (!t) return;
    int rows = 0, bad = 0, line = 0;
    char *save = NULL;
    for (char *l = strtok_r(t, "\n", &save); l; l = strtok_r(NULL, "\n", &save), ++line) {
        if (line == 0) {
            CHECK(!strcmp(l, "step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz"), "CSV header: '%s'", l);
            continue;
        }
        int cols = 0;
        char *s2 = NULL;
        for (char *f = strtok_r(l, ",", &s2); f; f = strtok_r(NULL, ",", &s2)) {
            char *end;
            strtod(f, &end);
            if (*end) bad++;
            cols++;
        }
        if (cols != 16) bad++;
        rows++;
    }
    CHECK(rows == bodies * frames, "CSV rows: %d, expected %d bodies x %d frames", rows, bodies, frames);
    CHECK(bad == 0, "CSV: %d malformed fields or rows", bad);
    free(t);
}

char *last_stdout(void) {
    char *p = path_in(g_work, "stdout.txt"), *t = read_all(p, NULL);
    free(p);
    return t ? t : strdup("");
}

/* The JSON summary at path, or NULL; *status and *error point into it. */
cJSON *read_summary(const char *path) {
    char *t = read_all(path, NULL);
    cJSON *j = t ? cJSON_Parse(t) : NULL;
    free(t);
    return j;
}

const char *summary_string(const cJSON *j, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

double summary_number(const cJSON *j, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1.0;
}

void harness_tally(int *checks, int *failures) {
    (void)check_report; /* the report is the caller's */
    *checks += check_count;
    *failures += check_failures;
}
