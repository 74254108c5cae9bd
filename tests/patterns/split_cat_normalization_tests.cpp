#include "core/ir/GraphBuilder.h"
#include "SplitCatTestSupport.h"

#include "core/rewrite/GreedyDriver.h"

#include <algorithm>

using namespace fusebox;
using namespace fusebox::test::sc;

TEST_CASE("the split/cat catalog lists PyTorch's rules in PyTorch's order", "[patterns]")
{
    const std::vector<std::pair<std::string, int>> expected{
        {"normalization_pass", 100},
        {"remove_split_with_size_one_pass", 95},
        {"merge_getitem_cat_pass", 90},
        {"merge_stack_tahn_unbind_pass", 88},
        {"merge_splits_pass", 86},
        {"mutate_cat_pass", 84},
        {"split_cat_pass", 82},
        {"unbind_stack_pass", 80},
        {"split_cat_to_slices_pass", 74},
        {"unbind_cat_to_view_pass", 73},
        {"split_stack_to_cats_pass", 72},
        {"unbind_stack_to_slices_pass", 71},
        {"move_reshape_out_of_split_stack_pass", 70},
        {"sink_cat_after_pointwise", 60},
        {"permute_linear_fusion", 55},
        {"permute_matmul_fusion", 55},
        {"linear_permute_fusion", 55},
        {"einsum_to_pointwise_pass", 40}, // Inductor 2.14's
        {"unbind_stack_aten_pass", 50},
        {"normalization_aten_pass", 49},
        {"split_cat_aten_pass", 48},  // Inductor 2.14's
        {"select_cat_aten_pass", 47}, // Inductor 2.14's
        {"decompose_mm_pass", 46},
    };
    const size_t firstPostGrad = 18; // unbind_stack_aten_pass
    const auto all = splitCatSet().all();
    REQUIRE(all.size() == expected.size());
    for (size_t i = 0; i < all.size(); ++i) {
        INFO(all[i]->name());
        CHECK(all[i]->name() == expected[i].first);
        CHECK(all[i]->benefit() == expected[i].second);
        CHECK(all[i]->family() == PatternFamily::Vertical);
        CHECK(all[i]->stage() == (i >= firstPostGrad ? PassStage::PostGrad : PassStage::PreGrad));
        CHECK_FALSE(all[i]->description().empty());
        CHECK(all[i]->description().back() == '.');
        CHECK_FALSE(all[i]->rootOps().empty());
        CHECK(all[i]->options().getInt("counter") == 1);
        CHECK(all[i]->unavailableReason().empty());
    }
    for (const char *name : {"split_cat_to_slices_pass", "unbind_cat_to_view_pass", "split_stack_to_cats_pass",
                             "unbind_stack_to_slices_pass", "move_reshape_out_of_split_stack_pass"})
        CHECK(rule(name).options().getInt("threshold_to_cat") == 10);
    CHECK_FALSE(rule("merge_getitem_cat_pass").options().has("threshold_to_cat"));
}

TEST_CASE("normalization_pass writes every split unbind cat stack and squeeze in canonical form", "[patterns]")
{
    Graph g = normalizationGraph();
    CHECK(matchAt(g, "normalization_pass", "split").nodes == std::vector<NodeId>{named(g, "split")});
    CHECK(applyRule(g, "normalization_pass") == 5);
    const std::string split = "split_with_sizes(x, [16, 16, 16, 16], 1)";
    CHECK(outputs(g)
          == std::vector<std::string>{
              "cat([getitem(" + split + ", 3), getitem(" + split + ", 0)], 1)",
              "getitem(" + split + ", 1)",
              "squeeze.dim(stack([getitem(unbind.int(x, 0), 0), getitem(unbind.int(x, 0), 0)], 1), 1)",
          });
    CHECK(countOps(g, "aten::split") == 0);
    // The getitems and their metadata are kept; the new nodes keep the old metadata.
    CHECK(g.node(named(g, "g3"))->meta.shapeString() == "[8, 16]");
    CHECK(outputShape(g, 0) == "[8, 32]");
    CHECK(g.node(g.node(named(g, "g0"))->args()[0].node())->type == "Tensor[]");
    CHECK_FALSE(firesAnywhere(g, "normalization_pass"));
}

