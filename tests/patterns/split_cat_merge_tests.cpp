// remove_split_with_size_one_pass, merge_getitem_cat_pass,
// merge_stack_tahn_unbind_pass, merge_splits_pass, mutate_cat_pass.

#include "core/ir/GraphBuilder.h"
#include "SplitCatTestSupport.h"

using namespace fusebox;
using namespace fusebox::test::sc;

TEST_CASE("remove_split_with_size_one_pass reads the input instead of the only section", "[patterns]")
{
    Graph g = removeSplitWithSizeOneGraph();
    CHECK(matchAt(g, "remove_split_with_size_one_pass", "split").nodes
          == std::vector<NodeId>{named(g, "split"), named(g, "g0")});
    CHECK(applyRule(g, "remove_split_with_size_one_pass") == 1);
    CHECK(outputs(g) == std::vector<std::string>{"relu(x)", "x"});
    CHECK(countOps(g, "aten::split_with_sizes") == 0);
    CHECK(countOps(g, "getitem") == 0);
}

TEST_CASE("remove_split_with_size_one_pass explains why it does not apply", "[patterns]")
{
    ShapedGraph b;
    GraphBuilder build(b.g);
    NodeId x = b.input("x", {8, 16});
    NodeId unknown = build.addInput("u");
    NodeId s1 = b.listOp("aten::split", {unknown, int64_t(16), int64_t(1)}, "split_unknown", "Tensor");
    NodeId u0 = build.addOp("getitem", {s1, int64_t(0)}, {}, "u0");
    auto two = b.split(x, {8, 8}, 1, "split_two", "t");
    NodeId unused = b.listOp("aten::split_with_sizes", {x, intList({16}), int64_t(1)}, "split_unused");
    NodeId direct = b.listOp("aten::split_with_sizes", {x, intList({16}), int64_t(1)}, "split_direct");
    NodeId reader = b.op("aten::cat", {direct, int64_t(1)}, {8, 16}, "cat");
    NodeId dup = b.listOp("aten::split_with_sizes", {x, intList({16}), int64_t(1)}, "split_dup");
    NodeId d0 = b.item(dup, 0, {8, 16}, "d0");
    NodeId d0b = b.item(dup, 0, {8, 16}, "d0b");
    NodeId nosizes = b.listOp("aten::split_with_sizes", {x}, "split_nosizes");
    NodeId oob = b.listOp("aten::split_with_sizes", {x, intList({16}), int64_t(1)}, "split_oob");
    NodeId o1 = b.item(oob, 1, {8, 16}, "o1");
    (void)unused;
    (void)nosizes;
    Graph g = b.finish({u0, two[0], reader, d0, d0b, o1});

    Check f = failureAt(g, "remove_split_with_size_one_pass", "split_unknown");
    CHECK(f.description == "split sections are known");
    CHECK(f.actual == "split %split_unknown has split_size 16 and input %u has shape unknown");
    f = failureAt(g, "remove_split_with_size_one_pass", "split_two");
    CHECK(f.description == "split has exactly one section");
    CHECK(f.actual == "split %split_two has 2 sections [8, 8]");
    f = failureAt(g, "remove_split_with_size_one_pass", "split_unused");
    CHECK(f.description == "split has users");
    CHECK(f.actual == "split %split_unused has no users");
    f = failureAt(g, "remove_split_with_size_one_pass", "split_direct");
    CHECK(f.description == "every user of the split is a getitem with a distinct index");
    CHECK(f.actual == "%cat reads %split_direct directly (not a getitem)");
    f = failureAt(g, "remove_split_with_size_one_pass", "split_dup");
    CHECK(f.description == "every user of the split is a getitem with a distinct index");
    CHECK(f.actual == "index 0 is read by both %d0 and %d0b");
    f = failureAt(g, "remove_split_with_size_one_pass", "split_oob");
    CHECK(f.description == "every user of the split is a getitem with a distinct index");
    CHECK(f.actual == "%o1 reads index 1 of 1 outputs");
    f = failureAt(g, "remove_split_with_size_one_pass", "split_nosizes");
    CHECK(f.description == "split has an input and sizes");
    CHECK(f.actual == "%split_nosizes lacks its input or its sizes argument");
}

