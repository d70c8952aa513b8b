/* The summary of a run: machine-readable (--json FILE: settings, backend and device, sizes, colours,
 * timings per phase, joint violation, how the run ended and why; plain JSON, written atomically) and the
 * report printed at the end. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "io/json_write.h"

#include <math.h>
#include <string.h>

static void jnum(FILE *f, double v) {
    if (isfinite(v)) fprintf(f, "%.17g", v);
    else fputs("null", f);
}

int ctn_json_summary(const char *path, const ctn_run_summary *s, char *err, size_t err_size) {
    ctn_atomic_file out;
    if (!ctn__atomic_open_output(&out, path, err, err_size)) return 0;
    FILE *f = out.f;
    const ctn_world_desc *d = &s->desc;
    double n = s->steps_run ? (double)s->steps_run : 1.0;
    fprintf(f, "{\n  \"catena_version\": \"%d.%d.%d\",\n  \"status\": ", CATENA_VERSION_MAJOR, CATENA_VERSION_MINOR, CATENA_VERSION_PATCH);
    ctn__json_write_string(f, s->status);
    fprintf(f, ",\n  \"exit_code\": %d,\n  \"error\": ", s->exit_code);
    ctn__json_write_string(f, s->error && s->error[0] ? s->error : NULL);
    fputs(",\n  \"scene\": ", f);
    ctn__json_write_string(f, s->scene);
    fputs(",\n  \"settings\": {\n    \"solver\": ", f);
    ctn__json_write_string(f, ctn_solver_name(d->solver));
    fputs(",\n    \"solver_used\": ", f); /* what auto chose for the last step */
    ctn__json_write_string(f, ctn_solver_name(s->steps_run ? s->last.solver : d->solver));
    fputs(",\n    \"solver_reason\": ", f); /* and why */
    ctn__json_write_string(f, s->steps_run ? s->last.solver_reason : NULL);
    fputs(",\n    \"integrator\": ", f);
    ctn__json_write_string(f, ctn_integrator_name(d->integrator));
    fputs(",\n    \"integrator_used\": ", f); /* what ran in the last step */
    ctn__json_write_string(f, s->steps_run ? ctn_integrator_name(s->last.integrator) : NULL);
    fputs(",\n    \"integrator_reason\": ", f);
    ctn__json_write_string(f, s->steps_run ? s->last.integrator_reason : NULL);
    fprintf(f, ",\n    \"rattle_max_joints\": %d", d->rattle_max_joints);
    fprintf(f, ",\n    \"bounded_rows\": %d", (int)d->bounded_rows);
    fprintf(f, ",\n    \"iterations\": %d,\n    \"substeps\": %d,\n    \"time_step\": ", d->iterations, d->substeps);
    jnum(f, d->time_step);
    fputs(",\n    \"gravity\": [", f);
    for (int k = 0; k < 3; ++k) {
        if (k) fputs(", ", f);
        jnum(f, d->gravity[k]);
    }
    fputs("],\n    \"stabilization\": ", f);
    ctn__json_write_string(f, ctn_stabilization_name(d->stabilization));
    fputs(",\n    \"compliance\": ", f);
    jnum(f, d->compliance);
    fputs(",\n    \"damping_time\": ", f);
    jnum(f, d->damping_time);
    fputs(",\n    \"baumgarte\": ", f);
    jnum(f, d->baumgarte);
    fputs(",\n    \"warm_start\": ", f);
    jnum(f, d->warm_start);
    fprintf(f, ",\n    \"max_colours\": %d,\n    \"threads\": %d,\n    \"max_speed\": ", d->max_colours, d->threads);
    jnum(f, d->max_speed);
    fputs(",\n    \"backend\": ", f);
    ctn__json_write_string(f, ctn_backend_name(d->backend));
    fputs("\n  },\n  \"backend\": ", f);
    ctn__json_write_string(f, s->backend);
    fputs(",\n  \"device\": ", f);
    ctn__json_write_string(f, s->device);
    fprintf(f, ",\n  \"cpu_threads\": %d,\n  \"omp_wait_policy\": ", s->steps_run ? s->last.threads : d->threads > 0 ? d->threads : ctn_cli_cpu_count());
    ctn__json_write_string(f, ctn_cli_wait_policy());
    fprintf(f, ",\n  \"bodies\": %d,\n  \"joints\": %d,\n  \"rows\": %d,\n", s->bodies, s->joints, s->last.rows);
    fprintf(f, "  \"start_step\": %llu,\n  \"end_step\": %llu,\n  \"steps_run\": %llu,\n", (unsigned long long)s->start_step,
            (unsigned long long)s->end_step, (unsigned long long)s->steps_run);
    fprintf(f, "  \"colours\": {\"count\": %d, \"largest\": %d, \"overflow\": %d},\n", s->last.colours, s->last.largest_colour,
            s->last.overflow);
    fputs("  \"timings_ms\": {\n    \"wall_total\": ", f);
    jnum(f, s->wall_s * 1e3);
    const char *names[6] = {"step", "colour", "prepare", "solve", "integrate", "transfer"};
    double sums[6] = {s->sum.ms_total, s->sum.ms_colour, s->sum.ms_prepare, s->sum.ms_solve, s->sum.ms_integrate, s->sum.ms_transfer};
    fputs(",\n    \"total\": {", f);
    for (int k = 0; k < 6; ++k) {
        fprintf(f, "%s\"%s\": ", k ? ", " : "", names[k]);
        jnum(f, sums[k]);
    }
    fputs("},\n    \"per_step\": {", f);
    for (int k = 0; k < 6; ++k) {
        fprintf(f, "%s\"%s\": ", k ? ", " : "", names[k]);
        jnum(f, sums[k] / n);
    }
    fputs("}\n  },\n  \"row_updates_per_s\": ", f);
    jnum(f, s->sum.ms_total > 0.0 ? s->last.row_updates * (double)s->steps_run / (s->sum.ms_total * 1e-3) : 0.0);
    fputs(",\n  \"violation\": {\n    \"final_max_gap\": ", f);
    jnum(f, s->last.max_gap);
    fputs(",\n    \"final_max_angle\": ", f);
    jnum(f, s->last.max_angle);
    fputs(",\n    \"final_residual\": ", f);
    jnum(f, s->last.residual);
    fputs(",\n    \"worst_max_gap\": ", f);
    jnum(f, s->worst_all);
    fputs(",\n    \"final_joint_gap\": ", f);
    jnum(f, s->last.max_joint_gap);
    fputs(",\n    \"worst_joint_gap\": ", f);
    jnum(f, s->worst_gap);
    fprintf(f, ",\n    \"worst_joint_gap_step\": %llu,\n    \"worst_max_gap_step\": %llu,\n    \"final_penetration\": ",
            (unsigned long long)s->worst_gap_step, (unsigned long long)s->worst_all_step);
    jnum(f, s->last.max_penetration);
    fputs(",\n    \"worst_penetration\": ", f);
    jnum(f, s->worst_depth);
    fprintf(f, ",\n    \"worst_penetration_step\": %llu,\n    \"shortest_link\": ", (unsigned long long)s->worst_depth_step);
    jnum(f, s->link_length);
    fputs("\n  },\n  \"checkpoint\": ", f);
    ctn__json_write_string(f, s->checkpoint);
    fputs(",\n  \"checkpoint_step\": ", f); /* the step the last checkpoint written holds */
    if (s->checkpoint) fprintf(f, "%llu", (unsigned long long)s->checkpoint_step);
    else fputs("null", f);
    fprintf(f, ",\n  \"checkpoints_written\": %d,\n  \"failed_output\": ", s->checkpoints_written);
    ctn__json_write_string(f, s->failed_output);
    fputs("\n}\n", f);
    return ctn__atomic_commit(&out, err, err_size);
}

