// Pattern files compiled into VerticalPatterns (patterns/custom): the example
// files of resources/patterns fire where expected, explain where they do not,
// and the compiler reports bad patterns with file:line:col.

#include "core/ir/GraphBuilder.h"
#include "SplitCatTestSupport.h"

#include "core/io/PatternFile.h"
#include "core/ir/OpSchema.h"
#include "core/rewrite/Explainer.h"
#include "core/rewrite/GreedyDriver.h"
#include "patterns/custom/FilePattern.h"
#include "patterns/custom/PatternCompiler.h"

using namespace fusebox;
using namespace fusebox::test::sc;

namespace {

const std::string kDir = std::string(FUSEBOX_SOURCE_DIR) + "/resources/patterns/";

PatternSet loadSet(const std::string &file, const OpSchemaRegistry *schemas = nullptr)
{
    PatternSet set;
    Status s = addPatternFile(set, kDir + file, schemas);
    INFO((s ? std::string() : s.error().message));
    REQUIRE(s.isOk());
    return set;
}

/// Compiles pattern text; REQUIREs success.
PatternSet compileText(const std::string &text, const OpSchemaRegistry *schemas = nullptr)
{
    PatternFileReadOptions options;
    options.sourceName = "t.patterns";
    auto file = parsePatternFile(text, options);
    INFO((file ? std::string() : file.error().message));
    REQUIRE(file.hasValue());
    auto patterns = compilePatterns(*file, schemas);
    INFO((patterns ? std::string() : patterns.error().message));
    REQUIRE(patterns.hasValue());
    PatternSet set;
    for (auto &p : *patterns)
        set.add(std::move(p));
    return set;
}

/// The compiler's error for text (parsing must succeed).
std::string compileError(const std::string &text, const OpSchemaRegistry *schemas = nullptr)
{
    PatternFileReadOptions options;
    options.sourceName = "t.patterns";
    auto file = parsePatternFile(text, options);
    INFO((file ? std::string() : file.error().message));
    REQUIRE(file.hasValue());
    auto patterns = compilePatterns(*file, schemas);
    REQUIRE_FALSE(patterns.hasValue());
    return patterns.error().message;
}

size_t applied(const DriverResult &r, const std::string &pattern)
{
    auto it = r.counters.find(pattern);
    return it == r.counters.end() ? 0 : it->second.applied;
}

DriverResult runSet(const PatternSet &set, Graph &g)
{
    DriverResult r = GreedyDriver(set).run(g);
    INFO(formatIssues(verify(g)));
    CHECK(verify(g).empty());
    return r;
}

Check failureOf(const Graph &g, const PatternSet &set, const std::string &pattern, const std::string &node)
{
    Explanation e = explain(g, *set.find(pattern), named(g, node));
    REQUIRE_FALSE(e.matched);
    REQUIRE(e.failure() != nullptr);
    return *e.failure();
}

/// x[4, cols] -> linear(x, w, b)[4, 8] -> act; output act (and extra outputs).
Graph linearActGraph(const std::string &act, int64_t cols, bool yTwice = false)
{
    ShapedGraph b;
    NodeId x = b.input("x", {4, cols});
    NodeId w = b.input("w", {8, cols});
    NodeId bias = b.input("bias", {8});
    NodeId y = b.op("aten::linear", {x, w, bias}, {4, 8}, "y");
    NodeId r = b.op(act, {y}, {4, 8}, "r");
    std::vector<NodeId> outs{r};
    if (yTwice)
        outs.push_back(b.op("aten::neg", {y}, {4, 8}, "other"));
    return b.finish(outs);
}

/// t[8, 16] -> split.Tensor(t, 4, 1) -> getitems `indices` -> cat(.., 1) -> relu.
Graph catOfSlicesGraph(const std::vector<int64_t> &indices, bool useFirstElsewhere = false)
{
    ShapedGraph b;
    NodeId t = b.input("t", {8, 16});
    NodeId s = b.listOp("aten::split", {t, int64_t(4), int64_t(1)}, "split", "Tensor");
    std::vector<NodeId> items;
    for (int64_t i : indices)
        items.push_back(b.item(s, i, {8, 4}, "g" + std::to_string(i)));
    NodeId c = b.op("aten::cat", {nodeList(items), int64_t(1)}, {8, int64_t(4 * indices.size())}, "cat");
    std::vector<NodeId> outs{b.relu(c, "out")};
    if (useFirstElsewhere)
        outs.push_back(b.item(s, 0, {8, 4}, "g0_elsewhere"));
    return b.finish(outs);
}

} // namespace

