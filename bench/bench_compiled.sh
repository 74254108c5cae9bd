#!/usr/bin/env bash
# Where users run: latency under torch.compile (Inductor, CPU) of captured
# recommendation-style models and their Fusebox rewrites, against Inductor
# with and without its own Optimus passes, in one run on the same inputs.
#   bench/bench_compiled.sh [BUILD_DIR] [MODEL...]
# A MODEL is an oracle suite name (tests/pt2/models/oracle_models.py), a model
# script (get_model_and_inputs() or model/example_inputs), or "demo" (the demo
# model's source, resources/demo/make_demo_model.py); the default is the
# recommendation-style oracle models, tests/pt2/models/recsys_*.py and the demo.
# For each: `fusebox-pass capture` (Dynamo's graph), `fusebox-pass run` with
# the same pass config in Inductor's schedule, in Fusebox's greedy one, and
# greedy with --keep-faster (each rewrite timed compiled, kept only if faster),
# then bench/compiled_latency.py times the four variants (see there) eagerly
# and compiled, in interleaved rounds, with Inductor's freezing on (CPU
# inference: weights constants) and off (weights inputs, as Dynamo lifts them).
# Prints medians, ratios to the original and to Inductor's own passes, what
# Inductor made (kernels, extern calls), and the rewrites that are slower.
# Environment: FUSEBOX_BENCH_RUNS (timed rounds, default 50),
# FUSEBOX_BENCH_WARMUP (default 10), FUSEBOX_BENCH_FREEZING ("on off", default),
# FUSEBOX_BENCH_CONFIG (default bench/recsys_passes.json).
# Exit 0 unless a step fails; the 1.3x goal is information only.
set -uo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)
build=${1:-build}
shift || true
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
    models=(towers_4x32 towers_6x16 towers_8x8 towers_5x24_tanh towers_3x64_nohead shared_linear_6 shared_nobias_6
            shared_sigmoid_heads_6 gated_halves_5 gated_input embbag_mixed_5 batch_towers_6x16_b13)
    for f in tests/pt2/models/recsys_*.py; do models+=("$f"); done
    models+=(demo)
fi
runs=${FUSEBOX_BENCH_RUNS:-50}
warmup=${FUSEBOX_BENCH_WARMUP:-10}
freezings=${FUSEBOX_BENCH_FREEZING:-on off}
cfg=${FUSEBOX_BENCH_CONFIG:-bench/recsys_passes.json}
root=${FUSEBOX_PT2_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/fusebox/pt2-root}
fb="$build/app/fusebox-pass"
[ -x "$fb" ] || { echo "bench_compiled: no $fb (build the tree first)" >&2; exit 1; }
[ -d "$root" ] || { echo "bench_compiled: no PyTorch 2 root at $root (run scripts/setup-pt2.sh)" >&2; exit 1; }
# The work happens in the root's /tmp, where its Python sees it too.
inside=/tmp/fusebox-bench-compiled.$$
work="$root$inside"
mkdir -p "$work" || exit 1
trap 'rm -rf "$work"' EXIT
cp -r python/fusebox_bridge bench/compiled_latency.py "$work/"

dirs=()
for m in "${models[@]}"; do
    case "$m" in
        demo) name=demo; script="$work/demo.py"; cp resources/demo/make_demo_model.py "$script" ;;
        *.py) name=$(basename "$m" .py); script="$work/$name.py"; cp "$m" "$script" ;;
        *) name=$m; script="$work/$name.py"
           { cat tests/pt2/models/oracle_models.py; echo; echo "ORACLE_MODEL = \"$m\""; } >"$script" ;;
    esac
    dir="$work/$name"
    mkdir -p "$dir"
    echo "capturing and rewriting $name ..." >&2
    "$fb" capture "$script" -o "$dir/capture" --quiet >"$dir/log" 2>&1 \
        || { tail -n 3 "$dir/log" >&2; echo "bench_compiled: capturing $name failed" >&2; exit 1; }
    cp "$dir/capture/dynamo.py" "$dir/dynamo.py"
    cp "$cfg" "$dir/config.json"
    for out in fusebox greedy kept; do
        how=(--schedule inductor)
        [ $out = greedy ] && how=(--schedule greedy)
        # kept: greedy, each rewrite timed compiled and undone unless faster (a minute or so).
        [ $out = kept ] && how=(--schedule greedy --keep-faster)
        "$fb" run "$dir/dynamo.py" --config "$cfg" "${how[@]}" -o "$dir/$out.py" \
            --report "$dir/$out.json" >>"$dir/log" 2>&1 \
            || { tail -n 3 "$dir/log" >&2; echo "bench_compiled: fusebox-pass run on $name failed" >&2; exit 1; }
    done
    dirs+=("$inside/$name")
done

