#include "core/ir/GraphBuilder.h"
#include "TestGraphs.h"

#include "core/ir/GraphSummary.h"
#include "core/ir/OpFamily.h"
#include "core/ir/Traversal.h"
#include "core/ir/Verifier.h"

#include <catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace fusebox;

TEST_CASE("graph building keeps program order, names and users", "[ir]")
{
    Graph g = test::splitReluCatGraph();
    REQUIRE(verify(g).empty());
    CHECK(g.size() == 14); // x, w, split, 4 getitem, 4 relu, cat, head, output
    CHECK(g.edgeCount() == 1 + 4 + 4 + 4 + 2 + 1);

    NodeId split = g.findByName("split");
    REQUIRE(split.isValid());
    CHECK(g.users(split).size() == 4);
    CHECK(g.findByName("getitem_3").isValid());
    CHECK(g.findByName("relu_2").isValid());
    CHECK(g.node(g.first())->kind() == NodeKind::Input);
    CHECK(g.last() == g.output());

    // An input added late still comes before every op.
    NodeId y = GraphBuilder::reopen(g).addInput("y");
    CHECK(g.prev(y) == g.findByName("x"));
    CHECK(g.uniqueName("relu") == "relu_4");
}

TEST_CASE("replaceAllUsesWith and erase keep the users index", "[ir]")
{
    Graph g = test::splitReluCatGraph();
    GraphBuilder build = GraphBuilder::reopen(g);
    NodeId cat = g.findByName("cat"), head = g.findByName("head"), x = g.findByName("x");
    CHECK_FALSE(build.erase(cat)); // still used by head
    build.replaceAllUsesWith(cat, x);
    CHECK(g.users(cat).empty());
    CHECK(g.node(head)->args()[0].node() == x);
    CHECK(build.erase(cat));
    CHECK_FALSE(g.contains(cat));
    CHECK(g.node(cat) == nullptr);
    // Ids are never reused.
    NodeId fresh = build.addOp("aten::relu", {x});
    CHECK(fresh.value > cat.value);
    CHECK(verify(g).empty());
}

TEST_CASE("topological order and reachability", "[ir]")
{
    Graph g = test::splitReluCatGraph();
    auto order = topologicalOrder(g);
    REQUIRE(order.size() == g.size());
    CHECK(order == g.nodeIds()); // already sorted: program order is kept

    NodeId x = g.findByName("x"), head = g.findByName("head"), relu0 = g.findByName("relu"),
           relu1 = g.findByName("relu_1");
    CHECK(isAncestor(g, x, head));
    CHECK_FALSE(isAncestor(g, head, x));
    CHECK_FALSE(isAncestor(g, relu0, relu1));
    CHECK(ancestors(g, head).size() == 12);
    CHECK(descendants(g, x).size() == 12);
    CHECK(neighbourhood(g, relu0, 1).size() == 3); // relu, its getitem, the cat

    // Moving a user before its input breaks program order; the sort repairs it.
    GraphBuilder::reopen(g).moveBefore(head, g.findByName("split"));
    order = topologicalOrder(g);
    REQUIRE(order.size() == g.size());
    CHECK(std::find(order.begin(), order.end(), head) > std::find(order.begin(), order.end(), g.findByName("cat")));
}

