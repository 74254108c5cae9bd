#!/usr/bin/env bash
# Formats the C++ sources with the repository's .clang-format (Qt Creator's
# style as the base), or with --check lists the files that differ from it
# and fails. Needs clang-format (14 or newer).
#   scripts/format.sh [--check]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v clang-format >/dev/null || { echo "format: clang-format not found (apt-get install clang-format)" >&2; exit 1; }
mapfile -t files < <(git ls-files '*.cpp' '*.h')
if [ "${1:-}" = "--check" ]; then
  status=0
  for f in "${files[@]}"; do
    if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
      echo "format: $f differs from .clang-format"
      status=1
    fi
  done
  exit $status
fi
clang-format -i "${files[@]}"
