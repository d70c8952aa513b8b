/* The output of `catena bench`: the table on the terminal, --json and --csv (docs/bench.md names every
 * field). Files are written atomically (host/io/atomic_file.h); "-" is standard output. */
#define _POSIX_C_SOURCE 200809L
#include "bench_internal.h"
#include "io/json_write.h"

#include <math.h>
#include <string.h>

static double spread_pct(const ctn_bench_result *r) {
    return r->ms_median > 0.0 ? 50.0 * (r->ms_max - r->ms_min) / r->ms_median : 0.0;
}

static double bodies_steps(const ctn_bench_result *r) { return r->ms_median > 0.0 ? r->bodies / (r->ms_median * 1e-3) : 0.0; }

void ctn_bench_print_table(FILE *f, const bench_header *h, const bench_device *dev, int ndev, const bench_row *rows, int nrows, int planned,
                        const bench_opts *o) {
    fprintf(f, "catena bench %s: %s, %s (%d CPUs), commit %s%s\n", ctn_version(), h->host, h->cpu, h->cpus, h->commit,
            h->interrupted ? "; INTERRUPTED" : "");
    for (int i = 0; i < ndev; ++i) {
        fprintf(f, "  %-12s %s | %s", dev[i].id, dev[i].name[0] ? dev[i].name : "?", dev[i].driver[0] ? dev[i].driver : "-");
        if (dev[i].error[0]) fprintf(f, " | unusable: %s\n", dev[i].error);
        else fprintf(f, " | copy %.3g GB/s\n", dev[i].copy_gbps);
    }
    char it[16] = "default", sub[16] = "default";
    if (o->iterations) snprintf(it, sizeof it, "%d", o->iterations);
    if (o->substeps) snprintf(sub, sizeof sub, "%d", o->substeps);
    fprintf(f, "  warm-up %d steps, then %d repeats x %d steps (fewer past %g s a case); iterations %s, substeps %s\n", o->warmup,
            o->repeats, o->steps, o->case_seconds, it, sub);
    fprintf(f, "%-8s %8s %-12s %-12s %9s %6s %11s %10s %7s %6s %9s %6s\n", "case", "bodies", "solver", "device", "ms/step", "+-%",
            "bodies*st/s", "row upd/s", "launch", "reads", "worst gap", "GS bw");
    for (int i = 0; i < nrows; ++i) {
        const bench_row *row = &rows[i];
        const ctn_bench_result *r = &row->r;
        char solver[32];
        if (r->steps_run > 0 && row->solver == CTN_SOLVER_AUTO) snprintf(solver, sizeof solver, "auto:%s", ctn_bench_solver_name(r->solver_used));
        else snprintf(solver, sizeof solver, "%s", ctn_bench_solver_name(row->solver));
        if (r->timed == 0) {
            fprintf(f, "%-8s %8d %-12s %-12s %s: %s\n", ctn_bench_case_name(row->c), row->size, solver, dev[row->dev].id, row->status,
                    row->error[0] ? row->error : "no step measured");
            continue;
        }
        char bw[16] = "-";
        if (row->gs_fraction > 0.0) snprintf(bw, sizeof bw, "%.0f%%", 100.0 * row->gs_fraction);
        fprintf(f, "%-8s %8d %-12s %-12s %9.3f %6.1f %11.3g %10.3g %7.1f %6.1f %9.2g %6s%s%s\n", ctn_bench_case_name(row->c), r->bodies, solver,
                dev[row->dev].id, r->ms_median, spread_pct(r), bodies_steps(r), r->row_updates_per_s, r->launches, r->blocking_reads,
                r->gap_worst, bw, strcmp(row->status, "ok") ? "  " : "", strcmp(row->status, "ok") ? row->status : "");
    }
    if (nrows < planned) fprintf(f, "(%d of %d rows measured before the signal)\n", nrows, planned);
    fprintf(f, "ms/step: median of the repeats' medians, +-%%: half the range of the repeats / median; worst gap in m; "
               "GS bw: Gauss-Seidel sweep traffic / measured copy bandwidth (docs/bench.md). %.0f s.\n",
            h->wall_s);
}

static void json_num(FILE *f, double v) {
    if (isfinite(v)) fprintf(f, "%.6g", v);
    else fprintf(f, "null");
}

