#include "BatchLinear.h"

#include "GroupBatchUtils.h"

#include "core/rewrite/MatchUtils.h"
#include "patterns/InductorProfile.h"

namespace fusebox::group_batch {
namespace {

/// The operands of an aten::linear that Inductor's is_linear_node_can_be_fused
/// accepts. The input's shape may hold symbols (a dynamic compile's batch,
/// f32[s37, 16]), as Inductor keys on str(shape); a weight's is static.
struct LinearOperands {
    NodeId input, weight, bias;
    std::vector<Dim> inputShape;
    std::vector<int64_t> weightShape;
};

/// Inductor's is_linear_node_can_be_fused, plus the shape validity the
/// batched op needs (in-features agree, bias is [out_features]).
constexpr std::string_view kStaticShapesOnly
    = "Fusebox only: it builds the batched op's shapes from a static weight and bias; Inductor's "
      "is_node_meta_valid accepts symbolic ones (it keys on str(shape))";
constexpr std::string_view kValidLinearOnly
    = "Fusebox only: a linear that breaks it cannot run, and Fusebox never builds a batched op from one";

std::optional<std::vector<int64_t>> linearShape(const Graph &graph, NodeId operand, std::string_view role,
                                                MatchTrace &trace)
{
    auto scope = trace.fuseboxOnly(kStaticShapesOnly);
    return staticShapeOf(graph, operand, role, trace);
}

std::optional<LinearOperands> linearOperands(const Graph &graph, NodeId id, MatchTrace &trace)
{
    if (!checkOp(graph, id, {"aten::linear"}, trace) || !checkOutputMeta(graph, id, trace))
        return std::nullopt;
    LinearOperands l;
    l.input = tensorOperand(graph, id, 0, "input", "input", trace);
    if (!l.input.isValid())
        return std::nullopt;
    auto in = knownShapeOf(graph, l.input, "input", trace);
    if (!in || !checkRank(graph, l.input, *in, 2, "input", trace))
        return std::nullopt;
    l.weight = tensorOperand(graph, id, 1, "weight", "weight", trace);
    if (!l.weight.isValid())
        return std::nullopt;
    auto w = linearShape(graph, l.weight, "weight", trace);
    if (!w || !checkRank(graph, l.weight, *w, 2, "weight", trace))
        return std::nullopt;
    std::optional<MatchTrace::Source> validOnly;
    validOnly.emplace(trace, kValidLinearOnly, true);
    if (!trace.check((*in)[1] == Dim((*w)[1]), "input features match the weight",
                     [&] {
                         return "input " + nodeRef(graph, l.input) + " has " + toString((*in)[1]) + " features, weight "
                                + nodeRef(graph, l.weight) + " " + formatInts(*w) + " takes " + std::to_string((*w)[1]);
                     },
                     {l.input, l.weight}))
        return std::nullopt;

    const Arg *bias = argAt(*graph.node(id), 2, "bias");
    if (bias && !bias->isNone()) {
        if (!trace.check(bias->isNode(), "bias is a tensor or None",
                         [&] { return (bias->isNode() ? "bias is " : "bias is the literal ") + argText(graph, *bias); },
                         {id}))
            return std::nullopt;
        l.bias = bias->node();
        auto b = linearShape(graph, l.bias, "bias", trace);
        if (!b)
            return std::nullopt;
        if (!trace.check(*b == std::vector<int64_t>{(*w)[0]}, "bias is [out_features]",
                         [&] {
                             return "bias " + nodeRef(graph, l.bias) + " is " + graph.node(l.bias)->meta.toString()
                                    + ", weight " + nodeRef(graph, l.weight) + " has " + std::to_string((*w)[0])
                                    + " out-features";
                         },
                         {l.bias, l.weight}))
            return std::nullopt;
    }
    validOnly.reset();
    // The mm -> bmm rewrite reads the result through unbind, which autograd
    // rejects when the result is then mutated in place.
    if (!checkNoMutatingUser(graph, id, trace))
        return std::nullopt;
    l.inputShape = std::move(*in);
    l.weightShape = std::move(*w);
    return l;
}

LinearOperands operandsOf(const Graph &graph, NodeId id)
{
    MatchTrace quiet;
    return *linearOperands(graph, id, quiet);
}

} // namespace

PreGradBatchLinearFusion::PreGradBatchLinearFusion()
    : HorizontalPattern("batch_linear", PassStage::PreGrad, 30, {"aten::linear"},
                        "Fuses independent linears with equal input and weight shapes into one batched "
                        "matmul (bmm, or baddbmm with biases) over stacked operands.")
{
    options().set("fuse_nodes_with_same_users", false);
}

std::optional<std::string> PreGradBatchLinearFusion::key(const Graph &graph, NodeId node, MatchTrace &trace) const
{
    auto l = linearOperands(graph, node, trace);
    if (!l)
        return std::nullopt;
    std::string key = "input " + graph.node(l->input)->meta.shapeString();
    // Inductor keys on a getitem input's parent (_getitem_args): linears on
    // slices of different tensors stay apart.
    if (NodeId source = subscriptParent(graph, l->input); source.isValid())
        key += " (getitem of " + nodeRef(graph, source) + ")";
    key += std::string(kKeySep) + "weight " + formatInts(l->weightShape);
    key += std::string(kKeySep) + (l->bias.isValid() ? "bias" : "no bias");
    if (options().getBool("fuse_nodes_with_same_users"))
        key += std::string(kKeySep) + usersText(graph, node);
    return key;
}

LogicalResult PreGradBatchLinearFusion::fuse(PatternRewriter &rewriter, const std::vector<NodeId> &group) const
{
    if (!groupStillMatches(rewriter.graph(), *this, group))
        return failure();
    const Graph &graph = rewriter.graph();
    std::vector<NodeId> inputs, weights, biases;
    for (NodeId id : group) {
        LinearOperands l = operandsOf(graph, id);
        inputs.push_back(l.input);
        weights.push_back(l.weight);
        if (l.bias.isValid())
            biases.push_back(l.bias);
    }
    const LinearOperands first = operandsOf(graph, group.front());
    const Node &x0 = *graph.node(first.input);
    const DType dtype = x0.meta.dtype;
    const std::string device = x0.meta.device;
    const auto n = static_cast<int64_t>(group.size());
    // m may be a symbol (a dynamic batch); k and out are the weight's.
    const Dim m = first.inputShape[0];
    const int64_t k = first.weightShape[1], out = first.weightShape[0];
    const NodeId before = group.front();

    NodeId x = emitStack(rewriter, before, inputs, 0, first.inputShape, dtype, device);
    NodeId w = emitStack(rewriter, before, weights, 0, dimsOf(first.weightShape), dtype, device);
    NodeId wt = emit(rewriter, before,
                     {"aten::transpose", "int", {w, int64_t(1), int64_t(2)}, tensorMeta(dtype, {n, k, out}, device)},
                     before);
    NodeId y;
    if (biases.empty()) {
        y = emit(rewriter, before, {"aten::bmm", "", {x, wt}, shapedMeta(dtype, {n, m, out}, device)}, before);
    } else {
        NodeId b = emitStack(rewriter, before, biases, 0, {Dim(out)}, dtype, device);
        NodeId bu = emit(rewriter, before,
                         {"aten::unsqueeze", "", {b, int64_t(1)}, tensorMeta(dtype, {n, 1, out}, device)}, before);
        y = emit(rewriter, before,
                 {"aten::baddbmm", "", {bu, x, wt, int64_t(1), int64_t(1)}, shapedMeta(dtype, {n, m, out}, device)},
                 before);
    }
    emitListAndReplace(rewriter, before, {"aten::unbind", "int", {y, int64_t(0)}, {}}, group,
                       std::vector<std::vector<Dim>>(group.size(), {m, out}), dtype, device);
    return success();
}

BatchLinearLHSFusion::BatchLinearLHSFusion()
    : HorizontalPattern("batch_linear_lhs", PassStage::PreGrad, 32, {"aten::linear"},
                        "Fuses independent linears that read the same input into one matmul against the "
                        "concatenated weights, split back per linear.")
{}

std::optional<std::string> BatchLinearLHSFusion::key(const Graph &graph, NodeId node, MatchTrace &trace) const
{
    auto l = linearOperands(graph, node, trace);
    if (!l)
        return std::nullopt;
    const std::string input = "input " + nodeRef(graph, l->input) + std::string(kKeySep);
    if (!l->bias.isValid())
        return input + "no bias";
    const int rank = graph.node(l->bias)->meta.rank();
    if (follows(behaviour::kLhsBiasNdimKey)) {
        // 2.14 keys on the bias's ndim, so a [1, n] bias is not grouped with [n] ones.
        if (!trace.requireShape(rank >= 0, "the bias's rank is known (Inductor groups by it)",
                                [&] { return nodeRef(graph, l->bias) + " has no shape"; }, {l->bias}))
            return std::nullopt;
        return input + "bias of rank " + std::to_string(rank);
    }
    // 2.6 keys on the bias's presence and concatenates the biases along dim 0,
    // which fails unless they all are 1-D.
    auto scope = trace.fuseboxOnly("Fusebox only: Inductor 2.6 groups any bias and fails at torch.cat when their "
                                   "ranks differ");
    if (!trace.requireShape(rank >= 0, "the bias's rank is known",
                            [&] { return nodeRef(graph, l->bias) + " has no shape"; }, {l->bias})
        || !trace.check(rank == 1, "the bias is 1-D",
                        [&] { return nodeRef(graph, l->bias) + " has rank " + std::to_string(rank); }, {l->bias}))
        return std::nullopt;
    return input + "bias";
}

LogicalResult BatchLinearLHSFusion::fuse(PatternRewriter &rewriter, const std::vector<NodeId> &group) const
{
    if (!groupStillMatches(rewriter.graph(), *this, group))
        return failure();
    const Graph &graph = rewriter.graph();
    std::vector<NodeId> weights, biases;
    std::vector<Arg> sections;
    std::vector<std::vector<Dim>> itemShapes;
    int64_t total = 0;
    const LinearOperands first = operandsOf(graph, group.front());
    const Dim m = first.inputShape[0]; // a symbol for a dynamic batch
    const int64_t k = first.weightShape[1];
    for (NodeId id : group) {
        LinearOperands l = operandsOf(graph, id);
        weights.push_back(l.weight);
        if (l.bias.isValid())
            biases.push_back(l.bias);
        sections.emplace_back(l.weightShape[0]);
        itemShapes.push_back({m, l.weightShape[0]});
        total += l.weightShape[0];
    }
    const Node &x0 = *graph.node(first.input);
    const DType dtype = x0.meta.dtype;
    const std::string device = x0.meta.device;
    const NodeId before = group.front();

    NodeId w = emit(rewriter, before,
                    {"aten::cat", "", {nodeList(weights), int64_t(0)}, tensorMeta(dtype, {total, k}, device)}, before);
    NodeId wt = emit(rewriter, before,
                     {"aten::transpose", "int", {w, int64_t(0), int64_t(1)}, tensorMeta(dtype, {k, total}, device)},
                     before);
    NodeId y;
    if (biases.empty()) {
        y = emit(rewriter, before, {"aten::mm", "", {first.input, wt}, shapedMeta(dtype, {m, total}, device)}, before);
    } else {
        NodeId b = emit(rewriter, before,
                        {"aten::cat", "", {nodeList(biases), int64_t(0)}, tensorMeta(dtype, {total}, device)}, before);
        y = emit(rewriter, before,
                 {"aten::addmm", "", {b, first.input, wt, int64_t(1), int64_t(1)}, shapedMeta(dtype, {m, total}, device)},
                 before);
    }
    emitListAndReplace(rewriter, before, {"aten::split_with_sizes", "", {y, Arg::list(sections), int64_t(1)}, {}},
                       group, itemShapes, dtype, device);
    return success();
}

} // namespace fusebox::group_batch
