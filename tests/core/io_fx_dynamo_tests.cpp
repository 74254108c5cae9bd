// The forms real PT2 dumps are written in (issue 12's corpus: Dynamo graphs,
// depyf output, GraphNet model.py, TORCH_COMPILE_DEBUG runs, tensor-parallel
// AOT graphs), each on a fixture written for it: the ops read, and the exact
// error of a broken form.

#include "FxTestSupport.h"

#include "core/io/GraphNetMeta.h"
#include "core/io/WarningSummary.h"
#include "core/rewrite/MatchUtils.h"

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <catch.hpp>

using namespace fusebox;
using namespace fusebox::fxtest;

namespace {

/// Reads (by the name rules alone unless schemas are given) and expects no warning.
LoadedModel readClean(const std::string &text, const OpSchemaRegistry *schemas = nullptr)
{
    LoadedModel m = read(text, {schemas, "m.py"});
    INFO((m.warnings.empty() ? std::string() : m.warnings.front()));
    CHECK(m.warnings.empty());
    return m;
}

size_t countOp(const Graph &g, const std::string &op)
{
    size_t n = 0;
    for (NodeId id : g.nodeIds())
        n += g.node(id)->op == op;
    return n;
}

} // namespace

TEST_CASE("Dynamo: Python-type annotations type the inputs", "[io][fx][dynamo]")
{
    // GraphNet model.py / Dynamo: black's multi-line signature, Python types.
    LoadedModel m = readClean(R"FX(import torch

from torch import device


class GraphModule(torch.nn.Module):
    def forward(
        self,
        L_x_: torch.Tensor,
        L_self_modules_fc_parameters_weight_: torch.nn.parameter.Parameter,
        s0: torch.SymInt,
    ):
        l_x_ = L_x_
        linear = torch._C._nn.linear(l_x_, L_self_modules_fc_parameters_weight_, None)
        l_x_ = L_self_modules_fc_parameters_weight_ = None
        return (linear,)
)FX");
    const Graph &g = m.graph;
    CHECK(node(g, "L_x_").type == "Tensor");
    CHECK(!node(g, "L_x_").meta.isKnown());
    CHECK(node(g, "L_self_modules_fc_parameters_weight_").type == "Tensor");
    CHECK(node(g, "s0").type == "SymInt");
    CHECK(node(g, "linear").op == "aten::linear");
    CHECK(node(g, "linear").provenance.originalSpelling == "torch._C._nn.linear");
}

TEST_CASE("Dynamo: chained, augmented and subscript assignment", "[io][fx][dynamo]")
{
    LoadedModel m = readClean(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[8, 8]", L_y_: "f32[8, 8]"):
        out_7 = L_x_.clone()
        out_7 += L_y_
        attn_mask = out_7.new_zeros((8, 8))
        attn_mask[(slice(0, -2, None), slice(0, -2, None))] = 0
        setitem = attn_mask
        setitem = None
        attn_mask[(slice(0, -2, None), slice(-2, None, None))] = 1
        mask = attn_mask
        a = b = None
        return (out_7, mask)
)FX");
    const Graph &g = m.graph;
    CHECK(node(g, "out_7_1").op == "aten::add"); // the augmented assignment's value
    CHECK(countOp(g, std::string(ops::kSetItem)) == 2);
    std::vector<NodeId> outs = g.outputValues();
    REQUIRE(outs.size() == 2);
    CHECK(g.node(outs[1])->name == "attn_mask"); // the mutated tensor, read after its setitems
    // Round trip through the writer: operator.setitem(...) reads back the same.
    checkRoundTrip(writeFxText(g));
}

