#!/bin/bash
# Device run: build the carried source tree ($1, default .gpu/src) against the carried libraries, run the
# tests on the NVIDIA OpenCL device and the benchmarks. Everything lands in $OUT.
SRC=${1:-.gpu/src}; MODE=${2:-full}
exec > >(tee "$OUT/log.txt") 2>&1
set -x
uname -r; head -2 /etc/os-release; gcc --version | head -1; cmake --version | head -1; nproc; nvidia-smi -L
ls /usr/local/nvidia/lib64 2>/dev/null | grep -i -E "opencl|cuda" | head; ls /etc/OpenCL/vendors 2>/dev/null
source .gpu/env.sh; echo "ICD: $nv"
B=/tmp/b
cmake -S "$SRC" -B $B -DCMAKE_BUILD_TYPE=Release $CMAKE_DEPS > $OUT/cmake.txt 2>&1 || { tail -30 $OUT/cmake.txt; exit 1; }
cmake --build $B -j16 > $OUT/build.txt 2>&1 || { tail -40 $OUT/build.txt; exit 1; }
$B/catena devices
export CATENA_CACHE_DIR=/tmp/kc OMP_WAIT_POLICY=passive
timeout 240 ctest --test-dir $B -j8 --output-on-failure -E "valgrind|install|soak" --timeout 200 > $OUT/ctest.txt 2>&1; echo "ctest rc $?"; tail -15 $OUT/ctest.txt
export CATENA_QUIET=1
timeout 120 $B/bench/bench_backends --sizes 10000,100000,1000000 --scenes chain,grid --steps 10 --md $OUT/backends.md --json $OUT/backends.json; cat $OUT/backends.md
timeout 120 $B/bench/bench_chain --backend opencl --sizes 1000,10000,100000,1000000 --steps 60 --configs gs:10x1,gs:4x4,direct:1x1,direct:1x4 --md $OUT/chain-opencl.md; cat $OUT/chain-opencl.md
timeout 100 $B/bench/bench_chain --backend cpu --sizes 1000,10000,100000 --steps 60 --configs gs:10x1,gs:4x4,direct:1x1,direct:1x4 --md $OUT/chain-cpu.md; cat $OUT/chain-cpu.md
timeout 60 $B/catena run chain:10000 --steps 600 | tee $OUT/main-job.txt
