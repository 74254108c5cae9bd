#pragma once

#include "core/rewrite/Pattern.h"

namespace fusebox::group_batch {

/// Inductor's batch_layernorm (BatchLayernormFusion): aten::layer_norm nodes
/// with equal input, weight and bias shapes, normalized_shape and eps become
/// one layer_norm without affine over inputs stacked just before the
/// normalized dims, then mul by stacked weights and add stacked biases.
///
/// Key: "input [8, 16] · normalized_shape [16] · weight [16] · bias [16] · eps 1e-05"
/// ("no weight" / "no bias" when absent). Option fuse_nodes_with_same_users
/// (false) adds the users' ops.
class BatchLayernormFusion final : public HorizontalPattern {
public:
    /// batch_layernorm, pre-grad, benefit 28; option fuse_nodes_with_same_users = false.
    BatchLayernormFusion();
    std::optional<std::string> key(const Graph &graph, NodeId node, MatchTrace &trace) const override;
    /// With d = -1 - len(normalized_shape): stack(inputs, d),
    /// layer_norm(x, normalized_shape, None, None, eps, cudnn_enable),
    /// mul.Tensor(stack(weights, 0), y), add.Tensor(stack(biases, 0), y, 1)
    /// (each when present), unbind.int(y, d) and one getitem per member.
    LogicalResult fuse(PatternRewriter &rewriter, const std::vector<NodeId> &group) const override;
};

} // namespace fusebox::group_batch
