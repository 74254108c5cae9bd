// merge_splits_pass (split_cat.py merge_splits): a split of a section of a
// split on the same dim is one split with the inner sections spliced in.
//   split(getitem(split(x, [16, 32, 16], 1), 1), [8, 24], 1)
//   =>  split(x, [16, 8, 24, 16], 1)

#include "SplitCatPatterns.h"
#include "SplitCatUtils.h"

namespace fusebox::splitcat {
namespace {

struct MergeSplitsPlan {
    std::vector<NodeId> nodes; // second split, the getitem between, first split, both splits' getitems
    SplitView first, second;
    int64_t index = 0; // the section of the first split the second one splits
    std::map<int64_t, NodeId> firstItems, secondItems;
};

class MergeSplits final : public PlannedPattern<MergeSplitsPlan> {
public:
    MergeSplits()
        : PlannedPattern("merge_splits_pass", PassStage::PreGrad, 86, {"aten::split_with_sizes", "aten::split"},
                         "Merges split(getitem(split(x, s1, d), i), s2, d) into one split of x whose sections "
                         "are s1 with section i replaced by s2.")
    {}

protected:
    std::optional<MergeSplitsPlan> analyze(const Graph &graph, NodeId anchor, MatchTrace &trace) const override
    {
        auto second = readNormalizedSplit(graph, anchor, trace);
        if (!second)
            return std::nullopt;
        NodeId source;
        int64_t index = 0;
        if (!require(trace, isGetItem(graph, second->input, &source, &index), "the split reads a getitem",
                     [&] {
                         return nodeRef(graph, anchor) + " reads " + nodeRef(graph, second->input) + " ("
                                + opText(*graph.node(second->input)) + "), not a getitem";
                     },
                     {anchor, second->input}))
            return std::nullopt;
        const Node &sourceNode = *graph.node(source);
        if (!require(trace, isSplitOp(sourceNode), "the getitem reads a split",
                     [&] {
                         return "getitem " + nodeRef(graph, second->input) + " reads " + nodeRef(graph, source) + " ("
                                + opText(sourceNode) + "), not a split";
                     },
                     {second->input, source}))
            return std::nullopt;
        auto first = readNormalizedSplit(graph, source, trace);
        if (!first)
            return std::nullopt;
        const size_t itemUsers = graph.users(second->input).size();
        if (!require(trace, itemUsers == 1, "the getitem between the splits is used only by the second split",
                     [&] {
                         return "getitem " + nodeRef(graph, second->input) + " has " + std::to_string(itemUsers)
                                + " users (needs 1)";
                     },
                     {second->input}))
            return std::nullopt;
        if (!require(trace, first->dim == second->dim, "both splits split the same dim",
                     [&] {
                         return "first split dim " + std::to_string(first->dim) + " ≠ second split dim "
                                + std::to_string(second->dim);
                     },
                     {source, anchor}))
            return std::nullopt;
        auto firstItems = readGetItems(graph, source, trace, "split", int64_t(first->sections.size()));
        if (!firstItems)
            return std::nullopt;
        auto secondItems = readGetItems(graph, anchor, trace, "split", int64_t(second->sections.size()));
        if (!secondItems)
            return std::nullopt;
        if (!require(trace, !secondItems->empty(), "the second split has users",
                     [&] { return "split " + nodeRef(graph, anchor) + " has no users"; }, {anchor}))
            return std::nullopt;

        MergeSplitsPlan plan;
        plan.first = *first;
        plan.second = *second;
        plan.index = index;
        plan.firstItems = std::move(*firstItems);
        plan.secondItems = std::move(*secondItems);
        plan.nodes = {anchor, second->input, source};
        for (const auto &[i, item] : plan.firstItems)
            if (item != second->input)
                plan.nodes.push_back(item);
        for (const auto &[i, item] : plan.secondItems)
            plan.nodes.push_back(item);
        return plan;
    }

    // 2.6's pattern, TorchSplit(getitem(TorchSplit(...), _), ...): the
    // second split, the getitem (read by it alone) and the first split,
    // counted whatever merge_splits then does.
    static bool inductorPatternMatches(const Graph &graph, NodeId second)
    {
        NodeId item, first;
        if (!isInductorTorchSplit(graph, second))
            return false;
        item = graph.node(second)->args()[0].node();
        return isGetItem(graph, item, &first) && graph.useCount(item) == 1 && isInductorTorchSplit(graph, first);
    }

    InductorCounts countsOf(const Graph &graph, const MergeSplitsPlan &plan) const override
    {
        return patternMatcherCounts(3, PlannedPattern::countsOf(graph, plan));
    }

    InductorCounts inductorCountsWithoutRewrite(const Graph &graph, NodeId anchor) const override
    {
        return inductorPatternMatches(graph, anchor) ? patternMatcherCounts(3) : InductorCounts{};
    }

    void apply(PatternRewriter &rewriter, const MergeSplitsPlan &plan) const override
    {
        std::vector<int64_t> sections(plan.first.sections.begin(), plan.first.sections.begin() + plan.index);
        sections.insert(sections.end(), plan.second.sections.begin(), plan.second.sections.end());
        sections.insert(sections.end(), plan.first.sections.begin() + plan.index + 1, plan.first.sections.end());
        const auto grown = int64_t(plan.second.sections.size()) - 1;

        NodeBuilder build(rewriter, plan.first.node, plan.first.node);
        NodeId merged = build.splitWithSizes(plan.first.input, sections, plan.first.dim);
        for (const auto &[i, item] : plan.firstItems)
            if (i != plan.index)
                rewriter.setArgs(item, {merged, i < plan.index ? i : i + grown});
        for (const auto &[k, item] : plan.secondItems)
            rewriter.setArgs(item, {merged, plan.index + k});
        rewriter.eraseIfDead(plan.second.node);
        rewriter.eraseIfDead(plan.first.node);
    }
};

} // namespace

std::unique_ptr<VerticalPattern> makeMergeSplitsPass()
{
    return std::make_unique<MergeSplits>();
}

} // namespace fusebox::splitcat
