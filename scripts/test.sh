#!/usr/bin/env bash
# README command (b): set up, build, and run every test. ctest runs the four
# Catch2 binaries (core, torch, pt2, and views twice: offscreen and in a real
# X server under xvfb-run). The pt2 tests need the
# reference PyTorch 2 that setup-pt2.sh makes once (a Debian 13 root, cached in
# ~/.cache/fusebox/pt2-root); they fail, never skip, without it. Then each fuzz
# target runs 10,000 inputs from a fixed mutation seed on its seeds
# (scripts/fuzz.sh, repeatable: the same tree gives the same run anywhere); a
# crash or a broken contract fails the run. Longer, random fuzzing is
# `scripts/fuzz.sh SECONDS`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
bash "$root/scripts/setup-pt2.sh"
bash "$root/scripts/build.sh"
cd "${FUSEBOX_BUILD_DIR:-$root/build}"
QT_QPA_PLATFORM=offscreen ctest --output-on-failure
FUSEBOX_FUZZ_RUNS=10000 FUSEBOX_FUZZ_SEED=1 bash "$root/scripts/fuzz.sh" 300
