#!/usr/bin/env bash
# The documented `pip install --no-build-isolation ./python`, offline (--no-index: anything pip would
# download fails the test), into a scratch virtual environment that sees Debian's numpy
# (--system-site-packages), then `import catena` from elsewhere runs a chain.
# Usage: pip_install.sh PYTHON SOURCE_DIR BUILD_DIR SCRATCH_DIR
# The CMake build tree BUILD_DIR is reused (the package's extension is its target catena_python), and
# python/ is copied to SCRATCH_DIR so that the build writes nothing into the source tree. Exits 77 (skip)
# without pip.
set -eu
python=$1 source=$2 build=$3 scratch=$4
if ! "$python" -m pip --version >/dev/null 2>&1; then echo "skipped: $python has no pip (Debian: python3-pip)"; exit 77; fi
rm -rf "$scratch" && mkdir -p "$scratch"
cp -r "$source/python" "$scratch/python"
rm -rf "$scratch/python/build" "$scratch/python/"*.egg-info
"$python" -m venv --without-pip --system-site-packages "$scratch/venv"
CATENA_SOURCE_DIR="$source" CATENA_BUILD_DIR="$build" PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
  "$scratch/venv/bin/python" -m pip install --no-build-isolation --no-index "$scratch/python"
cd "$scratch"
PYTHONPATH= "$scratch/venv/bin/python" - <<'PY'
import catena, sys
assert catena.__file__.startswith(sys.prefix), catena.__file__  # the installed copy, not a build tree
w = catena.World(backend="cpu")
w.add_chain(100)
w.step(10)
assert w.stats["solver"] == "direct" and w.positions.shape == (100, 3)
print("installed", catena.__version__, "at", catena.__file__, "- chain:100 max gap", w.stats["max_gap"])
PY
