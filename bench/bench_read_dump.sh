#!/usr/bin/env bash
# Reading speed of a large Dynamo dump: fusebox-pass inspect (start-up
# included) against the peer, Python compiling the same file in the PyTorch 2
# root, measured in the same run. Prints seconds, peak memory and the ratio.
#   bench/bench_read_dump.sh [BUILD_DIR] [BLOCKS]   (420 blocks: a ~3 MB dump)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
blocks=${2:-420}
root=${FUSEBOX_PT2_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/fusebox/pt2-root}
[ -d "$root" ] || { echo "bench_read_dump: no PyTorch 2 root at $root (run scripts/setup-pt2.sh)" >&2; exit 1; }
dump=/tmp/fusebox-bench-dynamo-$blocks.py
if [ ! -s "$root$dump" ]; then
    cp bench/make_dynamo_dump.py "$root/tmp/fusebox-make-dynamo-dump.py"
    chroot "$root" python3 /tmp/fusebox-make-dynamo-dump.py "$blocks" "$dump" >/dev/null 2>&1
fi
file="$root$dump"
best() { # best of 3 wall-clock seconds of a command
    local b=999
    for _ in 1 2 3; do
        local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
        b=$(echo "if ($e - $s < $b) $e - $s else $b" | bc -l)
    done
    printf '%.3f' "$b"
}
fusebox=$(best "$build/app/fusebox-pass" inspect "$file")
torchbuild=$(best "$build/app/fusebox-pass-torch" inspect "$file")
peer=$(best chroot "$root" python3 -c "import sys; compile(open(sys.argv[1]).read(), 'dump', 'exec')" "$dump")
printf 'dump: %s (%s bytes)\n' "$file" "$(stat -c %s "$file")"
printf 'fusebox-pass inspect (light build)   %s s\n' "$fusebox"
printf 'fusebox-pass-torch inspect           %s s\n' "$torchbuild"
printf 'peer: Python 3 compile() of the dump %s s\n' "$peer"
printf 'ratio fusebox-pass / peer: %.2f\n' "$(echo "$fusebox / $peer" | bc -l)"
