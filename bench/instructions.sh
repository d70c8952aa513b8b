#!/usr/bin/env bash
# A deterministic yardstick for the CPU solvers: instructions per link per step inside ctn_world_step, and
# peak resident bytes per link, of any build of `catena` (so two builds can be compared).
#
#   bash bench/instructions.sh [BUILD_DIR] [--links N] [--steps S] [--rss-links N] [--no-ir] [--no-rss] [--configs "C ..."]
#
# BUILD_DIR (default build/) holds the `catena` program. The scene is `catena run chain:N`: N links of 0.1 m
# laid out along +x, pinned at one end and released (it swings), as bench_chain --release horizontal.
#
# Instructions: valgrind --tool=callgrind --toggle-collect=ctn_world_step counts the instructions (Ir)
# executed inside ctn_world_step and its callees only (scene building, the CLI's gap measurement and output
# are outside). One thread (OMP_NUM_THREADS=1, taskset to one CPU). Each configuration runs twice, for 1 and
# for 1 + S steps; per link per step = (Ir(1 + S) - Ir(1)) / (N S), so the first step (the solver layout
# built, no warm start) is left out too. Default N = 1e4 links, S = 20 steps.
# Memory: peak resident set (/usr/bin/time %M) of `catena run chain:N --steps 2` at N = 1e6 links minus that
# of chain:10 with the same settings, divided by the links added; one thread as well.
#
# Configurations (--configs, default "direct gs"): direct 1x1 (--solver direct --iterations 1 --substeps 1
# --integrator velocity: the velocity step with its position projection), GS 10x1 (--solver gs --iterations 10
# --substeps 1), rattle (direct 1x1 with the RATTLE integrator, --rattle-max-joints 50000000 so that it runs at
# any N), direct4 and rattle4 (the same at 4 substeps), CPU backend. The configurations run side by side (one process each).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build links=10000 steps=20 rss_links=1000000 do_ir=1 do_rss=1 configs_arg="direct gs"
while [ $# -gt 0 ]; do
    case "$1" in
        --links) links=$2; shift ;;
        --steps) steps=$2; shift ;;
        --rss-links) rss_links=$2; shift ;;
        --no-ir) do_ir=0 ;;
        --no-rss) do_rss=0 ;;
        --configs) configs_arg=$2; shift ;;
        -h|--help) sed -n 2,22p "$0"; exit 0 ;;
        -*) echo "instructions.sh: unknown option $1" >&2; exit 2 ;;
        *) build=$1 ;;
    esac
    shift
done
catena=$(cd "$build" 2>/dev/null && pwd)/catena
[ -x "$catena" ] || { echo "instructions.sh: no catena program in '$build' (build it first)" >&2; exit 2; }
[ $do_ir = 0 ] || command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is not installed" >&2; exit 2; }
[ $do_rss = 0 ] || [ -x /usr/bin/time ] || { echo "instructions.sh: /usr/bin/time is not installed" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CATENA_QUIET=1 OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
cpu=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //; s/[,-].*//'); cpu=${cpu:-0}
one() { taskset -c "$cpu" "$@"; }
declare -A args=([direct]="--solver direct --iterations 1 --substeps 1 --integrator velocity"
                 [gs]="--solver gs --iterations 10 --substeps 1"
                 [rattle]="--solver direct --iterations 1 --substeps 1 --integrator rattle --rattle-max-joints 50000000"
                 [direct4]="--solver direct --iterations 1 --substeps 4 --integrator velocity"
                 [rattle4]="--solver direct --iterations 1 --substeps 4 --integrator rattle --rattle-max-joints 50000000")
configs=$configs_arg
for c in $configs; do [ -n "${args[$c]:-}" ] || { echo "instructions.sh: unknown configuration $c" >&2; exit 2; }; done

# Ir inside ctn_world_step of `catena run chain:$links --steps $2` ($1 = config); prints the count.
ir() {
    local f=$tmp/cg.$1.$2
    one valgrind --tool=callgrind --toggle-collect=ctn_world_step --callgrind-out-file="$f" \
        "$catena" run chain:$links --steps "$2" --backend cpu ${args[$1]} --quiet > "$f.log" 2>&1 ||
        { echo "instructions.sh: valgrind $1 --steps $2 failed:" >&2; tail -5 "$f.log" >&2; return 1; }
    awk '/^(summary|totals):/ { print $2; exit }' "$f"
}
ir_config() { # config -> file with "per link per step"
    local a b
    a=$(ir "$1" 1) && b=$(ir "$1" $((steps + 1))) || return 1
    awk -v a="$a" -v b="$b" -v n="$links" -v s="$steps" 'BEGIN { printf "%.0f\n", (b - a) / (n * s) }' > "$tmp/ir.$1"
}
# peak RSS in KiB of `catena run chain:$2 --steps 2` ($1 = config)
rss() {
    one /usr/bin/time -f %M -o "$tmp/rss.$1.$2" "$catena" run chain:$2 --steps 2 --backend cpu ${args[$1]} --quiet \
        > "$tmp/rss.$1.$2.log" 2>&1 || { echo "instructions.sh: catena run chain:$2 ($1) failed:" >&2; tail -5 "$tmp/rss.$1.$2.log" >&2; return 1; }
    tail -1 "$tmp/rss.$1.$2"
}
rss_config() {
    local small big
    small=$(rss "$1" 10) && big=$(rss "$1" "$rss_links") || return 1
    awk -v a="$small" -v b="$big" -v n="$rss_links" 'BEGIN { printf "%.0f\n", (b - a) * 1024 / (n - 10) }' > "$tmp/rss.$1"
}

start=$(date +%s)
pids=()
for c in $configs; do
    ( [ $do_ir = 0 ] || ir_config "$c" ) & pids+=($!)
done
fail=0
for p in "${pids[@]}"; do wait "$p" || fail=1; done
# memory after the instruction counts: the two big runs one after the other, so neither's page faults
# compete with a valgrind run
if [ $do_rss = 1 ]; then for c in $configs; do rss_config "$c" || fail=1; done; fi
# the source tree and commit of the build (a program copied out of its build folder has no CMakeCache.txt
# beside it: its commit is unknown, not this checkout's)
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$(dirname "$catena")/CMakeCache.txt" 2>/dev/null || true)
commit=unknown
if [ -n "$src" ]; then
    commit=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)
    git -C "$src" diff --quiet HEAD -- 2>/dev/null || commit="$commit+changes"
fi
echo "# instructions.sh: $catena (source ${src:-?} at $commit), $(date -u +%Y-%m-%dT%H:%MZ), $(($(date +%s) - start)) s"
echo
echo "| configuration | Ir / link / step (chain:$links, steps 2..$((steps + 1)), 1 thread) | peak RSS bytes / link (chain:$rss_links, 1 thread) |"
echo "| --- | ---: | ---: |"
for c in $configs; do
    case $c in direct) label="direct 1x1 (velocity step)" ;; gs) label="GS 10x1" ;; rattle) label="direct 1x1 RATTLE" ;;
        direct4) label="direct 1x4 (velocity step)" ;; rattle4) label="direct 1x4 RATTLE" ;; *) label=$c ;; esac
    echo "| $label | $(cat "$tmp/ir.$c" 2>/dev/null || echo -) | $(cat "$tmp/rss.$c" 2>/dev/null || echo -) |"
done
exit $fail
