// split_cat_to_slices_pass, unbind_cat_to_view_pass, split_stack_to_cats_pass,
// unbind_stack_to_slices_pass, move_reshape_out_of_split_stack_pass.

#include "core/ir/GraphBuilder.h"
#include "SplitCatTestSupport.h"
#include "patterns/split_cat/NodeBuilder.h"

using namespace fusebox;
using namespace fusebox::test::sc;

namespace {

const std::string kSplit12 = "split_with_sizes(x, [2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2], 1)";

} // namespace

TEST_CASE("split_cat_to_slices_pass turns long runs into slices and full runs into the input", "[patterns]")
{
    Graph g = splitCatToSlicesGraph();
    CHECK(matchAt(g, "split_cat_to_slices_pass", "cat").nodes.size() == 15);
    CHECK(applyRule(g, "split_cat_to_slices_pass") == 1);
    CHECK(outputs(g)
          == std::vector<std::string>{"cat([y, slice.Tensor(x, 1, 0, 22, 1), z], 1)",
                                      "relu(getitem(" + kSplit12 + ", 11))"});
    CHECK(outputShape(g, 0) == "[4, 31]");
    CHECK(countOps(g, "getitem") == 1);
    CHECK_FALSE(g.contains(g.findByName("split_z")));
}

TEST_CASE("split_cat_to_slices_pass explains why it does not apply", "[patterns]")
{
    auto withCat = [](const std::function<NodeId(ShapedGraph &, const std::vector<NodeId> &)> &make) {
        ShapedGraph b;
        auto g = b.split(b.input("x", {4, 24}), std::vector<int64_t>(12, 2), 1, "split", "g");
        NodeId cat = make(b, g);
        return b.finish({cat, b.relu(g[11], "relu")});
    };
    SECTION("a short run")
    {
        Graph g = withCat([](ShapedGraph &b, const std::vector<NodeId> &g) {
            return b.cat({b.input("y", {4, 3}), g[0], g[1], g[2]}, 1, {4, 9}, "cat");
        });
        Check f = failureAt(g, "split_cat_to_slices_pass", "cat");
        CHECK(f.description == "a run of getitems becomes the parent's input or a slice");
        CHECK(f.actual
              == "%split: indices [0, 1, 2] of 12 outputs are not all of them and no consecutive stretch "
                 "reaches threshold_to_cat 10");

        // A lower threshold_to_cat makes the same run a slice.
        PatternSet set;
        addSplitCatPatterns(set);
        set.find("split_cat_to_slices_pass")->options().set("threshold_to_cat", int64_t(3));
        const auto &tuned = static_cast<const VerticalPattern &>(*set.find("split_cat_to_slices_pass"));
        MatchTrace trace;
        auto m = tuned.match(g, named(g, "cat"), trace);
        REQUIRE(m.has_value());
        PatternRewriter rewriter(g);
        REQUIRE(tuned.rewrite(rewriter, *m).succeeded());
        CHECK(verify(g).empty());
        CHECK(outputs(g)[0] == "cat([y, slice.Tensor(x, 1, 0, 6, 1)], 1)");
    }
    SECTION("a run on another dim")
    {
        Graph g = withCat([](ShapedGraph &b, const std::vector<NodeId> &g) {
            return b.cat(std::vector<NodeId>(g.begin(), g.end()), 0, {48, 2}, "cat");
        });
        Check f = failureAt(g, "split_cat_to_slices_pass", "cat");
        CHECK(f.actual == "%split: split dim 1 ≠ cat dim 0");
    }
    SECTION("no getitem inputs")
    {
        Graph g = withCat([](ShapedGraph &b, const std::vector<NodeId> &) {
            return b.cat({b.input("a", {4, 2}), b.input("c", {4, 2})}, 1, {4, 4}, "cat");
        });
        Check f = failureAt(g, "split_cat_to_slices_pass", "cat");
        CHECK(f.actual == "no input of %cat is a getitem that can be merged");
    }
}

