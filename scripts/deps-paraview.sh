#!/usr/bin/env bash
# Installs ParaView's Python shell pvpython (Debian python3-paraview), with which the paraview_pvd test loads a
# `catena run --vtk` series through ParaView's own PVD reader (the test is skipped without it). On Debian 12
# python3-paraview replaces python3-vtk9 (both ship VTK's Python modules; the vtk_series test works with
# either), so run this after the main test suite, as .ci/run does.
# Usage: bash scripts/deps-paraview.sh   (as root, or with sudo available)
set -euo pipefail
exec bash "$(dirname "$0")/apt-install-missing.sh" python3-paraview
