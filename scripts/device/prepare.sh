#!/bin/bash
# Prepares .gpu/ for a run on a GPU machine that cannot install packages (the session's `device` tool):
# the Debian 12 OpenCL ICD loader, OpenCL headers, clBLAST and cJSON unpacked under .gpu/root, a copy of
# the committed tree (or the working tree with --worktree) under .gpu/src, and the two scripts beside this
# one. .gpu/ is ignored by git (add "/.gpu/" to .git/info/exclude) and carried to the machine explicitly.
# Then, on the machine, from the repository root: bash .gpu/run.sh .gpu/src   (results in $OUT)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
mkdir -p .gpu/debs
if [ -z "$(ls .gpu/debs/*.deb 2>/dev/null)" ]; then
    (cd .gpu/debs && apt-get download ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers \
        libclblast1 libclblast-dev libcjson1 libcjson-dev)
fi
rm -rf .gpu/root .gpu/src && mkdir -p .gpu/root .gpu/src
for f in .gpu/debs/*.deb; do dpkg -x "$f" .gpu/root; done
rm -rf .gpu/root/usr/share
if [ "${1:-}" = --worktree ]; then
    git ls-files -co --exclude-standard | tar -cf - -T - | tar -xf - -C .gpu/src
else
    git archive HEAD | tar -xf - -C .gpu/src
fi
cp scripts/device/env.sh scripts/device/run.sh .gpu/
du -sh .gpu
