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

struct Plan {
    std::vector<NodeId> nodes;
    NodeId owner;
    std::vector<RunPart> parts;
    std::map<NodeId, SplitView> splits;
    int64_t ownerDim = 0;
    int64_t mergeDim = 0;
    Shape stackShape;
};

class SplitToSlices final : public PlannedPattern<Plan> {
public:
    explicit SplitToSlices(bool stack)
        : PlannedPattern(stack ? "split_stack_to_cats_pass" : "split_cat_to_slices_pass", PassStage::PreGrad,
                         stack ? 72 : 74, {stack ? "aten::stack" : "aten::cat"},
                         stack ? "Turns a stack of getitems of splits into a cat of the splits' inputs (all "
                                 "sections in order) or slices (runs of at least threshold_to_cat getitems) on the "
                                 "split dim, reshaped to the stack's shape."
                               : "Replaces, in a cat on the split dim, a run of getitems covering every section of "
                                 "a split by the split's input, and a run of at least threshold_to_cat consecutive "
                                 "getitems by one slice.")
        , m_stack(stack)
    {
        options().set("threshold_to_cat", kDefaultThresholdToCat);
    }

protected:
    std::optional<Plan> analyze(const Graph &graph, NodeId anchor, MatchTrace &trace) const override
    {
        const std::string what = m_stack ? "stack" : "cat";
        auto inputs = readTensorList(graph, anchor, trace, what);
        if (!inputs)
            return std::nullopt;
        const Node &owner = *graph.node(anchor);
        Plan plan;
        plan.owner = anchor;
        const int rank = m_stack ? owner.meta.rank() : catRank(graph, owner);
        auto ownerDim = dimArg(owner, 1, rank);
        if (!require(trace, ownerDim.has_value(), what + " dim is known",
                     [&] { return nodeRef(graph, anchor) + " has a negative dim and an unknown rank"; }, {anchor}))
            return std::nullopt;
        plan.ownerDim = *ownerDim;
        if (m_stack) {
            auto shape = staticShape(owner);
            if (!require(trace, shape.has_value(), "stack has a static shape",
                         [&] {
                             return nodeRef(graph, anchor) + " has shape "
                                    + (owner.meta.shape ? owner.meta.shapeString() : std::string("unknown"));
                         },
                         {anchor}))
                return std::nullopt;
            plan.stackShape = *shape;
        }

        const int64_t threshold = options().getInt("threshold_to_cat", kDefaultThresholdToCat);
        const auto runs = groupRuns(graph, *inputs, [](NodeId id) { return id; }, isSplitOp);
        std::optional<int64_t> mergeDim;
        if (!m_stack)
            mergeDim = plan.ownerDim;
        std::string why;
        for (const InputRun &run : runs) {
            if (!run.parent.isValid()) {
                keepRun(run, plan.parts, why, {});
                continue;
            }
            auto split = readNormalizedSplit(graph, run.parent, trace);
            if (!split || !readGetItems(graph, run.parent, trace, "split", int64_t(split->sections.size())))
                return std::nullopt;
            if (mergeDim && split->dim != *mergeDim) {
                keepRun(run, plan.parts, why,
                        nodeRef(graph, run.parent) + ": split dim " + std::to_string(split->dim) + " ≠ "
                            + (m_stack ? "split dim " + std::to_string(*mergeDim) + " of the runs merged before"
                                       : "cat dim " + std::to_string(*mergeDim)));
                continue;
            }
            const size_t before = plan.parts.size();
            planRun(graph, run, int64_t(split->sections.size()), threshold, plan.parts, why);
            plan.splits[run.parent] = *split;
            const bool merged = std::any_of(plan.parts.begin() + long(before), plan.parts.end(),
                                            [](const RunPart &p) { return p.kind != RunPart::Kind::Keep; });
            if (merged && !mergeDim)
                mergeDim = split->dim;
        }
        if (!checkShortens(graph, anchor, *inputs, plan.parts, why, trace))
            return std::nullopt;
        plan.mergeDim = *mergeDim;
        plan.nodes = coveredNodes(anchor, runs, plan.parts);
        return plan;
    }

    // 2.6's split_stack_to_cats pattern is CallFunction(torch.stack,
    // getitem_split, dim=Ignored()): three nodes, counted whatever the
    // handler does. split_cat_to_slices registers two patterns on every cat
    // (any cat, and getitem_split), whose counts are not modelled here.
    InductorCounts countsOf(const Graph &graph, const Plan &plan) const override
    {
        return m_stack ? patternMatcherCounts(3, PlannedPattern::countsOf(graph, plan))
                       : PlannedPattern::countsOf(graph, plan);
    }

    InductorCounts inductorCountsWithoutRewrite(const Graph &graph, NodeId anchor) const override
    {
        return m_stack && hasInductorGetItemSplitList(graph, anchor) ? patternMatcherCounts(3) : InductorCounts{};
    }

    void apply(PatternRewriter &rewriter, const Plan &plan) const override
    {
        NodeBuilder build(rewriter, plan.owner, plan.owner);
        std::vector<NodeId> args;
        for (const RunPart &part : plan.parts) {
            if (part.kind == RunPart::Kind::Keep) {
                args.insert(args.end(), part.keep.begin(), part.keep.end());
                continue;
            }
            const SplitView &split = plan.splits.at(part.parent);
            if (part.kind == RunPart::Kind::Whole) {
                args.push_back(split.input);
            } else {
                const auto offsets = split.offsets();
                args.push_back(build.slice(split.input, split.dim, offsets[part.first], offsets[part.last + 1]));
            }
        }
        NodeId result;
        if (!m_stack) {
            result = args.size() == 1 ? args.front() : build.cat(args, plan.ownerDim);
        } else {
            NodeId joined = args.size() == 1 ? args.front() : build.cat(args, plan.mergeDim);
            const int64_t s = plan.ownerDim, d = plan.mergeDim;
            if (s == d) {
                result = build.reshape(joined, plan.stackShape);
            } else {
                Shape chunk = plan.stackShape;
                const int64_t count = chunk[s];
                chunk.erase(chunk.begin() + s);
                NodeId unflat = build.reshape(joined, stackShape(chunk, count, d));
                result = build.permute(unflat, movedimPermutation(int64_t(plan.stackShape.size()), d, s));
            }
        }
        rewriter.replaceAllUsesWith(plan.owner, result);
        rewriter.eraseIfDead(plan.owner);
    }

private:
    bool m_stack;
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
