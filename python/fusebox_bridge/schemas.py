"""`check` (what this Python can do) and `schemas` (every op schema of its torch)."""
from __future__ import annotations

import platform
import sys
from types import ModuleType
from typing import Any

from .server import BridgeError

MINIMUM_TORCH = (2, 4)


def _version_tuple(text: str) -> tuple[int, ...]:
    """The (major, minor) of a version such as "2.6.0+debian"."""
    parts: list[int] = []
    for p in text.split("+")[0].split(".")[:2]:
        digits = "".join(c for c in p if c.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def _torch() -> ModuleType:
    """torch, imported; a BridgeError when it is missing or older than MINIMUM_TORCH."""
    try:
        import torch
    except ImportError as exc:
        raise BridgeError("this Python (%s, %s) has no torch: %s" % (platform.python_version(), sys.executable, exc))
    if _version_tuple(torch.__version__) < MINIMUM_TORCH:
        raise BridgeError("this Python (%s) has torch %s; the bridge needs torch >= %d.%d"
                          % (sys.executable, torch.__version__, *MINIMUM_TORCH))
    return torch


def check(args: dict[str, Any]) -> dict[str, Any]:
    """`check`: this Python's version, torch, torchvision and what the bridge can do with them."""
    torch = _torch()
    capabilities = ["schemas", "capture", "verify", "apply_patterns", "latency", "export"]
    try:
        import torch._inductor.fx_passes.pre_grad  # noqa: F401

        capabilities.append("inductor")
    except Exception:
        pass
    try:
        from . import compiled

        if not compiled.toolchain_problem():
            capabilities.append("compile")
    except Exception:
        pass
    try:
        import torchvision

        vision = torchvision.__version__
    except Exception:
        vision = None
    return {
        "python": platform.python_version(),
        "executable": sys.executable,
        "torch": torch.__version__,
        "torchvision": vision,
        "capabilities": capabilities,
    }


def _split_top(text: str) -> list[str]:
    """Splits 'a, b=[1, 2], c="x,y"' at commas outside brackets and quotes."""
    parts: list[str] = []
    depth, quote, start = 0, None, 0
    for i, c in enumerate(text):
        if quote:
            if c == quote and text[i - 1] != "\\":
                quote = None
        elif c in "\"'":
            quote = c
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    if text[start:].strip():
        parts.append(text[start:].strip())
    return parts


def _argument(text: str, kwarg_only: bool) -> dict[str, Any]:
    """One argument or return of a schema ("int dim=0") as {name, type, kwarg_only, default?}."""
    default = None
    if "=" in text:
        text, default = text.split("=", 1)
    text = text.strip()
    type_text, _, name = text.rpartition(" ")
    if not type_text:  # an unnamed return: "Tensor"
        type_text, name = text, ""
    out = {"name": name, "type": type_text.strip(), "kwarg_only": kwarg_only}
    if default is not None:
        out["default"] = default.strip()
    return out


def _close_paren(text: str, start: int) -> int:
    """The index of the ")" that closes the "(" at `start`."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    raise ValueError("unbalanced schema %r" % text)


def parse_schema(text: str) -> dict[str, Any]:
    """'aten::sum.dim_IntList(Tensor self, ...) -> Tensor' as the JSON the C++ side reads."""
    open_at = text.index("(")
    qualified = text[:open_at]
    close_at = _close_paren(text, open_at)
    name, _, overload = qualified.partition(".")
    arguments: list[dict[str, Any]] = []
    kwarg_only = False
    for part in _split_top(text[open_at + 1:close_at]):
        if part == "*":
            kwarg_only = True
            continue
        arguments.append(_argument(part, kwarg_only))
    returns_text = text[close_at + 1:].strip()
    returns: list[dict[str, Any]] = []
    if returns_text.startswith("->"):
        returns_text = returns_text[2:].strip()
        if returns_text.startswith("(") and _close_paren(returns_text, 0) == len(returns_text) - 1:
            returns_text = returns_text[1:-1]
        returns = [_argument(p, False) for p in _split_top(returns_text)] if returns_text else []
    return {"name": name, "overload": overload, "arguments": arguments, "returns": returns}


def schemas(args: dict[str, Any]) -> dict[str, Any]:
    """`schemas`: every op schema of this torch (parse_schema) and its higher-order ops."""
    torch = _torch()
    out = []
    for schema in torch._C._jit_get_all_schemas():
        entry = parse_schema(str(schema))
        entry["mutable"] = any(a.alias_info is not None and a.alias_info.is_write for a in schema.arguments)
        out.append(entry)
    higher_order = sorted(getattr(torch._ops, "_higher_order_ops", {}).keys())
    return {"torch": torch.__version__, "schemas": out, "higher_order_ops": higher_order}