TEST_CASE("Dynamo: value releases after a semicolon read as on a line of their own", "[io][fx][dynamo]")
{
    // The tokenizer skips `;  a = b = None` (FxTokenizer.cpp's
    // skipValueRelease); on a line of its own the parser skips it. Both must
    // give the same graph, and a use after the release still reads the value
    // (the reader builds nothing for a release, as before the skip).
    const std::string inline_ = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[8, 8]", L_y_: "f32[8, 8]"):
        l_x_ = L_x_;  L_x_ = None
        relu: "f32[8, 8]" = torch.relu(l_x_);  l_x_ = None	# type: Tensor
        add: "f32[8, 8]" = relu + L_y_;  relu = L_y_ = None;  x = None
        again: "f32[8, 8]" = torch.relu(relu);  add_1 = add = None
        return (add, again)
)FX";
    const std::string ownLines = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[8, 8]", L_y_: "f32[8, 8]"):
        l_x_ = L_x_
        L_x_ = None
        relu: "f32[8, 8]" = torch.relu(l_x_)	# type: Tensor
        l_x_ = None
        add: "f32[8, 8]" = relu + L_y_
        relu = L_y_ = None
        x = None
        again: "f32[8, 8]" = torch.relu(relu)
        add_1 = add = None
        return (add, again)
)FX";
    LoadedModel a = readClean(inline_);
    LoadedModel b = readClean(ownLines);
    CHECK_FALSE(firstDifference(a.graph, b.graph).has_value());
    CHECK(countOp(a.graph, "aten::relu") == 2);
    CHECK(a.graph.size() == 6); // 2 inputs, 3 ops, the output
    // A keyword target is left to the parser, which reads the release as
    // before (it builds nothing for `... = None`).
    CHECK(readClean("class GraphModule(torch.nn.Module):\n"
                    "    def forward(self, x):\n"
                    "        y = torch.relu(x);  None = x = None\n"
                    "        return (y,)\n")
              .graph.size()
          == 3);
    // A statement after releases keeps its place; a release before a form
    // feed (not skipped by the tokenizer) is skipped by the parser.
    LoadedModel d = readClean("class GraphModule(torch.nn.Module):\n"
                              "    def forward(self, x):\n"
                              "        y = torch.relu(x);  x = None;  z = torch.relu(y);  y = None\n"
                              "        return (z,)\n");
    CHECK(countOp(d.graph, "aten::relu") == 2);
    LoadedModel c = readClean("class GraphModule(torch.nn.Module):\n"
                              "    def forward(self, x):\n"
                              "        y = torch.relu(x);  x = None\f\n"
                              "        return (x, y)\n");
    CHECK(c.graph.outputValues().size() == 2);
}

TEST_CASE("Dynamo: comparison and bitwise operators", "[io][fx][dynamo]")
{
    LoadedModel m = readClean(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4]", y: "f32[4]"):
        lt = x < 0.5
        gt = x > y
        le = x <= 0.0031622776601683794
        ge = x >= y
        eq = x == y
        ne = x != y
        both = lt & gt
        either = le | ge
        one = eq ^ ne
        prec = x + y < y * 2
        return (both, either, one, prec)
)FX");
    const Graph &g = m.graph;
    CHECK(node(g, "lt").op == "aten::lt");
    CHECK(node(g, "gt").op == "aten::gt");
    CHECK(node(g, "le").op == "aten::le");
    CHECK(node(g, "ge").op == "aten::ge");
    CHECK(node(g, "eq").op == "aten::eq");
    CHECK(node(g, "ne").op == "aten::ne");
    CHECK(node(g, "both").op == "aten::bitwise_and");
    CHECK(node(g, "either").op == "aten::bitwise_or");
    CHECK(node(g, "one").op == "aten::bitwise_xor");
    // '<' binds looser than '+' and '*', as in Python.
    const Node &prec = node(g, "prec");
    CHECK(prec.op == "aten::lt");
    CHECK(g.node(prec.args()[0].node())->op == "aten::add");
    CHECK(g.node(prec.args()[1].node())->op == "aten::mul");
    checkRoundTrip(writeFxText(g));
}

TEST_CASE("Dynamo: Ellipsis, dicts, slices and devices", "[io][fx][dynamo]")
{
    LoadedModel m = readClean(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 3, 4]"):
        last = x[(Ellipsis, -1)]
        cols = x[(slice(None, None, None), slice(0, 2, None))]
        cuda = torch.ones([2], device = device(type='cuda', index=0))
        kw = torch.ops.higher_order.triton_kernel_wrapper_mutation(kernel_idx = 0, constant_args_idx = 1, grid = [(1, 1, 1)], kwargs = {'in_ptr0': x, 'out_ptr0': last})
        inf_ = torch.full([2], inf)
        nan_ = torch.full([2], nan)
        return (last, cols, cuda, inf_, nan_)
)FX");
    const Graph &g = m.graph;
    const Node &last = node(g, "last");
    CHECK(last.op == "operator.getitem");
    CHECK(args(g, last) == "x, (Ellipsis, -1)");
    CHECK(node(g, "cols").op == "aten::slice");
    CHECK(args(g, node(g, "cuda")).find("device(type='cuda', index=0)") != std::string::npos);
    CHECK(args(g, node(g, "kw")).find("kwargs={'in_ptr0': x, 'out_ptr0': last}") != std::string::npos);
}

