#pragma once

#include "core/rewrite/Pattern.h"

namespace fusebox::group_batch {

/// Inductor's post-grad unary pointwise fusions (BatchPointwiseOpsPostGradFusion):
/// batch_aten_tanh, batch_aten_sigmoid, batch_aten_relu on aten::tanh /
/// aten::sigmoid / aten::relu. Nodes with equal input shapes become one op
/// over the unsqueeze+cat stacked inputs, read back with select(0, i).
///
/// Key: "input [8, 16]"; option fuse_nodes_with_same_parent (false) adds
/// " · parent <input's op>".
class BatchPointwiseOpsPostGradFusion final : public HorizontalPattern {
public:
    /// Which rule: batch_aten_tanh, batch_aten_sigmoid or batch_aten_relu.
    enum class Op { Tanh, Sigmoid, Relu };
    /// Post-grad, benefit 14; option fuse_nodes_with_same_parent = false.
    explicit BatchPointwiseOpsPostGradFusion(Op op);
    std::optional<std::string> key(const Graph &graph, NodeId node, MatchTrace &trace) const override;
    /// unsqueeze(x_i, 0) each, cat(.., 0), the op, one select.int(y, 0, i) per member.
    LogicalResult fuse(PatternRewriter &rewriter, const std::vector<NodeId> &group) const override;
};

/// Inductor's post-grad binary pointwise fusions (BatchPointwiseMathOpsPostGradFusion):
/// batch_aten_add, batch_aten_sub, batch_aten_mul, batch_aten_div on the
/// .Tensor overloads (div also .Tensor_mode). Both operands must be tensors
/// of identical static shape.
///
/// Key: "shape [8, 16] · dtypes f32, f32", then " · alpha 1" (add, sub) or
/// " · rounding_mode None" (div); option fuse_nodes_with_same_parent (false)
/// adds " · parent %x" when an operand is a select of %x.
class BatchPointwiseMathOpsPostGradFusion final : public HorizontalPattern {
public:
    /// Which rule: batch_aten_add, batch_aten_sub, batch_aten_mul or batch_aten_div.
    enum class Op { Add, Sub, Mul, Div };
    /// Post-grad, benefit 12; option fuse_nodes_with_same_parent = false.
    explicit BatchPointwiseMathOpsPostGradFusion(Op op);
    std::optional<std::string> key(const Graph &graph, NodeId node, MatchTrace &trace) const override;
    /// unsqueeze+cat of the selves and of the others, the op (with alpha or
    /// rounding_mode), one select.int(y, 0, i) per member.
    LogicalResult fuse(PatternRewriter &rewriter, const std::vector<NodeId> &group) const override;

private:
    Op m_op;
};

} // namespace fusebox::group_batch
