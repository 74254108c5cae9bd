// compare-inductor: Inductor's own passes beside Fusebox's, on
// recommendation-style models under several configs. The counters it
// reports must be exactly counters["inductor"] of Inductor's passes run on
// the graphs PyTorch itself captured (not rebuilt from text). How often the two
// engines agree is printed, with a floor on it: issue 13 closes the gap.
//
// One pair goes through the fusebox-pass command; the other 23 call what it
// calls (pt2::compareWithInductor after the Inductor schedule) in this
// process, on this process's bridge: a command starts a PyTorch 2 of its own,
// about 5 s of CPU each, which made this file the longest of the test run.
#include "Pt2TestSupport.h"

#include "core/pt2/InductorComparison.h"
#include "core/torch/ModelLoader.h"
#include "core/torch/TorchSchemas.h"
#include "patterns/Catalog.h"
#include "patterns/InductorProfile.h"
#include "patterns/PassConfiguration.h"
#include "patterns/PassSchedule.h"

#include <filesystem>
#include <set>

#include <unistd.h>

using namespace fusebox;
using namespace fusebox::testing;

namespace {

const char *const kModels[] = {"tests/pt2/models/recsys_towers.py",        "tests/pt2/models/recsys_shared_input.py",
                               "tests/pt2/models/recsys_split_chain.py",   "tests/pt2/models/recsys_gated.py",
                               "tests/pt2/models/recsys_embedding_bag.py", "resources/demo/make_demo_model.py"};

struct Config {
    const char *file;
    const char *graph; // which capture it runs on
};
const Config kConfigs[] = {{"tests/pt2/configs/pre_grad_all.json", "dynamo.py"},
                           {"tests/pt2/configs/pre_grad_batch_small.json", "dynamo.py"},
                           {"tests/pt2/configs/pre_grad_split_cat.json", "dynamo.py"},
                           {"tests/pt2/configs/post_grad_all.json", "aot_forward.py"}};

/// The config files as the bridge's Inductor takes them (configForProfile),
/// written under build/pt2-fixtures/configs-<version>/; the passes left out
/// go to `dropped`.
std::vector<std::string> profileConfigPaths(std::set<std::string> &dropped)
{
    const InductorProfile &profile = *bridgeProfile().profile;
    const std::string dir = std::string(FUSEBOX_BINARY_DIR) + "/pt2-fixtures/configs-" + std::string(profile.version);
    std::filesystem::create_directories(dir);
    std::vector<std::string> paths;
    for (const Config &c : kConfigs) {
        paths.push_back(dir + "/" + std::filesystem::path(c.file).filename().string());
        std::ofstream(paths.back()) << configForProfile(readFile(sourcePath(c.file)), profile, dropped);
    }
    return paths;
}

/// counters["inductor"] on PyTorch's own captured graphs, per config (one capture per model).
const nlohmann::json &liveCounters(const std::string &model, const std::vector<std::string> &configPaths)
{
    static std::map<std::string, nlohmann::json> cache;
    auto it = cache.find(model);
    if (it != cache.end())
        return it->second;
    nlohmann::json configs = nlohmann::json::array();
    for (const std::string &path : configPaths)
        configs.push_back(readFile(path));
    auto r = pt2Bridge().request("capture", {{"script", {{"name", model}, {"text", readFile(sourcePath(model))}}},
                                             {"inductor_configs", configs}});
    INFO(model << ": " << (r ? std::string() : r.error().message));
    REQUIRE(r.hasValue());
    return cache.emplace(model, (*r)["inductor_counters"]).first->second;
}

/// compare-inductor's answer on one graph and config: whether the two results
/// are the same graph, and both sides' counters["inductor"].
struct Comparison {
    bool same = false;
    nlohmann::json fusebox = nlohmann::json::object(), inductor = nlohmann::json::object();
};

/// The command itself, with --json: its report, and its exit status agrees with it.
Comparison compareThroughCommand(const Capture &c, const std::string &graphFile, const std::string &configPath)
{
    // The captures are shared between test processes: the output is this process's own.
    const std::string out = c.dir + "/compare-" + std::to_string(::getpid()) + ".json";
    RunResult r = runCommand("(" + std::string(FUSEBOX_BINARY_DIR) + "/app/fusebox-pass compare-inductor "
                             + c.file(graphFile) + " --config " + configPath + " --json > " + out + ")");
    INFO(c.file(graphFile) << " under " << configPath << "\n" << r.output.substr(0, 3000));
    REQUIRE((r.exitCode == 0 || r.exitCode == 1));
    auto report = nlohmann::json::parse(readFile(out));
    std::filesystem::remove(out);
    CHECK(report["same"].get<bool>() == (r.exitCode == 0));
    return {report["same"].get<bool>(), report["fusebox"]["counters"], report["inductor"]["counters"]};
}

/// What the command does (runCompare in app/pass/CompareInductorCommand.cpp,
/// default schedule), in this process on its bridge.
Comparison compareInProcess(const Capture &c, const std::string &graphFile, const std::string &configPath)
{
    const std::string graphPath = c.file(graphFile), configText = readFile(configPath);
    auto loaded = loadModel(graphPath);
    INFO(graphPath << (loaded ? "" : ": " + loaded.error().message));
    REQUIRE(loaded.hasValue());
    auto config = readPassConfig(configText, configPath);
    REQUIRE(config.hasValue());
    PatternSet patterns = builtinCatalog();
    REQUIRE(configurePatterns(patterns, *config, *bridgeProfile().profile).isOk());
    Graph fusebox = loaded->graph.clone();
    DriverOptions options;
    options.isRejected = rejectionFilter(*config);
    const DriverResult fused = runPassSchedule(PassSchedule::Inductor, patterns, *config, fusebox, options);
    auto compared = pt2::compareWithInductor(pt2Bridge(), loaded->graph, graphPath, fusebox, configText,
                                             pt2GraphSchemas().registry);
    INFO(graphPath << " under " << configPath << (compared ? "" : ": " + compared.error().message));
    REQUIRE(compared.hasValue());
    Comparison result;
    result.same = !compared->difference.has_value();
    for (const auto &[name, n] : fused.inductorCounters)
        result.fusebox[name] = n;
    for (const auto &[name, n] : compared->inductor.counters)
        result.inductor[name] = n;
    return result;
}

} // namespace

