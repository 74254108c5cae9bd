#include "CatLinear.h"

#include "GroupBatchUtils.h"

#include "core/ir/GraphBuilder.h"
#include "core/rewrite/MatchUtils.h"

namespace fusebox::group_batch {
namespace {

// Inductor 2.14's profitability gates (group_batch_fusion.py:763-775).
constexpr int64_t kMaxOutputWidth = 96;
constexpr int64_t kTrafficFloorBytes = int64_t(512) * 1024 * 1024;
constexpr int64_t kMinPieceWidth = 8;
constexpr size_t kMaxParts = 3;

/// What match_cat_linear returns: the cat's parts, the weight, the bias
/// (invalid when None) and the parts' offsets along the last dim.
struct CatLinearMatch {
    NodeId cat, weight, bias;
    std::vector<NodeId> parts;
    std::vector<int64_t> offsets;
    std::vector<int64_t> catShape;
    int64_t outFeatures = 0;
};

/// Inductor's match_cat_linear, check by check, on linear `id`.
std::optional<CatLinearMatch> matchCatLinear(const Graph &graph, NodeId id, MatchTrace &trace)
{
    if (!checkOp(graph, id, {"aten::linear"}, trace)
        || !checkPreGradSpelling(graph, id, {"torch.nn.functional.linear", "torch._C._nn.linear"}, trace)
        || !checkOutputMeta(graph, id, trace))
        return std::nullopt;
    const Node &linear = *graph.node(id);
    CatLinearMatch m;
    m.cat = nodeArgAt(linear, 0, "input");
    const Node *cat = graph.node(m.cat);
    if (!trace.check(cat && cat->isOp() && cat->op == "aten::cat", "the input is a cat",
                     [&] {
                         return "input " + nodeRef(graph, m.cat) + " is "
                                + (cat ? targetText(graph, m.cat) : "missing");
                     },
                     {id}))
        return std::nullopt;
    if (!checkPreGradSpelling(graph, m.cat, {"torch.cat"}, trace))
        return std::nullopt;
    const size_t catUsers = graph.users(m.cat).size();
    if (!trace.check(catUsers == 1, "the cat has this linear as its only user",
                     [&] { return nodeRef(graph, m.cat) + " has " + std::to_string(catUsers) + " users"; }, {m.cat}))
        return std::nullopt;
    auto parts = nodeListArgAt(*cat, 0, "tensors");
    if (!trace.check(parts && parts->size() >= 2 && parts->size() <= kMaxParts, "the cat joins 2 or 3 tensors",
                     [&] {
                         return nodeRef(graph, m.cat) + " joins "
                                + (parts ? std::to_string(parts->size()) + " tensors"
                                         : std::string("a non-tensor list"));
                     },
                     {m.cat}))
        return std::nullopt;
    m.parts = *parts;
    auto catShape = staticShapeOf(graph, m.cat, "cat", trace);
    if (!catShape)
        return std::nullopt;
    const int rank = static_cast<int>(catShape->size());
    if (!trace.check(rank >= 2, "the cat is at least 2-D",
                     [&] { return nodeRef(graph, m.cat) + " is " + graph.node(m.cat)->meta.toString(); }, {m.cat}))
        return std::nullopt;
    const Arg *dimArg = argAt(*cat, 1, "dim");
    std::optional<int64_t> dim = dimArg ? dimArg->asInt() : std::optional<int64_t>(0);
    if (!trace.check(dim && normalizeDim(*dim, rank) == rank - 1, "the cat joins along the last dim",
                     [&] {
                         return nodeRef(graph, m.cat) + " joins along dim " + (dimArg ? argText(graph, *dimArg) : "0")
                                + " of " + std::to_string(rank);
                     },
                     {m.cat}))
        return std::nullopt;
    const int64_t kTotal = catShape->back();
    m.offsets = {0};
    for (NodeId p : m.parts) {
        auto shape = staticShapeOf(graph, p, "cat part", trace);
        if (!shape)
            return std::nullopt;
        if (!trace.check(static_cast<int>(shape->size()) == rank && shape->back() >= kMinPieceWidth,
                         "every part is as deep as the cat and at least 8 wide",
                         [&] { return "part " + nodeRef(graph, p) + " is " + graph.node(p)->meta.toString(); }, {p}))
            return std::nullopt;
        m.offsets.push_back(m.offsets.back() + shape->back());
    }
    if (!trace.check(m.offsets.back() == kTotal, "the parts' widths add up to the cat's",
                     [&] { return formatInts(m.offsets) + " against " + std::to_string(kTotal); }, {m.cat}))
        return std::nullopt;
    m.weight = tensorOperand(graph, id, 1, "weight", "weight", trace);
    if (!m.weight.isValid())
        return std::nullopt;
    auto w = staticShapeOf(graph, m.weight, "weight", trace);
    if (!w)
        return std::nullopt;
    if (!trace.check(w->size() == 2 && w->back() == kTotal, "the weight is 2-D and takes the cat's width",
                     [&] { return "weight " + nodeRef(graph, m.weight) + " is " + formatInts(*w); }, {m.weight}))
        return std::nullopt;
    m.outFeatures = (*w)[0];
    if (!trace.check(m.outFeatures <= kMaxOutputWidth, "at most 96 out-features (CAT_LINEAR_MAX_OUTPUT_WIDTH)",
                     [&] { return "weight " + nodeRef(graph, m.weight) + " has " + std::to_string(m.outFeatures); },
                     {m.weight}))
        return std::nullopt;
    int64_t lead = 1;
    for (int i = 0; i + 1 < rank; ++i)
        lead *= (*catShape)[i];
    // Inductor reads the element size off the cat's value (2 when it has none).
    const DType dtype = graph.node(m.cat)->meta.dtype;
    const int64_t itemBytes = elementSize(dtype) > 0 ? elementSize(dtype) : 2;
    const int64_t traffic = lead * kTotal * itemBytes;
    if (!trace.check(traffic >= kTrafficFloorBytes,
                     "the cat moves at least 512 MiB (CAT_LINEAR_CAT_TRAFFIC_FLOOR_BYTES)",
                     [&] { return nodeRef(graph, m.cat) + " moves " + std::to_string(traffic) + " bytes"; }, {m.cat}))
        return std::nullopt;
    if (const Arg *bias = argAt(linear, 2, "bias"); bias && bias->isNode())
        m.bias = bias->node();
    m.catShape = std::move(*catShape);
    return m;
}

/// Where Inductor hoists a weight's slices: after the weight's own node, or
/// after the last input when the weight is one (no call goes between
/// placeholders). Returned as the node to insert before.
NodeId hoistBefore(const Graph &graph, NodeId weight)
{
    const Node &w = *graph.node(weight);
    if (w.kind() != NodeKind::Input)
        return graph.next(weight);
    NodeId at = graph.first();
    while (at.isValid() && graph.node(at)->kind() == NodeKind::Input)
        at = graph.next(at);
    return at;
}

/// The contiguous slice [begin, end) of `weight` a cat_linear made before
/// (Inductor's per-graph _piece_cache), or an invalid id.
NodeId cachedPiece(const Graph &graph, NodeId weight, int64_t begin, int64_t end)
{
    for (NodeId s : graph.users(weight)) {
        const Node &slice = *graph.node(s);
        if (!slice.isOp() || slice.op != "aten::slice" || !slice.provenance.createdBy.starts_with("cat_linear#"))
            continue;
        if (intArgAt(slice, 2, "start") != begin || intArgAt(slice, 3, "end") != end)
            continue;
        for (NodeId c : graph.users(s))
            if (graph.node(c)->op == "aten::clone")
                return c;
    }
    return {};
}

} // namespace

CatLinearFusion::CatLinearFusion()
    : HorizontalPattern("cat_linear", PassStage::PreGrad, 31, {"aten::linear"},
                        "Splits a narrow linear of a wide last-dim torch.cat of 2 or 3 tensors into one linear per "
                        "part on slices of the weight, summed, so the concatenation is never made (Inductor 2.14, "
                        "opt-in; at least 512 MiB of cat traffic).")
{
    // CatLinearFusion.__init__ sets it whatever the config says.
    options().set("min_fuse_set_size", int64_t(1));
}

std::optional<std::string> CatLinearFusion::key(const Graph &graph, NodeId node, MatchTrace &trace) const
{
    if (!matchCatLinear(graph, node, trace))
        return std::nullopt;
    return "cat_linear " + nodeRef(graph, node);
}

LogicalResult CatLinearFusion::fuse(PatternRewriter &rewriter, const std::vector<NodeId> &group) const
{
    bool changed = false;
    for (NodeId id : group) {
        MatchTrace quiet;
        auto m = matchCatLinear(rewriter.graph(), id, quiet);
        if (!m)
            continue;
        const Graph &graph = rewriter.graph();
        const Node &w = *graph.node(m->weight);
        const DType wType = w.meta.dtype;
        const std::string wDevice = w.meta.device;
        const Node &y = *graph.node(id);
        const DType yType = y.meta.dtype;
        const std::string yDevice = y.meta.device;
        std::vector<int64_t> outShape = m->catShape;
        outShape.back() = m->outFeatures;
        std::vector<NodeId> partials;
        for (size_t i = 0; i < m->parts.size(); ++i) {
            const int64_t begin = m->offsets[i], end = m->offsets[i + 1];
            NodeId piece = cachedPiece(rewriter.graph(), m->weight, begin, end);
            if (!piece.isValid()) {
                const NodeId at = hoistBefore(rewriter.graph(), m->weight);
                const std::vector<int64_t> pieceShape{m->outFeatures, end - begin};
                const NodeId slice = emit(rewriter, at,
                                          {"aten::slice",
                                           "Tensor",
                                           {m->weight, int64_t(1), begin, end},
                                           tensorMeta(wType, pieceShape, wDevice)},
                                          m->weight);
                piece = emit(rewriter, at, {"aten::clone", "", {slice}, tensorMeta(wType, pieceShape, wDevice)},
                             m->weight);
                rewriter.setArgs(piece, {Arg(slice)},
                                 {NamedArg{"memory_format", Arg(std::string("torch.contiguous_format"))}});
            }
            const Arg bias = i == 0 && m->bias.isValid() ? Arg(m->bias) : Arg();
            const NodeId part
                = emit(rewriter, id,
                       {"aten::linear", "", {m->parts[i], piece, bias}, tensorMeta(yType, outShape, yDevice)}, id);
            rewriter.modify(part, [](Node &n) { n.provenance.originalSpelling = "torch.nn.functional.linear"; });
            partials.push_back(part);
        }
        NodeId acc = partials.front();
        for (size_t i = 1; i < partials.size(); ++i) {
            acc = emit(rewriter, id, {"aten::add", "Tensor", {acc, partials[i]}, tensorMeta(yType, outShape, yDevice)},
                       id);
            rewriter.modify(acc, [](Node &n) { n.provenance.originalSpelling = "operator.add"; });
        }
        // The linear alone: the cat it read stays, dead, as in Inductor
        // (pre-grad passes run no dead code elimination).
        rewriter.replaceAllUsesWith(id, acc);
        rewriter.erase(id);
        changed = true;
    }
    return changed ? success() : failure();
}

} // namespace fusebox::group_batch
