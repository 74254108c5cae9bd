#!/usr/bin/env bash
# Configures (once) and builds Fusebox into build/ with Ninja (and ccache when
# installed). Extra arguments are passed to `cmake --build` (e.g. --target fusebox).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${FUSEBOX_BUILD_DIR:-$root/build}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
# ccache keys on the compiler's command line and, with -g, the working directory:
# hashing the paths under the source root relatively lets a fresh clone elsewhere
# (CI's) reuse what another clone compiled. Debug info of a cache hit then names
# the first clone's directory, which nothing here reads.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
# Two jobs: libtorch translation units take ~1.5 GB each and the reference machine has 2 cores.
cmake --build "$build" -j "${FUSEBOX_JOBS:-2}" "$@"
