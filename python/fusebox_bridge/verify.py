"""`verify_begin` / `verify_check`: numeric verification of graphs libtorch 1.13
cannot run, with the tolerance and report of Fusebox's libtorch verifier
(core/torch/NumericVerifier.h): elements match when
|after - before| <= p + p*|before|, NaN matches NaN, integers compare exactly.

`verify_begin` runs the original once per input set and keeps its outputs
under a handle, so that checking each rewrite costs one run of the rewritten
graph.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import torch

from . import fxgraph
from .devices import OnCpu
from .server import BridgeError, one_line

_sessions: dict[int, dict[str, Any]] = {}
_handles = itertools.count(1)


def _sci(value: float) -> str:
    """A tolerance or difference as the report writes it: "1e-04", "2.5e-03", "0"."""
    if value == 0:
        return "0"
    text = "%.1e" % value
    return text.replace(".0e", "e")


def _element(t: torch.Tensor) -> str:
    """A one-element tensor's value as the report writes it."""
    if t.is_complex():
        z = complex(t.item())
        return "%.6g%+.6gj" % (z.real, z.imag)
    if t.dtype.is_floating_point:
        return "%.6g" % float(t.item())
    if t.dtype == torch.bool:
        return "True" if bool(t.item()) else "False"
    return "%d" % int(t.item())


def _position(flat: int, sizes: list[int]) -> str:
    """The flat index `flat` as "[i, j, ...]" in a tensor of `sizes`."""
    index = []
    for size in reversed(sizes):
        index.append(flat % size if size else 0)
        flat = flat // size if size else 0
    return "[" + ", ".join(str(i) for i in reversed(index)) + "]"


def flatten_outputs(outputs: Any) -> list[torch.Tensor]:
    """A graph's or module's outputs as the flat list compare_outputs takes:
    the leaves of nested tuples, lists and dicts, in torch's pytree order,
    each a tensor: a Python number becomes a 0-d one; a leaf torch.tensor()
    cannot take (None, a string) raises."""
    leaves = torch.utils._pytree.tree_leaves(outputs)
    return [l if isinstance(l, torch.Tensor) else torch.tensor(l) for l in leaves]


def output_names(gm: torch.fx.GraphModule) -> list[str]:
    """The names of gm's outputs, in flatten_outputs' order: each output
    leaf's node name, "" for a leaf that is not a node (a constant)."""
    out = next(n for n in reversed(gm.graph.nodes) if n.op == "output")
    leaves = torch.utils._pytree.tree_leaves(out.args[0])
    return [l.name if isinstance(l, torch.fx.Node) else "" for l in leaves]


def _compare_one(expected: torch.Tensor, actual: torch.Tensor, precision: float,
                 label: str) -> tuple[bool, float, float, float, str]:
    """(passed, max |diff|, max rel diff, worst |diff|, message) of one output."""
    inf = math.inf
    if expected.dtype != actual.dtype:
        return False, inf, 0.0, inf, "%s: dtype %s expected, %s got" % (
            label, fxgraph.dtype_abbrs[expected.dtype], fxgraph.dtype_abbrs[actual.dtype])
    if tuple(expected.shape) != tuple(actual.shape):
        return False, inf, 0.0, inf, "%s: shape %s expected, %s got" % (
            label, list(expected.shape), list(actual.shape))
    b, a = expected.detach().flatten(), actual.detach().flatten()
    if b.numel() == 0:
        return True, 0.0, 0.0, 0.0, ""
    exact = not (b.dtype.is_floating_point or b.is_complex())
    wide = torch.complex128 if b.is_complex() else torch.float64
    bw, aw = b.to(wide), a.to(wide)
    abs_b = bw.abs()
    diff = (aw - bw).abs()
    if exact:
        bad = a.ne(b)
        diff = diff.masked_fill(bad & diff.eq(0), 1)
    else:
        same = aw.eq(bw) | (aw.isnan() & bw.isnan())
        diff = diff.masked_fill(same, 0)
        bad = diff.gt(abs_b * precision + precision) | diff.isnan()
    ranked = torch.nan_to_num(diff, inf, inf, inf)
    max_abs = float(ranked.max())
    non_zero = abs_b.gt(0)
    max_rel = float((ranked[non_zero] / abs_b[non_zero]).max()) if bool(non_zero.any()) else 0.0
    if not bool(bad.any()):
        return True, max_abs, max_rel, max_abs, ""
    index = int(ranked.masked_fill(~bad, -1).argmax())
    worst = float(ranked[index])
    sizes = list(expected.shape)
    message = "%s: max |diff| %s at index %d%s (expected %s, got %s) > %s" % (
        label, _sci(worst), index, " " + _position(index, sizes) if len(sizes) > 1 else "",
        _element(b[index]), _element(a[index]),
        "0 (compared exactly)" if exact else "%s + %s*|expected|" % (_sci(precision), _sci(precision)))
    return False, max_abs, max_rel, worst, message


