"""`capture`: the graphs PyTorch 2 makes of a model script.

The script defines `model` (an nn.Module) and `example_inputs` (a tuple), or
`get_model_and_inputs()` returning both. Written (as file contents):
- dynamo.py: the Dynamo graph the pre-grad passes see (torch.compile with a
  capturing backend), print_readable with shapes, strides and devices;
- aot_forward.py: the AOT inference forward graph the post-grad passes see;
- aot_joint.py, aot_train_forward.py, aot_backward.py: the training graphs,
  when a parameter or input requires grad;
- exported.pt2: torch.export's archive, when export succeeds, and
  exported.py: its graph module as FX text (ATen ops, parameters as inputs);
  exported_program.json: the bare ExportedProgram JSON torch's serializer writes;
- torch_compile_debug/fx_graph_readable.py, fx_graph_transformed.py,
  fx_graph_runnable.py: what a TORCH_COMPILE_DEBUG run of torch.compile writes
  (the graph Inductor receives, the same after its post-grad passes, and the
  runnable repro). Inductor's code generation needs a C++ compiler, which the
  reference environment lacks: the files are written before that step, and
  its failure is not an error here;
- inputs.json: the example inputs' names, shapes and dtypes.
`histograms` holds each graph's op counts, from PyTorch's own GraphModule.
"""
from __future__ import annotations

import base64
import copy
import inspect
import io
import json
import time
from collections.abc import Callable, Sequence
from typing import Any

import torch
import torch.fx
from torch.fx.graph import dtype_abbrs

from . import fxgraph
from .server import BridgeError, one_line, progress, register_script_name


def load_script(script: dict[str, Any]) -> tuple[torch.nn.Module, tuple[Any, ...]]:
    """Runs the script's text; returns (model, example_inputs)."""
    name = script.get("name") or "model.py"
    register_script_name(name)
    namespace = {"__name__": "__fusebox_capture__", "__file__": name}
    code = compile(script["text"], name, "exec")
    exec(code, namespace)
    if callable(namespace.get("get_model_and_inputs")):
        got = namespace["get_model_and_inputs"]()
        if not (isinstance(got, (tuple, list)) and len(got) == 2):
            raise BridgeError("%s: get_model_and_inputs() must return (model, example_inputs)" % name)
        model, inputs = got
    elif "model" in namespace and "example_inputs" in namespace:
        model, inputs = namespace["model"], namespace["example_inputs"]
    else:
        raise BridgeError("%s defines neither `model` and `example_inputs` nor get_model_and_inputs()" % name)
    if not isinstance(model, torch.nn.Module):
        raise BridgeError("%s: model is a %s, not a torch.nn.Module" % (name, type(model).__name__))
    if isinstance(inputs, torch.Tensor):
        inputs = (inputs,)
    if not isinstance(inputs, (tuple, list)):
        raise BridgeError("%s: example_inputs is a %s, not a tuple" % (name, type(inputs).__name__))
    return model, tuple(inputs)


