#!/usr/bin/env bash
# README command (b): set up, build, and run every test. ctest runs the four
# Catch2 binaries (core, torch, pt2, and views twice: offscreen and in a real
# X server under xvfb-run; ctest lists each case by name), two at a time. The pt2 tests need the
# reference PyTorch 2 that setup-pt2.sh makes once (a Debian 13 root, cached in
# ~/.cache/fusebox/pt2-root); they fail, never skip, without it. Then every
# fuzz target (scripts/fuzz.sh: the FX text, pattern file, graph JSON,
# torch.export JSON, .pt2 archive, pass config and TorchScript readers) runs
# for 60 s on its seeds from a fixed mutation seed (-seed=1, a fresh corpus),
# two targets at a time,
# and at most 40,000 inputs, so that a faster machine does not go further
# than the tree was checked: the same command, run to the cap, was clean
# before the change landed. The runs are close on every machine but not
# identical: the coverage that steers libFuzzer varies a little from run to
# run (probably Abseil's per-process hash seed and the FX parser's two threads). A crash
# or a broken contract fails the run. Longer, random fuzzing is
# `scripts/fuzz.sh SECONDS`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
# The PyTorch 2 roots are made (or checked) while the build compiles: making
# them is downloads and unpacking, minutes on a cold machine, that need no
# core the compiler could use. Their lines are printed when both are done.
pt2_log="$(mktemp)"
bash "$root/scripts/setup-pt2.sh" >"$pt2_log" 2>&1 &
pt2_setup=$!
trap 'kill "$pt2_setup" 2>/dev/null || true; rm -f "$pt2_log"' EXIT
# What the tests run (the four test binaries, fusebox-pass and its fixtures)
# and the app; the benchmarks are built by build.sh alone.
bash "$root/scripts/build.sh" --target fusebox_core_tests fusebox_torch_tests fusebox_pt2_tests fusebox_views_tests \
  fusebox fusebox-pass
if ! wait "$pt2_setup"; then
  cat "$pt2_log" >&2
  echo "test: scripts/setup-pt2.sh failed (above); the PyTorch 2 tests need its roots" >&2
  exit 1
fi
cat "$pt2_log"
cd "${FUSEBOX_BUILD_DIR:-$root/build}"
# Two tests at a time on the reference machine's two cores: a PyTorch 2 test
# waits on its Python much of the time. The tests that share files take
# turns: captures are made once behind a lock (tests/pt2/CaptureCache.h),
# each views process has its own QSettings, and every other test writes
# files of its own.
QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j "${FUSEBOX_JOBS:-2}"
FUSEBOX_FUZZ_JOBS="${FUSEBOX_JOBS:-2}" FUSEBOX_FUZZ_RUNS=40000 FUSEBOX_FUZZ_SEED=1 bash "$root/scripts/fuzz.sh" 60
