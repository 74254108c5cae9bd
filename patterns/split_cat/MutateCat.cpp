// mutate_cat_pass (split_cat.py mutate_cat_node): a cat of consecutive
// getitems of one split on the split's dim, whatever else reads them, is the
// split's input (all sections) or one slice of it (a subset).
//   split(x, [16, 16, 16, 16], 1) -> cat([g0, g1, g2, g3], 1)  =>  x
//   split(x, [16, 16, 16, 16], 1) -> cat([g1, g2], 1)          =>  x[:, 16:48]

#include "SplitCatPatterns.h"
#include "SplitCatUtils.h"

namespace fusebox::splitcat {
namespace {

struct Plan {
    std::vector<NodeId> nodes; // the cat, its getitems and the split (which stay while read elsewhere)
    NodeId cat;
    SplitGetItems group;
};

class MutateCat final : public PlannedPattern<Plan> {
public:
    MutateCat()
        : PlannedPattern("mutate_cat_pass", PassStage::PreGrad, 84, {"aten::cat"},
                         "Replaces a cat of consecutive getitems of one split on the split's dim by the "
                         "split's input when it joins every section, else by one slice of the input.")
    {
    }

protected:
    std::optional<Plan> analyze(const Graph &graph, NodeId anchor, MatchTrace &trace) const override
    {
        auto group = readCatOfOneSplit(graph, anchor, trace);
        if (!group)
            return std::nullopt;
        if (!checkConsecutive(group->indices, trace))
            return std::nullopt;

        Plan plan;
        plan.cat = anchor;
        plan.nodes.push_back(anchor);
        plan.nodes.insert(plan.nodes.end(), group->items.begin(), group->items.end());
        plan.nodes.push_back(group->split.node);
        plan.group = std::move(*group);
        return plan;
    }

    // 2.6's pattern, CallFunction(torch.cat, getitem_split, dim=Ignored()):
    // the cat, the first getitem of a TorchSplit in its list and that split,
    // counted whatever the handler then does.
    InductorCounts countsOf(const Graph &graph, const Plan &plan) const override
    {
        return patternMatcherCounts(3, PlannedPattern::countsOf(graph, plan));
    }

    InductorCounts inductorCountsWithoutRewrite(const Graph &graph, NodeId anchor) const override
    {
        return hasInductorGetItemSplitList(graph, anchor) ? patternMatcherCounts(3) : InductorCounts{};
    }

    void apply(PatternRewriter &rewriter, const Plan &plan) const override
    {
        const SplitView &split = plan.group.split;
        NodeId replacement = split.input;
        if (plan.group.items.size() != split.sections.size()) {
            const auto offsets = split.offsets();
            NodeBuilder build(rewriter, plan.cat, plan.cat);
            replacement = build.slice(split.input, split.dim, offsets[plan.group.indices.front()],
                                      offsets[plan.group.indices.back() + 1]);
        }
        rewriter.replaceAllUsesWith(plan.cat, replacement);
        rewriter.eraseIfDead(plan.cat);
    }
};

} // namespace

std::unique_ptr<VerticalPattern> makeMutateCatPass()
{
    return std::make_unique<MutateCat>();
}

} // namespace fusebox::splitcat
