#!/usr/bin/env bash
# Installs the Debian packages Catena needs to build, test and benchmark, skipping those already present.
# Usage: bash scripts/deps.sh   (as root, or with sudo available)
set -euo pipefail
packages=(build-essential cmake pkg-config ocl-icd-opencl-dev opencl-headers pocl-opencl-icd libclblast-dev clinfo libcjson-dev libxml2-utils valgrind) # valgrind: tests/reliability/valgrind_cli.sh (issue 7)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "catena: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
