#include "PostGradPointwise.h"

#include "GroupBatchUtils.h"

#include "core/rewrite/MatchUtils.h"

#include <algorithm>

namespace fusebox::group_batch {
namespace {

using Unary = BatchPointwiseOpsPostGradFusion::Op;

using Binary = BatchPointwiseMathOpsPostGradFusion::Op;

const char *unaryName(Unary op)
{
    switch (op) {
    case Unary::Tanh: return "tanh";
    case Unary::Sigmoid: return "sigmoid";
    case Unary::Relu: break;
    }
    return "relu";
}

const char *binaryName(Binary op)
{
    switch (op) {
    case Binary::Add: return "add";
    case Binary::Sub: return "sub";
    case Binary::Mul: return "mul";
    case Binary::Div: break;
    }
    return "div";
}

NodeId selfOf(const Graph &graph, NodeId id)
{
    const Node &n = *graph.node(id);
    const Arg *a = argAt(n, 0, "self");
    if (!a)
        a = n.kwarg("input");
    return a->node();
}

/// The replacement for each member: select.int(batched, 0, i).
std::vector<NodeId> selects(PatternRewriter &rewriter, NodeId before, NodeId batched, const std::vector<NodeId> &group,
                            const std::vector<Dim> &shape, DType dtype, const std::string &device)
{
    std::vector<NodeId> out;
    for (size_t i = 0; i < group.size(); ++i) {
        out.push_back(emit(rewriter, before,
                           {"aten::select",
                            "int",
                            {batched, int64_t(0), static_cast<int64_t>(i)},
                            shapedMeta(dtype, shape, device)},
                           group[i]));
        markPacketTarget(rewriter, out.back()); // graph.call_function(aten.select, ...)
    }
    return out;
}

DType outputDType(const Graph &graph, NodeId member, DType fallback)
{
    const DType d = graph.node(member)->meta.dtype;
    return d != DType::Unknown ? d : fallback;
}

} // namespace

BatchPointwiseOpsPostGradFusion::BatchPointwiseOpsPostGradFusion(Op op)
    : HorizontalPattern(std::string("batch_aten_") + unaryName(op), PassStage::PostGrad, 14,
                        {std::string("aten::") + unaryName(op)},
                        std::string("Fuses independent aten ") + unaryName(op)
                            + " ops with equal input shapes into one over the stacked inputs, read back with select.")
{
    options().set("fuse_nodes_with_same_parent", false);
}

std::optional<std::string> BatchPointwiseOpsPostGradFusion::key(const Graph &graph, NodeId node, MatchTrace &trace) const
{
    if (!checkOp(graph, node, rootOps(), trace) || !checkOutputMeta(graph, node, trace))
        return std::nullopt;
    NodeId input = tensorOperand(graph, node, 0, "self", "input", trace, "input");
    if (!input.isValid())
        return std::nullopt;
    // Inductor keys on str(meta['val'].shape): symbolic dims group too (a
    // dynamic recompile's f32[s37, 16] relus fuse).
    auto shape = knownShapeOf(graph, input, "input", trace);
    if (!shape)
        return std::nullopt;
    std::string key = "input " + graph.node(input)->meta.shapeString();
    if (options().getBool("fuse_nodes_with_same_parent"))
        key += std::string(kKeySep) + "parent " + targetText(graph, input);
    return key;
}

LogicalResult BatchPointwiseOpsPostGradFusion::fuse(PatternRewriter &rewriter, const std::vector<NodeId> &group) const
{
    if (!groupStillMatches(rewriter.graph(), *this, group))
        return failure();
    const Graph &graph = rewriter.graph();
    std::vector<NodeId> inputs;
    for (NodeId id : group)
        inputs.push_back(selfOf(graph, id));
    const Node &x0 = *graph.node(inputs.front());
    const std::vector<Dim> shape = *x0.meta.shape;
    const std::string device = x0.meta.device;
    const DType dtype = outputDType(graph, group.front(), x0.meta.dtype);
    const NodeId before = group.front();

    NodeId x = emitDecomposedStack(rewriter, before, inputs, shape, x0.meta.dtype, device);
    NodeId y = emit(rewriter, before,
                    {rootOps().front(), "", {x}, shapedMeta(dtype, stackedShape(group.size(), shape), device)}, before);
    // 2.6 sets no meta["val"] on the batched op (group_batch_fusion.py:1034),
    // so a later root of the same pass does not batch it again.
    if (rewriter.inductorMetadata())
        rewriter.modify(y, [](Node &n) { n.inductorMeta.missing = true; });
    replaceMembers(rewriter, group, selects(rewriter, before, y, group, shape, dtype, device));
    return success();
}

BatchPointwiseMathOpsPostGradFusion::BatchPointwiseMathOpsPostGradFusion(Op op)
    : HorizontalPattern(std::string("batch_aten_") + binaryName(op), PassStage::PostGrad, 12,
                        {std::string("aten::") + binaryName(op)},
                        std::string("Fuses independent aten ") + binaryName(op)
                            + " ops on equal-shaped tensors into one over the stacked operands, read back with "
                              "select.")
    , m_op(op)
{
    options().set("fuse_nodes_with_same_parent", false);
}

std::optional<std::string> BatchPointwiseMathOpsPostGradFusion::key(const Graph &graph, NodeId node,
                                                                    MatchTrace &trace) const
{
    if (!checkOp(graph, node, rootOps(), trace))
        return std::nullopt;
    const Node &n = *graph.node(node);
    std::vector<std::string> overloads{"Tensor"};
    if (m_op == Op::Div)
        overloads.push_back("Tensor_mode");
    const bool overloadOk = n.overload.empty()
                            || std::find(overloads.begin(), overloads.end(), n.overload) != overloads.end();
    if (!trace.check(
            overloadOk,
            [&] {
                std::string s = "node is ";
                for (size_t i = 0; i < overloads.size(); ++i)
                    s += (i ? " or " : "") + n.op + "." + overloads[i];
                return s;
            }(),
            [&] { return nodeRef(graph, node) + " is " + n.qualifiedOp(); }, {node}))
        return std::nullopt;
    NodeId self = tensorOperand(graph, node, 0, "self", "self", trace, "input");
    if (!self.isValid())
        return std::nullopt;
    NodeId other = tensorOperand(graph, node, 1, "other", "other", trace);
    if (!other.isValid())
        return std::nullopt;
    // Symbolic dims too, as Inductor's str(meta['val'].shape) keys.
    const auto selfShape = knownShapeOf(graph, self, "self", trace);
    if (!selfShape)
        return std::nullopt;
    const auto otherShape = knownShapeOf(graph, other, "other", trace);
    if (!otherShape)
        return std::nullopt;
    const std::string selfText = graph.node(self)->meta.shapeString();
    const std::string otherText = graph.node(other)->meta.shapeString();
    if (!trace.check(*selfShape == *otherShape, "self and other have the same shape",
                     [&] {
                         return "self " + nodeRef(graph, self) + " " + selfText
                                + (*selfShape == *otherShape ? " = other " : " ≠ other ") + nodeRef(graph, other) + " "
                                + otherText;
                     },
                     {self, other}))
        return std::nullopt;

    const std::string sep(kKeySep);
    std::string key = "shape " + selfText + sep + "dtypes " + std::string(shortName(graph.node(self)->meta.dtype))
                      + ", " + std::string(shortName(graph.node(other)->meta.dtype));
    if (m_op == Op::Add || m_op == Op::Sub || m_op == Op::Div) {
        const bool div = m_op == Op::Div;
        const char *name = div ? "rounding_mode" : "alpha";
        const Arg *a = argAt(n, 2, name);
        if (!checkLiteral(graph, node, a, name, div ? "None" : "1", trace))
            return std::nullopt;
        std::string value = a ? argText(graph, *a) : (div ? "None" : "1");
        // Strings print quoted in Python; the key shows the bare mode.
        if (const auto *s = a ? std::get_if<std::string>(&a->value) : nullptr)
            value = *s;
        key += sep + name + " " + value;
    }
    if (options().getBool("fuse_nodes_with_same_parent")) {
        NodeId parent;
        for (NodeId operand : {self, other}) {
            const Node &o = *graph.node(operand);
            if (!parent.isValid() && o.isOp() && o.op == "aten::select" && !o.args().empty() && o.args()[0].isNode())
                parent = o.args()[0].node();
        }
        if (parent.isValid())
            key += sep + "parent " + nodeRef(graph, parent);
    }
    return key;
}

LogicalResult BatchPointwiseMathOpsPostGradFusion::fuse(PatternRewriter &rewriter,
                                                        const std::vector<NodeId> &group) const
{
    if (!groupStillMatches(rewriter.graph(), *this, group))
        return failure();
    const Graph &graph = rewriter.graph();
    std::vector<NodeId> selves, others;
    for (NodeId id : group) {
        selves.push_back(selfOf(graph, id));
        others.push_back(nodeArgAt(*graph.node(id), 1, "other"));
    }
    const Node &first = *graph.node(group.front());
    const Node &x0 = *graph.node(selves.front());
    const Node &y0 = *graph.node(others.front());
    const std::vector<Dim> shape = *x0.meta.shape;
    const std::string device = x0.meta.device;
    const DType dtype = outputDType(graph, group.front(), x0.meta.dtype);
    const NodeId before = group.front();

    NodeId a = emitDecomposedStack(rewriter, before, selves, shape, x0.meta.dtype, device);
    NodeId b = emitDecomposedStack(rewriter, before, others, shape, y0.meta.dtype, device);
    NewOp op{rootOps().front(), "Tensor", {a, b}, shapedMeta(dtype, stackedShape(group.size(), shape), device)};
    // Equal keys mean equal alpha / rounding_mode, so the first member's serve all.
    // Unlike Inductor (which passes alpha to add only), sub keeps its alpha too.
    if (m_op == Op::Add || m_op == Op::Sub) {
        const Arg *alpha = argAt(first, 2, "alpha");
        op.args.push_back(alpha ? *alpha : Arg(int64_t(1)));
    } else if (m_op == Op::Div) {
        const Arg *mode = argAt(first, 2, "rounding_mode");
        if (first.overload == "Tensor_mode" || (mode && !mode->isNone())) {
            op.overload = "Tensor_mode";
            op.args.push_back(mode ? *mode : Arg(NoneArg{}));
        }
    }
    NodeId y = emit(rewriter, before, std::move(op), before);
    replaceMembers(rewriter, group, selects(rewriter, before, y, group, shape, dtype, device));
    return success();
}

} // namespace fusebox::group_batch
