#!/usr/bin/env bash
# Installs the Debian packages Catena needs to build, test and benchmark, skipping those already present.
# Usage: bash scripts/deps.sh   (as root, or with sudo available)
set -euo pipefail
packages=(build-essential cmake pkg-config ocl-icd-opencl-dev opencl-headers pocl-opencl-icd libclblast-dev clinfo libcjson-dev libxml2-utils valgrind doxygen python3) # valgrind: tests/reliability/valgrind_cli.sh; python3: bench/report
packages+=(libopenmpi-dev openmpi-bin) # Open MPI: `catena sweep` under mpirun (tests/sweep)
# The Python package (python/): headers, NumPy and pytest for the build and its tests; setuptools, pip and
# wheel for `pip install --no-build-isolation ./python`; matplotlib for python/examples/chain_plot.py.
packages+=(python3-dev python3-numpy python3-pytest python3-setuptools python3-pip python3-wheel python3-matplotlib)
# VTK's Python modules: tests/paraview/check_vtk_series.py reads the --vtk frames back and `catena render`
# draws them (share/catena/render.py). python3-paraview ships them too and conflicts with python3-vtk9: keep it.
if ! dpkg-query -W -f='${Status}' python3-paraview 2>/dev/null | grep -q "install ok installed"; then
  packages+=(python3-vtk9)
fi
packages+=(xvfb xauth ffmpeg) # `catena render`: Debian's VTK draws through X11 (xvfb-run without a display); --mp4 runs ffmpeg
packages+=(liburdfdom-dev) # URDF import (host/io/urdf_parse.cpp; C++, g++ comes with build-essential)
packages+=(time) # /usr/bin/time: bench/instructions.sh reads the peak resident memory
exec bash "$(dirname "$0")/apt-install-missing.sh" "${packages[@]}"
