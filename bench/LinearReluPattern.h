#pragma once
// The fixed-arity pattern both matchers are compared on: aten::relu whose
// input is an aten::linear read by nobody else (SubgraphRewriter's rule that
// a pattern's inner values have no outside users). Match only: rewrite() is
// never called by the benchmarks.

#include "core/rewrite/Pattern.h"

#include <optional>
#include <string>

namespace fusebox::bench {

class LinearReluPattern final : public VerticalPattern {
public:
    LinearReluPattern()
        : VerticalPattern("linear_relu", PassStage::PreGrad, 1, {"aten::relu"},
                          "relu(linear(x, w, b)) with a single-use linear")
    {}

    std::optional<Match> match(const Graph &graph, NodeId anchor, MatchTrace &trace) const override
    {
        const Node *relu = graph.node(anchor);
        if (!trace.check(relu && relu->args().size() == 1 && relu->args()[0].isNode(), "relu reads one node"))
            return std::nullopt;
        const NodeId linId = relu->args()[0].node();
        const Node *lin = graph.node(linId);
        if (!trace.check(lin && lin->isOp() && lin->op == "aten::linear", "input is aten::linear"))
            return std::nullopt;
        if (!trace.check(lin->args().size() == 3, "linear has (input, weight, bias)"))
            return std::nullopt;
        if (!trace.check(graph.useCount(linId) == 1, "linear has one user"))
            return std::nullopt;
        Match m;
        m.pattern = name();
        m.anchor = anchor;
        m.nodes = {linId, anchor};
        m.benefit = benefit();
        return m;
    }

    LogicalResult rewrite(PatternRewriter &, const Match &) const override { return failure(); }
};

/// Counts matches the way the driver's collection does it: every node in
/// program order whose op is a root op, matched with a quiet trace.
inline size_t countLinearReluMatches(const Graph &graph, const LinearReluPattern &pattern)
{
    size_t count = 0;
    for (NodeId id = graph.first(); id.isValid(); id = graph.next(id)) {
        const Node *n = graph.node(id);
        if (!n->isOp() || !pattern.isRootOp(n->op))
            continue;
        MatchTrace trace;
        if (pattern.match(graph, id, trace))
            ++count;
    }
    return count;
}

} // namespace fusebox::bench