TEST_CASE("linear_relu_fusion / linear_gelu_fusion fire on their activation and keep the output's metadata",
          "[patterns][custom]")
{
    PatternSet set = loadSet("linear_relu_fusion.patterns");
    const Pattern &p = *set.find("linear_relu_fusion");
    CHECK(p.benefit() == 10);
    CHECK(p.stage() == PassStage::PostGrad);
    CHECK(p.rootOps() == std::vector<std::string>{"aten::relu"});
    CHECK(set.find("linear_gelu_fusion")->rootOps() == std::vector<std::string>{"aten::gelu"});
    for (auto [act, fused] : {std::pair<std::string, std::string>{"aten::relu", "linear_relu"},
                              std::pair<std::string, std::string>{"aten::gelu", "linear_gelu"}}) {
        Graph g = linearActGraph(act, 16);
        DriverResult r = runSet(set, g);
        CHECK(applied(r, fused + "_fusion") == 1);
        CHECK(outputs(g) == std::vector<std::string>{"fusebox::" + fused + "(x, w, bias)"});
        CHECK(outputShape(g, 0) == "[4, 8]");
        CHECK(countOps(g, "aten::linear") == 0);
    }
}

TEST_CASE("linear_relu_fusion explains the failed constraint", "[patterns][custom]")
{
    PatternSet set = loadSet("linear_relu_fusion.patterns");
    Graph twice = linearActGraph("aten::relu", 16, true);
    Check f = failureOf(twice, set, "linear_relu_fusion", "r");
    CHECK(f.description == "users(y) == 1");
    CHECK(f.actual == "users(%y) is 2");
    CHECK(runSet(set, twice).rewrites.empty());

    Graph narrow = linearActGraph("aten::relu", 12);
    f = failureOf(narrow, set, "linear_relu_fusion", "r");
    CHECK(f.description == "shape(x)[1] % 8 == 0");
    CHECK(f.actual == "shape(%x)[1] is 12");

    Graph half = linearActGraph("aten::relu", 16);
    GraphBuilder::reopen(half).node(half.findByName("x")).meta.dtype = DType::Float16;
    f = failureOf(half, set, "linear_relu_fusion", "r");
    CHECK(f.description == "dtype(x) in [f32, bf16]");
    CHECK(f.actual == "dtype(%x) is f16");

    Graph symbolic = linearActGraph("aten::relu", 16);
    GraphBuilder::reopen(symbolic).node(symbolic.findByName("x")).meta.shape = std::vector<Dim>{int64_t(4),
                                                                                                std::string("s0")};
    f = failureOf(symbolic, set, "linear_relu_fusion", "r");
    CHECK(f.description == "shape(x)[1] % 8 == 0");
    CHECK(f.actual == "shape(%x)[1] is unknown");

    Graph sigmoid = linearActGraph("aten::sigmoid", 16);
    CHECK(runSet(set, sigmoid).rewrites.empty());
}

TEST_CASE("a matched value used outside the match makes the match fail", "[patterns][custom]")
{
    PatternSet set = compileText("pattern fuse {\n match {\n  y = aten::linear(x, w, b)\n  r = aten::relu(y)\n }\n"
                                 " replace {\n  r = fusebox::linear_relu(x, w, b)\n }\n}\n");
    Graph g = linearActGraph("aten::relu", 16, true);
    Check f = failureOf(g, set, "fuse", "r");
    CHECK(f.description == "only pattern outputs are used outside the match");
    CHECK(f.actual == "%y is used outside the match by %other (only pattern outputs may be)");
    CHECK(f.nodes == std::vector<NodeId>{named(g, "y"), named(g, "other")});
    CHECK(set.find("fuse")->benefit() == 1);
}