TEST_CASE("stable topological order is Inductor 2.6's stable_topological_sort", "[ir]")
{
    // Built in topological order, then put in the program order
    //   x, t = f(u, v), t2 = f(v), v = g(x), u = h(w), w = k(x), output
    // and sorted by hand as 2.6's pattern_matcher.stable_topological_sort does:
    // a node waits on the *last* of its inputs that is not ready (t on v, not
    // u) and is released, in parking order, once that input is; a released
    // node may wait again (t, then on u).
    Graph g;
    GraphBuilder buildG(g);
    NodeId x = buildG.addInput("x");
    NodeId w = buildG.addOp("aten::relu", {Arg(x)}, {}, "w");
    NodeId u = buildG.addOp("aten::relu", {Arg(w)}, {}, "u");
    NodeId v = buildG.addOp("aten::relu", {Arg(x)}, {}, "v");
    NodeId t = buildG.addOp("aten::add", {Arg(u), Arg(v)}, {}, "t");
    NodeId t2 = buildG.addOp("aten::relu", {Arg(v)}, {}, "t2");
    NodeId out = buildG.setOutputs({Arg(t), Arg(t2)});
    CHECK(isTopologicallySorted(g));
    CHECK(stableTopologicalOrder(g) == g.nodeIds()); // sorted: program order is kept

    REQUIRE(buildG.reorder({x, t, t2, v, u, w, out}));
    CHECK_FALSE(isTopologicallySorted(g));
    CHECK(stableTopologicalOrder(g) == std::vector<NodeId>{x, v, t2, w, u, t, out});
    // Fusebox's own sort hoists the inputs above the first reader instead.
    CHECK(topologicalOrder(g) == std::vector<NodeId>{x, w, u, v, t, t2, out});

    // A cycle has no order.
    Graph c;
    GraphBuilder buildC(c);
    NodeId a = buildC.addInput("a");
    NodeId b = buildC.addOp("aten::relu", {Arg(a)}, {}, "b");
    NodeId d = buildC.addOp("aten::relu", {Arg(b)}, {}, "d");
    buildC.setArgs(b, {Arg(d)}, {});
    CHECK(stableTopologicalOrder(c).empty());
    CHECK_FALSE(isTopologicallySorted(c));
}

TEST_CASE("the sorted order is remembered only until an edit that can break it", "[ir]")
{
    // Graph::isTopologicallySorted skips its walk while no edit could have
    // broken the order: each edit kind that can must make it look again.
    Graph g;
    GraphBuilder build(g);
    NodeId x = build.addInput("x");
    NodeId a = build.addOp("aten::relu", {Arg(x)}, {}, "a");
    NodeId b = build.addOp("aten::tanh", {Arg(a)}, {}, "b");
    NodeId out = build.setOutputs({Arg(b)});
    REQUIRE(isTopologicallySorted(g));

    SECTION("new arguments that come later")
    {
        build.setArgs(a, {Arg(b)}, {}); // a cycle: a reads b, b reads a
        CHECK_FALSE(isTopologicallySorted(g));
    }
    SECTION("a node inserted before what it reads")
    {
        build.addOp("aten::sigmoid", {Arg(b)}, {}, "s", a);
        CHECK_FALSE(isTopologicallySorted(g));
    }
    SECTION("uses moved to a later node")
    {
        NodeId late = build.addOp("aten::neg", {Arg(x)}, {}, "late"); // just before the output
        REQUIRE(isTopologicallySorted(g));
        build.replaceAllUsesWith(a, late); // b, before late, now reads it
        CHECK_FALSE(isTopologicallySorted(g));
    }
    SECTION("a node with users moved after them")
    {
        build.moveBefore(a, out);
        CHECK_FALSE(isTopologicallySorted(g));
    }
    SECTION("a reorder")
    {
        REQUIRE(build.reorder({x, b, a, out}));
        CHECK_FALSE(isTopologicallySorted(g));
    }
    SECTION("edits that cannot break it keep the answer")
    {
        NodeId c = build.addConstant("c", "w");
        NodeId i = build.addInput("y");
        NodeId tail = build.addOp("aten::relu", {Arg(c), Arg(i)}, {}, "tail", out);
        CHECK(isTopologicallySorted(g));
        CHECK(build.erase(tail));
        CHECK(isTopologicallySorted(g));
        // and a clone carries the answer, which stays true of it
        Graph copy = g.clone();
        CHECK(isTopologicallySorted(copy));
        CHECK(stableTopologicalOrder(copy) == copy.nodeIds());
    }
}

TEST_CASE("verifier reports each problem precisely", "[ir]")
{
    SECTION("use before definition")
    {
        Graph g = test::splitReluCatGraph();
        GraphBuilder build = GraphBuilder::reopen(g);
        build.moveBefore(g.findByName("head"), g.findByName("split"));
        auto issues = verify(g);
        REQUIRE(issues.size() == 1);
        CHECK(issues[0].message == "%head: reads %cat before it is defined");
    }
    SECTION("missing output")
    {
        Graph g;
        GraphBuilder build(g);
        build.addInput("x");
        auto issues = verify(g);
        REQUIRE(issues.size() == 1);
        CHECK(issues[0].message == "graph: has no output node");
    }
    SECTION("malformed getitem and a cycle")
    {
        Graph g;
        GraphBuilder build(g);
        NodeId x = build.addInput("x");
        NodeId a = build.addOp("aten::relu", {x});
        NodeId b = build.addOp("aten::neg", {a});
        build.addOp("getitem", {x});
        build.setOutputs({b});
        build.setArgs(a, {b}, {}); // a <- b <- a
        std::string text = formatIssues(verify(g));
        CHECK(text.find("%getitem: getitem needs (node, int) arguments, has 1") != std::string::npos);
        CHECK(text.find("graph: has a cycle") != std::string::npos);
        CHECK(text.find("%relu: reads %neg before it is defined") != std::string::npos);
    }
}

