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
    std::optional<Shape> shape = shapeOf(graph(), input);
    if (shape)
        (*shape)[dim] = sections[index];
    return op(std::string(ops::kGetItem), {}, {split, index}, metaLike(metaOf(input), shape));
}

NodeId NodeBuilder::unbind(NodeId input, int64_t dim)
{
    return op("aten::unbind", "int", {input, dim}, {}, "Tensor[]");
}

NodeId NodeBuilder::unbindItem(NodeId unbind, NodeId input, int64_t dim, int64_t index)
{
    std::optional<Shape> shape = shapeOf(graph(), input);
    if (shape)
        shape->erase(shape->begin() + dim);
    return op(std::string(ops::kGetItem), {}, {unbind, index}, metaLike(metaOf(input), shape));
}

NodeId NodeBuilder::slice(NodeId input, int64_t dim, int64_t start, int64_t end)
{
    std::optional<Shape> shape = shapeOf(graph(), input);
    if (shape)
        (*shape)[dim] = end - start;
    return op("aten::slice", "Tensor", {input, dim, start, end, int64_t(1)}, metaLike(metaOf(input), shape));
}

NodeId NodeBuilder::cat(const std::vector<NodeId> &tensors, int64_t dim)
{
    std::vector<Shape> parts;
    for (NodeId t : tensors)
        if (auto s = shapeOf(graph(), t))
            parts.push_back(*s);
    std::optional<Shape> shape;
    if (parts.size() == tensors.size() && !parts.empty())
        shape = catShape(parts, dim);
    return op("aten::cat", {}, {nodeList(tensors), dim}, metaLike(metaOf(tensors.front()), shape));
}

NodeId NodeBuilder::stack(const std::vector<NodeId> &tensors, int64_t dim)
{
    std::optional<Shape> shape = shapeOf(graph(), tensors.front());
    if (shape)
        shape = stackShape(*shape, int64_t(tensors.size()), wrapDim(dim, int64_t(shape->size()) + 1));
    return op("aten::stack", {}, {nodeList(tensors), dim}, metaLike(metaOf(tensors.front()), shape));
}

NodeId NodeBuilder::unsqueeze(NodeId input, int64_t dim)
{
    std::optional<Shape> shape = shapeOf(graph(), input);
    if (shape)
        shape->insert(shape->begin() + wrapDim(dim, int64_t(shape->size()) + 1), 1);
    return op("aten::unsqueeze", {}, {input, dim}, metaLike(metaOf(input), shape));
}

NodeId NodeBuilder::movedim(NodeId input, int64_t source, int64_t destination)
{
    std::optional<Shape> shape = shapeOf(graph(), input);
    if (shape) {
        const auto rank = int64_t(shape->size());
        shape = permuteShape(*shape, movedimPermutation(rank, wrapDim(source, rank), wrapDim(destination, rank)));
    }
    return op("aten::movedim", "int", {input, source, destination}, metaLike(metaOf(input), shape));
}

NodeId NodeBuilder::permute(NodeId input, const std::vector<int64_t> &perm)
{
    std::optional<Shape> shape = shapeOf(graph(), input);
    if (shape)
        shape = permuteShape(*shape, perm);
    return op("aten::permute", {}, {input, intList(perm)}, metaLike(metaOf(input), shape));
}

NodeId NodeBuilder::flatten(NodeId input, int64_t start, int64_t end)
{
    std::optional<Shape> shape = shapeOf(graph(), input);
    if (shape)
        shape = flattenShape(*shape, start, end);
    return op("aten::flatten", "using_ints", {input, start, end}, metaLike(metaOf(input), shape));
}

NodeId NodeBuilder::unflatten(NodeId input, int64_t dim, const std::vector<int64_t> &sizes)
{
    std::optional<Shape> shape = shapeOf(graph(), input);
    if (shape)
        shape = unflattenShape(*shape, dim, sizes);
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
    std::optional<Shape> shape = shapeOf(graph(), input);
    if (shape) {
        const auto rank = int64_t(shape->size());
        std::swap((*shape)[(dim0 + rank) % rank], (*shape)[(dim1 + rank) % rank]);
    }
    return op("aten::transpose", "int", {input, dim0, dim1}, metaLike(metaOf(input), shape));
}

} // namespace fusebox::splitcat
