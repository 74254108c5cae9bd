// Pattern from a subgraph (issue 5, item 3): a pattern made from one dense
// branch of the demo model, written, read back with the schemas and compiled,
// matches that branch and every other occurrence of it.
#include <catch.hpp>

#include "core/io/PatternFile.h"
#include "core/rewrite/GreedyDriver.h"
#include "core/torch/ModelLoader.h"
#include "core/torch/TorchSchemas.h"
#include "patterns/custom/PatternCompiler.h"
#include "patterns/custom/PatternFromSubgraph.h"

#include <algorithm>
#include <map>

using namespace fusebox;
using patternlang::PatternDecl;

namespace {

Graph demo()
{
    auto model = loadModel(std::string(FUSEBOX_SOURCE_DIR) + "/resources/demo/recsys_demo.pt");
    INFO((model ? std::string() : model.error().message));
    REQUIRE(model);
    return std::move(model->graph);
}

std::vector<NodeId> named(const Graph &g, std::initializer_list<const char *> names)
{
    std::vector<NodeId> ids;
    for (const char *name : names) {
        NodeId id = g.findByName(name);
        INFO(name);
        REQUIRE(id.isValid());
        ids.push_back(id);
    }
    return ids;
}

/// write -> parse (with schemas) -> compile: the path a saved pattern takes.
PatternSet reload(const PatternDecl &decl, std::string *text = nullptr)
{
    PatternFile file;
    file.patterns.push_back(decl);
    const std::string written = writePatternFile(file);
    if (text)
        *text = written;
    INFO(written);
    auto parsed = parsePatternFile(written, {&torchSchemas(), "from_selection.patterns"});
    INFO((parsed ? std::string() : parsed.error().message));
    REQUIRE(parsed);
    CHECK(parsed->patterns.front() == decl);
    auto compiled = compilePatterns(*parsed, &torchSchemas());
    INFO((compiled ? std::string() : compiled.error().message));
    REQUIRE(compiled);
    PatternSet set;
    for (auto &p : *compiled)
        set.add(std::move(p));
    return set;
}

std::vector<std::string> anchorNames(const Graph &g, const std::vector<Match> &matches)
{
    std::vector<std::string> names;
    for (const Match &m : matches)
        names.push_back(g.node(m.anchor)->name);
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<std::string> branchAnchors()
{
    std::vector<std::string> names{"layer_norm"};
    for (int i = 1; i < 16; ++i)
        names.push_back("layer_norm_" + std::to_string(i));
    std::sort(names.begin(), names.end());
    return names;
}

std::map<std::string, int> opCounts(const Graph &g)
{
    std::map<std::string, int> counts;
    for (NodeId id : g.nodeIds())
        if (g.node(id)->isOp())
            ++counts[g.node(id)->qualifiedOp()];
    return counts;
}

} // namespace

TEST_CASE("pattern-from on one dense branch matches all 16 branches after save and reload", "[torch][custom]")
{
    Graph g = demo();
    const auto branch = named(g, {"linear", "relu", "layer_norm"});
    auto decl = patternFromSubgraph(g, branch);
    INFO((decl ? std::string() : decl.error().message));
    REQUIRE(decl);
    CHECK(decl->name == "from_selection");
    REQUIRE(decl->match.size() == 3);
    CHECK(decl->match[0].target == "linear");
    CHECK(decl->match[2].value.ops.front().name == "aten::layer_norm");
    // The replacement is a copy, so every match value is an output (the
    // layer_norm feeds the cat outside the branch).
    CHECK(decl->replace == decl->match);
    CHECK(decl->outputs == std::vector<std::string>{"linear", "relu", "layer_norm"});
    // External inputs are captures: the getitem, the weights and biases.
    CHECK(decl->captures.size() == 5);
    CHECK_FALSE(decl->where.empty());
    REQUIRE(decl->description);
    // Where it came from, by file name (not the folder, often a temporary one);
    // not the copy's state, which ends with the first edit of the replacement.
    CHECK(decl->description->find("made from 3 nodes (%linear, %relu, %layer_norm) of recsys_demo.pt")
          != std::string::npos);
    CHECK(decl->description->find('/') == std::string::npos);
    CHECK(decl->description->find("changes nothing") == std::string::npos);
    CHECK(patternChangesNothing(*decl));

    std::string text;
    PatternSet set = reload(*decl, &text);
    INFO(text);
    CHECK(text.find("dtype(getitem_) == f32") != std::string::npos);
    CHECK(text.find("rank(getitem_) == 2") != std::string::npos);
    CHECK(text.find("shape(getitem_)[1] == 8") != std::string::npos);
    CHECK(text.find("1e-05") != std::string::npos);

    const auto matches = GreedyDriver(set).findMatches(g);
    CHECK(anchorNames(g, matches) == branchAnchors());
    // The selected subgraph itself is one of them, node for node.
    auto self = std::find_if(matches.begin(), matches.end(), [&](const Match &m) { return m.anchor == branch[2]; });
    REQUIRE(self != matches.end());
    auto covered = self->nodes;
    std::sort(covered.begin(), covered.end());
    auto expected = branch;
    std::sort(expected.begin(), expected.end());
    CHECK(covered == expected);
}

TEST_CASE("pattern-from generalises literals into captures", "[torch][custom]")
{
    Graph g = demo();
    PatternFromOptions options;
    options.name = "branch";
    options.generalizeLiterals = true;
    auto decl = patternFromSubgraph(g, named(g, {"getitem", "linear", "relu", "layer_norm"}), options);
    INFO((decl ? std::string() : decl.error().message));
    REQUIRE(decl);
    std::string text;
    PatternSet set = reload(*decl, &text);
    INFO(text);
    // eps, normalized_shape and the getitem index are captures, not literals.
    CHECK(text.find("1e-05") == std::string::npos);
    CHECK(text.find("[16]") == std::string::npos);
    CHECK(std::count(decl->captures.begin(), decl->captures.end(), "lit0") == 1);
    CHECK(std::count(decl->captures.begin(), decl->captures.end(), "lit2") == 1);
    // With the getitem index generalised, every branch matches (with it
    // literal, only branch 0 would).
    CHECK(anchorNames(g, GreedyDriver(set).findMatches(g)) == branchAnchors());

    options.generalizeLiterals = false;
    auto exact = patternFromSubgraph(g, named(g, {"getitem", "linear", "relu", "layer_norm"}), options);
    REQUIRE(exact);
    CHECK(anchorNames(g, GreedyDriver(reload(*exact)).findMatches(g)) == std::vector<std::string>{"layer_norm"});
}

TEST_CASE("pattern-from without constraints or static dims", "[torch][custom]")
{
    Graph g = demo();
    PatternFromOptions options;
    options.proposeConstraints = false;
    auto bare = patternFromSubgraph(g, named(g, {"relu_3", "layer_norm_3"}), options);
    REQUIRE(bare);
    CHECK(bare->where.empty());
    CHECK(anchorNames(g, GreedyDriver(reload(*bare)).findMatches(g)) == branchAnchors());

    options.proposeConstraints = true;
    options.constrainStaticDims = false;
    auto noDims = patternFromSubgraph(g, named(g, {"relu_3", "layer_norm_3"}), options);
    REQUIRE(noDims);
    std::string text;
    reload(*noDims, &text);
    CHECK(text.find("rank(") != std::string::npos);
    CHECK(text.find("shape(") == std::string::npos);
}

TEST_CASE("pattern-from's no-op replacement leaves the graph as it was", "[torch][custom]")
{
    Graph g = demo();
    auto decl = patternFromSubgraph(g, named(g, {"linear", "relu", "layer_norm"}));
    REQUIRE(decl);
    PatternSet set = reload(*decl);
    const size_t before = g.size();
    const auto ops = opCounts(g);
    DriverOptions options;
    options.maxRounds = 2; // it matches again after every rewrite: a no-op never converges
    GreedyDriver(set, options).run(g);
    CHECK(g.size() == before);
    CHECK(opCounts(g) == ops);
    CHECK(GreedyDriver(set).findMatches(g).size() == 16);
}

TEST_CASE("pattern-from errors", "[torch][custom]")
{
    Graph g = demo();
    auto empty = patternFromSubgraph(g, {});
    REQUIRE_FALSE(empty);
    CHECK(empty.error().message.find("empty") != std::string::npos);

    auto unknown = patternFromSubgraph(g, {NodeId{999999}});
    REQUIRE_FALSE(unknown);
    CHECK(unknown.error().message.find("no node with id 999999") != std::string::npos);

    auto input = patternFromSubgraph(g, named(g, {"dense", "split"}));
    REQUIRE_FALSE(input);
    CHECK(input.error().message.find("%dense is an input, not an op") != std::string::npos);

    auto constant = patternFromSubgraph(g, named(g, {"linear", "dense_branches_0_weight"}));
    REQUIRE_FALSE(constant);
    CHECK(constant.error().message.find("a constant") != std::string::npos);

    // Two branches share no value: no anchor reaches both.
    auto apart = patternFromSubgraph(g, named(g, {"linear", "layer_norm_3"}));
    REQUIRE_FALSE(apart);
    CHECK(apart.error().message.find("cannot be matched as one pattern") != std::string::npos);
}
