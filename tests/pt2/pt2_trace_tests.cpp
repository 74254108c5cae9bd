// TORCH_TRACE logs made here, by the reference PyTorch 2 (both roots: 2.6 and
// the Debian testing one), as a production job leaves them: oracle models
// compiled by torch.compile under TORCH_TRACE with every Optimus pass of
// pre_grad_all.json and post_grad_all.json, a compile served from the FX graph cache and a
// recompile (tests/pt2/scripts/make_trace_log.py). The log is listed, every
// graph opened as any command opens a file, and each compile's Optimus passes
// replayed by Fusebox and compared, pass by pass, with the graphs production
// Inductor logged.
#include "Pt2TestSupport.h"

#include "TraceLogMaker.h"
#include "core/io/TorchTraceGraphs.h"
#include "core/torch/ModelLoader.h"
#include "core/torch/TorchSchemas.h"
#include "patterns/TraceReplay.h"

#include <filesystem>

using namespace fusebox;
using namespace fusebox::testing;
namespace fs = std::filesystem;

namespace {

/// One model or two of each family of the oracle suite: a full Inductor
/// compile (code generation included) takes seconds each, twice per test run.
const std::vector<std::string> kTraceModels = {
    "towers_4x32",         "towers_5x24_tanh",    "shared_linear_5",    "shared_nobias_4",
    "gated_halves_5",      "split_of_split",      "split_unbind_stack", "split_cat_all_sections",
    "mixed_slice_parents", "mixed_layernorm_eps", "pointwise_add_mul",  "math_heads",
};

/// The log, made once per test process.
const std::string &oracleLog()
{
    static const std::string path = [] {
        const fs::path dir = fs::path(FUSEBOX_BINARY_DIR) / "pt2-traces" / bridgeProfile().profile->version;
        // Every pre-grad and post-grad pass, as far as this torch has them
        // (2.6 refuses a config naming 2.14's).
        nlohmann::json both = nlohmann::json::parse(readFile(sourcePath("tests/pt2/configs/pre_grad_all.json")));
        both.update(nlohmann::json::parse(readFile(sourcePath("tests/pt2/configs/post_grad_all.json"))));
        std::set<std::string> dropped;
        const std::string config = configForProfile(both.dump(), *bridgeProfile().profile, dropped);
        auto made = makeTraceLog(kTraceModels, config, (dir / "dedicated_log_torch_trace_oracle.log").string());
        INFO((made ? std::string() : made.error().message));
        REQUIRE(made);
        return *made;
    }();
    return path;
}

/// How fusebox-pass replays: graphs opened as any file, calls compared with
/// the schemas PT2 graphs are read with.
TraceReplayOptions replayOptions()
{
    TraceReplayOptions options;
    options.load = [](const std::string &p) { return loadModel(p); };
    options.schemas = &pt2GraphSchemas().registry;
    return options;
}

bool runsPreGradPassesAfterCacheLookup()
{
    // torch 2.14 logs each Optimus pass and looks the FX graph cache up first;
    // 2.6 logs neither before_pre_grad_graph nor the passes.
    return bridgeProfile().profile->version != "2.6";
}

} // namespace