TEST_CASE("merge_getitem_cat_pass merges the sections a cat joins into one", "[patterns]")
{
    Graph g = mergeGetItemCatGraph();
    CHECK(matchAt(g, "merge_getitem_cat_pass", "cat").nodes
          == std::vector<NodeId>{named(g, "cat"), named(g, "g1"), named(g, "g2"), named(g, "split")});
    CHECK(applyRule(g, "merge_getitem_cat_pass") == 1);
    const std::string split = "split_with_sizes(x, [8, 32, 24], 1)";
    CHECK(outputs(g)
          == std::vector<std::string>{"getitem(" + split + ", 0)", "relu(getitem(" + split + ", 1))",
                                      "getitem(" + split + ", 2)"});
    // The getitems are kept (renumbered); the merged one carries the cat's metadata.
    CHECK(g.node(named(g, "g1"))->meta.shapeString() == "[8, 32]");
    CHECK(g.node(named(g, "g3"))->args()[1].asInt() == 2);
    CHECK_FALSE(g.contains(g.findByName("g2")));
    CHECK_FALSE(g.contains(g.findByName("split")));
    CHECK(countOps(g, "aten::cat") == 0);
}

namespace {

/// split(x, [16]*4, 1) with getitems g0..g3 and a cat built by `make`.
Graph catOfSplit(const std::function<NodeId(ShapedGraph &, const std::vector<NodeId> &)> &make)
{
    ShapedGraph b;
    NodeId x = b.input("x", {8, 64});
    auto g = b.split(x, {16, 16, 16, 16}, 1, "split", "g");
    NodeId out = make(b, g);
    return b.finish({out, g[0], g[3]});
}

} // namespace

TEST_CASE("a split merge_getitem_cat_pass makes keeps the old split's items, as 2.6's copied meta does", "[patterns]")
{
    // 2.6's merge_getitem_cat copies the old split's meta["example_value"]
    // (four tensors) onto split(x, [64], 1), and remove_split_with_size_one
    // counts the sections there: the split stays (the oracle model
    // split_getitem_cat_in_order checks this against Inductor itself).
    // Only a rewriter in Inductor's metadata mode (the Inductor schedule's)
    // keeps the copy; Fusebox's own search removes the split.
    ShapedGraph b;
    NodeId x = b.input("x", {8, 64});
    auto items = b.split(x, {16, 16, 16, 16}, 1, "split", "g");
    Graph g = b.finish({b.op("aten::mul", {b.cat(items, 1, {8, 64}, "cat"), 2.0}, {8, 64}, "mul")});
    Graph plain = g.clone();
    CHECK(applyRule(plain, "merge_getitem_cat_pass") == 1);
    CHECK(applyRule(plain, "remove_split_with_size_one_pass") == 1);
    CHECK(outputs(plain) == std::vector<std::string>{"mul(x, 2.0)"});

    auto m = firstMatch(g, "merge_getitem_cat_pass");
    REQUIRE(m);
    PatternRewriter rewriter(g);
    rewriter.setCreatedBy("merge_getitem_cat_pass#1");
    rewriter.setInductorMetadata(true);
    REQUIRE(rule("merge_getitem_cat_pass").rewrite(rewriter, *m).succeeded());
    NodeId merged;
    for (NodeId id : g.nodeIds())
        if (g.node(id)->op == "aten::split_with_sizes")
            merged = id;
    REQUIRE(merged.isValid());
    CHECK(g.node(merged)->inductorMeta.copiedItemCount == 4);
    const std::string name = g.node(merged)->name;
    Check f = failureAt(g, "remove_split_with_size_one_pass", name);
    CHECK(f.description == "split's recorded example_value has one tensor");
    CHECK(f.actual
          == "split %" + name + " has one section, but its example_value holds 4 tensors: "
                 + g.node(merged)->provenance.createdBy + " copied it from the split it replaced");
    CHECK(applyRule(g, "remove_split_with_size_one_pass") == 0);
}

