#include "BatchLayerNorm.h"

#include "GroupBatchUtils.h"

#include "core/rewrite/MatchUtils.h"

namespace fusebox::group_batch {
namespace {

constexpr double kDefaultEps = 1e-5;

struct LayerNormOperands {
    NodeId input, weight, bias;
    /// May hold symbols in the dims before the normalized ones (a dynamic batch).
    std::vector<Dim> inputShape;
    std::vector<int64_t> normalizedShape;
    double eps = kDefaultEps;
    bool cudnnEnable = true;
};

/// An optional affine operand (weight or bias) of a layer_norm: absent/None,
/// or a tensor whose static shape equals normalized_shape. Returns false after
/// a failed check.
bool affineOperand(const Graph &graph, NodeId id, size_t index, std::string_view role,
                   const std::vector<int64_t> &normalizedShape, NodeId &out, MatchTrace &trace)
{
    const Arg *a = argAt(*graph.node(id), index, role);
    if (!a || a->isNone())
        return true;
    if (!trace.check(a->isNode(), std::string(role) + " is a tensor or None",
                     [&] {
                         return std::string(role) + (a->isNode() ? " is " : " is the literal ") + argText(graph, *a);
                     },
                     {id}))
        return false;
    auto shape = staticShapeOf(graph, a->node(), role, trace);
    if (!shape)
        return false;
    if (!trace.check(*shape == normalizedShape, std::string(role) + " shape equals normalized_shape",
                     [&] {
                         return std::string(role) + " " + nodeRef(graph, a->node()) + " is "
                                + graph.node(a->node())->meta.toString() + ", normalized_shape is "
                                + formatInts(normalizedShape);
                     },
                     {a->node()}))
        return false;
    out = a->node();
    return true;
}

std::optional<LayerNormOperands> layerNormOperands(const Graph &graph, NodeId id, MatchTrace &trace)
{
    if (!checkOp(graph, id, {"aten::layer_norm"}, trace))
        return std::nullopt;
    const Node &n = *graph.node(id);
    LayerNormOperands l;
    l.input = tensorOperand(graph, id, 0, "input", "input", trace);
    if (!l.input.isValid())
        return std::nullopt;
    // Inductor's match only asks for metadata on input, weight and bias, and
    // keys on str() of their shapes (symbols too), of normalized_shape and of eps.
    auto in = knownShapeOf(graph, l.input, "input", trace);
    if (!in)
        return std::nullopt;
    auto scope = trace.fuseboxOnly("Fusebox only: it builds the stacked layer norm from shapes that "
                                   "normalized_shape, weight and bias fit, static but for the input's batch dims; "
                                   "Inductor keys on str() of each");
    auto ns = intListArgAt(n, 1, "normalized_shape");
    if (!trace.check(ns.has_value(), "normalized_shape is a list of ints",
                     [&] {
                         const Arg *a = argAt(n, 1, "normalized_shape");
                         return a ? "normalized_shape is " + argText(graph, *a)
                                  : std::string("normalized_shape is missing");
                     },
                     {id}))
        return std::nullopt;
    const bool trailing = ns->size() <= in->size()
                          && std::equal(ns->rbegin(), ns->rend(), in->rbegin(),
                                        [](int64_t size, const Dim &dim) { return Dim(size) == dim; });
    if (!trace.check(trailing, "normalized_shape matches the input's trailing dims",
                     [&] {
                         return "input " + nodeRef(graph, l.input) + " is " + graph.node(l.input)->meta.toString()
                                + ", normalized_shape is " + formatInts(*ns);
                     },
                     {id, l.input}))
        return std::nullopt;
    if (!affineOperand(graph, id, 2, "weight", *ns, l.weight, trace)
        || !affineOperand(graph, id, 3, "bias", *ns, l.bias, trace))
        return std::nullopt;
    const Arg *eps = argAt(n, 4, "eps");
    if (eps && !eps->isNone()) {
        const double *d = std::get_if<double>(&eps->value);
        const auto i = eps->asInt();
        if (!trace.check(d || i, "eps is a number", [&] { return "eps is " + argText(graph, *eps); }, {id}))
            return std::nullopt;
        l.eps = d ? *d : static_cast<double>(*i);
    }
    if (const Arg *cudnn = argAt(n, 5, "cudnn_enable"))
        if (const bool *b = std::get_if<bool>(&cudnn->value))
            l.cudnnEnable = *b;
    l.inputShape = std::move(*in);
    l.normalizedShape = std::move(*ns);
    return l;
}

std::string shapeOrAbsent(const Graph &graph, NodeId id, std::string_view role)
{
    if (!id.isValid())
        return "no " + std::string(role);
    return std::string(role) + " " + graph.node(id)->meta.shapeString();
}

} // namespace

BatchLayernormFusion::BatchLayernormFusion()
    : HorizontalPattern("batch_layernorm", PassStage::PreGrad, 28, {"aten::layer_norm"},
                        "Fuses independent layer norms with equal shapes and eps into one layer norm over "
                        "stacked inputs, applying the stacked weights and biases after it.")
{
    options().set("fuse_nodes_with_same_users", false);
}

std::optional<std::string> BatchLayernormFusion::key(const Graph &graph, NodeId node, MatchTrace &trace) const
{
    auto l = layerNormOperands(graph, node, trace);
    if (!l)
        return std::nullopt;
    const std::string sep(kKeySep);
    std::string key = "input " + graph.node(l->input)->meta.shapeString() + sep + "normalized_shape "
                      + formatInts(l->normalizedShape) + sep + shapeOrAbsent(graph, l->weight, "weight") + sep
                      + shapeOrAbsent(graph, l->bias, "bias") + sep + "eps " + Arg(l->eps).toString();
    if (options().getBool("fuse_nodes_with_same_users"))
        key += sep + usersText(graph, node);
    return key;
}

LogicalResult BatchLayernormFusion::fuse(PatternRewriter &rewriter, const std::vector<NodeId> &group) const
{
    if (!groupStillMatches(rewriter.graph(), *this, group))
        return failure();
    const Graph &graph = rewriter.graph();
    std::vector<LayerNormOperands> members;
    for (NodeId id : group) {
        MatchTrace quiet;
        members.push_back(*layerNormOperands(graph, id, quiet));
    }
    const LayerNormOperands &first = members.front();
    std::vector<NodeId> inputs, weights, biases;
    for (const LayerNormOperands &l : members) {
        inputs.push_back(l.input);
        if (l.weight.isValid())
            weights.push_back(l.weight);
        if (l.bias.isValid())
            biases.push_back(l.bias);
    }
    const Node &x0 = *graph.node(first.input);
    const DType dtype = x0.meta.dtype;
    const std::string device = x0.meta.device;
    const NodeId before = group.front();
    // Stacking right before the normalized dims lets [N, *normalized_shape]
    // weights broadcast against the stacked result.
    const int64_t stackDim = -1 - static_cast<int64_t>(first.normalizedShape.size());
    std::vector<Dim> stackedShape = first.inputShape;
    stackedShape.insert(stackedShape.end() - static_cast<std::ptrdiff_t>(first.normalizedShape.size()),
                        static_cast<int64_t>(group.size()));
    std::vector<int64_t> affineShape = first.normalizedShape;
    affineShape.insert(affineShape.begin(), static_cast<int64_t>(group.size()));

    NodeId x = emitStack(rewriter, before, inputs, stackDim, first.inputShape, dtype, device);
    NodeId y = emit(rewriter, before,
                    {"aten::layer_norm",
                     "",
                     {x, Arg::list(std::vector<Arg>(first.normalizedShape.begin(), first.normalizedShape.end())),
                      NoneArg{}, NoneArg{}, first.eps, first.cudnnEnable},
                     shapedMeta(dtype, stackedShape, device)},
                    before);
    if (!weights.empty()) {
        NodeId w = emitStack(rewriter, before, weights, 0, dimsOf(first.normalizedShape), dtype, device);
        y = emit(rewriter, before, {"aten::mul", "Tensor", {w, y}, shapedMeta(dtype, stackedShape, device)}, before);
    }
    if (!biases.empty()) {
        NodeId b = emitStack(rewriter, before, biases, 0, dimsOf(first.normalizedShape), dtype, device);
        y = emit(rewriter, before, {"aten::add", "Tensor", {b, y, int64_t(1)}, shapedMeta(dtype, stackedShape, device)},
                 before);
    }
    emitListAndReplace(rewriter, before, {"aten::unbind", "int", {y, stackDim}, {}}, group,
                       std::vector<std::vector<Dim>>(group.size(), first.inputShape), dtype, device);
    return success();
}

} // namespace fusebox::group_batch
