#include "core/ir/GraphBuilder.h"
#include "core/io/GraphJson.h"
#include "core/ir/Verifier.h"
#include "core/rewrite/GreedyDriver.h"
#include "core/rewrite/HorizontalSearch.h"
#include "core/rewrite/InductorSchedule.h"
#include "core/rewrite/MatchUtils.h"
#include "ToyPatterns.h"

#include <catch.hpp>

using namespace fusebox;

using namespace fusebox::toy;

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
        GraphBuilder build(g);
        NodeId x = build.addInput("x", f32({2, 2}));
        std::vector<Arg> outs;
        NodeId prev = x;
        for (int i = 0; i < 12; ++i) {
            NodeId r = build.addOp("aten::relu", {i < 6 ? x : prev});
            build.node(r).meta = f32({2, 2});
            outs.push_back(r);
            prev = r;
        }
        build.setOutputs({Arg::list(outs)});
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

namespace {

/// x -> neg -> neg -> neg -> neg -> output.
Graph negChain()
{
    Graph g;
    GraphBuilder build(g);
    NodeId v = build.addInput("x", f32({4}));
    for (int i = 0; i < 4; ++i)
        v = build.addOp("aten::neg", {v});
    build.setOutputs({v});
    return g;
}

size_t countOpIn(const Graph &g, const std::string &op)
{
    return g.nodesWithOp(op).size();
}

} // namespace

TEST_CASE("Inductor's schedule: a vertical pass visits the nodes it started with once, last to first, counter "
          "repeats it",
          "[rewrite][schedule]")
{
    PatternSet set;
    set.add(std::make_unique<FirstDoubleNeg>());
    // Last to first: the two later pairs do not match (their inner neg reads
    // a neg) until the first pair is gone, which the pass reaches last.
    Graph once = negChain();
    DriverResult r = InductorScheduleDriver(set).run(once, GraphStage::PreGrad);
    CHECK(r.rounds == 1);
    CHECK(countOpIn(once, "aten::neg") == 2);
    CHECK(r.inductorCounters
          == std::map<std::string, size_t>{{"first_double_neg", 1},
                                           {"pattern_matcher_count", 1},
                                           {"pattern_matcher_nodes", 2}});

    set.find("first_double_neg")->options().set("counter", int64_t(2));
    Graph twice = negChain();
    r = InductorScheduleDriver(set).run(twice, GraphStage::PreGrad);
    CHECK(r.rounds == 2);
    CHECK(countOpIn(twice, "aten::neg") == 0);
    CHECK(r.inductorCounters.at("first_double_neg") == 2);

    // Fusebox's own search goes to a fixed point whatever the counter.
    Graph greedy = negChain();
    GreedyDriver(set).run(greedy);
    CHECK(countOpIn(greedy, "aten::neg") == 0);

    // Post-grad passes run once: 2.6 has no counter there.
    PatternSet post;
    post.add(std::make_unique<FirstDoubleNeg>());
    post.find("first_double_neg")->options().set("counter", int64_t(2));
    CHECK(inductorSchedule(post, PassStage::PreGrad, {}).front().repeat == 2);
    CHECK(inductorSchedule(post, PassStage::PostGrad, {}).empty()); // a pre-grad rule
}

TEST_CASE("Inductor's schedule: horizontal rules run before vertical ones, each over the whole graph",
          "[rewrite][schedule]")
{
    Graph g = toyGraph();
    PatternSet set = toySet();
    const auto schedule = inductorSchedule(set, PassStage::PreGrad, {"double_neg", "batch_toy_relu"});
    REQUIRE(schedule.size() == 2);
    CHECK(schedule[0].pattern == "batch_toy_relu");
    CHECK(schedule[1].pattern == "double_neg");

    EditLog log;
    const std::string before = writeGraphJson(g);
    DriverResult r = InductorScheduleDriver(set).run(g, GraphStage::PreGrad, &log);
    CHECK(r.converged);
    CHECK(r.counters["batch_toy_relu"].applied == 1);
    CHECK(r.counters["double_neg"].applied == 6);
    CHECK(r.inductorCounters
          == std::map<std::string, size_t>{{"batch_toy_relu", 1},
                                           {"double_neg", 6},
                                           {"pattern_matcher_count", 6},
                                           {"pattern_matcher_nodes", 12}});
    CHECK(verify(g).empty());
    CHECK(g.size() == 12); // what the greedy driver reaches too
    while (log.canUndo())
        REQUIRE(log.undo(g));
    CHECK(writeGraphJson(g) == before);
}

