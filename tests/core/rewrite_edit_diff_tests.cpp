#include "TestGraphs.h"

#include "bench/RecsysGraphGenerator.h"
#include "core/ir/Verifier.h"
#include "core/rewrite/EditDiff.h"
#include "core/rewrite/GreedyDriver.h"
#include "core/rewrite/PatternRewriter.h"
#include "patterns/Catalog.h"

#include <catch.hpp>

#include <numeric>

using namespace fusebox;

TEST_CASE("the diff of a rewrite lists exactly what it removed, added and changed", "[rewrite]")
{
    const Graph before = test::splitReluCatGraph();
    Graph g = before.clone();
    EditLog log;
    PatternRewriter rewriter(g, &log);
    log.beginGroup("sink_relu@cat");
    const NodeId x = g.findByName("x"), cat = g.findByName("cat"), head = g.findByName("head");
    const NodeId fused = rewriter.createOp("aten::relu", {x}, {}, cat);
    rewriter.replaceAndErase(cat, fused);
    log.endGroup();

    std::vector<const EditGroup *> groups;
    for (const EditGroup &group : log.groups())
        groups.push_back(&group);
    const GraphDiff diff = diffFromEdits(before, g, groups);
    CHECK(diff.removed.size() == 10); // split, 4 getitems, 4 relus, cat
    for (NodeId id : diff.removed)
        CHECK((before.contains(id) && !g.contains(id)));
    CHECK(diff.added == std::vector<NodeId>{fused});
    CHECK(diff.changed == std::vector<NodeId>{head}); // it reads the new relu
    REQUIRE(diff.byPattern.size() == 1);
    CHECK(diff.byPattern[0].pattern == "sink_relu");
    CHECK(diff.byPattern[0].rewrites == 1);
    CHECK(diff.byPattern[0].removed == 10);
    CHECK(diff.byPattern[0].added == 1);
    CHECK(diff.opCounts.at("aten::relu") == std::pair<size_t, size_t>{4, 1});
    CHECK(diff.opCounts.at("aten::cat") == std::pair<size_t, size_t>{1, 0});

    // Undone groups are not part of the diff.
    REQUIRE(log.undo(g));
    const GraphDiff none = diffFromEdits(before, g, {});
    CHECK(none.removed.empty());
    CHECK(none.added.empty());
}

TEST_CASE("the diff of a whole catalog run accounts for every node", "[rewrite]")
{
    const Graph before = bench::generateRecsysGraph({.targetNodes = 2000});
    Graph g = before.clone();
    PatternSet catalog = builtinCatalog();
    EditLog log;
    const DriverResult result = GreedyDriver(catalog).run(g, &log);
    REQUIRE(result.rewrites.size() > 10);
    std::vector<const EditGroup *> groups;
    for (const EditGroup &group : log.groups())
        groups.push_back(&group);
    const GraphDiff diff = diffFromEdits(before, g, groups);
    // Nodes inserted and erased again within the run (intermediates) are in neither list.
    CHECK(before.size() - diff.removed.size() + diff.added.size() == g.size());
    for (NodeId id : diff.added)
        CHECK_FALSE(before.contains(id));
    size_t rewrites = 0, removed = 0, added = 0;
    for (const auto &p : diff.byPattern) {
        rewrites += p.rewrites;
        removed += p.removed;
        added += p.added;
    }
    CHECK(rewrites == result.rewrites.size());
    // Per pattern: each rewrite's own net change, read from its edit group,
    // equals what the driver counted as it rewrote (the review's rows and the
    // report); a node one rewrite adds and a later one removes counts in both,
    // so the sums differ from the net lists by the same amount.
    size_t driverRemoved = 0, driverAdded = 0;
    for (const AppliedRewrite &r : result.rewrites) {
        driverRemoved += r.nodesRemoved;
        driverAdded += r.nodesAdded;
    }
    CHECK(removed == driverRemoved);
    CHECK(added == driverAdded);
    CHECK(int64_t(added) - int64_t(removed) == int64_t(diff.added.size()) - int64_t(diff.removed.size()));
    CHECK(removed >= diff.removed.size());
    size_t opsBefore = 0, opsAfter = 0;
    for (const auto &[op, counts] : diff.opCounts) {
        opsBefore += counts.first;
        opsAfter += counts.second;
    }
    size_t liveOps = 0;
    for (NodeId id : g.nodeIds())
        liveOps += g.node(id)->kind() == NodeKind::Op;
    CHECK(opsAfter == liveOps);
    CHECK(opsBefore > 0);
}

TEST_CASE("a driver run stops on request between rewrites, leaving a valid graph", "[rewrite]")
{
    Graph g = bench::generateRecsysGraph({.targetNodes = 2000});
    PatternSet catalog = builtinCatalog();
    DriverOptions options;
    size_t polls = 0;
    struct Counter final : DriverListener {
        size_t applied = 0;
        void rewriteApplied(const Graph &, const Match &, const EditGroup &) override { ++applied; }
    } counter;
    options.shouldStop = [&] {
        ++polls;
        return counter.applied >= 5;
    };
    const DriverResult result = GreedyDriver(catalog, options).run(g, nullptr, &counter);
    CHECK(result.rewrites.size() == 5);
    CHECK_FALSE(result.converged);
    CHECK(result.message.find("stopped on request") != std::string::npos);
    CHECK(polls >= 5);
    CHECK(verify(g).empty());
}
