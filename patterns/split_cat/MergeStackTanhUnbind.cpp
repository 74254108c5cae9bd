// merge_stack_tahn_unbind_pass (PyTorch's spelling; split_cat.py
// merge_stack_tahn_unbind): stacking consecutive sections of a split, applying
// tanh and unbinding on the stack dim gives back the sections, each tanh'd.
// Apply tanh once to the merged section and split it again instead.
//   split(x, s, d) -> g0..g3 -> stack(k) -> tanh -> unbind(k)
//   =>  split(x, s', d) -> g0' -> tanh -> split(., [s0..s3], d)

#include "SplitCatPatterns.h"
#include "SplitCatUtils.h"

namespace fusebox::splitcat {
namespace {

struct MergeStackTanhUnbindPlan {
    std::vector<NodeId> nodes; // tanh, stack, unbind, the getitems, the split
    NodeId tanh, stack, unbind;
    SplitGetItems group;
};

class MergeStackTanhUnbind final : public PlannedPattern<MergeStackTanhUnbindPlan> {
public:
    MergeStackTanhUnbind()
        : PlannedPattern("merge_stack_tahn_unbind_pass", PassStage::PreGrad, 88, {"aten::tanh"},
                         "Turns split -> consecutive getitems -> stack -> tanh -> unbind (stack dim = unbind "
                         "dim) into split -> one merged getitem -> tanh -> split, so tanh runs once on "
                         "contiguous data.")
    {}

protected:
    std::optional<MergeStackTanhUnbindPlan> analyze(const Graph &graph, NodeId anchor, MatchTrace &trace) const override
    {
        const Node &tanh = *graph.node(anchor);
        NodeId stack = nodeArgAt(tanh, 0, "self");
        const Node *stackNode = graph.node(stack);
        if (!require(trace, stackNode && isOp(*stackNode, kStack), "tanh input is a stack",
                     [&] {
                         return nodeRef(graph, anchor) + " reads "
                                + (stackNode ? nodeRef(graph, stack) + " (" + opText(*stackNode) + ")"
                                             : std::string("no node"));
                     },
                     {anchor}))
            return std::nullopt;
        const size_t stackUsers = graph.users(stack).size();
        if (!require(trace, stackUsers == 1, "stack is used only by the tanh",
                     [&] {
                         return "stack " + nodeRef(graph, stack) + " has " + std::to_string(stackUsers)
                                + " users (needs 1)";
                     },
                     {stack}))
            return std::nullopt;
        const std::vector<NodeId> tanhUsers = graph.users(anchor);
        if (!require(trace, tanhUsers.size() == 1, "tanh is used only by an unbind",
                     [&] {
                         return "tanh " + nodeRef(graph, anchor) + " has " + std::to_string(tanhUsers.size())
                                + " users (needs 1)";
                     },
                     {anchor}))
            return std::nullopt;
        const NodeId unbind = tanhUsers.front();
        const Node &unbindNode = *graph.node(unbind);
        if (!require(trace, isOp(unbindNode, kUnbind), "tanh is used only by an unbind",
                     [&] {
                         return "tanh " + nodeRef(graph, anchor) + " is read by " + nodeRef(graph, unbind) + " ("
                                + opText(unbindNode) + "), not an unbind";
                     },
                     {unbind}))
            return std::nullopt;

        auto inputs = readTensorList(graph, stack, trace, "stack");
        if (!inputs)
            return std::nullopt;
        auto group = readGetItemsOfOneSplit(graph, stack, *inputs, trace, "stack");
        if (!group)
            return std::nullopt;
        auto stackDim = dimArg(*stackNode, 1, stackNode->meta.rank());
        auto unbindDim = dimArg(unbindNode, 1, tanh.meta.rank());
        if (!require(trace, stackDim && unbindDim && *stackDim == *unbindDim, "stack dim equals unbind dim",
                     [&] {
                         auto text = [](const std::optional<int64_t> &d) {
                             return d ? std::to_string(*d) : std::string("unknown");
                         };
                         return "stack dim " + text(stackDim) + " ≠ unbind dim " + text(unbindDim);
                     },
                     {stack, unbind}))
            return std::nullopt;
        if (!checkUsedOnce(graph, group->items, trace) || !checkConsecutive(group->indices, trace))
            return std::nullopt;
        if (!readGetItems(graph, unbind, trace, "unbind"))
            return std::nullopt;

        MergeStackTanhUnbindPlan plan;
        plan.tanh = anchor;
        plan.stack = stack;
        plan.unbind = unbind;
        plan.nodes = {anchor, stack, unbind};
        plan.nodes.insert(plan.nodes.end(), group->items.begin(), group->items.end());
        plan.nodes.push_back(group->split.node);
        plan.group = std::move(*group);
        return plan;
    }

    void apply(PatternRewriter &rewriter, const MergeStackTanhUnbindPlan &plan) const override
    {
        const Graph &graph = rewriter.graph();
        const SplitView &split = plan.group.split;
        const int64_t first = plan.group.indices.front(), last = plan.group.indices.back();
        const std::vector<int64_t> unbindSections(split.sections.begin() + first, split.sections.begin() + last + 1);

        NodeBuilder build(rewriter, split.node, split.node);
        NodeId fresh = build.splitWithSizes(split.input, fuseSections(split.sections, first, last), split.dim);
        for (const auto &[index, item] : plan.group.all) {
            if (index > first && index <= last)
                continue; // read only by the stack; erased with it
            rewriter.setArgs(item, {fresh, index <= first ? index : index - (last - first)});
        }
        const NodeId merged = plan.group.all.at(first);
        TensorMeta mergedMeta = graph.node(merged)->meta;
        if (mergedMeta.shape && split.dim < mergedMeta.rank())
            (*mergedMeta.shape)[split.dim] = Dim(split.offsets()[last + 1] - split.offsets()[first]);
        rewriter.modify(merged, [&](Node &n) { n.meta = mergedMeta; });

        const Node &oldTanh = *graph.node(plan.tanh);
        build.setInsertionPoint(plan.unbind);
        TensorMeta tanhMeta = NodeBuilder::metaLike(oldTanh.meta, staticShape(*graph.node(merged)));
        NodeId tanh = build.op(oldTanh.op, oldTanh.overload, {merged}, tanhMeta);
        NodeId resplit = build.splitWithSizes(tanh, unbindSections, split.dim);
        rewriter.replaceAllUsesWith(plan.unbind, resplit);
        rewriter.eraseIfDead(plan.unbind);
        rewriter.eraseIfDead(split.node);
    }
};

} // namespace

std::unique_ptr<VerticalPattern> makeMergeStackTanhUnbindPass()
{
    return std::make_unique<MergeStackTanhUnbind>();
}

} // namespace fusebox::splitcat
