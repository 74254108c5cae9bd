// permute_linear_fusion, permute_matmul_fusion, linear_permute_fusion
// (pre_grad.py, run when Inductor's permute_fusion is on): a permute that
// swaps the last two dims (rank >= 3, check_permute) folded into the
// neighbouring linear/matmul as a transpose of an operand:
//   linear(permute(x), w, b)   =>  matmul(transpose(x, -1, -2), t(w)) + b
//   matmul(permute(a), b)      =>  matmul(transpose(a, -1, -2), b)   (either operand; bmm too)
//   permute(linear(x, w, b))   =>  matmul(w, transpose(x, -1, -2)) + unsqueeze(b, -1)
// PyTorch emits calls of its helpers transpose_linear / transpose_matmul /
// linear_transpose; Fusebox writes their bodies out in ATen ops.

#include "SplitCatPatterns.h"
#include "SplitCatUtils.h"

namespace fusebox::splitcat {
namespace {

/// Why `id` is not a permute swapping the last two dims of a rank >= 3
/// tensor, or empty when it is.
std::string permuteGap(const Graph &graph, NodeId id)
{
    const Node &n = *graph.node(id);
    if (!isOp(n, "aten::permute"))
        return nodeRef(graph, id) + " (" + opText(n) + ") is not a permute";
    int rank = n.meta.rank();
    if (rank < 0)
        if (NodeId in = nodeArgAt(n, 0, "self"); in.isValid())
            rank = graph.node(in)->meta.rank();
    auto dims = intListArgAt(n, 1, "dims");
    if (rank < 0)
        return "the rank of permute " + nodeRef(graph, id) + " is unknown";
    if (rank < 3)
        return "permute " + nodeRef(graph, id) + " permutes " + std::to_string(rank) + " dims (needs at least 3)";
    std::vector<int64_t> wanted(size_t(rank), 0);
    for (int i = 0; i < rank; ++i)
        wanted[size_t(i)] = i;
    std::swap(wanted[size_t(rank) - 1], wanted[size_t(rank) - 2]);
    std::vector<int64_t> normalized;
    if (dims)
        for (int64_t d : *dims)
            normalized.push_back(((d % rank) + rank) % rank);
    if (normalized != wanted)
        return "permute " + nodeRef(graph, id) + " has dims "
               + (dims ? formatInts(*dims) : std::string("that are not literal")) + " (needs " + formatInts(wanted)
               + ")";
    return {};
}

bool checkPermute(const Graph &graph, NodeId id, MatchTrace &trace)
{
    const std::string gap = permuteGap(graph, id);
    return require(trace, gap.empty(), "the permute swaps the last two dims (rank >= 3)", [&] { return gap; }, {id});
}

TensorMeta swappedLast(const Graph &graph, NodeId id)
{
    auto shape = shapeOf(graph, id);
    if (shape && shape->size() >= 2)
        std::swap((*shape)[shape->size() - 1], (*shape)[shape->size() - 2]);
    return NodeBuilder::metaLike(graph.node(id)->meta, shape);
}

// --- permute_linear_fusion -------------------------------------------------------

struct LinearPlan {
    std::vector<NodeId> nodes; // linear, permute
    NodeId linear, permute, x, weight, bias;
};

class PermuteLinearFusion final : public PlannedPattern<LinearPlan> {
public:
    PermuteLinearFusion()
        : PlannedPattern("permute_linear_fusion", PassStage::PreGrad, 55, {"aten::linear"},
                         "Folds a permute swapping the last two dims of a linear's input into the product: "
                         "matmul(transpose(x, -1, -2), t(w)) + b.")
    {}

protected:
    std::optional<LinearPlan> analyze(const Graph &graph, NodeId anchor, MatchTrace &trace) const override
    {
        const Node &linear = *graph.node(anchor);
        LinearPlan plan;
        plan.linear = anchor;
        plan.permute = nodeArgAt(linear, 0, "input");
        plan.weight = nodeArgAt(linear, 1, "weight");
        plan.bias = nodeArgAt(linear, 2, "bias");
        if (!require(trace, plan.permute.isValid() && plan.weight.isValid(), "linear has an input and a weight",
                     [&] { return nodeRef(graph, anchor) + " lacks its input or weight node"; }, {anchor}))
            return std::nullopt;
        if (!checkPermute(graph, plan.permute, trace))
            return std::nullopt;
        plan.x = nodeArgAt(*graph.node(plan.permute), 0, "self");
        plan.nodes = {anchor, plan.permute};
        return plan;
    }

