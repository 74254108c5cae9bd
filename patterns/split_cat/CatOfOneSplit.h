#pragma once

// The rules on a cat of consecutive getitems of one split on the split's dim:
// merge_getitem_cat_pass and mutate_cat_pass (split_cat.py merge_getitem_cat
// and mutate_cat_node), which PyTorch matches with one pattern and starts
// alike. They differ only in whether the getitems must be read by the cat
// alone, and in the rewrite.

#include "SplitCatUtils.h"

namespace fusebox::splitcat {

/// The plan of a rule on a cat of getitems of one split.
struct CatOfOneSplitPlan {
    /// The cat, its getitems and the split (which mutate_cat_pass leaves while read elsewhere).
    std::vector<NodeId> nodes;
    NodeId cat;
    SplitGetItems group;
};

/// A pre-grad rule anchored at a cat whose inputs are consecutive getitems of
/// one normalized split on the split's dim; a subclass writes only apply().
class CatOfOneSplitPattern : public PlannedPattern<CatOfOneSplitPlan> {
protected:
    /// `itemsUsedOnce`: every getitem must be read by the cat alone.
    CatOfOneSplitPattern(std::string name, int benefit, std::string description, bool itemsUsedOnce);

    /// readCatOfOneSplit, then checkUsedOnce (with itemsUsedOnce) and checkConsecutive.
    std::optional<CatOfOneSplitPlan> analyze(const Graph &graph, NodeId anchor, MatchTrace &trace) const final;
    /// 2.6's pattern, CallFunction(torch.cat, getitem_split, dim=Ignored()):
    /// three nodes, counted whatever the handler then does.
    InductorCounts countsOf(const Graph &graph, const CatOfOneSplitPlan &plan) const final;
    InductorCounts inductorCountsWithoutRewrite(const Graph &graph, NodeId anchor) const final;

private:
    bool m_itemsUsedOnce;
};

} // namespace fusebox::splitcat