TEST_CASE("cat_of_slices binds the variadic indices and rewrites to one slice", "[patterns][custom]")
{
    PatternSet set = loadSet("cat_of_slices.patterns");
    Graph g = catOfSlicesGraph({1, 2, 3});
    const auto &fp = dynamic_cast<const custom::FilePattern &>(*set.find("cat_of_slices"));
    CHECK(fp.stage() == PassStage::PreGrad);
    auto bound = fp.bind(g, named(g, "cat"));
    REQUIRE(bound);
    const auto &index = fp.compiled().captureIndex;
    CHECK(bound->captures[size_t(index.at("i"))] == intList({1, 2, 3}));
    CHECK(bound->captures[size_t(index.at("size"))] == Arg(int64_t(4)));
    CHECK(bound->matched.size() == 5); // cat, three getitems, split

    DriverResult r = runSet(set, g);
    CHECK(applied(r, "cat_of_slices") == 1);
    CHECK(outputs(g) == std::vector<std::string>{"relu(slice.Tensor(t, 1, 4, 16, 1))"});
    CHECK(countOps(g, "aten::split") == 0);
    CHECK(countOps(g, "getitem") == 0);
    CHECK(outputShape(g, 0) == "[8, 12]");
}

TEST_CASE("cat_of_slices explains non-consecutive indices and outside uses", "[patterns][custom]")
{
    PatternSet set = loadSet("cat_of_slices.patterns");
    Graph gaps = catOfSlicesGraph({0, 2});
    Check f = failureOf(gaps, set, "cat_of_slices", "cat");
    CHECK(f.description == "consecutive(i)");
    CHECK(f.actual == "consecutive(i) is False, i is [0, 2]");
    CHECK(runSet(set, gaps).rewrites.empty());

    Graph shared = catOfSlicesGraph({1, 2}, true);
    f = failureOf(shared, set, "cat_of_slices", "cat");
    CHECK(f.actual == "%split is used outside the match by %g0_elsewhere (only pattern outputs may be)");

    Graph single = catOfSlicesGraph({1});
    f = failureOf(single, set, "cat_of_slices", "cat");
    CHECK(f.description == "len(i) >= 2");
}

TEST_CASE("captured values inside a variadic template bind lists of nodes", "[patterns][custom]")
{
    PatternSet set = compileText("pattern p {\n match {\n  c = aten::cat([aten::relu(v)...], d)\n }\n"
                                 " where {\n  d == 0\n }\n replace {\n  c = aten::cat(v, d)\n }\n}\n");
    ShapedGraph b;
    NodeId x = b.input("x", {2, 4}), y = b.input("y", {2, 4});
    NodeId c = b.op("aten::cat", {nodeList({b.relu(x, "rx"), b.relu(y, "ry")}), int64_t(0)}, {4, 4}, "cat");
    Graph g = b.finish({c});
    const auto &fp = dynamic_cast<const custom::FilePattern &>(*set.find("p"));
    auto bound = fp.bind(g, named(g, "cat"));
    REQUIRE(bound);
    CHECK(bound->captures[size_t(fp.compiled().captureIndex.at("v"))] == nodeList({named(g, "x"), named(g, "y")}));
    CHECK(applied(runSet(set, g), "p") == 1);
    CHECK(outputs(g) == std::vector<std::string>{"cat([x, y], 0)"});
}

