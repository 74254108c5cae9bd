// split_cat_pass (SplitCatSimplifier, merge_split_squeeze) and unbind_stack_pass.

#include "core/ir/GraphBuilder.h"
#include "SplitCatTestSupport.h"

using namespace fusebox;
using namespace fusebox::test::sc;

TEST_CASE("split_cat_pass merges the run a cat reads into one section", "[patterns]")
{
    Graph g = splitCatSameDimGraph();
    CHECK(matchAt(g, "split_cat_pass", "split").nodes
          == std::vector<NodeId>{named(g, "split"), named(g, "g0"), named(g, "g1"), named(g, "g2"), named(g, "g3"),
                                 named(g, "relu0"), named(g, "cat"), named(g, "relu3")});
    CHECK(applyRule(g, "split_cat_pass") == 1);
    const std::string split = "split_with_sizes(x, [16, 32, 16], 1)";
    CHECK(outputs(g)
          == std::vector<std::string>{"relu(getitem(" + split + ", 0))", "getitem(" + split + ", 1)",
                                      "relu(getitem(" + split + ", 2))"});
    CHECK(outputShape(g, 1) == "[8, 32]");
    CHECK(countOps(g, "aten::cat") == 0);
}

TEST_CASE("split_cat_pass turns stacks and cats on another dim into unflatten and movedim", "[patterns]")
{
    Graph g = splitCatOtherDimGraph();
    CHECK(applyRule(g, "split_cat_pass") == 1);
    const std::string moved = "movedim.int(unflatten.int(x, 1, [4, -1]), 1, 0)";
    CHECK(outputs(g)
          == std::vector<std::string>{moved, "flatten.using_ints(cat([" + moved + ", stack([y], 0)], 0), 0, 1)"});
    CHECK(outputShape(g, 0) == "[4, 8, 16]");
    CHECK(outputShape(g, 1) == "[40, 16]");
    CHECK(countOps(g, "aten::split_with_sizes") == 0);
    CHECK(countOps(g, "getitem") == 0);
}

TEST_CASE("split_cat_pass flattens a cat on a later dim", "[patterns]")
{
    Graph g = splitCatLaterDimGraph();
    CHECK(applyRule(g, "split_cat_pass") == 1);
    CHECK(outputs(g)
          == std::vector<std::string>{"flatten.using_ints(movedim.int(unflatten.int(x, 0, [4, -1]), 0, 1), 1, 2)"});
    CHECK(outputShape(g, 0) == "[16, 32]");
}

TEST_CASE("split_cat_pass turns a split into size-1 sections read by squeezes into an unbind", "[patterns]")
{
    Graph g = splitSqueezeGraph();
    CHECK(matchAt(g, "split_cat_pass", "split").nodes.size() == 9);
    CHECK(applyRule(g, "split_cat_pass") == 1);
    CHECK(outputs(g)
          == std::vector<std::string>{"getitem(unbind.int(x, 1), 0)", "getitem(unbind.int(x, 1), 1)",
                                      "getitem(unbind.int(x, 1), 2)", "getitem(unbind.int(x, 1), 3)"});
    CHECK(outputShape(g, 3) == "[8]");
    CHECK(countOps(g, "aten::squeeze") == 0);
}

namespace {

Graph splitWith(const std::vector<int64_t> &sections, const Shape &shape,
                const std::function<std::vector<NodeId>(ShapedGraph &, const std::vector<NodeId> &)> &users)
{
    ShapedGraph b;
    auto g = b.split(b.input("x", shape), sections, 1, "split", "g");
    return b.finish(users(b, g));
}

} // namespace

