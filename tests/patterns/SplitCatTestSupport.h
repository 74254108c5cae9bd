#pragma once
// Catch2 helpers shared by the split/cat (vertical) pattern tests.

#include "SplitCatGraphs.h"

#include "core/ir/Verifier.h"
#include "core/rewrite/MatchTrace.h"
#include "core/rewrite/PatternRewriter.h"
#include "core/rewrite/PatternSet.h"
#include "patterns/Catalog.h"

#include <catch.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace fusebox::test::sc {

/// The split/cat catalog, built once.
inline const PatternSet &splitCatSet()
{
    static const PatternSet set = [] {
        PatternSet s;
        addSplitCatPatterns(s);
        return s;
    }();
    return set;
}

inline const VerticalPattern &rule(std::string_view name)
{
    const Pattern *p = splitCatSet().find(name);
    INFO(name);
    REQUIRE(p != nullptr);
    REQUIRE(p->family() == PatternFamily::Vertical);
    return static_cast<const VerticalPattern &>(*p);
}

inline NodeId named(const Graph &graph, std::string_view name)
{
    NodeId id = graph.findByName(name);
    INFO(name);
    REQUIRE(id.isValid());
    return id;
}

/// The match of the rule at node (requires one, in both modes).
inline Match matchAt(const Graph &graph, std::string_view ruleName, std::string_view node)
{
    MatchTrace trace(MatchTrace::Mode::Explain);
    auto m = rule(ruleName).match(graph, named(graph, node), trace);
    INFO((trace.failure() ? trace.failure()->description + ": " + trace.failure()->actual : std::string()));
    REQUIRE(m.has_value());
    MatchTrace quiet;
    REQUIRE(rule(ruleName).match(graph, named(graph, node), quiet).has_value());
    return *m;
}

/// The first failed check of the rule at node (requires a failure, in both modes).
inline Check failureAt(const Graph &graph, std::string_view ruleName, std::string_view node)
{
    MatchTrace trace(MatchTrace::Mode::Explain);
    auto m = rule(ruleName).match(graph, named(graph, node), trace);
    REQUIRE_FALSE(m.has_value());
    REQUIRE(trace.failure() != nullptr);
    MatchTrace quiet;
    REQUIRE_FALSE(rule(ruleName).match(graph, named(graph, node), quiet).has_value());
    return *trace.failure();
}

/// The first match of the rule anywhere (program order), if any.
inline std::optional<Match> firstMatch(const Graph &graph, std::string_view ruleName)
{
    const VerticalPattern &p = rule(ruleName);
    for (NodeId id : graph.nodeIds()) {
        const Node &n = *graph.node(id);
        if (!n.isOp() || !p.isRootOp(n.op))
            continue;
        MatchTrace quiet;
        if (auto m = p.match(graph, id, quiet))
            return m;
    }
    return std::nullopt;
}

inline bool firesAnywhere(const Graph &graph, std::string_view ruleName)
{
    return firstMatch(graph, ruleName).has_value();
}

/// Applies the rule until it no longer fires, requiring a well-formed graph
/// (topological order included) after every rewrite. Returns the count.
inline int applyRule(Graph &graph, std::string_view ruleName, int cap = 50)
{
    int applied = 0;
    while (auto m = firstMatch(graph, ruleName)) {
        REQUIRE(applied < cap);
        PatternRewriter rewriter(graph);
        rewriter.setCreatedBy(std::string(ruleName) + "#" + std::to_string(applied + 1));
        REQUIRE(rule(ruleName).rewrite(rewriter, *m).succeeded());
        const auto issues = verify(graph);
        INFO(formatIssues(issues));
        REQUIRE(issues.empty());
        ++applied;
    }
    return applied;
}

/// A node as an expression over the graph inputs: "split_with_sizes(x, [8, 32], 1)";
/// ops lose their "aten::" prefix and show their overload.
inline std::string expr(const Graph &graph, NodeId id)
{
    const Node &n = *graph.node(id);
    if (!n.isOp())
        return n.name;
    std::function<std::string(const Arg &)> arg = [&](const Arg &a) -> std::string {
        if (a.isNode())
            return expr(graph, a.node());
        if (const auto *items = a.items()) {
            std::string s = "[";
            for (size_t i = 0; i < items->size(); ++i)
                s += (i ? ", " : "") + arg((*items)[i]);
            return s + "]";
        }
        return a.toString();
    };
    std::string op = n.op.rfind("aten::", 0) == 0 ? n.op.substr(6) : n.op;
    std::string s = op + (n.overload.empty() ? "" : "." + n.overload) + "(";
    for (size_t i = 0; i < n.args().size(); ++i)
        s += (i ? ", " : "") + arg(n.args()[i]);
    return s + ")";
}

/// The graph's outputs as expressions.
inline std::vector<std::string> outputs(const Graph &graph)
{
    std::vector<std::string> out;
    for (NodeId id : graph.outputValues())
        out.push_back(expr(graph, id));
    return out;
}

/// Number of live op nodes with op.
inline size_t countOps(const Graph &graph, std::string_view op)
{
    size_t n = 0;
    for (NodeId id : graph.nodeIds())
        n += graph.node(id)->isOp() && graph.node(id)->op == op;
    return n;
}

/// The shape of output i ("[8, 32]").
inline std::string outputShape(const Graph &graph, size_t i)
{
    return graph.node(graph.outputValues().at(i))->meta.shapeString();
}

} // namespace fusebox::test::sc
