// sink_cat_after_pointwise (pre_grad.py): cat -> (view)* -> relu/tanh applies
// the unary op to each input before the cat instead, so the op runs on the
// inputs where they are produced and the cat moves last.
//   relu(view(cat([a, b], 1), s))  =>  view(cat([relu(a), relu(b)], 1), s)
// The cat and every view must have a single user, as in PyTorch.

#include "SplitCatPatterns.h"
#include "SplitCatUtils.h"

namespace fusebox::splitcat {
namespace {

struct SinkCatAfterPointwisePlan {
    std::vector<NodeId> nodes;   // cat, views, the pointwise op
    NodeId cat, pointwise, last; // last: the last view, or the cat
    std::vector<NodeId> inputs;
    int64_t dim = 0;
};

bool isPointwiseUnary(const Node &n)
{
    return isOp(n, "aten::relu") || isOp(n, "aten::tanh");
}

class SinkCatAfterPointwise final : public PlannedPattern<SinkCatAfterPointwisePlan> {
public:
    SinkCatAfterPointwise()
        : PlannedPattern("sink_cat_after_pointwise", PassStage::PreGrad, 60, {"aten::cat"},
                         "Moves a relu/tanh that follows a cat (through views) onto each cat input, so the cat "
                         "comes after the pointwise op.")
    {}

protected:
    std::optional<SinkCatAfterPointwisePlan> analyze(const Graph &graph, NodeId anchor, MatchTrace &trace) const override
    {
        auto inputs = readTensorList(graph, anchor, trace, "cat");
        if (!inputs)
            return std::nullopt;
        const Node &catNode = *graph.node(anchor);
        auto dim = dimArg(catNode, 1, catRank(graph, catNode));
        if (!require(trace, dim.has_value(), "cat dim is known",
                     [&] { return nodeRef(graph, anchor) + " has a negative dim and an unknown rank"; }, {anchor}))
            return std::nullopt;
        SinkCatAfterPointwisePlan plan;
        plan.cat = anchor;
        plan.inputs = *inputs;
        plan.dim = *dim;
        plan.nodes.push_back(anchor);
        NodeId current = anchor;
        while (true) {
            const std::vector<NodeId> users = graph.users(current);
            if (!require(trace, users.size() == 1, "the cat and each view after it have one user",
                         [&] {
                             return nodeRef(graph, current) + " has " + std::to_string(users.size())
                                    + " users (needs 1)";
                         },
                         {current}))
                return std::nullopt;
            const Node &user = *graph.node(users.front());
            if (isOp(user, "aten::view") && nodeArgAt(user, 0, "self") == current) {
                current = users.front();
                plan.nodes.push_back(current);
                continue;
            }
            if (!require(trace, isPointwiseUnary(user) && nodeArgAt(user, 0, "self") == current,
                         "the chain from the cat through views ends in relu or tanh",
                         [&] {
                             return nodeRef(graph, current) + " is read by " + nodeRef(graph, users.front()) + " ("
                                    + opText(user) + "), not relu/tanh";
                         },
                         {users.front()}))
                return std::nullopt;
            plan.last = current;
            plan.pointwise = users.front();
            plan.nodes.push_back(plan.pointwise);
            return plan;
        }
    }

    void apply(PatternRewriter &rewriter, const SinkCatAfterPointwisePlan &plan) const override
    {
        const Graph &graph = rewriter.graph();
        const Node &pointwise = *graph.node(plan.pointwise);
        const std::string op = pointwise.op, overload = pointwise.overload;
        const std::vector<Arg> extra(pointwise.args().begin() + 1, pointwise.args().end());
        const DType dtype = pointwise.meta.dtype;

        // 2.6 creates the new calls with the pointwise node's own target
        // (torch.relu stays torch.relu, x.tanh() a method): later pre-grad
        // rules that match on the spelling see them as Inductor does.
        const std::string spelling = pointwise.provenance.originalSpelling;
        const std::string catSpelling = graph.node(plan.cat)->provenance.originalSpelling;
        auto spell = [&](NodeId id, const std::string &as) {
            if (!as.empty())
                rewriter.modify(id, [&](Node &n) { n.provenance.originalSpelling = as; });
        };
        NodeBuilder build(rewriter, plan.cat, plan.cat);
        std::vector<NodeId> applied;
        for (NodeId input : plan.inputs) {
            std::vector<Arg> args{input};
            args.insert(args.end(), extra.begin(), extra.end());
            TensorMeta meta = graph.node(input)->meta;
            meta.dtype = dtype == DType::Unknown ? meta.dtype : dtype;
            applied.push_back(build.op(op, overload, std::move(args), meta));
            spell(applied.back(), spelling);
        }
        NodeId cat = build.cat(applied, plan.dim);
        spell(cat, catSpelling);
        rewriter.replaceAllUsesWith(plan.cat, cat);
        rewriter.replaceAllUsesWith(plan.pointwise, plan.last == plan.cat ? cat : plan.last);
        rewriter.eraseIfDead(plan.pointwise);
        rewriter.eraseIfDead(plan.cat);
    }
};

} // namespace

std::unique_ptr<VerticalPattern> makeSinkCatAfterPointwise()
{
    return std::make_unique<SinkCatAfterPointwise>();
}

} // namespace fusebox::splitcat