TEST_CASE("graphStage: torch-level spellings are pre-grad, other PT2 graphs post-grad, the rest both",
          "[rewrite][schedule]")
{
    Graph g;
    GraphBuilder build(g);
    NodeId x = build.addInput("x", f32({4}));
    NodeId relu = build.addOp("aten::relu", {x});
    build.setOutputs({relu});
    CHECK(graphStage(g) == GraphStage::Both); // no PT2 format: TorchScript, graph JSON
    build.metadata()["source.format"] = "fx-text";
    CHECK(graphStage(g) == GraphStage::PostGrad);
    build.node(relu).provenance.originalSpelling = "torch.nn.functional.relu";
    CHECK(graphStage(g) == GraphStage::PreGrad);
    build.node(relu).provenance.originalSpelling = "torch.ops.aten.relu.default";
    CHECK(graphStage(g) == GraphStage::PostGrad);
    build.metadata()["source.format"] = "torchscript";
    CHECK(graphStage(g) == GraphStage::Both);
}

TEST_CASE("Inductor's schedule: patterns of any stage run after the stage's passes, once", "[rewrite][schedule]")
{
    PatternSet set;
    set.add(std::make_unique<FirstDoubleNeg>()); // a pre-grad pattern
    Graph g = negChain();
    // On a post-grad graph a pre-grad rule does not run...
    DriverResult r = InductorScheduleDriver(set).run(g, GraphStage::PostGrad);
    CHECK(countOpIn(g, "aten::neg") == 4);
    // ...unless it is a custom pattern, given for this graph.
    InductorScheduleDriver driver(set);
    driver.setAnyStagePatterns({"first_double_neg"});
    r = driver.run(g, GraphStage::PostGrad);
    CHECK(r.rounds == 1);
    CHECK(countOpIn(g, "aten::neg") == 2);
}

namespace {

/// Hears the rewrites a driver takes back.
struct UndoneCollector final : DriverListener {
    std::vector<std::string> reasons;
    size_t applied = 0;
    void rewriteApplied(const Graph &, const Match &, const EditGroup &) override { ++applied; }
    void rewriteUndone(const Graph &, const Match &, const std::string &reason) override { reasons.push_back(reason); }
};

} // namespace

TEST_CASE("Inductor's schedule: candidates that an earlier fusion of the same pass made dependent are not grouped",
          "[rewrite][schedule]")
{
    // a1 = relu(x) and a2 = relu(narrow(b2)) share a key (f32[4, 8]), as do
    // b1 = relu(cat(a1, a1)) and b2 = relu(y) (f32[4, 16]); each pair is
    // independent in the graph as it is. The b group comes first (the output
    // reads it first); once fused, a2 reads b's fusion, which reads a1. As
    // in 2.6, the search reads the graph as the fusion left it: a1 and a2
    // are dependent, each alone in its subset, and nothing more is fused (a
    // search on the graph as the pass began would fuse them and close a
    // cycle).
    Graph g;
    GraphBuilder build(g);
    NodeId x = build.addInput("x", f32({4, 8}));
    NodeId y = build.addInput("y", f32({4, 16}));
    auto relu = [&](NodeId in, std::vector<int64_t> shape) {
        NodeId r = build.addOp("aten::relu", {in});
        build.node(r).meta = f32(shape);
        return r;
    };
    NodeId a1 = relu(x, {4, 8});
    NodeId b1 = relu(build.addOp("aten::cat", {Arg::list({a1, a1}), int64_t(1)}), {4, 16});
    NodeId b2 = relu(y, {4, 16});
    NodeId a2 = relu(build.addOp("aten::narrow", {b2, int64_t(1), int64_t(0), int64_t(8)}), {4, 8});
    std::vector<Arg> outs;
    for (NodeId n : {b1, a2, a1, b2})
        outs.push_back(build.addOp("aten::neg", {n}));
    build.setOutputs(outs);
    const std::string before = writeGraphJson(g);

    PatternSet set;
    set.add(std::make_unique<BatchToyRelu>());
    set.find("batch_toy_relu")->options().set("min_fuse_set_size", int64_t(2));
    EditLog log;
    UndoneCollector heard;
    DriverResult r = InductorScheduleDriver(set).run(g, GraphStage::PreGrad, &log, &heard);
    CHECK(r.message.empty());
    CHECK(verify(g).empty());
    CHECK(countOpIn(g, "aten::relu") == 3); // the b group's relu, a1, a2
    CHECK(r.inductorCounters.at("batch_toy_relu") == 1);
    CHECK(r.counters["batch_toy_relu"].applied == 1);
    CHECK(r.rewrites.size() == 1);
    CHECK(heard.applied == 1);
    CHECK(heard.reasons.empty());
    while (log.canUndo())
        REQUIRE(log.undo(g));
    CHECK(writeGraphJson(g) == before);
}