TEST_CASE("normalization_pass computes sections with a smaller last one and fills defaults", "[patterns]")
{
    ShapedGraph b;
    GraphBuilder build(b.g);
    NodeId x = b.input("x", {10, 4});
    NodeId s = b.listOp("aten::split", {x, int64_t(4)}, "split", "Tensor");
    NodeId last = b.item(s, 2, {2, 4}, "g2");
    NodeId sizes = b.listOp("aten::split", {x, intList({3, 7})}, "split_sizes", "sizes");
    NodeId first = b.item(sizes, 0, {3, 4}, "h0");
    NodeId r = b.op("aten::reshape", {last, intList({-1, 2})}, {4, 2}, "reshape");
    NodeId c = build.addOp("aten::clamp", {first}, {NamedArg{"min", 0.0}}, "clamp");
    build.node(c).meta = f32({3, 4});
    Graph g = b.finish({r, c});

    CHECK(applyRule(g, "normalization_pass") == 4);
    CHECK(outputs(g)
          == std::vector<std::string>{
              "reshape(getitem(split_with_sizes(x, [4, 4, 2], 0), 2), [4, 2])",
              "clamp(getitem(split_with_sizes(x, [3, 7], 0), 0), 0.0, None)",
          });
    CHECK(g.node(g.outputValues()[1])->kwargs().empty());
}

TEST_CASE("normalization_pass re-creates x.detach() as torch.detach(x), uncounted", "[patterns]")
{
    // split_cat.py normalize_detach_default: the method form only; the batch
    // fusions that match torch.detach alone (2.6) then see it.
    ShapedGraph b;
    GraphBuilder build(b.g);
    NodeId x = b.input("x", {4, 8});
    NodeId method = b.op("aten::detach", {x}, {4, 8}, "method");
    build.node(method).provenance.originalSpelling = "Tensor.detach";
    NodeId function = b.op("aten::detach", {x}, {4, 8}, "function");
    build.node(function).provenance.originalSpelling = "torch.detach";
    Graph g = b.finish({method, function});

    CHECK(applyRule(g, "normalization_pass") == 1);
    CHECK(g.node(g.outputValues()[0])->provenance.originalSpelling.empty());
    CHECK(g.node(g.outputValues()[0])->meta.shapeString() == "[4, 8]");
    Check f = failureAt(g, "normalization_pass", "function");
    CHECK(f.description == "detach is called as the method x.detach()");
    CHECK(f.actual == "%function is called as torch.detach");
}

