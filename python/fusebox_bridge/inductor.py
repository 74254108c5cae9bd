"""`inductor`: Inductor's own Optimus passes on a graph Fusebox holds.

Pre-grad graphs (torch-level targets, as Dynamo records them) go through
`torch._inductor.fx_passes.pre_grad.pre_grad_passes`, exactly as
torch.compile calls it. Post-grad graphs (torch.ops.aten targets: AOT
forward graphs) go through the Optimus part of `post_grad_passes`: the
group/batch fusions, then the config's post-grad pattern passes in its
order; the rest of post_grad_passes (DCE, reinplacing, locality reordering,
Inductor's general patterns) is not Optimus and is left out so that the
result compares with Fusebox's rules alone.
"""
from __future__ import annotations

import json
import time
from collections.abc import Iterable
from typing import Any

import torch

from . import fxgraph
from .server import BridgeError, progress


def graph_stage(gm: torch.fx.GraphModule) -> str:
    """post_grad when every op is a torch.ops overload (an AOT graph), else pre_grad."""
    calls = [n for n in gm.graph.nodes if n.op in ("call_function", "call_method", "call_module")]
    aten = [n for n in calls if isinstance(n.target, (torch._ops.OpOverload, torch._ops.OpOverloadPacket))
            or (n.op == "call_function" and getattr(n.target, "__module__", "") == "_operator")]
    return "post_grad" if calls and len(aten) == len(calls) else "pre_grad"


