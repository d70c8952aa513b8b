/* Progress on stderr. On a terminal: a bar with ETA redrawn in place ten times a second. Elsewhere (nohup,
 * a batch scheduler, a pipe) a redrawn bar would fill the log with carriage returns, so with --progress the
 * run prints one status line per interval instead, plus a last one at the end. --quiet silences both. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <math.h>
#include <time.h>
#include <unistd.h>

#define BAR_REDRAW_S 0.1
#define BAR_WIDTH 30

static double progress_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void ctn_progress_start(ctn_progress *p, const ctn_cli_opts *o, uint64_t first, uint64_t target) {
    int quiet = o->quiet || ctn_cli_quiet_env();
    int terminal = isatty(STDERR_FILENO);
    p->bar = !quiet && terminal;
    p->interval = !quiet && !terminal ? o->progress : 0.0;
    p->t0 = p->last = progress_now_s();
    p->first = first;
    p->target = target;
}

/* Seconds as HH:MM:SS. */
static void clock_text(char *out, size_t n, double s) {
    if (!(s >= 0.0) || s > 3.6e8) s = 0.0;
    snprintf(out, n, "%02d:%02d:%02d", (int)(s / 3600), (int)fmod(s / 60, 60), (int)fmod(s, 60));
}

void ctn_progress_update(ctn_progress *p, uint64_t step, double gap, int final) {
    if (!p->bar && !(p->interval > 0.0)) return;
    double t = progress_now_s();
    if (!final && t - p->last < (p->bar ? BAR_REDRAW_S : p->interval)) return;
    p->last = t;
    uint64_t done = step - p->first, total = p->target - p->first;
    double frac = total ? (double)done / (double)total : 1.0;
    double ms = done ? (t - p->t0) * 1e3 / (double)done : 0.0;
    char eta[32], elapsed[32];
    clock_text(eta, sizeof eta, ms * 1e-3 * (double)(p->target - step));
    clock_text(elapsed, sizeof elapsed, t - p->t0);
    if (p->bar) {
        char bar[BAR_WIDTH + 1];
        int fill = (int)(frac * BAR_WIDTH);
        for (int k = 0; k < BAR_WIDTH; ++k) bar[k] = k < fill ? '#' : '.';
        bar[BAR_WIDTH] = '\0';
        fprintf(stderr, "\r[%s] %3.0f%%  step %llu/%llu  %.3g ms/step  ETA %s ", bar, 100.0 * frac, (unsigned long long)step,
                (unsigned long long)p->target, ms, eta);
    } else {
        fprintf(stderr, "catena: step %llu/%llu (%.1f%%), %.3g ms/step, joint gap %.3g m, elapsed %s, ETA %s\n", (unsigned long long)step,
                (unsigned long long)p->target, 100.0 * frac, ms, gap, elapsed, eta);
    }
    fflush(stderr);
}

void ctn_progress_break(ctn_progress *p) {
    if (p->bar) fputc('\n', stderr);
}
