"""Runs a rewritten graph Fusebox exported for stock PyTorch 2 against the
model it came from, in stock PyTorch 2 alone (no Fusebox code): the test
harness prepends one line, `PAYLOAD = {...}`, with

    model_script  the model script's text (get_model_and_inputs(), or
                  `model` and `example_inputs`), captured by Dynamo into the
                  graph Fusebox rewrote;
    kind          "pt2" (a torch.export archive: torch.export.load) or
                  "module" (STEM.py and STEM.weights.pt: import STEM; STEM.load());
    stem          the module's name;
    files         {file name: base64 of its bytes}.

A Dynamo graph's inputs are the model's inputs and, since torch 2.5, its
parameters and buffers (L_x_, L_self_modules_fc_parameters_weight_,
...); a torch.export graph's are the model's inputs (x). Each is found by Dynamo's naming from the real module's own tensors, the
exported graph is called on them, and its outputs are compared with the
module's (|diff| <= 1e-4 + 1e-4*|expected|). Prints one line,
FUSEBOX-EXPORT-CHECK: {"passed", "max_abs_diff", "inputs", "ops"}; "ops" counts
the exported graph's call targets.
"""
import atexit
import base64
import importlib
import json
import os
import shutil
import sys
import tempfile

import torch


def dynamo_name(kind, path):
    """Dynamo 2.6's placeholder for self.<path> (kind "parameters" or "buffers")."""
    *owners, leaf = path.split(".")
    return "L_self_" + "".join("modules_%s_" % o for o in owners) + kind + "_" + leaf + "_"


def main():
    namespace = {"__name__": "model_script"}
    exec(compile(PAYLOAD["model_script"], "model_script.py", "exec"), namespace)  # noqa: F821
    if "get_model_and_inputs" in namespace:
        model, inputs = namespace["get_model_and_inputs"]()
    else:
        model, inputs = namespace["model"], namespace["example_inputs"]
    model.eval()
    folder = tempfile.mkdtemp(prefix="fusebox-check-")
    atexit.register(shutil.rmtree, folder, True)
    for name, data in PAYLOAD["files"].items():  # noqa: F821
        with open(os.path.join(folder, name), "wb") as f:
            f.write(base64.b64decode(data))
    if PAYLOAD["kind"] == "pt2":  # noqa: F821
        program = torch.export.load(os.path.join(folder, next(n for n in PAYLOAD["files"] if n.endswith(".pt2"))))
        names = [s.arg.name for s in program.graph_signature.input_specs
                 if s.kind == torch.export.graph_signature.InputKind.USER_INPUT]
        runnable = program.module()
        graph = program.graph
    else:
        sys.path.insert(0, folder)
        module = importlib.import_module(PAYLOAD["stem"])  # noqa: F821
        names = [name for name, _, _ in module.INPUTS]
        runnable = module.load()
        graph = torch.fx.symbolic_trace(runnable).graph

    import inspect

    forward_names = list(inspect.signature(model.forward).parameters)
    # Dynamo names an input x L_x_; torch.export keeps x.
    by_name = {"L_%s_" % n: t for n, t in zip(forward_names, inputs)}
    by_name.update(dict(zip(forward_names, inputs)))
    by_name.update({dynamo_name("parameters", n): p for n, p in model.named_parameters()})
    by_name.update({dynamo_name("buffers", n): b for n, b in model.named_buffers()})
    # torch.export of a Dynamo graph lower-cases its placeholders (l_x_).
    by_name.update({k.lower(): v for k, v in list(by_name.items())})
    missing = [n for n in names if n not in by_name]
    if missing:
        raise SystemExit("exported inputs with no counterpart in the model: %s" % missing)
    with torch.no_grad():
        expected = torch.utils._pytree.tree_leaves(model(*inputs))
        actual = torch.utils._pytree.tree_leaves(runnable(*[by_name[n] for n in names]))
    passed = len(expected) == len(actual)
    worst = 0.0
    for e, a in zip(expected, actual):
        if e.shape != a.shape or e.dtype != a.dtype:
            passed = False
            continue
        diff = (a.double() - e.double()).abs()
        worst = max(worst, float(diff.max()) if diff.numel() else 0.0)
        passed = passed and bool((diff <= 1e-4 + 1e-4 * e.double().abs()).all())
    ops = {}
    for node in graph.nodes:
        if node.op == "call_function":
            target = torch.fx.node._get_qualified_name(node.target)
            ops[target] = ops.get(target, 0) + 1
    print("FUSEBOX-EXPORT-CHECK: " + json.dumps({"passed": passed, "max_abs_diff": worst, "inputs": names,
                                                 "ops": ops}))


main()
