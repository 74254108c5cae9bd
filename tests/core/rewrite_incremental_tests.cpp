// The driver's speed machinery must not change what it finds: the op index,
// the slot-level input lists, the pruned horizontal search, incremental rounds
// the O(n) topological order and the parallel pattern search, each checked
// against the plain definition.

#include "core/ir/GraphBuilder.h"
#include "bench/RecsysGraphGenerator.h"
#include "core/ir/GraphSignature.h"
#include "core/ir/ParallelFor.h"
#include "core/ir/Traversal.h"
#include "core/ir/Verifier.h"
#include "core/rewrite/GreedyDriver.h"
#include "core/rewrite/HorizontalSearch.h"
#include "core/rewrite/PatternRewriter.h"
#include "patterns/Catalog.h"

#include <catch.hpp>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <set>

using namespace fusebox;

namespace {

std::set<NodeId> walkForOp(const Graph &g, const std::string &op)
{
    std::set<NodeId> ids;
    for (NodeId id : g.nodeIds())
        if (g.node(id)->isOp() && g.node(id)->op == op)
            ids.insert(id);
    return ids;
}

std::set<NodeId> indexed(const Graph &g, const std::string &op)
{
    const auto &v = g.nodesWithOp(op);
    return {v.begin(), v.end()};
}

} // namespace

TEST_CASE("the op index follows inserts, erases, undo and op changes", "[rewrite][ir]")
{
    Graph g;
    GraphBuilder build(g);
    NodeId x = build.addInput("x");
    NodeId a = build.addOp("aten::relu", {x});
    NodeId b = build.addOp("aten::relu", {a});
    NodeId c = build.addOp("aten::tanh", {b});
    build.setOutputs({c});
    REQUIRE(indexed(g, "aten::relu") == std::set<NodeId>{a, b});
    REQUIRE(g.hasOp(c, "aten::tanh"));
    REQUIRE_FALSE(g.hasOp(x, "aten::tanh"));

    EditLog log;
    log.beginGroup("edit");
    {
        PatternRewriter r(g, &log);
        r.modify(b, [](Node &n) { n.op = "aten::sigmoid"; });
        r.replaceAllUsesWith(c, b);
        r.erase(c);
    }
    log.endGroup();
    CHECK(indexed(g, "aten::relu") == std::set<NodeId>{a});
    CHECK(indexed(g, "aten::sigmoid") == std::set<NodeId>{b});
    CHECK(g.nodesWithOp("aten::tanh").empty());
    CHECK(verify(g).empty());

    REQUIRE(log.undo(g));
    CHECK(indexed(g, "aten::relu") == std::set<NodeId>{a, b});
    CHECK(indexed(g, "aten::tanh") == std::set<NodeId>{c});
    CHECK(verify(g).empty());

    Graph copy = g.clone();
    CHECK(indexed(copy, "aten::relu") == std::set<NodeId>{a, b});

    // Assigning the op directly leaves the index stale; the verifier says so.
    build.node(a).op = "aten::gelu";
    const auto issues = verify(g);
    REQUIRE_FALSE(issues.empty());
    CHECK(formatIssues(issues).find("Graph::setOp") != std::string::npos);
    build.setOp(a, "aten::gelu"); // re-files the node under its op
    CHECK(verify(g).empty());
    CHECK(indexed(g, "aten::gelu") == std::set<NodeId>{a});
}

TEST_CASE("the slot input lists equal each node's own references", "[rewrite][ir]")
{
    Graph g = bench::generateRecsysGraph({.targetNodes = 2000});
    GreedyDriver(builtinCatalog()).run(g);
    for (NodeId id : g.nodeIds()) {
        std::vector<NodeId> fromSlot;
        g.forEachInput(id, [&](NodeId in) { fromSlot.push_back(in); });
        REQUIRE(fromSlot == g.node(id)->inputNodes());
    }
    for (const std::string &op : g.opNames())
        REQUIRE(indexed(g, op) == walkForOp(g, op));
}

TEST_CASE("topologicalOrder keeps sorted programs and hoists what is read too early", "[rewrite][ir]")
{
    Graph g;
    GraphBuilder build(g);
    NodeId x = build.addInput("x");
    NodeId a = build.addOp("aten::relu", {x}, {}, "a");
    NodeId b = build.addOp("aten::neg", {x}, {}, "b");
    NodeId c = build.addOp("aten::add", {a, b}, {}, "c");
    build.setOutputs({c});
    REQUIRE(topologicalOrder(g) == g.nodeIds());

    // Move b below its reader: it comes back just before c, nothing else moves.
    build.moveBefore(b, g.output());
    REQUIRE(g.nodeIds() == std::vector<NodeId>{x, a, c, b, g.output()});
    CHECK(topologicalOrder(g) == std::vector<NodeId>{x, a, b, c, g.output()});

    // A cycle gives an empty order.
    build.setArgs(a, {Arg(c)}, {});
    CHECK(topologicalOrder(g).empty());
}

