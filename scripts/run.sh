#!/usr/bin/env bash
# README command (a): set up, build, and open the Fusebox app on the embedded
# demo model (or on the model given as arguments). Without a display the app
# runs headless: it prints a summary and writes a screenshot PNG.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh" --target fusebox
exec "${FUSEBOX_BUILD_DIR:-$root/build}/app/fusebox" "$@"
