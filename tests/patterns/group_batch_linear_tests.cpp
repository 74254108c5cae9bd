// batch_linear, batch_linear_lhs and batch_layernorm: where they fire, what
// fuse builds, and the explanation of every key condition that can fail.

#include "core/ir/GraphBuilder.h"
#include "patterns/GroupBatchTestSupport.h"

#include "core/rewrite/MatchUtils.h"
#include "patterns/group_batch/BatchLayerNorm.h"
#include "patterns/group_batch/BatchLinear.h"

using namespace fusebox;
using namespace fusebox::test::gb;
using group_batch::BatchLayernormFusion;
using group_batch::BatchLinearLHSFusion;
using group_batch::PreGradBatchLinearFusion;

TEST_CASE("batch_linear fuses five linears into one baddbmm", "[patterns]")
{
    GroupGraph r = linearGraph(5, true);
    Graph &g = r.graph;
    PreGradBatchLinearFusion pattern;
    REQUIRE(keyOf(g, pattern, r.members[0]) == "input [4, 8] · weight [6, 8] · bias");

    FusionGroup group = singleGroup(g, pattern);
    REQUIRE(group.members == r.members);
    REQUIRE(group.key == "input [4, 8] · weight [6, 8] · bias");
    fuseAndVerify(g, pattern, group.members);

    REQUIRE(opsNamed(g, "aten::linear").empty());
    REQUIRE(opsNamed(g, "aten::stack").size() == 3);
    const Node &bmm = onlyOp(g, "aten::baddbmm");
    REQUIRE(bmm.meta.toString() == "f32[5, 4, 6]");
    REQUIRE(bmm.args().size() == 5);
    REQUIRE(bmm.args()[3].asInt() == 1);
    REQUIRE(bmm.args()[4].asInt() == 1);
    const Node &bias = argNode(g, bmm, 0);
    REQUIRE(bias.op == "aten::unsqueeze");
    REQUIRE(bias.args()[1].asInt() == 1);
    REQUIRE(bias.meta.shapeString() == "[5, 1, 6]");
    const Node &stackedBias = argNode(g, bias, 0);
    REQUIRE(stackedBias.op == "aten::stack");
    REQUIRE(stackedBias.meta.shapeString() == "[5, 6]");
    const Node &x = argNode(g, bmm, 1);
    REQUIRE(x.op == "aten::stack");
    REQUIRE(x.args()[1].asInt() == 0);
    REQUIRE(x.meta.shapeString() == "[5, 4, 8]");
    std::vector<NodeId> xs;
    for (int i = 0; i < 5; ++i)
        xs.push_back(g.findByName("x" + std::to_string(i)));
    REQUIRE(listArg(x, 0) == xs);
    const Node &wt = argNode(g, bmm, 2);
    REQUIRE(wt.qualifiedOp() == "aten::transpose.int");
    REQUIRE(wt.args()[1].asInt() == 1);
    REQUIRE(wt.args()[2].asInt() == 2);
    REQUIRE(wt.meta.shapeString() == "[5, 8, 6]");
    REQUIRE(argNode(g, wt, 0).meta.shapeString() == "[5, 6, 8]");

    const Node &unbind = onlyOp(g, "aten::unbind");
    REQUIRE(unbind.qualifiedOp() == "aten::unbind.int");
    REQUIRE(unbind.type == "Tensor[]");
    REQUIRE(unbind.args()[1].asInt() == 0);
    REQUIRE(unbind.provenance.createdBy == "batch_linear#1");
    requireOutputsAreGetItems(g, unbind.id(), std::vector<std::string>(5, "[4, 6]"));
}

