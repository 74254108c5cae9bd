#!/usr/bin/env bash
# Configures (once) and builds Fusebox into build/ with Ninja (and ccache when
# installed). Extra arguments are passed to `cmake --build` (e.g. --target fusebox).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${FUSEBOX_BUILD_DIR:-$root/build}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
# Two jobs: libtorch translation units take ~1.5 GB each and the reference machine has 2 cores.
cmake --build "$build" -j "${FUSEBOX_JOBS:-2}" "$@"
