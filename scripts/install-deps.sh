#!/usr/bin/env bash
# Installs every Debian 12 package asmevo needs to build, test and run (DESIGN.md, "Build and dependencies").
# Idempotent: packages already present are left alone. Needs root (or sudo).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config python3 python3-pytest parallel
  llvm-22 llvm-22-dev llvm-22-tools lld-22 clang-22 libclang-rt-22-dev
  libamdhip64-dev
  libboost-dev nlohmann-json3-dev libcurl4-openssl-dev
  libgtest-dev libgmock-dev librapidcheck-dev
  zlib1g-dev libzstd-dev libedit-dev libxml2-dev libffi-dev libncurses-dev
)

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root or install sudo" >&2; exit 2; }
  sudo_cmd=(sudo)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
