#pragma once

#include "core/rewrite/Pattern.h"

namespace fusebox::group_batch {

/// Inductor's batch_linear_post_grad (PostGradBatchLinearFusion): aten::mm,
/// and aten::addmm with beta = alpha = 1, whose operands are 2-D with static
/// dims; equal (m, k, n) and bias presence become one aten::bmm.
///
/// Key: "input [8, 16] · weight [16, 32] · bias" (m, k from the input, n from
/// the weight). Options fuse_nodes_with_same_users (false) adds the users'
/// ops; shape_broadcast_batch_linear (false) broadcasts each bias to [m, n]
/// before adding it.
class PostGradBatchLinearFusion final : public HorizontalPattern {
public:
    /// batch_linear_post_grad, post-grad, benefit 16; options fuse_nodes_with_same_users
    /// and shape_broadcast_batch_linear = false.
    PostGradBatchLinearFusion();
    std::optional<std::string> key(const Graph &graph, NodeId node, MatchTrace &trace) const override;
    /// unsqueeze(.., 0) + cat(.., 0) of the inputs and of the weights ("decompose
    /// stack"), bmm, then per member select.int(y, 0, i), plus
    /// add.Tensor(bias, select, 1) for addmm.
    LogicalResult fuse(PatternRewriter &rewriter, const std::vector<NodeId> &group) const override;
};

/// Inductor's group_linear (GroupLinearFusion): mm/addmm of arbitrary 2-D
/// shapes (even dims, each at most max_fuse_tensor_size_group_linear = 4096)
/// fused into one torch.ops.fbgemm.gmm call. Listed for completeness: it is
/// unavailable here, and key() checks Inductor's conditions and then reports
/// the missing kernel, so an explanation shows how far a node got.
class GroupLinearFusion final : public HorizontalPattern {
public:
    /// group_linear, post-grad, benefit 10; option max_fuse_tensor_size_group_linear =
    /// 4096; unavailable (no fbgemm).
    GroupLinearFusion();
    /// Always nullopt: the last check (the fbgemm kernel) fails.
    std::optional<std::string> key(const Graph &graph, NodeId node, MatchTrace &trace) const override;
    /// Never called (the search yields no group for an unavailable pattern);
    /// does nothing.
    LogicalResult fuse(PatternRewriter &rewriter, const std::vector<NodeId> &group) const override;
};

} // namespace fusebox::group_batch
