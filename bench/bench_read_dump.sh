#!/usr/bin/env bash
# Reading speed of a large Dynamo dump: fusebox-pass inspect (start-up
# included) against the peer, Python compiling the same file in the PyTorch 2
# root, measured in the same run. Prints seconds and the ratio; then the read
# phase of `fusebox-pass run` and the FX reader alone (fusebox_bench_fx_read:
# its first call in a process and its best of 5, in ms and MB/s).
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
# The reader alone (schemas loaded apart), and the read phase of a whole run.
reader=$("$build/bench/fusebox_bench_fx_read" "$file" 5)
report=$(mktemp --suffix=.json); rewritten=$(mktemp --suffix=.py)
"$build/app/fusebox-pass" run "$file" -o "$rewritten" --report "$report" >/dev/null 2>&1 || true
readphase=$(python3 -c "import json,sys; print('%.3f' % json.load(open(sys.argv[1]))['seconds']['read'])" "$report" 2>/dev/null || echo nan)
rm -f "$report" "$rewritten"
printf 'dump: %s (%s bytes)\n' "$file" "$(stat -c %s "$file")"
printf 'fusebox-pass inspect (light build)   %s s\n' "$fusebox"
printf 'fusebox-pass-torch inspect           %s s\n' "$torchbuild"
printf 'peer: Python 3 compile() of the dump %s s\n' "$peer"
printf 'ratio fusebox-pass / peer: %.2f\n' "$(echo "$fusebox / $peer" | bc -l)"
printf 'fusebox-pass run: read phase          %s s (its report'"'"'s seconds.read)\n' "$readphase"
echo "$reader" | tail -3
