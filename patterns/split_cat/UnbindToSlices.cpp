// unbind_cat_to_view_pass and unbind_stack_to_slices_pass (split_cat.py
// unbind_cat_to_view, unbind_stack_to_slices, update_args_from_unbind_getitem):
// in a cat/stack input list, a run of getitems reading every output of an
// unbind in order, or a consecutive stretch of at least threshold_to_cat of
// them, becomes the unbind's input (or a slice of it), moved to the list's dim:
//   cat:   reshape(permute(slice(x, u, a, b + 1)), the run's cat shape)
//   stack: permute(slice(x, u, a, b + 1))  — already in stacked form
// Kept inputs of a stack are stacked beside, then everything is cat on the
// stack dim.
//
// Unlike PyTorch: the whole-input case also needs the indices in order; the
// permutation is movedim's (PyTorch swaps the two dims, which is only right
// for adjacent dims); stretches of an unbind are sliced like a split's
// (PyTorch slices only a run that is entirely consecutive); and the stack
// result is assembled in stacked form rather than reshaped from a cat.

#include "SliceRuns.h"
#include "SplitCatPatterns.h"

namespace fusebox::splitcat {
namespace {

struct Plan {
    std::vector<NodeId> nodes;
    NodeId owner;
    std::vector<RunPart> parts;
    std::map<NodeId, UnbindView> unbinds;
    int64_t ownerDim = 0;
};

class UnbindToSlices final : public PlannedPattern<Plan> {
public:
    explicit UnbindToSlices(bool stack)
        : PlannedPattern(stack ? "unbind_stack_to_slices_pass" : "unbind_cat_to_view_pass", PassStage::PreGrad,
                         stack ? 71 : 73, {stack ? "aten::stack" : "aten::cat"},
                         stack ? "Replaces, in a stack, a run of getitems of an unbind covering all its outputs "
                                 "(or at least threshold_to_cat consecutive ones) by the unbind's input (or a "
                                 "slice of it) moved to the stack dim."
                               : "Replaces, in a cat, a run of getitems of an unbind covering all its outputs (or "
                                 "at least threshold_to_cat consecutive ones) by the unbind's input (or a slice "
                                 "of it) permuted and reshaped to the run's cat.")
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
        auto ownerDim = dimArg(owner, 1, m_stack ? owner.meta.rank() : catRank(graph, owner));
        if (!require(trace, ownerDim.has_value(), what + " dim is known",
                     [&] { return nodeRef(graph, anchor) + " has a negative dim and an unknown rank"; }, {anchor}))
            return std::nullopt;
        plan.ownerDim = *ownerDim;

        const int64_t threshold = options().getInt("threshold_to_cat", kDefaultThresholdToCat);
        const auto runs = groupRuns(graph, *inputs, [](NodeId id) { return id; },
                                    [](const Node &n) { return isOp(n, kUnbind); });
        std::string why;
        for (const InputRun &run : runs) {
            if (!run.parent.isValid()) {
                keepRun(run, plan.parts, why, {});
                continue;
            }
            auto unbind = readNormalizedUnbind(graph, run.parent, trace);
            if (!unbind || !readGetItems(graph, run.parent, trace, "unbind", unbind->count))
                return std::nullopt;
            const Node &in = *graph.node(unbind->input);
            if (!require(trace, in.meta.hasStaticShape(), "the unbind input has a static shape",
                         [&] {
                             return "input " + nodeRef(graph, unbind->input) + " of " + nodeRef(graph, run.parent)
                                    + " has shape " + in.meta.shapeString();
                         },
                         {unbind->input}))
                return std::nullopt;
            planRun(graph, run, unbind->count, threshold, plan.parts, why);
            plan.unbinds[run.parent] = *unbind;
        }
        if (!checkShortens(graph, anchor, *inputs, plan.parts, why, trace))
            return std::nullopt;
        plan.nodes = coveredNodes(anchor, runs, plan.parts);
        return plan;
    }

    // 2.6's patterns are CallFunction(torch.cat / torch.stack,
    // getitem_unbind, dim=Ignored()): three nodes, counted whatever the
    // handler does.
    InductorCounts countsOf(const Graph &graph, const Plan &plan) const override
    {
        return patternMatcherCounts(3, PlannedPattern::countsOf(graph, plan));
    }

    InductorCounts inductorCountsWithoutRewrite(const Graph &graph, NodeId anchor) const override
    {
        return inductorGetItemUnbindSource(graph, anchor).isValid() ? patternMatcherCounts(3) : InductorCounts{};
    }

    void apply(PatternRewriter &rewriter, const Plan &plan) const override
    {
        NodeBuilder build(rewriter, plan.owner, plan.owner);
        const int64_t dim = plan.ownerDim;
        std::vector<NodeId> args, pending;
        auto flush = [&] {
            if (!pending.empty())
                args.push_back(build.stack(pending, dim));
            pending.clear();
        };
        for (const RunPart &part : plan.parts) {
            if (part.kind == RunPart::Kind::Keep) {
                if (m_stack)
                    pending.insert(pending.end(), part.keep.begin(), part.keep.end());
                else
                    args.insert(args.end(), part.keep.begin(), part.keep.end());
                continue;
            }
            flush();
            const UnbindView &unbind = plan.unbinds.at(part.parent);
            const Shape input = *shapeOf(rewriter.graph(), unbind.input);
            NodeId value = unbind.input;
            if (part.kind == RunPart::Kind::Slice)
                value = build.slice(value, unbind.dim, part.first, part.last + 1);
            if (unbind.dim != dim)
                value = build.permute(value, movedimPermutation(int64_t(input.size()), unbind.dim, dim));
            if (!m_stack) {
                Shape catForm = input;
                catForm.erase(catForm.begin() + unbind.dim);
                catForm[dim] *= part.last - part.first + 1;
                value = build.reshape(value, catForm);
            }
            args.push_back(value);
        }
        flush();
        NodeId result = args.size() == 1 ? args.front() : build.cat(args, dim);
        rewriter.replaceAllUsesWith(plan.owner, result);
        rewriter.eraseIfDead(plan.owner);
    }

private:
    bool m_stack;
};

} // namespace

std::unique_ptr<VerticalPattern> makeUnbindCatToViewPass()
{
    return std::make_unique<UnbindToSlices>(false);
}

std::unique_ptr<VerticalPattern> makeUnbindStackToSlicesPass()
{
    return std::make_unique<UnbindToSlices>(true);
}

} // namespace fusebox::splitcat
