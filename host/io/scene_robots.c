/* The "robots" key of scene files (docs/scene-format.md): URDF robots added after everything else, each
 * moved to its pose as one rigid piece, so that several robots share one scene. A robot's file is read by
 * the URDF importer (host/io/urdf_import.c) when the scene is built; parsing the scene checks that it can be
 * opened. Paths are relative to the scene file's folder. */
#define _POSIX_C_SOURCE 200809L
#include "collide/collide.h"
#include "core/alloc.h"
#include "io/scene_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

typedef struct scene_robot {
    char path[1024];
    double position[3];
    double rotation[4]; /* unit quaternion (w, x, y, z) */
    int self_collision;
} scene_robot;

void ctn__scene_robots_free(ctn_scene *s) { ctn__free(s->robots); }

ctn_status ctn__scene_build_robots(ctn_world *w, const ctn_scene *s, char *where, size_t where_size) {
    for (int k = 0; k < s->robot_count; ++k) {
        const scene_robot *r = &s->robots[k];
        snprintf(where, where_size, "robots[%d]", k);
        int nb0 = w->body_count, nj0 = w->joint_count, np0 = w->collision ? w->collision->plane_count : 0;
        char report[4096];
        ctn_status st = ctn_scene_load_urdf_ex(w, r->path, r->self_collision, report, sizeof report);
        if (st != CTN_OK) return st;
        /* the importer's report: one warning per line */
        for (char *line = report, *end; *line; line = end) {
            end = strchr(line, '\n');
            if (!end) end = line + strlen(line);
            ctn__log(w, CTN_LOG_WARNING, "%s: robots[%d] (%s): %.*s", s->source, k, r->path, (int)(end - line), line);
            if (*end) ++end;
        }
        st = ctn__scene_place(w, r->position, r->rotation, nb0, nj0, np0);
        if (st != CTN_OK) return st;
    }
    return CTN_OK;
}

#ifdef CATENA_HAVE_CJSON

/* {"urdf": "arm.urdf", "position": [x, y, z], "rotation": [w, x, y, z], "self_collision": false} */
static int parse_robot(pctx *c, const cJSON *e, int index, const char *source, scene_robot *r) {
    static const char *const keys[] = {"urdf", "position", "rotation", "self_collision", NULL};
    char path[PATH_MAX_LEN], p[PATH_MAX_LEN];
    snprintf(path, sizeof path, "robots[%d]", index);
    if (!ctn__json_object(c, e, path) || !ctn__json_keys(c, e, path, keys)) return 0;
    const char *file = NULL;
    int rf = ctn__json_string(c, e, "urdf", path, &file);
    if (rf < 0) return 0;
    ctn__json_path(p, path, "urdf");
    if (!rf || !file[0]) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "missing: the robot's URDF file");
    /* relative to the scene file's folder */
    const char *slash = strrchr(source, '/');
    int dir = file[0] != '/' && slash ? (int)(slash - source + 1) : 0;
    if ((size_t)dir + strlen(file) >= sizeof r->path) return ctn__json_fail(c, CTN_ERR_LIMIT, p, "the path is longer than %zu characters", sizeof r->path - 1);
    snprintf(r->path, sizeof r->path, "%.*s%s", dir, source, file);
    FILE *f = fopen(r->path, "rb");
    if (!f) return ctn__json_fail(c, CTN_ERR_IO, p, "cannot open '%s': %s", r->path, strerror(errno));
    struct stat st;
    int regular = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
    fclose(f);
    /* a device or FIFO (/dev/zero) would never end: only regular files are read */
    if (!regular) return ctn__json_fail(c, CTN_ERR_IO, p, "'%s' is not a regular file", r->path);
    if (ctn__json_vec(c, e, "position", path, 3, r->position) < 0) return 0;
    for (int k = 0; k < 3; ++k)
        if (fabs(r->position[k]) > CTN_MAX_LENGTH) {
            ctn__json_path(p, path, "position");
            return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, p, "[%d] = %g m is beyond CTN_MAX_LENGTH (%g m)", k, r->position[k], CTN_MAX_LENGTH);
        }
    r->rotation[0] = 1.0;
    if (ctn__json_nonzero_vec(c, e, "rotation", path, 4, r->rotation) < 0) return 0;
    double n = sqrt(r->rotation[0] * r->rotation[0] + r->rotation[1] * r->rotation[1] + r->rotation[2] * r->rotation[2] + r->rotation[3] * r->rotation[3]);
    for (int k = 0; k < 4; ++k) r->rotation[k] /= n;
    return ctn__json_bool(c, e, "self_collision", path, &r->self_collision) >= 0;
}

int ctn__scene_parse_robots(pctx *c, const cJSON *root, ctn_scene *s) {
    const cJSON *rs = ctn__json_member(root, "robots");
    if (!rs) return 1;
    if (!cJSON_IsArray(rs)) return ctn__json_fail(c, CTN_ERR_INVALID_ARGUMENT, "robots", "expected an array, got %s", ctn__json_type_name(rs));
    int n = cJSON_GetArraySize(rs);
    if (n > 100000) return ctn__json_fail(c, CTN_ERR_LIMIT, "robots", "%d entries exceed the limit of 100000", n);
    s->robots = ctn__calloc((size_t)n + 1, sizeof *s->robots);
    if (!s->robots) return ctn__json_fail(c, CTN_ERR_OUT_OF_MEMORY, "robots", "out of memory");
    int i = 0;
    for (const cJSON *e = rs->child; e; e = e->next, ++i) {
        if (!parse_robot(c, e, i, s->source, &s->robots[i])) return 0;
        s->robot_count = i + 1;
    }
    return 1;
}

#endif /* CATENA_HAVE_CJSON */
