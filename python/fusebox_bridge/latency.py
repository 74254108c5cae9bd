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
an order rotated from round to round and reversed on odd rounds
(`_round_order`), so that a noisy machine's drift, and what one variant's
run leaves in the caches for the next, fall on all alike. A timed sample is `calls_per_sample`
calls in a row (the same for every variant, so that the fastest one's sample
lasts `min_sample_ms`, default 1 ms; 0 times single calls), divided by that
count. Answers every sample's milliseconds per call; the caller summarises them.
Compiled, a warm-up copy of the first graph is compiled first and dropped
(`_sacrificial_compile`: the first compile of a process runs slower).

Two forms of arguments:
- `before`, `after` (FX texts): answers `before_ms`, `after_ms` (eager) and,
  with "compiled" in `modes`, `compiled`: {before_ms, after_ms,
  compile_seconds, stats} or `compiled_error` (one line);
- `graphs`: [{name, text, inductor_options?}]: answers `results`:
  {name: {eager_ms, compiled_ms?, compile_seconds?, stats?}} and
  `compiled_errors`: {name: line}.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import torch

from . import compiled as compiling
from . import fxgraph, verify
from .server import BridgeError, one_line, progress

# (graph name, mode: "eager" or "compiled", callable, its inputs)
_Variant = tuple[str, str, Callable[..., Any], list[Any]]


def _timed(fn: Callable[..., Any], inputs: list[Any], which: str, calls: int = 1) -> float:
    """Milliseconds per call, over `calls` calls in a row."""
    try:
        start = time.perf_counter()
        for _ in range(calls):
            fn(*inputs)
        return (time.perf_counter() - start) * 1000.0 / calls
    except Exception as exc:
        raise BridgeError("%s: %s" % (which, one_line(exc)))


def _calls_per_sample(variants: list[_Variant], min_sample_ms: float) -> int:
    """Calls in a row per timed sample, the same for every variant, so that
    the fastest variant's sample lasts at least min_sample_ms: a graph that
    runs in 50 us is otherwise timed at the clock's and the loop's grain."""
    if min_sample_ms <= 0:
        return 1
    fastest = min(min(_timed(fn, fn_inputs, name) for _ in range(3)) for name, _, fn, fn_inputs in variants)
    return max(1, min(1000, int(min_sample_ms / max(fastest, 1e-6)) + 1))


def _round_order(variants: list[_Variant], i: int) -> list[_Variant]:
    """Round i's order: the variants rotated by i, and reversed on odd
    rounds, so that each variant comes first, last and after each other one
    equally often. (Alternating one order and its reverse left one compiled
    graph always next to the eager ones, and it ran 5-10% slower for it.)"""
    k = i // 2 % len(variants)
    order = variants[k:] + variants[:k]
    return order if i % 2 == 0 else list(reversed(order))


def _sacrificial_compile(text: str, inputs: list[Any], weights: dict[str, torch.Tensor], freezing: bool) -> None:
    """Compiles the first graph once more and drops it. In one process, the
    first graph torch.compile compiled ran 5-8% slower than the same graph
    compiled after it (bench/bench_compiled.sh's control variant showed it,
    on every model): without this, the original, compiled first, would lose
    that to every rewrite."""
    progress("compiling a warm-up copy of the original (the first compile of a process runs slower)")
    try:
        fn, fn_inputs, _, _ = compiling.compile_graph(fxgraph.build(text, "warm-up.py", weights=weights), inputs,
                                                      None, "warm-up", freezing)
        with torch.no_grad():
            fn(*fn_inputs)
    except BridgeError:
        pass  # the real compile of the same graph reports it


def _graphs(args: dict[str, Any]) -> tuple[list[tuple[str, str, dict[str, Any] | None]], bool]:
    """([(name, FX text, inductor_options)], whether the arguments are the `before`/`after` pair)."""
    if "graphs" in args:
        return [(g["name"], g["text"], g.get("inductor_options")) for g in args["graphs"]], False
    return [("original", args["before"], None), ("current graph", args["after"], None)], True


def measure(args: dict[str, Any]) -> dict[str, Any]:
    """`latency`: every graph timed eagerly and, with "compiled" in `modes`, compiled (module docstring)."""
    specs, pair = _graphs(args)
    if not specs:
        raise BridgeError("latency: no graphs to time")
    modes = args.get("modes") or ["eager"]
    weights = fxgraph.decode_weights(args.get("weights"))
    warmup = max(0, int(args.get("warmup", 5)))
    iterations = max(1, int(args.get("iterations", 30)))
    precision = float(args.get("precision", 1e-4))
    modules: list[torch.fx.GraphModule] = []
    for i, (name, text, _) in enumerate(specs):
        source = args.get("source_name", "before.py") if i == 0 else "%s.py" % name.replace(" ", "_")
        modules.append(fxgraph.build(text, source, weights=weights))
    inputs = fxgraph.example_inputs(modules[0], int(args.get("seed", 0)), args.get("inputs"))

    variants: list[_Variant] = []
    for (name, _, _), gm in zip(specs, modules):
        variants.append((name, "eager", gm, inputs))
    freezing = bool(args.get("freezing", True))
    compiled_info: dict[str, dict[str, Any]] = {}
    compiled_errors: dict[str, str] = {}
    if "compiled" in modes:
        isa = compiling.prepare()
        problem = compiling.toolchain_problem()
        if not problem and not bool(args.get("no_sacrificial_compile", False)):
            _sacrificial_compile(specs[0][1], inputs, weights, freezing)
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
                eager_out = verify.flatten_outputs(gm(*inputs))
                compiled_out = verify.flatten_outputs(fn(*fn_inputs))
            same = verify.compare_outputs(eager_out, compiled_out, verify.output_names(gm), precision)
            stats["isa"] = isa
            compiled_info[name] = {"seconds": seconds, "stats": stats,
                                   "outputs": "" if same["passed"] else "compiled outputs differ from eager: "
                                   + same["message"]}
            variants.append((name, "compiled", fn, fn_inputs))

    samples: dict[tuple[str, str], list[float]] = {(name, mode): [] for name, mode, _, _ in variants}
    with torch.no_grad():
        for _ in range(warmup):
            for name, mode, fn, fn_inputs in variants:
                _timed(fn, fn_inputs, name)
        calls = _calls_per_sample(variants, float(args.get("min_sample_ms", 1.0)))
        for i in range(iterations):
            for name, mode, fn, fn_inputs in _round_order(variants, i):
                samples[(name, mode)].append(_timed(fn, fn_inputs, name, calls))
            progress("timed %d of %d" % (i + 1, iterations), (i + 1) / iterations)

    answer: dict[str, Any] = {"torch": torch.__version__, "threads": torch.get_num_threads(), "calls_per_sample": calls}
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
    results: dict[str, dict[str, Any]] = {}
    for name, _, _ in specs:
        r: dict[str, Any] = {"eager_ms": samples[(name, "eager")]}
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