TEST_CASE("summary and op families", "[ir]")
{
    Graph g = test::splitReluCatGraph();
    GraphSummary s = summarize(g);
    CHECK(s.nodes == 14);
    CHECK(s.inputs == 1);
    CHECK(s.constants == 1);
    CHECK(s.ops == 11);
    REQUIRE(s.opHistogram.size() == 5);
    CHECK(s.opHistogram[0].second == 4);
    CHECK(s.opCounts.at("aten::relu") == 4);
    CHECK(opFamily("aten::relu_") == OpFamily::Activation);
    CHECK(opFamily("aten::split.Tensor") == OpFamily::SplitCat);
    CHECK(opFamily("aten::_convolution") == OpFamily::Linear);
    CHECK(opFamily("aten::frobnicate") == OpFamily::Other);
}

TEST_CASE("tensor meta and arg text", "[ir]")
{
    TensorMeta m{DType::BFloat16, std::vector<Dim>{std::string("s0"), int64_t(8)}, {}, {}};
    CHECK(m.toString() == "bf16[s0, 8]");
    CHECK_FALSE(m.hasStaticShape());
    CHECK(TensorMeta{DType::Float32, std::vector<Dim>{}, {}, {}}.toString() == "f32[]");
    CHECK(TensorMeta{}.toString() == "?");
    CHECK(parseDType("torch.float") == DType::Float32);
    CHECK(parseDType("Long") == DType::Int64);
    CHECK(parseDType("bf16") == DType::BFloat16);
    CHECK_FALSE(parseDType("floaty"));
    CHECK(Arg(1e-05).toString() == "1e-05");
    CHECK(Arg(1.0).toString() == "1.0");
    CHECK(Arg(0.1).toString() == "0.1");
    CHECK(Arg(1e16).toString() == "1e+16");
    CHECK(Arg(100000.0).toString() == "1e+05"); // the shortest "%g" text, a float in Python too
    CHECK(Arg(0.0001).toString() == "0.0001");  // "%g"'s form, not the shorter "1e-04"
    // Extremes whose shortest texts do not read back (they over- or
    // underflow) are written in full; they threw std::out_of_range before.
    CHECK(Arg(1.7976931348623157e308).toString() == "1.7976931348623157e+308");
    CHECK(Arg(2.2250738585072014e-308).toString() == "2.2250738585072014e-308");
    CHECK(Arg::list({Arg(NoneArg{}), Arg(int64_t(-3)), Arg(std::string("a"))}, ArgList::Kind::Slice).toString()
          == "slice(None, -3, 'a')");
    CHECK(Arg::list({Arg(std::string("k")), Arg(int64_t(1)), Arg(std::string("j")), Arg(true)}, ArgList::Kind::Dict)
              .toString()
          == "{'k': 1, 'j': True}");
    CHECK(Arg::list({int64_t(1)}, ArgList::Kind::Tuple).toString() == "(1,)");
    CHECK(Arg(Device{"cuda", 0}).toString() == "device(type='cuda', index=0)");
}

#include "core/ir/GraphCompare.h"

TEST_CASE("clone is deep and keeps ids", "[ir]")
{
    Graph g = test::splitReluCatGraph();
    Graph c = g.clone();
    GraphBuilder build = GraphBuilder::reopen(c);
    CHECK_FALSE(firstDifference(g, c).has_value());
    CHECK(c.findByName("head") == g.findByName("head"));
    build.node(c.findByName("head")).name = "renamed";
    CHECK(g.node(g.findByName("head"))->name == "head");
    build.replaceAllUsesWith(c.findByName("cat"), c.findByName("x"));
    CHECK(g.users(g.findByName("cat")).size() == 1);
    CHECK(verify(c).empty());
}

