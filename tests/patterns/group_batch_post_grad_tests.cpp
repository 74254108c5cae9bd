// Post-grad fusions: batch_linear_post_grad, batch_aten_{tanh,sigmoid,relu},
// batch_aten_{add,sub,mul,div}, and group_linear (listed, unavailable).

#include "core/ir/GraphBuilder.h"
#include "patterns/GroupBatchTestSupport.h"

#include "patterns/group_batch/PostGradLinear.h"
#include "patterns/group_batch/PostGradPointwise.h"

using namespace fusebox;
using namespace fusebox::test::gb;
using group_batch::BatchPointwiseMathOpsPostGradFusion;
using group_batch::BatchPointwiseOpsPostGradFusion;
using group_batch::GroupLinearFusion;
using group_batch::PostGradBatchLinearFusion;
using AtenUnary = BatchPointwiseOpsPostGradFusion::Op;
using AtenBinary = BatchPointwiseMathOpsPostGradFusion::Op;

namespace {

/// Requires that `cat` is cat([unsqueeze(items[i], 0)...], 0).
void requireDecomposedStack(const Graph &g, const Node &cat, const std::vector<NodeId> &items, const std::string &shape)
{
    REQUIRE(cat.op == "aten::cat");
    REQUIRE(cat.args()[1].asInt() == 0);
    REQUIRE(cat.meta.shapeString() == shape);
    std::vector<NodeId> parts = listArg(cat, 0);
    REQUIRE(parts.size() == items.size());
    for (size_t i = 0; i < parts.size(); ++i) {
        const Node &u = *g.node(parts[i]);
        REQUIRE(u.op == "aten::unsqueeze");
        REQUIRE(u.args()[0].node() == items[i]);
        REQUIRE(u.args()[1].asInt() == 0);
    }
}

std::vector<NodeId> namedSeries(const Graph &g, const std::string &prefix, int n)
{
    std::vector<NodeId> ids;
    for (int i = 0; i < n; ++i)
        ids.push_back(g.findByName(prefix + std::to_string(i)));
    return ids;
}

/// Requires the outputs to be select.int(batched, 0, i), in order.
void requireOutputsAreSelects(const Graph &g, NodeId batched, size_t n, const std::string &shape)
{
    auto outs = g.outputValues();
    REQUIRE(outs.size() == n);
    for (size_t i = 0; i < n; ++i) {
        const Node &s = *g.node(outs[i]);
        REQUIRE(s.qualifiedOp() == "aten::select.int");
        REQUIRE(s.args()[0].node() == batched);
        REQUIRE(s.args()[1].asInt() == 0);
        REQUIRE(s.args()[2].asInt() == static_cast<int64_t>(i));
        REQUIRE(s.meta.shapeString() == shape);
    }
}

} // namespace

TEST_CASE("batch_linear_post_grad fuses addmms into one bmm plus per-slice bias adds", "[patterns]")
{
    PostGradBatchLinearFusion pattern;
    REQUIRE(pattern.stage() == PassStage::PostGrad);
    REQUIRE(pattern.benefit() == 16);
    GroupGraph r = mmGraph(5, true);
    Graph &g = r.graph;
    REQUIRE(keyOf(g, pattern, r.members[0]) == "input [4, 8] · weight [8, 6] · bias");
    FusionGroup group = singleGroup(g, pattern);
    REQUIRE(group.members == r.members);
    fuseAndVerify(g, pattern, group.members);

    REQUIRE(opsNamed(g, "aten::addmm").empty());
    const Node &bmm = onlyOp(g, "aten::bmm");
    REQUIRE(bmm.meta.shapeString() == "[5, 4, 6]");
    requireDecomposedStack(g, argNode(g, bmm, 0), namedSeries(g, "x", 5), "[5, 4, 8]");
    requireDecomposedStack(g, argNode(g, bmm, 1), namedSeries(g, "w", 5), "[5, 8, 6]");
    auto outs = g.outputValues();
    REQUIRE(outs.size() == 5);
    for (int i = 0; i < 5; ++i) {
        const Node &add = *g.node(outs[i]);
        REQUIRE(add.qualifiedOp() == "aten::add.Tensor");
        REQUIRE(add.args()[0].node() == g.findByName("b" + std::to_string(i)));
        REQUIRE(add.args()[2].asInt() == 1);
        REQUIRE(add.meta.shapeString() == "[4, 6]");
        const Node &sel = argNode(g, add, 1);
        REQUIRE(sel.qualifiedOp() == "aten::select.int");
        REQUIRE(sel.args()[0].node() == bmm.id());
        REQUIRE(sel.args()[2].asInt() == i);
    }
}

