// Calls in one form for comparing graphs (compare-inductor): the same call
// written by TorchScript, by Fusebox's rewrites and by FX compares equal.
#include "core/ir/GraphBuilder.h"
#include "FxTestSchemas.h"
#include "core/ir/GraphSignature.h"
#include "core/rewrite/CanonicalCalls.h"

#include <catch.hpp>

using namespace fusebox;

namespace {

/// x -> baddbmm written with `args` and `kwargs` -> unbind -> getitem 0.
Graph baddbmmGraph(std::vector<Arg> extra, std::vector<NamedArg> kwargs, TensorMeta unbindMeta)
{
    Graph g;
    GraphBuilder build(g);
    NodeId a = build.addInput("a", f32({2, 3, 4}));
    NodeId b = build.addInput("b", f32({2, 3, 5}));
    NodeId c = build.addInput("c", f32({2, 5, 4}));
    std::vector<Arg> args = {a, b, c};
    args.insert(args.end(), extra.begin(), extra.end());
    NodeId mm = build.addOp("aten::baddbmm", std::move(args), std::move(kwargs));
    build.node(mm).meta = f32({2, 3, 4});
    NodeId unbind = build.addOp("aten::unbind", {mm, int64_t(0)});
    build.node(unbind).overload = "int";
    build.node(unbind).meta = unbindMeta;
    NodeId item = build.addOp("getitem", {unbind, int64_t(0)});
    build.setOutputs({item});
    return g;
}

} // namespace

TEST_CASE("canonical calls: defaults and keywords in one positional form, list outputs without metadata",
          "[rewrite][compare]")
{
    OpSchemaRegistry schemas;
    schemas.add(fxtest::schema("aten::baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, "
                               "Scalar alpha=1)"));
    schemas.add(fxtest::schema("aten::unbind.int(Tensor self, int dim=0)"));

    Graph fx = baddbmmGraph({}, {}, TensorMeta{}); // FX: defaults left out
    Graph keywords = baddbmmGraph({}, {{"beta", int64_t(1)}, {"alpha", int64_t(1)}}, TensorMeta{});
    Graph positional = baddbmmGraph({int64_t(1), int64_t(1)}, {}, f32({3, 4})); // Fusebox's rewrite
    Graph other = baddbmmGraph({int64_t(2), int64_t(1)}, {}, TensorMeta{});     // beta = 2
    REQUIRE(firstStructuralDifference(fx, positional).has_value());

    for (Graph *g : {&fx, &keywords, &positional, &other}) {
        canonicaliseCalls(*g, schemas);
        forgetListMetadata(*g);
    }
    CHECK_FALSE(firstStructuralDifference(fx, keywords).has_value());
    CHECK_FALSE(firstStructuralDifference(fx, positional).has_value());
    // A value that differs still differs.
    CHECK(firstStructuralDifference(fx, other).has_value());
    // Only the list-valued unbind lost its metadata.
    CHECK(positional.node(positional.nodesWithOp("aten::baddbmm").front())->meta.isKnown());
}