def _input_names(model: torch.nn.Module, count: int) -> list[str]:
    """The first `count` positional parameter names of model.forward, then input_N."""
    try:
        params = [p for p in inspect.signature(model.forward).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        names = [p.name for p in params][:count]
    except (TypeError, ValueError):
        names = []
    return names + ["input_%d" % i for i in range(len(names), count)]


def _inputs_json(model: torch.nn.Module, inputs: tuple[Any, ...]) -> str:
    """inputs.json: each example input's name and shape and dtype (or value)."""
    entries = []
    for name, value in zip(_input_names(model, len(inputs)), inputs):
        if isinstance(value, torch.Tensor):
            entries.append({"name": name, "shape": list(value.shape), "dtype": dtype_abbrs[value.dtype]})
        else:
            entries.append({"name": name, "value": value if isinstance(value, (int, float, bool)) else repr(value)})
    return json.dumps({"inputs": entries}, indent=2) + "\n"


def _printed(gm: torch.fx.GraphModule) -> str:
    """print_readable() with shapes, strides and devices."""
    return gm.print_readable(print_output=False, include_stride=True, include_device=True)


def _dynamo_graphs(model: torch.nn.Module, inputs: tuple[Any, ...]) -> list[torch.fx.GraphModule]:
    """A copy of every graph Dynamo hands its backend (one per graph break)."""
    graphs: list[torch.fx.GraphModule] = []

    def backend(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Callable[..., Any]:
        copied = copy.deepcopy(gm)
        if not _has_fake(example_inputs):
            fxgraph.propagate(copied, example_inputs)
        graphs.append(copied)
        return gm.forward

    torch._dynamo.reset()
    compiled = torch.compile(model, backend=backend, dynamic=False, fullgraph=False)
    with torch.no_grad():
        compiled(*inputs)
    torch._dynamo.reset()
    return graphs


def _has_fake(values: Sequence[Any]) -> bool:
    from torch._subclasses.fake_tensor import FakeTensor

    return any(isinstance(v, FakeTensor) for v in values)


def _aot_graphs(model: torch.nn.Module, inputs: tuple[Any, ...], training: bool) -> dict[str, torch.fx.GraphModule]:
    """AOTAutograd's "forward", "backward" and "joint" graphs (those it made) of the model."""
    from functorch.compile import default_partition
    from torch._dynamo.backends.common import aot_autograd

    got: dict[str, torch.fx.GraphModule] = {}

    def forward_compiler(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Callable[..., Any]:
        got.setdefault("forward", copy.deepcopy(gm))
        return gm.forward

    def backward_compiler(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Callable[..., Any]:
        got.setdefault("backward", copy.deepcopy(gm))
        return gm.forward

    def partition(joint: torch.fx.GraphModule, joint_inputs: Sequence[Any], **kwargs: Any) -> Any:
        got.setdefault("joint", copy.deepcopy(joint))
        return default_partition(joint, joint_inputs, **kwargs)

    backend = aot_autograd(fw_compiler=forward_compiler, bw_compiler=backward_compiler, partition_fn=partition)
    torch._dynamo.reset()
    compiled = torch.compile(model, backend=backend, dynamic=False)
    if training:
        out = compiled(*inputs)
        leaves = [o for o in torch.utils._pytree.tree_leaves(out) if isinstance(o, torch.Tensor) and o.requires_grad]
        if leaves:
            sum(o.sum() for o in leaves).backward()
    else:
        with torch.no_grad():
            compiled(*inputs)
    torch._dynamo.reset()
    return got


def _requires_grad(model: torch.nn.Module, inputs: tuple[Any, ...]) -> bool:
    return any(p.requires_grad for p in model.parameters()) or any(
        isinstance(i, torch.Tensor) and i.requires_grad for i in inputs)


def capture(args: dict[str, Any]) -> dict[str, Any]:
    """`capture`: the graphs PyTorch 2 makes of the script's model, as files (module docstring)."""
    started = time.monotonic()
    progress("running the script", 0.05)
    model, inputs = load_script(args["script"])
    files: dict[str, Any] = {}
    histograms: dict[str, dict[str, int]] = {}
    notes: list[str] = []

    progress("capturing the Dynamo graph", 0.2)
    graphs = _dynamo_graphs(model, inputs)
    if not graphs:
        raise BridgeError("Dynamo produced no graph for the model (nothing to compile?)")
    if len(graphs) > 1:
        notes.append("the model has %d graph breaks; dynamo.py holds the first of %d graphs"
                     % (len(graphs) - 1, len(graphs)))
    files["dynamo.py"] = _printed(graphs[0])
    histograms["dynamo.py"] = fxgraph.histogram(graphs[0])

    progress("capturing the AOT inference graph", 0.45)
    aot = _aot_graphs(model, inputs, training=False)
    if "forward" in aot:
        files["aot_forward.py"] = _printed(aot["forward"])
        histograms["aot_forward.py"] = fxgraph.histogram(aot["forward"])
    # light: the two graphs Inductor's Optimus passes run on (pre-grad on the
    # Dynamo graph, post-grad on the AOT forward graph) and nothing else, for
    # suites that capture many models.
    light = bool(args.get("light"))
    if _requires_grad(model, inputs) and not light:
        progress("capturing the AOT training graphs", 0.6)
        try:
            train = _aot_graphs(model, inputs, training=True)
            for key, file in (("joint", "aot_joint.py"), ("forward", "aot_train_forward.py"),
                              ("backward", "aot_backward.py")):
                if key in train:
                    files[file] = _printed(train[key])
                    histograms[file] = fxgraph.histogram(train[key])
        except Exception as exc:
            notes.append("no training graphs: " + one_line(exc))

    export_error = None if light else _exported_and_compiled(model, inputs, files, histograms, notes)
    files["inputs.json"] = _inputs_json(model, inputs)
    result = {"files": files, "histograms": histograms, "export_error": export_error, "notes": notes,
              "seconds": time.monotonic() - started}
    if args.get("inductor_configs"):
        result["inductor_counters"] = _counters_on_live_graphs(graphs[0], aot.get("forward"), inputs,
                                                               args["inductor_configs"])
    return result


def _exported_and_compiled(model: torch.nn.Module, inputs: tuple[Any, ...], files: dict[str, Any],
                           histograms: dict[str, dict[str, int]], notes: list[str]) -> str | None:
    """torch.export's archive and program, and torch.compile's debug files,
    into files/histograms; returns torch.export's error (one line) or None."""
    progress("exporting with torch.export", 0.8)
    export_error = None
    try:
        exported = torch.export.export(model, inputs)
        buffer = io.BytesIO()
        torch.export.save(exported, buffer)
        files["exported.pt2"] = {"base64": base64.b64encode(buffer.getvalue()).decode("ascii")}
        histograms["exported.pt2"] = fxgraph.histogram(exported.graph_module)
        files["exported.py"] = _printed(exported.graph_module)
        # The bare ExportedProgram JSON inside the archive, as torch's serializer writes it.
        from torch._export.serde.serialize import serialize

        files["exported_program.json"] = serialize(exported).exported_program.decode("utf-8")
        histograms["exported_program.json"] = histograms["exported.pt2"]
        histograms["exported.py"] = histograms["exported.pt2"]
    except Exception as exc:
        export_error = one_line(exc)
    progress("running torch.compile with TORCH_COMPILE_DEBUG", 0.9)
    debug, debug_note = _compile_debug_files(model, inputs)
    files.update(debug)
    for name, text in debug.items():
        # Inductor wrote these as text: their ops as torch.fx records them when the code is rebuilt.
        try:
            histograms[name] = fxgraph.histogram(fxgraph.build(text, name))
        except Exception as exc:
            notes.append("%s: not rebuilt for its histogram: %s" % (name, one_line(exc)))
    if debug_note:
        notes.append(debug_note)
    return export_error


def _compile_debug_files(model: torch.nn.Module, inputs: tuple[Any, ...]) -> tuple[dict[str, str], str | None]:
    """({"torch_compile_debug/NAME": text}, None) of a TORCH_COMPILE_DEBUG run, or ({}, why it wrote none)."""
    import glob
    import os
    import tempfile

    from torch._inductor import config

    with tempfile.TemporaryDirectory() as tmp:
        note = None
        torch._dynamo.reset()
        try:
            # Without the FX graph cache: a graph compiled before (by an earlier
            # capture, or a latency measurement) is then loaded from the cache,
            # which writes no debug files.
            with config.patch({"trace.enabled": True, "trace.debug_dir": tmp, "fx_graph_cache": False,
                               "fx_graph_remote_cache": False}), torch.no_grad():
                torch.compile(model)(*inputs)
        except Exception as exc:  # no C++ compiler: the debug files are written before codegen
            note = "torch.compile stopped after writing its debug files: " + one_line(exc)
        torch._dynamo.reset()
        out: dict[str, str] = {}
        for name in ("fx_graph_readable.py", "fx_graph_transformed.py", "fx_graph_runnable.py"):
            found = sorted(glob.glob(os.path.join(tmp, "**", name), recursive=True))
            if found:
                with open(found[0]) as f:
                    out["torch_compile_debug/" + name] = f.read()
        if not out:
            return {}, "no TORCH_COMPILE_DEBUG files: " + (note or "torch.compile wrote none")
        return out, None


def _counters_on_live_graphs(dynamo_gm: torch.fx.GraphModule, aot_gm: torch.fx.GraphModule | None,
                             inputs: tuple[Any, ...], configs: list[str]) -> list[dict[str, int]]:
    """counters["inductor"] of Inductor's passes run on the graphs PyTorch itself
    captured (not rebuilt from text): what tests cross-check the bridge's
    `inductor` answers against. Pre-grad options run on the Dynamo graph,
    post-grad options on the AOT forward graph."""
    from torch._dynamo.utils import counters
    from torch._inductor import config
    from torch._inductor.fx_passes.pre_grad import pre_grad_passes

    from . import inductor

    out: list[dict[str, int]] = []
    for text in configs:
        cfg = json.loads(text)
        pre = dict(cfg.get("pre_grad_fusion_options") or {})
        post = dict(cfg.get("post_grad_fusion_options") or {})
        inductor.check_pass_names(pre, post)
        counters.clear()
        with config.patch(pre_grad_fusion_options=pre, post_grad_fusion_options=post), torch.no_grad():
            if pre:
                gm = copy.deepcopy(dynamo_gm)
                pre_grad_passes(gm, _placeholder_values(gm))
            if post and aot_gm is not None:
                inductor.post_grad_optimus(copy.deepcopy(aot_gm))
        out.append(dict(sorted(counters["inductor"].items())))
    return out


def _placeholder_values(gm: torch.fx.GraphModule) -> list[Any]:
    """meta["val"] of gm's placeholders, in order."""
    return [n.meta["val"] for n in gm.graph.nodes if n.op == "placeholder"]
