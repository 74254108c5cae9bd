#pragma once

// Creating the nodes of a split/cat rewrite: ATen schema-ordered positional
// arguments, the overload that disambiguates, the value type, and metadata
// computed from the inputs' shapes (a dynamic batch's symbols kept where an op
// only moves a dim), so that later rules (and libtorch) can use the new nodes
// like imported ones.

#include "core/rewrite/PatternRewriter.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fusebox::splitcat {

using Shape = std::vector<int64_t>;

/// The node's static shape; nullopt when absent, unknown or symbolic.
std::optional<Shape> shapeOf(const Graph &graph, NodeId id);

// --- shape arithmetic (static shapes) -------------------------------------------
/// The shape of stacking `count` tensors of shape `part` at dim.
Shape stackShape(const Shape &part, int64_t count, int64_t dim);
/// The permutation torch.movedim(x, source, destination) applies.
std::vector<int64_t> movedimPermutation(int64_t rank, int64_t source, int64_t destination);

// --- building nodes ---------------------------------------------------------------
/// Creates nodes through the rewriter before an insertion point, with their
/// ATen schema arguments in positional order, the overload, the value type,
/// metadata computed from the inputs' static shapes (dtype and device always
/// carried over), and the scope of a reference node.
class NodeBuilder {
public:
    /// Inserts before `before`; new nodes take `scopeFrom`'s module scope.
    NodeBuilder(PatternRewriter &rewriter, NodeId before, NodeId scopeFrom);

    void setInsertionPoint(NodeId before) { m_before = before; }
    PatternRewriter &rewriter() { return m_rewriter; }
    const Graph &graph() const { return m_rewriter.graph(); }

    /// A generic op node (type "Tensor" unless given).
    NodeId op(std::string op, std::string overload, std::vector<Arg> args, TensorMeta meta, std::string type = "Tensor");

    /// aten::split_with_sizes(input, sections, dim) -> Tensor[].
    NodeId splitWithSizes(NodeId input, const std::vector<int64_t> &sections, int64_t dim);
    /// getitem(list, index) carrying section `index` of split_with_sizes(input, sections, dim).
    NodeId splitItem(NodeId split, NodeId input, const std::vector<int64_t> &sections, int64_t dim, int64_t index);
    /// aten::unbind.int(input, dim) -> Tensor[].
    NodeId unbind(NodeId input, int64_t dim);
    /// getitem(unbind, index) carrying one slice of input along dim.
    NodeId unbindItem(NodeId unbind, NodeId input, int64_t dim, int64_t index);
    /// aten::slice.Tensor(input, dim, start, end, 1).
    NodeId slice(NodeId input, int64_t dim, int64_t start, int64_t end);
    /// aten::cat(tensors, dim).
    NodeId cat(const std::vector<NodeId> &tensors, int64_t dim);
    /// aten::stack(tensors, dim).
    NodeId stack(const std::vector<NodeId> &tensors, int64_t dim);
    /// aten::unsqueeze(input, dim).
    NodeId unsqueeze(NodeId input, int64_t dim);
    /// aten::movedim.int(input, source, destination).
    NodeId movedim(NodeId input, int64_t source, int64_t destination);
    /// aten::permute(input, perm).
    NodeId permute(NodeId input, const std::vector<int64_t> &perm);
    /// aten::flatten.using_ints(input, start, end).
    NodeId flatten(NodeId input, int64_t start, int64_t end);
    /// aten::unflatten.int(input, dim, sizes); one size may be -1.
    NodeId unflatten(NodeId input, int64_t dim, const std::vector<int64_t> &sizes);
    /// aten::reshape(input, shape) / aten::view(input, shape) with a static target shape.
    NodeId reshape(NodeId input, const Shape &shape);
    NodeId view(NodeId input, const Shape &shape);
    /// aten::transpose.int(input, dim0, dim1) with negative dims as written.
    NodeId transpose(NodeId input, int64_t dim0, int64_t dim1);

    /// Metadata with `like`'s dtype and device and the given shape (unknown when nullopt).
    static TensorMeta metaLike(const TensorMeta &like, const std::optional<std::vector<Dim>> &shape);
    /// The same for a static shape.
    static TensorMeta metaLike(const TensorMeta &like, const std::optional<Shape> &shape);

private:
    const TensorMeta &metaOf(NodeId id) const;

    PatternRewriter &m_rewriter;
    NodeId m_before;
    std::string m_scope;
};

} // namespace fusebox::splitcat
