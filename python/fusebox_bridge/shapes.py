"""`infer_shapes`: every value's shape, dtype, strides and device, as
Inductor's example_value has them, from a run on fake tensors.

The graph is rebuilt from its FX text by fxgraph.build, as for every request
(torch calls with constant arguments are nodes, `a += b` is an operator.iadd
node, a function this torch lacks is a node that fails, every node keeps the
name the text gives it), and run once by an fx.Interpreter under
`FakeTensorMode`: no real kernel runs and no memory is taken for the values.
Each node of the graph (not of its submodules) gets the annotation
`print_readable(include_stride=True, include_device=True)` writes:
"f32[8, 16][16, 1]cpu"; a node whose value is not one tensor (split's tuple,
whose getitems carry the shapes; an int from size()) gets null.

Inputs: the placeholders' annotations, or `inputs` [{name, shape, dtype,
device}] by name (an entry may add `value`, the hint of a Sym or SymInt
placeholder). A placeholder with neither is unknown: null, and so is every
value computed from it. A node whose fake run raises (a guard on a
data-dependent value, an op this torch lacks or cannot run on fake tensors)
is listed in `failed` with one line, and what depends on it is unknown; the
rest still infers.

Symbolic sizes are kept: each symbol an annotation names ("f32[s0, 16]",
"Sym(s0)", "2*s0") is one backed SymInt of a ShapeEnv (hint 8 unless a given
input or value says otherwise; no duck sizing, so that distinct symbols stay
distinct until the graph equates them), and the fake inputs are made with
empty_strided on those SymInts under the mode, which makes the tensors
`from_tensor` with a StatelessSymbolicContext of DimDynamic.DYNAMIC sizes
would. Sizes print under the graph's own symbol names, not the ShapeEnv's
(s0, s1 in torch 2.6; hashed names in newer ones). A size the run must
specialise (an op that guards on it) prints as its hint.

Devices: these roots' torch builds have no CUDA, and an op without a fake
kernel runs a real one on the tensor's device. So everything runs on CPU:
inputs are made on CPU, and the graph runs under devices.OnCpu (every
accelerator device a call names is CPU, `.cuda()` is nothing). Each tensor
value is then reported on the device the graph was recorded on: that of its
first tensor input on a non-CPU device, else the first non-CPU device a call
names, else cpu. A graph that moves values between CPU and CUDA is reported
as all on the recorded device.
"""
from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Any

import torch
import torch.fx
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv
from torch.fx.graph import dtype_abbrs

from . import fxgraph, fxspecs
from .devices import OnCpu, is_accelerator
from .server import one_line

_UNKNOWN = object()  # a value that could not be inferred
# Loggers that print a traceback for each op that fails on fake tensors.
_QUIET = ("torch._subclasses.fake_tensor", "torch.fx.experimental.symbolic_shapes",
          "torch.fx.experimental.recording")


def infer_shapes(args: dict[str, Any]) -> dict[str, Any]:
    """args: graph (FX text), source_name?, inputs? ([{name, shape, dtype,
    device, value?}]). Result: torch, values ({node: annotation or null}),
    failed ([{name, target, message}]), inferred (nodes with an annotation),
    unknown (nodes with no value: an unknown input, a failure, or what
    depends on one; a tuple or an int is a value, not unknown)."""
    gm = fxgraph.build(args["graph"], args.get("source_name") or "graph.py")
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    annotations = gm.meta["fusebox_annotations"]
    entries = fxspecs.given_inputs(annotations, args.get("inputs"))
    specs = [_Input(annotation, entry) for (_, annotation), entry in zip(annotations, entries)]

    hints: dict[str, int] = {}
    for node, spec in zip(placeholders, specs):
        hints.update(spec.hints(node.target))
    shape_env = ShapeEnv(duck_shape=False)
    mode = FakeTensorMode(shape_env=shape_env, allow_non_fake_inputs=True)
    symbols = _Symbols(shape_env, hints)
    inputs = []
    for node, spec in zip(placeholders, specs):
        try:
            inputs.append(spec.fake(node.target, symbols, mode))
        except Exception:  # an annotation whose sizes do not evaluate
            inputs.append(_UNKNOWN)

    run = _FakeRun(gm, mode)
    loggers = [logging.getLogger(name) for name in _QUIET]
    levels = [logger.level for logger in loggers]
    vmap_level = torch._C._functorch.maybe_current_level() or 0
    try:
        for logger in loggers:
            logger.setLevel(logging.CRITICAL)
        with torch.no_grad(), mode, OnCpu():
            run.run(*inputs, enable_io_processing=False)
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)
        # A vmap the graph entered and did not leave (a node in between failed).
        while (torch._C._functorch.maybe_current_level() or 0) > vmap_level:
            torch._C._functorch._vmap_decrement_nesting()

    device = _recorded_device(specs, gm)
    values: dict[str, str | None] = {}
    unknown = 0
    for node in gm.graph.nodes:
        if node.op != "output":
            value = run.values.get(node, _UNKNOWN)
            unknown += value is _UNKNOWN
            values[node.name] = None if value is _UNKNOWN else _annotation(value, device, symbols)
    return {
        "torch": torch.__version__,
        "values": values,
        "failed": run.failed,
        "inferred": sum(v is not None for v in values.values()),
        "unknown": unknown,
    }


