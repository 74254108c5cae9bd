#!/usr/bin/env bash
# Fusebox against Inductor's own Optimus passes, same graph, same config, in
# one run: a recommendation-style Dynamo dump (bench/make_recsys_dump.py) per
# size; Inductor's pass time inside Python (compare-inductor's
# inductor.seconds, which also says whether both results are the same graph)
# against the whole `fusebox-pass run` (start-up, parse, passes, write) and
# its peak memory; also the built-in catalog without a config.
#   bench/bench_vs_inductor.sh [BUILD_DIR] [SIZES...]   (default 1000 10000 100000)
# Environment: FUSEBOX_BENCH_CONFIG (default bench/recsys_passes.json),
# FUSEBOX_BENCH_REPEAT (runs per Fusebox figure, best kept; default 3),
# FUSEBOX_BENCH_TIMEOUT (seconds Inductor may take per graph; default 3600: its
# batch fusions grow about quadratically, ~10 min at 100k nodes on 2 cores).
# The binary is copied first, so that a rebuild during the run changes nothing.
# Exit 0 unless something crashes; missed targets are information only.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000)
cfg=${FUSEBOX_BENCH_CONFIG:-bench/recsys_passes.json}
repeat=${FUSEBOX_BENCH_REPEAT:-3}
timeout=${FUSEBOX_BENCH_TIMEOUT:-3600}
root=${FUSEBOX_PT2_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/fusebox/pt2-root}
[ -x "$build/app/fusebox-pass" ] || { echo "bench_vs_inductor: no $build/app/fusebox-pass (build the tree first)" >&2; exit 1; }
[ -d "$root" ] || { echo "bench_vs_inductor: no PyTorch 2 root at $root (run scripts/setup-pt2.sh)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench_vs_inductor: needs /usr/bin/time (GNU time)" >&2; exit 1; }
work=$(mktemp -d /tmp/fusebox-bench-vs-inductor.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp "$build/app/fusebox-pass" "$work/fusebox-pass" || exit 1
fb="$work/fusebox-pass"

# Dumps are cached in the root's /tmp, keyed by size; a changed generator drops them.
gen="$root/tmp/fusebox-make-recsys-dump.py"
if ! cmp -s bench/make_recsys_dump.py "$gen"; then
    rm -f "$root"/tmp/fusebox-bench-recsys-*.py
    cp bench/make_recsys_dump.py "$gen"
fi

# measure OUT REPORT CMD...: runs CMD $repeat times; writes "best_s worst_s peak_MB rc
# passes_s" to OUT (peak: the max RSS of the best run; passes_s: the least
# "passes" seconds in REPORT over the runs, nan when CMD writes no report).
measure() {
    local out=$1 report=$2; shift 2
    local best=999999 worst=0 peak=0 rc=0 passes=nan
    for _ in $(seq "$repeat"); do
        rm -f "$report"
        /usr/bin/time -f '%e %M' -o "$work/time" "$@" >"$work/stdout" 2>"$work/stderr"
        rc=$?
        [ $rc -eq 0 ] || { cat "$work/stderr" >&2; break; }
        local s kb p; read -r s kb < <(tail -n 1 "$work/time")
        if (( $(echo "$s < $best" | bc -l) )); then best=$s; peak=$((kb / 1024)); fi
        if (( $(echo "$s > $worst" | bc -l) )); then worst=$s; fi
        if p=$(json "$report" "'%.3f' % d['seconds']['passes']") && [ -n "$p" ]; then
            if [ "$passes" = nan ] || (( $(echo "$p < $passes" | bc -l) )); then passes=$p; fi
        fi
    done
    echo "$best $worst $peak $rc $passes" >"$out"
}

json() { # json FILE EXPR: a field of a JSON file (python3 on this machine)
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null
}

rows=() notes=() crashed=0 last_ratio="" last_pratio="" last_catp="" last_nodes=0 last_run="" last_peak="" last_cat="" last_same=""
printf 'config: %s; fusebox-pass built %s; Fusebox figures: best of %s runs (spread below)\n' \
    "$cfg" "$(stat -c %y "$build/app/fusebox-pass" | cut -d. -f1)" "$repeat"
for n in "${sizes[@]}"; do
    dump=/tmp/fusebox-bench-recsys-$n.py
    file="$root$dump"
    if [ ! -s "$file" ]; then
        echo "generating the $n-node dump (Dynamo up to 20k nodes, FX tracing above; minutes) ..." >&2
        chroot "$root" python3 /tmp/fusebox-make-recsys-dump.py "$n" "$dump" 2>"$work/gen.err" >&2 \
            || { tail -n 5 "$work/gen.err" >&2; echo "bench_vs_inductor: generating $n failed" >&2; crashed=1; continue; }
    fi
    "$fb" inspect "$file" >"$work/inspect" 2>"$work/inspect.err" || { cat "$work/inspect.err" >&2; crashed=1; continue; }
    nodes=$(sed -n 's/^nodes: \([0-9]*\).*/\1/p' "$work/inspect")
    [ -s "$work/inspect.err" ] && notes+=("$n: inspect warned: $(head -n 1 "$work/inspect.err")")

    # (a) Inductor's passes inside Python, and whether the results agree.
    "$fb" compare-inductor "$file" --config "$cfg" --json --timeout "$timeout" >"$work/ci.json" 2>"$work/ci.err"
    ci=$?
    if [ $ci -gt 1 ] || ! ind=$(json "$work/ci.json" "'%.3f' % d['inductor']['seconds']"); then
        ind=nan; same=error
        if grep -q "timed out" "$work/ci.err"; then
            notes+=("$n: Inductor did not finish within $timeout s (FUSEBOX_BENCH_TIMEOUT)")
        else
            tail -n 5 "$work/ci.err" >&2; echo "bench_vs_inductor: compare-inductor failed at $n" >&2; crashed=1
        fi
    else
        same=$(json "$work/ci.json" "'yes' if d['same'] else 'no'")
        if [ "$same" = no ]; then
            notes+=("$n: first difference: $(json "$work/ci.json" "d.get('difference')")")
            notes+=("$n: counters inductor $(json "$work/ci.json" "d['inductor']['counters']") fusebox $(json "$work/ci.json" "d['fusebox']['counters']")")
        fi
    fi

    # (b) the whole CLI run under the config; (c) the built-in catalog; parse alone.
    measure "$work/m.run" "$work/report.json" "$fb" run "$file" --config "$cfg" -o "$work/out.py" --report "$work/report.json"
    measure "$work/m.cat" "$work/report-cat.json" "$fb" run "$file" -o "$work/out-catalog.py" --report "$work/report-cat.json"
    measure "$work/m.parse" "$work/none" "$fb" inspect "$file"
    read -r run runw peak rrc runp <"$work/m.run"
    read -r cat catw cpeak crc catp <"$work/m.cat"
    read -r parse parsew ppeak prc _ <"$work/m.parse"
    [ "$rrc" = 0 ] && [ "$crc" = 0 ] && [ "$prc" = 0 ] || crashed=1
    ratio=nan pratio=nan
    [ "$ind" != nan ] && ratio=$(printf '%.1f' "$(echo "$ind / ($run + 0.0005)" | bc -l)")
    [ "$ind" != nan ] && [ "$runp" != nan ] && pratio=$(printf '%.1f' "$(echo "$ind / ($runp + 0.0005)" | bc -l)")
    rows+=("$(printf '%-8s %7s %10s %10s %8s %8s %8s %8s %10s %10s %10s %9s %5s' "$n" "$nodes" "$ind" "$run" "${ratio}x" "$runp" "${pratio}x" "$peak" "$parse" "$cat" "$catp" "$cpeak" "$same")")
    notes+=("$n: spread run ${run}..${runw} s, catalog ${cat}..${catw} s, inspect ${parse}..${parsew} s ($ppeak MB)")
    # The phases of each command's last run, from its report (read, passes, write).
    phases='" / ".join("%s %.2f" % (k, v) for k, v in d["seconds"].items())'
    notes+=("$n: phases (s): config run $(json "$work/report.json" "$phases"); catalog $(json "$work/report-cat.json" "$phases")")
    last_ratio=$ratio last_pratio=$pratio last_nodes=$nodes last_run=$run last_peak=$peak last_cat=$cat last_catp=$catp
    last_same=$same
done

echo
printf '%-8s %7s %10s %10s %9s %8s %9s %8s %10s %10s %10s %9s %5s\n' size nodes "inductor s" "fusebox s" ratio "passes s" "p. ratio" "peak MB" "parse s" "catalog s" "cat. pass" "cat. MB" same
printf '%s\n' "${rows[@]}"
echo "(inductor s: pre_grad_passes inside Python, graph already built; fusebox s: the whole"
echo " fusebox-pass run, start-up + parse + passes + write, and ratio = inductor s / fusebox s;"
echo " passes s: the passes alone (the report's seconds.passes, best run), the like-for-like"
echo " figure, and p. ratio = inductor s / passes s; parse s: fusebox-pass inspect alone;"
echo " catalog: fusebox-pass run without --config, every built-in rule; cat. pass: its passes)"
printf '%s\n' "${notes[@]}"
echo
met() { if [ "$1" = 1 ]; then echo MET; else echo "NOT MET"; fi; }
if [ "$last_nodes" -ge 80000 ] 2>/dev/null; then
    # Issue 13 asks for Inductor's passes against Fusebox's (same graph, same
    # config, same result), the whole CLI run's time and memory, and the
    # catalog's passes (fusebox_bench_engine times the same catalog without
    # parsing). The two stretch lines hold the whole CLI run, parse and
    # write included, to the same 50x and 1 s: information, not the issue's.
    echo "issue 13's targets at the largest size ($last_nodes nodes):"
    printf '  ratio Inductor passes / Fusebox passes >= 50x: %-7s (%sx)\n' \
        "$(met "$( [ "$last_pratio" != nan ] && echo "$last_pratio >= 50" | bc -l)")" "$last_pratio"
    printf '  same result as Inductor:                       %-7s (%s)\n' "$(met "$( [ "$last_same" = yes ] && echo 1)")" "$last_same"
    printf '  whole CLI run < 1.5 s:                         %-7s (%s s)\n' "$(met "$(echo "$last_run < 1.5" | bc -l)")" "$last_run"
    printf '  whole CLI run < 500 MB:                        %-7s (%s MB)\n' "$(met "$( [ "$last_peak" -lt 500 ] && echo 1)")" "$last_peak"
    printf '  built-in catalog, passes < 1 s:                %-7s (%s s)\n' \
        "$(met "$( [ "$last_catp" != nan ] && echo "$last_catp < 1" | bc -l)")" "$last_catp"
    echo "stretch, beyond the issue (parse and write included):"
    printf '  ratio Inductor passes / whole CLI run >= 50x:  %-7s (%sx)\n' \
        "$(met "$( [ "$last_ratio" != nan ] && echo "$last_ratio >= 50" | bc -l)")" "$last_ratio"
    printf '  built-in catalog, whole CLI run < 1 s:         %-7s (%s s)\n' "$(met "$(echo "$last_cat < 1" | bc -l)")" "$last_cat"
else
    echo "targets: apply at ~81k-100k nodes (largest size here: $last_nodes nodes)"
fi
[ $crashed = 0 ] || { echo "bench_vs_inductor: something failed (see above)" >&2; exit 1; }
exit 0
