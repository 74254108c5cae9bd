// Every vertical split/cat rule, run by libtorch before and after its rewrites
// on the firing graphs the pattern tests use: the rewritten graph computes
// the same outputs.

#include "patterns/SplitCatTestSupport.h"

#include "core/rewrite/GreedyDriver.h"
#include "core/torch/NumericVerifier.h"

using namespace fusebox;
using namespace fusebox::test::sc;

TEST_CASE("every split/cat rule keeps the outputs of its firing graphs", "[torch][patterns]")
{
    for (const FiringCase &c : firingCases()) {
        INFO(c.rule << " (" << c.label << ")");
        Graph before = c.build();
        Graph after = c.build();
        CHECK(applyRule(after, c.rule) >= 1);
        VerifyOptions options;
        options.iterations = 2;
        auto result = verifyEquivalent(before, after, options);
        if (!result)
            FAIL(result.error().message);
        INFO(result->message);
        CHECK(result->passed);
    }
}

TEST_CASE("the split/cat rules together keep the outputs of every firing graph", "[torch][patterns]")
{
    // The whole catalog through the greedy driver, highest benefit first, to a fixed point.
    for (const FiringCase &c : firingCases()) {
        INFO(c.rule << " (" << c.label << ")");
        Graph before = c.build();
        Graph after = c.build();
        DriverResult run = GreedyDriver(splitCatSet()).run(after);
        INFO(run.message);
        CHECK(run.converged);
        CHECK_FALSE(run.rewrites.empty());
        const auto issues = verify(after);
        INFO(formatIssues(issues));
        CHECK(issues.empty());
        auto result = verifyEquivalent(before, after);
        if (!result)
            FAIL(result.error().message);
        INFO(result->message);
        CHECK(result->passed);
    }
}

TEST_CASE("swapping the unbind and cat dims as PyTorch does is wrong when they are not adjacent", "[torch][patterns]")
{
    // Why unbind_cat_to_view_pass permutes with movedim's permutation: the
    // swap [2, 1, 0] PyTorch's reshape_cat_node builds for unbind dim 2 and
    // cat dim 0 reorders the rows.
    Graph before = unbindCatFarDimsGraph();
    ShapedGraph b;
    NodeId x = b.input("x", {4, 3, 5});
    NodeId swapped = b.op("aten::permute", {x, intList({2, 1, 0})}, {5, 3, 4}, "permute");
    Graph swap = b.finish({b.op("aten::reshape", {swapped, intList({20, 3})}, {20, 3}, "reshape")});
    auto result = verifyEquivalent(before, swap);
    REQUIRE(result);
    CHECK_FALSE(result->passed);

    Graph after = unbindCatFarDimsGraph();
    REQUIRE(applyRule(after, "unbind_cat_to_view_pass") == 1);
    result = verifyEquivalent(before, after);
    REQUIRE(result);
    CHECK(result->passed);
}
