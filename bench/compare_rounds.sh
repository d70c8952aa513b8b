#!/usr/bin/env bash
# Before/after timing on a noisy machine: runs two bench_chain builds in interleaved rounds (before, after,
# before, after, ...) with the same arguments, one JSON file per run, and prints each side's median over the
# rounds of bench_chain's per-run median ms/step and the after/before ratio. Interleaving spreads slow phases
# of a shared machine (a virtual machine's neighbours) over both sides; the median over rounds drops outliers.
#
#   bench/compare_rounds.sh BEFORE_BIN AFTER_BIN ROUNDS OUTDIR [bench_chain arguments...]
#   e.g. OMP_NUM_THREADS=2 bench/compare_rounds.sh old/build/bench/bench_chain build/bench/bench_chain 5 /tmp/r \
#            --sizes 1000,10000,100000 --steps 300 --release horizontal --configs direct:1x1 --backend cpu
set -euo pipefail
[ $# -ge 4 ] || { sed -n 2,10p "$0"; exit 2; }
before=$1 after=$2 rounds=$3 out=$4
shift 4
mkdir -p "$out"
echo "start $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$rounds"); do
  "$before" "$@" --json "$out/before-$r.json" > /dev/null
  "$after" "$@" --json "$out/after-$r.json" > /dev/null
done
echo "end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
runs = {side: [json.load(open(f"{out}/{side}-{r}.json"))["results"] for r in range(1, rounds + 1)] for side in ("before", "after")}
for i, res in enumerate(runs["after"][0]):
    med = {side: statistics.median(run[i]["ms_per_step"] for run in runs[side]) for side in runs}
    print(f"{res['links']:>8} {res['config']:<14} before {med['before']:9.3f} ms  after {med['after']:9.3f} ms  "
          f"after/before {med['after'] / med['before']:.2f}")
PY
