#pragma once
// Catch2 helpers shared by the group/batch pattern tests.

#include "GroupBatchGraphs.h"

#include "core/ir/Verifier.h"
#include "core/rewrite/HorizontalSearch.h"
#include "core/rewrite/MatchTrace.h"
#include "core/rewrite/PatternRewriter.h"

#include <catch.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace fusebox::test::gb {

/// The one group the search yields on graph.
inline FusionGroup singleGroup(const Graph &graph, const HorizontalPattern &pattern)
{
    HorizontalSearchResult result = searchHorizontal(graph, pattern);
    REQUIRE(result.groups.size() == 1);
    return result.groups.front();
}

/// Fuses group as the driver does (one rewriter, then the stable topological
/// restore) and requires a well-formed graph.
inline void fuseAndVerify(Graph &graph, const HorizontalPattern &pattern, const std::vector<NodeId> &group)
{
    PatternRewriter rewriter(graph);
    rewriter.setCreatedBy(pattern.name() + "#1");
    REQUIRE(pattern.fuse(rewriter, group).succeeded());
    REQUIRE(rewriter.restoreTopologicalOrder());
    const auto issues = verify(graph);
    INFO(formatIssues(issues));
    REQUIRE(issues.empty());
}

/// The key, computed while explaining (requires that it exists).
inline std::string keyOf(const Graph &graph, const HorizontalPattern &pattern, NodeId node)
{
    MatchTrace trace(MatchTrace::Mode::Explain);
    auto key = pattern.key(graph, node, trace);
    INFO((trace.failure() ? trace.failure()->description + ": " + trace.failure()->actual : std::string()));
    REQUIRE(key.has_value());
    REQUIRE(trace.failure() == nullptr);
    return *key;
}

/// The first failed check of pattern.key() at node (requires a failure).
inline Check keyFailure(const Graph &graph, const HorizontalPattern &pattern, NodeId node)
{
    MatchTrace trace(MatchTrace::Mode::Explain);
    auto key = pattern.key(graph, node, trace);
    REQUIRE_FALSE(key.has_value());
    REQUIRE(trace.failure() != nullptr);
    MatchTrace quiet;
    // Quiet mode takes the same path: no key there either.
    REQUIRE_FALSE(pattern.key(graph, node, quiet).has_value());
    return *trace.failure();
}

/// Live op nodes with `op` (and `overload` when given), in program order.
inline std::vector<NodeId> opsNamed(const Graph &graph, std::string_view op, std::string_view overload = "*")
{
    std::vector<NodeId> ids;
    for (NodeId id : graph.nodeIds()) {
        const Node &n = *graph.node(id);
        if (n.isOp() && n.op == op && (overload == "*" || n.overload == overload))
            ids.push_back(id);
    }
    return ids;
}

/// The single op node with `op`.
inline const Node &onlyOp(const Graph &graph, std::string_view op)
{
    auto ids = opsNamed(graph, op);
    INFO(op);
    REQUIRE(ids.size() == 1);
    return *graph.node(ids.front());
}

/// The node an arg refers to.
inline const Node &argNode(const Graph &graph, const Node &n, size_t index)
{
    REQUIRE(index < n.args().size());
    REQUIRE(n.args()[index].isNode());
    return *graph.node(n.args()[index].node());
}

/// The node ids of a list arg.
inline std::vector<NodeId> listArg(const Node &n, size_t index)
{
    REQUIRE(index < n.args().size());
    REQUIRE(n.args()[index].items() != nullptr);
    std::vector<NodeId> ids;
    for (const Arg &a : *n.args()[index].items())
        ids.push_back(a.node());
    return ids;
}

/// Shape text of a node's meta ("[4, 6]").
inline std::string shapeOf(const Graph &graph, NodeId id)
{
    return graph.node(id)->meta.shapeString();
}

/// Requires that the output returns getitem(list, 0..n-1) of `list`, in order,
/// each with `itemShape` (or the per-item shapes).
inline void requireOutputsAreGetItems(const Graph &graph, NodeId list, const std::vector<std::string> &itemShapes)
{
    const auto outs = graph.outputValues();
    REQUIRE(outs.size() == itemShapes.size());
    for (size_t i = 0; i < outs.size(); ++i) {
        const Node &n = *graph.node(outs[i]);
        REQUIRE(n.op == "getitem");
        REQUIRE(n.args()[0].node() == list);
        REQUIRE(n.args()[1].asInt() == static_cast<int64_t>(i));
        REQUIRE(n.meta.shapeString() == itemShapes[i]);
    }
}

} // namespace fusebox::test::gb