TEST_CASE("Dynamo: a tensor subscript reads as slice/select steps and writes back as one getitem", "[io][fx][dynamo]")
{
    const std::string text = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 8, 4]"):
        h = x[(slice(None, None, None), slice(None, 4, None))]
        r = x[(0, slice(2, None, None), -1)]
        again = h[(slice(1, None, None),)]
        return (h, r, again)
)FX";
    LoadedModel m = readClean(text);
    const Graph &g = m.graph;
    // x[:, :4]: two slices; the last is named and holds the index as written.
    const Node &h = node(g, "h");
    CHECK(h.op == "aten::slice");
    CHECK(args(g, h).starts_with("slice_1, 1, 0, 4"));
    CHECK(h.provenance.originalSpelling == "operator.getitem");
    CHECK_FALSE(h.provenance.writtenArgs.empty());
    // The subscripted value is x for h and r, and h for `again` (a second subscript).
    CHECK(subscriptParent(g, h.id()) == g.findByName("x"));
    CHECK(subscriptParent(g, node(g, "r").id()) == g.findByName("x"));
    CHECK(subscriptParent(g, node(g, "again").id()) == h.id());
    CHECK_FALSE(subscriptParent(g, g.findByName("slice_1")).isValid());
    // Written back as Dynamo wrote it, one line per subscript.
    const std::string written = writeFxText(g);
    INFO(written);
    CHECK(written.find("h = x[:, :4]") != std::string::npos);
    CHECK(written.find(" = x[0, 2:, -1]") != std::string::npos);
    CHECK(written.find(" = h[1:]") != std::string::npos);
    CHECK(written.find("aten.slice") == std::string::npos);
    checkRoundTrip(text);
}

TEST_CASE("Dynamo: context and runtime calls stay nodes, in order, without warnings", "[io][fx][dynamo]")
{
    LoadedModel m = readClean(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4]", s52: "Sym(s52)", s77: "Sym(8*s77)"):
        _enter_autocast = torch.amp.autocast_mode._enter_autocast('cuda', torch.bfloat16, True, None)
        _set_grad_enabled = torch._C._set_grad_enabled(False)
        _vmap_increment_nesting = torch._C._functorch._vmap_increment_nesting(4, 'error')
        stream = torch.cuda.streams.Stream(stream_id = 3, device_index = 0, device_type = 1)
        total = torch.sym_sum([s52, 1])
        _check_is_size = torch._check_is_size(s52)
        ge = s52 >= 0
        _assert_scalar = torch.ops.aten._assert_scalar.default(ge, "Runtime assertion failed")
        y = torch.relu(x)
        _exit_autocast = torch.amp.autocast_mode._exit_autocast(_enter_autocast)
        return (y,)
)FX");
    const Graph &g = m.graph;
    CHECK(node(g, "_enter_autocast").op == "torch.amp.autocast_mode._enter_autocast");
    CHECK(node(g, "_set_grad_enabled").op == "torch._C._set_grad_enabled");
    CHECK(node(g, "_vmap_increment_nesting").op == "torch._C._functorch._vmap_increment_nesting");
    CHECK(node(g, "stream").op == "torch.cuda.streams.Stream");
    CHECK(node(g, "total").op == "torch.sym_sum");
    CHECK(node(g, "_check_is_size").op == "torch._check_is_size");
    CHECK(node(g, "s77").type == "SymInt");
    CHECK(node(g, "s77").provenance.originalSpelling == "Sym(8*s77)");
    // In order: the exit comes after the relu it brackets.
    CHECK(node(g, "_exit_autocast").id().value > node(g, "y").id().value);
}

TEST_CASE("Dynamo: wrapped-number scalars in Tensor arguments are normal input", "[io][fx][dynamo]")
{
    LoadedModel m = readClean(R"FX(class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[4]"):
        mul = torch.ops.aten.mul.Tensor(arg0_1, 0.5)
        sub = torch.ops.aten.sub.Tensor(1, mul)
        add = torch.ops.aten.add.Tensor(sub, True)
        return (add,)
)FX",
                              &testSchemas());
    const Graph &g = m.graph;
    CHECK(node(g, "mul").qualifiedOp() == "aten::mul.Tensor");
    CHECK(args(g, node(g, "mul")) == "arg0_1, 0.5");
    CHECK(args(g, node(g, "sub")) == "1, mul");
    // Without a named overload `x + 1` still chooses add.Scalar, as TorchScript records it.
    LoadedModel infix = readClean(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4]"):
        add = x + 1
        return (add,)
)FX",
                                  &testSchemas());
    CHECK(node(infix.graph, "add").qualifiedOp() == "aten::add.Scalar");
}

