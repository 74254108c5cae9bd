#include "core/ir/GraphBuilder.h"
#include "ViewTestGraphs.h"

#include "views/CollapsedGraph.h"
#include "views/ScopeTree.h"

#include <catch.hpp>

#include <memory>
#include <unordered_set>

#include <algorithm>

using namespace fusebox;
using namespace fusebox::viewtest;

namespace {
const CollapsedGraph::Edge *findEdge(const CollapsedGraph &cg, uint64_t from, uint64_t to)
{
    auto it = std::find_if(cg.edges().begin(), cg.edges().end(),
                           [&](const CollapsedGraph::Edge &e) { return e.from == from && e.to == to; });
    return it == cg.edges().end() ? nullptr : &*it;
}
} // namespace

TEST_CASE("ScopeTree builds the module hierarchy from dotted scopes", "[views]")
{
    Graph g = encoderGraph();
    ScopeTree tree(g);
    const int enc = tree.find("enc");
    const int fc1 = tree.find("enc.fc1");
    const int head = tree.find("head");
    REQUIRE(enc > 0);
    REQUIRE(fc1 > 0);
    REQUIRE(head > 0);
    CHECK(tree.find("fc1") == -1);
    CHECK(tree.scope(fc1).parent == enc);
    CHECK(tree.scope(fc1).label == "fc1");
    CHECK(tree.scope(fc1).depth == 2);
    // Program order of first appearance.
    REQUIRE(tree.scope(tree.root()).scopes.size() == 2);
    CHECK(tree.scope(tree.root()).scopes[0] == enc);
    CHECK(tree.scope(tree.root()).scopes[1] == head);
    CHECK(tree.scope(enc).scopes.size() == 3);
    CHECK(tree.scope(enc).nodes.size() == 1); // the add
    CHECK(tree.scope(enc).nodeCount == 6);    // w, fc1, act, w2, fc2, residual
    CHECK(tree.scopeOf(g.findByName("fc1")) == fc1);
    CHECK(tree.scopeOf(g.findByName("x")) == tree.root());
    CHECK(tree.contains(enc, fc1));
    CHECK_FALSE(tree.contains(head, fc1));
    CHECK(tree.chain(fc1) == std::vector<int>{enc, fc1});
    CHECK(tree.scope(tree.root()).nodeCount == g.size());
}

TEST_CASE("ScopeTree splits wide scopes into groups of consecutive children", "[views]")
{
    Graph g;
    GraphBuilder build(g);
    NodeId cur = build.addInput("x");
    for (int i = 0; i < 450; ++i)
        cur = build.addOp("aten::relu", {cur});
    build.setOutputs({cur});
    REQUIRE(g.size() == 452);

    ScopeTree tree(g, 200);
    const auto &root = tree.scope(tree.root());
    REQUIRE(root.scopes.size() == 3);
    CHECK(root.nodes.empty());
    CHECK(tree.scope(root.scopes[0]).artificial);
    CHECK(tree.scope(root.scopes[0]).path == "[0:200]");
    CHECK(tree.scope(root.scopes[2]).path == "[400:452]");
    CHECK(tree.scope(root.scopes[0]).nodeCount == 200);
    CHECK(tree.scope(root.scopes[2]).nodeCount == 52);
    // Consecutive: the first group holds the first 200 nodes in program order.
    CHECK(tree.scope(root.scopes[0]).nodes.front() == g.first());
    CHECK(tree.scopeOf(g.output()) == root.scopes[2]);

    // Nested splitting keeps every scope within the bound.
    ScopeTree narrow(g, 10);
    for (size_t s = 0; s < narrow.size(); ++s) {
        const auto &scope = narrow.scope(int(s));
        CHECK(scope.scopes.size() + scope.nodes.size() <= 10);
    }
    CHECK(narrow.scope(narrow.root()).nodeCount == 452);
    CHECK(narrow.maxDepth() == 2); // root > [0:100] > [0:10] > nodes
    std::set<std::string> paths;
    for (size_t s = 0; s < narrow.size(); ++s)
        paths.insert(narrow.scope(int(s)).path);
    CHECK(paths.size() == narrow.size()); // keys stay unique
}