TEST_CASE("normalization_pass explains why it does not apply", "[patterns]")
{
    SECTION("the call is already canonical")
    {
        ShapedGraph b;
        GraphBuilder build(b.g);
        NodeId a = b.input("a", {2, 3}), c = b.input("c", {2, 5});
        Graph g = b.finish({b.cat({a, c}, 1, {2, 8}, "cat")});
        Check f = failureAt(g, "normalization_pass", "cat");
        CHECK(f.description == "the call is not in canonical form yet");
        CHECK(f.actual == "%cat is already canonical: aten::cat([%a, %c], 1)");
    }
    SECTION("a split without sizes")
    {
        ShapedGraph b;
        NodeId x = b.input("x", {8, 4});
        NodeId s = b.listOp("aten::split", {x}, "split", "Tensor");
        Graph g = b.finish({b.item(s, 0, {8, 4}, "g0")});
        Check f = failureAt(g, "normalization_pass", "split");
        CHECK(f.description == "split has an input and sizes");
        CHECK(f.actual == "%split lacks its input or its sizes argument");
    }
    SECTION("a dim that is not a literal")
    {
        ShapedGraph b;
        NodeId x = b.input("x", {8, 4}), d = b.input("d", {});
        NodeId s = b.listOp("aten::split", {x, int64_t(2), d}, "split", "Tensor");
        Graph g = b.finish({b.item(s, 0, {8, 2}, "g0")});
        Check f = failureAt(g, "normalization_pass", "split");
        CHECK(f.description == "dim is a literal int");
        CHECK(f.actual == "%split has dim %d");
    }
    SECTION("a negative dim without a known rank")
    {
        ShapedGraph b;
        GraphBuilder build(b.g);
        NodeId a = build.addInput("a"), c = build.addInput("c");
        NodeId cat = build.addOp("aten::cat", {nodeList({a, c}), int64_t(-1)}, {}, "cat");
        Graph g = b.finish({cat});
        Check f = failureAt(g, "normalization_pass", "cat");
        CHECK(f.description == "rank is known for a negative dim");
        CHECK(f.actual == "%cat has dim -1 and the rank is unknown (no shape metadata)");
    }
    SECTION("a dim out of range")
    {
        ShapedGraph b;
        NodeId a = b.input("a", {2, 3});
        Graph g = b.finish({b.stack({a, a}, -4, {2, 2, 3}, "stack")});
        Check f = failureAt(g, "normalization_pass", "stack");
        CHECK(f.description == "dim is in range");
        CHECK(f.actual == "dim -4 is out of range for rank 3");
    }
    SECTION("sections that are not literal")
    {
        ShapedGraph b;
        NodeId x = b.input("x", {8, 4}), n = b.input("n", {});
        NodeId s = b.listOp("aten::split_with_sizes", {x, Arg::list({Arg(n), Arg(int64_t(4))}), int64_t(1)}, "split");
        Graph g = b.finish({b.item(s, 0, {8, 0}, "g0")});
        Check f = failureAt(g, "normalization_pass", "split");
        CHECK(f.description == "split sections are literal ints");
        CHECK(f.actual == "%split has sections [%n, 4]");
    }
    SECTION("a split_size that is not positive")
    {
        ShapedGraph b;
        NodeId x = b.input("x", {8, 4});
        NodeId s = b.listOp("aten::split", {x, int64_t(0), int64_t(1)}, "split", "Tensor");
        Graph g = b.finish({b.item(s, 0, {8, 0}, "g0")});
        Check f = failureAt(g, "normalization_pass", "split");
        CHECK(f.description == "split_size is a positive literal int");
        CHECK(f.actual == "%split has split_size 0");
    }
    SECTION("a symbolic size along the split dim")
    {
        ShapedGraph b;
        GraphBuilder build(b.g);
        NodeId x = build.addInput("x",
                                  TensorMeta{DType::Float32, std::vector<Dim>{std::string("s0"), int64_t(64)}, {}, {}});
        NodeId s = b.listOp("aten::split", {x, int64_t(16), int64_t(0)}, "split", "Tensor");
        NodeId g0 = build.addOp("getitem", {s, int64_t(0)}, {}, "g0");
        Graph g = b.finish({g0});
        Check f = failureAt(g, "normalization_pass", "split");
        CHECK(f.description == "split input size along dim is static");
        CHECK(f.actual == "input %x has shape [s0, 64]: the sections of split_size 16 along dim 0 cannot be computed");
    }
    SECTION("a reshape with -1 and no static output shape")
    {
        ShapedGraph b;
        GraphBuilder build(b.g);
        NodeId x = b.input("x", {8, 4});
        NodeId r = build.addOp("aten::reshape", {x, intList({-1, 4})}, {}, "reshape");
        Graph g = b.finish({r});
        Check f = failureAt(g, "normalization_pass", "reshape");
        CHECK(f.description == "reshape output shape is static");
        CHECK(f.actual == "%reshape has shape unknown: its target shape cannot be made explicit");
    }
    SECTION("a squeeze without its input")
    {
        ShapedGraph b;
        GraphBuilder build(b.g);
        NodeId q = build.addOp("aten::squeeze", {}, {}, "squeeze");
        Graph g = b.finish({q});
        Check f = failureAt(g, "normalization_pass", "squeeze");
        CHECK(f.description == "squeeze has its input");
        CHECK(f.actual == "%squeeze has no input");
    }
}