def post_grad_optimus(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """Runs the Optimus part of Inductor's post_grad_passes on gm under the
    current config (its group/batch fusions, then config.post_grad_fusion_options'
    pattern passes in order), as post_grad_passes runs them; returns gm,
    changed and recompiled. A BridgeError names a pass this Inductor lacks."""
    from torch._inductor import config
    from torch._inductor.fx_passes import post_grad
    from torch._inductor.fx_passes.group_batch_fusion import POST_GRAD_FUSIONS, group_batch_fusion_passes
    from torch._inductor.fx_passes.split_cat import POST_GRAD_PATTERNS
    from torch._inductor.pattern_matcher import stable_topological_sort

    from torch.fx.passes.graph_transform_observer import GraphTransformObserver

    post_grad.lazy_init()
    # Under the observers post_grad_passes runs them under, which is where
    # 2.14 reads config.disabled_passes.
    GraphTransformObserver(gm, "post_grad_custom_pre_pass").apply_graph_pass(
        lambda graph: group_batch_fusion_passes(graph, pre_grad=False))
    for pass_name in config.post_grad_fusion_options:
        if pass_name in POST_GRAD_FUSIONS:
            continue
        if pass_name not in POST_GRAD_PATTERNS:
            raise BridgeError("post_grad_fusion_options: Inductor %s has no pass %r" % (torch.__version__, pass_name))
        GraphTransformObserver(gm, pass_name).apply_graph_pass(POST_GRAD_PATTERNS[pass_name].apply)
    # post_grad_passes sorts after its passes too: batch fusions may insert
    # a node before its inputs.
    stable_topological_sort(gm.graph)
    gm.graph.lint()
    gm.recompile()
    return gm


def _check_names(options: Iterable[str], known: set[str], section: str) -> None:
    for name in options:
        if name not in known:
            raise BridgeError("%s: Inductor %s has no pass %r" % (section, torch.__version__, name))


def check_pass_names(pre: dict[str, Any], post: dict[str, Any]) -> None:
    """Raises BridgeError naming the first pass this torch's Inductor does not have."""
    from torch._inductor.fx_passes.group_batch_fusion import POST_GRAD_FUSIONS, PRE_GRAD_FUSIONS
    from torch._inductor.fx_passes.split_cat import POST_GRAD_PATTERNS, PRE_GRAD_PATTERNS

    _check_names(pre, set(PRE_GRAD_FUSIONS) | set(PRE_GRAD_PATTERNS), "pre_grad_fusion_options")
    _check_names(post, set(POST_GRAD_FUSIONS) | set(POST_GRAD_PATTERNS), "post_grad_fusion_options")


def run_inductor(args: dict[str, Any]) -> dict[str, Any]:
    """`inductor`: the pre-grad or post-grad Optimus passes on the graph, with counters and histograms."""
    from torch._dynamo.utils import counters
    from torch._inductor import config
    from torch._inductor.fx_passes.pre_grad import pre_grad_passes

    progress("rebuilding the graph", 0.1)
    gm = fxgraph.build(args["graph"], args.get("source_name", "graph.py"))
    inputs = fxgraph.example_inputs(gm, 0, args.get("inputs"))
    fxgraph.propagate(gm, inputs)
    stage = args.get("stage") or "auto"
    if stage == "auto":
        stage = graph_stage(gm)
    # The config travels as text: json.loads keeps the file's key order, the
    # order Inductor runs the passes in.
    cfg = json.loads(args["config_text"]) if args.get("config_text") else (args.get("config") or {})
    if not isinstance(cfg, dict):
        raise BridgeError("the pass config is not a JSON object")
    pre = dict(cfg.get("pre_grad_fusion_options") or {})
    post = dict(cfg.get("post_grad_fusion_options") or {})
    check_pass_names(pre, post)
    patch = {"pre_grad_fusion_options": pre, "post_grad_fusion_options": post}
    if "disabled_passes" in cfg:
        if not hasattr(config, "disabled_passes"):
            raise BridgeError("disabled_passes: Inductor %s has no such setting (2.14 added it)" % torch.__version__)
        patch["disabled_passes"] = str(cfg["disabled_passes"])
    before = fxgraph.histogram(gm)
    nodes_before = len(gm.graph.nodes)

    progress("running Inductor's %s passes" % stage.replace("_", "-"), 0.3)
    counters.clear()
    with config.patch(patch):
        started = time.monotonic()
        with torch.no_grad():
            if stage == "pre_grad":
                gm = pre_grad_passes(gm, inputs)
            elif stage == "post_grad":
                gm = post_grad_optimus(gm)
            else:
                raise BridgeError("stage must be pre_grad, post_grad or auto, not %r" % stage)
        seconds = time.monotonic() - started
    fired = {name: count for name, count in counters["inductor"].items()}

    progress("writing the result", 0.9)
    fxgraph.propagate(gm, inputs)
    return {
        "graph": fxgraph.print_graph(gm),
        "counters": dict(sorted(fired.items())),
        "stage": stage,
        "seconds": seconds,
        "nodes_before": nodes_before,
        "nodes_after": len(gm.graph.nodes),
        "histogram_before": before,
        "histogram_after": fxgraph.histogram(gm),
        "torch": torch.__version__,
    }


def inductor_passes(args: dict[str, Any]) -> dict[str, Any]:
    """The pass names this Inductor has, per stage: what a pass config may name."""
    from torch._inductor.fx_passes.group_batch_fusion import POST_GRAD_FUSIONS, PRE_GRAD_FUSIONS
    from torch._inductor.fx_passes.pre_grad import pre_grad_passes  # noqa: F401 (registers the patterns)
    from torch._inductor.fx_passes.split_cat import POST_GRAD_PATTERNS, PRE_GRAD_PATTERNS

    return {
        "torch": torch.__version__,
        "pre_grad": sorted(set(PRE_GRAD_FUSIONS) | set(PRE_GRAD_PATTERNS)),
        "post_grad": sorted(set(POST_GRAD_FUSIONS) | set(POST_GRAD_PATTERNS)),
    }


def propagate_shapes(args: dict[str, Any]) -> dict[str, Any]:
    """The graph with every value's shape, dtype and device: one run on random
    inputs of the given shapes ([{name, shape, dtype}], else the annotations),
    printed as print_readable() with shapes. For torch-level (Dynamo) graphs
    whose dump records no shapes."""
    gm = fxgraph.build(args["graph"], args.get("source_name", "graph.py"))
    fxgraph.propagate(gm, fxgraph.example_inputs(gm, 0, args.get("inputs")))
    return {"graph": fxgraph.print_graph(gm)}


def histogram(args: dict[str, Any]) -> dict[str, Any]:
    """`histogram`: the graph's op counts (fxgraph.histogram) and node count."""
    gm = fxgraph.build(args["graph"], args.get("source_name", "graph.py"))
    return {"ops": fxgraph.histogram(gm), "nodes": len(gm.graph.nodes)}