TEST_CASE("batch_linear groups a dynamic batch (symbolic input rows) and keeps the symbol", "[patterns]")
{
    // A dynamic recompile's inputs are f32[s37, 8]: Inductor keys on
    // str(shape) and fuses them; the weights stay static.
    GroupGraph r = linearGraph(5, true);
    Graph &g = r.graph;
    {
        GraphBuilder build = GraphBuilder::reopen(g);
        for (int i = 0; i < 5; ++i) {
            build.node(g.findByName("x" + std::to_string(i))).meta.shape = std::vector<Dim>{std::string("s37"),
                                                                                            int64_t(8)};
            build.node(r.members[size_t(i)]).meta.shape = std::vector<Dim>{std::string("s37"), int64_t(6)};
        }
    }
    PreGradBatchLinearFusion pattern;
    REQUIRE(keyOf(g, pattern, r.members[0]) == "input [s37, 8] · weight [6, 8] · bias");
    fuseAndVerify(g, pattern, singleGroup(g, pattern).members);
    REQUIRE(onlyOp(g, "aten::baddbmm").meta.toString() == "f32[5, s37, 6]");
    for (NodeId out : g.outputValues())
        REQUIRE(g.node(out)->meta.toString() == "f32[s37, 6]");

    // batch_linear_lhs: one input of a dynamic batch, its linears into addmm.
    GroupGraph lhs = linearGraph(5, true);
    Graph &h = lhs.graph;
    {
        GraphBuilder build = GraphBuilder::reopen(h);
        build.node(h.findByName("x0")).meta.shape = std::vector<Dim>{std::string("s37"), int64_t(8)};
        for (NodeId lin : lhs.members) {
            build.setArgs(lin, {h.findByName("x0"), h.node(lin)->args()[1], h.node(lin)->args()[2]}, {});
            build.node(lin).meta.shape = std::vector<Dim>{std::string("s37"), int64_t(6)};
        }
    }
    BatchLinearLHSFusion lhsPattern;
    fuseAndVerify(h, lhsPattern, singleGroup(h, lhsPattern).members);
    REQUIRE(onlyOp(h, "aten::addmm").meta.toString() == "f32[s37, 30]");

    // batch_layernorm: a dynamic leading dim, stacked before the normalized one.
    GroupGraph ln = layerNormGraph(5);
    Graph &l = ln.graph;
    {
        GraphBuilder build = GraphBuilder::reopen(l);
        for (NodeId id : l.nodeIds())
            if (auto &shape = build.node(id).meta.shape; shape && shape->size() == 3)
                (*shape)[0] = std::string("s37");
    }
    BatchLayernormFusion lnPattern;
    REQUIRE(keyOf(l, lnPattern, ln.members[0]).starts_with("input [s37, 3, 16] · normalized_shape [16]"));
    fuseAndVerify(l, lnPattern, singleGroup(l, lnPattern).members);
    REQUIRE(onlyOp(l, "aten::layer_norm").meta.toString() == "f32[s37, 3, 5, 16]");
}

TEST_CASE("batch_linear without biases uses bmm", "[patterns]")
{
    GroupGraph r = linearGraph(6, false);
    PreGradBatchLinearFusion pattern;
    REQUIRE(keyOf(r.graph, pattern, r.members[0]) == "input [4, 8] · weight [6, 8] · no bias");
    fuseAndVerify(r.graph, pattern, singleGroup(r.graph, pattern).members);
    const Node &bmm = onlyOp(r.graph, "aten::bmm");
    REQUIRE(bmm.args().size() == 2);
    REQUIRE(bmm.meta.shapeString() == "[6, 4, 6]");
    REQUIRE(opsNamed(r.graph, "aten::unsqueeze").empty());
    REQUIRE(opsNamed(r.graph, "aten::stack").size() == 2);
    requireOutputsAreGetItems(r.graph, onlyOp(r.graph, "aten::unbind").id(), std::vector<std::string>(6, "[4, 6]"));
}

TEST_CASE("batch_linear operands defined after the first member end up before the fused op", "[patterns]")
{
    GroupGraph r = linearGraph(5, true, /*interleaved=*/true);
    PreGradBatchLinearFusion pattern;
    fuseAndVerify(r.graph, pattern, singleGroup(r.graph, pattern).members);
    REQUIRE(opsNamed(r.graph, "aten::tanh").size() == 5);
    REQUIRE(opsNamed(r.graph, "aten::baddbmm").size() == 1);
}

TEST_CASE("batch_linear keys getitem inputs by their source and users on request", "[patterns]")
{
    Graph g;
    GraphBuilder build(g);
    NodeId x = input(g, "x", {20, 8});
    NodeId split = build.addOp("aten::split", {x, int64_t(4), int64_t(0)}, {}, "split");
    build.node(split).type = "Tensor[]";
    NodeId item = op(g, "getitem", "", {split, int64_t(0)}, {4, 8});
    NodeId w = weight(g, "w", {6, 8}, 1);
    NodeId lin = op(g, "aten::linear", "", {item, w, NoneArg{}}, {4, 6});
    NodeId relu = op(g, "aten::relu", "", {lin}, {4, 6});
    build.setOutputs({relu});
    PreGradBatchLinearFusion pattern;
    REQUIRE(keyOf(g, pattern, lin) == "input [4, 8] (getitem of %split) · weight [6, 8] · no bias");
    pattern.options().set("fuse_nodes_with_same_users", true);
    REQUIRE(keyOf(g, pattern, lin) == "input [4, 8] (getitem of %split) · weight [6, 8] · no bias · users aten::relu");
}

