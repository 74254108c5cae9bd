#include "SplitCatPatterns.h"

#include "patterns/Catalog.h"

namespace fusebox {

void addSplitCatPatterns(PatternSet &set)
{
    using namespace splitcat;
    // PyTorch's pre_grad_pass_names order, then fuse_fx's sink/permute passes,
    // then the post-grad rule; benefits decrease in the same order.
    set.add(makeNormalizationPass());
    set.add(makeRemoveSplitWithSizeOnePass());
    set.add(makeMergeGetItemCatPass());
    set.add(makeMergeStackTanhUnbindPass());
    set.add(makeMergeSplitsPass());
    set.add(makeMutateCatPass());
    set.add(makeSplitCatPass());
    set.add(makeUnbindStackPass());
    set.add(makeSplitCatToSlicesPass());
    set.add(makeUnbindCatToViewPass());
    set.add(makeSplitStackToCatsPass());
    set.add(makeUnbindStackToSlicesPass());
    set.add(makeMoveReshapeOutOfSplitStackPass());
    set.add(makeSinkCatAfterPointwise());
    set.add(makePermuteLinearFusion());
    set.add(makePermuteMatmulFusion());
    set.add(makeLinearPermuteFusion());
    set.add(makeEinsumToPointwisePass());
    set.add(makeUnbindStackAtenPass());
    set.add(makeNormalizationAtenPass());
    set.add(makeSplitCatAtenPass());
    set.add(makeSelectCatAtenPass());
    set.add(makeDecomposeMmPass());
}

} // namespace fusebox