TEST_CASE("add_of_matmuls matches through the add and rewrites to one matmul", "[patterns][custom]")
{
    PatternSet set = loadSet("add_of_matmuls.patterns");
    auto build = [](bool pTwice) {
        ShapedGraph b;
        NodeId a = b.input("a", {4, 8}), bb = b.input("b", {8, 6}), c = b.input("c", {8, 6});
        NodeId p = b.op("aten::mm", {a, bb}, {4, 6}, "p"), q = b.op("aten::mm", {a, c}, {4, 6}, "q");
        NodeId s = b.op("aten::add", {p, q}, {4, 6}, "s", "Tensor");
        std::vector<NodeId> outs{s};
        if (pTwice)
            outs.push_back(b.relu(p, "extra"));
        return b.finish(outs);
    };
    Graph g = build(false);
    DriverResult r = runSet(set, g);
    CHECK(applied(r, "add_of_matmuls") == 1);
    CHECK(outputs(g) == std::vector<std::string>{"mm(a, add.Tensor(b, c))"});
    CHECK(outputShape(g, 0) == "[4, 6]");

    Graph twice = build(true);
    Check f = failureOf(twice, set, "add_of_matmuls", "s");
    CHECK(f.description == "users(p) == 1 and users(q) == 1");
    CHECK(f.actual == "users(%p) is 2, users(%q) is 1");
}

TEST_CASE("matmuls_sharing_lhs finds the second matmul among the users of the shared operand", "[patterns][custom]")
{
    PatternSet set = loadSet("add_of_matmuls.patterns");
    set.setEnabled("add_of_matmuls", false);
    CHECK(set.find("matmuls_sharing_lhs")->options().getInt("min_fuse_set_size") == 2);
    auto build = [](DType cType) {
        ShapedGraph b;
        NodeId a = b.input("a", {4, 8}), bb = b.input("b", {8, 6}), c = b.input("c", {8, 3});
        b.build.node(c).meta.dtype = cType;
        NodeId p = b.op("aten::mm", {a, bb}, {4, 6}, "p"), q = b.op("aten::mm", {a, c}, {4, 3}, "q");
        return b.finish({b.relu(p, "rp"), b.relu(q, "rq")});
    };
    Graph g = build(DType::Float32);
    DriverResult r = runSet(set, g);
    CHECK(applied(r, "matmuls_sharing_lhs") == 1);
    CHECK(countOps(g, "aten::mm") == 1);
    // The driver anchors at the first mm in program order, %p, which the anchor
    // statement `q = aten::mm(a, c)` binds; `p = ...` then finds %q among a's users.
    const std::string wide = "split_with_sizes(mm(a, cat([c, b], 1)), [3, 6], 1)";
    CHECK(outputs(g) == std::vector<std::string>{"relu(getitem(" + wide + ", 1))", "relu(getitem(" + wide + ", 0))"});
    CHECK(outputShape(g, 0) == "[4, 6]");
    CHECK(outputShape(g, 1) == "[4, 3]");

    Graph mixed = build(DType::Float16);
    Check f = failureOf(mixed, set, "matmuls_sharing_lhs", "q");
    CHECK(f.description == "dtype(b) == dtype(c)");
    CHECK(f.actual == "dtype(%b) is f32, dtype(%c) is f16");

    ShapedGraph lone;
    NodeId a = lone.input("a", {4, 8}), bb = lone.input("b", {8, 6});
    Graph one = lone.finish({lone.op("aten::mm", {a, bb}, {4, 6}, "p")});
    f = failureOf(one, set, "matmuls_sharing_lhs", "p");
    CHECK(f.description == "p = aten::mm(a, b): found among the users of a");
}

