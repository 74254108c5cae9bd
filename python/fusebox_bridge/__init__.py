"""Fusebox's PyTorch 2 bridge: the Python side (docs/pt2-bridge.md).

Fusebox starts a Python with torch >= 2.4, sends these sources over stdin
and talks to `server.main` in JSON lines. Each operation lives in its own
module: schemas, capture, inductor, verify, patterns; `fxgraph` rebuilds a
GraphModule from FX text.
"""
