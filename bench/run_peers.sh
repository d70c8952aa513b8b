#!/usr/bin/env bash
# Catena vs Bullet 3, ODE and MuJoCo on the hanging chain, in one run: installs the peers (Debian), builds
# bench_peers and writes bench/results/<YYYY-MM-DD>-<host>-peers.md and .json.
# Usage: bash bench/run_peers.sh [bench_peers options], e.g. --sizes 1000,10000 --backends cpu,opencl
# Environment: CATENA_BUILD_DIR (default build-peers), CATENA_NO_INSTALL=1 to skip the package step.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${CATENA_BUILD_DIR:-$root/build-peers}
if [ "${CATENA_NO_INSTALL:-0}" != 1 ]; then bash "$root/scripts/deps-peers.sh"; fi
cmake -S "$root" -B "$build" -DCATENA_BENCH_PEERS=ON >/dev/null
cmake --build "$build" -j"$(nproc)" --target bench_peers
mkdir -p "$root/bench/results"
exec "$build/bench/bench_peers" --out "$root/bench/results" "$@"
