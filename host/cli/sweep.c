/* `catena sweep ENSEMBLE.json [--out DIR]`: runs every run of an ensemble (host/cli/ensemble.c), on one
 * process or spread over MPI ranks (host/cli/sweep_queue.c), and merges the results.
 *
 * Work is handed out in items: one item is one grid point and up to `batch` consecutive replicas of it,
 * advanced together in one world. Each finished run is written atomically to DIR/runs/run-NNNNNN.json;
 * a run whose file exists with the same signature is not run again, so re-running a killed sweep finishes
 * only what is missing. At the end the first process writes DIR/summary.json and DIR/summary.csv from the
 * run files, in run order, so the summaries do not depend on how many processes ran the sweep. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "ensemble.h"
#include "sweep_files.h"
#include "sweep_queue.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void usage_sweep(FILE *f) {
    fprintf(f, "usage: catena sweep ENSEMBLE.json [--out DIR] [--batch K] [--backend auto|cpu|opencl] [--device LIST] [--threads N] [--quiet]\n"
               "       mpirun -np R catena sweep ENSEMBLE.json ...   (runs shared by the ranks; see docs/ensembles.md)\n"
               "  --out DIR      where run files and summaries go (default: sweep-out)\n"
               "  --batch K      advance K replicas of a grid point together in one world (overrides the file)\n"
               "  --backend B    backend of every run (overrides the file's world settings)\n"
               "  --device LIST  OpenCL devices, comma-separated (\"0:0,0:1\"); rank r uses entry r mod count\n"
               "  --threads N    CPU solver threads of every run (default: the file's world.threads, else this\n"
               "                 process's CPUs shared by the ranks on its node)\n"
               "exit codes: 0 every run ok, 1 some run torn, diverged or failed (all recorded), 2 usage, 3 bad ensemble, 6 I/O\n"
               "this build: MPI %s\n",
            ctn_queue_has_mpi() ? "on" : "off (runs on one process)");
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- deterministic random numbers: splitmix64 and a Box-Muller normal ---- */

static uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double normal(uint64_t *s) {
    double u1 = ((double)(splitmix64(s) >> 11) + 0.5) * 0x1.0p-53, u2 = (double)(splitmix64(s) >> 11) * 0x1.0p-53;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* ---- one replica inside a world ---- */

typedef struct replica {
    ctn_ensemble_run run;
    int body_lo, body_hi;     /* body slots [lo, hi) (a generator takes consecutive fresh slots) */
    int joint_lo, joint_hi;   /* joint slots [lo, hi) */
    const char *status;       /* "ok", "torn", "diverged", "error" */
    char error[512];
    double max_gap, final_gap;
    uint64_t state_hash;
    long long steps_run;
} replica;

/* Largest joint gap of a replica, from the per-slot errors of the whole world (ctn_world_get_joint_errors:
 * the joints' values, contacts reading 0, whose maximum is the step's max_joint_gap). */
static double replica_gap(const double *gaps, const replica *r) {
    double worst = 0.0;
    for (int slot = r->joint_lo; slot < r->joint_hi; ++slot)
        if (gaps[slot] > worst || !isfinite(gaps[slot])) worst = gaps[slot];
    return worst;
}

/* FNV-1a of the replica's final positions and velocities: equal hashes mean bitwise-equal states. */
static uint64_t replica_hash(ctn_world *w, const replica *r) {
    uint64_t h = CTN_ENSEMBLE_HASH_START;
    for (int slot = r->body_lo; slot < r->body_hi; ++slot) {
        ctn_body_id b;
        ctn_body_state s;
        if (ctn_world_body_at(w, slot, &b) != CTN_OK || ctn_body_get_state(w, b, &s) != CTN_OK) continue;
        h = ctn__fnv1a(h, s.position, sizeof s.position);
        h = ctn__fnv1a(h, s.orientation, sizeof s.orientation);
        h = ctn__fnv1a(h, s.velocity, sizeof s.velocity);
        h = ctn__fnv1a(h, s.angular_velocity, sizeof s.angular_velocity);
    }
    return h;
}

/* The replica's seeded perturbation: velocity and position noise on every dynamic body, and a constant
 * force of random direction on its last dynamic body (the tip of a chain). */
static ctn_status perturb(ctn_world *w, const ctn_ensemble *e, const replica *r) {
    uint64_t s = r->run.seed;
    ctn_body_id last = CTN_NULL_BODY;
    for (int slot = r->body_lo; slot < r->body_hi; ++slot) {
        ctn_body_id b;
        ctn_body_desc desc;
        ctn_body_state st;
        if (ctn_world_body_at(w, slot, &b) != CTN_OK || ctn_body_get_desc(w, b, &desc) != CTN_OK || desc.type != CTN_BODY_DYNAMIC || ctn_body_get_state(w, b, &st) != CTN_OK) continue;
        last = b;
        if (e->perturb_velocity <= 0.0 && e->perturb_position <= 0.0) continue;
        for (int k = 0; k < 3; ++k) st.velocity[k] += e->perturb_velocity * normal(&s);
        for (int k = 0; k < 3; ++k) st.position[k] += e->perturb_position * normal(&s);
        ctn_status status = ctn_body_set_state(w, b, &st);
        if (status != CTN_OK) return status;
    }
    if (e->perturb_force > 0.0 && !ctn_body_is_null(last)) {
        double f[3] = {e->perturb_force * normal(&s), e->perturb_force * normal(&s), e->perturb_force * normal(&s)}, t[3] = {0, 0, 0};
        return ctn_body_set_force(w, last, f, t);
    }
    return CTN_OK;
}

/* ---- building one work item's world ---- */

typedef struct item {
    const ctn_ensemble *e;
    const sweep_opts *o;
    const ctn_queue_place *place;
    replica *reps;
    int count;
    ctn_world *w;
    ctn_world_desc desc;
    long long steps;
    ctn_scene *scene;         /* parsed document (NULL for a spec) */
    double *gaps;             /* [joint slots] per-joint gaps of a batch, sampled every `every` steps */
    int joint_slots;
    char err[1024];
} item;

/* World settings of the item: the document's, or the spec's world overrides validated by the scene
 * parser (wrapped as {"world": {...}}), then the command line and this process's share of the machine. */
static int item_settings(item *it) {
    const ctn_ensemble_run *run = &it->reps[0].run;
    ctn_scene *settings_only = NULL;
    ctn_status st;
    if (run->doc_text) {
        st = ctn_scene_parse_text(run->doc_text, strlen(run->doc_text), it->e->source, &it->scene, it->err, sizeof it->err);
    } else {
        size_t n = strlen(run->world_text) + 16;
        char *text = malloc(n);
        if (!text) return snprintf(it->err, sizeof it->err, "out of memory"), 0;
        snprintf(text, n, "{\"world\":%s}", run->world_text);
        st = ctn_scene_parse_text(text, strlen(text), it->e->source, &settings_only, it->err, sizeof it->err);
        free(text);
    }
    if (st != CTN_OK) return 0;
    int steps = 0;
    ctn_scene_get_settings(it->scene ? it->scene : settings_only, &it->desc, &steps);
    it->desc.device = NULL; /* the document's device string lives in the scene; the command line may set one below */
    ctn_scene_free(settings_only);
    it->steps = run->steps >= 0 ? run->steps : steps;
    if (it->o->backend_set) it->desc.backend = it->o->backend;
    if (it->o->threads) it->desc.threads = it->o->threads;
    if (it->place->size > 1 && it->desc.threads == 0) {
        int share = ctn_cli_cpu_count() / it->place->local_size;
        it->desc.threads = share > 1 ? share : 1;
    }
    return 1;
}

static int item_build(item *it, const char *device) {
    it->desc.device = device;
    if (ctn_world_create(&it->desc, &it->w, it->err, sizeof it->err) != CTN_OK) return 0;
    for (int k = 0; k < it->count; ++k) {
        replica *r = &it->reps[k];
        ctn_world_id_counts(it->w, &r->body_lo, &r->joint_lo);
        ctn_status st = r->run.doc_text ? ctn_scene_build(it->scene, it->w) : ctn_scene_from_spec(it->w, r->run.spec);
        ctn_world_id_counts(it->w, &r->body_hi, &r->joint_hi);
        if (st == CTN_OK) st = perturb(it->w, it->e, r);
        if (st != CTN_OK) {
            snprintf(it->err, sizeof it->err, "%s", ctn_world_last_error(it->w));
            return 0;
        }
    }
    it->joint_slots = it->reps[it->count - 1].joint_hi;
    if (it->count > 1 && !(it->gaps = calloc((size_t)(it->joint_slots ? it->joint_slots : 1), sizeof *it->gaps))) {
        snprintf(it->err, sizeof it->err, "out of memory for %d joint gaps", it->joint_slots);
        return 0;
    }
    int shapes = 0, planes = 0;
    ctn_world_collision_counts(it->w, &shapes, &planes);
    if (it->count > 1 && (shapes || planes)) {
        snprintf(it->err, sizeof it->err,
                 "batch: replicas of a scene with collision shapes or planes would touch each other (%d shapes, %d planes); use batch 1",
                 shapes, planes);
        return 0;
    }
    return 1;
}

/* ---- stepping ---- */

static void mark_all(item *it, const char *status, const char *error) {
    for (int k = 0; k < it->count; ++k) {
        if (strcmp(it->reps[k].status, "ok")) continue; /* a torn replica stays torn */
        it->reps[k].status = status;
        snprintf(it->reps[k].error, sizeof it->reps[k].error, "%.500s", error);
    }
}

/* Samples every replica's gap: every step for a lone replica (from the step statistics: max_joint_gap, a
 * contact's depth is no joint gap), every `every` steps and at the end for a batch (joint by joint over the
 * replica's scene joints; a batch has no shapes, so no contacts). */
static void sample_gaps(item *it, long long step, int final) {
    ctn_step_stats s;
    ctn_world_get_stats(it->w, &s);
    int written = 0;
    if (it->count > 1) ctn_world_get_joint_errors(it->w, it->gaps, NULL, it->joint_slots, &written);
    for (int k = 0; k < it->count; ++k) {
        replica *r = &it->reps[k];
        double gap = it->count == 1 ? s.max_joint_gap : replica_gap(it->gaps, r);
        if (final) r->final_gap = gap;
        if (gap > r->max_gap || !isfinite(gap)) r->max_gap = gap;
        if (it->e->max_gap > 0.0 && !(gap <= it->e->max_gap) && !strcmp(r->status, "ok")) {
            r->status = "torn";
            r->final_gap = gap;
            snprintf(r->error, sizeof r->error, "step %lld: joint gap %.3g m exceeds checks.max_gap %.3g m", step, gap, it->e->max_gap);
        }
    }
}

static int item_step(item *it, FILE *csv, double *wall) {
    double t0 = now_s();
    int batch = it->count > 1;
    if (csv && (!ctn_csv_header(csv) || !ctn_csv_frame(csv, it->w, 0, 0.0))) return 0;
    for (long long step = 1; step <= it->steps; ++step) {
        ctn_status st = ctn_world_step(it->w);
        if (st != CTN_OK) {
            char msg[600];
            snprintf(msg, sizeof msg, "step %lld: %s: %s", step, ctn_status_name(st), ctn_world_last_error(it->w));
            mark_all(it, st == CTN_ERR_DIVERGED ? "diverged" : "error", msg);
            break;
        }
        for (int k = 0; k < it->count; ++k) it->reps[k].steps_run = step;
        if (!batch || step % it->e->every == 0 || step == it->steps) sample_gaps(it, step, step == it->steps);
        if (!batch && strcmp(it->reps[0].status, "ok")) break; /* a lone torn run stops; a torn replica rides along */
        if (csv && (step % it->e->every == 0 || step == it->steps) &&
            !ctn_csv_frame(csv, it->w, (uint64_t)step, (double)step * it->desc.time_step))
            return 0;
    }
    for (int k = 0; k < it->count; ++k) it->reps[k].state_hash = replica_hash(it->w, &it->reps[k]);
    *wall = now_s() - t0;
    return 1;
}

/* ---- run files ---- */

static int write_run(const item *it, const replica *r, double wall, char *err, size_t err_size) {
    char hex[32], path[4200];
    ctn_step_stats s;
    memset(&s, 0, sizeof s);
    if (it->w) ctn_world_get_stats(it->w, &s);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "index", (double)r->run.index);
    cJSON_AddNumberToObject(j, "point", (double)r->run.point);
    cJSON_AddNumberToObject(j, "replica", r->run.replica);
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)r->run.signature);
    cJSON_AddStringToObject(j, "signature", hex);
    cJSON_AddItemToObject(j, "parameters", cJSON_Parse(r->run.params_json));
    cJSON_AddStringToObject(j, "status", r->status);
    cJSON_AddStringToObject(j, "error", r->error);
    cJSON_AddNumberToObject(j, "steps", (double)it->steps);
    cJSON_AddNumberToObject(j, "steps_run", (double)r->steps_run);
    cJSON_AddNumberToObject(j, "bodies", r->body_hi - r->body_lo);
    cJSON_AddNumberToObject(j, "joints", r->joint_hi - r->joint_lo);
    cJSON_AddStringToObject(j, "solver", it->w && r->steps_run ? ctn_solver_name(s.solver) : "");
    cJSON_AddStringToObject(j, "backend", it->w ? ctn_world_backend_name(it->w) : "");
    /* gaps as text with 17 digits: the comparison of two sweeps must see every bit */
    char num[40];
    snprintf(num, sizeof num, "%.17g", r->max_gap);
    cJSON_AddRawToObject(j, "max_gap", isfinite(r->max_gap) ? num : "null");
    snprintf(num, sizeof num, "%.17g", r->final_gap);
    cJSON_AddRawToObject(j, "final_gap", isfinite(r->final_gap) ? num : "null");
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)r->state_hash);
    cJSON_AddStringToObject(j, "state_hash", hex);
    cJSON *timing = cJSON_AddObjectToObject(j, "timing"); /* differs from run to run: not part of the result */
    cJSON_AddNumberToObject(timing, "wall_s", wall);
    cJSON_AddNumberToObject(timing, "ms_per_step", r->steps_run ? wall * 1e3 / (double)r->steps_run : 0.0);
    cJSON_AddNumberToObject(timing, "batch", it->count);
    cJSON_AddNumberToObject(timing, "rank", it->place->rank);
    cJSON_AddStringToObject(timing, "device", it->w ? ctn_world_device_name(it->w) : "");
    ctn_sweep_run_path(it->o->out, r->run.index, "json", path, sizeof path);
    int ok = ctn_sweep_write_json(path, j, err, err_size);
    cJSON_Delete(j);
    return ok;
}

