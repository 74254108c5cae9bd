"""`latency`: the original and the rewritten graph timed in PyTorch 2, for
graphs libtorch 1.13 cannot run (core/torch/LatencyComparison.h).

Both graphs run on the same random inputs (fxgraph.example_inputs of the
original, seed `seed`) under torch.no_grad(): `warmup` untimed runs of each,
then `iterations` timed runs of each, alternating before/after/after/before so
that a noisy machine's drift falls on both alike. Answers every run's
milliseconds; the caller summarises them.
"""
import time

import torch

from . import fxgraph
from .server import BridgeError, one_line, progress


def _timed(gm, inputs, which):
    try:
        start = time.perf_counter()
        gm(*inputs)
        return (time.perf_counter() - start) * 1000.0
    except Exception as exc:
        raise BridgeError("%s: %s" % (which, one_line(exc)))


def latency(args):
    before = fxgraph.build(args["before"], args.get("source_name", "before.py"))
    after = fxgraph.build(args["after"], "after.py")
    warmup = max(0, int(args.get("warmup", 5)))
    iterations = max(1, int(args.get("iterations", 30)))
    inputs = fxgraph.example_inputs(before, int(args.get("seed", 0)), args.get("inputs"))
    before_ms, after_ms = [], []
    with torch.no_grad():
        for _ in range(warmup):
            _timed(before, inputs, "original")
            _timed(after, inputs, "current graph")
        for i in range(iterations):
            if i % 2 == 0:
                before_ms.append(_timed(before, inputs, "original"))
                after_ms.append(_timed(after, inputs, "current graph"))
            else:
                after_ms.append(_timed(after, inputs, "current graph"))
                before_ms.append(_timed(before, inputs, "original"))
            progress("timed %d of %d" % (i + 1, iterations), (i + 1) / iterations)
    return {"before_ms": before_ms, "after_ms": after_ms, "torch": torch.__version__}
