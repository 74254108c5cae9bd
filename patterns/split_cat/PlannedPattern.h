#pragma once

// The common shape of a vertical split/cat rule: one analysis serves match()
// (explanations included) and rewrite().

#include "core/rewrite/Pattern.h"

#include <optional>
#include <string>
#include <vector>

namespace fusebox::splitcat {

/// A vertical rule whose match() and rewrite() share one analysis: analyze()
/// records every check and returns a plan; match() turns the plan into a
/// Match, rewrite() re-runs analyze() quietly on the current graph and
/// applies it, so the explanation and the rewrite can never disagree.
template<typename Plan>
class PlannedPattern : public VerticalPattern {
public:
    std::optional<Match> match(const Graph &graph, NodeId anchor, MatchTrace &trace) const final
    {
        const Node *n = graph.node(anchor);
        const auto missing = [&] {
            return n ? std::string() : "node #" + std::to_string(anchor.value) + " is not in the graph";
        };
        if (!trace.check(n != nullptr, "anchor node exists", missing))
            return std::nullopt;
        std::optional<Plan> plan = analyze(graph, anchor, trace);
        if (!plan)
            return std::nullopt;
        Match m;
        m.pattern = name();
        m.anchor = anchor;
        m.nodes = plan->nodes;
        m.benefit = benefit();
        return m;
    }

    LogicalResult rewrite(PatternRewriter &rewriter, const Match &match) const final
    {
        if (!rewriter.graph().contains(match.anchor))
            return failure();
        MatchTrace quiet;
        std::optional<Plan> plan = analyze(rewriter.graph(), match.anchor, quiet);
        if (!plan)
            return failure();
        apply(rewriter, *plan);
        return success();
    }

    InductorCounts inductorCounts(const Graph &graph, const Match &match) const final
    {
        MatchTrace quiet;
        if (!graph.contains(match.anchor))
            return VerticalPattern::inductorCounts(graph, match);
        std::optional<Plan> plan = analyze(graph, match.anchor, quiet);
        return plan ? countsOf(graph, *plan) : VerticalPattern::inductorCounts(graph, match);
    }

protected:
    /// counters["inductor"] for the rewrite of `plan` (inductorCounts): the
    /// rule's own name once unless the rule says otherwise.
    virtual InductorCounts countsOf(const Graph &graph, const Plan &plan) const
    {
        (void)plan;
        return VerticalPattern::inductorCounts(graph, Match{});
    }

    PlannedPattern(std::string name, PassStage stage, int benefit, std::vector<std::string> rootOps,
                   std::string description)
        : VerticalPattern(std::move(name), stage, benefit, std::move(rootOps), std::move(description))
    {
        options().set("counter", int64_t(1));
    }

    /// Checks every condition at `anchor` (which exists) and returns the plan
    /// of the rewrite; plan.nodes lists every node the rewrite replaces or edits.
    virtual std::optional<Plan> analyze(const Graph &graph, NodeId anchor, MatchTrace &trace) const = 0;
    /// Applies a plan analyze() just returned on the rewriter's graph.
    virtual void apply(PatternRewriter &rewriter, const Plan &plan) const = 0;
};

} // namespace fusebox::splitcat
