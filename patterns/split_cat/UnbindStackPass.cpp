// unbind_stack_pass (split_cat.py merge_unbind_stack / UnbindCatRemover): the
// outputs of an unbind, all read in order by cat/stack users, are the
// unbind's input moved and flattened:
//   unbind(x, d) -> stack(k)  =>  movedim(x, d, k)
//   unbind(x, d) -> cat(k)    =>  flatten(movedim(x, d, k), k, k + 1)
// Other inputs of a stack user are unsqueezed (stacked) beside it.

#include "SplitCatPatterns.h"
#include "SplitCatSimplifier.h"

namespace fusebox::splitcat {
namespace {

using UnbindStackPassPlan = SimplifyPlan;

class UnbindStackPass final : public PlannedPattern<UnbindStackPassPlan> {
public:
    UnbindStackPass()
        : PlannedPattern("unbind_stack_pass", PassStage::PreGrad, 80, {"aten::unbind"},
                         "Replaces unbind -> stack by movedim and unbind -> cat by movedim + flatten when the "
                         "unbind's outputs are all read, in order, as one run by cat/stack users.")
    {}

protected:
    std::optional<UnbindStackPassPlan> analyze(const Graph &graph, NodeId anchor, MatchTrace &trace) const override
    {
        auto src = readSource(graph, anchor, trace);
        if (!src)
            return std::nullopt;
        return analyzeSimplify(graph, std::move(*src), trace);
    }

    // 2.6 anchors unbind_stack_pass at the cats and stacks
    // (getitem_unbind, split_cat.py:1293): where this unbind is the one a
    // reader's list pattern binds to (its first getitem of an unbind), 2.6
    // counts a three-node match whether or not merge_unbind_stack changes
    // anything.
    // When that match reaches UnbindCatRemover.simplify, its ranges assign
    // scmerge_split_sections_removed even though it then stops (two runs
    // where it needs one).
    InductorCounts inductorCountsWithoutRewrite(const Graph &graph, NodeId unbind) const override
    {
        return withSectionsRemoved(graph, listReaderMatchCounts(graph, unbind, inductorGetItemUnbindSource), [&] {
            MatchTrace ignored;
            return readSource(graph, unbind, ignored);
        });
    }

    void apply(PatternRewriter &rewriter, const UnbindStackPassPlan &plan) const override
    {
        applySimplify(rewriter, plan);
    }

    // 2.6 matches at the cat or stack: it, the first getitem of the unbind
    // in its list and the unbind (getitem_unbind, split_cat.py:1293).
    InductorCounts countsOf(const Graph &graph, const UnbindStackPassPlan &plan) const override
    {
        return patternMatcherCounts(3, simplifierCounts(graph, plan));
    }

private:
    /// remove_unbind's checks (split_cat.py:1111): a normalized unbind whose
    /// outputs all have getitems, in order.
    static std::optional<SimplifierSource> readSource(const Graph &graph, NodeId anchor, MatchTrace &trace)
    {
        // merge_unbind_stack reads the dim as written (_get_dim): the unbinds
        // that batch fusions add after normalization_pass have negative ones.
        auto unbind = readNormalizedUnbind(graph, anchor, trace, UnbindDims::AsWritten);
        if (!unbind)
            return std::nullopt;
        auto items = readGetItems(graph, anchor, trace, "unbind", unbind->count);
        if (!items)
            return std::nullopt;
        std::vector<int64_t> indices;
        for (const auto &[index, item] : *items)
            indices.push_back(index);
        const bool complete = int64_t(indices.size()) == unbind->count && isSortedAndConsecutive(indices)
                              && (indices.empty() || indices.front() == 0);
        if (!require(trace, complete, "every unbind output has a getitem",
                     [&] {
                         return "getitems read indices " + formatInts(indices) + " of the "
                                + std::to_string(unbind->count) + " outputs of " + nodeRef(graph, anchor);
                     },
                     {anchor}))
            return std::nullopt;

        SimplifierSource src;
        src.node = anchor;
        src.input = unbind->input;
        src.dim = unbind->dim;
        src.writtenDim = unbind->writtenDim;
        src.sections.assign(size_t(unbind->count), 1);
        src.unbind = true;
        src.items = std::move(*items);
        return src;
    }
};

} // namespace

std::unique_ptr<VerticalPattern> makeUnbindStackPass()
{
    return std::make_unique<UnbindStackPass>();
}

} // namespace fusebox::splitcat