TEST_CASE("with schemas, arguments are normalised and left-out ones must be defaults", "[patterns][custom]")
{
    OpSchemaRegistry schemas;
    schemas.add({"aten::add",
                 "Tensor",
                 {{"self", "Tensor", {}}, {"other", "Tensor", {}}, {"alpha", "Scalar", "1", true}},
                 {{"", "Tensor", {}}}});
    schemas.add({"aten::relu", "", {{"self", "Tensor", {}}}, {{"", "Tensor", {}}}});
    PatternSet set = compileText("pattern p {\n match {\n  s = aten::add.Tensor(x, other = y)\n }\n"
                                 " replace {\n  s = aten::add.Tensor(y, x)\n }\n}\n",
                                 &schemas);
    ShapedGraph b;
    GraphBuilder build(b.g);
    NodeId x = b.input("x", {4}), y = b.input("y", {4});
    NodeId plain = b.op("aten::add", {x, y}, {4}, "plain", "Tensor");
    NodeId scaled = build.addOp("aten::add", {x, y}, {{"alpha", Arg(int64_t(2))}}, "scaled");
    build.node(scaled).overload = "Tensor";
    NodeId other = b.op("aten::add", {x, y}, {4}, "dflt");
    Graph g = b.finish({plain, scaled, other});
    const auto &fp = dynamic_cast<const custom::FilePattern &>(*set.find("p"));
    CHECK(fp.bind(g, named(g, "plain")).has_value());
    Check f = failureOf(g, set, "p", "scaled");
    CHECK(f.description == "s = aten::add.Tensor(x, other=y): arguments left out hold their defaults");
    CHECK(f.actual == "%scaled has alpha = 2, the default is 1");
    f = failureOf(g, set, "p", "dflt"); // overload "Tensor" written: a node without it does not match
    CHECK(f.description == "s = aten::add.Tensor(x, other=y): op is aten::add.Tensor");
}

TEST_CASE("the pattern compiler reports bad patterns with file:line:col", "[patterns][custom]")
{
    CHECK(compileError("pattern p {\n match {\n  p1 = aten::mm(a, b)\n  q = aten::relu(z)\n }\n"
                       " replace {\n  q = aten::neg(z)\n }\n}\n")
          == "t.patterns:3:3: match statement 'p1' is not connected to the anchor 'q': it must read a value or "
             "capture of the rest of the match as a direct argument");
    CHECK(compileError("pattern p {\n match {\n  r = aten::relu(x)\n }\n replace {\n  r = aten::neg(r)\n }\n}\n")
          == "t.patterns:6:17: the replacement reads 'r', the value it replaces");
    CHECK(compileError("pattern p {\n options {\n  k = \"s\"\n }\n match {\n  r = aten::relu(x)\n }\n"
                       " replace {\n  r = aten::neg(x)\n }\n}\n")
          == "t.patterns:3:3: option 'k' must be a bool, int or float literal");
    OpSchemaRegistry schemas;
    schemas.add({"aten::cat", "", {{"tensors", "Tensor[]", {}}, {"dim", "int", "0"}}, {{"", "Tensor", {}}}});
    schemas.add({"aten::split",
                 "Tensor",
                 {{"self", "Tensor", {}}, {"split_size", "int", {}}, {"dim", "int", "0"}},
                 {{"", "Tensor[]", {}}}});
    CHECK(compileError("pattern p {\n match {\n  c = aten::cat([t, u], 0)\n }\n"
                       " replace {\n  c = aten::split.Tensor(t, 2, 0)\n }\n}\n",
                       &schemas)
          == "t.patterns:6:7: the replacement of 'c' returns Tensor[] (aten::split.Tensor), but the matched aten::cat "
             "returns Tensor");
}

namespace {
/// A one-output pattern `r = <match>` rewritten to `r = <replacement>`.
std::string typeCheckPattern(const std::string &match, const std::string &where, const std::string &replacement)
{
    return "pattern p {\n match {\n  r = " + match + "\n }\n where {\n  " + where
           + "\n }\n replace {\n  r = " + replacement + "\n }\n}\n";
}

bool compiles(const std::string &text)
{
    PatternFileReadOptions options;
    options.sourceName = "t.patterns";
    auto file = parsePatternFile(text, options);
    REQUIRE(file.hasValue());
    auto patterns = compilePatterns(*file, nullptr);
    INFO((patterns ? std::string() : patterns.error().message));
    return patterns.hasValue();
}
} // namespace

