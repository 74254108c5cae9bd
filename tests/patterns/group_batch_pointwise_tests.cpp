// Pre-grad pointwise fusions: batch_tanh, batch_sigmoid, batch_relu and the
// "simple math" ones (batch_detach, batch_nan_to_num, batch_clamp, batch_dropout).

#include "core/ir/GraphBuilder.h"
#include "patterns/GroupBatchTestSupport.h"

#include "patterns/group_batch/BatchPointwisePreGrad.h"

#include "core/io/GraphJson.h"
#include "core/rewrite/GreedyDriver.h"
#include "core/rewrite/PatternSet.h"

#include <memory>

using namespace fusebox;
using namespace fusebox::test::gb;
using group_batch::BatchMathOpsPreGradFusion;
using group_batch::BatchPointwiseOpsPreGradFusion;
using Unary = BatchPointwiseOpsPreGradFusion::Op;
using Math = BatchMathOpsPreGradFusion::Op;

namespace {

/// Requires stack(inputs, 0) -> `op` -> unbind.int(0) -> getitems on the outputs' path.
const Node &requireStackOpUnbind(const Graph &g, const std::string &op, size_t n, const std::string &itemShape)
{
    const Node &fused = onlyOp(g, op);
    const Node &stack = argNode(g, fused, 0);
    REQUIRE(stack.op == "aten::stack");
    REQUIRE(stack.args()[1].asInt() == 0);
    REQUIRE(listArg(stack, 0).size() == n);
    for (size_t i = 0; i < n; ++i)
        REQUIRE(listArg(stack, 0)[i] == g.findByName("x" + std::to_string(i)));
    REQUIRE(fused.meta.shapeString() == "[" + std::to_string(n) + ", " + itemShape.substr(1));
    const Node &unbind = onlyOp(g, "aten::unbind");
    REQUIRE(unbind.qualifiedOp() == "aten::unbind.int");
    REQUIRE(unbind.args()[0].node() == fused.id());
    REQUIRE(unbind.args()[1].asInt() == 0);
    return fused;
}

} // namespace

TEST_CASE("batch_tanh, batch_sigmoid and batch_relu fuse through stack and unbind", "[patterns]")
{
    for (auto [kind, opName, name] : {std::tuple{Unary::Tanh, "aten::tanh", "batch_tanh"},
                                      std::tuple{Unary::Sigmoid, "aten::sigmoid", "batch_sigmoid"},
                                      std::tuple{Unary::Relu, "aten::relu", "batch_relu"}}) {
        INFO(name);
        BatchPointwiseOpsPreGradFusion pattern(kind);
        REQUIRE(pattern.name() == name);
        REQUIRE(pattern.benefit() == 20);
        REQUIRE(pattern.stage() == PassStage::PreGrad);
        REQUIRE(pattern.options().getBool("fuse_nodes_with_same_parent", true) == false);
        GroupGraph r = unaryGraph(opName, 5);
        REQUIRE(keyOf(r.graph, pattern, r.members[3]) == "input [4, 8]");
        FusionGroup group = singleGroup(r.graph, pattern);
        REQUIRE(group.members == r.members);
        fuseAndVerify(r.graph, pattern, group.members);
        requireStackOpUnbind(r.graph, opName, 5, "[4, 8]");
        requireOutputsAreGetItems(r.graph, onlyOp(r.graph, "aten::unbind").id(), std::vector<std::string>(5, "[4, 8]"));
    }
}

TEST_CASE("batch_relu keeps in-place relus apart and fuses them in place", "[patterns]")
{
    BatchPointwiseOpsPreGradFusion pattern(Unary::Relu);
    GroupGraph r = unaryGraph("aten::relu_", 5);
    REQUIRE(keyOf(r.graph, pattern, r.members[0]) == "input [4, 8] · in-place");
    fuseAndVerify(r.graph, pattern, singleGroup(r.graph, pattern).members);
    requireStackOpUnbind(r.graph, "aten::relu_", 5, "[4, 8]");

    // Three in-place and three plain relus: two keys of three, neither fuses.
    GroupGraph mixed = unaryGraph("aten::relu", 6);
    for (int i = 0; i < 3; ++i)
        GraphBuilder::reopen(mixed.graph).node(mixed.members[i]).op = "aten::relu_";
    HorizontalSearchResult result = searchHorizontal(mixed.graph, pattern);
    REQUIRE(result.groups.empty());
    REQUIRE(result.outcomes.at(mixed.members[0]).key == "input [4, 8] · in-place");
    REQUIRE(result.outcomes.at(mixed.members[0]).candidates == 3);
    REQUIRE(result.outcomes.at(mixed.members[5]).key == "input [4, 8]");
}

