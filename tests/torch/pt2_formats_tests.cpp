// PT2 inputs end to end: FX text dumps of the demo model, read with libtorch's
// schemas, fire the same rules as its TorchScript form; fusebox-pass reads and
// writes them.
#include "core/io/FxText.h"
#include "core/ir/GraphSummary.h"
#include "core/ir/Verifier.h"
#include "core/rewrite/GreedyDriver.h"
#include "core/torch/ModelLoader.h"
#include "patterns/Catalog.h"

#include <catch.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sys/wait.h>

using namespace fusebox;

namespace {

std::string fixture(const std::string &name) { return std::string(FUSEBOX_FIXTURE_DIR) + "/" + name; }
std::string demoModel() { return std::string(FUSEBOX_SOURCE_DIR) + "/resources/demo/recsys_demo.pt"; }

LoadedModel load(const std::string &path)
{
    auto model = loadModel(path);
    INFO(path << ": " << (model ? std::string("ok") : model.error().message));
    REQUIRE(model);
    return std::move(*model);
}

/// Candidate matches per pattern.
std::map<std::string, size_t> matchCounts(const Graph &graph)
{
    const PatternSet catalog = builtinCatalog();
    std::map<std::string, size_t> counts;
    for (const Match &m : GreedyDriver(catalog).findMatches(graph))
        ++counts[m.pattern];
    return counts;
}

/// Rewrites applied per pattern by a whole run.
std::map<std::string, size_t> appliedCounts(Graph graph)
{
    const PatternSet catalog = builtinCatalog();
    std::map<std::string, size_t> counts;
    for (const auto &[name, c] : GreedyDriver(catalog).run(graph).counters)
        if (c.applied)
            counts[name] = c.applied;
    return counts;
}

std::string runPass(const std::string &arguments, int *exitCode)
{
    std::string command = std::string(FUSEBOX_BINARY_DIR) + "/app/fusebox-pass " + arguments + " 2>&1";
    std::string output;
    FILE *pipe = popen(command.c_str(), "r");
    REQUIRE(pipe);
    std::array<char, 4096> buffer;
    size_t n;
    while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
        output.append(buffer.data(), n);
    const int status = pclose(pipe);
    *exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return output;
}

} // namespace

TEST_CASE("an FX dump of the demo fires the same rules as its TorchScript form", "[torch][fx]")
{
    const LoadedModel script = load(demoModel());
    const LoadedModel fx = load(fixture("demo_fx_readable.py"));
    CHECK(verify(fx.graph).empty());

    const auto scriptMatches = matchCounts(script.graph);
    const auto fxMatches = matchCounts(fx.graph);
    CHECK(fxMatches == scriptMatches);
    CHECK(scriptMatches.count("batch_linear"));

    // To the fixed point: the same rewrites, both families (the demo is built
    // so that split/cat and batch rules fire).
    const auto scriptApplied = appliedCounts(script.graph.clone());
    CHECK(appliedCounts(fx.graph.clone()) == scriptApplied);
    CHECK(scriptApplied.count("merge_getitem_cat_pass"));
    CHECK(scriptApplied.count("split_cat_pass"));
    CHECK(scriptApplied.count("batch_layernorm"));
}

TEST_CASE("torch 1.13's plain print_readable and str(graph) dumps of the demo read as one graph", "[torch][fx]")
{
    const LoadedModel readable = load(fixture("demo_fx_readable.py"));
    const LoadedModel plain = load(fixture("demo_fx_plain.py"));
    const LoadedModel printed = load(fixture("demo_fx_graph.txt"));
    for (const LoadedModel *m : {&plain, &printed}) {
        CHECK(verify(m->graph).empty());
        CHECK(m->graph.size() == readable.graph.size());
        CHECK(summarize(m->graph).opHistogram == summarize(readable.graph).opHistogram);
    }
}

TEST_CASE("fusebox-pass reads FX dumps and writes FX text that reads back", "[torch][fx][cli]")
{
    const std::string dir = std::string(FUSEBOX_BINARY_DIR) + "/test-output";
    std::filesystem::create_directories(dir);
    int exitCode = -1;

    std::string out = runPass("inspect " + fixture("demo_fx_readable.py"), &exitCode);
    INFO(out);
    REQUIRE(exitCode == 0);
    CHECK(out.find("nodes:") != std::string::npos);

    // TorchScript -> FX text -> graph: the same graph as the TorchScript import.
    out = runPass("convert " + demoModel() + " -o " + dir + "/demo_converted.py", &exitCode);
    INFO(out);
    REQUIRE(exitCode == 0);
    const LoadedModel script = load(demoModel());
    const LoadedModel back = load(dir + "/demo_converted.py");
    CHECK(back.graph.size() == script.graph.size());
    CHECK(matchCounts(back.graph) == matchCounts(script.graph));

    // run on an FX dump, writing FX text.
    out = runPass("run " + fixture("demo_fx_readable.py") + " -o " + dir + "/demo_rewritten.py", &exitCode);
    INFO(out);
    REQUIRE(exitCode == 0);
    const LoadedModel rewritten = load(dir + "/demo_rewritten.py");
    CHECK(rewritten.graph.size() < script.graph.size());
    CHECK(matchCounts(rewritten.graph).empty());
}