TEST_CASE("unbind_cat_to_view_pass turns runs of an unbind into permute + reshape of its input", "[patterns]")
{
    Graph g = unbindCatToViewGraph();
    CHECK(applyRule(g, "unbind_cat_to_view_pass") == 2);
    CHECK(outputs(g)
          == std::vector<std::string>{"cat([y, reshape(permute(slice.Tensor(x, 0, 0, 11, 1), [1, 0, 2]), [4, 33])], 1)",
                                      "reshape(permute(w, [1, 0, 2]), [4, 9])", "relu(getitem(unbind.int(x, 0), 11))"});
    CHECK(outputShape(g, 0) == "[4, 35]");
    CHECK(outputShape(g, 1) == "[4, 9]");
}

TEST_CASE("unbind_cat_to_view_pass takes a negative unbind dim and compares the dims as written", "[patterns]")
{
    // What batch_layernorm leaves after normalization_pass ran: unbind(x, -2).
    // Inductor 2.6's reshape_cat_node swaps permute_list[-2] and [1] since
    // -2 != 1: the identity permute, then the reshape.
    ShapedGraph b;
    auto u = b.unbind(b.input("x", {4, 3, 5}), -2, "unbind", "u");
    Graph g = b.finish({b.cat(u, 1, {4, 15}, "cat")});
    CHECK(applyRule(g, "unbind_cat_to_view_pass") == 1);
    CHECK(outputs(g) == std::vector<std::string>{"reshape(permute(x, [0, 1, 2]), [4, 15])"});
    CHECK(outputShape(g, 0) == "[4, 15]");
}

TEST_CASE("unbind_cat_to_view_pass explains why it does not apply", "[patterns]")
{
    SECTION("the unbind input has a symbolic dim")
    {
        ShapedGraph b;
        GraphBuilder build(b.g);
        NodeId x = build.addInput("x", TensorMeta{DType::Float32,
                                                  std::vector<Dim>{int64_t(3), std::string("s0"), int64_t(2)},
                                                  {},
                                                  {}});
        NodeId u = b.listOp("aten::unbind", {x, int64_t(0)}, "unbind", "int");
        std::vector<NodeId> items;
        for (int64_t i = 0; i < 3; ++i)
            items.push_back(build.addOp("getitem", {u, i}, {}, "u" + std::to_string(i)));
        NodeId cat = build.addOp("aten::cat", {nodeList(items), int64_t(1)}, {}, "cat");
        Graph g = b.finish({cat});
        Check f = failureAt(g, "unbind_cat_to_view_pass", "cat");
        CHECK(f.description == "the unbind input has a static shape");
        CHECK(f.actual == "input %x of %unbind has shape [3, s0, 2]");
    }
    SECTION("a short run")
    {
        ShapedGraph b;
        auto u = b.unbind(b.input("x", {12, 4, 3}), 0, "unbind", "u");
        Graph g = b.finish({b.cat({u[3], u[4]}, 1, {4, 6}, "cat"), u[0]});
        Check f = failureAt(g, "unbind_cat_to_view_pass", "cat");
        CHECK(f.actual
              == "%unbind: indices [3, 4] of 12 outputs are not all of them and no consecutive stretch "
                 "reaches threshold_to_cat 10");
    }
}

TEST_CASE("split_stack_to_cats_pass turns a stack of sections into a reshaped cat", "[patterns]")
{
    Graph g = splitStackToCatsGraph();
    CHECK(applyRule(g, "split_stack_to_cats_pass") == 2);
    CHECK(outputs(g)
          == std::vector<std::string>{"permute(reshape(cat([y, x], 1), [4, 13, 2]), [1, 0, 2])",
                                      "reshape(z, [4, 3, 2])"});
    CHECK(outputShape(g, 0) == "[13, 4, 2]");
    CHECK(outputShape(g, 1) == "[4, 3, 2]");
    CHECK(countOps(g, "aten::stack") == 0);
}

