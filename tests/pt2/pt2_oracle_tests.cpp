// The oracle suite (issue 13): every model of tests/pt2/models/oracle_models.py
// captured by PyTorch 2.6, rewritten by Fusebox under Inductor's schedule and
// by Inductor's own passes under the same config, compared the way
// compare-inductor compares them (pt2::compareWithInductor: same graph up to
// node names, in one call form) and on counters (Fusebox's, named as
// counters["inductor"] names them, against Inductor's). Inductor's counters
// are also checked against those of its passes on the graphs PyTorch itself
// captured, so that the graph's trip through FX text changes nothing.
#include "Pt2TestSupport.h"

#include "core/pt2/InductorComparison.h"
#include "core/torch/ModelLoader.h"
#include "core/torch/TorchSchemas.h"
#include "patterns/Catalog.h"
#include "patterns/InductorProfile.h"
#include "patterns/PassConfiguration.h"
#include "patterns/PassSchedule.h"

#include <algorithm>
#include <regex>
#include <set>

using namespace fusebox;
using namespace fusebox::testing;

namespace {

const char *const kGenerator = "tests/pt2/models/oracle_models.py";

struct OracleConfig {
    const char *file;
    const char *graph; // the capture it runs on: pre-grad on Dynamo's graph, post-grad on AOT's
};
const OracleConfig kOracleConfigs[] = {{"tests/pt2/configs/pre_grad_all.json", "dynamo.py"},
                                       {"tests/pt2/configs/pre_grad_batch_small.json", "dynamo.py"},
                                       {"tests/pt2/configs/pre_grad_split_cat.json", "dynamo.py"},
                                       {"tests/pt2/configs/post_grad_all.json", "aot_forward.py"},
                                       // pre_grad_all's passes in another order: Inductor runs them in the
                                       // config's order, and so must Fusebox.
                                       {"tests/pt2/configs/pre_grad_all_sorted.json", "dynamo.py"},
                                       // The cat rewrites without the split/cat passes that run before
                                       // them in pre_grad_all and take their matches.
                                       {"tests/pt2/configs/pre_grad_cat_rewrites.json", "dynamo.py"},
                                       // 2.14's per-pass devices (the inputs are on the CPU: batch_linear is
                                       // dropped, batch_relu runs) and disabled_passes naming passes it
                                       // cannot stop; 2.6 ignores devices and has no disabled_passes.
                                       {"tests/pt2/configs/pre_grad_gated.json", "dynamo.py"}};

struct OracleModel {
    std::string name;
    std::string since; // the oldest Inductor profile the model runs under
};

/// The generator's models, in its order: each factory is registered with
/// `@_register("name")` or `@_register("name", since="2.14")`.
std::vector<OracleModel> oracleModels(const std::string &generatorText)
{
    std::vector<OracleModel> models;
    const std::regex registered(R"re(@_register\("([A-Za-z0-9_]+)"(?:, since="([0-9.]+)")?\))re");
    for (auto it = std::sregex_iterator(generatorText.begin(), generatorText.end(), registered);
         it != std::sregex_iterator(); ++it)
        models.push_back({(*it)[1].str(), (*it)[2].matched ? (*it)[2].str() : "2.6"});
    return models;
}

nlohmann::json countersJson(const pt2::Counters &counters)
{
    nlohmann::json out = nlohmann::json::object();
    for (const auto &[name, n] : counters)
        out[name] = n;
    return out;
}

/// The counters without pattern_matcher_count/_nodes (which Inductor's
/// pattern matcher bumps on every match, also when the handler then bails
/// out): the rules' own counters, reported apart.
nlohmann::json ruleCounters(const nlohmann::json &counters)
{
    nlohmann::json out = nlohmann::json::object();
    for (const auto &[name, n] : counters.items())
        if (!name.starts_with("pattern_matcher_"))
            out[name] = n;
    return out;
}

struct OracleRun {
    bool sameGraph = false, sameCounters = false, sameRuleCounters = false, fired = false;
    std::string line;    // one line of the suite's table
    nlohmann::json json; // the same, for build/pt2-fixtures/oracle-<version>/report.json
};

OracleRun compareOne(const std::string &model, const OracleConfig &config, const std::string &configText,
                     const std::string &graphPath, const nlohmann::json &liveCounters, const InductorProfile &profile)
{
    OracleRun run;
    auto loaded = loadModel(graphPath);
    INFO(model << ": " << graphPath << (loaded ? "" : ": " + loaded.error().message));
    REQUIRE(loaded.hasValue());
    auto passConfig = readPassConfig(configText, config.file);
    REQUIRE(passConfig.hasValue());
    PatternSet patterns = builtinCatalog();
    REQUIRE(configurePatterns(patterns, *passConfig, profile).isOk());

    Graph fusebox = loaded->graph.clone();
    DriverOptions options;
    options.isRejected = rejectionFilter(*passConfig);
    const DriverResult fused = runPassSchedule(PassSchedule::Inductor, patterns, *passConfig, fusebox, options);
    auto compared = pt2::compareWithInductor(pt2Bridge(), loaded->graph, graphPath, fusebox, configText,
                                             pt2GraphSchemas().registry);
    INFO(model << " under " << config.file << (compared ? "" : ": " + compared.error().message));
    REQUIRE(compared.hasValue());

    const nlohmann::json inductor = countersJson(compared->inductor.counters);
    nlohmann::json ours = nlohmann::json::object();
    for (const auto &[name, n] : fused.inductorCounters)
        ours[name] = n;
    // The bridge's answer on the graph read back from text is Inductor's on
    // the graph PyTorch captured.
    CHECK(inductor == liveCounters);
    // Why-not in Inductor's terms agrees with Inductor: explained in the
    // state Inductor's schedule meets the graph in, a fusion fires at some
    // node exactly when Inductor's counter for it moved.
    for (const Pattern *p : patterns.enabled()) {
        if (p->family() != PatternFamily::Horizontal)
            continue;
        const auto explanations = explainForSchedule(PassSchedule::Inductor, patterns, *passConfig, loaded->graph, *p);
        const bool fires = std::any_of(explanations.begin(), explanations.end(),
                                       [](const Explanation &e) { return e.matched; });
        const bool inductorFired = inductor.contains(p->name()) && inductor[p->name()].get<int64_t>() > 0;
        INFO(model << " under " << config.file << ": explain " << p->name() << " says it fires: " << fires
                   << "; Inductor's counters " << inductor.dump());
        CHECK(fires == inductorFired);
    }
    run.sameGraph = !compared->difference.has_value();
    run.sameCounters = ours == inductor;
    run.sameRuleCounters = ruleCounters(ours) == ruleCounters(inductor);
    run.fired = !inductor.empty();
    run.json = {{"model", model},
                {"config", config.file},
                {"same_graph", run.sameGraph},
                {"same_counters", run.sameCounters},
                {"same_rule_counters", run.sameRuleCounters},
                {"difference", compared->difference ? compared->difference->description : ""},
                {"inductor", inductor},
                {"fusebox", ours}};
    run.line = std::string(run.sameGraph ? "graph same" : "graph DIFF")
               + (run.sameCounters ? ", counters same" : ", counters DIFF") + "  " + model + "  " + config.file
               + (compared->difference ? "\n      first difference: " + compared->difference->description : "")
               + (run.sameCounters ? "" : "\n      inductor " + inductor.dump() + "\n      fusebox  " + ours.dump());
    return run;
}

} // namespace

