#!/usr/bin/env bash
# Installs exactly the Debian 12 packages Fusebox needs to build, test and run.
# Idempotent: when every package is already installed it installs nothing and
# does not touch the network.
set -euo pipefail

PACKAGES=(
  # build
  cmake ninja-build ccache g++ pkg-config
  # GUI (views/, app/)
  qt6-base-dev qt6-svg-dev libgl-dev
  # model loading, schemas, execution (core/torch only)
  libtorch-dev
  # layout (core/layout only)
  libgraphviz-dev
  # JSON (core/io) and .pt2 archives
  nlohmann-json3-dev libzip-dev
  # md5 of TORCH_TRACE payloads (core/io)
  libssl-dev
  # the executables' allocator (mimalloc: a 100k-node run spends a third of its time in glibc malloc)
  libmimalloc-dev
  # hash maps for the importers' and the graph's name tables
  libabsl-dev
  # tests and fixtures
  catch2 python3-torch python3-torchvision
  # the views tests also run in a real X server (Xvfb, Qt's xcb platform):
  # key bindings and window activation differ from the offscreen platform's
  xvfb xauth
  # fuzz targets (fuzz/, scripts/fuzz.sh): clang with libFuzzer
  clang libclang-rt-14-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
