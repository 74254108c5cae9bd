// fusebox-pass trace --replay: each compile's Optimus passes replayed by
// Fusebox and compared with what production Inductor logged (patterns/TraceReplay.h).
#include "Commands.h"

#include "core/torch/TorchSchemas.h"
#include "patterns/TraceReplay.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <utility>

namespace fusebox::cli {
namespace {

nlohmann::json stepJson(const ReplayStep &step)
{
    return {{"pass", step.pass},
            {"stage", step.stage == PassStage::PreGrad ? "pre_grad" : "post_grad"},
            {"artifact", step.artifact.empty() ? nlohmann::json(nullptr) : nlohmann::json(step.artifact)},
            {"address", step.address.empty() ? nlohmann::json(nullptr) : nlohmann::json(step.address)},
            {"line", step.line},
            {"production_fired", step.production},
            {"fusebox_fired", step.fusebox},
            {"production_nodes", {{"removed", step.productionRemoved}, {"added", step.productionAdded}}},
            {"production_since",
             step.productionSince.empty() ? nlohmann::json(nullptr) : nlohmann::json(step.productionSince)},
            {"fusebox_nodes", {{"removed", step.fuseboxRemoved}, {"added", step.fuseboxAdded}}},
            {"same", step.same},
            {"compared", step.compared},
            {"verdict", step.verdict},
            {"why_not", step.whyNot}};
}

nlohmann::json replayJson(const CompileReplay &replay)
{
    nlohmann::json j{{"compile", replay.compile},
                     {"replayed", replay.replayed},
                     {"not_replayed",
                      replay.notReplayed.empty() ? nlohmann::json(nullptr) : nlohmann::json(replay.notReplayed)},
                     {"profile", replay.profile},
                     {"options", replay.optionsSource},
                     {"same", replay.same},
                     {"verdict", replay.verdict},
                     {"post_grad",
                      replay.postGradNote.empty() ? nlohmann::json(nullptr) : nlohmann::json(replay.postGradNote)},
                     {"first_difference",
                      replay.firstDifference ? nlohmann::json(*replay.firstDifference) : nlohmann::json(nullptr)}};
    j["steps"] = nlohmann::json::array();
    for (const ReplayStep &step : replay.steps)
        j["steps"].push_back(stepJson(step));
    return j;
}

void printReplay(const CompileReplay &replay)
{
    std::cout << "[" << replay.compile << "] ";
    if (!replay.replayed) {
        std::cout << "not replayed: " << replay.notReplayed << "\n";
        return;
    }
    std::cout << (replay.same ? "same" : "DIFFERS") << " — " << replay.verdict << "\n"
              << "    answers of " << replay.profile << "; options from " << replay.optionsSource << "\n";
    if (replay.steps.empty())
        std::cout << "    no Optimus pass changed the graph, in production or in Fusebox\n";
    if (!replay.postGradNote.empty())
        std::cout << "    " << replay.postGradNote << "\n";
    // The graph each side's counts start from: production counts against the
    // graph logged before its pass, so after a pass that logs nothing
    // (normalization_pass) its counts hold that pass's change too: said.
    std::string lastLogged = "before_pre_grad_graph";
    PassStage stage = PassStage::PreGrad;
    for (const ReplayStep &step : replay.steps) {
        if (std::exchange(stage, step.stage) != step.stage)
            lastLogged = "before_post_grad_graph";
        std::cout << "    "
                  << (!step.compared ? "· "
                      : step.same    ? "  "
                                     : "≠ ")
                  << (step.stage == PassStage::PostGrad ? "post-grad " : "") << step.pass << " ("
                  << (step.artifact.empty() ? "Inductor logs no graph for this pass" : step.artifact);
        if (step.line)
            std::cout << ", line " << step.line;
        auto nodes = [](size_t removed, size_t added) {
            return "−" + std::to_string(removed) + " +" + std::to_string(added) + " nodes";
        };
        std::cout << "): production "
                  << (step.production         ? nodes(step.productionRemoved, step.productionAdded)
                      : step.artifact.empty() ? std::string("not logged")
                                              : std::string("did not fire"));
        if (step.production && step.productionSince != lastLogged)
            std::cout << " since " << step.productionSince;
        // (A step production logged no graph for changed the graph on one side at least.)
        lastLogged = step.production ? step.artifact : std::string();
        const bool changed = step.fuseboxRemoved + step.fuseboxAdded > 0;
        std::cout << ", Fusebox "
                  << (step.fusebox ? nodes(step.fuseboxRemoved, step.fuseboxAdded)
                      : changed    ? "changed " + nodes(step.fuseboxRemoved, step.fuseboxAdded) + " (no graph logged)"
                                   : std::string("did not fire"));
        std::cout << "\n        " << step.verdict << "\n";
        for (const std::string &line : step.whyNot)
            std::cout << "        why not " << line << "\n";
    }
}

} // namespace

int runTraceReplay(const TraceLog &log, const ParsedArgs &args)
{
    std::optional<ChosenProfile> fallback;
    if (log.torchVersion.empty()) {
        fallback = inductorProfileForCommand(args, "trace");
        if (!fallback)
            return kExitUsage;
        std::cerr << "note: the log records no torch version: replaying with " << fallback->profile->label() << " ("
                  << fallback->source << ")\n";
    }
    TraceReplayOptions options;
    options.load = [](const std::string &path) { return loadModel(path); };
    options.schemas = &pt2GraphSchemas().registry;
    options.fallbackProfile = fallback ? fallback->profile : nullptr;
    options.fallbackSource = fallback ? fallback->source : std::string();

    nlohmann::json all = nlohmann::json::array();
    size_t replayed = 0, same = 0, failed = 0;
    for (const TraceCompile &compile : log.compiles) {
        auto replay = replayCompile(log, compile, options);
        if (!replay) {
            ++failed;
            std::cerr << "fusebox-pass trace: [" << compile.label() << "] " << replay.error().message << "\n";
            all.push_back({{"compile", compile.label()}, {"error", replay.error().message}});
            continue;
        }
        replayed += replay->replayed;
        same += replay->replayed && replay->same;
        if (args.has("--json"))
            all.push_back(replayJson(*replay));
        else
            printReplay(*replay);
    }
    if (args.has("--json")) {
        std::cout << nlohmann::json{{"path", log.path},
                                    {"torch_version", log.torchVersion.empty() ? nlohmann::json(nullptr)
                                                                               : nlohmann::json(log.torchVersion)},
                                    {"compiles", all}}
                         .dump(2)
                  << "\n";
    } else {
        std::cout << replayed << " of " << log.compiles.size() << " compiles replayed; " << same
                  << " give production's graph";
        if (failed)
            std::cout << "; " << failed << " could not be replayed (above)";
        std::cout << "\n";
    }
    return failed ? kExitFailure : kExitOk;
}

} // namespace fusebox::cli
