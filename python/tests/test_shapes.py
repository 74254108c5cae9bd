"""Tests of the bridge's `infer_shapes` (python/fusebox_bridge/shapes.py).

Needs a Python with torch >= 2.4 (the pt2 roots; no CUDA needed). The roots
do not see the repository: copy python/ into one first, e.g.
    cp -r python /root/.cache/fusebox/pt2-root/tmp/fusebox-python
    chroot /root/.cache/fusebox/pt2-root python3 /tmp/fusebox-python/tests/test_shapes.py
or, where pytest is installed, `python3 -m pytest python/tests/test_shapes.py`.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from fusebox_bridge.shapes import infer_shapes  # noqa: E402

GRAPH = '''
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 16][16, 1]cuda:0", w: "f32[8, 16][16, 1]cuda:0", b: "f32[8][1]cuda:0"):
        linear = torch._C._nn.linear(x, w, b);  x = w = b = None
        split = torch.split(linear, [3, 5], dim=1);  linear = None
        getitem = split[0]
        getitem_1 = split[1];  split = None
        cat = torch.cat([getitem_1, getitem], dim=1)
        arange = torch.arange(0, 8, device=device(type='cuda', index=0))
        add = cat + arange
        add += getitem_1.sum()
        add_1 = add
        moved = add_1.to(device(type='cuda', index=0)).cuda()
        size = moved.size(0)
        return (moved, size)
'''

SYMBOLIC = '''
class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "Sym(s52)", primals_2: "f32[s52, 16][16, 1]cpu", primals_3: "f32[s52, 16][16, 1]cpu"):
        mul: "f32[s52, 16]" = torch.ops.aten.mul.Tensor(primals_2, primals_3)
        view: "f32[2*s52, 8]" = torch.ops.aten.view.default(mul, [2 * primals_1, 8])
        slice_1: "f32[((s52 + 1)//2), 16]" = torch.ops.aten.slice.Tensor(mul, 0, 0, 9223372036854775807, 2)
        return (view, slice_1)
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

BROKEN = '''
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 4][4, 1]cpu", y):
        bad = torch.ops.aten.mm.default(x, torch.ones(3, 3))
        after = bad + 1
        fine = x * 2
        from_y = y + fine
        return (after, fine, from_y)
'''


def test_linear_split_cat_arange_on_cuda():
    result = infer_shapes({"graph": GRAPH, "source_name": "tiny.py"})
    values = result["values"]
    assert values["x"] == "f32[4, 16][16, 1]cuda:0"
    assert values["linear"] == "f32[4, 8][8, 1]cuda:0"
    assert values["split"] is None  # a tuple: its getitems carry the shapes
    assert values["getitem"] == "f32[4, 3][8, 1]cuda:0"
    assert values["getitem_1"] == "f32[4, 5][8, 1]cuda:0"
    assert values["cat"] == "f32[4, 8][8, 1]cuda:0"
    assert values["arange"] == "i64[8][1]cuda:0"
    assert values["add"] == "f32[4, 8][8, 1]cuda:0"
    assert values["add_1"] == "f32[4, 8][8, 1]cuda:0"  # `add += ...; add_1 = add`: one iadd node
    assert values["moved"] == "f32[4, 8][8, 1]cuda:0"
    assert values["size"] is None  # an int
    assert result["failed"] == []
    assert result["unknown"] == 0
    assert result["inferred"] == len(values) - 2


AUTOCAST = '''
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 16][16, 1]cuda:0", w: "f32[8, 16][16, 1]cuda:0"):
        _enter_autocast = torch.amp.autocast_mode._enter_autocast('cuda', torch.bfloat16, True, None)
        linear = torch._C._nn.linear(x, w);  x = w = None
        _exit_autocast = torch.amp.autocast_mode._exit_autocast(_enter_autocast);  _enter_autocast = None
        return (linear,)
'''


def test_autocast_for_cuda_runs_on_cpu():
    result = infer_shapes({"graph": AUTOCAST, "source_name": "autocast.py"})
    assert result["failed"] == []
    assert result["values"]["linear"] == "bf16[4, 8][8, 1]cuda:0"


def test_given_inputs_override_annotations():
    inputs = [{"name": "x", "shape": [2, 16], "dtype": "f32", "device": "cpu"},
              {"name": "w", "shape": [8, 16], "dtype": "f32", "device": "cpu"},
              {"name": "b", "shape": [8], "dtype": "f32", "device": "cpu"}]
    result = infer_shapes({"graph": GRAPH.replace("cuda:0", "cpu").replace("'cuda'", "'cpu'"),
                           "source_name": "tiny.py", "inputs": inputs})
    assert result["values"]["cat"] == "f32[2, 8][8, 1]cpu"


def test_symbolic_sizes_keep_the_graph_names():
    values = infer_shapes({"graph": SYMBOLIC, "source_name": "sym.py"})["values"]
    assert values["primals_2"] == "f32[s52, 16][16, 1]cpu"
    assert values["mul"] == "f32[s52, 16][16, 1]cpu"
    assert values["view"] == "f32[2*s52, 8][8, 1]cpu"
    assert values["slice_1"] == "f32[((s52 + 1)//2), 16][32, 1]cpu"


def test_nodes_keep_the_names_the_text_gives():
    values = infer_shapes({"graph": NAMES, "source_name": "names.py"})["values"]
    assert values["full_default_1"] == "f32[2][1]cpu"
    assert values["full_default"] == "f32[3][1]cpu"
    assert values["cat"] == "f32[9][1]cpu"


def test_failures_and_unknown_inputs_stay_local():
    result = infer_shapes({"graph": BROKEN, "source_name": "broken.py"})
    values = result["values"]
    assert [f["name"] for f in result["failed"]] == ["bad"]
    assert result["failed"][0]["target"] == "torch.ops.aten.mm.default"
    assert "\n" not in result["failed"][0]["message"]
    assert values["bad"] is None and values["after"] is None
    assert values["fine"] == "f32[4, 4][4, 1]cpu"
    assert values["y"] is None and values["from_y"] is None
    assert result["unknown"] == 4  # y, bad, after, from_y


if __name__ == "__main__":
    from _runner import run  # noqa: E402

    run(globals())