TEST_CASE("split_cat_pass explains which sub-case it does not handle", "[patterns]")
{
    auto failure = [](const Graph &g) { return failureAt(g, "split_cat_pass", "split"); };
    SECTION("nobody reads the getitems")
    {
        ShapedGraph b;
        GraphBuilder build(b.g);
        NodeId x = b.input("x", {8, 64});
        b.split(x, {32, 32}, 1, "split", "g");
        Graph g = b.finish({x});
        CHECK(failure(g).description == "the split's getitems are read");
        CHECK(failure(g).actual == "no node reads the getitems of %split");
    }
    SECTION("a cat whose dim cannot be made non-negative")
    {
        ShapedGraph b;
        GraphBuilder build(b.g);
        NodeId x = build.addInput("x");
        NodeId s = b.listOp("aten::split_with_sizes", {x, intList({32, 32}), int64_t(1)}, "split");
        NodeId g0 = build.addOp("getitem", {s, int64_t(0)}, {}, "g0");
        NodeId g1 = build.addOp("getitem", {s, int64_t(1)}, {}, "g1");
        NodeId cat = build.addOp("aten::cat", {nodeList({g0, g1}), int64_t(-1)}, {}, "cat");
        Graph g = b.finish({cat});
        CHECK(failure(g).description == "the dim of every cat/stack user is known");
        CHECK(failure(g).actual == "%cat has dim -1 and an unknown rank");
    }
    SECTION("overlapping runs")
    {
        Graph g = splitWith({16, 16, 16, 16}, {8, 64}, [](ShapedGraph &b, const std::vector<NodeId> &g) {
            return std::vector<NodeId>{b.cat({g[0], g[1]}, 1, {8, 32}, "cat_a"),
                                       b.cat({g[1], g[2]}, 1, {8, 32}, "cat_b"), g[3]};
        });
        CHECK(failure(g).description == "the section ranges the users read do not overlap");
        CHECK(failure(g).actual
              == "sections 0..1 (read by %cat_a) overlaps sections 1..2 (read by %cat_b): overlapping ranges are "
                 "not handled");
    }
    SECTION("every section read on its own")
    {
        Graph g = splitWith({16, 16, 16, 16}, {8, 64}, [](ShapedGraph &b, const std::vector<NodeId> &g) {
            std::vector<NodeId> out;
            for (size_t i = 0; i < g.size(); ++i)
                out.push_back(b.relu(g[i], "relu" + std::to_string(i)));
            return out;
        });
        CHECK(failure(g).description == "runs of consecutive sections can be merged");
        CHECK(failure(g).actual == "the next users of %split read its 4 sections one at a time: nothing to merge");
    }
    SECTION("unequal sections joined on another dim")
    {
        Graph g = splitWith({16, 32}, {8, 48}, [](ShapedGraph &b, const std::vector<NodeId> &g) {
            return std::vector<NodeId>{b.cat({g[0], g[1]}, 0, {16, 48}, "cat")};
        });
        CHECK(failure(g).description == "sections joined on another dim (or stacked) have equal sizes");
        CHECK(failure(g).actual
              == "%cat (cat dim 0) takes sections 0..1 of %split with sizes [16, 32] (split dim 1): "
                 "not handled");
    }
    SECTION("another input of a cat on another dim with a different shape")
    {
        Graph g = splitWith({16, 16, 16, 16}, {8, 64}, [](ShapedGraph &b, const std::vector<NodeId> &g) {
            NodeId y = b.input("y", {3, 16});
            return std::vector<NodeId>{b.cat({g[0], g[1], g[2], g[3], y}, 0, {35, 16}, "cat")};
        });
        CHECK(failure(g).description
              == "inputs of a cat on another dim that do not come from the split have the sections' shape");
        CHECK(failure(g).actual == "%y has shape [3, 16]; the sections of %split have [8, 16]");
    }
    SECTION("a squeeze of another dim")
    {
        Graph g = splitWith({1, 1}, {8, 2}, [](ShapedGraph &b, const std::vector<NodeId> &g) {
            return std::vector<NodeId>{b.op("aten::squeeze", {g[0], int64_t(0)}, {8, 1}, "sq0", "dim"),
                                       b.op("aten::squeeze", {g[1], int64_t(1)}, {8}, "sq1", "dim")};
        });
        CHECK(failure(g).description == "every squeeze squeezes the split dim");
        CHECK(failure(g).actual == "squeeze %sq0 has dim 0, the split dim is 1");
    }
    SECTION("a section squeezed twice")
    {
        Graph g = splitWith({1, 1}, {8, 2}, [](ShapedGraph &b, const std::vector<NodeId> &g) {
            return std::vector<NodeId>{b.op("aten::squeeze", {g[0], int64_t(1)}, {8}, "sq0", "dim"),
                                       b.op("aten::squeeze", {g[0], int64_t(1)}, {8}, "sq0b", "dim"),
                                       b.op("aten::squeeze", {g[1], int64_t(1)}, {8}, "sq1", "dim")};
        });
        CHECK(failure(g).description == "each getitem is used once");
        CHECK(failure(g).actual == "getitem %g0 has 2 users (needs 1)");
    }
}