TEST_CASE("A production TORCH_TRACE log: every compile listed, every graph opened", "[pt2][trace]")
{
    const std::string &path = oracleLog();
    auto log = indexTorchTrace(path);
    REQUIRE(log);
    CHECK(log->warnings.empty());
    // Every model once, the first again (a cache hit) and its recompile.
    CHECK(log->compiles.size() == kTraceModels.size() + 2);
    // torch 2.14 records its version in the log; 2.6 does not.
    if (runsPreGradPassesAfterCacheLookup())
        CHECK(log->torchVersion.rfind(std::string(bridgeProfile().profile->version), 0) == 0);
    else
        CHECK(log->torchVersion.empty());
    size_t opened = 0;
    const auto graphs = log->graphs();
    for (const TraceLog::GraphRef &graph : graphs) {
        const std::string address = path + "#" + traceGraphAddress(*log, graph).str();
        auto model = loadModel(address);
        INFO(address << ": " << (model ? std::string() : model.error().message));
        CHECK(model);
        opened += model.hasValue();
    }
    // dynamo_output_graph, aot_inference_graph and the post-grad graph of each compile at least.
    CHECK(graphs.size() >= 3 * kTraceModels.size());
    CHECK(opened == graphs.size());

    const TraceCompile &recompile = log->compiles.back();
    CHECK_FALSE(recompile.recompileReason.empty());
    const TraceCompile &again = log->compiles[log->compiles.size() - 2];
    CHECK(again.id.str() == "0/0@" + std::to_string(kTraceModels.size() + 1));
    CHECK(again.fxGraphCacheHit());
    // 2.6 ran its pre-grad passes before the lookup (and logged none): the
    // listing must not claim that none ran.
    CHECK(again.ranNoPreGradPasses() == runsPreGradPassesAfterCacheLookup());
    if (runsPreGradPassesAfterCacheLookup()) {
        CHECK_FALSE(std::any_of(again.payloads.begin(), again.payloads.end(),
                                [](const TracePayload &p) { return p.kind.starts_with("optimus_"); }));
    }

    // fusebox-pass trace --json: one entry per graph, each opened.
    // Beside this root's log: both roots' tests may run at once.
    const std::string out = (fs::path(path).parent_path() / "listing.json").string();
    RunResult r = runCommand(std::string(FUSEBOX_BINARY_DIR) + "/app/fusebox-pass trace '" + path + "' --json > '" + out
                             + "'");
    INFO(r.output.substr(0, 2000));
    REQUIRE(r.exitCode == 0);
    const auto listing = nlohmann::json::parse(readFile(out));
    REQUIRE(listing["graphs"].size() == graphs.size());
    for (const auto &graph : listing["graphs"]) {
        CHECK(graph["error"].is_null());
        CHECK(graph["nodes"].get<int>() > 1);
    }
    // A graph by its address, to a command that takes a model.
    RunResult inspect = runCommand(std::string(FUSEBOX_BINARY_DIR) + "/app/fusebox-pass inspect '" + path
                                   + "#0/0/dynamo_output_graph' --json");
    INFO(inspect.output.substr(0, 2000));
    CHECK(inspect.exitCode == 0);
}

TEST_CASE("Optimus replayed pass by pass agrees with production Inductor on the oracle models", "[pt2][trace]")
{
    const std::string &path = oracleLog();
    auto log = indexTorchTrace(path);
    REQUIRE(log);
    const TraceReplayOptions options = replayOptions();
    size_t replayed = 0, steps = 0, postGradSteps = 0, notCompared = 0, sizedSteps = 0;
    for (const TraceCompile &compile : log->compiles) {
        auto replay = replayCompile(*log, compile, options);
        INFO(compile.label() << ": " << (replay ? std::string() : replay.error().message));
        REQUIRE(replay);
        if (!runsPreGradPassesAfterCacheLookup()) {
            // 2.6 logs no pre-grad stage: the replay says so instead of "nothing fired".
            CHECK_FALSE(replay->replayed);
            CHECK(replay->notReplayed.find("no before_pre_grad_graph") != std::string::npos);
            continue;
        }
        if (compile.ranNoPreGradPasses()) {
            CHECK_FALSE(replay->replayed);
            CHECK(replay->notReplayed.find("FX graph cache") != std::string::npos);
            continue;
        }
        REQUIRE(replay->replayed);
        ++replayed;
        CHECK(replay->profile.find(bridgeProfile().profile->label()) == 0);
        CHECK(replay->optionsSource.find("fx_graph_runnable") != std::string::npos);
        for (const ReplayStep &step : replay->steps) {
            INFO(step.pass << " (" << step.artifact << "): " << step.verdict);
            if (!step.compared) {
                // Post-grad pattern passes: their input is not in the log.
                CHECK(step.stage == PassStage::PostGrad);
                CHECK(step.verdict.find("not compared") != std::string::npos);
                ++notCompared;
                continue;
            }
            if (step.stage == PassStage::PostGrad && !compile.recompileReason.empty() && step.production) {
                // The recompile is dynamic (f32[s37, 128]). Inductor 2.14
                // batches its post-grad relus over the symbolic shapes, as
                // Fusebox now does, and logs the graph after the fusion
                // with each symbol's size (Sym(16), f32[16, 128]): the
                // replay gives Fusebox's graph the same sizes and says so.
                ++sizedSteps;
                CHECK(step.verdict.find("compared with s") != std::string::npos);
                CHECK(step.verdict.find("the sizes production's graph is logged with") != std::string::npos);
            }
            CHECK(step.same);
            CHECK(step.production == step.fusebox);
            steps += step.production;
            postGradSteps += step.production && step.stage == PassStage::PostGrad;
        }
        INFO(replay->verdict);
        CHECK(replay->same);
    }
    if (runsPreGradPassesAfterCacheLookup()) {
        // Every model's compile and the recompile.
        CHECK(replayed == kTraceModels.size() + 1);
        // Passes production logged and Fusebox replayed the same (counted from the log: 47 for the full suite).
        CHECK(steps >= kTraceModels.size());
        // Post-grad batch fusions replayed on before_post_grad_graph, the same
        // as production's (pointwise_add_mul's batch_aten_add and
        // batch_aten_mul at least); its pattern passes listed, not compared.
        CHECK(postGradSteps >= 2);
        // The dynamic recompile's post-grad fusion, compared at its sizes.
        CHECK(sizedSteps >= 1);
        INFO(notCompared << " post-grad pattern-pass steps not compared");
    }
}

