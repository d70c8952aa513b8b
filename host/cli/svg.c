/* SVG outputs: a picture of the final state (bodies as dots, joints as lines, projected on a coordinate
 * plane and fitted to the canvas) and a log-scale plot of the per-step joint gap and residual. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Writes s with XML special characters escaped. */
static void xml_text(FILE *f, const char *s) {
    for (; s && *s; ++s) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s >= 0x20) fputc(*s, f);
        }
    }
}

/* ---- picture ---- */

int ctn_svg_picture(const char *path, ctn_world *w, const char *view, const char *title, char *err, size_t err_size) {
    int u = 0, v = 1; /* projected axes */
    if (view && !strcmp(view, "xz")) u = 0, v = 2;
    else if (view && !strcmp(view, "zy")) u = 2, v = 1;
    int nb = 0, nj = 0;
    ctn_world_id_counts(w, &nb, &nj);
    double *pu = malloc(((size_t)nb + 1) * sizeof *pu), *pv = malloc(((size_t)nb + 1) * sizeof *pv);
    char *alive = malloc((size_t)nb + 1);
    ctn_joint_info *joints = malloc(((size_t)nj + 1) * sizeof *joints);
    if (!pu || !pv || !alive || !joints) {
        free(pu), free(pv), free(alive), free(joints);
        snprintf(err, err_size, "out of memory drawing %s", path);
        return 0;
    }
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
#define GROW(a, b)                                                                                                     \
    do {                                                                                                               \
        if ((a) < lo[0]) lo[0] = (a);                                                                                  \
        if ((a) > hi[0]) hi[0] = (a);                                                                                  \
        if ((b) < lo[1]) lo[1] = (b);                                                                                  \
        if ((b) > hi[1]) hi[1] = (b);                                                                                  \
    } while (0)
    int live = 0;
    for (int i = 0; i < nb; ++i) {
        ctn_body_state s;
        ctn_body_id id;
        alive[i] = ctn_world_body_at(w, i, &id) == CTN_OK && ctn_body_get_state(w, id, &s) == CTN_OK && isfinite(s.position[u]) &&
                   isfinite(s.position[v]);
        if (!alive[i]) continue;
        pu[i] = s.position[u], pv[i] = s.position[v];
        GROW(pu[i], pv[i]);
        live++;
    }
    int nl = 0;
    for (int j = 0; j < nj; ++j) {
        ctn_joint_id id;
        if (ctn_world_joint_at(w, j, &id) != CTN_OK || ctn_joint_get_info(w, id, &joints[nl]) != CTN_OK) continue;
        if (ctn_body_is_world(joints[nl].body_b)) GROW(joints[nl].anchor_b[u], joints[nl].anchor_b[v]);
        nl++;
    }
#undef GROW
    if (!(lo[0] <= hi[0])) lo[0] = lo[1] = -1.0, hi[0] = hi[1] = 1.0;
    double span = fmax(hi[0] - lo[0], hi[1] - lo[1]);
    if (!(span > 1e-9)) span = 1.0;
    for (int k = 0; k < 2; ++k)
        if (hi[k] - lo[k] < 0.02 * span) lo[k] -= 0.01 * span, hi[k] += 0.01 * span;
    const double width = 1000.0, margin = 30.0, top = 40.0;
    double scale = (width - 2 * margin) / (hi[0] - lo[0]);
    double height = (hi[1] - lo[1]) * scale + margin + top;
    if (height > 1400.0) { /* tall scenes: fit the height instead */
        scale = (1400.0 - margin - top) / (hi[1] - lo[1]);
        height = 1400.0;
    }
    /* dots about half the typical joint length on the picture, 1..8 px */
    double sum_len = 0.0;
    int nlen = 0;
    for (int l = 0; l < nl; ++l) {
        const ctn_joint_info *ji = &joints[l];
        if (!alive[ctn_body_index(ji->body_a)]) continue;
        double bu = ctn_body_is_world(ji->body_b) ? ji->anchor_b[u] : alive[ctn_body_index(ji->body_b)] ? pu[ctn_body_index(ji->body_b)] : NAN;
        double bv = ctn_body_is_world(ji->body_b) ? ji->anchor_b[v] : alive[ctn_body_index(ji->body_b)] ? pv[ctn_body_index(ji->body_b)] : NAN;
        double len = hypot(pu[ctn_body_index(ji->body_a)] - bu, pv[ctn_body_index(ji->body_a)] - bv) * scale;
        if (isfinite(len)) sum_len += len, nlen++;
    }
    double dot = nlen ? 0.5 * sum_len / nlen : 8.0;
    if (!(dot >= 1.0)) dot = 1.0;
    if (dot > 8.0) dot = 8.0;
    ctn_atomic_file out;
    if (!ctn__atomic_open_output(&out, path, err, err_size)) {
        free(pu), free(pv), free(alive), free(joints);
        return 0;
    }
    FILE *f = out.f;
    const char *axis_names = "xyz";
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n", width, height, width,
            height);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"%.0f\" y=\"24\" font-family=\"sans-serif\" font-size=\"16\">",
            margin);
    xml_text(f, title);
    fprintf(f, " (%d bodies, %d joints; view %c-%c, %.3g m across)</text>\n", live, nl, axis_names[u], axis_names[v], hi[0] - lo[0]);