TEST_CASE("batch_tanh keys on the parent when fuse_nodes_with_same_parent is set", "[patterns]")
{
    BatchPointwiseOpsPreGradFusion pattern(Unary::Tanh);
    pattern.options().set("fuse_nodes_with_same_parent", true);
    GroupGraph r = unaryGraph("aten::tanh", 5);
    REQUIRE(keyOf(r.graph, pattern, r.members[0]) == "input [4, 8] · parent %x0");
    // Each tanh reads its own input: five keys of one.
    REQUIRE(searchHorizontal(r.graph, pattern).groups.empty());
}

TEST_CASE("pre-grad pointwise rules explain each failed condition", "[patterns]")
{
    BatchPointwiseOpsPreGradFusion pattern(Unary::Relu);
    GroupGraph r = unaryGraph("aten::relu", 5);
    Graph &g = r.graph;
    GraphBuilder build = GraphBuilder::reopen(g);
    const NodeId relu = r.members[0];
    const std::string ref = nodeRef(g, relu);

    SECTION("another op")
    {
        build.node(relu).op = "aten::gelu";
        Check c = keyFailure(g, pattern, relu);
        REQUIRE(c.description == "node is aten::relu or aten::relu_");
        REQUIRE(c.actual == ref + " is aten::gelu");
    }
    SECTION("no output metadata")
    {
        build.node(relu).meta = {};
        Check c = keyFailure(g, pattern, relu);
        REQUIRE(c.description == "output metadata is known");
        REQUIRE(c.actual == ref + " has no tensor metadata");
    }
    SECTION("input missing")
    {
        build.setArgs(relu, {}, {});
        Check c = keyFailure(g, pattern, relu);
        REQUIRE(c.description == "input is a tensor");
        REQUIRE(c.actual == "input is missing");
    }
    SECTION("input shape unknown")
    {
        build.node(g.findByName("x0")).meta.shape.reset();
        Check c = keyFailure(g, pattern, relu);
        REQUIRE(c.description == "input shape is known");
        REQUIRE(c.actual == "input %x0 has no shape");
    }
    SECTION("spelled as a target Inductor's pre-grad batch_relu does not match")
    {
        // Dynamo records torch.relu(x) and x.relu() as they are written;
        // Inductor 2.6's batch_relu matches torch.nn.functional.relu only.
        build.node(relu).provenance.originalSpelling = "torch.relu";
        Check c = keyFailure(g, pattern, relu);
        REQUIRE(c.description
                == "called as torch.nn.functional.relu or torch.nn.functional.relu_ (the target Inductor's "
                   "pre-grad fusion matches)");
        REQUIRE(c.actual == ref + " is called as torch.relu");
        build.node(relu).provenance.originalSpelling = "Tensor.relu";
        REQUIRE(keyFailure(g, pattern, relu).actual == ref + " is called as the method x.relu()");
        build.node(relu).provenance.originalSpelling = "torch.nn.functional.relu";
        REQUIRE(keyOf(g, pattern, relu) == "input [4, 8]");
    }
    SECTION("passed checks carry their values too")
    {
        MatchTrace trace(MatchTrace::Mode::Explain);
        REQUIRE(pattern.key(g, relu, trace).has_value());
        REQUIRE(trace.checks().size() == 5);
        REQUIRE(trace.checks()[2].actual == "input is %x0");
        REQUIRE(trace.checks()[3].actual == "input %x0 is f32[4, 8]");
        // No torch-level spelling (a TorchScript or AOT graph): the check passes.
        REQUIRE(trace.checks()[4].passed);
    }
}

TEST_CASE("batch_detach, batch_nan_to_num, batch_clamp and batch_dropout fuse with their arguments", "[patterns]")
{
    struct Case {
        Math kind;
        const char *op, *name;
        std::vector<Arg> args;
        const char *key;
    };
    const std::vector<Case> cases{
        {Math::Detach, "aten::detach", "batch_detach", {}, "input [4, 8] · first user aten::relu"},
        {Math::NanToNum,
         "aten::nan_to_num",
         "batch_nan_to_num",
         {0.0, 1.0, -1.0},
         "input [4, 8] · nan=0.0, posinf=1.0, neginf=-1.0 · first user aten::relu"},
        {Math::Clamp,
         "aten::clamp",
         "batch_clamp",
         {-0.5, 0.5},
         "input [4, 8] · min=-0.5, max=0.5 · first user aten::relu"},
        {Math::Dropout,
         "aten::dropout",
         "batch_dropout",
         {0.1, false},
         "input [4, 8] · p=0.1, train=False · first user aten::relu"},
    };
    for (const Case &c : cases) {
        INFO(c.name);
        BatchMathOpsPreGradFusion pattern(c.kind);
        REQUIRE(pattern.name() == c.name);
        REQUIRE(pattern.benefit() == 18);
        GroupGraph r = mathGraph(c.op, c.args, 5);
        REQUIRE(keyOf(r.graph, pattern, r.members[0]) == c.key);
        FusionGroup group = singleGroup(r.graph, pattern);
        REQUIRE(group.members == r.members);
        fuseAndVerify(r.graph, pattern, group.members);
        const Node &fused = requireStackOpUnbind(r.graph, c.op, 5, "[4, 8]");
        std::vector<Arg> rest(fused.args().begin() + 1, fused.args().end());
        REQUIRE(rest == c.args);
        // The relus now read the getitems.
        for (NodeId relu : opsNamed(r.graph, "aten::relu"))
            REQUIRE(argNode(r.graph, *r.graph.node(relu), 0).op == "getitem");
    }
}

