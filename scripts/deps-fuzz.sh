#!/usr/bin/env bash
# Optional: the Debian packages for the libFuzzer build (-DCATENA_FUZZ=ON): clang and its
# runtime libraries (libFuzzer, ASan, UBSan), skipping those already present. Used by .ci/run.
# Usage: bash scripts/deps-fuzz.sh   (as root, or with sudo available)
set -euo pipefail
packages=(clang libclang-rt-14-dev)
exec bash "$(dirname "$0")/apt-install-missing.sh" "${packages[@]}"
