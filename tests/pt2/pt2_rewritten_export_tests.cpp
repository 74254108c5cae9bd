// A rewritten PT2 graph as stock PyTorch 2 runs it: `fusebox-pass run -o
// OUT.pt2` (torch.export) and `-o OUT.py --module` (a torch.nn.Module source
// and its weights), checked in the bridge's Python without Fusebox's code
// against the real model they came from (ExportCheck.h); `run --verify` and
// `--measure` on a Dynamo graph in PyTorch 2, eager and compiled.
#include "ExportCheck.h"
#include "Pt2TestSupport.h"

using namespace fusebox;
using namespace fusebox::testing;

namespace {

const char *kTowers = "tests/pt2/models/recsys_towers.py";

std::string out(const std::string &name)
{
    return std::string(FUSEBOX_BINARY_DIR) + "/pt2-fixtures/" + name;
}

int64_t count(const nlohmann::json &ops, const std::string &target)
{
    return ops.contains(target) ? ops[target].get<int64_t>() : 0;
}

} // namespace

TEST_CASE("run -o OUT.pt2: the rewritten Dynamo graph runs in stock PyTorch 2 with the model's outputs",
          "[pt2][export]")
{
    const Capture &c = captured(kTowers);
    RunResult r = runPass("run " + c.file("dynamo.py") + " --verify -o " + out("towers-rewritten.pt2") + " --report "
                          + out("towers-export.json"));
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    // Verified in PyTorch 2 (a PT2 graph), rewrite by rewrite and at the end.
    CHECK(r.output.find("verification (PyTorch 2.") != std::string::npos);
    CHECK(r.output.find("loaded back in PyTorch 2 and run against the original: 1 output matches") != std::string::npos);
    auto report = nlohmann::json::parse(readFile(out("towers-export.json")));
    CHECK(report["verification"]["passed"] == true);
    CHECK(report["export"]["passed"] == true);
    CHECK(report["export"]["format"] == "torch.export");
    CHECK(report["counters"]["batch_linear"]["applied"] == 1);

    // Stock PyTorch 2 alone: torch.export.load, called on the model's own inputs and parameters.
    auto check = checkExportInStockPyTorch(pt2Bridge().command(), sourcePath(kTowers), "pt2", "towers_rewritten",
                                           {out("towers-rewritten.pt2")});
    INFO(check.dump());
    CHECK(check["passed"] == true);
    CHECK(check["max_abs_diff"].get<double>() <= 1e-4);
    // The rewrite is in it: the eight branch linears are one batched matmul
    // (interaction and head stay linears), as the model's structure says.
    const auto &ops = check["ops"];
    CHECK(count(ops, "torch.ops.aten.linear.default") == 2);
    CHECK(count(ops, "torch.ops.aten.baddbmm.default") + count(ops, "torch.ops.aten.bmm.default") == 1);
}

TEST_CASE("run -o OUT.py --module: a module source and its weights that stock PyTorch 2 imports", "[pt2][export]")
{
    // torch.export's graph of the model: its parameters are constants with
    // values, so the module carries them in OUT.weights.pt.
    const Capture &c = captured(kTowers);
    REQUIRE(std::filesystem::exists(c.file("exported.pt2")));
    RunResult r = runPass("run " + c.file("exported.pt2") + " -o " + out("towers_module.py") + " --module");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK(r.output.find("wrote " + out("towers_module.py") + " and its weights") != std::string::npos);
    const std::string source = readFile(out("towers_module.py"));
    CHECK(source.find("class RewrittenGraph(torch.nn.Module):") != std::string::npos);
    CHECK(source.find("fusebox") == std::string::npos); // nothing of Fusebox's to import
    REQUIRE(std::filesystem::exists(out("towers_module.weights.pt")));
    auto check = checkExportInStockPyTorch(pt2Bridge().command(), sourcePath(kTowers), "module", "towers_module",
                                           {out("towers_module.py"), out("towers_module.weights.pt")});
    INFO(check.dump());
    CHECK(check["passed"] == true);
    CHECK(check["inputs"].size() == 2); // dense and sparse: the weights are inside
}

