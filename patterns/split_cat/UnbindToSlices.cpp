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
// As in PyTorch, the unbind's dim may be negative (batch fusions create such
// unbinds after normalization_pass ran), and the cat's permute is there
// whenever the two dims are written differently, even where it is the
// identity (unbind dim -2 and cat dim 1 of a rank-3 input).
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

struct UnbindToSlicesPlan : SliceRunsPlan {
    std::map<NodeId, UnbindView> unbinds;
};

class UnbindToSlices final : public SliceRunsPattern<UnbindToSlicesPlan> {
public:
    explicit UnbindToSlices(bool stack)
        : SliceRunsPattern(stack ? "unbind_stack_to_slices_pass" : "unbind_cat_to_view_pass", stack ? 71 : 73, stack,
                           stack ? "Replaces, in a stack, a run of getitems of an unbind covering all its outputs "
                                   "(or at least threshold_to_cat consecutive ones) by the unbind's input (or a "
                                   "slice of it) moved to the stack dim."
                                 : "Replaces, in a cat, a run of getitems of an unbind covering all its outputs "
                                   "(or at least threshold_to_cat consecutive ones) by the unbind's input (or a "
                                   "slice of it) permuted and reshaped to the run's cat.")
    {}

protected:
    std::optional<UnbindToSlicesPlan> analyze(const Graph &graph, NodeId anchor, MatchTrace &trace) const override
    {
        UnbindToSlicesPlan plan;
        SliceRunsRule rule = sliceRunsRule();
        rule.isParent = [](const Node &n) { return isOp(n, kUnbind); };
        rule.readRun = [&](const InputRun &run) {
            auto unbind = readNormalizedUnbind(graph, run.parent, trace, UnbindDims::AsWritten);
            if (!unbind || !readGetItems(graph, run.parent, trace, "unbind", unbind->count))
                return RunReading::fail();
            const Node &in = *graph.node(unbind->input);
            if (!require(trace, in.meta.hasStaticShape(), "the unbind input has a static shape",
                         [&] {
                             return "input " + nodeRef(graph, unbind->input) + " of " + nodeRef(graph, run.parent)
                                    + " has shape " + in.meta.shapeString();
                         },
                         {unbind->input}))
                return RunReading::fail();
            plan.unbinds[run.parent] = *unbind;
            return RunReading::plan(unbind->count);
        };
        if (!planSliceRuns(graph, anchor, rule, plan, trace))
            return std::nullopt;
        return plan;
    }

    // 2.6's patterns are CallFunction(torch.cat / torch.stack,
    // getitem_unbind, dim=Ignored()): three nodes, counted whatever the
    // handler does.
    InductorCounts countsOf(const Graph &graph, const UnbindToSlicesPlan &plan) const override
    {
        return patternMatcherCounts(3, PlannedPattern::countsOf(graph, plan));
    }

    InductorCounts inductorCountsWithoutRewrite(const Graph &graph, NodeId anchor) const override
    {
        return inductorGetItemUnbindSource(graph, anchor).isValid() ? patternMatcherCounts(3) : InductorCounts{};
    }

    void apply(PatternRewriter &rewriter, const UnbindToSlicesPlan &plan) const override
    {
        const int64_t dim = plan.ownerDim;
        // reshape_cat_node compares the dims as written: get_arg_value(cat, 1, "dim") against the unbind's.
        const Arg *catDimArg = argAt(*rewriter.graph().node(plan.owner), 1, "dim");
        const int64_t writtenCatDim = catDimArg && catDimArg->asInt() ? *catDimArg->asInt() : dim;
        RunRewrite how;
        how.catDim = dim;
        how.stackKept = isStack();
        how.merged = [&](NodeBuilder &build, const RunPart &part) {
            const UnbindView &unbind = plan.unbinds.at(part.parent);
            const Shape input = *shapeOf(build.graph(), unbind.input);
            NodeId value = unbind.input;
            if (part.kind == RunPart::Kind::Slice)
                value = build.slice(value, unbind.dim, part.first, part.last + 1);
            if (isStack() ? unbind.dim != dim : unbind.writtenDim != writtenCatDim)
                value = build.permute(value, movedimPermutation(int64_t(input.size()), unbind.dim, dim));
            if (!isStack()) {
                Shape catForm = input;
                catForm.erase(catForm.begin() + unbind.dim);
                catForm[dim] *= part.last - part.first + 1;
                value = build.reshape(value, catForm);
            }
            return value;
        };
        rewriteSliceRuns(rewriter, plan.owner, plan.parts, how);
    }
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
