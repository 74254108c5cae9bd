#pragma once

#include "core/rewrite/Pattern.h"

namespace fusebox::group_batch {

/// Inductor's batch_linear (PreGradBatchLinearFusion): aten::linear nodes with
/// 2-D input and weight of equal shapes (and equal bias presence) become one
/// aten::bmm / aten::baddbmm over stacked operands, read back through unbind.
///
/// Key: "input [8, 16] · weight [32, 16] · bias"; when the input is a getitem,
/// " (getitem of %split)" follows the input shape, since Inductor keys on the
/// getitem's source. Option fuse_nodes_with_same_users (false) adds the users' ops.
class PreGradBatchLinearFusion final : public HorizontalPattern {
public:
    /// batch_linear, pre-grad, benefit 30; option fuse_nodes_with_same_users = false.
    PreGradBatchLinearFusion();
    std::optional<std::string> key(const Graph &graph, NodeId node, MatchTrace &trace) const override;
    /// stack(inputs, 0), stack(weights, 0), transpose.int(w, 1, 2), then
    /// bmm(x, w) or baddbmm(unsqueeze(stack(biases, 0), 1), x, w, 1, 1),
    /// unbind.int(y, 0) and one getitem per member.
    LogicalResult fuse(PatternRewriter &rewriter, const std::vector<NodeId> &group) const override;
};

/// Inductor's batch_linear_lhs (BatchLinearLHSFusion): aten::linear nodes that
/// read the same input become one aten::mm / aten::addmm against the
/// concatenated weights, split back by out-features.
///
/// Key: "input %x · bias" (the input node itself, and bias presence).
class BatchLinearLHSFusion final : public HorizontalPattern {
public:
    /// batch_linear_lhs, pre-grad, benefit 32.
    BatchLinearLHSFusion();
    std::optional<std::string> key(const Graph &graph, NodeId node, MatchTrace &trace) const override;
    /// cat(weights, 0), transpose.int(w, 0, 1), mm(x, w) or
    /// addmm(cat(biases, 0), x, w, 1, 1), split.sizes(y, [n_i...], 1) and one
    /// getitem per member.
    LogicalResult fuse(PatternRewriter &rewriter, const std::vector<NodeId> &group) const override;
};

} // namespace fusebox::group_batch
