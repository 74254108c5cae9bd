#!/usr/bin/env bash
# Runs the bridge's Python tests (python/tests/test_*.py) inside a PyTorch 2
# root: the python/ folder is copied into the root's /tmp (the chroot sees
# nothing else), each test file runs as a script, and the copy is removed.
# Fails, never skips, when the root is missing: scripts/setup-pt2.sh makes it.
#   run_python_tests.sh ROOT PYTHON_DIR
set -euo pipefail
root="$1"
src="$2"
if [ ! -x "$root/usr/bin/python3" ]; then
    echo "no PyTorch 2 root at $root: run scripts/setup-pt2.sh" >&2
    exit 1
fi
inside="/tmp/fusebox-python-tests-$$"
rm -rf "$root$inside"
mkdir -p "$root$inside"
trap 'rm -rf "$root$inside"' EXIT
cp -r "$src/." "$root$inside/"
status=0
count=0
for test in "$root$inside"/tests/test_*.py; do
    name="$(basename "$test")"
    count=$((count + 1))
    if chroot "$root" python3 "$inside/tests/$name" 2> >(grep -v -e 'failed to get boot id' -e 'Error in cpuinfo' >&2); then
        echo "$name: passed"
    else
        echo "$name: FAILED"
        status=1
    fi
done
[ "$count" -gt 0 ] || { echo "no python/tests/test_*.py found" >&2; exit 1; }
exit $status
