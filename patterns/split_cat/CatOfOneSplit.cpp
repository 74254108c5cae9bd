#include "CatOfOneSplit.h"

namespace fusebox::splitcat {

CatOfOneSplitPattern::CatOfOneSplitPattern(std::string name, int benefit, std::string description, bool itemsUsedOnce)
    : PlannedPattern(std::move(name), PassStage::PreGrad, benefit, {"aten::cat"}, std::move(description))
    , m_itemsUsedOnce(itemsUsedOnce)
{}

std::optional<CatOfOneSplitPlan> CatOfOneSplitPattern::analyze(const Graph &graph, NodeId anchor,
                                                               MatchTrace &trace) const
{
    auto group = readCatOfOneSplit(graph, anchor, trace);
    if (!group)
        return std::nullopt;
    if (m_itemsUsedOnce && !checkUsedOnce(graph, group->items, trace))
        return std::nullopt;
    if (!checkConsecutive(group->indices, trace))
        return std::nullopt;

    CatOfOneSplitPlan plan;
    plan.cat = anchor;
    plan.nodes.push_back(anchor);
    plan.nodes.insert(plan.nodes.end(), group->items.begin(), group->items.end());
    plan.nodes.push_back(group->split.node);
    plan.group = std::move(*group);
    return plan;
}

// The pattern binds the cat, the first getitem of a TorchSplit in its list
// and that split.
InductorCounts CatOfOneSplitPattern::countsOf(const Graph &graph, const CatOfOneSplitPlan &plan) const
{
    return patternMatcherCounts(3, PlannedPattern::countsOf(graph, plan));
}

InductorCounts CatOfOneSplitPattern::inductorCountsWithoutRewrite(const Graph &graph, NodeId anchor) const
{
    return hasInductorGetItemSplitList(graph, anchor) ? patternMatcherCounts(3) : InductorCounts{};
}

} // namespace fusebox::splitcat
