#!/usr/bin/env bash
# Installs the peer engines bench_peers compares Catena with (Debian 12 packages), skipping those present:
# Bullet 3 (libbullet-dev 3.24), ODE (libode-dev 0.16), MuJoCo (libmujoco-dev 2.2). Optional: the library
# never links them and bench_peers builds with whichever are found; re-run cmake after installing.
# Usage: bash scripts/deps-peers.sh   (as root, or with sudo available)
set -euo pipefail
packages=(g++ libbullet-dev libode-dev libmujoco-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "catena: installing peer engines ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
