// sink_cat_after_pointwise, the permute fusions, unbind_stack_aten_pass.

#include "core/ir/GraphBuilder.h"
#include "SplitCatTestSupport.h"

using namespace fusebox;
using namespace fusebox::test::sc;

TEST_CASE("sink_cat_after_pointwise applies relu to each cat input", "[patterns]")
{
    Graph g = sinkCatGraph();
    CHECK(matchAt(g, "sink_cat_after_pointwise", "cat").nodes
          == std::vector<NodeId>{named(g, "cat"), named(g, "view"), named(g, "relu")});
    CHECK(applyRule(g, "sink_cat_after_pointwise") == 1);
    CHECK(outputs(g) == std::vector<std::string>{"neg(view(cat([relu(a), relu(b)], 1), [8, 4]))"});
    CHECK(g.node(named(g, "view"))->meta.shapeString() == "[8, 4]");
    CHECK(countOps(g, "aten::relu") == 2);
}

TEST_CASE("sink_cat_after_pointwise explains why it does not apply", "[patterns]")
{
    auto chain = [](bool twoCatUsers, bool twoViewUsers, const std::string &last) {
        ShapedGraph b;
        NodeId cat = b.cat({b.input("a", {4, 3}), b.input("b", {4, 5})}, 1, {4, 8}, "cat");
        NodeId v = b.op("aten::view", {cat, intList({8, 4})}, {8, 4}, "view");
        std::vector<NodeId> out{b.op(last, {v}, {8, 4}, "last")};
        if (twoCatUsers)
            out.push_back(cat);
        if (twoViewUsers)
            out.push_back(v);
        return b.finish(out);
    };
    Check f = failureAt(chain(true, false, "aten::tanh"), "sink_cat_after_pointwise", "cat");
    CHECK(f.description == "the cat and each view after it have one user");
    CHECK(f.actual == "%cat has 2 users (needs 1)");
    f = failureAt(chain(false, true, "aten::tanh"), "sink_cat_after_pointwise", "cat");
    CHECK(f.actual == "%view has 2 users (needs 1)");
    f = failureAt(chain(false, false, "aten::neg"), "sink_cat_after_pointwise", "cat");
    CHECK(f.description == "the chain from the cat through views ends in relu or tanh");
    CHECK(f.actual == "%view is read by %last (aten::neg), not relu/tanh");

    Graph tanh = chain(false, false, "aten::tanh");
    CHECK(applyRule(tanh, "sink_cat_after_pointwise") == 1);
    CHECK(outputs(tanh) == std::vector<std::string>{"view(cat([tanh(a), tanh(b)], 1), [8, 4])"});
}

TEST_CASE("permute_linear_fusion folds the permute into a transposed matmul", "[patterns]")
{
    Graph g = permuteLinearGraph();
    CHECK(matchAt(g, "permute_linear_fusion", "linear").nodes
          == std::vector<NodeId>{named(g, "linear"), named(g, "permute")});
    CHECK(applyRule(g, "permute_linear_fusion") == 1);
    CHECK(outputs(g) == std::vector<std::string>{"add.Tensor(matmul(transpose.int(x, -1, -2), t(w)), bias)"});
    CHECK(outputShape(g, 0) == "[2, 4, 16]");
    CHECK(countOps(g, "aten::permute") == 0);
}

TEST_CASE("permute fusions explain which permutes they take", "[patterns]")
{
    auto linearOf = [](const std::vector<int64_t> &dims, const Shape &xShape, bool withMeta) {
        ShapedGraph b;
        GraphBuilder build(b.g);
        NodeId x = withMeta ? b.input("x", xShape) : build.addInput("x");
        NodeId p = build.addOp("aten::permute", {x, intList(dims)}, {}, "permute");
        NodeId lin = build.addOp("aten::linear", {p, b.input("w", {16, 8}), NoneArg{}}, {}, "linear");
        return b.finish({lin});
    };
    Check f = failureAt(linearOf({1, 0, 2}, {8, 2, 4}, true), "permute_linear_fusion", "linear");
    CHECK(f.description == "the permute swaps the last two dims (rank >= 3)");
    CHECK(f.actual == "permute %permute has dims [1, 0, 2] (needs [0, 2, 1])");
    f = failureAt(linearOf({1, 0}, {8, 4}, true), "permute_linear_fusion", "linear");
    CHECK(f.actual == "permute %permute permutes 2 dims (needs at least 3)");
    f = failureAt(linearOf({0, 2, 1}, {}, false), "permute_linear_fusion", "linear");
    CHECK(f.actual == "the rank of permute %permute is unknown");

    ShapedGraph b;
    NodeId x = b.input("x", {2, 4, 8});
    Graph plain = b.finish({b.op("aten::linear", {x, b.input("w", {16, 8}), NoneArg{}}, {2, 4, 16}, "linear")});
    f = failureAt(plain, "permute_linear_fusion", "linear");
    CHECK(f.actual == "%x (input) is not a permute");

    // Without bias the linear becomes a plain matmul.
    Graph ok = linearOf({0, 2, 1}, {2, 8, 4}, true);
    CHECK(applyRule(ok, "permute_linear_fusion") == 1);
    CHECK(outputs(ok) == std::vector<std::string>{"matmul(transpose.int(x, -1, -2), t(w))"});
}