TEST_CASE("Dynamo: torch.nn.functional calls map to ATen with the Python signature bound", "[io][fx][dynamo]")
{
    const OpSchemaRegistry &base = testSchemas();
    OpSchemaRegistry schemas = base;
    schemas.add(schema("aten::batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
                       "Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled)"));
    schemas.add(schema("aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
                       "int[2] dilation=1, bool ceil_mode=False)"));
    schemas.add(schema("aten::dropout_(Tensor self, float p, bool train)"));
    const char *text = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 3, 8, 8]", mean: "f32[3]", var: "f32[3]", w: "f32[3]", b: "f32[3]"):
        bn = torch.nn.functional.batch_norm(x, mean, var, w, b, False, 0.1, 1e-05)
        pool = torch.nn.functional.max_pool2d(bn, 3, 2, 1, 1, ceil_mode = False, return_indices = False)
        drop = torch.nn.functional.dropout(pool, 0.1, False, False)
        drop_ = torch.nn.functional.dropout(drop, 0.2, True, True)
        up = torch.nn.functional.interpolate(drop_, scale_factor = 2.0, mode = 'nearest')
        return (up,)
)FX";
    LoadedModel m = read(text, {&schemas, "m.py"});
    CHECK(m.warnings.empty());
    const Graph &g = m.graph;
    CHECK(node(g, "bn").op == "aten::batch_norm");
    CHECK(args(g, node(g, "bn")) == "x, w, b, mean, var, False, 0.1, 1e-05, True");
    CHECK(node(g, "bn").provenance.originalSpelling == "torch.nn.functional.batch_norm");
    CHECK(node(g, "pool").op == "aten::max_pool2d");
    CHECK(args(g, node(g, "pool")) == "bn, [3, 3], [2, 2], [1, 1], [1, 1], False");
    CHECK(args(g, node(g, "drop")) == "pool, 0.1, False");
    CHECK(node(g, "drop_").op == "aten::dropout_");
    CHECK(node(g, "up").op == "torch.nn.functional.interpolate"); // Python-only: kept by its spelling
    // Written back in Python's argument order, so PyTorch runs the text.
    const std::string written = writeFxText(g);
    INFO(written);
    CHECK(written.find("torch.nn.functional.batch_norm(x, mean, var, w, b, False, 0.1, 1e-05)") != std::string::npos);
    CHECK(written.find("torch.nn.functional.dropout(drop, 0.2, True, inplace = True)") != std::string::npos);
    checkRoundTrip(text, &schemas);
}

TEST_CASE("Dynamo: torch.einsum(equation, *operands) is kept as written, silently", "[io][fx][dynamo]")
{
    // Python varargs: no ATen schema takes them (aten::einsum wants a list).
    // Inductor 2.14's einsum_to_pointwise_pass matches torch.functional.einsum
    // itself, so the node keeps that name, shaped or not, and nothing warns.
    OpSchemaRegistry schemas = testSchemas();
    schemas.add(schema("aten::einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor"));
    for (const char *annotation : {"torch.Tensor", "\"f32[19]\""}) {
        INFO(annotation);
        const std::string text = std::string(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, t: )FX") + annotation
                                 + ", w: " + annotation + R"FX():
        freqs = torch.functional.einsum("i,j->ij", t, w)
        return (freqs,)
)FX";
        LoadedModel m = readClean(text, &schemas);
        CHECK(node(m.graph, "freqs").op == "torch.functional.einsum");
        CHECK(args(m.graph, node(m.graph, "freqs")) == "'i,j->ij', t, w");
        checkRoundTrip(text, &schemas);
    }
}

