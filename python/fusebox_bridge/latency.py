"""`latency`: graphs timed in PyTorch 2, eagerly and compiled by
torch.compile (Inductor, CPU), for Rewrite > Measure Latency, `fusebox-pass
run --measure` and bench/bench_compiled.sh (core/torch/LatencyComparison.h).

Every graph runs on the same random inputs (fxgraph.example_inputs of the
first graph, seed `seed`) under torch.no_grad(). With mode "compiled", each is
compiled first as a model is compiled for CPU inference (compiled.compile_graph:
Dynamo's lifted parameters held by the module, Inductor's freezing on unless
`freezing` is false, its Optimus passes off unless the graph names
`inductor_options`), and its compiled outputs are compared with its eager ones. Then `warmup` untimed runs
of every variant, then `iterations` rounds that time each variant once, in
one order on even rounds and the reverse on odd ones, so that a noisy
machine's drift falls on all alike. Answers every run's milliseconds; the
caller summarises them.

Two forms of arguments:
- `before`, `after` (FX texts): answers `before_ms`, `after_ms` (eager) and,
  with "compiled" in `modes`, `compiled`: {before_ms, after_ms,
  compile_seconds, stats} or `compiled_error` (one line);
- `graphs`: [{name, text, inductor_options?}]: answers `results`:
  {name: {eager_ms, compiled_ms?, compile_seconds?, stats?}} and
  `compiled_errors`: {name: line}.
"""
import time

import torch

from . import compiled as compiling
from . import fxgraph, verify
from .server import BridgeError, one_line, progress


def _timed(fn, inputs, which):
    try:
        start = time.perf_counter()
        fn(*inputs)
        return (time.perf_counter() - start) * 1000.0
    except Exception as exc:
        raise BridgeError("%s: %s" % (which, one_line(exc)))


def _graphs(args):
    if "graphs" in args:
        return [(g["name"], g["text"], g.get("inductor_options")) for g in args["graphs"]], False
    return [("original", args["before"], None), ("current graph", args["after"], None)], True


def measure(args):
    specs, pair = _graphs(args)
    if not specs:
        raise BridgeError("latency: no graphs to time")
    modes = args.get("modes") or ["eager"]
    weights = fxgraph.decode_weights(args.get("weights"))
    warmup = max(0, int(args.get("warmup", 5)))
    iterations = max(1, int(args.get("iterations", 30)))
    precision = float(args.get("precision", 1e-4))
    modules = []
    for i, (name, text, _) in enumerate(specs):
        source = args.get("source_name", "before.py") if i == 0 else "%s.py" % name.replace(" ", "_")
        modules.append(fxgraph.build(text, source, weights=weights))
    inputs = fxgraph.example_inputs(modules[0], int(args.get("seed", 0)), args.get("inputs"))

    variants = []  # (graph name, mode, callable, its inputs)
    for (name, _, _), gm in zip(specs, modules):
        variants.append((name, "eager", gm, inputs))
    freezing = bool(args.get("freezing", True))
    compiled_info, compiled_errors = {}, {}
    if "compiled" in modes:
        isa = compiling.prepare()
        problem = compiling.toolchain_problem()
        for i, ((name, text, options), gm) in enumerate(zip(specs, modules)):
            if problem:
                compiled_errors[name] = "torch.compile cannot run in this Python: " + problem
                continue
            progress("compiling the %s with torch.compile (Inductor, CPU)" % name)
            # A copy of its own: compiling makes the lifted parameters the module's.
            source = args.get("source_name", "before.py") if i == 0 else "%s.py" % name.replace(" ", "_")
            to_compile = fxgraph.build(text, source, weights=weights)
            try:
                fn, fn_inputs, seconds, stats = compiling.compile_graph(to_compile, inputs, options, name, freezing)
            except BridgeError as exc:
                compiled_errors[name] = str(exc)
                continue
            with torch.no_grad():
                eager_out = verify._flatten(gm(*inputs))
                compiled_out = verify._flatten(fn(*fn_inputs))
            same = verify.compare_outputs(eager_out, compiled_out, verify._output_names(gm), precision)
            stats["isa"] = isa
            compiled_info[name] = {"seconds": seconds, "stats": stats,
                                   "outputs": "" if same["passed"] else "compiled outputs differ from eager: "
                                   + same["message"]}
            variants.append((name, "compiled", fn, fn_inputs))

    samples = {(name, mode): [] for name, mode, _, _ in variants}
    with torch.no_grad():
        for _ in range(warmup):
            for name, mode, fn, fn_inputs in variants:
                _timed(fn, fn_inputs, name)
        for i in range(iterations):
            order = variants if i % 2 == 0 else list(reversed(variants))
            for name, mode, fn, fn_inputs in order:
                samples[(name, mode)].append(_timed(fn, fn_inputs, name))
            progress("timed %d of %d" % (i + 1, iterations), (i + 1) / iterations)

    answer = {"torch": torch.__version__, "threads": torch.get_num_threads()}
    if pair:
        answer["before_ms"] = samples[("original", "eager")]
        answer["after_ms"] = samples[("current graph", "eager")]
        if "compiled" in modes:
            if compiled_errors:
                answer["compiled_error"] = next(iter(compiled_errors.values()))
            else:
                answer["compiled"] = {
                    "before_ms": samples[("original", "compiled")],
                    "after_ms": samples[("current graph", "compiled")],
                    "compile_seconds": {"before": compiled_info["original"]["seconds"],
                                        "after": compiled_info["current graph"]["seconds"]},
                    "stats": {"before": compiled_info["original"]["stats"],
                              "after": compiled_info["current graph"]["stats"]},
                    "notes": [c["outputs"] for c in compiled_info.values() if c["outputs"]],
                }
        return answer
    results = {}
    for name, _, _ in specs:
        r = {"eager_ms": samples[(name, "eager")]}
        if name in compiled_info:
            r["compiled_ms"] = samples[(name, "compiled")]
            r["compile_seconds"] = compiled_info[name]["seconds"]
            r["stats"] = compiled_info[name]["stats"]
            if compiled_info[name]["outputs"]:
                r["note"] = compiled_info[name]["outputs"]
        results[name] = r
    answer["results"] = results
    answer["compiled_errors"] = compiled_errors
    return answer


# The operation's name in server._OPS.
latency = measure
