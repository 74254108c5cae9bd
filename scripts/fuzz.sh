#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang, ASan + UBSan) and runs each for
# SECONDS (default 60) on its corpus: the seeds scripts/fuzz-seeds.py makes
# from the tests' fixtures, plus what earlier runs found (kept in
# build-fuzz/corpus/). Fails when a target crashes or breaks its contract; the
# input is left in build-fuzz/crashes/ (reproduce: build-fuzz/TARGET_fuzz FILE).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# Targets (all of them when none is named): fx_text, pattern_file,
# graph_json, export_json, pt2_archive, pass_config, and torchscript when
# libtorch is installed; the top of fuzz/TARGET_fuzz.cpp says what each checks.
#
# FUSEBOX_FUZZ_SEED=S makes the run repeatable: mutation seed S, on the seeds
# alone with a fresh corpus, for SECONDS each (FUSEBOX_FUZZ_RUNS=N also stops
# a target after N inputs). The test command (scripts/test.sh) runs that way;
# without them the run is exploratory: random, timed, and growing
# build-fuzz/corpus/. A run bounded by FUSEBOX_FUZZ_RUNS goes about as far on
# any machine (the coverage that steers the mutations still varies a little
# between runs); a timed one goes as far as the machine's speed allows.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-60}"
shift || true
build="${FUSEBOX_FUZZ_BUILD_DIR:-$root/build-fuzz}"
targets=("$@")

# As in build.sh: paths under the source root hashed relatively, so that a
# fresh clone elsewhere (CI's) reuses what another clone compiled. Without it
# every fuzz source missed ccache in CI (3.5 min of ASan and libtorch builds).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"

command -v clang++ >/dev/null || { echo "fuzz: clang++ not found (scripts/setup.sh installs it)" >&2; exit 1; }
if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S "$root/fuzz" -B "$build" -G Ninja >/dev/null
fi
# Every target fuzz/CMakeLists.txt defines (it lists them in targets.txt).
ninja -C "$build" build.ninja >/dev/null
[ ${#targets[@]} -gt 0 ] || read -r -a targets <"$build/targets.txt"
ninja -j "${FUSEBOX_JOBS:-2}" -C "$build" "${targets[@]/%/_fuzz}" | tail -1

mkdir -p "$build/crashes"

# run_target T: fuzzes T, prints its one-line result (stdout) or the failure
# (stderr) into $build/T.result / T.failure, and fails when T failed.
run_target() {
  local t=$1
  local seeds="$build/seeds/$t" corpus="$build/corpus/$t" log="$build/$t.log"
  rm -rf "$seeds" && python3 "$root/scripts/fuzz-seeds.py" "$t" "$seeds" >/dev/null
  local repeatable=()
  if [ -n "${FUSEBOX_FUZZ_SEED:-}${FUSEBOX_FUZZ_RUNS:-}" ]; then
    corpus="$build/corpus/$t-repeatable"
    rm -rf "$corpus"
    repeatable=(-seed="${FUSEBOX_FUZZ_SEED:-1}")
    [ -z "${FUSEBOX_FUZZ_RUNS:-}" ] || repeatable+=(-runs="$FUSEBOX_FUZZ_RUNS")
  fi
  mkdir -p "$corpus"
  # One libFuzzer worker per target. Leaks inside the system libtorch
  # (torchscript) are not ours: fuzz/lsan-suppressions.txt.
  if LSAN_OPTIONS="suppressions=$root/fuzz/lsan-suppressions.txt:print_suppressions=0" "$build/${t}_fuzz" -max_total_time="$seconds" -max_len=65536 -timeout=20 -rss_limit_mb=4096 \
       "${repeatable[@]}" -print_final_stats=1 -artifact_prefix="$build/crashes/$t-" "$corpus" "$seeds" >"$log" 2>&1; then
    local runs how
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    how="${seconds} s"
    [ -z "${FUSEBOX_FUZZ_SEED:-}${FUSEBOX_FUZZ_RUNS:-}" ] || how="seed ${FUSEBOX_FUZZ_SEED:-1}, ${FUSEBOX_FUZZ_RUNS:+at most }${seconds} s"
    echo "fuzz: $t: no crash in ${runs:-?} executions (${how}, $(ls "$seeds" | wc -l) seeds, corpus $(ls "$corpus" | wc -l))"
  else
    echo "fuzz: $t: FAILED; the input is in $build/crashes/:" >&2
    [ -z "${FUSEBOX_FUZZ_SEED:-}${FUSEBOX_FUZZ_RUNS:-}" ] || echo "fuzz: repeat with${FUSEBOX_FUZZ_RUNS:+ FUSEBOX_FUZZ_RUNS=$FUSEBOX_FUZZ_RUNS} FUSEBOX_FUZZ_SEED=${FUSEBOX_FUZZ_SEED:-1} scripts/fuzz.sh $seconds $t" >&2
    # The broken contract with its detail (the first difference, the text written).
    grep -A 12 -E "^([a-z_]+_fuzz:|==[0-9]+== ?ERROR)|: runtime error:" "$log" | head -30 >&2
    tail -n 3 "$log" >&2
    return 1
  fi
}

# FUSEBOX_FUZZ_JOBS targets at a time (default 1: the machine's other core
# builds or runs tests; the test command, which runs them last, uses 2).
# A target's run does not depend on the others'; the results are printed in
# the targets' order once all have run.
jobs="${FUSEBOX_FUZZ_JOBS:-1}"
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  rm -f "$build/$t.ok"
  { run_target "$t" && touch "$build/$t.ok"; } >"$build/$t.result" 2>"$build/$t.failure" &
done
wait
failed=0
for t in "${targets[@]}"; do
  cat "$build/$t.result"
  cat "$build/$t.failure" >&2
  [ -f "$build/$t.ok" ] || failed=1
done
exit $failed