TEST_CASE("batch_linear_post_grad on mm selects, biases can be broadcast first", "[patterns]")
{
    PostGradBatchLinearFusion pattern;
    GroupGraph r = mmGraph(5, false);
    REQUIRE(keyOf(r.graph, pattern, r.members[0]) == "input [4, 8] · weight [8, 6] · no bias");
    fuseAndVerify(r.graph, pattern, singleGroup(r.graph, pattern).members);
    requireOutputsAreSelects(r.graph, onlyOp(r.graph, "aten::bmm").id(), 5, "[4, 6]");

    pattern.options().set("shape_broadcast_batch_linear", true);
    GroupGraph b = mmGraph(5, true);
    fuseAndVerify(b.graph, pattern, singleGroup(b.graph, pattern).members);
    auto broadcasts = opsNamed(b.graph, "aten::broadcast_to");
    REQUIRE(broadcasts.size() == 5);
    const Node &first = *b.graph.node(broadcasts.front());
    REQUIRE(first.args()[1] == Arg::list({int64_t(4), int64_t(6)}));
    REQUIRE(b.graph.users(first.id()).size() == 1);
    REQUIRE(b.graph.node(b.graph.users(first.id()).front())->op == "aten::add");

    // mm and addmm are different keys.
    GroupGraph mixed = mmGraph(6, true);
    Graph &g = mixed.graph;
    GraphBuilder build = GraphBuilder::reopen(g);
    for (int i = 0; i < 3; ++i) {
        NodeId id = mixed.members[i];
        std::vector<Arg> args = g.node(id)->args();
        build.setArgs(id, {args[1], args[2]}, {});
        build.node(id).op = "aten::mm";
    }
    REQUIRE(searchHorizontal(g, pattern).groups.empty());
}

TEST_CASE("batch_linear_post_grad explains each failed condition", "[patterns]")
{
    PostGradBatchLinearFusion pattern;
    GroupGraph r = mmGraph(5, true);
    Graph &g = r.graph;
    GraphBuilder build = GraphBuilder::reopen(g);
    const NodeId mm = r.members[0];
    const NodeId x = g.findByName("x0"), w = g.findByName("w0"), b = g.findByName("b0");

    SECTION("another op")
    {
        Check c = keyFailure(g, pattern, x);
        REQUIRE(c.description == "node is aten::mm or aten::addmm");
        REQUIRE(c.actual == "%x0 is input");
    }
    SECTION("beta is not 1")
    {
        build.setArgs(mm, {b, x, w, 2.0, int64_t(1)}, {});
        Check c = keyFailure(g, pattern, mm);
        REQUIRE(c.description == "addmm has beta = alpha = 1");
        REQUIRE(c.actual == "beta 2.0, alpha 1");
    }
    SECTION("alpha as a keyword")
    {
        build.setArgs(mm, {b, x, w}, {{"alpha", 0.5}});
        Check c = keyFailure(g, pattern, mm);
        REQUIRE(c.actual == "beta 1, alpha 0.5");
    }
    SECTION("input is 3-D")
    {
        build.node(x).meta = f32({2, 4, 8});
        Check c = keyFailure(g, pattern, mm);
        REQUIRE(c.description == "input is 2-D");
        REQUIRE(c.actual == "input %x0 is 3-D f32[2, 4, 8]");
    }
    SECTION("weight has a symbolic dim")
    {
        build.node(w).meta.shape = std::vector<Dim>{int64_t(8), std::string("s1")};
        Check c = keyFailure(g, pattern, mm);
        REQUIRE(c.description == "weight shape is static");
        REQUIRE(c.actual == "weight %w0 is f32[8, s1]");
    }
    SECTION("inner dims disagree")
    {
        build.node(w).meta = f32({7, 6});
        Check c = keyFailure(g, pattern, mm);
        REQUIRE(c.description == "input columns match weight rows");
        REQUIRE(c.actual == "input %x0 [4, 8] · weight %w0 [7, 6]");
    }
    SECTION("users join the key on request")
    {
        pattern.options().set("fuse_nodes_with_same_users", true);
        REQUIRE(keyOf(g, pattern, mm) == "input [4, 8] · weight [8, 6] · bias · users output");
    }
}

