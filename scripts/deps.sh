#!/usr/bin/env bash
# Installs the Debian packages Catena needs to build, test and benchmark, skipping those already present.
# Usage: bash scripts/deps.sh   (as root, or with sudo available)
set -euo pipefail
packages=(build-essential cmake pkg-config ocl-icd-opencl-dev opencl-headers pocl-opencl-icd libclblast-dev clinfo libcjson-dev libxml2-utils valgrind) # valgrind: tests/reliability/valgrind_cli.sh (issue 7)
packages+=(libopenmpi-dev openmpi-bin) # Open MPI: `catena sweep` under mpirun (tests/sweep)
exec bash "$(dirname "$0")/apt-install-missing.sh" "${packages[@]}"
