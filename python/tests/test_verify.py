"""Tests of the verifier's shared helpers (python/fusebox_bridge/verify.py):
flatten_outputs, output_names, run_graph, compare_outputs and finite_result,
which export, latency and patterns use too.

Needs a Python with torch >= 2.4 (the pt2 roots; no CUDA needed); run as
test_fxgraph.py says.
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import torch  # noqa: E402

from fusebox_bridge import verify  # noqa: E402


class _TwoOutputs(torch.nn.Module):
    def forward(self, x):
        return (x + 1, {"m": x * 2}, 3)


def test_flatten_outputs_of_nested_tuples_lists_and_dicts():
    a, b, c = torch.zeros(2), torch.ones(3), torch.arange(4)
    flat = verify.flatten_outputs((a, [b, {"k": c}], 2))
    assert len(flat) == 4
    assert flat[0] is a and flat[1] is b and flat[2] is c
    assert isinstance(flat[3], torch.Tensor) and flat[3].dim() == 0 and int(flat[3]) == 2
    assert verify.flatten_outputs(a) == [a]


def test_output_names_and_run_graph_agree():
    gm = torch.fx.symbolic_trace(_TwoOutputs())
    assert verify.output_names(gm) == ["add", "mul", ""]  # the constant 3 has no node
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    outputs = verify.run_graph(gm, [x])
    assert len(outputs) == 3
    assert torch.equal(outputs[0], torch.tensor([2.0, 3.0]))
    assert torch.equal(outputs[1], torch.tensor([2.0, 4.0]))
    assert int(outputs[2]) == 3
    assert not outputs[0].requires_grad  # run under torch.no_grad()


def test_compare_outputs_on_equal_outputs():
    expected = [torch.tensor([1.0, float("nan")]), torch.tensor([5, 6])]
    actual = [torch.tensor([1.0, float("nan")]), torch.tensor([5, 6])]
    result = verify.compare_outputs(expected, actual, ["a", "b"], 1e-4)
    assert result["passed"], result
    assert result["max_abs_diff"] == 0.0 and result["max_rel_diff"] == 0.0
    assert result["message"] == "2 outputs match within 1e-04 + 1e-04*|expected| (max |diff| 0)"


def test_compare_outputs_within_the_tolerance():
    result = verify.compare_outputs([torch.tensor([100.0])], [torch.tensor([100.005])], ["y"], 1e-4)
    assert result["passed"], result
    assert result["worst_output"] == 0 and result["worst_output_name"] == "y"
    assert result["message"].startswith("1 output matches within 1e-04")


def test_compare_outputs_on_unequal_outputs():
    expected = [torch.zeros(2), torch.tensor([[1.0, 2.0], [3.0, 4.0]])]
    actual = [torch.zeros(2), torch.tensor([[1.0, 2.0], [3.0, 4.5]])]
    result = verify.compare_outputs(expected, actual, ["add", "mul"], 1e-4)
    assert not result["passed"]
    assert result["worst_output"] == 1 and result["worst_output_name"] == "mul"
    assert result["max_abs_diff"] == 0.5
    assert result["message"].startswith("output 1 (%mul): max |diff| 5e-01 at index 3 [1, 1] "
                                        "(expected 4, got 4.5)"), result["message"]


def test_compare_outputs_compares_integers_exactly():
    result = verify.compare_outputs([torch.tensor([7])], [torch.tensor([8])], [], 10.0)
    assert not result["passed"]
    assert result["message"].endswith("> 0 (compared exactly)"), result["message"]


def test_compare_outputs_on_a_count_shape_or_dtype_mismatch():
    result = verify.compare_outputs([torch.zeros(2), torch.zeros(2)], [torch.zeros(2)], [], 1e-4)
    assert not result["passed"] and result["message"] == "2 outputs expected, 1 got"
    result = verify.compare_outputs([torch.zeros(2)], [torch.zeros(3)], ["x"], 1e-4)
    assert not result["passed"] and result["message"] == "output 0 (%x): shape [2] expected, [3] got"
    assert math.isinf(result["max_abs_diff"])
    result = verify.compare_outputs([torch.zeros(2)], [torch.zeros(2, dtype=torch.float64)], [], 1e-4)
    assert not result["passed"] and result["message"] == "output 0: dtype f32 expected, f64 got"


def test_finite_result_caps_infinity_and_nan():
    mismatch = verify.compare_outputs([torch.zeros(2)], [torch.zeros(3)], [], 1e-4)
    capped = verify.finite_result(mismatch)
    assert capped is mismatch  # changed in place
    assert capped["max_abs_diff"] == 1e308 and capped["max_rel_diff"] == 0.0
    capped = verify.finite_result({"max_abs_diff": float("nan"), "max_rel_diff": -math.inf})
    assert capped == {"max_abs_diff": 1e308, "max_rel_diff": 1e308}
    assert verify.finite_result({"max_abs_diff": 0.5, "max_rel_diff": 0.25}) == {"max_abs_diff": 0.5,
                                                                                  "max_rel_diff": 0.25}


if __name__ == "__main__":
    from _runner import run  # noqa: E402

    run(globals())