TEST_CASE("batch_aten_tanh, batch_aten_sigmoid and batch_aten_relu read back with select", "[patterns]")
{
    for (auto [kind, opName, name] : {std::tuple{AtenUnary::Tanh, "aten::tanh", "batch_aten_tanh"},
                                      std::tuple{AtenUnary::Sigmoid, "aten::sigmoid", "batch_aten_sigmoid"},
                                      std::tuple{AtenUnary::Relu, "aten::relu", "batch_aten_relu"}}) {
        INFO(name);
        BatchPointwiseOpsPostGradFusion pattern(kind);
        REQUIRE(pattern.name() == name);
        REQUIRE(pattern.benefit() == 14);
        GroupGraph r = unaryGraph(opName, 5);
        REQUIRE(keyOf(r.graph, pattern, r.members[1]) == "input [4, 8]");
        fuseAndVerify(r.graph, pattern, singleGroup(r.graph, pattern).members);
        const Node &fused = onlyOp(r.graph, opName);
        REQUIRE(fused.meta.shapeString() == "[5, 4, 8]");
        requireDecomposedStack(r.graph, argNode(r.graph, fused, 0), namedSeries(r.graph, "x", 5), "[5, 4, 8]");
        requireOutputsAreSelects(r.graph, fused.id(), 5, "[4, 8]");
    }

    BatchPointwiseOpsPostGradFusion tanh(AtenUnary::Tanh);
    GroupGraph r = unaryGraph("aten::tanh", 5);
    GraphBuilder::reopen(r.graph).node(r.members[0]).meta = {};
    Check c = keyFailure(r.graph, tanh, r.members[0]);
    REQUIRE(c.description == "output metadata is known");
    tanh.options().set("fuse_nodes_with_same_parent", true);
    REQUIRE(keyOf(r.graph, tanh, r.members[1]) == "input [4, 8] · parent %x1");
}

TEST_CASE("post-grad pointwise batch rules group symbolic shapes as Inductor keys them", "[patterns]")
{
    // Inductor keys on str(meta['val'].shape): a dynamic recompile's
    // f32[s37, 8] values group, and the stacked op keeps the symbol.
    auto symbolic = [](Graph &g) {
        GraphBuilder build = GraphBuilder::reopen(g);
        for (NodeId id : g.nodeIds())
            if (build.node(id).meta.shape)
                build.node(id).meta.shape = std::vector<Dim>{std::string("s37"), int64_t(8)};
    };
    BatchPointwiseOpsPostGradFusion relu(AtenUnary::Relu);
    GroupGraph u = unaryGraph("aten::relu", 5);
    symbolic(u.graph);
    REQUIRE(keyOf(u.graph, relu, u.members[0]) == "input [s37, 8]");
    fuseAndVerify(u.graph, relu, singleGroup(u.graph, relu).members);
    const Node &fused = onlyOp(u.graph, "aten::relu");
    REQUIRE(fused.meta.shapeString() == "[5, s37, 8]");
    requireDecomposedStack(u.graph, argNode(u.graph, fused, 0), namedSeries(u.graph, "x", 5), "[5, s37, 8]");
    requireOutputsAreSelects(u.graph, fused.id(), 5, "[s37, 8]");

    BatchPointwiseMathOpsPostGradFusion mul(AtenBinary::Mul);
    GroupGraph b = binaryGraph("aten::mul", "Tensor", {}, 5);
    symbolic(b.graph);
    REQUIRE(keyOf(b.graph, mul, b.members[0]) == "shape [s37, 8] · dtypes f32, f32");
    fuseAndVerify(b.graph, mul, singleGroup(b.graph, mul).members);
    REQUIRE(onlyOp(b.graph, "aten::mul").meta.shapeString() == "[5, s37, 8]");
    // Another symbol is another key, as str() of the shapes differs.
    GroupGraph other = unaryGraph("aten::relu", 6);
    symbolic(other.graph);
    GraphBuilder::reopen(other.graph).node(other.graph.findByName("x5")).meta.shape = std::vector<Dim>{std::string(
                                                                                                           "s12"),
                                                                                                       int64_t(8)};
    REQUIRE(keyOf(other.graph, relu, other.members[5]) == "input [s12, 8]");
    const FusionGroup group = singleGroup(other.graph, relu);
    REQUIRE(group.members.size() == 5);
    REQUIRE(std::find(group.members.begin(), group.members.end(), other.members[5]) == group.members.end());
}