TEST_CASE("Dump wrappers: lambda classes, bare defs, nested classes, headers", "[io][fx][dynamo]")
{
    // 2023-24 depyf: a bare module-level def after a __future__ import.
    LoadedModel bare = readClean(R"FX(from __future__ import annotations



def forward(self, L_a_ : torch.Tensor, L_b_ : torch.Tensor):
    l_a_ = L_a_
    abs_1 = torch.abs(l_a_)
    add = abs_1 + 1
    return (add,)
)FX");
    CHECK(node(bare.graph, "abs_1").op == "aten::abs");

    // Entangle: a license header, type stubs and a "# Graph[rank=0]" comment before the class.
    LoadedModel wrapped = readClean(R"FX(# Copyright (c) 2025 Example Authors
# SPDX-License-Identifier: Apache-2.0
b8: type
f32: type

# Graph[rank=0]
class <lambda>(torch.nn.Module):
    def forward(self, primals_1: "f32[10]"):
        relu = torch.ops.aten.relu.default(primals_1)
        return (relu,)
)FX");
    CHECK(node(wrapped.graph, "relu").op == "aten::relu");

    // Thunder's split: submodule classes nested three deep, flattened.
    LoadedModel nested = read(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4]"):
        thunder_0 = self.thunder_0(x)
        return (thunder_0,)

    class thunder_0(torch.nn.Module):
        def forward(self, x: "f32[4]"):
            inner = self.inner(x)
            return inner

        class inner(torch.nn.Module):
            def forward(self, x: "f32[4]"):
                deepest = self.deepest(x)
                return deepest

            class deepest(torch.nn.Module):
                def forward(self, x: "f32[4]"):
                    relu = torch.relu(x)
                    return relu
)FX");
    CHECK(countOp(nested.graph, "aten::relu") == 1);
    CHECK(node(nested.graph, "thunder_0_inner_deepest_relu").provenance.scope == "thunder_0.inner.deepest");
    CHECK(nested.warnings
          == std::vector<std::string>{"m.py:3: 3 × nested GraphModule calls read inline, each a module "
                                      "group of its own: self.thunder_0, self.thunder_0.inner, "
                                      "self.thunder_0.inner.deepest"});
}

TEST_CASE("AOT joint graphs: annotation-only statements and pytree flattening", "[io][fx][dynamo]")
{
    LoadedModel m = readClean(R"FX(class joint_helper(torch.nn.Module):
    def forward(self, primals, tangents):
        primals_1: "f32[10]"; primals_2: "f32[10]"; tangents_1: "f32[10]";

        primals_1, primals_2, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)
        mul = torch.ops.aten.mul.Tensor(primals_1, primals_2)
        mul_1 = torch.ops.aten.mul.Tensor(tangents_1, primals_2)
        return pytree.tree_unflatten([mul, mul_1], self._out_spec)
)FX");
    const Graph &g = m.graph;
    REQUIRE(g.inputs().size() == 3);
    CHECK(node(g, "primals_1").meta.toString() == "f32[10]");
    CHECK(g.outputValues().size() == 2);
}

TEST_CASE("Warnings fall into kinds with a count and a first place", "[io][fx][dynamo]")
{
    LoadedModel m = read(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4]"):
        a = torch.ops.prims.iota.default(4, start = 0, step = 1, dtype = torch.int64, device = device(type='cpu'), requires_grad = False)
        b = torch.ops.prims.iota.default(4, start = 0, step = 1, dtype = torch.int64, device = device(type='cpu'), requires_grad = False)
        c = torch.ops.vllm.rotary.default(x)
        d = self.leaf(x)
        e = self.leaf2(d)
        return (a, b, c, e)
)FX",
                         {&testSchemas(), "model.py"});
    const std::vector<std::string> expected = {
        "model.py:3: 2 × ops without a schema in libtorch 1.13, arguments kept as written: prims::iota ×2",
        "model.py:5: 1 × custom ops (no schema), arguments kept as written: vllm::rotary",
        "model.py:6: 2 × module calls without a class in the dump, imported as opaque nodes: self.leaf, self.leaf2",
    };
    CHECK(m.warnings == expected);
    std::vector<WarningGroup> groups = groupWarnings(m.warnings);
    REQUIRE(groups.size() == 3);
    CHECK(formatWarningGroup(groups[0])
          == "2 × ops without a schema in libtorch 1.13, arguments kept as written (first at model.py:3)");
    // Per-node warnings of one kind group by their message without the varying values.
    std::vector<WarningGroup> perNode = groupWarnings({"m.py:28: aten::mul.Tensor: argument 'other' of type Tensor "
                                                       "does not take [1]; arguments kept as written",
                                                       "m.py:31: aten::mul.Tensor: argument 'other' of type Tensor "
                                                       "does not take [2, 3]; arguments kept as written"});
    REQUIRE(perNode.size() == 1);
    CHECK(formatWarningGroup(perNode[0])
          == "2 × aten::mul.Tensor: argument '…' of type Tensor does not take …; arguments kept as written "
             "(first at m.py:28)");
    // Each node knows the dump line it came from, for the Problems panel.
    CHECK(m.nodeLines.at(node(m.graph, "c").id().value) == 5);
}