TEST_CASE("permute_matmul_fusion transposes either operand of matmul or bmm", "[patterns]")
{
    Graph g = permuteMatmulGraph();
    CHECK(applyRule(g, "permute_matmul_fusion") == 2);
    CHECK(outputs(g)
          == std::vector<std::string>{"matmul(matmul(transpose.int(a, -1, -2), c), transpose.int(d, -1, -2))"});
    CHECK(outputShape(g, 0) == "[2, 4, 3]");

    ShapedGraph b;
    NodeId a = b.input("a", {2, 4, 8}), c = b.input("c", {2, 8, 5});
    Graph plain = b.finish({b.op("aten::matmul", {a, c}, {2, 4, 5}, "matmul")});
    Check f = failureAt(plain, "permute_matmul_fusion", "matmul");
    CHECK(f.description == "an operand is a permute swapping the last two dims (rank >= 3)");
    CHECK(f.actual == "%a (input) is not a permute; %c (input) is not a permute");
}

TEST_CASE("linear_permute_fusion computes the permuted linear as w @ x^T", "[patterns]")
{
    Graph g = linearPermuteGraph();
    CHECK(matchAt(g, "linear_permute_fusion", "permute").nodes
          == std::vector<NodeId>{named(g, "permute"), named(g, "linear")});
    CHECK(applyRule(g, "linear_permute_fusion") == 1);
    CHECK(outputs(g) == std::vector<std::string>{"add.Tensor(matmul(w, transpose.int(x, -1, -2)), unsqueeze(bias, 1))"});
    CHECK(outputShape(g, 0) == "[2, 16, 4]");
    CHECK(countOps(g, "aten::linear") == 0);

    ShapedGraph b;
    NodeId x = b.input("x", {2, 4, 8});
    Graph plain = b.finish({b.op("aten::permute", {x, intList({0, 2, 1})}, {2, 8, 4}, "permute")});
    Check f = failureAt(plain, "linear_permute_fusion", "permute");
    CHECK(f.description == "the permute reads a linear");
    CHECK(f.actual == "%permute reads %x (input)");
}

TEST_CASE("unbind_stack_aten_pass replaces the cat of unsqueezed selects by the selected node", "[patterns]")
{
    Graph g = unbindStackAtenGraph();
    CHECK(matchAt(g, "unbind_stack_aten_pass", "cat").nodes.size() == 7);
    CHECK(rule("unbind_stack_aten_pass").stage() == PassStage::PostGrad);
    CHECK(applyRule(g, "unbind_stack_aten_pass") == 1);
    CHECK(outputs(g) == std::vector<std::string>{"relu(relu(p))"});
    CHECK(countOps(g, "aten::select") == 0);
    CHECK(countOps(g, "aten::unsqueeze") == 0);
}

namespace {

struct AtenCase {
    Shape parent{3, 4};
    std::vector<int64_t> indices{0, 1, 2};
    int64_t selectDim = 0;
    int64_t unsqueezeDim = 0;
    bool extraUse = false;
    bool otherParent = false;
    bool plainInput = false;
    bool unsqueezeOfInput = false;
};

Graph atenGraph(const AtenCase &c)
{
    ShapedGraph b;
    NodeId q = b.relu(b.input("p", c.parent), "q");
    NodeId other = b.relu(b.input("o", c.parent), "o2");
    std::vector<NodeId> parts;
    for (size_t i = 0; i < c.indices.size(); ++i) {
        if (c.plainInput && i == 0) {
            parts.push_back(b.input("y", {1, 4}));
            continue;
        }
        NodeId source = c.otherParent && i == 1 ? other : q;
        NodeId s = c.unsqueezeOfInput && i == 0 ? source
                                                : b.op("aten::select", {source, c.selectDim, c.indices[i]}, {4},
                                                       "select" + std::to_string(i), "int");
        parts.push_back(b.op("aten::unsqueeze", {s, c.unsqueezeDim}, {1, 4}, "unsqueeze" + std::to_string(i)));
    }
    std::vector<NodeId> out{b.cat(parts, 0, {3, 4}, "cat"), other};
    if (c.extraUse)
        out.push_back(q);
    return b.finish(out);
}

} // namespace

TEST_CASE("unbind_stack_aten_pass explains why it does not apply", "[patterns]")
{
    auto failure = [](const AtenCase &c) { return failureAt(atenGraph(c), "unbind_stack_aten_pass", "cat"); };
    AtenCase c;
    c.plainInput = true;
    CHECK(failure(c).description == "every cat input is an unsqueeze");
    CHECK(failure(c).actual == "cat input %y (input) is not an unsqueeze");
    c = {};
    c.unsqueezeOfInput = true;
    CHECK(failure(c).description == "every unsqueeze reads a select");
    CHECK(failure(c).actual == "%unsqueeze0 reads %q (aten::relu), not a select");
    c = {};
    c.otherParent = true;
    CHECK(failure(c).description == "all selects read the same node");
    CHECK(failure(c).actual == "%select0 reads %q but %select1 reads %o2");
    c = {};
    c.selectDim = 1;
    c.parent = {4, 3};
    c.indices = {0, 1, 2, 3};
    CHECK(failure(c).description == "every select takes the cat dim");
    CHECK(failure(c).actual == "select %select0 has dim 1, the cat dim is 0");
    c = {};
    c.unsqueezeDim = 1;
    CHECK(failure(c).description == "every unsqueeze inserts the cat dim");
    CHECK(failure(c).actual == "unsqueeze %unsqueeze0 has dim 1, the cat dim is 0");
    c = {};
    c.indices = {0, 2, 1};
    CHECK(failure(c).description == "select indices are 0, 1, ..., n-1 in order");
    CHECK(failure(c).actual == "indices [0, 2, 1]");
    c = {};
    c.extraUse = true;
    CHECK(failure(c).description == "the selected node is read only by these selects");
    CHECK(failure(c).actual == "%q has 4 users; the cat joins 3 selects");
    c = {};
    c.parent = {5, 4};
    CHECK(failure(c).description == "the selects cover the selected node along the cat dim");
    CHECK(failure(c).actual == "%q has shape [5, 4]; the cat joins 3 selects along dim 0");
}