TEST_CASE("merge_getitem_cat_pass and mutate_cat_pass explain why they do not apply", "[patterns]")
{
    auto both = [](const Graph &g, const std::string &description, const std::string &actual) {
        for (const char *name : {"merge_getitem_cat_pass", "mutate_cat_pass"}) {
            INFO(name);
            Check f = failureAt(g, name, "cat");
            CHECK(f.description == description);
            CHECK(f.actual == actual);
        }
    };
    SECTION("the cat reads the split's list directly")
    {
        ShapedGraph b;
        NodeId x = b.input("x", {8, 64});
        NodeId s = b.listOp("aten::split_with_sizes", {x, intList({32, 32}), int64_t(1)}, "split");
        Graph g = b.finish({b.op("aten::cat", {s, int64_t(1)}, {8, 64}, "cat")});
        both(g, "cat takes a literal list of tensors", "%cat takes %split");
    }
    SECTION("an input is not a getitem")
    {
        Graph g = catOfSplit([](ShapedGraph &b, const std::vector<NodeId> &g) {
            NodeId y = b.input("y", {8, 16});
            return b.cat({g[1], y}, 1, {8, 32}, "cat");
        });
        both(g, "every cat input is a getitem", "cat input %y (input) is not a getitem");
    }
    SECTION("inputs from two splits")
    {
        Graph g = catOfSplit([](ShapedGraph &b, const std::vector<NodeId> &g) {
            auto h = b.split(b.input("y", {8, 32}), {16, 16}, 1, "split_y", "h");
            return b.cat({g[1], h[0]}, 1, {8, 32}, "cat");
        });
        both(g, "all cat inputs read the same node", "%g1 reads %split but %h0 reads %split_y");
    }
    SECTION("getitems of an unbind")
    {
        Graph g = catOfSplit([](ShapedGraph &b, const std::vector<NodeId> &) {
            auto u = b.unbind(b.input("y", {2, 8, 16}), 0, "unbind", "u");
            return b.cat(u, 1, {8, 32}, "cat");
        });
        both(g, "the getitems read a split", "the getitems read %unbind (aten::unbind), not a split");
    }
    SECTION("the split is read directly by another node")
    {
        Graph g = catOfSplit([](ShapedGraph &b, const std::vector<NodeId> &g) {
            NodeId split = b.g.findByName("split");
            b.build.addOp("prim::ListUnpack", {split}, {}, "unpack");
            return b.cat({g[1], g[2]}, 1, {8, 32}, "cat");
        });
        both(g, "every user of the split is a getitem with a distinct index",
             "%unpack reads %split directly (not a getitem)");
    }
    SECTION("the cat joins on another dim")
    {
        Graph g = catOfSplit([](ShapedGraph &b, const std::vector<NodeId> &g) {
            return b.cat({g[1], g[2]}, 0, {16, 16}, "cat");
        });
        both(g, "cat dim equals split dim", "cat dim 0 ≠ split dim 1");
    }
    SECTION("indices out of order")
    {
        Graph g = catOfSplit([](ShapedGraph &b, const std::vector<NodeId> &g) {
            return b.cat({g[2], g[1]}, 1, {8, 32}, "cat");
        });
        both(g, "getitem indices are sorted and consecutive", "indices [2, 1] are not sorted and consecutive");
    }
    SECTION("a getitem used elsewhere stops only merge_getitem_cat_pass")
    {
        Graph g = catOfSplit([](ShapedGraph &b, const std::vector<NodeId> &g) {
            NodeId cat = b.cat({g[0], g[1]}, 1, {8, 32}, "cat");
            return cat;
        });
        Check f = failureAt(g, "merge_getitem_cat_pass", "cat");
        CHECK(f.description == "each getitem is used once");
        CHECK(f.actual == "getitem %g0 has 2 users (needs 1)");
        CHECK(matchAt(g, "mutate_cat_pass", "cat").anchor == named(g, "cat"));
    }
}

