#!/usr/bin/env bash
# Optional (issue 7): the Debian packages for the libFuzzer build (-DCATENA_FUZZ=ON): clang and its
# runtime libraries (libFuzzer, ASan, UBSan), skipping those already present. Used by .ci/run.
# Usage: bash scripts/deps-fuzz.sh   (as root, or with sudo available)
set -euo pipefail
packages=(clang libclang-rt-14-dev)
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
