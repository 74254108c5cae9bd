"""`export`: a graph Fusebox rewrote, as something stock PyTorch 2 runs
without Fusebox (`fusebox-pass run -o OUT.pt2 | -o OUT_module.py`, File >
Export Rewritten Model):

- format "pt2": a torch.export archive (torch.export.export of the graph,
  non-strict, on example inputs; torch.export.save), for torch.export.load;
- format "module": Python source of a torch.nn.Module whose forward is the
  graph's code as torch.fx writes it, plus its constants in a torch.save file
  beside it (STEM.weights.pt, loaded with weights_only=True).

The graph arrives as FX text with its constants' values (`weights`); Fusebox
has already written its own fused ops as the ATen ops they are defined by.
Before answering, the bridge loads what it wrote as a user would
(torch.export.load of the bytes; the module imported from a fresh folder) and
runs it on random inputs against `original` (the graph as it was read, same
constants), with the verifier's tolerance: `check` says how far they are.
"""
from __future__ import annotations

import base64
import builtins
import importlib.util
import io
import os
import sys
import tempfile
import types
from typing import Any

import torch

from . import fxgraph, verify
from .server import BridgeError, one_line


def _import_line(name: str, value: Any) -> str | None:
    """The import that binds `name` to `value` in the module source, or None when
    the source can spell it without one."""
    if isinstance(value, types.ModuleType):
        return "import %s" % value.__name__ if value.__name__ == name else "import %s as %s" % (value.__name__, name)
    module = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", None)
    if module == "builtins" and getattr(builtins, name, None) is value:
        return None
    if value is type(None):
        return "%s = type(None)" % name
    if module and qualname and "." not in qualname and "<" not in qualname:
        module = "operator" if module == "_operator" else module
        return "from %s import %s" % (module, qualname) if qualname == name else \
            "from %s import %s as %s" % (module, qualname, name)
    if isinstance(value, (torch.dtype, torch.device, torch.memory_format, torch.layout)):
        return "%s = %s" % (name, _torch_constant(value))
    if isinstance(value, float):
        return "%s = float(%r)" % (name, str(value))
    raise BridgeError("cannot write %s (%r) as Python: export the graph as .pt2 instead" % (name, value))


def _torch_constant(value: torch.dtype | torch.device | torch.memory_format | torch.layout) -> str:
    """How the module source spells a torch dtype, device, memory format or layout."""
    if isinstance(value, torch.device):
        return "torch.device(%r)" % str(value)
    return "torch." + str(value).split(".")[-1]


def module_source(gm: torch.fx.GraphModule, stem: str, source_name: str, has_weights: bool,
                  input_specs: list[tuple[str, fxgraph.TensorSpec | fxgraph.SymSpec | None]]) -> str:
    """The module file's text (see the module docstring)."""
    for node in gm.graph.nodes:
        if node.op == "call_module":
            raise BridgeError("%s calls the submodule self.%s, which a module source cannot hold: "
                              "export it as .pt2 instead" % (source_name, node.target))
    code = gm.graph.python_code(root_module="self")
    imports = sorted({line for name, value in code.globals.items()
                      if (line := _import_line(name, value)) is not None and line != "import torch"})
    forward = "\n".join(("    " + line) if line.strip() else "" for line in code.src.strip("\n").splitlines())
    inputs = ", ".join("(%r, %r, %r)" % (name, list(spec.shape), fxgraph.dtype_abbrs[spec.dtype])
                       if isinstance(spec, fxgraph.TensorSpec) else "(%r, None, 'int')" % name
                       for name, spec in input_specs)
    weights = stem + ".weights.pt"
    lines = [
        '"""%s.py: the graph of %s as Fusebox rewrote it, as a torch.nn.Module for stock PyTorch 2.' % (stem, source_name),
        "",
        "    import %s" % stem,
        ("    model = %s.load()          # its constants from %s, beside this file" % (stem, weights)
         if has_weights else
         "    model = %s.load()          # no constants: the graph's weights are its inputs" % stem),
        "    outputs = model(*inputs)   # INPUTS: each input's name, shape and dtype",
        "",
        "Written by Fusebox; Fusebox's own fused ops are written as the ATen ops they are defined by.",
        '"""',
        "import os",
        "",
        "import torch",
    ] + imports + [
        "",
        "INPUTS = [%s]" % inputs,
        "",
        "",
        "def _place(module, path, tensor):",
        "    *owners, leaf = path.split('.')",
        "    for owner in owners:",
        "        if not hasattr(module, owner):",
        "            module.add_module(owner, torch.nn.Module())",
        "        module = getattr(module, owner)",
        "    module.register_buffer(leaf, tensor)",
        "",
        "",
        "class RewrittenGraph(torch.nn.Module):",
        "    def __init__(self, weights_path=None):",
        "        super().__init__()",
    ]
    if has_weights:
        lines += [
            "        path = weights_path or os.path.join(os.path.dirname(os.path.abspath(__file__)), %r)" % weights,
            "        for name, tensor in torch.load(path, weights_only=True).items():",
            "            _place(self, name, tensor)",
        ]
    lines += ["", forward, "", "", "def load(weights_path=None):",
              "    return RewrittenGraph(weights_path).eval()", ""]
    return "\n".join(lines)