TEST_CASE("exports refuse what they cannot write, in one line", "[pt2][export]")
{
    const Capture &c = captured(kTowers);
    RunResult bad = runPass("run " + c.file("dynamo.py") + " -o " + out("not-a-name.py") + " --module");
    INFO(bad.output);
    CHECK(bad.exitCode == 1);
    CHECK(bad.output.find("a module export is NAME.py, NAME a Python identifier") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(out("not-a-name.py")));
    RunResult noPython = runPass("run " + c.file("dynamo.py") + " -o " + out("nowhere.pt2")
                                 + " --python /nonexistent/python3");
    INFO(noPython.output);
    CHECK(noPython.exitCode == 1);
    CHECK(noPython.output.find("/nonexistent/python3") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(out("nowhere.pt2")));
    RunResult wrongFlag = runPass("run " + c.file("dynamo.py") + " -o " + out("x.json") + " --module");
    CHECK(wrongFlag.exitCode == 2);
}

TEST_CASE("run --verify on a Dynamo graph undoes an unsafe rewrite, naming output, element and values", "[pt2][verify]")
{
    const Capture &c = captured(kTowers);
    std::ofstream(out("towers-unsafe.patterns"))
        << "pattern unsafe_sigmoid {\n    match {\n        r = aten::sigmoid(x)\n"
           "    }\n    replace {\n        r = aten::tanh(x)\n    }\n}\n";
    std::ofstream(out("no-builtins.json")) << "{}\n";
    RunResult r = runPass("run " + c.file("dynamo.py") + " --patterns " + out("towers-unsafe.patterns") + " --config "
                          + out("no-builtins.json") + " --verify -o " + out("towers-unsafe.py") + " --report "
                          + out("towers-unsafe.json"));
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    auto j = nlohmann::json::parse(readFile(out("towers-unsafe.json")));
    // Four sigmoids in the model (three sparse features and the head): each is undone.
    REQUIRE(j["undone"].size() == 4);
    const std::string reason = j["undone"][0]["reason"].get<std::string>();
    CHECK(reason.find("output 0 (%") != std::string::npos);
    CHECK(reason.find("at index") != std::string::npos);
    CHECK(reason.find("(expected ") != std::string::npos);
    CHECK(reason.find(", got ") != std::string::npos);
    CHECK(j["verification"]["engine"].get<std::string>().find("PyTorch 2.") != std::string::npos);
    CHECK(j["nodes_after"] == j["nodes_before"]);
}

TEST_CASE("run --measure on a Dynamo graph: eager and torch.compile, original and rewritten", "[pt2][latency]")
{
    const Capture &c = captured(kTowers);
    RunResult r = runPass("run " + c.file("dynamo.py") + " --measure --measure-runs 9 --measure-warmup 2 -o "
                          + out("towers-measured.py") + " --report " + out("towers-latency.json"));
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    auto j = nlohmann::json::parse(readFile(out("towers-latency.json")));
    const auto &latency = j["latency"];
    INFO(latency.dump());
    REQUIRE(latency["compiled"].contains("before"));
    const auto &compiled = latency["compiled"];
    for (const auto *section : {&latency, &compiled})
        for (const char *side : {"before", "after"}) {
            CHECK((*section)[side]["runs"] == 9);
            CHECK((*section)[side]["min_ms"].get<double>() > 0);
            CHECK((*section)[side]["median_ms"].get<double>() <= (*section)[side]["max_ms"].get<double>());
        }
    CHECK(compiled["speedup"].get<double>()
          == Approx(compiled["before"]["median_ms"].get<double>() / compiled["after"]["median_ms"].get<double>()));
    // What Inductor made: the eight branch linears were ten extern calls
    // (addmm) before; batched, fewer.
    CHECK(compiled["before_compile"]["kernels"].get<int>() > 0);
    CHECK(compiled["before_compile"]["extern_calls"] == 10);
    CHECK(compiled["after_compile"]["extern_calls"].get<int>() < 10);
    CHECK(compiled["notes"].empty());    // compiled outputs equal eager ones
    CHECK(compiled["freezing"] == true); // the weights are constants, as a CPU inference user compiles
    CHECK(r.output.find("compiled: before ") != std::string::npos);
    CHECK(r.output.find("torch.compile, Inductor CPU") != std::string::npos);
}