TEST_CASE("mutate_cat_pass replaces the cat by the input or a slice", "[patterns]")
{
    Graph g = mutateCatGraph();
    CHECK(applyRule(g, "mutate_cat_pass") == 2);
    CHECK(outputs(g)
          == std::vector<std::string>{"x", "slice.Tensor(x, 1, 16, 48, 1)",
                                      "relu(getitem(split_with_sizes(x, [16, 16, 16, 16], 1), 0))"});
    CHECK(outputShape(g, 1) == "[8, 32]");
    // As Inductor's mutate_cat_node: only the cats go; the getitems they read
    // stay, dead (checked against Inductor by the oracle's split_cat_all_sections).
    CHECK(countOps(g, "aten::cat") == 0);
    CHECK(countOps(g, "getitem") == 4);
}

TEST_CASE("merge_stack_tahn_unbind_pass runs tanh once on the merged section", "[patterns]")
{
    Graph g = mergeStackTanhUnbindGraph();
    Match m = matchAt(g, "merge_stack_tahn_unbind_pass", "tanh");
    CHECK(m.nodes
          == std::vector<NodeId>{named(g, "tanh"), named(g, "stack"), named(g, "unbind"), named(g, "g1"),
                                 named(g, "g2"), named(g, "split")});
    CHECK(applyRule(g, "merge_stack_tahn_unbind_pass") == 1);
    const std::string split = "split_with_sizes(x, [16, 32, 16], 1)";
    const std::string resplit = "split_with_sizes(tanh(getitem(" + split + ", 1)), [16, 16], 1)";
    CHECK(outputs(g)
          == std::vector<std::string>{"getitem(" + split + ", 0)", "relu(getitem(" + resplit + ", 0))",
                                      "getitem(" + resplit + ", 1)", "getitem(" + split + ", 2)"});
    CHECK(g.node(named(g, "g1"))->meta.shapeString() == "[8, 32]");
    CHECK(countOps(g, "aten::stack") == 0);
    CHECK(countOps(g, "aten::unbind") == 0);
    CHECK(countOps(g, "aten::tanh") == 1);
    for (NodeId id : g.nodeIds())
        if (g.node(id)->op == "aten::tanh")
            CHECK(g.node(id)->meta.shapeString() == "[8, 32]");
}

namespace {

/// split -> stack([g1, g2], stackDim) -> tanh -> user built by `tail`.
Graph tanhChain(int64_t stackDim, const std::function<std::vector<NodeId>(ShapedGraph &, NodeId tanh)> &tail,
                std::vector<int64_t> picked = {1, 2})
{
    ShapedGraph b;
    NodeId x = b.input("x", {8, 64});
    auto g = b.split(x, {16, 16, 16, 16}, 1, "split", "g");
    Shape shape{8, 16};
    shape.insert(shape.begin() + stackDim, 2);
    NodeId st = b.stack({g[size_t(picked[0])], g[size_t(picked[1])]}, stackDim, shape, "stack");
    NodeId t = b.op("aten::tanh", {st}, shape, "tanh");
    auto out = tail(b, t);
    out.push_back(g[0]);
    return b.finish(out);
}

std::vector<NodeId> unbindAll(ShapedGraph &b, NodeId t, int64_t dim)
{
    return b.unbind(t, dim, "unbind", "u");
}

} // namespace