TEST_CASE("batch_aten_add, sub, mul and div fuse equal-shaped tensor pairs", "[patterns]")
{
    struct Case {
        AtenBinary kind;
        const char *op, *overload, *name;
        std::vector<Arg> extra;
        const char *key;
        const char *fusedOverload;
        std::vector<Arg> fusedExtra;
    };
    const std::vector<Case> cases{
        {AtenBinary::Add,
         "aten::add",
         "Tensor",
         "batch_aten_add",
         {int64_t(2)},
         "shape [4, 8] · dtypes f32, f32 · alpha 2",
         "Tensor",
         {int64_t(2)}},
        {AtenBinary::Sub,
         "aten::sub",
         "Tensor",
         "batch_aten_sub",
         {},
         "shape [4, 8] · dtypes f32, f32 · alpha 1",
         "Tensor",
         {int64_t(1)}},
        {AtenBinary::Mul, "aten::mul", "Tensor", "batch_aten_mul", {}, "shape [4, 8] · dtypes f32, f32", "Tensor", {}},
        {AtenBinary::Div,
         "aten::div",
         "Tensor",
         "batch_aten_div",
         {},
         "shape [4, 8] · dtypes f32, f32 · rounding_mode None",
         "Tensor",
         {}},
        {AtenBinary::Div,
         "aten::div",
         "Tensor_mode",
         "batch_aten_div",
         {"floor"},
         "shape [4, 8] · dtypes f32, f32 · rounding_mode floor",
         "Tensor_mode",
         {"floor"}},
    };
    for (const Case &c : cases) {
        INFO(c.name << " " << c.overload);
        BatchPointwiseMathOpsPostGradFusion pattern(c.kind);
        REQUIRE(pattern.name() == c.name);
        REQUIRE(pattern.benefit() == 12);
        GroupGraph r = binaryGraph(c.op, c.overload, c.extra, 5);
        REQUIRE(keyOf(r.graph, pattern, r.members[0]) == c.key);
        fuseAndVerify(r.graph, pattern, singleGroup(r.graph, pattern).members);
        const Node &fused = onlyOp(r.graph, c.op);
        REQUIRE(fused.overload == c.fusedOverload);
        REQUIRE(fused.meta.shapeString() == "[5, 4, 8]");
        requireDecomposedStack(r.graph, argNode(r.graph, fused, 0), namedSeries(r.graph, "a", 5), "[5, 4, 8]");
        requireDecomposedStack(r.graph, argNode(r.graph, fused, 1), namedSeries(r.graph, "c", 5), "[5, 4, 8]");
        REQUIRE(std::vector<Arg>(fused.args().begin() + 2, fused.args().end()) == c.fusedExtra);
        requireOutputsAreSelects(r.graph, fused.id(), 5, "[4, 8]");
    }
}

