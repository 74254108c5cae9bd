// The engine's contract (issue 15): a rewrite counts only when it reports
// success, no fusion leaves a cycle behind, and patterns that undo each other
// are reported as such instead of looping.

#include "core/ir/GraphBuilder.h"
#include "ToyPatterns.h"

#include "../patterns/GroupBatchGraphs.h"
#include "../patterns/GroupBatchTestSupport.h"
#include "core/io/GraphJson.h"
#include "core/ir/Traversal.h"
#include "patterns/group_batch/BatchLinear.h"

#include <catch.hpp>

#include <algorithm>

using namespace fusebox;
using fusebox::test::gb::GroupGraph;
using fusebox::test::gb::linearGraph;
using fusebox::test::gb::opsNamed;

namespace {

/// A horizontal rule that groups relus as BatchToyRelu does, but whose fuse
/// always finds the group no longer matching: it changes nothing.
class StaleToyRelu final : public HorizontalPattern {
public:
    StaleToyRelu()
        : HorizontalPattern("stale_toy_relu", PassStage::PreGrad, 20, {"aten::relu"}, "toy")
    {}
    std::optional<std::string> key(const Graph &g, NodeId id, MatchTrace &) const override
    {
        return g.node(id)->meta.toString();
    }
    LogicalResult fuse(PatternRewriter &, const std::vector<NodeId> &) const override { return failure(); }
};

/// test::rewire(x) -> test::rewired(tap): reads the graph's "tap" node instead
/// of its input. Not a semantic rewrite: it makes whatever reads the rewired
/// node depend on "tap", as an earlier rewrite of a round can.
class Rewire final : public VerticalPattern {
public:
    Rewire()
        : VerticalPattern("rewire", PassStage::PreGrad, 100, {"test::rewire"}, "toy")
    {}
    std::optional<Match> match(const Graph &g, NodeId anchor, MatchTrace &) const override
    {
        return Match{name(), anchor, {anchor}, {}, benefit()};
    }
    LogicalResult rewrite(PatternRewriter &r, const Match &m) const override
    {
        r.setArgs(m.anchor, {r.graph().findByName("tap")});
        r.modify(m.anchor, [](Node &n) { n.op = "test::rewired"; });
        return success();
    }
};

/// Turns test::ping into test::pong, or test::pong into test::ping.
class Flip final : public VerticalPattern {
public:
    Flip(std::string from, std::string to)
        : VerticalPattern("flip_" + from.substr(6), PassStage::PreGrad, 10, {from}, "toy")
        , m_to(std::move(to))
    {}
    std::optional<Match> match(const Graph &, NodeId anchor, MatchTrace &) const override
    {
        return Match{name(), anchor, {anchor}, {}, benefit()};
    }
    LogicalResult rewrite(PatternRewriter &r, const Match &m) const override
    {
        r.modify(m.anchor, [&](Node &n) { n.op = m_to; });
        return success();
    }

private:
    std::string m_to;
};

} // namespace

TEST_CASE("a fuse that finds its group no longer matching is not an applied rewrite", "[rewrite][contract]")
{
    PatternSet set;
    set.add(std::make_unique<group_batch::PreGradBatchLinearFusion>());
    GroupGraph r = linearGraph(5, true);
    const std::vector<Match> matches = GreedyDriver(set).findMatches(r.graph);
    REQUIRE(matches.size() == 1);
    REQUIRE(matches.front().nodes.size() == 5);
    // The third linear's weight changes shape: the group no longer shares a key.
    {
        PatternRewriter rewriter(r.graph);
        rewriter.modify(r.graph.findByName("w3"), [](Node &n) { n.meta = f32({6, 9}); });
    }
    const size_t before = r.graph.size();
    EditLog log;
    CHECK_FALSE(GreedyDriver(set).apply(r.graph, matches.front(), &log));
    CHECK(log.groups().empty());
    CHECK(r.graph.size() == before);
    CHECK(opsNamed(r.graph, "aten::linear").size() == 5);
}

