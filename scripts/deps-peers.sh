#!/usr/bin/env bash
# Installs the peer engines bench_peers compares Catena with (Debian 12 packages), skipping those present:
# Bullet 3 (libbullet-dev 3.24), ODE (libode-dev 0.16), MuJoCo (libmujoco-dev 2.2). Optional: the library
# never links them and bench_peers builds with whichever are found; re-run cmake after installing.
# Usage: bash scripts/deps-peers.sh   (as root, or with sudo available)
set -euo pipefail
packages=(g++ libbullet-dev libode-dev libmujoco-dev)
exec bash "$(dirname "$0")/apt-install-missing.sh" "${packages[@]}"
