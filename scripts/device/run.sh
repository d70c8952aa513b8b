#!/bin/bash
# The GPU run in one command, inside a fixed time budget (default 470 s, the build included): configure and
# build (Release), list the OpenCL devices, run the OpenCL tests, then `catena bench` (docs/bench.md) on the
# OpenCL device:
#   bench   chain, hanging (1000:1), tree and batch at 1e3..1e5 bodies, solvers gs, direct and auto
#   bench1m chain and hanging at 1e6 bodies, gs and direct
#   contact grid (cloth) and pile at 1e4 and 1e5 bodies, auto and gs
#   cpu     the same machine's CPU cores on chain and hanging at 1e5 (direct, gs), for reference
# Every row: median ms/step with its spread over repeats, bodies x steps/s, row updates/s, launches and
# blocking reads per step, worst gap, and the GS sweep's fraction of the measured copy bandwidth.
# Each step has its own time limit, cut to what is left of the budget (a step that would get less than its
# minimum is skipped and says so), and the whole script runs under `timeout BUDGET`. It writes, named
# DATE-COMMIT-gpu-PART (at most 8 files, flat, for the device tool's $OUT):
#   .md (every table and the step log: limit, seconds, status), .json (each part's `catena bench --json`,
#   which holds the commit, machine, devices and command), ctest.txt and log.txt. A step cut at its limit
#   (SIGTERM) still leaves the rows it measured.
# Results go to $OUT when it is set (the device machine), else bench/results/.
#
# On the device machine (after `bash scripts/device/prepare.sh` here, which carries the OpenCL loader and
# headers, clBLAST and cJSON as .gpu/): run(command="bash scripts/device/run.sh", carry=[".gpu"], timeout_s=540).
# Dry run here, against PoCL, with sizes divided by 100 (1e1..1e4 bodies):
#   bash scripts/device/run.sh --small [--budget S] [--build-dir DIR]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
budget=470 small=0 build=/tmp/catena-gpu-build results=${OUT:-$root/bench/results}
args=("$@")
while [ $# -gt 0 ]; do
    case "$1" in
        --small) small=1 ;;
        --budget) budget=$2; shift ;;
        --build-dir) build=$2; shift ;;
        --results) results=$2; shift ;;
        -h|--help) sed -n 2,21p "$0"; exit 0 ;;
        *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
# The budget holds even if a step overruns its own limit: the whole script under one timeout.
if [ -z "${CTN_DEVICE_RUN_INNER:-}" ]; then
    export CTN_DEVICE_RUN_INNER=1
    exec timeout -k 5 "$budget" bash "$0" "${args[@]}"
fi
start=$(date +%s)
deadline=$((start + budget - 15)) # 15 s kept for writing the results
mkdir -p "$results"
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || cat "$root/.gpu/commit" 2>/dev/null || echo unknown)
[ -d "$root/.git" ] || [ -f "$root/.git" ] && ! git -C "$root" diff --quiet HEAD -- 2>/dev/null && commit="$commit+changes"
prefix=$results/$(date -u +%Y-%m-%d)-$commit-gpu$([ $small = 1 ] && echo -small)
work=$(mktemp -d)
log=$prefix-log.txt
exec > >(tee "$log") 2>&1
steps=$work/steps.md
echo "| step | limit s | seconds | status |" > "$steps"
echo "|---|---:|---:|---|" >> "$steps"

left() { echo $((deadline - $(date +%s))); }
# step NAME MAX_S MIN_S COMMAND...: runs COMMAND under min(MAX_S, what is left), or skips it
step() {
    local name=$1 max=$2 min=$3 l t t0 rc status
    shift 3
    l=$(left)
    t=$((l < max ? l : max))
    if [ "$t" -lt "$min" ]; then
        echo "== $name: skipped, ${l} s left of the budget (needs $min)"
        echo "| $name | $max | 0 | skipped: ${l} s left |" >> "$steps"
        desc=
        return 0
    fi
    echo "== $name (limit $t s): ${desc:-$*}"
    desc=
    t0=$(date +%s)
    timeout -k 5 "$t" "$@"
    rc=$?
    case $rc in 0) status=ok ;; 124|137) status="cut at $t s" ;; *) status="exit $rc" ;; esac
    echo "== $name: $status after $(($(date +%s) - t0)) s"
    echo "| $name | $t | $(($(date +%s) - t0)) | $status |" >> "$steps"
    return 0
}