TEST_CASE("unbind_stack_pass turns unbind -> stack/cat into movedim (+ flatten)", "[patterns]")
{
    Graph g = unbindStackGraph();
    CHECK(matchAt(g, "unbind_stack_pass", "unbind").nodes.size() == 7);
    CHECK(applyRule(g, "unbind_stack_pass") == 1);
    CHECK(outputs(g)
          == std::vector<std::string>{"movedim.int(x, 0, 1)",
                                      "cat([y, flatten.using_ints(movedim.int(x, 0, 1), 1, 2)], 1)"});
    CHECK(outputShape(g, 0) == "[8, 4, 16]");
    CHECK(outputShape(g, 1) == "[8, 69]");
    CHECK(countOps(g, "aten::unbind") == 0);
}

TEST_CASE("unbind_stack_pass takes negative dims and moves them as written, as UnbindCatRemover does", "[patterns]")
{
    // The unbinds and stacks batch fusions add after normalization_pass keep
    // negative dims; 2.6 compares and moves the dims as written.
    ShapedGraph b;
    NodeId x = b.input("x", {4, 8, 16});
    NodeId y = b.input("y", {8, 5});
    auto u = b.unbind(x, -3, "unbind", "u");
    NodeId st = b.stack(u, -2, {8, 4, 16}, "stack");
    NodeId cat = b.cat({y, u[0], u[1], u[2], u[3]}, 1, {8, 69}, "cat");
    Graph g = b.finish({st, cat});
    CHECK(applyRule(g, "unbind_stack_pass") == 1);
    CHECK(outputs(g)
          == std::vector<std::string>{"movedim.int(x, -3, -2)",
                                      "cat([y, flatten.using_ints(movedim.int(x, -3, 1), 1, 2)], 1)"});
    CHECK(outputShape(g, 0) == "[8, 4, 16]");
    CHECK(outputShape(g, 1) == "[8, 69]");
}

TEST_CASE("unbind_stack_pass explains why it does not apply", "[patterns]")
{
    auto failure = [](const Graph &g) { return failureAt(g, "unbind_stack_pass", "unbind"); };
    SECTION("a keyword dim")
    {
        ShapedGraph b;
        GraphBuilder build(b.g);
        NodeId u = b.listOp("aten::unbind", {b.input("x", {4, 8})}, "unbind", "int");
        build.setArgs(u, build.node(u).args(), {NamedArg{"dim", Arg(int64_t(1))}});
        Graph g = b.finish({b.item(u, 0, {4}, "u0")});
        CHECK(failure(g).description == "unbind is normalized");
        CHECK(failure(g).actual == "unbind %unbind is not normalized (keyword arguments): run normalization_pass first");
    }
    SECTION("a symbolic size")
    {
        ShapedGraph b;
        GraphBuilder build(b.g);
        NodeId x = build.addInput("x",
                                  TensorMeta{DType::Float32, std::vector<Dim>{std::string("s0"), int64_t(8)}, {}, {}});
        NodeId u = b.listOp("aten::unbind", {x, int64_t(0)}, "unbind", "int");
        Graph g = b.finish({b.item(u, 0, {8}, "u0")});
        CHECK(failure(g).description == "unbind input size along dim is static");
        CHECK(failure(g).actual == "input %x has shape [s0, 8] (dim 0 not static)");
    }
    SECTION("an output without getitem")
    {
        ShapedGraph b;
        auto u = b.unbind(b.input("x", {4, 8}), 0, "unbind", "u", {0, 1, 2});
        Graph g = b.finish({b.stack(u, 0, {3, 8}, "stack")});
        CHECK(failure(g).description == "every unbind output has a getitem");
        CHECK(failure(g).actual == "getitems read indices [0, 1, 2] of the 4 outputs of %unbind");
    }
    SECTION("two runs")
    {
        ShapedGraph b;
        auto u = b.unbind(b.input("x", {4, 8}), 0, "unbind", "u");
        Graph g = b.finish({b.stack({u[0], u[1]}, 0, {2, 8}, "stack_a"), b.stack({u[2], u[3]}, 0, {2, 8}, "stack_b")});
        CHECK(failure(g).description == "the users read all unbind outputs as one run");
        CHECK(failure(g).actual
              == "the users of %unbind read sections 0..1, sections 2..3: needs one run over all 4 "
                 "outputs");
    }
}
