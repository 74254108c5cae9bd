"""What a graph's placeholders and constants are, from their annotations,
and the values a real run gives them (docs/pt2-bridge.md).

A placeholder's annotation is print_readable()'s ("f32[8, 16][16, 1]cuda:0",
"Sym(s0)"), torch >= 2.8's wrapped form ("Parameter(f32[32, 16][16, 1]cpu)")
or a type (`s10: torch.SymInt`, `x: torch.Tensor`, what GraphNet's dumps
have). `parse_annotation` reads the text forms into a TensorSpec or a
SymSpec; `spec_of` a forward() argument's annotation of any form.

Symbolic sizes ("s0", "2*s1") evaluate with `Hints`: each symbol is its hint,
DEFAULT_HINT (8) unless a given input says otherwise (a Sym placeholder's
`value`, or a given shape where the annotation names a bare symbol).

`example_inputs` makes the inputs of a real run: random tensors of the given
or annotated shapes on CPU (integers and bools are zeros, so that indices are
always in range), ints for Sym placeholders.
"""
from __future__ import annotations

import ast
import base64
import math
import re
from typing import Any, Union

import torch
from torch.fx.graph import dtype_abbrs

from .server import BridgeError

DTYPES: dict[str, torch.dtype] = {abbr: dtype for dtype, abbr in dtype_abbrs.items()}
# "f32[8, 16][16, 1]cpu": dtype, sizes, strides (optional), device (optional).
ANNOTATION = re.compile(r"^\s*([a-z]+[0-9]+[a-z0-9]*)\[([^\]]*)\](?:\[([^\]]*)\])?(.*)$")
SYM = re.compile(r"Sym\((.*)\)")
SYMBOL = re.compile(r"[A-Za-z_]\w*")
DEFAULT_HINT = 8  # a symbol's value when nothing gives one
# Annotations (as ast.unparse writes them) of a placeholder that is an int: named after the placeholder.
SYMINT_TYPES = ("torch.SymInt", "SymInt", "int")


class Hints(dict):
    """Symbol name -> hint, the namespace sizes evaluate in: a symbol that
    nothing gives is DEFAULT_HINT."""

    def __missing__(self, name: str) -> int:
        return DEFAULT_HINT


class TensorSpec:
    """A tensor placeholder's or constant's annotation: dtype, shape (ints,
    the sizes evaluated with their hints), the run's device (CPU for one
    recorded on an accelerator), and `sizes`, the sizes as written."""

    def __init__(self, dtype: torch.dtype, shape: list[int], device: str = "cpu",
                 sizes: list[str] | None = None) -> None:
        self.dtype, self.shape, self.device = dtype, shape, device
        self.sizes = sizes if sizes is not None else [str(d) for d in shape]

    def to_json(self, name: str) -> dict[str, Any]:
        return {"name": name, "shape": list(self.shape), "dtype": dtype_abbrs[self.dtype]}

    def resolved(self, hints: Hints, where: str = "") -> TensorSpec:
        """The spec with its symbolic sizes evaluated under `hints`."""
        if all(re.fullmatch(r"-?\d+", s.strip()) for s in self.sizes):
            return self
        return TensorSpec(self.dtype, [evaluate_size(s, hints, where) for s in self.sizes], self.device, self.sizes)


class SymSpec:
    """A Sym or SymInt placeholder: an int when the graph runs. `symbol` is
    the size expression it stands for ("s0" for "Sym(s0)"; the placeholder's
    name for `s10: torch.SymInt`)."""

    def __init__(self, symbol: str) -> None:
        self.symbol = symbol.strip()

    def value(self, hints: Hints, where: str = "") -> int:
        return evaluate_size(self.symbol, hints, where)


Spec = Union[TensorSpec, SymSpec, None]  # None: nothing says what the placeholder is


def evaluate_size(text: str, hints: Hints, where: str = "") -> int:
    """'16', 's0', '2*s1', '((s52 + 1)//2)' -> its value under hints."""
    text = text.strip()
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    try:
        return int(eval(text, {"__builtins__": {}}, hints))
    except Exception:
        raise BridgeError("%s: the size %r has no known value (give --input-shape)" % (where, text))


def unwrap(text: str) -> str:
    """torch >= 2.8 wraps a lifted parameter's or buffer's annotation:
    'Parameter(f32[32, 16][16, 1]cpu)' -> 'f32[32, 16][16, 1]cpu'."""
    text = text.strip()
    wrapped = re.fullmatch(r"(?:Parameter|Buffer)\((.*)\)", text)
    return wrapped.group(1).strip() if wrapped else text


def parse_annotation(text: str, where: str, symbols: Hints | dict | None = None) -> TensorSpec | SymSpec:
    """'f32[8, 16][16, 1]cpu' -> TensorSpec; 'Sym(s0)' -> SymSpec (see unwrap)."""
    text = unwrap(text)
    sym = SYM.fullmatch(text)
    if sym:
        return SymSpec(sym.group(1))
    m = ANNOTATION.match(text)
    if not m or m.group(1) not in DTYPES:
        raise BridgeError("%s: cannot read the annotation %r (expected e.g. \"f32[8, 16]\")" % (where, text))
    hints = symbols if symbols is not None else Hints()
    sizes = [p.strip() for p in m.group(2).split(",") if p.strip()]
    device = m.group(4).strip() or "cpu"
    return TensorSpec(DTYPES[m.group(1)], [evaluate_size(s, hints, where) for s in sizes],
                      "cpu" if device.startswith("cuda") else device, sizes)