    void apply(PatternRewriter &rewriter, const LinearPlan &plan) const override
    {
        const Graph &graph = rewriter.graph();
        NodeBuilder build(rewriter, plan.linear, plan.linear);
        const TensorMeta meta = graph.node(plan.linear)->meta;
        NodeId xt = build.transpose(plan.x, -1, -2);
        NodeId wt = build.op("aten::t", {}, {plan.weight}, swappedLast(graph, plan.weight));
        NodeId result = build.op("aten::matmul", {}, {xt, wt}, meta);
        if (plan.bias.isValid())
            result = build.op("aten::add", "Tensor", {result, plan.bias}, meta);
        rewriter.replaceAllUsesWith(plan.linear, result);
        rewriter.eraseIfDead(plan.linear);
    }
};

// --- permute_matmul_fusion -------------------------------------------------------

struct MatmulPlan {
    std::vector<NodeId> nodes; // matmul, the permutes
    NodeId matmul, a, b;
    bool aTrans = false, bTrans = false;
};

class PermuteMatmulFusion final : public PlannedPattern<MatmulPlan> {
public:
    PermuteMatmulFusion()
        : PlannedPattern("permute_matmul_fusion", PassStage::PreGrad, 55, {"aten::matmul", "aten::bmm"},
                         "Folds a permute swapping the last two dims of a matmul/bmm operand into a transpose "
                         "of that operand: matmul(transpose(a, -1, -2), b).")
    {}

protected:
    std::optional<MatmulPlan> analyze(const Graph &graph, NodeId anchor, MatchTrace &trace) const override
    {
        const Node &mm = *graph.node(anchor);
        MatmulPlan plan;
        plan.matmul = anchor;
        plan.a = nodeArgAt(mm, 0, "self");
        plan.b = nodeArgAt(mm, 1, isOp(mm, "aten::bmm") ? "mat2" : "other");
        if (!require(trace, plan.a.isValid() && plan.b.isValid(), "the product has two tensor operands",
                     [&] { return nodeRef(graph, anchor) + " lacks an operand node"; }, {anchor}))
            return std::nullopt;
        const std::string gapA = permuteGap(graph, plan.a), gapB = permuteGap(graph, plan.b);
        plan.aTrans = gapA.empty();
        plan.bTrans = gapB.empty();
        if (!require(trace, plan.aTrans || plan.bTrans, "an operand is a permute swapping the last two dims (rank >= 3)",
                     [&] { return gapA + "; " + gapB; }, {plan.a, plan.b}))
            return std::nullopt;
        plan.nodes = {anchor};
        if (plan.aTrans)
            plan.nodes.push_back(plan.a);
        if (plan.bTrans)
            plan.nodes.push_back(plan.b);
        return plan;
    }

    void apply(PatternRewriter &rewriter, const MatmulPlan &plan) const override
    {
        const Graph &graph = rewriter.graph();
        NodeBuilder build(rewriter, plan.matmul, plan.matmul);
        auto operand = [&](NodeId id, bool trans) {
            return trans ? build.transpose(nodeArgAt(*graph.node(id), 0, "self"), -1, -2) : id;
        };
        NodeId a = operand(plan.a, plan.aTrans);
        NodeId b = operand(plan.b, plan.bTrans);
        NodeId result = build.op("aten::matmul", {}, {a, b}, graph.node(plan.matmul)->meta);
        rewriter.replaceAllUsesWith(plan.matmul, result);
        rewriter.eraseIfDead(plan.matmul);
    }
};

// --- linear_permute_fusion -------------------------------------------------------

class LinearPermuteFusion final : public PlannedPattern<LinearPlan> {
public:
    LinearPermuteFusion()
        : PlannedPattern("linear_permute_fusion", PassStage::PreGrad, 55, {"aten::permute"},
                         "Folds a permute swapping the last two dims of a linear's output into the product: "
                         "matmul(w, transpose(x, -1, -2)) + unsqueeze(b, -1).")
    {}

protected:
    std::optional<LinearPlan> analyze(const Graph &graph, NodeId anchor, MatchTrace &trace) const override
    {
        if (!checkPermute(graph, anchor, trace))
            return std::nullopt;
        LinearPlan plan;
        plan.permute = anchor;
        plan.linear = nodeArgAt(*graph.node(anchor), 0, "self");
        const Node *linear = graph.node(plan.linear);
        if (!require(trace, linear && isOp(*linear, "aten::linear"), "the permute reads a linear",
                     [&] {
                         return nodeRef(graph, anchor) + " reads " + nodeRef(graph, plan.linear) + " ("
                                + (linear ? opText(*linear) : std::string("nothing")) + ")";
                     },
                     {anchor}))
            return std::nullopt;
        plan.x = nodeArgAt(*linear, 0, "input");
        plan.weight = nodeArgAt(*linear, 1, "weight");
        plan.bias = nodeArgAt(*linear, 2, "bias");
        if (!require(trace, plan.x.isValid() && plan.weight.isValid(), "linear has an input and a weight",
                     [&] { return nodeRef(graph, plan.linear) + " lacks its input or weight node"; }, {plan.linear}))
            return std::nullopt;
        plan.nodes = {anchor, plan.linear};
        return plan;
    }

    void apply(PatternRewriter &rewriter, const LinearPlan &plan) const override
    {
        const Graph &graph = rewriter.graph();
        NodeBuilder build(rewriter, plan.permute, plan.permute);
        const TensorMeta meta = graph.node(plan.permute)->meta;
        NodeId xt = build.transpose(plan.x, -1, -2);
        NodeId result = build.op("aten::matmul", {}, {plan.weight, xt}, meta);
        if (plan.bias.isValid()) {
            // unsqueeze(b, -1) of the 1-D bias.
            NodeId column = build.unsqueeze(plan.bias, 1);
            result = build.op("aten::add", "Tensor", {result, column}, meta);
        }
        rewriter.replaceAllUsesWith(plan.permute, result);
        rewriter.eraseIfDead(plan.permute);
    }
};

} // namespace

std::unique_ptr<VerticalPattern> makePermuteLinearFusion()
{
    return std::make_unique<PermuteLinearFusion>();
}

std::unique_ptr<VerticalPattern> makePermuteMatmulFusion()
{
    return std::make_unique<PermuteMatmulFusion>();
}

std::unique_ptr<VerticalPattern> makeLinearPermuteFusion()
{
    return std::make_unique<LinearPermuteFusion>();
}

} // namespace fusebox::splitcat
