#pragma once

#include "core/rewrite/Pattern.h"

namespace fusebox::group_batch {

/// Inductor 2.14's cat_linear (CatLinearFusion, group_batch_fusion.py): a
/// linear whose input is torch.cat of 2 or 3 tensors along the last dim
/// becomes a sum of linears, one per part, on slices of the weight, so the
/// concatenated activation is never made. Opt-in and gated on profit: at
/// most 96 out-features, no part narrower than 8, and at least 512 MiB of
/// cat traffic (leading dims x total width x element size). A per-node
/// rewrite: every match is a group of its own (min_fuse_set_size 1).
///
/// Key: "cat_linear %linear" (the node itself, as Inductor's ("cat_linear", node)).
class CatLinearFusion final : public HorizontalPattern {
public:
    /// cat_linear, pre-grad, benefit 31; min_fuse_set_size 1.
    CatLinearFusion();
    std::optional<std::string> key(const Graph &graph, NodeId node, MatchTrace &trace) const override;
    /// For each part i: aten.slice.Tensor(weight, 1, a_i, b_i) and
    /// aten.clone(memory_format=torch.contiguous_format), hoisted after the
    /// weight (after the last input when the weight is one) and shared by
    /// every match on the same weight slice; F.linear(part_i, slice_i, bias
    /// on the first part only); the partial results summed left to right with
    /// operator.add. The linear is erased; the cat stays, dead, as pre-grad
    /// passes eliminate no dead code.
    LogicalResult fuse(PatternRewriter &rewriter, const std::vector<NodeId> &group) const override;
};

} // namespace fusebox::group_batch
