#!/usr/bin/env bash
# ctest entry of the Python package: the pytest suite against the package in the CMake build tree.
# Usage: run.sh PYTHON PACKAGE_DIR CATENA_CLI SCRATCH_DIR [WHY_NOT_BUILT]
# Exits 77 (ctest skip) when the package could not be built or python3, numpy or pytest are missing.
set -u
python=$1 package_dir=$2 cli=$3 scratch=$4 why_not=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "$why_not" ]; then echo "skipped: the Python package was not built: $why_not"; exit 77; fi
if [ -z "$python" ] || ! command -v "$python" >/dev/null; then echo "skipped: no python3 interpreter found"; exit 77; fi
for module in numpy pytest; do
  if ! "$python" -c "import $module" 2>/dev/null; then
    echo "skipped: $python cannot import $module (Debian: python3-$module; scripts/deps.sh installs it)"
    exit 77
  fi
done
rm -rf "$scratch" && mkdir -p "$scratch"
export PYTHONPATH="$package_dir" CATENA_CLI="$cli" PYTHONDONTWRITEBYTECODE=1
exec "$python" -m pytest -q -p no:cacheprovider --basetemp="$scratch" "$here"
