// The shipped example patterns (resources/patterns/) fire on small graphs
// written as FX text, and every rewrite passes numeric verification in
// libtorch; an unsafe pattern is caught by the verifier and undone.
#include "RunPass.h"

#include <catch.hpp>

#include "core/io/FxText.h"
#include "core/rewrite/GreedyDriver.h"
#include "core/torch/NumericVerifier.h"
#include "core/torch/TorchSchemas.h"
#include "patterns/custom/PatternCompiler.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>

using namespace fusebox;

namespace {

Graph fx(const std::string &text)
{
    auto model = readFxText(text, {&torchSchemas(), "test.py"});
    INFO((model ? std::string() : model.error().message));
    REQUIRE(model);
    return std::move(model->graph);
}

PatternSet examples(const std::string &file)
{
    PatternSet set;
    const std::string path = std::string(FUSEBOX_SOURCE_DIR) + "/resources/patterns/" + file;
    Status s = addPatternFile(set, path, &torchSchemas());
    INFO((s ? std::string() : s.error().message));
    REQUIRE(s);
    return set;
}

struct VerifiedRun {
    DriverResult result;
    std::vector<std::string> undone;
};

/// Runs `set` with a verifier that compares every rewrite against `graph` as
/// it was, and checks the final graph too.
VerifiedRun runVerified(const PatternSet &set, Graph &graph)
{
    const Graph original = graph.clone();
    DriverOptions options;
    options.verifyRewrite = [&](const Graph &after) -> std::optional<std::string> {
        auto r = verifyEquivalent(original, after);
        if (!r)
            return r.error().message;
        if (!r->passed)
            return r->message;
        return std::nullopt;
    };
    struct Undone final : DriverListener {
        std::vector<std::string> reasons;
        void rewriteUndone(const Graph &, const Match &, const std::string &reason) override
        {
            reasons.push_back(reason);
        }
    } listener;
    VerifiedRun run{GreedyDriver(set, options).run(graph, nullptr, &listener), {}};
    run.undone = listener.reasons;
    auto final = verifyEquivalent(original, graph);
    REQUIRE(final);
    CHECK(final->passed);
    return run;
}

size_t applied(const DriverResult &r, const std::string &pattern)
{
    auto it = r.counters.find(pattern);
    return it == r.counters.end() ? 0 : it->second.applied;
}

size_t count(const Graph &g, const std::string &op)
{
    return g.nodesWithOp(op).size();
}

} // namespace

TEST_CASE("example: linear_relu_fusion / linear_gelu_fusion verify numerically", "[torch][custom]")
{
    Graph g = fx(R"(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 8]", w: "f32[16, 8]", b: "f32[16]", w2: "f32[16, 16]"):
        linear: "f32[4, 16]" = torch.ops.aten.linear.default(x, w, b)
        relu: "f32[4, 16]" = torch.ops.aten.relu.default(linear)
        linear_1: "f32[4, 16]" = torch.ops.aten.linear.default(relu, w2)
        gelu: "f32[4, 16]" = torch.ops.aten.gelu.default(linear_1)
        tanh_gelu: "f32[4, 16]" = torch.ops.aten.gelu.default(linear_1, approximate = 'tanh')
        return (gelu, tanh_gelu)
)");
    VerifiedRun run = runVerified(examples("linear_relu_fusion.patterns"), g);
    CHECK(run.undone.empty());
    CHECK(applied(run.result, "linear_relu_fusion") == 1);
    // linear_1 has two users (both gelus): the gelu fusion must not fire.
    CHECK(applied(run.result, "linear_gelu_fusion") == 0);
    CHECK(count(g, "fusebox::linear_relu") == 1);
}