# Inputs

class _Input:
    """What one placeholder is: a tensor (dtype, sizes, strides or None,
    device), a symbolic int (its expression), or unknown (nothing)."""

    def __init__(self, annotation: str | None, given: dict | None) -> None:
        self.dtype: torch.dtype | None = None
        self.sizes: list[str] = []
        self.strides: list[str] | None = None
        self.device = "cpu"
        self.symint: str | None = None
        self.value: int | None = None
        text = fxspecs.unwrap(annotation) if annotation is not None else None
        sym = fxspecs.SYM.fullmatch(text) if text is not None else None
        if sym:
            self.symint = sym.group(1)
        elif text in fxspecs.SYMINT_TYPES:
            self.symint = ""  # named after the placeholder
        elif text is not None:
            m = fxspecs.ANNOTATION.match(text)
            if m and m.group(1) in fxspecs.DTYPES:
                self.dtype = fxspecs.DTYPES[m.group(1)]
                self.sizes = [p for p in m.group(2).split(",") if p.strip()]
                self.strides = [p for p in m.group(3).split(",") if p.strip()] if m.group(3) is not None else None
                self.device = m.group(4).strip() or "cpu"
        self.annotated_sizes = list(self.sizes)
        if given is not None:
            if self.symint is not None and not given.get("shape"):
                self.value = int(given["value"]) if given.get("value") is not None else None
            else:
                self.symint = None
                self.dtype = fxspecs.dtype_of(given.get("dtype") or "f32")
                self.sizes = [str(int(d)) for d in given["shape"]]
                self.strides = None
                self.device = given.get("device") or "cpu"

    def hints(self, placeholder: str) -> dict[str, int]:
        """Symbol hints this input gives: a Sym placeholder's value, or a given
        shape's size where the annotation names a bare symbol."""
        if self.symint is not None and self.value is not None:
            name = self.symint.strip() or placeholder
            return {name: self.value} if fxspecs.SYMBOL.fullmatch(name) else {}
        if self.annotated_sizes == self.sizes or len(self.annotated_sizes) != len(self.sizes):
            return {}
        return {a.strip(): int(s) for a, s in zip(self.annotated_sizes, self.sizes) if fxspecs.SYMBOL.fullmatch(a.strip())}

    def fake(self, placeholder: str, symbols: _Symbols, mode: FakeTensorMode) -> Any:
        if self.symint is not None:
            return symbols.size(self.symint or placeholder)
        if self.dtype is None:
            return _UNKNOWN
        sizes = [symbols.size(s) for s in self.sizes]
        with mode:
            if self.strides is not None and len(self.strides) == len(sizes):
                return torch.empty_strided(sizes, [symbols.size(s) for s in self.strides], dtype=self.dtype)
            return torch.empty(sizes, dtype=self.dtype)


