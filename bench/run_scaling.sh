#!/usr/bin/env bash
# Scaling measurements behind docs/scaling.md, in one command:
#   1. memory: peak resident memory of `catena run chain:N --steps 2` for N = 1e4, 1e5, 1e6 (CPU gs, CPU direct,
#      OpenCL gs), from /usr/bin/time -f %M; bytes per link = (RSS(1e6) - RSS(1e5)) / 9e5
#   2. batching: bench_batch, K = 1, 10, 100, 1000 replicas of chain:100 in one world, CPU and OpenCL side by side
#   3. ensembles over ranks: the same 16-run sweep (bench/scaling_sweep.json) on 1 process and under
#      mpirun -np 2, wall time of each, results compared bitwise
# Writes bench/results/<date>-<host>-scaling.md (+ .json from bench_batch). Usage:
#   bash bench/run_scaling.sh [--build-dir DIR] [--quick]     (--quick: sizes up to 1e5, K up to 100)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
quick=0
while [ $# -gt 0 ]; do
    case "$1" in
        --build-dir) build=$2; shift ;;
        --quick) quick=1 ;;
        *) echo "run_scaling.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
catena=$build/catena
[ -x "$catena" ] && [ -x "$build/bench/bench_batch" ] || { echo "run_scaling.sh: build first (cmake --build $build)" >&2; exit 2; }
host=$(hostname -s 2>/dev/null || echo host)
date=$(date -u +%Y-%m-%d)
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
out=$root/bench/results/$date-$host-scaling
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CATENA_QUIET=1
sizes="10000 100000 1000000"; counts=1,10,100,1000
[ $quick = 1 ] && sizes="10000 100000" && counts=1,10,100
{
echo "# Scaling measurements ($date, commit $commit, $host: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB)"
echo
echo "Command: \`bash bench/run_scaling.sh $*\`. OpenCL is PoCL on this machine's CPU unless a GPU is named."
echo
echo "## Memory: peak resident set of \`catena run chain:N --steps 2\`"
echo
echo "| configuration | links | peak RSS (MiB) |"
echo "| --- | ---: | ---: |"
for cfg in "cpu gs" "cpu direct" "opencl gs"; do
    set -- $cfg
    for n in $sizes; do
        /usr/bin/time -f %M -o "$tmp/rss" "$catena" run chain:$n --steps 2 --backend $1 --solver $2 --quiet >/dev/null 2>&1 || true
        kb=$(tail -1 "$tmp/rss"); echo "$cfg $n $kb" >> "$tmp/mem"
        awk -v c="$1 $2" -v n="$n" -v kb="$kb" 'BEGIN { printf "| %s | %d | %.0f |\n", c, n, kb / 1024 }'
    done
done
echo
echo "## Replicas batched in one world (bench_batch, chain:100, Gauss-Seidel 4x4)"
echo
"$build/bench/bench_batch" --replicas $counts --links 100 --steps 30 --backends cpu,opencl --json "$out.json" 2>/dev/null
echo
echo "## An ensemble over MPI ranks (bench/scaling_sweep.json: 16 runs of chain:{200,400,800,1600} x 2 solvers x 2 replicas, CPU)"
echo
t0=$(date +%s.%N); "$catena" sweep "$root/bench/scaling_sweep.json" --out "$tmp/s1" --quiet || true; t1=$(date +%s.%N)
echo "| processes | wall s | results equal to the 1-process sweep |"
echo "| ---: | ---: | --- |"
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "| 1 | %.1f | (reference) |\n", b - a }'
if "$catena" sweep --help | grep -q 'MPI on' && command -v mpirun >/dev/null; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    t0=$(date +%s.%N); mpirun -np 2 "$catena" sweep "$root/bench/scaling_sweep.json" --out "$tmp/s2" --quiet || true; t1=$(date +%s.%N)
    n=$(head -1 "$tmp/s1/summary.csv" | tr ',' '\n' | grep -n '^state_hash$' | cut -d: -f1)
    same=$(cmp -s <(cut -d, -f1-$n "$tmp/s1/summary.csv") <(cut -d, -f1-$n "$tmp/s2/summary.csv") && echo yes || echo NO)
    awk -v a="$t0" -v b="$t1" -v s="$same" 'BEGIN { printf "| 2 (mpirun -np 2) | %.1f | %s |\n", b - a, s }'
else
    echo "| 2 | not measured: this build has no MPI | |"
fi
} > "$out.md"
cat "$out.md"
