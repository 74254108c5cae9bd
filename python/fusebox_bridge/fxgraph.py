"""FX text -> torch.fx.GraphModule and back: what the bridge's requests use
(docs/pt2-bridge.md).

- `build(text)` (fxbuild): the one rebuild of a graph from FX text, for
  every request (inductor, propagate_shapes, histogram, verify, latency,
  export, apply_patterns, infer_shapes);
- `example_inputs(gm)` (fxspecs): the inputs of a real run, from `inputs`
  entries or the placeholders' annotations;
- `propagate(gm, inputs)`: one real run that records each node's value in
  meta["example_value"] / meta["val"] (as Dynamo and AOT do) and
  meta["tensor_meta"] (as ShapeProp does), on CPU also for a graph recorded
  on CUDA (devices.OnCpu);
- `print_graph(gm)`, `histogram(gm)`: the graph as capture writes it, and
  its op counts as PyTorch names the targets.
"""
from __future__ import annotations

from typing import Any

import torch
import torch.fx
from torch.fx.graph import dtype_abbrs  # noqa: F401 (callers name fxgraph.dtype_abbrs)
from torch.fx.passes.shape_prop import ShapeProp

from .devices import OnCpu
from .fxbuild import build, class_source  # noqa: F401 (the rebuild every request uses)
from .fxspecs import (DTYPES, DEFAULT_HINT, Hints, SymSpec, TensorSpec, decode_weights,  # noqa: F401
                      example_inputs, parse_annotation)
from .server import BridgeError, one_line


class _Record(ShapeProp):
    """ShapeProp's run (meta["tensor_meta"], meta["type"]) that also keeps
    each value in meta["example_value"] and meta["val"]; a node that fails
    is named in one line."""

    def run_node(self, n: torch.fx.Node) -> Any:
        try:
            result = super().run_node(n)
        except Exception as exc:
            cause = exc.__cause__ if exc.__cause__ is not None and "ShapeProp error" in str(exc) else exc
            raise BridgeError("cannot run %%%s (%s): %s" % (n.name, target_name(n) or n.target, one_line(cause)))
        if n.op != "output":
            n.meta["example_value"] = result
            n.meta["val"] = result
        return result


def propagate(gm: torch.fx.GraphModule, inputs: list[Any]) -> None:
    """Runs gm once on inputs (on CPU: devices.OnCpu), recording each node's
    value and tensor_meta as Dynamo and ShapeProp do."""
    with torch.no_grad(), OnCpu():
        _Record(gm).propagate(*inputs)


def print_graph(gm: torch.fx.GraphModule) -> str:
    """print_readable() with shapes, strides and devices, as capture writes it."""
    return gm.print_readable(print_output=False, include_stride=True, include_device=True)


def target_name(node: torch.fx.Node) -> str | None:
    """How a histogram names a node's target: torch.nn.functional.relu, torch.ops.aten.mm.default,
    .view for a method, or None for non-op nodes."""
    if node.op == "call_function":
        return torch.fx.node._get_qualified_name(node.target)
    if node.op == "call_method":
        return "." + node.target
    if node.op == "call_module":
        return "self." + node.target
    return None


def histogram(gm: torch.fx.GraphModule) -> dict[str, int]:
    """{target name: count} over gm's op nodes (target_name)."""
    counts: dict[str, int] = {}
    for node in gm.graph.nodes:
        name = target_name(node)
        if name is not None:
            counts[name] = counts.get(name, 0) + 1
    return dict(sorted(counts.items()))
