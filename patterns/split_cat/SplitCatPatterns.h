#pragma once

// Factories of the vertical split/cat rules (one .cpp per rule or family);
// SplitCatCatalog.cpp registers them in PyTorch's order.

#include "core/rewrite/Pattern.h"

#include <memory>

namespace fusebox::splitcat {

/// normalization_pass: split/unbind/cat/stack/squeeze/reshape/clamp in one positional canonical form.
std::unique_ptr<VerticalPattern> makeNormalizationPass();
/// remove_split_with_size_one_pass.
std::unique_ptr<VerticalPattern> makeRemoveSplitWithSizeOnePass();
/// merge_getitem_cat_pass.
std::unique_ptr<VerticalPattern> makeMergeGetItemCatPass();
/// merge_stack_tahn_unbind_pass (PyTorch's spelling).
std::unique_ptr<VerticalPattern> makeMergeStackTanhUnbindPass();
/// merge_splits_pass.
std::unique_ptr<VerticalPattern> makeMergeSplitsPass();
/// mutate_cat_pass.
std::unique_ptr<VerticalPattern> makeMutateCatPass();
/// split_cat_pass (SplitCatSimplifier and merge_split_squeeze).
std::unique_ptr<VerticalPattern> makeSplitCatPass();
/// unbind_stack_pass (UnbindCatRemover).
std::unique_ptr<VerticalPattern> makeUnbindStackPass();
/// split_cat_to_slices_pass.
std::unique_ptr<VerticalPattern> makeSplitCatToSlicesPass();
/// unbind_cat_to_view_pass.
std::unique_ptr<VerticalPattern> makeUnbindCatToViewPass();
/// split_stack_to_cats_pass.
std::unique_ptr<VerticalPattern> makeSplitStackToCatsPass();
/// unbind_stack_to_slices_pass.
std::unique_ptr<VerticalPattern> makeUnbindStackToSlicesPass();
/// move_reshape_out_of_split_stack_pass.
std::unique_ptr<VerticalPattern> makeMoveReshapeOutOfSplitStackPass();
/// sink_cat_after_pointwise.
std::unique_ptr<VerticalPattern> makeSinkCatAfterPointwise();
/// permute_linear_fusion, permute_matmul_fusion, linear_permute_fusion.
std::unique_ptr<VerticalPattern> makePermuteLinearFusion();
std::unique_ptr<VerticalPattern> makePermuteMatmulFusion();
std::unique_ptr<VerticalPattern> makeLinearPermuteFusion();
/// unbind_stack_aten_pass (post-grad).
std::unique_ptr<VerticalPattern> makeUnbindStackAtenPass();
/// normalization_aten_pass (post-grad): cat(tensors, dim=d), split_with_sizes(x, sizes, dim=d).
std::unique_ptr<VerticalPattern> makeNormalizationAtenPass();
/// split_cat_aten_pass (Inductor 2.14, post-grad): getitem runs of a split in a cat -> input or slice.
std::unique_ptr<VerticalPattern> makeSplitCatAtenPass();
/// select_cat_aten_pass (Inductor 2.14, post-grad): cat of every select of x -> x.view.
std::unique_ptr<VerticalPattern> makeSelectCatAtenPass();
/// decompose_mm_pass (post-grad): a memory-bound mm/addmm/bmm, by the
/// device's size thresholds, becomes sum(a.unsqueeze * b.unsqueeze, [-2]).
std::unique_ptr<VerticalPattern> makeDecomposeMmPass();
/// einsum_to_pointwise_pass (Inductor 2.14): an "abc,abcd->abd" einsum a + reads, as a multiply and a sum.
std::unique_ptr<VerticalPattern> makeEinsumToPointwisePass();

} // namespace fusebox::splitcat