/* ---- one work item ---- */

/* This process's OpenCL device: entry (local rank mod count) of --device LIST; else, when several ranks
 * share a node, GPU number (local rank mod GPUs on the node); else the backend's own choice (NULL). */
static const char *rank_device(const sweep_opts *o, const ctn_queue_place *p, char *buf, size_t n) {
    if (!o->device_list) {
        ctn_device_info dev[64];
        int count = 0, gpus = 0, pick = -1;
        if (p->local_size < 2 || ctn_list_devices(dev, 64, &count, buf, n) != CTN_OK) return NULL;
        for (int k = 0; k < count && k < 64; ++k) gpus += dev[k].is_gpu;
        for (int k = 0, seen = 0; gpus && k < count && k < 64; ++k)
            if (dev[k].is_gpu && seen++ == p->local_rank % gpus) pick = k;
        if (pick < 0) return NULL;
        snprintf(buf, n, "%d:%d", dev[pick].platform, dev[pick].device);
        return buf;
    }
    int count = 1;
    for (const char *c = o->device_list; *c; ++c) count += *c == ',';
    int want = p->local_rank % count;
    const char *s = o->device_list;
    for (int k = 0; k < want; ++k) s = strchr(s, ',') + 1;
    size_t len = strcspn(s, ",");
    snprintf(buf, n, "%.*s", (int)(len < n ? len : n - 1), s);
    return buf;
}