TEST_CASE("a replacement that cannot have the replaced value's dtype or rank is refused", "[patterns][custom]")
{
    SECTION("a comparison gives bool where the match keeps a float dtype")
    {
        CHECK(compileError(typeCheckPattern("aten::relu(x)", "dtype(x) in [f32, bf16]", "aten::gt(x, 0)"))
              == "t.patterns:9:7: the replacement of 'r' cannot have the dtype of the value it replaces: aten::gt "
                 "gives b8, the matched aten::relu gives bf16 or f32 (the dtype of x)");
    }
    SECTION("an op with no integer kernel makes its input floating")
    {
        CHECK(compileError(typeCheckPattern("aten::gelu(x)", "rank(x) == 2", "aten::argmax(x, 1, True)"))
              == "t.patterns:9:7: the replacement of 'r' cannot have the dtype of the value it replaces: "
                 "aten::argmax gives i64, the matched aten::gelu gives a floating dtype (the dtype of x)");
    }
    SECTION("to() with another dtype")
    {
        CHECK(compileError(typeCheckPattern("aten::neg(x)", "dtype(x) == f32", "aten::to(x, f16)"))
              == "t.patterns:9:7: the replacement of 'r' cannot have the dtype of the value it replaces: aten::to "
                 "gives f16, the matched aten::neg gives f32 (the dtype of x)");
    }
    SECTION("a reduction drops a dimension")
    {
        CHECK(compileError(typeCheckPattern("aten::relu(x)", "users(x) == 1", "aten::sum(x, [1])"))
              == "t.patterns:9:7: the replacement of 'r' cannot have the rank of the value it replaces: aten::sum "
                 "gives rank rank(x) - 1, the matched aten::relu gives rank rank(x)");
    }
    SECTION("a view to a fixed rank where the constraint fixes another")
    {
        CHECK(compileError(typeCheckPattern("aten::relu(x)", "rank(x) == 3", "aten::view(x, [-1])"))
              == "t.patterns:9:7: the replacement of 'r' cannot have the rank of the value it replaces: aten::view "
                 "gives rank 1, the matched aten::relu gives rank 3");
    }
    SECTION("an alias to a capture of another rank")
    {
        CHECK(compileError(typeCheckPattern("aten::unsqueeze(x, 0)", "users(x) == 1", "x"))
              == "t.patterns:9:7: the replacement of 'r' cannot have the rank of the value it replaces: 'x' gives "
                 "rank rank(x), the matched aten::unsqueeze gives rank rank(x) + 1");
    }
    SECTION("through replacement values")
    {
        CHECK(compileError("pattern p {\n match {\n  r = aten::cat([a, b], 1)\n }\n where {\n  rank(a) == 2\n"
                           "  rank(b) == 2\n }\n replace {\n  s = aten::stack([a, b], 1)\n"
                           "  r = aten::sum(s, [1], True)\n }\n}\n")
              == "t.patterns:11:7: the replacement of 'r' cannot have the rank of the value it replaces: aten::sum "
                 "gives rank 3, the matched aten::cat gives rank 2");
    }
    SECTION("through the items of an unbind")
    {
        CHECK(compileError("pattern p {\n match {\n  r = aten::neg(x)\n }\n where {\n  rank(x) == 2\n }\n"
                           " replace {\n  s = aten::unbind(x, 0)\n  r = getitem(s, 0)\n }\n}\n")
              == "t.patterns:10:7: the replacement of 'r' cannot have the rank of the value it replaces: getitem "
                 "gives rank 1, the matched aten::neg gives rank 2");
    }
}

TEST_CASE("the type check never refuses a pattern that can be right", "[patterns][custom]")
{
    // Same dtype and rank, by the rules the check knows.
    CHECK(compiles(
        typeCheckPattern("aten::relu(aten::linear(x, w, b))", "users(x) == 1", "fusebox::linear_relu(x, w, b)")));
    CHECK(compiles(typeCheckPattern("aten::sum(x, [1], True)", "rank(x) == 2", "aten::sum(x, -1, True)")));
    CHECK(compiles(typeCheckPattern("aten::squeeze(aten::unsqueeze(x, 0), 0)", "users(x) == 1", "x")));
    CHECK(compiles(typeCheckPattern("aten::mean(x, [0, 1])", "rank(x) == 2", "aten::mean(x)")));
    CHECK(compiles(typeCheckPattern("aten::to(x, f32)", "users(x) == 1", "aten::_to_copy(x, dtype=f32)")));
    CHECK(compiles(typeCheckPattern("aten::add(x, x)", "users(x) == 1", "aten::mul(x, 2)")));
    CHECK(compiles(typeCheckPattern("aten::mul(x, 0.5)", "users(x) == 1", "aten::div(x, 2)")));
    CHECK(compiles(typeCheckPattern("aten::view(x, [a, b])", "rank(x) == 2", "aten::reshape(x, [a, b])")));
    // Unknown facts (another namespace, a capture of unknown dtype) are never a mismatch.
    CHECK(compiles(typeCheckPattern("aten::relu(x)", "users(x) == 1", "mylib::anything(x)")));
    CHECK(compiles(typeCheckPattern("aten::eq(x, y)", "users(x) == 1", "aten::logical_not(aten::ne(x, y))")));
    CHECK(compiles(typeCheckPattern("aten::relu(x)", "users(x) == 1", "aten::gt(x, 0)")));
}