static void write_json(FILE *f, const bench_header *h, const bench_device *dev, int ndev, const bench_row *rows, int nrows, int planned,
                       const bench_opts *o) {
    fprintf(f, "{\n  \"tool\": \"catena bench\",\n  \"version\": \"%s\",\n  \"date\": \"%s\",\n  \"command\": ", ctn_version(), h->date);
    ctn__json_write_string(f, h->command);
    fprintf(f, ",\n  \"commit\": ");
    ctn__json_write_string(f, h->commit);
    fprintf(f, ",\n  \"machine\": {\"host\": ");
    ctn__json_write_string(f, h->host);
    fprintf(f, ", \"cpu\": ");
    ctn__json_write_string(f, h->cpu);
    fprintf(f, ", \"logical_cpus\": %d, \"os\": ", h->cpus);
    ctn__json_write_string(f, h->os);
    fprintf(f, ", \"load_average_start\": \"%s\", \"load_average_end\": \"%s\"},\n", h->load_start, h->load_end);
    fprintf(f, "  \"devices\": [\n");
    for (int i = 0; i < ndev; ++i) {
        const bench_device *d = &dev[i];
        fprintf(f, "    {\"id\": \"%s\", \"backend\": \"%s\", \"name\": ", d->id,
                d->backend == CTN_BACKEND_CPU ? "cpu" : d->backend == CTN_BACKEND_OPENCL ? "opencl" : "auto");
        ctn__json_write_string(f, d->name);
        fprintf(f, ", \"driver\": ");
        ctn__json_write_string(f, d->driver);
        fprintf(f, ", \"gpu\": %s, \"compute_units\": %d, \"copy_bandwidth_gbps\": ", d->is_gpu ? "true" : "false", d->compute_units);
        json_num(f, d->copy_gbps);
        fprintf(f, ", \"error\": ");
        ctn__json_write_string(f, d->error[0] ? d->error : NULL);
        fprintf(f, "}%s\n", i + 1 < ndev ? "," : "");
    }
    fprintf(f, "  ],\n  \"settings\": {\"quick\": %s, \"warmup\": %d, \"repeats\": %d, \"steps\": %d, \"case_seconds\": %g, "
               "\"iterations\": %d, \"substeps\": %d, \"threads\": %d, \"time_step\": %.9g, \"gs_bytes_per_joint\": %.0f},\n",
            o->quick ? "true" : "false", o->warmup, o->repeats, o->steps, o->case_seconds, o->iterations, o->substeps, o->threads, 1.0 / 60.0,
            CTN_BENCH_GS_BYTES_PER_JOINT);
    fprintf(f, "  \"definitions\": \"ms_per_step: median over the repeats of each repeat's median wall time of ctn_world_step (device "
               "finished); ms_min/ms_max: fastest and slowest repeat; bodies_steps_per_s = bodies / ms_per_step; row_updates_per_s = "
               "rows x iterations x substeps / ms_per_step; launches and blocking reads: means per timed step; worst_gap_m: largest "
               "joint gap after any step; gs_bandwidth_fraction: joints x gs_bytes_per_joint per sweep / (ms_solve / sweeps) / the "
               "device's copy bandwidth (docs/bench.md)\",\n");
    fprintf(f, "  \"cases\": {");
    for (int k = 0; k < CASE_COUNT; ++k) {
        fprintf(f, "%s\"%s\": ", k ? ", " : "", ctn_bench_case_name(k));
        ctn__json_write_string(f, ctn_bench_case_text(k));
    }
    fprintf(f, "},\n  \"interrupted\": %s,\n  \"rows_planned\": %d,\n  \"wall_s\": %.3f,\n  \"results\": [\n", h->interrupted ? "true" : "false",
            planned, h->wall_s);
    for (int i = 0; i < nrows; ++i) {
        const bench_row *row = &rows[i];
        const ctn_bench_result *r = &row->r;
        fprintf(f, "    {\"case\": \"%s\", \"size\": %d, \"scene\": ", ctn_bench_case_name(row->c), row->size);
        ctn__json_write_string(f, row->spec);
        fprintf(f, ", \"solver\": \"%s\", \"solver_used\": ", ctn_bench_solver_name(row->solver));
        ctn__json_write_string(f, r->steps_run > 0 ? ctn_bench_solver_name(r->solver_used) : NULL);
        fprintf(f, ", \"device\": \"%s\", \"device_name\": ", dev[row->dev].id);
        ctn__json_write_string(f, dev[row->dev].name);
        fprintf(f, ", \"status\": \"%s\", \"error\": ", row->status);
        ctn__json_write_string(f, row->error[0] ? row->error : NULL);
        fprintf(f, ", \"note\": ");
        ctn__json_write_string(f, row->note[0] ? row->note : NULL);
        fprintf(f, ", \"notes\": %d", row->notes);
        fprintf(f, ",\n     \"bodies\": %d, \"joints\": %d, \"rows\": %d, \"contacts\": %d, \"colours\": %d, \"iterations\": %d, "
                   "\"substeps\": %d, \"steps_run\": %d, \"timed_steps\": %d, \"repeats\": %d, \"setup_s\": %.4g, \"wall_s\": %.4g,\n     ",
                r->bodies, r->joints, r->rows, r->contacts, r->colours, r->iterations, r->substeps, r->steps_run, r->timed, r->repeats,
                row->setup_s, r->wall_s);
        const struct { const char *k; double v; } nums[] = {
            {"ms_per_step", r->ms_median}, {"ms_min", r->ms_min}, {"ms_max", r->ms_max}, {"spread_pct", spread_pct(r)},
            {"ms_solve", r->ms_solve}, {"ms_prepare", r->ms_prepare}, {"ms_integrate", r->ms_integrate}, {"ms_transfer", r->ms_transfer},
            {"ms_collide", r->ms_collide}, {"bodies_steps_per_s", bodies_steps(r)}, {"row_updates_per_s", r->row_updates_per_s},
            {"launches_per_step", r->launches}, {"blocking_reads_per_step", r->blocking_reads}, {"worst_gap_m", r->gap_worst},
            {"last_gap_m", r->gap_last}, {"worst_contact_depth_m", r->depth_worst}, {"gs_sweep_ms", row->sweep_ms}, {"gs_bandwidth_fraction", row->gs_fraction}};
        for (size_t k = 0; k < sizeof nums / sizeof nums[0]; ++k) {
            fprintf(f, "%s\"%s\": ", k ? ", " : "", nums[k].k);
            json_num(f, nums[k].v);
        }
        fprintf(f, "}%s\n", i + 1 < nrows ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
}

/* A CSV field: quoted (RFC 4180) when it holds a comma, a quote or a line break. */
static void csv_field(FILE *f, const char *s) {
    if (!s) return;
    if (!s[strcspn(s, ",\"\n\r")]) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void write_csv(FILE *f, const bench_header *h, const bench_device *dev, int ndev, const bench_row *rows, int nrows, int planned) {
    fprintf(f, "# catena bench %s, %s\n# command: %s\n# commit: %s\n# machine: %s, %s, %d CPUs, %s\n", ctn_version(), h->date, h->command,
            h->commit, h->host, h->cpu, h->cpus, h->os);
    for (int i = 0; i < ndev; ++i)
        fprintf(f, "# device %s: %s | %s | copy bandwidth %.4g GB/s%s%s\n", dev[i].id, dev[i].name, dev[i].driver, dev[i].copy_gbps,
                dev[i].error[0] ? " | unusable: " : "", dev[i].error);
    if (h->interrupted) fprintf(f, "# interrupted: %d of %d rows\n", nrows, planned);
    fprintf(f, "case,size,scene,solver,solver_used,device,status,bodies,joints,rows,timed_steps,repeats,ms_per_step,ms_min,ms_max,"
               "bodies_steps_per_s,row_updates_per_s,launches_per_step,blocking_reads_per_step,worst_gap_m,gs_bandwidth_fraction,error,note\n");
    for (int i = 0; i < nrows; ++i) {
        const bench_row *row = &rows[i];
        const ctn_bench_result *r = &row->r;
        fprintf(f, "%s,%d,", ctn_bench_case_name(row->c), row->size);
        csv_field(f, row->spec);
        fprintf(f, ",%s,%s,%s,%s,%d,%d,%d,%d,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.4g,%.4g,%.6g,%.4g,", ctn_bench_solver_name(row->solver),
                r->steps_run > 0 ? ctn_bench_solver_name(r->solver_used) : "", dev[row->dev].id, row->status, r->bodies, r->joints, r->rows, r->timed,
                r->repeats, r->ms_median, r->ms_min, r->ms_max, bodies_steps(r), r->row_updates_per_s, r->launches, r->blocking_reads,
                r->gap_worst, row->gs_fraction);
        csv_field(f, row->error);
        fputc(',', f);
        csv_field(f, row->note);
        fputc('\n', f);
    }
}

typedef void (*writer)(FILE *f, const bench_header *h, const bench_device *dev, int ndev, const bench_row *rows, int nrows, int planned,
                       const bench_opts *o);
static void write_csv_any(FILE *f, const bench_header *h, const bench_device *dev, int ndev, const bench_row *rows, int nrows, int planned,
                          const bench_opts *o) {
    (void)o;
    write_csv(f, h, dev, ndev, rows, nrows, planned);
}

int ctn_bench_write_output(const char *path, int csv, const bench_header *h, const bench_device *dev, int ndev, const bench_row *rows,
                           int nrows, int planned, const bench_opts *o) {
    writer w = csv ? write_csv_any : write_json;
    ctn_atomic_file a;
    char msg[1024];
    if (!ctn__atomic_open_output(&a, path, msg, sizeof msg)) {
        ctn_cli_command_error("bench", "%s", msg);
        return 0;
    }
    w(a.f, h, dev, ndev, rows, nrows, planned, o);
    if (!ctn__atomic_commit(&a, msg, sizeof msg)) {
        ctn_cli_command_error("bench", "%s", msg);
        return 0;
    }
    return 1;
}