/* Runs item g (grid point and replica group). Returns 0 only when a run file cannot be written. */
static int run_item(const ctn_ensemble *e, const sweep_opts *o, const ctn_queue_place *place, int batch, long long g, int *failed) {
    long long groups = (e->replicas + batch - 1) / batch;
    long long point = g / groups;
    int first = (int)(g % groups) * batch;
    int count = e->replicas - first < batch ? e->replicas - first : batch;
    replica reps[count];
    memset(reps, 0, sizeof reps);
    item it = {.e = e, .o = o, .place = place, .reps = reps, .count = count};
    char err[1024];
    int todo = 0, ok = 1;
    for (int k = 0; k < count; ++k) {
        if (!ctn_sweep_resolve(e, o, batch, point * e->replicas + first + k, &reps[k].run, err, sizeof err)) {
            fprintf(stderr, "catena: sweep: %s\n", err);
            for (int m = 0; m < k; ++m) ctn_ensemble_run_free(&reps[m].run);
            return 0;
        }
        reps[k].status = "ok";
        cJSON *done = ctn_sweep_load_run(o->out, &reps[k].run, 1);
        if (!done) todo = 1;
        else {
            const cJSON *s = cJSON_GetObjectItemCaseSensitive(done, "status");
            *failed += !cJSON_IsString(s) || strcmp(s->valuestring, "ok");
        }
        cJSON_Delete(done);
    }
    if (todo) { /* a group is run again whole: its replicas share one world */
        char csvpath[4200];
        double wall = 0.0;
        FILE *csv = NULL;
        ctn_atomic_file out;
        memset(&out, 0, sizeof out);
        if (e->csv) {
            ctn_sweep_run_path(o->out, reps[0].run.index, "csv", csvpath, sizeof csvpath);
            if (!ctn__atomic_open_output(&out, csvpath, err, sizeof err)) {
                fprintf(stderr, "catena: sweep: %s\n", err);
                ok = 0;
            }
            csv = out.f;
        }
        if (ok) {
            if (!item_settings(&it) || !item_build(&it, o->device[0] ? o->device : NULL)) {
                mark_all(&it, "error", it.err);
            } else if (!item_step(&it, csv, &wall)) {
                fprintf(stderr, "catena: sweep: %s: write failed\n", csvpath);
                ok = 0;
            }
        }
        if (ok && csv && !ctn__atomic_commit(&out, err, sizeof err)) {
            fprintf(stderr, "catena: sweep: %s\n", err);
            ok = 0;
        } else if (!ok) {
            ctn__atomic_abort(&out);
        }
        for (int k = 0; ok && k < count; ++k) {
            ok = write_run(&it, &reps[k], wall, err, sizeof err);
            if (!ok) fprintf(stderr, "catena: sweep: %s\n", err);
            *failed += strcmp(reps[k].status, "ok") != 0;
            if (ok && !o->quiet) /* with the reason of a run that did not end ok */
                fprintf(stderr, "catena: sweep: run %lld %s %s (max gap %.3g m, %.3g s)%s%s\n", reps[k].run.index, reps[k].run.params_json,
                        reps[k].status, reps[k].max_gap, wall, reps[k].error[0] ? ": " : "", reps[k].error);
        }
        ctn_world_destroy(it.w);
        ctn_scene_free(it.scene);
        free(it.gaps);
    }
    for (int k = 0; k < count; ++k) ctn_ensemble_run_free(&reps[k].run);
    return ok;
}

