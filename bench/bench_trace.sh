#!/usr/bin/env bash
# Listing a large TORCH_TRACE log: `fusebox-pass trace LOG --no-open` (the
# index alone, payloads skipped by range) against the peer, `grep -c` of the
# envelope prefix over the same bytes (the least any reader must do: look at
# every line once), measured in the same run. The log is the sample logs of
# ../shared/pt2-samples/trace concatenated until it reaches SIZE_MB (default
# 100). Prints seconds, bytes per second and the ratio; the target is under 2 s.
#   bench/bench_trace.sh [BUILD_DIR] [SIZE_MB]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
size_mb=${2:-100}
samples=../shared/pt2-samples/trace
[ -d "$samples" ] || { echo "bench_trace: no sample logs at $samples" >&2; exit 1; }
log=/tmp/fusebox-bench-trace-${size_mb}mb.log
if [ ! -s "$log" ] || [ "$(stat -c %s "$log")" -lt $((size_mb * 1000000)) ]; then
    : >"$log"
    while [ "$(stat -c %s "$log")" -lt $((size_mb * 1000000)) ]; do cat "$samples"/*.log >>"$log"; done
fi
best() { # best of 3 wall-clock seconds of a command
    local b=999
    for _ in 1 2 3; do
        local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N)
        b=$(echo "if ($e - $s < $b) $e - $s else $b" | bc -l)
    done
    printf '%.3f' "$b"
}
fusebox=$(best "$build/app/fusebox-pass" trace "$log" --no-open --json)
peer=$(best grep -c -E '^[VIWEC][0-9]{4} ' "$log")
bytes=$(stat -c %s "$log")
printf 'log: %s (%s bytes, %s graphs)\n' "$log" "$bytes" \
    "$("$build/app/fusebox-pass" trace "$log" --no-open --json 2>/dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["graphs"]))')"
printf 'fusebox-pass trace --no-open   %s s (%.0f MB/s)\n' "$fusebox" "$(echo "$bytes / $fusebox / 1000000" | bc -l)"
printf 'peer: grep -c of the prefix    %s s\n' "$peer"
printf 'ratio fusebox / peer: %.2f\n' "$(echo "$fusebox / $peer" | bc -l)"