TEST_CASE("the pruned horizontal search finds the same groups as the full one", "[rewrite][horizontal]")
{
    Graph g = bench::generateRecsysGraph({.targetNodes = 3000});
    const PatternSet catalog = builtinCatalog();
    const std::vector<NodeId> order = topologicalOrder(g);
    size_t groups = 0;
    for (const Pattern *p : catalog.all()) {
        if (p->family() != PatternFamily::Horizontal)
            continue;
        const auto &h = static_cast<const HorizontalPattern &>(*p);
        const auto full = searchHorizontal(g, h, order, HorizontalSearchMode::WithOutcomes);
        const auto pruned = searchHorizontal(g, h, order, HorizontalSearchMode::GroupsOnly);
        REQUIRE(full.groups.size() == pruned.groups.size());
        for (size_t i = 0; i < full.groups.size(); ++i) {
            CHECK(full.groups[i].key == pruned.groups[i].key);
            CHECK(full.groups[i].members == pruned.groups[i].members);
        }
        CHECK(pruned.outcomes.empty());
        groups += full.groups.size();
    }
    CHECK(groups > 10); // the generated graph has batchable linears, layernorms, activations
}

TEST_CASE("incremental rounds end at a true fixed point", "[rewrite][driver]")
{
    Graph g = bench::generateRecsysGraph({.targetNodes = 5000});
    const PatternSet catalog = builtinCatalog();
    GreedyDriver driver(catalog);
    const DriverResult r = driver.run(g);
    REQUIRE(r.converged);
    REQUIRE(r.rounds >= 3);
    REQUIRE(r.roundStats.size() == size_t(r.rounds));
    // Round 1 searches everything; later rounds start near the changes; the
    // last one falls back to the whole graph before declaring convergence.
    CHECK(r.roundStats.front().searchedNodes == 0);
    CHECK(r.roundStats[1].searchedNodes > 0);
    CHECK(r.roundStats.back().applied == 0);
    CHECK(r.roundStats.back().fullSearch);
    size_t applied = 0;
    for (const RoundStats &s : r.roundStats)
        applied += s.applied;
    CHECK(applied == r.rewrites.size());
    // Nothing is left for a whole-graph search, and the graph is sound.
    CHECK(driver.findMatches(g).empty());
    CHECK(verify(g).empty());
    CHECK(topologicalOrder(g) == g.nodeIds());
}

TEST_CASE("parallelFor runs every item once, in any number of threads, and rethrows", "[rewrite][driver]")
{
    for (unsigned threads : {0u, 1u, 2u, 7u}) {
        std::vector<std::atomic<int>> hits(100);
        parallelFor(hits.size(), threads, [&](size_t i) { ++hits[i]; });
        for (const std::atomic<int> &h : hits)
            REQUIRE(h == 1);
    }
    // Fewer items than threads, and none at all.
    std::atomic<int> calls{0};
    parallelFor(1, 8, [&](size_t) { ++calls; });
    parallelFor(0, 8, [&](size_t) { ++calls; });
    CHECK(calls == 1);
    // An item that throws stops the loop; the exception reaches the caller.
    CHECK_THROWS_WITH(parallelFor(50, 4,
                                  [](size_t i) {
                                      if (i == 17)
                                          throw std::runtime_error("item 17");
                                  }),
                      "item 17");
}

TEST_CASE("the parallel pattern search finds what one thread finds, and the run is the same", "[rewrite][driver]")
{
    const Graph original = bench::generateRecsysGraph({.targetNodes = 6000});
    const PatternSet catalog = builtinCatalog();
    DriverOptions one, many;
    one.searchThreads = 1;
    many.searchThreads = 4; // more threads than this machine's cores: items interleave

    // findMatches: the same candidates, in the same order.
    const std::vector<Match> a = GreedyDriver(catalog, one).findMatches(original);
    const std::vector<Match> b = GreedyDriver(catalog, many).findMatches(original);
    REQUIRE(a.size() > 100);
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        REQUIRE(a[i].pattern == b[i].pattern);
        REQUIRE(a[i].anchor == b[i].anchor);
        REQUIRE(a[i].nodes == b[i].nodes);
        REQUIRE(a[i].key == b[i].key);
    }

    // The whole run: the same rewrites, rounds and resulting graph.
    Graph g1 = original.clone(), g2 = original.clone();
    const DriverResult r1 = GreedyDriver(catalog, one).run(g1);
    const DriverResult r2 = GreedyDriver(catalog, many).run(g2);
    REQUIRE(r1.converged);
    REQUIRE(r1.rewrites.size() > 100);
    CHECK(r1.rounds == r2.rounds);
    REQUIRE(r1.rewrites.size() == r2.rewrites.size());
    for (size_t i = 0; i < r1.rewrites.size(); ++i) {
        REQUIRE(r1.rewrites[i].label == r2.rewrites[i].label);
        REQUIRE(r1.rewrites[i].anchor == r2.rewrites[i].anchor);
    }
    CHECK_FALSE(firstStructuralDifference(g1, g2).has_value());
    CHECK(g1.nodeIds() == g2.nodeIds());
    CHECK(verify(g2).empty());
}
