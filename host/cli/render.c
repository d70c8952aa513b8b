/* `catena render FRAMES.pvd --out DIR`: PNG frames (and with --mp4 a movie) of a `catena run --vtk` series,
 * without a display. The pictures are drawn by share/catena/render.py with VTK's Python modules (Debian
 * python3-vtk9 or python3-paraview) offscreen, under xvfb-run where VTK needs an X display, and encoded by
 * ffmpeg; this file checks the command line (the same getopt_long conventions as run) and the input, then
 * runs the script with the Python of $CATENA_PYTHON, else python3 from $PATH.
 *
 * The script is looked up next to the executable first, so that a moved install tree and the build tree
 * both find theirs: EXE_DIR/../share/catena/render.py (an install: bin/catena), EXE_DIR/share/catena/render.py
 * (the build tree, where CMake copies it), then the configured install prefix. */
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CATENA_INSTALL_DATADIR
#define CATENA_INSTALL_DATADIR "/usr/local/share"
#endif

enum { R_OUT = 256, R_VIEW, R_SIZE, R_MP4, R_FPS, R_QUIET = 'q', R_HELP = 'h' };

static const struct option g_render_options[] = {
    {"out", required_argument, NULL, R_OUT}, {"view", required_argument, NULL, R_VIEW}, {"size", required_argument, NULL, R_SIZE},
    {"mp4", required_argument, NULL, R_MP4}, {"fps", required_argument, NULL, R_FPS},   {"quiet", no_argument, NULL, R_QUIET},
    {"help", no_argument, NULL, R_HELP},     {NULL, 0, NULL, 0},
};

void ctn_cli_render_help(FILE *f) {
    fprintf(f, "usage: catena render FRAMES.pvd --out DIR [options]\n"
               "Draws every frame of a `catena run --vtk` series as a PNG picture, DIR/frame_000000.png, ... in series\n"
               "order, without a display: bodies as their shapes (boxes, spheres, capsules; bodies without a shape as\n"
               "dots), oriented as in the frame, joints as lines, the simulation time as a label, one camera that fits\n"
               "the whole series. Needs python3 with VTK (Debian python3-vtk9) and, without $DISPLAY, xvfb-run (xvfb).\n"
               "options:\n"
               "  --out=DIR                    directory of the PNG frames (created; existing frames are replaced)\n"
               "  --view=AXIS                  auto (default: along the axis where the scene is thinnest, else iso), x, y, z\n"
               "                               (looking along -AXIS) or iso\n"
               "  --size=WxH                   picture size in pixels (default 1280x720; 16..8192 each)\n"
               "  --mp4=FILE                   also an H.264 movie of the frames (needs ffmpeg)\n"
               "  --fps=N                      frames per second of the movie (default 25)\n"
               "  -q, --quiet                  no summary line\n"
               "  -h, --help                   show this help\n"
               "environment: CATENA_PYTHON (the Python that runs the renderer; default python3)\n"
               "exit codes: 0 ok, 2 usage, 3 not a VTK collection, 4 no renderer (VTK, a display or xvfb-run, ffmpeg),\n"
               "            6 a file that cannot be read or written\n");
}

/* DIR/NAME when it is a readable file, in `out`. */
static int try_script(const char *dir, const char *name, char *out, size_t size) {
    if ((size_t)snprintf(out, size, "%s/%s", dir, name) >= size) return 0;
    return access(out, R_OK) == 0;
}

/* The renderer script: next to the executable (install tree or build tree), else at the install prefix. */
static int find_script(char *out, size_t size) {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            if (try_script(exe, "../share/catena/render.py", out, size) || try_script(exe, "share/catena/render.py", out, size)) return 1;
        }
    }
    return try_script(CATENA_INSTALL_DATADIR, "catena/render.py", out, size);
}

static int valid_size(const char *s) {
    int w = 0, h = 0;
    char x, extra;
    return sscanf(s, "%d%c%d%c", &w, &x, &h, &extra) == 3 && (x == 'x' || x == 'X') && w >= 16 && w <= 8192 && h >= 16 && h <= 8192;
}