echo "catena device run: commit $commit, budget $budget s, $(date -u +%Y-%m-%dT%H:%M:%SZ), $([ $small = 1 ] && echo 'small sizes (dry run)' || echo 'full sizes')"
uname -r; head -2 /etc/os-release 2>/dev/null; gcc --version | head -1; cmake --version | head -1; echo "cpus: $(nproc)"
nvidia-smi -L 2>/dev/null || echo "nvidia-smi: none"

# ---- the OpenCL stack --------------------------------------------------------------------------------
# Libraries carried by prepare.sh (the image has no package registry), else the system's.
deps=()
G=$root/.gpu/root/usr
if [ -d "$G" ]; then
    L=$G/lib/x86_64-linux-gnu
    export LD_LIBRARY_PATH=$L${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    deps=(-DOpenCL_INCLUDE_DIR=$G/include -DOpenCL_LIBRARY=$L/libOpenCL.so -DCATENA_CJSON_INCLUDE_DIR=$G/include
          -DCATENA_CJSON_LIBRARY=$L/libcjson.so -DCMAKE_DISABLE_FIND_PACKAGE_CLBlast=ON -DCATENA_CLBLAST_LIBRARY=$L/libclblast.so
          -DCATENA_CLBLAST_INCLUDE=$G/include)
    echo "libraries: carried ($G)"
elif [ -f /usr/local/cuda/include/CL/cl.h ] && [ -f /usr/local/cuda/lib64/libOpenCL.so ]; then
    deps=(-DOpenCL_INCLUDE_DIR=/usr/local/cuda/include -DOpenCL_LIBRARY=/usr/local/cuda/lib64/libOpenCL.so)
    echo "libraries: none carried (run prepare.sh); the CUDA toolkit's OpenCL loader and headers, no cJSON"
fi
# NVIDIA's OpenCL library lives in the driver's folder; register it when no .icd file does.
nv=$(ls /usr/local/nvidia/lib64/libnvidia-opencl.so.1 /usr/local/nvidia/lib/libnvidia-opencl.so.1 \
        /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 2>/dev/null | head -1)
if [ -n "$nv" ]; then
    export LD_LIBRARY_PATH=$(dirname "$nv")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    if ! grep -qs nvidia /etc/OpenCL/vendors/*.icd; then
        mkdir -p "$work/icd" && echo "$nv" > "$work/icd/nvidia.icd"
        export OCL_ICD_VENDORS=$work/icd OCL_ICD_FILENAMES=$nv
        echo "ICD: $nv registered through OCL_ICD_VENDORS=$OCL_ICD_VENDORS"
    fi
fi
export CATENA_CACHE_DIR=$work/kernel-cache CATENA_QUIET=1 OMP_WAIT_POLICY=passive

# ---- build -------------------------------------------------------------------------------------------
jobs=$(nproc)
build_all() {
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCATENA_REQUIRE_OPENCL=ON -DCATENA_PYTHON=OFF -DCATENA_URDF=OFF \
        -DCATENA_MPI=OFF "${deps[@]}" "$@" > "$work/cmake.txt" 2>&1 || { tail -30 "$work/cmake.txt"; return 1; }
    cmake --build "$build" -j"$jobs" > "$work/build.txt" 2>&1 && return 0
    grep -E "error|warning" "$work/build.txt" | head -20
    return 1
}
build_step() {
    build_all && return 0
    # a newer compiler's warning must not cost the run: report it (above), then build without -Werror
    echo "BUILD FAILED; again without -Werror"
    build_all -DCATENA_WERROR=OFF
}
desc="cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release ...; cmake --build $build -j$jobs (again with -DCATENA_WERROR=OFF if it fails)"
step build 240 60 bash -c "$(declare -p deps root build jobs work); $(declare -f build_all build_step); build_step"
if [ ! -x "$build/catena" ]; then
    echo "no build: stopping"
else
    step devices 20 5 "$build/catena" devices

    # ---- OpenCL tests: every test that uses the OpenCL backend ---------------------------------------
    names=$( (cd "$root/tests" && grep -l CTN_BACKEND_OPENCL test_*.c | sed 's/\.c$//'; ctest --test-dir "$build" -N 2>/dev/null |
              sed -n 's/^ *Test *#[0-9]*: //p' | grep -i opencl) | sort -u | paste -sd'|')
    # through tee, so that a run cut at its limit still leaves the tests that finished
    desc="ctest -R '^(the OpenCL tests)\$' -j4 --timeout 90 --output-on-failure"
    step tests 120 30 bash -c "ctest --test-dir '$build' -R '^($names)\$' -j4 --timeout 90 --output-on-failure 2>&1 | tee '$prefix-ctest.txt'"
    grep -E "tests passed|tests failed|\*\*\*Failed|Timeout|Not Run" "$prefix-ctest.txt" 2>/dev/null | tail -20

    # ---- benchmarks: catena bench ---------------------------------------------------------------------
    if [ $small = 1 ]; then s3=10,100,1000 s6=10000 sc=100,1000 cpu=1000
    else s3=1e3,1e4,1e5 s6=1e6 sc=1e4,1e5 cpu=1e5
    fi
    C=$build/catena
    # bench PART LIMIT MIN ARGS...: catena bench ARGS on the OpenCL device (unless ARGS name one), table to PART.txt
    bench() {
        local part=$1 max=$2 min=$3
        shift 3
        desc="catena bench $* --warmup 2 --repeats 3 --steps 5 --case-seconds 3 --json $part.json"
        # the shell ignores timeout's SIGTERM and waits: catena bench finishes its step, writes what it measured
        step "$part" "$max" "$min" bash -c 'trap "" TERM; "$@" > "'"$work/$part.txt"'"; rc=$?; cat "'"$work/$part.txt"'"; exit $rc' _ \
            "$C" bench "$@" --warmup 2 --repeats 3 --steps 5 --case-seconds 3 --commit "$commit" --quiet --json "$work/$part.json"
    }
    bench bench 110 20 --device opencl --cases chain,hanging,tree,batch --sizes "$s3" --solvers gs,direct,auto
    bench bench1m 80 20 --device opencl --cases chain,hanging --sizes "$s6" --solvers gs,direct
    bench contact 50 15 --device opencl --cases grid,pile --sizes "$sc" --solvers auto,gs
    bench cpu 40 10 --device cpu --cases chain,hanging --sizes "$cpu" --solvers direct,gs
fi

# ---- results -----------------------------------------------------------------------------------------
# the device `--backend opencl` takes: the automatic choice (starred), else the first listed
list=$("$build/catena" devices 2>/dev/null)
device=$( (grep '^\* ' <<< "$list"; grep -E '^  [0-9]+:[0-9]+' <<< "$list") | head -1 | sed -E 's/^[* ] +[0-9]+:[0-9]+ +//; s/ +/ /g')
gpu=$(nvidia-smi -L 2>/dev/null | head -1 | sed 's/ (UUID.*//; s/^GPU 0: //')
machine="${gpu:-no NVIDIA GPU}, OpenCL device ${device:-none}; $(nproc) CPU cores, $(. /etc/os-release 2>/dev/null; echo "$PRETTY_NAME"), $(gcc --version | head -1)"
python3 - "$work" "$prefix" "$commit" "$machine" "$small" <<'PY'
import json, os, sys
work, prefix, commit, machine, small = sys.argv[1:]
parts = ["bench", "bench1m", "contact", "cpu"]
out = {"commit": commit, "machine": machine, "command": "bash scripts/device/run.sh" + (" --small" if small == "1" else ""),
       "note": "each part: the JSON of its `catena bench --json` (command, commit, machine and devices inside)", "parts": {}}
for part in parts:
    path = os.path.join(work, part + ".json")
    if os.path.exists(path):
        try:
            data = json.load(open(path))
        except ValueError as e:
            data = {"error": f"unreadable JSON: {e}"}
        data.update(machine_summary=machine)
        out["parts"][part] = data
json.dump(out, open(prefix + ".json", "w"), indent=1)
PY
{
    echo "# GPU run: commit $commit ($(date -u +%Y-%m-%d))"
    echo
    echo "Machine: $machine. Command: \`bash scripts/device/run.sh$([ $small = 1 ] && echo ' --small')\`, budget $budget s, took $(($(date +%s) - start)) s."
    echo
    cat "$steps"
    for part in bench bench1m contact cpu; do
        [ -s "$work/$part.txt" ] && { echo; echo "## $part"; echo; echo '```'; cat "$work/$part.txt"; echo '```'; }
    done
    echo
    echo "## tests"
    echo
    echo '```'
    grep -E "tests passed|tests failed|\*\*\*Failed|Timeout|Not Run|Passed|Skipped" "$prefix-ctest.txt" 2>/dev/null | tail -60
    echo '```'
} > "$prefix.md"
rm -rf "$work"
echo "results: $prefix.md, .json, -ctest.txt, -log.txt ($(($(date +%s) - start)) s)"
