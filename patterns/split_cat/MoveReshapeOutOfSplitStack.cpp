// move_reshape_out_of_split_stack_pass (split_cat.py
// move_reshape_out_of_split_stack): a stack of reshaped getitems of a split
// stacks the sections after reshaping each; when every reshape keeps the dims
// before the split dim, reshaping the split's input (or one slice of it) once
// gives the same stacked data:
//   x[P.., n*k, Q..] -> split(k, d) -> reshape(P.. x R'..) -> stack(s)
//   =>  permute(reshape(x, P.. x n x R'..), movedim(d -> s))
// Runs follow the to-slices rules (all sections in order -> the input, at
// least threshold_to_cat consecutive -> a slice); kept inputs are stacked and
// everything is cat on the stack dim.
//
// Unlike PyTorch, which swaps dims and views, the reshape must keep the dims
// before the split dim (checked), movedim replaces the swap, and kept inputs
// stay the reshapes the stack read.

#include "SliceRuns.h"
#include "SplitCatPatterns.h"

namespace fusebox::splitcat {
namespace {

struct RunShape {
    SplitView split;
    Shape input;
    Shape target; // the reshapes' common target shape
};

struct MoveReshapeOutOfSplitStackPlan : SliceRunsPlan {
    std::map<NodeId, RunShape> splits;
};

bool isReshape(const Node &n)
{
    return isOp(n, "aten::reshape") || isOp(n, "aten::view");
}

class MoveReshapeOutOfSplitStack final : public SliceRunsPattern<MoveReshapeOutOfSplitStackPlan> {
public:
    MoveReshapeOutOfSplitStack()
        : SliceRunsPattern("move_reshape_out_of_split_stack_pass", 70, true,
                           "Replaces a stack of reshaped getitems of a split by one reshape (and permute) of the "
                           "split's input or of a slice of it, when the reshapes keep the dims before the split "
                           "dim.")
    {}

protected:
    std::optional<MoveReshapeOutOfSplitStackPlan> analyze(const Graph &graph, NodeId anchor,
                                                          MatchTrace &trace) const override
    {
        MoveReshapeOutOfSplitStackPlan plan;
        SliceRunsRule rule = sliceRunsRule();
        rule.getitemOf = [&](NodeId id) {
            const Node &n = *graph.node(id);
            return isReshape(n) ? nodeArgAt(n, 0, "self") : NodeId{};
        };
        rule.isParent = isSplitOp;
        rule.checkRuns = [&](const std::vector<InputRun> &runs) {
            return require(trace,
                           std::any_of(runs.begin(), runs.end(), [](const InputRun &r) { return r.parent.isValid(); }),
                           "some stack input is a reshape of a getitem of a split",
                           [&] { return "no input of " + nodeRef(graph, anchor) + " reshapes a getitem of a split"; },
                           {anchor});
        };
        rule.readRun = [&](const InputRun &run) {
            auto split = readNormalizedSplit(graph, run.parent, trace);
            if (!split || !readGetItems(graph, run.parent, trace, "split", int64_t(split->sections.size())))
                return RunReading::fail();
            auto input = shapeOf(graph, split->input);
            auto target = shapeOf(graph, run.inputs.front());
            if (!require(trace, input && target, "the split input and the reshapes have static shapes",
                         [&] {
                             return "split input " + nodeRef(graph, split->input) + " has shape "
                                    + graph.node(split->input)->meta.shapeString() + ", reshape "
                                    + nodeRef(graph, run.inputs.front()) + " has shape "
                                    + graph.node(run.inputs.front())->meta.shapeString();
                         },
                         {split->input, run.inputs.front()}))
                return RunReading::fail();
            const auto d = size_t(split->dim);
            const bool keepsPrefix = target->size() > d
                                     && std::equal(input->begin(), input->begin() + long(d), target->begin());
            if (!keepsPrefix)
                return RunReading::keep(nodeRef(graph, run.inputs.front()) + " reshapes a section of "
                                        + nodeRef(graph, run.parent) + " to " + formatInts(*target)
                                        + ", which does not keep the dims "
                                        + formatInts(Shape(input->begin(), input->begin() + long(d)))
                                        + " before split dim " + std::to_string(d));
            plan.splits[run.parent] = {*split, *input, *target};
            return RunReading::plan(int64_t(split->sections.size()));
        };
        if (!planSliceRuns(graph, anchor, rule, plan, trace))
            return std::nullopt;
        return plan;
    }

    void apply(PatternRewriter &rewriter, const MoveReshapeOutOfSplitStackPlan &plan) const override
    {
        const int64_t s = plan.ownerDim;
        RunRewrite how;
        how.catDim = s;
        how.stackKept = true;
        how.merged = [&](NodeBuilder &build, const RunPart &part) {
            const RunShape &rs = plan.splits.at(part.parent);
            const int64_t d = rs.split.dim;
            NodeId value = rs.split.input;
            if (part.kind == RunPart::Kind::Slice) {
                const auto offsets = rs.split.offsets();
                value = build.slice(value, d, offsets[part.first], offsets[part.last + 1]);
            }
            Shape stacked(rs.target.begin(), rs.target.begin() + d);
            stacked.push_back(part.last - part.first + 1);
            stacked.insert(stacked.end(), rs.target.begin() + d, rs.target.end());
            value = build.reshape(value, stacked);
            if (s != d)
                value = build.permute(value, movedimPermutation(int64_t(stacked.size()), d, s));
            return value;
        };
        rewriteSliceRuns(rewriter, plan.owner, plan.parts, how);
    }
};

} // namespace

std::unique_ptr<VerticalPattern> makeMoveReshapeOutOfSplitStackPass()
{
    return std::make_unique<MoveReshapeOutOfSplitStack>();
}

} // namespace fusebox::splitcat
