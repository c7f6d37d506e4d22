#!/usr/bin/env bash
# Installs the Debian 12 packages kvscope builds against, only those that are missing.
# Safe to run again: with everything present it does nothing and takes a fraction of a second.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev libxkbcommon-dev libgl-dev libqcustomplot-dev
  libtbb-dev nlohmann-json3-dev libtomlplusplus-dev libcli11-dev libfast-float-dev libsimdjson-dev
  libgtest-dev libgmock-dev libbenchmark-dev librapidcheck-dev zlib1g-dev
  libopenmpi-dev openmpi-bin
  xvfb xauth
)
# Extra tools for fuzzing and sanitizers: `install-deps.sh --dev`.
if [[ "${1:-}" == "--dev" ]]; then
  packages+=(clang-14 libclang-rt-14-dev valgrind linux-perf)
fi
# The fuzzers' compiler and runtime only (CI's bounded fuzzing run): `install-deps.sh --fuzz`.
if [[ "${1:-}" == "--fuzz" ]]; then
  packages+=(clang-14 libclang-rt-14-dev)
fi
# Tools that check the .deb (packaging/check-package.sh): `install-deps.sh --package`.
if [[ "${1:-}" == "--package" ]]; then
  packages+=(lintian desktop-file-utils appstream man-db)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

sudo_cmd=()
[[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
echo "install-deps: installing ${missing[*]}" >&2
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
