// unbind_stack_aten_pass (post-grad; split_cat.py merge_unbind_stack_aten):
// Inductor decomposes unbind -> stack into cat of unsqueeze(select(p, d, i));
// when the selects take every index 0..n-1 of p along the cat dim, in order,
// and nothing else reads p, the cat is p itself.
//
// Beyond PyTorch, Fusebox also checks that each unsqueeze inserts the cat dim
// and that n is p's size along it (PyTorch's user count alone does not prove
// that every slice is taken).

#include "SplitCatPatterns.h"
#include "SplitCatUtils.h"

#include "core/ir/GraphSource.h"

namespace fusebox::splitcat {
namespace {

struct UnbindStackAtenPlan {
    std::vector<NodeId> nodes; // cat, unsqueezes, selects
    NodeId cat, parent;
};

class UnbindStackAten final : public PlannedPattern<UnbindStackAtenPlan> {
public:
    UnbindStackAten()
        : PlannedPattern("unbind_stack_aten_pass", PassStage::PostGrad, 50, {"aten::cat"},
                         "Replaces cat(unsqueeze(select(p, d, i), d) for i = 0..n-1, d) by p when the selects "
                         "take all of p along d and nothing else reads p.")
    {}

protected:
    std::optional<UnbindStackAtenPlan> analyze(const Graph &graph, NodeId anchor, MatchTrace &trace) const override
    {
        auto inputs = readTensorList(graph, anchor, trace, "cat");
        if (!inputs)
            return std::nullopt;
        UnbindStackAtenPlan plan;
        plan.cat = anchor;
        plan.nodes.push_back(anchor);
        std::vector<NodeId> selects;
        for (NodeId in : *inputs) {
            const Node &u = *graph.node(in);
            if (!require(trace, isOp(u, "aten::unsqueeze"), "every cat input is an unsqueeze",
                         [&] { return "cat input " + nodeRef(graph, in) + " (" + opText(u) + ") is not an unsqueeze"; },
                         {in}))
                return std::nullopt;
            NodeId select = nodeArgAt(u, 0, "self");
            const Node *s = graph.node(select);
            if (!require(trace, s && isOp(*s, "aten::select"), "every unsqueeze reads a select",
                         [&] {
                             return nodeRef(graph, in) + " reads " + nodeRef(graph, select) + " ("
                                    + (s ? opText(*s) : std::string("nothing")) + "), not a select";
                         },
                         {in}))
                return std::nullopt;
            // merge_unbind_stack_aten asks `target is torch.ops.aten.select`:
            // the packet a batch fusion calls, not select.int as a dump spells it.
            if (!require(trace, !isPt2Graph(graph) || isPacketCall(*s),
                         "every select calls the packet aten.select (as a batch fusion writes it)",
                         [&] {
                             return nodeRef(graph, select) + " is "
                                    + (s->provenance.originalSpelling.empty() ? opText(*s)
                                                                              : s->provenance.originalSpelling)
                                    + ", which merge_unbind_stack_aten's `target is torch.ops.aten.select` refuses";
                         },
                         {select}))
                return std::nullopt;
            selects.push_back(select);
        }
        plan.parent = nodeArgAt(*graph.node(selects.front()), 0, "self");
        for (NodeId select : selects) {
            NodeId source = nodeArgAt(*graph.node(select), 0, "self");
            if (!require(trace, source == plan.parent, "all selects read the same node",
                         [&] {
                             return nodeRef(graph, selects.front()) + " reads " + nodeRef(graph, plan.parent) + " but "
                                    + nodeRef(graph, select) + " reads " + nodeRef(graph, source);
                         },
                         {select}))
                return std::nullopt;
        }
        const Node &cat = *graph.node(anchor);
        const Node &parent = *graph.node(plan.parent);
        const int rank = parent.meta.rank();
        auto catDim = dimArg(cat, 1, rank < 0 ? -1 : rank);
        if (!require(trace, catDim.has_value(), "cat dim is known",
                     [&] { return nodeRef(graph, anchor) + " has a negative dim and an unknown rank"; }, {anchor}))
            return std::nullopt;
        std::vector<int64_t> indices;
        for (size_t i = 0; i < selects.size(); ++i) {
            const Node &s = *graph.node(selects[i]);
            auto dim = dimArg(s, 1, rank);
            if (!require(trace, dim && *dim == *catDim, "every select takes the cat dim",
                         [&] {
                             const Arg *d = argAt(s, 1, "dim");
                             return "select " + nodeRef(graph, selects[i]) + " has dim "
                                    + (d ? argText(graph, *d) : std::string("?")) + ", the cat dim is "
                                    + std::to_string(*catDim);
                         },
                         {selects[i]}))
                return std::nullopt;
            const Node &u = *graph.node((*inputs)[i]);
            auto unsqueezeDim = dimArg(u, 1, rank);
            if (!require(trace, unsqueezeDim && *unsqueezeDim == *catDim, "every unsqueeze inserts the cat dim",
                         [&] {
                             const Arg *d = argAt(u, 1, "dim");
                             return "unsqueeze " + nodeRef(graph, (*inputs)[i]) + " has dim "
                                    + (d ? argText(graph, *d) : std::string("?")) + ", the cat dim is "
                                    + std::to_string(*catDim);
                         },
                         {(*inputs)[i]}))
                return std::nullopt;
            indices.push_back(intArgAt(s, 2, "index").value_or(-1));
        }
        if (!require(trace, !indices.empty() && indices.front() == 0 && isSortedAndConsecutive(indices),
                     "select indices are 0, 1, ..., n-1 in order", [&] { return "indices " + formatInts(indices); }))
            return std::nullopt;
        const size_t parentUsers = graph.users(plan.parent).size();
        if (!require(trace, parentUsers == selects.size(), "the selected node is read only by these selects",
                     [&] {
                         return nodeRef(graph, plan.parent) + " has " + std::to_string(parentUsers)
                                + " users; the cat joins " + std::to_string(selects.size()) + " selects";
                     },
                     {plan.parent}))
            return std::nullopt;
        auto shape = staticShape(parent);
        const bool covers = shape && *catDim < int64_t(shape->size()) && (*shape)[*catDim] == int64_t(selects.size());
        if (!require(trace, covers, "the selects cover the selected node along the cat dim",
                     [&] {
                         return nodeRef(graph, plan.parent) + " has shape "
                                + (parent.meta.shape ? parent.meta.shapeString() : std::string("unknown"))
                                + "; the cat joins " + std::to_string(selects.size()) + " selects along dim "
                                + std::to_string(*catDim);
                     },
                     {plan.parent}))
            return std::nullopt;
        plan.nodes.insert(plan.nodes.end(), inputs->begin(), inputs->end());
        plan.nodes.insert(plan.nodes.end(), selects.begin(), selects.end());
        return plan;
    }

