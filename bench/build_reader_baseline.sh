#!/usr/bin/env bash
# Builds this tree's bench_fx_read.cpp against the libraries of an earlier
# commit's build, so that the FX reader alone can be timed against itself as
# it was (bench_read_dump.sh's FUSEBOX_BENCH_BASELINE_READER); commits older
# than the benchmark have no such executable of their own.
#   bench/build_reader_baseline.sh OLD_BUILD_DIR [OUTPUT]
# OLD_BUILD_DIR is a Ninja build of the earlier commit in which fusebox-pass
# is built (see bench/README.md); it links what fusebox-pass links there.
# The reader's API it calls (readFxText, FxReadOptions{schemas, sourceName},
# torchSchemas) is the same at 09dd8ad, the commit issue 37 was filed at, and since.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
old=${1:?usage: build_reader_baseline.sh OLD_BUILD_DIR [OUTPUT]}
out=${2:-$old/fusebox_bench_fx_read.baseline}
[ -f "$old/build.ninja" ] || { echo "build_reader_baseline: $old has no build.ninja" >&2; exit 1; }
[ -x "$old/app/fusebox-pass" ] || { echo "build_reader_baseline: build fusebox-pass in $old first" >&2; exit 1; }
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$old/CMakeCache.txt")
# The libraries fusebox-pass links, from its link statement in build.ninja.
libs=$(awk '/^build app\/fusebox-pass:/{f=1} f && /LINK_LIBRARIES =/{sub(/.*LINK_LIBRARIES = /, ""); print; exit}' "$old/build.ninja")
[ -n "$libs" ] || { echo "build_reader_baseline: no link line for fusebox-pass in $old/build.ninja" >&2; exit 1; }
(cd "$old" && c++ -std=c++20 -O2 -g1 -DNDEBUG -no-pie -I"$src" -I"$here" -o "$out" "$here/bench_fx_read.cpp" \
    "$here/../app/common/MimallocOptions.cpp" $libs)
echo "$out"