TEST_CASE("math rules fill absent arguments with their defaults", "[patterns]")
{
    BatchMathOpsPreGradFusion clamp(Math::Clamp);
    GroupGraph r = mathGraph("aten::clamp", {NoneArg{}, 0.5}, 5);
    REQUIRE(keyOf(r.graph, clamp, r.members[0]) == "input [4, 8] · min=None, max=0.5 · first user aten::relu");

    BatchMathOpsPreGradFusion dropout(Math::Dropout);
    GroupGraph d = mathGraph("aten::dropout", {}, 5);
    REQUIRE(keyOf(d.graph, dropout, d.members[0]) == "input [4, 8] · p=0.5, train=True · first user aten::relu");
    fuseAndVerify(d.graph, dropout, singleGroup(d.graph, dropout).members);
    const Node &fused = onlyOp(d.graph, "aten::dropout");
    REQUIRE(fused.args().size() == 3);
    REQUIRE(fused.args()[1] == Arg(0.5));
    REQUIRE(fused.args()[2] == Arg(true));

    // FX spells dropout's flag "training".
    Graph &g = d.graph;
    GraphBuilder build = GraphBuilder::reopen(g);
    NodeId x = g.findByName("x0");
    NodeId kw = build.addOp("aten::dropout", {x}, {{"p", 0.2}, {"training", false}});
    build.node(kw).meta = f32({4, 8});
    op(g, "aten::relu", "", {kw}, {4, 8});
    REQUIRE(keyOf(g, dropout, kw) == "input [4, 8] · p=0.2, train=False · first user aten::relu");
}

TEST_CASE("math rules explain each failed condition", "[patterns]")
{
    BatchMathOpsPreGradFusion pattern(Math::Clamp);
    GroupGraph r = mathGraph("aten::clamp", {-0.5, 0.5}, 6);
    Graph &g = r.graph;
    GraphBuilder build = GraphBuilder::reopen(g);
    const NodeId clamp = r.members[0];

    SECTION("a bound is a tensor")
    {
        NodeId lo = input(g, "lo", {4, 8});
        build.setArgs(clamp, {g.findByName("x0"), lo, 0.5}, {});
        Check c = keyFailure(g, pattern, clamp);
        REQUIRE(c.description == "min is a literal");
        REQUIRE(c.actual == "min is the tensor %lo");
    }
    SECTION("no users")
    {
        NodeId lone = op(g, "aten::clamp", "", {g.findByName("x1"), -0.5, 0.5}, {4, 8});
        Check c = keyFailure(g, pattern, lone);
        REQUIRE(c.description == "output has a user");
        REQUIRE(c.actual == nodeRef(g, lone) + " has no users");
    }
    SECTION("different bounds or first users are different keys")
    {
        build.setArgs(r.members[1], {g.findByName("x1"), -1.0, 1.0}, {});
        NodeId relu = g.users(r.members[2]).front();
        build.node(relu).op = "aten::sigmoid";
        HorizontalSearchResult result = searchHorizontal(g, pattern);
        REQUIRE(result.groups.empty());
        REQUIRE(result.outcomes.at(r.members[0]).kind == CandidateOutcome::Kind::GroupTooSmall);
        REQUIRE(result.outcomes.at(r.members[0]).key == "input [4, 8] · min=-0.5, max=0.5 · first user aten::relu");
        REQUIRE(result.outcomes.at(r.members[1]).key == "input [4, 8] · min=-1.0, max=1.0 · first user aten::relu");
        REQUIRE(result.outcomes.at(r.members[2]).key == "input [4, 8] · min=-0.5, max=0.5 · first user aten::sigmoid");
    }
}

