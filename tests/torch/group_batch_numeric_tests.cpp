// Every group/batch rule, run by libtorch before and after its rewrite on the
// graphs the pattern tests use: the fused graph computes the same outputs.

#include "core/ir/GraphBuilder.h"
#include "patterns/GroupBatchGraphs.h"

#include "core/ir/Verifier.h"
#include "core/rewrite/HorizontalSearch.h"
#include "core/rewrite/PatternRewriter.h"
#include "core/torch/NumericVerifier.h"
#include "patterns/group_batch/BatchLayerNorm.h"
#include "patterns/group_batch/BatchLinear.h"
#include "patterns/group_batch/BatchPointwisePreGrad.h"
#include "patterns/group_batch/PostGradLinear.h"
#include "patterns/group_batch/PostGradPointwise.h"

#include <catch.hpp>

#include <functional>

using namespace fusebox;
using namespace fusebox::test::gb;
using namespace fusebox::group_batch;

namespace {

/// Fuses every group the search finds, then compares before and after.
void requireSameOutputs(GroupGraph r, const HorizontalPattern &pattern, size_t groups = 1)
{
    Graph before = r.graph.clone();
    HorizontalSearchResult search = searchHorizontal(r.graph, pattern);
    REQUIRE(search.groups.size() == groups);
    PatternRewriter rewriter(r.graph);
    for (const FusionGroup &group : search.groups)
        pattern.fuse(rewriter, group.members);
    REQUIRE(rewriter.restoreTopologicalOrder());
    const auto issues = verify(r.graph);
    INFO(formatIssues(issues));
    REQUIRE(issues.empty());
    for (const FusionGroup &group : search.groups)
        for (NodeId m : group.members)
            REQUIRE_FALSE(r.graph.contains(m));

    VerifyOptions options;
    options.iterations = 2;
    auto result = verifyEquivalent(before, r.graph, options);
    if (!result)
        FAIL(result.error().message);
    INFO(result->message);
    REQUIRE(result->passed);
}

} // namespace

TEST_CASE("batch_linear and batch_linear_lhs keep the linears' values", "[torch][patterns]")
{
    PreGradBatchLinearFusion batch;
    requireSameOutputs(linearGraph(5, true), batch);
    requireSameOutputs(linearGraph(7, false), batch);
    requireSameOutputs(linearGraph(5, true, /*interleaved=*/true), batch);
    BatchLinearLHSFusion lhs;
    requireSameOutputs(linearLhsGraph(5, true), lhs);
    requireSameOutputs(linearLhsGraph(6, false), lhs);
}

TEST_CASE("batch_layernorm keeps the layer norms' values", "[torch][patterns]")
{
    BatchLayernormFusion pattern;
    requireSameOutputs(layerNormGraph(5, true, true), pattern);
    requireSameOutputs(layerNormGraph(5, false, false), pattern);
    requireSameOutputs(layerNormGraph(5, true, false), pattern);
    requireSameOutputs(layerNormGraph(5, false, true), pattern);
}

TEST_CASE("pre-grad pointwise and math fusions keep their values", "[torch][patterns]")
{
    using Unary = BatchPointwiseOpsPreGradFusion::Op;
    using Math = BatchMathOpsPreGradFusion::Op;
    requireSameOutputs(unaryGraph("aten::tanh", 5), BatchPointwiseOpsPreGradFusion(Unary::Tanh));
    requireSameOutputs(unaryGraph("aten::sigmoid", 6), BatchPointwiseOpsPreGradFusion(Unary::Sigmoid));
    requireSameOutputs(unaryGraph("aten::relu", 5), BatchPointwiseOpsPreGradFusion(Unary::Relu));
    requireSameOutputs(unaryGraph("aten::relu_", 5), BatchPointwiseOpsPreGradFusion(Unary::Relu));
    requireSameOutputs(mathGraph("aten::detach", {}), BatchMathOpsPreGradFusion(Math::Detach));
    requireSameOutputs(mathGraph("aten::nan_to_num", {0.0, 1.0, -1.0}), BatchMathOpsPreGradFusion(Math::NanToNum));
    requireSameOutputs(mathGraph("aten::clamp", {-0.5, 0.5}), BatchMathOpsPreGradFusion(Math::Clamp));
    requireSameOutputs(mathGraph("aten::clamp", {NoneArg{}, 0.25}), BatchMathOpsPreGradFusion(Math::Clamp));
    requireSameOutputs(mathGraph("aten::dropout", {0.3, false}), BatchMathOpsPreGradFusion(Math::Dropout));
}