/* Every grid point is checked before any run starts, so that a bad value in the grid (links -5, solver
 * "warp", time_step 0) fails the sweep at once with the point and the field, not as an "error" run after
 * the runs before it: replica 0 of each point is built into a CPU world (settings, scene) and dropped.
 * Each rank checks (the same verdict everywhere); `say` prints the refusal. */
static int check_points(const ctn_ensemble *e, const sweep_opts *o, const ctn_queue_place *place, int batch, int say) {
    for (long long p = 0; p < e->points; ++p) {
        replica rep;
        memset(&rep, 0, sizeof rep);
        item it = {.e = e, .o = o, .place = place, .reps = &rep, .count = 1};
        int ok = ctn_sweep_resolve(e, o, batch, p * e->replicas, &rep.run, it.err, sizeof it.err);
        int resolved = ok;
        if (ok) ok = item_settings(&it);
        if (ok) {
            it.desc.backend = CTN_BACKEND_CPU, it.desc.device = NULL, it.desc.threads = 1;
            ok = ctn_world_create(&it.desc, &it.w, it.err, sizeof it.err) == CTN_OK;
        }
        if (ok && (rep.run.doc_text ? ctn_scene_build(it.scene, it.w) : ctn_scene_from_spec(it.w, rep.run.spec)) != CTN_OK) {
            snprintf(it.err, sizeof it.err, "%s", ctn_world_last_error(it.w));
            ok = 0;
        }
        if (!ok && say)
            fprintf(stderr, "catena: sweep: %s: grid point %lld of %lld %s is invalid, no run started: %s\n", e->source, p, e->points,
                    resolved && rep.run.params_json ? rep.run.params_json : "", it.err);
        ctn_world_destroy(it.w);
        ctn_scene_free(it.scene);
        if (resolved) ctn_ensemble_run_free(&rep.run);
        if (!ok) return 0;
    }
    return 1;
}

/* ---- the command ---- */