TEST_CASE("CollapsedGraph maps nodes to visible items and aggregates edges", "[views]")
{
    Graph g = encoderGraph();
    ScopeTree tree(g);
    const int enc = tree.find("enc");
    const int head = tree.find("head");
    const NodeId x = g.findByName("x");
    const NodeId out = g.output();

    SECTION("everything collapsed")
    {
        CollapsedGraph cg(g, tree, {}, {});
        // x, the enc group, square (head holds one node: shown as itself), output.
        REQUIRE(cg.items().size() == 4);
        CHECK(cg.groupCount() == 1);
        CHECK(cg.itemOf(g.findByName("fc1")) == CollapsedGraph::groupKey(enc));
        CHECK(cg.itemOf(g.findByName("w")) == CollapsedGraph::groupKey(enc));
        CHECK(cg.itemOf(g.findByName("square")) == CollapsedGraph::nodeKey(g.findByName("square")));
        CHECK(cg.item(CollapsedGraph::groupKey(head)) == nullptr);
        CHECK(cg.itemOf(x) == CollapsedGraph::nodeKey(x));
        CHECK(cg.item(CollapsedGraph::groupKey(enc))->nodeCount == 6);
        // Edges: x->enc, enc->square (mul reads residual twice), square->output. No self loops.
        REQUIRE(cg.edges().size() == 3);
        const auto *encHead = findEdge(cg, CollapsedGraph::groupKey(enc),
                                       CollapsedGraph::nodeKey(g.findByName("square")));
        REQUIRE(encHead);
        CHECK(encHead->multiplicity == 2);
        CHECK(findEdge(cg, CollapsedGraph::nodeKey(x), CollapsedGraph::groupKey(enc)));
        CHECK(findEdge(cg, CollapsedGraph::nodeKey(g.findByName("square")), CollapsedGraph::nodeKey(out)));
        for (const auto &e : cg.edges())
            CHECK(e.from != e.to);
    }
    SECTION("an expanded scope shows its children; a collapsed parent hides expanded children")
    {
        CollapsedGraph inner(g, tree, {"enc.fc1"}, {});
        CHECK(inner.itemOf(g.findByName("fc1")) == CollapsedGraph::groupKey(enc));

        CollapsedGraph cg(g, tree, {"enc"}, {});
        const int fc1 = tree.find("enc.fc1");
        const int act = tree.find("enc.act");
        CHECK(cg.itemOf(g.findByName("fc1")) == CollapsedGraph::groupKey(fc1));
        CHECK(cg.itemOf(g.findByName("residual")) == CollapsedGraph::nodeKey(g.findByName("residual")));
        // x, fc1 and fc2 groups (linear + weight), act and residual and square
        // (single-node scopes), output.
        CHECK(act > 0);
        CHECK(cg.items().size() == 7);
        CHECK(cg.groupCount() == 2);
        const NodeId actNode = g.findByName("act");
        CHECK(findEdge(cg, CollapsedGraph::groupKey(fc1), CollapsedGraph::nodeKey(actNode)));
        CHECK(findEdge(cg, CollapsedGraph::nodeKey(actNode), CollapsedGraph::nodeKey(g.findByName("residual"))));

        // With weights hidden the linear scopes hold one node each: no groups at all.
        CollapsedGraph hidden(g, tree, {"enc"}, withoutConstants());
        CHECK(hidden.groupCount() == 0);
        CHECK(hidden.itemOf(g.findByName("fc1")) == CollapsedGraph::nodeKey(g.findByName("fc1")));
    }
    SECTION("fully expanded, constants hidden")
    {
        CollapsedGraph cg(g, tree, {"enc", "enc.fc1", "enc.act", "enc.fc2", "head"}, withoutConstants());
        CHECK(cg.groupCount() == 0);
        CHECK(cg.hiddenNodeCount() == 2);
        CHECK(cg.items().size() == g.size() - 2);
        CHECK_FALSE(cg.itemOf(g.findByName("w")).has_value());
        // Every use between visible nodes is an edge: 10 uses minus 2 from weights,
        // the double use of residual merged into one edge of multiplicity 2.
        CHECK(g.edgeCount() == 10);
        CHECK(cg.edges().size() == 7);
        size_t uses = 0;
        for (const auto &e : cg.edges())
            uses += e.multiplicity;
        CHECK(uses == g.edgeCount() - 2);
        CHECK(CollapsedGraph::fullyExpandedItemCount(g, withoutConstants()) == g.size() - 2);
        CHECK(CollapsedGraph::fullyExpandedItemCount(g, CollapsedGraph::Options{}) == g.size());
        CHECK(cg.hiddenConstantCount() == 2);
        CHECK(cg.outsideFocusCount() == 0);
    }
    SECTION("a focus hides the nodes outside it, counted apart from the constants")
    {
        // The status bar called every node a focus hid a "constant" (issue 36).
        CollapsedGraph::Options focus = withoutConstants();
        auto only = std::make_shared<std::unordered_set<uint32_t>>();
        for (const char *name : {"fc1", "w", "act"})
            only->insert(g.findByName(name).value);
        focus.onlyNodes = only;
        CollapsedGraph cg(g, tree, {"enc", "enc.fc1", "enc.act", "enc.fc2", "head"}, focus);
        CHECK(cg.items().size() == 2); // fc1 and act; the weight w is a hidden constant
        CHECK(cg.hiddenConstantCount() == 1);
        CHECK(cg.outsideFocusCount() == g.size() - 3);
        CHECK(cg.hiddenNodeCount() == g.size() - 2);
    }
}