TEST_CASE("The oracle suite: Fusebox's rewrite is Inductor's, graph and counters, on every generated model",
          "[pt2][inductor][oracle]")
{
    const std::string generator = readFile(sourcePath(kGenerator));
    const std::vector<OracleModel> allModels = oracleModels(generator);
    REQUIRE(allModels.size() >= 30);

    // The suite runs on each reference root (tests/CMakeLists.txt): Fusebox
    // follows the profile of the torch it runs against, and says which.
    auto info = pt2Bridge().check();
    REQUIRE(info.hasValue());
    const ChosenProfile &chosen = bridgeProfile();
    const InductorProfile &profile = *chosen.profile;

    // Models and passes of a newer Inductor than this one's are left out, and said.
    auto position = [](std::string_view version) {
        const auto &all = inductorProfiles();
        return std::find_if(all.begin(), all.end(), [&](const InductorProfile &p) { return p.version == version; })
               - all.begin();
    };
    std::vector<std::string> models, skipped;
    for (const OracleModel &m : allModels)
        (position(m.since) > position(profile.version) ? skipped : models).push_back(m.name);
    std::set<std::string> droppedPasses;
    std::vector<std::string> configTexts;
    nlohmann::json configs = nlohmann::json::array();
    for (const OracleConfig &c : kOracleConfigs) {
        configTexts.push_back(configForProfile(readFile(sourcePath(c.file)), profile, droppedPasses));
        configs.push_back(configTexts.back());
    }
    const std::string oracleDir = std::string(FUSEBOX_BINARY_DIR) + "/pt2-fixtures/oracle-"
                                  + std::string(profile.version);

    int runs = 0, sameGraph = 0, sameCounters = 0, sameRuleCounters = 0, sameBoth = 0, fired = 0;
    std::string table;
    nlohmann::json report = nlohmann::json::array();
    for (const std::string &model : models) {
        // The generator selects its model by a global appended to its text.
        const std::string script = generator + "\nORACLE_MODEL = \"" + model + "\"\n";
        auto captured = pt2Bridge().request("capture", {{"script", {{"name", "oracle_models.py"}, {"text", script}}},
                                                        {"light", true},
                                                        {"inductor_configs", configs}});
        INFO(model << ": " << (captured ? std::string() : captured.error().message));
        REQUIRE(captured.hasValue());
        const std::string dir = oracleDir + "/" + model;
        std::filesystem::create_directories(dir);
        for (const char *file : {"dynamo.py", "aot_forward.py"}) {
            INFO(model << ": no " << file << " captured");
            REQUIRE((*captured)["files"].contains(file));
            std::ofstream(dir + "/" + file) << (*captured)["files"][file].get<std::string>();
        }
        for (size_t i = 0; i < std::size(kOracleConfigs); ++i) {
            const OracleConfig &config = kOracleConfigs[i];
            const OracleRun run = compareOne(model, config, configTexts[i], dir + "/" + config.graph,
                                             (*captured)["inductor_counters"][i], profile);
            ++runs;
            sameGraph += run.sameGraph;
            sameCounters += run.sameCounters;
            sameRuleCounters += run.sameRuleCounters;
            sameBoth += run.sameGraph && run.sameRuleCounters;
            fired += run.fired;
            table += "  " + run.line + "\n";
            report.push_back(run.json);
        }
    }
    std::ofstream(oracleDir + "/report.json") << report.dump(1);
    // Inductor fires on most runs: agreement is not agreement on doing nothing.
    CHECK(fired >= runs / 2);
    std::string leftOut;
    for (const std::string &m : skipped)
        leftOut += (leftOut.empty() ? "" : ", ") + m;
    std::string passesLeftOut;
    for (const std::string &p : droppedPasses)
        passesLeftOut += (passesLeftOut.empty() ? "" : ", ") + p;
    WARN("Oracle suite under " << profile.label() << " (torch " << info->torch << ")"
                               << (chosen.note.empty() ? "" : "; " + chosen.note)
                               << (leftOut.empty() ? "" : "; models of newer Inductors left out: " + leftOut)
                               << (passesLeftOut.empty() ? ""
                                                         : "; passes it lacks left out of the configs: " + passesLeftOut)
                               << ": " << models.size() << " models x " << std::size(kOracleConfigs)
                               << " configs = " << runs << " runs; same graph " << sameGraph << "; same counters "
                               << sameCounters << ", without pattern_matcher_* " << sameRuleCounters
                               << "; graph and those counters " << sameBoth << "; Inductor fired on " << fired << "\n"
                               << table);
    // Issue 13: every run agrees with Inductor, graph and every counter
    // (pattern_matcher_* included); docs/inductor-schedule.md lists what
    // Fusebox matches to get there.
    CHECK(sameGraph == runs);
    CHECK(sameBoth == runs);
    CHECK(sameCounters == runs);
}
