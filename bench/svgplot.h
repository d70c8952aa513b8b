/* svgplot.h: a tiny, dependency-free SVG line plot for the benchmark programs (bench_suite, bench_convergence).
 *
 * svg_plot() writes one chart: several named series of (x, y) points drawn as polylines with markers,
 * linear or log10 axes (decade ticks and grid lines on log axes), and a legend on the right. Points that
 * cannot be drawn (non-finite, or <= 0 on a log axis) are skipped and break the line. Header-only: every
 * function is static, so each program that includes it gets its own copy. */
#ifndef CATENA_BENCH_SVGPLOT_H
#define CATENA_BENCH_SVGPLOT_H

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct svg_series {
    char name[96];
    int n;
    double x[512], y[512];
    int dashed; /* non-zero: dashed line */
} svg_series;

static void svg_series_add(svg_series *s, double x, double y) {
    if (s->n < (int)(sizeof s->x / sizeof s->x[0])) {
        s->x[s->n] = x;
        s->y[s->n] = y;
        s->n++;
    }
}

static int svg_ok(double v, int logscale) { return isfinite(v) && (!logscale || v > 0.0); }

static double svg_map(double v, int logscale) { return logscale ? log10(v) : v; }

static void svg_escape(FILE *f, const char *s) {
    for (; *s; ++s) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else fputc(*s, f);
    }
}

/* A tick label: 1e-3 style on log axes, %g otherwise. */
static void svg_tick_label(char *buf, size_t n, double v, int logscale) {
    if (logscale) {
        int e = (int)lround(v);
        if (e >= 0 && e <= 3) snprintf(buf, n, "%g", pow(10.0, e));
        else snprintf(buf, n, "1e%d", e);
    } else {
        snprintf(buf, n, "%g", v);
    }
}

/* Nice linear step for about 6 ticks over [lo, hi]. */
static double svg_nice_step(double lo, double hi) {
    double span = hi - lo, raw = span / 6.0, mag = pow(10.0, floor(log10(raw))), f = raw / mag;
    return (f < 1.5 ? 1.0 : f < 3.5 ? 2.0 : f < 7.5 ? 5.0 : 10.0) * mag;
}

/* Writes the chart to `path`; returns 0 on success, -1 when the file cannot be written. */
static int svg_plot(const char *path, const char *title, const char *xlabel, const char *ylabel, int logx, int logy,
                    const svg_series *series, int ns) {
    static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
                                          "#e377c2", "#17becf", "#7f7f7f", "#bcbd22", "#000000", "#393b79"};
    const int ncol = (int)(sizeof colours / sizeof colours[0]);
    const double W = 980, H = 520, L = 80, R = 300, T = 50, B = 60; /* R: legend column */
    const double pw = W - L - R, ph = H - T - B;
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for (int k = 0; k < ns; ++k)
        for (int i = 0; i < series[k].n; ++i) {
            double x = series[k].x[i], y = series[k].y[i];
            if (!svg_ok(x, logx) || !svg_ok(y, logy)) continue;
            x = svg_map(x, logx), y = svg_map(y, logy);
            if (x < x0) x0 = x;
            if (x > x1) x1 = x;
            if (y < y0) y0 = y;
            if (y > y1) y1 = y;
        }
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    if (!(x0 <= x1)) x0 = 0, x1 = 1;
    if (!(y0 <= y1)) y0 = 0, y1 = 1;
    double xs = 1.0, ys = 1.0;
    if (logx) x0 = floor(x0), x1 = ceil(x1);
    if (logy) y0 = floor(y0), y1 = ceil(y1);
    if (x1 - x0 < 1e-12) x0 -= logx ? 1 : 0.5, x1 += logx ? 1 : 0.5;
    if (y1 - y0 < 1e-12) y0 -= logy ? 1 : 0.5, y1 += logy ? 1 : 0.5;
    if (!logx) {
        xs = svg_nice_step(x0, x1);
        x0 = floor(x0 / xs) * xs, x1 = ceil(x1 / xs) * xs;
    }
    if (!logy) {
        ys = svg_nice_step(y0, y1);
        y0 = floor(y0 / ys) * ys, y1 = ceil(y1 / ys) * ys;
    }
#define SVG_PX(v) (L + ((v) - x0) / (x1 - x0) * pw)
#define SVG_PY(v) (T + ph - ((v) - y0) / (y1 - y0) * ph)
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n",
            W, H, W, H);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"%.0f\" y=\"24\" font-size=\"15\" text-anchor=\"middle\">",
            L + pw / 2);
    svg_escape(f, title);
    fprintf(f, "</text>\n");
    /* grid and ticks */
    double step = logx ? 1.0 : xs;
    for (double v = x0; v <= x1 + 1e-9 * step; v += step) {
        char lab[32];
        svg_tick_label(lab, sizeof lab, v, logx);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", SVG_PX(v), T, SVG_PX(v), T + ph);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", SVG_PX(v), T + ph + 16, lab);
        if (logx && v < x1)
            for (int m = 2; m <= 9; ++m)
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#f3f3f3\"/>\n", SVG_PX(v + log10(m)), T,
                        SVG_PX(v + log10(m)), T + ph);
    }
    step = logy ? 1.0 : ys;
    for (double v = y0; v <= y1 + 1e-9 * step; v += step) {
        char lab[32];
        svg_tick_label(lab, sizeof lab, v, logy);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, SVG_PY(v), L + pw, SVG_PY(v));
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", L - 6, SVG_PY(v) + 4, lab);
    }
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#333\"/>\n", L, T, pw, ph);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", L + pw / 2, H - 16);
    svg_escape(f, xlabel);
    fprintf(f, "%s</text>\n<text transform=\"translate(18,%.1f) rotate(-90)\" text-anchor=\"middle\">", logx ? " (log)" : "", T + ph / 2);
    svg_escape(f, ylabel);
    fprintf(f, "%s</text>\n", logy ? " (log)" : "");
    /* series */
    for (int k = 0; k < ns; ++k) {
        const svg_series *s = &series[k];
        const char *c = colours[k % ncol];
        const char *dash = s->dashed || k >= ncol ? " stroke-dasharray=\"6,3\"" : "";
        int open = 0;
        for (int i = 0; i < s->n; ++i) {
            if (!svg_ok(s->x[i], logx) || !svg_ok(s->y[i], logy)) {
                if (open) fprintf(f, "\"/>\n");
                open = 0;
                continue;
            }
            if (!open) fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"%s points=\"", c, dash);
            fprintf(f, "%.1f,%.1f ", SVG_PX(svg_map(s->x[i], logx)), SVG_PY(svg_map(s->y[i], logy)));
            open = 1;
        }
        if (open) fprintf(f, "\"/>\n");
        if (s->n <= 40)
            for (int i = 0; i < s->n; ++i)
                if (svg_ok(s->x[i], logx) && svg_ok(s->y[i], logy))
                    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", SVG_PX(svg_map(s->x[i], logx)),
                            SVG_PY(svg_map(s->y[i], logy)), c);
        double ly = T + 10 + 18 * k;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s/>\n", L + pw + 14, ly, L + pw + 40,
                ly, c, dash);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", L + pw + 46, ly + 4);
        svg_escape(f, s->name);
        fprintf(f, "</text>\n");
    }
#undef SVG_PX
#undef SVG_PY
    fprintf(f, "</svg>\n");
    return fclose(f) == 0 ? 0 : -1;
}

#endif /* CATENA_BENCH_SVGPLOT_H */