TEST_CASE("run --schedule greedy --keep-faster keeps only the rewrites that torch.compile runs faster",
          "[pt2][latency]")
{
    // recsys_gated.py: tanh(a) * sigmoid(b) on halves of five features.
    // Batching the five tanhs (and sigmoids) stacks them into one tensor:
    // on the CPU Inductor fuses the separate pointwise ops anyway, and the
    // stack is a copy it cannot remove, so compiled the batched graph is
    // slower (bench/README.md: 0.75-0.83x); the split normalizations change
    // nothing measurable. But this graph runs in 0.07 ms, and on the CI
    // machine one run in several timed every rewrite within the noise and
    // kept them all: a test must not hang on timings. So the gate is asked
    // for what no rewrite here gives, a graph ten times faster
    // (--keep-faster-tolerance -0.9), and every timed rewrite must be undone,
    // saying so; what is kept with the default tolerance is the bench's to say.
    const Capture &c = captured("tests/pt2/models/recsys_gated.py");
    RunResult r = runPass("run " + c.file("dynamo.py")
                          + " --schedule greedy --keep-faster --keep-faster-tolerance -0.9 --verify -o "
                          + out("gated-kept.py") + " --report " + out("gated-kept.json"));
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    auto j = nlohmann::json::parse(readFile(out("gated-kept.json")));
    const auto &gate = j["keep_faster"];
    INFO(gate.dump());
    // Every rewrite that passed verification was timed; kept + undone = timed.
    CHECK(gate["timed"].get<int>() == gate["kept"].get<int>() + gate["undone"].get<int>());
    int applied = 0;
    for (const auto &[name, counter] : j["counters"].items())
        applied += counter["applied"].get<int>();
    CHECK(gate["kept"].get<int>() == applied);
    // The pointwise batch fusions were timed slower and undone, saying by how much.
    REQUIRE(gate["undone"].get<int>() >= 1);
    bool pointwiseUndone = false;
    for (const auto &u : j["undone"]) {
        const std::string reason = u["reason"].get<std::string>();
        CHECK(reason.find("not faster compiled: ") == 0);
        CHECK(reason.find(" after the rewrite, ") != std::string::npos);
        const std::string pattern = u["pattern"].get<std::string>();
        pointwiseUndone = pointwiseUndone || pattern.find("batch_") == 0;
    }
    CHECK(pointwiseUndone);
    CHECK(gate["kept"].get<int>() == 0);
    CHECK(gate["undone"].get<int>() == gate["timed"].get<int>());
    for (const auto &d : gate["decisions"])
        if (!d["kept"].get<bool>())
            CHECK(d["after_ms"].get<double>() > d["before_ms"].get<double>() * 0.1);
    CHECK(j["verification"]["passed"] == true);
    CHECK(r.output.find("undone as not faster") != std::string::npos);
    CHECK(r.output.find("keep-faster: ") != std::string::npos);

    // Not a PT2 graph: one line, nothing written.
    RunResult bad = runPass("run " + std::string(FUSEBOX_FIXTURE_DIR) + "/recsys_demo.pt --keep-faster -o "
                            + out("demo-kept.pt"));
    CHECK(bad.exitCode == 2);
    CHECK(bad.output.find("--keep-faster times rewrites compiled by torch.compile") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(out("demo-kept.pt")));
}