TEST_CASE("compare-inductor reports Inductor's counters exactly, on 6 models under 4 configs", "[pt2][inductor]")
{
    std::set<std::string> dropped;
    const std::vector<std::string> configPaths = profileConfigPaths(dropped);
    int same = 0, runs = 0, firedSomewhere = 0;
    std::string table;
    for (const char *model : kModels) {
        const Capture &c = captured(model);
        const nlohmann::json &live = liveCounters(model, configPaths);
        for (size_t i = 0; i < std::size(kConfigs); ++i) {
            const Config &config = kConfigs[i];
            const bool throughCommand = runs == 0;
            const Comparison report = throughCommand ? compareThroughCommand(c, config.graph, configPaths[i])
                                                     : compareInProcess(c, config.graph, configPaths[i]);
            INFO(model << " under " << config.file << (throughCommand ? " (fusebox-pass compare-inductor)" : ""));
            CHECK(report.inductor == live[i]);
            ++runs;
            same += report.same ? 1 : 0;
            firedSomewhere += live[i].empty() ? 0 : 1;
            table += std::string("  ") + (report.same ? "same     " : "DIFFERENT") + "  " + model + "  " + config.file
                     + "  inductor " + report.inductor.dump() + "  fusebox " + report.fusebox.dump() + "\n";
        }
    }
    // The configs make Inductor fire on most models: the comparison is not vacuous.
    CHECK(firedSomewhere >= runs / 2);
    std::string leftOut;
    for (const std::string &p : dropped)
        leftOut += (leftOut.empty() ? "" : ", ") + p;
    WARN(bridgeProfile().profile->label()
         << (leftOut.empty() ? "" : " (passes it lacks left out of the configs: " + leftOut + ")")
         << ": Fusebox's result equals Inductor's on " << same << " of " << runs << " model/config pairs:\n"
         << table);
    // Under Inductor's schedule (the default) 21 of the 24 agree; the rest
    // differ in split_cat_pass's transforms (docs/inductor-schedule.md,
    // known differences). The floor keeps what is won.
    CHECK(same >= 21);
}

TEST_CASE("compare-inductor on a standard model where nothing fires: both sides agree", "[pt2][inductor]")
{
    const Capture &c = captured("tests/pt2/models/resnet18.py");
    std::set<std::string> dropped; // post_grad_all.json as this Inductor takes it (2.6 lacks 2.14's passes)
    RunResult r = runPass("compare-inductor " + c.file("aot_forward.py") + " --config "
                          + profileConfigPaths(dropped)[3]);
    INFO(r.output);
    CHECK(r.exitCode == 0);
    CHECK(r.output.find("SAME: Fusebox's result is Inductor's") != std::string::npos);
}

TEST_CASE("the same graph of other counts is not called the same: countDifferences", "[pt2][inductor]")
{
    // The defect Compare with Inductor had: normalization_pass 1 here, 2 in
    // Inductor, and the headline said "Same".
    const pt2::Counters inductor = {{"batch_linear", 2},
                                    {"normalization_pass", 2},
                                    {"pattern_matcher_count", 7},
                                    {"scmerge_split_removed", 1},
                                    {"unbind_stack_pass", 1}};
    const std::set<std::string> ran = {"batch_linear", "normalization_pass", "split_cat_pass", "unbind_stack_pass"};
    const auto differences
        = pt2::countDifferences({{"batch_linear", 2}, {"normalization_pass", 1}, {"split_cat_pass", 1}}, inductor, ran);
    // batch_linear agrees; split_cat_pass is counted under scmerge_* names and
    // pattern_matcher_count is no pass: neither is compared.
    REQUIRE(differences.size() == 2);
    CHECK(differences[0].pass == "normalization_pass");
    CHECK(differences[0].fusebox == 1);
    CHECK(differences[0].inductor == 2);
    CHECK(differences[1].pass == "unbind_stack_pass");
    CHECK(differences[1].fusebox == 0);
    CHECK(differences[1].inductor == 1);
    CHECK(pt2::countDifferences({{"batch_linear", 2}}, {{"batch_linear", 2}}, ran).empty());
}