static int parse_sweep(int argc, char **argv, sweep_opts *o) {
    memset(o, 0, sizeof *o);
    o->out = "sweep-out";
    for (int i = 1; i < argc; ++i) { /* argv[0] is the command's name */
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage_sweep(stdout);
            exit(CTN_EXIT_OK);
        }
        if (!strcmp(a, "--quiet")) {
            o->quiet = 1;
            continue;
        }
        if (a[0] != '-') {
            if (o->ensemble) {
                fprintf(stderr, "catena: sweep: unexpected argument '%s'\n", a);
                return 0;
            }
            o->ensemble = a;
            continue;
        }
        const char *eq = strchr(a, '=');
        char name[64];
        size_t n = eq ? (size_t)(eq - a) : strlen(a);
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), a);
        const char *v = eq ? eq + 1 : NULL;
        int known = !strcmp(name, "--out") || !strcmp(name, "--batch") || !strcmp(name, "--backend") || !strcmp(name, "--device") ||
                    !strcmp(name, "--threads");
        if (!known) {
            fprintf(stderr, "catena: sweep: unknown option %s\n", name);
            return 0;
        }
        if (!v) {
            if (i + 1 >= argc) {
                fprintf(stderr, "catena: sweep: option %s needs a value\n", name);
                return 0;
            }
            v = argv[++i];
        }
        if (!strcmp(name, "--out")) o->out = v;
        else if (!strcmp(name, "--device")) o->device_list = v;
        else if (!strcmp(name, "--backend")) {
            if (!ctn_cli_parse_backend(v, &o->backend)) {
                fprintf(stderr, "catena: sweep: --backend: '%s' is not one of auto, cpu, opencl\n", v);
                return 0;
            }
            o->backend_set = 1;
        } else if (!strcmp(name, "--threads")) {
            char *end;
            long k = strtol(v, &end, 10);
            if (end == v || *end || k < 1 || k > CTN_MAX_THREADS) {
                fprintf(stderr, "catena: sweep: --threads: '%s' is not an integer in [1, %d]\n", v, CTN_MAX_THREADS);
                return 0;
            }
            o->threads = (int)k;
        } else {
            char *end;
            long k = strtol(v, &end, 10);
            if (end == v || *end || k < 1 || k > 100000) {
                fprintf(stderr, "catena: sweep: --batch: '%s' is not an integer in [1, 100000]\n", v);
                return 0;
            }
            o->batch = (int)k;
        }
    }
    if (!o->ensemble) {
        fprintf(stderr, "catena: sweep: missing ENSEMBLE.json\n");
        usage_sweep(stderr);
        return 0;
    }
    return 1;
}

int ctn_cli_sweep(int argc, char **argv) {
    sweep_opts o;
    if (!parse_sweep(argc, argv, &o)) return CTN_EXIT_USAGE;
    ctn_queue *q = NULL;
    ctn_queue_place place;
    char err[2048];
    /* MPI first: under a launcher every rank must take part in every collective call below */
    if (!ctn_queue_open(&q, &argc, &argv, &place, err, sizeof err)) {
        fprintf(stderr, "catena: sweep: %s\n", err);
        return CTN_EXIT_DEVICE;
    }
    ctn_ensemble e;
    int loaded = ctn_ensemble_load(o.ensemble, &e, err, sizeof err);
    if (!loaded && place.rank == 0) fprintf(stderr, "catena: %s\n", err);
    if (loaded && !check_points(&e, &o, &place, o.batch ? o.batch : e.batch, place.rank == 0)) {
        ctn_ensemble_free(&e);
        loaded = 0;
    }
    int code = CTN_EXIT_OK;
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/runs", o.out);
    int dirs = loaded && (place.rank != 0 || (ctn_make_dir(o.out, err, sizeof err) && ctn_make_dir(dir, err, sizeof err)));
    if (loaded && !dirs) fprintf(stderr, "catena: sweep: %s\n", err);
    if (dirs && place.rank == 0) ctn_sweep_remove_stale_temporaries(dir);
    if (!ctn_queue_all(q, loaded && dirs)) {
        if (loaded) ctn_ensemble_free(&e);
        ctn_queue_close(q);
        return !loaded ? CTN_EXIT_SCENE : CTN_EXIT_IO;
    }
    int batch = o.batch ? o.batch : e.batch;
    if (!rank_device(&o, &place, o.device, sizeof o.device)) o.device[0] = '\0';
    long long items = e.points * ((e.replicas + batch - 1) / batch);
    ctn_queue_start(q, items);
    int ok = 1, failed = 0;
    for (long long g; ok && (g = ctn_queue_next(q)) >= 0;) ok = run_item(&e, &o, &place, batch, g, &failed);
    ok = ctn_queue_all(q, ok);
    if (ok && place.rank == 0) ok = ctn_sweep_write_summaries(&e, &o, batch, &failed);
    if (!ok) code = CTN_EXIT_IO;
    else if (failed && place.rank == 0) code = 1; /* the merged verdict is rank 0's to give */
    ctn_ensemble_free(&e);
    ctn_queue_close(q);
    return code;
}