TEST_CASE("Broken forms of the new syntax: file:line:column, never a crash", "[io][fx][dynamo]")
{
    const std::string head = "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[4]\"):\n";
    CHECK(errorOf(head + "        x[0] += 1\n        return (x,)\n")
          == "bad.py:3:14: expected a name before '+=', found '+='");
    CHECK(errorOf(head + "        1 = x\n        return (x,)\n")
          == "bad.py:3:9: expected a name or names to assign to, found an expression");
    CHECK(errorOf(head + "        y = x < \n        return (y,)\n")
          == "bad.py:3:17: expected a value, found end of line");
    CHECK(errorOf(head + "        y = {1: x}\n        return (y,)\n")
          == "bad.py:3:14: expected a dictionary key or '}', found '1'");
    CHECK(errorOf(head + "        x[0] = \n        return (x,)\n")
          == "bad.py:3:16: expected a value, found end of line");
    CHECK(errorOf("class GraphModule(torch.nn.Module):\n    def forward(self, x: torch.Tensr):\n        return (x,)\n")
              .starts_with("bad.py:2:26: expected a dtype abbreviation"));

    // Every prefix of a dump using all the new forms reads or fails with a position.
    const std::string full = head + R"FX(        lt = x < 0.5
        m = lt | (x >= 1)
        x[(Ellipsis, slice(0, 2, None))] = 0
        d = torch.ops.higher_order.triton_kernel_wrapper_mutation(kwargs = {'a': x})
        a = b = None
        return (m,)
)FX";
    for (size_t n = 0; n <= full.size(); ++n) {
        auto result = readFxText(full.substr(0, n), {&testSchemas(), "cut.py"});
        if (!result) {
            INFO(result.error().message);
            CHECK(result.error().message.starts_with("cut.py:"));
        }
    }
}

