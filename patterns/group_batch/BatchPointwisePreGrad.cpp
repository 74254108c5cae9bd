#include "BatchPointwisePreGrad.h"

#include "GroupBatchUtils.h"

#include "core/rewrite/MatchUtils.h"
#include "patterns/InductorProfile.h"

namespace fusebox::group_batch {
namespace {

struct UnaryInfo {
    const char *name;
    std::vector<std::string> ops;
    int benefit;
    const char *description;
    /// The torch-level targets Inductor 2.6 matches (group_batch_fusion.py:1114-1129).
    std::vector<std::string> spellings;
};

UnaryInfo unaryInfo(BatchPointwiseOpsPreGradFusion::Op op)
{
    using Op = BatchPointwiseOpsPreGradFusion::Op;
    switch (op) {
    case Op::Tanh:
        return {"batch_tanh",
                {"aten::tanh"},
                20,
                "Fuses independent tanh ops with equal input shapes into one tanh over the stacked inputs.",
                {"torch.tanh"}};
    case Op::Sigmoid:
        return {"batch_sigmoid",
                {"aten::sigmoid"},
                20,
                "Fuses independent sigmoid ops with equal input shapes into one sigmoid over the stacked inputs.",
                {"torch.sigmoid"}};
    case Op::Relu: break;
    }
    return {"batch_relu",
            {"aten::relu", "aten::relu_"},
            20,
            "Fuses independent relu ops with equal input shapes (and in-place flag) into one relu over the "
            "stacked inputs.",
            {"torch.nn.functional.relu", "torch.nn.functional.relu_"}};
}

/// A scalar argument of a math op: schema position, name, the keyword FX may
/// use instead, and the value taken when absent.
struct ScalarParam {
    size_t index;
    const char *name;
    const char *altName;
    Arg fallback;
    /// A value that acts as the default does (nan_to_num's nan=0.0 is its
    /// nan=None), or "".
    const char *sameAsFallback = "";

