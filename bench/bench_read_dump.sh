#!/usr/bin/env bash
# Reading speed of a large Dynamo dump: fusebox-pass inspect (start-up
# included) against the peer, Python compiling the same file in the PyTorch 2
# root, measured in the same run. Prints seconds and the ratio; then the read
# phase of `fusebox-pass run` and the FX reader alone (fusebox_bench_fx_read:
# its first call in a process and its best of 5, in ms and MB/s, and the
# time to copy the graph it read, a floor under any reader of this IR).
#   bench/bench_read_dump.sh [BUILD_DIR] [BLOCKS]   (420 blocks: a ~3 MB dump)
# With FUSEBOX_BENCH_BASELINE=PATH (a fusebox-pass built from an earlier
# commit), it also times the read phase of that binary and of this one on the
# dump and on the 10k-node recsys dump (bench/make_recsys_dump.py), 7
# interleaved runs each, and prints the medians and their ratio. With
# FUSEBOX_BENCH_BASELINE_READER=PATH (bench/build_reader_baseline.sh's build of
# fusebox_bench_fx_read against an earlier commit), it times the FX reader
# alone the same way: that commit's and this build's, first call and best of 5.
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
echo "$reader" | tail -4

median() { sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
recsys=/tmp/fusebox-bench-recsys-10000.py
recsysDump() {
    if [ ! -s "$root$recsys" ]; then
        cp bench/make_recsys_dump.py "$root/tmp/fusebox-make-recsys-dump.py"
        chroot "$root" python3 /tmp/fusebox-make-recsys-dump.py 10000 "$recsys" >/dev/null 2>&1
    fi
}
baselineReader=${FUSEBOX_BENCH_BASELINE_READER:-}
if [ -n "$baselineReader" ]; then
    [ -x "$baselineReader" ] || { echo "bench_read_dump: FUSEBOX_BENCH_BASELINE_READER=$baselineReader is not an executable" >&2; exit 1; }
    recsysDump
    echo "FX reader alone (fusebox_bench_fx_read), medians of 7 interleaved runs (ms):"
    for f in "$file" "$root$recsys"; do
        oc=() nc=() ow=() nw=()
        for _ in 1 2 3 4 5 6 7; do
            o=$("$baselineReader" "$f" 5); n=$("$build/bench/fusebox_bench_fx_read" "$f" 5)
            oc+=("$(echo "$o" | awk '/readFxText, first call/{print $4}')"); ow+=("$(echo "$o" | awk '/readFxText, best of/{print $5}')")
            nc+=("$(echo "$n" | awk '/readFxText, first call/{print $4}')"); nw+=("$(echo "$n" | awk '/readFxText, best of/{print $5}')")
        done
        c0=$(printf '%s\n' "${oc[@]}" | median); c1=$(printf '%s\n' "${nc[@]}" | median)
        w0=$(printf '%s\n' "${ow[@]}" | median); w1=$(printf '%s\n' "${nw[@]}" | median)
        printf '  %s: first call baseline %s, this build %s, %.2fx; best of 5 baseline %s, this build %s, %.2fx\n' \
            "$(basename "$f")" "$c0" "$c1" "$(echo "$c0 / $c1" | bc -l)" "$w0" "$w1" "$(echo "$w0 / $w1" | bc -l)"
    done
fi

baseline=${FUSEBOX_BENCH_BASELINE:-}
[ -n "$baseline" ] || exit 0
[ -x "$baseline" ] || { echo "bench_read_dump: FUSEBOX_BENCH_BASELINE=$baseline is not an executable" >&2; exit 1; }
recsysDump
readphase() { # readphase BINARY FILE: seconds.read of one run
    local report out; report=$(mktemp --suffix=.json); out=$(mktemp --suffix=.py)
    "$1" run "$2" -o "$out" --report "$report" >/dev/null 2>&1 || true
    python3 -c "import json,sys; print('%.4f' % json.load(open(sys.argv[1]))['seconds']['read'])" "$report" 2>/dev/null || echo nan
    rm -f "$report" "$out"
}
echo "read phase of fusebox-pass run, medians of 7 interleaved runs (s):"
for f in "$file" "$root$recsys"; do
    old=() new=()
    for _ in 1 2 3 4 5 6 7; do old+=("$(readphase "$baseline" "$f")"); new+=("$(readphase "$build/app/fusebox-pass" "$f")"); done
    o=$(printf '%s\n' "${old[@]}" | median); n=$(printf '%s\n' "${new[@]}" | median)
    printf '  %s (%s bytes): baseline %s, this build %s, %.1fx\n' "$(basename "$f")" "$(stat -c %s "$f")" "$o" "$n" \
        "$(echo "$o / $n" | bc -l)"
done
