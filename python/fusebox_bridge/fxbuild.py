"""FX text -> torch.fx.GraphModule: the one rebuild every request uses
(docs/pt2-bridge.md).

`build(text)` rebuilds the GraphModule that `print_readable()` printed, that
Fusebox's `writeFxText` wrote, or that a graph dump holds (Dynamo's and AOT's
logs, TORCH_COMPILE_DEBUG's files, GraphNet's model.py): each statement of
`forward` is evaluated on FX proxies, so every expression form graph code
uses (calls, methods, operators, subscripts) becomes the node PyTorch itself
would record. What dumps have beyond plain expressions:

- a statement's call of a torch function (`torch.arange(0, 2,
  device=device(type='cuda', index=0))`, `torch._C._set_grad_enabled(False)`,
  `torch.ops.aten.full.default([2], 0.0, ...)`) is the node the text names,
  as Dynamo recorded it, also when no graph value is among its arguments: it
  runs when the graph runs, not while building (a CUDA call would fail here);
- a function this torch lacks (a graph from a newer one) is a node that
  fails when it runs, and the torch modules the text names are imported
  first (`torch._functorch.predispatch`, Inductor's prims);
- FX prints an in-place operator node as `a += b` and then `name = a`: one
  operator.iadd node named `name`;
- every node gets exactly the name the text gives it;
- nested classes are submodules (`self.submod_1(x)` is call_module), and a
  submodule passed to a call (a higher-order op's `score_mod_0`) is a
  get_attr node.

`self.w` and `self.fc.weight` are get_attr nodes of constants that hold the
values Fusebox sent (`weights`, fxspecs.decode_weights) where it sent them,
else random tensors of the annotated shape seeded by the name, the same on
every build, so that a graph and its rewrite read the same constants.

The GraphModule's meta holds `fusebox_specs` ([(placeholder, TensorSpec |
SymSpec | None)], what fxspecs.example_inputs reads) and
`fusebox_annotations` ([(placeholder, annotation text or None)]).
"""
from __future__ import annotations

import ast
import importlib
import itertools
import math
import operator
import re
from collections.abc import Callable
from typing import Any

import torch
import torch.fx

from .fxspecs import Hints, Spec, TensorSpec, annotation_text, parse_annotation, random_tensor, spec_of
from .server import BridgeError, one_line

# `a OP= b` -> the operator node FX prints that way.
IN_PLACE = {ast.Add: operator.iadd, ast.Sub: operator.isub, ast.Mult: operator.imul, ast.Div: operator.itruediv,
            ast.FloorDiv: operator.ifloordiv, ast.Mod: operator.imod, ast.Pow: operator.ipow,
            ast.MatMult: operator.imatmul, ast.BitAnd: operator.iand, ast.BitOr: operator.ior,
            ast.BitXor: operator.ixor, ast.LShift: operator.ilshift, ast.RShift: operator.irshift}

# Operators that a module registers when it is imported (torch.ops.NS.name).
_OP_MODULES = {
    "torch.ops.prims.": "torch._inductor.inductor_prims",  # inductor_seeds, _low_memory_max_pool2d_with_offsets
    "torch.ops._c10d_functional.": "torch.distributed._functional_collectives",
    "torch.ops.quantized_decomposed.": "torch.ao.quantization.fx._decomposed",
}


