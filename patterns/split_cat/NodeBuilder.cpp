#include "NodeBuilder.h"

#include "core/ir/GraphBuilder.h"
#include "core/ir/SymbolicSize.h"
#include "core/rewrite/MatchUtils.h"

#include <algorithm>

namespace fusebox::splitcat {

std::optional<Shape> shapeOf(const Graph &graph, NodeId id)
{
    const Node *n = graph.node(id);
    return n ? staticShape(*n) : std::nullopt;
}

Shape stackShape(const Shape &part, int64_t count, int64_t dim)
{
    Shape out = part;
    out.insert(out.begin() + dim, count);
    return out;
}

namespace {

/// A dim as written (negative counts from the end) as an index into `rank` dims.
int64_t wrapDim(int64_t dim, int64_t rank)
{
    return dim < 0 ? dim + rank : dim;
}

} // namespace

std::vector<int64_t> movedimPermutation(int64_t rank, int64_t source, int64_t destination)
{
    std::vector<int64_t> rest;
    for (int64_t d = 0; d < rank; ++d)
        if (d != source)
            rest.push_back(d);
    rest.insert(rest.begin() + destination, source);
    return rest;
}

// --- NodeBuilder ------------------------------------------------------------------

namespace {

const TensorMeta kNoMeta{};

/// A new node's shape as dims: symbols (a dynamic compile's s37) pass
/// through where the op only moves or keeps a dim, and arithmetic on a dim
/// (cat's sum, flatten's product, unflatten's -1) is done as sympy writes
/// it (core/ir/SymbolicSize.h: [s37, 16] twice is [2*s37, 16]); where that
/// has no polynomial answer the shape is left unknown.
using Dims = std::vector<Dim>;

std::optional<Dims> dimsOf(const Graph &graph, NodeId id)
{
    const Node *n = graph.node(id);
    if (!n || !n->meta.shape)
        return std::nullopt;
    return *n->meta.shape;
}

Dims permuted(const Dims &dims, const std::vector<int64_t> &perm)
{
    Dims out;
    for (int64_t p : perm)
        out.push_back(dims[size_t(p)]);
    return out;
}

} // namespace

NodeBuilder::NodeBuilder(PatternRewriter &rewriter, NodeId before, NodeId scopeFrom)
    : m_rewriter(rewriter)
    , m_before(before)
{
    if (const Node *n = rewriter.graph().node(scopeFrom))
        m_scope = n->provenance.scope;
}

TensorMeta NodeBuilder::metaLike(const TensorMeta &like, const std::optional<std::vector<Dim>> &shape)
{
    TensorMeta m;
    m.dtype = like.dtype;
    m.device = like.device;
    m.shape = shape;
    return m;
}

TensorMeta NodeBuilder::metaLike(const TensorMeta &like, const std::optional<Shape> &shape)
{
    return metaLike(like, shape ? std::optional(std::vector<Dim>(shape->begin(), shape->end())) : std::nullopt);
}

const TensorMeta &NodeBuilder::metaOf(NodeId id) const
{
    const Node *n = graph().node(id);
    return n ? n->meta : kNoMeta;
}

NodeId NodeBuilder::op(std::string op, std::string overload, std::vector<Arg> args, TensorMeta meta, std::string type)
{
    NodeId id = m_rewriter.createOp(std::move(op), std::move(args), {}, m_before, std::move(meta));
    if (!overload.empty() || type != "Tensor" || !m_scope.empty())
        m_rewriter.modify(id, [&](Node &n) {
            n.overload = overload;
            n.type = type;
            n.provenance.scope = m_scope;
        });
    return id;
}

NodeId NodeBuilder::splitWithSizes(NodeId input, const std::vector<int64_t> &sections, int64_t dim)
{
    return op("aten::split_with_sizes", {}, {input, intList(sections), dim}, {}, "Tensor[]");
}

NodeId NodeBuilder::splitItem(NodeId split, NodeId input, const std::vector<int64_t> &sections, int64_t dim,
                              int64_t index)
{
    std::optional<Dims> shape = dimsOf(graph(), input);
    if (shape)
        (*shape)[size_t(dim)] = sections[size_t(index)];
    return op(std::string(ops::kGetItem), {}, {split, index}, metaLike(metaOf(input), shape));
}

NodeId NodeBuilder::unbind(NodeId input, int64_t dim)
{
    return op("aten::unbind", "int", {input, dim}, {}, "Tensor[]");
}

NodeId NodeBuilder::unbindItem(NodeId unbind, NodeId input, int64_t dim, int64_t index)
{
    std::optional<Dims> shape = dimsOf(graph(), input);
    if (shape)
        shape->erase(shape->begin() + dim);
    return op(std::string(ops::kGetItem), {}, {unbind, index}, metaLike(metaOf(input), shape));
}

NodeId NodeBuilder::slice(NodeId input, int64_t dim, int64_t start, int64_t end)
{
    std::optional<Dims> shape = dimsOf(graph(), input);
    if (shape)
        (*shape)[size_t(dim)] = end - start;
    return op("aten::slice", "Tensor", {input, dim, start, end, int64_t(1)}, metaLike(metaOf(input), shape));
}

NodeId NodeBuilder::cat(const std::vector<NodeId> &tensors, int64_t dim)
{
    std::optional<Dims> shape = dimsOf(graph(), tensors.front());
    Dims sizes;
    for (NodeId t : tensors) {
        auto part = dimsOf(graph(), t);
        if (!shape || !part || dim < 0 || size_t(dim) >= part->size()) {
            shape.reset();
            break;
        }
        sizes.push_back((*part)[size_t(dim)]);
    }
    auto total = shape ? sumOfDims(sizes) : std::nullopt;
    if (total)
        (*shape)[size_t(dim)] = *total;
    else
        shape.reset();
    return op("aten::cat", {}, {nodeList(tensors), dim}, metaLike(metaOf(tensors.front()), shape));
}

NodeId NodeBuilder::stack(const std::vector<NodeId> &tensors, int64_t dim)
{
    std::optional<Dims> shape = dimsOf(graph(), tensors.front());
    if (shape)
        shape->insert(shape->begin() + wrapDim(dim, int64_t(shape->size()) + 1), int64_t(tensors.size()));
    return op("aten::stack", {}, {nodeList(tensors), dim}, metaLike(metaOf(tensors.front()), shape));
}

NodeId NodeBuilder::unsqueeze(NodeId input, int64_t dim)
{
    std::optional<Dims> shape = dimsOf(graph(), input);
    if (shape)
        shape->insert(shape->begin() + wrapDim(dim, int64_t(shape->size()) + 1), int64_t(1));
    return op("aten::unsqueeze", {}, {input, dim}, metaLike(metaOf(input), shape));
}

NodeId NodeBuilder::movedim(NodeId input, int64_t source, int64_t destination)
{
    std::optional<Dims> shape = dimsOf(graph(), input);
    if (shape) {
        const auto rank = int64_t(shape->size());
        shape = permuted(*shape, movedimPermutation(rank, wrapDim(source, rank), wrapDim(destination, rank)));
    }
    return op("aten::movedim", "int", {input, source, destination}, metaLike(metaOf(input), shape));
}

NodeId NodeBuilder::permute(NodeId input, const std::vector<int64_t> &perm)
{
    std::optional<Dims> shape = dimsOf(graph(), input);
    if (shape)
        shape = permuted(*shape, perm);
    return op("aten::permute", {}, {input, intList(perm)}, metaLike(metaOf(input), shape));
}

NodeId NodeBuilder::flatten(NodeId input, int64_t start, int64_t end)
{
    std::optional<Dims> shape = dimsOf(graph(), input);
    std::optional<Dim> product;
    if (shape && start >= 0 && start <= end && size_t(end) < shape->size())
        product = productOfDims(Dims(shape->begin() + start, shape->begin() + end + 1));
    if (product) {
        shape->erase(shape->begin() + start, shape->begin() + end + 1);
        shape->insert(shape->begin() + start, *product);
    } else {
        shape.reset();
    }
    return op("aten::flatten", "using_ints", {input, start, end}, metaLike(metaOf(input), shape));
}

NodeId NodeBuilder::unflatten(NodeId input, int64_t dim, const std::vector<int64_t> &sizes)
{
    std::optional<Dims> shape = dimsOf(graph(), input);
    if (shape && (dim < 0 || size_t(dim) >= shape->size()))
        shape.reset();
    // One size may be -1: the dim's size over the others' product.
    auto split = shape ? withInferredSize(Dims(sizes.begin(), sizes.end()), (*shape)[size_t(dim)]) : std::nullopt;
    if (split) {
        shape->erase(shape->begin() + dim);
        shape->insert(shape->begin() + dim, split->begin(), split->end());
    } else {
        shape.reset();
    }
    return op("aten::unflatten", "int", {input, dim, intList(sizes)}, metaLike(metaOf(input), shape));
}

NodeId NodeBuilder::reshape(NodeId input, const Shape &shape)
{
    return op("aten::reshape", {}, {input, intList(shape)}, metaLike(metaOf(input), shape));
}

NodeId NodeBuilder::view(NodeId input, const Shape &shape)
{
    return op("aten::view", {}, {input, intList(shape)}, metaLike(metaOf(input), shape));
}

NodeId NodeBuilder::transpose(NodeId input, int64_t dim0, int64_t dim1)
{
    std::optional<Dims> shape = dimsOf(graph(), input);
    if (shape) {
        const auto rank = int64_t(shape->size());
        std::swap((*shape)[size_t((dim0 + rank) % rank)], (*shape)[size_t((dim1 + rank) % rank)]);
    }
    return op("aten::transpose", "int", {input, dim0, dim1}, metaLike(metaOf(input), shape));
}

} // namespace fusebox::splitcat