for f in $freezings; do
    echo "timing ${#dirs[@]} models, freezing $f ($runs rounds after $warmup warm-up; minutes) ..." >&2
    (cd "$root" && chroot "$root" /bin/sh -c "cd $inside && python3 compiled_latency.py $runs $warmup $f ${dirs[*]}") \
        >"$work/times-$f.jsonl" 2>"$work/times-$f.err" \
        || { tail -n 5 "$work/times-$f.err" >&2; echo "bench_compiled: timing failed" >&2; exit 1; }
done

python3 - "$work" "$runs" $freezings <<'EOF'
import json, math, os, sys
work, runs, freezings = sys.argv[1], sys.argv[2], sys.argv[3:]
def counters(model, out):
    with open(os.path.join(work, model, out + ".json")) as f:
        report = json.load(f)
    return ", ".join("%s %d" % (p, c["applied"]) for p, c in sorted(report.get("counters", {}).items())
                     if c.get("applied")) or "nothing"
slower = []
for f in freezings:
    rows = [json.loads(l) for l in open(os.path.join(work, "times-%s.jsonl" % f)) if l.strip()]
    print("\nfreezing %s: medians of %s interleaved rounds, ms per call (torch %s, %d threads); x.V = original / V "
          "compiled; gr/fb = Fusebox (Inductor's schedule) / greedy compiled" % (
              f, runs, rows[0]["torch"] if rows else "?", rows[0]["threads"] if rows else 0))
    print("%-24s %7s %7s %7s %7s %7s | %7s %7s %7s %7s %7s | %6s %6s %6s %6s %6s %6s %6s | %s" % (
        "model", "orig", "induc", "fusebox", "greedy", "kept", "c.orig", "c.induc", "c.fuseb", "c.greed", "c.kept",
        "x.ctl", "x.ind", "x.fb", "x.gr", "x.kept", "gr/fb", "kept/fb", "extern calls (orig/ind/fb/gr/kept)"))
    geo = {"fusebox": [], "greedy": [], "kept": [], "inductor": [], "control": [], "gr_vs_fb": [], "kept_vs_fb": []}
    for r in rows:
        v, e = r["variants"], r["errors"]
        if e:
            print("%-24s compile failed: %s" % (r["model"], "; ".join("%s: %s" % kv for kv in e.items())))
            continue
        c = {k: v[k]["compiled_ms"] for k in v}
        x = {k: c["original"] / c[k] for k in c}
        gi = c["fusebox"] / c["greedy"]
        ki = c["fusebox"] / c["kept"]
        for k in ("fusebox", "greedy", "kept", "inductor", "control"):
            geo[k].append(x[k])
        geo["gr_vs_fb"].append(gi)
        geo["kept_vs_fb"].append(ki)
        print("%-24s %7.3f %7.3f %7.3f %7.3f %7.3f | %7.3f %7.3f %7.3f %7.3f %7.3f | %6.2f %6.2f %6.2f %6.2f %6.2f "
              "%6.2f %6.2f | %s" % (
            r["model"], v["original"]["eager_ms"], v["inductor"]["eager_ms"], v["fusebox"]["eager_ms"],
            v["greedy"]["eager_ms"], v["kept"]["eager_ms"], c["original"], c["inductor"], c["fusebox"], c["greedy"],
            c["kept"], x["control"], x["inductor"], x["fusebox"], x["greedy"], x["kept"], gi, ki,
            "/".join(str(v[k]["extern_calls"]) for k in ("original", "inductor", "fusebox", "greedy", "kept"))))
        if abs(x["control"] - 1) > 0.05:
            print("    the control is %.2fx the original: ratios of this model are within that of noise" % x["control"])
        for k in ("fusebox", "greedy", "kept"):
            for n in (v[k].get("note"),):
                if n:
                    print("    note (%s): %s" % (k, n))
            if x[k] < 0.95:
                out = k
                slower.append("%s, freezing %s: %s is %.2fx the original compiled (%s applied; kernels %s -> %s, "
                              "extern calls %s -> %s)" % (r["model"], f, k, x[k], counters(r["model"], out),
                                                          v["original"]["kernels"], v[k]["kernels"],
                                                          v["original"]["extern_calls"], v[k]["extern_calls"]))
    gm = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
    print("geometric means, compiled, vs original: control %.2fx (the measurement's own bias), Inductor's own "
          "passes %.2fx, Fusebox %.2fx, Fusebox greedy %.2fx, greedy --keep-faster %.2fx; vs Fusebox in Inductor's "
          "schedule: greedy %.2fx, greedy --keep-faster %.2fx (goal: 1.3x vs original)" % (
              gm(geo["control"]), gm(geo["inductor"]), gm(geo["fusebox"]), gm(geo["greedy"]), gm(geo["kept"]),
              gm(geo["gr_vs_fb"]), gm(geo["kept_vs_fb"])))
print("\nslower than the original compiled (under 0.95x):" if slower else "\nno rewrite is slower than the original compiled (0.95x)")
for s in slower:
    print("  " + s)
EOF
