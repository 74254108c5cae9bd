"""FX text -> torch.fx.GraphModule, and back (docs/pt2-bridge.md).

`build(text)` rebuilds the GraphModule that `print_readable()` printed (or
that Fusebox's `writeFxText` wrote): each statement of `forward` is evaluated
on FX proxies, so every expression form graph code uses (calls, methods,
operators, subscripts) becomes the node PyTorch itself would record, and each
node keeps the name the text gives it. Nested classes are submodules.
`example_inputs` makes tensors of the annotated shapes; `propagate` records
each node's value in meta["example_value"] / meta["val"] as Dynamo and AOT do.

A graph's constants (`self.w`, `self.fc.weight`) hold the values Fusebox sent
(`weights`, decoded by `decode_weights`) where it sent them, else random
tensors of the annotated shape seeded by the name, the same on every build, so
that a graph and its rewrite read the same constants.
"""
import ast
import base64
import itertools
import math
import operator
import re

import torch
import torch.fx
from torch.fx.graph import dtype_abbrs
from torch.fx.passes.shape_prop import ShapeProp

from .server import BridgeError, one_line

DTYPES = {abbr: dtype for dtype, abbr in dtype_abbrs.items()}
_ANNOTATION = re.compile(r"^\s*([a-z]+[0-9]+[a-z0-9]*)\[([^\]]*)\](?:\[([^\]]*)\])?(.*)$")


class TensorSpec:
    """A placeholder's annotation: dtype, shape (ints), device."""

    def __init__(self, dtype, shape, device="cpu"):
        self.dtype, self.shape, self.device = dtype, shape, device

    def to_json(self, name):
        return {"name": name, "shape": list(self.shape), "dtype": dtype_abbrs[self.dtype]}


def parse_annotation(text, where, symbols):
    """'f32[8, 16][16, 1]cpu' -> TensorSpec; 'Sym(s0)' / 'i64' scalar -> int.
    torch >= 2.8 wraps a lifted parameter's or buffer's annotation:
    'Parameter(f32[32, 16][16, 1]cpu)' reads as its inner annotation."""
    text = text.strip()
    wrapped = re.fullmatch(r"(?:Parameter|Buffer)\((.*)\)", text)
    if wrapped:
        text = wrapped.group(1).strip()
    if text.startswith("Sym("):
        return int
    m = _ANNOTATION.match(text)
    if not m or m.group(1) not in DTYPES:
        raise BridgeError("%s: cannot read the annotation %r (expected e.g. \"f32[8, 16]\")" % (where, text))
    dims = []
    for part in [p.strip() for p in m.group(2).split(",") if p.strip()]:
        if re.fullmatch(r"-?\d+", part):
            dims.append(int(part))
        else:
            try:  # a symbolic size such as s0 or 2*s1: its hint
                dims.append(int(eval(part, {"__builtins__": {}}, symbols)))
            except Exception:
                raise BridgeError("%s: the size %r has no known value (give --input-shape)" % (where, part))
    device = m.group(4).strip() or "cpu"
    return TensorSpec(DTYPES[m.group(1)], dims, "cpu" if device.startswith("cuda") else device)


def _globals():
    import torch.fx._pytree as fx_pytree
    import torch.utils._pytree as pytree

    return {
        "torch": torch, "operator": operator, "math": math, "builtins": __builtins__,
        "fx_pytree": fx_pytree, "pytree": pytree, "inf": math.inf, "nan": math.nan,
        "device": torch.device, "_operator": operator, "getitem": operator.getitem,
    }


def decode_weights(weights):
    """{name: {"dtype": "f32", "shape": [..], "base64": ".."}} -> {name: tensor}
    (the bytes are row-major, as Fusebox's WeightStore keeps them)."""
    out = {}
    for name, w in (weights or {}).items():
        dtype = DTYPES.get(w.get("dtype", ""))
        if dtype is None:
            raise BridgeError("weight %s: unknown dtype %r" % (name, w.get("dtype")))
        data = bytearray(base64.b64decode(w.get("base64", "")))
        shape = [int(d) for d in w.get("shape", [])]
        count = math.prod(shape)
        size = torch.empty((), dtype=dtype).element_size()
        if len(data) != count * size:
            raise BridgeError("weight %s: %d bytes for %s %s (%d expected)"
                              % (name, len(data), w.get("dtype"), shape, count * size))
        flat = torch.frombuffer(data, dtype=dtype) if count else torch.empty(0, dtype=dtype)
        out[name] = flat.reshape(shape).clone()
    return out