TEST_CASE("split_stack_to_cats_pass explains why it does not apply", "[patterns]")
{
    SECTION("no static stack shape")
    {
        ShapedGraph b;
        auto h = b.split(b.input("z", {4, 6}), {2, 2, 2}, 1, "split_z", "h");
        NodeId st = b.build.addOp("aten::stack", {nodeList(h), int64_t(1)}, {}, "stack");
        Graph g = b.finish({st});
        Check f = failureAt(g, "split_stack_to_cats_pass", "stack");
        CHECK(f.description == "stack has a static shape");
        CHECK(f.actual == "%stack has shape unknown");
    }
    SECTION("runs of splits on different dims")
    {
        ShapedGraph b;
        auto h = b.split(b.input("z", {4, 6}), {2, 2, 2}, 1, "split_z", "h");
        auto k = b.split(b.input("w", {12, 2}), {4, 4, 4}, 0, "split_w", "k");
        Graph g = b.finish({b.stack({h[0], h[1], h[2], k[0], k[1], k[2]}, 0, {6, 4, 2}, "stack")});
        // The first run merges; the second, on another dim, is kept.
        CHECK(applyRule(g, "split_stack_to_cats_pass") == 1);
        const std::string k3 = "split_with_sizes(w, [4, 4, 4], 0)";
        CHECK(outputs(g)
              == std::vector<std::string>{"permute(reshape(cat([z, getitem(" + k3 + ", 0), getitem(" + k3
                                          + ", 1), getitem(" + k3 + ", 2)], 1), [4, 6, 2]), [1, 0, 2])"});
    }
}

TEST_CASE("unbind_stack_to_slices_pass stacks a slice of the unbind input", "[patterns]")
{
    Graph g = unbindStackToSlicesGraph();
    CHECK(applyRule(g, "unbind_stack_to_slices_pass") == 1);
    CHECK(outputs(g)
          == std::vector<std::string>{"cat([stack([y], 1), permute(slice.Tensor(x, 0, 0, 11, 1), [1, 0, 2])], 1)",
                                      "relu(getitem(unbind.int(x, 0), 11))"});
    CHECK(outputShape(g, 0) == "[4, 12, 3]");
}

TEST_CASE("unbind_stack_to_slices_pass explains why it does not apply", "[patterns]")
{
    ShapedGraph b;
    auto u = b.unbind(b.input("x", {12, 4, 3}), 0, "unbind", "u");
    Graph g = b.finish({b.stack({u[0], u[5]}, 1, {4, 2, 3}, "stack"), u[1]});
    Check f = failureAt(g, "unbind_stack_to_slices_pass", "stack");
    CHECK(f.description == "a run of getitems becomes the parent's input or a slice");
    CHECK(f.actual
          == "%unbind: indices [0, 5] of 12 outputs are not all of them and no consecutive stretch reaches "
             "threshold_to_cat 10");
}

TEST_CASE("move_reshape_out_of_split_stack_pass reshapes the split input once", "[patterns]")
{
    const std::vector<std::pair<int64_t, std::string>> cases{
        {0, "permute(reshape(x, [4, 12, 2, 3]), [1, 0, 2, 3])"},
        {1, "reshape(x, [4, 12, 2, 3])"},
        {3, "permute(reshape(x, [4, 12, 2, 3]), [0, 2, 3, 1])"},
    };
    for (const auto &[dim, expected] : cases) {
        INFO(dim);
        Graph g = moveReshapeGraph(dim);
        CHECK(matchAt(g, "move_reshape_out_of_split_stack_pass", "stack").nodes.size() == 25);
        CHECK(applyRule(g, "move_reshape_out_of_split_stack_pass") == 1);
        CHECK(outputs(g) == std::vector<std::string>{expected});
        CHECK(countOps(g, "aten::split_with_sizes") == 0);
    }
    Graph g = moveReshapeGraph(0);
    applyRule(g, "move_reshape_out_of_split_stack_pass");
    CHECK(outputShape(g, 0) == "[12, 4, 2, 3]");
}

