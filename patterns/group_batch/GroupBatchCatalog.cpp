#include "BatchLayerNorm.h"
#include "BatchLinear.h"
#include "CatLinear.h"
#include "BatchPointwisePreGrad.h"
#include "PostGradLinear.h"
#include "PostGradPointwise.h"

#include "patterns/Catalog.h"

#include <memory>

namespace fusebox {

void addGroupBatchPatterns(PatternSet &set)
{
    using namespace group_batch;
    using Unary = BatchPointwiseOpsPreGradFusion::Op;
    using Math = BatchMathOpsPreGradFusion::Op;
    using AtenUnary = BatchPointwiseOpsPostGradFusion::Op;
    using AtenBinary = BatchPointwiseMathOpsPostGradFusion::Op;

    // Pre-grad (Torch level).
    set.add(std::make_unique<PreGradBatchLinearFusion>());
    set.add(std::make_unique<BatchLinearLHSFusion>());
    set.add(std::make_unique<CatLinearFusion>()); // Inductor 2.14's
    set.add(std::make_unique<BatchLayernormFusion>());
    for (Unary op : {Unary::Tanh, Unary::Sigmoid, Unary::Relu})
        set.add(std::make_unique<BatchPointwiseOpsPreGradFusion>(op));
    for (Math op : {Math::Detach, Math::NanToNum, Math::Clamp, Math::Dropout})
        set.add(std::make_unique<BatchMathOpsPreGradFusion>(op));

    // Post-grad (ATen level).
    set.add(std::make_unique<PostGradBatchLinearFusion>());
    for (AtenUnary op : {AtenUnary::Tanh, AtenUnary::Sigmoid, AtenUnary::Relu})
        set.add(std::make_unique<BatchPointwiseOpsPostGradFusion>(op));
    for (AtenBinary op : {AtenBinary::Add, AtenBinary::Sub, AtenBinary::Mul, AtenBinary::Div})
        set.add(std::make_unique<BatchPointwiseMathOpsPostGradFusion>(op));
    set.add(std::make_unique<GroupLinearFusion>());
}

} // namespace fusebox
