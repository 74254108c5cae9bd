#include "core/io/GraphJson.h"
#include "core/ir/Verifier.h"
#include "core/rewrite/GreedyDriver.h"
#include "core/rewrite/HorizontalSearch.h"
#include "core/rewrite/MatchUtils.h"

#include <catch.hpp>

using namespace fusebox;

namespace {

TensorMeta f32(std::vector<int64_t> shape)
{
    TensorMeta m;
    m.dtype = DType::Float32;
    m.shape.emplace();
    for (int64_t d : shape)
        m.shape->push_back(d);
    return m;
}

/// neg(neg(x)) -> x.
class DoubleNeg final : public VerticalPattern {
public:
    DoubleNeg() : VerticalPattern("double_neg", PassStage::PreGrad, 50, {"aten::neg"}, "neg(neg(x)) is x") {}
    std::optional<Match> match(const Graph &g, NodeId anchor, MatchTrace &trace) const override
    {
        NodeId inner = nodeArgAt(*g.node(anchor), 0, "self");
        const Node *in = g.node(inner);
        if (!trace.check(in && isOp(*in, "aten::neg"), "input is a neg",
                         [&] { return "input " + nodeRef(g, inner) + " is " + (in ? in->op : "?"); }, {inner}))
            return std::nullopt;
        if (!trace.check(g.useCount(inner) == 1, "inner neg used once",
                         [&] { return nodeRef(g, inner) + " has " + std::to_string(g.useCount(inner)) + " users"; }))
            return std::nullopt;
        return Match{name(), anchor, {anchor, inner}, {}, benefit()};
    }
    void rewrite(PatternRewriter &r, const Match &m) const override
    {
        NodeId x = nodeArgAt(*r.graph().node(m.nodes[1]), 0, "self");
        r.replaceAndErase(m.anchor, x);
    }
};

/// Toy horizontal rule: relus of equal shape -> stack, relu, unbind.
class BatchToyRelu final : public HorizontalPattern {
public:
    BatchToyRelu() : HorizontalPattern("batch_toy_relu", PassStage::PreGrad, 20, {"aten::relu"}, "toy") {}
    std::optional<std::string> key(const Graph &g, NodeId id, MatchTrace &trace) const override
    {
        const Node &n = *g.node(id);
        if (!trace.check(n.meta.hasStaticShape(), "shape known", [&] { return n.meta.toString(); }))
            return std::nullopt;
        return n.meta.toString();
    }
    void fuse(PatternRewriter &r, const std::vector<NodeId> &group) const override
    {
        Graph &g = r.graph();
        std::vector<Arg> inputs;
        for (NodeId m : group)
            inputs.push_back(g.node(m)->args()[0]);
        NodeId stack = r.createOp("aten::stack", {Arg::list(inputs), int64_t(0)}, {}, group.front());
        NodeId relu = r.createOp("aten::relu", {stack}, {}, group.front());
        NodeId unbind = r.createOp("aten::unbind", {relu, int64_t(0)}, {}, group.front());
        for (size_t i = 0; i < group.size(); ++i) {
            NodeId item = r.createOp("getitem", {unbind, int64_t(i)}, {}, group.front(), g.node(group[i])->meta);
            r.replaceAndErase(group[i], item);
        }
    }
};

/// x -> 6 independent relus -> one neg(neg()) each -> cat.
Graph toyGraph(int branches = 6)
{
    Graph g;
    NodeId x = g.addInput("x", f32({4, 8}));
    std::vector<Arg> outs;
    for (int i = 0; i < branches; ++i) {
        NodeId r = g.addOp("aten::relu", {x});
        g.node(r)->meta = f32({4, 8});
        NodeId n1 = g.addOp("aten::neg", {r});
        NodeId n2 = g.addOp("aten::neg", {n1});
        outs.push_back(n2);
    }
    NodeId cat = g.addOp("aten::cat", {Arg::list(outs), int64_t(0)});
    g.setOutputs({cat});
    return g;
}

PatternSet toySet()
{
    PatternSet set;
    set.add(std::make_unique<DoubleNeg>());
    set.add(std::make_unique<BatchToyRelu>());
    return set;
}

} // namespace

TEST_CASE("the greedy driver rewrites to a fixed point, highest benefit first", "[rewrite]")
{
    Graph g = toyGraph();
    PatternSet set = toySet();
    GreedyDriver driver(set);

    auto matches = driver.findMatches(g);
    REQUIRE(matches.size() == 7); // 6 double negs, then 1 relu group
    CHECK(matches.front().pattern == "double_neg");
    CHECK(matches.back().pattern == "batch_toy_relu");
    CHECK(matches.back().nodes.size() == 6);
    CHECK(matches.back().key == "f32[4, 8]");

    const std::string before = writeGraphJson(g);
    EditLog log;
    DriverResult r = driver.run(g, &log);
    CHECK(r.converged);
    CHECK(r.rounds == 2);
    CHECK(r.counters["double_neg"].applied == 6);
    CHECK(r.counters["batch_toy_relu"].applied == 1);
    CHECK(verify(g).empty());
    // x, stack, relu, unbind, 6 getitems, cat, output
    CHECK(g.size() == 12);
    CHECK(r.nodesRemoved == 18);
    CHECK(r.nodesAdded == 9);

    // The whole run undoes group by group.
    while (log.canUndo())
        REQUIRE(log.undo(g));
    CHECK(writeGraphJson(g) == before);
}

