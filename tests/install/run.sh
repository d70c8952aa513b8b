#!/usr/bin/env bash
# Install test: `cmake --install` into a scratch prefix, moved elsewhere afterwards (the package must be
# relocatable), then the README example built against it three ways and run: find_package(catena) with
# the shared and with the static library, and pkg-config --static against a copy of the prefix that holds
# only libcatena.a (so the link must come from Libs.private).
# usage: run.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR
set -euo pipefail
build=$1 src=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
cmake --install "$build" --prefix "$scratch/installed" > "$scratch/install.log"
mv "$scratch/installed" "$scratch/prefix" # relocated: nothing may point at the install prefix
prefix=$scratch/prefix
for h in catena core io opencl scenes; do test -f "$prefix/include/catena/$h.h"; done # every public header
test -f "$prefix/share/man/man1/catena.1" # the man page
pc=$(find "$prefix" -name catena.pc | head -n 1)
libdir=$(dirname "$pc")/..
# the CMake package and catena.pc name no path of the build machine or of the first install prefix
if grep -rn -e "$scratch/installed" -e "$build" -e "$src" -e "libcjson.so" -e "libclblast.so" "$libdir/cmake/catena" "$pc"; then
  echo "install test: the installed package holds an absolute path (above)" >&2
  exit 1
fi
# CMake package: shared (catena::catena) and static (catena::catena_static)
cmake -S "$src/tests/install" -B "$scratch/consumer" -DCMAKE_PREFIX_PATH="$prefix" -DEXAMPLE_SOURCE="$src/examples/pendulum.c" > "$scratch/consumer.log"
cmake --build "$scratch/consumer" >> "$scratch/consumer.log"
for exe in pendulum pendulum_static; do
  LD_LIBRARY_PATH="$libdir" "$scratch/consumer/$exe" | tee "$scratch/cmake-$exe.txt"
  grep -q "joint gap" "$scratch/cmake-$exe.txt"
done
# pkg-config --static against a prefix with the static library only
cp -a "$prefix" "$scratch/static-prefix"
rm -f "$scratch/static-prefix"/lib*/libcatena.so* "$scratch/static-prefix"/lib/*/libcatena.so*
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$(find "$scratch/static-prefix" -name catena.pc | head -n 1)")
cc -std=c11 "$src/examples/pendulum.c" -o "$scratch/pendulum-pc" $(pkg-config --cflags catena) $(pkg-config --static --libs catena)
if readelf -d "$scratch/pendulum-pc" | grep -q "libcatena"; then
  echo "install test: the pkg-config --static build links libcatena dynamically" >&2
  exit 1
fi
"$scratch/pendulum-pc" | grep -q "joint gap"
echo "install test: relocated package; find_package (shared, static) and pkg-config --static consumers built and ran"
