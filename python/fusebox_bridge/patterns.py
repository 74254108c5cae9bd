"""`apply_patterns`: runs a module written by `fusebox-pass export-patterns
--to inductor` in PyTorch 2: its `apply(gm)` rewrites the graph through
Inductor's pattern matcher; the answer has the number of replacements, the
rewritten graph and how far its outputs are from the original's."""
from __future__ import annotations

from typing import Any

import torch

from . import fxgraph, verify
from .server import register_script_name


def apply_patterns(args: dict[str, Any]) -> dict[str, Any]:
    """`apply_patterns`: the module's apply(gm) on the graph, and its outputs compared with the original's."""
    name = args.get("module_name") or "fusebox_inductor_patterns.py"
    register_script_name(name)
    namespace = {"__name__": "fusebox_inductor_patterns", "__file__": name}
    exec(compile(args["module"], name, "exec"), namespace)
    gm = fxgraph.build(args["graph"], args.get("source_name", "graph.py"))
    inputs = fxgraph.example_inputs(gm, int(args.get("seed", 0)), args.get("inputs"))
    fxgraph.propagate(gm, inputs)
    names = verify.output_names(gm)
    expected = verify.run_graph(gm, inputs)
    replacements = int(namespace["apply"](gm))
    actual = verify.run_graph(gm, inputs)
    compared = verify.finite_result(verify.compare_outputs(expected, actual, names, float(args.get("precision", 1e-4))))
    fxgraph.propagate(gm, inputs)
    return {"replacements": replacements, "graph": fxgraph.print_graph(gm),
            "outputs_equal": compared["passed"], "max_abs_diff": compared["max_abs_diff"],
            "message": compared["message"], "histogram_after": fxgraph.histogram(gm)}
