#!/usr/bin/env bash
# Device memory of an OpenCL run: the peak of the bytes its clCreateBuffer calls hold live at once.
#   bash bench/opencl_buffer_bytes.sh BUILD [--list] [--links N,N] [--solver S] [--steps K]
# builds bench/opencl_buffer_bytes.c (an LD_PRELOAD shim over clCreateBuffer / clReleaseMemObject) into a
# temporary directory and runs `BUILD/catena run chain:N --backend=opencl --solver=S --steps=K --quiet` under it
# for each N (default 10000,100000; direct; 2 steps); prints the peak per size and the bytes per link between
# the first and the last size. --list also prints every buffer live at the peak, largest first. The backend
# reports no device memory of its own, and PoCL's buffers live in host memory among everything else.
set -euo pipefail
build=${1:?usage: opencl_buffer_bytes.sh BUILD [--list] [--links N,N] [--solver S] [--steps K]}
shift
links=10000,100000 solver=direct steps=2 list=0
while [ $# -gt 0 ]; do
    case $1 in
    --list) list=1 ;;
    --links) links=$2; shift ;;
    --solver) solver=$2; shift ;;
    --steps) steps=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -shared -fPIC -o "$tmp/shim.so" "$here/opencl_buffer_bytes.c" -ldl -lpthread
first_n= first_b= n= b=
for n in ${links//,/ }; do
    out=$(OPENCL_BUFFER_BYTES_LIST=$list LD_PRELOAD="$tmp/shim.so" "$build/catena" run "chain:$n" --backend=opencl \
          --solver="$solver" --steps="$steps" --quiet 2>&1 >/dev/null) || { echo "$out" >&2; exit 1; }
    # the last report is the catena process's (the compiler's child processes report none)
    b=$(echo "$out" | grep 'peak live' | tail -1 | sed 's/.*peak live \([0-9]*\) bytes.*/\1/')
    echo "chain:$n $solver: $b device bytes at the peak"
    [ "$list" = 1 ] && echo "$out" | awk '/peak live [1-9]/ {on = 1; next} on && /^opencl_buffer_bytes:   / {print "    " $2}'
    [ -z "$first_n" ] && first_n=$n first_b=$b
done
if [ "$n" != "$first_n" ]; then
    awk -v b0="$first_b" -v b1="$b" -v n0="$first_n" -v n1="$n" 'BEGIN {printf "per link (chain:%d to chain:%d): %.1f bytes\n", n0, n1, (b1 - b0) / (n1 - n0)}'
fi
