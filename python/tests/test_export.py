"""Tests of the bridge's module export (python/fusebox_bridge/export.py): the
module source says where its constants are only when it writes them.

Needs a Python with torch >= 2.4 (the pt2 roots); run as test_fxgraph.py says.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import torch  # noqa: E402

from fusebox_bridge.export import module_source  # noqa: E402


class _Linear(torch.nn.Module):
    def forward(self, x, w):
        return torch.nn.functional.linear(x, w)


def _source(has_weights):
    gm = torch.fx.symbolic_trace(_Linear())
    return module_source(gm, "towers", "dynamo.py", has_weights, [])


def test_docstring_names_the_weights_file_only_when_written():
    # A Dynamo graph's weights are its inputs: no STEM.weights.pt is written,
    # and the docstring must not send the user looking for one (issue 36).
    without = _source(False)
    assert "towers.weights.pt" not in without
    assert "no constants: the graph's weights are its inputs" in without
    with_weights = _source(True)
    assert "its constants from towers.weights.pt, beside this file" in with_weights
    assert "torch.load(path, weights_only=True)" in with_weights


if __name__ == "__main__":
    from _runner import run  # noqa: E402

    run(globals())
