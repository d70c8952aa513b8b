#!/usr/bin/env bash
# Threads on a machine where another process holds a core: bench_chain (chain released horizontally, CPU
# backend) on 1 thread and on 2 threads while a busy loop (`yes > /dev/null`, one process, not pinned)
# runs, in interleaved rounds. Two threads are run under both OpenMP wait policies: passive (what the catena
# tool and the Python package set) and libgomp's default (spin, then sleep), so the cost of spinning shows.
# One thread waits for nothing, so its policy does not matter. The order of the three runs rotates from
# round to round so that a slow phase of the machine does not always fall on the same one.
#
#   bash bench/threads_busy.sh [--build-dir DIR] [--rounds 5] [--sizes 10000,100000] [--steps 40]
#                              [--configs direct:1x1,gs:10x1] [--no-load] [--out DIR]
#
# Writes bench/results/<YYYY-MM-DD>-<host>-threads-busy.json (every run's per-step median, per round, and
# the load average at start and end) and .md: per size and configuration the median over the rounds of
# bench_chain's ms/step, the spread (lowest and highest round), and the ratio of each 2-thread median to
# the 1-thread one. --no-load runs the same without the busy loop.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build rounds=5 sizes=10000,100000 steps=40 configs=direct:1x1,gs:10x1 load=1 out=$root/bench/results
while [ $# -gt 0 ]; do
    case "$1" in
        --build-dir) build=$2; shift ;;
        --rounds) rounds=$2; shift ;;
        --sizes) sizes=$2; shift ;;
        --steps) steps=$2; shift ;;
        --configs) configs=$2; shift ;;
        --no-load) load=0 ;;
        --out) out=$2; shift ;;
        -h|--help) sed -n 2,16p "$0"; exit 0 ;;
        *) echo "threads_busy.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
bench=$build/bench/bench_chain
[ -x "$bench" ] || { echo "threads_busy.sh: no $bench (cmake --build $build --target bench_chain)" >&2; exit 2; }
"$bench" --threads 1 --sizes 10 --steps 6 --configs gs:1x1 >/dev/null 2>&1 ||
    { echo "threads_busy.sh: $bench does not take --threads (an older build)" >&2; exit 2; }
mkdir -p "$out"
host=$(hostname -s 2>/dev/null || echo host)
date=$(date -u +%Y-%m-%d)
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$root" diff --quiet HEAD -- 2>/dev/null || commit="$commit+changes"
name=$out/$date-$host-threads-busy
tmp=$(mktemp -d)
busy=
cleanup() { [ -n "$busy" ] && kill "$busy" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
export CATENA_QUIET=1
unset OMP_NUM_THREADS
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
t_start=$(date -u +%H:%M:%S)
if [ $load = 1 ]; then
    yes > /dev/null &
    busy=$!
    sleep 1
fi
runs=("1 passive" "2 passive" "2 default")
for r in $(seq 1 "$rounds"); do
    for k in 0 1 2; do
        set -- ${runs[$(((k + r) % 3))]}
        threads=$1 policy=$2
        if [ "$policy" = passive ]; then env OMP_WAIT_POLICY=passive "$bench" --threads "$threads" --sizes "$sizes" --steps "$steps" \
            --release horizontal --configs "$configs" --backend cpu --json "$tmp/$threads-$policy-$r.json" > /dev/null 2>&1
        else env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT "$bench" --threads "$threads" --sizes "$sizes" --steps "$steps" \
            --release horizontal --configs "$configs" --backend cpu --json "$tmp/$threads-$policy-$r.json" > /dev/null 2>&1
        fi
    done
    echo "round $r/$rounds done $(date -u +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg)" >&2
done
[ -n "$busy" ] && kill "$busy" 2>/dev/null; busy=
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
t_end=$(date -u +%H:%M:%S)
cmd="bash bench/threads_busy.sh --rounds $rounds --sizes $sizes --steps $steps --configs $configs$([ $load = 1 ] || echo ' --no-load')"
python3 - "$tmp" "$rounds" "$name" "$commit" "$date" "$host" "$load" "$load_start" "$load_end" "$t_start" "$t_end" "$cmd" "$(nproc)" \
    "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')" <<'PY'
import json, statistics, sys
tmp, rounds, name, commit, date, host, load, l0, l1, t0, t1, cmd, ncpu, cpu = sys.argv[1:]
rounds, load = int(rounds), load == "1"
kinds = [("1", "passive"), ("2", "passive"), ("2", "default")]
runs = {k: [json.load(open(f"{tmp}/{k[0]}-{k[1]}-{r}.json"))["results"] for r in range(1, rounds + 1)] for k in kinds}
rows = []
for i, res in enumerate(runs[kinds[0]][0]):
    row = {"links": res["links"], "config": res["config"]}
    for k in kinds:
        v = [run[i]["ms_per_step"] for run in runs[k]]
        row[f"{k[0]}_thread_{k[1]}"] = {"median": statistics.median(v), "min": min(v), "max": max(v), "rounds": v}
    one = row["1_thread_passive"]["median"]
    row["ratio_2_passive_to_1"] = row["2_thread_passive"]["median"] / one
    row["ratio_2_default_to_1"] = row["2_thread_default"]["median"] / one
    rows.append(row)
doc = {"date": date, "host": host, "commit": commit, "command": cmd, "cpus": int(ncpu), "cpu": cpu,
       "busy_process": "yes > /dev/null (one process, not pinned)" if load else "none",
       "window_utc": [t0, t1], "load_average_start": l0, "load_average_end": l1,
       "workload": "bench_chain --release horizontal --backend cpu (chain:N, links of 0.1 m, h = 1/60 s); ms/step = "
                   "bench_chain's median over the steps after 5 warm-up steps; per cell the median over the rounds",
       "policies": {"passive": "OMP_WAIT_POLICY=passive", "default": "OMP_WAIT_POLICY and GOMP_SPINCOUNT unset (libgomp spins, then sleeps)"},
       "results": rows}
json.dump(doc, open(name + ".json", "w"), indent=1)
with open(name + ".md", "w") as f:
    f.write(f"# Threads {'with one core loaded' if load else 'without added load'} ({date}, commit {commit}, {host}: {ncpu} CPUs, {cpu})\n\n")
    f.write(f"Command: `{cmd}`; {rounds} rounds interleaved, {t0}-{t1} UTC, load average {l0} at the start and {l1} at the end. "
            f"Busy process: {doc['busy_process']}. Each cell: median over the rounds of bench_chain's median ms/step "
            "(lowest-highest round in brackets); ratio = 2-thread median / 1-thread median.\n\n")
    f.write("| links | config | 1 thread ms/step | 2 threads, passive | 2 threads, libgomp default (spin) | ratio passive | ratio spin |\n")
    f.write("|---:|---|---:|---:|---:|---:|---:|\n")
    for row in rows:
        c = lambda k: f"{row[k]['median']:.2f} ({row[k]['min']:.2f}-{row[k]['max']:.2f})"
        f.write(f"| {row['links']} | {row['config']} | {c('1_thread_passive')} | {c('2_thread_passive')} | {c('2_thread_default')} | "
                f"{row['ratio_2_passive_to_1']:.2f} | {row['ratio_2_default_to_1']:.2f} |\n")
print(open(name + ".md").read())
PY
