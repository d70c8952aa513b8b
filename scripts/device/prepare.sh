#!/bin/bash
# Prepares .gpu/ for scripts/device/run.sh on a GPU machine that cannot install packages (the session's
# `device` tool): the Debian 12 OpenCL ICD loader, OpenCL headers, clBLAST and cJSON unpacked under
# .gpu/root, and the commit in .gpu/commit (the device machine gets the working tree without .git).
# .gpu/ is ignored by git (.gitignore) and carried to the machine explicitly:
#   bash scripts/device/prepare.sh
#   run(command="bash scripts/device/run.sh", carry=[".gpu"], timeout_s=540)     (results come back in $OUT)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
mkdir -p .gpu/debs
if [ -z "$(ls .gpu/debs/*.deb 2>/dev/null)" ]; then
    (cd .gpu/debs && apt-get download ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers \
        libclblast1 libclblast-dev libcjson1 libcjson-dev)
fi
rm -rf .gpu/root && mkdir -p .gpu/root
for f in .gpu/debs/*.deb; do dpkg -x "$f" .gpu/root; done
rm -rf .gpu/root/usr/share .gpu/root/usr/lib/x86_64-linux-gnu/*.a
commit=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- || commit="$commit+changes"
echo "$commit" > .gpu/commit
du -sh .gpu
