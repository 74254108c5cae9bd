"""Tests of the bridge's one graph rebuild (python/fusebox_bridge/fxbuild.py,
through fxgraph.build) and of real runs of what it builds (fxgraph.propagate,
the `inductor` and `propagate_shapes` requests).

Needs a Python with torch >= 2.4 (the pt2 roots; no CUDA needed). The roots
do not see the repository: copy python/ into one first, e.g.
    cp -r python /root/.cache/fusebox/pt2-root/tmp/fusebox-python
    chroot /root/.cache/fusebox/pt2-root python3 /tmp/fusebox-python/tests/test_fxgraph.py
or, where pytest is installed, `python3 -m pytest python/tests/test_fxgraph.py`.
"""
import io
import json
import operator
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import torch  # noqa: E402

from fusebox_bridge import fxgraph, server  # noqa: E402
from fusebox_bridge.fxspecs import SymSpec, TensorSpec  # noqa: E402
from fusebox_bridge.inductor import histogram, propagate_shapes, run_inductor  # noqa: E402
from fusebox_bridge.server import BridgeError  # noqa: E402

# A Dynamo graph recorded on CUDA, as GraphNet and Dynamo's logs print it:
# `a += b` then `name = a`, a torch call with constant arguments on CUDA,
# autocast entered for CUDA, untyped tensor placeholders.
CUDA = '''
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 8][8, 1]cuda:0", y: "f32[4, 8][8, 1]cuda:0"):
        add = x * 2
        add += y
        add_1 = add
        add = None
        arange = torch.arange(0, 8, device=device(type='cuda', index=0))
        _enter_autocast = torch.amp.autocast_mode._enter_autocast('cuda', None, True, None)
        mul = add_1 * arange
        _exit_autocast = torch.amp.autocast_mode._exit_autocast(_enter_autocast);  _enter_autocast = None
        moved = mul.to(device(type='cuda', index=0)).cuda()
        return (moved,)
'''

# Post-grad graphs name nodes out of the order FX would make the names in.
NAMES = '''
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4][1]cpu"):
        full_default_1: "f32[2][1]cpu" = torch.ops.aten.full.default([2], 0.0, dtype = torch.float32, device = device(type='cpu'), pin_memory = False)
        full_default: "f32[3][1]cpu" = torch.ops.aten.full.default([3], 1.0, dtype = torch.float32, device = device(type='cpu'), pin_memory = False)
        cat: "f32[9][1]cpu" = torch.ops.aten.cat.default([x, full_default_1, full_default])
        return (cat,)
'''

# GraphNet's form: a SymInt placeholder, tensors typed torch.Tensor (no shape).
SYMINT = '''
class GraphModule(torch.nn.Module):
    def forward(self, s10: torch.SymInt, x: torch.Tensor, w: "f32[s10, 4]"):
        view = x.view(s10, -1)
        mm = view @ w
        return (mm,)
'''

SYM = '''
class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "Sym(s52)", primals_2: "f32[s52, 16][16, 1]cpu"):
        view: "f32[2*s52, 8]" = torch.ops.aten.view.default(primals_2, [2 * primals_1, 8])
        return (view,)
'''

# Nested submodule classes, one called, one passed to an op.
NESTED = '''
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 4][4, 1]cpu"):
        y = self.inner(x)
        w = self.w
        mm = torch.mm(y, w)
        map_impl = torch.ops.higher_order.map_impl(self.body_0, [mm], [])
        return (map_impl,)

    class inner(torch.nn.Module):
        def forward(self, x: "f32[4, 4][4, 1]cpu"):
            relu = torch.relu(x)
            return relu

    class body_0(torch.nn.Module):
        def forward(self, row: "f32[4][1]cpu"):
            neg = torch.neg(row)
            return (neg,)
'''

WEIGHTS = '''
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 4][4, 1]cpu"):
        w = self.w
        fc_weight = self.fc.weight
        other: "f32[4][1]cpu" = self.other
        mm = torch.mm(x, w)
        mm_1 = torch.mm(mm, fc_weight)
        add = mm_1 + other
        return (add,)
'''