TEST_CASE("applying a horizontal group that later edits made dependent is refused and leaves the graph as it was",
          "[patterns]")
{
    GroupGraph r = unaryGraph("aten::relu", 5); // min_fuse_set_size is 5 before grad
    PatternSet set;
    const Pattern &pattern = set.add(std::make_unique<BatchPointwiseOpsPreGradFusion>(Unary::Relu));
    const GreedyDriver driver(set);
    const FusionGroup group = singleGroup(r.graph, static_cast<const HorizontalPattern &>(pattern));
    REQUIRE(group.members.size() == 5);
    Match match;
    match.pattern = pattern.name();
    match.anchor = group.members.front();
    match.nodes = group.members;

    // relu1 now reads relu0: fusing the five would feed the stack its own output.
    PatternRewriter rewriter(r.graph);
    rewriter.setArgs(r.members[1], {Arg(r.members[0])});
    const std::string before = writeGraphJson(r.graph);
    EditLog log;
    CHECK_FALSE(driver.apply(r.graph, match, &log));
    CHECK(writeGraphJson(r.graph) == before);
    CHECK(verify(r.graph).empty());
    CHECK(log.appliedCount() == 0);
}

TEST_CASE("applyOneMatch: the IDE's single apply takes the drivers' path, with each outcome named", "[patterns]")
{
    PatternSet set;
    const Pattern &pattern = set.add(std::make_unique<BatchPointwiseOpsPreGradFusion>(Unary::Relu));
    auto matchOf = [&](GroupGraph &r) {
        const FusionGroup group = singleGroup(r.graph, static_cast<const HorizontalPattern &>(pattern));
        REQUIRE(group.members.size() == 5);
        Match match;
        match.pattern = pattern.name();
        match.anchor = group.members.front();
        match.nodes = group.members;
        return match;
    };

    SECTION("applied: one group labelled pattern@anchor, the graph in order")
    {
        GroupGraph r = unaryGraph("aten::relu", 5);
        const Match match = matchOf(r);
        const std::string anchor = r.graph.node(match.anchor)->name;
        EditLog log;
        const ApplyOutcome outcome = applyOneMatch(r.graph, set, match, log);
        CHECK(outcome.kind == ApplyOutcome::Kind::Applied);
        REQUIRE(log.appliedCount() == 1);
        CHECK(log.groups().front().label == pattern.name() + "@" + anchor);
        CHECK(outcome.nodesRemoved >= 5); // the five relus, net of temporaries
        CHECK(outcome.nodesAdded > 0);
        CHECK(verify(r.graph).empty());
    }
    SECTION("a verifier's objection undoes the rewrite and is the outcome's message")
    {
        GroupGraph r = unaryGraph("aten::relu", 5);
        const Match match = matchOf(r);
        const std::string before = writeGraphJson(r.graph);
        DriverOptions options;
        int checks = 0;
        options.verifyRewrite = [&](const Graph &) -> std::optional<std::string> {
            ++checks;
            return std::string("output 0 differs at element 3");
        };
        EditLog log;
        const ApplyOutcome outcome = applyOneMatch(r.graph, set, match, log, options);
        CHECK(outcome.kind == ApplyOutcome::Kind::FailedVerification);
        CHECK(outcome.message == "output 0 differs at element 3");
        CHECK(checks == 1);
        CHECK(writeGraphJson(r.graph) == before);
        CHECK(log.appliedCount() == 0);
    }
    SECTION("a rejected match and a stale one change nothing")
    {
        GroupGraph r = unaryGraph("aten::relu", 5);
        const Match match = matchOf(r);
        const std::string before = writeGraphJson(r.graph);
        DriverOptions options;
        options.isRejected = [](const Graph &, const Match &) { return true; };
        EditLog log;
        CHECK(applyOneMatch(r.graph, set, match, log, options).kind == ApplyOutcome::Kind::Rejected);
        Match gone = match;
        gone.nodes.push_back(NodeId{uint32_t(r.graph.idBound() + 7)}); // a node no longer in the graph
        CHECK(applyOneMatch(r.graph, set, gone, log).kind == ApplyOutcome::Kind::Stale);
        CHECK(writeGraphJson(r.graph) == before);
        CHECK(log.appliedCount() == 0);
    }
    SECTION("a fusion that would close a cycle is undone, and says so")
    {
        GroupGraph r = unaryGraph("aten::relu", 5);
        const Match match = matchOf(r);
        PatternRewriter rewriter(r.graph);
        rewriter.setArgs(r.members[1], {Arg(r.members[0])});
        const std::string before = writeGraphJson(r.graph);
        EditLog log;
        const ApplyOutcome outcome = applyOneMatch(r.graph, set, match, log);
        CHECK(outcome.kind == ApplyOutcome::Kind::ClosedCycle);
        CHECK(outcome.message.find("cycle") != std::string::npos);
        CHECK(writeGraphJson(r.graph) == before);
    }
}