TEST_CASE("the driver is deterministic", "[rewrite]")
{
    Graph a = toyGraph(), b = toyGraph();
    PatternSet set = toySet();
    GreedyDriver(set).run(a);
    GreedyDriver(set).run(b);
    CHECK(writeGraphJson(a) == writeGraphJson(b));
}

TEST_CASE("rejected matches are skipped and counted once", "[rewrite]")
{
    Graph g = toyGraph();
    PatternSet set = toySet();
    DriverOptions options;
    options.isRejected = [](const Graph &graph, const Match &m) {
        return m.pattern == "double_neg" && graph.node(m.anchor)->name == "neg_1";
    };
    DriverResult r = GreedyDriver(set, options).run(g);
    CHECK(r.converged);
    CHECK(r.counters["double_neg"].applied == 5);
    CHECK(r.counters["double_neg"].rejected == 1);
    CHECK(g.findByName("neg_1").isValid());
}

TEST_CASE("a rewrite failing verification is undone and not retried", "[rewrite]")
{
    Graph g = toyGraph();
    PatternSet set = toySet();
    DriverOptions options;
    options.verifyRewrite = [](const Graph &graph) -> std::optional<std::string> {
        for (NodeId id : graph.nodeIds())
            if (graph.node(id)->op == "aten::stack")
                return std::string("output 0: max |diff| 1.0");
        return std::nullopt;
    };
    DriverResult r = GreedyDriver(set, options).run(g);
    CHECK(r.converged);
    CHECK(r.counters["batch_toy_relu"].failedVerification == 1);
    CHECK(r.counters["batch_toy_relu"].applied == 0);
    CHECK(r.counters["double_neg"].applied == 6);
    CHECK(verify(g).empty());
    CHECK(g.size() == 9); // x, 6 relus, cat, output
}

TEST_CASE("a driver that cannot converge says so", "[rewrite]")
{
    Graph g = toyGraph(1);
    PatternSet set = toySet();
    DriverOptions options;
    options.maxRounds = 0;
    DriverResult r = GreedyDriver(set, options).run(g);
    CHECK_FALSE(r.converged);
    CHECK(r.message == "still rewriting after 0 rounds (raise the round limit, or a pattern keeps undoing another)");
}

TEST_CASE("the horizontal search explains why candidates were not grouped", "[rewrite]")
{
    BatchToyRelu rule;
    SECTION("too few candidates")
    {
        Graph g = toyGraph(3);
        auto result = searchHorizontal(g, rule);
        CHECK(result.groups.empty());
        REQUIRE(result.outcomes.size() == 3);
        for (auto &[id, outcome] : result.outcomes) {
            CHECK(outcome.kind == CandidateOutcome::Kind::GroupTooSmall);
            CHECK(outcome.candidates == 3);
        }
    }
    SECTION("max_fuse_set_size splits a group; dependent candidates are deferred")
    {
        Graph g;
        NodeId x = g.addInput("x", f32({2, 2}));
        std::vector<Arg> outs;
        NodeId prev = x;
        for (int i = 0; i < 12; ++i) {
            NodeId r = g.addOp("aten::relu", {i < 6 ? x : prev});
            g.node(r)->meta = f32({2, 2});
            outs.push_back(r);
            prev = r;
        }
        g.setOutputs({Arg::list(outs)});
        rule.options().set("max_fuse_set_size", int64_t(5));
        auto result = searchHorizontal(g, rule);
        // relu_6..relu_11 form a chain: at most one of them per subset.
        REQUIRE(result.groups.size() == 1);
        CHECK(result.groups[0].members.size() == 5);
        size_t tooSmall = 0;
        for (auto &[id, outcome] : result.outcomes)
            if (outcome.kind == CandidateOutcome::Kind::SubsetTooSmall)
                ++tooSmall;
        CHECK(tooSmall == 7);
    }
}

#include "core/rewrite/Explainer.h"

TEST_CASE("explain gives the ordered checks with actual values", "[rewrite]")
{
    Graph g = toyGraph(3);
    DoubleNeg neg;
    BatchToyRelu relu;

    NodeId outer = g.findByName("neg_1"), inner = g.findByName("neg");
    Explanation fires = explain(g, neg, outer);
    CHECK(fires.matched);
    CHECK(fires.summary == "double_neg fires at %neg_1");
    REQUIRE(fires.checks.size() == 4);
    CHECK(fires.checks[2].description == "input is a neg");
    CHECK(fires.checks[2].passed);

    Explanation notHere = explain(g, neg, inner);
    CHECK_FALSE(notHere.matched);
    CHECK(notHere.summary == "input is a neg: input %relu is aten::relu");

    Explanation wrongOp = explain(g, neg, g.findByName("cat"));
    CHECK(wrongOp.summary == "node is a root op of the pattern: %cat is aten::cat; the pattern starts at aten::neg");

    Explanation small = explain(g, relu, g.findByName("relu"));
    CHECK_FALSE(small.matched);
    CHECK(small.summary == "candidate group reaches min_fuse_set_size: candidate group of 3 < min_fuse_set_size 5");

    NearMissSummary summary = nearMisses(g, neg);
    CHECK(summary.attempted == 6);
    CHECK(summary.matched == 3);
    REQUIRE(summary.groups.size() == 1);
    CHECK(summary.groups[0].check == "input is a neg");
    CHECK(summary.groups[0].nodes.size() == 3);
}