class _Self:
    """`self` inside forward: submodules are called as call_module, other
    attributes become get_attr nodes backed by tensors of the annotated shape
    (or the values Fusebox sent); `self.fc.weight` is one get_attr of the
    path "fc.weight" when a weight has that name."""

    def __init__(self, builder, prefix=""):
        self._b = builder
        self._prefix = prefix

    def __getattr__(self, name):
        path = self._prefix + name
        if path in self._b.weight_prefixes:
            return _Self(self._b, path + ".")
        return self._b.attribute(path)


class _Builder:
    def __init__(self, cls, symbols, source_name, weights=None):
        self.root = torch.nn.Module()
        self.weights = weights or {}
        # "fc" and "fc.inner" for a weight "fc.inner.weight": paths that lead to one.
        self.weight_prefixes = {".".join(k.split(".")[:i]) for k in self.weights for i in range(1, k.count(".") + 1)}
        self.graph = torch.fx.Graph()
        self.tracer = torch.fx.proxy.GraphAppendingTracer(self.graph)
        self.symbols = symbols
        self.source_name = source_name
        self.specs = []  # (name, TensorSpec | int) per placeholder
        self.annotation = None
        self.line = 0
        self.class_name = cls.name
        for item in cls.body:
            if isinstance(item, ast.ClassDef):
                child = _Builder(item, symbols, source_name, self.weights).build_from(item)
                setattr(self.root, item.name, child)

    def where(self):
        return "%s:%d" % (self.source_name, self.line)

    def attribute(self, name):
        child = getattr(self.root, name, None) if "." not in name else None
        if isinstance(child, torch.nn.Module):
            return _ModuleCall(self, name)
        owner, leaf = self.root, name
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
                    value = _random(spec, torch.Generator().manual_seed(len(name)))
                else:
                    value = torch.zeros(())
            owner.register_buffer(leaf, value)
        return torch.fx.Proxy(self.graph.get_attr(name), self.tracer)

    def build_from(self, cls):
        forward = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "forward"), None)
        if forward is None:
            raise BridgeError("%s:%d: class %s has no forward()" % (self.source_name, cls.lineno, cls.name))
        env = _globals()
        env["self"] = _Self(self)
        args = forward.args.args[1:] + forward.args.kwonlyargs
        for a in args:
            self.line = a.lineno
            node = self.graph.placeholder(a.arg)
            env[a.arg] = torch.fx.Proxy(node, self.tracer)
            ann = a.annotation
            if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
                self.specs.append((a.arg, parse_annotation(ann.value, self.where(), self.symbols)))
            else:
                self.specs.append((a.arg, None))
        for stmt in forward.body:
            self.statement(stmt, env)
        _keyword_only_arguments(self.graph)
        gm = torch.fx.GraphModule(self.root, self.graph, class_name=cls.name)
        gm.graph.lint()
        return gm

    def evaluate(self, expr, env):
        code = compile(ast.Expression(expr), self.source_name, "eval")
        try:
            return eval(code, env)
        except BridgeError:
            raise
        except Exception as exc:
            raise BridgeError("%s: cannot rebuild `%s`: %s" % (self.where(), ast.unparse(expr)[:120], one_line(exc)))

    def assign(self, name, value, created):
        if isinstance(value, torch.fx.Proxy) and value.node in created:
            value.node._rename(name)
        return value

    def statement(self, stmt, env):
        self.line = stmt.lineno
        self.annotation = None
        if isinstance(stmt, (ast.Pass, ast.Delete, ast.Import, ast.ImportFrom)):
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
            elif isinstance(target, ast.Tuple):
                for i, element in enumerate(target.elts):
                    env[element.id] = result[i]
            else:
                raise BridgeError("%s: cannot rebuild an assignment to `%s`" % (self.where(), ast.unparse(target)))


