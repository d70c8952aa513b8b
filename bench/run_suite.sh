#!/usr/bin/env bash
# The Catena benchmark suite in one command (bench/README.md "Suite"): builds the benchmarks (Release, OpenCL on
# when an OpenCL platform is found), runs bench_convergence and bench_suite, and writes
#   bench/results/<YYYY-MM-DD>-<host>.json   every number, every workload described (scene spec, sizes, h, steps,
#                                            iterations, substeps, backend, device)
#   bench/results/<YYYY-MM-DD>-<host>.md     the same as tables
#   bench/results/<YYYY-MM-DD>-<host>-*.svg  plots: ms/step and row updates/s vs bodies (log-log), accuracy vs time,
#                                            residual vs iteration
# Usage: bash bench/run_suite.sh [--quick | --full | --smoke] [--backends cpu,opencl] [--out DIR] [--build-dir DIR]
#                                [--no-build] [--case-seconds S] [--no-peers]
#   --full   (default) chains, ropes and grids up to 1e6 bodies (not timed yet; expect well over the quick run)
#   --quick  up to 1e5 bodies, shorter cases: 6 minutes on a 2-core VM
#   --smoke  tiny sizes in seconds (the CTest bench_suite_smoke); results go to --out, not bench/results
# Environment: CATENA_BUILD_DIR (default build-bench), CATENA_SUITE_COMMIT (the commit recorded; default git HEAD).
# Then (not in --smoke, not with --no-peers) the peers: bench/run_peers.sh installs Bullet, ODE and MuJoCo from
# Debian and measures them beside Catena on the same chains (1000 links in --quick, 1000 and 10000 in --full),
# writing bench/results/<date>-<host>-peers.{md,json}.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=full
out=""
build=${CATENA_BUILD_DIR:-$root/build-bench}
backends=cpu,opencl
do_build=1
peers=1
extra=()
cmdline="bash bench/run_suite.sh $*"
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) mode=quick ;;
        --full) mode=full ;;
        --smoke) mode=smoke ;;
        --out) out=$2; shift ;;
        --build-dir) build=$2; shift ;;
        --backends) backends=$2; shift ;;
        --no-build) do_build=0 ;;
        --no-peers) peers=0 ;;
        --case-seconds) extra+=(--case-seconds "$2"); shift ;;
        -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
        *) echo "run_suite.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
cmdline=${cmdline% }
if [ -z "$out" ]; then
    if [ "$mode" = smoke ]; then out=$build/bench/suite-smoke; else out=$root/bench/results; fi
fi
if [ "$do_build" = 1 ]; then
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$build" -j"$(nproc)" --target bench_suite bench_convergence
fi
bin=$build/bench
for p in bench_suite bench_convergence; do
    [ -x "$bin/$p" ] || { echo "run_suite.sh: $bin/$p is missing (build first or drop --no-build)" >&2; exit 1; }
done
mkdir -p "$out"
host=$(hostname -s 2>/dev/null || hostname)
prefix=$out/$(date +%F)-$host
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
commit=${CATENA_SUITE_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || true)}
if [ -z "${CATENA_SUITE_COMMIT:-}" ] && [ -n "$commit" ] && [ -n "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ]; then commit="$commit+local changes"; fi

case "$mode" in
    smoke) conv=(--scenes hanging_chain:20,grid:4x4 --iterations 20 --settle 2) ;;
    quick) conv=(--scenes hanging_chain:100,grid:16x16 --iterations 300 --settle 30) ;;
    full) conv=(--scenes hanging_chain:100,grid:16x16,hanging_chain:1000 --iterations 500 --settle 30) ;;
esac
echo "run_suite.sh: mode $mode, results $prefix.{json,md} and $prefix-*.svg" >&2
"$bin/bench_convergence" "${conv[@]}" --json "$tmp/conv.json" --md "$tmp/conv.md" --svg-prefix "$prefix-convergence"
"$bin/bench_suite" --mode "$mode" --prefix "$prefix" --backends "$backends" --command "$cmdline" --commit "$commit" \
    --include convergence="$tmp/conv.json" --include-md "$tmp/conv.md" ${extra[@]+"${extra[@]}"}
for f in "$prefix.json" "$prefix.md" "$prefix-ms-per-step-chain.svg" "$prefix-accuracy-gap.svg" "$prefix-convergence-grid-"*.svg; do
    [ -s "$f" ] || { echo "run_suite.sh: $f was not written" >&2; exit 1; }
done
if command -v python3 >/dev/null; then python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$prefix.json"; fi
echo "run_suite.sh: done: $prefix.md" >&2
if [ "$mode" != smoke ] && [ "$peers" = 1 ]; then
    if [ "$mode" = quick ]; then peer_sizes=1000; else peer_sizes=1000,10000; fi
    CATENA_BUILD_DIR=$build bash "$root/bench/run_peers.sh" --sizes "$peer_sizes" --backends "$backends" --out "$out"
fi
