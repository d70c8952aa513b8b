#!/usr/bin/env bash
# Install test: `cmake --install` into a scratch prefix, moved elsewhere afterwards (the package must be
# relocatable), then the README example built against it five ways and run: find_package(catena) with
# the shared and with the static library; pkg-config: `--libs catena` (shared: needs libcatena.so.0 at run
# time), `--libs catena-static` (libcatena.a and its private dependencies, though libcatena.so is installed
# beside it: runs without the library directory on the loader's path) and `--static --libs catena` against a
# copy of the prefix that holds only libcatena.a (so the link must come from Libs.private). The
# documentation the man page points to is installed, and `catena render` finds its script in the moved tree.
# usage: run.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR
set -euo pipefail
build=$1 src=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
cmake --install "$build" --prefix "$scratch/installed" > "$scratch/install.log"
mv "$scratch/installed" "$scratch/prefix" # relocated: nothing may point at the install prefix
prefix=$scratch/prefix
for h in catena core io opencl scenes; do test -f "$prefix/include/catena/$h.h"; done # every public header
test -f "$prefix/share/man/man1/catena.1" # the man page
# the documentation under share/doc/catena, every file the man page's FILES section names
man_text=$(sed 's/\\-/-/g' "$prefix/share/man/man1/catena.1") # roff writes - as \-
for doc in README.md CHANGELOG.md scene-format.md urdf.md ensembles.md visualisation.md design.md; do
  test -f "$prefix/share/doc/catena/$doc" || { echo "install test: share/doc/catena/$doc is not installed" >&2; exit 1; }
  grep -q "$doc" <<< "$man_text" || { echo "install test: the man page does not name $doc" >&2; exit 1; }
done
if grep -n "in the sources\|docs/scene-format" "$prefix/share/man/man1/catena.1"; then
  echo "install test: the man page points into the source tree (above)" >&2
  exit 1
fi
# catena render's script, found next to the moved executable (CATENA_PYTHON=true runs nothing: exit 0 iff found)
test -f "$prefix/share/catena/render.py"
"$prefix/bin/catena" run chain:3 --backend cpu --quiet --steps 2 --every 1 --vtk "$scratch/vtk" > /dev/null
CATENA_PYTHON=true "$prefix/bin/catena" render "$scratch/vtk/catena.pvd" --out "$scratch/png" \
  || { echo "install test: catena render did not find share/catena/render.py in the moved prefix" >&2; exit 1; }
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
# pkg-config against the full prefix: shared (libcatena.so.0 needed at run time) and static (catena-static.pc)
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$pc")
cc -std=c11 "$src/examples/pendulum.c" -o "$scratch/pendulum-shared" $(pkg-config --cflags --libs catena)
readelf -d "$scratch/pendulum-shared" | grep -q "NEEDED.*libcatena.so" || { echo "install test: pkg-config --libs catena did not link libcatena.so" >&2; exit 1; }
LD_LIBRARY_PATH="$libdir" "$scratch/pendulum-shared" | grep -q "joint gap"
cc -std=c11 "$src/examples/pendulum.c" -o "$scratch/pendulum-static" $(pkg-config --cflags --libs catena-static)
if readelf -d "$scratch/pendulum-static" | grep -q "libcatena"; then
  echo "install test: pkg-config --libs catena-static links libcatena dynamically" >&2
  exit 1
fi
env -u LD_LIBRARY_PATH "$scratch/pendulum-static" | grep -q "joint gap"
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
echo "install test: relocated package; find_package (shared, static) and pkg-config (catena, catena-static, --static catena) consumers built and ran; docs and the render script installed"
