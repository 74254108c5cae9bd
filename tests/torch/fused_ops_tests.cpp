// Fusebox's own fused operators (core/torch/FuseboxOps.h) run in libtorch and
// compute their decomposition.
#include "core/ir/GraphBuilder.h"
#include <catch.hpp>

#include "core/ir/Graph.h"
#include "core/torch/NumericVerifier.h"
#include "core/torch/TorchSchemas.h"

using namespace fusebox;

namespace {

/// x, w, b -> fused(x, w, b), or activation(linear(x, w, b)).
Graph linearActivation(const std::string &fused, const std::string &activation)
{
    Graph g;
    GraphBuilder build(g);
    NodeId x = build.addInput("x", f32({4, 8}));
    NodeId w = build.addInput("w", f32({16, 8}));
    NodeId b = build.addInput("b", f32({16}));
    NodeId y;
    if (!fused.empty()) {
        y = build.addOp(fused, {x, w, b});
    } else {
        NodeId l = build.addOp("aten::linear", {x, w, b});
        build.node(l).meta = f32({4, 16});
        y = activation == "aten::gelu" ? build.addOp(activation, {l, std::string("none")})
                                       : build.addOp(activation, {l});
    }
    build.node(y).meta = f32({4, 16});
    build.setOutputs({y});
    return g;
}

} // namespace

TEST_CASE("fusebox:: fused ops are registered with libtorch and compute their decomposition", "[torch][custom]")
{
    const OpSchemaRegistry &schemas = torchSchemas();
    REQUIRE(schemas.find("fusebox::linear_relu") != nullptr);
    REQUIRE(schemas.find("fusebox::linear_gelu") != nullptr);
    CHECK(schemas.find("fusebox::linear_relu")->arguments.size() == 3);

    for (auto [fused, activation] :
         {std::pair{"fusebox::linear_relu", "aten::relu"}, std::pair{"fusebox::linear_gelu", "aten::gelu"}}) {
        INFO(fused);
        auto result = verifyEquivalent(linearActivation("", activation), linearActivation(fused, ""));
        INFO((result ? result->message : result.error().message));
        REQUIRE(result);
        CHECK(result->passed);
        CHECK(result->maxAbsDiff < 1e-6);
    }
    // And the check can fail: relu is not gelu.
    auto wrong = verifyEquivalent(linearActivation("", "aten::gelu"), linearActivation("fusebox::linear_relu", ""));
    REQUIRE(wrong);
    CHECK_FALSE(wrong->passed);
}