def _keyword_only_arguments(graph):
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


class _ModuleCall:
    def __init__(self, builder, name):
        self.builder, self.name = builder, name

    def __call__(self, *args, **kwargs):
        return self.builder.tracer.create_proxy("call_module", self.name, args, kwargs)


def _unwrap(value):
    return torch.fx.node.map_aggregate(value, lambda v: v.node if isinstance(v, torch.fx.Proxy) else v)


def _class_source(text):
    """The text from the first `class` line on (log prefixes and headers dropped)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"\s*class\s+\S+\(.*\):", line):
            indent = len(line) - len(line.lstrip())
            body = [l[indent:] if l[:indent].strip() == "" else l for l in lines[i:]]
            # AOT graphs print their class as `<lambda>`, which is no identifier.
            body = [re.sub(r"^(\s*class\s+)<lambda>\(", r"\1_lambda(", l) for l in body]
            return i, "\n".join(body)
    raise BridgeError("no `class ...(torch.nn.Module):` in the graph text")


def build(text, source_name="graph.py", symbols=None, weights=None):
    """The GraphModule the FX text describes, and its placeholders' specs.
    weights: {name: tensor} for its constants (decode_weights)."""
    offset, source = _class_source(text)
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise BridgeError("%s:%d:%d: %s" % (source_name, (exc.lineno or 0) + offset, exc.offset or 0, exc.msg))
    ast.increment_lineno(tree, offset)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    builder = _Builder(cls, symbols or {}, source_name, weights)
    gm = builder.build_from(cls)
    gm.meta["fusebox_specs"] = builder.specs
    return gm


def _random(spec, generator):
    if spec.dtype.is_floating_point or spec.dtype.is_complex:
        return torch.randn(spec.shape, generator=generator).to(spec.dtype)
    # Integers and bools are zeros: always valid as indices, offsets and masks.
    return torch.zeros(spec.shape, dtype=spec.dtype)


def example_inputs(gm, seed=0, given=None):
    """Inputs for gm's placeholders: `given` [{name, shape, dtype}] first, else the annotations."""
    generator = torch.Generator().manual_seed(seed)
    by_name = {g["name"]: g for g in (given or [])}
    inputs = []
    for i, (name, spec) in enumerate(gm.meta.get("fusebox_specs", [])):
        g = by_name.get(name) or (given[i] if given and i < len(given) and not by_name else None)
        if g is not None:
            spec = TensorSpec(DTYPES[g.get("dtype", "f32")], g["shape"])
        if spec is int:
            inputs.append(8)
        elif spec is None:
            raise BridgeError("input %s has no shape annotation and no shape was given" % name)
        else:
            inputs.append(_random(spec, generator))
    return inputs


class _Record(torch.fx.Interpreter):
    def run_node(self, n):
        result = super().run_node(n)
        if n.op not in ("output",):
            n.meta["example_value"] = result
            n.meta["val"] = result
        return result


def propagate(gm, inputs):
    """Runs gm on inputs, recording values and tensor_meta as Dynamo/ShapeProp do."""
    with torch.no_grad():
        ShapeProp(gm).propagate(*inputs)
        _Record(gm).run(*inputs)


def print_graph(gm):
    """print_readable() with shapes, strides and devices, as capture writes it."""
    return gm.print_readable(print_output=False, include_stride=True, include_device=True)


def target_name(node):
    """How a histogram names a node's target: torch.nn.functional.relu, torch.ops.aten.mm.default,
    .view for a method, or None for non-op nodes."""
    if node.op == "call_function":
        return torch.fx.node._get_qualified_name(node.target)
    if node.op == "call_method":
        return "." + node.target
    if node.op == "call_module":
        return "self." + node.target
    return None


def histogram(gm):
    counts = {}
    for node in gm.graph.nodes:
        name = target_name(node)
        if name is not None:
            counts[name] = counts.get(name, 0) + 1
    return dict(sorted(counts.items()))