def annotation_text(annotation: ast.expr | None) -> str | None:
    """A forward() argument's annotation as text: the string itself
    ("f32[8]"), else the type as written ("torch.SymInt", "torch.Tensor"),
    else None."""
    if annotation is None:
        return None
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value
    return ast.unparse(annotation)


def spec_of(annotation: ast.expr | None, placeholder: str, where: str, symbols: Hints | dict | None = None) -> Spec:
    """What a forward() argument annotated with `annotation` is: a string
    annotation is read by parse_annotation (an unreadable one is an error),
    a SymInt type is a SymSpec named after the placeholder, anything else
    (torch.Tensor, no annotation) None."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return parse_annotation(annotation.value, where, symbols)
    if annotation is not None and ast.unparse(annotation) in SYMINT_TYPES:
        return SymSpec(placeholder)
    return None


def dtype_of(name: str) -> torch.dtype:
    """'f32' (as Fusebox writes it) or 'torch.float32' / 'float32'."""
    if name in DTYPES:
        return DTYPES[name]
    dtype = getattr(torch, name.removeprefix("torch."), None)
    if not isinstance(dtype, torch.dtype):
        raise BridgeError("unknown dtype %r" % name)
    return dtype


def random_tensor(spec: TensorSpec, generator: torch.Generator) -> torch.Tensor:
    """Random values of spec's shape; integers and bools are zeros (always
    valid as indices, offsets and masks)."""
    if spec.dtype.is_floating_point or spec.dtype.is_complex:
        return torch.randn(spec.shape, generator=generator).to(spec.dtype)
    return torch.zeros(spec.shape, dtype=spec.dtype)


def given_tensor(name: str, spec: TensorSpec, data: list, generator: torch.Generator) -> torch.Tensor:
    """The tensor an `inputs` entry gives the values of (`data`: row-major, as
    GraphNet's weight_meta.py has them), for inputs the graph reads values
    from (`scale.item()`, an eps); the generator advances as for a random one."""
    random_tensor(spec, generator)
    if len(data) != math.prod(spec.shape):
        raise BridgeError("input %s: %d values in `data` for the shape %s" % (name, len(data), spec.shape))
    return torch.tensor(data, dtype=spec.dtype).reshape(spec.shape)


def given_hints(spec: Spec, given: dict | None) -> dict[str, int]:
    """Symbol hints one given input implies: a Sym placeholder's `value`, or
    a given shape's size where the annotation names a bare symbol."""
    if given is None:
        return {}
    if isinstance(spec, SymSpec):
        if given.get("value") is None or given.get("shape") or not SYMBOL.fullmatch(spec.symbol):
            return {}
        return {spec.symbol: int(given["value"])}
    if isinstance(spec, TensorSpec) and given.get("shape") is not None and len(given["shape"]) == len(spec.sizes):
        return {a: int(s) for a, s in zip(spec.sizes, given["shape"]) if SYMBOL.fullmatch(a)}
    return {}


def given_inputs(placeholders: list[tuple[str, Any]], given: list[dict] | None) -> list[dict | None]:
    """Each placeholder's entry of `given` ([{name, shape, dtype, value?}]),
    placeholders being [(name, anything)] in order: by name, or by position
    when no entry has a name."""
    given = list(given or [])
    by_name = {g["name"]: g for g in given if g.get("name")}
    if by_name:
        return [by_name.get(name) for name, _ in placeholders]
    return [given[i] if i < len(given) else None for i in range(len(placeholders))]


def example_inputs(gm: torch.fx.GraphModule, seed: int = 0, given: list[dict] | None = None) -> list[Any]:
    """Inputs for gm's placeholders (gm.meta["fusebox_specs"]): `given`
    [{name, shape, dtype, data?} or {name, value}] first, else the
    annotations. A Sym or SymInt placeholder is its `value`, else its
    symbol's hint (DEFAULT_HINT unless another given input implies it); a
    tensor is on CPU, of its `data` where given, else random."""
    generator = torch.Generator().manual_seed(seed)
    specs = gm.meta.get("fusebox_specs", [])
    entries = given_inputs(specs, given)
    hints = Hints()
    for (_, spec), entry in zip(specs, entries):
        hints.update(given_hints(spec, entry))
    inputs: list[Any] = []
    for (name, spec), entry in zip(specs, entries):
        if entry is not None and entry.get("value") is not None and not entry.get("shape"):
            inputs.append(int(entry["value"]))
        elif isinstance(spec, SymSpec) and not (entry and entry.get("shape")):
            inputs.append(spec.value(hints, "input %s" % name))
        elif entry is not None and entry.get("shape") is not None:
            spec = TensorSpec(dtype_of(entry.get("dtype") or "f32"), [int(d) for d in entry["shape"]])
            inputs.append(given_tensor(name, spec, entry["data"], generator) if entry.get("data") is not None
                          else random_tensor(spec, generator))
        elif spec is None:
            raise BridgeError("input %s has no shape annotation and no shape was given" % name)
        else:
            inputs.append(random_tensor(spec.resolved(hints, "input %s" % name), generator))
    return inputs


def decode_weights(weights: dict[str, dict] | None) -> dict[str, torch.Tensor]:
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
