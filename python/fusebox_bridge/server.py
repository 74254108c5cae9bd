"""The request loop of the bridge (docs/pt2-bridge.md, "Protocol").

Reads one JSON request per line from stdin, answers with progress lines and
one result or error line on the real stdout. fd 1 is moved to stderr before
anything else runs, so that prints of user scripts and of PyTorch never reach
the protocol stream.
"""
from __future__ import annotations

import json
import os
import sys
import time
import traceback
from collections.abc import Callable
from typing import IO, Any

_proto: IO[str] | None = None
_current_id: Any = None
_script_names: set[str] = set()


def progress(text: str, fraction: float | None = None) -> None:
    """Sends a progress line for the request being served."""
    message: dict[str, Any] = {"id": _current_id, "progress": text}
    if fraction is not None:
        message["fraction"] = fraction
    _send(message)


def register_script_name(name: str) -> None:
    """Errors raised inside a file compiled under this name are reported at its
    innermost frame (the user's script) rather than at the bridge's."""
    _script_names.add(name)


class BridgeError(Exception):
    """An error to report as is, at the caller's frame (not a bug of the bridge)."""


def _send(message: dict[str, Any]) -> None:
    """One JSON line on the protocol stream."""
    _proto.write(json.dumps(message, separators=(",", ":")) + "\n")
    _proto.flush()


def _where(exc: BaseException) -> str:
    """Where exc is reported, as "file:line": the user's script's frame, else the bridge's, else the last."""
    frames = traceback.extract_tb(exc.__traceback__)
    for frame in reversed(frames):
        if frame.filename in _script_names:
            return "%s:%d" % (frame.filename, frame.lineno)
    if isinstance(exc, SyntaxError) and exc.filename in _script_names:
        return "%s:%d" % (exc.filename, exc.lineno or 0)
    for frame in reversed(frames):
        if "fusebox_bridge" in frame.filename:
            return "%s:%d" % (frame.filename, frame.lineno)
    return frames[-1].filename + ":%d" % frames[-1].lineno if frames else ""


def one_line(exc: BaseException) -> str:
    """An exception as the one line Fusebox shows: "Type: first line" (a
    BridgeError's text alone)."""
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    name = type(exc).__name__
    if isinstance(exc, BridgeError):
        return first
    return "%s: %s" % (name, first) if first else name


# op -> (module, function); modules are imported on first use, so that `check`
# answers (with what is missing) even where torch cannot be imported.
_OPS = {
    "check": ("schemas", "check"),
    "schemas": ("schemas", "schemas"),
    "capture": ("capture", "capture"),
    "inductor": ("inductor", "run_inductor"),
    "inductor_passes": ("inductor", "inductor_passes"),
    "histogram": ("inductor", "histogram"),
    "propagate_shapes": ("inductor", "propagate_shapes"),
    "infer_shapes": ("shapes", "infer_shapes"),
    "verify_begin": ("verify", "begin"),
    "verify_check": ("verify", "check"),
    "apply_patterns": ("patterns", "apply_patterns"),
    "latency": ("latency", "latency"),
    "export": ("export", "export"),
}


def _handler(op: str) -> Callable[[dict[str, Any]], Any]:
    """The function serving operation `op` (_OPS), its module imported."""
    import importlib

    if op not in _OPS:
        raise BridgeError("unknown operation %r (known: %s)" % (op, ", ".join(sorted(_OPS))))
    module, function = _OPS[op]
    return getattr(importlib.import_module("fusebox_bridge." + module), function)


def main(header: dict[str, Any]) -> None:
    """Serves requests from stdin until it closes (module docstring); `header` is the
    bootstrap's first line (core/pt2/Bootstrap.cpp), unused here."""
    global _proto, _current_id
    _proto = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        _current_id = request.get("id")
        try:
            result = _handler(request.get("op"))(request.get("args") or {})
            _send({"id": _current_id, "result": result})
        except SystemExit as exc:
            _send({"id": _current_id, "error": "the script called exit(%s)" % (exc.code,), "where": _where(exc)})
        except BaseException as exc:  # every failure is one line back to Fusebox
            _send({"id": _current_id, "error": one_line(exc), "where": _where(exc)})
            traceback.print_exc(file=sys.stderr)
        sys.stderr.flush()