TEST_CASE("a pattern that reports failure is never counted, and the run converges", "[rewrite][contract]")
{
    Graph g = toy::toyGraph();
    PatternSet set;
    set.add(std::make_unique<StaleToyRelu>());
    const std::string before = writeGraphJson(g);
    EditLog log;
    DriverResult r = GreedyDriver(set).run(g, &log);
    CHECK(r.counters["stale_toy_relu"].matched == 1);
    CHECK(r.counters["stale_toy_relu"].applied == 0);
    CHECK(r.rewrites.empty());
    CHECK(r.converged);
    CHECK(r.rounds == 1);
    CHECK(log.appliedCount() == 0);
    CHECK(writeGraphJson(g) == before);
}

TEST_CASE("the driver undoes a fusion that an earlier rewrite of the round made close a cycle", "[rewrite][contract]")
{
    // x -> a = relu(x) -> tap = neg(a) -> output
    // x -> c = test::rewire(x) -> d = relu(c) -> output
    // The relus a and d are independent, so the search groups them. Rewire
    // (benefit 100) runs first and makes c read tap: d now depends on a, and
    // stacking [x, c] before a for the fusion would read a's replacement.
    Graph g;
    GraphBuilder build(g);
    NodeId x = build.addInput("x", f32({4, 8}));
    NodeId a = build.addOp("aten::relu", {x}, {}, "a");
    build.node(a).meta = f32({4, 8});
    NodeId tap = build.addOp("aten::neg", {a}, {}, "tap");
    NodeId c = build.addOp("test::rewire", {x}, {}, "c");
    NodeId d = build.addOp("aten::relu", {c}, {}, "d");
    build.node(d).meta = f32({4, 8});
    build.setOutputs({tap, d});

    PatternSet set;
    set.add(std::make_unique<Rewire>());
    set.add(std::make_unique<toy::BatchToyRelu>());
    set.find("batch_toy_relu")->options().set("min_fuse_set_size", int64_t(2));
    GreedyDriver driver(set);
    const std::vector<Match> matches = driver.findMatches(g);
    REQUIRE(matches.size() == 2);
    REQUIRE(matches[0].pattern == "rewire");
    std::vector<NodeId> group = matches[1].nodes;
    std::sort(group.begin(), group.end());
    REQUIRE(group == std::vector<NodeId>{a, d});

    DriverResult r = driver.run(g);
    CHECK(r.counters["rewire"].applied == 1);
    CHECK(r.counters["batch_toy_relu"].applied == 0);
    CHECK(r.counters["batch_toy_relu"].closedCycle == 1);
    CHECK(r.message.empty());
    CHECK(r.converged);
    CHECK_FALSE(hasCycle(g));
    CHECK(verify(g).empty());
    // The graph is the rewired one, the relus as they were.
    CHECK(g.node(c)->op == "test::rewired");
    CHECK(g.contains(a));
    CHECK(g.contains(d));
    CHECK(opsNamed(g, "aten::stack").empty());
}

TEST_CASE("patterns that undo each other never converge, and the run says so", "[rewrite][contract]")
{
    Graph g;
    GraphBuilder build(g);
    NodeId x = build.addInput("x", f32({4}));
    NodeId p = build.addOp("test::ping", {x});
    build.setOutputs({p});
    PatternSet set;
    set.add(std::make_unique<Flip>("test::ping", "test::pong"));
    set.add(std::make_unique<Flip>("test::pong", "test::ping"));
    DriverOptions options;
    options.maxRounds = 6;
    DriverResult r = GreedyDriver(set, options).run(g);
    CHECK_FALSE(r.converged);
    CHECK(r.rounds == 6);
    // One flip a round, alternating: three each, back where it started.
    CHECK(r.counters["flip_ping"].applied == 3);
    CHECK(r.counters["flip_pong"].applied == 3);
    CHECK(g.node(p)->op == "test::ping");
    CHECK(r.message == "still rewriting after 6 rounds (raise the round limit, or a pattern keeps undoing another)");
}