void ctn_summary_of_failure(const ctn_cli_opts *o, int code) {
    if (!o->json) return;
    char err[1024];
    ctn_atomic_file out;
    if (!ctn__atomic_open_output(&out, o->json, err, sizeof err)) {
        fprintf(stderr, "catena: --json: %s\n", err);
        return;
    }
    FILE *f = out.f;
    fprintf(f, "{\n  \"catena_version\": \"%d.%d.%d\",\n  \"status\": \"failed\",\n  \"exit_code\": %d,\n  \"error\": ", CATENA_VERSION_MAJOR,
            CATENA_VERSION_MINOR, CATENA_VERSION_PATCH, code);
    ctn__json_write_string(f, ctn_cli_last_error());
    fputs(",\n  \"scene\": ", f);
    ctn__json_write_string(f, o->scene);
    fputs(",\n  \"steps_run\": 0\n}\n", f);
    if (!ctn__atomic_commit(&out, err, sizeof err)) fprintf(stderr, "catena: --json: %s\n", err);
}

void ctn_print_summary(FILE *f, const ctn_run_summary *s) {
    const ctn_step_stats *l = &s->last, *sum = &s->sum;
    int ran = s->steps_run > 0;
    double n = ran ? (double)s->steps_run : 1.0;
    fprintf(f, "scene            %s\n", s->scene);
    fprintf(f, "backend          %s (%s)\n", s->backend, s->device);
    fprintf(f, "bodies / joints  %d / %d (%d rows)\n", s->bodies, s->joints, l->rows);
    fprintf(f, "solver           %s%s, %d iterations x %d substeps, dt %.6g s\n", ctn_solver_name(ran ? l->solver : s->desc.solver),
            s->desc.solver == CTN_SOLVER_AUTO && ran ? " (auto)" : "", s->desc.iterations, s->desc.substeps, s->desc.time_step);
    if (s->desc.solver == CTN_SOLVER_AUTO && ran && l->solver_reason[0]) fprintf(f, "solver choice    %s\n", l->solver_reason);
    if (ran && l->integrator_reason[0]) fprintf(f, "integrator       %s\n", l->integrator_reason);
    fprintf(f, "colours          %d (largest %d, overflow %d)\n", l->colours, l->largest_colour, l->overflow);
    if (l->contacts > 0) fprintf(f, "contacts         %d (collision %.4f ms/step)\n", l->contacts, sum->ms_collide / n);
    fprintf(f, "steps            %llu..%llu (%s)\n", (unsigned long long)s->start_step, (unsigned long long)s->end_step, s->status);
    fprintf(f, "ms/step          %.4f (colour %.4f, prepare %.4f, solve %.4f, integrate %.4f, transfer %.4f)\n", sum->ms_total / n,
            sum->ms_colour / n, sum->ms_prepare / n, sum->ms_solve / n, sum->ms_integrate / n, sum->ms_transfer / n);
    fprintf(f, "row updates/s    %.4g\n", sum->ms_total > 0 ? l->row_updates * (double)s->steps_run / (sum->ms_total * 1e-3) : 0.0);
    fprintf(f, "max joint gap    %.6g m (final), %.6g m (worst, step %llu); joints only\n", l->max_joint_gap, s->worst_gap,
            (unsigned long long)s->worst_gap_step);
    if (l->contacts > 0 || s->worst_depth > 0.0)
        fprintf(f, "contact depth    %.6g m (final), %.6g m (worst, step %llu); penetration, no joint error\n", l->max_penetration,
                s->worst_depth, (unsigned long long)s->worst_depth_step);
    fprintf(f, "max joint angle  %.6g rad (final)\n", l->max_angle);
    fprintf(f, "residual         %.6g m/s (last iteration)\n", l->residual);
    for (int k = 0; k < 6 && s->outputs[k][0]; ++k) fprintf(f, "%-16s %s%s\n", s->outputs[k][0], s->outputs[k][1], !strcmp(s->outputs[k][0], "vtk") ? "/catena.pvd" : "");
    if (s->failed_output) fprintf(f, "failed           writing the %s: %s\n", s->failed_output, s->error && s->error[0] ? s->error : "?");
    if (s->checkpoint) fprintf(f, "checkpoint       %s (step %llu)\n", s->checkpoint, (unsigned long long)s->checkpoint_step);
    else if (s->failed_output && !strcmp(s->failed_output, "checkpoint")) fprintf(f, "checkpoint       none written\n");
}