TEST_CASE("batch_linear keys a sliced input by the tensor it slices, as Inductor's _getitem_args", "[patterns]")
{
    // x[:, :8] as the FX reader lowers it: the slices marked operator.getitem,
    // the last one with the index as written.
    Graph g;
    GraphBuilder build(g);
    std::vector<NodeId> linears;
    for (const char *source : {"x", "y"}) {
        NodeId t = input(g, source, {4, 16});
        for (int64_t start : {0, 8}) {
            NodeId whole = op(g, "aten::slice", "Tensor", {t, int64_t(0), int64_t(0), INT64_MAX, int64_t(1)}, {4, 16});
            NodeId half = op(g, "aten::slice", "Tensor", {whole, int64_t(1), start, start + 8, int64_t(1)}, {4, 8});
            build.node(whole).provenance.originalSpelling = "operator.getitem";
            build.node(half).provenance.originalSpelling = "operator.getitem";
            build.node(half).provenance.writtenArgs = "(slice(None, None, None), slice(0, 8, None))";
            NodeId w = weight(g, std::string(source) + "w" + std::to_string(start), {6, 8}, 1);
            linears.push_back(op(g, "aten::linear", "", {half, w, NoneArg{}}, {4, 6}));
        }
    }
    build.setOutputs(std::vector<Arg>(linears.begin(), linears.end()));
    PreGradBatchLinearFusion pattern;
    CHECK(keyOf(g, pattern, linears[0]) == "input [4, 8] (getitem of %x) · weight [6, 8] · no bias");
    CHECK(keyOf(g, pattern, linears[3]) == "input [4, 8] (getitem of %y) · weight [6, 8] · no bias");
    pattern.options().set("min_fuse_set_size", int64_t(2));
    HorizontalSearchResult result = searchHorizontal(g, pattern);
    REQUIRE(result.groups.size() == 2);
    CHECK(result.groups[0].members.size() == 2);
    CHECK(result.groups[1].members.size() == 2);
}