MISSING = '''
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4][1]cpu"):
        new = torch.ops.aten.relu.default(x)
        later = torch.frobnicate_from_the_future(new, 2)
        return (later,)
'''


def _nodes(gm):
    return {n.name: n for n in gm.graph.nodes}


def test_augassign_is_one_iadd_node_named_as_the_text_names_it():
    gm = fxgraph.build(CUDA, "cuda.py")
    nodes = _nodes(gm)
    assert nodes["add_1"].target is operator.iadd
    assert nodes["add_1"].args[0] is nodes["add"] and nodes["add_1"].args[1].name == "y"
    assert not any(n.name.startswith("iadd") for n in gm.graph.nodes)


def test_constant_cuda_arange_is_a_node_that_runs_on_cpu():
    gm = fxgraph.build(CUDA, "cuda.py")
    arange = _nodes(gm)["arange"]
    assert arange.op == "call_function" and arange.target is torch.arange
    assert arange.kwargs["device"] == torch.device("cuda", 0)
    inputs = fxgraph.example_inputs(gm)
    fxgraph.propagate(gm, inputs)
    assert arange.meta["val"].shape == (8,) and arange.meta["val"].device.type == "cpu"
    moved = _nodes(gm)["moved"]
    assert moved.meta["val"].shape == (4, 8)
    assert "tensor_meta" in moved.meta
    x, y = inputs
    assert torch.allclose(moved.meta["val"].float(), ((x * 2 + y) * torch.arange(8)).float(), atol=1e-2)


def test_nodes_keep_exactly_the_names_the_text_gives():
    gm = fxgraph.build(NAMES, "names.py")
    names = [n.name for n in gm.graph.nodes]
    assert names == ["x", "full_default_1", "full_default", "cat", "output"]
    fxgraph.propagate(gm, fxgraph.example_inputs(gm))
    assert _nodes(gm)["cat"].meta["val"].shape == (9,)


def test_symint_placeholder_gets_the_default_hint_or_the_given_value():
    gm = fxgraph.build(SYMINT, "symint.py")
    specs = dict(gm.meta["fusebox_specs"])
    assert isinstance(specs["s10"], SymSpec) and specs["s10"].symbol == "s10"
    assert specs["x"] is None and isinstance(specs["w"], TensorSpec)
    assert dict(gm.meta["fusebox_annotations"])["x"] == "torch.Tensor"
    try:
        fxgraph.example_inputs(gm)
        assert False, "x has no shape"
    except BridgeError as exc:
        assert "input x has no shape annotation" in str(exc)
    given = [{"name": "x", "shape": [2, 4, 2], "dtype": "f32"}]
    s10, x, w = fxgraph.example_inputs(gm, 0, given)
    assert s10 == 8 and list(w.shape) == [8, 4]
    given = [{"name": "s10", "value": 4}, {"name": "x", "shape": [2, 4, 2], "dtype": "torch.float32"}]
    s10, x, w = fxgraph.example_inputs(gm, 0, given)
    assert s10 == 4 and list(w.shape) == [4, 4]  # the symbol's value sizes the annotations too
    fxgraph.propagate(gm, [s10, x, w])
    assert _nodes(gm)["mm"].meta["val"].shape == (4, 4)


def test_given_data_are_the_tensor_values():
    gm = fxgraph.build(SYMINT, "symint.py")
    given = [{"name": "x", "shape": [2, 2], "dtype": "f32", "data": [1, 2, 3, 4]},
             {"name": "w", "shape": [2, 2], "dtype": "f32", "data": [1.0, 0.0, 0.0, 1.0]}]
    s10, x, w = fxgraph.example_inputs(gm, 0, given)
    assert torch.equal(x, torch.tensor([[1.0, 2.0], [3.0, 4.0]])) and torch.equal(w, torch.eye(2))
    try:
        fxgraph.example_inputs(gm, 0, [dict(given[0], data=[1, 2, 3])])
        assert False, "3 values for 4 elements"
    except BridgeError as exc:
        assert "input x: 3 values" in str(exc)