#define X(a) (margin + ((a) - lo[0]) * scale)
#define Y(b) (height - margin - ((b) - lo[1]) * scale)
    /* joints: one path of segments; world anchors: red dots */
    fprintf(f, "<path fill=\"none\" stroke=\"#4a6fa5\" stroke-width=\"%.1f\" d=\"", dot > 3.0 ? 1.5 : 0.8);
    for (int l = 0; l < nl; ++l) {
        const ctn_joint_info *ji = &joints[l];
        if (!alive[ctn_body_index(ji->body_a)]) continue;
        double bu, bv;
        if (ctn_body_is_world(ji->body_b)) bu = ji->anchor_b[u], bv = ji->anchor_b[v];
        else if (alive[ctn_body_index(ji->body_b)]) bu = pu[ctn_body_index(ji->body_b)], bv = pv[ctn_body_index(ji->body_b)];
        else continue;
        fprintf(f, "M%.2f %.2fL%.2f %.2f", X(pu[ctn_body_index(ji->body_a)]), Y(pv[ctn_body_index(ji->body_a)]), X(bu), Y(bv));
    }
    fprintf(f, "\"/>\n<path fill=\"none\" stroke=\"#222\" stroke-linecap=\"round\" stroke-width=\"%.1f\" d=\"", dot);
    for (int i = 0; i < nb; ++i)
        if (alive[i]) fprintf(f, "M%.2f %.2fh0", X(pu[i]), Y(pv[i]));
    fprintf(f, "\"/>\n<path fill=\"none\" stroke=\"#c0392b\" stroke-linecap=\"square\" stroke-width=\"%.1f\" d=\"", dot + 2.0);
    for (int l = 0; l < nl; ++l)
        if (ctn_body_is_world(joints[l].body_b)) fprintf(f, "M%.2f %.2fh0", X(joints[l].anchor_b[u]), Y(joints[l].anchor_b[v]));
    fprintf(f, "\"/>\n</svg>\n");
#undef X
#undef Y
    free(pu), free(pv), free(alive), free(joints);
    return ctn__atomic_commit(&out, err, err_size);
}

/* ---- convergence plot ---- */

int ctn_series_init(ctn_series *s, uint64_t first_step, uint64_t steps) {
    memset(s, 0, sizeof s[0]);
    s->first = first_step;
    s->per = steps / CTN_SERIES_BUCKETS + (steps % CTN_SERIES_BUCKETS != 0);
    if (s->per == 0) s->per = 1;
    s->step = malloc(CTN_SERIES_BUCKETS * sizeof *s->step);
    s->gap = malloc(CTN_SERIES_BUCKETS * sizeof *s->gap);
    s->residual = malloc(CTN_SERIES_BUCKETS * sizeof *s->residual);
    if (!s->step || !s->gap || !s->residual) {
        ctn_series_free(s);
        return 0;
    }
    return 1;
}

void ctn_series_add(ctn_series *s, uint64_t step, double gap, double residual) {
    if (!s->step || step < s->first) return;
    uint64_t b = (step - s->first) / s->per;
    if (b >= CTN_SERIES_BUCKETS) return;
    if ((int)b >= s->count) {
        s->count = (int)b + 1;
        s->step[b] = step;
        s->gap[b] = gap;
        s->residual[b] = residual;
        return;
    }
    if (gap > s->gap[b] || !isfinite(gap)) s->gap[b] = gap;
    if (residual > s->residual[b] || !isfinite(residual)) s->residual[b] = residual;
}

