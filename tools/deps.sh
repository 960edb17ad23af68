#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages AttnScope builds and tests with, when any is missing. Idempotent: a machine
# that has them all installs nothing and needs no network.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev libqcustomplot-dev libgl-dev
  libeigen3-dev nlohmann-json3-dev libopenblas-dev libdnnl-dev
  libonig-dev libsentencepiece-dev
  fonts-dejavu-core xvfb xauth
  clang-14 libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing missing packages: ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