TEST_CASE("rules that need normalized splits say so (pytorch#122944)", "[patterns]")
{
    ShapedGraph b;
    NodeId x = b.input("x", {8, 64});
    NodeId s = b.listOp("aten::split", {x, int64_t(16), int64_t(1)}, "split", "Tensor");
    std::vector<NodeId> items;
    for (int64_t i = 0; i < 4; ++i)
        items.push_back(b.item(s, i, {8, 16}, "g" + std::to_string(i)));
    NodeId cat = b.cat({items[1], items[2]}, 1, {8, 32}, "cat");
    NodeId neg = b.listOp("aten::split_with_sizes", {x, intList({32, 32}), int64_t(-1)}, "split_neg");
    NodeId h = b.item(neg, 0, {8, 32}, "h0");
    NodeId cat2 = b.cat({h}, 1, {8, 32}, "cat2");
    Graph g = b.finish({cat, cat2, items[0], items[3]});

    for (const char *name : {"merge_getitem_cat_pass", "mutate_cat_pass", "split_cat_to_slices_pass"}) {
        INFO(name);
        Check f = failureAt(g, name, "cat");
        CHECK(f.description == "split is normalized");
        CHECK(f.actual == "split %split is not normalized (sections unknown): run normalization_pass first");
        CHECK(f.nodes == std::vector<NodeId>{s});
    }
    Check f = failureAt(g, "split_cat_pass", "split");
    CHECK(f.actual == "split %split is not normalized (sections unknown): run normalization_pass first");
    f = failureAt(g, "merge_getitem_cat_pass", "cat2");
    CHECK(f.actual == "split %split_neg is not normalized (dim -1 is negative): run normalization_pass first");

    CHECK(applyRule(g, "normalization_pass") == 2);
    CHECK(firesAnywhere(g, "merge_getitem_cat_pass"));
}

TEST_CASE("the greedy driver runs the split/cat catalog to a fixed point", "[patterns]")
{
    auto unnormalized = [](std::vector<int64_t> catted) {
        ShapedGraph b;
        NodeId x = b.input("x", {8, 64});
        NodeId s = b.listOp("aten::split", {x, int64_t(16), int64_t(1)}, "split", "Tensor");
        std::vector<NodeId> items, parts;
        for (int64_t i = 0; i < 4; ++i)
            items.push_back(b.item(s, i, {8, 16}, "g" + std::to_string(i)));
        for (int64_t i : catted)
            parts.push_back(items[size_t(i)]);
        NodeId relu = b.relu(b.cat(parts, -1, {8, int64_t(16 * parts.size())}, "cat"), "relu");
        std::vector<NodeId> out{relu};
        for (int64_t i = 0; i < 4; ++i)
            if (std::find(catted.begin(), catted.end(), i) == catted.end())
                out.push_back(items[size_t(i)]);
        return b.finish(out);
    };

    Graph middle = unnormalized({1, 2});
    DriverResult result = GreedyDriver(splitCatSet()).run(middle);
    INFO(result.message);
    CHECK(result.converged);
    CHECK(result.counters["normalization_pass"].applied == 2);
    CHECK(result.counters["merge_getitem_cat_pass"].applied == 1);
    CHECK(verify(middle).empty());
    const std::string split = "split_with_sizes(x, [16, 32, 16], 1)";
    CHECK(outputs(middle)
          == std::vector<std::string>{"relu(getitem(" + split + ", 1))", "getitem(" + split + ", 0)",
                                      "getitem(" + split + ", 2)"});

    // All sections: the split disappears (merge_getitem_cat, then remove_split_with_size_one).
    Graph all = unnormalized({0, 1, 2, 3});
    result = GreedyDriver(splitCatSet()).run(all);
    CHECK(result.converged);
    CHECK(verify(all).empty());
    CHECK(outputs(all) == std::vector<std::string>{"relu(x)"});
}