def class_source(text: str) -> tuple[int, str]:
    """The line offset and the text from the first `class` line on (log
    prefixes and headers dropped, the class dedented)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"\s*class\s+\S+\(.*\):", line):
            indent = len(line) - len(line.lstrip())
            body = [l[indent:] if l[:indent].strip() == "" else l for l in lines[i:]]
            # AOT graphs print their class as `<lambda>`, which is no identifier.
            body = [re.sub(r"^(\s*class\s+)<lambda>\(", r"\1_lambda(", l) for l in body]
            return i, "\n".join(body)
    raise BridgeError("no `class ...(torch.nn.Module):` in the graph text")


def graph_globals() -> dict[str, Any]:
    """The names graph code uses besides its own values."""
    import torch.fx._pytree as fx_pytree
    import torch.utils._pytree as pytree

    return {
        "torch": torch, "operator": operator, "math": math, "builtins": __builtins__,
        "fx_pytree": fx_pytree, "pytree": pytree, "inf": math.inf, "nan": math.nan,
        "device": torch.device, "_operator": operator, "getitem": operator.getitem,
    }


class _Self:
    """`self` inside forward: submodules are called as call_module, other
    attributes become get_attr nodes backed by tensors of the annotated shape
    (or the values Fusebox sent); `self.fc.weight` is one get_attr of the
    path "fc.weight" when a weight has that name."""

    def __init__(self, builder: GraphBuilder, prefix: str = "") -> None:
        self._b = builder
        self._prefix = prefix

    def __getattr__(self, name: str) -> Any:
        path = self._prefix + name
        if path in self._b.weight_prefixes:
            return _Self(self._b, path + ".")
        return self._b.attribute(path)


class ModuleCall:
    """A submodule of the graph (a nested class): calling it is a call_module node."""

    def __init__(self, builder: GraphBuilder, name: str) -> None:
        self.builder, self.name = builder, name

    def __call__(self, *args: Any, **kwargs: Any) -> torch.fx.Proxy:
        return self.builder.tracer.create_proxy("call_module", self.name, args, kwargs)


class GraphBuilder:
    """Rebuilds one class of the text (and its nested classes, each with a
    builder of its own) into a GraphModule, statement by statement."""

    def __init__(self, cls: ast.ClassDef, symbols: Hints | dict, source_name: str,
                 weights: dict[str, torch.Tensor] | None = None) -> None:
        self.root = torch.nn.Module()
        self.weights = weights or {}
        # "fc" and "fc.inner" for a weight "fc.inner.weight": paths that lead to one.
        self.weight_prefixes = {".".join(k.split(".")[:i]) for k in self.weights for i in range(1, k.count(".") + 1)}
        self.graph = torch.fx.Graph()
        self.tracer = torch.fx.proxy.GraphAppendingTracer(self.graph)
        self.symbols = symbols
        self.source_name = source_name
        self.specs: list[tuple[str, Spec]] = []  # per placeholder
        self.annotations: list[tuple[str, str | None]] = []  # per placeholder, as written
        self.annotation: str | None = None  # the statement's, for the constants it reads
        self.line = 0
        self._in_place: torch.fx.Node | None = None  # the node of the last statement's `a += b`
        for item in cls.body:
            if isinstance(item, ast.ClassDef):
                child = GraphBuilder(item, symbols, source_name, self.weights).build_from(item)
                setattr(self.root, item.name, child)

    def where(self) -> str:
        return "%s:%d" % (self.source_name, self.line)

    def attribute(self, name: str) -> Any:
        """`self.NAME`: a submodule's ModuleCall, else a get_attr node of a constant."""
        child = getattr(self.root, name, None) if "." not in name else None
        if isinstance(child, torch.nn.Module):
            return ModuleCall(self, name)
        owner = self.root
        for part in name.split(".")[:-1]:
            if not hasattr(owner, part):
                owner.add_module(part, torch.nn.Module())
            owner = getattr(owner, part)
        leaf = name.split(".")[-1]
        if not hasattr(owner, leaf):
            if name in self.weights:
                value = self.weights[name]
            else:
                spec = parse_annotation(self.annotation, self.where(), self.symbols) if self.annotation else None
                if isinstance(spec, TensorSpec):
                    value = random_tensor(spec, torch.Generator().manual_seed(len(name)))
                else:
                    value = torch.zeros(())
            owner.register_buffer(leaf, value)
        return torch.fx.Proxy(self.graph.get_attr(name), self.tracer)

    def build_from(self, cls: ast.ClassDef) -> torch.fx.GraphModule:
        forward = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "forward"), None)
        if forward is None:
            raise BridgeError("%s:%d: class %s has no forward()" % (self.source_name, cls.lineno, cls.name))
        env = graph_globals()
        env["self"] = _Self(self)
        for a in forward.args.args[1:] + forward.args.kwonlyargs:
            self.line = a.lineno
            node = self.graph.placeholder(a.arg)
            env[a.arg] = torch.fx.Proxy(node, self.tracer)
            self.specs.append((a.arg, spec_of(a.annotation, a.arg, self.where(), self.symbols)))
            self.annotations.append((a.arg, annotation_text(a.annotation)))
        for stmt in forward.body:
            self.statement(stmt, env)
        _keyword_only_arguments(self.graph)
        gm = torch.fx.GraphModule(self.root, self.graph, class_name=cls.name)
        gm.graph.lint()
        gm.meta["fusebox_specs"] = self.specs
        gm.meta["fusebox_annotations"] = self.annotations
        return gm

    # Expressions

    def evaluate(self, expr: ast.expr, env: dict) -> Any:
        """A statement's expression: a call of a torch function is its node
        (call_torch), anything else evaluates on the proxies."""
        path = ast.unparse(expr.func) if isinstance(expr, ast.Call) else ""
        if (path.startswith("torch.") and not any(isinstance(a, ast.Starred) for a in expr.args)
                and all(k.arg is not None for k in expr.keywords)):
            return self.call_torch(expr, path, env)
        return self.evaluate_plain(expr, env)

    def evaluate_plain(self, expr: ast.expr, env: dict) -> Any:
        """Python's own evaluation of expr on the proxies and constants in env."""
        code = compile(ast.Expression(expr), self.source_name, "eval")
        try:
            return eval(code, env)
        except BridgeError:
            raise
        except Exception as exc:
            raise BridgeError("%s: cannot rebuild `%s`: %s" % (self.where(), ast.unparse(expr)[:120], one_line(exc)))

    def call_torch(self, expr: ast.Call, path: str, env: dict) -> Any:
        """`torch.f(args)` as the node Dynamo recorded, also with constant
        arguments; a type (torch.device, torch.Size) is a value; a function
        this torch lacks is a node that fails when it runs."""
        try:
            func = self.evaluate_plain(expr.func, env)
        except BridgeError:
            func = unavailable(path)
        if isinstance(func, type):
            return self.evaluate_plain(expr, env)
        args = tuple(self.evaluate_plain(a, env) for a in expr.args)
        kwargs = {k.arg: self.evaluate_plain(k.value, env) for k in expr.keywords}
        args, kwargs = torch.fx.node.map_aggregate((args, kwargs), self._submodule)
        if torch.overrides.is_tensor_method_or_property(func):  # torch.Tensor.add(x, y): as a Proxy records it
            return self.tracer.create_proxy("call_method", func.__name__, args, kwargs)
        return self.tracer.create_proxy("call_function", func, args, kwargs)

    def _submodule(self, value: Any) -> Any:
        """A submodule passed to a call (a higher-order op's score_mod_0) is a get_attr node."""
        if isinstance(value, ModuleCall):
            return self.tracer.create_proxy("get_attr", value.name, (), {})
        return value

    # Statements

    def assign(self, name: str, value: Any, created: set[torch.fx.Node]) -> Any:
        """`name = value`: a node the statement made takes the name."""
        if isinstance(value, torch.fx.Proxy) and value.node in created:
            rename(value.node, name)
        return value

    def statement(self, stmt: ast.stmt, env: dict) -> None:
        self.line = stmt.lineno
        self.annotation = None
        in_place, self._in_place = self._in_place, None
        if isinstance(stmt, (ast.Pass, ast.Delete, ast.Import, ast.ImportFrom)):
            return
        if isinstance(stmt, ast.AugAssign):
            self.augmented(stmt, env)
            return
        if isinstance(stmt, ast.AnnAssign):
            if isinstance(stmt.annotation, ast.Constant) and isinstance(stmt.annotation.value, str):
                self.annotation = stmt.annotation.value
            if stmt.value is None:
                return
            targets, value = [stmt.target], stmt.value
        elif isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, ast.Expr):
            if isinstance(stmt.value, ast.Constant):
                return  # a docstring
            self.evaluate(stmt.value, env)
            return
        elif isinstance(stmt, ast.Return):
            result = self.evaluate(stmt.value, env) if stmt.value is not None else None
            self.graph.output(_unwrap(result))
            return
        else:
            raise BridgeError("%s: cannot rebuild a %s statement" % (self.where(), type(stmt).__name__))
        if isinstance(value, ast.Constant) and value.value is None:
            for t in targets:  # `a = b = None` frees values; nothing to record
                if isinstance(t, ast.Name):
                    env.pop(t.id, None)
            return
        count = len(self.graph.nodes)
        result = self.evaluate(value, env)
        # New nodes are appended: the statement's are the last ones (a set of
        # every node per statement made rebuilding quadratic).
        created = set(itertools.islice(reversed(self.graph.nodes), len(self.graph.nodes) - count))
        for target in targets:
            if isinstance(target, ast.Name):
                env[target.id] = self.assign(target.id, result, created)
            elif isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
                for i, element in enumerate(target.elts):
                    env[element.id] = result[i]
            else:
                raise BridgeError("%s: cannot rebuild an assignment to `%s`" % (self.where(), ast.unparse(target)))
        # `a += b` then `name = a`: the in-place node is `name`.
        if (in_place is not None and isinstance(value, ast.Name) and len(targets) == 1
                and isinstance(targets[0], ast.Name) and isinstance(result, torch.fx.Proxy)
                and result.node is in_place):
            rename(in_place, targets[0].id)

    def augmented(self, stmt: ast.AugAssign, env: dict) -> None:
        """`a += b`: an operator.iadd node (the operator's own result for two constants)."""
        if not isinstance(stmt.target, ast.Name) or type(stmt.op) not in IN_PLACE:
            raise BridgeError("%s: cannot rebuild `%s`" % (self.where(), ast.unparse(stmt)[:120]))
        if stmt.target.id not in env:
            raise BridgeError("%s: cannot rebuild `%s`: %s is not defined" % (self.where(), ast.unparse(stmt)[:120],
                                                                              stmt.target.id))
        target, value = env[stmt.target.id], self.evaluate(stmt.value, env)
        op = IN_PLACE[type(stmt.op)]
        if not isinstance(target, torch.fx.Proxy) and not isinstance(value, torch.fx.Proxy):
            env[stmt.target.id] = op(target, value)
            return
        result = self.tracer.create_proxy("call_function", op, (target, value), {})
        env[stmt.target.id] = result
        self._in_place = result.node