TEST_CASE("batch_aten binary rules explain each failed condition", "[patterns]")
{
    BatchPointwiseMathOpsPostGradFusion pattern(AtenBinary::Add);
    GroupGraph r = binaryGraph("aten::add", "Tensor", {int64_t(1)}, 5);
    Graph &g = r.graph;
    GraphBuilder build = GraphBuilder::reopen(g);
    const NodeId add = r.members[0];
    const NodeId a = g.findByName("a0"), c0 = g.findByName("c0");
    const std::string ref = nodeRef(g, add);

    SECTION("scalar overload")
    {
        build.node(add).overload = "Scalar";
        Check c = keyFailure(g, pattern, add);
        REQUIRE(c.description == "node is aten::add.Tensor");
        REQUIRE(c.actual == ref + " is aten::add.Scalar");
    }
    SECTION("other is a scalar")
    {
        build.setArgs(add, {a, 2.0, int64_t(1)}, {});
        Check c = keyFailure(g, pattern, add);
        REQUIRE(c.description == "other is a tensor");
        REQUIRE(c.actual == "other is the literal 2.0");
    }
    SECTION("self shape unknown")
    {
        build.node(a).meta.shape.reset();
        Check c = keyFailure(g, pattern, add);
        REQUIRE(c.description == "self shape is known");
        REQUIRE(c.actual == "self %a0 has no shape");
    }
    SECTION("broadcasting operands")
    {
        build.node(c0).meta = f32({1, 8});
        Check c = keyFailure(g, pattern, add);
        REQUIRE(c.description == "self and other have the same shape");
        REQUIRE(c.actual == "self %a0 [4, 8] ≠ other %c0 [1, 8]");
    }
    SECTION("alpha is a tensor")
    {
        build.setArgs(add, {a, c0, g.findByName("a1")}, {});
        Check c = keyFailure(g, pattern, add);
        REQUIRE(c.description == "alpha is a literal");
        REQUIRE(c.actual == "alpha is the tensor %a1");
    }
    SECTION("a different alpha or dtype is a different key")
    {
        build.setArgs(r.members[1], {g.findByName("a1"), g.findByName("c1"), int64_t(3)}, {});
        build.node(g.findByName("c2")).meta.dtype = DType::Float16;
        REQUIRE(keyOf(g, pattern, r.members[1]) == "shape [4, 8] · dtypes f32, f32 · alpha 3");
        REQUIRE(keyOf(g, pattern, r.members[2]) == "shape [4, 8] · dtypes f32, f16 · alpha 1");
        REQUIRE(searchHorizontal(g, pattern).groups.empty());
    }
    SECTION("operands selected from one parent join the key on request")
    {
        pattern.options().set("fuse_nodes_with_same_parent", true);
        NodeId big = input(g, "big", {3, 4, 8});
        NodeId sel = op(g, "aten::select", "int", {big, int64_t(0), int64_t(1)}, {4, 8});
        NodeId sum = op(g, "aten::add", "Tensor", {a, sel, int64_t(1)}, {4, 8});
        REQUIRE(keyOf(g, pattern, sum) == "shape [4, 8] · dtypes f32, f32 · alpha 1 · parent %big");
        REQUIRE(keyOf(g, pattern, add) == "shape [4, 8] · dtypes f32, f32 · alpha 1");
    }
}

TEST_CASE("group_linear is listed but needs fbgemm", "[patterns]")
{
    GroupLinearFusion pattern;
    REQUIRE(pattern.name() == "group_linear");
    REQUIRE(pattern.benefit() == 10);
    REQUIRE(pattern.stage() == PassStage::PostGrad);
    REQUIRE(pattern.options().getInt("max_fuse_tensor_size_group_linear") == 4096);
    REQUIRE(pattern.unavailableReason()
            == "needs the fbgemm gmm kernel (torch.ops.fbgemm.gmm), which this build does not have");
    GroupGraph r = mmGraph(6, true);
    Graph &g = r.graph;
    REQUIRE(searchHorizontal(g, pattern).groups.empty());

    SECTION("a node that meets Inductor's conditions stops at the kernel")
    {
        MatchTrace trace(MatchTrace::Mode::Explain);
        REQUIRE_FALSE(pattern.key(g, r.members[0], trace).has_value());
        REQUIRE(trace.failure()->description == "the fbgemm gmm kernel (torch.ops.fbgemm.gmm) is available");
        REQUIRE(trace.failure()->actual == "this build has no fbgemm");
        REQUIRE(trace.checks().back().description == trace.failure()->description);
    }
    SECTION("odd dims")
    {
        GraphBuilder::reopen(g).node(g.findByName("x0")).meta = f32({5, 8});
        Check c = keyFailure(g, pattern, r.members[0]);
        REQUIRE(c.description == "every input and weight dim is even");
        REQUIRE(c.actual == "input %x0 [5, 8] · weight %w0 [8, 6]");
    }
    SECTION("dims above max_fuse_tensor_size_group_linear")
    {
        pattern.options().set("max_fuse_tensor_size_group_linear", int64_t(6));
        Check c = keyFailure(g, pattern, r.members[0]);
        REQUIRE(c.description == "every input and weight dim is at most max_fuse_tensor_size_group_linear (6)");
        REQUIRE(c.actual == "input %x0 [4, 8] · weight %w0 [8, 6]");
    }
}