TEST_CASE("fusebox-pass trace --replay prints each compile's replay as the API gives it", "[pt2][trace]")
{
    const std::string &path = oracleLog();
    auto log = indexTorchTrace(path);
    REQUIRE(log);
    const TraceReplayOptions options = replayOptions();
    const std::string pass = std::string(FUSEBOX_BINARY_DIR) + "/app/fusebox-pass";
    RunResult json = runCommand("('" + pass + "' trace '" + path + "' --replay --json 2>/dev/null)");
    INFO(json.output.substr(0, 2000));
    REQUIRE(json.exitCode == 0);
    const nlohmann::json printed = nlohmann::json::parse(json.output);
    REQUIRE(printed["compiles"].size() == log->compiles.size());
    size_t passesWithoutGraph = 0;
    for (size_t i = 0; i < log->compiles.size(); ++i) {
        auto replay = replayCompile(*log, log->compiles[i], options);
        REQUIRE(replay);
        const nlohmann::json &c = printed["compiles"][i];
        INFO(c.dump(1).substr(0, 3000));
        CHECK(c["compile"] == replay->compile);
        CHECK(c["replayed"] == replay->replayed);
        CHECK(c["same"] == replay->same);
        REQUIRE(c["steps"].size() == replay->steps.size());
        for (size_t s = 0; s < replay->steps.size(); ++s) {
            const ReplayStep &step = replay->steps[s];
            const nlohmann::json &j = c["steps"][s];
            CHECK(j["pass"] == step.pass);
            CHECK(j["same"] == step.same);
            CHECK(j["fusebox_fired"] == step.fusebox);
            CHECK(j["fusebox_nodes"]["removed"] == step.fuseboxRemoved);
            CHECK(j["production_since"] == (step.production ? nlohmann::json(step.productionSince) : nlohmann::json()));
            if (step.artifact.empty()) {
                // A pass Inductor logs no graph for (normalization_pass): no
                // artifact, and what Fusebox changed is still counted.
                ++passesWithoutGraph;
                CHECK(j["artifact"].is_null());
                CHECK(j["address"].is_null());
            } else {
                CHECK(j["artifact"] == step.artifact);
            }
        }
    }
    if (runsPreGradPassesAfterCacheLookup())
        CHECK(passesWithoutGraph >= 1); // normalization_pass changes every model with a split
    // The text form: a compile per line, each step under it, in words.
    RunResult text = runCommand("('" + pass + "' trace '" + path + "' --replay 2>/dev/null)");
    INFO(text.output.substr(0, 3000));
    REQUIRE(text.exitCode == 0);
    CHECK(text.output.find("((") == std::string::npos);
    if (runsPreGradPassesAfterCacheLookup()) {
        CHECK(text.output.find("normalization_pass (Inductor logs no graph for this pass): production not logged, "
                               "Fusebox changed −")
              != std::string::npos);
        // The pass after it: production's counts hold normalization's change, and say so.
        CHECK(text.output.find(" nodes since before_pre_grad_graph, Fusebox −") != std::string::npos);
        CHECK(text.output.find(std::to_string(log->compiles.size() - 1) + " of " + std::to_string(log->compiles.size())
                               + " compiles replayed")
              != std::string::npos);
    }
}