def compare_outputs(expected: Sequence[torch.Tensor], actual: Sequence[torch.Tensor], names: Sequence[str],
                    precision: float) -> dict[str, Any]:
    """The same result and message as NumericVerifier's compareOutputs()."""
    result = {"passed": False, "max_abs_diff": 0.0, "max_rel_diff": 0.0, "worst_output": -1,
              "worst_output_name": "", "message": ""}
    if len(expected) != len(actual):
        result["message"] = "%d outputs expected, %d got" % (len(expected), len(actual))
        return result
    worst_failing, worst_passing, failing_diff, passing_diff = -1, -1, -1.0, -1.0
    for i, (e, a) in enumerate(zip(expected, actual)):
        name = names[i] if i < len(names) else ""
        label = "output %d%s" % (i, " (%%%s)" % name if name else "")
        ok, max_abs, max_rel, worst, message = _compare_one(e, a, precision, label)
        result["max_abs_diff"] = max(result["max_abs_diff"], max_abs)
        result["max_rel_diff"] = max(result["max_rel_diff"], max_rel)
        if not ok and worst > failing_diff:
            worst_failing, failing_diff, result["message"] = i, worst, message
        elif ok and max_abs > passing_diff:
            worst_passing, passing_diff = i, max_abs
    result["passed"] = worst_failing < 0
    result["worst_output"] = worst_passing if result["passed"] else worst_failing
    if 0 <= result["worst_output"] < len(names):
        result["worst_output_name"] = names[result["worst_output"]]
    if result["passed"]:
        result["message"] = "%d %s within %s + %s*|expected| (max |diff| %s)" % (
            len(expected), "output matches" if len(expected) == 1 else "outputs match",
            _sci(precision), _sci(precision), _sci(result["max_abs_diff"]))
    return result


def run_graph(gm: torch.fx.GraphModule, inputs: Sequence[Any]) -> list[torch.Tensor]:
    """gm's outputs on inputs (flatten_outputs), under torch.no_grad(); on CPU
    (devices.OnCpu) also for a graph recorded on CUDA."""
    with torch.no_grad(), OnCpu():
        return flatten_outputs(gm(*inputs))


def begin(args: dict[str, Any]) -> dict[str, Any]:
    """`verify_begin`: runs the original on each input set and keeps its outputs under a new handle."""
    weights = fxgraph.decode_weights(args.get("weights"))
    gm = fxgraph.build(args["graph"], args.get("source_name", "before.py"), weights=weights)
    iterations = max(1, int(args.get("iterations", 1)))
    seed = int(args.get("seed", 0))
    sets = [fxgraph.example_inputs(gm, seed + i, args.get("inputs")) for i in range(iterations)]
    try:
        expected = [run_graph(gm, inputs) for inputs in sets]
    except Exception as exc:
        raise BridgeError("before: " + one_line(exc))
    handle = next(_handles)
    _sessions[handle] = {"inputs": sets, "expected": expected, "names": output_names(gm), "weights": weights,
                         "precision": float(args.get("precision", 1e-4)), "seed": seed}
    return {"handle": handle, "outputs": len(expected[0]), "iterations": iterations}


def check(args: dict[str, Any]) -> dict[str, Any]:
    """`verify_check`: runs the rewritten graph on the handle's input sets and compares (compare_outputs)."""
    session = _sessions.get(args.get("handle"))
    if session is None:
        raise BridgeError("no verification session %r (verify_begin first)" % args.get("handle"))
    gm = fxgraph.build(args["graph"], args.get("source_name", "after.py"), weights=session["weights"])
    total = None
    iterations = len(session["inputs"])
    for i, (inputs, expected) in enumerate(zip(session["inputs"], session["expected"])):
        try:
            actual = run_graph(gm, inputs)
        except Exception as exc:
            raise BridgeError("after: " + one_line(exc))
        r = compare_outputs(expected, actual, session["names"], session["precision"])
        if total is not None:
            r["max_abs_diff"] = max(r["max_abs_diff"], total["max_abs_diff"])
            r["max_rel_diff"] = max(r["max_rel_diff"], total["max_rel_diff"])
        if not r["passed"]:
            if iterations > 1:
                r["message"] += " (input set %d, seed %d)" % (i, session["seed"] + i)
            return finite_result(r)
        total = r
    if iterations > 1:
        total["message"] += " on %d input sets" % iterations
    return finite_result(total)


def finite_result(result: dict[str, Any]) -> dict[str, Any]:
    """compare_outputs' result made fit for JSON, which has no infinity or
    NaN: a max_abs_diff or max_rel_diff that is not finite (a shape or dtype
    mismatch reports inf) becomes 1e308. Changes `result` and returns it."""
    for key in ("max_abs_diff", "max_rel_diff"):
        if not math.isfinite(result[key]):
            result[key] = 1e308
    return result
