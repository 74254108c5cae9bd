#include "PostGradLinear.h"

#include "GroupBatchUtils.h"

#include "core/rewrite/MatchUtils.h"

#include <algorithm>

namespace fusebox::group_batch {
namespace {

struct MmOperands {
    NodeId input, weight, bias;
    std::vector<int64_t> inputShape, weightShape;
};

/// A scalar literal equal to 1 (absent counts as Inductor's DEFAULT_BETA/ALPHA = 1).
bool isOne(const Arg *a)
{
    if (!a)
        return true;
    if (auto i = a->asInt())
        return *i == 1;
    if (const double *d = std::get_if<double>(&a->value))
        return *d == 1.0;
    return false;
}

/// An aten::mm / aten::addmm (beta = alpha = 1) whose input and weight are 2-D
/// with static dims that agree. Static, as in Inductor itself: unlike the other
/// batch fusions, PostGradBatchLinearFusion._is_input_2d (2.6 and 2.14 alike)
/// requires both sizes of each operand to be Python ints, so a dynamic
/// compile's f32[s37, 16] input never fires it there either.
std::optional<MmOperands> mmOperands(const Graph &graph, NodeId id, MatchTrace &trace)
{
    if (!checkOp(graph, id, {"aten::mm", "aten::addmm"}, trace))
        return std::nullopt;
    const Node &n = *graph.node(id);
    const bool addmm = n.op == "aten::addmm";
    MmOperands mm;
    if (addmm) {
        const Arg *beta = argAt(n, 3, "beta");
        const Arg *alpha = argAt(n, 4, "alpha");
        if (!trace.check(isOne(beta) && isOne(alpha), "addmm has beta = alpha = 1",
                         [&] {
                             return "beta " + (beta ? argText(graph, *beta) : std::string("1")) + ", alpha "
                                    + (alpha ? argText(graph, *alpha) : std::string("1"));
                         },
                         {id}))
            return std::nullopt;
        mm.bias = tensorOperand(graph, id, 0, "self", "bias", trace);
        if (!mm.bias.isValid())
            return std::nullopt;
    }
    mm.input = tensorOperand(graph, id, addmm ? 1 : 0, addmm ? "mat1" : "self", "input", trace);
    if (!mm.input.isValid())
        return std::nullopt;
    auto in = staticShapeOf(graph, mm.input, "input", trace);
    if (!in || !checkRank(graph, mm.input, *in, 2, "input", trace))
        return std::nullopt;
    mm.weight = tensorOperand(graph, id, addmm ? 2 : 1, "mat2", "weight", trace);
    if (!mm.weight.isValid())
        return std::nullopt;
    auto w = staticShapeOf(graph, mm.weight, "weight", trace);
    if (!w || !checkRank(graph, mm.weight, *w, 2, "weight", trace))
        return std::nullopt;
    auto scope = trace.fuseboxOnly("Fusebox only: an mm that breaks it cannot run, and Fusebox never builds a "
                                   "batched op from one");
    if (!trace.check((*in)[1] == (*w)[0], "input columns match weight rows",
                     [&] {
                         return "input " + nodeRef(graph, mm.input) + " " + formatInts(*in) + std::string(kKeySep)
                                + "weight " + nodeRef(graph, mm.weight) + " " + formatInts(*w);
                     },
                     {mm.input, mm.weight}))
        return std::nullopt;
    mm.inputShape = std::move(*in);
    mm.weightShape = std::move(*w);
    return mm;
}

} // namespace

PostGradBatchLinearFusion::PostGradBatchLinearFusion()
    : HorizontalPattern("batch_linear_post_grad", PassStage::PostGrad, 16, {"aten::mm", "aten::addmm"},
                        "Fuses independent mm/addmm ops with equal (m, k, n) into one bmm over stacked operands, "
                        "adding each bias back after selecting its slice.")
{
    options().set("fuse_nodes_with_same_users", false);
    options().set("shape_broadcast_batch_linear", false);
}

std::optional<std::string> PostGradBatchLinearFusion::key(const Graph &graph, NodeId node, MatchTrace &trace) const
{
    auto mm = mmOperands(graph, node, trace);
    if (!mm)
        return std::nullopt;
    const std::string sep(kKeySep);
    std::string key = "input " + formatInts(mm->inputShape) + sep + "weight " + formatInts(mm->weightShape) + sep
                      + (mm->bias.isValid() ? "bias" : "no bias");
    if (options().getBool("fuse_nodes_with_same_users"))
        key += sep + usersText(graph, node);
    return key;
}

LogicalResult PostGradBatchLinearFusion::fuse(PatternRewriter &rewriter, const std::vector<NodeId> &group) const
{
    if (!groupStillMatches(rewriter.graph(), *this, group))
        return failure();
    const Graph &graph = rewriter.graph();
    std::vector<MmOperands> members;
    for (NodeId id : group) {
        MatchTrace quiet;
        members.push_back(*mmOperands(graph, id, quiet));
    }
    const MmOperands &first = members.front();
    std::vector<NodeId> inputs, weights;
    for (const MmOperands &mm : members) {
        inputs.push_back(mm.input);
        weights.push_back(mm.weight);
    }
    const Node &x0 = *graph.node(first.input);
    const DType dtype = x0.meta.dtype;
    const std::string device = x0.meta.device;
    const int64_t m = first.inputShape[0], n = first.weightShape[1];
    const NodeId before = group.front();
    const bool broadcast = options().getBool("shape_broadcast_batch_linear");

    NodeId x = emitDecomposedStack(rewriter, before, inputs, dimsOf(first.inputShape), dtype, device);
    NodeId w = emitDecomposedStack(rewriter, before, weights, dimsOf(first.weightShape), dtype, device);
    NodeId y = emit(rewriter, before,
                    {"aten::bmm", "", {x, w}, tensorMeta(dtype, {static_cast<int64_t>(group.size()), m, n}, device)},
                    before);
    std::vector<NodeId> replacements;
    for (size_t i = 0; i < group.size(); ++i) {
        NodeId r
            = emit(rewriter, before,
                   {"aten::select", "int", {y, int64_t(0), static_cast<int64_t>(i)}, tensorMeta(dtype, {m, n}, device)},
                   group[i]);
        markPacketTarget(rewriter, r); // graph.call_function(aten.select, ...)
        if (NodeId bias = members[i].bias; bias.isValid()) {
            if (broadcast)
                bias = emit(rewriter, before,
                            {"aten::broadcast_to", "", {bias, Arg::list({m, n})}, tensorMeta(dtype, {m, n}, device)},
                            group[i]);
            r = emit(rewriter, before,
                     {"aten::add", "Tensor", {bias, r, int64_t(1)}, tensorMeta(dtype, {m, n}, device)}, group[i]);
        }
        replacements.push_back(r);
    }
    replaceMembers(rewriter, group, replacements);
    return success();
}

GroupLinearFusion::GroupLinearFusion()
    : HorizontalPattern("group_linear", PassStage::PostGrad, 10, {"aten::mm", "aten::addmm"},
                        "Fuses independent mm/addmm ops of any 2-D shapes (even dims up to "
                        "max_fuse_tensor_size_group_linear) into one fbgemm grouped matmul.")
{
    options().set("max_fuse_tensor_size_group_linear", int64_t(4096));
    setUnavailable("needs the fbgemm gmm kernel (torch.ops.fbgemm.gmm), which this build does not have");
}

std::optional<std::string> GroupLinearFusion::key(const Graph &graph, NodeId node, MatchTrace &trace) const
{
    auto mm = mmOperands(graph, node, trace);
    if (!mm)
        return std::nullopt;
    const int64_t limit = options().getInt("max_fuse_tensor_size_group_linear", 4096);
    std::vector<int64_t> dims = mm->inputShape;
    dims.insert(dims.end(), mm->weightShape.begin(), mm->weightShape.end());
    const auto shapes = [&] {
        return "input " + nodeRef(graph, mm->input) + " " + formatInts(mm->inputShape) + std::string(kKeySep)
               + "weight " + nodeRef(graph, mm->weight) + " " + formatInts(mm->weightShape);
    };
    if (!trace.check(std::all_of(dims.begin(), dims.end(), [](int64_t d) { return d % 2 == 0; }),
                     "every input and weight dim is even", shapes, {mm->input, mm->weight}))
        return std::nullopt;
    if (!trace.check(std::all_of(dims.begin(), dims.end(), [&](int64_t d) { return d <= limit; }),
                     "every input and weight dim is at most max_fuse_tensor_size_group_linear (" + std::to_string(limit)
                         + ")",
                     shapes, {mm->input, mm->weight}))
        return std::nullopt;
    trace.check(false, "the fbgemm gmm kernel (torch.ops.fbgemm.gmm) is available",
                [] { return std::string("this build has no fbgemm"); }, {node});
    return std::nullopt;
}

LogicalResult GroupLinearFusion::fuse(PatternRewriter &, const std::vector<NodeId> &) const
{
    // Unreachable: key() never yields a key, and the search skips unavailable
    // patterns. Nothing changes, so nothing is claimed.
    return failure();
}

} // namespace fusebox::group_batch