    /// The node's argument for this parameter, by position, name or altName; null when absent.
    const Arg *in(const Node &n) const
    {
        const Arg *a = argAt(n, index, name);
        return a || !*altName ? a : n.kwarg(altName);
    }
};

struct MathInfo {
    const char *name;
    const char *op;
    const char *description;
    std::vector<ScalarParam> params;
    /// The torch-level target Inductor matches (CallFunctionVarArgs(self.op)).
    const char *spelling;
};

MathInfo mathInfo(BatchMathOpsPreGradFusion::Op op)
{
    using Op = BatchMathOpsPreGradFusion::Op;
    switch (op) {
    case Op::Detach:
        return {"batch_detach",
                "aten::detach",
                "Fuses independent detach ops with equal input shapes and first user into one detach over the "
                "stacked inputs.",
                {},
                "torch.detach"};
    case Op::NanToNum:
        return {"batch_nan_to_num",
                "aten::nan_to_num",
                "Fuses independent nan_to_num ops with equal input shapes, replacement values and first user into "
                "one nan_to_num over the stacked inputs.",
                {{1, "nan", "", NoneArg{}, "0.0"}, {2, "posinf", "", NoneArg{}}, {3, "neginf", "", NoneArg{}}},
                "torch.nan_to_num"};
    case Op::Clamp:
        return {"batch_clamp",
                "aten::clamp",
                "Fuses independent clamps with equal input shapes, bounds and first user into one clamp over the "
                "stacked inputs.",
                {{1, "min", "", NoneArg{}}, {2, "max", "", NoneArg{}}},
                "torch.clamp"};
    case Op::Dropout: break;
    }
    // F.dropout's defaults: p=0.5, training=True.
    return {"batch_dropout",
            "aten::dropout",
            "Fuses independent dropouts with equal input shapes, p, train flag and first user into one dropout over "
            "the stacked inputs.",
            {{1, "p", "", 0.5}, {2, "train", "training", true}},
            "torch.nn.functional.dropout"};
}

/// The items of Provenance::writtenArgs ("0.0, max=6.0"), split at the
/// top-level commas.
std::vector<std::string> writtenItems(const std::string &written)
{
    std::vector<std::string> items;
    int depth = 0;
    std::string item;
    for (char c : written) {
        depth += (c == '[' || c == '(') - (c == ']' || c == ')');
        if (c == ',' && depth == 0) {
            items.push_back(item);
            item.clear();
        } else if (!(c == ' ' && item.empty())) {
            item += c;
        }
    }
    if (!item.empty())
        items.push_back(item);
    return items;
}

bool isKeywordItem(const std::string &item)
{
    const size_t eq = item.find('=');
    return eq != std::string::npos && item.find_first_of("[(\"'") > eq;
}

/// The input operand and its static shape, after checking op, output metadata and shape.
std::optional<std::pair<NodeId, std::vector<Dim>>> unaryInput(const Graph &graph, NodeId id,
                                                              const std::vector<std::string> &ops, MatchTrace &trace)
{
    if (!checkOp(graph, id, ops, trace) || !checkOutputMeta(graph, id, trace))
        return std::nullopt;
    NodeId input = tensorOperand(graph, id, 0, "input", "input", trace, "self");
    if (!input.isValid())
        return std::nullopt;
    // Inductor keys on str(input shape): symbolic dims group too.
    auto shape = knownShapeOf(graph, input, "input", trace);
    if (!shape)
        return std::nullopt;
    return std::make_pair(input, std::move(*shape));
}

NodeId inputOf(const Graph &graph, NodeId id)
{
    const Node &n = *graph.node(id);
    const Arg *a = argAt(n, 0, "input");
    if (!a)
        a = n.kwarg("self");
    return a->node();
}

/// stack(inputs, 0) -> spec (whose first arg is filled in) -> unbind(0) ->
/// getitems. Returns the batched op.
NodeId stackApplyUnbind(PatternRewriter &rewriter, const std::vector<NodeId> &group, NewOp spec)
{
    const Graph &graph = rewriter.graph();
    std::vector<NodeId> inputs;
    for (NodeId id : group)
        inputs.push_back(inputOf(graph, id));
    const Node &x0 = *graph.node(inputs.front());
    const std::vector<Dim> shape = *x0.meta.shape;
    const DType dtype = x0.meta.dtype;
    const std::string device = x0.meta.device;
    const NodeId before = group.front();
    NodeId x = emitStack(rewriter, before, inputs, 0, shape, dtype, device);
    spec.args.insert(spec.args.begin(), Arg(x));
    // The member's own dtype: the op may change it (none of these do today).
    const DType outType = graph.node(group.front())->meta.dtype != DType::Unknown
                              ? graph.node(group.front())->meta.dtype
                              : dtype;
    spec.meta = shapedMeta(outType, stackedShape(group.size(), shape), device);
    NodeId y = emit(rewriter, before, std::move(spec), before);
    emitListAndReplace(rewriter, before, {"aten::unbind", "int", {y, int64_t(0)}, {}}, group,
                       std::vector<std::vector<Dim>>(group.size(), shape), outType, device);
    return y;
}

} // namespace

BatchPointwiseOpsPreGradFusion::BatchPointwiseOpsPreGradFusion(Op op)
    : HorizontalPattern(unaryInfo(op).name, PassStage::PreGrad, unaryInfo(op).benefit, unaryInfo(op).ops,
                        unaryInfo(op).description)
    , m_spellings(unaryInfo(op).spellings)
{
    options().set("fuse_nodes_with_same_parent", false);
}

std::optional<std::string> BatchPointwiseOpsPreGradFusion::key(const Graph &graph, NodeId node, MatchTrace &trace) const
{
    auto input = unaryInput(graph, node, rootOps(), trace);
    if (!input || !checkPreGradSpelling(graph, node, m_spellings, trace))
        return std::nullopt;
    std::string key = "input " + graph.node(input->first)->meta.shapeString();
    if (isMutatingOp(graph.node(node)->op))
        key += std::string(kKeySep) + "in-place";
    if (options().getBool("fuse_nodes_with_same_parent"))
        key += std::string(kKeySep) + "parent " + targetText(graph, input->first);
    return key;
}

LogicalResult BatchPointwiseOpsPreGradFusion::fuse(PatternRewriter &rewriter, const std::vector<NodeId> &group) const
{
    if (!groupStillMatches(rewriter.graph(), *this, group))
        return failure();
    stackApplyUnbind(rewriter, group, {rewriter.graph().node(group.front())->op, "", {}, {}});
    return success();
}

BatchMathOpsPreGradFusion::BatchMathOpsPreGradFusion(Op op)
    : HorizontalPattern(mathInfo(op).name, PassStage::PreGrad, 18, {mathInfo(op).op}, mathInfo(op).description)
    , m_op(op)
{}

std::optional<std::string> BatchMathOpsPreGradFusion::key(const Graph &graph, NodeId node, MatchTrace &trace) const
{
    const MathInfo info = mathInfo(m_op);
    auto input = unaryInput(graph, node, rootOps(), trace);
    if (!input)
        return std::nullopt;
    std::vector<std::string> spellings = {info.spelling};
    if (follows(behaviour::kDetachMethodForm))
        spellings.push_back("Tensor.detach");
    if (!checkPreGradSpelling(graph, node, spellings, trace))
        return std::nullopt;
    const Node &n = *graph.node(node);
    for (const ScalarParam &p : info.params) {
        const Arg *a = p.in(n);
        if (!checkLiteral(graph, node, a, p.name, argText(graph, p.fallback), trace))
            return std::nullopt;
    }
    // The arguments as written (Provenance::writtenArgs): Inductor keys on
    // str(node.args[1:]) (2.14 only) and str(node.kwargs), so
    // clamp(x, 0.0, 6.0) and clamp(x, min=0.0, max=6.0) are different groups.
    // A graph that does not record them (ATen-level) keys on the fitted ones.
    const bool recorded = !n.provenance.writtenArgs.empty() || !n.provenance.originalSpelling.empty();
    std::vector<std::string> items;
    if (recorded) {
        items = writtenItems(n.provenance.writtenArgs);
    } else {
        // An ATen-level graph: its fitted arguments, by name.
        for (const ScalarParam &p : info.params) {
            const Arg *a = p.in(n);
            items.push_back(std::string(p.name) + "=" + argText(graph, a ? *a : p.fallback));
        }
    }
    std::string written;
    const bool positional = follows(behaviour::kMathPositionalArgs);
    for (size_t i = 0; i < items.size(); ++i) {
        if (!positional && !isKeywordItem(items[i]) && recorded) {
            // 2.6 keys on the keywords alone and calls the fused op without
            // the positional arguments: harmless only where they are the defaults.
            const size_t index = i + 1;
            const ScalarParam *p = nullptr;
            for (const ScalarParam &q : info.params)
                if (q.index == index)
                    p = &q;
            const Arg *a = argAt(n, index, "");
            auto scope = trace.fuseboxOnly("Fusebox only: Inductor 2.6 drops positional arguments when it fuses "
                                           "(a clamp fails, nan_to_num and dropout change their results)");
            const bool dropsNothing = p && a
                                      && (argText(graph, *a) == argText(graph, p->fallback)
                                          || argText(graph, *a) == p->sameAsFallback);
            if (!trace.check(dropsNothing, "positional arguments are the defaults (Inductor 2.6 drops them)",
                             [&] {
                                 return nodeRef(graph, node) + " passes " + items[i] + " as positional argument "
                                        + std::to_string(index) + "; Inductor 2.6 would fuse it without it";
                             },
                             {node}))
                return std::nullopt;
            continue;
        }
        written += (written.empty() ? "" : ", ") + items[i];
    }
    NodeId user = firstUser(graph, node, trace);
    if (!user.isValid())
        return std::nullopt;
    std::string key = "input " + graph.node(input->first)->meta.shapeString();
    if (!written.empty())
        key += std::string(kKeySep) + written;
    return key + std::string(kKeySep) + "first user " + targetText(graph, user);
}

LogicalResult BatchMathOpsPreGradFusion::fuse(PatternRewriter &rewriter, const std::vector<NodeId> &group) const
{
    if (!groupStillMatches(rewriter.graph(), *this, group))
        return failure();
    const MathInfo info = mathInfo(m_op);
    const Node &first = *rewriter.graph().node(group.front());
    // Equal keys mean equal scalar arguments, so the first member's serve
    // all; 2.6 passes only the keywords (the positional ones it drops are the
    // defaults, or the key refused the node).
    const std::vector<std::string> items = writtenItems(first.provenance.writtenArgs);
    auto passedAsKeyword = [&](const ScalarParam &p) {
        return std::any_of(items.begin(), items.end(), [&](const std::string &item) {
            return isKeywordItem(item)
                   && (item.starts_with(std::string(p.name) + "=")
                       || (*p.altName && item.starts_with(std::string(p.altName) + "=")));
        });
    };
    const bool keepsPositional = follows(behaviour::kMathPositionalArgs) || first.provenance.originalSpelling.empty();
    std::vector<Arg> args;
    for (const ScalarParam &p : info.params) {
        const Arg *a = p.in(first);
        if (!keepsPositional && !passedAsKeyword(p))
            a = nullptr;
        args.push_back(a ? *a : p.fallback);
    }
    // Inductor calls self.op (the torch-level function, also for x.detach())
    // with the first member's arguments as written (2.6: its keywords only);
    // the batched op's key then reads them like any other's.
    std::string written;
    if (!first.provenance.writtenArgs.empty())
        for (const std::string &item : writtenItems(first.provenance.writtenArgs))
            if (follows(behaviour::kMathPositionalArgs) || isKeywordItem(item))
                written += (written.empty() ? "" : ", ") + item;
    const bool torchLevel = !first.provenance.originalSpelling.empty();
    const NodeId y = stackApplyUnbind(rewriter, group, {info.op, first.overload, std::move(args), {}});
    if (torchLevel)
        rewriter.modify(y, [&](Node &n) {
            n.provenance.originalSpelling = info.spelling;
            n.provenance.writtenArgs = written;
        });
    return success();
}

} // namespace fusebox::group_batch