def rename(node: torch.fx.Node, name: str) -> None:
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


def unavailable(path: str) -> Callable:
    """What a call names that this torch lacks (a graph from a newer one): a
    function that fails when it runs, printed under the name the text gives."""
    def missing(*args: Any, **kwargs: Any) -> Any:
        raise BridgeError("torch %s has no %s" % (torch.__version__, path))
    missing.__module__, _, missing.__qualname__ = path.rpartition(".")
    missing.__name__ = missing.__qualname__
    return missing


def import_submodules(dotted: str) -> None:
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


def _keyword_only_arguments(graph: torch.fx.Graph) -> None:
    """Fusebox's IR keeps every schema argument in order, so its writer may
    pass keyword-only ones by position (`aten.baddbmm.default(b, x, w, 1, 1)`
    for beta and alpha); an OpOverload then refuses them. Such extra
    positional arguments become the keywords their schema names."""
    for node in graph.nodes:
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
            continue
        arguments = node.target._schema.arguments
        positional = [a for a in arguments if not a.kwarg_only]
        if len(node.args) <= len(positional):
            continue
        keyword = [a for a in arguments if a.kwarg_only]
        extra = node.args[len(positional):]
        if len(extra) > len(keyword):
            continue  # a real mistake: let PyTorch say so when it runs
        kwargs = dict(node.kwargs)
        for a, value in zip(keyword, extra):
            kwargs.setdefault(a.name, value)
        node.args = node.args[:len(positional)]
        node.kwargs = kwargs


def _unwrap(value: Any) -> Any:
    return torch.fx.node.map_aggregate(value, lambda v: v.node if isinstance(v, torch.fx.Proxy) else v)


def build(text: str, source_name: str = "graph.py", symbols: Hints | dict | None = None,
          weights: dict[str, torch.Tensor] | None = None) -> torch.fx.GraphModule:
    """The GraphModule the FX text describes, with its placeholders' specs in
    meta["fusebox_specs"]. symbols: hints of the symbolic sizes its
    annotations name (each missing one DEFAULT_HINT); weights: {name: tensor}
    for its constants (fxspecs.decode_weights)."""
    offset, source = class_source(text)
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise BridgeError("%s:%d:%d: %s" % (source_name, (exc.lineno or 0) + offset, exc.offset or 0, exc.msg))
    ast.increment_lineno(tree, offset)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            import_submodules(ast.unparse(node))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    hints = symbols if isinstance(symbols, Hints) else Hints(symbols or {})
    return GraphBuilder(cls, hints, source_name, weights).build_from(cls)