void ctn_series_free(ctn_series *s) {
    free(s->step);
    free(s->gap);
    free(s->residual);
    memset(s, 0, sizeof *s);
}

/* A "nice" tick spacing (1, 2 or 5 times a power of ten) giving about n ticks over span. */
static double nice_step(double span, int n) {
    double raw = span / n, p = pow(10.0, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1.0 : m < 3.5 ? 2.0 : m < 7.5 ? 5.0 : 10.0) * p;
}

int ctn_svg_plot(const char *path, const ctn_series *s, const char *title, char *err, size_t err_size) {
    double vmin = INFINITY, vmax = -INFINITY;
    for (int i = 0; i < s->count; ++i) {
        double v[2] = {s->gap[i], s->residual[i]};
        for (int k = 0; k < 2; ++k)
            if (v[k] > 0.0 && isfinite(v[k])) {
                if (v[k] < vmin) vmin = v[k];
                if (v[k] > vmax) vmax = v[k];
            }
    }
    int dlo = isfinite(vmin) ? (int)floor(log10(vmin)) : -12, dhi = isfinite(vmax) ? (int)ceil(log10(vmax)) : 0;
    if (dlo < -30) dlo = -30;
    if (dhi > 30) dhi = 30;
    if (dhi <= dlo) dhi = dlo + 1;
    const double W = 900, H = 500, L = 80, R = 30, T = 50, B = 60;
    double x0 = s->count ? (double)s->step[0] : 0.0, x1 = s->count ? (double)s->step[s->count - 1] : 1.0;
    if (x1 <= x0) x1 = x0 + 1.0;
    ctn_atomic_file out;
    if (!ctn__atomic_open_output(&out, path, err, err_size)) return 0;
    FILE *f = out.f;
#define PX(x) (L + ((x) - x0) / (x1 - x0) * (W - L - R))
#define PY(v) (H - B - ((v) - dlo) / (double)(dhi - dlo) * (H - T - B))
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
            W, H, W, H);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"%.0f\" y=\"24\" font-size=\"16\">", L);
    xml_text(f, title);
    fprintf(f, "</text>\n");
    /* decade grid and labels */
    int every = (dhi - dlo) > 12 ? (dhi - dlo + 11) / 12 : 1;
    for (int d = dlo; d <= dhi; d += every) {
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, PY(d), W - R, PY(d));
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">1e%d</text>\n", L - 6, PY(d) + 4, d);
    }
    double xs = nice_step(x1 - x0, 6);
    for (double x = ceil(x0 / xs) * xs; x <= x1 + 1e-9; x += xs) {
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", PX(x), T, PX(x), H - B);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n", PX(x), H - B + 18, x);
    }
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#444\"/>\n", L, T, W - L - R, H - T - B);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">step</text>\n", (L + W - R) / 2, H - 15);
    fprintf(f, "<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\">max joint gap (m), residual (m/s); log scale</text>\n",
            (T + H - B) / 2);
    const char *colour[2] = {"#1f77b4", "#ff7f0e"};
    const char *label[2] = {"max joint gap (m)", "RMS residual (m/s)"};
    for (int k = 0; k < 2; ++k) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", colour[k]);
        for (int i = 0; i < s->count; ++i) {
            double v = k ? s->residual[i] : s->gap[i];
            double lv = v > 0.0 && isfinite(v) ? log10(v) : (isfinite(v) || isnan(v) ? dlo : dhi);
            if (lv < dlo) lv = dlo;
            if (lv > dhi) lv = dhi;
            fprintf(f, "%s%.1f,%.1f", i ? " " : "", PX((double)s->step[i]), PY(lv));
        }
        fprintf(f, "\"/>\n");
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>\n", W - R - 200, T + 18.0 + 18 * k,
                W - R - 175, T + 18.0 + 18 * k, colour[k]);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", W - R - 170, T + 22.0 + 18 * k, label[k]);
    }
    fprintf(f, "</svg>\n");
#undef PX
#undef PY
    return ctn__atomic_commit(&out, err, err_size);
}