class _Symbols(dict):
    """The graph's symbol names -> SymInts of one ShapeEnv, made on first use.
    A dict so that `eval` looks annotation expressions up in it."""

    def __init__(self, shape_env: ShapeEnv, hints: dict[str, int]) -> None:
        super().__init__()
        self.shape_env, self.hints = shape_env, hints
        self.rename: dict[Any, Any] = {}  # the ShapeEnv's sympy symbol -> one named as the graph names it

    def __missing__(self, name: str) -> Any:
        import sympy
        from torch._dynamo.source import ConstantSource  # imported only for graphs with symbols (~1 s)

        hint = self.hints.get(name, fxspecs.DEFAULT_HINT)
        source = ConstantSource(name)
        expr = self.shape_env.create_symbol(hint, source, dynamic_dim=DimDynamic.DYNAMIC)
        value = self.shape_env.create_symintnode(expr, hint=hint, source=source)
        if isinstance(expr, sympy.Symbol):
            self.rename[expr] = sympy.Symbol(name)
        self[name] = value
        return value

    def size(self, text: str) -> Any:
        """'16', 's0', '2*s0' -> int or SymInt."""
        text = text.strip()
        return int(text) if re.fullmatch(r"-?\d+", text) else eval(text, {"__builtins__": {}}, self)

    def render(self, size: Any) -> str:
        """A size as print_readable prints it, under the graph's symbol names."""
        if isinstance(size, torch.SymInt):
            expr = size.node.expr
            return str(expr.xreplace(self.rename) if self.rename else expr)
        return str(size)


# The fake run

class _FakeRun(torch.fx.Interpreter):
    """Runs each node on fake values; a node that raises, or that reads an
    unknown value, is unknown (the failures are kept, one line each)."""

    def __init__(self, gm: torch.fx.GraphModule, mode: FakeTensorMode) -> None:
        super().__init__(gm)
        self.mode = mode
        self.failed: list[dict[str, str]] = []
        self.values: dict[torch.fx.Node, Any] = {}

    def run_node(self, n: torch.fx.Node) -> Any:
        if any(self.env.get(a) is _UNKNOWN for a in n.all_input_nodes):
            value = _UNKNOWN
        else:
            try:
                value = super().run_node(n)
            except Exception as exc:  # one node's failure is a result, not an error
                value = _UNKNOWN
                message = one_line(exc)
                self.failed.append({"name": n.name, "target": fxgraph.target_name(n) or str(n.target),
                                    "message": message[:300] + ("…" if len(message) > 300 else "")})
        if n.op != "output":
            self.values[n] = value
        return value

    def get_attr(self, target: str, args: tuple, kwargs: dict) -> Any:
        value = super().get_attr(target, args, kwargs)
        if isinstance(value, torch.Tensor):
            value = self.mode.from_tensor(value)
        return value


def _recorded_device(inputs: Iterable[_Input], gm: torch.fx.GraphModule) -> str:
    """The device the graph ran on: its first tensor input's that is not CPU,
    else the first non-CPU device one of its calls names, else cpu."""
    found = [torch.device(spec.device) for spec in inputs if spec.dtype is not None and is_accelerator(spec.device)]
    for node in gm.graph.nodes:
        if found:
            break
        torch.fx.node.map_aggregate((node.args, node.kwargs),
                                    lambda a: found.append(a) if isinstance(a, torch.device) and is_accelerator(a) else a)
    if not found:
        return "cpu"
    # A tensor's device has an index: device(type='cuda') made it on cuda:0.
    return str(found[0] if found[0].index is not None else torch.device(found[0].type, 0))


def _annotation(value: Any, device: str, symbols: _Symbols) -> str | None:
    """print_readable's annotation of one tensor value; None for anything else."""
    if not isinstance(value, torch.Tensor) or value.dtype not in dtype_abbrs:
        return None
    try:
        sizes, strides = value.shape, value.stride()
    except RuntimeError:  # sparse and other layouts without strides
        return None
    if value.device.type != "cpu" or device == "cpu":
        device = str(value.device)
    return "%s[%s][%s]%s" % (dtype_abbrs[value.dtype], ", ".join(map(symbols.render, sizes)),
                             ", ".join(map(symbols.render, strides)), device)