TEST_CASE("example: add_of_matmuls and matmuls_sharing_lhs verify numerically", "[torch][custom]")
{
    Graph g = fx(R"(class GraphModule(torch.nn.Module):
    def forward(self, a: "f32[4, 8]", b: "f32[8, 6]", c: "f32[8, 6]", d: "f32[8, 6]", e: "f32[8, 3]", a2: "f32[5, 8]"):
        p: "f32[4, 6]" = torch.ops.aten.mm.default(a, b)
        q: "f32[4, 6]" = torch.ops.aten.mm.default(a, c)
        s: "f32[4, 6]" = torch.ops.aten.add.Tensor(p, q)
        m1: "f32[5, 6]" = torch.ops.aten.mm.default(a2, d)
        m2: "f32[5, 3]" = torch.ops.aten.mm.default(a2, e)
        return (s, m1, m2)
)");
    VerifiedRun run = runVerified(examples("add_of_matmuls.patterns"), g);
    CHECK(run.undone.empty());
    CHECK(applied(run.result, "add_of_matmuls") == 1);
    // a2's two products: one wide mm, then a split.
    CHECK(applied(run.result, "matmuls_sharing_lhs") == 1);
    CHECK(count(g, "aten::split_with_sizes") == 1);
}

TEST_CASE("example: cat_of_slices verifies numerically", "[torch][custom]")
{
    Graph g = fx(R"(class GraphModule(torch.nn.Module):
    def forward(self, t: "f32[8, 16]"):
        split = torch.ops.aten.split.Tensor(t, 4, 1)
        g1: "f32[8, 4]" = split[1]
        g2: "f32[8, 4]" = split[2]
        g3: "f32[8, 4]" = split[3]
        cat: "f32[8, 12]" = torch.ops.aten.cat.default([g1, g2, g3], 1)
        out: "f32[8, 12]" = torch.ops.aten.relu.default(cat)
        return (out,)
)");
    VerifiedRun run = runVerified(examples("cat_of_slices.patterns"), g);
    CHECK(run.undone.empty());
    CHECK(applied(run.result, "cat_of_slices") == 1);
    CHECK(count(g, "aten::cat") == 0);
    CHECK(count(g, "aten::slice") == 1);
}

TEST_CASE("an unsafe pattern is caught by the numeric verifier and undone", "[torch][custom]")
{
    const std::string dir = std::string(FUSEBOX_BINARY_DIR) + "/test-output";
    std::filesystem::create_directories(dir);
    const std::string path = dir + "/unsafe.patterns";
    std::ofstream(path) << R"(# Wrong on purpose: relu is not neg.
pattern relu_is_neg {
    match {
        r = aten::relu(x)
    }
    replace {
        r = aten::neg(x)
    }
}
)";
    PatternSet set;
    REQUIRE(addPatternFile(set, path, &torchSchemas()));
    Graph g = fx(R"(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 8]"):
        relu: "f32[4, 8]" = torch.ops.aten.relu.default(x)
        return (relu,)
)");
    VerifiedRun run = runVerified(set, g);
    REQUIRE(run.undone.size() == 1);
    CHECK(run.undone[0].find("max |diff|") != std::string::npos);
    CHECK(run.result.counters["relu_is_neg"].failedVerification == 1);
    CHECK(applied(run.result, "relu_is_neg") == 0);
    CHECK(count(g, "aten::relu") == 1);

    // The CLI reports it the same way.
    std::ofstream(dir + "/unsafe.py") << R"(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 8]"):
        relu: "f32[4, 8]" = torch.ops.aten.relu.default(x)
        return (relu,)
)";
    const testing::RunResult cli = testing::runPass("run " + dir + "/unsafe.py --patterns " + path + " --verify -o "
                                                    + dir + "/unsafe_out.py --report " + dir + "/unsafe.json");
    const std::string &output = cli.output;
    INFO(output);
    CHECK(cli.exitCode == 0); // the final graph (with the rewrite undone) verifies
    CHECK(output.find("relu_is_neg at %relu failed verification and was undone") != std::string::npos);
    std::ifstream report(dir + "/unsafe.json");
    std::string text((std::istreambuf_iterator<char>(report)), {});
    CHECK(text.find("\"failed_verification\": 1") != std::string::npos);
}