TEST_CASE("batch_linear_post_grad keeps the matmuls' values", "[torch][patterns]")
{
    PostGradBatchLinearFusion pattern;
    requireSameOutputs(mmGraph(5, true), pattern);
    requireSameOutputs(mmGraph(5, false), pattern);
    pattern.options().set("shape_broadcast_batch_linear", true);
    requireSameOutputs(mmGraph(6, true), pattern);
}

TEST_CASE("post-grad pointwise fusions keep their values", "[torch][patterns]")
{
    using Unary = BatchPointwiseOpsPostGradFusion::Op;
    using Binary = BatchPointwiseMathOpsPostGradFusion::Op;
    requireSameOutputs(unaryGraph("aten::tanh", 5), BatchPointwiseOpsPostGradFusion(Unary::Tanh));
    requireSameOutputs(unaryGraph("aten::sigmoid", 5), BatchPointwiseOpsPostGradFusion(Unary::Sigmoid));
    requireSameOutputs(unaryGraph("aten::relu", 5), BatchPointwiseOpsPostGradFusion(Unary::Relu));
    requireSameOutputs(binaryGraph("aten::add", "Tensor", {int64_t(2)}),
                       BatchPointwiseMathOpsPostGradFusion(Binary::Add));
    // Inductor drops sub's alpha when it fuses; Fusebox keeps it.
    requireSameOutputs(binaryGraph("aten::sub", "Tensor", {int64_t(2)}),
                       BatchPointwiseMathOpsPostGradFusion(Binary::Sub));
    requireSameOutputs(binaryGraph("aten::mul", "Tensor", {}), BatchPointwiseMathOpsPostGradFusion(Binary::Mul));
    requireSameOutputs(binaryGraph("aten::div", "Tensor", {}), BatchPointwiseMathOpsPostGradFusion(Binary::Div));
    requireSameOutputs(binaryGraph("aten::div", "Tensor_mode", {"floor"}),
                       BatchPointwiseMathOpsPostGradFusion(Binary::Div));
}

TEST_CASE("twelve candidates fused as two groups of five keep their values", "[torch][patterns]")
{
    BatchPointwiseOpsPreGradFusion pattern(BatchPointwiseOpsPreGradFusion::Op::Tanh);
    pattern.options().set("max_fuse_set_size", int64_t(5));
    requireSameOutputs(unaryGraph("aten::tanh", 12), pattern, 2);
}

TEST_CASE("the numeric check catches a fused graph that reads the wrong slice", "[torch][patterns]")
{
    GroupGraph r = unaryGraph("aten::tanh", 5);
    Graph before = r.graph.clone();
    BatchPointwiseOpsPreGradFusion pattern(BatchPointwiseOpsPreGradFusion::Op::Tanh);
    PatternRewriter rewriter(r.graph);
    pattern.fuse(rewriter, searchHorizontal(r.graph, pattern).groups.at(0).members);
    REQUIRE(rewriter.restoreTopologicalOrder());
    // Swap the first two results: a rewrite that mixed up its getitems.
    std::vector<NodeId> outs = r.graph.outputValues();
    std::swap(outs[0], outs[1]);
    GraphBuilder::reopen(r.graph).setOutputs(std::vector<Arg>(outs.begin(), outs.end()));
    auto result = verifyEquivalent(before, r.graph);
    REQUIRE(result);
    REQUIRE_FALSE(result->passed);
}
