// merge_getitem_cat_pass (split_cat.py merge_getitem_cat): a cat whose inputs
// are consecutive getitems of one split, on the split's dim, each used only by
// the cat, is one bigger section of the split. The split gets that section
// instead, and the cat becomes its getitem.
//   split(x, [8, 16, 16, 24], 1) -> g1, g2 -> cat([g1, g2], 1)
//   =>  split(x, [8, 32, 24], 1) -> g1'

#include "CatOfOneSplit.h"
#include "SplitCatPatterns.h"

namespace fusebox::splitcat {
namespace {

class MergeGetItemCat final : public CatOfOneSplitPattern {
public:
    MergeGetItemCat()
        : CatOfOneSplitPattern("merge_getitem_cat_pass", 90,
                               "Merges the consecutive sections of a split that a cat joins back together (on "
                               "the split's dim, each getitem used only by the cat) into one section; the cat "
                               "becomes that section's getitem.",
                               true)
    {}

protected:
    void apply(PatternRewriter &rewriter, const CatOfOneSplitPlan &plan) const override
    {
        const SplitView &split = plan.group.split;
        const int64_t first = plan.group.indices.front(), last = plan.group.indices.back();
        NodeBuilder build(rewriter, split.node, split.node);
        NodeId fresh = build.splitWithSizes(split.input, fuseSections(split.sections, first, last), split.dim);
        // 2.6 copies the old split's meta onto the new one
        // (new_split_node.meta.update(split_node.meta), split_cat.py:1526):
        // its example_value keeps the old split's items, which
        // remove_split_with_size_one then counts.
        if (rewriter.inductorMetadata()) {
            const std::optional<int64_t> oldItems = rewriter.graph().node(split.node)->inductorMeta.copiedItemCount;
            const int64_t recorded = oldItems.value_or(int64_t(split.sections.size()));
            rewriter.modify(fresh, [&](Node &n) { n.inductorMeta.copiedItemCount = recorded; });
        }
        for (const auto &[index, item] : plan.group.all) {
            if (index > first && index <= last)
                continue; // merged away; erased with the cat
            const int64_t mapped = index <= first ? index : index - (last - first);
            rewriter.setArgs(item, {fresh, mapped});
        }
        const NodeId merged = plan.group.all.at(first);
        const TensorMeta catMeta = rewriter.graph().node(plan.cat)->meta;
        rewriter.modify(merged, [&](Node &n) { n.meta = catMeta; });
        rewriter.replaceAllUsesWith(plan.cat, merged);
        rewriter.eraseIfDead(plan.cat);
        rewriter.eraseIfDead(split.node);
    }
};

} // namespace

std::unique_ptr<VerticalPattern> makeMergeGetItemCatPass()
{
    return std::make_unique<MergeGetItemCat>();
}

} // namespace fusebox::splitcat