TEST_CASE("move_reshape_out_of_split_stack_pass explains why it does not apply", "[patterns]")
{
    SECTION("no reshaped getitems")
    {
        ShapedGraph b;
        auto h = b.split(b.input("z", {4, 6}), {2, 2, 2}, 1, "split_z", "h");
        Graph g = b.finish({b.stack(h, 0, {3, 4, 2}, "stack")});
        Check f = failureAt(g, "move_reshape_out_of_split_stack_pass", "stack");
        CHECK(f.description == "some stack input is a reshape of a getitem of a split");
        CHECK(f.actual == "no input of %stack reshapes a getitem of a split");
    }
    SECTION("a reshape that mixes the dims before the split dim")
    {
        ShapedGraph b;
        auto h = b.split(b.input("x", {4, 18}), {6, 6, 6}, 1, "split", "g");
        std::vector<NodeId> reshaped;
        for (size_t i = 0; i < h.size(); ++i)
            reshaped.push_back(b.op("aten::reshape", {h[i], intList({8, 3})}, {8, 3}, "r" + std::to_string(i)));
        Graph g = b.finish({b.stack(reshaped, 0, {3, 8, 3}, "stack")});
        Check f = failureAt(g, "move_reshape_out_of_split_stack_pass", "stack");
        CHECK(f.description == "a run of getitems becomes the parent's input or a slice");
        CHECK(f.actual
              == "%r0 reshapes a section of %split to [8, 3], which does not keep the dims [4] before split "
                 "dim 1");
    }
}

TEST_CASE("the to-slices rules move dims with movedim's permutation when the dims are far apart", "[patterns]")
{
    Graph cat = unbindCatFarDimsGraph();
    CHECK(applyRule(cat, "unbind_cat_to_view_pass") == 1);
    CHECK(outputs(cat) == std::vector<std::string>{"reshape(permute(x, [2, 0, 1]), [20, 3])"});

    Graph stack = splitStackFarDimsGraph();
    CHECK(applyRule(stack, "split_stack_to_cats_pass") == 1);
    CHECK(outputs(stack) == std::vector<std::string>{"permute(reshape(x, [3, 2, 4, 3]), [1, 2, 3, 0])"});
    CHECK(outputShape(stack, 0) == "[2, 4, 3, 3]");

    Graph slices = unbindStackFarDimsGraph();
    CHECK(applyRule(slices, "unbind_stack_to_slices_pass") == 1);
    CHECK(outputs(slices)[0] == "cat([permute(slice.Tensor(x, 0, 0, 11, 1), [1, 2, 0]), stack([y], 2)], 2)");
    CHECK(outputShape(slices, 0) == "[4, 3, 12]");
}

TEST_CASE("the split/cat node builder adds and multiplies symbolic sizes as sympy writes them", "[patterns]")
{
    // What Dynamo 2.14 annotates for the same ops on [s0, 16] and [s1, 16]
    // inputs (tests/pt2/pt2_shapes_tests.cpp checks the C++ rules against it).
    Graph g;
    GraphBuilder build(g);
    auto input = [&](const std::string &name, std::vector<Dim> shape) {
        return build.addInput(name, TensorMeta{DType::Float32, std::move(shape), {}, {}});
    };
    const NodeId x = input("x", {std::string("s0"), int64_t(16)});
    const NodeId y = input("y", {std::string("s1"), int64_t(16)});
    const NodeId z = input("z", {std::string("((s0 + 1)//2)"), int64_t(16)});
    const NodeId out = build.setOutputs({Arg(x)});
    PatternRewriter rewriter(g);
    fusebox::splitcat::NodeBuilder b(rewriter, out, x);
    auto shape = [&](NodeId id) { return g.node(id)->meta.shapeString(); };
    const NodeId cat = b.cat({x, y, x}, 0);
    CHECK(shape(cat) == "[2*s0 + s1, 16]");
    CHECK(shape(b.flatten(x, 0, 1)) == "[16*s0]");
    CHECK(shape(b.unflatten(cat, 1, {4, -1})) == "[2*s0 + s1, 4, 4]");
    CHECK(shape(b.unflatten(b.flatten(y, 0, 1), 0, {-1, 8})) == "[2*s1, 8]");
    // A size sympy writes with FloorDiv is no polynomial: no shape, not a guess.
    CHECK(shape(b.cat({x, z}, 0)).empty());
    CHECK(shape(b.flatten(z, 0, 1)).empty());
    CHECK(shape(b.unflatten(x, 0, {3, -1})).empty()); // s0 / 3 is not exact
}
