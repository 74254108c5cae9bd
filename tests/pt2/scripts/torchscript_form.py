#!/usr/bin/python3
"""Writes the TorchScript form of a capture model script, for
tests/pt2/pt2_dynamo_parity_tests.cpp:

    /usr/bin/python3 tests/pt2/scripts/torchscript_form.py MODEL.py OUT.pt

Run with Debian's python3 (torch 1.13, the libtorch Fusebox reads TorchScript
with; an archive torch 2.6 saves is newer than that). MODEL.py is a script
`fusebox-pass capture` runs: its get_model_and_inputs() gives the model and
example inputs. The model is traced on those inputs (torch.jit.trace, as
resources/demo/make_demo_model.py makes the demo's recsys_demo.pt) and saved
with the extra file fusebox/inputs.json naming the inputs' shapes and dtypes,
the way capture's inputs.json names them for the Dynamo graph.
"""
import importlib.util
import inspect
import json
import os
import sys

import torch

DTYPE_NAMES = {torch.float32: "f32", torch.float64: "f64", torch.float16: "f16",
               torch.int64: "i64", torch.int32: "i32", torch.bool: "b8", torch.uint8: "u8"}


def main():
    script, out = sys.argv[1], sys.argv[2]
    spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(script))[0], script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model, inputs = module.get_model_and_inputs()
    model = model.eval()
    names = [p for p in inspect.signature(model.forward).parameters]
    spec_json = {"inputs": [{"name": n, "shape": list(t.shape), "dtype": DTYPE_NAMES[t.dtype]}
                            for n, t in zip(names, inputs)]}
    with torch.no_grad():
        traced = torch.jit.trace(model, tuple(inputs))
    torch.jit.save(traced, out, _extra_files={"fusebox/inputs.json": json.dumps(spec_json)})
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