def _constants(gm: torch.fx.GraphModule) -> dict[str, torch.Tensor]:
    """{path: tensor} of gm's get_attr targets."""
    out = {}
    for node in gm.graph.nodes:
        if node.op == "get_attr":
            value = gm
            for part in node.target.split("."):
                value = getattr(value, part)
            if isinstance(value, torch.Tensor):
                out[node.target] = value.detach().contiguous()
    return out


def _load_module(files: dict[str, bytes | str], stem: str) -> torch.nn.Module:
    """The module source in `files` imported from a fresh folder, and its load()."""
    # The folder goes once load() has read the weights: the module keeps none of its files open.
    with tempfile.TemporaryDirectory(prefix="fusebox-export-") as folder:
        for name, data in files.items():
            with open(os.path.join(folder, name), "wb") as f:
                f.write(data if isinstance(data, bytes) else data.encode())
        spec = importlib.util.spec_from_file_location("fusebox_export_check_" + stem,
                                                      os.path.join(folder, stem + ".py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules.pop(spec.name, None)
        spec.loader.exec_module(module)
        return module.load()


def export(args: dict[str, Any]) -> dict[str, Any]:
    """`export`: the graph as a .pt2 archive or a module source, loaded back and checked (module docstring)."""
    fmt = args.get("format", "pt2")
    if fmt not in ("pt2", "module"):
        raise BridgeError("export: unknown format %r (pt2 or module)" % fmt)
    source_name = args.get("source_name", "graph.py")
    stem = args.get("stem") or "rewritten"
    if not stem.isidentifier():
        raise BridgeError("export: %r is not a Python module name (letters, digits, _)" % stem)
    weights = fxgraph.decode_weights(args.get("weights"))
    gm = fxgraph.build(args["graph"], source_name, weights=weights)
    inputs = fxgraph.example_inputs(gm, int(args.get("seed", 0)), args.get("inputs"))
    original = fxgraph.build(args["original"], "original.py", weights=weights) if args.get("original") else gm
    notes: list[str] = []
    made_up = sorted(set(_constants(gm)) - set(weights))
    if made_up:
        notes.append("%d constant%s had no values in the file (%s%s) and hold random values"
                     % (len(made_up), "" if len(made_up) == 1 else "s", ", ".join(made_up[:3]),
                        ", ..." if len(made_up) > 3 else ""))
    files: dict[str, bytes | str] = {}
    try:
        if fmt == "pt2":
            with torch.no_grad():
                program = torch.export.export(gm, tuple(inputs), strict=False)
            buffer = io.BytesIO()
            torch.export.save(program, buffer)
            files[stem + ".pt2"] = buffer.getvalue()
        else:
            constants = _constants(gm)
            files[stem + ".py"] = module_source(gm, stem, source_name, bool(constants), gm.meta["fusebox_specs"])
            if constants:
                buffer = io.BytesIO()
                torch.save(constants, buffer)
                files[stem + ".weights.pt"] = buffer.getvalue()
    except BridgeError:
        raise
    except Exception as exc:
        raise BridgeError("cannot export %s as %s: %s" % (source_name, ".pt2" if fmt == "pt2" else "a module",
                                                          one_line(exc)))
    # Loaded back as a user would, and run against the original.
    try:
        if fmt == "pt2":
            loaded = torch.export.load(io.BytesIO(files[stem + ".pt2"])).module()
        else:
            loaded = _load_module(files, stem)
        with torch.no_grad():
            expected = verify.flatten_outputs(original(*inputs))
            actual = verify.flatten_outputs(loaded(*inputs))
    except Exception as exc:
        raise BridgeError("the exported %s does not run: %s" % (stem, one_line(exc)))
    check = verify.finite_result(verify.compare_outputs(expected, actual, verify.output_names(original),
                                                        float(args.get("precision", 1e-4))))
    answer_files = {name: ({"base64": base64.b64encode(data).decode()} if isinstance(data, bytes)
                           else data) for name, data in files.items()}
    return {"files": answer_files, "check": check, "notes": notes, "torch": torch.__version__}
