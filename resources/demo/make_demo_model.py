#!/usr/bin/python3
"""Builds Fusebox's demo model: a small recommendation-style network.

Run with Debian's /usr/bin/python3 (torch 1.13) to write the TorchScript archive:

    cd resources/demo && /usr/bin/python3 make_demo_model.py [OUT.pt]

It writes recsys_demo.pt (next to this script unless OUT.pt is given): the
module traced with torch.jit.trace, carrying the extra file
`fusebox/inputs.json` that tells Fusebox the input shapes and dtypes.

The structure is shaped so that the Optimus rules have something to fire on:
- dense tower: split into 16 chunks -> 16 parallel Linear(8, 16) -> relu ->
  layer_norm -> cat (batch_linear, batch_relu, batch_layernorm);
- sparse tower: unbind into 8 features -> tanh/sigmoid -> stack, and several
  Linear layers reading the same pooled input (batch_linear_lhs);
- id tower: 6 embedding tables looked up with columns of one index tensor;
- a split -> getitem -> cat that re-concatenates consecutive chunks
  (merge_getitem_cat);
- an interaction (cat + linear) and a sigmoid head.
"""
import json
import os
import sys
import types

import torch
from torch import nn

BATCH = 8
DENSE_FEATURES = 128
DENSE_CHUNKS = 16
SPARSE_FEATURES = 8
EMBEDDING_DIM = 16
ID_COLUMNS = 6
VOCABULARY = 50

SOURCE_PATH = "resources/demo/make_demo_model.py"

INPUTS = {
    "inputs": [
        {"name": "dense", "shape": [BATCH, DENSE_FEATURES], "dtype": "f32"},
        {"name": "sparse", "shape": [BATCH, SPARSE_FEATURES, EMBEDDING_DIM], "dtype": "f32"},
        {"name": "ids", "shape": [BATCH, ID_COLUMNS], "dtype": "i64"},
    ]
}


class DenseTower(nn.Module):
    def __init__(self):
        super().__init__()
        width = DENSE_FEATURES // DENSE_CHUNKS
        self.branches = nn.ModuleList(nn.Linear(width, 16) for _ in range(DENSE_CHUNKS))
        self.norms = nn.ModuleList(nn.LayerNorm(16) for _ in range(DENSE_CHUNKS))

    def forward(self, dense):
        chunks = torch.split(dense, DENSE_FEATURES // DENSE_CHUNKS, dim=1)
        outs = [norm(torch.relu(linear(chunk)))
                for chunk, linear, norm in zip(chunks, self.branches, self.norms)]
        return torch.cat(outs, dim=1)  # [B, 256]


class SparseTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.projections = nn.ModuleList(nn.Linear(EMBEDDING_DIM, 16) for _ in range(6))

    def forward(self, sparse):
        features = torch.unbind(sparse, dim=1)
        activated = [torch.tanh(f) if i % 2 == 0 else torch.sigmoid(f)
                     for i, f in enumerate(features)]
        stacked = torch.stack(activated, dim=1)  # [B, 8, 16]
        pooled = stacked.sum(dim=1)  # [B, 16]
        # Several linears on the same input: batch_linear_lhs.
        projected = [projection(pooled) for projection in self.projections]
        return torch.cat([stacked.flatten(1)] + projected, dim=1)  # [B, 128 + 96]


class IdTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.tables = nn.ModuleList(nn.Embedding(VOCABULARY, EMBEDDING_DIM)
                                    for _ in range(ID_COLUMNS))

    def forward(self, ids):
        looked_up = [table(ids[:, i]) for i, table in enumerate(self.tables)]
        return torch.cat(looked_up, dim=1)  # [B, 96]


class RecsysDemo(nn.Module):
    def __init__(self):
        super().__init__()
        self.dense = DenseTower()
        self.sparse = SparseTower()
        self.ids = IdTower()
        self.interaction = nn.Linear(128 + 224 + 96, 64)
        self.head = nn.Linear(64, 1)

    def forward(self, dense, sparse, ids):
        d = self.dense(dense)
        # Re-concatenating consecutive chunks: merge_getitem_cat's target.
        parts = torch.split(d, 64, dim=1)
        left = torch.cat([parts[0], parts[1]], dim=1)
        right = torch.cat([parts[2], parts[3]], dim=1)
        gated = left * torch.sigmoid(right)
        x = torch.cat([gated, self.sparse(sparse), self.ids(ids)], dim=1)
        h = torch.relu(self.interaction(x))
        return torch.sigmoid(self.head(h))


def example_inputs():
    dtypes = {"f32": torch.float32, "i64": torch.int64}
    tensors = []
    for spec in INPUTS["inputs"]:
        if spec["dtype"] == "i64":
            tensors.append(torch.randint(0, VOCABULARY, spec["shape"], dtype=torch.int64))
        else:
            tensors.append(torch.randn(spec["shape"], dtype=dtypes[spec["dtype"]]))
    return tuple(tensors)


def _relocate_code(code, filename):
    """The code object with co_filename set, nested code (comprehensions) included."""
    consts = tuple(_relocate_code(c, filename) if isinstance(c, types.CodeType) else c
                   for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


def _record_relative_source_paths():
    # The trace records the file of every Python frame; Python 3.9+ makes the
    # main script's path absolute. Record the path relative to the repository
    # so that the committed archive does not depend on where it was built.
    for cls in (DenseTower, SparseTower, IdTower, RecsysDemo):
        for name, fn in list(vars(cls).items()):
            if isinstance(fn, types.FunctionType):
                fn.__code__ = _relocate_code(fn.__code__, SOURCE_PATH)


def make_model():
    """The demo model with its fixed weights, in eval mode."""
    torch.manual_seed(0)
    model = RecsysDemo()
    # Trained-looking norms: affine parameters that are not all ones/zeros (freezing
    # would otherwise pool the identical tensors into one constant).
    with torch.no_grad():
        for norm in model.dense.norms:
            norm.weight.uniform_(0.5, 1.5)
            norm.bias.uniform_(-0.1, 0.1)
    return model.eval()


def get_model_and_inputs():
    """What `fusebox-pass capture resources/demo/make_demo_model.py` runs (PyTorch 2):
    the same model and inputs, for Dynamo, AOT and torch.export to capture."""
    return make_model(), example_inputs()


def build():
    _record_relative_source_paths()
    model = make_model()
    traced = torch.jit.trace(model, example_inputs())
    return traced


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "recsys_demo.pt")
    traced = build()
    extra = {"fusebox/inputs.json": json.dumps(INPUTS)}
    torch.jit.save(traced, out, _extra_files=extra)
    print(f"wrote {out} ({os.path.getsize(out)} bytes)")


if __name__ == "__main__":
    main()