TEST_CASE("a Dynamo graph: lifted parameters are weights, grouped by the module their names give", "[views]")
{
    // Dynamo records no scopes and lifts weights into inputs (issue 36: GraphNet
    // gpt2 drew 150 input boxes, and Show Constants did not hide them).
    Graph g;
    GraphBuilder build(g);
    const NodeId x = build.addInput("L_x_", f32({4, 16}, "cpu"));
    const NodeId w1 = build.addInput("L_self_modules_fc1_parameters_weight_", f32({16, 16}, "cpu"));
    const NodeId b1 = build.addInput("L_self_modules_fc1_parameters_bias_", f32({16}, "cpu"));
    const NodeId w2 = build.addInput("L_self_modules_fc2_parameters_weight_", f32({16, 16}, "cpu"));
    const NodeId fc1 = build.addOp("aten::linear", {x, w1, b1}, {}, "linear");
    const NodeId act = build.addOp("aten::relu", {fc1}, {}, "relu");
    const NodeId fc2 = build.addOp("aten::linear", {act, w2, NoneArg{}}, {}, "linear_1");
    build.setOutputs({fc2});

    const ScopeTree tree(g);
    const int fc1Scope = tree.find("fc1");
    REQUIRE(fc1Scope > 0);
    CHECK(tree.scopeOf(fc1) == fc1Scope);
    CHECK(tree.scopeOf(act) == fc1Scope);
    CHECK(tree.scopeOf(w1) == fc1Scope);
    CHECK(tree.scopeOf(fc2) == tree.find("fc2"));
    CHECK(tree.scopeOf(x) == tree.root());

    // Without constants shown, the three weights are hidden as constants are.
    CollapsedGraph hidden(g, tree, {"fc1", "fc2"}, withoutConstants());
    CHECK(hidden.hiddenConstantCount() == 3);
    CHECK_FALSE(hidden.itemOf(w1).has_value());
    CHECK(hidden.itemOf(x).has_value());
    CollapsedGraph shown(g, tree, {"fc1", "fc2"}, {});
    CHECK(shown.hiddenNodeCount() == 0);
}