TEST_CASE("addPatternFile refuses names already in the set", "[patterns][custom]")
{
    PatternSet set = loadSet("linear_relu_fusion.patterns");
    Status again = addPatternFile(set, kDir + "linear_relu_fusion.patterns");
    REQUIRE_FALSE(again.isOk());
    CHECK(again.error().message.find("'linear_relu_fusion' clashes") != std::string::npos);
    CHECK_FALSE(addPatternFile(set, kDir + "missing.patterns").isOk());
}

TEST_CASE("the user search backtracks past a candidate that fails a constraint", "[patterns][custom]")
{
    PatternSet set = loadSet("add_of_matmuls.patterns");
    ShapedGraph b;
    NodeId a = b.input("a", {4, 8}), bb = b.input("b", {8, 6}), c = b.input("c", {8, 3}), d = b.input("d", {8, 2});
    b.build.node(c).meta.dtype = DType::Float16;
    NodeId p = b.op("aten::mm", {a, bb}, {4, 6}, "p");
    NodeId q = b.op("aten::mm", {a, c}, {4, 3}, "q");
    NodeId r = b.op("aten::mm", {a, d}, {4, 2}, "r");
    Graph g = b.finish({p, q, r});
    const auto &fp = dynamic_cast<const custom::FilePattern &>(*set.find("matmuls_sharing_lhs"));
    auto bound = fp.bind(g, named(g, "p"));
    REQUIRE(bound);
    CHECK(bound->matched == std::vector<NodeId>{named(g, "p"), named(g, "r")});
    CHECK(bound->choices == std::vector<int>{1});
    Explanation e = explain(g, fp, named(g, "p"));
    CHECK(e.matched);
    CHECK(e.failure() == nullptr);
    CHECK(e.checks.size() > 5);
    // %q (f16) pairs with neither: the explanation shows the attempt that got furthest.
    Check f = failureOf(g, set, "matmuls_sharing_lhs", "q");
    CHECK(f.description == "dtype(b) == dtype(c)");
}

TEST_CASE("cat_of_slices fires the same with schemas", "[patterns][custom]")
{
    OpSchemaRegistry schemas;
    schemas.add({"aten::cat", "", {{"tensors", "Tensor[]", {}}, {"dim", "int", "0"}}, {{"", "Tensor", {}}}});
    schemas.add({"aten::split",
                 "Tensor",
                 {{"self", "Tensor", {}}, {"split_size", "int", {}}, {"dim", "int", "0"}},
                 {{"", "Tensor[]", {}}}});
    schemas.add({"aten::slice",
                 "Tensor",
                 {{"self", "Tensor", {}},
                  {"dim", "int", "0"},
                  {"start", "int?", "None"},
                  {"end", "int?", "None"},
                  {"step", "int", "1"}},
                 {{"", "Tensor", {}}}});
    PatternSet set = loadSet("cat_of_slices.patterns", &schemas);
    Graph g = catOfSlicesGraph({0, 1});
    CHECK(applied(runSet(set, g), "cat_of_slices") == 1);
    CHECK(outputs(g) == std::vector<std::string>{"relu(slice.Tensor(t, 1, 0, 8, 1))"});
}