TEST_CASE("batch_linear explains each failed condition", "[patterns]")
{
    PreGradBatchLinearFusion pattern;
    GroupGraph r = linearGraph(5, true, /*interleaved=*/true);
    Graph &g = r.graph;
    GraphBuilder build = GraphBuilder::reopen(g);
    const NodeId lin = r.members[0];
    const NodeId x = g.node(lin)->args()[0].node();
    const NodeId w = g.findByName("w0");
    const NodeId b = g.findByName("b0");
    const std::string linRef = nodeRef(g, lin), xRef = nodeRef(g, x);

    SECTION("not a linear")
    {
        Check c = keyFailure(g, pattern, x);
        REQUIRE(c.description == "node is aten::linear");
        REQUIRE(c.actual == xRef + " is aten::tanh");
    }
    SECTION("no output metadata")
    {
        build.node(lin).meta = {};
        Check c = keyFailure(g, pattern, lin);
        REQUIRE(c.description == "output metadata is known");
        REQUIRE(c.actual == linRef + " has no tensor metadata");
    }
    SECTION("input is a literal")
    {
        build.setArgs(lin, {int64_t(3), w, b}, {});
        Check c = keyFailure(g, pattern, lin);
        REQUIRE(c.description == "input is a tensor");
        REQUIRE(c.actual == "input is the literal 3");
    }
    SECTION("input shape unknown")
    {
        build.node(x).meta.shape.reset();
        Check c = keyFailure(g, pattern, lin);
        REQUIRE(c.description == "input shape is known");
        REQUIRE(c.actual == "input " + xRef + " has no shape");
    }
    SECTION("input shape symbolic: keyed on it, as Inductor's str(shape)")
    {
        build.node(x).meta.shape = std::vector<Dim>{std::string("s0"), int64_t(8)};
        REQUIRE(keyOf(g, pattern, lin).starts_with("input [s0, 8]"));
    }
    SECTION("weight shape symbolic")
    {
        build.node(w).meta.shape = std::vector<Dim>{std::string("s1"), int64_t(8)};
        Check c = keyFailure(g, pattern, lin);
        REQUIRE(c.description == "weight shape is static");
        REQUIRE(c.fuseboxOnly);
    }
    SECTION("input is 3-D")
    {
        build.node(x).meta = f32({2, 4, 8});
        Check c = keyFailure(g, pattern, lin);
        REQUIRE(c.description == "input is 2-D");
        REQUIRE(c.actual == "input " + xRef + " is 3-D f32[2, 4, 8]");
    }
    SECTION("weight is 1-D")
    {
        build.node(w).meta = f32({8});
        Check c = keyFailure(g, pattern, lin);
        REQUIRE(c.description == "weight is 2-D");
        REQUIRE(c.actual == "weight %w0 is 1-D f32[8]");
    }
    SECTION("in-features disagree")
    {
        build.node(w).meta = f32({6, 7});
        Check c = keyFailure(g, pattern, lin);
        REQUIRE(c.description == "input features match the weight");
        REQUIRE(c.actual == "input " + xRef + " has 8 features, weight %w0 [6, 7] takes 7");
    }
    SECTION("bias is a literal")
    {
        build.setArgs(lin, {x, w, 1.0}, {});
        Check c = keyFailure(g, pattern, lin);
        REQUIRE(c.description == "bias is a tensor or None");
        REQUIRE(c.actual == "bias is the literal 1.0");
    }
    SECTION("bias has the wrong shape")
    {
        build.node(b).meta = f32({5});
        Check c = keyFailure(g, pattern, lin);
        REQUIRE(c.description == "bias is [out_features]");
        REQUIRE(c.actual == "bias %b0 is f32[5], weight %w0 has 6 out-features");
        REQUIRE(c.nodes == std::vector<NodeId>{b, w});
    }
    SECTION("a user mutates the output")
    {
        NodeId add = build.addOp("aten::add_", {lin, lin, int64_t(1)}, {}, "add_");
        Check c = keyFailure(g, pattern, lin);
        REQUIRE(c.description == "no user mutates the output");
        REQUIRE(c.actual == "user %add_ is in-place (aten::add_)");
        REQUIRE(c.nodes == std::vector<NodeId>{lin, add});
    }
    SECTION("keyword arguments are read too")
    {
        build.setArgs(lin, {}, {{"input", x}, {"weight", w}, {"bias", b}});
        REQUIRE(keyOf(g, pattern, lin) == "input [4, 8] · weight [6, 8] · bias");
    }
}

TEST_CASE("batch_linear_lhs fuses linears of one input into addmm and split", "[patterns]")
{
    GroupGraph r = linearLhsGraph(5, true);
    Graph &g = r.graph;
    BatchLinearLHSFusion pattern;
    REQUIRE(pattern.benefit() == 32);
    REQUIRE(keyOf(g, pattern, r.members[2]) == "input %x · bias");
    FusionGroup group = singleGroup(g, pattern);
    REQUIRE(group.members == r.members);
    fuseAndVerify(g, pattern, group.members);

    REQUIRE(opsNamed(g, "aten::linear").empty());
    const Node &addmm = onlyOp(g, "aten::addmm");
    REQUIRE(addmm.meta.shapeString() == "[4, 25]");
    REQUIRE(addmm.args()[1].node() == g.findByName("x"));
    REQUIRE(addmm.args()[3].asInt() == 1);
    REQUIRE(addmm.args()[4].asInt() == 1);
    const Node &bias = argNode(g, addmm, 0);
    REQUIRE(bias.op == "aten::cat");
    REQUIRE(bias.meta.shapeString() == "[25]");
    const Node &wt = argNode(g, addmm, 2);
    REQUIRE(wt.qualifiedOp() == "aten::transpose.int");
    REQUIRE(wt.args()[1].asInt() == 0);
    REQUIRE(wt.args()[2].asInt() == 1);
    REQUIRE(wt.meta.shapeString() == "[8, 25]");
    const Node &cat = argNode(g, wt, 0);
    REQUIRE(cat.op == "aten::cat");
    REQUIRE(cat.meta.shapeString() == "[25, 8]");
    REQUIRE(listArg(cat, 0).size() == 5);

    // torch.split(y, sections, dim=1), which Inductor's split/cat passes take
    // as normalized: split_with_sizes, as the FX reader reads it.
    const Node &split = onlyOp(g, "aten::split_with_sizes");
    REQUIRE(split.qualifiedOp() == "aten::split_with_sizes");
    REQUIRE(split.type == "Tensor[]");
    REQUIRE(split.args()[1] == Arg::list({int64_t(3), int64_t(4), int64_t(5), int64_t(6), int64_t(7)}));
    REQUIRE(split.args()[2].asInt() == 1);
    requireOutputsAreGetItems(g, split.id(), {"[4, 3]", "[4, 4]", "[4, 5]", "[4, 6]", "[4, 7]"});
}

