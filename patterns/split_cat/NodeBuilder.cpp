#include "NodeBuilder.h"

#include "core/ir/GraphBuilder.h"
#include "core/rewrite/MatchUtils.h"

#include <algorithm>

namespace fusebox::splitcat {

std::optional<Shape> shapeOf(const Graph &graph, NodeId id)
{
    const Node *n = graph.node(id);
    return n ? staticShape(*n) : std::nullopt;
}

Shape catShape(const std::vector<Shape> &parts, int64_t dim)
{
    Shape out = parts.front();
    for (size_t i = 1; i < parts.size(); ++i)
        out[dim] += parts[i][dim];
    return out;
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

Shape permuteShape(const Shape &shape, const std::vector<int64_t> &perm)
{
    Shape out;
    for (int64_t p : perm)
        out.push_back(shape[p]);
    return out;
}

Shape flattenShape(const Shape &shape, int64_t start, int64_t end)
{
    Shape out(shape.begin(), shape.begin() + start);
    int64_t product = 1;
    for (int64_t d = start; d <= end; ++d)
        product *= shape[d];
    out.push_back(product);
    out.insert(out.end(), shape.begin() + end + 1, shape.end());
    return out;
}

Shape unflattenShape(const Shape &shape, int64_t dim, const std::vector<int64_t> &sizes)
{
    std::vector<int64_t> resolved = sizes;
    int64_t known = 1;
    for (int64_t s : sizes)
        if (s != -1)
            known *= s;
    for (int64_t &s : resolved)
        if (s == -1)
            s = known ? shape[dim] / known : 0;
    Shape out(shape.begin(), shape.begin() + dim);
    out.insert(out.end(), resolved.begin(), resolved.end());
    out.insert(out.end(), shape.begin() + dim + 1, shape.end());
    return out;
}

// --- NodeBuilder ------------------------------------------------------------------

namespace {

const TensorMeta kNoMeta{};

/// A new node's shape as dims: symbols (a dynamic compile's s37) pass
/// through where the op only moves or keeps a dim; arithmetic on a dim
/// (cat's sum, flatten's product, unflatten's -1) needs a static one, and
/// the shape is left unknown otherwise.
using Dims = std::vector<Dim>;

std::optional<Dims> dimsOf(const Graph &graph, NodeId id)
{
    const Node *n = graph.node(id);
    if (!n || !n->meta.shape)
        return std::nullopt;
    return *n->meta.shape;
}

const int64_t *sizeAt(const Dims &dims, int64_t index)
{
    return std::get_if<int64_t>(&dims[size_t(index)]);
}

Dims permuted(const Dims &dims, const std::vector<int64_t> &perm)
{
    Dims out;
    for (int64_t p : perm)
        out.push_back(dims[size_t(p)]);
    return out;
}

TensorMeta metaWithDims(const TensorMeta &like, const std::optional<Dims> &dims)
{
    TensorMeta m;
    m.dtype = like.dtype;
    m.device = like.device;
    m.shape = dims;
    return m;
}

} // namespace

NodeBuilder::NodeBuilder(PatternRewriter &rewriter, NodeId before, NodeId scopeFrom)
    : m_rewriter(rewriter)
    , m_before(before)
{
    if (const Node *n = rewriter.graph().node(scopeFrom))
        m_scope = n->provenance.scope;
}

TensorMeta NodeBuilder::metaLike(const TensorMeta &like, const std::optional<Shape> &shape)
{
    TensorMeta m;
    m.dtype = like.dtype;
    m.device = like.device;
    if (shape)
        m.shape = std::vector<Dim>(shape->begin(), shape->end());
    return m;
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
    return op(std::string(ops::kGetItem), {}, {split, index}, metaWithDims(metaOf(input), shape));
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
    return op(std::string(ops::kGetItem), {}, {unbind, index}, metaWithDims(metaOf(input), shape));
}

NodeId NodeBuilder::slice(NodeId input, int64_t dim, int64_t start, int64_t end)
{
    std::optional<Dims> shape = dimsOf(graph(), input);
    if (shape)
        (*shape)[size_t(dim)] = end - start;
    return op("aten::slice", "Tensor", {input, dim, start, end, int64_t(1)}, metaWithDims(metaOf(input), shape));
}

NodeId NodeBuilder::cat(const std::vector<NodeId> &tensors, int64_t dim)
{
    std::optional<Dims> shape = dimsOf(graph(), tensors.front());
    int64_t total = 0;
    for (NodeId t : tensors) {
        auto part = dimsOf(graph(), t);
        const int64_t *size = part ? sizeAt(*part, dim) : nullptr;
        if (!size) {
            shape.reset();
            break;
        }
        total += *size;
    }
    if (shape)
        (*shape)[size_t(dim)] = total;
    return op("aten::cat", {}, {nodeList(tensors), dim}, metaWithDims(metaOf(tensors.front()), shape));
}

NodeId NodeBuilder::stack(const std::vector<NodeId> &tensors, int64_t dim)
{
    std::optional<Dims> shape = dimsOf(graph(), tensors.front());
    if (shape)
        shape->insert(shape->begin() + wrapDim(dim, int64_t(shape->size()) + 1), int64_t(tensors.size()));
    return op("aten::stack", {}, {nodeList(tensors), dim}, metaWithDims(metaOf(tensors.front()), shape));
}

NodeId NodeBuilder::unsqueeze(NodeId input, int64_t dim)
{
    std::optional<Dims> shape = dimsOf(graph(), input);
    if (shape)
        shape->insert(shape->begin() + wrapDim(dim, int64_t(shape->size()) + 1), int64_t(1));
    return op("aten::unsqueeze", {}, {input, dim}, metaWithDims(metaOf(input), shape));
}

NodeId NodeBuilder::movedim(NodeId input, int64_t source, int64_t destination)
{
    std::optional<Dims> shape = dimsOf(graph(), input);
    if (shape) {
        const auto rank = int64_t(shape->size());
        shape = permuted(*shape, movedimPermutation(rank, wrapDim(source, rank), wrapDim(destination, rank)));
    }
    return op("aten::movedim", "int", {input, source, destination}, metaWithDims(metaOf(input), shape));
}

NodeId NodeBuilder::permute(NodeId input, const std::vector<int64_t> &perm)
{
    std::optional<Dims> shape = dimsOf(graph(), input);
    if (shape)
        shape = permuted(*shape, perm);
    return op("aten::permute", {}, {input, intList(perm)}, metaWithDims(metaOf(input), shape));
}

NodeId NodeBuilder::flatten(NodeId input, int64_t start, int64_t end)
{
    std::optional<Dims> shape = dimsOf(graph(), input);
    int64_t product = 1;
    for (int64_t d = start; shape && d <= end; ++d) {
        if (const int64_t *size = sizeAt(*shape, d))
            product *= *size;
        else
            shape.reset();
    }
    if (shape) {
        shape->erase(shape->begin() + start, shape->begin() + end + 1);
        shape->insert(shape->begin() + start, product);
    }
    return op("aten::flatten", "using_ints", {input, start, end}, metaWithDims(metaOf(input), shape));
}

NodeId NodeBuilder::unflatten(NodeId input, int64_t dim, const std::vector<int64_t> &sizes)
{
    std::optional<Dims> shape = dimsOf(graph(), input);
    if (shape) {
        const int64_t *whole = sizeAt(*shape, dim);
        if (!whole && std::find(sizes.begin(), sizes.end(), int64_t(-1)) != sizes.end()) {
            shape.reset(); // the -1 is resolved from the dim's size
        } else {
            const Shape resolved = unflattenShape({whole ? *whole : 0}, 0, sizes);
            shape->erase(shape->begin() + dim);
            shape->insert(shape->begin() + dim, resolved.begin(), resolved.end());
        }
    }
    return op("aten::unflatten", "int", {input, dim, intList(sizes)}, metaWithDims(metaOf(input), shape));
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
    return op("aten::transpose", "int", {input, dim0, dim1}, metaWithDims(metaOf(input), shape));
}

} // namespace fusebox::splitcat
