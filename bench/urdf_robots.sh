#!/usr/bin/env bash
# The URDF robot table: writes the generated robot descriptions of bench/urdf_robots.py into a scratch
# folder and measures each with the catena Python package of a build tree (default settings, gravity
# -z, 120 steps unless STEPS says otherwise). Prints a Markdown table and a summary line, then the mimic
# couplings of the robots that have them under driven leaders (urdf_robots.py mimic) and the limited
# joints' worst excursion beyond their limits (urdf_robots.py limits). BOUNDED_ROWS=auto|exact|sweep sets
# the direct solver's treatment of limits and motors (ctn_world_desc.bounded_rows) for before/after runs.
#   usage: bench/urdf_robots.sh [BUILD_DIR] [STEPS]      (BUILD_DIR default: build)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
steps=${2:-120}
python=${PYTHON:-python3}
if [ ! -d "$build/python/catena" ]; then echo "no Python package in $build/python (build the catena_python target)" >&2; exit 2; fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$python" "$here/urdf_robots.py" write "$scratch"
PYTHONPATH="$build/python" "$python" "$here/urdf_robots.py" measure "$scratch" "$steps" 2>/dev/null
echo
PYTHONPATH="$build/python" "$python" "$here/urdf_robots.py" mimic "$scratch" "$steps" 2>/dev/null
echo
PYTHONPATH="$build/python" "$python" "$here/urdf_robots.py" limits "$scratch" "$steps" 2>/dev/null
