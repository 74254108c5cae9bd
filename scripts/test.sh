#!/usr/bin/env bash
# README command (b): set up, build, and run every test (ctest runs the core,
# torch and views Catch2 binaries; GUI tests run offscreen).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
cd "${FUSEBOX_BUILD_DIR:-$root/build}"
QT_QPA_PLATFORM=offscreen ctest --output-on-failure