    // 2.6's pattern, CallFunction(aten.cat, ListOf(CallFunctionVarArgs(
    // aten.unsqueeze))): a cat on dim 0 (the default, written or not) whose
    // one list holds only unsqueezes, each read by nothing else. The pattern
    // matcher counts every match, with the cat and its unsqueezes as the
    // match's nodes, also when merge_unbind_stack_aten then returns unchanged.
    static std::optional<size_t> inductorPatternNodes(const Graph &graph, NodeId cat)
    {
        const Node &n = *graph.node(cat);
        MatchTrace quiet;
        auto inputs = readTensorList(graph, cat, quiet, "cat");
        if (!inputs || inputs->empty())
            return std::nullopt;
        const auto dim = intArgAt(n, 1, "dim");
        const Arg *dimArg = argAt(n, 1, "dim");
        if (dimArg && (!dim || *dim != 0))
            return std::nullopt;
        for (NodeId in : *inputs)
            if (!isOp(*graph.node(in), "aten::unsqueeze") || graph.useCount(in) != 1)
                return std::nullopt;
        return 1 + inputs->size();
    }

    InductorCounts countsOf(const Graph &graph, const UnbindStackAtenPlan &plan) const override
    {
        InductorCounts counts = PlannedPattern::countsOf(graph, plan);
        if (auto nodes = inductorPatternNodes(graph, plan.cat)) {
            counts.added["pattern_matcher_count"] = 1;
            counts.added["pattern_matcher_nodes"] = *nodes;
        }
        return counts;
    }

    InductorCounts inductorCountsWithoutRewrite(const Graph &graph, NodeId anchor) const override
    {
        InductorCounts counts;
        if (auto nodes = inductorPatternNodes(graph, anchor)) {
            counts.added["pattern_matcher_count"] = 1;
            counts.added["pattern_matcher_nodes"] = *nodes;
        }
        return counts;
    }

    void apply(PatternRewriter &rewriter, const UnbindStackAtenPlan &plan) const override
    {
        rewriter.replaceAllUsesWith(plan.cat, plan.parent);
        rewriter.eraseIfDead(plan.cat);
    }
};

} // namespace

std::unique_ptr<VerticalPattern> makeUnbindStackAtenPass()
{
    return std::make_unique<UnbindStackAten>();
}

} // namespace fusebox::splitcat
