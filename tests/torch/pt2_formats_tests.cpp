// PT2 inputs end to end: FX text dumps of the demo model, read with libtorch's
// schemas, fire the same rules as its TorchScript form; fusebox-pass reads and
// writes them.
#include "Fixtures.h"
#include "RunPass.h"

#include "core/io/FxText.h"
#include "core/ir/GraphSummary.h"
#include "core/ir/Verifier.h"
#include "core/rewrite/GreedyDriver.h"
#include "core/torch/ModelLoader.h"
#include "patterns/Catalog.h"

#include <catch.hpp>

#include <array>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sys/wait.h>

using namespace fusebox;

namespace {

std::string demoModel()
{
    return std::string(FUSEBOX_SOURCE_DIR) + "/resources/demo/recsys_demo.pt";
}

LoadedModel loadPt2(const std::string &path)
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
    testing::RunResult r = testing::runPass(arguments);
    *exitCode = r.exitCode;
    return r.output;
}

} // namespace

TEST_CASE("an FX dump of the demo fires the same rules as its TorchScript form", "[torch][fx]")
{
    const LoadedModel script = loadPt2(demoModel());
    const LoadedModel fx = loadPt2(fixture("demo_fx_readable.py"));
    CHECK(verify(fx.graph).empty());

    // The same rules, but one: the demo calls torch.relu, which the FX dump
    // records as written, and Inductor's pre-grad batch_relu matches
    // torch.nn.functional.relu only. TorchScript records aten::relu, with no
    // torch-level spelling to check.
    auto scriptMatches = matchCounts(script.graph);
    const auto fxMatches = matchCounts(fx.graph);
    CHECK(scriptMatches.count("batch_relu"));
    CHECK(!fxMatches.count("batch_relu"));
    scriptMatches.erase("batch_relu");
    CHECK(fxMatches == scriptMatches);
    CHECK(scriptMatches.count("batch_linear"));

    // To the fixed point: both families fire on both forms (the demo is
    // built so that split/cat and batch rules fire).
    for (const auto &applied : {appliedCounts(script.graph.clone()), appliedCounts(fx.graph.clone())}) {
        CHECK(applied.count("merge_getitem_cat_pass"));
        CHECK(applied.count("split_cat_pass"));
        CHECK(applied.count("batch_layernorm"));
    }
}

TEST_CASE("torch 1.13's plain print_readable and str(graph) dumps of the demo read as one graph", "[torch][fx]")
{
    const LoadedModel readable = loadPt2(fixture("demo_fx_readable.py"));
    const LoadedModel plain = loadPt2(fixture("demo_fx_plain.py"));
    const LoadedModel printed = loadPt2(fixture("demo_fx_graph.txt"));
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
    const LoadedModel script = loadPt2(demoModel());
    const LoadedModel back = loadPt2(dir + "/demo_converted.py");
    CHECK(back.graph.size() == script.graph.size());
    CHECK(matchCounts(back.graph) == matchCounts(script.graph));

    // run on an FX dump, writing FX text: Inductor's schedule (the default)
    // makes one pass per rule, so a match may remain; Fusebox's greedy
    // search leaves none.
    out = runPass("run " + fixture("demo_fx_readable.py") + " -o " + dir + "/demo_rewritten.py", &exitCode);
    INFO(out);
    REQUIRE(exitCode == 0);
    const LoadedModel dump = loadPt2(fixture("demo_fx_readable.py"));
    const LoadedModel rewritten = loadPt2(dir + "/demo_rewritten.py");
    CHECK(rewritten.graph.size() < dump.graph.size());
    out = runPass("run " + fixture("demo_fx_readable.py") + " --schedule greedy -o " + dir + "/demo_greedy.py",
                  &exitCode);
    INFO(out);
    REQUIRE(exitCode == 0);
    const LoadedModel greedy = loadPt2(dir + "/demo_greedy.py");
    CHECK(greedy.graph.size() < dump.graph.size());
    CHECK(matchCounts(greedy.graph).empty());
    INFO("left by Inductor's schedule: " << matchCounts(rewritten.graph).size() << " rules");
}

TEST_CASE("fusebox-pass opens torch.export programs, bare and archived", "[torch][pt2][cli]")
{
    const std::string json = std::string(FUSEBOX_SOURCE_DIR) + "/tests/fixtures/pt2/split_cat_linear.json";
    const std::string dir = std::string(FUSEBOX_BINARY_DIR) + "/test-output";
    std::filesystem::create_directories(dir);
    const std::string archive = dir + "/split_cat_linear.pt2";
    // A .pt2 in the current layout, zipped with Python's zipfile (weights left
    // out: the graph must still open, with a warning).
    const std::string zip = "/usr/bin/python3 -c \"import sys, zipfile; z = zipfile.ZipFile(sys.argv[2], 'w'); "
                            "z.write(sys.argv[1], 'm/models/model.json'); z.writestr('m/archive_format', 'pt2'); "
                            "z.close()\" "
                            + json + " " + archive;
    REQUIRE(std::system(zip.c_str()) == 0);

    for (const std::string &model : {json, archive}) {
        int exitCode = -1;
        std::string out = runPass("inspect " + model, &exitCode);
        INFO(out);
        REQUIRE(exitCode == 0);
        CHECK(out.find("(torch.export)") != std::string::npos);
        CHECK(out.find("nodes: 15") != std::string::npos);
        CHECK(out.find("aten::split") != std::string::npos);
        CHECK(out.find("weights not loaded") != std::string::npos);

        // The engine's rules work on it unchanged.
        out = runPass("matches " + model, &exitCode);
        INFO(out);
        CHECK(exitCode == 0);
        CHECK(out.find("normalization_pass") != std::string::npos);
    }
    // ... and it converts to FX text that reads back to the same graph.
    int exitCode = -1;
    std::string out = runPass("convert " + archive + " -o " + dir + "/split_cat_linear.py", &exitCode);
    INFO(out);
    REQUIRE(exitCode == 0);
    const LoadedModel original = loadPt2(archive);
    const LoadedModel text = loadPt2(dir + "/split_cat_linear.py");
    CHECK(text.graph.size() == original.graph.size());
    CHECK(summarize(text.graph).opHistogram == summarize(original.graph).opHistogram);
}