TEST_CASE("fusebox-pass pattern-from writes a pattern that matches every occurrence in the demo",
          "[torch][custom][cli]")
{
    const std::string dir = std::string(FUSEBOX_BINARY_DIR) + "/test-output";
    std::filesystem::create_directories(dir);
    const std::string demo = std::string(FUSEBOX_SOURCE_DIR) + "/resources/demo/recsys_demo.pt";
    auto run = [](const std::string &arguments, int *exitCode) {
        testing::RunResult r = testing::runPass(arguments);
        *exitCode = r.exitCode;
        return r.output;
    };
    int exitCode = -1;
    std::string out = run("pattern-from " + demo + " --nodes linear,relu,layer_norm --name dense_branch -o " + dir
                              + "/dense_branch.patterns",
                          &exitCode);
    INFO(out);
    REQUIRE(exitCode == 0);
    out = run("matches " + demo + " --patterns " + dir + "/dense_branch.patterns --pattern dense_branch --json",
              &exitCode);
    INFO(out);
    REQUIRE(exitCode == 0);
    // One match per dense branch, the selected one (anchored at %layer_norm) included.
    CHECK(std::count(out.begin(), out.end(), '{') >= 16);
    CHECK(out.find("\"layer_norm\"") != std::string::npos);
    CHECK(out.find("\"layer_norm_15\"") != std::string::npos);

    out = run("pattern-from " + demo + " --nodes nope", &exitCode);
    CHECK(exitCode == 1);
    CHECK(out.find("no node named 'nope'") != std::string::npos);
}

TEST_CASE("fusebox-pass export-patterns writes both targets and lists what it skipped", "[torch][custom][cli]")
{
    const std::string dir = std::string(FUSEBOX_BINARY_DIR) + "/test-output";
    std::filesystem::create_directories(dir);
    const std::string patterns = std::string(FUSEBOX_SOURCE_DIR) + "/resources/patterns/";
    auto run = [](const std::string &arguments) {
        testing::RunResult r = testing::runPass(arguments);
        return std::pair{r.exitCode, r.output};
    };
    auto [code, out] = run("export-patterns " + patterns + "linear_relu_fusion.patterns --to torchscript -o " + dir
                           + "/fusion_patterns.h");
    INFO(out);
    REQUIRE(code == 0);
    CHECK(out.find("2 of 2 patterns exported") != std::string::npos);
    std::ifstream header(dir + "/fusion_patterns.h");
    std::string text((std::istreambuf_iterator<char>(header)), {});
    CHECK(text.find("registerFuseboxPatterns") != std::string::npos);
    CHECK(text.find("fusebox::linear_relu(%x, %w, %b)") != std::string::npos);

    std::tie(code, out) = run("export-patterns " + patterns + "cat_of_slices.patterns --to inductor -o " + dir
                              + "/cat_patterns.py");
    INFO(out);
    REQUIRE(code == 0);
    // Inductor's ListOf expresses the variadic list (run in PyTorch 2 by tests/pt2/);
    // SubgraphRewriter has no such form.
    CHECK(out.find("1 of 1 patterns exported") != std::string::npos);
    CHECK(std::system(("/usr/bin/python3 -m py_compile " + dir + "/cat_patterns.py").c_str()) == 0);
    std::tie(code, out) = run("export-patterns " + patterns + "cat_of_slices.patterns --to torchscript -o " + dir
                              + "/cat_patterns.h");
    INFO(out);
    REQUIRE(code == 0);
    CHECK(out.find("skipped cat_of_slices: variadic list") != std::string::npos);

    std::tie(code, out) = run("export-patterns " + patterns + "cat_of_slices.patterns --to onnx -o " + dir + "/x");
    CHECK(code == 2);
    std::tie(code, out) = run("--help");
    CHECK(out.find("export-patterns") != std::string::npos);
    CHECK(out.find("pattern-from") != std::string::npos);
}