int ctn_cli_render(int argc, char **argv) {
    const char *out = NULL, *view = "auto", *size = "1280x720", *mp4 = NULL, *fps = "25";
    int quiet = 0, c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":qh", g_render_options, NULL)) != -1) {
        switch (c) {
        case R_OUT: out = optarg; break;
        case R_VIEW: view = optarg; break;
        case R_SIZE: size = optarg; break;
        case R_MP4: mp4 = optarg; break;
        case R_FPS: fps = optarg; break;
        case R_QUIET: quiet = 1; break;
        case R_HELP: ctn_cli_render_help(stdout); return CTN_EXIT_OK;
        default:
            ctn_cli_report_bad_option("render", c, argv[optind - 1], g_render_options);
            fprintf(stderr, "Try 'catena render --help'.\n");
            return CTN_EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        ctn_cli_command_error("render", "missing FRAMES.pvd (the collection that catena run --vtk DIR writes as DIR/catena.pvd)");
        return CTN_EXIT_USAGE;
    }
    if (optind + 1 < argc) {
        ctn_cli_command_error("render", "unexpected argument '%s' after '%s'", argv[optind + 1], argv[optind]);
        return CTN_EXIT_USAGE;
    }
    const char *pvd = argv[optind];
    if (!out) {
        ctn_cli_command_error("render", "--out DIR is required (the directory of the PNG frames)");
        return CTN_EXIT_USAGE;
    }
    if (strcmp(view, "auto") && strcmp(view, "x") && strcmp(view, "y") && strcmp(view, "z") && strcmp(view, "iso")) {
        ctn_cli_command_error("render", "--view: '%s' is not one of auto, x, y, z, iso", view);
        return CTN_EXIT_USAGE;
    }
    if (!valid_size(size)) {
        ctn_cli_command_error("render", "--size: '%s' is not WIDTHxHEIGHT with each in 16..8192", size);
        return CTN_EXIT_USAGE;
    }
    char *end;
    double f = strtod(fps, &end);
    if (end == fps || *end || !(f > 0.0 && f <= 1000.0)) {
        ctn_cli_command_error("render", "--fps: '%s' is not a number in (0, 1000]", fps);
        return CTN_EXIT_USAGE;
    }
    if (access(pvd, R_OK) != 0) {
        ctn_cli_command_error("render", "%s: cannot read: %s", pvd, strerror(errno));
        return CTN_EXIT_IO;
    }
    char err[1024];
    if (!ctn_make_dir(out, err, sizeof err)) {
        ctn_cli_command_error("render", "--out: %s", err);
        return CTN_EXIT_IO;
    }
    if (mp4 && !ctn_out_check(mp4, err, sizeof err)) { /* before any frame is drawn */
        ctn_cli_command_error("render", "--mp4: %s", err);
        return CTN_EXIT_IO;
    }
    char script[PATH_MAX + 64];
    if (!find_script(script, sizeof script)) {
        ctn_cli_command_error("render", "the renderer share/catena/render.py is not installed next to the catena executable nor in %s/catena",
                              CATENA_INSTALL_DATADIR);
        return CTN_EXIT_DEVICE;
    }
    const char *python = getenv("CATENA_PYTHON");
    if (!python || !python[0]) python = "python3";
    char *args[16];
    int n = 0;
    args[n++] = (char *)python, args[n++] = script, args[n++] = (char *)pvd;
    args[n++] = "--out", args[n++] = (char *)out, args[n++] = "--view", args[n++] = (char *)view;
    args[n++] = "--size", args[n++] = (char *)size, args[n++] = "--fps", args[n++] = (char *)fps;
    if (mp4) args[n++] = "--mp4", args[n++] = (char *)mp4;
    if (quiet) args[n++] = "--quiet";
    args[n] = NULL;
    fflush(stdout);
    execvp(python, args);
    ctn_cli_command_error("render", "cannot run %s: %s (install python3 and python3-vtk9, or set CATENA_PYTHON)", python, strerror(errno));
    return CTN_EXIT_DEVICE;
}
