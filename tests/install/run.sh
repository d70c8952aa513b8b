#!/usr/bin/env bash
# Install test: `cmake --install` into a scratch prefix, then build the README example against it twice,
# through find_package(catena) and through pkg-config, and run both.
# usage: run.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR
set -euo pipefail
build=$1 src=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" > "$scratch/install.log"
test -f "$scratch/prefix/include/catena/catena.h"
test -f "$scratch/prefix/share/man/man1/catena.1" # the man page
libdir=$(dirname "$(find "$scratch/prefix" -name catena.pc | head -n 1)")/..
# CMake package
cmake -S "$src/tests/install" -B "$scratch/consumer" -DCMAKE_PREFIX_PATH="$scratch/prefix" -DEXAMPLE_SOURCE="$src/examples/pendulum.c" > "$scratch/consumer.log"
cmake --build "$scratch/consumer" >> "$scratch/consumer.log"
LD_LIBRARY_PATH="$libdir" CATENA_QUIET=1 "$scratch/consumer/pendulum" | tee "$scratch/cmake-run.txt"
grep -q "joint gap" "$scratch/cmake-run.txt"
# pkg-config (static link: Libs.private pulls OpenCL/clBLAST/OpenMP when they were built in)
export PKG_CONFIG_PATH="$libdir/pkgconfig"
cc -std=c11 "$src/examples/pendulum.c" -o "$scratch/pendulum-pc" $(pkg-config --cflags catena) \
   -Wl,-Bstatic $(pkg-config --libs-only-L catena) -lcatena -Wl,-Bdynamic $(pkg-config --libs-only-other --static catena) $(pkg-config --static --libs-only-l catena | sed 's/-lcatena//')
CATENA_QUIET=1 "$scratch/pendulum-pc" | grep -q "joint gap"
echo "install test: find_package and pkg-config consumers built and ran"
