#pragma once

#include "core/rewrite/Pattern.h"

namespace fusebox::group_batch {

/// Inductor's pre-grad unary pointwise fusions (BatchPointwiseOpsPreGradFusion):
/// batch_tanh (aten::tanh), batch_sigmoid (aten::sigmoid) and batch_relu
/// (aten::relu and in-place aten::relu_). Nodes with equal input shapes and
/// in-place flag become stack(0) -> op -> unbind(0). On a torch-level graph
/// only the targets Inductor matches fuse: torch.tanh, torch.sigmoid and
/// torch.nn.functional.relu (not torch.relu, F.tanh or x.relu()).
///
/// Key: "input [8, 16]", then " · in-place" for aten::relu_; option
/// fuse_nodes_with_same_parent (false) adds " · parent <input's op>".
class BatchPointwiseOpsPreGradFusion final : public HorizontalPattern {
public:
    /// Which rule: batch_tanh, batch_sigmoid or batch_relu.
    enum class Op { Tanh, Sigmoid, Relu };
    /// Pre-grad, benefit 20; option fuse_nodes_with_same_parent = false.
    explicit BatchPointwiseOpsPreGradFusion(Op op);
    std::optional<std::string> key(const Graph &graph, NodeId node, MatchTrace &trace) const override;
    /// stack(inputs, 0), the first member's op on it, unbind.int(y, 0) and
    /// one getitem per member.
    LogicalResult fuse(PatternRewriter &rewriter, const std::vector<NodeId> &group) const override;

private:
    std::vector<std::string> m_spellings; ///< checkPreGradSpelling's targets
};

/// Inductor's pre-grad "simple math" fusions (BatchMathOpsPreGradFusion):
/// batch_detach (aten::detach), batch_nan_to_num (aten::nan_to_num),
/// batch_clamp (aten::clamp) and batch_dropout (aten::dropout). Nodes with
/// equal input shapes, equal scalar arguments and the same first user's op
/// become stack(0) -> op(args) -> unbind(0).
///
/// Key: "input [8, 16] · min=0.0, max=6.0 · first user aten::relu" (absent
/// arguments shown with their defaults; detach has none).
class BatchMathOpsPreGradFusion final : public HorizontalPattern {
public:
    /// Which rule: batch_detach, batch_nan_to_num, batch_clamp or batch_dropout.
    enum class Op { Detach, NanToNum, Clamp, Dropout };
    /// Pre-grad, benefit 18.
    explicit BatchMathOpsPreGradFusion(Op op);
    std::optional<std::string> key(const Graph &graph, NodeId node, MatchTrace &trace) const override;
    /// stack(inputs, 0), op(stacked, <the members' scalar arguments>),
    /// unbind.int(y, 0) and one getitem per member.
    LogicalResult fuse(PatternRewriter &rewriter, const std::vector<NodeId> &group) const override;

private:
    Op m_op;
};

} // namespace fusebox::group_batch