TEST_CASE("GraphNet: input shapes come from weight_meta.py and input_meta.py", "[io][fx][dynamo][graphnet]")
{
    auto metas = parseGraphNetMeta(R"PY(class Program_weight_tensor_meta_L_x_:
    name = "L_x_"
    shape = [1, 3, 224, 224]
    dtype = "torch.float32"
    device = "cuda:0"
    mean = 0.000
    std = 1.000
    data = None


class Program_weight_tensor_meta_s0:
	name = "s0"
	shape = []
	dtype = "torch.int64"
	data = [32]
)PY",
                                   "weight_meta.py");
    REQUIRE(metas.hasValue());
    REQUIRE(metas->count("L_x_"));
    CHECK(metas->at("L_x_").toString() == "f32[1, 3, 224, 224]");
    CHECK(metas->at("L_x_").device == "cuda:0");
    CHECK(metas->at("s0").toString() == "i64[]");

    // The forms 13 of GraphNet's 22 weight_meta.py files use (issue 35): a
    // data list over many lines, a long name wrapped in parentheses, a
    // wrapped shape, tabs, comments after a value.
    auto wrapped = parseGraphNetMeta(R"PY(class Program_weight_tensor_meta_L_input_ids_:
    name = "L_input_ids_"
    shape = [1, 19]
    dtype = "torch.int64"
    device = "cpu"
    mean = None
    std = None
    data = [
        9856,
        23,
    ]


class Program_weight_tensor_meta_L_self_modules_transformer_modules_h_modules_0_modules_self_attention_modules_query_key_value_parameters_weight_:
    name = (
        "L_self_modules_transformer_modules_h_modules_0_modules_self_attention_"
        'modules_query_key_value_parameters_weight_'
    )
    shape = [
        24,
        8,
    ]  # (3 * heads * head_dim, hidden)
    dtype = "torch.float16"
    device = "cuda:0"
    data = None
)PY",
                                     "weight_meta.py");
    REQUIRE(wrapped.hasValue());
    CHECK(wrapped->size() == 2);
    CHECK(wrapped->at("L_input_ids_").toString() == "i64[1, 19]");
    const std::string longName = "L_self_modules_transformer_modules_h_modules_0_modules_self_attention_modules_query_"
                                 "key_value_parameters_weight_";
    REQUIRE(wrapped->count(longName));
    CHECK(wrapped->at(longName).toString() == "f16[24, 8]");
    CHECK(wrapped->at(longName).device == "cuda:0");
    auto unclosed
        = parseGraphNetMeta("class Program_weight_tensor_meta_w:\n    name = \"w\"\n    data = [\n        1,\n",
                            "wm.py");
    REQUIRE_FALSE(unclosed.hasValue());
    CHECK(unclosed.error().message.starts_with("wm.py:3: expected a closing bracket for 'data = ["));

    auto bad = parseGraphNetMeta("class Program_weight_tensor_meta_w:\n    name = \"w\"\n    shape = [3, x]\n",
                                 "wm.py");
    REQUIRE_FALSE(bad.hasValue());
    CHECK(bad.error().message == "wm.py:3: expected a shape such as [1, 3, 224, 224], found 'shape = [3, x]'");

    // Beside a model.py: the inputs without shapes take them.
    const auto dir = std::filesystem::temp_directory_path() / ("fusebox-graphnet-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string model = (dir / "model.py").string();
    {
        std::ofstream(model) << "import torch\n\nclass GraphModule(torch.nn.Module):\n"
                                "    def forward(self, L_x_: torch.Tensor, L_w_: torch.nn.parameter.Parameter):\n"
                                "        mm = torch.matmul(L_x_, L_w_)\n        return (mm,)\n";
        std::ofstream(dir / "input_meta.py") << "class Program_weight_tensor_meta_L_x_:\n    name = \"L_x_\"\n"
                                                "    shape = [2, 8]\n    dtype = \"torch.float32\"\n";
        std::ofstream(dir / "weight_meta.py") << "class Program_weight_tensor_meta_L_w_:\n    name = \"L_w_\"\n"
                                                 "    shape = [8, 4]\n    dtype = \"torch.bfloat16\"\n";
    }
    auto read = readFxTextFile(model);
    REQUIRE(read.hasValue());
    applyGraphNetMeta(*read, model);
    CHECK(read->warnings.empty());
    CHECK(node(read->graph, "L_x_").meta.toString() == "f32[2, 8]");
    CHECK(node(read->graph, "L_w_").meta.toString() == "bf16[8, 4]");
    std::filesystem::remove_all(dir);
}

TEST_CASE("Dynamo: an int argument chooses the int overload over an unsized int[] one", "[io][fx][dynamo]")
{
    // Python's argument parser takes torch.movedim(x, 1, 0) as movedim.int;
    // only a sized list (int[1] dim) takes a bare int.
    LoadedModel m = readClean(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 3, 4]"):
        a: "f32[3, 2, 4]" = torch.movedim(x, 1, 0)
        b: "f32[3, 2, 4]" = torch.movedim(x, [1], [0])
        c: "f32[2, 4]" = torch.sum(x, 1)
        return (a, b, c)
)FX",
                              &testSchemas());
    CHECK(node(m.graph, "a").overload == "int");
    CHECK(node(m.graph, "b").overload == "intlist");
    CHECK(node(m.graph, "c").overload == "dim_IntList");
}

TEST_CASE("Dynamo: a Python-only functional reads in one form, positional or by keyword", "[io][fx][dynamo]")
{
    // Dynamo writes F.embedding_bag positionally; Inductor's passes, having
    // normalised the call, by keyword. Both read as every parameter
    // positional, defaults filled.
    LoadedModel m = readClean(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, i: "i64[20]", w: "f32[50, 16]", o: "i64[4]"):
        a: "f32[4, 16]" = torch.nn.functional.embedding_bag(i, w, o, None, 2.0, False, 'sum', False, None, False, None)
        b: "f32[4, 16]" = torch.nn.functional.embedding_bag(i, w, offsets = o, mode = 'sum')
        return (a, b)
)FX");
    const Node &a = node(m.graph, "a"), &b = node(m.graph, "b");
    CHECK(a.op == "torch.nn.functional.embedding_bag");
    CHECK(a.args().size() == 11);
    CHECK(b.kwargs().empty());
    CHECK(a.args() == b.args());
    CHECK(b.args()[6] == Arg(std::string("sum")));
}