TEST_CASE("batch_linear_lhs without biases uses mm, different inputs do not group", "[patterns]")
{
    BatchLinearLHSFusion pattern;
    GroupGraph r = linearLhsGraph(5, false);
    REQUIRE(keyOf(r.graph, pattern, r.members[0]) == "input %x · no bias");
    fuseAndVerify(r.graph, pattern, singleGroup(r.graph, pattern).members);
    REQUIRE(onlyOp(r.graph, "aten::mm").meta.shapeString() == "[4, 25]");
    REQUIRE(opsNamed(r.graph, "aten::addmm").empty());

    GroupGraph separate = linearGraph(5, false);
    HorizontalSearchResult result = searchHorizontal(separate.graph, pattern);
    REQUIRE(result.groups.empty());
    REQUIRE(result.outcomes.at(separate.members[0]).kind == CandidateOutcome::Kind::GroupTooSmall);
    REQUIRE(result.outcomes.at(separate.members[0]).candidates == 1);
}

TEST_CASE("batch_linear_lhs shares the linear checks", "[patterns]")
{
    BatchLinearLHSFusion pattern;
    GroupGraph r = linearLhsGraph(5, true);
    Graph &g = r.graph;
    GraphBuilder::reopen(g).node(g.findByName("x")).meta = f32({2, 4, 8});
    Check c = keyFailure(g, pattern, r.members[0]);
    REQUIRE(c.description == "input is 2-D");
    REQUIRE(c.actual == "input %x is 3-D f32[2, 4, 8]");
}

TEST_CASE("batch_layernorm stacks before the normalized dims", "[patterns]")
{
    GroupGraph r = layerNormGraph(5);
    Graph &g = r.graph;
    BatchLayernormFusion pattern;
    const std::string key = "input [2, 3, 16] · normalized_shape [16] · weight [16] · bias [16] · eps 1e-05";
    REQUIRE(keyOf(g, pattern, r.members[0]) == key);
    FusionGroup group = singleGroup(g, pattern);
    REQUIRE(group.key == key);
    fuseAndVerify(g, pattern, group.members);

    const Node &ln = onlyOp(g, "aten::layer_norm");
    REQUIRE(ln.meta.shapeString() == "[2, 3, 5, 16]");
    REQUIRE(ln.args()[1] == Arg::list({int64_t(16)}));
    REQUIRE(ln.args()[2].isNone());
    REQUIRE(ln.args()[3].isNone());
    REQUIRE(ln.args()[4] == Arg(1e-5));
    REQUIRE(ln.args()[5] == Arg(true));
    const Node &stack = argNode(g, ln, 0);
    REQUIRE(stack.op == "aten::stack");
    REQUIRE(stack.args()[1].asInt() == -2);
    REQUIRE(stack.meta.shapeString() == "[2, 3, 5, 16]");
    const Node &mul = onlyOp(g, "aten::mul");
    REQUIRE(mul.qualifiedOp() == "aten::mul.Tensor");
    REQUIRE(argNode(g, mul, 0).meta.shapeString() == "[5, 16]");
    REQUIRE(mul.args()[1].node() == ln.id());
    const Node &add = onlyOp(g, "aten::add");
    REQUIRE(add.qualifiedOp() == "aten::add.Tensor");
    REQUIRE(argNode(g, add, 0).meta.shapeString() == "[5, 16]");
    REQUIRE(add.args()[1].node() == mul.id());
    const Node &unbind = onlyOp(g, "aten::unbind");
    REQUIRE(unbind.args()[0].node() == add.id());
    REQUIRE(unbind.args()[1].asInt() == -2);
    requireOutputsAreGetItems(g, unbind.id(), std::vector<std::string>(5, "[2, 3, 16]"));
}