def test_sym_annotation_and_given_shape_imply_the_hint():
    gm = fxgraph.build(SYM, "sym.py")
    primals_1, primals_2 = fxgraph.example_inputs(gm)
    assert primals_1 == 8 and list(primals_2.shape) == [8, 16]
    primals_1, primals_2 = fxgraph.example_inputs(gm, 0, [{"name": "primals_2", "shape": [3, 16], "dtype": "f32"}])
    assert primals_1 == 3
    fxgraph.propagate(gm, [primals_1, primals_2])
    assert _nodes(gm)["view"].meta["val"].shape == (6, 8)


def test_nested_classes_are_submodules_and_one_passed_to_an_op_is_a_get_attr():
    gm = fxgraph.build(NESTED, "nested.py")
    nodes = _nodes(gm)
    assert nodes["y"].op == "call_module" and nodes["y"].target == "inner"
    assert nodes["w"].op == "get_attr" and isinstance(gm.w, torch.Tensor)
    body = nodes["map_impl"].args[0]
    assert body.op == "get_attr" and body.target == "body_0"
    assert isinstance(gm.body_0, torch.fx.GraphModule)
    assert [n.name for n in gm.inner.graph.nodes] == ["x", "relu", "output"]


def test_weights_back_constants():
    weights = {"w": torch.eye(4), "fc.weight": 2 * torch.eye(4)}
    gm = fxgraph.build(WEIGHTS, "w.py", weights=weights)
    nodes = _nodes(gm)
    assert nodes["w"].op == "get_attr" and nodes["fc_weight"].target == "fc.weight"
    assert torch.equal(gm.w, torch.eye(4))
    assert list(gm.other.shape) == [4]  # no weight: random, of its annotation's shape
    x = fxgraph.example_inputs(gm)[0]
    assert torch.allclose(gm(x)[0], 2 * x + gm.other)


def test_a_function_this_torch_lacks_fails_when_it_runs():
    gm = fxgraph.build(MISSING, "missing.py")
    later = _nodes(gm)["later"]
    assert fxgraph.target_name(later) == "torch.frobnicate_from_the_future"
    try:
        fxgraph.propagate(gm, fxgraph.example_inputs(gm))
        assert False, "it ran"
    except BridgeError as exc:
        assert "%later" in str(exc) and "has no torch.frobnicate_from_the_future" in str(exc)


def _quiet_progress():
    server._proto = io.StringIO()  # progress lines go nowhere


def test_inductor_request_runs_a_cuda_graph_on_cpu():
    _quiet_progress()
    config = json.dumps({"pre_grad_fusion_options": {"normalization_pass": {}}})
    result = run_inductor({"graph": CUDA, "config_text": config, "stage": "auto"})
    assert result["stage"] == "pre_grad"
    assert "add_1" in result["graph"] and "arange" in result["graph"]
    assert result["histogram_before"]["_operator.iadd"] == 1
    assert result["histogram_before"]["torch.arange"] == 1


def test_inductor_request_with_a_symint_value():
    _quiet_progress()
    inputs = [{"name": "s10", "value": 2}, {"name": "x", "shape": [1, 8], "dtype": "f32"},
              {"name": "w", "shape": [4, 4], "dtype": "f32"}]
    result = run_inductor({"graph": SYMINT, "config_text": "{}", "stage": "pre_grad", "inputs": inputs})
    assert '"f32[2, 4]' in result["graph"]


def test_propagate_shapes_and_histogram_requests():
    printed = propagate_shapes({"graph": CUDA})["graph"]
    assert 'arange: "i64[8][1]cpu"' in printed
    ops = histogram({"graph": CUDA})
    assert ops["ops"]["_operator.iadd"] == 1


if __name__ == "__main__":
    from _runner import run  # noqa: E402

    run(globals())
