// split_cat_to_slices_pass and split_stack_to_cats_pass (split_cat.py
// split_cat_to_slices, split_stack_to_cats, update_args_from_split_getitem):
// in a cat/stack input list, a run of getitems reading every section of a
// split in order becomes the split's input, a consecutive stretch of at least
// threshold_to_cat getitems becomes one slice; a stack then becomes a cat on
// the split dim reshaped (and permuted) to the stack's shape.
//
// Unlike PyTorch, a cat run is merged only when its split dim equals the cat
// dim (PyTorch assumes it), the stack reshape uses unflatten-then-movedim (the
// swap PyTorch uses is only right for adjacent dims), and reshape replaces
// view so that non-contiguous inputs stay valid.

#include "SliceRuns.h"
#include "SplitCatPatterns.h"

namespace fusebox::splitcat {
namespace {

struct SplitToSlicesPlan : SliceRunsPlan {
    std::map<NodeId, SplitView> splits;
    /// The dim the merged list is cat on: the cat's, or the split dim of the
    /// stack's first merged run.
    int64_t mergeDim = 0;
    Shape stackShape;
};

class SplitToSlices final : public SliceRunsPattern<SplitToSlicesPlan> {
public:
    explicit SplitToSlices(bool stack)
        : SliceRunsPattern(stack ? "split_stack_to_cats_pass" : "split_cat_to_slices_pass", stack ? 72 : 74, stack,
                           stack ? "Turns a stack of getitems of splits into a cat of the splits' inputs (all "
                                   "sections in order) or slices (runs of at least threshold_to_cat getitems) on "
                                   "the split dim, reshaped to the stack's shape."
                                 : "Replaces, in a cat on the split dim, a run of getitems covering every section "
                                   "of a split by the split's input, and a run of at least threshold_to_cat "
                                   "consecutive getitems by one slice.")
    {}

protected:
    std::optional<SplitToSlicesPlan> analyze(const Graph &graph, NodeId anchor, MatchTrace &trace) const override
    {
        SplitToSlicesPlan plan;
        std::optional<int64_t> mergeDim;
        SliceRunsRule rule = sliceRunsRule();
        rule.isParent = isSplitOp;
        rule.checkOwner = [&] {
            if (!isStack()) {
                mergeDim = plan.ownerDim;
                return true;
            }
            const Node &owner = *graph.node(anchor);
            auto shape = staticShape(owner);
            if (!require(trace, shape.has_value(), "stack has a static shape",
                         [&] {
                             return nodeRef(graph, anchor) + " has shape "
                                    + (owner.meta.shape ? owner.meta.shapeString() : std::string("unknown"));
                         },
                         {anchor}))
                return false;
            plan.stackShape = *shape;
            return true;
        };
        rule.readRun = [&](const InputRun &run) {
            auto split = readNormalizedSplit(graph, run.parent, trace);
            if (!split || !readGetItems(graph, run.parent, trace, "split", int64_t(split->sections.size())))
                return RunReading::fail();
            if (mergeDim && split->dim != *mergeDim)
                return RunReading::keep(nodeRef(graph, run.parent) + ": split dim " + std::to_string(split->dim) + " ≠ "
                                        + (isStack()
                                               ? "split dim " + std::to_string(*mergeDim) + " of the runs merged before"
                                               : "cat dim " + std::to_string(*mergeDim)));
            plan.splits[run.parent] = *split;
            return RunReading::plan(int64_t(split->sections.size()));
        };
        rule.planned = [&](const InputRun &run, bool merged) {
            if (merged && !mergeDim)
                mergeDim = plan.splits.at(run.parent).dim;
        };
        if (!planSliceRuns(graph, anchor, rule, plan, trace))
            return std::nullopt;
        plan.mergeDim = *mergeDim;
        return plan;
    }

    // 2.6's split_stack_to_cats pattern is CallFunction(torch.stack,
    // getitem_split, dim=Ignored()): three nodes, counted whatever the
    // handler does. split_cat_to_slices registers two patterns on every cat
    // (any cat, and getitem_split), whose counts are not modelled here.
    InductorCounts countsOf(const Graph &graph, const SplitToSlicesPlan &plan) const override
    {
        return isStack() ? patternMatcherCounts(3, PlannedPattern::countsOf(graph, plan))
                         : PlannedPattern::countsOf(graph, plan);
    }

    InductorCounts inductorCountsWithoutRewrite(const Graph &graph, NodeId anchor) const override
    {
        return isStack() && hasInductorGetItemSplitList(graph, anchor) ? patternMatcherCounts(3) : InductorCounts{};
    }

    void apply(PatternRewriter &rewriter, const SplitToSlicesPlan &plan) const override
    {
        RunRewrite how;
        how.catDim = plan.mergeDim;
        how.merged = [&](NodeBuilder &build, const RunPart &part) {
            const SplitView &split = plan.splits.at(part.parent);
            if (part.kind == RunPart::Kind::Whole)
                return split.input;
            const auto offsets = split.offsets();
            return build.slice(split.input, split.dim, offsets[part.first], offsets[part.last + 1]);
        };
        if (isStack())
            how.finish = [&](NodeBuilder &build, NodeId joined) {
                const int64_t s = plan.ownerDim, d = plan.mergeDim;
                if (s == d)
                    return build.reshape(joined, plan.stackShape);
                Shape chunk = plan.stackShape;
                const int64_t count = chunk[s];
                chunk.erase(chunk.begin() + s);
                NodeId unflat = build.reshape(joined, stackShape(chunk, count, d));
                return build.permute(unflat, movedimPermutation(int64_t(plan.stackShape.size()), d, s));
            };
        rewriteSliceRuns(rewriter, plan.owner, plan.parts, how);
    }
};

} // namespace

std::unique_ptr<VerticalPattern> makeSplitCatToSlicesPass()
{
    return std::make_unique<SplitToSlices>(false);
}

std::unique_ptr<VerticalPattern> makeSplitStackToCatsPass()
{
    return std::make_unique<SplitToSlices>(true);
}

} // namespace fusebox::splitcat