TEST_CASE("batch_layernorm without affine parameters normalizes only", "[patterns]")
{
    GroupGraph r = layerNormGraph(5, false, false);
    BatchLayernormFusion pattern;
    REQUIRE(keyOf(r.graph, pattern, r.members[0])
            == "input [2, 3, 16] · normalized_shape [16] · no weight · no bias · eps 1e-05");
    fuseAndVerify(r.graph, pattern, singleGroup(r.graph, pattern).members);
    REQUIRE(opsNamed(r.graph, "aten::mul").empty());
    REQUIRE(opsNamed(r.graph, "aten::add").empty());
    REQUIRE(onlyOp(r.graph, "aten::unbind").args()[0].node() == onlyOp(r.graph, "aten::layer_norm").id());
}

TEST_CASE("batch_layernorm explains each failed condition", "[patterns]")
{
    BatchLayernormFusion pattern;
    GroupGraph r = layerNormGraph(5);
    Graph &g = r.graph;
    GraphBuilder build = GraphBuilder::reopen(g);
    const NodeId ln = r.members[0];
    const NodeId x = g.findByName("x0"), w = g.findByName("w0"), b = g.findByName("b0");
    auto withArg = [&](size_t index, Arg value) {
        std::vector<Arg> args = g.node(ln)->args();
        args[index] = std::move(value);
        build.setArgs(ln, std::move(args), {});
    };

    SECTION("input shape unknown")
    {
        build.node(x).meta.shape.reset();
        Check c = keyFailure(g, pattern, ln);
        REQUIRE(c.description == "input shape is known");
        REQUIRE(c.actual == "input %x0 has no shape");
    }
    SECTION("a symbolic normalized dim")
    {
        build.node(x).meta.shape = std::vector<Dim>{int64_t(2), int64_t(3), std::string("s5")};
        Check c = keyFailure(g, pattern, ln);
        REQUIRE(c.description == "normalized_shape matches the input's trailing dims");
        REQUIRE(c.fuseboxOnly);
    }
    SECTION("normalized_shape is not a list of ints")
    {
        withArg(1, Arg("last"));
        Check c = keyFailure(g, pattern, ln);
        REQUIRE(c.description == "normalized_shape is a list of ints");
        REQUIRE(c.actual == "normalized_shape is 'last'");
    }
    SECTION("normalized_shape is not the input's trailing dims")
    {
        withArg(1, Arg::list({int64_t(8)}));
        Check c = keyFailure(g, pattern, ln);
        REQUIRE(c.description == "normalized_shape matches the input's trailing dims");
        REQUIRE(c.actual == "input %x0 is f32[2, 3, 16], normalized_shape is [8]");
    }
    SECTION("weight is a literal")
    {
        withArg(2, Arg(2.0));
        Check c = keyFailure(g, pattern, ln);
        REQUIRE(c.description == "weight is a tensor or None");
        REQUIRE(c.actual == "weight is the literal 2.0");
    }
    SECTION("weight shape differs from normalized_shape")
    {
        build.node(w).meta = f32({8});
        Check c = keyFailure(g, pattern, ln);
        REQUIRE(c.description == "weight shape equals normalized_shape");
        REQUIRE(c.actual == "weight %w0 is f32[8], normalized_shape is [16]");
    }
    SECTION("bias shape unknown")
    {
        build.node(b).meta.shape.reset();
        Check c = keyFailure(g, pattern, ln);
        REQUIRE(c.description == "bias shape is static");
        REQUIRE(c.actual == "bias %b0 has no shape");
    }
    SECTION("eps is not a number")
    {
        withArg(4, Arg("small"));
        Check c = keyFailure(g, pattern, ln);
        REQUIRE(c.description == "eps is a number");
        REQUIRE(c.actual == "eps is 'small'");
    }
    SECTION("a different eps is a different key")
    {
        withArg(4, Arg(1e-3));
        REQUIRE(keyOf(g, pattern, ln)
                == "input [2, 3, 16] · normalized_shape [16] · weight [16] · bias [16] · eps 0.001");
        HorizontalSearchResult result = searchHorizontal(g, pattern);
        REQUIRE(result.groups.empty());
        REQUIRE(result.outcomes.at(r.members[1]).candidates == 4);
        REQUIRE(result.outcomes.at(ln).candidates == 1);
    }
}
