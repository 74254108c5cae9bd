"""`infer_shapes`: every value's shape, dtype, strides and device, as
Inductor's example_value has them, from a run on fake tensors.

The graph is rebuilt from its FX text and run once by an fx.Interpreter under
`FakeTensorMode`: no real kernel runs and no memory is taken for the values.
Each node of the graph (not of its submodules) gets the annotation
`print_readable(include_stride=True, include_device=True)` writes:
"f32[8, 16][16, 1]cpu"; a node whose value is not one tensor (split's tuple,
whose getitems carry the shapes; an int from size()) gets null.

Rebuilding is fxgraph.build's, plus what graph dumps have that it would run
or refuse (`_Builder`): a torch call with constant arguments
(`torch.arange(0, 2, device=device(type='cuda', index=0))`) is the node the
text names rather than a constant made while building, `a += b` is an
operator.iadd node, a function this torch lacks is a node that fails, and
every node keeps exactly the name the text gives it.

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

import ast
import importlib
import logging
import operator
import re
from collections.abc import Callable, Iterable
from typing import Any

import torch
import torch.fx
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv
from torch.fx.graph import dtype_abbrs

from . import fxgraph
from .devices import OnCpu, is_accelerator
from .server import BridgeError, one_line

_HINT = 8  # a symbol's hint when nothing gives one (fxgraph's int inputs are 8 too)
_UNKNOWN = object()  # a value that could not be inferred
_SYMBOL = re.compile(r"[A-Za-z_]\w*")
_SYM = re.compile(r"Sym\((.*)\)")
# Loggers that print a traceback for each op that fails on fake tensors.
_QUIET = ("torch._subclasses.fake_tensor", "torch.fx.experimental.symbolic_shapes",
          "torch.fx.experimental.recording")


def infer_shapes(args: dict[str, Any]) -> dict[str, Any]:
    """args: graph (FX text), source_name?, inputs? ([{name, shape, dtype,
    device, value?}]). Result: torch, values ({node: annotation or null}),
    failed ([{name, target, message}]), inferred (nodes with an annotation),
    unknown (nodes with no value: an unknown input, a failure, or what
    depends on one; a tuple or an int is a value, not unknown)."""
    text = args["graph"]
    gm = _build(text, args.get("source_name") or "graph.py")
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    given = list(args.get("inputs") or [])
    by_name = {g["name"]: g for g in given if g.get("name")}
    specs = [_Input(annotation, by_name.get(node.target) if by_name else (given[i] if i < len(given) else None))
             for i, (node, annotation) in enumerate(zip(placeholders, _forward_annotations(text)))]

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


# Rebuilding the graph

def _build(text: str, source_name: str) -> torch.fx.GraphModule:
    """fxgraph.build with _Builder, after importing the torch modules the
    text names that torch has not imported yet."""
    offset, source = fxgraph._class_source(text)
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise BridgeError("%s:%d:%d: %s" % (source_name, (exc.lineno or 0) + offset, exc.offset or 0, exc.msg))
    ast.increment_lineno(tree, offset)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            _import_submodules(ast.unparse(node))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    builder = _Builder(cls, _Hints(), source_name)
    gm = builder.build_from(cls)
    gm.meta["fusebox_specs"] = builder.specs
    return gm


# Operators that a module registers when it is imported (torch.ops.NS.name).
_OP_MODULES = {
    "torch.ops.prims.": "torch._inductor.inductor_prims",  # inductor_seeds, _low_memory_max_pool2d_with_offsets
    "torch.ops._c10d_functional.": "torch.distributed._functional_collectives",
    "torch.ops.quantized_decomposed.": "torch.ao.quantization.fx._decomposed",
}


def _import_submodules(dotted: str) -> None:
    """Imports what `torch.a.b.c` names that torch has not imported yet
    (torch._functorch.predispatch, Inductor's prims), so that the graph's
    code finds it."""
    parts = dotted.split(".")
    if parts[0] != "torch" or not all(p.isidentifier() for p in parts):
        return
    owner: Any = torch
    for i, part in enumerate(parts[1:], 2):
        if not hasattr(owner, part):
            modules = [".".join(parts[:i])] + [m for prefix, m in _OP_MODULES.items() if dotted.startswith(prefix)]
            for module in modules:
                try:
                    importlib.import_module(module)
                except ImportError:
                    continue
                if hasattr(owner, part):
                    break
        owner = getattr(owner, part, None)
        if owner is None:
            return


_IN_PLACE = {ast.Add: operator.iadd, ast.Sub: operator.isub, ast.Mult: operator.imul, ast.Div: operator.itruediv,
             ast.FloorDiv: operator.ifloordiv, ast.Mod: operator.imod, ast.Pow: operator.ipow,
             ast.MatMult: operator.imatmul, ast.BitAnd: operator.iand, ast.BitOr: operator.ior,
             ast.BitXor: operator.ixor, ast.LShift: operator.ilshift, ast.RShift: operator.irshift}


class _Builder(fxgraph._Builder):
    """fxgraph's builder, and, for its own classes and nested ones:
    - a statement's call of a torch function (`torch.arange(0, 2,
      device=device(type='cuda', index=0))`, `torch._C._functorch.
      _vmap_increment_nesting(1, 'error')`) is the node the text names, as
      Dynamo recorded it, also when no graph value is among its arguments
      (fxgraph runs such a call while building, into a constant, which fails
      for CUDA without CUDA); a function this torch lacks is a node that
      fails when it runs; a submodule passed to it is a get_attr node;
    - FX prints an in-place operator node as `a += b` and then `name = a`:
      one operator.iadd node, named `name` (fxgraph refuses `+=`);
    - each node gets exactly the name the text gives it (`_rename`).
    """

    _in_place: torch.fx.Node | None = None

    def __init__(self, cls: ast.ClassDef, symbols: dict, source_name: str, weights: dict | None = None):
        nested = [item for item in cls.body if isinstance(item, ast.ClassDef)]
        body, cls.body = cls.body, [item for item in cls.body if not isinstance(item, ast.ClassDef)]
        try:
            super().__init__(cls, symbols, source_name, weights)
        finally:
            cls.body = body
        for item in nested:  # submodules with this builder too
            setattr(self.root, item.name, type(self)(item, symbols, source_name, self.weights).build_from(item))

    def assign(self, name: str, value: Any, created: set) -> Any:
        if isinstance(value, torch.fx.Proxy) and value.node in created:
            _rename(value.node, name)
        return value

    def evaluate(self, expr: ast.expr, env: dict) -> Any:
        path = ast.unparse(expr.func) if isinstance(expr, ast.Call) else ""
        if (not path.startswith("torch.") or any(isinstance(a, ast.Starred) for a in expr.args)
                or any(k.arg is None for k in expr.keywords)):
            return super().evaluate(expr, env)
        try:
            func = super().evaluate(expr.func, env)
        except BridgeError:
            func = _unavailable(path)
        if isinstance(func, type):  # torch.device(...), torch.Size(...) are values
            return super().evaluate(expr, env)
        args = tuple(fxgraph._Builder.evaluate(self, a, env) for a in expr.args)
        kwargs = {k.arg: fxgraph._Builder.evaluate(self, k.value, env) for k in expr.keywords}
        args, kwargs = torch.fx.node.map_aggregate((args, kwargs), self._submodule)
        return self.tracer.create_proxy("call_function", func, args, kwargs)

    def _submodule(self, value: Any) -> Any:
        """A submodule passed to a call (a higher-order op's score_mod_0) is a get_attr node."""
        if isinstance(value, fxgraph._ModuleCall):
            return self.tracer.create_proxy("get_attr", value.name, (), {})
        return value

    def statement(self, stmt: ast.stmt, env: dict) -> None:
        in_place, self._in_place = self._in_place, None
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and type(stmt.op) in _IN_PLACE:
            self.line = stmt.lineno
            target, value = env[stmt.target.id], self.evaluate(stmt.value, env)
            op = _IN_PLACE[type(stmt.op)]
            if not isinstance(target, torch.fx.Proxy) and not isinstance(value, torch.fx.Proxy):
                env[stmt.target.id] = op(target, value)
                return
            result = self.tracer.create_proxy("call_function", op, (target, value), {})
            env[stmt.target.id] = result
            self._in_place = result.node
            return
        super().statement(stmt, env)
        if (in_place is not None and isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name)
                and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            value = env.get(stmt.targets[0].id)
            if isinstance(value, torch.fx.Proxy) and value.node is in_place:
                _rename(in_place, stmt.targets[0].id)


def _rename(node: torch.fx.Node, name: str) -> None:
    """Gives node exactly the name the text gives it. Node._rename keeps the
    automatic name a node had (`full_default`) taken, so that the text's
    `full_default`, some lines below, would become `full_default_2`: that
    name is freed, and a node holding `name` as its automatic name moves
    aside."""
    if node.name == name:
        return
    used = getattr(node.graph._graph_namespace, "_used_names", None)
    old = node.name
    if used is not None and name in used:
        holder = next((n for n in node.graph.nodes if n.name == name), None)
        if holder is not None:
            holder._rename(name + "_")
        used.discard(name)
    node._rename(name)
    if used is not None:
        used.discard(old)


def _unavailable(path: str) -> Callable:
    """What a call names that this torch lacks (a graph from a newer one): a
    node that fails when it runs."""
    def unavailable(*args: Any, **kwargs: Any) -> Any:
        raise BridgeError("torch %s has no %s" % (torch.__version__, path))
    unavailable.__module__, _, unavailable.__qualname__ = path.rpartition(".")
    unavailable.__name__ = unavailable.__qualname__
    return unavailable


class _Hints(dict):
    """What fxgraph's builder evaluates symbolic sizes with (the shapes of the
    constants it makes): every symbol is the default hint."""

    def __missing__(self, name: str) -> int:
        return _HINT

    def __bool__(self) -> bool:
        return True


# Inputs

def _forward_annotations(text: str) -> list[ast.expr | None]:
    """The annotation of each forward() argument after self, in placeholder order."""
    _, source = fxgraph._class_source(text)
    cls = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef))
    forward = next(f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "forward")
    return [a.annotation for a in forward.args.args[1:] + forward.args.kwonlyargs]


def _dtype(name: str) -> torch.dtype:
    """'f32' (as Fusebox writes it) or 'torch.float32' / 'float32'."""
    if name in fxgraph.DTYPES:
        return fxgraph.DTYPES[name]
    dtype = getattr(torch, name.removeprefix("torch."), None)
    if not isinstance(dtype, torch.dtype):
        raise ValueError("unknown dtype %r" % name)
    return dtype


class _Input:
    """What one placeholder is: a tensor (dtype, sizes, strides or None,
    device), a symbolic int (its expression), or unknown (nothing)."""

    def __init__(self, annotation: ast.expr | None, given: dict | None):
        self.dtype: torch.dtype | None = None
        self.sizes: list[str] = []
        self.strides: list[str] | None = None
        self.device = "cpu"
        self.symint: str | None = None
        self.value: int | None = None
        text = annotation.value if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str) else None
        if text is not None:
            text = text.strip()
            wrapped = re.fullmatch(r"(?:Parameter|Buffer)\((.*)\)", text)
            text = wrapped.group(1).strip() if wrapped else text
        if text is not None and _SYM.fullmatch(text):
            self.symint = _SYM.fullmatch(text).group(1)
        elif text is not None:
            m = fxgraph._ANNOTATION.match(text)
            if m and m.group(1) in fxgraph.DTYPES:
                self.dtype = fxgraph.DTYPES[m.group(1)]
                self.sizes = [p for p in m.group(2).split(",") if p.strip()]
                self.strides = [p for p in m.group(3).split(",") if p.strip()] if m.group(3) is not None else None
                self.device = m.group(4).strip() or "cpu"
        elif isinstance(annotation, (ast.Attribute, ast.Name)) and ast.unparse(annotation) in (
                "torch.SymInt", "SymInt", "int"):
            self.symint = ""  # named after the placeholder
        self.annotated_sizes = list(self.sizes)
        if given is not None:
            if self.symint is not None and not given.get("shape"):
                self.value = int(given["value"]) if given.get("value") is not None else None
            else:
                self.symint = None
                self.dtype = _dtype(given.get("dtype") or "f32")
                self.sizes = [str(int(d)) for d in given["shape"]]
                self.strides = None
                self.device = given.get("device") or "cpu"

    def hints(self, placeholder: str) -> dict[str, int]:
        """Symbol hints this input gives: a Sym placeholder's value, or a given
        shape's size where the annotation names a bare symbol."""
        if self.symint is not None and self.value is not None:
            name = self.symint.strip() or placeholder
            return {name: self.value} if _SYMBOL.fullmatch(name) else {}
        if self.annotated_sizes == self.sizes or len(self.annotated_sizes) != len(self.sizes):
            return {}
        return {a.strip(): int(s) for a, s in zip(self.annotated_sizes, self.sizes) if _SYMBOL.fullmatch(a.strip())}

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

    def __init__(self, shape_env: ShapeEnv, hints: dict[str, int]):
        super().__init__()
        self.shape_env, self.hints = shape_env, hints
        self.rename: dict[Any, Any] = {}  # the ShapeEnv's sympy symbol -> one named as the graph names it

    def __missing__(self, name: str) -> Any:
        import sympy
        from torch._dynamo.source import ConstantSource  # imported only for graphs with symbols (~1 s)

        hint = self.hints.get(name, _HINT)
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

    def __init__(self, gm: torch.fx.GraphModule, mode: FakeTensorMode):
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