TEST_CASE("merge_stack_tahn_unbind_pass explains why it does not apply", "[patterns]")
{
    auto failure = [](const Graph &g) { return failureAt(g, "merge_stack_tahn_unbind_pass", "tanh"); };
    SECTION("tanh of something else")
    {
        ShapedGraph b;
        NodeId x = b.input("x", {8, 64});
        Graph g = b.finish({b.op("aten::tanh", {x}, {8, 64}, "tanh")});
        CHECK(failure(g).description == "tanh input is a stack");
        CHECK(failure(g).actual == "%tanh reads %x (input)");
    }
    SECTION("the stack is read elsewhere")
    {
        Graph g = tanhChain(0, [](ShapedGraph &b, NodeId t) {
            auto u = unbindAll(b, t, 0);
            u.push_back(b.g.findByName("stack"));
            return u;
        });
        CHECK(failure(g).description == "stack is used only by the tanh");
        CHECK(failure(g).actual == "stack %stack has 2 users (needs 1)");
    }
    SECTION("tanh read twice")
    {
        Graph g = tanhChain(0, [](ShapedGraph &b, NodeId t) {
            auto u = unbindAll(b, t, 0);
            u.push_back(b.relu(t, "relu"));
            return u;
        });
        CHECK(failure(g).description == "tanh is used only by an unbind");
        CHECK(failure(g).actual == "tanh %tanh has 2 users (needs 1)");
    }
    SECTION("tanh read by something else")
    {
        Graph g = tanhChain(0, [](ShapedGraph &b, NodeId t) { return std::vector<NodeId>{b.relu(t, "relu")}; });
        CHECK(failure(g).description == "tanh is used only by an unbind");
        CHECK(failure(g).actual == "tanh %tanh is read by %relu (aten::relu), not an unbind");
    }
    SECTION("unbind on another dim")
    {
        Graph g = tanhChain(0, [](ShapedGraph &b, NodeId t) { return unbindAll(b, t, 1); });
        CHECK(failure(g).description == "stack dim equals unbind dim");
        CHECK(failure(g).actual == "stack dim 0 ≠ unbind dim 1");
    }
    SECTION("a stacked getitem read elsewhere")
    {
        Graph g = tanhChain(0, [](ShapedGraph &b, NodeId t) {
            auto u = unbindAll(b, t, 0);
            u.push_back(b.g.findByName("g1"));
            return u;
        });
        CHECK(failure(g).description == "each getitem is used once");
        CHECK(failure(g).actual == "getitem %g1 has 2 users (needs 1)");
    }
    SECTION("sections out of order")
    {
        Graph g = tanhChain(0, [](ShapedGraph &b, NodeId t) { return unbindAll(b, t, 0); }, {2, 1});
        CHECK(failure(g).description == "getitem indices are sorted and consecutive");
        CHECK(failure(g).actual == "indices [2, 1] are not sorted and consecutive");
    }
    SECTION("the unbind's list read directly")
    {
        Graph g = tanhChain(0, [](ShapedGraph &b, NodeId t) {
            NodeId u = b.listOp("aten::unbind", {t, int64_t(0)}, "unbind", "int");
            return std::vector<NodeId>{b.op("aten::stack", {u, int64_t(0)}, {2, 8, 16}, "restack")};
        });
        CHECK(failure(g).description == "every user of the unbind is a getitem with a distinct index");
        CHECK(failure(g).actual == "%restack reads %unbind directly (not a getitem)");
    }
}

TEST_CASE("merge_splits_pass splices the inner split into the outer one", "[patterns]")
{
    Graph g = mergeSplitsGraph();
    CHECK(matchAt(g, "merge_splits_pass", "split2").nodes
          == std::vector<NodeId>{named(g, "split2"), named(g, "g1"), named(g, "split"), named(g, "g0"), named(g, "g2"),
                                 named(g, "h0"), named(g, "h1")});
    CHECK(applyRule(g, "merge_splits_pass") == 1);
    const std::string split = "split_with_sizes(x, [16, 8, 24, 16], 1)";
    CHECK(outputs(g)
          == std::vector<std::string>{"getitem(" + split + ", 0)", "getitem(" + split + ", 1)",
                                      "relu(getitem(" + split + ", 2))", "getitem(" + split + ", 3)"});
    CHECK(countOps(g, "aten::split_with_sizes") == 1);
    CHECK(g.node(named(g, "h1"))->meta.shapeString() == "[8, 24]");
}