TEST_CASE("a GraphBuilder takes a new graph and reopen takes one that holds nodes", "[ir]")
{
    Graph g;
    GraphBuilder build(g);
    // Metadata is not a node: a graph with metadata only is still new.
    build.metadata()["source.format"] = "hand-built";
    CHECK_NOTHROW(GraphBuilder{g});
    NodeId x = build.addInput("x", f32({4}));
    build.setOutputs({build.addOp("aten::relu", {x})});
    REQUIRE(g.size() == 3);

    // A second builder over a graph with nodes would change it behind the
    // rewriter's back: refused, with the rule in the message.
    CHECK_THROWS_AS(GraphBuilder{g}, std::logic_error);
    CHECK_THROWS_WITH(GraphBuilder{g},
                      "GraphBuilder builds a new graph; use GraphBuilder::reopen for an importer's fix-up");

    // The builder already in hand keeps building; reopen() fixes up.
    NodeId y = build.addInput("y", f32({4}));
    GraphBuilder fix = GraphBuilder::reopen(g);
    fix.node(y).meta = f32({8});
    fix.metadata()["shapes.inferred_by"] = "a test";
    CHECK(g.node(y)->meta.shapeString() == "[8]");
    CHECK(verify(g).empty());

    // Metadata written through either builder reads back through the graph.
    CHECK(g.metadata().size() == 2);
    CHECK(g.metadata().at("source.format") == "hand-built");
    CHECK(g.metadata().at("shapes.inferred_by") == "a test");
    const Graph copy = g.clone();
    CHECK(copy.metadata() == g.metadata());
}

TEST_CASE("only the importers and loaders in core reopen a graph (and bench and fuzz and tests)", "[ir]")
{
    // GraphBuilder::reopen's contract: an importer's or loader's fix-ups on a
    // graph it made. views/, app/, patterns/ and core/rewrite change graphs
    // through PatternRewriter only, so that the edit log sees every change.
    namespace fs = std::filesystem;
    const fs::path root(FUSEBOX_SOURCE_DIR);
    const std::vector<std::string> allowed{"core/io/", "core/ir/", "core/torch/", "core/pt2/",
                                           "bench/",   "fuzz/",    "tests/"};
    const std::string call = "GraphBuilder::reopen(";
    std::string offenders;
    size_t files = 0, allowedCalls = 0;
    std::error_code topError;
    for (fs::directory_iterator top(root, topError), end; !topError && top != end; top.increment(topError)) {
        const std::string name = top->path().filename().string();
        // Hidden folders (.git) and build trees (a CMakeCache.txt) hold no sources of the project's own.
        std::error_code ignored;
        if (!top->is_directory(ignored) || name.starts_with(".") || fs::exists(top->path() / "CMakeCache.txt", ignored))
            continue;
        std::error_code error;
        for (fs::recursive_directory_iterator it(top->path(), fs::directory_options::skip_permission_denied, error),
             stop;
             !error && it != stop; it.increment(error)) {
            const std::string ext = it->path().extension().string();
            if (!it->is_regular_file(ignored) || (ext != ".cpp" && ext != ".h" && ext != ".hpp" && ext != ".cc"))
                continue;
            ++files;
            const std::string relative = it->path().lexically_relative(root).generic_string();
            const bool mayCall = std::any_of(allowed.begin(), allowed.end(),
                                             [&](const std::string &prefix) { return relative.starts_with(prefix); });
            std::ifstream in(it->path());
            int line = 0;
            for (std::string text; std::getline(in, text);) {
                ++line;
                const size_t at = text.find(call);
                if (at == std::string::npos)
                    continue;
                // A comment that names the call is not a call.
                const size_t start = text.find_first_not_of(" \t");
                if (text.compare(start, 2, "//") == 0)
                    continue;
                if (mayCall)
                    ++allowedCalls;
                else
                    offenders += "\n" + relative + ":" + std::to_string(line) + ": " + text.substr(start);
            }
        }
        INFO(top->path().string() + ": " + error.message());
        REQUIRE_FALSE(error);
    }
    INFO(root.string() + ": " + topError.message());
    REQUIRE_FALSE(topError);
    // A source tree not found, or read as empty, fails instead of passing.
    CHECK(files > 100);
    CHECK(allowedCalls > 0);
    INFO("GraphBuilder::reopen outside core/io, core/ir, core/torch, core/pt2, bench/, fuzz/ and tests/ (change "
         "the graph through PatternRewriter instead):"
         + offenders);
    CHECK(offenders.empty());
}
