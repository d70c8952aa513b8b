/* `catena sweep`'s files: the run records in OUT/runs/ (read back to resume and to merge) and the merged
 * summaries OUT/summary.{json,csv}. */
#define _POSIX_C_SOURCE 200809L
#include "sweep_files.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

void ctn_sweep_run_path(const char *dir, long long index, const char *ext, char *out, size_t n) {
    snprintf(out, n, "%s/runs/run-%06lld.%s", dir, index, ext);
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = 2 * cap + 8192;
            char *nb = realloc(buf, cap);
            if (!nb) break;
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
    }
    fclose(f);
    if (buf) buf[n] = '\0';
    return buf;
}

/* What is wrong with a record whose signature matches `run`, or NULL: the fields the summaries read must be
 * there and agree with the run (a damaged file that kept its signature must not crash the merge). */
static const char *record_damage(const cJSON *j, const ctn_ensemble_run *run) {
    const cJSON *point = cJSON_GetObjectItemCaseSensitive(j, "point"), *replica = cJSON_GetObjectItemCaseSensitive(j, "replica");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(j, "status");
    if (!cJSON_IsNumber(point)) return "no \"point\" number";
    if (!cJSON_IsNumber(replica)) return "no \"replica\" number";
    if (point->valuedouble != (double)run->point) return "\"point\" is not the run's grid point";
    if (replica->valuedouble != (double)run->replica) return "\"replica\" is not the run's replica";
    if (!cJSON_IsString(status)) return "no \"status\" string";
    return NULL;
}

