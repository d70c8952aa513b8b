#!/usr/bin/env bash
# ParaView's own PVD reader on a catena --vtk series: the frames load and the time steps are simulation
# seconds. Usage: paraview_pvd.sh CATENA WORK_DIR. Exits 77 (skipped) where pvpython is not installed
# (Debian: python3-paraview), unless CATENA_REQUIRE_PVPYTHON is set (CI).
set -euo pipefail
catena=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v pvpython > /dev/null; then
    echo "pvpython not found (Debian python3-paraview: bash scripts/deps-paraview.sh)"
    [ -n "${CATENA_REQUIRE_PVPYTHON:-}" ] && exit 1 # CI installed it: its absence is a failure
    exit 77
fi
rm -rf "$work" && mkdir -p "$work"
CATENA_QUIET=1 "$catena" run chain:20 --backend cpu --quiet --steps 30 --every 10 --dt 0.01 --vtk "$work/vtk" > /dev/null
# pvpython writes its own start-up chatter; the check's verdict is its exit status
pvpython --force-offscreen-rendering "$here/check_pvd_paraview.py" "$work/vtk/catena.pvd" 0 0.1 0.2 0.3