TEST_CASE("merge_splits_pass explains why it does not apply", "[patterns]")
{
    auto failure = [](const Graph &g) { return failureAt(g, "merge_splits_pass", "split2"); };
    SECTION("the split reads no getitem")
    {
        ShapedGraph b;
        NodeId x = b.input("x", {8, 64});
        auto h = b.split(x, {32, 32}, 1, "split2", "h");
        Graph g = b.finish({h[0]});
        CHECK(failure(g).description == "the split reads a getitem");
        CHECK(failure(g).actual == "%split2 reads %x (input), not a getitem");
    }
    SECTION("the getitem reads an unbind")
    {
        ShapedGraph b;
        auto u = b.unbind(b.input("x", {2, 8, 64}), 0, "unbind", "u");
        auto h = b.split(u[0], {32, 32}, 1, "split2", "h");
        Graph g = b.finish({h[0], u[1]});
        CHECK(failure(g).description == "the getitem reads a split");
        CHECK(failure(g).actual == "getitem %u0 reads %unbind (aten::unbind), not a split");
    }
    SECTION("the section is read elsewhere")
    {
        ShapedGraph b;
        auto g1 = b.split(b.input("x", {8, 64}), {16, 48}, 1, "split", "g");
        auto h = b.split(g1[1], {24, 24}, 1, "split2", "h");
        Graph g = b.finish({h[0], g1[1]});
        CHECK(failure(g).description == "the getitem between the splits is used only by the second split");
        CHECK(failure(g).actual == "getitem %g1 has 2 users (needs 1)");
    }
    SECTION("splits on different dims")
    {
        ShapedGraph b;
        auto g1 = b.split(b.input("x", {8, 64}), {16, 48}, 1, "split", "g");
        auto h = b.split(g1[1], {4, 4}, 0, "split2", "h");
        Graph g = b.finish({h[0], g1[0]});
        CHECK(failure(g).description == "both splits split the same dim");
        CHECK(failure(g).actual == "first split dim 1 ≠ second split dim 0");
    }
    SECTION("the second split is never read")
    {
        ShapedGraph b;
        auto g1 = b.split(b.input("x", {8, 64}), {16, 48}, 1, "split", "g");
        b.listOp("aten::split_with_sizes", {g1[1], intList({24, 24}), int64_t(1)}, "split2");
        Graph g = b.finish({g1[0]});
        CHECK(failure(g).description == "the second split has users");
        CHECK(failure(g).actual == "split %split2 has no users");
    }
    SECTION("the inner split is not normalized")
    {
        ShapedGraph b;
        auto g1 = b.split(b.input("x", {8, 64}), {16, 48}, 1, "split", "g");
        NodeId s2 = b.listOp("aten::split", {g1[1], int64_t(24), int64_t(1)}, "split2", "Tensor");
        Graph g = b.finish({b.item(s2, 0, {8, 24}, "h0")});
        CHECK(failure(g).description == "split is normalized");
        CHECK(failure(g).actual == "split %split2 is not normalized (sections unknown): run normalization_pass first");
    }
}

TEST_CASE("einsum_to_pointwise_pass turns an abc,abcd->abd einsum a + reads into a multiply and a sum", "[patterns]")
{
    // As Dynamo records it: torch.functional.einsum kept as written, `+` as operator.add.
    ShapedGraph b;
    NodeId x = b.input("x", {4, 3, 8});
    NodeId w = b.input("w", {4, 3, 8, 5});
    NodeId bias = b.input("b", {4, 3, 5});
    auto einsum = [&](const std::string &equation, const std::string &name) {
        return b.op("torch.functional.einsum", {Arg(equation), x, w}, {4, 3, 5}, name);
    };
    auto plus = [&](NodeId a, const std::string &name) {
        NodeId id = b.op("aten::add", {a, bias}, {4, 3, 5}, name, "Tensor");
        b.build.node(id).provenance.originalSpelling = "operator.add";
        return id;
    };
    NodeId added = plus(einsum("bij,bijk->bik", "e1"), "add1");
    NodeId other = plus(einsum("bij,bijk->bki", "e2"), "add2");
    NodeId alone = b.op("aten::relu", {einsum("bij, bijk -> bik", "e3")}, {4, 3, 5}, "relu");
    Graph g = b.finish({added, other, alone});

    CHECK(failureAt(g, "einsum_to_pointwise_pass", "e2").description
          == "the equation is \"abc,abcd->abd\" in form (match_einsum_strings)");
    CHECK(failureAt(g, "einsum_to_pointwise_pass", "e3").description == "some user is a + (operator.add or x.add)");
    CHECK(applyRule(g, "einsum_to_pointwise_pass") == 1);
    CHECK(outputs(g)[0] == "add.Tensor(sum.dim_IntList(mul.Tensor(unsqueeze(x, -1), w), [-2]), b)");
    CHECK(outputShape(g, 0) == "[4, 3, 5]");
    CHECK(countOps(g, "torch.functional.einsum") == 2);
}
