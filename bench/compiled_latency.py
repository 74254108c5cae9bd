"""Latency of captured models and their Fusebox rewrites, eager and compiled
by torch.compile (Inductor, CPU), for bench/bench_compiled.sh. Runs in the
PyTorch 2 root's Python with the bridge's package importable (the shell
script copies it there) and uses the bridge's own `latency` operation
(python/fusebox_bridge/latency.py) in process: the same compile and timing
as Measure Latency and `fusebox-pass run --measure`.

    python3 compiled_latency.py RUNS WARMUP FREEZING MODEL_DIR...

FREEZING is "on" or "off" (Inductor's freezing: the weights constants). Each
MODEL_DIR holds dynamo.py (the Dynamo graph), fusebox.py (fusebox-pass run,
Inductor's schedule), greedy.py (--schedule greedy), kept.py (--schedule
greedy --keep-faster) and config.json (the pass
config both used). Four variants are timed in the same interleaved rounds on
the same inputs, each sample a run of calls lasting at least 2 ms for the
fastest variant:

    original        Dynamo's graph, Inductor's Optimus passes off
    inductor        the same graph, Inductor's own Optimus passes on (config.json)
    fusebox         Fusebox's rewrite in Inductor's schedule, Inductor's passes off
    greedy          Fusebox's rewrite in its greedy schedule, Inductor's passes off
    kept            greedy with --keep-faster: each rewrite kept only when the
                    graph ran faster compiled with it (Inductor's passes off)
    control         the original again, compiled on its own: original/control
                    is what the measurement itself does to a ratio (noise, and
                    the order the variants were compiled and run in)

Prints one JSON line per model: {"model", "freezing", "variants": {name:
{"eager_ms", "compiled_ms", "kernels", "extern_calls", "compile_seconds",
"note"?}}, "errors": {name: line}}, medians in milliseconds.
"""
import json
import os
import statistics
import sys

from fusebox_bridge import latency

VARIANTS = (("original", "dynamo.py", False), ("inductor", "dynamo.py", True),
            ("fusebox", "fusebox.py", False), ("greedy", "greedy.py", False), ("kept", "kept.py", False),
            ("control", "dynamo.py", False))
# Compiled and timed in this order, the control last: the first graph compiled
# in a process ran 5-8% slower than the same graph compiled later, which
# latency.py's warm-up compile now absorbs; the control shows it does.
ORDER = ("original", "inductor", "fusebox", "greedy", "kept", "control")


def main():
    runs, warmup, freezing = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "on"
    latency.progress = lambda *args, **kwargs: None  # no bridge client to tell
    for model_dir in sys.argv[4:]:
        with open(os.path.join(model_dir, "config.json")) as f:
            config = json.load(f)
        graphs = []
        for name, file, own_passes in sorted(VARIANTS, key=lambda v: ORDER.index(v[0])):
            with open(os.path.join(model_dir, file)) as f:
                graph = {"name": name, "text": f.read()}
            if own_passes:
                graph["inductor_options"] = config
            graphs.append(graph)
        answer = latency.measure({"graphs": graphs, "modes": ["eager", "compiled"], "warmup": warmup,
                                  "iterations": runs, "freezing": freezing, "source_name": "dynamo.py",
                                  "min_sample_ms": 2.0})
        variants = {}
        for name, result in answer["results"].items():
            v = {"eager_ms": statistics.median(result["eager_ms"])}
            if "compiled_ms" in result:
                stats = result.get("stats", {})
                v.update(compiled_ms=statistics.median(result["compiled_ms"]), kernels=stats.get("kernels"),
                         extern_calls=stats.get("extern_calls"), compile_seconds=result.get("compile_seconds"))
            if result.get("note"):
                v["note"] = result["note"]
            variants[name] = v
        print(json.dumps({"model": os.path.basename(model_dir.rstrip("/")), "freezing": freezing,
                          "threads": answer["threads"], "torch": answer["torch"],
                          "calls_per_sample": answer["calls_per_sample"], "variants": variants,
                          "errors": answer["compiled_errors"]}), flush=True)


if __name__ == "__main__":
    main()