cJSON *ctn_sweep_load_run(const char *dir, const ctn_ensemble_run *run, int warn) {
    char path[4200], sig[32];
    ctn_sweep_run_path(dir, run->index, "json", path, sizeof path);
    char *text = slurp(path);
    if (!text) return NULL;
    cJSON *j = cJSON_Parse(text);
    free(text);
    snprintf(sig, sizeof sig, "%016llx", (unsigned long long)run->signature);
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, "signature");
    const char *damage = !j ? "not JSON" : !cJSON_IsString(s) ? "no \"signature\" string" : NULL;
    if (!damage && strcmp(s->valuestring, sig)) { /* a run of another definition: done again, nothing to say */
        cJSON_Delete(j);
        return NULL;
    }
    if (!damage) damage = record_damage(j, run);
    if (damage) {
        if (warn) fprintf(stderr, "catena: sweep: warning: %s is damaged (%s): run %lld is run again\n", path, damage, run->index);
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

int ctn_sweep_write_json(const char *path, const cJSON *j, char *err, size_t err_size) {
    char *text = cJSON_Print(j);
    if (!text) return snprintf(err, err_size, "out of memory for %.900s", path), 0;
    ctn_atomic_file o;
    int ok = ctn__atomic_open_output(&o, path, err, err_size);
    if (ok) {
        fputs(text, o.f);
        fputc('\n', o.f);
        ok = ctn__atomic_commit(&o, err, err_size);
    }
    free(text);
    return ok;
}

/* Resolves run `index` and folds into its signature what the command line changes about its result:
 * the batch (batched replicas sample their gap every `every` steps) and the backend. */
int ctn_sweep_resolve(const ctn_ensemble *e, const sweep_opts *o, int batch, long long index, ctn_ensemble_run *run, char *err, size_t n) {
    if (!ctn_ensemble_resolve(e, index, run, err, n)) return 0;
    int extra[2] = {batch, o->backend_set ? (int)o->backend + 1 : 0};
    run->signature = ctn__fnv1a(run->signature, extra, sizeof extra);
    return 1;
}

/* ---- the merged summaries ---- */

static void csv_field(FILE *f, const cJSON *v) {
    if (cJSON_IsString(v)) {
        fputc('"', f);
        for (const char *c = v->valuestring; *c; ++c) {
            if (*c == '"') fputc('"', f);
            fputc(*c == '\n' ? ' ' : *c, f);
        }
        fputc('"', f);
    } else if (cJSON_IsNumber(v)) {
        fprintf(f, "%.17g", v->valuedouble);
    } else if (cJSON_IsBool(v)) {
        fputs(cJSON_IsTrue(v) ? "true" : "false", f);
    }
}

int ctn_sweep_write_summaries(const ctn_ensemble *e, const sweep_opts *o, int batch, int *failed) {
    char err[1024], path[4200];
    cJSON *all = cJSON_CreateObject(), *runs = cJSON_CreateArray();
    cJSON_AddStringToObject(all, "ensemble", e->source);
    cJSON_AddNumberToObject(all, "runs_total", (double)e->runs);
    cJSON_AddItemToObject(all, "runs", runs);
    int counts[4] = {0, 0, 0, 0};
    static const char *const names[4] = {"ok", "torn", "diverged", "error"};
    ctn_atomic_file csv;
    snprintf(path, sizeof path, "%s/summary.csv", o->out);
    int ok = ctn__atomic_open_output(&csv, path, err, sizeof err);
    if (ok) {
        fputs("index,point,replica", csv.f);
        for (int p = 0; p < e->param_count; ++p) fprintf(csv.f, ",%s", e->params[p].path);
        fputs(",status,steps_run,max_gap,final_gap,solver,backend,state_hash,ms_per_step,wall_s,error\n", csv.f);
    }
    *failed = 0;
    for (long long i = 0; ok && i < e->runs; ++i) {
        ctn_ensemble_run run;
        cJSON *j = NULL;
        if (ctn_sweep_resolve(e, o, batch, i, &run, err, sizeof err)) {
            j = ctn_sweep_load_run(o->out, &run, 0);
            ctn_ensemble_run_free(&run);
        }
        if (!j) {
            snprintf(err, sizeof err, "run %lld has no result in %s/runs (was the sweep interrupted?)", i, o->out);
            ok = 0;
            break;
        }
        const cJSON *status = cJSON_GetObjectItemCaseSensitive(j, "status");
        for (int k = 0; k < 4; ++k) counts[k] += cJSON_IsString(status) && !strcmp(status->valuestring, names[k]);
        *failed += !cJSON_IsString(status) || strcmp(status->valuestring, "ok");
        fprintf(csv.f, "%lld,%lld,%d", i, (long long)cJSON_GetObjectItemCaseSensitive(j, "point")->valuedouble,
                (int)cJSON_GetObjectItemCaseSensitive(j, "replica")->valuedouble);
        const cJSON *params = cJSON_GetObjectItemCaseSensitive(j, "parameters");
        for (int p = 0; p < e->param_count; ++p) {
            fputc(',', csv.f);
            csv_field(csv.f, cJSON_GetObjectItemCaseSensitive(params, e->params[p].path));
        }
        static const char *const cols[] = {"status", "steps_run", "max_gap", "final_gap", "solver", "backend", "state_hash", NULL};
        for (int c = 0; cols[c]; ++c) {
            fputc(',', csv.f);
            csv_field(csv.f, cJSON_GetObjectItemCaseSensitive(j, cols[c]));
        }
        const cJSON *timing = cJSON_GetObjectItemCaseSensitive(j, "timing");
        fputc(',', csv.f);
        csv_field(csv.f, cJSON_GetObjectItemCaseSensitive(timing, "ms_per_step"));
        fputc(',', csv.f);
        csv_field(csv.f, cJSON_GetObjectItemCaseSensitive(timing, "wall_s"));
        fputc(',', csv.f);
        csv_field(csv.f, cJSON_GetObjectItemCaseSensitive(j, "error"));
        fputc('\n', csv.f);
        cJSON_AddItemToArray(runs, j);
    }
    cJSON *c = cJSON_AddObjectToObject(all, "counts");
    for (int k = 0; k < 4; ++k) cJSON_AddNumberToObject(c, names[k], counts[k]);
    if (ok) ok = ctn__atomic_commit(&csv, err, sizeof err);
    else ctn__atomic_abort(&csv);
    snprintf(path, sizeof path, "%s/summary.json", o->out);
    if (ok) ok = ctn_sweep_write_json(path, all, err, sizeof err);
    cJSON_Delete(all);
    if (!ok) fprintf(stderr, "catena: sweep: %s\n", err);
    else if (!o->quiet)
        fprintf(stderr, "catena: sweep: %lld runs: %d ok, %d torn, %d diverged, %d error; %s/summary.{json,csv}\n", e->runs, counts[0],
                counts[1], counts[2], counts[3], o->out);
    return ok;
}

/* Removes the temporary files (run-NNNNNN.json.tmp.PID) of runs killed while writing: their runs are
 * simply run again. Called by the first process before any run starts. */
void ctn_sweep_remove_stale_temporaries(const char runs_dir[4200]) {
    DIR *d = opendir(runs_dir);
    if (!d) return;
    char path[4200 + 256 + 2];
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, "run-", 4) || !strstr(e->d_name, ".tmp.")) continue;
        snprintf(path, sizeof path, "%s/%s", runs_dir, e->d_name);
        remove(path);
    }
    closedir(d);
}

