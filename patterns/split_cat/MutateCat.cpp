// mutate_cat_pass (split_cat.py mutate_cat_node): a cat of consecutive
// getitems of one split on the split's dim, whatever else reads them, is the
// split's input (all sections) or one slice of it (a subset).
//   split(x, [16, 16, 16, 16], 1) -> cat([g0, g1, g2, g3], 1)  =>  x
//   split(x, [16, 16, 16, 16], 1) -> cat([g1, g2], 1)          =>  x[:, 16:48]

#include "CatOfOneSplit.h"
#include "SplitCatPatterns.h"

namespace fusebox::splitcat {
namespace {

class MutateCat final : public CatOfOneSplitPattern {
public:
    MutateCat()
        : CatOfOneSplitPattern("mutate_cat_pass", 84,
                               "Replaces a cat of consecutive getitems of one split on the split's dim by the "
                               "split's input when it joins every section, else by one slice of the input.",
                               false)
    {}

protected:
    void apply(PatternRewriter &rewriter, const CatOfOneSplitPlan &plan) const override
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
        // The cat alone: mutate_cat_node erases only it, and the split and
        // getitems it read stay in the graph, dead, for the passes after it
        // to see (Inductor's pre-grad passes run no dead code elimination).
        rewriter.erase(plan.cat);
    }
};

} // namespace

std::unique_ptr<VerticalPattern> makeMutateCatPass()
{
    return std::make_unique<MutateCat>();
}

} // namespace fusebox::splitcat
